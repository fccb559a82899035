// model/rationale-class.js - the Rationale class: a generator that selects input positions and a
// predictor that classifies from the selection alone, on the rationale task whose right rationale
// is known (issue 25 item 4), over the core's sx_rationale_* exports (core/src/rationale.h
// documents the task, the model and the four selections). Rationale.task makes examples,
// new Rationale({ method }) a model; trainStep / train, predict and evaluate run it. Every call is
// synchronous and returns copies (typed arrays with buffers of their own, so a Web Worker can
// transfer them); train's progress callback runs between steps, returning false stops it.
import { rowCount } from "./tokens.js";
import { LENGTH, VOCAB, WORDS, rationaleExamples } from "./rationale-task.js";

const METHODS = Object.freeze(["sparsemax", "entmax15", "hardkuma", "reinforce"]);
const SPLITS = Object.freeze(["train", "test"]);

/** The Rationale class over one core; h: the helpers of the other model/ modules. */
export function rationaleClass(core, h) {
  const { show, coreError } = core;
  const { intArg, numArg, objectArg, knownKeys } = h;

  const registry = typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
      try {
        core.ready("Rationale").sx_rationale_free(handle);
      } catch {
        // the instance is gone: nothing to free
      }
    })
    : null;

  /** A flat row-major array of count * LENGTH integers in [lo, hi), copied into an Int32Array. */
  function intRows(fn, name, x, width, lo, hi, count) {
    if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)))) {
      throw new TypeError(`${fn}: ${name} must be an array or typed array of integers (got ${show(x)})`);
    }
    if (x.length === 0 || x.length % width !== 0) {
      throw new RangeError(`${fn}: ${name} must hold a multiple of ${width} values, at least ${width} (got ${x.length})`);
    }
    if (count !== undefined && x.length !== count * width) {
      throw new RangeError(`${fn}: ${name} must hold ${count * width} values for ${count} rows (got ${x.length})`);
    }
    const out = new Int32Array(x.length);
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (!Number.isInteger(v) || v < lo || v >= hi) {
        throw new RangeError(`${fn}: ${name}[${i}] must be an integer in [${lo}, ${hi - 1}] (got ${show(v)})`);
      }
      out[i] = v;
    }
    return out;
  }

  /** { tokens, labels, gold? } checked and copied; count rows. */
  function dataArg(fn, data, needGold) {
    const d = objectArg(fn, "data", data, false);
    knownKeys(fn, "data", d, ["tokens", "labels", "gold", "count"]);
    const tokens = intRows(fn, "tokens", d.tokens, LENGTH, 0, VOCAB);
    const count = tokens.length / LENGTH;
    const labels = intRows(fn, "labels", d.labels, 1, 0, 2, count);
    const gold = needGold ? intRows(fn, "gold", d.gold, LENGTH, 0, 2, count) : null;
    if (d.count !== undefined && d.count !== count) {
      throw new RangeError(`${fn}: data.count must equal the rows of tokens (${count}) (got ${show(d.count)})`);
    }
    return { tokens, labels, gold, count };
  }

  class Rationale {
    #handle = 0;
    #method = "";
    #maxBatch = 0;
    #sparsity = 0;

    /** The four selections, in the core's order. */
    static get methods() {
      return METHODS;
    }

    /** Tokens per example (12) and the vocabulary's size (16). */
    static get positions() {
      return LENGTH;
    }

    static get vocab() {
      return VOCAB;
    }

    /** The words of the token ids 0..15: six markers (0-2 positive, 3-5 negative), ten fillers. */
    static get words() {
      return WORDS;
    }

    /**
     * count examples of the task (example first + i of seed and split): { count, tokens
     * (count * 12 ids), labels (count: 1 positive, 0 negative), gold (count * 12: 1 at the
     * marker positions, the known rationale) }.
     */
    static task(count, opts) {
      const fn = "Rationale.task";
      const n = intArg(fn, "count", count, 1, 1 << 20);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["seed", "split", "first"]);
      const seed = intArg(fn, "seed", o.seed, 0, 0x7fffffff, 1);
      const split = o.split === undefined ? 0 : SPLITS.indexOf(o.split);
      if (split < 0) throw new RangeError(`${fn}: split must be "train" or "test" (got ${show(o.split)})`);
      const first = intArg(fn, "first", o.first, 0, 0x7fffffff - n, 0);
      return rationaleExamples(n, seed, split, first);
    }

    /**
     * A new model: method (one of Rationale.methods, default "sparsemax"), seed (its
     * initialisation and noise, default 1), maxBatch (rows per call, 1..4096, default 32) and
     * sparsity (the gates' penalty weight, >= 0, default 0.05; unused by sparsemax and entmax15).
     */
    constructor(opts) {
      const fn = "Rationale";
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["method", "seed", "maxBatch", "sparsity"]);
      const method = o.method === undefined ? 0 : METHODS.indexOf(o.method);
      if (method < 0) {
        throw new RangeError(`${fn}: method must be one of ${METHODS.join(", ")} (got ${show(o.method)})`);
      }
      const seed = intArg(fn, "seed", o.seed, 0, 0x7fffffff, 1);
      const maxBatch = intArg(fn, "maxBatch", o.maxBatch, 1, 4096, 32);
      const sparsity = numArg(fn, "sparsity", o.sparsity, 0.05, 0);
      const ex = core.ready(fn);
      const at = core.scratch(fn, 16);
      core.i32()[at >> 2] = 0;
      const st = ex.sx_rationale_create(at, method, seed, maxBatch, sparsity);
      if (st !== 0) throw coreError(fn, st);
      this.#handle = core.i32()[at >> 2] >>> 0;
      this.#method = METHODS[method];
      this.#maxBatch = maxBatch;
      this.#sparsity = Math.fround(sparsity);
      if (registry) registry.register(this, this.#handle, this);
    }

    #live(fn) {
      if (this.#handle === 0) {
        throw new Error(`${fn}: this model has been freed (free() was called); create a new one`);
      }
      return core.ready(fn);
    }

    #fits(fn, count) {
      rowCount(fn, count);
      if (count > this.#maxBatch) {
        throw new RangeError(`${fn}: a batch has at most maxBatch (${this.#maxBatch}) rows (got ${count})`);
      }
    }

    /** Free the model's wasm memory. Idempotent; any later use throws. */
    free() {
      if (this.#handle === 0) return;
      const hd = this.#handle;
      this.#handle = 0;
      if (registry) registry.unregister(this);
      core.ready("rationale.free").sx_rationale_free(hd);
    }

    get freed() {
      return this.#handle === 0;
    }

    get method() {
      return this.#method;
    }

    get maxBatch() {
      return this.#maxBatch;
    }

    get sparsity() {
      return this.#sparsity;
    }

    get numParams() {
      return this.#live("rationale.numParams").sx_rationale_num_params(this.#handle);
    }

    /** Adam steps taken so far. */
    get steps() {
      return this.#live("rationale.steps").sx_rationale_steps(this.#handle);
    }

    /** One Adam step on a batch { tokens, labels } (lr default 0.01); the objective before it. */
    trainStep(batch, opts) {
      const fn = "rationale.trainStep";
      this.#live(fn);
      const b = dataArg(fn, batch, false);
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["lr"]);
      const lr = numArg(fn, "lr", o.lr, 0.01, 0);
      this.#fits(fn, b.count);
      return this.#step(fn, this.#live(fn), b.tokens, b.labels, b.count, lr);
    }

    #step(fn, ex, tokens, labels, count, lr) {
      const at = core.scratch(fn, 16 + 4 * count * (LENGTH + 1));
      const i32 = core.i32();
      i32.set(tokens, (at + 16) >> 2);
      i32.set(labels, ((at + 16) >> 2) + count * LENGTH);
      const st = ex.sx_rationale_train_step(this.#handle, at, at + 16, at + 16 + 4 * count * LENGTH, count, lr);
      if (st !== 0) throw coreError(fn, st);
      return core.f32()[at >> 2];
    }

    /**
     * Train as `make rationales` does (tools/rationales.c): step s takes train examples
     * s * batch .. of the task's seed (default 1) at a constant lr (default 0.01), for steps
     * from .. from + steps - 1 (a worker runs it in slices). progress({ step, loss }) every
     * `every` steps and after the last; returning false stops. Returns { losses }.
     */
    train(opts) {
      const fn = "rationale.train";
      this.#live(fn);
      const o = objectArg(fn, "options", opts, false);
      knownKeys(fn, "options", o, ["steps", "from", "batch", "lr", "seed", "every", "progress"]);
      const steps = intArg(fn, "steps", o.steps, 1, 1e7);
      const from = intArg(fn, "from", o.from, 0, 1e9, 0);
      const batch = intArg(fn, "batch", o.batch, 1, this.#maxBatch, this.#maxBatch);
      if ((from + steps) * batch > 0x7fffffff) {
        throw new RangeError(`${fn}: (from + steps) * batch must be <= 2147483647 (got ${(from + steps) * batch})`);
      }
      const lr = numArg(fn, "lr", o.lr, 0.01, 0);
      const seed = intArg(fn, "seed", o.seed, 0, 0x7fffffff, 1);
      const every = intArg(fn, "every", o.every, 1, 1e9, 10);
      const progress = o.progress;
      if (progress !== undefined && typeof progress !== "function") {
        throw new TypeError(`${fn}: progress must be a function (got ${show(progress)})`);
      }
      const losses = new Float32Array(steps);
      let done = 0;
      for (let s = from; s < from + steps; s++) {
        const ex = this.#live(fn); // progress may have freed the model
        const b = rationaleExamples(batch, seed, 0, s * batch);
        const loss = this.#step(fn, ex, b.tokens, b.labels, batch, lr);
        losses[done++] = loss;
        if (progress && (done % every === 0 || done === steps)) {
          if (progress({ step: s + 1, loss: losses[done - 1] }) === false) break;
        }
      }
      return { losses: losses.slice(0, done) };
    }

    /**
     * The deterministic selection of tokens (count * 12 ids, count <= maxBatch): { weights
     * (count * 12; a position is selected when its weight is > 0), labels (count, predicted) }.
     */
    predict(tokens) {
      const fn = "rationale.predict";
      this.#live(fn);
      const x = intRows(fn, "tokens", tokens, LENGTH, 0, VOCAB);
      const count = x.length / LENGTH;
      this.#fits(fn, count);
      const ex = this.#live(fn);
      const n = count * LENGTH;
      const at = core.scratch(fn, 4 * (2 * n + count));
      core.i32().set(x, at >> 2);
      const st = ex.sx_rationale_predict(this.#handle, at + 4 * n, at + 8 * n, at, count);
      if (st !== 0) throw coreError(fn, st);
      const p = at >> 2;
      return { weights: core.f32().slice(p + n, p + 2 * n), labels: core.i32().slice(p + 2 * n, p + 2 * n + count) };
    }

    /**
     * Held-out figures of the deterministic selection on { tokens, labels, gold } (any number of
     * rows): { accuracy, precision (selected marker positions / selected positions), recall
     * (selected marker positions / marker positions), fraction (selected / all positions) }.
     */
    evaluate(data) {
      const fn = "rationale.evaluate";
      this.#live(fn);
      const d = dataArg(fn, data, true);
      let correct = 0, selected = 0, hit = 0, marked = 0;
      for (let at = 0; at < d.count; at += this.#maxBatch) {
        const n = Math.min(this.#maxBatch, d.count - at);
        const s = this.predict(d.tokens.subarray(at * LENGTH, (at + n) * LENGTH));
        for (let i = 0; i < n; i++) {
          correct += s.labels[i] === d.labels[at + i];
          for (let t = 0; t < LENGTH; t++) {
            const sel = s.weights[i * LENGTH + t] > 0, gold = d.gold[(at + i) * LENGTH + t] === 1;
            selected += sel, hit += sel && gold, marked += gold;
          }
        }
      }
      // the same figures as sx_rationale_evaluate (native only: tools/rationales.c), to float
      const r = (v) => Number(Math.fround(v).toPrecision(7));
      return {
        accuracy: r(correct / d.count), precision: r(selected ? hit / selected : 0),
        recall: r(marked ? hit / marked : 0), fraction: r(selected / (d.count * LENGTH)),
      };
    }
  }

  return Rationale;
}
