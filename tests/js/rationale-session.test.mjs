// rationale-session.test.mjs - <sx-rationale>'s training session (web/widgets/runtime/rationale-session.js,
// as `make site` puts it beside the library in dist/site/): the four methods' losses equal
// Rationale.train's of the same seed step for step (the same examples for every method), the
// last snapshot's figures and selections equal Rationale.evaluate and predict of models trained
// here, Stop pauses and Resume goes on to the same result, bad messages are reported, and
// setRationaleWorker / rationaleWorker (the single-file bundle's seam). Node has the event loop,
// MessageChannel and performance of a worker, so the same code runs here as in the page.
import { test } from "node:test";
import assert from "node:assert/strict";

const SITE = new URL("../../dist/site/", import.meta.url);
const { rationaleSession, MainThreadRationale, setRationaleWorker, rationaleWorker, heldOut, RUN } = await import(new URL("rationale-session.js", SITE));
const { init, Rationale } = await import(new URL("simplexity.js", SITE));
await init();

const turn = () => new Promise((resolve) => setImmediate(resolve));

// A session whose posts are collected; until(type) resolves with the first message of that type.
function collect(sliceMs = 3) {
  const msgs = [], waiters = [];
  const session = rationaleSession({
    post: (msg) => {
      msgs.push(msg);
      for (const w of waiters.splice(0)) if (w.type !== msg.type) waiters.push(w); else w.resolve(msg);
    },
    pause: turn,
    sliceMs,
  });
  const until = (type) => new Promise((resolve, reject) => {
    const hit = msgs.find((m) => m.type === type);
    if (hit) return resolve(hit);
    const timer = setTimeout(() => reject(new Error(`no "${type}" message (got ${msgs.map((m) => m.type).join(", ")})`)), 60000);
    waiters.push({ type, resolve: (m) => { clearTimeout(timer); resolve(m); } });
  });
  return { session, msgs, until };
}

// The four models trained here for `steps` on make rationales' schedule: losses, figures, selections.
function reference(seed, steps) {
  const held = heldOut(), shown = held.tokens.subarray(0, RUN.shown * Rationale.positions);
  return Rationale.methods.map((method) => {
    const m = new Rationale({ method, seed, maxBatch: RUN.batch, sparsity: RUN.sparsity });
    try {
      const { losses } = m.train({ steps, lr: RUN.lr, seed: RUN.taskSeed });
      return { losses: Array.from(losses), figures: m.evaluate(held), ...m.predict(shown) };
    } finally {
      m.free();
    }
  });
}

const lossesOf = (msgs) => [0, 1, 2, 3].map((i) => msgs.filter((m) => m.type === "progress").flatMap((m) => Array.from(m.losses[i])));

test("a run: started, every step's loss of the four methods, snapshots, done; equal to Rationale.train, evaluate, predict", async () => {
  const { session, msgs, until } = collect();
  session.receive({ type: "start", seed: 3, total: 60 });
  assert.equal((await until("done")).step, 60);
  assert.equal(msgs[0].type, "started");
  assert.equal(msgs[0].params.length, 4);
  const ref = reference(3, 60);
  const losses = lossesOf(msgs);
  ref.forEach((r, i) => assert.deepEqual(losses[i], r.losses, `${Rationale.methods[i]}: the session's losses are train()'s`));
  const snaps = msgs.filter((m) => m.type === "snapshot");
  assert.equal(snaps[0].step, 0, "a snapshot of the untrained models first");
  const last = snaps.at(-1);
  assert.equal(last.step, 60);
  ref.forEach((r, i) => {
    assert.deepEqual(last.figures[i], r.figures, `${Rationale.methods[i]}: figures`);
    assert.deepEqual(Array.from(last.weights[i]), Array.from(r.weights), `${Rationale.methods[i]}: selections`);
    assert.deepEqual(Array.from(last.labels[i]), Array.from(r.labels), `${Rationale.methods[i]}: labels`);
  });
  assert.equal(msgs.at(-1).type, "done");
});

test("Stop pauses at the step reached (a snapshot of it first); Resume goes on to the same losses", async () => {
  const { session, msgs, until } = collect(1);
  session.receive({ type: "start", seed: 2, total: 80 });
  await until("started");
  while (!msgs.some((m) => m.type === "progress")) await turn();
  session.receive({ type: "stop" });
  const paused = await until("paused");
  assert.ok(paused.step >= 1 && paused.step < 80, `paused at ${paused.step}`);
  const before = msgs.at(-2);
  assert.equal(before.type, "snapshot");
  assert.equal(before.step, paused.step);
  session.receive({ type: "resume" });
  assert.equal((await until("done")).step, 80);
  const ref = reference(2, 80);
  lossesOf(msgs).forEach((l, i) => assert.deepEqual(l, ref[i].losses, `${Rationale.methods[i]}: losses across the pause`));
});

test("bad messages: an error message, the run stops", async () => {
  for (const [msg, want] of [
    [{ type: "start", seed: -1, total: 10 }, /seed must be an integer in \[0, 2147483647\] \(got -1\)/],
    [{ type: "start", seed: 1, total: 0 }, /total must be an integer in \[1, 100000\] \(got 0\)/],
    [{ type: "go" }, /unknown message type "go"/],
  ]) {
    const { session, until } = collect();
    session.receive(msg);
    assert.match((await until("error")).message, want);
  }
  const { session, until } = collect();
  session.receive({ type: "start", seed: 1, total: 5 });
  session.receive({ type: "start", seed: 1, total: 5 });
  assert.match((await until("error")).message, /already started/);
});

test("terminate: nothing posted after it", async () => {
  const { session, msgs, until } = collect(1);
  session.receive({ type: "start", seed: 1, total: 5000 });
  await until("progress");
  session.terminate();
  const n = msgs.length;
  for (let i = 0; i < 10; i++) await turn();
  assert.equal(msgs.length, n);
});

test("MainThreadRationale: the Worker look-alike runs a session on this thread", async () => {
  const w = new MainThreadRationale();
  const done = new Promise((resolve) => { w.onmessage = (e) => { if (e.data.type === "done") resolve(e.data); }; });
  w.postMessage({ type: "start", seed: 1, total: 12 });
  assert.equal((await done).step, 12);
  w.terminate();
});

test("setRationaleWorker / rationaleWorker: the file, then the registered code and bytes", () => {
  assert.deepEqual(rationaleWorker(), { kind: "file", name: "rationale-worker.js", wasm: undefined });
  assert.throws(() => setRationaleWorker({ source: "", wasm: new Uint8Array(1) }), /^TypeError: setRationaleWorker: source must be a non-empty string/);
  assert.throws(() => setRationaleWorker({ source: "x", wasm: null }), /^TypeError: setRationaleWorker: wasm must be an ArrayBuffer/);
  const wasm = new Uint8Array([0, 97, 115, 109]);
  setRationaleWorker({ source: "self.onmessage = () => {};", wasm });
  const info = rationaleWorker();
  assert.equal(info.kind, "blob");
  assert.equal(info.wasm, wasm);
});
