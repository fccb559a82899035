// gradients.mjs - backward passes and the gradient with respect to alpha, checked against
// finite differences. Run: node examples/gradients.mjs
import { init, entmax, entmaxBackward, entmaxAlphaGrad, sparsemaxBackward } from "simplexity";

await init();
const x = new Float32Array([1.5, 0, 1]);
const dy = new Float32Array([1, 0, -1]); // the gradient of a loss with respect to p = entmax(x)
const alpha = 1.5;

// dx = J(x)^T dy: the gradient of <dy, entmax(x)> with respect to x.
const dx = entmaxBackward(x, dy, { alpha });
console.log("entmax p      ", Array.from(entmax(x, { alpha })));
console.log("entmax dx     ", Array.from(dx));
console.log("sparsemax dx  ", Array.from(sparsemaxBackward(x, dy))); // 0 off the support

// d <dy, entmax(x; alpha)> / d alpha, one value per row: learn alpha per attention head.
const [dalpha] = entmaxAlphaGrad(x, dy, { alpha });
const loss = (a) => entmax(x, { alpha: a }).reduce((s, p, i) => s + p * dy[i], 0);
const h = 1e-2;
const fd = (loss(alpha + h) - loss(alpha - h)) / (2 * h);
console.log("d/d alpha     ", dalpha, " finite differences", fd);
if (Math.abs(dalpha - fd) > 1e-2) throw new Error("alpha gradient disagrees with finite differences");
