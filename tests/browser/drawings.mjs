// What four widgets of the built page (dist/site) draw, read back from their SVG in real Chromium
// and compared with the library's own numbers, computed here in Node by dist/simplexity.js (the
// full core, a separate instance from the page's mappings core, so the page cannot change them).
// All four draw SVG only (no canvas), so the test reads the live shadow DOM: path data, circle and
// line coordinates, taken into the <svg>'s user units through every transform above them
// (window.__frame), and the computed stroke of the triangle's edges. Nothing is read from the widgets'
// internal arrays; what they are given (scores, alpha, t, ...) is read from their properties.
// - <sx-simplex>: the highlighted edges (drawn thicker than 2 units: a plain one is 1.2) join
//   exactly the corners other than k, for every k where a shown mapping gives an exact 0 for the
//   widget's scores and temperature (the library's numbers); each mapping's point is at the
//   library's p projected onto the drawn corners.
// - <sx-two-choice>: the scales are read off the drawn axes (tick labels and grid lines); every
//   vertex of every curve, inverted through them, is alpha-entmax([t, 0])_1 (the library's) for
//   the alpha its title names, and the set of alphas drawn is the widget's alphas plus alpha; the
//   marks at the cursor too.
// - <sx-entropy>: every vertex of every filled band (matched to its level by the colour bar) has
//   the library's Tsallis entropy of its barycentric point (alpha 1 on the left panel, the
//   widget's alpha on the right) within that band's levels (0 .. the library's entropy at the
//   centre, in equal steps), up to a distance in the picture (the miss over the slope); the
//   bands tile the triangle; the mapping's point is the library's.
// - <sx-trajectory>: vertex i of each path is the library's mapping of t_i z (t_0 = 0, then the
//   widget's log grid from 0.01 to tmax), the dot the mapping of t z, and each support-change
//   marker sits where the library's support changes (t found by bisection), with its supports.
// Each on the page's defaults and after a change of its inputs; then zero console errors, zero
// CSP violations, no foreign request.
import { init, softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax, tsallisEntropy } from "../../dist/simplexity.js";
import { check, echoPasses, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();
await init();
const LIB = { softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax };

// ------------------------------------------------------------------ tolerances (SVG user units)
// Coordinates written with toFixed(1) are off by up to 0.05, with toFixed(2) by 0.005, the entropy
// bands' Math.round(v * 100) / 100 by 0.005; what is added is float32 slack between the cores.
const TOL_PT2 = 0.02;  // a point written with 2 decimals (sx-simplex, sx-entropy points; dots)
const TOL_PT1 = 0.08;  // a point written with 1 decimal (two-choice marks, trajectory vertices)
// sx-entropy: how far (in user units) a band's vertex is from where the library's entropy takes
// the band's levels: its miss in entropy divided by the entropy's slope there. The bands are
// linear interpolation on a mesh of the simplex (48 steps, 5.2 units), which misses most near the
// edges, where the entropy's derivative in p_k (-log p_k for Shannon, p_k^(alpha - 1) / (1 - alpha)
// below alpha 1) is unbounded: measured at most 0.46 for Shannon, 0.15 at alpha 1.5 and 3, but 1.7
// at alpha 0.5. An alpha off by 0.1 moves the bands by 2 to 6 units.
const TOL_BAND = 0.6, TOL_BAND_BELOW_1 = 2;

// ------------------------------------------------------------------ reading the SVG
// In the page: the matrix [a, b, c, d, e, f] from an element's coordinates to its <svg>'s user
// units (every transform attribute from the element up to the svg).
const READERS = `
  window.__frame = (el) => {
    let m = new DOMMatrix();
    for (let e = el; e && e.localName !== "svg"; e = e.parentNode) {
      const t = e.transform && e.transform.baseVal.consolidate();
      if (t) m = new DOMMatrix([t.matrix.a, t.matrix.b, t.matrix.c, t.matrix.d, t.matrix.e, t.matrix.f]).multiply(m);
    }
    return [m.a, m.b, m.c, m.d, m.e, m.f];
  };
  window.__num = (e, a) => Number(e.getAttribute(a));
`;

const apply = (m, x, y) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

// SVG path data of M, L and Z commands (all these widgets write) -> polygons/polylines of [x, y].
function parsePath(d, m) {
  const out = [];
  for (const [, cmd, args] of d.matchAll(/([MLZ])([^MLZ]*)/g)) {
    if (cmd === "Z") continue;
    const v = args.trim().split(/[\s,]+/).map(Number);
    if (v.length !== 2 || !v.every(Number.isFinite)) throw new Error(`unexpected path data near "${cmd}${args}"`);
    if (cmd === "M") out.push([]);
    out[out.length - 1].push(apply(m, v[0], v[1]));
  }
  return out;
}

// The triangle's corners by name: each drawn corner takes the A, B or C label nearest to it.
function namedCorners(points, labels) {
  const c = {};
  for (const p of points) {
    const near = labels.map((l) => ({ n: l.name, d: Math.hypot(l.x - p[0], l.y - p[1]) })).sort((a, b) => a.d - b.d)[0];
    c[near.n] = p;
  }
  if (Object.keys(c).sort().join("") !== "ABC") throw new Error(`corners not labelled A, B, C (got ${JSON.stringify(c)})`);
  return [c.A, c.B, c.C];
}

// p (3 weights) drawn on the triangle with these corners.
function project(p, c) {
  const s = p[0] + p[1] + p[2];
  return [0, 1].map((j) => (p[0] * c[0][j] + p[1] * c[1][j] + p[2] * c[2][j]) / s);
}

// (x, y) back to barycentric weights on the triangle with corners c.
function barycentric(x, y, c) {
  const [[x0, y0], [x1, y1], [x2, y2]] = c;
  const det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2);
  const a = ((y1 - y2) * (x - x2) + (x2 - x1) * (y - y2)) / det;
  const b = ((y2 - y0) * (x - x2) + (x0 - x2) * (y - y2)) / det;
  return [a, b, 1 - a - b];
}

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const NAMES = ["A", "B", "C"];
const supportOf = (p) => NAMES.filter((_, i) => p[i] > 0).join(", ");
const fix = (v, k = 3) => Number(v.toFixed(k));

