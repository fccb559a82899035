// <sx-bottleneck>: the recurrent encoder-decoder's bottleneck, trained in this browser (issue 24).
// Three GRU encoder-decoders (the library's RNN class) learn the reverse task side by side in one
// Web Worker (runtime/bottleneck-worker.js; the main thread, in short slices, where no worker
// starts): no attention (the last encoder state only), additive attention under a chosen mapping,
// hard attention with a chosen gradient estimator. A fixed seed makes a run reproducible; Stop
// pauses it (the models kept, evaluated at the step reached), Resume goes on. Drawn as they
// train: the three loss curves, the held-out greedy exact accuracy against source length (3..10)
// every 100 steps, and the additive model's attention matrix for one held-out source (exact zeros
// marked with a dot). "Trained" shows the shipped models (web/models/reverse-rnn-*.sxrn) at once:
// their accuracy by length and their matrices.
//   <sx-bottleneck mapping="entmax15" estimator="straight" steps="2000" seed="1"></sx-bottleneck>
// Keyboard: the menus and buttons, in order (Train / Stop / Resume, Restart).
// Events: sx-bottleneck-change { mapping, estimator, steps, seed, view }, sx-bottleneck-progress
// { step, total, losses, thread }, sx-bottleneck-eval { step, accuracy } (accuracy: three arrays,
// one fraction per length), sx-bottleneck-state { state, step }, sx-bottleneck-trained { accuracy }.
import { SxElement, define, sheet, svgEl, htmlEl, fmt } from "./base.js";
import { RNN, tasks } from "../lib/simplexity.js";
import { lossCurve } from "./viz/loss-curve.js";
import { heatLevel } from "./viz/heatmap.js";
import { LENGTHS, VARIANTS, heldoutByLength, LengthEvaluation } from "./runtime/bottleneck.js";
import { SOURCE_LENGTH, MainThreadBottleneck, bottleneckWorker, startBottleneckWorker } from "./runtime/bottleneck-session.js";
import { startSession } from "./runtime/main-thread.js";

const W = 600, H = 210, PL = 46, PR = 14, PT = 12, PB = 34;
const MAPS = ["softmax", "sparsemax", "entmax15"];
const ESTIMATORS = ["straight", "gumbel", "reinforce"];
const MAP_LABEL = { softmax: "softmax", sparsemax: "sparsemax", entmax15: "1.5-entmax" };
const EST_LABEL = { straight: "straight-through argmax", gumbel: "straight-through Gumbel", reinforce: "REINFORCE" };
/** The shipped models of the "trained" view: one literal URL each (bundlers emit the files). */
const SHIPPED = [
  { key: "none", label: "none", variant: "none", url: () => new URL("../models/reverse-rnn-none.sxrn", import.meta.url) },
  { key: "additive-softmax", label: "additive, softmax", short: "softmax", variant: "additive", url: () => new URL("../models/reverse-rnn-additive-softmax.sxrn", import.meta.url) },
  { key: "additive-entmax15", label: "additive, 1.5-entmax", short: "1.5-entmax", variant: "additive2", url: () => new URL("../models/reverse-rnn-additive-entmax15.sxrn", import.meta.url) },
  { key: "hard-straight", label: "hard, straight-through", short: "hard", variant: "hard", url: () => new URL("../models/reverse-rnn-hard-straight.sxrn", import.meta.url) },
];

const CSS = sheet(`
svg.picture { max-width: 760px; }
.v-none { stroke: var(--_softmax); fill: var(--_softmax); }
.v-additive { stroke: var(--_entmax15); fill: var(--_entmax15); }
.v-additive2 { stroke: var(--_entmax); fill: var(--_entmax); }
.v-hard { stroke: var(--_sparsemax); fill: var(--_sparsemax); }
.curve { fill: none; stroke-width: 2; }
.raw { fill: none; stroke-width: 0.6; stroke-opacity: 0.35; }
.dot { stroke: var(--_bg); stroke-width: 1; }
.cell { fill: var(--_accent); }
.zero { fill: var(--_muted); }
.frame { fill: none; stroke: var(--_grid); }
.legend span { margin-right: 12px; white-space: nowrap; }
.legend .swatch.v-none { background: var(--_softmax); }
.legend .swatch.v-additive { background: var(--_entmax15); }
.legend .swatch.v-additive2 { background: var(--_entmax); }
.legend .swatch.v-hard { background: var(--_sparsemax); }
.legend, .note { margin: 2px 0 6px; color: var(--_muted); font-size: 13px; }
.row { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin: 4px 0; }
.row progress { width: 160px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.controls { max-width: 480px; }
`);

