// run.mjs - the loader in real Chromium (make test-browser). Serves the repository from
// 127.0.0.1 on a random port, opens tests/browser/loader.html (which imports /dist/simplexity.js
// as a page would) in Debian's /usr/bin/chromium through playwright-core, and checks the page's
// results, the console (no errors), the network (nothing outside 127.0.0.1) and the server log
// (the wrong-MIME .wasm really was served as application/octet-stream). Prints
// "N passed, N failed" and exits non-zero on any failure; always closes browser and server.
import http from "node:http";
import { readFile } from "node:fs/promises";
import { extname, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./harness.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MIME = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8", ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8", ".json": "application/json", ".ts": "text/plain; charset=utf-8",
};
const served = []; // { path, status, type }

// /wrong-mime/<path>: <path>, but .wasm as application/octet-stream (the loader must fall back).
// /missing/<path>: <path>, but every .wasm is a 404 (init() must fail clearly, then retry).
// /second/<path>: <path> as it is, under other URLs: a second instance of the whole library (the
// scalar build beside the SIMD one; a query string would reach simplexity.js alone, not the
// modules it imports).
function route(urlPath) {
  let path = decodeURIComponent(urlPath);
  let mode = "normal";
  for (const m of ["wrong-mime", "missing", "second"]) {
    if (path.startsWith(`/${m}/`)) {
      mode = m;
      path = path.slice(m.length + 1);
    }
  }
  return { path, mode };
}

const server = http.createServer(async (req, res) => {
  const { path, mode } = route(new URL(req.url, "http://127.0.0.1").pathname);
  const file = normalize(ROOT + path);
  const ext = extname(file);
  let status = 200;
  let type = MIME[ext] || "application/octet-stream";
  let body;
  if (!file.startsWith(ROOT) || file.includes(`${sep}node_modules${sep}`)) status = 403;
  else if (mode === "missing" && ext === ".wasm") status = 404;
  else {
    try {
      body = await readFile(file);
    } catch {
      status = 404;
    }
  }
  if (mode === "wrong-mime" && ext === ".wasm") type = "application/octet-stream";
  if (status !== 200) {
    body = Buffer.from(`${status}\n`);
    type = "text/plain; charset=utf-8";
  }
  served.push({ path: req.url, status, type });
  res.writeHead(status, { "Content-Type": type, "Content-Length": body.length, "Cache-Control": "no-store" });
  res.end(body);
});

const results = [];
const check = (name, ok, detail = "") => results.push({ name, ok: Boolean(ok), detail: String(detail) });

let browser;
try {
  await new Promise((resolve, reject) => server.listen(0, "127.0.0.1", resolve).on("error", reject));
  const origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleErrors = [];
  const outside = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on("pageerror", (err) => consoleErrors.push(`uncaught: ${err.message}`));
  context.on("request", (r) => {
    const u = new URL(r.url());
    if (u.protocol !== "data:" && u.hostname !== "127.0.0.1") outside.push(r.url());
  });

  await page.goto(`${origin}/tests/browser/loader.html`);
  await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 30_000 });
  for (const r of await page.evaluate(() => window.__results)) check(`page: ${r.name}`, r.ok, r.detail);

  // The one console error we expect is Chromium's own note on the deliberate 404.
  const expected404 = /Failed to load resource: .*404.*\/missing\/dist\/simplexity-simd\.wasm/;
  const unexpected = consoleErrors.filter((e) => !expected404.test(e));
  check("no console errors (besides the deliberate 404)", unexpected.length === 0, unexpected.join("\n"));
  check("no request outside 127.0.0.1", outside.length === 0, outside.join("\n"));
  const wrong = served.filter((s) => s.path === "/wrong-mime/dist/simplexity-simd.wasm");
  check("the wrong-MIME .wasm was served as application/octet-stream",
    wrong.length === 1 && wrong[0].status === 200 && wrong[0].type === "application/octet-stream", JSON.stringify(wrong));
  const good = served.filter((s) => s.path === "/dist/simplexity-simd.wasm");
  check("the SIMD .wasm was served as application/wasm", good.length >= 1 && good.every((s) => s.type === "application/wasm"), JSON.stringify(good));
  check("the scalar .wasm was fetched", served.some((s) => s.path === "/second/dist/simplexity.wasm" && s.status === 200));
  check("the 404 really happened", served.some((s) => s.path === "/missing/dist/simplexity-simd.wasm" && s.status === 404));
} catch (err) {
  check("the browser test ran", false, err && err.stack || err);
} finally {
  if (browser) await browser.close().catch(() => {});
  await new Promise((resolve) => server.close(resolve));
}

let failed = 0;
for (const r of results) {
  if (!r.ok) failed++;
  console.log(`${r.ok ? "ok" : "not ok"} - ${r.name}${r.ok || !r.detail ? "" : `\n    ${r.detail.replace(/\n/g, "\n    ")}`}`);
}
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && results.length > 0 ? 0 : 1;
