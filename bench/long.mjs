// long.mjs - long-sequence attention (issue 14, item 4): attention() on the tiled path
// (sx_attention_tiled: online softmax, sparse mappings a block of queries at a time, all-zero
// tiles skipped; O(n d) memory) against the path that holds the whole (n, n) map, and softmax
// attention in tfjs-backend-wasm and onnxruntime-web (one thread, its MatMul + Softmax + MatMul
// graph), self-attention of n = 1024 ... 16384 queries, one head of d_head 64, in Node with the
// SIMD build. Per case: the time per call, the wasm memory after a call (the module grows its
// memory: this is the peak), the process's peak RSS, for the sparse mappings the fraction of
// (64 x 64) tiles skipped as all zero; and ratios measured in this run: tiled / map path (time
// and memory), tfjs / tiled and onnxruntime / tiled for softmax.
//
//   node bench/long.mjs [--quick] [--ns 1024,2048,...] [--maps softmax,sparsemax,...]
//                       [--rounds R] [--out DIR]   (default build/bench: long.md, long.json)
//
// Inputs: "random" q, k, v of standard deviation 1 (scores of standard deviation 1: sparse
// supports spread over every key, so few tiles are all zero), and "local" q = k built from
// sinusoids of the position (scores peak at the diagonal and fall with |i - j|, as with
// positional attention: supports near the diagonal, most tiles skipped), the latter for
// sparsemax and 1.5-entmax only.
// Memory: each path in a child process of its own (node bench/long.mjs --case JSON), warmed up on
// n = 256, then one call at n. Times (a noisy shared machine): the engines compared in one child
// process, each warmed up and called once, then R rounds alternating them (each ~100 ms of calls,
// or one call; CPU time of the process, so time slices lost to other processes do not count),
// medians over rounds; the ratio is the median of the per-round ratios. Every
// engine's output is checked against the tiled path's (a weighted checksum, relative 1e-4).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { normalish } from './attention-common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const DH = 64;
const PARAMS = { entmax: { alpha: 1.3 }, fusedmax: { lambda: 0.5 } };
const LABEL = { softmax: 'softmax', sparsemax: 'sparsemax', entmax15: 'entmax15', entmax: 'entmax a=1.3',
                fusedmax: 'fusedmax l=0.5' };

// ------------------------------------------------------------------------ inputs
/** q, k, v (n, DH) of one kind, deterministic. */
function inputs(kind, n) {
  const v = normalish(n * DH, 9300 + n);
  if (kind === 'random') return { q: normalish(n * DH, 9100 + n), k: normalish(n * DH, 9200 + n), v };
  // local: q_i = k_i = a (sin(i w_c), cos(i w_c)), w_c = 10000^(-c / 32), plus a little noise:
  // q_i.k_j / 8 = a^2 / 8 sum_c cos((i - j) w_c)
  const q = new Float32Array(n * DH), noise = normalish(n * DH, 9400 + n), a = 2.5;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < DH / 2; c++) {
      const w = Math.pow(10000, -c / (DH / 2));
      q[i * DH + c] = a * Math.sin(i * w) + 0.1 * noise[i * DH + c];
      q[i * DH + c + DH / 2] = a * Math.cos(i * w) + 0.1 * noise[i * DH + c + DH / 2];
    }
  }
  return { q, k: q, v };
}

const checksum = (o) => {
  let s = 0, a = 0;
  for (let i = 0; i < o.length; i++) { s += o[i] * (i % 7 + 1); a += Math.abs(o[i]) * (i % 7 + 1); }
  return { sum: s, scale: a };
};