export class SxBottleneck extends SxElement {
  static fitText = true;
  static lazy = true;
  static spec = {
    mapping: { type: "enum", default: "softmax", values: MAPS },
    estimator: { type: "enum", default: "straight", values: ESTIMATORS },
    steps: { type: "number", default: 2000, min: 100, max: 5000, integer: true },
    seed: { type: "number", default: 1, min: 0, max: 1000000, integer: true },
    view: { type: "enum", default: "live", values: ["live", "trained"] },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  constructor() {
    super();
    this._run = null; // the live run: { worker, thread, state, step, total, losses, evals, matrix, config }
    this._trained = null; // { state: "loading" | "ready" | "error", accuracy, matrices, message }
  }

  /** The live run's state (copies), or null before the first Train. */
  get training() {
    const r = this._run;
    if (!r) return null;
    return { state: r.state, step: r.step, total: r.total, thread: r.thread, config: { ...r.config },
      losses: r.losses.map((l) => l.slice()), evals: r.evals.map((e) => ({ step: e.step, accuracy: e.accuracy.map((a) => a.slice()) })),
      models: r.models ? r.models.map((b) => b.slice()) : null };
  }

  /** The "trained" view's models: null until first shown, then { state: "loading" | "ready" | "error", accuracy (four arrays, or null) }. */
  get trained() {
    const t = this._trained;
    return t ? { state: t.state, accuracy: t.accuracy && t.state === "ready" ? t.accuracy.map((a) => a.slice()) : null } : null;
  }

  /** The held-out source whose attention is drawn (token ids), the same for both views. */
  get source() { return this._source ? Int32Array.from(this._source) : null; }

  build(body) {
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const select = (label, values, text, key) => {
      const l = htmlEl("label", {}, ctl);
      htmlEl("span", { text: label }, l);
      const sel = htmlEl("select", {}, l);
      for (const v of values) htmlEl("option", { value: v, text: text(v) }, sel);
      sel.addEventListener("change", () => this._user({ [key]: sel.value }));
      return sel;
    };
    this._viewSel = select("show", ["live", "trained"], (v) => (v === "live" ? "trained here, live" : "the shipped trained models"), "view");
    this._mapSel = select("additive: mapping", MAPS, (v) => MAP_LABEL[v], "mapping");
    this._estSel = select("hard: estimator", ESTIMATORS, (v) => EST_LABEL[v], "estimator");
    const row = htmlEl("div", { class: "row" }, body);
    this._trainBtn = htmlEl("button", { type: "button", part: "button train-button", text: "Train" }, row);
    this._trainBtn.addEventListener("click", () => this._toggle());
    this._restartBtn = htmlEl("button", { type: "button", part: "button", text: "Restart" }, row);
    this._restartBtn.addEventListener("click", () => this.restart());
    this._prog = htmlEl("progress", { "aria-label": "training steps" }, row);
    this._status = htmlEl("span", { class: "status", role: "status" }, row);
    this._legend = htmlEl("p", { class: "legend", "aria-hidden": "true" }, body);
    this._loss = svgEl("svg", { class: "picture loss", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "training loss of the three models against the step" }, body);
    this._acc = svgEl("svg", { class: "picture accuracy", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "held-out exact accuracy against source length" }, body);
    this._matrix = svgEl("svg", { class: "picture matrix", viewBox: `0 0 ${W} 250`, role: "img", "aria-label": "attention of each decoder step over the source" }, body);
    this._note = htmlEl("p", { class: "note" }, body);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { mapping: this.mapping, estimator: this.estimator, steps: this.steps, seed: this.seed, view: this.view });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._stopWorker();
  }

