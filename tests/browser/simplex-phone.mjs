// simplex-phone.mjs - <sx-simplex> on a phone (issue 27, item 2): a page with a meta viewport
// at 390 x 844 and 320 x 568 CSS px, touch emulated (isMobile, hasTouch: `pointer: coarse`), and
// at 1000 px with a mouse for contrast. On the phones:
//  - the score bars sit directly under the triangle, and once the whole of a bar's drag area is
//    scrolled into view, the triangle is inside the viewport too at every step while that bar is
//    dragged by touch (CDP touch events; bounding boxes);
//  - the 3-D view is collapsed by default (its module, simplex-3d.js, not fetched), behind a button
//    that opens and closes it by tap and by keyboard (Enter, Space), with aria-expanded in step,
//    the view drawn once open, and the SVG export holding the pictures shown;
//  - hit areas of at least 24 px, found by hit-testing (elementFromPoint 12 px either side of the
//    score point and of each bar's knob lands on that handle), and every native control at least
//    44 px tall (24 px wide);
//  - text at least 11 px as rendered: an SVG text's font size times its screen transform (the
//    viewBox's scale), an HTML text's computed size;
//  - no horizontal overflow: the document no wider than the viewport, every part of the widget
//    inside its box; the keyboard hint hidden.
// At 1000 px: the bars beside the triangle, the 3-D view open, the keyboard hint shown. The export
// buttons (base.js, shared by every widget) are measured and printed, not checked here. Zero
// console errors, zero CSP violations (the site's strict policy), no request outside the origin.
import { createHash } from "node:crypto";
import { check, open, frames, runSuite, checkClean } from "./harness.mjs";

const MIN_TEXT = 11, MIN_TARGET = 24, TOUCH_TARGET = 44;
// the site's strict CSP, the page's own <style> allowed by its hash (style attributes are not)
const STYLE = "body { margin: 0; padding: 12px 16px; font: 17px/1.6 Georgia, serif; } h1 { font-size: 24px; }";
const CSP = `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob: data:; style-src 'self' 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;
const HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A post on a phone</title>
<link rel="icon" href="data:,"><script type="module" src="/widgets.js"></script>
<style>${STYLE}</style></head>
<body><main><h1>Sparse mappings</h1>
<p>Drag a score and watch where each mapping puts the three weights.</p>
<sx-simplex id="s" scores="1.5 0 1"></sx-simplex>
<p>The same, as a blog post would show it, without the 3-D view:</p>
<sx-simplex id="t" scores="1.2 -0.3 0.9" mappings="softmax sparsemax entmax15" cloud="none" view="ternary" entropy="tsallis"></sx-simplex>
<p>The end.</p></main></body></html>`;

const box = (r) => `[${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`;

// Boxes of the triangle and of bar i's drag area (its hit rectangle), in client coordinates.
const boxes = (page, i) => page.evaluate((k) => {
  const sr = document.getElementById("s").shadowRoot;
  const r = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, top: b.top, right: b.right, bottom: b.bottom }; };
  const hit = sr.querySelectorAll("svg.bars rect.hit")[k] || sr.querySelectorAll("svg.bars rect")[k];
  return { tri: r(sr.querySelector("svg.tri")), bar: r(hit), knob: r(sr.querySelectorAll("svg.bars .knob")[k]), vh: innerHeight, vw: innerWidth };
}, i);
const inView = (b, v) => b.top >= -0.5 && b.bottom <= v.vh + 0.5 && b.left >= -0.5 && b.right <= v.vw + 0.5;

