// bottleneck.mjs - <sx-bottleneck> (recurrent.html, section 16) in real Chromium. Train (pressed
// with the keyboard) starts bottleneck-worker.js; the run posts progress events and each model's
// loss falls over its first steps (events and steps counted, no timing asserted); Stop pauses it
// with the models evaluated at the step reached, and the accuracy-by-length dots drawn equal this
// file's own greedy evaluation (RNN.generate on 25 held-out rows per length, picked here) of the
// same models, loaded from the bytes the pause hands back; the live matrix drawn equals
// RNN.attention of the additive model; Resume goes on from the step reached. The "trained" view
// (chosen with the keyboard) draws the shipped .sxrn models' accuracy by length and matrices,
// equal to RNN.attention and the same evaluation of the files. axe clean, zero console errors,
// CSP violations and foreign requests.
import { check, echoPasses, open, ready, runSuite, checkClean } from "./harness.mjs";
import { audit } from "./axe.mjs";

echoPasses();

const STEPS = 120; // the steps watched before Stop (the run is set to 400): past the evaluation at 100

// The accuracy per source length 3..10 of models (rnn.save() bytes, or .sxrn URLs), computed in the
// page with the library alone: the first 25 held-out rows (seed 2001) of each length, greedy.
const evaluate = (page, models) => page.evaluate(async (list) => {
  const { init, RNN, tasks } = await import("/simplexity.js");
  await init();
  const pool = tasks.generate("reverse", { seed: 2001, split: "heldout", count: 600 });
  const W = 12, rows = [...Array(8)].map(() => []);
  for (let r = 0; r < 600; r++) {
    const n = Array.prototype.indexOf.call(pool.src.subarray(r * W, (r + 1) * W), 2);
    if (n >= 3 && rows[n - 3].length < 25) rows[n - 3].push(r);
  }
  const out = [];
  for (const item of list) {
    const bytes = typeof item === "string" ? new Uint8Array(await (await fetch(item)).arrayBuffer()) : new Uint8Array(item);
    const m = RNN.load(bytes);
    out.push(rows.map((rs) => {
      let right = 0;
      for (const r of rs) {
        const [row] = m.generate(pool.src.subarray(r * W, (r + 1) * W), { count: 1 });
        right += row.every((v, j) => v === pool.tgt[r * W + j]) ? 1 : 0;
      }
      return right / rs.length;
    }));
    m.free();
  }
  return out;
}, models);

// The attention each model gives the widget's source, through RNN.attention.
const attentions = (page, models, source) => page.evaluate(async ({ list, src }) => {
  const { init, RNN } = await import("/simplexity.js");
  await init();
  return Promise.all(list.map(async (item) => {
    const bytes = typeof item === "string" ? new Uint8Array(await (await fetch(item)).arrayBuffer()) : new Uint8Array(item);
    const m = RNN.load(bytes);
    const { shape, data } = m.attention([Int32Array.from(src)]);
    m.free();
    return { shape, data: Array.from(data) };
  }));
}, { list: models, src: source });

// What the widget draws: accuracy dots per variant, and each matrix's cells (t, j, w).
const drawn = (page) => page.$eval("#bottleneck", (el) => {
  const r = el.shadowRoot;
  return {
    acc: [...r.querySelectorAll("g.series")].map((g) => [...g.querySelectorAll("circle.dot")].map((c) => Number(c.getAttribute("data-acc")))),
    mats: [...r.querySelectorAll("g.mat")].map((g) => ({ title: g.getAttribute("data-title"),
      cells: [...g.querySelectorAll("[data-w]")].map((c) => [Number(c.getAttribute("data-t")), Number(c.getAttribute("data-j")), Number(c.getAttribute("data-w")), c.localName]) })),
    source: Array.from(el.source),
  };
});

function sameMatrix(cells, att, what) {
  const [, , S] = att.shape;
  const bad = cells.filter(([t, j, w]) => w !== att.data[t * S + j]);
  check(cells.length === 81 && bad.length === 0, `${what}: the 9 x 9 cells drawn are RNN.attention's weights (${cells.length} cells, ${bad.length} differ: ${JSON.stringify(bad.slice(0, 3))})`);
  check(cells.every(([, , w, tag]) => (w === 0) === (tag === "circle")), `${what}: exact zeros, and only they, are dots`);
}

const focusOf = (page) => page.evaluate(() => {
  const f = document.activeElement && document.activeElement.shadowRoot && document.activeElement.shadowRoot.activeElement;
  return f ? `${f.localName} ${f.textContent.trim().slice(0, 30)}` : "";
});

