// The built site's Mappings chapter (dist/site/mappings.html: sections 1-5 here) and its widgets
// in real Chromium: zero console errors, zero CSP violations and no request outside the origin;
// every section renders; handles and sliders driven by mouse and by keyboard change the numbers
// shown; a bad attribute falls back with a message; SVG and PNG export; the blog-post example (dist/site/examples/, one folder below the
// library) renders its widgets; light and dark screenshots in build/screenshots/. Also starts
// `web/site/serve.mjs` the way `make serve` does and fetches the map (index.html). book.mjs checks
// every page of the book.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { ROOT, SHOTS, check, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

const TALL = { width: 1100, height: 1400 };

// The README's `make serve` itself (its set-up finds everything installed, its build is up to
// date): on a free port (PORT=0), then fetch /. Its own process group, so that make, node and
// anything between them stop together.
async function checkServeCommand() {
  const child = spawn("make", ["--no-print-directory", "serve"],
    { cwd: ROOT, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`make serve printed no URL: ${out}`)), 120000);
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
    try { process.kill(-child.pid, "SIGTERM"); } catch { /* already gone */ }
  }
}

async function checkPage(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("simplex"), server.url, { viewport: TALL });
  await ready(page);
  await frames(page);

  // ---- section 1: the simplex explorer (Playwright's CSS selectors pierce open shadow roots)
  const table = () => page.$$eval("#simplex tbody tr", (rows) => rows.map((r) => Array.from(r.cells, (c) => c.textContent)));
  let rows = await table();
  check(rows.length === 5, `five mappings in the simplex table (got ${rows.length})`);
  const sparse = rows.find((r) => r[0] === "sparsemax");
  check(sparse && sparse[1] === "0.7500" && sparse[2] === "0" && sparse[3] === "0.2500",
    `sparsemax([1.5, 0, 1]) shown as [0.75, 0, 0.25] (got ${sparse})`);
  check(rows.find((r) => r[0] === "softmax")?.[4] === "0", "softmax has no exact zero");
  check(await page.$$eval("#simplex .cloud circle", (c) => c.length) === 100, "a cloud of 100 random score vectors");
  check(await page.$$eval("#simplex .edge.hot", (e) => e.length) >= 1, "an edge is highlighted (drawings.mjs checks that it is the one where a mapping has a zero)");
  check(await page.$$eval("#simplex svg.v3 path.link", (p) => p.length) >= 6, "the 3-D view draws score-to-simplex lines");
  // ---- section 2: entropy contours
  check(await page.$$eval("#entropy path.band", (p) => p.length) >= 20, "entropy: filled bands on both panels");
  // ---- section 3: trajectories with support changes
  check(await page.$$eval("#trajectory path.path", (p) => p.length) === 3, "trajectory: three paths");
  check(await page.$$eval("#trajectory circle.change", (p) => p.length) >= 2, "trajectory: support-change markers");
  // ---- section 4, 5
  check(await page.$$eval("#two-choice path.curve", (p) => p.length) === 6, "two-choice: 6 curves");
  const fusedText = () => page.$eval("#fused .readout", (e) => e.textContent);
  check(/fusedmax: \d+ of 10 non-zero, [1-9] fused run/.test(await fusedText()), `fused: runs reported (got ${await fusedText()})`);
  check(await page.$eval("#engine", (e) => e.textContent.includes("SIMD")), "page runs the SIMD build");

  // ---- keyboard: the z_B handle is a WAI-ARIA slider; ArrowUp x10 moves it by 0.5
  const trajBefore = await page.$eval("#trajectory table", (t) => t.textContent);
  const handle = page.locator("#simplex [role=slider][aria-label='score of B']");
  await handle.focus();
  for (let i = 0; i < 10; i++) await page.keyboard.press("ArrowUp");
  await frames(page);
  check(await handle.getAttribute("aria-valuenow") === "0.50", `keyboard moves the z_B handle to 0.50 (got ${await handle.getAttribute("aria-valuenow")})`);
  const rows2 = await table();
  check(JSON.stringify(rows2) !== JSON.stringify(rows), "keyboard on a score handle changes the probabilities");
  check(await page.$eval("#simplex", (e) => e.getAttribute("scores")) === "1.5 0.5 1", "the scores attribute reflects the handle");
  check(await page.$eval("#trajectory table", (t) => t.textContent) !== trajBefore, "section 3 follows the scores of section 1");

  // ---- mouse: drag the z_A knob down to about -1
  const knob = page.locator("#simplex [role=slider][aria-label='score of A'] .knob");
  const kb = await knob.boundingBox();
  await page.mouse.move(kb.x + kb.width / 2, kb.y + kb.height / 2);
  await page.mouse.down();
  await page.mouse.move(kb.x + kb.width / 2, kb.y + kb.height / 2 + 60, { steps: 5 });
  await page.mouse.up();
  await frames(page);
  const zA = Number(await page.locator("#simplex [role=slider][aria-label='score of A']").getAttribute("aria-valuenow"));
  check(zA < 1.0, `dragging the z_A knob down lowers z_A (got ${zA})`);
  const rows3 = await table();
  check(JSON.stringify(rows3) !== JSON.stringify(rows2), "a mouse drag changes the probabilities");
  // mouse on the temperature slider (T -> 10^-2): sparsemax goes one-hot, softmax has no NaN
  const tbox = await page.locator("#simplex input[type=range] >> nth=2").boundingBox();
  await page.mouse.click(tbox.x + 2, tbox.y + tbox.height / 2);
  await frames(page);
  rows = await table();
  const hot = rows.find((r) => r[0] === "sparsemax");
  check(hot && hot.slice(1, 4).filter((v) => v === "0").length === 2 && hot.slice(1, 4).includes("1.0000"), `low temperature makes sparsemax one-hot (got ${hot})`);
  check(!rows.some((r) => r.includes("NaN")), "no NaN at low temperature");

  // ---- the two-choice alpha slider by keyboard, its cursor by mouse
  const twoText = () => page.$eval("#two-choice .readout", (e) => e.textContent);
  const t0 = await twoText();
  const a0 = await page.$eval("#two-choice", (e) => e.alpha); // section 1 shares its alpha with this one
  const a1 = (a0 + 0.2).toFixed(2);
  await page.locator("#two-choice input[type=range]").focus();
  for (let i = 0; i < 20; i++) await page.keyboard.press("ArrowRight");
  await frames(page);
  const t1 = await twoText();
  check(t1 !== t0 && t1.includes(`α = ${a1}`), `two-choice: the alpha slider by keyboard changes the numbers (got ${t1})`);
  const plot = await page.locator("#two-choice svg.picture").boundingBox();
  await page.mouse.click(plot.x + plot.width * 0.25, plot.y + plot.height / 2);
  await frames(page);
  check(await twoText() !== t1, "two-choice: a click moves the t cursor and the numbers");
  check(await page.$eval("#simplex", (e) => e.alpha.toFixed(2)) === a1, "the shared alpha reaches section 1");

  // ---- fused: drag a score bar; keyboard on another
  const f0 = await fusedText();
  const fsvg = await page.locator("#fused svg.picture:not(.steps-picture)").boundingBox();
  await page.mouse.move(fsvg.x + fsvg.width * 0.48, fsvg.y + fsvg.height * 0.05);
  await page.mouse.down();
  await page.mouse.move(fsvg.x + fsvg.width * 0.48, fsvg.y + fsvg.height * 0.3, { steps: 4 });
  await page.mouse.up();
  await frames(page);
  check(await fusedText() !== f0, "fused: dragging a score bar changes the weights");
  const fs1 = await page.$eval("#fused", (e) => e.getAttribute("scores"));
  await page.locator("#fused [role=slider][aria-label='score 1']").focus();
  await page.keyboard.press("End");
  await frames(page);
  check((await page.$eval("#fused", (e) => e.getAttribute("scores"))).startsWith("2.5 ") && fs1 !== null, "fused: End puts score 1 at its maximum");
  // sigmoid: ten bars (no finite score gets 0), their sum printed, not 1
  check(await page.$$eval("#fused rect.w.m-sigmoid", (r) => r.length) === 10, "fused: ten sigmoid bars");
  const sigSum = /sigmoid: sum (\d+\.\d+) \(not 1/.exec(await fusedText());
  check(sigSum && Math.abs(Number(sigSum[1]) - 1) > 0.5, `fused: the sigmoid sum is printed, and is not 1 (got ${await fusedText()})`);
  // groupmax: the keyboard on its lambda (a native range: End = 3) zeros whole groups
  check(/groupmax: \d+ of 10 non-zero, [1-4] of 4 groups alive/.test(await fusedText()), `fused: groupmax groups reported (got ${await fusedText()})`);
  await page.locator("#fused [part=group-lambda] input").focus();
  await page.keyboard.press("End");
  await frames(page);
  check(await page.$eval("#fused", (e) => e.getAttribute("group-lambda")) === "3", "fused: End puts groupmax's lambda at 3");
  check(/groupmax: \d+ of 10 non-zero, [1-3] of 4 groups alive/.test(await fusedText()), `fused: a high lambda kills whole groups (got ${await fusedText()})`);
  const dead = await page.$$eval("#fused rect.group.dead", (r) => r.map((e) => e.querySelector("title").textContent));
  check(dead.length >= 1 && dead.every((t) => t.endsWith("exactly 0")), `fused: dead groups outlined (got ${JSON.stringify(dead)})`);

  // ---- export: a valid standalone SVG, a PNG, and the button's download
  const svgCheck = await page.evaluate(() => {
    const text = document.getElementById("simplex").toSVG();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    return { ok: !doc.querySelector("parsererror"), root: doc.documentElement.localName, circles: doc.querySelectorAll("circle").length,
      styled: !text.includes("var(--"), bytes: text.length };
  });
  check(svgCheck.ok && svgCheck.root === "svg" && svgCheck.circles >= 105 && svgCheck.styled, `SVG export is valid and self-styled (${JSON.stringify(svgCheck)})`);
  const png = await page.evaluate(async () => {
    const b = await document.getElementById("entropy").toPNG(1);
    const head = new Uint8Array(await b.slice(0, 4).arrayBuffer());
    return { type: b.type, size: b.size, magic: Array.from(head) };
  });
  check(png.type === "image/png" && png.size > 2000 && png.magic.join() === "137,80,78,71", `PNG export (${JSON.stringify(png)})`);
  // <sx-trajectory>'s oscarmax follows its beta attribute
  const betaPaths = await page.evaluate(async () => {
    const draw = async (beta) => {
      const e = document.createElement("sx-trajectory");
      e.setAttribute("mappings", "oscarmax");
      e.setAttribute("scores", "1 0.9 -0.5");
      e.setAttribute("beta", beta);
      document.body.append(e);
      await customElements.whenDefined("sx-trajectory");
      for (let i = 0; i < 200 && !(e.lastRenderMs > 0); i++) await new Promise((r) => requestAnimationFrame(r));
      const d = [...e.shadowRoot.querySelectorAll("path")].map((p) => p.getAttribute("d")).join("|");
      const msg = e.shadowRoot.querySelector("[part=message]");
      e.remove();
      return { d, msg: msg && !msg.hidden ? msg.textContent : "" };
    };
    return [await draw("0"), await draw("1.5")];
  });
  check(betaPaths[0].d.length > 0 && betaPaths[0].d !== betaPaths[1].d && !betaPaths[0].msg && !betaPaths[1].msg,
    `sx-trajectory's oscarmax follows beta (${JSON.stringify(betaPaths.map((b) => [b.d.length, b.msg]))})`);
  const badFormat = await page.evaluate(() => document.getElementById("simplex").exportAs("jpg").then(() => "resolved", (e) => `${e.name}: ${e.message}`));
  check(badFormat === 'RangeError: sx-simplex.exportAs: format must be "svg" or "png" (got "jpg")', `exportAs refuses another format (got ${badFormat})`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#two-choice button", { hasText: "SVG" }).click()]);
  check(download.suggestedFilename() === "sx-two-choice.svg", "the SVG button downloads sx-two-choice.svg");

  // ---- a bad attribute: a message, the default, no exception
  const bad = await page.evaluate(async () => {
    const el = document.createElement("sx-two-choice");
    el.setAttribute("alpha", "banana");
    el.id = "bad";
    document.querySelector("main").append(el);
    const el2 = document.createElement("sx-simplex");
    el2.setAttribute("scores", "1 2");
    el2.setAttribute("cloud", "rainbow");
    document.querySelector("main").append(el2);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const msg = el.shadowRoot.querySelector(".msg"), msg2 = el2.shadowRoot.querySelector(".msg");
    return { text: msg.textContent, visible: !msg.hidden && msg.offsetHeight > 0, alpha: el.alpha,
      readout: el.shadowRoot.querySelector(".readout").textContent, text2: msg2.textContent,
      rows: el2.shadowRoot.querySelectorAll("tbody tr").length };
  });
  check(bad.visible && bad.text.includes('alpha="banana" is not a number; using 1.5'), `bad alpha shows a message (got ${bad.text})`);
  check(bad.alpha === 1.5 && bad.readout.includes("α = 1.50"), "bad alpha falls back to 1.5");
  check(bad.text2.includes('scores="1 2" needs at least 3 numbers') && bad.text2.includes('cloud="rainbow"') && bad.rows === 5,
    `bad scores/cloud fall back (got ${bad.text2}, ${bad.rows} rows)`);
  await page.evaluate(() => { document.getElementById("bad").nextElementSibling.remove(); document.getElementById("bad").remove(); });

  // ---- screenshots (restore the defaults first), per widget and the whole page
  await page.evaluate(() => {
    const s = document.getElementById("simplex");
    s.scores = [1.5, 0, 1]; s.temperature = 1; s.alpha = 1.25;
    document.getElementById("trajectory").scores = [1.5, 0, 1];
    document.getElementById("entropy").alpha = 1.5;
    document.getElementById("two-choice").alpha = 1.5;
    document.getElementById("fused").removeAttribute("scores");
  });
  await frames(page, 3);
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "page.png"), fullPage: true });
  for (const id of ["simplex", "entropy", "trajectory", "two-choice", "fused"]) {
    await page.locator(`#${id}`).screenshot({ path: path.join(SHOTS, `widget-${id}.png`) });
  }
  await checkClean(page, log);
  await page.close();
}

