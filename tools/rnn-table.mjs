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
  `accuracy % (the token accuracy %). Training draws source lengths ${lengths[0]}..${lengths[lengths.length - 1]} ` +
  `uniformly (the task's range, core/src/tasks.c), so every column's length was seen in training. GRU, embed ${r0.config.embed}, hidden ${r0.config.hidden}, attention ` +
  `hidden ${r0.config.attn_hidden}, batch ${r0.config.batch}, lr ${r0.config.lr}; "steps": training stops at ` +
  `99.5% greedy accuracy on 500 other held-out rows, or at the step limit.`;
const table = rows.join('\n') + '\n\n' + note + '\n\n' + finding(runs, lengths) + '\n';
process.stdout.write(table);

/**
 * What the table says about the bottleneck, from its numbers: the model without attention from
 * the shortest to the longest sources, against the attention models at the longest, and whether
 * that is the shape Cho et al. 2014 and Bahdanau et al. 2015 reported.
 */
function finding(runs, lengths) {
  const acc = (r, n) => (r.by_length.find((x) => x.length === n) || { accuracy: NaN }).accuracy;
  const lo = lengths[0], hi = lengths[lengths.length - 1];
  const none = runs.find((r) => r.attention === 'none');
  const att = runs.filter((r) => r.attention !== 'none');
  if (!none || att.length === 0) return 'The comparison needs the no-attention run and at least one attention run.';
  const worst = att.reduce((w, r) => (acc(r, hi) < acc(w, hi) ? r : w));
  const fall = acc(none, lo) - acc(none, hi), gap = acc(worst, hi) - acc(none, hi);
  const agrees = fall >= 0.1 && gap >= 0.1;
  return `Without attention the exact accuracy goes from ${pct(acc(none, lo))}% on sources of ${lo} ` +
    `letters to ${pct(acc(none, hi))}% on sources of ${hi}: the whole source passes through one ` +
    `${none.config.hidden}-wide state. With attention the worst variant (${name(worst)}) still gets ` +
    `${pct(acc(worst, hi))}% of the ${hi}-letter sources. Cho et al. (2014) found that the RNN ` +
    `encoder-decoder's translations degrade quickly as sentences grow longer, and Bahdanau et al. ` +
    `(2015) that letting the decoder attend over every encoder state (RNNsearch) holds its quality ` +
    `where the fixed-vector model (RNNencdec) falls. ` +
    (agrees
      ? `Our curve agrees, on a toy task with short sources (a fall of ${pct(fall)} points without ` +
        `attention, ${pct(gap)} points recovered with it at the longest length).`
      : `Our curve does not show it clearly at these lengths (a fall of ${pct(fall)} points without ` +
        `attention, ${pct(gap)} points between it and the worst attention variant at the longest length).`);
}
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
