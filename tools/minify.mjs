// minify.mjs - minify the built site's JavaScript in place, module by module (the import graph
// and file layout stay as they are, so a blog author still copies the same files). The sources
// in web/ are what to read; dist/site/ is what to ship. Run by `make site` after the
// single-file bundle is built (that one is minified by tools/bundle.mjs already).
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

async function main() {
  let before = 0, after = 0, files = 0;
  for await (const file of jsFiles(SITE)) {
    const code = await fs.readFile(file, "utf8");
    const rel = path.relative(SITE, file);
    const out = await esbuild.transform(code, {
      loader: "js", format: "esm", target: "es2022", minify: true, legalComments: "none",
      sourcefile: rel,
    });
    const text = `// Simplexity ${rel}, minified\n${out.code}`;
    await fs.writeFile(file, text);
    before += code.length; after += text.length; files++;
  }
  console.log(`minify: ${files} files in ${path.relative(ROOT, SITE)}, ${(before / 1024).toFixed(1)} KB -> ${(after / 1024).toFixed(1)} KB`);
}

main().catch((err) => {
  console.error(`minify: ${err.message}`);
  process.exit(1);
});
