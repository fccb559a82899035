// The npm package as its users get it: `npm pack` the repository, install the tarball into small
// consumer apps (tests/package/apps/<name>/, copied to build/package/apps/<name>/ with the
// tarball extracted into their node_modules/simplexity/), build each with the real tool (the
// tools themselves resolve from the repository's node_modules, pinned devDependencies), serve the
// output on 127.0.0.1, open it in Chromium and check that init() works, the mappings give the
// right numbers, the widgets draw, one .wasm (the SIMD build) is fetched, and the page logs no
// error and asks for nothing outside its origin. Node runs the installed package as ESM, through
// require() and as a server-side renderer would. First of all, each code block of the README's
// toolchains section must be found, verbatim, in one of the apps' files, so the docs cannot rot.
// Builds run two at a time (two cores); the pages are checked one by one in one Chromium.
//   node tests/package/run.mjs [consumer...]   (make test-package, after `make all`; a consumer
//                                               argument keeps the consumers whose name starts so)
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { startServer } from "../../web/site/serve.mjs";
import { ROOT, launch, check, echoPasses, fail, summary, open, checkClean } from "../browser/harness.mjs";

const OUT = path.join(ROOT, "build/package");
const SRC = path.join(ROOT, "tests/package/apps");
const BIN = path.join(ROOT, "node_modules/.bin");
const DIST = path.join(ROOT, "dist");
const WASM = {
  simd: fs.readFileSync(path.join(DIST, "simplexity-simd.wasm")),
  scalar: fs.readFileSync(path.join(DIST, "simplexity.wasm")),
  "mappings-simd": fs.readFileSync(path.join(DIST, "simplexity-mappings-simd.wasm")),
  "mappings-scalar": fs.readFileSync(path.join(DIST, "simplexity-mappings.wasm")),
};
const EXPECTED = { sparsemax: [0.75, 0, 0.25], entmax: [0.671, 0.005, 0.324] };
// The package without dist/models/, unpacked: its size budget. On 2026-11-28 it held 2.00 MB:
//   the single-file build (dist/simplexity-widgets.js, minified, the SIMD core inlined)  647 KB
//   the four .wasm: the full core SIMD 259 KB and scalar 244 KB, the mappings core 53 + 61 KB  618 KB
//   the library's and the widgets' modules, minified, names kept (tools/layout.mjs --minify)  463 KB
//   README.md (npm always packs it) 158 KB, the .d.ts 108 KB, package.json and LICENSE 3 KB
// The limit is that and 5% for what comes next; raise it only for what the package must hold.
// Issue 27 item 6 asked for 1 MB. Minifying the modules took 346 KB off (2.34 -> 2.00 MB); the
// rest would take dropping both the single-file build and the scalar builds (to 1.05 MB) and
// then 50 KB more: a product decision, not a build one. The scalar builds stay: an engine with
// wasm but no wasm SIMD (iOS/Safari 15 to 16.3 above all) is 0.6% of global usage (caniuse-lite
// 1.0.30001827), a page fetches them only on such an engine, and init({ simd: false }) uses them.
// 2.1 MB until the five widgets and two model classes of December 2026 (sx-decode, sx-cues,
// sx-costs, sx-bottleneck, sx-write; RNN, TextModel) took it to 2.25 MB; 2.35 MB until
// sx-write's fine-tuning, sx-hard, sx-rationale and the Rationale class (its core in both full
// builds and the bundle, the bundle's fifth worker) took it to 2.38 MB.
const UNPACKED_LIMIT_WITHOUT_MODELS = 2.45e6;
const BUILD_TIMEOUT_MS = 150000, PAGE_TIMEOUT_MS = 20000;

echoPasses();
const t0 = performance.now();
const seconds = (t) => ((performance.now() - t) / 1000).toFixed(1);

