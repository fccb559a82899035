// base.js - what every <sx-*> element shares (not an element itself): the one wasm instance
// (the library's init() is memoised) warmed up once, attribute specs reflected as typed
// properties, renders batched into one animation frame, a shadow root styled by constructable
// stylesheets (allowed by a strict CSP, unlike <style> elements), the Link/SVG/PNG toolbar,
// and the visible message a bad attribute leaves instead of an exception.
import { init, softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax, tsallisEntropy } from "../lib/mappings.js";
import { parseAttr } from "./viz/parse-attr.js";

export const SVG_NS = "http://www.w3.org/2000/svg";
/** This module's URL: every widget's module is its sibling (widgets.js names one that failed to
 *  load by it). */
export const WIDGETS_URL = import.meta.url;

// ------------------------------------------------------------------ the wasm core
// Two cores (loader.js): a widget that draws mappings only (static core = "mappings") asks for
// the small mappings core, every other one (the default) for the full core; once the full core
// is asked for, it serves every widget. A page holding both kinds fetches the full core alone:
// widgets.js asks for it as soon as it sees a full-core tag (before any widget module loads),
// and a mappings widget waits one task before asking, so a full-core request made meanwhile (a
// bundle's other modules, an app's `init()` at its top level) wins.
let readyPromise = null;
let fullPromise = null;

// init() once for every widget on the page, then run the hot exports ~40 times so the first
// drag runs optimised code, not V8's baseline tier (PERFORMANCE.md point 7).
function warm(info) {
  const x = new Float32Array(300);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 1.7) * 2;
  const out = new Float32Array(300);
  for (let k = 0; k < 40; k++) {
    softmax(x, { n: 3, out }); sparsemax(x, { n: 3, out }); entmax15(x, { n: 3, out });
    entmax(x, { n: 3, alpha: 1.2 + k / 40, out }); fusedmax(x, { n: 3, lambda: 0.3, out });
    oscarmax(x, { n: 10, beta: 0.1, out }); tsallisEntropy(out, { n: 3, alpha: 1.5 });
  }
  return info;
}

/** Resolves once the core a widget needs ("full", the default, or "mappings") is initialised. */
export function ready(core = "full") {
  if (core === "full" || fullPromise) {
    if (!fullPromise) {
      fullPromise = init().then(warm, (err) => { fullPromise = null; throw err; });
    }
    return fullPromise;
  }
  if (!readyPromise) {
    readyPromise = new Promise((resolve) => setTimeout(resolve, 0))
      .then(() => fullPromise ?? init({ core: "mappings" }).then(warm))
      .catch((err) => { readyPromise = null; throw err; });
  }
  return readyPromise;
}

// The mappings by name: run(scores, opts) -> probabilities, opts carrying n/temperature/out and
// the element's alpha/lambda/beta.
export const MAPPINGS = {
  softmax: { label: "softmax", run: softmax },
  sparsemax: { label: "sparsemax", run: sparsemax },
  entmax15: { label: "1.5-entmax", run: entmax15 },
  entmax: { label: "α-entmax", run: entmax },
  fusedmax: { label: "fusedmax", run: fusedmax },
  oscarmax: { label: "oscarmax", run: oscarmax },
};

// ------------------------------------------------------------------ styles
const LIGHT = {
  bg: "#fdfdfc", fg: "#1d1d1f", muted: "#6b6b70", grid: "#d8d8dc", accent: "#b4432f", panel: "#f3f2ee",
  softmax: "#3b6fb6", sparsemax: "#c0392b", entmax15: "#237a4a", entmax: "#8e44ad", fusedmax: "#d68910", oscarmax: "#16878a",
  "map-0": "#f7f6f0", "map-1": "#cfe1dc", "map-2": "#6fa3b5",
};
const DARK = {
  bg: "#16171a", fg: "#e8e8ea", muted: "#9a9aa2", grid: "#3a3b40", accent: "#ff8a70", panel: "#202126",
  softmax: "#7fa8e8", sparsemax: "#ff7b6b", entmax15: "#6fd49b", entmax: "#c89bf0", fusedmax: "#f5b955", oscarmax: "#5fd0cf",
  "map-0": "#1a1b1f", "map-1": "#1f3d45", "map-2": "#3f8296",
};
// Each --_x reads the host page's --sx-x when it sets one (custom properties inherit into the
// shadow tree), else the theme default.
const vars = (t) => Object.entries(t).map(([k, v]) => `--_${k}: var(--sx-${k}, ${v});`).join(" ");

