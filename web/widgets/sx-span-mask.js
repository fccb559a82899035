// <sx-span-mask>: the adaptive attention span (Sukhbaatar et al. 2019). The soft mask
// m(x) = clamp((R + z - x) / R, 0, 1) over the distance x from a query back to its keys, with
// the span z and the ramp R as sliders (and as handles on the curve), applied to one row of
// attention: the row before, and after masking and renormalisation, as the model computes it
// (keys with m = 0 are never scored; the rest is mapped, multiplied by m and renormalised).
// With model="reverse" (or sort, after_marker, date) it also shows the spans each head of the
// shipped adaptive-span model learned (models/<task>-alpha-span.sxm, fetched relative to the
// library once the widget is on screen); choosing a head applies its span to the row.
//   <sx-span-mask scores="0.4 1.6 -0.3 0.9 2.1 0.2" mapping="entmax15" z="2" ramp="2"></sx-span-mask>
// Events: sx-span-mask-change { z, ramp, mapping }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { fitBox } from "./fit-box.js";
import { handleRow } from "./handle-row.js";
import { spanMask, Model } from "../lib/simplexity.js";
import { checkpointUrl } from "./runtime/checkpoints.js";
import { linear } from "./viz/scale.js";
import { spanDistances, maskScores, applySpan } from "./viz/span.js";

const W = 560, L = 96, R = 12, TASKS = ["reverse", "sort", "after_marker", "date"];
const NAMES = ["softmax", "sparsemax", "entmax15", "entmax"];

// One fetch and one parse per task for the whole page; the model is freed once its spans are read.
const learned = new Map();
function loadSpans(task) {
  if (!learned.has(task)) {
    // the shipped checkpoint beside the library (checkpoints.js), never relative to the host page
    const url = checkpointUrl(task, "alpha-span");
    const p = fetch(url).then((res) => {
      if (!res.ok) throw new Error(`could not fetch ${url.pathname.split("/").pop()}: HTTP ${res.status}`);
      return res.arrayBuffer();
    }).then((buf) => {
      const model = Model.load(new Uint8Array(buf));
      try {
        const { span, spanRamp } = model.config;
        if (!span) throw new Error(`${task}-alpha-span.sxm has no adaptive span`);
        const spans = model.spans();
        return { task, L: span, R: spanRamp, encoder: spans.encoder, decoder: spans.decoder, bytes: buf.byteLength };
      } finally {
        model.free();
      }
    });
    p.catch(() => learned.delete(task)); // a failed fetch may be retried later
    learned.set(task, p);
  }
  return learned.get(task);
}

const CSS = sheet(`
svg.picture { max-width: 720px; }
.mask-area { fill: var(--_accent); fill-opacity: 0.08; }
.mask-line { fill: none; stroke: var(--_accent); stroke-width: 2.2; }
.mask-dot { fill: var(--_accent); }
.cut { fill: var(--_muted); fill-opacity: 0.12; }
.cut-label { --_fs: 11px; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ew-resize; }
.knob.ramp { fill: var(--_bg); stroke: var(--_accent); stroke-width: 2; }
.ring { fill: none; stroke: transparent; }
.w { stroke: none; }
.w.zero { fill: none; stroke: var(--_grid); stroke-dasharray: 2 2; }
.w.cutw { fill: none; stroke: var(--_muted); stroke-width: 1; }
.zero-line { stroke: var(--_muted); }
.label { font-weight: 600; stroke: none; }
.small { --_fs: 11px; }
.head { cursor: pointer; }
.row-label { pointer-events: none; }
.head .hit { fill: transparent; }
.head:hover .hit, .head.on .hit { fill: var(--_accent); fill-opacity: 0.1; }
.head:focus { outline: none; }
.head:focus-visible .hit { stroke: var(--_accent); stroke-width: 2; }
.span-bar { fill: var(--_accent); fill-opacity: 0.75; }
.span-ramp { fill: var(--_accent); fill-opacity: 0.3; }
.controls { max-width: 480px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.hint { color: var(--_muted); font-size: 12px; margin: 3.2px 0 0; }
`);

