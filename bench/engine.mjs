// engine.mjs - one implementation under test, in its own worker thread (so the SIMD and the scalar
// builds are separate module instances with their own memoised init, and each engine's JIT state
// is its own). run.mjs sends it one request at a time and waits; only one engine runs at a time.
//
//   workerData.kind: 'simd' | 'scalar' (dist/simplexity.js, or workerData.api), 'mappings' (the
//                    SIMD build of the mappings core, -Oz), 'plain' (bench/plain.js),
//                    'nocopy' (the SIMD build's API on WasmArrays: alloc()'d x and out, no copies),
//                    'raw' (the SIMD .wasm's exports on data already in wasm memory: a diagnostic),
//                    'tfjs' (@tensorflow/tfjs-backend-wasm, softmax only, one thread, + dataSync),
//                    'tfjs-kernel' (the same without the readback: a diagnostic)
//   requests:  { op: 'info' }
//              { op: 'output', map, n }         -> the output on the bench input (a copy)
//              { op: 'warm', map, n, calls, ms, cap } -> warm-up calls
//              { op: 'measure', map, n, ms }    -> rows per second
import { parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { MAPS, NS, PARAMS, rowsFor, scores, measure } from './common.mjs';

const kind = workerData.kind;
const inputs = new Map(NS.map((n) => [n, scores(n)]));
const outs = new Map(NS.map((n) => [n, new Float32Array(rowsFor(n) * n)]));
let calls = {};   // calls[map](x, n, out) -> out
let info = {};

if (kind === 'simd' || kind === 'scalar' || kind === 'mappings') {
  const api = await import(workerData.api ?? new URL('../dist/simplexity.js', import.meta.url).href);
  await api.init(kind === 'scalar' ? { simd: false } : kind === 'mappings' ? { core: 'mappings' } : undefined);
  info = typeof api.info === 'function' ? api.info() : {};
  for (const map of MAPS) {
    const f = api[map], p = PARAMS[map];
    if (typeof f !== 'function') continue;
    calls[map] = p ? (x, n, out) => f(x, { n, [p.name]: p.value, out })
                   : (x, n, out) => f(x, { n, out });
  }
} else if (kind === 'nocopy') {
  // The JS API on WasmArrays (alloc()): x and out already in wasm memory, so the call copies
  // nothing; (nocopy) / (native) is the API's cost without its copies.
  const api = await import(workerData.api ?? new URL('../dist/simplexity.js', import.meta.url).href);
  await api.init();
  const bufs = new Map();
  for (const n of NS) {
    const len = rowsFor(n) * n, x = api.alloc(len), out = api.alloc(len);
    x.array.set(inputs.get(n));
    bufs.set(n, { x, out });
  }
  for (const map of MAPS) {
    const f = api[map], p = PARAMS[map];
    if (typeof f !== 'function') continue;
    calls[map] = p ? (_x, n) => { const b = bufs.get(n); f(b.x, { n, [p.name]: p.value, out: b.out }); return b.out.array; }
                   : (_x, n) => { const b = bufs.get(n); f(b.x, { n, out: b.out }); return b.out.array; };
  }
  info = { ...api.info(), impl: 'the JS API on WasmArrays (no copies)' };
} else if (kind === 'raw') {
  // Diagnostic: the SIMD .wasm's exports called directly on buffers already in wasm memory, no
  // JS API and no copies per call. (SIMD wasm) / (raw) is the cost of the API's copies.
  const { readFile } = await import('node:fs/promises');
  const wasmUrl = new URL('simplexity-simd.wasm', workerData.api ?? new URL('../dist/simplexity.js', import.meta.url));
  let memory = null;
  const { instance } = await WebAssembly.instantiate(await readFile(wasmUrl),
    { env: { emscripten_notify_memory_growth: () => {} } });
  const ex = instance.exports;
  ex._initialize();
  memory = ex.memory;
  const bufs = new Map();
  for (const n of NS) {
    const len = rowsFor(n) * n, xp = ex.sx_malloc(4 * len), op = ex.sx_malloc(4 * len);
    if (!xp || !op) throw new Error('raw: sx_malloc failed');
    new Float32Array(memory.buffer, xp, len).set(inputs.get(n));
    bufs.set(n, { xp, op, len, rows: rowsFor(n) });
  }
  const view = (n) => { const b = bufs.get(n); return new Float32Array(memory.buffer, b.op, b.len); };
  for (const map of MAPS) {
    const f = ex[`sx_${map}`], p = PARAMS[map];
    if (typeof f !== 'function') continue;
    calls[map] = (x, n) => {
      const b = bufs.get(n);
      const st = p ? f(b.op, b.xp, b.rows, n, p.value, 1) : f(b.op, b.xp, b.rows, n, 1);
      if (st !== 0) throw new Error(`raw: sx_${map} returned ${st}`);
      return view(n);
    };
  }
  info = { impl: 'simplexity-simd.wasm exports, no JS API' };
} else if (kind === 'plain') {
  const plain = await import('./plain.js');
  for (const map of MAPS) {
    const p = PARAMS[map];
    calls[map] = (x, n, out) => plain[map](x, n, p ? p.value : 0, out);
  }
  info = { impl: 'bench/plain.js' };
} else if (kind === 'tfjs' || kind === 'tfjs-kernel') {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const dir = fileURLToPath(new URL('../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url));
  wasm.setWasmPaths(dir);
  wasm.setThreadsCount?.(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  const tensors = new Map(NS.map((n) => [n, tf.tensor2d(inputs.get(n), [rowsFor(n), n])]));
  // tf.softmax on a [rows, n] tensor already in the backend, result read back by dataSync
  // (which allocates a new array per call: tfjs has no `out`). 'tfjs-kernel' is a diagnostic:
  // the kernel alone (the wasm backend runs it synchronously), no readback.
  calls.softmax = kind === 'tfjs' ? (x, n, out) => {
    const y = tf.softmax(tensors.get(n));
    const d = y.dataSync();
    y.dispose();
    return d;
  } : (x, n, out) => {
    const y = tf.softmax(tensors.get(n));
    const d = out ? null : y.dataSync();   // `output` (out undefined) still returns the data
    y.dispose();
    return d;
  };
  info = { backend: tf.getBackend(), simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
           threads: tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? 'yes' : 1,
           version: tf.version_core };
}

function run(map, n) {
  const x = inputs.get(n), out = outs.get(n), f = calls[map];
  return () => f(x, n, out);
}

parentPort.on('message', (req) => {
  try {
    const { op, map, n } = req;
    if (op === 'info') return parentPort.postMessage({ info, maps: Object.keys(calls) });
    if (!calls[map]) return parentPort.postMessage({ missing: true });
    const call = run(map, n), rows = rowsFor(n);
    if (op === 'output') {
      const y = Float32Array.from(calls[map](inputs.get(n), n, undefined) ?? []);
      return parentPort.postMessage({ y }, [y.buffer]);
    }
    if (op === 'warm') {
      // at least `calls` calls and `ms` ms, but never past `cap` ms (slow cells tier up anyway)
      const t0 = performance.now();
      for (let i = 0, t = 0; (i < req.calls || t < req.ms) && (i === 0 || t < req.cap); i++) {
        call();
        t = performance.now() - t0;
      }
      return parentPort.postMessage({ ok: true });
    }
    if (op === 'measure') return parentPort.postMessage({ rps: measure(call, rows, req.ms) });
    throw new Error(`engine: unknown op ${op}`);
  } catch (e) {
    parentPort.postMessage({ error: `${e && e.stack || e}` });
  }
});
parentPort.postMessage({ ready: true });
