// The Jacobian section of the built page (dist/site, <sx-jacobian>) in real Chromium: it renders
// with zero console errors, zero CSP violations and no request outside the origin; the Jacobian
// it shows, read from the element's property, from its event and from the rendered cells (their
// data-value and printed text), matches central differences of the mapping computed in the page
// through the library (p(z + h e_j) - p(z - h e_j) over the float32 step, away from support
// changes) to 1e-4 and the library's backward passes (row i = <name>Backward(z, e_i)) to 1e-6,
// for every mapping; the arrow keys move a score and the heatmap follows; every control is
// reached by Tab; "along the face" leaves sparsemax's Jacobian exactly as it was while softmax's
// changes; n from 2 to 8; bad attributes fall back with a message; SVG export. Screenshots in
// build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { SHOTS, check, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

const FD_TOL = 1e-4, BW_TOL = 1e-6;

// What the widget shows for `attrs` (set on #jacobian, then rendered), and in the page: central
// differences with step h and the backward pass of the same mapping at the same scores.
function measure(page, attrs, h = 1e-3) {
  return page.evaluate(async ({ attrs, h }) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById("jacobian");
    for (const a of ["scores", "n", "alpha", "lambda", "beta", "temperature", "t"]) el.removeAttribute(a);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.renderNow();
    const mapping = el.mapping, n = el.n, z = Float64Array.from(el.scores, Math.fround);
    const o = { n, temperature: el.temperature };
    if (mapping === "entmax") o.alpha = el.alpha;
    if (mapping === "fusedmax") o.lambda = el.lambda;
    if (mapping === "oscarmax") o.beta = el.beta;
    const fd = [], bw = [], p0 = sx[mapping](z, o);
    let kink = 0;
    for (let j = 0; j < n; j++) {
      const zp = Float64Array.from(z), zm = Float64Array.from(z);
      zp[j] = Math.fround(z[j] + h);
      zm[j] = Math.fround(z[j] - h);
      const pp = sx[mapping](zp, o), pm = sx[mapping](zm, o);
      for (let i = 0; i < n; i++) {
        fd[i * n + j] = (pp[i] - pm[i]) / (zp[j] - zm[j]);
        kink = Math.max(kink, Math.abs((pp[i] - p0[i]) / (zp[j] - z[j]) - (p0[i] - pm[i]) / (z[j] - zm[j])));
      }
    }
    for (let i = 0; i < n; i++) {
      const dy = new Float64Array(n);
      dy[i] = 1;
      const row = sx[`${mapping}Backward`](z, dy, o);
      for (let j = 0; j < n; j++) bw[i * n + j] = row[j];
    }
    const cells = [...el.shadowRoot.querySelectorAll("g.matrix.main rect.cell")].map((r) => ({
      k: Number(r.dataset.i) * n + Number(r.dataset.j), v: Number(r.dataset.value),
      text: r.nextElementSibling && r.nextElementSibling.classList.contains("val") ? r.nextElementSibling.textContent : null }));
    const msg = el.shadowRoot.querySelector("[part=message]");
    return { mapping, n, kink, z: Array.from(z), J: Array.from(el.jacobian), p: Array.from(el.p), fd, bw, cells,
      matrixMapping: el.shadowRoot.querySelector("g.matrix.main").dataset.mapping, message: msg.hidden ? "" : msg.textContent };
  }, { attrs, h });
}

const maxDiff = (a, b) => a.reduce((m, v, k) => Math.max(m, Math.abs(v - b[k])), 0);
// the text a cell prints: 3 decimals, "−" for minus, "0" for an exact zero
const printed = (v) => (v === 0 ? "0" : v.toFixed(3).replace("-", "−"));

