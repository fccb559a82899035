// <sx-scores> in real Chromium, in its section of the built page: zero console errors, CSP
// violations and foreign requests; the weights in the table are the library's mapping of the
// scores in the table (recomputed in the page), exact zeros marked; every scoring function; the
// keyboard (Tab to the query handle, arrow keys) moves the query and changes the weights, with one
// sx-scores-change per key; a pointer drag; the additive parameters editable; the 1/sqrt(d)
// panel responds to d (unscaled scores saturate, scaled ones do not). Screenshot in
// build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

// The table, and the library's mapping of the table's scores.
const state = (page) => page.evaluate(async () => {
  const sx = await import("/simplexity.js");
  const el = document.getElementById("scores"), root = el.shadowRoot;
  const scores = [...root.querySelectorAll("td.score")].map((td) => Number(td.textContent));
  const weights = [...root.querySelectorAll("td[data-value]")].map((td) => Number(td.dataset.value));
  const zerosMarked = [...root.querySelectorAll("td.zero")].every((td) => td.textContent === "0 (exact)");
  const m = el.mapping, opts = m === "entmax" ? { alpha: el.alpha } : {};
  const lib = Array.from(sx[m](Float32Array.from(el.scores), opts));
  // the library's scores too, from the element's query and keys
  const o = { nk: el.keys.length / 2, scoring: el.scoring };
  if (el.scoring === "bilinear") o.W = el.bilinear;
  if (el.scoring === "additive") Object.assign(o, { Wq: el.additive.slice(0, 4), Wk: el.additive.slice(4, 8), wv: el.additive.slice(8) });
  const libScores = Array.from(sx.attentionScores(el.query, el.keys, o));
  return { scores, weights, lib, libScores, elScores: Array.from(el.scores), zerosMarked, query: el.query, stats: el.dStats,
    quiet: root.querySelector(".msg").hidden, zeroRings: root.querySelectorAll("circle.key.zero").length };
});
const maxDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

