// plain.js - the plain-JavaScript baseline for the benchmark: every mapping written the way a
// careful JS developer would write it without WebAssembly. Straightforward and correct, not
// deliberately slow: typed arrays, scratch buffers reused across rows, the native numeric
// TypedArray sort, doubles (JS numbers) for the arithmetic, float32 output.
//
// Every function has the shape  f(x, n, param, out) -> out, with x a Float32Array of rows * n
// scores (row-major) and out a Float32Array of the same length (allocated if omitted).
// Temperature is 1 here (the bench does not vary it).
//
//   softmax      max, Math.exp, sum, divide
//   sparsemax    sort descending, first k with 1 + k z_k > cumsum_k, tau = (cumsum_k - 1) / k
//   entmax15     sort descending, the exact prefix-moment method (Peters et al. 2019)
//   entmax       bisection on tau for any alpha >= 1 (as deep-spin/entmax's EntmaxBisect)
//   fusedmax     sparsemax(prox_TV(x; lambda)), the prox by Condat's direct 1-D TV algorithm
//   oscarmax     sort descending, subtract beta (n - k) at rank k, pool adjacent violators,
//                undo the sort, then sparsemax
//
// `node bench/plain.js` runs selfCheck(): every mapping against float64 references and
// optimality certificates on random rows (exit status 1 on a failure).

// ------------------------------------------------------------------ scratch
let scratchN = 0;
let zs = new Float64Array(0);   // sorted copy of a row
let w = new Float64Array(0);    // a row in double
let y = new Float64Array(0);    // prox output in double
let idx = new Int32Array(0);    // sort permutation
let blkSum = new Float64Array(0), blkLen = new Int32Array(0);   // PAV blocks

function scratch(n) {
  if (n <= scratchN) return;
  scratchN = n;
  zs = new Float64Array(n); w = new Float64Array(n); y = new Float64Array(n);
  idx = new Int32Array(n); blkSum = new Float64Array(n); blkLen = new Int32Array(n);
}

function output(x, out) {
  if (out === undefined) return new Float32Array(x.length);
  if (out.length !== x.length) throw new RangeError(`plain: out has ${out.length} floats, x has ${x.length}`);
  return out;
}

// ------------------------------------------------------------------ softmax
export function softmax(x, n, _unused, out) {
  out = output(x, out);
  for (let o = 0; o < x.length; o += n) {
    let m = -Infinity;
    for (let i = 0; i < n; i++) if (x[o + i] > m) m = x[o + i];
    if (m === -Infinity) { out.fill(0, o, o + n); continue; }
    let s = 0;
    for (let i = 0; i < n; i++) { const e = Math.exp(x[o + i] - m); out[o + i] = e; s += e; }
    const inv = 1 / s;
    for (let i = 0; i < n; i++) out[o + i] *= inv;
  }
  return out;
}

// ---------------------------------------------------------------- sparsemax
// tau of the projection of v[0..n) onto the simplex (v in double, any order).
function sparsemaxTau(v, n) {
  const z = zs.subarray(0, n);
  z.set(v.subarray(0, n));
  z.sort();                                  // ascending; walk it from the top
  let cum = 0, tau = 0;
  for (let r = 1; r <= n; r++) {
    const zr = z[n - r];
    if (zr === -Infinity) break;
    cum += zr;
    if (1 + r * zr > cum) tau = (cum - 1) / r; else break;
  }
  return tau;
}

function sparsemaxRow(v, n, out, o) {
  const tau = sparsemaxTau(v, n);
  for (let i = 0; i < n; i++) { const d = v[i] - tau; out[o + i] = d > 0 ? d : 0; }
}

function loadRow(x, o, n) {             // the row into w (double), -max subtracted; false if all -Inf
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[o + i] > m) m = x[o + i];
  if (m === -Infinity) return false;
  for (let i = 0; i < n; i++) w[i] = x[o + i] - m;
  return true;
}

export function sparsemax(x, n, _unused, out) {
  out = output(x, out);
  scratch(n);
  for (let o = 0; o < x.length; o += n) {
    if (!loadRow(x, o, n)) { out.fill(0, o, o + n); continue; }
    sparsemaxRow(w, n, out, o);
  }
  return out;
}

