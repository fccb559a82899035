// scoring.test.mjs - attentionScores, attentionScoresBackward, maskedMapping and its backward
// pass on both wasm builds: the four scoring functions against a float64 reference, their
// gradients (q, k and every parameter) against central differences of that reference, the
// masked mapping against the reference mappings of the truncated rows (exact zeros beyond the
// valid lengths, an all-zero row for 0), the 1/sqrt(d) story (the max softmax weight of random
// unscaled scores grows with d, the scaled one does not), SIMD vs scalar, and the errors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, rng, refSoftmax, refSparsemax, refEntmax, numericVjp } from "./helpers.mjs";

const all = await builds();

// ------------------------------------------------------------- float64 reference
function refScores(q, k, { nq = 1, nk = 1, scoring = "scaled", W, Wq, Wk, wv } = {}) {
  const dq = q.length / nq, dk = k.length / nk, h = wv ? wv.length : 0;
  const s = new Float64Array(nq * nk);
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nk; j++) {
      let v = 0;
      if (scoring === "dot" || scoring === "scaled") {
        for (let m = 0; m < dq; m++) v += q[i * dq + m] * k[j * dk + m];
        if (scoring === "scaled") v /= Math.sqrt(dq);
      } else if (scoring === "bilinear") {
        for (let m = 0; m < dq; m++) for (let n = 0; n < dk; n++) v += q[i * dq + m] * W[m * dk + n] * k[j * dk + n];
      } else {
        for (let l = 0; l < h; l++) {
          let a = 0;
          for (let m = 0; m < dq; m++) a += Wq[l * dq + m] * q[i * dq + m];
          for (let n = 0; n < dk; n++) a += Wk[l * dk + n] * k[j * dk + n];
          v += wv[l] * Math.tanh(a);
        }
      }
      s[i * nk + j] = v;
    }
  }
  return s;
}

const CASES = [
  { scoring: "dot", nq: 3, nk: 4, dq: 5, dk: 5 },
  { scoring: "scaled", nq: 2, nk: 5, dq: 8, dk: 8 },
  { scoring: "bilinear", nq: 3, nk: 2, dq: 4, dk: 3 },
  { scoring: "additive", nq: 3, nk: 4, dq: 3, dk: 2, h: 5 },
];

function makeCase(c, seed) {
  const r = rng(seed);
  const o = { nq: c.nq, nk: c.nk, scoring: c.scoring };
  if (c.scoring === "bilinear") o.W = r.vector(c.dq * c.dk, 0.7);
  if (c.scoring === "additive") {
    o.Wq = r.vector(c.h * c.dq, 0.7);
    o.Wk = r.vector(c.h * c.dk, 0.7);
    o.wv = r.vector(c.h);
  }
  return { q: r.vector(c.nq * c.dq), k: r.vector(c.nk * c.dk), o, g: r.vector(c.nq * c.nk), r };
}

const maxRelErr = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i]) / (1 + Math.abs(b[i]))));
let worstFwd = 0, worstGrad = 0;

