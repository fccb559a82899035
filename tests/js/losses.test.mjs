// losses.test.mjs - fyLoss, the Fenchel-Young losses, on both wasm builds: against a float64
// reference (the reference mappings of helpers.mjs and the literal formula <p - y, z> + H(p) - H(y)),
// the cross-entropy -log p_t, zero loss once the margin is met, grad = (p - y) / T and dalpha
// against central differences of the reference, indices and distributions, skipped rows, every
// input kind, SIMD vs scalar, and the argument errors (each naming fyLoss, the argument, the value).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, rng, refEntmax } from "./helpers.mjs";

const all = await builds();

function tsallis(p, alpha) {
  let h = 0;
  for (const v of p) if (v > 0) h += alpha === 1 ? -v * Math.log(v) : (v - v ** alpha) / (alpha * (alpha - 1));
  return h;
}

/** The loss of one row in float64: z = x / T, p by the reference mapping. */
function refLoss(x, y, alpha, T = 1) {
  const p = refEntmax(Array.from(x), alpha, T);
  let lin = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== -Infinity) lin += (p[i] - y[i]) * (x[i] / T);
  return lin + tsallis(p, alpha) - tsallis(y, alpha);
}

const ALPHA = { softmax: 1, sparsemax: 2, entmax15: 1.5 };