// ----------------------------------------------------------------- entmax15
export function entmax15(x, n, _unused, out) {
  out = output(x, out);
  scratch(n);
  const z = zs.subarray(0, n);
  for (let o = 0; o < x.length; o += n) {
    if (!loadRow(x, o, n)) { out.fill(0, o, o + n); continue; }
    for (let i = 0; i < n; i++) w[i] *= 0.5;         // z = (x - max) / 2
    z.set(w.subarray(0, n));
    z.sort();
    let sum = 0, sumsq = 0, tau = 0;
    for (let r = 1; r <= n; r++) {
      const zr = z[n - r];
      if (zr === -Infinity) break;
      sum += zr; sumsq += zr * zr;
      const mean = sum / r, meansq = sumsq / r;
      const ss = r * (meansq - mean * mean);
      const delta = (1 - ss) / r;
      const t = mean - Math.sqrt(delta > 0 ? delta : 0);
      if (t <= zr) tau = t; else break;                // the support is a prefix of the sort
    }
    for (let i = 0; i < n; i++) { const d = w[i] - tau; out[o + i] = d > 0 ? d * d : 0; }
  }
  return out;
}

// ------------------------------------------------------------------- entmax
// Bisection on tau in [max X - 1, max X - n^(1-alpha)], X = (alpha - 1) x, until the bracket is
// below 2^-30 (float32 accuracy after the final renormalisation), then renormalise.
export function entmax(x, n, alpha, out) {
  out = output(x, out);
  if (alpha === 1) return softmax(x, n, 0, out);
  if (alpha === 2) return sparsemax(x, n, 0, out);
  scratch(n);
  const am1 = alpha - 1, inv = 1 / am1;
  for (let o = 0; o < x.length; o += n) {
    if (!loadRow(x, o, n)) { out.fill(0, o, o + n); continue; }
    for (let i = 0; i < n; i++) w[i] *= am1;         // X - max X
    let lo = -1, hi = -Math.pow(n, -am1);            // f(lo) >= 0 >= f(hi)
    while (hi - lo > 9.3e-10) {
      const tau = 0.5 * (lo + hi);
      let s = 0;
      for (let i = 0; i < n; i++) { const d = w[i] - tau; if (d > 0) s += Math.pow(d, inv); }
      if (s >= 1) lo = tau; else hi = tau;
    }
    const tau = lo;
    let s = 0;
    for (let i = 0; i < n; i++) { const d = w[i] - tau; const p = d > 0 ? Math.pow(d, inv) : 0; y[i] = p; s += p; }
    for (let i = 0; i < n; i++) out[o + i] = y[i] / s;
  }
  return out;
}

// ----------------------------------------------------------------- fusedmax
// prox_TV(v; lambda) into res: Condat (2013), "A direct algorithm for 1-D total variation
// denoising". One pass with a dual variable and lookahead; O(n) in practice.
function proxTV(v, n, lambda, res) {
  if (n === 1 || lambda === 0) { for (let i = 0; i < n; i++) res[i] = v[i]; return; }
  let k = 0, k0 = 0, kplus = 0, kminus = 0;
  let umin = lambda, umax = -lambda;
  let vmin = v[0] - lambda, vmax = v[0] + lambda;
  const twolambda = 2 * lambda;
  for (;;) {
    while (k === n - 1) {                        // right boundary
      if (umin < 0) {                            // vmin too high: negative jump
        do res[k0++] = vmin; while (k0 <= kminus);
        k = kminus = k0; vmin = v[k]; umin = lambda; umax = vmin + umin - vmax;
      } else if (umax > 0) {                     // vmax too low: positive jump
        do res[k0++] = vmax; while (k0 <= kplus);
        k = kplus = k0; vmax = v[k]; umax = -lambda; umin = vmax + umax - vmin;
      } else {
        vmin += umin / (k - k0 + 1);
        do res[k0++] = vmin; while (k0 <= k);
        return;
      }
    }
    umin += v[k + 1] - vmin;
    if (umin < -lambda) {                        // negative jump
      do res[k0++] = vmin; while (k0 <= kminus);
      k = kplus = kminus = k0; vmin = v[k]; vmax = vmin + twolambda;
      umin = lambda; umax = -lambda;
      continue;
    }
    umax += v[k + 1] - vmax;
    if (umax > lambda) {                         // positive jump
      do res[k0++] = vmax; while (k0 <= kplus);
      k = kplus = kminus = k0; vmax = v[k]; vmin = vmax - twolambda;
      umin = lambda; umax = -lambda;
      continue;
    }
    k++;                                         // no jump: extend the segment
    if (umin >= lambda) { kminus = k; vmin += (umin - lambda) / (k - k0 + 1); umin = lambda; }
    if (umax <= -lambda) { kplus = k; vmax += (umax + lambda) / (k - k0 + 1); umax = -lambda; }
  }
}

