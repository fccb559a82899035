// single-file.mjs - the single-file widget build (dist/site/simplexity-widgets.js) on a host
// that cannot serve .wasm files: a folder holding only a page and the bundle, served with every
// .wasm request answered 404. The widgets must render from the inlined (deflated) SIMD bytes,
// under a strict CSP, with zero console errors and no request but the page and the bundle.
//
// The bundle inlines the SIMD build only (issue 27). On an engine without SIMD (forced here as
// the other tests force it: the feature probe's module fails to validate):
//   - on that host (no .wasm beside the bundle), no widget stays blank: each one says that this
//     engine has no WebAssembly SIMD and names the scalar file it needs, and the only console
//     errors are the browser's own lines for the refused .wasm requests;
//   - on a host that serves the scalar builds beside the bundle (what dist/ holds), the widgets
//     render from them: info().simd is false, the .wasm fetched is the scalar full core alone.
//
// <sx-attention> from the bundle, with models/ beside it (the one thing still fetched): it shows
// a shipped model and trains a few steps
//   (a) under a CSP that allows blob: workers (worker-src 'self' blob:): in a module worker
//       started from the bundle's Blob URL, handed the page's wasm bytes (no .wasm request, no
//       train-worker.js request), zero console errors;
//   (b) under the strict CSP (no worker-src: script-src 'self' applies, blob: is refused): on the
//       main thread in short slices, which the status line says; progress advances and the page
//       draws between the slices (frames between progress events, counted). Chromium necessarily logs the refusal of the blob: worker as one
//       console error ("Creating a worker from 'blob:...' violates the following Content Security
//       Policy directive ... The action has been blocked.") and fires one securitypolicyviolation
//       (worker-src blob): the test requires exactly that one message, once: a second run goes
//       to the main thread at once, without asking again.
//
// <sx-explain> from the bundle, under a CSP that allows blob: workers: it explains a shipped
// model and runs its experiments (10 examples x 3 models) in a module worker started from the
// bundle's Blob URL, handed the page's wasm bytes: no .wasm and no explain-worker.js request.
// <sx-bottleneck> likewise trains its three recurrent models in a worker from that Blob URL,
// <sx-rationale> its four rationalizers, and <sx-write> fine-tunes its character model in one.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import { SITE, launch, check, echoPasses, fail, summary, open, trainWatchingFrames } from "./harness.mjs";

const BUNDLE = path.join(SITE, "simplexity-widgets.js");
echoPasses();

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'">
<title>single-file widgets</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-simplex id="s" scores="1.5 0 1" mappings="softmax sparsemax"></sx-simplex>
<sx-two-choice id="t" alpha="1.5"></sx-two-choice>
<sx-fused id="f" lambda="0.2"></sx-fused>
<sx-threshold id="h" mapping="entmax15" n="12"></sx-threshold>
<sx-regularized id="r" mapping="sparsemax" scores="1 1 0"></sx-regularized>
<sx-positions id="pe" dim="8" positions="16"></sx-positions>
<sx-scores id="sc" scoring="dot" mapping="sparsemax"></sx-scores>
<sx-patterns id="pt" n="32" pattern="fixed" block="8" summary="2"></sx-patterns>
</body></html>`;

const ATTENTION = (csp) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>single-file sx-attention</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-attention id="a" task="reverse" kind="softmax" input="abcdefgh"></sx-attention>
</body></html>`;
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
// What Chromium logs when the strict CSP refuses the blob: worker (and nothing else may be logged).
const CSP_REFUSAL = /^Creating a worker from 'blob:http:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+(#[\w.-]+)?' violates the following Content Security Policy directive: "script-src 'self' 'wasm-unsafe-eval'"\. Note that 'worker-src' was not explicitly set, so 'script-src' is used as a fallback\. The action has been blocked\.$/;
const TYPES = { ".js": "text/javascript", ".html": "text/html; charset=utf-8", ".json": "application/json" };

