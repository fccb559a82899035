// <sx-two-choice>: alpha-entmax([t, 0])_1 against t for several alpha, with an alpha slider and
// a draggable t cursor.
//   <sx-two-choice alphas="1 1.25 1.5 2 3" alpha="1.5" t="0.5"></sx-two-choice>
// Softmax (alpha = 1) is the logistic sigmoid and never reaches 0 or 1; for alpha > 1 the curve
// saturates at |t| = 1 / (alpha - 1): exactly 0 or 1 beyond. One batched call per curve.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt } from "./base.js";
import { entmax } from "../lib/mappings.js";
import { linear, ticks } from "./viz/scale.js";

const W = 460, H = 270, L = 40, R = 14, T = 14, B = 34, N = 241, TR = 3;
const PALETTE = ["softmax", "entmax15", "entmax", "sparsemax", "fusedmax", "oscarmax"];

const CSS = sheet(`
svg.picture { max-width: 620px; }
.curve { fill: none; stroke-width: 1.8; }
.curve.hi { stroke: var(--_accent); stroke-width: 3.2; }
.cursor line { stroke: var(--_fg); stroke-dasharray: 3 3; }
.cursor .knob { fill: var(--_fg); cursor: ew-resize; }
.cursor .ring { fill: none; stroke: transparent; }
.cursor .hit { fill: transparent; cursor: ew-resize; x: min(-12px, calc(-14px * var(--_k, 1))); width: max(24px, calc(28px * var(--_k, 1))); }
.mark { stroke: var(--_bg); stroke-width: 1.2; }
.mark.hi { fill: var(--_accent); }
.controls { max-width: 448px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
`);

export class SxTwoChoice extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    alphas: { type: "numbers", default: [1, 1.25, 1.5, 2, 3], minLength: 1, maxLength: 8, min: 1, max: 8 },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    t: { type: "number", default: 0.5, min: -TR, max: TR },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const svg = this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "alpha-entmax of [t, 0], first weight, against t" }, body);
    this._sx = linear([-TR, TR], [L, W - R]);
    this._sy = linear([0, 1], [H - B, T]);
    const { _sx: sx, _sy: sy } = this;
    for (const t of ticks(-TR, TR, 6)) {
      svgEl("line", { class: "axis", x1: sx(t), x2: sx(t), y1: sy(0), y2: sy(1) }, svg);
      svgEl("text", { x: sx(t), y: H - B + 16, "text-anchor": "middle", class: "muted" }, svg).textContent = String(t);
    }
    for (const v of ticks(0, 1, 4)) {
      svgEl("line", { class: "axis", x1: sx(-TR), x2: sx(TR), y1: sy(v), y2: sy(v) }, svg);
      svgEl("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end", class: "muted" }, svg).textContent = String(v);
    }
    svgEl("text", { x: (L + W - R) / 2, y: H - 3, "text-anchor": "middle" }, svg).textContent = "t   (scores [t, 0])";
    this._curves = svgEl("g", {}, svg);
    this._legend = svgEl("g", {}, svg);
    const cur = this._cursor = svgEl("g", { class: "cursor", role: "slider", tabindex: 0, "aria-label": "t", "aria-valuemin": -TR, "aria-valuemax": TR }, svg);
    svgEl("rect", { class: "hit", x: -12, y: T, width: 24, height: H - B - T }, cur);
    svgEl("line", { x1: 0, x2: 0, y1: sy(0), y2: sy(1) }, cur);
    svgEl("circle", { class: "ring", r: 11, cy: sy(1) - 2 }, cur);
    svgEl("circle", { class: "knob", r: 6, cy: sy(1) - 2 }, cur);
    this._marks = svgEl("g", {}, svg);
    draggable(svg, (e) => { const [x] = svgPoint(svg, e); this._setT(sx.invert(x)); });
    cur.addEventListener("keydown", (e) => {
      const v = sliderKey(e.key, this.t, { min: -TR, max: TR, step: 0.05, page: 0.5 });
      if (v !== null) { e.preventDefault(); this._setT(v); }
    });
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._alpha = rangeControl(ctl, { label: "highlighted α", min: 1, max: 4, step: 0.01, value: 1.5, format: (v) => fmt(v) });
    this._alpha.input.addEventListener("input", () => { this.alpha = Number(this._alpha.input.value); this.emit("change", { alpha: this.alpha, t: this.t }); });
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
  }

  _setT(v) {
    this.t = Math.round(Math.max(-TR, Math.min(TR, v)) * 100) / 100;
    this.emit("change", { alpha: this.alpha, t: this.t });
  }

  render(s) {
    const { _sx: sx, _sy: sy } = this;
    this._alpha.set(s.alpha);
    const series = s.alphas.map((a, k) => ({ a, cls: `curve m-${PALETTE[k % PALETTE.length]}` })).concat([{ a: s.alpha, cls: "curve hi", hi: true }]);
    const key = `${s.alphas}|${s.alpha}`;
    if (key !== this._key) {
      this._key = key;
      const x = new Float32Array(N * 2);
      for (let i = 0; i < N; i++) x[2 * i] = -TR + (2 * TR * i) / (N - 1);
      this._curves.replaceChildren();
      this._legend.replaceChildren();
      series.forEach(({ a, cls, hi }, k) => {
        const p = entmax(x, { n: 2, alpha: a });
        let d = "";
        for (let i = 0; i < N; i++) d += `${i ? "L" : "M"}${sx(x[2 * i]).toFixed(1)},${sy(p[2 * i]).toFixed(1)}`;
        svgEl("title", {}, svgEl("path", { d, class: cls }, this._curves)).textContent = `α = ${a}`;
        const y = sy(0.96) + 15 * k;
        svgEl("line", { x1: sx(-2.9), x2: sx(-2.55), y1: y, y2: y, class: cls }, this._legend);
        svgEl("text", { x: sx(-2.48), y: y + 4 }, this._legend).textContent =
          hi ? `α = ${fmt(a)} (slider)` : `α = ${a}${a === 1 ? " softmax" : a === 2 ? " sparsemax" : ""}`;
      });
    }
    // cursor and the value of every curve at t
    const t = s.t;
    this._cursor.setAttribute("transform", `translate(${sx(t).toFixed(2)},0)`);
    this._cursor.setAttribute("aria-valuenow", fmt(t));
    this._cursor.setAttribute("aria-valuetext", `t = ${fmt(t)}`);
    this._marks.replaceChildren();
    const vals = series.map(({ a, cls }) => {
      const [p1] = entmax([t, 0], { alpha: a });
      svgEl("circle", { class: `mark ${cls.replace("curve", "")}`, cx: sx(t).toFixed(1), cy: sy(p1).toFixed(1), r: 4 }, this._marks);
      return p1;
    });
    const hi = vals[vals.length - 1];
    const sat = s.alpha > 1 ? `saturates at |t| = 1/(α−1) = ${fmt(1 / (s.alpha - 1))}` : "never saturates (softmax)";
    this._readout.textContent = `t = ${fmt(t)}: α = ${fmt(s.alpha)} gives p₁ = ${hi === 0 || hi === 1 ? String(hi) : hi.toFixed(4)} (${sat}) · ` +
      s.alphas.map((a, k) => `α=${a}: ${vals[k] === 0 || vals[k] === 1 ? String(vals[k]) : vals[k].toFixed(3)}`).join(", ");
  }
}

define("sx-two-choice", SxTwoChoice);
