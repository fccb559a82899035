// <sx-fused>: structured sparse attention over a sequence. The scores are bars you drag; below,
// the weights of sparsemax, fusedmax (neighbours fuse into runs of equal weight, lambda),
// oscarmax (close scores cluster into equal weights anywhere, beta), groupmax (groups given in
// advance, `groups`, die whole, group-lambda) and, for contrast, sigmoid (independent weights,
// not on the simplex: their sum is printed).
// "Show fusedmax's two steps" (or the steps attribute) draws fusedmax(z) = sparsemax(prox_TV(z))
// stage by stage: prox_TV(z) with its fused runs (the library's proxTV / proxTVRuns), the
// projection onto the simplex (its threshold tau drawn on the prox), and the backward pass for one
// output coordinate (output, 1-based): d p_j / dz is the mean over each fused run of sparsemax's
// backward, 0 off the support (viz/fused-steps.js), printed against the core's fusedmaxBackward;
// and, on demand, what the backward costs against the number of runs in this browser
// (viz/fused-cost.js, the cases of bench/fused-backward.mjs). The steps need the full core (proxTV):
// it is loaded when they are first shown.
//   <sx-fused scores="0.2 1.1 1 1.05 0.3 -0.4 0.9 0.95 0.1 -0.2" lambda="0.2" beta="0.03"
//             groups="3 3 2 2" group-lambda="0.3" steps output="2"></sx-fused>
// Events: sx-fused-change { scores, lambda, beta, groupLambda, steps, output }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS, ready } from "./base.js";
import { handleRow } from "./handle-row.js";
import { groupmax, sigmoid, fusedmax, fusedmaxBackward, jacobian, internal } from "../lib/mappings.js";
import { linear } from "./viz/scale.js";
import { fusedRuns } from "./viz/runs.js";
import { runSpans, runGradient } from "./viz/fused-steps.js";
import { measureCase, runCounts } from "./viz/fused-cost.js";

const W = 560, L = 92, R = 10, ZR = 2.5;
const ROWS = [["sparsemax", "sparsemax"], ["fusedmax", "fusedmax (λ)"], ["oscarmax", "oscarmax (β)"], ["groupmax", "groupmax (λ)"], ["sigmoid", "sigmoid"]];
const ROW_TOP = 170, ROW_STEP = 77, HEIGHT = ROW_TOP + ROWS.length * ROW_STEP;
// the steps picture: prox_TV (on the scores' scale), the weights, the gradient of one output
const A0 = 12, B0 = 170, C0 = 262, STEPS_H = 372, COST_N = 512;

/** Contiguous groups of about 3 for n scores, as equal as possible: 10 -> 3 3 2 2. */
function autoGroups(n) {
  const k = Math.ceil(n / 3), base = Math.floor(n / k), extra = n % k;
  return Array.from({ length: k }, (_, i) => base + (i < extra ? 1 : 0));
}

const CSS = sheet(`
svg.picture { max-width: 720px; }
.bar { fill: var(--_muted); opacity: 0.55; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.w { stroke: none; }
.w.zero { fill: none; stroke: var(--_grid); stroke-dasharray: 2 2; }
.run { fill: var(--_fusedmax); fill-opacity: 0.16; stroke: var(--_fusedmax); stroke-opacity: 0.7; }
.cluster { fill: none; stroke: var(--_oscarmax); stroke-width: 2; }
/* groupmax and sigmoid borrow the theme's entmax and softmax colours (sigmoid is softmax's
   numerator without the normaliser) */
.group { fill: var(--_entmax); fill-opacity: 0.12; stroke: var(--_entmax); stroke-opacity: 0.7; }
.group.dead { fill: none; stroke: var(--_muted); stroke-dasharray: 3 3; }
.m-groupmax { fill: var(--_entmax); stroke: var(--_entmax); }
.m-sigmoid { fill: var(--_softmax); stroke: var(--_softmax); }
.one-line { stroke: var(--_softmax); stroke-dasharray: 4 3; }
.zero-line { stroke: var(--_muted); }
.label { font-weight: 600; stroke: none; }
.controls { max-width: 448px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.steps { margin: 8px 0 0; }
.steps[hidden] { display: none; }
.steps p { margin: 4.8px 0; max-width: 736px; }
.ghost { stroke: var(--_muted); stroke-width: 2; }
.prox { fill: var(--_fusedmax); opacity: 0.8; }
.level { stroke: var(--_fusedmax); stroke-width: 2; }
.tau { stroke: var(--_sparsemax); stroke-dasharray: 5 3; }
.pick { fill: none; stroke: var(--_accent); stroke-width: 2; }
.grad { fill: var(--_accent); opacity: 0.8; }
.pw { cursor: pointer; }
`);

