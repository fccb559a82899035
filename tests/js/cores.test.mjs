// cores.test.mjs - the two wasm cores (loader.js): the mappings core (dist/simplexity-mappings*.wasm,
// init({ core: "mappings" })) computes every mapping function bit for bit as the full core does,
// refuses the rest with a clear message, and gives way to the full core when init() asks for it
// (one instance at a time, Model and tasks then work); bytes and urls say which core they hold.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { BUILDS, DIST, freshModule, assertClose } from "./helpers.mjs";
import { mulberry32 } from "../../web/widgets/viz/mulberry32.js";

const file = (simd, core) => (core === "mappings" ? (simd ? "simplexity-mappings-simd.wasm" : "simplexity-mappings.wasm")
  : (simd ? "simplexity-simd.wasm" : "simplexity.wasm"));

/** Every function the mappings core has, called on the same inputs: name -> output. */
function mappingOutputs(sx) {
  const rnd = mulberry32(7);
  const rows = 37, n = 11;
  const x = new Float32Array(rows * n), dy = new Float32Array(rows * n);
  for (let i = 0; i < x.length; i++) {
    x[i] = (rnd() - 0.5) * 6;
    dy[i] = rnd() - 0.5;
  }
  x[5] = x[6]; // a tie
  x[20] = -Infinity; // a masked score
  const o = { n };
  const out = {
    softmax: sx.softmax(x, o), sparsemax: sx.sparsemax(x, o), entmax15: sx.entmax15(x, o),
    entmax13: sx.entmax(x, { n, alpha: 1.3 }), entmax17: sx.entmax(x, { n, alpha: 1.7, temperature: 0.5 }),
    // two rows: below the full SIMD core's grouped short-row solver, the same code in both cores
    entmax13pair: sx.entmax(x.subarray(0, 2 * n), { n, alpha: 1.3 }),
    fusedmax: sx.fusedmax(x, { n, lambda: 0.3 }), oscarmax: sx.oscarmax(x, { n, beta: 0.1 }),
    sigmoid: sx.sigmoid(x, o), groupmax: sx.groupmax(x, { n, groups: [3, 5, 3], lambda: 0.2 }),
    softmaxBackward: sx.softmaxBackward(x, dy, o), sparsemaxBackward: sx.sparsemaxBackward(x, dy, o),
    entmax15Backward: sx.entmax15Backward(x, dy, o), entmaxBackward: sx.entmaxBackward(x, dy, { n, alpha: 1.3 }),
    fusedmaxBackward: sx.fusedmaxBackward(x, dy, { n, lambda: 0.3 }), oscarmaxBackward: sx.oscarmaxBackward(x, dy, { n, beta: 0.1 }),
    sigmoidBackward: sx.sigmoidBackward(x, dy, o), groupmaxBackward: sx.groupmaxBackward(x, dy, { n, groups: [3, 5, 3], lambda: 0.2 }),
    entmaxAlphaGrad: sx.entmaxAlphaGrad(x, dy, { n, alpha: 1.3 }),
    tsallis: sx.tsallisEntropy(sx.sparsemax(x, o), { n, alpha: 1.5 }),
    jacobian: sx.jacobian(x.subarray(0, 4 * n), { n, mapping: "entmax15" }),
    threshold: sx.threshold(x, { n, mapping: "entmax", alpha: 1.4 }),
  };
  // fusedmax on longer rows: the full core runs its dense sweeps (two rows at a time in SIMD), the
  // mappings core the generic sweep; many runs, masked entries, the constant-mean test near its
  // margin (lambda 4), a temperature below 1
  const n2 = 96, x2 = new Float32Array(9 * n2), dy2 = new Float32Array(9 * n2);
  for (let i = 0; i < x2.length; i++) {
    x2[i] = Math.sin(i * 0.37) * 2 + (rnd() - 0.5) * 1.5;
    dy2[i] = rnd() - 0.5;
  }
  for (let i = 3; i < x2.length; i += 29) x2[i] = -Infinity;
  for (const [lambda, temperature] of [[0.02, 1], [0.3, 1], [1.5, 0.7], [4, 1]]) {
    out[`fusedmax96 ${lambda}/${temperature}`] = sx.fusedmax(x2, { n: n2, lambda, temperature });
    out[`fusedmaxBackward96 ${lambda}/${temperature}`] = sx.fusedmaxBackward(x2, dy2, { n: n2, lambda, temperature });
  }
  return out;
}

