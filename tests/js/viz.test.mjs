// Pure drawing helpers of the page and widgets (web/widgets/viz/): geometry, scales, colours, contours,
// attribute parsing, runs. No DOM, no wasm.
import test from "node:test";
import assert from "node:assert/strict";
import { ternaryCorners, ternaryXY, ternaryFromXY, zeroCount } from "../../web/widgets/viz/ternary.js";
import { linear, ticks } from "../../web/widgets/viz/scale.js";
import { simplexGrid } from "../../web/widgets/viz/simplex-grid.js";
import { isobands } from "../../web/widgets/viz/isobands.js";
import { isolines } from "../../web/widgets/viz/isolines.js";
import { parseColor, interpolateColors } from "../../web/widgets/viz/color.js";
import { parseAttr } from "../../web/widgets/viz/parse-attr.js";
import { fusedRuns } from "../../web/widgets/viz/runs.js";
import { supportMask } from "../../web/widgets/viz/support.js";
import { randomScores } from "../../web/widgets/viz/random-scores.js";
import { project3d } from "../../web/widgets/viz/project3d.js";

const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test("ternary corners map to the triangle's corners and the centre to the centroid", () => {
  const c = ternaryCorners(300, 30);
  assert.deepEqual(ternaryXY([1, 0, 0], 300, 30), c[0]);
  assert.deepEqual(ternaryXY([0, 1, 0], 300, 30), c[1]);
  assert.deepEqual(ternaryXY([0, 0, 1], 300, 30), c[2]);
  const [x, y] = ternaryXY([1, 1, 1], 300, 30);
  close(x, (c[0][0] + c[1][0] + c[2][0]) / 3);
  close(y, (c[0][1] + c[1][1] + c[2][1]) / 3);
  const d = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  close(d(c[0], c[1]), 300); close(d(c[1], c[2]), 300); close(d(c[0], c[2]), 300);
});

test("ternaryFromXY inverts ternaryXY, and points on an edge have a zero weight", () => {
  for (const p of [[0.2, 0.3, 0.5], [0.75, 0, 0.25], [1 / 3, 1 / 3, 1 / 3], [0, 0, 1], [1, -0.5, 0.5]]) {
    const [x, y] = ternaryXY(p, 200, 10);
    const q = ternaryFromXY(x, y, 200, 10);
    for (let i = 0; i < 3; i++) close(q[i], p[i], 1e-12);
  }
  assert.equal(zeroCount([0.75, 0, 0.25]), 1);
  assert.equal(zeroCount([1, 0, 0]), 2);
  assert.equal(zeroCount([0.2, 0.3, 0.5]), 0);
});

test("ternaryXY rejects a zero vector with a message naming the function", () => {
  assert.throws(() => ternaryXY([0, 0, 0], 100), { name: "RangeError", message: /ternaryXY: p must have a positive sum/ });
});

test("linear scales map and invert; ticks are round and cover the range", () => {
  const s = linear([-3, 3], [40, 400]);
  close(s(-3), 40); close(s(3), 400); close(s(0), 220); close(s.invert(220), 0);
  assert.throws(() => linear([1, 1], [0, 1]), { name: "RangeError", message: /linear: domain/ });
  assert.deepEqual(ticks(-3, 3, 6), [-3, -2, -1, 0, 1, 2, 3]);
  assert.deepEqual(ticks(0, 1, 4), [0, 0.2, 0.4, 0.6, 0.8, 1]);
});

