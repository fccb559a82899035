// package-layout.test.mjs - what the npm package's layout promises, checked in Node on dist/:
// every widget module loads where there is no DOM (server-side renderers evaluate imports) and
// defines nothing there; the shipped checkpoints are named one by one beside checkpoints.js and
// are all in dist/models/; the package.json exports point at files that exist. The bundlers
// themselves are tested on the packed tarball by tests/package/ (make test-package).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DIST } from "./helpers.mjs";

const ROOT = new URL("../../", import.meta.url);
const pkg = JSON.parse(await readFile(new URL("package.json", ROOT), "utf8"));

test("the widgets entry and every widget module load in Node (no DOM) and define nothing", async () => {
  assert.equal(typeof globalThis.HTMLElement, "undefined");
  const widgets = await import(new URL("widgets.js", DIST).href);
  const files = (await readdir(new URL("widgets/", DIST))).filter((f) => /^sx-[a-z-]+\.js$/.test(f));
  assert.deepEqual([...widgets.TAGS].sort(), files.map((f) => f.slice(0, -3)).sort(), "one tag per widgets/sx-*.js");
  for (const tag of widgets.TAGS) {
    const mod = await import(new URL(`widgets/${tag}.js`, DIST).href);
    assert.ok(mod, tag);
  }
  assert.equal(typeof globalThis.customElements, "undefined", "nothing was defined on a global");
});

test("checkpointUrl: one literal URL per shipped model, beside checkpoints.js, each file in dist/models/", async () => {
  const { SHIPPED, checkpointUrl } = await import(new URL("checkpoints.js", DIST).href);
  const files = (await readdir(new URL("models/", DIST))).filter((f) => f.endsWith(".sxm")).sort();
  assert.deepEqual([...SHIPPED].map((s) => `${s}.sxm`).sort(), files, "the table names exactly the shipped files");
  for (const name of SHIPPED) {
    const [task, ...kind] = name.split("-");
    const url = checkpointUrl(task, kind.join("-"));
    assert.equal(url.href, new URL(`models/${name}.sxm`, DIST).href);
    assert.ok((await stat(url)).size > 1000, `${name}.sxm is there`);
  }
  assert.equal(checkpointUrl("date", "alpha", "https://example.org/m").href, "https://example.org/m/date-alpha.sxm");
  assert.throws(() => checkpointUrl("date", "nothing"), { name: "RangeError", message: /^checkpointUrl: no shipped model "date-nothing"/ });
  // the bundler-visible form: a literal string per file, not a computed one
  const src = await readFile(new URL("checkpoints.js", DIST), "utf8");
  for (const name of SHIPPED) assert.ok(src.includes(`new URL("./models/${name}.sxm", import.meta.url)`), name);
});

