// loss-curve.js - the live training curve (pure): the loss of every step on a log scale and its
// running mean, as SVG path data inside a box.
//   lossCurve(losses, { maxStep, x0, x1, y0, y1, beta })
//     -> { raw, smooth, x(step), y(loss), yTicks: [{ value, y }], domain: [lo, hi] }
// losses[k] is the loss of step k + 1 (non-finite or non-positive entries are skipped); the x
// axis runs over steps 0 .. maxStep (at least the steps seen), the y axis over whole decades
// (powers of 10) covering the losses, top = y0 = the larger loss. smooth is the bias-corrected
// exponential moving average (beta, as Adam's) of the raw losses.
export function lossCurve(losses, { maxStep = 1, x0 = 0, x1 = 100, y0 = 0, y1 = 100, beta = 0.9 } = {}) {
  const pts = [];
  for (let k = 0; k < losses.length; k++) {
    const v = losses[k];
    if (Number.isFinite(v) && v > 0) pts.push([k + 1, v]);
  }
  let lo = Infinity, hi = -Infinity;
  for (const [, v] of pts) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!pts.length) { lo = 0.1; hi = 1; }
  const dLo = Math.floor(Math.log10(lo)), dHi = Math.max(dLo + 1, Math.ceil(Math.log10(hi)));
  const steps = Math.max(1, maxStep, losses.length);
  const x = (s) => x0 + (x1 - x0) * (s / steps);
  const y = (v) => y1 + (y0 - y1) * ((Math.log10(v) - dLo) / (dHi - dLo));
  const f = (n) => (Math.round(n * 10) / 10).toString();
  let raw = "", smooth = "", m = 0;
  pts.forEach(([s, v], k) => {
    raw += `${k ? "L" : "M"}${f(x(s))} ${f(y(v))}`;
    m = beta * m + (1 - beta) * Math.log(v); // averaged in log space: the plot's own scale
    smooth += `${k ? "L" : "M"}${f(x(s))} ${f(y(Math.exp(m / (1 - beta ** (k + 1)))))}`;
  });
  const yTicks = [];
  for (let d = dLo; d <= dHi; d++) yTicks.push({ value: Number((10 ** d).toPrecision(1)), y: y(10 ** d) });
  return { raw, smooth, x, y, yTicks, domain: [10 ** dLo, 10 ** dHi] };
}
