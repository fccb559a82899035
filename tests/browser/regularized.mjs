// <sx-regularized> in real Chromium: on a page of its own served beside the library, and in its
// section of the built page. Zero console errors, CSP violations and foreign requests; the
// gradient arrow drawn (its ends read off the SVG, through the plane's scale) is the element's p,
// which is the library's mapping of the scores, and max_Omega is log-sum-exp for softmax; the
// keyboard (Tab to the score point, arrow keys; a score slider) moves z, the arrow and the optimal
// vertex, with a visible focus ring and one sx-regularized-change per key; crossing scores make
// the vertex jump (through the edge of the tie) while p barely moves; ties draw an edge, three
// ties the whole triangle; a pointer drag on the plane; view, bad attributes; an axe-core audit.
// Screenshots in build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, echoPasses, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-regularized</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-regularized</h1><button id="before" type="button">before</button>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-regularized")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0), null, { timeout: 15000 });

// What one widget shows, read off its shadow DOM, and what the library says for the same scores.
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const scores = el.scores, mapping = el.mapping, T = el.temperature;
    const opts = mapping === "entmax" ? { alpha: el.alpha, temperature: T } : { temperature: T };
    const libP = Array.from(sx[mapping](Float32Array.from(scores), opts));
    const axes = root.querySelector("g.axes");
    const [d0, d1] = axes.dataset.domain.split(" ").map(Number);
    const [x0, x1] = axes.dataset.x.split(" ").map(Number), [y0, y1] = axes.dataset.y.split(" ").map(Number);
    const ux = (x) => d0 + ((x - x0) * (d1 - d0)) / (x1 - x0), uy = (y) => d0 + ((y - y0) * (d1 - d0)) / (y1 - y0);
    const g = root.querySelector("line.grad"), at = (a) => Number(g.getAttribute(a));
    const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(root.querySelector(".handle").getAttribute("transform"));
    const faceEl = root.querySelector(".opt-vertex, .opt-edge, .opt-all");
    const tie = root.querySelector("line.tie");
    return {
      scores, mapping, p: el.p, value: el.value, argmax: el.argmax, libP,
      arrow: [ux(at("x2")) - ux(at("x1")), uy(at("y2")) - uy(at("y1"))], tail: [ux(at("x1")), uy(at("y1"))],
      handle: m ? [ux(Number(m[1])), uy(Number(m[2]))] : null,
      face: faceEl ? { kind: faceEl.getAttribute("class"), indices: faceEl.dataset.face } : null,
      faces: root.querySelectorAll(".opt-vertex, .opt-edge, .opt-all").length,
      levels: root.querySelectorAll("line.level").length,
      tieCorner: tie ? [ux(Number(tie.getAttribute("x1"))), uy(Number(tie.getAttribute("y1")))] : null,
      shown: [...root.querySelectorAll("svg.picture")].filter((s) => getComputedStyle(s).display !== "none").map((s) => s.dataset.view),
      readout: root.querySelector(".readout").textContent,
      msg: root.querySelector(".msg").hidden ? "" : root.querySelector(".msg").textContent,
    };
  }, id);
}

const near = (a, b, tol) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= tol);
const show = (v) => `[${v.map((x) => x.toFixed(4)).join(", ")}]`;

// The checks every state must pass.
function checkDrawn(s, what) {
  check(near(s.p, s.libP, 0), `${what}: p is the library's ${s.mapping} of the scores ${show(s.p)}`);
  check(near(s.arrow, s.p.slice(0, 2), 1e-4), `${what}: the arrow drawn is (p1, p2) = ${show(s.p.slice(0, 2))} (got ${show(s.arrow)})`);
  check(near(s.tail, s.scores.slice(0, 2), 1e-4) && near(s.handle, s.scores.slice(0, 2), 1e-4), `${what}: the arrow starts at z = (${s.scores.slice(0, 2)}), where the score point is`);
  const m = Math.max(...s.scores), want = s.scores.map((v, i) => (v === m ? i : -1)).filter((i) => i >= 0);
  check(JSON.stringify(s.argmax) === JSON.stringify(want) && s.faces === 1 && s.face.indices === want.join(" ")
    && s.face.kind === ["opt-vertex", "opt-edge", "opt-all"][want.length - 1],
    `${what}: the optimal face is ${want.length === 1 ? "the vertex" : want.length === 2 ? "the edge" : "the whole triangle"} ${want} (got ${JSON.stringify(s.face)}, argmax ${s.argmax})`);
  check(s.value >= m - 1e-6, `${what}: max_Omega ${s.value} >= max z ${m}`);
  check(s.msg === "", `${what}: no message (got "${s.msg}")`);
}

