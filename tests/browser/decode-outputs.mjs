// <sx-decode> in real Chromium, on a page of its own served beside the library, with the shipped
// models: for a sparse-output model (after_marker, 1.5-entmax outputs, a source with 42 output
// sequences) and the softmax-output model of the same task, each drawn step's dots (the tokens
// drawn with p > 0) are exactly model.decode's support for that step, recomputed in the page from
// the same checkpoint; the softmax rows are full; the drawn list is exactSearch's, sequence by
// sequence and probability by probability, and the summary its count and mass; a cap below the
// count shows the library's cap message and the cap's first sequences; softmax outputs always
// hit it. Keyboard: Tab reaches the grid, ↓ / End pick the step (the step attribute and the
// readout follow), and the output select changes the model; "Another source" draws a held-out one. Bad attributes fall back with a
// message. Zero console errors, CSP violations and foreign requests.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

const SRC = "f|bchfedceec";
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-decode</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-decode</h1>
<button id="before">before</button>
<sx-decode id="a" task="after_marker" output="entmax15" source="${SRC}"></sx-decode>
<sx-decode id="s" task="after_marker" output="softmax" source="${SRC}" cap="50"></sx-decode>
<sx-decode id="c" task="after_marker" output="entmax15" source="${SRC}" cap="5"></sx-decode>
<sx-decode id="bad" task="poems" output="argmax" cap="0" source="xyz!"></sx-decode>
</main></body></html>`;

const KIND = { softmax: "entmax15", sparsemax: "sparsemax-out", entmax15: "entmax15-out" };

// Waits until widget `id` shows output mapping `output` (its model loaded and drawn).
const drawn = (page, id, output) => page.waitForFunction(([i, o]) => {
  const e = document.getElementById(i);
  e.scrollIntoView();
  return e.result && e.output === o && e.shadowRoot.querySelector(`svg.grid circle.m-${o}`);
}, [id, output], { timeout: 30000 });

// What widget `id` drew, and what the library says for the same checkpoint, source and cap.
function compare(page, id) {
  return page.evaluate(async ([i, KIND]) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot;
    const bytes = new Uint8Array(await (await fetch(`/models/${el.task}-${KIND[el.output]}.sxm`)).arrayBuffer());
    const m = sx.Model.load(bytes), src = sx.tasks.encode(el.task, el.source);
    const [dec] = m.decode([src]);
    let search, message = "";
    try { search = m.exactSearch(src, { cap: el.cap }); } catch (err) { message = err.message; search = m.exactSearch(src, { cap: el.cap, partial: true }); }
    const vocab = m.config.vocab;
    m.free();
    const steps = [...root.querySelectorAll("svg.grid g.step")].map((g) => ({
      support: g.getAttribute("data-support"), dots: [...g.querySelectorAll("circle.nz")].map((c) => Number(c.getAttribute("data-v"))) }));
    const rows = [...root.querySelectorAll("svg.list g.seq")].map((g) => ({ tokens: g.getAttribute("data-tokens"), p: Number(g.getAttribute("data-p")),
      shown: g.querySelectorAll("text")[1].textContent }));
    return {
      steps, rows, summary: root.querySelector("[part=summary]").textContent, read: root.querySelector(".read").textContent, vocab,
      want: { steps: dec.steps.map((s) => Array.from(s.support).sort((a, b) => a - b)), seqs: search.sequences.map((q) => ({ tokens: Array.from(q.tokens).join(" "), p: q.probability })),
        complete: search.complete, mass: search.sequences.reduce((a, q) => a + q.probability, 0), message },
    };
  }, [id, KIND]);
}

function checkDrawn(r, what, sparse) {
  const bad = r.steps.filter((s, t) => s.dots.slice().sort((a, b) => a - b).join(" ") !== (r.want.steps[t] || []).join(" "));
  check(r.steps.length === r.want.steps.length && bad.length === 0,
    `${what}: the ${r.want.steps.length} drawn steps' dots are model.decode's supports (${bad.length} differ; drawn ${r.steps.map((s) => s.dots.length)})`);
  const sizes = r.want.steps.map((s) => s.length);
  if (sparse) check(sizes.some((n) => n < r.vocab), `${what}: some step's support is smaller than the vocabulary (${sizes})`);
  else check(sizes.every((n) => n === r.vocab), `${what}: softmax: every step's support is the whole vocabulary (${sizes})`);
  const n = Math.min(40, r.want.seqs.length);
  const rowsOk = r.rows.length === n && r.rows.every((row, k) => row.tokens === r.want.seqs[k].tokens && row.p === r.want.seqs[k].p);
  check(rowsOk, `${what}: the list is exactSearch's ${n} sequences, in order, with their probabilities (${r.rows.length} drawn)`);
}