// -------------------------------------------------------------------- engines
/** { small (n = 256, to warm up), call (n), wasmBytes(), stats() } of one engine on inputs. */
async function engine(name, c, x) {
  const s = inputs(c.input, 256);
  if (name === 'tiled' || name === 'map') {
    const sx = await import(new URL('../dist/simplexity.js', import.meta.url).href);
    await sx.init({ simd: true });
    const opts = { mapping: c.mapping, tiled: name === 'tiled', ...PARAMS[c.mapping] };
    return {
      small: () => sx.attention(s.q, s.k, s.v, { ...opts, tq: 256 }),
      call: () => sx.attention(x.q, x.k, x.v, { ...opts, tq: c.n }),
      wasmBytes: () => sx.info().memoryBytes,
      stats: () => {
        if (name !== 'tiled') return {};
        const r = sx.attention(x.q, x.k, x.v, { ...opts, tq: c.n, tileStats: true });
        return { tiles: r.tiles, skipped: r.skipped };
      },
    };
  }
  if (name === 'tfjs') {
    const tf = await import('@tensorflow/tfjs-core');
    const tw = await import('@tensorflow/tfjs-backend-wasm');
    tw.setWasmPaths(path.join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist/'));
    tw.setThreadsCount?.(1);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
    await tf.ready();
    // its best form: K^T made once outside the timing (a transposed operand is 15x slower in
    // its matmul, PERFORMANCE.md); the result read back (dataSync), as ours is copied out
    const make = (y, n) => {
      const Q = tf.tensor2d(y.q, [n, DH]), Kt = tf.transpose(tf.tensor2d(y.k, [n, DH])), V = tf.tensor2d(y.v, [n, DH]);
      return () => {
        const o = tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(Q, Kt), 1 / Math.sqrt(DH))), V));
        const d = o.dataSync();
        o.dispose();
        return d;
      };
    };
    return { small: make(s, 256), call: make(x, c.n), wasmBytes: () => null, stats: () => ({}) };
  }
  if (name === 'ort') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    const make = async (y, n) => {
      const session = await ort.InferenceSession.create(attentionModel(n, DH),
        { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const feeds = { Q: new ort.Tensor('float32', y.q, [1, n, DH]), K: new ort.Tensor('float32', y.k, [1, n, DH]),
                      V: new ort.Tensor('float32', y.v, [1, n, DH]) };
      return async () => (await session.run(feeds)).O.data;
    };
    return { small: await make(s, 256), call: await make(x, c.n), wasmBytes: () => null, stats: () => ({}) };
  }
  throw new Error(`unknown engine ${name}`);
}

// --------------------------------------------------------------------- one case
// { engines: [name, ...], mapping, n, input, rounds, mem } -> JSON on stdout.
// mem: one engine, one call after the warm-up: its wasm memory, the process's peak RSS, the
// tiled path's counts. Otherwise: every engine warmed up and called once, then `rounds` rounds,
// each timing every engine (order alternated) for ~100 ms or one call; per engine the median
// time per call, and the median over rounds of each engine's time / the first engine's.
async function runCase(c) {
  const x = inputs(c.input, c.n);
  const es = [];
  for (const name of c.engines) es.push(await engine(name, c, x));
  const checks = [];
  for (const e of es) {
    for (let i = 0; i < 5; i++) await e.small();
    checks.push(checksum(await e.call())); // grows memory
  }
  if (c.mem) {
    return { wasmBytes: es[0].wasmBytes(), rssBytes: process.resourceUsage().maxRSS * 1024, check: checks[0],
             ...es[0].stats() };
  }
  const times = es.map(() => []), ratios = es.map(() => []);
  for (let r = 0; r < c.rounds; r++) {
    const t = [];
    for (let j = 0; j < es.length; j++) {
      const e = es[r % 2 ? es.length - 1 - j : j], idx = es.indexOf(e);
      let calls = 0;
      const t0 = performance.now(), c0 = process.cpuUsage();
      do { await e.call(); calls++; } while (performance.now() - t0 < 100);
      const c1 = process.cpuUsage(c0);
      t[idx] = (c1.user + c1.system) / 1000 / calls; // CPU ms: time slices lost to others do not count
    }
    t.forEach((v, i) => { times[i].push(v); ratios[i].push(v / t[0]); });
  }
  const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  return { ms: times.map(median), ratio: ratios.map(median), checks, rssBytes: process.resourceUsage().maxRSS * 1024 };
}

