// phone.js - what a widget needs on a phone and nothing else does, fetched by base.js once a
// widget is drawn under 420 px wide or the pointer is coarse (a desktop reader never loads it):
// the styles of a narrow widget (controls on two rows, tighter tables) and of a coarse pointer
// (touch targets of 44 px, 32 px for a text field), and the text fit of a fitText widget's
// pictures: --_k, viewBox units per CSS px, which SVG text (never under 11.5 px as drawn) and a
// handle's touch target (a transparent circle.hit-r, 28 px across as drawn) read.
import { sheet } from "./base.js";

const PHONE_SHEET = sheet(`
.body { container-type: inline-size; }
svg text { font-size: max(var(--_fs, 12px), calc(11.5px * var(--_k, 0))); }
.hit-r { r: calc(14px * var(--_k, 1)); }
@container (max-width: 420px) {
  .controls label { grid-template-columns: minmax(0, 1fr) auto; row-gap: 0; }
  .controls label > input[type="range"] { grid-column: 1 / -1; grid-row: 2; }
  table { font-size: 12px; }
  th, td { padding: 2.4px 3.2px; }
}
@media (pointer: coarse) {
  :host { padding-bottom: 56px; }
  input[type="range"] { height: 44px; }
  button, select { min-height: 44px; min-width: 44px; }
  input:not([type="range"], [type="checkbox"], [type="radio"]) { min-height: 32px; }
  .toolbar button { min-height: 40px; }
  .keys { display: none !important; }
}`);

/** Sets --_k on an <svg>: its viewBox width per CSS px as drawn (0 when not drawn). */
export function setK(svg) {
  const w = svg.getBoundingClientRect().width, k = w && svg.viewBox.baseVal.width / w;
  if (k) svg.style.setProperty("--_k", k.toFixed(3));
  return k;
}

// --_k again (and the widget's own viewBox fit, `static fitBox`: viz/fit-box.js) when a picture
// is drawn at a new width; then the widget renders again (it may lay a narrow picture out
// otherwise, as sx-threshold and sx-explain do).
const refit = (svg, fresh) => (svg.getRootNode().host.constructor.fitBox || setK)(svg, fresh, setK);
const resized = typeof ResizeObserver == "function" && new ResizeObserver((entries) => {
  for (const { target: svg, contentRect: { width } } of entries) {
    const host = svg.getRootNode().host;
    if (!host) { resized.unobserve(svg); continue; } // a picture the widget has replaced
    refit(svg, true);
    if (svg._w !== undefined && svg._w !== width) host.invalidate();
    svg._w = width;
  }
});

/** After each render of `el` (base.js): the phone styles adopted once, its pictures fitted. */
export function fit(el) {
  const root = el.shadowRoot;
  if (!root.adoptedStyleSheets.includes(PHONE_SHEET)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, PHONE_SHEET];
  if (!el.constructor.fitText || !resized) return;
  for (const svg of root.querySelectorAll("svg[viewBox]")) {
    if (!svg._o) { svg._o = 1; resized.observe(svg); } else refit(svg, false);
  }
}
