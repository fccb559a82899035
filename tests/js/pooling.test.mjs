// pooling.test.mjs - spanMask, attentionPooling and attentionPoolingBackward on both wasm builds:
// against float64 references (the mask formula; Nadaraya-Watson pooling with the reference
// mappings of helpers.mjs), the gradient wrt w against central differences of the reference,
// leave-one-out masks, the edge cases (w = 0, huge w, one key left out, empty queries), the
// model's own spans, D2L's experiment (learning w lowers the leave-one-out error), memory that
// stays flat, SIMD vs scalar, and every error path with its exact message.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, assertOnSimplex, rng, refSoftmax, refSparsemax, refEntmax, throwsExactly } from "./helpers.mjs";

const all = await builds();

// ------------------------------------------------------------- float64 references
function refMask(d, z, ramp, maxSpan = 0) {
  const zz = maxSpan > 0 ? Math.min(z, maxSpan) : z;
  return d.map((x) => Math.min(1, Math.max(0, (ramp + zz - x) / ramp)));
}

const REF_MAPS = {
  softmax: (s) => refSoftmax(s),
  sparsemax: (s) => refSparsemax(s),
  entmax15: (s) => refEntmax(s, 1.5),
  entmax: (s, o) => refEntmax(s, o.alpha ?? 1.5),
};

/** { out, weights } in double: scores -((q - k) w)^2 / 2, key i masked for query i with loo. */
function refPool(q, k, v, { w = 1, mapping = "softmax", leaveOneOut = false, ...o } = {}) {
  const out = [], weights = [];
  q.forEach((qi, i) => {
    const s = Array.from(k, (kj, j) => (leaveOneOut && i === j ? -Infinity : -0.5 * ((qi - kj) * w) ** 2));
    const a = REF_MAPS[mapping](s, o);
    weights.push(...a);
    out.push(a.reduce((acc, aj, j) => acc + aj * v[j], 0));
  });
  return { out, weights };
}

/** D2L's data: n sorted inputs in [0, 5), 2 sin x + x^0.8 + N(0, 0.5); the test grid 0, 0.1, ... 4.9. */
function d2l(seed, n = 50) {
  const r = rng(seed);
  const x = Float32Array.from({ length: n }, () => 5 * r()).sort();
  const truth = (t) => 2 * Math.sin(t) + t ** 0.8;
  const y = x.map((t) => truth(t) + 0.5 * r.normal());
  const xt = Float32Array.from({ length: 50 }, (_, i) => i / 10);
  return { x, y, xt, yt: Array.from(xt, truth) };
}

const looLoss = (sx, x, y, opts) => {
  const { out } = sx.attentionPooling(x, x, y, { ...opts, leaveOneOut: true, weights: false });
  return out.reduce((s, o, i) => s + 0.5 * (o - y[i]) ** 2, 0) / x.length;
};