// ------------------------------------------------------------------ <sx-simplex>
// A highlighted edge is drawn thicker than this (computed stroke-width: a plain edge 1.2, a
// highlighted one 3).
const HOT_WIDTH = 2;

function readSimplex(page, id) {
  return page.evaluate((i) => {
    const el = document.getElementById(i), tri = el.shadowRoot.querySelector("svg.tri");
    const xy = (e, ax, ay) => { const m = window.__frame(e); const x = window.__num(e, ax), y = window.__num(e, ay); return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]; };
    return {
      state: { scores: el.scores, temperature: el.temperature, alpha: el.alpha, lambda: el.lambda, beta: el.beta, mappings: el.mappings },
      edges: [...tri.querySelectorAll("line.edge")].map((e) => ({ a: xy(e, "x1", "y1"), b: xy(e, "x2", "y2"),
        width: parseFloat(getComputedStyle(e).strokeWidth), stroke: getComputedStyle(e).stroke })),
      labels: [...tri.querySelectorAll("text")].filter((t) => /^[ABC]$/.test(t.textContent))
        .map((t) => { const [x, y] = xy(t, "x", "y"); return { name: t.textContent, x, y }; }),
      points: [...tri.querySelectorAll("circle.pt")].map((c) => ({ name: /\bm-(\w+)/.exec(c.getAttribute("class"))[1], at: xy(c, "cx", "cy") })),
    };
  }, id);
}

