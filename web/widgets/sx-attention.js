// <sx-attention>: the tiny Transformer's attention, live. Type an input for a task; see the
// greedy output and every attention map (encoder self, decoder self, cross) as heatmaps per
// layer and head, with the per-head alpha, span and sparsity; switch between the shipped
// softmax / 1.5-entmax / learned-alpha / alpha+span models; or train one from scratch in a
// Web Worker (train-worker.js, or its bundled code from a Blob URL: train-session.js's
// trainWorker()) and watch its maps, alphas and spans form. Where no worker can be started (a
// CSP that forbids it, the file missing), the same session runs on the main thread in short
// slices, and the status line says so.
// The reader's own model: one trained here, or a .sxm checkpoint loaded from the file picker or
// dropped on the widget, is kept in this browser (model-store.js: IndexedDB, one per task and
// kind), shown again after a reload, until "Forget"; "Download .sxm" saves the model shown. A
// loaded file is matched to a task by its vocabulary and length and, where tasks share those
// (reverse, sort), by its held-out exact accuracy; a bad one leaves a message and the model shown.
// "Decode step by step" (the decode attribute opens it) walks through the greedy decoding with a
// step slider, Prev / Next and Play: at step t each decoder layer's KV cache holds t of maxLen
// positions, the cross-attention keys and values were computed once, each head's attention row
// of the step is drawn (model.forward over the prefix: the incremental step's row), and the rows
// computed with the cache and without it are counted.
// Cause and effect on one screen: under the field, what the task takes (viz/task-text.js: its
// characters and longest input, from the task table) or, in plain words, why the text was refused
// (never cut; capitals folded where the alphabet asks); the other messages above the maps; the
// training bar above the maps, sticky while a model trains; a cell's weight in a tooltip by it.
//   <sx-attention task="reverse" kind="alpha" input="abcdefgh"></sx-attention>
// Attributes: task (reverse, sort, after_marker, date), kind (softmax, entmax15, alpha,
// alpha-span), input (text in the task's alphabet), maps (which maps, in order: encoder decoder
// cross), models (the folder of the .sxm files; default: models/ beside the library), model-src
// (the URL of a .sxm to show instead of the shipped model), no-train (hide the training panel,
// and with it the reader's own models), decode (open the step-by-step decoding), theme. Property: trainOptions (schedule overrides,
// trainer.js); read-only: trainingWorker (the Worker while one trains), trainingThread
// ("worker", "main" or null), shownModel (what the sx-attention-model event said last).
// A model file is fetched only when the widget comes into view, and only the one shown.
// Events: sx-attention-change { task, kind, input }, sx-attention-progress { step, loss,
// accuracy }, sx-attention-trained { step, ms, wallMs, accuracy, reachedAt, test, stopped } (fired
// after the widget has drawn the trained or stopped model), sx-attention-model { source, task,
// kind, name, size, date, steps, accuracy, examples } (the model shown changed; source: "shipped",
// "url", "trained", "stored" or "file").
import { SxElement, define, sheet, svgEl, htmlEl, svgPoint, fmt, ready } from "./base.js";
import { Model, tasks } from "../lib/simplexity.js";
import { inspect, EXAMPLES } from "./runtime/inspect.js";
import { KINDS, KIND_LABELS, SCHEDULE, Evaluation, kindFits } from "./runtime/trainer.js";
import { MainThreadWorker, trainWorker, startTrainWorker } from "./runtime/train-session.js";
import { startSession } from "./runtime/main-thread.js";
import { checkpointUrl, fetchCheckpoint as fetchBytes, loadCheckpoint } from "./runtime/checkpoints.js";
import { getModel, listModels, putModel, deleteModel } from "./runtime/model-store.js";
import { heatmapLayout, heatLevel, cellKind, tokenLabel, equalRuns } from "./viz/heatmap.js";
import { headStats } from "./viz/attention-stats.js";
import { lossCurve } from "./viz/loss-curve.js";
import { readText, taskLimits, quote } from "./viz/task-text.js";

const TASKS = ["reverse", "sort", "after_marker", "date"];
const MAP_KINDS = ["encoder", "decoder", "cross"];
const MAP_TITLES = {
  encoder: "encoder self-attention: source → source",
  decoder: "decoder self-attention (causal): output → output so far",
  cross: "cross-attention: output → source",
};
// the same on a narrow widget (a phone), where a unit of the picture is about a pixel
const MAP_TITLES_NARROW = { encoder: "encoder self-attention", decoder: "decoder self-attention (causal)", cross: MAP_TITLES.cross };
const TITLE_H = 24, BLOCK_GAP = 18, LOSS_W = 720, LOSS_H = 170, SPARK_W = 120, SPARK_H = 28;
const MIN_TEXT_PX = 11; // the smallest text on screen (SVG text is scaled by its viewBox)
const PLAY_MS = 900; // one decoding step per PLAY_MS while "Play" runs
const STOP_TIMEOUT_MS = 8000;
const NARROW_PX = 560;
const short = (v) => String(Number(v.toFixed(1))); // 9 rather than 9.0

// Worker sources ("file", "blob") that could not be started on this page, and why: later runs train on the main
// thread at once (no second refusal in the console).
const refusedWorkers = new Map();
const EVAL_TEXT = { validate: "checking held-out examples", confirm: "checking more held-out examples", test: "testing on other held-out examples" };

// The checkpoints' bytes come from checkpoints.js's fetchCheckpoint: fetched once per page (and
// shared with <sx-explain>), when first shown.

// ------------------------------------------------------------ the reader's own models
// A checkpoint this widget takes: at most MAX_FILE bytes (the shipped ones are 88 KB), one of the
// four kinds, a task's vocabulary; scored on CHECK_EXAMPLES held-out examples of each task it fits.
const MAX_FILE = 16 << 20, CHECK_EXAMPLES = 200, CHECK_SEED = 4242;
const keyOf = (task, kind) => `${task}-${kind}`;
const kb = (n) => `${Math.max(1, Math.round(n / 1024))} KB`;
const pct = (a) => `${fmt(100 * a, 1)}%`;
const when = (ms) => new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

// The kind (trainer.js modelConfig) of a model's config, or null for an attention none of the
// kinds has (sparsemax, a fixed α, a span on softmax, layers that differ).
function kindOf(c) {
  const a = c.attention[0];
  if (c.attention.some((x) => x !== a)) return null;
  if (a === "entmax-learned") return c.span ? "alpha-span" : "alpha";
  if (a === "fusedmax" || a === "oscarmax") return c.span ? null : a;
  return (a === "softmax" || a === "entmax15") && !c.span ? a : null;
}

// Does map m (one layer's heads) have a row with two equal nonzero weights side by side?
function hasLongRun(m) {
  const { heads, nq, nk, data, kind } = m;
  for (let r = 0; r < heads * nq; r++) {
    const visible = kind === "decoder" ? (r % nq) + 1 : nk;
    if (equalRuns(data.subarray(r * nk, r * nk + visible), visible).some(([a, b]) => b - a > 1)) return true;
  }
  return false;
}

// Held-out exact-sequence accuracy of model on task, in slices of ~16 ms (a large model does not
// freeze the page).
async function heldOutExact(model, task) {
  const ev = new Evaluation(model, tasks.generate(task, { seed: CHECK_SEED, count: CHECK_EXAMPLES, split: "heldout" }));
  while (!ev.run(16)) await new Promise((r) => setTimeout(r, 0));
  return ev.accuracy;
}

// Checkpoint bytes checked for this widget: { model, rec } (rec: model-store.js's record, source
// and name to fill), or an Error saying why not. The task: among those whose vocabulary and
// length the model has (reverse and sort share theirs), the one it scores best on; the task the
// file's name starts with ("sort-alpha-trained.sxm"), then the widget's, win within 5 points.
async function checkModel(bytes, name, current) {
  if (bytes.length > MAX_FILE) throw new Error(`it has ${fmt(bytes.length / 1048576, 1)} MB, more than the ${MAX_FILE >> 20} MB this widget takes`);
  let model;
  try { model = Model.load(bytes); } catch (err) {
    throw new Error(`it is not a usable Simplexity checkpoint (${err.message.replace(/^Model\.load: (model_load: )?/, "")})`);
  }
  try {
    const c = model.config, kind = kindOf(c);
    if (!kind) {
      throw new Error(`its attention (${c.attention.join(", ")}${c.span ? " with a span" : ""}) is none of this widget's models (${KINDS.map((k) => KIND_LABELS[k]).join(", ")})`);
    }
    const fits = TASKS.filter((t) => tasks.vocab(t).length === c.vocab && c.maxLen >= tasks.width(t));
    if (!fits.length) {
      throw new Error(`its vocabulary (${c.vocab} tokens) and length (${c.maxLen}) fit none of the tasks (${TASKS.map((t) => `${t}: ${tasks.vocab(t).length} tokens, length ${tasks.width(t)}`).join("; ")})`);
    }
    const hint = TASKS.find((t) => name.startsWith(`${t}-`));
    let best = null;
    for (const task of new Set([hint, current, ...fits])) {
      if (!fits.includes(task)) continue;
      let acc;
      try { acc = await heldOutExact(model, task); } catch (err) { throw new Error(`it gives no usable output (${err.message})`); }
      if (!best || acc > best.acc + 0.05) best = { task, acc };
    }
    const rec = { key: keyOf(best.task, kind), task: best.task, kind, bytes, source: "file", name, date: Date.now(), steps: null, accuracy: best.acc, examples: CHECK_EXAMPLES };
    return { model, rec };
  } catch (err) {
    model.free();
    throw err;
  }
}

// ------------------------------------------------------- step-by-step decoding
// Greedy decoding of text, step by step. Step t (1-based) feeds the decoder the token picked at
// step t - 1 (BOS first) at position t - 1: each layer appends that position's key and value to
// its self-attention cache (t slots filled), scores the step's one query against the t cached
// keys and against the source's keys (the cross-attention K/V, computed once from the encoder
// output), and the step picks out[t]. The rows are the model's own: the last row of the causal
// maps of model.forward over the prefix out[0..t), which is what the incremental step computes
// (to float rounding: tests/js/kvcache.test.mjs, tests/c/test_kvcache.c).
//   -> { out (model.generate's row), steps (T: the last one emits EOS), ns (source + EOS), layers,
//        heads, maxLen, vocab, srcLabels, rows: [t - 1] -> { self: [layer][head] Float32Array(t),
//        cross: [layer][head] Float32Array(ns) } }
function decodeSteps(model, task, text) {
  const src = tasks.encode(task, text);
  const [out] = model.generate([src]);
  const vocab = tasks.vocab(task), eos = out.indexOf(vocab.indexOf("<eos>"));
  const T = eos > 0 ? eos : out.length - 1; // no EOS: every position was decoded
  const ns = text.length + 1;
  const { layers, heads, maxLen } = model.config;
  const rows = [];
  for (let t = 1; t <= T; t++) {
    const { attention } = model.forward([src], [out.slice(0, t)]);
    const row = { self: [], cross: [] };
    for (const a of attention) {
      if (a.kind === "encoder") continue;
      const [, H, Tq, Tk] = a.shape, n = a.kind === "decoder" ? t : ns, per = [];
      for (let h = 0; h < H; h++) {
        const at = (h * Tq + Tq - 1) * Tk; // the last query: step t's
        per.push(a.data.slice(at, at + n));
      }
      row[a.kind === "decoder" ? "self" : "cross"][a.layer] = per;
    }
    rows.push(row);
  }
  return { out, steps: T, ns, layers, heads, maxLen, vocab, srcLabels: [...text, "<eos>"], rows };
}

