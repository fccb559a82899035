// single-file.mjs - the single-file widget build (dist/site/simplexity-widgets.js) on a host
// that cannot serve .wasm files: a folder holding only a page and the bundle, served with every
// .wasm request answered 404. The widgets must render from the inlined bytes (the SIMD ones in
// Chromium, the scalar ones when the page forbids SIMD by the feature probe's answer), under a
// strict CSP, with zero console errors and no request but the page and the bundle.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import http from "node:http";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLE = path.join(ROOT, "dist/site/simplexity-widgets.js");
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let passed = 0, failed = 0;
function check(cond, what) {
  if (cond) { passed++; console.log(`ok - ${what}`); }
  else { failed++; console.error(`FAIL: ${what}`); }
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'">
<title>single-file widgets</title>
<script type="module" src="vendor/simplexity-widgets.js"></script>
</head><body>
<sx-simplex id="s" scores="1.5 0 1" mappings="softmax sparsemax"></sx-simplex>
<sx-two-choice id="t" alpha="1.5"></sx-two-choice>
<sx-fused id="f" lambda="0.2"></sx-fused>
</body></html>`;

// A static host that refuses .wasm (the situation the bundle is for).
function serve(dir) {
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname);
    seen.push(rel);
    if (rel.endsWith(".wasm")) { res.writeHead(404).end("no wasm here"); return; }
    if (rel === "/favicon.ico") { res.writeHead(204).end(); return; } // the browser's own request
    try {
      const body = await fs.readFile(path.join(dir, rel === "/" ? "index.html" : rel));
      const type = rel.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8";
      res.writeHead(200, { "content-type": type }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`, seen, close: () => new Promise((r) => server.close(r)) })));
}

async function run(browser, server, { noSimd }) {
  const page = await browser.newPage();
  const errors = [], foreign = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(server.url)) foreign.push(r.url()); });
  if (noSimd) {
    // an engine without wasm SIMD: the probe module fails to validate
    await page.addInitScript(() => {
      const validate = WebAssembly.validate;
      WebAssembly.validate = (b) => (b.byteLength < 64 ? false : validate(b));
    });
  }
  server.seen.length = 0;
  await page.goto(server.url);
  const tag = noSimd ? "scalar" : "SIMD";
  await page.waitForFunction(() => document.querySelector("#s")?.shadowRoot?.querySelectorAll("tbody tr").length === 2,
    null, { timeout: 15000 });
  const rows = await page.$$eval("#s tbody tr", (rs) => rs.map((r) => Array.from(r.cells, (c) => c.textContent)));
  const sp = rows.find((r) => r[0] === "sparsemax");
  check(sp && sp[1] === "0.7500" && sp[2] === "0" && sp[3] === "0.2500", `${tag}: sparsemax([1.5, 0, 1]) from the inlined wasm (got ${sp})`);
  check(await page.$$eval("#t path.curve", (p) => p.length) >= 1, `${tag}: the two-choice widget draws its curves`);
  check(/fusedmax: \d+ of 10 non-zero/.test(await page.$eval("#f .readout", (e) => e.textContent)), `${tag}: the fused widget reports its runs`);
  const simd = await page.evaluate(async () => (await import("./vendor/simplexity-widgets.js")).info().simd);
  check(simd === !noSimd, `${tag}: the bundle runs the ${tag} bytes (info().simd = ${simd})`);
  check(errors.length === 0, `${tag}: zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `${tag}: no request outside the origin (got ${JSON.stringify(foreign)})`);
  const wasmReqs = server.seen.filter((s) => s.endsWith(".wasm"));
  check(wasmReqs.length === 0, `${tag}: no .wasm request (got ${JSON.stringify(wasmReqs)})`);
  await page.close();
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sx-single-"));
  await fs.mkdir(path.join(dir, "vendor"));
  await fs.copyFile(BUNDLE, path.join(dir, "vendor/simplexity-widgets.js"));
  await fs.writeFile(path.join(dir, "index.html"), PAGE);
  const server = await serve(dir);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  try {
    await run(browser, server, { noSimd: false });
    await run(browser, server, { noSimd: true });
  } finally {
    await browser.close();
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
  console.log(`single-file: ${passed} passed, ${failed} failed`);
  if (failed) process.exit(1);
}

main().catch((err) => { console.error(err); process.exit(1); });
