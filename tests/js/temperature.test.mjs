// temperature.test.mjs - issue 28: the temperature T of every function of the JS API that takes
// one, at T = 0.37 and T = 2.5, each against references that do not go through its temperature:
//   mappings          f(x; T) = f(x / T; 1), and the float64 reference at T (helpers.mjs) where
//                     one exists
//   backward passes   dx(x, dy; T) = (1/T) dx(x / T, dy; 1) (the chain rule), and central
//                     differences in double of the function at T: of its float64 reference, or
//                     (fusedmax) of the wasm forward on a linear piece, where they are exact
//   entmaxAlphaGrad   g(x; T) = g(x / T; 1) (alpha does not meet T), and central differences in
//                     alpha of refEntmax at T
//   jacobian          J(x; T) = (1/T) J(x / T; 1), and J^T dy = the backward pass at T
//   threshold         tau(x; T) = tau(x / T; 1) (tau is in units of x / T), and p rebuilt from tau
//                     = the float64 reference at T
//   maskedMapping(Backward)  the same relations, and each valid prefix = the plain function at T
// Each also through WasmArray inputs and out (their own path in mappings.js). A list pins which
// exports take a temperature, so a new one must be added here. On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  builds, assertClose, rng, refSoftmax, refSparsemax, refEntmax, refOscarmax, refGroupmax, refSigmoid,
  numericVjp, separated,
} from "./helpers.mjs";

const TEMPERATURES = [0.37, 2.5];

// Every export of simplexity.js, by whether it takes opts.temperature. attention and the pooling
// take none (attention scales its scores by 1 / sqrt(dh), pooling's kernel by its inverse width w;
// neither option is a temperature), nor does tsallisEntropy (of a distribution p), nor the chain's
// structured attention (its scores and transition score are the scale).
const WITH_T = [
  "softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax", "sigmoid", "groupmax",
  "softmaxBackward", "sparsemaxBackward", "entmax15Backward", "entmaxBackward", "fusedmaxBackward",
  "oscarmaxBackward", "sigmoidBackward", "groupmaxBackward", "entmaxAlphaGrad", "jacobian", "threshold",
  "maskedMapping", "maskedMappingBackward", "fyLoss",
  "proxTV", "proxTVRuns",
];
const WITHOUT_T = [
  "SimplexityError", "init", "info", "tsallisEntropy", "alloc", "WasmArray", "Model", "RNN", "TextModel", "Rationale", "tasks", "attention",
  "attentionPattern", "spanMask", "attentionPooling", "attentionPoolingBackward", "positionalEncoding",
  "relativeScores", "txlScores", "attentionScores", "attentionScoresBackward",
  "chainAttention", "chainAttentionBackward", "sparsemapSelections",
];

/** Group sizes for a row of n (groupmax): 2, 3, 1, 2, 3, 1, ... the last cut to fit. */
function groupsOf(n) {
  const groups = [];
  for (let left = n, i = 0; left > 0; i++) {
    const k = Math.min(left, [2, 3, 1][i % 3]);
    groups.push(k);
    left -= k;
  }
  return groups;
}

/**
 * Each mapping: [name, its options, the options of jacobian / threshold / maskedMapping, its
 * backward pass, a float64 reference of one row at T (null: none; fusedmax is differenced through
 * the wasm forward), whether it is piecewise linear (its differences need a point off the kinks)].
 */
const MAPPINGS = [
  ["softmax", () => ({}), { mapping: "softmax" }, (z, T) => refSoftmax(z, T), false],
  ["sparsemax", () => ({}), { mapping: "sparsemax" }, (z, T) => refSparsemax(z, T), true],
  ["entmax15", () => ({}), { mapping: "entmax15" }, (z, T) => refEntmax(z, 1.5, T), false],
  // entmax at 1, 1.5 and 2 takes the fast paths of softmax, 1.5-entmax and sparsemax
  ...[1, 1.25, 1.5, 2, 3].map((alpha) =>
    ["entmax", () => ({ alpha }), { mapping: "entmax", alpha }, (z, T) => refEntmax(z, alpha, T), alpha === 2]),
  ["fusedmax", () => ({ lambda: 0.3 }), { mapping: "fusedmax", lambda: 0.3 }, null, true],
  ["oscarmax", () => ({ beta: 0.1 }), { mapping: "oscarmax", beta: 0.1 }, (z, T) => refOscarmax(z, 0.1, T), true],
  ["sigmoid", () => ({}), { mapping: "sigmoid" }, (z, T) => refSigmoid(z, T), false],
  ["groupmax", (n) => ({ groups: groupsOf(n), lambda: 0.3 }), null,
    (z, T) => refGroupmax(z, groupsOf(z.length), 0.3, T), true],
];
const label = (name, opts) => `${name}${Object.keys(opts).length ? ` ${JSON.stringify(opts)}` : ""}`;

