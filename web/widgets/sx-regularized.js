// <sx-regularized>: argmax as a linear program over the simplex, and the regularised max that
// smooths it. Three views of three scores z:
//   argmax  the triangle with the level lines of <p, z> across it and the optimal vertex lit
//           (an edge when two scores tie, the whole triangle when all three do); the mapping's p
//           as a dot: move a score past another and the vertex jumps while p slides;
//   max     max_{T Omega}(z) = <p, z> - T Omega(p) as contours over the score plane z3 = const
//           (z1, z2 on the axes), the kinks of max z (dashed, where argmax jumps) smoothed, the
//           current z and the gradient arrow at z, which is p itself: (p1, p2) in the plane;
//   omega   Omega = -H_alpha on the triangle (Shannon for softmax, (||p||^2 - 1)/2 for sparsemax,
//           Tsallis alpha for entmax), with p on it.
// p is the library's mapping, Omega its tsallisEntropy (viz/regularized.js).
//   <sx-regularized mapping="entmax" alpha="1.5" temperature="1" scores="1.5 0 1"
//                   view="argmax max omega" theme="auto"></sx-regularized>
// Keyboard: Tab to the score point of the plane (arrow keys move z1 and z2 by 0.05, with Shift by
// 0.5), then the mapping, alpha, T and the three score sliders.
// Events: sx-regularized-change { scores, mapping, alpha, temperature, p, value, argmax }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { softmax, sparsemax, entmax15, entmax, tsallisEntropy } from "../lib/mappings.js";
import { ternaryCorners, ternaryXY } from "./viz/ternary.js";
import { linear, ticks } from "./viz/scale.js";
import { isobands } from "./viz/isobands.js";
import { isolines } from "./viz/isolines.js";
import { maxOmega, mappingAlpha, argmaxFace, levelSegments, planeGrid } from "./viz/regularized.js";
import { drawEntropy, themeColors } from "./entropy-layer.js";

const NAMES = ["softmax", "sparsemax", "entmax15", "entmax"];
const VIEWS = ["argmax", "max", "omega"];
const ZR = 3, W = 300, H = 300;
const S = 230, OX = 35, OY = 48; // the triangles: side and offset
const PL = 44, PT = 30, PS = 226; // the score plane: left, top, side
const GRID = 40, LEVELS = 9;
const ABC = "ABC";
const LIB = { softmax, sparsemax, entmax15, entmax, tsallisEntropy }; // what maxOmega calls
const num = (v, d = 2) => fmt(v, d).replace("-", "−");

const CSS = sheet(`
:host { container: sxr / inline-size; }
.views { display: grid; grid-template-columns: repeat(auto-fit, minmax(0, 1fr)); gap: 9.6px; align-items: start; }
@container sxr (max-width: 680px) { .views { grid-template-columns: minmax(0, 1fr); justify-items: center; } .views svg { max-width: 340px; } }
.views svg[hidden] { display: none; }
.lower { display: grid; grid-template-columns: minmax(0, 352px) minmax(0, 1fr); gap: 16px; align-items: start; margin-top: 8px; }
@container sxr (max-width: 680px) { .lower { grid-template-columns: minmax(0, 1fr); } }
text.head { font-weight: 600; }
.level { stroke: var(--_muted); stroke-width: 0.9; stroke-opacity: 0.7; fill: none; }
.opt-vertex { fill: var(--_accent); stroke: var(--_bg); stroke-width: 2; }
.opt-edge { stroke: var(--_accent); stroke-width: 5; stroke-linecap: round; }
.opt-all { fill: var(--_accent); fill-opacity: 0.18; stroke: var(--_accent); stroke-width: 3; }
.pdot { stroke: var(--_bg); stroke-width: 1.5; }
.isolines path { stroke: var(--_bg); stroke-opacity: 0.55; stroke-width: 0.7; fill: none; }
.plane .isolines path { stroke: var(--_fg); stroke-opacity: 0.22; }
.tie { stroke: var(--_fg); stroke-width: 1.2; stroke-dasharray: 5 4; stroke-opacity: 0.7; fill: none; }
.frame { fill: none; stroke: var(--_grid); }
.grad { stroke: var(--_fg); stroke-width: 2.2; }
.grad-head { fill: var(--_fg); stroke: none; }
.handle { cursor: move; }
.handle .knob { fill: var(--_bg); stroke: var(--_fg); stroke-width: 2; }
.ring { fill: none; stroke: transparent; }
.plane-hit { fill: transparent; cursor: crosshair; }
.readout, .formula { margin: 4.8px 0 0; font-variant-numeric: tabular-nums; }
.formula { color: var(--_muted); font-size: 13px; }
`);

