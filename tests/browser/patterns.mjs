// <sx-patterns> in real Chromium: on a page of its own served beside the library, and in its
// section of the built page. Zero console errors, CSP violations and foreign requests; at n <= 96
// (one cell per pair) the cells drawn in the pattern's panel, read back from the SVG paths through
// the panel's geometry (data-x0, data-y0, data-cell and the frame), are exactly the pairs of the
// library's attentionPattern() on the same keys, and so is the element's result.mask; the
// sparsemax panel's cells are the nonzero weights of attention() recomputed in the page; the pair
// fraction shown (panel, table, readout) is the library's; above 96 the block shades add up to the
// pair count; the keyboard (Tab to the select, arrow keys; the n slider) changes the pattern and
// n, the view follows, focus is visible and one sx-patterns-change per change carries the
// library's pairs; LSH's steps (bucket strips, sorted order, chunk lines) are attentionPattern()'s;
// bad attributes fall back with a message; no horizontal scroll at 400 and 390 px; on a 390 px
// touch screen every SVG text is 11 px or more and the controls 24 px; an axe-core audit.
// Screenshots in build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, echoPasses, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-patterns</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-patterns</h1><button id="before" type="button">before</button>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-patterns")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0 && e.result), null, { timeout: 20000 });

// What one widget draws, read off its shadow DOM, and what the library says for the same keys
// (regenerated in the page from the seed, as the widget documents: 16 dimensions, q ~ sum of
// three uniforms, k = q + noise).
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const { mulberry32 } = await import("/viz/mulberry32.js");
    const el = document.getElementById(i), root = el.shadowRoot, res = el.result;
    const n = res.n, DH = 16;
    const r = mulberry32(el.seed + 1);
    const g = () => (r() + r() + r() - 1.5) * 2;
    const q = Float32Array.from({ length: n * DH }, g);
    const k = Float32Array.from(q, (x) => x + 0.5 * g());
    const lib = sx.attentionPattern(n, res.pattern, { k });
    // the cells of one panel: every "M x,y h w v w h -w z" of its paths, as (row, column)
    const cellsOf = (name) => {
      const svg = root.querySelector(`svg[data-panel='${name}']`), grp = svg.querySelector("g.cells");
      const x0 = Number(grp.dataset.x0), y0 = Number(grp.dataset.y0), cw = Number(grp.dataset.cell), c = Number(grp.dataset.cells);
      const frame = svg.querySelector("rect.frame");
      const geo = { c, cw, frameOk: Math.abs(Number(frame.getAttribute("x")) - x0) < 1e-9 && Math.abs(Number(frame.getAttribute("y")) - y0) < 1e-9
        && Math.abs(Number(frame.getAttribute("width")) - c * cw) < 1e-6 && Math.abs(Number(frame.getAttribute("height")) - c * cw) < 1e-6 };
      const cells = [], bad = [];
      let partial = 0;
      for (const p of grp.querySelectorAll("path")) {
        if (p.hasAttribute("fill-opacity")) partial++;
        for (const m of p.getAttribute("d").matchAll(/M([-\d.]+),([-\d.]+)h([-\d.]+)v([-\d.]+)h([-\d.]+)z/g)) {
          const [x, y, w, h, w2] = m.slice(1).map(Number);
          const col = (x - x0) / cw, row = (y - y0) / cw;
          if (Math.abs(w - cw) > 2e-3 || Math.abs(h - cw) > 2e-3 || Math.abs(w2 + cw) > 2e-3
            || Math.abs(col - Math.round(col)) > 1e-2 || Math.abs(row - Math.round(row)) > 1e-2
            || col < -0.01 || row < -0.01 || col > c - 0.99 || row > c - 0.99) bad.push(m[0]);
          cells.push(Math.round(row) * c + Math.round(col));
        }
      }
      return { ...geo, cells: cells.sort((a, b) => a - b), bad: bad.slice(0, 3), partial };
    };
    const pat = cellsOf("pattern"), spm = cellsOf("sparsemax");
    const want = [];
    for (let e = 0; e < n * n; e++) if (lib.mask[e]) want.push(e);
    const w = sx.attention(q, k, k, { tq: n, mapping: "sparsemax", weights: true }).weights;
    const wantSp = [];
    for (let e = 0; e < n * n; e++) if (w[e] !== 0) wantSp.push(e);
    let maskSame = res.mask.length === lib.mask.length;
    for (let e = 0; maskSame && e < n * n; e++) maskSame = res.mask[e] === lib.mask[e];
    // above 96: each block's shade times its pair count adds up to the pairs
    const c = Math.min(n, 96), per = new Float64Array(c);
    for (let t = 0; t < n; t++) per[Math.floor((t * c) / n)]++;
    let blockPairs = 0;
    for (let a = 0; a < c; a++) for (let b = 0; b < c; b++) blockPairs += res.cells[a * c + b] * per[a] * per[b];
    const row = root.querySelector(`tbody tr[data-kind='${res.pattern.kind}']`);
    const lshSvg = root.querySelector("svg.lsh");
    const strip = (name) => [...root.querySelectorAll(`g.strip.${name} rect`)].map((x) => Number(x.dataset.bucket));
    return {
      n, kind: res.pattern.kind, pattern: res.pattern, pairs: res.pairs, fraction: res.fraction,
      lib: { pairs: lib.pairs, fraction: lib.fraction, buckets: lib.buckets && Array.from(lib.buckets), order: lib.order && Array.from(lib.order), chunk: lib.chunk },
      pat, want, spm, wantSp, maskSame, blockPairs,
      panelText: root.querySelector("svg[data-panel='pattern']").textContent,
      rowText: row ? [...row.cells].map((x) => x.textContent) : null, rowCurrent: row ? row.classList.contains("current") : false,
      rows: root.querySelectorAll("tbody tr").length,
      readout: root.querySelector(".readout").textContent,
      lsh: { shown: getComputedStyle(lshSvg).display !== "none", byPos: strip("by-position"), sorted: strip("sorted"),
        lines: [...lshSvg.querySelectorAll("line.chunk")].map((x) => Number(x.dataset.at)), text: lshSvg.textContent },
      msg: root.querySelector(".msg").hidden ? "" : root.querySelector(".msg").textContent,
      select: root.querySelector("select").value, slider: root.querySelector("input[type=range]").getAttribute("aria-valuetext"),
    };
  }, id);
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const pct = (f) => `${(100 * f).toFixed(1)}%`;

