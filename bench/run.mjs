// run.mjs - `make bench`: one table of rows per second for every mapping at n = 3, 64, 512, 4096
// in the SIMD wasm build, the scalar wasm build (both through the public JS API, `out` reused, a
// batch of rows per call), the native build of the same C (bench_native, -O3 -msse4.2), the
// plain-JavaScript baseline (bench/plain.js) and tfjs-backend-wasm (softmax only); ratio columns;
// PASS/MISS per performance target (issues 3 and 14).
//
//   node bench/run.mjs [--quick] [--json out.json] [--rounds R] [--ms T] [--maps a,b] [--n 3,64]
//                      [--out DIR]                     (default build/bench: the table, results.md)
//                      [--api path/to/simplexity.js]   (default dist/simplexity.js)
//                      [--native path/to/bench_native] (default build/bench/bench_native)
//                      [--no-native]   (run without the native build: no native column, no checksums)
// An unknown option or a bad value is an error (exit code 2) naming it; --help prints the usage.
// Exit code 1 when an engine's output disagrees with plain.js or the native build's checksum
// (the MISMATCH lines; printed first, and the tables are still printed), or when the native build
// is missing or fails and --no-native was not given.
//
// Method (a noisy 2-core shared machine): every implementation checked against plain.js on the
// bench inputs first; every case warmed up (V8 tiers up after 10-40 calls); then R rounds, each
// running every (implementation, mapping, n) once for T ms, back to back per case (native: one
// short bench_native run per cell), implementation order rotated and case order reversed between
// rounds; the table
// shows the median over rounds, a ratio is the median of the per-round ratios. Each JS engine runs
// in its own worker thread (one at a time), so the scalar build is a separate module instance.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { MAPS, NS, PARAMS, LABELS, FLOATS, ROWS3, rowsFor, checksum, WorkerEngine, median, mdTable, cpuSnapshot, foreignLoad,
         commandLine, wholeNumber, positiveNumber, listOf, existingFile, outputDir } from './common.mjs';
import { selfCheck } from './plain.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// ------------------------------------------------------------------- options
const USAGE = 'usage: node bench/run.mjs [--quick] [--rounds R] [--ms T] [--maps softmax,...] [--n 3,64,512,4096]\n' +
  '                          [--out DIR] [--json out.json] [--api path/to/simplexity.js] [--native path/to/bench_native]\n' +
  '                          [--no-native]   (without the native build: no native column, no native checksums)\n' +
  'exit code 1: an output disagreed with plain.js or the native build (MISMATCH lines), or the native build is\n' +
  'missing or failed without --no-native; 2: a bad command line';
const { QUICK, ROUNDS, MS, OUT, JSON_OUT, API, NATIVE, NO_NATIVE, maps, ns } = commandLine('bench/run.mjs', USAGE, {
  quick: { type: 'boolean' }, rounds: { type: 'string' }, ms: { type: 'string' }, maps: { type: 'string' }, n: { type: 'string' },
  out: { type: 'string' }, json: { type: 'string' }, api: { type: 'string' }, native: { type: 'string' }, 'no-native': { type: 'boolean' },
}, (v, bad) => ({
  QUICK: Boolean(v.quick),
  ROUNDS: v.rounds === undefined ? (v.quick ? 2 : 5) : wholeNumber(v.rounds, '--rounds', bad),
  MS: v.ms === undefined ? (v.quick ? 30 : 150) : positiveNumber(v.ms, '--ms', bad),
  OUT: outputDir(v.out ?? path.join(root, 'build/bench'), '--out', bad),
  JSON_OUT: v.json ?? null,
  API: v.api === undefined ? null : existingFile(v.api, '--api', bad),   // another build of the JS API
  NATIVE: v.native === undefined ? path.join(root, 'build/bench/bench_native') : existingFile(v.native, '--native', bad),
  NO_NATIVE: v['no-native'] ? (v.native === undefined ? true : bad('--no-native and --native exclude each other')) : false,
  maps: v.maps === undefined ? MAPS : listOf(v.maps, '--maps', MAPS, bad),
  ns: v.n === undefined ? NS : listOf(v.n, '--n', NS, bad, Number),
}));
const RESULTS_MD = path.join(OUT, 'results.md');
const WARM_CALLS = QUICK ? 15 : 40, WARM_MS = QUICK ? 10 : 60, WARM_CAP = QUICK ? 60 : 400;
const cases = ns.flatMap((n) => maps.map((map) => ({ map, n })));
const key = (c) => `${c.map}/${c.n}`;