/** x / T rounded to float32: the scores at T = 1 that the call at T sees. */
const over = (x, T) => Float32Array.from(x, (v) => v / T);
const scale = (a, s) => Float64Array.from(a, (v) => v * s);

/** rows of n scores (normal, spread 1.5) with one masked entry in row 0. */
function scores(r, rows, n) {
  const x = r.vector(rows * n, 1.5);
  x[1] = -Infinity;
  return x;
}

/** f(x, dy, out) as a Float32Array, with x, dy and out (of outLen floats) as WasmArrays. */
function throughWasmArrays(sx, f, x, dy, outLen = x.length) {
  const arrays = [];
  const put = (v) => {
    const a = sx.alloc(v.length);
    a.array.set(v);
    arrays.push(a);
    return a;
  };
  try {
    const out = sx.alloc(outLen);
    arrays.push(out);
    const got = f(put(x), dy === undefined ? undefined : put(dy), out);
    assert.equal(got, out, "the WasmArray out is returned");
    return Float32Array.from(out.array);
  } finally {
    for (const a of arrays) a.free();
  }
}

/**
 * A point x (one row of n, well separated scores) where the central differences of f (float64 in,
 * an array out) at steps h and h / 2.5 agree: no kink of a piecewise-linear map lies within the
 * step. Returns { x, fd } with fd the VJP by differences at step h.
 */
function cleanPoint(r, f, n, dy, h, agree) {
  for (let tries = 0; tries < 50; tries++) {
    const x = separated(r, n);
    const a = numericVjp(f, x, dy, h);
    const b = numericVjp(f, x, dy, h / 2.5);
    if (a.every((v, i) => Math.abs(v - b[i]) <= agree)) return { x, fd: a };
  }
  throw new Error("no point away from the kinks in 50 draws");
}

