// url-state.mjs - links that keep what the reader set (issue 22, item 2; widgets/link.js). For
// every widget tag widgets.js registers, on a page of its own: set a state that is not the
// page's (through the UI for some, attributes for the rest, one attribute the page wrote removed),
// press the widget's Link button, read the link from the clipboard (and the "Link copied" status),
// open it in a fresh browser context, and find the same state attributes and the same picture
// (the widget's SVG export), which differs from the page's own. Half the
// widgets have an id, the others are linked by the id derived from their tag. Then bad fragments:
// a bad value (the widget's usual message and default), an unknown name, a name only the page
// sets (no request for it), no id, an id no widget has, a widget with link="none" (no button, not
// set by links); a fragment changed in an open page (hashchange); link="live" (the page's URL
// follows the reader, history.replaceState); a page that may not write to the clipboard (the
// link shown to copy); a link into a chapter of the site. Everywhere: zero
// console errors, CSP violations and requests outside the origin.
import fs from "node:fs";
import { check, echoPasses, open, frames, runSuite, checkClean, chapters, SITE } from "./harness.mjs";
import { fixtures } from "../fixtures/attention-files.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";

echoPasses();
const { TAGS } = await import(pathToFileURL(path.join(SITE, "widgets.js")).href);
const FX = fixtures().good.find((f) => f.file === "layers.npy");

// tag -> [the page's markup attributes, the state set: attribute -> value (null: removed), or a
// function that sets it through the UI]
const CASES = {
  "sx-simplex": ['cloud="sparsemax"', { alpha: "1.8", temperature: "0.5", cloud: "all", entropy: "shannon" }, async (w) => {
    await w.locator("svg.bars [role=slider]").first().focus();
    for (let i = 0; i < 6; i++) await w.page().keyboard.press("ArrowUp"); // the score of A, by the keyboard
  }],
  "sx-entropy": ['scores="1.5 0 1"', { alpha: "2.5", scores: "0.5 1 -1" }],
  "sx-trajectory": ['scores="1.5 0 1"', { scores: "2 0 -1", t: "3", mappings: "softmax sparsemax" }],
  "sx-two-choice": ['alpha="1.5"', { t: "-1" }, async (w) => {
    await w.locator("input[type=range]").first().focus();
    for (let i = 0; i < 5; i++) await w.page().keyboard.press("ArrowRight"); // alpha, by the slider
  }],
  "sx-fused": ["", { scores: "1 0 2 0.5", lambda: "0.5", groups: "2 2", "group-lambda": "1", steps: "", output: "3" }],
  "sx-jacobian": ['mapping="sparsemax" compare="softmax"', { mapping: "entmax", compare: "none", n: "4", scores: "1 0.5 -0.5 0", alpha: "1.7" }],
  "sx-threshold": ['mapping="sparsemax" scores="1 0 -1"', { scores: null, n: "6", mapping: "entmax15", steps: "" }],
  "sx-regularized": ['mapping="entmax15"', { scores: "0.5 1 0", mapping: "sparsemax", view: "argmax max" }],
  "sx-span-mask": ['mapping="entmax15"', { mapping: "sparsemax", z: "6", ramp: "2" }],
  "sx-pooling": ["", { w: "3", mappings: "softmax entmax15", seed: "2" }],
  "sx-scores": ["", { scoring: "dot", mapping: "entmax", query: "-1 0.5", d: "16" }],
  "sx-positions": ["", { base: "100", dim: "16", offset: "2" }],
  "sx-patterns": ['n="64"', { n: "128", pattern: "strided", stride: "8" }],
  "sx-attention": ['task="reverse" kind="alpha" no-train', { task: "sort", kind: "entmax15", input: "jihgfa", decode: "" }, async (w) => {
    await w.locator("svg.decode g.drow").first().waitFor({ timeout: 60000 });
    await w.locator("button.dnext").click(); // the decoding step, by its Next button
    await w.locator("button.dnext").click();
    await w.page().waitForFunction(() => document.querySelector("sx-attention").getAttribute("step") === "3");
  }],
  "sx-explain": ['task="reverse" kind="entmax15"', { task: "sort", text: "hgfedcba", step: "2", head: "1.2", objective: "logProb", erase: "1 3", "erase-from": "all" }],
  "sx-loss": ['mappings="softmax sparsemax entmax15"', { target: "B", scores: "0.5 1 -1", mappings: "softmax sparsemax", alpha: "2" }],
  "sx-chain": ['transition="1"', { transition: "-0.5" }, async (w) => {
    await w.locator("svg [role=slider]").first().focus();
    for (let i = 0; i < 4; i++) await w.page().keyboard.press("ArrowDown"); // the first score, by the keyboard
  }],
  "sx-decode": ['task="reverse" output="entmax15"', { task: "sort", output: "sparsemax", source: "hhdbgaj", step: "3", cap: "1" }],
  "sx-write": ['model="entmax15-out" steps="4"', { model: "softmax", prompt: "WAR, n. ", steps: "9", seed: "7", temperature: "0.7", "top-p": "0.9" }],
  "sx-cues": ['mapping="sparsemax"', { objects: "red-circle blue-square gray-square", gain: "5" }, async (w) => {
    await w.locator("input[type=text]").fill("blue"); // the query, typed (the cue turns volitional)
  }],
  "sx-costs": ['n="48"', { d: "16", k: "5" }, async (w) => {
    await w.locator("input[type=range]").first().focus();
    for (let i = 0; i < 3; i++) await w.page().keyboard.press("ArrowRight"); // n, by the slider
  }],
  "sx-bottleneck": ['mapping="sparsemax"', { estimator: "gumbel", steps: "500", seed: "3" }, async (w) => {
    await w.locator("select").first().focus();
    await w.page().keyboard.press("ArrowDown"); // the view, by its menu: the shipped models
  }],
  "sx-hard": ['figure="variance"', { source: "jihgfe", curve: "loss" }, async (w) => {
    await w.locator("select").first().focus();
    await w.page().keyboard.press("ArrowDown"); // the gradient figure, by its menu
  }],
  "sx-rationale": ['steps="600"', { seed: "4" }, async (w) => {
    await w.locator("input[type=number]").first().fill("900"); // the steps, typed
    await w.locator("input[type=number]").first().blur(); // (a change event)
  }],
  "sx-heatmap": ['src="fx/layers.npy"', { sort: "entropy" }, async (w) => {
    await w.locator("select").first().selectOption("sparsemax"); // the mapping, by its menu
  }],
};

