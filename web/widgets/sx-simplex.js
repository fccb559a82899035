// <sx-simplex>: three scores mapped onto the probability simplex by several mappings at once.
//   <sx-simplex scores="1.5 0 1" alpha="1.25" lambda="0.3" temperature="1"
//               mappings="softmax sparsemax entmax15 entmax fusedmax" cloud="sparsemax"
//               entropy="none|shannon|tsallis" view="both|ternary" theme="light|dark"></sx-simplex>
// Drag a score bar's handle, or the score point itself (the hollow diamond: the scores z / T
// drawn in the plane of the simplex, so sparsemax is its nearest point in the triangle), and every
// mapping moves. Events: sx-simplex-change { scores, alpha, lambda, temperature }.
// The 3-D view sits behind a disclosure button (closed on a narrow element) and its drawing is
// simplex-3d.js, import()ed when it is first shown.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { handleRow } from "./handle-row.js";
import { ternaryCorners, ternaryXY, ternaryFromXY } from "./viz/ternary.js";
import { randomScores } from "./viz/random-scores.js";
import { linear } from "./viz/scale.js";
import { drawEntropy, themeColors } from "./entropy-layer.js";

const NAMES = ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"];
const CLOUD = randomScores(100, 3, 7, -1, 1); // as the seed notebook: torch.rand(100, 3) * 2 - 1
const S = 280, OX = 60, OY = 46, W = 400, HT = 350; // triangle side and offset in the ternary view
const ZMAX = 3;

// Three layouts by the element's width (container queries on :host): one column on a phone,
// the triangle first and its score bars directly under it, then the controls and the 3-D view
// (collapsed); from 620 px the bars and controls beside the triangle, the 3-D view under both;
// from 900 px the 3-D view beside them too. DOM order: triangle, bars, controls, 3-D view.
const NARROW = 620, WIDE = 900;
const MIN_TEXT = 11.5; // px on screen: SVG text is sized in viewBox units, so a picture drawn
// smaller than its viewBox (a phone) scales its text up by --zoom (viewBox / drawn width).
// It sets --_fs, not font-size: base.js and phone.js size every SVG text by --_fs (phone.js's
// sheet, adopted last, would otherwise win over a font-size of this sheet's and undo the zoom).
const CSS = sheet(`
:host { container: sx / inline-size; }
.grid { display: grid; gap: 12px; align-items: start; grid-template-columns: minmax(0, 1fr); }
.grid > .bars { width: 100%; max-width: 320px; justify-self: center; }
.controls { container: ctl / inline-size; }
svg.v3 { max-width: 380px; margin: 4px auto 0; overflow: hidden; cursor: grab; border-radius: 8px; }
@container sx (min-width: ${NARROW}px) {
  .grid { grid-template-columns: minmax(0, 4fr) minmax(0, 3fr); grid-template-rows: auto 1fr; }
  .grid.single { max-width: 820px; }
  .grid > .tri { grid-row: span 2; }
  .grid > .bars { max-width: 260px; justify-self: start; }
  .v3box { grid-column: 1 / -1; }
}
@container sx (min-width: ${WIDE}px) {
  .grid:not(.single) { grid-template-columns: minmax(0, 4fr) 240px minmax(0, 3fr); }
  .grid:not(.single) .v3box { grid-area: 1 / 3 / 3; }
  .v3box svg.v3 { max-width: none; }
}
@container ctl (max-width: 300px) {
  .controls label { grid-template-columns: minmax(0, 1fr) auto; row-gap: 0; }
  .controls label > span { grid-column: 1 / -1; }
}
@container sx (max-width: 400px) { table { width: 100%; font-size: 12px; } th, td { padding: 2.4px 4px; } }
input[type="range"], select, .v3box button { min-height: 24px; }
.v3box button { font-size: 13px; color: var(--_fg); padding: 2px 10px; }
.v3box button::before { content: "▸ "; }
.v3box button[aria-expanded="true"]::before { content: "▾ "; }
@media (pointer: coarse) { input[type="range"], select, .v3box button { min-height: 44px; } .hint .keys { display: none; } }
svg text { --_fs: max(12px, calc(${MIN_TEXT}px * var(--zoom, 1))); }
svg.tri { overflow: hidden; }
svg.v3:active { cursor: grabbing; }
.tri .edge.hot { stroke: var(--_accent); stroke-width: 3; }
.tri .cloud circle { opacity: 0.5; stroke: none; }
.tri .pt { stroke: var(--_bg); stroke-width: 1.5; }
.tri .pt.on-edge { stroke: var(--_fg); stroke-width: 2; }
.tri .score { fill: var(--_bg); stroke: var(--_fg); stroke-width: 2; }
.tri .handle { cursor: move; }
.hit { fill: transparent; }
.ring { fill: none; stroke: transparent; }
.tri .proj { stroke: var(--_sparsemax); stroke-dasharray: 4 3; stroke-width: 1.2; }
.tri .isolines path { stroke: var(--_bg); stroke-opacity: 0.5; stroke-width: 0.7; fill: none; }
.bars .bar { fill: var(--_grid); }
.bars .bar.neg { opacity: 0.6; }
.bars .bar, .bars text, .bars .zero { pointer-events: none; }
.bars .knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 2; cursor: ns-resize; }
.bars .zero { stroke: var(--_muted); }
.hint { color: var(--_muted); font-size: 12px; margin: 3.2px 0 0; }
`);

