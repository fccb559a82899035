// flat.mjs - `make bench-attention` (issue 26): alpha-entmax attention on flat score rows against
// softmax attention on the same inputs, in the SIMD wasm build through the public API (4 heads,
// self-attention n x n, `out` reused). Input families: normal (q, k, v ~ sd 1, the inputs of
// bench/attention.mjs), small (q and k scaled by 1/4: scores of sd 1/16, a model at
// initialisation) and const (every key the same vector plus 1e-3 noise: each row's scores equal
// up to tiny noise); alpha 1.1, 1.3, 1.7; n 128, 512; d_head 64, 16.
//
//   node bench/flat.mjs [--quick] [--rounds R] [--ms T] [--api path/to/simplexity.js]
// An unknown option or a bad value is an error (exit code 2); --help prints the usage.
// Exit code 1 on a MISMATCH: at n = 128, every case's attention output against a float64
// reference in this file (the scores, entmax by bisection, the weighted values) beyond 1e-5.
//
// Method: every case warmed up, then R rounds, each timing every case for T ms of CPU time
// (case order reversed between rounds); the ratio is the median over rounds of the per-round
// time / softmax attention's time on the same family, n and d_head. Targets (issue 26): on the
// flat families at alpha 1.3, at most 2x softmax attention at d_head 64 and 3x at d_head 16.
// A MISS line prints the floor: the mapping alone on the call's scores against the matmuls'
// time (softmax attention minus softmax alone on the same scores).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';
import { normalish } from './attention-common.mjs';
import { median, mdTable, commandLine, wholeNumber, positiveNumber, existingFile } from './common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: node bench/flat.mjs [--quick] [--rounds R] [--ms T] [--api path/to/simplexity.js]';
const { QUICK, ROUNDS, MS, API } = commandLine('bench/flat.mjs', USAGE, {
  quick: { type: 'boolean' }, rounds: { type: 'string' }, ms: { type: 'string' }, api: { type: 'string' },
}, (v, bad) => ({
  QUICK: Boolean(v.quick),
  ROUNDS: v.rounds === undefined ? (v.quick ? 1 : 3) : wholeNumber(v.rounds, '--rounds', bad),
  MS: v.ms === undefined ? (v.quick ? 20 : 150) : positiveNumber(v.ms, '--ms', bad),
  API: pathToFileURL(v.api === undefined ? path.join(root, 'dist/simplexity.js') : existingFile(v.api, '--api', bad)).href,
}));
const api = await import(API);
await api.init({ simd: true });

const HEADS = 4, NS = [128, 512], DHS = [64, 16], ALPHAS = [1.1, 1.3, 1.7];
const FAMILIES = ['normal', 'small', 'const'];

// ------------------------------------------------------------------ inputs
function inputs(family, n, dh) {
  const width = HEADS * dh, count = n * width, seed = 26000 + n * 10 + dh;
  const q = normalish(count, seed), v = normalish(count, seed + 2);
  let k = normalish(count, seed + 1);
  if (family === 'small') for (let i = 0; i < count; i++) { q[i] *= 0.25; k[i] *= 0.25; }
  if (family === 'const') {
    const base = normalish(width, seed + 3);
    for (let i = 0; i < count; i++) k[i] = base[i % width] + 1e-3 * k[i];
  }
  return { q, k, v };
}

// ------------------------------------------------------ float64 reference
function entmaxRef(z, alpha) {
  const n = z.length, a1 = alpha - 1, q = 1 / a1, X = z.map((x) => x * a1), m = Math.max(...X);
  let lo = m - 1, hi = m - Math.pow(1 / n, a1);
  const mass = (t) => X.reduce((s, x) => s + (x > t ? Math.pow(x - t, q) : 0), 0);
  for (let it = 0; it < 80; it++) { const mid = 0.5 * (lo + hi); if (mass(mid) > 1) lo = mid; else hi = mid; }
  const t = 0.5 * (lo + hi), s = mass(t);
  return X.map((x) => (x > t ? Math.pow(x - t, q) / s : 0));
}
function softmaxRef(z) {
  const m = Math.max(...z), e = z.map((x) => Math.exp(x - m)), s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}
function attentionRef({ q, k, v }, n, dh, alpha) {
  const width = HEADS * dh, out = new Float64Array(n * width), sc = 1 / Math.sqrt(dh);
  for (let h = 0; h < HEADS; h++) for (let i = 0; i < n; i++) {
    const z = new Array(n);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < dh; c++) s += q[i * width + h * dh + c] * k[j * width + h * dh + c];
      z[j] = s * sc;
    }
    const p = alpha === 1 ? softmaxRef(z) : entmaxRef(z, alpha);
    for (let j = 0; j < n; j++) for (let c = 0; c < dh; c++) out[i * width + h * dh + c] += p[j] * v[j * width + h * dh + c];
  }
  return out;
}