const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:";
const html = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}"><title>links</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><script type="module" src="/widgets.js"></script></head>
<body><main><h1>A post</h1>${body}</main></body></html>`;
// each tag's page: the widget, with id "w" for every other tag (the rest get "<tag>-1")
const withId = (tag) => TAGS.indexOf(tag) % 2 === 0;
const PAGES = new Map(TAGS.map((t) => [`${t}.html`, html(`<${t} ${withId(t) ? 'id="w" ' : ""}${CASES[t][0]}></${t}>`)]));
PAGES.set("bad.html", html(`<sx-two-choice id="w" alpha="1.5"></sx-two-choice><p>between</p>
<sx-two-choice id="fixed" link="none" alpha="1.5"></sx-two-choice><sx-heatmap id="h" src="fx/layers.npy"></sx-heatmap>`));
PAGES.set("live.html", html('<sx-two-choice id="w" link="live"></sx-two-choice>'));

const route = async (p) => {
  await p.route("**/__links/*", (r) => {
    const name = new URL(r.request().url()).pathname.split("/").pop();
    return PAGES.has(name) ? r.fulfill({ body: PAGES.get(name), contentType: "text/html; charset=utf-8" }) : r.fulfill({ status: 404, body: "no such page" });
  });
  await p.route("**/fx/*", (r) => r.fulfill({ body: Buffer.from(FX.bytes), contentType: "application/octet-stream" }));
};
const opts = { local: ["blob:"], before: route, permissions: ["clipboard-read", "clipboard-write"] };

// Waits until the widget has the attributes `want` (a link's state: link.js applies it after its
// own import, so a widget first renders without it), has drawn what it shows (models loaded, files
// read) and its SVG export is the same twice in a row; returns { svg, state (every attribute),
// message }. (Without the first wait, <sx-bottleneck>'s linked "trained" view was read as the
// page's "live" one, then its "loading…" picture, steady for longer than the stability check.)
async function settled(page, sel, want = {}) {
  await page.waitForFunction(([s, want]) => {
    const e = document.querySelector(s);
    if (!e || !e.shadowRoot || !(e.lastRenderMs > 0)) return false;
    if (Object.entries(want).some(([k, v]) => e.getAttribute(k) !== v)) return false;
    e.scrollIntoView();
    const r = e.shadowRoot;
    if (e.localName === "sx-attention") return r.querySelectorAll("svg.maps .panel").length > 0 && (!e.decode || r.querySelector("svg.decode *"));
    if (e.localName === "sx-explain") return r.querySelectorAll("[role=radio]").length > 0;
    if (e.localName === "sx-decode") return Boolean(e.result);
    if (e.localName === "sx-heatmap") return Boolean(e.result);
    if (e.localName === "sx-bottleneck") return e.view !== "trained" || (e.trained && e.trained.state !== "loading");
    if (e.localName === "sx-hard") return Boolean(e.result);
    return true;
  }, [sel, want], { timeout: 60000 });
  let last = null;
  for (let i = 0; i < 40; i++) {
    await frames(page, 3);
    const now = await page.$eval(sel, (e) => {
      document.activeElement?.blur();
      return { svg: e.toSVG(), state: Object.fromEntries([...e.attributes].map((a) => [a.name, a.value]).sort()),
        message: e.shadowRoot.querySelector("[part=message]").hidden ? "" : e.shadowRoot.querySelector("[part=message]").textContent };
    });
    if (last && now.svg === last.svg) return now;
    last = now;
    await page.waitForTimeout(150);
  }
  throw new Error(`${sel}: its picture never settled`);
}

async function roundTrip(browser, server, tag) {
  const url = `${server.url}__links/${tag}.html`, sel = withId(tag) ? "#w" : tag;
  const { page: a, log: la } = await open(browser, url, server.url, opts);
  const before = await settled(a, sel);
  const [, state, ui] = CASES[tag];
  await a.$eval(sel, (e, st) => { for (const [k, v] of Object.entries(st)) if (v === null) e.removeAttribute(k); else e.setAttribute(k, v); }, state);
  if (ui) await ui(a.locator(sel));
  const set = await settled(a, sel);
  check(set.svg !== before.svg, `${tag}: the state set changes the picture`);
  await a.locator(sel).locator("button[aria-label^='Copy a link']").click();
  await a.waitForFunction((s) => document.querySelector(s).shadowRoot.querySelector("[part=message]").textContent.includes("Link copied"), sel);
  const link = await a.evaluate(() => navigator.clipboard.readText());
  const shown = await a.$eval(sel, (e) => e.shadowRoot.querySelector("[part=message]").textContent);
  check(shown === `Link copied: ${link}`, `${tag}: the status shows the link copied (${shown.slice(0, 120)})`);
  const id = withId(tag) ? "w" : `${tag}-1`;
  check(link.startsWith(`${url}#${id}?`), `${tag}: the link is the page's URL, #${id}?... (${link})`);
  await checkClean(a, la, `${tag} (set): `);
  await a.context().close();

  const { page: b, log: lb } = await open(browser, link, server.url, opts);
  const got = await settled(b, sel, set.state);
  check(JSON.stringify(got.state) === JSON.stringify(set.state), `${tag}: the same attributes after the link (${JSON.stringify(got.state)} vs ${JSON.stringify(set.state)})`);
  check(got.svg === set.svg, `${tag}: the same picture after the link (${got.svg.length} vs ${set.svg.length} characters of SVG)`);
  check(got.message === set.message, `${tag}: the same message (${JSON.stringify(got.message)})`);
  await checkClean(b, lb, `${tag} (linked): `);
  await b.context().close();
}

