// model/rnn-class.js - the RNN class: the recurrent encoder-decoder (a GRU encoder and decoder,
// no attention, additive attention under any mapping, or hard attention with a choice of
// gradient estimator) over the core's sx_rnn_* exports (core/src/rnn.h documents the model).
// Config and lifetime (new RNN, RNN.load, free, a FinalizationRegistry as a safety net), training
// (trainStep and loss on a batch, train: the native trainer's schedule on a task's examples with
// progress), greedy decoding (generate; attention: the tokens with the weights each decoder step
// read), teacher-forced forward, checkpoints (save, RNN.load: "SXRN" bytes).
//
// Every call is synchronous and returns copies (typed arrays with buffers of their own, so a Web
// Worker can transfer them); train's progress callback runs between steps, and returning false
// from it stops the run.
import { rowCount, lengthCheck } from "./tokens.js";

const SPLIT_TRAIN = 0; // SX_TASK_TRAIN

/** The RNN class over one core; h: the helpers of the other model/ modules. */
export function rnnClass(core, h) {
  const { show, coreError } = core;
  const { intArg, numArg, objectArg, knownKeys, rowsOf, readTokens, rowsOut, taskArg, batchArg,
    resolveRnnConfig, readRnnConfig, loadWith, saveWith } = h;

  const registry = typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
      try {
        core.ready("RNN").sx_rnn_free(handle);
      } catch {
        // the instance is gone: nothing to free
      }
    })
    : null;

  const CREATE = Symbol("RNN.create"); // RNN.load's private path into the constructor

  class RNN {
    #handle = 0;
    #config = null;
    #task = null; // the task name the model was created for (train's default), null after load

    /** A new model with freshly initialised parameters (see RNN_DEFAULTS for the fields). */
    constructor(config, handle) {
      if (config === CREATE) {
        this.#adopt(handle);
        return;
      }
      const fn = "RNN";
      const { cfg, fcfg } = resolveRnnConfig(fn, config);
      const ex = core.ready(fn);
      const at = core.scratch(fn, 16 + 4 * (cfg.length + fcfg.length));
      const pc = at + 16, pf = pc + 4 * cfg.length;
      const i32 = core.i32(), f32 = core.f32();
      i32[at >> 2] = 0;
      for (let i = 0; i < cfg.length; i++) i32[(pc >> 2) + i] = cfg[i];
      for (let i = 0; i < fcfg.length; i++) f32[(pf >> 2) + i] = fcfg[i];
      const st = ex.sx_rnn_create(at, pc, cfg.length, pf, fcfg.length);
      if (st !== 0) throw coreError(fn, st);
      this.#adopt(core.i32()[at >> 2] >>> 0);
      this.#task = config.task === undefined ? null : config.task;
    }

    #adopt(handle) {
      this.#handle = handle;
      this.#config = readRnnConfig(core.ready("RNN"), handle);
      if (registry) registry.register(this, handle, this);
    }

    #live(fn) {
      if (this.#handle === 0) {
        throw new Error(`${fn}: this model has been freed (free() was called); create or load a new one`);
      }
      return core.ready(fn);
    }

    /** A batch of count rows must fit the activations sized at creation (config.maxBatch). */
    #fits(fn, count) {
      rowCount(fn, count);
      const { maxBatch } = this.#config;
      if (count > maxBatch) {
        throw new RangeError(`${fn}: a batch has at most config.maxBatch (${maxBatch}) rows (got ${count})`);
      }
    }

    /** The private state training.js's batchArg and checkpoints.js's saveWith need. */
    #inner() {
      return {
        live: (fn) => this.#live(fn), handle: () => this.#handle, config: () => this.#config,
        reserve: (fn, ex, count) => this.#fits(fn, count),
      };
    }

    /** A model from checkpoint bytes (rnn.save()); bad bytes throw SimplexityError. */
    static load(bytes) {
      return new RNN(CREATE, loadWith("RNN.load", "sx_rnn_load", bytes));
    }

    /** Free the model's wasm memory. Idempotent; any later use throws. */
    free() {
      if (this.#handle === 0) return;
      const hd = this.#handle;
      this.#handle = 0;
      if (registry) registry.unregister(this);
      core.ready("rnn.free").sx_rnn_free(hd);
    }

    get freed() {
      return this.#handle === 0;
    }

    /** The resolved config (every field of RNN_DEFAULTS except task), frozen. */
    get config() {
      this.#live("rnn.config");
      return this.#config;
    }

    get numParams() {
      return this.#live("rnn.numParams").sx_rnn_num_params(this.#handle);
    }

    /** Adam steps taken so far (0 after load: the optimiser state is not saved). */
    get steps() {
      return this.#live("rnn.steps").sx_rnn_steps(this.#handle);
    }

    /** The attention mapping's alpha (learned: its current value); 0 without attention. */
    get alpha() {
      return Number(this.#live("rnn.alpha").sx_rnn_alpha(this.#handle).toPrecision(7));
    }

    // ------------------------------------------------------------ training
    /**
     * One Adam step on a batch { src, tgt, shape? } of full target rows (BOS, answer, EOS, PAD),
     * as model.trainStep. Hard attention samples its positions by the estimator. Returns the
     * loss before the step.
     */
    trainStep(batch, opts) {
      const fn = "rnn.trainStep";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["lr"]);
      const lr = numArg(fn, "lr", o.lr, 3e-3, 0);
      const b = batchArg(this.#inner(), fn, ex, batch, 0);
      const st = ex.sx_rnn_train_step(this.#handle, b.at, b.src, b.slen, b.tgt, b.tlen, b.count, lr);
      if (st !== 0) throw coreError(fn, st);
      return core.f32()[b.at >> 2];
    }

    /** The loss of a batch without a step (hard attention: the argmax positions). */
    loss(batch) {
      const fn = "rnn.loss";
      const ex = this.#live(fn);
      const b = batchArg(this.#inner(), fn, ex, batch, 0);
      const st = ex.sx_rnn_loss(this.#handle, b.at, b.src, b.slen, b.tgt, b.tlen, b.count);
      if (st !== 0) throw coreError(fn, st);
      return core.f32()[b.at >> 2];
    }

    /**
     * Train on a task's examples with the native trainer's schedule (tools/train-rnn.c): step s
     * takes examples s * batch .. of the train split under seed, at a learning rate warmed up
     * linearly over warmup steps, then cosine-decayed from lr to lrMin over total steps. Runs steps
     * from..from + steps - 1 of that schedule (so a worker can run it in slices). progress(info)
     * is called every `every` steps and after the last, with { step (the steps done, counting
     * from), loss (that step's), lr }; returning false stops. Returns { losses: Float32Array }.
     */
    train(opts) {
      const fn = "rnn.train";
      this.#live(fn);
      const o = objectArg(fn, "options", opts, false);
      knownKeys(fn, "options", o, ["task", "steps", "from", "total", "batch", "lr", "lrMin", "warmup",
        "seed", "every", "progress"]);
      if (o.task === undefined && this.#task === null) {
        throw new TypeError(`${fn}: options.task is required (this model was not created for a task)`);
      }
      const task = taskArg(fn, o.task === undefined ? this.#task : o.task);
      const { vocab, maxLen, maxBatch } = this.#config;
      if (task.vocab.length > vocab || task.width > maxLen) {
        throw new RangeError(`${fn}: task ${task.name} needs vocab >= ${task.vocab.length} and maxLen >= ` +
          `${task.width} (this model: ${vocab}, ${maxLen})`);
      }
      const steps = intArg(fn, "steps", o.steps, 1, 1e7);
      const from = intArg(fn, "from", o.from, 0, 1e9, 0);
      const total = intArg(fn, "total", o.total, from + steps, 1e9, from + steps);
      const batch = intArg(fn, "batch", o.batch, 1, maxBatch, maxBatch);
      if ((from + steps) * batch > 0x7fffffff) {
        throw new RangeError(`${fn}: (from + steps) * batch must be <= 2147483647 (got ${(from + steps) * batch})`);
      }
      const lr = numArg(fn, "lr", o.lr, 3e-3, 0);
      const lrMin = numArg(fn, "lrMin", o.lrMin, 3e-4, 0);
      const warmup = intArg(fn, "warmup", o.warmup, 0, 1e9, 100);
      const seed = intArg(fn, "seed", o.seed, 0, 0xffffffff, 1);
      const every = intArg(fn, "every", o.every, 1, 1e9, 10);
      const progress = o.progress;
      if (progress !== undefined && typeof progress !== "function") {
        throw new TypeError(`${fn}: progress must be a function (got ${show(progress)})`);
      }
      const losses = new Float32Array(steps);
      let done = 0;
      for (let s = from; s < from + steps; s++) {
        const rate = scheduleLr(s, total, lr, lrMin, warmup);
        const ex = this.#live(fn); // progress may have freed the model
        const n = batch * task.width;
        const at = core.scratch(fn, 16 + 8 * n);
        let st = ex.sx_task_generate(at + 16, at + 16 + 4 * n, task.id, SPLIT_TRAIN, seed | 0, s * batch, batch, task.width);
        if (st !== 0) throw coreError(fn, st);
        st = ex.sx_rnn_train_step(this.#handle, at, at + 16, task.width, at + 16 + 4 * n, task.width, batch, rate);
        if (st !== 0) throw coreError(fn, st);
        losses[done++] = core.f32()[at >> 2];
        const last = done === steps;
        if (progress && (done % every === 0 || last)) {
          if (progress({ step: s + 1, loss: losses[done - 1], lr: rate }) === false) break;
        }
      }
      return { losses: losses.slice(0, done) };
    }

    // ------------------------------------------------------------ decoding
    /** Greedy decoding, as model.generate: one Int32Array of maxLen per source row. */
    generate(src, opts) {
      return this.#decode("rnn.generate", src, opts).tokens;
    }

    /**
     * Greedy decoding with the attention each decoder step read: { tokens (as generate),
     * shape: [count, maxLen - 1, srcLen], data: Float32Array } where data[(r, t, j)] is step t's
     * weight on source position j (additive: the mapping's weights; hard: one-hot at the argmax;
     * none: one-hot at the last source position, the state the decoder was handed). Steps after
     * a row's EOS are computed but decode nothing.
     */
    attention(src, opts) {
      return this.#decode("rnn.attention", src, opts);
    }

    #decode(fn, src, opts) {
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["count", "maxLen"]);
      const { vocab, maxLen } = this.#config;
      const count = o.count === undefined ? undefined : intArg(fn, "count", o.count, 1, 4096);
      const outLen = intArg(fn, "maxLen", o.maxLen, 2, maxLen, maxLen);
      const s = rowsOf(fn, "src", src, count, count === undefined ? undefined : "the count option");
      lengthCheck(fn, "src", s.len, 1, maxLen);
      this.#fits(fn, s.count);
      const srcIds = readTokens(fn, "src", s, vocab);
      this.#live(fn); // a getter may have freed the model
      const ns = s.count * s.len, no = s.count * outLen;
      const at = core.scratch(fn, 4 * (ns + no));
      core.i32().set(srcIds, at >> 2);
      const st = ex.sx_rnn_generate(this.#handle, at + 4 * ns, outLen, at, s.len, s.count);
      if (st !== 0) throw coreError(fn, st);
      const tokens = rowsOut((at >> 2) + ns, s.count, outLen);
      return { tokens, ...this.#weights(ex) };
    }

    /** A copy of the last pass's attention weights and their shape. */
    #weights(ex) {
      const shape = [0, 1, 2].map((d) => ex.sx_rnn_attention_shape(this.#handle, d));
      const p = ex.sx_rnn_attention(this.#handle) >>> 2;
      return { shape, data: core.f32().slice(p, p + shape[0] * shape[1] * shape[2]) };
    }

    /**
     * Forward pass, teacher forced, as model.forward: src rows and decoder input rows tgt (BOS,
     * tokens...). Returns copies: { logits, shape: [count, tgtLen, vocab], attention: { shape:
     * [count, tgtLen, srcLen], data } } (hard attention: one-hot at the argmax).
     */
    forward(src, tgt, opts) {
      const fn = "rnn.forward";
      const ex = this.#live(fn);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["count"]);
      const count = o.count === undefined ? undefined : intArg(fn, "count", o.count, 1, 4096);
      const countWhat = count === undefined ? undefined : "the count option";
      const s = rowsOf(fn, "src", src, count, countWhat);
      const t = rowsOf(fn, "tgt", tgt, count ?? (s.nested ? undefined : s.count), countWhat);
      if (t.count !== s.count) throw new RangeError(`${fn}: src has ${s.count} rows, tgt has ${t.count}`);
      const { vocab, maxLen } = this.#config;
      lengthCheck(fn, "src", s.len, 1, maxLen);
      lengthCheck(fn, "tgt", t.len, 1, maxLen);
      this.#fits(fn, s.count);
      const srcIds = readTokens(fn, "src", s, vocab);
      const tgtIds = readTokens(fn, "tgt", t, vocab);
      this.#live(fn);
      const ns = s.count * s.len;
      const at = core.scratch(fn, 4 * (ns + t.count * t.len));
      const i32 = core.i32();
      i32.set(srcIds, at >> 2);
      i32.set(tgtIds, (at >> 2) + ns);
      const st = ex.sx_rnn_forward(this.#handle, at, s.len, at + 4 * ns, t.len, s.count);
      if (st !== 0) throw coreError(fn, st);
      const nl = s.count * t.len * vocab;
      const lp = ex.sx_rnn_logits(this.#handle) >>> 2;
      const logits = core.f32().slice(lp, lp + nl);
      return { logits, shape: [s.count, t.len, vocab], attention: this.#weights(ex) };
    }

    // --------------------------------------------------------- checkpoints
    /**
     * The checkpoint bytes ("SXRN": config + parameters, checksummed), for RNN.load. precision
     * "float32" (default) is lossless; "float16" halves the bytes.
     */
    save(opts) {
      return saveWith("rnn.save", this.#inner(), opts, "sx_rnn_save_size_as", "sx_rnn_save_as");
    }
  }

  return RNN;
}

/**
 * The native trainer's learning rate at step s of total (tools/train-rnn.c's train(): its lr and
 * lrMin are floats, the schedule in double, the result rounded to float by the call).
 */
export function scheduleLr(s, total, lr, lrMin, warmup) {
  const prog = s / total;
  lr = Math.fround(lr);
  lrMin = Math.fround(lrMin);
  let rate = lrMin + 0.5 * (lr - lrMin) * (1.0 + Math.cos(3.14159265358979 * prog));
  if (s < warmup) rate *= (s + 1.0) / warmup;
  return rate;
}
