// <sx-pooling>: attention pooling as kernel regression, the Nadaraya-Watson example of D2L.
// Noisy training points (x_i, y_i) are the keys and values; each query x gets the weights
// mapping(-((x - x_i) w)^2 / 2) and predicts their weighted mean. Softmax gives a Gaussian
// kernel; sparsemax and entmax give kernels with compact support: exact zeros beyond a width.
// Drawn: the truth, the data and the fit of each mapping; the weights of every test query over
// the sorted training inputs (the D2L heatmap, exact zeros left blank); the errors. "learn w"
// fits each kernel's w by gradient descent on the leave-one-out error, a few steps per
// animation frame, so the page never freezes and the fit moves as it learns.
//   <sx-pooling mappings="softmax sparsemax entmax15" w="1" points="50" seed="1"></sx-pooling>
// Events: sx-pooling-change { w }, sx-pooling-learn { steps, ms, computeMs, kernels: [{ mapping, w, before, after }] }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt, MAPPINGS } from "./base.js";
import { fitBox } from "./fit-box.js";
import { attentionPooling, attentionPoolingBackward } from "../lib/simplexity.js";
import { linear, ticks } from "./viz/scale.js";
import { poolingData, mse } from "./viz/pooling-data.js";
import { weightLevels, levelPaths, levelOpacity } from "./viz/heat-levels.js";

const W = 560, FH = 250, FL = 34, FR = 10, FT = 12, FB = 30;
const LEVELS = 8, STEPS_PER_FRAME = 2;
const KERNELS = ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax"];

const CSS = sheet(`
svg.picture { max-width: 720px; }
.pt { fill: var(--_muted); fill-opacity: 0.65; }
.truth { fill: none; stroke: var(--_fg); stroke-width: 1.4; stroke-dasharray: 5 4; }
.fit { fill: none; stroke-width: 2.2; }
.hm-bg { fill: var(--_panel); stroke: var(--_grid); }
.label { font-weight: 600; stroke: none; }
.small { --_fs: 11px; }
.body { container-type: inline-size; }
@container (max-width: 420px) { svg .wide-only { display: none; } } /* the table below says it too */
.controls { max-width: 480px; }
.actions { display: flex; gap: 8px; align-items: center; margin: 5.6px 0; flex-wrap: wrap; }
.actions button { font-size: 13px; color: var(--_fg); padding: 3.2px 11.2px; }
.actions button.primary { border-color: var(--_accent); }
progress { width: 144px; accent-color: var(--_accent); }
.status { font-variant-numeric: tabular-nums; color: var(--_muted); font-size: 13px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
table { margin-top: 4.8px; }
`);

export class SxPooling extends SxElement {
  static fitText = true;
  static fitBox = fitBox;
  static spec = {
    mappings: { type: "enums", default: ["softmax", "sparsemax", "entmax15"], values: KERNELS },
    w: { type: "number", default: 1, min: 0.05, max: 50 },
    alpha: { type: "number", default: 1.3, min: 1, max: 4 },
    lambda: { type: "number", default: 0.05, min: 0, max: 2 },
    points: { type: "number", default: 50, min: 5, max: 200 },
    seed: { type: "number", default: 1, min: 0, max: 4294967295 },
    noise: { type: "number", default: 0.5, min: 0, max: 2 },
    steps: { type: "number", default: 100, min: 1, max: 2000 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  build(body) {
    this._fit = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${FH}`, role: "img", "aria-label": "training data, the truth and the fit of each kernel" }, body);
    this._hm = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} 240`, role: "img", "aria-label": "attention weights of each test query over the sorted training inputs, one heatmap per kernel" }, body);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    // a log scale: 10^-1.3 = 0.05 .. 10^1.7 = 50, with w = 1 on the step grid
    this._wCtl = rangeControl(ctl, { label: "w (every kernel)", min: -1.3, max: 1.7, step: 0.01, value: 0, format: (v) => (10 ** v).toPrecision(3) });
    this._wCtl.input.addEventListener("input", () => {
      this._stop();
      this.w = Number((10 ** Number(this._wCtl.input.value)).toPrecision(4));
      this.emit("change", { w: this.w });
    });
    const actions = htmlEl("div", { class: "actions", part: "actions" }, body);
    this._learnBtn = htmlEl("button", { type: "button", class: "primary", part: "learn-button", text: "learn w" }, actions);
    this._learnBtn.addEventListener("click", () => (this._learning ? this._stop() : this._learn()));
    this._resetBtn = htmlEl("button", { type: "button", part: "reset-button", text: "reset w" }, actions);
    this._resetBtn.addEventListener("click", () => { this._stop(); this._ws = null; this.invalidate(); });
    this._progress = htmlEl("progress", { max: 1, value: 0, "aria-label": "learning progress" }, actions);
    this._status = htmlEl("span", { class: "status", part: "status", role: "status" }, actions);
    this._table = htmlEl("table", { part: "table", "aria-label": "each kernel's w and errors" }, body);
    const head = htmlEl("tr", {}, htmlEl("thead", {}, this._table));
    for (const t of ["kernel", "w", "leave-one-out error", "test error", "exact zeros"]) htmlEl("th", { text: t }, head);
    this._tbody = htmlEl("tbody", {}, this._table);
    this._readout = htmlEl("p", { class: "readout", part: "readout" }, body);
    this._ws = null;       // current w per kernel (null: the w attribute for all)
    this._learning = null; // { step, steps, ... } while learning
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._stop();
  }

