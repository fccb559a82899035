// regularized.test.mjs - argmax and the regularised max (web/widgets/viz/regularized.js, what
// <sx-regularized> draws) against the library on both wasm builds: the finite-difference
// gradient of max_Omega is the mapping's output p; softmax's max_Omega is log-sum-exp;
// sparsemax's is (1/2)||p||^2's up to the constant 1/2; T -> 0 approaches max z; the LP's optimal
// face and the level lines of <p, z>; the score-plane grid; the errors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, rng, refSparsemax } from "./helpers.mjs";
import { mappingAlpha, omega, maxOmega, argmaxFace, levelSegments, planeGrid } from "../../web/widgets/viz/regularized.js";

const MAPS = [["softmax"], ["sparsemax"], ["entmax15"], ["entmax", 1.3], ["entmax", 2.5]];
const lse = (z, T = 1) => { const m = Math.max(...z); return m + T * Math.log(z.reduce((s, v) => s + Math.exp((v - m) / T), 0)); };
const hMax = (a, n) => (a === 1 ? Math.log(n) : (1 - n ** (1 - a)) / (a * (a - 1)));

test("mappingAlpha: each mapping's Tsallis alpha; a bad name is a RangeError", () => {
  assert.equal(mappingAlpha("softmax"), 1);
  assert.equal(mappingAlpha("entmax15"), 1.5);
  assert.equal(mappingAlpha("sparsemax"), 2);
  assert.equal(mappingAlpha("entmax", 1.7), 1.7);
  assert.throws(() => mappingAlpha("fusedmax"), { name: "RangeError", message: /mappingAlpha: mapping must be softmax, sparsemax, entmax15 or entmax \(got fusedmax\)/ });
});

test("argmaxFace: the vertex, an edge on a tie, the whole simplex when all tie", () => {
  assert.deepEqual(argmaxFace([1.5, 0, 1]), [0]);
  assert.deepEqual(argmaxFace([0, 1, 1]), [1, 2]);
  assert.deepEqual(argmaxFace([2, 2, 2]), [0, 1, 2]);
  assert.deepEqual(argmaxFace([1, 0.999, 0], 0.01), [0, 1], "within tol");
  assert.deepEqual(argmaxFace([-1, -Infinity, -2]), [0]);
});

test("levelSegments: each end on the triangle's boundary at <p, z> = c; ties give an edge; constant z none", () => {
  const z = [1.5, 0, 1];
  const levels = [-1, 0, 0.25, 0.5, 1, 1.2, 1.5, 2];
  const segs = levelSegments(z, levels);
  assert.equal(segs[0], null, "below min z");
  assert.equal(segs[7], null, "above max z");
  assert.equal(segs[1], null, "at min z: the vertex alone, not a segment");
  assert.equal(segs[6], null, "at max z: the vertex alone");
  for (let k = 2; k < 6; k++) {
    assert.ok(segs[k], `level ${levels[k]} crosses`);
    for (const p of segs[k]) {
      assert.ok(Math.abs(p[0] + p[1] + p[2] - 1) < 1e-12 && p.every((v) => v >= 0) && p.some((v) => v === 0), `${p} is on the boundary of the simplex`);
      assert.ok(Math.abs(p[0] * z[0] + p[1] * z[1] + p[2] * z[2] - levels[k]) < 1e-12, `<p, z> = ${levels[k]} at ${p}`);
    }
  }
  assert.deepEqual(levelSegments([1, 1, 0], [1])[0], [[1, 0, 0], [0, 1, 0]], "a tie at the top: the edge A-B");
  assert.deepEqual(levelSegments([2, 2, 2], [2]), [null]);
});

test("planeGrid: the points of the plane z3 = const, two triangles per cell; N checked", () => {
  const g = planeGrid(4, -3, 3, 0.5);
  assert.equal(g.count, 25);
  assert.equal(g.scores.length, 75);
  assert.equal(g.triangles.length, 4 * 4 * 6);
  assert.deepEqual(Array.from(g.scores.subarray(0, 3)), [-3, -3, 0.5]);
  assert.deepEqual(Array.from(g.scores.subarray(72, 75)), [3, 3, 0.5]);
  assert.deepEqual(Array.from(g.xy.subarray(2, 4)), [-1.5, -3]);
  assert.ok(Math.max(...g.triangles) === 24);
  assert.throws(() => planeGrid(0, -3, 3, 0), { name: "RangeError", message: "planeGrid: N must be an integer in [1, 400] (got 0)" });
});

