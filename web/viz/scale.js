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
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}
