// rnn-table.mjs - the bottleneck table (issue 24, item 2): held-out greedy exact-sequence
// accuracy against source length for each recurrent variant, from the JSON lines that
// `build/tools/train --arch rnn` prints (`make rnn-table` writes them, one file per variant).
//   node tools/rnn-table.mjs build/rnn/none.json build/rnn/additive-softmax.json ...
//   node tools/rnn-table.mjs --readme README.md FILES...   also rewrite the README's table
// (between <!-- rnn-table:start --> and <!-- rnn-table:end -->).
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const at = args.indexOf('--readme');
const readme = at >= 0 ? args.splice(at, 2)[1] : null;
if (args.length === 0) {
  console.error('usage: node tools/rnn-table.mjs [--readme README.md] RUN.json...');
  process.exit(2);
}
const runs = args.map((f) => JSON.parse(readFileSync(f, 'utf8').trim().split('\n').pop()));
const lengths = [...new Set(runs.flatMap((r) => r.by_length.map((b) => b.length)))].sort((a, b) => a - b);
const name = (r) =>
  r.attention === 'none' ? 'none (last state only)'
    : r.attention === 'additive' ? `additive, ${r.map}` : `hard, ${r.estimator}`;
const pct = (x) => (100 * x).toFixed(1);
const cell = (r, n) => {
  const b = r.by_length.find((x) => x.length === n);
  return b ? `${pct(b.accuracy)} (${pct(b.token_accuracy)})` : '';
};
const rows = [
  `| attention | steps | ${lengths.map((n) => `${n}`).join(' | ')} | all |`,
  `|---|---:|${lengths.map(() => '---:').join('|')}|---:|`,
  ...runs.map((r) => `| ${name(r)} | ${r.steps} | ${lengths.map((n) => cell(r, n)).join(' | ')} | ${pct(r.accuracy)} |`),
];
const r0 = runs[0];
const note = `Task ${r0.task}: greedy decoding of ${r0.test_examples} held-out rows (seed ${2000 + r0.seed}, the same ` +
  `rows for every variant); the columns are the source length in characters, each cell the exact-sequence ` +
  `accuracy % (the token accuracy %). GRU, embed ${r0.config.embed}, hidden ${r0.config.hidden}, attention ` +
  `hidden ${r0.config.attn_hidden}, batch ${r0.config.batch}, lr ${r0.config.lr}; "steps": training stops at ` +
  `99.5% greedy accuracy on 500 other held-out rows, or at the step limit.`;
const table = rows.join('\n') + '\n\n' + note + '\n';
process.stdout.write(table);
if (readme) {
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- rnn-table:start -->', end = '<!-- rnn-table:end -->';
  const i = text.indexOf(start), j = text.indexOf(end);
  if (i < 0 || j < i) {
    console.error(`rnn-table: ${readme} has no ${start} ... ${end} block`);
    process.exit(1);
  }
  writeFileSync(readme, text.slice(0, i + start.length) + '\n' + table + text.slice(j));
}
