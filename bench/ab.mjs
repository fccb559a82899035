// ab.mjs - two builds of the library timed against each other in one run: attention per mapping,
// the mappings alone on attention-sized rows, the Transformer's forward and training step (the
// cases of bench/attention.mjs, through bench/attention-engine.mjs), each build in its own worker
// thread. For a change to the build (compiler flags, a shared helper) that must not slow anything:
// on a shared, noisy machine the two builds' calls alternate case by case, so both see the same
// load, and the table shows the median of the per-round time ratios B / A.
//
//   node bench/ab.mjs --a DIR --b DIR [--quick] [--rounds R] [--ms T] [--only attn|map|model]
//     DIR: a folder holding a built simplexity.js and its .wasm (e.g. a copy of dist/ before the change)
// Exit code 1 when a case's output differs between the builds by more than 1e-4 of its scale
// (the builds should compute the same numbers); 2: a bad command line.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { HEADS, ALPHA, LAMBDA, BATCH, TASK, MODEL_KINDS } from './attention-common.mjs';
import { WorkerEngine, median, mdTable, commandLine, wholeNumber, positiveNumber } from './common.mjs';

const USAGE = 'usage: node bench/ab.mjs --a DIR --b DIR [--quick] [--rounds R] [--ms T] [--only attn|map|model]';
const { A, B, ROUNDS, MS, ONLY } = commandLine('bench/ab.mjs', USAGE, {
  a: { type: 'string' }, b: { type: 'string' }, quick: { type: 'boolean' }, rounds: { type: 'string' },
  ms: { type: 'string' }, only: { type: 'string' },
}, (v, bad) => {
  const dir = (d, name) => {
    if (d === undefined) bad(`${name} is required (a folder holding simplexity.js)`);
    const f = path.resolve(d, 'simplexity.js');
    if (!existsSync(f)) bad(`${name}: no simplexity.js in '${d}'`);
    return pathToFileURL(f).href;
  };
  if (v.only !== undefined && !['attn', 'map', 'model'].includes(v.only)) bad(`--only takes attn, map or model (got '${v.only}')`);
  return {
    A: dir(v.a, '--a'), B: dir(v.b, '--b'),
    ROUNDS: v.rounds === undefined ? (v.quick ? 1 : 5) : wholeNumber(v.rounds, '--rounds', bad),
    MS: v.ms === undefined ? (v.quick ? 30 : 150) : positiveNumber(v.ms, '--ms', bad),
    ONLY: v.only ?? null,
  };
});

const cases = [];
const want = (k) => ONLY === null || ONLY === k;
if (want('attn'))
  for (const dh of [64, 16]) for (const n of [128, 512])
    for (const map of ['softmax', 'sparsemax', 'entmax15', 'entmax', 'fusedmax']) cases.push(`attn:${map}:${n}:${dh}`);
if (want('map')) for (const n of [128, 512]) for (const map of ['softmax', 'sparsemax', 'entmax15']) cases.push(`map:${map}:${n}`);
if (want('model')) for (const k of Object.keys(MODEL_KINDS)) for (const w of ['forward', 'train']) cases.push(`model:${k}:${w}`);

const engine = (api) => new WorkerEngine(new URL('./attention-engine.mjs', import.meta.url),
  { kind: 'simd', api, heads: HEADS, alpha: ALPHA, lambda: LAMBDA, batch: BATCH, task: TASK });
const eng = { A: engine(A), B: engine(B) };
await Promise.all([eng.A.ready, eng.B.ready]);

console.log(`ab (${new Date().toISOString()}): A ${A}\n                             B ${B}\n` +
  `${ROUNDS} round(s) x ${MS} ms CPU per case and build, the builds alternating (A B, then B A)\n`);
const mismatch = [];
for (const c of cases) {
  const [a, b] = [await eng.A.request({ op: 'check', case: c }), await eng.B.request({ op: 'check', case: c })];
  if (!(Math.abs(a.check - b.check) <= 1e-4 * Math.max(a.scale, b.scale, 1e-30))) mismatch.push(`${c}: A ${a.check}, B ${b.check}`);
}
for (const m of mismatch) console.log(`MISMATCH ${m}`);

const t = new Map(cases.map((c) => [c, { A: [], B: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? ['B', 'A'] : ['A', 'B'];
  for (const c of r % 2 ? [...cases].reverse() : cases)
    for (const k of order) {
      if (r === 0) await eng[k].request({ op: 'warm', case: c, calls: 20, ms: MS / 2 });
      t.get(c)[k].push((await eng[k].request({ op: 'measure', case: c, ms: MS })).cpu_ms);
    }
}
await Promise.all([eng.A.close(), eng.B.close()]);

const rows = cases.map((c) => {
  const { A: a, B: b } = t.get(c);
  return [c, median(a).toFixed(3), median(b).toFixed(3), median(a.map((x, i) => b[i] / x)).toFixed(3)];
});
console.log(mdTable(['case', 'A ms/call', 'B ms/call', 'B / A'], rows, 1));
const all = median(cases.map((c) => median(t.get(c).A.map((x, i) => t.get(c).B[i] / x))));
console.log(`\nmedian over the cases of B / A: ${all.toFixed(3)}`);
if (mismatch.length) process.exit(1);
