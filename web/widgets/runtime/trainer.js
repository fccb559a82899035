// trainer.js - train a model of the shipped configuration from scratch (no DOM, no worker API):
// the Model config of each attention kind, the learning-rate schedule, held-out exact-sequence
// accuracy, and a Trainer that runs steps in time slices so its caller can yield between them.
// Evaluations are sliced too (batch rows at a time), so no slice holds more than one step or one
// batch of held-out rows: short enough for the page's main thread. train-session.js drives it, in
// a Web Worker (train-worker.js) or on the main thread; Node drives it in the tests.
//
// The schedule: batch 32, learning rate 1e-2 with a 30-step linear warm-up and a cosine decay to
// 1e-3 over 1000 steps (then flat; 1500 steps at most), fresh training examples every step. The
// shipped checkpoints (tools/train: batch 64, 3e-3) take 300-1400 steps; this schedule stops the
// same 2 + 2-layer model in 250-1150 steps of half the batch (date 250-500, the others 750-1150),
// every task x kind then at >= 99.2% on 2000 further held-out examples (tests/browser/train-time.mjs).

/** The attention kinds of the shipped models (web/models/<task>-<kind>.sxm). */
export const KINDS = Object.freeze(["softmax", "entmax15", "alpha", "alpha-span", "fusedmax", "oscarmax"]);

/** Labels for the kinds. */
export const KIND_LABELS = Object.freeze({
  softmax: "softmax", entmax15: "1.5-entmax", alpha: "learned α-entmax", "alpha-span": "learned α + adaptive span",
  fusedmax: "fusedmax (λ 0.5)", oscarmax: "oscarmax (β 0.05)",
});

/** The tasks a kind is shipped for (the structured kinds: where contiguity is real, README
 *  "Shipped models"); kinds not listed are shipped for every task. */
export const KIND_TASKS = Object.freeze({
  fusedmax: Object.freeze(["after_marker", "date"]), oscarmax: Object.freeze(["after_marker", "date"]),
});

/** Is kind shipped for task? */
export const kindFits = (task, kind) => !KIND_TASKS[kind] || KIND_TASKS[kind].includes(task);

/**
 * The training schedule; new Trainer(lib, { task, kind, ...overrides }) may change any field.
 * Every evalEvery steps the model is scored on `heldout` validation examples (held-out split,
 * heldoutSeed); when `target` of them come out exactly right, it is scored on `confirm` more
 * (heldoutSeed + 1000), and training stops once those reach `target` too. 99.5%: a margin over
 * the 99% goal (as tools/train's --stop) that the two stages keep honest, since stopping at the
 * first lucky score of one small slice overstates the accuracy (500 examples at 99.8% could be
 * a model that gets 98.2% of the next 2000: seen on after_marker). train-worker.js then reports
 * the accuracy on 2000 further held-out examples.
 */
export const SCHEDULE = Object.freeze({
  batch: 32, lr: 1e-2, lrMin: 1e-3, warmup: 30, decaySteps: 1000, maxSteps: 1500,
  evalEvery: 50, heldout: 500, confirm: 2000, target: 0.995, seed: 1, heldoutSeed: 7,
});

// The integer fields of SCHEDULE and their smallest values (lr, lrMin, target are reals).
const INT_MIN = { batch: 1, warmup: 0, decaySteps: 1, maxSteps: 1, evalEvery: 1, heldout: 1, confirm: 1, seed: 0, heldoutSeed: 0 };

/** The Model config of the shipped models (README, "Shipped models") for one attention kind. */
export function modelConfig(task, kind, seed = 1) {
  const base = { task, dModel: 32, heads: 4, layers: 2, dFF: 64, seed, alphaLr: 10 };
  switch (kind) {
    case "softmax": return { ...base, attention: "softmax" };
    case "entmax15": return { ...base, attention: "entmax15" };
    case "alpha": return { ...base, attention: "entmax-learned" };
    case "alpha-span": return { ...base, attention: "entmax-learned", span: true, spanRamp: 3, spanPenalty: 0.002 };
    // tools/train.c's fixed lambda and beta
    case "fusedmax": return { ...base, attention: "fusedmax", lambda: 0.5 };
    case "oscarmax": return { ...base, attention: "oscarmax", beta: 0.05 };
    default: throw new RangeError(`modelConfig: kind must be one of ${KINDS.join(", ")} (got ${JSON.stringify(kind)})`);
  }
}