  render(s) {
    this._viewSel.value = s.view;
    this._mapSel.value = s.mapping;
    this._estSel.value = s.estimator;
    this._source ??= this._heldSource();
    if (s.view === "trained") this._renderTrained();
    else this._renderLive(s);
  }

  // The first held-out source of SOURCE_LENGTH letters (runtime/bottleneck.js's rows).
  _heldSource() {
    const held = heldoutByLength(tasks, { perLength: 1 });
    const k = held.lengths.indexOf(SOURCE_LENGTH);
    return held.src.slice(k * held.width, (k + 1) * held.width);
  }

  // ------------------------------------------------------------------ the live run
  _renderLive(s) {
    const r = this._run;
    const names = ["no attention", `additive, ${MAP_LABEL[r ? r.config.mapping : s.mapping]}`, `hard, ${EST_LABEL[r ? r.config.estimator : s.estimator]}`];
    this._drawLegend(VARIANTS.map((v, i) => [v, names[i]]));
    const total = r ? r.total : s.steps;
    // (never disabled while stopping: the button keeps the keyboard focus; a press then does nothing)
    this._trainBtn.textContent = !r ? "Train" : r.state === "training" || r.state === "stopping" ? "Stop" : r.state === "paused" ? "Resume" : "Train";
    this._restartBtn.disabled = !r;
    this._prog.hidden = false;
    this._prog.max = total;
    this._prog.value = r ? r.step : 0;
    this._drawLoss(r ? r.losses : [[], [], []], total);
    const last = r && r.evals.length ? r.evals.at(-1) : null;
    this._drawAccuracy(last ? VARIANTS.map((v, i) => [v, last.accuracy[i]]) : [], last ? `step ${last.step}` : "not trained yet");
    const m = r && r.matrix;
    this._drawMatrices(m ? [{ title: `additive, ${MAP_LABEL[r.config.mapping]}: step ${m.step}`, ...m }] : [], "Train: the alignment forms here");
    if (!r) this._status.textContent = `${total} steps of three models (seed ${s.seed}) in a Web Worker; or show the shipped trained models.`;
    this._readout.textContent = last ? this._summary(last.accuracy, `at step ${last.step}`) : "";
    this._note.textContent = "Each row is a decoder step (the letter it wrote), each column a source letter; darker is more weight, a dot an exact zero.";
  }

  _toggle() {
    const r = this._run;
    if (!r || r.state === "done" || r.state === "error") this.train();
    else if (r.state === "training") this.stop();
    else if (r.state === "paused") this.resume();
  }

  /** Start a run (any run under way is dropped) with the current mapping, estimator, steps and seed. */
  train() {
    this._stopWorker();
    if (this.view !== "live") this.view = "live";
    const config = { mapping: this.mapping, estimator: this.estimator, total: this.steps, seed: this.seed };
    const run = this._run = { worker: null, thread: "worker", state: "training", step: 0, total: config.total, config,
      losses: [[], [], []], evals: [], matrix: null, models: null };
    const start = { type: "start", ...config };
    const s = startSession({ startWorker: startBottleneckWorker, info: bottleneckWorker, MainThreadClass: MainThreadBottleneck, start,
      onMessage: (msg) => this._onMessage(run, msg), current: () => this._run === run,
      onFallback: (f) => { Object.assign(run, { worker: f.worker, thread: f.thread }); this._state(run, "training"); } });
    Object.assign(run, { worker: s.worker, thread: s.thread });
    this._state(run, "training");
  }

  /** Pause the run (the models are kept and evaluated at the step reached). */
  stop() {
    const r = this._run;
    if (r && r.state === "training") { r.worker.postMessage({ type: "stop" }); this._state(r, "stopping"); }
  }

