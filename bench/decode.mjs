// decode.mjs - `make bench-decode`: greedy decoding tokens/s with the KV cache (model.generate,
// incremental: step t runs the decoder for position t only) and without it (generate with
// { cache: false }: the whole decoder over the prefix at every step), in the SIMD and the scalar
// wasm builds through the public API; the ratio cached / full is measured in the same run.
//
//   node bench/decode.mjs [--rounds R] [--ms T]     (defaults 5 rounds of 300 ms per cell)
//
// Cases: the shipped model size (d_model 32, 4 heads, 2 + 2 layers, d_ff 64, learned alpha) on
// a shipped checkpoint (reverse-alpha, max_len 12, 64 held-out examples per call, rows end at
// EOS as they do on the page); and the same sizes at max_len 32 and 128 (random weights with
// the EOS logit pushed down, so every row runs to max_len: t = 1 .. T - 1; batch 8, source
// length T), where the full recomputation is O(T^2) decoder rows against O(T) with the cache.
// tokens/s counts the generated tokens (BOS excluded, EOS included, PAD not). Method for a noisy
// 2-core shared machine: the two variants alternate within each round, each for T ms of CPU
// time (process.cpuUsage); the table shows the median tokens/s over rounds and the median of the
// per-round ratios. Outputs are checked equal first (tests/js/kvcache.test.mjs does it fully).
import { readFileSync } from 'node:fs';
import { register } from 'node:module';

// Two instances of the library, one per build (tools/instances.mjs carries ?instance= to its imports).
register(new URL('../tools/instances.mjs', import.meta.url));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!(v > 0)) { console.error(`decode.mjs: ${name} takes a positive number (got '${process.argv[i + 1]}')`); process.exit(2); }
  return v;
};
const ROUNDS = arg('--rounds', 5), MS = arg('--ms', 300);
const dist = new URL('../dist/', import.meta.url);

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** A float32 checkpoint of m with out_b[EOS] set to v (the FNV-1a checksum recomputed). */
function withEosBias(m, v) {
  const b = m.save();
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const nCfg = dv.getUint32(8, true), nF = dv.getUint32(12, true);
  const { vocab: V, dModel: C } = m.config;
  dv.setFloat32(20 + 4 * (nCfg + nF) + 4 * (V * C + C * V + 2), v, true); // wte, out_w, out_b[EOS]
  let h = 2166136261;
  for (let i = 0; i < b.length - 4; i++) h = Math.imul(h ^ b[i], 16777619) >>> 0;
  dv.setUint32(b.length - 4, h, true);
  return b;
}

function timeIt(f) { // calls/ms of CPU time, and the tokens of one call
  let n = 0, tok = 0;
  const t0 = cpuMs();
  let t = t0;
  while (t - t0 < MS) { tok = f(); n++; t = cpuMs(); }
  return { perCall: (t - t0) / n, tok };
}

const countTokens = (rows) => rows.reduce((s, r) => { let k = 0; for (let j = 1; j < r.length && r[j] !== 0; j++) k++; return s + k; }, 0);

const lines = [];
for (const simd of [true, false]) {
  const sx = await import(new URL(`simplexity.js?instance=${simd ? 'simd' : 'scalar'}`, dist).href);
  await sx.init({ simd });
  const { Model, tasks } = sx;
  const cases = [];
  {
    const m = Model.load(readFileSync(new URL('models/reverse-alpha.sxm', dist)));
    const { src } = tasks.generate('reverse', { seed: 5, count: 64, split: 'heldout' });
    cases.push({ name: 'shipped reverse-alpha, max_len 12, batch 64', m, src, count: 64 });
  }
  for (const T of [32, 128]) {
    const r = new Model({ task: 'reverse', maxLen: T, attention: 'entmax-learned', seed: 3, maxBatch: 8 });
    const m = Model.load(withEosBias(r, -1e3));
    r.free();
    const src = new Int32Array(8 * T);
    for (let i = 0; i < src.length; i++) src[i] = 3 + ((i * 7919) % (m.config.vocab - 3));
    cases.push({ name: `shipped sizes, max_len ${T}, batch 8 (rows run to max_len)`, m, src, count: 8 });
  }
  for (const c of cases) {
    const cached = () => countTokens(c.m.generate(c.src, { count: c.count }));
    const full = () => countTokens(c.m.generate(c.src, { count: c.count, cache: false }));
    const a = c.m.generate(c.src, { count: c.count }), b = c.m.generate(c.src, { count: c.count, cache: false });
    if (JSON.stringify(a.map((x) => [...x])) !== JSON.stringify(b.map((x) => [...x]))) throw new Error(`${c.name}: outputs differ`);
    for (let i = 0; i < 3; i++) { cached(); full(); } // warm-up
    const tc = [], tf = [], ratio = [];
    for (let r = 0; r < ROUNDS; r++) {
      const x = r % 2 ? [timeIt(full), timeIt(cached)].reverse() : [timeIt(cached), timeIt(full)];
      const cps = (x[0].tok / x[0].perCall) * 1000, fps = (x[1].tok / x[1].perCall) * 1000;
      tc.push(cps); tf.push(fps); ratio.push(cps / fps);
    }
    lines.push(`| ${simd ? 'SIMD' : 'scalar'} | ${c.name} | ${median(tc).toFixed(0)} | ${median(tf).toFixed(0)} | ${median(ratio).toFixed(2)}x |`);
    c.m.free();
  }
}
console.log(`decode bench: ${ROUNDS} rounds x ${MS} ms per cell, median tokens/s (CPU time), node ${process.version}`);
console.log('| build | case | tokens/s with cache | tokens/s full recomputation | cache / full |');
console.log('|---|---|---|---|---|');
for (const l of lines) console.log(l);