const message = (p, sel) => p.$eval(sel, (e) => { const m = e.shadowRoot.querySelector("[part=message]"); return m.hidden ? "" : m.textContent; });
const until = (p, sel, text) => p.waitForFunction(([s, t]) => {
  const m = document.querySelector(s)?.shadowRoot?.querySelector("[part=message]");
  return m && !m.hidden && m.textContent.includes(t);
}, [sel, text], { timeout: 30000 }).then(() => true, () => false);

async function badFragments(browser, server) {
  const base = `${server.url}__links/bad.html`;
  const { page: d } = await open(browser, base, server.url, opts);
  const plain = await settled(d, "#w");
  await d.context().close();
  const cases = [
    ["#w?alpha=9&t=1", "#w", 'alpha="9" is above 4; using 1.5', { alpha: "9", t: "1" }],
    ["#w?alpha=2&bogus=1", "#w", '<sx-two-choice> has no setting "bogus"', { alpha: "2" }],
    ["#w?alpha=2&alpha=3", "#w", "alpha is given twice; using the last", { alpha: "3" }],
    ["#?alpha=2", "#w", "names no widget", {}],
    ["#nosuch?alpha=2", "#w", 'no widget on this page has the id "nosuch" (the widgets: w, fixed, h)', {}],
    ["#fixed?alpha=2", "#fixed", 'this widget takes no links (link="none")', {}],
    ["#h?src=http%3A%2F%2Fexample.com%2Fx.npy&sort=sparsity", "#h", "src is set by the page, not by a link", { sort: "sparsity" }],
    ["#w?alpha=%E0%A4%A", "#w", 'alpha="\ufffd%A" is not a number', {}],
  ];
  for (const [frag, sel, text, attrs] of cases) {
    const { page: p, log } = await open(browser, base + frag, server.url, opts);
    const shown = await until(p, sel, text);
    check(shown, `${frag}: ${sel} says "${text}" (got ${JSON.stringify(await message(p, sel))})`);
    const got = await p.$eval(sel, (e, names) => Object.fromEntries(names.map((n) => [n, e.getAttribute(n)])), Object.keys(attrs));
    check(JSON.stringify(got) === JSON.stringify(attrs), `${frag}: ${sel}'s attributes ${JSON.stringify(got)}`);
    if (frag.startsWith("#w?alpha=9")) check((await settled(p, "#w")).svg !== plain.svg, `${frag}: t applied, alpha at its default`);
    if (!frag.startsWith("#w?") && sel !== "#h") check((await settled(p, "#w")).svg === plain.svg, `${frag}: #w as the page wrote it`);
    if (frag.startsWith("#fixed")) {
      check(await p.$eval("#fixed", (e) => getComputedStyle(e.shadowRoot.querySelector("button[aria-label^='Copy a link']")).display === "none"), `${frag}: link="none" has no Link button`);
      check(await p.$eval("#fixed", (e) => e.getAttribute("alpha")) === "1.5", `${frag}: link="none" keeps its attributes`);
    }
    await checkClean(p, log, `${frag}: `);
    await p.context().close();
  }

  // a fragment that changes in an open page, and a message that goes once the reader changes the widget
  const { page: p, log } = await open(browser, base, server.url, opts);
  await settled(p, "#w");
  await p.evaluate(() => { location.hash = "#w?alpha=2.5&t=0.25&bogus=1"; });
  check(await until(p, "#w", 'has no setting "bogus"'), "hashchange: the new fragment's message");
  check(await p.$eval("#w", (e) => [e.getAttribute("alpha"), e.getAttribute("t")].join()) === "2.5,0.25", "hashchange: the new fragment applied");
  await p.locator("#w input[type=range]").first().focus();
  await p.keyboard.press("ArrowLeft");
  await frames(p, 3);
  check(await message(p, "#w") === "", `the link's message goes when the reader changes the widget (got ${JSON.stringify(await message(p, "#w"))})`);
  check(await p.evaluate(() => location.hash) === "#w?alpha=2.5&t=0.25&bogus=1", "without link=\"live\" the widget leaves the page's URL alone");
  await checkClean(p, log, "hashchange: ");
  await p.context().close();
}

