// readme-preact.ts - README "TypeScript": the JSX declaration for Preact, verbatim (tests/js/
// declarations.test.mjs checks that it is the README's), against stand-ins/preact.d.ts
// (no dependency on preact; the declaration was also checked once with Preact 10.29 and 11.2 and
// real JSX). Then what it gives a .tsx file: each tag's props, as JSX.IntrinsicElements.

import type { HTMLAttributes } from "preact";
import type { SxWidgetAttributes } from "simplexity/widgets";

type SxIntrinsicElements = {
  [K in keyof SxWidgetAttributes]: SxWidgetAttributes[K] & HTMLAttributes<HTMLElementTagNameMap[K]>;
};
declare module "preact" {
  namespace JSX {
    interface IntrinsicElements extends SxIntrinsicElements {}
  }
}

// --------------------------------------------------------------------- what it gives
import type { JSX } from "preact";
import type { SxPoolingElement } from "simplexity/widgets";
type Props<K extends keyof JSX.IntrinsicElements> = JSX.IntrinsicElements[K];

const pooling: Props<"sx-pooling"> = {
  w: 2, points: "80", mappings: "softmax entmax15", class: "wide",
  ref: (el: SxPoolingElement | null) => { if (el) el.seed = 3; },
  "onsx-pooling-learn": (e) => { const after: number = e.detail.kernels[0]!.after; void after; },
};
const div: Props<"div"> = { class: "still there" };
// @ts-expect-error w is a number
const badW: Props<"sx-pooling"> = { w: "wide" };
// @ts-expect-error no such model
const badModel: Props<"sx-span-mask"> = { model: "copy" };

export { pooling, div, badW, badModel };
