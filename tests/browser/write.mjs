// <sx-write> in real Chromium, on a page of its own served beside the library, with the three
// shipped character models: the drawn next-character distribution is the API's (TextModel.next
// on the widget's context, recomputed in the page from the same checkpoint: every cell's p, the
// zeros drawn as empty cells and only they), the attention rows are the API's; seeded writing is
// reproducible (the written text equals TextModel.generate's with the same options, and a second
// widget with the same attributes writes the same); the sparse-output model's word list equals an
// independent enumeration (recursive, depth first, over TextModel.next on each prefix: a
// different path through the core than the widget's batched forward passes) when it fits the
// cap, and past the cap each word shown is scored again character by character; a small cap
// shows the cap message; softmax outputs draw no zero. Keyboard: Tab reaches the prompt, the model
// select, Start, Step; Step writes one character, Start writes on and Stop stops. Lazy: the
// models are fetched only near the viewport. Zero console errors, CSP violations, foreign requests.
import path from "node:path";
import fs from "node:fs/promises";
import { SHOTS, check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";

echoPasses();

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-write</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-write</h1>
<button id="before">before</button>
<sx-write id="a" model="entmax15-out" prompt="LOVE, n. " steps="30" seed="4"></sx-write>
<sx-write id="s" model="softmax" prompt="WAR, n. " steps="12" seed="2" temperature="0.8" top-p="0.9"></sx-write>
<sx-write id="c" model="entmax15-out" prompt="LOVE, n. A" steps="0" cap="3"></sx-write>
<svg width="10" height="3000" aria-hidden="true"></svg>
<sx-write id="far" model="entmax15"></sx-write>
</main></body></html>`;

const drawn = (page, id) => page.waitForFunction((i) => {
  const e = document.getElementById(i);
  e.scrollIntoView();
  return e.result && e.shadowRoot.querySelector("svg.dist g.cell");
}, id, { timeout: 30000 });

// What widget `id` drew against the API's recomputation in the page.
function compare(page, id) {
  return page.evaluate(async (i) => {
    const sx = await import("/simplexity.js");
    const el = document.getElementById(i), root = el.shadowRoot, r = el.result;
    const summary = await (await fetch("/models/text/summary.json")).json();
    const entry = summary.find((e) => e.name === `devil-${el.model}`);
    const bytes = new Uint8Array(await (await fetch(`/models/text/devil-${el.model}.sxm`)).arrayBuffer());
    const tm = sx.TextModel.load(bytes, entry);
    const api = tm.next(r.context);
    let written = "";
    for (const st of tm.generate(el.prompt, { maxChars: el.steps, seed: el.seed, temperature: el.temperature, topK: el.topK, topP: el.topP })) written += st.char;
    const cells = [...root.querySelectorAll("svg.dist g.cell")].map((g) => ({ t: Number(g.getAttribute("data-t")), p: Number(g.getAttribute("data-p")), dot: !!g.querySelector("circle.nz") }));
    let cellsOk = cells.length === tm.chars.length, zeros = 0;
    for (const c of cells) {
      if (c.p !== api.probs[c.t] || c.dot !== (api.probs[c.t] > 0)) cellsOk = false;
      zeros += c.p === 0;
    }
    const heads = [...root.querySelectorAll("svg.att g.head")];
    let attOk = heads.length === api.attention.length * api.attention[0].length;
    for (const g of heads) {
      const row = api.attention[Number(g.getAttribute("data-layer"))][Number(g.getAttribute("data-head"))];
      const ws = [...g.querySelectorAll("rect")].map((x) => Number(x.getAttribute("data-w")));
      if (ws.length !== row.length || ws.some((w, j) => w !== row[j] || (w === 0) !== g.querySelectorAll("rect")[j].classList.contains("att0"))) attOk = false;
    }
    // the word list, enumerated depth first over TextModel.next on each prefix up to the cap;
    // past it, each word the widget shows scored character by character over TextModel.next
    let words = null;
    if (/-out$/.test(el.model)) {
      const maxLen = tm.model.config.maxLen, off = tm.tokenOffset, found = [];
      const step = (ctx, ch) => { const c2 = ctx + ch; return c2.length > maxLen ? c2.slice(-(maxLen / 2)) : c2; };
      let nodes = 0, over = false;
      const dfs = (ctx, w, p) => {
        if (over) return;
        const q = tm.next(ctx, { attention: false }).probs;
        for (let v = off; v < off + tm.chars.length; v++) {
          if (!(q[v] > 0)) continue;
          const ch = tm.chars[v - off];
          if (++nodes > el.cap) { over = true; return; }
          if (/[A-Za-z0-9']/.test(ch)) dfs(step(ctx, ch), w + ch, p * q[v]); else found.push({ word: w + ch, p: p * q[v] });
        }
      };
      dfs(r.context, "", 1);
      const shown = [...root.querySelectorAll("ol.words li[data-word]")].map((li) => ({ word: li.getAttribute("data-word"), p: Number(li.getAttribute("data-p")), sure: li.classList.contains("sure") }));
      const scored = shown.map((w) => {
        let ctx = r.context, p = 1;
        for (const ch of w.word) { p *= tm.next(ctx, { attention: false }).probs[off + tm.chars.indexOf(ch)]; ctx = step(ctx, ch); }
        return p;
      });
      words = { over, found: found.sort((a, b) => b.p - a.p || (a.word < b.word ? -1 : 1)), shown, scored, result: r.words, head: root.querySelector("[part=words]").textContent };
    }
    tm.free();
    return { cellsOk, zeros, attOk, written, drawnWritten: r.written, words, n: cells.length };
  }, id);
}

await runSuite("write", async (browser, server) => {
  const { page, log } = await open(browser, server.url + "write-test.html", server.url, {
    local: ["blob:", "data:"], before: (p) => p.route("**/write-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" })),
  });
  await drawn(page, "a");
  const farEarly = log.requests.filter((u) => /devil-entmax15\.sxm$/.test(u)).length;
  check(farEarly === 0, `lazy: the far widget's model is not fetched before it nears the viewport (${farEarly})`);
  for (const id of ["s", "c"]) await drawn(page, id);
  await frames(page);

  // ---- the sparse-output model: distribution, zeros, attention, writing, words
  const a = await compare(page, "a");
  check(a.cellsOk, "entmax15-out: every drawn cell's p is TextModel.next's, a dot exactly where p > 0");
  // (how many depends on the context: about 17 characters keep p > 0 on average, up to half of
  // them after a space; the cells' p are the API's, checked above)
  check(a.zeros > 0, `entmax15-out: exact zeros are drawn as empty cells (${a.zeros} of ${a.n})`);
  check(a.attOk, "entmax15-out: every layer's and head's drawn attention row is the API's, zeros as empty cells");
  check(a.written === a.drawnWritten && a.written.length === 30, `seeded: the written text is TextModel.generate's with the same options (${JSON.stringify(a.drawnWritten)})`);
  // (the shipped sparse-output models keep 12-20 characters in their support, so a word's
  // continuations mostly pass the cap: then the widget shows what its best-first search found)
  const close = (x, y) => Math.abs(x - y) <= 1e-5 * Math.max(1e-3, y);
  const wordsOk = a.words.over
    ? /more than 1000 continuations/.test(a.words.head) && a.words.shown.length > 0 && a.words.result.overflow
      && a.words.shown.every((w, k) => close(w.p, a.words.scored[k]) && (k === 0 || w.p <= a.words.shown[k - 1].p))
      && a.words.shown.every((w, k) => w.sure === (k < a.words.result.sure))
      && Math.abs(a.words.result.words.reduce((m, w) => m + w.p, 0) + a.words.result.openMass - 1) < 1e-4
    : a.words.shown.length === Math.min(60, a.words.found.length) && a.words.head.includes(`${a.words.found.length} continuation`)
      && a.words.shown.every((w, k) => w.word === a.words.found[k].word && close(w.p, a.words.found[k].p));
  check(wordsOk, `the word list: complete and equal to the depth-first enumeration within the cap, or past it the words found, each p the product of TextModel.next's, most probable first, the sure ones in bold, with the open mass summing to 1 (enumeration: ${a.words.over ? "past the cap" : `${a.words.found.length} words`}; widget: ${a.words.head.slice(0, 120)})`);
  // ---- softmax: no zeros, its sampled text reproducible
  const s = await compare(page, "s");
  check(s.cellsOk && s.zeros === 0 && s.attOk, `softmax: the drawn distribution is the API's with no zero (${s.zeros})`);
  check(s.written === s.drawnWritten, `softmax, temperature 0.8, top-p 0.9: the written text is generate's (${JSON.stringify(s.drawnWritten)})`);
  // ---- a cap of 3: the message
  const c = await compare(page, "c");
  check(c.words.over && /more than 3 continuations/.test(c.words.head) && c.words.shown.every((w, k) => close(w.p, c.words.scored[k])), `cap 3: the cap message, and only words found within it (${c.words.head.slice(0, 100)})`);

  // ---- the same attributes write the same text in a second widget
  const twin = await page.evaluate(async () => {
    const e = document.createElement("sx-write");
    for (const a of ["model", "prompt", "steps", "seed"]) e.setAttribute(a, document.getElementById("a").getAttribute(a));
    document.querySelector("main").prepend(e);
    for (let k = 0; k < 200 && !(e.result && e.result.written.length === 30); k++) { e.scrollIntoView(); await new Promise((r) => setTimeout(r, 50)); }
    const w = e.result && e.result.written;
    e.remove();
    return w;
  });
  check(twin === a.drawnWritten, "a second widget with the same attributes writes the same text");

  // ---- keyboard: Tab from the button before reaches the prompt, the select, Start, Step
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.focus("#before");
  const seen = [];
  for (let k = 0; k < 6; k++) {
    await page.keyboard.press("Tab");
    seen.push(await page.evaluate(() => { const x = document.activeElement.shadowRoot?.activeElement; return x ? (x.textContent || x.tagName).trim().slice(0, 10) : ""; }));
  }
  check(seen[0] === "INPUT" && seen[1].length > 0 && seen.includes("Start") && seen.includes("Step"), `keyboard: Tab reaches the prompt, the model, Start and Step (${seen.join(", ")})`);
  while ((await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.textContent)) !== "Step") await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Enter");
  await frames(page);
  check(await page.$eval("#a", (e) => e.getAttribute("steps") === "31" && e.result.written.length === 31), "keyboard: Enter on Step writes one character (steps 31)");
  await page.keyboard.press("Shift+Tab"); // Start
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => Number(document.getElementById("a").getAttribute("steps")) >= 36, null, { timeout: 10000 });
  check(await page.$eval("#a", (e) => e.running), "Start writes on");
  await page.keyboard.press("Enter"); // Stop
  await frames(page);
  const stopped = await page.$eval("#a", (e) => [e.running, Number(e.getAttribute("steps"))]);
  await page.waitForTimeout(400);
  check(!stopped[0] && (await page.$eval("#a", (e) => Number(e.getAttribute("steps")))) === stopped[1], `Stop stops (${stopped[1]} characters)`);
  const after = await compare(page, "a");
  check(after.cellsOk && after.written === after.drawnWritten, "after writing on: the drawing and the text are still the API's");

  // ---- the far widget loads once scrolled to
  await drawn(page, "far");
  const far = await compare(page, "far");
  check(far.cellsOk, "entmax15 attention, softmax output: the distribution drawn once near the viewport");

  await fs.mkdir(SHOTS, { recursive: true });
  await page.evaluate(() => document.getElementById("a").scrollIntoView());
  await page.screenshot({ path: path.join(SHOTS, "write.png"), fullPage: false });
  await checkClean(page, log);
});
