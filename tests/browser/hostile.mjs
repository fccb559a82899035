// hostile.mjs - the widgets in a blog whose CSS would break them (issue 27, item 1): a root
// font-size of 62.5%, a serif body font, justified, letter- and word-spaced text with a tall
// line-height, `p { text-indent }`, every widget inside a <p> (as Markdown wraps a tag on its own
// line), and the page's own one-scheme theme, dark-only and light-only. Shadow DOM does not stop
// inheritance, so each widget resets it (:host { all: initial }) and sizes in px, not rem. Each
// widget must lay out as on a neutral page: its box, and the box of every part of its shadow tree
// (labels, controls, pictures, SVG text), within TOL px, relative to the widget; the same text
// properties on its host; its own colours legible. Both pages are served from dist/site (routed,
// nothing written), with zero console errors and no request outside the origin.
import { check, open, frames, runSuite, checkClean } from "./harness.mjs";

const TOL = 2;
export const WIDGETS = [
  '<sx-simplex scores="1.5 0 1" alpha="1.25" mappings="softmax sparsemax entmax15 entmax"></sx-simplex>',
  '<sx-entropy alpha="1.5" scores="1.5 0 1"></sx-entropy>',
  '<sx-trajectory scores="1.5 0 1" mappings="softmax entmax15 sparsemax" t="1"></sx-trajectory>',
  '<sx-two-choice alphas="1 1.25 1.5 2 3" alpha="1.5"></sx-two-choice>',
  '<sx-fused lambda="0.2" beta="0.03" groups="3 3 2 2" group-lambda="0.3"></sx-fused>',
  '<sx-jacobian mapping="sparsemax" compare="softmax"></sx-jacobian>',
  '<sx-threshold mapping="entmax15" n="10"></sx-threshold>',
  '<sx-regularized mapping="sparsemax" scores="1 1 0"></sx-regularized>',
  '<sx-span-mask mapping="entmax15" z="3" ramp="2" model="reverse"></sx-span-mask>',
  '<sx-pooling mappings="softmax sparsemax entmax15" w="1"></sx-pooling>',
  '<sx-scores scoring="scaled" mapping="sparsemax" d="64"></sx-scores>',
  '<sx-positions base="10000" dim="32" positions="48" offset="4"></sx-positions>',
  '<sx-patterns n="256" pattern="lsh" buckets="8"></sx-patterns>',
  '<sx-attention task="reverse" kind="entmax15" input="abcdef"></sx-attention>',
  '<sx-explain task="reverse" kind="entmax15" text="abcdefgh"></sx-explain>',
  '<sx-heatmap></sx-heatmap>',
  '<sx-loss mappings="softmax sparsemax entmax" alpha="1.3"></sx-loss>',
  '<sx-chain scores="1 0.2 0.8 -1 0.5" transition="0.8"></sx-chain>',
  '<sx-decode task="reverse" output="entmax15" source="ffffe"></sx-decode>',
  '<sx-cues cue="both" query="blue" mapping="sparsemax"></sx-cues>',
  '<sx-costs n="48" d="32" k="3"></sx-costs>',
  '<sx-write model="entmax15-out" prompt="LOVE, n. " steps="5"></sx-write>',
  '<sx-bottleneck mapping="entmax15" estimator="gumbel" steps="300"></sx-bottleneck>',
  '<sx-hard source="hgfedcba" figure="cosine"></sx-hard>',
  '<sx-rationale steps="300" seed="2"></sx-rationale>',
];

const page = (css, wrap) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post</title>
<link rel="icon" href="data:,"><style>${css}</style><script type="module" src="/widgets.js"></script></head>
<body><main><h1>A post</h1>
${WIDGETS.map((w) => (wrap ? `<p>${w}</p>\n<p>Some text after the widget, indented and justified the way this blog likes it.</p>` : w)).join("\n")}
</main></body></html>`;
const NEUTRAL = page("body { margin: 0 } main { width: 760px; margin: 0 auto }", false);
const HOSTILE = (dark) => page(`
html { font-size: 62.5%; color-scheme: ${dark ? "dark" : "light"}; }
body { margin: 0; font: 2rem/1.9 Georgia, "Times New Roman", serif; letter-spacing: 0.08em; word-spacing: 0.4em;
  text-align: justify; text-transform: none; color: ${dark ? "#ddd" : "#222"}; background: ${dark ? "#111" : "#fff"}; }
