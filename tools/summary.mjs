// summary.mjs - render web/models/summary.json (written by `make models`) as a Markdown table
// for the README: what each shipped model learned, computed, not typed. The "alpha" column gives
// a structured model's lambda or beta instead.
//   node tools/summary.mjs [web/models/summary.json]          print the table
//   node tools/summary.mjs --readme README.md                  rewrite the README's table in place
// (between <!-- models:start --> and <!-- models:end -->; `make models` does this, and
// tests/js/readme-models.test.mjs checks that the README matches summary.json).
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const readmeAt = args.indexOf('--readme');
const readme = readmeAt >= 0 ? args.splice(readmeAt, 2)[1] : null;
const file = args[0] ?? 'web/models/summary.json';
const models = JSON.parse(readFileSync(file, 'utf8'));
const kinds = ['enc_self', 'dec_self', 'cross'];
const short = { enc_self: 'enc', dec_self: 'dec', cross: 'x' };

// Per attention kind: layer by layer, heads joined by '/', e.g. "1.03/1.10 | 1.49/1.60".
const perLayer = (v, digits) =>
  v.map((heads) => heads.map((x) => x.toFixed(digits)).join('/')).join('; ');

const rows = [
  '| task | kind | steps | seconds | held-out acc. | KB | alpha per head (layer 1; layer 2) | span per head (positions) | exact zeros enc / dec / cross | cross runs per row (support) | outputs | output support (tokens) | exact search: sequences per input |',
  '|---|---|---:|---:|---:|---:|---|---|---|---:|---|---:|---:|',
];
// The output layer (tools/output-stats.mjs): its mapping, the mean support of the next token's
// distribution out of the vocabulary, and the sequences exact search lists (sparse outputs).
const outputs = (o) => [o.mapping, `${o.support.toFixed(2)} of ${o.vocab}`,
  o.sequences === null ? '-' : `${o.sequences.toFixed(2)} (max ${o.sequences_max})`].join(' | ');
// Contiguity (tools/output-stats.mjs's attentionRuns): the mean number of runs of equal nonzero
// weight per cross-attention row, and the mean support per row beside it.
const runs = (c) => `${(c.runs / c.rows).toFixed(2)} (${(c.nonzero / c.rows).toFixed(2)})`;
for (const r of models) {
  const learned = r.kind.startsWith('alpha');
  // the structured kinds (tools/train.c's fusedmax, oscarmax) name their fixed lambda or beta
  const structured = r.config.lambda !== undefined ? `λ ${r.config.lambda} (fixed)`
    : r.config.beta !== undefined ? `β ${r.config.beta} (fixed)` : null;
  const alphas = learned
    ? kinds.map((k) => `${short[k]} ${perLayer(r.alphas[k], 2)}`).join('<br>')
    : structured ?? r.alphas.enc_self[0][0].toFixed(1) + ' (fixed)';
  const spans = r.config.span
    ? kinds.slice(0, 2).map((k) => `${short[k]} ${perLayer(r.spans[k], 1)}`).join('<br>')
    : '-';
  const z = kinds.map((k) => (100 * r.zeros[k]).toFixed(0) + '%').join(' / ');
  rows.push(`| ${r.task} | ${r.kind} | ${r.steps} | ${r.seconds.toFixed(1)} | ` +
            `${(100 * r.accuracy).toFixed(2)}% | ${(r.bytes / 1024).toFixed(0)} | ${alphas} | ${spans} | ${z} | ${runs(r.runs)} | ${outputs(r.outputs)} |`);
}
const table = rows.join('\n');
if (readme) {
  const text = readFileSync(readme, 'utf8');
  const a = text.indexOf('<!-- models:start -->'), b = text.indexOf('<!-- models:end -->');
  if (a < 0 || b < a) {
    console.error(`summary: ${readme} has no <!-- models:start --> ... <!-- models:end --> block`);
    process.exit(1);
  }
  writeFileSync(readme, text.slice(0, a) + '<!-- models:start -->\n' + table + '\n' + text.slice(b));
} else {
  console.log(table);
}