async function checkSimplex(page, id, what) {
  const d = await readSimplex(page, id);
  const s = d.state;
  const where = `sx-simplex (${what}: scores [${s.scores}], T = ${s.temperature}, mappings ${s.mappings})`;
  const ends = [];
  for (const e of d.edges) for (const p of [e.a, e.b]) if (!ends.some((q) => dist(p, q) < 1e-6)) ends.push(p);
  check(d.edges.length === 3 && ends.length === 3, `${where}: three edges joining three corners (got ${d.edges.length} edges, ${ends.length} ends)`);
  const corners = namedCorners(ends, d.labels);
  // the library: which weights are exactly 0 for some mapping shown
  const zeroFor = [[], [], []];
  const ps = {};
  for (const name of s.mappings) {
    const o = { temperature: s.temperature };
    if (name === "entmax") o.alpha = s.alpha;
    if (name === "fusedmax") o.lambda = s.lambda;
    if (name === "oscarmax") o.beta = s.beta;
    const p = ps[name] = LIB[name](Float32Array.from(s.scores), o);
    p.forEach((v, k) => { if (v === 0) zeroFor[k].push(name); });
  }
  const cornerName = (p) => NAMES[corners.findIndex((c) => dist(c, p) < 0.01)] ?? "?";
  const edgeName = (e) => [cornerName(e.a), cornerName(e.b)].sort().join("–");
  const drawn = d.edges.filter((e) => e.width > HOT_WIDTH).map(edgeName).sort();
  const expected = [0, 1, 2].filter((k) => zeroFor[k].length).map((k) => NAMES.filter((_, j) => j !== k).join("–")).sort();
  const why = [0, 1, 2].filter((k) => zeroFor[k].length).map((k) => `p_${NAMES[k]} = 0 for ${zeroFor[k].join(", ")}`).join("; ") || "no exact zero";
  check(JSON.stringify(drawn) === JSON.stringify(expected),
    `${where}: the highlighted edges are [${expected.join(", ")}] (library: ${why}) (drawn: [${drawn.join(", ")}], stroke widths ${d.edges.map((e) => e.width)})`);
  // each mapping's point at the library's p
  let worst = 0, at = "";
  for (const { name, at: xy } of d.points) {
    const e = dist(xy, project(ps[name], corners));
    if (!(e <= worst)) { worst = e; at = `${name}: drawn ${xy.map((v) => fix(v))}, library p [${Array.from(ps[name], (v) => fix(v, 4))}]`; }
  }
  check(d.points.length === s.mappings.length && worst <= TOL_PT2,
    `${where}: the ${s.mappings.length} mapping points are at the library's p, within ${TOL_PT2} units (worst ${fix(worst, 4)}${at ? `, ${at}` : ""})`);
  return drawn;
}

// ------------------------------------------------------------------ <sx-two-choice>
function readTwoChoice(page, id) {
  return page.evaluate((i) => {
    const el = document.getElementById(i), svg = el.shadowRoot.querySelector("svg.picture");
    const num = window.__num;
    const text = (t) => ({ v: t.textContent.trim(), x: num(t, "x"), y: num(t, "y"), anchor: t.getAttribute("text-anchor"), m: window.__frame(t) });
    return {
      state: { alphas: el.alphas, alpha: el.alpha, t: el.t },
      axes: [...svg.querySelectorAll(":scope > line.axis")].map((l) => ({ x1: num(l, "x1"), x2: num(l, "x2"), y1: num(l, "y1"), y2: num(l, "y2"), m: window.__frame(l) })),
      texts: [...svg.querySelectorAll(":scope > text")].map(text),
      curves: [...svg.querySelectorAll("path.curve")].map((p) => ({ d: p.getAttribute("d"), title: p.querySelector("title")?.textContent ?? "", hi: p.classList.contains("hi"), m: window.__frame(p) })),
      marks: [...svg.querySelectorAll("circle.mark")].map((c) => ({ x: num(c, "cx"), y: num(c, "cy"), m: window.__frame(c) })),
    };
  }, id);
}

// A linear scale fitted to (value, coordinate) pairs; throws if they are not on one line.
function fitScale(pairs, what) {
  if (pairs.length < 2) throw new Error(`${what}: fewer than two ticks`);
  const [v0, c0] = pairs[0], [v1, c1] = pairs[pairs.length - 1];
  const k = (c1 - c0) / (v1 - v0);
  const f = (v) => c0 + (v - v0) * k;
  for (const [v, c] of pairs) if (Math.abs(f(v) - c) > 0.01) throw new Error(`${what}: ticks not on a linear scale (${JSON.stringify(pairs)})`);
  f.invert = (c) => v0 + (c - c0) / k;
  return f;
}

