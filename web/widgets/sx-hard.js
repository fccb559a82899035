// <sx-hard>: soft, sparse and hard attention on one task (issue 24, item 4). For a reverse-task
// source the reader types (or draws), the shipped recurrent models with additive softmax,
// sparsemax and 1.5-entmax attention and with hard attention (straight-through argmax) each
// decode it greedily, and their attention is drawn step by step side by side (RNN.attention: a
// dot for an exact zero), with the positions each step reads. Below, what `make rnn-variance`
// measured natively (web/models/rnn-variance.json, written by tools/rnn-variance.mjs): the
// relative variance of the attention-side gradient per estimator (the exact soft and sparse
// gradients have none; REINFORCE, straight-through Gumbel; the straight-through argmax has none
// but is biased), one draw's cosine with the exact gradient, or the distance from REINFORCE's
// unbiased mean, at four parameter points; and the six training runs' held-out exact accuracy
// (or loss) every 100 steps. The text under the pictures states the lecture's point with these
// numbers. The models and the figures are fetched once, when the widget comes near the viewport.
// (No gradient is measured here: the RNN class exposes no gradient estimate.)
//   <sx-hard source="abcdefgh" figure="variance" curve="accuracy"></sx-hard>
// Attributes: source (1..10 letters a..j; a bad one falls back with a message), figure
// (variance, cosine, bias), curve (accuracy, loss), theme.
// Read-only: result ({ source, models: [{ key, output, right, support, one, agree }] } as drawn,
// or null), figures (the measured figures, or null until loaded).
// Keyboard: the source field, Another source, the two menus, in order.
// Events: sx-hard-change { source, figure, curve }, sx-hard-ready { models } (the models loaded
// and the source drawn).
import { SxElement, define, sheet, svgEl, htmlEl, fmt } from "./base.js";
import { RNN, tasks } from "../lib/simplexity.js";
import { heatLevel } from "./viz/heatmap.js";

const TASK = "reverse", EOS = 2, DEFAULT_SOURCE = "abcdefgh";
/** The four shipped models, in drawing order: one literal URL each (bundlers emit the files). */
const MODELS = [
  { key: "softmax", label: "softmax", url: () => new URL("../models/reverse-rnn-additive-softmax.sxrn", import.meta.url) },
  { key: "sparsemax", label: "sparsemax", url: () => new URL("../models/reverse-rnn-additive-sparsemax.sxrn", import.meta.url) },
  { key: "entmax15", label: "1.5-entmax", url: () => new URL("../models/reverse-rnn-additive-entmax15.sxrn", import.meta.url) },
  { key: "hard", label: "hard", url: () => new URL("../models/reverse-rnn-hard-straight.sxrn", import.meta.url) },
];
const figuresUrl = () => new URL("../models/rnn-variance.json", import.meta.url);
/** The six methods of the measurements: label and colour class (base.js's mapping colours). */
const METHODS = {
  softmax: { label: "softmax (exact)", cls: "m-softmax" },
  sparsemax: { label: "sparsemax (exact)", cls: "m-sparsemax" },
  entmax15: { label: "1.5-entmax (exact)", cls: "m-entmax15" },
  reinforce: { label: "hard, REINFORCE", cls: "m-entmax", dash: "6 3" },
  gumbel: { label: "hard, ST Gumbel", cls: "m-fusedmax", dash: "2 2" },
  straight: { label: "hard, ST argmax", cls: "m-oscarmax", dash: "8 2 2 2" },
};
const EXACT = ["softmax", "sparsemax", "entmax15"], HARD = ["reinforce", "gumbel", "straight"];
const FIGURES = {
  variance: "relative variance of one gradient estimate",
  cosine: "one draw's cosine with the exact softmax gradient",
  bias: "distance of the mean from REINFORCE's (bias)",
};
const FIGURE_MENU = { variance: "relative variance", cosine: "one draw's cosine", bias: "bias against REINFORCE" };
const W = 600;

