// models-table.mjs - the README table of the character models (`make text-models`, part of
// `make models`): each decoder-only model of web/models/text/summary.json (tools/train-gpt.c's
// JSON lines) beside the n-gram baseline of the same split (build/text/baseline.json,
// `make text-baseline`), written as Markdown to --md (then into the README by readme-table.mjs).
//   node tools/text/models-table.mjs --summary web/models/text/summary.json \
//        --baseline build/text/baseline.json --md build/text/models.md
import { readFileSync, writeFileSync } from "node:fs";

const args = process.argv.slice(2), opt = {};
for (let i = 0; i < args.length; i += 2) {
  if (!["--summary", "--baseline", "--md"].includes(args[i]) || args[i + 1] === undefined) {
    console.error(`models-table: bad argument '${args[i]}' (--summary FILE --baseline FILE --md FILE)`);
    process.exit(2);
  }
  opt[args[i].slice(2)] = args[i + 1];
}
const models = JSON.parse(readFileSync(opt.summary, "utf8"));
const ngrams = readFileSync(opt.baseline, "utf8").trim().split("\n").map((line) => JSON.parse(line));

// Bits per character: null in the JSON when a true character got probability 0 (infinite).
const bits = (x) => (x === null ? "inf" : x.toFixed(3));
const pct = (x) => `${(100 * x).toFixed(x < 1 && x > 0.995 ? 1 : 0)}%`;
const mapName = { softmax: "softmax", entmax15: "1.5-entmax", alpha: "learned alpha-entmax" };

const rows = [
  "| model | attention | outputs | parameters | KB (float16) | valid bits/char | test bits/char | eps (from valid) | test eps-perplexity | true char in support | mean support (chars) | attention zeros (valid) |",
  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
];
for (const m of models) {
  rows.push(`| ${m.name} (${m.config.layers} layer${m.config.layers > 1 ? "s" : ""}, d_model ${m.config.d_model}, ${m.config.heads} heads, ` +
            `context ${m.config.context}; ${m.steps} steps, ${m.seconds.toFixed(0)} s) | ${mapName[m.attention]} | ` +
            `${mapName[m.output]} | ${m.params} | ${(m.bytes / 1024).toFixed(0)} | ${bits(m.valid_bpc)} | ` +
            `${bits(m.test_bpc)} | ${m.eps === null ? "inf (uniform)" : m.eps.toPrecision(2).replace(/\.?0+$/, "")} | ${m.test_eps_ppl.toFixed(2)} | ` +
            `${pct(m.test_in_support)} | ${m.test_support.toFixed(1)} of ${m.config.vocab} | ` +
            `${pct(m.valid_attention_zeros)} |`);
}
for (const g of ngrams) {
  rows.push(`| ${g.order}-gram, interpolated modified Kneser-Ney | - | - | - | - | ${g.valid_bpc.toFixed(3)} | ` +
            `${g.test_bpc.toFixed(3)} | ${String(g.eps)} | ${g.test_eps_ppl.toFixed(2)} | ${pct(g.test_in_support)} | ` +
            `96 of 96 | - |`);
}
writeFileSync(opt.md, rows.join("\n") + "\n");
console.log(rows.join("\n"));
