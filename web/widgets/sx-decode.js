// <sx-decode>: a seq2seq model's sparse outputs (Peters, Niculae & Martins 2019). Pick a task and
// an output mapping (the task's shipped model with softmax outputs, or with sparsemax or
// 1.5-entmax outputs trained with their losses; all three have 1.5-entmax attention), type or
// draw a source, and see greedy decoding's next-token distribution at every step (model.decode)
// as a grid of steps x tokens: a dot whose area is the probability for every token with p > 0,
// however small, and an empty cell for an exact zero; and exact search (model.exactSearch): every
// output sequence with nonzero probability, most probable first, with the count and the mass, or
// the library's message when more than `cap` have some (always, for softmax outputs).
//   <sx-decode task="reverse" output="entmax15" source="hifabajgfa"></sx-decode>
// Attributes: task, output (softmax, sparsemax, entmax15), source, step (the step read out, 0 the
// first), cap (1..1000), models (the folder of the .sxm files: the page's), theme.
// Read-only: result ({ decode, search, capMessage } as last drawn, or null).
// Keyboard: Tab reaches the controls and the grid (one stop: ↑/↓ or ←/→, Home/End pick the step).
// Event: sx-decode-change { task, output, source, step }.
import { SxElement, define, sheet, svgEl, htmlEl, sliderKey } from "./base.js";
import { Model, tasks } from "../lib/simplexity.js";
import { EXAMPLES } from "./runtime/inspect.js";
import { checkpointUrl, loadCheckpoint } from "./runtime/checkpoints.js";

const TASKS = ["reverse", "sort", "after_marker", "date"];
/** The shipped model of each output mapping (the softmax one has the same 1.5-entmax attention). */
const KIND = { softmax: "entmax15", sparsemax: "sparsemax-out", entmax15: "entmax15-out" };
const LABEL = { softmax: "softmax", sparsemax: "sparsemax", entmax15: "1.5-entmax" };
const GLYPH = { "<pad>": "∅", "<bos>": "⊢", "<eos>": "⊣", " ": "␣" };
const EOS = 2, LIST_MAX = 40, CELL = 20, LW = 56, RW = 44, TOP = 24;

