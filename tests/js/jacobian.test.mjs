// jacobian.test.mjs - jacobian() and threshold(): the Jacobian against central differences of
// the float64 references in helpers.mjs (scores well separated, so no support change lies within
// the step), J^T dy against every backward pass, symmetry and zero row sums, the lecture's example
// (sparsemax's Jacobian depends on the support only), masks; tau rebuilt into p equals the forward
// pass; argument errors (bad mapping, a parameter of another mapping, a detached x, a Jacobian too
// large for wasm memory, NaN scores). On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, rng, refSoftmax, refSparsemax, refEntmax, refOscarmax, separated } from "./helpers.mjs";

/** The full Jacobian of a float64 reference f by central differences: J[i*n + j] = dp_i/dx_j. */
function numericJacobian(f, x, h = 1e-5) {
  const n = x.length;
  const J = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const xp = Array.from(x), xm = Array.from(x);
    xp[j] += h;
    xm[j] -= h;
    const pp = f(xp), pm = f(xm);
    for (let i = 0; i < n; i++) J[i * n + j] = (pp[i] - pm[i]) / (2 * h);
  }
  return J;
}

// mapping options and their backward pass
const MAPPINGS = [
  [{ mapping: "softmax" }, "softmaxBackward", {}],
  [{ mapping: "sparsemax" }, "sparsemaxBackward", {}],
  [{ mapping: "entmax15" }, "entmax15Backward", {}],
  [{ mapping: "entmax", alpha: 1.25 }, "entmaxBackward", { alpha: 1.25 }],
  [{ mapping: "entmax", alpha: 3 }, "entmaxBackward", { alpha: 3 }],
  [{ mapping: "fusedmax", lambda: 0.3 }, "fusedmaxBackward", { lambda: 0.3 }],
  [{ mapping: "oscarmax", beta: 0.1 }, "oscarmaxBackward", { beta: 0.1 }],
];

