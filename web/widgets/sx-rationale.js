// <sx-rationale>: rationalizers trained in this browser (issue 25 item 4). The library's Rationale
// class in four forms (a generator selecting input tokens by sparsemax or 1.5-entmax over the
// positions, HardKuma gates, or Bernoulli gates trained by REINFORCE; a predictor that sees the
// selection alone) learns the rationale task side by side in one Web Worker
// (runtime/rationale-worker.js; the main thread, in short slices, where no worker starts), with
// the same seed and the same examples: `make rationales`' schedule. Drawn as they train: a few
// held-out examples as rows of tokens, the marker words (the known rationale) outlined, and each
// method's selection of them (darker: more weight; a dash: exactly 0); and a table of held-out
// accuracy, rationale precision and recall and the selected fraction per method
// (Rationale.evaluate on make rationales' 2000 held-out examples), beside the README's figures.
//   <sx-rationale steps="1500" seed="1"></sx-rationale>
// Keyboard: Train / Stop / Resume, Restart, then the steps and seed fields.
// Events: sx-rationale-change { steps, seed }, sx-rationale-progress { step, total, losses, thread },
// sx-rationale-state { state, step }.
import { SxElement, define, sheet, svgEl, htmlEl, fmt } from "./base.js";
import { Rationale } from "../lib/simplexity.js";
import { RUN, heldOut, MainThreadRationale, rationaleWorker, startRationaleWorker } from "./runtime/rationale-session.js";
import { startSession } from "./runtime/main-thread.js";

const METHODS = ["sparsemax", "entmax15", "hardkuma", "reinforce"];
const LABEL = { sparsemax: "sparsemax", entmax15: "1.5-entmax", hardkuma: "HardKuma", reinforce: "REINFORCE" };
// [key, column, its short form on a narrow widget (the full name kept for assistive technology)]
const FIGURES = [["accuracy", "accuracy", "acc."], ["precision", "precision", "prec."], ["recall", "recall", "rec."], ["fraction", "selected", "sel."]];
/** The README's "## Rationales" table (make rationales: means over seeds 1-5, 1500 steps), in %. */
const REFERENCE = {
  sparsemax: [100.0, 71.1, 93.1, 33.7], entmax15: [100.0, 56.6, 97.2, 45.6],
  hardkuma: [100.0, 93.7, 96.8, 26.0], reinforce: [100.0, 100.0, 100.0, 25.1],
};
const L = 88, R = 36, N = 12, CW = 46, WORD_H = 22, ROW_H = 15, GAP = 16, TOP = 24;

const CSS = sheet(`
svg.picture { max-width: 760px; }
.m-sparsemax { fill: var(--_sparsemax); }
.m-entmax15 { fill: var(--_entmax15); }
.m-hardkuma { fill: var(--_entmax); }
.m-reinforce { fill: var(--_softmax); }
.word { fill: none; stroke: var(--_grid); }
.word.gold { stroke: var(--_fg); stroke-width: 2; }
.off { fill: var(--_grid); }
.gold-col { fill: none; stroke: var(--_fg); stroke-width: 1; stroke-dasharray: 3 2; }
.label { font-weight: 600; }
.row { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin: 4px 0; }
.row progress { width: 140px; }
.row input { width: 5.5em; font: inherit; }
.table { overflow-x: auto; }
td .ref { display: block; color: var(--_muted); font-size: 11px; }
caption { text-align: left; color: var(--_muted); font-size: 13px; }
.short { display: none; }
@container (max-width: 420px) {
  table th, table td { padding: 2px 3px; font-size: 11px; }
  table thead th { position: relative; }
  .short { display: inline; }
  .long { position: absolute; left: 0; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
}
`);