// Away from support changes and other kinks (fusedmax's runs, oscarmax's clusters): each case
// checks that its one-sided differences agree, so the central ones are a derivative.
const CASES = [
  { mapping: "softmax", scores: "1.5 0 1" },
  { mapping: "softmax", scores: "0.8 0.3 -0.2 1.1", n: "4", temperature: "0.5" },
  { mapping: "sparsemax", scores: "1.5 0 1" },
  { mapping: "sparsemax", scores: "0.99 0.01 -1" },
  { mapping: "sparsemax", scores: "0.9 0.6 0.5 -1 0.2", n: "5" },
  { mapping: "entmax15", scores: "1.5 0 1" },
  { mapping: "entmax15", scores: "0.8 0.3 -0.2", temperature: "0.7" },
  { mapping: "entmax", alpha: "1.3", scores: "0.7 0.2 -0.4 0.1", n: "4" },
  { mapping: "entmax", alpha: "3", scores: "0.6 0.5 0.2" },
  { mapping: "fusedmax", lambda: "0.3", scores: "1.5 1.3 0.1 -1", n: "4" },
  { mapping: "fusedmax", lambda: "0.2", scores: "0.2 1.1 1 1.05 0.3", n: "5" },
  { mapping: "fusedmax", lambda: "0.1", scores: "1.5 0 1" },
  { mapping: "oscarmax", beta: "0.2", scores: "1.5 0 1" },
  { mapping: "oscarmax", beta: "0.05", scores: "1.2 1.1 -0.3 0.4", n: "4" },
];

async function checkAgainstLibrary(page) {
  let worstFd = 0, worstBw = 0;
  for (const c of CASES) {
    const what = `${c.mapping} at [${c.scores}]${c.alpha ? ` alpha ${c.alpha}` : ""}${c.lambda ? ` lambda ${c.lambda}` : ""}${c.beta ? ` beta ${c.beta}` : ""}${c.temperature ? ` T ${c.temperature}` : ""}`;
    // a step that crosses a support change would make the differences meaningless: check there is none
    const r = await measure(page, c);
    check(r.message === "" && r.mapping === c.mapping && r.matrixMapping === c.mapping, `${what}: renders without a message (${r.message})`);
    const n = r.n;
    check(r.kink <= 1e-2, `${what}: no kink within the step (one-sided differences differ by ${r.kink.toExponential(2)})`);
    check(r.J.length === n * n && r.cells.length === n * n, `${what}: ${n} x ${n} cells`);
    const dFd = maxDiff(r.J, r.fd), dBw = maxDiff(r.J, r.bw);
    worstFd = Math.max(worstFd, dFd);
    worstBw = Math.max(worstBw, dBw);
    check(dFd <= FD_TOL, `${what}: the element's Jacobian matches central differences (max |diff| ${dFd.toExponential(2)})`);
    check(dBw <= BW_TOL, `${what}: the element's Jacobian matches the backward pass row by row (max |diff| ${dBw.toExponential(2)})`);
    const fromCells = [];
    for (const cell of r.cells) fromCells[cell.k] = cell.v;
    check(maxDiff(fromCells, r.fd) <= FD_TOL && maxDiff(fromCells, r.bw) <= BW_TOL && fromCells.every((v, k) => v === r.J[k]),
      `${what}: the rendered cells hold the same Jacobian`);
    const texts = r.cells.map((cell) => cell.text);
    const want = r.cells.map((cell) => printed(cell.v));
    check(JSON.stringify(texts) === JSON.stringify(want), `${what}: the cells print their values (got ${texts.slice(0, 4)}..., want ${want.slice(0, 4)}...)`);
    const rowSums = Array.from({ length: n }, (_, i) => r.J.slice(i * n, i * n + n).reduce((a, b) => a + b, 0));
    check(rowSums.every((v) => Math.abs(v) <= 1e-6), `${what}: rows sum to 0 (${rowSums.map((v) => v.toExponential(1))})`);
  }
  console.log(`jacobian: worst |J - central differences| ${worstFd.toExponential(2)}, worst |J - backward| ${worstBw.toExponential(2)}`);
  // the exact zeros: sparsemax's row and column of an item outside the support
  const sp = await measure(page, { mapping: "sparsemax", scores: "1.5 0 1" });
  check(sp.p[1] === 0 && [0, 1, 2].every((k) => sp.J[1 * 3 + k] === 0 && sp.J[k * 3 + 1] === 0), "sparsemax: the row and column of p2 = 0 are exact zeros");
  const zeroCells = await page.$$eval("#jacobian g.matrix.main rect.cell.zero", (r) => r.length);
  check(zeroCells === 5, `sparsemax: its 5 exact zeros are blank cells (got ${zeroCells})`);
  const pz = await page.$$eval("#jacobian svg.bars text.pzero", (t) => t.map((x) => x.textContent));
  check(pz.length === 1 && pz[0] === "0", `sparsemax: p2 = 0 is marked as an exact zero (got ${JSON.stringify(pz)})`);
}

