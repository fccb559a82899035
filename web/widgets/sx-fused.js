// <sx-fused>: structured sparse attention over a sequence. The scores are bars you drag; below,
// the weights of sparsemax, fusedmax (neighbours fuse into runs of equal weight, lambda),
// oscarmax (close scores cluster into equal weights anywhere, beta), groupmax (groups given in
// advance, `groups`, die whole, group-lambda) and, for contrast, sigmoid (independent weights,
// not on the simplex: their sum is printed).
//   <sx-fused scores="0.2 1.1 1 1.05 0.3 -0.4 0.9 0.95 0.1 -0.2" lambda="0.2" beta="0.03"
//             groups="3 3 2 2" group-lambda="0.3"></sx-fused>
// Events: sx-fused-change { scores, lambda, beta, groupLambda }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { handleRow } from "./handle-row.js";
import { groupmax, sigmoid } from "../lib/mappings.js";
import { linear } from "./viz/scale.js";
import { fusedRuns } from "./viz/runs.js";

const W = 560, L = 92, R = 10, ZR = 2.5;
const ROWS = [["sparsemax", "sparsemax"], ["fusedmax", "fusedmax (λ)"], ["oscarmax", "oscarmax (β)"], ["groupmax", "groupmax (λ)"], ["sigmoid", "sigmoid"]];
const ROW_TOP = 170, ROW_STEP = 77, HEIGHT = ROW_TOP + ROWS.length * ROW_STEP;

/** Contiguous groups of about 3 for n scores, as equal as possible: 10 -> 3 3 2 2. */
function autoGroups(n) {
  const k = Math.ceil(n / 3), base = Math.floor(n / k), extra = n % k;
  return Array.from({ length: k }, (_, i) => base + (i < extra ? 1 : 0));
}

const CSS = sheet(`
svg.picture { max-width: 720px; }
.bar { fill: var(--_muted); opacity: 0.55; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.w { stroke: none; }
.w.zero { fill: none; stroke: var(--_grid); stroke-dasharray: 2 2; }
.run { fill: var(--_fusedmax); fill-opacity: 0.16; stroke: var(--_fusedmax); stroke-opacity: 0.7; }
.cluster { fill: none; stroke: var(--_oscarmax); stroke-width: 2; }
/* groupmax and sigmoid borrow the theme's entmax and softmax colours (sigmoid is softmax's
   numerator without the normaliser) */
.group { fill: var(--_entmax); fill-opacity: 0.12; stroke: var(--_entmax); stroke-opacity: 0.7; }
.group.dead { fill: none; stroke: var(--_muted); stroke-dasharray: 3 3; }
.m-groupmax { fill: var(--_entmax); stroke: var(--_entmax); }
.m-sigmoid { fill: var(--_softmax); stroke: var(--_softmax); }
.one-line { stroke: var(--_softmax); stroke-dasharray: 4 3; }
.zero-line { stroke: var(--_muted); }
.label { font-weight: 600; stroke: none; }
.controls { max-width: 448px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
`);