// Server-side renderers (Astro, VitePress, Next.js) evaluate these modules in Node, which has no
// CSSStyleSheet, HTMLElement or customElements: nothing here touches them at load time there.
export function sheet(css) {
  if (typeof CSSStyleSheet === "undefined") return null;
  const s = new CSSStyleSheet();
  s.replaceSync(css);
  return s;
}

// `all: initial` on :host: nothing the host page sets is inherited (a serif font, letter- and
// word-spacing, text-indent, text-align: justify, line-height: a widget wrapped in a Markdown <p>
// inherits that paragraph's); custom properties still are (--sx-*). Sizes are px or em, never rem
// (the host page's root font size: `html { font-size: 62.5% }` is common).
export const BASE_SHEET = sheet(`
:host { all: initial; display: block; position: relative; ${vars(LIGHT)} color: var(--_fg); background: var(--_bg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; border-radius: 10px;
  padding: 12px 12px 38.4px; margin: 16px 0; box-sizing: border-box; color-scheme: light; }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${vars(DARK)} color-scheme: dark; } }
:host([theme="dark"]) { ${vars(DARK)} color-scheme: dark; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
svg { display: block; width: 100%; height: auto; overflow: visible; touch-action: none; user-select: none; -webkit-user-select: none; }
svg text { fill: var(--_fg); font-size: var(--_fs, 12px); }
svg .muted { fill: var(--_muted); }
svg .axis { stroke: var(--_grid); fill: none; }
svg .edge { stroke: var(--_muted); stroke-width: 1.2; fill: none; }
[role="slider"]:focus, .focusable:focus { outline: none; }
[role="slider"]:focus-visible .ring, .focusable:focus-visible .ring { stroke: var(--_accent); stroke-width: 3; }
:host([link="none"]) .toolbar :first-child { display: none; }
.toolbar { position: absolute; bottom: 8px; right: 9.6px; display: flex; gap: 4px; z-index: 1; }
button { font: inherit; font-size: 12px; color: var(--_muted); background: transparent; border: 1px solid var(--_grid);
  border-radius: 6px; padding: 1.6px 7.2px; cursor: pointer; }
button:hover, button:focus-visible { color: var(--_fg); border-color: var(--_muted); }
.msg { margin: 6.4px 0 0; padding: 4.8px 9.6px; border-left: 3px solid var(--_accent); color: var(--_fg);
  background: var(--_panel); font-size: 13px; }
.msg[hidden] { display: none; }
.title { font-weight: 600; margin: 0 80px 6.4px 0; }
.controls { display: grid; gap: 5.6px; align-content: start; }
.controls label { display: grid; grid-template-columns: 120px minmax(96px, 1fr) 54.4px; align-items: center; gap: 8px; }
.controls output { font-variant-numeric: tabular-nums; text-align: right; }
input[type="range"] { width: 100%; accent-color: var(--_accent); margin: 0; height: 24px; }
select { font: inherit; color: var(--_fg); background: var(--_bg); border: 1px solid var(--_grid); border-radius: 6px; padding: 1.6px 4.8px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 2.4px 9.6px; text-align: right; border-bottom: 1px solid var(--_grid); }
th:first-child, td:first-child { text-align: left; }
.swatch { display: inline-block; width: 0.75em; height: 0.75em; border-radius: 50%; margin-right: 0.4em; vertical-align: -0.05em; }
${["softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"].map((k) =>
  `.m-${k} { fill: var(--_${k}); stroke: var(--_${k}); color: var(--_${k}); } .swatch.m-${k} { background: var(--_${k}); }`).join("\n")}
`);

// ------------------------------------------------------------------ DOM helpers
export function svgEl(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  if (attrs) for (const k in attrs) node.setAttribute(k, String(attrs[k]));
  if (parent) parent.appendChild(node);
  return node;
}

export function htmlEl(name, props, parent) {
  const node = document.createElement(name);
  if (props) for (const k in props) {
    if (k === "class") node.className = props[k];
    else if (k === "text") node.textContent = props[k];
    else node.setAttribute(k, String(props[k]));
  }
  if (parent) parent.appendChild(node);
  return node;
}

