// model.js - the tiny encoder-decoder Transformer (Model) and the toy sequence tasks (tasks),
// over the C core's sx_model_* and sx_task_* exports (the full core's). simplexity.js builds
// them over mappings.js's internals (modelApi(internal.core)) and exports them, so they share
// its wasm instance, its heap views and its scratch region, and this file holds no state of its
// own.
//
// Reading order: names and constants, argument checks, token rows, the tasks, the Model
// (config, lifetime, compute, training, decoding, queries, checkpoints).
//
// Boundary rules (docs/STYLE.md): JS checks every argument, every token id included, before
// crossing into wasm (TypeError/RangeError naming the function, the argument and the value); C
// statuses become SimplexityError. Inputs go through the shared grow-only scratch region, so no
// call mallocs except new Model / Model.load (the model itself, freed by free()). Heap views are
// fetched again after every call into wasm (core.f32() etc.); results are copies.
// Token rows are read (and checked) into JS-owned Int32Arrays before the call reserves model
// memory or takes scratch: a getter or Proxy trap that calls the library again runs before any
// pointer is taken, and a rejected batch grows nothing. A model freed meanwhile is caught.

// ------------------------------------------------------------------ names, constants
/** Mapping kinds, indexed by the C mapping code (SX_MAP_SOFTMAX = 0 ... SX_MAP_FUSEDMAX = 5). */
const MAPPINGS = ["softmax", "sparsemax", "entmax15", "entmax", "entmax-learned", "fusedmax"];
const ENTMAX = 3;
const FUSEDMAX = 5;
/** Attention kinds, indexed by the C enum (ENC_SELF, DEC_SELF, CROSS). */
const KINDS = ["encoder", "decoder", "cross"];
const SPLITS = ["train", "heldout"];
/** model.save()'s precisions: the C SX_SAVE_FLOAT32 / SX_SAVE_FLOAT16 (bits per parameter). */
const SAVE_PRECISION = Object.freeze({ float32: 32, float16: 16 });
// Interventions (sx_model_edit ops) and attributions (sx_model_explain methods)
const EDIT_OPS = Object.freeze({ ablate: 0, replace: 1, erase: 2, mask: 3 });
const MAX_ROW_EDITS = 64; // SX_MODEL_MAX_EDITS
const MAX_EDITS = 256;
const EXPLAIN_METHODS = Object.freeze({ gradInput: 0, gradNorm: 1, integratedGradients: 2, leaveOneOut: 3 });
const EXPLAIN_ALL = Object.freeze([...Object.keys(EXPLAIN_METHODS), "rollout"]);

// The integer config (model.h): field indices and the float config's.
const C_VOCAB = 0, C_D_MODEL = 1, C_N_HEAD = 2, C_N_LAYER = 3, C_D_FF = 4, C_MAX_LEN = 5,
  C_SPAN = 6, C_SPAN_RAMP = 7, C_SEED = 8, C_MAX_BATCH = 9, C_ACT = 10, C_MAP = 11;
const F_SPAN_PENALTY = 0, F_CLIP = 1, F_ALPHA_LR = 2, F_PARAM = 3;
const MAX_LAYERS = 8;
const MAX_ROWS = 4096; // rows of one model call

/** The config fields new Model() accepts, with their defaults (task: see resolveConfig). */
export const MODEL_DEFAULTS = Object.freeze({
  task: undefined, vocab: undefined, maxLen: undefined, dModel: 32, heads: 4, layers: 2,
  dFF: 64, attention: "entmax-learned", alpha: 1.5, lambda: 0.1, span: 0, spanRamp: 3,
  activation: "relu", seed: 1, maxBatch: 32, spanPenalty: 0.002, clip: 1, alphaLr: 1,
});

// ------------------------------------------------------------------------- the API
/**
 * Build Model and tasks over one mappings.js instance (its calls need the full core).
 * core: { ready(fn) -> exports, f32(), i32(), u8(), scratch(fn, bytes) -> byte address (16-byte
 * aligned, valid until the next scratch call), coreError(fn, status), show(v), SimplexityError }.
 */
