// readme.ts - README "TypeScript": its example, verbatim (tests/js/declarations.test.mjs checks
// that it is the README's), type-checked by `make test-types` against dist/widgets.d.ts.

import { load } from "simplexity/widgets";

const simplex = document.querySelector("sx-simplex"); // SxSimplexElement | null
if (simplex) simplex.alpha = 1.5; // a number: simplex.alpha = "big" does not compile
const Attention = await load("sx-attention"); // typeof SxAttentionElement
const attention = document.body.appendChild(new Attention());
attention.addEventListener("sx-attention-trained", (e) => console.log(e.detail.accuracy)); // number | null

export {};