for (const { name, sx } of all) {
  describe(`attentionScores (${name})`, () => {
    for (const c of CASES) {
      test(`${c.scoring}: values against float64`, () => {
        const { q, k, o } = makeCase(c, 11);
        const s = sx.attentionScores(q, k, o);
        assert.equal(s.length, c.nq * c.nk);
        const ref = refScores(q, k, o);
        const e = maxRelErr(s, ref);
        worstFwd = Math.max(worstFwd, e);
        assert.ok(e < 1e-6, `relative error ${e}`);
        // Arrays and Float64Arrays are the same inputs; out is filled and returned
        const out = new Float32Array(c.nq * c.nk);
        assert.equal(sx.attentionScores(Array.from(q), Float64Array.from(k), { ...o, out }), out);
        assert.deepEqual(out, s);
      });

      test(`${c.scoring}: gradients against central differences`, () => {
        const { q, k, o, g } = makeCase(c, 12);
        const grads = sx.attentionScoresBackward(q, k, g, o);
        const check = (got, x, f, what) => {
          const fd = numericVjp(f, x, g);
          const e = maxRelErr(got, fd);
          worstGrad = Math.max(worstGrad, e);
          assert.ok(e < 1e-5, `${what}: relative error ${e}`);
        };
        check(grads.dq, q, (x) => refScores(x, k, o), "dq");
        check(grads.dk, k, (x) => refScores(q, x, o), "dk");
        const params = c.scoring === "bilinear" ? ["W"] : c.scoring === "additive" ? ["Wq", "Wk", "wv"] : [];
        assert.deepEqual(Object.keys(grads).sort(), ["dk", "dq", ...params.map((p) => `d${p}`)].sort());
        for (const p of params) check(grads[`d${p}`], o[p], (x) => refScores(q, k, { ...o, [p]: x }), `d${p}`);
      });
    }

    test("scaled = dot / sqrt(d); the default scoring is scaled", () => {
      const r = rng(3);
      const q = r.vector(2 * 16), k = r.vector(3 * 16);
      const dot = sx.attentionScores(q, k, { nq: 2, nk: 3, scoring: "dot" });
      const scaled = sx.attentionScores(q, k, { nq: 2, nk: 3 });
      assertClose(scaled, dot.map((v) => v / 4), 1e-6, "scaled");
    });

    test("the 1/sqrt(d) scale: unscaled softmax weights saturate as d grows", () => {
      const r = rng(5);
      const meanMax = (d, scoring) => {
        let acc = 0;
        const trials = 40, nk = 8;
        for (let t = 0; t < trials; t++) {
          const s = sx.attentionScores(r.vector(d), r.vector(nk * d), { nk, scoring });
          acc += Math.max(...sx.softmax(s));
        }
        return acc / trials;
      };
      const d = 256;
      assert.ok(meanMax(d, "dot") > 0.9, "unscaled: near one-hot at d = 256");
      const sc = meanMax(d, "scaled");
      assert.ok(sc < 0.6, `scaled: mean max weight ${sc} stays moderate`);
    });

    test("SIMD and scalar builds agree bit for bit", () => {
      const other = all.find((b) => b.name !== name).sx;
      for (const c of CASES) {
        const { q, k, o, g } = makeCase(c, 21);
        assert.deepEqual(sx.attentionScores(q, k, o), other.attentionScores(q, k, o), c.scoring);
        assert.deepEqual(sx.attentionScoresBackward(q, k, g, o), other.attentionScoresBackward(q, k, g, o), c.scoring);
      }
    });

    test("argument errors name the function, the argument and the value", () => {
      const q = new Float32Array(6), k = new Float32Array(4);
      assert.throws(() => sx.attentionScores(q, k, { nq: 2, nk: 2, scoring: "dot" }),
        { name: "RangeError", message: "attentionScores: dot scores need queries and keys of one dimension (got q.length / nq = 3 and k.length / nk = 2)" });
      assert.throws(() => sx.attentionScores(q, k, { nq: 2, nk: 2, scoring: "cosine" }),
        { name: "RangeError", message: 'attentionScores: scoring must be one of "dot", "scaled", "bilinear", "additive" (got "cosine")' });
      assert.throws(() => sx.attentionScores(q, k, { nq: 2, nk: 2, scoring: 3 }),
        { name: "TypeError", message: "attentionScores: scoring must be a string (got 3)" });
      assert.throws(() => sx.attentionScores(q, k, { nq: 4, nk: 2, scoring: "bilinear", W: new Float32Array(6) }),
        { name: "RangeError", message: "attentionScores: q.length (6) must be a non-zero multiple of nq (4)" });
      assert.throws(() => sx.attentionScores(q, k, { nq: 0, nk: 2 }),
        { name: "RangeError", message: "attentionScores: nq (the number of queries) must be an integer >= 1 (got 0)" });
      assert.throws(() => sx.attentionScores(q, k, { nq: 2, nk: 2, scoring: "bilinear" }),
        { name: "TypeError", message: 'attentionScores: W (qDim * kDim) is required for scoring "bilinear"' });
      assert.throws(() => sx.attentionScores(q, k, { nq: 2, nk: 2, scoring: "bilinear", W: new Float32Array(5) }),
        { name: "RangeError", message: "attentionScores: W.length (5) must equal qDim * kDim (6)" });
      assert.throws(() => sx.attentionScores(q, q, { nq: 2, nk: 2, scoring: "scaled", W: new Float32Array(9) }),
        { name: "RangeError", message: 'attentionScores: W applies to scoring "bilinear" only (scoring is "scaled")' });
      const add = { nq: 2, nk: 2, scoring: "additive", Wq: new Float32Array(6), Wk: new Float32Array(4), wv: [1, 2] };
      assert.throws(() => sx.attentionScores(q, k, { ...add, Wk: new Float32Array(3) }),
        { name: "RangeError", message: "attentionScores: Wk.length (3) must equal h * kDim (4)" });
      assert.throws(() => sx.attentionScores(q, k, { ...add, wv: [] }),
        { name: "RangeError", message: "attentionScores: wv must not be empty (its length is the hidden size)" });
      assert.throws(() => sx.attentionScores(q, k, { ...add, wv: undefined }),
        { name: "TypeError", message: 'attentionScores: wv (the hidden size h) is required for scoring "additive"' });
      assert.throws(() => sx.attentionScores(q, k, { ...add, Wq: "x" }),
        { name: "TypeError", message: 'attentionScores: Wq must be a Float32Array, a WasmArray or an array of numbers (got "x")' });
      assert.throws(() => sx.attentionScores(q, k, { ...add, out: new Float32Array(3) }),
        { name: "RangeError", message: "attentionScores: out.length (3) must equal nq * nk (4)" });
      assert.throws(() => sx.attentionScoresBackward(q, k, [1, 2, 3], add),
        { name: "RangeError", message: "attentionScoresBackward: dscores.length (3) must equal nq * nk (2 * 2 = 4)" });
      // non-finite inputs: the core's SimplexityError with the array and the index
      assert.throws(() => sx.attentionScores([1, NaN, 0, 0], [1, 1, 0, 0], { nq: 2, nk: 2, scoring: "dot" }),
        (e) => e.name === "SimplexityError" && e.code === 2 && e.index === 1 &&
          e.message === "attentionScores: sx_attention_scores: q[1] must be finite (got NaN)");
      assert.throws(() => sx.attentionScoresBackward([1, 2], [1, 1], [Infinity], { scoring: "dot" }),
        (e) => e.code === 2 && /dscores\[0\] must be finite/.test(e.message));
    });
  });

  describe(`maskedMapping (${name})`, () => {
    const REF = {
      softmax: (x) => refSoftmax(x),
      sparsemax: (x) => refSparsemax(x),
      entmax15: (x) => refEntmax(x, 1.5),
      entmax: (x) => refEntmax(x, 1.3),
    };
    const OPTS = { softmax: {}, sparsemax: {}, entmax15: {}, entmax: { alpha: 1.3 } };
    const n = 5, valid = [5, 2, 0, 1, 3];
    const x = rng(8).vector(valid.length * n, 2);

    for (const mapping of Object.keys(REF)) {
      test(`${mapping}: the valid prefix is the mapping of the prefix, exact zeros beyond`, () => {
        const p = sx.maskedMapping(x, { n, validLengths: valid, mapping, ...OPTS[mapping] });
        valid.forEach((v, r) => {
          const row = p.subarray(r * n, r * n + n);
          for (let j = v; j < n; j++) assert.ok(Object.is(row[j], 0), `row ${r}[${j}] is +0`);
          if (v > 0) assertClose(row.subarray(0, v), REF[mapping](Array.from(x.subarray(r * n, r * n + v))), 1e-5, `row ${r}`);
        });
      });
      test(`${mapping}: backward against central differences`, () => {
        const dy = rng(9).vector(x.length);
        const opts = { n, validLengths: valid, mapping, ...OPTS[mapping] };
        const dx = sx.maskedMappingBackward(x, dy, opts);
        const f = (xx) => {
          const out = new Float64Array(xx.length);
          valid.forEach((v, r) => {
            if (v > 0) out.set(REF[mapping](Array.from(xx.subarray(r * n, r * n + v))), r * n);
          });
          return out;
        };
        const fd = numericVjp(f, x, dy, 1e-6);
        assertClose(dx, fd, 2e-4, "dx");
        valid.forEach((v, r) => { for (let j = v; j < n; j++) assert.ok(Object.is(dx[r * n + j], 0)); });
      });
    }

    test("every mapping: without validLengths it is the mapping; sigmoid and oscarmax too", () => {
      const p = sx.maskedMapping(x, { n, mapping: "fusedmax", lambda: 0.5 });
      assert.deepEqual(p, sx.fusedmax(x, { n, lambda: 0.5 }));
      const s = sx.maskedMapping(x, { n, mapping: "sigmoid", validLengths: valid });
      assert.equal(s[2 * n], 0);
      assertClose(s.subarray(0, 5), sx.sigmoid(x.subarray(0, 5)), 1e-7, "sigmoid row 0");
      const o = sx.maskedMapping(x, { n, mapping: "oscarmax", beta: 0.2, validLengths: Int32Array.from(valid) });
      assertClose(o.subarray(n, n + 2), sx.oscarmax(x.subarray(n, n + 2), { beta: 0.2 }), 1e-6, "oscarmax row 1");
    });

    test("errors", () => {
      assert.throws(() => sx.maskedMapping(x, { n, validLengths: [1, 2] }),
        { name: "RangeError", message: "maskedMapping: validLengths.length (2) must equal the number of rows (5)" });
      assert.throws(() => sx.maskedMapping(x, { n, validLengths: [1, 2, 6, 0, 0] }),
        { name: "RangeError", message: "maskedMapping: validLengths[2] must be an integer in [0, n = 5] (got 6)" });
      assert.throws(() => sx.maskedMapping(x, { n, validLengths: [1, 2, 1.5, 0, 0] }),
        { name: "RangeError", message: "maskedMapping: validLengths[2] must be an integer in [0, n = 5] (got 1.5)" });
      assert.throws(() => sx.maskedMapping(x, { n, validLengths: "12" }),
        { name: "TypeError", message: 'maskedMapping: validLengths must be an Array or an Int32Array of one integer per row (got "12")' });
      assert.throws(() => sx.maskedMapping(x, { n, mapping: "groupmax" }),
        { name: "RangeError", message: /^maskedMapping: mapping must be one of "softmax"/ });
      assert.throws(() => sx.maskedMapping(x, { n, alpha: 1.2 }),
        { name: "RangeError", message: 'maskedMapping: alpha applies to mapping "entmax" only (mapping is "softmax")' });
      assert.throws(() => sx.maskedMappingBackward(x, [1], { n }),
        { name: "RangeError", message: "maskedMappingBackward: dy.length (1) must equal x.length (25)" });
      assert.throws(() => sx.maskedMapping([1, NaN], { validLengths: [1] }),
        (e) => e.code === 2 && e.index === 1 && e.message === "maskedMapping: sx_masked_mapping: x[1] must be finite or -Infinity (got NaN)");
    });
  });
}

test("worst errors", () => {
  console.log(`scoring: worst forward relative error ${worstFwd.toExponential(2)}, worst gradient relative error ${worstGrad.toExponential(2)}`);
});
