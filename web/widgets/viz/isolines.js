// isolines.js - contour lines on a triangle mesh, pure, no DOM: one SVG path string per
// threshold, made of the segments where each triangle crosses that level.
export function isolines(xy, values, triangles, thresholds) {
  return thresholds.map((level) => {
    let d = "";
    for (let t = 0; t < triangles.length; t += 3) {
      const pts = [];
      for (let k = 0; k < 3; k++) {
        const i = triangles[t + k], j = triangles[t + ((k + 1) % 3)];
        const vi = values[i] - level, vj = values[j] - level;
        if ((vi < 0) !== (vj < 0)) {
          const s = vi / (vi - vj);
          pts.push([xy[2 * i] + s * (xy[2 * j] - xy[2 * i]), xy[2 * i + 1] + s * (xy[2 * j + 1] - xy[2 * i + 1])]);
        }
      }
      if (pts.length === 2) d += `M${r(pts[0][0])},${r(pts[0][1])}L${r(pts[1][0])},${r(pts[1][1])}`;
    }
    return d;
  });
}
const r = (v) => (Math.round(v * 100) / 100).toString();