// The work of steps 1..t, counted from the config (exact integers, no timing): decoder positions
// run through a layer (each: its q, k, v rows and the rest of the layer), self-attention scores
// (query-key pairs, per head) and cross-attention key/value rows, with the cache (one new
// position per step, the source's K/V once) and without it (every step recomputes positions
// 0..s-1, their causal attention and the source's K/V).
function decodeWork(t, { ns, layers, heads }) {
  return {
    rows: { cached: layers * t, full: (layers * t * (t + 1)) / 2 },
    scores: { cached: (layers * heads * t * (t + 1)) / 2, full: (layers * heads * t * (t + 1) * (t + 2)) / 6 },
    crossKV: { cached: layers * ns, full: layers * ns * t },
  };
}

const CSS = sheet(`
td.zero { color: var(--_accent); font-weight: 700; }
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 8px; }
.row label { display: inline-flex; flex-wrap: wrap; gap: 6.4px; align-items: center; }
button, select { min-height: 24px; min-width: 24px; }
summary { min-height: 24px; display: list-item; padding: 2px 0; }
input[type="text"] { font: 14px/1.3 ui-monospace, "SF Mono", Menlo, Consolas, monospace; color: var(--_fg); background: var(--_bg);
  border: 1px solid var(--_grid); border-radius: 6px; padding: 2.4px 6.4px; width: 176px; min-height: 28px; }
input[type="text"]:focus-visible, select:focus-visible { outline: 2px solid var(--_softmax); outline-offset: 1px; }
input[type="text"][aria-invalid="true"] { border: 2px solid var(--_accent); }
.entry { margin: 0 0 6.4px; }
.entry label { display: inline-flex; gap: 6.4px; align-items: center; }
.hint { margin: 3.2px 0 0; font-size: 13px; color: var(--_muted); }
.hint.bad { color: var(--_fg); border-left: 3px solid var(--_accent); padding-left: 6.4px; }
.hint code { font: 13px ui-monospace, "SF Mono", Menlo, Consolas, monospace; background: var(--_panel); padding: 0 3px; border-radius: 4px; color: var(--_fg); }
.point { color: var(--_muted); font-size: 13px; margin: 4.8px 0; }
.point .coarse { display: none; }
@media (pointer: coarse) { .point .fine { display: none; } .point .coarse { display: inline; } }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; margin: 0; }
.tip { position: absolute; z-index: 3; pointer-events: none; max-width: 260px; padding: 4px 8px; border-radius: 6px;
  background: var(--_fg); color: var(--_bg); font-size: 13px; line-height: 1.35; box-shadow: 0 2px 6px rgb(0 0 0 / 0.25); }
.tip[hidden] { display: none; }
.tip b { font-variant-numeric: tabular-nums; font-size: 14px; }
.io { margin: 3.2px 0 6.4px; font-variant-numeric: tabular-nums; }
.io code { font: 14px ui-monospace, "SF Mono", Menlo, Consolas, monospace; background: var(--_panel); padding: 0 4px; border-radius: 4px; }
.io .ok { color: var(--_entmax15); font-weight: 600; }
.io .bad { color: var(--_accent); font-weight: 600; }
.io .muted { color: var(--_muted); }
.source { color: var(--_muted); font-size: 13px; margin: 0 0 4.8px; }
svg.picture.maps { max-width: 940px; }
svg .cell { fill: var(--sx-heat, var(--_softmax)); stroke: none; }
svg .zeros { stroke: var(--_muted); stroke-linecap: round; fill: none; }
svg .frame { fill: none; stroke: var(--_grid); stroke-width: 0.8; }
svg .tok { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; fill: var(--_muted); }
svg .cap { font-size: 11px; }
svg .cap.muted { fill: var(--_muted); }
svg .block-title { font-weight: 600; font-size: 13px; }
svg .panel:focus { outline: none; }
svg .panel:focus-visible .frame { stroke: var(--_accent); stroke-width: 2; }
svg .cursor { fill: none; stroke: var(--_accent); stroke-width: 2; pointer-events: none; }
svg .legend text { font-size: 11px; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; min-height: 1.4em; }
details { margin: 6.4px 0 0; }
summary { cursor: pointer; color: var(--_muted); }
.scroll { overflow-x: auto; max-width: 100%; }
details[part="stats"] { container-type: inline-size; }
th .short, .short-key { display: none; }
.short-key { color: var(--_muted); font-size: 12px; margin: 3.2px 0 0; }
@container (max-width: 400px) {
  .scroll table { font-size: 11px; }
  .scroll th, .scroll td { padding: 2.4px 2.5px; }
}
@container (max-width: 310px) {
  .short-key { display: block; }
  th .long:has(+ .short) { display: none; }
  th .short { display: inline; }
}
.tbar { margin: 6.4px 0 4.8px; padding: 4.8px 0; border-top: 1px solid var(--_grid); }
.tbar.live { position: sticky; top: 0; z-index: 2; background: var(--_bg); border-bottom: 1px solid var(--_grid); }
.tbar[hidden], .own[hidden], .tbar [hidden], .own [hidden] { display: none; }
progress { width: 160px; height: 14.4px; accent-color: var(--_accent); }
.tstatus { font-variant-numeric: tabular-nums; font-size: 13px; flex: 1 1 240px; }
svg.spark { width: ${SPARK_W}px; height: ${SPARK_H}px; flex: none; touch-action: auto; }
svg.spark.off { display: none; }
svg.spark .frame { fill: none; stroke: var(--_grid); }
svg.picture.maps, svg.picture.loss, svg.picture.decode { touch-action: auto; }
.tstatus.error { color: var(--_accent); font-weight: 600; }
.keep { color: var(--_muted); font-size: 13px; }
.keep button { margin-left: 6.4px; }
.keep.warn { color: var(--_accent); }
.body.drop { outline: 2px dashed var(--_accent); outline-offset: 4px; border-radius: 6px; }
svg.picture.loss { max-width: 720px; margin-top: 6.4px; }
svg.picture.off { display: none; }
svg .loss-raw { fill: none; stroke: var(--_softmax); stroke-opacity: 0.35; stroke-width: 1; }
svg .loss-smooth { fill: none; stroke: var(--_softmax); stroke-width: 2; }
svg .acc { fill: var(--_entmax15); stroke: var(--_bg); stroke-width: 1; }
svg .runs { fill: none; stroke: var(--_fusedmax); stroke-width: 1.5; stroke-linejoin: round; }
svg .acc-confirm { fill: none; stroke: var(--_entmax15); stroke-width: 1.5; }
svg .acc-line { fill: none; stroke: var(--_entmax15); stroke-width: 1.2; }
svg .target { stroke: var(--_entmax15); stroke-dasharray: 4 3; stroke-opacity: 0.7; }
.decode .row output { font-variant-numeric: tabular-nums; min-width: 64px; }
.decode input[type="range"] { width: 160px; max-width: 100%; height: 24px; margin: 0; accent-color: var(--_accent); }
.decode button { min-height: 24px; min-width: 24px; }
.dio { margin: 3.2px 0 6.4px; font-variant-numeric: tabular-nums; min-height: 1.4em; }
.dio code { font: 14px ui-monospace, "SF Mono", Menlo, Consolas, monospace; background: var(--_panel); padding: 0 4px; border-radius: 4px; }
.dio .chosen { color: var(--_accent); font-weight: 600; }
svg.picture.decode { max-width: 940px; }
svg .slot { stroke-width: 1; }
svg .slot.filled { fill: var(--_muted); fill-opacity: 0.45; stroke: var(--_muted); }
svg .slot.new { stroke: var(--_accent); stroke-width: 2; }
svg .slot.empty { fill: none; stroke: var(--_grid); }
svg .slot.cross { fill: var(--_softmax); fill-opacity: 0.3; stroke: var(--_softmax); stroke-opacity: 0.6; }
ul.work { margin: 4.8px 0 0; padding-left: 19.2px; font-variant-numeric: tabular-nums; }
ul.work li { margin: 1.6px 0; }
`);

export class SxAttention extends SxElement {
  static spec = {
    task: { type: "enum", default: "reverse", values: TASKS },
    kind: { type: "enum", default: "alpha", values: KINDS },
    maps: { type: "enums", default: MAP_KINDS, values: MAP_KINDS },
    "no-train": { type: "bool" },
    decode: { type: "bool" },
    step: { type: "number", default: 1, min: 1, max: 255, integer: true }, // the decoding step shown (a link keeps it)
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];
  static lazy = true; // no redraw off screen (base.js)
  // input, models and model-src are free text, checked in settings() (parse-attr has no string type)
  static get observedAttributes() { return [...Object.keys(this.spec), "input", "models", "model-src"]; }
  // where the models come from and whether the reader may train are the page's, never a link's (link.js)
  static authorOnly = ["models", "model-src", "no-train"];
  // a step the panel itself wrote is drawn already: no full render for it
  attributeChangedCallback(name) { if (name !== "step" || this.step !== this._decStep) super.attributeChangedCallback(); }

  constructor() {
    super();
    this._seen = false;        // has come into view: models may be fetched
    this._shipped = null;      // { key, model, url, size, bytes } the shipped model shown
    this._pending = null;      // the key being fetched
    this._failed = null;       // { key, message } the last failed load
    this._run = null;          // the training run (see _startTraining)
    this._showRun = false;     // show the run under way instead of a finished model
    this._mine = new Map();    // key (task-kind) -> { rec, restored, kept } the reader's model, or null: none
    this._looking = new Set(); // keys being looked up in the store
    this._kept = null;         // the keys the store keeps (null: not listed yet)
    this._listing = false;     // asked the store for them
    this._ownModel = null;     // { entry, model } the loaded Model of a reader's model
    this._showOwn = true;      // show the reader's model (when there is one) rather than the shipped one
    this._url = null;          // { href, state: pending | ok | failed, model, rec, message } model-src's model
    this._storeWhy = null;     // why the browser could not keep a model (IndexedDB's error)
    this._shownModel = null;   // the detail of the last sx-attention-model event
    this._shownFile = null;    // { bytes, name } what "Download .sxm" saves
    this._checking = null;     // the name of the file being checked
    this._fileToken = null;    // the latest file load (an older one that ends later is dropped)
    this._lastGood = {};       // task -> the last valid input (kept while the reader types)
    this._cursor = null;       // { kind, layer, head, i, j } the inspected cell
    this._notes = new Map();   // other messages for the message line (train errors)
    this.trainOptions = null;  // SCHEDULE overrides for the next training run
  }

  get input() { return this.getAttribute("input") ?? EXAMPLES[this.task]; }
  set input(v) { if (v === null || v === undefined) this.removeAttribute("input"); else this.setAttribute("input", String(v)); }
  get models() { return this.getAttribute("models"); }
  set models(v) { if (v === null || v === undefined) this.removeAttribute("models"); else this.setAttribute("models", String(v)); }
  get modelSrc() { return this.getAttribute("model-src"); }
  set modelSrc(v) { if (v === null || v === undefined) this.removeAttribute("model-src"); else this.setAttribute("model-src", String(v)); }

  /** The model shown, as the last sx-attention-model event described it (null before one is shown). */
  get shownModel() { return this._shownModel ? { ...this._shownModel } : null; }

  /** The training worker, while one runs (for tests and host pages); null otherwise (also when the run is on the main thread). */
  get trainingWorker() { return this._run && this._run.worker && this._run.thread === "worker" ? this._run.worker : null; }
  /** Where the current run trains: "worker", "main" (no worker could be started) or null (no run under way). */
  get trainingThread() { return this._run && this._run.worker ? this._run.thread : null; }

  connectedCallback() {
    super.connectedCallback();
    // ask the store early: the reader's model is usually there before the wasm core is ready
    if (!this.noTrain) this._lookup(keyOf(this.task, this.kind));
    // fetch nothing until the widget is about to be seen
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
    // redraw the maps in the other layout when the widget's width crosses NARROW_PX
    if (!this._resize && typeof ResizeObserver === "function") {
      this._resize = new ResizeObserver(() => {
        if (this._narrow !== undefined && this._narrow !== this._isNarrow()) this.invalidate();
      });
      this._resize.observe(this);
    }
  }

