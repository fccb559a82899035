// app.js - the page's own wiring; the widgets (widgets.js) do the drawing. Keeps the sections
// in step: the scores of section 1 drive section 3, and one alpha is shared by 1, 2 and 4.
import { info } from "../lib/simplexity.js";
import { ready } from "../widgets/base.js";
import { TAGS, load } from "../widgets/widgets.js";

const $ = (id) => document.getElementById(id);

async function main() {
  try {
    await ready();
  } catch (err) {
    $("status").textContent = `Could not load the WebAssembly core: ${err.message}`;
    $("status").classList.add("error");
    return;
  }
  // widgets.js has started loading each widget's module (its tag is on the page); the wiring
  // below sets the widgets' properties, so their classes must be defined first
  try {
    await Promise.all(TAGS.filter((t) => document.querySelector(t)).map(load));
  } catch (err) {
    $("status").textContent = `Could not load a widget: ${err.message}`;
    $("status").classList.add("error");
    return;
  }
  const i = info();
  $("status").textContent = "";
  $("status").hidden = true;
  $("engine").textContent = `Computed by the ${i.simd ? "SIMD" : "scalar"} WebAssembly build (ABI ${i.abi}).`;
  const simplex = $("simplex"), entropy = $("entropy"), trajectory = $("trajectory"), two = $("two-choice");
  simplex.addEventListener("sx-simplex-change", (e) => {
    const { scores, alpha } = e.detail;
    trajectory.scores = scores;
    entropy.scores = scores;
    entropy.alpha = alpha;
    two.alpha = alpha;
  });
  entropy.addEventListener("sx-entropy-change", (e) => {
    if (e.detail.alpha >= 1) { simplex.alpha = e.detail.alpha; two.alpha = e.detail.alpha; }
  });
  two.addEventListener("sx-two-choice-change", (e) => { simplex.alpha = e.detail.alpha; entropy.alpha = e.detail.alpha; });
  // the threshold section's alpha-entmax follows the alpha the sections above share (from 1.01: its
  // line is at tau / (alpha - 1))
  const threshold = $("threshold");
  for (const type of ["sx-simplex-change", "sx-entropy-change", "sx-two-choice-change"]) {
    document.addEventListener(type, (e) => { if (e.detail.alpha >= 1.01 && e.detail.alpha <= 4) threshold.alpha = e.detail.alpha; });
  }
  // every widget has rendered once: the test and the reader may start
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  document.body.dataset.ready = "1";
}

main();