// Scrolls the whole of bar B's drag area into view (the least scroll that shows it), then drags
// its knob upwards by touch, measuring at the start and after each move.
async function dragBar(page, w) {
  await page.evaluate(() => document.getElementById("s").shadowRoot.querySelectorAll("svg.bars rect")[1].scrollIntoView({ block: "nearest" }));
  await frames(page, 2);
  const b0 = await boxes(page, 1);
  const x = (b0.knob.left + b0.knob.right) / 2, y = (b0.knob.top + b0.knob.bottom) / 2;
  const before = await page.$eval("#s", (e) => e.scores[1]);
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, pts) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: pts });
  const seen = [];
  await touch("touchStart", [{ x, y }]);
  seen.push(await boxes(page, 1));
  for (let k = 1; k <= 5; k++) {
    await touch("touchMove", [{ x, y: y - 12 * k }]);
    await frames(page, 1);
    seen.push(await boxes(page, 1));
  }
  // the finger rests before it lifts (a moving lift starts a fling, which swallows the next tap)
  await frames(page, 10);
  await touch("touchMove", [{ x, y: y - 60 }]);
  await frames(page, 10);
  await touch("touchEnd", []);
  await cdp.detach();
  await frames(page, 2);
  const after = await page.$eval("#s", (e) => e.scores[1]);
  check(after > before + 0.3, `${w} px: dragging bar B up by touch raises its score (${before} -> ${after})`);
  const bad = seen.filter((v) => !inView(v.tri, v) || !inView(v.bar, v));
  check(bad.length === 0, `${w} px: the triangle and bar B's drag area stay inside the ${b0.vw} x ${b0.vh} viewport while it is dragged` +
    (bad.length ? ` (at a step: triangle ${box(bad[0].tri)}, bar ${box(bad[0].bar)})` : ""));
  const span = Math.max(b0.tri.bottom, b0.bar.bottom) - Math.min(b0.tri.top, b0.bar.top);
  console.log(`simplex-phone: ${w} px: triangle + bar B span ${Math.round(span)} px of a ${b0.vh} px viewport`);
}