  resume() {
    const r = this._run;
    if (r && r.state === "paused") { r.models = null; r.worker.postMessage({ type: "resume" }); this._state(r, "training"); }
  }

  /** Drop the run: the picture goes back to untrained. */
  restart() {
    this._stopWorker();
    this._run = null;
    this.invalidate();
  }

  _stopWorker() {
    if (this._run && this._run.worker) { this._run.worker.terminate(); this._run.worker = null; }
  }

  _state(run, state) {
    run.state = state;
    const what = { training: `training on the ${run.thread === "main" ? "main thread" : "Web Worker"}`, stopping: "stopping…",
      paused: "paused", done: "done", error: "stopped by an error" }[state];
    this._status.textContent = `step ${run.step} of ${run.total}: ${what}`;
    this.emit("state", { state, step: run.step });
    this.invalidate();
  }

  _onMessage(run, msg) {
    if (this._run !== run) return;
    switch (msg.type) {
      case "started": break;
      case "progress":
        run.step = msg.step;
        msg.losses.forEach((l, i) => run.losses[i].push(...l));
        for (const e of msg.evals) { run.evals.push(e); this.emit("eval", { step: e.step, accuracy: e.accuracy.map((a) => a.slice()) }); }
        if (run.state === "training") this._status.textContent = `step ${run.step} of ${run.total}${msg.evaluating ? ": evaluating held-out rows" : ""}`;
        this.emit("progress", { step: run.step, total: run.total, losses: run.losses.map((l) => l.at(-1)), thread: run.thread });
        this.invalidate();
        break;
      case "snapshot": run.matrix = { step: msg.step, shape: msg.shape, data: msg.data }; this.invalidate(); break;
      case "paused": run.models = msg.models.map((b) => new Uint8Array(b)); run.step = msg.step; this._state(run, "paused"); break;
      case "done": run.step = msg.step; this._stopWorker(); this._state(run, "done"); break;
      case "error":
        this._stopWorker();
        this._state(run, "error");
        this.showMessage([`sx-bottleneck: ${msg.message}`]);
        break;
      default: break;
    }
  }

  // ------------------------------------------------------------------ the shipped models
  _renderTrained() {
    this._drawLegend(SHIPPED.map((m) => [m.variant, m.label]));
    this._trainBtn.textContent = "Train";
    this._trainBtn.disabled = false;
    this._restartBtn.disabled = !this._run;
    this._prog.hidden = true;
    if (!this._trained) this._loadTrained();
    const t = this._trained;
    this._drawLoss([], 1, "trained natively: no live curve");
    const ready = t.state === "ready";
    this._drawAccuracy(ready ? SHIPPED.map((m, i) => [m.variant, t.accuracy[i]]) : [], ready ? "shipped models" : t.state === "error" ? "could not load" : "loading…");
    this._drawMatrices(ready ? SHIPPED.slice(1).map((m, i) => ({ title: m.short, ...t.matrices[i + 1] })) : [], t.state === "error" ? "could not load the models" : "loading the models…");
    this._status.textContent = ready ? "the four shipped models, decoded here on held-out rows" : t.state === "error" ? t.message : "loading the shipped models…";
    this._readout.textContent = ready ? this._summary([t.accuracy[0], t.accuracy[1], t.accuracy[3]], "the shipped models") : "";
    this._note.textContent = "The shipped models, trained to 99.5% held-out accuracy or 3000 steps; each matrix row a decoder step, a dot an exact zero.";
  }