// A labelled native range input (the WAI-ARIA slider pattern comes with it: arrows, Page Up/Down,
// Home/End, and the value announced through aria-valuetext).
export function rangeControl(parent, { label, min, max, step, value, format, part }) {
  const root = htmlEl("label", { part: part || "control" }, parent);
  const name = htmlEl("span", {}, root);
  name.innerHTML = label; // static markup from this module only, never from attributes
  const input = htmlEl("input", { type: "range", min, max, step }, root);
  input.value = String(value);
  const output = htmlEl("output", {}, root);
  const show = () => {
    const text = format(Number(input.value));
    output.textContent = text;
    input.setAttribute("aria-valuetext", text);
  };
  show();
  input.addEventListener("input", show);
  return { root, input, output, set(v) { if (document.activeElement !== input || Number(input.value) !== v) input.value = String(v); show(); } };
}

// Keyboard of the WAI-ARIA slider pattern for custom handles: returns the new value or null.
export function sliderKey(key, value, { min, max, step, page = step * 10 }) {
  const clamp = (v) => Math.min(max, Math.max(min, v));
  switch (key) {
    case "ArrowRight": case "ArrowUp": return clamp(value + step);
    case "ArrowLeft": case "ArrowDown": return clamp(value - step);
    case "PageUp": return clamp(value + page);
    case "PageDown": return clamp(value - page);
    case "Home": return min;
    case "End": return max;
    default: return null;
  }
}

// Pointer position in the viewBox coordinates of an <svg>.
export function svgPoint(svg, event) {
  const m = svg.getScreenCTM();
  if (!m) return [0, 0];
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(m.inverse());
  return [p.x, p.y];
}

// Drag with pointer events (mouse, pen, touch): onMove(event) on down and on every move.
export function draggable(target, onMove, onStart) {
  target.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    target.setPointerCapture?.(e.pointerId);
    if (onStart) onStart(e);
    onMove(e);
    const move = (ev) => onMove(ev);
    const up = () => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
      target.removeEventListener("pointercancel", up);
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
    target.addEventListener("pointercancel", up);
  });
}

export const fmt = (v, d = 2) => (Object.is(v, -0) ? 0 : v).toFixed(d);

// ------------------------------------------------------------------ export
const STYLE_PROPS = ["fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "stroke-linejoin",
  "opacity", "fill-opacity", "stroke-opacity", "font-size", "font-family", "font-weight", "font-style",
  "text-anchor", "dominant-baseline", "paint-order"];

// The pictures of a widget as one standalone SVG document: each <svg> cloned with its computed
// styles written as presentation attributes (so the file needs neither the shadow stylesheet nor
// the page's custom properties), laid side by side on the widget's background.
export function serializeSVG(svgs, background) {
  const gap = 16;
  let x = 0, height = 0;
  const parts = [];
  for (const svg of svgs) {
    const vb = svg.viewBox.baseVal;
    const w = vb && vb.width ? vb.width : svg.clientWidth, h = vb && vb.height ? vb.height : svg.clientHeight;
    const clone = svg.cloneNode(true);
    const src = [svg, ...svg.querySelectorAll("*")], dst = [clone, ...clone.querySelectorAll("*")];
    const drop = [];
    for (let i = 0; i < src.length; i++) {
      const cs = getComputedStyle(src[i]);
      if (cs.display === "none") { drop.push(dst[i]); continue; }
      if (i === 0) continue;
      for (const p of STYLE_PROPS) {
        const v = cs.getPropertyValue(p);
        if (v && v !== "normal" && v !== "auto") dst[i].setAttribute(p, v);
      }
      for (const a of ["class", "tabindex", "part"]) dst[i].removeAttribute(a);
    }
    for (const d of drop) d.remove();
    clone.removeAttribute("class");
    clone.setAttribute("x", String(x));
    clone.setAttribute("y", "0");
    clone.setAttribute("width", String(w));
    clone.setAttribute("height", String(h));
    clone.setAttribute("overflow", "visible");
    parts.push(new XMLSerializer().serializeToString(clone));
    x += w + gap;
    height = Math.max(height, h);
  }
  const width = Math.max(1, x - gap);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="${SVG_NS}" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}"><rect width="100%" height="100%" fill="${background}"/>${parts.join("")}</svg>\n`;
}

// ------------------------------------------------------------------ links
// A link to a widget as the reader set it, #<id>?<its attributes> (link.js, fetched on the first
// "Link" click, or when the page's fragment holds a "?": few readers copy a link). A fragment
// that changes later (a link pasted into the same tab) is applied too.
const linked = (how, el) => import("./link.js").then((m) => m[how](el));
if (typeof addEventListener == "function") addEventListener("hashchange", () => location.hash.includes("?") && linked("restore"));

