// importance-bars.js - one row of per-token scores as bars (pure, no DOM): <sx-explain> draws
// attention weights and signed attributions (gradient x input, integrated gradients,
// leave-one-out can be negative) on one scale per row.
//   importanceBars(values) -> { max, bars: [{ value, h }] }
// max = the largest |value| (non-finite values count as 0); h = value / max in [-1, 1], the bar's
// signed height as a share of the row's half-height (all 0 when max is 0).
export function importanceBars(values) {
  if (!values || typeof values.length !== "number") throw new TypeError("importanceBars: values must be an array of numbers");
  const v = Array.from(values, (x) => (Number.isFinite(x) ? x : 0));
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  return { max, bars: v.map((value) => ({ value, h: max > 0 ? value / max : 0 })) };
}
