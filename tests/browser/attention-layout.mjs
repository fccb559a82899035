// attention-layout.mjs - <sx-attention> puts cause and effect on one screen (issue 27, items 3
// and 2), on the built page (dist/site), at 1280 x 800 with a mouse and 390 x 844 with touch:
//  - before the reader types, the task's characters and the longest input it takes are shown
//    under the field (read here from the library's task table, not from the widget);
//  - a refused input's message is in plain words, directly under the field (its box within
//    MSG_PX of the field's), and the field says it is invalid; capitals are folded where the
//    task's alphabet has no capitals (reverse) or only some (date: "22 NOV 2026"); an input too
//    long is neither cut nor shown silently: the field keeps it and the message counts it;
//  - pointing at a cell (or moving over the maps by keyboard) shows its weight in a tooltip by
//    the cell, the model's own weight (computed here through the library from the same .sxm);
//  - while a model trains, its controls, progress and loss stay in the viewport wherever the
//    reader scrolls through the maps, and maps are in view with them;
//  - the phone pass: text at least 11 px on screen (SVG text scaled by its viewBox), controls at
//    least 24 px, nothing wider than the widget, no keyboard hint under (pointer: coarse).
// Zero console errors, zero CSP violations, no request outside the origin.
import { check, open, ready, frames, runSuite, checkClean } from "./harness.mjs";
import { init, tasks } from "../../dist/simplexity.js";

await init();
const MSG_PX = 100;
const TIP_PX = 48;

// The task's characters as the widget must list them: each run of 3 or more consecutive
// characters as "first–last", the rest one by one (space as "space").
function expectedChars(task) {
  const chars = tasks.vocab(task).slice(3), out = [];
  for (let i = 0; i < chars.length;) {
    let j = i;
    while (j + 1 < chars.length && chars[j + 1].charCodeAt(0) === chars[j].charCodeAt(0) + 1) j++;
    if (j - i >= 2) { out.push(`${chars[i]}–${chars[j]}`); i = j + 1; } else { out.push(chars[i] === " " ? "space" : chars[i]); i++; }
  }
  return out;
}