const p1 = (t, alpha) => entmax(Float32Array.of(t, 0), { alpha })[0];

async function checkTwoChoice(page, id, what) {
  const d = await readTwoChoice(page, id);
  const s = d.state;
  const where = `sx-two-choice (${what}: alphas [${s.alphas}], alpha ${s.alpha})`;
  // the scales, from the tick labels and the grid line each labels
  const vert = d.axes.filter((l) => l.x1 === l.x2).map((l) => apply(l.m, l.x1, l.y1));
  const horiz = d.axes.filter((l) => l.y1 === l.y2).map((l) => apply(l.m, l.x1, l.y1));
  const numeric = d.texts.filter((t) => /^-?\d+(\.\d+)?$/.test(t.v)).map((t) => ({ ...t, at: apply(t.m, t.x, t.y) }));
  const nearest = (list, key, c) => list.reduce((b, q) => (Math.abs(q[key] - c) < Math.abs(b[key] - c) ? q : b));
  const xs = numeric.filter((t) => t.anchor === "middle").map((t) => [Number(t.v), nearest(vert.map(([x]) => ({ x })), "x", t.at[0]).x]).sort((a, b) => a[0] - b[0]);
  const ys = numeric.filter((t) => t.anchor === "end").map((t) => [Number(t.v), nearest(horiz.map(([, y]) => ({ y })), "y", t.at[1]).y]).sort((a, b) => a[0] - b[0]);
  const sx = fitScale(xs, `${where}: x axis`), sy = fitScale(ys, `${where}: y axis`);
  const alphaOf = (c) => Number(/α = ([\d.]+)/.exec(c.title)?.[1]);
  const drawnAlphas = d.curves.map(alphaOf);
  const want = [...s.alphas, s.alpha];
  check(JSON.stringify(drawnAlphas) === JSON.stringify(want) && d.curves[d.curves.length - 1].hi,
    `${where}: one curve per alpha, the slider's last and highlighted (titles ${JSON.stringify(d.curves.map((c) => c.title))})`);
  // every vertex: x rounded to 0.05 moves t, so the drawn y must lie between the library's values
  // at the two ends of that interval (p is monotone in t), within the y rounding
  const dx = 0.05 + 1e-9;
  for (const c of d.curves) {
    const a = alphaOf(c);
    const pts = parsePath(c.d, c.m).flat();
    let worst = 0, at = "";
    for (const [x, y] of pts) {
      const ya = sy(p1(sx.invert(x - dx), a)), yb = sy(p1(sx.invert(x + dx), a));
      const off = Math.max(0, Math.min(ya, yb) - y, y - Math.max(ya, yb));
      if (off > worst) { worst = off; at = `at t = ${fix(sx.invert(x))}: drawn p = ${fix(sy.invert(y), 4)}, library ${fix(p1(sx.invert(x), a), 4)}`; }
    }
    check(pts.length > 100 && worst <= TOL_PT1,
      `${where}: the α = ${a} curve (${pts.length} points) is the library's entmax([t, 0], α = ${a})_1 at every point, within ${TOL_PT1} units vertically beyond the x rounding (worst ${fix(worst, 4)} units${at ? `, ${at}` : ""})`);
  }
  // the marks at the cursor
  const tx = sx(s.t);
  const marks = d.marks.map((m) => apply(m.m, m.x, m.y));
  const off = marks.map(([x, y], k) => Math.max(Math.abs(x - tx), Math.abs(y - sy(p1(s.t, want[k])))));
  check(marks.length === want.length && Math.max(...off) <= TOL_PT1,
    `${where}: the marks at t = ${s.t} are the library's p_1 for each alpha, within ${TOL_PT1} units (off by ${off.map((v) => fix(v))})`);
}