export function fusedmax(x, n, lambda, out) {
  out = output(x, out);
  scratch(n);
  for (let o = 0; o < x.length; o += n) {
    if (!loadRow(x, o, n)) { out.fill(0, o, o + n); continue; }
    proxTV(w, n, lambda, y);
    sparsemaxRow(y, n, out, o);
  }
  return out;
}

// ----------------------------------------------------------------- oscarmax
// prox of beta sum_{i<j} max(p_i, p_j) restricted to sign-free weights (p >= 0 on the simplex):
// sorted descending, rank k (1-based) carries weight beta (n - k); then non-increasing isotonic
// regression by pool adjacent violators; then undo the sort.
function proxOscar(v, n, beta, res) {
  for (let i = 0; i < n; i++) idx[i] = i;
  const order = idx.subarray(0, n);
  order.sort((a, b) => v[b] - v[a]);
  let nb = 0;
  for (let k = 0; k < n; k++) {
    let s = v[order[k]] - beta * (n - 1 - k), len = 1;
    while (nb > 0 && blkSum[nb - 1] * len <= s * blkLen[nb - 1]) {   // mean(prev) <= mean(new)
      s += blkSum[nb - 1]; len += blkLen[nb - 1]; nb--;
    }
    blkSum[nb] = s; blkLen[nb] = len; nb++;
  }
  let k = 0;
  for (let b = 0; b < nb; b++) {
    const m = blkSum[b] / blkLen[b];
    for (let e = k + blkLen[b]; k < e; k++) res[order[k]] = m;
  }
}

export function oscarmax(x, n, beta, out) {
  out = output(x, out);
  scratch(n);
  for (let o = 0; o < x.length; o += n) {
    if (!loadRow(x, o, n)) { out.fill(0, o, o + n); continue; }
    proxOscar(w, n, beta, y);
    sparsemaxRow(y, n, out, o);
  }
  return out;
}

export const mappings = { softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax };

// --------------------------------------------------------------- self-check
// Independent float64 references and certificates, on seeded random rows.

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// sum_{i<j} max(p_i, p_j) = sum over the descending order of p_(k) (n - k), k 1-based.
function oscarPenalty(p) {
  const s = Array.from(p).sort((a, b) => b - a);
  let r = 0;
  for (let k = 0; k < s.length; k++) r += s[k] * (s.length - 1 - k);
  return r;
}

// Objectives maximised over the simplex: <p, x> - Omega(p).
const objectives = {
  sparsemax: (p, x) => p.reduce((a, pi, i) => a + pi * x[i] - 0.5 * pi * pi, 0),
  entmax15: (p, x) => p.reduce((a, pi, i) => a + pi * x[i], 0) -
                      (p.reduce((a, pi) => a + Math.pow(pi, 1.5), 0) - 1) / 0.75,  // -Omega = H^T_1.5
  fusedmax: (p, x, lam) => {
    let a = 0, tv = 0;
    for (let i = 0; i < p.length; i++) a += p[i] * x[i] - 0.5 * p[i] * p[i];
    for (let i = 1; i < p.length; i++) tv += Math.abs(p[i] - p[i - 1]);
    return a - lam * tv;
  },
  oscarmax: (p, x, beta) => p.reduce((a, pi, i) => a + pi * x[i] - 0.5 * pi * pi, 0) - beta * oscarPenalty(p),
};

