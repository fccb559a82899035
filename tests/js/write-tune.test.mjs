// write-tune.test.mjs - <sx-write>'s fine-tuning on pasted text: the pure part
// (web/widgets/runtime/write-tune.js: the text cleaned to the model's characters, each mapped and
// dropped character counted; the held-out tail and its windows; the messages for text that cannot
// be used) and the session (write-tune-session.js, as `make site` puts it beside the library in
// dist/site/; Node has the event loop and performance of a worker): its messages in order, the
// train loss falling by a clear margin on a fixed text and seed, the held-out loss measured on
// the tail only, Stop and Resume, the weights posted back loading as a TextModel that matches
// the session's last sample, and bad input answered by an error message, never a crash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cleanText, tuneText, heldLength, heldRows, MIN_CHARS, MAX_CHARS, HELD_WINDOWS } from "../../web/widgets/runtime/write-tune.js";
import { recipe } from "./tune-corpus.mjs";

const SITE = new URL("../../dist/site/", import.meta.url);
const { tuneSession } = await import(new URL("write-tune-session.js", SITE));
const { init, TextModel } = await import(new URL("simplexity.js", SITE));
await init();
const SUMMARY = JSON.parse(readFileSync(new URL("models/text/summary.json", SITE), "utf8"));
const ENTRY = SUMMARY.find((e) => e.name === "devil-softmax");
const BYTES = readFileSync(new URL("models/text/devil-softmax.sxm", SITE));
const VOCAB = { chars: ENTRY.chars, token_offset: ENTRY.token_offset };
const turn = () => new Promise((resolve) => setImmediate(resolve));

test("cleanText: known characters kept, look-alikes mapped, the rest dropped and counted", () => {
  const r = cleanText("a\u2019b\r\nc\u00e9\u00e9\u{1F600}\td\u2014", "abcd '\n-");
  assert.equal(r.text, "a'b\nc d--");
  assert.equal(r.mapped, 3); // ’, tab, —  (the \r\n is one \n, not counted)
  assert.deepEqual(r.dropped, [["\u00e9", 2], ["\u{1F600}", 1]]);
  assert.equal(r.droppedCount, 3);
  // a look-alike whose replacement the model lacks is dropped, not mapped
  assert.deepEqual(cleanText("x\u2026", "x").dropped, [["\u2026", 1]]);
  assert.throws(() => cleanText(5, "ab"), { name: "TypeError", message: "cleanText: text must be a string (got number)" });
  assert.throws(() => cleanText("a", ""), { name: "TypeError", message: 'cleanText: chars must be a non-empty string (got "")' });
});

test("held-out tail: a tenth, at least one window, at most HELD_WINDOWS; whole windows only", () => {
  assert.equal(heldLength(300, 65), 66);
  assert.equal(heldLength(4000, 65), 400);
  assert.equal(heldLength(100000, 65), HELD_WINDOWS * 65 + 1);
  const rows = heldRows(Int32Array.from({ length: 140 }, (_, i) => i), 65);
  assert.equal(rows.length, 2);
  assert.deepEqual([rows[0][0], rows[0][64], rows[1][0], rows[1][64]], [0, 64, 65, 129]);
  assert.deepEqual(heldRows(new Int32Array(64), 65), []);
});

test("tuneText: the split, the notes, and a message for text that cannot be used", () => {
  const text = recipe(3000);
  const t = tuneText(text, ENTRY.chars, 65);
  assert.ok(t.ok);
  assert.equal(t.train + t.held, text);
  assert.equal(t.held.length, heldLength(text.length, 65));
  assert.equal(t.note, "");
  const odd = tuneText(`\u201cCaf\u00e9\u201d ${text}`, ENTRY.chars, 65);
  assert.equal(odd.note, `2 characters mapped to the model's (quotes, dashes, tabs, spaces); 1 dropped, not among the model's ${ENTRY.chars.length} characters: "\u00e9" ×1`);
  assert.equal(tuneText("", ENTRY.chars, 65).message, `the text is empty: paste at least ${MIN_CHARS}`);
  assert.equal(tuneText("short text", ENTRY.chars, 65).message, `only 10 of its characters are the model's: paste at least ${MIN_CHARS}`);
  const greek = tuneText("\u03b1\u03b2\u03b3 ".repeat(100), ENTRY.chars, 65);
  assert.equal(greek.ok, false);
  assert.match(greek.message, /^only 100 of its characters are the model's: paste at least 256 \(300 dropped, not among the model's \d+ characters: "α" ×100, "β" ×100, "γ" ×100\)$/);
  assert.equal(tuneText(null, ENTRY.chars, 65).ok, false);
  const long = tuneText("a".repeat(MAX_CHARS + 5), ENTRY.chars, 65);
  assert.equal(long.train.length + long.held.length, MAX_CHARS);
  assert.match(long.note, /only the first 200000 of 200005 characters read/);
});

