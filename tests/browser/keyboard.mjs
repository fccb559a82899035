// keyboard.mjs - every widget by keyboard alone (issue 27, item 4). For each widget, Tab from a
// button before it to the one after: the number of stops inside it (pinned below: a group of
// handles is one stop, a new stop is a decision), the Link, SVG and PNG buttons (drawn bottom
// right) last. On each group of handles: ←/→ (↑/↓ for sx-span-mask's heads) move along the group
// without leaving its one stop, ↑/↓ change the value of the handle reached (Enter applies a head).
// And no attribute error is silent: <sx-explain head="3.1"> on a two-layer model says so. Zero
// console errors, no request outside the origin.
import { check, open, frames, runSuite, checkClean } from "./harness.mjs";

// tag, attributes, the tab stops inside it
const WIDGETS = [
  ["sx-simplex", 'scores="1.5 0 1"', 12],
  ["sx-entropy", 'scores="1.5 0 1"', 4],
  ["sx-trajectory", "", 4],
  ["sx-two-choice", "", 5],
  ["sx-fused", "", 8],
  ["sx-jacobian", 'mapping="sparsemax" compare="softmax"', 8],
  ["sx-threshold", 'mapping="entmax15" n="10"', 6],
  ["sx-regularized", "", 9],
  ["sx-span-mask", 'model="reverse"', 10],
  ["sx-pooling", "", 6],
  ["sx-scores", "", 7],
  ["sx-positions", "", 10],
  ["sx-patterns", "", 5],
  ["sx-attention", 'task="reverse" kind="entmax15" input="abcdef" no-train', 9],
  ["sx-explain", 'task="reverse" kind="entmax15" text="abcdefgh"', 12],
  ["sx-heatmap", "", 7],
  ["sx-loss", 'mappings="sparsemax entmax"', 6],
  ["sx-chain", "", 5],
  ["sx-decode", 'task="sort" output="sparsemax" source="hhdbgaj"', 8],
  ["sx-cues", "", 8],
  ["sx-costs", "", 7],
  ["sx-write", 'model="entmax15-out" steps="3"', 14], // + "Fine-tune on your text" (closed),
  ["sx-bottleneck", "", 7],
  ["sx-hard", "", 7],
  ["sx-rationale", "", 6], // Train (Restart disabled until a run), steps, seed
];
const HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Keys</title><link rel="icon" href="data:,">
<script type="module" src="/widgets.js"></script></head><body><main style="width: 760px">
${WIDGETS.map(([t, a], i) => `<button id="b${i}">before ${t}</button>\n<${t} id="w${i}" ${a}></${t}>`).join("\n")}
<button id="b${WIDGETS.length}">end</button>
<sx-explain id="badhead" task="reverse" kind="entmax15" head="3.1"></sx-explain>
</main></body></html>`;

// What has the focus: "<host id> <role or tag> <name>", or "page <id>".
const focused = (p) => p.evaluate(() => {
  const a = document.activeElement, f = a && a.shadowRoot && a.shadowRoot.activeElement;
  if (!f) return `page ${a ? a.id : ""}`;
  return `${a.id} ${f.getAttribute("role") || f.localName} ${f.getAttribute("aria-label") || (f.closest("label") && f.closest("label").textContent.trim().slice(0, 20)) || f.textContent.trim().slice(0, 20)}`;
});
const attr = (p, id, name) => p.$eval(`#${id}`, (e, n) => e.getAttribute(n), name);

