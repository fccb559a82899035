// <sx-explain>: "is attention explanation?", live on the tiny Transformer. Pick a task and a
// shipped model, type a source, read the greedy output; pick an output step and a cross-attention
// head (or the mean of all heads) and see, as aligned bar rows over the source tokens, the
// attention row beside gradient x input, integrated gradients, leave-one-out, attention rollout
// and the known alignment (explain.js alignment()), each with its Kendall tau against the
// attention row. Click a source token (or Enter / Space on it) to erase it from the step's
// cross-attention rows (or from every row): the new output appears beside the original, the
// changed characters marked. "Run the experiments" runs explain.js's runExperiments over held-out
// examples for the softmax, 1.5-entmax and learned-alpha models of the task in a module Web Worker
// (explain-worker.js; the single-file bundle's code from a Blob URL: explain-session.js's
// explainWorker()), or on the main thread where no worker can start, then draws the erasure curves
// and a table per model, with what the papers found and what these models show.
//   <sx-explain task="reverse" kind="entmax15" text="abcdefgh"></sx-explain>
// Attributes: task, kind (softmax, entmax15, alpha, alpha-span), text (the source), step (the output
// step explained), head ("mean" or "<layer>.<head>", 1-based), objective (logit, logProb), examples
// (10..1000, per model, for the experiments), models (the folder of the .sxm files), theme.
// Read-only: experimentsRanIn ("worker", "main" or null), experiments (the last finished run).
// Keyboard: Tab reaches the controls, the output tokens (one stop; Left/Right/Home/End pick the
// step) and the source tokens (one stop; Left/Right/Home/End move, Enter/Space erase or restore).
// Events: sx-explain-change { task, kind, text, step, head, objective, attention, importance, tau },
// sx-explain-experiments { task, examples, summaries }.
import { SxElement, define, sheet, svgEl, htmlEl, fmt } from "./base.js";
import { Model, tasks } from "../lib/simplexity.js";
import { alignment, kendallTau } from "../lib/explain.js";
import { EXAMPLES } from "./runtime/inspect.js";
import { checkpointUrl, fetchCheckpoint as fetchBytes, loadCheckpoint } from "./runtime/checkpoints.js";
import { MainThreadExplainWorker, explainWorker, startExplainWorker } from "./runtime/explain-session.js";
import { startSession } from "./runtime/main-thread.js";
import { importanceBars } from "./viz/importance-bars.js";
import { charDiff } from "./viz/char-diff.js";
import { erasureCurve, stepPath } from "./viz/erasure-curve.js";
import { experimentTable, experimentFindings, formatTau, METHODS } from "./viz/explain-table.js";
import { linear } from "./viz/scale.js";

const TASKS = ["reverse", "sort", "after_marker", "date"];
const KINDS = ["softmax", "entmax15", "alpha", "alpha-span"];
const LABELS = { softmax: "softmax", entmax15: "1.5-entmax", alpha: "learned α-entmax", "alpha-span": "learned α + span" };
/** The models "Run the experiments" compares. */
const EXP_KINDS = ["softmax", "entmax15", "alpha"];
const EXP = { seed: 1, epsilon: 0.01, igSteps: 16 };
const IG_STEPS = 32;
const CANCEL_TIMEOUT_MS = 5000;
const ROWS = [
  { key: "attention", label: "attention", signed: false },
  { key: "gradInput", label: "gradient × input", signed: true },
  { key: "integratedGradients", label: "integrated gradients", signed: true },
  { key: "leaveOneOut", label: "leave-one-out", signed: true },
  { key: "rollout", label: "rollout", signed: false },
  { key: "alignment", label: "known alignment", signed: false },
];
const W = 720, LW = 150, RW = 96, TOK_H = 30, ROW_H = 40, TOP = TOK_H + 8;
// The bars' geometry: wide, a label column left and a τ column right; drawn under 420 px wide (a
// phone), a narrower picture (its text and tokens keep their size) with each row's label and τ on
// a line above its bars, the captions under the picture (ty: the tokens' top, lab: a row's label line).
const WIDE = { W, LW, RW, ty: 0, tok: TOK_H, row: ROW_H, lab: 0 };
const NARROW = { W: 360, LW: 6, RW: 6, ty: 18, tok: 40, row: 56, lab: 16 };
const CW = 560, CH = 270, CL = 48, CR = 150, CT = 14, CB = 40;

// Worker sources ("file", "blob") that could not be started on this page, and why: later runs go
// to the main thread at once.
const refusedWorkers = new Map();
// Checkpoint bytes: checkpoints.js's fetchCheckpoint (once per page, shared with <sx-attention>).

const tokenLabel = (c) => (c === "<eos>" ? "⟨eos⟩" : c === " " ? "␣" : c);
// What an accessible name says of a token: its visible label first (axe: label-content-name-mismatch).
const spoken = (c) => (c === "<eos>" ? "⟨eos⟩, the end of the sequence" : c === " " ? "␣, a space" : `"${c}"`);

