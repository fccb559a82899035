// readme-findings.test.mjs - the README's "is attention explanation?" table is what
// `make explain-findings` (tools/explain-findings.mjs) computes: two of its rows (one softmax, one
// sparse model, each 200 held-out examples) are recomputed here and must match to the character.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { HEADER, rows } from "../../tools/explain-findings.mjs";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const a = readme.indexOf("<!-- findings:start -->"), b = readme.indexOf("<!-- findings:end -->");

test("README's findings table: the header and two recomputed rows", async () => {
  assert.ok(a >= 0 && b > a, "README.md lacks the <!-- findings:start --> ... <!-- findings:end --> block");
  const lines = readme.slice(a, b).split("\n").slice(1).filter((l) => l.startsWith("|"));
  assert.deepEqual(lines.slice(0, 2), HEADER, "the header: run make explain-findings");
  assert.equal(lines.length, 2 + 16, "one row per shipped model");
  for (const row of await rows(["after_marker-softmax", "date-entmax15"], 200)) {
    const key = row.split("|").slice(1, 3).join("|");
    const inReadme = lines.find((l) => l.split("|").slice(1, 3).join("|") === key);
    assert.equal(inReadme, row, "stale: run make explain-findings");
  }
});
