// word-list-tool.test.mjs - tools/text/word-list.mjs (the figures of <sx-write>'s word list
// quoted in the README) runs on the shipped sparse-output model and reports sane numbers; and
// refuses a softmax-output model and a bad cap, naming them. (make test-js runs `make text`
// first: the tool reads build/text/devil-valid.txt.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const tool = (...args) => spawnSync(process.execPath, ["tools/text/word-list.mjs", ...args], { cwd: ROOT, encoding: "utf8" });

test("word-list.mjs: the shipped entmax15-out model, 6 positions at cap 60", () => {
  const out = JSON.parse(execFileSync(process.execPath, ["tools/text/word-list.mjs", "--positions", "6", "--cap", "60", "--json"], { cwd: ROOT, encoding: "utf8" }));
  assert.equal(out.model, "devil-entmax15-out");
  assert.equal(out.inside.positions + out.start.positions, 6);
  for (const part of [out.inside, out.start]) {
    if (part.positions === 0) continue;
    assert.ok(part.complete >= 0 && part.complete <= part.positions);
    assert.ok(part.medianMass > 0 && part.medianMass <= 1 + 1e-9, `mass ${part.medianMass}`);
    assert.ok(part.medianWords >= 1 && part.medianSure <= part.medianWords);
  }
});

test("word-list.mjs: a softmax-output model and a bad cap are refused by name", () => {
  const soft = tool("--model", "softmax", "--positions", "1");
  assert.notEqual(soft.status, 0);
  assert.match(soft.stderr, /devil-softmax has softmax outputs/);
  const cap = tool("--cap", "0");
  assert.notEqual(cap.status, 0);
  assert.match(cap.stderr, /--cap must be a whole number >= 1 \(got 0\)/);
});
