// app.js - the page: wires the controls to the wasm core and redraws the pictures.
import { init, info, softmax, sparsemax, entmax15, entmax, fusedmax } from "./simplexity.js";
import { ternaryCorners, ternaryXY } from "./viz/ternary.js";
import { linear, ticks } from "./viz/scale.js";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

// The five mappings of section 1, each a function of (scores, rows*3 batch) -> probabilities.
const MAPPINGS = [
  { key: "softmax", label: "softmax", run: (x, o) => softmax(x, o) },
  { key: "sparsemax", label: "sparsemax", run: (x, o) => sparsemax(x, o) },
  { key: "entmax15", label: "1.5-entmax", run: (x, o) => entmax15(x, o) },
  { key: "entmax", label: "α-entmax", run: (x, o) => entmax(x, { ...o, alpha: state.alpha }) },
  { key: "fusedmax", label: "fusedmax", run: (x, o) => fusedmax(x, { ...o, lambda: state.lambda }) },
];

const state = { z: [1.5, 0, 1], T: 1, alpha: 1.25, lambda: 0.3, cloud: "sparsemax", alpha2: 1.5 };

// 100 random score vectors, fixed by a seed so the picture is the same on every load.
function randomScores(count, seed) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const out = new Float32Array(count * 3);
  for (let i = 0; i < out.length; i++) {
    const u = Math.max(rand(), 1e-12), v = rand();
    out[i] = 1.2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  return out;
}
const CLOUD = randomScores(100, 7);

// ----------------------------------------------------------------- simplex
const SIDE = 300, PAD = 30;
function drawSimplexFrame(svg) {
  const c = ternaryCorners(SIDE, PAD);
  el("polygon", { class: "edge", points: c.map((p) => p.join(",")).join(" ") }, svg);
  const names = ["A", "B", "C"];
  const offs = [[0, -10], [-14, 16], [14, 16]];
  c.forEach((p, i) => {
    const t = el("text", { x: p[0] + offs[i][0], y: p[1] + offs[i][1], "text-anchor": "middle" }, svg);
    t.textContent = names[i];
  });
  const centre = ternaryXY([1, 1, 1], SIDE, PAD);
  el("circle", { cx: centre[0], cy: centre[1], r: 2, class: "axis" }, svg);
  return { cloud: el("g", { class: "cloud" }, svg), points: el("g", {}, svg) };
}

function drawSimplex(layers) {
  const opts = { n: 3, temperature: state.T };
  layers.cloud.replaceChildren();
  const m = MAPPINGS.find((q) => q.key === state.cloud);
  if (m) {
    const p = m.run(CLOUD, opts);
    for (let i = 0; i < p.length; i += 3) {
      const [x, y] = ternaryXY(p.subarray(i, i + 3), SIDE, PAD);
      el("circle", { cx: x.toFixed(2), cy: y.toFixed(2), r: 2.2, class: `m-${m.key}` }, layers.cloud);
    }
  }
  layers.points.replaceChildren();
  const rows = [];
  for (const q of MAPPINGS) {
    const p = q.run(state.z, opts);
    const [x, y] = ternaryXY(p, SIDE, PAD);
    const dot = el("circle", { cx: x.toFixed(2), cy: y.toFixed(2), r: 6, class: `m-${q.key}` }, layers.points);
    el("title", {}, dot).textContent = `${q.label}: [${Array.from(p, (v) => v.toFixed(3)).join(", ")}]`;
    rows.push([q, p]);
  }
  const body = $("probs");
  body.replaceChildren();
  for (const [q, p] of rows) {
    const tr = document.createElement("tr");
    const name = document.createElement("td");
    const sw = document.createElement("span");
    sw.className = `swatch m-${q.key}`;
    name.append(sw, q.label + (q.key === "entmax" ? ` (α = ${state.alpha.toFixed(2)})` : q.key === "fusedmax" ? ` (λ = ${state.lambda.toFixed(2)})` : ""));
    tr.appendChild(name);
    let zeros = 0;
    for (const v of p) {
      const td = document.createElement("td");
      td.textContent = v === 0 ? "0" : v.toFixed(4);
      if (v === 0) { td.className = "zero"; zeros++; }
      tr.appendChild(td);
    }
    const tz = document.createElement("td");
    tz.textContent = String(zeros);
    tr.appendChild(tz);
    body.appendChild(tr);
  }
}