// ------------------------------------------------- onnxruntime's attention graph
// A minimal ONNX model, protobuf-encoded by hand: O = MatMul(Softmax(MatMul(Q, Transpose(K)) *
// 1/sqrt(d), axis -1), V), inputs Q, K, V (1, n, d), opset 17.
function attentionModel(n, d) {
  const enc = new TextEncoder();
  const varint = (x) => {
    const b = [];
    let v = BigInt.asUintN(64, BigInt(x));
    do { let y = Number(v & 0x7fn); v >>= 7n; if (v) y |= 0x80; b.push(y); } while (v);
    return b;
  };
  const key = (f, w) => varint((f << 3) | w);
  const int = (f, x) => [...key(f, 0), ...varint(x)];
  const bytes = (f, b) => [...key(f, 2), ...varint(b.length), ...b];
  const str = (f, s) => bytes(f, [...enc.encode(s)]);
  const float = (f, x) => [...key(f, 5), ...new Uint8Array(new Float32Array([x]).buffer)];
  const valueInfo = (name) => [...str(1, name), ...bytes(2, bytes(1, [...int(1, 1),
    ...bytes(2, [1, n, d].flatMap((x) => bytes(1, int(1, x))))]))];
  const node = (op, ins, outs, attrs = []) => bytes(1, [...ins.flatMap((s) => str(1, s)),
    ...outs.flatMap((s) => str(2, s)), ...str(4, op), ...attrs.flatMap((a) => bytes(5, a))]);
  const perm = [...str(1, 'perm'), ...int(20, 7), ...[0, 2, 1].flatMap((x) => int(8, x))];
  const axis = [...str(1, 'axis'), ...int(20, 2), ...int(3, -1)];
  const graph = [
    ...node('Transpose', ['K'], ['Kt'], [perm]), ...node('MatMul', ['Q', 'Kt'], ['S']),
    ...node('Mul', ['S', 'scale'], ['Ss']), ...node('Softmax', ['Ss'], ['P'], [axis]),
    ...node('MatMul', ['P', 'V'], ['O']), ...str(2, 'attention'),
    ...bytes(5, [...str(8, 'scale'), ...int(2, 1), ...float(4, 1 / Math.sqrt(d))]),
    ...bytes(11, valueInfo('Q')), ...bytes(11, valueInfo('K')), ...bytes(11, valueInfo('V')),
    ...bytes(12, valueInfo('O')),
  ];
  return new Uint8Array([...int(1, 8), ...bytes(8, [...str(1, ''), ...int(2, 17)]), ...bytes(7, graph)]);
}

// ---------------------------------------------------------------------- the run
const USAGE = 'usage: node bench/long.mjs [--quick] [--ns 1024,2048,...] [--maps softmax,sparsemax,...] [--rounds R] [--out DIR]';

function child(c) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--case', JSON.stringify(c)],
    { encoding: 'utf8', maxBuffer: 1 << 24 });
  const line = r.stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').filter((l) => /Error|error/.test(l))[0] ?? `exit ${r.status}` };
  }
}

