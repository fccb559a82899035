// widgets.d.ts - the declarations of "simplexity/widgets" (widgets.js) and of each widget module
// ("simplexity/widgets/sx-*"). Importing the module registers the custom elements (in a browser;
// in a server-side render it defines nothing).
//
// What it gives a TypeScript page: document.querySelector("sx-simplex") (and createElement,
// getElementsByTagName...) is an SxSimplexElement, through the global HTMLElementTagNameMap; the
// widgets' events ("sx-simplex-change"...) have typed details on every element, the document
// and the window (they bubble and are composed), through GlobalEventHandlersEventMap; load(tag)
// resolves to the element's class. The element classes are types only: the modules register
// them with customElements and export nothing a page should import (use load() or
// customElements.get(tag) for the constructor).
//
// Every attribute of a widget is also a property (camelCase: no-train -> noTrain): reading it
// parses the attribute (a missing or bad one gives the default), writing it sets the attribute
// (null or undefined removes it). Lists read as arrays and are written from any iterable of
// numbers (an array, a Float32Array...); a list read back is not live: assign a new one.
// tests/js/declarations.test.mjs compares these classes with the widgets' JS; tests/types
// type-checks their use.

// The elements are DOM classes: a project without the DOM lib (a server-side render's tsconfig)
// gets it with this module.
/// <reference lib="dom" />
import type { TaskName, AttentionKind, DecodedRow, ExactSearchResult } from "../lib/simplexity.js";
import type { ExperimentSummary } from "../lib/explain.js";

// --------------------------------------------------------------------- shared types
/** A widget's colour scheme: "auto" follows prefers-color-scheme. */
type SxTheme = "auto" | "light" | "dark";
/** How links treat a widget (widgets/link.js): "copy" (a Link button copies a link to the widget
 *  as set, and a link to it sets it), "live" (besides, the page's URL follows the reader's
 *  changes, through history.replaceState), "none" (no button, and links do not set it). */
type SxLink = "copy" | "live" | "none";
/** The mappings the simplex widgets draw (MAPPINGS in widgets/base.js). */
type SxMappingName = "softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax" | "oscarmax";
/** The mappings of <sx-loss> (those with a Fenchel-Young loss in the library). */
type SxLossMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";
/** The kernels of <sx-pooling>. */
type SxPoolingKernel = "softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax";
/** The mappings of <sx-threshold>. */
type SxThresholdMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";
/** The mappings of <sx-regularized> (each the gradient of a regularised max). */
type SxRegularizedMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";
/** The views of <sx-regularized>. */
type SxRegularizedView = "argmax" | "max" | "omega";
/** The mappings of <sx-span-mask>'s row. */
type SxSpanMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";
/** The shipped models of a task (models/<task>-<kind>.sxm). */
type SxModelKind = "softmax" | "entmax15" | "alpha" | "alpha-span";
/** <sx-attention>'s models: SxModelKind's and the structured ones (after_marker and date only). */
type SxAttentionKind = SxModelKind | "fusedmax" | "oscarmax";
/** What a list property takes: an array, a Float32Array, any iterable or array-like of numbers. */
type NumberList = Iterable<number> | ArrayLike<number>;
/** What an attribute's property takes: the value, or null / undefined to remove the attribute. */
type Or<T> = T | null | undefined;

/**
 * What every widget shares (widgets/base.js): the Link button and the SVG/PNG export of its
 * toolbar, and its render loop (changes are batched into one animation frame).
 */
declare abstract class SxElement extends HTMLElement {
  /** The colour scheme; default "auto". */
  get theme(): SxTheme;
  set theme(v: Or<SxTheme>);
  /** How links treat the widget: "copy" (default), "live" or "none" (see SxLink). */
  get link(): SxLink;
  set link(v: Or<SxLink>);
  /** How long the last render took, in milliseconds (0 before the first). */
  readonly lastRenderMs: number;
  /** Download the pictures as `<tag>.svg` or `<tag>.png` (the toolbar's buttons), then fire `<tag>-export`. A failure is shown in the widget. */
  exportAs(format: "svg" | "png"): Promise<void>;
  /** The pictures as one standalone SVG document (styles inlined); the element must be connected. */
  toSVG(): string;
  /** The pictures as a PNG, `scale` times their size (default 2). */
  toPNG(scale?: number): Promise<Blob>;
  /** Render in the next animation frame (many calls in one frame render once). */
  invalidate(): void;
  /** Render now (once the WebAssembly core is ready; before, it does nothing). */
  renderNow(): void;
}

// ------------------------------------------------------------------------ elements
/** `<sx-simplex>`: three scores mapped onto the probability simplex by several mappings at once. */
declare class SxSimplexElement extends SxElement {
  /** The three scores, each in [-3, 3]; default [1.5, 0, 1]. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** α of α-entmax, in [1, 4]; default 1.25. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** λ of fusedmax, in [0, 2]; default 0.3. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** β of oscarmax, in [0, 2]; default 0.2. */
  get beta(): number;
  set beta(v: Or<number>);
  /** The temperature T (the mappings see z / T), in [0.01, 10]; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** The mappings drawn; default softmax, sparsemax, entmax15, entmax, fusedmax. */
  get mappings(): readonly SxMappingName[];
  set mappings(v: Or<Iterable<SxMappingName>>);
  /** The mapping(s) of 100 random score vectors drawn as a cloud; default "sparsemax". */
  get cloud(): "none" | "all" | SxMappingName;
  set cloud(v: Or<"none" | "all" | SxMappingName>);
  /** The entropy drawn behind the triangle; default "none". */
  get entropy(): "none" | "shannon" | "tsallis";
  set entropy(v: Or<"none" | "shannon" | "tsallis">);
  /** "both" (ternary plot and 3-D view) or "ternary"; default "both". */
  get view(): "both" | "ternary";
  set view(v: Or<"both" | "ternary">);
  /** The 3-D view's rotation (radians); default -0.75. */
  get yaw(): number;
  set yaw(v: Or<number>);
  /** The 3-D view's tilt (radians), in [-1.5, 1.5]; default 0.45. */
  get pitch(): number;
  set pitch(v: Or<number>);
}

/** `<sx-loss>`: each mapping's Fenchel-Young loss for one target over the target's two score
 *  differences, exactly 0 past the sparse mappings' margin (the full core). */
declare class SxLossElement extends SxElement {
  /** The target class; default "A". */
  get target(): "A" | "B" | "C";
  set target(v: Or<"A" | "B" | "C">);
  /** The three scores, each in [-10, 10]; default [1, 0, -0.5]. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** The mappings whose losses are drawn; default softmax, sparsemax, entmax15. */
  get mappings(): readonly SxLossMapping[];
  set mappings(v: Or<Iterable<SxLossMapping>>);
  /** α of α-entmax, in [1.05, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** Each panel spans score differences in [-range, range], range in [1, 8]; default 3. */
  get range(): number;
  set range(v: Or<number>);
}

/** `<sx-chain>`: structured attention over a sequence, a chain of attend / skip choices: the CRF
 *  marginals beside SparseMAP's (exact zeros) and SparseMAP's selections with their weights (the
 *  full core). */
declare class SxChainElement extends SxElement {
  /** The unary scores u, 2 to 24 of them, each in [-2.5, 2.5]; default [1.2, 0.4, 0.9, -1.2, -0.3, 0.8, 0.7, -0.9, 0.2, -0.6]. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** The transition score t, in [-3, 3]: > 0 rewards attending to neighbours together; default 0.5. */
  get transition(): number;
  set transition(v: Or<number>);
}

/** The output mappings of <sx-decode>: each a shipped model of the task with 1.5-entmax attention. */
type SxDecodeOutput = "softmax" | "sparsemax" | "entmax15";
/** What `<sx-decode>` drew last: model.decode's row, exactSearch's result (the first cap found
 *  when more have nonzero probability) and the library's message then ("" when complete). */
interface SxDecodeResult { decode: DecodedRow; search: ExactSearchResult; capMessage: string }

/** `<sx-decode>`: a seq2seq model's sparse outputs: greedy decoding's next-token distribution at
 *  every step with its support (exact zeros left empty), and exact search's list of every output
 *  sequence with nonzero probability (the full core). */
declare class SxDecodeElement extends SxElement {
  /** The task; default "reverse". */
  get task(): TaskName;
  set task(v: Or<TaskName>);
  /** The output mapping (the task's softmax-, sparsemax- or 1.5-entmax-output model); default "entmax15". */
  get output(): SxDecodeOutput;
  set output(v: Or<SxDecodeOutput>);
  /** The step read out under the grid (0-based, clamped to the output's length); default 0. */
  get step(): number;
  set step(v: Or<number>);
  /** Exact search's cap, a whole number in [1, 1000]; default 100. */
  get cap(): number;
  set cap(v: Or<number>);
  /** The source text (the attribute, or the task's example when it has none). */
  get source(): string;
  set source(v: Or<string>);
  /** The models attribute: the folder of the .sxm checkpoints (null: models/ beside the library). */
  get models(): string | null;
  set models(v: Or<string | URL>);
  /** What it drew last; null before its model has loaded. */
  get result(): SxDecodeResult | null;
}

