// <sx-jacobian>: the whole Jacobian dp/dz of a mapping as a heatmap (row i, column j: how p_i
// moves when z_j moves), beside the scores z (bars to drag), the output p (exact zeros marked)
// and, for three scores, the simplex.
//   <sx-jacobian mapping="sparsemax" compare="softmax" n="3" scores="0.99 0.01 -1" alpha="1.5"
//                lambda="0.3" beta="0.2" temperature="1" from="0.99 0.01 -1" to="0.5 0.5 -1" t="0">
//   </sx-jacobian>
// The "along the face" slider t moves the scores from `from` (t = 0) to `to` (t = 1); by default
// sparsemax goes from p = [.99, .01, 0] to [.5, .5, 0] with its support fixed, so its Jacobian
// stays exactly the same while softmax's (the `compare` heatmap) changes. The numbers are the
// library's jacobian(); the line below them is the closed form (diag(s) - s s^T / sum s) / T,
// s = p^(2 - alpha) on the support. Events: sx-jacobian-change { scores, mapping, t, p, jacobian }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { handleRow } from "./handle-row.js";
import { jacobian } from "../lib/mappings.js";
import { parseAttr } from "./viz/parse-attr.js";
import { linear } from "./viz/scale.js";
import { heatmapLayout } from "./viz/heatmap.js";
import { divergingLevel, niceMax } from "./viz/diverging.js";
import { faceEnds, lerpScores, pathT } from "./viz/face-path.js";
import { entmaxWeights } from "./viz/entmax-jacobian.js";
import { ternaryCorners, ternaryXY } from "./viz/ternary.js";

const NAMES = ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"];
const ZMAX = 3, NMAX = 8, SHOW_VALUES = 5; // values are printed in the cells up to n = 5
const BW = 300, BH = 318, BL = 34, BR = 8; // the bars: scores on top, p below
const TS = 150, TPAD = 22; // the small simplex (n = 3)
const LEGEND = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];
const SUB = "₀₁₂₃₄₅₆₇₈₉";
const sub = (k) => String(k).replace(/\d/g, (d) => SUB[d]);
const num = (v, d = 3) => (v === 0 ? "0" : fmt(v, d)).replace("-", "−");
// alpha of the alpha-entmax family (null: fusedmax and oscarmax have no closed form in p)
const familyAlpha = (name, s) => ({ softmax: 1, sparsemax: 2, entmax15: 1.5, entmax: s.alpha }[name] ?? null);

const CSS = sheet(`
:host { container: sxj / inline-size; --_pos: var(--sx-positive, #c0392b); --_neg: var(--sx-negative, #2f6db5); }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { --_pos: var(--sx-positive, #ff7b6b); --_neg: var(--sx-negative, #7fa8e8); } }
:host([theme="dark"]) { --_pos: var(--sx-positive, #ff7b6b); --_neg: var(--sx-negative, #7fa8e8); }
.grid { display: grid; grid-template-columns: minmax(0, 5fr) minmax(0, 7fr); gap: 12px; align-items: start; }
.right { display: grid; gap: 8px; justify-items: center; }
.lower { display: grid; grid-template-columns: minmax(0, 368px) minmax(0, 1fr); gap: 16px; align-items: start; margin-top: 8px; }
@container sxj (max-width: 640px) { .grid, .lower { grid-template-columns: minmax(0, 1fr); } }
svg.bars { max-width: 360px; }
svg.jac { max-width: 560px; }
svg.tri { max-width: 230px; }
.bar { fill: var(--_muted); opacity: 0.5; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.zero-line { stroke: var(--_muted); }
.pbar { stroke: none; }
.pbar.zero { fill: none; stroke: var(--_accent); stroke-dasharray: 2 2; }
text.pzero { fill: var(--_accent); font-weight: 700; }
text.label { font-weight: 600; stroke: none; }
.cell { stroke: var(--_grid); stroke-width: 0.6; }
.cell.pos { fill: var(--_pos); }
.cell.neg { fill: var(--_neg); }
.cell.zero { fill: none; }
text.val { --_fs: 12px; text-anchor: middle; font-variant-numeric: tabular-nums; pointer-events: none; }
text.val.strong { fill: var(--_bg); }
text.val.zero { fill: var(--_muted); }
.zdot { fill: var(--_muted); stroke: none; }
.tri .edge.hot { stroke: var(--_accent); stroke-width: 3; }
.fpath { fill: none; stroke-width: 2; stroke-opacity: 0.75; }
.pt { stroke: var(--_bg); stroke-width: 1.5; }
.readout, .formula, .face, .note { margin: 4.8px 0 0; font-variant-numeric: tabular-nums; }
.note { color: var(--_muted); font-size: 13px; }
`);