export class SxSpanMask extends SxElement {
  static fitText = true;
  static fitBox = fitBox;
  static spec = {
    scores: { type: "numbers", default: [0.4, 1.6, -0.3, 0.9, 2.1, 0.2, -0.8, 1.1, 0.5, 1.8, -0.2, 0.7, 1.4, 0.1, 1.0, 0.6], minLength: 2, maxLength: 32, min: -10, max: 10 },
    mapping: { type: "enum", default: "softmax", values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    z: { type: "number", default: 4, min: 0, max: 32 },
    ramp: { type: "number", default: 3, min: 0.25, max: 16 },
    model: { type: "enum", default: "none", values: ["none", ...TASKS] },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const svg = this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} 330`, role: "group", "aria-label": "the span mask over the keys, and one row of attention before and after it" }, body);
    this._my = linear([0, 1], [100, 28]);
    svgEl("text", { x: 4, y: 50, class: "label" }, svg).textContent = "mask m(x)";
    svgEl("text", { x: 4, y: 66, class: "muted small" }, svg).textContent = "drag ● z, ○ z + R";
    this._maskG = svgEl("g", {}, svg);
    this._axisG = svgEl("g", {}, svg);
    this._rowsG = svgEl("g", {}, svg);
    const handle = (label, cls) => {
      const h = svgEl("g", { role: "slider", tabindex: 0, "aria-label": label, "aria-orientation": "horizontal" }, svg);
      svgEl("circle", { class: "hit-r", r: 14, fill: "transparent" }, h);
      svgEl("circle", { class: "ring", r: 11 }, h);
      svgEl("circle", { class: `knob ${cls}`, r: 6.5 }, h);
      return h;
    };
    this._zHandle = handle("span z (positions)", "span");
    this._rHandle = handle("span plus ramp, z + R (positions)", "ramp");
    this._zHandle.addEventListener("keydown", (e) => {
      const v = sliderKey(e.key, this.z, { min: 0, max: this._zMax(), step: 0.25, page: 2 });
      if (v !== null) { e.preventDefault(); this._user({ z: v }); }
    });
    this._rHandle.addEventListener("keydown", (e) => {
      const v = sliderKey(e.key, this.z + this.ramp, { min: this.z + 0.25, max: this.z + 16, step: 0.25, page: 2 });
      if (v !== null) { e.preventDefault(); this._user({ ramp: round2(v - this.z) }); }
    });
    // pointer (mouse, pen, touch) anywhere on the mask panel moves the nearer handle there
    draggable(svg, (e) => {
      if (!this._drag) return;
      const [x] = svgPoint(svg, e);
      const d = this._distAt(x);
      if (this._drag === "z") this._user({ z: round2(Math.max(0, Math.min(this._zMax(), d))) });
      else this._user({ ramp: round2(Math.max(0.25, Math.min(16, d - this.z))) });
    }, (e) => {
      const [x, y] = svgPoint(svg, e);
      this._drag = undefined;
      if (y > 118 || !this._n) return;
      // the nearer handle in the plane: z sits on the m = 1 line, z + R on the m = 0 line
      const dz = Math.hypot(x - this._xAt(this.z), y - this._my(1));
      const dr = Math.hypot(x - this._xAt(this.z + this.ramp), y - this._my(0));
      this._drag = dr < dz ? "ramp" : "z";
    });

    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._zCtl = rangeControl(ctl, { label: "span z", min: 0, max: 16, step: 0.01, value: 4, format: (v) => fmt(v) });
    this._rCtl = rangeControl(ctl, { label: "ramp R", min: 0.25, max: 16, step: 0.01, value: 3, format: (v) => fmt(v) });
    this._zCtl.input.addEventListener("input", () => this._user({ z: Number(this._zCtl.input.value) }));
    this._rCtl.input.addEventListener("input", () => this._user({ ramp: Number(this._rCtl.input.value) }));
    const l = htmlEl("label", {}, ctl);
    htmlEl("span", { text: "mapping" }, l);
    this._mapSel = htmlEl("select", {}, l);
    for (const n of NAMES) htmlEl("option", { value: n, text: MAPPINGS[n].label }, this._mapSel);
    this._mapSel.addEventListener("change", () => this._user({ mapping: this._mapSel.value }));
    const lm = htmlEl("label", {}, ctl);
    htmlEl("span", { text: "learned spans" }, lm);
    this._modelSel = htmlEl("select", {}, lm);
    for (const t of ["none", ...TASKS]) htmlEl("option", { value: t, text: t === "none" ? "none" : `${t} model` }, this._modelSel);
    this._modelSel.addEventListener("change", () => { this.model = this._modelSel.value; });
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);

    // the learned spans, drawn once a model is loaded
    this._modelBox = htmlEl("div", { class: "model", part: "model" }, body);
    this._modelBox.hidden = true;
    this._visible = typeof IntersectionObserver === "undefined";
    if (!this._visible) {
      this._io = new IntersectionObserver((entries) => {
        if (entries.some((en) => en.isIntersecting)) { this._visible = true; this._io.disconnect(); this.invalidate(); }
      }, { rootMargin: "300px" });
      this._io.observe(this);
    }
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { z: this.z, ramp: this.ramp, mapping: this.mapping });
  }

  _zMax() { return Math.max(1, (this._n || 16) - 1 + 4); }
  // x of a key at distance d (continuous), and back; the query is the last key, at the right
  _xAt(d) { const bw = (W - L - R) / this._n; return L + (this._n - 1 - d + 0.5) * bw; }
  _distAt(x) { const bw = (W - L - R) / this._n; return this._n - 1 + 0.5 - (x - L) / bw; }

  render(s) {
    const z = s.scores, n = z.length, svg = this._svg, bw = (W - L - R) / n, my = this._my;
    this._n = n;
    this._zCtl.input.max = String(this._zMax());
    this._zCtl.set(s.z); this._rCtl.set(s.ramp);
    if (this._mapSel.value !== s.mapping) this._mapSel.value = s.mapping;
    if (this._modelSel.value !== s.model) this._modelSel.value = s.model;
    const clampX = (x) => Math.max(L, Math.min(W - R, x));

    // the mask: the curve over continuous distances (one wasm call), the keys' values, handles
    const samples = 241, dmax = n - 0.5;
    const ds = Float32Array.from({ length: samples }, (_, i) => Math.max(0, -0.5 + ((dmax + 0.5) * i) / (samples - 1)));
    const mc = spanMask(ds, { z: s.z, ramp: s.ramp });
    const dist = spanDistances(n);
    const m = spanMask(dist, { z: s.z, ramp: s.ramp });
    const mg = this._maskG;
    mg.replaceChildren();
    const cutFrom = s.z + s.ramp; // m = 0 at and beyond this distance
    if (cutFrom < dmax) {
      const x1 = clampX(this._xAt(cutFrom));
      svgEl("rect", { class: "cut", x: L, y: 20, width: Math.max(0, x1 - L), height: 300 }, mg);
      svgEl("text", { x: L + 4, y: 34, class: "muted cut-label" }, mg).textContent = "never scored (m = 0)";
    }
    let d = "", area = `M${clampX(this._xAt(ds[0])).toFixed(1)},${my(0).toFixed(1)}`;
    for (let i = 0; i < samples; i++) {
      const pt = `${clampX(this._xAt(ds[i])).toFixed(1)},${my(mc[i]).toFixed(1)}`;
      d += `${i ? "L" : "M"}${pt}`;
      area += `L${pt}`;
    }
    area += `L${clampX(this._xAt(ds[samples - 1])).toFixed(1)},${my(0).toFixed(1)}Z`;
    svgEl("path", { class: "mask-area", d: area }, mg);
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: my(0), y2: my(0) }, mg);
    svgEl("path", { class: "mask-line", d }, mg);
    m.forEach((v, j) => {
      svgEl("title", {}, svgEl("circle", { class: "mask-dot", cx: (L + (j + 0.5) * bw).toFixed(1), cy: my(v).toFixed(1), r: 2.6 }, mg))
        .textContent = `key ${j + 1}, distance ${dist[j]}: m = ${v === 0 ? "0" : fmt(v, 3)}`;
    });
    const place = (h, x, y, now, text) => {
      for (const c of h.children) { c.setAttribute("cx", clampX(x).toFixed(1)); c.setAttribute("cy", y.toFixed(1)); }
      h.setAttribute("aria-valuenow", fmt(now));
      h.setAttribute("aria-valuetext", text);
    };
    place(this._zHandle, this._xAt(s.z), my(1), s.z, `z = ${fmt(s.z)}`);
    place(this._rHandle, this._xAt(cutFrom), my(0), cutFrom, `z + R = ${fmt(cutFrom)}`);
    this._zHandle.setAttribute("aria-valuemin", "0");
    this._zHandle.setAttribute("aria-valuemax", String(this._zMax()));
    this._rHandle.setAttribute("aria-valuemin", fmt(s.z + 0.25));
    this._rHandle.setAttribute("aria-valuemax", fmt(s.z + 16));

    // distance axis (the query is the last key, at distance 0)
    if (this._axisKey !== n) {
      this._axisKey = n;
      this._axisG.replaceChildren();
      const every = n > 20 ? 4 : n > 10 ? 2 : 1;
      for (let j = 0; j < n; j++) {
        if ((n - 1 - j) % every) continue;
        svgEl("text", { x: (L + (j + 0.5) * bw).toFixed(1), y: 116, "text-anchor": "middle", class: "muted small" }, this._axisG).textContent = String(n - 1 - j);
      }
      svgEl("text", { x: 4, y: 116, class: "muted small" }, this._axisG).textContent = "distance x";
    }

    // the row before and after the span
    const map = (x) => MAPPINGS[s.mapping].run(x, s.mapping === "entmax" ? { alpha: s.alpha } : {});
    const before = map(z);
    const after = applySpan(map(maskScores(z, m)), m);
    const g = this._rowsG;
    g.replaceChildren();
    const rows = [["before", before, "without a span"], ["after", after, "masked, renormalised"]];
    const peak = Math.max(0.25, ...before, ...after); // one scale for both rows
    const counts = rows.map(([name, p, sub], r) => {
      const top = 140 + r * 96, hgt = 64, y = linear([0, 1], [top + hgt, top]);
      const ys = linear([0, peak], [top + hgt, top]);
      svgEl("text", { x: 4, y: top + 24, class: `label m-${s.mapping}` }, g).textContent = name;
      svgEl("text", { x: 4, y: top + 40, class: "muted small" }, g).textContent = sub;
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: y(0), y2: y(0) }, g);
      let nz = 0, cut = 0;
      p.forEach((v, j) => {
        const x = L + j * bw + bw * 0.18, wdt = bw * 0.64;
        if (v > 0) nz++;
        const isCut = name === "after" && m[j] === 0;
        if (isCut) cut++;
        const cls = v > 0 ? `w m-${s.mapping}` : isCut ? "w cutw" : "w zero";
        svgEl("title", {}, svgEl("rect", { class: cls, x: x.toFixed(1), width: wdt.toFixed(1), y: v > 0 ? ys(v).toFixed(1) : (y(0) - 2).toFixed(1), height: v > 0 ? (y(0) - ys(v)).toFixed(1) : 2 }, g))
          .textContent = `${name}, key ${j + 1} (distance ${dist[j]}): ${v === 0 ? (isCut ? "exactly 0, never scored" : "exactly 0") : v.toFixed(4)}`;
      });
      return { nz, cut };
    });
    let massIn = 0; // the weight before that fell on keys the span lets through
    for (let j = 0; j < n; j++) if (m[j] > 0) massIn += before[j];
    const visible = m.filter((v) => v > 0).length;
    this._readout.textContent =
      `z = ${fmt(s.z)}, R = ${fmt(s.ramp)}: ${n - visible} of ${n} keys beyond z + R = ${fmt(cutFrom)} are never scored · ` +
      `before: ${counts[0].nz} of ${n} non-zero · after: ${counts[1].nz} of ${n} non-zero, ` +
      `${n - counts[1].nz} exact zeros · ${fmt(100 * massIn, 1)}% of the weight before fell on keys inside z + R`;
    this._renderModel(s);
  }

  // ------------------------------------------------------------- the learned spans
  _renderModel(s) {
    const box = this._modelBox;
    if (s.model === "none") { box.hidden = true; return; }
    box.hidden = false;
    const state = this._model;
    if (!state || state.task !== s.model) {
      if (!this._visible) { this._modelNote(`${s.model}-alpha-span.sxm loads when this picture is on screen.`); return; }
      const mine = this._model = { task: s.model, data: null, error: null };
      this._modelNote(`Loading the learned spans of ${s.model}-alpha-span.sxm…`);
      loadSpans(s.model).then((data) => {
        if (this._model === mine) { mine.data = data; this._modelKey = null; this.invalidate(); }
      }, (err) => {
        if (this._model !== mine) return;
        mine.error = err.message; // shown until the model attribute changes (then a new fetch)
        this._modelNote(`The learned spans could not be loaded: ${err.message}`);
        this.invalidate();
      });
      return;
    }
    if (!state.data) return;
    const data = state.data, key = `${data.task}|${s.z}|${s.ramp}|${box.clientWidth}`;
    if (key === this._modelKey) return;
    this._modelKey = key;
    const rows = [];
    for (const kind of ["encoder", "decoder"]) {
      data[kind].forEach((heads, l) => heads.forEach((span, h) => { if (span !== null) rows.push({ kind, l, h, span }); }));
    }
    // rows at least 26 px tall as drawn, a label column wide enough for 11.5 px text (k: viewBox
    // units per CSS px at the box's width)
    const k = Math.max(1, W / (box.clientWidth || W));
    const two = k > 1.4; // the readout under the title, not beside it
    const RH = Math.max(17, Math.ceil(34 * k)), top = two ? Math.ceil(30 + 16 * k) : 30, H = top + rows.length * RH + 26, x0 = Math.max(150, Math.ceil(110 * k));
    const xs = linear([0, data.L + data.R], [x0, W - 20]);
    const focused = box.contains(this.shadowRoot.activeElement); // a head applied by key keeps the focus
    box.replaceChildren();
    const svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": `learned spans per head of ${data.task}-alpha-span` }, box);
    svgEl("text", { x: 4, y: 16, class: "label" }, svg).textContent = `learned spans: ${data.task}-alpha-span.sxm`;
    svgEl("text", { x: two ? 4 : W - 20, y: two ? Math.ceil(16 + 15 * k) : 16, "text-anchor": two ? "start" : "end", class: "muted small" }, svg).textContent = `max span ${two ? "" : "L = "}${data.L}, ramp ${two ? "" : "R = "}${data.R}; choose a head`;
    for (let t = 0; t <= data.L + data.R; t += data.L + data.R > 12 ? 3 : 1) {
      svgEl("line", { class: "axis", x1: xs(t), x2: xs(t), y1: top - 4, y2: top + rows.length * RH }, svg);
      svgEl("text", { x: xs(t), y: top + rows.length * RH + 14, "text-anchor": "middle", class: "muted small" }, svg).textContent = String(t);
    }
    const heads = rows.map((r, i) => {
      const y = top + i * RH, on = Math.abs(r.span - s.z) < 0.005 && Math.abs(data.R - s.ramp) < 0.005;
      const label = `${r.kind === "encoder" ? "encoder" : "decoder"} layer ${r.l + 1} head ${r.h + 1}`;
      const short = `${r.kind === "encoder" ? "enc" : "dec"} L${r.l + 1} h${r.h + 1}`; // what the row shows
      const g = svgEl("g", { class: `head${on ? " on" : ""}`, role: "button", "aria-pressed": String(on), "aria-label": `${short} ${fmt(r.span, 1)}: ${label}, span ${fmt(r.span)} positions; apply it to the row` }, svg);
      svgEl("rect", { class: "hit", x: 2, y: y, width: W - 14, height: RH - 1, rx: 3 }, g);
      // the row's words sit beside the button, not in it: its name (which starts with them) is its
      // aria-label alone, not the labels run together ("enc L1 h17.4")
      svgEl("text", { x: 8, y: y + RH / 2 + 4, class: "small row-label", "aria-hidden": "true" }, svg).textContent = short;
      svgEl("text", { x: x0 - 8, y: y + RH / 2 + 4, "text-anchor": "end", class: "small row-label", "aria-hidden": "true" }, svg).textContent = fmt(r.span, 1);
      const b = y + 3, hh = RH - 7;
      svgEl("rect", { class: "span-bar", x: xs(0), y: b, width: Math.max(0, xs(r.span) - xs(0)), height: hh }, g);
      svgEl("path", { class: "span-ramp", d: `M${xs(r.span).toFixed(1)},${b}L${xs(r.span + data.R).toFixed(1)},${b + hh}L${xs(r.span).toFixed(1)},${b + hh}Z` }, g);
      g.addEventListener("click", () => this._user({ z: round2(r.span), ramp: data.R }));
      return g;
    });
    // the heads are one tab stop: ↑/↓ move along them, Enter or Space applies one
    this._heads = handleRow(heads, (e, i) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); heads[i].dispatchEvent(new Event("click")); } },
      this._heads ? this._heads.at : 0, ["ArrowUp", "ArrowDown"]);
    if (focused && heads.length) heads[this._heads.at].focus();
    const all = rows.map((r) => r.span), enc = rows.filter((r) => r.kind === "encoder").map((r) => r.span), dec = rows.filter((r) => r.kind === "decoder").map((r) => r.span);
    const range = (v) => `${fmt(Math.min(...v), 1)}–${fmt(Math.max(...v), 1)}`;
    htmlEl("p", { class: "readout", part: "model-readout", text: `${rows.length} self-attention heads: encoder spans ${range(enc)}, decoder spans ${range(dec)} positions (mean ${fmt(all.reduce((a, v) => a + v, 0) / all.length, 1)} of ${data.L}).` }, box);
  }

  _modelNote(text) {
    this._modelKey = null;
    this._modelBox.replaceChildren(htmlEl("p", { class: "hint", part: "model-readout", text }));
  }

  // a model that failed to load keeps saying so under every later render
  showMessage(lines) {
    super.showMessage(this._model && this._model.error ? [...lines, `${this.localName}: ${this._model.error}`] : lines);
  }
}

const round2 = (v) => Math.round(v * 100) / 100;

define("sx-span-mask", SxSpanMask);
