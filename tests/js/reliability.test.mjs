// reliability.test.mjs - the holes a hostile or careless caller finds in the JS API (issue 12),
// one test per class, on both wasm builds, then a seeded fuzz over the public API:
//   re-entrant inputs   an Array getter or a Proxy that calls the library mid-read (clobbering
//                       its scratch, or growing wasm memory), or that throws
//   detached arrays     a typed array whose buffer was transferred: a TypeError naming the
//                       function and the argument, for every array argument (out included)
//   memory              a rejected call (a hole, a bad token, a size too large) leaves wasm memory
//                       as it was
//   32-bit sizes        products of sizes checked before they become allocations: a RangeError
//                       with the byte count, never a wrapped size or a trap
//   function names      every error names the public function called
//   batch shapes        a model batch whose shape disagrees with its data is an error
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BUILDS, builds, freshModule, rng } from "./helpers.mjs";

const all = await builds();

/** A fresh, initialised instance of the module (its own wasm memory and scratch). */
let fresh = 0;
async function freshSx(simd) {
  const sx = await freshModule(`reliability-${fresh++}`);
  await sx.init({ simd });
  return sx;
}

function detached(Type, len = 3) {
  const a = new Type(len);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  assert.equal(a.length, 0);
  return a;
}

/** The error f throws (fails if it returns). */
function errorOf(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail("expected an error");
}

