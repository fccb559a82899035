// output-stats.mjs - what each shipped model's output layer does on its test slice (the examples
// tools/train.c measures: 0 .. test_examples - 1 of the held-out split under seed 2000 + seed),
// through the JS API, on the checkpoint that ships: the mean size of the next token's support
// (tokens with probability > 0) at the answer's positions, teacher forced; how often the right
// token is inside it; and for sparse outputs, how many output sequences exact search finds per
// input (model.exactSearch, cap 1000) and how often the most probable of them is the greedy
// output (model.generate's row). `make models` adds these to web/models/summary.json
// ("outputs") before tools/summary.mjs renders the README table.
//
// And how contiguous each model's cross-attention is (attentionRuns, "runs" in summary.json): over
// the same rows, every cross-attention row (each layer, head, and decoder position up to the one
// that predicts EOS: the queries tools/train.c's "zeros" count) over the keys it may see (the
// source up to and including EOS), the number of RUNS: maximal blocks of adjacent keys whose
// weights are nonzero and bitwise equal (a key whose weight differs from both neighbours is a run
// of one; zeros end runs and are not counted). A softmax row has as many runs as keys, a sparse
// row about as many as its support, a fusedmax row one per fused group. Stored as totals over all
// those rows: { rows, runs, nonzero, keys } (keys: the weights the rows may see, so 1 - nonzero /
// keys is tools/train.c's cross "zeros", computed natively); the README shows runs / rows beside
// nonzero / rows (the mean support).
//   node tools/output-stats.mjs [web/models/summary.json] [--models web/models]
// tests/js/readme-models.test.mjs recomputes one model's figures with outputStats().
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { equalRuns } from "../web/widgets/viz/heatmap.js";

const EOS = 2, CAP = 1000, CHUNK = 64;

/** Round to 4 decimals (the JSON's precision). */
const r4 = (x) => Math.round(x * 1e4) / 1e4;

/** The output figures of model `m` (run: its summary.json entry) through the library `sx`. */
export function outputStats(sx, m, run) {
  const n = run.test_examples, V = m.config.vocab;
  const held = sx.tasks.generate(run.task, { seed: 2000 + run.seed, count: n, split: "heldout" });
  const T = held.shape[1];
  let steps = 0, support = 0, inside = 0;
  for (let at = 0; at < n; at += CHUNK) {
    const count = Math.min(CHUNK, n - at);
    const src = held.src.subarray(at * T, (at + count) * T);
    const dec = Array.from({ length: count }, (_, r) => held.tgt.subarray((at + r) * T, (at + r + 1) * T - 1));
    const { probs } = m.forward(src, dec, { count, attention: false, probs: true });
    for (let r = 0; r < count; r++) {
      for (let t = 0; t + 1 < T; t++, steps++) {
        const p = probs.subarray((r * (T - 1) + t) * V, (r * (T - 1) + t + 1) * V), y = held.tgt[(at + r) * T + t + 1];
        for (let v = 0; v < V; v++) support += p[v] > 0;
        inside += p[y] > 0;
        if (y === EOS) { steps++; break; }
      }
    }
  }
  const out = { mapping: m.config.output, vocab: V, support: r4(support / steps), inside: r4(inside / steps) };
  if (m.config.output === "softmax") {
    return { ...out, sequences: null, sequences_max: null, single: null, top_greedy: null, incomplete: null };
  }
  let seqs = 0, max = 0, single = 0, greedy = 0, incomplete = 0;
  for (let at = 0; at < n; at += CHUNK) {
    const count = Math.min(CHUNK, n - at);
    const rows = m.generate(held.src.subarray(at * T, (at + count) * T), { count });
    for (let i = at; i < at + count; i++) {
      const s = m.exactSearch(held.src.subarray(i * T, (i + 1) * T), { cap: CAP, partial: true });
      const top = s.sequences[0].tokens, row = rows[i - at];
      seqs += s.sequences.length;
      max = Math.max(max, s.sequences.length);
      single += s.sequences.length === 1;
      greedy += top.every((v, j) => v === row[j]) && (top.length === T || row[top.length] === 0);
      incomplete += !s.complete;
    }
  }
  return { ...out, sequences: r4(seqs / n), sequences_max: max, single: r4(single / n), top_greedy: r4(greedy / n), incomplete };
}

/** The contiguity figures of model `m`'s cross-attention (run: its summary.json entry). */
export function attentionRuns(sx, m, run) {
  const n = run.test_examples;
  const held = sx.tasks.generate(run.task, { seed: 2000 + run.seed, count: n, split: "heldout" });
  const T = held.shape[1], PAD = 0;
  let rows = 0, runs = 0, nonzero = 0, keys = 0;
  for (let at = 0; at < n; at += CHUNK) {
    const count = Math.min(CHUNK, n - at);
    const src = held.src.subarray(at * T, (at + count) * T);
    const dec = Array.from({ length: count }, (_, r) => held.tgt.subarray((at + r) * T, (at + r + 1) * T - 1));
    const { attention } = m.forward(src, dec, { count });
    for (const map of attention.filter((a) => a.kind === "cross")) {
      const [, H, Tq, Tk] = map.shape;
      for (let r = 0; r < count; r++) {
        const s = held.src.subarray((at + r) * T, (at + r + 1) * T), t = held.tgt.subarray((at + r) * T, (at + r + 1) * T);
        const ls = s.indexOf(PAD) < 0 ? T : s.indexOf(PAD), lt = t.indexOf(EOS) < 0 ? T : t.indexOf(EOS);
        for (let h = 0; h < H; h++) {
          for (let i = 0; i < lt; i++) {
            const o = ((r * H + h) * Tq + i) * Tk, row = map.data.subarray(o, o + ls);
            rows++, runs += equalRuns(row, ls).length, keys += ls;
            for (let j = 0; j < ls; j++) nonzero += row[j] !== 0;
          }
        }
      }
    }
  }
  return { rows, runs, nonzero, keys };
}

async function main(argv) {
  const args = argv.slice();
  const at = args.indexOf("--models");
  const dir = at >= 0 ? args.splice(at, 2)[1] : "web/models";
  const file = args[0] ?? "web/models/summary.json";
  const sx = await import(new URL("../dist/simplexity.js", import.meta.url).href);
  await sx.init();
  const runs = JSON.parse(readFileSync(file, "utf8"));
  for (const run of runs) {
    const m = sx.Model.load(readFileSync(`${dir}/${run.task}-${run.kind}.sxm`));
    try {
      run.outputs = outputStats(sx, m, run);
      run.runs = attentionRuns(sx, m, run);
    } finally {
      m.free();
    }
    const o = run.outputs;
    console.error(`output-stats: ${run.task}-${run.kind}: ${o.mapping} outputs, support ${o.support} of ${o.vocab}, ` +
      `right token inside ${(100 * o.inside).toFixed(2)}%` + (o.sequences === null ? "" : `, ${o.sequences} sequences per input (max ${o.sequences_max})`) +
      `; cross-attention ${(run.runs.runs / run.runs.rows).toFixed(2)} runs per row, support ${(run.runs.nonzero / run.runs.rows).toFixed(2)}`);
  }
  writeFileSync(file, `[\n${runs.map((r) => JSON.stringify(r)).join(",\n")}\n]\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
