// <sx-loss>: a mapping's Fenchel-Young loss over the scores, for one target: the cross-entropy
// of softmax never reaches 0, the sparsemax and entmax losses are exactly 0 once the target wins
// by their margin (1 for sparsemax, 1 / (alpha - 1) for entmax).
//   <sx-loss target="A" scores="1 0 -0.5" mappings="softmax sparsemax entmax15" alpha="1.5"
//            range="3" theme="auto"></sx-loss>
// Three scores; the loss depends only on how far the target's score is above the other two
// (shift invariance), so each panel is the plane of u = z_target - z_first other (right) and
// v = z_target - z_second other (up). Every value is the library's fyLoss, one batched call per
// panel; cells where it is exactly 0 are left in the page's colour. Drag the point (or focus it
// and use the arrow keys) to move the scores.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, draggable, fmt } from "./base.js";
import { fyLoss } from "../lib/simplexity.js";
import { interpolateColors, parseColor } from "./viz/color.js";

const NAMES = ["softmax", "sparsemax", "entmax15", "entmax"];
const LABEL = { softmax: "softmax: cross-entropy", sparsemax: "sparsemax loss", entmax15: "1.5-entmax loss", entmax: "α-entmax loss" };
const CLASSES = ["A", "B", "C"];
const G = 64;          // grid cells per side
const S = 220, P0 = 26, PS = 184; // viewBox side, plot origin and side
const BANDS = 10;

const CSS = sheet(`
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(196px, 300px)); gap: 12px; }
.panel { margin: 0; }
.panel figcaption { font-weight: 600; margin: 0 0 4px; }
.panel .note { font-weight: 400; color: var(--_muted); font-size: 13px; display: block; }
.zero-line { stroke: var(--_muted); stroke-dasharray: 4 3; stroke-width: 1; fill: none; }
.frame { stroke: var(--_grid); fill: none; }
.pt { fill: var(--_accent); stroke: var(--_bg); stroke-width: 2; }
.hit { fill: transparent; cursor: grab; }
.readout { font-variant-numeric: tabular-nums; margin: 6.4px 0 0; }
.readout b { font-weight: 600; }
.controls { max-width: 448px; margin-top: 8px; }
.legend { display: flex; align-items: center; gap: 8px; font-size: 13px; color: var(--_muted); margin-top: 6px; flex-wrap: wrap; }
.legend .ramp { display: inline-block; width: 120px; height: 10px; border: 1px solid var(--_grid); }
.legend .zero { display: inline-block; width: 14px; height: 10px; border: 1px solid var(--_grid); background: var(--_bg); }
@media (pointer: coarse) { .kbd { display: none; } }
`);