async function live(browser, server) {
  const { page: p, log } = await open(browser, `${server.url}__links/live.html`, server.url, opts);
  await settled(p, "#w");
  const entries = await p.evaluate(() => history.length);
  await p.locator("#w input[type=range]").first().focus();
  for (let i = 0; i < 4; i++) await p.keyboard.press("ArrowRight");
  await p.waitForFunction(() => location.hash.includes("alpha=1.54"), null, { timeout: 5000 }).catch(() => {});
  const hash = await p.evaluate(() => location.hash);
  check(hash === "#w?alpha=1.54", `link="live": the page's URL follows the reader (${hash})`);
  check(await p.evaluate(() => history.length) === entries, "link=\"live\": replaced, no history entry per change");
  await checkClean(p, log, "live: ");
  await p.context().close();
}

// a page that may not write to the clipboard (here it refuses): the link is shown to copy by hand
async function noClipboard(browser, server) {
  const before = async (p) => {
    await route(p);
    await p.addInitScript(() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException("refused", "NotAllowedError")); });
  };
  const { page: p, log } = await open(browser, `${server.url}__links/bad.html`, server.url, { ...opts, before });
  await settled(p, "#w");
  await p.$eval("#w", (e) => e.setAttribute("t", "1.25"));
  await p.locator("#w button[aria-label^='Copy a link']").click();
  const want = `Copy this link: ${server.url}__links/bad.html#w?alpha=1.5&t=1.25`;
  check(await until(p, "#w", want), `no clipboard: the link shown to copy (got ${JSON.stringify(await message(p, "#w"))})`);
  await checkClean(p, log, "no clipboard: ");
  await p.context().close();
}

