// prox-tv.test.mjs - fusedmax's first step on its own, proxTV / proxTVRuns (sx_prox_tv), on both
// wasm builds: an exact float64 reference of prox_TV (every jump pattern of a short row: the one
// whose optimality conditions hold), an optimality certificate for long rows (the dual from the
// partial sums of z - y stays within +-lambda and is +-lambda at each jump), ties, lambda 0 (the
// identity), a huge lambda (one run: the mean), -Infinity entries (out of the chain), T, rows;
// fusedmax = sparsemax(proxTV) with the same runs; the widget's backward from the runs
// (viz/fused-steps.js) against fusedmaxBackward; and argument errors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, freshModule, assertClose, rng, throwsExactly } from "./helpers.mjs";
import { runSpans, runGradient } from "../../web/widgets/viz/fused-steps.js";
import { blockScores, runCounts } from "../../web/widgets/viz/fused-cost.js";

/**
 * prox_TV(z; lam) in float64, exactly: y_j = z_j - g_{j-1} + g_j with g the dual on the m - 1
 * edges (g = 0 past the ends), g_e = lam s_e on a jump of sign s_e; on a run [a, b] the mean
 * gives y = (sum z - g_{a-1} + g_b) / len, inside it g follows the partial sums and must stay in
 * [-lam, lam], and each jump must go the way its sign says. Every sign pattern (3^(m-1)) is
 * tried; the first that satisfies these is the solution (unique: the objective is strictly
 * convex). Returns { y, runs } (runs: the run of each entry).
 */
function refProxTV(z, lam) {
  const m = z.length, s = new Int8Array(Math.max(m - 1, 0)), tol = 1e-12 * (1 + lam);
  const tryPattern = () => {
    const y = new Float64Array(m), runs = new Int32Array(m);
    let a = 0, gPrev = 0, run = 0;
    for (let b = 0; b < m; b++) {
      if (b < m - 1 && s[b] === 0) continue;
      const gEnd = b < m - 1 ? lam * s[b] : 0;
      let sum = 0;
      for (let j = a; j <= b; j++) sum += z[j];
      const v = (sum - gPrev + gEnd) / (b - a + 1);
      let g = gPrev;
      for (let j = a; j <= b; j++) {
        y[j] = v;
        runs[j] = run;
        if (j < b) { g += v - z[j]; if (Math.abs(g) > lam + tol) return null; }
      }
      a = b + 1; gPrev = gEnd; run++;
    }
    for (let e = 0; e < m - 1; e++) if (s[e] !== 0 && s[e] * (y[e + 1] - y[e]) < -tol) return null;
    return { y, runs };
  };
  const walk = (e) => {
    if (e === m - 1 || m === 0) return tryPattern();
    for (const v of [0, 1, -1]) { s[e] = v; const r = walk(e + 1); if (r) return r; }
    return null;
  };
  const r = walk(0);
  assert.ok(r, "the reference finds a solution");
  return r;
}

/** The optimality certificate of y = prox_TV(z; lam) (float64 of the float32 result), with
 *  tolerance tol: the dual g_j = sum_{i<=j} (y_i - z_i) within +-lam, 0 at the end, and equal to
 *  lam * sign of each jump that the runs say is there. */
function certify(z, y, runs, lam, tol, what) {
  let g = 0;
  for (let j = 0; j < z.length; j++) {
    g += y[j] - z[j];
    if (j === z.length - 1) { assert.ok(Math.abs(g) <= tol, `${what}: the dual ends at 0 (got ${g})`); break; }
    assert.ok(Math.abs(g) <= lam + tol, `${what}: |g_${j}| = ${Math.abs(g)} > lambda ${lam}`);
    if (runs[j + 1] !== runs[j]) {
      assert.equal(runs[j + 1], runs[j] + 1, `${what}: runs numbered left to right`);
      const sign = Math.sign(y[j + 1] - y[j]);
      assert.notEqual(sign, 0, `${what}: a run ends at ${j} with no jump`);
      assert.ok(Math.abs(g - lam * sign) <= tol, `${what}: at the jump after ${j} g = ${g}, not ${lam * sign}`);
    } else assert.equal(y[j + 1], y[j], `${what}: a run's values are equal`);
  }
}