/** The shipped character models of <sx-write> (web/models/text/devil-<kind>.sxm). */
type SxWriteModel = "softmax" | "entmax15" | "entmax15-out";
/** What <sx-write> drew last. */
interface SxWriteResult {
  /** The prompt and what it wrote; written alone. */
  text: string; written: string;
  /** The next character's distribution over the model's tokens (TextModel.next on context). */
  probs: Float32Array;
  /** attention[layer][head]: the attention row over the context. */
  attention: Float32Array[][];
  context: string;
  /** The character it draws next. */
  next: string;
  /** The word list (a sparse-output model, stopped): null otherwise. Complete (every continuation
   *  with p > 0) within the cap; past it, the words its best-first search found, openMass the
   *  probability the open prefixes still hold, the first `sure` words surely the most probable. */
  words: { words: { word: string; p: number }[]; complete: boolean; overflow: boolean; open: number;
    openMass: number; sure: number; unfinished: number; visited: number } | null;
  /** The model that wrote: a shipped one, or the reader's fine-tuned one (shipped false: its
   *  menu name, its store key once kept, else null, its training steps and learning rate). */
  model: { kind: SxWriteModel; shipped: boolean; name: string; key: string | null; steps: number | null; lr: number | null };
}

/** `<sx-write>`: a character language model (decoder-only, the KV cache) continues a prompt: its
 *  next-character distribution with exact zeros, every head's attention row, and for the
 *  sparse-output model every word it could write next (the full core). */
declare class SxWriteElement extends SxElement {
  /** The shipped model; default "entmax15-out". */
  get model(): SxWriteModel;
  set model(v: Or<SxWriteModel>);
  /** Characters written, 0..2000 (a link restores the same text); default 0. */
  get steps(): number;
  set steps(v: Or<number>);
  /** Sampling seed, a whole number in [0, 2^32); default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** In [0.1, 3]; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** Top-k, 0 (all) to 96; default 0. */
  get topK(): number;
  set topK(v: Or<number>);
  /** Top-p in [0.05, 1]; default 1. */
  get topP(): number;
  set topP(v: Or<number>);
  /** Characters a second while running, 1..60; default 12. */
  get speed(): number;
  set speed(v: Or<number>);
  /** The word list's cap (prefixes and words visited), 1..5000; default 1000. */
  get cap(): number;
  set cap(v: Or<number>);
  /** The prompt (the attribute; default "LOVE, n. "). */
  get prompt(): string;
  set prompt(v: Or<string>);
  /** True while it writes on (start()). */
  get running(): boolean;
  /** What it drew last; null before its model has loaded. */
  get result(): SxWriteResult | null;
  /** The fine-tuning run (copies), or null before the first. */
  get tuning(): { state: "training" | "stopping" | "paused" | "done" | "error"; step: number; steps: number; thread: "worker" | "main"; losses: number[]; held: { step: number; loss: number }[]; sample: { step: number; text: string } | null; note: string } | null;
  /** Fine-tune the model written with on the "Fine-tune on your text" box's text: true once started, false (with a message) when it cannot. */
  tune(): Promise<boolean>;
  /** Write on, speed characters a second. */
  start(): void;
  /** Stop writing. */
  stop(): void;
}

/** `<sx-cues>`: attention cues (the notes' "Attention Cues in Biology"): a row of objects (colour
 *  and shape, their keys) weighed by saliency (the nonvolitional cue, no query), by a query (the
 *  volitional cue) or both, through a mapping of the library; the weights drawn on the objects
 *  (the mappings core). */
declare class SxCuesElement extends SxElement {
  /** The scene, 2 to 10 objects "<colour>-<shape>" (red, blue, green, yellow, gray; circle, square, triangle); default gray-square gray-square red-circle gray-square blue-square gray-square. */
  get objects(): readonly SxCuesObject[];
  set objects(v: Or<Iterable<SxCuesObject>>);
  /** What the scores follow: "saliency" (no query), "query" or "both" (summed); default "saliency". */
  get cue(): SxCue;
  set cue(v: Or<SxCue>);
  /** The query's features (colours and shapes); default ["blue"]. */
  get query(): readonly SxCuesFeature[];
  set query(v: Or<Iterable<SxCuesFeature>>);
  /** The mapping of the scores to weights; default "softmax". */
  get mapping(): SxCuesMapping;
  set mapping(v: Or<SxCuesMapping>);
  /** α of α-entmax, in [1.01, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The scores' scale, in [0.1, 10]; default 3. */
  get gain(): number;
  set gain(v: Or<number>);
}
type SxCue = "saliency" | "query" | "both";
type SxCuesColor = "red" | "blue" | "green" | "yellow" | "gray";
type SxCuesShape = "circle" | "square" | "triangle";
type SxCuesFeature = SxCuesColor | SxCuesShape;
type SxCuesObject = `${SxCuesColor}-${SxCuesShape}`;
type SxCuesMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";

/** `<sx-costs>`: the notes' table CNN vs RNN vs self-attention, live: the orders at n, d, k, the
 *  connection graphs, the crossovers n = d and n = k d, and the library's attention timed in
 *  this browser (the full core). */
declare class SxCostsElement extends SxElement {
  /** The sequence length n, 2 to 4096; default 32. */
  get n(): number;
  set n(v: Or<number>);
  /** The width d, 2 to 1024; default 64. */
  get d(): number;
  set d(v: Or<number>);
  /** The kernel size k of the CNN, 2 to 16; default 3. */
  get k(): number;
  set k(v: Or<number>);
  /** Times attention() (and the recurrent layer, once recurrentLayer is set) at a few n around n, in short tasks; resolves to what sx-costs-measure carries. */
  measure(): Promise<SxCostsMeasureDetail>;
  /** The recurrent layer's timing hook: (n, d) => void, one recurrent layer of width d over n steps; by default the RNN class's GRU encoder (d up to 256); null: none timed. */
  static recurrentLayer: ((n: number, d: number) => void) | null;
}

/** `<sx-bottleneck>`: three recurrent encoder-decoders (no attention, additive, hard) trained
 *  side by side on the reverse task in a Web Worker: loss curves, held-out exact accuracy against
 *  source length, the additive model's attention forming; "trained" shows the shipped .sxrn
 *  models (the full core). */
declare class SxBottleneckElement extends SxElement {
  /** The additive model's mapping; default "softmax". */
  get mapping(): SxBottleneckMapping;
  set mapping(v: Or<SxBottleneckMapping>);
  /** The hard model's gradient estimator; default "straight". */
  get estimator(): SxBottleneckEstimator;
  set estimator(v: Or<SxBottleneckEstimator>);
  /** The run's length in steps, 100 to 5000; default 2000. */
  get steps(): number;
  set steps(v: Or<number>);
  /** The seed of the models and the training data, 0 to 1000000; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** "live" (the run trained here) or "trained" (the shipped models); default "live". */
  get view(): "live" | "trained";
  set view(v: Or<"live" | "trained">);
  /** The live run (copies), or null before the first Train. */
  readonly training: SxBottleneckTraining | null;
  /** The "trained" view's models: null until first shown; accuracy: none, additive softmax, additive 1.5-entmax, hard (per length 3..10). */
  readonly trained: { state: "loading" | "ready" | "error"; accuracy: number[][] | null } | null;
  /** The held-out source (token ids) whose attention is drawn. */
  readonly source: Int32Array | null;
  /** Start a run with the current settings (a run under way is dropped). */
  train(): void;
  /** Pause the run: the models are kept and evaluated at the step reached. */
  stop(): void;
  /** Go on from the step reached. */
  resume(): void;
  /** Drop the run. */
  restart(): void;
}
/** `<sx-rationale>`: four rationalizers (a generator selecting input tokens by sparsemax or
 *  1.5-entmax over the positions, HardKuma gates, or REINFORCE Bernoulli gates; a predictor that
 *  sees the selection alone) trained side by side in a Web Worker, the same seed and examples:
 *  four held-out examples with each method's selection, and a live table of held-out accuracy,
 *  rationale precision / recall and selected fraction beside the README's (the full core). */
declare class SxRationaleElement extends SxElement {
  /** The run's length in steps, 50 to 5000; default 1500 (make rationales'). */
  get steps(): number;
  set steps(v: Or<number>);
  /** The models' seed (initialisation and noise), 0 to 1000000; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** The live run (copies), or null before the first Train. */
  readonly training: SxRationaleTraining | null;
  /** The README's figures shown beside the live ones, in %: accuracy, precision, recall, selected. */
  readonly reference: Record<SxRationaleMethod, [number, number, number, number]>;
  /** Start a run with the current steps and seed (a run under way is dropped). */
  train(): void;
  /** Pause the run after the slice under way (the models are kept). */
  stop(): void;
  /** Go on from the step reached. */
  resume(): void;
  /** Drop the run. */
  restart(): void;
}
type SxRationaleMethod = "sparsemax" | "entmax15" | "hardkuma" | "reinforce";
type SxRationaleState = "training" | "stopping" | "paused" | "done" | "error";
interface SxRationaleFigures { accuracy: number; precision: number; recall: number; fraction: number }
interface SxRationaleTraining {
  state: SxRationaleState; step: number; total: number; seed: number; thread: "worker" | "main";
  /** Each model's loss of every step, in Rationale.methods order. */
  losses: number[][];
  /** The last drawn: Rationale.evaluate on the 2000 held-out examples, and Rationale.predict of the first four (4 x 12 weights each). */
  snapshot: { step: number; figures: SxRationaleFigures[]; weights: Float32Array[]; labels: Int32Array[] } | null;
}
/** `<sx-hard>`: soft, sparse and hard attention on the reverse task: the shipped softmax,
 *  sparsemax, 1.5-entmax and hard (straight-through) models' attention for a source the reader
 *  types, step by step; the gradient estimators' variance and the six training curves measured by
 *  `make rnn-variance` (models/rnn-variance.json); the lecture's point with those numbers (the full core). */
