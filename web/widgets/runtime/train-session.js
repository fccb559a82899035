// train-session.js - "train from scratch" of <sx-attention>, wherever it runs. A session takes
// the page's messages and posts the run's progress, snapshots and result (the protocol below);
// train-worker.js runs one in a module Web Worker, and when no worker can be started (a strict
// CSP forbids blob: workers for the single-file bundle, or train-worker.js is missing on the
// host) the widget runs one on the page's main thread through MainThreadWorker, in short slices
// that let the page draw and take input between them. The Trainer (trainer.js) slices steps and
// evaluations alike, so no slice holds more than one step or one batch of held-out rows.
//
// The page posts:
//   { type: "start", task, kind, text, options, wasm }  options: SCHEDULE overrides (trainer.js);
//                                                       wasm: the module's bytes for init({ bytes })
//                                                       (the single-file bundle; omitted: init()
//                                                       fetches the .wasm beside the library)
//   { type: "input", text }                        the input whose attention the snapshots show
//   { type: "stop" }                               finish now (the model so far is posted back)
// The session posts:
//   { type: "started", simd, params, schedule }
//   { type: "progress", step, losses, evals, ms, accuracy, evaluating }   after every slice: the
//                                  loss of each step since the last post, held-out accuracies
//                                  [{ step, accuracy, confirm }], the evaluation under way
//                                  ({ stage: "validate" | "confirm" | "test", rows, of } or null)
//   { type: "snapshot", step, view }   every ~250 ms and after an input: inspect.js's result
//   { type: "done", step, ms, accuracy, reachedAt, test, testExamples, stopped, bytes }   the
//                                  checkpoint bytes (model.save()) and the accuracy on 2000 other
//                                  held-out examples (test); the session has freed its model
//   { type: "error", message }     anything that went wrong; the session stops training
//
// The page side also chooses where the worker comes from: setTrainWorker() (the bundle) or the
// train-worker.js file beside the library (trainWorker()).
import { init, info, Model, tasks } from "../../lib/simplexity.js";
import { Trainer, Evaluation } from "./trainer.js";
import { inspect } from "./inspect.js";
import { workerSeam } from "./inline-worker.js";
import { MainThreadSession } from "./main-thread.js";

const SNAPSHOT_MS = 250, TEST_EXAMPLES = 2000;
/** Slice lengths (ms): a worker posts about 20 times a second; the main thread keeps ~ a frame. */
export const SLICE_MS = Object.freeze({ worker: 50, main: 24 });

// ------------------------------------------------------------------ the session
/**
 * A training session speaking the protocol above. post(msg, transfer) delivers a message to the
 * page; pause() resolves when the session may go on (after the page had its turn); sliceMs is
 * the work between pauses. Returns { receive(msg), terminate() }: terminate() ends the run at the
 * next pause and frees its model, posting nothing more.
 */
export function trainSession({ post, pause, sliceMs }) {
  let trainer = null, text = "", stopping = false, terminated = false, started = false, lastSnapshot = 0;

  function fail(err) {
    if (!terminated) post({ type: "error", message: err && err.message ? err.message : String(err) });
    stopping = true;
    if (trainer) { trainer.free(); trainer = null; }
  }

  function snapshot() {
    if (!trainer || !text || terminated) return;
    lastSnapshot = performance.now();
    let view;
    try {
      view = inspect(trainer.model, tasks, trainer.task, text);
    } catch (err) {
      post({ type: "snapshot", step: trainer.step, view: null, error: err.message });
      return;
    }
    post({ type: "snapshot", step: trainer.step, view }, view.maps.map((m) => m.data.buffer));
  }

  // The run is over for good (terminated): free what it holds, post nothing more.
  function ended() {
    if (!terminated) return false;
    if (trainer) { trainer.free(); trainer = null; }
    return true;
  }

  async function train(msg) {
    await (msg.wasm === undefined ? init() : init({ bytes: msg.wasm }));
    if (terminated) return;
    trainer = new Trainer({ Model, tasks }, { task: msg.task, kind: msg.kind, ...(msg.options || {}) });
    post({ type: "started", simd: info().simd, params: trainer.model.numParams, schedule: trainer.s });
    snapshot();
    while (!trainer.done && !stopping) {
      const { losses, evals } = trainer.run(sliceMs);
      post({ type: "progress", step: trainer.step, losses: Float32Array.from(losses), evals,
        ms: trainer.ms, accuracy: trainer.accuracy, evaluating: trainer.evaluating });
      if (performance.now() - lastSnapshot >= SNAPSHOT_MS) snapshot();
      await pause();
      if (ended() || !trainer) return; // terminated, or failed meanwhile
    }
    snapshot();
    // the final check on 2000 other held-out examples, sliced like the training
    const { seed } = trainer.s;
    const ev = new Evaluation(trainer.model, tasks.generate(trainer.task, { seed: 2000 + seed, count: TEST_EXAMPLES, split: "heldout" }), trainer.s.batch);
    while (!ev.run(sliceMs)) {
      post({ type: "progress", step: trainer.step, losses: new Float32Array(0), evals: [], ms: trainer.ms,
        accuracy: trainer.accuracy, evaluating: { stage: "test", rows: ev.rows, of: ev.of } });
      await pause();
      if (ended() || !trainer) return;
    }
    const bytes = trainer.model.save();
    const done = { type: "done", step: trainer.step, ms: trainer.ms, accuracy: trainer.accuracy, reachedAt: trainer.reachedAt,
      test: ev.accuracy, testExamples: TEST_EXAMPLES, stopped: stopping, bytes: bytes.buffer };
    trainer.free();
    trainer = null;
    post(done, [bytes.buffer]);
  }

  return {
    receive(data) {
      const msg = data || {};
      try {
        if (terminated) return;
        if (msg.type === "start") {
          if (started) throw new Error("train-session: already started; use a new session for another run");
          started = true;
          text = typeof msg.text === "string" ? msg.text : "";
          train(msg).catch(fail);
        } else if (msg.type === "input") {
          text = typeof msg.text === "string" ? msg.text : "";
          snapshot();
        } else if (msg.type === "stop") {
          stopping = true;
        } else {
          throw new Error(`train-session: unknown message type ${JSON.stringify(msg.type)}`);
        }
      } catch (err) {
        fail(err);
      }
    },
    terminate() {
      terminated = stopping = true;
    },
  };
}

// ------------------------------------------------------- the main-thread fallback
/** A Worker look-alike running a training session on this thread, in SLICE_MS.main slices. */
export class MainThreadWorker extends MainThreadSession {
  constructor() { super(({ post, pause }) => trainSession({ post, pause, sliceMs: SLICE_MS.main })); }
}

// ------------------------------------------------------- where the worker comes from
// setTrainWorker({ source, wasm }) registers the worker's code in place of train-worker.js (the
// single-file build calls it); trainWorker() says where the worker comes from, { kind, name, wasm };
// startTrainWorker() starts it: the registered code, else the literal below, the form bundlers
// recognise (it must stay written out here). See runtime/inline-worker.js.
export const { set: setTrainWorker, info: trainWorker, start: startTrainWorker } = workerSeam(
  "setTrainWorker", "train-worker.js", () => new Worker(new URL("./train-worker.js", import.meta.url), { type: "module" }));
