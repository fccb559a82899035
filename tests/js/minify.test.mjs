// minify.test.mjs - tools/minify.mjs's compactSheets: the CSS of the widgets' sheet(`...`)
// literals loses only the whitespace CSS ignores; ${...} substitutions (with their own strings,
// templates and braces) and CSS strings come through as written; every widget module still parses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import * as esbuild from "esbuild";
import { compactSheets } from "../../tools/minify.mjs";

test("compactSheets: whitespace around { } ; , and after a declaration's colon goes", () => {
  const src = "const S = sheet(`\n.a  b {  color: red;\n  margin: 0 1px ; }\n.c, .d > e { x: 1 }\n`);";
  assert.equal(compactSheets(src), "const S = sheet(`.a b{color:red;margin:0 1px;}.c,.d > e{x:1}`);");
});

test("compactSheets: a selector's colon, CSS strings and ${...} are kept", () => {
  const src = 'sheet(`a :hover { content: "▸ "; }\n:host(:not([t="l"])) { ${vars({ a: 1 })} c: d; }\n${[1].map((k) => `.m-${k} { fill: x; }`).join("\\n")}\n`)';
  assert.equal(compactSheets(src),
    'sheet(`a :hover{content:"▸ ";}:host(:not([t="l"])){${vars({ a: 1 })} c:d;}${[1].map((k) => `.m-${k} { fill: x; }`).join("\\n")}`)');
});

test("compactSheets: code outside sheet(`...`) is untouched; an unclosed literal is an error", () => {
  const src = "const t = `a { b: c; }`;\nfoo(`x :  y`);";
  assert.equal(compactSheets(src), src);
  assert.throws(() => compactSheets("sheet(`a { b: c; }"), /compactSheets: a sheet\(` with no closing backtick/);
});

test("every widget module still parses once its sheets are compacted, and shrinks", async () => {
  const dir = new URL("../../web/widgets/", import.meta.url);
  let saved = 0;
  for (const f of (await readdir(dir)).filter((n) => n.endsWith(".js"))) {
    const code = await readFile(new URL(f, dir), "utf8");
    const out = compactSheets(code);
    await esbuild.transform(out, { loader: "js", format: "esm" }); // throws on a syntax error
    saved += code.length - out.length;
  }
  assert.ok(saved > 1000, `saved ${saved} characters`);
});
