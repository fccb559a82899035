// <sx-attention>'s "Decode step by step" in real Chromium, in section 18 of the built page
// (dist/site): the panel opens from the keyboard (and reflects the decode attribute); the step
// moves with the slider's keys, the Previous / Next buttons (mouse and keyboard) and Play /
// Pause; at every step t each decoder layer's self-attention cache has exactly t filled slots of
// maxLen (the newest ringed) and the cross-attention K/V all ns source slots; each head's drawn
// self- and cross-attention rows equal (to 1e-5) the rows recomputed in the page with the library
// (model.forward over the prefix, and the same row of one pass over the whole output: the cached
// step's row), exact zeros dotted; the tokens equal model.generate's; the counts of rows computed
// with and without the cache follow their sums. For the default input, a typed one and a second
// model (1.5-entmax, exact zeros); the narrow layout; the SVG export; an axe audit of the open
// panel, light and dark. Zero console errors, zero CSP violations, no request outside the origin.
// Screenshots in build/screenshots/ (decode-*.png).
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { SHOTS, check, open, ready, frames, runSuite, checkClean, pageWith } from "./harness.mjs";

const AXE = await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const TOL = 1e-5;

const label = (tok) => (tok === "<bos>" ? "^" : tok === "<eos>" ? "$" : tok === " " ? "␣" : tok);

// The decoding panel as drawn, read from the shadow root.
const panel = (page) => page.$eval("#attention", (e) => {
  const r = e.shadowRoot, det = r.querySelector("details.decode"), slider = r.querySelector("input.dstep");
  const slots = {};
  for (const g of r.querySelectorAll("svg.decode g.cache")) {
    const rects = [...g.querySelectorAll("rect")];
    slots[`${g.dataset.cache}.${g.dataset.layer}`] = {
      all: rects.length, filled: rects.filter((x) => x.classList.contains("filled")).length,
      empty: rects.filter((x) => x.classList.contains("empty")).length, cross: rects.filter((x) => x.classList.contains("cross")).length,
      newAt: rects.findIndex((x) => x.classList.contains("new")), newCount: rects.filter((x) => x.classList.contains("new")).length,
    };
  }
  const rows = {};
  for (const g of r.querySelectorAll("svg.decode g.drow")) {
    const z = g.querySelector("path.zeros");
    rows[`${g.dataset.kind}.${g.dataset.layer}.${g.dataset.head}`] = {
      w: g.dataset.weights.split(" ").map(Number), cells: g.querySelectorAll("rect.cell").length,
      zeros: z ? (z.getAttribute("d").match(/M/g) || []).length : 0,
    };
  }
  const work = {};
  for (const li of r.querySelectorAll("ul.work li")) {
    if (li.dataset.cached !== undefined) work[li.className.replace("work-", "")] = { cached: Number(li.dataset.cached), full: Number(li.dataset.full), text: li.textContent };
  }
  const play = r.querySelector("button.dplay");
  return {
    open: det.open, attr: e.hasAttribute("decode"), step: Number(slider.value), max: Number(slider.max), valuetext: slider.getAttribute("aria-valuetext"),
    out: r.querySelector(".dio .dout") ? r.querySelector(".dio .dout").textContent : null,
    chosen: r.querySelector(".dio .chosen") ? r.querySelector(".dio .chosen").textContent : null,
    dio: r.querySelector(".dio").textContent, prev: r.querySelector("button.dprev").disabled, next: r.querySelector("button.dnext").disabled,
    play: play.textContent, pressed: play.getAttribute("aria-pressed"), slots, rows, work,
    mainOut: r.querySelectorAll(".io code")[1] ? r.querySelectorAll(".io code")[1].textContent : null,
    viewBox: r.querySelector("svg.decode").getAttribute("viewBox"), focus: r.activeElement ? r.activeElement.className : null,
  };
});

// The reference, recomputed in the page with the library (the page's own simplexity.js and the
// shipped checkpoint): model.generate's tokens, and per step t the last rows of model.forward
// over the prefix out[0..t) and row t - 1 of one forward pass over out[0..T).
const reference = (page, task, kind, text) => page.evaluate(async ({ task, kind, text }) => {
  const { init, Model, tasks } = await import("./simplexity.js");
  await init();
  const bytes = new Uint8Array(await (await fetch(`models/${task}-${kind}.sxm`)).arrayBuffer());
  const m = Model.load(bytes);
  try {
    const src = tasks.encode(task, text);
    const [out] = m.generate([src]);
    const vocab = tasks.vocab(task), eos = out.indexOf(vocab.indexOf("<eos>"));
    const T = eos > 0 ? eos : out.length - 1, ns = text.length + 1;
    const rowsOf = (attention, i, t) => {
      const rows = {};
      for (const a of attention) {
        if (a.kind === "encoder") continue;
        const [, H, Tq, Tk] = a.shape, n = a.kind === "decoder" ? t : ns;
        for (let h = 0; h < H; h++) rows[`${a.kind === "decoder" ? "self" : "cross"}.${a.layer}.${h}`] = Array.from(a.data.subarray((h * Tq + i) * Tk, (h * Tq + i) * Tk + n));
      }
      return rows;
    };
    const whole = m.forward([src], [out.slice(0, T)]).attention;
    const prefix = [], full = [];
    for (let t = 1; t <= T; t++) {
      prefix.push(rowsOf(m.forward([src], [out.slice(0, t)]).attention, t - 1, t));
      full.push(rowsOf(whole, t - 1, t));
    }
    return { out: Array.from(out), tokens: Array.from(out, (id) => vocab[id]), T, ns, text: tasks.decode(task, out), ...m.config, prefix, full };
  } finally {
    m.free();
  }
}, { task, kind, text });

