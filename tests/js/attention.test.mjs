// attention.test.mjs - attention(q, k, v, opts) on both wasm builds: every mapping against a
// float64 reference (scores in double, the masks by definition, helpers.mjs's reference mappings;
// fusedmax against the public fusedmax on the same scores), causal and padding masks (exact
// zeros, a batch element with no keys), shapes and defaults, out/weights buffers, every argument
// error with its message, C failures (NaN inputs, overflowing scores) leaving out untouched, and
// SIMD vs scalar agreement.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, assertOnSimplex, rng, refSoftmax, refSparsemax, refEntmax, throwsExactly } from "./helpers.mjs";

const all = await builds();

/** Float64 attention: { out (batch, tq, width), weights (batch, heads, tq, tk) }. `map` maps one
 *  row of scores (-Infinity where masked) to weights. */
function refAttention(q, k, v, { batch = 1, heads = 1, tq, tk, causal = false, keyLengths }, map) {
  const width = q.length / (batch * tq), dh = width / heads;
  const out = new Float64Array(q.length), weights = new Float64Array(batch * heads * tq * tk);
  for (let b = 0; b < batch; b++) {
    const klen = keyLengths ? keyLengths[b] : tk;
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < tq; i++) {
        const s = new Array(tk);
        for (let j = 0; j < tk; j++) {
          let d = 0;
          for (let c = 0; c < dh; c++) d += q[(b * tq + i) * width + h * dh + c] * k[(b * tk + j) * width + h * dh + c];
          s[j] = j < klen && (!causal || j <= i) ? d / Math.sqrt(dh) : -Infinity;
        }
        const p = map(s);
        weights.set(p, ((b * heads + h) * tq + i) * tk);
        for (let c = 0; c < dh; c++) {
          let o = 0;
          for (let j = 0; j < tk; j++) o += p[j] * v[(b * tk + j) * width + h * dh + c];
          out[(b * tq + i) * width + h * dh + c] = o;
        }
      }
    }
  }
  return { out, weights };
}