async function checkKeyboardAndPointer(page) {
  await page.evaluate(() => {
    const el = document.getElementById("jacobian");
    for (const a of ["scores", "n", "alpha", "lambda", "beta", "temperature", "t"]) el.removeAttribute(a);
    el.mapping = "softmax";
    el.compare = "sparsemax";
    el.scores = [1.5, 0, 1];
    window.__jacEvents = [];
    el.addEventListener("sx-jacobian-change", (e) => window.__jacEvents.push(
      { scores: [...e.detail.scores], mapping: e.detail.mapping, t: e.detail.t, p: Array.from(e.detail.p), jacobian: Array.from(e.detail.jacobian) }));
  });
  await frames(page);
  const cellValues = () => page.$$eval("#jacobian g.matrix.main rect.cell", (r) => r.map((x) => x.dataset.value));
  const cellTexts = () => page.$$eval("#jacobian g.matrix.main text.val", (r) => r.map((x) => x.textContent));
  const before = await cellValues(), textsBefore = await cellTexts();
  const handle = page.locator("#jacobian [role=slider][aria-label='score z2']");
  await handle.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowUp");
  await frames(page);
  const z = await page.$eval("#jacobian", (e) => e.scores);
  check(z[1] === 0.2 && await handle.getAttribute("aria-valuenow") === "0.20", `ArrowUp x4 moves z2 from 0 to 0.2 (got ${z}, aria-valuenow ${await handle.getAttribute("aria-valuenow")})`);
  const after = await cellValues();
  check(JSON.stringify(after) !== JSON.stringify(before) && JSON.stringify(await cellTexts()) !== JSON.stringify(textsBefore), "the keyboard changes the heatmap's cells and printed values");
  const events = await page.evaluate(() => window.__jacEvents);
  const last = events[events.length - 1];
  const shown = await page.$eval("#jacobian", (e) => Array.from(e.jacobian));
  check(events.length === 4 && last.mapping === "softmax" && last.scores[1] === 0.2 && last.t === 0 && last.p.length === 3 &&
    JSON.stringify(last.jacobian) === JSON.stringify(shown) && JSON.stringify(after.map(Number)) === JSON.stringify(shown),
  `each key fires sx-jacobian-change with the scores, p and the Jacobian then shown (${events.length} events)`);
  await page.keyboard.press("PageDown");
  await page.keyboard.press("Home");
  await frames(page);
  check((await page.$eval("#jacobian", (e) => e.scores))[1] === -3, "Home puts z2 at its minimum");
  // the mouse: drag z1's knob down
  const knob = await page.locator("#jacobian [role=slider][aria-label='score z1'] .knob").boundingBox();
  await page.mouse.move(knob.x + knob.width / 2, knob.y + knob.height / 2);
  await page.mouse.down();
  await page.mouse.move(knob.x + knob.width / 2, knob.y + knob.height / 2 + 40, { steps: 4 });
  await page.mouse.up();
  await frames(page);
  const z1 = (await page.$eval("#jacobian", (e) => e.scores))[0];
  check(z1 < 1.4, `dragging z1's knob down lowers z1 (got ${z1})`);
  check(JSON.stringify(await cellValues()) !== JSON.stringify(after), "the drag changes the heatmap");

  // Tab reaches every control, each with a name; the α slider appears with entmax
  await page.evaluate(() => { const el = document.getElementById("jacobian"); el.mapping = "entmax"; el.removeAttribute("scores"); });
  await frames(page);
  await page.locator("#jacobian [role=slider][tabindex='0']").focus();
  const seen = [];
  for (let i = 0; i < 14; i++) {
    const d = await page.evaluate(() => {
      const host = document.activeElement;
      if (!host || host.id !== "jacobian") return null;
      const a = host.shadowRoot.activeElement;
      if (!a) return null;
      const name = a.getAttribute("aria-label") || (a.closest("label") && a.closest("label").firstElementChild.textContent) || a.textContent;
      const outline = getComputedStyle(a).outlineStyle !== "none" || (a.querySelector(".ring") && getComputedStyle(a.querySelector(".ring")).stroke !== "none");
      return `${a.localName}${a.localName === "input" ? `[${a.type}]` : ""}: ${name}${outline ? "" : " (no focus ring)"}`;
    });
    if (d === null) break;
    seen.push(d);
    await page.keyboard.press("Tab");
  }
  // the scores are one stop (←/→ move along them; the stop is the score last used, z2 above), the
  // Link and export buttons come last
  const want = ["g: score z2", "select: mapping", "select: compare with", "input[range]: α (α-entmax)", "input[range]: temperature T",
    "input[range]: along the face, t", "button: Copy a link to this widget as set", "button: Export this picture as SVG", "button: Export this picture as PNG"];
  check(JSON.stringify(seen) === JSON.stringify(want), `Tab reaches every control, named, with a visible focus (got ${JSON.stringify(seen)})`);
  // the α slider by keyboard changes α-entmax's Jacobian
  const j0 = await page.$eval("#jacobian", (e) => Array.from(e.jacobian));
  await page.locator("#jacobian input[type=range] >> nth=0").focus();
  for (let i = 0; i < 10; i++) await page.keyboard.press("ArrowRight");
  await frames(page);
  const a = await page.$eval("#jacobian", (e) => [e.alpha, Array.from(e.jacobian)]);
  check(a[0] === 1.6 && JSON.stringify(a[1]) !== JSON.stringify(j0), `ArrowRight x10 on the α slider: α 1.6 and a new Jacobian (α ${a[0]})`);
  const formula = await page.$eval("#jacobian .formula", (e) => e.textContent);
  check(/^J = \(diag\(s\) − s sᵀ \/ Σs\) with s = p\^\(2−α\) on S, α = 1\.60: s = \[[\d., ]+\]/.test(formula), `the formula line shows s (got ${formula})`);
}