// A static host that refuses .wasm (the situation the bundle is for).
function serve(dir) {
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname);
    seen.push(rel);
    if (rel.endsWith(".wasm") && !server.wasm) { res.writeHead(404).end("no wasm here"); return; }
    if (rel === "/favicon.ico") { res.writeHead(204).end(); return; } // the browser's own request
    try {
      const file = rel === "/" ? "/index.html" : rel;
      const body = await fs.readFile(path.join(dir, file));
      const type = TYPES[path.extname(file)] || "application/octet-stream"; // .wasm too: the loader copes
      res.writeHead(200, { "content-type": type }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  server.wasm = false; // true: .wasm files are served like any other (with a generic type)
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`, seen, close: () => new Promise((r) => server.close(r)),
    set wasm(on) { server.wasm = on; } })));
}

// An engine without SIMD on the host that refuses .wasm: every widget says what is missing.
async function runNoSimdNoWasm(browser, server) {
  const tag = "no SIMD, no .wasm beside the bundle";
  const before = (page) => page.addInitScript(() => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (b) => (b.byteLength < 64 ? false : validate(b));
  });
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url, server.url, { viewport: { width: 1280, height: 720 }, local: [], before });
  const ids = ["s", "t", "f", "h", "r", "pe", "sc", "pt"];
  await page.waitForFunction((ids) => ids.every((id) => {
    const m = document.getElementById(id)?.shadowRoot?.querySelector("p.msg");
    return m && !m.hidden && m.textContent.length > 0;
  }), ids, { timeout: 15000 });
  const msgs = await page.evaluate((ids) => ids.map((id) => document.getElementById(id).shadowRoot.querySelector("p.msg").textContent), ids);
  const wanted = /^sx-[a-z-]+: could not load the WebAssembly core: simplexity: failed to fetch http:\/\/127\.0\.0\.1:\d+\/vendor\/simplexity\.wasm: HTTP 404 .*this engine has no WebAssembly SIMD \(Safari and iOS before 16\.4.*so it needs the scalar build simplexity\.wasm: put simplexity\.wasm and simplexity-mappings\.wasm beside simplexity\.js, or beside simplexity-widgets\.js \(the single-file build inlines only the SIMD build\)/;
  const bad = msgs.filter((m) => !wanted.test(m));
  check(bad.length === 0, `${tag}: each of the ${ids.length} widgets says the engine lacks SIMD and names the scalar file (got ${JSON.stringify(bad.length ? bad : msgs[0])})`);
  const wasmReqs = server.seen.filter((r) => r.endsWith(".wasm"));
  check(wasmReqs.length > 0 && wasmReqs.every((r) => r === "/vendor/simplexity.wasm"), `${tag}: the only .wasm asked for is the scalar full core beside the bundle (got ${JSON.stringify(wasmReqs)})`);
  const refused = errors.filter((e) => /^Failed to load resource: the server responded with a status of 404/.test(e));
  check(errors.length === refused.length && refused.length === wasmReqs.length,
    `${tag}: the only console errors are the browser's lines for the ${wasmReqs.length} refused .wasm requests (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  await page.close();
}

async function run(browser, server, { noSimd }) {
  // an engine without wasm SIMD: the probe module fails to validate
  const before = (page) => noSimd && page.addInitScript(() => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (b) => (b.byteLength < 64 ? false : validate(b));
  });
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url, server.url, { viewport: { width: 1280, height: 720 }, local: [], before });
  const tag = noSimd ? "scalar (no SIMD, the scalar builds beside the bundle)" : "SIMD";
  await page.waitForFunction(() => document.querySelector("#s")?.shadowRoot?.querySelectorAll("tbody tr").length === 2,
    null, { timeout: 15000 });
  const rows = await page.$$eval("#s tbody tr", (rs) => rs.map((r) => Array.from(r.cells, (c) => c.textContent)));
  const sp = rows.find((r) => r[0] === "sparsemax");
  check(sp && sp[1] === "0.7500" && sp[2] === "0" && sp[3] === "0.2500", `${tag}: sparsemax([1.5, 0, 1]) from the ${noSimd ? "fetched scalar" : "inlined"} wasm (got ${sp})`);
  check(await page.$$eval("#t path.curve", (p) => p.length) >= 1, `${tag}: the two-choice widget draws its curves`);
  check(/fusedmax: \d+ of 10 non-zero/.test(await page.$eval("#f .readout", (e) => e.textContent)), `${tag}: the fused widget reports its runs`);
  await page.waitForFunction(() => document.querySelector("#h")?.shadowRoot?.querySelector("line.tau"), null, { timeout: 15000 });
  check(/^1\.5-entmax: τ = -?\d\.\d{4}, line at z = .*support \d+ of 12/.test(await page.$eval("#h .readout", (e) => e.textContent)), `${tag}: the threshold widget draws its line and reports the support`);
  await page.waitForFunction(() => document.querySelector("#r")?.lastRenderMs > 0, null, { timeout: 15000 });
  const reg = await page.$eval("#r", (e) => ({ p: e.p, edge: e.shadowRoot.querySelector(".opt-edge")?.dataset.face }));
  check(reg.p.join() === "0.5,0.5,0" && reg.edge === "0 1", `${tag}: the regularized widget draws the tie's edge and sparsemax's p (got ${JSON.stringify(reg)})`);
  await page.waitForFunction(() => document.querySelector("#pe")?.matrix !== null && document.querySelector("#pe")?.lastRenderMs > 0, null, { timeout: 15000 });
  const pe = await page.$eval("#pe", (e) => ({ m: Array.from(e.matrix), cells: [...e.shadowRoot.querySelectorAll("g.cells path")].reduce((n, p) => n + [...p.getAttribute("d").matchAll(/h([\d.]+)v/g)].reduce((m, x) => m + Number(x[1]), 0), 0) / Number(e.shadowRoot.querySelector("g.cells").dataset.cell) }));
  check(pe.cells === 16 * 8 && Math.abs(pe.m[8 + 0] - Math.sin(1)) < 1e-6 && pe.m[1] === 1, `${tag}: the positions widget draws its 16 x 8 matrix (got ${pe.cells} cells, PE(1)[0] = ${pe.m[8]})`);
  await page.waitForFunction(() => document.querySelector("#sc")?.lastRenderMs > 0 && document.querySelector("#sc").weights, null, { timeout: 15000 });
  const sc = await page.$eval("#sc", (e) => ({ sum: Array.from(e.weights).reduce((a, v) => a + v, 0), n: e.shadowRoot.querySelectorAll("td[data-value]").length }));
  check(sc.n === 4 && Math.abs(sc.sum - 1) < 1e-5, `${tag}: the scores widget draws 4 keys' weights summing to 1 (got ${JSON.stringify(sc)})`);
  await page.waitForFunction(() => document.querySelector("#pt")?.result, null, { timeout: 15000 });
  const pt = await page.$eval("#pt", (e) => ({ pairs: e.result.pairs, n: e.result.n, cells: (e.shadowRoot.querySelector("svg[data-panel='pattern'] path.full")?.getAttribute("d").match(/M/g) || []).length }));
  // fixed, block 8, 2 summary, n = 32: each query sees its block (8 keys) and the 2 summary keys of each of the 3 other blocks
  check(pt.n === 32 && pt.pairs === 32 * (8 + 3 * 2) && pt.cells === pt.pairs, `${tag}: the patterns widget draws the fixed pattern's 448 pairs (got ${JSON.stringify(pt)})`);
  const simd = await page.evaluate(async () => (await import("./vendor/simplexity-widgets.js")).info().simd);
  check(simd === !noSimd, `${tag}: the bundle runs the ${noSimd ? "scalar" : "SIMD"} build (info().simd = ${simd})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const wasmReqs = server.seen.filter((s) => s.endsWith(".wasm"));
  if (noSimd) check(JSON.stringify(wasmReqs) === JSON.stringify(["/vendor/simplexity.wasm"]), `${tag}: one .wasm request, the scalar full core beside the bundle (got ${JSON.stringify(wasmReqs)})`);
  else check(wasmReqs.length === 0, `${tag}: no .wasm request (got ${JSON.stringify(wasmReqs)})`);
  await page.close();
}

const status = (page) => page.$eval("#a", (e) => e.shadowRoot.querySelector(".tstatus").textContent);
const progress = (page) => page.$eval("#a", (e) => Number(e.shadowRoot.querySelector("progress").value));

async function runAttention(browser, server, { blob }) {
  const tag = blob ? "sx-attention, worker-src blob:" : "sx-attention, strict CSP";
  server.seen.length = 0;
  const file = blob ? "attention-blob.html" : "attention-strict.html";
  const { page, log: { errors, foreign } } = await open(browser, server.url + file, server.url, { viewport: { width: 1000, height: 900 } });

  // a shipped model, fetched from models/ beside the bundle
  await page.waitForFunction(() => document.getElementById("a")?.shadowRoot?.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 20000 });
  const io = await page.$eval("#a", (e) => e.shadowRoot.querySelector(".io").textContent);
  check(io.includes("hgfedcba") && io.includes("✓"), `${tag}: the shipped reverse-softmax model answers (got "${io}")`);

  // a few training steps
  await page.$eval("#a", (e) => { e.trainOptions = { maxSteps: 100, evalEvery: 50, heldout: 64 }; });
  const watched = trainWatchingFrames(page, "a");
  await page.waitForFunction(() => document.getElementById("a").trainingThread !== null, null, { timeout: 20000 });
  await page.waitForFunction(() => Number(document.getElementById("a").shadowRoot.querySelector("progress").value) > 0, null, { timeout: 60000 });
  const thread = await page.$eval("#a", (e) => e.trainingThread);
  const workers = page.workers().map((w) => w.url());
  const p1 = await progress(page), s1 = await status(page);
  if (blob) {
    check(thread === "worker" && workers.length === 1 && workers[0].startsWith("blob:"), `${tag}: trains in a module worker from a Blob URL (thread ${thread}, workers ${JSON.stringify(workers)})`);
    check(!s1.includes("main thread"), `${tag}: the status line shows no fallback (got "${s1}")`);
  } else {
    check(thread === "main" && workers.length === 0, `${tag}: no worker, the main thread trains (thread ${thread}, workers ${JSON.stringify(workers)})`);
    check(s1.includes("on the page's main thread, in short slices") && s1.includes("worker-src blob:"), `${tag}: the status line says so (got "${s1}")`);
    await page.waitForFunction((p) => Number(document.getElementById("a").shadowRoot.querySelector("progress").value) > p, p1, { timeout: 60000 });
    check(await progress(page) > p1, `${tag}: progress advances on the main thread (${p1} -> ${await progress(page)})`);
  }
  const w = await watched;
  const { test } = w.detail;
  check(w.detail.step === 100 && w.detail.stopped === false, `${tag}: 100 steps trained, not stopped (${JSON.stringify(w.detail)})`);
  // "+ tests": the final model scored on the 2000 test examples, an accuracy (null, NaN or a
  // count would pass the old `test >= 0`)
  check(typeof test === "number" && test >= 0 && test <= 1, `${tag}: the test accuracy is a number in [0, 1] (got ${JSON.stringify(test)})`);
  // Never frozen: the page drew between the slices of training (progress events, one per slice).
  // Counted, not timed: a page blocked while it trains draws between none of them (the queued
  // events come back to back), so at least 5 of them must come after a frame since the one
  // before; on the main thread, where each slice yields to the page (a slow machine stretches
  // the slices and the frames alike), at least a third. (A worker's slices do not wait for the
  // page: on a loaded machine several come between two frames, so no share is asked there.)
  const share = thread === "main" ? w.progress / 3 : 0;
  check(w.framed >= 5 && w.framed >= share, `${tag}: the page drew between the slices of training (${w.framed} of ${w.progress} progress events came after a frame, ${thread} thread; ${w.frames} frames)`);
  const after = await page.$eval("#a", (e) => ({ source: e.shadowRoot.querySelector(".source").textContent, status: e.shadowRoot.querySelector(".tstatus").textContent, thread: e.trainingThread }));
  check(after.source.includes("trained in this tab") && after.thread === null, `${tag}: the trained model is shown, the run is over (${JSON.stringify(after)})`);
  check(blob ? !after.status.includes("main thread") : after.status.includes("Trained on the page's main thread"), `${tag}: the final status says where it trained (got "${after.status}")`);
  const shown = typeof test === "number" ? `${(100 * test).toFixed(1)}% of 2000 other held-out examples exactly right` : "(no test accuracy)";
  check(after.status.includes(shown), `${tag}: the final status shows that test accuracy, "${shown}" (got "${after.status}")`);
  console.log(`single-file: ${tag}: 100 steps + tests in ${(w.ms / 1000).toFixed(1)} s wall (${thread}), ${w.frames} frames, ${w.framed} of ${w.progress} slices after a frame, longest gap ${w.worst.toFixed(0)} ms`);

  if (!blob) {
    // a second run: straight to the main thread, no second refusal
    await page.$eval("#a", (e) => { e.trainOptions = { maxSteps: 5, evalEvery: 5, heldout: 32 }; });
    const again = await trainWatchingFrames(page, "a");
    check(again.detail.step === 5 && page.workers().length === 0, `${tag}: a second run trains on the main thread too (${JSON.stringify(again.detail)})`);
  }
  const csp = await page.evaluate(() => window.__csp);
  if (blob) {
    check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
    check(csp.length === 0, `${tag}: zero CSP violations (got ${JSON.stringify(csp)})`);
  } else {
    check(errors.length === 1 && CSP_REFUSAL.test(errors[0]), `${tag}: the one console error is Chromium's refusal of the blob: worker (got ${JSON.stringify(errors)})`);
    check(csp.length === 1 && csp[0] === "worker-src blob", `${tag}: one CSP violation, the blob: worker (got ${JSON.stringify(csp)})`);
  }
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const want = [`/${file}`, "/vendor/simplexity-widgets.js", "/vendor/models/reverse-softmax.sxm"];
  const seen = server.seen.filter((r) => r !== "/favicon.ico"); // the browser's own
  check(JSON.stringify(seen) === JSON.stringify(want), `${tag}: requests: the page, the bundle, the model (no .wasm, no worker file; got ${JSON.stringify(seen)})`);
  await page.close();
}

