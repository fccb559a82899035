// threshold-steps.js - how the threshold tau of a sparse mapping is found, step by step (pure,
// float64, no wasm): what <sx-threshold> shows under "Show the steps". The library's threshold()
// gives the same tau (tests/js/threshold-steps.test.mjs compares them); these exist to be read.
//
// Units are those of threshold() (README "Jacobian and threshold"), for scores z already divided
// by the temperature:
//   sparsemax          p_i = [z_i - tau]_+
//   alpha-entmax       p_i = [(alpha - 1) z_i - tau]_+^(1 / (alpha - 1))   (entmax15: alpha 1.5)
// so the line drawn across the score bars sits at z = tau (sparsemax), z = tau / (alpha - 1)
// (entmax); softmax has no threshold (thresholdLine gives null).

/**
 * Sparsemax's closed form (Martins & Astudillo 2016, Algorithm 1): sort z descending, take the
 * cumulative sums, the support size k = max { k : 1 + k z_(k) > sum_{j<=k} z_(j) } and
 * tau = (sum_{j<=k} z_(j) - 1) / k. Returns { order (indices of z, largest first), rows: one per
 * candidate k = 1..n: { k, index, z, cumsum, inSupport (the test holds), tau ((cumsum - 1) / k) },
 * k, tau, p }.
 */
export function sparsemaxSteps(z) {
  const n = checkRow("sparsemaxSteps", z);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => z[b] - z[a] || a - b);
  const rows = [];
  let cumsum = 0, k = 0, sumK = 0;
  for (let j = 0; j < n; j++) {
    const v = z[order[j]];
    cumsum += v;
    // the test is monotone (true up to k, false after), so the last true is the support size
    const inSupport = 1 + (j + 1) * v > cumsum;
    if (inSupport) { k = j + 1; sumK = cumsum; }
    rows.push({ k: j + 1, index: order[j], z: v, cumsum, inSupport, tau: (cumsum - 1) / (j + 1) });
  }
  const tau = (sumK - 1) / k;
  const p = Array.from(z, (v) => Math.max(v - tau, 0));
  return { order, rows, k, tau, p };
}

/**
 * alpha-entmax's tau by bisection (Peters, Niculae & Martins 2019; the entmax package's
 * entmax_bisect): with X = (alpha - 1) z, f(tau) = sum_i [X_i - tau]_+^(1/(alpha-1)) - 1 falls as
 * tau grows, f(max X - 1) >= 0 and f(max X - (1/n)^(alpha-1)) <= 0; each step halves that bracket,
 * keeping f(lo) >= 0 >= f(hi). Stops after `iterations` (default 40) or once hi - lo <= tol
 * (default 1e-12). Returns { steps: [{ i, lo, hi, tau (the midpoint tried), sum (sum p at it) }],
 * tau (the last bracket's midpoint), p (at tau, normalised to sum 1 as entmax_bisect does),
 * sum (before normalising) }.
 */
export function entmaxBisection(z, alpha, { iterations = 40, tol = 1e-12 } = {}) {
  const n = checkRow("entmaxBisection", z);
  if (typeof alpha !== "number" || !(alpha > 1) || !Number.isFinite(alpha)) {
    throw new RangeError(`entmaxBisection: alpha must be a finite number > 1 (got ${alpha})`);
  }
  const a1 = alpha - 1, e = 1 / a1;
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, a1 * z[i]);
  const mass = (tau) => {
    let s = 0;
    for (let i = 0; i < n; i++) { const d = a1 * z[i] - tau; if (d > 0) s += d ** e; }
    return s;
  };
  let lo = max - 1, hi = max - (1 / n) ** a1;
  const steps = [];
  for (let i = 1; i <= iterations && hi - lo > tol; i++) {
    const mid = (lo + hi) / 2, sum = mass(mid);
    steps.push({ i, lo, hi, tau: mid, sum });
    if (sum >= 1) lo = mid; else hi = mid;
  }
  const tau = (lo + hi) / 2, sum = mass(tau);
  const p = Array.from(z, (v) => { const d = a1 * v - tau; return d > 0 ? d ** e / sum : 0; });
  return { steps, tau, p, sum };
}

/** softmax's normaliser log sum_i exp z_i, computed as max + log sum exp(z - max). */
export function logSumExp(z) {
  const n = checkRow("logSumExp", z);
  let max = -Infinity, s = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, z[i]);
  for (let i = 0; i < n; i++) s += Math.exp(z[i] - max);
  return max + Math.log(s);
}

/**
 * Where the threshold's line crosses the score bars, in units of the scores (not divided by the
 * temperature): T tau for sparsemax, T tau / (alpha - 1) for entmax (alpha 1.5 for entmax15),
 * null for softmax, which has no threshold.
 */
export function thresholdLine(mapping, tau, { alpha = 1.5, temperature = 1 } = {}) {
  switch (mapping) {
    case "sparsemax": return temperature * tau;
    case "entmax15": return (temperature * tau) / 0.5;
    case "entmax": return (temperature * tau) / (alpha - 1);
    case "softmax": return null;
    default: throw new RangeError(`thresholdLine: mapping must be softmax, sparsemax, entmax15 or entmax (got ${String(mapping).slice(0, 40)})`);
  }
}

function checkRow(fn, z) {
  if (!z || typeof z.length !== "number" || z.length < 1) throw new RangeError(`${fn}: z must be a non-empty list of numbers`);
  for (let i = 0; i < z.length; i++) {
    if (typeof z[i] !== "number" || !Number.isFinite(z[i])) throw new RangeError(`${fn}: z[${i}] must be finite (got ${z[i]})`);
  }
  return z.length;
}
