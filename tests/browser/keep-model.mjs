// The reader's own model in <sx-attention>, on the built page (dist/site) in real Chromium: a
// model trained in the tab is kept in IndexedDB and comes back after a reload (same output, same
// maps, a label saying so); "Download .sxm" saves it (<task>-<kind>-trained.sxm, a checkpoint
// Node's Model.load reads back with the same config); "Forget" deletes it (the shipped model is
// back, and stays back after a reload); the downloaded file loaded through the file picker (the
// keyboard opens it) gives the same model again; a file dropped on the widget is matched to its
// task by its held-out accuracy (a sort model named mystery.sxm in a date widget: the widget
// switches to sort); bad files (corrupted, truncated, not a checkpoint, an alphabet no task has,
// an attention none of the models has, 17 MB) leave a message naming the file and the reason and
// keep the model shown; model-src with a good URL shows that model (and switches task and kind to
// it), with a 404 or a non-checkpoint a message and the shipped model; with IndexedDB throwing,
// the widget trains, shows the model, says it cannot keep it and still downloads it. Every
// change of the model shown fires sx-attention-model with its source. Zero console errors (but
// the browser's own line for the deliberate 404), zero CSP violations, no request outside the
// origin.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { check, open, ready, frames, runSuite, checkClean, ROOT, pageWith } from "./harness.mjs";

const AXE = await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
// axe's WCAG 2.x A/AA and best-practice violations inside the widget (as a11y.mjs, in the states
// a fresh page never shows: the reader's model, the kept list, a bad file's message)
async function audit(page, id = "attention") {
  await page.evaluate(AXE);
  return page.evaluate(async (i) => {
    const r = await window.axe.run(document.getElementById(i), { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" > ")).slice(0, 3).join("; ")})`);
  }, id);
}

const sx = await import(path.join(ROOT, "dist/simplexity.js"));
await sx.init();
const TMP = await fs.mkdtemp(path.join(os.tmpdir(), "sx-keep-"));
const QUICK = { maxSteps: 30, evalEvery: 30, heldout: 64 };
const NOT_FOUND = "Failed to load resource: the server responded with a status of 404 (Not Found)";

// What a widget shows, read from its shadow root.
const state = (page, id = "attention") => page.$eval(`#${id}`, (e) => {
  const r = e.shadowRoot;
  const codes = [...r.querySelectorAll(".io code")].map((c) => c.textContent);
  const btn = (c) => r.querySelector(`button.${c}`);
  return {
    input: codes[0], output: codes[1], io: r.querySelector(".io").textContent,
    source: r.querySelector(".source").textContent, msg: r.querySelector(".msg").hidden ? "" : r.querySelector(".msg").textContent,
    cells: [...r.querySelectorAll("svg.maps .panel rect.cell")].map((c) => c.getAttribute("fill-opacity")).join(","),
    panels: r.querySelectorAll("svg.maps .panel").length,
    task: r.querySelectorAll("select")[0].value, kind: r.querySelectorAll("select")[1].value,
    keep: r.querySelector(".keep").textContent, warn: r.querySelector(".keep").classList.contains("warn"),
    kept: [...r.querySelectorAll(".keep button")].map((b) => b.textContent),
    forget: !btn("forget").hidden, back: btn("back").hidden ? null : btn("back").textContent, download: !btn("download").disabled,
    shown: e.shownModel,
  };
});
const until = (page, fn, arg, timeout = 30000) => page.waitForFunction(fn, arg, { timeout });
const sourceHas = (page, text, id = "attention") => until(page, ([i, t]) => document.getElementById(i).shadowRoot.querySelector(".source").textContent.includes(t), [id, text]);
const msgHas = (page, text, id = "attention") => until(page, ([i, t]) => { const m = document.getElementById(i).shadowRoot.querySelector(".msg"); return !m.hidden && m.textContent.includes(t); }, [id, text]);
// every sx-attention-model event of the page, in order (they bubble to the window)
const recordModels = (page) => page.addInitScript(() => {
  window.__models = [];
  window.addEventListener("sx-attention-model", (e) => window.__models.push({ id: e.target.id, ...e.detail }));
});
const models = (page) => page.evaluate(() => window.__models);

async function showWidget(page) {
  await ready(page);
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await until(page, () => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0);
}

async function choose(page, task, kind) {
  await page.locator("#attention select >> nth=0").selectOption(task);
  await page.locator("#attention select >> nth=1").selectOption(kind);
}

