// helpers.mjs - shared by the tests/js/*.test.mjs suites (not itself a test file).
//
// builds(): both wasm builds, each in its own instance of dist/simplexity.js. init() is memoised
// per module instance, and an ES module imported under a different URL (here an ?instance=
// query, which tools/instances.mjs, registered below, carries to the library's own relative
// imports) is a separate instance, so the SIMD and the scalar builds can be tested in one
// process without a test-only switch in the library. SIMPLEXITY_DIST=<dir> points the tests at
// another dist/.
//
// Also: float64 reference implementations, a seeded PRNG, finite differences, and comparisons.

import assert from "node:assert/strict";
import { register } from "node:module";
import { pathToFileURL } from "node:url";
import { mulberry32 } from "../../web/widgets/viz/mulberry32.js";

export const DIST = process.env.SIMPLEXITY_DIST
  ? pathToFileURL(process.env.SIMPLEXITY_DIST.replace(/\/?$/, "/"))
  : new URL("../../dist/", import.meta.url);

register(new URL("../../tools/instances.mjs", import.meta.url));

export const BUILDS = [
  { name: "simd", simd: true },
  { name: "scalar", simd: false },
];

/** A fresh, not yet initialised instance of the public module. */
export function freshModule(tag) {
  return import(new URL(`simplexity.js?instance=${tag}`, DIST).href);
}

let loaded = null;
/** [{ name, simd, sx }] with sx an initialised module instance per build. */
export function builds() {
  loaded ??= Promise.all(
    BUILDS.map(async (b) => {
      const sx = await freshModule(b.name);
      await sx.init({ simd: b.simd });
      return { ...b, sx };
    }),
  );
  return loaded;
}

// ----------------------------------------------------------------- comparisons
/** f() throws exactly an instance of Cls (not a subclass) with this message (a string, or a
 *  RegExp it matches) and these fields. */
export function throwsExactly(f, Cls, message, extra = {}) {
  assert.throws(f, (e) => {
    assert.equal(e.constructor, Cls, `expected ${Cls.name}, got ${e && e.constructor.name}: ${e && e.message}`);
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    for (const [k, v] of Object.entries(extra)) assert.equal(e[k], v, `error.${k}`);
    return true;
  });
}

export function assertClose(actual, expected, tol, what = "") {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    const err = Math.abs(a - e);
    if (!(err <= tol * Math.max(1, Math.abs(e)))) {
      assert.fail(`${what}[${i}]: got ${a}, expected ${e} (|diff| ${err} > tol ${tol})\n` +
        `  actual   [${Array.from(actual).join(", ")}]\n  expected [${Array.from(expected).join(", ")}]`);
    }
  }
}

/** Every row: entries finite, >= 0, summing to 1 within tol (or all zeros when allowed). */
export function assertOnSimplex(p, n, tol = 1e-5, what = "", { allowZeroRow = false } = {}) {
  for (let r = 0; r < p.length / n; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const v = p[r * n + i];
      assert.ok(Number.isFinite(v) && v >= 0, `${what}: row ${r} entry ${i} is ${v}`);
      s += v;
    }
    if (allowZeroRow && s === 0) continue;
    assert.ok(Math.abs(s - 1) <= tol, `${what}: row ${r} sums to ${s}`);
  }
}

// ------------------------------------------------------------------------ PRNG
/** mulberry32: a small seeded PRNG, so every failure is reproducible. */
export function rng(seed) {
  const next = mulberry32(seed);
  next.normal = () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  next.vector = (len, scale = 1) => Float32Array.from({ length: len }, () => scale * next.normal());
  return next;
}

// ---------------------------------------------------- float64 reference mappings
// One row at a time, straight from the definitions in docs/SCIENCE.md. -Infinity entries are
// masked (weight 0); an all-masked row maps to zeros.

function masked(x, f) {
  const keep = [];
  for (let i = 0; i < x.length; i++) if (x[i] !== -Infinity) keep.push(i);
  const p = new Array(x.length).fill(0);
  if (keep.length === 0) return p;
  const q = f(keep.map((i) => x[i]));
  keep.forEach((i, k) => (p[i] = q[k]));
  return p;
}

export function refSoftmax(x, T = 1) {
  return masked(x, (z) => {
    const m = Math.max(...z);
    const e = z.map((v) => Math.exp((v - m) / T));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / s);
  });
}

export function refSparsemax(x, T = 1) {
  return masked(x, (z0) => {
    const z = z0.map((v) => v / T);
    const zs = [...z].sort((a, b) => b - a);
    let cum = 0;
    let k = 0;
    let cumK = 0;
    for (let r = 1; r <= zs.length; r++) {
      cum += zs[r - 1];
      if (1 + r * zs[r - 1] > cum) {
        k = r;
        cumK = cum;
      }
    }
    const tau = (cumK - 1) / k;
    return z.map((v) => Math.max(v - tau, 0));
  });
}

