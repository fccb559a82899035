// chapter-mappings.js - the Mappings chapter's entry point: the shared start (app.js), then the
// wiring that keeps its sections in step: the scores of section 1 drive sections 2 and 3, one
// alpha is shared by 1, 2 and 4, and section 7's alpha-entmax follows it.
import { start } from "./app.js";

const $ = (id) => document.getElementById(id);

function wire() {
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
  // the threshold section's alpha-entmax follows the alpha the sections above share (from 1.01:
  // its line is at tau / (alpha - 1))
  const threshold = $("threshold");
  for (const type of ["sx-simplex-change", "sx-entropy-change", "sx-two-choice-change"]) {
    document.addEventListener(type, (e) => { if (e.detail.alpha >= 1.01 && e.detail.alpha <= 4) threshold.alpha = e.detail.alpha; });
  }
}

start(wire);
