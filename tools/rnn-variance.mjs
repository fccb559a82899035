// rnn-variance.mjs - soft, sparse and hard attention compared (issue 24, item 4): the tables of
// the JSON object `build/tools/rnn-variance` prints (tools/rnn-variance.c; `make rnn-variance`).
//   node tools/rnn-variance.mjs build/rnn/variance.json
//   node tools/rnn-variance.mjs --readme README.md build/rnn/variance.json   also rewrite the
// README's block (between <!-- rnn-variance:start --> and <!-- rnn-variance:end -->).
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const at = args.indexOf('--readme');
const readme = at >= 0 ? args.splice(at, 2)[1] : null;
if (args.length !== 1) {
  console.error('usage: node tools/rnn-variance.mjs [--readme README.md] VARIANCE.json');
  process.exit(2);
}
const run = JSON.parse(readFileSync(args[0], 'utf8'));

const LABEL = {
  softmax: 'additive, softmax (exact)',
  sparsemax: 'additive, sparsemax (exact)',
  entmax15: 'additive, 1.5-entmax (exact)',
  reinforce: 'hard, REINFORCE + baseline',
  gumbel: 'hard, straight-through Gumbel',
  straight: 'hard, straight-through argmax',
};
const HARD = new Set(['reinforce', 'gumbel', 'straight']);
const SPARSE = ['sparsemax', 'entmax15'];
const f2 = (x) => x.toFixed(2);
const pct = (x) => (100 * x).toFixed(1);
const sci = (x) => (x === 0 ? '0' : x >= 0.01 && x < 1000 ? x.toPrecision(3) : x.toExponential(2));
const pointName = (p) => (p.name === 'shipped' ? 'shipped hard-straight model' : `softmax run, step ${p.step}`);
const support = (s, one) => (s < 0 ? '' : `${f2(s)} (${pct(one)}%)`);
const method = (p, name) => p.methods.find((m) => m.method === name);

