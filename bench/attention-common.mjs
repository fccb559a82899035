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
export const DHEADS = [64, 16, 8];
// d_head 8 (the shipped models' heads) runs softmax alone: issue 14's small-heads target
export const mapsFor = (dh) => (dh === 8 ? ['softmax'] : MAPS);

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

// Attention under a sparsity pattern (issue 13) against dense attention: one head of d_head 64,
// self-attention n x n, per pattern kind and mapping; case pat:<kind>:<mapping>:<n>, kind
// "dense" being attention() / sx_attention without a pattern. Each pattern's size grows with n
// as in its paper: a window of 2 * 32 + 1 keys; Sparse Transformer's l = sqrt(n) (fixed: c = l / 8
// summary positions); Reformer's chunks of 64 with n / 64 buckets, one hash round.
// bench_attention.c's pattern_of() is the same table.
export const PATTERN_KINDS = ['dense', 'local', 'strided', 'fixed', 'lsh'];
export const PATTERN_MAPS = ['softmax', 'entmax15'];
export const PATTERN_NS = [256, 1024, 4096];
export const PATTERN_NS_QUICK = [256, 1024];
export const PATTERN_DH = 64;
export function patternOf(kind, n) {
  const l = Math.round(Math.sqrt(n));
  switch (kind) {
    case 'dense': return null;
    case 'local': return { kind, width: 32 };
    case 'strided': return { kind, stride: l };
    case 'fixed': return { kind, block: l, summary: Math.max(1, Math.floor(l / 8)) };
    case 'lsh': return { kind, chunk: 64, buckets: Math.max(2, Math.floor(n / 64)), rounds: 1, seed: 1 };
    default: throw new Error(`patternOf: unknown pattern ${kind}`);
  }
}