// ------------------------------------------------------------------------ helpers
/** Runs a command; resolves to { code, out } (stdout and stderr together), never rejects. */
function run(cmd, args, { cwd, env, timeout = BUILD_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    const timer = setTimeout(() => { out += `\n(killed after ${timeout / 1000} s)`; child.kill("SIGKILL"); }, timeout);
    child.on("error", (err) => { clearTimeout(timer); resolve({ code: -1, out: out + String(err) }); });
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

const tail = (text, n = 12) => text.trim().split("\n").slice(-n).join("\n    ");
const close = (got, want, eps) => Array.isArray(got) && got.length === want.length && got.every((v, i) => Math.abs(v - want[i]) <= eps);

/** Every file under dir (relative paths), skipping node_modules and build output. */
function filesUnder(dir, rel = "") {
  const files = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) {
      if (!["node_modules", "dist", "cache"].includes(e.name)) files.push(...filesUnder(dir, r));
    } else files.push(r);
  }
  return files;
}

// ------------------------------------------------------------ the README's config blocks
// Each fenced block between <!-- toolchains:start --> and <!-- toolchains:end --> must be in an
// app's file: if its first line is a comment naming a file ("// vite.config.js", "# copy.sh"),
// the rest of the block must be in an app's file of that name; otherwise the whole block must be
// in some app's file (blockPattern: what may differ).
// Not run here, so exempt: the install line and the Eleventy config line.
const UNTESTED = [/^npm install /, /eleventyConfig\.addPassthroughCopy/];
const SECTIONS = ["Vite", "webpack", "Rollup", "esbuild", "Parcel", "VitePress", "<script type=\"module\">", "Node"];

// A README block as a pattern: its lines, in order, each with the same extra indentation (a
// JSON fragment inside a package.json); a line "..." or "// ..." stands for any lines.
function blockPattern(block) {
  let re = "^([ \\t]*)";
  block.split("\n").forEach((line, i, all) => {
    const last = i === all.length - 1;
    if (/^\s*(\/\/ )?\.\.\.$/.test(line)) re += "(?:[^\\n]*\\n)*?";
    else if (line.trim() === "") re += "[ \\t]*" + (last ? "$" : "\\n");
    else re += (i === 0 ? "" : "\\1") + line.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") + (last ? "$" : "\\n");
  });
  return new RegExp(re, "m");
}