// ------------------------------------------------------------------ <sx-entropy>
function readEntropy(page, id) {
  return page.evaluate((i) => {
    const el = document.getElementById(i), svg = el.shadowRoot.querySelector("svg.picture");
    const num = window.__num;
    const panels = [...svg.querySelectorAll(":scope > g")].filter((g) => g.querySelector("path.edge")).map((g) => {
      const edge = g.querySelector("path.edge"), pt = g.querySelector("circle.pt");
      return {
        title: g.querySelector(":scope > text")?.textContent ?? "",
        edge: { d: edge.getAttribute("d"), m: window.__frame(edge) },
        labels: [...g.querySelectorAll(":scope > text")].filter((t) => /^[ABC]$/.test(t.textContent))
          .map((t) => { const m = window.__frame(t), x = num(t, "x"), y = num(t, "y"); return { name: t.textContent, x: m[0] * x + m[2] * y + m[4], y: m[1] * x + m[3] * y + m[5] }; }),
        bands: [...g.querySelectorAll("path.band")].map((p) => ({ d: p.getAttribute("d"), fill: p.getAttribute("fill"), m: window.__frame(p) })),
        pt: pt.style.display === "none" ? null : { x: num(pt, "cx"), y: num(pt, "cy"), m: window.__frame(pt), cls: pt.getAttribute("class") },
      };
    });
    return {
      state: { alpha: el.alpha, scores: el.scores },
      swatches: [...svg.querySelectorAll("g.bar rect")].map((r) => r.getAttribute("fill")),
      panels,
    };
  }, id);
}

const area = (poly) => Math.abs(poly.reduce((a, p, k) => { const q = poly[(k + 1) % poly.length]; return a + p[0] * q[1] - q[0] * p[1]; }, 0)) / 2;