test("simplexGrid: (N+1)(N+2)/2 points on the simplex, N^2 triangles covering it exactly", () => {
  for (const N of [1, 2, 7, 48]) {
    const g = simplexGrid(N);
    assert.equal(g.count, ((N + 1) * (N + 2)) / 2);
    assert.equal(g.points.length, 3 * g.count);
    assert.equal(g.triangles.length, 3 * N * N);
    for (let i = 0; i < g.count; i++) {
      const s = g.points[3 * i] + g.points[3 * i + 1] + g.points[3 * i + 2];
      close(s, 1, 1e-6);
      for (let k = 0; k < 3; k++) assert.ok(g.points[3 * i + k] >= 0);
    }
    // total area of the small triangles = area of the big one (unit side: sqrt(3)/4)
    let area = 0;
    for (let t = 0; t < g.triangles.length; t += 3) {
      const [a, b, c] = [0, 1, 2].map((k) => ternaryXY(g.points.subarray(3 * g.triangles[t + k], 3 * g.triangles[t + k] + 3), 1));
      area += Math.abs((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2;
    }
    close(area, Math.sqrt(3) / 4, 1e-6);
  }
  assert.throws(() => simplexGrid(0), { name: "RangeError", message: /simplexGrid: N must be/ });
});

// Area enclosed by the polygons of an SVG path made of M/L/Z only.
function pathArea(d) {
  let area = 0;
  for (const poly of d.split("Z").filter(Boolean)) {
    const pts = poly.slice(1).split("L").map((p) => p.split(",").map(Number));
    for (let i = 0; i < pts.length; i++) {
      const [x1, y1] = pts[i], [x2, y2] = pts[(i + 1) % pts.length];
      area += (x1 * y2 - x2 * y1) / 2;
    }
  }
  return Math.abs(area);
}

test("isobands: bands of a linear field partition the triangle by exact areas", () => {
  // v = x on the unit square split into two triangles; bands [0, .25), [.25, .5), [.5, 1)
  const xy = [0, 0, 1, 0, 1, 1, 0, 1], v = [0, 1, 1, 0];
  const tris = [0, 1, 2, 0, 2, 3];
  const b = isobands(xy, v, tris, [0, 0.25, 0.5]);
  assert.equal(b.length, 3);
  close(pathArea(b[0]), 0.25, 0.01);
  close(pathArea(b[1]), 0.25, 0.01);
  close(pathArea(b[2]), 0.5, 0.01);
  // a threshold above every value gives an empty band
  assert.equal(isobands(xy, v, tris, [0, 2])[1], "");
});

test("isolines: a level crossing a triangle gives one segment at the interpolated place", () => {
  const d = isolines([0, 0, 2, 0, 0, 2], [0, 1, 1], [0, 1, 2], [0.5]);
  assert.equal(d.length, 1);
  assert.equal(d[0], "M1,0L0,1");
  assert.deepEqual(isolines([0, 0, 2, 0, 0, 2], [0, 1, 1], [0, 1, 2], [5]), [""]);
});

test("colours: parse hex and rgb(), interpolate in linear light, clamp", () => {
  assert.deepEqual(parseColor("#fff"), [255, 255, 255]);
  assert.deepEqual(parseColor(" #3b6fb6 "), [59, 111, 182]);
  assert.deepEqual(parseColor("rgb(1, 2, 3)"), [1, 2, 3]);
  assert.deepEqual(parseColor("rgba(10 20 30 / 0.5)"), [10, 20, 30]);
  assert.equal(parseColor("banana"), null);
  assert.equal(parseColor(undefined), null);
  const f = interpolateColors([[0, 0, 0], [255, 255, 255]]);
  assert.equal(f(0), "rgb(0, 0, 0)");
  assert.equal(f(1), "rgb(255, 255, 255)");
  assert.equal(f(-3), "rgb(0, 0, 0)");
  assert.equal(f(NaN), "rgb(0, 0, 0)");
  assert.equal(f(0.5), "rgb(188, 188, 188)"); // linear-light midpoint, not 128
  assert.throws(() => interpolateColors([]), /interpolateColors/);
});

test("parseAttr: typed values, defaults when absent, a message and the default when bad", () => {
  const num = { type: "number", default: 1.5, min: 1, max: 4 };
  assert.deepEqual(parseAttr("alpha", null, num), { value: 1.5, error: null });
  assert.deepEqual(parseAttr("alpha", "2.5", num), { value: 2.5, error: null });
  assert.deepEqual(parseAttr("alpha", "banana", num), { value: 1.5, error: 'alpha="banana" is not a number; using 1.5' });
  assert.deepEqual(parseAttr("alpha", "", num).value, 1.5);
  assert.match(parseAttr("alpha", "0.5", num).error, /is below 1; using 1.5/);
  assert.match(parseAttr("alpha", "9", num).error, /is above 4/);
  const list = { type: "numbers", default: [1.5, 0, 1], minLength: 3, maxLength: 3 };
  assert.deepEqual(parseAttr("scores", "1, 2 3", list).value, [1, 2, 3]);
  assert.match(parseAttr("scores", "1 2", list).error, /needs at least 3 numbers; using 1.5 0 1/);
  assert.match(parseAttr("scores", "1 x 2", list).error, /is not a list of numbers/);
  const en = { type: "enum", default: "none", values: ["none", "shannon"] };
  assert.equal(parseAttr("entropy", "shannon", en).value, "shannon");
  assert.match(parseAttr("entropy", "rainbow", en).error, /is not one of none, shannon/);
  const ens = { type: "enums", default: ["softmax"], values: ["softmax", "sparsemax"] };
  assert.deepEqual(parseAttr("mappings", "sparsemax softmax", ens).value, ["sparsemax", "softmax"]);
  assert.match(parseAttr("mappings", "softmax bogus", ens).error, /is not a list of softmax, sparsemax/);
  assert.deepEqual(parseAttr("x", "", { type: "bool" }).value, true);
  assert.deepEqual(parseAttr("x", null, { type: "bool" }).value, false);
  // a list default is a copy each time: changing what one element's getter gave changes no default
  const got = parseAttr("scores", null, list).value;
  got.push(9);
  assert.deepEqual(list.default, [1.5, 0, 1]);
  assert.notEqual(parseAttr("scores", "1 x", list).value, list.default);
  assert.deepEqual(parseAttr("mappings", null, ens).value, ["softmax"]);
});

test("fusedRuns finds runs of equal non-zero neighbours; supportMask; randomScores; project3d", () => {
  assert.deepEqual(fusedRuns([0, 0.3, 0.3, 0.3, 0, 0.05, 0.05]), [{ start: 1, end: 4, value: 0.3 }, { start: 5, end: 7, value: 0.05 }]);
  assert.deepEqual(fusedRuns([0, 0, 0.5, 0.5 * (1 + 1e-7)]), [{ start: 2, end: 4, value: 0.5 }]);
  assert.deepEqual(fusedRuns([0.2, 0.3, 0.5]), []);
  assert.equal(supportMask([0.75, 0, 0.25]), 0b101);
  assert.equal(supportMask([0, 0, 0, 1, 0, 0], 3), 0b001);
  const r = randomScores(100, 3, 7, -1, 1);
  assert.equal(r.length, 300);
  assert.ok(r.every((v) => v >= -1 && v < 1));
  assert.deepEqual(randomScores(5, 3, 7), randomScores(5, 3, 7));
  const [x, y, depth] = project3d([1, 0, 0], 0, 0); // A is the vertical axis
  close(x, 0); close(y, 1); close(depth, 0);
  const q = project3d([0.3, -0.4, 0.5], 0.7, -0.2);
  close(Math.hypot(...q), Math.hypot(0.3, -0.4, 0.5), 1e-12); // a rotation keeps lengths
});
