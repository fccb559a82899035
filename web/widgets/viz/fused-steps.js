// fused-steps.js - fusedmax's two steps as <sx-fused> draws them (pure): the fused runs of
// prox_TV as spans, and the backward pass from the runs. fusedmax(z) = sparsemax(prox_TV(z)), so
// dz = J_prox^T J_sparsemax^T dy: sparsemax's backward on the support S (dy_i minus the mean of
// dy over S, 0 off it), then the mean of that over each fused run (prox_TV's Jacobian averages
// over its runs), over T. The run values and labels are the library's (proxTV, proxTVRuns).

/** The runs of a row, from its labels (proxTVRuns: run number per entry, -1 masked): [{ run,
 *  start, end, count }] left to right, end exclusive (a run may span masked entries). */
export function runSpans(runs) {
  const spans = [];
  for (let i = 0; i < runs.length; i++) {
    const k = runs[i];
    if (k < 0) continue;
    const last = spans[spans.length - 1];
    if (last && last.run === k) { last.end = i + 1; last.count++; } else spans.push({ run: k, start: i, end: i + 1, count: 1 });
  }
  return spans;
}

/** d <dy, fusedmax(z)> / dz from p = fusedmax(z), the run labels of prox_TV(z) and dy, at
 *  temperature t: per entry, the mean over its run of sparsemax's backward (0 off the support). */
export function runGradient(p, runs, dy, t = 1) {
  let sum = 0, count = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) { sum += dy[i]; count++; }
  const mean = count ? sum / count : 0;
  const dx = new Float64Array(p.length);
  for (const s of runSpans(runs)) {
    let acc = 0;
    for (let i = s.start; i < s.end; i++) if (runs[i] === s.run && p[i] > 0) acc += dy[i] - mean;
    for (let i = s.start; i < s.end; i++) if (runs[i] === s.run) dx[i] = acc / s.count / t;
  }
  return dx;
}
