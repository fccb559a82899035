// The pure helpers behind <sx-jacobian> (web/widgets/viz/): the diverging scale, the face path (the
// lecture's example), the alpha-entmax closed form of the Jacobian, and parseAttr's whole
// numbers. The closed form is checked against the library's jacobian() on both wasm builds, and
// the face path against sparsemax: its support, and so its Jacobian, stay fixed along it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose } from "./helpers.mjs";
import { divergingLevel, niceMax } from "../../web/widgets/viz/diverging.js";
import { faceEnds, lerpScores, pathT } from "../../web/widgets/viz/face-path.js";
import { entmaxWeights, entmaxJacobian } from "../../web/widgets/viz/entmax-jacobian.js";
import { parseAttr } from "../../web/widgets/viz/parse-attr.js";

test("divergingLevel: the side of zero and a tint in [floor, 1]; exact zeros and non-numbers untinted", () => {
  assert.deepEqual(divergingLevel(0.25, 0.5), { side: "pos", level: 0.5 });
  assert.deepEqual(divergingLevel(-0.5, 0.5), { side: "neg", level: 1 });
  assert.deepEqual(divergingLevel(-2, 0.5), { side: "neg", level: 1 }, "clamped");
  assert.deepEqual(divergingLevel(1e-9, 1), { side: "pos", level: 0.06 }, "the smallest non-zero still shows");
  assert.deepEqual(divergingLevel(1e-9, 1, { floor: 0 }), { side: "pos", level: 1e-9 });
  for (const v of [0, -0, NaN, Infinity, undefined]) assert.deepEqual(divergingLevel(v, 1), { side: "zero", level: 0 }, String(v));
  assert.deepEqual(divergingLevel(0.5, 0), { side: "pos", level: 0.5 }, "a bad max counts as 1");
});

test("niceMax: the smallest 1, 2, 2.5 or 5 times a power of ten at or above m", () => {
  const cases = [[0.5, 0.5], [0.49, 0.5], [0.2475, 0.25], [0.26, 0.5], [1, 1], [1.01, 2], [0.0099, 0.01], [3, 5], [7, 10], [120, 200]];
  for (const [m, want] of cases) assert.equal(niceMax(m), want, `niceMax(${m})`);
  for (const m of [0, -1, NaN, Infinity]) assert.equal(niceMax(m), 1, String(m));
});

test("the face path: the lecture's ends, straight-line scores, and t read back", () => {
  assert.deepEqual(faceEnds(3), { from: [0.99, 0.01, -1], to: [0.5, 0.5, -1] });
  assert.deepEqual(faceEnds(2), { from: [0.99, 0.01], to: [0.5, 0.5] });
  assert.deepEqual(faceEnds(5).to, [0.5, 0.5, -1, -1, -1]);
  assert.throws(() => faceEnds(1), { name: "RangeError", message: "faceEnds: n must be an integer >= 2 (got 1)" });
  assert.throws(() => faceEnds(2.5), { name: "RangeError", message: /faceEnds: n must be an integer/ });
  const { from, to } = faceEnds(3);
  assert.deepEqual(lerpScores(from, to, 0), from);
  assert.deepEqual(lerpScores(from, to, 1), to, "t = 1 is `to` exactly");
  assert.deepEqual(lerpScores(from, to, 2), to, "t is clamped");
  assertClose(lerpScores(from, to, 0.5), [0.745, 0.255, -1], 1e-15);
  assert.throws(() => lerpScores([1, 2], [1, 2, 3], 0.5), { name: "RangeError", message: "lerpScores: from and to differ in length (2 and 3)" });
  for (const t of [0, 0.37, 0.5, 1]) assert.ok(Math.abs(pathT(lerpScores(from, to, t), from, to) - t) < 1e-12, `pathT at ${t}`);
  assert.equal(pathT([0.99, 0.01, -0.95], from, to), null, "off the path");
  assert.equal(pathT([0.99, 0.01], from, to), null, "another length");
  assert.equal(pathT([0.5, 0.5, -1.00005], from, to), 1, "within the tolerance");
  assert.equal(pathT([1, 2], [1, 2], [1, 2]), 0, "a path of one point");
});

