// The pure helpers of the chapter "Before the Transformer": viz/cues.js (keys, saliency, the
// cue scores of <sx-cues>) and viz/costs.js (the notes' cost table, crossovers, the CNN graph's
// depth, the least-squares fit and the measured sizes of <sx-costs>), against values worked by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { keyOf, saliency, queryOf, cueScores, FEATURES } from "../../web/widgets/viz/cues.js";
import { costTable, crossovers, cnnLayers, fitScale, ladder } from "../../web/widgets/viz/costs.js";

const close = (a, b, what) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) < 1e-12, `${what}[${i}]: ${v} vs ${b[i]}`));

test("cues: keys are one-hot over colour and shape", () => {
  assert.deepEqual(keyOf("red-circle"), [1, 0, 0, 0, 0, 1, 0, 0]);
  assert.deepEqual(keyOf("gray-triangle"), [0, 0, 0, 0, 1, 0, 0, 1]);
  assert.equal(FEATURES.length, 8);
  assert.throws(() => keyOf("purple-circle"), /keyOf: object must be <colour>-<shape>/);
  assert.throws(() => queryOf(["loud"]), /queryOf: "loud" is not a feature/);
});

test("cues: saliency is the rarity of an object's features (the red cup among grey papers)", () => {
  // 4 grey squares, a red circle, a blue square: grey 4/6, square 5/6, red 1/6, circle 1/6, blue 1/6
  const scene = ["gray-square", "gray-square", "red-circle", "gray-square", "blue-square", "gray-square"];
  close(saliency(scene), [2 / 6 + 1 / 6, 2 / 6 + 1 / 6, 5 / 6 + 5 / 6, 2 / 6 + 1 / 6, 5 / 6 + 1 / 6, 2 / 6 + 1 / 6], "saliency");
  // every object the same: nothing stands out
  close(saliency(["red-circle", "red-circle", "red-circle"]), [0, 0, 0], "uniform scene");
});

test("cues: query scores are q . key, both sums, gain scales", () => {
  const scene = ["gray-square", "red-circle", "blue-square"];
  close(cueScores(scene, { cue: "query", query: ["blue"], gain: 3 }), [0, 0, 3], "query blue");
  close(cueScores(scene, { cue: "query", query: ["square", "blue"], gain: 1 }), [1, 0, 2], "query square blue");
  const sal = saliency(scene);
  close(cueScores(scene, { cue: "both", query: ["red"], gain: 2 }), sal.map((s, i) => 2 * (s + (i === 1 ? 1 : 0))), "both");
  close(cueScores(scene, { cue: "saliency", query: ["red"], gain: 2 }), sal.map((s) => 2 * s), "saliency ignores the query");
  assert.throws(() => cueScores(scene, { cue: "loud" }), /cueScores: cue must be one of/);
});

test("costs: the notes' table, the crossovers, the CNN's depth", () => {
  const t = costTable(32, 64, 3);
  assert.deepEqual(t.cnn, { ops: 3 * 32 * 64 * 64, sequential: 1, path: 32 / 3 });
  assert.deepEqual(t.rnn, { ops: 32 * 64 * 64, sequential: 32, path: 32 });
  assert.deepEqual(t.attention, { ops: 32 * 32 * 64, sequential: 1, path: 1 });
  const x = crossovers(64, 3);
  assert.deepEqual(x, { rnn: 64, cnn: 192 });
  // at the crossovers the operations are equal; one token past, self-attention does more
  for (const [a, n] of [["rnn", x.rnn], ["cnn", x.cnn]]) {
    assert.equal(costTable(n, 64, 3).attention.ops, costTable(n, 64, 3)[a].ops);
    assert.ok(costTable(n + 1, 64, 3).attention.ops > costTable(n + 1, 64, 3)[a].ops);
    assert.ok(costTable(n - 1, 64, 3).attention.ops < costTable(n - 1, 64, 3)[a].ops);
  }
  assert.equal(cnnLayers(8, 3), 4);   // 0 -> 2 -> 4 -> 6 -> 7
  assert.equal(cnnLayers(8, 2), 7);
  assert.equal(cnnLayers(8, 8), 1);
  assert.equal(cnnLayers(8, 16), 1);
  assert.throws(() => cnnLayers(8, 1), /cnnLayers: k must be >= 2/);
});

test("costs: least squares through the origin, the measured sizes", () => {
  assert.equal(fitScale([1, 2, 3], [2, 4, 6]), 2);
  assert.equal(fitScale([1, 1], [1, 3]), 2);
  assert.equal(fitScale([0, 0], [1, 2]), 0);
  assert.deepEqual(ladder(64, 32), [8, 16, 32, 64, 128]);
  assert.deepEqual(ladder(4, 64), [2, 4, 8]);
  assert.deepEqual(ladder(1024, 64, { budget: 2 ** 25 }), [128, 256, 512]);
  assert.deepEqual(ladder(4096, 64, { nMax: 4096, budget: 2 ** 25 }), [512]);
});
