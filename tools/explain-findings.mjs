// explain-findings.mjs - "is attention explanation?" measured on every shipped model: runs
// explain.js's runExperiments over each task's held-out examples and renders one Markdown table
// row per (task, attention kind). Deterministic (seeded examples, seeded random order).
//   node tools/explain-findings.mjs [--count 200] [--only reverse-softmax,...]   print the table
//   node tools/explain-findings.mjs --readme README.md                           rewrite it in place
// (between <!-- findings:start --> and <!-- findings:end -->; `make explain-findings` does this,
// and tests/js/readme-findings.test.mjs recomputes two rows and compares them with the README).
import { readFileSync, writeFileSync } from "node:fs";
import { init, Model } from "../dist/simplexity.js";
import { runExperiments } from "../dist/explain.js";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const count = Number(opt("--count", "200"));
const readme = opt("--readme", null);
const only = opt("--only", null)?.split(",");
if (!(Number.isInteger(count) && count >= 1)) throw new Error(`--count must be a positive integer (got ${opt("--count")})`);

const TASKS = ["reverse", "sort", "after_marker", "date"];
const KINDS = ["softmax", "entmax15", "alpha", "alpha-span"];

export const HEADER = [
  "| task | kind | examples | tau(att, grad x input) | tau(att, IG) | tau(att, LOO) | best head: alignment | LOO: alignment | grad x input: alignment | erased before the flip: by attention / gradient / random | adversarial JSD, every cross head, TV <= 0.01 |",
  "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|",
];

const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : "-");
const lastLayerMean = (perHead) => {
  const row = perHead[perHead.length - 1].filter(Number.isFinite);
  return row.reduce((a, b) => a + b, 0) / row.length;
};

/** One table row from a runExperiments summary. */
export function row(task, kind, s) {
  const b = s.alignment.best;
  const e = s.erasure;
  return `| ${task} | ${kind} | ${s.examples} | ${f2(lastLayerMean(s.tau.gradInput.perHead))} | ` +
    `${f2(lastLayerMean(s.tau.integratedGradients.perHead))} | ${f2(lastLayerMean(s.tau.leaveOneOut.perHead))} | ` +
    `${pct(b.accuracy)} (layer ${b.layer + 1} head ${b.head + 1}) | ${pct(s.alignment.methods.leaveOneOut)} | ` +
    `${pct(s.alignment.methods.gradInput)} | ${pct(e.attention.medianFraction)} / ${pct(e.gradient.medianFraction)} / ` +
    `${pct(e.random.medianFraction)} | ${f2(s.adversarial.medianJSD)} |`;
}

/** The rows for the given model names ("<task>-<kind>"). */
export async function rows(names, n) {
  await init();
  const out = [];
  for (const name of names) {
    const task = TASKS.find((t) => name.startsWith(`${t}-`));
    const kind = name.slice(task.length + 1);
    const model = Model.load(readFileSync(new URL(`../web/models/${name}.sxm`, import.meta.url)));
    try {
      const t0 = performance.now();
      const s = await runExperiments(model, task, { count: n, seed: 1 });
      process.stderr.write(`explain-findings: ${name}: ${s.examples} examples, ${s.steps} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      out.push(row(task, kind, s));
    } finally {
      model.free();
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = only ?? TASKS.flatMap((t) => KINDS.map((k) => `${t}-${k}`));
  const table = [...HEADER, ...(await rows(names, count))].join("\n");
  if (readme) {
    const text = readFileSync(readme, "utf8");
    const a = text.indexOf("<!-- findings:start -->"), b = text.indexOf("<!-- findings:end -->");
    if (a < 0 || b < a) throw new Error(`${readme} has no <!-- findings:start --> ... <!-- findings:end --> block`);
    writeFileSync(readme, `${text.slice(0, a)}<!-- findings:start -->\n${table}\n${text.slice(b)}`);
    console.log(`explain-findings: rewrote the table in ${readme} (${count} held-out examples per model)`);
  } else {
    console.log(table);
  }
}
