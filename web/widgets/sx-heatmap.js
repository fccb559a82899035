// <sx-heatmap>: a reader's own attention (issue 22). The weights or scores of a file, every head
// a heatmap (exact zeros marked, masked keys grey), from the author's `src` or a file the reader
// drops or chooses: NumPy .npy and .npz, safetensors, JSON (web/lib/arrays.js reads them; any
// shape from (keys) to (layers, heads, queries, keys)); token labels from `labels` (a JSON list or
// a text file, one a line), a dropped .txt, or the JSON's tokens. The reader can re-map the scores
// with any mapping of the library, post hoc (viz/remap.js: weights are taken back to scores by
// their log), sort the heads by entropy or sparsity, and export PNG / SVG. A file that cannot be
// read leaves a message naming it and what is wrong. Nothing is sent anywhere: the only request
// is the author's src (and labels).
//   <sx-heatmap src="attn.npy" labels="tokens.txt" values="weights" mapping="sparsemax" sort="entropy"></sx-heatmap>
// Events: sx-heatmap-load { name, key, dtype, shape, values } once a file is drawn;
// sx-heatmap-change { mapping, sort, layer, values } when the reader changes a control.
import { SxElement, MAPPINGS, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, fmt } from "./base.js";
// the file readers are fetched with the first file (a post that shows none stays within the
// mappings widgets' 50 KB budget: tests/browser/sizes.mjs)
let arrays = null;
const loadArrays = async () => (arrays ??= await import("../lib/arrays.js"));
import { remap } from "./viz/remap.js";
import { headOrder } from "./viz/head-order.js";
import { heatmapLayout } from "./viz/heatmap.js";
import { weightLevels, levelPaths, levelOpacity } from "./viz/heat-levels.js";

const MAPPING_NAMES = ["none", "softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"];
const LEVELS = 8, WIDTH = 704, MAX_CELLS = 400_000;
// Under NARROW_PX (a phone) the heatmaps are drawn as wide as the widget, a unit a pixel (their
// captions keep their size), with panels at least NARROW_PANEL wide (room for a caption).
const NARROW_PX = 560, NARROW_PANEL = 136;
const ACCEPT = ".npy,.npz,.safetensors,.json,.txt";

const CSS = sheet(`
.controls { display: flex; flex-wrap: wrap; gap: 6.4px 19.2px; align-items: center; margin-bottom: 6.4px; }
.controls label.pick { display: flex; gap: 8px; align-items: center; }
.controls label.slider { grid-template-columns: auto minmax(96px, 160px) 40px; }
.controls [hidden] { display: none !important; }
input[type="file"] { font: inherit; font-size: 12px; color: var(--_muted); max-width: 260px; }
select:focus-visible, input[type="file"]:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.file, .note, .readout { margin: 3.2px 0; font-size: 13px; }
.file { color: var(--_muted); }
.note { color: var(--_muted); max-width: 704px; }
.readout { font-variant-numeric: tabular-nums; min-height: 1.45em; }
:host(.over) { outline: 2px dashed var(--_accent); outline-offset: -4px; }
svg .frame { fill: var(--_panel); stroke: var(--_grid); stroke-width: 0.5; }
svg .cell { fill: var(--sx-heat, var(--_softmax)); stroke: none; }
svg .zero { fill: var(--_accent); stroke: none; }
svg .masked { fill: var(--_grid); stroke: none; }
.drop { display: flex; flex-direction: column; justify-content: center; min-height: 120px; margin: 0; padding: 12px;
  border: 1.5px dashed var(--_grid); border-radius: 8px; text-align: center; font-size: 12px; }
.drop p { margin: 2px 0; }
.drop .muted { color: var(--_muted); font-size: 11px; }
.drop[hidden], svg.picture.off { display: none; }
svg .small { font-size: 11px; }
`);