const CSS = sheet(`
.row { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 0 0 6px; }
.row label { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; max-width: 100%; }
select { max-width: 100%; }
input[type="text"] { font: 14px/1.3 ui-monospace, Menlo, Consolas, monospace; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_grid); border-radius: 6px; padding: 2.4px 6.4px; width: 120px; }
input[aria-invalid="true"] { border-color: var(--_accent); }
input:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.invalid { color: var(--_accent); font-size: 13px; font-weight: 600; }
.invalid:empty { display: none; }
svg.picture { max-width: 760px; }
.cell { fill: var(--_accent); }
.zero { fill: var(--_muted); }
.frame { fill: none; stroke: var(--_grid); }
.wrong { fill: var(--_accent); font-weight: 700; }
.bar { stroke: none; }
svg .tick { --_fs: 11px; }
svg .v { --_fs: 10px; }
.curve { fill: none; stroke-width: 2; }
.dot { stroke: var(--_bg); stroke-width: 1; }
.legend span { margin-right: 12px; white-space: nowrap; }
.legend, .note { margin: 2px 0 6px; color: var(--_muted); font-size: 13px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
`);

export class SxHard extends SxElement {
  static fitText = true;
  static lazy = true;
  static spec = {
    figure: { type: "enum", default: "variance", values: Object.keys(FIGURES) },
    curve: { type: "enum", default: "accuracy", values: ["accuracy", "loss"] },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static get observedAttributes() { return [...Object.keys(this.spec), "source"]; }

  constructor() {
    super();
    this._load = null;   // { state: "loading" | "ready" | "error", models, figures, message }
    this._cache = null;  // { source, result }
    this._draws = 0;     // held-out sources drawn (the next one's start)
  }

  get source() { return this.getAttribute("source") ?? DEFAULT_SOURCE; }
  set source(v) { if (v == null) this.removeAttribute("source"); else this.setAttribute("source", String(v)); }
  /** What the widget drew last: { source, models: [{ key, output, right, support, one, agree }] }, or null. */
  get result() { return this._cache ? structuredClone(this._cache.result) : null; }
  /** The figures of `make rnn-variance` the widget drew (web/models/rnn-variance.json), or null. */
  get figures() { return this._load && this._load.state === "ready" ? structuredClone(this._load.figures) : null; }

  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    const l = htmlEl("label", {}, row);
    htmlEl("span", { text: "source" }, l);
    this._text = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", maxlength: "10",
      "aria-label": "source to reverse (letters a to j)", "aria-describedby": "src-msg" }, l);
    this._draw = htmlEl("button", { type: "button", part: "button", text: "Another source" }, row);
    this._textMsg = htmlEl("span", { class: "invalid", id: "src-msg", role: "status" }, row);
    this._text.addEventListener("input", () => this._user({ source: this._text.value }));
    this._draw.addEventListener("click", () => this._user({ source: this._heldOut() }));
    this._matrix = svgEl("svg", { class: "picture matrix", viewBox: `0 0 ${W} 250`, role: "img",
      "aria-label": "attention of each decoder step over the source, for softmax, sparsemax, 1.5-entmax and hard attention" }, body);
    this._sel = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    const row2 = htmlEl("div", { class: "row" }, body);
    this._figSel = this._select(row2, "gradient figure", FIGURE_MENU, "figure");
    this._curveSel = this._select(row2, "training curve", { accuracy: "held-out exact accuracy", loss: "training loss" }, "curve");
    this._legend = htmlEl("p", { class: "legend", "aria-hidden": "true" }, body);
    this._bars = svgEl("svg", { class: "picture bars", viewBox: `0 0 ${W} 300`, role: "img", "aria-label": "the gradient estimators' figures, per method" }, body);
    this._curves = svgEl("svg", { class: "picture curves", viewBox: `0 0 ${W} 220`, role: "img", "aria-label": "the six training runs against the step" }, body);
    this._point = htmlEl("p", { class: "readout", part: "summary" }, body);
    this._drawLegend();
  }

  _select(parent, label, options, key) {
    const l = htmlEl("label", {}, parent);
    htmlEl("span", { text: label }, l);
    const sel = htmlEl("select", {}, l);
    for (const [v, t] of Object.entries(options)) htmlEl("option", { value: v, text: t }, sel);
    sel.addEventListener("change", () => this._user({ [key]: sel.value }));
    return sel;
  }

  _drawLegend() {
    for (const [m, { label, cls }] of Object.entries(METHODS)) {
      const item = htmlEl("span", {}, this._legend);
      htmlEl("span", { class: `swatch ${cls}` }, item);
      item.append(label);
    }
  }

  /** A held-out source of the reverse task (a new one per click). */
  _heldOut() {
    const h = tasks.generate(TASK, { seed: 2001, split: "heldout", count: 1, start: this._draws++ });
    return tasks.decode(TASK, h.src);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.renderNow();
    this.emit("change", { source: this.source, figure: this.figure, curve: this.curve });
  }

  settings() {
    const r = super.settings(), { s } = r, raw = this.getAttribute("source");
    s.source = DEFAULT_SOURCE;
    s.sourceError = "";
    if (raw !== null) {
      try {
        if (!raw.length) throw new RangeError("is empty");
        tasks.encode(TASK, raw);
        s.source = raw;
      } catch (err) {
        s.sourceError = `"${raw.slice(0, 24)}": ${err.message.replace(/^tasks\.encode: (text(\[\d+\])? )?/, "")}; showing "${s.source}"`;
      }
    }
    if (this._load && this._load.state === "error") r.errors.push(this._load.message);
    return r;
  }

  render(s) {
    if (this.shadowRoot.activeElement !== this._text) this._text.value = this.getAttribute("source") ?? s.source;
    this._text.setAttribute("aria-invalid", String(Boolean(s.sourceError)));
    this._textMsg.textContent = s.sourceError;
    this._figSel.value = s.figure;
    this._curveSel.value = s.curve;
    if (!this._load && this._seen) this._start();
    const ld = this._load;
    if (!ld || ld.state !== "ready") {
      const what = !ld ? "The models load when this comes into view." : ld.state === "error" ? ld.message : "Loading the four shipped models and the measured figures…";
      for (const svg of [this._matrix, this._bars, this._curves]) this._empty(svg, what);
      this._sel.textContent = what;
      this._point.textContent = "";
      return;
    }
    if (!this._cache || this._cache.source !== s.source) this._cache = { source: s.source, result: this._decode(s.source) };
    const w = this._body.clientWidth > 0 && this._body.clientWidth < 480 ? 340 : W; // a phone: a narrower picture
    this._drawMatrices(this._cache.result, w);
    this._sel.textContent = this._selections(this._cache.result);
    this._drawBars(ld.figures, s.figure, w);
    this._drawCurves(ld.figures, s.curve, w);
    this._point.textContent = lecturePoint(ld.figures);
  }

  // Fetch the four .sxrn and the figures once, then draw.
  async _start() {
    const ld = this._load = { state: "loading", models: [], figures: null, message: "" };
    try {
      const res = await fetch(figuresUrl());
      if (!res.ok) throw new Error(`rnn-variance.json: HTTP ${res.status}`);
      ld.figures = checkFigures(await res.json());
      for (const m of MODELS) {
        const r = await fetch(m.url());
        if (!r.ok) throw new Error(`${m.key}: HTTP ${r.status}`);
        ld.models.push(RNN.load(new Uint8Array(await r.arrayBuffer())));
      }
      ld.state = "ready";
    } catch (err) {
      for (const m of ld.models) m.free();
      ld.models = [];
      ld.state = "error";
      ld.message = `sx-hard: could not load the shipped models or figures (${err.message})`;
    }
    if (this._load !== ld) { for (const m of ld.models) m.free(); return; } // disconnected meanwhile
    this.renderNow();
    if (ld.state === "ready") this.emit("ready", { models: MODELS.map((m) => m.key) });
  }

  connectedCallback() {
    super.connectedCallback();
    if (this._seen || this._io) return;
    if (typeof IntersectionObserver !== "function") { this._seen = true; return; }
    this._io = new IntersectionObserver((entries) => { // the models are fetched once near the viewport
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
    if (this._load) for (const m of this._load.models) m.free();
    this._load = this._cache = null;
  }

  // Each model decodes the source greedily: its attention rows up to the step that wrote EOS (or
  // the last), what it wrote, and the selections: nonzero weights per step, steps on one
  // position, steps whose largest weight is on the position hard attention read.
  _decode(source) {
    const src = tasks.encode(TASK, source), n = source.length;
    const runs = this._load.models.map((model) => {
      const { tokens, shape, data } = model.attention([src]);
      const S = shape[2], out = tokens[0];
      let steps = 1;
      while (steps < shape[1] && out[steps] !== EOS) steps++;
      const rows = [];
      for (let t = 0; t < steps; t++) rows.push(Array.from(data.subarray(t * S, t * S + n + 1)));
      return { rows, out: Array.from(out.subarray(1, steps + 1)), text: tasks.decode(TASK, out) };
    });
    const hardPick = runs[3].rows.map(argmax);
    const want = tasks.answer(TASK, source);
    const models = runs.map((r, i) => {
      const nz = r.rows.map((row) => row.filter((w) => w !== 0).length);
      return { key: MODELS[i].key, output: r.text, right: r.text === want, rows: r.rows, written: r.out,
        support: mean(nz), one: nz.filter((k) => k === 1).length / nz.length,
        agree: r.rows.filter((row, t) => t < hardPick.length && argmax(row) === hardPick[t]).length / r.rows.length };
    });
    return { source, answer: want, models };
  }

  // ------------------------------------------------------------------ drawing
  _empty(svg, text) {
    svg.replaceChildren();
    svgEl("text", { class: "muted", x: W / 2, y: 60, "text-anchor": "middle" }, svg).textContent = text;
  }

  // Four panels in a row, two by two on a narrow widget (w: the viewBox width).
  _drawMatrices(res, w) {
    const svg = this._matrix, n = res.source.length + 1, vocab = tasks.vocab(TASK);
    const label = (id) => (id === EOS ? "$" : vocab[id] || "");
    const src = tasks.encode(TASK, res.source), cols = w < 500 ? 2 : 4;
    const panel = w / cols, cs = Math.min(22, (panel - 30) / Math.max(n, 4));
    const rows = Math.max(...res.models.map((m) => m.rows.length)), ph = 44 + rows * cs + 12;
    svg.setAttribute("viewBox", `0 0 ${w} ${Math.ceil(ph * (MODELS.length / cols))}`);
    svg.replaceChildren();
    res.models.forEach((m, p) => {
      const x0 = (p % cols) * panel + 22, top = Math.floor(p / cols) * ph, y0 = top + 44;
      const g = svgEl("g", { class: "mat", "data-key": m.key, "data-steps": m.rows.length, "data-cols": n }, svg);
      svgEl("text", { x: x0, y: top + 14, class: "label" }, g).textContent = MODELS[p].label;
      for (let j = 0; j < n; j++) svgEl("text", { class: "muted tick", x: x0 + (j + 0.5) * cs, y: y0 - 6, "text-anchor": "middle" }, g).textContent = label(src[j]);
      m.rows.forEach((row, t) => {
        const want = t < n - 1 ? src[n - 2 - t] : EOS, wrote = m.written[t];
        svgEl("text", { class: wrote === want ? "muted tick" : "wrong tick", x: x0 - 4, y: y0 + (t + 0.7) * cs, "text-anchor": "end" }, g).textContent = label(wrote);
        row.forEach((v, j) => {
          const attrs = { "data-t": t, "data-j": j, "data-w": String(v) };
          if (v === 0) svgEl("circle", { class: "zero", cx: x0 + (j + 0.5) * cs, cy: y0 + (t + 0.5) * cs, r: 1.3, ...attrs }, g);
          else svgEl("rect", { class: "cell", x: x0 + j * cs, y: y0 + t * cs, width: cs, height: cs, "fill-opacity": heatLevel(v).toFixed(3), ...attrs }, g);
        });
      });
      svgEl("rect", { class: "frame", x: x0, y: y0, width: n * cs, height: m.rows.length * cs }, g);
    });
  }

  _selections(res) {
    const [soft, sparse, ent, hard] = res.models;
    const part = (m) => `${m.key === "entmax15" ? "1.5-entmax" : m.key} ${fmt(m.support, 2)} (${pct(m.one)} of steps on one; ` +
      `its largest weight on hard attention's position at ${pct(m.agree)})`;
    const wrong = res.models.filter((m) => !m.right).map((m) => MODELS[res.models.indexOf(m)].label);
    return `"${res.source}" → "${res.answer}". Positions read per step: ${part(soft)}, ${part(sparse)}, ${part(ent)}; ` +
      `hard attention ${fmt(hard.support, 0)} by construction. ` +
      (wrong.length ? `Wrong output (the row labels in red): ${wrong.join(", ")}.` : "All four reverse it.");
  }

  // One group of bars per method (the four parameter points, lighter to darker), on the figure's
  // scale; the method's name beside the group, or above it on a narrow widget.
  _drawBars(f, figure, w) {
    const svg = this._bars, pts = f.points, narrow = w < 500, bh = 11, PT = narrow ? 58 : 46;
    const PL = narrow ? 8 : 150, PR = 52, rowH = pts.length * bh + (narrow ? 24 : 12);
    const names = Object.keys(METHODS), H = PT + rowH * names.length + 22;
    svg.setAttribute("viewBox", `0 0 ${w} ${H}`);
    svg.setAttribute("aria-label", `${FIGURES[figure]}, per method, at four parameter points`);
    svg.replaceChildren();
    const scale = barScale(f, figure, PL, w - PR);
    svgEl("text", { x: 4, y: 14, class: "label" }, svg).textContent = FIGURES[figure];
    const run = pts.filter((p) => p.name !== "shipped").map((p) => p.step).join(", ");
    const shipped = pts.some((p) => p.name === "shipped") ? "; the shipped hard model" : "";
    const order = narrow ? ["top to bottom: the softmax run at", `steps ${run}${shipped}`]
      : [`each group, top to bottom: the softmax run's parameters at steps ${run}${shipped}`];
    order.forEach((line, i) => { svgEl("text", { class: "muted tick", x: 4, y: 30 + 14 * i }, svg).textContent = line; });
    for (const t of scale.ticks) {
      svgEl("path", { class: "axis", d: `M${scale.x(t).toFixed(1)} ${PT - 4}V${H - 20}` }, svg);
      svgEl("text", { class: "muted tick", x: scale.x(t), y: H - 6, "text-anchor": "middle" }, svg).textContent = scale.tick(t);
    }
    names.forEach((name, r) => {
      const y0 = PT + r * rowH + (narrow ? 16 : 0);
      svgEl("text", narrow ? { x: PL, y: y0 - 4 } : { x: PL - 6, y: y0 + (pts.length * bh) / 2 + 4, "text-anchor": "end" }, svg).textContent = METHODS[name].label;
      pts.forEach((p, k) => {
        const m = p.methods.find((q) => q.method === name), v = metricOf(m, p, figure);
        const y = y0 + k * bh, g = svgEl("g", { class: "barrow", "data-method": name, "data-point": p.name, "data-value": String(v) }, svg);
        const x1 = scale.x(v), x0 = scale.x(scale.base);
        svgEl("rect", { class: `bar ${METHODS[name].cls}`, x: Math.min(x0, x1).toFixed(1), y: y.toFixed(1), width: Math.max(1, Math.abs(x1 - x0)).toFixed(1),
          height: bh - 1, "fill-opacity": (0.3 + 0.7 * (k + 1) / pts.length).toFixed(2) }, g);
        if (k === pts.length - 1 || v !== 0) { // a zero said once per group
          svgEl("text", { class: "muted v", x: Math.max(x0, x1) + 3, y: y + bh - 1 }, g).textContent = scale.value(v, name);
        }
      });
    });
  }

  _drawCurves(f, what, w) {
    const svg = this._curves, PL = 46, PR = 14, PT = 12, H = 220, PB = 34, last = f.steps;
    svg.setAttribute("viewBox", `0 0 ${w} ${H}`);
    svg.setAttribute("aria-label", `${what === "loss" ? "training loss" : "held-out exact accuracy"} of the six runs against the step`);
    svg.replaceChildren();
    svgEl("path", { class: "axis", d: `M${PL} ${PT}V${H - PB}H${w - PR}` }, svg);
    const x = (s) => PL + (w - PR - PL) * (s / last);
    const lo = Math.log(1e-3), hi = Math.log(4);
    const y = what === "loss"
      ? (v) => PT + (H - PB - PT) * (hi - Math.log(Math.max(v, 1e-3))) / (hi - lo)
      : (v) => H - PB - v * (H - PB - PT);
    const ticks = what === "loss" ? [0.001, 0.01, 0.1, 1] : [0, 0.5, 1];
    for (const t of ticks) svgEl("text", { class: "muted tick", x: PL - 4, y: y(t) + 4, "text-anchor": "end" }, svg).textContent = what === "loss" ? String(t) : String(100 * t);
    svgEl("path", { class: "axis", "stroke-dasharray": "3 3", d: `M${x(f.mid).toFixed(1)} ${PT}V${H - PB}` }, svg);
    for (const s of [0, f.mid, last]) svgEl("text", { class: "muted tick", x: x(s), y: H - PB + 14, "text-anchor": "middle" }, svg).textContent = String(s);
    svgEl("text", { class: "muted", x: (PL + w - PR) / 2, y: H - 4, "text-anchor": "middle" }, svg).textContent = "training step";
    svgEl("text", { class: "muted", x: 12, y: (PT + H - PB) / 2, transform: `rotate(-90 12 ${(PT + H - PB) / 2})`, "text-anchor": "middle" }, svg).textContent = what === "loss" ? "loss (log)" : "exact %";
    for (const c of f.curves) {
      const { cls, dash } = METHODS[c.method], key = what === "loss" ? "loss" : "val_accuracy";
      const g = svgEl("g", { class: "run", "data-method": c.method }, svg);
      svgEl("path", { class: `curve ${cls}`, "stroke-dasharray": dash || "none", d: c.trace.map((q, k) => `${k ? "L" : "M"}${x(q.step).toFixed(1)} ${y(q[key]).toFixed(1)}`).join("") }, g);
      for (const q of c.trace) svgEl("circle", { class: `dot ${cls}`, cx: x(q.step).toFixed(1), cy: y(q[key]).toFixed(1), r: 2.2, "data-step": q.step, "data-v": String(q[key]) }, g);
    }
  }
}

// ------------------------------------------------------------------ the figures
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x) => `${fmt(100 * x, 0)}%`, pct1 = (x) => `${fmt(100 * x, 1)}%`;
const argmax = (row) => row.indexOf(Math.max(...row));
const sci = (x) => (x === 0 ? "0" : x >= 0.01 && x < 1000 ? x.toPrecision(3) : x.toExponential(1));

