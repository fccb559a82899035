// project3d.js - an orthographic view of 3-D points (pure): rotate by yaw about the vertical
// axis and pitch about the horizontal one, then drop depth. Returns [x, y, depth] in view
// units (y up; the caller flips it for SVG). Used for the scores-to-simplex view.
export function project3d(p, yaw, pitch) {
  // world: x = p[1] (B), y = p[2] (C), z = p[0] (A, vertical), as in the seed notebook
  const X = p[1], Y = p[2], Z = p[0];
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  const x1 = cy * X - sy * Y, y1 = sy * X + cy * Y; // yaw about Z
  return [x1, cp * Z - sp * y1, sp * Z + cp * y1];
}
