// load-error.js - what a widget whose module could not load shows instead of a 0 px element
// (widgets.js imports it only then). The browser says only that the widget's module failed; the
// file missing may be one it imports (a folder copied without mappings.js, say): report() follows
// the static imports to it.

/** The first file that does not come back, following the static imports from `url` and fetching
 * each file once: a sentence naming it, or null when every file does (a syntax error, say). */
export async function missing(url, seen = new Set()) {
  if (seen.has(url)) return null;
  seen.add(url);
  const res = await fetch(url).catch(() => null);
  if (!res || !res.ok) return `${url} could not be fetched${res ? ` (HTTP ${res.status})` : ""}; copy it beside widgets.js, or the whole folder`;
  for (const [, spec] of (await res.text()).matchAll(/\b(?:from|import)\s*["'](\.\.?\/[^"']+)["']/g)) {
    const m = await missing(new URL(spec, url).href, seen);
    if (m) return m;
  }
  return null;
}

const messages = new Map(); // tag -> the promise of its message
/** Shows, in every element of `tag` in the document (never upgraded, so without a shadow root of
 * its own), why its module (at `url`, failed with `err`) could not load. */
export async function report(tag, url, err) {
  if (!messages.has(tag)) messages.set(tag, missing(url).then((m) => `<${tag}> could not be loaded: ${m || `${url}: ${err.message}`}`));
  const text = await messages.get(tag);
  for (const el of document.getElementsByTagName(tag)) {
    if (el.shadowRoot) continue;
    const p = document.createElement("p");
    p.setAttribute("role", "status");
    p.textContent = text;
    // styled through the CSSOM, which a strict CSP allows (a style attribute it would not)
    p.style.cssText = "all:initial;display:block;margin:16px 0;padding:8px 12px;border-left:3px solid #b4432f;" +
      "background:#f3f2ee;color:#1d1d1f;font:14px/1.45 system-ui,sans-serif";
    el.attachShadow({ mode: "open" }).append(p);
  }
}
