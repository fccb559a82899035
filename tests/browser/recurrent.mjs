// recurrent.mjs - the chapter "Before the Transformer" (recurrent.html) in real Chromium.
// <sx-cues>: the weights drawn (bar heights, exact zeros dashed, the numbers on the objects) are
// the library's mapping of the scores, which this file computes from the documented formula
// (saliency: sum over an object's features of 1 - their share of the scene; query: the dot
// product of the query's one-hot features with each key; both: the sum; times the gain), for
// softmax, sparsemax, 1.5-entmax and alpha-entmax; the menus, the query box (typed), and the
// keyboard (one tab stop for the objects, Enter picks an object's colour) change them, with
// sx-cues-change; bad attributes fall back with a message.
// <sx-costs>: the table's numbers are the notes' formulas at (n, d, k); the crossovers drawn at
// n = d and n = k d; the graphs' longest paths (CNN: ceil((m-1)/(k-1)) layers, RNN: m steps,
// self-attention: 1); the sliders by keyboard; "Measure in this browser" measures the sizes of
// ladder(), fills its table with the least-squares prediction, moves its progress bar and lets
// the page draw frames while it runs (no timing is asserted), and times the recurrent layer (the
// RNN class's GRU, SxCosts.recurrentLayer's default) at the same sizes beside n d², saying so. Zero console errors, CSP violations and foreign requests.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, ready, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

// ---------------------------------------------------------------- the scores, from the formula
const features = (o) => o.split("-");
function expectedScores(objects, cue, query, gain) {
  const n = objects.length, count = new Map();
  for (const o of objects) for (const f of features(o)) count.set(f, (count.get(f) || 0) + 1);
  return objects.map((o) => {
    const sal = features(o).reduce((s, f) => s + 1 - count.get(f) / n, 0);
    const dot = features(o).filter((f) => query.includes(f)).length;
    return gain * ((cue === "query" ? 0 : sal) + (cue === "saliency" ? 0 : dot));
  });
}

// What <sx-cues> draws, and the library's mapping of the expected scores.
async function cues(page, sel = "#cues") {
  const drawn = await page.$eval(sel, (el) => {
    const r = el.shadowRoot;
    return {
      objects: el.objects, cue: el.cue, query: el.query, mapping: el.mapping, alpha: el.alpha, gain: el.gain,
      bars: [...r.querySelectorAll("rect.w")].map((b) => (b.classList.contains("zero") ? 0 : Number(b.getAttribute("height")))),
      labels: [...r.querySelectorAll("text.p-label")].map((t) => t.textContent),
      halos: [...r.querySelectorAll("circle.halo")].map((c) => c.classList.contains("zero")),
      readout: r.querySelector(".readout").textContent, msg: r.querySelector(".msg").hidden ? "" : r.querySelector(".msg").textContent,
    };
  });
  const scores = expectedScores(drawn.objects, drawn.cue, drawn.query, drawn.gain);
  drawn.scores = scores;
  drawn.lib = await page.evaluate(async ({ s, m, a }) => {
    const sx = await import("/simplexity.js");
    return Array.from(sx[m](Float32Array.from(s), m === "entmax" ? { alpha: a } : undefined));
  }, { s: scores, m: drawn.mapping, a: drawn.alpha });
  return drawn;
}

function checkCues(c, what) {
  const BH = 70, n = c.objects.length;
  check(c.bars.length === n && c.labels.length === n, `${what}: a bar and a number per object (${c.bars.length}, ${c.labels.length} of ${n})`);
  check(c.bars.every((h, i) => (c.lib[i] === 0 ? h === 0 : Math.abs(h - BH * c.lib[i]) < 0.01)),
    `${what}: the bars are the library's ${c.mapping} of the scores (${c.lib.map((v) => v.toFixed(3))} vs ${c.bars.map((h) => (h / BH).toFixed(3))})`);
  check(c.labels.every((t, i) => t === (c.lib[i] === 0 ? "0" : c.lib[i].toFixed(2))), `${what}: the numbers on the objects (${c.labels.join(" ")})`);
  check(c.halos.every((z, i) => z === (c.lib[i] === 0)), `${what}: exact zeros drawn as dashed rings, and only they`);
}