// A session whose posts are collected; `until(type)` resolves at the first message of that type.
function collect() {
  const msgs = [], waiters = [];
  const session = tuneSession({
    post: (msg) => { msgs.push(msg); for (const w of waiters.splice(0)) if (w.type === msg.type) w.resolve(msg); else waiters.push(w); },
    pause: turn,
    sliceMs: 5,
  });
  const until = (type) => new Promise((resolve, reject) => {
    const hit = msgs.find((m) => m.type === type);
    if (hit) return resolve(hit);
    const timer = setTimeout(() => reject(new Error(`no "${type}" (got ${msgs.map((m) => m.type).join(", ")})`)), 60000);
    waiters.push({ type, resolve: (m) => { clearTimeout(timer); resolve(m); } });
  });
  return { session, msgs, until };
}
const start = (over) => ({ type: "start", model: new Uint8Array(BYTES), vocab: VOCAB, text: recipe(4000), steps: 60, seed: 3, lr: 1e-3, prompt: "Put the ", ...over });
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;

test("a run: the train loss falls by a clear margin, the held-out loss too, samples change, the weights come back", async () => {
  const { session, msgs, until } = collect();
  session.receive(start());
  const done = await until("done");
  const started = msgs.find((m) => m.type === "started");
  assert.deepEqual([started.train + started.held, started.held, started.windows], [recipe(4000).length, heldLength(recipe(4000).length, 65), 6]);
  const progress = msgs.filter((m) => m.type === "progress");
  const losses = progress.flatMap((m) => Array.from(m.losses)), held = progress.flatMap((m) => m.held);
  assert.equal(losses.length, 60);
  assert.equal(done.step, 60);
  assert.deepEqual(held.map((h) => h.step), [0, ...Array.from({ length: 30 }, (_, i) => 2 * (i + 1))]);
  const first = mean(losses.slice(0, 5)), last = mean(losses.slice(-5));
  assert.ok(last < 0.7 * first, `train loss ${first} -> ${last} nats/char`);
  assert.ok(held.at(-1).loss < 0.8 * held[0].loss, `held-out loss ${held[0].loss} -> ${held.at(-1).loss}`);
  const samples = progress.filter((m) => m.sample).map((m) => m.sample);
  assert.equal(samples[0].step, 0);
  assert.equal(samples.at(-1).step, 60);
  assert.notEqual(samples[0].text, samples.at(-1).text);
  // the weights posted back are the session's: the same seeded sample
  const tm = TextModel.load(new Uint8Array(done.bytes), VOCAB);
  let text = "";
  for (const s of tm.generate("Put the ", { maxChars: 80, seed: 3, attention: false })) text += s.char;
  assert.equal(text, samples.at(-1).text);
  assert.ok(Math.abs(tm.model.loss({ tgt: heldRows(tm.encode(recipe(4000).slice(-started.held)), 65) }) - held.at(-1).loss) < 1e-5);
  tm.free();
});

test("Stop pauses with the weights so far, Resume goes on to the last step", async () => {
  const { session, msgs, until } = collect();
  session.receive(start({ steps: 40 }));
  await until("started");
  session.receive({ type: "stop" });
  const paused = await until("paused");
  assert.ok(paused.step < 40 && paused.bytes.byteLength > 100000, `paused at ${paused.step}`);
  const progress = msgs.filter((m) => m.type === "progress");
  assert.equal(progress.flatMap((m) => m.held).at(-1).step, paused.step, "the held-out loss measured where it paused");
  assert.equal(progress.filter((m) => m.sample).at(-1).sample.step, paused.step, "a sample from the weights it paused with");
  const n = msgs.length;
  for (let i = 0; i < 5; i++) await turn();
  assert.equal(msgs.length, n, "nothing runs while paused");
  session.receive({ type: "resume" });
  assert.equal((await until("done")).step, 40);
  assert.equal(msgs.filter((m) => m.type === "progress").flatMap((m) => Array.from(m.losses)).length, 40);
});

test("bad input: an error message, no crash", async () => {
  for (const [over, message] of [
    [{ text: "" }, "the text is empty: paste at least 256"],
    [{ text: "\u00e9".repeat(300) }, /^only 0 of its characters are the model's: paste at least 256 \(300 dropped, .*"é" ×300\)$/],
    [{ steps: 0 }, "write-tune-session: steps must be an integer in [1, 100000] (got 0)"],
    [{ seed: -1 }, "write-tune-session: seed must be an integer in [0, 4294967295] (got -1)"],
    [{ lr: 0 }, "write-tune-session: lr must be a number in (0, 1] (got 0)"],
    [{ model: new Uint8Array(10) }, /^Model\.load/],
    [{ vocab: { chars: "", token_offset: 3 } }, /^TextModel: vocab\.chars must be a non-empty string/],
  ]) {
    const { session, until } = collect();
    session.receive(start(over));
    const e = await until("error");
    if (typeof message === "string") assert.equal(e.message, message); else assert.match(e.message, message);
  }
  const { session, until } = collect();
  session.receive({ type: "jump" });
  assert.equal((await until("error")).message, 'write-tune-session: unknown message type "jump"');
});
