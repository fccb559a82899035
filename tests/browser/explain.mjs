// <sx-explain> in real Chromium, in its section of the built page (dist/site): zero console
// errors and no request outside the origin; the attention row's bars are the model's attention
// (recomputed in the page with the library, for the mean of the heads and for one head); erasing
// the aligned source token changes that output character (reverse, 1.5-entmax: checked in Node
// first) and marks it; an inline message for a source outside the alphabet; the keyboard path
// (one tab stop for the output steps and one for the source tokens, arrows, Enter, a visible
// focus) with its sx-explain-change events; "Run the experiments" with examples=10 in the module
// worker (progress to 100, six erasure curves, three tables, computed notes, the
// sx-explain-experiments event); Cancel; and with explain-worker.js missing (a real 404), the
// same run on the main thread, which the status line says.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SITE, SHOTS, check, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";
import { startServer } from "../../web/site/serve.mjs";

const shown = (page) => page.waitForFunction(() => document.getElementById("explain")?.shadowRoot?.querySelectorAll("svg.bars .bar").length > 0, null, { timeout: 20000 });
const X = (page, fn, arg) => page.$eval("#explain", fn, arg);

async function openSection(browser, server) {
  const r = await open(browser, server.url + pageWith("explain-section") + "#explain-section", server.url, { viewport: { width: 1100, height: 1000 } });
  await ready(r.page);
  await r.page.locator("#explain").scrollIntoViewIfNeeded();
  await shown(r.page);
  await frames(r.page);
  return r;
}

// The attention row of the page's model for the widget's input, recomputed with the library.
const libraryRow = (page, { task, kind, text, step, head }) => page.evaluate(async ({ task, kind, text, step, head }) => {
  const { Model, tasks } = await import("./simplexity.js");
  const bytes = new Uint8Array(await (await fetch(`models/${task}-${kind}.sxm`)).arrayBuffer());
  const model = Model.load(bytes);
  try {
    const src = tasks.encode(task, text);
    const [out] = model.generate([src]);
    const { attention } = model.forward([src], [out]);
    const n = text.length + 1, row = new Array(n).fill(0);
    let rows = 0;
    for (const a of attention.filter((m) => m.kind === "cross")) {
      const [, H, Tq, Tk] = a.shape;
      for (let h = 0; h < H; h++) {
        if (head && (a.layer !== head[0] || h !== head[1])) continue;
        rows++;
        for (let j = 0; j < n; j++) row[j] += a.data[(h * Tq + step) * Tk + j];
      }
    }
    return { row: row.map((v) => v / rows), output: tasks.decode(task, out) };
  } finally {
    model.free();
  }
}, { task, kind, text, step, head });

const barValues = (page, key) => X(page, (e, k) => [...e.shadowRoot.querySelectorAll(`svg.bars g.row-${k} [data-value]`)].map((b) => Number(b.getAttribute("data-value"))), key);
const outputs = (page) => X(page, (e) => ({ after: e.shadowRoot.querySelector(".erased-out .after")?.textContent ?? null,
  changed: [...e.shadowRoot.querySelectorAll(".erased-out .changed")].map((c) => c.textContent), text: e.shadowRoot.querySelector(".erased-out").textContent }));