declare class SxHardElement extends SxElement {
  /** The source to reverse: 1 to 10 letters a..j; default "abcdefgh" (a bad one falls back with a message). */
  get source(): string;
  set source(v: string | null);
  /** The gradient figure drawn; default "variance". */
  get figure(): SxHardFigure;
  set figure(v: Or<SxHardFigure>);
  /** The training curve drawn; default "accuracy". */
  get curve(): "accuracy" | "loss";
  set curve(v: Or<"accuracy" | "loss">);
  /** What the widget drew last (a copy), or null before the models loaded. */
  readonly result: SxHardResult | null;
  /** The measured figures drawn (a copy of models/rnn-variance.json), or null until loaded. */
  readonly figures: SxHardFigures | null;
}
type SxHardFigure = "variance" | "cosine" | "bias";
type SxHardModel = "softmax" | "sparsemax" | "entmax15" | "hard";
type SxHardMethod = "softmax" | "sparsemax" | "entmax15" | "reinforce" | "gumbel" | "straight";
/** One model's greedy decoding of the source: its output, its attention rows (one per step up to EOS, over the letters and EOS), the token each step wrote, and the selections: mean nonzero weights per step, the share of steps with one, the share whose largest weight is on hard attention's position. */
interface SxHardDecoded { key: SxHardModel; output: string; right: boolean; rows: number[][]; written: number[]; support: number; one: number; agree: number }
interface SxHardResult { source: string; answer: string; models: SxHardDecoded[] }
/** tools/rnn-variance.c's statistics of one method's attention-side gradient at one parameter point. */
interface SxHardStats { method: SxHardMethod; norm: number; relvar: number; cos_soft: number; cos_soft_one: number; cos_reinforce: number; dist_reinforce: number; support: number; support1: number }
interface SxHardFigures {
  task: string; seed: number; steps: number; total: number; mid: number; draws: number; batch: number; val: number;
  points: { name: "init" | "mid" | "end" | "shipped"; step: number; floor: number; methods: SxHardStats[] }[];
  curves: { method: SxHardMethod; points: { step: number; loss: number; val_accuracy: number; support: number; support1: number }[];
    trace: { step: number; loss: number; val_accuracy: number }[] }[];
}
type SxBottleneckMapping = "softmax" | "sparsemax" | "entmax15";
type SxBottleneckEstimator = "straight" | "gumbel" | "reinforce";
type SxBottleneckState = "training" | "stopping" | "paused" | "done" | "error";
/** The accuracy of the three models (none, additive, hard) at one step, one fraction per source length 3..10. */
interface SxBottleneckEval { step: number; accuracy: number[][] }
interface SxBottleneckTraining {
  state: SxBottleneckState; step: number; total: number; thread: "worker" | "main";
  config: { mapping: SxBottleneckMapping; estimator: SxBottleneckEstimator; total: number; seed: number };
  /** Each model's loss per step. */
  losses: number[][];
  evals: SxBottleneckEval[];
  /** While paused: the three models' float32 rnn.save() bytes (RNN.load reads them); else null. */
  models: Uint8Array[] | null;
}

/** `<sx-entropy>`: Shannon and Tsallis α-entropy as filled contours over the simplex. */
declare class SxEntropyElement extends SxElement {
  /** Tsallis α, in [0.1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** Three scores in [-10, 10] whose softmax and α-entmax are drawn; default null (none). */
  get scores(): readonly number[] | null;
  set scores(v: Or<NumberList>);
}

/** `<sx-trajectory>`: the path of mapping(t z) on the simplex as t grows. */
declare class SxTrajectoryElement extends SxElement {
  /** The three scores z, each in [-10, 10]; default [1.5, 0, 1]. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** The mappings drawn; default softmax, entmax15, sparsemax. */
  get mappings(): readonly SxMappingName[];
  set mappings(v: Or<Iterable<SxMappingName>>);
  /** α of α-entmax, in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** λ of fusedmax, in [0, 2]; default 0.3. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** β of oscarmax, in [0, 2]; default 0.2. */
  get beta(): number;
  set beta(v: Or<number>);
  /** The current t (= 1 / T), in [0, 10000]; default 1. */
  get t(): number;
  set t(v: Or<number>);
  /** The largest t drawn, in [1, 10000]; default 50. */
  get tmax(): number;
  set tmax(v: Or<number>);
}

/** `<sx-two-choice>`: α-entmax([t, 0])₁ against t for several α. */
declare class SxTwoChoiceElement extends SxElement {
  /** The α of the curves, 1 to 8 values in [1, 8]; default [1, 1.25, 1.5, 2, 3]. */
  get alphas(): readonly number[];
  set alphas(v: Or<NumberList>);
  /** The highlighted α (the slider), in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The cursor t, in [-3, 3]; default 0.5. */
  get t(): number;
  set t(v: Or<number>);
}

/** `<sx-fused>`: sparsemax, fusedmax, oscarmax and groupmax over a sequence of scores, and sigmoid
 *  for contrast (independent weights, not on the simplex: their sum is printed). */
declare class SxFusedElement extends SxElement {
  /** The scores, 2 to 24 numbers in [-2.5, 2.5]; default 10 scores. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** λ of fusedmax, in [0, 2]; default 0.2. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** β of oscarmax, in [0, 1]; default 0.03. */
  get beta(): number;
  set beta(v: Or<number>);
  /** groupmax's contiguous group sizes, 1 to 24 whole numbers summing to the number of scores;
   *  default 3 3 2 2. Sizes that do not sum to it fall back to groups of about 3 (and say so). */
  get groups(): readonly number[];
  set groups(v: Or<NumberList>);
  /** λ of groupmax (the `group-lambda` attribute), in [0, 5]; default 0.3. */
  get groupLambda(): number;
  set groupLambda(v: Or<number>);
  /** Show fusedmax's two steps (prox_TV with its runs, the projection, the gradient of one
   *  output); default false. */
  get steps(): boolean;
  set steps(v: boolean);
  /** The output coordinate j (1-based) whose gradient the steps draw, a whole number in [1, 24];
   *  default 2 (beyond the number of scores: the last). */
  get output(): number;
  set output(v: Or<number>);
}

/**
 * `<sx-jacobian>`: the whole Jacobian dp/dz of a mapping as a heatmap, beside the scores, the
 * output p and (n = 3) the simplex; t moves the scores along a face of the simplex.
 */
declare class SxJacobianElement extends SxElement {
  /** The mapping whose Jacobian is drawn; default "sparsemax". */
  get mapping(): SxMappingName;
  set mapping(v: Or<SxMappingName>);
  /** A second mapping drawn beside it ("none": only one); default "softmax". */
  get compare(): "none" | SxMappingName;
  set compare(v: Or<"none" | SxMappingName>);
  /** The number of scores, a whole number in [2, 8]; default 3. */
  get n(): number;
  set n(v: Or<number>);
  /** The n scores z, each in [-3, 3]; default (no attribute): the face path's point at t. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** α of α-entmax, in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** λ of fusedmax, in [0, 2]; default 0.3. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** β of oscarmax, in [0, 2]; default 0.2. */
  get beta(): number;
  set beta(v: Or<number>);
  /** The temperature T (the mappings see z / T), in [0.01, 10]; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** The face path's start (t = 0), n scores in [-3, 3]; default [0.99, 0.01, -1, ..., -1]. */
  get from(): readonly number[];
  set from(v: Or<NumberList>);
  /** The face path's end (t = 1), n scores in [-3, 3]; default [0.5, 0.5, -1, ..., -1]. */
  get to(): readonly number[];
  set to(v: Or<NumberList>);
  /** Where the scores are on the face path, in [0, 1]; default 0. */
  get t(): number;
  set t(v: Or<number>);
  /** The Jacobian shown, n * n row-major (J[i*n + j] = dp_i / dz_j, 1/T included); null before the first render. A copy. */
  get jacobian(): Float32Array | null;
  /** The output p shown; null before the first render. A copy. */
  get p(): Float32Array | null;
}

/**
 * `<sx-threshold>`: a row of scores as bars, the threshold τ of a sparse mapping as a line across
 * them, the support above it and the weights below; "Show the steps" finds τ step by step.
 */
declare class SxThresholdElement extends SxElement {
  /** How many random scores when there is no scores attribute, a whole number in [1, 50]; default 8. */
  get n(): number;
  set n(v: Or<number>);
  /** The scores, 1 to 50 numbers in [-3, 3]; default null: n seeded random scores in [-1, 1.5]. */
  get scores(): readonly number[] | null;
  set scores(v: Or<NumberList>);
  /** The random scores' seed, in [0, 4294967295]; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** The mapping; default "sparsemax" (softmax has no threshold: no line, its normaliser instead). */
  get mapping(): SxThresholdMapping;
  set mapping(v: Or<SxThresholdMapping>);
  /** α of α-entmax, in [1.01, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The temperature T (the mapping sees z / T), in [0.1, 10]; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** The steps attribute: show how τ is found (sparsemax's closed form, entmax's bisection). */
  get steps(): boolean;
  set steps(v: boolean);
}

