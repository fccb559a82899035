// errors.test.mjs - every bad input gets the right error type and a message naming the
// function, the argument and the value; an error changes nothing (out untouched) and a later
// call works; init() failures say what to do and can be retried. On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builds, freshModule, DIST, assertClose, throwsExactly } from "./helpers.mjs";

const X3 = [1.5, 0, 1];
const DY3 = [1, -2, 0.5];

for (const { name, sx } of await builds()) {
  const { SimplexityError } = sx;

  // [label, call, error class, message] - the argument checks JS does before crossing into wasm.
  const CASES = [
    // x and dy types
    ["x string", () => sx.softmax("abc"), TypeError, 'softmax: x must be a Float32Array, a WasmArray or an array of numbers (got "abc")'],
    ["x null", () => sx.sparsemax(null), TypeError, "sparsemax: x must be a Float32Array, a WasmArray or an array of numbers (got null)"],
    ["x undefined", () => sx.entmax(), TypeError, "entmax: x must be a Float32Array, a WasmArray or an array of numbers (got undefined)"],
    ["x Int32Array", () => sx.entmax15(new Int32Array(3)), TypeError, "entmax15: x must be a Float32Array, a WasmArray or an array of numbers (got a Int32Array)"],
    ["x number", () => sx.fusedmax(3), TypeError, "fusedmax: x must be a Float32Array, a WasmArray or an array of numbers (got 3)"],
    ["x element string", () => sx.softmax([1, "2", 3]), TypeError, 'softmax: x[1] must be a number (got "2")'],
    ["x element undefined (hole)", () => sx.oscarmax([1, , 3]), TypeError, "oscarmax: x[1] must be a number (got undefined)"], // eslint-disable-line no-sparse-arrays
    ["dy type", () => sx.softmaxBackward(X3, "dy"), TypeError, 'softmaxBackward: dy must be a Float32Array, a WasmArray or an array of numbers (got "dy")'],
    ["dy element", () => sx.entmaxBackward(X3, [1, null, 2]), TypeError, "entmaxBackward: dy[1] must be a number (got null)"],
    ["p type", () => sx.tsallisEntropy({}), TypeError, "tsallisEntropy: p must be a Float32Array, a WasmArray or an array of numbers (got an object (Object))"],
    ["options type", () => sx.softmax(X3, 3), TypeError, "softmax: options must be an object (got 3)"],
    // shapes
    ["length not a multiple of n", () => sx.softmax(new Float32Array(7), { n: 3 }), RangeError, "softmax: x.length (7) is not a multiple of n (3)"],
    ["n = 0", () => sx.entmax(X3, { n: 0 }), RangeError, "entmax: n must be an integer >= 1 (got 0)"],
    ["n negative", () => sx.sparsemax(X3, { n: -3 }), RangeError, "sparsemax: n must be an integer >= 1 (got -3)"],
    ["n fractional", () => sx.sparsemax(X3, { n: 1.5 }), RangeError, "sparsemax: n must be an integer >= 1 (got 1.5)"],
    ["n NaN", () => sx.softmax(X3, { n: NaN }), RangeError, "softmax: n must be an integer >= 1 (got NaN)"],
    ["n string", () => sx.softmax(X3, { n: "3" }), TypeError, 'softmax: n must be an integer >= 1 (got "3")'],
    ["dy length", () => sx.sparsemaxBackward(X3, [1, 2]), RangeError, "sparsemaxBackward: dy.length (2) must equal x.length (3)"],
    ["alpha grad dy length", () => sx.entmaxAlphaGrad(X3, [1, 2, 3, 4]), RangeError, "entmaxAlphaGrad: dy.length (4) must equal x.length (3)"],
    ["p length", () => sx.tsallisEntropy([0.5, 0.5, 0], { n: 2 }), RangeError, "tsallisEntropy: p.length (3) is not a multiple of n (2)"],
    // parameters
    ["alpha < 1", () => sx.entmax(X3, { alpha: 0.5 }), RangeError, "entmax: alpha must be >= 1 (got 0.5)"],
    ["alpha NaN", () => sx.entmax(X3, { alpha: NaN }), RangeError, "entmax: alpha must be >= 1 (got NaN)"],
    ["alpha Infinity", () => sx.entmax(X3, { alpha: Infinity }), RangeError, "entmax: alpha must be finite (got Infinity)"],
    ["alpha string", () => sx.entmax(X3, { alpha: "2" }), TypeError, 'entmax: alpha must be a number (got "2")'],
    ["backward alpha", () => sx.entmaxBackward(X3, DY3, { alpha: 0.99 }), RangeError, "entmaxBackward: alpha must be >= 1 (got 0.99)"],
    ["alpha grad alpha", () => sx.entmaxAlphaGrad(X3, DY3, { alpha: -1 }), RangeError, "entmaxAlphaGrad: alpha must be >= 1 (got -1)"],
    ["lambda negative", () => sx.fusedmax(X3, { lambda: -1 }), RangeError, "fusedmax: lambda must be >= 0 (got -1)"],
    ["lambda NaN", () => sx.fusedmaxBackward(X3, DY3, { lambda: NaN }), RangeError, "fusedmaxBackward: lambda must be >= 0 (got NaN)"],
    ["beta negative", () => sx.oscarmax(X3, { beta: -0.5 }), RangeError, "oscarmax: beta must be >= 0 (got -0.5)"],
    ["beta Infinity", () => sx.oscarmaxBackward(X3, DY3, { beta: Infinity }), RangeError, "oscarmaxBackward: beta must be finite (got Infinity)"],
    ["entropy alpha 0", () => sx.tsallisEntropy([0.5, 0.5], { alpha: 0 }), RangeError, "tsallisEntropy: alpha must be > 0 (got 0)"],
    // temperature
    ["T = 0", () => sx.softmax(X3, { temperature: 0 }), RangeError, "softmax: temperature must be finite and > 0 (got 0)"],
    ["T negative", () => sx.sparsemax(X3, { temperature: -1 }), RangeError, "sparsemax: temperature must be finite and > 0 (got -1)"],
    ["T NaN", () => sx.entmax(X3, { temperature: NaN }), RangeError, "entmax: temperature must be finite and > 0 (got NaN)"],
    ["T Infinity", () => sx.entmax15Backward(X3, DY3, { temperature: Infinity }), RangeError, "entmax15Backward: temperature must be finite and > 0 (got Infinity)"],
    ["T string", () => sx.softmax(X3, { temperature: "1" }), TypeError, 'softmax: temperature must be a number (got "1")'],
    ["T below float32", () => sx.softmax(X3, { temperature: 1e-50 }), RangeError, "softmax: temperature must be finite and > 0 in float32 (got 1e-50, which is 0 in float32)"],
    // out
    ["out type", () => sx.softmax(X3, { out: new Float64Array(3) }), TypeError, "softmax: out must be a Float32Array or a WasmArray (got a Float64Array)"],
    ["out array", () => sx.softmax(X3, { out: [0, 0, 0] }), TypeError, "softmax: out must be a Float32Array or a WasmArray (got an Array)"],
    ["out length", () => sx.softmax(X3, { out: new Float32Array(2) }), RangeError, "softmax: out.length (2) must equal x.length (3)"],
    ["backward out length", () => sx.softmaxBackward(X3, DY3, { out: new Float32Array(4) }), RangeError, "softmaxBackward: out.length (4) must equal x.length (3)"],
    ["alpha grad out length", () => sx.entmaxAlphaGrad([1, 2, 3, 4], [1, 1, 1, 1], { n: 2, out: new Float32Array(4) }), RangeError, "entmaxAlphaGrad: out.length (4) must equal the number of rows (2)"],
    ["entropy out length", () => sx.tsallisEntropy([0.5, 0.5], { out: new Float32Array(2) }), RangeError, "tsallisEntropy: out.length (2) must equal the number of rows (1)"],
    // too large for a wasm32 memory (a sparse Array: nothing is allocated on the JS side)
    ["too large", () => sx.softmax(new Array(600_000_000), { n: 3 }), RangeError, /^softmax: input too large: it needs 4800000000 bytes of wasm memory/],
  ];

  describe(`errors [${name} build]`, () => {
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

    test("NaN and +Infinity scores: SimplexityError from the C core with code 2 and index", () => {
      const x = [0, 1, 2, 3, 4, NaN];
      throwsExactly(() => sx.softmax(x, { n: 3 }), SimplexityError, /^softmax: x\[5\] .*\(got NaN\)$/, { code: 2, index: 5 });
      throwsExactly(() => sx.entmax([1, Infinity, 0]), SimplexityError, /^entmax: x\[1\] .*\(got Infinity\)$/, { code: 2, index: 1 });
      throwsExactly(() => sx.sparsemaxBackward(X3, [0, NaN, 0]), SimplexityError, /^sparsemaxBackward: dy\[1\] .*NaN/, { code: 2, index: 1 });
      throwsExactly(() => sx.tsallisEntropy([0.5, -0.5, 1]), SimplexityError, /^tsallisEntropy: p\[1\] .*-0\.5/, { code: 2, index: 1 });
      const e = (() => { try { sx.oscarmax([NaN]); } catch (err) { return err; } })();
      assert.ok(e instanceof Error && e.name === "SimplexityError");
    });

    test("inputs too large for memory: SimplexityError code 3, and memory does not grow", () => {
      const before = sx.info().memoryBytes;
      // 2 * 268435448 floats = 2147483584 bytes: an int, but more than fits beside the heap.
      // (A Float32Array: its 1 GiB of zeros is never touched, so never paged in.)
      throwsExactly(() => sx.softmax(new Float32Array(268_435_448), { n: 1 }), SimplexityError, /^softmax: out of wasm memory/, { code: 3 });
      assert.equal(sx.info().memoryBytes, before);
      // The same size as a (sparse) Array: its elements are checked first, so the hole is found
      // before any wasm memory is asked for.
      throwsExactly(() => sx.softmax(new Array(268_435_448), { n: 1 }), TypeError, "softmax: x[0] must be a number (got undefined)");
      assert.equal(sx.info().memoryBytes, before);
      assertClose(sx.sparsemax([1.5, 0, 1]), [0.75, 0, 0.25], 1e-6, "after ENOMEM");
    });

    test("an error changes nothing: out and x untouched; a later valid call works", () => {
      const fill = (len) => new Float32Array(len).fill(42);
      const untouched = (out) => assert.ok(out.every((v) => v === 42), `out was changed: ${out}`);
      const x = Float32Array.from([0.2, 0.1, NaN, 3, 1, 2]);
      const xCopy = Float32Array.from(x);
      let out = fill(6);
      assert.throws(() => sx.entmax(x, { n: 3, out }), SimplexityError);
      untouched(out);
      assert.ok(x.every((v, i) => Object.is(v, xCopy[i])), "x changed");
      assert.throws(() => sx.entmax(x, { n: 3, alpha: 0, out }), RangeError);
      untouched(out);
      assert.throws(() => sx.softmax([1, 2, "3", 4, 5, 6], { n: 3, out }), TypeError);
      untouched(out);
      assert.throws(() => sx.softmaxBackward([1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, Infinity], { n: 3, out }), SimplexityError);
      untouched(out);
      assert.throws(() => sx.fusedmax([1, 2, 3, 4, 5, 6], { n: 3, temperature: -2, out }), RangeError);
      untouched(out);
      // A big batch (the TypedArray.set path) with the NaN in the last row.
      const big = new Float32Array(3 * 1000).fill(0.5);
      big[big.length - 1] = NaN;
      out = fill(big.length);
      assert.throws(() => sx.sparsemax(big, { n: 3, out }), SimplexityError);
      untouched(out);
      const h = fill(2);
      assert.throws(() => sx.tsallisEntropy([0.5, 0.5, NaN, 1], { n: 2, out: h }), SimplexityError);
      untouched(h);
      const da = fill(2);
      assert.throws(() => sx.entmaxAlphaGrad([1, 2, 3, 4], [1, 1, 1, NaN], { n: 2, out: da }), SimplexityError);
      untouched(da);
      // A later valid call works, into the same out.
      out = fill(3);
      assert.equal(sx.sparsemax([1.5, 0, 1], { out }), out);
      assertClose(out, [0.75, 0, 0.25], 1e-6, "later call");
    });

    test("init(): idempotent, and refuses to switch builds after the first call", async () => {
      const simd = name === "simd";
      assert.equal(sx.init(), sx.init());
      assert.equal(sx.init({ simd }), sx.init());
      await assert.rejects(sx.init({ simd: !simd }), (e) => {
        assert.equal(e.constructor, Error);
        assert.match(e.message, new RegExp(`^init: simplexity is already initialised with the ${simd ? "SIMD" : "scalar"} build`));
        return true;
      });
      await assert.rejects(sx.init("yes"), { name: "TypeError", message: 'init: options must be an object (got "yes")' });
      await assert.rejects(sx.init({ simd: 1 }), { name: "TypeError", message: "init: simd must be true, false or undefined (got 1)" });
      assert.equal((await sx.init()).simd, simd);
    });
  });
}