  // Fetch and load the four .sxrn, then their accuracy by length (sliced: a batch per task) and matrices.
  async _loadTrained() {
    const t = this._trained = { state: "loading", accuracy: null, matrices: null, message: "" };
    const models = [];
    try {
      for (const m of SHIPPED) {
        const res = await fetch(m.url());
        if (!res.ok) throw new Error(`${m.key}.sxrn: HTTP ${res.status}`);
        models.push(RNN.load(new Uint8Array(await res.arrayBuffer())));
      }
      const held = heldoutByLength(tasks);
      t.accuracy = [];
      for (const model of models) {
        const e = new LengthEvaluation(model, held);
        while (!e.chunk()) await new Promise((r) => setTimeout(r, 0));
        t.accuracy.push(e.accuracy);
      }
      t.matrices = models.map((model) => { const { shape, data } = model.attention(this._source); return { shape, data, step: model.steps }; });
      t.state = "ready";
    } catch (err) {
      t.state = "error";
      t.message = `the shipped models: ${err.message}`;
    } finally {
      for (const m of models) m.free();
    }
    if (this.view === "trained") this.renderNow(); // drawn before the state is read or the event fires
    if (t.state === "ready") this.emit("trained", { accuracy: t.accuracy.map((a) => a.slice()) });
  }

  // ------------------------------------------------------------------ drawing
  _drawLegend(items) {
    this._legend.replaceChildren();
    for (const [v, label] of items) {
      const item = htmlEl("span", {}, this._legend);
      htmlEl("span", { class: `swatch v-${v}` }, item);
      item.append(label);
    }
  }

  _axes(svg, xLabel, yLabel) {
    svgEl("path", { class: "axis", d: `M${PL} ${PT}V${H - PB}H${W - PR}` }, svg);
    svgEl("text", { class: "muted", x: (PL + W - PR) / 2, y: H - 4, "text-anchor": "middle", "font-size": 12 }, svg).textContent = xLabel;
    svgEl("text", { class: "muted", x: 12, y: (PT + H - PB) / 2, transform: `rotate(-90 12 ${(PT + H - PB) / 2})`, "text-anchor": "middle", "font-size": 12 }, svg).textContent = yLabel;
  }

  _drawLoss(losses, total, empty = "") {
    const svg = this._loss;
    svg.replaceChildren();
    this._axes(svg, "step", "loss (log)");
    const all = losses.flat();
    // the three curves on one log scale (lossCurve's decades over all of them) and one step axis
    const ref = lossCurve(all, { x0: PL, x1: W - PR, y0: PT, y1: H - PB });
    const x = (s) => PL + (W - PR - PL) * (s / Math.max(1, total));
    losses.forEach((l, i) => {
      let raw = "", smooth = "", m = 0, k = 0;
      l.forEach((v, s) => {
        if (!(Number.isFinite(v) && v > 0)) return;
        const xs = x(s + 1).toFixed(1);
        raw += `${k ? "L" : "M"}${xs} ${ref.y(v).toFixed(1)}`;
        m = 0.95 * m + 0.05 * Math.log(v); // a running mean in log space, bias-corrected
        smooth += `${k ? "L" : "M"}${xs} ${ref.y(Math.exp(m / (1 - 0.95 ** (k + 1)))).toFixed(1)}`;
        k++;
      });
      svgEl("path", { class: `raw v-${VARIANTS[i]}`, d: raw }, svg);
      svgEl("path", { class: `curve v-${VARIANTS[i]}`, d: smooth, "data-steps": l.length }, svg);
    });
    const ticks = ref.yTicks;
    for (const t of ticks) {
      svgEl("text", { class: "muted", x: PL - 4, y: t.y + 4, "text-anchor": "end", "font-size": 11 }, svg).textContent = String(t.value);
    }
    if (!empty) svgEl("text", { class: "muted", x: W - PR, y: H - PB + 14, "text-anchor": "end", "font-size": 11 }, svg).textContent = String(total);
    if (empty || !all.length) svgEl("text", { class: "muted", x: (PL + W) / 2, y: H / 2, "text-anchor": "middle", "font-size": 12 }, svg).textContent = empty || "no steps yet";
  }

