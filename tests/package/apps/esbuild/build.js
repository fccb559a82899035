import { build } from "esbuild";
import { cpSync } from "node:fs";

await build({ entryPoints: ["main.js"], bundle: true, format: "esm", outdir: "dist" });
// esbuild leaves new URL("./simplexity-simd.wasm", import.meta.url) as it is: the files it names
// (the full and the mappings core, SIMD and scalar) must sit beside the bundle
for (const file of ["simplexity-simd.wasm", "simplexity.wasm", "simplexity-mappings-simd.wasm", "simplexity-mappings.wasm"]) {
  cpSync(`node_modules/simplexity/dist/${file}`, `dist/${file}`);
}
// <sx-attention> and <sx-span-mask> fetch models/<task>-<kind>.sxm beside the bundle too
cpSync("node_modules/simplexity/dist/models", "dist/models", { recursive: true });
