// <sx-positions> in real Chromium: on a page of its own served beside the library, and in its
// section of the built page. Zero console errors, CSP violations and foreign requests; every
// heatmap cell's sign and shade (64 levels of |v|, read back from its paths) are the library's
// positionalEncoding() for the element's base and dimension; the bits beside the matrix are the
// bits of each position; the keyboard (Tab to a slider, arrow keys) changes the base, the
// dimension and the positions, and the matrix follows, with one sx-positions-change per key; the
// base slider steps through every base from 3 to 10 and back (it stuck at 4); the offset plot depends on the offset only
// (every start at one offset gives the same dot product, and the dots of the chosen start lie on
// the band); the rotation's numbers; Transformer-XL's four panels are txlScores' terms; a bad
// attribute falls back with a message; an axe-core audit. Screenshots in build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, echoPasses, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-positions</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-positions</h1><button id="before" type="button">before</button>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-positions")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0 && e.matrix !== null), null, { timeout: 15000 });

// What one widget draws, read off its shadow DOM, and the library's matrix for its settings.
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const dim = el.dim - (el.dim % 2), P = el.positions;
    const lib = Array.from(sx.positionalEncoding(P, dim, { base: el.base }));
    // the subpaths "M x,y h w v h h -w z" of a group's paths, as cells of its grid (data-x0,
    // data-y0, column width, row height): a run of w / width cells in row (y - y0) / height
    const runs = (g, width, height, each) => {
      for (const p of g.querySelectorAll("path")) {
        for (const m of p.getAttribute("d").matchAll(/M([-\d.]+),([-\d.]+)h([-\d.]+)v([-\d.]+)h([-\d.]+)z/g)) {
          const [x, y, w, h] = m.slice(1).map(Number);
          const t = (y - Number(g.dataset.y0)) / height, c0 = (x - Number(g.dataset.x0)) / Number(g.dataset[width]);
          for (let c = c0; c < c0 + Math.round(w / Number(g.dataset[width])); c++) each(p, t, c, h);
        }
      }
    };
    const cg = root.querySelector("g.cells"), ch = Number(cg.dataset.row), cells = [];
    runs(cg, "cell", ch, (p, t, c, h) => cells.push({ t, c, h: h === ch, shade: Number(p.dataset.shade), op: Number(p.getAttribute("fill-opacity")), cls: p.getAttribute("class") }));
    const bg = root.querySelector("g.bits"), bits = [];
    runs(bg, "bit", Number(bg.dataset.row), (p, t, b) => bits.push({ t, b, on: p.getAttribute("class") === "bit1" }));
    const dots = [...root.querySelectorAll("g.dots circle")].map((c) => ({ k: Number(c.dataset.k), v: Number(c.dataset.v), lo: Number(c.dataset.lo), hi: Number(c.dataset.hi) }));
    const rel = (kind) => [...root.querySelectorAll(`g.rel.${kind} rect`)].map((r) => Number(r.dataset.v));
    return {
      base: el.base, dim, P, lib, cells, bits, dots, matrix: Array.from(el.matrix),
      txl: [0, 1, 2, 3].map((m) => rel(`txl-${m}`)), sum: rel("txl-sum"), shaw: rel("shaw"),
      readout: root.querySelector(".readout").textContent,
      msg: root.querySelector(".msg").hidden ? "" : root.querySelector(".msg").textContent,
    };
  }, id);
}

// The checks every state must pass.
function checkDrawn(s, what) {
  check(s.cells.length === s.P * s.dim, `${what}: ${s.P} x ${s.dim} cells (got ${s.cells.length})`);
  // each cell once, its sign the class, its shade round(64 |v|) of the library's value
  const seen = new Set(s.cells.map((c) => c.t * s.dim + c.c));
  check(seen.size === s.P * s.dim && s.cells.every((c) => Number.isInteger(c.t) && Number.isInteger(c.c) && c.t < s.P && c.c < s.dim && c.h),
    `${what}: every cell drawn once, on the grid`);
  let bad = -1;
  s.cells.forEach((c, j) => {
    const want = s.lib[c.t * s.dim + c.c];
    if (bad < 0 && (c.shade !== Math.round(64 * Math.abs(want)) || Math.abs(c.op - c.shade / 64) > 1e-4 || c.cls !== (want >= 0 ? "pos" : "neg"))) bad = j;
  });
  check(bad < 0, `${what}: every cell's sign and shade are the library's PE(t)[c] at base ${s.base} (first bad: ${bad < 0 ? "none" : JSON.stringify(s.cells[bad])})`);
  check(s.matrix.length === s.lib.length && s.matrix.every((v, j) => v === s.lib[j]), `${what}: the matrix property is the library's`);
  const nbits = s.bits.length / s.P;
  check(Number.isInteger(nbits) && new Set(s.bits.map((b) => b.t * nbits + b.b)).size === s.bits.length
    && s.bits.every((b) => b.on === (((b.t >> b.b) & 1) === 1)), `${what}: the bits are each position's (${nbits} bits)`);
  // the offset plot: every start at one offset gives one value, and the chosen start is on it
  const spread = Math.max(...s.dots.map((d) => d.hi - d.lo));
  check(s.dots.length > 0 && spread < 1e-5, `${what}: the dot product depends on the offset only (largest spread ${spread})`);
  check(s.dots.every((d) => d.v >= d.lo - 1e-6 && d.v <= d.hi + 1e-6), `${what}: the chosen start's dots lie on the band`);
  const k0 = s.dots.find((d) => d.k === 0);
  check(k0 && Math.abs(k0.v - s.dim / 2) < 1e-5, `${what}: offset 0 gives d/2 = ${s.dim / 2} (got ${k0?.v})`);
  check(s.msg === "", `${what}: no message (got "${s.msg}")`);
}

