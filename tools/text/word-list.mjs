// word-list.mjs - how useful <sx-write>'s "every word it could write next" is for a shipped
// sparse-output character model: at held-out positions of the validation split (seeded), the
// word list's best-first search (web/widgets/runtime/words.js, as the widget runs it) after the
// 48 characters before each position; prints, for positions inside a word and at a word's start,
// how often the list is complete within the cap, and the median probability mass the words
// found hold, the median count of words surely the most probable, and of words found.
//
//   node tools/text/word-list.mjs [--model entmax15-out] [--cap 1000] [--positions 80]
//                                 [--seed 7] [--dir build/text] [--json]
//
// Needs dist/ (make dist) and the corpus (make text). Each list takes tens of milliseconds.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { wordContinuations, textModelDist } from "../../web/widgets/runtime/words.js";

const { values: o } = parseArgs({
  options: {
    model: { type: "string", default: "entmax15-out" }, cap: { type: "string", default: "1000" },
    positions: { type: "string", default: "80" }, seed: { type: "string", default: "7" },
    dir: { type: "string", default: "build/text" }, json: { type: "boolean", default: false },
  },
});
const cap = Number(o.cap), positions = Number(o.positions), root = new URL("../../", import.meta.url);
if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`word-list: --cap must be a whole number >= 1 (got ${o.cap})`);
if (!Number.isInteger(positions) || positions < 1) throw new RangeError(`word-list: --positions must be a whole number >= 1 (got ${o.positions})`);

const { init, TextModel } = await import(new URL("dist/simplexity.js", root).href);
await init();
const summary = JSON.parse(readFileSync(new URL("web/models/text/summary.json", root), "utf8"));
const entry = summary.find((e) => e.name === `devil-${o.model}`);
if (!entry) throw new RangeError(`word-list: no model devil-${o.model} in web/models/text/summary.json`);
if (entry.output === "softmax") throw new RangeError(`word-list: devil-${o.model} has softmax outputs: every word has p > 0`);
const tm = TextModel.load(readFileSync(new URL(`web/models/text/devil-${o.model}.sxm`, root)), entry);
const text = readFileSync(`${o.dir}/devil-valid.txt`, "utf8");
const maxLen = tm.model.config.maxLen, dist = textModelDist(tm);

let state = Number(o.seed) >>> 0; // an LCG: the positions are the same for the same seed
const rnd = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
const rows = { inside: [], start: [] };
const t0 = performance.now();
for (let k = 0; k < positions; k++) {
  const at = 48 + Math.floor(rnd() * (text.length - 48));
  const ctx = text.slice(at - 48, at);
  const r = wordContinuations(ctx, { dist, chars: tm.chars, offset: tm.tokenOffset, maxLen, cap });
  rows[/[A-Za-z0-9']$/.test(ctx) ? "inside" : "start"].push({
    complete: r.complete, mass: r.words.reduce((a, w) => a + w.p, 0), sure: r.sure, words: r.words.length,
  });
}
const ms = (performance.now() - t0) / positions;
const median = (a, f) => { const v = a.map(f).sort((x, y) => x - y); return v.length ? v[v.length >> 1] : null; };
const out = Object.fromEntries(Object.entries(rows).map(([k, a]) => [k, {
  positions: a.length, complete: a.filter((x) => x.complete).length, medianMass: median(a, (x) => x.mass),
  medianSure: median(a, (x) => x.sure), medianWords: median(a, (x) => x.words),
}]));
tm.free();
if (o.json) console.log(JSON.stringify({ model: `devil-${o.model}`, cap, positions, msPerList: ms, ...out }));
else {
  console.log(`devil-${o.model}, cap ${cap}, ${positions} held-out positions (seed ${o.seed}), ${ms.toFixed(1)} ms a list:`);
  for (const [k, r] of Object.entries(out)) {
    console.log(`  ${k === "inside" ? "inside a word" : "a word's start"}: ${r.positions} positions, complete ${r.complete}; ` +
      `median mass found ${r.medianMass === null ? "-" : r.medianMass.toFixed(3)}, surely-most-probable words ${r.medianSure ?? "-"}, words found ${r.medianWords ?? "-"}`);
  }
}
