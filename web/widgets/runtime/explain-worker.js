// explain-worker.js - the "Run the experiments" module Web Worker of <sx-explain>: its own wasm
// instance and one experiments session (explain-session.js: the messages both ways, over
// explain.js's runExperiments), so the page never waits on the explanations, erasures and
// adversarial searches of hundreds of examples. Started two ways:
//   - as the file beside the library: new Worker(url, { type: "module" }); init() fetches the
//     .wasm beside simplexity.js, as the page's does;
//   - from a Blob URL of its code bundled with its imports (tools/bundle.mjs, the single-file
//     build): the run message carries the wasm bytes the page already holds, for init({ bytes }).
import { explainSession } from "./explain-session.js";

const session = explainSession({ post: (msg) => self.postMessage(msg) });
self.onmessage = (e) => session.receive(e.data);