const EXPLAIN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${STRICT}; worker-src 'self' blob:">
<title>single-file sx-explain</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-explain id="x" task="reverse" kind="entmax15" text="abcdefgh" examples="10"></sx-explain>
</body></html>`;

async function runExplain(browser, server) {
  const tag = "sx-explain, worker-src blob:";
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url + "explain.html", server.url, { viewport: { width: 1000, height: 900 } });
  await page.waitForFunction(() => document.getElementById("x")?.shadowRoot?.querySelectorAll("svg.bars .bar").length > 0, null, { timeout: 20000 });
  await page.locator("#x button.run").click();
  await page.waitForFunction(() => document.getElementById("x").experimentsRanIn !== null, null, { timeout: 20000 });
  // the module workers the page constructed (harness.mjs records them: a run of 10 examples can
  // end, and its worker with it, before Playwright reports it); "worker" read after the run says
  // it never fell back to the main thread
  const workers = await page.evaluate(() => window.__workers.filter((w) => w.type === "module").map((w) => w.url));
  await page.waitForFunction(() => document.getElementById("x").experiments !== null, null, { timeout: 90000 });
  const r = await page.$eval("#x", (e) => ({ ran: e.experimentsRanIn, kinds: Object.keys(e.experiments.summaries), lines: e.shadowRoot.querySelectorAll("svg.curves path.line").length }));
  check(r.ran === "worker" && workers.length === 1 && workers[0].startsWith("blob:"), `${tag}: the experiments run in a module worker from a Blob URL (${JSON.stringify(r)}, workers ${JSON.stringify(workers)})`);
  check(r.kinds.join() === "softmax,entmax15,alpha" && r.lines === 6, `${tag}: three summaries, six curves (${JSON.stringify(r)})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const seen = server.seen.filter((x) => x !== "/favicon.ico");
  const want = ["/explain.html", "/vendor/simplexity-widgets.js", "/vendor/models/reverse-entmax15.sxm", "/vendor/models/reverse-softmax.sxm", "/vendor/models/reverse-alpha.sxm"];
  check(JSON.stringify([...seen].sort()) === JSON.stringify([...want].sort()), `${tag}: requests: the page, the bundle, the models (no .wasm, no worker file; got ${JSON.stringify(seen)})`);
  await page.close();
}