export class SxFused extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    scores: { type: "numbers", default: [0.2, 1.1, 1.0, 1.05, 0.3, -0.4, 0.9, 0.95, 0.1, -0.2], minLength: 2, maxLength: 24, min: -ZR, max: ZR },
    lambda: { type: "number", default: 0.2, min: 0, max: 2 },
    beta: { type: "number", default: 0.03, min: 0, max: 1 },
    groups: { type: "numbers", default: [3, 3, 2, 2], minLength: 1, maxLength: 24, min: 1, max: 24 },
    "group-lambda": { type: "number", default: 0.3, min: 0, max: 5 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)

  build(body) {
    this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${HEIGHT}`, role: "group", "aria-label": "scores as bars and the weights of four structured mappings and of sigmoid" }, body);
    this._top = linear([-ZR, ZR], [140, 20]);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._lambda = rangeControl(ctl, { label: "λ (fusedmax)", min: 0, max: 1, step: 0.01, value: 0.2, format: (v) => fmt(v) });
    this._beta = rangeControl(ctl, { label: "β (oscarmax)", min: 0, max: 0.2, step: 0.005, value: 0.03, format: (v) => fmt(v, 3) });
    this._glambda = rangeControl(ctl, { label: "λ (groupmax)", min: 0, max: 3, step: 0.05, value: 0.3, format: (v) => fmt(v), part: "group-lambda" });
    this._lambda.input.addEventListener("input", () => this._user({ lambda: Number(this._lambda.input.value) }));
    this._glambda.input.addEventListener("input", () => this._user({ groupLambda: Number(this._glambda.input.value) }));
    this._beta.input.addEventListener("input", () => this._user({ beta: Number(this._beta.input.value) }));
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    draggable(this._svg, (e) => {
      const [x, y] = svgPoint(this._svg, e);
      if (this._drag === undefined) return;
      this._setScore(this._drag, this._top.invert(y));
    }, (e) => {
      const [x, y] = svgPoint(this._svg, e);
      const n = this.scores.length, bw = (W - L - R) / n;
      const i = Math.floor((x - L) / bw);
      this._drag = y < 150 && i >= 0 && i < n ? i : undefined;
    });
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { scores: this.scores, lambda: this.lambda, beta: this.beta, groupLambda: this.groupLambda });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.round(Math.max(-ZR, Math.min(ZR, v)) * 100) / 100;
    this._user({ scores: z });
  }

  render(s) {
    const z = s.scores, n = z.length, svg = this._svg, bw = (W - L - R) / n, ys = this._top;
    this._lambda.set(s.lambda); this._beta.set(s.beta); this._glambda.set(s["group-lambda"]);
    // groups: as given when they are whole numbers summing to n, else about 3 each (and say so)
    let groups = s.groups, groupNote = "";
    const given = this.hasAttribute("groups");
    if (!given || groups.some((k) => !Number.isInteger(k)) || groups.reduce((a, b) => a + b, 0) !== n) {
      const auto = autoGroups(n);
      if (given) groupNote = ` (groups="${this.getAttribute("groups").slice(0, 40)}" are not whole sizes summing to ${n}; using ${auto.join(" ")})`;
      groups = auto;
    }
    const x0 = (i) => L + i * bw;
    if (n !== this._n) {
      // the score handles (one WAI-ARIA slider each), rebuilt only when the length changes
      this._n = n;
      svg.replaceChildren();
      svgEl("text", { x: 4, y: 24, class: "label" }, svg).textContent = "scores z";
      svgEl("text", { x: 4, y: 40, class: "muted" }, svg).textContent = "(drag bars)";
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: ys(0), y2: ys(0) }, svg);
      this._bars = z.map((_, i) => {
        const bar = svgEl("rect", { class: "bar", x: x0(i) + bw * 0.15, width: bw * 0.7 }, svg);
        const h = svgEl("g", { role: "slider", "aria-label": `score ${i + 1}`, "aria-valuemin": -ZR, "aria-valuemax": ZR, "aria-orientation": "vertical" }, svg);
        svgEl("circle", { class: "hit-r", r: 14, fill: "transparent", cx: x0(i) + bw / 2 }, h);
        svgEl("circle", { class: "ring", r: 10, cx: x0(i) + bw / 2 }, h);
        svgEl("circle", { class: "knob", r: 6, cx: x0(i) + bw / 2 }, h);
        return { bar, h };
      });
      // one tab stop for the row: ←/→ pick a bar, ↑/↓ (Page Up/Down, Home/End) change its score
      this._row = handleRow(this._bars.map((b) => b.h), (e, i) => {
        const v = sliderKey(e.key, this.scores[i], { min: -ZR, max: ZR, step: 0.05, page: 0.5 });
        if (v !== null) { e.preventDefault(); this._setScore(i, v); }
      }, this._row ? this._row.at : 0);
      this._out = svgEl("g", {}, svg);
    }
    this._bars.forEach(({ bar, h }, i) => {
      const y0 = ys(0), y1 = ys(z[i]);
      bar.setAttribute("y", Math.min(y0, y1).toFixed(1));
      bar.setAttribute("height", Math.max(0.5, Math.abs(y1 - y0)).toFixed(1));
      for (const c of h.children) c.setAttribute("cy", y1.toFixed(1));
      h.setAttribute("aria-valuenow", fmt(z[i]));
      h.setAttribute("aria-valuetext", fmt(z[i]));
    });
    // the three mappings, one row each, heights on a shared [0, 1] scale
    const g = this._out;
    g.replaceChildren();
    const notes = [];
    ROWS.forEach(([name, label], r) => {
      const top = ROW_TOP + r * ROW_STEP, hgt = 58;
      const y = linear([0, 1], [top + hgt, top]);
      const o = name === "fusedmax" ? { lambda: s.lambda } : name === "oscarmax" ? { beta: s.beta } : {};
      const p = name === "groupmax" ? groupmax(z, { groups, lambda: s["group-lambda"] })
        : name === "sigmoid" ? sigmoid(z) : MAPPINGS[name].run(z, o);
      svgEl("text", { x: 4, y: top + hgt / 2, class: `label m-${name}` }, g).textContent = name;
      svgEl("text", { x: 4, y: top + hgt / 2 + 15, class: "muted" }, g).textContent =
        name === "fusedmax" ? `λ = ${fmt(s.lambda)}` : name === "oscarmax" ? `β = ${fmt(s.beta, 3)}`
        : name === "groupmax" ? `λ = ${fmt(s["group-lambda"])}` : name === "sigmoid" ? "sum ≠ 1" : "";
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: y(0), y2: y(0) }, g);
      let alive = 0;
      if (name === "groupmax") {
        // the groups, outlined: dashed where the whole group is exactly 0
        let from = 0;
        for (const k of groups) {
          let mass = 0;
          for (let i = from; i < from + k; i++) mass += p[i];
          if (mass > 0) alive++;
          svgEl("title", {}, svgEl("rect", { class: mass > 0 ? "group" : "group dead", x: x0(from) + 2, width: k * bw - 4, y: top - 2, height: hgt + 4, rx: 4 }, g))
            .textContent = `group of ${k} (scores ${from + 1}-${from + k}): ${mass > 0 ? `weight ${mass.toFixed(4)}` : "exactly 0"}`;
          from += k;
        }
      }
      if (name === "sigmoid") svgEl("line", { class: "one-line", x1: L, x2: W - R, y1: y(1), y2: y(1) }, g);
      if (name === "fusedmax") {
        for (const run of fusedRuns(p)) {
          svgEl("rect", { class: "run", x: x0(run.start) + 2, width: (run.end - run.start) * bw - 4, y: y(run.value) - 4, height: y(0) - y(run.value) + 4, rx: 4 }, g);
        }
      }
      let nz = 0;
      p.forEach((v, i) => {
        if (v > 0) nz++;
        const cls = v === 0 ? "w zero" : `w m-${name}`;
        svgEl("title", {}, svgEl("rect", { class: cls, x: x0(i) + bw * 0.2, width: bw * 0.6, y: v === 0 ? y(0) - 2 : y(v), height: v === 0 ? 2 : y(0) - y(v) }, g))
          .textContent = `${name} weight ${i + 1}: ${v === 0 ? "exactly 0" : v.toFixed(4)}`;
      });
      let extra = "";
      if (name === "oscarmax") {
        // clusters: equal non-zero weights anywhere, outlined
        const seen = new Map();
        p.forEach((v, i) => { if (v > 0) { const k = v.toPrecision(5); seen.set(k, [...(seen.get(k) || []), i]); } });
        const clusters = [...seen.values()].filter((c) => c.length > 1);
        for (const c of clusters) for (const i of c) svgEl("rect", { class: "cluster", x: x0(i) + bw * 0.2, width: bw * 0.6, y: y(p[i]), height: y(0) - y(p[i]) }, g);
        extra = `, ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} of equal weights`;
      }
      if (name === "fusedmax") { const k = fusedRuns(p).length; extra = `, ${k} fused run${k === 1 ? "" : "s"}`; }
      if (name === "groupmax") extra = `, ${alive} of ${groups.length} groups alive${groupNote}`;
      if (name === "sigmoid") {
        const sum = p.reduce((a, b) => a + b, 0);
        notes.push(`sigmoid: sum ${sum.toFixed(2)} (not 1: independent weights)`);
        return;
      }
      notes.push(`${name}: ${nz} of ${n} non-zero${extra}`);
    });
    this._readout.textContent = notes.join(" · ");
  }
}

define("sx-fused", SxFused);