async function checkOwnPage(browser, server) {
  const html = PAGE(`<sx-regularized id="a"></sx-regularized>
<sx-regularized id="tie" scores="1 1 0" mapping="sparsemax"></sx-regularized>
<sx-regularized id="all" scores="0.5 0.5 0.5" mapping="entmax" alpha="1.3" temperature="0.5"></sx-regularized>
<sx-regularized id="one" view="max" mapping="entmax15" scores="0.2 -0.4 1.1"></sx-regularized>
<sx-regularized id="bad" mapping="fusedmax" scores="1 2" view="nope"></sx-regularized>`);
  const { page, log } = await open(browser, server.url + "regularized-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/regularized-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  // ---- the default: softmax at [1.5, 0, 1]; max_Omega is log-sum-exp
  let s = await state(page, "a");
  checkDrawn(s, "default");
  const lse = Math.log(s.scores.reduce((a, v) => a + Math.exp(v), 0));
  check(Math.abs(s.value - lse) < 1e-5, `softmax: max_Omega = log-sum-exp ${lse} (got ${s.value})`);
  check(s.levels >= 5, `the level lines of <p, z> are drawn (${s.levels})`);
  check(near(s.tieCorner, [s.scores[2], s.scores[2]], 1e-3), `the dashed tie lines meet at (z3, z3) (${s.tieCorner})`);
  check(s.shown.join() === "argmax,max,omega", `three views by default (${s.shown})`);

  // ---- ties: an edge; three ties: the whole triangle
  const t = await state(page, "tie");
  checkDrawn(t, "a tie z1 = z2");
  check(t.face.kind === "opt-edge" && t.face.indices === "0 1" && /the whole edge A–B/.test(t.readout), `a tie draws the edge A-B (${t.readout})`);
  const all = await state(page, "all");
  checkDrawn(all, "three ties");
  check(all.face.kind === "opt-all", "three ties: the whole triangle is optimal");
  const one = await state(page, "one");
  checkDrawn(one, "view=max");
  check(one.shown.join() === "max", `view="max" shows the plane alone (${one.shown})`);

  // ---- keyboard: Tab from the button before: the score point first (the export buttons come last)
  const events = [];
  await page.exposeFunction("__regEvent", (d) => events.push(d));
  await page.evaluate(() => document.addEventListener("sx-regularized-change", (e) => window.__regEvent(e.detail)));
  await page.focus("#before");
  const tabbed = [];
  for (let i = 0; i < 1; i++) {
    await page.keyboard.press("Tab");
    tabbed.push(await page.evaluate(() => { const a = document.activeElement, f = a.shadowRoot && a.shadowRoot.activeElement; return a.id + " " + (f ? (f.getAttribute("aria-label") || "") : "none"); }));
  }
  check(tabbed[0].startsWith("a scores z₁ = 1.50, z₂ = 0.00"), `Tab reaches the score point first (got ${tabbed})`);
  const ring = await page.$eval("#a", (e) => getComputedStyle(e.shadowRoot.activeElement.querySelector(".ring")).stroke);
  check(ring && ring !== "none" && !/rgba\(0, 0, 0, 0\)|transparent/.test(ring), `the focused score point shows a focus ring (stroke ${ring})`);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowUp");
  await frames(page);
  s = await state(page, "a");
  check(near(s.scores, [1.6, 0.05, 1], 1e-9), `ArrowRight x2, ArrowUp: z = [1.6, 0.05, 1] (got ${s.scores})`);
  checkDrawn(s, "after the arrow keys");
  const last = events[events.length - 1];
  check(events.length === 3 && last && near(last.p, s.p, 0) && last.value === s.value && JSON.stringify(last.argmax) === "[0]"
    && near(last.scores, s.scores, 0) && last.mapping === "softmax" && last.temperature === 1,
    `one sx-regularized-change per key, detail { scores, mapping, alpha, temperature, p, value, argmax } (got ${events.length}: ${JSON.stringify(last)})`);
  // lower z1 past z3 = 1: the vertex jumps from A through the edge A-C to C, p slides
  for (let i = 0; i < 11; i++) await page.keyboard.press("ArrowLeft");
  await frames(page);
  const before = await state(page, "a");
  check(Math.abs(before.scores[0] - 1.05) < 1e-9 && before.face.indices === "0", `z1 = 1.05: vertex A (${before.face.indices})`);
  await page.keyboard.press("ArrowLeft");
  await frames(page);
  const atTie = await state(page, "a");
  checkDrawn(atTie, "z1 = z3");
  check(atTie.face.kind === "opt-edge" && atTie.face.indices === "0 2", `z1 = z3 = 1: the edge A-C (${JSON.stringify(atTie.face)})`);
  await page.keyboard.press("ArrowLeft");
  await frames(page);
  const after = await state(page, "a");
  checkDrawn(after, "z1 = 0.95");
  const dp = Math.max(...after.p.map((v, i) => Math.abs(v - before.p[i])));
  check(after.face.indices === "2" && dp < 0.06, `z1 = 0.95: the vertex jumped to C while p moved by ${dp.toFixed(4)}`);
  // a score slider: z3 up by 0.05 moves the tie lines
  await page.locator("#a").evaluate((e) => [...e.shadowRoot.querySelectorAll("label")].find((l) => /score z₃/.test(l.textContent)).querySelector("input").focus());
  const label = await page.$eval("#a", (e) => e.shadowRoot.activeElement.closest("label").textContent);
  check(/score z₃ \(C\)/.test(label), `z3 has its slider (${label})`);
  await page.keyboard.press("ArrowRight");
  await frames(page);
  s = await state(page, "a");
  check(Math.abs(s.scores[2] - 1.05) < 1e-9 && near(s.tieCorner, [1.05, 1.05], 1e-3), `ArrowRight on z3's slider: z3 = 1.05, the tie lines follow (${s.scores}, ${s.tieCorner})`);
  checkDrawn(s, "after the z3 slider");
  // the mapping select
  await page.locator("#a select").selectOption("sparsemax");
  await frames(page);
  s = await state(page, "a");
  checkDrawn(s, "sparsemax");
  const half = s.p.reduce((a, v, i) => a + v * s.scores[i], 0) - 0.5 * s.p.reduce((a, v) => a + v * v, 0) + 0.5;
  check(Math.abs(s.value - half) < 1e-5, `sparsemax: max_Omega = <p, z> - (||p||^2 - 1)/2 (${s.value} vs ${half})`);

  // ---- pointer: a click on the plane puts z there
  const box = await page.locator("#a svg.plane").boundingBox();
  const k = box.width / 300;
  const target = await page.$eval("#a", (e) => {
    const a = e.shadowRoot.querySelector("g.axes");
    const [x0, x1] = a.dataset.x.split(" ").map(Number), [y0, y1] = a.dataset.y.split(" ").map(Number);
    return { x: x0 + (x1 - x0) * (2 + 3) / 6, y: y0 + (y1 - y0) * (-1 + 3) / 6 }; // z1 = 2, z2 = -1
  });
  await page.mouse.move(box.x + target.x * k + 10, box.y + target.y * k + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + target.x * k, box.y + target.y * k, { steps: 3 });
  await page.mouse.up();
  await frames(page);
  s = await state(page, "a");
  check(near(s.scores.slice(0, 2), [2, -1], 0.03), `dragging on the plane puts z at (2, -1) (got ${s.scores})`);
  checkDrawn(s, "after a drag");

  // ---- bad attributes: a message, the defaults
  const bad = await state(page, "bad");
  check(/mapping="fusedmax" is not one of/.test(bad.msg) && /scores="1 2" needs at least 3 numbers/.test(bad.msg) && /view="nope" is not a list of/.test(bad.msg),
    `bad attributes leave a message (got "${bad.msg}")`);
  check(bad.mapping === "softmax" && near(bad.scores, [1.5, 0, 1], 0) && bad.shown.length === 3, "... and fall back to the defaults");

  // axe-core over the page and the shadow roots
  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"],
  })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" > ")).join("; ")}`));
  check(violations.length === 0, `axe: no violations (got ${JSON.stringify(violations)})`);
  await page.locator("#tie").screenshot({ path: path.join(SHOTS, "regularized-tie.png") });
  await checkClean(page, log, "own page: ");
  await page.close();
}

async function checkSection(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("regularized-section") + "#regularized-section", server.url, { viewport: { width: 1100, height: 1200 } });
  await ready(page);
  await page.locator("#regularized").scrollIntoViewIfNeeded();
  await rendered(page);
  await frames(page);
  const placed = await page.$eval("#regularized-section", (sec) => ({ prev: sec.previousElementSibling?.id, h: sec.querySelector("h2").textContent }));
  check(placed.prev === "fused-section" && /^6\. Argmax/.test(placed.h), `the section follows the structured-attention one, numbered 6 (${JSON.stringify(placed)})`);
  checkDrawn(await state(page, "regularized"), "page section");
  await page.locator("#regularized-section").screenshot({ path: path.join(SHOTS, "regularized-section.png") });
  await checkClean(page, log, "page: ");
  await page.close();
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("regularized", async (browser, server) => {
  await checkOwnPage(browser, server);
  await checkSection(browser, server);
});
