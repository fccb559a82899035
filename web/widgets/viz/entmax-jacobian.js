// entmax-jacobian.js - the closed form of the alpha-entmax family's Jacobian, read off p (pure,
// float64; Peters, Niculae & Martins 2019): on the support S, s = p^(2 - alpha) (softmax,
// alpha = 1: s = p; sparsemax, alpha = 2: s = 1 on S), 0 elsewhere, and
//   J = dp/dz = (diag(s) - s s^T / sum(s)) / T.
// What the widgets print beside the library's jacobian(); the tests compare the two.

// entmaxWeights(p, alpha) -> s: p_i^(2 - alpha) where p_i > 0, else 0 (a Float64Array).
export function entmaxWeights(p, alpha) {
  if (!(alpha >= 1)) throw new RangeError(`entmaxWeights: alpha must be >= 1 (got ${alpha})`);
  return Float64Array.from(p, (v) => (v > 0 ? (alpha === 2 ? 1 : v ** (2 - alpha)) : 0));
}

// entmaxJacobian(p, alpha, temperature) -> J, n * n row-major (J[i*n + j] = dp_i / dz_j), from
// the weights above; all zeros when p has no positive entry.
export function entmaxJacobian(p, alpha, temperature = 1) {
  if (!(temperature > 0)) throw new RangeError(`entmaxJacobian: temperature must be > 0 (got ${temperature})`);
  const s = entmaxWeights(p, alpha), n = s.length;
  let sum = 0;
  for (const v of s) sum += v;
  const J = new Float64Array(n * n);
  if (!(sum > 0)) return J;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) J[i * n + j] = ((i === j ? s[i] : 0) - (s[i] * s[j]) / sum) / temperature;
  }
  return J;
}
