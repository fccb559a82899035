// <sx-trajectory>: the path of mapping(t z) on the simplex as t grows from 0 (the uniform
// centre) to large (T = 1/t -> 0: the argmax corner), with a marker where the support changes.
//   <sx-trajectory scores="1.5 0 1" mappings="softmax entmax15 sparsemax" alpha="1.5" t="1" tmax="50">
// Each path is one batched call over 400 values of t; each support change is then located by
// bisection on t. The t slider moves a dot along every path; events: sx-trajectory-change { t }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, fmt, MAPPINGS } from "./base.js";
import { ternaryCorners, ternaryXY } from "./viz/ternary.js";
import { supportMask } from "./viz/support.js";

const NAMES = ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"];
const S = 280, OX = 40, OY = 40, SAMPLES = 400, TMIN = 0.01;

const CSS = sheet(`
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(224px, 1fr); gap: 16px; align-items: start; }
@container sx (max-width: 620px) { .layout { grid-template-columns: minmax(0, 1fr); } }
:host { container: sx / inline-size; }
svg.picture { max-width: 440px; }
.path { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
.change { stroke: var(--_bg); stroke-width: 1.5; }
.change-label { --_fs: 10.5px; stroke: none; }
.dot { stroke: var(--_fg); stroke-width: 2; }
.limit { fill: none; stroke: var(--_fg); stroke-dasharray: 2 2; }
.side p { margin: 3.2px 0; }
td.supp { text-align: left; }
@container (max-width: 300px) { td.supp, th:last-child { display: none; } } /* the line under the table names the supports */
`);

const supportName = (m) => ["A", "B", "C"].filter((_, i) => m & (1 << i)).join(", ");