// The checks every state at n <= 96 passes.
function checkDrawn(s, what) {
  check(s.pat.c === s.n && s.pat.frameOk && Math.abs(s.pat.cw * s.n - 170) < 1e-6, `${what}: one cell per pair, ${s.n} a side, inside the frame (cells ${s.pat.c}, cell ${s.pat.cw})`);
  check(s.pat.bad.length === 0 && s.pat.partial === 0, `${what}: every drawn cell is a whole, opaque cell on the grid (bad ${JSON.stringify(s.pat.bad)}, partial paths ${s.pat.partial})`);
  check(same(s.pat.cells, s.want), `${what}: the drawn cells are attentionPattern()'s mask (${s.pat.cells.length} drawn, ${s.want.length} pairs)`);
  check(s.maskSame && s.pairs === s.lib.pairs && s.fraction === s.lib.fraction, `${what}: result.mask, pairs, fraction are the library's (${s.pairs} vs ${s.lib.pairs})`);
  check(same(s.spm.cells, s.wantSp), `${what}: the sparsemax panel's cells are attention()'s nonzero weights (${s.spm.cells.length} vs ${s.wantSp.length})`);
  checkFraction(s, what);
}

function checkFraction(s, what) {
  const f = pct(s.lib.fraction);
  check(s.panelText.includes(`${f} of pairs computed`), `${what}: the panel shows the library's fraction ${f} (got "${s.panelText}")`);
  check(s.rowText && s.rowText[1] === f && s.rowCurrent, `${what}: the table's current row shows ${f} (got ${JSON.stringify(s.rowText)})`);
  check(s.readout.includes(`computes ${s.lib.pairs} of ${s.n * s.n} pairs (${f})`), `${what}: the readout says ${s.lib.pairs} of ${s.n * s.n} pairs (${f}) (got "${s.readout}")`);
  check(s.rows === 4, `${what}: a table row per pattern (got ${s.rows})`);
  check(s.msg === "", `${what}: no message (got "${s.msg}")`);
}