async function setSelect(page, sel, index, value) {
  await page.$eval(sel, (el, [i, v]) => {
    const s = el.shadowRoot.querySelectorAll("select")[i];
    s.value = v;
    s.dispatchEvent(new Event("change", { bubbles: true }));
  }, [index, value]);
  await frames(page);
}

async function checkCuesWidget(page) {
  const d = await cues(page);
  checkCues(d, "cues, default");
  const top = d.lib.indexOf(Math.max(...d.lib));
  check(d.cue === "saliency" && d.objects[top] === "red-circle", `cues, default: no query, the red circle draws the most weight (${d.objects[top]})`);

  await setSelect(page, "#cues", 1, "sparsemax");
  const sp = await cues(page);
  checkCues(sp, "cues, saliency, sparsemax");
  check(sp.lib.filter((v) => v === 0).length >= 3, `cues, sparsemax: exact zeros on the plain objects (${sp.lib})`);

  // the query, typed: the cue turns volitional, the blue object takes the weight
  const events = [];
  await page.exposeFunction("__cuesEvent", (e) => events.push(e));
  await page.evaluate(() => document.getElementById("cues").addEventListener("sx-cues-change", (e) => window.__cuesEvent(e.detail)));
  const box = page.locator("#cues input[type=text]");
  await box.fill("");
  await box.pressSequentially("blue");
  await frames(page);
  const q = await cues(page);
  checkCues(q, "cues, typed query blue");
  check(q.cue === "query" && q.query.join() === "blue", `cues: typing "blue" sets the query and the volitional cue (${q.cue}, ${q.query})`);
  check(q.lib[q.objects.indexOf("blue-square")] === 1, `cues: sparsemax puts all the weight on the blue square (${q.lib})`);
  const last = events.at(-1);
  check(last && last.weights.every((w, i) => Math.abs(w - q.lib[i]) < 1e-6) && last.query.join() === "blue", `cues: sx-cues-change carries the new weights (${events.length} events)`);
  await box.pressSequentially("x");
  await frames(page);
  const note = await page.$eval("#cues", (e) => e.shadowRoot.querySelector(".note").textContent);
  check(/"bluex" is not a feature/.test(note) && (await page.$eval("#cues", (e) => e.query.join())) === "blue", `cues: an unknown word waits, with a note (${note})`);

  // both cues, alpha-entmax, through the attributes
  await page.$eval("#cues", (e) => { e.cue = "both"; e.query = ["square"]; e.mapping = "entmax"; e.alpha = 1.7; e.gain = 2; });
  await frames(page);
  checkCues(await cues(page), "cues, both, square, 1.7-entmax");
  await page.$eval("#cues", (e) => { e.mapping = "entmax15"; e.cue = "query"; e.query = ["green", "triangle"]; e.objects = ["green-circle", "red-triangle", "green-triangle", "gray-square"]; });
  await frames(page);
  checkCues(await cues(page), "cues, a scene of four, green triangle, 1.5-entmax");

  // keyboard: one tab stop for the objects; ArrowRight twice and Enter picks object 3's colour
  await page.$eval("#cues", (e) => { e.objects = ["gray-square", "gray-square", "red-circle", "blue-square"]; e.cue = "saliency"; e.mapping = "softmax"; });
  await frames(page);
  await page.$eval("#cues", (e) => e.shadowRoot.querySelector("g[role=button][tabindex='0']").focus());
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await frames(page);
  const k = await cues(page);
  checkCues(k, "cues, after the keys");
  check(k.query.join() === "red" && k.cue === "query", `cues keyboard: Enter on object 3 picks "red" (${k.query}, ${k.cue})`);
  const stops = await page.$eval("#cues", (e) => e.shadowRoot.querySelectorAll("svg [tabindex='0']").length);
  check(stops === 1, `cues keyboard: the objects are one tab stop (${stops})`);
}

// ---------------------------------------------------------------- <sx-costs>
async function costs(page) {
  return page.$eval("#costs", (el) => {
    const r = el.shadowRoot;
    const cells = Object.fromEntries([...r.querySelectorAll("table.costs tbody tr")].map((tr) => [tr.dataset.arch,
      Object.fromEntries([...tr.querySelectorAll("td")].map((td) => [td.dataset.key, { value: Number(td.dataset.value), text: td.querySelector(".num").textContent }]))]));
    const g = [...r.querySelectorAll(".graphs g.graph")];
    return {
      n: el.n, d: el.d, k: el.k, cells,
      cross: Object.fromEntries([...r.querySelectorAll("circle.cross")].map((c) => [c.classList.contains("l-rnn") ? "rnn" : "cnn", Number(c.dataset.n)])),
      text: r.querySelector(".crossover").textContent,
      layers: Number(g[0].dataset.layers), paths: g.map((x) => x.querySelectorAll("line.path").length),
      rnnNote: r.querySelector(".rnn-note").textContent,
    };
  });
}

