// cores.mjs - which wasm core a page fetches, in Chromium (widgets/base.js ready(), widgets.js):
// a post with mapping widgets only fetches the mappings core and neither model.js nor blocks.js;
// a post that also holds a full-core widget fetches the full core alone; a full-core widget added
// later brings the full core, which then serves the mapping widgets too; the book's Mappings
// chapter runs on the mappings core, the Transformer's on the full core alone.
// Each page: zero console errors, no request outside the origin.
import { check, open, runSuite, checkClean, pageWith } from "./harness.mjs";

const post = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>post</title></head>
<body>${body}<script type="module" src="/widgets.js"></script></body></html>`;

/** Opens `html` served at /post.html; resolves to { page, log }. */
async function openPost(browser, server, html) {
  return open(browser, server.url + "post.html", server.url, {
    before: (page) => page.route("**/post.html", (r) => r.fulfill({ contentType: "text/html", body: html })),
  });
}

const drawn = (page, tag) => page.waitForFunction((t) => {
  const e = document.querySelector(t);
  return e && e.shadowRoot && e.shadowRoot.querySelector("svg.picture") && e.lastRenderMs > 0;
}, tag, { timeout: 20000 });
const fetched = (log, suffix) => log.requests.filter((u) => new URL(u).pathname.endsWith(suffix)).map((u) => new URL(u).pathname);
const wasmOf = (log) => fetched(log, ".wasm");
// mappings.js: the module the widgets hold (simplexity.js would bring model.js and blocks.js)
const coreInfo = (page) => page.evaluate(async () => (await import("/mappings.js")).info());

async function mappingsOnly(browser, server) {
  const { page, log } = await openPost(browser, server,
    post('<sx-simplex scores="1.5 0 1"></sx-simplex><sx-two-choice></sx-two-choice><sx-threshold></sx-threshold>'));
  for (const t of ["sx-simplex", "sx-two-choice", "sx-threshold"]) await drawn(page, t);
  const rows = await page.$$eval("sx-simplex tbody tr", (r) => r.map((x) => [...x.cells].map((c) => c.textContent)));
  const sparse = rows.find((r) => r[0] === "sparsemax");
  check(sparse && sparse[1] === "0.7500" && sparse[2] === "0" && sparse[3] === "0.2500", `mappings core: sparsemax([1.5, 0, 1]) drawn as [0.75, 0, 0.25] (got ${sparse})`);
  const info = await coreInfo(page);
  check(info.core === "mappings" && info.simd === true, `mapping widgets alone run on the mappings core (info(): ${JSON.stringify(info)})`);
  check(JSON.stringify(wasmOf(log)) === JSON.stringify(["/simplexity-mappings-simd.wasm"]), `one .wasm fetched, the mappings core's (got ${JSON.stringify(wasmOf(log))})`);
  check(fetched(log, "/model.js").length === 0 && fetched(log, "/blocks.js").length === 0, `neither model.js nor blocks.js fetched (requests: ${log.requests.length})`);
  await checkClean(page, log, "mappings-only post: ");

  // a full-core widget added later: the full core comes, and serves the mapping widgets too
  await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", '<sx-pooling mappings="softmax sparsemax"></sx-pooling>'));
  await drawn(page, "sx-pooling");
  const after = await coreInfo(page);
  check(after.core === "full", `a full-core widget added later brings the full core (info(): ${JSON.stringify(after)})`);
  check(JSON.stringify(wasmOf(log)) === JSON.stringify(["/simplexity-mappings-simd.wasm", "/simplexity-simd.wasm"]), `then the full core's .wasm (got ${JSON.stringify(wasmOf(log))})`);
  await page.$eval("sx-simplex", (e) => { e.scores = [1, 0.2, 0.9]; });
  await page.waitForFunction(() => [...document.querySelector("sx-simplex").shadowRoot.querySelectorAll("tbody tr")]
    .some((r) => r.cells[0].textContent === "sparsemax" && r.cells[1].textContent === "0.5500"), null, { timeout: 10000 });
  check(true, "the simplex redraws on the full core: sparsemax([1, 0.2, 0.9]) = [0.55, 0, 0.45]");
  await checkClean(page, log, "after the upgrade: ");
  await page.close();
}

async function mixed(browser, server) {
  const { page, log } = await openPost(browser, server, post('<sx-simplex></sx-simplex><sx-scores></sx-scores><sx-jacobian></sx-jacobian>'));
  for (const t of ["sx-simplex", "sx-scores", "sx-jacobian"]) await drawn(page, t);
  check(JSON.stringify(wasmOf(log)) === JSON.stringify(["/simplexity-simd.wasm"]), `a post with a full-core widget fetches the full core alone (got ${JSON.stringify(wasmOf(log))})`);
  check((await coreInfo(page)).core === "full", "and runs every widget on it");
  await checkClean(page, log, "mixed post: ");
  await page.close();
}

// The book's chapters: the Mappings chapter (mapping widgets only) on the mappings core, one with
// full-core widgets on the full core alone (book.mjs checks every chapter).
async function thePage(browser, server) {
  for (const [id, core, which] of [["simplex", "/simplexity-mappings-simd.wasm", "mappings"], ["transformer-section", "/simplexity-simd.wasm", "full"]]) {
    const file = pageWith(id);
    const { page, log } = await open(browser, server.url + file, server.url);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    await page.waitForLoadState("networkidle").catch(() => {});
    check(JSON.stringify(wasmOf(log)) === JSON.stringify([core]), `${file} fetches the ${which} core alone (got ${JSON.stringify(wasmOf(log))})`);
    check((await coreInfo(page)).core === which, `${file} runs its widgets on the ${which} core`);
    await checkClean(page, log, `${file}: `);
    await page.close();
  }
}

await runSuite("cores", async (browser, server) => {
  await mappingsOnly(browser, server);
  await mixed(browser, server);
  await thePage(browser, server);
});