// Trains (task, kind) for QUICK's 30 steps; resolves with the trained event's detail.
async function trainQuick(page) {
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 30, evalEvery: 30, heldout: 64 }; });
  const done = page.evaluate(() => new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("no sx-attention-trained event in 90 s")), 90000);
    document.getElementById("attention").addEventListener("sx-attention-trained", (e) => { clearTimeout(t); resolve(e.detail); }, { once: true });
  }));
  await page.locator("#attention button.start").click();
  return done;
}

// A file through the widget's (hidden) file input, as the picker would hand it.
const setFile = (page, name, buffer) => page.locator("#attention input[type=file]").setInputFiles({ name, mimeType: "application/octet-stream", buffer });

async function keepAndRestore(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, { viewport: { width: 1100, height: 900 }, before: recordModels });
  // file choosers are intercepted from now on (enabling it on the first waitForEvent races the key press)
  page.on("filechooser", () => {});
  await showWidget(page);
  let s = await state(page);
  check(s.keep.includes("drop a .sxm") && !s.forget && s.back === null && s.download, `a fresh browser: no model of the reader's, the drop hint, download of the shipped model (got ${JSON.stringify(s.keep)})`);
  check(await page.evaluate(async () => (await indexedDB.databases()).length) === 0, "looking for a kept model creates no database");

  // ---- train date / softmax: shown, labelled, kept
  await choose(page, "date", "softmax");
  await sourceHas(page, "date-softmax.sxm");
  const detail = await trainQuick(page);
  check(detail.step === 30 && !detail.stopped, `30 steps trained (${JSON.stringify(detail)})`);
  await until(page, () => document.getElementById("attention").shadowRoot.querySelector(".keep").textContent.includes("kept in this browser"));
  const trained = await state(page);
  check(/^Your model, trained in this tab on .+: softmax, 30 steps, \d+\.\d% of 2000 held-out examples exact\.$/.test(trained.source), `the label says whose model, when, how long and how good (got "${trained.source}")`);
  check(trained.shown.source === "trained" && trained.shown.steps === 30 && trained.shown.task === "date" && trained.shown.kind === "softmax" && trained.shown.accuracy === detail.test,
    `shownModel: the trained model (${JSON.stringify(trained.shown)})`);
  check(trained.forget && trained.back === "Show the shipped model" && trained.panels === 24, `forget and back offered (forget ${trained.forget}, back "${trained.back}")`);
  const stored = await page.evaluate(() => new Promise((resolve) => {
    const r = indexedDB.open("simplexity");
    r.onsuccess = () => { const g = r.result.transaction("models").objectStore("models").get("date-softmax"); g.onsuccess = () => { resolve(g.result ? { ...g.result, bytes: g.result.bytes.length } : null); r.result.close(); }; };
  }));
  check(stored && stored.task === "date" && stored.kind === "softmax" && stored.source === "trained" && stored.steps === 30 && stored.bytes > 80000,
    `IndexedDB "simplexity" / "models" holds it under "date-softmax" (${JSON.stringify(stored)})`);

  // ---- download
  const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("#attention button.download").click()]);
  const file = path.join(TMP, dl.suggestedFilename());
  await dl.saveAs(file);
  const bytes = await fs.readFile(file);
  check(dl.suggestedFilename() === "date-softmax-trained.sxm", `the download is named <task>-<kind>-trained.sxm (got ${dl.suggestedFilename()})`);
  const m = sx.Model.load(new Uint8Array(bytes));
  check(m.config.vocab === sx.tasks.vocab("date").length && m.config.attention.every((a) => a === "softmax") && bytes.length === stored.bytes,
    `Node's Model.load reads the download: a softmax model of the date vocabulary (${bytes.length} bytes)`);
  m.free();

  // ---- reload: the page shows its own task and kind, lists the kept model; one click shows it again
  await page.reload();
  await showWidget(page);
  await until(page, () => document.getElementById("attention").shadowRoot.querySelectorAll(".keep button.kept").length > 0);
  s = await state(page);
  check(s.task === "reverse" && s.kept.length === 1 && s.kept[0] === "date, softmax", `after a reload the page's model is shown, the kept one listed (got ${JSON.stringify(s.kept)}, "${s.keep}")`);
  let v = await audit(page);
  check(v.length === 0, `axe: the kept list is accessible (${v.join(" | ")})`);
  await page.locator("#attention .keep button.kept").click();
  await sourceHas(page, "restored from this browser's storage");
  await frames(page, 2);
  s = await state(page);
  check(s.task === "date" && s.kind === "softmax" && s.output === trained.output && s.cells === trained.cells && s.cells.length > 1000,
    `the restored model gives the same output and the same maps (output "${s.output}" vs "${trained.output}", maps ${s.cells === trained.cells ? "equal" : "differ"})`);
  check(/^Your model, trained in this browser on .+ \(restored from this browser's storage\): softmax, 30 steps/.test(s.source) && s.source.includes(trained.source.split(": ")[1]),
    `the label says it was restored (got "${s.source}")`);
  check(s.shown.source === "stored" && s.shown.steps === 30 && s.keep.includes("kept in this browser"), `shownModel: stored (${JSON.stringify(s.shown)})`);
  // the back button and back again
  await page.locator("#attention button.back").click();
  s = await state(page);
  check(s.source.includes("The shipped softmax") && s.back === "Show your model" && s.shown.source === "shipped", `"Show the shipped model" (got "${s.source}")`);
  await page.locator("#attention button.back").click();
  check((await state(page)).shown.source === "stored", "\"Show your model\" brings it back");

  // ---- forget: the shipped model; nothing kept any more, even after a reload
  await page.locator("#attention button.forget").click();
  await sourceHas(page, "The shipped softmax");
  s = await state(page);
  check(!s.forget && s.back === null && s.shown.source === "shipped" && s.cells !== trained.cells, `forget: the shipped model is back (got "${s.source}")`);
  check(await page.evaluate(() => document.getElementById("attention").shadowRoot.activeElement?.className) === "open", "the focus goes to the load button (the forget button is gone)");
  await page.reload();
  await showWidget(page);
  await choose(page, "date", "softmax");
  await sourceHas(page, "The shipped softmax");
  await page.waitForTimeout(300);
  s = await state(page);
  check(s.shown.source === "shipped" && s.kept.length === 0 && !s.forget, `forgotten for good: after a reload no model is restored or listed (${JSON.stringify(s.kept)})`);

  // ---- the downloaded file through the picker (opened from the keyboard): the same model
  await page.locator("#attention button.open").focus();
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.keyboard.press("Enter")]);
  await chooser.setFiles(file);
  await sourceHas(page, "loaded from date-softmax-trained.sxm");
  await frames(page, 2);
  s = await state(page);
  check(s.output === trained.output && s.cells === trained.cells, `the downloaded file loads as the same model (output "${s.output}", maps ${s.cells === trained.cells ? "equal" : "differ"})`);
  check(/^Your model, loaded from date-softmax-trained\.sxm \(\d+ KB\) on .+: softmax, \d+\.\d% of 200 held-out examples exact\.$/.test(s.source) && s.shown.source === "file" && s.shown.name === "date-softmax-trained.sxm",
    `the label names the file (got "${s.source}", ${JSON.stringify(s.shown)})`);
  await until(page, () => document.getElementById("attention").shadowRoot.querySelector(".keep").textContent.includes("kept in this browser"));
  const loaded = await state(page);

  // ---- bad files: a message naming the file and why; the model shown stays
  const bad = [
    ["corrupt.sxm", (() => { const b = Buffer.from(bytes); b[40000] ^= 0x55; return b; })(), "checksum mismatch"],
    ["truncated.sxm", bytes.subarray(0, 5000), "truncated"],
    ["notes.txt", Buffer.from("these are my notes, not a model\n"), "not a Simplexity model"],
    ["wide.sxm", Buffer.from(new sx.Model({ vocab: 50, maxLen: 12, attention: "softmax" }).save()), "vocabulary (50 tokens) and length (12) fit none of the tasks"],
    ["sparse.sxm", Buffer.from(new sx.Model({ task: "date", attention: "sparsemax" }).save()), "its attention (sparsemax, sparsemax) is none of this widget's models"],
    ["huge.sxm", Buffer.alloc(17 << 20), "more than the 16 MB"],
  ];
  for (const [name, buffer, why] of bad) {
    await setFile(page, name, buffer);
    await msgHas(page, `${name} was not loaded`);
    s = await state(page);
    check(s.msg.includes(why) && s.msg.includes("The model shown stays"), `${name}: "${why}" in the message (got "${s.msg}")`);
    check(s.source === loaded.source && s.cells === loaded.cells && s.shown.source === "file" && s.keep === loaded.keep, `${name}: the previous model is kept`);
  }

  v = await audit(page);
  check(v.length === 0, `axe: the reader's model with a bad file's message is accessible (${v.join(" | ")})`);

  // ---- a drop: a sort model without a telling name, dropped on the date widget, is matched to sort
  const changes = page.evaluate(() => new Promise((resolve) => document.getElementById("attention").addEventListener("sx-attention-change", (e) => resolve(e.detail), { once: true })));
  await page.evaluate(async () => {
    const b = await (await fetch("models/sort-softmax.sxm")).arrayBuffer();
    const dt = new DataTransfer();
    dt.items.add(new File([b], "mystery.sxm"));
    const el = document.getElementById("attention");
    for (const type of ["dragenter", "dragover", "drop"]) el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true, composed: true }));
  });
  await sourceHas(page, "loaded from mystery.sxm");
  await typeInput(page, "hedijcdc");
  s = await state(page);
  const change = await changes;
  check(s.task === "sort" && s.kind === "softmax" && change.task === "sort" && s.msg === "", `a dropped sort model switches the widget to sort (task ${s.task}, change ${JSON.stringify(change)}, msg "${s.msg}")`);
  check(s.output === "ccddehij" && s.io.includes("✓") && /: softmax, (99|100)\.\d% of 200 held-out examples exact\.$/.test(s.source), `and answers sort inputs (got ${s.io}; "${s.source}")`);
  const drop = await page.$eval("#attention", (e) => e.shadowRoot.querySelector(".body").classList.contains("drop"));
  check(!drop, "the drop highlight is gone after the drop");

  // ---- a kept record that no longer loads (another version's, damaged): a message, Forget offered
  await page.evaluate(() => new Promise((resolve, reject) => {
    const r = indexedDB.open("simplexity");
    r.onsuccess = () => {
      const tx = r.result.transaction("models", "readwrite");
      tx.objectStore("models").put({ key: "reverse-entmax15", task: "reverse", kind: "entmax15", bytes: new Uint8Array(3000), source: "trained",
        name: null, date: Date.now(), steps: 10, accuracy: 0.5, examples: 2000 });
      tx.oncomplete = () => { r.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }));
  await choose(page, "reverse", "entmax15");
  await msgHas(page, "your kept model (reverse, 1.5-entmax) could not be loaded");
  await sourceHas(page, "The shipped 1.5-entmax");
  s = await state(page);
  check(s.msg.includes("could not be loaded (not a Simplexity model (bad magic))") && s.msg.includes('"Forget your model" deletes it') && s.forget && s.back === null && s.shown.source === "shipped",
    `a kept model that does not load: a message, the shipped model, Forget offered (got "${s.msg}", forget ${s.forget}, back ${s.back})`);
  await page.locator("#attention button.forget").click();
  await frames(page, 2);
  s = await state(page);
  check(s.msg === "" && !s.forget && !s.kept.includes("reverse, 1.5-entmax"), `Forget deletes it (msg "${s.msg}", kept ${JSON.stringify(s.kept)})`);

  // ---- model-src: a good URL (a sort model in a reverse widget: it switches), a 404, a non-checkpoint
  await page.evaluate(() => {
    const sec = document.getElementById("transformer-section");
    for (const [id, task, src] of [["src-good", "reverse", "models/sort-entmax15.sxm"], ["src-404", "date", "models/nothing.sxm"], ["src-html", "date", "index.html"]]) {
      // (date, softmax has the reader's model, which a widget of that task and kind would show)
      const el = document.createElement("sx-attention");
      Object.assign(el, { id });
      el.setAttribute("task", task);
      el.setAttribute("kind", "entmax15");
      el.setAttribute("model-src", src);
      sec.append(el);
    }
  });
  for (const id of ["src-good", "src-404", "src-html"]) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await until(page, (i) => document.getElementById(i).shadowRoot.querySelectorAll("svg.maps .panel").length > 0, id);
  }
  await sourceHas(page, "The page's model sort-entmax15.sxm (model-src", "src-good");
  s = await state(page, "src-good");
  check(s.task === "sort" && s.kind === "entmax15" && s.io.includes("✓") && s.shown.source === "url" && s.msg === "", `model-src: the file's model, task and kind (${s.task}, ${s.kind}, "${s.source}", ${s.io})`);
  await msgHas(page, "could not fetch it", "src-404");
  s = await state(page, "src-404");
  check(s.msg.includes('model-src="models/nothing.sxm" was not loaded: could not fetch it (HTTP 404 Not Found)') && s.source.includes("date-entmax15.sxm") && s.shown.source === "shipped",
    `model-src 404: a message and the shipped model (got "${s.msg}", "${s.source}")`);
  await msgHas(page, "not a usable Simplexity checkpoint", "src-html");
  s = await state(page, "src-html");
  check(s.msg.includes('model-src="index.html" was not loaded: it is not a usable Simplexity checkpoint (not a Simplexity model (bad magic))') && s.shown.source === "shipped",
    `model-src not a checkpoint: a message and the shipped model (got "${s.msg}")`);

  // ---- the events: one per model shown, with its source
  const seen = await models(page);
  const mine = seen.filter((e) => e.id === "attention").map((e) => `${e.source}:${e.name}`);
  const files = mine.indexOf("file:date-softmax-trained.sxm");
  check(files > 0 && mine[files - 1] === "shipped:date-softmax.sxm" && mine[files + 1] === "file:mystery.sxm" && mine.at(-1) === "shipped:reverse-entmax15.sxm"
    && mine.every((x) => x.startsWith("shipped:") || x.startsWith("file:")),
    `sx-attention-model after the last reload: the shipped models, then each file (${JSON.stringify(mine)})`);
  const others = Object.fromEntries(seen.filter((e) => e.id !== "attention").map((e) => [e.id, `${e.source}:${e.task}-${e.kind}`]));
  check(JSON.stringify(others) === JSON.stringify({ ...others, "src-good": "url:sort-entmax15", "src-404": "shipped:date-entmax15", "src-html": "shipped:date-entmax15" }) && Object.keys(others).length === 3,
    `sx-attention-model of the model-src widgets (${JSON.stringify(others)})`);

  // the only console error: the browser's own line for model-src's deliberate 404
  const i = log.errors.indexOf(NOT_FOUND);
  check(i >= 0, `the 404 was requested (${JSON.stringify(log.errors)})`);
  if (i >= 0) log.errors.splice(i, 1);
  await checkClean(page, log);
  await page.close();
}

