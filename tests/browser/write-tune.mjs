// <sx-write>'s "Fine-tune on your text" in real Chromium, on a page of its own served beside the
// library: bad input (empty text, characters the model does not have) answered in the widget's
// status line, naming what was dropped, and no run started; a few KB of pasted text (the recipe of
// tests/js/tune-corpus.mjs) trained for 60 steps in write-tune-worker.js, with the keyboard: the
// disclosure opened and Start pressed by Enter; progress events arrive, the train loss at the end is
// below the start's by a clear margin (fixed seed), the held-out loss is reported and falls, the
// sample changes; done, the widget writes with the fine-tuned model (its drawn distribution is
// TextModel.next's from the weights it kept); Keep stores it, and after a reload the model menu
// lists it and writes with it again; "Reset to shipped" goes back; Forget deletes it for good.
// A second, longer run: Stop pauses it (nothing more arrives), Resume goes on. axe clean with the
// disclosure open and trained, usable at phone width, zero console errors, no foreign request.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";
import { audit } from "./axe.mjs";
import { recipe } from "../js/tune-corpus.mjs";

echoPasses();

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-write fine-tuning</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-write fine-tuning</h1>
<button id="before">before</button>
<sx-write id="w" model="softmax" prompt="Put the " steps="0" seed="2"></sx-write>
</main></body></html>`;
const TEXT = recipe(4000);

const drawn = (page) => page.waitForFunction(() => {
  const e = document.getElementById("w");
  return e.result && e.shadowRoot.querySelector("svg.dist g.cell");
}, null, { timeout: 30000 });
const listen = (page) => page.evaluate(() => {
  window.__tune = [];
  document.getElementById("w").addEventListener("sx-write-tune", (e) => window.__tune.push(e.detail));
});
const status = (page) => page.$eval("#w", (e) => e.shadowRoot.getElementById("tune-msg").textContent);
const focusOf = (page) => page.evaluate(() => { const x = document.activeElement.shadowRoot?.activeElement; return x ? `${x.tagName.toLowerCase()} ${x.textContent.trim()}`.trim() : ""; });

// The drawn distribution against TextModel.next on the drawn context, from the bytes of the kept
// record (IndexedDB) of the model the menu shows.
const sameAsKept = (page) => page.evaluate(async () => {
  const sx = await import("/simplexity.js");
  const el = document.getElementById("w"), r = el.result;
  const recs = await new Promise((resolve, reject) => {
    const q = indexedDB.open("simplexity");
    q.onsuccess = () => { const g = q.result.transaction("models").objectStore("models").getAll(); g.onsuccess = () => { q.result.close(); resolve(g.result); }; g.onerror = reject; };
    q.onerror = reject;
  });
  const rec = recs.find((x) => x.key.startsWith("text:"));
  const tm = sx.TextModel.load(rec.bytes, rec.vocab), api = tm.next(r.context);
  const cells = [...el.shadowRoot.querySelectorAll("svg.dist g.cell")];
  const ok = cells.length === tm.chars.length && cells.every((g) => Number(g.getAttribute("data-p")) === api.probs[Number(g.getAttribute("data-t"))]);
  tm.free();
  return { ok, menu: el.shadowRoot.querySelector("select").selectedOptions[0].textContent, records: recs.length };
});

await runSuite("write-tune", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "write-tune-test.html", server.url, {
    before: (p) => p.route("**/write-tune-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" })),
  });
  await drawn(page);
  await listen(page);
  const shipped = await page.$eval("#w", (e) => Array.from(e.result.probs));

  // ---- keyboard: Tab reaches the disclosure; Enter opens it
  await page.focus("#before");
  let stops = [];
  for (let k = 0; k < 14 && !stops.at(-1)?.startsWith("summary"); k++) { await page.keyboard.press("Tab"); stops.push(await focusOf(page)); }
  check(stops.at(-1) === "summary Fine-tune on your text", `keyboard: Tab reaches "Fine-tune on your text" (${stops.join(" | ")})`);
  await page.keyboard.press("Enter");
  check(await page.$eval("#w", (e) => e.shadowRoot.querySelector("details.tune").open), "keyboard: Enter opens it");

  // ---- bad input: a clear message, no run
  const area = page.locator("#w textarea");
  const start = page.locator("#w button", { hasText: /^Start$/ }).last();
  const said = async () => { await page.waitForFunction(() => document.getElementById("w").shadowRoot.getElementById("tune-msg").textContent, null, { timeout: 10000 }); return status(page); };
  await area.fill("");
  await start.click();
  const empty = await said();
  check(empty === "the text is empty: paste at least 256", `empty text: "${empty}"`);
  await area.fill("\u00e9t\u00e9 \u00e0 Caf\u00e9 ".repeat(30));
  check(await status(page) === "", "typing clears the message");
  await start.click();
  const bad = await said();
  check(/^only \d+ of its characters are the model's: paste at least 256 \(\d+ dropped, not among the model's 96 characters: "é" ×90, "à" ×30\)$/.test(bad), `unknown characters: which and how many were dropped ("${bad}")`);
  check(await page.$eval("#w", (e) => e.tuning === null && e.shadowRoot.querySelector("textarea").getAttribute("aria-invalid") === "true"), "bad input: no run, the text box marked invalid");

  // ---- a run in the worker, started with the keyboard
  await area.fill(TEXT);
  await page.locator("#w input[type=number]").nth(1).fill("60");
  await page.locator("#w input[type=number]").nth(2).fill("3");
  await area.focus();
  stops = [];
  for (let k = 0; k < 6 && stops.at(-1) !== "button Start"; k++) { await page.keyboard.press("Tab"); stops.push(await focusOf(page)); }
  check(stops.at(-1) === "button Start" && stops.some((x) => x.startsWith("select 0.0001")), `keyboard: Tab from the text reaches steps, seed, learning rate, Start (${stops.join(" | ")})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("w").tuning?.state === "done", null, { timeout: 120000 });
  const t = await page.$eval("#w", (e) => e.tuning);
  const events = await page.evaluate(() => window.__tune);
  const workers = await page.evaluate(() => window.__workers.map((w) => w.url));
  check(t.thread === "worker" && workers.some((u) => u.endsWith("/write-tune-worker.js")), `trains in write-tune-worker.js (${t.thread}, ${workers.join(" ")})`);
  check(events.filter((e) => e.state === "training").length >= 3 && events.at(-1).state === "done", `progress events arrive (${events.length}: ${[...new Set(events.map((e) => e.state))].join(", ")})`);
  const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
  const l0 = mean(t.losses.slice(0, 5)), l1 = mean(t.losses.slice(-5));
  check(t.losses.length === 60 && l1 < 0.7 * l0, `the train loss falls by a real margin over 60 steps, seed 3 (${(l0 / Math.LN2).toFixed(3)} -> ${(l1 / Math.LN2).toFixed(3)} bits/char)`);
  check(t.held[0].step === 0 && t.held.at(-1).step === 60 && t.held.at(-1).loss < 0.85 * t.held[0].loss, `held-out loss measured from step 0 and falling (${(t.held[0].loss / Math.LN2).toFixed(3)} -> ${(t.held.at(-1).loss / Math.LN2).toFixed(3)} bits/char)`);
  const read = await page.$eval("#w", (e) => e.shadowRoot.querySelector("details.tune p.read").textContent);
  check(/^Step 60 of 60 in a Web Worker, done: train \d\.\d{3} bits\/char, held-out \d\.\d{3} bits\/char/.test(read), `the readout: step, train and held-out bits per char ("${read.slice(0, 110)}")`);
  const sample = await page.$eval("#w", (e) => e.shadowRoot.querySelector("p.sample").textContent);
  check(/^sample at step 60: Put the /.test(sample), `the sample shown is the last step's ("${sample.slice(0, 60)}")`);
  const curve = await page.$eval("#w", (e) => [e.shadowRoot.querySelectorAll("svg.curve path").length, e.shadowRoot.querySelectorAll("svg.curve circle.hod").length]);
  check(curve[0] === 3 && curve[1] === t.held.length, `the curve: train, its mean, held-out with a dot per measure (${curve})`);
  const tuned = await page.$eval("#w", (e) => [Array.from(e.result.probs), e.shadowRoot.querySelector("select").value]);
  check(tuned[1] === "own:1" && tuned[0].some((p, i) => p !== shipped[i]), `done: the widget writes with the fine-tuned model (menu ${tuned[1]})`);
  const who = await page.$eval("#w", (e) => e.result.model);
  check(who.shipped === false && who.name === "fine-tuned softmax, 60 steps" && who.kind === "softmax" && who.steps === 60 && who.lr === 0.001 && who.key === null && t.lr === 0.001,
    `el.result.model says a fine-tuned model writes, its steps and learning rate (${JSON.stringify(who)})`);

  // ---- axe, with the disclosure open and a run drawn
  const v = await audit(page);
  check(v.length === 0, `axe: no violation with the fine-tuning open (got ${v.length}: ${v.join(" | ")})`);

  // ---- Keep: stored; the reload lists it and writes with it
  await page.locator("#w button", { hasText: /^Keep$/ }).click();
  await page.waitForFunction(() => window.__tune.at(-1).state === "kept", null, { timeout: 10000 });
  let k = await sameAsKept(page);
  check(k.ok && k.records === 1 && /kept$/.test(k.menu), `Keep: one record in IndexedDB, the drawing is its model's (${k.menu})`);
  await page.waitForFunction(() => document.getElementById("w").result.model.key !== null, null, { timeout: 5000 }).catch(() => {});
  const keptAs = await page.$eval("#w", (e) => e.result.model);
  check(/^text:\d+$/.test(keptAs.key) && keptAs.lr === 0.001, `kept: el.result.model has the store's key (${keptAs.key})`);
  await page.reload();
  await drawn(page);
  await page.waitForFunction(() => document.getElementById("w").shadowRoot.querySelector("optgroup option"), null, { timeout: 10000 });
  const listed = await page.$eval("#w", (e) => [...e.shadowRoot.querySelectorAll("optgroup option")].map((o) => o.textContent));
  check(listed.length === 1 && listed[0] === "fine-tuned softmax, 60 steps, kept", `after a reload the menu lists the kept model (${JSON.stringify(listed)})`);
  await page.locator("#w select").first().selectOption({ label: listed[0] });
  await frames(page);
  k = await sameAsKept(page);
  check(k.ok, "picked from the menu after the reload, it writes with the kept weights");
  await page.locator("#w summary").click();
  await page.locator("#w button", { hasText: "Reset to shipped" }).click();
  await frames(page);
  const back = await page.$eval("#w", (e) => [e.shadowRoot.querySelector("select").value, Array.from(e.result.probs)]);
  check(back[0] === "softmax" && back[1].every((p, i) => p === shipped[i]), "Reset to shipped: the shipped model again, the same distribution");
  const shippedAs = await page.$eval("#w", (e) => e.result.model);
  check(shippedAs.shipped === true && shippedAs.name === "devil-softmax" && shippedAs.key === null && shippedAs.lr === null, `el.result.model says the shipped model again (${JSON.stringify(shippedAs)})`);

  // ---- Stop and Resume on a longer run (from the shipped model)
  await listen(page);
  await area.fill(TEXT);
  await page.locator("#w input[type=number]").nth(1).fill("3000");
  await start.click();
  await page.waitForFunction(() => document.getElementById("w").tuning?.step >= 5, null, { timeout: 60000 });
  await page.locator("#w button", { hasText: /^Stop$/ }).click();
  await page.waitForFunction(() => document.getElementById("w").tuning?.state === "paused", null, { timeout: 30000 });
  const p1 = await page.$eval("#w", (e) => e.tuning.step);
  await page.waitForTimeout(500);
  const p2 = await page.$eval("#w", (e) => [e.tuning.step, e.shadowRoot.querySelector("details.tune button").textContent, e.shadowRoot.querySelector("select").value]);
  const states = [...new Set((await page.evaluate(() => window.__tune)).map((e) => e.state))];
  check(p1 < 3000 && p2[0] === p1 && p2[1] === "Resume" && JSON.stringify(states) === '["training","stopping","paused"]', `Stop pauses the run at step ${p1}: nothing more arrives, the button says Resume (${states.join(", ")})`);
  const tp = await page.$eval("#w", (e) => e.tuning);
  check(p2[2] === "own:2" && tp.held.at(-1).step === p1 && tp.sample.step === p1, `paused: the widget writes with the weights so far (${p2[2]}), held-out loss and sample measured at step ${p1}`);
  await page.locator("#w button", { hasText: /^Resume$/ }).click();
  await page.waitForFunction((n) => document.getElementById("w").tuning?.step > n + 3, p1, { timeout: 60000 });
  check(true, "Resume goes on from the step reached");
  await page.locator("#w button", { hasText: /^Stop$/ }).click();
  await page.waitForFunction(() => document.getElementById("w").tuning?.state === "paused", null, { timeout: 30000 });

  // ---- phone width: the disclosure fits
  await page.setViewportSize({ width: 360, height: 800 });
  await frames(page);
  const fit = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  check(fit[0] <= fit[1], `phone width: no horizontal scrolling (${fit[0]} <= ${fit[1]})`);
  await fs.mkdir(SHOTS, { recursive: true });
  await page.locator("#w details.tune").screenshot({ path: path.join(SHOTS, "write-tune.png") });

  // ---- Forget: gone for good
  await page.locator("#w select").first().selectOption({ label: "fine-tuned softmax, 60 steps, kept" });
  await page.locator("#w button", { hasText: /^Forget$/ }).click();
  await page.reload();
  await drawn(page);
  await page.waitForTimeout(500);
  check(await page.$eval("#w", (e) => e.shadowRoot.querySelectorAll("optgroup option").length) === 0, "Forget: after a reload nothing is listed");
  await checkClean(page, log);

  // ---- where no worker can start (a CSP, a host without the file): the same run on this thread
  const main = await open(browser, server.url + "write-tune-test.html", server.url, {
    before: async (p) => {
      await p.route("**/write-tune-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" }));
      await p.addInitScript(() => { window.Worker = class { constructor() { throw new Error("no workers here"); } }; });
    },
  });
  await drawn(main.page);
  await main.page.locator("#w summary").click();
  await main.page.locator("#w textarea").fill(TEXT);
  await main.page.locator("#w input[type=number]").nth(1).fill("20");
  await main.page.locator("#w details.tune select").selectOption("0.003");
  await main.page.locator("#w button", { hasText: /^Start$/ }).last().click();
  await main.page.waitForFunction(() => document.getElementById("w").tuning?.state === "done", null, { timeout: 120000 });
  const m = await main.page.$eval("#w", (e) => [e.tuning, e.shadowRoot.querySelector("details.tune p.read").textContent, e.result.model]);
  check(m[0].lr === 0.003 && m[2].lr === 0.003 && m[2].name === "fine-tuned softmax, 20 steps", `the learning rate picked (0.003) is the run's and the model's (${m[0].lr}, ${m[2].lr})`);
  check(m[0].thread === "main" && m[0].losses.length === 20 && mean(m[0].losses.slice(-5)) < mean(m[0].losses.slice(0, 5)) && /^Step 20 of 20 on this page, done/.test(m[1]),
    `no worker: it trains on the page's main thread and says so ("${m[1].slice(0, 60)}")`);
  await checkClean(main.page, main.log, "main thread: ");
});
