// explain-session.js - "Run the experiments" of <sx-explain>, wherever it runs. A session takes
// the page's messages, loads the models it is sent, runs explain.js's runExperiments over each
// (the slow part: explanations, erasures and adversarial searches on every held-out example) and
// posts the progress and the summaries. explain-worker.js runs one in a module Web Worker; when no
// worker can be started (a CSP that refuses it, the file missing where a bundler did not emit
// it) the widget runs one on the page's main thread through MainThreadExplainWorker (runExperiments
// yields to the page every four examples, so the page stays usable, if less smoothly).
//
// The page posts:
//   { type: "run", task, models: [{ kind, bytes }], count, seed, epsilon, igSteps, wasm }
//                       bytes: each model's .sxm (ArrayBuffer or Uint8Array); wasm: the module's
//                       bytes for init({ bytes }) (the single-file bundle; omitted: init() fetches
//                       the .wasm beside the library)
//   { type: "cancel" }  stop before the next example (runExperiments' AbortSignal)
// The session posts:
//   { type: "started", simd }
//   { type: "progress", kind, index, done, total }   after each example of model `index`
//   { type: "result", kind, summary }                one model's summary
//   { type: "done", summaries, cancelled }           kind -> summary (the models finished)
//   { type: "error", message }                       the session stops
//
// The page side also chooses where the worker comes from: setExplainWorker() (the bundle) or the
// explain-worker.js file beside the library (explainWorker()).
import { init, info, Model } from "../../lib/simplexity.js";
import { runExperiments } from "../../lib/explain.js";
import { workerSeam } from "./inline-worker.js";
import { MainThreadSession } from "./main-thread.js";

/**
 * An experiments session speaking the protocol above: post(msg) delivers a message to the page.
 * Returns { receive(msg), terminate() }; terminate() cancels and posts nothing more.
 */
export function explainSession({ post }) {
  let controller = null, terminated = false;
  const send = (msg) => { if (!terminated) post(msg); };

  async function run(msg) {
    await (msg.wasm === undefined ? init() : init({ bytes: msg.wasm }));
    send({ type: "started", simd: info().simd });
    const summaries = {};
    const signal = controller.signal;
    for (let i = 0; i < msg.models.length && !signal.aborted; i++) {
      const { kind, bytes } = msg.models[i];
      const model = Model.load(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
      try {
        const summary = await runExperiments(model, msg.task, {
          count: msg.count, seed: msg.seed, epsilon: msg.epsilon, igSteps: msg.igSteps, signal,
          onProgress: (done, total) => send({ type: "progress", kind, index: i, done, total }),
        });
        if (signal.aborted) break;
        summaries[kind] = summary;
        send({ type: "result", kind, summary });
      } finally {
        model.free();
      }
    }
    send({ type: "done", summaries, cancelled: signal.aborted });
  }

  return {
    receive(data) {
      const msg = data || {};
      try {
        if (terminated) return;
        if (msg.type === "run") {
          if (controller) throw new Error("explain-session: already running; use a new session for another run");
          controller = new AbortController();
          run(msg).catch((err) => send({ type: "error", message: err && err.message ? err.message : String(err) }));
        } else if (msg.type === "cancel") {
          if (controller) controller.abort();
        } else {
          throw new Error(`explain-session: unknown message type ${JSON.stringify(msg.type)}`);
        }
      } catch (err) {
        send({ type: "error", message: err.message });
      }
    },
    terminate() {
      if (controller) controller.abort();
      terminated = true;
    },
  };
}

// ------------------------------------------------------- the main-thread fallback
/**
 * A Worker look-alike (postMessage, terminate, onmessage, onerror, onmessageerror) that runs a
 * session on this thread; messages go both ways as tasks of their own, as a worker's would.
 */
export class MainThreadExplainWorker extends MainThreadSession {
  // its messages reach the page as tasks of their own (the session posts between its awaits)
  constructor() { super(({ post }) => explainSession({ post: (data) => setTimeout(() => post(data), 0) })); }
}

// ------------------------------------------------------- where the worker comes from
// setExplainWorker({ source, wasm }) registers the worker's code in place of explain-worker.js (the
// single-file build calls it); explainWorker() says where the worker comes from, { kind, name, wasm };
// startExplainWorker() starts it: the registered code, else the literal below, the form bundlers
// recognise (it must stay written out here). See runtime/inline-worker.js.
export const { set: setExplainWorker, info: explainWorker, start: startExplainWorker } = workerSeam(
  "setExplainWorker", "explain-worker.js", () => new Worker(new URL("./explain-worker.js", import.meta.url), { type: "module" }));