  // Heatmaps two heads a row below this width (a phone, a narrow column), all heads a row above.
  _isNarrow() { return this.clientWidth > 0 && this.clientWidth < NARROW_PX; }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this._observer) { this._observer.disconnect(); this._observer = null; }
    if (this._resize) { this._resize.disconnect(); this._resize = null; }
    this._stopWorker();
    this._run = null;
    this._showRun = false;
    this._pause();
    this._dec = null; // holds a model freed below
    if (this._shipped) this._shipped.model.free();
    this._shipped = null;
    this._pending = null;
    this._dropOwnModel();
    if (this._url && this._url.model) this._url.model.free();
    this._url = null; // fetched again (from the page's cache) if the widget comes back
  }

  // ------------------------------------------------------------------ DOM
  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    const sel = (label, values) => {
      const l = htmlEl("label", {}, row);
      htmlEl("span", { text: label }, l);
      const s = htmlEl("select", {}, l);
      for (const [v, t] of values) htmlEl("option", { value: v, text: t }, s);
      return s;
    };
    this._taskSel = sel("task", TASKS.map((t) => [t, t.replace("_", " ")]));
    this._kindSel = sel("model", KINDS.map((k) => [k, KIND_LABELS[k]]));
    // the input, and under it what it takes (before any typing) or what is wrong with it
    const entry = htmlEl("div", { class: "entry", part: "input" }, body);
    const l = htmlEl("label", {}, entry);
    htmlEl("span", { text: "input" }, l);
    this._inputEl = htmlEl("input", { type: "text", spellcheck: "false", autocomplete: "off", autocapitalize: "off",
      "aria-label": "input text for the task", "aria-describedby": "hint" }, l);
    this._hint = htmlEl("p", { class: "hint", id: "hint", part: "hint", "aria-live": "polite" }, entry);
    this._taskSel.addEventListener("change", () => {
      const task = this._taskSel.value; // fusedmax and oscarmax are shipped for two tasks: 1.5-entmax elsewhere
      this._user({ task, input: EXAMPLES[task], ...(kindFits(task, this.kind) ? {} : { kind: "entmax15" }) });
    });
    this._kindSel.addEventListener("change", () => this._user({ kind: this._kindSel.value }));
    this._inputEl.addEventListener("input", () => this._typed());

    this._ioLine = htmlEl("p", { class: "io", part: "output", "aria-live": "polite" }, body);
    this._source = htmlEl("p", { class: "source", part: "source" }, body);
    body.append(this._msg); // the other messages (models, files, training) up here too, not under the maps
    this._buildTraining(body);
    const point = htmlEl("p", { class: "point" }, body);
    htmlEl("span", { class: "fine", text: "Point at a cell, or focus the maps and use the arrow keys, to read its weight." }, point);
    htmlEl("span", { class: "coarse", text: "Touch a cell to read its weight." }, point);
    this._svg = svgEl("svg", { class: "picture maps", viewBox: "0 0 720 100", role: "group",
      "aria-label": "attention maps per layer and head; focus a map and use the arrow keys to read its weights", "aria-describedby": "tip" }, body);
    this._svg.addEventListener("pointermove", (e) => this._point(e));
    this._svg.addEventListener("pointerdown", (e) => this._point(e));
    this._svg.addEventListener("pointerleave", (e) => { if (e.pointerType === "mouse") this._hideTip(); });
    this._svg.addEventListener("keydown", (e) => { if (e.key === "Escape") this._hideTip(); });
    this._tip = htmlEl("div", { class: "tip", id: "tip", role: "tooltip", part: "tooltip", hidden: "" }, body);
    // the reading of the cell for screen readers (the tooltip shows it on screen)
    this._readout = htmlEl("p", { class: "readout sr", part: "readout", "aria-live": "polite" }, body);
    const det = htmlEl("details", { part: "stats" }, body);
    htmlEl("summary", { text: "Per-head numbers: α, span, support size, exact zeros, entropy" }, det);
    const scroll = htmlEl("div", { class: "scroll" }, det);
    this._table = htmlEl("table", { "aria-label": "per-head attention statistics" }, scroll);
    const head = htmlEl("tr", {}, htmlEl("thead", {}, this._table));
    // on a narrow widget (a phone) the table fits by shorter headers (the column's name stays its label)
    const cols = [["map"], ["layer", "L"], ["head", "h"], ["α"], ["span"], ["support", "supp."], ["exact zeros", "zeros"], ["entropy (nats)", "H"]];
    for (const [t, short] of cols) {
      const th = htmlEl("th", short ? { "aria-label": t } : {}, head);
      htmlEl("span", { class: "long", text: t }, th);
      if (short) htmlEl("span", { class: "short", text: short, "aria-hidden": "true" }, th);
    }
    htmlEl("p", { class: "short-key", "aria-hidden": "true", text: cols.filter((c) => c[1] && c[1] !== "zeros").map(([t, short]) => `${short} = ${t}`).join(", ") }, det);
    this._tbody = htmlEl("tbody", {}, this._table);
    this._buildDecode(body);
    this._lossSvg = svgEl("svg", { class: "picture loss", viewBox: `0 0 ${LOSS_W} ${LOSS_H}`, role: "img",
      "aria-label": "training loss (log scale) and held-out accuracy against steps" }, body);
    this._lossSvg.classList.add("off"); // a class, not an inline style: a strict CSP blocks cloned style attributes
  }

  // The training bar (above the maps; it stays in view, sticky, while a model trains: controls,
  // progress, status and a small loss curve) and the row of the reader's own models.
  _buildTraining(body) {
    const trow = this._tbar = htmlEl("div", { class: "row tbar", part: "train" }, body);
    this._startBtn = htmlEl("button", { type: "button", class: "start", text: "Train from scratch" }, trow);
    this._stopBtn = htmlEl("button", { type: "button", class: "stop", text: "Stop" }, trow);
    this._backBtn = htmlEl("button", { type: "button", class: "back", text: "Show the shipped model" }, trow);
    this._progress = htmlEl("progress", { max: SCHEDULE.maxSteps, value: 0, "aria-label": "training progress (steps)" }, trow);
    this._spark = svgEl("svg", { class: "spark off", viewBox: `0 0 ${SPARK_W} ${SPARK_H}`, role: "img", "aria-label": "training loss so far (log scale)" }, trow);
    this._tstatus = htmlEl("span", { class: "tstatus", role: "status" }, trow);
    this._stopBtn.disabled = true;
    this._backBtn.hidden = true;
    this._startBtn.addEventListener("click", () => this._startTraining());
    this._stopBtn.addEventListener("click", () => this._stopTraining());
    this._backBtn.addEventListener("click", () => { this._showOwn = !this._showOwn; this.renderNow(); });
    // the reader's own model: download the one shown, load a .sxm (the button, or a file dropped
    // anywhere on the widget), forget the one kept
    const orow = this._ownEl = htmlEl("div", { class: "row own", part: "own" }, body);
    this._saveBtn = htmlEl("button", { type: "button", class: "download", text: "Download .sxm", title: "Save the model shown as a .sxm checkpoint" }, orow);
    this._openBtn = htmlEl("button", { type: "button", class: "open", text: "Load a .sxm…", title: "Show a .sxm checkpoint (trained here or with the library); you can also drop one on this widget" }, orow);
    this._fileEl = htmlEl("input", { type: "file", accept: ".sxm,application/octet-stream", hidden: "", "aria-label": "a .sxm checkpoint to show" }, orow);
    this._forgetBtn = htmlEl("button", { type: "button", class: "forget", text: "Forget your model", title: "Delete your model of this task and kind from this browser" }, orow);
    this._keepEl = htmlEl("span", { class: "keep", "aria-live": "polite" }, orow);
    this._forgetBtn.hidden = true;
    this._saveBtn.addEventListener("click", () => this._download());
    this._openBtn.addEventListener("click", () => this._fileEl.click());
    this._fileEl.addEventListener("change", () => {
      const f = this._fileEl.files && this._fileEl.files[0];
      this._fileEl.value = ""; // the same file may be chosen again
      if (f) this._loadFile(f);
    });
    this._forgetBtn.addEventListener("click", () => this._forget());
    const files = (e) => Boolean(e.dataTransfer) && Array.from(e.dataTransfer.types || []).includes("Files");
    const over = (e) => {
      if (!files(e) || this.noTrain) return;
      e.preventDefault(); // a file dropped here is not opened by the browser in place of the page
      const ok = !this._busy();
      e.dataTransfer.dropEffect = ok ? "copy" : "none";
      this._body.classList.toggle("drop", ok);
    };
    this.addEventListener("dragenter", over);
    this.addEventListener("dragover", over);
    this.addEventListener("dragleave", (e) => { if (!e.relatedTarget || !this.contains(e.relatedTarget)) this._body.classList.remove("drop"); });
    this.addEventListener("drop", (e) => {
      if (!files(e) || this.noTrain) return;
      e.preventDefault();
      this._body.classList.remove("drop");
      const f = e.dataTransfer.files[0];
      if (f && !this._busy()) this._loadFile(f);
    });
    this._tstatus.textContent = "Trains a model of the shipped size (2 + 2 layers, 4 heads, 44 k parameters) in a Web Worker until 99.5% of held-out examples come out exactly right (500, then 2000 more).";
  }

  // The reader typed: capitals folded where the task's alphabet asks for it (the field shows what
  // is read, the caret kept), then the attribute set; settings() says what is wrong, if anything.
  _typed() {
    const f = this._inputEl;
    let text = f.value;
    try {
      const r = readText(tasks, this.task, text);
      if (!r.error && r.text !== text) {
        const { selectionStart: a, selectionEnd: b } = f;
        f.value = text = r.text; // the same length: only the case changed
        f.setSelectionRange(a, b);
      }
    } catch { /* the core is not ready yet: settings() reads the text once it is */ }
    this._user({ input: text });
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    if ("task" in change || "kind" in change) { this._showRun = false; this._showOwn = true; this._notes.delete("file"); }
    this.emit("change", { task: this.task, kind: this.kind, input: this.input });
  }

  // the pictures on screen: not the loss curve before a run, nor the decoding while it is closed
  pictures() { return super.pictures().filter((svg) => !svg.classList.contains("off") && !svg.closest("details:not([open])")); }

  // ------------------------------------------------------------- settings
  // The spec'd attributes, then input (falls back to the last valid input, or the task's
  // example) and models, and the messages of loads and training.
  settings() {
    const r = super.settings();
    const { s, errors } = r;
    // input: read against the task (viz/task-text.js): case folded, or refused with a message
    // shown under the field (s.inputError), the maps keeping the last good input
    const raw = this.getAttribute("input");
    s.input = this._lastGood[s.task] ?? EXAMPLES[s.task];
    s.inputRaw = raw;
    s.inputError = null;
    if (raw !== null) {
      const r = readText(tasks, s.task, raw);
      if (r.error) s.inputError = r.error;
      else this._lastGood[s.task] = s.input = r.text;
    }
    const m = this.getAttribute("models");
    s.models = null; // the shipped checkpoints beside the library (checkpoints.js)
    if (m !== null) {
      try { s.models = new URL(m.endsWith("/") ? m : `${m}/`, document.baseURI); } catch { errors.push(`models="${m.slice(0, 40)}" is not a URL; using the shipped models`); }
    }
    const src = this.getAttribute("model-src");
    s.modelSrc = null; // the shipped model (or the reader's)
    if (src !== null && src.trim() !== "") {
      try { s.modelSrc = new URL(src, document.baseURI).href; } catch { errors.push(`model-src="${src.slice(0, 40)}" is not a URL; showing the shipped model`); }
    }
    if (this._url && this._url.state === "failed" && this._url.href === s.modelSrc) errors.push(this._url.message);
    if (this._failed) errors.push(this._failed.message);
    const own = s["no-train"] ? null : this._mine.get(keyOf(s.task, s.kind));
    if (own && own.broken) errors.push(own.broken);
    for (const v of this._notes.values()) errors.push(v);
    return r;
  }

  // --------------------------------------------------------------- models
  _modelURL(s) { return checkpointUrl(s.task, s.kind, s.models); }

  // Fetch (once per URL for the page) and load the shipped model of (task, kind); invalidates
  // when it is ready. Only the latest request counts.
  _load(s) {
    const url = this._modelURL(s);
    loadCheckpoint(this, url, (bytes) => Model.load(bytes), (model, bytes, key) => {
      if (this._shipped) this._shipped.model.free();
      this._shipped = { key, model, url, size: bytes.length, bytes };
    });
  }

  // ------------------------------------------------- the reader's own models
  _busy() {
    const run = this._run;
    return Boolean(run && (run.status === "starting" || run.status === "training" || run.status === "stopping"));
  }

  // Ask the store (once per key) for the reader's model of key; invalidates when one is there.
  // A model trained or loaded meanwhile wins over the answer.
  _lookup(key) {
    if (!this._listing) {
      this._listing = true;
      listModels().then((keys) => { this._kept = new Set(keys); this.invalidate(); }, (err) => { this._storeWhy = err.message; });
    }
    if (this._mine.has(key) || this._looking.has(key)) return;
    this._looking.add(key);
    getModel(key).then((rec) => {
      this._looking.delete(key);
      if (this._mine.has(key)) return;
      const ok = rec && rec.key === key && TASKS.includes(rec.task) && KINDS.includes(rec.kind);
      this._mine.set(key, ok ? { rec, restored: true, kept: true } : null);
      if (ok) this.invalidate();
    }, (err) => {
      this._looking.delete(key);
      this._storeWhy = err.message;
      if (!this._mine.has(key)) this._mine.set(key, null);
      this.invalidate();
    });
  }

  // The loaded Model of the reader's model of key (loaded on first use), or null.
  _ownModelFor(key) {
    const entry = this._mine.get(key);
    if (!entry) return null;
    if (this._ownModel && this._ownModel.entry === entry) return this._ownModel.model;
    this._dropOwnModel();
    let model = null;
    try {
      model = Model.load(entry.rec.bytes);
      if (kindOf(model.config) !== entry.rec.kind || tasks.vocab(entry.rec.task).length !== model.config.vocab) throw new Error("it is not a model of that task and kind");
    } catch (err) {
      // kept by another version, or damaged: shown as a message, and Forget stays offered
      if (model) model.free();
      entry.broken = `your kept model (${entry.rec.task}, ${KIND_LABELS[entry.rec.kind]}) could not be loaded (${err.message.replace(/^Model\.load: (model_load: )?/, "")}); "Forget your model" deletes it`;
      this.invalidate();
      return null;
    }
    this._ownModel = { entry, model };
    return model;
  }

  _dropOwnModel() {
    if (this._ownModel) this._ownModel.model.free();
    this._ownModel = null;
  }

  // A model trained here or loaded from a file becomes the reader's model of its task and kind:
  // shown, and kept in the store (replacing the one kept before).
  _adopt(rec, model) {
    const entry = { rec, restored: false, kept: null };
    this._mine.set(rec.key, entry);
    this._dropOwnModel();
    this._ownModel = { entry, model };
    this._showOwn = true;
    putModel(rec).then(() => { entry.kept = true; this._storeWhy = null; (this._kept ??= new Set()).add(rec.key); },
      (err) => { entry.kept = false; this._storeWhy = err.message; })
      .then(() => this.invalidate());
  }

  // Task and kind follow a loaded model (the input: the last good one of the task, or its example).
  _switchTo(task, kind) {
    const change = {};
    if (task !== this.task) { change.task = task; change.input = this._lastGood[task] ?? EXAMPLES[task]; }
    if (kind !== this.kind) change.kind = kind;
    if (Object.keys(change).length) this._user(change);
  }

  // A .sxm from the file picker or a drop: checked, then shown and kept; a bad one leaves a
  // message and the model shown as it was. Only the latest file counts.
  async _loadFile(file) {
    const name = String(file.name || "model.sxm").slice(0, 80);
    const token = this._fileToken = {};
    this._notes.delete("file");
    this._checking = name;
    this.renderNow();
    try {
      if (file.size > MAX_FILE) throw new Error(`it has ${fmt(file.size / 1048576, 1)} MB, more than the ${MAX_FILE >> 20} MB this widget takes`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      await ready(); // the wasm core (a file may come before it is)
      const { model, rec } = await checkModel(bytes, name, this.task);
      if (token !== this._fileToken || !this.isConnected || this._busy()) { model.free(); if (token === this._fileToken) this._checking = null; return; }
      this._adopt(rec, model);
      this._switchTo(rec.task, rec.kind);
    } catch (err) {
      if (token !== this._fileToken) return;
      this._notes.set("file", `${name} was not loaded: ${err.message}. The model shown stays.`);
    }
    if (token === this._fileToken) this._checking = null;
    this.renderNow();
  }

  // model-src: fetched (once the widget is about to be seen), checked like a file, then shown in
  // place of the shipped model of its task and kind, which the widget switches to.
  _loadUrl(href) {
    const url = this._url = { href, state: "pending", model: null, rec: null, message: "" };
    const last = new URL(href).pathname.split("/").pop();
    let name = last;
    try { name = decodeURIComponent(last); } catch { /* a stray % : the name as written */ }
    name = name.slice(0, 80) || "model.sxm";
    const attr = `model-src="${(this.getAttribute("model-src") || "").slice(0, 60)}"`;
    fetchBytes(href).then((bytes) => checkModel(bytes, name, this.task).then(({ model, rec }) => {
      if (this._url !== url) { model.free(); return; }
      Object.assign(url, { state: "ok", model, rec: { ...rec, source: "url" } });
      this._switchTo(rec.task, rec.kind);
      this.invalidate();
    }, (err) => { throw new Error(`${attr} was not loaded: ${err.message}`); }),
    (err) => { throw new Error(`${attr} was not loaded: could not fetch it (${err.message})`); })
      .catch((err) => {
        if (this._url !== url) return;
        url.state = "failed";
        url.message = err.message;
        this.invalidate();
      });
  }

  _forget() {
    const key = keyOf(this.task, this.kind);
    if (!this._mine.get(key) || this._busy()) return;
    this._mine.set(key, null);
    this._dropOwnModel();
    this._notes.delete("file");
    if (this._kept) this._kept.delete(key);
    deleteModel(key).catch((err) => { this._storeWhy = err.message; });
    this.renderNow();
    this._openBtn.focus(); // the forget button is gone
  }

  _download() {
    const f = this._shownFile;
    if (!f) return;
    const a = htmlEl("a", { href: URL.createObjectURL(new Blob([f.bytes], { type: "application/octet-stream" })), download: f.name }, this.shadowRoot);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  // --------------------------------------------------------------- render
  render(s) {
    if (this._trainDirty) { this._trainDirty = false; this._trainMaps = false; this._drawTraining(); }
    this._tbar.hidden = this._ownEl.hidden = s["no-train"];
    this._lossSvg.classList.toggle("off", s["no-train"] || !this._run);
    const training = this._busy();
    this._taskSel.value = s.task; this._kindSel.value = s.kind;
    for (const o of this._kindSel.options) o.disabled = !kindFits(s.task, o.value) && o.value !== s.kind;
    this._taskSel.disabled = this._kindSel.disabled = training;
    // the field: what was read (case folded), or the refused text the message under it is about
    if (this.shadowRoot.activeElement !== this._inputEl) this._inputEl.value = s.inputError ? s.inputRaw : s.input;
    this._inputEl.setAttribute("aria-invalid", s.inputError ? "true" : "false");
    this._drawHint(s);
    if (this._failed && this._failed.key !== this._modelURL(s).href) this._failed = null;
    if (this._showRun && this._run && (this._run.task !== s.task || this._run.kind !== s.kind)) this._showRun = false;

    // which model: the run under way; else the reader's (unless no-train); else model-src's; else the shipped one
    const key = keyOf(s.task, s.kind);
    if (!s["no-train"]) this._lookup(key);
    const own = s["no-train"] ? null : this._mine.get(key) || null;
    if (this._ownModel && this._ownModel.entry.rec.key !== key) this._dropOwnModel();
    if (this._url && this._url.href !== s.modelSrc) {
      if (this._url.model) this._url.model.free();
      this._url = null;
    }
    if (s.modelSrc && this._seen && !this._url) this._loadUrl(s.modelSrc);
    const url = this._url, urlHere = url && url.state === "ok" && url.rec.key === key ? url : null;

    let view = null, source = "", shown = null, model = null; // model: the Model shown, when it is on this thread
    const run = this._showRun ? this._run : null;
    const ownModel = !run && own && !own.broken && this._showOwn ? this._ownModelFor(key) : null;
    if (run) {
      if (run.text !== s.input && run.worker) { run.text = s.input; run.worker.postMessage({ type: "input", text: s.input }); }
      view = run.view;
      source = view ? `The model training in this tab (${KIND_LABELS[run.kind]}), step ${run.viewStep}${run.view.text !== s.input ? " (updating…)" : ""}.` : "Starting the training…";
    } else if (ownModel) {
      view = inspect(model = ownModel, tasks, s.task, s.input);
      const r = own.rec;
      shown = { source: own.restored ? "stored" : r.source, rec: r, file: r.source === "trained" ? `${key}-trained.sxm` : /\.sxm$/i.test(r.name) ? r.name : `${key}.sxm` };
      source = this._ownLabel(own);
    } else if (urlHere) {
      view = inspect(model = urlHere.model, tasks, s.task, s.input);
      const r = urlHere.rec;
      shown = { source: "url", rec: r, file: /\.sxm$/i.test(r.name) ? r.name : `${key}.sxm` };
      source = `The page's model ${r.name} (model-src, ${kb(r.bytes.length)}): ${KIND_LABELS[r.kind]}, ${pct(r.accuracy)} of ${r.examples} held-out examples exact.`;
    } else if (url && url.state === "pending") {
      source = "Loading the model of model-src…";
      view = this._view && this._view.task === s.task ? this._view : null;
    } else if (!this._seen) {
      source = "The model loads when this part of the page comes into view.";
    } else if (this._shipped && this._shipped.key === this._modelURL(s).href) {
      view = inspect(model = this._shipped.model, tasks, s.task, s.input);
      const file = this._shipped.url.pathname.split("/").pop();
      shown = { source: "shipped", rec: { task: s.task, kind: s.kind, name: file, bytes: this._shipped.bytes }, file: `${key}.sxm` };
      source = `The shipped ${KIND_LABELS[s.kind]} model (${file}, ${Math.round(this._shipped.size / 1024)} KB, trained natively to ≥ 99% held-out exact).`;
    } else {
      this._load(s);
      source = this._failed ? "" : `Loading the ${KIND_LABELS[s.kind]} model for ${s.task.replace("_", " ")}…`;
      view = this._view && this._view.task === s.task ? this._view : null; // keep the old picture meanwhile
    }
    this._source.textContent = source;
    this._drawOwn(key, own, Boolean(ownModel), shown, urlHere, training);
    this._drawDecode(s, model, Boolean(run));
    if (!view) {
      if (!this._view) this._ioLine.textContent = "";
      return;
    }
    this._view = view;
    this._drawIO(view);
    this._drawMaps(view, s.maps);
    this._drawTable(view, s.maps);
    this._drawReadout();
    if (shown && (!this._shownModel || this._shownFile.bytes !== shown.rec.bytes || this._shownModel.source !== shown.source)) {
      const r = shown.rec;
      this._shownFile = { bytes: r.bytes, name: shown.file };
      this._shownModel = { source: shown.source, task: s.task, kind: s.kind, name: r.name ?? null, size: r.bytes.length,
        date: r.date ?? null, steps: r.steps ?? null, accuracy: r.accuracy ?? null, examples: r.examples ?? null };
      this.emit("model", this._shownModel);
    }
  }

  // Under the field: what the task takes (its characters, the longest input, an example), or
  // why the text in the field was refused and what the maps show meanwhile.
  _drawHint(s) {
    const sig = `${s.task}|${s.input}|${s.inputError}`;
    if (this._hintSig === sig) return;
    this._hintSig = sig;
    const h = this._hint, lim = taskLimits(tasks, s.task);
    h.replaceChildren();
    h.classList.toggle("bad", Boolean(s.inputError));
    if (s.inputError) {
      h.append(`${s.inputError} The maps still show ${quote(s.input)}.`);
      return;
    }
    h.append(`Up to ${lim.max} characters from `);
    lim.chars.forEach((c, k) => { if (k) h.append(" "); htmlEl("code", { text: c }, h); });
    h.append(` (the models learned from inputs of ${lim.trained[0]} to ${lim.trained[1]}), like `);
    htmlEl("code", { text: EXAMPLES[s.task] }, h);
    h.append(lim.noCapitals ? "; capitals are read as small letters." : ".");
  }

  // What the reader's model is, for the line above the maps.
  _ownLabel({ rec: r, restored }) {
    const from = r.source === "trained" ? `trained in ${restored ? "this browser" : "this tab"} on ${when(r.date)}`
      : `loaded from ${r.name} (${kb(r.bytes.length)}) on ${when(r.date)}`;
    const score = r.accuracy === null || r.accuracy === undefined ? "" : `, ${pct(r.accuracy)} of ${r.examples} held-out examples exact`;
    return `Your model, ${from}${restored ? " (restored from this browser's storage)" : ""}: ${KIND_LABELS[r.kind]}${r.steps ? `, ${r.steps} steps` : ""}${score}.`;
  }

  // The buttons of the reader's model, what the browser keeps, and the reader's other kept models.
  _drawOwn(key, own, showingOwn, shown, urlHere, training) {
    this._saveBtn.disabled = !shown;
    this._openBtn.disabled = training;
    this._forgetBtn.hidden = !own || training;
    this._backBtn.hidden = !own || own.broken || training;
    this._backBtn.textContent = !showingOwn ? "Show your model" : urlHere ? "Show the page's model" : "Show the shipped model";
    const others = !own && !training && this._kept ? [...this._kept].filter((k) => k !== key) : [];
    let text = others.length ? "Your models kept in this browser:" : "Or drop a .sxm file on this widget.", warn = false;
    if (this._checking) text = `Checking ${this._checking}…`;
    else if (own && own.broken) text = "";
    else if (own && own.kept === null) text = "Keeping your model in this browser…";
    else if (own && own.kept) text = "Your model is kept in this browser until you forget it.";
    else if (own || (this._storeWhy && !others.length)) {
      text = `This browser cannot keep ${own ? "your model" : "models"} (${this._storeWhy || "IndexedDB refused"}): download ${own ? "it" : "yours"} to keep ${own ? "it" : "them"}.`;
      warn = Boolean(own);
    }
    if (this._checking) others.length = 0;
    const sig = `${text}|${others}`;
    if (this._keepSig !== sig) {
      this._keepSig = sig;
      this._keepEl.replaceChildren(text);
      for (const k of others) {
        const task = TASKS.find((t) => k.startsWith(`${t}-`)), kind = task && k.slice(task.length + 1);
        if (!KINDS.includes(kind)) continue;
        htmlEl("button", { type: "button", class: "kept", text: `${task.replace("_", " ")}, ${KIND_LABELS[kind]}` }, this._keepEl)
          .addEventListener("click", () => this._user({ task, kind, input: this._lastGood[task] ?? EXAMPLES[task] }));
      }
    }
    this._keepEl.classList.toggle("warn", warn);
  }

  _drawIO(v) {
    const io = this._ioLine;
    io.replaceChildren();
    io.append("input ");
    htmlEl("code", { text: v.text }, io);
    io.append(" → output ");
    htmlEl("code", { text: v.output }, io);
    io.append(" ");
    if (v.answer === null) htmlEl("span", { class: "muted", text: `(no reference answer: ${v.note})` }, io);
    else if (v.correct) htmlEl("span", { class: "ok", text: "✓ correct" }, io);
    else {
      htmlEl("span", { class: "bad", text: "✗ expected " }, io);
      htmlEl("code", { text: v.answer }, io);
    }
  }

  // The heatmaps: one block per map kind (title, then layers x heads panels), token labels on
  // the axes, a caption per head; exact zeros are dots, masked cells blank, weights tinted.
  _drawMaps(v, kinds) {
    const svg = this._svg;
    const focused = this.shadowRoot.activeElement;
    const hadFocus = Boolean(focused && focused.classList && focused.classList.contains("panel"));
    const narrow = this._narrow = this._isNarrow();
    const { W, minFont } = this._svgScale(narrow);
    svg.replaceChildren();
    this._blocks = [];
    let y = 0;
    const legend = svgEl("g", { class: "legend" }, svg);
    y += this._legend(legend, W, v.maps.some(hasLongRun));
    for (const kind of kinds) {
      const maps = v.maps.filter((m) => m.kind === kind);
      if (!maps.length) continue;
      const { heads, nq, nk } = maps[0];
      const cols = narrow ? Math.min(2, heads) : heads, perLayer = Math.ceil(heads / cols);
      // panels narrower than 152 (a phone under 330 px): the captions a short line each
      const tight = narrow && cols * 152 + 14 * (cols - 1) > W, span = maps.some((m) => m.span.some((x) => x !== null && x !== undefined));
      svgEl("text", { x: 0, y: y + 15, class: "block-title" }, svg).textContent = (narrow ? MAP_TITLES_NARROW : MAP_TITLES)[kind];
      const lay = heatmapLayout({ nq, nk, rows: maps.length * perLayer, cols, width: W, top: y + TITLE_H, labelW: 16,
        labelH: 15, captionH: tight ? 57 + 13 * span : 44, gap: 14, minCell: 5, maxCell: 22, minPanel: tight ? Math.floor((W - 14 * (cols - 1)) / cols) : 152 });
      const qLabels = kind === "encoder" ? v.srcLabels : v.outLabels;
      const kLabels = kind === "decoder" ? v.decLabels : v.srcLabels;
      const font = Math.max(minFont, Math.min(12, lay.cell * 0.8));
      const block = { kind, lay, maps, cols, perLayer, qLabels, kLabels, panels: [] };
      for (const m of maps) {
        const stats = headStats(m.data, { heads: m.heads, nq, nk, kind });
        for (let h = 0; h < m.heads; h++) {
          const r = m.layer * perLayer + Math.floor(h / cols), c = h % cols;
          const [x0, y0] = lay.origin(r, c);
          const g = svgEl("g", { class: "panel", tabindex: -1, role: "img",
            "aria-label": `${kind} attention, layer ${m.layer + 1}, head ${h + 1}: ${this._statText(m, h, stats[h])}. Arrow keys move over the weights.` }, svg);
          const cell = lay.cell, data = m.data;
          let dots = "";
          for (let i = 0; i < nq; i++) {
            for (let j = 0; j < nk; j++) {
              const p = data[(h * nq + i) * nk + j], ck = cellKind(kind, i, j, p);
              if (ck === "zero") dots += `M${x0 + (j + 0.5) * cell} ${y0 + (i + 0.5) * cell}h0`;
              else if (ck === "weight") {
                svgEl("rect", { class: "cell", x: x0 + j * cell, y: y0 + i * cell, width: cell, height: cell,
                  "fill-opacity": heatLevel(p).toFixed(3) }, g);
              }
            }
          }
          if (dots) svgEl("path", { class: "zeros", d: dots, "stroke-width": Math.max(1.2, cell * 0.16).toFixed(2) }, g);
          // runs of two or more equal weights side by side (fusedmax's fused groups), outlined
          let outline = "";
          for (let i = 0; i < nq; i++) {
            const o = (h * nq + i) * nk, visible = kind === "decoder" ? i + 1 : nk;
            for (const [a, b] of equalRuns(data.subarray(o, o + visible), visible)) {
              if (b - a > 1) outline += `M${x0 + a * cell} ${y0 + i * cell}h${(b - a) * cell}v${cell}h${-(b - a) * cell}Z`;
            }
          }
          if (outline) svgEl("path", { class: "runs", d: outline }, g);
          svgEl("rect", { class: "frame", x: x0, y: y0, width: nk * cell, height: nq * cell }, g);
          for (let j = 0; j < nk; j++) {
            svgEl("text", { class: "tok", x: x0 + (j + 0.5) * cell, y: y0 - 4, "text-anchor": "middle", "font-size": font }, g).textContent = tokenLabel(kLabels[j]);
          }
          for (let i = 0; i < nq; i++) {
            svgEl("text", { class: "tok", x: x0 - 4, y: y0 + (i + 0.5) * cell + font * 0.35, "text-anchor": "end", "font-size": font }, g).textContent = tokenLabel(qLabels[i]);
          }
          const st = stats[h];
          const a = m.alpha[h], sp = m.span[h];
          const spanText = sp !== null && sp !== undefined ? `span ${fmt(sp, 1)}` : "";
          const caps = tight
            ? [`L${m.layer + 1} h${h + 1}  α ${fmt(a)}`, spanText, `keeps ${fmt(st.support, 1)} of ${short(st.visible / nq)}`,
              `${fmt(100 * st.zeros, 0)}% zeros`, `entropy ${fmt(st.entropy)} nats`].filter(Boolean)
            : [`L${m.layer + 1} h${h + 1}  α ${fmt(a)}${spanText && `  ${spanText}`}`,
              `keeps ${fmt(st.support, 1)} of ${short(st.visible / nq)} · ${fmt(100 * st.zeros, 0)}% zeros`,
              `entropy ${fmt(st.entropy)} nats`];
          caps.forEach((t, k) => {
            svgEl("text", { class: k ? "cap muted" : "cap", x: x0 - 14, y: y0 + nq * cell + 13 + 13 * k }, g).textContent = t;
          });
          const panel = { g, layer: m.layer, head: h, r, c };
          block.panels.push(panel);
          g.addEventListener("focus", () => {
            const cur = this._cursor;
            if (!cur || cur.kind !== kind || cur.layer !== m.layer || cur.head !== h) this._cursor = { kind, layer: m.layer, head: h, i: 0, j: 0 };
            this._tipOn = true;
            this._rove(g);
            this._drawReadout();
          });
          g.addEventListener("keydown", (e) => this._key(e, block, panel));
          // (on the panel, not the <svg>: Chromium makes an SVG element with a focus listener a tab stop)
          g.addEventListener("blur", () => this._hideTip());
        }
      }
      this._blocks.push(block);
      y = lay.height + BLOCK_GAP;
    }
    this._cursorRect = svgEl("rect", { class: "cursor", width: 0, height: 0 }, svg);
    svg.setAttribute("viewBox", `-2 0 ${W + 4} ${Math.max(40, y - BLOCK_GAP + 4)}`);
    // one tab stop for all the maps (roving tabindex): the panel of the cursor, else the first;
    // a panel that had the focus before this redraw gets it back
    const p = this._panelOf(this._cursor) || (this._blocks[0] && this._blocks[0].panels[0]);
    if (p) {
      this._rove(p.g);
      if (hadFocus) p.g.focus({ preventScroll: true });
    }
  }

  // The width of a picture's viewBox (720 wide, 380 narrow, less on a phone so that a unit is
  // about a pixel) and the smallest font size, in its units, that is MIN_TEXT_PX on screen.
  _svgScale(narrow) {
    const px = this._body.clientWidth;
    const W = narrow && px > 0 ? Math.max(200, Math.min(380, Math.floor(px) - 4)) : narrow ? 380 : 720;
    return { W, minFont: px > 0 ? Math.max(6, MIN_TEXT_PX * (W + 4) / px) : 6 };
  }

  _rove(g) {
    for (const b of this._blocks) for (const p of b.panels) p.g.setAttribute("tabindex", p.g === g ? 0 : -1);
  }

  _panelOf(c) {
    const b = c && this._blocks ? this._blocks.find((x) => x.kind === c.kind) : null;
    return b ? b.panels.find((p) => p.layer === c.layer && p.head === c.head) || null : null;
  }

  // The legend line (two lines on a narrow widget; one more when some map has runs of equal
  // weights to outline); returns its height.
  _legend(g, W, runs) {
    const wide = W > 500;
    let x = 0, y = 10;
    const item = (draw, text) => {
      draw(x);
      svgEl("text", { x: x + 16, y: y + 4, class: "muted" }, g).textContent = text;
      x += 16 + text.length * 6.1 + 18;
    };
    [0.02, 0.3, 1].forEach((v, k) => svgEl("rect", { class: "cell", x: k * 10, y: y - 5, width: 10, height: 10, "fill-opacity": heatLevel(v).toFixed(3) }, g));
    x = 20;
    item(() => {}, "weights 0.02, 0.3, 1");
    item((x0) => svgEl("path", { class: "zeros", d: `M${x0 + 5} ${y}h0`, "stroke-width": 2.4 }, g), wide ? "exactly 0 (cut by the mapping)" : "exactly 0");
    if (!wide) { x = 0; y += 17; }
    item((x0) => svgEl("rect", { class: "frame", x: x0, y: y - 5, width: 10, height: 10 }, g), wide ? "blank: masked (the future)" : "masked");
    svgEl("text", { x: W, y: y + 4, class: "muted", "text-anchor": "end" }, g).textContent = "^ BOS  $ EOS  ␣ space";
    if (runs) {
      x = 0; y += 17;
      item((x0) => svgEl("rect", { class: "runs", x: x0 - 4, y: y - 5, width: 18, height: 10 }, g),
        wide ? "outlined: neighbours with exactly equal weight (a fused run)" : "outlined: equal neighbours");
    }
    return y + 16;
  }

  _statText(m, h, st) {
    const sp = m.span[h];
    return `alpha ${fmt(m.alpha[h])}${sp !== null && sp !== undefined ? `, span ${fmt(sp, 1)}` : ""}, ` +
      `support ${fmt(st.support, 1)} keys, ${fmt(100 * st.zeros, 0)}% exact zeros, entropy ${fmt(st.entropy)}`;
  }

  _drawTable(v, kinds) {
    const rows = [];
    for (const kind of kinds) {
      for (const m of v.maps.filter((x) => x.kind === kind)) {
        const stats = headStats(m.data, { heads: m.heads, nq: m.nq, nk: m.nk, kind });
        stats.forEach((st, h) => {
          const tr = htmlEl("tr", {});
          const sp = m.span[h];
          for (const [t, cls] of [[kind, ""], [m.layer + 1, ""], [h + 1, ""], [fmt(m.alpha[h]), ""],
            [sp === null || sp === undefined ? "–" : fmt(sp, 1), ""], [fmt(st.support, 2), ""],
            [`${fmt(100 * st.zeros, 1)}%`, st.zeros > 0 ? "zero" : ""], [fmt(st.entropy, 3), ""]]) {
            htmlEl("td", { text: String(t), ...(cls ? { class: cls } : {}) }, tr);
          }
          rows.push(tr);
        });
      }
    }
    this._tbody.replaceChildren(...rows);
  }

  // ------------------------------------------------ step-by-step decoding
  // The panel: a step slider, Prev / Next / Play, the step's tokens, the picture (per decoder
  // layer: the self-attention cache, the cross-attention K/V, each head's rows) and the counts.
  _buildDecode(body) {
    const det = this._decEl = htmlEl("details", { class: "decode", part: "decode" }, body);
    htmlEl("summary", { text: "Decode step by step: the KV cache filling, each step's attention rows" }, det);
    const row = htmlEl("div", { class: "row" }, det);
    this._prevBtn = htmlEl("button", { type: "button", class: "dprev", text: "◀ Previous step" }, row);
    const l = htmlEl("label", {}, row);
    htmlEl("span", { text: "step" }, l);
    this._stepEl = htmlEl("input", { type: "range", class: "dstep", min: 1, max: 1, step: 1, "aria-label": "decoding step" }, l);
    this._stepOut = htmlEl("output", { class: "dstep-out" }, l);
    this._nextBtn = htmlEl("button", { type: "button", class: "dnext", text: "Next step ▶" }, row);
    this._playBtn = htmlEl("button", { type: "button", class: "dplay", text: "Play", "aria-pressed": "false" }, row);
    this._decIO = htmlEl("p", { class: "dio", part: "decode-output", "aria-live": "polite" }, det);
    this._decSvg = svgEl("svg", { class: "picture decode", viewBox: "0 0 720 100", role: "img", "aria-label": "the KV cache and the step's attention rows" }, det);
    this._decWork = htmlEl("ul", { class: "work", part: "decode-work", "aria-label": "rows computed with the KV cache and without it" }, det);
    this._decStep = 1;
    this._playTimer = 0;
    this._prevBtn.addEventListener("click", () => this._setStep(this._decStep - 1));
    this._nextBtn.addEventListener("click", () => this._setStep(this._decStep + 1));
    this._stepEl.addEventListener("input", () => this._setStep(Number(this._stepEl.value)));
    this._playBtn.addEventListener("click", () => this._togglePlay());
    det.addEventListener("toggle", () => { if (this.decode !== det.open) this.decode = det.open; });
  }

  // Called by render: open or close the panel as the decode attribute says, and (open) compute the
  // steps of the model shown once per (model, task, input), then draw the current step.
  _drawDecode(s, model, training) {
    const det = this._decEl;
    if (det.open !== s.decode) det.open = s.decode;
    if (!s.decode) { this._pause(); return; }
    const d = this._dec;
    if (!model) {
      this._dec = null;
      this._pause();
      this._decIO.textContent = training ? "The model training now lives in its worker: step-by-step decoding shows a model once the run ends."
        : "Step-by-step decoding starts once the model is shown.";
      this._decSvg.replaceChildren();
      this._decWork.replaceChildren();
      return;
    }
    if (!d || d.model !== model || d.task !== s.task || d.text !== s.input) {
      try {
        this._dec = { model, task: s.task, text: s.input, ...decodeSteps(model, s.task, s.input) };
      } catch (err) {
        this._dec = null;
        this._decIO.textContent = `Step-by-step decoding failed: ${err.message}`;
        return;
      }
    }
    this._decStep = s.step;
    this._drawDecodeStep();
  }

  _setStep(t) {
    const d = this._dec;
    if (!d || !Number.isFinite(t)) return;
    this._decStep = Math.min(d.steps, Math.max(1, Math.round(t)));
    this.step = this._decStep;
    this._drawDecodeStep();
  }

  // Play: one step per PLAY_MS from the current one (from step 1 when at the last), to the last.
  _togglePlay() {
    if (this._playTimer) { this._pause(); return; }
    const d = this._dec;
    if (!d) return;
    if (this._decStep >= d.steps) this._setStep(1);
    this._playTimer = setInterval(() => {
      if (!this._dec || this._decStep >= this._dec.steps) { this._pause(); return; }
      this._setStep(this._decStep + 1);
      if (this._decStep >= this._dec.steps) this._pause();
    }, PLAY_MS);
    this._playBtn.textContent = "Pause";
    this._playBtn.setAttribute("aria-pressed", "true");
  }

  _pause() {
    if (this._playTimer) clearInterval(this._playTimer);
    this._playTimer = 0;
    if (this._playBtn) {
      this._playBtn.textContent = "Play";
      this._playBtn.setAttribute("aria-pressed", "false");
    }
  }

  _drawDecodeStep() {
    const d = this._dec;
    if (!d) return;
    const t = this._decStep = Math.min(d.steps, Math.max(1, this._decStep)), T = d.steps;
    const lab = (id) => tokenLabel(d.vocab[id]);
    const fed = lab(d.out[t - 1]), picked = lab(d.out[t]);
    // the controls; a button that gets disabled under the focus hands it to the other one
    const active = this.shadowRoot.activeElement;
    this._stepEl.max = String(T);
    this._stepEl.value = String(t);
    this._stepEl.setAttribute("aria-valuetext", `step ${t} of ${T}: emits "${picked}"`);
    this._stepOut.textContent = `${t} of ${T}`;
    this._prevBtn.disabled = t <= 1;
    this._nextBtn.disabled = t >= T;
    if (active === this._prevBtn && t <= 1 && T > 1) this._nextBtn.focus();
    if (active === this._nextBtn && t >= T && T > 1) this._prevBtn.focus();
    // the step's tokens
    const io = this._decIO;
    io.replaceChildren();
    io.append(`Step ${t}: the decoder reads `);
    htmlEl("code", { text: fed }, io);
    io.append(` at position ${t}, attends over its ${t} cached key${t > 1 ? "s" : ""} and the ${d.ns} source keys, and picks `);
    htmlEl("code", { class: "chosen", text: picked }, io);
    io.append(". Output so far: ");
    htmlEl("code", { class: "dout", text: Array.from(d.out.subarray(1, t + 1), lab).join("") }, io);
    this._drawDecodeSvg(d, t);
    // the work so far, with and without the cache
    const w = decodeWork(t, d), L = d.layers, H = d.heads;
    const times = (a) => (a.cached ? `${fmt(a.full / a.cached, 1)}×` : "");
    const items = [
      ["step", `This step: with the cache each layer runs 1 new position (its q, k, v rows) and scores its query against ${t} key${t > 1 ? "s" : ""}; without it, every layer recomputes all ${t} position${t > 1 ? "s" : ""} and ${(t * (t + 1)) / 2} query-key pairs per head.`],
      ["rows", `Decoder rows computed in steps 1–${t} (${L} layers): cached ${L} × ${t} = ${w.rows.cached}, full ${L} × ${t}·${t + 1}/2 = ${w.rows.full} (${times(w.rows)}).`, w.rows],
      ["scores", `Self-attention scores (${L} layers × ${H} heads): cached ${L * H} × ${t}·${t + 1}/2 = ${w.scores.cached}, full ${L * H} × ${t}·${t + 1}·${t + 2}/6 = ${w.scores.full} (${times(w.scores)}).`, w.scores],
      ["cross", `Cross-attention key and value rows of the ${d.ns} source positions: cached ${L} × ${d.ns} = ${w.crossKV.cached} (once), full ${L} × ${d.ns} × ${t} = ${w.crossKV.full}.`, w.crossKV],
    ];
    this._decWork.replaceChildren(...items.map(([k, text, n]) => {
      const li = htmlEl("li", { class: `work-${k}`, text });
      if (n) { li.dataset.cached = String(n.cached); li.dataset.full = String(n.full); }
      return li;
    }));
  }

  // Per decoder layer: the self-attention cache (keys, values: maxLen slots, t filled, the newest
  // ringed), the cross-attention K/V (the source's, all there), then per head the step's
  // self-attention row under the cached keys and its cross-attention row under the source's.
  // Weights are tinted and exact zeros dotted as in the maps above.
  _drawDecodeSvg(d, t) {
    const svg = this._decSvg;
    svg.replaceChildren();
    const narrow = this._isNarrow(), { W, minFont } = this._svgScale(narrow);
    const LAB = narrow ? 58 : 76, GAP = narrow ? 14 : 24;
    const c = Math.max(8, Math.min(20, Math.floor((W - LAB - GAP) / (d.maxLen + d.ns))));
    const xs = LAB, xc = LAB + d.maxLen * c + GAP; // left edges of the self and cross columns
    const font = Math.max(minFont, Math.min(12, c * 0.7)), dot = Math.max(1.2, c * 0.16).toFixed(2);
    const lab = (id) => tokenLabel(d.vocab[id]);
    const text = (x, y, str, attrs = {}) => { svgEl("text", { x, y, ...attrs }, svg).textContent = str; };
    let y = this._decodeLegend(svg, W);
    for (let l = 0; l < d.layers; l++) {
      text(0, y + 14, `decoder layer ${l + 1}`, { class: "block-title" });
      y += 30;
      text(xs, y, narrow ? `cache: ${t} of ${d.maxLen}` : `self-attention KV cache: ${t} of ${d.maxLen} slots`, { class: "cap muted" });
      text(xc, y, narrow ? `cross K/V (once)` : `cross-attention K/V: ${d.ns} source positions, computed once`, { class: "cap muted" });
      y += 6 + font;
      for (let j = 0; j < t; j++) text(xs + (j + 0.5) * c, y, lab(d.out[j]), { class: "tok", "text-anchor": "middle", "font-size": font });
      for (let j = 0; j < d.ns; j++) text(xc + (j + 0.5) * c, y, tokenLabel(d.srcLabels[j]), { class: "tok", "text-anchor": "middle", "font-size": font });
      y += 4;
      for (const [name, kv] of [["keys", "k"], ["values", "v"]]) {
        text(LAB - 6, y + c * 0.5 + font * 0.35, name, { class: "cap muted", "text-anchor": "end" });
        const gs = svgEl("g", { class: "cache", "data-layer": l, "data-cache": `self-${kv}` }, svg);
        for (let j = 0; j < d.maxLen; j++) {
          svgEl("rect", { class: j < t ? (j === t - 1 ? "slot filled new" : "slot filled") : "slot empty",
            x: xs + j * c + 1, y: y + 1, width: c - 2, height: c - 2, rx: 1.5 }, gs);
        }
        const gc = svgEl("g", { class: "cache", "data-layer": l, "data-cache": `cross-${kv}` }, svg);
        for (let j = 0; j < d.ns; j++) svgEl("rect", { class: "slot cross", x: xc + j * c + 1, y: y + 1, width: c - 2, height: c - 2, rx: 1.5 }, gc);
        y += c + 2;
      }
      y += 8;
      for (let h = 0; h < d.heads; h++) {
        text(LAB - 6, y + c * 0.5 + font * 0.35, `head ${h + 1}`, { class: "cap muted", "text-anchor": "end" });
        for (const [kind, x0, w] of [["self", xs, d.rows[t - 1].self[l][h]], ["cross", xc, d.rows[t - 1].cross[l][h]]]) {
          const g = svgEl("g", { class: "drow", "data-kind": kind, "data-layer": l, "data-head": h, "data-weights": Array.from(w).join(" ") }, svg);
          let dots = "";
          w.forEach((p, j) => {
            if (cellKind(kind === "self" ? "decoder" : "cross", t - 1, j, p) === "zero") dots += `M${x0 + (j + 0.5) * c} ${y + 0.5 * c}h0`;
            else svgEl("rect", { class: "cell", x: x0 + j * c, y, width: c, height: c, "fill-opacity": heatLevel(p).toFixed(3) }, g);
          });
          if (dots) svgEl("path", { class: "zeros", d: dots, "stroke-width": dot }, g);
          svgEl("rect", { class: "frame", x: x0, y, width: w.length * c, height: c }, g);
        }
        y += c + 3;
      }
      y += BLOCK_GAP;
    }
    svg.setAttribute("viewBox", `-2 0 ${W + 4} ${Math.max(40, y - BLOCK_GAP + 4)}`);
    svg.setAttribute("aria-label", `Decoding step ${t} of ${d.steps}: in each of the ${d.layers} decoder layers the self-attention cache holds the keys and values of ${t} of ${d.maxLen} positions, ` +
      `and the cross-attention keys and values of the ${d.ns} source positions were computed once; below them, each head's attention of this step's query over the ${t} cached keys and over the source (dots: exactly 0).`);
  }

  // The decoding picture's legend; returns its height.
  _decodeLegend(g, W) {
    const wide = W > 500;
    let x = 0, y = 10;
    const item = (draw, text) => {
      draw(x);
      svgEl("text", { x: x + 16, y: y + 4, class: "muted" }, g).textContent = text;
      x += 16 + text.length * 6.1 + 18;
      if (!wide && x > W - 120) { x = 0; y += 17; }
    };
    item((x0) => [0.02, 0.3, 1].forEach((v, k) => svgEl("rect", { class: "cell", x: x0 + k * 4 - 2, y: y - 5, width: 4, height: 10, "fill-opacity": heatLevel(v).toFixed(3) }, g)), "weight");
    item((x0) => svgEl("path", { class: "zeros", d: `M${x0 + 5} ${y}h0`, "stroke-width": 2.4 }, g), "exactly 0");
    item((x0) => svgEl("rect", { class: "slot filled", x: x0, y: y - 5, width: 10, height: 10, rx: 1.5 }, g), "cached");
    item((x0) => svgEl("rect", { class: "slot filled new", x: x0, y: y - 5, width: 10, height: 10, rx: 1.5 }, g), "added this step");
    item((x0) => svgEl("rect", { class: "slot empty", x: x0, y: y - 5, width: 10, height: 10, rx: 1.5 }, g), "empty");
    item((x0) => svgEl("rect", { class: "slot cross", x: x0, y: y - 5, width: 10, height: 10, rx: 1.5 }, g), "source K/V");
    return y + 14;
  }

  // ----------------------------------------------------------- inspection
  _point(e) {
    if (!this._blocks) return;
    const [x, y] = svgPoint(this._svg, e);
    for (const b of this._blocks) {
      const hit = b.lay.hit(x, y);
      if (!hit) continue;
      const p = b.panels.find((q) => q.r === hit.r && q.c === hit.c);
      if (!p) break;
      this._cursor = { kind: b.kind, layer: p.layer, head: p.head, i: hit.i, j: hit.j };
      this._tipOn = true;
      this._drawReadout();
      return;
    }
    this._hideTip(); // between the cells
  }

  _hideTip() {
    this._tipOn = false;
    this._tip.hidden = true;
  }

  // The tooltip by the cursor's cell: its weight, then where it is; above the cell, or below it
  // when there is no room above in the viewport; inside the widget's width.
  _placeTip(weight, where) {
    const tip = this._tip;
    tip.replaceChildren();
    htmlEl("b", { text: weight }, tip);
    htmlEl("br", {}, tip);
    tip.append(where);
    tip.hidden = false;
    const c = this._cursorRect.getBoundingClientRect(), h = this.getBoundingClientRect();
    const w = tip.offsetWidth, ht = tip.offsetHeight, gap = 6;
    const x = Math.max(4, Math.min(h.width - w - 4, c.left + c.width / 2 - w / 2 - h.left));
    const y = c.top - ht - gap >= 0 ? c.top - ht - gap - h.top : c.bottom + gap - h.top;
    tip.style.left = `${x.toFixed(1)}px`; // CSSOM, which a strict CSP allows (a style attribute it does not)
    tip.style.top = `${y.toFixed(1)}px`;
  }

  // Arrows move the cursor over a map's weights and on into the next map (left/right: the
  // neighbouring head; up/down: the layer or the map kind above or below); Home/End: first/last
  // key; PageUp/PageDown: first/last query.
  _key(e, block, panel) {
    const c0 = this._cursor;
    const cur = c0 && c0.kind === block.kind && c0.layer === panel.layer && c0.head === panel.head ? c0 : { i: 0, j: 0 };
    let { nq, nk } = block.maps[0];
    let { i, j } = cur, { r, c } = panel, bi = this._blocks.indexOf(block);
    const rows = (b) => b.maps.length * b.perLayer;
    const at = (b, rr, cc) => b.panels.find((p) => p.r === rr && p.c === cc);
    switch (e.key) {
      case "ArrowLeft": j--; break;
      case "ArrowRight": j++; break;
      case "ArrowUp": i--; break;
      case "ArrowDown": i++; break;
      case "Home": j = 0; break;
      case "End": j = nk - 1; break;
      case "PageUp": i = 0; break;
      case "PageDown": i = nq - 1; break;
      default: return;
    }
    e.preventDefault();
    this._tipOn = true;
    if (j < 0) { if (at(block, r, c - 1)) { c--; j = nk - 1; } else j = 0; }
    if (j >= nk) { if (at(block, r, c + 1)) { c++; j = 0; } else j = nk - 1; }
    if (i < 0 || i >= nq) {
      const up = i < 0;
      if (up ? r > 0 : r < rows(block) - 1) { r += up ? -1 : 1; i = up ? nq - 1 : 0; }
      else if (up ? bi > 0 : bi < this._blocks.length - 1) {
        block = this._blocks[bi + (up ? -1 : 1)];
        ({ nq, nk } = block.maps[0]);
        r = up ? rows(block) - 1 : 0;
        c = Math.min(c, block.cols - 1);
        i = up ? nq - 1 : 0;
        j = Math.min(j, nk - 1);
      } else i = up ? 0 : nq - 1;
    }
    const p = at(block, r, c) || panel;
    this._cursor = { kind: block.kind, layer: p.layer, head: p.head, i, j };
    if (p !== panel) p.g.focus({ preventScroll: false });
    this._drawReadout();
  }

  _drawReadout() {
    const c = this._cursor, rect = this._cursorRect;
    const b = c && this._blocks ? this._blocks.find((x) => x.kind === c.kind) : null;
    const m = b ? b.maps.find((x) => x.layer === c.layer) : null;
    if (!b || !m || c.head >= m.heads || c.i >= m.nq || c.j >= m.nk) {
      if (rect) rect.setAttribute("width", 0);
      this._readout.textContent = "";
      this._hideTip();
      return;
    }
    const { lay, cols, perLayer } = b;
    const [x, y] = lay.cellXY(c.layer * perLayer + Math.floor(c.head / cols), c.head % cols, c.i, c.j);
    for (const [k, v] of [["x", x], ["y", y], ["width", lay.cell], ["height", lay.cell]]) rect.setAttribute(k, v);
    const p = m.data[(c.head * m.nq + c.i) * m.nk + c.j];
    const ck = cellKind(c.kind, c.i, c.j, p);
    const q = tokenLabel(b.qLabels[c.i]), k = tokenLabel(b.kLabels[c.j]);
    const who = c.kind === "encoder" ? `source ${c.i + 1} "${q}"` : `the step that emits "${q}"`;
    const what = ck === "masked" ? "masked (a decoder step cannot see the future)"
      : ck === "zero" ? `exactly 0 (α = ${fmt(m.alpha[c.head])} cut it)` : p < 1e-3 ? p.toExponential(2) : p.toFixed(4);
    const to = `${c.kind === "decoder" ? "output" : "source"} ${c.j + 1} "${k}"`;
    this._readout.textContent = `${c.kind}, layer ${c.layer + 1}, head ${c.head + 1}: ${who} → ${to}: ${what}`;
    if (this._tipOn) this._placeTip(what, `${c.kind} L${c.layer + 1} h${c.head + 1}: ${who} → ${to}`);
  }

  // -------------------------------------------------------------- training
  _startTraining() {
    const { s } = this.settings();
    this._stopWorker();
    this._notes.delete("train");
    this._notes.delete("file");
    const run = this._run = { task: s.task, kind: s.kind, text: s.input, status: "starting", worker: null, thread: null, fallback: null,
      losses: [], evals: [], evaluating: null, step: 0, accuracy: null, view: null, viewStep: 0, t0: performance.now(),
      maxSteps: SCHEDULE.maxSteps, simd: null };
    this._showRun = true;
    this._backBtn.hidden = true;
    const start = { type: "start", task: s.task, kind: s.kind, text: s.input, options: this.trainOptions || {} };
    const use = (w) => Object.assign(run, { worker: w.worker, thread: w.thread, fallback: w.why });
    use(startSession({ startWorker: startTrainWorker, info: trainWorker, MainThreadClass: MainThreadWorker, start, refused: refusedWorkers,
      onMessage: (msg) => this._onWorker(run, msg), current: () => run === this._run,
      // an error before "started": the worker's script did not run (a CSP refused it, the file is
      // missing or not a module), this thread instead; once a stop was pressed, reported
      heard: () => run.status !== "starting",
      onError: (e) => this._trainFailed(run, `the training worker failed: ${e.message || "unknown error"}`),
      onMessageError: () => this._trainFailed(run, "a message from the training worker could not be read"),
      onFallback: (w) => { use(w); this._drawTraining(); } }));
    this._lossSvg.classList.remove("off");
    this._drawTraining();
    this.invalidate();
  }

  _stopTraining() {
    const run = this._run;
    if (!run || !run.worker) return;
    run.status = "stopping";
    run.worker.postMessage({ type: "stop" });
    run.stopTimer = setTimeout(() => { if (run.status === "stopping") this._finish(run, null); }, STOP_TIMEOUT_MS);
    this._drawTraining();
  }

  _onWorker(run, msg) {
    if (run !== this._run) return; // a message from a run already replaced
    switch (msg.type) {
      case "started":
        run.status = "training";
        run.simd = msg.simd;
        run.maxSteps = msg.schedule.maxSteps;
        run.target = msg.schedule.target;
        run.heldout = msg.schedule.heldout;
        run.confirm = msg.schedule.confirm;
        break;
      case "progress":
        for (const l of msg.losses) run.losses.push(l);
        run.evals.push(...msg.evals);
        run.step = msg.step;
        run.accuracy = msg.accuracy;
        run.ms = msg.ms;
        run.evaluating = msg.evaluating || null;
        if (!run.reached) {
          const hit = msg.evals.find((e) => e.confirm !== null && e.confirm >= run.target);
          if (hit) run.reached = { step: hit.step, wallMs: performance.now() - run.t0 };
        }
        this.emit("progress", { step: run.step, loss: run.losses[run.losses.length - 1], accuracy: run.accuracy });
        break;
      case "snapshot":
        if (msg.view) { run.view = msg.view; run.viewStep = msg.step; this._trainMaps = true; }
        break;
      case "done":
        this._finish(run, msg);
        return;
      case "error":
        this._trainFailed(run, `training failed: ${msg.message}`);
        return;
      default:
        break;
    }
    this._scheduleTraining();
  }

  // Progress (and, after a snapshot, the maps) redrawn at most 4 times a second (the worker posts
  // about 15), in an animation frame; off screen not at all until back in view (render() draws
  // it then). _finish draws the final state.
  _scheduleTraining() {
    if (this._trainFrame || this._trainTimer) return;
    this._trainTimer = setTimeout(() => {
      this._trainTimer = 0;
      this._trainFrame = requestAnimationFrame(() => {
        this._trainFrame = 0;
        this._trainAt = performance.now();
        if (this._off) { this._dirty = this._trainDirty = true; return; }
        this._drawTraining();
        if (this._trainMaps) { this._trainMaps = false; this.renderNow(); }
      });
    }, Math.max(0, (this._trainAt || 0) + 250 - performance.now()));
  }

  // The run is over (msg: the worker's "done", or null when it did not answer a stop): keep its
  // model (loaded here from the posted bytes), end the worker.
  _finish(run, msg) {
    clearTimeout(run.stopTimer);
    this._stopWorker();
    if (msg) {
      run.step = msg.step;
      run.accuracy = msg.accuracy;
      run.test = msg.test;
      run.testExamples = msg.testExamples;
      run.ms = msg.ms;
      run.reachedAt = msg.reachedAt;
      // the run's model becomes the reader's model of its task and kind: shown, and kept
      try {
        const bytes = new Uint8Array(msg.bytes), model = Model.load(bytes);
        this._adopt({ key: keyOf(run.task, run.kind), task: run.task, kind: run.kind, bytes, source: "trained", name: null, date: Date.now(),
          steps: run.step, accuracy: run.test ?? run.accuracy ?? null, examples: run.test !== null && run.test !== undefined ? run.testExamples : run.heldout ?? null }, model);
      } catch (err) { this._notes.set("train", `the trained model could not be loaded: ${err.message}`); }
    }
    run.status = msg && !msg.stopped ? "done" : "stopped";
    this._showRun = false;
    // draw the final state first, so a listener of the event sees the trained model on screen
    this._drawTraining();
    this.renderNow();
    this.emit("trained", { step: run.step, ms: run.ms, wallMs: run.reached ? run.reached.wallMs : null, accuracy: run.accuracy,
      reachedAt: run.reachedAt || null, test: run.test ?? null, stopped: run.status === "stopped" });
  }

  _trainFailed(run, message) {
    if (run !== this._run) return;
    clearTimeout(run.stopTimer);
    this._stopWorker();
    run.status = "error";
    run.error = message;
    this._showRun = false;
    this._notes.set("train", message);
    this._drawTraining();
    this.invalidate();
  }

  // Terminate the worker of the current run (if any) and drop every reference to it.
  _stopWorker() {
    const run = this._run;
    if (!run || !run.worker) return;
    const w = run.worker;
    run.worker = null;
    w.onmessage = w.onerror = w.onmessageerror = null;
    w.terminate();
    if (this._trainFrame) { cancelAnimationFrame(this._trainFrame); this._trainFrame = 0; }
    clearTimeout(this._trainTimer);
    this._trainTimer = 0;
  }

  _drawTraining() {
    const run = this._run;
    const active = run && (run.status === "starting" || run.status === "training" || run.status === "stopping");
    this._startBtn.disabled = Boolean(active);
    this._startBtn.textContent = run && !active ? "Train again" : "Train from scratch";
    this._stopBtn.disabled = !active || run.status === "stopping";
    this._taskSel.disabled = this._kindSel.disabled = Boolean(active);
    this._tbar.classList.toggle("live", Boolean(active)); // sticky: in view while the maps are read
    if (!run) return;
    this._progress.max = run.maxSteps;
    this._progress.value = run.status === "done" ? run.maxSteps : run.step;
    const st = this._tstatus;
    st.classList.toggle("error", run.status === "error");
    const last = run.losses.length ? run.losses[run.losses.length - 1] : null;
    const acc = run.accuracy === null || run.accuracy === undefined ? "–" : `${fmt(100 * run.accuracy, 1)}%`;
    const secs = `${fmt((run.ms || 0) / 1000, 1)} s`;
    const what = `${run.task.replace("_", " ")}, ${KIND_LABELS[run.kind]}`;
    const here = run.thread === "main" ? `on the page's main thread, in short slices: ${run.fallback}` : "";
    if (run.status === "error") st.textContent = run.error;
    else if (run.status === "starting") st.textContent = run.thread === "main" ? `Starting ${here} (${what})…` : `Starting the worker (${what})…`;
    else if (run.status === "done" || run.status === "stopped") {
      const r = run.reachedAt;
      const reached = r ? `${short(100 * r.accuracy)}% of ${run.heldout} held-out examples exactly right (and ${short(100 * r.confirm)}% of ${run.confirm} more) at step ${r.step}, after ${fmt(r.ms / 1000, 1)} s of training` : `stopped at step ${run.step} (held-out ${acc})`;
      const test = run.test !== undefined && run.test !== null ? `; ${fmt(100 * run.test, 1)}% of ${run.testExamples} other held-out examples exactly right` : "";
      st.textContent = `${what}: ${reached}${test}.${here ? ` Trained ${here}.` : ""}`;
    } else {
      const ev = run.evaluating;
      st.textContent = `${what}: step ${run.step} of at most ${run.maxSteps} · loss ${last === null ? "–" : last.toFixed(3)} · held-out exact ${acc} · ${secs}${run.simd === null ? "" : run.simd ? " · SIMD" : " · scalar"}` +
        `${ev ? ` · ${EVAL_TEXT[ev.stage]} (${Math.round((100 * ev.rows) / ev.of)}% of ${ev.of})` : ""}${run.status === "stopping" ? " · stopping…" : ""}${here ? ` · ${here}` : ""}`;
    }
    this._drawLoss(run);
  }

  // The small loss curve of the training bar: the smoothed loss, log scale, no axes.
  _drawSpark(run) {
    const svg = this._spark;
    svg.classList.toggle("off", !run.losses.length);
    svg.replaceChildren();
    const c = lossCurve(run.losses, { maxStep: Math.max(100, run.step), x0: 1, x1: SPARK_W - 1, y0: 2, y1: SPARK_H - 2 });
    svgEl("rect", { class: "frame", x: 0.5, y: 0.5, width: SPARK_W - 1, height: SPARK_H - 1, rx: 3 }, svg);
    if (c.smooth) svgEl("path", { class: "loss-smooth", d: c.smooth }, svg);
    const last = run.losses.length ? run.losses[run.losses.length - 1] : null;
    svg.setAttribute("aria-label", `training loss so far (log scale)${last === null ? "" : `, last ${last.toFixed(3)}`}`);
  }

  _drawLoss(run) {
    this._drawSpark(run);
    const svg = this._lossSvg;
    svg.replaceChildren();
    // a narrow widget (a phone): the curve as wide as the widget, a unit a pixel, its note in two lines
    const narrow = this._isNarrow(), LW = narrow ? this._svgScale(true).W + 4 : LOSS_W, LH = narrow ? LOSS_H + 14 : LOSS_H;
    if (svg.getAttribute("viewBox") !== `0 0 ${LW} ${LH}`) svg.setAttribute("viewBox", `0 0 ${LW} ${LH}`);
    const L = 44, R = 44, T = 10, B = narrow ? 42 : 28;
    const maxStep = Math.max(200, Math.ceil((run.step * 1.15) / 100) * 100);
    const c = lossCurve(run.losses, { maxStep, x0: L, x1: LW - R, y0: T, y1: LH - B });
    for (const t of c.yTicks) {
      svgEl("line", { class: "axis", x1: L, x2: LW - R, y1: t.y, y2: t.y }, svg);
      svgEl("text", { x: L - 6, y: t.y + 4, "text-anchor": "end", class: "muted" }, svg).textContent = String(t.value);
    }
    const ay = (a) => (LH - B) + (T - (LH - B)) * a;
    for (const a of [0, 0.5, 1]) svgEl("text", { x: LW - R + 6, y: ay(a) + 4, class: "muted" }, svg).textContent = `${a * 100}%`;
    if (run.target) svgEl("line", { class: "target", x1: L, x2: LW - R, y1: ay(run.target), y2: ay(run.target) }, svg);
    const stepTicks = (maxStep <= 400 ? 100 : maxStep <= 1000 ? 200 : 500) * (narrow && maxStep > 200 ? 2 : 1);
    for (let k = 0; k <= maxStep; k += stepTicks) {
      svgEl("text", { x: c.x(k), y: LH - B + 16, "text-anchor": "middle", class: "muted" }, svg).textContent = String(k);
    }
    const note = narrow ? ["step (loss: blue, log scale ·", "held-out exact: green, right axis)"] : ["step   (loss: blue, log scale · held-out exact: green, right axis)"];
    note.forEach((t, k) => {
      svgEl("text", { x: (L + LW - R) / 2, y: LH - 2 - 14 * (note.length - 1 - k), "text-anchor": "middle", class: "muted" }, svg).textContent = t;
    });
    if (c.raw) svgEl("path", { class: "loss-raw", d: c.raw }, svg);
    if (c.smooth) svgEl("path", { class: "loss-smooth", d: c.smooth }, svg);
    if (run.evals.length) {
      svgEl("path", { class: "acc-line", d: run.evals.map((e, k) => `${k ? "L" : "M"}${c.x(e.step).toFixed(1)} ${ay(e.accuracy).toFixed(1)}`).join("") }, svg);
      for (const e of run.evals) {
        svgEl("title", {}, svgEl("circle", { class: "acc", cx: c.x(e.step), cy: ay(e.accuracy), r: 3 }, svg)).textContent = `step ${e.step}: ${fmt(100 * e.accuracy, 1)}% of ${run.heldout} held-out examples exact`;
        if (e.confirm !== null) svgEl("title", {}, svgEl("circle", { class: "acc-confirm", cx: c.x(e.step), cy: ay(e.confirm), r: 5 }, svg)).textContent = `step ${e.step}: ${fmt(100 * e.confirm, 2)}% of ${run.confirm} more held-out examples exact`;
      }
    }
  }
}

define("sx-attention", SxAttention);