// The lecture's example: along the face, p goes from [.99, .01, 0] to [.5, .5, 0] under sparsemax.
async function checkAlongTheFace(page) {
  await page.evaluate(() => {
    const el = document.getElementById("jacobian");
    for (const a of ["scores", "n", "alpha", "lambda", "beta", "temperature", "t"]) el.removeAttribute(a);
    el.mapping = "sparsemax";
    el.compare = "softmax";
  });
  await frames(page);
  const read = () => page.$eval("#jacobian", (e) => ({
    t: e.t, scores: e.scores, p: Array.from(e.p), J: Array.from(e.jacobian),
    main: [...e.shadowRoot.querySelectorAll("g.matrix.main rect.cell")].map((r) => r.dataset.value + "|" + r.nextElementSibling.textContent),
    compare: [...e.shadowRoot.querySelectorAll("g.matrix.compare rect.cell")].map((r) => r.dataset.value),
    face: e.shadowRoot.querySelector(".face").textContent }));
  const s0 = await read();
  check(s0.t === 0 && s0.p.map((v) => v.toFixed(4)).join() === "0.9900,0.0100,0.0000" && s0.p[2] === 0, `t = 0: sparsemax p = [.99, .01, 0] (got ${s0.p})`);
  check(JSON.stringify(s0.J) === JSON.stringify([0.5, -0.5, 0, -0.5, 0.5, 0, 0, 0, 0]), `t = 0: sparsemax's J = I - 1 1^T / 2 on {1, 2} (got ${s0.J})`);
  const slider = page.locator("#jacobian [part=face] input");
  await slider.focus();
  for (let i = 0; i < 37; i++) await page.keyboard.press("ArrowRight");
  await frames(page);
  const s1 = await read();
  check(s1.t === 0.37 && s1.p[2] === 0 && Math.abs(s1.p[0] - (0.99 - 0.49 * 0.37)) < 1e-6, `ArrowRight x37: t = 0.37, p on the face (got t ${s1.t}, p ${s1.p})`);
  await page.keyboard.press("End");
  await frames(page);
  const s2 = await read();
  check(s2.t === 1 && s2.p.map((v) => v.toFixed(4)).join() === "0.5000,0.5000,0.0000", `End: t = 1, sparsemax p = [.5, .5, 0] (got ${s2.p})`);
  for (const [name, s] of [["t = 0.37", s1], ["t = 1", s2]]) {
    check(JSON.stringify(s.J) === JSON.stringify(s0.J) && JSON.stringify(s.main) === JSON.stringify(s0.main),
      `${name}: sparsemax's Jacobian is exactly the one at t = 0 (property and cells)`);
    check(JSON.stringify(s.compare) !== JSON.stringify(s0.compare), `${name}: softmax's Jacobian beside it has changed`);
  }
  check(/sparsemax 0 \(exactly\), softmax 0\.0\d+\.$/.test(s2.face), `the face line says so (got ${s2.face})`);
  // softmax alone along the same path: its Jacobian moves with p
  const soft = await page.evaluate(async () => {
    const el = document.getElementById("jacobian");
    el.mapping = "softmax"; el.compare = "none";
    const at = (t) => { el.t = t; el.renderNow(); return Array.from(el.jacobian); };
    return [at(0), at(0.5), at(1)];
  });
  check(soft[0].join() !== soft[1].join() && soft[1].join() !== soft[2].join(), "mapping softmax: its Jacobian changes along the face");
  check(await page.$$eval("#jacobian g.matrix", (g) => g.length) === 1, "compare none: one heatmap");
  // a score moved by hand leaves the path; t puts it back
  await page.locator("#jacobian [role=slider][aria-label='score z3']").focus();
  await page.keyboard.press("ArrowUp");
  await frames(page);
  check((await read()).face.startsWith("The scores are off the face path"), "a score moved by hand: off the path, said so");
  await slider.focus();
  await page.keyboard.press("ArrowLeft");
  await frames(page);
  const back = await page.$eval("#jacobian", (e) => [e.hasAttribute("scores"), e.t, e.scores]);
  check(!back[0] && back[1] === 0.99 && Math.abs(back[2][0] - (0.99 - 0.49 * 0.99)) < 1e-12, `t puts the scores back on the path (${JSON.stringify(back)})`);
}