for (const { name, sx } of all) {
  const { attention, SimplexityError } = sx;
  const MAPS = {
    softmax: { opts: {}, ref: (s) => refSoftmax(s) },
    sparsemax: { opts: {}, ref: (s) => refSparsemax(s) },
    entmax15: { opts: {}, ref: (s) => refEntmax(s, 1.5) },
    entmax: { opts: { alpha: 1.3 }, ref: (s) => refEntmax(s, 1.3) },
    // no independent float64 fusedmax here: the public fusedmax on the float32 scores
    fusedmax: { opts: { lambda: 0.3 }, ref: (s) => Array.from(sx.fusedmax(s, { lambda: 0.3 })) },
  };

  describe(`attention [${name} build]`, () => {
    test("a hand-computed example", () => {
      // one head, dh 2: q0 = (1, 0) scores keys (1, 0), (0, 1), (1, 1) as 1/sqrt2, 0, 1/sqrt2
      const r = attention([1, 0, 0, 1], [1, 0, 0, 1, 1, 1], [1, 2, 3, 4, 5, 6], { tq: 2, weights: true });
      const e = Math.exp(Math.SQRT1_2), w0 = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)];
      assertClose(r.weights.subarray(0, 3), w0, 1e-6, "weights row 0");
      assertClose(r.weights.subarray(3, 6), [w0[1], w0[0], w0[0]], 1e-6, "weights row 1");
      assertClose(r.out.subarray(0, 2), [w0[0] * 1 + w0[1] * 3 + w0[2] * 5, w0[0] * 2 + w0[1] * 4 + w0[2] * 6], 1e-6, "out row 0");
      // sparsemax of (0.707, 0, 0.707) is (0.5, 0, 0.5): output the mean of values 0 and 2
      const s = attention([1, 0], [1, 0, 0, 1, 1, 1], [1, 2, 3, 4, 5, 6], { tq: 1, mapping: "sparsemax", weights: true });
      assertClose(s.weights, [0.5, 0, 0.5], 1e-6, "sparsemax weights");
      assert.equal(s.weights[1], 0, "an exact zero");
      assertClose(s.out, [3, 4], 1e-6, "sparsemax out");
    });

    for (const [mapping, { opts, ref }] of Object.entries(MAPS)) {
      test(`${mapping}: float64 reference, every mask`, () => {
        const r = rng(11);
        const shapes = [
          { batch: 2, heads: 3, tq: 5, tk: 7, dh: 4 },
          { batch: 2, heads: 2, tq: 6, tk: 6, dh: 8, causal: true },
          { batch: 3, heads: 2, tq: 4, tk: 7, dh: 3, keyLengths: [7, 3, 0] },
          { batch: 3, heads: 1, tq: 7, tk: 7, dh: 5, causal: true, keyLengths: Int32Array.of(2, 7, 0) },
          { batch: 1, heads: 2, tq: 70, tk: 70, dh: 16, causal: true }, // the kernel's per-row windows
          { batch: 1, heads: 4, tq: 24, tk: 40, dh: 64 },
        ];
        for (const { dh, ...shape } of shapes) {
          const width = shape.heads * dh;
          const q = r.vector(shape.batch * shape.tq * width, 1.5);
          const k = r.vector(shape.batch * shape.tk * width);
          const v = r.vector(shape.batch * shape.tk * width);
          const what = `${mapping} ${JSON.stringify(shape)}`;
          const got = attention(q, k, v, { ...shape, mapping, ...opts, weights: true });
          const want = refAttention(q, k, v, shape, ref);
          assertClose(got.weights, want.weights, 3e-5, `${what} weights`);
          assertClose(got.out, want.out, 3e-5, `${what} out`);
          const klen = (b) => (shape.keyLengths ? shape.keyLengths[b] : shape.tk);
          for (let b = 0; b < shape.batch; b++) {
            for (let h = 0; h < shape.heads; h++) {
              for (let i = 0; i < shape.tq; i++) {
                const row = got.weights.subarray(((b * shape.heads + h) * shape.tq + i) * shape.tk, ((b * shape.heads + h) * shape.tq + i + 1) * shape.tk);
                for (let j = 0; j < shape.tk; j++) {
                  if (j >= klen(b) || (shape.causal && j > i)) assert.equal(row[j], 0, `${what}: masked weight [${b}, ${h}, ${i}, ${j}]`);
                }
                if (klen(b) === 0) assert.ok(row.every((x) => x === 0), `${what}: a row with no keys is all zeros`);
              }
            }
            if (klen(b) === 0) {
              const o = got.out.subarray(b * shape.tq * width, (b + 1) * shape.tq * width);
              assert.ok(o.every((x) => x === 0), `${what}: no keys, output 0`);
            }
          }
          assertOnSimplex(got.weights, shape.tk, 1e-5, what, { allowZeroRow: true });
          // without weights: the same output, bit for bit
          assert.deepEqual(attention(q, k, v, { ...shape, mapping, ...opts }), got.out, `${what}: without weights`);
        }
      });
    }

    test("sparse mappings give exact zeros, softmax none", () => {
      const r = rng(5);
      const q = r.vector(16 * 8, 4), k = r.vector(16 * 8, 4), v = r.vector(16 * 8);
      for (const mapping of ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax"]) {
        const { weights } = attention(q, k, v, { tq: 16, mapping, weights: true });
        const zeros = weights.filter((x) => x === 0).length;
        if (mapping === "softmax") assert.equal(zeros, 0);
        else assert.ok(zeros > 64, `${mapping}: only ${zeros} exact zeros of 256`);
      }
    });

    test("shapes: tk derived or checked, heads side by side, defaults", () => {
      const r = rng(3);
      const q = r.vector(2 * 3 * 8), k = r.vector(2 * 5 * 8), v = r.vector(2 * 5 * 8);
      const a = attention(q, k, v, { batch: 2, tq: 3, heads: 2 });
      assert.ok(a instanceof Float32Array && a.length === q.length);
      assert.deepEqual(attention(q, k, v, { batch: 2, tq: 3, tk: 5, heads: 2 }), a);
      // two heads of 4 = two one-head calls on the column halves
      const cols = (x, rows, lo) => Float32Array.from({ length: rows * 4 }, (_, i) => x[Math.floor(i / 4) * 8 + lo + (i % 4)]);
      for (const [h, lo] of [[0, 0], [1, 4]]) {
        const one = attention(cols(q, 6, lo), cols(k, 10, lo), cols(v, 10, lo), { batch: 2, tq: 3 });
        assert.deepEqual(cols(a, 6, lo), one, `head ${h}`);
      }
      // out and weights buffers are filled and returned
      const out = new Float32Array(q.length), weights = new Float32Array(2 * 2 * 3 * 5);
      const res = attention(q, k, v, { batch: 2, tq: 3, heads: 2, out, weights });
      assert.equal(res.out, out);
      assert.equal(res.weights, weights);
      assert.deepEqual(out, a);
      assertOnSimplex(weights, 5);
      // Float64Array and plain arrays are accepted
      assert.deepEqual(attention(Float64Array.from(q), Array.from(k), v, { batch: 2, tq: 3, heads: 2 }), a);
      // entmax with alpha 1 is softmax; fusedmax with lambda 0 is sparsemax
      assertClose(attention(q, k, v, { batch: 2, tq: 3, mapping: "entmax", alpha: 1 }), attention(q, k, v, { batch: 2, tq: 3 }), 1e-6);
      assertClose(attention(q, k, v, { batch: 2, tq: 3, mapping: "fusedmax", lambda: 0 }),
        attention(q, k, v, { batch: 2, tq: 3, mapping: "sparsemax" }), 1e-6);
      // the defaults: alpha 1.5, lambda 1
      assert.deepEqual(attention(q, k, v, { tq: 6, mapping: "entmax" }), attention(q, k, v, { tq: 6, mapping: "entmax15" }));
      assert.deepEqual(attention(q, k, v, { tq: 6, mapping: "fusedmax" }), attention(q, k, v, { tq: 6, mapping: "fusedmax", lambda: 1 }));
    });

    const Q = new Float32Array(2 * 3 * 4), K = new Float32Array(2 * 5 * 4), V = new Float32Array(2 * 5 * 4);
    const BASE = { batch: 2, tq: 3, heads: 2 };
    const CASES = [
      ["q type", () => attention("q", K, V, BASE), TypeError, 'attention: q must be a Float32Array, a WasmArray or an array of numbers (got "q")'],
      ["k type", () => attention(Q, null, V, BASE), TypeError, "attention: k must be a Float32Array, a WasmArray or an array of numbers (got null)"],
      ["v type", () => attention(Q, K, new Int32Array(40), BASE), TypeError, "attention: v must be a Float32Array, a WasmArray or an array of numbers (got a Int32Array)"],
      ["options type", () => attention(Q, K, V, 3), TypeError, "attention: options must be an object (got 3)"],
      ["tq missing", () => attention(Q, K, V, { batch: 2 }), TypeError, "attention: tq (queries per batch element) must be an integer >= 1 (got undefined)"],
      ["tq 0", () => attention(Q, K, V, { ...BASE, tq: 0 }), RangeError, "attention: tq (queries per batch element) must be an integer >= 1 (got 0)"],
      ["tq fractional", () => attention(Q, K, V, { ...BASE, tq: 1.5 }), RangeError, "attention: tq (queries per batch element) must be an integer >= 1 (got 1.5)"],
      ["heads 0", () => attention(Q, K, V, { ...BASE, heads: 0 }), RangeError, "attention: heads (the number of heads) must be an integer >= 1 (got 0)"],
      ["heads string", () => attention(Q, K, V, { ...BASE, heads: "2" }), TypeError, 'attention: heads (the number of heads) must be an integer >= 1 (got "2")'],
      ["batch NaN", () => attention(Q, K, V, { ...BASE, batch: NaN }), RangeError, "attention: batch (the number of batch elements) must be an integer >= 1 (got NaN)"],
      ["tk 0", () => attention(Q, K, V, { ...BASE, tk: 0 }), RangeError, "attention: tk (keys per batch element) must be an integer >= 1 (got 0)"],
      ["q not a multiple", () => attention(Q, K, V, { ...BASE, tq: 5 }), RangeError, "attention: q.length (24) must be a non-zero multiple of batch * tq (2 * 5)"],
      ["q empty", () => attention([], K, V, BASE), RangeError, "attention: q.length (0) must be a non-zero multiple of batch * tq (2 * 3)"],
      ["width vs heads", () => attention(Q, K, V, { ...BASE, heads: 3 }), RangeError, "attention: the width of q, q.length / (batch * tq) = 4, is not a multiple of heads (3)"],
      ["k not a multiple", () => attention(Q, new Float32Array(42), V, BASE), RangeError, "attention: k.length (42) must be a non-zero multiple of batch * width (2 * 4)"],
      ["k vs tk", () => attention(Q, K, V, { ...BASE, tk: 4 }), RangeError, "attention: k.length (40) must equal batch * tk * width (2 * 4 * 4 = 32)"],
      ["v length", () => attention(Q, K, new Float32Array(32), BASE), RangeError, "attention: v.length (32) must equal k.length (40)"],
      ["mapping type", () => attention(Q, K, V, { ...BASE, mapping: 1 }), TypeError, "attention: mapping must be a string (got 1)"],
      ["mapping unknown", () => attention(Q, K, V, { ...BASE, mapping: "oscarmax" }), RangeError, 'attention: mapping must be one of "softmax", "sparsemax", "entmax15", "entmax", "fusedmax" (got "oscarmax")'],
      ["alpha < 1", () => attention(Q, K, V, { ...BASE, mapping: "entmax", alpha: 0.5 }), RangeError, "attention: alpha must be >= 1 (got 0.5)"],
      ["alpha Infinity", () => attention(Q, K, V, { ...BASE, mapping: "entmax", alpha: Infinity }), RangeError, "attention: alpha must be finite (got Infinity)"],
      ["alpha without entmax", () => attention(Q, K, V, { ...BASE, alpha: 1.5 }), RangeError, 'attention: alpha applies to mapping "entmax" only (mapping is "softmax")'],
      ["lambda negative", () => attention(Q, K, V, { ...BASE, mapping: "fusedmax", lambda: -1 }), RangeError, "attention: lambda must be >= 0 (got -1)"],
      ["lambda without fusedmax", () => attention(Q, K, V, { ...BASE, mapping: "sparsemax", lambda: 1 }), RangeError, 'attention: lambda applies to mapping "fusedmax" only (mapping is "sparsemax")'],
      ["causal type", () => attention(Q, K, V, { ...BASE, causal: 1 }), TypeError, "attention: causal must be true or false (got 1)"],
      ["keyLengths type", () => attention(Q, K, V, { ...BASE, keyLengths: new Float32Array(2) }), TypeError, "attention: keyLengths must be an Array or an Int32Array of batch (2) integers (got a Float32Array)"],
      ["keyLengths length", () => attention(Q, K, V, { ...BASE, keyLengths: [5] }), RangeError, "attention: keyLengths.length (1) must equal batch (2)"],
      ["keyLengths too big", () => attention(Q, K, V, { ...BASE, keyLengths: [5, 6] }), RangeError, "attention: keyLengths[1] must be an integer in [0, tk = 5] (got 6)"],
      ["keyLengths negative", () => attention(Q, K, V, { ...BASE, keyLengths: [-1, 0] }), RangeError, "attention: keyLengths[0] must be an integer in [0, tk = 5] (got -1)"],
      ["keyLengths string", () => attention(Q, K, V, { ...BASE, keyLengths: ["5", 5] }), RangeError, 'attention: keyLengths[0] must be an integer in [0, tk = 5] (got "5")'],
      ["out type", () => attention(Q, K, V, { ...BASE, out: [] }), TypeError, "attention: out must be a Float32Array or a WasmArray (got an Array)"],
      ["out length", () => attention(Q, K, V, { ...BASE, out: new Float32Array(23) }), RangeError, "attention: out.length (23) must equal q.length (24)"],
      ["weights type", () => attention(Q, K, V, { ...BASE, weights: 1 }), TypeError, "attention: weights must be true, false or a Float32Array (got 1)"],
      ["weights length", () => attention(Q, K, V, { ...BASE, weights: new Float32Array(59) }), RangeError, "attention: weights.length (59) must equal batch * heads * tq * tk (60)"],
      ["q element", () => attention([...Q.subarray(1), "x"], K, V, BASE), TypeError, 'attention: q[23] must be a number (got "x")'],
    ];
    for (const [label, f, Cls, msg] of CASES) test(`argument error: ${label}`, () => throwsExactly(f, Cls, msg));

    test("C failures: non-finite inputs, overflowing scores; out untouched, later calls work", () => {
      const out = new Float32Array(24).fill(7), weights = new Float32Array(60).fill(7);
      const bad = (arr, i, x) => { const c = Float32Array.from(arr); c[i] = x; return c; };
      throwsExactly(() => attention(bad(Q, 5, NaN), K, V, { ...BASE, out, weights }), SimplexityError,
        "attention: q[5] must be finite (got NaN)", { code: 2, index: 5 });
      throwsExactly(() => attention(Q, bad(K, 39, -Infinity), V, { ...BASE, out }), SimplexityError,
        "attention: k[39] must be finite (got -Infinity)", { code: 2, index: 39 });
      throwsExactly(() => attention(Q, K, bad(V, 0, Infinity), { ...BASE, out, mapping: "sparsemax" }), SimplexityError,
        "attention: v[0] must be finite (got Infinity)", { code: 2, index: 0 });
      const big = new Float32Array(24).fill(3e38);
      throwsExactly(() => attention(big, new Float32Array(40).fill(3e38), V, { ...BASE, out }), SimplexityError,
        /^attention: a score q\.k \/ sqrt\(dh\) of batch element 0 overflows float/, { code: 2 });
      assert.ok(out.every((x) => x === 7) && weights.every((x) => x === 7), "out and weights untouched");
      const ok = attention(Q, K, V, { ...BASE, out, weights });
      assert.equal(ok.out, out);
      assert.ok(out.every((x) => x === 0), "zero values, zero output");
      assertOnSimplex(weights, 5);
    });
  });
}

