// viewer.js - the attention viewer page's own wiring; <sx-heatmap> does the reading and drawing.
// Files dropped anywhere on the page go to the widget; ?src=, ?labels=, ?values=, ?mapping= and
// ?key= set its attributes (src and labels on this page's origin only: nothing else is fetched);
// "Show an example" hands the widget a file made here (a causal softmax over ten tokens).
import "../widgets/widgets.js";
import { info } from "../lib/mappings.js";

const $ = (id) => document.getElementById(id);
const heatmap = $("heatmap"), status = $("status");
const SAME_ORIGIN = ["src", "labels"], PLAIN = ["values", "mapping", "key", "sort", "layer"];

function fromQuery() {
  const q = new URLSearchParams(location.search);
  for (const name of SAME_ORIGIN) {
    const v = q.get(name);
    if (v === null) continue;
    let url = null;
    try { url = new URL(v, location.href); } catch { /* reported below */ }
    if (url && url.origin === location.origin) heatmap.setAttribute(name, v);
    else status.textContent = `?${name}=${v.slice(0, 80)} is not a file of this site: the viewer fetches nothing from elsewhere`;
  }
  for (const name of PLAIN) if (q.has(name)) heatmap.setAttribute(name, q.get(name));
}

// Drops outside the widget (the widget takes its own and cancels them).
document.addEventListener("dragover", (e) => e.preventDefault());
document.addEventListener("drop", (e) => {
  if (e.defaultPrevented) return;
  e.preventDefault();
  if (e.dataTransfer?.files.length) customElements.whenDefined("sx-heatmap").then(() => heatmap.loadFiles(e.dataTransfer.files));
});

// The example: 2 layers x 4 heads over ten tokens, causal; each head a pattern (the previous
// token, the first token, itself, everything before) plus seeded noise, mapped by softmax.
function example() {
  const tokens = ["the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"], n = tokens.length;
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const data = [];
  for (let l = 0; l < 2; l++) for (let h = 0; h < 4; h++) for (let i = 0; i < n; i++) {
    const z = Array.from({ length: n }, (_, j) => {
      const bump = [j === i - 1, j === 0, j === i, true][h] ? 3 - l : 0;
      return j > i ? -Infinity : bump + 1.5 * rnd();
    });
    const m = Math.max(...z), e = z.map((v) => Math.exp(v - m)), s = e.reduce((a, b) => a + b, 0);
    data.push(...e.map((v) => v / s));
  }
  const text = JSON.stringify({ shape: [2, 4, n, n], data, tokens });
  heatmap.removeAttribute("src");
  heatmap.setAttribute("values", "weights");
  return heatmap.loadFiles([new File([text], "example.json", { type: "application/json" })]);
}

heatmap.addEventListener("sx-heatmap-load", (e) => {
  status.textContent = `${e.detail.name}: ${e.detail.shape.join(" × ")} ${e.detail.dtype} ${e.detail.values}`;
});
$("example").addEventListener("click", () => customElements.whenDefined("sx-heatmap").then(example));
fromQuery();

// The page is ready (for a reader's script and the tests, as the chapters' app.js marks it) once
// the widget has drawn itself the first time.
(function markReady() {
  if (!(heatmap.lastRenderMs > 0)) { requestAnimationFrame(markReady); return; }
  const i = info();
  $("engine").textContent = `Computed by the ${i.simd ? "SIMD" : "scalar"} WebAssembly build (ABI ${i.abi}, the ${i.core} core).`;
  document.body.dataset.ready = "1";
})();