// Dark mode and a phone-sized viewport: the theme follows prefers-color-scheme; screenshots.
async function checkDarkAndNarrow(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("simplex"), server.url, { colorScheme: "dark", viewport: { width: 400, height: 900 }, hasTouch: true, isMobile: true });
  await ready(page);
  await frames(page);
  const bg = await page.$eval("#simplex", (e) => getComputedStyle(e).getPropertyValue("--_bg").trim());
  check(bg === "#16171a", `dark theme inside the widgets (got ${bg})`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scroll at 400 px (overflow ${overflow})`);
  // touch: a tap on the two-choice plot moves its t cursor (pointer events serve mouse and touch)
  const t0 = await page.$eval("#two-choice", (e) => e.t);
  const plot = page.locator("#two-choice svg.picture");
  await plot.scrollIntoViewIfNeeded();
  const box = await plot.boundingBox();
  await page.touchscreen.tap(box.x + box.width * 0.8, box.y + box.height / 2);
  await frames(page);
  const t1 = await page.$eval("#two-choice", (e) => e.t);
  check(t1 > 1.5 && t1 !== t0, `a tap moves the two-choice cursor (t ${t0} -> ${t1})`);
  await page.screenshot({ path: path.join(SHOTS, "page-dark-narrow.png"), fullPage: true });
  await checkClean(page, log, "dark/narrow: ");
  await page.close();
}

// The blog post, one folder below the library, loads every widget with one script tag; the
// pooling, span-mask and Transformer widgets further down render once scrolled to, the last two
// with the shipped models fetched from models/ beside widgets.js.
async function checkBlogPost(browser, server) {
  const { page, log } = await open(browser, server.url + "examples/blog-post.html", server.url, { viewport: TALL });
  await page.waitForFunction(() => [...document.querySelectorAll("sx-simplex, sx-two-choice, sx-trajectory, sx-fused, sx-threshold")]
    .every((e) => e.shadowRoot && e.shadowRoot.querySelector("svg.picture") && e.lastRenderMs > 0), null, { timeout: 15000 });
  const n = await page.$$eval("script", (s) => s.length);
  check(n === 1, `the blog post has one script tag (got ${n})`);
  // further down: pooling, the span mask with a trained model's spans, the Transformer (their
  // models load as they come into view, from models/ beside widgets.js, one folder up)
  for (const tag of ["sx-pooling", "sx-span-mask", "sx-attention", "sx-explain"]) {
    await page.locator(tag).scrollIntoViewIfNeeded();
    await page.waitForFunction((t) => { const e = document.querySelector(t); return e.shadowRoot && e.shadowRoot.querySelector("svg.picture") && e.lastRenderMs > 0; }, tag, { timeout: 15000 });
  }
  await page.waitForFunction(() => document.querySelector("sx-span-mask").shadowRoot.querySelectorAll("[role=button]").length > 0, null, { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector("sx-attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector("sx-explain").shadowRoot.querySelectorAll("svg.bars .bar").length > 0, null, { timeout: 15000 });
  const counts = await page.$$eval("article sx-simplex, article sx-two-choice, article sx-trajectory, article sx-fused, article sx-threshold, article sx-pooling, article sx-span-mask, article sx-attention, article sx-explain",
    (els) => els.map((e) => [e.localName, e.shadowRoot.querySelectorAll("svg.picture *").length, e.shadowRoot.querySelector(".msg").hidden]));
  check(counts.length === 9 && counts.every(([, k, quiet]) => k > 20 && quiet), `the blog post renders its 9 widgets, none with a message (got ${JSON.stringify(counts)})`);
  const ex = await page.$eval("sx-explain", (e) => ({ outs: e.shadowRoot.querySelectorAll("[role=radio]").length, rows: e.shadowRoot.querySelectorAll("svg.bars g.row").length,
    run: e.shadowRoot.querySelector("button.run").textContent }));
  check(ex.outs === 9 && ex.rows === 6 && ex.run.includes("50 held-out examples"), `the blog's sx-explain: 9 output steps, 6 bar rows, 50 examples (${JSON.stringify(ex)})`);
  check(await page.$$eval("article > *", (els) => els.filter((e) => e.localName.startsWith("sx-")).length) === 0, "every widget sits in a figure");
  const sp = await page.$$eval("sx-simplex tbody tr", (r) => r.map((x) => x.cells[0].textContent));
  check(sp.join() === "softmax,sparsemax,1.5-entmax", `the blog's simplex shows the mappings it asked for (got ${sp})`);
  await page.locator("article sx-regularized").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector("article sx-regularized")?.lastRenderMs > 0, null, { timeout: 15000 });
  const reg = await page.$eval("article sx-regularized", (e) => ({ p: e.p.map((v) => v.toFixed(4)).join(), quiet: e.shadowRoot.querySelector(".msg").hidden,
    shown: [...e.shadowRoot.querySelectorAll("svg.picture")].filter((s) => getComputedStyle(s).display !== "none").length, face: e.shadowRoot.querySelector(".opt-vertex")?.dataset.face }));
  check(reg.p === "0.6500,0.0000,0.3500" && reg.quiet && reg.shown === 2 && reg.face === "0", `the blog's regularized widget: sparsemax's p, two views, vertex A (got ${JSON.stringify(reg)})`);
  await page.locator("article sx-positions").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector("article sx-positions")?.lastRenderMs > 0, null, { timeout: 15000 });
  const pe = await page.$eval("article sx-positions", (e) => ({ n: e.matrix.length, cells: [...e.shadowRoot.querySelectorAll("g.cells path")].reduce((n, p) => n + [...p.getAttribute("d").matchAll(/h([\d.]+)v/g)].reduce((m, x) => m + Number(x[1]), 0), 0) / Number(e.shadowRoot.querySelector("g.cells").dataset.cell), quiet: e.shadowRoot.querySelector(".msg").hidden }));
  check(pe.n === 40 * 24 && pe.cells === 40 * 24 && pe.quiet, `the blog's positions widget draws its 40 x 24 matrix, no message (got ${JSON.stringify(pe)})`);
  await page.locator("article sx-patterns").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector("article sx-patterns")?.result, null, { timeout: 15000 });
  const pat = await page.$eval("article sx-patterns", (e) => ({ n: e.result.n, kind: e.result.pattern.kind, pairs: e.result.pairs, cells: e.shadowRoot.querySelectorAll("svg[data-panel] g.cells path").length,
    strips: e.shadowRoot.querySelectorAll("svg.lsh g.strip rect").length, rows: e.shadowRoot.querySelectorAll("tbody tr").length, quiet: e.shadowRoot.querySelector(".msg").hidden }));
  check(pat.n === 128 && pat.kind === "lsh" && pat.pairs > 0 && pat.cells >= 3 && pat.strips === 2 * 128 && pat.rows === 4 && pat.quiet,
    `the blog's patterns widget: LSH at n = 128, its three panels, both bucket strips, a row per pattern, no message (got ${JSON.stringify(pat)})`);
  await page.locator("article sx-scores").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector("article sx-scores")?.weights, null, { timeout: 15000 });
  const scw = await page.$eval("article sx-scores", (e) => ({ scoring: e.scoring, n: e.weights.length, sum: Array.from(e.weights).reduce((a, v) => a + v, 0), quiet: e.shadowRoot.querySelector(".msg").hidden }));
  check(scw.scoring === "additive" && scw.n === 4 && Math.abs(scw.sum - 1) < 1e-5 && scw.quiet, `the blog's scores widget: additive scores, 4 weights on the simplex (got ${JSON.stringify(scw)})`);
  const pool = await page.$$eval("sx-pooling tbody tr", (r) => r.map((x) => x.cells[0].textContent));
  check(pool.join() === "softmax,sparsemax,1.5-entmax", `the blog's pooling widget has its three kernels (got ${pool})`);
  const heads = await page.$$eval("sx-span-mask [role=button]", (b) => b.length);
  check(heads === 16, `the blog's span mask lists the 16 self-attention heads of reverse-alpha-span.sxm (got ${heads})`);
  const att = await page.$eval("sx-attention", (e) => ({ io: e.shadowRoot.querySelector(".io").textContent, panels: e.shadowRoot.querySelectorAll("svg.maps .panel").length,
    dots: e.shadowRoot.querySelectorAll("svg.maps .panel path.zeros").length, source: e.shadowRoot.querySelector(".source").textContent }));
  check(att.io.includes("2026-11-22") && att.io.includes("✓") && att.panels === 16 && att.dots > 0 && att.source.includes("date-alpha.sxm"),
    `the blog's Transformer rewrites the date with the learned-alpha model, cross + encoder maps, exact zeros (${JSON.stringify(att)})`);
  await page.screenshot({ path: path.join(SHOTS, "blog-post.png"), fullPage: true });
  await checkClean(page, log, "blog post: ");
  await page.close();
}

await runSuite("page", async (browser, server) => {
  await checkServeCommand();
  await checkPage(browser, server);
  await checkDarkAndNarrow(browser, server);
  await checkBlogPost(browser, server);
});
