// scale.js - a linear scale and "nice" ticks (pure, no DOM).

// linear([d0, d1], [r0, r1]) -> f, with f.invert.
export function linear(domain, range) {
  const [d0, d1] = domain, [r0, r1] = range;
  if (!(d1 !== d0)) throw new RangeError(`linear: domain must have two distinct ends (got [${domain}])`);
  const k = (r1 - r0) / (d1 - d0);
  const f = (v) => r0 + (v - d0) * k;
  f.invert = (r) => d0 + (r - r0) / k;
  return f;
}

// About `count` round tick values covering [lo, hi].
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const err = raw / mag; // in [1, 10): round to 1, 2, 5 or 10 times mag, as d3-array's ticks do
  const step = mag * (err >= Math.sqrt(50) ? 10 : err >= Math.sqrt(10) ? 5 : err >= Math.sqrt(2) ? 2 : 1);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}