const maxDiff = (a, b) => (a.length !== b.length ? Infinity : Math.max(0, ...a.map((v, i) => Math.abs(v - b[i]))));

// Everything drawn at step t against the reference; returns the number of exact zeros drawn.
function checkStep(p, ref, t, what) {
  const { layers, heads, maxLen, ns } = ref;
  check(p.step === t && p.max === ref.T, `${what}: step ${t} of ${ref.T} (got ${p.step} of ${p.max})`);
  let slotsOk = true, rowsOk = true, worst = 0, zerosOk = true, zeros = 0;
  for (let l = 0; l < layers; l++) {
    for (const kv of ["k", "v"]) {
      const s = p.slots[`self-${kv}.${l}`], c = p.slots[`cross-${kv}.${l}`];
      slotsOk &&= Boolean(s && c) && s.all === maxLen && s.filled === t && s.empty === maxLen - t && s.newAt === t - 1 && s.newCount === 1 &&
        c.all === ns && c.cross === ns;
    }
    for (let h = 0; h < heads; h++) {
      for (const kind of ["self", "cross"]) {
        const key = `${kind}.${l}.${h}`, d = p.rows[key], want = ref.prefix[t - 1][key], once = ref.full[t - 1][key];
        if (!d || d.w.length !== (kind === "self" ? t : ns)) { rowsOk = false; continue; }
        worst = Math.max(worst, maxDiff(d.w, want), maxDiff(d.w, once));
        const z = d.w.filter((v) => v === 0).length;
        zeros += z;
        zerosOk &&= d.zeros === z && d.cells === d.w.length - z && want.filter((v) => v === 0).length === z;
      }
    }
  }
  check(slotsOk, `${what}, step ${t}: every layer's self-attention cache has ${t} of ${maxLen} slots filled (keys and values, the newest ringed), the cross K/V all ${ns} (${JSON.stringify(p.slots["self-k.0"])})`);
  check(rowsOk && worst <= TOL, `${what}, step ${t}: the ${2 * layers * heads} drawn rows equal model.forward's over the prefix and over the whole output (max |diff| ${worst.toExponential(2)})`);
  check(zerosOk, `${what}, step ${t}: exact zeros dotted, the other weights tinted`);
  const outSoFar = ref.tokens.slice(1, t + 1).map(label).join("");
  check(p.out === outSoFar && p.chosen === label(ref.tokens[t]), `${what}, step ${t}: output so far "${outSoFar}", picks "${label(ref.tokens[t])}" (got "${p.out}", "${p.chosen}")`);
  // the counts: summed step by step here (the widget uses closed forms)
  let rows = 0, rowsFull = 0, sc = 0, scFull = 0;
  for (let s = 1; s <= t; s++) {
    rows += layers;
    rowsFull += layers * s;
    sc += layers * heads * s;
    for (let i = 1; i <= s; i++) scFull += layers * heads * i;
  }
  const w = p.work;
  check(w.rows && w.rows.cached === rows && w.rows.full === rowsFull && w.scores.cached === sc && w.scores.full === scFull &&
    w.cross.cached === layers * ns && w.cross.full === layers * ns * t && w.rows.text.includes(`= ${rows}`) && w.rows.text.includes(`= ${rowsFull}`),
  `${what}, step ${t}: rows computed cached ${rows} vs full ${rowsFull}, scores ${sc} vs ${scFull} (got ${JSON.stringify(w.rows)}, ${JSON.stringify(w.scores)})`);
  return zeros;
}

const waitStep = (page, t) => page.waitForFunction((k) => Number(document.getElementById("attention").shadowRoot.querySelector("input.dstep").value) === k, t, { timeout: 10000 });
const waitRef = (page, T) => page.waitForFunction((k) => {
  const r = document.getElementById("attention").shadowRoot;
  return Number(r.querySelector("input.dstep").max) === k && r.querySelectorAll("svg.decode g.drow").length > 0;
}, T, { timeout: 15000 });

