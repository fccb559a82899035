// threshold-steps.test.mjs - the steps <sx-threshold> shows (web/widgets/viz/threshold-steps.js, float64)
// against the library (both wasm builds): sparsemax's closed form and alpha-entmax's bisection
// give threshold()'s tau and the forward pass's p, over seeded random rows, rows with ties, n = 1
// and n = 50; the line's position in score units; the errors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, rng, refSparsemax, refEntmax } from "./helpers.mjs";
import { sparsemaxSteps, entmaxBisection, logSumExp, thresholdLine } from "../../web/widgets/viz/threshold-steps.js";

// Seeded rows: n from 1 to 50, some with ties (scores rounded to a coarse grid) and large spreads.
function rows(seed, count = 120) {
  const r = rng(seed), out = [];
  const sizes = [1, 2, 3, 8, 50];
  for (let c = 0; c < count; c++) {
    const n = c < sizes.length ? sizes[c] : 1 + Math.floor(r() * 50);
    const scale = [0.3, 1, 3][c % 3];
    const x = r.vector(n, scale);
    if (c % 4 === 1) for (let i = 0; i < n; i++) x[i] = Math.round(x[i] * 2) / 2; // ties
    out.push(x);
  }
  out.push(new Float32Array(50).fill(0.25), Float32Array.of(1, 1, 1, -2), Float32Array.of(-3));
  return out;
}

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

describe("threshold steps (pure)", () => {
  test("sparsemaxSteps: the worked example and the table's columns", () => {
    const s = sparsemaxSteps([2, 1.5, -1]);
    assert.deepEqual(s.order, [0, 1, 2]);
    assert.equal(s.k, 2);
    assert.equal(s.tau, 1.25);
    assert.deepEqual(s.p, [0.75, 0.25, 0]);
    assert.deepEqual(s.rows.map((r) => [r.k, r.index, r.z, r.cumsum, r.inSupport, r.tau]),
      [[1, 0, 2, 2, true, 1], [2, 1, 1.5, 3.5, true, 1.25], [3, 2, -1, 2.5, false, 0.5]]);
    // ties keep index order; n = 1 puts everything on the one item
    assert.deepEqual(sparsemaxSteps([0, 1, 1, 0]).order, [1, 2, 0, 3]);
    assert.deepEqual(sparsemaxSteps([0, 1, 1, 0]).p, [0, 0.5, 0.5, 0]);
    const one = sparsemaxSteps([-3]);
    assert.deepEqual([one.k, one.tau, one.p[0]], [1, -4, 1]);
  });

  test("sparsemaxSteps and entmaxBisection match the float64 references", () => {
    for (const x of rows(11)) {
      const z = Array.from(x);
      const s = sparsemaxSteps(z), ref = refSparsemax(z);
      z.forEach((_, i) => close(s.p[i], ref[i], 1e-12, `sparsemax n=${z.length} [${i}]`));
      assert.equal(s.k, ref.filter((v) => v > 0).length, `n=${z.length}: k is the support size`);
      assert.equal(s.k, z.filter((v) => v > s.tau).length, `n=${z.length}: k counts the scores above tau (ties on it are out)`);
      for (const alpha of [1.5, 1.25, 2, 3]) {
        const b = entmaxBisection(z, alpha), want = refEntmax(z, alpha);
        z.forEach((_, i) => close(b.p[i], want[i], 1e-8, `entmax alpha=${alpha} n=${z.length} [${i}]`));
        close(b.sum, 1, 1e-9, `entmax alpha=${alpha}: the bisection's mass at its tau`);
      }
    }
  });

  test("entmaxBisection: the bracket halves and always holds the root; alpha = 2 is sparsemax", () => {
    const z = [1.2, 0.3, -0.5, 0.9, 0.1];
    const b = entmaxBisection(z, 1.5, { iterations: 30 });
    assert.equal(b.steps.length, 30);
    b.steps.forEach((s, k) => {
      assert.equal(s.i, k + 1);
      assert.equal(s.tau, (s.lo + s.hi) / 2);
      if (k) close(s.hi - s.lo, (b.steps[k - 1].hi - b.steps[k - 1].lo) / 2, 1e-12, `step ${s.i} halves the bracket`);
      assert.ok(s.lo <= b.tau && b.tau <= s.hi, `step ${s.i}: ${b.tau} in [${s.lo}, ${s.hi}]`);
    });
    const two = entmaxBisection(z, 2), sp = sparsemaxSteps(z);
    close(two.tau, sp.tau, 1e-11, "alpha = 2: the bisection's tau is sparsemax's");
    // n = 1: the bracket is a point, no step needed, p = [1]
    const one = entmaxBisection([0.7], 1.5);
    assert.deepEqual([one.steps.length, one.p[0]], [0, 1]);
    close(one.tau, 0.5 * 0.7 - 1, 1e-15, "n = 1: tau = (alpha - 1) z - 1");
  });

  test("logSumExp and thresholdLine", () => {
    close(logSumExp([0, 0]), Math.log(2), 1e-15, "log 2");
    close(logSumExp([1000, 1000]), 1000 + Math.log(2), 1e-15, "no overflow");
    assert.equal(thresholdLine("sparsemax", 1.25), 1.25);
    assert.equal(thresholdLine("sparsemax", 1.25, { temperature: 2 }), 2.5);
    assert.equal(thresholdLine("entmax15", -0.5), -1);
    assert.equal(thresholdLine("entmax", 0.5, { alpha: 3 }), 0.25);
    assert.equal(thresholdLine("entmax", 0.5, { alpha: 1.25, temperature: 0.5 }), 1);
    assert.equal(thresholdLine("softmax", 2.3), null);
    assert.throws(() => thresholdLine("fusedmax", 0), { name: "RangeError", message: /^thresholdLine: mapping must be softmax, sparsemax, entmax15 or entmax \(got fusedmax\)/ });
  });

  test("errors name the function and the bad value", () => {
    assert.throws(() => sparsemaxSteps([]), { name: "RangeError", message: "sparsemaxSteps: z must be a non-empty list of numbers" });
    assert.throws(() => sparsemaxSteps([1, NaN]), { name: "RangeError", message: "sparsemaxSteps: z[1] must be finite (got NaN)" });
    assert.throws(() => entmaxBisection([1, 2], 1), { name: "RangeError", message: "entmaxBisection: alpha must be a finite number > 1 (got 1)" });
    assert.throws(() => logSumExp(null), { name: "RangeError", message: /^logSumExp: z must be/ });
  });
});

