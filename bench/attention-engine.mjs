// attention-engine.mjs - one wasm build under test for bench/attention.mjs, in its own worker
// thread (so the SIMD and the scalar builds are separate module instances with their own
// memoised init and JIT state). attention.mjs sends one request at a time and waits.
//
//   workerData: { kind: 'simd' | 'scalar', api: URL of simplexity.js, peak: URL of peak-simd.wasm
//                 (SIMD only), heads, alpha, lambda, batch, task }
//   requests:   { op: 'info' }
//               { op: 'check', case }          -> { check, scale } of the first call's output
//               { op: 'warm', case, calls, ms }
//               { op: 'measure', case, ms }    -> { cpu_ms, wall_ms, calls } per call
// Cases as bench_attention.c names them: attn:<mapping>:<n>:<d_head>, model:<kind>:<forward|train>,
// pat:<pattern>:<mapping>:<n>, peak; and map:<mapping>:<n> (this engine only). Times are CPU time of the process (process.cpuUsage: the main thread waits meanwhile).
import { parentPort, workerData } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { normalish, PEAK_ITERS, MODEL_KINDS, PATTERN_DH, patternOf } from './attention-common.mjs';

const { kind, heads, alpha, lambda, batch, task } = workerData;
const api = await import(workerData.api);
await api.init({ simd: kind === 'simd' });
const info = api.info();

let peak = null;
if (workerData.peak) {
  const { instance } = await WebAssembly.instantiate(await readFile(new URL(workerData.peak)),
    { env: { emscripten_notify_memory_growth() {} } });
  peak = instance.exports.sx_bench_peak;
}

// ------------------------------------------------------------------------- cases
const built = new Map();   // case -> { run(), check(), dispose() }

function attnCase(map, n, dh) {
  const width = heads * dh, count = n * width;
  const seed = 7000 + n * 10 + dh;   // bench_attention.c's seeds
  const q = normalish(count, seed), k = normalish(count, seed + 1), v = normalish(count, seed + 2);
  const out = new Float32Array(count);
  const opts = { tq: n, heads, mapping: map, out };
  if (map === 'entmax') opts.alpha = alpha;
  if (map === 'fusedmax') opts.lambda = lambda;
  return {
    run: () => api.attention(q, k, v, opts),
    check() {
      const o = api.attention(q, k, v, { ...opts, out: undefined });
      let check = 0, scale = 0;
      for (let i = 0; i < o.length; i++) { check += o[i] * (i % 7 + 1); scale += Math.abs(o[i]) * (i % 7 + 1); }
      return { check, scale };
    },
  };
}

// pat:<kind>:<mapping>:<n>: one head of d_head 64 under a pattern (kind dense: no pattern); its
// check also returns the pattern's pair fraction (attentionPattern) for the table.
function patCase(kindName, map, n) {
  const dh = PATTERN_DH, count = n * dh;
  const seed = 9000 + n;   // bench_attention.c's seeds
  const q = normalish(count, seed), k = normalish(count, seed + 1), v = normalish(count, seed + 2);
  const out = new Float32Array(count);
  const pattern = patternOf(kindName, n);
  const opts = { tq: n, mapping: map, out, ...(pattern ? { pattern } : {}) };
  return {
    run: () => api.attention(q, k, v, opts),
    check() {
      const o = api.attention(q, k, v, { ...opts, out: undefined });
      let check = 0, scale = 0;
      for (let i = 0; i < o.length; i++) { check += o[i] * (i % 7 + 1); scale += Math.abs(o[i]) * (i % 7 + 1); }
      const r = pattern ? api.attentionPattern(n, pattern, { k }) : { fraction: 1, pairs: n * n };
      return { check, scale, fraction: r.fraction, pairs: r.pairs };
    },
  };
}

