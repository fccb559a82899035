// The README's table of shipped models is computed, not typed: it must equal what
// `node tools/summary.mjs` renders from web/models/summary.json (written by `make models`).
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

test("README's model table equals tools/summary.mjs's rendering of summary.json", () => {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const a = readme.indexOf("<!-- models:start -->\n"), b = readme.indexOf("<!-- models:end -->");
  assert.ok(a >= 0 && b > a, "README.md lacks the <!-- models:start --> ... <!-- models:end --> block");
  const inReadme = readme.slice(a + "<!-- models:start -->\n".length, b).trim();
  const rendered = execFileSync(process.execPath, ["tools/summary.mjs"], { cwd: ROOT, encoding: "utf8" }).trim();
  assert.equal(inReadme, rendered, "README model table is stale: run `node tools/summary.mjs --readme README.md`");
});

test("summary.json describes exactly the committed checkpoints (float16, its byte counts), each >= 99% held-out", () => {
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  const files = readdirSync(`${ROOT}web/models`).filter((f) => f.endsWith(".sxm")).sort();
  assert.deepEqual(runs.map((r) => `${r.task}-${r.kind}.sxm`).sort(), files);
  for (const r of runs) {
    const name = `${r.task}-${r.kind}`, bytes = readFileSync(`${ROOT}web/models/${name}.sxm`);
    assert.ok(r.accuracy >= 0.99, `${name}: held-out accuracy ${r.accuracy}`);
    assert.equal(r.bytes, bytes.length, `${name}: summary.json's bytes`);
    // format version 2 (float16): 2 bytes per parameter, about 86-89 KB at 43.8 k parameters
    assert.equal(r.precision, "float16", `${name}: precision`);
    assert.equal(bytes.readUInt32LE(4), 2, `${name}: format version`);
    assert.ok(r.bytes < r.params * 2 + 1024, `${name}: ${r.bytes} bytes for ${r.params} parameters`);
  }
});
