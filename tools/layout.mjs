// layout.mjs - the package's layout (dist/) from the source tree (web/): ONE path map, and a copy
// of every file with the relative specifiers of its modules rewritten from where the module sits
// in web/ to where it sits in dist/.
//
// Why two layouts: the source tree shows the layers (web/lib/ the library, web/widgets/ the
// widgets with their runtime/ and viz/, web/site/ the page, web/models/ the shipped checkpoints),
// while the package keeps the layout its users, their bundlers and the README's copy
// instructions rely on: dist/simplexity.js, dist/loader.js beside the four .wasm,
// dist/widgets.js, dist/widgets/sx-*.js, dist/viz/, dist/checkpoints.js beside dist/models/.
// Source imports resolve in web/ (Node tests import web/ files, editors navigate), dist imports
// in dist/: this tool is the only place that knows both.
//
//   node tools/layout.mjs [--out dist] [--minify]     the package's files (--minify: its modules
//                                                     minified as they are copied, see below)
//   node tools/layout.mjs --site [--out dist/site]    the site: those (but the .d.ts) and the page's
//   node tools/layout.mjs --list                      the map, one "web/X -> dist/Y" line a file
//   (--src web: the source tree, for tests/js/layout.test.mjs)
//
// What is rewritten, in .js/.mjs/.d.ts files: the string literal of a static `import`/`export
// ... from` (`import type` too), a dynamic `import("...")` or a type `import("...")`, and
// `new URL("...", import.meta.url)` (the workers' URLs and the asset URLs). Only relative
// specifiers ("./", "../"); bare ones ("simplexity", "node:fs") stay as they are. Each is
// resolved in web/ and must be a source file the map ships in this build or a known build output
// (BUILT: the four .wasm, which the Makefile builds beside loader.js); the new specifier is the
// path from the module's dist location to the target's, "./"-prefixed, so the asset literals
// come out exactly as bundlers key on them (new URL("./simplexity-simd.wasm", import.meta.url),
// "./models/<file>"). Anything else stops the build (exit 1) naming the file and the specifier:
// a target that is neither, or a form this tool cannot rewrite (a template literal or any other
// expression in import() or in new URL(..., import.meta.url)).
// TypeScript's parser (a devDependency, build time only) finds the specifiers, so comments and
// strings that merely mention one are left alone. Other files (HTML, CSS, .sxm) are copied as
// they are: the book's pages' URLs are the site's (it is served from dist/site/ only).
//
// --minify (the package, as `make` builds it): each .js module, once rewritten, is minified on
// its own (tools/minify.mjs's minifyModule: esbuild, whitespace, comments and local names), so
// the package keeps every file name, import path and export its users, the "exports" map and the
// .d.ts files name, at about half the bytes; every function and class keeps its .name. A one-line header names the module's source in web/,
// for a reader of node_modules/simplexity/ who wants the commented code. The .d.ts files stay as
// written: their comments are what an editor shows. (The site is minified after its copy, by
// tools/minify.mjs itself, with a shorter banner.)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { minifyModule } from "./minify.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// ------------------------------------------------------------------ the map
// [source path under web/ (a folder ends in "/"), its path under dist/ (or dist/site/), scope].
// The first entry that matches a file wins. Scope "site": copied into the site only.
export const MAP = [
  ["lib/", ""],                                 // the library: dist/simplexity.js, dist/model/*.js ...
  ["widgets/runtime/", ""],                     // the widgets' runtime beside it: dist/checkpoints.js, dist/train-worker.js ...
  ["widgets/viz/", "viz/"],                     // the drawing helpers
  ["widgets/widgets.js", "widgets.js"],         // the widgets' entry and the declarations, at the top
  ["widgets/widgets.d.ts", "widgets.d.ts"],
  ["widgets/standalone.d.ts", "standalone.d.ts"],
  ["widgets/", "widgets/"],                     // one module per element, base.js, export.js ...
  ["models/summary.json", "models/summary.json", "site"], // the page's model table
  ["models/", "models/"],                       // the shipped checkpoints, beside checkpoints.js
  ["site/serve.mjs", null],                     // the static server: a tool, shipped nowhere
  ["site/", "", "site"],                        // the site: the book's pages, their scripts, style.css, favicon.svg
];

// Build outputs a module may name: web/ paths (where the module's specifier points) -> dist paths.
export const BUILT = new Map([
  "simplexity-simd.wasm", "simplexity.wasm", "simplexity-mappings-simd.wasm", "simplexity-mappings.wasm",
].map((f) => [`lib/${f}`, f]));

const REWRITTEN = /\.(m?js|d\.ts)$/;
const MODULE = /\.m?js$/;

/** A package module as shipped with --minify: a header naming its source, then the minified code. */
export const minified = (rel, text) => `// Simplexity: minified from web/${rel} (the readable source is in the repository)\n${minifyModule(text, `web/${rel}`, { keepNames: true })}`;

/** The dist path of a web/-relative source path: a string, null (shipped nowhere), or undefined
 *  (no entry of the map: an error). site: whether the site's entries apply. */
export function distPath(rel, { site = false } = {}) {
  for (const [src, dst, scope] of MAP) {
    const hit = src.endsWith("/") ? rel.startsWith(src) : rel === src;
    if (!hit) continue;
    if (dst === null || (scope === "site" && !site)) return null;
    return src.endsWith("/") ? dst + rel.slice(src.length) : dst;
  }
  return undefined;
}

/** Every file under the source tree, web/-relative, sorted. */
export function sourceFiles(src) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(src, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk("");
  return out.sort();
}