  // The data and each kernel's options, from the settings.
  _setup(s) {
    const n = Math.round(s.points), seed = Math.round(s.seed);
    const key = `${n}|${seed}|${s.noise}`;
    if (key !== this._dataKey) {
      this._dataKey = key;
      this._data = poolingData({ n, seed, noise: s.noise });
      this._ws = null;
    }
    const wKey = `${s.w}|${s.mappings}|${s.alpha}|${s.lambda}`;
    if (wKey !== this._wKey) { this._wKey = wKey; this._ws = null; }
    if (!this._ws) this._stop(); // a learning run belongs to the kernels and data it started with
    if (!this._ws) this._ws = new Map(s.mappings.map((m) => [m, s.w]));
    return s.mappings.map((m) => ({ mapping: m, ...(m === "entmax" ? { alpha: s.alpha } : m === "fusedmax" ? { lambda: s.lambda } : {}) }));
  }

  _looError(k, w) {
    const { x, y } = this._data;
    const { out } = attentionPooling(x, x, y, { ...k, w, leaveOneOut: true, weights: false });
    return mse(out, y);
  }

  render(s) {
    const kernels = this._setup(s), { x, y, xTest, yTest } = this._data;
    this._wCtl.set(Math.log10(s.w));
    const results = kernels.map((k) => {
      const w = this._ws.get(k.mapping);
      const { out, weights } = attentionPooling(xTest, x, y, { ...k, w });
      return { ...k, w, out, weights, loo: this._looError(k, w), test: mse(out, yTest) };
    });
    this._drawFit(results);
    this._drawHeatmaps(results);
    // the numbers
    this._tbody.replaceChildren();
    for (const r of results) {
      const tr = htmlEl("tr", {}, this._tbody);
      const td = htmlEl("td", {}, tr);
      htmlEl("span", { class: `swatch m-${r.mapping}` }, td);
      td.append(label(r));
      for (const t of [r.w.toPrecision(3), r.loo.toFixed(4), r.test.toFixed(4), zeroText(r)]) htmlEl("td", { text: t }, tr);
    }
    this._readout.textContent = `${x.length} noisy points y = 2 sin x + x^0.8 + noise (σ = ${s.noise}), ${xTest.length} test queries; ` +
      `errors are mean squared: leave-one-out on the training points (what learning w minimises), test against the noiseless truth.`;
    this._results = results;
    if (!this._learning) {
      this._learnBtn.textContent = "learn w";
      if (!this._status.textContent) this._progress.value = 0;
    }
  }