async function checkSizesAndErrors(page) {
  const r = await page.evaluate(async () => {
    const el = document.getElementById("jacobian");
    for (const a of ["scores", "t"]) el.removeAttribute(a);
    el.mapping = "sparsemax"; el.compare = "softmax";
    const out = {};
    for (const n of [2, 5, 8]) {
      el.n = n;
      el.renderNow();
      const root = el.shadowRoot;
      out[n] = { cells: root.querySelectorAll("g.matrix.main rect.cell").length, texts: root.querySelectorAll("g.matrix.main text.val").length,
        handles: root.querySelectorAll("[role=slider]").length, tri: root.querySelector("svg.tri").getAttribute("display"), scores: el.scores,
        msg: root.querySelector("[part=message]").hidden ? "" : root.querySelector("[part=message]").textContent };
    }
    el.removeAttribute("n");
    const bad = document.createElement("sx-jacobian");
    bad.id = "bad";
    bad.setAttribute("n", "12");
    bad.setAttribute("mapping", "maxout");
    document.querySelector("main").append(bad);
    const bad2 = document.createElement("sx-jacobian");
    bad2.setAttribute("n", "2.5");
    bad2.setAttribute("scores", "1 2 0 -1");
    document.querySelector("main").append(bad2);
    for (let i = 0; i < 100 && !(bad.lastRenderMs > 0 && bad2.lastRenderMs > 0); i++) await new Promise((f) => requestAnimationFrame(f));
    const msg = (e) => e.shadowRoot.querySelector("[part=message]").textContent;
    const res = { bad: msg(bad), badN: bad.n, badMapping: bad.mapping, bad2: msg(bad2), bad2Scores: bad2.scores, cells2: bad2.shadowRoot.querySelectorAll("g.matrix.main rect.cell").length };
    bad.remove(); bad2.remove();
    return { out, res };
  });
  check(r.out[2].cells === 4 && r.out[2].handles === 2 && r.out[2].tri === "none" && r.out[2].scores.join() === "0.99,0.01", `n = 2: 2 x 2 (${JSON.stringify(r.out[2])})`);
  check(r.out[5].cells === 25 && r.out[5].texts === 25 && r.out[5].scores.join() === "0.99,0.01,-1,-1,-1" && r.out[5].msg === "", `n = 5: 25 cells with values (${JSON.stringify(r.out[5])})`);
  check(r.out[8].cells === 64 && r.out[8].texts === 0 && r.out[8].handles === 8, `n = 8: 64 cells, values in the tooltips only (${JSON.stringify(r.out[8])})`);
  check(r.res.bad.includes('n="12" is above 8; using 3') && r.res.bad.includes('mapping="maxout" is not one of') && r.res.badN === 3 && r.res.badMapping === "sparsemax",
    `bad n and mapping fall back with a message (got ${r.res.bad})`);
  check(r.res.bad2.includes('n="2.5" is not a whole number; using 3') && r.res.bad2.includes('scores="1 2 0 -1" has 4 numbers but n is 3') &&
    r.res.bad2Scores.join() === "0.99,0.01,-1" && r.res.cells2 === 9, `a fractional n and scores of another length fall back (got ${r.res.bad2})`);
  const svg = await page.evaluate(() => {
    const text = document.getElementById("jacobian").toSVG();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    return { ok: !doc.querySelector("parsererror"), rects: doc.querySelectorAll("rect").length, styled: !text.includes("var(--") };
  });
  check(svg.ok && svg.rects >= 9 + 9 + 9 && svg.styled, `SVG export is valid and self-styled (${JSON.stringify(svg)})`);
}

