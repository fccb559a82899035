// chain.test.mjs - chainAttention, chainAttentionBackward and sparsemapSelections (structured
// attention over a chain) on both wasm builds: CRF marginals and their covariance against brute
// force over all 2^n selections in float64, SparseMAP's weights from its own selections and its
// optimality certificate, the t = 0 closed forms, SIMD vs scalar bit for bit, and the argument
// errors (each naming the function, the argument, the value).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, rng } from "./helpers.mjs";

const all = await builds();

/** Score of selection s (a bit mask) under unaries w and transition t. */
function score(s, w, t) {
  let v = 0;
  for (let i = 0; i < w.length; i++) if ((s >> i) & 1) v += w[i] + (i + 1 < w.length && (s >> (i + 1)) & 1 ? t : 0);
  return v;
}

function allowed(s, u) {
  for (let i = 0; i < u.length; i++) if ((s >> i) & 1 && u[i] === -Infinity) return false;
  return true;
}

/** Brute-force CRF marginals and J g = Cov(y, g.y). */
function bruteCrf(u, t, g) {
  const n = u.length, mu = new Float64Array(n), yg = new Float64Array(n);
  let top = -Infinity, z = 0, eg = 0;
  for (let s = 0; s < 1 << n; s++) if (allowed(s, u)) top = Math.max(top, score(s, u, t));
  for (let s = 0; s < 1 << n; s++) {
    if (!allowed(s, u)) continue;
    const p = Math.exp(score(s, u, t) - top);
    let gy = 0;
    for (let i = 0; i < n; i++) if ((s >> i) & 1) gy += g[i];
    z += p;
    eg += p * gy;
    for (let i = 0; i < n; i++) if ((s >> i) & 1) { mu[i] += p; yg[i] += p * gy; }
  }
  return { mu: mu.map((v) => v / z), jg: mu.map((v, i) => yg[i] / z - (v / z) * (eg / z)) };
}

function randomRow(r, n, masks) {
  const u = Array.from(r.vector(n, 2));
  if (masks) u[n - 1] = -Infinity;
  return u;
}

