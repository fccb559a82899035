// mappings.test.mjs - forward mappings against hand-derived values, float64 references and
// properties (simplex, shift invariance, masks, ties, extremes), on both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  builds, assertClose, assertOnSimplex, rng, byRow,
  refSoftmax, refSparsemax, refEntmax, refOscarmax, refTsallis,
} from "./helpers.mjs";

const ALL = [
  ["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.5 }],
  ["entmax", { alpha: 1.25 }], ["entmax", { alpha: 3 }], ["fusedmax", { lambda: 0.3 }],
  ["oscarmax", { beta: 0.2 }],
];

for (const { name, sx } of await builds()) {
  describe(`mappings [${name} build]`, () => {
    test("hand-derived values", () => {
      assertClose(sx.sparsemax([1.5, 0, 1]), [0.75, 0, 0.25], 1e-6, "sparsemax([1.5,0,1])");
      assertClose(sx.softmax([0, 0]), [0.5, 0.5], 1e-7, "softmax([0,0])");
      const e = [Math.exp(1.5), 1, Math.exp(1)];
      const s = e[0] + e[1] + e[2];
      assertClose(sx.softmax([1.5, 0, 1]), e.map((v) => v / s), 1e-6, "softmax([1.5,0,1])");
      // 1.5-entmax of [1.5, 0, 1], by the exact method: z = (x - max) / 2 = [0, -3/4, -1/4],
      // full support, tau = mean - sqrt((1 - ss) / 3) = -1/3 - sqrt(17/72).
      const tau = -1 / 3 - Math.sqrt(17 / 72);
      const p15 = [0, -0.75, -0.25].map((z) => (z - tau) ** 2);
      assertClose(sx.entmax15([1.5, 0, 1]), p15, 2e-6, "entmax15([1.5,0,1])");
      assertClose(sx.entmax([1.5, 0, 1]), p15, 2e-6, "entmax([1.5,0,1]) default alpha 1.5");
      // Sparsemax of [2, 2, 0]: the tie splits evenly, the third is cut.
      assertClose(sx.sparsemax([2, 2, 0]), [0.5, 0.5, 0], 1e-7, "sparsemax([2,2,0])");
      // Sparsemax at temperature 2 of [1.5, 0, 1] = sparsemax([0.75, 0, 0.5]) = [0.625, 0, 0.375].
      assertClose(sx.sparsemax([1.5, 0, 1], { temperature: 2 }), [0.625, 0, 0.375], 1e-6, "T=2");
      // Uniform entropies: ln 3 (Shannon), (1 - 1/3) / 2 at alpha 2.
      const u = [1 / 3, 1 / 3, 1 / 3];
      assertClose(sx.tsallisEntropy(u, { alpha: 1 }), [Math.log(3)], 1e-6, "shannon(uniform)");
      assertClose(sx.tsallisEntropy(u, { alpha: 2 }), [1 / 3], 1e-6, "tsallis2(uniform)");
      assertClose(sx.tsallisEntropy([1, 0, 0], { alpha: 1.5 }), [0], 1e-7, "tsallis(vertex)");
    });

    test("entmax at alpha 2 is sparsemax, at alpha 1 softmax; lambda = beta = 0 is sparsemax", () => {
      const r = rng(1);
      for (const n of [1, 2, 3, 7, 33]) {
        const x = r.vector(4 * n, 2);
        const sp = sx.sparsemax(x, { n });
        assertClose(sx.entmax(x, { n, alpha: 2 }), sp, 1e-5, `entmax a=2 n=${n}`);
        assertClose(sx.fusedmax(x, { n, lambda: 0 }), sp, 1e-5, `fusedmax l=0 n=${n}`);
        assertClose(sx.oscarmax(x, { n, beta: 0 }), sp, 1e-5, `oscarmax b=0 n=${n}`);
        assertClose(sx.entmax(x, { n, alpha: 1 }), sx.softmax(x, { n }), 1e-6, `entmax a=1 n=${n}`);
        assertClose(sx.entmax(x, { n, alpha: 1.5 }), sx.entmax15(x, { n }), 1e-5, `entmax a=1.5 n=${n}`);
      }
    });

    test("agrees with the float64 references on random rows", () => {
      const r = rng(2);
      for (const n of [1, 2, 3, 4, 5, 8, 17, 64, 130]) {
        for (const rows of [1, 3, 5, 9]) {
          const x = r.vector(rows * n, 1.5);
          const w = `n=${n} rows=${rows}`;
          assertClose(sx.softmax(x, { n }), byRow(refSoftmax, x, n), 2e-6, `softmax ${w}`);
          assertClose(sx.softmax(x, { n, temperature: 0.5 }), byRow(refSoftmax, x, n, 0.5), 2e-6, `softmax T ${w}`);
          assertClose(sx.sparsemax(x, { n }), byRow(refSparsemax, x, n), 2e-6, `sparsemax ${w}`);
          assertClose(sx.sparsemax(x, { n, temperature: 3 }), byRow(refSparsemax, x, n, 3), 2e-6, `sparsemax T ${w}`);
          assertClose(sx.entmax15(x, { n }), byRow(refEntmax, x, n, 1.5), 1e-5, `entmax15 ${w}`);
          for (const alpha of [1.25, 1.5, 2.5, 3]) {
            assertClose(sx.entmax(x, { n, alpha }), byRow(refEntmax, x, n, alpha), 1e-5, `entmax ${alpha} ${w}`);
          }
          assertClose(sx.oscarmax(x, { n, beta: 0.1 }), byRow(refOscarmax, x, n, 0.1), 1e-5, `oscarmax ${w}`);
          const p = sx.softmax(x, { n });
          for (const alpha of [0.5, 1, 1.5, 2]) {
            const h = Array.from({ length: rows }, (_, k) => refTsallis(Array.from(p.subarray(k * n, k * n + n)), alpha));
            assertClose(sx.tsallisEntropy(p, { n, alpha }), h, 1e-5, `tsallis ${alpha} ${w}`);
          }
        }
      }
    });

    test("every output row is on the simplex (random sizes, batched rows)", () => {
      const r = rng(3);
      for (const [fn, opts] of ALL) {
        for (const n of [1, 2, 3, 4, 5, 16, 17, 100]) {
          const rows = 1 + Math.floor(r() * 11);
          const x = r.vector(rows * n, 4);
          assertOnSimplex(sx[fn](x, { n, ...opts }), n, 1e-5, `${fn} n=${n} rows=${rows}`);
        }
      }
    });

    test("shift invariance and (except fusedmax) permutation equivariance", () => {
      const r = rng(4);
      for (const [fn, opts] of ALL) {
        const n = 6;
        const x = r.vector(n, 1);
        const p = sx[fn](x, opts);
        const shifted = x.map((v) => v + 3);
        assertClose(sx[fn](shifted, opts), p, 1e-5, `${fn} shift`);
        if (fn === "fusedmax") continue; // TV couples neighbours: order matters by design
        const perm = [3, 0, 5, 1, 4, 2];
        const xp = Float32Array.from(perm, (i) => x[i]);
        assertClose(sx[fn](xp, opts), perm.map((i) => p[i]), 1e-6, `${fn} permutation`);
      }
    });

    test("-Infinity masks: masked entries get exactly 0, the rest maps as if absent", () => {
      const x = [0.3, -Infinity, 1.2, -0.4, -Infinity];
      const kept = [0.3, 1.2, -0.4];
      for (const [fn, opts] of ALL) {
        if (fn === "fusedmax") continue; // neighbours change when entries are removed
        const p = sx[fn](x, opts);
        assert.ok(p[1] === 0 && p[4] === 0, `${fn}: masked entries are ${p[1]}, ${p[4]}`);
        assertClose([p[0], p[2], p[3]], sx[fn](kept, opts), 1e-6, `${fn} masked`);
      }
      const pf = sx.fusedmax(x, { lambda: 0.3 });
      assert.ok(pf[1] === 0 && pf[4] === 0, `fusedmax: masked entries are ${pf[1]}, ${pf[4]}`);
      assertOnSimplex(pf, 5, 1e-5, "fusedmax masked");
    });

    test("a fully masked row maps to zeros, the other rows are unaffected", () => {
      const x = [-Infinity, -Infinity, -Infinity, 1, 2, 3];
      for (const [fn, opts] of ALL) {
        const p = sx[fn](x, { n: 3, ...opts });
        assert.deepEqual(Array.from(p.subarray(0, 3)), [0, 0, 0], `${fn}: masked row`);
        assertClose(p.subarray(3), sx[fn]([1, 2, 3], opts), 1e-6, `${fn}: second row`);
      }
      assert.deepEqual(Array.from(sx.entmaxBackward(x, [1, 2, 3, 4, 5, 6], { n: 3 }).subarray(0, 3)), [0, 0, 0]);
      assert.deepEqual(Array.from(sx.softmaxBackward(x, [1, 2, 3, 4, 5, 6], { n: 3 }).subarray(0, 3)), [0, 0, 0]);
    });

    test("ties split evenly; huge magnitudes, tiny spreads and T = 1e-6 give no NaN", () => {
      for (const [fn, opts] of ALL) {
        assertClose(sx[fn]([1, 1, 1, 1], opts), [0.25, 0.25, 0.25, 0.25], 1e-6, `${fn} ties`);
        const big = sx[fn]([1e30, 0, -1e30], opts);
        assertOnSimplex(big, 3, 1e-5, `${fn} 1e30`);
        assertClose(big, [1, 0, 0], 1e-6, `${fn} 1e30`);
        const tiny = sx[fn]([1, 1 + 1e-7, 1 - 1e-7, 1], opts);
        assertOnSimplex(tiny, 4, 1e-5, `${fn} 1e-7 spread`);
        assertClose(tiny, [0.25, 0.25, 0.25, 0.25], 1e-4, `${fn} 1e-7 spread`);
        const cold = sx[fn]([1.5, 0, 1], { ...opts, temperature: 1e-6 });
        assertClose(cold, [1, 0, 0], 1e-6, `${fn} T=1e-6`);
        const coldTie = sx[fn]([1, 1, 0], { ...opts, temperature: 1e-6 });
        assertOnSimplex(coldTie, 3, 1e-5, `${fn} T=1e-6 tie`);
        if (fn !== "fusedmax") assertClose(coldTie, [0.5, 0.5, 0], 1e-5, `${fn} T=1e-6 tie`);
      }
    });

    test("fusedmax with a large lambda fuses everything into the uniform distribution", () => {
      assertClose(sx.fusedmax([1.5, 0, 1, 0.2], { lambda: 100 }), [0.25, 0.25, 0.25, 0.25], 1e-5, "fusedmax");
      const p = sx.fusedmax([3, 2.9, 0, -1], { lambda: 0.2 });
      assert.ok(Math.abs(p[0] - p[1]) < 1e-6, `fusedmax fuses close neighbours: ${p}`);
    });

    test("out is filled and returned; Float64Array and Array inputs give the same result", () => {
      const x = [0.1, 2, -1, 0.5, 0.5, 3];
      const out = new Float32Array(6);
      const ret = sx.entmax(x, { n: 3, out });
      assert.equal(ret, out);
      assertClose(out, sx.entmax(Float32Array.from(x), { n: 3 }), 0, "out");
      assertClose(sx.entmax(Float64Array.from(x), { n: 3 }), out, 0, "Float64Array");
      const big = rng(5).vector(3 * 200);
      const outBig = new Float32Array(big.length);
      assert.equal(sx.softmax(big, { n: 3, out: outBig }), outBig);
      assertClose(outBig, sx.softmax(big, { n: 3 }), 0, "out big");
      const h = new Float32Array(2);
      assert.equal(sx.tsallisEntropy(sx.softmax(x, { n: 3 }), { n: 3, out: h }), h);
      assert.ok(h[0] > 0 && h[1] > 0);
    });

    test("empty input gives an empty result", () => {
      assert.equal(sx.softmax([]).length, 0);
      assert.equal(sx.entmax(new Float32Array(0), { n: 3 }).length, 0);
      assert.equal(sx.sparsemaxBackward([], []).length, 0);
      assert.equal(sx.tsallisEntropy([], { n: 4 }).length, 0);
    });

    test("every weight lies in [0, 1] and rows sum to 1, at every alpha up to 64 (no 1.0000001)", () => {
      const r = rng(12);
      for (const alpha of [1, 1.001, 1.5, 2, 2.5, 4, 8, 16, 32, 64]) {
        let bad = null;
        for (let t = 0; t < 1500 && !bad; t++) {
          const n = 2 + Math.floor(r() * 30);
          const x = r.vector(n, Math.exp(r() * 8 - 4));
          const p = sx.entmax(x, { alpha });
          let sum = 0;
          for (const v of p) { if (!(v >= 0 && v <= 1)) bad = { x: Array.from(x), v }; sum += v; }
          if (Math.abs(sum - 1) > 1e-5) bad = { x: Array.from(x), sum };
        }
        assert.equal(bad, null, `entmax alpha ${alpha}: ${JSON.stringify(bad)}`);
      }
    });

    test("spanMask equals a float64 reference to 1e-6 relative at distances up to 10^4", () => {
      const d = Float32Array.from({ length: 10001 }, (_, i) => i);
      for (const [z, ramp] of [[230, 2], [5000, 3], [9999, 0.5], [100.3, 7.1], [1234.5, 16], [7.25, 0.25]]) {
        const m = sx.spanMask(d, { z, ramp });
        const zf = Math.fround(z), rf = Math.fround(ramp);
        for (let i = 0; i < d.length; i++) {
          const ref = Math.min(1, Math.max(0, (zf - d[i] + rf) / rf));
          const err = ref === 0 ? Math.abs(m[i]) : Math.abs(m[i] - ref) / ref;
          assert.ok(err <= 1e-6, `spanMask z ${z} ramp ${ramp} at distance ${i}: ${m[i]} vs ${ref}`);
        }
      }
    });
  });
}
