// hard.mjs - <sx-hard> (recurrent.html, section 17: soft, sparse, hard) in real Chromium. The four
// matrices drawn are RNN.attention of the shipped .sxrn files (softmax, sparsemax, 1.5-entmax,
// hard straight-through), computed here with the library alone, cell for cell up to the step that
// wrote EOS: exact zeros, and only they, dots; hard attention one-hot; softmax without zeros,
// sparsemax with; the selections read out (positions per step, steps on one) are this file's
// count of the same weights. A source typed (keyboard), Another source (Enter) and a bad source
// (a message, aria-invalid, the default drawn) change it, with sx-hard-change. The bars are the
// figures of models/rnn-variance.json (fetched here) for every method and point, for the figure
// chosen with the keyboard (variance, cosine, bias); the curves are each run's trace; the text
// states the file's numbers; without the file, a message. axe clean, zero console errors, CSP violations and foreign requests;
// at phone width (390 px) nothing overflows the widget.
import { check, echoPasses, open, runSuite, checkClean } from "./harness.mjs";
import { audit } from "./axe.mjs";

echoPasses();

const FILES = ["additive-softmax", "additive-sparsemax", "additive-entmax15", "hard-straight"].map((k) => `/models/reverse-rnn-${k}.sxrn`);
const NAMES = ["softmax", "sparsemax", "entmax15", "reinforce", "gumbel", "straight"];

// Each file's greedy decoding of `source` through the library: rows up to the step that wrote EOS
// (over the letters and EOS), the text written.
const library = (page, source) => page.evaluate(async ({ files, source }) => {
  const { init, RNN, tasks } = await import("/simplexity.js");
  await init();
  const src = tasks.encode("reverse", source), n = source.length;
  return Promise.all(files.map(async (f) => {
    const m = RNN.load(new Uint8Array(await (await fetch(f)).arrayBuffer()));
    const { tokens, shape, data } = m.attention([src]);
    m.free();
    const rows = [];
    for (let t = 0; t < shape[1]; t++) {
      rows.push(Array.from(data.subarray(t * shape[2], t * shape[2] + n + 1)));
      if (tokens[0][t + 1] === 2) break;
    }
    return { rows, text: tasks.decode("reverse", tokens[0]) };
  }));
}, { files: FILES, source });

// What the widget draws: per matrix its cells [t, j, w, tag], and its result and readouts.
const drawn = (page) => page.$eval("#hard", (el) => {
  const r = el.shadowRoot;
  return {
    mats: [...r.querySelectorAll("g.mat")].map((g) => ({ key: g.getAttribute("data-key"),
      cells: [...g.querySelectorAll("[data-w]")].map((c) => [Number(c.getAttribute("data-t")), Number(c.getAttribute("data-j")), Number(c.getAttribute("data-w")), c.localName]) })),
    bars: [...r.querySelectorAll("g.barrow")].map((g) => [g.getAttribute("data-method"), g.getAttribute("data-point"), Number(g.getAttribute("data-value"))]),
    runs: [...r.querySelectorAll("g.run")].map((g) => [g.getAttribute("data-method"), [...g.querySelectorAll("circle")].map((c) => [Number(c.getAttribute("data-step")), Number(c.getAttribute("data-v"))])]),
    result: el.result, source: el.source, figure: el.figure,
    readout: r.querySelector("[part=readout]").textContent, summary: r.querySelector("[part=summary]").textContent,
    invalid: r.querySelector("input").getAttribute("aria-invalid"), srcMsg: r.querySelector(".invalid").textContent,
    msg: r.querySelector("[part=message]").hidden ? "" : r.querySelector("[part=message]").textContent,
  };
});

