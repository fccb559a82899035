// write-tune-worker.js - <sx-write>'s fine-tuning module Web Worker: its own wasm instance and one
// session (write-tune-session.js), so the page keeps writing and drawing while the model trains.
import { tuneSession, SLICE_MS } from "./write-tune-session.js";

// Yield to the event loop (so "stop" gets through) without setTimeout's clamping: a message to
// ourselves is a task of its own.
const channel = new MessageChannel();
const yieldTask = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

const session = tuneSession({
  post: (msg, transfer) => self.postMessage(msg, transfer || []),
  pause: yieldTask,
  sliceMs: SLICE_MS.worker,
});
self.onmessage = (e) => session.receive(e.data);