async function typeInput(page, text) {
  await page.locator("#attention input[type=text]").fill(text);
  await frames(page, 3);
}

// A browser where IndexedDB throws (a sandboxed iframe, a locked-down profile): training works,
// the model is shown, the widget says it cannot keep it, the download still works.
async function noStore(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, {
    viewport: { width: 1100, height: 900 },
    before: (p) => p.addInitScript(() => {
      IDBFactory.prototype.open = function () { throw new DOMException("the test forbids IndexedDB", "SecurityError"); };
    }),
  });
  await showWidget(page);
  await choose(page, "date", "softmax");
  await sourceHas(page, "date-softmax.sxm");
  let s = await state(page);
  check(s.keep.includes("This browser cannot keep models (IndexedDB: the test forbids IndexedDB)") && !s.warn, `no IndexedDB: said up front, quietly (got "${s.keep}")`);
  const detail = await trainQuick(page);
  await frames(page, 3);
  s = await state(page);
  check(detail.step === 30 && s.source.startsWith("Your model, trained in this tab") && s.shown.source === "trained", `no IndexedDB: it trains and shows the model (got "${s.source}")`);
  check(s.keep === "This browser cannot keep your model (IndexedDB: the test forbids IndexedDB): download it to keep it." && s.warn, `no IndexedDB: it says it cannot keep the model (got "${s.keep}")`);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("#attention button.download").click()]);
  check(dl.suggestedFilename() === "date-softmax-trained.sxm", `no IndexedDB: the download still works (${dl.suggestedFilename()})`);
  // switching away and back keeps the model for the tab's life
  await choose(page, "date", "alpha");
  await sourceHas(page, "The shipped learned α-entmax");
  await choose(page, "date", "softmax");
  await sourceHas(page, "Your model, trained in this tab");
  s = await state(page);
  check(s.shown.source === "trained" && s.forget, `no IndexedDB: the model stays for the tab's life across task and kind changes (got "${s.source}")`);
  await checkClean(page, log, "no IndexedDB: ");
  await page.close();
}

await runSuite("keep-model", async (browser, server) => {
  try {
    await keepAndRestore(browser, server);
    await noStore(browser, server);
  } finally {
    await fs.rm(TMP, { recursive: true, force: true });
  }
});