for (const { name, sx } of all) {
  describe(`chain attention [${name}]`, () => {
    test("CRF marginals and their backward pass match brute force", () => {
      const r = rng(11);
      for (let trial = 0; trial < 120; trial++) {
        const n = 1 + (trial % 9), t = (trial % 7) - 3;
        const u = randomRow(r, n, trial % 5 === 0 && n > 1);
        const g = Array.from(r.vector(n, 1));
        const mu = sx.chainAttention(u, { transition: t });
        const { du } = sx.chainAttentionBackward(u, g, { transition: t });
        const ref = bruteCrf(u, t, g);
        for (let i = 0; i < n; i++) {
          assert.ok(Math.abs(mu[i] - ref.mu[i]) < 2e-6, `trial ${trial}: mu[${i}] ${mu[i]} vs ${ref.mu[i]}`);
          assert.ok(Math.abs(du[i] - ref.jg[i]) < 1e-5, `trial ${trial}: du[${i}] ${du[i]} vs ${ref.jg[i]}`);
        }
      }
    });

    test("SparseMAP: the selections give the weights, and no selection beats them", () => {
      const r = rng(12);
      let mixtures = 0;
      for (let trial = 0; trial < 150; trial++) {
        const n = 2 + (trial % 8), t = (trial % 5) * 0.6 - 0.9;
        const u = randomRow(r, n, trial % 6 === 0).map((v) => v * 0.6);
        const mu = sx.chainAttention(u, { method: "sparsemap", transition: t });
        const { count, selections } = sx.sparsemapSelections(u, { transition: t });
        assert.equal(count, selections.length);
        mixtures += count > 1;
        const rec = new Float64Array(n);
        let sum = 0;
        for (const { positions, weight } of selections) {
          assert.ok(weight > 0);
          sum += weight;
          for (const i of positions) rec[i] += weight;
        }
        assert.ok(Math.abs(sum - 1) < 1e-5, `weights sum to ${sum}`);
        const w = u.map((v, i) => v - mu[i]);
        let tau = Infinity, best = -Infinity;
        for (let i = 0; i < n; i++) assert.ok(Math.abs(rec[i] - mu[i]) < 1e-5, `mu[${i}]`);
        for (const { positions } of selections) tau = Math.min(tau, score(positions.reduce((m, i) => m | (1 << i), 0), w, t));
        for (let s = 0; s < 1 << n; s++) if (allowed(s, u)) best = Math.max(best, score(s, w, t));
        assert.ok(best <= tau + 1e-4 * (1 + Math.abs(t)), `trial ${trial}: a selection beats the active ones by ${best - tau}`);
      }
      assert.ok(mixtures > 40, `only ${mixtures} mixtures`);
    });

    test("t = 0: sigmoids (CRF) and clip(u, 0, 1) (SparseMAP); rows, masks, out", () => {
      const u = new Float32Array([-1, 0.25, 0.75, 2, -Infinity, 0.5]);
      const crf = sx.chainAttention(u, { n: 3 });
      for (const i of [0, 1, 2, 3, 5]) assert.ok(Math.abs(crf[i] - 1 / (1 + Math.exp(-u[i]))) < 1e-6);
      assert.equal(crf[4], 0);
      const out = new Float32Array(6);
      assert.equal(sx.chainAttention(u, { n: 3, method: "sparsemap", out }), out);
      assert.deepEqual(Array.from(out), [0, 0.25, 0.75, 1, 0, 0.5]);
    });

    test("SparseMAP's backward pass matches central differences of the weights", () => {
      const u = [0.3, 0.9, -0.2, 0.6, 0.1], g = [0.5, -1, 0.25, 0.8, -0.3], t = 0.7, h = 1e-3;
      const { du, dt } = sx.chainAttentionBackward(u, g, { method: "sparsemap", transition: t });
      const f = (uu, tt) => sx.chainAttention(uu, { method: "sparsemap", transition: tt }).reduce((a, v, i) => a + v * g[i], 0);
      for (let j = 0; j < u.length; j++) {
        const up = u.slice(), um = u.slice();
        up[j] += h;
        um[j] -= h;
        const fd = (f(up, t) - f(um, t)) / (2 * h);
        assert.ok(Math.abs(du[j] - fd) < 2e-3, `du[${j}] ${du[j]} vs ${fd}`);
      }
      const fdt = (f(u, t + h) - f(u, t - h)) / (2 * h);
      assert.ok(Math.abs(dt - fdt) < 2e-3, `dt ${dt} vs ${fdt}`);
    });

    test("bad arguments throw, naming the function, the argument and the value", () => {
      assert.throws(() => sx.chainAttention([1, 2], { method: "viterbi" }), /chainAttention: method must be "crf" or "sparsemap" \(got "viterbi"\)/);
      assert.throws(() => sx.chainAttention([1, 2], { transition: NaN }), /chainAttention: transition must be finite/);
      assert.throws(() => sx.chainAttention([1, 2], { transition: "1" }), TypeError);
      assert.throws(() => sx.chainAttention([1, 2, 3], { n: 2 }), RangeError);
      assert.throws(() => sx.chainAttention(new Float32Array(64), { method: "sparsemap" }), /at most 63 positions \(got n = 64\)/);
      assert.equal(sx.chainAttention(new Float32Array(64)).length, 64);
      assert.throws(() => sx.chainAttention([1, NaN]), /chainAttention.*u\[1\]/);
      assert.throws(() => sx.chainAttentionBackward([1, 2], [1]), /dmu.length \(1\) must equal u.length \(2\)/);
      assert.throws(() => sx.chainAttentionBackward([1, 2], [1, -Infinity]), /chainAttentionBackward.*dmu/);
      assert.throws(() => sx.sparsemapSelections([]), /sparsemapSelections: u must hold at least one score/);
      assert.throws(() => sx.sparsemapSelections([1, 2], { n: 1 }), /no n option/);
      assert.throws(() => sx.sparsemapSelections("12"), TypeError);
    });
  });
}

test("chain attention: SIMD and scalar builds agree bit for bit", () => {
  if (all.length < 2) return;
  const r = rng(13), u = Array.from(r.vector(40, 1.5));
  for (const method of ["crf", "sparsemap"]) {
    const [a, b] = all.map(({ sx }) => sx.chainAttention(u, { n: 20, method, transition: 0.8 }));
    assert.deepEqual(Array.from(a), Array.from(b), method);
  }
});