// every widget of the site has an id of its own, unique in its page: its links name it, not its place
function siteIds() {
  for (const f of ["index.html", ...chapters()].filter((x) => fs.existsSync(path.join(SITE, x)))) {
    const page = fs.readFileSync(path.join(SITE, f), "utf8");
    const tags = [...page.matchAll(/<(sx-[a-z-]+)\b([^>]*)>/g)];
    const ids = [...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
    const bare = tags.filter((t) => !/\sid="/.test(t[2])).map((t) => t[1]);
    check(!bare.length, `${f}: every widget has an id (without one: ${bare.join(", ") || "none"})`);
    const twice = ids.filter((x, i) => ids.indexOf(x) !== i);
    check(!twice.length, `${f}: its ids are unique (twice: ${twice.join(", ") || "none"})`);
  }
}

// a link into a chapter of the site: the widget's id, its state, the chapter's wiring still on
async function chapter(browser, server) {
  const { page: p, log } = await open(browser, `${server.url}mappings.html#simplex?scores=0.5+1+-1&alpha=2.2&cloud=none`, server.url, opts);
  await p.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  const s = await settled(p, "#simplex");
  check(s.state.scores === "0.5 1 -1" && s.state.alpha === "2.2" && s.state.cloud === "none" && s.message === "", `mappings.html#simplex?...: applied (${JSON.stringify(s.state)}, ${JSON.stringify(s.message)})`);
  check(await p.$eval("#simplex", (e) => { const r = e.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }), "mappings.html#simplex?...: the widget is scrolled into view");
  await checkClean(p, log, "chapter: ");
  await p.context().close();
}

await runSuite("url-state", async (browser, server) => {
  check(TAGS.length === 25 && TAGS.every((t) => CASES[t]), `a case for every tag widgets.js registers (${TAGS.length})`);
  for (const tag of TAGS) await roundTrip(browser, server, tag);
  await badFragments(browser, server);
  await live(browser, server);
  await noClipboard(browser, server);
  await chapter(browser, server);
  siteIds();
});
