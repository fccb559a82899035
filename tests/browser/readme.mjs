// The README's blog-author snippet, exactly as printed, in real Chromium: the library copied to
// /simplexity/ of a host, the snippet as the host's page. Every widget must render an SVG and
// show no message (a message means an attribute in the README fell back to its default).
import fs from "node:fs/promises";
import path from "node:path";
import { startServer } from "../../web/site/serve.mjs";
import { ROOT, launch, check, fail, summary, open } from "./harness.mjs";

const HOST = path.join(ROOT, "build/readme-host");

const readme = await fs.readFile(path.join(ROOT, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Widgets for a blog post"));
const snippet = (section.match(/^```html\n([\s\S]*?)^```$/m) || [])[1] || "";
const tags = [...snippet.matchAll(/<(sx-[a-z-]+)[\s>]/g)].map((m) => m[1]);

// A post with one widget downloads that widget's module and no other: not <sx-attention>'s
// trainer and inspect. A tag a script adds later is loaded then; a property set on it before
// its class is defined is applied on upgrade; a module that cannot load is a console error
// naming the tag and the file.
async function onlyTheWidgetsUsed(browser, server) {
  await fs.writeFile(path.join(HOST, "one.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>One widget</title>` +
    `<link rel="icon" href="data:,"><script type="module" src="/simplexity/widgets.js"></script></head>` +
    `<body><h1>A post</h1>\n<sx-two-choice alpha="1.5"></sx-two-choice>\n</body></html>\n`);
  const { page, log: { errors, requests } } = await open(browser, server.url + "one.html", server.url, {
    viewport: { width: 1000, height: 1200 },
    before: (p) => p.route("**/simplexity/widgets/sx-fused.js", (route) => route.fulfill({ status: 404, body: "not here" })),
  });
  await page.waitForFunction(() => { const e = document.querySelector("sx-two-choice"); return e.shadowRoot && e.lastRenderMs > 0; }, null, { timeout: 15000 });
  const js = () => requests.map((u) => new URL(u).pathname).filter((u) => u.endsWith(".js")).map((u) => u.replace("/simplexity/", ""));
  const atLoad = js();
  check(atLoad.includes("widgets/sx-two-choice.js") && atLoad.includes("widgets/base.js"),
    `a post with <sx-two-choice> loads its module (got ${JSON.stringify(atLoad)})`);
  const others = atLoad.filter((f) => /^widgets\/sx-/.test(f) && f !== "widgets/sx-two-choice.js");
  check(others.length === 0, `... and no other widget's module (got ${JSON.stringify(others)})`);
  // (model.js is part of the library: simplexity.js imports it for its Model and tasks exports)
  const heavy = atLoad.filter((f) => ["widgets/sx-attention.js", "trainer.js", "inspect.js", "train-session.js", "train-worker.js"].includes(f));
  check(heavy.length === 0, `... nor sx-attention.js, its trainer and inspect (got ${JSON.stringify(heavy)})`);
  // a tag added by a script, with a property set before its class exists
  await page.evaluate(() => {
    const e = document.createElement("sx-trajectory");
    e.t = 2.5;
    document.body.append(e);
  });
  await page.waitForFunction(() => { const e = document.querySelector("sx-trajectory"); return e.shadowRoot && e.lastRenderMs > 0; }, null, { timeout: 15000 });
  const t = await page.$eval("sx-trajectory", (e) => [e.getAttribute("t"), Object.hasOwn(e, "t")]);
  check(t[0] === "2.5" && !t[1], `a property set before the upgrade goes through the setter (got ${JSON.stringify(t)})`);
  check(js().includes("widgets/sx-trajectory.js") && !js().includes("widgets/sx-attention.js"),
    "a widget added later is loaded then, and only it");
  const api = await page.evaluate(async () => {
    const { load, TAGS } = await import("/simplexity/widgets.js");
    const cls = await load("sx-entropy");
    const bad = await load("sx-nothing").then(() => "resolved", (e) => `${e.name}: ${e.message}`);
    return { tags: TAGS.length, same: cls === customElements.get("sx-entropy"), bad };
  });
  const widgetFiles = (await fs.readdir(path.join(HOST, "simplexity/widgets"))).filter((f) => /^sx-[a-z-]+\.js$/.test(f)).length;
  check(api.tags === widgetFiles && api.same && api.bad.startsWith("RangeError: load: tag must be one of"),
    `load(tag) resolves to the defined class, refuses an unknown tag, TAGS has one tag per widgets/sx-*.js (${widgetFiles}) (${JSON.stringify(api)})`);
  check(errors.length === 0, `one widget: zero console errors (got ${JSON.stringify(errors)})`);
  // a missing module: the console names the tag and the file
  await page.evaluate(() => document.body.append(document.createElement("sx-fused")));
  for (let i = 0; i < 50 && !errors.some((e) => e.includes("<sx-fused>")); i++) await new Promise((r) => setTimeout(r, 100));
  const missing = errors.find((e) => e.includes("<sx-fused>"));
  check(missing && missing.includes("widgets/sx-fused.js"), `a module that cannot load is a console error with its tag and file (got ${JSON.stringify(errors)})`);
  await page.close();
}

let server, browser;
try {
  check(snippet.includes('src="/simplexity/widgets.js"') && tags.length >= 5,
    `README has the widget snippet with its script tag and >= 5 widgets (got ${tags.length})`);
  await fs.rm(HOST, { recursive: true, force: true });
  await fs.mkdir(HOST, { recursive: true });
  await fs.cp(path.join(ROOT, "dist/site"), path.join(HOST, "simplexity"), { recursive: true });
  await fs.writeFile(path.join(HOST, "index.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A blog</title>` +
    `<link rel="icon" href="data:,"></head><body><h1>A post</h1>\n${snippet}\n</body></html>\n`);
  server = await startServer({ root: HOST });
  browser = await launch();
  const { page, log: { errors, foreign } } = await open(browser, server.url, server.url, { viewport: { width: 1000, height: 1200 }, local: ["data:"] });
  for (const tag of tags) {
    const ok = await page.waitForFunction((t) => {
      const el = document.querySelector(t);
      const svg = el && el.shadowRoot && el.shadowRoot.querySelector("svg");
      return svg && svg.querySelectorAll("*").length > 10;
    }, tag, { timeout: 15000 }).then(() => true, () => false);
    check(ok, `${tag} from the README renders an SVG`);
    const msg = await page.evaluate((t) => {
      const m = document.querySelector(t).shadowRoot.querySelector("[part=message]");
      return m && !m.hidden ? m.textContent : "";
    }, tag);
    check(msg === "", `${tag} from the README shows no message (got "${msg}")`);
  }
  check(errors.length === 0, `zero console errors (got ${JSON.stringify(errors)})`);
  check(foreign.length === 0, `no request outside the host (got ${JSON.stringify(foreign)})`);
  await page.close();
  await onlyTheWidgetsUsed(browser, server);
} catch (err) {
  fail(err);
} finally {
  if (browser) await browser.close();
  if (server) await server.close();
}
summary("readme");
