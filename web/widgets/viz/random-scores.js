// random-scores.js - seeded score vectors (pure): count rows of n scores, uniform in [lo, hi]
// like the seed notebook's torch.rand(100, 3) * 2 - 1, the same picture on every load.
export function randomScores(count, n = 3, seed = 1, lo = -1, hi = 1) {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(count * n);
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + ((hi - lo) * s) / 4294967296;
  }
  return out;
}