// ------------------------------------------------------------------- engines
const ENGINES = [
  { id: 'simd', title: 'SIMD wasm' },
  { id: 'scalar', title: 'scalar wasm' },
  { id: 'native', title: 'native C' },
  { id: 'plain', title: 'plain JS' },
  { id: 'tfjs', title: 'tfjs-wasm' },
  { id: 'nocopy', title: 'SIMD, no copies' },   // the API on WasmArrays (alloc()): x and out in wasm memory
  { id: 'mappings', title: 'mappings core' },   // the SIMD build of the mappings core (-Oz)
  { id: 'raw', title: 'SIMD kernel' },   // diagnostic: the export alone, no JS API copies
  { id: 'tfjs-kernel', title: 'tfjs kernel' },   // diagnostic: tf.softmax without dataSync
];
const notes = [];   // printed under the table

// One engine per worker thread (bench/engine.mjs), so every JS engine is its own module instance.
const JsEngine = function (kind) {
  return new WorkerEngine(new URL('./engine.mjs', import.meta.url),
    { kind, api: API ? pathToFileURL(path.resolve(API)).href : undefined });
};

async function startEngine(kind) {
  const e = new JsEngine(kind);
  try {
    await e.ready;
    const { info, maps: have } = await e.request({ op: 'info' });
    e.info = info;
    e.have = new Set(have);
    return e;
  } catch (err) {
    await e.close().catch(() => {});
    notes.push(`${kind}: not available (${String(err.message).split('\n')[0]})`);
    return null;
  }
}

// One invocation of bench_native: every (mapping, n) of `cs` once, `ms` each.
function runNative(ms, cs = cases) {
  if (NO_NATIVE || !existsSync(NATIVE)) return null;
  const cm = [...new Set(cs.map((c) => c.map))], cn = [...new Set(cs.map((c) => c.n))];
  const args = ['--ms', String(ms), '--n', cn.join(','), '--maps', cm.join(','),
                '--floats', String(FLOATS), '--rows3', String(ROWS3)];
  for (const m of cm) if (PARAMS[m]) args.push(`--${PARAMS[m].name}`, String(PARAMS[m].value));
  const r = spawnSync(NATIVE, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`bench_native failed (status ${r.status}): ${r.stderr.trim()}`);
  const out = new Map();
  for (const x of JSON.parse(r.stdout).results) out.set(`${x.map}/${x.n}`, x);
  return out;
}