// ------------------------------------------------------------------- cases
const cases = [];
for (const family of FAMILIES) for (const dh of DHS) for (const n of NS) {
  for (const alpha of [1, ...ALPHAS]) cases.push({ family, dh, n, alpha, id: `${family}:${n}:${dh}:${alpha}` });
}
const made = new Map();
function opsOf(c) {
  const key = `${c.family}:${c.n}:${c.dh}`;
  if (!made.has(key)) made.set(key, inputs(c.family, c.n, c.dh));
  const x = made.get(key), out = new Float32Array(x.q.length);
  const opts = c.alpha === 1 ? { tq: c.n, heads: HEADS, mapping: 'softmax', out } : { tq: c.n, heads: HEADS, mapping: 'entmax', alpha: c.alpha, out };
  return { x, out, run: () => api.attention(x.q, x.k, x.v, opts) };
}
// the floor: softmax or entmax alone on one call's scores (4 heads x n rows of n), in wasm memory
function mapOf(c) {
  const x = made.get(`${c.family}:${c.n}:${c.dh}`), width = HEADS * c.dh, count = HEADS * c.n * c.n, sc = 1 / Math.sqrt(c.dh);
  const z = api.alloc(count), out = api.alloc(count);
  const s = new Float32Array(count);
  for (let h = 0; h < HEADS; h++) for (let i = 0; i < c.n; i++) for (let j = 0; j < c.n; j++) {
    let acc = 0;
    for (let d = 0; d < c.dh; d++) acc += x.q[i * width + h * c.dh + d] * x.k[j * width + h * c.dh + d];
    s[(h * c.n + i) * c.n + j] = acc * sc;
  }
  z.array.set(s);
  const run = c.alpha === 1 ? () => api.softmax(z, { n: c.n, out }) : () => api.entmax(z, { n: c.n, alpha: c.alpha, out });
  return { run, free() { z.free(); out.free(); } };
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
function measure(run, ms) {
  let calls = 0;
  const c0 = cpuMs();
  let t;
  do { run(); calls++; t = cpuMs(); } while (t - c0 < ms);
  return (t - c0) / calls;
}

// ------------------------------------------------------------------- main
console.log(`Simplexity flat-rows bench (issue 26): ${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'}, node ${process.version}, ` +
  `${new Date().toISOString()}${QUICK ? ' [--quick]' : ''}\nmethod: SIMD wasm (${API}), ${ROUNDS} round(s) x ${MS} ms CPU per case, ` +
  `${HEADS} heads, self-attention n x n, no mask; ratio = time / softmax attention on the same inputs, median of per-round ratios`);
const ops = new Map(cases.map((c) => [c.id, opsOf(c)]));
const mismatch = [];
for (const c of cases.filter((x) => x.n === 128)) {
  const o = ops.get(c.id);
  o.run();
  const ref = attentionRef(o.x, c.n, c.dh, c.alpha);
  let worst = 0;
  for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(o.out[i] - ref[i]));
  if (!(worst <= 1e-5)) mismatch.push(`MISMATCH ${c.id}: max abs error ${worst.toExponential(2)} against the float64 reference`);
}
console.log(mismatch.length ? mismatch.join('\n') : 'verify: every n = 128 case within 1e-5 of the float64 reference');
for (const c of cases) for (let i = 0; i < 3; i++) ops.get(c.id).run();
const times = new Map(cases.map((c) => [c.id, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const c of r % 2 ? [...cases].reverse() : cases) times.get(c.id).push(measure(ops.get(c.id).run, MS));
}
const soft = (c) => `${c.family}:${c.n}:${c.dh}:1`;
const ratioOf = (c) => median(times.get(c.id).map((t, r) => t / times.get(soft(c))[r]));
const rows = cases.map((c) => [c.family, c.alpha === 1 ? 'softmax' : `entmax a=${c.alpha}`, c.n, c.dh,
  `${median(times.get(c.id)).toFixed(3)} ms`, c.alpha === 1 ? '1' : `${ratioOf(c).toFixed(2)}x`]);
console.log(`\n${mdTable(['family', 'mapping', 'n', 'd_head', 'SIMD wasm', 'vs softmax attention'], rows, 2)}`);

const lines = [];
for (const c of cases.filter((x) => x.alpha === 1.3 && x.family !== 'normal')) {
  const limit = c.dh === 64 ? 2 : 3, ratio = ratioOf(c), pass = ratio <= limit;
  let detail = `${ratio.toFixed(2)}x`;
  if (!pass) {
    const m = mapOf(c), s = mapOf({ ...c, alpha: 1 });
    const tm = median([0, 1, 2].map(() => measure(m.run, MS))), ts = median([0, 1, 2].map(() => measure(s.run, MS)));
    const ta = median(times.get(soft(c)));
    detail += `; floor: entmax alone on the scores ${tm.toFixed(3)} ms, softmax alone ${ts.toFixed(3)} ms, the matmuls ` +
      `${(ta - ts).toFixed(3)} ms: at best ${((ta - ts + tm) / ta).toFixed(2)}x`;
    m.free(); s.free();
  }
  lines.push(`${pass ? 'PASS' : 'MISS'}  entmax a=1.3 attention on ${c.family} rows within ${limit}x of softmax attention, n=${c.n} d_head ${c.dh}: ${detail}`);
}
console.log(`\nTargets (issue 26):\n${lines.join('\n')}`);
if (mismatch.length) {
  console.error(`flat.mjs: ${mismatch.length} mismatch(es)`);
  process.exit(1);
}
