// The README's blog-author snippet, exactly as printed, in real Chromium: the library copied to
// /simplexity/ of a host, the snippet as the host's page. Every widget must render an SVG and
// show no message (a message means an attribute in the README fell back to its default).
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../web/serve.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const HOST = path.join(ROOT, "build/readme-host");
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let passed = 0, failed = 0;
function check(cond, what) {
  if (cond) passed++;
  else { failed++; console.error(`FAIL: ${what}`); }
}

const readme = await fs.readFile(path.join(ROOT, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## Widgets for a blog post"));
const snippet = (section.match(/^```html\n([\s\S]*?)^```$/m) || [])[1] || "";
const tags = [...snippet.matchAll(/<(sx-[a-z-]+)[\s>]/g)].map((m) => m[1]);

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
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
  const errors = [], foreign = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) foreign.push(r.url()); });
  await page.goto(server.url);
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
} catch (err) {
  failed++;
  console.error(`FAIL: ${err.stack || err}`);
} finally {
  if (browser) await browser.close();
  if (server) await server.close();
}
console.log(`readme: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