const bits = (a) => new Uint32Array(Float32Array.from(a).buffer);
const FULL_ONLY = [
  ["attention", (sx) => sx.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), { heads: 1 })],
  ["attentionPattern", (sx) => sx.attentionPattern(8, { kind: "local", width: 2 })],
  ["spanMask", (sx) => sx.spanMask([0, 1, 2], { span: 2 })],
  ["attentionPooling", (sx) => sx.attentionPooling([0], [0, 1], [1, 2])],
  ["positionalEncoding", (sx) => sx.positionalEncoding(4, 8)],
  ["attentionScores", (sx) => sx.attentionScores([1, 0], [1, 0, 0, 1], { d: 2 })],
  ["maskedMapping", (sx) => sx.maskedMapping([1, 2, 3], { n: 3, validLens: [2] })],
  ["fyLoss", (sx) => sx.fyLoss([1, 2, 3], [0])],
  ["Model", (sx) => new sx.Model({ task: "reverse" })],
  ["Model.load", (sx) => sx.Model.load(new Uint8Array(8))],
  ["tasks.names", (sx) => sx.tasks.names()],
  ["tasks.encode", (sx) => sx.tasks.encode("reverse", "abc")],
];

for (const b of BUILDS) {
  describe(`the mappings core [${b.name} build]`, () => {
    test("its module holds the mapping exports and none of the model's", async () => {
      const bytes = await readFile(new URL(file(b.simd, "mappings"), DIST));
      const mod = await WebAssembly.compile(bytes);
      const names = WebAssembly.Module.exports(mod).map((e) => e.name);
      for (const n of ["sx_softmax", "sx_entmax", "sx_jacobian", "sx_threshold", "sx_groupmax", "sx_malloc"]) assert.ok(names.includes(n), n);
      for (const n of ["sx_model_create", "sx_attention", "sx_task_count", "sx_nw_pooling"]) assert.ok(!names.includes(n), n);
      const full = await readFile(new URL(file(b.simd, "full"), DIST));
      assert.ok(bytes.length * 3 < full.length, `a third of the full core at most (${bytes.length} vs ${full.length} bytes)`);
    });

    test("every mapping function gives the full core's output bit for bit (alpha-entmax and its backward on batches of short rows: to 1e-7)", async () => {
      const lite = await freshModule(`lite-${b.name}`);
      const info = await lite.init({ core: "mappings", simd: b.simd });
      assert.deepEqual([info.core, info.simd], ["mappings", b.simd]);
      const full = await freshModule(`full-${b.name}`);
      await full.init({ simd: b.simd });
      const got = mappingOutputs(lite), want = mappingOutputs(full);
      // the full SIMD core solves alpha-entmax on batches of 4- to 32-entry rows four rows at a
      // time (SX_WIDE_PATHS, left out of the mappings core for size): the same answer to ~3e-8
      // (entmaxBackward runs that forward first)
      const near = b.simd ? new Set(["entmax13", "entmax17", "entmaxBackward"]) : new Set();
      for (const k of Object.keys(want)) {
        if (near.has(k)) assertClose(got[k], want[k], 1e-7, k);
        else assert.deepEqual(bits(got[k]), bits(want[k]), k);
      }
    });

    test("fusedmax: the mappings core's generic sweep gives the full core's dense sweeps' bits on random rows", async () => {
      // 400 random shapes: rows of 8 to 200 entries (the dense paths start at 8), scales from 1e-3
      // to 1e3, lambdas from 1e-4 to 10 times the scale, some masks, plateaus (ties) and T != 1
      const lite = await freshModule(`fused-lite-${b.name}`);
      await lite.init({ core: "mappings", simd: b.simd });
      const full = await freshModule(`fused-full-${b.name}`);
      await full.init({ simd: b.simd });
      const rnd = mulberry32(2026);
      for (let c = 0; c < 400; c++) {
        const n = 8 + Math.floor(rnd() * 193), rows = 1 + Math.floor(rnd() * 5);
        const scale = 10 ** (rnd() * 6 - 3), lambda = scale * 10 ** (rnd() * 5 - 4);
        const temperature = rnd() < 0.3 ? 10 ** (rnd() * 2 - 1) : 1;
        const x = new Float32Array(rows * n), dy = new Float32Array(rows * n);
        for (let i = 0; i < x.length; i++) {
          x[i] = rnd() < 0.2 && i > 0 ? x[i - 1] : (rnd() - 0.5) * scale; // a run of equal scores now and then
          if (rnd() < 0.03) x[i] = -Infinity;
          dy[i] = rnd() - 0.5;
        }
        const o = { n, lambda, temperature }, what = `case ${c}: rows ${rows}, n ${n}, lambda ${lambda}, T ${temperature}`;
        assert.deepEqual(bits(lite.fusedmax(x, o)), bits(full.fusedmax(x, o)), what);
        assert.deepEqual(bits(lite.fusedmaxBackward(x, dy, o)), bits(full.fusedmaxBackward(x, dy, o)), `${what} (backward)`);
      }
    });

    test("the rest throws a plain message until init() brings the full core, which then serves all", async () => {
      const sx = await freshModule(`upgrade-${b.name}`);
      await sx.init({ core: "mappings", simd: b.simd });
      for (const [name, call] of FULL_ONLY) {
        assert.throws(() => call(sx), (e) => e instanceof Error && e.message ===
          `${name}: needs the full core, but only the mappings core is loaded (init({ core: "mappings" })): call \`await init()\` first`, name);
      }
      const before = sx.entmax([1.5, 0, 1], { alpha: 1.5 });
      assert.equal(await sx.init({ core: "mappings" }), await sx.init({ core: "mappings" }), "memoised");
      const info = await sx.init();
      assert.deepEqual([info.core, info.simd], ["full", b.simd]);
      assert.equal(sx.info().core, "full");
      assert.deepEqual(bits(sx.entmax([1.5, 0, 1], { alpha: 1.5 })), bits(before));
      const m = new sx.Model({ task: "reverse", layers: 1, dModel: 8, heads: 2, dFF: 8 });
      assert.ok(m instanceof sx.Model);
      assert.equal(sx.tasks.names().length, 4);
      assert.ok(sx.attentionPattern(8, { kind: "local", width: 2 }).mask.length > 0);
      m.free();
      // once the full core is in, a mappings request is the full core's promise
      assert.equal((await sx.init({ core: "mappings" })).core, "full");
      // a later scalar/SIMD switch is refused as before
      await assert.rejects(sx.init({ simd: !b.simd }), /must be the first call to init\(\)/);
    });

    test("asked for together, the full core wins whichever lands first", async () => {
      const sx = await freshModule(`race-${b.name}`);
      const [a, c] = await Promise.all([sx.init({ core: "mappings", simd: b.simd }), sx.init()]);
      assert.equal(c.core, "full");
      assert.ok(a.core === "mappings" || a.core === "full");
      assert.equal(sx.info().core, "full");
      assert.equal(sx.tasks.names().length, 4);
    });

    test("bytes and urls say which core they hold", async () => {
      const fullBytes = await readFile(new URL(file(b.simd, "full"), DIST));
      const liteBytes = await readFile(new URL(file(b.simd, "mappings"), DIST));
      const s1 = await freshModule(`bytes1-${b.name}`);
      assert.equal((await s1.init({ core: "mappings", bytes: fullBytes })).core, "full", "full bytes serve a mappings request");
      assert.equal(s1.tasks.names().length, 4);
      const s2 = await freshModule(`bytes2-${b.name}`);
      await assert.rejects(s2.init({ bytes: liteBytes }), (e) => /is the mappings core .* but the full core was asked for/.test(e.message));
      assert.equal((await s2.init({ core: "mappings", bytes: liteBytes })).core, "mappings", "retried");
      // the full core from a url that is wrong, then right: the mappings core keeps working meanwhile
      await assert.rejects(s2.init({ url: new URL("no-such-file.wasm", DIST) }), /failed to read/);
      assert.deepEqual(Array.from(s2.sparsemax([1.5, 0, 1])), [0.75, 0, 0.25]);
      assert.equal((await s2.init({ url: new URL(file(b.simd, "full"), DIST) })).core, "full");
    });
  });
}

test("init() refuses an unknown core", async () => {
  const sx = await freshModule("bad-core");
  await assert.rejects(sx.init({ core: "tiny" }), (e) => e instanceof TypeError &&
    e.message === 'init: core must be "full", "mappings" or undefined (got "tiny")');
});