await runSuite("decode-outputs", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "decode-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/decode-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" })),
  });
  for (const [id, o] of [["a", "entmax15"], ["s", "softmax"], ["c", "entmax15"]]) await drawn(page, id, o);
  await frames(page);

  // ---- 1.5-entmax outputs: every sequence, complete
  const a = await compare(page, "a");
  checkDrawn(a, "entmax15 outputs", true);
  check(a.want.complete && a.want.seqs.length > 1 && Math.abs(a.want.mass - 1) < 1e-3, `entmax15: exact search is complete with mass 1 (${a.want.seqs.length} sequences, mass ${a.want.mass})`);
  check(a.summary.includes(`${a.want.seqs.length} output sequences with nonzero probability`) && a.summary.includes(`total mass ${a.want.mass.toFixed(4)}`),
    `entmax15: the summary gives the count and the mass (${a.summary})`);
  // ---- softmax outputs: full rows, the cap always met
  const s = await compare(page, "s");
  checkDrawn(s, "softmax outputs", false);
  check(!s.want.complete && s.want.message && s.summary.includes(s.want.message.replace(/^model\.exactSearch: /, "").replace(/: raise options\.cap.*$/, "")),
    `softmax: the summary carries the library's cap message (${s.summary.slice(0, 160)})`);
  // ---- a cap of 5 under the 42 sequences
  const c = await compare(page, "c");
  checkDrawn(c, "entmax15, cap 5", true);
  check(!c.want.complete && /more than cap \(5\)/.test(c.summary) && c.rows.length === 5, `cap 5: the cap message and five rows (${c.rows.length}; ${c.summary.slice(0, 120)})`);

  // ---- keyboard: Tab from the button before reaches the selects, the field, the button, the grid
  const events = [];
  await page.exposeFunction("__decodeEvent", (d) => events.push(d));
  await page.evaluate(() => document.getElementById("a").addEventListener("sx-decode-change", (e) => window.__decodeEvent(e.detail)));
  await page.focus("#before");
  let role = "";
  for (let k = 0; k < 8 && role !== "slider"; k++) {
    await page.keyboard.press("Tab");
    role = await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.getAttribute("role") || "");
  }
  check(role === "slider", "keyboard: Tab reaches the grid (the step picker)");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await frames(page);
  const st = await page.$eval("#a", (e) => ({ step: e.getAttribute("step"), read: e.shadowRoot.querySelector(".read").textContent,
    focus: e.shadowRoot.activeElement?.getAttribute("aria-valuenow") }));
  check(st.step === "2" && /^Step 3 emits/.test(st.read) && st.focus === "3", `keyboard: two ↓ pick step 3 and keep the focus (${JSON.stringify(st)})`);
  await page.keyboard.press("End");
  await frames(page);
  const end = await page.$eval("#a", (e) => ({ step: Number(e.getAttribute("step")), n: e.result.decode.steps.length }));
  check(end.step === end.n - 1 && events.length === 3 && events[2].step === end.step, `keyboard: End picks the last step, one event per key (${JSON.stringify(end)}, ${events.length} events)`);
  await page.evaluate(() => document.getElementById("a").shadowRoot.querySelectorAll("select")[1].focus());
  await page.keyboard.press("ArrowUp"); // 1.5-entmax -> sparsemax, by the keyboard
  await drawn(page, "a", "sparsemax");
  await frames(page);
  checkDrawn(await compare(page, "a"), "sparsemax outputs (picked by keyboard)", true);

  // ---- "Another source": a held-out source of the task, drawn and searched
  await page.evaluate(() => [...document.getElementById("a").shadowRoot.querySelectorAll("button")].find((b) => b.textContent === "Another source").click());
  await page.waitForFunction((src) => { const e = document.getElementById("a"); return e.source !== src && e.result; }, SRC);
  await frames(page);
  const drawnSrc = await page.$eval("#a", (e) => e.source);
  checkDrawn(await compare(page, "a"), `another source ("${drawnSrc}")`, true);

  // ---- bad attributes
  const bad = await page.$eval("#bad", (e) => e.shadowRoot.querySelector(".msg").textContent + " | " + e.shadowRoot.querySelector(".invalid").textContent);
  check(/task/.test(bad) && /output/.test(bad) && /cap/.test(bad), `bad attributes: a message naming task, output and cap (${bad})`);

  const svg = await page.$eval("#a", (e) => e.toSVG());
  check(svg.startsWith("<?xml") && (svg.match(/<svg /g) || []).length === 3, "toSVG: one document holding the grid and the list");
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, "decode-outputs.png"), fullPage: true });
  await checkClean(page, log);
});
