// positions.test.mjs - positionalEncoding, relativeScores and txlScores on both wasm builds:
// against float64 references (the sinusoid formula, Shaw et al.'s clipped table lookup,
// Transformer-XL's four terms by their definition), the relative-position properties (PE(i).PE(j)
// depends on i - j only; the rotation M_k read off PE(k) takes PE(i) to PE(i + k)), the model's
// default base, Arrays and
// Float64Arrays as inputs, `out`, SIMD vs scalar, and the error paths with their exact messages.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, rng, throwsExactly } from "./helpers.mjs";

const all = await builds();

// ------------------------------------------------------------- float64 references
const refPE = (t, c, dim, base = 10000) => {
  const w = base ** (-(c - (c % 2)) / dim);
  return c % 2 ? Math.cos(t * w) : Math.sin(t * w);
};
function refMatrix(positions, dim, base) {
  const out = [];
  for (let t = 0; t < positions; t++) for (let c = 0; c < dim; c++) out.push(refPE(t, c, dim, base));
  return out;
}
const dot = (a, ai, b, bi, n) => {
  let s = 0;
  for (let c = 0; c < n; c++) s += a[ai + c] * b[bi + c];
  return s;
};
function refShaw(q, table, tq, tk, dim, K) {
  const out = [];
  for (let i = 0; i < tq; i++) {
    for (let j = 0; j < tk; j++) {
      const r = Math.max(-K, Math.min(K, j - i)) + K;
      out.push(dot(q, i * dim, table, r * dim, dim));
    }
  }
  return out;
}
/** Transformer-XL by its definition: the four terms (each tq * tk) and their sum. */
function refTxl(q, k, u, v, wr, tq, tk, dim, dimR, base) {
  const terms = [[], [], [], []], out = [];
  for (let i = 0; i < tq; i++) {
    for (let j = 0; j < tk; j++) {
      const r = new Array(dim).fill(0);
      for (let e = 0; e < dimR; e++) {
        const pe = refPE(i - j, e, dimR, base);
        for (let c = 0; c < dim; c++) r[c] += wr ? pe * wr[e * dim + c] : (e === c ? pe : 0);
      }
      const t = [dot(q, i * dim, k, j * dim, dim), dot(q, i * dim, r, 0, dim), dot(u, 0, k, j * dim, dim), dot(v, 0, r, 0, dim)];
      t.forEach((x, m) => terms[m].push(x));
      out.push(t[0] + t[1] + t[2] + t[3]);
    }
  }
  return { out, terms: terms.flat() };
}