/**
 * `<sx-regularized>`: argmax as a linear program over the simplex (the optimal vertex, or edge on
 * a tie), the regularised max max_{TΩ}(z) = ⟨p, z⟩ − T Ω(p) as contours over the score plane with
 * its gradient p, and Ω itself on the simplex.
 */
declare class SxRegularizedElement extends SxElement {
  /** The three scores z, each in [-3, 3]; default [1.5, 0, 1]. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** The mapping, the gradient of max_Ω: Ω = −Shannon (softmax), −Tsallis 2 (sparsemax), −Tsallis α; default "softmax". */
  get mapping(): SxRegularizedMapping;
  set mapping(v: Or<SxRegularizedMapping>);
  /** α of α-entmax, in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The temperature T (max_{TΩ}, the mapping sees z / T), in [0.01, 10]; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** The views drawn; default argmax, max, omega. */
  get view(): readonly SxRegularizedView[];
  set view(v: Or<Iterable<SxRegularizedView>>);
  /** The mapping's output p at the scores shown (the gradient of max_{TΩ}); null before the first render. A copy. */
  get p(): readonly number[] | null;
  /** max_{TΩ}(z) at the scores shown; null before the first render. */
  get value(): number | null;
  /** The optimal face of argmax: the indices of the largest score (two on a tie); null before the first render. A copy. */
  get argmax(): readonly number[] | null;
}

/** `<sx-span-mask>`: the adaptive attention span's soft mask applied to one row of attention. */
declare class SxSpanMaskElement extends SxElement {
  /** One row of scores, 2 to 32 numbers in [-10, 10]; default 16 scores. */
  get scores(): readonly number[];
  set scores(v: Or<NumberList>);
  /** The row's mapping; default "softmax". */
  get mapping(): SxSpanMapping;
  set mapping(v: Or<SxSpanMapping>);
  /** α of α-entmax, in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The span z, in [0, 32] positions; default 4. */
  get z(): number;
  set z(v: Or<number>);
  /** The ramp R, in [0.25, 16]; default 3. */
  get ramp(): number;
  set ramp(v: Or<number>);
  /** Also draw the spans the shipped `<task>-alpha-span.sxm` learned; default "none". */
  get model(): "none" | TaskName;
  set model(v: Or<"none" | TaskName>);
}

/** `<sx-pooling>`: attention pooling as kernel regression (Nadaraya-Watson), with "learn w". */
declare class SxPoolingElement extends SxElement {
  /** The kernels; default softmax, sparsemax, entmax15. */
  get mappings(): readonly SxPoolingKernel[];
  set mappings(v: Or<Iterable<SxPoolingKernel>>);
  /** Every kernel's w, in [0.05, 50]; default 1. */
  get w(): number;
  set w(v: Or<number>);
  /** α of the entmax kernel, in [1, 4]; default 1.3. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** λ of the fusedmax kernel, in [0, 2]; default 0.05. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** Training points, in [5, 200]; default 50. */
  get points(): number;
  set points(v: Or<number>);
  /** The data's seed, in [0, 4294967295]; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** The noise's standard deviation, in [0, 2]; default 0.5. */
  get noise(): number;
  set noise(v: Or<number>);
  /** Gradient steps of "learn w", in [1, 2000]; default 100. */
  get steps(): number;
  set steps(v: Or<number>);
  /** The result of the last finished "learn w" (the sx-pooling-learn event's detail); undefined before. */
  readonly lastLearn: SxPoolingLearnDetail | undefined;
}

/**
 * `<sx-positions>`: the sinusoidal positional encodings (the library's positionalEncoding, the
 * model's table at base 10000): the position x dimension matrix with the bits of each position,
 * the dot product of two encodings against their offset, one column pair's rotation M_k, and the
 * relative encodings (Shaw et al.'s clipped distances, Transformer-XL's four terms).
 */
declare class SxPositionsElement extends SxElement {
  /** The base of the wavelengths, in [2, 1e6]; default 10000. */
  get base(): number;
  set base(v: Or<number>);
  /** The dimension d, even, in [2, 64]; default 32 (an odd one is drawn as d - 1, with a message). */
  get dim(): number;
  set dim(v: Or<number>);
  /** The number of positions drawn (0 .. positions - 1), in [8, 96]; default 48. */
  get positions(): number;
  set positions(v: Or<number>);
  /** The offset k of the rotation and the marked rows, in [1, 95] (at most positions - 1); default 4. */
  get offset(): number;
  set offset(v: Or<number>);
  /** The column pair p drawn as a rotation, in [0, 31] (at most d / 2 - 1); default 1. */
  get pair(): number;
  set pair(v: Or<number>);
  /** The position i rotated to i + k, in [0, 95]; default 3. */
  get position(): number;
  set position(v: Or<number>);
  /** K of Shaw et al.'s clipped distances, in [0, 16]; default 3. */
  get clip(): number;
  set clip(v: Or<number>);
  /** The seed of Transformer-XL's random q, k, u, v; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** The matrix drawn (positions x dim, row-major), a copy; null before the first render. */
  get matrix(): Float32Array | null;
}

/** The scoring functions of <sx-scores> (the library's attentionScores). */
type SxScoring = "dot" | "scaled" | "bilinear" | "additive";
/** The mappings of <sx-scores>. */
type SxScoresMapping = "softmax" | "sparsemax" | "entmax15" | "entmax";

/**
 * `<sx-scores>`: attention scoring functions. A query (draggable, arrow keys on its handle) among
 * a few keys in the plane; the scores (dot, scaled, bilinear q^T W k, additive wv . tanh(Wq q + Wk k)),
 * the weights of a mapping (exact zeros marked) and the pooled value (the weighted average of the
 * keys' positions). Beside it, the 1/sqrt(d) panel: the largest weight of random scores, scaled
 * vs unscaled, for the d the reader sets.
 */
declare class SxScoresElement extends SxElement {
  /** The scoring function; default "scaled". */
  get scoring(): SxScoring;
  set scoring(v: Or<SxScoring>);
  /** The mapping; default "sparsemax". */
  get mapping(): SxScoresMapping;
  set mapping(v: Or<SxScoresMapping>);
  /** α of "entmax", in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** The query [x, y], each in [-2, 2]; default [0.5, 0.3]. */
  get query(): readonly number[];
  set query(v: Or<readonly number[]>);
  /** The keys' positions, x y pairs (1 to 8 keys) in [-2, 2]. */
  get keys(): readonly number[];
  set keys(v: Or<readonly number[]>);
  /** Bilinear W (2 x 2, row-major), entries in [-5, 5]. */
  get bilinear(): readonly number[];
  set bilinear(v: Or<readonly number[]>);
  /** Additive [Wq (2 x 2) | Wk (2 x 2) | wv (2)], hidden size 2, entries in [-5, 5]. */
  get additive(): readonly number[];
  set additive(v: Or<readonly number[]>);
  /** d of the 1/sqrt(d) panel, in [1, 1024]; default 64. */
  get d(): number;
  set d(v: Or<number>);
  /** The scores drawn (one per key); undefined before the first render. */
  readonly scores: Float32Array | undefined;
  /** The weights drawn: the mapping of scores. */
  readonly weights: Float32Array | undefined;
  /** The pooled value [x, y]: the weighted average of the keys' positions. */
  readonly pooled: number[] | undefined;
  /** The 1/sqrt(d) panel's numbers: the mean largest weight and the scores' variance, unscaled and scaled. */
  readonly dStats: { d: number; meanMaxDot: number; meanMaxScaled: number; varDot: number; varScaled: number } | undefined;
}

/** The patterns of <sx-patterns>. */
type SxPatternKind = "local" | "strided" | "fixed" | "lsh";

/** `<sx-patterns>`: structured sparsity patterns (local, strided, fixed, LSH) against the learned
 *  sparsity of entmax and sparsemax, on random queries and keys. */
declare class SxPatternsElement extends SxElement {
  /** Slices of work run so far above n = 362 (each its own task; for tests and benchmarks);
   *  undefined before the first. */
  readonly slices: number | undefined;
  /** Queries and keys, in [8, 2048]; default 256. */
  get n(): number;
  set n(v: Or<number>);
  /** The pattern drawn; default "local". */
  get pattern(): SxPatternKind;
  set pattern(v: Or<SxPatternKind>);
  /** The local window's keys on each side; default 8. */
  get width(): number;
  set width(v: Or<number>);
  /** The strided pattern's stride; default 16. */
  get stride(): number;
  set stride(v: Or<number>);
  /** The fixed pattern's block; default 16. */
  get block(): number;
  set block(v: Or<number>);
  /** The fixed pattern's summary positions per block; default 2. */
  get summary(): number;
  set summary(v: Or<number>);
  /** LSH's buckets (made even), in [2, 64]; default 8. */
  get buckets(): number;
  set buckets(v: Or<number>);
  /** LSH's hash rounds, in [1, 8]; default 1. */
  get rounds(): number;
  set rounds(v: Or<number>);
  /** The seed of the queries, keys and hash rotations; default 1. */
  get seed(): number;
  set seed(v: Or<number>);
  /** The last render: the drawn pattern's mask (n * n), pairs, fraction, the drawn cells (at most
   *  96 a side, each the fraction of its pairs present) and, per pattern, the dense softmax,
   *  1.5-entmax and sparsemax mass it keeps; undefined before the first render. */
  result: {
    n: number; pattern: import("../lib/simplexity.js").AttentionPattern; pairs: number; fraction: number;
    mask: Uint8Array; cells: Float32Array; kept: Record<SxPatternKind, number[]>;
  } | undefined;
}

