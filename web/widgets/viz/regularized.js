// regularized.js - argmax and the regularised max over the simplex (pure, no DOM, no wasm of
// its own: the library is passed in, so Node tests run it against either build).
//
// argmax z = argmax_{p in simplex} <p, z> is a linear program: its optimum is a vertex (a face
// when scores tie). A regulariser Omega smooths it:
//   max_Omega(z) = max_{p in simplex} <p, z> - Omega(p),   grad max_Omega(z) = the argmax p,
// the convex conjugate of Omega restricted to the simplex (Niculae & Blondel 2017). With
// Omega = -H_alpha (Tsallis; Shannon at alpha = 1) the argmax p is alpha-entmax (softmax at 1,
// sparsemax at 2), and with a temperature T, max_{T Omega}(z) = <p, z> - T Omega(p), p = mapping(z / T).

/** The Tsallis alpha of a mapping's regulariser: softmax 1 (Shannon), entmax15 1.5, sparsemax 2. */
export function mappingAlpha(mapping, alpha = 1.5) {
  const a = { softmax: 1, entmax15: 1.5, sparsemax: 2 }[mapping];
  if (a !== undefined) return a;
  if (mapping === "entmax") return alpha;
  throw new RangeError(`mappingAlpha: mapping must be softmax, sparsemax, entmax15 or entmax (got ${String(mapping).slice(0, 20)})`);
}

/**
 * Omega(p) = -H_alpha(p) per row of n, through the library's tsallisEntropy (alpha = 1: Shannon,
 * Omega = sum p log p; alpha = 2: (||p||^2 - 1) / 2, sparsemax's (1/2)||p||^2 shifted by a
 * constant). Returns a Float64Array, one value per row.
 */
export function omega(lib, p, { n = p.length, alpha = 1.5 } = {}) {
  const h = lib.tsallisEntropy(p, { n, alpha });
  return Float64Array.from(h, (v) => -v);
}

/**
 * max_{T Omega}(z) per row of n scores: { value (Float64Array, one per row), p (the mapping's
 * output, Float32Array) }. p is the library's mapping of z / T; <p, z> is summed in double over
 * p renormalised to sum 1 (float32 rounding leaves the sum off by ~1e-7, a first-order error in
 * <p, z>; along the simplex p is optimal, so its rounding moves the value only to second order).
 */
export function maxOmega(lib, z, { mapping = "softmax", alpha = 1.5, temperature = 1, n = z.length } = {}) {
  const x = z instanceof Float32Array ? z : Float32Array.from(z);
  const a = mappingAlpha(mapping, alpha);
  const opts = mapping === "entmax" ? { n, alpha, temperature } : { n, temperature };
  const p = lib[mapping](x, opts);
  const om = omega(lib, p, { n, alpha: a });
  const rows = x.length / n, value = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0, pz = 0;
    for (let i = 0; i < n; i++) s += p[r * n + i];
    for (let i = 0; i < n; i++) pz += p[r * n + i] * x[r * n + i];
    value[r] = pz / s - temperature * om[r];
  }
  return { value, p };
}

/** The optimal face of the linear program: the indices of the largest score (2: an edge, all: the whole simplex). */
export function argmaxFace(z, tol = 0) {
  let m = -Infinity;
  for (const v of z) if (v > m) m = v;
  const out = [];
  for (let i = 0; i < z.length; i++) if (z[i] >= m - tol) out.push(i);
  return out;
}

/**
 * The level lines of the linear objective <p, z> across the 2-simplex: for each level c, the
 * segment { p : <p, z> = c } as two barycentric points (null where c misses the triangle, or
 * where the objective is constant).
 */
export function levelSegments(z, levels) {
  const E = [[0, 1], [0, 2], [1, 2]];
  return levels.map((c) => {
    const pts = [];
    const add = (p) => { if (!pts.some((q) => Math.abs(q[0] - p[0]) + Math.abs(q[1] - p[1]) + Math.abs(q[2] - p[2]) < 1e-12)) pts.push(p); };
    for (const [i, j] of E) {
      if (z[i] === z[j]) continue; // parallel to the line (or on it: then its ends come from the other edges)
      const t = (c - z[j]) / (z[i] - z[j]); // p = t e_i + (1 - t) e_j
      if (t >= 0 && t <= 1) { const p = [0, 0, 0]; p[i] = t; p[j] = 1 - t; add(p); }
    }
    return pts.length >= 2 ? [pts[0], pts[pts.length - 1]] : null;
  });
}

/**
 * A square grid of the score plane z = (z1, z2, z3) with z3 fixed: (N+1)^2 points, z1 and z2
 * from lo to hi. { scores (rows of 3, for one batched call), xy ([z1, z2] per point), triangles
 * (two per cell, for isobands / isolines) }.
 */
export function planeGrid(N, lo, hi, z3) {
  if (!(Number.isInteger(N) && N >= 1 && N <= 400)) throw new RangeError(`planeGrid: N must be an integer in [1, 400] (got ${N})`);
  const count = (N + 1) * (N + 1);
  const scores = new Float32Array(count * 3), xy = new Float64Array(count * 2);
  for (let j = 0, k = 0; j <= N; j++) {
    for (let i = 0; i <= N; i++, k++) {
      const z1 = lo + ((hi - lo) * i) / N, z2 = lo + ((hi - lo) * j) / N;
      scores[3 * k] = z1; scores[3 * k + 1] = z2; scores[3 * k + 2] = z3;
      xy[2 * k] = z1; xy[2 * k + 1] = z2;
    }
  }
  const triangles = new Uint32Array(N * N * 6);
  for (let j = 0, t = 0; j < N; j++) {
    for (let i = 0; i < N; i++) {
      const a = j * (N + 1) + i, b = a + 1, c = a + N + 1, d = c + 1;
      triangles.set([a, b, d, a, d, c], t);
      t += 6;
    }
  }
  return { scores, xy, triangles, count };
}