// A tap by CDP touch events at the middle of a locator's element, scrolled into view first (as
// the drag: Playwright's own tap, right after those, sometimes gave no click).
async function tap(page, loc) {
  await loc.scrollIntoViewIfNeeded();
  await frames(page, 2);
  const b = await loc.boundingBox();
  const cdp = await page.context().newCDPSession(page);
  const at = [{ x: b.x + b.width / 2, y: b.y + b.height / 2 }];
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

// The 3-D view's disclosure button: state, then tap, Enter and Space.
async function disclosure(page, w, { phone }) {
  const btn = page.locator("#s button[aria-controls]");
  if (!(await btn.count())) { check(false, `${w} px: a button opens and closes the 3-D view (none found)`); return; }
  const state = () => page.evaluate(() => {
    const sr = document.getElementById("s").shadowRoot, b = sr.querySelector("button[aria-controls]");
    const v3 = sr.getElementById(b.getAttribute("aria-controls"));
    return { expanded: b.getAttribute("aria-expanded"), shown: !!v3 && v3.getClientRects().length > 0 && v3.getBoundingClientRect().height > 50,
      links: v3 ? v3.querySelectorAll("path.link").length : 0 };
  });
  const exported = () => page.$eval("#s", (e) => (e.toSVG().match(/<svg /g) || []).length - 1);
  const s0 = await state();
  if (phone) {
    const fetched = await page.evaluate(() => performance.getEntriesByType("resource").some((r) => r.name.endsWith("/simplex-3d.js")));
    check(!fetched, `${w} px: the 3-D view's module is not fetched while the view is closed`);
  }
  const e0 = await exported();
  check(e0 === (phone ? 1 : 2), `${w} px: the SVG export holds the pictures shown (${e0}: the triangle${phone ? "" : " and the 3-D view"})`);
  const want = phone ? "false" : "true";
  check(s0.expanded === want && s0.shown === !phone, `${w} px: the 3-D view starts ${phone ? "collapsed" : "open"} (got ${JSON.stringify(s0)})`);
  const expanded = (v) => page.waitForFunction((x) => document.getElementById("s").shadowRoot.querySelector("button[aria-controls]")
    .getAttribute("aria-expanded") === x, v, { timeout: 5000 }).catch(() => {}); // a tap's click may come a little later
  if (phone) await tap(page, btn); else await btn.click();
  await expanded(String(phone));
  if (phone) { // the view's module (simplex-3d.js) is fetched when it is first shown
    await page.waitForFunction(() => document.getElementById("s").shadowRoot.querySelectorAll("svg.v3 path.link").length > 0, null, { timeout: 10000 }).catch(() => {});
  }
  await frames(page, 3);
  const s1 = await state();
  const e1 = await exported();
  check(e1 === (phone ? 2 : 1), `${w} px: once ${phone ? "opened" : "closed"}, the SVG export holds ${phone ? "the 3-D view too" : "the triangle alone"} (got ${e1} pictures)`);
  check(s1.expanded === String(phone) && s1.shown === phone && (!phone || s1.links >= 6),
    `${w} px: ${phone ? "a tap opens the 3-D view, drawn" : "a click closes the 3-D view"} (got ${JSON.stringify(s1)})`);
  await btn.focus();
  await page.keyboard.press("Enter");
  await frames(page, 3);
  const s2 = await state();
  check(s2.expanded === want && s2.shown === !phone, `${w} px: Enter on the focused button toggles it back (got ${JSON.stringify(s2)})`);
  await page.keyboard.press(" ");
  await frames(page, 3);
  const s3 = await state();
  check(s3.expanded === String(phone) && s3.shown === phone && (!phone || s3.links >= 6), `${w} px: Space toggles it again (got ${JSON.stringify(s3)})`);
}

// Hit areas: points 12 px left, right, above and below the centre of the score point and of each
// knob land on that handle; native controls' boxes.
const targets = (page, id) => page.evaluate((i) => {
  const sr = document.getElementById(i).shadowRoot, out = [];
  const centre = (e) => { const b = e.getBoundingClientRect(); return [(b.left + b.right) / 2, (b.top + b.bottom) / 2]; };
  const around = (name, e, owns) => {
    e.scrollIntoView({ block: "center" });
    const [x, y] = centre(e);
    const miss = [[-12, 0], [12, 0], [0, -12], [0, 12]].filter(([dx, dy]) => !owns(sr.elementFromPoint(x + dx, y + dy)));
    out.push({ name, ok: miss.length === 0, detail: miss.length ? `misses at ${JSON.stringify(miss)}` : "" });
  };
  const point = sr.querySelector("svg.tri path.score");
  const handle = sr.querySelector("svg.tri [aria-roledescription='2-D handle']");
  around("the score point", point, (e) => !!e && !!handle && handle.contains(e));
  const hits = [...sr.querySelectorAll("svg.bars rect.hit")], sliders = [...sr.querySelectorAll("svg.bars [role=slider]")];
  // bar k's target: its handle, or the hit rectangle under its knob
  sliders.forEach((h, k) => {
    const [x] = centre(h.querySelector(".knob"));
    const mine = hits.find((r) => { const b = r.getBoundingClientRect(); return b.left < x && x < b.right; });
    around(h.getAttribute("aria-label"), h.querySelector(".knob"), (e) => !!e && (e === mine || h.contains(e)));
  });
  for (const e of sr.querySelectorAll("input, select, button")) {
    if (!e.getClientRects().length || e.closest(".toolbar")) continue;
    const b = e.getBoundingClientRect();
    out.push({ name: `${e.localName} ${e.getAttribute("aria-label") || e.closest("label")?.textContent.trim().slice(0, 16) || e.textContent.trim()}`, w: b.width, h: b.height });
  }
  return out;
}, id);

// Every rendered text's size on screen: SVG text scaled by its screen transform.
const texts = (page, id) => page.evaluate((i) => {
  const sr = document.getElementById(i).shadowRoot, out = [];
  for (const e of sr.querySelectorAll("*")) {
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || ["input", "select", "button"].includes(e.localName);
    if (!own || !e.getClientRects().length || e.closest("title, option")) continue;
    let px = parseFloat(getComputedStyle(e).fontSize);
    if (e instanceof SVGElement) { const m = e.getScreenCTM(); px *= Math.hypot(m.a, m.b); }
    out.push({ text: (e.textContent || e.localName).trim().slice(0, 24), px });
  }
  return out;
}, id);

// Overflow: the document, and every part of the widget against the widget's box (the contents of
// a picture that clips them excepted: the picture itself is checked).
const overflow = (page, id) => page.evaluate((i) => {
  const host = document.getElementById(i), h = host.getBoundingClientRect(), out = [];
  if (document.documentElement.scrollWidth > innerWidth) out.push(`the document is ${document.documentElement.scrollWidth} px wide in ${innerWidth}`);
  if (h.left < 0 || h.right > innerWidth + 0.5) out.push(`the widget spans ${h.left}..${h.right}`);
  for (const e of host.shadowRoot.querySelectorAll("*")) {
    const clip = e.parentElement?.closest("svg");
    if (!e.getClientRects().length || (clip && getComputedStyle(clip).overflow !== "visible")) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < h.left - 0.5 || r.right > h.right + 0.5) out.push(`${e.localName}.${e.getAttribute("class") || ""} "${(e.textContent || "").trim().slice(0, 16)}" spans ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(h.left)}..${Math.round(h.right)}`);
  }
  return out;
}, id);

