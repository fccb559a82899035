// <sx-positions>: positional encodings. Four pictures of the library's positionalEncoding()
// (the same table the model adds to its embeddings, at base 10000):
//   matrix    the position x dimension matrix as a heatmap (seed 002's figure), rows the
//             positions 0 .. positions - 1, columns the dimensions (sin, cos, sin, cos, ...),
//             with the bits of each position beside it: column pair 0 flips fastest, like bit 0
//             of a binary counter, and each later pair turns slower, like a higher bit;
//   offset    PE(a) . PE(a + k) against the offset k, for every start a: every pair with the same
//             offset lands on one value (the spread at each k is drawn and printed), so the dot
//             product depends on the offset only;
//   rotation  column pair p as points on the unit circle: PE(i + k) is PE(i) turned by the angle
//             k w_p, the 2 x 2 block of the rotation M_k (its entries are PE(k)'s pair p);
//   relative  the relative encodings beside the absolute ones: Shaw et al.'s clipped distance
//             matrix clip(j - i, -K, K) (which row of the learned table each score reads) and
//             Transformer-XL's four score terms (relative: txlScores) for random q, k, u, v.
//   <sx-positions base="10000" dim="32" positions="48" offset="4" pair="1" position="3"
//                 clip="3" seed="1" theme="auto"></sx-positions>
// Under NARROW_PX (a phone) the pictures are drawn as wide as the widget, a unit a pixel, so that
// their text keeps its size: long lines wrapped, the rotation's text under its circle, the
// relative panels two a row.
// Keyboard: every control is a native slider (arrows, Page Up/Down, Home/End).
// Events: sx-positions-change { base, dim, positions, offset, pair, position, clip }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt } from "./base.js";
import { positionalEncoding, txlScores } from "../lib/simplexity.js";
import { mulberry32 } from "./viz/mulberry32.js";
import { linear } from "./viz/scale.js";

const WIDE = 720; // the pictures' width above NARROW_PX
const NARROW_PX = 560;
const N_REL = 9; // queries and keys of the relative panels
const num = (v, d = 2) => fmt(v, d).replace("-", "−");
const SHADES = 64; // the heatmap's opacity levels
const LINE = 14; // a line of text in a picture

// `text` as lines of at most `width` units at `size` px (about 0.62 em a character, a wide sans:
// a narrow picture's estimate, no measuring); one line where width is Infinity (a wide picture).
function wrap(text, width, size = 11) {
  const most = Math.max(8, Math.floor(width / (0.62 * size)));
  const out = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > most) { out.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...out, line] : out;
}

// Lines [text, class] drawn from (x, y), LINE apart, each wrapped to `width` ("label": 12 px and
// bold, else 11 px); returns the y of the next line.
function textLines(parent, x, y, lines, width) {
  for (const [text, cls] of lines) {
    for (const part of wrap(text, width, cls === "label" ? 12.6 : 11)) {
      svgEl("text", { x, y, class: cls }, parent).textContent = part;
      y += LINE;
    }
  }
  return y;
}

// The heatmap's cells as path data by key: +(shade + 1) for v >= 0, -(shade + 1) below, shade
// round(|v| SHADES); a row's run of cells with one key is one rectangle.
function cellPaths(pe, P, d, x0, top, cw, ch) {
  const out = new Map();
  const keyOf = (v) => (v >= 0 ? 1 : -1) * (Math.round(Math.abs(v) * SHADES) + 1);
  for (let t = 0; t < P; t++) {
    let c0 = 0, key = keyOf(pe[t * d]);
    for (let c = 1; c <= d; c++) {
      const k = c < d ? keyOf(pe[t * d + c]) : 0;
      if (k === key) continue;
      const w = (c - c0) * cw;
      out.set(key, (out.get(key) || "") + `M${x0 + c0 * cw},${top + t * ch}h${w}v${ch}h${-w}z`);
      c0 = c; key = k;
    }
  }
  return out;
}