// No feasible random move (pairwise mass transfers and random directions inside the simplex)
// improves the objective by more than tol: convex problem, so a local certificate is global.
function noImprovement(obj, p, x, param, rnd, tol) {
  const f0 = obj(p, x, param), n = p.length;
  for (let t = 0; t < 200; t++) {
    const q = p.slice();
    const i = Math.floor(rnd() * n), j = Math.floor(rnd() * n);
    if (i === j) continue;
    const eps = (rnd() < 0.5 ? 1e-3 : 1e-5) * (0.5 + rnd());
    const d = Math.min(eps, q[j]);               // move mass from j to i
    q[i] += d; q[j] -= d;
    if (obj(q, x, param) > f0 + tol) return `moving ${d} from ${j} to ${i} improves by ${obj(q, x, param) - f0}`;
  }
  return null;
}

function tvCertificate(v, res, lam, tol) {   // optimality of prox_TV through its dual variable
  let s = 0;
  for (let j = 0; j < v.length - 1; j++) {
    s -= v[j] - res[j];
    if (Math.abs(s) > lam + tol) return `|u_${j}| = ${Math.abs(s)} > lambda`;
    const jump = res[j + 1] - res[j];
    if (Math.abs(jump) > tol && Math.abs(s - lam * Math.sign(jump)) > tol) return `u_${j} = ${s} at a jump ${jump}`;
  }
  s -= v[v.length - 1] - res[v.length - 1];
  if (Math.abs(s) > tol) return `sum of the prox differs from the sum of the input by ${s}`;
  return null;
}