/** The gradient table: one row per parameter point and method. */
function gradientTable() {
  const rows = [
    '| parameters | attention and gradient | mean gradient norm | relative variance | cos(mean, softmax) | cos(one draw, softmax) | cos(mean, REINFORCE mean) | distance to REINFORCE mean | support (= 1) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of run.points)
    for (const m of p.methods) {
      const rf = m.method === 'reinforce';
      rows.push(`| ${pointName(p)} | ${LABEL[m.method]} | ${sci(m.norm)} | ${sci(m.relvar)} | ${f2(m.cos_soft)} | ` +
        `${f2(m.cos_soft_one)} | ${rf ? '' : f2(m.cos_reinforce)} | ${rf ? `(floor ${f2(p.floor)})` : f2(m.dist_reinforce)} | ` +
        `${support(m.support, m.support1)} |`);
    }
  return rows.join('\n');
}

/** The training table: loss and held-out accuracy at the marks, the support at the last. */
function curveTable() {
  const marks = run.curves[0].points.map((q) => q.step);
  const rows = [
    `| attention and gradient | ${marks.map((s) => `loss at ${s}`).join(' | ')} | ${marks.slice(1).map((s) => `held-out exact % at ${s}`).join(' | ')} | support (= 1) at ${marks[marks.length - 1]} |`,
    `|---|${marks.map(() => '---:').join('|')}|${marks.slice(1).map(() => '---:').join('|')}|---:|`,
  ];
  for (const c of run.curves) {
    const last = c.points[c.points.length - 1];
    rows.push(`| ${LABEL[c.method].replace(' (exact)', '')} | ${c.points.map((q) => q.loss.toFixed(3)).join(' | ')} | ` +
      `${c.points.slice(1).map((q) => pct(q.val_accuracy)).join(' | ')} | ` +
      `${HARD.has(c.method) ? '1 (by construction)' : support(last.support, last.support1)} |`);
  }
  return rows.join('\n');
}

const note = `Task ${run.task}, seed ${run.seed}; GRU, embed ${run.config.embed}, hidden ${run.config.hidden}, ` +
  `attention hidden ${run.config.attn_hidden}, batch ${run.batch}; hard attention's policy is softmax, Gumbel's ` +
  `temperature ${run.config.temperature}, REINFORCE's baseline a moving average (decay ${run.config.baseline}) settled ` +
  `over ${run.warm_draws} draws on the batch first. Gradients: of the attention-side parameters (W_q, W_k, w_v), on ` +
  `one batch of ${run.batch} held-out rows, ${run.draws} draws per stochastic estimator (the exact gradients and the ` +
  `straight-through argmax are deterministic: variance 0). "relative variance" is tr(Cov) / |mean|^2; "cos(one ` +
  `draw, softmax)" the mean cosine of a single draw with the exact softmax gradient (what one training step sees); ` +
  `"distance to REINFORCE mean" is |mean - mean_REINFORCE| / |mean_REINFORCE| (REINFORCE is unbiased for hard ` +
  `attention's expected loss; the floor is its own standard error over the draws, so distances near it are ` +
  `noise); "support (= 1)" the mean number of nonzero attention weights per decoder step and the share of steps ` +
  `with exactly one. Training: ${run.steps} steps of \`build/tools/train --arch rnn\`'s schedule over ` +
  `${run.total}, from one initialisation, the loss its moving average, held-out exact accuracy on ${run.val} ` +
  `validation rows, the support on the measured batch.`;

const table = `${gradientTable()}\n\n${curveTable()}\n\n${note}\n\n${finding()}\n`;
process.stdout.write(table);

/**
 * The lecture's point (sparse attention gives hard-like selections with exact gradients) held
 * against the numbers: the sparse models' support after training, the estimators' variance and
 * one draw's alignment, the straight-through argmax's bias, and the held-out accuracy.
 */
function finding() {
  const end = run.points.find((p) => p.name === 'end'), init = run.points[0];
  const curve = (name) => run.curves.find((c) => c.method === name).points;
  const last = (name) => curve(name)[curve(name).length - 1];
  const mid = (name) => curve(name)[1];
  const sparse = SPARSE.map((s) => `${s} ${f2(last(s).support)} positions per step, ${pct(last(s).support1)}% of steps on one`);
  const soft = last('softmax');
  const hardLike = SPARSE.some((s) => last(s).support1 >= 0.5);
  const rv = (p, name) => method(p, name).relvar, one = (p, name) => method(p, name).cos_soft_one;
  const st = method(end, 'straight');
  const biased = st.dist_reinforce > 2 * end.floor;
  const top = Math.max(...run.curves.map((c) => mid(c.method).val_accuracy));
  const best = run.curves.filter((c) => mid(c.method).val_accuracy === top).map((c) => c.method);
  const accs = run.curves.map((c) => `${c.method} ${pct(mid(c.method).val_accuracy)}%`).join(', ');
  return `Selections: after ${run.steps} steps the sparse models attend to ${sparse.join('; ')} (softmax: ` +
    `${f2(soft.support)}, never one). ` +
    (hardLike
      ? 'Sparse attention does become hard-like on this task, and its gradient is the exact one. '
      : 'Sparse attention narrows the rows but stays short of hard selections here, so the lecture\'s "hard-like" ' +
        'holds only in part on this task. ') +
    `Gradients: REINFORCE's relative variance is ${sci(rv(init, 'reinforce'))} at initialisation and ` +
    `${sci(rv(end, 'reinforce'))} at step ${end.step} (one draw's cosine with the exact softmax gradient ` +
    `${f2(one(init, 'reinforce'))} and ${f2(one(end, 'reinforce'))}); straight-through Gumbel's ` +
    `${sci(rv(init, 'gumbel'))} and ${sci(rv(end, 'gumbel'))} (cosine ${f2(one(init, 'gumbel'))} and ` +
    `${f2(one(end, 'gumbel'))}); the exact sparsemax and 1.5-entmax gradients have none, and their cosine with ` +
    `softmax's is ${f2(one(init, 'sparsemax'))} and ${f2(one(init, 'entmax15'))} at initialisation. The ` +
    `straight-through argmax has no variance either, but it is ${biased ? '' : 'not measurably '}biased: at step ` +
    `${end.step} its gradient is ${f2(st.dist_reinforce)} of REINFORCE's norm away from REINFORCE's mean ` +
    `(noise floor ${f2(end.floor)}). Training: held-out exact accuracy at step ${mid('softmax').step} is ${accs}; ` +
    (best.length > 1 ? `${best.join(', ')} tie there.` : `${best[0]} learns fastest here` +
      (HARD.has(best[0])
        ? ', a hard estimator, so lower gradient variance alone did not decide the race on this small task.'
        : SPARSE.includes(best[0]) ? ', a sparse mapping with exact gradients, as the lecture would predict.' : '.'));
}

if (readme) {
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- rnn-variance:start -->', end = '<!-- rnn-variance:end -->';
  const i = text.indexOf(start), j = text.indexOf(end);
  if (i < 0 || j < i) {
    console.error(`rnn-variance: ${readme} has no ${start} ... ${end} block`);
    process.exit(1);
  }
  writeFileSync(readme, text.slice(0, i + start.length) + '\n' + table + text.slice(j));
}