await runSuite("jacobian", async (browser, server) => {
  const { page, log } = await open(browser, server.url + pageWith("jacobian"), server.url, { viewport: { width: 1100, height: 1000 } });
  await ready(page);
  await page.locator("#jacobian").scrollIntoViewIfNeeded();
  await frames(page);
  check(await page.$$eval("#jacobian g.matrix", (g) => g.map((x) => x.dataset.mapping).join()) === "sparsemax,softmax", "the page's section: sparsemax beside softmax");
  await checkAgainstLibrary(page);
  await checkKeyboardAndPointer(page);
  await checkAlongTheFace(page);
  await checkSizesAndErrors(page);
  await page.evaluate(() => {
    const el = document.getElementById("jacobian");
    for (const a of ["scores", "n", "alpha", "lambda", "beta", "temperature", "t"]) el.removeAttribute(a);
    el.mapping = "sparsemax"; el.compare = "softmax";
  });
  await frames(page, 3);
  await fs.mkdir(SHOTS, { recursive: true });
  await page.locator("#jacobian").screenshot({ path: path.join(SHOTS, "widget-jacobian.png") });
  await checkClean(page, log, "jacobian: ");
  await page.close();
  // dark, and a phone: no horizontal scroll
  const dark = await open(browser, server.url + pageWith("jacobian"), server.url, { colorScheme: "dark", viewport: { width: 400, height: 900 } });
  await ready(dark.page);
  await dark.page.locator("#jacobian").scrollIntoViewIfNeeded();
  await frames(dark.page);
  const overflow = await dark.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `no horizontal scroll at 400 px (overflow ${overflow})`);
  await dark.page.locator("#jacobian").screenshot({ path: path.join(SHOTS, "widget-jacobian-dark-narrow.png") });
  await checkClean(dark.page, dark.log, "jacobian, dark: ");
  await dark.page.close();
});
