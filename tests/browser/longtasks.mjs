// longtasks.mjs - the page stays responsive while a model trains and a simplex is dragged (issue
// 27, item 5). Long tasks (PerformanceObserver "longtask") are recorded and counted, and each is
// matched against what ran inside it; the checks never read a duration, only what shares a task:
//  (a) <sx-attention> trains on the main thread (train-worker.js answered 404: the fallback, in
//      slices) while the reader drags a handle of <sx-simplex>: every slice is a task of its own
//      (no long task holds two slices' progress events, so none holds the run), the drag's pointer
//      events are handled between slices (handling order alternates many times, it does not wait
//      for the run), and the simplex redraws on the drag;
//  (b) the same with the worker: no slice runs on the page, the drag is handled throughout;
//  (c) <sx-patterns> at n = 2048 computes in slices (several tasks, never two in one long task),
//      a key pressed meanwhile is handled while the job is still running (it moves n on), and at
//      n = 724 (sliced too) its numbers are those of attention() and attentionPattern() computed
//      in one call each in the page.
// The counts and the longest task are printed. Zero console errors but the 404, zero CSP
// violations, no request outside the origin.
import { check, echoPasses, open, frames, runSuite } from "./harness.mjs";

echoPasses();

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; img-src 'self' blob:">
<title>long tasks</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><sx-simplex id="simplex" cloud="sparsemax"></sx-simplex><sx-attention id="attention" task="reverse" kind="alpha"></sx-attention>
<sx-patterns id="patterns" n="256"></sx-patterns></main></body></html>`;

const VIEW = { width: 1100, height: 4000 }; // every widget on screen (none paused)

// In the page: long tasks, progress events and pointer events, timestamped.
function record() {
  window.__lt = { long: [], seq: [], renders: [] };
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.long.push([e.startTime, e.duration]); }).observe({ type: "longtask" });
  document.getElementById("attention").addEventListener("sx-attention-progress", () => window.__lt.seq.push(["p", performance.now()]));
  document.addEventListener("pointermove", () => window.__lt.seq.push(["m", performance.now()]), true);
  const simplex = document.getElementById("simplex"), render = simplex.renderNow;
  simplex.renderNow = function () { window.__lt.renders.push(performance.now()); return render.call(this); };
}

// Long tasks holding two or more of `times` strictly inside them (1 ms off each edge).
const crowded = (long, times) => long.filter(([s, d]) => times.filter((t) => t > s + 1 && t < s + d - 1).length >= 2);
// How often the kind of event changes along the handling order.
const switches = (seq) => seq.reduce((n, e, i) => n + (i > 0 && e[0] !== seq[i - 1][0] ? 1 : 0), 0);

async function trainAndDrag(page, thread) {
  await page.evaluate(record);
  const trained = page.evaluate(() => new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("no sx-attention-trained event in 180 s")), 180000);
    document.getElementById("attention").addEventListener("sx-attention-trained", (e) => { clearTimeout(t); resolve(e.detail); }, { once: true });
  }));
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 100000, evalEvery: 50, heldout: 64 }; });
  await page.locator("#attention button.start").click();
  await page.waitForFunction((th) => document.getElementById("attention").trainingThread === th
    && document.getElementById("attention")._run?.step > 0, thread, { timeout: 60000 });
  // drag the handle of score B up and down, 80 moves
  const knob = page.locator("#simplex [role=slider][aria-label='score of B'] .knob");
  await knob.scrollIntoViewIfNeeded();
  const b = await knob.boundingBox();
  const x = b.x + b.width / 2, y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let k = 0; k < 80; k++) await page.mouse.move(x, y + 40 * Math.sin(k * 0.2));
  await page.mouse.up();
  await page.locator("#attention button.stop").click();
  const detail = await trained;
  await frames(page, 2);
  const r = await page.evaluate(() => window.__lt);
  const moves = r.seq.filter((e) => e[0] === "m"), progress = r.seq.filter((e) => e[0] === "p");
  const first = moves[0][1], last = moves.at(-1)[1];
  const during = r.seq.filter((e) => e[1] >= first && e[1] <= last);
  const inDrag = r.long.filter(([s]) => s >= first && s <= last);
  const longest = Math.max(0, ...r.long.map(([, d]) => d));
  console.log(`longtasks: training on the ${thread} thread while dragging: ${moves.length} pointer moves, ${progress.length} progress events ` +
    `(${during.filter((e) => e[0] === "p").length} during the drag), ${switches(during)} switches between them, ${r.renders.length} simplex renders; ` +
    `${r.long.length} long tasks (${inDrag.length} during the drag), longest ${longest.toFixed(0)} ms`);
  check(detail.stopped && detail.step > 0, `${thread}: the run trained and stopped (${JSON.stringify(detail)})`);
  check(moves.length >= 80 && r.renders.length >= 20, `${thread}: the drag was handled and the simplex redrew (${moves.length} moves, ${r.renders.length} renders)`);
  const two = crowded(r.long, progress.map((e) => e[1]));
  check(two.length === 0, `${thread}: no long task holds two training slices (got ${two.length} of ${r.long.length})`);
  return { during, progress };
}

async function mainThread(browser, server) {
  const { page, log } = await open(browser, server.url + "longtasks-test.html", server.url, {
    viewport: VIEW,
    before: async (p) => {
      await p.route("**/longtasks-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" }));
      await p.route("**/train-worker.js", (r) => r.fulfill({ status: 404, body: "" }));
    },
  });
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot?.querySelectorAll("svg.maps .panel").length > 0
    && document.getElementById("simplex").lastRenderMs > 0, null, { timeout: 30000 });
  const { during } = await trainAndDrag(page, "main");
  const p = during.filter((e) => e[0] === "p").length;
  // blocked input would come all at once after the run: one or two switches
  check(p >= 3 && switches(during) >= Math.min(10, p), `main: pointer events are handled between training slices (${switches(during)} switches, ${p} slices during the drag)`);
  await cleanBut404(page, log, "main: ");
  await page.close();
}

async function worker(browser, server) {
  const { page, log } = await open(browser, server.url + "longtasks-test.html", server.url, {
    viewport: VIEW,
    before: (p) => p.route("**/longtasks-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" })),
  });
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot?.querySelectorAll("svg.maps .panel").length > 0
    && document.getElementById("simplex").lastRenderMs > 0, null, { timeout: 30000 });
  const { during } = await trainAndDrag(page, "worker");
  check(during.some((e) => e[0] === "p") && during.some((e) => e[0] === "m"), "worker: progress arrives while the drag is handled");
  await patterns(page);
  await cleanBut404(page, log, "worker page: ");
  await page.close();
}

// (c) sx-patterns' sliced job at n = 2048, a key pressed meanwhile, the numbers at n = 724.
async function patterns(page) {
  await page.locator("#patterns").scrollIntoViewIfNeeded();
  await page.evaluate(() => {
    const el = document.getElementById("patterns"), box = el.shadowRoot.querySelector(".panels");
    window.__pj = { slices: [], long: [], key: null };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__pj.long.push([e.startTime, e.duration]); }).observe({ type: "longtask" });
    const next = el._slices; // called at the end of each slice that leaves work for the next
    el._slices = function () { window.__pj.slices.push(performance.now()); return next.call(this); };
    el.shadowRoot.querySelector("input[type=range]").addEventListener("keydown", () => {
      window.__pj.key = { busy: box.getAttribute("aria-busy"), job: el._jobKey.split("|")[0], pending: Boolean(el._job) };
    });
    el.shadowRoot.querySelector("input[type=range]").focus();
    el.n = 2048;
  });
  await page.waitForFunction(() => document.getElementById("patterns").shadowRoot.querySelector(".panels[aria-busy=true]"), null, { timeout: 10000 });
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction(() => !document.getElementById("patterns").shadowRoot.querySelector(".panels[aria-busy]"), null, { timeout: 120000 });
  await frames(page, 2);
  const r = await page.evaluate(() => ({ ...window.__pj, n: document.getElementById("patterns").result.n }));
  console.log(`longtasks: sx-patterns n = 2048, then 1448: ${r.slices.length} slices, ${r.long.length} long tasks, longest ${Math.max(0, ...r.long.map(([, d]) => d)).toFixed(0)} ms`);
  check(r.key && r.key.busy === "true" && r.key.job === "2048" && r.key.pending, `a key pressed while n = 2048 computes is handled meanwhile (${JSON.stringify(r.key)})`);
  check(r.n === 1448 && r.slices.length >= 4, `the key moved n on to 1448, computed in slices (n ${r.n}, ${r.slices.length} slices)`);
  const two = crowded(r.long, r.slices);
  check(two.length === 0, `no long task holds two of sx-patterns' slices (got ${two.length} of ${r.long.length})`);

  // n = 724: sliced; its numbers against one call each in the page
  const same = await page.evaluate(async () => {
    const el = document.getElementById("patterns");
    el.n = 724;
    await new Promise((res) => { const t = setInterval(() => { if (el.result.n === 724 && !el._job) { clearInterval(t); res(); } }, 50); });
    const sx = await import("/simplexity.js");
    const { mulberry32 } = await import("/viz/mulberry32.js");
    const n = 724, DH = 16, r = mulberry32(el.seed + 1), g = () => (r() + r() + r() - 1.5) * 2;
    const q = Float32Array.from({ length: n * DH }, g), k = Float32Array.from(q, (x) => x + 0.5 * g());
    const dense = ["softmax", "entmax15", "sparsemax"].map((m) => sx.attention(q, k, k, { tq: n, mapping: m, weights: true }).weights);
    const mask = sx.attentionPattern(n, el.result.pattern, { k }).mask;
    const kept = dense.map((w) => { let s = 0; for (let e = 0; e < n * n; e++) if (mask[e]) s += w[e]; return s / n; });
    return { got: el.result.kept[el.result.pattern.kind], kept, slices: window.__pj.slices.length };
  });
  check(same.got.every((v, m) => Math.abs(v - same.kept[m]) <= 1e-9 * Math.max(1, same.kept[m])),
    `n = 724, computed in slices: the dense mass kept is attention()'s on attentionPattern()'s pairs (${same.got} vs ${same.kept})`);
}

// checkClean, but for Chromium's console line for the 404 of train-worker.js (the fallback's cause).
async function cleanBut404(page, log, prefix) {
  const csp = await page.evaluate(() => window.__csp);
  const errors = log.errors.filter((e) => !/404|Failed to load|Failed to fetch dynamically imported module.*train-worker/.test(e));
  check(csp.length === 0, `${prefix}zero CSP violations (got ${JSON.stringify(csp)})`);
  check(errors.length === 0, `${prefix}zero console errors but the 404 (got ${JSON.stringify(errors)})`);
  check(log.foreign.length === 0, `${prefix}no request outside the page's origin (got ${JSON.stringify(log.foreign)})`);
}

await runSuite("longtasks", async (browser, server) => {
  await mainThread(browser, server);
  await worker(browser, server);
});