await runSuite("bottleneck", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "recurrent.html#bottleneck-section", server.url);
  await ready(page);
  await page.waitForFunction(() => { const el = document.getElementById("bottleneck"); return el && el.shadowRoot.querySelector("svg.matrix text"); }, null, { timeout: 30000 });
  await page.evaluate(() => {
    const el = document.getElementById("bottleneck");
    el.steps = 400;
    window.__bn = { progress: 0, evals: [], states: [] };
    el.addEventListener("sx-bottleneck-progress", () => window.__bn.progress++);
    el.addEventListener("sx-bottleneck-eval", (e) => window.__bn.evals.push(e.detail.step));
    el.addEventListener("sx-bottleneck-state", (e) => window.__bn.states.push(e.detail.state));
  });

  // ---- keyboard: Tab from the page into the widget reaches the menus, then Train
  await page.focus("#bottleneck");
  await page.keyboard.press("Tab");
  const stops = [];
  for (let i = 0; i < 6; i++) { stops.push(await focusOf(page)); if (stops.at(-1).startsWith("button Train")) break; await page.keyboard.press("Tab"); }
  check(stops.at(-1) === "button Train", `keyboard: Tab reaches the three menus, then Train (${stops.join(" | ")})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.getElementById("bottleneck").training?.step >= n, STEPS, { timeout: 120000 });
  check(await focusOf(page) === "button Stop", `keyboard: the button now says Stop (${await focusOf(page)})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("bottleneck").training?.state === "paused", null, { timeout: 60000 });

  const t = await page.evaluate(() => document.getElementById("bottleneck").training);
  const bn = await page.evaluate(() => window.__bn);
  const workers = await page.evaluate(() => window.__workers.map((w) => w.url));
  check(t.thread === "worker" && workers.some((u) => u.endsWith("/bottleneck-worker.js")), `trains in bottleneck-worker.js (${t.thread}, ${workers.join(" ")})`);
  check(bn.progress >= 3, `progress events while training (${bn.progress})`);
  check(t.losses.every((l) => l.length === t.step) && t.step >= STEPS, `a loss per step of each model (${t.losses.map((l) => l.length)} at step ${t.step})`);
  const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
  for (const [i, l] of t.losses.entries()) {
    check(mean(l.slice(-10)) < mean(l.slice(0, 10)) - 0.2, `model ${i}: the loss falls over ${t.step} steps (${mean(l.slice(0, 10)).toFixed(3)} -> ${mean(l.slice(-10)).toFixed(3)})`);
  }
  check(bn.evals[0] === 0 && bn.evals.at(-1) === t.step && t.evals.at(-1).step === t.step, `evaluated at step 0 and at the step reached (${bn.evals.join(" ")})`);
  check(JSON.stringify(bn.states.slice(0, 3)) === JSON.stringify(["training", "stopping", "paused"]), `states ${bn.states.join(" ")}`);

  // ---- the accuracy drawn is the library's evaluation of the same models
  const live = await drawn(page);
  const lib = await evaluate(page, t.models);
  check(live.acc.flat().some((v) => v > 0), `live: some sources reversed exactly at step ${t.step} (${JSON.stringify(live.acc)})`);
  check(live.acc.length === 3 && live.acc.every((a, i) => a.length === 8 && a.every((v, k) => v === lib[i][k])),
    `live: the accuracy by length drawn equals RNN.generate's on the same rows (${JSON.stringify(live.acc)} vs ${JSON.stringify(lib)})`);
  const [addLive] = await attentions(page, [t.models[1]], live.source);
  check(live.mats.length === 1, `live: one matrix, the additive model's (${live.mats.map((m) => m.title)})`);
  sameMatrix(live.mats[0].cells, addLive, "live matrix");

  // ---- Resume goes on from the step reached
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.getElementById("bottleneck").training?.step >= n + 5, t.step, { timeout: 60000 });
  const t2 = await page.evaluate(() => document.getElementById("bottleneck").training);
  check(t2.losses[0].slice(0, t.step).every((v, i) => v === t.losses[0][i]), `Resume keeps the steps taken and goes on (step ${t2.step})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("bottleneck").training?.state === "paused", null, { timeout: 60000 });

  // ---- the trained view, chosen with the keyboard: the shipped models at once
  await page.evaluate(() => { const el = document.getElementById("bottleneck"); el.addEventListener("sx-bottleneck-trained", () => (window.__trained = true), { once: true }); });
  await page.evaluate(() => document.getElementById("bottleneck").shadowRoot.querySelector("select").focus());
  await page.keyboard.press("ArrowDown");
  await page.waitForFunction(() => window.__trained === true, null, { timeout: 60000 });
  await page.waitForFunction(() => document.getElementById("bottleneck").shadowRoot.querySelectorAll("g.mat").length === 3, null, { timeout: 10000 });
  check(await page.$eval("#bottleneck", (el) => el.view) === "trained", "keyboard: ArrowDown on the first menu shows the trained models");
  const tr = await drawn(page);
  const files = ["none", "additive-softmax", "additive-entmax15", "hard-straight"].map((k) => `/models/reverse-rnn-${k}.sxrn`);
  const libT = await evaluate(page, files);
  check(tr.acc.length === 4 && tr.acc.every((a, i) => a.every((v, k) => v === libT[i][k])),
    `trained: the accuracy drawn equals RNN.generate's of the .sxrn files (${JSON.stringify(tr.acc)} vs ${JSON.stringify(libT)})`);
  check(libT[0][7] < libT[1][7] - 0.2, `trained: without attention the 10-letter sources fall behind (${libT[0][7]} vs ${libT[1][7]})`);
  const atts = await attentions(page, files.slice(1), tr.source);
  tr.mats.forEach((m, i) => sameMatrix(m.cells, atts[i], `trained matrix ${m.title}`));
  check(tr.mats[1].cells.some(([, , w]) => w === 0) && tr.mats[0].cells.every(([, , w]) => w > 0), "trained: 1.5-entmax has exact zeros, softmax none");

  const axe = await audit(page);
  check(axe.length === 0, `axe: no violations (${axe.join(" | ")})`);
  await checkClean(page, log, "recurrent.html: ");
  await page.close();
});