const rect = (r) => r && { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
// The field, the deepest visible element of the widget whose text has `needle`, and the field's value.
const near = (page, needle) => page.$eval("#attention", (e, n) => {
  const r = e.shadowRoot, box = (x) => { const q = x.getBoundingClientRect(); return { top: q.top, bottom: q.bottom, left: q.left, right: q.right }; };
  const field = r.querySelector("input[type=text]");
  const hits = [...r.querySelectorAll("*")].filter((x) => x.getClientRects().length && x.textContent.includes(n) && ![...x.children].some((c) => c.textContent.includes(n)));
  const visible = hits.filter((x) => !x.closest("[hidden]") && getComputedStyle(x).visibility !== "hidden");
  return { field: box(field), value: field.value, invalid: field.getAttribute("aria-invalid"), msg: visible.length ? { ...box(visible[0]), text: visible[0].textContent } : null };
}, needle);

// Vertical gap between the field and the message (0 when they overlap), and whether they share columns.
const gap = ({ field: f, msg: m }) => (m ? Math.max(0, m.top - f.bottom, f.top - m.bottom) : Infinity);

const state = (page) => page.$eval("#attention", (e) => {
  const r = e.shadowRoot, codes = [...r.querySelectorAll(".io code")].map((c) => c.textContent);
  return { input: codes[0], output: codes[1], io: r.querySelector(".io").textContent, value: r.querySelector("input[type=text]").value };
});

async function show(page) {
  await ready(page);
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.maps .panel").length > 0, null, { timeout: 15000 });
  await frames(page, 3);
}

async function typeInto(page, text, { keys = false } = {}) {
  const field = page.locator("#attention input[type=text]");
  if (keys) { await field.fill(""); await field.pressSequentially(text); } else await field.fill(text);
  await frames(page, 3);
}

const setTask = async (page, task) => {
  await page.locator("#attention select >> nth=0").selectOption(task);
  await page.waitForFunction((t) => document.getElementById("attention").shadowRoot.querySelector(".source").textContent.includes(`${t}-`), task, { timeout: 15000 });
  await frames(page, 2);
};

// ------------------------------------------------------------------ the input and its message
async function input(page, label) {
  // before typing: the characters and the longest input, under the field
  for (const task of ["reverse", "date"]) {
    if (task !== "reverse") await setTask(page, task);
    const max = tasks.width(task) - 1, chars = expectedChars(task);
    const hint = await page.$eval("#attention", (e) => {
      const f = e.shadowRoot.querySelector("input[type=text]"), ids = (f.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      const el = ids.map((id) => e.shadowRoot.getElementById(id)).find(Boolean);
      if (!el) return null;
      const a = f.getBoundingClientRect(), b = el.getBoundingClientRect();
      return { text: el.textContent, gap: Math.max(0, b.top - a.bottom, a.top - b.bottom), shown: el.getClientRects().length > 0 };
    });
    check(hint && hint.shown && hint.gap <= MSG_PX, `${label}: ${task}: a description of the input under the field (within ${MSG_PX} px; got ${JSON.stringify(hint)})`);
    const missing = hint ? chars.filter((c) => !hint.text.includes(c)) : chars;
    check(hint && missing.length === 0 && hint.text.includes(String(max)), `${label}: ${task}: it lists the characters ${chars.join(" ")} and the maximum length ${max} before any typing (missing ${JSON.stringify(missing)}; got "${hint && hint.text}")`);
  }

  // a bad character typed key by key: the message under the field, in words
  await setTask(page, "reverse");
  await typeInto(page, "hello", { keys: true });
  let n = await near(page, "“l”");
  if (!n.msg) n = await near(page, '"l"');
  check(gap(n) <= MSG_PX, `${label}: "hello": the message about "l" is within ${MSG_PX} px of the field (got ${gap(n).toFixed(0)} px: ${JSON.stringify(n.msg)})`);
  check(n.msg && !/input="/.test(n.msg.text) && /not/.test(n.msg.text), `${label}: "hello": the message is in plain words, not attribute syntax (got "${n.msg && n.msg.text}")`);
  check(n.invalid === "true" && n.value === "hello", `${label}: "hello": the field keeps the text and is marked invalid (value "${n.value}", aria-invalid ${n.invalid})`);

  // capitals folded
  await typeInto(page, "ABCD");
  let s = await state(page);
  check(s.input === "abcd" && s.output === "dcba" && s.io.includes("✓") && s.value === "abcd", `${label}: "ABCD" is read as "abcd" (got ${s.io}, field "${s.value}")`);
  n = await near(page, "ABCD");
  check(!n.msg, `${label}: "ABCD": no message about it (got ${JSON.stringify(n.msg)})`);

  // the date: capitals folded to the month's spelling; too long an input: refused, counted, not cut
  await setTask(page, "date");
  await typeInto(page, "1 Jan 2000");
  await typeInto(page, "22 NOV 2026");
  s = await state(page);
  check(s.output === "2026-11-22" && s.io.includes("✓"), `${label}: "22 NOV 2026" is read as "22 Nov 2026" (got ${s.io})`);
  await typeInto(page, "1 Jan 2000");
  await typeInto(page, "22 November 2026");
  n = await near(page, "22 November 2026");
  check(n.value === "22 November 2026", `${label}: "22 November 2026" stays whole in the field (got "${n.value}")`);
  check(n.msg && n.msg.text.includes("16") && n.msg.text.includes(String(tasks.width("date") - 1)) && gap(n) <= MSG_PX,
    `${label}: "22 November 2026": a message under the field counts its 16 characters against the ${tasks.width("date") - 1} allowed (got ${JSON.stringify(n.msg)})`);
  s = await state(page);
  check(s.input === "1 Jan 2000" && !s.io.includes("22 November"), `${label}: "22 November 2026" is not shown cut (the maps keep "1 Jan 2000"; got ${s.io})`);
  await setTask(page, "reverse");
  await typeInto(page, "abcdefgh");
}

// ------------------------------------------------------------------ the tooltip by the cell
// The weight the model gives (encoder, layer 1, head 2, query i, key j) to the input text.
const modelWeight = (page, file, text, h, i, j) => page.evaluate(async ([f, t, hh, ii, jj]) => {
  const sx = await import(new URL("simplexity.js", document.baseURI).href);
  const m = sx.Model.load(new Uint8Array(await (await fetch(new URL(`models/${f}`, document.baseURI))).arrayBuffer()));
  try {
    const src = sx.tasks.encode("reverse", t);
    const [out] = m.generate([src]);
    const eos = out.indexOf(2);
    const { attention } = m.forward([src], [out.subarray(0, eos > 0 ? eos : out.length)]);
    const a = attention.find((x) => x.kind === "encoder" && x.layer === 0);
    const [, , Tq, Tk] = a.shape;
    return a.data[(hh * Tq + ii) * Tk + jj];
  } finally { m.free(); }
}, [file, text, h, i, j]);

const tooltip = (page) => page.$eval("#attention", (e) => {
  const t = e.shadowRoot.querySelector("[role=tooltip]");
  if (!t || t.hidden || !t.getClientRects().length || getComputedStyle(t).visibility === "hidden") return null;
  const q = t.getBoundingClientRect();
  return { text: t.textContent, top: q.top, bottom: q.bottom, left: q.left, right: q.right };
});
const shownWeight = (text) => {
  if (/exactly 0/.test(text)) return 0;
  const m = /(\d\.\d+(?:e-\d+)?)/.exec(text);
  return m ? Number(m[1]) : NaN;
};

async function tip(page, label, touch) {
  const text = "abcdefgh", h = 1, i = 2, j = 3, nk = text.length + 1;
  const want = await modelWeight(page, "reverse-alpha.sxm", text, h, i, j);
  const frame = page.locator("#attention svg.maps .panel[aria-label^='encoder attention, layer 1, head 2:'] rect.frame");
  await frame.scrollIntoViewIfNeeded();
  const b = await frame.boundingBox();
  const cell = b.width / nk, cx = b.x + (j + 0.5) * cell, cy = b.y + (i + 0.5) * cell;
  if (touch) await page.touchscreen.tap(cx, cy); else await page.mouse.move(cx, cy);
  await frames(page, 2);
  const t = await tooltip(page);
  const got = t ? shownWeight(t.text) : NaN;
  check(t && Math.abs(got - want) <= Math.max(5e-5, 5e-3 * want), `${label}: ${touch ? "a tap on" : "pointing at"} encoder L1 h2 (${i + 1}, ${j + 1}) shows its weight ${want} in a tooltip (got ${JSON.stringify(t)})`);
  const dist = t ? Math.max(0, t.top - (cy + cell / 2), (cy - cell / 2) - t.bottom, t.left - (cx + cell / 2), (cx - cell / 2) - t.right) : Infinity;
  check(dist <= TIP_PX, `${label}: the tooltip is by the cell (${dist.toFixed(0)} px away)`);
  check(t && t.left >= 0 && t.right <= page.viewportSize().width, `${label}: the tooltip fits the viewport (${JSON.stringify(t)})`);
  if (touch) return;
  // by keyboard: the panel focused, arrows move, the tooltip follows the cursor's cell
  await page.locator("#attention svg.maps .panel[aria-label^='encoder attention, layer 1, head 2:']").focus();
  await page.keyboard.press("Home"); // the first key
  await page.keyboard.press("PageUp"); // the first query
  for (let k = 0; k < i; k++) await page.keyboard.press("ArrowDown");
  for (let k = 0; k < j; k++) await page.keyboard.press("ArrowRight");
  await frames(page, 2);
  const k = await tooltip(page);
  check(k && Math.abs(shownWeight(k.text) - want) <= Math.max(5e-5, 5e-3 * want), `${label}: by keyboard, the tooltip shows the same weight (got ${JSON.stringify(k)})`);
  await page.mouse.move(0, 0);
}

// ------------------------------------------------------------------ training beside the maps
async function training(page, label) {
  await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 100000, evalEvery: 50, heldout: 64 }; });
  const done = page.evaluate(() => new Promise((resolve) => document.getElementById("attention").addEventListener("sx-attention-trained", (e) => resolve(e.detail), { once: true })));
  await page.locator("#attention button.start").click();
  await page.waitForFunction(() => Number(document.getElementById("attention").shadowRoot.querySelector("progress").value) >= 10, null, { timeout: 60000 });
  // the first map, the decoder's and the last cross-attention layer's, each scrolled to a third of
  // the viewport's height (by its label: the maps' sizes change as the model's output does)
  for (const at of ["encoder attention, layer 1, head 1:", "decoder attention, layer 1, head 1:", "cross attention, layer 2, head 1:"]) {
    await page.$eval("#attention", (e, a) => {
      const m = e.shadowRoot.querySelector(`svg.maps .panel[aria-label^='${a}']`).getBoundingClientRect();
      window.scrollTo(0, window.scrollY + m.top - window.innerHeight / 3);
    }, at);
    await page.waitForTimeout(400); // a redraw or two (at most ~4 a second)
    const v = await page.$eval("#attention", (e) => {
      const r = e.shadowRoot, H = window.innerHeight, W = window.innerWidth;
      const inView = (x) => { if (!x || !x.getClientRects().length) return false; const q = x.getBoundingClientRect(); return q.top >= -0.5 && q.bottom <= H + 0.5 && q.left >= -0.5 && q.right <= W + 0.5 && q.height > 0; };
      const bar = [r.querySelector("button.stop"), r.querySelector("progress"), r.querySelector(".tstatus")];
      const loss = [...r.querySelectorAll("svg path.loss-smooth, svg path.loss-raw")].filter((p) => inView(p));
      const top = Math.max(...bar.filter(Boolean).map((x) => x.getBoundingClientRect().bottom));
      const panels = [...r.querySelectorAll("svg.maps .panel")].filter((p) => { const q = p.getBoundingClientRect(); return q.bottom > top + 20 && q.top < H - 20; });
      return { bar: bar.map(inView), loss: loss.length, panels: panels.length, status: r.querySelector(".tstatus").textContent.slice(0, 60) };
    });
    check(v.bar.every(Boolean), `${label}: training, ${at.split(",")[0]} maps: Stop, the progress bar and the status line are in the viewport (${JSON.stringify(v)})`);
    check(v.loss > 0, `${label}: training, ${at.split(",")[0]} maps: the loss curve is in the viewport (${v.loss} paths)`);
    check(v.panels > 0, `${label}: training, ${at.split(",")[0]} maps: maps are in view beside them (${v.panels} panels)`);
  }
  await page.locator("#attention button.stop").click();
  await done;
  await frames(page, 2);
}