test("entmaxWeights: s = p^(2 - alpha) on the support, 0 off it; softmax s = p, sparsemax s = 1", () => {
  const p = [0.5, 0.25, 0, 0.25];
  assert.deepEqual(Array.from(entmaxWeights(p, 1)), p);
  assert.deepEqual(Array.from(entmaxWeights(p, 2)), [1, 1, 0, 1]);
  assertClose(entmaxWeights(p, 1.5), [Math.SQRT1_2, 0.5, 0, 0.5], 1e-15);
  assert.deepEqual(Array.from(entmaxWeights(p, 3)), [2, 4, 0, 4]);
  assert.throws(() => entmaxWeights(p, 0.5), { name: "RangeError", message: "entmaxWeights: alpha must be >= 1 (got 0.5)" });
  assert.throws(() => entmaxJacobian(p, 1.5, 0), { name: "RangeError", message: "entmaxJacobian: temperature must be > 0 (got 0)" });
  assert.deepEqual(Array.from(entmaxJacobian([0, 0], 1.5)), [0, 0, 0, 0], "no support: all zeros");
  // sparsemax on a support of 2: I - 1 1^T / 2 there, / T
  assert.deepEqual(Array.from(entmaxJacobian([0.99, 0.01, 0], 2, 0.5)), [1, -1, 0, -1, 1, 0, 0, 0, 0]);
});

test("parseAttr: integer numbers refuse a fraction, with a message", () => {
  const spec = { type: "number", default: 3, min: 2, max: 8, integer: true };
  assert.deepEqual(parseAttr("n", "5", spec), { value: 5, error: null });
  assert.deepEqual(parseAttr("n", "2.5", spec), { value: 3, error: 'n="2.5" is not a whole number; using 3' });
  assert.deepEqual(parseAttr("n", "9", spec), { value: 3, error: 'n="9" is above 8; using 3' });
  assert.deepEqual(parseAttr("x", "2.5", { type: "number", default: 1 }), { value: 2.5, error: null }, "without integer, fractions pass");
});

for (const { name, sx } of await builds()) {
  describe(`<sx-jacobian>'s numbers against the library [${name} build]`, () => {
    test("the closed form (diag(s) - s s^T / sum s) / T equals jacobian() for softmax, sparsemax, entmax15, entmax", () => {
      const cases = [["softmax", 1, {}], ["sparsemax", 2, {}], ["entmax15", 1.5, {}], ["entmax", 1.25, { alpha: 1.25 }], ["entmax", 3, { alpha: 3 }]];
      const points = [[1.5, 0, 1], [0.99, 0.01, -1], [0.3, -0.2, 0.9, 0.1, -1.5], [2, 1.9, -3, 0.4]];
      for (const [mapping, alpha, extra] of cases) {
        for (const x of points) {
          for (const temperature of [1, 0.6]) {
            const o = { temperature, ...extra };
            const p = sx[mapping](x, o);
            const J = sx.jacobian(x, { mapping, ...o });
            assertClose(J, entmaxJacobian(p, alpha, temperature), 2e-6, `${mapping} alpha ${alpha} at [${x}], T ${temperature}`);
          }
        }
      }
    });

    test("along the face (the lecture's example): sparsemax's support and Jacobian are fixed, softmax's Jacobian moves", () => {
      const { from, to } = faceEnds(3);
      const J0 = sx.jacobian(from, { mapping: "sparsemax" });
      const S0 = sx.jacobian(from, { mapping: "softmax" });
      assert.deepEqual(Array.from(J0), [0.5, -0.5, 0, -0.5, 0.5, 0, 0, 0, 0]);
      for (let k = 1; k <= 20; k++) {
        const z = lerpScores(from, to, k / 20);
        const p = sx.sparsemax(z);
        assert.equal(p[2], 0, `t = ${k / 20}: p3 is exactly 0`);
        assertClose(p, [z[0], z[1], 0], 1e-6, `t = ${k / 20}: p = [z1, z2, 0] (threshold 0)`);
        assert.deepEqual(Array.from(sx.jacobian(z, { mapping: "sparsemax" })), Array.from(J0), `t = ${k / 20}: the same sparsemax Jacobian, bit for bit`);
        const S = sx.jacobian(z, { mapping: "softmax" });
        assert.ok(Math.max(...S.map((v, i) => Math.abs(v - S0[i]))) > 1e-3, `t = ${k / 20}: softmax's Jacobian has moved`);
      }
      assertClose(sx.sparsemax(to), [0.5, 0.5, 0], 1e-7);
    });
  });
}
