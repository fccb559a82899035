// simplexity.d.ts - TypeScript declarations for simplexity.js.
//
// Shapes: every mapping takes `rows * n` scores, row-major (n defaults to x.length: one row),
// and returns `rows * n` probabilities. Per-row reductions (entmaxAlphaGrad, tsallisEntropy)
// return `rows` values. Results are new Float32Arrays unless `out` is given.
//
// Errors: TypeError / RangeError for bad arguments (checked in JS before any wasm call; the
// message names the function, the argument and the value), SimplexityError for failures the C
// core reports (NaN / +Infinity scores, out of memory). On any error `out` is left untouched.

/** Scores or probabilities: a Float32Array, a Float64Array (converted to float32) or an array of numbers. */
export type Scores = Float32Array | Float64Array | readonly number[];

/** Options shared by every mapping and backward pass. */
export interface ShapeOptions {
  /** Row length. An integer >= 1 that divides x.length. Default: x.length (one row). */
  n?: number;
  /** Temperature T > 0 (finite, nonzero in float32): the mapping is applied to x / T. Default 1. */
  temperature?: number;
  /** Write the result here (a Float32Array of the result's length) and return it. Untouched on error. */
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

export interface EntropyOptions {
  /** Row length (default p.length). */
  n?: number;
  /** Tsallis alpha > 0, finite; 1 is Shannon (natural log). Default 1.5. */
  alpha?: number;
  /** Write the `rows` entropies here. */
  out?: Float32Array;
}

export interface InitOptions {
  /** true: the SIMD build (fails where wasm SIMD is missing); false: the scalar build;
   *  undefined (default): probe the engine and pick. */
  simd?: boolean;
  /** Where the .wasm file is (default: beside simplexity.js). */
  url?: string | URL;
}

export interface Info {
  /** True when the SIMD build is running. */
  simd: boolean;
  /** The ABI version of the loaded .wasm (SX_ABI_VERSION). */
  abi: number;
  /** Current size of the wasm memory in bytes. */
  memoryBytes: number;
}

/** A failure reported by the C core. */
export class SimplexityError extends Error {
  name: "SimplexityError";
  /** The C status: 1 invalid argument, 2 non-finite value (NaN or +Infinity), 3 out of memory. */
  code: 1 | 2 | 3 | number;
  /** For code 2: the flat index (row * n + i) of the offending element. */
  index?: number;
}

/**
 * Load and initialise the wasm module; call (and await) it before anything else. Idempotent:
 * every call returns the same promise. A failed init() (e.g. "failed to fetch ...: HTTP 404")
 * can be retried. `simd` applies to the first call only; a later call asking for the other build
 * rejects.
 */
export function init(options?: InitOptions): Promise<Info>;

/** Which build runs, its ABI version and the current wasm memory size. */
export function info(): Info;

/** softmax(x / T): exp(z - max z) / sum. Dense: every finite score gets a positive weight. */
export function softmax(x: Scores, options?: ShapeOptions): Float32Array;
/** sparsemax(x / T): the Euclidean projection onto the simplex, [z - tau]_+. Sparse. */
export function sparsemax(x: Scores, options?: ShapeOptions): Float32Array;
/** 1.5-entmax(x / T), exact: [z/2 - tau]_+^2. */
export function entmax15(x: Scores, options?: ShapeOptions): Float32Array;
/** alpha-entmax(x / T) for any alpha >= 1 (default 1.5). */
export function entmax(x: Scores, options?: EntmaxOptions): Float32Array;
/** fusedmax(x / T) = sparsemax(prox_TV(x / T; lambda)): neighbours fuse into equal weights. */
export function fusedmax(x: Scores, options?: FusedmaxOptions): Float32Array;
/** oscarmax(x / T): simplex-constrained OSCAR; equal weights for clusters of close scores. */
export function oscarmax(x: Scores, options?: OscarmaxOptions): Float32Array;

/** Vector-Jacobian product of softmax: dx = J(x)^T dy (1/T included). Same shape as x. */
export function softmaxBackward(x: Scores, dy: Scores, options?: ShapeOptions): Float32Array;
/** Vector-Jacobian product of sparsemax. On a support boundary: the Jacobian of the smaller support. */
export function sparsemaxBackward(x: Scores, dy: Scores, options?: ShapeOptions): Float32Array;
/** Vector-Jacobian product of 1.5-entmax. */
export function entmax15Backward(x: Scores, dy: Scores, options?: ShapeOptions): Float32Array;
/** Vector-Jacobian product of alpha-entmax. */
export function entmaxBackward(x: Scores, dy: Scores, options?: EntmaxOptions): Float32Array;
/** Vector-Jacobian product of fusedmax. */
export function fusedmaxBackward(x: Scores, dy: Scores, options?: FusedmaxOptions): Float32Array;
/** Vector-Jacobian product of oscarmax. */
export function oscarmaxBackward(x: Scores, dy: Scores, options?: OscarmaxOptions): Float32Array;
/** d <dy, entmax(x; alpha)> / d alpha, one value per row (a Float32Array of length rows). */
export function entmaxAlphaGrad(x: Scores, dy: Scores, options?: EntmaxOptions): Float32Array;

/**
 * Tsallis alpha-entropy sum (p - p^alpha) / (alpha (alpha - 1)) of each row of p (which is
 * (1 - sum p^alpha) / (alpha (alpha - 1)) on the simplex), Shannon -sum p log p at alpha = 1;
 * one value per row. p must be finite and >= 0 (rows need not sum to 1).
 */
export function tsallisEntropy(p: Scores, options?: EntropyOptions): Float32Array;