const hint = (page, id) => page.$eval(`#${id}`, (e) => e.shadowRoot.querySelector(".hint")?.innerText ?? "");

// The layout of #s: where the bars are against the triangle.
const layout = (page) => page.evaluate(() => {
  const sr = document.getElementById("s").shadowRoot, r = (s) => sr.querySelector(s).getBoundingClientRect();
  const t = r("svg.tri"), b = r("svg.bars");
  return { under: b.top >= t.bottom - 0.5 && b.top - t.bottom <= 24 && b.left < t.right && b.right > t.left,
    beside: b.left >= t.right - 0.5 && b.top < t.bottom && b.bottom > t.top, height: Math.round(document.getElementById("s").getBoundingClientRect().height) };
});

async function phone(browser, server, [w, hgt]) {
  const { page, log } = await open(browser, server.url + "__phone.html", server.url, {
    viewport: { width: w, height: hgt }, hasTouch: true, isMobile: true, local: ["blob:", "data:"],
    before: (pg) => pg.route("**/__phone.html", (route) => route.fulfill({ contentType: "text/html", body: HTML })),
  });
  await page.waitForFunction(() => ["s", "t"].every((i) => document.getElementById(i)?.lastRenderMs > 0), null, { timeout: 30000 });
  await frames(page, 3);
  check(await page.evaluate(() => matchMedia("(pointer: coarse)").matches), `${w} px: the emulated phone has a coarse pointer`);
  // a phone widens its layout viewport to content wider than the screen: so none here
  const vw = await page.evaluate(() => innerWidth);
  check(vw === w, `${w} px: the layout viewport stays ${w} px wide (got ${vw})`);
  const l = await layout(page);
  check(l.under, `${w} px: the score bars sit directly under the triangle (${JSON.stringify(l)})`);
  console.log(`simplex-phone: ${w} px: <sx-simplex> is ${l.height} px tall (3-D view collapsed)`);
  await dragBar(page, w);
  await disclosure(page, w, { phone: true });
  await page.$eval("#s", (e) => e.setAttribute("scores", "1.5 0 1")); // the score point inside the picture again
  await frames(page, 3);
  for (const id of ["s", "t"]) {
    for (const t of await targets(page, id)) {
      if ("ok" in t) check(t.ok, `${w} px #${id}: ${t.name}: a target of ${MIN_TARGET} px or more ${t.detail}`);
      else check(t.w >= MIN_TARGET && t.h >= TOUCH_TARGET, `${w} px #${id}: ${t.name}: at least ${MIN_TARGET} px wide and ${TOUCH_TARGET} px tall (got ${t.w.toFixed(1)} x ${t.h.toFixed(1)})`);
    }
    const small = (await texts(page, id)).filter((t) => t.px < MIN_TEXT - 1e-3);
    check(small.length === 0, `${w} px #${id}: every text at least ${MIN_TEXT} px on screen (smaller: ${JSON.stringify(small.slice(0, 6).map((t) => `${t.text} ${t.px.toFixed(1)}px`))})`);
    const min = Math.min(...(await texts(page, id)).map((t) => t.px));
    console.log(`simplex-phone: ${w} px #${id}: smallest text ${min.toFixed(1)} px`);
    const over = await overflow(page, id);
    check(over.length === 0, `${w} px #${id}: no horizontal overflow (${JSON.stringify(over.slice(0, 4))})`);
    check(!/key/i.test(await hint(page, id)), `${w} px #${id}: no keyboard hint on a touch screen (got "${await hint(page, id)}")`);
  }
  const tb = await page.$eval("#s", (e) => [...e.shadowRoot.querySelectorAll(".toolbar button")].map((b) => `${b.textContent} ${Math.round(b.getBoundingClientRect().width)} x ${Math.round(b.getBoundingClientRect().height)}`));
  console.log(`simplex-phone: ${w} px: export buttons (base.js, not checked here): ${tb.join(", ")}`);
  await checkClean(page, log, `${w} px: `);
  await page.close();
}

