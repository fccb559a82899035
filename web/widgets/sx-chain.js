// <sx-chain>: structured attention over a sequence as a chain of attend / skip choices. The scores
// are bars you drag; a transition score rewards (or penalises) attending to neighbours together.
// Below: the CRF marginals (Kim et al. 2017: dense, every position some weight) and SparseMAP's
// (Niculae et al. 2018: exact zeros), then SparseMAP's few whole selections with their weights,
// which average to its row. Weights are in [0, 1] per position, not a distribution.
//   <sx-chain scores="1.2 0.4 0.9 -1.2 -0.3 0.8 0.7 -0.9 0.2 -0.6" transition="0.5"></sx-chain>
// Events: sx-chain-change { scores, transition }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt } from "./base.js";
import { handleRow } from "./handle-row.js";
import { chainAttention, sparsemapSelections } from "../lib/simplexity.js";
import { linear } from "./viz/scale.js";

const W = 560, L = 92, R = 10, ZR = 2.5, TR = 3;
const ROW_TOP = 170, ROW_H = 58, ROW_STEP = 77;
const SEL_TOP = ROW_TOP + 2 * ROW_STEP + 14, SEL_STEP = 22, SEL_SHOWN = 8;

const CSS = sheet(`
svg.picture { max-width: 720px; }
.bar { fill: var(--_muted); opacity: 0.55; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.w { stroke: none; }
.w.zero { fill: none; stroke: var(--_grid); stroke-dasharray: 2 2; }
.m-crf { fill: var(--_softmax); }
.m-sparsemap { fill: var(--_sparsemax); }
.cell { fill: var(--_sparsemax); }
.cell.off { fill: none; stroke: var(--_grid); }
.link { stroke: var(--_sparsemax); stroke-width: 3; }
.zero-line, .one-line { stroke: var(--_muted); }
.one-line { stroke-dasharray: 4 3; }
.label { font-weight: 600; stroke: none; }
.controls { max-width: 448px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
`);

