// <sx-threshold>: the threshold tau of a sparse mapping, drawn. A row of scores as bars (drag
// them, or use the keyboard), the line at tau across them, the support lit (the bars above the
// line), the "water above the line" (sparsemax: the part of each bar above tau IS its weight;
// alpha-entmax: that part raised to 1/(alpha-1), drawn beside it) and the weights p below, exact
// zeros as hollow rings. Softmax has no threshold: no line, its log-sum-exp normaliser instead.
// "Show the steps" (or the steps attribute) walks through how tau is found: sparsemax's closed
// form (sort, cumulative sums, support size k) or entmax's bisection, a candidate line moving
// with it. tau itself comes from the library's threshold() (viz/threshold-steps.js recomputes it
// in float64 to show the steps, and the panel prints the difference).
//   <sx-threshold mapping="entmax" alpha="1.5" scores="1.2 0.3 -0.5 0.9 0.1"></sx-threshold>
// Keyboard: Tab reaches the bars (one stop), Left/Right pick a bar, Up/Down change its score by
// 0.05, Page Up/Down by 0.5, Home/End to -3/3.
// Events: sx-threshold-change { scores, tau, p, support, mapping, alpha }.
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, draggable, fmt, MAPPINGS } from "./base.js";
import { softmax, sparsemax, entmax15, entmax, threshold } from "../lib/mappings.js";
import { linear, ticks } from "./viz/scale.js";
import { randomScores } from "./viz/random-scores.js";
import { sparsemaxSteps, entmaxBisection, logSumExp, thresholdLine } from "./viz/threshold-steps.js";

const W = 640, L = 46, R = 96, ZR = 3;
// the score panel (its domain reaches below -ZR: sparsemax's line sits up to 1 below the top score)
const ZLO = -4, ZHI = 3.25, ZTOP = 22, ZBOT = 226;
// the weights panel
const PTOP = 270, PBOT = 354, H = 376;
const NAMES = ["sparsemax", "entmax15", "entmax", "softmax"];
const FORWARD = { softmax, sparsemax, entmax15, entmax };

const CSS = sheet(`
svg.picture { max-width: 760px; }
.bar { fill: var(--_muted); fill-opacity: 0.22; }
.bar.in { fill: var(--_m); fill-opacity: 0.3; }
.water { fill: var(--_m); fill-opacity: 0.85; }
.powered { fill: none; stroke: var(--_fg); stroke-width: 1.2; }
.cap { stroke: var(--_fg); stroke-width: 2; cursor: ns-resize; }
.bar-hit { fill: transparent; cursor: ns-resize; }
.ring { fill: none; stroke: transparent; }
.tau { stroke: var(--_fg); stroke-width: 2; }
.tau.off { stroke-dasharray: 6 4; }
.candidate { stroke: var(--_accent); stroke-width: 1.6; stroke-dasharray: 5 3; }
.zero-line { stroke: var(--_muted); }
.p { fill: var(--_m); }
.p.zero { fill: none; stroke: var(--_accent); stroke-width: 1.5; }
.p-label { --_fs: 10px; }
.p-label.zero { fill: var(--_accent); font-weight: 700; }
.label { font-weight: 600; }
.note { --_fs: 12px; }
.note-narrow { margin: 3.2px 0 0; font-size: 13px; }
.note-narrow[hidden] { display: none; }
@media not (pointer: coarse) { .touch { display: none; } }
.controls { max-width: 480px; }
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 5.6px 0 0; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; }
.steps { margin: 8px 0 0; }
.steps[hidden], .steps [hidden] { display: none; }
.steps p { margin: 4.8px 0; max-width: 736px; }
.table-wrap { max-height: 272px; overflow: auto; display: inline-block; border: 1px solid var(--_grid); border-radius: 6px; }
.table-wrap:focus-visible { outline: 2px solid var(--_accent); }
tr.current td { background: var(--_panel); }
tr.chosen td { font-weight: 700; }
${NAMES.map((k) => `svg.map-${k} { --_m: var(--_${k}); }`).join("\n")}
`);

