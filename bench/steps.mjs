// steps.mjs - how long a slider step of <sx-positions> and <sx-patterns> takes in Chromium (issue
// 27, item 5: under 50 ms at every setting). Run `make site` then
//   node bench/steps.mjs [--site DIR]
// Each step sets one attribute and times the render plus a forced style + layout on the built
// page. Absolute times drift with the machine and its load, so every figure is also printed as
// a ratio to a reference measured in the same page, interleaved with the steps: parsing and laying
// out 6,144 SVG rects (the heatmap sx-positions drew before it drew paths, 96 positions x 64
// dimensions), a median over the run. For sx-patterns above n = 362 the work runs in slices after
// the step: the step, the slices' sum and the longest slice are printed. Not a test: nothing fails
// on a figure (it exits 1 on a page error only).
import { open, ready, runSuite, checkClean, frames } from "../tests/browser/harness.mjs";

// In the page: the reference job and a step timer.
function setup() {
  const host = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  host.setAttribute("viewBox", "0 0 720 800");
  host.style.cssText = "position: absolute; left: 0; top: 0; width: 720px";
  let rects = "";
  for (let t = 0; t < 96; t++) for (let c = 0; c < 64; c++) rects += `<rect x="${100 + c * 9}" y="${t * 8}" width="9" height="8" fill-opacity="${((t * c) % 97 / 97).toFixed(3)}" data-v="${t * c}"/>`;
  window.__ref = [];
  window.__reference = () => {
    document.body.append(host);
    const t0 = performance.now();
    host.innerHTML = rects;
    void document.body.offsetHeight;
    window.__ref.push(performance.now() - t0);
    host.remove();
    void document.body.offsetHeight;
  };
  window.__step = (id, attr, value) => {
    const el = document.getElementById(id);
    el.setAttribute(attr, String(value));
    const t0 = performance.now();
    el.renderNow();
    void document.body.offsetHeight;
    return performance.now() - t0;
  };
}

const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const f1 = (v) => v.toFixed(1), r2 = (v) => v.toFixed(2);

// Steps attr of #id through values (a reference job every 4 steps); returns the step times.
async function sweep(page, id, attr, values) {
  return page.evaluate(([i, a, vs]) => vs.map((v, k) => { if (k % 4 === 0) window.__reference(); return window.__step(i, a, v); }), [id, attr, values]);
}

async function positions(page, rows) {
  await page.locator("#positions").scrollIntoViewIfNeeded();
  await frames(page, 2);
  await page.evaluate(() => { const e = document.getElementById("positions"); e.positions = 96; e.dim = 64; e.renderNow(); });
  const range = (a, b, s = 1) => Array.from({ length: Math.floor((b - a) / s) + 1 }, (_, k) => a + k * s);
  const sliders = [
    ["base", range(5, 60, 1).map((x) => Math.round(10 ** (x / 10)))], ["dim", range(2, 64, 2)], ["positions", range(8, 96)],
    ["offset", range(1, 47)], ["pair", range(0, 31)], ["position", range(0, 47)], ["clip", range(0, 8)],
  ];
  for (const [attr, values] of sliders) {
    const t = await sweep(page, "positions", attr, [...values, ...values.slice().reverse()]);
    rows.push([`sx-positions ${attr} (96 x 64 at most)`, t]);
  }
}

async function patterns(page, rows) {
  await page.locator("#patterns").scrollIntoViewIfNeeded();
  await frames(page, 2);
  for (const kind of ["local", "lsh"]) {
    await page.evaluate((k) => { document.getElementById("patterns").pattern = k; }, kind);
    const ns = Array.from({ length: 17 }, (_, k) => Math.round(2 ** (3 + k / 2)));
    const t = [], sliced = [];
    for (const n of ns) {
      t.push(...await sweep(page, "patterns", "n", [n]));
      // the slices that follow a step above n = 362: their sum and the longest
      const s = await page.evaluate(() => new Promise((resolve) => {
        const el = document.getElementById("patterns"), times = [];
        if (!el._job) return resolve(null);
        const t0 = performance.now(), next = el._slices;
        let last = t0;
        el._slices = function () { const now = performance.now(); times.push(now - last); last = now; return next.call(this); };
        const poll = setInterval(() => {
          if (el._job) return;
          clearInterval(poll); delete el._slices;
          resolve({ total: performance.now() - t0, longest: Math.max(0, ...times), slices: times.length });
        }, 20);
      }));
      if (s) sliced.push([n, s]);
    }
    rows.push([`sx-patterns n 8 .. 2048 (${kind})`, t]);
    for (const [n, s] of sliced) console.log(`  sx-patterns ${kind} n = ${n}: computed after the step in ${s.slices + 1} slices, ${f1(s.total)} ms in all (the longest gap between slice ends ${f1(s.longest)} ms)`);
  }
}

// --site DIR: another built site (e.g. one holding an older widget, to compare)
const at = process.argv.indexOf("--site");
await runSuite("bench-steps", async (browser, server) => {
  const { page, log } = await open(browser, server.url, server.url, { viewport: { width: 1100, height: 900 } });
  await ready(page);
  await page.evaluate(setup);
  const rows = [];
  await positions(page, rows);
  await patterns(page, rows);
  const ref = med(await page.evaluate(() => window.__ref));
  console.log(`steps: reference (6,144 rects parsed + layout) median ${f1(ref)} ms; each row: median and max ms, then / reference`);
  for (const [what, t] of rows) {
    const m = med(t), x = Math.max(...t);
    console.log(`  ${what}: ${t.length} steps, median ${f1(m)} ms (${r2(m / ref)}), max ${f1(x)} ms (${r2(x / ref)})`);
  }
  await checkClean(page, log);
  await page.close();
}, at > 0 ? { root: process.argv[at + 1] } : {});
