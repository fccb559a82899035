// entropy-layer.js - filled contours of the Tsallis alpha-entropy over the simplex, drawn into
// an SVG group (shared by <sx-entropy> and <sx-simplex entropy=...>; not an element itself).
// The field is one batched tsallisEntropy call over a triangular mesh of the simplex.
import { tsallisEntropy } from "../lib/mappings.js";
import { simplexGrid } from "./viz/simplex-grid.js";
import { isobands } from "./viz/isobands.js";
import { isolines } from "./viz/isolines.js";
import { interpolateColors, parseColor } from "./viz/color.js";
import { ternaryXY } from "./viz/ternary.js";
import { svgEl } from "./base.js";

const GRID = new Map(); // N -> mesh, built once
function mesh(N) {
  if (!GRID.has(N)) GRID.set(N, simplexGrid(N));
  return GRID.get(N);
}

// The maximum of H_alpha on the 3-simplex is at the centre: (1 - 3^(1-alpha)) / (alpha (alpha - 1)), ln 3 at 1.
export function maxEntropy(alpha) {
  return Math.abs(alpha - 1) < 1e-9 ? Math.log(3) : (1 - 3 ** (1 - alpha)) / (alpha * (alpha - 1));
}

// The theme's colour map, read from the element's resolved custom properties --_map-0..2.
export function themeColors(host) {
  const cs = getComputedStyle(host);
  const stops = [0, 1, 2].map((i) => parseColor(cs.getPropertyValue(`--_map-${i}`)) || [128, 128, 128]);
  return interpolateColors(stops);
}

// Draws (replacing g's children) `levels` bands of H_alpha from 0 to its maximum, plus thin
// contour lines; side: the triangle's side in the group's units. Returns { max, values }.
export function drawEntropy(g, { alpha, side, levels = 10, N = 48, color, lines = true }) {
  const m = mesh(N);
  const values = tsallisEntropy(m.points, { n: 3, alpha });
  const xy = new Float32Array(m.count * 2);
  for (let i = 0; i < m.count; i++) {
    const [x, y] = ternaryXY(m.points.subarray(3 * i, 3 * i + 3), side, 0);
    xy[2 * i] = x; xy[2 * i + 1] = y;
  }
  const max = maxEntropy(alpha);
  const th = [];
  for (let k = 0; k < levels; k++) th.push((max * k) / levels);
  const bands = isobands(xy, values, m.triangles, th);
  g.replaceChildren();
  bands.forEach((d, k) => {
    if (!d) return;
    const c = color((k + 0.5) / levels);
    // the stroke in the fill colour hides the hairline seams between neighbouring cells
    svgEl("path", { d, fill: c, stroke: c, "stroke-width": 0.6, "stroke-linejoin": "round", class: "band" }, g);
  });
  if (lines) {
    const iso = isolines(xy, values, m.triangles, th.slice(1));
    const lg = svgEl("g", { class: "isolines" }, g);
    for (const d of iso) if (d) svgEl("path", { d }, lg);
  }
  return { max, values };
}