/** The figures file, checked: six methods at every point, a trace per run. */
function checkFigures(f) {
  const names = Object.keys(METHODS).join();
  const ok = f && Array.isArray(f.points) && f.points.length > 0 && Array.isArray(f.curves) &&
    f.points.every((p) => Array.isArray(p.methods) && p.methods.map((m) => m.method).join() === names) &&
    f.curves.map((c) => c.method).join() === names && f.curves.every((c) => Array.isArray(c.trace) && c.trace.length > 1);
  if (!ok) throw new Error("rnn-variance.json: not the figures of make rnn-variance");
  return f;
}

/** A method's value of the figure at a point (REINFORCE's bias row: its own noise floor). */
function metricOf(m, p, figure) {
  if (figure === "variance") return m.relvar;
  if (figure === "cosine") return m.cos_soft_one;
  return m.method === "reinforce" ? p.floor : m.dist_reinforce;
}

/** x scale of the bar figure: log for the variance (0 drawn at the axis), linear otherwise. */
function barScale(f, figure, x0, x1) {
  if (figure === "variance") {
    const all = f.points.flatMap((p) => p.methods.map((m) => m.relvar)).filter((v) => v > 0);
    const lo = Math.floor(Math.log10(Math.min(...all))), hi = Math.ceil(Math.log10(Math.max(...all)));
    const ticks = [];
    for (let e = lo; e <= hi; e++) ticks.push(10 ** e);
    return { base: 10 ** lo, ticks, tick: (t) => String(Number(t.toPrecision(1))),
      x: (v) => x0 + (x1 - x0) * (Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo),
      value: (v, name) => (v === 0 ? (EXACT.includes(name) ? "0, exact" : "0, biased") : sci(v)) };
  }
  if (figure === "cosine") {
    return { base: 0, ticks: [-1, -0.5, 0, 0.5, 1], tick: String, x: (v) => x0 + (x1 - x0) * (v + 1) / 2, value: (v) => fmt(v, 2) };
  }
  const max = Math.max(1, ...f.points.flatMap((p) => p.methods.map((m) => m.dist_reinforce)));
  const top = Math.ceil(max);
  return { base: 0, ticks: [...Array(top + 1).keys()], tick: String, x: (v) => x0 + (x1 - x0) * v / top,
    value: (v, name) => (name === "reinforce" ? `${fmt(v, 2)} (its noise floor)` : fmt(v, 2)) };
}

