// remap.js - attention re-mapped post hoc (pure; the mapping is passed in, so Node tests run it
// with the library's): scores from the file (values "scores", -Infinity a masked key) or taken
// back from its weights (values "weights": log p, so a softmax row's scores up to a constant per
// row, which every mapping here ignores; an exact zero is a masked key, -Infinity), then each row
// mapped over its visible keys only, masked keys 0. Rows with every key visible go to the mapping
// in one call; the others one row at a time; a row with no visible key stays all 0.
//   remap({ shape: [L, H, Q, K], data, values }, run, opts) -> Float32Array of L*H*Q*K weights
//   run(x, { n, ...opts }) -> the mapping of x's rows of n (the library's softmax, sparsemax...)
export function scoresOf({ data, values }) {
  if (values === "scores") return data;
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] > 0 ? Math.log(data[i]) : -Infinity;
  return out;
}

export function remap(att, run, opts = {}) {
  const K = att.shape[3], rows = att.data.length / K, z = scoresOf(att);
  const out = new Float32Array(z.length);
  const full = [];
  for (let r = 0; r < rows; r++) {
    let visible = 0;
    for (let j = 0; j < K; j++) if (z[r * K + j] > -Infinity) visible++;
    if (visible === K) { full.push(r); continue; }
    if (visible === 0) continue;
    const idx = [], x = new Float32Array(visible);
    for (let j = 0; j < K; j++) if (z[r * K + j] > -Infinity) { x[idx.length] = z[r * K + j]; idx.push(j); }
    const p = run(x, { ...opts, n: visible });
    idx.forEach((j, k) => { out[r * K + j] = p[k]; });
  }
  if (full.length) {
    const x = new Float32Array(full.length * K);
    full.forEach((r, k) => x.set(z.subarray(r * K, r * K + K), k * K));
    const p = run(x, { ...opts, n: K });
    full.forEach((r, k) => out.set(p.subarray(k * K, k * K + K), r * K));
  }
  return out;
}
