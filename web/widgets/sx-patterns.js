// <sx-patterns>: structured sparsity against learned sparsity (issue 13). On seeded random queries
// and keys of a length the reader sets, the connectivity matrix of one pattern (local window,
// Sparse Transformer's strided and fixed, Reformer's LSH; downsampled for large n: a cell's
// shade is the fraction of its pairs computed) beside the support of entmax and sparsemax
// attention computed densely by the library on the same q, k; a table with, for every pattern,
// the fraction of pairs computed and the fraction of each dense attention's mass it keeps. For
// LSH its steps: each position's bucket, the order sorted by bucket, the chunks.
// Above n = 362 the dense attentions and the patterns' pairs are computed in slices between
// tasks (the pictures marked aria-busy meanwhile), so the page takes input while n = 2048 computes.
//   <sx-patterns n="256" pattern="local" width="8" stride="16" block="16" summary="2" buckets="8" rounds="1" seed="1"></sx-patterns>
// Event: sx-patterns-change { n, pattern, pairs, fraction }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt } from "./base.js";
import { attention, attentionPattern } from "../lib/simplexity.js";
import { mulberry32 } from "./viz/mulberry32.js";

const KINDS = ["local", "strided", "fixed", "lsh"];
const LABELS = { local: "local window", strided: "strided", fixed: "fixed", lsh: "LSH" };
const DENSE = [["softmax", "softmax"], ["entmax15", "1.5-entmax"], ["sparsemax", "sparsemax"]];
const DH = 16, SIDE = 170, MAX_CELLS = 96;
// up to SYNC_PAIRS (n = 362) the numbers are computed in the render; above, SLICE_PAIRS at a time
const SYNC_PAIRS = 362 * 362, SLICE_PAIRS = 1 << 16;
const BUCKET_COLORS = ["#3b6fb6", "#c0392b", "#237a4a", "#8e44ad", "#d68910", "#16878a", "#7f8c8d", "#b4432f"];
// a partly present cell's opacity: its fraction v binned into 8 levels of sqrt(v) (a block with one
// pair in a hundred shows faintly; a full block is opaque)
const LEVELS = Array.from({ length: 8 }, (_, b) => Number(((b + 0.5) / 8).toFixed(4)));

const CSS = sheet(`
:host { container-type: inline-size; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(168px, 1fr)); gap: 8px 16px; max-width: 704px; }
.panels svg.picture { min-width: 0; max-width: 240px; width: 100%; justify-self: center; }
/* touch targets of 24 px at least (issue 27 item 2) */
select, input[type="range"] { min-height: 24px; }
.panels.busy { opacity: 0.45; }
svg.lsh { max-width: 704px; margin-top: 6.4px; }
.cell { fill: var(--_accent); stroke: none; }
.m-entmax15 .cell { fill: var(--_entmax15); }
.m-sparsemax .cell { fill: var(--_sparsemax); }
.frame { fill: var(--_panel); stroke: var(--_grid); }
.small { font-size: 11px; }
.label { font-weight: 600; }
.chunk { stroke: var(--_fg); stroke-width: 1; }
.controls { display: flex; flex-wrap: wrap; gap: 6.4px 19.2px; align-items: center; max-width: 704px; margin-bottom: 8px; }
.controls label.pick { display: flex; gap: 8px; align-items: center; }
.controls label.n { grid-template-columns: auto minmax(128px, 224px) 48px; }
select:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.axes { color: var(--_muted); font-size: 12px; margin: 3.2px 0 0; }
.scroll { overflow-x: auto; max-width: 100%; }
table { margin-top: 6.4px; }
tr.current td:first-child { font-weight: 600; }
@container (max-width: 480px) { th, td { padding: 2.4px 4.8px; } table { font-size: 12px; } }
.readout { font-variant-numeric: tabular-nums; margin: 6.4px 0 0; }
`);

