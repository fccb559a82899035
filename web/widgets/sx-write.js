// <sx-write>: a character language model writes. Type a prompt, pick one of the three shipped
// decoder-only models (softmax attention and outputs; 1.5-entmax attention; learned-alpha
// attention with 1.5-entmax outputs), press Start: it continues the prompt a character at a time
// over its KV cache (TextModel.generate), sampling with the chosen temperature, top-k and top-p
// from a seeded source. Drawn as it writes: the next character's distribution over the 96
// characters (a dot whose area is the probability for every p > 0, an empty cell for an exact
// zero), and the attention row of every layer and head over the context. For the sparse-output
// model, when stopped: every word it could write next, the complete list of continuations of the
// current word with nonzero probability (runtime/words.js), or a message past `cap`.
// "Fine-tune on your text" (a disclosure): the reader pastes text and the model being written with
// trains on it in a Web Worker (runtime/write-tune-session.js; the main thread, in slices, where
// no worker starts), its last tenth held out: the train and held-out loss per character (bits for
// a softmax output) and a seeded sample from the current weights as it trains; paused or done, the
// widget writes with the fine-tuned model; Keep stores it in this browser (runtime/model-store.js)
// and the model menu lists what was kept; "Reset to shipped" goes back.
//   <sx-write model="entmax15-out" prompt="LOVE, n. " seed="1" steps="40"></sx-write>
// Attributes: prompt, model (softmax, entmax15, entmax15-out), steps (characters written: a link
// restores the same text), seed, temperature, top-k, top-p, speed (characters per second), cap,
// theme. Read-only: result ({ text, written, probs, attention, context, words } as drawn, or null).
// Keyboard: Tab reaches every control; Start/Stop and Step are buttons.
// Event: sx-write-change { prompt, model, steps, seed, temperature, topK, topP }; sx-write-tune
// { state, step, steps, loss, held, thread, key } as the fine-tuning goes (loss, held: the last
// train and held-out losses per character, the model's output loss; state: training, stopping,
// paused, done, error, or kept: then key is the store's key and thread null).
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt } from "./base.js";
import { TextModel } from "../lib/simplexity.js";
import { fetchCheckpoint, textCheckpointUrl, textSummaryUrl, TEXT_KINDS } from "./runtime/checkpoints.js";
import { textModelDist, wordContinuations } from "./runtime/words.js";
import { listTextModels, putModel, deleteModel } from "./runtime/model-store.js";

const LABEL = { softmax: "softmax", entmax15: "1.5-entmax attention", "entmax15-out": "1.5-entmax output" };
const GLYPH = { " ": "␣", "\n": "↵" };
const glyph = (c) => GLYPH[c] ?? c;
const prob = (p) => (p === 0 ? "0" : p >= 0.001 ? p.toFixed(3) : p.toExponential(1));
/** True for a model whose next-character distribution has exact zeros (the word list's models). */
const sparseOutput = (kind) => /-out$/.test(kind);

/** The word list's headline: the complete list, or past the cap what the best-first search found. */
function wordsHeadline(r, word, cap) {
  const after = word ? ` (after “${word}”)` : "";
  const mass = r.words.reduce((a, w) => a + w.p, 0), n = r.words.length, ns = n === 1 ? "" : "s";
  const depth = r.unfinished ? `, and ${r.unfinished} still open after 24 characters, not listed` : "";
  if (!r.overflow) return `Every word it could write next${after}: ${n} continuation${ns} with p > 0, total ${prob(mass)}${depth}; every other has probability exactly 0.`;
  return `Every word it could write next${after}: more than ${cap} continuations have p > 0 here. ` +
    `The ${n} word${ns} found first (the likeliest prefixes are searched first) hold ${prob(mass)}` +
    `${r.sure ? `; the first ${r.sure} (in bold) are surely the most probable of all` : ""}; ` +
    `${r.open} unfinished prefixes hold the other ${prob(r.openMass)}${depth} (raise cap, up to 5000, to search further).`;
}

/** The fine-tuning learning rates offered (Adam's step size; 1e-3 the default). */
const TUNE_LRS = Object.freeze([1e-4, 3e-4, 1e-3, 3e-3, 1e-2]);

const COLS = 24, CELL = 22, AW = 9, AH = 14, AL = 44, WORDS_SHOWN = 60;
const CW = 540, CH = 150, CL = 34, CB = 22; // the fine-tuning curve
// The fine-tuning's modules, import()ed at the first Start (few readers fine-tune; the page's
// load does not carry them): { tuneText, MainThreadTune, startTuneWorker, tuneWorker, startSession, lossCurve }.
let tuning = null;
const tuneModules = () => (tuning ??= Promise.all([import("./runtime/write-tune.js"), import("./runtime/write-tune-session.js"),
  import("./runtime/main-thread.js"), import("./viz/loss-curve.js")]).then((ms) => Object.assign({}, ...ms), (err) => { tuning = null; throw err; }));

