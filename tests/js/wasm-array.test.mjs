// wasm-array.test.mjs - caller-owned buffers (alloc() -> WasmArray): every mapping, backward
// pass and per-row function gives, from WasmArray inputs and into a WasmArray out, bit for bit
// what it gives from Float32Arrays; the core reads and writes them where they are (no scratch
// for them: memory does not grow on repeated calls), out may be x itself; the view is made again
// after memory grows; a freed array, one of a replaced instance, or one freed by user code
// during the call is a TypeError, never a use of freed memory; a failed call leaves out as it was.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, freshModule, BUILDS } from "./helpers.mjs";
import { mulberry32 } from "../../web/widgets/viz/mulberry32.js";

const all = await builds();
const bits = (a) => new Uint32Array(Float32Array.from(a).buffer);
const rows = 23, n = 7, len = rows * n;

function inputs(seed) {
  const rnd = mulberry32(seed);
  const x = new Float32Array(len), dy = new Float32Array(len);
  for (let i = 0; i < len; i++) {
    x[i] = (rnd() - 0.5) * 8;
    dy[i] = rnd() - 0.5;
  }
  x[3] = x[4]; // a tie
  x[10] = -Infinity;
  return { x, dy };
}

/** [name, forward(x, opts)] for every mapping, and [name, backward(x, dy, opts)]. */
const FORWARD = [
  ["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.3 }], ["entmax", { alpha: 2.6, temperature: 0.5 }],
  ["fusedmax", { lambda: 0.3 }], ["oscarmax", { beta: 0.1 }], ["sigmoid", {}], ["groupmax", { groups: [3, 2, 2], lambda: 0.2 }],
];
const BACKWARD = [
  ["softmaxBackward", {}], ["sparsemaxBackward", {}], ["entmax15Backward", {}], ["entmaxBackward", { alpha: 1.3 }],
  ["fusedmaxBackward", { lambda: 0.3 }], ["oscarmaxBackward", { beta: 0.1 }], ["sigmoidBackward", {}],
  ["groupmaxBackward", { groups: [3, 2, 2], lambda: 0.2 }],
];

for (const { name, sx } of all) {
  describe(`WasmArray [${name} build]`, () => {
    const { x, dy } = inputs(3);
    const wx = sx.alloc(len), wdy = sx.alloc(len);
    wx.array.set(x);
    wdy.array.set(dy);

    test("alloc: a zeroed array of the length asked, its view, instanceof; bad lengths", () => {
      const a = sx.alloc(10);
      assert.ok(a instanceof sx.WasmArray);
      assert.equal(a.length, 10);
      assert.equal(a.freed, false);
      assert.deepEqual(Array.from(a.array), new Array(10).fill(0));
      assert.equal(a.array, a.array, "the same view while memory does not grow");
      assert.equal(a.array.byteOffset % 16, 0, "16-byte aligned");
      a.free();
      a.free();
      assert.equal(a.freed, true);
      assert.throws(() => new sx.WasmArray(), (e) => e instanceof TypeError && e.message === "WasmArray: use alloc(length) to make one");
      for (const [v, E, what] of [[0, RangeError, "0"], [-1, RangeError, "-1"], [1.5, RangeError, "1.5"], [2 ** 31, RangeError, "2147483648"], ["3", TypeError, '"3"'], [undefined, TypeError, "undefined"]]) {
        assert.throws(() => sx.alloc(v), (e) => e instanceof E && e.message.startsWith("alloc: length must be an integer") && e.message.endsWith(`(got ${what})`), String(v));
      }
    });

    test("every mapping: WasmArray in, WasmArray out, and both, bit for bit the Float32Array results", () => {
      for (const [fn, o] of FORWARD) {
        const opts = { n, ...o };
        const want = sx[fn](x, opts);
        const out = sx.alloc(len);
        assert.equal(sx[fn](wx, { ...opts, out }), out, `${fn}: returns out`);
        assert.deepEqual(bits(out.array), bits(want), `${fn}(WasmArray) into a WasmArray`);
        assert.deepEqual(bits(sx[fn](wx, opts)), bits(want), `${fn}(WasmArray) into a new Float32Array`);
        assert.deepEqual(bits(sx[fn](x, { ...opts, out }).array), bits(want), `${fn}(Float32Array) into a WasmArray`);
        const f = new Float32Array(len);
        assert.equal(sx[fn](wx, { ...opts, out: f }), f);
        assert.deepEqual(bits(f), bits(want), `${fn}(WasmArray) into a Float32Array`);
        // in place: out is x itself
        const io = sx.alloc(len);
        io.array.set(x);
        assert.equal(sx[fn](io, { ...opts, out: io }), io);
        assert.deepEqual(bits(io.array), bits(want), `${fn} in place`);
        out.free();
        io.free();
      }
    });

    test("every backward pass: any of x, dy and out a WasmArray, out = x or dy in place", () => {
      for (const [fn, o] of BACKWARD) {
        const opts = { n, ...o };
        const want = sx[fn](x, dy, opts);
        const out = sx.alloc(len);
        for (const [a, b] of [[wx, wdy], [wx, dy], [x, wdy]]) {
          assert.deepEqual(bits(sx[fn](a, b, opts)), bits(want), `${fn}: inputs ${a === wx} ${b === wdy}`);
          assert.equal(sx[fn](a, b, { ...opts, out }), out);
          assert.deepEqual(bits(out.array), bits(want), `${fn}: into a WasmArray`);
        }
        for (const which of ["x", "dy"]) {
          const ax = sx.alloc(len), ad = sx.alloc(len);
          ax.array.set(x);
          ad.array.set(dy);
          const io = which === "x" ? ax : ad;
          assert.equal(sx[fn](ax, ad, { ...opts, out: io }), io);
          assert.deepEqual(bits(io.array), bits(want), `${fn}: out = ${which}`);
          ax.free();
          ad.free();
        }
        out.free();
      }
    });

    test("per-row functions, the Jacobian and the threshold take WasmArrays too", () => {
      const p = sx.sparsemax(x, { n });
      const wp = sx.alloc(len);
      wp.array.set(p);
      const r = sx.alloc(rows);
      assert.deepEqual(bits(sx.tsallisEntropy(wp, { n, alpha: 1.5, out: r }).array), bits(sx.tsallisEntropy(p, { n, alpha: 1.5 })));
      assert.deepEqual(bits(sx.entmaxAlphaGrad(wx, wdy, { n, alpha: 1.3, out: r }).array), bits(sx.entmaxAlphaGrad(x, dy, { n, alpha: 1.3 })));
      assert.deepEqual(bits(sx.threshold(wx, { n, mapping: "entmax", alpha: 1.4, out: r }).array), bits(sx.threshold(x, { n, mapping: "entmax", alpha: 1.4 })));
      const j = sx.alloc(rows * n * n);
      assert.deepEqual(bits(sx.jacobian(wx, { n, mapping: "entmax15", out: j }).array), bits(sx.jacobian(x, { n, mapping: "entmax15" })));
      wp.free();
      r.free();
      j.free();
    });

    test("attention and the building blocks copy from and into WasmArrays", () => {
      const rnd = mulberry32(9);
      const q = Float32Array.from({ length: 6 * 8 }, () => rnd() - 0.5);
      const wq = sx.alloc(q.length);
      wq.array.set(q);
      const opts = { heads: 2, tq: 6, mapping: "entmax15" };
      const out = sx.alloc(q.length);
      assert.equal(sx.attention(wq, wq, wq, { ...opts, out }), out);
      assert.deepEqual(bits(out.array), bits(sx.attention(q, q, q, opts)));
      assert.deepEqual(bits(sx.maskedMapping(wx, { n, validLengths: new Array(rows).fill(4), mapping: "sparsemax" })),
        bits(sx.maskedMapping(x, { n, validLengths: new Array(rows).fill(4), mapping: "sparsemax" })));
      wq.free();
      out.free();
    });

    test("no scratch for WasmArrays: repeated large calls do not grow memory, nor copy them", () => {
      const big = 1 << 20;
      const a = sx.alloc(big), b = sx.alloc(big);
      for (let i = 0; i < big; i++) a.array[i] = (i % 7) - 3;
      const round = () => {
        sx.sparsemax(a, { n: 4, out: b });
        sx.entmaxBackward(a, b, { n: 4, alpha: 1.3, out: b }); // out = dy: the result goes through scratch
        sx.softmaxBackward(b, a, { n: 4, out: a }); // out = dy again
      };
      round(); // the scratch region settles at one array's size
      const before = sx.info().memoryBytes;
      for (let k = 0; k < 20; k++) round();
      assert.equal(sx.info().memoryBytes, before);
      a.free();
      b.free();
    });

    test("the view is made again when memory grows; the data stays", () => {
      const a = sx.alloc(16);
      a.array.set(Float32Array.from({ length: 16 }, (_, i) => i + 0.5));
      const old = a.array;
      const before = sx.info().memoryBytes;
      const huge = sx.alloc(Math.ceil(before / 4) + 1); // more than the memory holds: it grows
      assert.ok(sx.info().memoryBytes > before);
      assert.equal(old.length, 0, "the old view's buffer was detached");
      assert.deepEqual(Array.from(a.array), Array.from({ length: 16 }, (_, i) => i + 0.5));
      assert.deepEqual(Array.from(sx.softmax(a, { n: 4 })), Array.from(sx.softmax(a.array, { n: 4 })));
      huge.free();
      a.free();
    });

    test("a freed array is a TypeError naming the function and the argument; a failed call leaves out as it was", () => {
      const a = sx.alloc(6), o = sx.alloc(6);
      o.array.fill(7);
      a.array.set([1, 2, NaN, 0, 1, 2]);
      assert.throws(() => sx.softmax(a, { n: 3, out: o }), (e) => e instanceof sx.SimplexityError && e.code === 2 && e.index === 2);
      assert.deepEqual(Array.from(o.array), [7, 7, 7, 7, 7, 7], "out untouched by the failed call");
      a.free();
      assert.throws(() => sx.softmax(a), (e) => e instanceof TypeError && e.message === "softmax: x is a freed WasmArray");
      assert.throws(() => sx.softmax([1, 2, 3, 4, 5, 6], { out: a }), (e) => e instanceof TypeError && e.message === "softmax: out is a freed WasmArray");
      assert.throws(() => sx.softmaxBackward(o, a), (e) => e instanceof TypeError && e.message === "softmaxBackward: dy is a freed WasmArray");
      assert.throws(() => a.array, (e) => e instanceof TypeError && e.message === "WasmArray.array: this WasmArray is a freed WasmArray");
      assert.throws(() => sx.softmax([1, 2, 3], { out: o }), (e) => e instanceof RangeError && e.message === "softmax: out.length (6) must equal x.length (3)");
      assert.throws(() => sx.softmax({ length: 3 }), (e) => e instanceof TypeError && e.message.startsWith("softmax: x must be a Float32Array, a WasmArray or an array of numbers"));
      o.free();
    });

    test("user code that frees an array during the call: a TypeError, not a use of freed memory", () => {
      const a = sx.alloc(6), o = sx.alloc(6);
      a.array.set([1, 2, 3, 0, 1, 2]);
      const dyArr = [0, 0, 0, 0, 0, 0];
      Object.defineProperty(dyArr, 5, { get() { a.free(); return 0; } });
      assert.throws(() => sx.softmaxBackward(a, dyArr, { n: 3, out: o }), (e) => e instanceof TypeError && e.message === "softmaxBackward: x is a freed WasmArray");
      const b = sx.alloc(6);
      const xArr = [1, 2, 3, 0, 1, 2];
      Object.defineProperty(xArr, 5, { get() { o.free(); return 2; } });
      assert.throws(() => sx.softmax(xArr, { n: 3, out: o }), (e) => e instanceof TypeError && e.message === "softmax: out is a freed WasmArray");
      b.free();
    });
  });
}

describe("WasmArray across the swap to the full core", () => {
  for (const b of BUILDS) {
    test(`[${b.name}] arrays of the mappings core are void once the full core replaces it`, async () => {
      const sx = await freshModule(`wasm-array-swap-${b.name}`);
      assert.throws(() => sx.alloc(3), (e) => e.message === "alloc: simplexity is not initialised yet: call `await init()` first");
      await sx.init({ core: "mappings", simd: b.simd });
      const a = sx.alloc(3);
      a.array.set([1.5, 0, 1]);
      assert.deepEqual(Array.from(sx.sparsemax(a).array ?? sx.sparsemax(a)), [0.75, 0, 0.25]);
      await sx.init();
      assert.equal(a.freed, true);
      assert.throws(() => sx.sparsemax(a), (e) => e instanceof TypeError &&
        e.message === "sparsemax: x is a WasmArray of the mappings core, which the full core has replaced: alloc() it again");
      a.free(); // harmless
      const c = sx.alloc(3);
      c.array.set([1.5, 0, 1]);
      assert.deepEqual(Array.from(sx.sparsemax(c)), [0.75, 0, 0.25]);
      c.free();
    });
  }
});