/** The mappings <sx-heatmap> re-maps with ("none": the file's weights as they are). */
type SxHeatmapMapping = "none" | SxMappingName;
/** One head of <sx-heatmap>'s drawing: its layer and head (0-based), mean row entropy (nats) and fraction of exact zeros. */
interface SxHeatmapHead { layer: number; head: number; entropy: number; zeros: number }

/** `<sx-heatmap>`: a reader's own attention from a file (.npy, .npz, safetensors, JSON), every head
 *  a heatmap with its exact zeros marked, re-mapped post hoc by any mapping, sorted by entropy or sparsity. */
declare class SxHeatmapElement extends SxElement {
  /** The URL of the attention file (fetched once set; the only request the widget makes, with labels); default none. */
  get src(): string | null;
  set src(v: Or<string>);
  /** The URL of the token labels: a JSON list of strings or a text file, one a line; default none. */
  get labels(): string | null;
  set labels(v: Or<string>);
  /** Which array of an .npz or safetensors file holding several; default none (the only one). */
  get key(): string | null;
  set key(v: Or<string>);
  /** What the file holds: "weights" (each row on the simplex, checked) or "scores" (-Infinity a masked key); default "weights". */
  get values(): "weights" | "scores";
  set values(v: Or<"weights" | "scores">);
  /** The mapping drawn ("none": the file's weights; softmax for scores); default "none". */
  get mapping(): SxHeatmapMapping;
  set mapping(v: Or<SxHeatmapMapping>);
  /** α of α-entmax, in [1, 4]; default 1.5. */
  get alpha(): number;
  set alpha(v: Or<number>);
  /** λ of fusedmax, in [0, 2]; default 0.1. */
  get lambda(): number;
  set lambda(v: Or<number>);
  /** β of oscarmax, in [0, 2]; default 0.1. */
  get beta(): number;
  set beta(v: Or<number>);
  /** T in [0.01, 10]: the mappings see z / T; default 1. */
  get temperature(): number;
  set temperature(v: Or<number>);
  /** The heads' order: "none" (layer, head), "entropy" (lowest first) or "sparsity" (most zeros first); default "none". */
  get sort(): "none" | "entropy" | "sparsity";
  set sort(v: Or<"none" | "entropy" | "sparsity">);
  /** The layer drawn, from 1; 0 (the default) draws every layer. */
  get layer(): number;
  set layer(v: Or<number>);
  /** Read files the reader chose or dropped (a FileList, File[]...): attention files, and labels (.txt, a JSON list of strings). */
  loadFiles(files: Iterable<Blob & { readonly name: string }> | ArrayLike<Blob & { readonly name: string }> | null | undefined): Promise<void>;
  /** What is drawn: the file, its shape as (layers, heads, queries, keys), the weights drawn (the file's or re-mapped), the heads in drawing order; undefined before a file is drawn. */
  readonly result: {
    name: string; key: string; dtype: "float16" | "bfloat16" | "float32" | "float64"; shape: [number, number, number, number];
    values: "weights" | "scores"; mapping: SxHeatmapMapping; weights: Float32Array; order: SxHeatmapHead[];
  } | undefined;
}

/** Overrides of `<sx-attention>`'s training schedule (web/trainer.js SCHEDULE). */
interface SxTrainOptions {
  batch?: number; lr?: number; lrMin?: number; warmup?: number; decaySteps?: number; maxSteps?: number;
  evalEvery?: number; heldout?: number; confirm?: number; target?: number; seed?: number; heldoutSeed?: number;
}

/**
 * `<sx-attention>`: the tiny Transformer's attention maps, live, with "train from scratch"; the
 * reader's own model (trained here, or a .sxm loaded or dropped) is kept in this browser
 * (IndexedDB) until "Forget", and "Download .sxm" saves the model shown.
 */
declare class SxAttentionElement extends SxElement {
  /** The task; default "reverse". */
  get task(): TaskName;
  set task(v: Or<TaskName>);
  /** The shipped model shown; default "alpha". */
  get kind(): SxAttentionKind;
  set kind(v: Or<SxAttentionKind>);
  /** The maps drawn, in order; default encoder, decoder, cross. */
  get maps(): readonly AttentionKind[];
  set maps(v: Or<Iterable<AttentionKind>>);
  /** The no-train attribute: hide the training panel. */
  get noTrain(): boolean;
  set noTrain(v: boolean);
  /**
   * The decode attribute: open "Decode step by step" (the greedy decoding one step at a time:
   * each decoder layer's KV cache, the step's attention rows, the rows computed with and without
   * the cache); opening or closing the panel sets or removes it.
   */
  get decode(): boolean;
  set decode(v: boolean);
  /** The decoding step shown in "Decode step by step", a whole number in [1, 255] (past the output's end: the last step); default 1. */
  get step(): number;
  set step(v: Or<number>);
  /** The input text (the attribute, or the task's example when it has none). */
  get input(): string;
  set input(v: Or<string>);
  /** The models attribute: the folder of the .sxm checkpoints (null: models/ beside the library). */
  get models(): string | null;
  set models(v: Or<string | URL>);
  /**
   * The model-src attribute: the URL (relative to the page) of a .sxm checkpoint to show instead
   * of the shipped model; the widget switches to the task and kind it was trained for. A bad or
   * missing file leaves a message and the shipped model. null: none.
   */
  get modelSrc(): string | null;
  set modelSrc(v: Or<string | URL>);
  /** The model shown, as the last sx-attention-model event described it; null before one is shown. */
  get shownModel(): SxAttentionModelDetail | null;
  /** Schedule overrides for the next training run (null: the defaults). */
  trainOptions: SxTrainOptions | null;
  /** The Worker of the run under way, or null (none, or a run on the main thread). */
  get trainingWorker(): Worker | null;
  /** Where the run under way trains: "worker", "main" (no worker could be started) or null. */
  get trainingThread(): "worker" | "main" | null;
}

/** The importances `<sx-explain>` shows (model.explain's methods), per source token. */
type SxExplainMethod = "gradInput" | "integratedGradients" | "leaveOneOut" | "rollout";
/** The models "Run the experiments" compares. */
type SxExplainExperimentKind = "softmax" | "entmax15" | "alpha";
/** A finished experiments run of `<sx-explain>`: explain.js runExperiments' summary per model. */
interface SxExplainExperiments {
  task: TaskName; examples: number;
  summaries: Partial<Record<SxExplainExperimentKind, ExperimentSummary>>;
}

/**
 * `<sx-explain>`: "is attention explanation?" on the tiny Transformer. The attention row of an
 * output step (one cross-attention head, or their mean) beside gradient x input, integrated
 * gradients, leave-one-out, rollout and the known alignment, with Kendall's tau; source tokens
 * erased live; "Run the experiments" (explain.js runExperiments for the softmax, 1.5-entmax and
 * learned-α models, in a Web Worker) draws the erasure curves and a table per model.
 */
declare class SxExplainElement extends SxElement {
  /** The task; default "reverse". */
  get task(): TaskName;
  set task(v: Or<TaskName>);
  /** The shipped model explained; default "entmax15". */
  get kind(): SxModelKind;
  set kind(v: Or<SxModelKind>);
  /** What is explained at the step: the target's logit or its log-probability; default "logit". */
  get objective(): "logit" | "logProb";
  set objective(v: Or<"logit" | "logProb">);
  /** The output step explained (0-based, clamped to the output's length); default 0. */
  get step(): number;
  set step(v: Or<number>);
  /** Held-out examples per model for "Run the experiments", a whole number in [10, 1000]; default 40 (about 10 s for the three models). */
  get examples(): number;
  set examples(v: Or<number>);
  /** The erased source positions (0 is the first; clicking a token writes it); default none. */
  get erase(): readonly number[];
  set erase(v: Or<NumberList>);
  /** Where the erased keys are erased from: the step's cross-attention rows ("step", default) or every row ("all"). */
  get eraseFrom(): "step" | "all";
  set eraseFrom(v: Or<"step" | "all">);
  /** The source text (the attribute, or the task's example when it has none). */
  get text(): string;
  set text(v: Or<string>);
  /** The cross-attention head: "mean" (of every layer and head) or "<layer>.<head>", 1-based ("2.1"); default "mean". */
  get head(): string;
  set head(v: Or<string>);
  /** The models attribute: the folder of the .sxm checkpoints (null: models/ beside the library). */
  get models(): string | null;
  set models(v: Or<string | URL>);
  /** Where the last (or current) experiments run ran: "worker", "main" (no worker could start) or null (none yet). */
  get experimentsRanIn(): "worker" | "main" | null;
  /** The last finished experiments run; null before one finished. */
  get experiments(): SxExplainExperiments | null;
}

