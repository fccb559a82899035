// rationale-worker.js - <sx-rationale>'s module Web Worker: its own wasm instance and one session
// (rationale-session.js), so the page never waits on the four rationalizers' training.
import { rationaleSession, SLICE_MS } from "./rationale-session.js";

// Yield to the event loop (so "stop" gets through) without setTimeout's clamping: a message to
// ourselves is a task of its own.
const channel = new MessageChannel();
const yieldTask = () => new Promise((resolve) => {
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(0);
});

const session = rationaleSession({
  post: (msg, transfer) => self.postMessage(msg, transfer || []),
  pause: yieldTask,
  sliceMs: SLICE_MS.worker,
});
self.onmessage = (e) => session.receive(e.data);
