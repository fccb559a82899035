// runs.js - groups of equal weights (pure): fusedmax fuses neighbours into runs of equal
// weight, oscarmax clusters equal weights anywhere. Returns [{ start, end, value }] (end
// exclusive) for contiguous runs of length >= 2 of equal non-zero weights (relative tolerance tol).
export function fusedRuns(p, tol = 1e-5) {
  const out = [];
  let i = 0;
  while (i < p.length) {
    let j = i + 1;
    while (j < p.length && p[i] > 0 && Math.abs(p[j] - p[i]) <= tol * Math.max(p[i], 1e-12)) j++;
    if (p[i] > 0 && j - i >= 2) out.push({ start: i, end: j, value: p[i] });
    i = j;
  }
  return out;
}