/** The learning rate of step (0-based): linear warm-up, then cosine decay to lrMin. */
export function learningRate(step, s = SCHEDULE) {
  const t = Math.min(1, step / s.decaySteps);
  const lr = s.lrMin + 0.5 * (s.lr - s.lrMin) * (1 + Math.cos(Math.PI * t));
  return step < s.warmup ? lr * (step + 1) / s.warmup : lr;
}

/** The decoder inputs of full target rows (count x width): each row without its last token. */
export function decoderInputs(tgt, count, width) {
  const din = new Int32Array(count * (width - 1));
  for (let r = 0; r < count; r++) din.set(tgt.subarray(r * width, r * width + width - 1), r * (width - 1));
  return din;
}

/**
 * How many rows are exactly right, teacher forced: the argmax of the logits (count, width - 1,
 * vocab) equals the target at every position up to and including EOS. By induction over the
 * positions this is greedy decoding's exact-sequence accuracy (each greedy step sees the right
 * prefix as long as every earlier step was right), at the cost of one decoder pass.
 */
export function exactRows(logits, vocab, tgt, count, width, eos = 2) {
  let right = 0;
  for (let r = 0; r < count; r++) {
    let ok = true;
    for (let t = 0; t < width - 1 && ok; t++) {
      const want = tgt[r * width + t + 1];
      const at = (r * (width - 1) + t) * vocab;
      let best = 0;
      for (let v = 1; v < vocab; v++) if (logits[at + v] > logits[at + best]) best = v;
      ok = best === want;
      if (want === eos) break;
    }
    if (ok) right++;
  }
  return right;
}

/**
 * Exact-sequence accuracy of model on a batch { src, tgt, shape } (tasks.generate), teacher
 * forced, batch rows at a time, so that a caller can spread it over time slices: run(ms) scores
 * chunks of rows until ms have passed (at least one chunk); rows (scored so far), of, right;
 * done, and accuracy (null until done).
 */
export class Evaluation {
  constructor(model, held, batch = 32) {
    this.model = model;
    this.held = held;
    this.batch = batch;
    this.of = held.shape[0];
    this.rows = 0;
    this.right = 0;
  }

  get done() { return this.rows >= this.of; }
  get accuracy() { return this.done ? this.right / this.of : null; }

  /** Scores the next batch rows; returns done. */
  chunk() {
    const width = this.held.shape[1], s = this.rows, c = Math.min(this.batch, this.of - s);
    if (c <= 0) return true;
    const tgt = this.held.tgt.subarray(s * width, (s + c) * width);
    const { logits } = this.model.forward(this.held.src.subarray(s * width, (s + c) * width), decoderInputs(tgt, c, width), { count: c, attention: false });
    this.right += exactRows(logits, this.model.config.vocab, tgt, c, width);
    this.rows += c;
    return this.done;
  }

  /** Chunks until ms have passed (at least one; Infinity: to the end); returns done. */
  run(ms = Infinity) {
    const t0 = performance.now();
    while (!this.chunk() && performance.now() - t0 < ms);
    return this.done;
  }
}

/** Exact-sequence accuracy of model on a batch { src, tgt, shape } (tasks.generate), teacher forced, in chunks of batch rows. */
export function exactAccuracy(model, held, batch = 32) {
  const e = new Evaluation(model, held, batch);
  e.run();
  return e.accuracy;
}

/**
 * Training from scratch, in slices: run(ms) does units of work until ms have passed (at least
 * one): a step, or one batch of held-out rows of the evaluation due every evalEvery steps (no
 * step is taken while one is pending); it stops (done) at target accuracy or maxSteps. lib is
 * { Model, tasks } of an initialised library. Call free() when finished.
 */