async function main() {
  let v;
  try {
    ({ values: v } = parseArgs({ options: { quick: { type: 'boolean' }, ns: { type: 'string' },
      maps: { type: 'string' }, rounds: { type: 'string' }, out: { type: 'string' }, case: { type: 'string' },
      help: { type: 'boolean' } } }));
  } catch (e) {
    console.error(`long.mjs: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  if (v.help) return console.log(USAGE);
  if (v.case) {
    const c = JSON.parse(v.case);
    try {
      console.log(JSON.stringify(await runCase(c)));
    } catch (e) {
      console.log(JSON.stringify({ error: `${e.name}: ${e.message}`.slice(0, 200) }));
    }
    return;
  }
  const list = (s, what, ok) => s.split(',').map((x) => {
    if (!ok(x)) { console.error(`long.mjs: --${what}: bad value ${JSON.stringify(x)}\n${USAGE}`); process.exit(2); }
    return what === 'ns' ? Number(x) : x;
  });
  const quick = Boolean(v.quick);
  const NS = v.ns ? list(v.ns, 'ns', (x) => /^[1-9]\d*$/.test(x)) : quick ? [1024, 2048] : [1024, 2048, 4096, 8192, 16384];
  const MAPS = v.maps ? list(v.maps, 'maps', (x) => x in LABEL) : quick ? ['softmax', 'sparsemax'] : Object.keys(LABEL);
  const ROUNDS = v.rounds === undefined ? (quick ? 1 : 5) : Number(v.rounds);
  if (!(Number.isInteger(ROUNDS) && ROUNDS >= 1)) { console.error(`long.mjs: --rounds must be an integer >= 1 (got ${v.rounds})\n${USAGE}`); process.exit(2); }
  const OUT = v.out ?? path.join(root, 'build/bench');

  const rows = [], mb = (b) => (b == null ? 'n/a' : (b / 2 ** 20).toFixed(b < 2 ** 24 ? 1 : 0));
  const fmt = (x) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
  const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '-');
  const agree = (c, ref) => Math.abs(c.sum - ref.sum) <= 1e-4 * Math.max(1, ref.scale);
  const lines = [];
  const say = (s) => { lines.push(s); console.log(s); };
  say(`# Long-sequence attention (bench/long.mjs${quick ? ' --quick' : ''}): one head, d_head ${DH}, self-attention, SIMD build`);
  say(`node ${process.version}, ${new Date().toISOString()}; ${ROUNDS} round(s); memory: each path in a fresh process; times: the engines compared in one process, alternated, medians over rounds`);
  say('');
  say('| n | mapping | input | tiled ms | tiled wasm MB | tiled RSS MB | tiles skipped | map path ms | map wasm MB | map RSS MB | time tiled/map | memory map/tiled | tfjs ms | tfjs/tiled | ORT ms | ORT/tiled |');
  say('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  let bad = 0;
  const fail = (what, r) => { bad++; console.error(`long.mjs: ${what}: ${r.error}`); };
  for (const n of NS) {
    const cases = MAPS.map((m) => [m, 'random']);
    if (!quick) for (const m of ['sparsemax', 'entmax15']) if (MAPS.includes(m)) cases.push([m, 'local']);
    for (const [mapping, input] of cases) {
      const base = { mapping, n, input, rounds: ROUNDS };
      const what = `n ${n} ${mapping} ${input}`;
      const mt = child({ ...base, engines: ['tiled'], mem: true });
      const mm = child({ ...base, engines: ['map'], mem: true });
      if (mt.error) fail(`${what} tiled`, mt);
      const fits = !mm.error; // the map path: refused when its map does not fit 2 GiB
      if (mm.error && !/too large/.test(mm.error)) fail(`${what} map path`, mm);
      const pair = mt.error ? { error: 'skipped' } : child({ ...base, engines: fits ? ['tiled', 'map'] : ['tiled'] });
      if (!mt.error && pair.error) fail(`${what} timing`, pair);
      const others = {};
      if (mapping === 'softmax' && input === 'random' && !mt.error) {
        for (const e of ['tfjs', 'ort']) {
          others[e] = child({ ...base, engines: ['tiled', e] });
          if (others[e].error && !/memory|allocat|Aborted|too large|RangeError|bad_alloc/i.test(others[e].error)) fail(`${what} ${e}`, others[e]);
        }
      }
      // outputs agree with the tiled path's (checksums)
      const ref = mt.check;
      for (const [name, r, i] of [['map path', pair, 1], ['tfjs', others.tfjs, 1], ['ort', others.ort, 1]]) {
        if (r && !r.error && r.checks?.[i] && ref && !agree(r.checks[i], ref)) {
          bad++;
          console.error(`long.mjs: ${what}: ${name}'s output differs from the tiled path's (checksum ${r.checks[i].sum} vs ${ref.sum})`);
        }
      }
      const ok = (r) => r && !r.error;
      const skipped = mt.tiles ? `${(100 * mt.skipped / mt.tiles).toFixed(1)}%` : '-';
      const other = (r) => (r === undefined ? '- | -' : !ok(r) ? 'refused | -' : `${fmt(r.ms[1])} (RSS ${mb(r.rssBytes)} MB) | ${r.ratio[1].toFixed(2)}`);
      say(`| ${n} | ${LABEL[mapping]} | ${input} | ${ok(pair) ? fmt(pair.ms[0]) : 'failed'} | ${mb(mt.wasmBytes)} | ${mb(mt.rssBytes)} | ${mapping === 'softmax' ? '-' : skipped} | ` +
        `${fits && ok(pair) ? fmt(pair.ms[1]) : 'refused'} | ${fits ? mb(mm.wasmBytes) : '-'} | ${fits ? mb(mm.rssBytes) : '-'} | ` +
        `${fits && ok(pair) ? (1 / pair.ratio[1]).toFixed(2) : '-'} | ${fits && ok(mt) ? (mm.wasmBytes / mt.wasmBytes).toFixed(1) : '-'} | ` +
        `${other(others.tfjs)} | ${other(others.ort)} |`);
      rows.push({ n, mapping, input, tiledMemory: mt, mapMemory: mm, timing: pair, ...others });
    }
  }
  say('');
  say('"refused": the call fails (the whole map does not fit 2 GiB of wasm memory, or the engine ran out of memory).');
  say('time tiled/map < 1: the tiled path is faster; memory map/tiled: how many times more wasm memory the map path takes; tfjs/tiled, ORT/tiled > 1: they are slower (softmax only: they have no sparse mapping); their RSS: the peak of the process that ran them and the tiled path.');
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, 'long.md'), lines.join('\n') + '\n');
  writeFileSync(path.join(OUT, 'long.json'), JSON.stringify({ quick, ns: NS, maps: MAPS, rounds: ROUNDS, rows }, null, 1));
  if (bad) process.exit(1);
}

await main();
