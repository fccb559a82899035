// train-worker.js - the "train from scratch" module Web Worker of <sx-attention>: its own wasm
// instance (the library, imported relative to this file), one Trainer (trainer.js), and the page
// never waits on it. Started with new Worker(url, { type: "module" }).
//
// The page posts:
//   { type: "start", task, kind, text, options }  options: SCHEDULE overrides (trainer.js)
//   { type: "input", text }                        the input whose attention the snapshots show
//   { type: "stop" }                               finish now (the model so far is posted back)
// The worker posts:
//   { type: "started", simd, params, schedule }
//   { type: "progress", step, losses, evals, ms, accuracy }   about every 50 ms: the loss of each
//                                                            step since the last post, held-out
//                                                            accuracies [{ step, accuracy }]
//   { type: "snapshot", step, view }   every ~250 ms and after an input: inspect.js's result
//   { type: "done", step, ms, accuracy, reachedAt, test, stopped, bytes }   the checkpoint bytes
//                                      (model.save()) and the accuracy on 2000 other held-out
//                                      examples (test); the worker has freed its model
//   { type: "error", message }         anything that went wrong; the worker stops training
import { init, info, Model, tasks } from "./simplexity.js";
import { Trainer } from "./trainer.js";
import { inspect } from "./inspect.js";

const SLICE_MS = 50, SNAPSHOT_MS = 250, TEST_EXAMPLES = 2000;

let trainer = null, text = "", stopping = false, started = false, lastSnapshot = 0;

// Yield to the event loop (so "stop" and "input" messages get through) without setTimeout's
// clamping: a message to ourselves is a task of its own.
const channel = new MessageChannel();
const yieldTask = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

function fail(err) {
  self.postMessage({ type: "error", message: err && err.message ? err.message : String(err) });
  stopping = true;
  if (trainer) { trainer.free(); trainer = null; }
}

function snapshot() {
  if (!trainer || !text) return;
  lastSnapshot = performance.now();
  let view;
  try {
    view = inspect(trainer.model, tasks, trainer.task, text);
  } catch (err) {
    self.postMessage({ type: "snapshot", step: trainer.step, view: null, error: err.message });
    return;
  }
  self.postMessage({ type: "snapshot", step: trainer.step, view }, view.maps.map((m) => m.data.buffer));
}

async function train(msg) {
  await init();
  trainer = new Trainer({ Model, tasks }, { task: msg.task, kind: msg.kind, ...(msg.options || {}) });
  self.postMessage({ type: "started", simd: info().simd, params: trainer.model.numParams, schedule: trainer.s });
  snapshot();
  while (!trainer.done && !stopping) {
    const { losses, evals } = trainer.run(SLICE_MS);
    self.postMessage({ type: "progress", step: trainer.step, losses: Float32Array.from(losses), evals,
      ms: trainer.ms, accuracy: trainer.accuracy });
    if (performance.now() - lastSnapshot >= SNAPSHOT_MS) snapshot();
    await yieldTask();
  }
  if (!trainer) return; // failed meanwhile
  snapshot();
  const { seed } = trainer.s;
  const test = trainer.evaluate(tasks.generate(trainer.task, { seed: 2000 + seed, count: TEST_EXAMPLES, split: "heldout" }));
  const bytes = trainer.model.save();
  const done = { type: "done", step: trainer.step, ms: trainer.ms, accuracy: trainer.accuracy, reachedAt: trainer.reachedAt,
    test, testExamples: TEST_EXAMPLES, stopped: stopping, bytes: bytes.buffer };
  trainer.free();
  trainer = null;
  self.postMessage(done, [bytes.buffer]);
}

self.onmessage = (e) => {
  const msg = e.data || {};
  try {
    if (msg.type === "start") {
      if (started) throw new Error("train-worker: already started; use a new worker for another run");
      started = true;
      text = typeof msg.text === "string" ? msg.text : "";
      train(msg).catch(fail);
    } else if (msg.type === "input") {
      text = typeof msg.text === "string" ? msg.text : "";
      snapshot();
    } else if (msg.type === "stop") {
      stopping = true;
    } else {
      throw new Error(`train-worker: unknown message type ${JSON.stringify(msg.type)}`);
    }
  } catch (err) {
    fail(err);
  }
};