async function desktop(browser, server) {
  const { page, log } = await open(browser, server.url + "__phone.html", server.url, {
    viewport: { width: 1000, height: 900 }, local: ["blob:", "data:"],
    before: (pg) => pg.route("**/__phone.html", (route) => route.fulfill({ contentType: "text/html", body: HTML })),
  });
  await page.waitForFunction(() => ["s", "t"].every((i) => document.getElementById(i)?.lastRenderMs > 0), null, { timeout: 30000 });
  await frames(page, 3);
  const l = await layout(page);
  check(l.beside, `1000 px: the score bars sit beside the triangle (${JSON.stringify(l)})`);
  console.log(`simplex-phone: 1000 px: <sx-simplex> is ${l.height} px tall (3-D view open)`);
  check(/keys work/.test(await hint(page, "s")), `1000 px: the keyboard hint is shown with a mouse (got "${await hint(page, "s")}")`);
  await disclosure(page, 1000, { phone: false });
  const over = await overflow(page, "s");
  check(over.length === 0, `1000 px: no horizontal overflow (${JSON.stringify(over.slice(0, 4))})`);
  await checkClean(page, log, "1000 px: ");
  await page.close();
}

// The 3-D view's module missing: the widget says so, naming the file, and draws the rest.
async function missing3d(browser, server) {
  const { page } = await open(browser, server.url + "__phone.html", server.url, {
    viewport: { width: 1000, height: 900 }, local: ["blob:", "data:"],
    before: async (pg) => {
      await pg.route("**/__phone.html", (route) => route.fulfill({ contentType: "text/html", body: HTML }));
      await pg.route("**/simplex-3d.js", (route) => route.fulfill({ status: 404, body: "" }));
    },
  });
  const msg = () => page.$eval("#s", (e) => { const m = e.shadowRoot.querySelector("[part=message]"); return m.hidden ? "" : m.textContent; });
  await page.waitForFunction(() => document.getElementById("s")?.shadowRoot?.querySelector("[part=message]")?.hidden === false, null, { timeout: 10000 }).catch(() => {});
  const text = await msg();
  check(/^sx-simplex: the 3-D view: .*simplex-3d\.js/.test(text), `without simplex-3d.js the widget says so, naming it (got "${text}")`);
  check(await page.$$eval("#s tbody tr", (r) => r.length) === 5, "without simplex-3d.js the table is drawn");
  await page.close();
}

await runSuite("simplex-phone", async (browser, server) => {
  for (const size of [[390, 844], [320, 568]]) await phone(browser, server, size);
  await desktop(browser, server);
  await missing3d(browser, server);
});
