// <sx-cues>: attention cues (the notes, "Attention Cues in Biology"). A row of objects, each a
// colour and a shape (its key); attention pooling over them follows the nonvolitional cue (no
// query: the object whose features are rare in the scene is salient and draws the weight) or the
// volitional one (a query, the features the reader types or picks, scored against the keys), or
// both summed. The scores (viz/cues.js) go through the library's mapping, softmax, sparsemax,
// 1.5-entmax or alpha-entmax, and the weights are drawn on the objects (a halo, the number) and as
// bars below; an exact zero is a dashed ring.
//   <sx-cues objects="gray-square gray-square red-circle gray-square blue-square" cue="query" query="blue"></sx-cues>
// Keyboard: Tab reaches the objects (one stop), Left/Right move along them, Enter or Space picks
// the object's colour as the query; the menus, the query box and the sliders follow.
// Events: sx-cues-change { cue, query, mapping, alpha, gain, scores, weights }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt, MAPPINGS } from "./base.js";
import { handleRow } from "./handle-row.js";
import { OBJECTS, FEATURES, CUES, cueScores, saliency } from "./viz/cues.js";

const W = 600, L = 10, R = 10, OY = 64, BAR_TOP = 128, BH = 70, H = BAR_TOP + BH + 40;
const MAX = 10, NAMES = ["softmax", "sparsemax", "entmax15", "entmax"];
const DEFAULT = ["gray-square", "gray-square", "red-circle", "gray-square", "blue-square", "gray-square"];
const CUE_LABEL = { saliency: "nonvolitional: saliency, no query", query: "volitional: the query", both: "both: saliency + query" };
const INK = { red: "#d0342c", blue: "#2f6fd0", green: "#2e9a52", yellow: "#e3b505", gray: "#8d8d93" };

const CSS = sheet(`
svg.picture { max-width: 760px; }
.obj { stroke: var(--_fg); stroke-width: 1.2; }
${Object.entries(INK).map(([c, v]) => `.c-${c} { fill: ${v}; }`).join("\n")}
.halo { fill: var(--_accent); fill-opacity: 0.28; stroke: var(--_accent); stroke-width: 1.5; }
.halo.zero { fill: none; stroke: var(--_muted); stroke-dasharray: 3 3; }
.pick { cursor: pointer; }
.ring { fill: none; stroke: transparent; }
.w { fill: var(--_m); }
.w.zero { fill: none; stroke: var(--_muted); stroke-dasharray: 2 2; }
.zero-line { stroke: var(--_muted); }
.p-label { font-weight: 600; }
.label { font-weight: 600; }
${NAMES.map((k) => `svg.map-${k} { --_m: var(--_${k}); }`).join("\n")}
.controls { max-width: 480px; }
.controls label[hidden] { display: none; }
.controls input[type="text"] { font: inherit; color: var(--_fg); background: var(--_bg); border: 1px solid var(--_grid); border-radius: 6px; padding: 1.6px 4.8px; min-width: 0; }
.note { margin: 2px 0 0; font-size: 13px; color: var(--_muted); min-height: 1.2em; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
`);