async function checkSection(browser, server) {
  const { page, log } = await openSection(browser, server);
  await page.evaluate(() => { window.__changes = []; document.addEventListener("sx-explain-change", (e) => window.__changes.push(e.detail)); });

  // ---- the defaults: reverse, 1.5-entmax, "abcdefgh", six rows, eight heads + the mean
  const d = await X(page, (e) => ({ task: e.task, kind: e.kind, text: e.text, rows: [...e.shadowRoot.querySelectorAll("svg.bars g.row")].map((g) => g.dataset.row),
    outs: [...e.shadowRoot.querySelectorAll("[role=radio]")].map((o) => o.textContent).join(""), heads: e.shadowRoot.querySelectorAll("select")[2].options.length,
    msg: e.shadowRoot.querySelector(".msg").hidden, taus: [...e.shadowRoot.querySelectorAll("svg.bars .tau")].map((t) => t.textContent) }));
  check(d.task === "reverse" && d.kind === "entmax15" && d.text === "abcdefgh" && d.outs === "hgfedcba⟨eos⟩" && d.msg,
    `defaults: reverse, 1.5-entmax, abcdefgh -> hgfedcba, no message (${JSON.stringify(d)})`);
  check(d.rows.join() === "attention,gradInput,integratedGradients,leaveOneOut,rollout,alignment" && d.heads === 9,
    `six bar rows and a head menu of the mean + 8 heads (${JSON.stringify(d)})`);
  check(d.taus.filter((t) => /^τ = [+−]?\d\.\d\d$/.test(t)).length === 5, `a tau printed per method and the alignment (${JSON.stringify(d.taus)})`);

  // ---- the attention bars are the model's attention (mean of heads, then head 2.1 at step 3)
  let lib = await libraryRow(page, { task: "reverse", kind: "entmax15", text: "abcdefgh", step: 0 });
  let bars = await barValues(page, "attention");
  check(bars.length === 9 && bars.every((v, j) => Math.abs(v - lib.row[j]) < 1e-6), `attention bars = the model's mean cross-attention row (${JSON.stringify(bars)} vs ${JSON.stringify(lib.row)})`);
  await X(page, (e) => { e.step = 2; e.head = "2.1"; });
  await frames(page, 3);
  lib = await libraryRow(page, { task: "reverse", kind: "entmax15", text: "abcdefgh", step: 2, head: [1, 0] });
  bars = await barValues(page, "attention");
  const zeros = bars.filter((v) => v === 0).length;
  check(bars.length === 9 && bars.every((v, j) => Math.abs(v - lib.row[j]) < 1e-6), `attention bars = layer 2 head 1's row at step 3 (${JSON.stringify(bars)} vs ${JSON.stringify(lib.row)})`);
  check(zeros > 0 && await X(page, (e) => e.shadowRoot.querySelectorAll("svg.bars g.row-attention circle.zero").length) === zeros, `exact zeros drawn as rings (${zeros})`);
  const align = await barValues(page, "alignment");
  check(align.join() === "0,0,0,0,0,1,0,0,0", `the known alignment of step 3 is source position 6 ("f") (${align})`);

  // ---- erasing the aligned token changes that output character; a non-aligned one does not
  await page.locator("#explain svg.bars g.tok >> nth=5").click();
  await frames(page);
  let o = await outputs(page);
  check(o.after !== null && o.after[2] !== "f" && o.changed.length >= 1 && o.text.includes("hgfedcba →"), `erasing "f" at step 3 changes the third output character, marked (${JSON.stringify(o)})`);
  await page.locator("#explain button.reset").click();
  await frames(page);
  check((await outputs(page)).after === null, "Reset erasures restores the output");
  await X(page, (e) => { e.step = 0; e.head = "mean"; });
  await frames(page, 3);
  await page.locator("#explain svg.bars g.tok >> nth=7").click(); // "h", step 1's source
  await frames(page);
  o = await outputs(page);
  check(o.after !== null && o.after[0] !== "h" && o.changed.includes(o.after[0]), `erasing "h" at step 1 changes the first output character (${JSON.stringify(o)})`);
  await page.locator("#explain svg.bars g.tok >> nth=7").click(); // restore
  await frames(page);

  // ---- a source outside the alphabet: an inline message, the last good source kept
  const input = page.locator("#explain input[type=text]");
  await input.fill("abcX");
  await frames(page);
  const bad = await X(page, (e) => ({ msg: e.shadowRoot.querySelector(".invalid").textContent, invalid: e.shadowRoot.querySelector("input[type=text]").getAttribute("aria-invalid"),
    outs: [...e.shadowRoot.querySelectorAll("[role=radio]")].map((x) => x.textContent).join("") }));
  check(bad.msg.includes('"X" is not in the reverse alphabet') && bad.msg.includes('showing "abcdefgh"') && bad.invalid === "true" && bad.outs === "hgfedcba⟨eos⟩",
    `a bad character: an inline message, the last good source shown (${JSON.stringify(bad)})`);
  await input.fill("abcde");
  await frames(page);
  check(await X(page, (e) => [...e.shadowRoot.querySelectorAll("[role=radio]")].map((x) => x.textContent).join("")) === "edcba⟨eos⟩", "a good source: its output");

  // ---- the keyboard: Tab order, one stop per token row, arrows, Enter, a visible focus
  await input.focus();
  const stops = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    stops.push(await X(page, (e) => {
      const a = e.shadowRoot.activeElement;
      if (!a) return "outside";
      if ((a.getAttribute("aria-label") || "").startsWith("Export")) return "export";
      if ((a.getAttribute("aria-label") || "").startsWith("Copy a link")) return "link";
      return (a.getAttribute("role") || a.localName) + (a.classList.contains("run") ? ":run" : "");
    }));
  }
  const iRadio = stops.indexOf("radio"), iTok = stops.indexOf("button"), iRun = stops.indexOf("button:run");
  const iExport = stops.indexOf("export");
  check(iRadio > 0 && iTok > iRadio && stops.filter((x) => x === "radio").length === 1 && stops.filter((x) => x === "button").length === 1 &&
    iRun > iTok && iExport > iRun && stops[iExport - 1] === "link" && stops.filter((x) => x === "export").length === 2 && stops[iExport + 1] === "export",
    `Tab: the controls, one stop for the output steps, one for the source tokens, then Run, then the Link and the two export buttons (${stops.join(" ")})`);
  await page.locator("#explain [role=radio][tabindex='0']").focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await frames(page);
  const k1 = await X(page, (e) => ({ step: e.step, checked: e.shadowRoot.querySelector("[role=radio][aria-checked=true]").textContent,
    focusVisible: e.shadowRoot.activeElement.matches(":focus-visible"), outline: getComputedStyle(e.shadowRoot.activeElement).outlineStyle }));
  check(k1.step === 2 && k1.checked === "c" && k1.focusVisible && k1.outline !== "none", `ArrowRight x2 picks step 3 ("c"), focus visible (${JSON.stringify(k1)})`);
  await page.keyboard.press("Tab"); // the source tokens
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft"); // "c", position 3: step 3's source in "abcde"
  const k2 = await X(page, (e) => { const a = e.shadowRoot.activeElement; return { label: a.getAttribute("aria-label"), ring: getComputedStyle(a.querySelector(".ring")).stroke }; });
  await page.keyboard.press("Enter");
  await frames(page);
  o = await outputs(page);
  const pressed = await X(page, (e) => e.shadowRoot.activeElement.getAttribute("aria-pressed"));
  check(k2.label.startsWith('source token 3, "c"') && k2.ring !== "none" && k2.ring !== "rgba(0, 0, 0, 0)", `arrows move along the source tokens, the ring shows the focus (${JSON.stringify(k2)})`);
  check(pressed === "true" && o.after !== null && o.after[2] !== "c", `Enter erases the focused token and the third output character changes (${pressed}, ${JSON.stringify(o)})`);
  await page.keyboard.press(" ");
  await frames(page);
  check((await outputs(page)).after === null, "Space restores it");
  const changes = await page.evaluate(() => window.__changes);
  const last = changes[changes.length - 1];
  check(changes.length >= 3 && last.step === 2 && last.text === "abcde" && last.attention.length === 6 && last.importance.leaveOneOut.length === 6
    && typeof last.tau.leaveOneOut === "number" && last.head === "mean" && last.objective === "logit",
    `sx-explain-change { task, kind, text, step, head, objective, attention, importance, tau } on each change (${changes.length}; ${JSON.stringify(last).slice(0, 200)})`);
  // the objective toggle and the SVG export
  await X(page, (e) => { e.objective = "logProb"; });
  await frames(page, 3);
  check((await X(page, (e) => e.shadowRoot.querySelector("svg.bars").textContent)).includes("log p"), "objective logProb: the caption says log p");
  const svgText = await X(page, (e) => e.toSVG());
  check(svgText.startsWith("<?xml") && svgText.includes("τ = ") && !svgText.includes("var(--"), "SVG export of the bars");

  // ---- the experiments, examples=10, in the worker
  await page.evaluate(() => { window.__exp = null; document.addEventListener("sx-explain-experiments", (e) => { window.__exp = e.detail; }); });
  await X(page, (e) => { e.examples = 10; e.task = "reverse"; e.text = "abcdefgh"; });
  await frames(page);
  const before = await page.evaluate(() => window.__workers.length);
  await page.locator("#explain button.run").click();
  await page.waitForFunction(() => document.getElementById("explain").experimentsRanIn !== null, null, { timeout: 15000 });
  // the module workers the run constructed (harness.mjs records them: a run of 10 examples can
  // end before Playwright reports its worker)
  const during = { ran: await X(page, (e) => e.experimentsRanIn),
    workers: await page.evaluate((k) => window.__workers.slice(k).filter((w) => w.type === "module").map((w) => w.url), before) };
  check(during.ran === "worker" && during.workers.length === 1 && during.workers[0].endsWith("/explain-worker.js"), `the experiments run in the module worker explain-worker.js (${JSON.stringify(during)})`);
  await page.waitForFunction(() => window.__exp !== null, null, { timeout: 120000 });
  await frames(page, 2);
  const res = await X(page, (e) => ({
    now: e.shadowRoot.querySelector("[role=progressbar]").getAttribute("aria-valuenow"),
    status: e.shadowRoot.querySelector(".estatus").textContent,
    lines: [...e.shadowRoot.querySelectorAll("svg.curves path.line")].map((p) => [p.dataset.kind, p.dataset.order, p.getAttribute("d").length]),
    tables: [...e.shadowRoot.querySelectorAll(".tables table")].map((t) => t.dataset.kind),
    note: [...e.shadowRoot.querySelectorAll(".note .here")].map((n) => n.textContent).join(" "),
    exp: e.experiments && { task: e.experiments.task, examples: e.experiments.examples, kinds: Object.keys(e.experiments.summaries) },
    hidden: e.shadowRoot.querySelector("svg.curves").classList.contains("off"),
  }));
  const detail = await page.evaluate(() => ({ task: window.__exp.task, examples: window.__exp.examples, kinds: Object.keys(window.__exp.summaries),
    tau: window.__exp.summaries.entmax15.tau.leaveOneOut.mean, frac: window.__exp.summaries.softmax.erasure.attention.medianFraction }));
  check(res.now === "100" && res.status.startsWith("Done in a Web Worker: 10 held-out examples"), `the progress bar reaches 100 and the status says where (${res.now}, "${res.status}")`);
  check(!res.hidden && res.lines.length === 6 && res.lines.every(([, , n]) => n > 10) && res.lines.filter(([, o]) => o === "random").length === 3,
    `six erasure curves, three dashed random ones (${JSON.stringify(res.lines)})`);
  check(res.tables.join() === "softmax,entmax15,alpha", `a table per model (${res.tables})`);
  check(detail.task === "reverse" && detail.examples === 10 && detail.kinds.join() === "softmax,entmax15,alpha" && JSON.stringify(res.exp) === JSON.stringify({ task: "reverse", examples: 10, kinds: detail.kinds }),
    `sx-explain-experiments { task, examples, summaries } and the experiments property (${JSON.stringify(detail)})`);
  const tauText = `${detail.tau >= 0 ? "+" : "−"}${Math.abs(detail.tau).toFixed(2)} (1.5-entmax)`;
  check(res.note.includes("Here (10 held-out examples per model)") && res.note.includes(tauText) && res.note.includes(`softmax: ${Math.round(100 * detail.frac)}% of the keys`),
    `the notes print the run's numbers (${tauText}; ${res.note.slice(0, 160)}…)`);
  await page.locator("#explain").screenshot({ path: path.join(SHOTS, "widget-explain.png") });

  // ---- Cancel
  await X(page, (e) => { e.examples = 1000; });
  await frames(page);
  await page.locator("#explain button.run").click();
  await page.waitForFunction(() => Number(document.getElementById("explain").shadowRoot.querySelector("[role=progressbar]").getAttribute("aria-valuenow")) > 0, null, { timeout: 60000 });
  await page.locator("#explain button.cancel").click();
  await page.waitForFunction(() => document.getElementById("explain").shadowRoot.querySelector(".estatus").textContent.startsWith("Cancelled"), null, { timeout: 15000 });
  await frames(page);
  const c = await X(page, (e) => ({ run: e.shadowRoot.querySelector("button.run").disabled, cancel: e.shadowRoot.querySelector("button.cancel").disabled,
    now: Number(e.shadowRoot.querySelector("[role=progressbar]").getAttribute("aria-valuenow")), examples: e.experiments.examples }));
  check(!c.run && c.cancel && c.now < 100 && c.examples === 10 && page.workers().length === 0,
    `Cancel stops the run, ends the worker, keeps the last results (${JSON.stringify(c)}, workers ${page.workers().length})`);
  await checkClean(page, log, "explain: ");
  await page.close();
}

