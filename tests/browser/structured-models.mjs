// structured-models.mjs - the fusedmax and oscarmax models in <sx-attention> (issue 25, item 2), on
// the built page (dist/site): the model menu lists both, enabled for after_marker and date (where
// they are shipped) and disabled for reverse and sort; choosing fusedmax on after_marker loads
// after_marker-fusedmax.sxm and outlines its runs of equal weight (the legend says so), and the
// outlines are exactly the runs of two or more equal nonzero weights of the drawn model, computed
// here through the library (dist) from the same .sxm, the same input and the widget's output; the
// softmax model of the task draws none. Moving to reverse falls back to 1.5-entmax. Zero console
// errors, zero CSP violations, no request outside the origin.
import { readFileSync } from "node:fs";
import { check, open, frames, runSuite, checkClean, pageWith } from "./harness.mjs";
import { init, Model, tasks } from "../../dist/simplexity.js";
import { equalRuns } from "../../dist/viz/heatmap.js";
import { inspect } from "../../dist/inspect.js";
import { audit } from "./axe.mjs";

await init();
const host = "#attention";

const shown = (page, key) => page.waitForFunction((k) => {
  const e = document.getElementById("attention"), r = e && e.shadowRoot; // (before the upgrade: none)
  return Boolean(r && r.querySelector(".source")) && r.querySelector(".source").textContent.includes(k) && r.querySelectorAll("svg.maps .panel").length > 0;
}, key, { timeout: 20000 });

const menu = (page) => page.$eval(host, (e) => [...e.shadowRoot.querySelectorAll("select")[1].options].map((o) => ({ value: o.value, disabled: o.disabled })));

// The outlined runs, per map block and panel: [kind, layer, head, runs of length >= 2 as "i:a-b"].
const outlines = (page) => page.$eval(host, (e) => {
  const r = e.shadowRoot;
  return { legend: r.querySelector("svg.maps .legend").textContent, count: r.querySelectorAll("svg.maps path.runs").length,
    d: [...r.querySelectorAll("svg.maps path.runs")].map((p) => p.getAttribute("d")) };
});

// The runs the widget must outline for model file `file` on input `text`: the maps inspect.js
// collects (the library's greedy output, then its teacher-forced pass), every kind, head and row
// over the keys it sees, counted with equalRuns: runs of two or more equal nonzero weights.
function expected(file, task, text) {
  const m = Model.load(readFileSync(new URL(`../../dist/models/${file}`, import.meta.url)));
  try {
    const v = inspect(m, tasks, task, text);
    let n = 0;
    for (const a of v.maps) {
      for (let r = 0; r < a.heads * a.nq; r++) {
        const visible = a.kind === "decoder" ? (r % a.nq) + 1 : a.nk;
        n += equalRuns(a.data.subarray(r * a.nk, r * a.nk + visible), visible).filter(([x, y]) => y - x > 1).length;
      }
    }
    return { n, output: v.output };
  } finally {
    m.free();
  }
}

await runSuite("structured-models", async (browser, server) => {
  const { page, log } = await open(browser, server.url + pageWith("attention"), server.url, { viewport: { width: 1280, height: 800 } });
  await page.locator(host).scrollIntoViewIfNeeded();
  await shown(page, "reverse-alpha");
  let opts = await menu(page);
  check(["fusedmax", "oscarmax"].every((k) => opts.some((o) => o.value === k)), `the model menu lists fusedmax and oscarmax (${opts.map((o) => o.value).join(", ")})`);
  check(opts.filter((o) => o.disabled).map((o) => o.value).join() === "fusedmax,oscarmax", `on reverse, fusedmax and oscarmax are disabled (not shipped) (${JSON.stringify(opts)})`);

  await page.locator(`${host} select >> nth=0`).selectOption("after_marker");
  await shown(page, "after_marker-");
  opts = await menu(page);
  check(opts.every((o) => !o.disabled), `on after_marker every model is enabled (${JSON.stringify(opts)})`);
  for (const kind of ["fusedmax", "softmax"]) {
    await page.locator(`${host} select >> nth=1`).selectOption(kind);
    await shown(page, `after_marker-${kind}.sxm`);
    await frames(page, 3);
    const st = await page.$eval(host, (e) => ({ input: e.input, codes: [...e.shadowRoot.querySelectorAll(".io code")].map((c) => c.textContent) }));
    const o = await outlines(page);
    const runs = o.d.join("").split("Z").filter(Boolean).length;
    const want = expected(`after_marker-${kind}.sxm`, "after_marker", st.input);
    check(want.output === st.codes[1], `after_marker-${kind}: the widget's output "${st.codes[1]}" is the library's "${want.output}"`);
    check(runs === want.n, `after_marker-${kind} on "${st.input}": ${runs} runs outlined, the library's maps have ${want.n} runs of two or more equal weights`);
    if (kind === "fusedmax") {
      check(runs > 0, `after_marker-fusedmax: some runs outlined (${runs})`);
      check(/outlined/.test(o.legend), `the legend explains the outlines (${o.legend})`);
      const v = await audit(page);
      check(v.length === 0, `after_marker-fusedmax shown: no axe violation (got ${v.length}: ${v.join(" | ")})`);
    } else {
      check(runs === 0 && !/outlined/.test(o.legend), `after_marker-softmax: no runs, no legend item (${runs})`);
    }
  }
  await page.locator(`${host} select >> nth=1`).selectOption("oscarmax");
  await shown(page, "after_marker-oscarmax.sxm");
  await page.locator(`${host} select >> nth=0`).selectOption("reverse");
  await shown(page, "reverse-entmax15.sxm");
  check(await page.$eval(host, (e) => e.kind) === "entmax15", "moving to reverse from oscarmax falls back to 1.5-entmax");
  await checkClean(page, log);
  await page.close();

  // a phone: the fusedmax model's maps and legend fit the widget
  const phone = await open(browser, server.url + pageWith("attention"), server.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await phone.page.locator(host).scrollIntoViewIfNeeded();
  await shown(phone.page, "reverse-alpha");
  await phone.page.locator(`${host} select >> nth=0`).selectOption("date");
  await shown(phone.page, "date-");
  await phone.page.locator(`${host} select >> nth=1`).selectOption("fusedmax");
  await shown(phone.page, "date-fusedmax.sxm");
  await frames(phone.page, 3);
  const fit = await phone.page.$eval(host, (e) => {
    const hb = e.getBoundingClientRect(), r = e.shadowRoot;
    const legend = [...r.querySelectorAll("svg.maps .legend text")].map((t) => t.getBoundingClientRect());
    return { runs: r.querySelectorAll("svg.maps path.runs").length, out: legend.filter((b) => b.right > hb.right + 1 || b.left < hb.left - 1).length,
      text: r.querySelector("svg.maps .legend").textContent };
  });
  check(fit.runs > 0 && /outlined/.test(fit.text), `phone: date-fusedmax outlines runs (${fit.runs}) and says so in the legend`);
  check(fit.out === 0, `phone: the legend stays inside the widget (${fit.out} lines outside)`);
  await checkClean(phone.page, phone.log, "phone: ");
  await phone.page.close();
});
