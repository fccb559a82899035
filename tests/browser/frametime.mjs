// frametime.mjs - how long a simplex handle drag takes to recompute and redraw every section it
// affects (section 1 itself; section 2's entmax point, section 3's paths and support changes,
// through the page's links), in real Chromium. Not part of `make test`: run `make site` then
//   node tests/browser/frametime.mjs
// Two figures, median and 95th percentile over the drag:
//  1. synchronous: one handle step, then every pending widget render run at once, then a forced
//     style + layout (document.body.offsetHeight): the work one frame has to fit in 16 ms;
//  2. real input: mouse moves dispatched by the browser on the z_B handle, timed from the
//     pointermove event to the end of the animation frame that redraws (with forced layout).
// Like the other browser tests it fails (exit code 1) on a console or page error, a CSP violation
// or a request outside the page's origin; the figures themselves are not checked.
import { open, ready, runSuite, checkClean, pageWith } from "./harness.mjs";

const stats = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.floor(s.length * 0.95)], max: s[s.length - 1], n: s.length };
};

async function measure(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("simplex"), server.url, { viewport: { width: 1100, height: 1400 } });
  await ready(page);

  // 1. synchronous recompute + redraw of every widget the drag touches
  const sync = await page.evaluate(() => {
    const simplex = document.getElementById("simplex");
    const widgets = [...document.querySelectorAll("sx-simplex, sx-entropy, sx-trajectory, sx-two-choice, sx-fused")];
    const times = [], per = {};
    for (let k = 0; k < 300; k++) {
      const t0 = performance.now();
      simplex._setScore(k % 3, Math.sin(k * 0.1) * 2); // what one pointermove on a handle does
      for (const w of widgets) {
        if (w._frame) {
          cancelAnimationFrame(w._frame); w._frame = 0; w.renderNow();
          (per[w.id] = per[w.id] || []).push(w.lastRenderMs);
        }
      }
      void document.body.offsetHeight; // style + layout
      times.push(performance.now() - t0);
    }
    const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
    return { times, per: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, med(v)])) };
  });

  // 2. real mouse moves on the z_B handle
  await page.evaluate(() => {
    window.__lat = [];
    document.addEventListener("pointermove", () => {
      const t0 = performance.now();
      requestAnimationFrame(() => { void document.body.offsetHeight; window.__lat.push(performance.now() - t0); });
    });
  });
  const knob = page.locator("#simplex [role=slider][aria-label='score of B'] .knob");
  await knob.scrollIntoViewIfNeeded();
  const b = await knob.boundingBox();
  const x = b.x + b.width / 2, y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let k = 0; k < 150; k++) await page.mouse.move(x, y + 50 * Math.sin(k * 0.15));
  await page.mouse.up();
  const real = await page.evaluate(() => window.__lat);
  const s1 = stats(sync.times), s2 = stats(real);
  const f = (v) => v.toFixed(2);
  console.log(`frametime: simplex handle drag, sections 1-3 recomputed and redrawn (Chromium, ${process.arch})`);
  console.log(`  synchronous step + renders + layout: median ${f(s1.median)} ms, p95 ${f(s1.p95)} ms, max ${f(s1.max)} ms over ${s1.n} steps`);
  console.log(`  per widget render (median): ${Object.entries(sync.per).map(([k, v]) => `${k} ${f(v)} ms`).join(", ")}`);
  console.log(`  real mouse: pointermove -> frame rendered: median ${f(s2.median)} ms, p95 ${f(s2.p95)} ms over ${s2.n} moves`);
  console.log(`  target < 16 ms: ${s1.p95 < 16 && s2.p95 < 16 ? "met" : "NOT met"}`);
  await checkClean(page, log);
  await page.close();
}

await runSuite("frametime", async (browser, server) => {
  await measure(browser, server);
});