async function checkOwnPage(browser, server) {
  const html = PAGE(`<sx-positions id="a"></sx-positions>
<sx-positions id="small" base="100" dim="8" positions="16" offset="3" pair="2" position="5" clip="2" seed="4"></sx-positions>
<sx-positions id="bad" dim="7" base="nope" positions="2"></sx-positions>`);
  const { page, log } = await open(browser, server.url + "positions-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/positions-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  let s = await state(page, "a");
  checkDrawn(s, "default");
  check(s.base === 10000 && s.dim === 32 && s.P === 48, `defaults: base 10000, d 32, 48 positions (${s.base}, ${s.dim}, ${s.P})`);
  const small = await state(page, "small");
  checkDrawn(small, "base 100, d 8");
  check(small.matrix[8] === Math.fround(Math.sin(1)) && small.cells.find((c) => c.t === 1 && c.c === 0).shade === 54, "PE(1)[0] = sin 1, drawn at shade round(64 sin 1) = 54");

  // Transformer-XL's panels are txlScores' terms for the widget's random q, k, u, v: check the
  // sum is a + b + c + d and that (a) is q.k, independent of the base; the position terms change with it
  const tx = small.txl;
  check(tx.every((t) => t.length === 81) && small.sum.length === 81, "four 9 x 9 Transformer-XL panels and their sum");
  check(small.sum.every((v, j) => Math.abs(v - (tx[0][j] + tx[1][j] + tx[2][j] + tx[3][j])) < 1e-4), "the score panel is the sum of the four terms");
  check(small.shaw.every((v, j) => v === Math.max(-2, Math.min(2, (j % 9) - Math.floor(j / 9)))), "Shaw's panel is clip(j - i, -2, 2)");
  const reps = await page.evaluate(async () => {
    const sx = await import("/simplexity.js");
    const q = [1, 0, 0, 1], k = [1, 1, 2, 0];
    return Array.from(sx.txlScores(q, k, { u: [0, 1], v: [1, 0] }));
  });
  check(reps.length === 4 && Math.abs(reps[0] - 2) < 1e-6, `txlScores in the page (${reps})`);

  // ---- keyboard: Tab to the dimension slider, arrows change d; the matrix follows
  const events = [];
  await page.exposeFunction("__posEvent", (d) => events.push(d));
  await page.evaluate(() => document.addEventListener("sx-positions-change", (e) => window.__posEvent(e.detail)));
  await page.focus("#before");
  let label = "";
  for (let i = 0; i < 12 && !/dimension d/.test(label); i++) {
    await page.keyboard.press("Tab");
    label = await page.$eval("#a", (e) => e.shadowRoot.activeElement?.closest("label")?.textContent ?? "");
  }
  check(/dimension d/.test(label), `Tab reaches the dimension slider (${label})`);
  await page.keyboard.press("ArrowRight");
  await frames(page);
  s = await state(page, "a");
  check(s.dim === 34, `ArrowRight on d: 32 -> 34 (got ${s.dim})`);
  checkDrawn(s, "d = 34");
  await page.keyboard.press("Home");
  await frames(page);
  s = await state(page, "a");
  check(s.dim === 2, `Home on d: 2 (got ${s.dim})`);
  checkDrawn(s, "d = 2");
  await page.keyboard.press("End");
  await frames(page);
  // the base: Shift+Tab back to it, ArrowLeft lowers log10 base by 0.05
  await page.keyboard.press("Shift+Tab");
  label = await page.$eval("#a", (e) => e.shadowRoot.activeElement?.closest("label")?.textContent ?? "");
  check(/^base/.test(label), `Shift+Tab reaches the base slider (${label})`);
  const before = (await state(page, "a")).lib;
  for (let i = 0; i < 20; i++) await page.keyboard.press("ArrowLeft");
  await frames(page);
  s = await state(page, "a");
  check(s.base === 1000 && s.dim === 64, `20 x ArrowLeft on the base: 10000 -> 1000, d 64 (got ${s.base}, ${s.dim})`);
  checkDrawn(s, "base 1000");
  check(s.lib.some((v, j) => v !== before[j]), "the matrix changed with the base");
  // positions: Tab twice forward (dimension, max position)
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("PageDown");
  await frames(page);
  s = await state(page, "a");
  check(s.P < 48 && s.cells.length === s.P * s.dim, `PageDown on the positions: fewer rows (${s.P})`);
  checkDrawn(s, "fewer positions");
  check(events.length === 24 && events.every((d) => ["base", "dim", "positions", "offset", "pair", "position", "clip"].every((k) => typeof d[k] === "number")),
    `one sx-positions-change per key with { base, dim, positions, offset, pair, position, clip } (got ${events.length}: ${JSON.stringify(events.at(-1))})`);
  // offset k: the marked rows and the rotation's readout follow
  const beforeK = s.readout;
  await page.keyboard.press("Tab");
  await page.keyboard.press("ArrowRight");
  await frames(page);
  s = await state(page, "a");
  check(/M_5 maps PE\(3\) to PE\(8\)/.test(s.readout) && s.readout !== beforeK, `ArrowRight on the offset: k = 5, the rotation maps PE(3) to PE(8) (${s.readout.slice(0, 80)}…)`);
  const err = Number(/off from PE\(8\) by ([\d.e+-]+)/.exec(s.readout)?.[1]);
  check(err < 1e-5, `M_k PE(i) equals PE(i + k) (off by ${err})`);

  // ---- the base slider, one step at a time from its bottom (base 3) to 10 and back: each step
  // gives round(10^v) for its value v (it used to snap back to log10 of the rounded base and stick at 4)
  await page.$eval("#small", (e) => e.shadowRoot.querySelector(".controls label input").focus());
  const baseSteps = [];
  const walk = [["Home"], ...Array(10).fill(["ArrowRight"]), ...Array(10).fill(["ArrowLeft"])];
  for (const [key] of walk) {
    await page.keyboard.press(key);
    await frames(page);
    baseSteps.push(await page.$eval("#small", (e) => ({ base: e.base, v: Number(e.shadowRoot.querySelector(".controls label input").value) })));
  }
  const wantBases = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5];
  check(baseSteps.every((b, j) => Math.abs(b.v - wantBases[j]) < 1e-9 && b.base === Math.round(10 ** wantBases[j])),
    `the base slider steps 3 -> 10 -> 3 through every value (got ${baseSteps.map((b) => b.base).join(" ")})`);
  checkDrawn(await state(page, "small"), "base 3 after the walk");

  // ---- bad attributes: a message, the fallbacks
  const bad = await state(page, "bad");
  check(/dim="7" is odd/.test(bad.msg) && /base="nope" is not a number/.test(bad.msg) && /positions="2" is below 8/.test(bad.msg), `bad attributes leave a message (got "${bad.msg}")`);
  check(bad.dim === 6 && bad.base === 10000 && bad.P === 48 && bad.cells.length === 48 * 6, "... and fall back (d 6, base 10000, 48 positions)");

  // axe-core over the page and the shadow roots
  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"],
  })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" > ")).join("; ")}`));
  check(violations.length === 0, `axe: no violations (got ${JSON.stringify(violations)})`);
  await page.locator("#small").screenshot({ path: path.join(SHOTS, "positions-small.png") });
  await checkClean(page, log, "own page: ");
  await page.close();
}

async function checkSection(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("positions-section") + "#positions-section", server.url, { viewport: { width: 1100, height: 1200 } });
  await ready(page);
  await page.locator("#positions").scrollIntoViewIfNeeded();
  await rendered(page);
  await frames(page);
  const placed = await page.$eval("#positions-section", (sec) => ({ next: sec.nextElementSibling?.id, h: sec.querySelector("h2").textContent }));
  check(/^\d+\. Where a token is/.test(placed.h) && placed.next !== undefined, `the section is on the page, numbered (${JSON.stringify(placed)})`);
  checkDrawn(await state(page, "positions"), "page section");
  await page.locator("#positions-section").screenshot({ path: path.join(SHOTS, "positions-section.png") });
  await checkClean(page, log, "page: ");
  await page.close();
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("positions", async (browser, server) => {
  await checkOwnPage(browser, server);
  await checkSection(browser, server);
});
