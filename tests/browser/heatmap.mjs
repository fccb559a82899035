// <sx-heatmap> and the viewer page (web/site/viewer.html) in real Chromium, on the files
// tests/fixtures/attention-files.mjs makes (served on the page's origin from memory). Each good
// file, loaded by `src` and by the widget's file input: the shape and dtype shown, and the drawn
// cells read back from the SVG paths through each panel's geometry (data-x0, data-y0, data-cell):
// every weight's tint level is the one its value gives, every exact zero is a dot and only they
// are, masked scores (-Infinity) are grey cells. Re-mapped with sparsemax (the select): the weights
// drawn are the library's sparsemax of the log weights over the visible keys, computed in the page,
// bit for bit, and its zeros are dotted. Sorted by entropy and by sparsity: the panels' order
// follows each head's entropy / zero fraction computed here from the data. Labels from a text
// file are drawn; a wrong count says so. SVG and PNG export. Each bad file: a message naming it and
// what is wrong, with the drop zone still drawn (never a blank widget). The viewer page: its
// example, ?src= on its own origin, a foreign ?src= refused without a request, an axe-core audit.
// Everywhere: zero console errors, CSP violations and requests outside the origin.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { check, echoPasses, open, frames, runSuite, checkClean } from "./harness.mjs";
import { fixtures } from "../fixtures/attention-files.mjs";