for (const { name, sx } of all) {
  describe(`spanMask [${name} build]`, () => {
    test("matches clamp((ramp + z - d) / ramp, 0, 1); 1 at distance 0; maxSpan clamps z", () => {
      const d = Array.from({ length: 101 }, (_, i) => i * 0.25);
      for (const z of [0, 0.5, 3, 7.25, 20]) {
        for (const ramp of [0.5, 1, 3, 8]) {
          assertClose(sx.spanMask(d, { z, ramp }), refMask(d, z, ramp), 1e-6, `z ${z} ramp ${ramp}`);
          assertClose(sx.spanMask(d, { z, ramp, maxSpan: 4 }), refMask(d, z, ramp, 4), 1e-6, `z ${z} maxSpan 4`);
        }
      }
      const m = sx.spanMask([0, 12, 13.5, 15, 100], { z: 12, ramp: 3 });
      assert.deepEqual(Array.from(m), [1, 1, 0.5, 0, 0]);
      assert.deepEqual(Array.from(sx.spanMask([0], { z: 0, ramp: 1e-3 })), [1]);
    });

    test("out, Float64Array input, empty input", () => {
      const out = new Float32Array(3).fill(9);
      assert.equal(sx.spanMask(new Float64Array([0, 2, 4]), { z: 1, ramp: 2, out }), out);
      assert.deepEqual(Array.from(out), [1, 0.5, 0]);
      assert.equal(sx.spanMask([], { z: 1, ramp: 1 }).length, 0);
    });

    test("the shipped span model's heads, through spanMask, give the model's attention zeros", async () => {
      const bytes = await readFile(new URL("../../web/models/reverse-alpha-span.sxm", import.meta.url));
      const model = sx.Model.load(bytes);
      try {
        const { span, spanRamp } = model.config;
        const spans = model.spans().decoder; // [layer][head], positions
        const src = sx.tasks.encode("reverse", "abcdefg");
        const tgt = sx.tasks.answer("reverse", [src], { count: 1 });
        const { attention } = model.forward([src], tgt);
        let checked = 0;
        for (const a of attention.filter((m) => m.kind === "decoder")) {
          const [, H, Tq, Tk] = a.shape;
          for (let h = 0; h < H; h++) {
            const z = spans[a.layer][h];
            for (let i = 0; i < Tq; i++) {
              const d = Array.from({ length: i + 1 }, (_, j) => i - j);
              const m = sx.spanMask(d, { z, ramp: spanRamp, maxSpan: span });
              for (let j = 0; j <= i; j++) {
                // a key outside span + ramp has weight exactly 0
                if (m[j] === 0) { assert.equal(a.data[((h * Tq) + i) * Tk + j], 0, `layer ${a.layer} head ${h} (${i}, ${j})`); checked++; }
              }
            }
          }
        }
        assert.ok(checked > 10, `only ${checked} masked keys checked`);
      } finally {
        model.free();
      }
    });
  });

  describe(`attentionPooling [${name} build]`, () => {
    const { x, y, xt } = d2l(7, 40);
    const cases = [
      ["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.3 }], ["entmax", { alpha: 2.5 }],
    ];

    test("matches the float64 reference for every mapping, w and leave-one-out", () => {
      for (const [mapping, extra] of cases) {
        for (const w of [0.3, 1, 2.5, 6]) {
          for (const loo of [false, true]) {
            const q = loo ? x : xt;
            const opts = { w, mapping, leaveOneOut: loo, ...extra };
            const { out, weights } = sx.attentionPooling(q, x, y, opts);
            const ref = refPool(Array.from(q), Array.from(x), Array.from(y), opts);
            assertClose(weights, ref.weights, 2e-5, `${mapping} w ${w} loo ${loo} weights`);
            assertClose(out, ref.out, 2e-5, `${mapping} w ${w} loo ${loo} out`);
            assertOnSimplex(weights, x.length, 1e-5, mapping);
            if (loo) for (let i = 0; i < x.length; i++) assert.equal(weights[i * x.length + i], 0, "own key masked");
          }
        }
      }
    });

    test("fusedmax with lambda 0 is sparsemax; with lambda > 0 neighbours fuse", () => {
      const a = sx.attentionPooling(xt, x, y, { w: 2, mapping: "fusedmax", lambda: 0 });
      const b = sx.attentionPooling(xt, x, y, { w: 2, mapping: "sparsemax" });
      assertClose(a.weights, b.weights, 1e-6, "lambda 0");
      const c = sx.attentionPooling(xt, x, y, { w: 2, mapping: "fusedmax", lambda: 0.1 });
      assertOnSimplex(c.weights, x.length, 1e-5, "fusedmax");
      assert.notDeepEqual(c.weights, b.weights);
    });

    test("sparse kernels have compact support: exact zeros far from the query, softmax none", () => {
      const zeros = (m) => sx.attentionPooling(xt, x, y, { w: 3, mapping: m }).weights.filter((v) => v === 0).length;
      assert.equal(zeros("softmax") < 0.5 * xt.length * x.length, true);
      for (const m of ["sparsemax", "entmax15"]) assert.ok(zeros(m) > 0.8 * xt.length * x.length, `${m}: ${zeros(m)} zeros`);
    });

    test("edge cases: w = 0 is the mean, huge w the nearest key, -w is w, one key left out is 0", () => {
      const k = [0, 1, 2, 3], v = [4, -1, 2, 7];
      for (const [mapping, extra] of cases) {
        const u = sx.attentionPooling([0.4, 2.9], k, v, { w: 0, mapping, ...extra });
        assertClose(u.weights, new Array(8).fill(0.25), 1e-6, `${mapping} w 0`);
        assertClose(u.out, [3, 3], 1e-6, `${mapping} w 0 out`);
        for (const w of [1e4, 1e30, 3.4e38]) {
          const h = sx.attentionPooling([0.4, 2.9], k, v, { w, mapping, ...extra });
          assert.deepEqual(Array.from(h.out), [4, 7], `${mapping} w ${w}`);
          const { dw } = sx.attentionPoolingBackward([0.4, 2.9], k, v, [1, -1], { w, mapping, ...extra });
          assert.ok(Number.isFinite(dw), `${mapping} w ${w}: dw ${dw}`);
        }
        const p = sx.attentionPooling([0.4, 2.9], k, v, { w: 1.7, mapping, ...extra });
        const m = sx.attentionPooling([0.4, 2.9], k, v, { w: -1.7, mapping, ...extra });
        assert.deepEqual(m, p, `${mapping}: -w is w`);
        const one = sx.attentionPooling([2], [2], [5], { w: 1, mapping, leaveOneOut: true, ...extra });
        assert.deepEqual([Array.from(one.out), Array.from(one.weights)], [[0], [0]], `${mapping}: nothing visible`);
        assert.equal(sx.attentionPoolingBackward([2], [2], [5], [1], { mapping, leaveOneOut: true, ...extra }).dw, 0);
      }
      const e = sx.attentionPooling([], k, v);
      assert.deepEqual([e.out.length, e.weights.length], [0, 0]);
      assert.equal(sx.attentionPoolingBackward([], k, v, []).dw, 0);
    });

    test("leave-one-out equals pooling without the query's own key", () => {
      for (const [mapping, extra] of cases) {
        const { out } = sx.attentionPooling(x, x, y, { w: 1.3, mapping, leaveOneOut: true, ...extra });
        for (const i of [0, 7, 39]) {
          const keep = (a) => Array.from(a).filter((_, j) => j !== i);
          const alone = sx.attentionPooling([x[i]], keep(x), keep(y), { w: 1.3, mapping, ...extra });
          assertClose([out[i]], alone.out, 1e-5, `${mapping} point ${i}`);
        }
      }
    });

    test("out and weights options; weights: false; results are copies", () => {
      const out = new Float32Array(xt.length), weights = new Float32Array(xt.length * x.length);
      const r = sx.attentionPooling(xt, x, y, { w: 2, out, weights });
      assert.equal(r.out, out);
      assert.equal(r.weights, weights);
      const r2 = sx.attentionPooling(xt, x, y, { w: 2, weights: false });
      assert.equal(r2.weights, null);
      assert.deepEqual(r2.out, out);
      const again = sx.attentionPooling(xt, x, y, { w: 5 });
      assert.notDeepEqual(again.out, out, "a later call does not change earlier results");
    });
  });

  describe(`attentionPoolingBackward [${name} build]`, () => {
    const { x, y, xt } = d2l(11, 30);
    test("dw matches central differences of the float64 reference (every mapping, loo or not)", () => {
      const r = rng(5);
      let compared = 0, kinks = 0;
      for (const [mapping, extra] of [["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.3 }]]) {
        for (const w of [0.5, 1.2, 3]) {
          for (const loo of [false, true]) {
            const q = loo ? x : xt;
            const dy = Array.from(q, () => r.normal());
            const opts = { w, mapping, leaveOneOut: loo, ...extra };
            const { dw } = sx.attentionPoolingBackward(q, x, y, dy, opts);
            const L = (ww) => refPool(Array.from(q), Array.from(x), Array.from(y), { ...opts, w: ww }).out.reduce((s, o, i) => s + o * dy[i], 0);
            const h = 1e-5 * w, l0 = L(w), lp = L(w + h), lm = L(w - h);
            const fd = (lp - lm) / (2 * h), tol = 2e-3 * (1 + Math.abs(fd));
            if (Math.abs((lp - l0) - (l0 - lm)) / h > tol) { kinks++; continue; } // a support change within h
            compared++;
            assert.ok(Math.abs(dw - fd) <= tol, `${mapping} w ${w} loo ${loo}: dw ${dw} vs differences ${fd}`);
          }
        }
      }
      assert.ok(compared >= 20 && kinks <= 4, `${compared} compared, ${kinks} at kinks`);
    });

    test("D2L: gradient descent on w lowers the leave-one-out error for every mapping", () => {
      const data = d2l(3);
      for (const [mapping, extra] of [["softmax", {}], ["sparsemax", {}], ["entmax15", {}]]) {
        let w = 0.3;
        const before = looLoss(sx, data.x, data.y, { w, mapping, ...extra });
        for (let step = 0; step < 100; step++) {
          const { out } = sx.attentionPooling(data.x, data.x, data.y, { w, mapping, leaveOneOut: true, weights: false, ...extra });
          const dy = Array.from(out, (o, i) => (o - data.y[i]) / data.x.length);
          const { dw } = sx.attentionPoolingBackward(data.x, data.x, data.y, dy, { w, mapping, leaveOneOut: true, ...extra });
          w *= Math.exp(-0.5 * w * dw); // descent on log w
        }
        const after = looLoss(sx, data.x, data.y, { w, mapping, ...extra });
        assert.ok(after < 0.9 * before && w > 0.6, `${mapping}: ${before} -> ${after} (w 0.3 -> ${w})`);
      }
    });
  });

  describe(`span and pooling errors [${name} build]`, () => {
    const { SimplexityError } = sx;
    const K = [0, 1, 2], V = [1, 2, 3];
    const CASES = [
      // spanMask
      ["distances type", () => sx.spanMask("abc", { z: 1, ramp: 1 }), TypeError, 'spanMask: distances must be a Float32Array, a WasmArray or an array of numbers (got "abc")'],
      ["distances element", () => sx.spanMask([0, "1"], { z: 1, ramp: 1 }), TypeError, 'spanMask: distances[1] must be a number (got "1")'],
      ["span options", () => sx.spanMask([0], 5), TypeError, "spanMask: options must be an object (got 5)"],
      ["z missing", () => sx.spanMask([0], { ramp: 1 }), TypeError, "spanMask: z must be a number (got undefined)"],
      ["z string", () => sx.spanMask([0], { z: "1", ramp: 1 }), TypeError, 'spanMask: z must be a number (got "1")'],
      ["z negative", () => sx.spanMask([0], { z: -1, ramp: 1 }), RangeError, "spanMask: z must be >= 0 (got -1)"],
      ["z NaN", () => sx.spanMask([0], { z: NaN, ramp: 1 }), RangeError, "spanMask: z must be >= 0 (got NaN)"],
      ["z Infinity", () => sx.spanMask([0], { z: Infinity, ramp: 1 }), RangeError, "spanMask: z must be finite (got Infinity)"],
      ["ramp missing", () => sx.spanMask([0], { z: 1 }), TypeError, "spanMask: ramp must be a number (got undefined)"],
      ["ramp 0", () => sx.spanMask([0], { z: 1, ramp: 0 }), RangeError, "spanMask: ramp must be > 0 (got 0)"],
      ["ramp below float32", () => sx.spanMask([0], { z: 1, ramp: 1e-50 }), RangeError, "spanMask: ramp must be > 0 in float32 (got 1e-50, which is 0 in float32)"],
      ["ramp huge", () => sx.spanMask([0], { z: 1, ramp: 1e39 }), RangeError, "spanMask: ramp must be finite (got 1e+39)"],
      ["maxSpan 0", () => sx.spanMask([0], { z: 1, ramp: 1, maxSpan: 0 }), RangeError, "spanMask: maxSpan must be > 0 (got 0)"],
      ["maxSpan string", () => sx.spanMask([0], { z: 1, ramp: 1, maxSpan: "4" }), TypeError, 'spanMask: maxSpan must be a number (got "4")'],
      ["span out type", () => sx.spanMask([0, 1], { z: 1, ramp: 1, out: [0, 0] }), TypeError, "spanMask: out must be a Float32Array or a WasmArray (got an Array)"],
      ["span out length", () => sx.spanMask([0, 1], { z: 1, ramp: 1, out: new Float32Array(3) }), RangeError, "spanMask: out.length (3) must equal distances.length (2)"],
      // attentionPooling
      ["queries type", () => sx.attentionPooling(null, K, V), TypeError, "attentionPooling: queries must be a Float32Array, a WasmArray or an array of numbers (got null)"],
      ["keys type", () => sx.attentionPooling([0], new Int32Array(3), V), TypeError, "attentionPooling: keys must be a Float32Array, a WasmArray or an array of numbers (got a Int32Array)"],
      ["values type", () => sx.attentionPooling([0], K, "v"), TypeError, 'attentionPooling: values must be a Float32Array, a WasmArray or an array of numbers (got "v")'],
      ["queries element", () => sx.attentionPooling([0, null], K, V), TypeError, "attentionPooling: queries[1] must be a number (got null)"],
      ["values element", () => sx.attentionPooling([0], K, [1, 2, "3"]), TypeError, 'attentionPooling: values[2] must be a number (got "3")'],
      ["keys empty", () => sx.attentionPooling([0], [], []), RangeError, "attentionPooling: keys must not be empty"],
      ["values length", () => sx.attentionPooling([0], K, [1, 2]), RangeError, "attentionPooling: values.length (2) must equal keys.length (3)"],
      ["too many weights", () => sx.attentionPooling(new Array(10000), new Array(10000), new Array(10000)), RangeError, "attentionPooling: queries.length * keys.length (10000 * 10000) is more than 67108863 weights (the core's temporaries would need 3200000000 bytes)"],
      ["pool options", () => sx.attentionPooling([0], K, V, "w"), TypeError, 'attentionPooling: options must be an object (got "w")'],
      ["w string", () => sx.attentionPooling([0], K, V, { w: "2" }), TypeError, 'attentionPooling: w must be a number (got "2")'],
      ["w NaN", () => sx.attentionPooling([0], K, V, { w: NaN }), RangeError, "attentionPooling: w must be finite in float32 (got NaN)"],
      ["w huge", () => sx.attentionPooling([0], K, V, { w: -1e39 }), RangeError, "attentionPooling: w must be finite in float32 (got -1e+39)"],
      ["mapping type", () => sx.attentionPooling([0], K, V, { mapping: 1 }), TypeError, "attentionPooling: mapping must be a string (got 1)"],
      ["mapping name", () => sx.attentionPooling([0], K, V, { mapping: "oscarmax" }), RangeError, 'attentionPooling: mapping must be one of "softmax", "sparsemax", "entmax15", "entmax", "fusedmax" (got "oscarmax")'],
      ["alpha with softmax", () => sx.attentionPooling([0], K, V, { alpha: 1.5 }), RangeError, 'attentionPooling: alpha applies to mapping "entmax" only (mapping is "softmax")'],
      ["alpha < 1", () => sx.attentionPooling([0], K, V, { mapping: "entmax", alpha: 0.5 }), RangeError, "attentionPooling: alpha must be >= 1 (got 0.5)"],
      ["lambda with entmax", () => sx.attentionPooling([0], K, V, { mapping: "entmax", lambda: 1 }), RangeError, 'attentionPooling: lambda applies to mapping "fusedmax" only (mapping is "entmax")'],
      ["lambda < 0", () => sx.attentionPooling([0], K, V, { mapping: "fusedmax", lambda: -1 }), RangeError, "attentionPooling: lambda must be >= 0 (got -1)"],
      ["leaveOneOut type", () => sx.attentionPooling([0], K, V, { leaveOneOut: 1 }), TypeError, "attentionPooling: leaveOneOut must be true or false (got 1)"],
      ["leaveOneOut shape", () => sx.attentionPooling([0], K, V, { leaveOneOut: true }), RangeError, "attentionPooling: leaveOneOut needs queries.length (1) to equal keys.length (3): the queries are the keys"],
      ["pool out type", () => sx.attentionPooling([0], K, V, { out: new Float64Array(1) }), TypeError, "attentionPooling: out must be a Float32Array or a WasmArray (got a Float64Array)"],
      ["pool out length", () => sx.attentionPooling([0], K, V, { out: new Float32Array(2) }), RangeError, "attentionPooling: out.length (2) must equal queries.length (1)"],
      ["weights type", () => sx.attentionPooling([0], K, V, { weights: [] }), TypeError, "attentionPooling: weights must be true, false or a Float32Array (got an Array)"],
      ["weights length", () => sx.attentionPooling([0], K, V, { weights: new Float32Array(2) }), RangeError, "attentionPooling: weights.length (2) must equal queries.length * keys.length (3)"],
      // attentionPoolingBackward
      ["dy type", () => sx.attentionPoolingBackward([0], K, V, 1), TypeError, "attentionPoolingBackward: dy must be a Float32Array, a WasmArray or an array of numbers (got 1)"],
      ["dy length", () => sx.attentionPoolingBackward([0], K, V, [1, 2]), RangeError, "attentionPoolingBackward: dy.length (2) must equal queries.length (1)"],
      ["dy element", () => sx.attentionPoolingBackward([0], K, V, ["1"]), TypeError, 'attentionPoolingBackward: dy[0] must be a number (got "1")'],
      ["backward mapping", () => sx.attentionPoolingBackward([0], K, V, [1], { mapping: "max" }), RangeError, 'attentionPoolingBackward: mapping must be one of "softmax", "sparsemax", "entmax15", "entmax", "fusedmax" (got "max")'],
      ["backward keys", () => sx.attentionPoolingBackward([0], undefined, V, [1]), TypeError, "attentionPoolingBackward: keys must be a Float32Array, a WasmArray or an array of numbers (got undefined)"],
    ];

    test("every bad argument: error type and message naming function, argument and value", () => {
      for (const [label, call, Cls, message] of CASES) {
        try {
          throwsExactly(call, Cls, message);
        } catch (e) {
          e.message = `${label}: ${e.message}`;
          throw e;
        }
      }
    });

    test("non-finite data: SimplexityError from the C core with the code, the index and the array's name", () => {
      throwsExactly(() => sx.spanMask([0, 1, NaN], { z: 1, ramp: 1 }), SimplexityError, "spanMask: distances[2] must be finite and >= 0 (got NaN)", { code: 2, index: 2 });
      throwsExactly(() => sx.spanMask([0, Infinity], { z: 1, ramp: 1 }), SimplexityError, "spanMask: distances[1] must be finite and >= 0 (got Infinity)", { code: 2, index: 1 });
      throwsExactly(() => sx.spanMask([0, -1], { z: 1, ramp: 1 }), SimplexityError, "spanMask: distances[1] must be finite and >= 0 (got -1)", { code: 1 });
      throwsExactly(() => sx.attentionPooling([0, NaN], K, V), SimplexityError, "attentionPooling: queries[1] must be finite (got NaN)", { code: 2, index: 1 });
      throwsExactly(() => sx.attentionPooling([0], [0, Infinity, 1], V), SimplexityError, "attentionPooling: keys[1] must be finite (got Infinity)", { code: 2, index: 1 });
      throwsExactly(() => sx.attentionPooling([0], K, [1, 2, -Infinity]), SimplexityError, "attentionPooling: values[2] must be finite (got -Infinity)", { code: 2, index: 2 });
      throwsExactly(() => sx.attentionPoolingBackward([0], K, V, [NaN]), SimplexityError, "attentionPoolingBackward: dy[0] must be finite (got NaN)", { code: 2, index: 0 });
      throwsExactly(() => sx.attentionPoolingBackward([NaN], K, V, [1]), SimplexityError, "attentionPoolingBackward: queries[0] must be finite (got NaN)", { code: 2, index: 0 });
    });

    test("an error changes nothing: out and weights untouched; a later call works", () => {
      const out = new Float32Array(2).fill(42), weights = new Float32Array(6).fill(42);
      assert.throws(() => sx.attentionPooling([0, NaN], K, V, { out, weights }), SimplexityError);
      assert.throws(() => sx.attentionPooling([0, 1], K, V, { out, weights, w: NaN }), RangeError);
      assert.ok(out.every((v) => v === 42) && weights.every((v) => v === 42), "untouched");
      const m = new Float32Array(2).fill(42);
      assert.throws(() => sx.spanMask([0, NaN], { z: 1, ramp: 1, out: m }), SimplexityError);
      assert.ok(m.every((v) => v === 42), "mask untouched");
      sx.attentionPooling([0, 1], K, V, { out, weights, w: 0 });
      assertClose(out, [2, 2], 1e-6, "later call");
    });
  });

  describe(`span and pooling memory [${name} build]`, () => {
    test("thousands of calls (each mallocs and frees its C scratch) do not grow memory", () => {
      const { x, y, xt } = d2l(2);
      sx.attentionPooling(xt, x, y);
      sx.attentionPoolingBackward(x, x, y, x, { leaveOneOut: true });
      const before = sx.info().memoryBytes;
      for (let i = 0; i < 3000; i++) {
        sx.attentionPooling(xt, x, y, { w: 1 + i / 1000, mapping: i % 2 ? "sparsemax" : "softmax" });
        sx.attentionPoolingBackward(x, x, y, x, { w: 2, leaveOneOut: true });
        sx.spanMask(xt, { z: 2, ramp: 1 });
      }
      assert.equal(sx.info().memoryBytes, before);
    });
  });
}

describe("span and pooling: SIMD and scalar builds agree", () => {
  test("to ~1e-6", () => {
    const [a, b] = all.map((x) => x.sx);
    const { x, y, xt } = d2l(9);
    for (const mapping of ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax"]) {
      for (const loo of [false, true]) {
        const q = loo ? x : xt;
        const o = { w: 2.2, mapping, leaveOneOut: loo };
        const pa = a.attentionPooling(q, x, y, o), pb = b.attentionPooling(q, x, y, o);
        assertClose(pa.weights, pb.weights, 2e-6, `${mapping} weights`);
        assertClose(pa.out, pb.out, 2e-6, `${mapping} out`);
        const ga = a.attentionPoolingBackward(q, x, y, q, o).dw, gb = b.attentionPoolingBackward(q, x, y, q, o).dw;
        assertClose([ga], [gb], 1e-5, `${mapping} dw`);
      }
    }
    assertClose(a.spanMask(xt, { z: 1.3, ramp: 0.7 }), b.spanMask(xt, { z: 1.3, ramp: 0.7 }), 0, "mask");
  });
});