export class SxChain extends SxElement {
  static fitText = true;
  static lazy = true; // no redraw off screen (base.js)
  static spec = {
    scores: { type: "numbers", default: [1.2, 0.4, 0.9, -1.2, -0.3, 0.8, 0.7, -0.9, 0.2, -0.6], minLength: 2, maxLength: 24, min: -ZR, max: ZR },
    transition: { type: "number", default: 0.5, min: -TR, max: TR },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${SEL_TOP}`, role: "group", "aria-label": "scores as bars, the CRF and SparseMAP attention weights, and SparseMAP's selections" }, body);
    this._top = linear([-ZR, ZR], [140, 20]);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._t = rangeControl(ctl, { label: "transition t", min: -TR, max: TR, step: 0.05, value: 0.5, format: (v) => fmt(v) });
    this._t.input.addEventListener("input", () => this._user({ transition: Number(this._t.input.value) }));
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    draggable(this._svg, (e) => {
      const [, y] = svgPoint(this._svg, e);
      if (this._drag !== undefined) this._setScore(this._drag, this._top.invert(y));
    }, (e) => {
      const [x, y] = svgPoint(this._svg, e);
      const n = this.scores.length, i = Math.floor((x - L) / ((W - L - R) / n));
      this._drag = y < 150 && i >= 0 && i < n ? i : undefined;
    });
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { scores: this.scores, transition: this.transition });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.round(Math.max(-ZR, Math.min(ZR, v)) * 100) / 100;
    this._user({ scores: z });
  }

  // The score bars and their handles: rebuilt only when the number of scores changes.
  _buildBars(n) {
    const svg = this._svg, bw = (W - L - R) / n, ys = this._top;
    this._n = n;
    svg.replaceChildren();
    svgEl("text", { x: 4, y: 24, class: "label" }, svg).textContent = "scores u";
    svgEl("text", { x: 4, y: 40, class: "muted" }, svg).textContent = "(drag bars)";
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: ys(0), y2: ys(0) }, svg);
    this._bars = Array.from({ length: n }, (_, i) => {
      const cx = L + (i + 0.5) * bw;
      const bar = svgEl("rect", { class: "bar", x: L + i * bw + bw * 0.15, width: bw * 0.7 }, svg);
      const h = svgEl("g", { role: "slider", "aria-label": `score ${i + 1}`, "aria-valuemin": -ZR, "aria-valuemax": ZR, "aria-orientation": "vertical" }, svg);
      svgEl("circle", { class: "hit-r", r: 14, fill: "transparent", cx }, h);
      svgEl("circle", { class: "ring", r: 10, cx }, h);
      svgEl("circle", { class: "knob", r: 6, cx }, h);
      return { bar, h };
    });
    // one tab stop for the row: left/right pick a bar, up/down (Page Up/Down, Home/End) change it
    this._row = handleRow(this._bars.map((b) => b.h), (e, i) => {
      const v = sliderKey(e.key, this.scores[i], { min: -ZR, max: ZR, step: 0.05, page: 0.5 });
      if (v !== null) { e.preventDefault(); this._setScore(i, v); }
    }, this._row ? this._row.at : 0);
    this._out = svgEl("g", {}, svg);
  }

  // One row of weights in [0, 1]: bars, exact zeros dashed, 1 marked.
  _weights(g, p, r, name, label, note) {
    const n = p.length, bw = (W - L - R) / n, top = ROW_TOP + r * ROW_STEP;
    const y = linear([0, 1], [top + ROW_H, top]);
    svgEl("text", { x: 4, y: top + ROW_H / 2, class: `label m-${name}` }, g).textContent = label;
    svgEl("text", { x: 4, y: top + ROW_H / 2 + 15, class: "muted" }, g).textContent = note;
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: y(0), y2: y(0) }, g);
    svgEl("line", { class: "one-line", x1: L, x2: W - R, y1: y(1), y2: y(1) }, g);
    p.forEach((v, i) => {
      const x = L + i * bw + bw * 0.2;
      const rect = v === 0 ? { class: "w zero", x, width: bw * 0.6, y: y(0) - 2, height: 2 }
        : { class: `w m-${name}`, x, width: bw * 0.6, y: y(v), height: y(0) - y(v) };
      svgEl("title", {}, svgEl("rect", rect, g)).textContent = `${label} weight ${i + 1}: ${v === 0 ? "exactly 0" : v.toFixed(4)}`;
    });
  }

  // SparseMAP's selections, one line each: a cell per position, filled where it attends.
  _selections(g, sel, n) {
    const bw = (W - L - R) / n, shown = sel.selections.slice(0, SEL_SHOWN);
    svgEl("text", { x: 4, y: SEL_TOP, class: "label m-sparsemap" }, g).textContent = "selections";
    shown.forEach(({ positions, weight }, s) => {
      const y = SEL_TOP + 8 + s * SEL_STEP, on = new Set(positions);
      svgEl("text", { x: 4, y: y + 13, class: "muted" }, g).textContent = `weight ${weight.toFixed(3)}`;
      for (let i = 0; i + 1 < n; i++) {
        if (on.has(i) && on.has(i + 1)) svgEl("line", { class: "link", x1: L + (i + 0.5) * bw, x2: L + (i + 1.5) * bw, y1: y + 8, y2: y + 8 }, g);
      }
      for (let i = 0; i < n; i++) {
        svgEl("rect", { class: on.has(i) ? "cell" : "cell off", x: L + i * bw + bw * 0.3, width: bw * 0.4, y: y + 2, height: 12, rx: 2 }, g);
      }
      svgEl("title", {}, g.lastChild).textContent = `selection ${s + 1}: positions ${positions.map((i) => i + 1).join(", ") || "none"}, weight ${weight.toFixed(4)}`;
    });
    return SEL_TOP + 8 + Math.max(1, shown.length) * SEL_STEP + (sel.count > SEL_SHOWN ? 16 : 4);
  }

  render(s) {
    const z = s.scores, n = z.length, t = s.transition, ys = this._top;
    this._t.set(t);
    if (n !== this._n) this._buildBars(n);
    this._bars.forEach(({ bar, h }, i) => {
      const y0 = ys(0), y1 = ys(z[i]);
      bar.setAttribute("y", Math.min(y0, y1).toFixed(1));
      bar.setAttribute("height", Math.max(0.5, Math.abs(y1 - y0)).toFixed(1));
      for (const c of h.children) c.setAttribute("cy", y1.toFixed(1));
      h.setAttribute("aria-valuenow", fmt(z[i]));
      h.setAttribute("aria-valuetext", fmt(z[i]));
    });
    const crf = chainAttention(z, { transition: t }), sm = chainAttention(z, { method: "sparsemap", transition: t });
    const sel = sparsemapSelections(z, { transition: t }), g = this._out;
    g.replaceChildren();
    this._weights(g, crf, 0, "crf", "CRF", "marginals");
    this._weights(g, sm, 1, "sparsemap", "SparseMAP", `t = ${fmt(t)}`);
    let height = this._selections(g, sel, n);
    if (sel.count > SEL_SHOWN) {
      svgEl("text", { x: L, y: height - 4, class: "muted" }, g).textContent = `and ${sel.count - SEL_SHOWN} more`;
    }
    this._svg.setAttribute("viewBox", `0 0 ${W} ${height.toFixed(0)}`);
    const zeros = Array.from(sm).filter((v) => v === 0).length, low = Math.min(...crf);
    this._readout.textContent = `CRF: every position weighted (smallest ${low.toFixed(3)}) · SparseMAP: ` +
      `${sel.count} selection${sel.count === 1 ? "" : "s"}, ${zeros} of ${n} positions exactly 0 · weights in [0, 1] per position, not summing to 1`;
  }
}

define("sx-chain", SxChain);
