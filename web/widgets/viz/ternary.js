// ternary.js - geometry of the 2-simplex drawn as an equilateral triangle (pure, no DOM).
// Corner 0 at the top, corner 1 bottom-left, corner 2 bottom-right, in SVG coordinates (y down).

const H = Math.sqrt(3) / 2;

// The three corners of a triangle of side `side` whose top corner is at (pad + side/2, pad).
export function ternaryCorners(side, pad = 0) {
  return [
    [pad + side / 2, pad],
    [pad, pad + side * H],
    [pad + side, pad + side * H],
  ];
}

// A point p on the simplex (three non-negative weights summing to 1) to (x, y).
export function ternaryXY(p, side, pad = 0) {
  const c = ternaryCorners(side, pad);
  const s = p[0] + p[1] + p[2];
  if (!(s > 0)) throw new RangeError(`ternaryXY: p must have a positive sum (got [${Array.from(p)}])`);
  const a = p[0] / s, b = p[1] / s, d = p[2] / s;
  return [a * c[0][0] + b * c[1][0] + d * c[2][0], a * c[0][1] + b * c[1][1] + d * c[2][1]];
}

// (x, y) back to barycentric weights; points outside the triangle get negative weights.
export function ternaryFromXY(x, y, side, pad = 0) {
  const [[x0, y0], [x1, y1], [x2, y2]] = ternaryCorners(side, pad);
  const det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2);
  const a = ((y1 - y2) * (x - x2) + (x2 - x1) * (y - y2)) / det;
  const b = ((y2 - y0) * (x - x2) + (x0 - x2) * (y - y2)) / det;
  return [a, b, 1 - a - b];
}

// How many of the weights are exactly zero (0: interior, 1: on an edge, 2: a corner).
export function zeroCount(p) {
  let k = 0;
  for (const v of p) if (v === 0) k++;
  return k;
}
