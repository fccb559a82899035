// phone.mjs - the site (dist/site) and the blog-post example on a phone (issue 27, item 2): at
// 390 x 844 and 320 x 700 CSS px with touch emulation (hasTouch, isMobile, deviceScaleFactor 3),
// every widget, scrolled into view and rendered, must have
//  - text of at least MIN_TEXT px as drawn: an HTML element's computed font size, an SVG text's
//    font size times the scale of its screen matrix (SVG text shrinks with its viewBox);
//  - interactive targets of at least MIN_TARGET px each way: native controls, elements with a
//    control role or a tabindex (a handle's box holds its invisible touch target, circle.hit-r);
//  - no horizontal overflow: the document, each widget's box and its card (the figure or section
//    holding it) within the viewport, and every drawn part of the widget within the widget's box;
//  - no keyboard hint shown (text naming keys, Tab or the keyboard) under a coarse pointer
// (an <sx-heatmap>, on viewer.html, before and after a file is handed to it as a drop would;
// the Transformer chapter's <sx-attention> before and after a short training run);
// and on a desktop (1100 px, a mouse) the blog post never fetches widgets/phone.js.
// Every widget on those pages is checked: none is exempt. Zero console errors, no request outside
// the origin.
import fs from "node:fs";
import path from "node:path";
import { check, open, frames, runSuite, checkClean, chapters, SITE } from "./harness.mjs";

const MIN_TEXT = 11;
const MIN_TARGET = 24;
const SIZES = [[390, 844], [320, 700]];
const TOUCH = { hasTouch: true, isMobile: true, deviceScaleFactor: 3 };
const HINT = /\b(keyboard|arrow keys?|tab to|page up|home\/end)\b|[←→↑↓]\s*\/\s*[←→↑↓]/i;

// Scrolls each widget into view and waits until it has rendered (and drawn its model, for those
// that fetch one on view), as hostile.mjs does; on a phone, also until widgets/phone.js has fitted
// every widget (its sheet, the one with the .hit-r rule, adopted). base.js fetches phone.js after
// a widget's first render; until it comes, controls keep their desktop sizes (a select 23 px
// tall): read before it, viewer.html's one widget failed at random on a busy machine.
async function showAll(p, touch = true) {
  const n = await p.evaluate(() => [...document.querySelectorAll("body *")].filter((x) => x.localName.startsWith("sx-")).length);
  for (let i = 0; i < n; i++) {
    await p.waitForFunction((k) => {
      const e = [...document.querySelectorAll("body *")].filter((x) => x.localName.startsWith("sx-"))[k];
      e.scrollIntoView();
      if (!e.shadowRoot || !(e.lastRenderMs > 0)) return false;
      if (e.localName === "sx-attention") return e.shadowRoot.querySelectorAll("svg.maps .panel").length > 0;
      if (e.localName === "sx-span-mask") return e.shadowRoot.querySelectorAll("[role=button]").length > 0;
      if (e.localName === "sx-explain") return e.shadowRoot.querySelectorAll("[role=radio]").length > 0;
      if (e.localName === "sx-decode" || e.localName === "sx-write") return Boolean(e.result);
      if (e.localName === "sx-hard") return Boolean(e.result);
      return true;
    }, i, { timeout: 30000 });
  }
  if (touch) {
    await p.waitForFunction(() => [...document.querySelectorAll("body *")].filter((x) => x.localName.startsWith("sx-"))
      .every((e) => e.shadowRoot.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.selectorText === ".hit-r"))), null, { timeout: 30000 });
  }
  await frames(p, 4);
  return n;
}