export class SxJacobian extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    mapping: { type: "enum", default: "sparsemax", values: NAMES },
    compare: { type: "enum", default: "softmax", values: ["none", ...NAMES] },
    n: { type: "number", default: 3, min: 2, max: NMAX, integer: true },
    scores: { type: "numbers", default: [0.99, 0.01, -1], minLength: 2, maxLength: NMAX, min: -ZMAX, max: ZMAX },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    lambda: { type: "number", default: 0.3, min: 0, max: 2 },
    beta: { type: "number", default: 0.2, min: 0, max: 2 },
    temperature: { type: "number", default: 1, min: 0.01, max: 10 },
    from: { type: "numbers", default: [0.99, 0.01, -1], minLength: 2, maxLength: NMAX, min: -ZMAX, max: ZMAX },
    to: { type: "numbers", default: [0.5, 0.5, -1], minLength: 2, maxLength: NMAX, min: -ZMAX, max: ZMAX },
    t: { type: "number", default: 0, min: 0, max: 1 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  // The lists depend on n: from and to default to faceEnds(n), the scores to the face path's
  // point at t; a list whose length is not n falls back to that, with a message.
  settings() {
    const r = super.settings(), { s, errors } = r, spec = this.constructor.spec;
    const ends = faceEnds(s.n);
    const sized = (name, fallback) => {
      const raw = this.getAttribute(name);
      if (raw === null || parseAttr(name, raw, spec[name]).error) return fallback;
      if (s[name].length === s.n) return s[name];
      errors.push(`${name}="${raw.slice(0, 40)}" has ${s[name].length} numbers but n is ${s.n}; using ${name === "scores" ? "the face path's point at t" : fallback.join(" ")}`);
      return fallback;
    };
    s.from = sized("from", ends.from);
    s.to = sized("to", ends.to);
    s.scores = sized("scores", lerpScores(s.from, s.to, s.t));
    return r;
  }

  get scores() { return this.settings().s.scores; }
  set scores(v) { this._setList("scores", v); }
  get from() { return this.settings().s.from; }
  set from(v) { this._setList("from", v); }
  get to() { return this.settings().s.to; }
  set to(v) { this._setList("to", v); }
  /** The Jacobian shown (n * n, row-major, J[i*n + j] = dp_i/dz_j); null before the first render. */
  get jacobian() { return this._main ? this._main.J.slice() : null; }
  /** The output p shown; null before the first render. */
  get p() { return this._main ? this._main.p.slice() : null; }

  _setList(name, v) {
    if (v === null || v === undefined) this.removeAttribute(name);
    else this.setAttribute(name, Array.from(v, (x) => Number(Number(x).toFixed(4))).join(" "));
  }

  build(body) {
    const grid = htmlEl("div", { class: "grid" }, body);
    const bars = this._bars = svgEl("svg", { class: "picture bars", viewBox: `0 0 ${BW} ${BH}`, role: "group", "aria-label": "the scores z (drag or use the arrow keys) and the output p" }, grid);
    this._zs = linear([-ZMAX, ZMAX], [150, 24]);
    this._ps = linear([0, 1], [BH - 24, 200]);
    draggable(bars, (e) => {
      if (this._drag === undefined) return;
      const [, y] = svgPoint(bars, e);
      this._setScore(this._drag, Math.round(this._zs.invert(y) * 100) / 100);
    }, (e) => {
      const [x, y] = svgPoint(bars, e);
      const n = this._n || 3, i = Math.floor((x - BL) / ((BW - BL - BR) / n));
      this._drag = y < 165 && i >= 0 && i < n ? i : undefined;
    });
    const right = htmlEl("div", { class: "right" }, grid);
    this._jac = svgEl("svg", { class: "picture jac", role: "img", "aria-label": "the Jacobian" }, right);
    this._tri = svgEl("svg", { class: "picture tri", viewBox: `0 0 ${TS + 2 * TPAD} ${TS * 0.866 + 2 * TPAD + 14}`, role: "img",
      "aria-label": "the simplex: p and its path along the face" }, right);
    this._buildTriangle();

    const lower = htmlEl("div", { class: "lower" }, body);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, lower);
    const select = (label, values, attr) => {
      const l = htmlEl("label", {}, ctl);
      htmlEl("span", { text: label }, l);
      const sel = htmlEl("select", {}, l);
      for (const [v, t] of values) htmlEl("option", { value: v, text: t }, sel);
      sel.addEventListener("change", () => this._user({ [attr]: sel.value }));
      return sel;
    };
    const labels = NAMES.map((v) => [v, MAPPINGS[v].label]);
    this._mapSel = select("mapping", labels, "mapping");
    this._cmpSel = select("compare with", [["none", "none"], ...labels], "compare");
    this._alpha = rangeControl(ctl, { label: "α (α-entmax)", min: 1, max: 4, step: 0.01, value: 1.5, format: (v) => fmt(v) });
    this._lambda = rangeControl(ctl, { label: "λ (fusedmax)", min: 0, max: 2, step: 0.01, value: 0.3, format: (v) => fmt(v) });
    this._beta = rangeControl(ctl, { label: "β (oscarmax)", min: 0, max: 2, step: 0.01, value: 0.2, format: (v) => fmt(v) });
    this._logT = rangeControl(ctl, { label: "temperature T", min: -2, max: 1, step: 0.01, value: 0, format: (v) => (10 ** v).toPrecision(3) });
    this._t = rangeControl(ctl, { label: "along the face, t", min: 0, max: 1, step: 0.01, value: 0, format: (v) => fmt(v), part: "face" });
    this._alpha.input.addEventListener("input", () => this._user({ alpha: Number(this._alpha.input.value) }));
    this._lambda.input.addEventListener("input", () => this._user({ lambda: Number(this._lambda.input.value) }));
    this._beta.input.addEventListener("input", () => this._user({ beta: Number(this._beta.input.value) }));
    this._logT.input.addEventListener("input", () => this._user({ temperature: Number((10 ** Number(this._logT.input.value)).toPrecision(4)) }));
    // t puts the scores back on the path: the attribute goes, the scores follow t
    this._t.input.addEventListener("input", () => this._user({ t: Number(this._t.input.value), scores: null }));
    const text = htmlEl("div", {}, lower);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, text);
    this._formula = htmlEl("p", { class: "formula", part: "formula" }, text);
    this._face = htmlEl("p", { class: "face", part: "face-readout" }, text);
    htmlEl("p", { class: "note", part: "note", text: "Row i, column j: how much p_i moves per unit of z_j. Each row sums to 0 (p stays on the simplex) " +
      "and J is symmetric. Sparsemax's J depends on the support alone (Martins & Astudillo 2016); α-entmax's on p^(2−α) over the support " +
      "(Peters, Niculae & Martins 2019); every one is the Hessian of a regularised max, the curvature of its Fenchel-Young loss " +
      "(Blondel, Martins & Niculae 2020)." }, text);
  }

  _buildTriangle() {
    const g = svgEl("g", { transform: `translate(${TPAD},${TPAD})` }, this._tri);
    const c = ternaryCorners(TS, 0);
    this._edges = [[1, 2], [0, 2], [0, 1]].map(([a, b]) => svgEl("line", { class: "edge", x1: c[a][0], y1: c[a][1], x2: c[b][0], y2: c[b][1] }, g));
    [[0, -7], [-9, 13], [9, 13]].forEach(([dx, dy], i) => {
      svgEl("text", { x: c[i][0] + dx, y: c[i][1] + dy, "text-anchor": "middle", class: "muted" }, g).textContent = `p${sub(i + 1)} = 1`;
    });
    this._triG = svgEl("g", {}, g);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    if (!this._ready) return;
    const { s } = this.settings();
    const { p, J: jacobian } = this._compute(s.mapping, s.scores, s);
    this.emit("change", { scores: s.scores, mapping: s.mapping, t: s.t, p, jacobian });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.min(ZMAX, Math.max(-ZMAX, Math.round(v * 1e4) / 1e4));
    this._user({ scores: z });
  }

  _opts(name, s, n) {
    const o = { n, temperature: s.temperature };
    if (name === "entmax") o.alpha = s.alpha;
    if (name === "fusedmax") o.lambda = s.lambda;
    if (name === "oscarmax") o.beta = s.beta;
    return o;
  }

  // p and the Jacobian of one mapping at the scores z
  _compute(name, z, s) {
    const x = Float64Array.from(z), o = this._opts(name, s, x.length);
    return { name, p: MAPPINGS[name].run(x, o), J: jacobian(x, { ...o, mapping: name }) };
  }

  render(s) {
    const n = s.n, z = s.scores;
    this._mapSel.value = s.mapping; this._cmpSel.value = s.compare;
    this._alpha.set(s.alpha); this._lambda.set(s.lambda); this._beta.set(s.beta);
    this._logT.set(Math.log10(s.temperature)); this._t.set(s.t);
    const uses = (m) => s.mapping === m || s.compare === m;
    this._alpha.root.style.display = uses("entmax") ? "" : "none";
    this._lambda.root.style.display = uses("fusedmax") ? "" : "none";
    this._beta.root.style.display = uses("oscarmax") ? "" : "none";
    const main = this._compute(s.mapping, z, s);
    const cmp = s.compare === "none" ? null : this._compute(s.compare, z, s);
    const shown = cmp ? [main, cmp] : [main];
    if (n !== this._n) this._buildBars(n);
    if (`${n}|${shown.length}` !== this._jacKey) this._buildMatrices(n, shown.length);
    this._drawBars(s, main);
    this._drawMatrices(s, shown);
    this._tri.setAttribute("display", n === 3 ? "block" : "none");
    if (n === 3) this._drawTriangle(s, shown);
    this._drawText(s, main, cmp);
    this._main = main;
  }

  // the simplex is exported only when it is drawn (n = 3)
  pictures() { return super.pictures().filter((svg) => svg.getAttribute("display") !== "none"); }

  // ---------------------------------------------------------------- scores and p
  _buildBars(n) {
    this._n = n;
    const svg = this._bars, bw = (BW - BL - BR) / n, zs = this._zs, ps = this._ps;
    svg.replaceChildren();
    svgEl("text", { x: 2, y: 12, class: "label" }, svg).textContent = "scores z";
    svgEl("text", { x: BW - BR, y: 12, "text-anchor": "end", class: "muted keys" }, svg).textContent = "drag, or arrow keys";
    svgEl("line", { class: "zero-line", x1: BL, x2: BW - BR, y1: zs(0), y2: zs(0) }, svg);
    for (const v of [-ZMAX, 0, ZMAX]) svgEl("text", { x: BL - 6, y: zs(v) + 4, "text-anchor": "end", class: "muted" }, svg).textContent = num(v, 0);
    svgEl("text", { x: 2, y: 186, class: "label" }, svg).textContent = "output p";
    svgEl("line", { class: "zero-line", x1: BL, x2: BW - BR, y1: ps(0), y2: ps(0) }, svg);
    for (const v of [0, 1]) svgEl("text", { x: BL - 6, y: ps(v) + 4, "text-anchor": "end", class: "muted" }, svg).textContent = String(v);
    this._cols = Array.from({ length: n }, (_, i) => {
      const cx = BL + (i + 0.5) * bw, w = Math.min(34, bw * 0.6);
      const bar = svgEl("rect", { class: "bar", x: cx - w / 2, width: w }, svg);
      const h = svgEl("g", { role: "slider", "aria-label": `score z${i + 1}`, "aria-valuemin": -ZMAX, "aria-valuemax": ZMAX, "aria-orientation": "vertical" }, svg);
      svgEl("circle", { class: "hit-r", r: 14, fill: "transparent", cx }, h);
      svgEl("circle", { class: "ring", r: 11, cx }, h);
      svgEl("circle", { class: "knob", r: 7, cx }, h);
      const zval = svgEl("text", { x: cx, "text-anchor": "middle", class: "muted" }, svg);
      svgEl("text", { x: cx, y: 168, "text-anchor": "middle" }, svg).textContent = `z${sub(i + 1)}`;
      const pbar = svgEl("rect", { class: "pbar", x: cx - w / 2, width: w }, svg);
      const ptitle = svgEl("title", {}, pbar);
      const pval = svgEl("text", { x: cx, "text-anchor": "middle" }, svg);
      svgEl("text", { x: cx, y: BH - 6, "text-anchor": "middle" }, svg).textContent = `p${sub(i + 1)}`;
      return { bar, h, zval, pbar, ptitle, pval };
    });
    // one tab stop for the scores: ←/→ pick one, ↑/↓ (Page Up/Down, Home/End) change it
    this._row = handleRow(this._cols.map((c) => c.h), (e, i) => {
      const v = sliderKey(e.key, this.scores[i], { min: -ZMAX, max: ZMAX, step: 0.05, page: 0.5 });
      if (v !== null) { e.preventDefault(); this._setScore(i, v); }
    }, this._row ? this._row.at : 0);
  }

  _drawBars(s, main) {
    const zs = this._zs, ps = this._ps, z = s.scores;
    this._cols.forEach((c, i) => {
      const y0 = zs(0), y1 = zs(z[i]);
      c.bar.setAttribute("y", Math.min(y0, y1).toFixed(1));
      c.bar.setAttribute("height", Math.max(0.5, Math.abs(y1 - y0)).toFixed(1));
      for (const k of c.h.children) k.setAttribute("cy", y1.toFixed(1));
      c.h.setAttribute("aria-valuenow", fmt(z[i]));
      c.h.setAttribute("aria-valuetext", `z${i + 1} = ${fmt(z[i])}`);
      c.zval.setAttribute("y", (z[i] >= 0 ? y1 - 13 : y1 + 22).toFixed(1));
      c.zval.textContent = num(z[i], 2);
      const v = main.p[i], zero = v === 0;
      c.pbar.setAttribute("class", zero ? "pbar zero" : `pbar m-${main.name}`);
      c.pbar.setAttribute("y", (zero ? ps(0) - 2 : ps(v)).toFixed(1));
      c.pbar.setAttribute("height", (zero ? 2 : ps(0) - ps(v)).toFixed(1));
      c.ptitle.textContent = `p${i + 1} = ${zero ? "exactly 0" : v.toFixed(6)}`;
      c.pval.setAttribute("y", ((zero ? ps(0) : ps(v)) - 6).toFixed(1));
      c.pval.setAttribute("class", zero ? "pzero" : "");
      c.pval.textContent = zero ? "0" : num(v);
    });
  }

  // ---------------------------------------------------------------- the heatmaps
  _buildMatrices(n, count) {
    this._jacKey = `${n}|${count}`;
    const cell = n <= 3 ? 54 : n <= 5 ? 42 : 30;
    const lay = this._lay = heatmapLayout({ nq: n, nk: n, cols: count, width: 10000, top: 20, labelW: 30, labelH: 18, captionH: 8,
      gap: 26, minCell: cell, maxCell: cell });
    const H = lay.height + 44, W = Math.max(lay.width, 250);
    const svg = this._jac;
    svg.setAttribute("viewBox", `-4 0 ${W + 8} ${H}`);
    svg.replaceChildren();
    this._mats = Array.from({ length: count }, (_, c) => {
      const [x0, y0] = lay.origin(0, c);
      const g = svgEl("g", { class: `matrix ${c ? "compare" : "main"}` }, svg);
      const title = svgEl("text", { x: x0 - 26, y: 14, class: "label" }, g);
      for (let k = 0; k < n; k++) {
        svgEl("text", { x: x0 + (k + 0.5) * cell, y: y0 - 5, "text-anchor": "middle", class: "muted" }, g).textContent = `z${sub(k + 1)}`;
        svgEl("text", { x: x0 - 5, y: y0 + (k + 0.5) * cell + 4, "text-anchor": "end", class: "muted" }, g).textContent = `p${sub(k + 1)}`;
      }
      const cells = [];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const [x, y] = lay.cellXY(0, c, i, j);
          const rect = svgEl("rect", { class: "cell", x, y, width: cell, height: cell, "data-i": i, "data-j": j }, g);
          const tip = svgEl("title", {}, rect);
          const val = n <= SHOW_VALUES ? svgEl("text", { class: "val", x: x + cell / 2, y: y + cell / 2 + 4 }, g) : null;
          const dot = n > SHOW_VALUES ? svgEl("circle", { class: "zdot", cx: x + cell / 2, cy: y + cell / 2, r: 1.8 }, g) : null;
          cells.push({ rect, tip, val, dot });
        }
      }
      return { g, title, cells };
    });
    // the legend: the colour of -max ... max, and what a blank cell is
    const ly = lay.height + 14, lw = 16, lx = 30;
    this._legend = svgEl("g", { class: "legend" }, svg);
    LEGEND.forEach((f, k) => {
      const { side, level } = divergingLevel(f, 1);
      svgEl("rect", { class: `cell ${side}`, x: lx + k * lw, y: ly, width: lw, height: 10, "fill-opacity": level.toFixed(3) }, this._legend);
    });
    this._legendLo = svgEl("text", { x: lx, y: ly + 24, "text-anchor": "middle", class: "muted" }, this._legend);
    svgEl("text", { x: lx + (LEGEND.length * lw) / 2, y: ly + 24, "text-anchor": "middle", class: "muted" }, this._legend).textContent = "0";
    this._legendHi = svgEl("text", { x: lx + LEGEND.length * lw, y: ly + 24, "text-anchor": "middle", class: "muted" }, this._legend);
    svgEl("text", { x: lx + LEGEND.length * lw + 24, y: ly + 9, class: "muted" }, this._legend).textContent = "a blank cell is an exact 0";
  }

  _drawMatrices(s, shown) {
    const n = s.n;
    let m = 0;
    for (const { J } of shown) for (const v of J) m = Math.max(m, Math.abs(v));
    const max = niceMax(m);
    this._legendLo.textContent = num(-max, 2);
    this._legendHi.textContent = num(max, 2);
    const label = [];
    shown.forEach(({ name, J }, c) => {
      const mat = this._mats[c];
      mat.g.setAttribute("data-mapping", name);
      mat.title.textContent = `∂p/∂z · ${MAPPINGS[name].label}${name === "entmax" ? ` α = ${fmt(s.alpha)}` : ""}`;
      mat.title.setAttribute("class", `label m-${name}`);
      for (let k = 0; k < n * n; k++) {
        const v = J[k], { rect, tip, val, dot } = mat.cells[k], { side, level } = divergingLevel(v, max);
        rect.setAttribute("class", `cell ${side}`);
        rect.setAttribute("fill-opacity", level.toFixed(3));
        rect.setAttribute("data-value", String(v));
        const i = Math.floor(k / n), j = k % n;
        tip.textContent = `∂p${sub(i + 1)}/∂z${sub(j + 1)} = ${v === 0 ? "exactly 0" : v.toPrecision(6)}`;
        if (val) {
          val.textContent = num(v);
          val.setAttribute("class", `val${v === 0 ? " zero" : level > 0.55 ? " strong" : ""}`);
        }
        if (dot) dot.setAttribute("display", v === 0 ? "inline" : "none");
      }
      const rows = Array.from({ length: n }, (_, i) => `row ${i + 1}: ${Array.from(J.subarray(i * n, i * n + n), (v) => num(v)).join(", ")}`);
      label.push(`Jacobian of ${MAPPINGS[name].label}, rows p, columns z; ${rows.join("; ")}`);
    });
    this._jac.setAttribute("aria-label", label.join(". "));
  }

  // ---------------------------------------------------------------- the simplex (n = 3)
  _drawTriangle(s, shown) {
    const g = this._triG, K = 24;
    g.replaceChildren();
    const hot = [false, false, false];
    const x = new Float64Array(3 * (K + 1));
    for (let k = 0; k <= K; k++) x.set(lerpScores(s.from, s.to, k / K), 3 * k);
    for (const { name, p } of shown) {
      const path = MAPPINGS[name].run(x, this._opts(name, s, 3));
      let d = "";
      for (let k = 0; k <= K; k++) {
        const [px, py] = ternaryXY(path.subarray(3 * k, 3 * k + 3), TS, 0);
        d += `${k ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`;
      }
      svgEl("path", { class: `fpath m-${name}`, d }, g);
      const [px, py] = ternaryXY(p, TS, 0);
      svgEl("title", {}, svgEl("circle", { class: `pt m-${name}`, cx: px.toFixed(1), cy: py.toFixed(1), r: 5 }, g)).textContent =
        `${MAPPINGS[name].label}: p = [${Array.from(p, (v) => num(v)).join(", ")}]`;
      p.forEach((v, i) => { if (v === 0) hot[i] = true; });
    }
    this._edges.forEach((e, i) => e.classList.toggle("hot", hot[i]));
  }

  // ---------------------------------------------------------------- the text
  _drawText(s, main, cmp) {
    const n = s.n, p = main.p, label = MAPPINGS[main.name].label;
    const support = [];
    p.forEach((v, i) => { if (v > 0) support.push(i + 1); });
    const zeros = n - support.length;
    this._readout.textContent = `${label}: p = [${Array.from(p, (v) => num(v)).join(", ")}] · support S = {${support.join(", ")}}, ` +
      `|S| = ${support.length}${zeros ? ` · ${zeros} exact zero${zeros > 1 ? "s" : ""}` : ""}`;
    const a = familyAlpha(main.name, s), T = s.temperature === 1 ? "" : ` / T (T = ${s.temperature.toPrecision(3)})`;
    if (a === null) {
      this._formula.textContent = `${label} has no closed form in p: row i of J is its backward pass with dy = e_i ` +
        `(${main.name === "fusedmax" ? "neighbours fused into one run" : "scores pooled into one cluster"} share their rows; rows and columns off the support are 0).`;
    } else {
      const w = entmaxWeights(p, a);
      let sum = 0;
      for (const v of w) sum += v;
      const why = main.name === "sparsemax" ? "s is the support's indicator, so J = I − 1 1ᵀ/|S| on S and 0 elsewhere: it depends on the support alone, not on p"
        : main.name === "softmax" ? "α = 1: s = p and Σs = 1, so J = diag(p) − p pᵀ, which changes with every p"
          : "s changes with p inside the support; rows and columns off the support are 0";
      this._formula.textContent = `J = (diag(s) − s sᵀ / Σs)${T} with s = p^(2−α) on S, α = ${fmt(a)}: ` +
        `s = [${Array.from(w, (v) => num(v, 4)).join(", ")}], Σs = ${num(sum, 4)}; ${why}.`;
    }
    const t = pathT(s.scores, s.from, s.to);
    if (t === null) {
      this._face.textContent = "The scores are off the face path: move t to put them back on it.";
    } else {
      const z0 = s.from;
      const moved = [main, cmp].filter(Boolean).map(({ name, J }) => {
        const J0 = this._compute(name, z0, s).J;
        let d = 0;
        for (let k = 0; k < J.length; k++) d = Math.max(d, Math.abs(J[k] - J0[k]));
        return `${MAPPINGS[name].label} ${d === 0 ? "0 (exactly)" : d.toPrecision(3)}`;
      });
      this._face.textContent = `Along the face at t = ${fmt(t)}; the largest change of J since t = 0: ${moved.join(", ")}.`;
    }
  }
}

define("sx-jacobian", SxJacobian);