// ------------------------------------------------------------------ the element
// Off screen, invalidate() marks an element of a class with `static lazy = true` dirty; it
// renders once back in view (opt-in: sx-simplex, sx-entropy, sx-trajectory, sx-two-choice and
// sx-threshold are linked on the page, whose tests read them off screen; sx-span-mask and
// sx-explain redraw when their model arrives, read the same way; every other widget is lazy).
const view = typeof IntersectionObserver == "function" && new IntersectionObserver((entries) => {
  for (const { target: t, isIntersecting: on } of entries) {
    t._off = !on;
    if (on && t._dirty) { t._dirty = false; t.invalidate(); }
  }
}, { rootMargin: "99px" });

// Text that keeps its size on a phone: SVG text in a class with `static fitText = true` is at
// least 11.5 px as drawn, through --_k (viewBox units per CSS px, set by phone.js, whose sheet
// sizes SVG text, keyboard hints (.keys) and handles' touch targets (.hit-r) by it). Such a
// widget sizes a text by --_fs (default 12px), not font-size: the phone's rule takes the larger.
// phone.js (styles for a narrow widget and a coarse pointer, the text fit) is fetched once a
// widget is drawn under 420 px wide or the pointer is coarse: a desktop reader never loads it.
let phone = null;
function fitPhone(el) {
  if (!phone && !el._wide) {
    const w = el._body.clientWidth; // asked once per element, at its first render with a width
    if (matchMedia("(pointer: coarse)").matches || (w && w < 420)) phone = import("./phone.js").catch(() => { phone = null; });
    else el._wide = w > 0;
  }
  phone?.then((m) => m?.fit(el)); // (without it, a failed fetch, the widget keeps its wide styles)
}

