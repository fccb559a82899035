// golden.test.mjs - the shared golden vectors (tests/golden/mappings.txt, also read by the C
// tests; provenance in the file) on both wasm builds. Line format:
//   <mapping> <alpha> <temperature> <tol> <n> <x_1> ... <x_n> <p_1> ... <p_n>   # comment
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { builds } from "./helpers.mjs";

const FILE = new URL("../golden/mappings.txt", import.meta.url);

function num(s) {
  const v = { inf: Infinity, "+inf": Infinity, "-inf": -Infinity, nan: NaN }[s.toLowerCase()] ?? Number(s);
  if (Number.isNaN(v) && s.toLowerCase() !== "nan") throw new Error(`golden: bad number ${JSON.stringify(s)}`);
  return v;
}

export function parseGolden(text) {
  const cases = [];
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (!line) return;
    const f = line.split(/\s+/);
    const [mapping, alpha, temperature, tol, n] = [f[0], f[1], num(f[2]), num(f[3]), Number(f[4])];
    assert.ok(Number.isInteger(n) && n >= 1 && f.length === 5 + 2 * n, `golden line ${i + 1}: malformed: ${raw}`);
    cases.push({
      line: i + 1, mapping, alpha: alpha === "-" ? undefined : num(alpha), temperature, tol, n,
      x: f.slice(5, 5 + n).map(num), p: f.slice(5 + n).map(num),
      why: hash >= 0 ? raw.slice(hash + 1).trim() : "",
    });
  });
  return cases;
}

// A missing file fails the test (it used to be skipped, so deleting it passed).
const present = existsSync(FILE);
const cases = present ? parseGolden(readFileSync(FILE, "utf8")) : [];

for (const { name, sx } of await builds()) {
  describe(`golden vectors [${name} build]`, () => {
    test(`${cases.length} cases from tests/golden/mappings.txt`, () => {
      assert.ok(present, `tests/golden/mappings.txt is missing (${FILE.pathname}): the golden vectors are part of the tests`);
      assert.ok(cases.length >= 10, `the golden file has only ${cases.length} cases (at least 10 expected)`);
      for (const c of cases) {
        assert.ok(typeof sx[c.mapping] === "function", `line ${c.line}: unknown mapping ${c.mapping}`);
        const opts = { temperature: c.temperature };
        if (c.alpha !== undefined) opts.alpha = c.alpha;
        const p = sx[c.mapping](c.x, opts);
        for (let i = 0; i < c.n; i++) {
          const err = Math.abs(p[i] - c.p[i]);
          assert.ok(err <= c.tol || (c.tol === 0 && p[i] === c.p[i]),
            `line ${c.line} (${c.why}): ${c.mapping}(${c.x}) [${i}] = ${p[i]}, golden ${c.p[i]}, |err| ${err} > ${c.tol}`);
        }
      }
    });
  });
}