for (const { name, sx } of await builds()) {
  describe(`jacobian and threshold [${name} build]`, () => {
    test("jacobian vs central differences of the float64 references", () => {
      const r = rng(151);
      const refs = [
        ["softmax", {}, (z, T) => refSoftmax(z, T)],
        ["sparsemax", {}, (z, T) => refSparsemax(z, T)],
        ["entmax15", {}, (z, T) => refEntmax(z, 1.5, T)],
        ["entmax", { alpha: 1.25 }, (z, T) => refEntmax(z, 1.25, T)],
        ["entmax", { alpha: 3 }, (z, T) => refEntmax(z, 3, T)],
        ["oscarmax", { beta: 0.05 }, (z, T) => refOscarmax(z, 0.05, T)],
      ];
      for (const [mapping, extra, f] of refs) {
        for (const n of [2, 3, 5, 8]) {
          for (const T of [1, 0.7]) {
            const x = separated(r, n);
            const J = sx.jacobian(x, { mapping, ...extra, temperature: T });
            assert.equal(J.length, n * n);
            assertClose(J, numericJacobian((z) => f(z, T), x), 1e-4, `${mapping} ${JSON.stringify(extra)} n=${n} T=${T}`);
          }
        }
      }
    });

    test("J^T dy equals every backward pass (rows, masks, temperature)", () => {
      const r = rng(152);
      for (const [opts, back, bopts] of MAPPINGS) {
        for (const [rows, n] of [[1, 1], [1, 4], [3, 5], [2, 16]]) {
          const x = r.vector(rows * n, 1.5);
          if (n > 1) x[1] = -Infinity;
          const dy = Float32Array.from({ length: rows * n }, () => 2 * r() - 1);
          const T = 0.8;
          const J = sx.jacobian(x, { ...opts, n, temperature: T });
          assert.equal(J.length, rows * n * n);
          const vjp = new Float64Array(rows * n);
          for (let b = 0; b < rows; b++) {
            for (let i = 0; i < n; i++) {
              let s = 0;
              for (let k = 0; k < n; k++) s += J[b * n * n + k * n + i] * dy[b * n + k];
              vjp[b * n + i] = s;
            }
          }
          const want = sx[back](x, dy, { ...bopts, n, temperature: T });
          for (let i = 0; i < vjp.length; i++) {
            assert.ok(Math.abs(vjp[i] - want[i]) <= 1e-6, `${back} rows=${rows} n=${n} [${i}]: ${vjp[i]} vs ${want[i]}`);
          }
          if (n > 1) { // masked entry 1 of row 0: zero row and column
            for (let k = 0; k < n; k++) assert.ok(J[n + k] === 0 && J[k * n + 1] === 0, `${opts.mapping}: masked row / column`);
          }
        }
      }
    });

    test("symmetric for softmax, sparsemax and entmax; rows sum to 0 for all", () => {
      const r = rng(153);
      for (const [opts] of MAPPINGS) {
        const n = 7;
        const J = sx.jacobian(r.vector(n), opts);
        const symmetric = opts.mapping !== "fusedmax" && opts.mapping !== "oscarmax";
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < n; j++) {
            s += J[i * n + j];
            if (symmetric) assert.equal(J[i * n + j], J[j * n + i], `${opts.mapping}: J[${i}][${j}]`);
          }
          assert.ok(Math.abs(s) <= 1e-6, `${opts.mapping}: row ${i} sums to ${s}`);
        }
      }
    });

    test("the lecture's example: sparsemax's Jacobian at p = [.99, .01, 0] and [.5, .5, 0] is the same", () => {
      const a = sx.jacobian([0.99, 0.01, -1], { mapping: "sparsemax" });
      const b = sx.jacobian([0.5, 0.5, -1], { mapping: "sparsemax" });
      assert.deepEqual(Array.from(a), [0.5, -0.5, 0, -0.5, 0.5, 0, 0, 0, 0]);
      assert.deepEqual(Array.from(b), Array.from(a));
      const sa = sx.jacobian([0.99, 0.01, -1]), sb = sx.jacobian([0.5, 0.5, -1]);
      assert.ok(Math.abs(sa[0] - sb[0]) > 0.01, "softmax's Jacobian moves with p");
    });

    test("threshold: p rebuilt from tau equals the forward pass", () => {
      const r = rng(154);
      const cases = [
        [{ mapping: "softmax" }, 1, (x, o) => sx.softmax(x, o)],
        [{ mapping: "sparsemax" }, 2, (x, o) => sx.sparsemax(x, o)],
        [{ mapping: "entmax15" }, 1.5, (x, o) => sx.entmax15(x, o)],
        [{ mapping: "entmax", alpha: 1.25 }, 1.25, (x, o) => sx.entmax(x, { ...o, alpha: 1.25 })],
        [{ mapping: "entmax", alpha: 2 }, 2, (x, o) => sx.entmax(x, { ...o, alpha: 2 })],
        [{ mapping: "entmax", alpha: 3 }, 3, (x, o) => sx.entmax(x, { ...o, alpha: 3 })],
      ];
      for (const [opts, alpha, forward] of cases) {
        for (const T of [1, 0.5, 3]) {
          const rows = 4, n = 6;
          const x = r.vector(rows * n, 2);
          x[2] = -Infinity;
          const tau = sx.threshold(x, { ...opts, n, temperature: T });
          assert.equal(tau.length, rows);
          const p = forward(x, { n, temperature: T });
          for (let b = 0; b < rows; b++) {
            let s = 0;
            for (let i = 0; i < n; i++) {
              const z = x[b * n + i] / T;
              const q = alpha === 1 ? Math.exp(z - tau[b])
                : Math.pow(Math.max((alpha - 1) * z - tau[b], 0), 1 / (alpha - 1));
              assert.ok(Math.abs(q - p[b * n + i]) <= 1e-5, `${JSON.stringify(opts)} T=${T} row ${b} [${i}]: ${q} vs ${p[b * n + i]}`);
              s += q;
            }
            assert.ok(Math.abs(s - 1) <= 1e-5, `${JSON.stringify(opts)} T=${T}: sum ${s}`);
          }
        }
      }
      // sparsemax([2, 1, -1]) = [1, 0, 0] with tau = 1; units of x / T: tau = 3 at T = 0.5
      assert.deepEqual(Array.from(sx.threshold([2, 1, -1], { mapping: "sparsemax" })), [1]);
      assert.deepEqual(Array.from(sx.threshold([2, 1, -1], { mapping: "sparsemax", temperature: 0.5 })), [3]);
      // all-masked rows: +Infinity (sparse), -Infinity (softmax)
      assert.deepEqual(Array.from(sx.threshold([-Infinity, -Infinity], { mapping: "entmax15" })), [Infinity]);
      assert.deepEqual(Array.from(sx.threshold([-Infinity, -Infinity])), [-Infinity]);
      const out = new Float32Array(2);
      assert.equal(sx.threshold([0, 1, 2, 3], { n: 2, mapping: "sparsemax", out }), out);
      assert.deepEqual(Array.from(out), [0, 2]);
    });

    test("errors name the function, the argument and the value", () => {
      const { SimplexityError } = sx;
      assert.throws(() => sx.jacobian([1, 2], { mapping: "argmax" }),
        { name: "RangeError", message: 'jacobian: mapping must be one of "softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax", "sigmoid" (got "argmax")' });
      assert.throws(() => sx.jacobian([1, 2], { mapping: 1 }), { name: "TypeError", message: "jacobian: mapping must be a string (got 1)" });
      assert.throws(() => sx.jacobian([1, 2], { mapping: "sparsemax", alpha: 1.5 }),
        { name: "RangeError", message: 'jacobian: alpha applies to mapping "entmax" only (mapping is "sparsemax")' });
      assert.throws(() => sx.jacobian([1, 2], { mapping: "oscarmax", beta: -1 }),
        { name: "RangeError", message: "jacobian: beta must be >= 0 (got -1)" });
      assert.throws(() => sx.jacobian([1, 2], { mapping: "entmax", alpha: 0.5 }),
        { name: "RangeError", message: "jacobian: alpha must be >= 1 (got 0.5)" });
      assert.throws(() => sx.threshold([1, 2], { mapping: "fusedmax" }),
        { name: "RangeError", message: /^threshold: mapping must be one of "softmax", "sparsemax", "entmax15", "entmax" \(got "fusedmax"\): fusedmax has no threshold on the scores/ });
      assert.throws(() => sx.threshold([1, 2], { mapping: "oscarmax" }), { name: "RangeError", message: /oscarmax has no threshold/ });
      assert.throws(() => sx.threshold([1, 2], { mapping: "sparsemax", lambda: 1 }),
        { name: "RangeError", message: 'threshold: lambda applies to mapping "fusedmax" only (mapping is "sparsemax")' });
      // a detached x
      const x = new Float32Array(4);
      structuredClone(x.buffer, { transfer: [x.buffer] });
      assert.throws(() => sx.jacobian(x), { name: "TypeError", message: "jacobian: x is a detached Float32Array" });
      assert.throws(() => sx.threshold(x), { name: "TypeError", message: "threshold: x is a detached Float32Array" });
      // rows * n * n beyond wasm memory: refused before anything is allocated
      assert.throws(() => sx.jacobian(new Float32Array(1 << 15)),
        { name: "RangeError", message: "jacobian: the Jacobian has rows * n * n = 1 * 32768 * 32768 = 1073741824 floats, more than 536870911 (2 GiB of wasm memory)" });
      assert.throws(() => sx.jacobian([1, 2, 3], { out: new Float32Array(3) }),
        { name: "RangeError", message: "jacobian: out.length (3) must equal rows * n * n (9)" });
      // NaN scores: the C core's error, with the index
      assert.throws(() => sx.jacobian([1, 2, 3, NaN], { n: 2, mapping: "sparsemax" }),
        (e) => e instanceof SimplexityError && e.code === 2 && e.index === 3 && /^jacobian: x\[3\]/.test(e.message));
      assert.throws(() => sx.threshold([1, Infinity]), (e) => e instanceof SimplexityError && e.code === 2 && e.index === 1);
      // empty input
      assert.equal(sx.jacobian([]).length, 0);
      assert.equal(sx.threshold(new Float32Array(0)).length, 0);
    });
  });
}
