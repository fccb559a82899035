// diverging.js - a diverging scale for signed values such as a Jacobian's entries (pure, no
// DOM): which side of zero a value is on and how strongly to tint it (the colours themselves are
// the widget's CSS custom properties, one per side, so the scale follows the theme), and a round
// bound for the legend.

// divergingLevel(v, max) -> { side, level }: side "pos", "neg" or "zero" (an exact zero, or
// anything that is not a finite number), level in [0, 1] = |v| / max (clamped), at least `floor`
// for a non-zero v so the smallest entry still shows a tint.
export function divergingLevel(v, max, { floor = 0.06 } = {}) {
  if (!Number.isFinite(v) || v === 0) return { side: "zero", level: 0 };
  const m = max > 0 && Number.isFinite(max) ? max : 1;
  return { side: v > 0 ? "pos" : "neg", level: Math.max(floor, Math.min(1, Math.abs(v) / m)) };
}

// niceMax(m) -> the smallest of 1, 2, 2.5, 5 times a power of ten that is >= m: the legend's
// bound (m <= 0, or not a finite number: 1).
export function niceMax(m) {
  if (!(m > 0) || !Number.isFinite(m)) return 1;
  const mag = 10 ** Math.floor(Math.log10(m));
  for (const k of [1, 2, 2.5, 5, 10]) {
    const v = Number((k * mag).toPrecision(12));
    if (v >= m * (1 - 1e-12)) return v;
  }
  return 10 * mag;
}
