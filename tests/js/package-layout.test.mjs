// package-layout.test.mjs - what the npm package's layout promises, checked in Node on dist/:
// every widget module loads where there is no DOM (server-side renderers evaluate imports) and
// defines nothing there; the shipped checkpoints are named one by one beside checkpoints.js and
// are all in dist/models/; the package.json exports point at files that exist. The bundlers
// themselves are tested on the packed tarball by tests/package/ (make test-package).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { DIST } from "./helpers.mjs";

const ROOT = new URL("../../", import.meta.url);
const pkg = JSON.parse(await readFile(new URL("package.json", ROOT), "utf8"));
// Whether text holds the form, whitespace aside: dist/'s modules are minified
// (`new URL("./x",import.meta.url)`), and bundlers parse the literal, not its spacing.
const holds = (text, form) => new RegExp(form.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&").replace(/ /g, "\\s*")).test(text);

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
  for (const name of SHIPPED) assert.ok(holds(src, `new URL("./models/${name}.sxm", import.meta.url)`), name);
});

test("the loader names both builds with literal URLs and imports nothing from Node", async () => {
  const src = await readFile(new URL("loader.js", DIST), "utf8");
  assert.ok(holds(src, 'new URL("./simplexity-simd.wasm", import.meta.url)'));
  assert.ok(holds(src, 'new URL("./simplexity.wasm", import.meta.url)'));
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

test("the single-file build holds the SIMD build (deflated, base64), not the scalar one, and the workers' code", async () => {
  const { inflateRaw } = await import(new URL("tools/inflate.js", ROOT).href);
  const text = await readFile(new URL("simplexity-widgets.js", DIST), "utf8");
  const simd = await readFile(new URL("simplexity-simd.wasm", DIST));
  const scalar = await readFile(new URL("simplexity.wasm", DIST));
  // every long base64 string literal in the bundle, inflated
  const blobs = [...text.matchAll(/"([A-Za-z0-9+/]{4096,}={0,2})"/g)].map((m) => zlib.inflateRawSync(Buffer.from(m[1], "base64")));
  assert.equal(blobs.length, 2, "two deflated blobs: the SIMD wasm and the workers' code");
  assert.ok(blobs.some((b) => b.equals(simd)), "the SIMD build is inlined, deflated");
  assert.ok(!blobs.some((b) => b.equals(scalar)) && !text.includes(scalar.subarray(0, 3000).toString("base64")), "the scalar build is not inlined");
  const workers = blobs.filter((b) => !b.equals(simd)).map((b) => b.toString("utf8"));
  assert.ok(workers.every((w) => /onmessage|addEventListener\("message"/.test(w)), "the workers' code is in it");
  // the bundle's own inflate (tools/inflate.js) gives the same bytes as zlib
  const m = text.match(/"([A-Za-z0-9+/]{100000,}={0,2})"/);
  assert.ok(Buffer.from(inflateRaw(new Uint8Array(Buffer.from(m[1], "base64")), simd.length)).equals(simd));
  // "setTrainWorker" is in any bundle (the function's own error messages), so finding the name
  // could not fail: find the call instead, and run the code it passes
  const source = workerSource(text, "setTrainWorker");
  assert.match(source, /self\.onmessage\s*=/, "the source passed to setTrainWorker is a worker's code (self.onmessage)");
  assert.ok(!source.includes("customElements"), "the workers' code holds no widget");
  for (const setter of ["setExplainWorker", "setBottleneckWorker", "setTuneWorker", "setRationaleWorker"]) {
    assert.equal(workerSource(text, setter), source, `${setter} gets the same code (one for every worker, the URL's fragment picks)`);
  }
  const seen = await runTrainWorker(source, simd);
  assert.ok(seen.started && seen.step >= 1,
    `the bundled training worker starts and trains (messages: ${JSON.stringify(seen.log)})`);
  const lost = await runTrainWorker(source, simd, "#no-such-worker.js");
  assert.ok(lost.log.some((l) => l.includes('no worker named "no-such-worker.js"')) && !lost.started,
    `the workers' code refuses a fragment naming no worker (messages: ${JSON.stringify(lost.log)})`);
});

// The code the single-file bundle passes to a worker's setter ({ source, wasm }: tools/bundle.mjs),
// read from the minified bundle: the function is the `set` of the seam made with the setter's name
// (workerSeam in web/widgets/runtime/inline-worker.js), the call the one passing { source: X, ... } to it, X = unpack(CONSTANT, size), the constant a
// deflated, base64 string literal.
function workerSource(text, setter) {
  // the setter: { set: name, info, start } = workerSeam("<setter>", "<file>", () => new Worker(...)), minified
  const defs = [...text.matchAll(new RegExp(`\\{(?:[\\w$]+:[\\w$]+,)*set:([\\w$]+)(?:,[\\w$]+:[\\w$]+)*\\}=[\\w$]+\\("${setter}",`, "g"))];
  assert.equal(defs.length, 1, `the bundle holds ${setter} once (esbuild leaves it out when nothing calls it; found ${defs.length})`);
  const fn = defs[0][1];
  const esc = (x) => x.replace(/\$/g, "\\$");
  const calls = [...text.matchAll(new RegExp(`(?<![\\w$.])${esc(fn)}\\(\\{source:([\\w$]+)[,}]`, "g"))];
  assert.equal(calls.length, 1, `one call of ${setter} (minified ${fn}) with { source } in the bundle (found ${calls.length})`);
  const unpacked = new RegExp(`(?<![\\w$.])${esc(calls[0][1])}=[\\w$]+\\(([\\w$]+),(\\d+)\\)`).exec(text);
  assert.ok(unpacked, `the source passed to ${setter} (${calls[0][1]}) is unpacked from a constant`);
  const def = new RegExp(`(?<![\\w$.])${esc(unpacked[1])}="([A-Za-z0-9+/]+={0,2})"`).exec(text);
  assert.ok(def, `the source passed to ${setter} (${unpacked[1]}) is a base64 string constant`);
  const source = zlib.inflateRawSync(Buffer.from(def[1], "base64")).toString("utf8");
  assert.equal(Buffer.byteLength(source), Number(unpacked[2]), "the workers' code inflates to the size the call names");
  assert.ok(source.length > 10000, `the workers' code is a whole module (${source.length} characters)`);
  return source;
}

// Runs a training worker's code in a worker thread (self.postMessage / self.onmessage mapped to
// the thread's port), starts a short run on the given wasm bytes and resolves once it has posted
// a training step, an error, or after 60 s: { started, step, log }.
async function runTrainWorker(source, wasm, hash = "#train-worker.js") {
  const { Worker } = await import("node:worker_threads");
  const boot = `
    const { parentPort } = require("node:worker_threads");
    globalThis.self = globalThis;
    globalThis.location = { hash: ${JSON.stringify(hash)} };
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