async function checkEntropy(page, id, what) {
  const d = await readEntropy(page, id);
  const s = d.state;
  const where = `sx-entropy (${what}: alpha ${s.alpha}, scores ${s.scores ? `[${s.scores}]` : "none"})`;
  check(d.panels.length === 2, `${where}: two panels (got ${d.panels.length})`);
  const levels = d.swatches.length;
  [1, s.alpha].forEach((alpha, k) => {
    const P = d.panels[k], name = k === 0 ? "Shannon" : `Tsallis α = ${alpha}`;
    const corners = namedCorners(parsePath(P.edge.d, P.edge.m)[0].slice(0, 3), P.labels);
    const max = tsallisEntropy(Float32Array.of(1 / 3, 1 / 3, 1 / 3), { alpha })[0];
    // every vertex of every band, its barycentric point (clamped onto the triangle: the rounding
    // of the path data may put an edge vertex a hair outside) and the band's levels
    const pts = [], lo = [], hi = [];
    let unmatched = 0, tiled = 0;
    for (const b of P.bands) {
      const j = d.swatches.indexOf(b.fill);
      if (j < 0) { unmatched++; continue; }
      for (const poly of parsePath(b.d, b.m)) {
        tiled += area(poly);
        for (const [x, y] of poly) {
          const q = barycentric(x, y, corners).map((v) => Math.max(0, v));
          const sum = q[0] + q[1] + q[2];
          pts.push(q[0] / sum, q[1] / sum, q[2] / sum);
          lo.push((max * j) / levels);
          hi.push(j + 1 < levels ? (max * (j + 1)) / levels : max);
        }
      }
    }
    const H = tsallisEntropy(Float32Array.from(pts), { n: 3, alpha });
    // the entropy's slope per unit of the picture, by central differences of the library's
    // entropy a quarter unit either side along x and y (points kept on the triangle)
    const h = 0.25, moved = [];
    const xyOf = (i) => project(pts.slice(3 * i, 3 * i + 3), corners);
    for (let i = 0; i < H.length; i++) {
      const [x, y] = xyOf(i);
      for (const [u, v] of [[x + h, y], [x - h, y], [x, y + h], [x, y - h]]) {
        const q = barycentric(u, v, corners).map((w) => Math.max(0, w)), sum = q[0] + q[1] + q[2];
        moved.push(q[0] / sum, q[1] / sum, q[2] / sum);
      }
    }
    const Hm = tsallisEntropy(Float32Array.from(moved), { n: 3, alpha });
    let worstH = 0, worst = 0, at = "";
    for (let i = 0; i < H.length; i++) {
      const off = Math.max(0, lo[i] - H[i], H[i] - hi[i]);
      if (off === 0) continue;
      const slope = Math.hypot(Hm[4 * i] - Hm[4 * i + 1], Hm[4 * i + 2] - Hm[4 * i + 3]) / (2 * h);
      worstH = Math.max(worstH, off);
      if (off / slope > worst) { worst = off / slope; at = `H([${pts.slice(3 * i, 3 * i + 3).map((v) => fix(v))}]) = ${fix(H[i], 4)} drawn in the band [${fix(lo[i], 4)}, ${fix(hi[i], 4)}]`; }
    }
    const tol = alpha < 1 ? TOL_BAND_BELOW_1 : TOL_BAND;
    check(P.bands.length > 0 && unmatched === 0 && H.length > 1000 && worst <= tol,
      `${where}, ${name}: every vertex of the ${P.bands.length} bands (${H.length} vertices; each band's fill one of the ${levels} of the colour bar, ${unmatched} not) is within ${tol} units of where the library's entropy takes its band's levels (0 .. ${fix(max, 4)} in ${levels} steps) (worst ${fix(worst, 3)} units, ${fix(worstH, 4)} in entropy${at ? `: ${at}` : ""})`);
    const whole = area(corners);
    check(Math.abs(tiled - whole) <= 0.002 * whole, `${where}, ${name}: the bands tile the triangle (area ${fix(tiled, 1)} of ${fix(whole, 1)})`);
    // the mapping the entropy regularises, drawn on its panel
    const shown = s.scores && (k === 0 || alpha >= 1);
    if (!shown) { check(P.pt === null, `${where}, ${name}: no mapping point`); return; }
    const p = k === 0 ? softmax(Float32Array.from(s.scores)) : entmax(Float32Array.from(s.scores), { alpha });
    const e = P.pt ? dist(apply(P.pt.m, P.pt.x, P.pt.y), project(p, corners)) : Infinity;
    check(e <= TOL_PT2, `${where}, ${name}: the ${k === 0 ? "softmax" : `${alpha}-entmax`} point is the library's [${Array.from(p, (v) => fix(v, 4))}], within ${TOL_PT2} units (off by ${fix(e, 4)})`);
  });
}

// ------------------------------------------------------------------ <sx-trajectory>
function readTrajectory(page, id) {
  return page.evaluate((i) => {
    const el = document.getElementById(i), svg = el.shadowRoot.querySelector("svg.picture");
    const num = window.__num, edge = svg.querySelector("path.edge");
    const xy = (e, ax, ay) => { const m = window.__frame(e); const x = num(e, ax), y = num(e, ay); return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]; };
    const nameOf = (e) => /\bm-(\w+)/.exec(e.getAttribute("class"))[1];
    return {
      state: { scores: el.scores, mappings: el.mappings, alpha: el.alpha, lambda: el.lambda, beta: el.beta, t: el.t, tmax: el.tmax },
      edge: { d: edge.getAttribute("d"), m: window.__frame(edge) },
      labels: [...svg.querySelectorAll("text")].filter((t) => /^[ABC]$/.test(t.textContent)).map((t) => { const [x, y] = xy(t, "x", "y"); return { name: t.textContent, x, y }; }),
      paths: [...svg.querySelectorAll("path.path")].map((p) => ({ name: nameOf(p), d: p.getAttribute("d"), m: window.__frame(p) })),
      dots: [...svg.querySelectorAll("circle.dot")].map((c) => ({ name: nameOf(c), at: xy(c, "cx", "cy") })),
      changes: [...svg.querySelectorAll("circle.change")].map((c) => ({ name: nameOf(c), at: xy(c, "cx", "cy"), title: c.querySelector("title")?.textContent ?? "" })),
    };
  }, id);
}

