// <sx-fused>'s two steps in real Chromium (issue 25 item 1), on a page of its own and in its
// section of the built site: each stage drawn is the library's value (the prox_TV bars are
// proxTV's, their fused runs proxTVRuns', the weights fusedmax's, the gradient of output j
// fusedmaxBackward(z, e_j)'s), the runs counted in the readout and outlined as the library says;
// lambda by the keyboard (its range input: Right, End) redraws all three stages; the output
// coordinate by its range input and by a click on a weight; the toggle by the keyboard; an output
// beyond n falls back with a note; the cost measurement runs on demand and reports every k (no
// figure is checked); an axe-core audit with the steps open; zero console errors, CSP violations
// and foreign requests. Screenshots in build/screenshots/.
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

echoPasses();

const PAGE = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-fused steps</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-fused steps</h1><button id="before" type="button">before</button>
${body}
</main></body></html>`;

const rendered = (page) => page.waitForFunction(() => [...document.querySelectorAll("sx-fused")]
  .every((e) => e.shadowRoot && e.lastRenderMs > 0), null, { timeout: 15000 });

// What the steps picture shows, and the library's values for the same scores and lambda.
function state(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot, svg = root.querySelector("svg.steps-picture");
    const scores = [...root.querySelectorAll("[role=slider][aria-label^='score ']")].map((g) => Number(g.getAttribute("aria-valuenow")));
    const z = Float32Array.from(scores), o = { lambda: el.lambda }, n = z.length, j = Math.min(el.output, n) - 1;
    const e = Array.from(z, (_, k) => (k === j ? 1 : 0));
    const runs = Array.from(sx.proxTVRuns(z, o));
    const spans = new Map();
    runs.forEach((r) => spans.set(r, (spans.get(r) || 0) + 1));
    const vals = (sel) => [...svg.querySelectorAll(sel)].map((r) => Number(r.getAttribute("data-value")));
    return {
      hidden: root.querySelector(".steps").hidden, lambda: el.lambda, output: el.output, j,
      drawnProx: vals("rect.prox"), drawnP: vals(".pw rect[data-value]"), drawnGrad: vals("rect.grad"),
      levels: svg.querySelectorAll("line.level").length, pick: svg.querySelectorAll("rect.pick").length,
      prox: Array.from(sx.proxTV(z, o)), p: Array.from(sx.fusedmax(z, o)), grad: Array.from(sx.fusedmaxBackward(z, e, o)),
      runs: new Set(runs).size, fusedRuns: [...spans.values()].filter((c) => c > 1).length,
      readout: root.querySelector("[part=steps-readout]").textContent,
      button: root.querySelector("[part~=steps-button]").textContent,
    };
  }, id);
}

function checkDrawn(s, what) {
  check(!s.hidden, `${what}: the steps are shown`);
  check(JSON.stringify(s.drawnProx) === JSON.stringify(s.prox), `${what}: the prox_TV bars are proxTV's values (drawn ${s.drawnProx}, library ${s.prox})`);
  check(JSON.stringify(s.drawnP) === JSON.stringify(s.p), `${what}: the weights are fusedmax's (drawn ${s.drawnP}, library ${s.p})`);
  const worst = Math.max(...s.drawnGrad.map((v, k) => Math.abs(v - s.grad[k])));
  check(s.drawnGrad.length === s.grad.length && worst <= 1e-6, `${what}: the gradient of output ${s.j + 1} is fusedmaxBackward(z, e_j)'s (worst ${worst})`);
  check(s.levels === s.fusedRuns, `${what}: one level line per fused run of two or more (drawn ${s.levels}, library ${s.fusedRuns})`);
  const m = /^prox_TV\(z\): (\d+) runs? of (\d+) scores/.exec(s.readout);
  check(m && Number(m[1]) === s.runs && Number(m[2]) === s.prox.length, `${what}: the readout counts the library's ${s.runs} runs (got "${s.readout.slice(0, 60)}")`);
  const agree = /agrees within ([\d.e+-]+)\.$/.exec(s.readout);
  check(agree && Number(agree[1]) <= 1e-6, `${what}: the readout's check against fusedmaxBackward (got "${agree && agree[0]}")`);
  check(s.pick === 1, `${what}: the output coordinate is marked once`);
}

