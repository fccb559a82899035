// <sx-costs>: the notes' table "CNNs/RNNs vs. Self-Attention", live. Sliders for the sequence
// length n, the width d and the kernel size k; the three connection graphs (drawn for at most
// 8 tokens); the table's orders evaluated at (n, d, k) (viz/costs.js); the operations per layer
// against n on log-log axes with the crossovers where self-attention's n^2 d overtakes the RNN's
// n d^2 (n = d) and the CNN's k n d^2 (n = k d); and "Measure in this browser": the library's
// attention() (full core) timed at a few n around the chosen one, in short tasks with progress,
// beside n^2 d scaled to fit.
//   <sx-costs n="32" d="64" k="3"></sx-costs>
// The recurrent layer's timing goes through SxCosts.recurrentLayer: a function (n, d) => void
// running one recurrent layer of width d over n steps, timed beside n d^2; by default the RNN
// class's GRU encoder (runtime/recurrent-layer.js), for d up to 256 and n d^2 within the budget.
// A page may set its own, or null (no recurrent rows).
// Events: sx-costs-change { n, d, k }, sx-costs-measure { d, attention: rows, recurrent: rows | null }
// (rows: { n, ms, formula, predicted }).
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt } from "./base.js";
import { attention, RNN } from "../lib/simplexity.js";
import { recurrentLayerOf, MAX_D } from "./runtime/recurrent-layer.js";
import { costTable, crossovers, cnnLayers, fitScale, ladder } from "./viz/costs.js";
import { mulberry32 } from "./viz/mulberry32.js";

const PW = 190, PH = 204, GTOP = 40, GBOT = 176, SHOWN = 8;
const CW = 600, CH = 250, CL = 62, CR = 20, CT = 14, CB = 40;
const BUDGET = 2 ** 25; // the largest n^2 d measured: one call stays a short task
const NAMES = { cnn: "CNN", rnn: "RNN", attention: "self-attention" };
const FORMULA = {
  cnn: ["O(k n d²)", "O(1)", "O(n/k)"],
  rnn: ["O(n d²)", "O(n)", "O(n)"],
  attention: ["O(n² d)", "O(1)", "O(1)"],
};

const CSS = sheet(`
svg.picture { max-width: 760px; }
.node { fill: var(--_bg); stroke: var(--_fg); stroke-width: 1.2; }
.edge { stroke: var(--_muted); stroke-width: 0.8; stroke-opacity: 0.6; }
.path { stroke: var(--_accent); stroke-width: 2.4; fill: none; }
.node.on { fill: var(--_accent); stroke: var(--_accent); }
.label { font-weight: 600; }
.l-cnn { stroke: var(--_entmax15); fill: var(--_entmax15); }
.l-rnn { stroke: var(--_softmax); fill: var(--_softmax); }
.l-attention { stroke: var(--_sparsemax); fill: var(--_sparsemax); }
.curve { stroke-width: 2.2; fill: none; }
.cross { stroke-width: 1.4; fill: var(--_bg); }
.now { stroke: var(--_fg); stroke-dasharray: 4 3; }
.graphs { display: flex; flex-wrap: wrap; gap: 4px 16px; }
.graphs svg.picture { flex: 1 1 170px; max-width: 240px; }
.note, .legend { margin: 2px 0 6px; color: var(--_muted); font-size: 13px; }
.legend span { margin-right: 12px; white-space: nowrap; }
.legend .swatch.l-cnn { background: var(--_entmax15); }
.legend .swatch.l-rnn { background: var(--_softmax); }
.legend .swatch.l-attention { background: var(--_sparsemax); }
.controls { max-width: 480px; }
table { margin: 6px 0; }
td code { display: block; color: var(--_muted); white-space: nowrap; }
td .num { white-space: nowrap; }
/* narrow: each row of a table a block of "name: value" lines */
@container (max-width: 420px) {
  table.costs thead, table.measured thead { display: none; }
  table.costs, table.costs tbody, table.costs tr, table.costs th, table.costs td,
  table.measured, table.measured tbody, table.measured tr, table.measured td { display: block; text-align: left; }
  table.costs td::before, table.measured td::before { content: attr(data-label) ": "; color: var(--_muted); }
  table.costs td code { display: inline; margin-right: 0.4em; }
  table.costs tr, table.measured tr { padding: 3px 0; border-bottom: 1px solid var(--_grid); }
  table.costs td, table.costs th, table.measured td { border: none; }
}
.crossover, .readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.measure { margin: 8px 0 0; }
.measure .row { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; }
.measure progress { width: 160px; }
.measure progress[hidden], .measure table[hidden] { display: none; }
.measure p { margin: 4px 0; }
`);

