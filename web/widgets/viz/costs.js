// costs.js - the notes' table "CNNs/RNNs vs. Self-Attention" (D2L 11.6.2) as numbers (pure, no
// DOM), for a sequence of n tokens, each a d-dimensional vector, and a convolution of kernel k:
//                      operations per layer   sequential operations   maximum path length
//   CNN                k n d^2                1                       n / k
//   RNN                n d^2                  n                       n
//   self-attention     n^2 d                  1                       1
// The table's entries are orders, O(.): constants are dropped, and so are the drawn graphs' exact
// counts (below). Self-attention does more operations than the RNN once n > d, than the CNN once
// n > k d: the crossovers.

export const ARCHS = Object.freeze(["cnn", "rnn", "attention"]);

/** The three rows of the table at (n, d, k): { ops, sequential, path } per architecture. */
export function costTable(n, d, k) {
  return {
    cnn: { ops: k * n * d * d, sequential: 1, path: n / k },
    rnn: { ops: n * d * d, sequential: n, path: n },
    attention: { ops: n * n * d, sequential: 1, path: 1 },
  };
}

/** The n where self-attention's n^2 d overtakes each: the RNN's n d^2 at n = d, the CNN's k n d^2 at n = k d. */
export function crossovers(d, k) {
  return { rnn: d, cnn: k * d };
}

/** The CNN's drawn graph: stacked convolutions of kernel k (no padding drawn) until the last
 *  output sees the first input: ceil((n - 1) / (k - 1)) layers (k >= 2), its longest path. */
export function cnnLayers(n, k) {
  if (!(k >= 2)) throw new RangeError(`cnnLayers: k must be >= 2 (got ${k})`);
  return Math.max(1, Math.ceil((n - 1) / (k - 1)));
}

/** Least squares through the origin: the c with t ~ c f (times t against formula values f). */
export function fitScale(f, t) {
  let num = 0, den = 0;
  for (let i = 0; i < f.length; i++) { num += f[i] * t[i]; den += f[i] * f[i]; }
  return den > 0 ? num / den : 0;
}

/** The sizes the browser measures at (n, d): n/8 .. 2n by doublings, each >= 2 and <= nMax,
 *  those whose n^2 d stays within `budget` (one call, one task: the page stays responsive). */
export function ladder(n, d, { nMax = 2048, budget = 2 ** 26 } = {}) {
  const out = [];
  for (const f of [1 / 8, 1 / 4, 1 / 2, 1, 2]) {
    const m = Math.min(nMax, Math.max(2, Math.round(n * f)));
    if (m * m * d <= budget && !out.includes(m)) out.push(m);
  }
  return out;
}
