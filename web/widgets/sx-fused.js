// <sx-fused>: structured sparse attention over a sequence. The scores are bars you drag; below,
// the weights of sparsemax, fusedmax (neighbours fuse into runs of equal weight, lambda) and
// oscarmax (close scores cluster into equal weights anywhere, beta).
//   <sx-fused scores="0.2 1.1 1 1.05 0.3 -0.4 0.9 0.95 0.1 -0.2" lambda="0.2" beta="0.03"></sx-fused>
// Events: sx-fused-change { scores, lambda, beta }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, sliderKey, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { linear } from "../viz/scale.js";
import { fusedRuns } from "../viz/runs.js";

const W = 560, L = 92, R = 10, ZR = 2.5;
const ROWS = [["sparsemax", "sparsemax"], ["fusedmax", "fusedmax (λ)"], ["oscarmax", "oscarmax (β)"]];

const CSS = sheet(`
svg.picture { max-width: 720px; }
.bar { fill: var(--_muted); opacity: 0.55; }
.knob { fill: var(--_accent); stroke: var(--_bg); stroke-width: 1.5; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.w { stroke: none; }
.w.zero { fill: none; stroke: var(--_grid); stroke-dasharray: 2 2; }
.run { fill: var(--_fusedmax); fill-opacity: 0.16; stroke: var(--_fusedmax); stroke-opacity: 0.7; }
.cluster { fill: none; stroke: var(--_oscarmax); stroke-width: 2; }
.zero-line { stroke: var(--_muted); }
.label { font-weight: 600; stroke: none; }
.controls { max-width: 28rem; }
.readout { font-variant-numeric: tabular-nums; margin: 0.3rem 0 0; }
`);

export class SxFused extends SxElement {
  static spec = {
    scores: { type: "numbers", default: [0.2, 1.1, 1.0, 1.05, 0.3, -0.4, 0.9, 0.95, 0.1, -0.2], minLength: 2, maxLength: 24, min: -ZR, max: ZR },
    lambda: { type: "number", default: 0.2, min: 0, max: 2 },
    beta: { type: "number", default: 0.03, min: 0, max: 1 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} 400`, role: "group", "aria-label": "scores as bars and the weights of three structured mappings" }, body);
    this._top = linear([-ZR, ZR], [140, 20]);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._lambda = rangeControl(ctl, { label: "λ (fusedmax)", min: 0, max: 1, step: 0.01, value: 0.2, format: (v) => fmt(v) });
    this._beta = rangeControl(ctl, { label: "β (oscarmax)", min: 0, max: 0.2, step: 0.005, value: 0.03, format: (v) => fmt(v, 3) });
    this._lambda.input.addEventListener("input", () => this._user({ lambda: Number(this._lambda.input.value) }));
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
    this.emit("change", { scores: this.scores, lambda: this.lambda, beta: this.beta });
  }

  _setScore(i, v) {
    const z = this.scores.slice();
    z[i] = Math.round(Math.max(-ZR, Math.min(ZR, v)) * 100) / 100;
    this._user({ scores: z });
  }

  render(s) {
    const z = s.scores, n = z.length, svg = this._svg, bw = (W - L - R) / n, ys = this._top;
    this._lambda.set(s.lambda); this._beta.set(s.beta);
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
        const h = svgEl("g", { role: "slider", tabindex: 0, "aria-label": `score ${i + 1}`, "aria-valuemin": -ZR, "aria-valuemax": ZR, "aria-orientation": "vertical" }, svg);
        svgEl("circle", { class: "ring", r: 10, cx: x0(i) + bw / 2 }, h);
        svgEl("circle", { class: "knob", r: 6, cx: x0(i) + bw / 2 }, h);
        h.addEventListener("keydown", (e) => {
          const v = sliderKey(e.key, this.scores[i], { min: -ZR, max: ZR, step: 0.05, page: 0.5 });
          if (v !== null) { e.preventDefault(); this._setScore(i, v); }
        });
        return { bar, h };
      });
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
      const top = 170 + r * 77, hgt = 58;
      const y = linear([0, 1], [top + hgt, top]);
      const o = name === "fusedmax" ? { lambda: s.lambda } : name === "oscarmax" ? { beta: s.beta } : {};
      const p = MAPPINGS[name].run(z, o);
      svgEl("text", { x: 4, y: top + hgt / 2, class: `label m-${name}` }, g).textContent = name;
      svgEl("text", { x: 4, y: top + hgt / 2 + 15, class: "muted" }, g).textContent =
        name === "fusedmax" ? `λ = ${fmt(s.lambda)}` : name === "oscarmax" ? `β = ${fmt(s.beta, 3)}` : "";
      svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: y(0), y2: y(0) }, g);
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
      let groups = "";
      if (name === "oscarmax") {
        // clusters: equal non-zero weights anywhere, outlined
        const seen = new Map();
        p.forEach((v, i) => { if (v > 0) { const k = v.toPrecision(5); seen.set(k, [...(seen.get(k) || []), i]); } });
        const clusters = [...seen.values()].filter((c) => c.length > 1);
        for (const c of clusters) for (const i of c) svgEl("rect", { class: "cluster", x: x0(i) + bw * 0.2, width: bw * 0.6, y: y(p[i]), height: y(0) - y(p[i]) }, g);
        groups = `, ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} of equal weights`;
      }
      if (name === "fusedmax") { const k = fusedRuns(p).length; groups = `, ${k} fused run${k === 1 ? "" : "s"}`; }
      notes.push(`${name}: ${nz} of ${n} non-zero${groups}`);
    });
    this._readout.textContent = notes.join(" · ");
  }
}

define("sx-fused", SxFused);
