// The README's blog-author snippet, exactly as printed, in real Chromium: the library copied to
// /simplexity/ of a host, the snippet as the host's page. Every widget must render an SVG and
// show no message (a message means an attribute in the README fell back to its default). Then
// the README's file lists, followed word for word, and a page missing one of the files.
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

// The README's file lists for a page without a bundler (between <!-- files:start --> and
// <!-- files:end -->), followed word for word: each line's backticked names (a name ending in /
// is a folder), copied from dist/site/ to a host of their own, the first line alone for every
// widget but the three that need more, the first line and another line for the widget it names.
// Every widget must render with no message and no console error (a 404 is one).
const filesSection = readme.slice(readme.indexOf("<!-- files:start -->"), readme.indexOf("<!-- files:end -->"));
const fileLines = filesSection.split("\n").filter((l) => l.startsWith("- ")).map((l) => ({
  tag: (/^- `<(sx-[a-z-]+)(?: ([a-z-]+))?>`/.exec(l) || [])[1] || null,
  attr: (/^- `<sx-[a-z-]+ ([a-z-]+)>`/.exec(l) || [])[1] || null,
  files: [...l.slice(l.indexOf(":") + 1).matchAll(/`([^`<>]+)`/g)].map((m) => m[1]),
}));
async function fileLists(browser) {
  check(fileLines.length >= 4 && fileLines[0].tag === null && fileLines[0].files.includes("mappings.js"),
    `README has the file lists, the first for every widget (got ${JSON.stringify(fileLines.map((l) => [l.tag, l.files.length]))})`);
  const TAGS = (await import(path.join(ROOT, "dist/site/widgets.js"))).TAGS;
  const needMore = fileLines.slice(1).filter((l) => !l.attr).map((l) => l.tag);
  const pages = [
    { files: fileLines[0].files, body: TAGS.filter((t) => !needMore.includes(t)).map((t) => `<${t}></${t}>`).join("\n"), what: "the first list" },
    ...fileLines.slice(1).map((l) => ({ files: [...fileLines[0].files, ...l.files], body: l.attr ? `<${l.tag} ${l.attr}="reverse"></${l.tag}>` : `<${l.tag}></${l.tag}>`,
      what: `the first list and <${l.tag}${l.attr ? " " + l.attr : ""}>'s` })),
  ];
  for (const pg of pages) {
    const host = path.join(ROOT, "build/readme-files");
    await fs.rm(host, { recursive: true, force: true });
    await fs.mkdir(path.join(host, "simplexity"), { recursive: true });
    for (const f of pg.files) await fs.cp(path.join(ROOT, "dist/site", f), path.join(host, "simplexity", f), { recursive: true });
    await fs.writeFile(path.join(host, "index.html"), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Files</title>` +
      `<link rel="icon" href="data:,"><script type="module" src="/simplexity/widgets.js"></script></head><body>\n${pg.body}\n</body></html>\n`);
    const srv = await startServer({ root: host });
    try {
      const { page, log } = await open(browser, srv.url, srv.url, { local: ["data:", "blob:"] });
      const tags = [...pg.body.matchAll(/<(sx-[a-z-]+)/g)].map((m) => m[1]);
      for (const t of tags) {
        const ok = await page.waitForFunction((x) => {
          const el = document.querySelector(x);
          el.scrollIntoView();
          const svg = el.shadowRoot && el.shadowRoot.querySelector("svg");
          if (!svg || !(el.lastRenderMs > 0)) return false;
          if (x === "sx-attention") return el.shadowRoot.querySelectorAll("svg.maps .panel").length > 0;
          if (x === "sx-explain") return el.shadowRoot.querySelectorAll("[role=radio]").length > 0;
          if (x === "sx-decode" || x === "sx-write") return Boolean(el.result);
          if (x === "sx-hard") return Boolean(el.result);
          if (el.hasAttribute("model")) return el.shadowRoot.querySelectorAll("[role=button]").length > 0;
          return true;
        }, t, { timeout: 30000 }).then(() => true, () => false);
        const msg = await page.evaluate((x) => { const m = document.querySelector(x).shadowRoot?.querySelector("[part=message]"); return m && !m.hidden ? m.textContent : ""; }, t);
        check(ok && msg === "", `${pg.what} (${pg.files.length} names): <${t}> renders, no message (got ${ok}, "${msg}")`);
      }
      check(log.errors.length === 0, `${pg.what}: zero console errors (got ${JSON.stringify(log.errors)})`);
      await page.close();
    } finally {
      await srv.close();
    }
  }
}

// A page served without one of the library's files: each widget says, in the page, which file it
// could not fetch (not a 0 px element and a 404 on the console alone).
async function missingFile(browser, server, file, tags) {
  const { page } = await open(browser, server.url + "two.html", server.url, {
    before: (p) => p.route(`**/simplexity/${file}`, (route) => route.fulfill({ status: 404, body: "not here" })),
  });
  for (const t of tags) {
    const text = await page.waitForFunction((x) => {
      const el = document.querySelector(x), r = el && el.shadowRoot;
      const m = r && (r.querySelector("[part=message]:not([hidden])") || r.querySelector("p[role=status]"));
      return m && m.textContent && el.getBoundingClientRect().height > 20 ? m.textContent : null;
    }, t, { timeout: 15000 }).then((h) => h.jsonValue(), () => "");
    check(text.includes(file), `without ${file}: <${t}> shows a message naming it (got "${text}")`);
  }
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
      el?.scrollIntoView(); // (<sx-hard> fetches its models once near the viewport)
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
  await fs.writeFile(path.join(HOST, "two.html"), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two</title>` +
    `<link rel="icon" href="data:,"><script type="module" src="/simplexity/widgets.js"></script></head>` +
    `<body>\n<sx-two-choice></sx-two-choice>\n<sx-pooling></sx-pooling>\n</body></html>\n`);
  await missingFile(browser, server, "mappings.js", ["sx-two-choice", "sx-pooling"]);
  await missingFile(browser, server, "model.js", ["sx-pooling"]);
  await missingFile(browser, server, "simplexity-simd.wasm", ["sx-two-choice", "sx-pooling"]); // the page holds a full-core widget: one core
  await fileLists(browser);
} catch (err) {
  fail(err);
} finally {
  if (browser) await browser.close();
  if (server) await server.close();
}
summary("readme");