export class SxTrajectory extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    scores: { type: "numbers", default: [1.5, 0, 1], minLength: 3, maxLength: 3, min: -10, max: 10 },
    mappings: { type: "enums", default: ["softmax", "entmax15", "sparsemax"], values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1, max: 4 },
    lambda: { type: "number", default: 0.3, min: 0, max: 2 },
    beta: { type: "number", default: 0.2, min: 0, max: 2 },
    t: { type: "number", default: 1, min: 0, max: 1e4 },
    tmax: { type: "number", default: 50, min: 1, max: 1e4 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const lay = htmlEl("div", { class: "layout" }, body);
    const svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${S + 2 * OX} ${S * 0.866 + OY + 34}`, role: "img", "aria-label": "paths of each mapping of t times the scores" }, lay);
    const g = this._g = svgEl("g", { transform: `translate(${OX},${OY})` }, svg);
    const c = ternaryCorners(S, 0);
    svgEl("path", { class: "edge", d: `M${c.map((p) => p.join(",")).join("L")}Z` }, g);
    [["A", 0, -10], ["B", -12, 16], ["C", 12, 16]].forEach(([t, dx, dy], i) => {
      svgEl("text", { x: c[i][0] + dx, y: c[i][1] + dy, "text-anchor": "middle", "font-weight": 600 }, g).textContent = t;
    });
    const [mx, my] = ternaryXY([1, 1, 1], S, 0);
    svgEl("circle", { cx: mx, cy: my, r: 3, class: "muted" }, g);
    svgEl("text", { x: mx + 6, y: my + 14, class: "muted" }, g).textContent = "t = 0";
    this._paths = svgEl("g", {}, g);
    this._dots = svgEl("g", {}, g);
    const side = htmlEl("div", { class: "side" }, lay);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, side);
    this._tCtl = rangeControl(ctl, { label: "t (= 1 / T)", min: -2, max: Math.log10(50), step: 0.01, value: 0, format: (v) => (10 ** v).toPrecision(3) });
    this._tCtl.input.addEventListener("input", () => {
      this.t = Number((10 ** Number(this._tCtl.input.value)).toPrecision(4));
      this.emit("change", { t: this.t });
    });
    this._table = htmlEl("table", { part: "table", "aria-label": "each mapping at the current t" }, side);
    this._changes = htmlEl("p", { class: "changes", part: "readout" }, side);
  }

  _run(name, x, s) {
    const o = { n: 3 };
    if (name === "entmax") o.alpha = s.alpha;
    if (name === "fusedmax") o.lambda = s.lambda;
    if (name === "oscarmax") o.beta = s.beta;
    return MAPPINGS[name].run(x, o);
  }

  render(s) {
    const z = s.scores;
    const key = `${z}|${s.mappings}|${s.alpha}|${s.lambda}|${s.beta}|${s.tmax}`;
    if (key !== this._key) {
      this._key = key;
      // t = 0, then a log grid from TMIN to tmax
      const ts = new Float64Array(SAMPLES + 1);
      for (let i = 1; i <= SAMPLES; i++) ts[i] = TMIN * (s.tmax / TMIN) ** ((i - 1) / (SAMPLES - 1));
      const x = new Float32Array(3 * (SAMPLES + 1));
      for (let i = 0; i <= SAMPLES; i++) for (let k = 0; k < 3; k++) x[3 * i + k] = ts[i] * z[k];
      this._paths.replaceChildren();
      const placed = [];
      this._tracks = s.mappings.map((name) => {
        const p = this._run(name, x, s);
        let d = "";
        const changes = [];
        for (let i = 0; i <= SAMPLES; i++) {
          const [px, py] = ternaryXY(p.subarray(3 * i, 3 * i + 3), S, 0);
          d += `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`;
          if (i > 0) {
            const a = supportMask(p, 3 * (i - 1)), b = supportMask(p, 3 * i);
            if (a !== b) changes.push({ t: this._bisect(name, z, s, ts[i - 1], ts[i], a), from: a, to: b });
          }
        }
        svgEl("path", { class: `path m-${name}`, d }, this._paths);
        for (const ch of changes) {
          const q = this._run(name, z.map((v) => v * ch.t), s);
          const [cx, cy] = ternaryXY(q, S, 0);
          const m = svgEl("circle", { class: `change m-${name}`, cx: cx.toFixed(1), cy: cy.toFixed(1), r: 5.5 }, this._paths);
          svgEl("title", {}, m).textContent = `${MAPPINGS[name].label}: support {${supportName(ch.from)}} → {${supportName(ch.to)}} at t = ${ch.t.toPrecision(3)}`;
          let ly = cy - 6;
          while (placed.some(([px, py]) => Math.abs(px - cx) < 40 && Math.abs(py - ly) < 12)) ly += 12;
          placed.push([cx, ly]);
          const lab = svgEl("text", { class: `change-label m-${name}`, x: (cx + 8).toFixed(1), y: ly.toFixed(1) }, this._paths);
          lab.textContent = `t=${ch.t.toPrecision(3)}`;
        }
        const last = p.subarray(3 * SAMPLES, 3 * SAMPLES + 3);
        return { name, changes, last };
      });
      this._dots.replaceChildren();
      this._dotEls = s.mappings.map((name) => svgEl("circle", { class: `dot m-${name}`, r: 6 }, this._dots));
      this._tCtl.input.max = String(Math.log10(s.tmax));
    }
    // the dot at the current t on every path, and the numbers
    const t = Math.min(s.t, s.tmax);
    this._tCtl.set(Math.log10(Math.max(TMIN, t)));
    this._table.replaceChildren();
    const head = htmlEl("tr", {}, this._table);
    for (const h of ["mapping", "p_A", "p_B", "p_C", "support"]) htmlEl("th", { text: h }, head);
    const notes = [];
    this._tracks.forEach(({ name, changes }, k) => {
      const p = this._run(name, z.map((v) => v * t), s);
      const [x, y] = ternaryXY(p, S, 0);
      this._dotEls[k].setAttribute("cx", x.toFixed(2)); this._dotEls[k].setAttribute("cy", y.toFixed(2));
      const tr = htmlEl("tr", {}, this._table);
      const td = htmlEl("td", {}, tr);
      htmlEl("span", { class: `swatch m-${name}` }, td);
      td.append(MAPPINGS[name].label + (name === "entmax" ? ` (α = ${fmt(s.alpha)})` : ""));
      for (const v of p) { const c = htmlEl("td", { text: v === 0 ? "0" : v.toFixed(4) }, tr); if (v === 0) c.className = "zero"; }
      htmlEl("td", { class: "supp", text: `{${supportName(supportMask(p))}}` }, tr);
      notes.push(`${MAPPINGS[name].label}: ${changes.length ? changes.map((c) => `loses {${supportName(c.from & ~c.to)}} at t = ${c.t.toPrecision(3)}`).join(", ") : "never loses an item (dense)"}`);
    });
    this._changes.textContent = `t = ${t.toPrecision(3)} (T = ${t > 0 ? (1 / t).toPrecision(3) : "∞"}). ` + notes.join("; ") + ".";
  }

  // The t in (lo, hi] where the support first differs from `mask`, to 1e-6 relative.
  _bisect(name, z, s, lo, hi, mask) {
    for (let it = 0; it < 40 && hi - lo > 1e-6 * hi; it++) {
      const mid = 0.5 * (lo + hi);
      const p = this._run(name, z.map((v) => v * mid), s);
      if (supportMask(p) === mask) lo = mid; else hi = mid;
    }
    return hi;
  }
}

define("sx-trajectory", SxTrajectory);
