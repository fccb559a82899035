// readme-react.ts - README "TypeScript": the JSX declaration for React, verbatim (tests/js/
// declarations.test.mjs checks that it is the README's), against stand-ins/react.d.ts (no
// dependency on @types/react; the declaration was also checked once with @types/react 19.3 and
// real JSX). Then what it gives a .tsx file: each tag's props, as JSX.IntrinsicElements.

import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type { SxWidgetAttributes } from "simplexity/widgets";

type SxIntrinsicElements = {
  [K in keyof SxWidgetAttributes]: SxWidgetAttributes[K] &
    DetailedHTMLProps<HTMLAttributes<HTMLElementTagNameMap[K]>, HTMLElementTagNameMap[K]>;
};
declare module "react" {
  namespace JSX {
    interface IntrinsicElements extends SxIntrinsicElements {}
  }
}

// --------------------------------------------------------------------- what it gives
import type { JSX } from "react";
import type { SxSimplexElement } from "simplexity/widgets";
type Props<K extends keyof JSX.IntrinsicElements> = JSX.IntrinsicElements[K];

const simplex: Props<"sx-simplex"> = {
  alpha: 1.5, lambda: "0.3", scores: "1.5 0 1", mappings: "softmax sparsemax", cloud: "none", className: "wide",
  ref: (el: SxSimplexElement | null) => { if (el) el.alpha = 2; },
  "onsx-simplex-change": (e) => { const scores: readonly number[] = e.detail.scores; void scores; },
};
const attention: Props<"sx-attention"> = {
  task: "date", kind: "alpha-span", input: "22 Nov 2026", "no-train": true,
  "onsx-attention-trained": (e) => { const accuracy: number | null = e.detail.accuracy; void accuracy; },
};
const div: Props<"div"> = { className: "still there" };
// @ts-expect-error alpha is a number
const badAlpha: Props<"sx-simplex"> = { alpha: "big" };
// @ts-expect-error no such kind
const badKind: Props<"sx-attention"> = { kind: "sparsemax" };
// @ts-expect-error no such attribute
const badAttr: Props<"sx-entropy"> = { lambda: 1 };
// @ts-expect-error the event's detail has no t
const badDetail: Props<"sx-simplex"> = { "onsx-simplex-change": (e) => e.detail.t };
// @ts-expect-error the ref is the element's own type
const badRef: Props<"sx-fused"> = { ref: (el: SxSimplexElement | null) => void el };

export { simplex, attention, div, badAlpha, badKind, badAttr, badDetail, badRef };
