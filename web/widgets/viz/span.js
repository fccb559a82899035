// span.js - one row of attention under an adaptive span (pure; Sukhbaatar et al. 2019, as the
// model applies it, core/src/nn.h): the query sits at position `query` of a row of n keys and
// sees key j at distance |query - j|; keys where the soft mask m is 0 are never scored (their
// score becomes -Infinity before the mapping), and after the mapping the weights are multiplied
// by m and the row renormalised.
//   spanDistances(n, query = n - 1) -> Float32Array of |query - j|
//   maskScores(scores, m) -> a copy with -Infinity where m is 0
//   applySpan(p, m) -> p m / sum(p m) (all zeros when that sum is 0); exact zeros stay exact

export function spanDistances(n, query = n - 1) {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`spanDistances: n must be an integer >= 0 (got ${n})`);
  return Float32Array.from({ length: n }, (_, j) => Math.abs(query - j));
}

export function maskScores(scores, m) {
  if (scores.length !== m.length) throw new RangeError(`maskScores: scores.length (${scores.length}) must equal m.length (${m.length})`);
  return Float32Array.from(scores, (s, j) => (m[j] > 0 ? s : -Infinity));
}

export function applySpan(p, m) {
  if (p.length !== m.length) throw new RangeError(`applySpan: p.length (${p.length}) must equal m.length (${m.length})`);
  let s = 0;
  for (let j = 0; j < p.length; j++) s += p[j] * m[j];
  const out = new Float32Array(p.length);
  if (!(s > 0)) return out;
  for (let j = 0; j < p.length; j++) out[j] = (p[j] * m[j]) / s;
  return out;
}
