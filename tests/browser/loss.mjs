// <sx-loss> in real Chromium, on a page of its own served beside the library: every panel's
// picture read back off its band paths (which cells are drawn, in which band) against the
// library's fyLoss at the cells' centres: the cells left undrawn are exactly those where the loss
// is 0 (none for softmax's cross-entropy; the quadrant past the margin for sparsemax and entmax);
// the readout is the library's loss and p for the scores; the point moves by keyboard (arrows,
// Shift) and by a pointer drag, with the sx-loss-change event; target and alpha change the
// picture; bad attributes fall back with a message; zero console errors, CSP violations and
// foreign requests. Screenshot in build/screenshots/loss.png.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-loss</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-loss</h1>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-loss")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0), null, { timeout: 20000 });

// Each panel of widget `id`: the cells its band paths cover (band index per cell, -1 where none),
// and the library's loss at every cell centre for the same mapping, target and range.
function panels(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const G = 64, P0 = 26, PS = 184, y0 = P0 - 16, cw = PS / G, R = el.range;
    const out = [];
    for (const [k, fig] of [...root.querySelectorAll("figure.panel")].entries()) {
      const cells = new Int8Array(G * G).fill(-1);
      const bands = [...fig.querySelectorAll("path.band")];
      bands.forEach((p, b) => {
        for (const m of p.getAttribute("d").matchAll(/M([\d.]+),([\d.]+)h([\d.]+)/g)) {
          const i0 = Math.round((Number(m[1]) - P0) / cw), j = Math.round((Number(m[2]) - y0) / cw);
          const w = Math.round(Number(m[3]) / cw);
          for (let c = i0; c < i0 + w; c++) cells[j * G + c] = b;
        }
      });
      const mapping = el.mappings[k];
      const x = new Float32Array(3 * G * G);
      for (let j = 0; j < G; j++) for (let c = 0; c < G; c++) {
        x[3 * (j * G + c) + 1] = -(-R + (2 * R * (c + 0.5)) / G);
        x[3 * (j * G + c) + 2] = -(R - (2 * R * (j + 0.5)) / G);
      }
      const o = mapping === "entmax" ? { n: 3, mapping, alpha: el.alpha } : { n: 3, mapping };
      const loss = Array.from(sx.fyLoss(x, new Int32Array(G * G), o).loss);
      out.push({ mapping, cells: Array.from(cells), loss, nbands: bands.length, caption: fig.querySelector("figcaption").textContent });
    }
    return out;
  }, id);
}

function checkPanels(ps, what) {
  for (const p of ps) {
    let wrongZero = 0, order = 0, zeros = 0;
    const max = Math.max(...ps.flatMap((q) => q.loss));
    for (let c = 0; c < p.cells.length; c++) {
      const z = p.loss[c] === 0;
      zeros += z;
      if (z !== (p.cells[c] === -1)) wrongZero++;
      else if (!z && p.cells[c] !== Math.min(9, Math.floor((p.loss[c] / max) * 10))) order++;
    }
    check(wrongZero === 0, `${what}: ${p.mapping}: the cells left undrawn are exactly the ${zeros} where the library's loss is 0 (${wrongZero} differ)`);
    check(order === 0, `${what}: ${p.mapping}: every drawn cell is in the band of the library's loss (${order} differ)`);
    if (p.mapping === "softmax") check(zeros === 0, `${what}: softmax's cross-entropy is never 0 (${zeros} zero cells)`);
    else check(zeros > 0, `${what}: ${p.mapping}: the region past the margin has zero loss (${zeros} cells)`);
  }
}

// The readout against the library for the widget's scores and target.
function readout(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), t = ["A", "B", "C"].indexOf(el.target);
    const want = el.mappings.map((m) => {
      const o = m === "entmax" ? { n: 3, mapping: m, alpha: el.alpha } : { n: 3, mapping: m };
      return sx.fyLoss(el.scores, [t], o).loss[0];
    });
    return { text: el.shadowRoot.querySelector(".readout").textContent, want, scores: el.scores };
  }, id);
}

function checkReadout(r, what) {
  const got = [...r.text.matchAll(/loss (0 exactly|[\d.e-]+)/g)].map((m) => (m[1] === "0 exactly" ? 0 : Number(m[1])));
  const ok = got.length === r.want.length && got.every((g, k) => (r.want[k] === 0 ? g === 0 : Math.abs(g - r.want[k]) <= 5e-3 * r.want[k]));
  check(ok, `${what}: the readout's losses are the library's (got ${got}, library ${r.want.map((v) => v.toPrecision(3))})`);
}

