// explain.d.ts - declarations of explain.js ("simplexity/explain"): the experiments of "is
// attention explanation?" on a Model. Hand-written; tests/js/declarations.test.mjs checks them
// against the JS, tests/types/explain.ts type-checks documented uses.
import type { Model, TokenRow } from "./simplexity.js";

export type AlignedTask = "reverse" | "sort" | "after_marker" | "date";
export type ErasureOrder = "attention" | "gradient" | "attentionGradient" | "random";
export type ExperimentMethod = "gradInput" | "integratedGradients" | "leaveOneOut" | "rollout";

/** Kendall's tau-b (ties shrink the denominator); NaN when x or y is constant. */
export function kendallTau(x: ArrayLike<number>, y: ArrayLike<number>): number;
/** Jensen-Shannon divergence in nats, 0 .. ln 2. */
export function jsd(p: ArrayLike<number>, q: ArrayLike<number>): number;
/** Total-variation distance (half the L1 distance), 0 .. 1. */
export function totalVariation(p: ArrayLike<number>, q: ArrayLike<number>): number;
/** The source positions each answer token of `src` comes from, one array per answer token,
 *  then an empty one for the EOS: entry t is what the decoder's step t predicts. */
export function alignment(task: AlignedTask, src: TokenRow): number[][];

export interface ErasureResult {
  /** The greedy token at the step before any erasure. */
  decision: number;
  order: ErasureOrder;
  /** Source positions, first erased first. */
  ranking: number[];
  /** Keys erased when the decision flipped; null if it never did. */
  removed: number | null;
  /** removed / source keys. */
  fraction: number | null;
  /** The mean (over layers and heads) attention mass erased. */
  mass: number | null;
  flippedTo: number | null;
}
/** Serrano & Smith 2019: erase keys from the step's cross-attention rows until the decision flips. */
export function erasure(model: Model, src: TokenRow, tgt: TokenRow,
  options: { step: number; order?: ErasureOrder; seed?: number }): ErasureResult;

export interface AdversarialResult {
  original: Float32Array;
  adversarial: Float32Array;
  jsd: number;
  tv: number;
  /** A point other than the original was within epsilon. */
  feasible: boolean;
  sameDecision: boolean;
}
/** Jain & Wallace 2019: one row put in place of the step's row in every selected head (layer,
 *  head omitted: every one), most unlike their mean (JSD) with the output within TV epsilon. */
export function adversarialAttention(model: Model, src: TokenRow, tgt: TokenRow, options: {
  step: number; kind?: "cross" | "decoder"; layer?: number; head?: number; epsilon?: number;
  iterations?: number; rate?: number; starts?: number;
}): AdversarialResult;

export interface ExperimentOptions {
  /** Held-out examples (default 50); those the model gets wrong are skipped (counted). */
  count?: number;
  seed?: number;
  /** The adversarial search's TV bound (default 0.01). */
  epsilon?: number;
  /** Integrated gradients' steps (default 16). */
  igSteps?: number;
  /** Run the adversarial search (default true). */
  adversarial?: boolean;
  /** Called after each example. */
  onProgress?: (done: number, total: number) => void;
  /** Aborting stops the run before the next example; the summary covers those done. */
  signal?: AbortSignal;
}

export interface ExperimentSummary {
  task: AlignedTask;
  /** Examples answered right (the ones measured), answer steps measured, examples skipped. */
  examples: number;
  steps: number;
  wrong: number;
  /** Kendall's tau between each cross-attention head's row and each importance: [layer][head]. */
  tau: Record<ExperimentMethod, { perHead: number[][]; mean: number }>;
  /** How often the largest weight (or importance) falls on the known alignment. */
  alignment: {
    perHead: number[][];
    best: { layer: number; head: number; accuracy: number };
    methods: Record<ExperimentMethod, number>;
  };
  /** Per order: fractions holds one entry per run (the fraction of keys erased at the flip, or
   *  null when the decision never flipped), for curves; the medians are over the flips. */
  erasure: Record<ErasureOrder, { runs: number; flipRate: number; medianFraction: number; medianMass: number; fractions: (number | null)[] }>;
  /** values: the JSD reached on each example. */
  adversarial: { epsilon: number; runs: number; meanJSD: number; medianJSD: number; sameDecision: number; values: number[] } | null;
}
/** All the experiments over a task's held-out examples. */
export function runExperiments(model: Model, task: AlignedTask, options?: ExperimentOptions): Promise<ExperimentSummary>;
