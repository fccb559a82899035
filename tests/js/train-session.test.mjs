// train-session.test.mjs - the training session of <sx-attention> (web/widgets/runtime/train-session.js, as
// `make site` puts it beside the library in dist/site/): its messages in order, Stop, terminate,
// errors, init from given bytes, the Worker look-alike that runs it on the main thread, and
// setTrainWorker/trainWorker (the bundle's seam). Node has the event loop, MessageChannel and
// performance of a worker, so the same code runs here as in the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

const SITE = new URL("../../dist/site/", import.meta.url);
const { trainSession, MainThreadWorker, setTrainWorker, trainWorker, SLICE_MS } = await import(new URL("train-session.js", SITE));
const { info, Model } = await import(new URL("simplexity.js", SITE));

const turn = () => new Promise((resolve) => setImmediate(resolve));

// A session whose posts are collected; resolves `until(type)` when a message of that type comes.
function collect(sliceMs = 5) {
  const msgs = [];
  const waiters = [];
  const session = trainSession({
    post: (msg) => {
      msgs.push(msg);
      for (const w of waiters.splice(0)) if (!w.test(msg)) waiters.push(w); else w.resolve(msg);
    },
    pause: turn,
    sliceMs,
  });
  const until = (type, ms = 60000) => new Promise((resolve, reject) => {
    const hit = msgs.find((m) => m.type === type);
    if (hit) return resolve(hit);
    const timer = setTimeout(() => reject(new Error(`no "${type}" message in ${ms} ms (got ${msgs.map((m) => m.type).join(", ")})`)), ms);
    waiters.push({ test: (m) => m.type === type, resolve: (m) => { clearTimeout(timer); resolve(m); } });
  });
  return { session, msgs, until };
}

const OPTIONS = { maxSteps: 40, evalEvery: 20, heldout: 64 };

// First, while nothing has initialised the library: the scalar bytes (init() alone would take
// the SIMD build in Node) decide the build of every test below.
test("start with wasm bytes: init({ bytes }), what the bundle's blob worker gets", async () => {
  assert.throws(() => info(), /not initialised yet/);
  const bytes = await readFile(new URL("simplexity.wasm", SITE));
  const { session, msgs, until } = collect();
  session.receive({ type: "start", task: "date", kind: "softmax", text: "1 Jan 2000", options: { maxSteps: 3, evalEvery: 3, heldout: 8 }, wasm: bytes });
  assert.equal((await until("done")).step, 3);
  assert.equal(msgs.find((m) => m.type === "started").simd, false, "the scalar bytes were used");
  assert.equal(info().simd, false);
});

test("a run: started, progress with every step's loss, snapshots of the input, done with a loadable checkpoint", async () => {
  const { session, msgs, until } = collect();
  session.receive({ type: "start", task: "reverse", kind: "softmax", text: "abcd", options: OPTIONS });
  const done = await until("done");
  const started = msgs.find((m) => m.type === "started");
  assert.equal(started.simd, info().simd);
  assert.equal(started.schedule.maxSteps, 40);
  assert.ok(started.params > 40000);
  const progress = msgs.filter((m) => m.type === "progress");
  const losses = progress.flatMap((m) => Array.from(m.losses));
  assert.equal(losses.length, 40, "one loss per step, each posted once");
  assert.ok(losses.every(Number.isFinite));
  assert.deepEqual(progress.flatMap((m) => m.evals).map((e) => e.step), [20, 40]);
  // the evaluations and the final test are posted as they go
  assert.ok(progress.some((m) => m.evaluating && m.evaluating.stage === "validate"), "a validation under way is reported");
  assert.ok(progress.some((m) => m.evaluating && m.evaluating.stage === "test" && m.evaluating.of === 2000), "the final test under way is reported");
  const snaps = msgs.filter((m) => m.type === "snapshot");
  assert.ok(snaps.length >= 2 && snaps.every((m) => m.view && m.view.text === "abcd" && m.view.maps.length === 6));
  assert.equal(msgs.at(-1), done, "nothing after done");
  assert.equal(done.step, 40);
  assert.equal(done.stopped, false);
  assert.equal(done.testExamples, 2000);
  assert.ok(done.test >= 0 && done.test <= 1);
  const model = Model.load(new Uint8Array(done.bytes));
  try {
    assert.equal(model.numParams, started.params);
    assert.ok(model.config.attention.every((a) => a === "softmax"), `softmax attention (got ${model.config.attention})`);
  } finally {
    model.free();
  }
});

