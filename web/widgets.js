// widgets.js - one script tag loads every Simplexity widget:
//   <script type="module" src="path/to/widgets.js"></script>
// Imports are relative to this file, so the page embedding it can live in any folder; the
// widgets share one wasm instance (simplexity.js's init() is memoised).
export { SxSimplex } from "./widgets/sx-simplex.js";
export { SxEntropy } from "./widgets/sx-entropy.js";
export { SxTrajectory } from "./widgets/sx-trajectory.js";
export { SxTwoChoice } from "./widgets/sx-two-choice.js";
export { SxFused } from "./widgets/sx-fused.js";
export { SxSpanMask } from "./widgets/sx-span-mask.js";
export { SxPooling } from "./widgets/sx-pooling.js";
export { SxAttention } from "./widgets/sx-attention.js";
