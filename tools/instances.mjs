// instances.mjs - a Node module-resolution hook for the tests and benchmarks that hold two
// instances of the library in one process (the SIMD and the scalar build side by side).
//
//   import { register } from "node:module";
//   register(new URL("./instances.mjs", import.meta.url));   // then:
//   const a = await import(".../dist/simplexity.js?instance=simd");
//
// An ES module imported under another URL is another instance; `?instance=<tag>` on the entry
// makes simplexity.js one, and this hook carries the tag to every relative import below it
// (mappings.js, model.js, blocks.js, loader.js), so each tag gets a whole library of its own
// with its own wasm instance, without a test-only switch in the library itself.
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const parent = context.parentURL;
  if (!parent || !parent.startsWith("file:") || !resolved.url.startsWith("file:")) return resolved;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return resolved;
  const tag = new URL(parent).searchParams.get("instance");
  if (tag === null) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set("instance", tag);
  return { ...resolved, url: url.href };
}
