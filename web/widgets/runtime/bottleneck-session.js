// bottleneck-session.js - <sx-bottleneck>'s training, wherever it runs. A session takes the page's
// messages and posts the run's progress (bottleneck.js's Bottleneck: three recurrent models side
// by side) and snapshots of the additive model's attention on one held-out source.
// bottleneck-worker.js runs one in a module Web Worker; where no worker can be started (the file
// missing where a bundler did not emit it, a CSP refusing the single-file bundle's blob: worker)
// the widget runs one on the page's main thread through MainThreadBottleneck, in short slices.
//
// The page posts:
//   { type: "start", mapping, estimator, seed, total, wasm }   wasm: the module's bytes for
//                                     init({ bytes }) (omitted: init() fetches the .wasm)
//   { type: "stop" }                  pause at the next slice (the models are kept)
//   { type: "resume" }                go on from the step reached
// The session posts:
//   { type: "started", params: [3 numbers], schedule, source }   source: the held-out row drawn
//   { type: "progress", step, losses: [Float32Array x3], evals: [{ step, accuracy }], evaluating }
//   { type: "snapshot", step, shape, data }   the additive model's rnn.attention of the source
//   { type: "paused", step, models }   after a stop (evaluated at the step reached first): the
//                                     three models' float32 rnn.save() bytes, in VARIANTS order
//   { type: "done", step }            at the last step (after its evaluation)
//   { type: "error", message }                anything that went wrong; the run stops
import { init, RNN, tasks } from "../../lib/simplexity.js";
import { Bottleneck, LENGTHS } from "./bottleneck.js";
import { workerSeam } from "./inline-worker.js";
import { MainThreadSession } from "./main-thread.js";

const SNAPSHOT_MS = 250;
/** The held-out source whose alignment is drawn: the first of 8 letters. */
export const SOURCE_LENGTH = 8;
/** Slice lengths (ms): a worker posts about 20 times a second; the main thread keeps ~ a frame. */
export const SLICE_MS = Object.freeze({ worker: 50, main: 24 });

/**
 * A session speaking the protocol above: post(msg, transfer) to the page, pause() resolves when
 * the session may go on, sliceMs the work between pauses. Returns { receive(msg), terminate() }.
 */
export function bottleneckSession({ post, pause, sliceMs }) {
  let run = null, source = null, stopping = false, terminated = false, looping = false, lastSnapshot = 0;
  const send = (msg, transfer) => { if (!terminated) post(msg, transfer); };

  function fail(err) {
    send({ type: "error", message: err && err.message ? err.message : String(err) });
    stopping = true;
    if (run) { run.free(); run = null; }
  }

  function snapshot() {
    lastSnapshot = performance.now();
    const { shape, data } = run.models[1].attention(source);
    send({ type: "snapshot", step: run.step, shape, data }, [data.buffer]);
  }

  async function start(msg) {
    await (msg.wasm === undefined ? init() : init({ bytes: msg.wasm }));
    if (terminated) return;
    const opts = { mapping: msg.mapping, estimator: msg.estimator };
    for (const k of ["seed", "total", "evalEvery", "perLength"]) if (msg[k] !== undefined) opts[k] = msg[k];
    run = new Bottleneck({ RNN, tasks }, opts);
    run.hold = stopping; // a stop that came first
    const { held } = run, k = held.lengths.indexOf(SOURCE_LENGTH);
    source = held.src.slice(k * held.width, (k + 1) * held.width);
    send({ type: "started", params: run.models.map((m) => m.numParams), schedule: run.s, lengths: LENGTHS, source: Array.from(source) });
    snapshot();
    await loop();
  }

  async function loop() {
    looping = true;
    try {
      while (run && !run.done && (!stopping || run.evaluating)) {
        const { losses, evals } = run.run(sliceMs);
        send({ type: "progress", step: run.step, losses, evals, evaluating: run.evaluating }, losses.map((l) => l.buffer));
        if (evals.length || performance.now() - lastSnapshot >= SNAPSHOT_MS) snapshot();
        await pause();
        if (terminated) { if (run) { run.free(); run = null; } return; }
      }
      if (!run) return;
      snapshot();
      if (run.done) send({ type: "done", step: run.step });
      else {
        const models = run.models.map((m) => m.save().buffer); // float32: lossless
        send({ type: "paused", step: run.step, models }, models);
      }
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
          if (run || looping) throw new Error("bottleneck-session: already started; use a new session for another run");
          start(msg).catch(fail);
        } else if (msg.type === "stop") {
          stopping = true;
          if (run) { run.hold = true; run.evaluateNow(); } // the pause reports the accuracy at the step reached
        } else if (msg.type === "resume") {
          stopping = false;
          if (run) run.hold = false;
          if (run && !looping && !run.done) loop().catch(fail);
        } else {
          throw new Error(`bottleneck-session: unknown message type ${JSON.stringify(msg.type)}`);
        }
      } catch (err) {
        fail(err);
      }
    },
    terminate() {
      terminated = stopping = true;
      if (run && !looping) { run.free(); run = null; }
    },
  };
}

/** A Worker look-alike running a session on this thread, in SLICE_MS.main slices. */
export class MainThreadBottleneck extends MainThreadSession {
  constructor() { super(({ post, pause }) => bottleneckSession({ post, pause, sliceMs: SLICE_MS.main })); }
}

// ------------------------------------------------------- where the worker comes from
// setBottleneckWorker({ source, wasm }) registers the worker's code in place of bottleneck-worker.js (the
// single-file build calls it); bottleneckWorker() says where the worker comes from, { kind, name, wasm };
// startBottleneckWorker() starts it: the registered code, else the literal below, the form bundlers
// recognise (it must stay written out here). See runtime/inline-worker.js.
export const { set: setBottleneckWorker, info: bottleneckWorker, start: startBottleneckWorker } = workerSeam(
  "setBottleneckWorker", "bottleneck-worker.js", () => new Worker(new URL("./bottleneck-worker.js", import.meta.url), { type: "module" }));
