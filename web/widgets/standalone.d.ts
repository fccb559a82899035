// standalone.d.ts - the declarations of "simplexity/standalone" (simplexity-widgets.js, the
// single-file build): the whole library and the widgets' load() and TAGS, in one module.
export * from "../lib/simplexity.js";
export * from "./widgets.js";
