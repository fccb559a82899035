// model/model-class.js - the Model class: the tiny encoder-decoder Transformer over the core's
// sx_model_* exports. Config and lifetime (new Model, Model.load, free, a FinalizationRegistry
// as a safety net), compute (forward with interventions, the results copied out), training
// (trainStep, loss: model/training.js), greedy decoding (generate; decode and exactSearch with
// the output distributions: model/outputs.js), queries (alphas, spans),
// checkpoints (save, Model.load: model/checkpoints.js), explanations (explain, attentionGrad:
// model/explain.js); those modules' methods get the model's private state through #inner().
import { KINDS } from "./names.js";
import { rowCount, lengthCheck } from "./tokens.js";

/** The Model class over one core; h: the helpers of the other model/ modules. */
export function modelClass(core, h) {
  const { show, coreError } = core;
  const { intArg, objectArg, knownKeys, rowsOf, readTokens, rowsOut, editsArg, resolveConfig, readConfig,
    explain, attentionGrad, trainStep, loss, loadHandle, save, mapLogits, decode, exactSearch,
    lmStep } = h;

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
      return new Model(CREATE, loadHandle(bytes));
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
      knownKeys(fn, "options", o, ["count", "attention", "intervene", "probs"]);
      const count = o.count === undefined ? undefined : intArg(fn, "count", o.count, 1, 4096);
      const edits = editsArg(fn, o.intervene, this.#config);
      const oa = o.attention;
      if (oa !== undefined && typeof oa !== "boolean") {
        throw new TypeError(`${fn}: attention must be true or false (got ${show(oa)})`);
      }
      const withMaps = oa !== false;
      if (o.probs !== undefined && typeof o.probs !== "boolean") {
        throw new TypeError(`${fn}: probs must be true or false (got ${show(o.probs)})`);
      }
      const countWhat = count === undefined ? undefined : "the count option";
      const { vocab, maxLen, arch } = this.#config;
      const s = this.#sourceRows(fn, "src", src, count, countWhat);
      const t = rowsOf(fn, "tgt", tgt, count ?? (s.nested ? undefined : s.count), countWhat);
      if (s.len && t.count !== s.count) throw new RangeError(`${fn}: src has ${s.count} rows, tgt has ${t.count}`);
      if (arch !== "decoder") lengthCheck(fn, "src", s.len, 1, maxLen);
      lengthCheck(fn, "tgt", t.len, 1, maxLen);
      rowCount(fn, t.count);
      const srcIds = s.len ? readTokens(fn, "src", s, vocab) : new Int32Array(0);
      const tgtIds = readTokens(fn, "tgt", t, vocab);
      this.#live(fn); // a getter may have freed the model
      this.#reserve(fn, ex, t.count);
      return this.#edited(fn, ex, edits, () => {
        const ns = srcIds.length;
        const at = core.scratch(fn, 4 * (ns + t.count * t.len));
        const i32 = core.i32();
        i32.set(srcIds, at >> 2);
        i32.set(tgtIds, (at >> 2) + ns);
        const st = ex.sx_model_forward(this.#handle, ns ? at : 0, s.len, at + 4 * ns, t.len, t.count);
        if (st !== 0) throw coreError(fn, st);
        const out = this.#results(ex, t.count, t.len, withMaps);
        if (o.probs) out.probs = mapLogits(fn, ex, this.#config, ex.sx_model_logits(this.#handle), t.count * t.len);
        return out;
      });
    }

    /** The source rows of a call: a decoder-only model takes none (null or undefined: len 0). */
    #sourceRows(fn, name, src, count, countWhat) {
      if (this.#config.arch !== "decoder") return rowsOf(fn, name, src, count, countWhat);
      if (src !== null && src !== undefined) {
        throw new TypeError(`${fn}: a decoder-only model (config.arch "decoder") takes no ${name}: pass null (got ${show(src)})`);
      }
      return { nested: false, count, len: 0 };
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

    // ------------------------------------------------------ delegated methods
    // explain and attentionGrad live in model/explain.js, trainStep and loss in training.js, save
    // in checkpoints.js; #inner() hands them this model's private state for one call.
    #inner() {
      return {
        live: (fn) => this.#live(fn), handle: () => this.#handle, config: () => this.#config,
        reserve: (fn, ex, count) => this.#reserve(fn, ex, count),
        edited: (fn, ex, edits, body) => this.#edited(fn, ex, edits, body),
        results: (ex, count, tlen, withMaps) => this.#results(ex, count, tlen, withMaps),
        generate: (fn, src, opts) => this.#generate(fn, src, opts),
        sourceRows: (fn, name, src, count, countWhat) => this.#sourceRows(fn, name, src, count, countWhat),
      };
    }

    /**
     * Which source tokens does the prediction of `target` at decoder position `step` depend on?
     * (model/explain.js documents the options and the result.)
     */
    explain(src, tgt, opts) {
      return explain(this.#inner(), src, tgt, opts);
    }

    /** d f / d (one row of attention weights) (model/explain.js documents it). */
    attentionGrad(src, tgt, opts) {
      return attentionGrad(this.#inner(), src, tgt, opts);
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
        if (shape[0] < 0) continue; // a decoder-only model has only the decoder's self-attention
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

    // ------------------------------------------------------------ training
    /**
     * One Adam step on a batch { src, tgt, shape? } of full target rows (BOS, answer, EOS, PAD):
     * the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:]. Returns the loss before the step.
     */
    trainStep(batch, opts) {
      return trainStep(this.#inner(), batch, opts);
    }

    /** The loss of a batch (as trainStep's) without a step. */
    loss(batch) {
      return loss(this.#inner(), batch);
    }


    // ----------------------------------------------- decoder-only stepping
    /**
     * A decoder-only model's step over its KV cache (model/lm.js documents it): tokens (one id
     * per row) at position pos; returns { probs, logits } (rows, vocab) of the next token and,
     * with { attention: true }, each layer's attention rows (rows, heads, pos + 1).
     */
    lmStep(tokens, pos, opts) {
      return lmStep(this.#inner(), tokens, pos, opts);
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
      return this.#generate("model.generate", src, opts);
    }

    /**
     * Greedy decoding with each step's output distribution and its support (model/outputs.js
     * documents the result): the tokens are generate's.
     */
    decode(src, opts) {
      return decode(this.#inner(), src, opts);
    }

    /**
     * Every output sequence with nonzero probability for one source row, with its probability,
     * by depth-first search over each step's support (model/outputs.js documents it).
     */
    exactSearch(src, opts) {
      return exactSearch(this.#inner(), src, opts);
    }

    #generate(fn, src, opts) {
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
     * "float32" (default) is lossless; "float16" halves the bytes (model/checkpoints.js).
     */
    save(opts) {
      return save(this.#inner(), opts);
    }
  }

  return Model;
}