echoPasses();
const FX = fixtures();
const ALL = [...FX.good, ...FX.bad, ...FX.labels];

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:">
<title>sx-heatmap</title><link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="widgets.js"></script></head>
<body><main><h1>sx-heatmap</h1><div id="host"></div></main></body></html>`;

async function openTestPage(browser, server) {
  return open(browser, server.url + "heatmap-test.html", server.url, {
    local: ["blob:", "data:"],
    before: async (p) => {
      await p.route("**/heatmap-test.html", (r) => r.fulfill({ body: PAGE, contentType: "text/html; charset=utf-8" }));
      await p.route("**/fx/*", (r) => {
        const f = ALL.find((x) => r.request().url().endsWith(`/fx/${x.file}`));
        return f ? r.fulfill({ body: Buffer.from(f.bytes), contentType: "application/octet-stream" }) : r.fulfill({ status: 404, body: "no such fixture" });
      });
    },
  });
}

// A fresh element with these attributes; resolves once it drew a file or shows a message.
function mount(page, attrs) {
  return page.evaluate(async (a) => {
    const host = document.getElementById("host");
    host.replaceChildren();
    const el = document.createElement("sx-heatmap");
    el.id = "w";
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    host.append(el);
    await customElements.whenDefined("sx-heatmap");
    for (let i = 0; i < 300; i++) {
      const msg = el.shadowRoot.querySelector("[part=message]");
      if (el.result || (msg && !msg.hidden)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, attrs);
}

// What the widget drew: per panel (in DOM order) its layer, head and cells read off the paths.
function drawn(page) {
  return page.evaluate(() => {
    const el = document.getElementById("w"), root = el.shadowRoot, res = el.result;
    const msg = root.querySelector("[part=message]");
    const out = { message: msg.hidden ? "" : msg.textContent, svg: !!root.querySelector("svg.picture"), panels: [] };
    if (!res) return out;
    Object.assign(out, { shape: res.shape, dtype: res.dtype, name: res.name, weights: Array.from(res.weights), order: res.order });
    for (const g of root.querySelectorAll("g.panel")) {
      const x0 = Number(g.dataset.x0), y0 = Number(g.dataset.y0), cell = Number(g.dataset.cell);
      const p = { layer: Number(g.dataset.layer), head: Number(g.dataset.head), levels: {}, zeros: [], masked: [], labels: g.querySelectorAll("text").length - 2 };
      const rects = (d) => [...d.matchAll(/M([-\d.]+) ([-\d.]+)h([-\d.]+)v([-\d.]+)h([-\d.]+)z/g)].map((m) => m.slice(1).map(Number));
      for (const path of g.querySelectorAll("path")) {
        for (const [x, y, w] of rects(path.getAttribute("d"))) {
          const i = Math.floor((y - y0) / cell + 1e-6), j = Math.floor((x - x0) / cell + 1e-6);
          if (path.classList.contains("cell")) for (let k = 0; k < Math.round(w / cell); k++) p.levels[`${i},${j + k}`] = Number(path.dataset.level);
          else if (path.classList.contains("zero")) p.zeros.push(`${i},${j}`);
          else if (path.classList.contains("masked")) p.masked.push(`${i},${j}`);
        }
      }
      out.panels.push(p);
    }
    return out;
  });
}

const level = (v) => (v > 0 ? Math.max(1, Math.min(8, Math.ceil(8 * Math.min(1, v) ** 0.5))) : 0);
const shape4 = (s) => [...new Array(4 - s.length).fill(1), ...s];

/** The drawn cells of every head against the weights w (and the file's -Infinity scores). */
function checkCells(d, w, shape, what, scores = null) {
  const [L, H, Q, K] = shape;
  check(d.panels.length === L * H, `${what}: ${L * H} panels (got ${d.panels.length})`);
  let bad = [];
  for (const p of d.panels) {
    for (let i = 0; i < Q; i++) for (let j = 0; j < K; j++) {
      const idx = ((p.layer * H + p.head) * Q + i) * K + j, at = `${i},${j}`, v = Math.fround(w[idx]);
      const masked = scores && scores[idx] === -Infinity;
      const want = masked ? "masked" : v === 0 ? "zero" : `level ${level(v)}`;
      const got = [p.masked.includes(at) && "masked", p.zeros.includes(at) && "zero", p.levels[at] && `level ${p.levels[at]}`].filter(Boolean).join("+") || "nothing";
      if (got !== want) bad.push(`L${p.layer} H${p.head} (${at}) ${v}: ${got}, not ${want}`);
    }
  }
  check(bad.length === 0, `${what}: every cell drawn as its value says (exact zeros dotted, masked grey) (${bad.slice(0, 4).join("; ")})`);
  return bad.length === 0;
}

async function checkGood(page) {
  for (const f of FX.good) {
    const attrs = { src: `fx/${f.file}`, ...(f.key ? { key: f.key } : {}), ...(f.values ? { values: f.values } : {}) };
    await mount(page, attrs);
    const d = await drawn(page);
    const shape = shape4(f.expect.shape);
    check(d.message === "" && d.name === f.file && JSON.stringify(d.shape) === JSON.stringify(shape) && d.dtype === f.expect.dtype,
      `${f.file} by src: drawn as ${shape.join("x")} ${f.expect.dtype}, no message (got ${d.name} ${d.shape} ${d.dtype} "${d.message}")`);
    if (!d.shape) continue;
    if (f.values === "scores") {
      const sameAsShown = d.weights; // softmax of the scores: check the masks and zeros against the drawn weights
      checkCells(d, sameAsShown, shape, `${f.file} (scores, softmax)`, f.expect.data);
    } else checkCells(d, f.expect.data, shape, `${f.file} by src`);
  }
}

async function checkFileInput(page) {
  for (const name of ["layers.npy", "compressed.npz", "bf16.safetensors", "shaped.json"]) {
    const f = FX.good.find((x) => x.file === name);
    await mount(page, {});
    await page.locator("#w input[type=file]").setInputFiles({ name, mimeType: "application/octet-stream", buffer: Buffer.from(f.bytes) });
    await page.waitForFunction((n) => document.getElementById("w").result?.name === n, name, { timeout: 10000 }).catch(() => {});
    const d = await drawn(page);
    check(d.name === name && d.message === "", `${name} by the file input: drawn, no message (got ${d.name}, "${d.message}")`);
    if (d.shape) checkCells(d, f.expect.data, shape4(f.expect.shape), `${name} by the file input`);
  }
  // a labels file chosen with the attention file
  const f = FX.good.find((x) => x.file === "layers.npy"), lab = FX.labels[0];
  await mount(page, {});
  await page.locator("#w input[type=file]").setInputFiles([{ name: f.file, mimeType: "application/octet-stream", buffer: Buffer.from(f.bytes) },
    { name: lab.file, mimeType: "text/plain", buffer: Buffer.from(lab.bytes) }]);
  await page.waitForFunction(() => document.getElementById("w").result, null, { timeout: 10000 }).catch(() => {});
  await frames(page);
  const d = await drawn(page);
  check(d.panels.length > 0 && d.panels.every((p) => p.labels === 10), `layers.npy with labels.txt: 5 key and 5 query labels per panel (got ${d.panels.map((p) => p.labels)})`);
}

// A drop on the widget: a DragEvent carrying the file, as a reader's drop does.
async function checkDrop(page) {
  const f = FX.good.find((x) => x.file === "half.npy");
  await mount(page, {});
  await page.evaluate(({ name, bytes }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name));
    document.getElementById("w").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name: f.file, bytes: Array.from(f.bytes) });
  await page.waitForFunction((n) => document.getElementById("w").result?.name === n, f.file, { timeout: 10000 }).catch(() => {});
  const d = await drawn(page);
  check(d.name === f.file && d.message === "", `${f.file} dropped on the widget: drawn (got ${d.name}, "${d.message}")`);
  if (d.shape) checkCells(d, f.expect.data, shape4(f.expect.shape), `${f.file} dropped`);
}

async function checkRemap(page) {
  const f = FX.good.find((x) => x.file === "layers.npy");
  await mount(page, { src: "fx/layers.npy" });
  const changes = page.evaluate(() => new Promise((r) => document.getElementById("w").addEventListener("sx-heatmap-change", (e) => r(e.detail), { once: true })));
  await page.locator("#w select").first().selectOption("sparsemax");
  const detail = await changes;
  check(detail.mapping === "sparsemax", `the mapping select: sx-heatmap-change { mapping: "sparsemax" } (got ${JSON.stringify(detail)})`);
  await page.waitForFunction(() => document.getElementById("w").result?.mapping === "sparsemax");
  await frames(page);
  const lib = await page.evaluate(async () => { // the library's sparsemax of log p over each row's visible keys
    const sx = await import("/simplexity.js");
    const el = document.getElementById("w"), [L, H, Q, K] = el.result.shape;
    const file = await (await fetch("fx/layers.npy")).arrayBuffer();
    const { readArrays, toAttention } = await import("/arrays.js");
    const att = toAttention(await readArrays(new Uint8Array(file), { name: "layers.npy" }));
    const out = new Float32Array(L * H * Q * K);
    for (let r = 0; r < L * H * Q; r++) {
      const idx = [], z = [];
      for (let j = 0; j < K; j++) if (att.data[r * K + j] > 0) { idx.push(j); z.push(Math.log(att.data[r * K + j])); }
      const p = sx.sparsemax(Float32Array.from(z), { n: z.length });
      idx.forEach((j, k) => { out[r * K + j] = p[k]; });
    }
    return Array.from(out);
  });
  const d = await drawn(page);
  const same = lib.length === d.weights.length && lib.every((v, i) => Object.is(v, d.weights[i]));
  check(same, "sparsemax: the weights drawn are the library's sparsemax of log p over the visible keys, bit for bit");
  const zerosFile = f.expect.data.filter((v) => v === 0).length, zerosNow = d.weights.filter((v) => v === 0).length;
  check(zerosNow > zerosFile, `sparsemax zeroes more weights than the file's softmax-like rows (${zerosNow} > ${zerosFile})`);
  checkCells(d, d.weights, d.shape, "layers.npy re-mapped by sparsemax");
  const note = await page.evaluate(() => document.getElementById("w").shadowRoot.querySelector("[part=note]").textContent);
  check(/Post hoc: sparsemax/.test(note) && /not trained with it/.test(note), `the post hoc note (got "${note}")`);
  // entmax with alpha: the slider is shown, the attribute drives the weights
  await page.evaluate(() => { const el = document.getElementById("w"); el.mapping = "entmax"; el.alpha = 2; });
  await page.waitForFunction(() => document.getElementById("w").result?.mapping === "entmax");
  const d2 = await drawn(page);
  check(d2.weights.every((v, i) => Math.abs(v - d.weights[i]) < 1e-5), "entmax at alpha = 2 draws sparsemax's weights (to 1e-5)");
}