export class SxRationale extends SxElement {
  static fitText = true;
  static lazy = true;
  static spec = {
    steps: { type: "number", default: RUN.total, min: 50, max: 5000, integer: true },
    seed: { type: "number", default: 1, min: 0, max: 1000000, integer: true },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  constructor() {
    super();
    this._run = null; // { worker, thread, state, step, total, seed, losses, snap: { step, figures, weights, labels } }
  }

  /** The live run's state (copies), or null before the first Train. */
  get training() {
    const r = this._run;
    if (!r) return null;
    const s = r.snap;
    return { state: r.state, step: r.step, total: r.total, seed: r.seed, thread: r.thread, losses: r.losses.map((l) => l.slice()),
      snapshot: s && { step: s.step, figures: s.figures.map((f) => ({ ...f })), weights: s.weights.map((w) => w.slice()), labels: s.labels.map((l) => l.slice()) } };
  }

  /** The README's figures shown beside the live ones: { method: [accuracy, precision, recall, selected] } in %. */
  get reference() { return structuredClone(REFERENCE); }

  build(body) {
    const row = htmlEl("div", { class: "row", part: "controls" }, body);
    this._trainBtn = htmlEl("button", { type: "button", part: "button train-button", text: "Train" }, row);
    this._trainBtn.addEventListener("click", () => this._toggle());
    this._restartBtn = htmlEl("button", { type: "button", part: "button", text: "Restart" }, row);
    this._restartBtn.addEventListener("click", () => this.restart());
    const field = (name, min, max, step) => {
      const l = htmlEl("label", {}, row);
      htmlEl("span", { text: `${name} ` }, l);
      const input = htmlEl("input", { type: "number", min, max, step }, l);
      input.addEventListener("change", () => {
        const v = Number(input.value), spec = SxRationale.spec[name];
        if (Number.isInteger(v) && v >= spec.min && v <= spec.max) this._user({ [name]: v });
        else input.value = String(this[name]);
      });
      return input;
    };
    this._stepsIn = field("steps", 50, 5000, 50);
    this._seedIn = field("seed", 0, 1000000, 1);
    this._prog = htmlEl("progress", { "aria-label": "training steps" }, row);
    this._status = htmlEl("span", { class: "status", role: "status" }, row);
    this._svg = svgEl("svg", { class: "picture", viewBox: "0 0 652 480", role: "img", "aria-label": "held-out examples, drawn once the core has loaded" }, body);
    const wrap = htmlEl("div", { class: "table" }, body);
    const table = htmlEl("table", { part: "table" }, wrap);
    htmlEl("caption", { text: "Held-out figures (%) of this run; below each, in grey, make rationales' mean over seeds 1-5 (the README's table)" }, table);
    const head = htmlEl("tr", {}, htmlEl("thead", {}, table));
    htmlEl("th", { scope: "col", text: "selection" }, head);
    for (const [, name, short] of FIGURES) {
      const th = htmlEl("th", { scope: "col" }, head);
      htmlEl("span", { class: "long", text: name }, th);
      htmlEl("span", { class: "short", "aria-hidden": "true", text: short }, th);
    }
    const tbody = htmlEl("tbody", {}, table);
    this._cells = METHODS.map((m) => {
      const tr = htmlEl("tr", { "data-method": m }, tbody);
      htmlEl("th", { scope: "row", text: LABEL[m] }, tr);
      return FIGURES.map(([key], k) => {
        const td = htmlEl("td", { "data-figure": key }, tr);
        const live = htmlEl("span", { class: "live" }, td);
        htmlEl("span", { class: "ref", text: fmt(REFERENCE[m][k], 1) }, td);
        return live;
      });
    });
  }

  _user(change) {
    for (const k in change) this[k] = change[k];
    this.emit("change", { steps: this.steps, seed: this.seed });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._stopWorker();
  }

  render(s) {
    const r = this._run;
    if (document.activeElement !== this || this.shadowRoot.activeElement !== this._stepsIn) this._stepsIn.value = String(s.steps);
    if (document.activeElement !== this || this.shadowRoot.activeElement !== this._seedIn) this._seedIn.value = String(s.seed);
    // (never disabled while stopping: the button keeps the keyboard focus; a press then does nothing)
    this._trainBtn.textContent = !r ? "Train" : r.state === "training" || r.state === "stopping" ? "Stop" : r.state === "paused" ? "Resume" : "Train";
    this._restartBtn.disabled = !r;
    this._prog.max = r ? r.total : s.steps;
    this._prog.value = r ? r.step : 0;
    if (!r) this._status.textContent = `${s.steps} steps of four rationalizers (seed ${s.seed}) in a Web Worker`;
    this._held ??= heldOut();
    const snap = r && r.snap;
    const seed = r ? r.seed : s.seed, when = r ? `step ${snap ? snap.step : 0} of ${r.total}` : `${s.steps} steps, not trained yet`;
    const key = [seed, when, this._body.clientWidth, s.theme]; // (progress alone changes none: the picture stays)
    if (snap !== this._drawnSnap || key.join() !== this._drawnKey) this._drawExamples(snap, seed, when);
    this._drawnSnap = snap;
    this._drawnKey = key.join();
    this._cells.forEach((cells, i) => cells.forEach((c, k) => {
      const v = snap ? snap.figures[i][FIGURES[k][0]] : null;
      c.textContent = v === null ? "–" : fmt(100 * v, 1);
      if (v === null) c.removeAttribute("data-v"); else c.setAttribute("data-v", String(v));
    }));
  }

  // The first RUN.shown held-out examples: their words (markers outlined), then each method's
  // selection of them (weight > 0: a cell shaded by weight / the row's largest; 0: a thin dash)
  // and its predicted label. 12, 6 or 4 tokens a line, as many as the width holds at ~ 1:1 (so
  // the words keep their size on a phone).
  _drawExamples(snap, seed, when) {
    const svg = this._svg, held = this._held, words = Rationale.words, drawn = this._body.clientWidth || 760;
    const P = [12, 6, 4].find((p) => L + R + p * CW <= 1.12 * drawn) ?? 4, lines = N / P, W = L + R + P * CW;
    const LINE = WORD_H + METHODS.length * ROW_H + 6, BLOCK = lines * LINE + GAP;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${W} ${TOP + RUN.shown * BLOCK - GAP}`);
    svgEl("text", { class: "muted", x: 4, y: 14, "font-size": 12 }, svg).textContent = `seed ${seed}, ${when}`;
    for (let e = 0; e < RUN.shown; e++) {
      const g = svgEl("g", { "data-example": e }, svg), pred = snap && snap.labels.map((l) => l[e]);
      const label = held.labels[e] === 1 ? "positive" : "negative";
      for (let line = 0; line < lines; line++) {
        const y0 = TOP + e * BLOCK + line * LINE;
        if (line === 0) svgEl("text", { class: "label", x: 4, y: y0 + 15, "font-size": 12 }, g).textContent = `${e + 1}: ${label}`;
        for (let t = line * P; t < (line + 1) * P; t++) {
          const gold = held.gold[e * N + t] === 1, x = L + (t - line * P) * CW;
          svgEl("rect", { class: gold ? "word gold" : "word", x: x + 1, y: y0 + 2, width: CW - 2, height: WORD_H - 4, rx: 3 }, g);
          svgEl("text", { x: x + CW / 2, y: y0 + 15, "text-anchor": "middle", "font-size": 11, class: gold ? "" : "muted" }, g).textContent = words[held.tokens[e * N + t]];
          if (gold) svgEl("rect", { class: "gold-col", x: x + 1, y: y0 + WORD_H, width: CW - 2, height: METHODS.length * ROW_H }, g);
        }
        METHODS.forEach((m, i) => {
          const y = y0 + WORD_H + i * ROW_H, row = svgEl("g", { class: "sel", "data-method": m }, g);
          svgEl("text", { class: "muted", x: L - 6, y: y + 11, "text-anchor": "end", "font-size": 11 }, row).textContent = LABEL[m];
          if (!snap) return;
          const w = snap.weights[i].subarray(e * N, (e + 1) * N), top = Math.max(...w);
          for (let t = line * P; t < (line + 1) * P; t++) {
            const x = L + (t - line * P) * CW, at = { "data-t": t, "data-w": String(w[t]) };
            if (w[t] > 0) svgEl("rect", { class: `m-${m}`, x: x + 3, y: y + 2, width: CW - 6, height: ROW_H - 4, "fill-opacity": (0.25 + 0.75 * w[t] / top).toFixed(3), ...at }, row);
            else svgEl("rect", { class: "off", x: x + CW / 2 - 4, y: y + ROW_H / 2 - 0.75, width: 8, height: 1.5, ...at }, row);
          }
          if (line === lines - 1) {
            svgEl("text", { x: W - R + 6, y: y + 11, "font-size": 11, class: pred[i] === held.labels[e] ? "" : "muted", "data-label": pred[i] }, row)
              .textContent = `${pred[i] === 1 ? "+" : "−"}${pred[i] === held.labels[e] ? " ✓" : " ✗"}`;
          }
        });
      }
    }
    const n = snap ? snap.weights.map((w) => w.subarray(0, RUN.shown * N).filter((v) => v > 0).length) : null;
    svg.setAttribute("aria-label", `${RUN.shown} held-out examples, their marker words outlined` + (n
      ? `; positions selected at step ${snap.step}: ${METHODS.map((m, i) => `${LABEL[m]} ${n[i]}`).join(", ")} of ${RUN.shown * N}` : "; not trained yet"));
  }

  _toggle() {
    const r = this._run;
    if (!r || r.state === "done" || r.state === "error") this.train();
    else if (r.state === "training") this.stop();
    else if (r.state === "paused") this.resume();
  }

  /** Start a run (any run under way is dropped) with the current steps and seed. */
  train() {
    this._stopWorker();
    const run = this._run = { worker: null, thread: "worker", state: "training", step: 0, total: this.steps, seed: this.seed,
      losses: METHODS.map(() => []), snap: null };
    const start = { type: "start", seed: run.seed, total: run.total };
    const s = startSession({ startWorker: startRationaleWorker, info: rationaleWorker, MainThreadClass: MainThreadRationale, start,
      onMessage: (msg) => this._onMessage(run, msg), current: () => this._run === run,
      onFallback: (f) => { Object.assign(run, { worker: f.worker, thread: f.thread }); this._state(run, "training"); } });
    Object.assign(run, { worker: s.worker, thread: s.thread });
    this._state(run, "training");
  }

  /** Pause the run after the slice under way (the models are kept; the figures are those of the step reached). */
  stop() {
    const r = this._run;
    if (r && r.state === "training") { r.worker.postMessage({ type: "stop" }); this._state(r, "stopping"); }
  }

  resume() {
    const r = this._run;
    if (r && r.state === "paused") { r.worker.postMessage({ type: "resume" }); this._state(r, "training"); }
  }

  /** Drop the run: the picture goes back to untrained. */
  restart() {
    this._stopWorker();
    this._run = null;
    this.invalidate();
  }

  _stopWorker() {
    if (this._run && this._run.worker) { this._run.worker.terminate(); this._run.worker = null; }
  }

  _state(run, state) {
    run.state = state;
    const what = { training: `training on the ${run.thread === "main" ? "main thread" : "Web Worker"}`, stopping: "stopping…",
      paused: "paused", done: "done", error: "stopped by an error" }[state];
    this._status.textContent = `step ${run.step} of ${run.total}: ${what}`;
    this.emit("state", { state, step: run.step });
    if (state === "paused" || state === "done") this.renderNow(); // drawn before the state is read
    else this.invalidate();
  }

  _onMessage(run, msg) {
    if (this._run !== run) return;
    switch (msg.type) {
      case "progress":
        run.step = msg.step;
        msg.losses.forEach((l, i) => run.losses[i].push(...l));
        if (run.state === "training") this._status.textContent = `step ${run.step} of ${run.total}`;
        this.emit("progress", { step: run.step, total: run.total, losses: run.losses.map((l) => l.at(-1)), thread: run.thread });
        this.invalidate();
        break;
      case "snapshot": run.snap = { step: msg.step, figures: msg.figures, weights: msg.weights, labels: msg.labels }; this.invalidate(); break;
      case "paused": run.step = msg.step; this._state(run, "paused"); break;
      case "done": run.step = msg.step; this._stopWorker(); this._state(run, "done"); break;
      case "error":
        this._stopWorker();
        this._state(run, "error");
        this.showMessage([`sx-rationale: ${msg.message}`]);
        break;
      default: break;
    }
  }
}

define("sx-rationale", SxRationale);
