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

test("summary.json describes exactly the committed checkpoints, each >= 99% held-out", () => {
  const runs = JSON.parse(readFileSync(`${ROOT}web/models/summary.json`, "utf8"));
  const files = readdirSync(`${ROOT}web/models`).filter((f) => f.endsWith(".sxm")).sort();
  assert.deepEqual(runs.map((r) => `${r.task}-${r.kind}.sxm`).sort(), files);
  for (const r of runs) {
    assert.ok(r.accuracy >= 0.99, `${r.task}-${r.kind}: held-out accuracy ${r.accuracy}`);
    assert.ok(r.bytes < 200 * 1024, `${r.task}-${r.kind}: ${r.bytes} bytes`);
  }
});
