// sizes.mjs - transfer size of the page and of the widgets alone, gzipped (level 9), from the
// built site: `make site-size`. A browser fetches one of the two .wasm builds (SIMD where
// supported), so the totals count the SIMD one; the scalar one is listed for reference.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const SITE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/site");
const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(SITE, f)), { level: 9 }).length;
const raw = (f) => fs.statSync(path.join(SITE, f)).size;
const dir = (d) => fs.readdirSync(path.join(SITE, d)).filter((f) => f.endsWith(".js")).map((f) => `${d}/${f}`);
const library = ["simplexity.js", "loader.js", "model.js", "simplexity-simd.wasm"];
const widgets = ["widgets.js", ...dir("widgets"), ...dir("viz")];
const page = ["index.html", "style.css", "app.js", "favicon.svg"];
const sum = (files, f) => files.reduce((a, x) => a + f(x), 0);
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const row = (name, files) => console.log(`${name.padEnd(34)} ${kb(sum(files, raw)).padStart(9)} raw ${kb(sum(files, gz)).padStart(9)} gzipped  (${files.length} files)`);
row("library (js + SIMD wasm)", library);
row("widget code (widgets.js, widgets/, viz/)", widgets);
row("page shell (html, css, app.js, icon)", page);
console.log("-".repeat(78));
row("widgets alone (library + widget code)", [...library, ...widgets]);
row("the whole page", [...library, ...widgets, ...page]);
row("(scalar wasm, fetched instead of SIMD)", ["simplexity.wasm"]);
row("single-file widget build (both wasm)", ["simplexity-widgets.js"]);
console.log("dependencies: none beyond the library (contours, scales, colours, 3-D projection are web/viz/*.js)");