// The widget's sampling of t (its header: one batched call per path): t = 0, then SAMPLES values
// from TMIN to tmax on a log scale.
const SAMPLES = 400, TMIN = 0.01;
const tGrid = (tmax) => [0, ...Array.from({ length: SAMPLES }, (_, i) => TMIN * (tmax / TMIN) ** (i / (SAMPLES - 1)))];

async function checkTrajectory(page, id, what) {
  const d = await readTrajectory(page, id);
  const s = d.state;
  const where = `sx-trajectory (${what}: scores [${s.scores}], alpha ${s.alpha}, lambda ${s.lambda}, beta ${s.beta}, tmax ${s.tmax})`;
  const corners = namedCorners(parsePath(d.edge.d, d.edge.m)[0].slice(0, 3), d.labels);
  const run = (name, x) => {
    const o = { n: 3 };
    if (name === "entmax") o.alpha = s.alpha;
    if (name === "fusedmax") o.lambda = s.lambda;
    if (name === "oscarmax") o.beta = s.beta;
    return LIB[name](x, o);
  };
  const at = (name, t) => run(name, Float32Array.from(s.scores, (v) => v * t));
  check(JSON.stringify(d.paths.map((p) => p.name)) === JSON.stringify(s.mappings), `${where}: one path per mapping (got ${d.paths.map((p) => p.name)})`);
  const ts = tGrid(s.tmax);
  const x = new Float32Array(3 * ts.length);
  ts.forEach((t, i) => { for (let k = 0; k < 3; k++) x[3 * i + k] = t * s.scores[k]; });
  for (const path of d.paths) {
    const pts = parsePath(path.d, path.m).flat();
    const lib = run(path.name, x);
    let worst = 0, where1 = "";
    if (pts.length === ts.length) {
      pts.forEach((xy, i) => {
        const p = lib.subarray(3 * i, 3 * i + 3), e = dist(xy, project(p, corners));
        if (e > worst) { worst = e; where1 = `at t = ${ts[i].toPrecision(4)}: drawn ${xy.map((v) => fix(v, 2))}, library p [${Array.from(p, (v) => fix(v, 4))}] at ${project(p, corners).map((v) => fix(v, 2))}`; }
      });
    }
    check(pts.length === ts.length && worst <= TOL_PT1,
      `${where}: the ${path.name} path's ${ts.length} points are the library's ${path.name}(t z) on the widget's t grid, within ${TOL_PT1} units (${pts.length} points, worst ${fix(worst, 4)}${where1 ? `, ${where1}` : ""})`);
    // the support changes along the grid, each located by bisection on t with the library
    const want = [];
    for (let i = 1; i < ts.length; i++) {
      const a = supportOf(lib.subarray(3 * i - 3, 3 * i)), b = supportOf(lib.subarray(3 * i, 3 * i + 3));
      if (a === b) continue;
      let lo = ts[i - 1], hi = ts[i];
      for (let it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
        const mid = 0.5 * (lo + hi);
        if (supportOf(at(path.name, mid)) === a) lo = mid; else hi = mid;
      }
      want.push({ t: hi, from: a, to: b, xy: project(at(path.name, hi), corners) });
    }
    const got = d.changes.filter((c) => c.name === path.name).map((c) => {
      const m = /support \{([A-C, ]*)\} → \{([A-C, ]*)\} at t = ([\d.e+-]+)/.exec(c.title);
      return m ? { from: m[1], to: m[2], t: Number(m[3]), xy: c.at } : { title: c.title, xy: c.at };
    });
    const bad = got.length !== want.length ? [`${got.length} markers for ${want.length} changes`] : got.flatMap((g, k) => {
      const w = want[k], e = dist(g.xy, w.xy);
      return g.from === w.from && g.to === w.to && Math.abs(g.t - w.t) <= 5e-3 * w.t && e <= TOL_PT1 ? []
        : [`drawn ${JSON.stringify(g)}, library {${w.from}} → {${w.to}} at t = ${w.t.toPrecision(6)}, ${w.xy.map((v) => fix(v, 2))} (off by ${fix(e, 3)})`];
    });
    check(bad.length === 0, `${where}: the ${path.name} support-change markers are the library's (${want.map((w) => `{${w.from}} → {${w.to}} at t = ${w.t.toPrecision(4)}`).join("; ") || "none"})${bad.length ? `: ${bad.join("; ")}` : ""}`);
  }
  // the dot on every path at the current t
  const t = Math.min(s.t, s.tmax);
  const off = d.dots.map((dot) => dist(dot.at, project(at(dot.name, t), corners)));
  check(d.dots.length === s.mappings.length && Math.max(...off) <= TOL_PT2,
    `${where}: the dots at t = ${t} are the library's mapping of t z, within ${TOL_PT2} units (off by ${off.map((v) => fix(v, 4))})`);
}