export class SxHeatmap extends SxElement {
  static spec = {
    values: { type: "enum", default: "weights", values: ["weights", "scores"] },
    mapping: { type: "enum", default: "none", values: MAPPING_NAMES },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    lambda: { type: "number", default: 0.1, min: 0, max: 2 },
    beta: { type: "number", default: 0.1, min: 0, max: 2 },
    temperature: { type: "number", default: 1, min: 0.01, max: 10 },
    sort: { type: "enum", default: "none", values: ["none", "entropy", "sparsity"] },
    layer: { type: "number", default: 0, min: 0, max: 4096, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static core = "mappings";
  static sheets = [CSS];
  // src, labels and key are free text, checked when used (parse-attr has no string type)
  static get observedAttributes() { return [...Object.keys(this.spec), "src", "labels", "key"]; }
  static authorOnly = ["src", "labels"]; // the URLs it fetches are the page's, never a link's (link.js)

  get src() { return this.getAttribute("src"); }
  set src(v) { this._setString("src", v); }
  get labels() { return this.getAttribute("labels"); }
  set labels(v) { this._setString("labels", v); }
  get key() { return this.getAttribute("key"); }
  set key(v) { this._setString("key", v); }
  _setString(name, v) { if (v === null || v === undefined) this.removeAttribute(name); else this.setAttribute(name, String(v)); }

  /** What is drawn: the file, its attention and the drawn weights, the heads in drawing order. */
  get result() { return this._result; }

  build(body) {
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const pick = (label, options, onChange) => {
      const lab = htmlEl("label", { class: "pick", part: `${label}-control` }, ctl);
      htmlEl("span", { text: label }, lab);
      const sel = htmlEl("select", {}, lab);
      for (const [v, t] of options) htmlEl("option", { value: v, text: t }, sel);
      sel.addEventListener("change", () => { this._changed = true; onChange(sel.value); });
      return sel;
    };
    this._fileEl = htmlEl("input", { type: "file", multiple: "", accept: ACCEPT, part: "file", "aria-label": "attention file (.npy, .npz, .safetensors, .json) and labels (.txt)" }, ctl);
    this._fileEl.addEventListener("change", () => this.loadFiles(this._fileEl.files));
    this._mapSel = pick("mapping", MAPPING_NAMES.map((m) => [m, m === "none" ? "as in the file" : MAPPINGS[m].label]), (v) => { this.mapping = v; });
    this._valSel = pick("values", [["weights", "weights"], ["scores", "scores"]], (v) => { this.values = v; });
    this._sortSel = pick("sort", [["none", "layer, head"], ["entropy", "entropy, lowest first"], ["sparsity", "zeros, most first"]], (v) => { this.sort = v; });
    this._layerSel = pick("layer", [["0", "all"]], (v) => { this.layer = Number(v); });
    this._sliders = {};
    for (const [name, label, min, max, step] of [["alpha", "α", 1, 4, 0.05], ["lambda", "λ", 0, 2, 0.01], ["beta", "β", 0, 2, 0.01], ["temperature", "T", 0.05, 5, 0.05]]) {
      const c = rangeControl(ctl, { label, min, max, step, value: SxHeatmap.spec[name].default, format: (v) => fmt(v), part: `${name}-control` });
      c.root.classList.add("slider");
      c.input.setAttribute("aria-label", name);
      c.input.addEventListener("input", () => { this._changed = true; this[name] = Number(c.input.value); });
      this._sliders[name] = c;
    }
    this._fileLine = htmlEl("p", { class: "file", part: "file-line" }, body);
    this._note = htmlEl("p", { class: "note", part: "note" }, body);
    // before a file is drawn: the drop zone, in HTML (its lines wrap on a phone), in place of the picture
    this._drop = htmlEl("div", { class: "drop", part: "drop", role: "note" }, body);
    this._svg = svgEl("svg", { class: "picture", role: "img", viewBox: `0 0 ${WIDTH} 120` }, body);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    this._svg.addEventListener("pointermove", (e) => this._hover(e));
    this.addEventListener("dragover", (e) => { e.preventDefault(); this.classList.add("over"); });
    this.addEventListener("dragleave", () => this.classList.remove("over"));
    this.addEventListener("drop", (e) => { e.preventDefault(); this.classList.remove("over"); this.loadFiles(e.dataTransfer?.files); });
    this._file = null;      // { name, arrays } the file drawn
    this._srcSeen = null;   // the src attribute last fetched
    this._labelsSeen = null;
    this._tokens = null;    // { name, list } labels from labels= or a dropped file
    this._errors = {};      // file, labels: the last failure of each, as a message
    this._loading = null;
  }

  // ------------------------------------------------------------------ files in
  /** Read files the reader chose or dropped (or a page hands over): attention files and labels (.txt, a JSON list). */
  async loadFiles(files) {
    for (const f of Array.from(files ?? [])) {
      let bytes;
      try { bytes = new Uint8Array(await f.arrayBuffer()); } catch (err) { this._errors.file = `${f.name}: could not be read (${err.message})`; continue; }
      if (isLabelFile(f.name, bytes)) await this._takeLabels(f.name, bytes);
      else await this._takeFile(f.name, bytes);
    }
    this.invalidate();
  }

  async _takeFile(name, bytes) {
    this._loading = name;
    this.invalidate();
    try {
      const { readArrays } = await loadArrays();
      this._file = { name, arrays: await readArrays(bytes, { name }) };
      this._errors.file = null;
    } catch (err) {
      this._file = null;
      this._errors.file = err.name === "ArrayFileError" ? err.message : `${name}: ${err.message}`;
    }
    this._att = null;
    this._loading = null;
    this.invalidate();
  }

  async _takeLabels(name, bytes) {
    try { this._tokens = { name, list: (await loadArrays()).parseLabels(bytes, { name }) }; this._errors.labels = null; } catch (err) { this._tokens = null; this._errors.labels = err.message; }
    this.invalidate();
  }

  async _fetch(attr, take) {
    const raw = this.getAttribute(attr);
    let url;
    try { url = new URL(raw, document.baseURI); } catch { this._errors[attr === "src" ? "file" : "labels"] = `${attr}="${raw.slice(0, 60)}" is not a URL`; return; }
    const name = decodeURIComponent(url.pathname.split("/").pop() || url.href);
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (this.getAttribute(attr) === raw) await take(name, bytes);
    } catch (err) {
      if (this.getAttribute(attr) === raw) this._errors[attr === "src" ? "file" : "labels"] = `${name}: could not be fetched from ${url.href} (${err.message})`;
      if (attr === "src") this._loading = null;
      this.invalidate();
    }
  }

  // src and labels: fetched when they change
  _syncSources() {
    const src = this.getAttribute("src"), labels = this.getAttribute("labels");
    if (src !== this._srcSeen) {
      this._srcSeen = src;
      if (src) { this._loading = src; this._fetch("src", (n, b) => this._takeFile(n, b)); }
    }
    if (labels !== this._labelsSeen) {
      this._labelsSeen = labels;
      if (labels) this._fetch("labels", (n, b) => this._takeLabels(n, b));
      else { this._tokens = null; this._errors.labels = null; }
    }
  }

  // ------------------------------------------------------------------ settings
  settings() {
    const r = super.settings();
    this._syncSources();
    for (const k of ["file", "labels"]) if (this._errors[k]) r.errors.push(this._errors[k]);
    this._prepare(r.s, r.errors);
    return r;
  }

  // The attention of the file under the current key and values (cached), and the layers shown.
  _prepare(s, errors) {
    const f = this._file, key = this.getAttribute("key") || undefined;
    s.att = null;
    if (!f) return;
    const id = `${key}\u0000${s.values}`;
    if (!this._att || this._att.file !== f || this._att.id !== id) {
      try { this._att = { file: f, id, att: arrays.toAttention(f.arrays, { name: f.name, key, values: s.values }), error: null, loaded: false }; } catch (err) {
        this._att = { file: f, id, att: null, error: err.message };
      }
    }
    if (this._att.error) { errors.push(this._att.error); return; }
    s.att = this._att.att;
    const [L, H, Q, K] = s.att.shape;
    if (s.layer > L) { errors.push(`layer="${s.layer}": ${f.name} has ${L} layer${L > 1 ? "s" : ""}; showing all`); s.layer = 0; }
    s.layers = s.layer ? [s.layer - 1] : null;
    if (!s.layer && L * H * Q * K > MAX_CELLS && L > 1) { s.layers = [0]; s.tooBig = true; }
    s.tokens = this._tokens?.list ?? s.att.tokens ?? null;
    if (s.tokens && s.tokens.length !== K) {
      errors.push(`${this._tokens?.name ?? f.name}: ${s.tokens.length} labels, but the keys are ${K}: labels not shown`);
      s.tokens = null;
    }
  }

  // ------------------------------------------------------------------ render
  render(s) {
    this._syncControls(s);
    if (!s.att) {
      this._result = undefined;
      this._fileLine.textContent = "";
      this._note.textContent = "";
      this._readout.textContent = "";
      return this._drawEmpty();
    }
    const weights = this._weights(s);
    const order = headOrder(weights, s.att.shape, { sort: s.sort, layers: s.layers });
    this._describe(s);
    this._draw(s, weights, order);
    this._result = { name: this._file.name, key: s.att.key, dtype: s.att.dtype, shape: s.att.shape, values: s.values, mapping: s.mapping, weights, order };
    if (!this._att.loaded) {
      this._att.loaded = true;
      this.emit("load", { name: this._file.name, key: s.att.key, dtype: s.att.dtype, shape: s.att.shape, values: s.values });
    }
    if (this._changed) {
      this._changed = false;
      this.emit("change", { mapping: s.mapping, sort: s.sort, layer: s.layer, values: s.values });
    }
  }

  // The weights drawn: the file's (mapping "none" on weights), else the mapping of its scores (cached).
  _weights(s) {
    const mapping = s.mapping === "none" && s.values === "scores" ? "softmax" : s.mapping;
    if (mapping === "none") return s.att.data;
    const id = [mapping, s.alpha, s.lambda, s.beta, s.temperature].join(" ");
    if (this._mapped?.att !== s.att || this._mapped.id !== id) {
      const run = MAPPINGS[mapping].run;
      this._mapped = { att: s.att, id, w: remap(s.att, run, { temperature: s.temperature, alpha: s.alpha, lambda: s.lambda, beta: s.beta }) };
    }
    return this._mapped.w;
  }

  _syncControls(s) {
    this._mapSel.value = s.mapping;
    this._valSel.value = s.values;
    this._sortSel.value = s.sort;
    const L = s.att ? s.att.shape[0] : 1;
    if (this._layerSel.options.length !== L + 1) {
      this._layerSel.replaceChildren();
      htmlEl("option", { value: "0", text: "all" }, this._layerSel);
      for (let l = 1; l <= L; l++) htmlEl("option", { value: String(l), text: String(l) }, this._layerSel);
    }
    this._layerSel.value = String(s.layers?.length === 1 && !s.tooBig ? s.layers[0] + 1 : 0);
    this._layerSel.parentElement.hidden = L === 1;
    const mapped = s.mapping !== "none" || s.values === "scores";
    const show = { alpha: s.mapping === "entmax", lambda: s.mapping === "fusedmax", beta: s.mapping === "oscarmax", temperature: mapped };
    for (const [name, c] of Object.entries(this._sliders)) {
      c.root.hidden = !show[name];
      c.set(s[name]);
    }
  }

  _describe(s) {
    const [L, H, Q, K] = s.att.shape, f = this._file;
    this._fileLine.textContent = `${f.name}${s.att.key !== "array" ? ` (${s.att.key})` : ""}: ${s.att.dtype} ${s.values}, ` +
      `${L} layer${L > 1 ? "s" : ""} × ${H} head${H > 1 ? "s" : ""} × ${Q} quer${Q > 1 ? "ies" : "y"} × ${K} key${K > 1 ? "s" : ""}` +
      (s.tooBig ? `; layer 1 shown (all ${L} layers are ${L * H * Q * K} cells: choose a layer)` : "");
    this._note.textContent = noteFor(s);
  }

  _drawEmpty() {
    this._svg.replaceChildren();
    this._svg.classList.add("off"); // a class, not an inline style: a strict CSP blocks cloned style attributes
    this._svg.setAttribute("aria-label", "no attention file yet");
    const drop = this._drop;
    drop.hidden = false;
    drop.replaceChildren();
    const line = (text, cls = "") => htmlEl("p", { text, ...(cls ? { class: cls } : {}) }, drop);
    if (this._loading) return line(`loading ${this._loading}…`);
    line("Drop a file of attention here, or choose one above:");
    line(".npy, .npz, .safetensors or .json, shaped (keys) ... (layers, heads, queries, keys); labels as .txt", "muted");
    line("Read in this browser: nothing is uploaded.", "muted");
  }

  // Every head in `order` a panel: the frame (the colour of an exact zero), the weights as LEVELS
  // paths (viz/heat-levels.js, on the absolute scale 0..1), exact zeros dotted, masked keys grey.
  _draw(s, weights, order) {
    const [, H, Q, K] = s.att.shape, svg = this._svg;
    const W = this._W = this._width(), minPanel = W < WIDTH ? NARROW_PANEL : 96;
    this._watchWidth();
    const maxCols = Math.max(1, Math.floor((W + 14) / (W < WIDTH ? Math.max(2 * K, minPanel) + 14 : 2 * K + 18)));
    const cols = Math.min(s.sort === "none" ? H : Math.max(H, 4), maxCols, order.length), rows = Math.ceil(order.length / cols);
    let lay = heatmapLayout({ nq: Q, nk: K, rows, cols, width: W, labelW: 4, labelH: 4, captionH: 32, minCell: 1, maxCell: 24, minPanel });
    const labelled = s.tokens && lay.cell >= 9;
    if (labelled) lay = heatmapLayout({ nq: Q, nk: K, rows, cols, width: W, labelW: 52, labelH: 52, captionH: 32, minCell: 1, maxCell: 24, minPanel });
    lay.capX = W < WIDTH && labelled ? 50 : 0; // a narrow panel's captions start under its query labels
    this._drop.hidden = true;
    svg.classList.remove("off");
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${lay.width} ${lay.height}`);
    svg.setAttribute("aria-label", `${order.length} attention heatmap${order.length > 1 ? "s" : ""}, ${Q} queries by ${K} keys`);
    const masked = s.values === "scores" ? s.att.data : null;
    order.forEach((o, n) => this._panel(svg, lay, Math.floor(n / cols), n % cols, o, weights, masked, s, labelled));
    this._layout = { lay, cols, order, weights, s };
  }

  // The pictures' width in units: WIDTH, or on a narrow widget its width in px (a unit a pixel).
  _width() {
    const px = this._body.clientWidth;
    return px > 0 && px < NARROW_PX ? Math.max(200, Math.floor(px)) : WIDTH;
  }

  // A drawn file is drawn again when the width it was drawn at changes (a phone turned, a column resized).
  _watchWidth() {
    if (this._resize || typeof ResizeObserver != "function") return;
    this._resize = new ResizeObserver(() => { if (this._layout && this._width() !== this._W) this.invalidate(); });
    this._resize.observe(this._body);
  }

  _panel(svg, lay, r, c, o, weights, masked, s, labelled) {
    const [, H, Q, K] = s.att.shape, cell = lay.cell, [x0, y0] = lay.origin(r, c);
    const base = (o.layer * H + o.head) * Q * K, w = weights.subarray(base, base + Q * K);
    const g = svgEl("g", { class: "panel", "data-layer": o.layer, "data-head": o.head, "data-x0": x0, "data-y0": y0, "data-cell": cell }, svg);
    svgEl("rect", { class: "frame", x: x0, y: y0, width: K * cell, height: Q * cell }, g);
    const { level } = weightLevels(w, { levels: LEVELS, max: 1 });
    levelPaths(level, Q, K, { x0, y0, cw: cell, ch: cell, levels: LEVELS }).forEach((d, k) => {
      if (d) svgEl("path", { class: "cell", "data-level": k + 1, d, "fill-opacity": levelOpacity(k + 1, LEVELS).toFixed(3) }, g);
    });
    let zeros = "", hidden = "";
    const dot = Math.max(0.5, cell / 3), off = (cell - dot) / 2, f = (v) => Number(v.toFixed(2));
    for (let i = 0; i < Q; i++) for (let j = 0; j < K; j++) {
      if (masked && masked[base + i * K + j] === -Infinity) hidden += `M${f(x0 + j * cell)} ${f(y0 + i * cell)}h${f(cell)}v${f(cell)}h${f(-cell)}z`;
      else if (w[i * K + j] === 0) zeros += `M${f(x0 + j * cell + off)} ${f(y0 + i * cell + off)}h${f(dot)}v${f(dot)}h${f(-dot)}z`;
    }
    if (hidden) svgEl("path", { class: "masked", d: hidden }, g);
    if (zeros) svgEl("path", { class: "zero", d: zeros }, g);
    if (labelled) this._labels(g, x0, y0, cell, Q, K, s.tokens);
    const cap = (dy, text, cls) => { svgEl("text", { x: x0 - lay.capX, y: y0 + Q * cell + dy, class: cls }, g).textContent = text; };
    cap(13, `layer ${o.layer + 1} · head ${o.head + 1}`, "small");
    cap(26, `H ${fmt(o.entropy)} nats · ${fmt(100 * o.zeros, 0)}% zeros`, "muted small");
  }

  _labels(g, x0, y0, cell, Q, K, tokens) {
    const size = Math.min(11, cell);
    for (let j = 0; j < K; j++) {
      const x = x0 + (j + 0.5) * cell, y = y0 - 3;
      svgEl("text", { x, y, transform: `rotate(-60 ${x} ${y})`, class: "muted", "font-size": size }, g).textContent = clip(tokens[j]);
    }
    if (Q !== K) return; // query labels only for self-attention
    for (let i = 0; i < Q; i++) {
      svgEl("text", { x: x0 - 3, y: y0 + (i + 0.5) * cell + size / 3, "text-anchor": "end", class: "muted", "font-size": size }, g).textContent = clip(tokens[i]);
    }
  }

  _hover(e) {
    const L = this._layout;
    if (!L) return;
    const [x, y] = svgPoint(this._svg, e), hit = L.lay.hit(x, y);
    const o = hit && L.order[hit.r * L.cols + hit.c];
    if (!o) return;
    const { s, weights } = L, [, H, Q, K] = s.att.shape, idx = ((o.layer * H + o.head) * Q + hit.i) * K + hit.j;
    const tok = (k) => (s.tokens ? ` "${s.tokens[k]}"` : "");
    const given = weights === s.att.data ? "" : ` (file: ${s.att.data[idx] === -Infinity ? "masked" : fmt(s.att.data[idx], 4)})`;
    this._readout.textContent = `layer ${o.layer + 1}, head ${o.head + 1}: query ${hit.i + 1}${Q === K ? tok(hit.i) : ""} → key ${hit.j + 1}${tok(hit.j)}: ${weights[idx] === 0 ? "exactly 0" : fmt(weights[idx], 4)}${given}`;
  }
}

const clip = (t) => (t.length > 8 ? `${t.slice(0, 7)}…` : t);

function isLabelFile(name, bytes) {
  if (/\.txt$/i.test(name)) return true;
  if (!/\.json$/i.test(name)) return false;
  try { const v = JSON.parse(new TextDecoder().decode(bytes)); return Array.isArray(v) && typeof v[0] === "string"; } catch { return false; }
}

// What a post hoc re-mapping does and does not say.
function noteFor(s) {
  const mapping = s.mapping === "none" && s.values === "scores" ? "softmax" : s.mapping;
  if (mapping === "none") return "The file's weights, as the model computed them. Exact zeros are marked with a dot.";
  const from = s.values === "weights"
    ? "the file's weights taken back to scores (log p: a softmax row's scores up to a constant, which no mapping here sees; this assumes the weights came from softmax, and their zeros stay masked)"
    : "the file's scores (-Infinity: a masked key)";
  return `Post hoc: ${MAPPINGS[mapping].label} applied to ${from}. This shows what ${MAPPINGS[mapping].label} makes of the scores this model computed; ` +
    "the model was not trained with it, so it is not what a model trained with it would attend to, nor what its outputs would be.";
}

define("sx-heatmap", SxHeatmap);