function checkLsh(s, what) {
  // at most 256 stripes: stripe x shows position floor(x n / stripes)
  const n = s.n, c = Math.min(n, 256), at = Array.from({ length: c }, (_, x) => Math.floor((x * n) / c));
  const b = s.lib.buckets.slice(0, n), o = s.lib.order.slice(0, n);
  check(s.lsh.shown, `${what}: the LSH steps are shown`);
  check(same(s.lsh.byPos, at.map((t) => b[t])), `${what}: strip 1 is each position's bucket (round 1) from attentionPattern()`);
  const sorted = at.map((x) => b[o[x]]);
  check(same(s.lsh.sorted, sorted) && sorted.every((x, i) => i === 0 || x >= sorted[i - 1]), `${what}: strip 2 is the buckets in the library's sorted order, non-decreasing`);
  const lines = [];
  for (let t = s.lib.chunk; t < n; t += s.lib.chunk) lines.push(t);
  check(same(s.lsh.lines, lines) && s.lsh.text.includes(`chunks of ${s.lib.chunk}`), `${what}: a chunk line every ${s.lib.chunk} positions (got ${s.lsh.lines})`);
}

async function checkOwnPage(browser, server) {
  const html = PAGE(`<sx-patterns id="a" n="64"></sx-patterns>
<sx-patterns id="str" n="81" pattern="strided" stride="9"></sx-patterns>
<sx-patterns id="fix" n="50" pattern="fixed" block="7" summary="3"></sx-patterns>
<sx-patterns id="lsh" n="96" pattern="lsh" buckets="6" rounds="2" seed="3"></sx-patterns>
<sx-patterns id="big" n="300" pattern="lsh"></sx-patterns>
<sx-patterns id="bad" n="5000" pattern="nope" seed="-1"></sx-patterns>`);
  const { page, log } = await open(browser, server.url + "patterns-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/patterns-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  // ---- every pattern at n <= 96
  const a = await state(page, "a");
  check(a.kind === "local" && a.pattern.width === 8 && a.n === 64, `default: local window ±8 (got ${JSON.stringify(a.pattern)}, n ${a.n})`);
  checkDrawn(a, "local n = 64");
  check(!a.lsh.shown, "local: no LSH steps");
  const st = await state(page, "str");
  check(st.pattern.stride === 9, "strided: stride 9");
  checkDrawn(st, "strided n = 81");
  const fx = await state(page, "fix");
  check(fx.pattern.block === 7 && fx.pattern.summary === 3, "fixed: block 7, 3 summary positions");
  checkDrawn(fx, "fixed n = 50");
  const l = await state(page, "lsh");
  check(l.pattern.buckets === 6 && l.pattern.rounds === 2 && l.pattern.chunk === 16, `lsh: 6 buckets, 2 rounds, chunk ceil(96 / 6) = 16 (got ${JSON.stringify(l.pattern)})`);
  checkDrawn(l, "lsh n = 96");
  checkLsh(l, "lsh n = 96");

  // ---- above 96: blocks, each shaded by the fraction of its pairs
  const big = await state(page, "big");
  check(big.pat.c === 96 && big.pat.bad.length === 0, `n = 300: 96 cells a side (got ${big.pat.c}, bad ${JSON.stringify(big.pat.bad)})`);
  check(Math.abs(big.blockPairs - big.lib.pairs) < 1e-3 * big.lib.pairs && big.pairs === big.lib.pairs,
    `n = 300: the block shades add up to the library's ${big.lib.pairs} pairs (got ${big.blockPairs.toFixed(1)})`);
  checkFraction(big, "lsh n = 300");
  checkLsh(big, "lsh n = 300");

  // ---- bad attributes: a message, the defaults
  const bad = await page.$eval("#bad", (el) => ({ msg: el.shadowRoot.querySelector(".msg").textContent, n: el.result.n, kind: el.result.pattern.kind }));
  check(/n="5000"/.test(bad.msg) && /pattern="nope" is not one of local, strided, fixed, lsh/.test(bad.msg) && /seed="-1"/.test(bad.msg),
    `bad attributes leave a message (got "${bad.msg}")`);
  check(bad.n === 256 && bad.kind === "local", `... and fall back to n = 256, local (got ${bad.n}, ${bad.kind})`);

  // ---- keyboard: Tab from the button before: the select, the slider (the export buttons come last)
  const events = [];
  await page.exposeFunction("__patEvent", (d) => events.push(d));
  await page.evaluate(() => document.addEventListener("sx-patterns-change", (e) => window.__patEvent(e.detail)));
  await page.focus("#before");
  const tabbed = [];
  for (let i = 0; i < 1; i++) {
    await page.keyboard.press("Tab");
    tabbed.push(await page.evaluate(() => { const x = document.activeElement; const f = x.shadowRoot && x.shadowRoot.activeElement; return `${x.id} ${f ? f.localName : "none"}`; }));
  }
  check(tabbed[0] === "a select", `Tab reaches the pattern select first (got ${tabbed})`);
  const ringOf = () => page.$eval("#a", (e) => { const cs = getComputedStyle(e.shadowRoot.activeElement); return `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`; });
  const selRing = await ringOf();
  check(!/^none/.test(selRing) && !/ 0px /.test(selRing), `the focused select shows a focus ring (outline ${selRing})`);
  await page.keyboard.press("ArrowDown");
  await frames(page);
  const k1 = await state(page, "a");
  check(k1.kind === "strided" && k1.select === "strided", `ArrowDown on the select: strided (got ${k1.kind})`);
  checkDrawn(k1, "after ArrowDown");
  check(await page.$eval("#a", (e) => e.getAttribute("pattern")) === "strided", "the pattern is written to the attribute");
  await page.keyboard.press("Tab");
  const onSlider = await page.$eval("#a", (e) => e.shadowRoot.activeElement && e.shadowRoot.activeElement.type);
  check(onSlider === "range", `Tab moves on to the n slider (got ${onSlider})`);
  const sliderRing = await ringOf();
  check(!/^none/.test(sliderRing) && !/ 0px /.test(sliderRing), `the focused slider shows a focus ring (outline ${sliderRing})`);
  await page.keyboard.press("ArrowRight");
  await frames(page);
  const k2 = await state(page, "a");
  check(k2.n === 91 && k2.slider === "91" && k2.kind === "strided", `ArrowRight: n = 2^6.5, 91 (got ${k2.n}, slider says ${k2.slider})`);
  checkDrawn(k2, "after ArrowRight (n = 91)");
  check(k2.readout.startsWith("n = 91,"), `the readout follows (got "${k2.readout.slice(0, 30)}")`);
  // (the event is sent by the render that follows a change: keys within one frame send one)
  await page.keyboard.press("ArrowLeft");
  await frames(page);
  await page.keyboard.press("ArrowLeft");
  await frames(page);
  const k3 = await state(page, "a");
  check(k3.n === 45, `ArrowLeft x2: n = 45 (got ${k3.n})`);
  checkDrawn(k3, "after ArrowLeft x2 (n = 45)");
  const last = events[events.length - 1];
  check(events.length === 4 && events[0].pattern === "strided" && events[1].n === 91 && last.n === 45 && last.pattern === "strided"
    && last.pairs === k3.lib.pairs && last.fraction === k3.lib.fraction,
    `one sx-patterns-change per change (a frame apart), detail { n, pattern, pairs, fraction } the library's (got ${events.length}: ${JSON.stringify(last)})`);
  // back to the select: to LSH with the keyboard, the steps appear
  await page.keyboard.down("Shift"); await page.keyboard.press("Tab"); await page.keyboard.up("Shift");
  await page.keyboard.press("End");
  await frames(page);
  const k4 = await state(page, "a");
  check(k4.kind === "lsh", `End on the select: LSH (got ${k4.kind})`);
  checkDrawn(k4, "keyboard LSH n = 45");
  checkLsh(k4, "keyboard LSH n = 45");

  // axe-core over the page and the shadow roots
  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"],
  })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" > ")).join("; ")}`));
  check(violations.length === 0, `axe: no violations (got ${JSON.stringify(violations)})`);
  await page.locator("#lsh").screenshot({ path: path.join(SHOTS, "patterns-lsh.png") });
  await checkClean(page, log, "own page: ");
  await page.close();
}

// On a phone (390 px, touch): every SVG text at least 11 px on screen (its font size times the
// picture's scale), the select and the slider at least 24 px tall.
const phone = (page) => page.$eval("#patterns", (el) => {
  let min = Infinity, at = "";
  for (const t of el.shadowRoot.querySelectorAll("svg text")) {
    const svg = t.ownerSVGElement, k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    if (!k) continue; // a hidden picture
    const px = parseFloat(getComputedStyle(t).fontSize) * k;
    if (px < min) { min = px; at = t.textContent.slice(0, 40); }
  }
  const small = [...el.shadowRoot.querySelectorAll("select, input")].map((c) => c.getBoundingClientRect()).filter((b) => b.height < 24 || b.width < 24).length;
  return { min, at, small };
});

async function checkSection(browser, server) {
  for (const width of [1100, 400, 390]) {
    const touch = width === 390 ? { hasTouch: true, isMobile: true } : {};
    const { page, log } = await open(browser, server.url + pageWith("patterns-section") + "#patterns-section", server.url, { viewport: { width, height: 1000 }, ...touch });
    await ready(page);
    await page.locator("#patterns").scrollIntoViewIfNeeded();
    await rendered(page);
    await frames(page);
    const s = await state(page, "patterns");
    check(s.n === 256 && s.kind === "local", `page (${width} px): n = 256, local (got ${s.n}, ${s.kind})`);
    checkFraction(s, `page (${width} px)`);
    check(await page.$eval("#patterns-section h2", (h) => /Structured patterns/.test(h.textContent)), `page (${width} px): the section's heading`);
    // the widget's own boxes inside the page's width (at 390 px another section overflows by 3 px: not this one's)
    const scroll = await page.evaluate(() => Math.max(...[document.getElementById("patterns"), ...document.getElementById("patterns").shadowRoot.querySelectorAll("*")]
      .map((e) => e.getBoundingClientRect().right)) - document.documentElement.clientWidth);
    check(scroll <= 0.5, `page (${width} px): sx-patterns inside the page's width (overflow ${scroll.toFixed(1)} px)`);
    await page.locator("#patterns select").selectOption("lsh");
    await frames(page);
    const l = await state(page, "patterns");
    checkFraction(l, `page (${width} px), LSH`);
    checkLsh(l, `page (${width} px), LSH`);
    if (width === 390) {
      const f = await phone(page);
      check(f.min >= 11 - 1e-6 && f.small === 0, `phone: every SVG text at least 11 px on screen, the controls at least 24 px (smallest ${f.min.toFixed(1)} px "${f.at}", ${f.small} small controls)`);
    }
    await page.locator("#patterns-section").screenshot({ path: path.join(SHOTS, `patterns-section-${width}.png`) });
    await checkClean(page, log, `page (${width} px): `);
    await page.close();
  }
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("patterns", async (browser, server) => {
  await checkOwnPage(browser, server);
  await checkSection(browser, server);
});
