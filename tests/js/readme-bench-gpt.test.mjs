// readme-bench-gpt.test.mjs - the README's bench-gpt block is what `make bench-gpt` writes: the
// Makefile's target runs bench/gpt.mjs and puts its table into the block; the block names the
// command, has bench/gpt-table.mjs's header and one row per (model, build) for the seq2seq
// baseline and every shipped character model (web/models/text/summary.json: a model added or
// renamed makes the block stale), each figure a number; and tableRows() computes medians over
// rounds and medians of per-round ratios (golden values on made-up rounds). Speed figures are
// never checked here: they are the bench's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { COMMAND, HEADER, BUILDS, S2S_MODEL, tableRows } from "../../bench/gpt-table.mjs";

const read = (f) => readFileSync(new URL(`../../${f}`, import.meta.url), "utf8");
const readme = read("README.md");
const models = JSON.parse(read("web/models/text/summary.json")).map((e) => e.name);
const cells = (line) => line.split("|").slice(1, -1).map((c) => c.trim());

test("make bench-gpt runs bench/gpt.mjs and writes the README's bench-gpt block", () => {
  const recipe = read("Makefile").match(/^bench-gpt:.*\n((?:\t.*\n)+)/m);
  assert.ok(recipe, "the Makefile has a bench-gpt target");
  assert.match(recipe[1], /bench\/gpt\.mjs --out \$\(B\)\/bench\n/);
  assert.match(recipe[1], /readme-table\.mjs --table \$\(B\)\/bench\/gpt\.md --readme README\.md --block bench-gpt\n/);
  assert.equal(COMMAND, "make bench-gpt");
});

test("README's bench-gpt block: the command, the header, a row per model and build", () => {
  const a = readme.indexOf("<!-- bench-gpt:start -->\n"), b = readme.indexOf("<!-- bench-gpt:end -->");
  assert.ok(a >= 0 && b > a, "README.md lacks the <!-- bench-gpt:start --> ... <!-- bench-gpt:end --> block: run make bench-gpt");
  const block = readme.slice(a, b).split("\n").slice(1);
  assert.ok(block[0].startsWith(`\`${COMMAND}\`, one run: `), `the block starts by naming the command (got ${JSON.stringify(block[0].slice(0, 60))})`);
  const lines = block.filter((l) => l.startsWith("|"));
  assert.deepEqual(cells(lines[0]), HEADER, "the header: run make bench-gpt");
  const rows = lines.slice(2).map(cells);
  const want = [S2S_MODEL, ...models].flatMap((m) => BUILDS.map((bd) => [m, bd]));
  assert.deepEqual(rows.map((r) => [r[0].replace(/ \(seq2seq, tokens\/s\)$/, ""), r[1]]), want, "one row per (model, build): run make bench-gpt");
  const num = /^[0-9]+(\.[0-9]+)?$/, ratio = /^[0-9]+(\.[0-9]+)?x$/;
  for (const r of rows) {
    const base = r[0].startsWith(S2S_MODEL);
    for (const j of [2, 4, 7]) assert.match(r[j], num, `${r[0]} ${r[1]}: ${HEADER[j]}`);
    for (const j of [3, 5, 8]) assert.match(r[j], base ? /^1$/ : ratio, `${r[0]} ${r[1]}: ${HEADER[j]}`);
    assert.match(r[6], ratio, `${r[0]} ${r[1]}: ${HEADER[6]}`);
    if (r[1] === "native") assert.equal(r[9], "");
    else assert.match(r[9], /^[0-9.]+x, [0-9.]+x, [0-9.]+x$/, `${r[0]} ${r[1]}: ${HEADER[9]}`);
  }
});

test("tableRows: medians over rounds, ratios the median of per-round ratios", () => {
  const round = (k) => ({
    native: { [S2S_MODEL]: { cache: 1000 * k, full: 500, train: 10 }, m: { cache: 400, full: 100 * k, train: 2 * k } },
    "SIMD wasm": { [S2S_MODEL]: { cache: 800, full: 400, train: 8 }, m: { cache: 200 * k, full: 50, train: 4 } },
  });
  const rows = tableRows([round(1), round(2), round(4)], ["m"]);
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [[`${S2S_MODEL} (seq2seq, tokens/s)`, "native"], [`${S2S_MODEL} (seq2seq, tokens/s)`, "SIMD wasm"], ["m", "native"], ["m", "SIMD wasm"]]);
  // native s2s: cache median 2000, full 500, cache/full median of 2, 4, 8 = 4
  assert.deepEqual(rows[0].slice(2), ["2000", "1", "500", "1", "4.00x", "10.00", "1", ""]);
  // native m: cache 400 vs s2s 1000k -> ratios 0.4, 0.2, 0.1 -> 0.2; full 100k -> 200, vs 500: 0.4;
  // cache / full: 4, 2, 1 -> 2; train 2k -> 4 (median of 2, 4, 8), vs 10: 0.4
  assert.deepEqual(rows[2].slice(2), ["400", "0.20x", "200", "0.40x", "2.00x", "4.00", "0.40x", ""]);
  // SIMD m: cache 200k -> 400 (vs 800: 0.5); full 50 (vs 400: 0.125); cache / full 4k -> 8;
  // train 4 (vs 8: 0.5); SIMD / native: cache 200k / 400 -> 1, full 50 / 100k -> 0.25, train 4 / 2k -> 1
  assert.deepEqual(rows[3].slice(2), ["400", "0.50x", "50.0", "0.13x", "8.00x", "4.00", "0.50x", "1.00x, 0.25x, 1.00x"]);
});
