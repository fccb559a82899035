// write-tune-session.js - <sx-write>'s fine-tuning of a character model (TextModel) on the
// reader's pasted text, wherever it runs. A session takes the page's messages and posts the run's
// progress; write-tune-worker.js runs one in a module Web Worker, and where no worker can be
// started (the file missing where a bundler did not emit it, a CSP refusing the single-file
// bundle's blob: worker) the widget runs one on the page's main thread through MainThreadTune,
// in short slices. The text is
// cleaned and split by write-tune.js: the training windows (TextModel.trainStep) come from the
// text but its held-out tail, whose loss is measured apart (model.loss over its whole windows).
//
// The page posts:
//   { type: "start", model, vocab, text, steps, seed, lr, prompt, wasm }   model: the checkpoint
//                                     bytes to start from; vocab: { chars, token_offset }; lr
//                                     (default 1e-3); prompt: what the samples continue; wasm:
//                                     the module's bytes for init({ bytes }) (omitted: init()
//                                     fetches the .wasm)
//   { type: "stop" }                  pause at the next slice (the model is posted back, kept here)
//   { type: "resume" }                go on from the step reached
// The session posts (losses: the model's output loss per character, nats for a softmax output):
//   { type: "started", train, held, windows, note }   characters of each part, held-out windows,
//                                     what cleaning did (write-tune.js's note)
//   { type: "progress", step, losses, held, sample }   losses: a Float32Array, each step's since
//                                     the last post; held: [{ step, loss }] held-out losses measured
//                                     since (at step 0, every min(20, steps / 25) steps, the
//                                     last, and where it pauses); sample: { step, text } (80
//                                     characters after the prompt, seeded, from the current
//                                     weights: every ~0.6 s, the last step, a pause) or null
//   { type: "paused", step, bytes }   after a stop: the weights so far (float32 model.save())
//   { type: "done", step, bytes }     at the last step: the fine-tuned weights
//   { type: "error", message }        a bad start message or text, anything that went wrong
import { init, TextModel } from "../../lib/simplexity.js";
import { tuneText, heldRows } from "./write-tune.js";
import { workerSeam } from "./inline-worker.js";
import { MainThreadSession } from "./main-thread.js";

/** Slice lengths (ms): a worker posts about 20 times a second; the main thread keeps ~ a frame. */
export const SLICE_MS = Object.freeze({ worker: 50, main: 24 });
const SAMPLE_MS = 600, SAMPLE_CHARS = 80, BATCH = 8;

/**
 * A session speaking the protocol above: post(msg, transfer) to the page, pause() resolves when
 * the session may go on, sliceMs the work between pauses. Returns { receive(msg), terminate() }.
 */