const HEADS = ["operations per layer", "sequential operations", "maximum path length"];
const MEASURED = ["layer", "n", "measured ms", "formula ms", "measured / formula"];
const num = (v) => (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(2));
const nextTask = () => new Promise((r) => setTimeout(r, 0));

export class SxCosts extends SxElement {
  static fitText = true;
  static lazy = true;
  static spec = {
    n: { type: "number", default: 32, min: 2, max: 4096, integer: true },
    d: { type: "number", default: 64, min: 2, max: 1024, integer: true },
    k: { type: "number", default: 3, min: 2, max: 16, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  /** The recurrent layer's timing hook: (n, d) => void, one recurrent layer of width d over n steps
   *  (timed beside n d^2); by default the RNN class's GRU encoder; null: no recurrent rows. */
  static recurrentLayer = recurrentLayerOf({ RNN });

  build(body) {
    const graphs = htmlEl("div", { class: "graphs", part: "graphs" }, body);
    this._graphs = ["the CNN", "the RNN", "self-attention"].map((who) => svgEl("svg", { class: "picture graph", viewBox: `0 0 ${PW} ${PH}`,
      role: "img", "aria-label": `the connection graph of ${who}, its longest path drawn` }, graphs));
    this._note = htmlEl("p", { class: "note" }, body);
    this._curves = svgEl("svg", { class: "picture curves", viewBox: `0 0 ${CW} ${CH}`, role: "img", "aria-label": "operations per layer against n, log-log, with the crossovers" }, body);
    const legend = htmlEl("p", { class: "legend", "aria-hidden": "true" }, body);
    for (const a of ["cnn", "rnn", "attention"]) {
      const item = htmlEl("span", {}, legend);
      htmlEl("span", { class: `swatch l-${a}` }, item);
      item.append(NAMES[a]);
    }
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const log2 = (label, key, lo, hi) => {
      const c = rangeControl(ctl, { label, min: lo, max: hi, step: 0.125, value: Math.log2(this[key]), format: (v) => String(Math.round(2 ** v)) });
      c.input.addEventListener("input", () => this._user({ [key]: Math.round(2 ** Number(c.input.value)) }));
      return c;
    };
    this._n = log2("sequence length n", "n", 1, 12);
    this._d = log2("width d", "d", 1, 10);
    this._k = rangeControl(ctl, { label: "kernel size k", min: 2, max: 16, step: 1, value: 3, format: (v) => String(v) });
    this._k.input.addEventListener("input", () => this._user({ k: Number(this._k.input.value) }));
    this._table = htmlEl("table", { class: "costs", part: "table" }, body);
    this._cross = htmlEl("p", { class: "crossover", part: "readout", "aria-live": "polite" }, body);
    this._buildMeasure(body);
  }

  _buildMeasure(body) {
    const m = htmlEl("div", { class: "measure", part: "measure" }, body);
    const row = htmlEl("div", { class: "row" }, m);
    this._btn = htmlEl("button", { type: "button", class: "measure-button", part: "button measure-button", text: "Measure in this browser" }, row);
    this._btn.addEventListener("click", () => this.measure());
    this._prog = htmlEl("progress", { "aria-label": "measuring" }, row);
    this._prog.hidden = true;
    this._status = htmlEl("span", { class: "status", role: "status" }, row);
    this._results = htmlEl("table", { class: "measured", part: "measured" }, m);
    this._results.hidden = true;
    this._rnnNote = htmlEl("p", { class: "rnn-note" }, m);
  }

  _user(change) {
    for (const key in change) this[key] = change[key];
    this.emit("change", { n: this.n, d: this.d, k: this.k });
  }

  render(s) {
    const { n, d, k } = s;
    this._n.set(Math.log2(n)); this._n.output.textContent = String(n); this._n.input.setAttribute("aria-valuetext", String(n));
    this._d.set(Math.log2(d)); this._d.output.textContent = String(d); this._d.input.setAttribute("aria-valuetext", String(d));
    this._k.set(k);
    this._drawGraphs(Math.min(n, SHOWN), k, n);
    this._drawCurves(n, d, k);
    this._fillTable(costTable(n, d, k), n, d, k);
    const x = crossovers(d, k), t = costTable(n, d, k);
    this._cross.textContent = `Self-attention does fewer operations per layer than the RNN while n < d = ${x.rnn}, ` +
      `and fewer than the CNN while n < k d = ${x.cnn}. At n = ${n}: ${fmt(t.attention.ops / t.rnn.ops)}× the RNN's, ` +
      `${fmt(t.attention.ops / t.cnn.ops)}× the CNN's (orders, constants dropped).`;
    this._rnnNote.textContent = this._rnnSays(d);
  }

  // ---------------------------------------------------------------- the three graphs
  _drawGraphs(m, k, n) {
    const xs = (i) => 10 + (i + 0.5) * ((PW - 20) / m);
    const panel = (p, title, caption) => {
      const svg = this._graphs[p];
      svg.replaceChildren();
      svgEl("text", { x: 2, y: 14, class: "label" }, svg).textContent = title;
      svgEl("text", { x: 2, y: PH - 6, class: "muted caption" }, svg).textContent = caption;
      return svgEl("g", { class: "graph" }, svg);
    };
    const node = (g, x, y, on) => svgEl("circle", { class: on ? "node on" : "node", cx: x, cy: y, r: 4 }, g);
    const line = (g, cls, x1, y1, x2, y2) => svgEl("line", { class: cls, x1, y1, x2, y2 }, g);
    // CNN: causal convolutions stacked until the last token sees the first
    const layers = cnnLayers(m, k), cy = (l) => GBOT - (l * (GBOT - GTOP)) / layers;
    const c = panel(0, `CNN, k = ${k}`, `${layers} layer${layers > 1 ? "s" : ""}`);
    c.setAttribute("data-layers", layers);
    const onPath = new Set(); // (layer, position) on the longest path: up and right by k - 1
    for (let l = 0, p = 0; l <= layers; l++, p = Math.min(m - 1, p + k - 1)) onPath.add(`${l} ${l === layers ? m - 1 : p}`);
    for (let l = 1; l <= layers; l++) for (let j = 0; j < m; j++) for (let i = Math.max(0, j - k + 1); i <= j; i++) {
      line(c, onPath.has(`${l} ${j}`) && onPath.has(`${l - 1} ${i}`) ? "path" : "edge", xs(i), cy(l - 1), xs(j), cy(l));
    }
    for (let l = 0; l <= layers; l++) for (let j = 0; j < m; j++) node(c, xs(j), cy(l), onPath.has(`${l} ${j}`));
    // RNN: x_i -> h_i, h_i -> h_(i+1)
    const r = panel(1, "RNN", `${m} sequential steps`), hy = (GTOP + GBOT) / 2 - 20;
    for (let j = 0; j < m; j++) {
      line(r, j === 0 ? "path" : "edge", xs(j), GBOT, xs(j), hy);
      if (j + 1 < m) line(r, "path", xs(j), hy, xs(j + 1), hy);
    }
    for (let j = 0; j < m; j++) { node(r, xs(j), GBOT, j === 0); node(r, xs(j), hy, true); }
    // self-attention: every output sees every input
    const a = panel(2, "self-attention", "1 step, any pair");
    for (let j = 0; j < m; j++) for (let i = 0; i < m; i++) line(a, i === 0 && j === m - 1 ? "path" : "edge", xs(i), GBOT, xs(j), GTOP);
    for (let j = 0; j < m; j++) { node(a, xs(j), GBOT, j === 0); node(a, xs(j), GTOP, j === m - 1); }
    this._note.textContent = (n > m ? `Drawn for ${m} tokens (n = ${n} would not fit). ` : `n = ${n} tokens. `) +
      `The longest path, from the first token to the last, in the accent colour: ${layers} convolution layer${layers > 1 ? "s" : ""}, ${m} recurrent steps, 1 attention step.`;
  }

  // ---------------------------------------------------------------- operations against n
  _drawCurves(n, d, k) {
    const svg = this._curves, x = crossovers(d, k);
    svg.replaceChildren();
    const hiN = Math.min(2 ** 16, 2 ** Math.ceil(Math.log2(Math.max(4096, 2 * x.cnn, n))));
    const ops = (a, m) => costTable(m, d, k)[a].ops;
    const lo = Math.log10(Math.min(ops("rnn", 2), ops("attention", 2))), hi = Math.log10(Math.max(ops("cnn", hiN), ops("attention", hiN)));
    const sx = (m) => CL + ((Math.log2(m) - 1) / (Math.log2(hiN) - 1)) * (CW - CL - CR);
    const sy = (v) => CH - CB - ((Math.log10(v) - lo) / (hi - lo)) * (CH - CB - CT);
    for (let e = 1; 2 ** e <= hiN; e += e < 4 ? 3 : 2) {
      svgEl("line", { class: "axis", x1: sx(2 ** e), x2: sx(2 ** e), y1: CT, y2: CH - CB }, svg);
      svgEl("text", { x: sx(2 ** e), y: CH - CB + 14, "text-anchor": "middle", class: "muted" }, svg).textContent = String(2 ** e);
    }
    for (let e = Math.ceil(lo); e <= hi; e += Math.max(1, Math.round((hi - lo) / 5))) {
      svgEl("line", { class: "axis", x1: CL, x2: CW - CR, y1: sy(10 ** e), y2: sy(10 ** e) }, svg);
      svgEl("text", { x: CL - 4, y: sy(10 ** e) + 4, "text-anchor": "end", class: "muted" }, svg).textContent = `10^${e}`;
    }
    svgEl("text", { x: (CL + CW - CR) / 2, y: CH - 6, "text-anchor": "middle" }, svg).textContent = "sequence length n (log scale)";
    svgEl("text", { x: 4, y: CT - 2, class: "muted" }, svg).textContent = "operations per layer";
    for (const a of ["cnn", "rnn", "attention"]) {
      svgEl("path", { class: `curve l-${a}`, d: `M${sx(2).toFixed(1)} ${sy(ops(a, 2)).toFixed(1)} L${sx(hiN).toFixed(1)} ${sy(ops(a, hiN)).toFixed(1)}` }, svg);
    }
    svgEl("line", { class: "now", x1: sx(n), x2: sx(n), y1: CT, y2: CH - CB }, svg);
    for (const [a, m, label] of [["rnn", x.rnn, `n = d = ${x.rnn}`], ["cnn", x.cnn, `n = k d = ${x.cnn}`]]) {
      if (m > hiN) continue;
      const c = svgEl("circle", { class: `cross l-${a}`, cx: sx(m), cy: sy(ops(a, m)), r: 5, "data-n": m }, svg);
      svgEl("title", {}, c).textContent = `self-attention overtakes the ${NAMES[a]} at ${label}`;
      const left = sx(m) > CW / 2; // the label on the side with room
      svgEl("text", { x: sx(m) + (left ? -8 : 8), y: sy(ops(a, m)) + (a === "rnn" ? 18 : -9), "text-anchor": left ? "end" : "start", class: "cross-label" }, svg).textContent = label;
    }
  }

  // ---------------------------------------------------------------- the table
  _fillTable(t, n, d, k) {
    const tb = this._table;
    tb.replaceChildren();
    const head = htmlEl("tr", {}, htmlEl("thead", {}, tb));
    for (const h of ["layer", ...HEADS]) htmlEl("th", { text: h, scope: "col" }, head);
    const body = htmlEl("tbody", {}, tb);
    for (const a of ["cnn", "rnn", "attention"]) {
      const tr = htmlEl("tr", { "data-arch": a }, body);
      htmlEl("th", { text: NAMES[a], scope: "row" }, tr);
      ["ops", "sequential", "path"].forEach((key, c) => {
        const td = htmlEl("td", { class: "v", "data-key": key, "data-value": t[a][key], "data-label": HEADS[c] }, tr);
        htmlEl("code", { text: FORMULA[a][c] }, td);
        htmlEl("span", { class: "num", text: num(t[a][key]) }, td);
      });
    }
    htmlEl("caption", { text: `At n = ${n}, d = ${d}, k = ${k}: the orders of the notes' table, evaluated` }, tb);
  }

  // ---------------------------------------------------------------- measured in this browser
  /** Times the library's attention (and the recurrent layer, once its hook is set) at a few n
   *  around this.n, width this.d, in short tasks; resolves to what sx-costs-measure carries. */
  async measure() {
    if (this._measuring) return this._measuring;
    this._measuring = this._measure().finally(() => { this._measuring = null; this._btn.disabled = false; this._prog.hidden = true; });
    return this._measuring;
  }

  async _measure() {
    const d = this.d, sizes = ladder(this.n, d, { nMax: 4096, budget: BUDGET });
    const layers = [["attention", (m) => m * m * d, (m) => this._attentionRun(m, d), sizes]];
    // the recurrent layer at the sizes whose n d^2 stays within the budget too (one call, one task)
    const rnnSizes = sizes.filter((m) => m * d * d <= BUDGET);
    if (this._rnnTimed(d) && rnnSizes.length) layers.push(["recurrent", (m) => m * d * d, (m) => () => SxCosts.recurrentLayer(m, d), rnnSizes]);
    this._btn.disabled = true;
    this._prog.hidden = false;
    this._prog.max = layers.reduce((s, l) => s + l[3].length, 0);
    this._prog.value = 0;
    const out = { d, attention: null, recurrent: null };
    for (const [name, formula, setup, at] of layers) {
      const rows = [];
      for (const m of at) {
        this._status.textContent = `timing ${name} at n = ${m}, d = ${d}…`;
        rows.push({ n: m, ms: await this._time(setup(m)), formula: formula(m) });
        this._prog.value++;
        if (!this.isConnected) return out;
      }
      const c = fitScale(rows.map((r) => r.formula), rows.map((r) => r.ms));
      for (const r of rows) r.predicted = c * r.formula;
      out[name] = rows;
    }
    this._status.textContent = `measured at d = ${d}`;
    this._showResults(out);
    this.emit("measure", { d: out.d, attention: out.attention, recurrent: out.recurrent });
    return out;
  }

  // Whether the recurrent layer is timed at width d: a hook is set, and the built-in one takes d.
  _rnnTimed(d) {
    return !!SxCosts.recurrentLayer && (SxCosts.recurrentLayer !== BUILT_IN || d <= MAX_D);
  }

  _rnnSays(d) {
    if (!SxCosts.recurrentLayer) return "No recurrent layer is timed (SxCosts.recurrentLayer is null on this page).";
    if (!this._rnnTimed(d)) return `The recurrent layer (the RNN class's GRU) is timed for d up to ${MAX_D}: its model's memory grows with d².`;
    return SxCosts.recurrentLayer === BUILT_IN ? "The recurrent layer timed is the RNN class's GRU encoder (state d), over n steps (in chunks of 256)." : "";
  }

  // q, k, v of m tokens of width d (seeded), and a call of attention over them.
  _attentionRun(m, d) {
    const rnd = mulberry32(m * 7919 + d), fill = () => Float32Array.from({ length: m * d }, () => rnd() * 2 - 1);
    const q = fill(), k = fill(), v = fill(), out = new Float32Array(m * d);
    return () => attention(q, k, v, { tq: m, out });
  }

  // The median over 5 batches of one call's time, each batch one task of about 8 ms (calls
  // repeated until then: a call far below the clock's resolution is timed many times over).
  async _time(run) {
    const per = [];
    for (let b = -1; b < 5; b++) { // batch -1 warms up (the first calls allocate and compile)
      await nextTask();
      let calls = 0;
      const t0 = performance.now();
      let t = t0;
      do { run(); calls++; t = performance.now(); } while (t - t0 < 8);
      if (b >= 0) per.push((t - t0) / calls);
    }
    return per.sort((a, b) => a - b)[2];
  }

  _showResults(out) {
    const tb = this._results;
    tb.replaceChildren();
    tb.hidden = false;
    const head = htmlEl("tr", {}, htmlEl("thead", {}, tb));
    for (const h of MEASURED) htmlEl("th", { text: h, scope: "col" }, head);
    const body = htmlEl("tbody", {}, tb);
    for (const name of ["attention", "recurrent"]) for (const r of out[name] || []) {
      const tr = htmlEl("tr", { "data-layer": name, "data-n": r.n }, body);
      const cells = [name === "attention" ? "attention, n² d" : "recurrent, n d²", String(r.n), r.ms.toPrecision(3), r.predicted.toPrecision(3), fmt(r.ms / r.predicted)];
      cells.forEach((text, c) => htmlEl("td", { text, "data-label": MEASURED[c] }, tr));
    }
    htmlEl("caption", { text: `The library's attention() on the full core, one head, d = ${out.d}${out.recurrent ? ", and one recurrent layer" : ""}: the median of 5 batches per size; the formula's column is n² d (n d²) scaled by the least-squares constant over these sizes` }, tb);
  }
}

const BUILT_IN = SxCosts.recurrentLayer;

define("sx-costs", SxCosts);
