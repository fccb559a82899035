// responsive.mjs - the built site's chapters (dist/site) stay responsive under load (issue 27, item 5):
//  (a) while <sx-attention> trains a model in its worker it does not redraw off screen (zero DOM
//      changes in its shadow root while scrolled away, one redraw when scrolled back), and on
//      screen it redraws a few times a second (at most ~5: counted, not timed); long tasks
//      (PerformanceObserver "longtask") are counted in both windows and printed;
//  (b) the sliders of <sx-positions> and <sx-patterns> driven by keyboard across their ranges:
//      the time of each step's render + layout is PRINTED (median, max), never checked (a slow,
//      shared machine must not fail), and the final pictures equal those of a freshly created
//      widget with the same attributes (whatever the widget caches between steps draws what an
//      uncached render draws; sx-patterns at n = 181, computed in the render, and 1448, in slices).
// longtasks.mjs checks that the work is sliced; bench/steps.mjs prints the step times as ratios.
// Zero console errors, zero CSP violations, no request outside the origin.
import { check, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

const stats = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? { median: s[Math.floor(s.length / 2)], max: s[s.length - 1], n: s.length } : { median: 0, max: 0, n: 0 };
};
const f1 = (v) => v.toFixed(1);

// ------------------------------------------------------------------ (a) training, off and on screen
async function training(page) {
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  // redraws: MutationObserver callbacks on the widget's shadow root (one per task that changed
  // its DOM); long tasks; progress events (the worker goes on training)
  await page.evaluate(() => {
    const el = document.getElementById("attention");
    window.__rx = { redraws: 0, long: 0, progress: 0 };
    new MutationObserver(() => { window.__rx.redraws++; }).observe(el.shadowRoot, { subtree: true, childList: true, attributes: true, characterData: true });
    new PerformanceObserver((l) => { window.__rx.long += l.getEntries().length; }).observe({ type: "longtask" });
    el.addEventListener("sx-attention-progress", () => { window.__rx.progress++; });
    el.trainOptions = { maxSteps: 100000, evalEvery: 50, heldout: 64 };
  });
  const trained = page.evaluate(() => new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("no sx-attention-trained event")), 90000);
    document.getElementById("attention").addEventListener("sx-attention-trained", (e) => { clearTimeout(t); resolve(e.detail); }, { once: true });
  }));
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => { const r = document.getElementById("attention")._run; return r && r.status === "training" && r.view; }, null, { timeout: 30000 });

  const windowOf = async (ms) => {
    const a = await page.evaluate(() => ({ ...window.__rx, step: document.getElementById("attention")._run.step, t: performance.now() }));
    await page.waitForTimeout(ms);
    const b = await page.evaluate(() => ({ ...window.__rx, step: document.getElementById("attention")._run.step, t: performance.now() }));
    return { redraws: b.redraws - a.redraws, long: b.long - a.long, progress: b.progress - a.progress, steps: b.step - a.step, s: (b.t - a.t) / 1000 };
  };
  // off screen: the top of the page
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(400); // the observer's report, and a frame already asked for
  const off = await windowOf(3000);
  check(off.progress > 0 && off.steps > 0, `off screen: the worker trains on (${off.steps} steps, ${off.progress} progress events)`);
  check(off.redraws === 0, `off screen: no redraw of sx-attention while it trains (got ${off.redraws} DOM changes in ${f1(off.s)} s)`);
  // back: drawn once at least, with the run's latest step
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForTimeout(600);
  const back = await page.evaluate(() => ({ redraws: window.__rx.redraws, shown: Number(document.getElementById("attention").shadowRoot.querySelector("progress").value) }));
  check(back.redraws > 0, `scrolled back: sx-attention redraws (${back.redraws} DOM changes)`);
  // on screen: a few redraws a second
  const on = await windowOf(3000);
  const perSecond = on.redraws / on.s;
  check(on.redraws > 0 && on.progress > 0, `on screen: it redraws while training (${on.redraws} DOM changes, ${on.progress} progress events in ${f1(on.s)} s)`);
  check(perSecond <= 5.5, `on screen: at most ~5 redraws a second while training (got ${f1(perSecond)}/s, ${on.progress} progress events)`);
  await page.locator("#attention button.stop").click();
  const detail = await trained;
  await frames(page, 2);
  const final = await page.evaluate(() => Number(document.getElementById("attention").shadowRoot.querySelector("progress").value));
  check(final === detail.step, `the final state is drawn (progress ${final}, run step ${detail.step})`);
  console.log(`responsive: training, off screen ${f1(off.s)} s: ${off.redraws} redraws, ${off.long} long tasks, ${off.progress} progress events, ${off.steps} steps`);
  console.log(`responsive: training, on screen ${f1(on.s)} s: ${on.redraws} redraws (${f1(perSecond)}/s), ${on.long} long tasks, ${on.progress} progress events, ${on.steps} steps`);
}

// ------------------------------------------------------------------ (b) sliders by keyboard
// Presses `key` on the slider `sel` (in #id's shadow root) `times` times, one frame each; returns
// each step's render + layout time (the widget's renderNow, wrapped) and key -> frame latency.
async function drive(page, id, sel, keys) {
  await page.evaluate(([i, s]) => {
    const el = document.getElementById(i);
    const input = el.shadowRoot.querySelector(s);
    window.__steps = [];
    if (!el.__wrapped) {
      el.__wrapped = true;
      el.renderNow = function () {
        const t0 = performance.now();
        Object.getPrototypeOf(this).renderNow.call(this);
        void document.body.offsetHeight; // style + layout
        const t1 = performance.now();
        window.__steps.push({ work: t1 - t0, latency: window.__key ? t1 - window.__key : null });
        window.__key = 0;
      };
    }
    if (!input.__keyed) { input.__keyed = true; input.addEventListener("keydown", () => { window.__key = performance.now(); }); }
    input.focus();
  }, [id, sel]);
  for (const k of keys) {
    await page.keyboard.press(k);
    await frames(page, 1);
  }
  await frames(page, 2);
  return page.evaluate(() => window.__steps);
}