const CSS = sheet(`
:host { --_pos: var(--sx-positive, #c0392b); --_neg: var(--sx-negative, #2f6db5); }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { --_pos: var(--sx-positive, #ff7b6b); --_neg: var(--sx-negative, #7fa8e8); } }
:host([theme="dark"]) { --_pos: var(--sx-positive, #ff7b6b); --_neg: var(--sx-negative, #7fa8e8); }
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 8px; }
.row label { display: inline-flex; gap: 6.4px; align-items: center; }
input[type="text"] { font: 14px/1.3 ui-monospace, "SF Mono", Menlo, Consolas, monospace; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_grid); border-radius: 6px; padding: 2.4px 6.4px; width: 176px; }
input[type="text"][aria-invalid="true"] { border-color: var(--_accent); }
input:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.invalid { color: var(--_accent); font-size: 13px; font-weight: 600; }
.invalid:empty { display: none; }
.io { margin: 3.2px 0 6.4px; display: flex; flex-wrap: wrap; gap: 4.8px 12.8px; align-items: baseline; }
.mono, .tok-out { font: 15px ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
.outs { display: inline-flex; gap: 2px; }
.tok-out { display: inline-block; min-width: 24px; min-height: 24px; text-align: center; padding: 0.8px 4.8px; border-radius: 4px; border: 1px solid var(--_grid); cursor: pointer; background: var(--_bg); }
.tok-out[aria-checked="true"] { background: var(--_accent); color: var(--_bg); border-color: var(--_accent); }
.tok-out:focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
.muted { color: var(--_muted); }
.changed { background: var(--_accent); color: var(--_bg); border-radius: 3px; padding: 0 1px; font-weight: 700; }
.erased-out { font-variant-numeric: tabular-nums; }
.views { display: flex; flex-wrap: wrap; gap: 9.6px 19.2px; align-items: flex-start; margin: 4.8px 0; }
.views > svg, .views > .tables { flex: 3 1 480px; min-width: 0; }
.caption-narrow { flex: 1 1 100%; margin: 0; font-size: 13px; }
.caption-narrow[hidden] { display: none; }
.note { flex: 1 1 224px; margin: 0; font-size: 13px; color: var(--_fg); }
.note b { font-weight: 600; }
.note .here { display: block; margin-top: 4.8px; }
svg.picture.bars { max-width: 820px; }
svg.picture.curves { max-width: 640px; }
svg.picture.off { display: none; }
svg .tok { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 14px; }
svg .tok-bg { fill: var(--_panel); stroke: var(--_grid); }
svg .tok.erased .tok-bg { fill: var(--_bg); stroke: var(--_accent); stroke-dasharray: 3 2; }
svg .tok.erased text { fill: var(--_muted); text-decoration: line-through; }
svg .tok { cursor: pointer; }
svg .ring { fill: none; stroke: transparent; }
svg .aligned-band { fill: var(--_entmax15); fill-opacity: 0.1; }
svg .erased-band { fill: var(--_accent); fill-opacity: 0.08; }
svg .base { stroke: var(--_grid); }
svg .bar.pos { fill: var(--_pos); }
svg .bar.neg { fill: var(--_neg); }
svg .bar.att { fill: var(--_softmax); }
svg .bar.roll { fill: var(--_fusedmax); }
svg .bar.align { fill: var(--_entmax15); }
svg .zero { fill: none; stroke: var(--_accent); stroke-width: 1.3; }
svg .row-label { --_fs: 12.5px; }
svg .tau { --_fs: 12px; font-variant-numeric: tabular-nums; }
svg .caption { --_fs: 12px; }
svg .line { fill: none; stroke-width: 2.2; }
svg .line.random { stroke-dasharray: 6 4; stroke-width: 1.6; }
svg .k-softmax { stroke: var(--_softmax); }
svg .k-entmax15 { stroke: var(--_entmax15); }
svg .k-alpha { stroke: var(--_entmax); }
svg .legend text { --_fs: 11.5px; }
.exp { margin: 14.4px 0 0; padding: 9.6px 0 0; border-top: 1px solid var(--_grid); }
.progress { display: inline-block; width: 192px; height: 14.4px; border: 1px solid var(--_grid); border-radius: 4px; overflow: hidden; vertical-align: middle; }
.progress svg { width: 100%; height: 100%; display: block; }
.progress rect { fill: var(--_accent); }
.estatus { font-variant-numeric: tabular-nums; font-size: 13px; }
.estatus.error { color: var(--_accent); font-weight: 600; }
.tables { display: flex; flex-wrap: wrap; gap: 9.6px 16px; }
.tables[hidden], .views[hidden] { display: none; }
.tables table { font-size: 12.5px; }
.tables caption { text-align: left; font-weight: 600; padding-bottom: 3.2px; }
.tables th[scope="row"] { font-weight: 400; text-align: left; }
.tables th[scope="rowgroup"] { text-align: left; color: var(--_muted); font-weight: 400; padding-top: 5.6px; }
`);

export class SxExplain extends SxElement {
  static fitText = true;
  static spec = {
    task: { type: "enum", default: "reverse", values: TASKS },
    kind: { type: "enum", default: "entmax15", values: KINDS },
    objective: { type: "enum", default: "logit", values: ["logit", "logProb"] },
    step: { type: "number", default: 0, min: 0, max: 255, integer: true },
    examples: { type: "number", default: 40, min: 10, max: 1000, integer: true },
    // the erased source positions (0 is the first) and the rows they are erased from: a link keeps them
    erase: { type: "numbers", default: [], min: 0, max: 255 },
    "erase-from": { type: "enum", default: "step", values: ["step", "all"] },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  // text, head and models are free text, checked in settings()
  static get observedAttributes() { return [...Object.keys(this.spec), "text", "head", "models"]; }
  static authorOnly = ["models"]; // where the models come from is the page's, never a link's (link.js)

  constructor() {
    super();
    this._seen = false;         // has come into view: models may be fetched
    this._model = null;         // { key, model, url } the model shown
    this._pending = null;       // the URL being fetched
    this._failed = null;        // { key, message }
    this._lastGood = {};        // task -> the last valid text
    this._erased = new Set();   // erased source positions (the erase attribute, as of the last render)
    this._erasedFor = "";       // the task|text shown
    this._scope = "step";       // erase from the step's rows ("step") or from every row ("all"): erase-from
    this._tokFocus = 0;         // the source token with the tab stop
    this._cache = null;         // { key, ... } the last computation
    this._last = null;          // what the last render showed (for the change event)
    this._exp = null;           // the experiments run under way, or the last one
    this._results = null;       // { task, examples, summaries } of the last finished run
  }

  get text() { return this.getAttribute("text") ?? EXAMPLES[this.task]; }
  set text(v) { if (v === null || v === undefined) this.removeAttribute("text"); else this.setAttribute("text", String(v)); }
  get head() { return this.getAttribute("head") ?? "mean"; }
  set head(v) { if (v === null || v === undefined) this.removeAttribute("head"); else this.setAttribute("head", String(v)); }
  get models() { return this.getAttribute("models"); }
  set models(v) { if (v === null || v === undefined) this.removeAttribute("models"); else this.setAttribute("models", String(v)); }

  /** Where the last (or current) experiments run ran: "worker", "main" or null (none yet). */
  get experimentsRanIn() { return this._exp ? this._exp.thread : null; }
  /** The last finished experiments run, { task, examples, summaries } (kind -> summary), or null. */
  get experiments() { return this._results ? { ...this._results, summaries: { ...this._results.summaries } } : null; }

  connectedCallback() {
    super.connectedCallback();
    if (!this._seen && !this._observer) {
      if (typeof IntersectionObserver !== "function") this._seen = true;
      else {
        this._observer = new IntersectionObserver((entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          this._seen = true;
          this._observer.disconnect();
          this._observer = null;
          this.invalidate();
        }, { rootMargin: "200px" });
        this._observer.observe(this);
      }
    }
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this._observer) { this._observer.disconnect(); this._observer = null; }
    if (this._exp && this._exp.status === "running") this._endRun(this._exp, "cancelled");
    if (this._model) this._model.model.free();
    this._model = null;
    this._pending = null;
    this._cache = null;
  }