const BOTTLENECK = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${STRICT}; worker-src 'self' blob:">
<title>single-file sx-bottleneck</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-bottleneck id="b" steps="100"></sx-bottleneck>
</body></html>`;

// <sx-bottleneck> from the bundle, under a CSP that allows blob: workers: its three recurrent
// models train in a module worker started from the bundle's workers' code (the URL's fragment
// names bottleneck-worker.js), handed the page's wasm bytes: no .wasm and no worker file requested.
async function runBottleneck(browser, server) {
  const tag = "sx-bottleneck, worker-src blob:";
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url + "bottleneck.html", server.url, { viewport: { width: 1000, height: 900 } });
  await page.waitForFunction(() => typeof document.getElementById("b")?.train === "function", null, { timeout: 20000 });
  await page.$eval("#b", (e) => e.train());
  await page.waitForFunction(() => document.getElementById("b").training?.state === "error" || document.getElementById("b").training?.step >= 20, null, { timeout: 120000 });
  const r = await page.$eval("#b", (e) => ({ state: e.training.state, step: e.training.step, thread: e.training.thread }));
  await page.$eval("#b", (e) => e.stop());
  const workers = await page.evaluate(() => window.__workers.filter((w) => w.type === "module").map((w) => w.url));
  check(r.thread === "worker" && r.step >= 20 && r.state === "training", `${tag}: the three models train in a worker (${JSON.stringify(r)})`);
  check(workers.length === 1 && /^blob:.*#bottleneck-worker\.js$/.test(workers[0]), `${tag}: a module worker from the bundle's Blob URL, its fragment naming the worker (${JSON.stringify(workers)})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const seen = server.seen.filter((x) => x !== "/favicon.ico");
  check(JSON.stringify(seen) === JSON.stringify(["/bottleneck.html", "/vendor/simplexity-widgets.js"]), `${tag}: requests: the page and the bundle (no .wasm, no worker file; got ${JSON.stringify(seen)})`);
  await page.close();
}

