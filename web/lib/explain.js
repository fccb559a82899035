// explain.js - "is attention explanation?": the experiments of that debate on a Model, built on
// model.explain, model.attentionGrad and the `intervene` option (the C core computes the
// attributions and applies the edits; this module ranks, searches and aggregates).
//
//   alignment(task, src)                the source positions each answer token comes from
//   kendallTau(x, y)                    Kendall's tau-b (ties, as sparse attention has at 0)
//   jsd(p, q), totalVariation(p, q)     distances between distributions (nats)
//   erasure(model, src, tgt, opts)      Serrano & Smith 2019: erase keys in an order until the
//                                       decision flips
//   adversarialAttention(model, ...)    Jain & Wallace 2019: the attention row most unlike the
//                                       model's (JSD) whose output stays within a TV epsilon
//   runExperiments(model, task, opts)   all of them over a task's held-out examples, summarised
//
// Every function checks its arguments (TypeError / RangeError naming the function, the argument
// and the value) before it runs the model. Import from "simplexity/explain".
import { tasks, sparsemax } from "./simplexity.js";

const show = (v) => {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === "number" || typeof v === "boolean" || v == null) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === "function" ? "a function" : "an object";
};

function intArg(fn, name, v, lo, hi, dflt) {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
  return v;
}