function checkReadme() {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const a = readme.indexOf("<!-- toolchains:start -->"), b = readme.indexOf("<!-- toolchains:end -->");
  check(a >= 0 && b > a, "README: has the toolchains section markers");
  if (!(a >= 0 && b > a)) return;
  const section = readme.slice(a, b);
  const headings = [...section.matchAll(/^### (.*)$/gm)].map((m) => m[1]);
  for (const s of SECTIONS) {
    const h = headings.find((x) => x.includes(s));
    check(h, `README: a subsection for ${s} (${h ? `"### ${h}"` : `none in ${JSON.stringify(headings)}`})`);
  }
  const files = [];
  for (const app of fs.readdirSync(SRC)) {
    for (const rel of filesUnder(path.join(SRC, app))) files.push({ app, rel, text: fs.readFileSync(path.join(SRC, app, rel), "utf8") });
  }
  const blocks = [...section.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1].replace(/\n$/, ""));
  check(blocks.length >= 8, `README: the toolchains section shows its config (${blocks.length} code blocks)`);
  for (const block of blocks) {
    const first = block.split("\n")[0];
    const label = first.length > 60 ? `${first.slice(0, 60)}...` : first;
    if (UNTESTED.some((re) => re.test(block))) {
      console.log(`note - README block "${label}" is not run by this suite`);
      continue;
    }
    const named = first.match(/^(?:\/\/|#|<!--)\s*([\w.-]+(?:\/[\w.-]+)*\.(?:js|mjs|cjs|json|md|html|sh))\s*(?:-->)?$/);
    const pattern = blockPattern(named ? block.split("\n").slice(1).join("\n") : block);
    const where = files.filter((f) => (!named || f.rel === named[1] || f.rel.endsWith(`/${named[1]}`)) && pattern.test(f.text));
    check(where.length > 0, `README block "${label}" is verbatim in ${where.length ? where.map((f) => `${f.app}/${f.rel}`).join(", ") : `no file of tests/package/apps/${named ? ` named ${named[1]}` : ""}`}`);
  }
}

// ---------------------------------------------------------------------- the tarball
async function pack() {
  fs.mkdirSync(OUT, { recursive: true });
  for (const f of fs.readdirSync(OUT)) if (f.endsWith(".tgz")) fs.rmSync(path.join(OUT, f));
  const r = await run("npm", ["pack", "--json", "--pack-destination", OUT], { cwd: ROOT, timeout: 60000 });
  let info;
  try {
    info = JSON.parse(r.out.slice(r.out.indexOf("[")))[0];
  } catch {
    throw new Error(`npm pack failed (exit ${r.code}):\n    ${tail(r.out)}`);
  }
  const names = info.files.map((f) => f.path);
  const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
  console.log(`tarball: ${info.filename}: ${mb(info.size)} packed, ${mb(info.unpackedSize)} unpacked, ${info.entryCount} files`);
  // the same without the models (dist/models/*.sxm): what the rest of the package weighs
  const isModel = (p) => p.startsWith("dist/models/");
  const shipped = info.files.filter((f) => isModel(f.path));
  const unpacked = info.unpackedSize - shipped.reduce((a, f) => a + f.size, 0);
  const sizes = packedSizes(path.join(OUT, info.filename), (p) => isModel(p.replace(/^package\//, "")));
  console.log(`tarball without its ${shipped.length} models: ${mb(sizes.without)} packed, ${mb(unpacked)} unpacked, ${info.entryCount - shipped.length} files`);
  const biggest = info.files.filter((f) => !isModel(f.path)).sort((a, b) => b.size - a.size).slice(0, 5);
  console.log(`tarball: its biggest files but the models: ${biggest.map((f) => `${f.path} ${(f.size / 1e3).toFixed(0)} KB`).join(", ")}`);
  console.log(`tarball without its models, by part: ${partsOf(info.files.filter((f) => !isModel(f.path)))}`);
  // the measure of "packed" is npm's: its tar stream gzipped again at level 9 gives its size
  check(Math.abs(sizes.all - info.size) <= info.size * 0.01,
    `tarball: the packed sizes are measured as npm packs (the whole stream re-gzipped: ${mb(sizes.all)}; npm: ${mb(info.size)})`);
  check(unpacked <= UNPACKED_LIMIT_WITHOUT_MODELS,
    `tarball: without its models, ${mb(unpacked)} unpacked, within its budget of ${mb(UNPACKED_LIMIT_WITHOUT_MODELS)}`);
  // the README's figures, to 0.1 MB: each within 0.06 MB of today's (a size on a rounding
  // boundary, 2.25 MB, may be written 2.2 or 2.3 without either flipping the check), files exact
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const said = readme.match(/\(([\d.]+) MB packed,\s+([\d.]+) MB unpacked,\s+(\d+) files/);
  const now = [(info.size / 1e6).toFixed(1), (info.unpackedSize / 1e6).toFixed(1), String(info.entryCount)];
  const near = said && Math.abs(Number(said[1]) - info.size / 1e6) <= 0.06 &&
    Math.abs(Number(said[2]) - info.unpackedSize / 1e6) <= 0.06 && Number(said[3]) === info.entryCount;
  check(near,
    `README: the tarball's figures are today's (it says ${said ? said.slice(1).join(", ") : "none"}; now ${now.join(", ")}: MB packed, MB unpacked, files)`);
  for (const f of ["LICENSE", "package.json", "dist/simplexity.js", "dist/simplexity-simd.wasm", "dist/simplexity.wasm", "dist/simplexity-mappings-simd.wasm", "dist/simplexity-mappings.wasm", "dist/blocks.js", "dist/model.js", "dist/widgets.js", "dist/simplexity-widgets.js"]) {
    check(names.includes(f), `tarball: holds ${f}`);
  }
  const models = fs.readdirSync(path.join(ROOT, "web/models")).filter((f) => f.endsWith(".sxm")).map((f) => `dist/models/${f}`);
  const missing = models.filter((m) => !names.includes(m));
  check(models.length === 28 && missing.length === 0, `tarball: holds the ${models.length} models dist/models/*.sxm (missing ${JSON.stringify(missing)})`);
  // the recurrent models (<sx-bottleneck>, <sx-hard>) with the measured figures (<sx-hard>), and the
  // character models with their summary (<sx-write>)
  const others = [
    ...fs.readdirSync(path.join(ROOT, "web/models")).filter((f) => f.endsWith(".sxrn") || f === "rnn-variance.json").map((f) => `dist/models/${f}`),
    ...fs.readdirSync(path.join(ROOT, "web/models/text")).filter((f) => /\.sxm$|^summary\.json$/.test(f)).map((f) => `dist/models/text/${f}`)];
  const absent = others.filter((m) => !names.includes(m));
  check(others.length === 10 && absent.length === 0, `tarball: holds the recurrent and character models (${others.length}; missing ${JSON.stringify(absent)})`);
  const site = names.filter((n) => n.startsWith("dist/site/"));
  check(site.length === 0, `tarball: nothing from dist/site/ (got ${site.length} files)`);
  // every target of package.json's "exports" is in the tarball (a pattern: at least one file)
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const targets = new Set();
  const walk = (v) => { if (typeof v === "string") targets.add(v); else if (v && typeof v === "object") Object.values(v).forEach(walk); };
  walk(pkg.exports);
  const unmatched = [...targets].filter((t) => {
    const re = new RegExp(`^${t.replace(/^\.\//, "").replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]+")}$`);
    return !names.some((n) => re.test(n));
  });
  check(unmatched.length === 0, `tarball: every "exports" target is in it (${targets.size} targets; missing ${JSON.stringify(unmatched)})`);
  return path.join(OUT, info.filename);
}

// What the package holds but its models, in the parts its size budget lists (the first that matches).
const PARTS = [
  ["the single-file build", (p) => p === "dist/simplexity-widgets.js"],
  ["the scalar .wasm", (p) => p === "dist/simplexity.wasm" || p === "dist/simplexity-mappings.wasm"],
  ["the SIMD .wasm", (p) => p.endsWith(".wasm")],
  ["the modules", (p) => p.endsWith(".js")],
  ["the .d.ts", (p) => p.endsWith(".d.ts")],
  ["README.md", (p) => p === "README.md"],
  ["the rest", () => true],
];
const partsOf = (files) => PARTS.map(([name, is]) => {
  const mine = files.filter((f) => PARTS.find(([, t]) => t(f.path))[1] === is);
  return `${name} ${(mine.reduce((a, f) => a + f.size, 0) / 1e3).toFixed(0)} KB (${mine.length})`;
}).join(", ");

/** The tarball's size, and its size without the entries `drop(name)` names, as npm packs it:
 *  its tar stream (512-byte headers, each entry's data padded to 512 bytes; a pax header goes
 *  with the entry it precedes) with those entries removed, gzipped at level 9. */
function packedSizes(tgz, drop) {
  const tar = zlib.gunzipSync(fs.readFileSync(tgz));
  const str = (b) => b.toString("latin1").replace(/\0[\s\S]*$/, "");
  const kept = [];
  let pax = null;
  for (let at = 0; at + 512 <= tar.length;) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) { kept.push(tar.subarray(at)); break; } // the end of the archive
    const size = parseInt(str(h.subarray(124, 136)).trim() || "0", 8);
    const entry = tar.subarray(at, at + 512 + Math.ceil(size / 512) * 512);
    at += entry.length;
    if (h[156] === 0x78 || h[156] === 0x67) { pax = entry; continue; } // 'x' / 'g': a pax header
    const prefix = str(h.subarray(345, 500)), name = (prefix ? `${prefix}/` : "") + str(h.subarray(0, 100));
    if (!drop(name)) kept.push(...(pax ? [pax] : []), entry);
    pax = null;
  }
  const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
  return { all: gz(tar), without: gz(Buffer.concat(kept)) };
}

// ------------------------------------------------------------------------ the apps
/** A fresh copy of the app's sources in build/package/apps/<app>/, the tarball in its node_modules. */
async function install(app, tarball) {
  const dir = path.join(OUT, "apps", app);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(SRC, app), dir, { recursive: true });
  const target = path.join(dir, "node_modules/simplexity");
  fs.mkdirSync(target, { recursive: true });
  // -m: files get the time of extraction (npm pack stamps them all 1985), so caches see the change
  const r = await run("tar", ["-xzmf", tarball, "--strip-components=1", "-C", target]);
  if (r.code !== 0) throw new Error(`tar failed for ${app}: ${r.out}`);
  return dir;
}

const copyPublic = (dir, to) => fs.cpSync(path.join(dir, "public"), path.join(dir, to), { recursive: true });

// Warnings that a tool prints about the package (not its usual progress lines).
const warningsIn = (out) => out.split("\n").filter((l) => /warn|⚠|^\s*\(!\)|\bdeprecat|externali[sz]ed|could not|critical dependency/i.test(l));

// Each consumer: build(dir) -> { ok, out } and where its page is; `widgets`: the page holds
// <sx-simplex> (and <sx-attention> when attention).
const CONSUMERS = [
  {
    name: "vite build", app: "vite", root: "dist",
    build: (dir) => run(path.join(BIN, "vite"), ["build", "--logLevel", "warn"], { cwd: dir }),
  },
  {
    name: "vite build (widgets)", app: "vite-widgets", root: "dist", widgets: true, attention: true,
    build: (dir) => run(path.join(BIN, "vite"), ["build", "--logLevel", "warn"], { cwd: dir }),
  },
  {
    name: "vite dev server (no config)", app: "vite", dev: "vite",
  },
  {
    name: "vite dev server (widgets, optimizeDeps.exclude)", app: "vite-widgets", dev: "vite", widgets: true, attention: true,
  },
  {
    name: "webpack", app: "webpack", root: "dist", widgets: true, attention: true,
    build: async (dir) => {
      const { default: webpack } = await import("webpack");
      const { default: config } = await import(pathToFileURL(path.join(dir, "webpack.config.js")).href);
      const stats = await new Promise((resolve, reject) => webpack(config, (err, s) => (err ? reject(err) : resolve(s))));
      const json = stats.toJson({ all: false, errors: true, warnings: true });
      const text = (list) => list.map((e) => `${e.moduleName ? `${e.moduleName}: ` : ""}${e.message}`).join("\n");
      if (!stats.hasErrors()) copyPublic(dir, "dist");
      return { code: stats.hasErrors() ? 1 : 0, out: text(json.errors), warnings: json.warnings.map((w) => text([w])) };
    },
  },
  {
    name: "rollup", app: "rollup", root: "dist", widgets: true, attention: true,
    build: async (dir) => {
      const r = await run(path.join(BIN, "rollup"), ["-c"], { cwd: dir });
      if (r.code === 0) copyPublic(dir, "dist");
      return r;
    },
  },
  {
    name: "esbuild", app: "esbuild", root: "dist", widgets: true, attention: true,
    build: async (dir) => {
      const r = await run(process.execPath, ["build.js"], { cwd: dir });
      if (r.code === 0) copyPublic(dir, "dist");
      return r;
    },
  },
  {
    name: "parcel (default config: main/module)", app: "parcel", root: "dist",
    build: (dir) => run(path.join(BIN, "parcel"), ["build", "index.html", "--no-autoinstall", "--log-level", "warn",
      "--cache-dir", path.join(OUT, "cache/parcel"), "--dist-dir", "dist"], { cwd: dir }),
  },
  {
    name: "parcel (packageExports, widgets)", app: "parcel-widgets", root: "dist", widgets: true, attention: true,
    build: (dir) => run(path.join(BIN, "parcel"), ["build", "index.html", "--no-autoinstall", "--log-level", "warn",
      "--cache-dir", path.join(OUT, "cache/parcel-widgets"), "--dist-dir", "dist"], { cwd: dir }),
  },
  {
    name: "vitepress", app: "vitepress", root: ".vitepress/dist", widgets: true, api: false, hydration: true,
    build: (dir) => run(path.join(BIN, "vitepress"), ["build", ".", "--logLevel", "warn"], { cwd: dir }),
  },
  {
    name: "plain <script type=module>", app: "plain", root: "public", widgets: true, attention: true,
    build: (dir) => run("sh", ["copy.sh"], { cwd: dir }),
  },
  {
    name: "vitepress dev server", app: "vitepress", dev: "vitepress", widgets: true, api: false,
  },
];

// ---------------------------------------------------------------------- the browser
/** Which build a .wasm URL serves: "simd", "scalar" (the full core), "mappings-simd",
 *  "mappings-scalar", or what else it is. */
async function whichWasm(url) {
  try {
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
    return Object.keys(WASM).find((k) => bytes.equals(WASM[k])) ?? `unknown (${bytes.length} bytes)`;
  } catch (err) {
    return `unreadable (${err.message})`;
  }
}

async function checkPage(browser, c, url, origin) {
  const p = `${c.name}: `;
  const failed = [], responses = [], hydration = [];
  const { page, log } = await open(browser, url, origin, {
    local: ["blob:", "data:"],
    before: (pg) => {
      pg.on("requestfailed", (r) => failed.push(`${r.url()} (${r.failure()?.errorText})`));
      pg.on("response", (r) => {
        responses.push({ url: r.url(), status: r.status() });
        if (r.status() >= 400) failed.push(`${r.url()} (HTTP ${r.status()})`);
      });
      pg.on("console", (m) => { if (/hydrat/i.test(m.text())) hydration.push(`${m.type()}: ${m.text()}`); });
    },
  });
  try {
    if (c.api !== false) {
      let result;
      try {
        await page.waitForFunction(() => document.getElementById("out")?.textContent, null, { timeout: PAGE_TIMEOUT_MS });
        result = JSON.parse(await page.textContent("#out"));
      } catch (err) {
        result = { error: `the page wrote no result in ${PAGE_TIMEOUT_MS / 1000} s (${err.message.split("\n")[0]})` };
      }
      check(!result.error, `${p}init() resolves${result.error ? ` (got ${result.error})` : ""}`);
      check(result.simd === true, `${p}info().simd === true (got ${result.simd})`);
      check(close(result.sparsemax, EXPECTED.sparsemax, 1e-6), `${p}sparsemax([1.5, 0, 1]) = [0.75, 0, 0.25] (got ${JSON.stringify(result.sparsemax)})`);
      check(close(result.entmax, EXPECTED.entmax, 1e-3), `${p}entmax([1.5, 0, 1], { alpha: 1.5 }) ~ [0.671, 0.005, 0.324] (got ${JSON.stringify(result.entmax?.map((v) => +v.toFixed(4)))})`);
    }
    if (c.widgets) {
      const drawn = await page.waitForFunction(() => {
        const e = document.querySelector("sx-simplex");
        return e && e.shadowRoot && e.lastRenderMs > 0 && e.shadowRoot.querySelectorAll("svg path, svg circle").length;
      }, null, { timeout: PAGE_TIMEOUT_MS }).then((h) => h.jsonValue(), () => 0);
      check(drawn > 0, `${p}<sx-simplex> draws (${drawn} SVG paths and circles in its shadow root)`);
    }
    if (c.attention) {
      await page.$eval("sx-attention", (e) => e.scrollIntoView());
      const panels = await page.waitForFunction(() => document.querySelector("sx-attention").shadowRoot?.querySelectorAll("svg.maps .panel").length,
        null, { timeout: PAGE_TIMEOUT_MS }).then((h) => h.jsonValue(), () => 0);
      const models = responses.filter((r) => new URL(r.url).pathname.endsWith(".sxm"));
      check(models.length === 1 && models[0].status === 200,
        `${p}<sx-attention> fetched its model (${JSON.stringify(models.map((r) => `${new URL(r.url).pathname} ${r.status}`))})`);
      check(panels > 0, `${p}<sx-attention> draws its heatmaps (${panels} panels)`);
    }
    await page.waitForLoadState("networkidle").catch(() => {});
    const wasm = responses.filter((r) => new URL(r.url).pathname.endsWith(".wasm"));
    const kinds = await Promise.all(wasm.map((r) => whichWasm(r.url)));
    // the API's init() and <sx-attention> need the full core; <sx-simplex> alone, the mappings core
    const want = c.api === false && !c.attention ? "mappings-simd" : "simd";
    check(wasm.length === 1 && kinds[0] === want,
      `${p}exactly one .wasm request, the ${want} build (got ${JSON.stringify(wasm.map((r, i) => `${new URL(r.url).pathname}: ${kinds[i]}`))})`);
    check(failed.length === 0, `${p}no failed request (got ${JSON.stringify(failed)})`);
    if (c.hydration) check(hydration.length === 0, `${p}no Vue hydration message (got ${JSON.stringify(hydration)})`);
    await checkClean(page, log, p);
  } finally {
    await page.close();
  }
}

async function checkBuilt(browser, c, dir) {
  const server = await startServer({ root: path.join(dir, c.root) });
  try {
    await checkPage(browser, c, server.url, server.url);
  } finally {
    await server.close();
  }
}

// A dev server through its JS API: Vite's createServer with the app's vite.config.js (if any),
// VitePress's createServer with the app's .vitepress/config.mjs. Its warnings and errors count.
async function checkDevServer(browser, c, dir) {
  const t = performance.now();
  const messages = [];
  const customLogger = {
    info() {}, clearScreen() {}, hasErrorLogged: () => false, hasWarned: false,
    warn: (m) => messages.push(`warn: ${m}`), warnOnce: (m) => messages.push(`warn: ${m}`), error: (m) => messages.push(`error: ${m}`),
  };
  const server = { host: "127.0.0.1", port: 0, hmr: false };
  let dev;
  if (c.dev === "vite") {
    const { createServer } = await import("vite");
    const config = path.join(dir, "vite.config.js");
    dev = await createServer({ root: dir, configFile: fs.existsSync(config) ? config : false, customLogger, clearScreen: false, server });
  } else {
    const { createServer } = await import("vitepress");
    // (VitePress's own options take no logger: its Vite's warnings go to the console, unchecked)
    dev = await createServer(dir, { ...server, port: 5173 });
  }
  try {
    await dev.listen();
    const url = dev.resolvedUrls.local[0];
    await checkPage(browser, c, url, url);
    console.log(`${c.name}: served and checked in Chromium in ${seconds(t)} s`);
    if (c.dev === "vite") check(messages.length === 0, `${c.name}: Vite logs no warning or error (got ${JSON.stringify(messages)})`);
  } finally {
    await dev.close();
  }
}

// --------------------------------------------------------------------------- Node
async function checkNode(tarball) {
  const dir = await install("node", tarball);
  const want = (r) => {
    try {
      const j = JSON.parse(r.out.trim().split("\n").pop());
      return j.simd === true && close(j.sparsemax, EXPECTED.sparsemax, 1e-6) && close(j.entmax, EXPECTED.entmax, 1e-3);
    } catch {
      return false;
    }
  };
  const [esm, cjs, ssr] = await Promise.all([
    run(process.execPath, ["esm.mjs"], { cwd: dir, timeout: 30000 }),
    run(process.execPath, ["cjs.cjs"], { cwd: dir, timeout: 30000 }),
    run(process.execPath, ["ssr.mjs"], { cwd: dir, timeout: 30000 }),
  ]);
  check(esm.code === 0 && want(esm), `node: import { init, sparsemax } from "simplexity" prints the right numbers (exit ${esm.code}: ${tail(esm.out, 4)})`);
  check(cjs.code === 0 && want(cjs), `node: require("simplexity") prints the right numbers (exit ${cjs.code}: ${tail(cjs.out, 4)})`);
  let s = {};
  try { s = JSON.parse(ssr.out.trim().split("\n").pop()); } catch {}
  const widgetFiles = fs.readdirSync(path.join(DIST, "widgets")).filter((f) => /^sx-[a-z-]+\.js$/.test(f)).length;
  check(ssr.code === 0 && s.modules === widgetFiles && s.tags?.length === widgetFiles && s.customElements === "undefined",
    `node: import("simplexity/widgets") and each "simplexity/widgets/sx-*" evaluate without a DOM (exit ${ssr.code}: ${tail(ssr.out, 4)})`);
  for (const [what, r] of [["esm", esm], ["cjs", cjs], ["ssr", ssr]]) {
    const warn = r.out.split("\n").filter((l) => /warning/i.test(l));
    check(warn.length === 0, `node (${what}): no warning on stderr (got ${JSON.stringify(warn)})`);
  }
}

// --------------------------------------------------------------------------- main
/** Runs async jobs, at most `width` at a time, in order of the list. */
async function pool(items, width, job) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i], i);
    }
  }));
  return results;
}

