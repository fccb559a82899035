// The built page (dist/site) in real Chromium: loads with zero console errors and no request
// outside its origin, every section renders, sliders driven by keyboard and mouse change the
// numbers shown. Also starts `web/serve.mjs` the way `make serve` does and fetches the page.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../web/serve.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SITE = path.join(ROOT, "dist/site");
const SHOTS = path.join(ROOT, "build/screenshots");
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let passed = 0, failed = 0;
function check(cond, what) {
  if (cond) passed++;
  else { failed++; console.error(`FAIL: ${what}`); }
}

// `make serve` runs `node web/serve.mjs --root dist/site`; start it on a free port and fetch /.
async function checkServeCommand() {
  const child = spawn(process.execPath, [path.join(ROOT, "web/serve.mjs"), "--root", SITE, "--port", "0"],
    { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${out}`)), 10000);
      child.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
        if (m) { clearTimeout(timer); resolve(m[0]); }
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    const res = await fetch(url);
    const html = await res.text();
    check(res.ok && html.includes("<title>Simplexity"), `serve command serves the page at ${url}`);
    const wasm = await fetch(url + "simplexity-simd.wasm");
    check(wasm.headers.get("content-type") === "application/wasm", "serve gives .wasm the application/wasm type");
    const escape = await fetch(url + "..%2f..%2fMakefile");
    check(escape.status === 403 || escape.status === 404, "serve refuses paths outside its root");
  } finally {
    child.kill();
  }
}

async function checkPage() {
  const server = await startServer({ root: SITE });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const errors = [], foreign = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => { if (!r.url().startsWith(server.url)) foreign.push(r.url()); });
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready='1']", { timeout: 15000 });

    const table = () => page.$$eval("#probs tr", (rows) => rows.map((r) => Array.from(r.cells, (c) => c.textContent)));
    let rows = await table();
    check(rows.length === 5, `five mappings in the table (got ${rows.length})`);
    const sparse = rows.find((r) => r[0] === "sparsemax");
    check(sparse && sparse[1] === "0.7500" && sparse[2] === "0" && sparse[3] === "0.2500",
      `sparsemax([1.5, 0, 1]) shown as [0.75, 0, 0.25] (got ${sparse})`);
    const soft = rows.find((r) => r[0] === "softmax");
    check(soft && soft[4] === "0", "softmax has no exact zero");
    check(await page.$$eval("#tri circle", (c) => c.length) >= 105, "ternary plot has 5 points and a cloud of 100");
    check(await page.$$eval("#curve path", (p) => p.length) === 6, "two-choice plot draws 6 curves");
    check(await page.$$eval("#curve text", (t) => t.some((e) => e.textContent.startsWith("α = 1.50 (slider)"))), "two-choice legend names the slider alpha");
    check(await page.$eval("#engine", (e) => e.textContent.includes("SIMD")), "page runs the SIMD build");

    // keyboard: focus the z_B slider and press ArrowRight; its output and the numbers change
    const before = JSON.stringify(rows);
    await page.focus("#z1");
    for (let i = 0; i < 80; i++) await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => document.querySelector("output[for=z1]").textContent === "0.80");
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    rows = await table();
    check(JSON.stringify(rows) !== before, "keyboard on a score slider changes the probabilities");
    // mouse: click near the left end of the temperature slider (T -> 10^-2): sparsemax goes one-hot
    const box = await page.locator("#logT").boundingBox();
    await page.mouse.click(box.x + 3, box.y + box.height / 2);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    rows = await table();
    const hot = rows.find((r) => r[0] === "sparsemax");
    check(hot && hot[1] === "1.0000" && hot[2] === "0" && hot[3] === "0", `low temperature makes sparsemax one-hot (got ${hot})`);
    const soft2 = rows.find((r) => r[0] === "softmax");
    check(soft2 && !soft2.slice(1, 4).some((v) => v === "NaN"), "no NaN at low temperature");

    await fs.mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, "page.png"), fullPage: true });
    check(errors.length === 0, `zero console errors (got ${JSON.stringify(errors)})`);
    check(foreign.length === 0, `no request outside the page's origin (got ${JSON.stringify(foreign)})`);
  } finally {
    await browser.close();
    await server.close();
  }
}

try {
  await checkServeCommand();
  await checkPage();
} catch (err) {
  failed++;
  console.error(`FAIL: ${err.stack || err}`);
}
console.log(`page: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