export class SxFused extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    scores: { type: "numbers", default: [0.2, 1.1, 1.0, 1.05, 0.3, -0.4, 0.9, 0.95, 0.1, -0.2], minLength: 2, maxLength: 24, min: -ZR, max: ZR },
    lambda: { type: "number", default: 0.2, min: 0, max: 2 },
    beta: { type: "number", default: 0.03, min: 0, max: 1 },
    groups: { type: "numbers", default: [3, 3, 2, 2], minLength: 1, maxLength: 24, min: 1, max: 24 },
    "group-lambda": { type: "number", default: 0.3, min: 0, max: 5 },
    steps: { type: "bool" },
    output: { type: "number", default: 2, min: 1, max: 24, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  build(body) {
    this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${HEIGHT}`, role: "group", "aria-label": "scores as bars and the weights of four structured mappings and of sigmoid" }, body);
    this._top = linear([-ZR, ZR], [140, 20]);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._lambda = rangeControl(ctl, { label: "λ (fusedmax)", min: 0, max: 1, step: 0.01, value: 0.2, format: (v) => fmt(v) });
    this._beta = rangeControl(ctl, { label: "β (oscarmax)", min: 0, max: 0.2, step: 0.005, value: 0.03, format: (v) => fmt(v, 3) });
    this._glambda = rangeControl(ctl, { label: "λ (groupmax)", min: 0, max: 3, step: 0.05, value: 0.3, format: (v) => fmt(v), part: "group-lambda" });
    this._lambda.input.addEventListener("input", () => this._user({ lambda: Number(this._lambda.input.value) }));
    this._glambda.input.addEventListener("input", () => this._user({ groupLambda: Number(this._glambda.input.value) }));
    this._beta.input.addEventListener("input", () => this._user({ beta: Number(this._beta.input.value) }));
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    this._buildSteps(body);
    draggable(this._svg, (e) => {
      const [x, y] = svgPoint(this._svg, e);
      if (this._drag === undefined) return;
      this._setScore(this._drag, this._top.invert(y));
    }, (e) => {
      const [x, y] = svgPoint(this._svg, e);
      const n = this.scores.length, bw = (W - L - R) / n;
      const i = Math.floor((x - L) / bw);
      this._drag = y < 150 && i >= 0 && i < n ? i : undefined;
    });
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { scores: this.scores, lambda: this.lambda, beta: this.beta, groupLambda: this.groupLambda, steps: this.steps, output: this.output });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.round(Math.max(-ZR, Math.min(ZR, v)) * 100) / 100;
    this._user({ scores: z });
  }

  // "Show fusedmax's two steps": the toggle, then (hidden until asked) the steps picture, the
  // output coordinate, the readout and the cost measurement.
  _buildSteps(body) {
    const row = htmlEl("div", { class: "controls" }, body);
    this._stepsBtn = htmlEl("button", { type: "button", part: "button steps-button", "aria-expanded": "false", "aria-controls": "steps" }, row);
    this._stepsBtn.addEventListener("click", () => this._user({ steps: !this.steps }));
    const box = this._stepsBox = htmlEl("div", { class: "steps", part: "steps", id: "steps" }, body);
    this._stepsSvg = svgEl("svg", { class: "picture steps-picture", viewBox: `0 0 ${W} ${STEPS_H}`, role: "group",
      "aria-label": "fusedmax's two steps: prox_TV of the scores with its fused runs, the projection onto the simplex, and the gradient of one output" }, box);
    this._stepsSvg.addEventListener("click", (e) => {
      const i = e.target.closest?.(".pw")?.getAttribute("data-i");
      if (i != null) this._user({ output: Number(i) + 1 });
    });
    this._output = rangeControl(htmlEl("div", { class: "controls" }, box), { label: "output <i>j</i> (backward)", min: 1, max: 10, step: 1, value: 2, format: (v) => `p${v}`, part: "output" });
    this._output.input.addEventListener("input", () => this._user({ output: Number(this._output.input.value) }));
    this._stepsText = htmlEl("p", { class: "readout", part: "steps-readout", "aria-live": "polite" }, box);
    this._costBtn = htmlEl("button", { type: "button", part: "button cost-button", text: "Measure the backward's cost" }, htmlEl("p", {}, box));
    this._costBtn.addEventListener("click", () => this._measure());
    this._costText = htmlEl("p", { class: "readout muted", part: "cost", "aria-live": "polite" }, box);
  }

  // The steps picture for scores z at lambda: each stage the library's values.
  _renderSteps(s, z) {
    const n = z.length, j = Math.min(s.output, n) - 1, o = { lambda: s.lambda };
    const { proxTV, proxTVRuns } = this._prox;
    const y = proxTV(z, o), runs = proxTVRuns(z, o), p = fusedmax(z, o), spans = runSpans(runs);
    const e = Array.from(z, (_, i) => (i === j ? 1 : 0));
    const dz = runGradient(p, runs, e), core = fusedmaxBackward(z, e, o);
    const sup = p.findIndex((v) => v > 0), tau = y[sup] - p[sup]; // p = prox - tau on the support
    this._output.input.max = String(n);
    this._output.set(j + 1);
    const g = this._stepsSvg, bw = (W - L - R) / n, x0 = (i) => L + i * bw;
    g.replaceChildren();
    const bar = (cls, i, y0, y1, title, value) => svgEl("title", {}, svgEl("rect", { class: cls, x: x0(i) + bw * 0.2, width: bw * 0.6,
      y: Math.min(y0, y1), height: Math.max(Math.abs(y1 - y0), 1), "data-value": value }, g)).textContent = title;
    const outline = (sp, top, bottom) => svgEl("rect", { class: "run", x: x0(sp.start) + 2, width: (sp.end - sp.start) * bw - 4, y: top - 4, height: bottom - top + 8, rx: 4 }, g);
    const label = (top, lines) => lines.forEach((t, k) => { svgEl("text", { x: 4, y: top + 16 + 15 * k, class: k ? "muted" : "label" }, g).textContent = t; });
    // 1. prox_TV(z): the scores as ticks, the prox as bars, each fused run outlined with its level
    // (prox_TV stays within [min z, max z]: the row's scale spans that and 0)
    const lo = Math.min(0, ...z), hi = Math.max(0, ...z), pad = 0.05 * (hi - lo || 1);
    const ya = linear([lo - pad, hi + pad], [A0 + 136, A0 + 4]);
    label(A0, ["prox_TV(z)", `λ = ${fmt(s.lambda)}`, `${spans.length} run${spans.length === 1 ? "" : "s"}`, "ticks: z"]);
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: ya(0), y2: ya(0) }, g);
    for (const sp of spans) if (sp.count > 1) {
      const v = ya(y[sp.start]);
      outline(sp, Math.min(v, ya(0)), Math.max(v, ya(0)));
      svgEl("line", { class: "level", x1: x0(sp.start) + 2, x2: x0(sp.end) - 2, y1: v, y2: v }, g);
    }
    y.forEach((v, i) => {
      bar("prox", i, ya(0), ya(v), `prox_TV ${i + 1}: ${v.toFixed(4)} (z ${fmt(z[i])}; run ${runs[i] + 1} of ${spans.length})`, v);
      svgEl("line", { class: "ghost", x1: x0(i) + bw * 0.1, x2: x0(i) + bw * 0.9, y1: ya(z[i]), y2: ya(z[i]) }, g);
    });
    svgEl("line", { class: "tau", x1: L, x2: W - R, y1: ya(tau), y2: ya(tau) }, g);
    svgEl("text", { x: L - 4, y: ya(tau) + 4, "text-anchor": "end", class: "muted" }, g).textContent = "τ";
    // 2. the projection: p = [prox - tau]_+, the runs above tau kept whole
    const yb = linear([0, 1], [B0 + 70, B0]);
    label(B0, ["sparsemax", "of it: fusedmax", "(click: output j)"]);
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: yb(0), y2: yb(0) }, g);
    for (const sp of spans) if (sp.count > 1 && p[sp.start] > 0) outline(sp, yb(p[sp.start]), yb(0));
    p.forEach((v, i) => {
      const hit = svgEl("g", { class: "pw", "data-i": i }, g);
      svgEl("rect", { x: x0(i), width: bw, y: B0, height: 70, fill: "transparent" }, hit);
      svgEl("title", {}, svgEl("rect", { class: v > 0 ? "w m-fusedmax" : "w zero", x: x0(i) + bw * 0.2, width: bw * 0.6, y: v > 0 ? yb(v) : yb(0) - 2, height: v > 0 ? yb(0) - yb(v) : 2, "data-value": v }, hit))
        .textContent = `fusedmax weight ${i + 1}: ${v === 0 ? "exactly 0" : v.toFixed(4)}`;
      if (i === j) svgEl("rect", { class: "pick", x: x0(i) + bw * 0.1, width: bw * 0.8, y: B0 - 4, height: 78, rx: 3 }, g);
    });
    // 3. the backward: d p_j / dz, one value per run of the support, 0 elsewhere
    const gm = Math.max(1e-6, ...Array.from(dz, Math.abs)), yc = linear([-gm, gm], [C0 + 96, C0]);
    label(C0, [`∂p${j + 1}/∂z`, "mean over", "each run"]);
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: yc(0), y2: yc(0) }, g);
    for (const sp of spans) if (sp.count > 1 && p[sp.start] > 0) outline(sp, Math.min(yc(dz[sp.start]), yc(0)), Math.max(yc(dz[sp.start]), yc(0)));
    dz.forEach((v, i) => bar("grad", i, yc(0), yc(v), `∂p${j + 1}/∂z${i + 1}: ${v === 0 ? "exactly 0" : v.toFixed(4)}`, v));
    this._stepsReadout(s, { n, j, spans, p, tau, dz, core });
  }

  _stepsReadout(s, { n, j, spans, p, tau, dz, core }) {
    const inSup = spans.filter((sp) => p[sp.start] > 0), nz = p.reduce((c, v) => c + (v > 0), 0);
    let diff = 0;
    dz.forEach((v, i) => { diff = Math.max(diff, Math.abs(v - core[i])); });
    const note = s.output > n ? ` (output=${s.output} is beyond the ${n} scores: using ${n})` : "";
    this._stepsText.textContent = `prox_TV(z): ${spans.length} run${spans.length === 1 ? "" : "s"} of ${n} scores · the projection cuts at τ = ${tau.toFixed(4)}: ` +
      `${nz} of ${n} weights non-zero, ${inSup.length} run${inSup.length === 1 ? "" : "s"} in the support · ∂p${j + 1}/∂z${note}: ` +
      `sparsemax's backward (e_j minus its mean over the support), then its mean over each run: ${inSup.length} value${inSup.length === 1 ? "" : "s"}, ` +
      `one pass over the output; the core's fusedmaxBackward agrees within ${diff.toExponential(1)}.`;
  }

  // The backward's cost against the number of runs, in this browser (viz/fused-cost.js).
  async _measure() {
    if (this._measuring) return;
    this._measuring = true;
    this._costText.textContent = `Measuring at n = ${COST_N}…`;
    try {
      const lib = { fusedmax, fusedmaxBackward, proxTVRuns: this._prox.proxTVRuns, jacobian }, after = () => new Promise((r) => setTimeout(r, 0));
      const res = [];
      for (const k of runCounts(COST_N)) res.push(await measureCase(lib, { n: COST_N, k, rows: 16, ms: 30, repeats: 3, after }));
      const x = (v) => `${v.toFixed(v < 10 ? 1 : 0)}×`;
      this._costText.textContent = `In this browser, n = ${COST_N} scores in k runs (all in the support): the backward (the forward again, ` +
        `then one pass over the runs) takes ${res.map((r) => `${x(r.backward / r.forward)} the forward at k = ${r.runs}`).join(", ")}; ` +
        `the dense Jacobian–vector product (jacobian(), then Jᵀdy) ${res.map((r) => x(r.dense / r.backward)).join(", ")} the backward. ` +
        `(${res.map((r) => `${r.backward.toFixed(1)} µs`).join(", ")} per row.)`;
    } catch (err) {
      this._costText.textContent = `The measurement failed: ${err.message}`;
    } finally {
      this._measuring = false;
    }
  }

  render(s) {
    const z = s.scores, n = z.length, svg = this._svg, bw = (W - L - R) / n, ys = this._top;
    this._lambda.set(s.lambda); this._beta.set(s.beta); this._glambda.set(s["group-lambda"]);
    // groups: as given when they are whole numbers summing to n, else about 3 each (and say so)
    let groups = s.groups, groupNote = "";
    const given = this.hasAttribute("groups");
    if (!given || groups.some((k) => !Number.isInteger(k)) || groups.reduce((a, b) => a + b, 0) !== n) {
      const auto = autoGroups(n);
      if (given) groupNote = ` (groups="${this.getAttribute("groups").slice(0, 40)}" are not whole sizes summing to ${n}; using ${auto.join(" ")})`;
      groups = auto;
    }
    const x0 = (i) => L + i * bw;
    if (n !== this._n) {
      // the score handles (one WAI-ARIA slider each), rebuilt only when the length changes
      this._n = n;
      svg.replaceChildren();
      svgEl("text", { x: 4, y: 24, class: "label" }, svg).textContent = "scores z";
      svgEl("text", { x: 4, y: 40, class: "muted" }, svg).textContent = "(drag bars)";
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: ys(0), y2: ys(0) }, svg);
      this._bars = z.map((_, i) => {
        const bar = svgEl("rect", { class: "bar", x: x0(i) + bw * 0.15, width: bw * 0.7 }, svg);
        const h = svgEl("g", { role: "slider", "aria-label": `score ${i + 1}`, "aria-valuemin": -ZR, "aria-valuemax": ZR, "aria-orientation": "vertical" }, svg);
        svgEl("circle", { class: "hit-r", r: 14, fill: "transparent", cx: x0(i) + bw / 2 }, h);
        svgEl("circle", { class: "ring", r: 10, cx: x0(i) + bw / 2 }, h);
        svgEl("circle", { class: "knob", r: 6, cx: x0(i) + bw / 2 }, h);
        return { bar, h };
      });
      // one tab stop for the row: ←/→ pick a bar, ↑/↓ (Page Up/Down, Home/End) change its score
      this._row = handleRow(this._bars.map((b) => b.h), (e, i) => {
        const v = sliderKey(e.key, this.scores[i], { min: -ZR, max: ZR, step: 0.05, page: 0.5 });
        if (v !== null) { e.preventDefault(); this._setScore(i, v); }
      }, this._row ? this._row.at : 0);
      this._out = svgEl("g", {}, svg);
    }
    this._bars.forEach(({ bar, h }, i) => {
      const y0 = ys(0), y1 = ys(z[i]);
      bar.setAttribute("y", Math.min(y0, y1).toFixed(1));
      bar.setAttribute("height", Math.max(0.5, Math.abs(y1 - y0)).toFixed(1));
      for (const c of h.children) c.setAttribute("cy", y1.toFixed(1));
      h.setAttribute("aria-valuenow", fmt(z[i]));
      h.setAttribute("aria-valuetext", fmt(z[i]));
    });
    // the three mappings, one row each, heights on a shared [0, 1] scale
    const g = this._out;
    g.replaceChildren();
    const notes = [];
    ROWS.forEach(([name, label], r) => {
      const top = ROW_TOP + r * ROW_STEP, hgt = 58;
      const y = linear([0, 1], [top + hgt, top]);
      const o = name === "fusedmax" ? { lambda: s.lambda } : name === "oscarmax" ? { beta: s.beta } : {};
      const p = name === "groupmax" ? groupmax(z, { groups, lambda: s["group-lambda"] })
        : name === "sigmoid" ? sigmoid(z) : MAPPINGS[name].run(z, o);
      svgEl("text", { x: 4, y: top + hgt / 2, class: `label m-${name}` }, g).textContent = name;
      svgEl("text", { x: 4, y: top + hgt / 2 + 15, class: "muted" }, g).textContent =
        name === "fusedmax" ? `λ = ${fmt(s.lambda)}` : name === "oscarmax" ? `β = ${fmt(s.beta, 3)}`
        : name === "groupmax" ? `λ = ${fmt(s["group-lambda"])}` : name === "sigmoid" ? "sum ≠ 1" : "";
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: y(0), y2: y(0) }, g);
      let alive = 0;
      if (name === "groupmax") {
        // the groups, outlined: dashed where the whole group is exactly 0
        let from = 0;
        for (const k of groups) {
          let mass = 0;
          for (let i = from; i < from + k; i++) mass += p[i];
          if (mass > 0) alive++;
          svgEl("title", {}, svgEl("rect", { class: mass > 0 ? "group" : "group dead", x: x0(from) + 2, width: k * bw - 4, y: top - 2, height: hgt + 4, rx: 4 }, g))
            .textContent = `group of ${k} (scores ${from + 1}-${from + k}): ${mass > 0 ? `weight ${mass.toFixed(4)}` : "exactly 0"}`;
          from += k;
        }
      }
      if (name === "sigmoid") svgEl("line", { class: "one-line", x1: L, x2: W - R, y1: y(1), y2: y(1) }, g);
      if (name === "fusedmax") {
        for (const run of fusedRuns(p)) {
          svgEl("rect", { class: "run", x: x0(run.start) + 2, width: (run.end - run.start) * bw - 4, y: y(run.value) - 4, height: y(0) - y(run.value) + 4, rx: 4 }, g);
        }
      }
      let nz = 0;
      p.forEach((v, i) => {
        if (v > 0) nz++;
        const cls = v === 0 ? "w zero" : `w m-${name}`;
        svgEl("title", {}, svgEl("rect", { class: cls, x: x0(i) + bw * 0.2, width: bw * 0.6, y: v === 0 ? y(0) - 2 : y(v), height: v === 0 ? 2 : y(0) - y(v) }, g))
          .textContent = `${name} weight ${i + 1}: ${v === 0 ? "exactly 0" : v.toFixed(4)}`;
      });
      let extra = "";
      if (name === "oscarmax") {
        // clusters: equal non-zero weights anywhere, outlined
        const seen = new Map();
        p.forEach((v, i) => { if (v > 0) { const k = v.toPrecision(5); seen.set(k, [...(seen.get(k) || []), i]); } });
        const clusters = [...seen.values()].filter((c) => c.length > 1);
        for (const c of clusters) for (const i of c) svgEl("rect", { class: "cluster", x: x0(i) + bw * 0.2, width: bw * 0.6, y: y(p[i]), height: y(0) - y(p[i]) }, g);
        extra = `, ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} of equal weights`;
      }
      if (name === "fusedmax") { const k = fusedRuns(p).length; extra = `, ${k} fused run${k === 1 ? "" : "s"}`; }
      if (name === "groupmax") extra = `, ${alive} of ${groups.length} groups alive${groupNote}`;
      if (name === "sigmoid") {
        const sum = p.reduce((a, b) => a + b, 0);
        notes.push(`sigmoid: sum ${sum.toFixed(2)} (not 1: independent weights)`);
        return;
      }
      notes.push(`${name}: ${nz} of ${n} non-zero${extra}`);
    });
    this._readout.textContent = notes.join(" · ");
    this._stepsBox.hidden = !s.steps;
    this._stepsBtn.textContent = s.steps ? "Hide fusedmax's two steps" : "Show fusedmax's two steps";
    this._stepsBtn.setAttribute("aria-expanded", String(Boolean(s.steps)));
    if (s.steps) this._stepsOnFullCore(s, z);
  }

  // proxTV is in the full core only, and in lib/blocks/prox.js (the mappings core and a mapping
  // chapter stay within their budget): both fetched the first time the steps are shown.
  _stepsOnFullCore(s, z) {
    if (this._prox) { this._renderSteps(s, z); return; }
    this._stepsSvg.replaceChildren();
    this._stepsText.textContent = "Loading the full core (prox_TV is in it)…";
    this._loading ??= Promise.all([ready("full"), import("../lib/blocks/prox.js")]).then(([, m]) => {
      this._prox = m.proxApi(internal.lib);
      this.invalidate();
    }, (err) => { this._loading = null; this._stepsText.textContent = `Could not load the full core: ${err.message}`; });
  }
}

define("sx-fused", SxFused);