// ------------------------------------------------------------------ the page
const set = (page, id, props) => page.evaluate(([i, p]) => {
  const el = document.getElementById(i);
  for (const [k, v] of Object.entries(p)) el.setAttribute(k, v);
}, [id, props]).then(() => frames(page, 3));

await runSuite("drawings", async (browser, server) => {
  const { page, log } = await open(browser, server.url + pageWith("simplex"), server.url, { viewport: { width: 1100, height: 1400 } });
  await ready(page);
  await frames(page);
  await page.evaluate(READERS); // through the DevTools protocol: the page's CSP allows no inline script

  // sx-simplex: sparsemax zeroes B at the defaults; other scores, a high temperature (no zero at
  // all), a corner (two edges), a mapping set without sparsemax, and alpha-entmax alone
  const hot = await checkSimplex(page, "simplex", "defaults");
  check(hot.length === 1, `sx-simplex (defaults): one edge highlighted, where sparsemax has its zero (got ${hot})`);
  await set(page, "simplex", { scores: "0.2 1.4 1.1" });
  await checkSimplex(page, "simplex", "z_A low");
  await set(page, "simplex", { temperature: "5" });
  check((await checkSimplex(page, "simplex", "T = 5")).length === 0, "sx-simplex (T = 5): no edge highlighted");
  await set(page, "simplex", { temperature: "1", scores: "2.5 -1 0.3" });
  check((await checkSimplex(page, "simplex", "a corner")).length === 2, "sx-simplex (a corner): two edges highlighted");
  await set(page, "simplex", { scores: "0.4 -0.3 1.2", mappings: "softmax entmax", alpha: "3" });
  await checkSimplex(page, "simplex", "alpha-entmax alone");
  await set(page, "simplex", { scores: "0.4 -0.3 1.2", mappings: "softmax fusedmax oscarmax", lambda: "0.8", beta: "0.6" });
  await checkSimplex(page, "simplex", "fusedmax and oscarmax");

  // sx-two-choice: the defaults, then other alphas (alpha 8 saturates at |t| = 1/7)
  await checkTwoChoice(page, "two-choice", "defaults");
  await set(page, "two-choice", { alphas: "1.1 1.7 2.5 8", alpha: "3.3", t: "-0.4" });
  await checkTwoChoice(page, "two-choice", "other alphas");

  // sx-entropy: the defaults, alpha 3 with other scores, alpha 0.5 (no entmax point)
  await checkEntropy(page, "entropy", "defaults");
  await set(page, "entropy", { alpha: "3", scores: "0.1 1 -0.5" });
  await checkEntropy(page, "entropy", "alpha 3");
  await set(page, "entropy", { alpha: "0.5" });
  await checkEntropy(page, "entropy", "alpha 0.5");

  // sx-trajectory: the defaults, then the mappings with a parameter, another t and tmax
  await checkTrajectory(page, "trajectory", "defaults");
  await set(page, "trajectory", { mappings: "entmax fusedmax oscarmax", scores: "0.3 1.2 -0.4", alpha: "2.6", lambda: "0.7", beta: "0.5", t: "2.5", tmax: "20" });
  await checkTrajectory(page, "trajectory", "parameters");

  await checkClean(page, log);
  await page.close();
});
