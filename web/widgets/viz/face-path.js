// face-path.js - scores that move along one face of the simplex (pure, no DOM): the lecture's
// example, sparsemax going from p = [.99, .01, 0] to [.5, .5, 0] with its support {1, 2} fixed,
// as straight-line interpolation of the scores z(t) = (1 - t) from + t to.

// faceEnds(n) -> { from, to }: [0.99, 0.01, -1, ..., -1] and [0.5, 0.5, -1, ..., -1] (n entries):
// sparsemax of either is [z1, z2, 0, ..., 0] (threshold 0), and so is every point between.
export function faceEnds(n) {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`faceEnds: n must be an integer >= 2 (got ${n})`);
  const rest = Array(n - 2).fill(-1);
  return { from: [0.99, 0.01, ...rest], to: [0.5, 0.5, ...rest] };
}

// lerpScores(from, to, t) -> (1 - t) from + t to, entry by entry (t clamped to [0, 1]).
export function lerpScores(from, to, t) {
  if (from.length !== to.length) throw new RangeError(`lerpScores: from and to differ in length (${from.length} and ${to.length})`);
  const u = Math.min(1, Math.max(0, Number(t) || 0));
  return Array.from(from, (a, i) => (u === 1 ? to[i] : a + u * (to[i] - a)));
}

// pathT(scores, from, to, tol) -> the t in [0, 1] with lerpScores(from, to, t) within tol of
// scores in every entry, or null when the scores are off the path (or from = to: then 0 when
// scores = from).
export function pathT(scores, from, to, tol = 1e-4) {
  const n = from.length;
  if (scores.length !== n || to.length !== n) return null;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) { const d = to[i] - from[i]; num += (scores[i] - from[i]) * d; den += d * d; }
  const t = den > 0 ? Math.min(1, Math.max(0, num / den)) : 0;
  const q = lerpScores(from, to, t);
  for (let i = 0; i < n; i++) if (!(Math.abs(q[i] - scores[i]) <= tol)) return null;
  return t;
}