// No explain-worker.js on the host (a real 404): the same run on the main thread, said so.
async function checkNoWorkerFile(browser) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sx-noexplainworker-"));
  await fs.cp(SITE, dir, { recursive: true });
  await fs.rm(path.join(dir, "explain-worker.js"));
  const server = await startServer({ root: dir });
  try {
    const { page, log: { errors } } = await openSection(browser, server);
    await X(page, (e) => { e.examples = 10; });
    await frames(page);
    await page.locator("#explain button.run").click();
    await page.waitForFunction(() => document.getElementById("explain").experiments !== null, null, { timeout: 120000 });
    const r = await X(page, (e) => ({ ran: e.experimentsRanIn, status: e.shadowRoot.querySelector(".estatus").textContent, lines: e.shadowRoot.querySelectorAll("svg.curves path.line").length }));
    check(r.ran === "main" && page.workers().length === 0 && r.status.includes("on the page's main thread (explain-worker.js could not be loaded") && r.lines === 6,
      `404: the experiments run on the main thread, and the status says so (${JSON.stringify(r)})`);
    check(errors.length <= 1 && errors.every((e) => e === "Failed to load resource: the server responded with a status of 404 (Not Found)"),
      `404: no console error but (at most) the browser's line for the 404 (got ${JSON.stringify(errors)})`);
    await page.close();
  } finally {
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await runSuite("explain", async (browser, server) => {
  await fs.mkdir(SHOTS, { recursive: true });
  await checkSection(browser, server);
  await checkNoWorkerFile(browser);
});
