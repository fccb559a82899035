// bottleneck.js - the recurrent encoder-decoder's bottleneck, trained live (<sx-bottleneck>; no
// DOM, no worker API): the three variants' configs (no attention, additive attention under a
// mapping, hard attention with an estimator), the held-out rows bucketed by source length, greedy
// exact accuracy per length in chunks (an evaluation can be spread over time slices), and a
// Bottleneck that trains the three side by side in lockstep on the native trainer's schedule
// (RNN.train's from/total: the same steps whatever the slicing, so a run is reproducible).
// bottleneck-session.js drives it in a Web Worker or on the main thread; Node drives it in tests.

/** The variants trained side by side, in drawing order. */
export const VARIANTS = Object.freeze(["none", "additive", "hard"]);

/** The run: the native trainer's schedule (tools/train-rnn.c) at batch 32 for `total` steps. */
export const RUN = Object.freeze({
  task: "reverse", total: 2000, batch: 32, lr: 3e-3, lrMin: 3e-4, warmup: 100, evalEvery: 100,
  perLength: 25, heldoutSeed: 2001, seed: 1,
});

/** The source lengths of the reverse task (core/src/tasks.c) and its end-of-sequence token. */
export const LENGTHS = Object.freeze([3, 4, 5, 6, 7, 8, 9, 10]);
const EOS = 2;

/** The RNN configs of the three variants (the native trainer's sizes: embed 32, hidden 64). */
export function variantConfigs({ mapping = "softmax", estimator = "straight", seed = RUN.seed } = {}) {
  const base = { task: RUN.task, seed, maxBatch: RUN.batch };
  return [
    { ...base, attention: "none" },
    { ...base, attention: "additive", mapping },
    { ...base, attention: "hard", estimator },
  ];
}

/** A row's source length: the position of its EOS (the letters before it). */
export function sourceLength(src, row, width) {
  for (let j = 0; j < width; j++) if (src[row * width + j] === EOS) return j;
  return width;
}

/**
 * perLength held-out rows of each source length (the first ones of the held-out split under
 * seed, in order): { src, tgt (Int32Array, count x width), lengths (Int32Array), count, width }.
 */
export function heldoutByLength(tasks, { perLength = RUN.perLength, seed = RUN.heldoutSeed } = {}) {
  const width = tasks.width(RUN.task);
  const pool = tasks.generate(RUN.task, { seed, split: "heldout", count: Math.max(200, perLength * LENGTHS.length * 3) });
  const picked = LENGTHS.map(() => []);
  for (let r = 0; r < pool.shape[0]; r++) {
    const k = LENGTHS.indexOf(sourceLength(pool.src, r, width));
    if (k >= 0 && picked[k].length < perLength) picked[k].push(r);
  }
  const rows = picked.flat();
  if (rows.length < perLength * LENGTHS.length) throw new Error(`heldoutByLength: the pool has too few rows of some length`);
  const count = rows.length, src = new Int32Array(count * width), tgt = new Int32Array(count * width);
  const lengths = new Int32Array(count);
  rows.forEach((r, i) => {
    src.set(pool.src.subarray(r * width, (r + 1) * width), i * width);
    tgt.set(pool.tgt.subarray(r * width, (r + 1) * width), i * width);
    lengths[i] = sourceLength(pool.src, r, width);
  });
  return { src, tgt, lengths, count, width };
}

/**
 * Greedy exact accuracy per source length of model on held (heldoutByLength), batch rows per
 * chunk(): a row is right when rnn.generate's row equals its target row. done, then
 * accuracy: one fraction per entry of LENGTHS.
 */
export class LengthEvaluation {
  constructor(model, held, batch = RUN.batch) {
    this.model = model;
    this.held = held;
    this.batch = Math.min(batch, model.config.maxBatch);
    this.rows = 0;
    this.right = new Int32Array(LENGTHS.length);
    this.seen = new Int32Array(LENGTHS.length);
  }

  get done() { return this.rows >= this.held.count; }

  get accuracy() { return this.done ? Array.from(this.right, (r, k) => (this.seen[k] ? r / this.seen[k] : 0)) : null; }