// ------------------------------------------------------------------ finding specifiers
const isImportMetaUrl = (n) => ts.isPropertyAccessExpression(n) && n.name.text === "url"
  && ts.isMetaProperty(n.expression) && n.expression.keywordToken === ts.SyntaxKind.ImportKeyword;

/**
 * The specifiers of one module: [{ value, start, end, form }] (start/end: the literal's quotes
 * included), and problems: [{ form, text }] for the forms that cannot be rewritten.
 */
export function specifiers(file, text) {
  const kind = file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found = [], problems = [];
  const take = (lit, form) => {
    if (lit && ts.isStringLiteral(lit)) found.push({ value: lit.text, start: lit.getStart(sf), end: lit.end, form });
    else problems.push({ form, text: lit ? lit.getText(sf) : "(nothing)" });
  };
  const visit = (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) take(n.moduleSpecifier, "import");
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) take(n.arguments[0], "import()");
    else if (ts.isImportTypeNode(n)) take(ts.isLiteralTypeNode(n.argument) ? n.argument.literal : undefined, "import() type");
    else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "URL"
      && n.arguments && n.arguments.length >= 2 && isImportMetaUrl(n.arguments[1])) take(n.arguments[0], "new URL(..., import.meta.url)");
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { found, problems };
}

const isRelative = (s) => s.startsWith("./") || s.startsWith("../");

/** The specifier from dist path `from` to dist path `to`, "./"-prefixed. */
export function relSpec(from, to) {
  const r = path.posix.relative(path.posix.dirname(from), to);
  return r.startsWith("../") ? r : `./${r}`;
}

/**
 * One module's text with its relative specifiers rewritten for dist. rel: its web/-relative
 * path; exists(rel): whether a web/-relative path is a source file. Throws naming the file and
 * the specifier on a target that is neither shipped in this build nor in BUILT, or on a form it
 * cannot rewrite.
 */
export function rewrite(rel, text, { site = false, exists }) {
  const from = distPath(rel, { site });
  const { found, problems } = specifiers(rel, text);
  const errors = problems.map((p) => `web/${rel}: ${p.form} of ${p.text}: only a string literal can be rewritten`);
  let out = "", at = 0, count = 0;
  for (const s of found) {
    if (!isRelative(s.value)) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), s.value));
    const to = exists(target) ? distPath(target, { site }) : BUILT.get(target);
    if (typeof to !== "string") {
      errors.push(`web/${rel}: ${s.form} "${s.value}" -> web/${target}: ${exists(target) ? "not shipped in this build" : "no such source file or build output"}`);
      continue;
    }
    const q = text[s.start];
    out += text.slice(at, s.start) + q + relSpec(from, to) + q;
    at = s.end;
    count++;
  }
  if (errors.length) throw new Error(errors.join("\n"));
  return { text: out + text.slice(at), count };
}

// ------------------------------------------------------------------ the copy
/** Copy (and rewrite, and with minify minify the modules of) every file the build ships from src
 *  to out; returns { files, specifiers }. */
export function layout({ src, out, site = false, minify = false }) {
  const files = sourceFiles(src);
  const errors = [], targets = new Map();
  const set = new Set(files);
  const exists = (rel) => set.has(rel);
  let count = 0;
  const jobs = [];
  for (const rel of files) {
    const to = distPath(rel, { site });
    if (to === undefined) { errors.push(`web/${rel}: in no entry of tools/layout.mjs's map`); continue; }
    if (to === null || (site && rel.endsWith(".d.ts"))) continue; // the site needs no declarations
    if (targets.has(to)) { errors.push(`web/${rel}: dist path ${to} is web/${targets.get(to)}'s too`); continue; }
    targets.set(to, rel);
    let body = fs.readFileSync(path.join(src, rel));
    if (REWRITTEN.test(rel)) {
      try {
        const r = rewrite(rel, body.toString("utf8"), { site, exists });
        body = Buffer.from(minify && MODULE.test(rel) ? minified(rel, r.text) : r.text, "utf8");
        count += r.count;
      } catch (err) { errors.push(err.message); continue; }
    }
    jobs.push([path.join(out, to), body]);
  }
  if (errors.length) throw new Error(errors.join("\n"));
  for (const [file, body] of jobs) {
    // unchanged files keep their mtime, so make rebuilds only what depends on a changed one
    if (fs.existsSync(file) && fs.readFileSync(file).equals(body)) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, body);
  }
  return { files: jobs.length, specifiers: count };
}

function main() {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt; };
  const site = argv.includes("--site");
  const src = path.resolve(ROOT, opt("--src", "web"));
  if (argv.includes("--list")) {
    for (const rel of sourceFiles(src)) {
      const to = distPath(rel, { site: true });
      console.log(`web/${rel} -> ${to === null ? "(not shipped)" : to === undefined ? "(NOT MAPPED)" : `dist/${rel.startsWith("site/") || rel === "models/summary.json" ? "site/" : ""}${to}`}`);
    }
    return;
  }
  const out = path.resolve(ROOT, opt("--out", site ? "dist/site" : "dist"));
  const minify = argv.includes("--minify");
  const r = layout({ src, out, site, minify });
  console.log(`layout: ${r.files} files -> ${path.relative(ROOT, out) || "."}, ${r.specifiers} relative specifiers rewritten${minify ? ", the modules minified" : ""}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try { main(); } catch (err) {
    console.error(`layout: ${err.message.split("\n").join("\nlayout: ")}`);
    process.exit(1);
  }
}
