// layout.test.mjs - tools/layout.mjs, the one path map from the source tree (web/: lib/,
// widgets/ with runtime/ and viz/, site/, models/) to the package's layout (dist/), and its
// rewrite of the modules' relative specifiers: every source file is mapped and copied, every
// relative specifier of every module in dist/ and dist/site/ names a file that is there, the
// asset literals keep the form bundlers key on, the package's modules are shipped minified (each
// with a header naming its source, its exports unchanged), and the tool refuses (naming the file and
// the specifier) what it cannot map or rewrite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MAP, BUILT, distPath, sourceFiles, specifiers, rewrite } from "../../tools/layout.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WEB = path.join(ROOT, "web");
const DIST = path.join(ROOT, "dist");
const SITE = path.join(DIST, "site");
const TOOL = path.join(ROOT, "tools/layout.mjs");

function files(dir, skip = () => false) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (skip(p)) continue;
    if (e.isDirectory()) out.push(...files(p, skip));
    else out.push(p);
  }
  return out;
}

test("the map: the layers' folders go where the package has always had their files", () => {
  const cases = {
    "lib/simplexity.js": "simplexity.js", "lib/loader.js": "loader.js", "lib/simplexity.d.ts": "simplexity.d.ts",
    "widgets/widgets.js": "widgets.js", "widgets/widgets.d.ts": "widgets.d.ts", "widgets/standalone.d.ts": "standalone.d.ts",
    "widgets/sx-simplex.js": "widgets/sx-simplex.js", "widgets/base.js": "widgets/base.js",
    "widgets/runtime/checkpoints.js": "checkpoints.js", "widgets/runtime/train-worker.js": "train-worker.js",
    "widgets/viz/scale.js": "viz/scale.js", "models/date-alpha.sxm": "models/date-alpha.sxm",
  };
  for (const [src, dst] of Object.entries(cases)) {
    assert.equal(distPath(src), dst, src);
    assert.equal(distPath(src, { site: true }), dst, `${src} (site)`);
  }
  for (const src of ["site/app.js", "site/index.html", "models/summary.json"]) {
    assert.equal(distPath(src), null, `${src}: not in the package`);
    assert.ok(typeof distPath(src, { site: true }) === "string", `${src}: in the site`);
  }
  assert.equal(distPath("site/serve.mjs", { site: true }), null, "the server ships nowhere");
  assert.equal(distPath("stray.js"), undefined, "a file outside every entry is unmapped");
  assert.equal(BUILT.get("lib/simplexity-simd.wasm"), "simplexity-simd.wasm");
  assert.ok(MAP.every(([src]) => !src.startsWith("/") && !src.includes("..")));
});

test("every source file is mapped, no two to one place, and each mapped one is in dist/", () => {
  const all = sourceFiles(WEB);
  assert.ok(all.length > 60, `${all.length} files under web/`);
  for (const site of [false, true]) {
    const seen = new Map();
    for (const rel of all) {
      const to = distPath(rel, { site });
      assert.notEqual(to, undefined, `web/${rel} is in no entry of the map`);
      if (to === null || (site && rel.endsWith(".d.ts"))) continue;
      assert.ok(!seen.has(to), `web/${rel} and web/${seen.get(to)} both go to ${to}`);
      seen.set(to, rel);
      assert.ok(existsSync(path.join(site ? SITE : DIST, to)), `web/${rel} -> ${site ? "dist/site" : "dist"}/${to} is missing`);
    }
  }
  // the layers are folders of their own; nothing is left at the top of web/ but them
  assert.deepEqual(readdirSync(WEB).sort(), ["lib", "models", "site", "widgets"]);
});

test("every relative specifier of every module in dist/ and dist/site/ names a file there", () => {
  for (const root of [DIST, SITE]) {
    const mods = files(root, (p) => p === SITE && root === DIST)
      .filter((f) => /\.(js|d\.ts)$/.test(f) && path.basename(f) !== "simplexity-widgets.js");
    assert.ok(mods.length > 60, `${mods.length} modules in ${root}`);
    let n = 0;
    for (const f of mods) {
      const { found, problems } = specifiers(f, readFileSync(f, "utf8"));
      assert.deepEqual(problems, [], f);
      for (const s of found) {
        if (!s.value.startsWith("./") && !s.value.startsWith("../")) continue;
        n++;
        const target = path.resolve(path.dirname(f), s.value);
        assert.ok(target.startsWith(root + path.sep), `${path.relative(ROOT, f)}: "${s.value}" leaves ${path.relative(ROOT, root)}`);
        assert.ok(existsSync(target), `${path.relative(ROOT, f)}: "${s.value}" -> ${path.relative(ROOT, target)} is missing`);
      }
    }
    assert.ok(n > 100, `${n} relative specifiers checked in ${root}`);
  }
});

