// What the Chromium tests share: Debian's /usr/bin/chromium launched headless through
// playwright-core, pass/fail counting with a "<name>: N passed, M failed" summary and exit code,
// a page that records console errors, page errors, CSP violations (window.__csp) and requests
// outside its origin, waits for animation frames, and the frame gaps while an sx-attention
// trains. Each test keeps its own special cases.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../web/site/serve.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SITE = path.join(ROOT, "dist/site");
export const SHOTS = path.join(ROOT, "build/screenshots");
export const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const launch = () => chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });

let passed = 0, failed = 0, echo = false;

// Counts a check; a failure is printed at once. After echoPasses(), passes are printed too.
export function check(cond, what) {
  if (cond) { passed++; if (echo) console.log(`ok - ${what}`); }
  else { failed++; console.error(`FAIL: ${what}`); }
}

export function echoPasses() { echo = true; }

// An exception that ended a test early counts as one failure.
export function fail(err) {
  failed++;
  console.error(`FAIL: ${err.stack || err}`);
}

// Prints "<name>: N passed, M failed" and exits, non-zero on any failure.
export function summary(name) {
  console.log(`${name}: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// A page with error, CSP-violation, request and Worker recorders, navigated to url. log.requests holds
// every URL asked for, log.foreign those that start neither with origin nor with one of `local`
// (default blob:). opts go to browser.newPage (default viewport 1100 x 1000), but for `local`
// and `before(page)`, awaited before the navigation (routes, init scripts, resets).
export async function open(browser, url, origin, { local = ["blob:"], before, ...opts } = {}) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 }, ...opts });
  const log = { errors: [], foreign: [], requests: [] };
  page.on("console", (m) => { if (m.type() === "error") log.errors.push(m.text()); });
  page.on("pageerror", (e) => log.errors.push(String(e)));
  page.on("request", (r) => {
    const u = r.url();
    log.requests.push(u);
    if (!u.startsWith(origin) && !local.some((p) => u.startsWith(p))) log.foreign.push(u);
  });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    // every Worker the page constructs, { url, type }: Playwright's page.workers() and "worker"
    // event can miss a short-lived one (seen: a 10-example experiments run on a loaded machine)
    window.__workers = [];
    if (typeof Worker === "function") {
      const W = Worker;
      window.Worker = class extends W {
        constructor(url, opts) {
          super(url, opts);
          window.__workers.push({ url: String(url), type: (opts && opts.type) || "classic" });
        }
      };
    }
  });
  if (before) await before(page);
  await page.goto(url);
  return { page, log };
}

// The checks every page ends with: zero CSP violations, zero console or page errors, no request
// outside its origin (prefix: what the messages start with, e.g. "blog post: ").
export async function checkClean(page, log, prefix = "") {
  const csp = await page.evaluate(() => window.__csp);
  check(csp.length === 0, `${prefix}zero CSP violations (got ${JSON.stringify(csp)})`);
  check(log.errors.length === 0, `${prefix}zero console errors (got ${JSON.stringify(log.errors)})`);
  check(log.foreign.length === 0, `${prefix}no request outside the page's origin (got ${JSON.stringify(log.foreign)})`);
}

// A test's main: serves `root` (default dist/site), launches Chromium, awaits body(browser,
// server), closes both; an exception counts as a failure; then the summary line and exit code.
export async function runSuite(name, body, { root = SITE } = {}) {
  try {
    const server = await startServer({ root });
    const browser = await launch();
    try {
      await body(browser, server);
    } finally {
      await browser.close();
      await server.close();
    }
  } catch (err) {
    fail(err);
  }
  summary(name);
}

// The built page's ready flag (set once its widgets have rendered).
export const ready = (page) => page.waitForSelector("body[data-ready='1']", { timeout: 15000 });

// Resolves after n animation frames.
export const frames = (page, n = 2) => page.evaluate((k) => new Promise((r) => {
  const step = (i) => (i ? requestAnimationFrame(() => step(i - 1)) : r());
  step(k);
}), n);

// Frames (rAF) and progress events until the sx-attention#id's sx-attention-trained event, for one
// training run started by a click on its start button: { frames, progress (sx-attention-progress
// events: one per slice of training or testing), framed (those with a frame since the one
// before: the page drew between the two slices), worst gap and duration ms (to print: wall-clock
// times are no test), detail }.
export async function trainWatchingFrames(page, id) {
  const done = page.evaluate((i) => new Promise((resolve, reject) => {
    const el = document.getElementById(i);
    const t0 = performance.now(), gaps = [];
    let last = t0, over = false, progress = 0, framed = 0, since = 0;
    const tick = (now) => { gaps.push(now - last); last = now; since++; if (!over) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const onProgress = () => { progress++; if (since) framed++; since = 0; };
    el.addEventListener("sx-attention-progress", onProgress);
    const timer = setTimeout(() => { over = true; reject(new Error("no sx-attention-trained event in 120 s")); }, 120000);
    el.addEventListener("sx-attention-trained", (e) => {
      over = true;
      clearTimeout(timer);
      el.removeEventListener("sx-attention-progress", onProgress);
      resolve({ frames: gaps.length, progress, framed, worst: Math.max(0, ...gaps), ms: performance.now() - t0, detail: e.detail });
    }, { once: true });
  }), id);
  await page.locator(`#${id} button.start`).click();
  return done;
}

// ------------------------------------------------------------------ the book's pages
// The site is a book: index.html (the map) and a page per chapter. The chapters, in order, are
// the map's chapter links (nav.map h2 a); AWAITED are chapters another branch adds (linked from
// the map before they land: a link to one that is not in dist/site yet is listed, not failed).
export const AWAITED = new Set();
const html = (f) => fs.readFileSync(path.join(SITE, f), "utf8");
export const chapters = () => [...html("index.html").matchAll(/<h2><a href="([a-z-]+\.html)"/g)].map((m) => m[1]);
/** The page of the built site whose HTML holds an element with this id (a section, a widget). */
export function pageWith(id) {
  const hit = chapters().filter((f) => fs.existsSync(path.join(SITE, f)) && html(f).includes(` id="${id}"`));
  if (hit.length !== 1) throw new Error(`pageWith: id "${id}" is on ${hit.length} pages of dist/site (${hit.join(", ")})`);
  return hit[0];
}