  // series: [[variant, accuracy per LENGTHS entry]]
  _drawAccuracy(series, label) {
    const svg = this._acc;
    svg.replaceChildren();
    this._axes(svg, "source length (letters)", "exact %");
    const x = (k) => PL + 16 + (k / (LENGTHS.length - 1)) * (W - PR - PL - 32);
    const y = (a) => H - PB - a * (H - PB - PT);
    LENGTHS.forEach((n, k) => { svgEl("text", { class: "muted", x: x(k), y: H - PB + 14, "text-anchor": "middle", "font-size": 11 }, svg).textContent = String(n); });
    for (const a of [0, 0.5, 1]) svgEl("text", { class: "muted", x: PL - 4, y: y(a) + 4, "text-anchor": "end", "font-size": 11 }, svg).textContent = String(100 * a);
    for (const [v, acc] of series) {
      const g = svgEl("g", { class: `series v-${v}`, "data-variant": v }, svg);
      svgEl("path", { class: `curve v-${v}`, d: acc.map((a, k) => `${k ? "L" : "M"}${x(k).toFixed(1)} ${y(a).toFixed(1)}`).join("") }, g);
      acc.forEach((a, k) => svgEl("circle", { class: `dot v-${v}`, cx: x(k), cy: y(a), r: 3.5, "data-length": LENGTHS[k], "data-acc": String(a) }, g));
    }
    svgEl("text", { class: "muted", x: W - PR, y: H - PB - 8, "text-anchor": "end", "font-size": 12 }, svg).textContent = label;
  }

  // mats: [{ title, shape, data }], each the attention of this._source (rows: decoder steps to EOS)
  _drawMatrices(mats, empty) {
    const svg = this._matrix;
    svg.replaceChildren();
    const n = SOURCE_LENGTH + 1, vocab = tasks.vocab("reverse");
    const label = (id) => (id === 2 ? "$" : vocab[id] || "");
    if (!mats.length) {
      svgEl("text", { class: "muted", x: W / 2, y: 120, "text-anchor": "middle", "font-size": 12 }, svg).textContent = empty;
      return;
    }
    const panel = Math.min(W / mats.length, 300), cs = Math.min(22, (panel - 30) / n);
    mats.forEach((m, p) => {
      const x0 = p * panel + 22, y0 = 44, [, steps, srcLen] = m.shape;
      const g = svgEl("g", { class: "mat", "data-title": m.title, "data-steps": Math.min(n, steps), "data-cols": Math.min(n, srcLen) }, svg);
      svgEl("text", { x: x0, y: 14, "font-size": 12, class: "label" }, g).textContent = m.title;
      for (let j = 0; j < n; j++) svgEl("text", { class: "muted", x: x0 + (j + 0.5) * cs, y: y0 - 6, "text-anchor": "middle", "font-size": 11 }, g).textContent = label(this._source[j]);
      for (let t = 0; t < Math.min(n, steps); t++) {
        const want = t < n - 1 ? this._source[n - 2 - t] : 2;
        svgEl("text", { class: "muted", x: x0 - 4, y: y0 + (t + 0.7) * cs, "text-anchor": "end", "font-size": 11 }, g).textContent = label(want);
        for (let j = 0; j < Math.min(n, srcLen); j++) {
          const w = m.data[t * srcLen + j];
          const attrs = { "data-t": t, "data-j": j, "data-w": String(w) };
          if (w === 0) svgEl("circle", { class: "zero", cx: x0 + (j + 0.5) * cs, cy: y0 + (t + 0.5) * cs, r: 1.3, ...attrs }, g);
          else svgEl("rect", { class: "cell", x: x0 + j * cs, y: y0 + t * cs, width: cs, height: cs, "fill-opacity": heatLevel(w).toFixed(3), ...attrs }, g);
        }
      }
      svgEl("rect", { class: "frame", x: x0, y: y0, width: n * cs, height: Math.min(n, steps) * cs }, g);
    });
  }

  _summary(acc, when) {
    const [none, add, hard] = acc, last = LENGTHS.length - 1, pct = (a) => `${fmt(100 * a, 0)}%`;
    return `Exact at 3 → 10 letters, ${when}: no attention ${pct(none[0])} → ${pct(none[last])}, ` +
      `additive ${pct(add[0])} → ${pct(add[last])}, hard ${pct(hard[0])} → ${pct(hard[last])}.`;
  }
}

define("sx-bottleneck", SxBottleneck);
