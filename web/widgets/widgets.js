// widgets.js - one script tag loads the Simplexity widgets a page uses:
//   <script type="module" src="path/to/widgets.js"></script>
// Each widget's module (with what it alone imports: <sx-attention> brings the model API, the
// trainer, inspect.js) is fetched only once its tag is in the document: at load for the tags
// the page holds, later (a MutationObserver on the document) for tags its scripts add. Elements
// already in the page upgrade when their module defines them. Imports are relative to this file,
// so the page embedding it can live in any folder; the widgets share one wasm instance
// (simplexity.js's init() is memoised). A module that fails to load is a console error naming
// the tag and the file.
//
// For scripts: load(tag) fetches a widget's module now and resolves to its class once defined
// (await it before using the element's properties and methods); TAGS lists the tags.
//
// The wasm core: the widgets that draw mappings only (MAPPINGS_CORE_TAGS, each class's
// `static core = "mappings"`) compute with the small mappings core; as soon as a tag that needs
// the full core is seen, the full core is asked for, before any widget module has loaded, so a
// page holding both kinds fetches one .wasm (widgets/base.js ready()).
// base.js (and through it the library) is imported dynamically: a static import that fails (a
// folder copied without mappings.js) would stop this module too, and with it every message.
// where.js has no import: it says where the widgets' modules are even then.
import { WIDGETS_URL } from "./where.js";
const ready = (core) => import("./base.js").then((m) => m.ready(core));

// Literal specifiers: the browser resolves them against this module's URL, and esbuild inlines
// them into the single-file build (tools/bundle.mjs), which then fetches none of them.
const MODULES = {
  "sx-simplex": () => import("./sx-simplex.js"),
  "sx-entropy": () => import("./sx-entropy.js"),
  "sx-trajectory": () => import("./sx-trajectory.js"),
  "sx-two-choice": () => import("./sx-two-choice.js"),
  "sx-fused": () => import("./sx-fused.js"),
  "sx-jacobian": () => import("./sx-jacobian.js"),
  "sx-threshold": () => import("./sx-threshold.js"),
  "sx-regularized": () => import("./sx-regularized.js"),
  "sx-span-mask": () => import("./sx-span-mask.js"),
  "sx-pooling": () => import("./sx-pooling.js"),
  "sx-scores": () => import("./sx-scores.js"),
  "sx-positions": () => import("./sx-positions.js"),
  "sx-patterns": () => import("./sx-patterns.js"),
  "sx-attention": () => import("./sx-attention.js"),
  "sx-explain": () => import("./sx-explain.js"),
  "sx-loss": () => import("./sx-loss.js"),
  "sx-chain": () => import("./sx-chain.js"),
  "sx-decode": () => import("./sx-decode.js"),
  "sx-heatmap": () => import("./sx-heatmap.js"),
  "sx-cues": () => import("./sx-cues.js"),
  "sx-costs": () => import("./sx-costs.js"),
  "sx-write": () => import("./sx-write.js"),
  "sx-bottleneck": () => import("./sx-bottleneck.js"),
  "sx-hard": () => import("./sx-hard.js"),
  "sx-rationale": () => import("./sx-rationale.js"),
};

/** Every widget's tag. */
export const TAGS = Object.freeze(Object.keys(MODULES));

/** The tags whose elements need only the mappings core (the others need the full core). */
export const MAPPINGS_CORE_TAGS = Object.freeze(["sx-simplex", "sx-entropy", "sx-trajectory", "sx-two-choice",
  "sx-fused", "sx-jacobian", "sx-threshold", "sx-regularized", "sx-heatmap",
  "sx-cues"]);

const loading = new Map(); // tag -> the promise of its class (a failure stays failed)

/** Fetch the module that defines `tag` (once); resolves to the element's class. */
export function load(tag) {
  if (typeof tag !== "string") return Promise.reject(new TypeError(`load: tag must be a string; got ${typeof tag}`));
  if (!Object.hasOwn(MODULES, tag)) {
    return Promise.reject(new RangeError(`load: tag must be one of ${TAGS.join(", ")}; got "${tag.slice(0, 40)}"`));
  }
  let p = loading.get(tag);
  if (!p) {
    p = MODULES[tag]().then(() => customElements.whenDefined(tag), (err) => {
      // each widget's module sits beside base.js (widgets/ in the package); its URL through a
      // variable: webpack takes new URL(<expression>, import.meta.url) for an asset request
      // (a build warning and an empty context module that throws here)
      const url = new URL(`${tag}.js`, WIDGETS_URL).href;
      console.error(`widgets.js: <${tag}> could not be loaded from ${url}: ${err.message}`);
      failed.set(tag, [url, err]);
      if (typeof document !== "undefined") report(tag);
      throw new Error(`load: <${tag}> could not be loaded from ${url}: ${err.message}`, { cause: err });
    });
    loading.set(tag, p);
  }
  return p;
}

// ------------------------------------------------------------------ a module that cannot load
// Each element of the tag then shows which file could not be fetched (widgets/load-error.js,
// fetched only then; if it cannot load either, widgets/ is missing: the message names the
// widget's module).
const failed = new Map(); // tag -> [the module's URL, the error]
const report = (tag) => import("./load-error.js").then((m) => m.report(tag, ...failed.get(tag)), () => {
  for (const el of document.getElementsByTagName(tag)) el.textContent ||= `<${tag}> could not be loaded from ${failed.get(tag)[0]}`;
});

// ------------------------------------------------------------------ tags in the document
// The page's own use: a failure is on the console and in each element of the tag (above).
// A failure to load the core is each element's own message.
const use = (tag) => {
  if (loading.has(tag)) return;
  if (!MAPPINGS_CORE_TAGS.includes(tag)) ready("full").catch(() => {});
  load(tag).catch(() => {});
};

/** Load every widget whose tag is `el` or inside it. */
function scan(el) {
  for (const tag of TAGS) {
    if ((!loading.has(tag) || failed.has(tag)) && (el.localName === tag || (el.firstElementChild && el.getElementsByTagName(tag).length))) {
      if (failed.has(tag)) report(tag); else use(tag);
    }
  }
}

if (typeof document !== "undefined") {
  scan(document.documentElement);
  if (loading.size < TAGS.length && typeof MutationObserver === "function") {
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        for (const node of r.addedNodes) if (node.nodeType === 1) scan(node);
      }
      if (loading.size === TAGS.length) observer.disconnect();
    });
    observer.observe(document, { childList: true, subtree: true });
  }
}