await runSuite("keyboard", async (browser, server) => {
  const { page: p, log } = await open(browser, server.url + "__keys.html", server.url, {
    local: ["blob:", "data:"],
    before: (pg) => pg.route("**/__keys.html", (route) => route.fulfill({ contentType: "text/html", body: HTML })),
  });
  for (let i = 0; i < WIDGETS.length; i++) {
    await p.waitForFunction((k) => {
      const e = document.getElementById(`w${k}`);
      e.scrollIntoView();
      if (!e.shadowRoot || !(e.lastRenderMs > 0)) return false;
      if (e.localName === "sx-attention") return e.shadowRoot.querySelectorAll("svg.maps .panel").length > 0;
      if (e.localName === "sx-span-mask") return e.shadowRoot.querySelectorAll("[role=button]").length > 0;
      if (e.localName === "sx-explain") return e.shadowRoot.querySelectorAll("[role=radio]").length > 0;
      if (e.localName === "sx-decode") return Boolean(e.result);
      return true;
    }, i, { timeout: 30000 });
  }
  await frames(p, 3);

  // ---- the tab order of every widget
  for (const [i, [tag, , want]] of WIDGETS.entries()) {
    await p.focus(`#b${i}`);
    const stops = [];
    for (let k = 0; k < 40; k++) {
      await p.keyboard.press("Tab");
      const f = await focused(p);
      if (f.startsWith("page ")) { check(f === `page b${i + 1}`, `${tag}: Tab leaves it for the next button (got ${f})`); break; }
      stops.push(f.slice(f.indexOf(" ") + 1));
    }
    if (process.env.KEYS_VERBOSE) console.log(tag, stops.length, stops);
    check(stops.length === want, `${tag}: ${want} tab stops (got ${stops.length}: ${stops.join(" | ")})`);
    check(stops.at(-3) === "button Copy a link to this widget as set" && stops.at(-2) === "button Export this picture as SVG" && stops.at(-1) === "button Export this picture as PNG",
      `${tag}: the Link, SVG and PNG buttons are the last stops (got ${stops.slice(-3).join(" | ")})`);
    const sliders = stops.filter((s) => /^slider score/.test(s)).length;
    check(sliders <= 1, `${tag}: its score handles are one stop (${sliders})`);
  }

  // ---- arrow keys on each group of handles: along the group, then the value
  for (const [tag, sel] of [["sx-simplex", "[role=slider][aria-label^='score of']"], ["sx-fused", "[role=slider][aria-label^='score ']"],
    ["sx-jacobian", "[role=slider][aria-label^='score z']"], ["sx-threshold", "[role=slider][aria-label^='score ']"]]) {
    const id = `w${WIDGETS.findIndex((w) => w[0] === tag)}`;
    await p.evaluate((k) => document.getElementById(k).removeAttribute("scores"), id);
    await frames(p);
    await p.locator(`#${id} ${sel}[tabindex='0']`).focus();
    await p.evaluate((k) => { const e = document.getElementById(k); e.scores = Array.from(e.scores ?? { length: e.n }, () => 0); }, id);
    await frames(p);
    const first = await focused(p);
    await p.keyboard.press("ArrowRight");
    const second = await focused(p);
    await p.keyboard.press("ArrowUp");
    await p.keyboard.press("ArrowUp");
    await frames(p);
    const scores = (await attr(p, id, "scores")).split(" ").map(Number);
    const stops = await p.$$eval(`#${id} ${sel}`, (hs) => hs.filter((h) => h.getAttribute("tabindex") === "0").length);
    check(first !== second && second.startsWith(`${id} slider`), `${tag}: ArrowRight moves to the next handle (${first} -> ${second})`);
    check(Math.abs(scores[1] - 0.1) < 1e-9 && scores.every((v, k) => k === 1 || v === 0), `${tag}: ArrowUp x2 raises that handle's score by 0.1 (got ${scores})`);
    check(stops === 1, `${tag}: one handle of the group is in the tab order (got ${stops})`);
  }
  // sx-span-mask's heads: ↓ to the next head, Enter applies its span, the focus stays on the heads
  const span = `w${WIDGETS.findIndex((w) => w[0] === "sx-span-mask")}`;
  await p.locator(`#${span} [role=button][tabindex='0']`).focus();
  await p.keyboard.press("ArrowDown");
  await p.keyboard.press("ArrowDown");
  const head = await focused(p);
  await p.keyboard.press("Enter");
  await frames(p, 3);
  const z = Number(await attr(p, span, "z")), headSpan = Number(/span ([\d.]+) positions/.exec(head)?.[1]);
  const after = await focused(p);
  check(Math.abs(z - headSpan) <= 0.006, `sx-span-mask: ArrowDown x2 then Enter applies the third head's span (head ${head}, z ${z})`);
  check(after.startsWith(`${span} button`) && await p.$$eval(`#${span} [role=button]`, (hs) => hs.filter((h) => h.getAttribute("tabindex") === "0").length) === 1,
    `sx-span-mask: the focus stays on the heads, one of them in the tab order (got ${after})`);

  // ---- no silent fallback: a head the model does not have
  await p.waitForFunction(() => { const e = document.getElementById("badhead"); e.scrollIntoView(); return e.shadowRoot && e.shadowRoot.querySelectorAll("[role=radio]").length > 0; }, null, { timeout: 30000 });
  await frames(p, 3);
  const msg = await p.$eval("#badhead", (e) => { const m = e.shadowRoot.querySelector("[part=message]"); return m.hidden ? "" : m.textContent; });
  check(/head="3\.1" is not a cross-attention head of this model \(layers 1-2/.test(msg), `<sx-explain head="3.1"> on a two-layer model says so (got "${msg}")`);
  await checkClean(p, log);
  await p.close();
});