function numArg(fn, name, v, lo, hi, dflt) {
  if (v === undefined) return dflt;
  if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be a number in [${lo}, ${hi}] (got ${show(v)})`);
  if (!(v >= lo && v <= hi)) throw new RangeError(`${fn}: ${name} must be a number in [${lo}, ${hi}] (got ${show(v)})`);
  return v;
}

function optionsArg(fn, v, keys) {
  if (v === undefined) return {};
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new TypeError(`${fn}: options must be an object (got ${show(v)})`);
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) throw new RangeError(`${fn}: unknown options field ${show(k)} (known: ${keys.join(", ")})`);
  }
  return v;
}

/** An Array or a typed array of numbers (not a DataView, which has no length, nor a BigInt64Array
 *  or BigUint64Array, whose entries are no numbers). */
function vectorArg(fn, name, v) {
  const typed = ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
  if (!Array.isArray(v) && !typed) throw new TypeError(`${fn}: ${name} must be an array of numbers (got ${show(v)})`);
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== "number" || Number.isNaN(v[i])) throw new TypeError(`${fn}: ${name}[${i}] must be a number (got ${show(v[i])})`);
  }
  return v;
}

function modelArg(fn, m) {
  if (!m || typeof m.explain !== "function" || typeof m.forward !== "function") {
    throw new TypeError(`${fn}: model must be a Model (got ${show(m)})`);
  }
  if (m.freed) throw new Error(`${fn}: this model has been freed`);
  return m;
}

// ------------------------------------------------------------------ measures
/** Kendall's tau-b of two equally long vectors: ties in either count as neither concordant nor
 *  discordant and shrink the denominator. NaN when one of them is constant. */
export function kendallTau(x, y) {
  const fn = "kendallTau";
  vectorArg(fn, "x", x);
  vectorArg(fn, "y", y);
  if (x.length !== y.length) throw new RangeError(`${fn}: x and y must have equal lengths (got ${x.length} and ${y.length})`);
  let c = 0, d = 0, tx = 0, ty = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const a = Math.sign(x[i] - x[j]), b = Math.sign(y[i] - y[j]);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  }
  const den = Math.sqrt((c + d + tx) * (c + d + ty));
  return den > 0 ? (c - d) / den : NaN;
}

function distArgs(fn, p, q) {
  vectorArg(fn, "p", p);
  vectorArg(fn, "q", q);
  if (p.length !== q.length) throw new RangeError(`${fn}: p and q must have equal lengths (got ${p.length} and ${q.length})`);
}

/** Jensen-Shannon divergence in nats, 0 .. ln 2. */
export function jsd(p, q) {
  distArgs("jsd", p, q);
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const m = (p[i] + q[i]) / 2;
    if (p[i] > 0) s += p[i] * Math.log(p[i] / m);
    if (q[i] > 0) s += q[i] * Math.log(q[i] / m);
  }
  return Math.max(0, s / 2);
}

/** Total-variation distance, half the L1 distance: 0 .. 1. */
export function totalVariation(p, q) {
  distArgs("totalVariation", p, q);
  let s = 0;
  for (let i = 0; i < p.length; i++) s += Math.abs(p[i] - q[i]);
  return s / 2;
}

// ----------------------------------------------------------------- alignment
const ALIGNED = ["reverse", "sort", "after_marker", "date"];
function alignedTask(fn, task) {
  if (!ALIGNED.includes(task)) {
    const E = typeof task === "string" ? RangeError : TypeError;
    throw new E(`${fn}: task must be "reverse", "sort", "after_marker" or "date" (got ${show(task)})`);
  }
  return task;
}

/**
 * The source positions each answer token comes from, for a task whose right alignment is known:
 * reverse (answer i <- position n - 1 - i), sort (every position holding that letter),
 * after_marker (the i-th letter after "|"), date ("D Mon YYYY" -> "YYYY-MM-DD": the year digits
 * <- themselves, the month digits <- the month word, the day digits <- the day; the dashes <-
 * nothing). Returns one array of positions per answer token and one (empty) for the EOS that
 * ends it: entry t is what the decoder's step t predicts.
 */
export function alignment(task, src) {
  const fn = "alignment";
  alignedTask(fn, task);
  const text = tasks.decode(task, src);
  const answer = tasks.answer(task, text);
  const n = text.length;
  const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
  let out;
  if (task === "reverse") out = range(0, n).map((i) => [n - 1 - i]);
  else if (task === "sort") out = [...answer].map((c) => range(0, n).filter((j) => text[j] === c));
  else if (task === "after_marker") {
    const m = text.indexOf("|");
    out = [...answer].map((_, i) => [m + 1 + i]);
  } else {
    const d = text.indexOf(" "), y = text.lastIndexOf(" ");
    const day = range(0, d), month = range(d + 1, y), year = range(y + 1, n);
    out = [...answer].map((_, i) => (i < 4 ? [year[i]] : i === 5 || i === 6 ? month : i >= 8 ? day : []));
  }
  out.push([]);
  return out;
}

// ------------------------------------------------------------------- helpers
const argmax = (v) => {
  let b = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[b]) b = i;
  return b;
};

/** The source length before the first PAD. */
const keyCount = (src) => {
  let n = 0;
  while (n < src.length && src[n] !== 0) n++;
  return n;
};

function softmax64(z) {
  let mx = -Infinity, s = 0;
  for (const v of z) mx = Math.max(mx, v);
  const p = Array.from(z, (v) => Math.exp(v - mx));
  for (const v of p) s += v;
  return p.map((v) => v / s);
}

/** The step's output distribution under the edits. */
function outputAt(model, src, tgt, step, intervene) {
  const V = model.config.vocab;
  const r = model.forward(src, tgt, { attention: false, intervene });
  return softmax64(r.logits.subarray(step * V, (step + 1) * V));
}

/** Cross-attention rows at `step`, [layer][head] -> Float32Array over the source keys. */
function crossRows(attention, step) {
  return attention.filter((a) => a.kind === "cross").map((a) => {
    const [, H, Tq, Tk] = a.shape;
    return Array.from({ length: H }, (_, h) => a.data.slice((h * Tq + step) * Tk, (h * Tq + step + 1) * Tk));
  });
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The model, one src row and one tgt row (arrays or typed arrays), options.step (required). */
function exampleArgs(fn, model, src, tgt, o) {
  modelArg(fn, model);
  for (const [name, v] of [["src", src], ["tgt", tgt]]) {
    if (!Array.isArray(v) && !ArrayBuffer.isView(v)) throw new TypeError(`${fn}: ${name} must be one row of token ids (got ${show(v)})`);
  }
  if (o.step === undefined) throw new TypeError(`${fn}: options.step is required (the decoder position)`);
  return intArg(fn, "step", o.step, 0, tgt.length - 1);
}

// ------------------------------------------------------------------- erasure
const ORDERS = ["attention", "gradient", "attentionGradient", "random"];

/**
 * Serrano & Smith 2019 on the decoder's choice at `step`: erase source keys from that step's
 * cross-attention row (every layer and head; the rest renormalised) one by one in `order` until
 * the greedy token changes. order: "attention" (mean weight over layers and heads, largest
 * first), "gradient" (|d logit / d weight| summed over layers and heads), "attentionGradient"
 * (weight times gradient), "random" (seeded). Returns { decision, order, ranking, removed (keys
 * erased when it flipped, null if it never did), fraction (of the source keys), mass (mean
 * attention mass erased), flippedTo }.
 */
export function erasure(model, src, tgt, opts) {
  const fn = "erasure";
  const o = optionsArg(fn, opts, ["step", "order", "seed"]);
  const step = exampleArgs(fn, model, src, tgt, o);
  const order = o.order === undefined ? "attention" : o.order;
  if (!ORDERS.includes(order)) {
    const E = typeof order === "string" ? RangeError : TypeError;
    throw new E(`${fn}: order must be one of ${ORDERS.map((x) => JSON.stringify(x)).join(", ")} (got ${show(order)})`);
  }
  const seed = intArg(fn, "seed", o.seed, 0, 0xffffffff, 1);
  const n = keyCount(src);
  const base = model.forward(src, tgt);
  const V = model.config.vocab;
  const decision = argmax(base.logits.subarray(step * V, (step + 1) * V));
  const rows = crossRows(base.attention, step).flat();
  const meanW = Array.from({ length: n }, (_, j) => rows.reduce((s, r) => s + r[j], 0) / rows.length);
  let score;
  if (order === "attention") score = meanW;
  else if (order === "random") {
    const r = mulberry32(seed);
    score = Array.from({ length: n }, () => r());
  } else {
    const dl = new Float32Array(V);
    dl[decision] = 1;
    // every layer and head in one backward pass: (layers, heads, keys), as rows is ordered
    const g = model.attentionGrad(src, tgt, { kind: "cross", row: step, step, dlogits: dl });
    const Tk = g.length / rows.length;
    score = new Array(n).fill(0);
    rows.forEach((w, r) => {
      for (let j = 0; j < n; j++) score[j] += order === "gradient" ? Math.abs(g[r * Tk + j]) : w[j] * g[r * Tk + j];
    });
  }
  const ranking = Array.from({ length: n }, (_, j) => j).sort((a, b) => score[b] - score[a] || a - b);
  for (let k = 1; k <= n; k++) {
    const keys = ranking.slice(0, k);
    const p = outputAt(model, src, tgt, step, [{ op: "erase", kind: "cross", row: step, keys }]);
    const now = argmax(p);
    if (now !== decision) {
      const mass = keys.reduce((s, j) => s + meanW[j], 0);
      return { decision, order, ranking, removed: k, fraction: k / n, mass, flippedTo: now };
    }
  }
  return { decision, order, ranking, removed: null, fraction: null, mass: null, flippedTo: null };
}

// --------------------------------------------------------------- adversarial
/**
 * Jain & Wallace 2019's adversarial attention at one decoder step: one distribution a' over the
 * keys, put in place of the step's row in every selected head (default: every head of every
 * layer of the kind, the map a reader sees), as unlike the model's (largest JSD from a, the
 * selected rows' mean) as it can be while the output distribution at the step stays within
 * total variation `epsilon` of the original. Projected gradient ascent on the simplex over the
 * visible keys (the projection is sparsemax, exact) of JSD(a', a) - penalty * max(0, TV - eps),
 * the TV gradient through model.attentionGrad (summed over the selected heads), started from the
 * uniform row and from the vertices of the `starts` - 1 least attended keys; the best point
 * within epsilon is kept. options: step, kind ("cross" or "decoder"), layer, head (omitted:
 * every one), epsilon (0.01), iterations (40), rate (0.5), starts (4). Returns { original (a),
 * adversarial (a'), jsd, tv, feasible (some a' other than a was within epsilon), sameDecision }.
 */
export function adversarialAttention(model, src, tgt, opts) {
  const fn = "adversarialAttention";
  const o = optionsArg(fn, opts, ["step", "kind", "layer", "head", "epsilon", "iterations", "rate", "starts"]);
  const step = exampleArgs(fn, model, src, tgt, o);
  const kind = o.kind === undefined ? "cross" : o.kind;
  if (kind !== "cross" && kind !== "decoder") {
    const E = typeof kind === "string" ? RangeError : TypeError;
    throw new E(`${fn}: kind must be "cross" or "decoder" (got ${show(kind)})`);
  }
  const { layers, heads, vocab: V } = model.config;
  const layer = o.layer === undefined ? undefined : intArg(fn, "layer", o.layer, 0, layers - 1);
  const head = o.head === undefined ? undefined : intArg(fn, "head", o.head, 0, heads - 1);
  const epsilon = numArg(fn, "epsilon", o.epsilon, 0, 1, 0.01);
  const iterations = intArg(fn, "iterations", o.iterations, 1, 10000, 40);
  const rate = numArg(fn, "rate", o.rate, 1e-6, 1e6, 0.5);
  const nStarts = intArg(fn, "starts", o.starts, 1, 256, 4);
  const base = model.forward(src, tgt);
  const n = kind === "cross" ? keyCount(src) : step + 1; // the keys the row sees
  const a0 = new Array(n).fill(0);
  let Tk = 0, rows = 0;
  for (const map of base.attention) {
    if (map.kind !== kind || (layer !== undefined && map.layer !== layer)) continue;
    const [, H, Tq, K] = map.shape;
    Tk = K;
    for (let h = 0; h < H; h++) {
      if (head !== undefined && h !== head) continue;
      rows++;
      for (let j = 0; j < n; j++) a0[j] += map.data[(h * Tq + step) * Tk + j];
    }
  }
  for (let j = 0; j < n; j++) a0[j] /= rows;
  const y0 = softmax64(base.logits.subarray(step * V, (step + 1) * V));
  const decision = argmax(y0);
  const where = { kind, ...(layer === undefined ? {} : { layer }), ...(head === undefined ? {} : { head }) };
  const full = (a) => {
    const w = new Float32Array(Tk);
    w.set(a);
    return w;
  };
  const edit = (a) => [{ op: "replace", ...where, row: step, weights: full(a) }];
  const penalty = 10 / Math.max(epsilon, 1e-3);
  const starts = [new Array(n).fill(1 / n)];
  const quiet = Array.from({ length: n }, (_, j) => j).sort((i, j) => a0[i] - a0[j]);
  for (let s = 0; s < nStarts - 1 && s < n; s++) starts.push(Array.from({ length: n }, (_, j) => (j === quiet[s] ? 1 : 0)));
  let best = { a: a0, jsd: 0, tv: 0 };
  for (const start of starts) {
    let a = start;
    for (let it = 0; it <= iterations; it++) {
      const y = outputAt(model, src, tgt, step, edit(a));
      const tv = totalVariation(y, y0), d = jsd(a, a0);
      if (tv <= epsilon && d > best.jsd) best = { a, jsd: d, tv };
      if (it === iterations) break;
      // d JSD / d a_j = ln(2 a_j / (a_j + a0_j)) / 2 (a_j = 0: from a tiny a_j, finite)
      const g = a.map((aj, j) => 0.5 * Math.log((2 * Math.max(aj, 1e-6)) / (Math.max(aj, 1e-6) + a0[j])));
      if (tv > epsilon) { // d TV / d logits = J_softmax^T sign(y - y0) / 2, then through every selected row
        const s = y.map((v, i) => 0.5 * Math.sign(v - y0[i]));
        let ys = 0;
        for (let i = 0; i < V; i++) ys += y[i] * s[i];
        const dl = Float32Array.from(y, (v, i) => v * (s[i] - ys));
        const gt = model.attentionGrad(src, tgt, { ...where, row: step, step, dlogits: dl, intervene: edit(a) });
        for (let r = 0; r < gt.length / Tk; r++) {
          for (let j = 0; j < n; j++) g[j] -= penalty * gt[r * Tk + j];
        }
      }
      a = Array.from(sparsemax(Float32Array.from(a, (aj, j) => aj + rate * g[j])));
    }
  }
  const yb = outputAt(model, src, tgt, step, edit(best.a));
  return {
    original: Float32Array.from(a0), adversarial: Float32Array.from(best.a), jsd: best.jsd, tv: best.tv,
    feasible: best.jsd > 0, sameDecision: argmax(yb) === decision,
  };
}

// ---------------------------------------------------------------- experiments
const METHODS = ["gradInput", "integratedGradients", "leaveOneOut", "rollout"];

const mean = (v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN);
const median = (v) => {
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The experiments over `count` held-out examples of a task (reverse, sort, after_marker, date)
 * whose answer the model gets right: per cross-attention head, Kendall's tau between its row and
 * each importance (gradInput, integratedGradients, leaveOneOut, rollout; the logit objective,
 * over the source keys) and how often its largest weight falls on the known alignment; the same
 * alignment accuracy for each importance; erasure in each order at every answer step; the
 * adversarial search on the whole cross-attention map (every layer and head) at the aligned step
 * nearest the middle of each answer. options: count (50), seed
 * (1), epsilon (0.01), igSteps (16), adversarial (true), onProgress(done, total) (called after
 * each example), signal (an AbortSignal: stops before the next example). Returns the summary
 * { task, examples, steps, tau, alignment, erasure, adversarial } (see the README).
 */
export async function runExperiments(model, task, opts) {
  const fn = "runExperiments";
  modelArg(fn, model);
  alignedTask(fn, task);
  const o = optionsArg(fn, opts, ["count", "seed", "epsilon", "igSteps", "adversarial", "onProgress", "signal"]);
  const count = intArg(fn, "count", o.count, 1, 10000, 50);
  const seed = intArg(fn, "seed", o.seed, 0, 0xffffffff, 1);
  const epsilon = numArg(fn, "epsilon", o.epsilon, 0, 1, 0.01);
  const igSteps = intArg(fn, "igSteps", o.igSteps, 1, 4096, 16);
  const withAdv = o.adversarial === undefined ? true : o.adversarial;
  if (typeof withAdv !== "boolean") throw new TypeError(`${fn}: adversarial must be true or false (got ${show(withAdv)})`);
  if (o.onProgress !== undefined && typeof o.onProgress !== "function") {
    throw new TypeError(`${fn}: onProgress must be a function (got ${show(o.onProgress)})`);
  }
  const { layers, heads, maxLen } = model.config;
  const batch = tasks.generate(task, { count, seed, split: "heldout", maxLen });
  const L = batch.shape[1];
  const perHead = () => Array.from({ length: layers }, () => Array.from({ length: heads }, () => []));
  const tau = Object.fromEntries(METHODS.map((m) => [m, perHead()]));
  const hits = perHead();
  const methodHits = Object.fromEntries(METHODS.map((m) => [m, []]));
  const eras = Object.fromEntries(ORDERS.map((k) => [k, { fractions: [], masses: [], all: [], flips: 0, runs: 0 }]));
  const adv = { jsd: [], tv: [], same: 0, runs: 0 };
  let examples = 0, steps = 0, wrong = 0;
  for (let e = 0; e < count; e++) {
    if (o.signal?.aborted) break;
    const src = batch.src.slice(e * L, (e + 1) * L);
    const ref = batch.tgt.slice(e * L, (e + 1) * L);
    const out = model.generate(src)[0];
    if (tasks.decode(task, out) !== tasks.decode(task, ref)) wrong++;
    else {
      examples++;
      const align = alignment(task, src);
      const n = keyCount(src);
      let advStep = -1; // the aligned step nearest the middle of the answer
      for (let t = 0; t < align.length - 1; t++) {
        if (align[t].length === 0) continue;
        if (advStep < 0 || Math.abs(t - (align.length - 2) / 2) < Math.abs(advStep - (align.length - 2) / 2)) advStep = t;
        steps++;
        const r = model.explain(src, out, { step: t, objective: "logit", methods: METHODS, steps: igSteps });
        const rows = crossRows(r.attention, t);
        for (const m of METHODS) {
          const imp = Array.from(r.importance[m].subarray(0, n));
          methodHits[m].push(align[t].includes(argmax(imp)) ? 1 : 0);
          for (let l = 0; l < layers; l++) {
            for (let h = 0; h < heads; h++) {
              const k = kendallTau(Array.from(rows[l][h].subarray(0, n)), imp);
              if (!Number.isNaN(k)) tau[m][l][h].push(k);
            }
          }
        }
        for (let l = 0; l < layers; l++) {
          for (let h = 0; h < heads; h++) {
            const hit = align[t].includes(argmax(rows[l][h].subarray(0, n))) ? 1 : 0;
            hits[l][h].push(hit);
          }
        }
        for (const order of ORDERS) {
          const er = erasure(model, src, out, { step: t, order, seed: seed + e });
          const acc = eras[order];
          acc.runs++;
          acc.all.push(er.fraction);
          if (er.removed !== null) {
            acc.flips++;
            acc.fractions.push(er.fraction);
            acc.masses.push(er.mass);
          }
        }
      }
      if (withAdv && advStep >= 0) {
        const a = adversarialAttention(model, src, out, { step: advStep, kind: "cross", epsilon });
        adv.runs++;
        adv.jsd.push(a.jsd);
        adv.tv.push(a.tv);
        adv.same += a.sameDecision ? 1 : 0;
      }
    }
    if (o.onProgress) o.onProgress(e + 1, count);
    if ((e & 3) === 3) await new Promise((resolve) => setTimeout(resolve, 0)); // let the page breathe
  }
  const headTable = (v, f) => v.map((row) => row.map((x) => f(x)));
  const acc = headTable(hits, mean);
  let best = { layer: 0, head: 0, accuracy: -1 };
  acc.forEach((row, l) => row.forEach((a, h) => { if (a > best.accuracy) best = { layer: l, head: h, accuracy: a }; }));
  return {
    task, examples, steps, wrong,
    tau: Object.fromEntries(METHODS.map((m) => [m, { perHead: headTable(tau[m], mean), mean: mean(tau[m].flat(2)) }])),
    alignment: { perHead: acc, best, methods: Object.fromEntries(METHODS.map((m) => [m, mean(methodHits[m])])) },
    erasure: Object.fromEntries(ORDERS.map((k) => {
      const x = eras[k];
      return [k, {
        runs: x.runs, flipRate: x.runs ? x.flips / x.runs : NaN, medianFraction: median(x.fractions), medianMass: median(x.masses),
        fractions: x.all, // one per run: the fraction of keys erased at the flip, or null (never flipped)
      }];
    })),
    adversarial: withAdv
      ? { epsilon, runs: adv.runs, meanJSD: mean(adv.jsd), medianJSD: median(adv.jsd), sameDecision: adv.runs ? adv.same / adv.runs : NaN, values: adv.jsd }
      : null,
  };
}
