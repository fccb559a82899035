// isobands.js - filled contours on a triangle mesh ("marching triangles"), pure, no DOM.
//
// Why triangles and not squares: the simplex is a triangle, and a triangular mesh of it
// (simplexGrid) covers it exactly, so the bands need no clipping; and linear interpolation on
// a triangle has no saddle cases, so there is no ambiguity to resolve.
//
// isobands(xy, values, triangles, thresholds) -> one SVG path string per band:
// band k holds the points with thresholds[k] <= v < thresholds[k + 1] (the last band is open
// above). xy: [x0, y0, x1, y1, ...] per mesh point; values: one per mesh point; triangles: index
// triples. Each triangle is clipped against the band with linear interpolation along its edges.
export function isobands(xy, values, triangles, thresholds) {
  const nb = thresholds.length;
  const paths = new Array(nb).fill("");
  const px = [0, 0, 0], py = [0, 0, 0], pv = [0, 0, 0];
  for (let t = 0; t < triangles.length; t += 3) {
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < 3; k++) {
      const i = triangles[t + k];
      px[k] = xy[2 * i]; py[k] = xy[2 * i + 1]; pv[k] = values[i];
      if (pv[k] < lo) lo = pv[k];
      if (pv[k] > hi) hi = pv[k];
    }
    for (let b = 0; b < nb; b++) {
      const a = thresholds[b], c = b + 1 < nb ? thresholds[b + 1] : Infinity;
      if (hi < a || lo >= c) continue;
      let poly;
      if (lo >= a && hi < c) poly = [[px[0], py[0], pv[0]], [px[1], py[1], pv[1]], [px[2], py[2], pv[2]]];
      else {
        poly = clip([[px[0], py[0], pv[0]], [px[1], py[1], pv[1]], [px[2], py[2], pv[2]]], a, 1);
        if (c !== Infinity) poly = clip(poly, c, -1);
      }
      if (poly.length < 3) continue;
      let d = "M" + fmt(poly[0][0]) + "," + fmt(poly[0][1]);
      for (let k = 1; k < poly.length; k++) d += "L" + fmt(poly[k][0]) + "," + fmt(poly[k][1]);
      paths[b] += d + "Z";
    }
  }
  return paths;
}

// Sutherland-Hodgman against the half-space sign * (v - level) >= 0 (v linear on the polygon).
function clip(poly, level, sign) {
  const out = [];
  for (let k = 0; k < poly.length; k++) {
    const p = poly[k], q = poly[(k + 1) % poly.length];
    const ip = sign * (p[2] - level) >= 0, iq = sign * (q[2] - level) >= 0;
    if (ip) out.push(p);
    if (ip !== iq) {
      const s = (level - p[2]) / (q[2] - p[2]);
      out.push([p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1]), level]);
    }
  }
  return out;
}

const fmt = (v) => (Math.round(v * 100) / 100).toString();
