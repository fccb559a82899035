// <sx-scores>: attention scoring functions (D2L "Attention Scoring Functions"). A query and a few
// keys in the plane: the reader drags the query (pointer, or the arrow keys on its handle), picks
// a scoring function (dot, scaled dot, bilinear q^T W k, additive wv . tanh(Wq q + Wk k), with
// W, Wq, Wk, wv editable) and a mapping, and sees the scores, the weights (exact zeros marked)
// and the pooled value: the weighted average of the keys' positions, drawn in the plane. Beside
// it, why the scaled dot product divides by sqrt(d): for random q, k of d unit-variance entries,
// q.k has variance d, so unscaled scores push every mapping towards one-hot; the panel draws the
// distribution of the largest weight over random trials, scaled vs unscaled, for the d the
// reader sets (every number from the library: attentionScores, then the mapping).
//   <sx-scores scoring="scaled" mapping="sparsemax" query="0.4 0.2" d="64"></sx-scores>
// Events: sx-scores-change { query, scoring, mapping, scores, weights, pooled, d }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { fitBox } from "./fit-box.js";
import { attentionScores } from "../lib/simplexity.js";
import { mulberry32 } from "./viz/mulberry32.js";

const SCORINGS = ["dot", "scaled", "bilinear", "additive"];
const SCORING_LABEL = { dot: "dot product q·k", scaled: "scaled dot product q·k/√d", bilinear: "bilinear qᵀWk", additive: "additive wᵥ·tanh(W_q q + W_k k)" };
const MAPS = ["softmax", "sparsemax", "entmax15", "entmax"];
const PW = 300, PH = 300, R = 2; // the plane: [-R, R]^2
const HW = 300, HH = 200, BINS = 20, TRIALS = 300, NK = 8;

const CSS = sheet(`
.layout { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.layout > div { flex: 1 1 280px; min-width: 0; }
svg.picture { max-width: 360px; touch-action: none; }
.key { stroke: var(--_fg); stroke-width: 1; fill: var(--_accent); fill-opacity: 0.75; }
.key.zero { fill: none; stroke-dasharray: 3 2; }
.query { fill: var(--_fg); stroke: var(--_bg); stroke-width: 2; cursor: grab; }
@media (pointer: coarse) { circle.query { r: max(8px, calc(12px * var(--_k, 1))); } }
.query:focus { outline: none; stroke: var(--_accent); stroke-width: 3; }
.pooled { fill: none; stroke: var(--_accent); stroke-width: 2; }
.link { stroke: var(--_accent); stroke-opacity: 0.5; }
.bar-scaled { fill: var(--_softmax); fill-opacity: 0.7; }
.bar-dot { fill: var(--_sparsemax); fill-opacity: 0.55; }
.small { --_fs: 11px; }
table { font-variant-numeric: tabular-nums; margin-top: 4.8px; }
td.zero { color: var(--_accent); font-weight: 600; }
.pick { display: flex; gap: 9.6px; flex-wrap: wrap; margin: 4.8px 0; align-items: center; }
.params { display: grid; grid-template-columns: repeat(3, max-content); gap: 3.2px 6.4px; align-items: center; font-size: 13px; }
.params input { width: 67.2px; }
.params[hidden] { display: none; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; font-size: 13px; }
`);

