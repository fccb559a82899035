// model/tasks.js - the toy sequence tasks (tasks.names, vocab, width, lengths, generate, encode,
// decode, answer, splitOf) over the core's sx_task_* exports: the task table is read from C once
// per instance; text is checked against the task's alphabet in JS before it crosses.
import { SPLITS } from "./names.js";

/** tasks and taskArg (the check new Model({ task }) uses too) over one core. */
export function tasksApi(core, { intArg, objectArg, knownKeys, cString, isRow, rowLength, rowsOf, readTokens }) {
  const { show, coreError } = core;

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

    /**
     * "train" or "heldout": the split a source text (or one source row) belongs to. As for
     * tasks.answer, the errors about a string name it `text`, those about a row `src`.
     */
    splitOf(name, src) {
      const fn = "tasks.splitOf";
      const task = taskArg(fn, name);
      textLength(fn, "text", src, 255);
      const row = typeof src === "string" ? encodeRow(fn, task, src, Math.max(2, src.length + 1), "text") : src;
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

  return { tasks, taskArg };
}