/** Deep equality of results: typed arrays element by element (Object.is), objects by key. */
function sameResult(a, b, what) {
  if (ArrayBuffer.isView(a) || Array.isArray(a)) {
    assert.ok(ArrayBuffer.isView(b) || Array.isArray(b), `${what}: not an array`);
    assert.equal(a.length, b.length, `${what}: length`);
    for (let i = 0; i < a.length; i++) sameResult(a[i], b[i], `${what}[${i}]`);
  } else if (a !== null && typeof a === "object") {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${what}: keys`);
    for (const k of Object.keys(a)) sameResult(a[k], b[k], `${what}.${k}`);
  } else {
    assert.ok(Object.is(a, b), `${what}: got ${b}, expected ${a}`);
  }
}

// --------------------------------------------------------------- the call table
// Every public function that copies user arrays, with small valid arguments. `args` holds each
// array argument under the name its errors use; `call(args, extra)` runs it (extra: options to
// add, e.g. out). `types` is the typed-array type of each argument (for the detached test);
// `outs` the names and lengths of the Float32Array output options. Model calls build a fresh
// model each time (same seed), so a call that trains gives the same result every time.
const SMALL = { task: "reverse", dModel: 8, heads: 2, layers: 1, dFF: 8, maxBatch: 2, seed: 3 };

function callTable(sx) {
  const { Model, tasks } = sx;
  const X = [0.5, -1, 2, 0.25, 1.5, 0];
  const DY = [1, -2, 0.5, 0, 3, -1];
  const P = [0.2, 0.3, 0.5, 0.6, 0.4, 0];
  const b = tasks.generate("reverse", { count: 2, seed: 5 });
  const SRC = Array.from(b.src), TGT = Array.from(b.tgt), ROW = SRC.slice(0, 12);
  const withModel = (f) => {
    const m = new Model(SMALL);
    try {
      return f(m);
    } finally {
      m.free();
    }
  };
  const F = Float32Array, I = Int32Array;
  const map = (fn, opts) => ({ fn, args: { x: X }, types: { x: F }, outs: { out: 6 }, call: (a, e) => sx[fn](a.x, { n: 3, ...opts, ...e }) });
  const back = (fn, opts) => ({ fn, args: { x: X, dy: DY }, types: { x: F, dy: F }, outs: { out: 6 }, call: (a, e) => sx[fn](a.x, a.dy, { n: 3, ...opts, ...e }) });
  return [
    map("softmax"), map("sparsemax"), map("entmax15"), map("entmax", { alpha: 1.3 }),
    map("fusedmax", { lambda: 0.5 }), map("oscarmax", { beta: 0.5 }),
    back("softmaxBackward"), back("sparsemaxBackward"), back("entmax15Backward"),
    back("entmaxBackward", { alpha: 1.3 }), back("fusedmaxBackward", { lambda: 0.5 }), back("oscarmaxBackward", { beta: 0.5 }),
    { fn: "entmaxAlphaGrad", args: { x: X, dy: DY }, types: { x: F, dy: F }, outs: { out: 2 }, call: (a, e) => sx.entmaxAlphaGrad(a.x, a.dy, { n: 3, alpha: 1.3, ...e }) },
    { fn: "tsallisEntropy", args: { p: P }, types: { p: F }, outs: { out: 2 }, call: (a, e) => sx.tsallisEntropy(a.p, { n: 3, ...e }) },
    {
      fn: "attention", args: { q: [0.5, -1, 2, 0.25], k: [1, 0, 0.5, -0.5, 2, 1], v: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], keyLengths: [2] },
      types: { q: F, k: F, v: F, keyLengths: I }, outs: { out: 4, weights: 6 },
      call: (a, e) => sx.attention(a.q, a.k, a.v, { tq: 2, keyLengths: a.keyLengths, mapping: "entmax", alpha: 1.3, weights: true, ...e }),
    },
    { fn: "spanMask", args: { distances: [0, 1, 2.5, 3, 7] }, types: { distances: F }, outs: { out: 5 }, call: (a, e) => sx.spanMask(a.distances, { z: 2, ramp: 1.5, ...e }) },
    {
      fn: "attentionPooling", args: { queries: [0, 0.5, 1], keys: [0, 0.3, 0.6, 0.9], values: [1, 2, 0, -1] },
      types: { queries: F, keys: F, values: F }, outs: { out: 3, weights: 12 },
      call: (a, e) => sx.attentionPooling(a.queries, a.keys, a.values, { w: 2, mapping: "sparsemax", ...e }),
    },
    {
      fn: "attentionPoolingBackward", args: { queries: [0, 0.5, 1], keys: [0, 0.3, 0.6, 0.9], values: [1, 2, 0, -1], dy: [0.5, -1, 0.25] },
      types: { queries: F, keys: F, values: F, dy: F }, outs: {},
      call: (a) => sx.attentionPoolingBackward(a.queries, a.keys, a.values, a.dy, { w: 2, mapping: "entmax15" }),
    },
    { fn: "model.forward", args: { src: SRC, tgt: TGT }, types: { src: I, tgt: I }, outs: {}, call: (a) => withModel((m) => m.forward(a.src, a.tgt, { count: 2 })) },
    { fn: "model.loss", args: { "batch.src": SRC, "batch.tgt": TGT }, types: { "batch.src": I, "batch.tgt": I }, outs: {}, call: (a) => withModel((m) => m.loss({ src: a["batch.src"], tgt: a["batch.tgt"], shape: [2, 12] })) },
    {
      fn: "model.trainStep", args: { "batch.src": SRC, "batch.tgt": TGT }, types: { "batch.src": I, "batch.tgt": I }, outs: {},
      call: (a) => withModel((m) => [m.trainStep({ src: a["batch.src"], tgt: a["batch.tgt"], shape: [2, 12] }), m.loss(b)]),
    },
    { fn: "model.generate", args: { src: SRC }, types: { src: I }, outs: {}, call: (a) => withModel((m) => m.generate(a.src, { count: 2, maxLen: 6 })) },
    { fn: "tasks.decode", args: { tokens: ROW }, types: { tokens: I }, outs: {}, call: (a) => tasks.decode("reverse", a.tokens) },
    { fn: "tasks.answer", args: { src: SRC }, types: { src: I }, outs: {}, call: (a) => tasks.answer("reverse", a.src, { count: 2 }) },
    { fn: "tasks.splitOf", args: { src: ROW }, types: { src: I }, outs: {}, call: (a) => tasks.splitOf("reverse", a.src) },
  ];
}

/** An Array of `values` whose element `at` is a getter running `hook` before it answers. */
function getterArray(values, at, hook) {
  const a = values.slice();
  Object.defineProperty(a, at, { get() { hook(); return values[at]; }, enumerable: true, configurable: true });
  return a;
}

/** A Proxy over an Array of `values` whose trap runs `hook` when element `at` is read. */
function hookedProxy(values, at, hook) {
  return new Proxy(values.slice(), {
    get(t, k, r) {
      if (k === String(at)) hook();
      return Reflect.get(t, k, r);
    },
  });
}

class Marker extends Error {}

for (const { name, simd, sx } of all) {
  const table = callTable(sx);

  describe(`reliability [${name} build]`, () => {
    test("re-entrant inputs: getters and Proxies that call back into the library get the right result", () => {
      for (const c of table) {
        const expected = c.call(c.args, {});
        for (const arg of Object.keys(c.args)) {
          const values = c.args[arg];
          const at = values.length >> 1;
          // The nested call is the same call on other data: it fills the same scratch layout.
          const other = Object.fromEntries(Object.entries(c.args).map(([k, v]) => [k, k === "keyLengths" || k.includes("src") || k.includes("tgt") || k === "tokens" ? v : v.map((x) => x * 0.5 + 0.125)]));
          const nested = () => {
            c.call(other, {});
            sx.softmax([9, 8, 7, 6, 5, 4, 3, 2, 1]);
          };
          for (const [how, wrap] of [["getter", getterArray], ["Proxy", hookedProxy]]) {
            let calls = 0;
            const args = { ...c.args, [arg]: wrap(values, at, () => { calls++; nested(); }) };
            sameResult(expected, c.call(args, {}), `${c.fn} with a re-entrant ${how} as ${arg}`);
            assert.equal(calls, 1, `${c.fn}: ${arg} read once`);
          }
        }
        sameResult(expected, c.call(c.args, {}), `${c.fn} afterwards`);
      }
    });

    test("re-entrant inputs that grow wasm memory mid-read: no trap, the right result", async () => {
      // A fresh instance each: its scratch and memory are small, so the nested call must move
      // the scratch region and grow the memory (which detaches every view over it).
      for (const c of table) {
        const arg = Object.keys(c.args)[0];
        const sx2 = await freshSx(simd);
        const c2 = callTable(sx2).find((t) => t.fn === c.fn);
        const expected = c.call(c.args, {});
        const before = sx2.info().memoryBytes;
        const values = c2.args[arg];
        const args = { ...c2.args, [arg]: getterArray(values, values.length - 1, () => sx2.softmax(new Float32Array(1 << 21))) };
        sameResult(expected, c2.call(args, {}), `${c.fn}: ${arg} grows memory mid-read`);
        assert.ok(sx2.info().memoryBytes > before, `${c.fn}: the nested call grew memory`);
        sameResult(expected, c2.call(c2.args, {}), `${c.fn} afterwards`);
        sameResult(Array.from(sx.softmax([1, 2, 3])), Array.from(sx2.softmax([1, 2, 3])), `${c.fn}: softmax afterwards`);
      }
    });

    test("re-entrant inputs that throw: the caller's error, memory and later calls unchanged", () => {
      for (const c of table) {
        const expected = c.call(c.args, {});
        const before = sx.info().memoryBytes;
        for (const arg of Object.keys(c.args)) {
          const values = c.args[arg];
          for (const wrap of [getterArray, hookedProxy]) {
            const args = { ...c.args, [arg]: wrap(values, values.length - 1, () => { throw new Marker(`${arg} says no`); }) };
            assert.throws(() => c.call(args, {}), Marker, `${c.fn} ${arg}`);
          }
        }
        assert.equal(sx.info().memoryBytes, before, `${c.fn}: memory`);
        sameResult(expected, c.call(c.args, {}), `${c.fn} afterwards`);
      }
    });

    test("an argument detached by another argument's getter mid-call: a TypeError naming it, no engine error", () => {
      const transfer = (a) => structuredClone(a.buffer, { transfer: [a.buffer] });
      const x = Array.from({ length: 100 }, (_, i) => i / 50);
      const dy = new Float32Array(100).fill(1);
      const xg = getterArray(x, 50, () => transfer(dy));
      assert.throws(() => sx.softmaxBackward(xg, dy), /^TypeError: softmaxBackward: dy changed during the call \(it had 100 elements and is now a detached Float32Array\)$/);
      const out = new Float32Array(100);
      const xo = getterArray(x, 50, () => transfer(out));
      assert.throws(() => sx.softmax(xo, { out }), /^TypeError: softmax: out changed during the call \(it had 100 elements and is now a detached Float32Array\)$/);
      const w = new Float32Array(10 * 10);
      const ten = Array.from({ length: 10 }, (_, i) => i / 3);
      const qs = getterArray(ten, 1, () => transfer(w));
      assert.throws(() => sx.attentionPooling(qs, ten, ten, { weights: w }), /^TypeError: attentionPooling: weights changed during the call \(it had 100 elements and is now a detached Float32Array\)$/);
      sameResult(Array.from(sx.softmax(new Float32Array([1, 2, 3]))), Array.from(sx.softmax([1, 2, 3])), "softmax afterwards");
    });

    test("a Proxy or an object posing as a typed array is refused by name; a lying length cannot overrun a copy", () => {
      const f32 = new Float32Array([1, 2, 3]);
      const proxy = new Proxy(f32, { get: (t, k) => (typeof t[k] === "function" ? t[k].bind(t) : t[k]) });
      assert.ok(proxy instanceof Float32Array && !ArrayBuffer.isView(proxy));
      const posing = Object.setPrototypeOf([1, 2, 3], Float32Array.prototype); // an Array all the same
      sameResult(Array.from(sx.softmax([1, 2, 3])), Array.from(sx.softmax(posing)), "an Array with a Float32Array prototype");
      for (const x of [proxy, Object.create(Float32Array.prototype)]) {
        const e = errorOf(() => sx.softmax(x));
        assert.equal(e.constructor, TypeError);
        assert.match(e.message, /^softmax: x must be a Float32Array, a WasmArray or an array of numbers \(got /);
      }
      for (const out of [proxy, posing, Object.create(Float32Array.prototype)]) {
        const o = errorOf(() => sx.softmax([1, 2, 3], { out }));
        assert.equal(o.constructor, TypeError);
        assert.match(o.message, /^softmax: out must be a Float32Array or a WasmArray \(got /);
      }
      // A typed array whose own `length` lies cannot make a copy write past its place in wasm
      // memory: up to 16 elements are copied one by one up to the length claimed (a getter on it
      // runs before anything is copied); above that, the claim must be the real element count.
      const big = new Float32Array(1000).fill(1);
      Object.defineProperty(big, "length", { get: () => { sx.softmax(new Float32Array(40000)); return 3; } });
      sameResult([1 / 3, 1 / 3, 1 / 3].map(Math.fround), Array.from(sx.softmax(big)), "a length that says 3");
      const long = new Float32Array(1000).fill(1);
      Object.defineProperty(long, "length", { value: 20 });
      assert.throws(() => sx.softmax(long), /^TypeError: softmax: x has 1000 elements, but its length said 20$/);
      const short = new Float32Array(10).fill(1);
      Object.defineProperty(short, "length", { value: 1000 });
      assert.throws(() => sx.sparsemax(short), /^TypeError: sparsemax: x has 10 elements, but its length said 1000$/);
      const out = new Float32Array(3);
      Object.defineProperty(out, "length", { value: 1000 });
      assert.throws(() => sx.softmax(new Float32Array(1000), { out }), /^RangeError: softmax: out\.length \(3\) must equal x\.length \(1000\)$/);
      sameResult(Array.from(sx.softmax(new Float32Array([1, 2, 3]))), Array.from(sx.softmax([1, 2, 3])), "softmax afterwards");
    });

    test("detached typed arrays: a TypeError naming the function and the argument, everywhere", () => {
      for (const c of table) {
        for (const arg of Object.keys(c.args)) {
          const Type = c.types[arg];
          const e = errorOf(() => c.call({ ...c.args, [arg]: detached(Type) }, {}));
          assert.equal(e.constructor, TypeError, `${c.fn} ${arg}: ${e.message}`);
          assert.equal(e.message, `${c.fn}: ${arg} is a detached ${Type.name}`);
        }
        for (const [out, len] of Object.entries(c.outs)) {
          for (const d of [detached(Float32Array), detached(Float32Array, len)]) {
            const e = errorOf(() => c.call(c.args, { [out]: d }));
            assert.equal(e.constructor, TypeError, `${c.fn} ${out}: ${e.message}`);
            assert.equal(e.message, `${c.fn}: ${out} is a detached Float32Array`);
          }
        }
      }
      // Empty inputs too (a detached array is not an empty one), and Float64Array inputs.
      assert.throws(() => sx.softmax(detached(Float32Array, 0)), /^TypeError: softmax: x is a detached Float32Array$/);
      assert.throws(() => sx.sparsemax(detached(Float64Array)), /^TypeError: sparsemax: x is a detached Float64Array$/);
      assert.throws(() => sx.softmax([], { out: detached(Float32Array, 0) }), /^TypeError: softmax: out is a detached Float32Array$/);
      // Model.load: a detached Uint8Array or ArrayBuffer.
      assert.throws(() => sx.Model.load(detached(Uint8Array, 64)), /^TypeError: Model\.load: bytes is a detached Uint8Array$/);
      const ab = new ArrayBuffer(64);
      structuredClone(ab, { transfer: [ab] });
      assert.throws(() => sx.Model.load(ab), /^TypeError: Model\.load: bytes is a detached ArrayBuffer$/);
      // Nested token rows.
      const m = new sx.Model(SMALL);
      try {
        assert.throws(() => m.forward([[3, 4, 2], detached(Int32Array)], [[1], [1]]), /^TypeError: model\.forward: src\[1\] is a detached Int32Array$/);
      } finally {
        m.free();
      }
    });

    test("a rejected call leaves wasm memory as it was", async () => {
      const sx2 = await freshSx(simd);
      const { Model, tasks } = sx2;
      const m = new Model({ task: "reverse", dModel: 16, heads: 2, layers: 2, dFF: 32, maxBatch: 2 });
      const b = tasks.generate("reverse", { count: 2 });
      m.loss(b);
      const before = sx2.info().memoryBytes;
      const same = (what) => assert.equal(sx2.info().memoryBytes, before, `${what}: wasm memory grew`);
      const big = 4_000_000;
      const holey = new Array(big).fill(0.5);
      delete holey[big - 1];
      assert.throws(() => sx2.softmax(holey), /^TypeError: softmax: x\[3999999\] must be a number \(got undefined\)$/);
      same("a holey Array");
      const stringy = new Array(big).fill(0.5);
      stringy[big - 1] = "0.5";
      assert.throws(() => sx2.entmaxBackward(new Float32Array(big), stringy), /^TypeError: entmaxBackward: dy\[3999999\] must be a number/);
      same("a string in dy");
      assert.throws(() => sx2.attentionPooling(new Float32Array(2000), new Float32Array(2000), holey.slice(0, 2000).concat([undefined])), RangeError);
      assert.throws(() => sx2.attention(new Float32Array(big), new Float32Array(big), holey, { tq: 2 }), /^TypeError: attention: v\[3999999\] must be a number/);
      same("a hole in attention's v");
      // A batch of 4096 rows with one bad token at the end: the model's activations are not
      // grown for it.
      const src = new Int32Array(4096 * 12).fill(3), tgt = new Int32Array(4096 * 12).fill(1);
      tgt[tgt.length - 1] = 99;
      assert.throws(() => m.loss({ src, tgt, shape: [4096, 12] }), /^RangeError: model\.loss: batch\.tgt\[4095\]\[11\] must be a token id in \[0, 13\) \(got 99\)$/);
      assert.throws(() => m.generate(Array.from(tgt), { count: 4096 }), /^RangeError: model\.generate: src\[4095\]\[11\] must be a token id in \[0, 13\) \(got 99\)$/);
      const badSrc = Array.from(src);
      badSrc[badSrc.length - 1] = -1;
      assert.throws(() => m.forward(badSrc, Array.from(src), { count: 4096 }), /^RangeError: model\.forward: src\[4095\]\[11\] must be a token id/);
      assert.throws(() => tasks.answer("reverse", badSrc, { count: 4096 }), /^RangeError: tasks\.answer: src\[4095\]\[11\] must be a token id/);
      same("bad tokens");
      // Sizes too large for one call, found before anything is allocated.
      // (the materialised path: the tiled one, chosen automatically at this size, needs no n x n buffer)
      assert.throws(() => sx2.attention(new Float32Array(16384), new Float32Array(16384), new Float32Array(16384), { tq: 16384, tiled: false }), RangeError);
      assert.throws(() => sx2.entmax(new Float32Array(45_000_000), { alpha: 1.3 }), RangeError);
      same("sizes too large");
      assert.equal(m.loss(b), m.loss(b));
      m.free();
    });

    test("sizes that overflow 32 bits: a RangeError naming the function, what is too large and the bytes", () => {
      const n = 16384, x = new Float32Array(n);
      let e = errorOf(() => sx.attention(x, x, x, { tq: n, tiled: false }));
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(e.message, /^attention: too large: batch \* heads \* tq \* tk = 1 \* 1 \* 16384 \* 16384 = 268435456 attention weights need \d+ bytes of wasm memory/);
      assert.ok(!e.message.includes("-"), e.message);
      // The weights alone above what the core can index (2^29 floats), over many batch elements.
      const q = new Float32Array(1 << 23);
      e = errorOf(() => sx.attention(q, q, q, { tq: 128, batch: 1 << 16 }));
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(e.message, /^attention: too large: batch \* heads \* tq \* tk = 65536 \* 1 \* 128 \* 128 = 1073741824 attention weights/);
      // The core's temporaries count too: entmax's per-row scratch for a 45M-float row wrapped a
      // 32-bit size and trapped.
      e = errorOf(() => sx.entmax(new Float32Array(45_000_000), { alpha: 1.3 }));
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(e.message, /^entmax: input too large: it needs \d{10} bytes of wasm memory/);
      e = errorOf(() => sx.oscarmaxBackward(new Float32Array(40_000_000), new Float32Array(40_000_000)));
      assert.match(e.message, /^oscarmaxBackward: input too large: it needs \d{10} bytes of wasm memory/);
      sameResult(Array.from(sx.entmax([1, 2, 3], { alpha: 1.3 })), Array.from(sx.entmax(new Float32Array([1, 2, 3]), { alpha: 1.3 })), "entmax afterwards");
    });

    test("every error names the public function called and the argument", () => {
      const { tasks, Model } = sx;
      assert.throws(() => tasks.answer("reverse", "ABC"), /^RangeError: tasks\.answer: text\[0\] "A" is not in the reverse alphabet "abcdefghij"$/);
      assert.throws(() => tasks.splitOf("reverse", "ABC"), /^RangeError: tasks\.splitOf: text\[0\] "A" is not in the reverse alphabet "abcdefghij"$/);
      assert.throws(() => tasks.answer("reverse", "a".repeat(300)), /^RangeError: tasks\.answer: /);
      assert.throws(() => tasks.splitOf("reverse", "a".repeat(300)), /^RangeError: tasks\.splitOf: text has 300 characters, more than 255$/);
      // attention(..., { weights: true }) too large for a typed array: checked before allocating.
      // (It was the engine's "Invalid typed array length: 17179869184".)
      const x = new Float32Array(131072);
      const e = errorOf(() => sx.attention(x, x, x, { tq: 131072, weights: true }));
      assert.equal(e.constructor, RangeError);
      assert.match(e.message, /^attention: too large: batch \* heads \* tq \* tk = 1 \* 1 \* 131072 \* 131072 = 17179869184 attention weights need \d+ bytes/);
      assert.throws(() => Model.load(detached(Uint8Array)), /^TypeError: Model\.load: bytes is a detached Uint8Array$/);
    });

    test("model batches: a shape that disagrees with the data is an error, in every call", () => {
      const { Model, tasks } = sx;
      const m = new Model(SMALL);
      try {
        const b = tasks.generate("reverse", { count: 4 });
        const nested = { src: Array.from({ length: 4 }, (_, r) => b.src.slice(12 * r, 12 * r + 12)), tgt: Array.from({ length: 4 }, (_, r) => b.tgt.slice(12 * r, 12 * r + 12)) };
        for (const f of ["loss", "trainStep"]) {
          const fn = `model.${f}`;
          assert.throws(() => m[f]({ ...b, shape: [4, 3] }), new RegExp(`^RangeError: ${fn}: batch\\.shape\\[1\\] \\(3\\) must equal the length of the rows of batch\\.src \\(12\\)$`));
          // [2, 24] agrees with the data (48 ids): then the rows are too long for the model.
          assert.throws(() => m[f]({ ...b, shape: [2, 24] }), new RegExp(`^RangeError: ${fn}: batch\\.src rows must have 1\\.\\.12 tokens \\(maxLen\\) \\(got 24\\)$`));
          assert.throws(() => m[f]({ ...nested, shape: [2, 12] }), new RegExp(`^RangeError: ${fn}: batch\\.src has 4 rows, batch\\.shape\\[0\\] says 2$`));
          assert.throws(() => m[f]({ ...nested, shape: [4, 11] }), new RegExp(`^RangeError: ${fn}: batch\\.shape\\[1\\] \\(11\\) must equal the length of the rows of batch\\.src \\(12\\)$`));
          assert.throws(() => m[f]({ src: b.src, tgt: b.tgt.subarray(0, 42), shape: [4, 12] }), new RegExp(`^RangeError: ${fn}: batch\\.tgt\\.length \\(42\\) must be a positive multiple of the row count \\(4\\)$`));
          assert.throws(() => m[f]({ src: b.src, tgt: b.tgt.subarray(0, 24), shape: [4, 12] }), new RegExp(`^RangeError: ${fn}: batch\\.shape\\[1\\] \\(12\\) must equal the length of the rows of batch\\.tgt \\(6\\)$`));
          assert.throws(() => m[f]({ ...b, shape: [4, 12.5] }), new RegExp(`^RangeError: ${fn}: batch\\.shape\\[1\\] must be an integer`));
        }
        const loss = m.loss(b);
        assert.equal(m.loss(nested), loss);
        assert.equal(m.loss({ ...nested, shape: [4, 12] }), loss);
        // forward / generate: the count option against the rows.
        assert.throws(() => m.forward(nested.src, nested.tgt, { count: 3 }), /^RangeError: model\.forward: src has 4 rows, the count option says 3$/);
        assert.throws(() => m.forward(b.src, nested.tgt), /^RangeError: model\.forward: src has 1 rows, tgt has 4$/);
        assert.throws(() => m.generate(nested.src, { count: 2 }), /^RangeError: model\.generate: src has 4 rows, the count option says 2$/);
      } finally {
        m.free();
      }
    });
  });
}

// ---------------------------------------------------------------------- the fuzz
// Seeded: every failure names its seed and call number. Per call: random argument types (typed
// arrays of every kind, Arrays with holes, strings, getters, Proxies that call back, detached
// buffers), lengths, options. The invariant: no trap and no engine error leaks (a TypeError,
// RangeError or SimplexityError naming the called function, or the Marker a hostile getter
// threw, or a result); a result equals the same call on plain copies of the same values; the
// inputs are untouched; wasm memory stays bounded.
const FUZZ_CALLS = 3000; // per build

describe("fuzz: the public API under random types, shapes, detached buffers and re-entrant inputs", () => {
  for (const { name, simd } of BUILDS) {
    test(`${name} build: ${FUZZ_CALLS} seeded calls`, async () => {
      const sx = await freshSx(simd);
      const table = callTable(sx);
      const r = rng(simd ? 1201 : 1202);
      const pick = (a) => a[Math.floor(r() * a.length)];
      const startMemory = sx.info().memoryBytes;
      const reference = Array.from(sx.softmax(new Float32Array([1, 2, 3])));
      const seen = {}; // outcome -> calls
      let nested = 0;
      /** A nested call a hostile input makes mid-read (bounded depth). */
      const hook = () => {
        if (nested > 2) return;
        nested++;
        try {
          const k = r();
          if (k < 0.3) sx.softmax(new Float32Array(1 << (16 + Math.floor(r() * 5))));
          else if (k < 0.6) {
            const t = pick(table);
            t.call(t.args, {});
          }
          else if (k < 0.7) throw new Marker("hostile getter");
          else sx.sparsemax(Array.from({ length: 1 + Math.floor(r() * 40) }, () => r()));
        } catch (e) {
          if (e instanceof Marker) throw e;
        } finally {
          nested--;
        }
      };
      /** A random stand-in for an argument whose valid values are `values` (a plain Array). */
      function variant(values, Type) {
        const k = r();
        const len = r() < 0.8 ? values.length : Math.floor(r() * (values.length * 2 + 2));
        const vals = Array.from({ length: len }, (_, i) => (i < values.length ? values[i] : values[i % Math.max(1, values.length)]));
        if (k < 0.2) return vals;
        if (k < 0.35) return Type.from(vals);
        if (k < 0.4) return Float64Array.from(vals);
        if (k < 0.45) return detached(pick([Float32Array, Float64Array, Int32Array, Uint8Array]), len);
        if (k < 0.55) return getterArray(vals, Math.floor(r() * Math.max(1, len)), hook);
        if (k < 0.65) return hookedProxy(vals, Math.floor(r() * Math.max(1, len)), hook);
        if (k < 0.7) {
          const a = vals.slice();
          delete a[Math.floor(r() * Math.max(1, len))];
          return a;
        }
        if (k < 0.75) return vals.map((v, i) => (i === 0 ? pick(["1", null, undefined, {}, 1n, NaN, Infinity, -Infinity, 1e39]) : v));
        if (k < 0.8) return new Proxy(Type.from(vals), {});
        if (k < 0.85) return pick([null, undefined, 3, "abc", {}, () => 1, new DataView(new ArrayBuffer(8)), new Int8Array(len), new Uint32Array(len)]);
        if (k < 0.9) return Object.setPrototypeOf(vals.slice(), Type.prototype);
        return Type.from(vals.map((v) => v * (1 + r())));
      }
      /** The values an input holds, read with every hook off: a plain Array, a copy of a live
       *  typed array, or the input itself (anything else). */
      const valuesOf = (v) => {
        const was = nested;
        nested = 99;
        try {
          if (Array.isArray(v)) return Array.from({ length: v.length }, (_, j) => v[j]);
          if (ArrayBuffer.isView(v) && !(v instanceof DataView) && v.length > 0) return v.slice();
          return v;
        } finally {
          nested = was;
        }
      };
      const label = (v) => (ArrayBuffer.isView(v) ? `${v.constructor.name}[${v.length}]` : Array.isArray(v) ? `Array[${v.length}]` : typeof v);

      for (let i = 0; i < FUZZ_CALLS; i++) {
        const c = pick(table);
        const args = {};
        for (const [k, v] of Object.entries(c.args)) args[k] = r() < 0.6 ? v : variant(v, c.types[k]);
        const extra = {};
        for (const [o, len] of Object.entries(c.outs)) {
          const k = r();
          if (k < 0.15) extra[o] = new Float32Array(len).fill(42);
          else if (k < 0.2) extra[o] = detached(Float32Array, len);
          else if (k < 0.25) extra[o] = new Float32Array(Math.max(0, len - 1));
          else if (k < 0.3) extra[o] = new Proxy(new Float32Array(len), {});
        }
        if (c.fn.includes("max") || c.fn === "tsallisEntropy") {
          if (r() < 0.1) extra.n = pick([0, 1, 2, 3, 6, 1.5, -1, "3", NaN]);
          if (r() < 0.1) extra.temperature = pick([0.5, 2, 0, -1, NaN, 1e-50, "1"]);
        }
        const before = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, valuesOf(v)]));
        const where = `seed ${simd ? 1201 : 1202}, call ${i}: ${c.fn}(${Object.entries(args).map(([k, v]) => `${k}: ${label(v)}`).join(", ")}; ${Object.keys(extra).join(", ")})`;
        let result, error;
        try {
          result = c.call(args, extra);
        } catch (e) {
          error = e;
        }
        const outcome = error === undefined ? "result" : error instanceof Marker ? "Marker" : error.constructor.name;
        seen[outcome] = (seen[outcome] ?? 0) + 1;
        if (error !== undefined) {
          if (!(error instanceof Marker)) {
            const clean = error instanceof TypeError || error instanceof RangeError || error instanceof sx.SimplexityError;
            assert.ok(clean && error.message.startsWith(`${c.fn}: `), `${where}: ${error.constructor.name}: ${error.message}`);
          }
          for (const o of Object.values(extra)) {
            if (o instanceof Float32Array && ArrayBuffer.isView(o) && o.length > 0) assert.ok(o.every((v) => v === 42 || v === 0), `${where}: out changed by a failed call`);
          }
        } else {
          // The same call on plain copies of the values it read gives the same result.
          const plain = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, ArrayBuffer.isView(v) ? v.slice() : v]));
          const was = nested;
          nested = 99;
          const options = Object.fromEntries(Object.entries(extra).filter(([k]) => !(k in c.outs)));
          let expected;
          try {
            expected = c.call(plain, options);
          } finally {
            nested = was;
          }
          sameResult(expected, result, where);
        }
        // Inputs untouched.
        for (const [k, v] of Object.entries(before)) {
          if (Array.isArray(v) || (ArrayBuffer.isView(v) && v !== args[k])) sameResult(v, valuesOf(args[k]), `${where}: ${k} changed`);
        }
        assert.ok(sx.info().memoryBytes <= startMemory + 64 * 2 ** 20, `${where}: wasm memory grew to ${sx.info().memoryBytes}`);
      }
      sameResult(reference, Array.from(sx.softmax([1, 2, 3])), "softmax after the fuzz");
      // The fuzz reaches every outcome, and most calls get far enough to matter.
      for (const k of ["result", "TypeError", "RangeError", "SimplexityError", "Marker"]) assert.ok(seen[k] > 0, `no ${k} in ${JSON.stringify(seen)}`);
      assert.ok(seen.result > FUZZ_CALLS / 5, `too few results: ${JSON.stringify(seen)}`);
    });
  }
});