main { width: 760px; margin: 0 auto; }
p { text-indent: 2em; hyphens: auto; white-space: pre-line; font-style: italic; font-weight: 300; }`, true);

// Scrolls each widget into view and waits until it has rendered (and drawn its model, for those
// that fetch one on view), as a11y.mjs does.
async function showAll(p) {
  for (let i = 0; i < WIDGETS.length; i++) {
    await p.waitForFunction((k) => {
      const e = [...document.querySelectorAll("main *")].filter((x) => x.localName.startsWith("sx-"))[k];
      e.scrollIntoView();
      if (!e.shadowRoot || !(e.lastRenderMs > 0)) return false;
      if (e.localName === "sx-attention") return e.shadowRoot.querySelectorAll("svg.maps .panel").length > 0;
      if (e.localName === "sx-span-mask") return e.shadowRoot.querySelectorAll("[role=button]").length > 0;
      if (e.localName === "sx-explain") return e.shadowRoot.querySelectorAll("[role=radio]").length > 0;
      if (e.localName === "sx-decode") return Boolean(e.result);
      if (e.localName === "sx-write") return Boolean(e.result);
      if (e.localName === "sx-hard") return Boolean(e.result);
      return true;
    }, i, { timeout: 30000 });
  }
  await frames(p, 4);
}

// Per widget: its size, the text properties of its host, its colours, and every rendered element
// of its shadow tree: a path, its box relative to the widget's, its text (short), and whether it
// overflows its box (a clipped label).
const measure = (p) => p.evaluate(() => [...document.querySelectorAll("main *")].filter((x) => x.localName.startsWith("sx-")).map((host) => {
  const h = host.getBoundingClientRect(), cs = getComputedStyle(host);
  const parts = [];
  for (const el of host.shadowRoot.querySelectorAll("*")) {
    if (!el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const path = `${el.localName}${el.getAttribute("class") ? "." + el.getAttribute("class").split(" ")[0] : ""}`;
    const text = el.children.length ? "" : (el.textContent || "").trim().slice(0, 30);
    parts.push({ path, text, x: r.left - h.left, y: r.top - h.top, w: r.width, h: r.height,
      clipped: el instanceof HTMLElement && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible" });
  }
  return { tag: host.localName, w: h.width, h: h.height, parts,
    text: ["fontFamily", "fontSize", "lineHeight", "letterSpacing", "wordSpacing", "textIndent", "textAlign", "fontStyle", "fontWeight", "whiteSpace"].map((k) => `${k}: ${cs[k]}`).join("; "),
    fg: cs.getPropertyValue("--_fg").trim(), bg: cs.getPropertyValue("--_bg").trim(), bgDrawn: cs.backgroundColor };
}));

// WCAG contrast of two #rrggbb colours.
function contrast(a, b) {
  const lum = (hex) => {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

async function load(browser, server, html, name, opts = {}) {
  const { page: p, log } = await open(browser, server.url + name, server.url, {
    local: ["blob:", "data:"], viewport: { width: 1100, height: 1000 }, ...opts,
    before: (pg) => pg.route(`**/${name}`, (route) => route.fulfill({ contentType: "text/html", body: html })),
  });
  await showAll(p);
  return { p, log, widgets: await measure(p) };
}

function compare(base, other, label) {
  check(other.length === base.length, `${label}: ${base.length} widgets (got ${other.length})`);
  for (let i = 0; i < base.length; i++) {
    const a = base[i], b = other[i];
    check(a.text === b.text, `${label}: <${a.tag}> inherits nothing from the page (neutral ${a.text} | got ${b.text})`);
    check(Math.abs(a.w - b.w) <= TOL && Math.abs(a.h - b.h) <= TOL,
      `${label}: <${a.tag}> is ${a.w.toFixed(1)} x ${a.h.toFixed(1)} px as on the neutral page (got ${b.w.toFixed(1)} x ${b.h.toFixed(1)})`);
    check(a.parts.length === b.parts.length, `${label}: <${a.tag}> renders the same ${a.parts.length} parts (got ${b.parts.length})`);
    const moved = [];
    for (let k = 0; k < Math.min(a.parts.length, b.parts.length); k++) {
      const pa = a.parts[k], pb = b.parts[k];
      if (pa.path !== pb.path || pa.text !== pb.text) { moved.push(`#${k} ${pa.path} "${pa.text}" vs ${pb.path} "${pb.text}"`); continue; }
      const d = Math.max(Math.abs(pa.x - pb.x), Math.abs(pa.y - pb.y), Math.abs(pa.w - pb.w), Math.abs(pa.h - pb.h));
      if (d > TOL) moved.push(`${pa.path} "${pa.text}" ${[pa.x, pa.y, pa.w, pa.h].map((v) => v.toFixed(0))} -> ${[pb.x, pb.y, pb.w, pb.h].map((v) => v.toFixed(0))}`);
      if (pa.clipped !== pb.clipped) moved.push(`${pa.path} "${pa.text}" clipped ${pa.clipped} -> ${pb.clipped}`);
    }
    check(moved.length === 0, `${label}: <${a.tag}>: every part where it is on the neutral page, within ${TOL} px, none wrapped or clipped (${moved.length} differ: ${moved.slice(0, 6).join("; ")})`);
    check(contrast(b.fg, b.bg) >= 7 && b.bgDrawn !== "rgba(0, 0, 0, 0)", `${label}: <${a.tag}> draws its own background, its text legible on it (${b.fg} on ${b.bg}, ${contrast(b.fg, b.bg).toFixed(1)}:1)`);
  }
}

await runSuite("hostile", async (browser, server) => {
  for (const scheme of ["light", "dark"]) {
    const neutral = await load(browser, server, NEUTRAL, "__neutral.html", { colorScheme: scheme });
    check(neutral.widgets.every((w) => w.h > 100), `neutral page, ${scheme} reader: every widget rendered (${neutral.widgets.map((w) => `${w.tag} ${w.h.toFixed(0)}`).join(", ")})`);
    await checkClean(neutral.p, neutral.log, `neutral page, ${scheme} reader: `);
    await neutral.p.close();
    for (const dark of [true, false]) {
      const label = `${dark ? "dark-only" : "light-only"} blog, ${scheme} reader`;
      const hostile = await load(browser, server, HOSTILE(dark), "__hostile.html", { colorScheme: scheme });
      compare(neutral.widgets, hostile.widgets, label);
      await checkClean(hostile.p, hostile.log, `${label}: `);
      await hostile.p.close();
    }
  }
});