// The pictures and readout of #id against a fresh element with the same attributes.
const sameAsFresh = (page, id, tag) => page.evaluate(async ([i, t]) => {
  const el = document.getElementById(i);
  const fresh = document.createElement(t);
  for (const a of el.getAttributeNames()) if (a !== "id") fresh.setAttribute(a, el.getAttribute(a));
  el.after(fresh);
  fresh.scrollIntoView();
  await new Promise((r) => setTimeout(r, 300));
  // sx-patterns above n = 512 computes in slices: both done
  const busy = () => [el, fresh].some((e) => e.shadowRoot.querySelector("[aria-busy]"));
  for (let k = 0; k < 600 && busy(); k++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  // an <svg> hidden and shown again keeps an empty style attribute: not a difference
  const pics = (e) => e.pictures().map((s) => s.outerHTML.replace(' style=""', ""));
  const read = (e) => e.shadowRoot.querySelector(".readout").textContent;
  const a = pics(el), b = pics(fresh);
  const diff = a.length !== b.length ? "a different number of pictures" : a.findIndex((x, k) => x !== b[k]);
  const out = { same: a.length === b.length && diff === -1, diff, readout: read(el) === read(fresh), pictures: a.length, attrs: el.getAttributeNames().map((n) => `${n}=${el.getAttribute(n)}`).join(" ") };
  fresh.remove();
  el.scrollIntoView();
  return out;
}, [id, tag]);

const report = (what, steps) => {
  const w = stats(steps.map((s) => s.work)), l = stats(steps.filter((s) => s.latency !== null).map((s) => s.latency));
  console.log(`responsive: ${what}: ${w.n} steps, render + layout median ${f1(w.median)} ms, max ${f1(w.max)} ms; key -> drawn median ${f1(l.median)} ms, max ${f1(l.max)} ms`);
  return w;
};

async function sliders(page) {
  const right = (n) => Array(n).fill("ArrowRight");
  const left = (n) => Array(n).fill("ArrowLeft");
  // sx-positions: every slider from its lowest to its highest value
  await page.locator("#positions").scrollIntoViewIfNeeded();
  await frames(page, 2);
  // [slider, its place among the controls, keys]; the position slider before the offset's (its
  // range is what the offset leaves); base down from its top
  const pos = [
    ["base", 1, ["End", ...left(100)]], ["dim", 2, ["Home", ...right(31)]], ["positions", 3, ["Home", ...right(88)]],
    ["pair", 5, ["Home", ...right(31)]], ["position", 6, ["Home", ...right(95)]], ["offset", 4, ["Home", ...right(95)]], ["clip", 7, ["Home", ...right(8)]],
  ];
  const all = [];
  for (const [name, place, keys] of pos) {
    const k = place - 1;
    const steps = await drive(page, "positions", `.controls label:nth-of-type(${k + 1}) input`, keys);
    report(`sx-positions ${name}`, steps);
    all.push(...steps);
  }
  report("sx-positions, all sliders", all);
  // a sequence back down the middle of the ranges, then the cache check
  await drive(page, "positions", ".controls label:nth-of-type(2) input", left(10));
  await drive(page, "positions", ".controls label:nth-of-type(4) input", left(40));
  await drive(page, "positions", ".controls label:nth-of-type(1) input", ["End", ...left(7)]); // base alone: the matrix must follow
  let r = await sameAsFresh(page, "positions", "sx-positions");
  check(r.same && r.readout && r.pictures === 4, `sx-positions after the key steps draws what a fresh widget draws at ${r.attrs} (picture ${r.diff}, readout ${r.readout})`);

  // sx-patterns: n across its range (8 .. 2048 in half steps of log2) and back, local and LSH
  await page.locator("#patterns").scrollIntoViewIfNeeded();
  await frames(page, 2);
  for (const kind of ["local", "lsh"]) {
    await page.evaluate((k) => { document.getElementById("patterns").pattern = k; }, kind);
    await frames(page, 2);
    const up = await drive(page, "patterns", "input[type=range]", ["Home", ...right(16)]);
    report(`sx-patterns n up (${kind})`, up);
    const down = await drive(page, "patterns", "input[type=range]", left(16));
    report(`sx-patterns n down (${kind})`, down);
    for (const back of [9, 14]) { // n = 181 (computed in the render), 1448 (in slices)
      await drive(page, "patterns", "input[type=range]", ["Home", ...right(back)]);
      r = await sameAsFresh(page, "patterns", "sx-patterns");
      check(r.same && r.readout, `sx-patterns (${kind}) after the key steps draws what a fresh widget draws at ${r.attrs} (picture ${r.diff}, readout ${r.readout})`);
    }
  }
}

// each part on the chapter that holds its widgets (the Transformer's, then the scores chapter)
async function onChapter(browser, server, id, part) {
  const { page, log } = await open(browser, server.url + pageWith(id), server.url, { viewport: { width: 1100, height: 900 } });
  await ready(page);
  await part(page);
  await checkClean(page, log, `${pageWith(id)}: `);
  await page.close();
}

await runSuite("responsive", async (browser, server) => {
  if (!process.argv.includes("--sliders")) await onChapter(browser, server, "attention", training);
  if (!process.argv.includes("--training")) await onChapter(browser, server, "patterns", sliders);
});