for (const { name: build, sx } of await builds()) {
  describe(`temperature [${build} build]`, () => {
    test("the exports that take a temperature: all listed, each reads it", () => {
      const exported = Object.keys(sx).filter((k) => k !== "default").sort();
      assert.deepEqual(exported, [...WITH_T, ...WITHOUT_T].sort(),
        "every export is in WITH_T or WITHOUT_T of this file: a new one taking a temperature needs its tests here");
      const x = [0.5, -1, 2, 0], dy = [1, -0.5, 0.25, 2];
      const extra = { entmax: { alpha: 1.3 }, groupmax: { groups: [1, 3] }, groupmaxBackward: { groups: [1, 3] } };
      for (const fn of WITH_T) {
        const o = { ...extra[fn], temperature: "2" };
        const call = fn === "fyLoss" ? () => sx.fyLoss(x, [2], o)
          : fn.endsWith("Backward") || fn === "entmaxAlphaGrad" ? () => sx[fn](x, dy, o) : () => sx[fn](x, o);
        assert.throws(call, (e) => e.constructor === TypeError && e.message === `${fn}: temperature must be a number (got "2")`,
          `${fn} checks (so reads) opts.temperature`);
      }
    });

    test("fyLoss at T: the loss of x / T, its gradient (p - y) / T, dalpha of x / T", () => {
      const r = rng(2802);
      for (const mapping of ["softmax", "sparsemax", "entmax15", "entmax"]) {
        for (const T of TEMPERATURES) {
          const x = scores(r, 3, 6), target = [0, 5, 2];
          const o = mapping === "entmax" ? { n: 6, mapping, alpha: 1.3 } : { n: 6, mapping };
          const g = mapping === "entmax" ? { grad: true, alphaGrad: true } : { grad: true };
          const atT = sx.fyLoss(x, target, { ...o, ...g, temperature: T }), at1 = sx.fyLoss(over(x, T), target, { ...o, ...g });
          assertClose(atT.loss, at1.loss, 2e-6, `${mapping} T=${T}: the loss is that of x / T`);
          assertClose(atT.grad, Float32Array.from(at1.grad, (v) => v / T), 2e-6, `${mapping} T=${T}: grad = (p - y) / T`);
          if (mapping === "entmax") assertClose(atT.dalpha, at1.dalpha, 2e-5, `${mapping} T=${T}: dalpha is that of x / T`);
        }
      }
    });

    test("every mapping at T: f(x; T) = f(x / T; 1) and the float64 reference at T", () => {
      const r = rng(2801);
      for (const [name, opts, , ref] of MAPPINGS) {
        for (const n of [5, 8]) {
          const rows = 3;
          const o = { ...opts(n), n };
          for (const T of TEMPERATURES) {
            const what = `${label(name, opts(n))} n=${n} T=${T}`;
            const x = scores(r, rows, n);
            const got = sx[name](x, { ...o, temperature: T });
            assertClose(got, sx[name](over(x, T), o), 2e-6, `${what}: vs T = 1 at x / T`);
            if (ref !== null) {
              const want = new Float64Array(rows * n);
              for (let b = 0; b < rows; b++) want.set(ref(Array.from(x.subarray(b * n, b * n + n)), T), b * n);
              assertClose(got, want, 2e-5, `${what}: vs the float64 reference`);
            }
            const viaWasm = throughWasmArrays(sx, (xa, _, out) => sx[name](xa, { ...o, temperature: T, out }), x);
            assert.deepEqual(viaWasm, got, `${what}: WasmArray x and out`);
          }
        }
      }
    });

    test("every backward pass at T: dx(x; T) = (1/T) dx(x / T; 1)", () => {
      const r = rng(2802);
      for (const [name, opts] of MAPPINGS) {
        const back = `${name}Backward`;
        for (const n of [5, 8]) {
          const rows = 3;
          const o = { ...opts(n), n };
          for (const T of TEMPERATURES) {
            const what = `${back} ${label(name, opts(n))} n=${n} T=${T}`;
            const x = scores(r, rows, n);
            const dy = r.vector(rows * n);
            const got = sx[back](x, dy, { ...o, temperature: T });
            assertClose(got, scale(sx[back](over(x, T), dy, o), 1 / T), 1e-5, `${what}: chain rule`);
            assert.ok(got[1] === 0, `${what}: the masked entry gets no gradient (got ${got[1]})`);
            const viaWasm = throughWasmArrays(sx, (xa, da, out) => sx[back](xa, da, { ...o, temperature: T, out }), x, dy);
            assert.deepEqual(viaWasm, got, `${what}: WasmArray x, dy and out`);
          }
        }
      }
    });

    test("every backward pass at T vs central differences in double of the function at T", () => {
      const r = rng(2803);
      for (const [name, opts, , ref, piecewise] of MAPPINGS) {
        const back = `${name}Backward`;
        for (const n of [3, 6]) {
          const o = opts(n);
          for (const T of TEMPERATURES) {
            const what = `${back} ${label(name, o)} n=${n} T=${T}`;
            const dy = r.vector(n);
            // fusedmax has no float64 reference: its wasm forward, exact on a linear piece at a
            // step far above float32 rounding; the others: the float64 reference at T.
            const f = ref === null
              ? (z) => Float64Array.from(sx[name](Float32Array.from(z), { ...o, temperature: T }))
              : (z) => ref(Array.from(z), T);
            const h = ref === null ? 1e-2 * T : piecewise ? 1e-6 : 1e-5;
            const { x, fd } = cleanPoint(r, f, n, dy, h, ref === null ? 1e-3 : 1e-6);
            assertClose(sx[back](x, dy, { ...o, temperature: T }), fd, ref === null ? 2e-3 : 1e-4, `${what} at x = [${x}]`);
          }
        }
      }
    });

    test("entmaxAlphaGrad at T: g(x; T) = g(x / T; 1) and central differences in alpha of refEntmax at T", () => {
      const r = rng(2804);
      for (const n of [3, 5, 8]) {
        for (const alpha of [1, 1.3, 1.5, 2, 2.5]) {
          for (const T of TEMPERATURES) {
            const rows = 3;
            const x = Float32Array.from({ length: rows * n }, (_, i) => separated(r, n)[i % n] * 2);
            const dy = r.vector(rows * n);
            const what = `n=${n} alpha=${alpha} T=${T}`;
            const got = sx.entmaxAlphaGrad(x, dy, { n, alpha, temperature: T });
            assert.equal(got.length, rows);
            assertClose(got, sx.entmaxAlphaGrad(over(x, T), dy, { n, alpha }), 1e-4, `${what}: vs T = 1 at x / T`);
            for (let k = 0; k < rows; k++) {
              const xr = Array.from(x.subarray(k * n, k * n + n));
              const g = dy.subarray(k * n, k * n + n);
              const dot = (a) => refEntmax(xr, a, T).reduce((s, v, i) => s + v * g[i], 0);
              // at alpha = 1 (the limit the core takes there) a one-sided difference, as gradients.test.mjs
              const fd = alpha === 1 ? (dot(1.002) - dot(1.001)) / 0.001 : (dot(alpha + 1e-5) - dot(alpha - 1e-5)) / 2e-5;
              const tol = alpha === 1 ? 0.02 : 2e-3;
              assert.ok(Math.abs(got[k] - fd) <= tol * Math.max(1, Math.abs(fd)),
                `${what} row ${k}: got ${got[k]}, differences in alpha ${fd}`);
            }
            const viaWasm = throughWasmArrays(sx, (xa, da, out) => sx.entmaxAlphaGrad(xa, da, { n, alpha, temperature: T, out }), x, dy, rows);
            assert.deepEqual(viaWasm, got, `${what}: WasmArray x, dy and out`);
          }
        }
      }
    });

    test("jacobian at T: J(x; T) = (1/T) J(x / T; 1), and J^T dy = the backward pass at T", () => {
      const r = rng(2805);
      for (const [name, opts, jo] of MAPPINGS) {
        if (jo === null) continue; // groupmax: no jacobian() (its refusal is tested in jacobian.test.mjs)
        for (const n of [5, 8]) {
          const rows = 2;
          for (const T of TEMPERATURES) {
            const what = `jacobian ${JSON.stringify(jo)} n=${n} T=${T}`;
            const x = scores(r, rows, n);
            const J = sx.jacobian(x, { ...jo, n, temperature: T });
            assertClose(J, scale(sx.jacobian(over(x, T), { ...jo, n }), 1 / T), 1e-5, `${what}: chain rule`);
            const dy = r.vector(rows * n);
            const vjp = new Float64Array(rows * n);
            for (let b = 0; b < rows; b++) {
              for (let i = 0; i < n; i++) {
                let s = 0;
                for (let k = 0; k < n; k++) s += J[b * n * n + k * n + i] * dy[b * n + k];
                vjp[b * n + i] = s;
              }
            }
            assertClose(vjp, sx[`${name}Backward`](x, dy, { ...opts(n), n, temperature: T }), 1e-5, `${what}: J^T dy`);
          }
        }
      }
    });

    test("threshold at T: tau(x; T) = tau(x / T; 1), and p rebuilt from tau = the float64 reference at T", () => {
      const r = rng(2806);
      const cases = MAPPINGS.filter(([name]) => ["softmax", "sparsemax", "entmax15", "entmax"].includes(name));
      for (const [name, opts, to, ref] of cases) {
        const alpha = name === "softmax" ? 1 : name === "sparsemax" ? 2 : name === "entmax15" ? 1.5 : opts().alpha;
        for (const n of [5, 8]) {
          const rows = 3;
          for (const T of TEMPERATURES) {
            const what = `threshold ${JSON.stringify(to)} n=${n} T=${T}`;
            const x = scores(r, rows, n);
            const tau = sx.threshold(x, { ...to, n, temperature: T });
            assert.equal(tau.length, rows);
            assertClose(tau, sx.threshold(over(x, T), { ...to, n }), 2e-6, `${what}: vs T = 1 at x / T`);
            for (let b = 0; b < rows; b++) {
              const z = Array.from(x.subarray(b * n, b * n + n), (v) => v / T);
              const p = z.map((v) => (alpha === 1 ? Math.exp(v - tau[b])
                : Math.pow(Math.max((alpha - 1) * v - tau[b], 0), 1 / (alpha - 1))));
              assertClose(p, ref(Array.from(x.subarray(b * n, b * n + n)), T), 2e-5, `${what} row ${b}: p from tau`);
            }
          }
        }
      }
    });

    test("maskedMapping and its backward at T: the relations of T, and each valid prefix = the plain function at T", () => {
      const r = rng(2807);
      const n = 8, valid = [8, 3, 0, 1, 5];
      const rows = valid.length;
      for (const [name, opts, mo] of MAPPINGS) {
        if (mo === null) continue; // groupmax: not a masked mapping
        for (const T of TEMPERATURES) {
          const what = `${JSON.stringify(mo)} T=${T}`;
          const x = r.vector(rows * n, 1.5);
          const dy = r.vector(rows * n);
          const o = { ...mo, n, validLengths: valid };
          const p = sx.maskedMapping(x, { ...o, temperature: T });
          const dx = sx.maskedMappingBackward(x, dy, { ...o, temperature: T });
          assertClose(p, sx.maskedMapping(over(x, T), o), 2e-6, `maskedMapping ${what}: vs T = 1 at x / T`);
          assertClose(dx, scale(sx.maskedMappingBackward(over(x, T), dy, o), 1 / T), 1e-5, `maskedMappingBackward ${what}: chain rule`);
          valid.forEach((v, b) => {
            const at = b * n;
            for (let j = v; j < n; j++) assert.ok(p[at + j] === 0 && dx[at + j] === 0, `${what} row ${b}[${j}] beyond the valid length`);
            if (v === 0) return;
            const xr = x.subarray(at, at + v), dyr = dy.subarray(at, at + v);
            const po = { ...opts(v), temperature: T };
            assertClose(p.subarray(at, at + v), sx[name](xr, po), 2e-6, `maskedMapping ${what} row ${b}`);
            assertClose(dx.subarray(at, at + v), sx[`${name}Backward`](xr, dyr, po), 1e-5, `maskedMappingBackward ${what} row ${b}`);
          });
        }
      }
    });
  });
}
