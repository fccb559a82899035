// rationale.mjs - <sx-rationale> (structured.html, section 26) in real Chromium. Train (pressed
// with the keyboard) starts rationale-worker.js; progress events arrive and the four methods'
// losses come one per step (counted, no timing asserted); Stop pauses it at the step reached. The
// selections drawn (every cell's weight, every predicted label) equal Rationale.predict of the
// same four held-out examples, and the live table's numbers equal Rationale.evaluate on make
// rationales' 2000 held-out examples, both of four models trained here in the page with the same
// seed for the same steps (whose losses equal the run's too); Resume goes on, to the end, checked
// the same way. The figures beside them are the README's table. With rationale-worker.js missing
// the widget trains on the main thread. axe clean, zero console errors, CSP violations and
// foreign requests.
import fs from "node:fs";
import path from "node:path";
import { check, echoPasses, open, ready, runSuite, checkClean, ROOT } from "./harness.mjs";
import { audit } from "./axe.mjs";

echoPasses();

const TOTAL = 200, STOP_AT = 40;

// Four models trained in the page (the library alone) for `steps` steps of seed: their losses, the
// selections of the first four held-out examples and the figures on the 2000 held-out ones.
const library = (page, seed, steps) => page.evaluate(async ({ seed, steps }) => {
  const { init, Rationale } = await import("/simplexity.js");
  await init();
  const held = Rationale.task(2000, { split: "test", seed: 1 });
  return Rationale.methods.map((method) => {
    const m = new Rationale({ method, seed, maxBatch: 32, sparsity: 0.05 });
    const { losses } = m.train({ steps, lr: 0.01, seed: 1 });
    const { weights, labels } = m.predict(held.tokens.subarray(0, 48));
    const figures = m.evaluate(held);
    m.free();
    return { method, losses: Array.from(losses), weights: Array.from(weights), labels: Array.from(labels), figures };
  });
}, { seed, steps });

// What the widget draws: per method, the 48 cells' weights (example-major) and the 4 labels; the table.
const drawn = (page) => page.$eval("#rationale", (el) => {
  const r = el.shadowRoot, methods = ["sparsemax", "entmax15", "hardkuma", "reinforce"];
  return {
    weights: methods.map((m) => [...r.querySelectorAll("g[data-example]")].flatMap((g) => {
      const cells = [...g.querySelectorAll(`g.sel[data-method="${m}"] [data-t]`)].sort((a, b) => a.dataset.t - b.dataset.t);
      return cells.map((c) => Number(c.getAttribute("data-w")));
    })),
    labels: methods.map((m) => [...r.querySelectorAll("g[data-example]")].map((g) => Number(g.querySelector(`g.sel[data-method="${m}"] [data-label]`)?.getAttribute("data-label")))),
    table: methods.map((m) => [...r.querySelectorAll(`tr[data-method="${m}"] td`)].map((td) => ({
      figure: td.dataset.figure, v: Number(td.querySelector(".live").getAttribute("data-v")), text: td.querySelector(".live").textContent,
      ref: Number(td.querySelector(".ref").textContent) }))),
  };
});

function sameAsLibrary(d, lib, when) {
  lib.forEach((l, i) => {
    const bad = d.weights[i].filter((w, k) => w !== l.weights[k]).length;
    check(d.weights[i].length === 48 && bad === 0, `${when}, ${l.method}: the 48 cells drawn are Rationale.predict's weights (${d.weights[i].length} cells, ${bad} differ)`);
    check(JSON.stringify(d.labels[i]) === JSON.stringify(l.labels), `${when}, ${l.method}: the labels drawn are predict's (${d.labels[i]} vs ${l.labels})`);
    const row = d.table[i], keys = ["accuracy", "precision", "recall", "fraction"];
    check(row.length === 4 && row.every((c, k) => c.figure === keys[k] && c.v === l.figures[keys[k]] && c.text === (100 * l.figures[keys[k]]).toFixed(1)),
      `${when}, ${l.method}: the table's figures are Rationale.evaluate's (${row.map((c) => c.text)} vs ${keys.map((k) => l.figures[k])})`);
  });
}

const focusOf = (page) => page.evaluate(() => {
  const f = document.activeElement && document.activeElement.shadowRoot && document.activeElement.shadowRoot.activeElement;
  return f ? `${f.localName} ${f.textContent.trim().slice(0, 30)}` : "";
});

// The README's table (make rationales): per method, the four means in %.
function readmeTable() {
  const md = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const block = md.slice(md.indexOf("<!-- rationales:start -->"), md.indexOf("<!-- rationales:end -->"));
  return block.split("\n").filter((l) => /^\| (sparsemax|1\.5-entmax|HardKuma|Bernoulli)/.test(l))
    .map((l) => l.split("|").slice(2, 6).map((c) => Number(c.trim().split(" ")[0])));
}