// The literal forms, whitespace aside (dist/'s modules are minified: `new URL("./x",import.meta.url)`;
// bundlers parse them, Vite's asset scan allows any whitespace).
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&").replace(/ /g, "\\s*");
const has = (text, form) => new RegExp(escape(form)).test(text);

test("the asset literals come out in the exact form bundlers and the README rely on", () => {
  const loader = readFileSync(path.join(DIST, "loader.js"), "utf8");
  for (const f of BUILT.values()) assert.ok(has(loader, `new URL("./${f}", import.meta.url)`), f);
  const checkpoints = readFileSync(path.join(DIST, "checkpoints.js"), "utf8");
  assert.ok(has(checkpoints, 'new URL("./models/date-alpha.sxm", import.meta.url)'));
  // every session names its worker by the literal, in its own module (workerSeam gets it as a function)
  for (const name of ["train", "explain", "bottleneck", "write-tune", "rationale"]) {
    const session = readFileSync(path.join(DIST, `${name}-session.js`), "utf8");
    assert.ok(has(session, `new Worker(new URL("./${name}-worker.js", import.meta.url), { type: "module" })`), `${name}-session.js`);
  }
  const widgets = readFileSync(path.join(DIST, "widgets.js"), "utf8");
  assert.ok(has(widgets, 'import("./widgets/sx-simplex.js")') && has(widgets, 'import("./widgets/base.js")') &&
    has(widgets, 'from "./widgets/where.js"'));
  // the source names the same files where they are in web/
  const src = readFileSync(path.join(WEB, "widgets/runtime/checkpoints.js"), "utf8");
  assert.match(src, /new URL\("\.\.\/\.\.\/models\/date-alpha\.sxm", import\.meta\.url\)/);
});

test("rewrite: comments and strings are left alone; what cannot be mapped or rewritten is refused by name", () => {
  const exists = (rel) => ["lib/a.js", "lib/b.js", "site/app.js", "widgets/viz/scale.js"].includes(rel);
  const ok = rewrite("widgets/sx-x.js", [
    '// import("./nowhere.js") in a comment',
    'import { a } from "../lib/a.js";',
    "export * from '../lib/b.js';",
    'import { linear } from "./viz/scale.js";',
    'const m = () => import("../lib/a.js");',
    'const s = "import(\\"./nowhere.js\\")";',
    'const u = new URL("../lib/simplexity.wasm", import.meta.url);',
    'import x from "simplexity";',
    "",
  ].join("\n"), { exists });
  assert.equal(ok.count, 5);
  assert.ok(ok.text.includes('from "../a.js"') && ok.text.includes("from '../b.js'") && ok.text.includes('from "../viz/scale.js"'));
  assert.ok(ok.text.includes('import("../a.js")') && ok.text.includes('new URL("../simplexity.wasm", import.meta.url)'));
  assert.ok(ok.text.includes('// import("./nowhere.js") in a comment') && ok.text.includes('from "simplexity"'));

  const bad = (text, re, rel = "lib/x.js") => assert.throws(() => rewrite(rel, text, { exists }), { message: re });
  bad('import "./nope.js";', /^web\/lib\/x\.js: import "\.\/nope\.js" -> web\/lib\/nope\.js: no such source file or build output$/);
  bad("const m = (n) => import(`./${n}.js`);", /^web\/lib\/x\.js: import\(\) of `\.\/\$\{n\}\.js`: only a string literal can be rewritten$/);
  bad("const u = new URL(name, import.meta.url);", /^web\/lib\/x\.js: new URL\(\.\.\., import\.meta\.url\) of name: only a string literal/);
  bad('import "../site/app.js";', /^web\/lib\/x\.js: import "\.\.\/site\/app\.js" -> web\/site\/app\.js: not shipped in this build$/);
  bad('export type { T } from "./nope.js";', /web\/lib\/x\.d\.ts: import "\.\/nope\.js"/, "lib/x.d.ts");
});

