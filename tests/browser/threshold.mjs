// <sx-threshold> in real Chromium: on the built page (dist/site, its section) and on a page of its
// own served beside the library. Zero console errors, CSP violations and foreign requests; the
// tau line drawn where the library's threshold() puts it (its y against the score axis' scale,
// read off the SVG); the lit bars are the support, the hollow rings the exact zeros (n minus the
// support size); the keyboard (Tab into the bars, Left/Right, Up/Down, Home/End) changes a score
// and moves the line, with a visible focus ring and the sx-threshold-change event; a pointer drag;
// n = 50; entmax (line at tau / (alpha - 1)) and softmax (no line); "Show the steps" for both
// closed form and bisection, the candidate line moving with its slider; bad attributes fall back
// with a message; an axe-core audit with the steps open; the page's shared alpha reaches it.
// Screenshots in build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, echoPasses, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-threshold</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-threshold</h1><button id="before" type="button">before</button>
${body}
</main></body></html>`;

// Waits until every <sx-threshold> has rendered.
const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-threshold")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0), null, { timeout: 15000 });

// What one widget shows, read off its shadow DOM, and what the library says for the same scores.
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const scores = [...root.querySelectorAll("[role=slider][aria-label^='score ']")].map((g) => Number(g.getAttribute("aria-valuenow")));
    const mapping = el.mapping, alpha = el.alpha, T = el.temperature, x = Float32Array.from(scores);
    const tau = sx.threshold(x, mapping === "entmax" ? { mapping, alpha, temperature: T } : { mapping, temperature: T })[0];
    const fwd = { softmax: sx.softmax, sparsemax: sx.sparsemax, entmax15: sx.entmax15, entmax: sx.entmax }[mapping];
    const p = Array.from(fwd(x, mapping === "entmax" ? { alpha, temperature: T } : { temperature: T }));
    const a1 = mapping === "sparsemax" ? 1 : mapping === "entmax15" ? 0.5 : mapping === "entmax" ? alpha - 1 : null;
    const want = a1 === null ? null : (T * tau) / a1;
    const axis = root.querySelector("g.scores");
    const [d0, d1] = axis.getAttribute("data-domain").split(" ").map(Number);
    const [r0, r1] = axis.getAttribute("data-range").split(" ").map(Number);
    const yOf = (z) => r0 + ((Math.max(d0, Math.min(d1, z)) - d0) * (r1 - r0)) / (d1 - d0);
    const line = root.querySelector("line.tau");
    const cand = root.querySelector("line.candidate");
    return {
      scores, tau, p, want, wantY: want === null ? null : yOf(want),
      lineY: line ? Number(line.getAttribute("y1")) : null, lineZ: line ? Number(line.dataset.z) : null,
      candZ: cand ? Number(cand.dataset.z) : null, candY: cand ? Number(cand.getAttribute("y1")) : null,
      lit: [...root.querySelectorAll("rect.bar")].map((r) => r.classList.contains("in")),
      zeros: root.querySelectorAll(".p.zero").length, weights: root.querySelectorAll("rect.p").length,
      readout: root.querySelector(".readout").textContent, note: root.querySelector("text.note").textContent,
      msg: root.querySelector(".msg").hidden ? "" : root.querySelector(".msg").textContent,
      attr: el.getAttribute("scores"),
    };
  }, id);
}

// The checks every state must pass: the line where threshold() puts it, support and zeros.
function checkDrawn(s, what) {
  const n = s.scores.length, support = s.p.filter((v) => v > 0).length;
  if (s.want === null) {
    check(s.lineY === null, `${what}: no threshold line (softmax)`);
  } else {
    check(s.lineY !== null && Math.abs(s.lineY - s.wantY) < 0.01 && Math.abs(s.lineZ - s.want) < 1e-9,
      `${what}: the line is drawn at threshold()'s z = ${s.want.toFixed(4)}, y ${s.wantY.toFixed(2)} (got y ${s.lineY}, z ${s.lineZ})`);
    // every bar above the line is lit, every bar under it is not (away from the line itself)
    const wrong = s.scores.map((z, i) => (Math.abs(z - s.want) > 1e-4 && (z > s.want) !== s.lit[i] ? i : -1)).filter((i) => i >= 0);
    check(wrong.length === 0, `${what}: the bars above the line are the lit ones (wrong: ${wrong})`);
  }
  check(s.lit.filter(Boolean).length === support, `${what}: ${support} lit bars, the support (got ${s.lit.filter(Boolean).length})`);
  check(s.zeros === n - support && s.weights === support, `${what}: ${n - support} exact zeros drawn as rings, ${support} weight bars (got ${s.zeros}, ${s.weights})`);
  check(s.msg === "", `${what}: no message (got "${s.msg}")`);
}