export class SxSimplex extends SxElement {
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    scores: { type: "numbers", default: [1.5, 0, 1], minLength: 3, maxLength: 3, min: -ZMAX, max: ZMAX },
    alpha: { type: "number", default: 1.25, min: 1, max: 4 },
    lambda: { type: "number", default: 0.3, min: 0, max: 2 },
    beta: { type: "number", default: 0.2, min: 0, max: 2 },
    temperature: { type: "number", default: 1, min: 0.01, max: 10 },
    mappings: { type: "enums", default: ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax"], values: NAMES },
    cloud: { type: "enum", default: "sparsemax", values: ["none", "all", ...NAMES] },
    entropy: { type: "enum", default: "none", values: ["none", "shannon", "tsallis"] },
    view: { type: "enum", default: "both", values: ["both", "ternary"] },
    yaw: { type: "number", default: -0.75 },
    pitch: { type: "number", default: 0.45, min: -1.5, max: 1.5 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const grid = this._grid = htmlEl("div", { class: "grid" }, body);
    this._buildTriangle(grid);
    this._buildBars(grid);
    this._buildControls(grid);
    this._build3d(grid);
    this._table = htmlEl("table", { part: "table", "aria-label": "probabilities of each mapping" }, body);
    const head = htmlEl("tr", {}, htmlEl("thead", {}, this._table));
    for (const t of ["mapping", "p_A", "p_B", "p_C", "exact zeros"]) htmlEl("th", { text: t }, head);
    this._tbody = htmlEl("tbody", {}, this._table);
    this._keys = {};
    this._watchSize();
  }

  // the ternary view, with the score point z / T as a handle
  _buildTriangle(grid) {
    const tri = this._tri = svgEl("svg", { class: "picture tri", viewBox: `0 0 ${W} ${HT}`, role: "group", "aria-label": "Ternary plot: each mapping of the scores as a point of the triangle" }, grid);
    const root = svgEl("g", { transform: `translate(${OX},${OY})` }, tri);
    this._entropyG = svgEl("g", { class: "entropy" }, root);
    const c = ternaryCorners(S, 0);
    this._edges = [[1, 2], [0, 2], [0, 1]].map(([a, b]) => svgEl("line", { class: "edge", x1: c[a][0], y1: c[a][1], x2: c[b][0], y2: c[b][1] }, root));
    // edge k is where p_k = 0
    const labels = [["A", 0, -10], ["B", -12, 16], ["C", 12, 16]];
    labels.forEach(([t, dx, dy], i) => { svgEl("text", { x: c[i][0] + dx, y: c[i][1] + dy, "text-anchor": "middle", "font-weight": 600 }, root).textContent = t; });
    svgEl("text", { x: S / 2, y: S * 0.866 + 36, "text-anchor": "middle", class: "muted" }, root).textContent = "an edge: one weight is exactly 0";
    this._cloudG = svgEl("g", { class: "cloud" }, root);
    this._proj = svgEl("line", { class: "proj" }, root);
    this._ptsG = svgEl("g", {}, root);
    // the visible diamond in a larger invisible target (its radius follows the zoom: 44 px on screen)
    this._score = svgEl("g", { class: "handle focusable", tabindex: 0, role: "application",
      "aria-roledescription": "2-D handle", "aria-label": "score point z / T; arrow keys move it" }, root);
    this._scoreHit = svgEl("circle", { class: "hit", r: 22 }, this._score);
    svgEl("circle", { class: "ring", r: 13 }, this._score);
    svgEl("path", { class: "score", d: "M0,-9L9,0L0,9L-9,0Z" }, this._score);
    draggable(tri, (e) => this._dragPoint(e), (e) => { this._dragging = this._score.contains(e.target); });
    this._score.addEventListener("keydown", (e) => this._keyPoint(e));
  }

  // the three score bars: one tab stop, ←/→ pick a bar, ↑/↓ (Page Up/Down, Home/End) change it
  _buildBars(grid) {
    const bars = this._bars = svgEl("svg", { class: "bars", viewBox: "0 0 240 178", role: "group", "aria-label": "the three scores" }, grid);
    this._ys = linear([-ZMAX, ZMAX], [150, 14]);
    svgEl("line", { class: "zero", x1: 16, x2: 230, y1: this._ys(0), y2: this._ys(0) }, bars);
    svgEl("text", { x: 10, y: this._ys(ZMAX) + 4, "text-anchor": "end", class: "muted" }, bars).textContent = "3";
    svgEl("text", { x: 10, y: this._ys(-ZMAX) + 4, "text-anchor": "end", class: "muted" }, bars).textContent = "−3";
    this._barEls = ["A", "B", "C"].map((name, i) => {
      const x = 55 + i * 70;
      const bar = svgEl("rect", { class: "bar", x: x - 18, width: 36 }, bars);
      const value = svgEl("text", { x, "text-anchor": "middle" }, bars);
      svgEl("text", { x, y: 172, "text-anchor": "middle", "font-weight": 600 }, bars).textContent = `z${"ABC"[i]}`;
      const h = svgEl("g", { role: "slider", "aria-label": `score of ${name}`, "aria-valuemin": -ZMAX, "aria-valuemax": ZMAX, "aria-orientation": "vertical" }, bars);
      svgEl("circle", { class: "ring", r: 12, cx: x }, h);
      svgEl("circle", { class: "knob", r: 8, cx: x }, h);
      const hit = svgEl("rect", { class: "hit", x: x - 30, y: 0, width: 60, height: 165, fill: "transparent" }, bars);
      bars.insertBefore(hit, bars.firstChild);
      const setFrom = (e) => { const [, y] = svgPoint(bars, e); this._setScore(i, this._ys.invert(y)); };
      draggable(hit, setFrom); draggable(h, setFrom);
      return { bar, value, h, x };
    });
    handleRow(this._barEls.map((b) => b.h), (e, i) => {
      const v = sliderKey(e.key, this.scores[i], { min: -ZMAX, max: ZMAX, step: 0.05, page: 0.5 });
      if (v !== null) { e.preventDefault(); this._setScore(i, v); }
    });
  }

  _buildControls(grid) {
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, grid);
    this._alpha = rangeControl(ctl, { label: "α (α-entmax)", min: 1, max: 4, step: 0.01, value: 1.25, format: (v) => fmt(v) });
    this._lambda = rangeControl(ctl, { label: "λ (fusedmax)", min: 0, max: 2, step: 0.01, value: 0.3, format: (v) => fmt(v) });
    this._logT = rangeControl(ctl, { label: "temperature T", min: -2, max: 1, step: 0.01, value: 0, format: (v) => (10 ** v).toPrecision(3) });
    this._alpha.input.addEventListener("input", () => this._user({ alpha: Number(this._alpha.input.value) }));
    this._lambda.input.addEventListener("input", () => this._user({ lambda: Number(this._lambda.input.value) }));
    this._logT.input.addEventListener("input", () => this._user({ temperature: Number((10 ** Number(this._logT.input.value)).toPrecision(4)) }));
    const selRow = (label, values, attr) => {
      const l = htmlEl("label", {}, ctl);
      htmlEl("span", { text: label }, l);
      const sel = htmlEl("select", {}, l);
      for (const [v, t] of values) htmlEl("option", { value: v, text: t }, sel);
      sel.addEventListener("change", () => this._user({ [attr]: sel.value }));
      return sel;
    };
    this._cloudSel = selRow("100 random z", [["none", "none"], ["all", "all mappings"], ...NAMES.map((n) => [n, MAPPINGS[n].label])], "cloud");
    this._entSel = selRow("entropy behind", [["none", "none"], ["shannon", "Shannon"], ["tsallis", "Tsallis α"]], "entropy");
    // the keyboard's half of the hint is hidden on touch screens (pointer: coarse)
    const hint = htmlEl("p", { class: "hint", text: "Drag the bars or the ◇ score point" }, ctl);
    htmlEl("span", { class: "keys", text: "; keys work too" }, hint);
    hint.append(".");
  }