const glyph = (c) => GLYPH[c] ?? c;
const prob = (p) => (p === 0 ? "0" : p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

const CSS = sheet(`
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 8px; }
.row label { display: inline-flex; gap: 6.4px; align-items: center; }
input[type="text"] { font: 14px/1.3 ui-monospace, Menlo, Consolas, monospace; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_grid); border-radius: 6px; padding: 2.4px 6.4px; width: 150px; }
input[aria-invalid="true"] { border-color: var(--_accent); }
input:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.invalid { color: var(--_accent); font-size: 13px; font-weight: 600; }
.invalid:empty { display: none; }
.views { display: flex; flex-wrap: wrap; gap: 9.6px 19.2px; align-items: flex-start; }
.views > svg { flex: 1 1 340px; min-width: 0; max-width: 760px; }
.read { margin: 4.8px 0; font-size: 13px; font-variant-numeric: tabular-nums; }
svg .tok { font-family: ui-monospace, Menlo, Consolas, monospace; }
svg .bg { fill: var(--_panel); }
svg .cur { fill: none; stroke: var(--_accent); stroke-width: 2; }
svg .pick { fill: none; stroke: var(--_fg); stroke-width: 1.2; }
svg .bar { fill-opacity: 0.22; stroke: none; }
svg .ring { fill: none; stroke: transparent; }
`);

export class SxDecode extends SxElement {
  static fitText = true;
  static spec = {
    task: { type: "enum", default: "reverse", values: TASKS },
    output: { type: "enum", default: "entmax15", values: Object.keys(KIND) },
    step: { type: "number", default: 0, min: 0, max: 255, integer: true },
    cap: { type: "number", default: 100, min: 1, max: 1000, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static get observedAttributes() { return [...Object.keys(this.spec), "source", "models"]; }
  static authorOnly = ["models"];

  constructor() {
    super();
    this._model = null;   // { key, model }
    this._pending = null; // the URL being fetched (checkpoints.js)
    this._failed = null;
    this._cache = null;   // { key, c }
    this._draws = 0;      // held-out sources drawn (the next one's seed)
  }

  get source() { return this.getAttribute("source") ?? EXAMPLES[this.task]; }
  set source(v) { if (v == null) this.removeAttribute("source"); else this.setAttribute("source", String(v)); }
  get models() { return this.getAttribute("models"); }
  set models(v) { if (v == null) this.removeAttribute("models"); else this.setAttribute("models", String(v)); }
  /** What the widget drew last: { decode (model.decode's row), search (exactSearch's result), capMessage } or null. */
  get result() { return this._cache && this._cache.c.result; }

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
    this._io?.disconnect();
    this._io = null;
    if (this._model) this._model.model.free();
    this._model = this._cache = this._pending = null;
  }

  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    const sel = (label, values) => {
      const l = htmlEl("label", {}, row);
      htmlEl("span", { text: label }, l);
      const s = htmlEl("select", {}, l);
      for (const [v, t] of values) htmlEl("option", { value: v, text: t }, s);
      return s;
    };
    this._taskSel = sel("task", TASKS.map((t) => [t, t.replace("_", " ")]));
    this._outSel = sel("output", Object.entries(LABEL));
    const l = htmlEl("label", {}, row);
    htmlEl("span", { text: "source" }, l);
    this._text = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", "aria-describedby": "src-msg" }, l);
    this._draw = htmlEl("button", { type: "button", text: "Another source" }, row);
    this._textMsg = htmlEl("span", { class: "invalid", id: "src-msg", role: "status" }, row);
    this._taskSel.addEventListener("change", () => this._user({ task: this._taskSel.value, source: null, step: 0 }));
    this._outSel.addEventListener("change", () => this._user({ output: this._outSel.value }));
    this._text.addEventListener("input", () => this._user({ source: this._text.value, step: 0 }));
    this._draw.addEventListener("click", () => this._user({ source: this._heldOut(), step: 0 }));
    const v = htmlEl("div", { class: "views" }, body);
    this._grid = svgEl("svg", { class: "picture grid", viewBox: "0 0 400 100" }, v);
    this._list = svgEl("svg", { class: "picture list", viewBox: "0 0 400 100", role: "img", "aria-label": "the output sequences exact search finds, drawn once the model has loaded" }, v);
    this._read = htmlEl("p", { class: "read", "aria-live": "polite" }, body);
    this._sum = htmlEl("p", { class: "read", part: "summary" }, body);
  }

  /** A held-out source of the task (a new one per click). */
  _heldOut() {
    const task = this.task, h = tasks.generate(task, { seed: 7000 + this._draws++, count: 1, split: "heldout" });
    return tasks.decode(task, h.src);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.renderNow();
    this.emit("change", { task: this.task, output: this.output, source: this.source, step: this.step });
  }

  settings() {
    const r = super.settings(), { s } = r, raw = this.getAttribute("source");
    s.source = EXAMPLES[s.task];
    s.sourceError = "";
    if (raw !== null) {
      try {
        if (!raw.length) throw new RangeError("is empty");
        tasks.encode(s.task, raw);
        s.source = raw;
      } catch (err) {
        s.sourceError = `"${raw.slice(0, 24)}": ${err.message.replace(/^tasks\.encode: (text(\[\d+\])? )?/, "")}; showing "${s.source}"`;
      }
    }
    const f = this.getAttribute("models");
    s.models = null;
    if (f !== null) {
      try { s.models = new URL(f.endsWith("/") ? f : `${f}/`, document.baseURI); } catch { r.errors.push(`models="${f.slice(0, 40)}" is not a URL; using the shipped models`); }
    }
    if (this._failed) r.errors.push(this._failed.message);
    return r;
  }

  render(s) {
    this._taskSel.value = s.task;
    this._outSel.value = s.output;
    if (this.shadowRoot.activeElement !== this._text) this._text.value = this.getAttribute("source") ?? s.source;
    this._text.maxLength = tasks.width(s.task) - 1;
    this._text.setAttribute("aria-invalid", String(Boolean(s.sourceError)));
    this._text.setAttribute("aria-label", `source for the ${s.task.replace("_", " ")} task`);
    this._textMsg.textContent = s.sourceError;
    const url = checkpointUrl(s.task, KIND[s.output], s.models);
    if (this._failed && this._failed.key !== url.href) this._failed = null;
    if (!this._model || this._model.key !== url.href) {
      if (this._seen) loadCheckpoint(this, url, (bytes) => Model.load(bytes), (model, _, key) => {
        if (this._model) this._model.model.free();
        this._model = { key, model };
      });
      this._read.textContent = this._failed ? "" : this._seen ? "Loading the model…" : "The model loads when this comes into view.";
      return;
    }
    const key = `${url.href}|${s.task}|${s.source}|${s.cap}`;
    if (!this._cache || this._cache.key !== key) this._cache = { key, c: this._compute(s, this._model.model) };
    const c = this._cache.c, step = Math.min(s.step, c.steps.length - 1);
    this._drawGrid(c, step, s.output);
    this._drawList(c, s.output);
    this._read.textContent = this._readStep(c, step);
    this._sum.textContent = this._summary(c, s);
  }

  // Greedy decoding with its distributions; exact search (its message past the cap, then the
  // first cap found).
  _compute(s, model) {
    const src = tasks.encode(s.task, s.source), vocab = tasks.vocab(s.task);
    const [decode] = model.decode([src]);
    let search, capMessage = "";
    try { search = model.exactSearch(src, { cap: s.cap }); } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      capMessage = err.message;
      search = model.exactSearch(src, { cap: s.cap, partial: true });
    }
    const text = (tokens) => tokens.slice(1).map((v) => (v === EOS ? "⊣" : glyph(vocab[v]))).join("");
    return { vocab, steps: decode.steps, text, result: { decode, search, capMessage } };
  }

  // Steps x tokens (tokens x steps under 420 px: a phone), one dot per token with p > 0.
  _drawGrid(c, step, output) {
    const svg = this._grid, V = c.vocab.length, T = c.steps.length;
    const tall = svg.getBoundingClientRect().width < 420;
    const cols = tall ? T : V, rows = tall ? V : T;
    const W = LW + cols * CELL + (tall ? 8 : RW), H = TOP + rows * CELL + (tall ? 26 : 6);
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const hadFocus = this.shadowRoot.activeElement === svg;
    svg.replaceChildren();
    const at = (t, v) => (tall ? [LW + t * CELL, TOP + v * CELL] : [LW + v * CELL, TOP + t * CELL]);
    const label = (x, y, text, cls = "tok", anchor = "middle") => { svgEl("text", { x, y, class: cls, "text-anchor": anchor }, svg).textContent = text; };
    for (let v = 0; v < V; v++) {
      const [x, y] = at(tall ? -1 : 0, v);
      if (tall) label(LW - 8, y + 14, glyph(c.vocab[v]), "tok", "end"); else label(x + CELL / 2, TOP - 8, glyph(c.vocab[v]));
    }
    c.steps.forEach((st, t) => {
      const [x, y] = at(t, tall ? -1 : 0), nz = [];
      if (tall) label(x + CELL / 2, TOP - 8, glyph(c.vocab[st.token])); else label(LW - 8, y + 14, `${t + 1}: ${glyph(c.vocab[st.token])}`, "tok", "end");
      const g = svgEl("g", { class: "step", "data-step": t }, svg);
      for (let v = 0; v < V; v++) {
        const [cx, cy] = at(t, v), p = st.probs[v];
        svgEl("rect", { class: "bg", x: cx + 1, y: cy + 1, width: CELL - 2, height: CELL - 2 }, g);
        if (v === st.token) svgEl("rect", { class: "pick", x: cx + 1.5, y: cy + 1.5, width: CELL - 3, height: CELL - 3 }, g);
        if (!(p > 0)) continue;
        nz.push(v);
        svgEl("circle", { class: `nz m-${output}`, "data-v": v, cx: cx + CELL / 2, cy: cy + CELL / 2, r: Math.max(1.6, 8.5 * Math.sqrt(p)) }, g);
      }
      g.setAttribute("data-support", nz.join(" "));
      const [ex, ey] = at(t, V);
      label(tall ? ex + CELL / 2 : ex + 6, ey + 14, String(nz.length), "muted", tall ? "middle" : "start");
    });
    if (tall) label(LW - 8, TOP + V * CELL + 14, "|S|", "muted", "end"); else label(W - RW + 6, TOP - 8, "|S|", "muted", "start");
    const [sx, sy] = at(step, 0);
    svgEl("rect", { class: "cur", x: sx, y: sy, width: tall ? CELL : V * CELL, height: tall ? V * CELL : CELL }, svg);
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("role", "slider");
    svg.setAttribute("aria-label", "decoding step read out below");
    svg.setAttribute("aria-valuemin", "1");
    svg.setAttribute("aria-valuemax", String(T));
    svg.setAttribute("aria-valuenow", String(step + 1));
    svg.setAttribute("aria-valuetext", this._readStep(c, step));
    svg.onkeydown = (e) => {
      // the next step is the next row (the next column on a phone): ↓ and → both move on
      const key = { ArrowDown: "ArrowUp", ArrowUp: "ArrowDown" }[e.key] ?? e.key;
      const n = sliderKey(key, step, { min: 0, max: T - 1, step: 1, page: 3 });
      if (n === null) return;
      e.preventDefault();
      if (n !== step) this._user({ step: n });
    };
    if (hadFocus) svg.focus();
  }

  _readStep(c, t) {
    const st = c.steps[t], V = c.vocab.length, S = st.support.length, p = st.probs;
    const top = Array.from(st.support.slice(0, 4), (v) => `${glyph(c.vocab[v])} ${prob(p[v])}`).join(", ");
    const rest = S === V ? `every token > 0 (the smallest ${prob(Math.min(...p))})` : `${V - S} of ${V} tokens exactly 0`;
    return `Step ${t + 1} emits ${glyph(c.vocab[st.token])}: ${S} token${S === 1 ? "" : "s"} in the support (${top}${S > 4 ? ", …" : ""}); ${rest}.`;
  }

  // Every sequence exact search found, most probable first, over a band as long as its probability.
  _drawList(c, output) {
    const svg = this._list, seqs = c.result.search.sequences, shown = seqs.slice(0, LIST_MAX);
    const W = Math.round(Math.min(560, Math.max(300, svg.getBoundingClientRect().width || 400)));
    const RH = 20, H = TOP + (shown.length + (seqs.length > LIST_MAX)) * RH + 6, bw = W - 64;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("aria-label", `the ${seqs.length} output sequences exact search found with nonzero probability, most probable first`);
    svg.replaceChildren();
    const text = (x, y, t, cls, anchor = "start") => { svgEl("text", { x, y, class: cls, "text-anchor": anchor }, svg).textContent = t; };
    text(0, 14, "output sequence (⊣ ends it)", "muted");
    text(W, 14, "p", "muted", "end");
    const d = c.result.decode.tokens;
    shown.forEach((q, i) => {
      const y = TOP + i * RH, g = svgEl("g", { class: "seq", "data-tokens": q.tokens.join(" "), "data-p": q.probability }, svg);
      const greedy = q.tokens.every((v, j) => v === d[j]) && !(d[q.tokens.length] > 0);
      svgEl("rect", { class: `bar m-${output}`, x: 0, y: y + 2, width: Math.max(1, bw * q.probability), height: RH - 4 }, g);
      svgEl("text", { x: 4, y: y + 14, class: "tok" }, g).textContent = `${i + 1}. ${c.text(Array.from(q.tokens))}${q.finished ? "" : " …"}${greedy ? " (greedy)" : ""}`;
      svgEl("text", { x: W, y: y + 14, "text-anchor": "end" }, g).textContent = prob(q.probability);
    });
    if (seqs.length > LIST_MAX) text(0, TOP + LIST_MAX * RH + 14, `and ${seqs.length - LIST_MAX} more`, "muted");
  }

  _summary(c, s) {
    const { sequences, complete } = c.result.search, n = sequences.length;
    const mass = sequences.reduce((a, q) => a + q.probability, 0), fin = sequences.filter((q) => q.finished).length;
    const supp = c.steps.reduce((a, st) => a + st.support.length, 0) / c.steps.length;
    const head = `Mean support over the ${c.steps.length} steps: ${supp.toFixed(2)} of ${c.vocab.length} tokens. `;
    if (!complete) {
      const why = c.result.capMessage.replace(/^model\.exactSearch: /, "Exact search stopped: ").replace(/: raise options\.cap.*$/, "");
      return `${head}${why}. Listed: the ${n} found before the cap (mass ${mass.toFixed(4)}), not necessarily the most probable; raise cap (up to 1000) for more.`;
    }
    return `${head}Exact search: ${n} output sequence${n === 1 ? "" : "s"} with nonzero probability (${fin} ending with ⊣), total mass ${mass.toFixed(4)}; every other sequence has probability exactly 0.`;
  }
}

define("sx-decode", SxDecode);