export class SxRegularized extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    scores: { type: "numbers", default: [1.5, 0, 1], minLength: 3, maxLength: 3, min: -ZR, max: ZR },
    mapping: { type: "enum", default: "softmax", values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    temperature: { type: "number", default: 1, min: 0.01, max: 10 },
    view: { type: "enums", default: VIEWS, values: VIEWS },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  /** The mapping's output p at the scores shown (a copy); null before the first render. */
  get p() { return this._last ? this._last.p.slice() : null; }
  /** max_{T Omega}(z) at the scores shown; null before the first render. */
  get value() { return this._last ? this._last.value : null; }
  /** The optimal face of the linear program: the indices of the largest score; null before the first render. */
  get argmax() { return this._last ? this._last.argmax.slice() : null; }

  // only the views shown are exported
  pictures() { return super.pictures().filter((svg) => !svg.hasAttribute("hidden")); }

  build(body) {
    const views = htmlEl("div", { class: "views" }, body);
    const corners = ternaryCorners(S, 0);
    const triangle = (g) => {
      for (const [a, b] of [[1, 2], [0, 2], [0, 1]]) svgEl("line", { class: "edge", x1: corners[a][0], y1: corners[a][1], x2: corners[b][0], y2: corners[b][1] }, g);
    };
    // (a) argmax as a linear program
    this._lp = svgEl("svg", { class: "picture lp", viewBox: `0 0 ${W} ${H}`, role: "img", "data-view": "argmax" }, views);
    svgEl("text", { x: 6, y: 16, class: "head" }, this._lp).textContent = "argmax: max ⟨p, z⟩ over the triangle";
    const lg = svgEl("g", { transform: `translate(${OX},${OY})` }, this._lp);
    this._optG = svgEl("g", {}, lg);
    this._levelG = svgEl("g", {}, lg);
    triangle(lg);
    this._lpDot = svgEl("circle", { class: "pdot", r: 6 }, lg);
    this._cornerText = [[0, -12, "middle"], [-6, 20, "start"], [6, 20, "end"]].map(([dx, dy, anchor], i) =>
      svgEl("text", { x: corners[i][0] + dx, y: corners[i][1] + dy, "text-anchor": anchor }, lg));
    // (b) max_Omega over the score plane
    this._pl = svgEl("svg", { class: "picture plane", viewBox: `0 0 ${W} ${H}`, role: "group", "data-view": "max" }, views);
    this._plHead = svgEl("text", { x: 6, y: 16, class: "head" }, this._pl);
    this._zx = linear([-ZR, ZR], [PL, PL + PS]);
    this._zy = linear([-ZR, ZR], [PT + PS, PT]);
    const pg = this._planeG = svgEl("g", { class: "axes", "data-domain": `${-ZR} ${ZR}`, "data-x": `${PL} ${PL + PS}`, "data-y": `${PT + PS} ${PT}` }, this._pl);
    this._bandG = svgEl("g", {}, pg);
    this._tieG = svgEl("g", {}, pg);
    svgEl("rect", { class: "frame", x: PL, y: PT, width: PS, height: PS }, pg);
    for (const v of ticks(-ZR, ZR, 6)) {
      svgEl("text", { x: this._zx(v), y: PT + PS + 14, "text-anchor": "middle", class: "muted" }, pg).textContent = num(v, 0);
      svgEl("text", { x: PL - 5, y: this._zy(v) + 4, "text-anchor": "end", class: "muted" }, pg).textContent = num(v, 0);
    }
    svgEl("text", { x: PL + PS / 2, y: H - 2, "text-anchor": "middle" }, pg).textContent = "z₁ (A)";
    svgEl("text", { x: 10, y: PT + PS / 2, "text-anchor": "middle", transform: `rotate(-90 10 ${PT + PS / 2})` }, pg).textContent = "z₂ (B)";
    const hit = svgEl("rect", { class: "plane-hit", x: PL, y: PT, width: PS, height: PS }, pg);
    this._grad = svgEl("line", { class: "grad" }, pg);
    this._gradHead = svgEl("path", { class: "grad-head" }, pg);
    this._handle = svgEl("g", { class: "handle focusable", tabindex: 0, role: "application", "aria-roledescription": "2-D handle" }, pg);
    svgEl("circle", { class: "hit-r", r: 14, fill: "transparent" }, this._handle);
    svgEl("circle", { class: "ring", r: 11 }, this._handle);
    svgEl("circle", { class: "knob", r: 6 }, this._handle);
    const fromPointer = (e) => {
      const [x, y] = svgPoint(this._pl, e);
      const z = this.scores.slice();
      z[0] = this._zx.invert(x); z[1] = this._zy.invert(y);
      this._setScores(z);
    };
    draggable(hit, fromPointer);
    draggable(this._handle, fromPointer);
    this._handle.addEventListener("keydown", (e) => {
      const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[e.key];
      if (!d) return;
      e.preventDefault();
      const step = e.shiftKey ? 0.5 : 0.05, z = this.scores.slice();
      z[0] += d[0] * step; z[1] += d[1] * step;
      this._setScores(z);
    });
    // (c) Omega on the simplex
    this._om = svgEl("svg", { class: "picture omega", viewBox: `0 0 ${W} ${H}`, role: "img", "data-view": "omega" }, views);
    this._omHead = svgEl("text", { x: 6, y: 16, class: "head" }, this._om);
    const og = svgEl("g", { transform: `translate(${OX},${OY})` }, this._om);
    this._omegaG = svgEl("g", {}, og);
    triangle(og);
    this._omDot = svgEl("circle", { class: "pdot", r: 6 }, og);
    [[0, -12, "middle"], [-6, 20, "start"], [6, 20, "end"]].forEach(([dx, dy, anchor], i) => {
      svgEl("text", { x: corners[i][0] + dx, y: corners[i][1] + dy, "text-anchor": anchor }, og).textContent = ABC[i];
    });
    this._omNote = svgEl("text", { x: W / 2, y: H - 8, "text-anchor": "middle", class: "muted" }, this._om);

    // the controls and the numbers
    const lower = htmlEl("div", { class: "lower" }, body);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, lower);
    const l = htmlEl("label", {}, ctl);
    htmlEl("span", { text: "mapping" }, l);
    this._mapSel = htmlEl("select", {}, l);
    for (const k of NAMES) htmlEl("option", { value: k, text: MAPPINGS[k].label }, this._mapSel);
    this._mapSel.addEventListener("change", () => this._user({ mapping: this._mapSel.value }));
    this._alphaCtl = rangeControl(ctl, { label: "α (α-entmax)", min: 1, max: 4, step: 0.01, value: 1.5, format: (v) => fmt(v) });
    this._alphaCtl.input.addEventListener("input", () => this._user({ alpha: Number(this._alphaCtl.input.value) }));
    this._logT = rangeControl(ctl, { label: "temperature T", min: -2, max: 1, step: 0.01, value: 0, format: (v) => (10 ** v).toPrecision(3) });
    this._logT.input.addEventListener("input", () => this._user({ temperature: Number((10 ** Number(this._logT.input.value)).toPrecision(4)) }));
    this._scoreCtl = [0, 1, 2].map((i) => {
      const c = rangeControl(ctl, { label: `score z${"₁₂₃"[i]} (${ABC[i]})`, min: -ZR, max: ZR, step: 0.05, value: 0, format: (v) => num(v), part: "score-control" });
      c.input.addEventListener("input", () => { const z = this.scores.slice(); z[i] = Number(c.input.value); this._setScores(z); });
      return c;
    });
    const text = htmlEl("div", {}, lower);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, text);
    this._formula = htmlEl("p", { class: "formula", part: "formula" }, text);
    htmlEl("p", { class: "formula keys", text: "Keyboard: Tab to the score point ○ of the plane, arrow keys move z₁ and z₂ (Shift: by 0.5); the sliders set each score." }, text);
    this._keys = {};
  }

  // Everything drawn and reported, from the settings.
  _compute(s) {
    const { value, p } = maxOmega(LIB, s.scores, { mapping: s.mapping, alpha: s.alpha, temperature: s.temperature });
    return { scores: s.scores.slice(), p: Array.from(p), value: value[0], argmax: argmaxFace(s.scores), alpha: mappingAlpha(s.mapping, s.alpha) };
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    const { s } = this.settings();
    const c = this._compute(s);
    this.emit("change", { scores: c.scores, mapping: s.mapping, alpha: s.alpha, temperature: s.temperature, p: c.p, value: c.value, argmax: c.argmax });
  }

  _setScores(z) {
    this._user({ scores: z.map((v) => Math.round(Math.min(ZR, Math.max(-ZR, v)) * 100) / 100) });
  }

  render(s) {
    const c = this._last = this._compute(s), { p, argmax } = c, z = s.scores, T = s.temperature;
    const cls = `pdot m-${s.mapping}`;
    for (const [svg, view] of [[this._lp, "argmax"], [this._pl, "max"], [this._om, "omega"]]) svg.toggleAttribute("hidden", !s.view.includes(view));
    // controls follow the attributes
    if (this._mapSel.value !== s.mapping) this._mapSel.value = s.mapping;
    this._alphaCtl.set(s.alpha);
    this._alphaCtl.root.style.display = s.mapping === "entmax" ? "" : "none";
    this._logT.set(Math.log10(T));
    this._scoreCtl.forEach((ctl, i) => ctl.set(z[i]));
    const names = Array.from(ABC, (n, i) => `${n} (z = ${num(z[i])})`);

    // (a) the level lines of <p, z>, the optimal face, p
    const lo = Math.min(...z), hi = Math.max(...z);
    const levels = [];
    for (let k = 1; k < LEVELS; k++) levels.push(lo + ((hi - lo) * k) / LEVELS);
    this._levelG.replaceChildren();
    if (hi > lo) {
      levelSegments(z, levels).forEach((seg, k) => {
        if (!seg) return;
        const [a, b] = seg.map((q) => ternaryXY(q, S, 0));
        svgEl("title", {}, svgEl("line", { class: "level", x1: a[0].toFixed(2), y1: a[1].toFixed(2), x2: b[0].toFixed(2), y2: b[1].toFixed(2) }, this._levelG))
          .textContent = `⟨p, z⟩ = ${num(levels[k])}`;
      });
    }
    const corners = ternaryCorners(S, 0);
    this._optG.replaceChildren();
    let face;
    if (argmax.length === 1) {
      const [x, y] = corners[argmax[0]];
      svgEl("circle", { class: "opt-vertex", cx: x, cy: y, r: 9, "data-face": String(argmax[0]) }, this._optG);
      face = `the vertex ${ABC[argmax[0]]}`;
    } else if (argmax.length === 2) {
      const [a, b] = argmax.map((i) => corners[i]);
      svgEl("line", { class: "opt-edge", x1: a[0], y1: a[1], x2: b[0], y2: b[1], "data-face": argmax.join(" ") }, this._optG);
      face = `the whole edge ${ABC[argmax[0]]}–${ABC[argmax[1]]} (a tie)`;
    } else {
      svgEl("path", { class: "opt-all", d: `M${corners.map((q) => q.join(",")).join("L")}Z`, "data-face": "0 1 2" }, this._optG);
      face = "the whole triangle (all three tie)";
    }
    this._cornerText.forEach((t, i) => { t.textContent = `${ABC[i]} ${num(z[i])}`; });
    const [px, py] = ternaryXY(p, S, 0);
    for (const dot of [this._lpDot, this._omDot]) {
      dot.setAttribute("class", cls);
      dot.setAttribute("cx", px.toFixed(2));
      dot.setAttribute("cy", py.toFixed(2));
    }
    this._lp.setAttribute("aria-label", `argmax of ⟨p, z⟩ over the triangle, scores ${names.join(", ")}: ${face} is optimal; ${MAPPINGS[s.mapping].label} gives p = [${p.map((v) => fmt(v, 3)).join(", ")}]`);

    // (b) max_Omega over the plane z3 = const: the field only when its inputs change
    const key = `${s.mapping}|${s.alpha}|${T}|${z[2]}|${s.theme}`;
    if (key !== this._keys.plane && s.view.includes("max")) {
      this._keys.plane = key;
      this._drawPlane(s);
    }
    const zx = this._zx, zy = this._zy;
    const x0 = zx(z[0]), y0 = zy(z[1]), x1 = zx(z[0] + p[0]), y1 = zy(z[1] + p[1]);
    this._handle.setAttribute("transform", `translate(${x0.toFixed(2)},${y0.toFixed(2)})`);
    this._handle.setAttribute("aria-label", `scores z₁ = ${num(z[0])}, z₂ = ${num(z[1])} (z₃ = ${num(z[2])}); arrow keys move them`);
    for (const [a, v] of [["x1", x0], ["y1", y0], ["x2", x1], ["y2", y1]]) this._grad.setAttribute(a, v.toFixed(3));
    this._grad.dataset.p = `${p[0]} ${p[1]}`;
    const len = Math.hypot(x1 - x0, y1 - y0);
    if (len > 1e-6) {
      const ux = (x1 - x0) / len, uy = (y1 - y0) / len, k = Math.min(8, len);
      this._gradHead.setAttribute("d", `M${(x1).toFixed(2)},${(y1).toFixed(2)}L${(x1 - k * ux - 0.5 * k * uy).toFixed(2)},${(y1 - k * uy + 0.5 * k * ux).toFixed(2)}` +
        `L${(x1 - k * ux + 0.5 * k * uy).toFixed(2)},${(y1 - k * uy - 0.5 * k * ux).toFixed(2)}Z`);
    } else this._gradHead.setAttribute("d", "");
    this._plHead.textContent = `max${T === 1 ? "_Ω" : "_TΩ"}(z₁, z₂, ${num(z[2])}) = ${num(c.value, 3)}`;

    // (c) Omega on the simplex
    const ok = `${c.alpha}|${s.theme}`;
    if (ok !== this._keys.omega && s.view.includes("omega")) {
      this._keys.omega = ok;
      drawEntropy(this._omegaG, { alpha: c.alpha, side: S, color: themeColors(this) });
    }
    this._omHead.textContent = s.mapping === "softmax" ? "Ω(p) = Σ p log p (−Shannon)" : s.mapping === "sparsemax"
      ? "Ω(p) = ½‖p‖² − ½ (−Tsallis 2)" : `Ω(p) = −H_α(p), Tsallis α = ${fmt(c.alpha)}`;
    this._omNote.textContent = "lowest at the centre, 0 at the corners";
    this._om.setAttribute("aria-label", `${this._omHead.textContent}, drawn as contours over the triangle, with p = [${p.map((v) => fmt(v, 3)).join(", ")}]`);

    // the numbers
    const ms = `${MAPPINGS[s.mapping].label}${s.mapping === "entmax" ? ` (α = ${fmt(s.alpha)})` : ""}`;
    this._readout.textContent = `argmax: ${face}. ${ms}: p = ∇max${T === 1 ? "_Ω" : "_TΩ"}(z) = [${p.map((v) => (v === 0 ? "0" : v.toFixed(4))).join(", ")}], ` +
      `max${T === 1 ? "_Ω" : "_TΩ"}(z) = ⟨p, z⟩ − ${T === 1 ? "" : "T "}Ω(p) = ${c.value.toFixed(4)} (max z = ${num(hi)}). The arrow is (p₁, p₂), to the scale of the axes.`;
    const lse = T * Math.log(z.reduce((a, v) => a + Math.exp((v - hi) / T), 0)) + hi;
    this._formula.textContent = s.mapping === "softmax"
      ? `Softmax: Ω = −Shannon entropy, and max_Ω is log-sum-exp: ${T === 1 ? "log Σ exp z" : "T log Σ exp(z/T)"} = ${lse.toFixed(4)}.`
      : s.mapping === "sparsemax"
        ? `Sparsemax: Ω = −H₂ = (‖p‖² − 1)/2, the squared norm ½‖p‖² less a constant ½: it lowers Ω and raises max_Ω by ${T === 1 ? "½" : "T/2"} everywhere and leaves its gradient, sparsemax, unchanged.`
        : `α-entmax: Ω = −H_α, H_α(p) = (1 − Σ p^α)/(α(α − 1)), α = ${fmt(c.alpha)}; α → 1 gives softmax, α = 2 sparsemax.`;
    if (T !== 1) this._formula.textContent += ` With T: max_TΩ(z) = T max_Ω(z/T) → max z as T → 0.`;
  }

  // The contours of max_{T Omega} over the plane z3 = const: one batched mapping call over the grid.
  _drawPlane(s) {
    const z3 = s.scores[2];
    const g = planeGrid(GRID, -ZR, ZR, z3);
    const { value } = maxOmega(LIB, g.scores, { mapping: s.mapping, alpha: s.alpha, temperature: s.temperature, n: 3 });
    const xy = new Float64Array(g.count * 2);
    for (let k = 0; k < g.count; k++) { xy[2 * k] = this._zx(g.xy[2 * k]); xy[2 * k + 1] = this._zy(g.xy[2 * k + 1]); }
    let lo = Infinity, hi = -Infinity;
    for (const v of value) { if (v < lo) lo = v; if (v > hi) hi = v; }
    const th = [lo, ...ticks(lo, hi, 12).filter((v) => v > lo)];
    const color = themeColors(this);
    this._bandG.replaceChildren();
    isobands(xy, value, g.triangles, th).forEach((d, k) => {
      if (!d) return;
      const col = color((k + 0.5) / th.length);
      svgEl("path", { d, fill: col, stroke: col, "stroke-width": 0.6, "stroke-linejoin": "round" }, this._bandG);
    });
    const lines = svgEl("g", { class: "isolines" }, this._bandG);
    for (const d of isolines(xy, value, g.triangles, th.slice(1))) if (d) svgEl("path", { d }, lines);
    // where argmax jumps: z1 = z2 >= z3, z1 = z3 >= z2, z2 = z3 >= z1 (three rays from (z3, z3))
    const zx = this._zx, zy = this._zy, c = [zx(z3), zy(z3)];
    this._tieG.replaceChildren();
    for (const [x, y] of [[zx(ZR), zy(ZR)], [c[0], zy(-ZR)], [zx(-ZR), c[1]]]) {
      svgEl("line", { class: "tie", x1: c[0].toFixed(2), y1: c[1].toFixed(2), x2: x.toFixed(2), y2: y.toFixed(2) }, this._tieG);
    }
    this._pl.setAttribute("aria-label", `contours of the regularised max over the plane of z₁ and z₂ with z₃ = ${num(z3)}, the dashed lines where argmax jumps, ` +
      "the score point and the gradient arrow at it, which is p");
  }
}

define("sx-regularized", SxRegularized);
