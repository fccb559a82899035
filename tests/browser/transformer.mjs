// Section 11 of the built page (dist/site) in real Chromium: <sx-attention> fetches no model
// until it comes into view, then only the file of the model it shows; the shipped models give
// the task's right answer for a typed input; switching models changes the maps (softmax: no
// exact zero; learned alpha: dots); the maps are keyboard operable; a bad character (under the
// field) and bad attributes give messages, not exceptions; "Train from scratch" runs steps in a Web Worker
// (progress, loss curve, heatmaps), Stop ends it, and no worker is left behind; a worker error
// reaches the page. Zero console errors, zero CSP violations, no request outside the origin.
// With train-worker.js missing (404) it trains on the main thread in slices, and says so. The
// page draws while it trains (frames between its progress events: counted, never timed).
// Screenshots in build/screenshots/ (attention-*.png).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startServer } from "../../web/site/serve.mjs";
import { SITE, SHOTS, check, open, ready, frames, trainWatchingFrames, runSuite, checkClean, pageWith } from "./harness.mjs";

const WINDOW = 40; // progress events watched for frames while the worker trains (about 2 s of its slices)

// What the widget shows, read from its shadow root.
const state = (page, id = "attention") => page.$eval(`#${id}`, (e) => {
  const r = e.shadowRoot;
  const codes = [...r.querySelectorAll(".io code")].map((c) => c.textContent);
  return {
    input: codes[0], output: codes[1], io: r.querySelector(".io").textContent,
    source: r.querySelector(".source").textContent, msg: r.querySelector(".msg").hidden ? "" : r.querySelector(".msg").textContent,
    panels: r.querySelectorAll("svg.maps .panel").length, dots: r.querySelectorAll("svg.maps .panel path.zeros").length,
    cells: [...r.querySelectorAll("svg.maps .panel rect.cell")].map((c) => c.getAttribute("fill-opacity")).join(","),
    zerosCol: [...r.querySelectorAll("tbody tr")].map((tr) => tr.cells[6].textContent),
    task: r.querySelectorAll("select")[0].value, kind: r.querySelectorAll("select")[1].value,
    tstatus: r.querySelector(".tstatus").textContent, terror: r.querySelector(".tstatus").classList.contains("error"),
    progress: Number(r.querySelector("progress").value), lossPaths: r.querySelectorAll("svg.loss path").length,
    readout: r.querySelector(".readout").textContent, hint: r.querySelector(".hint").textContent,
    invalid: r.querySelector("input[type=text]").getAttribute("aria-invalid"),
  };
});

async function typeInput(page, text) {
  const field = page.locator("#attention input[type=text]");
  await field.fill(text);
  await frames(page, 3);
}

// The workers of the page once their termination has reached playwright (terminate() is
// asynchronous at the browser level): waits up to 5 s for the count to drop to `want`.
async function workersAfter(page, want = 0) {
  for (let i = 0; i < 100 && page.workers().length > want; i++) await new Promise((r) => setTimeout(r, 50));
  return page.workers().length;
}

// Resolves with the detail of the next sx-attention-trained event (or rejects after ms).
const trained = (page, ms) => page.evaluate((t) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("no sx-attention-trained event")), t);
  document.getElementById("attention").addEventListener("sx-attention-trained", (e) => { clearTimeout(timer); resolve(e.detail); }, { once: true });
}), ms);