export class SxCues extends SxElement {
  static fitText = true;
  static lazy = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    objects: { type: "enums", default: DEFAULT, values: OBJECTS },
    cue: { type: "enum", default: "saliency", values: CUES },
    query: { type: "enums", default: ["blue"], values: FEATURES },
    mapping: { type: "enum", default: "softmax", values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1.01, max: 4 },
    gain: { type: "number", default: 3, min: 0.1, max: 10 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  // objects: 2 to 10 (an "enums" attribute has no length bounds of its own)
  settings() {
    const r = super.settings(), o = r.s.objects;
    if (o.length < 2 || o.length > MAX) {
      r.errors.push(`objects="${this.getAttribute("objects").slice(0, 40)}" needs 2 to ${MAX} objects (got ${o.length}); using ${DEFAULT.join(" ")}`);
      r.s.objects = DEFAULT.slice();
    }
    return r;
  }

  build(body) {
    this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "the objects, each with its attention weight drawn on it, and the weights as bars" }, body);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const select = (label, values, text, key) => {
      const l = htmlEl("label", {}, ctl);
      htmlEl("span", { text: label }, l);
      const sel = htmlEl("select", {}, l);
      for (const v of values) htmlEl("option", { value: v, text: text(v) }, sel);
      sel.addEventListener("change", () => this._user({ [key]: sel.value }));
      return sel;
    };
    this._cueSel = select("cue", CUES, (v) => CUE_LABEL[v], "cue");
    const ql = htmlEl("label", {}, ctl);
    htmlEl("span", { text: "query (features)" }, ql);
    this._q = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", "aria-describedby": "q-note" }, ql);
    this._q.addEventListener("input", () => this._typed());
    this._qNote = htmlEl("p", { class: "note", id: "q-note", "aria-live": "polite" }, ctl);
    this._mapSel = select("mapping", NAMES, (v) => MAPPINGS[v].label, "mapping");
    this._gain = rangeControl(ctl, { label: "gain (sharpness)", min: 0.1, max: 10, step: 0.1, value: 3, format: (v) => fmt(v, 1) });
    this._gain.input.addEventListener("input", () => this._user({ gain: Number(this._gain.input.value) }));
    this._alpha = rangeControl(ctl, { label: "α (α-entmax)", min: 1.01, max: 4, step: 0.01, value: 1.5, format: (v) => fmt(v) });
    this._alpha.input.addEventListener("input", () => this._user({ alpha: Number(this._alpha.input.value) }));
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
  }

  // The query box: words of FEATURES set the query as typed; anything else waits, with a note.
  _typed() {
    const words = this._q.value.toLowerCase().split(/[\s,]+/).filter(Boolean);
    const bad = words.find((w) => !FEATURES.includes(w));
    if (!words.length) this._qNote.textContent = `type a colour or a shape: ${FEATURES.join(", ")}`;
    else if (bad) this._qNote.textContent = `"${bad.slice(0, 20)}" is not a feature here (${FEATURES.join(", ")})`;
    else {
      this._qNote.textContent = "";
      this._user({ query: words, ...(this.cue === "saliency" ? { cue: "query" } : {}) });
    }
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.renderNow(); // the event carries the weights of the new state
    const { scores, weights } = this._last || {};
    this.emit("change", { cue: this.cue, query: this.query, mapping: this.mapping, alpha: this.alpha, gain: this.gain, scores, weights });
  }

  // Picking an object (click, Enter, Space): its colour becomes the query.
  _pick(i) {
    const color = this.objects[i].split("-")[0];
    this._q.value = color;
    this._qNote.textContent = "";
    this._user({ query: [color], ...(this.cue === "saliency" ? { cue: "query" } : {}) });
  }

  // The objects' handles: rebuilt when the scene changes.
  _buildObjects(objects) {
    const g = this._objs = svgEl("g", {}, this._svg), bw = (W - L - R) / objects.length;
    this._handles = objects.map((o, i) => {
      const [color, shape] = o.split("-"), cx = L + (i + 0.5) * bw, h = svgEl("g", { class: "pick", role: "button" }, g);
      const halo = svgEl("circle", { class: "halo", cx, cy: OY }, h);
      svgEl("circle", { class: "ring", cx, cy: OY, r: 26 }, h);
      const s = 15, cls = `obj c-${color}`;
      if (shape === "circle") svgEl("circle", { class: cls, cx, cy: OY, r: s }, h);
      else if (shape === "square") svgEl("rect", { class: cls, x: cx - s, y: OY - s, width: 2 * s, height: 2 * s, rx: 2 }, h);
      else svgEl("path", { class: cls, d: `M${cx} ${OY - s - 2} L${cx + s + 2} ${OY + s} L${cx - s - 2} ${OY + s} Z` }, h);
      // the weight's number sits outside the button (its name says the weight: the same text)
      const label = svgEl("text", { x: cx, y: OY - 34, "text-anchor": "middle", class: "p-label" }, g);
      h.addEventListener("click", () => this._pick(i));
      return { h, halo, label, cx, name: `object ${i + 1}: ${color} ${shape}` };
    });
    this._row = handleRow(this._handles.map((x) => x.h), (e, i) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this._pick(i); }
    }, this._row ? this._row.at : 0);
  }

  render(s) {
    const objects = s.objects, n = objects.length, key = objects.join(" ");
    this._cueSel.value = s.cue;
    this._mapSel.value = s.mapping;
    this._gain.set(s.gain);
    this._alpha.set(s.alpha);
    this._alpha.root.hidden = s.mapping !== "entmax";
    if (this.shadowRoot.activeElement !== this._q) this._q.value = s.query.join(" ");
    const svg = this._svg;
    if (key !== this._scene) {
      this._scene = key;
      svg.replaceChildren();
      svgEl("text", { x: L, y: 14, class: "label" }, svg).textContent = "objects (key: colour, shape)";
      this._buildObjects(objects);
      this._bars = svgEl("g", {}, svg);
    }
    svg.setAttribute("class", `picture map-${s.mapping}`);
    const scores = cueScores(objects, { cue: s.cue, query: s.query, gain: s.gain });
    const w = MAPPINGS[s.mapping].run(Float32Array.from(scores), s.mapping === "entmax" ? { alpha: s.alpha } : undefined);
    const weights = Array.from(w);
    this._last = { scores, weights };
    const bw = (W - L - R) / n, g = this._bars;
    g.replaceChildren();
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: BAR_TOP + BH, y2: BAR_TOP + BH }, g);
    svgEl("text", { x: L, y: BAR_TOP - 4, class: "muted" }, g).textContent = "weights (bars), scores (below)";
    weights.forEach((p, i) => {
      const { halo, label, cx, h, name: what } = this._handles[i];
      halo.setAttribute("r", (16 + 18 * Math.sqrt(p)).toFixed(2));
      halo.setAttribute("class", p === 0 ? "halo zero" : "halo");
      halo.setAttribute("fill-opacity", p === 0 ? 0 : (0.1 + 0.6 * p).toFixed(3));
      label.textContent = p === 0 ? "0" : p.toFixed(2);
      h.setAttribute("aria-label", `${what}, weight ${label.textContent}${p === 0 ? " (exactly 0)" : ""}; pick its colour as the query`);
      const x = cx - bw * 0.3, name = objects[i].replace("-", " ");
      const rect = p === 0 ? { class: "w zero", x, width: bw * 0.6, y: BAR_TOP + BH - 2, height: 2 }
        : { class: "w", x, width: bw * 0.6, y: BAR_TOP + BH * (1 - p), height: BH * p };
      svgEl("title", {}, svgEl("rect", rect, g)).textContent = `${name} weight ${i + 1}: ${p === 0 ? "exactly 0" : p.toFixed(4)} (score ${scores[i].toFixed(3)})`;
      svgEl("text", { x: cx, y: BAR_TOP + BH + 16, "text-anchor": "middle", class: "muted score" }, g).textContent = fmt(scores[i]);
    });
    this._readout.textContent = this._describe(s, objects, scores, weights);
  }

  _describe(s, objects, scores, weights) {
    const top = weights.indexOf(Math.max(...weights)), zeros = weights.filter((p) => p === 0).length;
    const sal = saliency(objects), name = (i) => objects[i].replace("-", " ");
    const why = s.cue === "saliency" ? `no query: the most salient object is the ${name(sal.indexOf(Math.max(...sal)))}`
      : `query "${s.query.join(" ")}"${s.cue === "both" ? " plus saliency" : ""}`;
    return `${why} · ${MAPPINGS[s.mapping].label}: the largest weight, ${weights[top].toFixed(3)}, on the ${name(top)}; ` +
      `${zeros ? `${zeros} of ${objects.length} objects get exactly 0` : "every object keeps some weight"}`;
  }
}

define("sx-cues", SxCues);