for (const { name, sx } of all) {
  describe(`fyLoss [${name}]`, () => {
    test("matches the float64 reference for every mapping, indices and distributions", () => {
      const r = rng(7);
      const cases = [["softmax"], ["sparsemax"], ["entmax15"], ["entmax", 1.3], ["entmax", 2.5], ["entmax", 1.05]];
      for (const [mapping, alpha] of cases) {
        for (let trial = 0; trial < 40; trial++) {
          const n = 2 + (trial % 9), T = trial % 3 ? 1 : 0.7;
          const x = r.vector(n, 1.5);
          if (trial % 4 === 0) x[n - 1] = -Infinity;
          const t = trial % n === n - 1 && x[n - 1] === -Infinity ? 0 : trial % n;
          const y = new Float64Array(n);
          if (trial % 2) y[t] = 1;
          else {
            for (let i = 0; i < n; i++) y[i] = x[i] === -Infinity ? 0 : r() + 0.01;
            const s = y.reduce((a, b) => a + b, 0);
            for (let i = 0; i < n; i++) y[i] /= s;
          }
          const opts = alpha === undefined ? { mapping, temperature: T, grad: true } : { mapping, alpha, temperature: T, grad: true };
          const got = trial % 2 ? sx.fyLoss(x, [t], opts) : sx.fyLoss(x, y, opts);
          const a = alpha ?? ALPHA[mapping];
          const want = refLoss(x, y, a, T);
          assert.ok(Math.abs(got.loss[0] - want) <= 2e-5 * (1 + Math.abs(want)), `${mapping} ${alpha}: ${got.loss[0]} vs ${want}`);
          const p = refEntmax(Array.from(x), a, T);
          for (let i = 0; i < n; i++) assert.ok(Math.abs(got.grad[i] - (p[i] - y[i]) / T) <= 2e-5, `grad[${i}]`);
        }
      }
    });

    test("softmax gives the cross-entropy, never 0; sparse mappings give 0 past the margin", () => {
      const x = [4, 1, 0.5];
      const ce = sx.fyLoss(x, [1]).loss[0];
      const lse = Math.log(Math.exp(4) + Math.exp(1) + Math.exp(0.5));
      assert.ok(Math.abs(ce - (lse - 1)) < 1e-5, `${ce}`);
      assert.ok(sx.fyLoss(x, [0]).loss[0] > 0);
      assert.equal(sx.fyLoss(x, [0], { mapping: "sparsemax" }).loss[0], 0);
      assert.equal(sx.fyLoss(x, [0], { mapping: "entmax15" }).loss[0], 0);
      assert.ok(sx.fyLoss([4, 3.5, 0], [0], { mapping: "sparsemax" }).loss[0] > 0);
      // alpha = 1 under "entmax" is the cross-entropy, bit for bit
      assert.equal(sx.fyLoss(x, [1], { mapping: "entmax", alpha: 1 }).loss[0], ce);
    });

    test("dalpha against central differences of the reference", () => {
      const r = rng(11);
      for (const alpha of [1.2, 1.5, 1.8, 2.4]) {
        const x = r.vector(6, 1.2), y = [0.1, 0.2, 0.3, 0.4, 0, 0];
        const { dalpha } = sx.fyLoss(x, y, { mapping: "entmax", alpha, alphaGrad: true });
        const h = 1e-5, fd = (refLoss(x, y, alpha + h) - refLoss(x, y, alpha - h)) / (2 * h);
        assert.ok(Math.abs(dalpha[0] - fd) <= 1e-4 * (1 + Math.abs(fd)), `alpha ${alpha}: ${dalpha[0]} vs ${fd}`);
      }
    });

    test("several rows, a skipped row, and every input kind", () => {
      const x = [2, 1, 0, 0, 1, 2, 1, 1, 1];
      const a = sx.fyLoss(x, [0, -1, 2], { n: 3, mapping: "entmax", alpha: 1.4, grad: true, alphaGrad: true });
      assert.equal(a.loss.length, 3);
      assert.equal(a.loss[1], 0);
      assert.deepEqual(Array.from(a.grad.subarray(3, 6)), [0, 0, 0]);
      assert.equal(a.dalpha[1], 0);
      const b = sx.fyLoss(new Float64Array(x), Int32Array.from([0, -1, 2]), { n: 3, mapping: "entmax", alpha: 1.4 });
      assert.deepEqual(b.loss, a.loss);
      assert.deepEqual(Object.keys(b), ["loss"]);
      const onehot = [1, 0, 0, 0, 1, 0, 0, 0, 1];
      const c = sx.fyLoss(Float32Array.from(x), new Float64Array(onehot), { n: 3, mapping: "entmax", alpha: 1.4 });
      assert.equal(c.loss[0], a.loss[0]);
      assert.equal(c.loss[2], a.loss[2]);
      const w = sx.alloc(9);
      w.array.set(x);
      assert.deepEqual(sx.fyLoss(w, [0, -1, 2], { n: 3, mapping: "entmax", alpha: 1.4 }).loss, a.loss);
      w.free();
      assert.deepEqual(sx.fyLoss([], [], { n: 3 }).loss, new Float32Array(0));
    });

    test("bad arguments throw, naming fyLoss, the argument and the value", () => {
      const bad = [
        [() => sx.fyLoss([1, 2], [2]), RangeError, /fyLoss: target\[0\] must be an integer in \[0, 2\).*got 2/],
        [() => sx.fyLoss([1, 2], [0.5]), RangeError, /target\[0\] must be an integer/],
        [() => sx.fyLoss([1, 2, 3, 4], [0, 1, 2], { n: 2 }), RangeError, /target.length \(3\) must equal x.length \(4\).*the number of rows \(2\)/],
        [() => sx.fyLoss([1, 2, 3, 4], Int32Array.from([0, 1, 2]), { n: 2 }), RangeError, /target has 3 indices, but x has 2 rows/],
        [() => sx.fyLoss([1, 2], [0.5, 0.6]), RangeError, /row 0 of target sums to 1.1/],
        [() => sx.fyLoss([1, -Infinity], [0.5, 0.5]), RangeError, /target\[1\] = 0.5 puts probability on a masked score/],
        [() => sx.fyLoss([1, 2], [1.5, -0.5]), RangeError, /target\[1\] must be finite and >= 0 \(got -0.5\)/],
        [() => sx.fyLoss([1, -Infinity], [1]), Error, /masked/],
        [() => sx.fyLoss([1, NaN], [0]), Error, /x\[1\]/],
        [() => sx.fyLoss([1, 2], [0], { mapping: "fusedmax" }), RangeError, /mapping must be one of .*got "fusedmax"/],
        [() => sx.fyLoss([1, 2], [0], { alphaGrad: true }), RangeError, /alphaGrad needs mapping "entmax"/],
        [() => sx.fyLoss([1, 2], [0], { grad: 1 }), TypeError, /grad must be a boolean \(got 1\)/],
        [() => sx.fyLoss([1, 2], [0], { mapping: "entmax", alpha: 0.5 }), RangeError, /alpha/],
        [() => sx.fyLoss([1, 2], [0], { temperature: 0 }), RangeError, /temperature/],
        [() => sx.fyLoss([1, 2], "0"), TypeError, /fyLoss: target must be/],
        [() => sx.fyLoss([1, 2], null), TypeError, /fyLoss: target must be/],
      ];
      for (const [call, type, message] of bad) assert.throws(call, (e) => e instanceof type && message.test(e.message), String(call));
    });
  });
}

test("fyLoss: the SIMD and scalar builds agree", () => {
  const [a, b] = all;
  const x = rng(3).vector(64, 2);
  const t = Array.from({ length: 8 }, (_, i) => i);
  for (const mapping of ["softmax", "sparsemax", "entmax15", "entmax"]) {
    const o = { n: 8, mapping, grad: true };
    const ra = a.sx.fyLoss(x, t, o), rb = b.sx.fyLoss(x, t, o);
    for (let i = 0; i < 8; i++) assert.ok(Math.abs(ra.loss[i] - rb.loss[i]) <= 1e-5 * (1 + ra.loss[i]));
  }
});