async function checkOwnPage(browser, server) {
  const html = PAGE(`<sx-fused id="a" steps output="3"></sx-fused>
<sx-fused id="b" scores="1 1.2 1.1 0 -0.5 0.4 0.45"></sx-fused>
<sx-fused id="bad" steps output="20" scores="1 0 2 0.5"></sx-fused>
<button id="after" type="button">after</button>`);
  const { page, log } = await open(browser, server.url + "fused-steps-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/fused-steps-test.html", (r) => r.fulfill({ body: html, contentType: "text/html; charset=utf-8" })),
  });
  await rendered(page);
  await frames(page);

  let s = await state(page, "a");
  checkDrawn(s, "default scores, lambda 0.2, output 3");
  check(s.button === "Hide fusedmax's two steps", `the toggle says what it does (got "${s.button}")`);

  // lambda by the keyboard: the λ range input, Right x 10 (0.2 -> 0.3), then End (1)
  await page.locator("#a input[type=range]").first().focus();
  for (let k = 0; k < 10; k++) await page.keyboard.press("ArrowRight");
  await frames(page);
  const s1 = await state(page, "a");
  check(Math.abs(s1.lambda - 0.3) < 1e-9, `Right x 10 moves lambda to 0.3 (got ${s1.lambda})`);
  checkDrawn(s1, "lambda 0.3 by the keyboard");
  await page.keyboard.press("End");
  await frames(page);
  const s2 = await state(page, "a");
  check(s2.lambda === 1 && s2.runs < s.runs, `End: lambda 1, fewer runs (${s.runs} -> ${s2.runs})`);
  checkDrawn(s2, "lambda 1");

  // the output coordinate: its range input, then a click on a weight
  await page.locator("#a [part~=output] input").focus();
  await page.keyboard.press("ArrowRight");
  await frames(page);
  const s3 = await state(page, "a");
  check(s3.output === 4, `Right on the output slider: output 4 (got ${s3.output})`);
  checkDrawn(s3, "output 4 by the keyboard");
  await page.locator("#a .pw").nth(7).click();
  await frames(page);
  const s4 = await state(page, "a");
  check(s4.output === 8, `a click on weight 8 selects output 8 (got ${s4.output})`);
  checkDrawn(s4, "output 8 by a click");

  // the toggle by the keyboard on the second widget (steps hidden by default)
  const b0 = await state(page, "b");
  check(b0.hidden && b0.button === "Show fusedmax's two steps", "without the steps attribute the steps are hidden");
  await page.locator("#b [part~=steps-button]").focus();
  await page.keyboard.press("Enter");
  await frames(page);
  const b1 = await state(page, "b");
  check(await page.$eval("#b", (e) => e.hasAttribute("steps")), "Enter on the toggle sets the steps attribute");
  checkDrawn(b1, "opened by the keyboard");

  // an output beyond n: the last one, said so (once its full core is in: a loaded machine can
  // still be fetching it here). In view: sx-fused is lazy, so a widget off screen when the core
  // arrives redraws only once it is back in view (base.js), as a reader scrolling to it sees.
  await page.locator("#bad").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => !/^Loading the full core/.test(document.getElementById("bad").shadowRoot.querySelector("[part=steps-readout]").textContent), null, { timeout: 60000 });
  await frames(page);
  const bad = await state(page, "bad");
  checkDrawn(bad, "output 20 of 4");
  check(/output=20 is beyond the 4 scores: using 4/.test(bad.readout), `output beyond n is said (got "${bad.readout}")`);

  // the cost on demand: every k reported (the figures are not checked: timing is no test)
  await page.locator("#a [part~=cost-button]").click();
  await page.waitForFunction(() => /^In this browser|^The measurement failed/.test(document.getElementById("a").shadowRoot.querySelector("[part=cost]").textContent), null, { timeout: 60000 });
  const cost = await page.$eval("#a", (e) => e.shadowRoot.querySelector("[part=cost]").textContent);
  check(/^In this browser, n = 512/.test(cost) && ["k = 1", "k = 8", "k = 64", "k = 512"].every((k) => cost.includes(`${k}`)), `the cost line reports every k (got "${cost}")`);

  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => `${v.id}: ${v.nodes.length}`));
  check(violations.length === 0, `axe: no violations with the steps open (got ${JSON.stringify(violations)})`);
  await page.locator("#a").screenshot({ path: path.join(SHOTS, "fused-steps.png") });
  await checkClean(page, log, "own page: ");
  await page.close();
}

async function checkSection(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("fused-section") + "#fused-section", server.url, { viewport: { width: 1100, height: 1200 } });
  await page.waitForFunction(() => document.getElementById("fused")?.lastRenderMs > 0, null, { timeout: 15000 });
  await page.locator("#fused [part~=steps-button]").click();
  await frames(page);
  checkDrawn(await state(page, "fused"), "the section's widget, opened");
  await page.locator("#fused-section").screenshot({ path: path.join(SHOTS, "fused-section-steps.png") });
  await checkClean(page, log, "page: ");
  await page.close();
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("fused-steps", async (browser, server) => {
  await checkOwnPage(browser, server);
  await checkSection(browser, server);
});
