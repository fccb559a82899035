// docs.test.mjs - the README's ```js blocks (between <!-- api:start --> and <!-- api:end -->)
// and every examples/*.mjs run as their own Node processes and must exit 0, so the docs cannot
// rot; the widgets' attribute tables and the Theme table are checked against the code. Snippets import "simplexity" (the package's self-reference, so they are written into the
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

// ---- the blog author's reference (README "Widgets for a blog post"), checked against the code
// Every widget's attributes, from web/widgets/widgets.d.ts's SxWidgetAttributes (the JSX props, which
// tests/js/declarations.test.mjs holds to the widgets' JS), against the README's tables: each
// table follows a <!-- attributes: tag ... --> line; a table with a "widget" column names the
// widget in its first cell. `theme` and `link`, every widget's, are documented once (the Theme
// paragraph, the Links section).
const dts = await readFile(new URL("web/widgets/widgets.d.ts", ROOT), "utf8");
const declared = new Map([...dts.matchAll(/^  "(sx-[a-z-]+)": SxEventProps<"\1"> & \{([\s\S]*?)\};$/gm)]
  .map(([, tag, body]) => [tag, [...body.matchAll(/(?:^|[;{\s])"?([a-z][a-z-]*)"?\?:/g)].map((m) => m[1])]));
const documented = new Map();
for (const m of readme.matchAll(/^<!-- attributes: ([a-z -]+) -->\n((?:\|.*\n)+)/gm)) {
  const tags = m[1].trim().split(/\s+/), rows = m[2].trim().split("\n");
  const byWidget = rows[0].startsWith("| widget");
  let tag = tags[0];
  for (const row of rows.slice(2)) {
    const cells = row.split(" | ");
    if (byWidget) {
      const t = /`<(sx-[a-z-]+)>`/.exec(cells[0]);
      if (t) tag = t[1];
    }
    const names = [...(byWidget ? cells[1] : cells[0].slice(1)).matchAll(/`([a-z][a-z-]*)`/g)].map((x) => x[1]);
    if (!documented.has(tag)) documented.set(tag, new Set());
    for (const n of names) documented.get(tag).add(n);
  }
}

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

  test("widgets.d.ts declares the attributes of all twenty-five widgets", () => {
    assert.equal(declared.size, 25, `SxWidgetAttributes in web/widgets/widgets.d.ts: ${[...declared.keys()]}`);
    for (const [tag, names] of declared) assert.ok(names.includes("theme") && names.includes("link") && names.length > 2, `${tag}: ${names}`);
  });

  test("the README has an attribute table for every widget, with every attribute and no other", () => {
    const problems = [];
    for (const [tag, names] of declared) {
      const doc = documented.get(tag);
      if (!doc) { problems.push(`${tag}: no table (<!-- attributes: ${tag} --> before it)`); continue; }
      for (const n of names) if (n !== "theme" && n !== "link" && !doc.has(n)) problems.push(`${tag}: \`${n}\` missing`);
      for (const n of doc) if (!names.includes(n)) problems.push(`${tag}: \`${n}\` documented but not declared`);
    }
    for (const tag of documented.keys()) if (!declared.has(tag)) problems.push(`${tag}: a table for an unknown widget`);
    assert.deepEqual(problems, []);
    assert.match(readme, /Every widget takes\s+`link`: `copy` \(the default/, "the Links section documents `link`");
  });

  // Every --sx-* custom property the widgets read, against the README's Theme table: its light and
  // dark defaults (widgets/base.js's LIGHT and DARK; the `var(--sx-x, #hex)` fallbacks of a
  // widget's :host rules, light in `:host {`, dark in `:host([theme="dark"])`; a fallback to
  // another property, `var(--sx-x, var(--_y))`, is `--sx-y` in both columns).
  test("the README's Theme table lists every --sx-* property with its light and dark defaults", async () => {
    const tstart = readme.indexOf("<!-- theme:start -->"), tend = readme.indexOf("<!-- theme:end -->");
    assert.ok(tstart > 0 && tend > tstart, "README.md lacks the <!-- theme:start --> ... <!-- theme:end --> table");
    const rows = new Map(readme.slice(tstart, tend).split("\n").filter((l) => l.startsWith("| `--sx-"))
      .map((l) => { const c = l.split(" | "); return [c[0].slice(3, -1), { light: c[1].replaceAll("`", ""), dark: c[2].replaceAll("`", "") }]; }));
    assert.match(readme, /takes `theme` \(`auto`, the default, follows the reader's\s+`prefers-color-scheme`; `light` or `dark`/);
    const want = new Map();
    const base = await readFile(new URL("web/widgets/base.js", ROOT), "utf8");
    const palette = (name) => Object.fromEntries([...new RegExp(`^const ${name} = \\{([\\s\\S]*?)\\};`, "m").exec(base)[1]
      .matchAll(/"?([a-z0-9-]+)"?: "(#[0-9a-f]+)"/g)].map((m) => [m[1], m[2]]));
    const light = palette("LIGHT"), dark = palette("DARK");
    assert.ok(Object.keys(light).length >= 15 && Object.keys(light).join() === Object.keys(dark).join(), "LIGHT and DARK in base.js");
    for (const k in light) want.set(`--sx-${k}`, { light: light[k], dark: dark[k] });
    const files = (await readdir(new URL("web/widgets/", ROOT))).filter((f) => f.endsWith(".js") && f !== "base.js");
    for (const f of files) {
      const src = await readFile(new URL(`web/widgets/${f}`, ROOT), "utf8");
      for (const line of src.split("\n")) {
        for (const [, name, hex, ref] of line.matchAll(/var\((--sx-[a-z0-9-]+), (?:(#[0-9a-f]+)|var\(--_([a-z0-9-]+)\))\)/g)) {
          const w = want.get(name) || {};
          if (ref) { w.light = w.dark = `--sx-${ref}`; }
          else if (line.startsWith(":host {")) w.light = hex;
          else if (line.startsWith(':host([theme="dark"])')) w.dark = hex;
          else if (!line.includes("prefers-color-scheme")) assert.fail(`${f}: a fallback colour outside the :host rules: ${line}`);
          want.set(name, w);
        }
      }
    }
    const problems = [];
    for (const [name, w] of want) {
      const r = rows.get(name);
      if (!r) problems.push(`${name} missing`);
      else if (r.light !== w.light || r.dark !== w.dark) problems.push(`${name}: README ${r.light} / ${r.dark}, code ${w.light} / ${w.dark}`);
    }
    for (const name of rows.keys()) if (!want.has(name)) problems.push(`${name}: in the README, read by no widget`);
    assert.ok(want.size >= 20, `found only ${want.size} properties in the widgets`);
    assert.deepEqual(problems, []);
  });

  test("quickstart prints sparsemax([1.5, 0, 1]) = [0.75, 0, 0.25]", async () => {
    const r = await run(new URL("examples/quickstart.mjs", ROOT));
    assert.match(r.stdout, /sparsemax\s+\[0\.7500, 0\.0000, 0\.2500\]/);
  });
});
