// Pure drawing helpers of the page (web/viz/): geometry and scales.
import test from "node:test";
import assert from "node:assert/strict";
import { ternaryCorners, ternaryXY, ternaryFromXY, zeroCount } from "../../web/viz/ternary.js";
import { linear, ticks } from "../../web/viz/scale.js";

const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test("ternary corners map to the triangle's corners and the centre to the centroid", () => {
  const c = ternaryCorners(300, 30);
  assert.deepEqual(ternaryXY([1, 0, 0], 300, 30), c[0]);
  assert.deepEqual(ternaryXY([0, 1, 0], 300, 30), c[1]);
  assert.deepEqual(ternaryXY([0, 0, 1], 300, 30), c[2]);
  const [x, y] = ternaryXY([1, 1, 1], 300, 30);
  close(x, (c[0][0] + c[1][0] + c[2][0]) / 3);
  close(y, (c[0][1] + c[1][1] + c[2][1]) / 3);
  // equilateral: all sides equal to `side`
  const d = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  close(d(c[0], c[1]), 300); close(d(c[1], c[2]), 300); close(d(c[0], c[2]), 300);
});

test("ternaryFromXY inverts ternaryXY, and points on an edge have a zero weight", () => {
  for (const p of [[0.2, 0.3, 0.5], [0.75, 0, 0.25], [1 / 3, 1 / 3, 1 / 3], [0, 0, 1]]) {
    const [x, y] = ternaryXY(p, 200, 10);
    const q = ternaryFromXY(x, y, 200, 10);
    for (let i = 0; i < 3; i++) close(q[i], p[i], 1e-12);
  }
  assert.equal(zeroCount([0.75, 0, 0.25]), 1);
  assert.equal(zeroCount([1, 0, 0]), 2);
  assert.equal(zeroCount([0.2, 0.3, 0.5]), 0);
});

test("ternaryXY rejects a zero vector with a message naming the function", () => {
  assert.throws(() => ternaryXY([0, 0, 0], 100), { name: "RangeError", message: /ternaryXY: p must have a positive sum/ });
});

test("linear scales map and invert; ticks are round and cover the range", () => {
  const s = linear([-3, 3], [40, 400]);
  close(s(-3), 40); close(s(3), 400); close(s(0), 220); close(s.invert(220), 0);
  assert.throws(() => linear([1, 1], [0, 1]), { name: "RangeError", message: /linear: domain/ });
  assert.deepEqual(ticks(-3, 3, 6), [-3, -2, -1, 0, 1, 2, 3]);
  assert.deepEqual(ticks(0, 1, 4), [0, 0.2, 0.4, 0.6, 0.8, 1]);
});