await runSuite("scores", async (browser, server) => {
  const { page, log } = await open(browser, server.url + pageWith("scores-section") + "#scores-section", server.url, { viewport: { width: 1100, height: 1200 } });
  await page.locator("#scores").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("scores")?.lastRenderMs > 0 && document.getElementById("scores").dStats, null, { timeout: 15000 });
  await page.evaluate(() => { window.__changes = 0; document.addEventListener("sx-scores-change", () => window.__changes++); });

  for (const scoring of ["dot", "scaled", "bilinear", "additive"]) {
    for (const mapping of ["softmax", "sparsemax", "entmax15"]) {
      await page.evaluate(([s, m]) => { const el = document.getElementById("scores"); el.scoring = s; el.mapping = m; }, [scoring, mapping]);
      await frames(page, 2);
      const st = await state(page);
      const dw = maxDiff(st.weights, st.lib), ds = maxDiff(st.elScores, st.libScores);
      check(st.weights.length === 4 && dw === 0 && ds === 0 && st.zerosMarked && st.quiet,
        `${scoring} + ${mapping}: the displayed weights are the library's mapping of the scores (max diff ${dw}, scores ${ds})`);
      if (mapping === "sparsemax" && scoring === "scaled") {
        check(st.weights.filter((w) => w === 0).length === st.zeroRings, `sparsemax: each exact zero drawn as a dashed ring (${st.zeroRings})`);
      }
    }
  }

  // keyboard: Tab to the query handle, arrows move it, the weights change
  await page.evaluate(() => { const el = document.getElementById("scores"); el.scoring = "scaled"; el.mapping = "softmax"; el.query = [0, 0]; });
  await frames(page, 2);
  const before = await state(page);
  await page.evaluate(() => document.getElementById("scores").shadowRoot.querySelector("circle.query").focus());
  const focused = await page.evaluate(() => document.getElementById("scores").shadowRoot.activeElement?.getAttribute("role"));
  check(focused === "slider", `the query handle takes focus (role ${focused})`);
  const c0 = await page.evaluate(() => window.__changes);
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowUp");
  await frames(page, 2);
  const after = await state(page);
  const c1 = await page.evaluate(() => window.__changes);
  check(Math.abs(after.query[0] - 0.5) < 1e-9 && Math.abs(after.query[1] - 0.1) < 1e-9, `arrow keys move the query to (0.5, 0.1) (got ${after.query})`);
  check(maxDiff(before.weights, after.weights) > 1e-3 && maxDiff(after.weights, after.lib) === 0, "the weights change with the query and stay the library's");
  check(c1 - c0 === 6, `one sx-scores-change per key (got ${c1 - c0})`);
  const stillFocused = await page.evaluate(() => document.getElementById("scores").shadowRoot.activeElement?.classList.contains("query"));
  check(stillFocused, "focus stays on the query handle across renders");

  // pointer drag on the plane
  const box = await page.locator("#scores").evaluate((el) => { const r = el.shadowRoot.querySelector("svg.picture").getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + box.w * 0.25, box.y + box.h * 0.75);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w * 0.2, box.y + box.h * 0.8);
  await page.mouse.up();
  await frames(page, 2);
  const dragged = await state(page);
  check(dragged.query[0] < -0.9 && dragged.query[1] < -0.9, `a pointer drag moves the query (got ${dragged.query})`);

  // the additive parameters are editable
  await page.evaluate(() => { document.getElementById("scores").scoring = "additive"; });
  await frames(page, 2);
  const inputs = await page.evaluate(() => document.getElementById("scores").shadowRoot.querySelectorAll("input[type=number]").length);
  check(inputs === 10, `additive: 10 parameter inputs (Wq, Wk, wv) (got ${inputs})`);
  const a0 = await state(page);
  await page.evaluate(() => {
    const inp = document.getElementById("scores").shadowRoot.querySelectorAll("input[type=number]")[8];
    inp.value = "-3";
    inp.dispatchEvent(new Event("input"));
  });
  await frames(page, 2);
  const a1 = await state(page);
  check(maxDiff(a0.scores, a1.scores) > 1e-3 && maxDiff(a1.elScores, a1.libScores) === 0 && maxDiff(a1.weights, a1.lib) === 0, "editing wv changes the scores, still the library's");

  // the sqrt(d) panel
  const statsAt = async (d) => {
    await page.evaluate((v) => { document.getElementById("scores").d = v; }, d);
    await frames(page, 2);
    return (await state(page)).stats;
  };
  await page.evaluate(() => { document.getElementById("scores").mapping = "softmax"; });
  const s4 = await statsAt(4), s512 = await statsAt(512);
  check(s4.d === 4 && s512.d === 512, "the panel follows d");
  check(s512.meanMaxDot > 0.85 && s512.meanMaxDot > s4.meanMaxDot + 0.2, `unscaled scores saturate as d grows (mean max weight ${s4.meanMaxDot.toFixed(3)} at d 4, ${s512.meanMaxDot.toFixed(3)} at d 512)`);
  check(Math.abs(s512.meanMaxScaled - s4.meanMaxScaled) < 0.1, `scaled scores do not (${s4.meanMaxScaled.toFixed(3)} vs ${s512.meanMaxScaled.toFixed(3)})`);
  check(s512.varDot > 400 && s512.varDot < 650 && s512.varScaled > 0.75 && s512.varScaled < 1.3, `score variance ~d unscaled, ~1 scaled (${s512.varDot.toFixed(1)}, ${s512.varScaled.toFixed(2)})`);
  // the d slider by keyboard
  await page.evaluate(() => document.getElementById("scores").shadowRoot.querySelector("input[type=range]").focus());
  await page.keyboard.press("Home");
  await frames(page, 2);
  check((await state(page)).stats.d === 1, "Home on the d slider sets d = 1");

  await fs.mkdir(SHOTS, { recursive: true });
  await page.locator("#scores").screenshot({ path: path.join(SHOTS, "scores.png") });
  await checkClean(page, log, "scores section: ");
  await page.close();
});
