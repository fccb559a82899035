// outputs-lazy.mjs - chapter 6 (outputs.html) loads its model sections lazily, in real Chromium:
// the page is opened in a short viewport and every request recorded. At load it fetches the page,
// its style sheet, icon and modules and one wasm core (the full core, which section 19's
// <sx-loss> needs: fyLoss is not in the mappings core), within a budget of today's transfer; no
// checkpoint, no character model's summary.json, no worker. Scrolled to section 20, the page
// fetches <sx-decode>'s checkpoint and nothing of section 21; scrolled to section 21, the
// character model's summary.json and checkpoint, and no second core. Zero console errors, CSP
// violations, foreign requests.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { SITE, check, echoPasses, open, ready, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

// What outputs.html transfers at load, gzipped at level 9 as sizes.mjs counts it: 174.7 KB on
// 2026-12-07 (`make site-size`: 48 files, the full core included), 185.0 KB (51 files) the same
// day once <sx-write> had its fine-tuning controls (+3.4 KB, the model store +1 KB) and the full
// core and library the rationale model (+2.5 KB core, +2.5 KB JS), which every full-core page
// loads. The budget keeps that figure with 3% for the shared modules' day-to-day growth; a
// section that fetched its model or a second core at load would cross it by far (a character
// model is 200 KB, a core 90 KB).
const BUDGET = 190 * 1024;

const files = (log, server, from = 0) => log.requests.slice(from).filter((u) => u.startsWith(server.url)).map((u) => u.slice(server.url.length).split(/[?#]/)[0]);
const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(SITE, f)), { level: 9 }).length;
const below = (page, id) => page.$eval(`#${id}`, (e) => Math.round(e.getBoundingClientRect().top - window.innerHeight));
const isModel = (f) => f.startsWith("models/");

await runSuite("outputs-lazy", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "outputs.html", server.url, { viewport: { width: 1100, height: 600 } });
  await ready(page);
  await frames(page, 3);
  await page.waitForTimeout(500); // an observer that fired late would fetch by now

  // ---- at load
  const decodeBelow = await below(page, "decode"), writeBelow = await below(page, "write");
  check(decodeBelow > 400 && writeBelow > 400, `sections 20 and 21's widgets start well below the fold and the observers' 200 px margin (${decodeBelow}, ${writeBelow} px)`);
  const atLoad = files(log, server);
  const n0 = log.requests.length;
  check(atLoad.filter(isModel).length === 0, `no checkpoint or summary fetched at load (got ${JSON.stringify(atLoad.filter(isModel))})`);
  const cores = atLoad.filter((f) => f.endsWith(".wasm"));
  check(JSON.stringify(cores) === JSON.stringify(["simplexity-simd.wasm"]), `one core at load, the full core section 19's <sx-loss> needs (got ${JSON.stringify(cores)})`);
  check((await page.evaluate(() => window.__workers.length)) === 0, "no worker started at load");
  const unique = [...new Set(atLoad)].filter((f) => f && fs.existsSync(path.join(SITE, f)));
  const bytes = unique.reduce((s, f) => s + gz(f), 0);
  check(bytes <= BUDGET, `at load: ${unique.length} files, ${(bytes / 1024).toFixed(1)} KB gzipped <= ${(BUDGET / 1024).toFixed(0)} KB`);
  check(unique.length === new Set(atLoad.filter((f) => f)).size, `every file fetched at load is in dist/site (${atLoad.filter((f) => f && !unique.includes(f)).join(", ")})`);
  const placeholder = (id) => page.$eval(`#${id}`, (e) => e.shadowRoot.textContent.includes("loads when this comes into view"));
  check(await placeholder("decode") && await placeholder("write"), "both widgets say their model loads when shown");

  // ---- section 20 shown: <sx-decode>'s checkpoint, nothing of section 21
  await page.locator("#decode").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("decode").result, null, { timeout: 30000 });
  await frames(page, 3);
  await page.waitForTimeout(300);
  const writeFar = await below(page, "write");
  const at20 = files(log, server).slice(atLoad.length);
  check(writeFar > 400, `section 21's widget is still well below the viewport (${writeFar} px)`);
  check(JSON.stringify(at20.filter(isModel)) === JSON.stringify(["models/date-entmax15-out.sxm"]), `section 20 in view: only date-entmax15-out.sxm fetched (got ${JSON.stringify(at20.filter(isModel))})`);
  check(at20.filter((f) => f.endsWith(".wasm")).length === 0, `section 20 in view: no wasm fetched (got ${JSON.stringify(at20)})`);

  // ---- section 21 shown: the character model and its vocabulary
  const n20 = log.requests.length;
  await page.locator("#write").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("write").result, null, { timeout: 30000 });
  await frames(page, 3);
  const at21 = files(log, server, n20);
  check(JSON.stringify(at21.filter(isModel).sort()) === JSON.stringify(["models/text/devil-entmax15-out.sxm", "models/text/summary.json"]),
    `section 21 in view: devil-entmax15-out.sxm and summary.json fetched (got ${JSON.stringify(at21.filter(isModel))})`);
  check(files(log, server, n0).filter((f) => f.endsWith(".wasm")).length === 0, "no second core after load");
  check((await page.evaluate(() => window.__workers.length)) === 0, "no worker started by showing the sections");
  await checkClean(page, log);
  await page.close();
});