// The matrices drawn against the library's, and the selections against a count of its weights.
async function checkMatrices(page, what) {
  const d = await drawn(page);
  const lib = await library(page, d.result.source);
  check(d.mats.length === 4 && d.mats.map((m) => m.key).join() === "softmax,sparsemax,entmax15,hard", `${what}: four matrices (${d.mats.map((m) => m.key)})`);
  d.mats.forEach((m, i) => {
    const want = lib[i].rows, cells = want.flatMap((row, t) => row.map((w, j) => [t, j, w]));
    const bad = cells.filter(([t, j, w], k) => !m.cells[k] || m.cells[k][0] !== t || m.cells[k][1] !== j || m.cells[k][2] !== w);
    check(m.cells.length === cells.length && bad.length === 0, `${what}, ${m.key}: the ${cells.length} cells drawn are RNN.attention's (${m.cells.length} drawn, ${bad.length} differ: ${JSON.stringify(bad.slice(0, 2))})`);
    check(m.cells.every(([, , w, tag]) => (w === 0) === (tag === "circle")), `${what}, ${m.key}: exact zeros, and only they, are dots`);
    const nz = want.map((row) => row.filter((w) => w !== 0).length);
    const r = d.result.models[i], support = nz.reduce((a, b) => a + b, 0) / nz.length, one = nz.filter((k) => k === 1).length / nz.length;
    check(Math.abs(r.support - support) < 1e-12 && Math.abs(r.one - one) < 1e-12 && r.output === lib[i].text,
      `${what}, ${m.key}: positions per step ${r.support} (counted: ${support}), on one ${r.one} (${one}), wrote "${r.output}" ("${lib[i].text}")`);
  });
  check(lib[3].rows.every((row) => row.filter((w) => w !== 0).length === 1 && row.includes(1)), `${what}: hard attention reads one position per step`);
  check(lib[0].rows.every((row) => row.every((w) => w > 0)) && lib[1].rows.some((row) => row.includes(0)), `${what}: softmax has no exact zero, sparsemax has`);
  check(d.readout.includes(`sparsemax ${d.result.models[1].support.toFixed(2)}`), `${what}: the readout says sparsemax's positions per step (${d.readout.slice(0, 160)})`);
  return d;
}

const focusOf = (page) => page.evaluate(() => {
  const a = document.activeElement, f = a && a.shadowRoot && a.shadowRoot.activeElement;
  return f ? `${a.id} ${f.localName} ${(f.getAttribute("aria-label") || f.textContent).trim().slice(0, 30)}` : "";
});