await runSuite("rationale", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "structured.html#rationale-section", server.url);
  await ready(page);
  await page.waitForFunction(() => { const el = document.getElementById("rationale"); return el && el.lastRenderMs > 0 && el.shadowRoot.querySelector("svg.picture text"); }, null, { timeout: 30000 });
  await page.evaluate((total) => {
    const el = document.getElementById("rationale");
    el.steps = total;
    el.seed = 2;
    window.__ra = { progress: 0, states: [] };
    el.addEventListener("sx-rationale-progress", () => window.__ra.progress++);
    el.addEventListener("sx-rationale-state", (e) => window.__ra.states.push(e.detail.state));
  }, TOTAL);

  // ---- the README's figures beside the live ones
  const readme = readmeTable(), before = await drawn(page);
  check(readme.length === 4 && before.table.every((row, i) => row.every((c, k) => c.ref === readme[i][k])),
    `the reference figures drawn are the README's table (${JSON.stringify(before.table.map((r) => r.map((c) => c.ref)))} vs ${JSON.stringify(readme)})`);
  check(before.table.flat().every((c) => c.text === "–") && before.weights.every((w) => w.length === 0), "before Train: no figures, no selections");

  // ---- keyboard: Tab from the page into the widget reaches Train first
  await page.focus("#rationale");
  await page.keyboard.press("Tab");
  check(await focusOf(page) === "button Train", `keyboard: the first stop is Train (${await focusOf(page)})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.getElementById("rationale").training?.step >= n, STOP_AT, { timeout: 120000 });
  check(await focusOf(page) === "button Stop", `keyboard: the button now says Stop (${await focusOf(page)})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("rationale").training?.state === "paused", null, { timeout: 60000 });

  const t = await page.evaluate(() => document.getElementById("rationale").training);
  const ra = await page.evaluate(() => window.__ra);
  const workers = await page.evaluate(() => window.__workers.map((w) => w.url));
  check(t.thread === "worker" && workers.some((u) => u.endsWith("/rationale-worker.js")), `trains in rationale-worker.js (${t.thread}, ${workers.join(" ")})`);
  check(ra.progress >= 2, `progress events while training (${ra.progress})`);
  check(t.step >= STOP_AT && t.step < TOTAL && t.seed === 2 && t.total === TOTAL, `Stop paused the run before its end (step ${t.step} of ${t.total})`);
  check(t.losses.every((l) => l.length === t.step), `a loss per step of each method (${t.losses.map((l) => l.length)} at step ${t.step})`);
  check(JSON.stringify(ra.states.slice(0, 3)) === JSON.stringify(["training", "stopping", "paused"]), `states ${ra.states.join(" ")}`);
  check(t.snapshot.step === t.step, `the selections and figures drawn are of the step reached (${t.snapshot.step})`);
  const stopped = t.step;
  await page.waitForTimeout(300);
  check((await page.evaluate(() => document.getElementById("rationale").training.step)) === stopped, "paused: no step taken after Stop");

  // ---- the selections and the table are the library's, of models trained here for as many steps
  const lib = await library(page, 2, t.step);
  lib.forEach((l, i) => check(t.losses[i].every((v, k) => v === l.losses[k]), `${l.method}: the run's losses are Rationale.train's of seed 2`));
  sameAsLibrary(await drawn(page), lib, `paused at step ${t.step}`);

  // ---- Resume goes on from the step reached, to the end
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("rationale").training?.state === "done", null, { timeout: 120000 });
  const t2 = await page.evaluate(() => document.getElementById("rationale").training);
  check(t2.step === TOTAL && t2.losses[0].slice(0, stopped).every((v, i) => v === t.losses[0][i]), `Resume keeps the steps taken and goes on to ${t2.step}`);
  const lib2 = await library(page, 2, TOTAL);
  const d2 = await drawn(page);
  sameAsLibrary(d2, lib2, `done at step ${TOTAL}`);
  check(lib2.every((l) => l.figures.accuracy > 0.8), `after ${TOTAL} steps every method classifies most held-out examples (${lib2.map((l) => l.figures.accuracy)})`);

  const axe = await audit(page);
  check(axe.length === 0, `axe: no violations (${axe.join(" | ")})`);
  await checkClean(page, log, "structured.html: ");
  await page.close();

  // ---- without rationale-worker.js: the main thread, the same run
  const { page: p2, log: log2 } = await open(browser, server.url + "structured.html#rationale-section", server.url, {
    before: (pg) => pg.route("**/rationale-worker.js", (route) => route.fulfill({ status: 404, body: "" })),
  });
  await ready(p2);
  await p2.waitForFunction(() => document.getElementById("rationale")?.lastRenderMs > 0, null, { timeout: 30000 });
  await p2.evaluate(() => { const el = document.getElementById("rationale"); el.steps = 50; el.seed = 2; el.train(); });
  await p2.waitForFunction(() => document.getElementById("rationale").training?.state === "done", null, { timeout: 120000 });
  const t3 = await p2.evaluate(() => document.getElementById("rationale").training);
  check(t3.thread === "main" && t3.step === 50, `no worker file: trained on the main thread (${t3.thread}, step ${t3.step})`);
  sameAsLibrary(await drawn(p2), await library(p2, 2, 50), "main thread, done at step 50");
  // (the worker's 404 is the console's one error: the fallback's cause, not a fault)
  log2.errors = log2.errors.filter((e) => !/404|rationale-worker/.test(e));
  await checkClean(p2, log2, "structured.html, no worker file: ");
  await p2.close();
});