// In the page: per widget, what breaks the rules above (a list of short strings), and the page's
// own overflow.
const inspect = (p, rules) => p.evaluate(({ MIN_TEXT, MIN_TARGET, HINT }) => {
  const hint = new RegExp(HINT, "i");
  const vw = document.documentElement.clientWidth;
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== "hidden" && cs.display !== "none" && Number(cs.opacity) > 0;
  };
  const ownText = (el) => [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
  const name = (el) => `${el.localName}${el.getAttribute("class") ? "." + el.getAttribute("class").split(" ")[0] : ""}`;
  const CONTROL = "button, input:not([type=hidden]), select, textarea, a[href], summary, .hit, " +
    "[role=slider], [role=button], [role=radio], [role=checkbox], [role=switch], [role=tab], [role=option], [tabindex]";
  const CONTAINER = new Set(["group", "radiogroup", "listbox", "toolbar", "img", "figure", "region"]);
  const widgets = [...document.querySelectorAll("body *")].filter((x) => x.localName.startsWith("sx-"));
  const out = [];
  for (const host of widgets) {
    const bad = { text: [], target: [], overflow: [], hint: [] };
    const h = host.getBoundingClientRect();
    const card = host.closest("figure, section, article") || host.parentElement;
    const c = card.getBoundingClientRect();
    if (h.left < -0.5 || h.right > vw + 0.5) bad.overflow.push(`the widget spans x ${h.left.toFixed(0)}..${h.right.toFixed(0)} in a ${vw} px viewport`);
    if (host.scrollWidth > host.clientWidth + 1) bad.overflow.push(`the widget scrolls sideways (${host.scrollWidth} > ${host.clientWidth})`);
    if (c.left < -0.5 || c.right > vw + 0.5 || card.scrollWidth > card.clientWidth + 1) bad.overflow.push(`its card ${name(card)} overflows (x ${c.left.toFixed(0)}..${c.right.toFixed(0)}, scrollWidth ${card.scrollWidth} > ${card.clientWidth})`);
    for (const el of host.shadowRoot.querySelectorAll("*")) {
      if (!shown(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const text = ownText(el) || (el.localName === "input" || el.localName === "select" ? "(control)" : "");
      if (text && el.localName !== "style" && el.localName !== "title") {
        let size = parseFloat(getComputedStyle(el).fontSize);
        if (el instanceof SVGElement) {
          const m = el.getScreenCTM();
          if (m) size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) / (window.visualViewport?.scale || 1);
        }
        if (size < MIN_TEXT - 0.05) bad.text.push(`${name(el)} "${text.slice(0, 24)}" ${size.toFixed(1)} px`);
        if (hint.test(text)) bad.hint.push(`${name(el)} "${text.slice(0, 40)}"`);
      }
      if (el.matches(CONTROL) && !CONTAINER.has(el.getAttribute("role")) && !(el.localName === "svg" && !el.classList.contains("hit"))) {
        if (el.getAttribute("tabindex") !== null && !el.matches(".hit, [role]") && !/^(button|input|select|textarea|a|summary)$/.test(el.localName)) {
          // a focusable container (a scrolling box, a picture): not a touch target
        } else if (r.width < MIN_TARGET - 0.5 || r.height < MIN_TARGET - 0.5) {
          bad.target.push(`${name(el)}${el.getAttribute("aria-label") ? ` "${el.getAttribute("aria-label").slice(0, 30)}"` : text ? ` "${text.slice(0, 20)}"` : ""} ${r.width.toFixed(0)} x ${r.height.toFixed(0)}`);
        }
      }
      if (r.left < h.left - 1 || r.right > h.right + 1) bad.overflow.push(`${name(el)} spans x ${(r.left - h.left).toFixed(0)}..${(r.right - h.left).toFixed(0)} in a ${h.width.toFixed(0)} px widget`);
    }
    // to diagnose a failure: the widget's box, the viewport, phone.js's arrival, what it drew
    const fitted = host.shadowRoot.adoptedStyleSheets.some((s) => [...s.cssRules].some((r) => r.selectorText === ".hit-r"));
    const phoneJs = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/phone.js"));
    const at = `widget x ${Math.round(h.left)}..${Math.round(h.right)}, y ${Math.round(h.top)}..${Math.round(h.bottom)} in a ${vw} x ${innerHeight} viewport; ` +
      `phone.js ${phoneJs ? `fetched by ${phoneJs.responseEnd.toFixed(0)} ms` : "not fetched"}, its styles ${fitted ? "" : "not "}adopted, at ${performance.now().toFixed(0)} ms` +
      (host.result?.name ? `; drawn: ${host.result.name}` : "");
    out.push({ tag: host.localName, id: host.id, bad, at });
  }
  const doc = document.documentElement;
  return { widgets: out, page: { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, body: document.body.scrollWidth } };
}, rules);

const RULES = { MIN_TEXT, MIN_TARGET, HINT: HINT.source };
const head = (list) => (list.length > 4 ? `${list.slice(0, 4).join("; ")}; and ${list.length - 4} more` : list.join("; "));

async function phone(browser, url, origin, label, [w, h]) {
  const { page, log } = await open(browser, url, origin, { viewport: { width: w, height: h }, ...TOUCH });
  const coarse = await page.evaluate(() => matchMedia("(pointer: coarse)").matches && matchMedia("(hover: none)").matches);
  check(coarse, `${label} ${w} px: the emulated phone has a coarse pointer and no hover`);
  const n = await showAll(page);
  await checkAll(page, n, `${label} ${w} px`);
  // an <sx-heatmap> shows its drop zone until a file comes: then its heatmaps, checked the same
  if (await page.evaluate(() => document.querySelector("sx-heatmap") !== null)) {
    await page.evaluate(dropFile);
    await page.waitForFunction(() => document.querySelector("sx-heatmap").result?.name === "phone.json", null, { timeout: 15000 });
    await frames(page, 4);
    await checkAll(page, n, `${label} ${w} px, a file drawn`);
  }
  // the Transformer chapter's <sx-attention> after a short training run: its loss curve shown too
  if (label === "transformer.html") {
    await page.$eval("#attention", (e) => { e.trainOptions = { maxSteps: 40, evalEvery: 20, heldout: 32 }; });
    const trained = page.evaluate(() => new Promise((r) => document.getElementById("attention").addEventListener("sx-attention-trained", r, { once: true })));
    await page.locator("#attention button.start").click();
    await trained;
    await frames(page, 4);
    check(await page.$eval("#attention", (e) => !e.shadowRoot.querySelector("svg.loss").classList.contains("off")), `${label} ${w} px: the loss curve is shown after training`);
    await checkAll(page, n, `${label} ${w} px, a model trained`);
  }
  await checkClean(page, log, `${label} ${w} px: `);
  await page.close();
}

async function checkAll(page, n, who0) {
  const { widgets, page: doc } = await inspect(page, RULES);
  check(n > 0 && widgets.length === n, `${who0}: ${n} widgets found and inspected`);
  check(doc.scrollWidth <= doc.clientWidth && doc.body <= doc.clientWidth, `${who0}: the page does not scroll sideways (document ${doc.scrollWidth}, body ${doc.body}, viewport ${doc.clientWidth})`);
  for (const { tag, id, bad, at } of widgets) {
    const who = `${who0}: ${tag}${id ? "#" + id : ""}`;
    if (Object.values(bad).some((list) => list.length)) console.error(`  (${who}: ${at})`);
    check(bad.text.length === 0, `${who}: text at least ${MIN_TEXT} px (too small: ${head(bad.text)})`);
    check(bad.target.length === 0, `${who}: targets at least ${MIN_TARGET} px (too small: ${head(bad.target)})`);
    check(bad.overflow.length === 0, `${who}: nothing overflows sideways (${head(bad.overflow)})`);
    check(bad.hint.length === 0, `${who}: no keyboard hint under a coarse pointer (${head(bad.hint)})`);
  }
}

// In the page: a file of attention handed to the first <sx-heatmap> as a reader's drop would:
// 2 layers x 4 heads x 8 x 8 weights (rows on the simplex, some exact zeros) with token labels.
function dropFile() {
  const [L, H, T] = [2, 4, 8], data = [];
  for (let r = 0; r < L * H * T; r++) {
    const row = Array.from({ length: T }, (_, j) => ((r * 7 + j * 3) % 5 === 0 ? 0 : 1 + ((r + j) % 4)));
    const sum = row.reduce((a, b) => a + b, 0);
    data.push(...row.map((v) => v / sum));
  }
  const json = JSON.stringify({ shape: [L, H, T, T], data, tokens: ["The", "cat", "sat", "on", "the", "mat", "today", "."] });
  return document.querySelector("sx-heatmap").loadFiles([new File([json], "phone.json", { type: "application/json" })]);
}

// A desktop reader (a fine pointer, every widget wider than 420 px) never fetches widgets/phone.js:
// the one-widget posts' size budget (sizes.mjs) counts without it.
async function desktop(browser, server) {
  const { page, log } = await open(browser, server.url + "examples/blog-post.html", server.url, { viewport: { width: 1100, height: 900 } });
  const n = await showAll(page, false);
  const phone = log.requests.filter((u) => u.endsWith("/phone.js"));
  check(n > 0 && phone.length === 0, `desktop: ${n} widgets shown, widgets/phone.js never fetched (got ${JSON.stringify(phone)})`);
  await checkClean(page, log, "desktop: ");
  await page.close();
}

await runSuite("phone", async (browser, server) => {
  await desktop(browser, server);
  for (const size of SIZES) {
    // the site is a book: every chapter that exists (each holds its own widgets; the map none)
    for (const f of chapters().filter((c) => fs.existsSync(path.join(SITE, c)))) {
      await phone(browser, server.url + f, server.url, f, size);
    }
    await phone(browser, server.url + "examples/blog-post.html", server.url, "blog post", size);
  }
});
