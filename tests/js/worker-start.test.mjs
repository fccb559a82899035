// worker-start.test.mjs - how a widget's run finds its thread (web/widgets/runtime/main-thread.js's
// startSession, as `make site` puts it in dist/site/) and each session module's worker seam
// (inline-worker.js's workerSeam): a worker posted its start (with the single-file bundle's bytes
// when registered), the main thread where no worker can be started or it errors before its first
// message, an error after one reported, a stale run's errors ignored. Workers here are stand-ins
// that record what they are given; the browser tests (rationale.mjs, single-file.mjs, ...) run the
// real ones.
import { test } from "node:test";
import assert from "node:assert/strict";

const SITE = new URL("../../dist/site/", import.meta.url);
const { startSession } = await import(new URL("main-thread.js", SITE));
const { workerSeam } = await import(new URL("inline-worker.js", SITE));

class FakeWorker {
  constructor(url = null) { this.url = url; this.posted = []; this.terminated = false; this.throwOnPost = false; }
  postMessage(msg) { if (this.throwOnPost) throw new Error("could not be cloned"); this.posted.push(msg); }
  terminate() { this.terminated = true; }
}
class FakeMain extends FakeWorker {}

const FILE = { kind: "file", name: "x-worker.js", wasm: undefined };
const BLOB = { kind: "blob", name: "a blob: URL", wasm: new Uint8Array([0, 97, 115, 109]) };

// A run as a widget makes it: what reached onMessage / onError / onFallback, and the options.
function run(over = {}) {
  const got = { msgs: [], errors: [], fallbacks: [], worker: null };
  const start = { type: "start", seed: 3 };
  const options = {
    startWorker: () => (got.worker = new FakeWorker()), info: () => FILE, MainThreadClass: FakeMain, start,
    onMessage: (m) => got.msgs.push(m), onFallback: (f) => got.fallbacks.push(f), current: () => true, ...over,
  };
  return { got, start, result: startSession(options) };
}
const errorEvent = (message = "boom") => {
  const e = { message, prevented: false };
  e.preventDefault = () => { e.prevented = true; };
  return e;
};

test("startSession: a worker, posted the start as it is (no registered bytes)", () => {
  const { got, start, result } = run();
  assert.equal(result.thread, "worker");
  assert.equal(result.worker, got.worker);
  assert.equal(result.why, null);
  assert.deepEqual(got.worker.posted, [start]);
  assert.equal(got.worker.posted[0].wasm, undefined);
  got.worker.onmessage({ data: { type: "started" } });
  assert.deepEqual(got.msgs, [{ type: "started" }]);
});

test("startSession: the single-file bundle's bytes go with the start (info().wasm)", () => {
  const { got, result } = run({ info: () => BLOB });
  assert.equal(result.thread, "worker");
  assert.deepEqual(got.worker.posted, [{ type: "start", seed: 3, wasm: BLOB.wasm }]);
  assert.equal(got.worker.posted[0].wasm, BLOB.wasm, "the same bytes, not a copy");
});

test("startSession: an error before the first message -> the main thread, with why; recorded in refused", () => {
  for (const [info, why] of [[FILE, "x-worker.js could not be loaded as a module worker"],
    [BLOB, "a blob: worker was refused (the page's CSP must allow worker-src blob:)"]]) {
    const refused = new Map();
    const { got, start } = run({ info: () => info, refused });
    const w = got.worker, e = errorEvent();
    w.onerror(e);
    assert.ok(e.prevented, "the error is handled (no console error for it)");
    assert.ok(w.terminated, "the worker is ended");
    assert.equal(w.onmessage, null);
    assert.equal(got.fallbacks.length, 1);
    const f = got.fallbacks[0];
    assert.equal(f.thread, "main");
    assert.ok(f.worker instanceof FakeMain);
    assert.equal(f.why, why);
    assert.deepEqual(f.worker.posted, [start], "the main thread gets the start without bytes");
    assert.equal(refused.get(info.kind), why);
    f.worker.onmessage({ data: { type: "progress" } });
    assert.deepEqual(got.msgs, [{ type: "progress" }]);
    assert.deepEqual(got.errors, []);
  }
});

test("startSession: an error after a message is reported, not retried (default: an error message)", () => {
  const { got } = run();
  got.worker.onmessage({ data: { type: "started" } });
  got.worker.onerror(errorEvent("out of memory"));
  assert.deepEqual(got.fallbacks, []);
  assert.equal(got.worker.terminated, false);
  assert.deepEqual(got.msgs, [{ type: "started" }, { type: "error", message: "out of memory" }]);
  got.worker.onerror(errorEvent(""));
  assert.deepEqual(got.msgs.at(-1), { type: "error", message: "the worker failed" });
});