/** n scores with ties: drawn from a few levels, or a plateau copied in. */
function tiedScores(r, n) {
  const levels = [r() * 2 - 1, r() * 2 - 1, r() * 2 - 1];
  return Array.from({ length: n }, () => (r() < 0.6 ? levels[Math.floor(r() * 3)] : (r() - 0.5) * 3));
}

for (const { name, sx } of await builds()) {
  describe(`proxTV [${name} build]`, () => {
    test("a hand-worked row: two plateaus and a dip", () => {
      // z = [1, 1, 0, 1, 1], lam .25: the dip rises by 2 lam (two jumps), each plateau drops by lam / 2
      assertClose(sx.proxTV([1, 1, 0, 1, 1], { lambda: 0.25 }), [0.875, 0.875, 0.5, 0.875, 0.875], 1e-7, "values");
      assert.deepEqual(Array.from(sx.proxTVRuns([1, 1, 0, 1, 1], { lambda: 0.25 })), [0, 0, 1, 2, 2]);
      // lam .5: everything fuses (the partial sums of z - .8 peak at .4 <= .5)
      assertClose(sx.proxTV([1, 1, 0, 1, 1], { lambda: 0.5 }), Array(5).fill(0.8), 1e-7, "fused");
      assert.deepEqual(Array.from(sx.proxTVRuns([1, 1, 0, 1, 1], { lambda: 0.5 })), [0, 0, 0, 0, 0]);
    });

    test("against the exact float64 reference: random rows, ties, T", () => {
      const r = rng(2501);
      for (let trial = 0; trial < 300; trial++) {
        const n = 1 + Math.floor(r() * 8);
        const x = trial % 2 ? tiedScores(r, n) : Array.from({ length: n }, () => (r() - 0.5) * 4);
        const lam = trial % 7 === 0 ? 0 : r() * r() * 2, t = trial % 3 === 0 ? 0.5 + r() * 2 : 1;
        const z = Float64Array.from(Float32Array.from(x), (v) => v / t);
        const ref = refProxTV(z, lam);
        const y = sx.proxTV(x, { lambda: lam, temperature: t }), runs = sx.proxTVRuns(x, { lambda: lam, temperature: t });
        const what = `x ${x.map((v) => v.toFixed(3))} lambda ${lam} T ${t}`;
        assertClose(y, ref.y, 2e-6 * (1 + Math.max(...z.map(Math.abs))), what);
        // the run count is the reference's wherever no jump is within rounding of 0
        let margin = Infinity;
        for (let j = 0; j + 1 < n; j++) if (ref.runs[j + 1] !== ref.runs[j]) margin = Math.min(margin, Math.abs(ref.y[j + 1] - ref.y[j]));
        if (margin > 1e-5) assert.deepEqual(Array.from(runs), Array.from(ref.runs), `${what}: runs`);
      }
    });

    test("long rows: the optimality certificate, and the runs are those of fusedmax", () => {
      const r = rng(2502);
      for (let trial = 0; trial < 120; trial++) {
        const n = 8 + Math.floor(r() * 200);
        const x = trial % 2 ? tiedScores(r, n) : Array.from({ length: n }, () => (r() - 0.5) * 6);
        const lam = r() * 1.5;
        const y = sx.proxTV(x, { lambda: lam }), runs = sx.proxTVRuns(x, { lambda: lam });
        certify(Float64Array.from(Float32Array.from(x)), y, runs, lam, 2e-4 * (1 + lam), `n ${n} lambda ${lam}`);
        // fusedmax is sparsemax of this step: the same values up to the float rounding of prox,
        // and its runs within the support are the prox's runs
        const p = sx.fusedmax(x, { lambda: lam });
        assertClose(p, sx.sparsemax(y), 2e-6, `fusedmax = sparsemax(proxTV), n ${n} lambda ${lam}`);
        for (let j = 0; j + 1 < n; j++) {
          if (p[j] > 0 && runs[j + 1] === runs[j]) assert.equal(p[j + 1], p[j], `n ${n}: one run, one weight at ${j}`);
        }
      }
    });

    test("lambda 0 is the identity, ties included; a huge lambda is one run at the mean", () => {
      const r = rng(2503);
      for (let trial = 0; trial < 50; trial++) {
        const n = 1 + Math.floor(r() * 30);
        const x = tiedScores(r, n);
        const f = Float32Array.from(x);
        assert.deepEqual(sx.proxTV(x, { lambda: 0 }), f, "lambda 0 at T = 1: x itself");
        assertClose(sx.proxTV(x, { lambda: 0, temperature: 0.3 }), Array.from(f, (v) => v / 0.3), 1e-6, "lambda 0 at T");
        const runs0 = sx.proxTVRuns(x, { lambda: 0 });
        for (let j = 0; j + 1 < n; j++) assert.equal(runs0[j + 1] === runs0[j], f[j + 1] === f[j], "lambda 0: runs are the ties");
        let mean = 0;
        for (const v of f) mean += v / n;
        const big = sx.proxTV(x, { lambda: 1e6 });
        assert.ok(big.every((v) => v === big[0]), "one value");
        assert.ok(Math.abs(big[0] - mean) <= 1e-6, `the mean ${mean} (got ${big[0]})`);
        assert.deepEqual(Array.from(sx.proxTVRuns(x, { lambda: 3e38 })), Array(n).fill(0), "one run");
      }
    });

    test("-Infinity entries leave the chain; a fully masked row; rows and the default lambda", () => {
      const r = rng(2504);
      for (let trial = 0; trial < 60; trial++) {
        const n = 2 + Math.floor(r() * 14), lam = r();
        const x = Array.from({ length: n }, () => (r() < 0.3 ? -Infinity : (r() - 0.5) * 3));
        const y = sx.proxTV(x, { lambda: lam }), runs = sx.proxTVRuns(x, { lambda: lam });
        const keep = x.map((v, i) => i).filter((i) => x[i] !== -Infinity);
        const ys = sx.proxTV(keep.map((i) => x[i]), { lambda: lam }), rs = sx.proxTVRuns(keep.map((i) => x[i]), { lambda: lam });
        x.forEach((v, i) => { if (v === -Infinity) { assert.equal(y[i], -Infinity); assert.equal(runs[i], -1); } });
        assert.deepEqual(keep.map((i) => y[i]), Array.from(ys), "the unmasked entries: the prox of the row without the masked ones");
        assert.deepEqual(keep.map((i) => runs[i]), Array.from(rs), "their runs");
        assert.ok(!y.some(Number.isNaN), "no NaN");
      }
      assert.deepEqual(Array.from(sx.proxTV([-Infinity, -Infinity], { lambda: 0.3 })), [-Infinity, -Infinity]);
      assert.deepEqual(Array.from(sx.proxTVRuns([-Infinity, -Infinity], { lambda: 0.3 })), [-1, -1]);
      // rows: each its own chain, its runs numbered from 0
      const x = [1, 1, 0, 1, 1, 3, 0, 0, 0, 3];
      const two = sx.proxTV(x, { lambda: 0.25, n: 5 });
      assert.deepEqual(two.subarray(0, 5), sx.proxTV(x.slice(0, 5), { lambda: 0.25 }));
      assert.deepEqual(two.subarray(5), sx.proxTV(x.slice(5), { lambda: 0.25 }));
      assert.deepEqual(Array.from(sx.proxTVRuns(x, { lambda: 0.25, n: 5 })), [0, 0, 1, 2, 2, 0, 1, 1, 1, 2]);
      assert.deepEqual(sx.proxTV(x), sx.proxTV(x, { lambda: 1 }), "default lambda 1, as fusedmax");
      assert.deepEqual(sx.proxTV([]), new Float32Array(0));
      // WasmArrays in and out, a Float32Array out, a Float64Array in: the same values
      const wx = sx.alloc(10), wo = sx.alloc(10), fo = new Float32Array(10);
      try {
        wx.array.set(x);
        assert.equal(sx.proxTV(wx, { lambda: 0.25, n: 5, out: wo }), wo);
        assert.deepEqual(Float32Array.from(wo.array), two);
        assert.deepEqual(Array.from(sx.proxTVRuns(wx, { lambda: 0.25, n: 5 })), [0, 0, 1, 2, 2, 0, 1, 1, 1, 2]);
        assert.equal(sx.proxTV(Float64Array.from(x), { lambda: 0.25, n: 5, out: fo }), fo);
        assert.deepEqual(fo, two);
      } finally {
        wx.free();
        wo.free();
      }
      assert.deepEqual(sx.proxTVRuns([]), new Int32Array(0));
      // huge scores at a tiny T: x / T beyond float saturates, never NaN
      // (and an entry far below the top keeps its own precision: 1000 - lambda)
      const h = sx.proxTV([3e38, -3e38, 1], { lambda: 0.5, temperature: 1e-3 });
      assert.deepEqual(Array.from(h), [Infinity, -Infinity, Math.fround(1 / Math.fround(1e-3) - 0.5)], "saturates as x / T would");
    });

    test("the widget's backward from the runs equals fusedmaxBackward", () => {
      const r = rng(2505);
      for (let trial = 0; trial < 200; trial++) {
        const n = 2 + Math.floor(r() * 24), lam = r() * 0.8, t = trial % 4 === 0 ? 0.5 + r() : 1;
        const x = trial % 2 ? tiedScores(r, n) : Array.from({ length: n }, () => (r() - 0.5) * 5);
        const dy = Array.from({ length: n }, () => r() * 2 - 1);
        const o = { lambda: lam, temperature: t };
        const p = sx.fusedmax(x, o), runs = sx.proxTVRuns(x, o);
        assertClose(runGradient(p, runs, dy, t), sx.fusedmaxBackward(x, dy, o), 2e-6 / t, `n ${n} lambda ${lam} T ${t}`);
        // one output coordinate: dy = e_j, the row j of the Jacobian
        const j = Math.floor(r() * n), e = dy.map((_, i) => (i === j ? 1 : 0));
        assertClose(runGradient(p, runs, e, t), sx.fusedmaxBackward(x, e, o), 2e-6 / t, `e_${j}`);
      }
      assert.deepEqual(runSpans([0, 0, -1, 0, 1, 2, 2]), [
        { run: 0, start: 0, end: 4, count: 3 }, { run: 1, start: 4, end: 5, count: 1 }, { run: 2, start: 5, end: 7, count: 2 }]);
    });

    test("the cost cases (viz/fused-cost.js) are what they say: k runs, every entry in the support", () => {
      for (const n of [64, 512, 2048]) {
        for (const k of runCounts(n)) {
          const { x, opts } = blockScores(n, k, 2);
          const runs = sx.proxTVRuns(x, opts), p = sx.fusedmax(x, opts);
          assert.equal(runs[n - 1] + 1, k, `n ${n}: ${k} runs`);
          assert.equal(runs[2 * n - 1] + 1, k, `n ${n}: ${k} runs in the second row`);
          assert.ok(p.every((v) => v > 0), `n ${n} k ${k}: every entry in the support`);
        }
      }
    });

    test("argument errors name the function, the argument and the value", () => {
      throwsExactly(() => sx.proxTV([1, 2], { lambda: -1 }), RangeError, /^proxTV: lambda must be >= 0 \(got -1\)/);
      throwsExactly(() => sx.proxTV([1, 2], { lambda: "1" }), TypeError, /^proxTV: lambda must be a number \(got "1"\)/);
      throwsExactly(() => sx.proxTV([1, 2], { lambda: NaN }), RangeError, /^proxTV: lambda/);
      throwsExactly(() => sx.proxTVRuns([1, 2], { lambda: Infinity }), RangeError, /^proxTVRuns: lambda/);
      throwsExactly(() => sx.proxTVRuns([1, 2], { out: new Int32Array(2) }), TypeError, /^proxTVRuns: takes no opts.out/);
      throwsExactly(() => sx.proxTV("ab"), TypeError, /^proxTV: x must be/);
      throwsExactly(() => sx.proxTVRuns([1, 2, 3], { n: 2 }), RangeError, /^proxTVRuns: x.length \(3\) is not a multiple of n \(2\)/);
      throwsExactly(() => sx.proxTV([1, 2], { temperature: 0 }), RangeError, /^proxTV: temperature/);
      assert.throws(() => sx.proxTV([1, NaN]), (e) => e.name === "SimplexityError" && /^proxTV: x\[1\]/.test(e.message), "NaN refused by the core");
      assert.throws(() => sx.proxTVRuns([Infinity, 1]), (e) => e.name === "SimplexityError" && /^proxTVRuns: x\[0\]/.test(e.message));
    });
  });
}

test("proxTV needs the full core: on the mappings core alone it says so", async () => {
  const lite = await freshModule("prox-mappings");
  await lite.init({ core: "mappings" });
  for (const fn of ["proxTV", "proxTVRuns"]) {
    throwsExactly(() => lite[fn]([1, 2], { lambda: 0.1 }), Error, `${fn}: needs the full core, but only the mappings core is loaded (init({ core: "mappings" })): call \`await init()\` first`);
  }
});
