// rationale-session.js - <sx-rationale>'s training, wherever it runs. A session trains the four
// rationalizers of the library's Rationale class (sparsemax, 1.5-entmax, HardKuma, REINFORCE:
// Rationale.methods) side by side on `make rationales`' schedule (tools/rationales.c: step s takes
// train examples s * 32 .. of task seed 1, lr 0.01, sparsity 0.05, the model seed the reader's), so
// every method sees the same examples in the same order, and posts their losses, their figures on
// make rationales' held-out set (Rationale.evaluate) and their selections of the first few held-out
// examples (Rationale.predict). rationale-worker.js runs one in a module Web Worker; where no worker
// can be started (the file missing, a CSP refusing the single-file bundle's blob: worker) the widget
// runs one on the page's main thread through MainThreadRationale, in short slices.
//
// The page posts:
//   { type: "start", seed, total, wasm }   wasm: the module's bytes for init({ bytes }) (omitted:
//                                     init() fetches the .wasm)
//   { type: "stop" }                  pause after the slice under way (the models are kept)
//   { type: "resume" }                go on from the step reached
// The session posts:
//   { type: "started", params: [4 numbers] }
//   { type: "progress", step, losses: [Float32Array x4] }   each model's loss of every step taken
//   { type: "snapshot", step, figures: [4 x { accuracy, precision, recall, fraction }],
//     weights: [Float32Array x4] (SHOWN x 12 each), labels: [Int32Array x4] }   at step 0, every
//     SNAPSHOT_MS while training, and at every pause and at the end
//   { type: "paused", step } | { type: "done", step } | { type: "error", message }
import { init, Rationale } from "../../lib/simplexity.js";
import { workerSeam } from "./inline-worker.js";
import { MainThreadSession } from "./main-thread.js";

/** make rationales' run (tools/rationales.c's defaults) and held-out set (the first 2000 of split "test", seed 1). */
export const RUN = Object.freeze({ total: 1500, batch: 32, lr: 0.01, sparsity: 0.05, taskSeed: 1, held: 2000, shown: 4 });
/** Slice lengths (ms): a worker posts about 20 times a second; the main thread keeps ~ a frame. */
export const SLICE_MS = Object.freeze({ worker: 50, main: 24 });
const SNAPSHOT_MS = 500; // (an evaluation of the four on 2000 examples: ~ 90 ms)

/** The held-out set the figures are computed on; the examples drawn are its first RUN.shown. */
export const heldOut = () => Rationale.task(RUN.held, { split: "test", seed: RUN.taskSeed });

/**
 * A session speaking the protocol above: post(msg, transfer) to the page, pause() resolves when
 * the session may go on, sliceMs the work between pauses. Returns { receive(msg), terminate() }.
 */
export function rationaleSession({ post, pause, sliceMs }) {
  let models = null, held = null, started = false, step = 0, total = 0, stopping = false, terminated = false, looping = false, last = 0;
  const send = (msg, transfer) => { if (!terminated) post(msg, transfer); };
  const free = () => { if (models) for (const m of models) m.free(); models = null; };

  function fail(err) {
    send({ type: "error", message: err && err.message ? err.message : String(err) });
    stopping = true;
    free();
  }

  function snapshot() {
    last = performance.now();
    const shown = held.tokens.subarray(0, RUN.shown * Rationale.positions);
    const sel = models.map((m) => m.predict(shown));
    const weights = sel.map((s) => s.weights), labels = sel.map((s) => s.labels);
    send({ type: "snapshot", step, figures: models.map((m) => m.evaluate(held)), weights, labels },
      [...weights, ...labels].map((a) => a.buffer));
  }

  async function start(msg) {
    const { seed, total: t } = msg;
    if (!Number.isInteger(seed) || seed < 0 || seed > 0x7fffffff) throw new RangeError(`rationale-session: seed must be an integer in [0, 2147483647] (got ${seed})`);
    if (!Number.isInteger(t) || t < 1 || t > 100000) throw new RangeError(`rationale-session: total must be an integer in [1, 100000] (got ${t})`);
    await (msg.wasm === undefined ? init() : init({ bytes: msg.wasm }));
    if (terminated) return;
    total = t;
    held = heldOut();
    models = [];
    for (const method of Rationale.methods) models.push(new Rationale({ method, seed, maxBatch: RUN.batch, sparsity: RUN.sparsity }));
    send({ type: "started", params: models.map((m) => m.numParams) });
    snapshot();
    await loop();
  }

  // One step of every model on the same batch: train example step * batch .. of the task's seed.
  function trainStep(losses) {
    const b = Rationale.task(RUN.batch, { seed: RUN.taskSeed, first: step * RUN.batch });
    models.forEach((m, i) => losses[i].push(m.trainStep(b, { lr: RUN.lr })));
    step++;
  }

  async function loop() {
    looping = true;
    try {
      while (models && step < total && !stopping) {
        const losses = models.map(() => []), t0 = performance.now();
        do trainStep(losses); while (step < total && performance.now() - t0 < sliceMs);
        const ls = losses.map((l) => Float32Array.from(l));
        send({ type: "progress", step, losses: ls }, ls.map((l) => l.buffer));
        if (performance.now() - last >= SNAPSHOT_MS && step < total) snapshot();
        await pause();
        if (terminated) { free(); return; }
      }
      if (!models) return;
      snapshot();
      send({ type: step >= total ? "done" : "paused", step });
      if (step >= total) free();
    } finally {
      looping = false;
    }
  }

  return {
    receive(data) {
      const msg = data || {};
      try {
        if (terminated) return;
        if (msg.type === "start") {
          if (started) throw new Error("rationale-session: already started; use a new session for another run");
          started = true;
          start(msg).catch(fail);
        } else if (msg.type === "stop") {
          stopping = true;
        } else if (msg.type === "resume") {
          stopping = false;
          if (models && !looping && step < total) loop().catch(fail);
        } else {
          throw new Error(`rationale-session: unknown message type ${JSON.stringify(msg.type)}`);
        }
      } catch (err) {
        fail(err);
      }
    },
    terminate() {
      terminated = stopping = true;
      if (!looping) free();
    },
  };
}

/** A Worker look-alike running a session on this thread, in SLICE_MS.main slices. */
export class MainThreadRationale extends MainThreadSession {
  constructor() { super(({ post, pause }) => rationaleSession({ post, pause, sliceMs: SLICE_MS.main })); }
}

// ------------------------------------------------------- where the worker comes from
// setRationaleWorker({ source, wasm }) registers the worker's code in place of rationale-worker.js (the
// single-file build calls it); rationaleWorker() says where the worker comes from, { kind, name, wasm };
// startRationaleWorker() starts it: the registered code, else the literal below, the form bundlers
// recognise (it must stay written out here). See runtime/inline-worker.js.
export const { set: setRationaleWorker, info: rationaleWorker, start: startRationaleWorker } = workerSeam(
  "setRationaleWorker", "rationale-worker.js", () => new Worker(new URL("./rationale-worker.js", import.meta.url), { type: "module" }));
