// Accessibility audit of the built site (dist/site: the map and every chapter) and the blog-post
// example in real Chromium, with axe-core (axe.mjs): every section scrolled into view so each
// widget has rendered its models, then axe's WCAG 2.x A/AA rules and best practices run over the
// document and every shadow root. Zero violations, in light and dark, wide and narrow. The
// widgets end up in other people's pages, where such audits run. Also checked here: every
// focusable part of a widget has an accessible name, and (as on every page the browser tests
// open) zero console or page errors, zero CSP violations, no request outside the origin.
import { check, open, ready, frames, runSuite, checkClean, chapters, SITE } from "./harness.mjs";
import { audit } from "./axe.mjs";
import fs from "node:fs";
import path from "node:path";

// Scrolls each widget into view in turn and stays until it has rendered, and, for those that
// fetch a model on view, drawn it (the page grows as they render, so no height read up front;
// moving on after a fixed number of frames let a loaded machine scroll a lazy widget away before
// its IntersectionObserver fired).
async function showEverything(page) {
  const count = await page.evaluate(() => [...document.querySelectorAll("*")].filter((e) => e.localName.startsWith("sx-")).length);
  for (let i = 0; i < count; i++) {
    await page.waitForFunction((k) => {
      const e = [...document.querySelectorAll("*")].filter((x) => x.localName.startsWith("sx-"))[k];
      e.scrollIntoView();
      if (!e.shadowRoot || !(e.lastRenderMs > 0)) return false;
      if (e.localName === "sx-attention") return e.shadowRoot.querySelectorAll("svg.maps .panel").length > 0;
      if (e.localName === "sx-span-mask" && (e.getAttribute("model") || "none") !== "none") return e.shadowRoot.querySelectorAll("[role=button]").length > 0;
      return true;
    }, i, { timeout: 30000 });
  }
  await frames(page, 3);
}

// Every element a keyboard reaches inside a widget (tabindex >= 0, or a native control) has a
// non-empty accessible name (aria-label, aria-labelledby, a <label>, or its text).
const unnamed = (page) => page.evaluate(() => {
  const out = [];
  for (const host of document.querySelectorAll("*")) {
    if (!host.localName.startsWith("sx-") || !host.shadowRoot) continue;
    for (const el of host.shadowRoot.querySelectorAll("[tabindex], button, input, select")) {
      if (el.getAttribute("tabindex") === "-1" || el.closest("[hidden]")) continue;
      const name = el.getAttribute("aria-label") || (el.labels && el.labels.length && el.labels[0].textContent) || el.textContent;
      if (!name || !name.trim()) out.push(`${host.localName} ${el.localName}.${el.getAttribute("class") || ""}`);
    }
  }
  return out;
});

async function checkPage(browser, url, origin, label, opts) {
  const { page, log } = await open(browser, url, origin, opts);
  if (await page.$("body > header #status")) await ready(page); // a chapter: its widgets are defined
  await showEverything(page);
  const v = await audit(page);
  check(v.length === 0, `${label}: no axe violation (got ${v.length}: ${v.join(" | ")})`);
  const u = await unnamed(page);
  check(u.length === 0, `${label}: every focusable part of a widget has a name (unnamed: ${JSON.stringify(u)})`);
  await checkClean(page, log, `${label}: `);
  await page.close();
}

await runSuite("a11y", async (browser, server) => {
  // the map and every chapter of the book (one another branch adds is audited once it is built)
  for (const file of ["index.html", ...chapters().filter((f) => fs.existsSync(path.join(SITE, f)))]) {
    await checkPage(browser, server.url + file, server.url, `${file}, light`);
    await checkPage(browser, server.url + file, server.url, `${file}, dark, 390 px`, { colorScheme: "dark", viewport: { width: 390, height: 844 } });
  }
  await checkPage(browser, server.url + "examples/blog-post.html", server.url, "blog post, light");
  await checkPage(browser, server.url + "examples/blog-post.html", server.url, "blog post, dark", { colorScheme: "dark" });
});