function headStats(w, [L, H, Q, K]) {
  const out = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) {
    let e = 0, z = 0;
    for (let i = 0; i < Q; i++) for (let j = 0; j < K; j++) { const p = w[((l * H + h) * Q + i) * K + j]; if (p > 0) e -= p * Math.log(p); else z++; }
    out.push({ layer: l, head: h, entropy: e / Q, zeros: z / (Q * K) });
  }
  return out;
}

async function checkSort(page) {
  const f = FX.good.find((x) => x.file === "layers.npy"), shape = shape4(f.expect.shape);
  const stats = headStats(f.expect.data.map(Math.fround), shape);
  for (const [sort, key, dir] of [["entropy", "entropy", 1], ["sparsity", "zeros", -1]]) {
    await mount(page, { src: "fx/layers.npy", sort });
    const d = await drawn(page);
    const want = stats.slice().sort((a, b) => dir * (a[key] - b[key])).map((s) => `${s.layer}/${s.head}`);
    const got = d.panels.map((p) => `${p.layer}/${p.head}`);
    const vals = d.panels.map((p) => stats.find((s) => s.layer === p.layer && s.head === p.head)[key]);
    check(vals.every((v, i) => i === 0 || dir * (v - vals[i - 1]) >= -1e-6), `sort="${sort}": the panels in order of ${key} (got ${got}, want ${want})`);
    check(new Set(got).size === 6, `sort="${sort}": every head drawn once`);
    checkCells(d, f.expect.data, shape, `sorted by ${sort}`);
  }
}