for (const { name, sx } of await builds()) {
  describe(`maxOmega (${name} build)`, () => {
    test("the finite-difference gradient of max_Omega is the mapping's output p, to 1e-4 (away from support changes)", () => {
      const r = rng(15);
      const h = 5e-3;
      let checked = 0;
      for (const [mapping, alpha] of MAPS) {
        for (const T of [1, 0.5, 2]) {
          for (let c = 0; c < 25; c++) {
            const n = 3 + (c % 4);
            const z = Array.from(r.vector(n, 1.5));
            const opts = { mapping, alpha, temperature: T };
            const { value, p } = maxOmega(sx, z, opts);
            assert.equal(value.length, 1);
            const support = (q) => Array.from(q, (v) => v > 0).join();
            const grad = [];
            let near = false;
            for (let i = 0; i < n; i++) {
              const zp = z.slice(), zm = z.slice();
              zp[i] += h; zm[i] -= h;
              const a = maxOmega(sx, zp, opts), b = maxOmega(sx, zm, opts);
              if (support(a.p) !== support(p) || support(b.p) !== support(p)) near = true;
              grad.push((a.value[0] - b.value[0]) / (2 * h));
            }
            if (near) continue; // the mapping is not differentiable across a support change
            checked++;
            for (let i = 0; i < n; i++) {
              assert.ok(Math.abs(grad[i] - p[i]) < 1e-4, `${mapping}${alpha ? ` alpha ${alpha}` : ""} T ${T} z [${z.map((v) => v.toFixed(3))}]: d max_Omega / dz_${i} = ${grad[i]}, p_${i} = ${p[i]}`);
            }
          }
        }
      }
      assert.ok(checked > 250, `enough points away from support changes (${checked})`);
    });

    test("softmax: max_Omega is log-sum-exp (T log-sum-exp(z / T) with a temperature)", () => {
      const r = rng(2);
      for (let c = 0; c < 50; c++) {
        const z = Array.from(r.vector(3 + (c % 6), 3));
        for (const T of [1, 0.3, 4]) {
          const { value } = maxOmega(sx, z, { mapping: "softmax", temperature: T });
          assert.ok(Math.abs(value[0] - lse(z, T)) < 2e-6 * Math.max(1, T), `T ${T}: ${value[0]} vs log-sum-exp ${lse(z, T)}`);
        }
      }
    });

    test("sparsemax: Omega is Tsallis 2, (||p||^2 - 1)/2, so max_Omega is (1/2)||p||^2's plus 1/2", () => {
      const r = rng(3);
      for (let c = 0; c < 50; c++) {
        const z = Array.from(r.vector(3 + (c % 5), 1));
        const q = refSparsemax(Float64Array.from(z));
        const half = q.reduce((s, v, i) => s + v * z[i], 0) - 0.5 * q.reduce((s, v) => s + v * v, 0);
        const { value, p } = maxOmega(sx, z, { mapping: "sparsemax" });
        assert.ok(Math.abs(value[0] - (half + 0.5)) < 1e-6, `${value[0]} vs ${half} + 1/2`);
        const om = omega(sx, p, { alpha: 2 })[0];
        assert.ok(Math.abs(om - (0.5 * Array.from(p).reduce((s, v) => s + v * v, 0) - 0.5)) < 1e-6, `Omega(p) = (||p||^2 - 1)/2 (${om})`);
      }
    });

    test("T -> 0: max z <= max_{T Omega}(z) <= max z + T max H, so it tends to max z", () => {
      const r = rng(4);
      for (const [mapping, alpha] of MAPS) {
        const a = mappingAlpha(mapping, alpha);
        for (let c = 0; c < 20; c++) {
          const z = Array.from(r.vector(3, 2));
          if (c === 0) z[1] = z[0] = 1; // a tie at the top
          const m = Math.max(...z);
          for (const T of [1, 0.1, 1e-2, 1e-3, 1e-6]) {
            const v = maxOmega(sx, z, { mapping, alpha, temperature: T }).value[0];
            assert.ok(v >= m - 1e-6 && v <= m + T * hMax(a, 3) + 1e-6, `${mapping} T ${T}: ${v} within [${m}, ${m} + ${T} * ${hMax(a, 3)}]`);
          }
          assert.ok(Math.abs(maxOmega(sx, z, { mapping, alpha, temperature: 1e-6 }).value[0] - m) < 1e-5, `${mapping}: T = 1e-6 gives max z`);
        }
      }
    });

    test("rows: one batched call gives each row's value; Omega is -tsallisEntropy", () => {
      const z = new Float32Array([1.5, 0, 1, 0, 0, 0, -1, 2, 0.5]);
      const all = maxOmega(sx, z, { mapping: "entmax15", n: 3 });
      for (let r = 0; r < 3; r++) {
        const one = maxOmega(sx, z.subarray(3 * r, 3 * r + 3), { mapping: "entmax15" });
        assert.ok(Math.abs(all.value[r] - one.value[0]) < 1e-12, `row ${r}`);
      }
      assert.ok(Math.abs(all.value[1] - hMax(1.5, 3)) < 1e-6, "uniform scores 0: max_Omega = H(uniform)");
      assert.ok(Math.abs(omega(sx, [1 / 3, 1 / 3, 1 / 3], { alpha: 1 })[0] + Math.log(3)) < 1e-6, "Shannon: Omega(uniform) = -ln 3");
    });
  });
}
