// simplexity.d.ts - TypeScript declarations for simplexity.js.
//
// Shapes: every mapping takes `rows * n` scores, row-major (n defaults to x.length: one row),
// and returns `rows * n` probabilities. Per-row reductions (entmaxAlphaGrad, tsallisEntropy)
// return `rows` values. Results are new Float32Arrays unless `out` is given (a Float32Array or a
// WasmArray, which the result is written into and which is returned).
//
// Errors: TypeError / RangeError for bad arguments (checked in JS before any wasm call; the
// message names the function, the argument and the value), SimplexityError for failures the C
// core reports (NaN / +Infinity scores, out of memory). On any error `out` is left untouched.
// A detached typed array is a TypeError (never an empty input); a size too large for one call
// (2 GiB of wasm memory, the core's temporaries included) a RangeError with the byte count.

/** Scores or probabilities: a Float32Array, a Float64Array (converted to float32), an array of
 *  numbers, or a WasmArray (alloc(): read where it is, no copy). */
export type Scores = Float32Array | Float64Array | readonly number[] | WasmArray;

/** Where a result may go: a Float32Array (copied into) or a WasmArray (written where it is). */
export type Output = Float32Array | WasmArray;
/** What a function given `out` of type O returns: that WasmArray, or a Float32Array. */
export type Result<O extends Output> = O extends WasmArray ? WasmArray : Float32Array;

/**
 * Floats in wasm memory owned by the caller (alloc(length)): passed as an input or as `out`, the
 * mappings, their backward passes and the per-row functions read and write them where they are,
 * with no copy (every other function copies within wasm memory). Free it with free(); it
 * belongs to the instance it was made in (the full core replacing the mappings core voids it).
 */
export class WasmArray {
  private constructor();
  /** Number of floats. */
  readonly length: number;
  /** True once freed (or voided by the swap to the full core). */
  readonly freed: boolean;
  /** A Float32Array over the floats: read and write them here. The same view until wasm memory
   *  grows (any call may grow it): read `array` again after a call rather than keeping it. */
  readonly array: Float32Array;
  /** Give the memory back. Idempotent; any later use throws a TypeError. */
  free(): void;
}

/** A zeroed WasmArray of `length` floats (an integer >= 1). */
export function alloc(length: number): WasmArray;

/** Options shared by every mapping and backward pass. */
export interface ShapeOptions {
  /** Row length. An integer >= 1 that divides x.length. Default: x.length (one row). */
  n?: number;
  /** Temperature T > 0 (finite, nonzero in float32): the mapping is applied to x / T. Default 1. */
  temperature?: number;
  /** Write the result here (a Float32Array of the result's length) and return it. Untouched on
   *  error. The functions also take a WasmArray here (typed at each call), written where it is
   *  (it may be x or dy itself), and return it. */
  out?: Float32Array;
}

export interface EntmaxOptions extends ShapeOptions {
  /** alpha >= 1, finite. 1 is softmax, 2 is sparsemax. Default 1.5. Above 4 the map is
   *  ill-conditioned in any precision: computed without NaN, but not to float32 accuracy. */
  alpha?: number;
}

export interface FusedmaxOptions extends ShapeOptions {
  /** Total-variation strength lambda >= 0; 0 gives sparsemax. Default 1 (as torchsparseattn). */
  lambda?: number;
}

export interface OscarmaxOptions extends ShapeOptions {
  /** OSCAR clustering strength beta >= 0; 0 gives sparsemax. Default 1 (as torchsparseattn). */
  beta?: number;
}

export interface GroupmaxOptions extends ShapeOptions {
  /** Required: the contiguous group sizes (integers >= 1, at least one), the same for every
   *  row, e.g. [2, 3, 1] for n = 6. They sum to n; n defaults to their sum. */
  groups: ArrayLike<number>;
  /** Group-lasso strength lambda >= 0 (acting on x / T); 0 gives sparsemax. Default 1. */
  lambda?: number;
}

export interface EntropyOptions {
  /** Row length (default p.length). */
  n?: number;
  /** Tsallis alpha > 0, finite; 1 is Shannon (natural log). Default 1.5. */
  alpha?: number;
  /** Write the `rows` entropies here (or into a WasmArray, typed at the call). */
  out?: Float32Array;
}

export interface InitOptions {
  /** true: the SIMD build (fails where wasm SIMD is missing); false: the scalar build;
   *  undefined (default): probe the engine and pick. */
  simd?: boolean;
  /** "full" (default): every function, Model and tasks. "mappings": the mappings, their
   *  gradients, entropies, Jacobians and thresholds alone, from a module a quarter the size
   *  (attention, pooling, scores, positions, Model and tasks then throw until `init()` loads
   *  the full core, which replaces it). */
  core?: "full" | "mappings";
  /** Where the .wasm file is (default: beside simplexity.js). */
  url?: string | URL;
  /** The .wasm module's bytes, instead of a file to fetch (not with `url`); the build they hold
   *  decides `simd` when it is omitted, and must match it when given; either core (the module
   *  says which). */
  bytes?: ArrayBuffer | ArrayBufferView;
}

export interface Info {
  /** True when the SIMD build is running. */
  simd: boolean;
  /** Which core is loaded. */
  core: "full" | "mappings";
  /** The ABI version of the loaded .wasm (SX_ABI_VERSION). */
  abi: number;
  /** Current size of the wasm memory in bytes. */
  memoryBytes: number;
}

/** A failure reported by the C core. */
export class SimplexityError extends Error {
  /** As the library throws it: message "<function>: <what>", code the C status, index (for code 2)
   *  the flat index of the bad element (dropped when negative). */
  constructor(message: string, code: number, index?: number);
  name: "SimplexityError";
  /** The C status: 1 invalid argument, 2 non-finite value (NaN or +Infinity), 3 out of memory. */
  code: 1 | 2 | 3 | number;
  /** For code 2: the flat index (row * n + i) of the offending element. */
  index?: number;
}

/**
 * Load and initialise the wasm module; call (and await) it before anything else. Idempotent:
 * every call returns the same promise (per core: once the full core is asked for, every call
 * returns its promise). A failed init() (e.g. "failed to fetch ...: HTTP 404") can be retried.
 * `simd` applies to the first call only; a later call asking for the other build rejects.
 */
export function init(options?: InitOptions): Promise<Info>;

/** Which build runs, its ABI version and the current wasm memory size. */
export function info(): Info;

