// backward.mjs - `make bench` (second table): every mapping's backward pass from x (the mapping
// API's *Backward functions: the forward again, then the gradient) against its forward, and
// against 1.5-entmax's backward, at n = 64, 512 and 4096, in the SIMD wasm build through the
// public JS API (`out` reused, about 64k floats per call, the inputs of bench/run.mjs). Issue 14
// asks for alpha-entmax forward and backward at the cost of 1.5-entmax: the last column is that
// ratio for each mapping's backward (1.5-entmax's own row is 1 by definition).
//
//   node bench/backward.mjs [--quick] [--rounds R] [--ms T] [--n 64,512]
//                           [--api path/to/simplexity.js]   (default dist/simplexity.js)
// An unknown option or a bad value is an error (exit code 2) naming it; --help prints the usage.
//
// Method: every case warmed up, then R rounds, each timing every (mapping, n, pass) for T ms of
// wall time, back to back, case order reversed between rounds; medians over rounds, and each
// ratio the median of the per-round ratios (so a noisy neighbour slows both sides of a ratio).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MAPS, PARAMS, LABELS, rowsFor, scores, mulberry32, measure, median, mdTable, cpuSnapshot, foreignLoad,
         commandLine, wholeNumber, positiveNumber, listOf, existingFile } from './common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const NS = [64, 512, 4096];
const USAGE = 'usage: node bench/backward.mjs [--quick] [--rounds R] [--ms T] [--n 64,512,4096] [--api path/to/simplexity.js]';
const { QUICK, ROUNDS, MS, API, ns } = commandLine('bench/backward.mjs', USAGE, {
  quick: { type: 'boolean' }, rounds: { type: 'string' }, ms: { type: 'string' }, n: { type: 'string' }, api: { type: 'string' },
}, (v, bad) => ({
  QUICK: Boolean(v.quick),
  ROUNDS: v.rounds === undefined ? (v.quick ? 1 : 5) : wholeNumber(v.rounds, '--rounds', bad),
  MS: v.ms === undefined ? (v.quick ? 5 : 100) : positiveNumber(v.ms, '--ms', bad),
  API: v.api === undefined ? path.join(root, 'dist/simplexity.js') : existingFile(v.api, '--api', bad),
  ns: v.n === undefined ? NS : listOf(v.n, '--n', NS, bad, Number),
}));

const sx = await import(pathToFileURL(API).href);
const info = await sx.init();
const BACKWARD = { softmax: 'softmaxBackward', sparsemax: 'sparsemaxBackward', entmax15: 'entmax15Backward',
  entmax: 'entmaxBackward', fusedmax: 'fusedmaxBackward', oscarmax: 'oscarmaxBackward' };

const cases = [];
for (const n of ns) {
  const x = scores(n), dy = new Float32Array(x.length), u = mulberry32(77 + n), out = new Float32Array(x.length);
  for (let i = 0; i < dy.length; i++) dy[i] = u() - 0.5;
  for (const map of MAPS) {
    const o = { n, out, ...(PARAMS[map] ? { [PARAMS[map].name]: PARAMS[map].value } : {}) };
    cases.push({ map, n, rows: rowsFor(n), fwd: () => sx[map](x, o), bwd: () => sx[BACKWARD[map]](x, dy, o) });
  }
}
for (const c of cases) { // warm-up (V8 tiers up after some calls)
  for (let i = 0; i < (QUICK ? 3 : 20); i++) { c.fwd(); c.bwd(); }
}
const rounds = new Map(cases.map((c) => [c, { fwd: [], bwd: [] }]));
const before = cpuSnapshot();
for (let r = 0; r < ROUNDS; r++) {
  for (const c of r % 2 ? [...cases].reverse() : cases) {
    rounds.get(c).fwd.push(measure(c.fwd, c.rows, MS));
    rounds.get(c).bwd.push(measure(c.bwd, c.rows, MS));
  }
}
const load = foreignLoad(before, cpuSnapshot());

const fx = (v, d = 2) => (v == null ? '-' : v.toFixed(d));
const kRows = (v) => (v == null ? '-' : (v / 1e3).toFixed(v < 1e5 ? 1 : 0));
const rows = [];
for (const c of cases) {
  const m = rounds.get(c), ref = rounds.get(cases.find((d) => d.n === c.n && d.map === 'entmax15'));
  // ratios of times per round: time = 1 / rate
  const bOverF = median(m.bwd.map((b, r) => m.fwd[r] / b));
  const bOver15 = median(m.bwd.map((b, r) => ref.bwd[r] / b));
  rows.push([LABELS[c.map], c.n, kRows(median(m.fwd)), kRows(median(m.bwd)), fx(bOverF), fx(bOver15)]);
}
console.log(`bench/backward.mjs: ${info.simd ? 'SIMD' : 'scalar'} wasm through the JS API, ${ROUNDS} round(s) of ${MS} ms per cell` +
  (load == null ? '' : `; other processes used ${Math.round(100 * load)}% of the machine meanwhile`));
console.log(mdTable(['mapping', 'n', 'forward k rows/s', 'backward k rows/s', 'backward / forward (time)', 'backward / 1.5-entmax backward (time)'], rows, 1));