// -------------------------------------------------------------------------- events
/** `<tag>-export`: after exportAs() (or a toolbar button) downloaded the file. */
interface SxExportDetail { format: "svg" | "png"; size: number }
/** sx-simplex-change: the reader moved a score, a slider or the score point. */
interface SxSimplexChangeDetail { scores: readonly number[]; alpha: number; lambda: number; temperature: number }
/** sx-loss-change: the reader moved the scores' point, the target or α. */
interface SxLossChangeDetail { target: "A" | "B" | "C"; scores: readonly number[]; alpha: number }
/** sx-chain-change: the reader dragged a score or moved the transition. */
interface SxChainChangeDetail { scores: readonly number[]; transition: number }
/** sx-decode-change: the reader picked a task, an output, a source or a step. */
interface SxDecodeChangeDetail { task: TaskName; output: SxDecodeOutput; source: string; step: number }
/** sx-write-change: the reader changed the prompt, the model or a sampling setting, or it wrote a character. */
interface SxWriteChangeDetail { prompt: string; model: SxWriteModel; steps: number; seed: number; temperature: number; topK: number; topP: number }
/** sx-write-tune: the fine-tuning went on (loss, held: the last train and held-out loss per character, nats for a softmax output), or its weights were kept (key: the store's key; thread null). */
interface SxWriteTuneDetail { state: "training" | "stopping" | "paused" | "done" | "error" | "kept"; step: number; steps: number; loss: number | null; held: number | null; thread: "worker" | "main" | null; key: string | null }
/** sx-cues-change: the reader changed the cue, the query, the mapping or a slider; the scores and weights of the new state. */
interface SxCuesChangeDetail { cue: SxCue; query: readonly SxCuesFeature[]; mapping: SxCuesMapping; alpha: number; gain: number; scores: readonly number[]; weights: readonly number[] }
/** sx-costs-change: the reader moved n, d or k. */
interface SxCostsChangeDetail { n: number; d: number; k: number }
/** One measured size: the median ms of a call, the formula (n² d or n d²) and its least-squares prediction in ms. */
interface SxCostsMeasureRow { n: number; ms: number; formula: number; predicted: number }
/** sx-costs-measure: a measurement finished (recurrent: null when no recurrent layer was timed: the hook is null, or d is over 256 for the built-in one). */
interface SxCostsMeasureDetail { d: number; attention: SxCostsMeasureRow[] | null; recurrent: SxCostsMeasureRow[] | null }
/** sx-bottleneck-change: the reader changed a menu (or a script an attribute through the setters). */
interface SxBottleneckChangeDetail { mapping: SxBottleneckMapping; estimator: SxBottleneckEstimator; steps: number; seed: number; view: "live" | "trained" }
/** sx-bottleneck-progress: a slice of steps arrived (losses: each model's latest). */
interface SxBottleneckProgressDetail { step: number; total: number; losses: number[]; thread: "worker" | "main" }
/** sx-bottleneck-state: the run started, is stopping, paused, ended or failed. */
interface SxBottleneckStateDetail { state: SxBottleneckState; step: number }
/** sx-bottleneck-trained: the shipped models' accuracy by length (none, additive softmax, additive 1.5-entmax, hard). */
interface SxBottleneckTrainedDetail { accuracy: number[][] }
/** sx-hard-change: the reader edited the source or changed a menu. */
interface SxHardChangeDetail { source: string; figure: SxHardFigure; curve: "accuracy" | "loss" }
/** sx-hard-ready: the four models and the figures loaded, the source drawn. */
interface SxHardReadyDetail { models: SxHardModel[] }
/** sx-rationale-change: the reader changed the steps or the seed. */
interface SxRationaleChangeDetail { steps: number; seed: number }
/** sx-rationale-progress: a slice of steps arrived (losses: each model's latest). */
interface SxRationaleProgressDetail { step: number; total: number; losses: number[]; thread: "worker" | "main" }
/** sx-rationale-state: the run started, is stopping, paused, ended or failed. */
interface SxRationaleStateDetail { state: SxRationaleState; step: number }
/** sx-entropy-change: the reader moved the α slider. */
interface SxEntropyChangeDetail { alpha: number }
/** sx-trajectory-change: the reader moved the t slider. */
interface SxTrajectoryChangeDetail { t: number }
/** sx-two-choice-change: the reader moved the α slider or the t cursor. */
interface SxTwoChoiceChangeDetail { alpha: number; t: number }
/** sx-fused-change: the reader moved a score or a slider. */
interface SxFusedChangeDetail { scores: readonly number[]; lambda: number; beta: number; groupLambda: number; steps: boolean; output: number }
/** sx-jacobian-change: the reader moved a score, t or a slider, or chose a mapping; p and the Jacobian (n * n, row-major) at the new scores. */
interface SxJacobianChangeDetail { scores: readonly number[]; mapping: SxMappingName; t: number; p: Float32Array; jacobian: Float32Array }
/**
 * sx-threshold-change: the reader moved a score, α or chose a mapping. tau: threshold()'s τ (in
 * units of z / T; softmax: its log-sum-exp normaliser), p: the weights, support: the indices of
 * the non-zero weights, ascending.
 */
interface SxThresholdChangeDetail {
  scores: readonly number[]; tau: number; p: readonly number[]; support: readonly number[]; mapping: SxThresholdMapping; alpha: number;
}
/**
 * sx-regularized-change: the reader moved a score (a slider or the score point), α or T, or chose
 * a mapping. p: the mapping's output (the gradient of max_{TΩ} at the scores), value: max_{TΩ}(z),
 * argmax: the indices of the largest score (two or three on a tie: the optimal face).
 */
interface SxRegularizedChangeDetail {
  scores: readonly number[]; mapping: SxRegularizedMapping; alpha: number; temperature: number;
  p: readonly number[]; value: number; argmax: readonly number[];
}
/** sx-span-mask-change: the reader moved z or R, chose a mapping or applied a head's span. */
interface SxSpanMaskChangeDetail { z: number; ramp: number; mapping: SxSpanMapping }
/** sx-patterns-change: the reader chose a pattern or a length. */
interface SxPatternsChangeDetail { n: number; pattern: SxPatternKind; pairs: number; fraction: number }
/** sx-scores-change: the reader moved the query, chose a scoring or a mapping, edited a parameter or moved d. */
interface SxScoresChangeDetail {
  query: readonly number[]; scoring: SxScoring; mapping: SxScoresMapping; scores: Float32Array; weights: Float32Array;
  pooled: readonly number[]; d: number;
}
/** sx-pooling-change: the reader moved the w slider. */
interface SxPoolingChangeDetail { w: number }
/** sx-positions-change: the reader moved a slider (base, d, positions, offset, pair, position or K). */
interface SxPositionsChangeDetail { base: number; dim: number; positions: number; offset: number; pair: number; position: number; clip: number }
/** sx-pooling-learn: "learn w" finished; each kernel's learned w and leave-one-out errors. */
interface SxPoolingLearnDetail {
  steps: number; ms: number; computeMs: number;
  kernels: { mapping: SxPoolingKernel; w: number; before: number; after: number }[];
}
/** sx-attention-change: the reader chose a task or a model, or typed an input (or a loaded model switched task and kind). */
interface SxAttentionChangeDetail { task: TaskName; kind: SxAttentionKind; input: string }
/** sx-attention-progress: after each slice of training; accuracy is null before the first held-out check. */
interface SxAttentionProgressDetail { step: number; loss: number; accuracy: number | null }
/** sx-attention-trained: the run finished or was stopped, and its model is on screen. */
interface SxAttentionTrainedDetail {
  step: number; ms: number; wallMs: number | null; accuracy: number | null;
  reachedAt: { step: number; accuracy: number; confirm: number; ms: number } | null;
  test: number | null; stopped: boolean;
}

/**
 * sx-attention-model: the model shown changed. source: "shipped" (models/<task>-<kind>.sxm),
 * "url" (model-src), "trained" (trained in this tab), "stored" (the reader's model, kept in this
 * browser from an earlier visit) or "file" (a .sxm the reader loaded or dropped). name: the file's
 * name (null for a model trained here); size: the checkpoint's bytes; date: when it was trained
 * or loaded (ms since 1970; null for shipped and model-src models); steps: training steps (null
 * when unknown); accuracy: held-out exact-sequence accuracy on `examples` examples (2000 for a
 * model trained here, 200 for a loaded one; null for shipped models).
 */
interface SxAttentionModelDetail {
  source: "shipped" | "url" | "trained" | "stored" | "file";
  task: TaskName; kind: SxAttentionKind; name: string | null; size: number;
  date: number | null; steps: number | null; accuracy: number | null; examples: number | null;
}

/**
 * sx-explain-change: the reader chose a task, a model, a step, a head or the objective, or typed a
 * source. attention: the row shown over the source tokens (the characters and EOS); importance:
 * each method's importance over the same tokens; tau: Kendall's tau of the attention row with
 * each method (and with the known alignment, where there is one; NaN for a constant row). The
 * three are null before the model has loaded.
 */
interface SxExplainChangeDetail {
  task: TaskName; kind: SxModelKind; text: string; step: number; head: string; objective: "logit" | "logProb";
  attention: number[] | null;
  importance: Record<SxExplainMethod, number[]> | null;
  tau: (Record<SxExplainMethod, number> & { alignment?: number }) | null;
}

/** sx-heatmap-load: a file was read and drawn. shape: (layers, heads, queries, keys). */
interface SxHeatmapLoadDetail { name: string; key: string; dtype: "float16" | "bfloat16" | "float32" | "float64"; shape: [number, number, number, number]; values: "weights" | "scores" }
/** sx-heatmap-change: the reader chose a mapping, values, a sort or a layer, or moved a slider. */
interface SxHeatmapChangeDetail { mapping: SxHeatmapMapping; sort: "none" | "entropy" | "sparsity"; layer: number; values: "weights" | "scores" }

