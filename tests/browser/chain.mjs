// <sx-chain> in real Chromium, on a page of its own served beside the library: the two rows of
// weights read back off the picture (bar heights, exact zeros drawn dashed) against the library's
// chainAttention for the widget's scores and transition, the selections drawn against
// sparsemapSelections (cells filled where they attend, weights printed), the readout's counts;
// the transition slider and the keyboard (one tab stop, arrows) change the picture with the
// sx-chain-change event; t = 0 gives clip(u, 0, 1); bad attributes fall back with a message;
// zero console errors, CSP violations and foreign requests. Screenshot in build/screenshots/chain.png.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-chain</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-chain</h1>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-chain")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0), null, { timeout: 20000 });

// What widget `id` draws, read off its SVG, and what the library says for its settings.
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const row = (label) => [...root.querySelectorAll("rect.w")].filter((r) => r.querySelector("title").textContent.startsWith(`${label} weight`))
      .map((r) => (r.classList.contains("zero") ? 0 : Number(r.getAttribute("height"))));
    const lines = [...root.querySelectorAll("text.muted")].map((t) => t.textContent).filter((t) => t.startsWith("weight "));
    const cells = [...root.querySelectorAll("rect.cell")].map((r) => !r.classList.contains("off"));
    const o = { transition: el.transition };
    return {
      scores: el.scores, t: el.transition,
      crf: row("CRF"), sm: row("SparseMAP"), lines, cells,
      readout: root.querySelector(".readout").textContent,
      libCrf: Array.from(sx.chainAttention(el.scores, o)),
      libSm: Array.from(sx.chainAttention(el.scores, { ...o, method: "sparsemap" })),
      libSel: sx.sparsemapSelections(el.scores, o),
    };
  }, id);
}

function checkState(s, what) {
  const n = s.scores.length, H = 58; // a row's height for weight 1 in viewBox units
  check(s.crf.length === n && s.sm.length === n, `${what}: a bar per position in each row (${s.crf.length}, ${s.sm.length} of ${n})`);
  check(s.crf.every((h, i) => Math.abs(h - H * s.libCrf[i]) < 0.05 && h > 0), `${what}: the CRF bars are the library's marginals, all > 0`);
  check(s.sm.every((h, i) => (s.libSm[i] === 0 ? h === 0 : Math.abs(h - H * s.libSm[i]) < 0.05)),
    `${what}: the SparseMAP bars are the library's, exact zeros dashed (${s.libSm.map((v) => v.toFixed(2))})`);
  const shown = s.libSel.selections.slice(0, 8);
  check(s.lines.length === shown.length && shown.every((x, k) => s.lines[k] === `weight ${x.weight.toFixed(3)}`),
    `${what}: one line per selection with its weight (${s.lines.join(" | ")})`);
  const want = shown.flatMap((x) => Array.from({ length: n }, (_, i) => x.positions.includes(i)));
  check(s.cells.length === want.length && s.cells.every((c, k) => c === want[k]), `${what}: each selection's cells are filled where it attends`);
  const zeros = s.libSm.filter((v) => v === 0).length;
  check(s.readout.includes(`${s.libSel.count} selection`) && s.readout.includes(`${zeros} of ${n} positions exactly 0`),
    `${what}: the readout counts the selections and the exact zeros (${s.readout})`);
}

await runSuite("chain", async (browser, server) => {
  const html = PAGE(`<sx-chain id="a"></sx-chain>
<sx-chain id="z" scores="-0.5 0.25 0.75 1.5 0.4" transition="0"></sx-chain>
<sx-chain id="bad" scores="1 x 2" transition="9"></sx-chain>`);
  const { page, log } = await open(browser, server.url + "chain-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/chain-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  const a = await state(page, "a");
  checkState(a, "default");
  check(a.libSel.count >= 2 && a.libSm.some((v) => v === 0), `default: a mixture of selections with exact zeros (${a.libSel.count})`);
  const z = await state(page, "z");
  checkState(z, "t = 0");
  check(z.libSm.every((v, i) => Math.abs(v - Math.min(1, Math.max(0, z.scores[i]))) < 1e-6), `t = 0: SparseMAP is clip(u, 0, 1) (${z.libSm})`);

  // ---- the transition slider: a strong t fuses the selections into fewer
  const events = [];
  await page.exposeFunction("__chainEvent", (d) => events.push(d));
  await page.evaluate(() => document.getElementById("a").addEventListener("sx-chain-change", (e) => window.__chainEvent(e.detail)));
  await page.evaluate(() => {
    const input = document.getElementById("a").shadowRoot.querySelector("input[type=range]");
    input.value = "3";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await frames(page);
  const a3 = await state(page, "a");
  checkState(a3, "t = 3");
  check(a3.t === 3 && events.length === 1 && events[0].transition === 3, `slider: transition 3 and one sx-chain-change (${events.length})`);

  // ---- keyboard: one tab stop for the bars; ArrowRight picks bar 2, ArrowUp raises it by 0.05
  await page.evaluate(() => document.getElementById("a").shadowRoot.querySelector("g[role=slider][tabindex='0']").focus());
  const before = await page.$eval("#a", (e) => e.scores);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowUp");
  await frames(page);
  const after = await state(page, "a");
  check(Math.abs(after.scores[1] - before[1] - 0.05) < 1e-6 && after.scores[0] === before[0], `keyboard: bar 2 up by 0.05 (${before[1]} -> ${after.scores[1]})`);
  checkState(after, "after the keys");
  const stops = await page.$eval("#a", (e) => e.shadowRoot.querySelectorAll("svg [tabindex='0']").length);
  check(stops === 1, `keyboard: the bars are one tab stop (${stops})`);

  // ---- bad attributes: a message naming them, the defaults drawn
  const bad = await page.$eval("#bad", (e) => ({ msg: e.shadowRoot.querySelector(".msg").textContent, n: e.scores.length }));
  check(/scores/.test(bad.msg) && /transition/.test(bad.msg) && bad.n === 10, `bad attributes: a message naming scores and transition, the defaults in place (got "${bad.msg}", ${bad.n} scores)`);

  const svg = await page.$eval("#a", (e) => e.toSVG());
  check(svg.startsWith("<?xml") && svg.includes("selections"), "toSVG: the picture with its selections");
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "chain.png"), fullPage: true });
  await checkClean(page, log);
});