export function selfCheck({ rows = 60, verbose = false } = {}) {
  const rnd = mulberry32(12345);
  const failures = [];
  const fail = (what) => { failures.push(what); if (verbose) console.error('FAIL', what); };
  const maxDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
  for (const n of [1, 2, 3, 5, 17, 64, 300]) {
    for (let r = 0; r < rows; r++) {
      const scale = [0.1, 1, 3, 10][r % 4];
      const x = new Float32Array(n);
      for (let i = 0; i < n; i++) x[i] = (rnd() * 2 - 1) * scale * Math.sqrt(3);
      if (r % 7 === 3 && n > 2) x[1] = x[0];                       // ties
      if (r % 11 === 5 && n > 2) x[n - 1] = -Infinity;              // a masked entry
      const xd = Array.from(x);
      const fin = xd.filter((v) => v > -Infinity);
      const m = Math.max(...fin);
      const tag = (name) => `${name} n=${n} row=${r}`;
      const onSimplex = (name, p) => {
        const s = p.reduce((a, b) => a + b, 0);
        if (Math.abs(s - 1) > 2e-5 || p.some((v) => !(v >= 0))) fail(`${tag(name)}: not on the simplex (sum ${s})`);
        if (x.some((v, i) => v === -Infinity && p[i] !== 0)) fail(`${tag(name)}: masked entry not 0`);
      };
      // softmax vs float64
      const e = xd.map((v) => Math.exp(v - m)), se = e.reduce((a, b) => a + b, 0);
      const ps = softmax(x, n);
      if (maxDiff(ps, e.map((v) => v / se)) > 1e-6) fail(`${tag('softmax')}: differs from float64`);
      // sparsemax vs float64 bisection on tau (independent of the sort method)
      const pm = sparsemax(x, n);
      onSimplex('sparsemax', pm);
      {
        let lo = m - 1, hi = m;
        for (let it = 0; it < 100; it++) {
          const t = 0.5 * (lo + hi);
          if (fin.reduce((a, v) => a + Math.max(v - t, 0), 0) >= 1) lo = t; else hi = t;
        }
        const ref = xd.map((v) => Math.max(v - lo, 0));
        if (maxDiff(pm, ref) > 2e-6) fail(`${tag('sparsemax')}: differs from float64 bisection by ${maxDiff(pm, ref)}`);
      }
      // entmax15 vs float64 bisection, and entmax(alpha) vs the exact methods
      const p15 = entmax15(x, n);
      onSimplex('entmax15', p15);
      {
        let lo = m / 2 - 1, hi = m / 2;
        for (let it = 0; it < 100; it++) {
          const t = 0.5 * (lo + hi);
          if (fin.reduce((a, v) => a + Math.max(v / 2 - t, 0) ** 2, 0) >= 1) lo = t; else hi = t;
        }
        const ref = xd.map((v) => Math.max(v / 2 - lo, 0) ** 2);
        if (maxDiff(p15, ref) > 2e-6) fail(`${tag('entmax15')}: differs from float64 bisection by ${maxDiff(p15, ref)}`);
      }
      if (maxDiff(entmax(x, n, 1.5), p15) > 2e-6) fail(`${tag('entmax')}: alpha=1.5 differs from entmax15`);
      if (maxDiff(entmax(x, n, 1.999999), pm) > 1e-4) fail(`${tag('entmax')}: alpha->2 differs from sparsemax`);
      if (maxDiff(entmax(x, n, 1.0001), ps) > 2e-3) fail(`${tag('entmax')}: alpha->1 differs from softmax`);
      const p13 = entmax(x, n, 1.3);
      onSimplex('entmax 1.3', p13);
      {
        // the solution has the form [(alpha-1)(x - tau')]_+^(1/(alpha-1)): check the form
        const k = p13.reduce((a, v, i) => (v > p13[a] ? i : a), 0);
        const t = xd[k] - Math.pow(p13[k], 0.3) / 0.3;
        const ref = xd.map((v) => Math.pow(Math.max(0.3 * (v - t), 0), 1 / 0.3));
        if (maxDiff(p13, ref) > 5e-6 * Math.max(1, n / 64)) fail(`${tag('entmax')}: alpha=1.3 not of the entmax form (${maxDiff(p13, ref)})`);
      }
      // the sparse maps: no feasible move improves their objective
      for (const [name, f, param] of [['sparsemax', sparsemax, 0], ['entmax15', entmax15, 0],
                                      ['fusedmax', fusedmax, 0.5], ['oscarmax', oscarmax, 0.1],
                                      ['oscarmax', oscarmax, 0.01], ['fusedmax', fusedmax, 0.05]]) {
        if (fin.length < n) continue;                              // masked rows: objective has -Inf
        const p = Array.from(f(x, n, param));
        onSimplex(name, p);
        const why = noImprovement(objectives[name], p, xd, param, rnd, 1e-9 * Math.max(1, scale * scale));
        if (why) fail(`${tag(name)} param=${param}: ${why}`);
      }
      // fusedmax: lambda = 0 is sparsemax; the TV prox satisfies its dual certificate
      if (maxDiff(fusedmax(x, n, 0), pm) > 1e-7) fail(`${tag('fusedmax')}: lambda=0 differs from sparsemax`);
      if (maxDiff(oscarmax(x, n, 0), pm) > 1e-7) fail(`${tag('oscarmax')}: beta=0 differs from sparsemax`);
      if (fin.length === n) {
        scratch(n);
        const v = Float64Array.from(xd), res = new Float64Array(n);
        for (const lam of [0.05, 0.5, 3]) {
          proxTV(v, n, lam, res);
          const why = tvCertificate(v, res, lam, 1e-9 * Math.max(1, scale));
          if (why) fail(`${tag('prox_TV')} lambda=${lam}: ${why}`);
        }
      }
      // shift invariance of oscarmax (the signed prox of torchsparseattn is not)
      const shifted = x.map((v) => v + 5);
      if (maxDiff(oscarmax(shifted, n, 0.1), oscarmax(x, n, 0.1)) > 1e-5) fail(`${tag('oscarmax')}: not shift invariant`);
    }
  }
  // several rows per call: each row mapped independently
  const n = 7, xr = new Float32Array(5 * n).map(() => rnd() * 4 - 2);
  for (const [name, f] of Object.entries(mappings)) {
    const param = { entmax: 1.3, fusedmax: 0.5, oscarmax: 0.1 }[name] ?? 0;
    const all = f(xr, n, param);
    for (let r = 0; r < 5; r++) {
      const one = f(xr.slice(r * n, r * n + n), n, param);
      if (maxDiff(one, all.subarray(r * n, r * n + n)) !== 0) fail(`${name}: batched row ${r} differs from a single call`);
    }
  }
  return failures;
}

// `node bench/plain.js`: run the self-check.
if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href) {
  const t0 = performance.now();
  const failures = selfCheck({ verbose: true });
  const ms = (performance.now() - t0).toFixed(0);
  if (failures.length) { console.error(`plain.js self-check: ${failures.length} failures (${ms} ms)`); process.exit(1); }
  console.log(`plain.js self-check: all mappings agree with the float64 references and certificates (${ms} ms)`);
}