/** Every event the widgets fire (bubbling and composed CustomEvents), by name. */
interface SxEventMap {
  "sx-simplex-change": CustomEvent<SxSimplexChangeDetail>;
  "sx-simplex-export": CustomEvent<SxExportDetail>;
  "sx-entropy-change": CustomEvent<SxEntropyChangeDetail>;
  "sx-entropy-export": CustomEvent<SxExportDetail>;
  "sx-trajectory-change": CustomEvent<SxTrajectoryChangeDetail>;
  "sx-trajectory-export": CustomEvent<SxExportDetail>;
  "sx-two-choice-change": CustomEvent<SxTwoChoiceChangeDetail>;
  "sx-two-choice-export": CustomEvent<SxExportDetail>;
  "sx-fused-change": CustomEvent<SxFusedChangeDetail>;
  "sx-fused-export": CustomEvent<SxExportDetail>;
  "sx-jacobian-change": CustomEvent<SxJacobianChangeDetail>;
  "sx-jacobian-export": CustomEvent<SxExportDetail>;
  "sx-threshold-change": CustomEvent<SxThresholdChangeDetail>;
  "sx-threshold-export": CustomEvent<SxExportDetail>;
  "sx-regularized-change": CustomEvent<SxRegularizedChangeDetail>;
  "sx-regularized-export": CustomEvent<SxExportDetail>;
  "sx-span-mask-change": CustomEvent<SxSpanMaskChangeDetail>;
  "sx-span-mask-export": CustomEvent<SxExportDetail>;
  "sx-pooling-change": CustomEvent<SxPoolingChangeDetail>;
  "sx-pooling-learn": CustomEvent<SxPoolingLearnDetail>;
  "sx-pooling-export": CustomEvent<SxExportDetail>;
  "sx-scores-change": CustomEvent<SxScoresChangeDetail>;
  "sx-scores-export": CustomEvent<SxExportDetail>;
  "sx-positions-change": CustomEvent<SxPositionsChangeDetail>;
  "sx-positions-export": CustomEvent<SxExportDetail>;
  "sx-patterns-change": CustomEvent<SxPatternsChangeDetail>;
  "sx-patterns-export": CustomEvent<SxExportDetail>;
  "sx-attention-change": CustomEvent<SxAttentionChangeDetail>;
  "sx-attention-progress": CustomEvent<SxAttentionProgressDetail>;
  "sx-attention-trained": CustomEvent<SxAttentionTrainedDetail>;
  "sx-attention-model": CustomEvent<SxAttentionModelDetail>;
  "sx-attention-export": CustomEvent<SxExportDetail>;
  "sx-explain-change": CustomEvent<SxExplainChangeDetail>;
  "sx-explain-experiments": CustomEvent<SxExplainExperiments>;
  "sx-explain-export": CustomEvent<SxExportDetail>;
  "sx-heatmap-load": CustomEvent<SxHeatmapLoadDetail>;
  "sx-heatmap-change": CustomEvent<SxHeatmapChangeDetail>;
  "sx-heatmap-export": CustomEvent<SxExportDetail>;
  "sx-loss-change": CustomEvent<SxLossChangeDetail>;
  "sx-loss-export": CustomEvent<SxExportDetail>;
  "sx-chain-change": CustomEvent<SxChainChangeDetail>;
  "sx-chain-export": CustomEvent<SxExportDetail>;
  "sx-decode-change": CustomEvent<SxDecodeChangeDetail>;
  "sx-decode-export": CustomEvent<SxExportDetail>;
  "sx-cues-change": CustomEvent<SxCuesChangeDetail>;
  "sx-cues-export": CustomEvent<SxExportDetail>;
  "sx-costs-change": CustomEvent<SxCostsChangeDetail>;
  "sx-costs-measure": CustomEvent<SxCostsMeasureDetail>;
  "sx-costs-export": CustomEvent<SxExportDetail>;
  "sx-write-change": CustomEvent<SxWriteChangeDetail>;
  "sx-write-tune": CustomEvent<SxWriteTuneDetail>;
  "sx-write-export": CustomEvent<SxExportDetail>;
  "sx-bottleneck-change": CustomEvent<SxBottleneckChangeDetail>;
  "sx-bottleneck-progress": CustomEvent<SxBottleneckProgressDetail>;
  "sx-bottleneck-eval": CustomEvent<SxBottleneckEval>;
  "sx-bottleneck-state": CustomEvent<SxBottleneckStateDetail>;
  "sx-bottleneck-trained": CustomEvent<SxBottleneckTrainedDetail>;
  "sx-bottleneck-export": CustomEvent<SxExportDetail>;
  "sx-hard-change": CustomEvent<SxHardChangeDetail>;
  "sx-hard-ready": CustomEvent<SxHardReadyDetail>;
  "sx-hard-export": CustomEvent<SxExportDetail>;
  "sx-rationale-change": CustomEvent<SxRationaleChangeDetail>;
  "sx-rationale-progress": CustomEvent<SxRationaleProgressDetail>;
  "sx-rationale-state": CustomEvent<SxRationaleStateDetail>;
  "sx-rationale-export": CustomEvent<SxExportDetail>;
}

// ---------------------------------------------------------------------- tags, load
/** Each tag's element. */
interface SxElementTagNameMap {
  "sx-simplex": SxSimplexElement;
  "sx-entropy": SxEntropyElement;
  "sx-trajectory": SxTrajectoryElement;
  "sx-two-choice": SxTwoChoiceElement;
  "sx-fused": SxFusedElement;
  "sx-jacobian": SxJacobianElement;
  "sx-threshold": SxThresholdElement;
  "sx-regularized": SxRegularizedElement;
  "sx-span-mask": SxSpanMaskElement;
  "sx-pooling": SxPoolingElement;
  "sx-scores": SxScoresElement;
  "sx-positions": SxPositionsElement;
  "sx-patterns": SxPatternsElement;
  "sx-attention": SxAttentionElement;
  "sx-explain": SxExplainElement;
  "sx-heatmap": SxHeatmapElement;
  "sx-loss": SxLossElement;
  "sx-chain": SxChainElement;
  "sx-decode": SxDecodeElement;
  "sx-cues": SxCuesElement;
  "sx-costs": SxCostsElement;
  "sx-write": SxWriteElement;
  "sx-bottleneck": SxBottleneckElement;
  "sx-hard": SxHardElement;
  "sx-rationale": SxRationaleElement;
}
/** A widget's tag. */
type SxTag = keyof SxElementTagNameMap;
/** Each tag's class (what load(tag) resolves to). */
interface SxElementConstructorMap {
  "sx-simplex": typeof SxSimplexElement;
  "sx-entropy": typeof SxEntropyElement;
  "sx-trajectory": typeof SxTrajectoryElement;
  "sx-two-choice": typeof SxTwoChoiceElement;
  "sx-fused": typeof SxFusedElement;
  "sx-jacobian": typeof SxJacobianElement;
  "sx-threshold": typeof SxThresholdElement;
  "sx-regularized": typeof SxRegularizedElement;
  "sx-span-mask": typeof SxSpanMaskElement;
  "sx-pooling": typeof SxPoolingElement;
  "sx-scores": typeof SxScoresElement;
  "sx-positions": typeof SxPositionsElement;
  "sx-patterns": typeof SxPatternsElement;
  "sx-attention": typeof SxAttentionElement;
  "sx-explain": typeof SxExplainElement;
  "sx-heatmap": typeof SxHeatmapElement;
  "sx-loss": typeof SxLossElement;
  "sx-chain": typeof SxChainElement;
  "sx-decode": typeof SxDecodeElement;
  "sx-cues": typeof SxCuesElement;
  "sx-costs": typeof SxCostsElement;
  "sx-write": typeof SxWriteElement;
  "sx-bottleneck": typeof SxBottleneckElement;
  "sx-hard": typeof SxHardElement;
  "sx-rationale": typeof SxRationaleElement;
}

/** Every widget's tag. */
export declare const TAGS: readonly SxTag[];

/** The tags whose elements need only the mappings core (init({ core: "mappings" })); the
 *  others need the full core. */
export declare const MAPPINGS_CORE_TAGS: readonly SxTag[];

/** Fetch the module that defines `tag` (once); resolves to the element's class. */
export declare function load<K extends SxTag>(tag: K): Promise<SxElementConstructorMap[K]>;

// ---------------------------------------------------------------------- JSX typing
type NumberAttr = number | `${number}`;
/** A tag's events as JSX props: on<event>, e.g. onsx-simplex-change (React 19 and Preact listen
 *  to an on... prop of a custom element under the event's exact name). */
type SxEventProps<T extends SxTag> = {
  [E in keyof SxEventMap as E extends `${T}-${string}` ? `on${E}` : never]?: (event: SxEventMap[E]) => void;
};
/**
 * The widgets' JSX props, per tag: the attributes as a JSX framework passes them (numbers,
 * strings, booleans; lists as space-separated strings) and the events (on<event>). What React's
 * or Preact's JSX.IntrinsicElements needs (README, "TypeScript").
 */