test("startSession: onError and onMessageError, when given, take the worker's failures", () => {
  const errors = [], unread = [];
  const { got } = run({ onError: (e) => errors.push(e.message), onMessageError: () => unread.push(1) });
  got.worker.onmessage({ data: { type: "started" } });
  got.worker.onerror(errorEvent("lost"));
  got.worker.onmessageerror();
  assert.deepEqual(errors, ["lost"]);
  assert.deepEqual(unread, [1]);
  assert.equal(got.msgs.length, 1);
});

test("startSession: heard() decides what counts as heard from", () => {
  let status = "starting";
  const errors = [];
  const a = run({ heard: () => status !== "starting", onError: (e) => errors.push(e.message) });
  a.got.worker.onmessage({ data: { type: "snapshot" } });
  a.got.worker.onerror(errorEvent());
  assert.equal(a.got.fallbacks.length, 1, "a message that does not change the status is not heard");
  status = "stopping";
  const b = run({ heard: () => status !== "starting", onError: (e) => errors.push(e.message) });
  b.got.worker.onerror(errorEvent("gone"));
  assert.deepEqual(b.got.fallbacks, []);
  assert.deepEqual(errors, ["gone"]);
});

test("startSession: a replaced run's worker errors are ignored", () => {
  const { got } = run({ current: () => false });
  const e = errorEvent();
  got.worker.onerror(e);
  assert.ok(e.prevented);
  assert.deepEqual(got.fallbacks, []);
  assert.deepEqual(got.msgs, []);
  assert.equal(got.worker.terminated, false);
});

test("startSession: no worker at all -> the main thread at once; refused sources are not tried again", () => {
  const refused = new Map();
  let tries = 0;
  const startWorker = () => { tries++; throw new Error("Worker is not defined"); };
  const a = run({ startWorker, refused });
  assert.equal(a.result.thread, "main");
  assert.equal(a.result.why, "no Web Worker (Worker is not defined)");
  assert.deepEqual(a.result.worker.posted, [a.start]);
  assert.equal(refused.get("file"), "no Web Worker (Worker is not defined)");
  const b = run({ startWorker, refused });
  assert.equal(tries, 1, "the second run does not try the refused source");
  assert.equal(b.result.thread, "main");
  assert.equal(b.result.why, "no Web Worker (Worker is not defined)");
  const c = run({ startWorker, refused, info: () => BLOB });
  assert.equal(tries, 2, "another source is tried");
  assert.equal(c.result.thread, "main");
});

test("startSession: a start the worker cannot be sent -> that worker ended, the main thread (not recorded as refused)", () => {
  const refused = new Map();
  let w = null;
  const { result, start } = run({ refused, startWorker: () => { w = new FakeWorker(); w.throwOnPost = true; return w; } });
  assert.ok(w.terminated);
  assert.equal(result.thread, "main");
  assert.equal(result.why, "the worker could not be sent its start (could not be cloned)");
  assert.deepEqual(result.worker.posted, [start]);
  assert.equal(refused.size, 0);
});

test("workerSeam: the setter checks and names itself; start() is the file's worker, then the registered code's", () => {
  const made = [];
  const seam = workerSeam("setXWorker", "x-worker.js", () => { const w = new FakeWorker("file"); made.push(w); return w; });
  assert.deepEqual(seam.info(), { kind: "file", name: "x-worker.js", wasm: undefined });
  assert.equal(seam.start().url, "file");
  assert.throws(() => seam.set({ source: "", wasm: new Uint8Array(1) }), { name: "TypeError", message: "setXWorker: source must be a non-empty string (got string)" });
  assert.throws(() => seam.set(), { name: "TypeError", message: "setXWorker: source must be a non-empty string (got undefined)" });
  const wasm = new Uint8Array([1, 2, 3]);
  seam.set({ source: "self.onmessage = () => {};", wasm });
  assert.deepEqual(seam.info(), { kind: "blob", name: "a blob: URL", wasm });
  const saved = globalThis.Worker;
  globalThis.Worker = class extends FakeWorker { constructor(url, opts) { super(url); this.opts = opts; } };
  try {
    const w = seam.start();
    assert.match(w.url, /^blob:.*#x-worker\.js$/);
    assert.deepEqual(w.opts, { type: "module" });
  } finally {
    globalThis.Worker = saved;
  }
  assert.equal(made.length, 1, "the file's worker is not started once code is registered");
});