await runSuite("loss", async (browser, server) => {
  const html = PAGE(`<sx-loss id="a"></sx-loss>
<sx-loss id="e" mappings="sparsemax entmax" alpha="1.4" target="C" scores="0 0.5 2" range="4"></sx-loss>
<sx-loss id="bad" mappings="softmax fusedmax" alpha="0.5" target="D"></sx-loss>`);
  const { page, log } = await open(browser, server.url + "loss-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/loss-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  // ---- the default: softmax, sparsemax, 1.5-entmax, target A
  checkPanels(await panels(page, "a"), "default");
  checkReadout(await readout(page, "a"), "default");
  // ---- alpha-entmax at 1.4 (margin 2.5), target C, range 4
  const pe = await panels(page, "e");
  check(pe.length === 2 && /1\.40-entmax loss/.test(pe[1].caption) && /2\.50/.test(pe[1].caption),
    `alpha 1.4: the caption names the margin 1 / (alpha - 1) = 2.50 (got ${pe[1] && pe[1].caption})`);
  checkPanels(pe, "alpha-entmax, target C");
  checkReadout(await readout(page, "e"), "alpha-entmax, target C");

  // ---- keyboard: Tab reaches the point; ArrowRight widens z_A - z_B by 0.1, Shift+ArrowUp z_A - z_C by 0.5
  const events = [];
  await page.exposeFunction("__lossEvent", (d) => events.push(d));
  await page.evaluate(() => document.getElementById("a").addEventListener("sx-loss-change", (e) => window.__lossEvent(e.detail)));
  await page.evaluate(() => document.getElementById("a").shadowRoot.querySelector("[tabindex='0']").focus());
  const s0 = await page.$eval("#a", (e) => e.scores);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Shift+ArrowUp");
  await frames(page);
  const s1 = await page.$eval("#a", (e) => e.scores);
  check(Math.abs(s0[1] - s1[1] - 0.1) < 1e-3 && Math.abs(s0[2] - s1[2] - 0.5) < 1e-3 && s1[0] === s0[0],
    `keyboard: the arrows move the other scores (from ${s0} to ${s1})`);
  check(events.length === 2 && events[1].scores.join() === s1.join(), `keyboard: two sx-loss-change events with the scores (got ${events.length})`);
  checkReadout(await readout(page, "a"), "after the keys");

  // ---- a pointer drag to the top-right corner: the target leads by the range, every sparse loss 0
  const box = await page.evaluate(() => {
    const r = document.getElementById("a").shadowRoot.querySelectorAll("svg.picture")[1].getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  });
  const k = box.w / 220;
  await page.mouse.move(box.x + 120 * k, box.y + 100 * k);
  await page.mouse.down();
  await page.mouse.move(box.x + 209 * k, box.y + 11 * k, { steps: 4 });
  await page.mouse.up();
  await frames(page);
  const rd = await readout(page, "a");
  check(rd.scores[0] - rd.scores[1] > 2.8 && rd.scores[0] - rd.scores[2] > 2.8, `drag: the target now leads both others by about 3 (scores ${rd.scores})`);
  check(rd.want[0] > 0 && rd.want[1] === 0 && rd.want[2] === 0 && /sparsemax: loss 0 exactly/.test(rd.text),
    `drag: past both margins the sparse losses are 0 and the cross-entropy is not (${rd.text})`);

  // ---- the target select and the alpha slider redraw
  await page.evaluate(() => { const e = document.getElementById("e"); e.target = "A"; e.alpha = 2; });
  await frames(page);
  checkPanels(await panels(page, "e"), "target A, alpha 2");

  // ---- bad attributes: a message, the defaults in their place
  const bad = await page.$eval("#bad", (e) => ({ msg: e.shadowRoot.querySelector(".msg").textContent, n: e.shadowRoot.querySelectorAll("figure.panel").length }));
  check(/mappings/.test(bad.msg) && /alpha/.test(bad.msg) && /target/.test(bad.msg) && bad.n === 3,
    `bad attributes: one message naming mappings, alpha and target, the defaults drawn (got "${bad.msg}", ${bad.n} panels)`);

  const svg = await page.$eval("#a", (e) => e.toSVG());
  check(svg.startsWith("<?xml") && (svg.match(/<svg /g) || []).length === 4, "toSVG: one document holding the three panels");
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "loss.png"), fullPage: true });
  await checkClean(page, log);
});