async function checkOwnPage(browser, server) {
  const html = PAGE(`<sx-threshold id="a"></sx-threshold>
<sx-threshold id="big" n="50" seed="7"></sx-threshold>
<sx-threshold id="ent" mapping="entmax" alpha="1.3" scores="1.2 0.3 -0.5 0.9 0.1 -1.4 2 0.95" steps></sx-threshold>
<sx-threshold id="soft" mapping="softmax" n="6"></sx-threshold>
<sx-threshold id="bad" n="2.5" mapping="fusedmax" alpha="0.5"></sx-threshold>`);
  const { page, log } = await open(browser, server.url + "threshold-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/threshold-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  // ---- the default: 8 seeded scores, sparsemax
  let s = await state(page, "a");
  check(s.scores.length === 8, `default: 8 scores (got ${s.scores.length})`);
  checkDrawn(s, "default");
  check(/^sparsemax: τ = -?\d\.\d{4}, line at z = -?\d\.\d{4}; support \d of 8 \(items? [\d, ]+\), \d exact zeros?$/.test(s.readout), `default: the readout (got ${s.readout})`);
  const again = await page.evaluate(() => { const e = document.createElement("sx-threshold"); return e.seed; });
  check(again === 1, "seed defaults to 1");

  // ---- keyboard: Tab from the button before lands on a bar (one tab stop for the row)
  const events = [];
  await page.exposeFunction("__thrEvent", (d) => events.push(d));
  await page.evaluate(() => document.addEventListener("sx-threshold-change", (e) => window.__thrEvent(e.detail)));
  await page.focus("#before");
  const tabbed = [];
  for (let i = 0; i < 4 && !tabbed.includes("a score 1"); i++) {
    await page.keyboard.press("Tab");
    tabbed.push(await page.evaluate(() => { const a = document.activeElement; const f = a.shadowRoot && a.shadowRoot.activeElement; return a.id + " " + (f ? f.getAttribute("aria-label") : "none"); }));
  }
  // the row of bars as one stop, first (the export buttons come last)
  check(tabbed.join() === "a score 1", `Tab reaches the first bar first (got ${tabbed})`);
  const ring = await page.$eval("#a", (e) => getComputedStyle(e.shadowRoot.activeElement.querySelector(".ring")).stroke);
  check(ring && ring !== "none" && !/rgba\(0, 0, 0, 0\)|transparent/.test(ring), `the focused bar shows a focus ring (stroke ${ring})`);
  // the top score's bar: walk there with ArrowRight, raise it with ArrowUp x4 (+0.2)
  const top = s.scores.indexOf(Math.max(...s.scores));
  for (let i = 0; i < top; i++) await page.keyboard.press("ArrowRight");
  const onTop = await page.$eval("#a", (e) => e.shadowRoot.activeElement.getAttribute("aria-label"));
  check(onTop === `score ${top + 1}`, `ArrowRight moves along the bars (at ${onTop})`);
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowUp");
  await frames(page);
  const s1 = await state(page, "a");
  check(Math.abs(s1.scores[top] - (s.scores[top] + 0.2)) < 1e-9, `ArrowUp x4 raises score ${top + 1} by 0.2 (${s.scores[top]} -> ${s1.scores[top]})`);
  check(s1.lineY < s.lineY - 0.5, `... and the line moves up (y ${s.lineY} -> ${s1.lineY})`);
  checkDrawn(s1, "after ArrowUp");
  check(s1.attr !== null && s1.attr.split(" ").length === 8, `the scores are written to the attribute (${s1.attr})`);
  const last = events[events.length - 1];
  check(events.length === 4 && last && Math.abs(last.tau - s1.tau) < 1e-7 && last.p.length === 8 && last.mapping === "sparsemax"
    && JSON.stringify(last.support) === JSON.stringify(s1.p.map((v, i) => (v > 0 ? i : -1)).filter((i) => i >= 0)),
    `one sx-threshold-change per key, detail { scores, tau, p, support, mapping, alpha } (got ${events.length}: ${JSON.stringify(last)})`);
  await page.keyboard.press("End");
  await frames(page);
  const s2 = await state(page, "a");
  check(s2.scores[top] === 3 && s2.lit.filter(Boolean).length === 1 && s2.zeros === 7, `End puts score ${top + 1} at 3: it alone is the support, 7 zeros (${s2.readout})`);
  checkDrawn(s2, "after End");
  await page.keyboard.press("Home");
  await frames(page);
  const s3 = await state(page, "a");
  check(s3.scores[top] === -3 && !s3.lit[top], `Home puts it at -3, out of the support (${s3.readout})`);
  checkDrawn(s3, "after Home");

  // ---- pointer: drag bar 1 to the top of the axis
  const box = await page.locator("#a svg.picture").boundingBox();
  const geo = await page.$eval("#a", (e) => { const r = e.shadowRoot.querySelector("rect.bar-hit"); return { x: Number(r.getAttribute("x")) + Number(r.getAttribute("width")) / 2, y: Number(r.getAttribute("y")) }; });
  const k = box.width / 640;
  await page.mouse.move(box.x + geo.x * k, box.y + (geo.y + 150) * k);
  await page.mouse.down();
  await page.mouse.move(box.x + geo.x * k, box.y + (geo.y + 40) * k, { steps: 4 });
  await page.mouse.up();
  await frames(page);
  const s4 = await state(page, "a");
  check(s4.scores[0] > s3.scores[0] + 1, `dragging bar 1 up raises its score (${s3.scores[0]} -> ${s4.scores[0]})`);
  checkDrawn(s4, "after a drag");

  // ---- n = 50
  const b = await state(page, "big");
  check(b.scores.length === 50, `n = 50: 50 bars (got ${b.scores.length})`);
  checkDrawn(b, "n = 50");

  // ---- alpha-entmax: the line at tau / (alpha - 1), the powered weights beside the water, the bisection
  const e = await state(page, "ent");
  check(e.want !== null && Math.abs(e.lineZ - e.want) < 1e-9, "entmax: the line at z = tau / (alpha - 1)");
  checkDrawn(e, "entmax alpha 1.3");
  check(await page.$$eval("#ent rect.powered", (r) => r.length) === e.p.filter((v) => v > 0).length, "entmax: one outlined p bar per support item");
  const rowsEnt = await page.$$eval("#ent tbody tr", (r) => r.length);
  check(rowsEnt === 30, `entmax steps: 30 bisection rows (got ${rowsEnt})`);
  check(e.candZ !== null && Math.abs(e.candZ - e.want) < 1e-5, `entmax steps: the last midpoint's line is threshold()'s (${e.candZ} vs ${e.want})`);
  const checkText = await page.$eval("#ent .steps p.muted", (p) => p.textContent);
  const diff = Number(checkText.match(/difference ([\d.e+-]+)/)[1]);
  check(diff < 1e-5, `entmax steps: the bisection agrees with threshold() (${checkText})`);
  await page.locator("#ent .steps input[type=range]").focus();
  await page.keyboard.press("Home");
  await frames(page);
  const e1 = await state(page, "ent");
  check(Math.abs(e1.candY - e.candY) > 0.5 && e1.lineY === e.lineY, `entmax steps: iteration 1 moves the candidate line, not tau's (${e.candY} -> ${e1.candY})`);
  check(await page.$eval("#ent tbody tr.current", (r) => r.cells[0].textContent) === "1", "entmax steps: iteration 1's row is marked");

  // ---- softmax: no line, the normaliser instead
  const so = await state(page, "soft");
  checkDrawn(so, "softmax");
  check(so.note.includes("no threshold") && so.note.includes(so.tau.toFixed(3)) && so.readout.startsWith("softmax: no threshold, all 6 weights > 0"),
    `softmax: says it has no threshold and shows log-sum-exp ${so.tau.toFixed(3)} (got "${so.note}" / "${so.readout}")`);

  // ---- bad attributes: a message, the defaults
  const bad = await page.$eval("#bad", (el) => ({ msg: el.shadowRoot.querySelector(".msg").textContent, n: el.shadowRoot.querySelectorAll("[role=slider][aria-label^='score ']").length, readout: el.shadowRoot.querySelector(".readout").textContent }));
  check(/n="2\.5" is not a whole number; using 8|n="2\.5"/.test(bad.msg) && /mapping="fusedmax" is not one of/.test(bad.msg) && /alpha="0\.5" is below 1\.01/.test(bad.msg),
    `bad attributes leave a message (got "${bad.msg}")`);
  check(bad.n === 8 && bad.readout.startsWith("sparsemax"), `... and fall back to 8 sparsemax scores (got ${bad.n}, ${bad.readout})`);

  // ---- the steps button (sparsemax): the closed form's table, k chosen, the candidate moving
  await page.locator("#a button.steps-toggle").click();
  await frames(page);
  const st = await page.$eval("#a", (el) => {
    const r = el.shadowRoot;
    return { expanded: r.querySelector("button.steps-toggle").getAttribute("aria-expanded"), attr: el.hasAttribute("steps"),
      rows: r.querySelectorAll("tbody tr").length, chosen: [...r.querySelector("tbody tr.chosen").cells].map((c) => c.textContent),
      check: r.querySelector(".steps p.muted").textContent };
  });
  const s5 = await state(page, "a");
  const k5 = s5.p.filter((v) => v > 0).length;
  check(st.expanded === "true" && st.attr && st.rows === 8, `Show the steps: expanded, the steps attribute set, 8 rows (${JSON.stringify(st)})`);
  check(Number(st.chosen[0]) === k5 && Math.abs(Number(st.chosen[5]) - s5.tau) < 1e-4, `the chosen row is k = ${k5} with threshold()'s tau ${s5.tau} (got ${st.chosen})`);
  check(s5.candZ !== null && Math.abs(s5.candZ - s5.want) < 1e-5, "at k the candidate line is the threshold");
  await page.locator("#a .steps input[type=range]").focus();
  await page.keyboard.press("Home");
  await frames(page);
  const s6 = await state(page, "a");
  check(Math.abs(s6.candZ - (Math.max(...s6.scores) - 1)) < 1e-9, `k = 1: the candidate line at max z - 1 (got ${s6.candZ})`);

  // axe-core over the page and the shadow roots, with both kinds of steps open
  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"],
  })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" > ")).join("; ")}`));
  check(violations.length === 0, `axe: no violations with the steps open (got ${JSON.stringify(violations)})`);
  await page.locator("#a").screenshot({ path: path.join(SHOTS, "threshold-steps.png") });
  await page.locator("#ent").screenshot({ path: path.join(SHOTS, "threshold-entmax.png") });
  await checkClean(page, log, "own page: ");
  await page.close();
}

async function checkSection(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("threshold-section") + "#threshold-section", server.url, { viewport: { width: 1100, height: 1200 } });
  await ready(page);
  await page.locator("#threshold").scrollIntoViewIfNeeded();
  await rendered(page);
  await frames(page);
  const s = await state(page, "threshold");
  checkDrawn(s, "page section");
  check(await page.$eval("#threshold-section h2", (h) => /threshold τ/.test(h.textContent)), "the page has the threshold section");
  // the mapping select: entmax takes the shared alpha of the sections above
  await page.locator("#threshold select").selectOption("entmax");
  await frames(page);
  checkDrawn(await state(page, "threshold"), "page section, alpha-entmax");
  await page.locator("#two-choice input[type=range]").focus();
  await page.keyboard.press("ArrowRight");
  await frames(page);
  const [a2, at] = await page.evaluate(() => [document.getElementById("two-choice").alpha, document.getElementById("threshold").alpha]);
  check(a2 === at && a2 !== 1.5, `the shared alpha reaches the threshold section (${a2} -> ${at})`);
  checkDrawn(await state(page, "threshold"), "page section, shared alpha");
  await page.locator("#threshold-section").screenshot({ path: path.join(SHOTS, "threshold-section.png") });
  await checkClean(page, log, "page: ");
  await page.close();
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("threshold", async (browser, server) => {
  await checkOwnPage(browser, server);
  await checkSection(browser, server);
});