// -------------------------------------------------------------- formatting
function rate(v) {
  if (v == null || !isFinite(v)) return '-';
  for (const [d, u] of [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']]) {
    if (v >= d) { const q = v / d; return `${q >= 100 ? q.toFixed(0) : q >= 10 ? q.toFixed(1) : q.toFixed(2)} ${u}`; }
  }
  return v.toFixed(0);
}
const ratio = (v) => (v == null || !isFinite(v) ? '-' : `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}x`);

// ---------------------------------------------------------------------- main
const t00 = performance.now();
const cpu0 = cpuSnapshot();
const cpu = os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
const header = `Simplexity bench: ${cpu}, ${os.cpus().length} CPUs, ${os.platform()} ${os.release()}, ` +
  `node ${process.version} (V8 ${process.versions.v8}), ${new Date().toISOString()}` +
  `${QUICK ? ' [--quick]' : ''}\n` +
  `method: ${ROUNDS} rounds x ${MS} ms per cell after warm-up, median over rounds; ` +
  `batch ~${FLOATS} floats per call (n=3: ${ROWS3} rows), scores ~ mean 0, sd 1; one thread`;
console.log(header);

// plain.js must be right before it is a baseline.
{
  const failures = selfCheck({ rows: QUICK ? 8 : 30 });
  if (failures.length) {
    console.error(`plain.js self-check failed:\n  ${failures.slice(0, 10).join('\n  ')}`);
    process.exit(1);
  }
}

const js = {};
for (const kind of ['simd', 'scalar', 'nocopy', 'mappings', 'plain', 'tfjs', 'raw', 'tfjs-kernel']) js[kind] = await startEngine(kind);
if (!js.simd) { console.error(`run.mjs: the SIMD build is required (${notes.join('; ')}); run make first`); process.exit(1); }
if (!js.plain) { console.error(`run.mjs: plain.js, the reference every engine is checked against, did not start (${notes.join('; ')})`); process.exit(1); }
for (const kind of ['simd', 'scalar', 'tfjs']) if (js[kind]) console.log(`${kind}: ${JSON.stringify(js[kind].info)}`);
if (js.simd && js.scalar && JSON.stringify(js.simd.info) === JSON.stringify(js.scalar.info) && Object.keys(js.simd.info).length)
  notes.push('warning: info() of the SIMD and the scalar engine are identical: is init({ simd: false }) honoured?');

let native0 = null;
if (NO_NATIVE) notes.push('native: left out (--no-native)');
else {
  try {
    native0 = runNative(1);
  } catch (e) { console.error(`run.mjs: ${e.message} (--no-native runs without it)`); process.exit(1); }
  if (!native0) {
    console.error(`run.mjs: ${path.relative(root, NATIVE)} not built: make ${path.relative(root, NATIVE)}, or --no-native to run without it`);
    process.exit(1);
  }
}

// ------------------------------------------------------------ correctness
// Every engine's output on the bench input against plain.js (max |difference|), native by checksum.
const TOL = { softmax: 2e-5, sparsemax: 2e-5, entmax15: 2e-5, entmax: 1e-4, fusedmax: 1e-4, oscarmax: 1e-4 };
const bad = new Set();   // `${engine}/${map}/${n}` that disagree: marked '!' in the table
const verifyLines = [];
for (const c of cases) {
  const ref = (await js.plain.request({ op: 'output', ...c })).y;
  const simdY = (await js.simd.request({ op: 'output', ...c })).y;
  const diffs = [];
  for (const kind of ['simd', 'scalar', 'nocopy', 'mappings', 'tfjs', 'raw', 'tfjs-kernel']) {
    const e = js[kind];
    if (!e || !e.have.has(c.map)) continue;
    const y = kind === 'simd' ? simdY : (await e.request({ op: 'output', ...c })).y;
    let d = y.length === ref.length ? 0 : Infinity;   // a short or empty output is a mismatch too
    for (let i = 0; i < y.length; i++) d = Math.max(d, Math.abs(y[i] - ref[i]));
    if (!(d <= TOL[c.map])) { bad.add(`${kind}/${key(c)}`); verifyLines.push(`MISMATCH ${kind} ${LABELS[c.map]} n=${c.n}: max |${kind} - plain| = ${d.toExponential(2)} > ${TOL[c.map]}`); }
    diffs.push(`${kind} ${d.toExponential(1)}`);
  }
  if (native0 && !native0.has(key(c))) {
    bad.add(`native/${key(c)}`);
    verifyLines.push(`MISMATCH native ${LABELS[c.map]} n=${c.n}: bench_native gave no result for this case`);
  } else if (native0) {
    const a = native0.get(key(c)).check, b = checksum(simdY);
    const rel = Math.abs(a - b) / Math.max(1, Math.abs(b));
    if (!(rel <= 1e-5)) { bad.add(`native/${key(c)}`); verifyLines.push(`MISMATCH native ${LABELS[c.map]} n=${c.n}: checksum ${a} vs SIMD wasm ${b}`); }
  }
}
const checked = ['simd', 'scalar', 'nocopy', 'mappings', 'tfjs', 'raw', 'tfjs-kernel'].filter((k) => js[k]);
const verifySummary = verifyLines.length ? verifyLines.join('\n')
  : `verify: ${checked.join(', ')} agree with plain.js on every case they run (tolerance 2e-5, 1e-4 for the iterative maps); ` +
    (native0 ? 'native checksums match the SIMD wasm outputs' : 'native not checked (--no-native)');
console.log(verifySummary);

// ------------------------------------------------------------------- warm-up
for (const c of cases) for (const kind of ['simd', 'scalar', 'nocopy', 'mappings', 'plain', 'tfjs', 'raw', 'tfjs-kernel']) {
  const e = js[kind];
  if (e && e.have.has(c.map)) await e.request({ op: 'warm', ...c, calls: WARM_CALLS, ms: WARM_MS, cap: WARM_CAP });
}

// ----------------------------------------------------------------- rounds
const samples = {};   // samples[engine][key] = [rows/s per round]
for (const e of ENGINES) samples[e.id] = {};
// Every cell of a case (the native one too: one short bench_native run per cell) measured back
// to back, so a per-round ratio compares figures taken a second apart.
const jsKinds = ['simd', 'scalar', 'nocopy', 'mappings', 'plain', 'tfjs', 'raw', 'tfjs-kernel'].filter((k) => js[k]);
const kinds = native0 ? [...jsKinds.slice(0, 2), 'native', ...jsKinds.slice(2)] : jsKinds;
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...cases].reverse() : cases;
  for (const c of order) {
    for (let j = 0; j < kinds.length; j++) {
      const kind = kinds[(j + r) % kinds.length];
      if (kind === 'native') {
        const v = runNative(MS, [c]).get(key(c));
        (samples.native[key(c)] ??= []).push(v.rows_per_s);
        continue;
      }
      const e = js[kind];
      if (!e.have.has(c.map)) continue;
      const { rps } = await e.request({ op: 'measure', ...c, ms: MS });
      (samples[kind][key(c)] ??= []).push(rps);
    }
  }
  process.stderr.write(`round ${r + 1}/${ROUNDS} done (${((performance.now() - t00) / 1000).toFixed(0)} s)\n`);
}
await Promise.all(jsKinds.map((k) => js[k].close()));