await runSuite("hard", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "recurrent.html#hard-section", server.url);
  await page.waitForFunction(() => { const el = document.getElementById("hard"); el?.scrollIntoView(); return el?.result; }, null, { timeout: 60000 });
  await page.evaluate(() => {
    window.__changes = [];
    document.getElementById("hard").addEventListener("sx-hard-change", (e) => window.__changes.push(e.detail));
  });
  const first = await checkMatrices(page, "default source");
  check(first.result.source === "abcdefgh" && first.msg === "", `the default source, no message (${first.result.source}, "${first.msg}")`);
  check(first.result.models.every((m) => m.right), `the four shipped models reverse "abcdefgh" (${first.result.models.map((m) => m.output)})`);

  // the figures: every bar is the file's number, for each figure picked by the keyboard
  const fig = await page.evaluate(async () => (await fetch("/models/rnn-variance.json")).json());
  const value = (p, m, figure) => (figure === "variance" ? m.relvar : figure === "cosine" ? m.cos_soft_one : m.method === "reinforce" ? p.floor : m.dist_reinforce);
  await page.focus("#hard");
  const sel = await page.$eval("#hard", (el) => el.shadowRoot.querySelectorAll("select").length);
  check(sel === 2, `two menus (${sel})`);
  for (const figure of ["variance", "cosine", "bias"]) {
    if (figure !== "variance") {
      await page.evaluate(() => document.getElementById("hard").shadowRoot.querySelector("select").focus());
      await page.keyboard.press("ArrowDown");
      await page.waitForFunction((f) => document.getElementById("hard").figure === f, figure, { timeout: 5000 });
    }
    const d = await drawn(page);
    const want = fig.points.flatMap((p) => NAMES.map((name) => [name, p.name, value(p, p.methods.find((m) => m.method === name), figure)]));
    const bad = want.filter(([m, p, v]) => !d.bars.some(([dm, dp, dv]) => dm === m && dp === p && dv === v));
    check(d.bars.length === want.length && bad.length === 0, `${figure}: the ${want.length} bars are rnn-variance.json's (${d.bars.length} drawn, ${bad.length} missing: ${JSON.stringify(bad.slice(0, 2))})`);
  }
  check(fig.points.every((p) => p.methods.filter((m) => ["softmax", "sparsemax", "entmax15", "straight"].includes(m.method)).every((m) => m.relvar === 0)) &&
    fig.points.every((p) => p.methods.filter((m) => ["reinforce", "gumbel"].includes(m.method)).every((m) => m.relvar > 0)),
    "the file: exact gradients and the straight-through argmax have variance 0, REINFORCE and Gumbel more");
  const d1 = await drawn(page);
  const traces = fig.curves.map((c) => [c.method, c.trace.map((q) => [q.step, q.val_accuracy])]);
  check(JSON.stringify(d1.runs) === JSON.stringify(traces), `the six curves are the file's traces (${d1.runs.map(([m, p]) => `${m}:${p.length}`).join(" ")})`);
  const sp = fig.curves.find((c) => c.method === "sparsemax").points[2], rf = fig.points.map((p) => p.methods.find((m) => m.method === "reinforce").relvar);
  check(d1.summary.includes(`sparsemax reads ${sp.support.toFixed(2)} positions per step`) && d1.summary.includes(Math.max(...rf).toPrecision(3)),
    `the text states the file's numbers (${d1.summary.slice(0, 200)})`);

  // the source, by the keyboard: typed, then Another source (Enter), then a bad one
  await page.evaluate(() => document.getElementById("hard").shadowRoot.querySelector("input").focus());
  check((await focusOf(page)).startsWith("hard input"), `the source field takes the focus (${await focusOf(page)})`);
  await page.keyboard.press("Control+A");
  await page.keyboard.type("jihgfedcba");
  await page.waitForFunction(() => document.getElementById("hard").result?.source === "jihgfedcba", null, { timeout: 10000 });
  await checkMatrices(page, "typed source");
  await page.keyboard.press("Tab");
  check((await focusOf(page)).includes("Another source"), `Tab reaches Another source (${await focusOf(page)})`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("hard").result?.source !== "jihgfedcba", null, { timeout: 10000 });
  const drawnSrc = (await checkMatrices(page, "another source")).result.source;
  await page.evaluate(() => { document.getElementById("hard").source = "abz"; });
  await page.waitForFunction(() => document.getElementById("hard").result?.source === "abcdefgh", null, { timeout: 10000 });
  const bad = await drawn(page);
  check(bad.invalid === "true" && /"abz"/.test(bad.srcMsg) && /showing "abcdefgh"/.test(bad.srcMsg), `a bad source: aria-invalid and a message, the default drawn (${bad.invalid}, "${bad.srcMsg}")`);
  const changes = await page.evaluate(() => window.__changes.map((c) => `${c.source}|${c.figure}`));
  check(changes.includes("jihgfedcba|bias") && changes.includes(`${drawnSrc}|bias`) && changes.includes("abcdefgh|cosine"),
    `sx-hard-change for the menus and the sources (${changes.slice(-4).join(" ")})`);

  const axe = await audit(page);
  check(axe.length === 0, `axe: no violations (${axe.join(" | ")})`);
  await checkClean(page, log, "recurrent.html: ");
  await page.close();

  // the figures missing: the widget says so (and draws no stale picture)
  const { page: nf } = await open(browser, server.url + "recurrent.html#hard-section", server.url, {
    before: (p) => p.route("**/models/rnn-variance.json", (r) => r.fulfill({ status: 404, body: "not here" })) });
  const said = await nf.waitForFunction(() => {
    document.getElementById("hard")?.scrollIntoView();
    const m = document.getElementById("hard")?.shadowRoot?.querySelector("[part=message]");
    return m && !m.hidden && m.textContent;
  }, null, { timeout: 60000 }).then((h) => h.jsonValue(), () => "");
  check(/could not load .*rnn-variance\.json: HTTP 404/.test(said) && await nf.$eval("#hard", (el) => el.result === null && el.figures === null),
    `a missing rnn-variance.json: a message, no result ("${said}")`);
  const axeEmpty = await audit(nf);
  check(axeEmpty.length === 0, `axe, without the figures: no violations (${axeEmpty.join(" | ")})`);
  await nf.close();

  // phone width: the widget fits, its pictures too
  const { page: ph, log: lp } = await open(browser, server.url + "recurrent.html#hard-section", server.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await ph.waitForFunction(() => { const el = document.getElementById("hard"); el?.scrollIntoView(); return el?.result; }, null, { timeout: 60000 });
  const fit = await ph.$eval("#hard", (el) => {
    const box = el.getBoundingClientRect();
    const out = [...el.shadowRoot.querySelectorAll("svg, select, input, button, p")].filter((x) => { const r = x.getBoundingClientRect(); return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1); });
    return { width: box.width, page: document.documentElement.scrollWidth - document.documentElement.clientWidth, out: out.map((x) => x.localName + "." + x.getAttribute("class")) };
  });
  check(fit.width <= 390 && fit.page <= 0 && fit.out.length === 0, `phone: the widget fits 390 px (${fit.width} px wide, page overflow ${fit.page}, outside: ${fit.out.join(" ")})`);
  await checkClean(ph, lp, "phone: ");
  await ph.close();
});
