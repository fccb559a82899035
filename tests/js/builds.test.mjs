// builds.test.mjs - the SIMD and scalar builds: info() flags, agreement to ~1e-6, memory that
// stays flat over a million calls, heap views that survive memory growth, the exported names.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, rng, DIST } from "./helpers.mjs";

const all = await builds();

const PUBLIC_NAMES = [
  "Model", "RNN", "Rationale", "SimplexityError", "TextModel", "WasmArray", "alloc", "attention", "attentionPattern", "attentionPooling", "attentionPoolingBackward", "attentionScores",
  "attentionScoresBackward", "chainAttention", "chainAttentionBackward", "entmax", "entmax15", "entmax15Backward", "entmaxAlphaGrad", "entmaxBackward",
  "fusedmax", "fusedmaxBackward", "fyLoss", "groupmax", "groupmaxBackward", "info", "init", "jacobian", "maskedMapping",
  "maskedMappingBackward", "oscarmax", "oscarmaxBackward",
  "positionalEncoding", "proxTV", "proxTVRuns", "relativeScores",
  "sigmoid", "sigmoidBackward", "softmax",
  "softmaxBackward", "spanMask", "sparsemapSelections", "sparsemax", "sparsemaxBackward", "tasks", "threshold", "tsallisEntropy",
  "txlScores",
];

describe("the two builds", () => {
  test("the public export names are exactly the documented ones", () => {
    for (const { sx } of all) assert.deepEqual(Object.keys(sx).sort(), PUBLIC_NAMES);
  });

  test("info() reports the build, the ABI and the memory size", async () => {
    const [simd, scalar] = all;
    assert.deepEqual(Object.keys(simd.sx.info()).sort(), ["abi", "core", "memoryBytes", "simd"]);
    for (const { sx } of all) assert.equal(sx.info().core, "full");
    assert.equal(simd.sx.info().simd, true);
    assert.equal(scalar.sx.info().simd, false);
    for (const { sx } of all) {
      assert.equal(sx.info().abi, 1);
      assert.ok(sx.info().memoryBytes >= 4 << 20 && sx.info().memoryBytes % 65536 === 0);
    }
    // The .wasm files really differ: only the SIMD one uses the SIMD opcode prefix in code.
    const simdBytes = await readFile(new URL("simplexity-simd.wasm", DIST));
    const scalarBytes = await readFile(new URL("simplexity.wasm", DIST));
    assert.equal(WebAssembly.validate(simdBytes), true);
    assert.notDeepEqual(simdBytes, scalarBytes);
  });

  test("SIMD and scalar builds agree to ~1e-6 on every function", () => {
    const [a, b] = all.map((x) => x.sx);
    const r = rng(21);
    for (const n of [1, 2, 3, 4, 5, 7, 8, 16, 33, 128]) {
      const rows = 13;
      const x = r.vector(rows * n, 2);
      x[3 % x.length] = -Infinity;
      const dy = r.vector(rows * n);
      const p = a.softmax(x, { n });
      const pairs = [
        ["softmax", (s) => s.softmax(x, { n })],
        ["softmax T", (s) => s.softmax(x, { n, temperature: 0.3 })],
        ["sparsemax", (s) => s.sparsemax(x, { n })],
        ["entmax15", (s) => s.entmax15(x, { n })],
        ["entmax 1.3", (s) => s.entmax(x, { n, alpha: 1.3 })],
        ["entmax 2.5", (s) => s.entmax(x, { n, alpha: 2.5 })],
        ["fusedmax", (s) => s.fusedmax(x, { n, lambda: 0.2 })],
        ["oscarmax", (s) => s.oscarmax(x, { n, beta: 0.1 })],
        ["softmaxBackward", (s) => s.softmaxBackward(x, dy, { n })],
        ["sparsemaxBackward", (s) => s.sparsemaxBackward(x, dy, { n })],
        ["entmax15Backward", (s) => s.entmax15Backward(x, dy, { n })],
        ["entmaxBackward", (s) => s.entmaxBackward(x, dy, { n, alpha: 1.7 })],
        ["fusedmaxBackward", (s) => s.fusedmaxBackward(x, dy, { n, lambda: 0.2 })],
        ["oscarmaxBackward", (s) => s.oscarmaxBackward(x, dy, { n, beta: 0.1 })],
        ["sigmoid", (s) => s.sigmoid(x, { n, temperature: 0.7 })],
        ["sigmoidBackward", (s) => s.sigmoidBackward(x, dy, { n })],
        ["groupmax", (s) => s.groupmax(x, { groups: n > 2 ? [2, n - 2] : [n], lambda: 0.3 })],
        ["groupmaxBackward", (s) => s.groupmaxBackward(x, dy, { groups: n > 2 ? [2, n - 2] : [n], lambda: 0.3 })],
        ["entmaxAlphaGrad", (s) => s.entmaxAlphaGrad(x, dy, { n, alpha: 1.7 })],
        ["tsallisEntropy", (s) => s.tsallisEntropy(p, { n, alpha: 1.5 })],
        ["shannon", (s) => s.tsallisEntropy(p, { n, alpha: 1 })],
      ];
      for (const [what, f] of pairs) assertClose(f(a), f(b), 2e-6, `${what} n=${n}`);
    }
  });
});

for (const { name, sx } of all) {
  describe(`memory [${name} build]`, () => {
    test("a million small calls do not grow memory", () => {
      const x = new Float32Array([1.5, 0, 1]);
      const dy = new Float32Array([1, 0, -1]);
      const out = new Float32Array(3);
      sx.softmax(x); // first call allocates the scratch region
      const before = sx.info().memoryBytes;
      for (let i = 0; i < 250_000; i++) {
        sx.sparsemax(x, { out });
        sx.entmax(x);
        sx.softmaxBackward(x, dy);
        sx.tsallisEntropy(out);
      }
      assert.equal(sx.info().memoryBytes, before);
      assertClose(out, [0.75, 0, 0.25], 1e-6, "last result");
    });

    test("results stay right across a memory growth (views refreshed)", () => {
      const small = [1.5, 0, 1];
      assertClose(sx.sparsemax(small), [0.75, 0, 0.25], 1e-6, "before");
      const before = sx.info().memoryBytes;
      const big = new Float32Array(3 * 2_000_000).fill(1); // 24 MB each for x and the result
      const p = sx.sparsemax(big, { n: 3 });
      assert.ok(sx.info().memoryBytes > before, "memory grew");
      assert.ok(Math.abs(p[0] - 1 / 3) < 1e-6 && Math.abs(p[p.length - 1] - 1 / 3) < 1e-6);
      assertClose(sx.sparsemax(small), [0.75, 0, 0.25], 1e-6, "after");
      const grown = sx.info().memoryBytes;
      for (let i = 0; i < 1000; i++) sx.sparsemax(big.subarray(0, 3 * (i + 1)), { n: 3 });
      assert.equal(sx.info().memoryBytes, grown, "smaller calls reuse the scratch region");
    });
  });
}