async function checkSection(browser, server) {
  // its chapter in a short viewport, so section 18's widget is well below the fold at first (the
  // chapter's title, contents and the section's text above it)
  const { page, log } = await open(browser, server.url + pageWith("attention"), server.url, { viewport: { width: 1100, height: 360 } });
  // these checks are about <sx-attention>'s own fetches (were another widget on the chapter to
  // show reverse-entmax15.sxm, as <sx-explain> did on the one-page site, it would fetch it itself)
  const all = () => log.requests.filter((u) => u.endsWith(".sxm")).map((u) => u.slice(server.url.length));
  const models = () => all().filter((f) => f !== "models/reverse-entmax15.sxm");
  await ready(page);
  await frames(page, 3);

  // ---- lazy: nothing fetched while the section is out of view
  const below = await page.$eval("#attention", (e) => e.getBoundingClientRect().top - window.innerHeight);
  check(below > 400, `section 18 starts well below the fold (${below} px)`);
  await page.waitForTimeout(300);
  check(all().length === 0, `no model fetched before section 18 is shown (got ${JSON.stringify(all())})`);
  check((await state(page)).source.includes("loads when"), "the widget says the model loads when shown");

  // ---- shown: the default model (reverse, learned alpha), and only its file
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  let s = await state(page);
  check(JSON.stringify(models()) === JSON.stringify(["models/reverse-alpha.sxm"]), `only reverse-alpha.sxm fetched (got ${JSON.stringify(models())})`);
  check(s.panels === 24, `24 heatmaps: 3 kinds x 2 layers x 4 heads (got ${s.panels})`);
  check(s.input === "abcdefgh" && s.output === "hgfedcba" && s.io.includes("✓"), `default input reversed (got ${s.io})`);
  check(s.dots > 0, `learned alpha: exact zeros drawn as dots (${s.dots} panels with dots)`);

  // ---- typed input: the right answer
  await typeInput(page, "abcd");
  s = await state(page);
  check(s.input === "abcd" && s.output === "dcba" && s.io.includes("✓ correct"), `reverse "abcd" -> "dcba" (got ${s.io})`);
  check(await page.$eval("#attention", (e) => e.getAttribute("input")) === "abcd", "the input attribute reflects the typed text");
  await fs.mkdir(SHOTS, { recursive: true });
  await page.locator("#attention").screenshot({ path: path.join(SHOTS, "attention-reverse-alpha.png") });

  // ---- a bad character: a message under the field, the last good input stays, no exception
  await typeInput(page, "ab!");
  s = await state(page);
  check(s.hint.includes("“!” (character 3) is not one of this task's characters: a–j.") && s.hint.includes("The maps still show “abcd”") && s.invalid === "true",
    `bad character message under the field (got "${s.hint}", aria-invalid ${s.invalid})`);
  check(s.msg === "", `and not in the message line under it all (got "${s.msg}")`);
  check(s.input === "abcd" && s.output === "dcba", `the last good input stays (got ${s.io})`);
  await typeInput(page, "hgf");
  s = await state(page);
  check(s.hint.startsWith("Up to 11 characters from a–j") && s.invalid === "false" && s.output === "fgh", `the message goes with a good input (got "${s.hint}", ${s.io})`);

  // ---- switching models changes the maps; softmax has no exact zero
  const alphaCells = s.cells, alphaZeros = s.zerosCol;
  await page.locator("#attention select >> nth=1").selectOption("softmax");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".source").textContent.includes("The shipped softmax"), null, { timeout: 15000 });
  await frames(page);
  s = await state(page);
  check(s.kind === "softmax" && s.output === "fgh", `softmax model answers too (got ${s.io})`);
  check(s.cells !== alphaCells, "switching to softmax changes the maps");
  check(s.dots === 0 && s.zerosCol.every((z) => z === "0.0%"), `softmax: no exact zero anywhere (dots ${s.dots}, ${s.zerosCol.join(" ")})`);
  check(alphaZeros.some((z) => z !== "0.0%"), "learned alpha: some heads have exact zeros in the table");
  await page.locator("#attention select >> nth=1").selectOption("entmax15");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".source").textContent.includes("The shipped 1.5-entmax"), null, { timeout: 15000 });
  await frames(page);
  s = await state(page);
  check(s.dots > 0 && s.output === "fgh", `1.5-entmax: exact zeros, right answer (dots ${s.dots}, ${s.io})`);

  // ---- another task: the date, typed
  await page.locator("#attention select >> nth=0").selectOption("date");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".source").textContent.includes("date-entmax15"), null, { timeout: 15000 });
  await typeInput(page, "1 Jan 2000");
  s = await state(page);
  check(s.output === "2000-01-01" && s.io.includes("✓"), `date "1 Jan 2000" -> "2000-01-01" (got ${s.io})`);
  await page.locator("#attention").screenshot({ path: path.join(SHOTS, "attention-date-entmax15.png") });
  const fetched = all();
  check(JSON.stringify([...fetched].sort()) === JSON.stringify(["models/date-entmax15.sxm", "models/reverse-alpha.sxm", "models/reverse-entmax15.sxm", "models/reverse-softmax.sxm"]),
    `only the shown models' files fetched (sx-attention's and section 19's), once each (got ${JSON.stringify(fetched)})`);

  // ---- the viewport shrinks under the drawn maps: they redraw two heads a row, and back
  const layout = () => page.$eval("#attention", (e) => ({ width: e.clientWidth, viewBox: e.shadowRoot.querySelector("svg.maps").getAttribute("viewBox").split(" ").map(Number)[2] }));
  const wide = await layout();
  await page.setViewportSize({ width: 480, height: 700 });
  await frames(page, 4);
  const thin = await layout();
  await page.setViewportSize({ width: 1100, height: 700 });
  await frames(page, 4);
  const wideAgain = await layout();
  check(wide.viewBox === 724 && thin.width < 560 && thin.viewBox === 384 && wideAgain.viewBox === 724,
    `the maps follow the widget's width: narrow layout below 560 px, wide again after (${JSON.stringify([wide, thin, wideAgain])})`);

  // ---- keyboard: focus a heatmap, arrows move over its weights
  const panel = page.locator("#attention svg.maps .panel >> nth=20"); // cross-attention, layer 2, head 1
  await panel.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  const r1 = (await state(page)).readout;
  await page.keyboard.press("End");
  const r2 = (await state(page)).readout;
  check(/^cross, layer 2, head 1: the step that emits "0" → source 2 "␣": (exactly 0|0\.\d{4}|\d\.\d\de-\d)/.test(r1), `keyboard readout (got "${r1}")`);
  check(r2 !== r1 && r2.includes('source 11 "$"'), `End moves to the last key (got "${r2}")`);
  await page.keyboard.press("ArrowRight"); // past the last key: on into the next head's map
  const r3 = (await state(page)).readout;
  check(r3.startsWith("cross, layer 2, head 2:") && r3.includes('source 1 "1"'), `ArrowRight at the edge moves into the next head (got "${r3}")`);
  const stops = await page.$$eval("#attention svg.maps .panel", (ps) => ps.filter((p) => p.getAttribute("tabindex") === "0").length);
  check(stops === 1, `one tab stop for the 24 maps (roving tabindex; got ${stops})`);
  // pointer: hovering a cell reads it too
  const box = await panel.boundingBox();
  await page.mouse.move(box.x + 30, box.y + 30);
  check((await state(page)).readout !== r2, "hovering a cell changes the readout");

  // ---- training in the worker: a few steps update progress and loss; done; no worker left
  await page.locator("#attention select >> nth=0").selectOption("reverse");
  await page.locator("#attention select >> nth=1").selectOption("softmax");
  await frames(page, 3);
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 60, evalEvery: 30, heldout: 64 }; });
  const done = trained(page, 60000);
  const t0 = Date.now();
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector("progress").value > 0, null, { timeout: 30000 });
  const mid = await state(page);
  check(/step \d+ of at most 60 · loss \d\.\d{3}/.test(mid.tstatus), `progress shows step and loss (got "${mid.tstatus}")`);
  check((await page.$$eval("#attention select", (sel) => sel.map((x) => x.disabled))).every(Boolean), "task and model are locked while training");
  const detail = await done;
  await frames(page, 3);
  s = await state(page);
  check(detail.step === 60 && detail.stopped === false && detail.accuracy >= 0 && detail.test >= 0, `training ran 60 steps (${JSON.stringify(detail)})`);
  check(s.progress === 60 && s.lossPaths >= 2, `progress bar full and a loss curve drawn (progress ${s.progress}, ${s.lossPaths} paths)`);
  check(s.source.includes("trained in this tab") && s.panels === 24, `the maps show the trained model (got "${s.source}")`);
  const left1 = await workersAfter(page);
  check(left1 === 0, `no worker left after training (got ${left1})`);
  console.log(`transformer: 60 training steps (reverse, softmax) in the worker: ${((Date.now() - t0) / 1000).toFixed(1)} s wall`);

  // ---- Stop: a long run, stopped after a few steps; the page stays responsive meanwhile
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 100000, evalEvery: 50, heldout: 64 }; });
  const stopped = trained(page, 60000);
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector("progress").value >= 20, null, { timeout: 30000 });
  check(page.workers().length === 1 && await page.$eval("#attention", (e) => e.trainingThread) === "worker", "one worker while training");
  // The page is not frozen while the worker trains: of the next WINDOW progress events (one per
  // 50 ms slice the worker trains), at least 5 came after a frame since the one before. Counted,
  // not timed (a 500 ms bound, then "no gap of half a 3 s window", failed on a loaded machine
  // without anything being frozen): a page frozen meanwhile takes the queued events back to back,
  // with no frame between. (No share of the events is asked: the worker does not wait for the
  // page, and on a loaded machine a few of its slices end between two frames.)
  const stepBefore = (await state(page)).progress;
  const win = await page.evaluate((n) => new Promise((resolve) => {
    const el = document.getElementById("attention");
    let frames = 0, since = 0, events = 0, framed = 0, over = false;
    const tick = () => { frames++; since++; if (!over) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const on = () => {
      events++;
      if (since) framed++;
      since = 0;
      if (events < n) return;
      over = true;
      el.removeEventListener("sx-attention-progress", on);
      resolve({ frames, events, framed });
    };
    el.addEventListener("sx-attention-progress", on);
  }), WINDOW);
  const stepAfter = (await state(page)).progress;
  check(stepAfter > stepBefore, `the worker trained during the window (step ${stepBefore} -> ${stepAfter})`);
  check(win.framed >= 5, `the page keeps drawing frames while the worker trains (${win.framed} of ${win.events} progress events came after a frame; ${win.frames} frames)`);
  console.log(`transformer: while the worker trains, ${win.framed} of ${win.events} progress events came after a frame (${win.frames} frames)`);
  const before = (await state(page)).cells;
  await typeInput(page, "jihgf");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".io code").textContent === "jihgf", null, { timeout: 10000 });
  check((await state(page)).cells !== before, "a new input during training: the worker sends its maps");
  await page.locator("#attention").screenshot({ path: path.join(SHOTS, "attention-training.png") });
  await page.locator("#attention button.stop").click();
  const sd = await stopped;
  check(sd.stopped === true && sd.step >= 20 && sd.step < 100000, `Stop ends the run (${JSON.stringify(sd)})`);
  const left2 = await workersAfter(page);
  check(left2 === 0, `no worker left after Stop (got ${left2})`);
  s = await state(page);
  check(s.output !== undefined && s.source.includes("trained in this tab"), `the stopped model is shown as soon as the trained event fires (got "${s.source}")`);
  await page.locator("#attention button.back").click();
  await frames(page, 3);
  check((await state(page)).source.includes("shipped softmax"), "back to the shipped model");

  // ---- a worker error reaches the page
  await page.$eval("#attention", (e) => { e.trainOptions = { bogus: 1 }; });
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".tstatus").classList.contains("error"), null, { timeout: 30000 });
  s = await state(page);
  check(s.tstatus.includes('unknown option "bogus"') && s.msg.includes("training failed"), `the worker's error is shown (got "${s.tstatus}" / "${s.msg}")`);
  check(await workersAfter(page) === 0, "no worker left after an error");
  await page.$eval("#attention", (e) => { e.trainOptions = null; });

  // ---- export
  const svg = await page.evaluate(() => {
    const text = document.getElementById("attention").toSVG();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    return { ok: !doc.querySelector("parsererror"), rects: doc.querySelectorAll("rect").length, styled: !text.includes("var(--") };
  });
  check(svg.ok && svg.rects > 200 && svg.styled, `SVG export is valid and self-styled (${JSON.stringify(svg)})`);

  // ---- bad attributes: messages and fallbacks, never an exception
  const bad = await page.evaluate(async () => {
    const el = document.createElement("sx-attention");
    el.setAttribute("task", "klingon");
    el.setAttribute("kind", "banana");
    el.setAttribute("input", "xyz!");
    el.setAttribute("maps", "cross nonsense");
    el.id = "bad-attention";
    document.getElementById("transformer-section").append(el);
    el.scrollIntoView();
    for (let i = 0; i < 300 && el.shadowRoot.querySelectorAll("svg.maps .panel").length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const r = el.shadowRoot;
    return { msg: r.querySelector(".msg").textContent, visible: !r.querySelector(".msg").hidden, task: el.task, kind: el.kind, hint: r.querySelector(".hint").textContent,
      panels: r.querySelectorAll("svg.maps .panel").length, io: r.querySelector(".io").textContent };
  });
  check(bad.visible && bad.msg.includes('task="klingon" is not one of') && bad.msg.includes('kind="banana"') &&
    bad.msg.includes('maps="cross nonsense"'), `bad attributes give messages (got "${bad.msg}")`);
  check(bad.hint.startsWith("“x” (character 1) is not one of this task's characters"), `a bad input attribute: the message under the field (got "${bad.hint}")`);
  check(bad.task === "reverse" && bad.kind === "alpha" && bad.panels === 24 && bad.io.includes("hgfedcba"), `and fall back to the defaults (${JSON.stringify(bad)})`);
  await page.evaluate(() => document.getElementById("bad-attention").remove());

  await checkClean(page, log);
  await page.close();
}