export class Trainer {
  constructor(lib, { task, kind, ...overrides }) {
    const unknown = Object.keys(overrides).filter((k) => !(k in SCHEDULE));
    if (unknown.length) throw new RangeError(`Trainer: unknown option ${JSON.stringify(unknown[0])} (known: task, kind, ${Object.keys(SCHEDULE).join(", ")})`);
    for (const [k, v] of Object.entries(overrides)) {
      const lo = INT_MIN[k];
      const ok = lo !== undefined ? Number.isInteger(v) && v >= lo
        : Number.isFinite(v) && v > 0 && (k !== "target" || v <= 1);
      if (!ok) {
        const want = lo !== undefined ? `an integer >= ${lo}` : k === "target" ? "in (0, 1]" : "a positive number";
        throw new RangeError(`Trainer: ${k} must be ${want} (got ${JSON.stringify(v)})`);
      }
    }
    this.lib = lib;
    this.task = task;
    this.kind = kind;
    this.s = Object.freeze({ ...SCHEDULE, ...overrides });
    this.model = new lib.Model({ ...modelConfig(task, kind, this.s.seed), maxBatch: this.s.batch });
    try {
      this.held = lib.tasks.generate(task, { seed: this.s.heldoutSeed, count: this.s.heldout, split: "heldout" });
    } catch (err) {
      this.model.free(); // nothing of a failed construction stays in wasm memory
      throw err;
    }
    this.step = 0;
    this.accuracy = null; // the last held-out accuracy
    this.reachedAt = null; // { step, accuracy, confirm, ms } when both held-out scores first reached the target
    this.confirmSet = null; // the confirmation slice, generated when first needed
    this.ms = 0; // time spent in run(), evaluation included
    this.done = false;
    this._eval = null; // the pending evaluation: { stage: "validate" | "confirm", e: Evaluation }
  }

  /** The evaluation under way, or null: { stage ("validate", then "confirm"), rows, of }. */
  get evaluating() {
    return this._eval ? { stage: this._eval.stage, rows: this._eval.e.rows, of: this._eval.e.of } : null;
  }

  /** Exact-sequence accuracy of the current parameters on held (default: the held-out slice). */
  evaluate(held = this.held) {
    return exactAccuracy(this.model, held, this.s.batch);
  }

  /**
   * Works for about ms milliseconds: { losses (one per step taken), evals: [{ step, accuracy,
   * confirm }] (the evaluations finished; confirm: the accuracy on the confirmation slice, null
   * when the validation score was below target and it was not computed) }. A slice spent on an
   * evaluation may take no step.
   */
  run(ms) {
    const { tasks } = this.lib, s = this.s;
    const losses = [], evals = [];
    const t0 = performance.now();
    let units = 0;
    while (!this.done && (units++ === 0 || performance.now() - t0 < ms)) {
      if (this._eval) {
        this._evaluateChunk(evals, t0);
        continue;
      }
      const batch = tasks.generate(this.task, { seed: s.seed, start: this.step * s.batch, count: s.batch });
      losses.push(this.model.trainStep(batch, { lr: learningRate(this.step, s) }));
      this.step++;
      if (this.step % s.evalEvery === 0 || this.step === s.maxSteps) {
        this._eval = { stage: "validate", e: new Evaluation(this.model, this.held, s.batch) };
      }
    }
    this.ms += performance.now() - t0;
    return { losses, evals };
  }

  // One batch of the pending evaluation; at its end, the validation score (and, at target, the
  // confirmation that follows it) is pushed to evals and decides whether the run is done.
  _evaluateChunk(evals, t0) {
    const s = this.s, { stage, e } = this._eval;
    if (!e.chunk()) return;
    let confirm = null;
    if (stage === "validate") {
      this.accuracy = e.accuracy;
      if (this.accuracy >= s.target && !this.reachedAt) {
        this.confirmSet ??= this.lib.tasks.generate(this.task, { seed: s.heldoutSeed + 1000, count: s.confirm, split: "heldout" });
        this._eval = { stage: "confirm", e: new Evaluation(this.model, this.confirmSet, s.batch) };
        return;
      }
    } else {
      confirm = e.accuracy;
      if (confirm >= s.target) {
        this.reachedAt = { step: this.step, accuracy: this.accuracy, confirm, ms: this.ms + performance.now() - t0 };
      }
    }
    this._eval = null;
    evals.push({ step: this.step, accuracy: this.accuracy, confirm });
    if (this.reachedAt || this.step >= s.maxSteps) this.done = true;
  }

  free() {
    this.model.free();
  }
}