  // ------------------------------------------------------------------ DOM
  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    const sel = (label, values, parent = row) => {
      const l = htmlEl("label", {}, parent);
      htmlEl("span", { text: label }, l);
      const s = htmlEl("select", {}, l);
      for (const [v, t] of values) htmlEl("option", { value: v, text: t }, s);
      return s;
    };
    this._taskSel = sel("task", TASKS.map((t) => [t, t.replace("_", " ")]));
    this._kindSel = sel("model", KINDS.map((k) => [k, LABELS[k]]));
    const l = htmlEl("label", {}, row);
    htmlEl("span", { text: "source" }, l);
    this._textEl = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", "aria-label": "source text for the task",
      "aria-describedby": "text-msg" }, l);
    this._textMsg = htmlEl("span", { class: "invalid", id: "text-msg", role: "status" }, row);
    this._taskSel.addEventListener("change", () => this._user({ task: this._taskSel.value, text: EXAMPLES[this._taskSel.value], step: 0 }));
    this._kindSel.addEventListener("change", () => this._user({ kind: this._kindSel.value }));
    this._textEl.addEventListener("input", () => this._user({ text: this._textEl.value }));

    const row2 = htmlEl("div", { class: "row", part: "controls" }, body);
    this._headSel = sel("cross-attention head", [["mean", "mean of all heads"]], row2);
    this._headSel.addEventListener("change", () => this._user({ head: this._headSel.value }));
    this._objSel = sel("explain", [["logit", "the logit"], ["logProb", "log p"]], row2);
    this._objSel.addEventListener("change", () => this._user({ objective: this._objSel.value }));
    this._scopeSel = sel("erase from", [["step", "this step's rows"], ["all", "every row"]], row2);
    this._scopeSel.addEventListener("change", () => { this.eraseFrom = this._scopeSel.value; this._cache = null; this.renderNow(); });
    this._resetBtn = htmlEl("button", { type: "button", class: "reset", text: "Reset erasures" }, row2);
    this._resetBtn.addEventListener("click", () => { this.erase = null; this._cache = null; this.renderNow(); });

    const io = htmlEl("div", { class: "io", part: "output" }, body);
    htmlEl("span", { class: "muted", text: "output (pick a step):" }, io);
    this._outs = htmlEl("span", { class: "outs", role: "radiogroup", "aria-label": "output step to explain: the arrow keys pick one" }, io);
    this._erasedOut = htmlEl("span", { class: "erased-out", "aria-live": "polite" }, io);
    this._outs.addEventListener("keydown", (e) => this._outKey(e));

    const v1 = htmlEl("div", { class: "views" }, body);
    this._svg = svgEl("svg", { class: "picture bars", viewBox: `0 0 ${W} 300`, role: "group",
      "aria-label": "per source token: the attention row and each attribution as bars, the known alignment; the source tokens on top erase on Enter" }, v1);
    this._caption = htmlEl("p", { class: "caption-narrow muted" }, v1);
    this._note1 = htmlEl("p", { class: "note", part: "note" }, v1);
    this._note1.innerHTML = "<b>Asks:</b> does the attention row rank the source tokens as the attributions do, and point at the token the output is read from? " +
      "<b>Found:</b> attention correlated only weakly with gradient and leave-one-out importance (Jain &amp; Wallace 2019); and a map can be " +
      "plausible, matching what a reader expects, without being faithful to what the model uses (Wiegreffe &amp; Pinter 2019). " +
      "Click a source token to erase it: Serrano &amp; Smith 2019 found that erasing the most attended item often leaves the decision as it was.";
    this._here1 = htmlEl("span", { class: "here", "aria-live": "polite" }, this._note1);

    // the experiments
    const ex = htmlEl("div", { class: "exp", part: "experiments" }, body);
    const erow = htmlEl("div", { class: "row" }, ex);
    this._runBtn = htmlEl("button", { type: "button", class: "run", text: "Run the experiments" }, erow);
    this._cancelBtn = htmlEl("button", { type: "button", class: "cancel", text: "Cancel" }, erow);
    this._cancelBtn.disabled = true;
    this._bar = htmlEl("span", { class: "progress", role: "progressbar", "aria-label": "experiments progress",
      "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": 0 }, erow);
    const bsvg = svgEl("svg", { viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true" }, this._bar);
    this._barRect = svgEl("rect", { x: 0, y: 0, width: 0, height: 10 }, bsvg);
    this._estatus = htmlEl("span", { class: "estatus", role: "status" }, erow);
    this._runBtn.addEventListener("click", () => this._runExperiments());
    this._cancelBtn.addEventListener("click", () => this._cancel());

    this._v2 = htmlEl("div", { class: "views" }, ex);
    this._curves = svgEl("svg", { class: "picture curves off", viewBox: `0 0 ${CW} ${CH}`, role: "img",
      "aria-label": "erasure curves: the share of decisions flipped against the fraction of source keys erased, per model, by attention (solid) and at random (dashed)" }, this._v2);
    this._note2 = htmlEl("p", { class: "note", part: "note" }, this._v2);
    this._v3 = htmlEl("div", { class: "views" }, ex);
    this._tables = htmlEl("div", { class: "tables", part: "tables" }, this._v3);
    this._note3 = htmlEl("p", { class: "note", part: "note" }, this._v3);
    this._v2.hidden = this._v3.hidden = true;
    this._estatus.textContent = "Runs the experiments of the debate on held-out examples for the softmax, 1.5-entmax and learned-α models of this task, in a Web Worker.";
  }

  pictures() { return super.pictures().filter((svg) => !svg.classList.contains("off")); }

  _user(change) {
    if ("task" in change || "text" in change) this.erase = null; // erasures belong to a source text
    for (const k in change) this[k] = change[k];
    this.renderNow();
    const { s } = this.settings();
    const c = this._last;
    this.emit("change", {
      task: s.task, kind: s.kind, text: s.text, step: c ? c.step : s.step, head: s.head, objective: s.objective,
      attention: c ? c.attention : null, importance: c ? c.importance : null, tau: c ? c.tau : null,
    });
  }

  // ------------------------------------------------------------- settings
  // The spec'd attributes, then text (the last valid text of the task, or its example, when the
  // attribute is not in the task's alphabet: an inline message), head and models.
  settings() {
    const r = super.settings();
    const { s, errors } = r;
    const raw = this.getAttribute("text");
    s.text = this._lastGood[s.task] ?? EXAMPLES[s.task];
    s.textError = "";
    if (raw !== null) {
      try {
        if (raw.length === 0) throw new RangeError("is empty");
        tasks.encode(s.task, raw);
        s.text = raw;
        this._lastGood[s.task] = raw;
      } catch (err) {
        const why = err.message.replace(/^tasks\.encode: /, "").replace(/^text(\[\d+\])? /, "");
        s.textError = `"${raw.slice(0, 24)}": ${why}; showing "${s.text}"`;
      }
    }
    const h = this.getAttribute("head");
    s.head = "mean";
    if (h !== null && h.trim() !== "mean") {
      const m = /^\s*(\d+)\.(\d+)\s*$/.exec(h);
      if (m) s.head = `${Number(m[1])}.${Number(m[2])}`;
      else errors.push(`head="${h.slice(0, 20)}" is not "mean" or "<layer>.<head>" (such as "2.1"); using mean`);
    }
    const f = this.getAttribute("models");
    s.models = null;
    if (f !== null) {
      try { s.models = new URL(f.endsWith("/") ? f : `${f}/`, document.baseURI); } catch { errors.push(`models="${f.slice(0, 40)}" is not a URL; using the shipped models`); }
    }
    if (s.erase.some((j) => !Number.isInteger(j))) {
      errors.push(`erase="${this.getAttribute("erase").slice(0, 40)}" is not a list of whole numbers; erasing none`);
      s.erase = [];
    }
    if (this._failed) errors.push(this._failed.message);
    return r;
  }

  // --------------------------------------------------------------- models
  _load(url) {
    loadCheckpoint(this, url, (bytes) => Model.load(bytes), (model, bytes, key) => {
      if (this._model) this._model.model.free();
      this._model = { key, model, url };
      this._cache = null;
    });
  }

  // Everything the bars show for the settings: the output, the explanation at the step, the
  // attention row of the head, the alignment, the taus, the output under the erasures.
  _compute(s, model) {
    const src = tasks.encode(s.task, s.text);
    const vocab = tasks.vocab(s.task), EOS = vocab.indexOf("<eos>");
    const [out] = model.generate([src]);
    const output = tasks.decode(s.task, out);
    const eos = out.indexOf(EOS);
    const nSteps = eos > 0 ? eos : out.length - 1;
    const step = Math.min(s.step, nSteps - 1);
    const outLabels = Array.from({ length: nSteps }, (_, t) => vocab[out[t + 1]]);
    const n = s.text.length + 1; // the source keys: the characters and EOS
    const { layers, heads } = model.config;
    let head = s.head, headError = "";
    let hl = -1, hh = -1;
    if (head !== "mean") {
      const [a, b] = head.split(".").map(Number);
      if (a >= 1 && a <= layers && b >= 1 && b <= heads) { hl = a - 1; hh = b - 1; } else {
        headError = `head="${head}" is not a cross-attention head of this model (layers 1-${layers}, heads 1-${heads}); using mean`;
        head = "mean";
      }
    }
    const r = model.explain(src, out, { step, objective: s.objective, methods: ["gradInput", "integratedGradients", "leaveOneOut", "rollout"], steps: IG_STEPS });
    const attention = new Array(n).fill(0);
    let rows = 0;
    for (const a of r.attention) {
      if (a.kind !== "cross") continue;
      const [, H, Tq, Tk] = a.shape;
      for (let h = 0; h < H; h++) {
        if (hl >= 0 && (a.layer !== hl || h !== hh)) continue;
        rows++;
        for (let j = 0; j < n; j++) attention[j] += a.data[(h * Tq + step) * Tk + j];
      }
    }
    for (let j = 0; j < n; j++) attention[j] /= rows;
    const importance = {};
    for (const [m] of METHODS) importance[m] = Array.from(r.importance[m].subarray(0, n));
    let aligned = null, alignError = "";
    try { aligned = alignment(s.task, src)[step]; } catch (err) { alignError = err.message.replace(/^tasks\.answer: (row 0: )?/, ""); }
    const alignRow = aligned ? Array.from({ length: n }, (_, j) => (aligned.includes(j) ? 1 : 0)) : null;
    const tau = {};
    for (const [m] of METHODS) tau[m] = kendallTau(attention, importance[m]);
    if (alignRow) tau.alignment = kendallTau(attention, alignRow);
    return { src, out, output, nSteps, step, outLabels, n, head, headError, layers, heads, attention, importance, alignRow, aligned, alignError, tau,
      target: vocab[r.target], value: r.value, logProb: r.logProb, srcLabels: [...s.text, "<eos>"] };
  }

  // The output with the erased source keys (from the step's cross rows or every row).
  _erasure(s, model, c) {
    if (!this._erased.size) return null;
    const keys = [...this._erased].filter((j) => j < c.n).sort((a, b) => a - b);
    if (!keys.length) return null;
    const edit = { op: "erase", kind: "cross", keys, ...(this._scope === "step" ? { row: c.step } : {}) };
    const [out] = model.generate([c.src], { intervene: [edit] });
    return { keys, output: tasks.decode(s.task, out) };
  }

  // ------------------------------------------------------------------ render
  // what a render found wrong that depends on the model (a head it does not have, a bad models
  // folder): shown after the attributes' own messages, which renderNow() sets once render() returns
  showMessage(lines) { super.showMessage([...lines, ...(this._notes || [])]); }

  render(s) {
    this._notes = [];
    this._taskSel.value = s.task;
    this._kindSel.value = s.kind;
    this._objSel.value = s.objective;
    this._scope = this._scopeSel.value = s["erase-from"];
    if (this.shadowRoot.activeElement !== this._textEl) this._textEl.value = this.getAttribute("text") ?? s.text;
    this._textEl.maxLength = tasks.width(s.task) - 1;
    this._textEl.setAttribute("aria-invalid", String(Boolean(s.textError)));
    this._textMsg.textContent = s.textError;
    const running = this._exp && this._exp.status === "running" || this._exp && this._exp.status === "loading";
    this._runBtn.textContent = `Run the experiments (${s.examples} held-out examples × 3 models)`;
    this._runBtn.disabled = Boolean(running);
    this._cancelBtn.disabled = !running;
    if (this._results && this._results.task !== s.task) this._v2.hidden = this._v3.hidden = true;
    else if (this._results) this._v2.hidden = this._v3.hidden = false;
    this._curves.classList.toggle("off", this._v2.hidden);

    const erasedFor = `${s.task}|${s.text}`;
    if (erasedFor !== this._erasedFor) { this._erasedFor = erasedFor; this._tokFocus = 0; }
    this._erased = new Set(s.erase);

    let url;
    try { url = checkpointUrl(s.task, s.kind, s.models); } catch (err) { this._notes.push(err.message); return; }
    if (this._failed && this._failed.key !== url.href) this._failed = null;
    if (!this._model || this._model.key !== url.href) {
      if (this._seen) this._load(url);
      this._here1.textContent = this._failed ? "" : this._seen ? "Loading the model…" : "The model loads when this comes into view.";
      this._last = null;
      return;
    }
    const key = `${url.href}|${s.task}|${s.text}|${s.step}|${s.head}|${s.objective}|${this._scope}|${[...this._erased].sort()}`;
    if (!this._cache || this._cache.key !== key) {
      const c = this._compute(s, this._model.model);
      c.erasure = this._erasure(s, this._model.model, c);
      this._cache = { key, c };
    }
    const c = this._cache.c;
    this._last = c;
    this._fillHeads(c);
    if (c.headError) this._notes.push(c.headError);
    const past = [...this._erased].filter((j) => j >= c.n);
    if (past.length) this._notes.push(`erase: ${past.join(" ")} past the source's last position (${c.n - 1}); not erased`);
    this._drawOutputs(c);
    this._drawBars(c, s);
    this._drawErasure(c);
    this._here1.textContent = this._hereText(c);
    this._drawExperiments();
  }

  _fillHeads(c) {
    const want = ["mean"];
    for (let l = 1; l <= c.layers; l++) for (let h = 1; h <= c.heads; h++) want.push(`${l}.${h}`);
    if (this._headSel.options.length !== want.length) {
      this._headSel.replaceChildren();
      for (const v of want) htmlEl("option", { value: v, text: v === "mean" ? "mean of all heads" : `layer ${v.split(".")[0]}, head ${v.split(".")[1]}` }, this._headSel);
    }
    this._headSel.value = c.head;
  }

  // The output tokens as a radio group: one tab stop, the arrow keys pick the step.
  _drawOutputs(c) {
    const key = `${c.outLabels.join("\u0001")}|${c.step}`;
    if (this._outsKey === key) return;
    const hadFocus = this._outs.contains(this.shadowRoot.activeElement);
    this._outsKey = key;
    this._outs.replaceChildren();
    c.outLabels.forEach((t, i) => {
      const el = htmlEl("span", { class: "tok-out", role: "radio", tabindex: i === c.step ? 0 : -1, "aria-checked": String(i === c.step),
        "aria-label": `step ${i + 1}: ${spoken(t)}`, text: tokenLabel(t) }, this._outs);
      el.addEventListener("click", () => this._pickStep(i));
    });
    if (hadFocus) this._outs.children[c.step]?.focus();
  }

  _pickStep(i) {
    this._user({ step: i });
    this._outs.children[Math.min(i, this._outs.children.length - 1)]?.focus();
  }

  _outKey(e) {
    const c = this._last;
    if (!c) return;
    const moves = { ArrowLeft: c.step - 1, ArrowUp: c.step - 1, ArrowRight: c.step + 1, ArrowDown: c.step + 1, Home: 0, End: c.nSteps - 1 };
    if (e.key in moves) {
      e.preventDefault();
      this._pickStep(Math.max(0, Math.min(c.nSteps - 1, moves[e.key])));
    } else if (e.key === " " || e.key === "Enter") e.preventDefault();
  }

  // The bar rows over the source tokens.
  _drawBars(c, s) {
    const svg = this._svg;
    const rows = ROWS.filter((r) => r.key !== "alignment" || c.alignRow || c.alignError);
    const narrow = svg.getBoundingClientRect().width < 420;
    const { W: w, LW: lw, RW: rw, ty, tok, row, lab } = narrow ? NARROW : WIDE, top = ty + tok + TOP - TOK_H;
    const H = top + rows.length * row + (narrow ? 8 : 40);
    svg.setAttribute("viewBox", `0 0 ${w} ${H}`);
    const hadFocus = svg.contains(this.shadowRoot.activeElement);
    svg.replaceChildren();
    const cw = (w - lw - rw) / c.n, x0 = (j) => lw + j * cw;
    // bands: the aligned columns, the erased ones
    for (let j = 0; j < c.n; j++) {
      if (c.aligned && c.aligned.includes(j)) svgEl("rect", { class: "aligned-band", x: x0(j), y: top - 4, width: cw, height: rows.length * row }, svg);
      if (this._erased.has(j)) svgEl("rect", { class: "erased-band", x: x0(j), y: top - 4, width: cw, height: rows.length * row }, svg);
    }
    // a row's label and τ: in the columns either side of its bars, or (narrow) on a line above them
    const left = (y0, y1) => (narrow ? { x: lw, y: y0 + 11 } : { x: LW - 8, y: (y0 + y1) / 2 + 4, "text-anchor": "end" });
    const right = (y0, y1) => (narrow ? { x: w - rw, y: y0 + 11, "text-anchor": "end" } : { x: W - RW + 8, y: (y0 + y1) / 2 + 4 });
    // the source tokens: one tab stop, toggle buttons
    this._tokFocus = Math.min(this._tokFocus, c.n - 1);
    svgEl("text", { ...(narrow ? { x: lw, y: 12 } : { x: LW - 8, y: 19, "text-anchor": "end" }), class: "row-label muted" }, svg).textContent = "source (erase)";
    this._toks = c.srcLabels.map((t, j) => {
      const erased = this._erased.has(j);
      const g = svgEl("g", { class: `tok focusable${erased ? " erased" : ""}`, role: "button", tabindex: j === this._tokFocus ? 0 : -1,
        "aria-pressed": String(erased), "aria-label": `source token ${j + 1}, ${spoken(t)}: ${erased ? "erased; press to restore" : "press to erase"}` }, svg);
      svgEl("rect", { class: "tok-bg", x: x0(j) + 2, y: ty + 2, width: cw - 4, height: tok - 6, rx: 4 }, g);
      svgEl("rect", { class: "ring", x: x0(j), y: ty, width: cw, height: tok - 2, rx: 5 }, g);
      svgEl("text", { x: x0(j) + cw / 2, y: ty + tok / 2 + 5, "text-anchor": "middle" }, g).textContent = tokenLabel(t);
      g.addEventListener("click", () => this._toggle(j));
      g.addEventListener("keydown", (e) => this._tokKey(e, j));
      g.addEventListener("focus", () => { this._tokFocus = j; });
      return g;
    });
    if (hadFocus) this._toks[this._tokFocus].focus();
    if (!narrow) svgEl("text", { x: W - RW + 8, y: 19, class: "tau muted" }, svg).textContent = "τ with attention";
    rows.forEach((r, i) => {
      const y0 = top + i * row, y1 = y0 + row - 8, yb = y0 + lab; // yb: the top of the bars
      const g = svgEl("g", { class: `row row-${r.key}`, "data-row": r.key }, svg);
      let label = r.label;
      if (r.key === "attention") label = c.head === "mean" ? "attention (mean)" : `attention L${c.head.split(".")[0]} H${c.head.split(".")[1]}`;
      svgEl("text", { ...left(y0, y1), class: "row-label" }, g).textContent = label;
      if (r.key === "alignment" && !c.alignRow) {
        svgEl("text", { x: lw + 4, y: (yb + y1) / 2 + 4, class: "caption muted" }, g).textContent = `unknown: ${c.alignError.slice(0, narrow ? 40 : 70)}`;
        return;
      }
      const values = r.key === "attention" ? c.attention : r.key === "alignment" ? c.alignRow : c.importance[r.key];
      const { bars, max } = importanceBars(values);
      const mid = r.signed ? (yb + y1) / 2 : y1, half = r.signed ? (y1 - yb) / 2 : y1 - yb;
      svgEl("line", { class: "base", x1: lw, x2: w - rw, y1: mid, y2: mid }, g);
      const cls = r.key === "attention" ? "att" : r.key === "rollout" ? "roll" : r.key === "alignment" ? "align" : null;
      bars.forEach((b, j) => {
        const h = Math.abs(b.h) * half;
        const x = x0(j) + cw * 0.18, bw = cw * 0.64;
        let el;
        if (r.key === "attention" && b.value === 0) el = svgEl("circle", { class: "zero", cx: x0(j) + cw / 2, cy: mid - 3, r: 2.6, "data-value": "0" }, g);
        else {
          const up = b.h >= 0;
          el = svgEl("rect", { class: `bar ${cls || (up ? "pos" : "neg")}`, x, width: bw, y: up ? mid - h : mid, height: Math.max(b.value === 0 ? 0 : 0.8, h),
            "data-value": String(b.value) }, g);
        }
        svgEl("title", {}, el).textContent = `${label}, ${tokenLabel(c.srcLabels[j])}: ${r.key === "alignment" ? (b.value ? "aligned" : "not aligned")
          : r.key === "attention" && b.value === 0 ? "exactly 0" : b.value.toPrecision(3)}`;
      });
      if (r.key !== "alignment" && r.key !== "attention") {
        svgEl("text", { ...right(y0, y1), class: "tau" }, g).textContent = `τ = ${formatTau(c.tau[r.key])}`;
      } else if (r.key === "alignment") {
        svgEl("text", { ...right(y0, y1), class: "tau" }, g).textContent = `τ = ${formatTau(c.tau.alignment)}`;
      } else {
        svgEl("text", { ...right(y0, y1), class: "tau muted" }, g).textContent = `max ${fmt(max, 2)}`;
      }
    });
    const obj = s.objective === "logit" ? "logit" : "log p";
    const captions = [`"${s.text}" → "${c.output}" (${LABELS[s.kind]}): step ${c.step + 1} predicts "${tokenLabel(c.target)}", ${obj} ${fmt(c.value, 2)}, p ${fmt(Math.exp(c.logProb), 3)}`,
      "each row scaled to its largest |value|; signed attributions: red up, blue down; rings: exact zeros"];
    // under the picture when narrow (a line of the picture would run past its edge)
    this._caption.hidden = !narrow;
    this._caption.textContent = narrow ? captions.join(". ") + "." : "";
    if (!narrow) {
      const yc = top + rows.length * row + 14;
      captions.forEach((t, k) => { svgEl("text", { x: 4, y: yc + 15 * k, class: "caption muted" }, svg).textContent = t; });
    }
  }

  _toggle(j) {
    const erased = new Set(this._erased);
    if (erased.has(j)) erased.delete(j); else erased.add(j);
    this.erase = erased.size ? [...erased].sort((a, b) => a - b) : null;
    this._tokFocus = j;
    this._cache = null;
    this.renderNow();
    this._toks?.[j]?.focus();
  }

  _tokKey(e, j) {
    const n = this._toks.length;
    const moves = { ArrowLeft: j - 1, ArrowRight: j + 1, Home: 0, End: n - 1 };
    if (e.key in moves) {
      e.preventDefault();
      const k = Math.max(0, Math.min(n - 1, moves[e.key]));
      this._tokFocus = k;
      this._toks.forEach((t, i) => t.setAttribute("tabindex", i === k ? "0" : "-1"));
      this._toks[k].focus();
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      this._toggle(j);
    }
  }

  _drawErasure(c) {
    const el = this._erasedOut;
    el.replaceChildren();
    this._resetBtn.disabled = !this._erased.size;
    if (!c.erasure) {
      htmlEl("span", { class: "muted", text: "click a source token to erase it" }, el);
      return;
    }
    const d = charDiff(c.output, c.erasure.output);
    const what = c.erasure.keys.map((j) => `"${tokenLabel(c.srcLabels[j])}"`).join(", ");
    htmlEl("span", { class: "muted", text: `erasing ${what} from ${this._scope === "step" ? `step ${c.step + 1}'s` : "every"} cross-attention row${this._scope === "step" ? "s" : ""}: ` }, el);
    const o = htmlEl("span", { class: "mono" }, el);
    htmlEl("span", { text: c.output }, o);
    htmlEl("span", { class: "muted", text: " → " }, o);
    const now = htmlEl("span", { class: "after" }, o);
    for (const ch of d.chars) htmlEl("span", ch.changed ? { class: "changed", text: ch.ch } : { text: ch.ch }, now);
    htmlEl("span", { class: "muted", text: d.changed ? ` (${d.changed} character${d.changed === 1 ? "" : "s"} changed${d.dropped ? `, ${d.dropped} dropped` : ""})` : " (unchanged)" }, el);
  }

  _hereText(c) {
    const top = (v) => { let b = 0; for (let j = 1; j < v.length; j++) if (v[j] > v[b]) b = j; return b; };
    const ta = top(c.attention), tl = top(c.importance.leaveOneOut);
    const name = (j) => `"${tokenLabel(c.srcLabels[j])}"`;
    const t = c.tau.leaveOneOut;
    const strength = !Number.isFinite(t) ? "undefined" : Math.abs(t) < 0.3 ? "weak" : Math.abs(t) < 0.6 ? "moderate" : "strong";
    let s = `Here, at step ${c.step + 1}: τ(attention, leave-one-out) = ${formatTau(t)} (${strength}), τ(attention, gradient × input) = ${formatTau(c.tau.gradInput)}. ` +
      `The largest weight is on ${name(ta)}, leave-one-out's largest importance on ${name(tl)}`;
    if (c.aligned) s += c.aligned.length ? `; the output is read from ${c.aligned.map(name).join(", ")}, which attention ${c.aligned.includes(ta) ? "does" : "does not"} point at.` : "; this output comes from no source token.";
    else s += ".";
    const zeros = c.attention.filter((v) => v === 0).length;
    if (zeros) s += ` ${zeros} of ${c.n} weights are exactly 0.`;
    return s;
  }

  // ------------------------------------------------------------- experiments
  async _runExperiments() {
    if (this._exp && (this._exp.status === "running" || this._exp.status === "loading")) return;
    const { s } = this.settings();
    const run = this._exp = { task: s.task, count: s.examples, status: "loading", thread: null, worker: null, why: null,
      controller: new AbortController(), done: 0, total: EXP_KINDS.length * s.examples, index: 0, t0: performance.now() };
    this._drawProgress();
    this.renderNow();
    let models;
    try {
      models = await Promise.all(EXP_KINDS.map(async (kind) => {
        const url = checkpointUrl(s.task, kind, s.models);
        try { return { kind, bytes: await fetchBytes(url.href) }; } catch (err) { throw new Error(`could not fetch ${url.href}: ${err.message}`); }
      }));
    } catch (err) {
      if (run === this._exp) this._endRun(run, "failed", err.message);
      return;
    }
    if (run !== this._exp || run.status !== "loading") return;
    run.status = "running";
    const msg = { type: "run", task: s.task, models, count: s.examples, ...EXP };
    const use = (w) => Object.assign(run, { worker: w.worker, thread: w.thread, why: w.why });
    use(startSession({ startWorker: startExplainWorker, info: explainWorker, MainThreadClass: MainThreadExplainWorker, start: msg,
      refused: refusedWorkers, onMessage: (m) => this._onWorker(run, m), current: () => run === this._exp && run.status === "running",
      onError: (e) => this._endRun(run, "failed", `the experiments worker failed: ${e.message || "unknown error"}`),
      onMessageError: () => this._endRun(run, "failed", "a message from the experiments worker could not be read"),
      onFallback: use }));
    run.controller.signal.addEventListener("abort", () => { if (run.worker) run.worker.postMessage({ type: "cancel" }); });
    this._drawProgress();
  }

  _onWorker(run, msg) {
    if (run !== this._exp || run.status !== "running" && run.status !== "cancelling") return;
    switch (msg.type) {
      case "started": break;
      case "progress":
        run.index = msg.index;
        run.done = msg.index * run.count + msg.done;
        break;
      case "result": break;
      case "done":
        if (msg.cancelled) this._endRun(run, "cancelled");
        else {
          run.done = run.total;
          this._results = { task: run.task, examples: run.count, summaries: msg.summaries };
          this._endRun(run, "done");
          this.emit("experiments", { task: run.task, examples: run.count, summaries: msg.summaries });
        }
        return;
      case "error": this._endRun(run, "failed", msg.message); return;
      default: break;
    }
    this._drawProgress();
  }

  _cancel() {
    const run = this._exp;
    if (!run || (run.status !== "running" && run.status !== "loading")) return;
    if (run.status === "loading") { this._endRun(run, "cancelled"); return; }
    run.status = "cancelling";
    run.controller.abort();
    run.cancelTimer = setTimeout(() => { if (run.status === "cancelling") this._endRun(run, "cancelled"); }, CANCEL_TIMEOUT_MS);
    this._drawProgress();
  }

  _endRun(run, status, message = "") {
    clearTimeout(run.cancelTimer);
    if (!run.controller.signal.aborted && status !== "done") run.controller.abort();
    if (run.worker) { run.worker.terminate(); run.worker = null; }
    run.status = status;
    run.message = message;
    run.ms = performance.now() - run.t0;
    this._drawProgress();
    if (this.isConnected) this.renderNow();
  }

  _drawProgress() {
    const run = this._exp;
    if (!run) return;
    const pct = run.total ? Math.round((100 * run.done) / run.total) : 0;
    this._bar.setAttribute("aria-valuenow", String(pct));
    this._bar.setAttribute("aria-valuetext", `${pct}%: ${run.done} of ${run.total} model-examples`);
    this._barRect.setAttribute("width", String(pct));
    const where = run.thread === "main" ? ` on the page's main thread (${run.why})` : run.thread === "worker" ? " in a Web Worker" : "";
    const st = this._estatus;
    st.classList.toggle("error", run.status === "failed");
    const model = LABELS[EXP_KINDS[Math.min(run.index, EXP_KINDS.length - 1)]];
    st.textContent = run.status === "loading" ? "Fetching the three models…"
      : run.status === "running" ? `Running${where}: ${model}, example ${Math.min(run.count, run.done - run.index * run.count + 1)} of ${run.count} (${pct}%)…`
        : run.status === "cancelling" ? "Cancelling…"
          : run.status === "cancelled" ? `Cancelled after ${run.done} of ${run.total} model-examples; nothing new is drawn.`
            : run.status === "failed" ? `The experiments failed: ${run.message}`
              : `Done${where}: ${run.count} held-out examples per model in ${fmt(run.ms / 1000, 1)} s.`;
    const busy = run.status === "running" || run.status === "loading" || run.status === "cancelling";
    this._runBtn.disabled = busy;
    this._cancelBtn.disabled = !(run.status === "running" || run.status === "loading");
  }

  // The erasure curves, the tables and the notes of the last finished run.
  _drawExperiments() {
    const res = this._results;
    if (!res || this._v2.hidden) return;
    if (this._drawnResults === res) return;
    this._drawnResults = res;
    const kinds = EXP_KINDS.filter((k) => res.summaries[k]);
    const svg = this._curves;
    svg.replaceChildren();
    const x = linear([0, 1], [CL, CW - CR]), y = linear([0, 1], [CH - CB, CT]);
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      svgEl("line", { class: "axis", x1: x(0), x2: x(1), y1: y(v), y2: y(v) }, svg);
      svgEl("text", { x: CL - 6, y: y(v) + 4, "text-anchor": "end", class: "muted" }, svg).textContent = `${v * 100}%`;
      svgEl("text", { x: x(v), y: CH - CB + 16, "text-anchor": "middle", class: "muted" }, svg).textContent = `${v * 100}%`;
    }
    svgEl("text", { x: (x(0) + x(1)) / 2, y: CH - 6, "text-anchor": "middle" }, svg).textContent = "source keys erased";
    svgEl("text", { x: 4, y: CT - 2, class: "muted" }, svg).textContent = "decisions flipped";
    const legend = svgEl("g", { class: "legend" }, svg);
    let ly = CT + 8;
    for (const k of kinds) {
      for (const order of ["attention", "random"]) {
        const { points } = erasureCurve(res.summaries[k].erasure[order].fractions);
        const p = svgEl("path", { class: `line k-${k}${order === "random" ? " random" : ""}`, d: stepPath(points, x, y), "data-kind": k, "data-order": order }, svg);
        svgEl("title", {}, p).textContent = `${LABELS[k]}, erased ${order === "random" ? "at random" : "by attention"}`;
        svgEl("line", { class: `line k-${k}${order === "random" ? " random" : ""}`, x1: CW - CR + 12, x2: CW - CR + 36, y1: ly, y2: ly }, legend);
        svgEl("text", { x: CW - CR + 42, y: ly + 4 }, legend).textContent = `${LABELS[k]}${order === "random" ? ", random" : ""}`;
        ly += 17;
      }
    }
    const f = experimentFindings(res.summaries, LABELS);
    this._note2.replaceChildren();
    this._note2.innerHTML = "<b>Asks:</b> erase the source keys from the step's cross-attention rows one by one, most attended first (solid) or at random (dashed): " +
      "how many must go before the decision flips? <b>Found:</b> erasing the top-attended items often does not flip the decision; many must go, " +
      "though fewer than at random (Serrano &amp; Smith 2019).";
    htmlEl("span", { class: "here", text: `Here (${res.examples} held-out examples per model): ${f.erasure}` }, this._note2);
    this._tables.replaceChildren();
    for (const k of kinds) {
      const table = htmlEl("table", { "data-kind": k }, this._tables);
      htmlEl("caption", { text: LABELS[k] }, table);
      const body = htmlEl("tbody", {}, table);
      let group = "";
      for (const r of experimentTable(res.summaries[k])) {
        if (r.group !== group) {
          group = r.group;
          htmlEl("th", { scope: "rowgroup", colspan: 2, text: group }, htmlEl("tr", {}, body));
        }
        const tr = htmlEl("tr", {}, body);
        htmlEl("th", { scope: "row", text: r.label }, tr);
        htmlEl("td", { text: r.value }, tr);
      }
    }
    this._note3.replaceChildren();
    this._note3.innerHTML = "<b>Asks:</b> over many examples, does attention agree with the attributions (Kendall τ), point at the known source token, " +
      "and is it the only attention that gives this output? <b>Found:</b> weak agreement with gradient and leave-one-out importance, and very different " +
      "(adversarial) attention giving the same output (Jain &amp; Wallace 2019); sparse attention is not automatically more interpretable (Meister et al. 2021).";
    for (const t of [f.tau, f.alignment, f.adversarial, f.sparse]) if (t) htmlEl("span", { class: "here", text: t }, this._note3);
  }
}

define("sx-explain", SxExplain);
