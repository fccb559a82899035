// The pure helpers of <sx-pooling> and <sx-span-mask> (web/widgets/viz/): D2L's seeded data, the
// heatmap's weight levels and paths, one attention row under an adaptive span. No DOM, no wasm.
import test from "node:test";
import assert from "node:assert/strict";
import { poolingData, truth, mse } from "../../web/widgets/viz/pooling-data.js";
import { weightLevels, levelPaths, levelOpacity } from "../../web/widgets/viz/heat-levels.js";
import { spanDistances, maskScores, applySpan } from "../../web/widgets/viz/span.js";

test("poolingData: sorted inputs in [0, 5), noisy targets around the truth, the test grid; seeded", () => {
  const d = poolingData({ n: 400, seed: 3, noise: 0.5 });
  assert.equal(d.x.length, 400);
  for (let i = 0; i < d.x.length; i++) {
    assert.ok(d.x[i] >= 0 && d.x[i] < 5, `x[${i}] = ${d.x[i]}`);
    if (i) assert.ok(d.x[i] >= d.x[i - 1], "sorted");
  }
  // the noise has the asked standard deviation (400 samples: within 20%)
  const res = Array.from(d.x, (t, i) => d.y[i] - truth(t));
  const mean = res.reduce((a, b) => a + b, 0) / res.length;
  const sd = Math.sqrt(res.reduce((a, b) => a + (b - mean) ** 2, 0) / res.length);
  assert.ok(Math.abs(mean) < 0.1 && sd > 0.4 && sd < 0.6, `noise mean ${mean}, sd ${sd}`);
  assert.equal(d.xTest.length, 50);
  assert.equal(d.xTest[0], 0);
  assert.ok(Math.abs(d.xTest[49] - 4.9) < 1e-6);
  assert.ok(Math.abs(d.yTest[10] - truth(d.xTest[10])) < 1e-6);
  assert.deepEqual(poolingData({ seed: 3 }), poolingData({ seed: 3 }), "same seed, same data");
  assert.notDeepEqual(poolingData({ seed: 3 }).x, poolingData({ seed: 4 }).x);
  const exact = poolingData({ n: 10, noise: 0 });
  exact.x.forEach((t, i) => assert.ok(Math.abs(exact.y[i] - truth(t)) < 1e-5));
  assert.throws(() => poolingData({ n: 0 }), { name: "RangeError", message: /poolingData: n must be an integer >= 1 \(got 0\)/ });
  assert.throws(() => poolingData({ noise: -1 }), { name: "RangeError", message: /noise must be finite and >= 0/ });
});

test("mse", () => {
  assert.equal(mse([1, 2, 3], [1, 2, 5]), 4 / 3);
  assert.throws(() => mse([1], [1, 2]), /mse: lengths 1 and 2/);
});

test("weightLevels: exact zeros get level 0, the largest weight the top level, the rest in between", () => {
  const { level, max, zeros } = weightLevels([0, 0.5, 0.25, 1e-9, 0, 0.125], { levels: 4, gamma: 1 });
  assert.deepEqual(Array.from(level), [0, 4, 2, 1, 0, 1]);
  assert.equal(max, 0.5);
  assert.equal(zeros, 2);
  // gamma < 1 lifts small weights; a non-zero weight never lands on level 0
  const g = weightLevels([1, 0.01, 1e-30], { levels: 8, gamma: 0.5 }).level;
  assert.deepEqual(Array.from(g), [8, 1, 1]);
  assert.deepEqual(Array.from(weightLevels([0, 0]).level), [0, 0], "all zero");
  assert.throws(() => weightLevels([1], { levels: 0 }), { name: "RangeError", message: /levels must be an integer in \[1, 255\]/ });
});

test("levelPaths: one path per level, runs of equal level merged, zeros left out", () => {
  // 2 x 4: row 0 = [1 1 0 2], row 1 = [2 2 2 2]
  const d = levelPaths(Uint8Array.from([1, 1, 0, 2, 2, 2, 2, 2]), 2, 4, { x0: 10, y0: 20, cw: 2, ch: 3, levels: 2 });
  assert.equal(d.length, 2);
  assert.equal(d[0], "M10 20h4v3h-4z");
  assert.equal(d[1], "M16 20h2v3h-2zM10 23h8v3h-8z");
  const area = (s) => [...s.matchAll(/h([\d.]+)v([\d.]+)/g)].reduce((a, m) => a + Number(m[1]) * Number(m[2]), 0);
  assert.equal(area(d[0]) + area(d[1]), 7 * 2 * 3, "the cells' total area: 7 non-zero cells");
  assert.throws(() => levelPaths(new Uint8Array(3), 2, 2), /levelPaths: level.length \(3\) must equal rows \* cols \(4\)/);
});

test("levelOpacity: 0 for level 0, a visible floor for level 1, 1 at the top", () => {
  assert.equal(levelOpacity(0, 8), 0);
  assert.ok(Math.abs(levelOpacity(1, 8) - (0.15 + 0.85 / 8)) < 1e-12);
  assert.equal(levelOpacity(8, 8), 1);
  assert.ok(levelOpacity(3, 8) < levelOpacity(4, 8));
});

test("span row: distances to the query, masked scores, renormalised weights with exact zeros", () => {
  assert.deepEqual(Array.from(spanDistances(4)), [3, 2, 1, 0]);
  assert.deepEqual(Array.from(spanDistances(4, 1)), [1, 0, 1, 2]);
  const m = [0, 0.5, 1, 1];
  assert.deepEqual(Array.from(maskScores([1, 2, 3, 4], m)), [-Infinity, 2, 3, 4]);
  const q = applySpan([0.4, 0.2, 0.3, 0.1], m);
  assert.equal(q[0], 0, "m = 0: exactly 0");
  const s = 0.1 + 0.3 + 0.1;
  [0, 0.1 / s, 0.3 / s, 0.1 / s].forEach((v, j) => assert.ok(Math.abs(q[j] - v) < 1e-6, `q[${j}] = ${q[j]}`));
  assert.ok(Math.abs(q.reduce((a, b) => a + b, 0) - 1) < 1e-6, "on the simplex");
  assert.deepEqual(Array.from(applySpan([1, 0], [0, 1])), [0, 0], "no mass left: zeros, no NaN");
  assert.throws(() => applySpan([1], [1, 1]), /applySpan: p.length \(1\) must equal m.length \(2\)/);
  assert.throws(() => spanDistances(-1), /spanDistances: n must be an integer >= 0/);
});
