// rationales.mjs - the rationale table (issue 25 item 4): from the JSON lines
// `build/tools/rationales` prints (tools/rationales.c; `make rationales`), one row per method:
// held-out accuracy, rationale precision and recall against the marker positions, and the
// selected fraction, the mean over seeds with the lowest and highest seed beside it.
//   node tools/rationales.mjs build/rationales/runs.jsonl
//   node tools/rationales.mjs --readme README.md build/rationales/runs.jsonl   also rewrite the
// README's block (between <!-- rationales:start --> and <!-- rationales:end -->).
import { readFileSync, writeFileSync } from 'node:fs';

const LABEL = {
  sparsemax: 'sparsemax over positions',
  entmax15: '1.5-entmax over positions',
  hardkuma: 'HardKuma gates + expected L0',
  reinforce: 'Bernoulli gates, REINFORCE + baseline',
};
const FIELDS = ['accuracy', 'precision', 'recall', 'fraction'];

/** The JSON lines of a run, checked: every method of LABEL with the same settings. */
export function readRuns(text) {
  const runs = text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  for (const r of runs) {
    if (!(r.method in LABEL)) throw new Error(`rationales: unknown method ${JSON.stringify(r.method)}`);
    for (const f of FIELDS) {
      if (!(r[f] >= 0 && r[f] <= 1)) throw new Error(`rationales: ${r.method} seed ${r.seed}: ${f} ${r[f]} is not in [0, 1]`);
    }
  }
  if (!runs.length) throw new Error('rationales: no runs');
  return runs;
}

const pct = (x) => (100 * x).toFixed(1);
const cell = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.length > 1 ? `${pct(mean)} (${pct(Math.min(...xs))}-${pct(Math.max(...xs))})` : pct(mean);
};

/** The markdown table and the sentence that says how it was made. */
export function table(runs) {
  const r0 = runs[0];
  const seeds = [...new Set(runs.map((r) => r.seed))];
  const lines = [
    '| selection | held-out accuracy % | rationale precision % | rationale recall % | selected % of positions |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const method of Object.keys(LABEL)) {
    const rs = runs.filter((r) => r.method === method);
    if (!rs.length) continue;
    lines.push(`| ${LABEL[method]} | ${FIELDS.map((f) => cell(rs.map((r) => r[f]))).join(' | ')} |`);
  }
  const about = `Mean over seeds ${seeds.join(', ')} (lowest-highest seed in brackets); ${r0.steps} Adam steps ` +
    `of ${r0.batch} examples at lr ${r0.lr}, sparsity weight ${r0.sparsity} (HardKuma, REINFORCE); ` +
    `${r0.test} held-out examples, whose gold rationale (the marker positions: one, three or five) is 25% of the positions on average.`;
  return `${lines.join('\n')}\n\n${about}\n`;
}

function main(argv) {
  const args = argv.slice(2);
  const at = args.indexOf('--readme');
  const readme = at >= 0 ? args.splice(at, 2)[1] : null;
  if (args.length !== 1) {
    console.error('usage: node tools/rationales.mjs [--readme README.md] RUNS.jsonl');
    process.exit(2);
  }
  const out = table(readRuns(readFileSync(args[0], 'utf8')));
  process.stdout.write(out);
  if (readme) {
    const text = readFileSync(readme, 'utf8');
    const start = '<!-- rationales:start -->', end = '<!-- rationales:end -->';
    const i = text.indexOf(start), j = text.indexOf(end);
    if (i < 0 || j < i) {
      console.error(`rationales: ${readme} has no ${start} ... ${end} block`);
      process.exit(1);
    }
    writeFileSync(readme, text.slice(0, i + start.length) + '\n' + out + text.slice(j));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv);
