// throughput.mjs - why to batch: one call per 3-vector vs 100 000 rows per call, as a ratio
// measured in this run (machines are noisy: compare the ratios, not the absolute times).
// Run: node examples/throughput.mjs [--scalar] [--reps 7]
import { init, info, sparsemax, softmax, entmax15 } from "simplexity";

const scalar = process.argv.includes("--scalar");
const repsArg = process.argv.indexOf("--reps");
const REPS = repsArg > 0 ? Number(process.argv[repsArg + 1]) : 3;
await init({ simd: !scalar });

const best = (f, iters) => {
  let b = Infinity;
  for (let r = 0; r < REPS; r++) {
    const t = performance.now();
    for (let i = 0; i < iters; i++) f();
    b = Math.min(b, (performance.now() - t) / iters);
  }
  return b; // ms per call
};

const x3 = new Float32Array([1.5, 0, 1]);
const out3 = new Float32Array(3);
const ROWS = 100_000;
const xb = Float32Array.from({ length: 3 * ROWS }, (_, i) => 2 * Math.sin(i));
const ob = new Float32Array(xb.length);

console.log(`${info().simd ? "SIMD" : "scalar"} build`);
for (const [name, f] of [["softmax", softmax], ["sparsemax", sparsemax], ["entmax15", entmax15]]) {
  for (let i = 0; i < 20_000; i++) f(x3, { out: out3 }); // let V8 optimise
  const single = best(() => f(x3, { out: out3 }), 200_000) * 1e6; // ns per call
  const batched = best(() => f(xb, { n: 3, out: ob }), 10) * 1e6 / ROWS; // ns per row
  console.log(`${name.padEnd(9)} one call per 3-vector ${single.toFixed(1)} ns, ` +
    `batched ${batched.toFixed(2)} ns per row (${(1e3 / batched).toFixed(0)} M rows/s), ` +
    `batching is ${(single / batched).toFixed(0)}x faster`);
}
