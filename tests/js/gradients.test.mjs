// gradients.test.mjs - backward passes (vector-Jacobian products) against central finite
// differences in float64, and the entmax alpha gradient against differences in alpha.
// Smooth maps (softmax, entmax) are differenced through the float64 references in helpers.mjs;
// the piecewise-linear ones (sparsemax, fusedmax, oscarmax) through the wasm forward itself with
// a step far from any kink, where central differences of a linear piece are exact up to float32
// rounding. On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, rng, refSoftmax, refEntmax, refSparsemax, numericVjp, separated } from "./helpers.mjs";

for (const { name, sx } of await builds()) {
  describe(`gradients [${name} build]`, () => {
    test("softmax and entmax backward vs float64 finite differences", () => {
      const r = rng(11);
      for (const n of [2, 3, 5, 9]) {
        for (const T of [1, 0.7]) {
          const x = separated(r, n);
          const dy = r.vector(n);
          const fd = (f) => numericVjp(f, x, dy, 1e-5);
          assertClose(sx.softmaxBackward(x, dy, { temperature: T }), fd((z) => refSoftmax(Array.from(z), T)), 2e-5, `softmax n=${n} T=${T}`);
          assertClose(sx.entmax15Backward(x, dy, { temperature: T }), fd((z) => refEntmax(Array.from(z), 1.5, T)), 1e-4, `entmax15 n=${n} T=${T}`);
          for (const alpha of [1, 1.25, 1.5, 2, 3]) {
            assertClose(sx.entmaxBackward(x, dy, { alpha, temperature: T }), fd((z) => refEntmax(Array.from(z), alpha, T)), 1e-4, `entmax a=${alpha} n=${n} T=${T}`);
          }
        }
      }
    });

    test("sparsemax, fusedmax and oscarmax backward vs differences of the forward (exact on a linear piece)", () => {
      const r = rng(12);
      // A piecewise-linear map is linear near x unless a kink (support change, fusion change)
      // lies within the step: differences with two steps then disagree, and x is redrawn.
      const linearPoint = (f, n, dy) => {
        for (let tries = 0; tries < 50; tries++) {
          const x = separated(r, n);
          const vjp = (h) => numericVjp((z) => Float64Array.from(f(Float32Array.from(z))), x, dy, h);
          const a = vjp(1e-2);
          const b = vjp(4e-3);
          if (a.every((v, i) => Math.abs(v - b[i]) < 1e-3)) return { x, fd: a };
        }
        throw new Error("no point away from the kinks found in 50 draws");
      };
      for (const n of [2, 3, 6, 10]) {
        const dy = r.vector(n);
        const x = separated(r, n);
        for (const T of [1, 2]) {
          assertClose(sx.sparsemaxBackward(x, dy, { temperature: T }), numericVjp((z) => refSparsemax(Array.from(z), T), x, dy, 1e-7), 1e-4, `sparsemax T=${T} n=${n}`);
        }
        for (const lambda of [0, 0.1, 0.5]) {
          const p = linearPoint((z) => sx.fusedmax(z, { lambda }), n, dy);
          assertClose(sx.fusedmaxBackward(p.x, dy, { lambda }), p.fd, 2e-3, `fusedmax l=${lambda} n=${n} x=[${p.x}]`);
        }
        for (const beta of [0, 0.05, 0.2]) {
          const p = linearPoint((z) => sx.oscarmax(z, { beta }), n, dy);
          assertClose(sx.oscarmaxBackward(p.x, dy, { beta }), p.fd, 2e-3, `oscarmax b=${beta} n=${n} x=[${p.x}]`);
        }
      }
    });

    test("backward is batched row by row and honours -Infinity masks", () => {
      const r = rng(13);
      const n = 4;
      const x = Float32Array.from([0.1, 1.3, -Infinity, 0.7, ...separated(r, 4), ...separated(r, 4)]);
      const dy = r.vector(12);
      for (const fn of ["softmaxBackward", "sparsemaxBackward", "entmax15Backward", "entmaxBackward", "fusedmaxBackward", "oscarmaxBackward"]) {
        const all = sx[fn](x, dy, { n });
        assert.ok(all[2] === 0, `${fn}: masked entry gets no gradient (got ${all[2]})`); // 0 or -0
        for (let k = 0; k < 3; k++) {
          const one = sx[fn](x.subarray(k * n, k * n + n), dy.subarray(k * n, k * n + n));
          assertClose(all.subarray(k * n, k * n + n), one, 1e-6, `${fn} row ${k}`);
        }
        // A gradient of a shift-invariant map sums to zero over each row.
        for (let k = 0; k < 3; k++) {
          const s = all.subarray(k * n, k * n + n).reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(s) < 1e-5, `${fn}: row ${k} gradient sums to ${s}`);
        }
      }
    });

    test("entmaxAlphaGrad vs central differences in alpha, one value per row", () => {
      const r = rng(14);
      for (const n of [3, 5, 8]) {
        for (const alpha of [1.1, 1.3, 1.5, 2, 2.5]) {
          const rows = 3;
          const x = Float32Array.from({ length: rows * n }, (_, i) => separated(r, n)[i % n] * 2);
          const dy = r.vector(rows * n);
          const got = sx.entmaxAlphaGrad(x, dy, { n, alpha });
          assert.equal(got.length, rows);
          for (let k = 0; k < rows; k++) {
            const xr = Array.from(x.subarray(k * n, k * n + n));
            const g = dy.subarray(k * n, k * n + n);
            const h = 1e-5;
            const dot = (a) => refEntmax(xr, a).reduce((s, v, i) => s + v * g[i], 0);
            const fd = (dot(alpha + h) - dot(alpha - h)) / (2 * h);
            assert.ok(Math.abs(got[k] - fd) <= 2e-3 * Math.max(1, Math.abs(fd)),
              `alpha grad n=${n} alpha=${alpha} row ${k}: got ${got[k]}, finite differences ${fd}`);
          }
        }
      }
    });

    test("entmaxAlphaGrad near alpha = 1 is finite and close to a one-sided difference", () => {
      const x = [0.3, 1.2, -0.4, 0.8];
      const dy = [1, -0.5, 0.25, 2];
      const dot = (a) => refEntmax(x, a).reduce((s, v, i) => s + v * dy[i], 0);
      const fd = (dot(1.002) - dot(1.001)) / 0.001;
      for (const alpha of [1, 1.0005]) {
        const [g] = sx.entmaxAlphaGrad(x, dy, { alpha });
        assert.ok(Number.isFinite(g), `alpha=${alpha}: ${g}`);
        assert.ok(Math.abs(g - fd) <= 0.02 * Math.max(1, Math.abs(fd)), `alpha=${alpha}: got ${g}, differences ${fd}`);
      }
    });
  });
}
