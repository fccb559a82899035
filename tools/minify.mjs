// minify.mjs - minify the built site's JavaScript in place, module by module (the import graph
// and file layout stay as they are, so a blog author still copies the same files). The sources
// in web/ are what to read; dist/site/ is what to ship. Run by `make site` after the
// single-file bundle is built (that one is minified by tools/bundle.mjs already). The package's
// modules (dist/ outside site/) are minified by tools/layout.mjs with minifyModule, as they are
// copied.
//
//   node tools/minify.mjs [--site dist/site]
//
// esbuild (a devDependency, build time only) does the work: identifiers inside each module,
// whitespace and comments; exported names, strings (so every error message) are untouched.
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const i = argv.indexOf("--site");
const SITE = path.resolve(ROOT, i >= 0 && argv[i + 1] ? argv[i + 1] : "dist/site");
const SKIP = new Set(["simplexity-widgets.js"]);   // the single-file bundle: minified when built

async function* jsFiles(dir) {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* jsFiles(p);
    else if (e.name.endsWith(".js") && !SKIP.has(e.name)) yield p;
  }
}

// The CSS of the widgets' constructable stylesheets, sheet(`...`): esbuild keeps a template
// literal's text as written, so the whitespace around { } ; , and after a declaration's colon
// goes here, before esbuild runs. ${...} substitutions are copied as they are (their braces
// counted, strings and nested templates inside them included). Only whitespace that CSS ignores
// goes: a run of it becomes one space, none where it touches { } ; or , or follows "name:" in a
// declaration (a selector's ":hover" is never preceded by a colon and a space).
export function compactSheets(code) {
  let out = "", at = 0;
  for (let k = code.indexOf("sheet(`"); k >= 0; k = code.indexOf("sheet(`", at)) {
    let i = k + 7, css = "";
    out += code.slice(at, i);
    for (;;) {
      if (i >= code.length) throw new Error("compactSheets: a sheet(` with no closing backtick");
      if (code[i] === "`") break;
      if (code[i] === "\\") { css += code.slice(i, i + 2); i += 2; continue; }
      if (code[i] === "$" && code[i + 1] === "{") {
        const j = substitutionEnd(code, i + 2);
        out += compactCss(css, out.endsWith("sheet(`")) + code.slice(i, j);
        css = "";
        i = j;
        continue;
      }
      css += code[i++];
    }
    out += compactCss(css, out.endsWith("sheet(`")).trimEnd();
    at = i;
  }
  return out + code.slice(at);
}

const compactCss = (css, first) => {
  const c = css.replace(/\s+/g, " ").replace(/ ?([{};,]) ?/g, "$1").replace(/([a-z-]): /g, "$1:");
  return first ? c.trimStart() : c;
};

// The index just past the } that closes a ${ whose body starts at i.
function substitutionEnd(code, i) {
  let depth = 1;
  while (depth) {
    const c = code[i++];
    if (c === undefined) throw new Error("compactSheets: an unclosed ${");
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "`" || c === '"' || c === "'") i = stringEnd(code, i, c);
  }
  return i;
}

// The index just past the closing quote of a string or template opened before i (a template's
// own ${...} skipped whole).
function stringEnd(code, i, q) {
  for (;;) {
    const c = code[i++];
    if (c === undefined) throw new Error("compactSheets: an unclosed string");
    if (c === "\\") i++;
    else if (c === q) return i;
    else if (q === "`" && c === "$" && code[i] === "{") i = substitutionEnd(code, i + 1);
  }
}

/**
 * One ES module minified: its stylesheets compacted (compactSheets), then esbuild's whitespace,
 * comments and local identifiers; its imports, exports, strings and file name stay, so it is
 * the same module to whatever imports it. name: what error messages call it. keepNames: every
 * function and class keeps its .name (esbuild's keepNames), as a library's must: without it
 * err.constructor.name is "wt", not "SimplexityError", and Model.name "C" (about 4% more bytes).
 * Used for the site (main, below) and for the package's modules (tools/layout.mjs --minify,
 * keepNames).
 */
export function minifyModule(code, name, { keepNames = false } = {}) {
  return esbuild.transformSync(compactSheets(code), {
    loader: "js", format: "esm", target: "es2022", minify: true, keepNames, legalComments: "none", sourcefile: name,
  }).code;
}

async function main() {
  let before = 0, after = 0, files = 0;
  for await (const file of jsFiles(SITE)) {
    const code = await fs.readFile(file, "utf8");
    // one short banner: the file's own path is its name (repeated in each of a post's 17 files
    // it cost about 0.2 KB gzipped, a one-widget post's budget is 50 KB)
    const text = `// Simplexity, minified\n${minifyModule(code, path.relative(SITE, file))}`;
    await fs.writeFile(file, text);
    before += code.length; after += text.length; files++;
  }
  console.log(`minify: ${files} files in ${path.relative(ROOT, SITE)}, ${(before / 1024).toFixed(1)} KB -> ${(after / 1024).toFixed(1)} KB`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().catch((err) => {
  console.error(`minify: ${err.message}`);
  process.exit(1);
});