for (const { name, sx } of all) {
  describe(`positions (${name})`, () => {
    test("positionalEncoding: the sinusoid formula for several bases and dimensions", () => {
      for (const base of [10000, 100, 2.5]) {
        for (const dim of [2, 8, 30]) {
          assertClose(sx.positionalEncoding(40, dim, { base }), refMatrix(40, dim, base), 1e-6, `base ${base} dim ${dim}`);
        }
      }
      assertClose(sx.positionalEncoding(5, 6), refMatrix(5, 6, 10000), 1e-6, "default base 10000");
      assert.deepEqual(Array.from(sx.positionalEncoding(1, 4)), [0, 1, 0, 1], "PE(0)");
      assert.equal(sx.positionalEncoding(0, 4).length, 0);
      const out = new Float32Array(3 * 4);
      assert.equal(sx.positionalEncoding(3, 4, { out }), out);
      assertClose(out, refMatrix(3, 4, 10000), 1e-6, "out");
    });

    test("positionalEncoding: base 10000 is the default (the model's table; bit for bit in tests/c/test_positions.c)", () => {
      assert.deepEqual(sx.positionalEncoding(64, 32), sx.positionalEncoding(64, 32, { base: 10000 }));
      assert.notDeepEqual(sx.positionalEncoding(64, 32), sx.positionalEncoding(64, 32, { base: 1000 }));
    });

    test("the relative-position property: PE(i).PE(j) depends on i - j only", () => {
      const T = 48, d = 16, pe = sx.positionalEncoding(T, d);
      for (let k = -(T - 1); k < T; k++) {
        let closed = 0;
        for (let p = 0; p < d / 2; p++) closed += Math.cos(k * 10000 ** (-2 * p / d));
        for (let i = Math.max(0, k); i < Math.min(T, T + k); i++) {
          const j = i - k;
          const v = dot(pe, i * d, pe, j * d, d);
          assert.ok(Math.abs(v - closed) < 1e-5, `offset ${k}: PE(${i}).PE(${j}) = ${v}, sum cos = ${closed}`);
        }
      }
    });

    test("the rotation M_k (read off PE(k)) takes PE(i) to PE(i + k), for every i", () => {
      const T = 60, d = 12, pe = sx.positionalEncoding(T, d, { base: 50 });
      for (const k of [1, 5, 17]) {
        for (let i = 0; i + k < T; i++) {
          for (let p = 0; p < d / 2; p++) {
            const sn = pe[k * d + 2 * p], cs = pe[k * d + 2 * p + 1];
            const s = pe[i * d + 2 * p], c = pe[i * d + 2 * p + 1];
            assert.ok(Math.abs(cs * s + sn * c - pe[(i + k) * d + 2 * p]) < 1e-5, `sin, k ${k} i ${i} pair ${p}`);
            assert.ok(Math.abs(-sn * s + cs * c - pe[(i + k) * d + 2 * p + 1]) < 1e-5, `cos, k ${k} i ${i} pair ${p}`);
          }
        }
      }
    });

    test("relativeScores: Shaw et al.'s clipped lookup against float64", () => {
      const r = rng(13);
      for (const [tq, tk, dim, K] of [[7, 7, 5, 3], [4, 9, 3, 0], [6, 2, 4, 10]]) {
        const q = r.vector(tq * dim), table = r.vector((2 * K + 1) * dim);
        const out = sx.relativeScores(q, table, { maxDistance: K, tk });
        assertClose(out, refShaw(q, table, tq, tk, dim, K), 1e-5, `tq ${tq} tk ${tk} K ${K}`);
      }
      // tk defaults to tq; Arrays in
      const got = sx.relativeScores([1, 2, 3, 4], [1, 0, 0, 1, 1, 1], { maxDistance: 1 });
      assert.deepEqual(Array.from(got), [2, 3, 3, 4]);
      assert.equal(sx.relativeScores([], [1, 2, 3], { maxDistance: 1 }).length, 0);
    });

    test("txlScores: Transformer-XL's four terms against the definition", () => {
      const r = rng(7);
      for (const [tq, tk, dim, dimR, base, proj] of [[5, 7, 4, 6, 100, true], [6, 6, 8, 8, 10000, false], [1, 3, 2, 2, 3, false]]) {
        const q = r.vector(tq * dim), k = r.vector(tk * dim), u = r.vector(dim), v = r.vector(dim);
        const wr = proj ? r.vector(dimR * dim) : undefined;
        const ref = refTxl(q, k, u, v, wr, tq, tk, dim, dimR, base);
        const got = sx.txlScores(q, k, { u, v, wr, base, terms: true });
        assertClose(got.out, ref.out, 1e-5, "out");
        assertClose(got.terms, ref.terms, 1e-5, "terms");
        const plain = sx.txlScores(q, k, { u, v, wr, base });
        assert.deepEqual(plain, got.out, "terms off: the same scores");
      }
      // the reparametrisation: with u = v = 0 and no projection, q_i . (k_j + PE(i - j))
      const q = [1, 0, 0, 1], k = [1, 1, 2, 0];
      const got = sx.txlScores(q, k, { u: [0, 0], v: [0, 0] });
      const want = [];
      for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) want.push(dot(q, 2 * i, k, 2 * j, 2) + q[2 * i] * Math.sin(i - j) + q[2 * i + 1] * Math.cos(i - j));
      assertClose(got, want, 1e-6, "u = v = 0");
      // out and terms buffers
      const out = new Float32Array(4), terms = new Float32Array(16);
      const res = sx.txlScores(Float64Array.from(q), k, { u: [0, 1], v: [1, 0], out, terms });
      assert.equal(res.out, out);
      assert.equal(res.terms, terms);
    });

    test("errors name the function, the argument and the value", () => {
      throwsExactly(() => sx.positionalEncoding(4, 3), RangeError, "positionalEncoding: dim must be an even integer >= 2 (got 3)");
      throwsExactly(() => sx.positionalEncoding(4, "8"), TypeError, 'positionalEncoding: dim must be an even integer >= 2 (got "8")');
      throwsExactly(() => sx.positionalEncoding(-1, 4), RangeError, "positionalEncoding: positions (the number of positions) must be an integer >= 0 (got -1)");
      throwsExactly(() => sx.positionalEncoding(4, 4, { base: 0 }), RangeError, "positionalEncoding: base must be > 0 (got 0)");
      throwsExactly(() => sx.positionalEncoding(4, 4, { base: Infinity }), RangeError, "positionalEncoding: base must be finite (got Infinity)");
      throwsExactly(() => sx.positionalEncoding(1 << 20, 1024), RangeError, "positionalEncoding: positions * dim (1048576 * 1024) must be less than 2^29");
      throwsExactly(() => sx.positionalEncoding(2, 2, { out: new Float32Array(3) }), RangeError, "positionalEncoding: out.length (3) must equal positions * dim (4)");
      throwsExactly(() => sx.relativeScores([1, 2], [1, 2, 3], {}), TypeError, "relativeScores: maxDistance (the largest relative distance kept) must be an integer >= 0 (got undefined)");
      throwsExactly(() => sx.relativeScores([1, 2], [1, 2, 3, 4], { maxDistance: 1 }), RangeError, "relativeScores: table.length (4) must be a non-zero multiple of 2 maxDistance + 1 (3)");
      throwsExactly(() => sx.relativeScores([1, 2, 3], [1, 2, 3, 4, 5, 6], { maxDistance: 1 }), RangeError, "relativeScores: q.length (3) must be a multiple of dim = table.length / (2 maxDistance + 1) (2)");
      throwsExactly(() => sx.relativeScores([1, NaN], [1, 2, 3], { maxDistance: 1 }), sx.SimplexityError, "relativeScores: q[1] must be finite (got NaN)", { code: 2, index: 1 });
      throwsExactly(() => sx.txlScores([1, 2], [1, 2], { v: [1, 2] }), TypeError, "txlScores: u (the global content bias, dim numbers) is required");
      throwsExactly(() => sx.txlScores([1, 2], [1, 2], { u: [1, 2], v: [1] }), RangeError, "txlScores: v.length (1) must equal u.length (dim = 2)");
      throwsExactly(() => sx.txlScores([1, 2, 3], [1, 2], { u: [1, 2], v: [1, 2] }), RangeError, "txlScores: q.length (3) must be a multiple of dim = u.length (2)");
      throwsExactly(() => sx.txlScores([1, 2, 3], [1, 2, 3], { u: [1, 2, 3], v: [1, 2, 3] }), RangeError, "txlScores: without wr, dim = u.length must be even: the sinusoids r_{i-j} have dim columns (got 3)");
      throwsExactly(() => sx.txlScores([1, 2], [1, 2], { u: [1, 2], v: [1, 2], wr: [1, 2, 3, 4, 5, 6] }), RangeError, "txlScores: dimR = wr.length / dim must be an even integer >= 2 (got 3)");
      throwsExactly(() => sx.txlScores([1, 2], [1, 2], { u: [1, 2], v: [1, 2], dimR: 4 }), RangeError, "txlScores: without wr, dimR must equal dim = u.length (got 4 and 2)");
      throwsExactly(() => sx.txlScores([1, 2], [1, 2], { u: [1, 2], v: [1, 2], terms: new Float32Array(3) }), RangeError, "txlScores: terms.length (3) must equal 4 * tq * tk (4)");
      throwsExactly(() => sx.txlScores([1, 2], [1, Infinity], { u: [1, 2], v: [1, 2] }), sx.SimplexityError, "txlScores: k[1] must be finite (got Infinity)", { code: 2, index: 1 });
    });
  });
}

test("positions: SIMD and scalar builds agree bit for bit", () => {
  const [a, b] = all;
  assert.deepEqual(a.sx.positionalEncoding(50, 24, { base: 1000 }), b.sx.positionalEncoding(50, 24, { base: 1000 }));
  const r = rng(3), q = r.vector(30), k = r.vector(40), u = r.vector(5), v = r.vector(5), wr = r.vector(40);
  assert.deepEqual(a.sx.txlScores(q, k, { u, v, wr }), b.sx.txlScores(q, k, { u, v, wr }));
  const table = r.vector(35);
  assert.deepEqual(a.sx.relativeScores(q, table, { maxDistance: 3, tk: 9 }), b.sx.relativeScores(q, table, { maxDistance: 3, tk: 9 }));
});