export function modelApi(core) {
  const { show, coreError } = core;

  // ------------------------------------------------------------ argument checks
  function intArg(fn, name, v, lo, hi, dflt) {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "number") {
      throw new TypeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
    }
    if (!Number.isInteger(v) || v < lo || v > hi) {
      throw new RangeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
    }
    return v;
  }

  /** A finite number >= min (float32-finite), or the default. */
  function numArg(fn, name, v, dflt, min, max = Infinity) {
    if (v === undefined) return dflt;
    const range = max === Infinity ? `>= ${min}` : `in [${min}, ${max}]`;
    if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be a number ${range} (got ${show(v)})`);
    if (!Number.isFinite(v) || !Number.isFinite(Math.fround(v))) {
      throw new RangeError(`${fn}: ${name} must be finite (got ${show(v)})`);
    }
    if (!(v >= min && v <= max)) throw new RangeError(`${fn}: ${name} must be ${range} (got ${show(v)})`);
    return v;
  }

  function objectArg(fn, name, v, optional) {
    if (v === undefined || v === null) {
      if (optional) return {};
      throw new TypeError(`${fn}: ${name} must be an object (got ${show(v)})`);
    }
    if (typeof v !== "object" || Array.isArray(v) || ArrayBuffer.isView(v)) {
      throw new TypeError(`${fn}: ${name} must be an object (got ${show(v)})`);
    }
    return v;
  }

  function knownKeys(fn, name, obj, keys) {
    for (const k of Object.keys(obj)) {
      if (!keys.includes(k)) {
        throw new RangeError(`${fn}: unknown ${name} field ${show(k)} (known: ${keys.join(", ")})`);
      }
    }
  }

  // ------------------------------------------------------------------ strings
  function cString(ptr, max = 4096) {
    const u8 = core.u8();
    let s = "";
    for (let p = ptr >>> 0; p < u8.length && u8[p] !== 0 && s.length < max; p++) s += String.fromCharCode(u8[p]);
    return s;
  }

  // -------------------------------------------------------------- token rows
  // Rows are Arrays or integer typed arrays (real ones: a Proxy's traps would run on the typed
  // array's accessors, and the engine's errors are not ours to show).
  const INT_ARRAYS = ["Int32Array", "Uint8Array", "Uint16Array", "Uint32Array", "Int8Array", "Int16Array"];
  const isIntArray = (x) => INT_ARRAYS.includes(core.typedName(x));
  const isRow = (x) => Array.isArray(x) || isIntArray(x);
  const TOKENS_TYPE = "an Int32Array, an array of token ids or an array of rows";

  /** The length of a row (isRow(x)), read once; a detached typed array is a TypeError. */
  function rowLength(fn, name, x) {
    if (Array.isArray(x)) {
      const len = x.length; // a Proxy's trap may answer anything
      if (len >>> 0 !== len) throw new TypeError(`${fn}: ${name}.length must be an integer >= 0 (got ${show(len)})`);
      return len;
    }
    const len = core.typedLength(x);
    if (len === 0 && core.detached(x)) throw new TypeError(`${fn}: ${name} is a detached ${core.typedName(x)}`);
    return len;
  }

  /**
   * Token rows: an array of rows (each an array or integer typed array of equal length), or one
   * flat array of count * len ids (count from the caller: a batch's shape[0], the count option,
   * or 1). `countWhat` names where count came from: a nested input's rows must agree with it.
   * At most maxRows rows. Returns { x, rows (the nested rows, each read once), nested, count, len }.
   */
  function rowsOf(fn, name, x, count, countWhat, maxRows = MAX_ROWS) {
    if (Array.isArray(x)) {
      const n = rowLength(fn, name, x);
      const first = n > 0 ? x[0] : undefined;
      if (isRow(first)) {
        rowCount(fn, n, maxRows);
        const rows = new Array(n);
        let len = 0;
        for (let r = 0; r < n; r++) {
          const row = r === 0 ? first : x[r];
          if (!isRow(row)) throw new TypeError(`${fn}: ${name}[${r}] must be a row of token ids (got ${show(row)})`);
          const l = rowLength(fn, `${name}[${r}]`, row);
          if (r === 0) len = l;
          else if (l !== len) {
            throw new RangeError(`${fn}: ${name}[${r}] has ${l} tokens, ${name}[0] has ${len}: rows must have equal lengths`);
          }
          rows[r] = row;
        }
        if (countWhat !== undefined && count !== n) {
          throw new RangeError(`${fn}: ${name} has ${n} rows, ${countWhat} says ${count}`);
        }
        return { x, rows, nested: true, count: n, len };
      }
    } else if (!isIntArray(x)) {
      throw new TypeError(`${fn}: ${name} must be ${TOKENS_TYPE} (got ${show(x)})`);
    }
    const total = rowLength(fn, name, x);
    const c = count === undefined ? 1 : count;
    if (total === 0 || total % c !== 0) {
      throw new RangeError(`${fn}: ${name}.length (${total}) must be a positive multiple of the row count (${c})`);
    }
    return { x, rows: null, nested: false, count: c, len: total / c };
  }

  /**
   * The ids of rowsOf's rows in a new Int32Array (count * len, row-major), each checked against
   * [0, vocab). User code (getters, Proxy traps) runs here, before anything touches wasm memory.
   */
  function readTokens(fn, name, rows, vocab) {
    const { x, count, len } = rows;
    const ids = new Int32Array(count * len);
    for (let r = 0; r < count; r++) {
      const row = rows.nested ? rows.rows[r] : x;
      const off = rows.nested ? 0 : r * len;
      for (let i = 0; i < len; i++) {
        const v = row[off + i];
        if (!Number.isInteger(v) || v < 0 || v >= vocab) {
          const where = count > 1 || rows.nested ? `${name}[${r}][${i}]` : `${name}[${i}]`;
          const E = typeof v === "number" ? RangeError : TypeError;
          throw new E(`${fn}: ${where} must be a token id in [0, ${vocab}) (got ${show(v)})`);
        }
        ids[r * len + i] = v;
      }
    }
    return ids;
  }

  /** Rows of a result: count Int32Arrays of len, copied out of i32[at ...]. */
  function rowsOut(at, count, len) {
    const h = core.i32();
    const out = new Array(count);
    for (let r = 0; r < count; r++) out[r] = h.slice(at + r * len, at + (r + 1) * len);
    return out;
  }

  // ==================================================================== tasks
  let taskTable = null; // [{ name, vocab: string[], width, lengths }] read once from C

  function table(fn) {
    const ex = core.ready(fn);
    if (taskTable !== null) return taskTable;
    const n = ex.sx_task_count();
    const t = [];
    const at = core.scratch(fn, 16);
    for (let id = 0; id < n; id++) {
      const vocab = ["<pad>", "<bos>", "<eos>"];
      const V = ex.sx_task_vocab_size(id);
      for (let k = 3; k < V; k++) vocab.push(String.fromCharCode(ex.sx_task_token_char(id, k)));
      ex.sx_task_lengths(at, at + 4, at + 8, at + 12, id);
      const h = core.i32();
      const lengths = { minSrc: h[at >> 2], maxSrc: h[(at >> 2) + 1], minTgt: h[(at >> 2) + 2], maxTgt: h[(at >> 2) + 3] };
      t.push(Object.freeze({ id, name: cString(ex.sx_task_name(id)), vocab: Object.freeze(vocab), width: ex.sx_task_width(id), lengths: Object.freeze(lengths) }));
    }
    taskTable = t;
    return t;
  }

  function taskArg(fn, name) {
    const t = table(fn);
    if (typeof name !== "string") {
      throw new TypeError(`${fn}: task must be a task name string (got ${show(name)})`);
    }
    const task = t.find((x) => x.name === name);
    if (!task) {
      throw new RangeError(`${fn}: task must be one of ${t.map((x) => JSON.stringify(x.name)).join(", ")} (got ${show(name)})`);
    }
    return task;
  }

  function splitArg(fn, split) {
    if (split === undefined) return 0;
    const i = SPLITS.indexOf(split);
    if (i < 0) {
      const E = typeof split === "string" ? RangeError : TypeError;
      throw new E(`${fn}: split must be "train" or "heldout" (got ${show(split)})`);
    }
    return i;
  }

  function maxLenArg(fn, task, v) {
    return intArg(fn, "maxLen", v, task.width, 256, task.width);
  }

  /** One source row from text, checked in JS against the task's alphabet. */
  function textArg(fn, task, text, maxLen, name = "text") {
    if (typeof text !== "string") throw new TypeError(`${fn}: ${name} must be a string (got ${show(text)})`);
    if (text.length + 1 > maxLen) {
      throw new RangeError(`${fn}: ${name} ${show(text)} has ${text.length} characters; with EOS it must fit in maxLen ${maxLen}`);
    }
    for (let i = 0; i < text.length; i++) {
      const k = task.vocab.indexOf(text[i], 3);
      if (k < 0) {
        throw new RangeError(`${fn}: ${name}[${i}] ${show(text[i])} is not in the ${task.name} alphabet ${show(task.vocab.slice(3).join(""))}`);
      }
    }
  }

  /** tasks.encode for `fn` (its errors name fn and the argument `name`). */
  function encodeRow(fn, task, text, maxLen, name) {
    textArg(fn, task, text, maxLen, name);
    const ex = core.ready(fn);
    const at = core.scratch(fn, 4 * maxLen + text.length + 1);
    const u8 = core.u8();
    const t = at + 4 * maxLen;
    for (let i = 0; i < text.length; i++) u8[t + i] = text.charCodeAt(i);
    u8[t + text.length] = 0;
    const st = ex.sx_task_encode(at, task.id, t, maxLen);
    if (st !== 0) throw coreError(fn, st);
    return core.i32().slice(at >> 2, (at >> 2) + maxLen);
  }

  /** tasks.decode for `fn`: the text of one row of ids (already read and checked). */
  function decodeRow(fn, task, ids) {
    const n = ids.length;
    const ex = core.ready(fn);
    const at = core.scratch(fn, 4 * n + n + 1);
    core.i32().set(ids, at >> 2);
    const st = ex.sx_task_decode(at + 4 * n, n + 1, task.id, at, n);
    if (st !== 0) throw coreError(fn, st);
    return cString(at + 4 * n, n + 1);
  }

  /** A text that must fit in `max` characters (a longer one is a RangeError naming `name`). */
  function textLength(fn, name, text, max) {
    if (typeof text === "string" && text.length > max) {
      throw new RangeError(`${fn}: ${name} has ${text.length} characters, more than ${max}`);
    }
  }

  const tasks = Object.freeze({
    /** The task names, in C id order. */
    names() {
      return table("tasks.names").map((t) => t.name);
    },

    /** The vocabulary: token id -> "<pad>", "<bos>", "<eos>", then one character per id. */
    vocab(name) {
      return [...taskArg("tasks.vocab", name).vocab];
    },

    /** The smallest maxLen that holds every example of the task. */
    width(name) {
      return taskArg("tasks.width", name).width;
    },

    /** Source and target length ranges in characters: { minSrc, maxSrc, minTgt, maxTgt }. */
    lengths(name) {
      return { ...taskArg("tasks.lengths", name).lengths };
    },

    /**
     * Examples start .. start + count - 1 of (task, split, seed): { src, tgt, shape: [count, maxLen] },
     * src and tgt Int32Arrays (count, maxLen) row-major. Deterministic.
     */
    generate(name, opts) {
      const fn = "tasks.generate";
      const task = taskArg(fn, name);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["seed", "count", "split", "start", "maxLen"]);
      const seed = intArg(fn, "seed", o.seed, 0, 0xffffffff, 1);
      const count = intArg(fn, "count", o.count, 1, 65536, 1);
      const start = intArg(fn, "start", o.start, 0, 0x7fffffff - count, 0);
      const split = splitArg(fn, o.split);
      const maxLen = maxLenArg(fn, task, o.maxLen);
      const n = count * maxLen;
      const ex = core.ready(fn);
      const at = core.scratch(fn, 8 * n);
      const st = ex.sx_task_generate(at, at + 4 * n, task.id, split, seed | 0, start, count, maxLen);
      if (st !== 0) throw coreError(fn, st);
      const h = core.i32();
      const a = at >> 2;
      return { src: h.slice(a, a + n), tgt: h.slice(a + n, a + 2 * n), shape: [count, maxLen] };
    },

    /** One source row (maxLen ids: the characters, EOS, PAD...) from text. */
    encode(name, text, opts) {
      const fn = "tasks.encode";
      const task = taskArg(fn, name);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["maxLen"]);
      const maxLen = intArg(fn, "maxLen", o.maxLen, 2, 256, task.width);
      return encodeRow(fn, task, text, maxLen, "text");
    },

    /**
     * Text from one row of token ids (a src row, a tgt row or a generated row): BOS skipped,
     * stops at the first EOS or PAD.
     */
    decode(name, tokens) {
      const fn = "tasks.decode";
      const task = taskArg(fn, name);
      if (!isRow(tokens)) throw new TypeError(`${fn}: tokens must be an Int32Array or an array of token ids (got ${show(tokens)})`);
      const n = rowLength(fn, "tokens", tokens);
      core.fit(fn, 5 * n + 1);
      const ids = readTokens(fn, "tokens", { x: tokens, nested: false, count: 1, len: n }, task.vocab.length);
      return decodeRow(fn, task, ids);
    },

    /**
     * The reference answer. For text: the answer text. For source rows (as Model.forward takes
     * them, or a batch's src with { count }): the target rows (BOS, answer, EOS, PAD), an
     * Int32Array of the same shape (flat input) or an array of rows (nested input).
     */
    answer(name, src, opts) {
      const fn = "tasks.answer";
      const task = taskArg(fn, name);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["count"]);
      if (typeof src === "string") {
        textLength(fn, "text", src, ANSWER_MAX_LEN - 2);
        const row = encodeRow(fn, task, src, Math.max(task.width, src.length + 2), "text");
        const len = row.length;
        const tgt = answerRows(fn, task, { x: row, rows: null, nested: false, count: 1, len });
        return decodeRow(fn, task, tgt);
      }
      const oc = o.count;
      const count = oc === undefined ? undefined : intArg(fn, "count", oc, 1, 1 << 20);
      const rows = rowsOf(fn, "src", src, count, count === undefined ? undefined : "the count option", 1 << 20);
      const out = answerRows(fn, task, rows);
      return rows.nested ? Array.from({ length: rows.count }, (_, r) => out.slice(r * rows.len, (r + 1) * rows.len)) : out;
    },

    /** "train" or "heldout": the split a source text (or one source row) belongs to. */
    splitOf(name, src) {
      const fn = "tasks.splitOf";
      const task = taskArg(fn, name);
      textLength(fn, "src", src, 255);
      const row = typeof src === "string" ? encodeRow(fn, task, src, Math.max(2, src.length + 1), "src") : src;
      if (!isRow(row)) throw new TypeError(`${fn}: src must be a string or a row of token ids (got ${show(src)})`);
      const n = rowLength(fn, "src", row);
      if (n < 1 || n > 256) throw new RangeError(`${fn}: src must have 1..256 tokens (got ${n})`);
      const ids = readTokens(fn, "src", { x: row, rows: null, nested: false, count: 1, len: n }, task.vocab.length);
      const ex = core.ready(fn);
      const at = core.scratch(fn, 4 * n + 16);
      core.i32().set(ids, (at >> 2) + 4);
      const st = ex.sx_task_split_of(at, task.id, at + 16, 1, n);
      if (st !== 0) throw coreError(fn, st);
      return SPLITS[core.i32()[at >> 2]];
    },
  });

  const ANSWER_MAX_LEN = 240;

  function answerRows(fn, task, rows) {
    const { count, len } = rows;
    if (len < 2 || len > ANSWER_MAX_LEN) throw new RangeError(`${fn}: src rows must have 2..${ANSWER_MAX_LEN} tokens (got ${len})`);
    const n = count * len;
    core.fit(fn, 8 * n);
    const ids = readTokens(fn, "src", rows, task.vocab.length);
    const ex = core.ready(fn);
    const at = core.scratch(fn, 8 * n);
    core.i32().set(ids, (at >> 2) + n);
    const st = ex.sx_task_answer(at, task.id, at + 4 * n, count, len);
    if (st !== 0) throw coreError(fn, st);
    return core.i32().slice(at >> 2, (at >> 2) + n);
  }

  // ============================================================= interventions
  /** A kind name -> 0..2 (`where` names the field). */
  function kindArg(fn, where, v) {
    const k = KINDS.indexOf(v);
    if (k < 0) {
      const E = typeof v === "string" ? RangeError : TypeError;
      throw new E(`${fn}: ${where} must be "encoder", "decoder" or "cross" (got ${show(v)})`);
    }
    return k;
  }

  /** Finite floats of an array or typed array of 1..max entries (each >= min). */
  function floatsArg(fn, where, v, max, min) {
    if (!Array.isArray(v) && !ArrayBuffer.isView(v)) {
      throw new TypeError(`${fn}: ${where} must be an array of numbers (got ${show(v)})`);
    }
    const n = Array.isArray(v) ? v.length : core.typedLength(v);
    if (!(n >= 1 && n <= max)) throw new RangeError(`${fn}: ${where} must have 1..${max} entries (got ${n})`);
    const out = new Float32Array(n);
    for (let j = 0; j < n; j++) {
      const x = v[j];
      if (typeof x !== "number") throw new TypeError(`${fn}: ${where}[${j}] must be a number (got ${show(x)})`);
      if (!Number.isFinite(x) || !Number.isFinite(Math.fround(x)) || x < min) {
        throw new RangeError(`${fn}: ${where}[${j}] must be finite${min > -Infinity ? ` and >= ${min}` : ""} (got ${show(x)})`);
      }
      out[j] = x;
    }
    return out;
  }

  /**
   * options.intervene: an array of edits, each { op, kind, layer?, head?, row?, weights | keys },
   * checked and read once into plain records { op, kind, layer, head, row, w } (-1: every).
   */
  function editsArg(fn, v, cfg) {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new TypeError(`${fn}: intervene must be an array of edits (got ${show(v)})`);
    const n = v.length;
    if (n > MAX_EDITS) throw new RangeError(`${fn}: intervene has at most ${MAX_EDITS} edits (got ${n})`);
    const { layers, heads, maxLen } = cfg;
    const out = [];
    let rowEdits = 0;
    for (let i = 0; i < n; i++) {
      const w = `intervene[${i}]`;
      const e = objectArg(fn, w, v[i], false);
      const opName = e.op;
      if (typeof opName !== "string" || !Object.hasOwn(EDIT_OPS, opName)) {
        const E = typeof opName === "string" ? RangeError : TypeError;
        throw new E(`${fn}: ${w}.op must be "ablate", "replace", "erase" or "mask" (got ${show(opName)})`);
      }
      const op = EDIT_OPS[opName];
      const keys = { ablate: ["op", "kind", "layer", "head"], replace: ["op", "kind", "layer", "head", "row", "weights"],
        erase: ["op", "kind", "layer", "head", "row", "keys"], mask: ["op", "kind", "layer", "keys"] }[opName];
      knownKeys(fn, w, e, keys);
      const kind = kindArg(fn, `${w}.kind`, e.kind);
      const layer = e.layer === undefined ? -1 : intArg(fn, `${w}.layer`, e.layer, 0, layers - 1);
      const head = e.head === undefined ? -1 : intArg(fn, `${w}.head`, e.head, 0, heads - 1);
      const row = e.row === undefined ? -1 : intArg(fn, `${w}.row`, e.row, 0, maxLen - 1);
      let wts = null;
      if (opName === "replace") {
        if (e.weights === undefined) throw new TypeError(`${fn}: ${w}.weights is required for "replace"`);
        wts = floatsArg(fn, `${w}.weights`, e.weights, maxLen, 0);
      } else if (opName !== "ablate") {
        const k = e.keys;
        if (!Array.isArray(k) || k.length === 0) {
          throw new TypeError(`${fn}: ${w}.keys must be a non-empty array of key positions (got ${show(k)})`);
        }
        wts = new Float32Array(maxLen);
        for (let j = 0; j < k.length; j++) wts[intArg(fn, `${w}.keys[${j}]`, k[j], 0, maxLen - 1)] = 1;
      }
      if (op === EDIT_OPS.replace || op === EDIT_OPS.erase) rowEdits += layer < 0 ? layers : 1;
      if (rowEdits > MAX_ROW_EDITS) {
        throw new RangeError(`${fn}: intervene has more than ${MAX_ROW_EDITS} row edits (replace and erase, one per layer they touch)`);
      }
      out.push({ op, kind, layer, head, row, w: wts });
    }
    return out;
  }

  // ==================================================================== Model
  // A safety net only: a Model that becomes unreachable without free() has its C handle freed
  // when (and if) the engine collects it. Call free(): collection may come late or never.
  const registry = typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
      try {
        core.ready("Model").sx_model_free(handle);
      } catch {
        // the instance is gone: nothing to free
      }
    })
    : null;

  const CONFIG_KEYS = Object.keys(MODEL_DEFAULTS);

  /** Check a JS config; returns { cfg: int[], fcfg: float[], config: resolved object }. */
  function resolveConfig(fn, config) {
    const c = objectArg(fn, "config", config, false);
    knownKeys(fn, "config", c, CONFIG_KEYS);
    const D = MODEL_DEFAULTS;
    const task = c.task === undefined ? undefined : taskArg(fn, c.task);
    if (!task && (c.vocab === undefined || c.maxLen === undefined)) {
      throw new TypeError(`${fn}: config.${c.vocab === undefined ? "vocab" : "maxLen"} is required when config.task is not given`);
    }
    const vocab = intArg(fn, "config.vocab", c.vocab, 4, 4096, task ? task.vocab.length : undefined);
    if (task && vocab < task.vocab.length) {
      throw new RangeError(`${fn}: config.vocab must be >= ${task.vocab.length} for the ${task.name} task (got ${vocab})`);
    }
    const maxLen = intArg(fn, "config.maxLen", c.maxLen, task ? task.width : 2, 256, task ? task.width : undefined);
    const heads = intArg(fn, "config.heads", c.heads, 1, 16, D.heads);
    const dModel = intArg(fn, "config.dModel", c.dModel, 2, 1024, D.dModel);
    if (dModel % 2 !== 0 || dModel % heads !== 0) {
      throw new RangeError(`${fn}: config.dModel must be even and a multiple of config.heads (${heads}) (got ${dModel})`);
    }
    const layers = intArg(fn, "config.layers", c.layers, 1, MAX_LAYERS, D.layers);
    const dFF = intArg(fn, "config.dFF", c.dFF, 1, 4096, D.dFF);
    let attention = c.attention === undefined ? D.attention : c.attention;
    if (typeof attention === "string") attention = new Array(layers).fill(attention);
    else if (Array.isArray(attention)) {
      if (attention.length !== layers) {
        throw new RangeError(`${fn}: config.attention must name one mapping per layer (${layers}) (got ${attention.length})`);
      }
    } else {
      throw new TypeError(`${fn}: config.attention must be a mapping name or an array of one per layer (got ${show(attention)})`);
    }
    const maps = attention.map((a, l) => {
      const k = MAPPINGS.indexOf(a);
      if (k < 0) {
        const E = typeof a === "string" ? RangeError : TypeError;
        const where = Array.isArray(c.attention) ? `config.attention[${l}]` : "config.attention";
        throw new E(`${fn}: ${where} must be one of ${MAPPINGS.map((m) => JSON.stringify(m)).join(", ")} (got ${show(a)})`);
      }
      return k;
    });
    const alpha = numArg(fn, "config.alpha", c.alpha, D.alpha, 1, 8);
    const lambda = numArg(fn, "config.lambda", c.lambda, D.lambda, 0);
    let span = c.span === undefined ? D.span : c.span;
    if (span === true) span = maxLen;
    else if (span === false) span = 0;
    else span = intArg(fn, "config.span", span, 0, maxLen);
    const spanRamp = intArg(fn, "config.spanRamp", c.spanRamp, 1, 256, D.spanRamp);
    const act = c.activation === undefined ? D.activation : c.activation;
    if (act !== "relu" && act !== "gelu") {
      const E = typeof act === "string" ? RangeError : TypeError;
      throw new E(`${fn}: config.activation must be "relu" or "gelu" (got ${show(act)})`);
    }
    const seed = intArg(fn, "config.seed", c.seed, -0x80000000, 0xffffffff, D.seed);
    const maxBatch = intArg(fn, "config.maxBatch", c.maxBatch, 1, 4096, D.maxBatch);
    const spanPenalty = numArg(fn, "config.spanPenalty", c.spanPenalty, D.spanPenalty, 0);
    const clip = numArg(fn, "config.clip", c.clip, D.clip, -Infinity);
    const alphaLr = numArg(fn, "config.alphaLr", c.alphaLr, D.alphaLr, 0);

    const cfg = [vocab, dModel, heads, layers, dFF, maxLen, span, span ? spanRamp : 1, seed | 0,
      maxBatch, act === "gelu" ? 1 : 0, ...maps];
    const fcfg = [spanPenalty, clip, alphaLr,
      ...maps.map((k) => (k === FUSEDMAX ? lambda : k === ENTMAX ? alpha : 1.5))];
    return { cfg, fcfg };
  }

  /** The JS config of a live model, read back from C (so loaded models have one too). */
  function readConfig(ex, h) {
    const get = (f) => ex.sx_model_config(h, f);
    const fget = (f) => Number(ex.sx_model_fconfig(h, f).toPrecision(7)); // the float32, as typed
    const layers = get(C_N_LAYER);
    const attention = Array.from({ length: layers }, (_, l) => MAPPINGS[get(C_MAP + l)]);
    const maps = attention.map((a) => MAPPINGS.indexOf(a));
    const ea = maps.indexOf(ENTMAX), fl = maps.indexOf(FUSEDMAX);
    return Object.freeze({
      vocab: get(C_VOCAB), maxLen: get(C_MAX_LEN), dModel: get(C_D_MODEL), heads: get(C_N_HEAD),
      layers, dFF: get(C_D_FF), attention: Object.freeze(attention),
      alpha: ea >= 0 ? fget(F_PARAM + ea) : MODEL_DEFAULTS.alpha,
      lambda: fl >= 0 ? fget(F_PARAM + fl) : MODEL_DEFAULTS.lambda,
      span: get(C_SPAN), spanRamp: get(C_SPAN) ? get(C_SPAN_RAMP) : MODEL_DEFAULTS.spanRamp,
      activation: get(C_ACT) ? "gelu" : "relu", seed: get(C_SEED), maxBatch: get(C_MAX_BATCH),
      spanPenalty: fget(F_SPAN_PENALTY), clip: fget(F_CLIP), alphaLr: fget(F_ALPHA_LR),
    });
  }

  const CREATE = Symbol("Model.create"); // Model.load's private path into the constructor

  class Model {
    #handle = 0;
    #config = null;

    /** A new model with freshly initialised parameters (see MODEL_DEFAULTS for the fields). */
    constructor(config, handle) {
      if (config === CREATE) {
        this.#adopt(handle);
        return;
      }
      const fn = "Model";
      const { cfg, fcfg } = resolveConfig(fn, config);
      const ex = core.ready(fn);
      const at = core.scratch(fn, 16 + 4 * (cfg.length + fcfg.length));
      const i32 = core.i32();
      const f32 = core.f32();
      const pc = at + 16, pf = pc + 4 * cfg.length;
      i32[at >> 2] = 0;
      for (let i = 0; i < cfg.length; i++) i32[(pc >> 2) + i] = cfg[i];
      for (let i = 0; i < fcfg.length; i++) f32[(pf >> 2) + i] = fcfg[i];
      const st = ex.sx_model_create(at, pc, cfg.length, pf, fcfg.length);
      if (st !== 0) throw coreError(fn, st);
      this.#adopt(core.i32()[at >> 2] >>> 0);
    }

    #adopt(handle) {
      this.#handle = handle;
      this.#config = readConfig(core.ready("Model"), handle);
      if (registry) registry.register(this, handle, this);
    }

    /** The live handle, or a clear error for a freed model. */
    #live(fn) {
      if (this.#handle === 0) {
        throw new Error(`${fn}: this model has been freed (free() was called); create or load a new one`);
      }
      return core.ready(fn);
    }

    /** Grow the activation block for `count` rows (up to 4096, see rowCount) when a call needs it. */
    #reserve(fn, ex, count) {
      if (count <= this.#config.maxBatch) return;
      rowCount(fn, count);
      const st = ex.sx_model_reserve(this.#handle, count);
      if (st !== 0) throw coreError(fn, st);
      this.#config = Object.freeze({ ...this.#config, maxBatch: count });
    }

    /** A model from checkpoint bytes (model.save()); bad bytes throw SimplexityError. */
    static load(bytes) {
      const fn = "Model.load";
      let b = bytes;
      if (b instanceof ArrayBuffer) {
        if (core.bufferDetached(b)) throw new TypeError(`${fn}: bytes is a detached ArrayBuffer`);
        b = new Uint8Array(b);
      }
      if (core.typedName(b) !== "Uint8Array") {
        throw new TypeError(`${fn}: bytes must be a Uint8Array or an ArrayBuffer (got ${show(bytes)})`);
      }
      const n = core.typedLength(b); // the real length: the copy below writes that many bytes
      if (n === 0 && core.detached(b)) throw new TypeError(`${fn}: bytes is a detached Uint8Array`);
      core.fit(fn, 16 + n, n); // the model the core builds from them is about as large
      const ex = core.ready(fn);
      const at = core.scratch(fn, 16 + n);
      core.i32()[at >> 2] = 0;
      core.u8().set(b, at + 16);
      const st = ex.sx_model_load(at, at + 16, n);
      if (st !== 0) throw coreError(fn, st);
      return new Model(CREATE, core.i32()[at >> 2] >>> 0);
    }

    /** Free the model's wasm memory. Idempotent; any later use throws. */
    free() {
      if (this.#handle === 0) return;
      const h = this.#handle;
      this.#handle = 0;
      if (registry) registry.unregister(this);
      core.ready("model.free").sx_model_free(h);
    }

    /** True once free() has been called. */
    get freed() {
      return this.#handle === 0;
    }

    /** The resolved config (every field of MODEL_DEFAULTS except task), frozen. */
    get config() {
      this.#live("model.config");
      return this.#config;
    }

    /** Number of parameters (floats). */
    get numParams() {
      return this.#live("model.numParams").sx_model_num_params(this.#handle);
    }

    /** Adam steps taken so far (0 after load: the optimiser state is not saved). */
    get steps() {
      return this.#live("model.steps").sx_model_steps(this.#handle);
    }

    // ------------------------------------------------------------- compute
    /**
     * Forward pass, teacher forced. src: source rows (characters, EOS, PAD); tgt: decoder input
     * rows (BOS, tokens...; a task's full tgt rows are fine). Rows: an array of rows, or flat with
     * opts.count rows. Returns copies: { logits, shape: [count, tgtLen, vocab], attention: [...] }.
     */
    forward(src, tgt, opts) {
      const fn = "model.forward";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["count", "attention", "intervene"]);
      const count = o.count === undefined ? undefined : intArg(fn, "count", o.count, 1, 4096);
      const edits = editsArg(fn, o.intervene, this.#config);
      const oa = o.attention;
      if (oa !== undefined && typeof oa !== "boolean") {
        throw new TypeError(`${fn}: attention must be true or false (got ${show(oa)})`);
      }
      const withMaps = oa !== false;
      const countWhat = count === undefined ? undefined : "the count option";
      const s = rowsOf(fn, "src", src, count, countWhat);
      const t = rowsOf(fn, "tgt", tgt, count ?? (s.nested ? undefined : s.count), countWhat);
      if (t.count !== s.count) throw new RangeError(`${fn}: src has ${s.count} rows, tgt has ${t.count}`);
      const { vocab, maxLen } = this.#config;
      lengthCheck(fn, "src", s.len, 1, maxLen);
      lengthCheck(fn, "tgt", t.len, 1, maxLen);
      rowCount(fn, s.count);
      const srcIds = readTokens(fn, "src", s, vocab);
      const tgtIds = readTokens(fn, "tgt", t, vocab);
      this.#live(fn); // a getter may have freed the model
      this.#reserve(fn, ex, s.count);
      return this.#edited(fn, ex, edits, () => {
        const ns = s.count * s.len;
        const at = core.scratch(fn, 4 * (ns + t.count * t.len));
        const i32 = core.i32();
        i32.set(srcIds, at >> 2);
        i32.set(tgtIds, (at >> 2) + ns);
        const st = ex.sx_model_forward(this.#handle, at, s.len, at + 4 * ns, t.len, s.count);
        if (st !== 0) throw coreError(fn, st);
        return this.#results(ex, s.count, t.len, withMaps);
      });
    }

    /** Run body with the edits in place in C, and none after it (whatever happens). */
    #edited(fn, ex, edits, body) {
      if (edits.length === 0) return body();
      const h = this.#handle;
      try {
        for (const e of edits) {
          const n = e.w ? e.w.length : 0;
          const at = core.scratch(fn, 4 * Math.max(n, 1));
          if (e.w) core.f32().set(e.w, at >> 2);
          const st = ex.sx_model_edit(h, e.op, e.kind, e.layer, e.head, e.row, e.w ? at : 0, n);
          if (st !== 0) throw coreError(fn, st);
        }
        return body();
      } finally {
        ex.sx_model_clear_edits(h);
      }
    }

    /** One example's src and tgt rows for explain / attentionGrad: { src, tgt } Int32Arrays. */
    #example(fn, src, tgt) {
      const { vocab, maxLen } = this.#config;
      const s = rowsOf(fn, "src", src, undefined, undefined, 1);
      const t = rowsOf(fn, "tgt", tgt, undefined, undefined, 1);
      if (s.count !== 1 || t.count !== 1) {
        throw new RangeError(`${fn}: src and tgt must be one row each (got ${s.count} and ${t.count})`);
      }
      lengthCheck(fn, "src", s.len, 1, maxLen);
      lengthCheck(fn, "tgt", t.len, 1, maxLen);
      return { src: readTokens(fn, "src", s, vocab), tgt: readTokens(fn, "tgt", t, vocab) };
    }

    /** options.step (required) and options.target (default: tgt[step + 1], the token the row has next). */
    #stepTarget(fn, o, tgt) {
      if (o.step === undefined) throw new TypeError(`${fn}: options.step is required (the decoder position to explain)`);
      const step = intArg(fn, "step", o.step, 0, tgt.length - 1);
      if (o.target === undefined && step + 1 >= tgt.length) {
        throw new RangeError(`${fn}: options.target is required when step (${step}) is the last position of tgt`);
      }
      const target = o.target === undefined ? tgt[step + 1] : intArg(fn, "target", o.target, 0, this.#config.vocab - 1);
      return { step, target };
    }

    /**
     * Which source tokens does the prediction of `target` at decoder position `step` depend on?
     * src: one source row; tgt: one decoder input row (BOS, tokens...; a generated row is fine).
     * options: step (required), target (default tgt[step + 1]), objective ("logProb", default,
     * or "logit": f is log p(target) or the target's logit), methods (default all of gradInput,
     * gradNorm, integratedGradients, leaveOneOut, rollout), steps (integrated gradients,
     * default 64), intervene. Returns { step, target, objective, value (f), baselineValue (f at
     * the zero-embedding baseline, with integratedGradients; else null), logProb,
     * importance: { method: Float32Array(src length) }, logits (the step's row), attention }.
     */
    explain(src, tgt, opts) {
      const fn = "model.explain";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["step", "target", "objective", "methods", "steps", "intervene"]);
      const { src: sIds, tgt: tIds } = this.#example(fn, src, tgt);
      const { step, target } = this.#stepTarget(fn, o, tIds);
      let methods = EXPLAIN_ALL;
      if (o.methods !== undefined) {
        if (!Array.isArray(o.methods) || o.methods.length === 0) {
          throw new TypeError(`${fn}: methods must be a non-empty array of method names (got ${show(o.methods)})`);
        }
        methods = Array.from(o.methods);
        for (const m of methods) {
          if (!EXPLAIN_ALL.includes(m)) {
            const E = typeof m === "string" ? RangeError : TypeError;
            throw new E(`${fn}: methods must name ${EXPLAIN_ALL.map((x) => JSON.stringify(x)).join(", ")} (got ${show(m)})`);
          }
        }
      }
      const steps = intArg(fn, "steps", o.steps, 1, 4096, 64);
      const objective = o.objective === undefined ? "logProb" : o.objective;
      if (objective !== "logProb" && objective !== "logit") {
        const E = typeof objective === "string" ? RangeError : TypeError;
        throw new E(`${fn}: objective must be "logProb" or "logit" (got ${show(objective)})`);
      }
      const edits = editsArg(fn, o.intervene, this.#config);
      this.#live(fn); // a getter may have freed the model
      const ns = sIds.length, nt = tIds.length;
      return this.#edited(fn, ex, edits, () => {
        const h = this.#handle;
        const importance = {};
        let value = null, baseline = null;
        const at = core.scratch(fn, 4 * (ns + nt + ns * nt + ns + 2));
        const pS = at, pT = at + 4 * ns, pOut = pT + 4 * nt, pVal = pOut + 4 * ns * nt;
        for (const m of methods) {
          if (m === "rollout") continue;
          const i32 = core.i32();
          i32.set(sIds, pS >> 2);
          i32.set(tIds, pT >> 2);
          const st = ex.sx_model_explain(h, pOut, pVal, EXPLAIN_METHODS[m], pS, ns, pT, nt, step, target,
            objective === "logit" ? 1 : 0, steps);
          if (st !== 0) throw coreError(fn, st);
          const f32 = core.f32();
          importance[m] = f32.slice(pOut >> 2, (pOut >> 2) + ns);
          value = f32[pVal >> 2];
          if (m === "integratedGradients") baseline = f32[(pVal >> 2) + 1];
        }
        if (value === null || methods.includes("rollout")) { // the example's forward pass
          const i32 = core.i32();
          i32.set(sIds, pS >> 2);
          i32.set(tIds, pT >> 2);
          const st = ex.sx_model_forward(h, pS, ns, pT, nt, 1);
          if (st !== 0) throw coreError(fn, st);
        }
        if (methods.includes("rollout")) {
          const st = ex.sx_model_rollout(h, pOut, 0);
          if (st !== 0) throw coreError(fn, st);
          importance.rollout = core.f32().slice((pOut >> 2) + step * ns, (pOut >> 2) + (step + 1) * ns);
        }
        const r = this.#results(ex, 1, nt, true);
        const logits = r.logits.slice(step * this.#config.vocab, (step + 1) * this.#config.vocab);
        if (value === null) value = objective === "logit" ? logits[target] : logSoftmaxAt(logits, target);
        return { step, target, objective, value, baselineValue: baseline, logProb: logSoftmaxAt(logits, target),
          importance, logits, attention: r.attention };
      });
    }

    /**
     * d f / d (one row of attention weights): f = log p(target) at `step` (default), or
     * <dlogits, logits[step]> when options.dlogits (vocab numbers) is given. options: kind,
     * layer, head (each omitted: every one), row (the query position), step, target, dlogits,
     * intervene (with a "replace" edit on this very row, the gradient at the replaced weights).
     * Returns a Float32Array over the keys (src length for "encoder" and "cross", tgt length for
     * "decoder"), one such row per selected layer and head, (layers, heads, keys) row-major.
     */
    attentionGrad(src, tgt, opts) {
      const fn = "model.attentionGrad";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, false);
      knownKeys(fn, "options", o, ["kind", "layer", "head", "row", "step", "target", "dlogits", "intervene"]);
      const { src: sIds, tgt: tIds } = this.#example(fn, src, tgt);
      const { layers, heads, vocab } = this.#config;
      const kind = kindArg(fn, "kind", o.kind);
      const layer = intArg(fn, "layer", o.layer, 0, layers - 1, -1);
      const head = intArg(fn, "head", o.head, 0, heads - 1, -1);
      const Tq = kind === 0 ? sIds.length : tIds.length, Tk = kind === 1 ? tIds.length : sIds.length;
      const nOut = (layer < 0 ? layers : 1) * (head < 0 ? heads : 1) * Tk;
      const row = intArg(fn, "row", o.row, 0, Tq - 1);
      let dl = null, step, target = 0;
      if (o.dlogits !== undefined) {
        dl = floatsArg(fn, "dlogits", o.dlogits, vocab, -Infinity);
        if (dl.length !== vocab) throw new RangeError(`${fn}: dlogits must have vocab (${vocab}) entries (got ${dl.length})`);
        if (o.target !== undefined) throw new TypeError(`${fn}: give target or dlogits, not both`);
        if (o.step === undefined) throw new TypeError(`${fn}: options.step is required (the decoder position)`);
        step = intArg(fn, "step", o.step, 0, tIds.length - 1);
      } else {
        ({ step, target } = this.#stepTarget(fn, o, tIds));
      }
      const edits = editsArg(fn, o.intervene, this.#config);
      this.#live(fn); // a getter may have freed the model
      return this.#edited(fn, ex, edits, () => {
        const ns = sIds.length, nt = tIds.length;
        const at = core.scratch(fn, 4 * (ns + nt + nOut + vocab));
        const pS = at, pT = at + 4 * ns, pOut = pT + 4 * nt, pD = pOut + 4 * nOut;
        core.i32().set(sIds, pS >> 2);
        core.i32().set(tIds, pT >> 2);
        if (dl) core.f32().set(dl, pD >> 2);
        const st = ex.sx_model_attention_grad(this.#handle, pOut, kind, layer, head, row, pS, ns, pT, nt, step, target, dl ? pD : 0);
        if (st !== 0) throw coreError(fn, st);
        return core.f32().slice(pOut >> 2, (pOut >> 2) + nOut);
      });
    }

    /** Copies of the last pass's logits and (optionally) every attention map. */
    #results(ex, count, tlen, withMaps) {
      const h = this.#handle;
      const { vocab, layers, heads } = this.#config;
      const nl = count * tlen * vocab;
      const lp = ex.sx_model_logits(h) >>> 2;
      const logits = core.f32().slice(lp, lp + nl);
      const out = { logits, shape: [count, tlen, vocab], attention: [] };
      if (!withMaps) return out;
      const alphas = this.#perHead(ex, "model.forward", "sx_model_alphas");
      const spans = this.#perHead(ex, "model.forward", "sx_model_spans");
      for (let k = 0; k < 3; k++) {
        const shape = [0, 1, 2, 3].map((d) => ex.sx_model_attention_shape(h, k, d));
        const n = shape[0] * shape[1] * shape[2] * shape[3];
        for (let l = 0; l < layers; l++) {
          const p = ex.sx_model_attention(h, k, l) >>> 2;
          const i0 = (k * layers + l) * heads;
          out.attention.push({
            kind: KINDS[k], layer: l, heads, shape: [...shape], data: core.f32().slice(p, p + n),
            alpha: Array.from(alphas.subarray(i0, i0 + heads)),
            span: Array.from(spans.subarray(i0, i0 + heads), (v) => (v < 0 ? null : v)),
          });
        }
      }
      return out;
    }

    /** The 3 L NH floats of sx_model_alphas / sx_model_spans. */
    #perHead(ex, fn, which) {
      const { layers, heads } = this.#config;
      const n = 3 * layers * heads;
      const at = core.scratch(fn, 4 * n);
      const st = ex[which](this.#handle, at);
      if (st !== 0) throw coreError(fn, st);
      return core.f32().slice(at >> 2, (at >> 2) + n);
    }

    /**
     * A batch's (src, tgt) rows, checked (shape against data, every id) and copied into scratch;
     * returns the layout. batch.shape, when given, is [rows, row length] of both src and tgt.
     */
    #batch(fn, ex, batch, extra) {
      const b = objectArg(fn, "batch", batch, false);
      const shape = b.shape, bsrc = b.src, btgt = b.tgt; // each read once
      let count, width;
      if (shape !== undefined) {
        const n = Array.isArray(shape) ? shape.length : undefined;
        if (n !== 2) throw new TypeError(`${fn}: batch.shape must be [count, length] (got ${show(shape)})`);
        const s0 = shape[0], s1 = shape[1];
        count = intArg(fn, "batch.shape[0]", s0, 1, 4096);
        width = intArg(fn, "batch.shape[1]", s1, 1, 0x7fffffff);
      }
      const countWhat = count === undefined ? undefined : "batch.shape[0]";
      const s = rowsOf(fn, "batch.src", bsrc, count, countWhat);
      const t = rowsOf(fn, "batch.tgt", btgt, count ?? (s.nested ? undefined : s.count), countWhat);
      if (t.count !== s.count) throw new RangeError(`${fn}: batch.src has ${s.count} rows, batch.tgt has ${t.count}`);
      if (width !== undefined) {
        for (const [name, r] of [["batch.src", s], ["batch.tgt", t]]) {
          if (r.len !== width) {
            throw new RangeError(`${fn}: batch.shape[1] (${width}) must equal the length of the rows of ${name} (${r.len})`);
          }
        }
      }
      const { vocab, maxLen } = this.#config;
      lengthCheck(fn, "batch.src", s.len, 1, maxLen);
      lengthCheck(fn, "batch.tgt", t.len, 2, maxLen);
      rowCount(fn, s.count);
      const srcIds = readTokens(fn, "batch.src", s, vocab);
      const tgtIds = readTokens(fn, "batch.tgt", t, vocab);
      this.#live(fn); // a getter may have freed the model
      this.#reserve(fn, ex, s.count);
      const ns = s.count * s.len, nt = t.count * t.len;
      const at = core.scratch(fn, 16 + 4 * (ns + nt) + extra);
      const i32 = core.i32();
      i32.set(srcIds, (at >> 2) + 4);
      i32.set(tgtIds, (at >> 2) + 4 + ns);
      return { at, src: at + 16, tgt: at + 16 + 4 * ns, count: s.count, slen: s.len, tlen: t.len };
    }

    // ------------------------------------------------------------ training
    /**
     * One Adam step on a batch { src, tgt, shape? } of full target rows (BOS, answer, EOS, PAD):
     * the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:]. Returns the loss before the step.
     */
    trainStep(batch, opts) {
      const fn = "model.trainStep";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["lr"]);
      const lr = numArg(fn, "lr", o.lr, 1e-3, 0);
      const b = this.#batch(fn, ex, batch, 0);
      const st = ex.sx_model_train_step(this.#handle, b.at, b.src, b.slen, b.tgt, b.tlen, b.count, lr);
      if (st !== 0) throw coreError(fn, st);
      return core.f32()[b.at >> 2];
    }

    /** The loss of a batch (as trainStep's) without a step. */
    loss(batch) {
      const fn = "model.loss";
      const ex = this.#live(fn);
      const b = this.#batch(fn, ex, batch, 0);
      const st = ex.sx_model_loss(this.#handle, b.at, b.src, b.slen, b.tgt, b.tlen, b.count);
      if (st !== 0) throw coreError(fn, st);
      return core.f32()[b.at >> 2];
    }

    // ------------------------------------------------------------ decoding
    /**
     * Greedy decoding: one Int32Array of maxLen (default config.maxLen) per source row: BOS, the
     * argmax tokens until EOS (included), then PAD. Source rows as for forward. Decoding is
     * incremental (a KV cache: step t runs the decoder for position t only); cache: false runs
     * the reference instead, the whole decoder over the prefix at every step (the same tokens;
     * attention maps and logits afterwards equal to float rounding), for tests and benchmarks.
     */
    generate(src, opts) {
      const fn = "model.generate";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["count", "maxLen", "intervene", "cache"]);
      if (o.cache !== undefined && typeof o.cache !== "boolean") {
        throw new TypeError(`${fn}: cache must be true or false (got ${show(o.cache)})`);
      }
      const flags = o.cache === false ? 1 : 0; // SX_GENERATE_FULL
      const { vocab, maxLen } = this.#config;
      const count = o.count === undefined ? undefined : intArg(fn, "count", o.count, 1, 4096);
      const outLen = intArg(fn, "maxLen", o.maxLen, 2, maxLen, maxLen);
      const edits = editsArg(fn, o.intervene, this.#config);
      const s = rowsOf(fn, "src", src, count, count === undefined ? undefined : "the count option");
      lengthCheck(fn, "src", s.len, 1, maxLen);
      rowCount(fn, s.count);
      const srcIds = readTokens(fn, "src", s, vocab);
      this.#live(fn); // a getter may have freed the model
      this.#reserve(fn, ex, s.count);
      return this.#edited(fn, ex, edits, () => {
        const ns = s.count * s.len, no = s.count * outLen;
        const at = core.scratch(fn, 4 * (ns + no));
        core.i32().set(srcIds, at >> 2);
        const st = ex.sx_model_generate_v2(this.#handle, at + 4 * ns, outLen, at, s.len, s.count, flags);
        if (st !== 0) throw coreError(fn, st);
        return rowsOut((at >> 2) + ns, s.count, outLen);
      });
    }

    // ------------------------------------------------------------- queries
    /** Effective alpha per head: { encoder, decoder, cross }, each [layer][head]. */
    alphas() {
      const fn = "model.alphas";
      return this.#byKind(this.#perHead(this.#live(fn), fn, "sx_model_alphas"), (v) => v);
    }

    /** Span per head in positions, null where none applies (cross-attention, span off). */
    spans() {
      const fn = "model.spans";
      return this.#byKind(this.#perHead(this.#live(fn), fn, "sx_model_spans"), (v) => (v < 0 ? null : v));
    }

    #byKind(v, f) {
      const { layers, heads } = this.#config;
      const out = {};
      KINDS.forEach((kind, k) => {
        out[kind] = Array.from({ length: layers }, (_, l) =>
          Array.from({ length: heads }, (_, hd) => f(v[(k * layers + l) * heads + hd])));
      });
      return out;
    }

    // --------------------------------------------------------- checkpoints
    /**
     * The checkpoint bytes (config + parameters, checksummed), for Model.load. precision
     * "float32" (default) is lossless; "float16" halves the bytes, each parameter rounded to the
     * nearest float16 (a parameter of magnitude >= 65520 is a SimplexityError: save as float32).
     */
    save(opts) {
      const fn = "model.save";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["precision"]);
      const precision = o.precision === undefined ? "float32" : o.precision;
      if (typeof precision !== "string" || !Object.hasOwn(SAVE_PRECISION, precision)) {
        const E = typeof precision === "string" ? RangeError : TypeError;
        throw new E(`${fn}: options.precision must be "float32" or "float16" (got ${show(precision)})`);
      }
      const bits = SAVE_PRECISION[precision];
      const n = ex.sx_model_save_size_as(this.#handle, bits);
      const at = core.scratch(fn, n);
      const st = ex.sx_model_save_as(this.#handle, at, n, bits);
      if (st !== 0) throw coreError(fn, st);
      return core.u8().slice(at, at + n);
    }
  }

  /** log softmax(z)[t] in double. */
  function logSoftmaxAt(z, t) {
    let mx = -Infinity, s = 0;
    for (const v of z) mx = v > mx ? v : mx;
    for (const v of z) s += Math.exp(v - mx);
    return z[t] - mx - Math.log(s);
  }

  /** A model call takes at most 4096 rows. */
  function rowCount(fn, count, max = MAX_ROWS) {
    if (count > max) throw new RangeError(`${fn}: a batch has at most ${max} rows (got ${count})`);
  }

  function lengthCheck(fn, name, len, lo, maxLen) {
    if (len < lo || len > maxLen) {
      throw new RangeError(`${fn}: ${name} rows must have ${lo}..${maxLen} tokens (maxLen) (got ${len})`);
    }
  }

  return { Model, tasks };
}
