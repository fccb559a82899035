// attention-stats.js - how sparse each head's attention is (pure): for one map of nq query rows
// over nk keys per head (row-major [head][query][key], as the Model returns them for one example
// after cropping the padding away), per head:
//   support  the mean number of non-zero weights per query row
//   zeros    the fraction of the weights a query may see that are exactly 0
//   entropy  the mean Shannon entropy of a row, in nats (0 for a one-hot row, ln k for uniform on k)
//   visible  the number of weights a query may see (the decoder's causal mask hides the future)
// Masked weights (the future, for kind "decoder") count neither as zeros nor in the support.
export function headStats(data, { heads, nq, nk, kind }) {
  for (const [name, v] of [["heads", heads], ["nq", nq], ["nk", nk]]) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`headStats: ${name} must be a positive integer (got ${v})`);
  }
  if (!data || data.length !== heads * nq * nk) {
    throw new RangeError(`headStats: data must hold heads * nq * nk = ${heads * nq * nk} weights (got ${data ? data.length : data})`);
  }
  const causal = kind === "decoder";
  const out = [];
  for (let h = 0; h < heads; h++) {
    let nonzero = 0, visible = 0, entropy = 0;
    for (let i = 0; i < nq; i++) {
      const row = (h * nq + i) * nk;
      const end = causal ? Math.min(nk, i + 1) : nk;
      let e = 0;
      for (let j = 0; j < end; j++) {
        const p = data[row + j];
        if (p > 0) { nonzero++; e -= p * Math.log(p); }
      }
      visible += end;
      entropy += e;
    }
    out.push({ support: nonzero / nq, zeros: (visible - nonzero) / visible, entropy: Math.max(0, entropy / nq), visible });
  }
  return out;
}