interface SxWidgetAttributes {
  "sx-simplex": SxEventProps<"sx-simplex"> & {
    scores?: string; alpha?: NumberAttr; lambda?: NumberAttr; beta?: NumberAttr; temperature?: NumberAttr;
    mappings?: string; cloud?: "none" | "all" | SxMappingName; entropy?: "none" | "shannon" | "tsallis";
    view?: "both" | "ternary"; yaw?: NumberAttr; pitch?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-entropy": SxEventProps<"sx-entropy"> & { alpha?: NumberAttr; scores?: string; theme?: SxTheme; link?: SxLink };
  "sx-trajectory": SxEventProps<"sx-trajectory"> & {
    scores?: string; mappings?: string; alpha?: NumberAttr; lambda?: NumberAttr; beta?: NumberAttr; t?: NumberAttr; tmax?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-two-choice": SxEventProps<"sx-two-choice"> & { alphas?: string; alpha?: NumberAttr; t?: NumberAttr; theme?: SxTheme; link?: SxLink };
  "sx-fused": SxEventProps<"sx-fused"> & { scores?: string; lambda?: NumberAttr; beta?: NumberAttr; groups?: string; "group-lambda"?: NumberAttr; steps?: boolean; output?: NumberAttr; theme?: SxTheme; link?: SxLink };
  "sx-jacobian": SxEventProps<"sx-jacobian"> & {
    mapping?: SxMappingName; compare?: "none" | SxMappingName; n?: NumberAttr; scores?: string; alpha?: NumberAttr;
    lambda?: NumberAttr; beta?: NumberAttr; temperature?: NumberAttr; from?: string; to?: string; t?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-threshold": SxEventProps<"sx-threshold"> & {
    n?: NumberAttr; scores?: string; seed?: NumberAttr; mapping?: SxThresholdMapping; alpha?: NumberAttr; temperature?: NumberAttr;
    steps?: boolean; theme?: SxTheme; link?: SxLink;
  };
  "sx-regularized": SxEventProps<"sx-regularized"> & {
    scores?: string; mapping?: SxRegularizedMapping; alpha?: NumberAttr; temperature?: NumberAttr; view?: string; theme?: SxTheme; link?: SxLink;
  };
  "sx-span-mask": SxEventProps<"sx-span-mask"> & {
    scores?: string; mapping?: SxSpanMapping; alpha?: NumberAttr; z?: NumberAttr; ramp?: NumberAttr;
    model?: "none" | TaskName; theme?: SxTheme; link?: SxLink;
  };
  "sx-pooling": SxEventProps<"sx-pooling"> & {
    mappings?: string; w?: NumberAttr; alpha?: NumberAttr; lambda?: NumberAttr; points?: NumberAttr;
    seed?: NumberAttr; noise?: NumberAttr; steps?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-scores": SxEventProps<"sx-scores"> & {
    scoring?: SxScoring; mapping?: SxScoresMapping; alpha?: NumberAttr; query?: string; keys?: string; bilinear?: string;
    additive?: string; d?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-positions": SxEventProps<"sx-positions"> & {
    base?: NumberAttr; dim?: NumberAttr; positions?: NumberAttr; offset?: NumberAttr; pair?: NumberAttr; position?: NumberAttr;
    clip?: NumberAttr; seed?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-patterns": SxEventProps<"sx-patterns"> & {
    n?: NumberAttr; pattern?: SxPatternKind; width?: NumberAttr; stride?: NumberAttr; block?: NumberAttr;
    summary?: NumberAttr; buckets?: NumberAttr; rounds?: NumberAttr; seed?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-attention": SxEventProps<"sx-attention"> & {
    task?: TaskName; kind?: SxAttentionKind; maps?: string; "no-train"?: boolean; decode?: boolean; step?: NumberAttr; input?: string; models?: string;
    "model-src"?: string; theme?: SxTheme; link?: SxLink;
  };
  "sx-explain": SxEventProps<"sx-explain"> & {
    task?: TaskName; kind?: SxModelKind; objective?: "logit" | "logProb"; step?: NumberAttr; examples?: NumberAttr;
    erase?: string; "erase-from"?: "step" | "all"; text?: string; head?: string; models?: string; theme?: SxTheme; link?: SxLink;
  };
  "sx-heatmap": SxEventProps<"sx-heatmap"> & {
    src?: string; labels?: string; key?: string; values?: "weights" | "scores"; mapping?: SxHeatmapMapping; alpha?: NumberAttr;
    lambda?: NumberAttr; beta?: NumberAttr; temperature?: NumberAttr; sort?: "none" | "entropy" | "sparsity"; layer?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-loss": SxEventProps<"sx-loss"> & {
    target?: "A" | "B" | "C"; scores?: string; mappings?: string; alpha?: NumberAttr; range?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-chain": SxEventProps<"sx-chain"> & {
    scores?: string; transition?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-decode": SxEventProps<"sx-decode"> & {
    task?: TaskName; output?: SxDecodeOutput; step?: NumberAttr; cap?: NumberAttr; source?: string; models?: string; theme?: SxTheme; link?: SxLink;
  };
  "sx-cues": SxEventProps<"sx-cues"> & {
    objects?: string; cue?: SxCue; query?: string; mapping?: SxCuesMapping; alpha?: NumberAttr; gain?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-costs": SxEventProps<"sx-costs"> & {
    n?: NumberAttr; d?: NumberAttr; k?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-write": SxEventProps<"sx-write"> & {
    prompt?: string; model?: SxWriteModel; steps?: NumberAttr; seed?: NumberAttr; temperature?: NumberAttr; "top-k"?: NumberAttr;
    "top-p"?: NumberAttr; speed?: NumberAttr; cap?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
  "sx-bottleneck": SxEventProps<"sx-bottleneck"> & {
    mapping?: SxBottleneckMapping; estimator?: SxBottleneckEstimator; steps?: NumberAttr; seed?: NumberAttr; view?: "live" | "trained"; theme?: SxTheme; link?: SxLink;
  };
  "sx-hard": SxEventProps<"sx-hard"> & {
    source?: string; figure?: SxHardFigure; curve?: "accuracy" | "loss"; theme?: SxTheme; link?: SxLink;
  };
  "sx-rationale": SxEventProps<"sx-rationale"> & {
    steps?: NumberAttr; seed?: NumberAttr; theme?: SxTheme; link?: SxLink;
  };
}

export type {
  SxElement, SxSimplexElement, SxEntropyElement, SxTrajectoryElement, SxTwoChoiceElement, SxFusedElement,
  SxThresholdElement, SxThresholdChangeDetail, SxThresholdMapping,
  SxRegularizedElement, SxRegularizedChangeDetail, SxRegularizedMapping, SxRegularizedView,
  SxSpanMaskElement, SxPoolingElement, SxAttentionElement, SxTrainOptions,
  SxPositionsElement, SxPositionsChangeDetail,
  SxScoresElement, SxScoresChangeDetail, SxScoring, SxScoresMapping,
  SxPatternsElement, SxPatternsChangeDetail, SxPatternKind,
  SxTheme, SxLink, SxMappingName, SxPoolingKernel, SxSpanMapping, SxModelKind, SxTag,
  SxElementTagNameMap, SxElementConstructorMap, SxEventMap, SxWidgetAttributes,
  SxExportDetail, SxSimplexChangeDetail, SxEntropyChangeDetail, SxTrajectoryChangeDetail, SxTwoChoiceChangeDetail,
  SxFusedChangeDetail, SxSpanMaskChangeDetail, SxPoolingChangeDetail, SxPoolingLearnDetail,
  SxAttentionChangeDetail, SxAttentionProgressDetail, SxAttentionTrainedDetail, SxAttentionModelDetail,
  SxJacobianElement, SxJacobianChangeDetail,
  SxExplainElement, SxExplainChangeDetail, SxExplainExperiments, SxExplainMethod, SxExplainExperimentKind,
  SxHeatmapElement, SxHeatmapLoadDetail, SxHeatmapChangeDetail, SxHeatmapMapping, SxHeatmapHead,
  SxLossElement, SxLossChangeDetail, SxLossMapping,
  SxChainElement, SxChainChangeDetail,
  SxWriteElement, SxWriteChangeDetail, SxWriteResult, SxWriteModel,
  SxDecodeElement, SxDecodeChangeDetail, SxDecodeOutput, SxDecodeResult,
  SxCuesElement, SxCuesChangeDetail, SxCue, SxCuesFeature, SxCuesObject, SxCuesMapping,
  SxCostsElement, SxCostsChangeDetail, SxCostsMeasureDetail, SxCostsMeasureRow,
  SxBottleneckElement, SxBottleneckChangeDetail, SxBottleneckProgressDetail, SxBottleneckStateDetail, SxBottleneckTrainedDetail,
  SxBottleneckEval, SxBottleneckTraining, SxBottleneckMapping, SxBottleneckEstimator, SxBottleneckState,
  SxHardElement, SxHardChangeDetail, SxHardReadyDetail, SxHardResult, SxHardDecoded, SxHardFigures, SxHardStats,
  SxHardFigure, SxHardModel, SxHardMethod,
  SxRationaleElement, SxRationaleChangeDetail, SxRationaleProgressDetail, SxRationaleStateDetail,
  SxRationaleTraining, SxRationaleFigures, SxRationaleMethod, SxRationaleState,
};

declare global {
  interface HTMLElementTagNameMap extends SxElementTagNameMap {}
  interface GlobalEventHandlersEventMap extends SxEventMap {}
}