// ---------------------------------------------------------------- results
const med = (id, c) => median(samples[id][key(c)] ?? []);
// Median over rounds of the per-round ratio a/b (both measured in the same round).
function pairRatio(a, b, c) {
  const A = samples[a][key(c)], B = samples[b][key(c)];
  if (!A || !B) return null;
  return median(A.map((v, i) => (B[i] ? v / B[i] : null)));
}
function spread(id, c) {
  const s = samples[id][key(c)];
  if (!s || s.length < 2) return 0;
  return (Math.max(...s) - Math.min(...s)) / median(s);
}

const head = ['mapping', 'n', 'rows/call', ...ENGINES.map((e) => e.title),
              'SIMD/scalar', 'SIMD/plain', 'SIMD/native', 'SIMD/tfjs', 'no copies/native'];
const tableRows = [];
const results = [];
for (const c of cases) {
  const cell = (id) => {
    const v = med(id, c);
    return v == null ? '-' : rate(v) + (bad.has(`${id}/${key(c)}`) ? ' !' : '');
  };
  const row = {
    map: c.map, n: c.n, rows: rowsFor(c.n),
    rows_per_s: Object.fromEntries(ENGINES.map((e) => [e.id, med(e.id, c)])),
    samples: Object.fromEntries(ENGINES.map((e) => [e.id, samples[e.id][key(c)] ?? null])),
    ratios: { simd_scalar: pairRatio('simd', 'scalar', c), simd_plain: pairRatio('simd', 'plain', c),
              simd_native: pairRatio('simd', 'native', c), simd_tfjs: pairRatio('simd', 'tfjs', c),
              raw_native: pairRatio('raw', 'native', c), raw_simd: pairRatio('raw', 'simd', c),
              raw_tfjs_kernel: pairRatio('raw', 'tfjs-kernel', c),
              nocopy_native: pairRatio('nocopy', 'native', c), nocopy_simd: pairRatio('nocopy', 'simd', c),
              mappings_simd: pairRatio('mappings', 'simd', c) },
  };
  results.push(row);
  tableRows.push([LABELS[c.map], c.n, rowsFor(c.n), ...ENGINES.map((e) => cell(e.id)),
                  ratio(row.ratios.simd_scalar), ratio(row.ratios.simd_plain),
                  ratio(row.ratios.simd_native), ratio(row.ratios.simd_tfjs), ratio(row.ratios.nocopy_native)]);
}
const table = mdTable(head, tableRows, 2);

// Spread: the worst (max - min) / median over rounds of any cell.
let worst = { v: 0 };
for (const c of cases) for (const e of ENGINES) { const s = spread(e.id, c); if (s > worst.v) worst = { v: s, e: e.title, c }; }

