// rationales-table.test.mjs - tools/rationales.mjs, the README's rationale table from the JSON
// lines of build/tools/rationales (make rationales), on hand-made runs: a row per method in the
// core's order, the mean over seeds with the lowest and highest seed, and bad lines refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readRuns, table } from "../../tools/rationales.mjs";

const run = (method, seed, accuracy, precision, recall, fraction) => JSON.stringify({
  method, seed, steps: 10, batch: 4, lr: 0.01, sparsity: 0.05, test: 50, loss: 0.1, accuracy, precision, recall, fraction,
});

test("one row per method in the core's order, means with the seeds' range", () => {
  const text = [run("reinforce", 1, 1, 1, 1, 0.25), run("sparsemax", 1, 0.9, 0.5, 0.8, 0.4),
    run("sparsemax", 2, 1, 0.7, 1, 0.2)].join("\n");
  const lines = table(readRuns(text)).split("\n");
  assert.equal(lines[2], "| sparsemax over positions | 95.0 (90.0-100.0) | 60.0 (50.0-70.0) | 90.0 (80.0-100.0) | 30.0 (20.0-40.0) |");
  assert.equal(lines[3], "| Bernoulli gates, REINFORCE + baseline | 100.0 | 100.0 | 100.0 | 25.0 |", "one seed: no range");
  assert.equal(lines.length, 7);
  assert.match(lines[5], /^Mean over seeds 1, 2 .* 10 Adam steps of 4 examples at lr 0.01, sparsity weight 0.05/);
});

test("bad lines are refused", () => {
  assert.throws(() => readRuns(run("softmax", 1, 1, 1, 1, 0.25)), /unknown method "softmax"/);
  assert.throws(() => readRuns(run("hardkuma", 1, 1.5, 1, 1, 0.25)), /accuracy 1.5 is not in \[0, 1\]/);
  assert.throws(() => readRuns(""), /no runs/);
});