async function checkExport(page) {
  await mount(page, { src: "fx/layers.npy" });
  const r = await page.evaluate(async () => {
    const el = document.getElementById("w"), events = [];
    el.addEventListener("sx-heatmap-export", (e) => events.push(e.detail));
    const svg = el.toSVG();
    const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
    const drawnPaths = el.shadowRoot.querySelectorAll("svg.picture path").length;
    await el.exportAs("svg");
    await el.exportAs("png");
    return { parsed: !doc.querySelector("parsererror"), paths: doc.querySelectorAll("path").length, drawnPaths, events };
  });
  check(r.parsed && r.paths === r.drawnPaths && r.paths > 6, `toSVG(): a well-formed SVG with every drawn path (${r.paths} of ${r.drawnPaths})`);
  check(r.events.length === 2 && r.events[0].format === "svg" && r.events[1].format === "png" && r.events.every((e) => e.size > 500),
    `exportAs svg and png: sx-heatmap-export with the sizes (got ${JSON.stringify(r.events)})`);
}

async function checkBad(page) {
  for (const f of FX.bad) {
    await mount(page, { src: `fx/${f.file}`, ...(f.key ? { key: f.key } : {}), ...(f.values ? { values: f.values } : {}) });
    const d = await drawn(page);
    check(d.message.includes(f.file) && f.error.test(d.message) && d.svg && !d.shape,
      `${f.file}: the message names the file and says ${f.error} (got "${d.message}"), the drop zone stays`);
  }
  await mount(page, { src: "fx/missing.npy" });
  let d = await drawn(page);
  check(/missing\.npy: could not be fetched from .*fx\/missing\.npy \(HTTP 404\)/.test(d.message), `a 404: named with its URL (got "${d.message}")`);
  await mount(page, { src: "fx/layers.npy", labels: "fx/labels.json", layer: "7" });
  await frames(page);
  d = await drawn(page);
  check(/layer="7": layers\.npy has 2 layers; showing all/.test(d.message) && d.panels.length === 6, `layer="7" on two layers: said, all drawn (got "${d.message}")`);
  await mount(page, { src: "fx/heads-f64.npy", labels: "fx/labels.txt" });
  await page.waitForFunction(() => /labels/.test(document.getElementById("w").shadowRoot.querySelector("[part=message]").textContent), null, { timeout: 5000 }).catch(() => {});
  d = await drawn(page);
  check(/labels\.txt: 5 labels, but the keys are 7: labels not shown/.test(d.message), `labels of the wrong count: said (got "${d.message}")`);
}