// ------------------------------------------------------------------ the phone pass
async function phone(page, label) {
  await page.locator("#attention").scrollIntoViewIfNeeded();
  await frames(page, 3);
  const r = await page.$eval("#attention", (host) => {
    const root = host.shadowRoot, hb = host.getBoundingClientRect(), small = [], tiny = [], wide = [], hints = [];
    const shown = (x) => x.getClientRects().length > 0 && !x.closest("[hidden]") && getComputedStyle(x).visibility !== "hidden" && getComputedStyle(x).display !== "none";
    for (const t of root.querySelectorAll("svg text")) {
      if (!shown(t) || !t.textContent.trim()) continue;
      const svg = t.ownerSVGElement, vb = svg.viewBox.baseVal, scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 10.95) small.push(`${t.textContent.slice(0, 16)} ${px.toFixed(1)}`);
      const q = t.getBoundingClientRect();
      if (q.right > hb.right + 0.5 || q.left < hb.left - 0.5) wide.push(`text "${t.textContent.slice(0, 24)}" ${q.left.toFixed(0)}..${q.right.toFixed(0)} of ${hb.left.toFixed(0)}..${hb.right.toFixed(0)}`);
    }
    for (const x of root.querySelectorAll("*")) {
      if (x instanceof SVGElement || !shown(x)) continue;
      const own = [...x.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
      if (own && parseFloat(getComputedStyle(x).fontSize) < 11) small.push(`${x.localName}.${x.className} ${getComputedStyle(x).fontSize}`);
      const q = x.getBoundingClientRect();
      if (!x.closest(".scroll") && q.right > hb.right + 0.5) wide.push(`${x.localName}.${x.className} ${q.right.toFixed(0)} > ${hb.right.toFixed(0)}`);
      if (/arrow keys|Tab to|keyboard/i.test([...x.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join(""))) hints.push(x.textContent.slice(0, 60));
    }
    for (const x of root.querySelectorAll("button, select, input, summary")) {
      if (!shown(x) || x.type === "file") continue;
      const q = x.getBoundingClientRect();
      if (q.height < 24 || q.width < 24) tiny.push(`${x.localName}.${x.className} "${(x.textContent || x.getAttribute("aria-label") || "").trim().slice(0, 20)}" ${q.width.toFixed(0)}x${q.height.toFixed(0)}`);
    }
    return { small, tiny, wide, hints, hostRight: hb.right, vw: window.innerWidth };
  });
  check(r.small.length === 0, `${label}: every text of the widget is at least 11 px on screen (smaller: ${r.small.length}: ${r.small.slice(0, 8).join(" | ")})`);
  check(r.tiny.length === 0, `${label}: every control is at least 24 x 24 px (smaller: ${r.tiny.join(" | ")})`);
  check(r.wide.length === 0 && r.hostRight <= r.vw, `${label}: nothing sticks out of the widget or the viewport (${r.wide.slice(0, 6).join(" | ")}; host right ${r.hostRight} of ${r.vw})`);
  return r;
}

await runSuite("attention-layout", async (browser, server) => {
  for (const [label, viewport, touch] of [["desktop 1280x800", { width: 1280, height: 800 }, false], ["phone 390x844", { width: 390, height: 844 }, true]]) {
    const { page, log } = await open(browser, server.url + "#transformer-section", server.url, { viewport, hasTouch: touch, isMobile: touch });
    await show(page);
    await input(page, label);
    await tip(page, label, touch);
    const p = await phone(page, label);
    // the step-by-step decoding open: the same rules
    await page.$eval("#attention", (e) => { e.decode = true; });
    await page.waitForFunction(() => document.getElementById("attention").shadowRoot.querySelectorAll("svg.decode g.drow").length > 0, null, { timeout: 15000 });
    await phone(page, `${label}, decoding open`);
    await page.$eval("#attention", (e) => { e.decode = false; });
    if (touch) check(p.hints.length === 0, `${label}: no keyboard hint on a touch screen (got ${JSON.stringify(p.hints)})`);
    else check(p.hints.length > 0, `${label}: the keyboard hint is there with a mouse (${JSON.stringify(p.hints)})`);
    await training(page, label);
    await checkClean(page, log, `${label}: `);
    await page.close();
  }
});