/** alpha-entmax by bisection in double (alpha > 1), softmax at alpha = 1. */
export function refEntmax(x, alpha = 1.5, T = 1) {
  if (alpha === 1) return refSoftmax(x, T);
  return masked(x, (z0) => {
    const m = Math.max(...z0);
    const X = z0.map((v) => ((alpha - 1) * (v - m)) / T);
    const e = 1 / (alpha - 1);
    const mass = (tau) => X.reduce((s, v) => s + (v > tau ? Math.pow(v - tau, e) : 0), 0);
    let lo = -1;
    let hi = -Math.pow(1 / X.length, alpha - 1);
    for (let it = 0; it < 200; it++) {
      const mid = (lo + hi) / 2;
      if (mass(mid) >= 1) lo = mid;
      else hi = mid;
    }
    const tau = (lo + hi) / 2;
    const p = X.map((v) => (v > tau ? Math.pow(v - tau, e) : 0));
    const s = p.reduce((a, b) => a + b, 0);
    return p.map((v) => v / s);
  });
}

/** oscarmax: sort descending, subtract beta (n - k) at rank k, pool adjacent violators
 *  (non-increasing), undo the sort, then sparsemax (docs/SCIENCE.md). */
export function refOscarmax(x, beta = 1, T = 1) {
  return masked(x, (z0) => {
    const z = z0.map((v) => v / T);
    const n = z.length;
    const order = z.map((_, i) => i).sort((a, b) => z[b] - z[a]);
    const v = order.map((i, k) => z[i] - beta * (n - 1 - k));
    const blocks = []; // [sum, count]
    for (const val of v) {
      blocks.push([val, 1]);
      while (blocks.length > 1) {
        const [s2, c2] = blocks[blocks.length - 1];
        const [s1, c1] = blocks[blocks.length - 2];
        if (s1 / c1 >= s2 / c2) break;
        blocks.splice(-2, 2, [s1 + s2, c1 + c2]);
      }
    }
    const w = new Array(n);
    let k = 0;
    for (const [s, c] of blocks) for (let j = 0; j < c; j++) w[order[k++]] = s / c;
    return refSparsemax(w);
  });
}

/** groupmax (contiguous groups, lambda acting on z = x / T) by bisection on the mass
 *  f(tau) = sum_g (1 - lam / ||[z_g - tau]_+||)_+ ||[z_g - tau]_+||_1. */
export function refGroupmax(x, groups, lam, T = 1) {
  const top = Math.max(...x);
  if (top === -Infinity) return x.map(() => 0);
  const z = x.map((v) => (v - top) / T);
  const at = (tau) => {
    const p = new Array(z.length).fill(0);
    let from = 0;
    for (const k of groups) {
      let q = 0;
      for (let i = from; i < from + k; i++) if (z[i] > tau) q += (z[i] - tau) ** 2;
      const r = Math.sqrt(q), s = r > lam ? 1 - lam / r : 0;
      for (let i = from; i < from + k; i++) if (z[i] > tau) p[i] = s * (z[i] - tau);
      from += k;
    }
    return p;
  };
  let lo = -1 - lam, hi = 0;
  for (let it = 0; it < 200; it++) {
    const mid = (lo + hi) / 2;
    if (at(mid).reduce((a, b) => a + b, 0) > 1) lo = mid; else hi = mid;
  }
  return at((lo + hi) / 2);
}

/** sigmoid(x / T), entry by entry (not on the simplex). */
export function refSigmoid(x, T = 1) {
  return x.map((v) => 1 / (1 + Math.exp(-v / T)));
}

export function refTsallis(p, alpha) {
  if (alpha === 1) return -p.reduce((s, v) => s + (v > 0 ? v * Math.log(v) : 0), 0);
  return (1 - p.reduce((s, v) => s + Math.pow(v, alpha), 0)) / (alpha * (alpha - 1));
}

/** Apply a one-row reference to every row of x. */
export function byRow(f, x, n, ...args) {
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length / n; r++) {
    out.set(f(Array.from(x.subarray ? x.subarray(r * n, r * n + n) : x.slice(r * n, r * n + n)), ...args), r * n);
  }
  return out;
}

/** n scores spread by `spread` in a shuffled order, plus a little noise: no support change lies
 *  within a small step. */
export function separated(r, n, spread = 0.35) {
  const x = Array.from({ length: n }, (_, i) => i * spread + 0.05 * r());
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [x[i], x[j]] = [x[j], x[i]];
  }
  return Float32Array.from(x);
}

/** Central-difference VJP: d <dy, f(x)> / dx, f mapping a float64 array to an array. */
export function numericVjp(f, x, dy, h = 1e-5) {
  const g = new Float64Array(x.length);
  const xx = Float64Array.from(x);
  const dot = (p) => p.reduce((s, v, i) => s + v * dy[i], 0);
  for (let i = 0; i < x.length; i++) {
    const x0 = xx[i];
    xx[i] = x0 + h;
    const fp = dot(f(xx));
    xx[i] = x0 - h;
    const fm = dot(f(xx));
    xx[i] = x0;
    g[i] = (fp - fm) / (2 * h);
  }
  return g;
}