const WRITE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${STRICT}; worker-src 'self' blob:">
<title>single-file sx-write</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-write id="w" model="softmax"></sx-write>
</body></html>`;

// <sx-write>'s fine-tuning from the bundle, under a CSP that allows blob: workers: it trains in a
// module worker from the bundle's workers' code (the fragment names write-tune-worker.js), handed
// the page's wasm bytes: the only requests are the page, the bundle and the character model.
async function runWriteTune(browser, server) {
  const tag = "sx-write fine-tuning, worker-src blob:";
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url + "write.html", server.url, { viewport: { width: 1000, height: 900 } });
  await page.waitForFunction(() => document.getElementById("w")?.result?.probs?.length > 0, null, { timeout: 30000 });
  const text = "THE DEVIL, n. The author of all our woes and proprietor of all the good things of this world. ".repeat(8);
  await page.$eval("#w", (e, t) => { e.shadowRoot.querySelector("textarea").value = t; }, text);
  const started = await page.$eval("#w", (e) => e.tune());
  await page.waitForFunction(() => document.getElementById("w").tuning?.state === "error" || document.getElementById("w").tuning?.step >= 3, null, { timeout: 120000 });
  const r = await page.$eval("#w", (e) => ({ state: e.tuning.state, step: e.tuning.step, thread: e.tuning.thread }));
  const workers = await page.evaluate(() => window.__workers.filter((w) => w.type === "module").map((w) => w.url));
  check(started === true && r.thread === "worker" && r.state !== "error" && r.step >= 3, `${tag}: it trains in a worker (${JSON.stringify(r)})`);
  check(workers.length === 1 && /^blob:.*#write-tune-worker\.js$/.test(workers[0]), `${tag}: a module worker from the bundle's Blob URL, its fragment naming the worker (${JSON.stringify(workers)})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const seen = server.seen.filter((x) => x !== "/favicon.ico").sort();
  const want = ["/vendor/models/text/devil-softmax.sxm", "/vendor/models/text/summary.json", "/vendor/simplexity-widgets.js", "/write.html"];
  check(JSON.stringify(seen) === JSON.stringify(want), `${tag}: requests: the page, the bundle, the model and its summary (no .wasm, no worker file; got ${JSON.stringify(seen)})`);
  await page.close();
}