const CSS = sheet(`
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 8px; }
.row label { display: inline-flex; gap: 6.4px; align-items: center; max-width: 100%; }
.row select, .row input { min-width: 0; max-width: 100%; }
input[type="text"], input[type="number"], select { font: 14px/1.3 ui-monospace, Menlo, Consolas, monospace; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_grid); border-radius: 6px; padding: 2.4px 6.4px; }
input[type="text"] { width: 160px; }
input[type="number"] { width: 72px; }
input[aria-invalid="true"] { border-color: var(--_accent); }
input:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.sliders { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 4px 16px; max-width: 760px; margin: 0 0 8px; }
.out { font: 15px/1.45 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere;
  border: 1px solid var(--_grid); border-radius: 6px; padding: 6.4px 9.6px; margin: 0 0 8px; min-height: 3em; }
.out .written { color: var(--_accent); }
.views { display: flex; flex-wrap: wrap; gap: 9.6px 19.2px; align-items: flex-start; }
.views > svg { flex: 1 1 340px; min-width: 0; max-width: 760px; }
.read { margin: 4.8px 0; font-size: 13px; font-variant-numeric: tabular-nums; }
.invalid { color: var(--_accent); font-size: 13px; font-weight: 600; }
.invalid:empty { display: none; }
ol.words li.sure { font-weight: 600; }
ol.words { columns: 3 140px; margin: 4px 0; padding-left: 2.4em; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
svg .tok { font-family: ui-monospace, Menlo, Consolas, monospace; }
svg .bg { fill: var(--_panel); }
svg .nz { fill: var(--_sparsemax); }
svg .pick { fill: none; stroke: var(--_fg); stroke-width: 1.5; }
svg .att { fill: var(--_softmax); }
svg .att0 { fill: none; stroke: var(--_grid); stroke-width: 0.5; }
details.tune { margin: 8px 0 0; }
summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
textarea { box-sizing: border-box; width: 100%; max-width: 760px; font: 13px/1.35 ui-monospace, Menlo, Consolas, monospace; color: var(--_fg);
  background: var(--_bg); border: 1px solid var(--_grid); border-radius: 6px; padding: 4px 6.4px; }
.area { display: grid; gap: 4px; margin: 6px 0 8px; }
progress { width: 100%; max-width: 760px; }
svg .tr { fill: none; stroke: var(--_softmax); stroke-width: 1; opacity: 0.45; }
svg .trs { fill: none; stroke: var(--_softmax); stroke-width: 2; }
svg .ho { fill: none; stroke: var(--_sparsemax); stroke-width: 2; }
svg .hod { fill: var(--_sparsemax); }
svg .axis { stroke: var(--_grid); stroke-width: 0.5; }
`);