const CSS = sheet(`
svg.picture { max-width: 760px; margin: 0 auto 6.4px; }
.pos { fill: var(--sx-pos, var(--_softmax)); }
.neg { fill: var(--sx-neg, var(--_sparsemax)); }
.bit1 { fill: var(--_fg); fill-opacity: 0.75; }
.bit0 { fill: var(--_grid); fill-opacity: 0.35; }
.mark { fill: none; stroke: var(--_accent); stroke-width: 1.6; }
.label { font-weight: 600; }
.small { font-size: 11px; }
.curve { fill: none; stroke: var(--_softmax); stroke-width: 1.8; }
.band { fill: var(--_accent); fill-opacity: 0.25; }
.dot { fill: var(--_accent); }
.circle { fill: none; stroke: var(--_grid); }
.orbit { fill: var(--_muted); fill-opacity: 0.55; }
.pi { fill: var(--_softmax); stroke: var(--_bg); stroke-width: 1.5; }
.pk { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; }
.arc { fill: none; stroke: var(--_accent); stroke-width: 1.8; }
.ray { stroke: var(--_muted); stroke-width: 1; }
.controls { grid-template-columns: repeat(auto-fit, minmax(min(272px, 100%), 1fr)); max-width: 736px; }
svg text.mono { white-space: pre; font-family: ui-monospace, monospace; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.hint { color: var(--_muted); font-size: 12px; margin: 3.2px 0 0; }
input[type="range"] { min-height: 24px; } /* touch targets of 24 px at least */
`);

