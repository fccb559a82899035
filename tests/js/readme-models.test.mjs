// The README's table of shipped models is computed, not typed: it must equal what
// `node tools/summary.mjs` renders from web/models/summary.json (written by `make models`). And
// summary.json's accuracies are recomputed here from the committed checkpoints, through the JS
// API: the figure the README shows is the checkpoint's, not only what the trainer wrote.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { builds, DIST } from "./helpers.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

test("README's model table equals tools/summary.mjs's rendering of summary.json", () => {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const a = readme.indexOf("<!-- models:start -->\n"), b = readme.indexOf("<!-- models:end -->");
  assert.ok(a >= 0 && b > a, "README.md lacks the <!-- models:start --> ... <!-- models:end --> block");
  const inReadme = readme.slice(a + "<!-- models:start -->\n".length, b).trim();
  const rendered = execFileSync(process.execPath, ["tools/summary.mjs"], { cwd: ROOT, encoding: "utf8" }).trim();
  assert.equal(inReadme, rendered, "README model table is stale: run `node tools/summary.mjs --readme README.md`");
});

test("summary.json describes exactly the committed checkpoints (float16, its byte counts), each >= 99% held-out (summary.json's figure)", () => {
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  const files = readdirSync(`${ROOT}web/models`).filter((f) => f.endsWith(".sxm")).sort();
  assert.deepEqual(runs.map((r) => `${r.task}-${r.kind}.sxm`).sort(), files);
  for (const r of runs) {
    const name = `${r.task}-${r.kind}`, bytes = readFileSync(`${ROOT}web/models/${name}.sxm`);
    assert.ok(r.accuracy >= 0.99, `${name}: held-out accuracy ${r.accuracy}`);
    assert.equal(r.bytes, bytes.length, `${name}: summary.json's bytes`);
    // format version 2 (float16): 2 bytes per parameter, about 86-89 KB at 43.8 k parameters
    assert.equal(r.precision, "float16", `${name}: precision`);
    assert.equal(bytes.readUInt32LE(4), 2, `${name}: format version`);
    assert.ok(r.bytes < r.params * 2 + 1024, `${name}: ${r.bytes} bytes for ${r.params} parameters`);
  }
});

// tools/train.c's test figure: greedy exact-sequence accuracy (the generated row equal to the
// reference up to and including EOS) of the model loaded from the shipped bytes, on examples
// 0 .. test_examples - 1 of the held-out split under seed 2000 + seed. Here: on all of them,
// teacher forced (web/widgets/runtime/trainer.js's exactAccuracy, train.c's accuracy_tf: greedy decoding yields
// the reference row exactly when every argmax along the reference prefix is the reference
// token), and that shortcut checked against real greedy decoding (model.generate, the page's
// path) on the first GREEDY examples of each model, row counts equal. All 24 x 2000 take about
// 25 s in the SIMD build on a shared 2-core machine. The wasm figure may differ from the native
// trainer's by a row or two that sit on a float-rounding tie: within TIE_ROWS rows.
const GREEDY = 200, TIE_ROWS = 2;
test("each shipped checkpoint's held-out accuracy, recomputed through the JS API, is summary.json's and >= 99%", async () => {
  const { sx } = (await builds()).find((b) => b.name === "simd");
  const { exactAccuracy } = await import(new URL("trainer.js", DIST).href);
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  assert.equal(runs.length, 28, "28 shipped models");
  for (const r of runs) {
    const name = `${r.task}-${r.kind}`, n = r.test_examples;
    assert.ok(Number.isInteger(n) && n >= 2000, `${name}: summary.json's test_examples ${n} (2000 expected)`);
    const m = sx.Model.load(readFileSync(`${ROOT}web/models/${name}.sxm`));
    try {
      const held = sx.tasks.generate(r.task, { seed: 2000 + r.seed, count: n, split: "heldout" });
      const acc = exactAccuracy(m, held, 64);
      assert.ok(acc >= 0.99, `${name}: held-out accuracy recomputed from the checkpoint: ${acc} on ${n} examples (< 99%)`);
      assert.ok(Math.abs(acc - r.accuracy) * n <= TIE_ROWS + 1e-9,
        `${name}: held-out accuracy recomputed from the checkpoint, ${acc} on ${n} examples, is not summary.json's (and the README's) ${r.accuracy} (more than ${TIE_ROWS} rows apart)`);
      // the teacher-forced count against greedy decoding, on the first GREEDY examples
      const T = held.shape[1], eos = sx.tasks.vocab(r.task).indexOf("<eos>");
      const part = sx.tasks.generate(r.task, { seed: 2000 + r.seed, count: GREEDY, split: "heldout" });
      assert.deepEqual(part.src, held.src.subarray(0, GREEDY * T), `${name}: the first ${GREEDY} held-out examples`);
      const rows = m.generate(part.src, { count: GREEDY });
      let right = 0;
      for (let i = 0; i < GREEDY; i++) {
        let ok = true;
        for (let t = 0; t < T && ok; t++) {
          ok = rows[i][t] === part.tgt[i * T + t];
          if (part.tgt[i * T + t] === eos) break;
        }
        right += ok;
      }
      const tf = Math.round(exactAccuracy(m, part, 64) * GREEDY);
      assert.equal(right, tf, `${name}: greedy decoding gets ${right} of the first ${GREEDY} held-out examples right, teacher forcing ${tf}`);
    } finally {
      m.free();
    }
  }
});