/** softmax(x / T): exp(z - max z) / sum. Dense: every finite score gets a positive weight. */
export function softmax<O extends Output = Float32Array>(x: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** sparsemax(x / T): the Euclidean projection onto the simplex, [z - tau]_+. Sparse. */
export function sparsemax<O extends Output = Float32Array>(x: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** 1.5-entmax(x / T), exact: [z/2 - tau]_+^2. */
export function entmax15<O extends Output = Float32Array>(x: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** alpha-entmax(x / T) for any alpha >= 1 (default 1.5). */
export function entmax<O extends Output = Float32Array>(x: Scores, options?: Omit<EntmaxOptions, "out"> & { out?: O }): Result<O>;
/** fusedmax(x / T) = sparsemax(prox_TV(x / T; lambda)): neighbours fuse into equal weights. */
export function fusedmax<O extends Output = Float32Array>(x: Scores, options?: Omit<FusedmaxOptions, "out"> & { out?: O }): Result<O>;
/** oscarmax(x / T): simplex-constrained OSCAR; equal weights for clusters of close scores. */
export function oscarmax<O extends Output = Float32Array>(x: Scores, options?: Omit<OscarmaxOptions, "out"> & { out?: O }): Result<O>;
/** sigmoid(x / T), entry by entry: independent weights, NOT on the simplex (a row does not sum
 *  to 1; nothing competes). For contrast with the mappings above. -Infinity gives exactly 0. */
export function sigmoid<O extends Output = Float32Array>(x: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** groupmax(x / T): argmax over the simplex of <p, z> - ||p||^2 / 2 - lambda sum_g ||p_g||_2, groups
 *  given in advance: whole groups get exactly 0 (group sparsity) as well as single entries. */
export function groupmax<O extends Output = Float32Array>(x: Scores, options: Omit<GroupmaxOptions, "out"> & { out?: O }): Result<O>;

/** prox_TV(x / T; lambda), fusedmax's first step (fusedmax = sparsemax of it): argmin_y
 *  1/2 ||y - z||^2 + lambda sum_i |y_{i+1} - y_i|, z = x / T, lambda >= 0 (default 1; 0: the
 *  identity). Neighbours fuse into runs of equal value; -Infinity entries leave the chain and stay
 *  -Infinity. Needs the full core (init(), not init({ core: "mappings" })). */
export function proxTV<O extends Output = Float32Array>(x: Scores, options?: Omit<FusedmaxOptions, "out"> & { out?: O }): Result<O>;
/** The fused runs of proxTV(x, options): each entry's run, numbered from 0 in each row left to
 *  right, -1 where masked. */
export function proxTVRuns(x: Scores, options?: Omit<FusedmaxOptions, "out">): Int32Array;

/** Vector-Jacobian product of softmax: dx = J(x)^T dy (1/T included). Same shape as x. */
export function softmaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of sparsemax. On a support boundary: the Jacobian of the smaller support. */
export function sparsemaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of 1.5-entmax. */
export function entmax15Backward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of alpha-entmax. */
export function entmaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<EntmaxOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of fusedmax. */
export function fusedmaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<FusedmaxOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of oscarmax. */
export function oscarmaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<OscarmaxOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of sigmoid: dy_i p_i (1 - p_i) / T (its Jacobian is diagonal). */
export function sigmoidBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<ShapeOptions, "out"> & { out?: O }): Result<O>;
/** Vector-Jacobian product of groupmax (implicit differentiation on the active groups; the
 *  Jacobian is symmetric, 0 on inactive groups). */
export function groupmaxBackward<O extends Output = Float32Array>(x: Scores, dy: Scores, options: Omit<GroupmaxOptions, "out"> & { out?: O }): Result<O>;
/** d <dy, entmax(x; alpha)> / d alpha, one value per row (a Float32Array of length rows). */
export function entmaxAlphaGrad<O extends Output = Float32Array>(x: Scores, dy: Scores, options?: Omit<EntmaxOptions, "out"> & { out?: O }): Result<O>;

/**
 * Tsallis alpha-entropy sum (p - p^alpha) / (alpha (alpha - 1)) of each row of p (which is
 * (1 - sum p^alpha) / (alpha (alpha - 1)) on the simplex), Shannon -sum p log p at alpha = 1;
 * one value per row. p must be finite and >= 0 (rows need not sum to 1).
 */
export function tsallisEntropy<O extends Output = Float32Array>(p: Scores, options?: Omit<EntropyOptions, "out"> & { out?: O }): Result<O>;

// ------------------------------------------------------- Jacobian and threshold
/** The mappings jacobian() takes (threshold(): the first four). groupmax is refused (a
 *  RangeError): its Jacobian is groupmaxBackward on the unit vectors. */
export type JacobianMapping = "softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax" | "oscarmax" | "sigmoid";

export interface JacobianOptions extends ShapeOptions {
  /** Default "softmax". */
  mapping?: JacobianMapping;
  /** alpha >= 1 of mapping "entmax" only (default 1.5). */
  alpha?: number;
  /** lambda >= 0 of mapping "fusedmax" only (default 1). */
  lambda?: number;
  /** beta >= 0 of mapping "oscarmax" only (default 1). */
  beta?: number;
}

export interface ThresholdOptions extends ShapeOptions {
  /** Default "softmax". fusedmax, oscarmax, sigmoid and groupmax have no threshold on the scores (a RangeError). */
  mapping?: "softmax" | "sparsemax" | "entmax15" | "entmax";
  /** alpha >= 1 of mapping "entmax" only (default 1.5). */
  alpha?: number;
}

/**
 * The Jacobian dp/dx of the mapping at each row of x: a Float32Array of rows * n * n, row r's
 * block J[r*n*n + i*n + j] = dp_i / dx_j, 1/T included (J^T dy equals the backward pass).
 * softmax (diag p - p p^T)/T; sparsemax (diag s - s s^T/|S|)/T, s the support indicator (the
 * same at p = [.99, .01, 0] and [.5, .5, 0]); entmax the same with s = p^(2 - alpha) on the
 * support; fusedmax and oscarmax row by row from their backward passes; sigmoid diagonal,
 * p (1 - p) / T. Masked (-Infinity)
 * entries have zero rows and columns. rows * n * n above 2^29 - 1 is a RangeError.
 */
export function jacobian<O extends Output = Float32Array>(x: Scores, options?: Omit<JacobianOptions, "out"> & { out?: O }): Result<O>;
/**
 * The threshold tau of each row (a Float32Array of rows), in units of z = x / T:
 * sparsemax p = [z - tau]_+; entmax (and entmax15, alpha 1.5) p = [(alpha - 1) z - tau]_+^(1/(alpha-1)),
 * whose line across the score bars sits at z = tau / (alpha - 1); softmax has no threshold and
 * gives the log-sum-exp normaliser, p = exp(z - tau). An all-masked row gives +Infinity
 * (softmax: -Infinity).
 */
export function threshold<O extends Output = Float32Array>(x: Scores, options?: Omit<ThresholdOptions, "out"> & { out?: O }): Result<O>;

// ------------------------------------------------------------- span and pooling
export interface SpanMaskOptions {
  /** The span in positions, finite and >= 0 (required). */
  z: number;
  /** The width R of the ramp, finite and > 0 (required; the shipped models use 3). */
  ramp: number;
  /** A model's max span L > 0: z is read clamped to [0, maxSpan], as a model reads its heads'
   *  spans (z = model.spans()[...] with maxSpan = model.config.span). Default: no clamp. */
  maxSpan?: number;
  /** Write the mask here (a Float32Array of distances.length). Untouched on error. */
  out?: Float32Array;
}

/**
 * The adaptive span's soft mask (Sukhbaatar et al. 2019): clamp((ramp + z - d) / ramp, 0, 1) for
 * each distance d (finite, >= 0) from the query back to a key: 1 inside the span, a linear ramp,
 * then exactly 0. A model multiplies a head's weights by it and renormalises each row.
 * A NaN or +Infinity distance is a SimplexityError with code 2 and its index, a negative one code 1.
 */
export function spanMask(distances: Scores, options: SpanMaskOptions): Float32Array;

export interface PoolingOptions {
  /** The kernel's inverse width w (finite in float32; only |w| matters). Default 1. */
  w?: number;
  /** The mapping that turns each query's scores into weights. Default "softmax". */
  mapping?: "softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax";
  /** alpha >= 1 of mapping "entmax" (default 1.5); an error with any other mapping. */
  alpha?: number;
  /** lambda >= 0 of mapping "fusedmax" (default 1); an error with any other mapping. */
  lambda?: number;
  /** true (queries.length must equal keys.length: the queries are the keys): query i does not
   *  see key i, so a training point never predicts itself (how w is trained). Default false. */
  leaveOneOut?: boolean;
}

export interface PoolingForwardOptions extends PoolingOptions {
  /** Write the output here (a Float32Array of queries.length). Untouched on error. */
  out?: Float32Array;
  /** true (default), false (weights: null), or a Float32Array of queries.length * keys.length to fill. */
  weights?: boolean | Float32Array;
}

/**
 * Nadaraya-Watson attention pooling (D2L): out[i] = sum_j weights[i][j] values[j], each row of
 * weights (queries.length rows of keys.length, row-major) the mapping of the scores
 * -((queries[i] - keys[j]) w)^2 / 2: a Gaussian kernel for softmax, a kernel with compact support
 * (exact zeros) for sparsemax and entmax. w = 0 gives the mean of the values; a huge w the value
 * of the nearest key. Non-finite queries, keys or values: SimplexityError code 2 naming the array.
 */
export function attentionPooling(queries: Scores, keys: Scores, values: Scores,
  options?: PoolingForwardOptions & { weights?: true | Float32Array }): { out: Float32Array; weights: Float32Array };
export function attentionPooling(queries: Scores, keys: Scores, values: Scores,
  options: PoolingForwardOptions & { weights: false }): { out: Float32Array; weights: null };
export function attentionPooling(queries: Scores, keys: Scores, values: Scores,
  options?: PoolingForwardOptions): { out: Float32Array; weights: Float32Array | null };

/**
 * d <dy, out> / d w of attentionPooling with the same arguments, for dy one value per query:
 * with dy = (out - targets) / n it is the gradient of the mean squared error / 2, which is how
 * the page learns w. Sparse mappings are piecewise smooth in w.
 */
export function attentionPoolingBackward(queries: Scores, keys: Scores, values: Scores, dy: Scores,
  options?: PoolingOptions): { dw: number };

/** Options of attention(): the shapes, the mapping and the masks. */
export interface AttentionOptions {
  /** Queries per batch element (required): q.length = batch * tq * width, width = heads * dh. */
  tq: number;
  /** Keys per batch element. Default: k.length / (batch * width); checked when given. */
  tk?: number;
  /** Heads side by side in the width. Default 1. */
  heads?: number;
  /** Batch elements. Default 1. */
  batch?: number;
  /** The mapping of every head. Default "softmax". */
  mapping?: "softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax";
  /** alpha >= 1 of mapping "entmax" (default 1.5); an error with any other mapping. */
  alpha?: number;
  /** lambda >= 0 of mapping "fusedmax" (default 1); an error with any other mapping. */
  lambda?: number;
  /** true: query i sees keys j <= i only. Default false. */
  causal?: boolean;
  /** Per batch element, the keys that are not padding (integers in [0, tk]): keys j >= keyLengths[b]
   *  get weight 0; a query with no key gets zero weights and output 0. Default: no padding. */
  keyLengths?: readonly number[] | Int32Array;
  /** Write the output here (a Float32Array of q.length). Untouched on error. */
  out?: Float32Array;
  /** true, or a Float32Array of batch * heads * tq * tk to fill: also return the weights. */
  weights?: boolean | Float32Array;
  /** Restrict each query to a sparsity pattern's keys (only those pairs are computed; the others
   *  get weight exactly 0). Default: dense. */
  pattern?: AttentionPattern;
  /** The tiled path for long sequences (never the whole tq x tk map: O(n d) memory; the same
   *  results up to float rounding): true, false, or undefined (default: automatic, tiled when
   *  tq * tk >= 2^20 and neither weights nor pattern is given). true with weights or pattern is a
   *  RangeError (neither can be tiled). */
  tiled?: boolean;
}

/** attention() with tileStats: the output and the tiled path's blocks of queries x keys. */
export interface AttentionTileStats {
  out: Float32Array;
  /** Blocks of (64 queries) x (keys: 256 for softmax, 64 for the sparse mappings) holding a
   *  visible pair, over every batch element and head. */
  tiles: number;
  /** Of those, the blocks whose weights were all zero (never multiplied); 0 for softmax. */
  skipped: number;
}

/**
 * Multi-head scaled dot-product attention of already-projected q (batch, tq, heads * dh), k and
 * v (batch, tk, heads * dh): per batch element and head, mapping(q k^T / sqrt(dh)) v, the heads
 * side by side in the output (q's shape). q, k, v must be finite (SimplexityError code 2).
 * With `weights`, returns the output and the weights (batch, heads, tq, tk), each row on the
 * simplex with exact zeros where masked or cut by a sparse mapping.
 */
export function attention(q: Scores, k: Scores, v: Scores,
  options: AttentionOptions & { weights: true | Float32Array; tiled?: false; tileStats?: false }): { out: Float32Array; weights: Float32Array };
/** With `tileStats: true` (the tiled path; a RangeError with tiled: false, weights or pattern):
 *  the output and the tiled path's counts of blocks. */
export function attention(q: Scores, k: Scores, v: Scores,
  options: AttentionOptions & { tileStats: true; weights?: false; pattern?: undefined; tiled?: true }): AttentionTileStats;
export function attention(q: Scores, k: Scores, v: Scores, options: AttentionOptions & { weights?: false; tileStats?: false }): Float32Array;
export function attention(q: Scores, k: Scores, v: Scores,
  options: AttentionOptions): Float32Array | { out: Float32Array; weights: Float32Array };
export function attention(q: Scores, k: Scores, v: Scores, options: AttentionOptions & { tileStats?: boolean }):
  Float32Array | { out: Float32Array; weights: Float32Array } | AttentionTileStats;

/**
 * A sparsity pattern of attention() and attentionPattern(): which keys query i sees.
 * "local": |i - j| <= width. "strided" (Sparse Transformer): |i - j| < stride or
 * (i - j) mod stride = 0. "fixed" (Sparse Transformer): j in i's block of `block`, or one of the
 * last `summary` (default 1) positions of a block. "lsh" (Reformer; self-attention only): per head
 * and round, each position's key is hashed by a seeded random rotation into one of `buckets`
 * (even, default 8), positions sorted by (bucket, position) and cut into chunks of `chunk`
 * (default ceil(tk / buckets)); a query sees its chunk and the one before, in any of `rounds`
 * (default 1). "dense": every key.
 */
export type AttentionPattern =
  | { kind: "dense" }
  | { kind: "local"; width: number }
  | { kind: "strided"; stride: number }
  | { kind: "fixed"; block: number; summary?: number }
  | { kind: "lsh"; buckets?: number; rounds?: number; seed?: number; chunk?: number };

/** Options of attentionPattern(). */
export interface AttentionPatternOptions {
  /** The keys (n * heads * dh floats), required by the "lsh" pattern (it hashes them). */
  k?: Scores;
  /** Heads side by side in k. Default 1. */
  heads?: number;
  /** Which head's mask. Default 0. */
  head?: number;
  /** true: query i sees keys j <= i only. Default false. */
  causal?: boolean;
  /** Keys that are not padding, in [0, n]. Default n. */
  keyLength?: number;
}

/** The pairs a pattern computes on an n x n map. */
export interface PatternMask {
  readonly n: number;
  /** (n, n): 1 where query i sees key j, else 0. */
  readonly mask: Uint8Array;
  /** The number of ones in mask. */
  readonly pairs: number;
  /** The pairs dense attention computes under the same causal and keyLength masks. */
  readonly densePairs: number;
  /** pairs / densePairs. */
  readonly fraction: number;
}

/** LSH's steps, with the mask. */
export interface LshPatternMask extends PatternMask {
  /** (rounds, n): each position's bucket per round. */
  readonly buckets: Int32Array;
  /** (rounds, n): the positions sorted by (bucket, position); chunk c is order[c chunk, (c + 1) chunk). */
  readonly order: Int32Array;
  readonly chunk: number;
  readonly rounds: number;
}

/** The pairs attention() computes under `pattern` on an n x n map (one head). */
export function attentionPattern(n: number, pattern: AttentionPattern & { kind: "lsh" },
  options: AttentionPatternOptions & { k: Scores }): LshPatternMask;
export function attentionPattern(n: number, pattern: Exclude<AttentionPattern, { kind: "lsh" }>,
  options?: AttentionPatternOptions): PatternMask;
export function attentionPattern(n: number, pattern: AttentionPattern,
  options?: AttentionPatternOptions): PatternMask | LshPatternMask;

// ------------------------------------------------------------------ positions
/** Options of positionalEncoding(). */
export interface PositionalEncodingOptions {
  /** The base of the wavelengths, finite and > 0. Default 10000 (Vaswani et al.; the model's). */
  base?: number;
  /** A Float32Array of positions * dim to write into (returned). */
  out?: Float32Array;
}

/**
 * The sinusoidal positional encodings, the position x dimension matrix (positions, dim):
 * row t = PE(t), PE(t)[2i] = sin(t / base^(2i/dim)), PE(t)[2i+1] = cos(same). dim is even >= 2.
 * At base 10000 it is bit for bit the table the model adds to its embeddings.
 */
export function positionalEncoding(positions: number, dim: number, options?: PositionalEncodingOptions): Float32Array;

/** Options of relativeScores() (Shaw et al. 2018). */
export interface RelativeScoresOptions {
  /** K (required): relative distances j - i are clipped to [-K, K]; the table has 2K + 1 rows. */
  maxDistance: number;
  /** The number of keys. Default: as many as queries (self-attention). */
  tk?: number;
  /** A Float32Array of tq * tk to write into (returned). */
  out?: Float32Array;
}

/**
 * Shaw et al. 2018's relative-position term: out[i][j] = q_i . table[clip(j - i, -K, K) + K] for
 * queries q (tq, dim) and a learned table (2K + 1, dim); dim = table.length / (2K + 1).
 * Returns (tq, tk): add it to q k^T before scaling.
 */
export function relativeScores(q: Scores, table: Scores, options: RelativeScoresOptions): Float32Array;

/** Options of txlScores() (Transformer-XL, Dai et al. 2019). */
export interface TxlScoresOptions {
  /** The global content bias u (dim numbers; required): its length sets dim. */
  u: Scores;
  /** The global position bias v (dim numbers; required). */
  v: Scores;
  /** W_{k,R} (dimR, dim), projecting the sinusoids PE(i - j) of dimension dimR. Default: none (dimR = dim, even). */
  wr?: Scores;
  /** The sinusoids' dimension: wr.length / dim, or dim without wr; checked when given. */
  dimR?: number;
  /** The sinusoids' base, finite and > 0. Default 10000. */
  base?: number;
  /** A Float32Array of tq * tk to write the scores into. */
  out?: Float32Array;
}

/**
 * Transformer-XL's relative scores for projected queries q (tq, dim) and keys k (tk, dim):
 * out[i][j] = q_i . k_j + q_i . r_{i-j} + u . k_j + v . r_{i-j}, r_t = PE(t) W_r (no 1 / sqrt(dim)).
 * With options.terms: { out, terms }, terms the four (tq, tk) matrices (content-content,
 * content-position, global content bias, global position bias), 4 tq tk floats.
 */
export function txlScores(q: Scores, k: Scores,
  options: TxlScoresOptions & { terms: true | Float32Array }): { out: Float32Array; terms: Float32Array };
export function txlScores(q: Scores, k: Scores, options: TxlScoresOptions & { terms?: false }): Float32Array;
export function txlScores(q: Scores, k: Scores,
  options: TxlScoresOptions & { terms?: boolean | Float32Array }): Float32Array | { out: Float32Array; terms: Float32Array };

// -------------------------------------------------------------- scoring functions
/** The sizes shared by every scoring: q is (nq, qDim), k (nk, kDim), row-major. */
interface ScoresShape {
  /** Queries: an integer >= 1 dividing q.length (qDim = q.length / nq). Default 1. */
  nq?: number;
  /** Keys: an integer >= 1 dividing k.length (kDim = k.length / nk). Default 1. */
  nk?: number;
}
/** q.k ("dot") or q.k / sqrt(d) ("scaled", the default): qDim must equal kDim. */
export interface DotScoresOptions extends ScoresShape {
  scoring?: "dot" | "scaled";
  W?: undefined; Wq?: undefined; Wk?: undefined; wv?: undefined;
}
/** q^T W k (Luong's "general"), W (qDim, kDim) row-major. */
export interface BilinearScoresOptions extends ScoresShape {
  scoring: "bilinear";
  W: Scores;
  Wq?: undefined; Wk?: undefined; wv?: undefined;
}
/** Additive (Bahdanau) scores wv . tanh(Wq q + Wk k): Wq (h, qDim), Wk (h, kDim), wv (h). */
export interface AdditiveScoresOptions extends ScoresShape {
  scoring: "additive";
  Wq: Scores;
  Wk: Scores;
  /** Its length is the hidden size h >= 1. */
  wv: Scores;
  W?: undefined;
}
export type ScoresOptions = DotScoresOptions | BilinearScoresOptions | AdditiveScoresOptions;
export type Scoring = NonNullable<ScoresOptions["scoring"]>;

/**
 * The (nq, nk) attention scores, row-major, score[i][j] = a(q_i, k_j) by options.scoring:
 * "dot" q.k, "scaled" q.k / sqrt(d) (default: q.k of unit-variance entries has variance d, which
 * pushes every mapping towards one-hot as d grows), "bilinear" q^T W k, "additive"
 * wv . tanh(Wq q + Wk k). Sums in double. Map the rows with any mapping: softmax(s, { n: nk }),
 * or maskedMapping(s, { n: nk, validLengths }) for valid lengths.
 */
export function attentionScores(q: Scores, k: Scores, options?: ScoresOptions & { out?: Float32Array }): Float32Array;

/** The gradients of <dscores, attentionScores(q, k, options)> (dscores: nq * nk). */
export interface ScoresGradients {
  dq: Float32Array;
  dk: Float32Array;
  /** "bilinear" only. */
  dW?: Float32Array;
  /** "additive" only. */
  dWq?: Float32Array;
  dWk?: Float32Array;
  dwv?: Float32Array;
}
export function attentionScoresBackward(q: Scores, k: Scores, dscores: Scores,
  options: BilinearScoresOptions): ScoresGradients & { dW: Float32Array };
export function attentionScoresBackward(q: Scores, k: Scores, dscores: Scores,
  options: AdditiveScoresOptions): ScoresGradients & { dWq: Float32Array; dWk: Float32Array; dwv: Float32Array };
export function attentionScoresBackward(q: Scores, k: Scores, dscores: Scores,
  options?: ScoresOptions): ScoresGradients;

/** Options of maskedMapping(): a mapping's options plus the valid length of each row. */
export interface MaskedMappingOptions extends JacobianOptions {
  /** One integer in [0, n] per row (an Array or Int32Array of rows): entries from it on get exactly
   *  0 (a valid length of 0: an all-zero row). Default: none (the plain mapping). */
  validLengths?: readonly number[] | Int32Array;
}
/**
 * D2L's masked softmax by valid length for every mapping: each row of x (n scores) mapped with its
 * entries beyond validLengths[row] removed, which get exactly 0. mapping: "softmax" (default),
 * "sparsemax", "entmax15", "entmax" (alpha), "fusedmax" (lambda), "oscarmax" (beta), "sigmoid".
 * x as the mappings' (finite or -Infinity, checked everywhere).
 */
export function maskedMapping(x: Scores, options?: MaskedMappingOptions): Float32Array;
/** dx = J^T dy of maskedMapping with the same options (zeros beyond the valid lengths). */
export function maskedMappingBackward(x: Scores, dy: Scores, options?: MaskedMappingOptions): Float32Array;

/** Options of fyLoss(): the mapping (its loss), what to return besides the loss. */
export interface FyLossOptions extends ShapeOptions {
  /** Default "softmax" (the cross-entropy). fusedmax and oscarmax: a RangeError. */
  mapping?: "softmax" | "sparsemax" | "entmax15" | "entmax";
  /** alpha >= 1 of mapping "entmax" only (default 1.5). */
  alpha?: number;
  /** Also return grad, (p - y) / T per score (default false). */
  grad?: boolean;
  /** Also return dalpha, dL/dalpha per row (mapping "entmax" only; default false). */
  alphaGrad?: boolean;
}
export interface FyLossResult {
  /** The loss of each row, >= 0; 0 exactly when the mapping gives the target. */
  loss: Float32Array;
  /** With grad: the gradient of sum(loss) in x, (p - y) / T. */
  grad?: Float32Array;
  /** With alphaGrad: dL/dalpha of each row. */
  dalpha?: Float32Array;
}
/**
 * The Fenchel-Young loss of each row of x (n scores) against a target (Peters, Niculae & Martins
 * 2019): L = <p - y, z> + H(p) - H(y), z = x / T, p the mapping of z, H its Tsallis entropy.
 * softmax: the cross-entropy; sparsemax: the sparsemax loss (0 once the target wins by 1);
 * entmax15 / entmax: the entmax losses. target: one index per row (an Array or Int32Array of
 * integers in [0, n), -1 skips the row: loss 0) or a distribution per row (x.length numbers,
 * each row >= 0 summing to 1, nothing on a -Infinity score). Needs the full core.
 */
export function fyLoss(x: Scores, target: readonly number[] | Int32Array | Scores, options?: FyLossOptions): FyLossResult;

/** Options of chainAttention() and its backward pass. */
export interface ChainOptions {
  /** Row length (default: u.length, one row). */
  n?: number;
  /** "crf" (default): the CRF marginals, dense; "sparsemap": SparseMAP, rows of at most 63. */
  method?: "crf" | "sparsemap";
  /** The transition score t, finite (default 0): > 0 rewards attending to neighbours together. */
  transition?: number;
  /** Write the result here (chainAttention only): a Float32Array or WasmArray of u.length. */
  out?: Float32Array | WasmArray;
}
/**
 * Structured attention over a sequence: a linear chain of attend / skip variables y_i scored
 * sum_i u_i y_i + transition * sum_i y_i y_{i+1}. "crf": the marginals P(y_i = 1) (Kim et al.
 * 2017); "sparsemap": the SparseMAP marginals (Niculae et al. 2018), a sparse mixture of a few
 * selections (sparsemapSelections lists them). Each weight in [0, 1], rows not normalised;
 * -Infinity scores get 0. Needs the full core.
 */
export function chainAttention(u: Scores, options?: ChainOptions): Float32Array;
/** The backward pass: du for a gradient dmu of the weights, and dt (summed over the rows). */
export function chainAttentionBackward(u: Scores, dmu: Scores, options?: Omit<ChainOptions, "out">): { du: Float32Array; dt: number };
/** One of SparseMAP's selections: the attended positions (ascending) and its weight. */
export interface ChainSelection {
  positions: number[];
  weight: number;
}
/** SparseMAP's selections for one row u (at most 63 scores), largest weight first; the weights
 *  sum to 1 and give chainAttention(u, { method: "sparsemap" }). */
export function sparsemapSelections(u: Scores, options?: { transition?: number }): { count: number; selections: ChainSelection[] };

// ------------------------------------------------------------- the model and the tasks
// Tokens: every task has its own vocabulary, 0 = PAD, 1 = BOS, 2 = EOS, then its alphabet.
// Source rows: characters, EOS, PAD...; target rows: BOS, characters, EOS, PAD...
// Token rows are passed as an array of rows (each an array or integer typed array, equal
// lengths) or as one flat array of count * length ids with `count` given (default 1). Every id is
// checked in JS: a RangeError names the row, the position and the value.

/** Token ids: Int32Array (or another integer typed array) or numbers. */
export type TokenRow = Int32Array | Uint8Array | Uint16Array | Uint32Array | Int8Array | Int16Array | readonly number[];
/** One row, `count` rows flattened (row-major), or an array of rows. */
export type TokenRows = TokenRow | readonly TokenRow[];

export type TaskName = "reverse" | "sort" | "after_marker" | "date";
export type Split = "train" | "heldout";

/** A batch of examples, as tasks.generate returns it (src and tgt (count, length), row-major). */
export interface Batch {
  /** Source rows; a decoder-only model (config.arch "decoder") takes none (absent or null). */
  src?: TokenRows | null;
  tgt: TokenRows;
  /** [count, length]; when absent, nested rows give the count, flat rows are one row. */
  shape?: readonly [number, number] | number[];
}

export interface GeneratedBatch {
  src: Int32Array;
  tgt: Int32Array;
  shape: [number, number];
}

export interface GenerateOptions {
  /** Seed, an integer in [0, 2^32). Default 1. */
  seed?: number;
  /** Rows, 1..65536. Default 1. */
  count?: number;
  /** Default "train". The two splits are disjoint: membership is a property of the source string. */
  split?: Split;
  /** Index of the first example (examples do not depend on how they are chunked). Default 0. */
  start?: number;
  /** Row length, >= tasks.width(name) (default), <= 256: more PAD. */
  maxLen?: number;
}

/** The four toy tasks, generated deterministically (integer arithmetic: every build agrees). */
export const tasks: {
  /** ["reverse", "sort", "after_marker", "date"]. */
  names(): TaskName[];
  /** Token id -> "<pad>", "<bos>", "<eos>", then one character per id (sizes 13, 13, 14, 37). */
  vocab(name: TaskName): string[];
  /** The smallest row length holding every example (12, 12, 13, 12). */
  width(name: TaskName): number;
  /** Source and target lengths in characters. */
  lengths(name: TaskName): { minSrc: number; maxSrc: number; minTgt: number; maxTgt: number };
  /** Examples start .. start + count - 1 of (name, split, seed). */
  generate(name: TaskName, options?: GenerateOptions): GeneratedBatch;
  /** One source row: the characters of text, EOS, PAD to maxLen (default tasks.width(name)). */
  encode(name: TaskName, text: string, options?: { maxLen?: number }): Int32Array;
  /** Text of a row (src, tgt or generated): BOS skipped, stops at the first EOS or PAD. */
  decode(name: TaskName, tokens: TokenRow): string;
  /** The reference answer of a text (e.g. "22 Nov 2026" -> "2026-11-22"); SimplexityError for
   *  a source outside the task's domain. */
  answer(name: TaskName, text: string): string;
  /** The reference target rows of source rows: flat in, flat out; nested in, nested out. */
  answer(name: TaskName, src: TokenRow, options?: { count?: number }): Int32Array;
  answer(name: TaskName, src: readonly TokenRow[], options?: { count?: number }): Int32Array[];
  answer(name: TaskName, src: TokenRows, options?: { count?: number }): Int32Array | Int32Array[];
  /** The split a source text (at most 255 characters) belongs to. */
  splitOf(name: TaskName, text: string): Split;
  /** The split of one source row (1..256 token ids). */
  splitOf(name: TaskName, src: TokenRow): Split;
  splitOf(name: TaskName, src: string | TokenRow): Split;
};

/** Attention mapping of a layer (all its heads, in its three attention sub-layers). */
export type Mapping = "softmax" | "sparsemax" | "entmax15" | "entmax" | "entmax-learned" | "fusedmax" | "oscarmax";

/** The output layer's mapping of a Model (config.output), trained with its Fenchel-Young loss
 *  (fyLoss: cross-entropy for softmax); the sparse ones give the next token exact zeros. */
export type OutputMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";

/** new Model(config): every field is optional except vocab and maxLen when task is absent. */
export interface ModelConfig {
  /** Take vocab and maxLen from this task (the model does not remember it). */
  task?: TaskName;
  /** Vocabulary size, 4..4096, including PAD, BOS, EOS. Default: the task's. */
  vocab?: number;
  /** Longest source or target row, 2..256. Default: tasks.width(task). */
  maxLen?: number;
  /** Model width, 2..1024, even, a multiple of heads. Default 32. */
  dModel?: number;
  /** Heads per attention sub-layer, 1..16. Default 4. */
  heads?: number;
  /** Encoder layers = decoder layers, 1..8. Default 2. */
  layers?: number;
  /** Feed-forward width, 1..4096. Default 64. */
  dFF?: number;
  /** One mapping for every layer, or one per layer. Default "entmax-learned" (alpha = 1 +
   *  sigmoid(a), a learned per head, starting at 1.5). */
  attention?: Mapping | readonly Mapping[];
  /** Alpha of "entmax" layers, in [1, 8]. Default 1.5. */
  alpha?: number;
  /** Lambda of "fusedmax" layers, >= 0. Default 0.1. */
  lambda?: number;
  /** Beta of "oscarmax" layers, >= 0. Default 0.1. */
  beta?: number;
  /** Adaptive span on the self-attention heads: the maximum span in positions (0..maxLen), true
   *  for maxLen, 0 or false for none. Default 0. */
  span?: number | boolean;
  /** Span ramp R in positions, 1..256. Default 3. */
  spanRamp?: number;
  /** Feed-forward activation. Default "relu". */
  activation?: "relu" | "gelu";
  /** Parameter initialisation seed, an integer in [-2^31, 2^32). Default 1. */
  seed?: number;
  /** Rows the activation block holds at first, 1..4096 (grows when a call needs more). Default 32. */
  maxBatch?: number;
  /** L1 penalty on the spans. Default 0.002. */
  spanPenalty?: number;
  /** Global gradient-norm clip; <= 0: none. Default 1. */
  clip?: number;
  /** Learning-rate multiplier of the learned alphas, >= 0. Default 1 (tools/train uses 10). */
  alphaLr?: number;
  /** The output mapping: the next token's distribution, trained with its loss. Default
   *  "softmax" (cross-entropy: the models before output mappings existed). */
  output?: OutputMapping;
  /** Alpha of an "entmax" output, in [1, 8]. Default 1.5. */
  outputAlpha?: number;
  /** "encoder-decoder" (default) or "decoder": decoder-only, a language model (no encoder, no
   *  cross-attention; no task; calls take src null; lmStep steps it over the KV cache). */
  arch?: ModelArch;
}

/** A Model's architecture (config.arch). */
export type ModelArch = "encoder-decoder" | "decoder";

/** The resolved config (model.config): every field set, task dropped. */
export interface ResolvedModelConfig {
  readonly vocab: number; readonly maxLen: number; readonly dModel: number; readonly heads: number;
  readonly layers: number; readonly dFF: number; readonly attention: readonly Mapping[];
  readonly alpha: number; readonly lambda: number; readonly beta: number; readonly span: number; readonly spanRamp: number;
  readonly activation: "relu" | "gelu"; readonly seed: number; readonly maxBatch: number;
  readonly spanPenalty: number; readonly clip: number; readonly alphaLr: number;
  readonly output: OutputMapping; readonly outputAlpha: number; readonly arch: ModelArch;
}

export type AttentionKind = "encoder" | "decoder" | "cross";

/** One attention map of the last pass: data (B, H, Tq, Tk) row-major, each row on the simplex
 *  (masked keys exactly 0: padding in encoder and cross, the future in the decoder). */
export interface AttentionMap {
  kind: AttentionKind;
  layer: number;
  /** Number of heads (= shape[1]). */
  heads: number;
  /** [B, H, Tq, Tk]: encoder (B, H, Ts, Ts), decoder (B, H, Tt, Tt), cross (B, H, Tt, Ts). */
  shape: [number, number, number, number];
  data: Float32Array;
  /** Effective alpha per head (1 softmax, 2 sparsemax and fusedmax). */
  alpha: number[];
  /** Span per head in positions; null where none applies. */
  span: (number | null)[];
}

export interface ForwardResult {
  /** (count, tgtLen, vocab): logits[b, t] scores the token after tgt[b, t]. */
  logits: Float32Array;
  shape: [number, number, number];
  /** Encoder layers, then decoder layers, then cross layers; [] with { attention: false }. */
  attention: AttentionMap[];
  /** With { probs: true }: the output mapping of the logits (the same shape), each row the next
   *  token's distribution (exact zeros outside a sparse output's support). */
  probs?: Float32Array;
}

/** One step of model.decode(): the token greedy decoding chose and the distribution it came from. */
export interface DecodeStep {
  token: number;
  /** The output distribution over the vocabulary (exact zeros outside the support). The argmax
   *  skips PAD and BOS, so an untrained model's token may lie outside the support. */
  probs: Float32Array;
  /** The token ids with probability > 0, most probable first (ties: lower id first). */
  support: Int32Array;
}
export interface DecodedRow {
  /** generate()'s row: BOS, tokens, EOS, PAD. */
  tokens: Int32Array;
  /** One per decoded token, up to EOS (included) or the row's end. */
  steps: DecodeStep[];
}
/** One output sequence of model.exactSearch(). */
export interface OutputSequence {
  /** BOS, then the tokens, ending at EOS (finished), PAD (where the model put mass), or cut at maxLen. */
  tokens: Int32Array;
  /** The product of its steps' probabilities. */
  probability: number;
  finished: boolean;
}
export interface ExactSearchResult {
  /** Every sequence with nonzero probability (the first cap found when incomplete), most probable first. */
  sequences: OutputSequence[];
  /** False when the cap stopped the search (options.partial). */
  complete: boolean;
  /** Prefixes run through the model. */
  expanded: number;
}
export interface ExactSearchOptions {
  /** Most sequences to list, 1..1000000. Default 1000. */
  cap?: number;
  /** Longest output row, BOS included, 2..config.maxLen. Default config.maxLen. */
  maxLen?: number;
  /** Past the cap: false (default) throws a RangeError; true returns the first cap found. */
  partial?: boolean;
}

/** Per attention kind, [layer][head]. */
export interface PerHead<T> {
  encoder: T[][];
  decoder: T[][];
  cross: T[][];
}

/** One intervention on the attention weights, for one call (forward, generate, explain,
 *  attentionGrad: `intervene: Edit[]`). layer, head, row omitted: every layer, head, query row.
 *  Rows index the queries: source positions for "encoder", decoder positions otherwise; keys
 *  likewise. ablate, replace and erase act after the mapping (replace: keys the row cannot see
 *  stay 0; erase: the other weights renormalised, a row left empty is all zeros); mask hides
 *  keys before the mapping, as padding does. At most 64 row edits (replace, erase: one per layer
 *  they touch) and 256 edits in all. */
export type Edit =
  | { op: "ablate"; kind: AttentionKind; layer?: number; head?: number }
  | { op: "replace"; kind: AttentionKind; layer?: number; head?: number; row?: number; weights: ArrayLike<number> }
  | { op: "erase"; kind: AttentionKind; layer?: number; head?: number; row?: number; keys: number[] }
  | { op: "mask"; kind: AttentionKind; layer?: number; keys: number[] };

export type ExplainMethod = "gradInput" | "gradNorm" | "integratedGradients" | "leaveOneOut" | "rollout";

export interface ExplainOptions {
  /** The decoder position whose output is explained (required). */
  step: number;
  /** The token whose score is explained; default tgt[step + 1]. */
  target?: number;
  /** "logProb" (default): f = log p(target); "logit": f = the target's logit, which does not
   *  saturate when p(target) is near 1 (there every gradient of log p vanishes). */
  objective?: "logProb" | "logit";
  /** Default: all five. */
  methods?: ExplainMethod[];
  /** Integrated gradients' midpoint steps, 1..4096; default 64. */
  steps?: number;
  intervene?: Edit[];
}

export interface ExplainResult {
  step: number;
  target: number;
  objective: "logProb" | "logit";
  /** f at the input. */
  value: number;
  /** f at integrated gradients' baseline (every source token embedding 0, positions kept);
   *  null without that method. The attributions sum to about value - baselineValue. */
  baselineValue: number | null;
  /** log p(target) at the step. */
  logProb: number;
  /** One importance per source position (0 at PAD): gradInput sum_c e_ic df/de_ic (e the token
   *  embedding), gradNorm ||df/de_i||, integratedGradients (from the zero embedding),
   *  leaveOneOut (f minus f with the token masked as a key in every encoder and cross head),
   *  rollout (the source token's share of the step's state, Abnar & Zuidema 2020: heads
   *  averaged, residuals as half). */
  importance: Partial<Record<ExplainMethod, Float32Array>>;
  /** The step's logits. */
  logits: Float32Array;
  /** The example's attention maps (B = 1). */
  attention: AttentionMap[];
}

export interface AttentionGradOptions {
  kind: AttentionKind;
  /** Omitted: every layer. */
  layer?: number;
  /** Omitted: every head. */
  head?: number;
  /** The query row. */
  row: number;
  step: number;
  /** f = log p(target) (default tgt[step + 1]) ... */
  target?: number;
  /** ... or f = <dlogits, logits[step]> (vocab numbers); not both. */
  dlogits?: ArrayLike<number>;
  intervene?: Edit[];
}

/** A tiny encoder-decoder Transformer in wasm memory. Free it with free(). */
export class Model {
  /** Checks every field in JS (TypeError/RangeError naming it); C failures are SimplexityError. */
  constructor(config: ModelConfig);
  /** A model from model.save() bytes (either precision); truncated or corrupted bytes throw
   *  SimplexityError. */
  static load(bytes: Uint8Array | ArrayBuffer): Model;
  readonly config: ResolvedModelConfig;
  readonly numParams: number;
  /** Adam steps since creation or load. */
  readonly steps: number;
  readonly freed: boolean;
  /** Teacher-forced forward pass: src rows, decoder input rows (BOS first). Copies. A
   *  decoder-only model takes src null (its attention: the "decoder" maps only). */
  forward(src: TokenRows | null, tgt: TokenRows, options?: { count?: number; attention?: boolean; intervene?: Edit[]; probs?: boolean }): ForwardResult;
  /** Attributions of the prediction at options.step to each source token (one src row, one
   *  decoder input row, e.g. a generated one). */
  explain(src: TokenRows, tgt: TokenRows, options: ExplainOptions): ExplainResult;
  /** d f / d (one row of attention weights), over the keys (src length for encoder and cross,
   *  tgt length for decoder), one such row per selected layer and head ((layers, heads, keys)
   *  row-major); with a replace edit on that row, at the replacement. */
  attentionGrad(src: TokenRows, tgt: TokenRows, options: AttentionGradOptions): Float32Array;
  /** One Adam step (clip, span clamp) on full target rows; returns the loss before the step.
   *  lr >= 0, default 1e-3. */
  trainStep(batch: Batch, options?: { lr?: number }): number;
  /** The loss of a batch, without a step. */
  loss(batch: Batch): number;
  /** Greedy decoding: one row of maxLen (default config.maxLen) per source row: BOS, tokens, EOS, PAD.
   *  Incremental (a KV cache); cache: false runs the full recomputation at every step instead (the
   *  reference: the same tokens, maps and logits afterwards equal to float rounding). */
  generate(src: TokenRows, options?: { count?: number; maxLen?: number; intervene?: Edit[]; cache?: boolean }): Int32Array[];
  /** generate() with each step's output distribution and its support (the same options). */
  decode(src: TokenRows, options?: { count?: number; maxLen?: number; intervene?: Edit[]; cache?: boolean }): DecodedRow[];
  /** Every output sequence with nonzero probability for one source row, with its probability:
   *  depth first over each step's support (Peters, Niculae & Martins 2019). A sparse output
   *  lists a few; past options.cap (softmax: every sequence counts) a RangeError, or with
   *  partial: true the first cap found. */
  exactSearch(src: TokenRows, options?: ExactSearchOptions): ExactSearchResult;
  /** A decoder-only model's step over its KV cache: one token per row at position pos (rows
   *  start at 0 and continue one position per call). The next token's distribution under the
   *  output mapping (exact zeros for sparse outputs) and the logits, (rows, vocab); with
   *  attention: true, per layer the step's attention rows (rows, heads, pos + 1). */
  lmStep(tokens: ArrayLike<number>, pos: number, options?: { attention?: boolean }): LMStep;
  /** Effective alpha per head. */
  alphas(): PerHead<number>;
  /** Span per head in positions; null where none applies (cross-attention, span off). */
  spans(): PerHead<number | null>;
  /** Checkpoint bytes: config and parameters (not Adam's state), checksummed. precision
   *  "float32" (default) is lossless; "float16" stores each parameter as its nearest IEEE float16
   *  (ties to even; relative error <= 2^-11 from 2^-14 up) in half the bytes, for shipping a trained model: a
   *  parameter of magnitude >= 65520 throws SimplexityError (save it as float32). */
  save(options?: { precision?: "float32" | "float16" }): Uint8Array;
  /** Frees the wasm memory; idempotent. Any later use throws. A FinalizationRegistry frees
   *  unreachable models as a safety net, but when (or whether) it runs is up to the engine. */
  free(): void;
}

export interface LMStep {
  probs: Float32Array;
  logits: Float32Array;
  attention?: Float32Array[];
}

// ---------------------------------------------------------------- the character language model
/** A TextModel's vocabulary, as each model's JSON carries it (web/models/text/summary.json):
 *  token token_offset + i is chars[i]; lower tokens (PAD, BOS, EOS) are never text. */
export interface TextVocab {
  chars: string;
  token_offset: number;
}

/** The next character's distribution after a context (TextModel.next). */
export interface TextNext {
  /** Over the model's tokens (config.vocab); exact zeros of a sparse output. */
  probs: Float32Array;
  logits: Float32Array;
  /** attention[layer][head]: the step's attention row over the context's characters. */
  attention?: Float32Array[][];
  /** The characters the model read (the prompt's last maxLen). */
  context: string;
}

/** One generated character: drawn from probs, the distribution after context. */
export interface TextStep extends TextNext {
  char: string;
  token: number;
}

/** Sampling options: weights p^(1/temperature), the topK largest, the smallest set reaching
 *  topP; a seed (mulberry32) or a random function giving [0, 1). */
export interface SampleOptions {
  /** 0.01..100, default 1. */
  temperature?: number;
  /** 0 (default): all. */
  topK?: number;
  /** (0, 1], default 1: all. */
  topP?: number;
  /** Default 1. */
  seed?: number;
  random?: () => number;
}

/** A decoder-only Model read as a character language model (model/text-model.js). Free with free(). */
export class TextModel {
  /** Over a decoder-only Model (kept: free() frees it) and its vocabulary. */
  constructor(model: Model, vocab: TextVocab);
  /** From checkpoint bytes and the model's vocabulary (its summary.json entry will do). */
  static load(bytes: Uint8Array | ArrayBuffer, vocab: TextVocab): TextModel;
  /** A seeded source of uniform numbers in [0, 1) (mulberry32). */
  static random(seed: number): () => number;
  readonly model: Model;
  readonly chars: string;
  readonly tokenOffset: number;
  readonly freed: boolean;
  /** Tokens of a text; a character outside the vocabulary is a RangeError. */
  encode(text: string): Int32Array;
  /** Text of character tokens. */
  decode(tokens: ArrayLike<number>): string;
  /** The next character's distribution after prompt (its last maxLen characters). */
  next(prompt: string, options?: { attention?: boolean }): TextNext;
  /** Continue prompt one character at a time over the KV cache (maxChars default 200); a context
   *  reaching maxLen is cut to its last maxLen / 2 characters and read again. */
  generate(prompt: string, options?: SampleOptions & { maxChars?: number; attention?: boolean }): Generator<TextStep, void, unknown>;
  /** One character token drawn from probs (never a zero, never a token below token_offset). */
  sample(probs: ArrayLike<number>, options?: SampleOptions): number;
  /** One Adam step on batch (default 8) windows of text at random offsets; the loss before it. */
  trainStep(text: string, options?: { batch?: number; lr?: number; seed?: number; random?: () => number }): number;
  free(): void;
}

// ---------------------------------------------------------------- the recurrent encoder-decoder
/** How the RNN's decoder reads the source: the last encoder state only ("none"), additive
 *  (Bahdanau) attention under a mapping, or hard attention (one position per step). */
export type RNNAttentionKind = "none" | "additive" | "hard";
/** Hard attention's gradient: REINFORCE with a moving-average baseline, straight-through
 *  Gumbel-softmax, or the straight-through argmax. */
export type RNNEstimator = "reinforce" | "gumbel" | "straight";

/** new RNN(config): every field is optional except vocab and maxLen when task is absent. */
export interface RNNConfig {
  /** A task name (tasks.names()): vocab and maxLen from it, and train()'s default task. */
  task?: string;
  /** 4..4096; default the task's. */
  vocab?: number;
  /** Longest src or tgt row, 2..256; default the task's width. */
  maxLen?: number;
  /** Token embedding width, 1..1024. Default 32. */
  embed?: number;
  /** GRU state width, 1..1024. Default 64. */
  hidden?: number;
  /** Additive scoring's hidden width, 1..1024. Default 32. */
  attnHidden?: number;
  /** Default "additive". */
  attention?: RNNAttentionKind;
  /** The scores' mapping (additive and hard attention): any Mapping but "oscarmax". Default "softmax". */
  mapping?: Exclude<Mapping, "oscarmax">;
  /** Hard attention's estimator. Default "straight". */
  estimator?: RNNEstimator;
  /** alpha of mapping "entmax", 1..8. Default 1.5. */
  alpha?: number;
  /** lambda of mapping "fusedmax", >= 0. Default 0.1. */
  lambda?: number;
  /** Initialisation and sampling seed. Default 1. */
  seed?: number;
  /** Rows per call, 1..4096 (the activations are sized for it at creation). Default 32. */
  maxBatch?: number;
  /** Global gradient-norm clip (<= 0: none). Default 1. */
  clip?: number;
  /** Learning-rate multiplier of a learned alpha, >= 0. Default 1. */
  alphaLr?: number;
  /** Gumbel-softmax temperature, > 0. Default 1. */
  temperature?: number;
  /** REINFORCE baseline decay, in [0, 1). Default 0.9. */
  baseline?: number;
}

export interface ResolvedRNNConfig {
  readonly vocab: number; readonly maxLen: number; readonly embed: number; readonly hidden: number;
  readonly attnHidden: number; readonly attention: RNNAttentionKind; readonly mapping: Exclude<Mapping, "oscarmax">;
  readonly estimator: RNNEstimator; readonly alpha: number; readonly lambda: number;
  readonly seed: number; readonly maxBatch: number; readonly clip: number; readonly alphaLr: number;
  readonly temperature: number; readonly baseline: number;
}

/** The weights each decoder step read, data (count, steps, srcLen) row-major: additive, the
 *  mapping's (each row on the simplex, PAD positions 0); hard, one-hot at the argmax; none,
 *  one-hot at the last source position. */
export interface RNNAttention {
  shape: [number, number, number];
  data: Float32Array;
}

export interface RNNForwardResult {
  /** (count, tgtLen, vocab) row-major. */
  logits: Float32Array;
  shape: [number, number, number];
  attention: RNNAttention;
}

/** rnn.attention(): the greedy tokens and the weights of the maxLen - 1 decoder steps. */
export interface RNNDecoded extends RNNAttention {
  tokens: Int32Array[];
}

export interface RNNProgress {
  /** Steps of the schedule done (from + steps run so far). */
  step: number;
  /** The loss of that step's batch, before its update. */
  loss: number;
  /** Its learning rate. */
  lr: number;
}

export interface RNNTrainOptions {
  /** Steps to run now, 1..1e7. */
  steps: number;
  /** A task name; default the config's task. */
  task?: string;
  /** The first step of the schedule to run (default 0): train in slices from a worker. */
  from?: number;
  /** The schedule's length (default from + steps): the cosine decay ends there. */
  total?: number;
  /** Rows per step, 1..config.maxBatch; default config.maxBatch. */
  batch?: number;
  /** Peak learning rate (default 3e-3), decayed by a cosine to lrMin (default 3e-4) over total. */
  lr?: number;
  lrMin?: number;
  /** Linear warm-up steps. Default 100. */
  warmup?: number;
  /** The training examples' seed: step s reads examples s * batch .. of the train split. Default 1. */
  seed?: number;
  /** Call progress every this many steps (and after the last). Default 10. */
  every?: number;
  /** Returning false stops the run. */
  progress?: (info: RNNProgress) => boolean | void;
}

export interface RNNTrainResult {
  /** The loss of each step run. */
  losses: Float32Array;
}

/** A GRU encoder-decoder in wasm memory (core/src/rnn.h), with no, additive or hard attention.
 *  Synchronous calls; results are copies (transferable from a Web Worker). Free it with free(). */
export class RNN {
  /** Checks every field in JS (TypeError/RangeError naming it); C failures are SimplexityError. */
  constructor(config: RNNConfig);
  /** A model from rnn.save() bytes ("SXRN", either precision); bad bytes throw SimplexityError. */
  static load(bytes: Uint8Array | ArrayBuffer): RNN;
  readonly config: ResolvedRNNConfig;
  readonly numParams: number;
  /** Adam steps since creation or load. */
  readonly steps: number;
  /** The attention mapping's alpha (learned: its current value); 0 without attention. */
  readonly alpha: number;
  readonly freed: boolean;
  /** Teacher-forced forward pass: src rows, decoder input rows (BOS first). Copies. */
  forward(src: TokenRows, tgt: TokenRows, options?: { count?: number }): RNNForwardResult;
  /** One Adam step on full target rows (hard attention: positions drawn by the estimator);
   *  returns the loss before the step. lr >= 0, default 3e-3. */
  trainStep(batch: Batch, options?: { lr?: number }): number;
  /** The loss of a batch, without a step (hard attention: the argmax positions). */
  loss(batch: Batch): number;
  /** Steps of the native trainer's schedule on a task's training examples (tools/train-rnn.c:
   *  the same seed gives the same losses), with progress. */
  train(options: RNNTrainOptions): RNNTrainResult;
  /** Greedy decoding: one row of maxLen (default config.maxLen) per source row. */
  generate(src: TokenRows, options?: { count?: number; maxLen?: number }): Int32Array[];
  /** Greedy decoding with the weights each decoder step read. */
  attention(src: TokenRows, options?: { count?: number; maxLen?: number }): RNNDecoded;
  /** Checkpoint bytes ("SXRN": config and parameters, checksummed); "float16" halves them. */
  save(options?: { precision?: "float32" | "float16" }): Uint8Array;
  /** Frees the wasm memory; idempotent. Any later use throws. */
  free(): void;
}

/** How a Rationale's generator selects positions (core/src/rationale.h): sparsemax or
 *  1.5-entmax over the positions, HardKuma gates (reparameterised, expected-L0 penalty), or
 *  Bernoulli gates trained by REINFORCE with a baseline. */
export type RationaleMethod = "sparsemax" | "entmax15" | "hardkuma" | "reinforce";

/** Examples of the rationale task: 12 tokens each (one, three or five marker words among
 *  fillers), the label the markers' majority (1 positive), gold 1 at the marker positions. */
export interface RationaleData {
  count: number;
  tokens: Int32Array;
  labels: Int32Array;
  gold: Uint8Array;
}

export interface RationaleSelection {
  /** count * 12 weights; a position is selected when its weight is > 0. */
  weights: Float32Array;
  /** The predicted labels (1 positive). */
  labels: Int32Array;
}

export interface RationaleFigures {
  accuracy: number;
  /** Selected marker positions / selected positions (0 when nothing is selected). */
  precision: number;
  /** Selected marker positions / marker positions. */
  recall: number;
  /** Selected positions / all positions. */
  fraction: number;
}

export interface RationaleProgress {
  /** Steps done, counting from options.from. */
  step: number;
  loss: number;
}

export interface RationaleTrainOptions {
  steps: number;
  /** The schedule's first step (default 0): train examples from * batch on. */
  from?: number;
  /** Rows per step (default maxBatch). */
  batch?: number;
  /** Default 0.01. */
  lr?: number;
  /** The task's seed (default 1). */
  seed?: number;
  /** progress every `every` steps (default 10) and after the last. */
  every?: number;
  /** Return false to stop. */
  progress?: (info: RationaleProgress) => boolean | void;
}

/** A rationalizer in wasm memory (core/src/rationale.h): a generator selects input positions, a
 *  predictor classifies from the selection alone, on a task whose right rationale is known.
 *  Synchronous calls; results are copies. Free it with free(). */
export class Rationale {
  /** method default "sparsemax", seed 1, maxBatch 32 (1..4096), sparsity 0.05 (>= 0). */
  constructor(options?: { method?: RationaleMethod; seed?: number; maxBatch?: number; sparsity?: number });
  static readonly methods: readonly RationaleMethod[];
  /** Tokens per example: 12. */
  static readonly positions: number;
  /** Token ids 0..15. */
  static readonly vocab: number;
  /** The word of each id: 0-2 positive markers, 3-5 negative, 6-15 fillers. */
  static readonly words: readonly string[];
  /** count examples (1..2^20) of seed (default 1) and split ("train", the default, or "test"),
   *  from example first (default 0). */
  static task(count: number, options?: { seed?: number; split?: "train" | "test"; first?: number }): RationaleData;
  readonly method: RationaleMethod;
  readonly maxBatch: number;
  readonly sparsity: number;
  readonly numParams: number;
  readonly steps: number;
  readonly freed: boolean;
  /** One Adam step (lr default 0.01) on at most maxBatch rows; the objective before it. */
  trainStep(batch: { tokens: ArrayLike<number>; labels: ArrayLike<number> }, options?: { lr?: number }): number;
  /** make rationales' schedule (tools/rationales.c), with progress. */
  train(options: RationaleTrainOptions): { losses: Float32Array };
  /** The deterministic selection and prediction of at most maxBatch rows. */
  predict(tokens: ArrayLike<number>): RationaleSelection;
  /** Accuracy, rationale precision and recall, selected fraction, over any number of rows. */
  evaluate(data: { tokens: ArrayLike<number>; labels: ArrayLike<number>; gold: ArrayLike<number> }): RationaleFigures;
  /** Frees the wasm memory; idempotent. Any later use throws. */
  free(): void;
}