// ---------------------------------------------------------------- targets
const get = (map, n) => results.find((r) => r.map === map && r.n === n);
const targets = [];
function target(name, value, ok, detail) {
  targets.push({ name, value, pass: value == null ? null : ok, detail });
}
for (const map of ['softmax', 'entmax15']) {
  const r = get(map, 512);
  target(`${map} n=512: SIMD >= 3x scalar wasm`, r?.ratios.simd_scalar, r?.ratios.simd_scalar >= 3, ratio(r?.ratios.simd_scalar));
  target(`${map} n=512: SIMD >= 8x plain JS`, r?.ratios.simd_plain, r?.ratios.simd_plain >= 8, ratio(r?.ratios.simd_plain));
}
for (const map of maps) {
  const rs = ns.map((n) => get(map, n)).filter((r) => r?.ratios.simd_native);
  const nat = rs.map((r) => ({ n: r.n, v: 1 / r.ratios.simd_native, k: r.ratios.raw_native ? 1 / r.ratios.raw_native : null }));
  const worstN = nat.reduce((a, b) => (b.v > (a?.v ?? -1) ? b : a), null);
  target(`${map}: native/SIMD <= 1.2 at every n`, worstN?.v, nat.every((x) => x.v <= 1.2),
         nat.map((x) => `n=${x.n} ${x.v.toFixed(2)}`).join(', ') +
         (nat.some((x) => x.k) ? `   [native/kernel-only: ${nat.map((x) => (x.k ? x.k.toFixed(2) : '-')).join(', ')}]` : ''));
}
if (maps.includes('softmax')) {
  const rs = ns.map((n) => get('softmax', n)).filter((r) => r?.ratios.simd_tfjs);
  target('softmax: SIMD >= tfjs-backend-wasm at every n', rs.length ? Math.min(...rs.map((r) => r.ratios.simd_tfjs)) : null,
         rs.every((r) => r.ratios.simd_tfjs >= 1), rs.map((r) => `n=${r.n} ${ratio(r.ratios.simd_tfjs)}`).join(', ') +
         (rs.some((r) => r.ratios.raw_tfjs_kernel) ? `   [kernel vs kernel, no copies: ${rs.map((r) => ratio(r.ratios.raw_tfjs_kernel)).join(', ')}]` : ''));
}
{
  const r = get('sparsemax', 512);
  target('sparsemax n=512: SIMD >= 0.9 M rows/s', r?.rows_per_s.simd, r?.rows_per_s.simd >= 0.9e6, rate(r?.rows_per_s.simd));
}
for (const map of ['softmax', 'sparsemax', 'entmax15']) {
  const r = get(map, 3);
  target(`${map} n=3 batched: SIMD >= 50 M rows/s`, r?.rows_per_s.simd, r?.rows_per_s.simd >= 50e6, rate(r?.rows_per_s.simd));
}
// issue 14: alpha-entmax (a = 1.3, the general solver) at n = 3 within 3x of 1.5-entmax's time per row,
// the median of the per-round ratios (same engine, same round), SIMD (native alongside)
{
  const e = { map: 'entmax', n: 3 }, e15 = { map: 'entmax15', n: 3 };
  const cost = (id) => {
    const A = samples[id][key(e)], B = samples[id][key(e15)];
    return A && B ? median(A.map((v, i) => (v && B[i] ? B[i] / v : null))) : null;
  };
  const simd = cost('simd'), nat = cost('native');
  target('entmax a=1.3 n=3 batched: SIMD time per row within 3x of 1.5-entmax\'s (issue 14)', simd, simd <= 3,
         `${ratio(simd)} (native ${ratio(nat)}); ${rate(get('entmax', 3)?.rows_per_s.simd)} vs ${rate(get('entmax15', 3)?.rows_per_s.simd)} rows/s`);
}
// issue 14: the API on WasmArrays (no copies) against native C, at every n >= 64, and at n = 3
for (const map of maps) {
  const rs = ns.filter((n) => n >= 64).map((n) => get(map, n)).filter((r) => r?.ratios.nocopy_native);
  if (!rs.length) continue;
  target(`${map}: no copies (WasmArray) / native >= 0.9 at every n >= 64 (issue 14)`, Math.min(...rs.map((r) => r.ratios.nocopy_native)),
         rs.every((r) => r.ratios.nocopy_native >= 0.9),
         rs.map((r) => `n=${r.n} ${ratio(r.ratios.nocopy_native)} (with copies ${ratio(r.ratios.simd_native)})`).join(', '));
}
for (const map of ['softmax', 'sparsemax', 'entmax15']) {
  const r = get(map, 3);
  if (!r || r.rows_per_s.nocopy == null) continue;
  target(`${map} n=3 batched, no copies: >= 150 M rows/s (issue 14)`, r.rows_per_s.nocopy, r.rows_per_s.nocopy >= 150e6,
         `${rate(r.rows_per_s.nocopy)} (with copies ${rate(r.rows_per_s.simd)})`);
}
// the mappings core is compiled for size: what that costs, reported (not a target)
{
  const rs = results.filter((r) => r.ratios.mappings_simd);
  if (rs.length) notes.push('mappings core (-Oz) / full core (-O3), rows/s, SIMD: ' +
    rs.map((r) => `${LABELS[r.map]} n=${r.n} ${ratio(r.ratios.mappings_simd)}`).join(', '));
}
const targetLines = targets.map((t) => `${t.pass == null ? 'n/a ' : t.pass ? 'PASS' : 'MISS'}  ${t.name}: ${t.detail || '-'}`);
const nPass = targets.filter((t) => t.pass).length, nMiss = targets.filter((t) => t.pass === false).length;