test("input changes the snapshots' text; stop finishes with the model so far; a second start and unknown messages are errors", async () => {
  const { session, msgs, until } = collect();
  session.receive({ type: "start", task: "reverse", kind: "softmax", text: "abcd", options: { ...OPTIONS, maxSteps: 100000 } });
  await until("progress");
  session.receive({ type: "input", text: "hgf" });
  assert.equal(msgs.at(-1).type, "snapshot");
  assert.equal(msgs.at(-1).view.text, "hgf");
  session.receive({ type: "input", text: "ab!" }); // not in the alphabet: a snapshot without a view
  assert.equal(msgs.at(-1).view, null);
  assert.match(msgs.at(-1).error, /"!" is not in the reverse alphabet/);
  session.receive({ type: "stop" });
  const done = await until("done");
  assert.equal(done.stopped, true);
  assert.ok(done.step >= 1 && done.step < 100000);

  const again = collect();
  again.session.receive({ type: "start", task: "reverse", kind: "softmax", text: "ab", options: OPTIONS });
  again.session.receive({ type: "start", task: "reverse", kind: "softmax", text: "ab", options: OPTIONS });
  assert.match((await again.until("error")).message, /^train-session: already started/);
  const odd = collect();
  odd.session.receive({ type: "go" });
  assert.equal((await odd.until("error")).message, 'train-session: unknown message type "go"');
});

test("bad options and a bad task are errors posted to the page", async () => {
  const a = collect();
  a.session.receive({ type: "start", task: "reverse", kind: "softmax", text: "ab", options: { bogus: 1 } });
  assert.match((await a.until("error")).message, /^Trainer: unknown option "bogus"/);
  const b = collect();
  b.session.receive({ type: "start", task: "klingon", kind: "softmax", text: "ab" });
  assert.match((await b.until("error")).message, /klingon/);
});

test("terminate: the run ends at its next pause and posts nothing more", async () => {
  const { session, msgs, until } = collect();
  session.receive({ type: "start", task: "reverse", kind: "softmax", text: "ab", options: { ...OPTIONS, maxSteps: 100000 } });
  await until("progress");
  session.terminate();
  const n = msgs.length;
  for (let i = 0; i < 20; i++) await turn();
  assert.equal(msgs.length, n);
  session.receive({ type: "input", text: "abc" });
  assert.equal(msgs.length, n, "a terminated session ignores messages");
  // terminated before init resolved: no Trainer is made at all
  const early = collect();
  early.session.receive({ type: "start", task: "reverse", kind: "softmax", text: "ab", options: OPTIONS });
  early.session.terminate();
  for (let i = 0; i < 20; i++) await turn();
  assert.equal(early.msgs.length, 0);
});

test("MainThreadWorker: the same session behind a Worker's interface, messages as tasks of their own", async () => {
  const w = new MainThreadWorker();
  const msgs = [];
  const done = new Promise((resolve) => {
    w.onmessage = (e) => { msgs.push(e.data); if (e.data.type === "done") resolve(e.data); };
  });
  w.postMessage({ type: "start", task: "reverse", kind: "softmax", text: "abc", options: OPTIONS });
  assert.equal(msgs.length, 0, "postMessage does not run the session synchronously");
  const d = await done;
  assert.equal(d.step, 40);
  assert.deepEqual(msgs.slice(0, 1).map((m) => m.type), ["started"]);
  assert.ok(SLICE_MS.main < SLICE_MS.worker, "shorter slices on the main thread");
  // terminate mid-run: nothing more is delivered
  const t = new MainThreadWorker();
  let after = 0, progress = false;
  await new Promise((resolve) => {
    t.onmessage = (e) => {
      if (progress) after++;
      if (e.data.type === "progress" && !progress) { progress = true; t.terminate(); resolve(); }
    };
    t.postMessage({ type: "start", task: "reverse", kind: "softmax", text: "abc", options: { ...OPTIONS, maxSteps: 100000 } });
  });
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 1));
  assert.equal(after, 0);
  assert.equal(t.onmessage, null);
});

test("trainWorker: train-worker.js beside the library by default; setTrainWorker's code and bytes once set", () => {
  assert.deepEqual(trainWorker(), { kind: "file", name: "train-worker.js", wasm: undefined });
  assert.throws(() => setTrainWorker({ source: "", wasm: new Uint8Array(1) }), { name: "TypeError", message: "setTrainWorker: source must be a non-empty string (got string)" });
  assert.throws(() => setTrainWorker({ source: "x", wasm: "bytes" }), { name: "TypeError", message: "setTrainWorker: wasm must be an ArrayBuffer or a typed array (got string)" });
  assert.throws(() => setTrainWorker(), { name: "TypeError", message: "setTrainWorker: source must be a non-empty string (got undefined)" });
  const wasm = new Uint8Array([0, 97, 115, 109]);
  setTrainWorker({ source: "self.onmessage = () => {};", wasm });
  const a = trainWorker();
  assert.deepEqual(a, { kind: "blob", name: "a blob: URL", wasm });
});