describe("before and around init()", () => {
  test("calls before init() throw an Error telling to await init()", async () => {
    const sx = await freshModule("uninitialised");
    for (const call of [() => sx.softmax([1, 2]), () => sx.entmaxBackward([1], [1]), () => sx.info(), () => sx.tsallisEntropy([1])]) {
      assert.throws(call, (e) => {
        assert.equal(e.constructor, Error);
        assert.match(e.message, /^\w+: simplexity is not initialised yet: call `await init\(\)` first$/);
        return true;
      });
    }
  });

  test("a failed init() says what to do and can be retried", async () => {
    const sx = await freshModule("retry");
    const missing = new URL("no-such-file.wasm", DIST);
    await assert.rejects(sx.init({ url: missing }), (e) => {
      assert.match(e.message, /^simplexity: failed to read .*no-such-file\.wasm: ENOENT \(run `make` to build dist\/, or pass init\(\{ url \}\) or init\(\{ bytes \}\)\)$/);
      return true;
    });
    assert.throws(() => sx.softmax([1]), /await init\(\)/);
    const notWasm = new URL("simplexity.js", DIST);
    await assert.rejects(sx.init({ url: notWasm }), /^Error: simplexity: cannot instantiate .*simplexity\.js: /);
    const info = await sx.init({ simd: false });
    assert.equal(info.simd, false);
    assertClose(sx.softmax([0, 0]), [0.5, 0.5], 1e-7, "after retry");
  });

  test("a relative init({ url }) is resolved against the working directory in Node, not the module", async () => {
    const sx = await freshModule("relative-url");
    const rel = path.relative(process.cwd(), fileURLToPath(new URL("simplexity.wasm", DIST)));
    assert.ok(!path.isAbsolute(rel));
    const info = await sx.init({ url: rel, simd: false });
    assert.equal(info.simd, false);
    assertClose(sx.softmax([0, 0]), [0.5, 0.5], 1e-7, "loaded from a path relative to the cwd");
    const sx2 = await freshModule("relative-url-2");
    await assert.rejects(sx2.init({ url: "simplexity.wasm", simd: false }), (e) => {
      assert.match(e.message, new RegExp(`^simplexity: failed to read ${process.cwd()}/simplexity\\.wasm: ENOENT`));
      return true;
    });
  });
});