async function audit(page, what) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async (tags) => {
    const r = await window.axe.run({ include: [["#attention"]] }, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return r.violations.map((x) => `${x.id} (${x.impact}): ${x.help}; ${x.nodes.slice(0, 3).map((n) => n.target.join(" > ")).join("; ")}`);
  }, TAGS);
  check(v.length === 0, `${what}: no axe violation in the widget with the panel open (got ${v.length}: ${v.join(" | ")})`);
}

async function checkDecode(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, { viewport: { width: 1100, height: 1000 } });
  await ready(page);
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  let p = await panel(page);
  check(!p.open && !p.attr, "the panel starts closed (no decode attribute)");

  // ---- opened from the keyboard: the summary, Enter
  await page.locator("#attention details.decode > summary").focus();
  await page.keyboard.press("Enter");
  let ref = await reference(page, "reverse", "alpha", "abcdefgh");
  await waitRef(page, ref.T);
  p = await panel(page);
  check(p.open && p.attr, `Enter on the summary opens the panel and sets the decode attribute (open ${p.open}, attribute ${p.attr})`);
  check(ref.T === 9 && ref.text === "hgfedcba", `reference: reverse "abcdefgh" decodes to "hgfedcba" in 9 steps (got "${ref.text}", ${ref.T})`);
  checkStep(p, ref, 1, "reverse-alpha");
  check(p.prev && !p.next && p.play === "Play" && p.pressed === "false", "step 1: Previous disabled, Next enabled, Play not pressed");

  // ---- the slider's keys: every step, then End / Home
  await page.locator("#attention input.dstep").focus();
  for (let t = 2; t <= ref.T; t++) {
    await page.keyboard.press("ArrowRight");
    await waitStep(page, t);
    checkStep(await panel(page), ref, t, "reverse-alpha (ArrowRight)");
  }
  p = await panel(page);
  check(p.out === "hgfedcba$" && p.mainOut === "hgfedcba" && p.next && !p.prev, `last step: the decoded tokens are model.generate's, EOS last (got "${p.out}"; the maps' output "${p.mainOut}")`);
  check(p.valuetext === `step ${ref.T} of ${ref.T}: emits "$"`, `the slider's aria-valuetext (got "${p.valuetext}")`);
  await page.locator("#attention").screenshot({ path: path.join(SHOTS, "decode-reverse-alpha.png") });
  await page.keyboard.press("Home");
  await waitStep(page, 1);
  await page.keyboard.press("End");
  await waitStep(page, ref.T);
  check(true, "Home and End on the slider go to the first and last steps");

  // ---- the buttons: the mouse, then the keyboard (Enter, Space)
  await page.locator("#attention button.dprev").click();
  await waitStep(page, ref.T - 1);
  await page.locator("#attention button.dprev").click();
  await waitStep(page, ref.T - 2);
  checkStep(await panel(page), ref, ref.T - 2, "reverse-alpha (Previous, clicked)");
  await page.locator("#attention button.dnext").focus();
  await page.keyboard.press("Enter");
  await waitStep(page, ref.T - 1);
  await page.keyboard.press("Space");
  await waitStep(page, ref.T);
  p = await panel(page);
  checkStep(p, ref, ref.T, "reverse-alpha (Next, keyboard)");
  check(p.next && p.focus === "dprev", `Next disabled at the last step hands the focus to Previous (focus: ${p.focus})`);
  await page.keyboard.press("Enter");
  await waitStep(page, ref.T - 1);
  check(true, "Enter on Previous steps back");

  // ---- Play / Pause: from the last step Play restarts at 1; Pause holds the step
  await page.locator("#attention input.dstep").focus();
  await page.keyboard.press("End");
  await waitStep(page, ref.T);
  await page.locator("#attention button.dplay").focus();
  await page.keyboard.press("Enter");
  await waitStep(page, 1);
  p = await panel(page);
  check(p.play === "Pause" && p.pressed === "true", `Play at the last step starts again at 1, pressed (got "${p.play}", ${p.pressed})`);
  await waitStep(page, 3);
  await page.keyboard.press("Space");
  const held = (await panel(page)).step;
  await page.waitForTimeout(2000);
  p = await panel(page);
  check(p.step === held && held >= 3 && p.play === "Play" && p.pressed === "false", `Pause holds step ${held} (got ${p.step}, "${p.play}")`);
  checkStep(p, ref, held, "reverse-alpha (after Play)");

  // ---- a typed input: new steps, Play runs to the end and stops there
  await page.locator("#attention input[type=text]").fill("cab");
  ref = await reference(page, "reverse", "alpha", "cab");
  await waitRef(page, ref.T);
  p = await panel(page);
  check(ref.T === 4 && ref.text === "bac" && p.step >= 1 && p.step <= 4, `"cab": 4 steps, the step kept in range (got ${ref.text}, step ${p.step} of ${p.max})`);
  await page.locator("#attention input.dstep").focus();
  await page.keyboard.press("Home");
  await waitStep(page, 1);
  await page.locator("#attention button.dplay").click();
  await waitStep(page, 4);
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector("button.dplay").textContent === "Play", null, { timeout: 5000 });
  p = await panel(page);
  check(p.pressed === "false" && p.out === "bac$", `Play stops at the last step (got "${p.play}", "${p.out}")`);
  for (let t = 1; t <= ref.T; t++) {
    await page.locator("#attention input.dstep").focus();
    await page.keyboard.press(t === 1 ? "Home" : "ArrowRight");
    await waitStep(page, t);
    checkStep(await panel(page), ref, t, "reverse-alpha \"cab\"");
  }

  // ---- another model: 1.5-entmax, whose rows have exact zeros
  await page.locator("#attention input[type=text]").fill("abcdefgh");
  await page.locator("#attention select >> nth=1").selectOption("entmax15");
  ref = await reference(page, "reverse", "entmax15", "abcdefgh");
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelector(".source").textContent.includes("The shipped 1.5-entmax"), null, { timeout: 15000 });
  await waitRef(page, ref.T);
  let zeros = 0;
  for (let t = 1; t <= ref.T; t++) {
    await page.locator("#attention input.dstep").focus();
    await page.keyboard.press(t === 1 ? "Home" : "ArrowRight");
    await waitStep(page, t);
    zeros += checkStep(await panel(page), ref, t, "reverse-entmax15");
  }
  check(zeros > 0, `1.5-entmax: exact zeros in the step rows, drawn as dots (${zeros} over ${ref.T} steps)`);
  await page.locator("#attention details.decode").screenshot({ path: path.join(SHOTS, "decode-reverse-entmax15.png") });

  // ---- the SVG export has the decoding picture while the panel is open
  const svg = await page.evaluate(() => {
    const text = document.getElementById("attention").toSVG();
    return { ok: !new DOMParser().parseFromString(text, "image/svg+xml").querySelector("parsererror"), cache: text.includes("self-attention KV cache") };
  });
  check(svg.ok && svg.cache, `the SVG export includes the open decoding picture (${JSON.stringify(svg)})`);
  await audit(page, "light");

  // ---- narrow: the picture redraws for the width, the rows stay
  await page.setViewportSize({ width: 480, height: 1000 });
  await frames(page, 4);
  p = await panel(page);
  check(p.viewBox.split(" ")[2] === "384", `narrow widget: the decoding picture's layout (viewBox ${p.viewBox})`);
  checkStep(p, ref, ref.T, "reverse-entmax15 (narrow)");
  await page.locator("#attention details.decode").screenshot({ path: path.join(SHOTS, "decode-narrow.png") });
  await page.setViewportSize({ width: 1100, height: 1000 });
  await frames(page, 4);
  // (the widget shrank back above the scroll position: in view again, or it defers its redraws)
  await page.locator("#attention details.decode").scrollIntoViewIfNeeded();
  await frames(page, 2);

  // ---- the attribute: removing it closes the panel, setting it opens it
  await page.$eval("#attention", (e) => { e.decode = false; });
  await frames(page, 3);
  p = await panel(page);
  check(!p.open && !p.attr, "decode = false closes the panel");
  const closedSvg = await page.evaluate(() => document.getElementById("attention").toSVG().includes("self-attention KV cache"));
  check(!closedSvg, "a closed panel's picture is not exported");
  await page.$eval("#attention", (e) => e.setAttribute("decode", ""));
  await frames(page, 3);
  p = await panel(page);
  check(p.open && p.rows["self.0.0"] !== undefined, "the decode attribute opens the panel");
  await page.locator("#attention details.decode > summary").click();
  await frames(page, 3);
  check(!(await panel(page)).attr, "closing the panel with the summary removes the attribute");

  await checkClean(page, log);
  await page.close();
}

// Dark mode: the same panel audited.
async function checkDark(browser, server) {
  const { page, log } = await open(browser, server.url + pageWith("transformer-section") + "#transformer-section", server.url, { viewport: { width: 1100, height: 1000 }, colorScheme: "dark" });
  await ready(page);
  await page.$eval("#attention", (e) => { e.decode = true; });
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.decode g.drow").length > 0, null, { timeout: 15000 });
  await page.locator("#attention details.decode").screenshot({ path: path.join(SHOTS, "decode-dark.png") });
  await audit(page, "dark");
  await checkClean(page, log, "dark: ");
  await page.close();
}

await fs.mkdir(SHOTS, { recursive: true });
await runSuite("decode", async (browser, server) => {
  await checkDecode(browser, server);
  await checkDark(browser, server);
});
