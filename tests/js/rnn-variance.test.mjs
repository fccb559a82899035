// rnn-variance.test.mjs - tools/rnn-variance.mjs, the soft / sparse / hard table (make
// rnn-variance), on hand-made results: one row per parameter point and method, the training
// table, each verdict of the finding following the numbers (hard-like or not, the straight-through
// argmax biased or not, the hard estimators in the order of their variance or not), and the
// README block rewritten between its markers only; --json, the figures <sx-hard> draws.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const TOOL = new URL("../../tools/rnn-variance.mjs", import.meta.url).pathname;
const NAMES = ["softmax", "sparsemax", "entmax15", "reinforce", "gumbel", "straight"];
const dir = mkdtempSync(path.join(tmpdir(), "rnn-variance-"));

/** A result with every field rnn-variance.c prints; over(point, method) and curve(method) edit it. */
function result({ over = () => ({}), curve = () => ({}) } = {}) {
  const point = (name, step) => ({
    name, step, floor: 0.2,
    methods: NAMES.map((m, i) => ({
      method: m, norm: 0.5, relvar: [0, 0, 0, 10, 1, 0][i], cos_soft: 0.9, cos_soft_one: 0.8,
      cos_reinforce: 0.7, dist_reinforce: 0.1, support: i < 3 ? 3 - i * 0.5 : -1, support1: i < 3 ? 0.1 : -1,
      ...over(name, m),
    })),
  });
  return {
    task: "reverse", seed: 1, steps: 1500, total: 3000, mid: 300, draws: 256, batch: 32, val: 500,
    warm_draws: 32, seconds: 1, config: { embed: 32, hidden: 64, attn_hidden: 32, temperature: 1, baseline: 0.9 },
    points: [point("init", 0), point("mid", 300), point("end", 1500), point("shipped", -1)],
    curves: NAMES.map((m, i) => ({
      method: m,
      points: [0, 300, 1500].map((step, k) => ({
        step, loss: 2 / (k + 1), val_accuracy: [0, [0.9, 0.9, 0.9, 0.2, 0.5, 0.7][i], 0.99][k],
        support: 2, support1: 0.2, ...curve(m, step),
      })),
    })),
  };
}

let n = 0;
function run(res, ...args) {
  const file = path.join(dir, `r${n++}.json`);
  writeFileSync(file, JSON.stringify(res));
  return execFileSync(process.execPath, [TOOL, ...args, file], { encoding: "utf8" });
}

test("one gradient row per point and method, one training row per method", () => {
  const out = run(result());
  const rows = out.split("\n").filter((l) => l.startsWith("| "));
  assert.equal(rows.filter((l) => /^\| (softmax run|shipped)/.test(l)).length, 4 * 6);
  assert.equal(rows.filter((l) => /^\| (additive|hard), [^|]*\| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|/.test(l)).length, 6);
  assert.match(out, /\| softmax run, step 300 \| hard, REINFORCE \+ baseline \| 0\.500 \| 10\.0 \| 0\.90 \| 0\.80 \|  \| \(floor 0\.20\) \|  \|/);
  assert.match(out, /\| additive, 1\.5-entmax \| 2\.000 \| 1\.000 \| 0\.667 \| 90\.0 \| 99\.0 \| 2\.00 \(20\.0%\) \|/);
  assert.match(out, /256 draws per stochastic estimator/);
});

test("the verdicts follow the numbers", () => {
  const base = run(result());
  assert.match(base, /holds here for the gradients and only in part for the selections/);
  assert.match(base, /not become hard/);
  assert.match(base, /beyond twice the floor at 0 of 4 points/);
  assert.match(base, /the noisier learns slower, in the order of their mean relative variance/);
  assert.match(base, /At step 300 every exact-gradient model is ahead of every hard one/);

  const hard = run(result({ curve: (m, step) => (m === "sparsemax" && step === 1500 ? { support1: 0.6 } : {}) }));
  assert.match(hard, /holds on this task/);
  assert.match(hard, /does become hard-like/);

  const biased = run(result({ over: (p, m) => (m === "straight" ? { dist_reinforce: 0.9 } : {}) }));
  assert.match(biased, /biased at every point/);

  // Gumbel noisier than REINFORCE while learning faster: not in the order of the variance.
  const unordered = run(result({ over: (p, m) => (m === "gumbel" ? { relvar: 50 } : {}) }));
  assert.match(unordered, /do not learn in the order/);

  const level = run(result({ curve: (m, step) => (m === "straight" && step === 300 ? { val_accuracy: 0.95 } : {}) }));
  assert.match(level, /ahead of reinforce and gumbel, but straight is level/);
});

test("--readme rewrites the marked block only, and fails without it", () => {
  const readme = path.join(dir, "README.md");
  writeFileSync(readme, "before\n<!-- rnn-variance:start -->\nold\n<!-- rnn-variance:end -->\nafter\n");
  const out = run(result(), "--readme", readme);
  assert.equal(readFileSync(readme, "utf8"),
    "before\n<!-- rnn-variance:start -->\n" + out + "<!-- rnn-variance:end -->\nafter\n");
  writeFileSync(readme, "no block\n");
  const file = path.join(dir, "r.json");
  writeFileSync(file, JSON.stringify(result()));
  const r = spawnSync(process.execPath, [TOOL, "--readme", readme, file], { encoding: "utf8" });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /has no <!-- rnn-variance:start -->/);
  assert.equal(readFileSync(readme, "utf8"), "no block\n");
});

// --json: the figures <sx-hard> draws (web/models/rnn-variance.json), the result without its
// clock, and nothing written from a result without the training trace (an older tool's output).
test("--json writes the result without its clock, and fails without a trace", () => {
  const fig = path.join(dir, "figures.json");
  const res = result();
  res.curves.forEach((c, i) => (c.trace = [0, 100, 200].map((step) => ({ step, loss: 2 - i / 10 - step / 200, val_accuracy: step / 200 }))));
  run(res, "--json", fig);
  const { seconds, ...want } = res;
  assert.equal(seconds, 1);
  assert.deepEqual(JSON.parse(readFileSync(fig, "utf8")), want);
  const again = readFileSync(fig, "utf8");
  run({ ...res, seconds: 99 }, "--json", fig);
  assert.equal(readFileSync(fig, "utf8"), again, "a run that differs by its clock writes the same bytes");

  writeFileSync(fig, "untouched\n");
  const file = path.join(dir, "old.json");
  writeFileSync(file, JSON.stringify(result()));
  const r = spawnSync(process.execPath, [TOOL, "--json", fig, file], { encoding: "utf8" });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /has no training trace/);
  assert.equal(readFileSync(fig, "utf8"), "untouched\n");
});