  _drawFit(results) {
    const svg = this._fit, { x, y, xTest } = this._data;
    const sx = linear([0, 5], [FL, W - FR]), sy = linear([-2, 6], [FH - FB, FT]);
    svg.replaceChildren();
    for (const t of ticks(0, 5, 5)) {
      svgEl("line", { class: "axis", x1: sx(t), x2: sx(t), y1: sy(-2), y2: sy(6) }, svg);
      svgEl("text", { x: sx(t), y: FH - FB + 15, "text-anchor": "middle", class: "muted small" }, svg).textContent = String(t);
    }
    for (const v of ticks(-2, 6, 4)) {
      svgEl("line", { class: "axis", x1: sx(0), x2: sx(5), y1: sy(v), y2: sy(v) }, svg);
      svgEl("text", { x: FL - 5, y: sy(v) + 4, "text-anchor": "end", class: "muted small" }, svg).textContent = String(v);
    }
    svgEl("text", { x: (FL + W - FR) / 2, y: FH - 3, "text-anchor": "middle", class: "small" }, svg).textContent = "x";
    x.forEach((t, i) => svgEl("circle", { class: "pt", cx: sx(t).toFixed(1), cy: sy(Math.max(-2, Math.min(6, y[i]))).toFixed(1), r: 2.6 }, svg));
    const line = (ys) => Array.from(xTest, (t, i) => `${i ? "L" : "M"}${sx(t).toFixed(1)},${sy(Math.max(-2, Math.min(6, ys[i]))).toFixed(1)}`).join("");
    const fine = Float32Array.from({ length: 101 }, (_, i) => (5 * i) / 100);
    svgEl("path", { class: "truth", d: Array.from(fine, (t, i) => `${i ? "L" : "M"}${sx(t).toFixed(1)},${sy(2 * Math.sin(t) + t ** 0.8).toFixed(1)}`).join("") }, svg);
    results.forEach((r) => svgEl("title", {}, svgEl("path", { class: `fit m-${r.mapping}`, d: line(r.out) }, svg)).textContent = `${label(r)}, w = ${r.w.toPrecision(3)}`);
    // legend
    const items = [["truth", "truth"], ...results.map((r) => [r.mapping, label(r)])];
    items.forEach(([k, text], i) => {
      const lx = FL + 10, ly = FT + 12 + 15 * i;
      svgEl("line", { x1: lx, x2: lx + 22, y1: ly - 4, y2: ly - 4, class: k === "truth" ? "truth" : `fit m-${k}` }, svg);
      svgEl("text", { x: lx + 28, y: ly, class: "small" }, svg).textContent = text;
    });
  }

  _drawHeatmaps(results) {
    const svg = this._hm, nq = this._data.xTest.length, nk = this._data.x.length, k = results.length;
    const gap = 14, top = 30, panelW = (W - 20 - gap * (k - 1)) / k, side = Math.min(panelW, 190);
    const cw = side / nk, ch = side / nq, H = top + side + 40;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.replaceChildren();
    results.forEach((r, c) => {
      const x0 = 20 + c * (panelW + gap), y0 = top;
      const { level, zeros, max } = weightLevels(r.weights, { levels: LEVELS });
      svgEl("text", { x: x0, y: 14, class: `label small m-${r.mapping}` }, svg).textContent = label(r);
      svgEl("text", { x: x0, y: 26, class: "muted small wide-only" }, svg).textContent = `w = ${r.w.toPrecision(3)}, max weight ${max.toFixed(2)}`;
      svgEl("rect", { class: "hm-bg", x: x0, y: y0, width: side, height: side }, svg);
      const g = svgEl("g", { class: `m-${r.mapping}` }, svg);
      levelPaths(level, nq, nk, { x0, y0, cw, ch, levels: LEVELS }).forEach((d, i) => {
        if (d) svgEl("path", { d, "fill-opacity": levelOpacity(i + 1, LEVELS).toFixed(3), stroke: "none" }, g);
      });
      svgEl("text", { x: x0, y: y0 + side + 14, class: "muted small wide-only" }, svg).textContent = r.mapping === "softmax"
        ? (zeros ? `${fmt((100 * zeros) / r.weights.length, 0)}% underflow to 0 in float32` : "no zeros") : `${zeroText(r)} exactly 0 (blank)`;
    });
    svgEl("text", { x: 4, y: top + side / 2, class: "muted small", transform: `rotate(-90 10 ${top + side / 2})`, "text-anchor": "middle" }, svg).textContent = "queries ↓";
    svgEl("text", { x: 20, y: top + side + 30, class: "muted small" }, svg).textContent = "keys: training inputs, sorted →";
  }