  /** Decodes the next batch rows; returns done. */
  chunk() {
    const { src, tgt, lengths, count, width } = this.held;
    const s = this.rows, c = Math.min(this.batch, count - s);
    if (c <= 0) return true;
    const out = this.model.generate(src.subarray(s * width, (s + c) * width), { count: c });
    out.forEach((row, i) => {
      const r = s + i, k = LENGTHS.indexOf(lengths[r]);
      let ok = true;
      for (let j = 0; j < width && ok; j++) ok = row[j] === tgt[r * width + j];
      this.seen[k]++;
      if (ok) this.right[k]++;
    });
    this.rows += c;
    return this.done;
  }
}

/** accuracy by length at once (LengthEvaluation to the end). */
export function accuracyByLength(model, held, batch) {
  const e = new LengthEvaluation(model, held, batch);
  while (!e.chunk());
  return e.accuracy;
}

/**
 * The three variants trained in lockstep, in slices: run(ms) does units of work until ms have
 * passed (at least one): one step of each model, or one batch of the held-out evaluation due every
 * evalEvery steps (and at step 0); done at total steps (after the last evaluation). lib is
 * { RNN, tasks } of an initialised library; call free() when finished.
 */
export class Bottleneck {
  constructor(lib, { mapping, estimator, seed = RUN.seed, total = RUN.total, evalEvery = RUN.evalEvery, perLength = RUN.perLength } = {}) {
    for (const [k, v, lo] of [["seed", seed, 0], ["total", total, 1], ["evalEvery", evalEvery, 1], ["perLength", perLength, 1]]) {
      if (!Number.isInteger(v) || v < lo) throw new RangeError(`Bottleneck: ${k} must be an integer >= ${lo} (got ${JSON.stringify(v)})`);
    }
    this.lib = lib;
    this.s = Object.freeze({ ...RUN, seed, total, evalEvery, perLength });
    this.held = heldoutByLength(lib.tasks, { perLength });
    this.models = [];
    try {
      for (const c of variantConfigs({ mapping, estimator, seed })) this.models.push(new lib.RNN(c));
    } catch (err) {
      this.free();
      throw err;
    }
    this.step = 0;
    this.lastEval = -1; // the step of the last evaluation finished
    this.hold = false; // true: run() takes no step (a pending evaluation still runs)
    this.done = false;
    this._eval = this._evaluation(); // the pending evaluation: [LengthEvaluation x3] and the variant under way
  }

  _evaluation() { return { k: 0, e: this.models.map((m) => new LengthEvaluation(m, this.held, this.s.batch)) }; }

  /** The evaluation under way, or null: { rows, of } over the three models. */
  get evaluating() {
    if (!this._eval) return null;
    return { rows: this._eval.e.reduce((a, e) => a + e.rows, 0), of: 3 * this.held.count };
  }

  /**
   * Works for about ms milliseconds: { losses: [Float32Array x3] (each model's loss of every
   * step taken), evals: [{ step, accuracy: [[per length] x3] }] (the evaluations finished) }.
   */
  run(ms) {
    const s = this.s, losses = this.models.map(() => []), evals = [];
    const t0 = performance.now();
    let units = 0;
    while (!this.done && (units++ === 0 || performance.now() - t0 < ms)) {
      if (this._eval) {
        this._evaluateChunk(evals);
        continue;
      }
      if (this.hold) break;
      this.models.forEach((m, i) => {
        const { losses: l } = m.train({ task: s.task, steps: 1, from: this.step, total: s.total, batch: s.batch,
          lr: s.lr, lrMin: s.lrMin, warmup: s.warmup, seed: s.seed });
        losses[i].push(l[0]);
      });
      this.step++;
      if (this.step % s.evalEvery === 0 || this.step === s.total) this._eval = this._evaluation();
    }
    return { losses: losses.map((l) => Float32Array.from(l)), evals };
  }

  _evaluateChunk(evals) {
    const ev = this._eval;
    if (ev.e[ev.k].chunk()) ev.k++;
    if (ev.k < ev.e.length) return;
    this._eval = null;
    this.lastEval = this.step;
    evals.push({ step: this.step, accuracy: ev.e.map((e) => e.accuracy) });
    if (this.step >= this.s.total) this.done = true;
  }

  /** Evaluate at the step reached (run() then does it before any further step), unless done already. */
  evaluateNow() {
    if (!this._eval && this.lastEval !== this.step) this._eval = this._evaluation();
  }

  free() {
    for (const m of this.models) m.free();
    this.models = [];
  }
}