// summary.json's "outputs" (tools/output-stats.mjs, through the JS API): recomputed here for one
// sparse-output model and one softmax model, every figure equal; and every sparse-output model's
// exact search found each input's sequences (none stopped at the cap).
test("summary.json's output figures: recomputed for two models, and each sparse-output model's exact search complete", async () => {
  const { sx } = (await builds()).find((b) => b.name === "simd");
  const { outputStats } = await import(new URL("../../tools/output-stats.mjs", import.meta.url).href);
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  for (const r of runs) {
    assert.equal(r.outputs.mapping, r.kind.endsWith("-out") ? r.kind.slice(0, -4) : "softmax", `${r.task}-${r.kind}`);
    if (r.outputs.mapping !== "softmax") assert.equal(r.outputs.incomplete, 0, `${r.task}-${r.kind}: exact search hit the cap`);
  }
  for (const name of ["sort-sparsemax-out", "reverse-softmax"]) {
    const r = runs.find((x) => `${x.task}-${x.kind}` === name);
    const m = sx.Model.load(readFileSync(`${ROOT}web/models/${name}.sxm`));
    try {
      assert.deepEqual(outputStats(sx, m, r), r.outputs, name);
    } finally {
      m.free();
    }
  }
});

// summary.json's "runs" (tools/output-stats.mjs's attentionRuns: runs of equal nonzero weight per
// cross-attention row) recomputed for the structured models and the 1.5-entmax models of the same
// tasks, every total equal; and for every model, the share of zeros among those weights (computed
// here in wasm) is the cross "zeros" tools/train.c measured natively on the same rows (to its 4
// decimals): the two implementations agree on the attention maps the runs are counted on.
test("summary.json's runs per cross-attention row: recomputed for six models; the wasm zeros are the native trainer's", async () => {
  const { sx } = (await builds()).find((b) => b.name === "simd");
  const { attentionRuns } = await import(new URL("../../tools/output-stats.mjs", import.meta.url).href);
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  for (const r of runs) {
    const c = r.runs, name = `${r.task}-${r.kind}`;
    assert.ok(c.rows > 0 && c.runs <= c.nonzero && c.nonzero <= c.keys, `${name}: runs ${JSON.stringify(c)}`);
    assert.ok(Math.abs(1 - c.nonzero / c.keys - r.zeros.cross) <= 0.5e-4 + 1e-12,
      `${name}: cross zeros from the wasm maps ${1 - c.nonzero / c.keys} vs the native trainer's ${r.zeros.cross}`);
    if (r.kind === "softmax") assert.equal(c.runs, c.keys, `${name}: softmax: every weight its own run`);
  }
  for (const name of ["after_marker-fusedmax", "after_marker-oscarmax", "after_marker-entmax15", "date-fusedmax", "date-oscarmax", "date-entmax15"]) {
    const r = runs.find((x) => `${x.task}-${x.kind}` === name);
    const m = sx.Model.load(readFileSync(`${ROOT}web/models/${name}.sxm`));
    try {
      assert.deepEqual(attentionRuns(sx, m, r), r.runs, name);
    } finally {
      m.free();
    }
  }
  // fusedmax fuses: fewer runs than nonzero weights, and fewer runs per row than 1.5-entmax
  for (const task of ["after_marker", "date"]) {
    const f = runs.find((x) => x.task === task && x.kind === "fusedmax").runs;
    const e = runs.find((x) => x.task === task && x.kind === "entmax15").runs;
    assert.ok(f.runs < f.nonzero, `${task}-fusedmax: some weights fused (${f.runs} runs, ${f.nonzero} nonzero)`);
    assert.ok(f.runs / f.rows < e.runs / e.rows, `${task}: fusedmax ${f.runs / f.rows} runs per row vs 1.5-entmax ${e.runs / e.rows}`);
  }
});
