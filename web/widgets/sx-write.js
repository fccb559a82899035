// <sx-write>: a character language model writes. Type a prompt, pick one of the three shipped
// decoder-only models (softmax attention and outputs; 1.5-entmax attention; learned-alpha
// attention with 1.5-entmax outputs), press Start: it continues the prompt a character at a time
// over its KV cache (TextModel.generate), sampling with the chosen temperature, top-k and top-p
// from a seeded source. Drawn as it writes: the next character's distribution over the 96
// characters (a dot whose area is the probability for every p > 0, an empty cell for an exact
// zero), and the attention row of every layer and head over the context. For the sparse-output
// model, when stopped: every word it could write next, the complete list of continuations of the
// current word with nonzero probability (runtime/words.js), or a message past `cap`.
//   <sx-write model="entmax15-out" prompt="LOVE, n. " seed="1" steps="40"></sx-write>
// Attributes: prompt, model (softmax, entmax15, entmax15-out), steps (characters written: a link
// restores the same text), seed, temperature, top-k, top-p, speed (characters per second), cap,
// theme. Read-only: result ({ text, written, probs, attention, context, words } as drawn, or null).
// Keyboard: Tab reaches every control; Start/Stop and Step are buttons.
// Event: sx-write-change { prompt, model, steps, seed, temperature, topK, topP }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt } from "./base.js";
import { TextModel } from "../lib/simplexity.js";
import { fetchCheckpoint, textCheckpointUrl, textSummaryUrl, TEXT_KINDS } from "./runtime/checkpoints.js";
import { wordContinuations } from "./runtime/words.js";

const LABEL = { softmax: "softmax", entmax15: "1.5-entmax attention", "entmax15-out": "1.5-entmax output" };
const GLYPH = { " ": "␣", "\n": "↵" };
const glyph = (c) => GLYPH[c] ?? c;
const prob = (p) => (p === 0 ? "0" : p >= 0.001 ? p.toFixed(3) : p.toExponential(1));
const COLS = 24, CELL = 22, AW = 9, AH = 14, AL = 44, WORDS_SHOWN = 60;

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
ol.words { columns: 3 140px; margin: 4px 0; padding-left: 2.4em; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
svg .tok { font-family: ui-monospace, Menlo, Consolas, monospace; }
svg .bg { fill: var(--_panel); }
svg .nz { fill: var(--_sparsemax); }
svg .pick { fill: none; stroke: var(--_fg); stroke-width: 1.5; }
svg .att { fill: var(--_softmax); }
svg .att0 { fill: none; stroke: var(--_grid); stroke-width: 0.5; }
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
    cap: { type: "number", default: 200, min: 1, max: 5000, integer: true },
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
  }

  get prompt() { return this.getAttribute("prompt") ?? "LOVE, n. "; }
  set prompt(v) { if (v == null) this.removeAttribute("prompt"); else this.setAttribute("prompt", String(v)); }
  get running() { return this._timer !== 0; }
  /** What the widget drew last, or null before the model loads. */
  get result() { return this._result ?? null; }

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
    this._dist = svgEl("svg", { class: "picture dist", viewBox: "0 0 540 120", role: "img" }, v);
    this._att = svgEl("svg", { class: "picture att", viewBox: "0 0 540 120", role: "img" }, v);
    this._wordHead = htmlEl("p", { class: "read", part: "words" }, body);
    this._wordList = htmlEl("ol", { class: "words", part: "words" }, body);

    this._text.addEventListener("input", () => this._user({ prompt: this._text.value, steps: 0 }));
    this._sel.addEventListener("change", () => this._user({ model: this._sel.value, steps: 0 }));
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
    this._sel.value = s.model;
    if (this.shadowRoot.activeElement !== this._seed) this._seed.value = String(s.seed);
    this._temp.set(s.temperature);
    this._topk.set(s["top-k"]);
    this._topp.set(s["top-p"]);
    this._speed.set(s.speed);
    const m = this._models.get(s.model);
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
    this._drawDist(peek, m.writer, s.model);
    this._drawAttention(peek, m.writer);
    const words = this._listWords(s, m, peek);
    this._read.textContent = this._readOut(peek, m.writer, written.length);
    this._result = { text: s.prompt + written, written, probs: peek.probs, attention: peek.attention, context: peek.context, next: peek.char, words };
  }

  /** The run for these settings, advanced to s.steps characters (restarted when they changed). */
  _advance(s, tm) {
    const key = [s.model, s.prompt, s.seed, s.temperature, s["top-k"], s["top-p"]].join("|");
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
      `next: ${kind === "entmax15-out" ? `${zeros} of ${chars.length} exactly 0` : "every p > 0"}`;
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
    if (s.model !== "entmax15-out") {
      this._wordHead.textContent = "Every word it could write next: with a softmax output every character has p > 0, so every string of characters is possible; pick the 1.5-entmax output model for the list.";
      return null;
    }
    if (this.running) {
      this._wordHead.textContent = "Every word it could write next: listed when it stops.";
      return null;
    }
    const key = `${this._run.key}|${this._run.steps.length}|${s.cap}`;
    if (!this._words || this._words.key !== key) {
      const tm = m.lister, maxLen = tm.model.config.maxLen, V = tm.model.config.vocab;
      const dist = (contexts) => {
        const out = new Array(contexts.length), byLen = new Map();
        contexts.forEach((c, i) => { if (!byLen.has(c.length)) byLen.set(c.length, []); byLen.get(c.length).push(i); });
        for (const [len, idx] of byLen) {
          const f = tm.model.forward(null, idx.map((i) => tm.encode(contexts[i])), { probs: true, attention: false });
          idx.forEach((i, r) => { out[i] = f.probs.subarray(((r + 1) * len - 1) * V, (r + 1) * len * V); });
        }
        return out;
      };
      this._words = { key, r: wordContinuations(peek.context, { dist, chars: tm.chars, offset: tm.tokenOffset, maxLen, cap: s.cap }) };
    }
    const r = this._words.r, word = peek.context.match(/[A-Za-z0-9']*$/)[0];
    if (r.overflow) {
      this._wordHead.textContent = `Every word it could write next: more than ${s.cap} continuations have p > 0 here (raise cap, up to 5000, to list them).`;
      return r;
    }
    const mass = r.words.reduce((a, w) => a + w.p, 0);
    this._wordHead.textContent = `Every word it could write next${word ? ` (after “${word}”)` : ""}: ${r.words.length} continuation${r.words.length === 1 ? "" : "s"} with p > 0, total ${prob(mass)}${r.unfinished ? `, and ${r.unfinished} still open after 24 characters, not listed` : ""}; every other has probability exactly 0.`;
    for (const w of r.words.slice(0, WORDS_SHOWN)) {
      htmlEl("li", { "data-word": w.word, "data-p": w.p, text: `${word}${w.word.replace(/\n/g, "↵")}  ${prob(w.p)}` }, this._wordList);
    }
    if (r.words.length > WORDS_SHOWN) htmlEl("li", { class: "muted", text: `and ${r.words.length - WORDS_SHOWN} more` }, this._wordList);
    return r;
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