function modelCase(mk, what) {
  const config = { task, dModel: 32, heads: 4, layers: 2, dFF: 64, attention: MODEL_KINDS[mk].attention,
                   span: MODEL_KINDS[mk].span, spanRamp: 3, seed: 1, maxBatch: batch,
                   spanPenalty: 0.002, clip: 1, alphaLr: 10 };   // tools/train.c's defaults
  const data = api.tasks.generate(task, { seed: 1, count: batch, split: 'train' });
  const [B, T] = data.shape;
  const din = new Int32Array(B * (T - 1));
  for (let r = 0; r < B; r++) din.set(data.tgt.subarray(r * T, r * T + T - 1), r * (T - 1));
  let model = new api.Model(config);
  const fresh = () => { model.free(); model = new api.Model(config); };
  const forward = () => model.forward(data.src, din, { count: B, attention: false });
  const train = () => model.trainStep(data, { lr: 3e-3 });
  return {
    fresh,
    run: what === 'forward' ? forward : train,
    check() {
      fresh();
      if (what === 'train') { const loss = model.loss(data); return { check: loss, scale: Math.abs(loss) }; }
      const { logits } = forward();
      let check = 0, scale = 0;
      for (let i = 0; i < logits.length; i++) { check += logits[i] * (i % 7 + 1); scale += Math.abs(logits[i]) * (i % 7 + 1); }
      return { check, scale };
    },
    dispose: () => model.free(),
  };
}

// map:softmax:<n>: softmax alone on the scores of one attention call (heads x n rows of n,
// normal like q.k / sqrt(d_head) of the attention cases), in wasm memory (no copies): the part of
// softmax attention's time that does not shrink with d_head.
function mapCase(map, n) {
  const count = heads * n * n;
  const x = api.alloc(count), out = api.alloc(count);
  x.array.set(normalish(count, 8000 + n));
  const opts = { n, out };
  return {
    run: () => api[map](x, opts),
    check() {
      api[map](x, opts);
      let check = 0;
      for (let i = 0; i < count; i++) check += out.array[i] * (i % 7 + 1);
      return { check, scale: check };
    },
    dispose() { x.free(); out.free(); },
  };
}

let peakSink = 0;
const peakCase = peak && { run: () => { peakSink += peak(PEAK_ITERS, 1, 0); }, check: () => ({ check: PEAK_ITERS * 48, scale: 0 }) };
function getCase(name) {
  if (name === 'peak' && peakCase) return peakCase;   // measured between the other cases' calls
  if (built.has(name)) return built.get(name);
  const f = name.split(':');
  let c;
  if (f[0] === 'attn') c = attnCase(f[1], Number(f[2]), Number(f[3]));
  else if (f[0] === 'model') c = modelCase(f[1], f[2]);
  else if (f[0] === 'pat') c = patCase(f[1], f[2], Number(f[3]));
  else if (f[0] === 'map') c = mapCase(f[1], Number(f[2]));
  else throw new Error(`attention-engine (${kind}): unknown case ${name}`);
  // one case lives at a time: the n = 512 inputs and the models are not small
  for (const [k, old] of built) { old.dispose?.(); built.delete(k); }
  built.set(name, c);
  return c;
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

parentPort.on('message', (req) => {
  try {
    if (req.op === 'info') return parentPort.postMessage({ info, peak: !!peak, width: api.tasks.width(task) });
    const c = getCase(req.case);
    if (req.op === 'check') return parentPort.postMessage(c.check());
    if (req.op === 'warm') {
      c.fresh?.();
      const t0 = cpuMs();
      for (let i = 0; i < req.calls || cpuMs() - t0 < req.ms; i++) c.run();
      return parentPort.postMessage({ ok: true });
    }
    if (req.op === 'measure') {
      c.fresh?.();   // a training measurement starts from the fresh model, as the native one
      let calls = 0;
      const c0 = cpuMs(), w0 = performance.now();
      let t;
      do { c.run(); calls++; t = cpuMs(); } while (t - c0 < req.ms);
      const w = performance.now();
      return parentPort.postMessage({ cpu_ms: (t - c0) / calls, wall_ms: (w - w0) / calls, calls });
    }
    throw new Error(`attention-engine: unknown op ${req.op}`);
  } catch (e) {
    parentPort.postMessage({ error: `${e && e.stack || e}` });
  }
});
parentPort.postMessage({ ready: true, sink: peakSink });