export class SxScores extends SxElement {
  static fitText = true;
  static fitBox = fitBox;
  static spec = {
    scoring: { type: "enum", default: "scaled", values: SCORINGS },
    mapping: { type: "enum", default: "sparsemax", values: MAPS },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    query: { type: "numbers", default: [0.5, 0.3], minLength: 2, maxLength: 2, min: -R, max: R },
    keys: { type: "numbers", default: [1.2, 0.9, -1, 0.8, 0.4, -1.2, 1.5, -0.3], minLength: 2, maxLength: 16, min: -R, max: R },
    // bilinear W (2 x 2, row-major); additive [Wq (2 x 2) | Wk (2 x 2) | wv (2)], hidden size 2
    bilinear: { type: "numbers", default: [1, 0.5, -0.5, 1], minLength: 4, maxLength: 4, min: -5, max: 5 },
    additive: { type: "numbers", default: [1, 0, 0, 1, -1, 0, 0, -1, 2, 2], minLength: 10, maxLength: 10, min: -5, max: 5 },
    d: { type: "number", default: 64, min: 1, max: 1024 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  build(body) {
    const layout = htmlEl("div", { class: "layout" }, body);
    const left = htmlEl("div", {}, layout), right = htmlEl("div", {}, layout);
    const pick = htmlEl("div", { class: "pick", part: "controls" }, left);
    this._scoringSel = select(pick, "scoring", SCORINGS.map((s) => [s, SCORING_LABEL[s]]));
    this._mappingSel = select(pick, "mapping", MAPS.map((m) => [m, MAPPINGS[m].label]));
    this._scoringSel.addEventListener("change", () => { this.scoring = this._scoringSel.value; this._changed(); });
    this._mappingSel.addEventListener("change", () => { this.mapping = this._mappingSel.value; this._changed(); });
    this._plane = svgEl("svg", { class: "picture", viewBox: `0 0 ${PW} ${PH}`, role: "group", "aria-label": "the query and the keys in the plane; drag the query or move it with the arrow keys" }, left);
    this._params = htmlEl("div", { class: "params", part: "params" }, left);
    this._table = htmlEl("table", { part: "table", "aria-label": "each key's score and weight" }, left);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, left);

    this._hist = svgEl("svg", { class: "picture", viewBox: `0 0 ${HW} ${HH}`, role: "img", "aria-label": "distribution of the largest weight of random scores, scaled and unscaled" }, right);
    this._dCtl = rangeControl(right, { label: "d (dimension of q and k)", min: 0, max: 10, step: 0.25, value: 6, format: (v) => String(Math.round(2 ** v)), part: "d-control" });
    this._dCtl.input.addEventListener("input", () => { this.d = Math.round(2 ** Number(this._dCtl.input.value)); this._changed(); });
    this._dText = htmlEl("p", { class: "readout", part: "d-readout" }, right);

    // the query handle: a point with the slider-like keyboard of a 2-D control
    draggable(this._plane, (e) => {
      const [x, y] = svgPoint(this._plane, e);
      this.query = [clamp(unX(x)), clamp(unY(y))];
      this._changed();
    }, () => this._handle?.focus());
    this._plane.addEventListener("keydown", (e) => {
      if (e.target !== this._handle) return;
      const step = e.shiftKey ? 0.5 : 0.1, [qx, qy] = this.query;
      const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      const m = moves[e.key];
      if (!m) return;
      e.preventDefault();
      this.query = [round(clamp(qx + m[0])), round(clamp(qy + m[1]))];
      this._changed();
    });
    this._paramKey = "";
  }

  _changed() {
    this.renderNow();
    if (this._last) this.emit("change", this._last);
  }

  // The params editor: a small matrix of number inputs, rebuilt only when the scoring changes.
  _buildParams(s) {
    const key = s.scoring;
    if (key === this._paramKey) {
      const vals = s.scoring === "bilinear" ? s.bilinear : s.additive;
      this._params.querySelectorAll("input").forEach((inp, i) => { if (this.shadowRoot.activeElement !== inp) inp.value = String(vals[i]); });
      return;
    }
    this._paramKey = key;
    this._params.replaceChildren();
    this._params.hidden = s.scoring === "dot" || s.scoring === "scaled";
    if (this._params.hidden) return;
    const attr = s.scoring, vals = s[attr];
    const rows = attr === "bilinear" ? [["W", 0, 2], ["", 2, 2]] : [["W_q", 0, 2], ["", 2, 2], ["W_k", 4, 2], ["", 6, 2], ["wᵥ", 8, 2]];
    for (const [name, at, len] of rows) {
      htmlEl("span", { text: name }, this._params);
      for (let i = 0; i < len; i++) {
        const inp = htmlEl("input", { type: "number", step: 0.1, min: -5, max: 5, "aria-label": `${attr} parameter ${at + i + 1} (${labelOf(attr, at + i)})`, part: "param" }, this._params);
        inp.value = String(vals[at + i]);
        inp.addEventListener("input", () => {
          const v = Number(inp.value);
          if (inp.value === "" || !Number.isFinite(v)) return;
          const next = this[attr].slice();
          next[at + i] = Math.max(-5, Math.min(5, v));
          this[attr] = next;
          this._changed();
        });
      }
    }
  }

  render(s) {
    this._scoringSel.value = s.scoring;
    this._mappingSel.value = s.mapping;
    this._buildParams(s);
    const keys = Float32Array.from(s.keys.slice(0, s.keys.length - (s.keys.length % 2)));
    const nk = keys.length / 2, q = Float32Array.from(s.query);
    const opts = { nq: 1, nk, scoring: s.scoring };
    if (s.scoring === "bilinear") opts.W = s.bilinear;
    if (s.scoring === "additive") Object.assign(opts, { Wq: s.additive.slice(0, 4), Wk: s.additive.slice(4, 8), wv: s.additive.slice(8, 10) });
    const scores = attentionScores(q, keys, opts);
    const weights = MAPPINGS[s.mapping].run(scores, s.mapping === "entmax" ? { alpha: s.alpha } : {});
    const pooled = [0, 1].map((c) => weights.reduce((acc, w, j) => acc + w * keys[2 * j + c], 0));
    this._out = { scores, weights, pooled };
    this._drawPlane(q, keys, weights, pooled);
    this._drawTable(scores, weights);
    const zeros = weights.filter((w) => w === 0).length;
    this._readout.textContent = `${SCORING_LABEL[s.scoring]} → ${MAPPINGS[s.mapping].label}: ${zeros} of ${nk} weights exactly 0; ` +
      `pooled value (the weighted average of the keys' positions) = (${fmt(pooled[0])}, ${fmt(pooled[1])}).`;
    this._drawHist(s);
    this._last = { query: Array.from(q), scoring: s.scoring, mapping: s.mapping, scores, weights, pooled, d: s.d };
  }

  _drawPlane(q, keys, weights, pooled) {
    const svg = this._plane, nk = weights.length;
    const had = this._handle !== undefined && this.shadowRoot.activeElement === this._handle; // before the handle is replaced
    svg.replaceChildren();
    for (const t of [-2, -1, 0, 1, 2]) {
      svgEl("line", { class: "axis", x1: X(t), x2: X(t), y1: Y(-R), y2: Y(R), "stroke-opacity": t ? 0.4 : 1 }, svg);
      svgEl("line", { class: "axis", x1: X(-R), x2: X(R), y1: Y(t), y2: Y(t), "stroke-opacity": t ? 0.4 : 1 }, svg);
    }
    for (let j = 0; j < nk; j++) {
      const kx = X(keys[2 * j]), ky = Y(keys[2 * j + 1]), w = weights[j];
      if (w > 0) svgEl("line", { class: "link", x1: X(q[0]), y1: Y(q[1]), x2: kx, y2: ky, "stroke-width": (0.5 + 5 * w).toFixed(2) }, svg);
      const c = svgEl("circle", { class: w === 0 ? "key zero" : "key", cx: kx, cy: ky, r: (5 + 12 * Math.sqrt(w)).toFixed(2) }, svg);
      svgEl("title", {}, c).textContent = `key ${j + 1}: weight ${w === 0 ? "0 (exact)" : fmt(w, 3)}`;
      svgEl("text", { x: kx + 9, y: ky - 9, class: "small" }, svg).textContent = w === 0 ? `k${j + 1} · 0` : `k${j + 1}`;
    }
    const [px, py] = [X(pooled[0]), Y(pooled[1])];
    svgEl("path", { class: "pooled", d: `M${px},${py - 7}L${px + 7},${py}L${px},${py + 7}L${px - 7},${py}Z` }, svg);
    svgEl("text", { x: px + 9, y: py + 14, class: "small" }, svg).textContent = "pooled";
    this._handle = svgEl("circle", {
      class: "query", cx: X(q[0]), cy: Y(q[1]), r: 8, tabindex: 0, role: "slider", "aria-label": "query (arrow keys move it; Shift: larger steps)",
      "aria-valuetext": `query at (${fmt(q[0])}, ${fmt(q[1])})`, "aria-valuenow": fmt(q[0]), "aria-valuemin": -R, "aria-valuemax": R, part: "query",
    }, svg);
    svgEl("text", { x: X(q[0]) + 10, y: Y(q[1]) + 4, class: "small" }, svg).textContent = "q";
    if (had) this._handle.focus();
  }

  _drawTable(scores, weights) {
    this._table.replaceChildren();
    const head = htmlEl("tr", {}, htmlEl("thead", {}, this._table));
    for (const t of ["key", "score", "weight"]) htmlEl("th", { text: t }, head);
    const body = htmlEl("tbody", {}, this._table);
    scores.forEach((sc, j) => {
      const tr = htmlEl("tr", {}, body);
      htmlEl("td", { text: `k${j + 1}` }, tr);
      htmlEl("td", { text: fmt(sc, 3), class: "score" }, tr);
      const w = weights[j];
      htmlEl("td", { text: w === 0 ? "0 (exact)" : w.toPrecision(4), class: w === 0 ? "zero weight" : "weight", "data-value": String(w) }, tr);
    });
  }

  // The sqrt(d) panel: TRIALS random (q, k_1..k_NK) of unit-variance entries; the largest weight
  // of the mapping of their dot scores and of their scaled scores, as two histograms.
  _drawHist(s) {
    const d = Math.round(s.d), key = `${d}|${s.mapping}|${s.alpha}`;
    if (key !== this._histKey) {
      this._histKey = key;
      const rnd = mulberry32(1234), normal = () => Math.sqrt(-2 * Math.log(Math.max(rnd(), 1e-12))) * Math.cos(2 * Math.PI * rnd());
      const dot = new Float32Array(TRIALS * NK), scaled = new Float32Array(TRIALS * NK);
      const q = new Float32Array(d), k = new Float32Array(NK * d);
      for (let t = 0; t < TRIALS; t++) {
        for (let i = 0; i < d; i++) q[i] = normal();
        for (let i = 0; i < NK * d; i++) k[i] = normal();
        attentionScores(q, k, { nk: NK, scoring: "dot", out: dot.subarray(t * NK, (t + 1) * NK) });
        attentionScores(q, k, { nk: NK, scoring: "scaled", out: scaled.subarray(t * NK, (t + 1) * NK) });
      }
      const o = { n: NK, ...(s.mapping === "entmax" ? { alpha: s.alpha } : {}) };
      const maxOf = (p) => Array.from({ length: TRIALS }, (_, t) => Math.max(...p.subarray(t * NK, (t + 1) * NK)));
      const variance = (x) => x.reduce((a, v) => a + v * v, 0) / x.length;
      this._stats = {
        d, dot: maxOf(MAPPINGS[s.mapping].run(dot, o)), scaled: maxOf(MAPPINGS[s.mapping].run(scaled, o)),
        varDot: variance(dot), varScaled: variance(scaled),
      };
    }
    const st = this._stats, svg = this._hist;
    this._dCtl.set(Math.log2(d));
    svg.replaceChildren();
    const L = 30, B = HH - 30, T = 26, Wd = HW - L - 10;
    const hist = (xs) => { const h = new Array(BINS).fill(0); for (const v of xs) h[Math.min(BINS - 1, Math.floor(v * BINS))]++; return h; };
    const hd = hist(st.dot), hs = hist(st.scaled), top = Math.max(...hd, ...hs);
    const bw = Wd / BINS;
    [[hs, "bar-scaled", 0], [hd, "bar-dot", bw / 2]].forEach(([h, cls, off]) => h.forEach((c, i) => {
      if (c) svgEl("rect", { class: cls, x: (L + i * bw + off).toFixed(1), y: (B - ((B - T) * c) / top).toFixed(1), width: (bw / 2).toFixed(1), height: (((B - T) * c) / top).toFixed(1) }, svg);
    }));
    svgEl("line", { class: "axis", x1: L, x2: L + Wd, y1: B, y2: B }, svg);
    for (const t of [0, 0.25, 0.5, 0.75, 1]) svgEl("text", { x: L + t * Wd, y: B + 14, class: "muted small", "text-anchor": "middle" }, svg).textContent = String(t);
    this._caption(svg, L + Wd / 2);
    svgEl("rect", { class: "bar-scaled", x: L + 4, y: 6, width: 10, height: 10 }, svg);
    svgEl("text", { x: L + 18, y: 15, class: "small" }, svg).textContent = "scaled q·k/√d";
    svgEl("rect", { class: "bar-dot", x: L + 120, y: 6, width: 10, height: 10 }, svg);
    svgEl("text", { x: L + 134, y: 15, class: "small" }, svg).textContent = "unscaled q·k";
    const mean = (xs) => xs.reduce((a, v) => a + v, 0) / xs.length;
    this._dStats = { d: st.d, meanMaxDot: mean(st.dot), meanMaxScaled: mean(st.scaled), varDot: st.varDot, varScaled: st.varScaled };
    this._dText.textContent = `d = ${st.d}: the scores' variance is ${fmt(st.varDot, 1)} unscaled (about d) and ${fmt(st.varScaled, 2)} scaled (about 1); ` +
      `mean largest weight ${fmt(this._dStats.meanMaxDot)} unscaled vs ${fmt(this._dStats.meanMaxScaled)} scaled.`;
  }

  // The histogram's caption, centred at x: naming the mapping when that line fits inside the
  // viewBox at the text's size as drawn (a phone scales it up), else the short one.
  _caption(svg, x) {
    const t = svgEl("text", { x, y: HH - 3, class: "small", "text-anchor": "middle" }, svg);
    t.textContent = `largest of ${NK} ${MAPPINGS[this.mapping].label} weights, ${TRIALS} trials`;
    if (t.getComputedTextLength() > 2 * (HW - x) - 8) t.textContent = `largest of ${NK} weights, ${TRIALS} trials`;
  }

  /** The scores drawn (one per key), the weights (their mapping) and the pooled value [x, y]. */
  get scores() { return this._out?.scores; }
  get weights() { return this._out?.weights; }
  get pooled() { return this._out?.pooled; }
  /** The 1/sqrt(d) panel's numbers. */
  get dStats() { return this._dStats; }

  pictures() { return [this._plane, this._hist]; }
}

const X = (v) => Number((((v + R) / (2 * R)) * PW).toFixed(2));
const Y = (v) => Number((((R - v) / (2 * R)) * PH).toFixed(2));
const unX = (x) => (x / PW) * 2 * R - R;
const unY = (y) => R - (y / PH) * 2 * R;
const clamp = (v) => Math.max(-R, Math.min(R, v));
const round = (v) => Math.round(v * 100) / 100;

// "W[1][2]", "Wq[2][1]", "wv[1]": the parameter at index i of the attribute.
function labelOf(attr, i) {
  if (attr === "bilinear") return `W[${(i >> 1) + 1}][${(i & 1) + 1}]`;
  if (i >= 8) return `wv[${i - 7}]`;
  const m = i < 4 ? "Wq" : "Wk", j = i % 4;
  return `${m}[${(j >> 1) + 1}][${(j & 1) + 1}]`;
}

function select(parent, label, options) {
  const root = htmlEl("label", { part: `${label}-control` }, parent);
  htmlEl("span", { text: `${label} ` }, root);
  const sel = htmlEl("select", {}, root);
  for (const [value, text] of options) htmlEl("option", { value, text }, sel);
  return sel;
}

define("sx-scores", SxScores);
