// train-worker.js - the "train from scratch" module Web Worker of <sx-attention>: its own wasm
// instance and one training session (train-session.js: the messages both ways, over trainer.js
// and inspect.js), so the page never waits on it. Started two ways:
//   - as the file beside the library: new Worker(url, { type: "module" }); init() fetches the
//     .wasm beside simplexity.js, as the page's does;
//   - from a Blob URL of its code bundled with its imports (tools/bundle.mjs, the single-file
//     build, which has no file beside it): the start message carries the wasm bytes the page
//     already holds, for init({ bytes }).
import { trainSession, SLICE_MS } from "./train-session.js";

// Yield to the event loop (so "stop" and "input" messages get through) without setTimeout's
// clamping: a message to ourselves is a task of its own.
const channel = new MessageChannel();
const yieldTask = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

const session = trainSession({
  post: (msg, transfer) => self.postMessage(msg, transfer || []),
  pause: yieldTask,
  sliceMs: SLICE_MS.worker,
});
self.onmessage = (e) => session.receive(e.data);