export function tuneSession({ post, pause, sliceMs }) {
  let run = null, stopping = false, terminated = false, looping = false, started = false;
  const send = (msg, transfer) => { if (!terminated) post(msg, transfer); };
  const free = () => { if (run) { run.tm.free(); run = null; } };

  function fail(err) {
    send({ type: "error", message: err && err.message ? err.message : String(err) });
    stopping = true;
    free();
  }

  function sample() {
    run.lastSample = performance.now();
    run.sampleAt = run.step;
    let text = "";
    for (const s of run.tm.generate(run.prompt, { maxChars: SAMPLE_CHARS, seed: run.seed, attention: false })) text += s.char;
    return { step: run.step, text };
  }

  function heldLoss() {
    run.heldAt = run.step;
    return { step: run.step, loss: run.tm.model.loss({ tgt: run.rows }) };
  }

  async function start(msg) {
    const steps = Number(msg.steps), seed = Number(msg.seed), lr = msg.lr === undefined ? 1e-3 : Number(msg.lr);
    if (!Number.isInteger(steps) || steps < 1 || steps > 100000) throw new RangeError(`write-tune-session: steps must be an integer in [1, 100000] (got ${msg.steps})`);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`write-tune-session: seed must be an integer in [0, 4294967295] (got ${msg.seed})`);
    if (!(lr > 0 && lr <= 1)) throw new RangeError(`write-tune-session: lr must be a number in (0, 1] (got ${msg.lr})`);
    await (msg.wasm === undefined ? init() : init({ bytes: msg.wasm }));
    if (terminated) return;
    const tm = TextModel.load(msg.model instanceof ArrayBuffer ? new Uint8Array(msg.model) : msg.model, msg.vocab);
    const win = tm.model.config.maxLen, t = tuneText(msg.text, tm.chars, win);
    if (!t.ok) { tm.free(); throw new RangeError(t.message); }
    let prompt = typeof msg.prompt === "string" && msg.prompt ? msg.prompt : t.train.slice(0, 12);
    try { tm.encode(prompt); } catch { prompt = t.train.slice(0, 12); }
    const rows = heldRows(tm.encode(t.held), win);
    run = { tm, train: t.train, rows, prompt, steps, seed, lr, step: 0, random: TextModel.random(seed),
      evalEvery: Math.max(1, Math.min(20, Math.round(steps / 25))), lastSample: 0, heldAt: 0, sampleAt: 0 };
    send({ type: "started", train: t.train.length, held: t.held.length, windows: rows.length, note: t.note });
    send({ type: "progress", step: 0, losses: new Float32Array(0), held: [heldLoss()], sample: sample() });
    await loop();
  }

  // Steps for sliceMs, a post, a pause; until the last step or a stop.
  async function loop() {
    looping = true;
    try {
      while (run && run.step < run.steps && !stopping) {
        const t0 = performance.now(), losses = [], held = [], r = run;
        do {
          losses.push(r.tm.trainStep(r.train, { lr: r.lr, random: r.random, batch: BATCH }));
          r.step++;
          if (r.step % r.evalEvery === 0 || r.step === r.steps) held.push(heldLoss());
        } while (r.step < r.steps && performance.now() - t0 < sliceMs);
        const s = r.step === r.steps || performance.now() - r.lastSample >= SAMPLE_MS ? sample() : null;
        const l = Float32Array.from(losses);
        send({ type: "progress", step: r.step, losses: l, held, sample: s }, [l.buffer]);
        await pause();
        if (terminated) { free(); return; }
      }
      if (!run) return;
      if (run.heldAt !== run.step || run.sampleAt !== run.step) { // paused between measures: measure there
        send({ type: "progress", step: run.step, losses: new Float32Array(0), held: run.heldAt !== run.step ? [heldLoss()] : [], sample: run.sampleAt !== run.step ? sample() : null });
      }
      const bytes = run.tm.model.save(); // float32: lossless
      send({ type: run.step >= run.steps ? "done" : "paused", step: run.step, bytes: bytes.buffer }, [bytes.buffer]);
      if (run.step >= run.steps) free();
    } finally {
      looping = false;
    }
  }

  return {
    receive(data) {
      const msg = data || {};
      try {
        if (terminated) return;
        if (msg.type === "start") {
          if (started) throw new Error("write-tune-session: already started; use a new session for another run");
          started = true;
          start(msg).catch(fail);
        } else if (msg.type === "stop") {
          stopping = true;
        } else if (msg.type === "resume") {
          stopping = false;
          if (run && !looping) loop().catch(fail);
        } else {
          throw new Error(`write-tune-session: unknown message type ${JSON.stringify(msg.type)}`);
        }
      } catch (err) {
        fail(err);
      }
    },
    terminate() {
      terminated = stopping = true;
      if (!looping) free();
    },
  };
}

/** A Worker look-alike running a session on this thread, in SLICE_MS.main slices. */
export class MainThreadTune extends MainThreadSession {
  constructor() { super(({ post, pause }) => tuneSession({ post, pause, sliceMs: SLICE_MS.main })); }
}

// ------------------------------------------------------- where the worker comes from
// setTuneWorker({ source, wasm }) registers the worker's code in place of write-tune-worker.js (the
// single-file build calls it); tuneWorker() says where the worker comes from, { kind, name, wasm };
// startTuneWorker() starts it: the registered code, else the literal below, the form bundlers
// recognise (it must stay written out here). See runtime/inline-worker.js.
export const { set: setTuneWorker, info: tuneWorker, start: startTuneWorker } = workerSeam(
  "setTuneWorker", "write-tune-worker.js", () => new Worker(new URL("./write-tune-worker.js", import.meta.url), { type: "module" }));
