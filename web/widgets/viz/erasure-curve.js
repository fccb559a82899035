// erasure-curve.js - the erasure experiment's curve (pure, no DOM): Serrano & Smith 2019 erase
// source keys one by one until the decision flips; over many decisions, the share flipped by the
// time a fraction x of the keys is gone is a step function of x.
//   erasureCurve(fractions) -> { points: [[x, y], ...], runs, flipped, median }
// fractions: one entry per decision (explain.js runExperiments' summary.erasure[order].fractions):
// the fraction of the source keys erased when it flipped, in (0, 1], or null when it never did.
// points run from [0, 0] to [1, flipped / runs] as a staircase (a vertical step at each fraction
// where decisions flipped), ready for an SVG path; median is the median fraction over the
// decisions that flipped (NaN when none did). No runs: the flat line [[0, 0], [1, 0]].
export function erasureCurve(fractions) {
  if (!Array.isArray(fractions)) throw new TypeError(`erasureCurve: fractions must be an array (got ${typeof fractions})`);
  const runs = fractions.length;
  const flips = [];
  fractions.forEach((f, i) => {
    if (f === null) return;
    if (typeof f !== "number" || !(f > 0 && f <= 1)) {
      throw new RangeError(`erasureCurve: fractions[${i}] must be a number in (0, 1] or null (got ${String(f).slice(0, 20)})`);
    }
    flips.push(f);
  });
  flips.sort((a, b) => a - b);
  const points = [[0, 0]];
  let y = 0;
  for (let i = 0; i < flips.length;) {
    const x = flips[i];
    while (i < flips.length && flips[i] === x) i++;
    points.push([x, y]);
    y = i / runs;
    points.push([x, y]);
  }
  if (points[points.length - 1][0] < 1) points.push([1, y]);
  const m = flips.length >> 1;
  const median = !flips.length ? NaN : flips.length % 2 ? flips[m] : (flips[m - 1] + flips[m]) / 2;
  return { points, runs, flipped: flips.length, median };
}

// stepPath(points, x, y) -> SVG path data through the points, each mapped by the scales x and y
// (one decimal).
export function stepPath(points, x, y) {
  const f = (v) => (Math.round(v * 10) / 10).toString();
  return points.map(([a, b], k) => `${k ? "L" : "M"}${f(x(a))} ${f(y(b))}`).join("");
}