describe("attention: SIMD and scalar builds agree", () => {
  test("every mapping, causal and padded", () => {
    const [a, b] = all.map((x) => x.sx);
    const r = rng(21);
    const shape = { batch: 2, heads: 4, tq: 33, tk: 33, causal: true, keyLengths: [33, 20] };
    const q = r.vector(2 * 33 * 64, 2), k = r.vector(2 * 33 * 64), v = r.vector(2 * 33 * 64);
    for (const [mapping, o] of [["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.3 }], ["fusedmax", { lambda: 0.3 }]]) {
      const x = a.attention(q, k, v, { ...shape, mapping, ...o, weights: true });
      const y = b.attention(q, k, v, { ...shape, mapping, ...o, weights: true });
      assertClose(x.weights, y.weights, 2e-5, `${mapping} weights`);
      assertClose(x.out, y.out, 2e-5, `${mapping} out`);
    }
  });

  // The scalar build's matmul is plain C (SIMDe's emulated vectors live in memory), written to
  // add the same products in the same order as the SIMD kernel: the two builds agree bit for
  // bit. Shapes with partial 4 x 8 blocks, one-column heads and more than 256 keys (the K blocks
  // of att v). (General alpha-entmax may take libm paths in the scalar build: closeness only.)
  test("bit for bit where the kernels are the same: matmul edges, K blocks", () => {
    const [a, b] = all.map((x) => x.sx);
    const r = rng(4);
    for (const [tq, tk, heads, dh, causal] of [[37, 301, 3, 12, false], [70, 70, 2, 9, true], [5, 3, 1, 1, false]]) {
      const q = r.vector(tq * heads * dh, 2), k = r.vector(tk * heads * dh), v = r.vector(tk * heads * dh);
      for (const [mapping, o] of [["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["fusedmax", { lambda: 0.3 }]]) {
        const opts = { tq, heads, causal, mapping, ...o, weights: true };
        const x = a.attention(q, k, v, opts), y = b.attention(q, k, v, opts);
        const what = `${mapping} tq ${tq} tk ${tk} heads ${heads} dh ${dh}${causal ? " causal" : ""}`;
        assert.ok(x.out.every((z, i) => Object.is(z, y.out[i])), `${what}: outputs differ between the builds`);
        assert.ok(x.weights.every((z, i) => Object.is(z, y.weights[i])), `${what}: weights differ between the builds`);
      }
    }
  });
});