test("the loader names both builds with literal URLs and imports nothing from Node", async () => {
  const src = await readFile(new URL("loader.js", DIST), "utf8");
  assert.ok(src.includes('new URL("./simplexity-simd.wasm", import.meta.url)'));
  assert.ok(src.includes('new URL("./simplexity.wasm", import.meta.url)'));
  for (const file of ["loader.js", "simplexity.js", "model.js", "widgets.js", "train-session.js", "train-worker.js"]) {
    const text = await readFile(new URL(file, DIST), "utf8");
    assert.doesNotMatch(text, /(from|import\()\s*["']node:/, `${file} imports a node: module`);
  }
});

test("package.json: every export and main/module/types point at a file make builds; engines says what works", async () => {
  const targets = [];
  const walk = (v) => { if (typeof v === "string") targets.push(v); else for (const x of Object.values(v)) walk(x); };
  walk(pkg.exports);
  targets.push(pkg.main, pkg.module, pkg.types);
  for (const t of targets) {
    const probe = t.includes("*") ? t.replace("sx-*", "sx-simplex").replace("models/*", "models/date-alpha.sxm") : t;
    assert.ok((await stat(fileURLToPath(new URL(probe, ROOT)))).isFile(), `${t} -> ${probe} exists`);
  }
  assert.equal(pkg.exports["."].default, "./dist/simplexity.js");
  assert.equal(pkg.exports["./widgets"].default, "./dist/widgets.js");
  assert.match(pkg.engines.node, /^>=20\.19/);
  assert.equal(pkg.license, "MIT");
  assert.ok((await stat(new URL("LICENSE", ROOT))).isFile());
  assert.ok(!pkg.files.some((f) => f.includes("site")), "the demo site is not in the package");
});

test("the single-file build holds both wasm builds (base64) and the training worker", async () => {
  const text = await readFile(new URL("simplexity-widgets.js", DIST), "utf8");
  const b64 = async (f) => (await readFile(new URL(f, DIST))).toString("base64");
  assert.ok(text.includes(await b64("simplexity-simd.wasm")), "the SIMD build is inlined");
  assert.ok(text.includes(await b64("simplexity.wasm")), "the scalar build is inlined");
  // "setTrainWorker" is in any bundle (the function's own error messages), so the old check here
  // could not fail: find the call instead and run what it passes
  const source = trainWorkerSource(text);
  assert.match(source, /self\.onmessage\s*=/, "the source passed to setTrainWorker is a worker's code (self.onmessage)");
  assert.ok(!source.includes("customElements"), "the training worker's code holds no widget");
  const seen = await runTrainWorker(source, await readFile(new URL("simplexity-simd.wasm", DIST)));
  assert.ok(seen.started && seen.step >= 1,
    `the bundled training worker starts and trains (messages: ${JSON.stringify(seen.log)})`);
});

// The string the single-file bundle passes to setTrainWorker({ source, wasm }) (tools/bundle.mjs),
// read from the minified bundle: the function is the one whose error messages name
// setTrainWorker, the call the one passing { source, wasm } to it, the source a string literal
// (or a constant holding one).
function trainWorkerSource(text) {
  const at = text.indexOf("setTrainWorker: source must be");
  assert.ok(at > 0, "the bundle calls setTrainWorker (esbuild leaves the function, and its error messages, out when nothing calls it)");
  const decls = [...text.slice(0, at).matchAll(/function ([\w$]+)\(/g)];
  const fn = decls[decls.length - 1][1];
  const esc = (x) => x.replace(/\$/g, "\\$");
  const calls = [...text.matchAll(new RegExp(`(?<![\\w$.])${esc(fn)}\\(\\{source:([\\w$]+|["'\`])`, "g"))];
  assert.equal(calls.length, 1, `one call of setTrainWorker (minified ${fn}) with { source, ... } in the bundle (found ${calls.length})`);
  let start;
  if (/["'`]/.test(calls[0][1])) start = calls[0].index + calls[0][0].length - 1;
  else {
    const def = new RegExp(`(?<![\\w$.])${esc(calls[0][1])}=(["'\`])`).exec(text);
    assert.ok(def, `the source passed to setTrainWorker (${calls[0][1]}) is a string constant`);
    start = def.index + def[0].length - 1;
  }
  // the literal's extent: up to its closing quote, escapes skipped
  const q = text[start];
  let end = start + 1;
  while (text[end] !== q) end += text[end] === "\\" ? 2 : 1;
  const source = new Function(`return ${text.slice(start, end + 1)};`)();
  assert.ok(source.length > 10000, `the training worker's code is a whole module (${source.length} characters)`);
  return source;
}

// Runs a training worker's code in a worker thread (self.postMessage / self.onmessage mapped to
// the thread's port), starts a short run on the given wasm bytes and resolves once it has posted
// a training step, an error, or after 60 s: { started, step, log }.
async function runTrainWorker(source, wasm) {
  const { Worker } = await import("node:worker_threads");
  const boot = `
    const { parentPort } = require("node:worker_threads");
    globalThis.self = globalThis;
    globalThis.postMessage = (m, t) => parentPort.postMessage(m, t);
    parentPort.on("message", (data) => globalThis.onmessage && globalThis.onmessage({ data }));
    import("data:text/javascript;base64," + ${JSON.stringify(Buffer.from(source).toString("base64"))})
      .then(() => parentPort.postMessage({ type: "loaded" }), (e) => parentPort.postMessage({ type: "error", message: String(e) }));`;
  const w = new Worker(boot, { eval: true });
  const seen = { started: false, step: 0, log: [] };
  try {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 60000);
      const stop = () => { clearTimeout(timer); resolve(); };
      w.on("error", (e) => { seen.log.push(`thread error: ${e.message}`); stop(); });
      w.on("message", (m) => {
        seen.log.push(m.type === "progress" ? `progress ${m.step}` : m.type === "error" ? `error: ${m.message}` : m.type);
        if (m.type === "loaded") {
          w.postMessage({ type: "start", task: "date", kind: "softmax", text: "", wasm,
            options: { maxSteps: 3, evalEvery: 1, heldout: 4, confirm: 4 } });
        } else if (m.type === "started") seen.started = true;
        else if (m.type === "progress") seen.step = Math.max(seen.step, m.step);
        if (m.type === "error" || seen.step >= 1) stop();
      });
    });
  } finally {
    await w.terminate();
  }
  return seen;
}