for (const { name, sx } of await builds()) {
  describe(`threshold steps against threshold() and the mappings [${name} build]`, () => {
    test("sparsemax: the closed form's tau, k and p are threshold()'s and sparsemax()'s", () => {
      let checked = 0;
      for (const x of rows(21)) {
        const s = sparsemaxSteps(x);
        const [tau] = sx.threshold(x, { mapping: "sparsemax" });
        close(tau, s.tau, 2e-6, `tau n=${x.length}`);
        const p = sx.sparsemax(x);
        let zeros = 0;
        for (let i = 0; i < x.length; i++) {
          close(p[i], s.p[i], 2e-6, `p n=${x.length} [${i}]`);
          if (p[i] === 0) zeros++;
          // away from the boundary the exact zeros are the same items
          if (Math.abs(x[i] - s.tau) > 1e-4) assert.equal(p[i] === 0, s.p[i] === 0, `n=${x.length} [${i}]: zero in one, not the other`);
        }
        const margin = Math.min(...Array.from(x, (v) => Math.abs(v - s.tau)));
        if (margin > 1e-4) { assert.equal(x.length - zeros, s.k, `n=${x.length}: support size`); checked++; }
      }
      assert.ok(checked > 60, `the support size was compared on ${checked} rows`);
    });

    test("entmax: the bisection's last step is threshold()'s tau and entmax()'s p", () => {
      for (const x of rows(31)) {
        for (const [opts, alpha, forward] of [
          [{ mapping: "entmax15" }, 1.5, (v) => sx.entmax15(v)],
          [{ mapping: "entmax", alpha: 1.25 }, 1.25, (v) => sx.entmax(v, { alpha: 1.25 })],
          [{ mapping: "entmax", alpha: 3 }, 3, (v) => sx.entmax(v, { alpha: 3 })],
        ]) {
          const b = entmaxBisection(x, alpha);
          const [tau] = sx.threshold(x, opts);
          close(tau, b.tau, 2e-5, `${JSON.stringify(opts)} tau n=${x.length}`);
          const p = forward(x);
          for (let i = 0; i < x.length; i++) close(p[i], b.p[i], 2e-5, `${JSON.stringify(opts)} p n=${x.length} [${i}]`);
          const line = thresholdLine(opts.mapping, tau, { alpha });
          for (let i = 0; i < x.length; i++) {
            // an item is in the support exactly when its bar rises above the line
            if (Math.abs(x[i] - line) > 1e-3) assert.equal(p[i] > 0, x[i] > line, `${JSON.stringify(opts)} n=${x.length} [${i}] vs the line`);
          }
        }
      }
    });

    test("temperature: the line in score units is T times the line of z / T", () => {
      const x = Float32Array.of(1.5, 0.2, -0.7, 1.1, 0.9);
      for (const T of [0.5, 2]) {
        const z = Array.from(x, (v) => v / T);
        const [ts] = sx.threshold(x, { mapping: "sparsemax", temperature: T });
        close(thresholdLine("sparsemax", ts, { temperature: T }), T * sparsemaxSteps(z).tau, 2e-6, `sparsemax T=${T}`);
        const [te] = sx.threshold(x, { mapping: "entmax", alpha: 1.8, temperature: T });
        close(thresholdLine("entmax", te, { alpha: 1.8, temperature: T }), T * entmaxBisection(z, 1.8).tau / 0.8, 2e-5, `entmax T=${T}`);
      }
    });

    test("softmax: threshold() is the log-sum-exp normaliser", () => {
      for (const x of rows(41, 30)) close(sx.threshold(x)[0], logSumExp(x), 2e-6, `n=${x.length}`);
    });
  });
}