export class SxThreshold extends SxElement {
  static fitText = true;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    n: { type: "number", default: 8, min: 1, max: 50, integer: true },
    scores: { type: "numbers", default: null, minLength: 1, maxLength: 50, min: -ZR, max: ZR },
    seed: { type: "number", default: 1, min: 0, max: 4294967295 },
    mapping: { type: "enum", default: "sparsemax", values: NAMES },
    alpha: { type: "number", default: 1.5, min: 1.01, max: 4 },
    temperature: { type: "number", default: 1, min: 0.1, max: 10 },
    steps: { type: "bool" },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const svg = this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${W} ${H}`, role: "group",
      "aria-label": "scores as bars, the threshold tau as a line across them, and the weights below" }, body);
    this._zy = linear([ZLO, ZHI], [ZBOT, ZTOP]);
    const zy = this._zy;
    const axis = svgEl("g", { class: "scores", "data-domain": `${ZLO} ${ZHI}`, "data-range": `${ZBOT} ${ZTOP}` }, svg);
    for (const v of ticks(-ZR, ZR, 6)) {
      svgEl("line", { class: v === 0 ? "zero-line" : "axis", x1: L, x2: W - R, y1: zy(v), y2: zy(v) }, axis);
      svgEl("text", { x: L - 6, y: zy(v) + 4, "text-anchor": "end", class: "muted" }, axis).textContent = String(v);
    }
    svgEl("text", { x: 4, y: 14, class: "label" }, svg).textContent = "scores z";
    this._bars = svgEl("g", {}, svg);
    this._water = svgEl("g", {}, svg);
    this._lines = svgEl("g", {}, svg);
    this._weights = svgEl("g", {}, svg);
    this._note = svgEl("text", { x: 72, y: 14, class: "note" }, svg);
    this._pLabel = svgEl("text", { x: 4, y: PTOP - 10, class: "label" }, svg);
    // drawn narrow (a phone), the formula goes under the picture: in it, it would run off its edge
    this._noteNarrow = htmlEl("p", { class: "note-narrow", part: "note" }, body);

    draggable(svg, (e) => {
      if (this._drag === undefined) return;
      this._setScore(this._drag, zy.invert(svgPoint(svg, e)[1]));
    }, (e) => {
      const [x, y] = svgPoint(svg, e);
      const n = this._n || 0, bw = (W - L - R) / Math.max(1, n);
      const i = Math.floor((x - L) / bw);
      this._drag = y >= ZTOP - 10 && y <= ZBOT + 4 && i >= 0 && i < n ? i : undefined;
      if (this._drag !== undefined) this._focus = i;
    });

    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    const l = htmlEl("label", {}, ctl);
    htmlEl("span", { text: "mapping" }, l);
    this._mapSel = htmlEl("select", {}, l);
    for (const k of NAMES) htmlEl("option", { value: k, text: MAPPINGS[k].label }, this._mapSel);
    this._mapSel.addEventListener("change", () => this._user({ mapping: this._mapSel.value }));
    this._alphaCtl = rangeControl(ctl, { label: "α (α-entmax)", min: 1.01, max: 4, step: 0.01, value: 1.5, format: (v) => fmt(v) });
    this._alphaCtl.input.addEventListener("input", () => this._user({ alpha: Number(this._alphaCtl.input.value) }));
    const row = htmlEl("div", { class: "row" }, body);
    this._stepsBtn = htmlEl("button", { type: "button", part: "button steps-button", class: "steps-toggle", "aria-expanded": "false" }, row);
    this._stepsBtn.addEventListener("click", () => { this.steps = !this.steps; });
    htmlEl("span", { class: "muted touch", text: "Drag a bar up or down to change its score." }, row);
    htmlEl("span", { class: "muted keys", text: "Keyboard: Tab to the bars, ←/→ pick one, ↑/↓ change it (Page Up/Down, Home/End)." }, row);
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);

    this._stepsBox = htmlEl("div", { class: "steps", part: "steps", id: "steps" }, body);
    this._stepsBtn.setAttribute("aria-controls", "steps");
    this._stepsText = htmlEl("p", {}, this._stepsBox);
    this._stepCtl = rangeControl(htmlEl("div", { class: "controls" }, this._stepsBox),
      { label: "candidate", min: 1, max: 1, step: 1, value: 1, format: (v) => String(v), part: "step-control" });
    this._stepCtl.input.addEventListener("input", () => { this._step = Number(this._stepCtl.input.value); this.invalidate(); });
    this._tableWrap = htmlEl("div", { class: "table-wrap", tabindex: 0, role: "group", "aria-label": "the steps, as a table (scrolls)" }, this._stepsBox);
    this._table = htmlEl("table", {}, this._tableWrap);
    this._stepsCheck = htmlEl("p", { class: "muted" }, this._stepsBox);
  }

  // The scores shown: the attribute, else n seeded random ones in [-1, 1.5] (two decimals).
  _scores(s) {
    if (s.scores) return s.scores;
    const n = Math.round(s.n);
    return Array.from(randomScores(1, n, Math.round(s.seed), -1, 1.5), (v) => Math.round(v * 100) / 100);
  }

  // Everything drawn and reported, from the settings: the library's p and tau, the line.
  _compute(s) {
    const scores = this._scores(s), n = scores.length, T = s.temperature;
    const x = Float32Array.from(scores);
    const opts = s.mapping === "entmax" ? { mapping: "entmax", alpha: s.alpha, temperature: T } : { mapping: s.mapping, temperature: T };
    const tau = threshold(x, opts)[0];
    const p = Array.from(FORWARD[s.mapping](x, s.mapping === "entmax" ? { alpha: s.alpha, temperature: T } : { temperature: T }));
    const alpha = s.mapping === "entmax15" ? 1.5 : s.mapping === "entmax" ? s.alpha : s.mapping === "sparsemax" ? 2 : 1;
    const line = thresholdLine(s.mapping, tau, { alpha, temperature: T });
    const support = [];
    p.forEach((v, i) => { if (v > 0) support.push(i); });
    return { scores, n, x, tau, p, line, support, alpha, T };
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    const { s } = this.settings();
    const c = this._compute(s);
    this.emit("change", { scores: c.scores, tau: c.tau, p: c.p, support: c.support, mapping: s.mapping, alpha: s.alpha });
  }

  _setScore(i, v) {
    const { s } = this.settings();
    const z = this._scores(s).slice();
    if (i < 0 || i >= z.length) return;
    z[i] = Math.round(Math.max(-ZR, Math.min(ZR, v)) * 100) / 100;
    this._user({ scores: z });
  }

  // Keys on a bar: the WAI-ARIA slider's (vertical) for its score, Left/Right to the next bar.
  _key(e, i) {
    const z = this._scores(this.settings().s)[i];
    const moves = { ArrowUp: z + 0.05, ArrowDown: z - 0.05, PageUp: z + 0.5, PageDown: z - 0.5, Home: -ZR, End: ZR };
    if (e.key in moves) {
      e.preventDefault();
      this._setScore(i, moves[e.key]);
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      const j = Math.max(0, Math.min(this._n - 1, i + (e.key === "ArrowLeft" ? -1 : 1)));
      this._focus = j;
      this._handles.forEach((h, k) => h.g.setAttribute("tabindex", k === j ? "0" : "-1"));
      this._handles[j].g.focus();
    }
  }

  render(s) {
    const c = this._compute(s), { scores: z, n, p, line, support, T } = c, zy = this._zy;
    this._svg.setAttribute("class", `picture map-${s.mapping}`);
    if (this._mapSel.value !== s.mapping) this._mapSel.value = s.mapping;
    this._alphaCtl.set(s.alpha);
    this._alphaCtl.input.disabled = s.mapping !== "entmax";
    const bw = (W - L - R) / n, x0 = (i) => L + i * bw, pad = Math.min(3, bw * 0.15);
    // drawn under 420 px wide: the formula under the picture, tau's label above its line, the
    // weights' scale in their title (the text, 11.5 px as drawn, would run past the edges)
    const narrow = this._svg.getBoundingClientRect().width < 420;

    // the bars (one WAI-ARIA slider each, one tab stop for the row), rebuilt when n changes
    if (n !== this._n) {
      this._n = n;
      this._focus = Math.min(this._focus || 0, n - 1);
      this._bars.replaceChildren();
      this._handles = z.map((_, i) => {
        const g = svgEl("g", { role: "slider", tabindex: i === this._focus ? 0 : -1, "aria-label": `score ${i + 1}`,
          "aria-valuemin": -ZR, "aria-valuemax": ZR, "aria-orientation": "vertical" }, this._bars);
        svgEl("rect", { class: "bar-hit", x: x0(i), width: bw, y: ZTOP, height: ZBOT - ZTOP }, g);
        const bar = svgEl("rect", { class: "bar", x: x0(i) + pad, width: bw - 2 * pad }, g);
        const cap = svgEl("line", { class: "cap", x1: x0(i) + pad, x2: x0(i) + bw - pad }, g);
        const ring = svgEl("rect", { class: "ring", x: x0(i) + 1, width: bw - 2, rx: 3 }, g);
        if (n <= 25 || (i + 1) % 5 === 0) {
          svgEl("text", { x: x0(i) + bw / 2, y: ZBOT + 14, "text-anchor": "middle", class: "muted p-label" }, g).textContent = String(i + 1);
        }
        g.addEventListener("keydown", (e) => this._key(e, i));
        g.addEventListener("focus", () => { this._focus = i; });
        return { g, bar, cap, ring };
      });
    }
    const inSupport = new Set(support);
    this._handles.forEach(({ g, bar, cap, ring }, i) => {
      const top = zy(z[i]);
      bar.setAttribute("y", top.toFixed(1));
      bar.setAttribute("height", Math.max(0, ZBOT - top).toFixed(1));
      bar.setAttribute("class", inSupport.has(i) ? "bar in" : "bar");
      cap.setAttribute("y1", top.toFixed(1));
      cap.setAttribute("y2", top.toFixed(1));
      ring.setAttribute("y", (top - 4).toFixed(1));
      ring.setAttribute("height", Math.max(8, ZBOT - top + 4).toFixed(1));
      g.setAttribute("tabindex", i === this._focus ? "0" : "-1");
      g.setAttribute("aria-valuenow", fmt(z[i]));
      g.setAttribute("aria-valuetext", `${fmt(z[i])}, weight ${p[i] === 0 ? "exactly 0" : p[i].toFixed(3)}`);
    });

    // the line at tau and the water above it
    const water = this._water, lines = this._lines;
    water.replaceChildren();
    lines.replaceChildren();
    const yLine = line === null ? null : zy(Math.max(ZLO, Math.min(ZHI, line)));
    const powered = line !== null && !(s.mapping === "sparsemax" && T === 1);
    if (line !== null) {
      for (const i of support) {
        const top = zy(z[i]);
        const w = powered ? (bw - 2 * pad) * 0.6 : bw - 2 * pad;
        svgEl("title", {}, svgEl("rect", { class: "water", x: x0(i) + pad, width: w, y: top, height: Math.max(0, yLine - top) }, water))
          .textContent = `item ${i + 1}: ${fmt(z[i], 3)} − ${fmt(line, 3)} = ${fmt(z[i] - line, 3)} above the line`;
        if (powered) {
          // p_i itself, in the units of the score axis, rising from the line beside the water
          const h = Math.max(0, yLine - zy(line + p[i]));
          svgEl("title", {}, svgEl("rect", { class: "powered", x: x0(i) + pad + w + 1, width: Math.max(1, (bw - 2 * pad) * 0.4 - 1), y: yLine - h, height: h }, water))
            .textContent = `item ${i + 1}: p = ${p[i].toFixed(4)}`;
        }
      }
      const off = line < ZLO || line > ZHI;
      const el = svgEl("line", { class: off ? "tau off" : "tau", x1: L - 4, x2: W - R + 4, y1: yLine.toFixed(2), y2: yLine.toFixed(2),
        "data-z": String(line), "data-tau": String(c.tau) }, lines);
      svgEl("title", {}, el).textContent = `threshold line at z = ${fmt(line, 4)}`;
      const name = s.mapping === "sparsemax" ? (T === 1 ? "τ" : "Tτ") : T === 1 ? "τ/(α−1)" : "Tτ/(α−1)";
      const at = narrow ? { x: W - R + 4, y: yLine - 8, "text-anchor": "end" } : { x: W - R + 8, y: yLine + 4 };
      svgEl("text", at, lines).textContent = `${name} = ${fmt(line)}${narrow && off ? (line < ZLO ? " (below)" : " (above)") : ""}`;
      if (off && !narrow) svgEl("text", { x: W - R + 8, y: yLine + (line < ZLO ? -10 : 18), class: "muted note" }, lines).textContent = line < ZLO ? "(below)" : "(above)";
    }
    const note = line === null
      ? `softmax has no threshold: every p > 0; p = exp(${T === 1 ? "z" : "z/T"} − ${fmt(c.tau, 3)}), log Σ exp(${T === 1 ? "z" : "z/T"}) = ${fmt(c.tau, 3)}`
      : s.mapping === "sparsemax"
        ? `sparsemax: p = [z − τ]₊${T === 1 ? ", the water above the line" : " / T"}`
        : `${s.mapping === "entmax15" ? "1.5-entmax" : `α-entmax (α = ${fmt(s.alpha)})`}: p = [(α−1)(z − line)${T === 1 ? "" : "/T"}]₊^(1/(α−1)), the outlined bars`;
    this._note.textContent = narrow ? "" : note;
    this._noteNarrow.textContent = narrow ? note : "";
    this._noteNarrow.hidden = !narrow;

    // the candidate line of the step shown
    const st = s.steps ? this._renderSteps(s, c) : null;
    if (st && st.line !== null) {
      const y = zy(Math.max(ZLO, Math.min(ZHI, st.line)));
      svgEl("title", {}, svgEl("line", { class: "candidate", x1: L - 4, x2: W - R + 4, y1: y.toFixed(2), y2: y.toFixed(2), "data-z": String(st.line) }, lines))
        .textContent = `candidate: ${st.label}`;
    }
    this._stepsBox.hidden = !s.steps;
    this._stepsBtn.textContent = s.steps ? "Hide the steps" : "Show the steps";
    this._stepsBtn.setAttribute("aria-expanded", String(Boolean(s.steps)));

    // the weights: bars on [0, a round max], exact zeros as rings on the baseline
    const g = this._weights;
    g.replaceChildren();
    const pmax = Math.max(0.25, Math.ceil(Math.max(...p) * 4) / 4);
    const py = linear([0, pmax], [PBOT, PTOP]);
    svgEl("line", { class: "zero-line", x1: L, x2: W - R, y1: PBOT, y2: PBOT }, g);
    this._pLabel.textContent = narrow ? `weights p (0 to ${pmax})` : "weights p";
    if (!narrow) {
      svgEl("text", { x: L - 6, y: PTOP + 4, "text-anchor": "end", class: "muted" }, g).textContent = String(pmax);
      svgEl("text", { x: L - 6, y: PBOT + 4, "text-anchor": "end", class: "muted" }, g).textContent = "0";
    }
    const labels = n <= 16;
    p.forEach((v, i) => {
      const cx = x0(i) + bw / 2;
      const el = v === 0
        ? svgEl("circle", { class: "p zero", cx, cy: PBOT, r: Math.max(2, Math.min(4, bw / 4)) }, g)
        : svgEl("rect", { class: "p", x: x0(i) + pad, width: bw - 2 * pad, y: Math.min(py(v), PBOT - 1.5), height: Math.max(1.5, PBOT - py(v)) }, g);
      svgEl("title", {}, el).textContent = `p${i + 1} = ${v === 0 ? "exactly 0" : v.toFixed(4)}`;
      if (labels) {
        svgEl("text", { x: cx, y: v === 0 ? PBOT - 7 : Math.min(py(v), PBOT - 1.5) - 3, "text-anchor": "middle", class: v === 0 ? "p-label zero" : "p-label" }, g)
          .textContent = v === 0 ? "0" : v.toFixed(2);
      }
    });

    const zeros = n - support.length;
    const items = support.slice(0, 12).map((i) => i + 1).join(", ") + (support.length > 12 ? ", …" : "");
    this._readout.textContent = line === null
      ? `softmax: no threshold, all ${n} weights > 0 (log-sum-exp normaliser ${fmt(c.tau, 4)})`
      : `${MAPPINGS[s.mapping].label}${s.mapping === "entmax" ? ` (α = ${fmt(s.alpha)})` : ""}: τ = ${fmt(c.tau, 4)}, line at z = ${fmt(line, 4)}; ` +
        `support ${support.length} of ${n} (item${support.length === 1 ? "" : "s"} ${items}), ${zeros} exact zero${zeros === 1 ? "" : "s"}`;
  }

  // The steps panel for the settings; returns the candidate line to draw ({ line, label }).
  _renderSteps(s, c) {
    const z = c.scores.map((v) => v / c.T);
    const key = `${c.scores}|${s.mapping}|${s.alpha}|${c.T}`;
    const table = this._table;
    table.replaceChildren();
    const head = (cols) => {
      const tr = htmlEl("tr", {}, htmlEl("thead", {}, table));
      for (const t of cols) htmlEl("th", { scope: "col", text: t }, tr);
      return htmlEl("tbody", {}, table);
    };
    const cell = (tr, text, cls) => htmlEl("td", cls ? { class: cls, text } : { text }, tr);
    const scaled = c.T === 1 ? "z" : "z/T";
    if (s.mapping === "softmax") {
      const lse = logSumExp(z), m = Math.max(...z);
      this._stepsText.textContent = `Softmax has no threshold: it never gives an exact zero, so there is no line to find. ` +
        `It divides by a normaliser instead: p = exp(${scaled} − log Σ exp(${scaled})).`;
      this._stepCtl.root.hidden = true;
      const body = head(["step", "value"]);
      for (const [k, v] of [[`max ${scaled}`, m], [`Σ exp(${scaled} − max)`, z.reduce((a, b) => a + Math.exp(b - m), 0)], ["log Σ exp = max + log Σ", lse]]) {
        const tr = htmlEl("tr", {}, body);
        cell(tr, k); cell(tr, v.toFixed(6));
      }
      this._stepsCheck.textContent = `threshold() returns the normaliser ${c.tau.toFixed(6)} (difference ${Math.abs(c.tau - lse).toExponential(1)}).`;
      return null;
    }
    this._stepCtl.root.hidden = false;
    this._stepCtl.root.firstChild.textContent = s.mapping === "sparsemax" ? "candidate k" : "iteration";
    if (s.mapping === "sparsemax") {
      const st = sparsemaxSteps(z);
      if (key !== this._stepsKey) { this._stepsKey = key; this._step = st.k; }
      const k = this._step = Math.max(1, Math.min(c.n, this._step || st.k));
      this._stepsText.textContent = `Sparsemax's closed form: sort the scores${c.T === 1 ? "" : " (divided by T)"} from the largest, add them up, ` +
        `and keep the largest k with 1 + k z₍ₖ₎ > Σⱼ≤ₖ z₍ⱼ₎ (the k-th score still rises above the candidate line); then ` +
        `τ = (Σⱼ≤ₖ z₍ⱼ₎ − 1) / k. Here k = ${st.k}, τ = ${st.tau.toFixed(4)}. Move the candidate k to see each line.`;
      this._stepCtl.input.max = String(c.n);
      this._stepCtl.set(k);
      const body = head(["k", "item", `${scaled}₍ₖ₎`, "Σⱼ≤ₖ", "1 + k z₍ₖ₎ > Σ ?", "(Σ − 1) / k"]);
      for (const r of st.rows) {
        const tr = htmlEl("tr", { class: (r.k === k ? "current " : "") + (r.k === st.k ? "chosen" : "") }, body);
        cell(tr, String(r.k)); cell(tr, String(r.index + 1)); cell(tr, r.z.toFixed(3)); cell(tr, r.cumsum.toFixed(3));
        cell(tr, r.inSupport ? "yes" : "no", r.inSupport ? "" : "zero"); cell(tr, r.tau.toFixed(4));
      }
      this._stepsCheck.textContent = `threshold() gives τ = ${c.tau.toFixed(6)} in float32 (difference ${Math.abs(c.tau - st.tau).toExponential(1)}).`;
      const tk = st.rows[k - 1].tau;
      return { line: c.T * tk, label: `k = ${k}, τ = ${tk.toFixed(4)}` };
    }
    const b = entmaxBisection(z, c.alpha, { iterations: 30 });
    const last = b.steps.length;
    if (key !== this._stepsKey) { this._stepsKey = key; this._step = last; }
    const i = this._step = Math.max(1, Math.min(Math.max(1, last), this._step || last));
    this._stepsText.textContent = `α-entmax has no closed form for every α: τ is the root of Σᵢ [(α−1) ${scaled}ᵢ − τ]₊^(1/(α−1)) = 1, ` +
      `which falls as τ grows. Start from the bracket [max − 1, max − (1/n)^(α−1)] (max of (α−1) ${scaled}) and halve it ${last} times, ` +
      `keeping the half where the sum crosses 1. The line sits at τ/(α−1)${c.T === 1 ? "" : " times T"}. Move the iteration to see each midpoint.`;
    this._stepCtl.input.max = String(Math.max(1, last));
    this._stepCtl.set(i);
    const body = head(["iteration", "lo", "hi", "τ = (lo + hi)/2", "Σ p at τ", "next"]);
    for (const r of b.steps) {
      const tr = htmlEl("tr", { class: r.i === i ? "current" : "" }, body);
      cell(tr, String(r.i)); cell(tr, r.lo.toFixed(6)); cell(tr, r.hi.toFixed(6)); cell(tr, r.tau.toFixed(6)); cell(tr, r.sum.toFixed(4));
      cell(tr, r.sum >= 1 ? "lo = τ" : "hi = τ");
    }
    this._stepsCheck.textContent = `After ${last} halvings τ = ${b.tau.toFixed(6)}; threshold() gives ${c.tau.toFixed(6)} in float32 ` +
      `(difference ${Math.abs(c.tau - b.tau).toExponential(1)}).`;
    if (!last) return { line: c.T * b.tau / (c.alpha - 1), label: `τ = ${b.tau.toFixed(4)}` };
    const t = b.steps[i - 1].tau;
    return { line: c.T * t / (c.alpha - 1), label: `iteration ${i}, τ = ${t.toFixed(4)}` };
  }
}

define("sx-threshold", SxThreshold);