// Subclasses declare `static spec = { name: { type, default, ... } }` (see viz/parse-attr.js),
// `static sheets = [...]`, build() once (DOM), render(settings) per frame, pictures() the <svg>s
// to export. defineAttributes(Class) installs a typed getter/setter per attribute.
export class SxElement extends (typeof HTMLElement === "undefined" ? class {} : HTMLElement) {
  static spec = {};
  /** The wasm core the element computes with: "full" (default) or "mappings" (see ready()). */
  static core = "full";
  static sheets = [];
  static get observedAttributes() { return Object.keys(this.spec); }

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.adoptedStyleSheets = [BASE_SHEET, ...this.constructor.sheets];
    this._frame = 0;
    this._built = false;
    this._ready = false;
    this._failure = null;
    this.lastRenderMs = 0;
  }

  connectedCallback() {
    if (!this._built) {
      this._built = true;
      this._upgradeProperties();
      const root = this.shadowRoot;
      this._body = htmlEl("div", { class: "body", part: "body" }, root);
      this._msg = htmlEl("p", { class: "msg", part: "message", role: "status" }, root);
      this._msg.hidden = true;
      // the toolbar, drawn bottom right, comes last in the tab order too: copy a link, export
      const bar = htmlEl("div", { class: "toolbar", part: "toolbar" }, root);
      for (const f of ["Link", "SVG", "PNG"]) {
        const b = htmlEl("button", { type: "button", part: "button", "aria-label": f == "Link" ? "Copy a link to this widget as set" : `Export this picture as ${f}`, text: f }, bar);
        b.addEventListener("click", () => (f == "Link" ? linked("copy", this) : this.exportAs(f.toLowerCase())));
      }
      if (location.hash.includes("?")) linked("restore", this);
      try { this.build(this._body); } catch (err) { this.fail(err); return; }
      ready(this.constructor.core).then(() => { this._ready = true; this.invalidate(); },
        (err) => this.fail(new Error(`could not load the WebAssembly core: ${err.message}`)));
    } else this.invalidate();
    if (this.constructor.lazy) view?.observe(this);
  }

  // A property a script set before the element's module defined it (widgets.js loads each
  // widget once its tag is seen) is an own property hiding the class's setter: pass it through.
  _upgradeProperties() {
    for (const key of Object.keys(this)) {
      let proto = Object.getPrototypeOf(this), d;
      while (proto && !(d = Object.getOwnPropertyDescriptor(proto, key))) proto = Object.getPrototypeOf(proto);
      if (d && d.set) {
        const value = this[key];
        delete this[key];
        this[key] = value;
      }
    }
  }

  disconnectedCallback() {
    view?.unobserve(this);
    if (this._frame) cancelAnimationFrame(this._frame);
    this._frame = 0;
  }

  attributeChangedCallback() { this.invalidate(); }

  // Ask for a render in the next animation frame; many changes in one frame render once.
  invalidate() {
    // (the first render is never deferred: it says what the widget is, whenever the core loads)
    if (this._off && this._shown) { this._dirty = true; return; }
    if (!this._frame && this.isConnected) {
      this._frame = requestAnimationFrame(() => { this._frame = 0; this.renderNow(); });
    }
  }

  // Parse every attribute (falling back to its default with a message), then render.
  settings() {
    const spec = this.constructor.spec, s = {}, errors = [];
    for (const name in spec) {
      const r = parseAttr(name, this.getAttribute(name), spec[name]);
      s[name] = r.value;
      if (r.error) errors.push(r.error);
    }
    return { s, errors };
  }

  // Render at once (a frame already asked for by invalidate() is dropped: it would redo this).
  renderNow() {
    if (this._frame) { cancelAnimationFrame(this._frame); this._frame = 0; }
    if (!this._ready || this._failure) return;
    this._shown = true;
    const t0 = performance.now();
    const { s, errors } = this.settings();
    try {
      this.render(s);
      fitPhone(this);
      this.showMessage(errors);
    } catch (err) {
      this.showMessage([...errors, `${this.localName}: ${err.message}`]);
      console.warn(err); // the picture keeps its last good state; the host page goes on
    }
    this.lastRenderMs = performance.now() - t0;
  }

  showMessage(lines) {
    const text = [...lines, ...(this._linkNotes || [])].join(" · ");
    if (this._msg.textContent !== text) this._msg.textContent = text;
    this._msg.hidden = !text;
  }

  fail(err) {
    this._failure = err;
    if (this._msg) this.showMessage([`${this.localName}: ${err.message}`]);
  }

  // Tell the host page about a change the reader made: <tag>-change, bubbling and composed.
  emit(verb, detail) {
    this.dispatchEvent(new CustomEvent(`${this.localName}-${verb}`, { detail, bubbles: true, composed: true }));
    if (verb == "change" && this.getAttribute("link") == "live") linked("live", this);
  }

  pictures() { return [...this._body.querySelectorAll("svg.picture")]; }

  toSVG() {
    if (this._dirty) { this._dirty = false; this.renderNow(); } // changed off screen
    return serializeSVG(this.pictures(), getComputedStyle(this).getPropertyValue("--_bg").trim() || "#ffffff");
  }

  // PNG and the download are in export.js, fetched on the first export (every widget would
  // carry them otherwise, and few readers export).
  toPNG(scale = 2) {
    const svg = this.toSVG();
    return import("./export.js").then((m) => m.svgToPNG(svg, scale));
  }

  async exportAs(format) {
    if (format !== "svg" && format !== "png") {
      throw new RangeError(`${this.localName}.exportAs: format must be "svg" or "png" (got ${JSON.stringify(String(format).slice(0, 20))})`);
    }
    try {
      const blob = format === "png" ? await this.toPNG() : new Blob([this.toSVG()], { type: "image/svg+xml" });
      (await import("./export.js")).download(blob, `${this.localName}.${format}`);
      this.emit("export", { format, size: blob.size });
    } catch (err) {
      this.showMessage([`${format.toUpperCase()} export failed: ${err.message}`]);
    }
  }
}

// A typed property per attribute: numbers read as numbers, lists as arrays, booleans as
// booleans; setting one writes the attribute (so the state is always visible in the DOM).
export function defineAttributes(Class) {
  for (const [name, spec] of Object.entries(Class.spec)) {
    const prop = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (prop in Class.prototype) continue;
    Object.defineProperty(Class.prototype, prop, {
      configurable: true,
      get() { return parseAttr(name, this.getAttribute(name), spec).value; },
      set(v) {
        if (spec.type === "bool") this.toggleAttribute(name, Boolean(v));
        else if (v === null || v === undefined) this.removeAttribute(name);
        else if (spec.type === "numbers" || spec.type === "enums") this.setAttribute(name, Array.from(v, (x) => (typeof x === "number" ? Number(x.toFixed(4)) : x)).join(" "));
        else this.setAttribute(name, String(v));
      },
    });
  }
}

// customElements.define, once: a second copy of the script on the page is harmless. Every
// widget also takes `link` (link.js): "copy" (a Link button), "live" (the page's URL follows the
// reader's changes) or "none" (no button, and links do not set it).
export function define(tag, Class) {
  Class.spec = { ...Class.spec, link: { type: "enum", default: "copy", values: ["copy", "live", "none"] } };
  if (typeof customElements === "undefined") return; // a server-side render: nothing to define
  defineAttributes(Class);
  if (!customElements.get(tag)) customElements.define(tag, Class);
}