const load = foreignLoad(cpu0, cpuSnapshot());
if (load != null) notes.push(`other processes used ${(load * 100).toFixed(0)}% of the machine's CPU during the run` +
  (load > 0.1 ? ' - WARNING: the machine was busy; absolute figures are unreliable, rerun when it is quiet' : ' (quiet)'));
const footer = [
  'rows/s, median over rounds; ratios are medians of per-round ratios (same round, same inputs).',
  'SIMD/scalar/plain/tfjs: through their JS APIs with `out` reused (tfjs: tf.softmax on a [rows, n] tensor + dataSync, softmax only); native: the C API on the same batch, no JS.',
  'SIMD kernel (diagnostic): the SIMD .wasm export called on data already in wasm memory, no JS API and no copies; SIMD kernel vs SIMD wasm is the cost of the API\'s copies; tfjs kernel (diagnostic): tf.softmax without the dataSync readback.',
  `worst round-to-round spread: ${(worst.v * 100).toFixed(0)}%${worst.c ? ` (${worst.e}, ${LABELS[worst.c.map]} n=${worst.c.n})` : ''}; '!' marks an output that disagreed with plain.js.`,
  ...notes,
].join('\n');
const md = `${header}\n${verifySummary}\n\n${table}\n\n${footer}\n\nTargets (${nPass} PASS, ${nMiss} MISS):\n${targetLines.join('\n')}\n`;
console.log(`\n${table}\n\n${footer}\n\nTargets (${nPass} PASS, ${nMiss} MISS):\n${targetLines.join('\n')}`);
console.log(`\n${((performance.now() - t00) / 1000).toFixed(0)} s; table written to ${path.relative(process.cwd(), RESULTS_MD)}`);

mkdirSync(path.dirname(RESULTS_MD), { recursive: true });
writeFileSync(RESULTS_MD, md);
if (JSON_OUT) {
  mkdirSync(path.dirname(path.resolve(JSON_OUT)), { recursive: true });
  writeFileSync(JSON_OUT, JSON.stringify({
    header, cpu, node: process.version, v8: process.versions.v8, date: new Date().toISOString(),
    quick: QUICK, rounds: ROUNDS, ms: MS, params: PARAMS, engines: Object.fromEntries(jsKinds.map((k) => [k, js[k].info])),
    verify: verifyLines, notes, foreign_cpu_share: load, results, targets,
  }, null, 2));
  console.log(`results saved to ${JSON_OUT}`);
}
if (verifyLines.length) {
  console.error(`run.mjs: ${verifyLines.length} verification mismatch(es): an engine disagreed with the reference ` +
    `(the MISMATCH lines above; '!' in the table)\n${verifyLines.join('\n')}`);
  process.exit(1);
}
