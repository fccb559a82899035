// fused-backward.mjs - fusedmax's backward against the number of fused runs k (issue 25 item 1:
// "for fusedmax ... a single linear pass over the output computes the backward given the
// solution"). Rows of n scores in k equal blocks (web/widgets/viz/fused-cost.js: prox_TV has
// exactly k runs, all in the support; checked), timed in the SIMD wasm build through the public
// JS API: the forward fusedmax (the baseline), fusedmaxBackward (the core runs the forward again,
// then averages over the runs), and the dense Jacobian-vector product (jacobian(), then J^T dy in
// JS), which is what the backward would cost without the structure. <sx-fused> measures the same
// cases in the reader's browser ("Measure the backward's cost").
//
//   node bench/fused-backward.mjs [--quick] [--rounds R] [--ms T] [--n 64,512,2048]
//                                 [--api path/to/simplexity.js]   (default dist/simplexity.js)
//
// Method: each case R rounds (medians over rounds of the per-round medians of 3 timings of T ms);
// the ratios are per round, then the median, so a busy neighbour slows both sides of a ratio.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mdTable, cpuSnapshot, foreignLoad, commandLine, wholeNumber, positiveNumber, listOf, existingFile } from './common.mjs';
import { measureCase, runCounts } from '../web/widgets/viz/fused-cost.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const NS = [64, 512, 2048];
const USAGE = 'usage: node bench/fused-backward.mjs [--quick] [--rounds R] [--ms T] [--n 64,512,2048] [--api path/to/simplexity.js]';
const { ROUNDS, MS, API, ns } = commandLine('bench/fused-backward.mjs', USAGE, {
  quick: { type: 'boolean' }, rounds: { type: 'string' }, ms: { type: 'string' }, n: { type: 'string' }, api: { type: 'string' },
}, (v, bad) => ({
  ROUNDS: v.rounds === undefined ? (v.quick ? 1 : 5) : wholeNumber(v.rounds, '--rounds', bad),
  MS: v.ms === undefined ? (v.quick ? 5 : 40) : positiveNumber(v.ms, '--ms', bad),
  API: v.api === undefined ? path.join(root, 'dist/simplexity.js') : existingFile(v.api, '--api', bad),
  ns: v.n === undefined ? NS : listOf(v.n, '--n', NS, bad, Number),
}));

const sx = await import(pathToFileURL(API).href);
const info = await sx.init();
const median = (a) => { const s = [...a].sort((p, q) => p - q); return s[s.length >> 1]; };
const cpu0 = cpuSnapshot();
const rows = [];
let wrong = 0;
for (const n of ns) {
  for (const k of runCounts(n)) {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await measureCase(sx, { n, k, ms: MS, rows: n >= 2048 ? 4 : 16 }));
    const c = rounds[0];
    if (c.runs !== k || c.support !== n) {
      console.error(`n ${n} k ${k}: the case has ${c.runs} runs and ${c.support} entries in the support (expected ${k} and ${n})`);
      wrong++;
    }
    const m = (f) => median(rounds.map(f));
    rows.push([n, k, c.runs, m((q) => q.forward).toFixed(2), m((q) => q.backward).toFixed(2),
      m((q) => q.backward / q.forward).toFixed(2), m((q) => (q.backward - q.forward) / q.forward).toFixed(2),
      m((q) => q.dense).toFixed(0), m((q) => q.dense / q.backward).toFixed(0)]);
  }
}
console.log(`fusedmax's backward against the number of fused runs k (${info.simd ? 'SIMD' : 'scalar'} wasm, ${ROUNDS} round(s) of ${MS} ms; us per row)\n`);
console.log(mdTable(['n', 'k', 'runs', 'forward us', 'backward us', 'backward / forward', '(backward - forward) / forward', 'dense J^T dy us', 'dense / backward'], rows, 0));
const load = foreignLoad(cpu0, cpuSnapshot());
console.log('\nbackward = the forward again + one pass averaging over the runs; dense = jacobian() + J^T dy in JS.' +
  (load === null ? '' : ` Other processes used ${(100 * load).toFixed(0)}% of the CPUs meanwhile.`));
if (wrong) process.exitCode = 1;
