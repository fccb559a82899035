// attention-common.mjs - what bench/attention.mjs, its engine workers and bench_attention.c agree
// on: the cases, the mappings' parameters, the input generator (bit-identical to
// bench_attention.c's fill_normalish), the peak probe's size, the model kinds.
import { mulberry32 } from './common.mjs';

export const MAPS = ['softmax', 'sparsemax', 'entmax15', 'entmax', 'fusedmax'];
export const LABELS = { softmax: 'softmax', sparsemax: 'sparsemax', entmax15: 'entmax15',
                        entmax: 'entmax a=1.3', fusedmax: 'fusedmax l=0.5' };
export const ALPHA = 1.3;    // not 1, 1.5 or 2: the general-alpha solver
export const LAMBDA = 0.5;
export const HEADS = 4;
export const NS = [128, 512];
// d_head 64: the and PERFORMANCE.md's reference shape (4 heads, softmax(QK^T / sqrt d) V
// with d = 64 per head: 4 n^2 d flops per head is what their 32-34 GFLOP/s count); d_head 16:
// d = 64 read as the model width (4 heads of 16).
export const DHEADS = [64, 16];

// The shipped config (README "Shipped models", tools/train.c): per attention kind.
export const MODEL_KINDS = {
  softmax: { attention: 'softmax', span: 0 },
  entmax15: { attention: 'entmax15', span: 0 },
  alpha: { attention: 'entmax-learned', span: 0 },
  'alpha-span': { attention: 'entmax-learned', span: true },
};
export const TASK = 'reverse';
export const BATCH = 64;     // tools/train.c's --batch default

export const PEAK_ITERS = 200000;   // bench_attention.c's PEAK_ITERS: 48 flops per iteration

// count values with mean 0 and standard deviation 1 (sum of four uniforms, exact in double):
// q and k like this give scores q.k / sqrt(d_head) of standard deviation 1.
export function normalish(count, seed) {
  const x = new Float32Array(count), u = mulberry32(seed);
  for (let i = 0; i < count; i++) x[i] = (u() + u() + u() + u() - 2) * Math.sqrt(3);
  return x;
}