export class SxPatterns extends SxElement {
  static spec = {
    n: { type: "number", default: 256, min: 8, max: 2048 },
    pattern: { type: "enum", default: "local", values: KINDS },
    width: { type: "number", default: 8, min: 0, max: 2048 },
    stride: { type: "number", default: 16, min: 1, max: 2048 },
    block: { type: "number", default: 16, min: 1, max: 2048 },
    summary: { type: "number", default: 2, min: 1, max: 2048 },
    buckets: { type: "number", default: 8, min: 2, max: 64 },
    rounds: { type: "number", default: 1, min: 1, max: 8 },
    seed: { type: "number", default: 1, min: 0, max: 4294967295 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  build(body) {
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const lab = htmlEl("label", { class: "pick", part: "pattern-control" }, ctl);
    htmlEl("span", { text: "pattern" }, lab);
    this._select = htmlEl("select", {}, lab);
    for (const k of KINDS) htmlEl("option", { value: k, text: LABELS[k] }, this._select);
    this._select.addEventListener("change", () => { this._changed = true; this.pattern = this._select.value; });
    // n on a log2 scale, in half steps: 8, 11, 16, 23, 32, ... 2048
    this._nCtl = rangeControl(ctl, { label: "<i>n</i>", min: 3, max: 11, step: 0.5, value: 8, format: (v) => String(Math.round(2 ** v)), part: "n-control" });
    this._nCtl.root.classList.add("n");
    this._nCtl.input.setAttribute("aria-label", "n, queries and keys");
    this._nCtl.input.addEventListener("input", () => { this._changed = true; this.n = Math.round(2 ** Number(this._nCtl.input.value)); });
    const panels = this._panelBox = htmlEl("div", { class: "panels", part: "panels" }, body);
    this._panels = ["pattern", "entmax15", "sparsemax"].map((name) => svgEl("svg", {
      class: "picture", viewBox: `0 0 ${SIDE + 2} ${SIDE + 34}`, role: "img", "data-panel": name }, panels));
    this._axes = htmlEl("p", { class: "axes" }, body);
    this._lsh = svgEl("svg", { class: "picture lsh", viewBox: "0 0 560 90", role: "img", "aria-label": "LSH steps: each position's bucket, the positions sorted by bucket, the chunks" }, body);
    const scroll = htmlEl("div", { class: "scroll" }, body);
    this._table = htmlEl("table", { part: "table" }, scroll);
    htmlEl("caption", { class: "axes", text: "Pairs each pattern computes, and the share of each dense attention's mass on those pairs" }, this._table).style.textAlign = "left";
    const head = htmlEl("thead", {}, this._table);
    const r1 = htmlEl("tr", {}, head), r2 = htmlEl("tr", {}, head);
    htmlEl("th", { text: "pattern", rowspan: 2, scope: "col" }, r1);
    htmlEl("th", { text: "pairs", rowspan: 2, scope: "col" }, r1);
    htmlEl("th", { text: "dense mass kept", colspan: DENSE.length, scope: "colgroup" }, r1).style.textAlign = "center";
    // a soft hyphen before "max": a phone's table breaks these headers rather than overflow
    for (const [, l] of DENSE) htmlEl("th", { text: l.replace(/max$/, "\u00admax"), scope: "col" }, r2);
    this._tbody = htmlEl("tbody", {}, this._table);
    this._readout = htmlEl("p", { class: "readout", part: "readout", role: "status" }, body);
  }

  pictures() { return super.pictures().filter((svg) => svg.style.display !== "none"); }

  _patternOf(kind, s, n) {
    const int = (v) => Math.max(0, Math.round(v));
    if (kind === "local") return { kind, width: int(s.width) };
    if (kind === "strided") return { kind, stride: Math.max(1, int(s.stride)) };
    if (kind === "fixed") { const block = Math.max(1, int(s.block)); return { kind, block, summary: Math.min(block, Math.max(1, int(s.summary))) }; }
    const buckets = 2 * Math.max(1, Math.round(s.buckets / 2));
    return { kind, buckets, rounds: int(s.rounds) || 1, seed: int(s.seed) >>> 0, chunk: Math.max(1, Math.ceil(n / buckets)) };
  }

  render(s) {
    const n = Math.round(s.n), seed = Math.round(s.seed);
    this._select.value = s.pattern;
    this._nCtl.set(Math.log2(n));
    // the slider sits on the nearest half step; say the n drawn
    this._nCtl.output.textContent = String(n);
    this._nCtl.input.setAttribute("aria-valuetext", String(n));
    const patterns = KINDS.map((kind) => this._patternOf(kind, s, n));
    if (!this._computed(n, seed, patterns)) return;
    const rows = patterns.map((pattern) => this._patternCache.get(JSON.stringify(pattern)));
    const cur = rows.find((x) => x.kind === s.pattern);
    this._drawMaps(n, cur);
    this._drawLsh(n, cur);
    this._tbody.replaceChildren();
    for (const row of rows) {
      const tr = htmlEl("tr", { class: row.kind === s.pattern ? "current" : "", "data-kind": row.kind }, this._tbody);
      htmlEl("td", { text: describe(row.pattern) }, tr);
      htmlEl("td", { text: `${fmt(100 * row.r.fraction, 1)}%` }, tr);
      for (const k of row.kept) htmlEl("td", { text: `${fmt(100 * k, 1)}%` }, tr);
    }
    const support = DENSE.slice(1).map(([, l], m) => `${l} ${fmt(100 * this._nonzero[m + 1], 1)}%`);
    this._readout.textContent = `n = ${n}, ${DH} dimensions per query and key: ${describe(cur.pattern)} computes ${cur.r.pairs} of ${n * n} pairs (${fmt(100 * cur.r.fraction, 1)}%); ` +
      `the pairs learned sparsity keeps, computed densely: ${support.join(", ")}.`;
    this.result = { n, pattern: cur.pattern, pairs: cur.r.pairs, fraction: cur.r.fraction, mask: cur.r.mask, cells: this._cells, kept: Object.fromEntries(rows.map((x) => [x.kind, x.kept])) };
    if (this._changed) {
      this._changed = false;
      this.emit("change", { n, pattern: s.pattern, pairs: cur.r.pairs, fraction: cur.r.fraction });
    }
  }

  // ------------------------------------------------------------------ the numbers, in slices
  // True once the dense attentions for (n, seed) and the rows of these patterns are computed.
  // Up to SYNC_PAIRS pairs that happens here; above, in slices of SLICE_PAIRS pairs run between
  // tasks (a 2048 x 2048 map took half a second in one task): the pictures are marked busy
  // meanwhile, and the render that follows the last slice draws them.
  _computed(n, seed, patterns) {
    const key = `${n}|${seed}|${patterns.map((p) => JSON.stringify(p)).join()}`;
    if (key !== this._jobKey) { this._jobKey = key; this._job = this._compute(n, seed, patterns); }
    if (this._job && n * n <= SYNC_PAIRS) while (!this._job.next().done);
    if (this._job?.next().done === false) { this._busy(n); this._slices(); return false; }
    this._job = null;
    this._busy(0);
    return true;
  }

  // Runs the job's slices for about 8 ms per task, a message apart (input goes first); renders
  // when it is done. `slices` counts them (tests read it).
  _slices() {
    if (this._queued) return;
    this._queued = true;
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      this._queued = false;
      ch.port1.close();
      const job = this._job, t0 = performance.now();
      if (!job || !this.isConnected) return; // (a render once back in the page goes on with it)
      this.slices = (this.slices || 0) + 1;
      while (performance.now() - t0 < 8) if (job.next().done) { this._job = null; this.invalidate(); return; }
      this._slices();
    };
    ch.port2.postMessage(0);
  }

  _busy(n) {
    if (n) this._panelBox.setAttribute("aria-busy", "true");
    else this._panelBox.removeAttribute("aria-busy");
    this._panelBox.classList.toggle("busy", n > 0);
    if (n) this._readout.textContent = `n = ${n}: computing the dense attentions and the patterns' pairs…`;
  }

  // The job: a generator yielding after each slice. The dense weights for (n, seed), their
  // nonzero fractions and block grids, then each pattern's mask, kept mass and grid; every result
  // lands on the element only once whole (a job given up halfway leaves nothing behind).
  *_compute(n, seed, patterns) {
    const c = Math.min(n, MAX_CELLS), bin = new Int32Array(n), per = new Float32Array(c);
    for (let i = 0; i < n; i++) { bin[i] = Math.floor((i * c) / n); per[bin[i]]++; }
    const block = n * n <= SYNC_PAIRS ? n : Math.max(1, Math.floor(SLICE_PAIRS / n));
    const geo = { n, c, bin, per, block };
    if (`${n}|${seed}` !== this._dataKey) {
      const r = mulberry32(seed + 1);
      const g = () => (r() + r() + r() - 1.5) * 2; // roughly N(0, 1)
      const q = Float32Array.from({ length: n * DH }, g);
      // keys: a shared-QK flavour (Reformer), each key near its query, so LSH has structure to find
      const k = Float32Array.from(q, (x) => x + 0.5 * g());
      const dense = DENSE.map(() => new Float32Array(n * n)), grids = [0, 0].map(() => new Float32Array(c * c));
      const nonzero = [0, 0, 0];
      for (let r0 = 0; r0 < n; r0 += block) {
        const r1 = Math.min(n, r0 + block);
        DENSE.forEach(([m], j) => {
          attention(q.subarray(r0 * DH, r1 * DH), k, k, { tq: r1 - r0, mapping: m, weights: dense[j].subarray(r0 * n, r1 * n) });
          nonzero[j] += j ? countRows(grids[j - 1], dense[j], geo, r0, r1) : countRows(null, dense[j], geo, r0, r1);
        });
        yield;
      }
      grids.forEach((grid) => normalise(grid, geo));
      Object.assign(this, { _dataKey: `${n}|${seed}`, _q: q, _k: k, _dense: dense, _denseGrids: grids,
        _nonzero: nonzero.map((z) => z / (n * n)), _patternCache: new Map() });
    }
    for (const pattern of patterns) {
      const pkey = JSON.stringify(pattern);
      if (this._patternCache.has(pkey)) continue;
      const r = attentionPattern(n, pattern, { k: this._k });
      yield;
      // the dense weights on the pattern's pairs, per mapping, averaged over the queries
      const kept = this._dense.map(() => 0), mask = r.mask, grid = new Float32Array(c * c);
      for (let r0 = 0; r0 < n; r0 += block) {
        const r1 = Math.min(n, r0 + block);
        for (let e = r0 * n; e < r1 * n; e++) if (mask[e]) for (let m = 0; m < kept.length; m++) kept[m] += this._dense[m][e];
        countRows(grid, mask, geo, r0, r1);
        yield;
      }
      normalise(grid, geo);
      this._patternCache.set(pkey, { kind: pattern.kind, pattern, r, kept: kept.map((v) => v / n), grid });
    }
  }

  // One matrix per panel, downsampled to at most MAX_CELLS cells a side: a cell's opacity grows
  // with the fraction of its pairs that are computed (pattern) or nonzero (entmax, sparsemax).
  // Each panel's <g class="cells"> carries its geometry (data-x0, data-y0, data-cell, data-cells).
  _drawMaps(n, cur) {
    const c = Math.min(n, MAX_CELLS);
    const panels = [
      [describe(cur.pattern), `${fmt(100 * cur.r.fraction, 1)}% of pairs computed`, "", cur.grid],
      ["1.5-entmax, dense", `${fmt(100 * this._nonzero[1], 1)}% nonzero weights`, "m-entmax15", this._denseGrids[0]],
      ["sparsemax, dense", `${fmt(100 * this._nonzero[2], 1)}% nonzero weights`, "m-sparsemax", this._denseGrids[1]],
    ];
    this._cells = panels[0][3];
    const cw = SIDE / c, x0 = 1, y0 = 33;
    panels.forEach(([title, sub, cls, g], p) => {
      const svg = this._panels[p];
      svg.replaceChildren();
      svg.setAttribute("aria-label", `${title}: ${sub}`);
      svgEl("text", { x: x0, y: 12, class: "label small" }, svg).textContent = title;
      svgEl("text", { x: x0, y: 26, class: "muted small" }, svg).textContent = sub;
      svgEl("rect", { class: "frame", x: x0, y: y0, width: SIDE, height: SIDE }, svg);
      const group = svgEl("g", { class: `cells ${cls}`, "data-x0": x0, "data-y0": y0, "data-cell": cw, "data-cells": c }, svg);
      let d = "";
      const partial = LEVELS.map(() => "");
      for (let i = 0; i < c; i++) for (let j = 0; j < c; j++) {
        const v = g[i * c + j];
        if (v === 0) continue;
        const cell = `M${(x0 + j * cw).toFixed(3)},${(y0 + i * cw).toFixed(3)}h${cw.toFixed(3)}v${cw.toFixed(3)}h${(-cw).toFixed(3)}z`;
        if (v >= 1) d += cell;
        else partial[Math.min(LEVELS.length - 1, Math.floor(Math.sqrt(v) * LEVELS.length))] += cell;
      }
      if (d) svgEl("path", { class: "cell full", d }, group);
      partial.forEach((pd, b) => { if (pd) svgEl("path", { class: "cell", d: pd, "fill-opacity": LEVELS[b] }, group); });
    });
    const step = n / c;
    this._axes.textContent = c < n
      ? `Queries down, keys across; each cell is a block of about ${fmt(step, step % 1 ? 1 : 0)} × ${fmt(step, step % 1 ? 1 : 0)} pairs, darker the more of them are present.`
      : "Queries down, keys across; one cell per pair.";
  }

  // LSH's steps for round 0: each position's bucket, the positions sorted by (bucket, position),
  // and the chunks of that order (a query sees its chunk and the one before). Strips of at most
  // 256 stripes (position floor(x n / stripes) each), every <rect> with its data-bucket.
  _drawLsh(n, cur) {
    const svg = this._lsh;
    svg.replaceChildren();
    svg.style.display = cur.kind === "lsh" ? "" : "none";
    if (cur.kind !== "lsh") return;
    // as wide as the element (at most 560): drawn at scale 1 on a phone, so its text stays 11 px
    // (its narrow labels fit 240)
    const W = Math.max(240, Math.min(560, this._body.clientWidth || 560)), narrow = W < 480;
    svg.setAttribute("viewBox", `0 0 ${W} 90`);
    const { buckets, order, chunk } = cur.r, c = Math.min(n, 256), w = (W - 20) / c;
    const color = (b) => BUCKET_COLORS[b % BUCKET_COLORS.length];
    const strip = (y, label, name, bucketAt) => {
      svgEl("text", { x: 10, y: y - 3, class: "muted small" }, svg).textContent = label;
      const g = svgEl("g", { class: `strip ${name}`, "data-stripes": c }, svg);
      for (let x = 0; x < c; x++) {
        const b = bucketAt(Math.floor((x * n) / c));
        svgEl("rect", { x: 10 + x * w, y, width: w + 0.2, height: 12, fill: color(b), "data-bucket": b }, g);
      }
    };
    strip(14, narrow ? "1. each position's bucket (round 1)" : "1. the bucket of each position (round 1), in position order", "by-position", (t) => buckets[t]);
    strip(46, `2. sorted by bucket, 3. ${narrow ? "" : "cut into "}chunks of ${chunk}`, "sorted", (s) => buckets[order[s]]);
    for (let s = chunk; s < n; s += chunk) {
      const x = 10 + (s / n) * (W - 20);
      svgEl("line", { class: "chunk", x1: x, x2: x, y1: 42, y2: 62, "data-at": s }, svg);
    }
    svgEl("text", { x: 10, y: 80, class: "muted small" }, svg).textContent = narrow ? "a query sees its chunk and the one before"
      : "each query attends to its chunk and the chunk before, in any round";
  }
}

// Adds the nonzero entries of rows r0 .. r1 - 1 of the n x n `values` into `grid`'s blocks
// (c x c, position i in block bin[i]; grid may be null) and returns their count.
function countRows(grid, values, { n, c, bin }, r0, r1) {
  let z = 0;
  for (let i = r0; i < r1; i++) {
    const row = bin[i] * c, base = i * n;
    for (let j = 0; j < n; j++) {
      if (values[base + j] !== 0) { z++; if (grid) grid[row + bin[j]] += 1; }
    }
  }
  return z;
}

// Counts to fractions: each block's count over its pairs.
function normalise(grid, { c, per }) {
  for (let a = 0; a < c; a++) for (let b = 0; b < c; b++) grid[a * c + b] /= per[a] * per[b];
}

function describe(p) {
  switch (p.kind) {
    case "local": return `local window ±${p.width}`;
    case "strided": return `strided, stride ${p.stride}`;
    case "fixed": return `fixed, block ${p.block}, ${p.summary} summary`;
    default: return `LSH, ${p.buckets} buckets × ${p.rounds} round${p.rounds > 1 ? "s" : ""}`;
  }
}

define("sx-patterns", SxPatterns);
