// groupmax.test.mjs - the two mappings beyond the simplex through the JS API, on both wasm builds:
// sigmoid (independent weights, rows not summing to 1) and groupmax (group-sparse attention,
// groups given in advance): hand-worked values, lambda 0 = sparsemax, a float64 reference,
// group sparsity, batching and out buffers, backward passes against central differences, the
// Jacobian (sigmoid's diagonal; groupmax refused with the way to get it), and argument errors
// (TypeError / RangeError naming the function, the argument and the value, before wasm).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, assertOnSimplex, rng, refGroupmax } from "./helpers.mjs";

const sigmoid = (v) => 1 / (1 + Math.exp(-v));

for (const { name, sx } of await builds()) {
  describe(`sigmoid and groupmax [${name} build]`, () => {
    test("groupmax: values worked by hand", () => {
      // z = [.9, 1, 1, 1], groups [1, 3]: lambda .2 keeps both groups, tau = (2.9 - lam (1 + sqrt 3)) / 4;
      // lambda .6 kills the singleton (||[.9 - tau]_+|| = .58 <= .6): [0, 1/3, 1/3, 1/3].
      const tau = (2.9 - 0.2 * (1 + Math.sqrt(3))) / 4;
      assertClose(sx.groupmax([0.9, 1, 1, 1], { groups: [1, 3], lambda: 0.2 }),
        [0.9 - tau - 0.2, ...Array(3).fill(1 - tau - 0.2 / Math.sqrt(3))], 1e-6, "lambda .2");
      const p = sx.groupmax([0.9, 1, 1, 1], { groups: [1, 3], lambda: 0.6 });
      assert.equal(p[0], 0, "the singleton group is exactly 0");
      assertClose(p, [0, 1 / 3, 1 / 3, 1 / 3], 1e-7, "lambda .6");
      assertClose(sx.sparsemax([0.9, 1, 1, 1]), [0.175, 0.275, 0.275, 0.275], 1e-6, "sparsemax keeps it");
    });

    test("groupmax: lambda 0 is sparsemax, the default lambda is 1, against a float64 reference", () => {
      const r = rng(15);
      for (let trial = 0; trial < 200; trial++) {
        const n = 1 + Math.floor(r() * 12);
        const x = Array.from({ length: n }, () => (r() - 0.5) * 4);
        if (trial % 3 === 0) x[Math.floor(r() * n)] = -Infinity;
        const groups = [];
        for (let left = n; left > 0;) { const k = Math.min(left, 1 + Math.floor(r() * 4)); groups.push(k); left -= k; }
        assert.deepEqual(sx.groupmax(x, { groups, lambda: 0 }), sx.sparsemax(x), "lambda 0");
        const lam = r() * 1.5, t = 0.5 + r();
        const p = sx.groupmax(x, { groups, lambda: lam, temperature: t });
        assertClose(p, refGroupmax(x, groups, lam, t), 1e-6, `n ${n} groups ${groups} lambda ${lam}`);
        assertOnSimplex(p, n, 2e-6, "groupmax", { allowZeroRow: true });
        assertClose(sx.groupmax(x, { groups }), refGroupmax(x, groups, 1), 1e-6, "default lambda 1");
      }
    });

    test("groupmax: whole groups become exactly 0 at a large lambda", () => {
      // groups [3, 1, 2, 4]: the price of mass spread over k entries is lambda / sqrt(k), so the
      // small groups die first and at lambda 20 only the group of 4 is left (its
      // advantage lambda (1 / sqrt 3 - 1 / 2) outweighs the higher scores of the group of 3).
      const x = [0.2, 1.1, 1.0, 1.05, 0.3, -0.4, 0.9, 0.95, 0.1, -0.2];
      const groups = [3, 1, 2, 4];
      const low = sx.groupmax(x, { groups, lambda: 0.02 });
      assert.ok(low[3] > 0, "at a small lambda the singleton group 2 is alive");
      const high = sx.groupmax(x, { groups, lambda: 20 });
      assert.deepEqual([...high.slice(0, 6)], [0, 0, 0, 0, 0, 0], "groups 1-3 are exactly 0");
      assertOnSimplex(high, 10, 2e-6, "lambda 20");
      assert.deepEqual([...sx.groupmax(x, { groups, lambda: 2 }).slice(3, 6)], [0, 0, 0], "lambda 2: groups 2 and 3 are 0");
    });

    test("groupmax: batching over rows, out buffers, n from the groups", () => {
      const x = [0.9, 1, 1, 1, 2, 0, 0.5, 1];
      const both = sx.groupmax(x, { groups: [1, 3], lambda: 0.3 });
      assertClose(both.slice(0, 4), sx.groupmax(x.slice(0, 4), { groups: [1, 3], lambda: 0.3 }), 0, "row 1");
      assertClose(both.slice(4), sx.groupmax(x.slice(4), { groups: [1, 3], lambda: 0.3 }), 0, "row 2");
      const out = new Float32Array(8);
      assert.equal(sx.groupmax(new Float32Array(x), { groups: new Int32Array([1, 3]), n: 4, lambda: 0.3, out }), out);
      assert.deepEqual(out, both);
      assert.deepEqual(sx.groupmax([], { groups: [2] }), new Float32Array(0));
    });

    test("groupmax backward: central differences of the reference, symmetric Jacobian", () => {
      const r = rng(7);
      let worst = 0, tested = 0;
      for (let trial = 0; trial < 60; trial++) {
        const n = 6, groups = [2, 3, 1], lam = 0.05 + r() * 0.4;
        const x = Array.from({ length: n }, () => r() * 2 - 1);
        const J = [];
        for (let j = 0; j < n; j++) {
          const e = new Array(n).fill(0); e[j] = 1;
          J.push(sx.groupmaxBackward(x, e, { groups, lambda: lam }));
        }
        const h = 1e-6;
        let near = false;
        for (let j = 0; j < n && !near; j++) {
          const xp = x.slice(), xm = x.slice(), xpp = x.slice();
          xp[j] += h; xm[j] -= h; xpp[j] += 1e-3;
          const pp = refGroupmax(xp, groups, lam), pm = refGroupmax(xm, groups, lam);
          const far = refGroupmax(xpp, groups, lam), p0 = refGroupmax(x, groups, lam);
          // skip points within 1e-3 of a kink: a support that changes under a 1e-3 nudge
          near = far.some((v, i) => (v === 0) !== (p0[i] === 0));
          for (let i = 0; i < n && !near; i++) worst = Math.max(worst, Math.abs(J[j][i] - (pp[i] - pm[i]) / (2 * h)));
        }
        if (near) continue;
        tested++;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) assert.ok(Math.abs(J[i][j] - J[j][i]) < 1e-6, "symmetric");
      }
      assert.ok(tested > 20, `${tested} points away from kinks`);
      assert.ok(worst < 2e-5, `backward vs central differences: ${worst}`);
    });

    test("sigmoid: independent weights, not on the simplex", () => {
      const p = sx.sigmoid([0, Math.log(3), -Math.log(3), -Infinity]);
      assertClose(p, [0.5, 0.75, 0.25, 0], 1e-7, "sigmoid");
      assert.equal(p[3], 0, "-Infinity gives exactly 0");
      assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1.5) < 1e-6, "this row sums to 1.5, not 1");
      assertClose(sx.sigmoid([2, 4], { temperature: 2 }), [sigmoid(1), sigmoid(2)], 1e-7, "temperature");
      const x = [0.3, -1.2, 2, 0.1], dy = [1, -2, 0.5, 3];
      const dx = sx.sigmoidBackward(x, dy, { temperature: 0.5 });
      assertClose(dx, x.map((v, i) => { const s = sigmoid(v / 0.5); return dy[i] * s * (1 - s) / 0.5; }), 1e-6, "backward");
      const J = sx.jacobian(x, { mapping: "sigmoid", temperature: 0.5 });
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
        assert.equal(J[i * 4 + j], i === j ? sx.sigmoidBackward(x, [0, 1, 2, 3].map((k) => +(k === i)), { temperature: 0.5 })[i] : 0);
      }
    });

    test("argument errors name the function, the argument and the value", () => {
      const cases = [
        [() => sx.groupmax([1, 2]), TypeError, "groupmax: groups must be an array of group sizes, e.g. [2, 3, 1] (got undefined)"],
        [() => sx.groupmax([1, 2], { groups: "1,1" }), TypeError, 'groupmax: groups must be an array of group sizes, e.g. [2, 3, 1] (got "1,1")'],
        [() => sx.groupmax([1, 2], { groups: [] }), RangeError, "groupmax: groups must hold at least one group size (got an empty array)"],
        [() => sx.groupmax([1, 2], { groups: [1, 0] }), RangeError, "groupmax: groups[1] must be an integer >= 1 (got 0)"],
        [() => sx.groupmax([1, 2], { groups: [1.5, 0.5] }), RangeError, "groupmax: groups[0] must be an integer >= 1 (got 1.5)"],
        [() => sx.groupmax([1, 2], { groups: [1, "1"] }), TypeError, 'groupmax: groups[1] must be an integer >= 1 (got "1")'],
        [() => sx.groupmax([1, 2, 3], { groups: [1, 1], n: 3 }), RangeError, "groupmax: groups must sum to n (got 2, n = 3)"],
        [() => sx.groupmax([1, 2, 3], { groups: [1, 1] }), RangeError, "groupmax: x.length (3) is not a multiple of n (2)"],
        [() => sx.groupmax([1, 2], { groups: [2], lambda: -1 }), RangeError, "groupmax: lambda must be >= 0 (got -1)"],
        [() => sx.groupmax([1, 2], { groups: [2], lambda: "1" }), TypeError, 'groupmax: lambda must be a number (got "1")'],
        [() => sx.groupmax([1, 2], { groups: [2], temperature: 0 }), RangeError, "groupmax: temperature must be finite and > 0 (got 0)"],
        [() => sx.groupmaxBackward([1, 2], [1], { groups: [2] }), RangeError, "groupmaxBackward: dy.length (1) must equal x.length (2)"],
        [() => sx.groupmaxBackward([1, 2], [1, 0], { groups: [3] }), RangeError, "groupmaxBackward: x.length (2) is not a multiple of n (3)"],
        [() => sx.groupmaxBackward([1, 2], [1, 0]), TypeError, "groupmaxBackward: groups must be an array of group sizes, e.g. [2, 3, 1] (got undefined)"],
        [() => sx.sigmoid("12"), TypeError, 'sigmoid: x must be a Float32Array, a WasmArray or an array of numbers (got "12")'],
        [() => sx.sigmoid([1, 2], { n: 3 }), RangeError, "sigmoid: x.length (2) is not a multiple of n (3)"],
        [() => sx.sigmoidBackward([1, 2], [1, 2], { temperature: -1 }), RangeError, "sigmoidBackward: temperature must be finite and > 0 (got -1)"],
        [() => sx.threshold([1, 2], { mapping: "sigmoid" }), RangeError, /^threshold: mapping must be one of .* \(got "sigmoid"\): sigmoid has no threshold/],
        [() => sx.jacobian([1, 2], { mapping: "groupmax" }), RangeError, /^jacobian: mapping must be one of .*"sigmoid" \(got "groupmax"\): groupmax's Jacobian is groupmaxBackward/],
      ];
      for (const [call, type, message] of cases) assert.throws(call, { name: type.name, message }, String(message));
    });

    test("the group sizes reach wasm right across a memory growth", () => {
      const row = [0.9, 1, 1, 1], want = sx.groupmax(row, { groups: [1, 3], lambda: 0.6 });
      const before = sx.info().memoryBytes;
      const big = new Float32Array(4 * 1_500_000);
      for (let i = 0; i < big.length; i++) big[i] = row[i % 4];
      const p = sx.groupmax(big, { groups: [1, 3], lambda: 0.6 });
      assert.ok(sx.info().memoryBytes > before, "memory grew");
      assert.deepEqual(p.slice(0, 4), want);
      assert.deepEqual(p.slice(-4), want);
    });

    test("non-finite scores are the core's errors, with the index; out untouched", () => {
      const out = new Float32Array(4).fill(42);
      assert.throws(() => sx.groupmax([1, 2, Infinity, 0], { groups: [2, 2], out }),
        { name: "SimplexityError", code: 2, index: 2, message: "groupmax: x[2] must be finite or -Infinity (got Infinity)" });
      assert.throws(() => sx.sigmoid([1, NaN], { out: out.subarray(0, 2) }),
        { name: "SimplexityError", code: 2, index: 1, message: "sigmoid: x[1] must be finite or -Infinity (got NaN)" });
      assert.deepEqual([...out], [42, 42, 42, 42]);
      assert.throws(() => sx.groupmaxBackward([1, 2], [1, -Infinity], { groups: [1, 1] }),
        { name: "SimplexityError", code: 2, message: "groupmaxBackward: dy[1] must be finite (got -Infinity)" });
    });
  });
}

test("the SIMD and scalar builds agree bitwise on groupmax and sigmoid", async () => {
  const [a, b] = await builds();
  const r = rng(3);
  const x = Array.from({ length: 60 }, () => r() * 4 - 2);
  const o = { groups: [3, 1, 2, 4, 5], lambda: 0.3 };
  assert.deepEqual(a.sx.groupmax(x, o), b.sx.groupmax(x, o));
  assert.deepEqual(a.sx.groupmaxBackward(x, x, o), b.sx.groupmaxBackward(x, x, o));
  assert.deepEqual(a.sx.sigmoid(x), b.sx.sigmoid(x));
});