async function checkWidget(browser, server) {
  const { page, log } = await openTestPage(browser, server);
  await checkGood(page);
  await checkFileInput(page);
  await checkDrop(page);
  await checkRemap(page);
  await checkSort(page);
  await checkExport(page);
  await checkBad(page);
  // the one failed request the 404 check made on purpose
  const i404 = log.errors.findIndex((e) => /status of 404/.test(e));
  check(i404 >= 0, "the 404 was a failed request");
  if (i404 >= 0) log.errors.splice(i404, 1);
  check(log.requests.filter((u) => !u.startsWith(server.url) && !u.startsWith("blob:") && !u.startsWith("data:")).length === 0, "no request but the page's own");
  await checkClean(page, log, "test page: ");
  await page.close();
}

async function checkViewer(browser, server) {
  const fxRoute = (p) => p.route("**/fx/*", (r) => {
    const f = ALL.find((x) => r.request().url().endsWith(`/fx/${x.file}`));
    return f ? r.fulfill({ body: Buffer.from(f.bytes) }) : r.fulfill({ status: 404, body: "" });
  });
  let { page, log } = await open(browser, server.url + "viewer.html", server.url, { before: fxRoute });
  await page.waitForFunction(() => customElements.get("sx-heatmap") && document.getElementById("heatmap").lastRenderMs > 0);
  await page.click("#example");
  await page.waitForFunction(() => document.getElementById("heatmap").result?.name === "example.json");
  await frames(page);
  const ex = await page.evaluate(() => ({ panels: document.getElementById("heatmap").shadowRoot.querySelectorAll("g.panel").length, status: document.getElementById("status").textContent }));
  check(ex.panels === 8 && /example\.json: 2 × 4 × 10 × 10 float64 weights/.test(ex.status), `viewer: the example draws 8 heads (got ${JSON.stringify(ex)})`);
  // a file dropped anywhere on the page goes to the widget
  const f = FX.good.find((x) => x.file === "bf16.safetensors");
  await page.evaluate(({ name, bytes }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name));
    document.querySelector("footer").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name: f.file, bytes: Array.from(f.bytes) });
  const dropped = await page.waitForFunction((n) => document.getElementById("heatmap").result?.name === n, f.file, { timeout: 10000 }).then(() => true, () => false);
  check(dropped, "viewer: a file dropped on the page (outside the widget) is drawn");
  await page.evaluate(await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
  const violations = await page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"],
  })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" > ")).join("; ")}`));
  check(violations.length === 0, `viewer: axe, no violations (got ${JSON.stringify(violations)})`);
  await checkClean(page, log, "viewer: ");
  await page.close();

  ({ page, log } = await open(browser, server.url + "viewer.html?src=fx/layers.npy&mapping=sparsemax", server.url, { before: fxRoute }));
  await page.waitForFunction(() => document.getElementById("heatmap").result?.name === "layers.npy", null, { timeout: 15000 }).catch(() => {});
  const r = await page.evaluate(() => document.getElementById("heatmap").result?.mapping);
  check(r === "sparsemax", `viewer.html?src=...&mapping=sparsemax: the file drawn with sparsemax (got ${r})`);
  await checkClean(page, log, "viewer ?src: ");
  await page.close();

  // phone width: the example drawn, no horizontal scroll
  ({ page, log } = await open(browser, server.url + "viewer.html", server.url, { before: fxRoute, viewport: { width: 400, height: 900 } }));
  await page.waitForFunction(() => customElements.get("sx-heatmap") && document.getElementById("heatmap").lastRenderMs > 0);
  await page.click("#example");
  await page.waitForFunction(() => document.getElementById("heatmap").result?.name === "example.json");
  await frames(page);
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  check(sw <= 400, `viewer at 400 px: no horizontal scroll (scrollWidth ${sw})`);
  await checkClean(page, log, "viewer at 400 px: ");
  await page.close();

  ({ page, log } = await open(browser, server.url + "viewer.html?src=https://example.com/a.npy", server.url, { before: fxRoute }));
  await page.waitForFunction(() => document.getElementById("status").textContent.length > 0);
  const status = await page.evaluate(() => document.getElementById("status").textContent);
  check(/is not a file of this site/.test(status) && !log.requests.some((u) => u.startsWith("https://example.com")), `viewer: a foreign ?src is refused, not fetched (got "${status}")`);
  await checkClean(page, log, "viewer foreign ?src: ");
  await page.close();
}

await runSuite("heatmap", async (browser, server) => {
  await checkWidget(browser, server);
  await checkViewer(browser, server);
});