export class SxPositions extends SxElement {
  static spec = {
    base: { type: "number", default: 10000, min: 2, max: 1e6 },
    dim: { type: "number", default: 32, min: 2, max: 64, integer: true },
    positions: { type: "number", default: 48, min: 8, max: 96, integer: true },
    offset: { type: "number", default: 4, min: 1, max: 95, integer: true },
    pair: { type: "number", default: 1, min: 0, max: 31, integer: true },
    position: { type: "number", default: 3, min: 0, max: 95, integer: true },
    clip: { type: "number", default: 3, min: 0, max: 16, integer: true },
    seed: { type: "number", default: 1, min: 0, max: 2 ** 31, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  /** The matrix drawn (positions x dim, the library's positionalEncoding), a copy; null before the first render. */
  get matrix() { return this._pe ? this._pe.slice() : null; }

  build(body) {
    const aria = (label) => ({ class: "picture", role: "img", "aria-label": label });
    this._matrixSvg = svgEl("svg", { ...aria("the positional encoding matrix, positions by dimensions, with the bits of each position"), viewBox: `0 0 ${WIDE} 300` }, body);
    this._offsetSvg = svgEl("svg", { ...aria("the dot product of two encodings against their offset"), viewBox: `0 0 ${WIDE} 210` }, body);
    this._rotSvg = svgEl("svg", { ...aria("one column pair as a rotation on the unit circle"), viewBox: `0 0 ${WIDE} 250` }, body);
    this._relSvg = svgEl("svg", { ...aria("relative encodings: Shaw's clipped distances and Transformer-XL's four terms"), viewBox: `0 0 ${WIDE} 200` }, body);

    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const c = (label, min, max, step, value, format) => rangeControl(ctl, { label, min, max, step, value, format });
    this._ctl = {
      base: c("base", 0.5, 6, 0.05, 4, (v) => String(Math.round(10 ** v))),
      dim: c("dimension d", 2, 64, 2, 32, String),
      positions: c("max position", 8, 96, 1, 48, (v) => String(v - 1)),
      offset: c("offset k", 1, 47, 1, 4, String),
      pair: c("column pair p", 0, 15, 1, 1, (v) => `${v} (cols ${2 * v}, ${2 * v + 1})`),
      position: c("position i", 0, 47, 1, 3, String),
      clip: c("Shaw's clip K", 0, 8, 1, 3, String),
    };
    for (const [k, ctrl] of Object.entries(this._ctl)) {
      ctrl.input.addEventListener("input", () => {
        const v = Number(ctrl.input.value);
        this._user({ [k]: k === "base" ? Math.round(10 ** v) : v });
      });
    }
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    htmlEl("p", { class: "hint", part: "hint", text: "PE(t)[2i] = sin(t / base^(2i/d)), PE(t)[2i+1] = cos(t / base^(2i/d)): the table the model adds to its embeddings (base 10000)." }, body);
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    const s = this.settings().s;
    this.emit("change", { base: s.base, dim: s.dim, positions: s.positions, offset: s.offset, pair: s.pair, position: s.position, clip: s.clip });
  }

  settings() {
    const r = super.settings();
    if (r.s.dim % 2) {
      r.errors.push(`dim="${r.s.dim}" is odd (the encoding pairs sin and cos columns); using ${r.s.dim - 1}`);
      r.s.dim -= 1;
    }
    return r;
  }

  // The pictures' width in units: WIDE, or on a narrow widget its width in px (a unit a pixel).
  _width() {
    const px = this._body.clientWidth;
    return px > 0 && px < NARROW_PX ? Math.max(240, Math.floor(px)) : WIDE;
  }

  render(s) {
    const P = s.positions, d = s.dim;
    // offsets and pairs are clamped to what the matrix holds (the sliders follow)
    const k = Math.min(s.offset, P - 1), p = Math.min(s.pair, d / 2 - 1), i = Math.min(s.position, P - 1 - k);
    const K = s.clip;
    // the width drawn at: a narrow widget draws again when it is resized
    const W = this._W = this._width();
    if (!this._resize && typeof ResizeObserver == "function") {
      this._resize = new ResizeObserver(() => { if (this._width() !== this._W) this.invalidate(); });
      this._resize.observe(this._body);
    }
    // a slider step redraws what it changes: the matrix, the offset curve and the relative panels
    // are kept while their inputs stay (the marks, dots and rotation move)
    const peKey = `${P}|${d}|${s.base}`;
    if (peKey !== this._peKey) { this._peKey = peKey; this._pe = positionalEncoding(P, d, { base: s.base }); }
    const key = `${peKey}|${W}`, fresh = key !== this._drawKey;
    this._drawKey = key;
    const pe = this._pe;
    const ctl = this._ctl;
    ctl.offset.input.max = String(P - 1);
    ctl.pair.input.max = String(d / 2 - 1);
    ctl.position.input.max = String(P - 1 - k);
    // the base slider moves in steps of 0.05 of log10(base), rounded to whole bases: left where it
    // already shows this base (snapped to log10 of the rounded base, it stuck at 4 below 10)
    if (Math.round(10 ** Number(ctl.base.input.value)) !== s.base) ctl.base.set(Math.log10(s.base));
    ctl.dim.set(d); ctl.positions.set(P); ctl.offset.set(k); ctl.pair.set(p);
    ctl.position.set(i); ctl.clip.set(K);
    ctl.base.output.textContent = String(s.base);
    ctl.base.input.setAttribute("aria-valuetext", `base ${s.base}`);

    this._drawMatrix(pe, P, d, i, k, p, fresh, W);
    const spread = this._drawOffsets(pe, P, d, i, fresh, W);
    const rot = this._drawRotation(pe, P, d, i, k, p, s.base, W);
    const rel = `${key}|${K}|${s.seed}`;
    if (rel !== this._relKey) { this._relKey = rel; this._drawRelative(s, K, d, W); }
    this._readout.textContent =
      `base ${s.base}, d = ${d}, positions 0–${P - 1}: pair p = ${p} turns at w = base^(−${2 * p}/${d}) = ${rot.w.toPrecision(3)} ` +
      `rad per position (wavelength ${rot.wavelength}) · PE(${i})·PE(${i + k}) = ${num(rot.dotIK, 4)}, and every pair at offset ${k} gives the same ` +
      `(largest spread over all offsets ${spread.toExponential(1)}) · M_${k} maps PE(${i}) to PE(${i + k}): ` +
      `block p = [[${num(rot.cs, 3)}, ${num(rot.sn, 3)}], [${num(-rot.sn, 3)}, ${num(rot.cs, 3)}]], off from PE(${i + k}) by ${rot.err.toExponential(1)}`;
  }
  // ------------------------------------------------------------------ the matrix + bits
  _drawMatrix(pe, P, d, i, k, p, fresh, W) {
    const svg = this._matrixSvg, narrow = W < WIDE;
    const nbits = Math.max(1, Math.ceil(Math.log2(P)));
    const left = 30, bitW = narrow ? 6 : 10, gap = narrow ? 14 : 26;
    const head = [[`the bits of t (low bit first) beside PE(t): position t (rows) × dimension (columns), d = ${d}`, "label"],
      ["blue > 0, red < 0; column pairs slow down from left to right, like higher bits", "muted small"]];
    const top = (narrow ? head.reduce((n, [t, c]) => n + wrap(t, W, c === "label" ? 12.6 : 11).length, 0) : 2) * LINE + 10;
    const cw = Math.max(narrow ? 2 : 4, Math.min(18, Math.floor((W - left - nbits * bitW - gap - 8) / d)));
    const ch = Math.max(3, Math.min(8, Math.floor(360 / P)));
    const x0 = left + nbits * bitW + gap, H = top + P * ch + (narrow ? 40 : 26);
    if (!fresh) return this._marks(svg, x0, top, cw, ch, P, d, i, k, p);
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    textLines(svg, narrow ? 0 : left, 14, head, narrow ? W : Infinity);
    svgEl("text", { x: left, y: top + P * ch + 12, class: "muted small" }, svg).textContent = "bits";
    // bits: column b is bit b of the position, two paths (set, clear)
    const bits = { 1: "", 0: "" }, bh = Math.max(1, ch - 0.6);
    for (let t = 0; t < P; t++) {
      for (let b = 0; b < nbits; b++) bits[(t >> b) & 1] += `M${left + b * bitW + 1},${top + t * ch}h${bitW - 2}v${bh}h${2 - bitW}z`;
    }
    const bitG = svgEl("g", { class: "bits", "data-x0": left + 1, "data-y0": top, "data-bit": bitW, "data-row": ch, "data-bits": nbits }, svg);
    for (const b of [1, 0]) if (bits[b]) svgEl("path", { class: `bit${b}`, d: bits[b] }, bitG);
    // the heatmap: colour the sign, opacity |v| in SHADES steps; one <path> per (sign, shade), runs
    // of equal cells in a row merged (up to 6144 cells: one element each took most of a step)
    const cells = svgEl("g", { class: "cells", part: "cells", "data-x0": x0, "data-y0": top, "data-cell": cw, "data-row": ch }, svg);
    for (const [key, path] of cellPaths(pe, P, d, x0, top, cw, ch)) {
      const lv = Math.abs(key) - 1;
      svgEl("path", { class: key > 0 ? "pos" : "neg", "fill-opacity": (lv / SHADES).toFixed(4), "data-shade": lv, d: path }, cells);
    }
    // position labels, the marked rows i and i + k and the marked pair p; dimension labels at
    // least 24 units apart ("dimension" under them on a narrow picture)
    for (let t = 0; t < P; t += P > 48 ? 10 : 5) {
      svgEl("text", { x: left - 4, y: top + t * ch + ch, "text-anchor": "end", class: "muted small" }, svg).textContent = String(t);
    }
    let step = d > 32 ? 8 : 4;
    while (narrow && step * cw < 24) step *= 2;
    for (let c = 0; c < d; c += step) {
      svgEl("text", { x: x0 + c * cw + cw / 2, y: top + P * ch + 12, "text-anchor": "middle", class: "muted small" }, svg).textContent = String(c);
    }
    svgEl("text", { x: x0 + d * cw, y: top + P * ch + (narrow ? 26 : 12), "text-anchor": "end", class: "muted small" }, svg).textContent = "dimension";
    this._markG = svgEl("g", { class: "marks" }, svg);
    this._marks(svg, x0, top, cw, ch, P, d, i, k, p);
  }

  // the marked rows i and i + k and the marked pair p (all a step of offset, pair or position redraws)
  _marks(svg, x0, top, cw, ch, P, d, i, k, p) {
    const g = this._markG;
    g.replaceChildren();
    for (const t of [i, i + k]) svgEl("rect", { class: "mark", x: x0 - 1, y: top + t * ch - 0.5, width: d * cw + 2, height: ch + 1 }, g);
    svgEl("rect", { class: "mark", x: x0 + 2 * p * cw, y: top - 2, width: 2 * cw, height: P * ch + 4 }, g);
  }

  // ------------------------------------------------------------------ dot product vs offset
  _drawOffsets(pe, P, d, i, fresh, W) {
    const svg = this._offsetSvg, narrow = W < WIDE;
    const title = "PE(a) · PE(a + k) against the offset k, for every start a";
    const sub = (a) => (narrow ? ["band: min–max over all starts (it has no width)", `dots: start a = ${a}`] : [`band: min–max over all starts (it has no width); dots: start a = ${a}`]);
    // a narrow picture: the title and the line under it wrapped, as many lines as the longest start takes
    const lines = narrow ? [title, ...sub(P - 1)].reduce((n, t, j) => n + wrap(t, W, j ? 11 : 12.6).length, 0) : 0;
    const left = narrow ? 40 : 60, right = W - 14, top = narrow ? lines * LINE + 10 : 30, bottom = top + 146;
    const kx = linear([-(P - 1), P - 1], [left, right]);
    const vy = linear([-d / 2, d / 2], [bottom, top]);
    if (fresh) {
      this._band(svg, pe, P, d, kx, vy, left, right, top, bottom);
      textLines(svg, narrow ? 0 : left, 14, [[title, "label"]], narrow ? W : Infinity);
      if (narrow) svg.setAttribute("viewBox", `0 0 ${W} ${bottom + 34}`);
      else svg.setAttribute("viewBox", `0 0 ${WIDE} 210`);
      this._sub = svgEl("g", { class: "sub" }, svg);
    } else this._dots.remove();
    const { lo, hi } = this._offsetData;
    this._sub.replaceChildren();
    if (narrow) textLines(this._sub, 0, 14 + LINE * wrap(title, W, 12.6).length, sub(i).map((t) => [t, "muted small"]), W);
    else svgEl("text", { x: left, y: 27, class: "muted small" }, this._sub).textContent = sub(i)[0];
    const dots = this._dots = svgEl("g", { class: "dots", part: "offset-dots" }, svg);
    let html = "";
    for (let k = -i; k <= P - 1 - i; k++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += pe[i * d + c] * pe[(i + k) * d + c];
      html += `<circle class="dot" cx="${kx(k).toFixed(1)}" cy="${vy(s).toFixed(1)}" r="2" data-k="${k}" data-v="${s}" data-lo="${lo[k + P - 1]}" data-hi="${hi[k + P - 1]}"/>`;
    }
    dots.innerHTML = html; // numbers only
    return this._offsetData.spread;
  }

  // the offset panel but for its dots: axes, and the band and curve over every start
  _band(svg, pe, P, d, kx, vy, left, right, top, bottom) {
    svg.replaceChildren();
    svgEl("line", { class: "axis", x1: left, x2: right, y1: vy(0), y2: vy(0) }, svg);
    svgEl("line", { class: "axis", x1: kx(0), x2: kx(0), y1: top, y2: bottom }, svg);
    for (const v of [-d / 2, 0, d / 2]) svgEl("text", { x: left - 6, y: vy(v) + 4, "text-anchor": "end", class: "muted small" }, svg).textContent = num(v, 0);
    for (const v of [-(P - 1), 0, P - 1]) svgEl("text", { x: kx(v), y: bottom + 16, "text-anchor": "middle", class: "muted small" }, svg).textContent = String(v);
    svgEl("text", { x: (kx(0) + right) / 2, y: bottom + 16, "text-anchor": "middle", class: "muted small" }, svg).textContent = "offset k";
    let spread = 0, line = "", bandTop = "", bandBottom = "";
    const lo = new Float64Array(2 * P - 1), hi = new Float64Array(2 * P - 1);
    for (let k = -(P - 1); k <= P - 1; k++) {
      let mn = Infinity, mx = -Infinity;
      for (let a = Math.max(0, -k); a < Math.min(P, P - k); a++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += pe[a * d + c] * pe[(a + k) * d + c];
        mn = Math.min(mn, s); mx = Math.max(mx, s);
      }
      lo[k + P - 1] = mn; hi[k + P - 1] = mx;
      spread = Math.max(spread, mx - mn);
      line += `${line ? "L" : "M"}${kx(k).toFixed(1)},${vy((mn + mx) / 2).toFixed(1)}`;
      bandTop += `${bandTop ? "L" : "M"}${kx(k).toFixed(1)},${(vy(mx) - 0.8).toFixed(1)}`;
    }
    for (let k = P - 1; k >= -(P - 1); k--) bandBottom += `L${kx(k).toFixed(1)},${(vy(lo[k + P - 1]) + 0.8).toFixed(1)}`;
    svgEl("path", { class: "band", d: `${bandTop}${bandBottom}Z` }, svg);
    svgEl("path", { class: "curve", d: line }, svg);
    this._offsetData = { lo, hi, spread };
  }

  // ------------------------------------------------------------------ the rotation
  _drawRotation(pe, P, d, i, k, p, base, W) {
    const svg = this._rotSvg, narrow = W < WIDE;
    const title = `column pair p = ${p}: (cos, sin) on the unit circle`;
    // a narrow picture: the circle under its title, centred, and the text under it
    const R = narrow ? Math.min(95, Math.floor(W / 2) - 48) : 95, cx = narrow ? W / 2 : 130;
    const cy = narrow ? wrap(title, W, 12.6).length * LINE + 12 + R : 128;
    const at = (t) => [cx + R * pe[t * d + 2 * p + 1], cy - R * pe[t * d + 2 * p]]; // (cos, sin)
    // the circle and the orbit of every position: kept while the matrix and the pair stay
    const key = `${this._drawKey}|${p}`;
    if (key !== this._orbitKey) {
      this._orbitKey = key;
      svg.replaceChildren();
      if (!narrow) svg.setAttribute("viewBox", `0 0 ${WIDE} 250`);
      textLines(svg, narrow ? 0 : 10, 14, [[title, "label"]], narrow ? W : Infinity);
      svgEl("circle", { class: "circle", cx, cy, r: R }, svg);
      svgEl("line", { class: "axis", x1: cx - R - 8, x2: cx + R + 8, y1: cy, y2: cy }, svg);
      svgEl("line", { class: "axis", x1: cx, x2: cx, y1: cy - R - 8, y2: cy + R + 8 }, svg);
      let html = "";
      for (let t = 0; t < P; t++) {
        const [x, y] = at(t);
        html += `<circle class="orbit" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.2"><title>PE(${t}) pair ${p}</title></circle>`;
      }
      svgEl("g", { class: "orbits" }, svg).innerHTML = html; // numbers only
      this._turnG = svgEl("g", { class: "turn" }, svg);
    }
    const g = this._turnG;
    g.replaceChildren();
    const w = base ** (-2 * p / d);
    // the arc from PE(i) to PE(i + k): k w radians counter-clockwise (drawn modulo full turns)
    const a0 = i * w, turn = k * w, shown = turn % (2 * Math.PI);
    const r2 = R * 0.55, steps = 48;
    let arc = "";
    for (let s = 0; s <= steps; s++) {
      const a = a0 + (shown * s) / steps;
      arc += `${s ? "L" : "M"}${(cx + r2 * Math.cos(a)).toFixed(1)},${(cy - r2 * Math.sin(a)).toFixed(1)}`;
    }
    svgEl("path", { class: "arc", d: arc }, g);
    const [xi, yi] = at(i), [xk, yk] = at(i + k);
    svgEl("line", { class: "ray", x1: cx, y1: cy, x2: xi, y2: yi }, g);
    svgEl("line", { class: "ray", x1: cx, y1: cy, x2: xk, y2: yk }, g);
    svgEl("circle", { class: "pi", cx: xi, cy: yi, r: 6 }, g);
    svgEl("circle", { class: "pk", cx: xk, cy: yk, r: 6 }, g);
    svgEl("text", { x: xi + 8, y: yi - 6, class: "small" }, g).textContent = `PE(${i})`;
    svgEl("text", { x: xk + 8, y: yk + 14, class: "small" }, g).textContent = `PE(${i + k})`;
    // the block of M_k, read off PE(k): [[cos k w, sin k w], [-sin k w, cos k w]] on (sin, cos)
    const sn = pe[k * d + 2 * p], cs = pe[k * d + 2 * p + 1];
    const s0 = pe[i * d + 2 * p], c0 = pe[i * d + 2 * p + 1];
    const s1 = cs * s0 + sn * c0, c1 = -sn * s0 + cs * c0;
    const err = Math.max(Math.abs(s1 - pe[(i + k) * d + 2 * p]), Math.abs(c1 - pe[(i + k) * d + 2 * p + 1]));
    let dotIK = 0;
    for (let c = 0; c < d; c++) dotIK += pe[i * d + c] * pe[(i + k) * d + c];
    const matrix = narrow
      ? (a, b, x, eq) => `[${x}(t+k)w] ${eq} [${a.padStart(6)} ${b.padStart(6)}] [${x} tw]`
      : (a, b, x, eq) => `  [ ${x}(t+k)w ] ${eq} [ ${a}  ${b} ] [ ${x} tw ]`;
    const lines = [
      [`w_p = base^(−2p/d) = ${w.toPrecision(4)} rad per position`, ""],
      [`M_${k} turns pair p by k w_p = ${num(turn, 3)} rad${turn > 2 * Math.PI ? ` (${num(turn / (2 * Math.PI), 2)} turns)` : ""}:`, ""],
      [matrix(num(cs, 3), num(sn, 3), "sin", " "), "mono"],
      [matrix(num(-sn, 3), num(cs, 3), "cos", "="), "mono"],
      [`its entries are PE(${k})'s pair p: sin k w = ${num(sn, 3)}, cos k w = ${num(cs, 3)}`, ""],
      [`M_${k} PE(${i}) = (${num(s1, 4)}, ${num(c1, 4)}),  PE(${i + k}) = (${num(pe[(i + k) * d + 2 * p], 4)}, ${num(pe[(i + k) * d + 2 * p + 1], 4)})`, ""],
      ["the same M_k for every i: it depends on the offset k only", "muted"],
    ];
    if (narrow) this._rotText(g, lines, cy + R + 30, W);
    else {
      lines.forEach(([text, cls], j) => {
        const t = svgEl("text", { x: 280, y: 50 + j * 22, class: `small ${cls}` }, g);
        t.textContent = text;
      });
    }
    const wavelength = (2 * Math.PI) / w;
    return { w, cs, sn, err, dotIK, wavelength: wavelength < 1e4 ? num(wavelength, 1) : wavelength.toExponential(1) };
  }

  // The rotation's text on a narrow picture: under the circle from y, each line wrapped to W (a
  // line of the matrix kept whole), a line space between items; the viewBox ends under it.
  _rotText(g, lines, y, W) {
    for (const [text, cls] of lines) {
      for (const part of cls === "mono" ? [text] : wrap(text, W)) {
        svgEl("text", { x: 0, y, class: `small ${cls}` }, g).textContent = part;
        y += LINE;
      }
      y += 4;
    }
    this._rotSvg.setAttribute("viewBox", `0 0 ${W} ${y - 8}`);
  }

  // ------------------------------------------------------------------ relative encodings
  _drawRelative(s, K, d, W) {
    const svg = this._relSvg, narrow = W < WIDE;
    svg.replaceChildren();
    // six panels: in a row, or on a narrow picture two a row (without the "=" before the sum)
    const n = N_REL, cell = 11, gapX = 18, left = narrow ? 0 : 10, cols = narrow ? 2 : 6;
    const top = textLines(svg, left, 14, [["relative encodings", "label"],
      [`Shaw et al.: score e_ij reads row clip(j − i, −${K}, ${K}) + ${K} of a learned table (a parameter, not drawn)`, "muted small"],
      [`Transformer-XL: q_i·k_j + q_i·r_(i−j) + u·k_j + v·r_(i−j), r_t = PE(t), for random q, k, u, v (seed ${s.seed}), ${N_REL} queries and keys`, "muted small"]],
    narrow ? W : Infinity) - 4;
    const pw = n * cell + gapX, rowH = n * cell + 46;
    const at = (m) => [left + (m % cols) * pw + (narrow ? 0 : m && 10 + (m === 5) * 10), top + Math.floor(m / cols) * rowH];
    const panel = (m, title, values, max, kind) => {
      const [x, y] = at(m);
      const g = svgEl("g", { class: `rel ${kind}`, part: `rel-${kind}` }, svg);
      let html = "";
      for (let a = 0; a < n; a++) {
        for (let b = 0; b < n; b++) {
          const v = values[a * n + b];
          html += `<rect class="${v >= 0 ? "pos" : "neg"}" fill-opacity="${Math.min(1, Math.abs(v) / (max || 1)).toFixed(3)}" x="${x + b * cell}" y="${y + a * cell}" width="${cell - 0.5}" height="${cell - 0.5}" data-v="${v}"/>`;
        }
      }
      g.innerHTML = html; // numbers only (parsed at once: several times faster than a call per rect)
      svgEl("text", { x, y: y + n * cell + 14, class: "small" }, svg).textContent = title[0];
      svgEl("text", { x, y: y + n * cell + 28, class: "muted small" }, svg).textContent = title[1];
    };
    // Shaw: the clipped distance j - i (the table row read), signed
    const dist = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = Math.max(-K, Math.min(K, b - a));
    panel(0, ["Shaw: clip(j − i)", `${2 * K + 1} table rows`], dist, Math.max(1, K), "shaw");
    // Transformer-XL: the four terms for random q, k (n x d), u, v (d)
    const rnd = mulberry32(s.seed * 7919 + 13);
    const vec = (len) => Float32Array.from({ length: len }, () => (rnd() * 2 - 1));
    const q = vec(n * d), k = vec(n * d), u = vec(d), v = vec(d);
    const { out, terms } = txlScores(q, k, { u, v, base: s.base, terms: true });
    let max = 0;
    for (const x of terms) max = Math.max(max, Math.abs(x));
    const names = [["(a) q·k", "content"], ["(b) q·r", "content-position"], ["(c) u·k", "global content"], ["(d) v·r", "global position"]];
    for (let m = 0; m < 4; m++) panel(m + 1, names[m], terms.subarray(m * n * n, (m + 1) * n * n), max, `txl-${m}`);
    let omax = 0;
    for (const x of out) omax = Math.max(omax, Math.abs(x));
    panel(5, ["score = a + b + c + d", "txlScores()"], out, omax, "txl-sum");
    if (!narrow) svgEl("text", { x: at(5)[0] - 12, y: top + (n * cell) / 2 + 4, "text-anchor": "middle", class: "label" }, svg).textContent = "=";
    svg.setAttribute("viewBox", `0 0 ${W} ${narrow ? top + 3 * rowH - 12 : 200}`);
  }
}

define("sx-positions", SxPositions);