export class SxLoss extends SxElement {
  static lazy = true;
  static spec = {
    target: { type: "enum", default: "A", values: CLASSES },
    scores: { type: "numbers", default: [1, 0, -0.5], minLength: 3, maxLength: 3, min: -10, max: 10 },
    mappings: { type: "enums", default: ["softmax", "sparsemax", "entmax15"], values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1.05, max: 4 },
    range: { type: "number", default: 3, min: 1, max: 8 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    htmlEl("p", { class: "title", text: "The loss of each mapping for one target" }, body);
    this._panels = htmlEl("div", { class: "panels" }, body);
    this._legend = htmlEl("div", { class: "legend", "aria-hidden": "true" }, body);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const tl = htmlEl("label", { part: "control" }, ctl);
    htmlEl("span", { text: "target" }, tl);
    this._target = htmlEl("select", {}, tl);
    for (const c of CLASSES) htmlEl("option", { value: c, text: c }, this._target);
    this._target.addEventListener("change", () => { this.target = this._target.value; this._changed(); });
    this._alpha = rangeControl(ctl, { label: "α", min: 1.05, max: 4, step: 0.05, value: 1.5, format: (v) => fmt(v) });
    this._alpha.input.addEventListener("input", () => { this.alpha = Number(this._alpha.input.value); this._changed(); });
    htmlEl("p", { class: "legend kbd", text: "Drag the point, or focus it and use the arrow keys (Shift: larger steps)." }, body);
  }

  _changed() { this.emit("change", { target: this.target, scores: this.scores, alpha: this.alpha }); }

  // The other two classes, in order, for target index t.
  static others(t) { return [0, 1, 2].filter((i) => i !== t); }

  // (u, v) of the scores: how far the target's score is above each other one.
  _uv(s) {
    const t = CLASSES.indexOf(s.target), [a, b] = SxLoss.others(t);
    return [s.scores[t] - s.scores[a], s.scores[t] - s.scores[b]];
  }

  _setUV(u, v) {
    const s = this.settings().s, t = CLASSES.indexOf(s.target), [a, b] = SxLoss.others(t);
    const z = [...s.scores], R = s.range, c = (x) => Math.max(-R, Math.min(R, x));
    z[a] = z[t] - c(u);
    z[b] = z[t] - c(v);
    this.scores = z.map((x) => Math.max(-10, Math.min(10, x)));
    this._changed();
  }

  // Every cell's loss for one mapping, in one call: row (i, j) has scores [0, -u_i, -v_j] with
  // the target first (the loss depends on differences only), so its target index is 0.
  _grid(mapping, s) {
    const key = `${mapping}|${s.alpha}|${s.range}`;
    this._cache ??= new Map();
    if (this._cache.has(key)) return this._cache.get(key);
    const x = new Float32Array(3 * G * G), R = s.range;
    for (let j = 0; j < G; j++) {
      for (let i = 0; i < G; i++) {
        const k = 3 * (j * G + i);
        x[k + 1] = -(-R + (2 * R * (i + 0.5)) / G);
        x[k + 2] = -(R - (2 * R * (j + 0.5)) / G); // row 0 at the top: v = +R
      }
    }
    const loss = fyLoss(x, new Int32Array(G * G), { n: 3, ...opts(mapping, s.alpha) }).loss;
    if (this._cache.size > 12) this._cache.clear();
    this._cache.set(key, loss);
    return loss;
  }

  render(s) {
    this._target.value = s.target;
    this._alpha.set(s.alpha);
    this._alpha.root.style.display = s.mappings.includes("entmax") ? "" : "none";
    const grids = s.mappings.map((m) => this._grid(m, s));
    let max = 0;
    for (const g of grids) for (const v of g) max = Math.max(max, v);
    const color = ramp(this);
    const key = `${s.mappings}|${s.alpha}|${s.range}|${s.theme}|${color(0)}|${color(1)}`;
    if (key !== this._drawn) {
      this._drawn = key;
      this._build(s, grids, max, color);
    }
    this._place(s);
  }

  _build(s, grids, max, color) {
    this._panels.replaceChildren();
    this._pts = [];
    s.mappings.forEach((m, k) => {
      const fig = htmlEl("figure", { class: "panel" }, this._panels);
      const cap = htmlEl("figcaption", { text: m === "entmax" ? `${fmt(s.alpha)}-entmax loss` : LABEL[m] }, fig);
      htmlEl("span", { class: "note", text: margin(m, s.alpha) }, cap);
      const svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${S} ${S}`, role: "img",
        "aria-label": `${LABEL[m]} over the two score differences; ${margin(m, s.alpha)}` }, fig);
      drawBands(svgEl("g", {}, svg), grids[k], max, color);
      svgEl("rect", { class: "frame", x: P0, y: P0 - 16, width: PS, height: PS }, svg);
      this._axes(svg, m, s);
      const pt = svgEl("g", { class: "focusable", tabindex: k === 0 ? 0 : -1, role: "group" }, svg);
      svgEl("circle", { class: "hit", r: 14 }, pt);
      svgEl("circle", { class: "ring", r: 9, fill: "none" }, pt);
      svgEl("circle", { class: "pt", r: 5.5 }, pt);
      this._pts.push(pt);
      draggable(svg, (e) => {
        const [x, y] = svgPoint(svg, e);
        this._setUV(toU(x, s.range), toV(y, s.range));
      });
      pt.addEventListener("keydown", (e) => this._key(e));
    });
    const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => color(t)).join(", ");
    this._legend.replaceChildren();
    htmlEl("span", { class: "zero" }, this._legend);
    htmlEl("span", { text: "exactly 0" }, this._legend);
    const r = htmlEl("span", { class: "ramp" }, this._legend);
    r.style.background = `linear-gradient(to right, ${stops})`;
    htmlEl("span", { text: `0 … ${fmt(max, 1)}` }, this._legend);
  }

  _axes(svg, m, s) {
    const R = s.range, y0 = P0 - 16;
    const X = (u) => P0 + ((u + R) / (2 * R)) * PS, Y = (v) => y0 + ((R - v) / (2 * R)) * PS;
    svgEl("path", { class: "axis", d: `M${X(0)},${y0}V${y0 + PS}M${P0},${Y(0)}H${P0 + PS}` }, svg);
    const mg = marginValue(m, s.alpha);
    if (mg !== null && mg < R) { // the margin: zero loss up and to the right of these lines
      svgEl("path", { class: "zero-line", d: `M${X(mg)},${y0}V${Y(mg)}H${P0 + PS}` }, svg);
    }
    const t = CLASSES.indexOf(s.target), [a, b] = SxLoss.others(t).map((i) => CLASSES[i]);
    svgEl("text", { x: P0 + PS, y: y0 + PS + 14, "text-anchor": "end" }, svg).textContent = `z${s.target} − z${a} →`;
    svgEl("text", { x: P0 - 6, y: y0, "text-anchor": "end", transform: `rotate(-90 ${P0 - 6} ${y0})`, dy: "-0.2em" }, svg)
      .textContent = `← z${s.target} − z${b}`;
    svgEl("text", { x: P0, y: y0 + PS + 14, class: "muted" }, svg).textContent = `−${fmt(R, 0)}`;
  }

  _place(s) {
    const [u, v] = this._uv(s), R = s.range, y0 = P0 - 16;
    const cu = Math.max(-R, Math.min(R, u)), cv = Math.max(-R, Math.min(R, v));
    const x = P0 + ((cu + R) / (2 * R)) * PS, y = y0 + ((R - cv) / (2 * R)) * PS;
    for (const pt of this._pts) {
      pt.setAttribute("transform", `translate(${x.toFixed(2)},${y.toFixed(2)})`);
      pt.setAttribute("aria-label", `scores ${s.scores.map((z) => fmt(z)).join(", ")}: ${s.target} above the others by ${fmt(u)} and ${fmt(v)}`);
    }
    const t = CLASSES.indexOf(s.target), onehot = new Int32Array([t]);
    const parts = s.mappings.map((m) => {
      const r = fyLoss(s.scores, onehot, { n: 3, grad: true, ...opts(m, s.alpha) });
      const p = Array.from(r.grad, (g, i) => g + (i === t ? 1 : 0));
      const name = m === "entmax" ? `${fmt(s.alpha)}-entmax` : m === "entmax15" ? "1.5-entmax" : m;
      const l = r.loss[0];
      return `${name}: loss ${l === 0 ? "0 exactly" : l.toPrecision(3)}, p = [${p.map((v) => fmt(Math.max(0, v))).join(", ")}]`;
    });
    this._readout.textContent = `target ${s.target}, scores [${s.scores.map((z) => fmt(z)).join(", ")}] · ${parts.join(" · ")}`;
  }

  _key(e) {
    const step = e.shiftKey ? 0.5 : 0.1, s = this.settings().s, [u, v] = this._uv(s);
    const d = { ArrowRight: [step, 0], ArrowLeft: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[e.key];
    if (!d) return;
    e.preventDefault();
    this._setUV(u + d[0], v + d[1]);
  }
}

const opts = (m, alpha) => (m === "entmax" ? { mapping: m, alpha } : { mapping: m });
const toU = (x, R) => -R + ((x - P0) / PS) * 2 * R;
const toV = (y, R) => R - ((y - (P0 - 16)) / PS) * 2 * R;

// The margin past which the loss is exactly 0 (the target's p is 1), or null (softmax: never).
function marginValue(m, alpha) {
  return m === "sparsemax" ? 1 : m === "entmax15" ? 2 : m === "entmax" ? 1 / (alpha - 1) : null;
}

function margin(m, alpha) {
  const g = marginValue(m, alpha);
  return g === null ? "never exactly 0" : `0 once the target leads both others by ${fmt(g)}`;
}

// The theme's ramp from --_map-1 (small loss) to --_map-2 and the foreground (large).
function ramp(host) {
  const cs = getComputedStyle(host);
  const stops = ["--_map-1", "--_map-2", "--_muted"].map((v) => parseColor(cs.getPropertyValue(v)) || [128, 128, 128]);
  return interpolateColors(stops);
}

// The grid as one path per band: runs of equal band in a row merged into one rectangle; cells
// of loss exactly 0 are not drawn (the background shows).
function drawBands(g, loss, max, color) {
  const d = Array.from({ length: BANDS }, () => []), cw = PS / G, y0 = P0 - 16;
  const band = (v) => (v === 0 ? -1 : Math.min(BANDS - 1, Math.floor((v / (max || 1)) * BANDS)));
  for (let j = 0; j < G; j++) {
    let i = 0;
    while (i < G) {
      const b = band(loss[j * G + i]);
      let e = i + 1;
      while (e < G && band(loss[j * G + e]) === b) e++;
      if (b >= 0) d[b].push(`M${(P0 + i * cw).toFixed(2)},${(y0 + j * cw).toFixed(2)}h${((e - i) * cw).toFixed(2)}v${cw.toFixed(2)}h${(-(e - i) * cw).toFixed(2)}z`);
      i = e;
    }
  }
  d.forEach((parts, b) => {
    if (!parts.length) return;
    const c = color((b + 0.5) / BANDS);
    svgEl("path", { d: parts.join(""), fill: c, stroke: c, "stroke-width": 0.3, class: "band" }, g);
  });
}

define("sx-loss", SxLoss);