// No train-worker.js on the host (a copy of the site without it: a real 404): the worker's script
// never runs, so the widget trains on the main thread in short slices and says so; progress
// advances, the page keeps drawing, and no console error but (at most) Chromium's line for the 404.
async function checkNoWorkerFile(browser) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sx-noworker-"));
  await fs.cp(SITE, dir, { recursive: true });
  await fs.rm(path.join(dir, "train-worker.js"));
  const server = await startServer({ root: dir });
  try {
    await noWorkerFile(browser, server);
  } finally {
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function noWorkerFile(browser, server) {
  const { page, log: { errors, requests } } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, { viewport: { width: 1100, height: 900 } });
  await ready(page);
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 100, evalEvery: 50, heldout: 64 }; });
  const watched = trainWatchingFrames(page, "attention");
  await page.waitForFunction(() => document.getElementById("attention").trainingThread === "main", null, { timeout: 20000 });
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector("progress").value > 0, null, { timeout: 60000 });
  let s = await state(page);
  check(page.workers().length === 0, `404: no worker runs (got ${page.workers().length})`);
  check(s.tstatus.includes("on the page's main thread, in short slices: train-worker.js could not be loaded"), `404: the status line says it trains on the main thread (got "${s.tstatus}")`);
  const p1 = s.progress;
  await page.waitForFunction((p) => document.getElementById("attention").shadowRoot.querySelector("progress").value > p, p1, { timeout: 60000 });
  check((await state(page)).progress > p1, "404: progress advances on the main thread");
  const w = await watched;
  s = await state(page);
  check(w.detail.step === 100 && !w.detail.stopped && s.source.includes("trained in this tab"), `404: 100 steps trained on the main thread (${JSON.stringify(w.detail)})`);
  // the same count as the bundle's test (single-file.mjs): of the progress events (one per slice,
  // each yielding to the page), at least 5 and a third came after a frame; a page blocked by the
  // training draws between none
  check(w.framed >= 5 && w.framed >= w.progress / 3, `404: the page drew between the slices of training on the main thread (${w.framed} of ${w.progress} progress events came after a frame; ${w.frames} frames)`);
  console.log(`transformer: 100 steps on the main thread (train-worker.js 404): ${(w.ms / 1000).toFixed(1)} s wall, ${w.frames} frames, ${w.framed} of ${w.progress} slices after a frame, longest gap ${w.worst.toFixed(0)} ms`);
  // a second run goes to the main thread at once; Stop ends it there too
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 100000, evalEvery: 50, heldout: 64 }; });
  const stopped = trained(page, 60000);
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector("progress").value >= 5, null, { timeout: 60000 });
  await typeInput(page, "jihgf");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".io code").textContent === "jihgf", null, { timeout: 10000 });
  await page.locator("#attention button.stop").click();
  const sd = await stopped;
  s = await state(page);
  check(sd.stopped === true && sd.step >= 5 && s.source.includes("trained in this tab") && s.tstatus.includes("Trained on the page's main thread"),
    `404: Stop ends a main-thread run, its model kept and shown (${JSON.stringify(sd)}, "${s.tstatus}", "${s.source}")`);
  check(await page.$eval("#attention", (e) => e.trainingThread) === null && page.workers().length === 0, "404: nothing left running after Stop");
  check(requests.filter((u) => u.endsWith("/train-worker.js")).length === 1, "404: train-worker.js asked for once (the second run did not try again)");
  // Chromium may log the 404 as "Failed to load resource" in the worker's context; the widget
  // terminates that worker at once, and the line then seldom reaches the page: none or that one.
  check(errors.length <= 1 && errors.every((e) => e === "Failed to load resource: the server responded with a status of 404 (Not Found)"),
    `404: no console error but (at most) the browser's line for the 404 (got ${JSON.stringify(errors)})`);
  check((await page.evaluate(() => window.__csp)).length === 0, "404: zero CSP violations");
  await page.close();
}

// Dark mode: the widget follows prefers-color-scheme.
async function checkDark(browser, server) {
  const { page, log: { errors } } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, { viewport: { width: 1100, height: 900 }, colorScheme: "dark" });
  await ready(page);
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  const bg = await page.$eval("#attention", (e) => getComputedStyle(e).getPropertyValue("--_bg").trim());
  check(bg === "#16171a", `dark theme inside sx-attention (got ${bg})`);
  await page.locator("#attention").screenshot({ path: path.join(SHOTS, "attention-dark.png") });
  check(errors.length === 0, `dark: zero console errors (got ${JSON.stringify(errors)})`);
  await page.close();
}

await runSuite("transformer", async (browser, server) => {
  await checkSection(browser, server);
  await checkNoWorkerFile(browser);
  await checkDark(browser, server);
});
