// simplex-3d.js - <sx-simplex>'s 3-D view: each score vector z / T as a point in 3-D joined to
// where each mapping puts it on the simplex (the triangle p_A + p_B + p_C = 1). sx-simplex.js
// import()s it when the view is first shown, so a phone, where the view starts closed, never
// fetches it.
import { svgEl, sheet } from "./base.js";
import { project3d } from "./viz/project3d.js";

/** The view's own styles, adopted by the element when this module arrives. */
export const SHEET_3D = sheet(`
.v3 .tri3 { fill: var(--_grid); fill-opacity: 0.35; stroke: var(--_muted); }
.v3 .link { stroke-width: 0.8; opacity: 0.45; fill: none; }
.v3 .link.now { stroke-width: 2; opacity: 0.95; }
.v3 .zpt { fill: var(--_muted); opacity: 0.55; stroke: none; }
`);

// The parts that change only with the cloud or the rotation: axes A (up), B, C from -1.5 to 1.8,
// the simplex, the cloud's score points joined to their images. Returns the group for the rest.
function drawStill(g, P, pt, cloud, cloudP, T) {
  g.replaceChildren();
  for (const [i, name] of [[0, "A"], [1, "B"], [2, "C"]]) {
    const a = [0, 0, 0], b = [0, 0, 0];
    a[i] = -1.5; b[i] = 1.8;
    svgEl("path", { class: "axis", d: `M${pt(a)}L${pt(b)}` }, g);
    const [x, y] = P(b.map((v) => v * 1.08));
    svgEl("text", { x: x.toFixed(1), y: (y + 4).toFixed(1), "text-anchor": "middle", class: "muted" }, g).textContent = name;
  }
  svgEl("path", { class: "tri3", d: `M${pt([1, 0, 0])}L${pt([0, 1, 0])}L${pt([0, 0, 1])}Z` }, g);
  const lines = svgEl("g", {}, g);
  for (const { name, p } of cloudP) {
    let d = "";
    for (let i = 0; i < p.length; i += 3) {
      const zi = [cloud[i] / T, cloud[i + 1] / T, cloud[i + 2] / T];
      d += `M${pt(zi)}L${pt([p[i], p[i + 1], p[i + 2]])}`;
      const [x, y] = P(zi);
      svgEl("circle", { class: "zpt", cx: x.toFixed(1), cy: y.toFixed(1), r: 1.6 }, lines);
    }
    svgEl("path", { class: `link m-${name}`, d }, lines);
  }
  return svgEl("g", {}, g);
}

/**
 * Draws the 3-D view into view.g (view.svg its <svg>; view.key and view.now are this module's
 * cache): s the element's settings, z its scores, results [{ name, p }] the mappings of z,
 * cloud the random scores (n = 3) and cloudP their mappings, cloudKey what they were computed for.
 */
export function draw3d(view, s, z, results, cloud, cloudP, cloudKey) {
  const { yaw, pitch, temperature: T } = s;
  const P = (p) => { const [x, y] = project3d(p, yaw, pitch); return [150 + 78 * x, 190 - 78 * y]; };
  const pt = (p) => P(p).map((v) => v.toFixed(1)).join(",");
  const k = `${cloudKey}|${yaw}|${pitch}`;
  if (k !== view.key) { view.key = k; view.now = drawStill(view.g, P, pt, cloud, cloudP, T); }
  const now = view.now;
  now.replaceChildren();
  const zz = Array.from(z, (v) => v / T);
  for (const { name, p } of results) svgEl("path", { class: `link now m-${name}`, d: `M${pt(zz)}L${pt(p)}` }, now);
  for (const { name, p } of results) { const [x, y] = P(p); svgEl("circle", { class: `m-${name}`, cx: x.toFixed(1), cy: y.toFixed(1), r: 3.5 }, now); }
  const [zx, zy] = P(zz);
  svgEl("path", { class: "score", d: "M0,-6L6,0L0,6L-6,0Z", transform: `translate(${zx.toFixed(1)},${zy.toFixed(1)})`, fill: "none" }, now);
  const deg = (r) => Math.round((r * 180) / Math.PI);
  view.svg.setAttribute("aria-valuenow", deg(yaw));
  view.svg.setAttribute("aria-valuetext", `turned ${deg(yaw)} degrees, tilted ${deg(pitch)}`);
}
