// docs.test.mjs - the README's ```js blocks (between <!-- api:start --> and <!-- api:end -->)
// and every examples/*.mjs run as their own Node processes and must exit 0, so the docs cannot
// rot. Snippets import "simplexity" (the package's self-reference, so they are written into the
// repository, under build/); the browser snippet's "./simplexity.js" is pointed at it too.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../", import.meta.url);
const run = (file) => new Promise((resolve) => {
  execFile(process.execPath, [fileURLToPath(file)], { cwd: fileURLToPath(ROOT), timeout: 600_000 } /* a hang guard, not a speed check */,
    (error, stdout, stderr) => resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr }));
});

const readme = await readFile(new URL("README.md", ROOT), "utf8");
const start = readme.indexOf("<!-- api:start -->");
const end = readme.indexOf("<!-- api:end -->");
const section = start >= 0 && end > start ? readme.slice(start, end) : "";
const blocks = [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const examples = (await readdir(new URL("examples/", ROOT))).filter((f) => f.endsWith(".mjs")).sort();

describe("docs", () => {
  test("the README has an API section with js examples", () => {
    assert.ok(section.length > 0, "README.md lacks the <!-- api:start --> ... <!-- api:end --> section");
    assert.ok(blocks.length >= 4, `only ${blocks.length} js blocks in the API section`);
  });

  for (const [i, code] of blocks.entries()) {
    test(`README js block ${i + 1} runs`, async () => {
      const dir = new URL("build/docs-test/", ROOT);
      await mkdir(dir, { recursive: true });
      const file = new URL(`readme-${i + 1}.mjs`, dir);
      await writeFile(file, code.replaceAll('"./simplexity.js"', '"simplexity"'));
      const r = await run(file);
      assert.equal(r.code, 0, `README js block ${i + 1} failed:\n${code}\n--- stderr:\n${r.stderr}`);
    });
  }

  test("there are examples", () => assert.ok(examples.includes("quickstart.mjs") && examples.includes("gradients.mjs")));
  for (const name of examples) {
    test(`examples/${name} runs`, async () => {
      const r = await run(new URL(`examples/${name}`, ROOT));
      assert.equal(r.code, 0, `examples/${name} failed:\n${r.stderr}`);
      assert.ok(r.stdout.length > 0, "prints something");
    });
  }

  test("quickstart prints sparsemax([1.5, 0, 1]) = [0.75, 0, 0.25]", async () => {
    const r = await run(new URL("examples/quickstart.mjs", ROOT));
    assert.match(r.stdout, /sparsemax\s+\[0\.7500, 0\.0000, 0\.2500\]/);
  });
});