function checkCosts(c, what) {
  const { n, d, k } = c, m = Math.min(n, 8);
  const want = {
    cnn: { ops: k * n * d * d, sequential: 1, path: n / k },
    rnn: { ops: n * d * d, sequential: n, path: n },
    attention: { ops: n * n * d, sequential: 1, path: 1 },
  };
  const show = (v) => (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(2));
  for (const a of ["cnn", "rnn", "attention"]) for (const key of ["ops", "sequential", "path"]) {
    const got = c.cells[a][key];
    check(Math.abs(got.value - want[a][key]) < 1e-9 && got.text === show(want[a][key]), `${what}: ${a} ${key} = ${show(want[a][key])} (got ${got.text})`);
  }
  check(c.cross.rnn === d && (c.cross.cnn === k * d || k * d > 2 ** 16), `${what}: crossovers drawn at n = d = ${d} and n = k d = ${k * d} (${JSON.stringify(c.cross)})`);
  check(c.text.includes(`n < d = ${d}`) && c.text.includes(`n < k d = ${k * d}`), `${what}: the crossovers said (${c.text.slice(0, 90)})`);
  const layers = Math.max(1, Math.ceil((m - 1) / (k - 1)));
  check(c.layers === layers && c.paths[0] === layers, `${what}: the CNN graph has ${layers} layers, its longest path ${layers} edges (${c.layers}, ${c.paths[0]})`);
  check(c.paths[1] === m && c.paths[2] === 1, `${what}: the RNN's path is ${m} edges, self-attention's 1 (${c.paths[1]}, ${c.paths[2]})`);
}

