// fused-cost.js - what fusedmax's backward costs against the number of fused runs (issue 25: "for
// fusedmax, because the groups are always contiguous, a single linear pass over the output
// computes the backward given the solution"). Rows of n scores made of k equal blocks, so that
// prox_TV has exactly k runs, all in the support; each timed through the library passed in (the
// bench in Node, bench/fused-backward.mjs, and <sx-fused> in the page):
//   forward   fusedmax(x)                    (the baseline of every ratio, in the same run)
//   backward  fusedmaxBackward(x, dy)        (the core runs the forward again, then the pass)
//   dense     jacobian(x) then J^T dy        (what a backward costs without the structure)
// Figures are per row, in microseconds; compare them as ratios (a shared machine is noisy).

/** rows of n scores in k blocks (k <= n) alternating 0 and 1, and the options that make each
 *  block one run of prox_TV inside the support: z = x / T with T = 2n (so the n weights of
 *  sparsemax over values 0 and 1/T all stay positive), lambda = 1 / (100 T) (far below a jump). */
export function blockScores(n, k, rows = 1) {
  const x = new Float32Array(rows * n);
  for (let r = 0; r < rows; r++) for (let i = 0; i < n; i++) x[r * n + i] = Math.floor((i * k) / n) % 2;
  const temperature = 2 * n;
  return { x, opts: { n, temperature, lambda: 1 / (100 * temperature) } };
}

/** Median of an array of numbers. */
const median = (a) => { const s = [...a].sort((p, q) => p - q); return s[s.length >> 1]; };

/** Per-call time of f in microseconds: repeated for about `ms` milliseconds, `repeats` times,
 *  the median. */
function timeCall(f, now, ms, repeats) {
  const t = [];
  for (let r = 0; r < repeats; r++) {
    let calls = 0, t1;
    const t0 = now();
    do { f(); calls++; t1 = now(); } while (t1 - t0 < ms);
    t.push(((t1 - t0) * 1000) / calls);
  }
  return median(t);
}

/**
 * One case: n, k runs, `rows` rows per call. lib: { fusedmax, fusedmaxBackward, proxTVRuns,
 * jacobian }. Returns { n, k, runs, support, forward, backward, dense } (times per row, us; runs
 * and support as the library computed them for the first row, so a caller can check the case is
 * what it says). `after` (optional) is awaited between timings (a page yields to its frames).
 */
export async function measureCase(lib, { n, k, rows = 16, ms = 40, repeats = 3, now = () => performance.now(), after = null }) {
  const { x, opts } = blockScores(n, k, rows);
  const dy = new Float32Array(x.length);
  for (let i = 0; i < dy.length; i++) dy[i] = ((i * 7919) % 13) / 13 - 0.5;
  const out = new Float32Array(x.length);
  const runs = lib.proxTVRuns(x.subarray(0, n), opts);
  const p = lib.fusedmax(x.subarray(0, n), opts);
  const one = x.subarray(0, n), dy1 = dy.subarray(0, n), dx = new Float64Array(n);
  const dense = () => {
    const J = lib.jacobian(one, { ...opts, mapping: "fusedmax" });
    for (let j = 0; j < n; j++) { // dx = J^T dy
      let s = 0;
      for (let i = 0; i < n; i++) s += J[i * n + j] * dy1[i];
      dx[j] = s;
    }
  };
  const res = { n, k, runs: runs[n - 1] + 1, support: p.reduce((c, v) => c + (v > 0), 0) };
  res.forward = timeCall(() => lib.fusedmax(x, { ...opts, out }), now, ms, repeats) / rows;
  if (after) await after();
  res.backward = timeCall(() => lib.fusedmaxBackward(x, dy, { ...opts, out }), now, ms, repeats) / rows;
  if (after) await after();
  res.dense = timeCall(dense, now, ms, repeats);
  return res;
}

/** The run counts measured at n: 1, a few, many, and every entry its own run. */
export const runCounts = (n) => [1, 8, Math.max(8, n >> 3), n].filter((k, i, a) => k <= n && a.indexOf(k) === i);