/**
 * The lecture's point with the measured numbers: sparse mappings' selections after training and
 * on the shipped hard model's scores, the estimators' variance, and the accuracy at the middle
 * mark (the same computation as tools/rnn-variance.mjs's finding, in short).
 */
export function lecturePoint(f) {
  const curve = (name) => f.curves.find((c) => c.method === name).points;
  const at = (name, k) => curve(name)[k];
  const end = at("sparsemax", 2), ent = at("entmax15", 2), ship = f.points.find((p) => p.name === "shipped");
  const rv = (name) => f.points.map((p) => p.methods.find((m) => m.method === name).relvar);
  const range = (xs, g) => `${g(Math.min(...xs))} to ${g(Math.max(...xs))}`;
  const acc = (name) => pct1(at(name, 1).val_accuracy);
  const shipSparse = ship && ship.methods.find((m) => m.method === "sparsemax");
  return `Measured natively (make rnn-variance, seed ${f.seed}): after ${f.steps} steps sparsemax reads ` +
    `${fmt(end.support, 2)} positions per step (${pct1(end.support1)} of steps exactly one) and 1.5-entmax ` +
    `${fmt(ent.support, 2)}, softmax all ${fmt(at("softmax", 2).support, 2)}` +
    (shipSparse ? `; over the shipped hard model's sharper scores sparsemax picks exactly one position on ${pct1(shipSparse.support1)} of steps. ` : ". ") +
    `Their gradients are exact (variance 0), where one REINFORCE estimate has a relative variance of ${range(rv("reinforce"), sci)} ` +
    `and straight-through Gumbel ${range(rv("gumbel"), sci)}; the straight-through argmax has none but is biased. ` +
    `At step ${f.mid} the exact-gradient models reverse ${acc("softmax")}, ${acc("sparsemax")} and ${acc("entmax15")} of ` +
    `${f.val} held-out sources (softmax, sparsemax, 1.5-entmax), hard attention ${acc("reinforce")} (REINFORCE), ` +
    `${acc("gumbel")} (Gumbel) and ${acc("straight")} (straight-through argmax).`;
}

define("sx-hard", SxHard);