  // --------------------------------------------------------------- learning w
  // Adam on log w (so w stays positive and steps are relative) on the leave-one-out mean
  // squared error / 2, every kernel at once, STEPS_PER_FRAME steps per animation frame.
  _learn() {
    const { s } = this.settings();
    const kernels = this._setup(s), { x, y } = this._data, n = x.length;
    const steps = Math.round(s.steps);
    const state = kernels.map((k) => ({ k, u: Math.log(this._ws.get(k.mapping)), m: 0, v: 0, before: this._looError(k, this._ws.get(k.mapping)) }));
    const job = this._learning = { step: 0, steps, t0: performance.now(), computeMs: 0, frame: 0 };
    this._learnBtn.textContent = "stop";
    this._progress.max = steps;
    this._progress.value = 0;
    const lr = 0.1, b1 = 0.9, b2 = 0.999;
    const tick = () => {
      if (this._learning !== job) return;
      const c0 = performance.now();
      for (let i = 0; i < STEPS_PER_FRAME && job.step < steps; i++) {
        job.step++;
        for (const st of state) {
          const w = Math.exp(st.u);
          const { out } = attentionPooling(x, x, y, { ...st.k, w, leaveOneOut: true, weights: false });
          const dy = out.map((o, j) => (o - y[j]) / n);
          const g = attentionPoolingBackward(x, x, y, dy, { ...st.k, w, leaveOneOut: true }).dw * w; // d/d log w
          st.m = b1 * st.m + (1 - b1) * g;
          st.v = b2 * st.v + (1 - b2) * g * g;
          st.u -= (lr * st.m / (1 - b1 ** job.step)) / (Math.sqrt(st.v / (1 - b2 ** job.step)) + 1e-8);
          this._ws.set(st.k.mapping, Number(Math.exp(st.u).toPrecision(6)));
        }
      }
      job.computeMs += performance.now() - c0;
      this._progress.value = job.step;
      this._status.textContent = `learning w: step ${job.step} of ${steps}`;
      this.renderNow(); // the fit and the heatmaps follow w as it learns
      if (job.step < steps) { job.frame = requestAnimationFrame(tick); return; }
      const ms = performance.now() - job.t0;
      this._learning = null;
      this._learnBtn.textContent = "learn w";
      const kernelsOut = state.map((st) => ({ mapping: st.k.mapping, w: this._ws.get(st.k.mapping), before: st.before, after: this._looError(st.k, this._ws.get(st.k.mapping)) }));
      this._status.textContent = `learned in ${steps} steps: ${fmt(ms / 1000, 2)} s on screen, ${fmt(job.computeMs, 0)} ms of compute`;
      this.lastLearn = { steps, ms, computeMs: job.computeMs, kernels: kernelsOut };
      this.emit("learn", this.lastLearn);
    };
    job.frame = requestAnimationFrame(tick);
  }

  _stop() {
    const job = this._learning;
    if (!job) return;
    cancelAnimationFrame(job.frame);
    this._learning = null;
    if (this._learnBtn) this._learnBtn.textContent = "learn w";
    if (this._status) this._status.textContent = `stopped at step ${job.step} of ${job.steps}`;
  }
}

// The share of exact zeros among the weights. Softmax has none in exact arithmetic: its zeros
// are weights below float32's smallest number (exp(-104)), which a wide w makes common.
function zeroText(r) {
  let zeros = 0;
  for (const v of r.weights) if (v === 0) zeros++;
  const pct = `${fmt((100 * zeros) / r.weights.length, 0)}%`;
  return r.mapping === "softmax" && zeros ? `${pct} (underflow)` : pct;
}

function label(r) {
  return MAPPINGS[r.mapping].label + (r.mapping === "entmax" ? ` (α = ${fmt(r.alpha)})` : r.mapping === "fusedmax" ? ` (λ = ${fmt(r.lambda)})` : "");
}

define("sx-pooling", SxPooling);