  // the 3-D view behind a disclosure button: open on a wide element, closed on a narrow one until
  // the reader chooses (then the choice stays)
  _build3d(grid) {
    const box = this._v3box = htmlEl("div", { class: "v3box" }, grid);
    this._v3btn = htmlEl("button", { type: "button", class: "v3-toggle", "aria-controls": "v3", "aria-expanded": "false", text: "3-D view" }, box);
    this._v3btn.addEventListener("click", () => { this._v3open = !this._open3d(); this._show3d(); });
    const v3 = this._v3 = svgEl("svg", { id: "v3", class: "picture v3 focusable", viewBox: "0 0 300 350", tabindex: 0, role: "slider",
      "aria-label": "rotation of the 3-D view (drag, or arrow keys)", "aria-valuemin": -180, "aria-valuemax": 180 }, box);
    this._view3 = { svg: v3, g: svgEl("g", {}, v3) };
    svgEl("text", { x: 8, y: 16, class: "muted" }, v3).textContent = "scores → simplex in 3-D (drag to turn)";
    let last = null;
    draggable(v3, (e) => {
      if (last) this._rotate((e.clientX - last[0]) * 0.01, (e.clientY - last[1]) * 0.01);
      last = [e.clientX, e.clientY];
    }, () => { last = null; });
    v3.addEventListener("keydown", (e) => {
      const d = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, -0.1], ArrowDown: [0, 0.1] }[e.key];
      if (d) { e.preventDefault(); this._rotate(d[0], d[1]); }
    });
    this._wide = this._contentWidth() >= NARROW;
    this._show3d();
  }

  _open3d() { return this._v3open ?? this._wide; }

  // the width container queries see: the host's content box
  _contentWidth() {
    const cs = getComputedStyle(this);
    return this.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  }

  _show3d() {
    const open = this._open3d();
    this._v3btn.setAttribute("aria-expanded", String(open));
    this._v3.style.display = open ? "" : "none";
    this.invalidate();
  }

  // On resize: each picture's --zoom (so its text stays MIN_TEXT px or more on screen, and the
  // score point's target 44 px), and the 3-D view's default, open from NARROW px wide. --zoom goes
  // in a stylesheet of this element's own (a style attribute would break a strict CSP's export).
  _watchSize() {
    if (typeof ResizeObserver !== "function") return;
    const zooms = new CSSStyleSheet(), zoom = new Map();
    this.shadowRoot.adoptedStyleSheets = [...this.shadowRoot.adoptedStyleSheets, zooms];
    const ro = new ResizeObserver((entries) => {
      for (const { target, contentRect } of entries) {
        if (target === this) {
          const wide = contentRect.width >= NARROW;
          if (wide !== this._wide) { this._wide = wide; if (this._v3open === undefined) this._show3d(); }
        } else if (contentRect.width > 0) {
          const z = target.viewBox.baseVal.width / contentRect.width;
          zoom.set(target === this._tri ? "tri" : target === this._bars ? "bars" : "v3", z);
          if (target === this._tri) this._scoreHit.setAttribute("r", Math.max(16, 22 * z).toFixed(1));
        }
      }
      zooms.replaceSync([...zoom].map(([c, z]) => `svg.${c} { --zoom: ${z.toFixed(3)}; }`).join("\n"));
    });
    for (const target of [this, this._tri, this._bars, this._v3]) ro.observe(target);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { scores: this.scores, alpha: this.alpha, lambda: this.lambda, temperature: this.temperature });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.min(ZMAX, Math.max(-ZMAX, Math.round(v * 100) / 100));
    this._user({ scores: z });
  }

  _dragPoint(e) {
    if (!this._dragging) return;
    const [x, y] = svgPoint(this._tri, e);
    const q = ternaryFromXY(x - OX, y - OY, S, 0);
    const z = this.scores, T = this.temperature, mean = (z[0] + z[1] + z[2]) / 3;
    this._user({ scores: q.map((v) => Math.min(ZMAX, Math.max(-ZMAX, Math.round((T * (v - 1 / 3) + mean) * 100) / 100))) });
  }

  _keyPoint(e) {
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
    if (!d) return;
    e.preventDefault();
    const z = this.scores, T = this.temperature, mean = (z[0] + z[1] + z[2]) / 3;
    const q = z.map((v) => (v - mean) / T + 1 / 3);
    const [x, y] = ternaryXY(q, S, 0);
    const step = e.shiftKey ? 20 : 5;
    const q2 = ternaryFromXY(x + d[0] * step, y + d[1] * step, S, 0);
    this._user({ scores: q2.map((v) => Math.min(ZMAX, Math.max(-ZMAX, Math.round((T * (v - 1 / 3) + mean) * 100) / 100))) });
  }

  _rotate(dy, dp) {
    this.yaw = Number((this.yaw + dy).toFixed(3));
    this.pitch = Number(Math.max(-1.5, Math.min(1.5, this.pitch + dp)).toFixed(3));
  }

  opts(name, s) {
    const o = { n: 3, temperature: s.temperature };
    if (name === "entmax") o.alpha = s.alpha;
    if (name === "fusedmax") o.lambda = s.lambda;
    if (name === "oscarmax") o.beta = s.beta;
    return o;
  }

  render(s) {
    const z = new Float32Array(s.scores);
    const T = s.temperature;
    this._v3box.style.display = s.view === "both" ? "" : "none";
    this._grid.classList.toggle("single", s.view !== "both");
    // controls follow the attributes
    this._alpha.set(s.alpha); this._lambda.set(s.lambda); this._logT.set(Math.log10(T));
    this._cloudSel.value = s.cloud; this._entSel.value = s.entropy;
    // only the parameters of the mappings shown
    const uses = (name) => s.mappings.includes(name) || s.cloud === name;
    this._alpha.root.style.display = uses("entmax") || s.entropy === "tsallis" ? "" : "none";
    this._lambda.root.style.display = uses("fusedmax") ? "" : "none";
    // entropy layer: only when its inputs change
    const ek = `${s.entropy}|${s.alpha}|${s.theme}`;
    if (ek !== this._keys.entropy) {
      this._keys.entropy = ek;
      if (s.entropy === "none") this._entropyG.replaceChildren();
      else drawEntropy(this._entropyG, { alpha: s.entropy === "shannon" ? 1 : s.alpha, side: S, color: themeColors(this) });
    }
    // mapping points
    const results = s.mappings.map((name) => ({ name, p: MAPPINGS[name].run(z, this.opts(name, s)) }));
    const mk = s.mappings.join();
    if (mk !== this._keys.points) {
      this._keys.points = mk;
      this._ptsG.replaceChildren();
      this._ptEls = s.mappings.map((name, k) => {
        const c = svgEl("circle", { class: `pt m-${name}`, r: 8 - k * 0.6 }, this._ptsG);
        svgEl("title", {}, c);
        return c;
      });
    }
    const hot = [false, false, false];
    results.forEach(({ name, p }, k) => {
      const [x, y] = ternaryXY(p, S, 0);
      const c = this._ptEls[k];
      c.setAttribute("cx", x.toFixed(2)); c.setAttribute("cy", y.toFixed(2));
      const zeros = [0, 1, 2].filter((i) => p[i] === 0);
      c.classList.toggle("on-edge", zeros.length > 0);
      for (const i of zeros) hot[i] = true;
      c.firstChild.textContent = `${MAPPINGS[name].label}: [${Array.from(p, (v) => fmt(v, 3)).join(", ")}]`;
    });
    this._edges.forEach((e, i) => e.classList.toggle("hot", hot[i]));
    // the score point z / T in the plane of the simplex, and its projection (sparsemax)
    const mean = (z[0] + z[1] + z[2]) / 3;
    const q = Array.from(z, (v) => (v - mean) / T + 1 / 3);
    let [sx, sy] = ternaryXY(q, S, 0);
    const cx = Math.min(W - OX - 8, Math.max(8 - OX, sx)), cy = Math.min(HT - OY - 8, Math.max(8 - OY, sy));
    this._score.setAttribute("transform", `translate(${cx.toFixed(2)},${cy.toFixed(2)})`);
    // a 2-D handle has no aria-value*: the scores go into its name
    this._score.setAttribute("aria-label", `score point z / T, scores ${Array.from(z, (v) => fmt(v)).join(", ")}; arrow keys move it`);
    const sp = results.find((r) => r.name === "sparsemax");
    if (sp) {
      const [px, py] = ternaryXY(sp.p, S, 0);
      for (const [a, v] of [["x1", cx], ["y1", cy], ["x2", px], ["y2", py]]) this._proj.setAttribute(a, v.toFixed(2));
      this._proj.style.display = "";
    } else this._proj.style.display = "none";
    // the cloud of 100 random score vectors, recomputed only when the mapping inputs change
    const cloudNames = s.cloud === "none" ? [] : s.cloud === "all" ? s.mappings : [s.cloud];
    const ck = `${cloudNames}|${T}|${s.alpha}|${s.lambda}|${s.beta}`;
    if (ck !== this._keys.cloud) {
      this._keys.cloud = ck;
      this._cloudP = cloudNames.map((name) => ({ name, p: MAPPINGS[name].run(CLOUD, this.opts(name, s)) }));
      this._cloudG.replaceChildren();
      for (const { name, p } of this._cloudP) {
        const g = svgEl("g", { class: `m-${name}` }, this._cloudG);
        for (let i = 0; i < p.length; i += 3) {
          const [x, y] = ternaryXY(p.subarray(i, i + 3), S, 0);
          svgEl("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.4 }, g);
        }
      }
    }
    // bars
    this._barEls.forEach((b, i) => {
      const y0 = this._ys(0), y1 = this._ys(z[i]);
      b.bar.setAttribute("y", Math.min(y0, y1).toFixed(1));
      b.bar.setAttribute("height", Math.abs(y1 - y0).toFixed(1));
      b.bar.classList.toggle("neg", z[i] < 0);
      b.value.setAttribute("y", (z[i] >= 0 ? y1 - 13 : y1 + 24).toFixed(1));
      b.value.textContent = fmt(z[i]);
      for (const c of b.h.children) c.setAttribute("cy", y1.toFixed(1));
      b.h.setAttribute("aria-valuenow", fmt(z[i]));
      b.h.setAttribute("aria-valuetext", fmt(z[i]));
    });
    // the numbers
    this._tbody.replaceChildren();
    for (const { name, p } of results) {
      const tr = htmlEl("tr", {}, this._tbody);
      const td = htmlEl("td", {}, tr);
      htmlEl("span", { class: `swatch m-${name}` }, td);
      td.append(MAPPINGS[name].label + (name === "entmax" ? ` (α = ${fmt(s.alpha)})` : name === "fusedmax" ? ` (λ = ${fmt(s.lambda)})` : name === "oscarmax" ? ` (β = ${fmt(s.beta)})` : ""));
      let zeros = 0;
      for (const v of p) {
        const c = htmlEl("td", { text: v === 0 ? "0" : v.toFixed(4) }, tr);
        if (v === 0) { c.className = "zero"; zeros++; }
      }
      htmlEl("td", { text: String(zeros) }, tr);
    }
    this._results = results;
    // the 3-D view, when shown (last: it may throw the failure to fetch its module)
    if (s.view === "both" && this._open3d()) this._render3d(s, z, results);
  }

  // the pictures shown (the SVG and PNG export): the triangle, and the 3-D view when open
  pictures() {
    return this.view === "both" && this._open3d() ? [this._tri, this._v3] : [this._tri];
  }

  // The 3-D view's module, fetched the first time the view is shown; until it arrives the view
  // stays empty, and a failure to fetch it is the widget's message.
  _render3d(s, z, results) {
    if (this._draw3d) return this._draw3d(this._view3, s, z, results, CLOUD, this._cloudP, this._keys.cloud);
    this._load3d ??= import("./simplex-3d.js").then((m) => {
      this.shadowRoot.adoptedStyleSheets = [...this.shadowRoot.adoptedStyleSheets, m.SHEET_3D];
      this._draw3d = m.draw3d;
      this.invalidate();
    }, (err) => { this._err3d = new Error(`the 3-D view: ${err.message}`); this.invalidate(); });
    if (this._err3d) throw this._err3d;
  }

}

define("sx-simplex", SxSimplex);