const RATIONALE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${STRICT}; worker-src 'self' blob:">
<title>single-file sx-rationale</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-rationale id="r" steps="60"></sx-rationale>
</body></html>`;

// <sx-rationale> from the bundle, under a CSP that allows blob: workers: its four rationalizers
// train to the end in a module worker started from the bundle's workers' code (the fragment names
// rationale-worker.js), handed the page's wasm bytes: no .wasm and no worker file requested.
async function runRationale(browser, server) {
  const tag = "sx-rationale, worker-src blob:";
  server.seen.length = 0;
  const { page, log: { errors, foreign } } = await open(browser, server.url + "rationale.html", server.url, { viewport: { width: 1000, height: 900 } });
  await page.waitForFunction(() => typeof document.getElementById("r")?.train === "function", null, { timeout: 20000 });
  await page.$eval("#r", (e) => e.train());
  await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("r").training?.state), null, { timeout: 120000 });
  const r = await page.$eval("#r", (e) => ({ state: e.training.state, step: e.training.step, thread: e.training.thread, figures: e.training.snapshot?.figures.length }));
  const workers = await page.evaluate(() => window.__workers.filter((w) => w.type === "module").map((w) => w.url));
  check(r.thread === "worker" && r.step === 60 && r.state === "done" && r.figures === 4, `${tag}: the four models train to the end in a worker (${JSON.stringify(r)})`);
  check(workers.length === 1 && /^blob:.*#rationale-worker\.js$/.test(workers[0]), `${tag}: a module worker from the bundle's Blob URL, its fragment naming the worker (${JSON.stringify(workers)})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const seen = server.seen.filter((x) => x !== "/favicon.ico");
  check(JSON.stringify(seen) === JSON.stringify(["/rationale.html", "/vendor/simplexity-widgets.js"]), `${tag}: requests: the page and the bundle (no .wasm, no worker file; got ${JSON.stringify(seen)})`);
  await page.close();
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sx-single-"));
  await fs.mkdir(path.join(dir, "vendor"));
  await fs.copyFile(BUNDLE, path.join(dir, "vendor/simplexity-widgets.js"));
  // the scalar builds, as dist/ has them beside the bundle (served only when server.wasm is on)
  for (const f of ["simplexity.wasm", "simplexity-mappings.wasm"]) await fs.copyFile(path.join(path.dirname(BUNDLE), f), path.join(dir, "vendor", f));
  await fs.cp(path.join(path.dirname(BUNDLE), "models"), path.join(dir, "vendor/models"), { recursive: true });
  await fs.writeFile(path.join(dir, "index.html"), PAGE);
  await fs.writeFile(path.join(dir, "attention-blob.html"), ATTENTION(`${STRICT}; worker-src 'self' blob:`));
  await fs.writeFile(path.join(dir, "attention-strict.html"), ATTENTION(STRICT));
  await fs.writeFile(path.join(dir, "explain.html"), EXPLAIN);
  await fs.writeFile(path.join(dir, "bottleneck.html"), BOTTLENECK);
  await fs.writeFile(path.join(dir, "write.html"), WRITE);
  await fs.writeFile(path.join(dir, "rationale.html"), RATIONALE);
  const server = await serve(dir);
  const browser = await launch();
  try {
    await run(browser, server, { noSimd: false });
    await runNoSimdNoWasm(browser, server);
    server.wasm = true;
    await run(browser, server, { noSimd: true });
    server.wasm = false;
    await runAttention(browser, server, { blob: true });
    await runAttention(browser, server, { blob: false });
    await runExplain(browser, server);
    await runBottleneck(browser, server);
    await runWriteTune(browser, server);
    await runRationale(browser, server);
  } finally {
    await browser.close();
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main().catch(fail);
summary("single-file");