// --------------------------------------------------------- two-choice curve
const ALPHAS = [1, 1.25, 1.5, 2, 3];
function drawCurve(svg) {
  svg.replaceChildren(svg.querySelector("title"));
  const W = 420, H = 260, L = 40, R = 12, T = 12, B = 34;
  const sx = linear([-3, 3], [L, W - R]), sy = linear([0, 1], [H - B, T]);
  for (const t of ticks(-3, 3, 6)) {
    el("line", { class: "axis", x1: sx(t), x2: sx(t), y1: sy(0), y2: sy(1) }, svg);
    el("text", { x: sx(t), y: H - B + 16, "text-anchor": "middle" }, svg).textContent = String(t);
  }
  for (const v of ticks(0, 1, 4)) {
    el("line", { class: "axis", x1: sx(-3), x2: sx(3), y1: sy(v), y2: sy(v) }, svg);
    el("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end" }, svg).textContent = String(v);
  }
  el("text", { x: (L + W - R) / 2, y: H - 2, "text-anchor": "middle" }, svg).textContent = "t";
  const N = 241;
  const x = new Float32Array(N * 2);
  for (let i = 0; i < N; i++) x[2 * i] = -3 + (6 * i) / (N - 1);
  const series = ALPHAS.map((a, k) => [a, `curve a${k}`]).concat([[state.alpha2, "curve hi"]]);
  for (const [a, cls] of series) {
    const p = entmax(x, { n: 2, alpha: a });
    let d = "";
    for (let i = 0; i < N; i++) d += `${i ? "L" : "M"}${sx(x[2 * i]).toFixed(1)},${sy(p[2 * i]).toFixed(1)}`;
    el("title", {}, el("path", { d, class: cls }, svg)).textContent = `alpha = ${a}`;
  }
  // legend in the empty top-left corner
  series.forEach(([a, cls], k) => {
    const y = sy(0.95) + 15 * k;
    el("line", { x1: sx(-2.9), x2: sx(-2.5), y1: y, y2: y, class: cls }, svg);
    el("text", { x: sx(-2.45), y: y + 4 }, svg).textContent =
      cls === "curve hi" ? `α = ${a.toFixed(2)} (slider)` : `α = ${a}${a === 1 ? " softmax" : a === 2 ? " sparsemax" : ""}`;
  });
}

// ------------------------------------------------------------------ wiring
function readControls() {
  state.z = [0, 1, 2].map((i) => Number($(`z${i}`).value));
  state.T = 10 ** Number($("logT").value);
  state.alpha = Number($("alpha").value);
  state.lambda = Number($("lambda").value);
  state.cloud = $("cloud").value;
  state.alpha2 = Number($("alpha2").value);
  for (const out of document.querySelectorAll("output[for]")) {
    const id = out.getAttribute("for");
    out.textContent = id === "logT" ? state.T.toPrecision(3) : Number($(id).value).toFixed(2);
  }
}

let frame = 0;
function schedule(redraw) {
  if (frame) return;
  frame = requestAnimationFrame(() => { frame = 0; readControls(); redraw(); });
}

async function main() {
  try {
    await init();
  } catch (err) {
    $("status").textContent = `Could not load the WebAssembly core: ${err.message}`;
    $("status").classList.add("error");
    return;
  }
  const i = info();
  $("status").textContent = "";
  $("engine").textContent = `Computed by the ${i.simd ? "SIMD" : "scalar"} WebAssembly build (ABI ${i.abi}).`;
  const layers = drawSimplexFrame($("tri"));
  const redraw = () => { drawSimplex(layers); drawCurve($("curve")); };
  readControls();
  redraw();
  for (const input of document.querySelectorAll("#controls input, #controls select, #alpha2")) {
    input.addEventListener("input", () => schedule(redraw));
  }
  document.body.dataset.ready = "1";
}

main();