test("the tool fails loudly (exit 1, file and specifier named) and writes nothing", async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "layout-test-"));
  try {
    const run = (args) => new Promise((resolve) => execFile(process.execPath, [TOOL, ...args], (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr })));
    mkdirSync(path.join(tmp, "web/lib"), { recursive: true });
    writeFileSync(path.join(tmp, "web/lib/a.js"), 'export const a = 1;\n');
    writeFileSync(path.join(tmp, "web/lib/b.js"), 'import { a } from "./a.js";\nexport { a };\n');
    const good = await run(["--src", path.join(tmp, "web"), "--out", path.join(tmp, "dist")]);
    assert.equal(good.code, 0, good.stderr);
    assert.equal(readFileSync(path.join(tmp, "dist/b.js"), "utf8"), 'import { a } from "./a.js";\nexport { a };\n');

    writeFileSync(path.join(tmp, "web/lib/c.js"), 'import { z } from "./missing.js";\n');
    writeFileSync(path.join(tmp, "web/stray.js"), "\n");
    const r = await run(["--src", path.join(tmp, "web"), "--out", path.join(tmp, "dist2")]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /web\/lib\/c\.js: import "\.\/missing\.js" -> web\/lib\/missing\.js: no such source file/);
    assert.match(r.stderr, /web\/stray\.js: in no entry of tools\/layout\.mjs's map/);
    assert.ok(!existsSync(path.join(tmp, "dist2")), "nothing written");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("the package's modules are minified, each naming its source in web/, with the source's exports", async () => {
  const shipped = sourceFiles(WEB).filter((rel) => /\.m?js$/.test(rel) && typeof distPath(rel) === "string");
  assert.ok(shipped.length > 60, `${shipped.length} modules in the package`);
  let src = 0, out = 0;
  for (const rel of shipped) {
    const text = readFileSync(path.join(DIST, distPath(rel)), "utf8");
    const [head, ...body] = text.split("\n");
    assert.equal(head, `// Simplexity: minified from web/${rel} (the readable source is in the repository)`, distPath(rel));
    assert.ok(!/^\s*\/[/*]/m.test(body.join("\n")), `dist/${distPath(rel)}: no comment after its header`);
    src += readFileSync(path.join(WEB, rel)).length;
    out += text.length;
  }
  assert.ok(out < src * 0.7, `dist/'s modules are ${out} bytes, web/'s ${src}`);
  // the same exports as the source, by name (the package's "exports" map and .d.ts name them),
  // and each function's and class's .name the same (err.constructor.name, Model.name)
  const names = (m) => Object.entries(m).flatMap(([k, v]) => typeof v === "function" ? [[k, v.name]]
    : v && typeof v === "object" ? Object.entries(v).filter(([, f]) => typeof f === "function").map(([k2, f]) => [`${k}.${k2}`, f.name]) : [[k]]);
  for (const rel of ["lib/simplexity.js", "lib/mappings.js", "lib/loader.js", "lib/explain.js", "lib/arrays.js", "widgets/widgets.js", "widgets/base.js"]) {
    const a = names(await import(path.join(WEB, rel))).sort();
    const b = names(await import(path.join(DIST, distPath(rel)))).sort();
    assert.deepEqual(b, a, rel);
  }
});

test("--minify: a module comes out minified under its header, the same module otherwise", async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "layout-min-"));
  try {
    mkdirSync(path.join(tmp, "web/lib"), { recursive: true });
    writeFileSync(path.join(tmp, "package.json"), '{ "type": "module" }\n');
    writeFileSync(path.join(tmp, "web/lib/a.js"), "// a comment\nexport function twice(value) {\n  return value * 2;\n}\n");
    writeFileSync(path.join(tmp, "web/lib/a.d.ts"), "/** doubles */\nexport function twice(value: number): number;\n");
    writeFileSync(path.join(tmp, "web/lib/b.js"), 'import { twice } from "./a.js";\nexport const four = twice(2);\n');
    const r = await new Promise((resolve) => execFile(process.execPath, [TOOL, "--src", path.join(tmp, "web"), "--out", path.join(tmp, "dist"), "--minify"],
      (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr })));
    assert.equal(r.code, 0, r.stderr);
    const a = readFileSync(path.join(tmp, "dist/a.js"), "utf8");
    assert.match(a, /^\/\/ Simplexity: minified from web\/lib\/a\.js \(the readable source is in the repository\)\n[^\n]*\{return \w\*2\}[^\n]*\n$/);
    assert.ok(!a.includes("a comment") && !a.includes("value * 2"), a);
    assert.equal((await import(path.join(tmp, "dist/a.js"))).twice.name, "twice");
    assert.equal(readFileSync(path.join(tmp, "dist/a.d.ts"), "utf8"), "/** doubles */\nexport function twice(value: number): number;\n");
    const b = await import(path.join(tmp, "dist/b.js"));
    assert.equal(b.four, 4);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