export class SxWrite extends SxElement {
  static fitText = true;
  static spec = {
    model: { type: "enum", default: "entmax15-out", values: TEXT_KINDS },
    steps: { type: "number", default: 0, min: 0, max: 2000, integer: true },
    seed: { type: "number", default: 1, min: 0, max: 4294967295, integer: true },
    temperature: { type: "number", default: 1, min: 0.1, max: 3 },
    "top-k": { type: "number", default: 0, min: 0, max: 96, integer: true },
    "top-p": { type: "number", default: 1, min: 0.05, max: 1 },
    speed: { type: "number", default: 12, min: 1, max: 60 },
    cap: { type: "number", default: 1000, min: 1, max: 5000, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static get observedAttributes() { return [...Object.keys(this.spec), "prompt"]; }

  constructor() {
    super();
    this._models = new Map(); // kind -> { writer, lister } (two TextModels: the writer's cache stays its own)
    this._pending = null;
    this._failed = null;
    this._run = null;         // { key, gen, steps: [yielded], peek }
    this._timer = 0;
    this._words = null;       // { key, r }
    this._own = null;         // the reader's model written with: an entry of _mine, or null (the shipped one)
    this._mine = [];          // fine-tuned models: { id, key (null until kept), kind, vocab, bytes, name, steps, loss, held }
    this._ids = 0;
    this._tune = null;        // the fine-tuning run: { worker, thread, state, step, steps, losses, held, sample, bits, rec }
  }

  get prompt() { return this.getAttribute("prompt") ?? "LOVE, n. "; }
  set prompt(v) { if (v == null) this.removeAttribute("prompt"); else this.setAttribute("prompt", String(v)); }
  get running() { return this._timer !== 0; }
  /** What the widget drew last, or null before the model loads. */
  get result() { return this._result ?? null; }
  /** The fine-tuning run (copies), or null before the first: { state, step, steps, lr, thread, losses,
   *  held: [{ step, loss }], sample: { step, text } | null, note }. */
  get tuning() {
    const t = this._tune;
    return t && { state: t.state, step: t.step, steps: t.steps, lr: t.lr, thread: t.thread, losses: t.losses.slice(),
      held: t.held.map((h) => ({ ...h })), sample: t.sample && { ...t.sample }, note: t.note };
  }

  connectedCallback() {
    super.connectedCallback();
    if (this._seen || this._io) return;
    if (typeof IntersectionObserver !== "function") { this._seen = true; return; }
    this._io = new IntersectionObserver((entries) => { // the model is fetched once near the viewport
      if (!entries.some((e) => e.isIntersecting)) return;
      this._seen = true;
      this._io.disconnect();
      this._io = null;
      this.invalidate();
    }, { rootMargin: "200px" });
    this._io.observe(this);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.stop();
    this._io?.disconnect();
    this._io = null;
    this._stopTune();
    this._tune = null; // its weights, when paused or done, stay in the menu
    for (const m of this._models.values()) { m.writer.free(); m.lister.free(); }
    this._models.clear();
    this._run = this._words = this._pending = null;
  }

  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    const l = htmlEl("label", {}, row);
    htmlEl("span", { text: "prompt" }, l);
    this._text = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", "aria-describedby": "prompt-msg" }, l);
    const ml = htmlEl("label", {}, row);
    htmlEl("span", { text: "model" }, ml);
    this._sel = htmlEl("select", {}, ml);
    for (const k of TEXT_KINDS) htmlEl("option", { value: k, text: LABEL[k] }, this._sel);
    this._go = htmlEl("button", { type: "button", text: "Start" }, row);
    this._one = htmlEl("button", { type: "button", text: "Step" }, row);
    this._reset = htmlEl("button", { type: "button", text: "Reset" }, row);
    const sl = htmlEl("label", {}, row);
    htmlEl("span", { text: "seed" }, sl);
    this._seed = htmlEl("input", { type: "number", min: 0, max: 4294967295, step: 1 }, sl);
    this._msgText = htmlEl("span", { class: "invalid", id: "prompt-msg", role: "status" }, row);
    const sliders = htmlEl("div", { class: "sliders", part: "controls" }, body);
    this._temp = rangeControl(sliders, { label: "temperature", min: 0.1, max: 3, step: 0.05, value: 1, format: (v) => fmt(v) });
    this._topk = rangeControl(sliders, { label: "top-k", min: 0, max: 96, step: 1, value: 0, format: (v) => (v === 0 ? "all" : String(v)) });
    this._topp = rangeControl(sliders, { label: "top-p", min: 0.05, max: 1, step: 0.05, value: 1, format: (v) => fmt(v) });
    this._speed = rangeControl(sliders, { label: "characters / s", min: 1, max: 60, step: 1, value: 12, format: (v) => String(v) });
    this._out = htmlEl("p", { class: "out", part: "output", "aria-live": "off" }, body);
    this._read = htmlEl("p", { class: "read", "aria-live": "polite" }, body);
    const v = htmlEl("div", { class: "views" }, body);
    // labelled from the start: a reader (or axe) may reach them before the model has loaded
    this._dist = svgEl("svg", { class: "picture dist", viewBox: "0 0 540 120", role: "img",
      "aria-label": "the next character's distribution, drawn once the model has loaded" }, v);
    this._att = svgEl("svg", { class: "picture att", viewBox: "0 0 540 120", role: "img",
      "aria-label": "the attention over the context, drawn once the model has loaded" }, v);
    this._wordHead = htmlEl("p", { class: "read", part: "words" }, body);
    this._wordList = htmlEl("ol", { class: "words", part: "words" }, body);
    this._buildTune(body);

    this._text.addEventListener("input", () => this._user({ prompt: this._text.value, steps: 0 }));
    this._sel.addEventListener("change", () => {
      const v = this._sel.value;
      this._own = this._mine.find((r) => `own:${r.id}` === v) || null;
      this._user(this._own ? { steps: 0 } : { model: v, steps: 0 });
    });
    this._seed.addEventListener("change", () => { const s = Number(this._seed.value); if (Number.isInteger(s) && s >= 0) this._user({ seed: s, steps: 0 }); });
    this._temp.input.addEventListener("input", () => this._user({ temperature: Number(this._temp.input.value), steps: 0 }));
    this._topk.input.addEventListener("input", () => this._user({ "top-k": Number(this._topk.input.value), steps: 0 }));
    this._topp.input.addEventListener("input", () => this._user({ "top-p": Number(this._topp.input.value), steps: 0 }));
    this._speed.input.addEventListener("input", () => { this.speed = Number(this._speed.input.value); if (this.running) { this.stop(); this.start(); } });
    this._go.addEventListener("click", () => (this.running ? this.stop() : this.start()));
    this._one.addEventListener("click", () => { this.stop(); this._user({ steps: this.steps + 1 }); });
    this._reset.addEventListener("click", () => { this.stop(); this._user({ steps: 0 }); });
  }

  /** Write on, speed characters a second, until stop() (or 2000 characters). */
  start() {
    if (this._timer) return;
    this._timer = setInterval(() => {
      if (!this._run || this.steps >= 2000) { if (this.steps >= 2000) this.stop(); return; }
      this._user({ steps: this.steps + 1 });
    }, 1000 / this.speed);
    this._go.textContent = "Stop";
    this.invalidate();
  }

  stop() {
    if (!this._timer) return;
    clearInterval(this._timer);
    this._timer = 0;
    if (this._go) this._go.textContent = "Start";
    this.invalidate();
  }

  _user(change) {
    for (const k in change) {
      if (k === "prompt") this.prompt = change[k];
      else this.setAttribute(k, String(change[k]));
    }
    this.renderNow();
    this.emit("change", { prompt: this.prompt, model: this.model, steps: this.steps, seed: this.seed,
      temperature: this.temperature, topK: this.topK, topP: this.topP });
  }

  settings() {
    const r = super.settings(), { s } = r;
    s.prompt = this.prompt;
    s.promptError = "";
    if (s.prompt.length === 0 || !/^[\n -~]+$/.test(s.prompt)) {
      const bad = s.prompt.length === 0 ? "is empty" : `has ${JSON.stringify([...s.prompt].find((c) => !/[\n -~]/.test(c)))}, not among the model's characters`;
      s.promptError = `the prompt ${bad}; writing after "LOVE, n. "`;
      s.prompt = "LOVE, n. ";
    }
    if (this._failed) r.errors.push(this._failed.message);
    return r;
  }

  /** Fetch the summary (the vocabulary) and the checkpoint of `kind`; two TextModels from it. */
  _load(kind) {
    const key = textCheckpointUrl(kind).href;
    if (this._pending === key || (this._failed && this._failed.key === key)) return;
    this._pending = key;
    Promise.all([fetchCheckpoint(textSummaryUrl().href), fetchCheckpoint(key)]).then(([sum, bytes]) => {
      if (this._pending !== key) return;
      this._pending = null;
      try {
        const entry = JSON.parse(new TextDecoder().decode(sum)).find((e) => e.name === `devil-${kind}`);
        if (!entry) throw new Error(`summary.json has no devil-${kind}`);
        const writer = TextModel.load(bytes, entry), lister = TextModel.load(bytes, entry);
        this._models.set(kind, { writer, lister });
      } catch (err) {
        this._failed = { key, message: `the model devil-${kind} could not be loaded: ${err.message}` };
      }
      this.invalidate();
    }, (err) => {
      if (this._pending !== key) return;
      this._pending = null;
      this._failed = { key, message: `could not fetch the model devil-${kind}: ${err.message}` };
      this.invalidate();
    });
  }

  render(s) {
    if (this.shadowRoot.activeElement !== this._text) this._text.value = this.getAttribute("prompt") ?? s.prompt;
    this._text.setAttribute("aria-invalid", String(Boolean(s.promptError)));
    this._msgText.textContent = s.promptError;
    this._prompt = s.prompt;
    if (this._seen && !this._listed) this._listKept();
    const own = this._own, mkey = own ? `own:${own.id}` : s.model;
    s.kind = own ? own.kind : s.model;
    s.mkey = mkey;
    this._sel.value = mkey;
    if (this.shadowRoot.activeElement !== this._seed) this._seed.value = String(s.seed);
    this._temp.set(s.temperature);
    this._topk.set(s["top-k"]);
    this._topp.set(s["top-p"]);
    this._speed.set(s.speed);
    this._drawTune();
    const m = this._models.get(mkey) || (own && this._loadOwn(own));
    if (!m) {
      if (this._seen) this._load(s.model);
      this._read.textContent = this._failed ? "" : this._seen ? "Loading the model…" : "The model loads when this comes into view.";
      return;
    }
    const st = this._advance(s, m.writer);
    const peek = st.peek;
    const written = st.steps.map((x) => x.char).join("");
    this._out.replaceChildren();
    htmlEl("span", { class: "prompt", text: s.prompt }, this._out);
    htmlEl("span", { class: "written", text: written }, this._out);
    this._drawDist(peek, m.writer, s.kind);
    this._drawAttention(peek, m.writer);
    const words = this._listWords(s, m, peek);
    this._read.textContent = this._readOut(peek, m.writer, written.length);
    const model = own ? { kind: own.kind, shipped: false, name: own.name, key: own.key, steps: own.steps, lr: own.lr ?? null }
      : { kind: s.kind, shipped: true, name: `devil-${s.kind}`, key: null, steps: null, lr: null };
    this._result = { text: s.prompt + written, written, probs: peek.probs, attention: peek.attention, context: peek.context, next: peek.char, words, model };
  }

  /** The run for these settings, advanced to s.steps characters (restarted when they changed). */
  _advance(s, tm) {
    const key = [s.mkey, s.prompt, s.seed, s.temperature, s["top-k"], s["top-p"]].join("|");
    if (!this._run || this._run.key !== key || this._run.steps.length > s.steps || this._run.tm !== tm) {
      const gen = tm.generate(s.prompt, { maxChars: 2001, seed: s.seed, temperature: s.temperature, topK: s["top-k"], topP: s["top-p"] });
      this._run = { key, tm, gen, steps: [], peek: gen.next().value };
    }
    const r = this._run;
    while (r.steps.length < s.steps) {
      r.steps.push(r.peek);
      r.peek = r.gen.next().value;
    }
    return r;
  }

  // The next character's distribution: 96 cells (COLS a row), a dot of area p, empty for p = 0.
  _drawDist(peek, tm, kind) {
    const svg = this._dist, chars = tm.chars, off = tm.tokenOffset, rows = Math.ceil(chars.length / COLS);
    const W = COLS * CELL, H = rows * (CELL + 12) + 20;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.replaceChildren();
    let zeros = 0;
    for (let i = 0; i < chars.length; i++) {
      const v = off + i, p = peek.probs[v], x = (i % COLS) * CELL, y = 16 + Math.floor(i / COLS) * (CELL + 12);
      const g = svgEl("g", { class: "cell", "data-t": v, "data-p": p }, svg);
      svgEl("rect", { class: "bg", x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2 }, g);
      if (v === peek.token) svgEl("rect", { class: "pick", x: x + 1.5, y: y + 1.5, width: CELL - 3, height: CELL - 3 }, g);
      if (p > 0) svgEl("circle", { class: "nz", cx: x + CELL / 2, cy: y + CELL / 2, r: Math.max(1.2, 10 * Math.sqrt(p)) }, g);
      else zeros++;
      svgEl("text", { class: "tok muted", x: x + CELL / 2, y: y + CELL + 9, "text-anchor": "middle", "font-size": 9 }, g).textContent = glyph(chars[i]);
    }
    svgEl("text", { class: "muted", x: 0, y: 11, "font-size": 11 }, svg).textContent =
      `next: ${sparseOutput(kind) ? `${zeros} of ${chars.length} exactly 0` : "every p > 0"}`;
    svg.setAttribute("aria-label", `the next character's distribution: ${chars.length - zeros} characters with p > 0, ${zeros} exactly 0`);
  }

  // Every layer's and head's attention row over the context: a cell per character, its opacity
  // the weight; an outlined empty cell for a weight of exactly 0.
  _drawAttention(peek, tm) {
    const svg = this._att, ctx = peek.context, att = peek.attention, L = att.length, Hh = att[0].length;
    const W = AL + ctx.length * AW + 4, H = 26 + L * Hh * AH;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.replaceChildren();
    svgEl("text", { class: "muted", x: 0, y: 10, "font-size": 11 }, svg).textContent = "attention per head";
    for (let j = 0; j < ctx.length; j++) {
      svgEl("text", { class: "tok muted", x: AL + j * AW + AW / 2, y: 22, "text-anchor": "middle", "font-size": 8 }, svg).textContent = glyph(ctx[j]);
    }
    let zeros = 0, n = 0;
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < Hh; h++) {
        const y = 26 + (l * Hh + h) * AH, row = att[l][h];
        svgEl("text", { class: "muted", x: 0, y: y + AH - 4, "font-size": 9 }, svg).textContent = `L${l + 1} H${h + 1}`;
        const g = svgEl("g", { class: "head", "data-layer": l, "data-head": h }, svg);
        for (let j = 0; j < row.length; j++, n++) {
          const w = row[j];
          if (w > 0) svgEl("rect", { class: "att", x: AL + j * AW, y: y + 1, width: AW - 1, height: AH - 2, "fill-opacity": Math.max(0.06, Math.sqrt(w)), "data-w": w }, g);
          else { zeros++; svgEl("rect", { class: "att0", x: AL + j * AW + 0.5, y: y + 1.5, width: AW - 2, height: AH - 3, "data-w": 0 }, g); }
        }
      }
    }
    svg.setAttribute("aria-label", `attention of ${L} layers × ${Hh} heads over ${ctx.length} context characters: ${zeros} of ${n} weights exactly 0`);
  }

  // The sparse-output model, stopped: every word it could write next (runtime/words.js).
  _listWords(s, m, peek) {
    this._wordList.replaceChildren();
    if (!sparseOutput(s.kind)) {
      this._wordHead.textContent = "Every word it could write next: with a softmax output every character has p > 0, so every string of characters is possible; pick a sparse-output model for the list.";
      return null;
    }
    if (this.running) {
      this._wordHead.textContent = "Every word it could write next: listed when it stops.";
      return null;
    }
    const key = `${this._run.key}|${this._run.steps.length}|${s.cap}`;
    if (!this._words || this._words.key !== key) {
      const tm = m.lister, maxLen = tm.model.config.maxLen;
      const dist = textModelDist(tm);
      this._words = { key, r: wordContinuations(peek.context, { dist, chars: tm.chars, offset: tm.tokenOffset, maxLen, cap: s.cap }) };
    }
    const r = this._words.r, word = peek.context.match(/[A-Za-z0-9']*$/)[0];
    this._wordHead.textContent = wordsHeadline(r, word, s.cap);
    r.words.slice(0, WORDS_SHOWN).forEach((w, k) => {
      const sure = r.overflow && k < r.sure;
      htmlEl("li", { "data-word": w.word, "data-p": w.p, class: sure ? "sure" : "", text: `${word}${w.word.replace(/\n/g, "↵")}  ${prob(w.p)}` }, this._wordList);
    });
    if (r.words.length > WORDS_SHOWN) htmlEl("li", { class: "muted", text: `and ${r.words.length - WORDS_SHOWN} more` }, this._wordList);
    return r;
  }

  // ------------------------------------------------------------- fine-tuning on the reader's text
  _buildTune(body) {
    const d = htmlEl("details", { class: "tune", part: "tune" }, body);
    htmlEl("summary", { text: "Fine-tune on your text" }, d);
    const a = htmlEl("label", { class: "area" }, d);
    htmlEl("span", { text: "Your text (a few KB; its last tenth is held out, never trained on)" }, a);
    this._paste = htmlEl("textarea", { rows: 5, spellcheck: "false", "aria-describedby": "tune-msg" }, a);
    const row = htmlEl("div", { class: "row" }, d);
    const num = (label, value, min, max) => {
      const l = htmlEl("label", {}, row);
      htmlEl("span", { text: label }, l);
      const i = htmlEl("input", { type: "number", min, max, step: 1 }, l);
      i.value = String(value);
      return i;
    };
    this._tSteps = num("training steps", 200, 1, 5000);
    this._tSeed = num("training seed", 1, 0, 4294967295);
    const lrl = htmlEl("label", {}, row);
    htmlEl("span", { text: "learning rate" }, lrl);
    this._tLr = htmlEl("select", {}, lrl);
    for (const v of TUNE_LRS) htmlEl("option", { value: v, text: String(v) }, this._tLr);
    this._tLr.value = "0.001";
    this._tGo = htmlEl("button", { type: "button", text: "Start" }, row);
    this._keep = htmlEl("button", { type: "button", text: "Keep" }, row);
    this._forget = htmlEl("button", { type: "button", text: "Forget" }, row);
    this._back = htmlEl("button", { type: "button", text: "Reset to shipped" }, row);
    this._tMsg = htmlEl("span", { class: "invalid", id: "tune-msg", role: "status" }, row);
    this._bar = htmlEl("progress", { max: 1, value: 0, "aria-label": "fine-tuning steps done" }, d);
    this._tRead = htmlEl("p", { class: "read", "aria-live": "polite" }, d);
    this._curve = svgEl("svg", { class: "picture curve", viewBox: `0 0 ${CW} ${CH}`, role: "img", "aria-label": "the fine-tuning loss: no steps yet" }, d);
    this._sample = htmlEl("p", { class: "out sample", part: "sample" }, d);
    this._paste.addEventListener("input", () => {
      this._paste.removeAttribute("aria-invalid");
      this._tMsg.textContent = "";
      if (this._tune && this._tune.state !== "training" && this._tune.state !== "stopping") { this._stopTune(); this._tune = null; this._drawTune(); }
    });
    this._tGo.addEventListener("click", () => {
      const t = this._tune;
      if (t && t.state === "training") { t.worker.postMessage({ type: "stop" }); this._tuneState(t, "stopping"); }
      else if (t && t.state === "paused") { t.worker.postMessage({ type: "resume" }); this._tuneState(t, "training"); }
      else if (!t || t.state !== "stopping") this.tune();
    });
    this._keep.addEventListener("click", () => this._keepOwn());
    this._forget.addEventListener("click", () => this._forgetOwn());
    this._back.addEventListener("click", () => { this._own = null; this._user({ steps: 0 }); });
  }

  /** Fine-tune the model written with on the textarea's text (a run under way is dropped):
   *  resolves true once started, false (with a message) when it cannot. */
  tune() {
    return tuneModules().then((m) => this._tuneWith(m), (err) => {
      this._tMsg.textContent = `the fine-tuning code could not be loaded (${err.message})`;
      return false;
    });
  }

  _tuneWith({ tuneText, MainThreadTune, startTuneWorker, tuneWorker, startSession, lossCurve }) {
    this._lossCurve = lossCurve;
    const base = this._models.get(this._own ? `own:${this._own.id}` : this.model);
    const say = (m) => { this._tMsg.textContent = m; return false; };
    if (!base) return say("the model has not loaded yet");
    const steps = Number(this._tSteps.value), seed = Number(this._tSeed.value), lr = Number(this._tLr.value);
    if (!Number.isInteger(steps) || steps < 1 || steps > 5000) return say(`steps must be a whole number from 1 to 5000 (got ${JSON.stringify(this._tSteps.value)})`);
    if (!Number.isInteger(seed) || seed < 0 || seed > 4294967295) return say(`seed must be a whole number from 0 to 4294967295 (got ${JSON.stringify(this._tSeed.value)})`);
    if (!TUNE_LRS.includes(lr)) return say(`learning rate must be one of ${TUNE_LRS.join(", ")} (got ${JSON.stringify(this._tLr.value)})`);
    const tm = base.writer, vocab = { chars: tm.chars, token_offset: tm.tokenOffset };
    const t = tuneText(this._paste.value, vocab.chars, tm.model.config.maxLen);
    this._paste.setAttribute("aria-invalid", String(!t.ok));
    if (!t.ok) return say(t.message);
    say("");
    this._stopTune();
    const kind = this._own ? this._own.kind : this.model;
    const run = this._tune = { worker: null, thread: "worker", state: "training", step: 0, steps, losses: [], held: [], sample: null,
      bits: tm.model.config.output === "softmax", kind, vocab, lr, note: t.note, rec: null };
    const start = { type: "start", model: tm.model.save().buffer, vocab, text: this._paste.value, steps, seed, lr, prompt: this._prompt };
    const w = startSession({ startWorker: startTuneWorker, info: tuneWorker, MainThreadClass: MainThreadTune, start,
      onMessage: (msg) => this._onTune(run, msg), current: () => this._tune === run,
      onFallback: (f) => { Object.assign(run, { worker: f.worker, thread: f.thread }); this._tuneState(run, "training"); } });
    Object.assign(run, { worker: w.worker, thread: w.thread });
    this._tuneState(run, "training");
    return true;
  }

  _stopTune() {
    if (this._tune && this._tune.worker) { this._tune.worker.terminate(); this._tune.worker = null; }
  }

  _tuneState(run, state) {
    run.state = state;
    const h = run.held.at(-1);
    this.emit("tune", { state, step: run.step, steps: run.steps, loss: run.losses.at(-1) ?? null, held: h ? h.loss : null, thread: run.thread, key: null });
    this._drawTune();
  }

  _onTune(run, msg) {
    if (this._tune !== run) return;
    if (msg.type === "progress") {
      run.step = msg.step;
      run.losses.push(...msg.losses);
      run.held.push(...msg.held);
      if (msg.sample) run.sample = msg.sample;
      this._tuneState(run, run.state);
    } else if (msg.type === "paused" || msg.type === "done") {
      run.step = msg.step;
      if (msg.type === "done") this._stopTune();
      this._adopt(run, new Uint8Array(msg.bytes));
      this._tuneState(run, msg.type);
    } else if (msg.type === "error") {
      this._stopTune();
      this._tMsg.textContent = msg.message;
      this._tuneState(run, "error");
    }
  }

  // The weights of a paused or finished run become the model written with (replacing the run's
  // earlier ones while they are not kept).
  _adopt(run, bytes) {
    if (run.rec && !run.rec.key) this._drop(run.rec);
    const mean = (a) => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
    const rec = run.rec = { id: ++this._ids, key: null, kind: run.kind, vocab: run.vocab, bytes, steps: run.step, lr: run.lr,
      loss: mean(run.losses.slice(-10)), held: run.held.at(-1)?.loss ?? null, name: `fine-tuned ${LABEL[run.kind]}, ${run.step} steps` };
    this._mine.push(rec);
    this._own = rec;
    this._menu();
    this._user({ steps: 0 });
  }

  _drop(rec) {
    this._mine = this._mine.filter((r) => r !== rec);
    const m = this._models.get(`own:${rec.id}`);
    if (m) { m.writer.free(); m.lister.free(); this._models.delete(`own:${rec.id}`); }
    if (this._own === rec) this._own = null;
  }

  _loadOwn(rec) {
    try {
      const m = { writer: TextModel.load(rec.bytes, rec.vocab), lister: TextModel.load(rec.bytes, rec.vocab) };
      this._models.set(`own:${rec.id}`, m);
      return m;
    } catch (err) {
      this._tMsg.textContent = `${rec.name} could not be loaded (${err.message}); "Forget" deletes it`;
      this._own = null;
      this.invalidate();
      return null;
    }
  }

  // The models kept in this browser, once: into the menu.
  _listKept() {
    this._listed = true;
    listTextModels().then((recs) => {
      for (const r of recs) {
        if (this._mine.some((x) => x.key === r.key) || !TEXT_KINDS.includes(r.kind)) continue;
        this._mine.push({ id: ++this._ids, key: r.key, kind: r.kind, vocab: r.vocab, bytes: r.bytes, steps: r.steps, lr: r.lr ?? null, loss: r.loss, held: r.held, name: r.name });
      }
      this._menu();
      this.invalidate();
    }, () => {}); // no store here (a private window, a sandbox): nothing to list; Keep says why
  }

  _menu() {
    this._sel.querySelector("optgroup")?.remove();
    if (!this._mine.length) return;
    const g = htmlEl("optgroup", { label: "yours" }, this._sel);
    for (const r of this._mine) htmlEl("option", { value: `own:${r.id}`, text: `${r.name}${r.key ? ", kept" : ""}` }, g);
    this._sel.value = this._own ? `own:${this._own.id}` : this.model;
  }

  _keepOwn() {
    const rec = this._own;
    if (!rec || rec.key) return;
    const date = Date.now(), key = `text:${date}`;
    rec.key = key;
    putModel({ key, task: "text", kind: rec.kind, vocab: rec.vocab, bytes: rec.bytes, source: "tuned", name: rec.name, date, steps: rec.steps, lr: rec.lr, loss: rec.loss, held: rec.held })
      .then(() => { this._storeWhy = null; this.emit("tune", { state: "kept", step: rec.steps, steps: rec.steps, loss: rec.loss, held: rec.held, thread: null, key }); },
        (err) => { rec.key = null; this._storeWhy = `could not keep the model: ${err.message}`; })
      .then(() => { this._menu(); this._drawTune(); this.invalidate(); }); // el.result.model gets the key
    this._drawTune();
    this.invalidate();
  }

  _forgetOwn() {
    const rec = this._own;
    if (!rec || !rec.key) return;
    deleteModel(rec.key).catch((err) => { this._storeWhy = err.message; this._drawTune(); });
    if (this._tune && this._tune.rec === rec) this._tune.rec = null;
    this._drop(rec);
    this._menu();
    this._user({ steps: 0 });
  }

  // The run's controls, progress, readout, curve and sample.
  _drawTune() {
    if (!this._tGo) return;
    const t = this._tune, own = this._own, st = t ? t.state : "idle";
    this._tGo.textContent = st === "training" ? "Stop" : st === "paused" ? "Resume" : st === "stopping" ? "Stopping…" : "Start";
    this._keep.disabled = !own || Boolean(own.key);
    this._forget.disabled = !own || !own.key;
    this._back.disabled = !own;
    this._bar.max = t ? t.steps : 1;
    this._bar.value = t ? t.step : 0;
    const unit = (v) => (v == null ? "–" : t.bits ? `${(v / Math.LN2).toFixed(3)} bits/char` : `${v.toFixed(3)} (entmax loss/char)`);
    const mean = t && t.losses.length ? t.losses.slice(-10).reduce((a, b) => a + b, 0) / Math.min(10, t.losses.length) : null;
    const where = t ? (t.thread === "main" ? "on this page" : "in a Web Worker") : "";
    const parts = t ? [`Step ${t.step} of ${t.steps} ${where}, ${st}: train ${unit(mean)}, held-out ${unit(t.held.at(-1)?.loss)}`] : [];
    if (t && t.note) parts.push(t.note);
    if (own) parts.push(`Writing with ${own.name}${own.key ? " (kept in this browser)" : ""}`);
    if (this._storeWhy) parts.push(this._storeWhy);
    this._tRead.textContent = parts.map((p) => p[0].toUpperCase() + p.slice(1)).join(". ") || "Paste text, then Start: the model trains on it here, in your browser.";
    this._sample.textContent = t && t.sample ? `sample at step ${t.sample.step}: ${this._prompt}${t.sample.text}` : "";
    this._drawCurve(t);
  }

  // Train loss per step (faint, and its running mean) and the held-out loss (dots), one log scale,
  // over the steps taken so far.
  _drawCurve(t) {
    const svg = this._curve;
    svg.replaceChildren();
    if (!t || !t.losses.length) { svg.setAttribute("aria-label", "the fine-tuning loss: no steps yet"); return; }
    const k = t.bits ? 1 / Math.LN2 : 1, tr = t.losses.map((v) => Math.max(1e-4, v * k)), ho = t.held.map((h) => Math.max(1e-4, h.loss * k));
    const all = [...tr, ...ho], c = this._lossCurve([Math.min(...all), Math.max(...all)], { maxStep: Math.max(1, t.step), x0: CL, x1: CW - 6, y0: 14, y1: CH - CB });
    let raw = "", smooth = "", m = 0;
    tr.forEach((v, i) => { // each step's loss and its running mean in log space, bias-corrected
      const x = c.x(i + 1).toFixed(1);
      m = 0.9 * m + 0.1 * Math.log(v);
      raw += `${i ? "L" : "M"}${x} ${c.y(v).toFixed(1)}`;
      smooth += `${i ? "L" : "M"}${x} ${c.y(Math.exp(m / (1 - 0.9 ** (i + 1)))).toFixed(1)}`;
    });
    for (const tk of c.yTicks) {
      svgEl("line", { class: "axis", x1: CL, x2: CW - 6, y1: tk.y, y2: tk.y }, svg);
      svgEl("text", { class: "muted", x: CL - 4, y: tk.y + 3, "text-anchor": "end", "font-size": 9 }, svg).textContent = String(tk.value);
    }
    svgEl("path", { class: "tr", d: raw }, svg);
    svgEl("path", { class: "trs", d: smooth }, svg);
    let d = "";
    t.held.forEach((h, i) => {
      const x = c.x(h.step).toFixed(1), y = c.y(ho[i]).toFixed(1);
      d += `${i ? "L" : "M"}${x} ${y}`;
      svgEl("circle", { class: "hod", cx: x, cy: y, r: 2.5 }, svg);
    });
    svgEl("path", { class: "ho", d }, svg);
    svgEl("text", { class: "muted", x: CL, y: 10, "font-size": 11 }, svg).textContent =
      `${t.bits ? "bits per character" : "entmax loss per character"}: train (blue: each step, its mean) and held-out (dots)`;
    svgEl("text", { class: "muted", x: CW - 6, y: CH - 6, "text-anchor": "end", "font-size": 9 }, svg).textContent = `steps 0–${t.step} of ${t.steps}`;
    svg.setAttribute("aria-label", `fine-tuning loss over ${t.step} steps: train ${tr[0].toFixed(2)} to ${tr.at(-1).toFixed(2)}, held-out ${ho[0].toFixed(2)} to ${ho.at(-1).toFixed(2)}`);
  }

  _readOut(peek, tm, n) {
    const off = tm.tokenOffset, ids = [];
    for (let v = off; v < peek.probs.length; v++) if (peek.probs[v] > 0) ids.push(v);
    ids.sort((a, b) => peek.probs[b] - peek.probs[a]);
    const top = ids.slice(0, 4).map((v) => `${glyph(tm.chars[v - off])} ${prob(peek.probs[v])}`).join(", ");
    return `${n} character${n === 1 ? "" : "s"} written. Next: ${glyph(peek.char)} drawn from ${ids.length} characters with p > 0 (${top}${ids.length > 4 ? ", …" : ""}).`;
  }
}

define("sx-write", SxWrite);