async function checkCostsWidget(page) {
  const c = await costs(page);
  checkCosts(c, "costs, default");
  check(c.n === 32 && c.d === 64 && c.k === 3, `costs: the defaults n 32, d 64, k 3 (${c.n}, ${c.d}, ${c.k})`);
  const wantNote = c.d <= 256 ? "The recurrent layer timed is the RNN class's GRU encoder (state d), over n steps (in chunks of 256)."
    : "The recurrent layer (the RNN class's GRU) is timed for d up to 256: its model's memory grows with d².";
  check(c.rnnNote === wantNote, `costs: the note says which recurrent layer is timed, or why none (${c.rnnNote})`);

  // keyboard: the n slider, one step up the log scale (2^5.125 -> 35)
  const events = [];
  await page.exposeFunction("__costsEvent", (e) => events.push(e));
  await page.evaluate(() => document.getElementById("costs").addEventListener("sx-costs-change", (e) => window.__costsEvent(e.detail)));
  await page.$eval("#costs", (e) => e.shadowRoot.querySelector("input[type=range]").focus());
  await page.keyboard.press("ArrowRight");
  await frames(page);
  const k1 = await costs(page);
  checkCosts(k1, "costs, n one step up");
  check(k1.n === 35 && events.at(-1)?.n === 35, `costs keyboard: ArrowRight on n gives n = 35 and sx-costs-change (${k1.n}, ${events.length})`);
  for (const [n, d, k] of [[100, 16, 5], [5, 512, 16], [4096, 2, 2]]) {
    await page.$eval("#costs", (e, v) => { [e.n, e.d, e.k] = v; }, [n, d, k]);
    await frames(page);
    checkCosts(await costs(page), `costs, n ${n} d ${d} k ${k}`);
  }

  // measured in this browser: the ladder's sizes, the least-squares prediction, progress, frames
  await page.$eval("#costs", (e) => { e.n = 64; e.d = 32; });
  await frames(page);
  const run = page.evaluate(() => new Promise((resolve) => {
    const el = document.getElementById("costs"), prog = el.shadowRoot.querySelector("progress");
    let frames = 0, over = false, steps = new Set();
    const tick = () => { frames++; steps.add(prog.value); if (!over) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    el.addEventListener("sx-costs-measure", (e) => { over = true; resolve({ detail: e.detail, frames, steps: [...steps], max: prog.max }); }, { once: true });
  }));
  await page.locator("#costs button.measure-button").click();
  const m = await run;
  const sizes = [8, 16, 32, 64, 128];
  const rows = m.detail.attention;
  check(JSON.stringify(rows.map((r) => r.n)) === JSON.stringify(sizes), `measure: attention timed at n = ${sizes.join(", ")} (got ${rows.map((r) => r.n)})`);
  check(rows.every((r) => r.ms > 0 && Number.isFinite(r.ms) && r.formula === r.n * r.n * 32), "measure: a finite positive time per size, the formula n² d beside it");
  const cfit = rows.reduce((s, r) => s + r.formula * r.ms, 0) / rows.reduce((s, r) => s + r.formula * r.formula, 0);
  check(rows.every((r) => Math.abs(r.predicted - cfit * r.formula) <= 1e-9 * Math.max(1, r.predicted)), "measure: the prediction is n² d times the least-squares constant");
  const rec = m.detail.recurrent || [];
  check(JSON.stringify(rec.map((r) => r.n)) === JSON.stringify(sizes) && m.detail.d === 32, `measure: the recurrent layer (the RNN class) timed at the same sizes (got ${rec.map((r) => r.n)})`);
  check(rec.every((r) => r.ms > 0 && Number.isFinite(r.ms) && r.formula === r.n * 32 * 32), "measure: a finite positive recurrent time per size, n d² beside it");
  const rfit = rec.reduce((s, r) => s + r.formula * r.ms, 0) / rec.reduce((s, r) => s + r.formula * r.formula, 0);
  check(rec.every((r) => Math.abs(r.predicted - rfit * r.formula) <= 1e-9 * Math.max(1, r.predicted)), "measure: the recurrent prediction is n d² times its least-squares constant");
  check(m.max === 2 * sizes.length && m.steps.length >= 2 && m.frames >= 2, `measure: the progress bar moved (${m.steps}) and the page drew frames meanwhile (${m.frames})`);
  const table = await page.$eval("#costs", (e) => ({ rows: e.shadowRoot.querySelectorAll("table.measured tbody tr").length, status: e.shadowRoot.querySelector(".status").textContent }));
  check(table.rows === 2 * sizes.length && table.status === "measured at d = 32", `measure: a row per size in its table (${table.rows}), "${table.status}"`);
}

async function checkBad(browser, server) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title><link rel="icon" href="favicon.svg">
<script type="module" src="widgets.js"></script></head><body><main>
<sx-cues id="a" objects="red-circle" query="purple" cue="loud"></sx-cues>
<sx-costs id="b" n="1" d="x" k="40"></sx-costs></main></body></html>`;
  const { page, log } = await open(browser, server.url + "bad-recurrent.html", server.url, {
    before: (p) => p.route("**/bad-recurrent.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await page.waitForFunction(() => ["a", "b"].every((i) => document.getElementById(i).lastRenderMs > 0), null, { timeout: 20000 });
  const a = await page.$eval("#a", (e) => ({ msg: e.shadowRoot.querySelector(".msg").textContent, bars: e.shadowRoot.querySelectorAll("rect.w").length }));
  check(/objects/.test(a.msg) && /query/.test(a.msg) && /cue/.test(a.msg) && a.bars === 6, `bad cues attributes: a message naming them, the default scene drawn (${a.msg})`);
  const b = await page.$eval("#b", (e) => ({ msg: e.shadowRoot.querySelector(".msg").textContent, n: e.n, d: e.d, k: e.k }));
  check(/n=/.test(b.msg) && /d=/.test(b.msg) && /k=/.test(b.msg) && b.n === 32 && b.d === 64 && b.k === 3, `bad costs attributes: a message naming n, d, k, the defaults (${b.msg})`);
  await checkClean(page, log, "bad attributes: ");
  await page.close();
}

await runSuite("recurrent", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "recurrent.html", server.url);
  await ready(page);
  await frames(page);
  await checkCuesWidget(page);
  await checkCostsWidget(page);
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "recurrent.png"), fullPage: true });
  await checkClean(page, log, "recurrent.html: ");
  await page.close();
  await checkBad(browser, server);
});