async function main() {
  const only = process.argv.slice(2);
  const wanted = (name) => only.length === 0 || only.some((o) => name.startsWith(o));
  checkReadme();
  // Parcel's cache has kept a stale module graph across tarballs whose files changed (a build
  // that fails, or a page that cannot resolve a chunk): every run starts without one
  fs.rmSync(path.join(OUT, "cache"), { recursive: true, force: true });
  const tarball = await pack();
  if (wanted("node")) await checkNode(tarball);
  const consumers = CONSUMERS.filter((c) => wanted(c.name));
  // install and build, two at a time (this machine has two cores); the dev server reuses its app
  const dirs = new Map();
  const built = await pool(consumers, 2, async (c) => {
    if (c.dev) return { ok: true };
    const t = performance.now();
    const dir = await install(c.app, tarball);
    dirs.set(c.app, dir);
    let r;
    try {
      r = await c.build(dir);
    } catch (err) {
      r = { code: 1, out: err.stack || String(err) };
    }
    const ok = r.code === 0;
    console.log(`${c.name}: built in ${seconds(t)} s`);
    check(ok, `${c.name}: the build succeeds${ok ? "" : ` (exit ${r.code}):\n    ${tail(r.out)}`}`);
    const warnings = r.warnings ?? warningsIn(r.out);
    check(warnings.length === 0, `${c.name}: the build prints no warning${warnings.length ? `:\n    ${warnings.slice(0, 8).join("\n    ")}` : ""}`);
    return { ok };
  });
  const browser = await launch();
  try {
    for (const [i, c] of consumers.entries()) {
      if (!built[i].ok) continue;
      const t = performance.now();
      try {
        if (c.dev) {
          const dir = dirs.get(c.app) ?? await install(c.app, tarball);
          await checkDevServer(browser, c, dir);
        } else {
          await checkBuilt(browser, c, dirs.get(c.app));
          console.log(`${c.name}: checked in Chromium in ${seconds(t)} s`);
        }
      } catch (err) {
        check(false, `${c.name}: ${err.stack || err}`);
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`package: ${seconds(t0)} s in all`);
}

try {
  await main();
} catch (err) {
  fail(err);
}
summary("package");
