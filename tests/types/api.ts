// api.ts - the public API as the README's API section and examples/*.mjs use it, type-checked
// against dist/simplexity.d.ts by `make test-types` (tsc -p tests/types; never run, never emitted).
//
// Three kinds of lines:
// - documented uses, which must compile;
// - exact<T>()(value): the value's type must be exactly T, so a return type that widens (to any,
//   to a union, to a looser object) or narrows fails, as does one that becomes wrong;
// - `// @ts-expect-error` before a misuse the declarations must reject: if a declaration becomes
//   loose enough to accept it, tsc reports the directive as unused and the test fails.
// tests/js/declarations.test.mjs checks the other direction: that every declared name exists in
// the JS (and the JS exports nothing undeclared).

import {
  init, info, SimplexityError,
  softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax,
  softmaxBackward, sparsemaxBackward, entmax15Backward, entmaxBackward, fusedmaxBackward, oscarmaxBackward,
  entmaxAlphaGrad, tsallisEntropy, jacobian, threshold, attention, attentionPattern, spanMask, attentionPooling, attentionPoolingBackward,
  sigmoid, sigmoidBackward, groupmax, groupmaxBackward,
  positionalEncoding, relativeScores, txlScores,
  attentionScores, attentionScoresBackward, maskedMapping, maskedMappingBackward, fyLoss,
  chainAttention, chainAttentionBackward, sparsemapSelections, proxTV, proxTVRuns,
  Model, RNN, tasks, alloc, WasmArray,
} from "simplexity";
import type { PositionalEncodingOptions, RelativeScoresOptions, TxlScoresOptions } from "simplexity";
import type {
  Scores, ShapeOptions, EntmaxOptions, FusedmaxOptions, OscarmaxOptions, EntropyOptions, InitOptions,
  Info, SpanMaskOptions, PoolingOptions, PoolingForwardOptions, AttentionOptions, AttentionPattern, PatternMask, LshPatternMask, TokenRow, TokenRows,
  TaskName, Split, Batch, GeneratedBatch, GenerateOptions, Mapping, ModelConfig, ResolvedModelConfig,
  AttentionKind, AttentionMap, ForwardResult, PerHead, JacobianMapping, JacobianOptions, ThresholdOptions,
  Edit, ExplainMethod, ExplainOptions, ExplainResult, AttentionGradOptions, GroupmaxOptions, Output, Result,
  OutputMapping, DecodedRow, DecodeStep, ExactSearchResult, ExactSearchOptions, OutputSequence,
} from "simplexity";

// --------------------------------------------------------------------- helpers
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
/** exact<T>()(value) compiles only when value's type is exactly T ("Expected 2 arguments" otherwise). */
function exact<T>() {
  return <V>(value: V, ..._mismatch: Equal<V, T> extends true ? [] : [never]): V => value;
}
type Pooled = { out: Float32Array; weights: Float32Array };

// ------------------------------------------------------------------ init, info
const ready: Info = await init();
exact<Info>()(ready);
exact<Promise<Info>>()(init({ simd: false }));
exact<Promise<Info>>()(init({ simd: true, url: new URL("./simplexity-simd.wasm", import.meta.url) }));
exact<Promise<Info>>()(init({ url: "./simplexity.wasm" }));
exact<Promise<Info>>()(init({ bytes: new Uint8Array(8) }));
exact<Promise<Info>>()(init({ bytes: new ArrayBuffer(8) }));
const initOptions: InitOptions = {};
void init(initOptions);
const { simd, abi, memoryBytes } = info();
exact<boolean>()(simd);
exact<number>()(abi);
exact<number>()(memoryBytes);
// @ts-expect-error simd is a boolean
void init({ simd: "yes" });
// @ts-expect-error url is a string or a URL
void init({ url: 42 });
// @ts-expect-error no such option
void init({ wasm: "./simplexity.wasm" });
// @ts-expect-error bytes are binary
void init({ bytes: "AGFzbQ==" });
// @ts-expect-error info() has no such field
void info().memory;

// -------------------------------------------------------------------- mappings
const x = new Float32Array([1.5, 0, 1, 2, -Infinity, 2]);
const p: Float32Array = sparsemax(x, { n: 3 });
exact<Float32Array>()(entmax(x, { n: 3, alpha: 2, out: p }));
exact<Float32Array>()(softmax([1, 2, 3, 4, 5, 6], { n: 3, temperature: 0.5 }));
exact<Float32Array>()(sparsemax([1.5, 0, 1]));
exact<Float32Array>()(entmax15(new Float64Array([1.5, 0, 1])));
exact<Float32Array>()(entmax([1.5, 0, 1], { alpha: 1.5 }));
exact<Float32Array>()(fusedmax([3, 2.9, 0, -1], { lambda: 0.2 }));
exact<Float32Array>()(oscarmax([1.5, 0, 1], { beta: 0.1, temperature: 2, n: 3, out: new Float32Array(3) }));
const frozen: readonly number[] = Object.freeze([1, 2, 3]);
exact<Float32Array>()(softmax(frozen));
const scores: Scores = x;
const shape: ShapeOptions = { n: 3, temperature: 1, out: p };
const eo: EntmaxOptions = { ...shape, alpha: 1.25 };
const fo: FusedmaxOptions = { lambda: 0 };
const oo: OscarmaxOptions = { beta: 0 };
exact<Float32Array>()(softmax(scores, shape));
exact<Float32Array>()(entmax(scores, eo));
exact<Float32Array>()(fusedmax(scores, fo));
exact<Float32Array>()(oscarmax(scores, oo));
// the Jacobian (rows * n * n) and the threshold (rows)
const jm: JacobianMapping = "oscarmax";
const jo: JacobianOptions = { n: 3, mapping: "entmax", alpha: 1.5, temperature: 0.5, out: new Float32Array(18) };
const to: ThresholdOptions = { n: 3, mapping: "sparsemax" };
exact<Float32Array>()(jacobian([0.99, 0.01, -1], { mapping: "sparsemax" }));
exact<Float32Array>()(jacobian(x, jo));
exact<Float32Array>()(jacobian(x, { mapping: jm, beta: 0.1 }));
exact<Float32Array>()(threshold(x, to));
exact<Float32Array>()(threshold(scores, { mapping: "entmax", alpha: 1.25, n: 3 }));
// @ts-expect-error jacobian takes the mapping's name, not its C code
jacobian(x, { mapping: 1 });
// @ts-expect-error fusedmax has no threshold on the scores
threshold(x, { mapping: "fusedmax" });
// @ts-expect-error threshold has no lambda
threshold(x, { lambda: 1 });
// @ts-expect-error scores are numbers, not a string
softmax("1.5 0 1");
// @ts-expect-error scores are float arrays, not an integer typed array
softmax(new Int32Array(3));
// @ts-expect-error a misspelled option
softmax(x, { temprature: 2 });
// @ts-expect-error temperature is a number
softmax(x, { temperature: "2" });
// @ts-expect-error n is a number
sparsemax(x, { n: "3" });
// @ts-expect-error out is a Float32Array
softmax(x, { out: [0, 0, 0, 0, 0, 0] });
// @ts-expect-error out is a Float32Array, not a Float64Array
softmax(x, { out: new Float64Array(6) });
// @ts-expect-error alpha is entmax's option, not softmax's
softmax(x, { alpha: 2 });
// @ts-expect-error alpha is a number
entmax(x, { alpha: "1.5" });
// @ts-expect-error beta is oscarmax's option
fusedmax(x, { beta: 1 });
// @ts-expect-error lambda is fusedmax's option
oscarmax(x, { lambda: 1 });
// @ts-expect-error the result is a Float32Array, not an array
const notArray: number[] = softmax(x);

// ------------------------------------------------------------------- gradients
const xs = [1.5, 0, 1], dy = [1, 0, -1];
exact<Float32Array>()(softmaxBackward(xs, dy));
exact<Float32Array>()(sparsemaxBackward(x, new Float32Array(6), { n: 3, temperature: 2 }));
exact<Float32Array>()(entmax15Backward(xs, dy, { out: new Float32Array(3) }));
const dx: Float32Array = entmaxBackward(xs, dy, { alpha: 1.5 });
exact<Float32Array>()(fusedmaxBackward(xs, dy, { lambda: 0.5 }));
exact<Float32Array>()(oscarmaxBackward(xs, dy, { beta: 0.5 }));
// fusedmax's first step: the prox and its runs
exact<Float32Array>()(proxTV(xs, { lambda: 0.5, temperature: 2 }));
exact<Int32Array>()(proxTVRuns(x, { n: 3, lambda: 0.5 }));
// @ts-expect-error proxTVRuns takes no out
proxTVRuns(xs, { out: new Float32Array(3) });
// beyond the simplex: sigmoid (not on the simplex), groupmax (groups given in advance)
exact<Float32Array>()(sigmoid([0, 1.1, -Infinity], { temperature: 2 }));
exact<Float32Array>()(sigmoidBackward(xs, dy, { out: new Float32Array(3) }));
const go: GroupmaxOptions = { groups: [2, 3, 1], lambda: 0.5 };
exact<Float32Array>()(groupmax([2, 1.4, 1.8, -0.4, 1, 1.9], go));
exact<Float32Array>()(groupmax(x, { groups: new Int32Array([1, 2]), n: 3, temperature: 0.5, out: new Float32Array(6) }));
exact<Float32Array>()(groupmaxBackward(xs, dy, { groups: [1, 2], lambda: 0.2 }));
exact<Float32Array>()(jacobian(xs, { mapping: "sigmoid" }));
// @ts-expect-error groupmax needs its groups
groupmax(xs);
// @ts-expect-error groupmax's options need groups
groupmax(xs, { lambda: 1 });
// @ts-expect-error groups are sizes, not a string
groupmax(xs, { groups: "1 2" });
// @ts-expect-error sigmoid takes no lambda
sigmoid(xs, { lambda: 1 });
// @ts-expect-error groupmax has no jacobian() mapping (its backward on unit vectors gives it)
jacobian(xs, { mapping: "groupmax" });
// @ts-expect-error sigmoid has no threshold
threshold(xs, { mapping: "sigmoid" });
const [dalpha] = entmaxAlphaGrad(xs, dy, { alpha: 1.5 });
exact<number>()(dalpha);
exact<Float32Array>()(entmaxAlphaGrad(x, x, { n: 3, alpha: 1.5, temperature: 1, out: new Float32Array(2) }));
// @ts-expect-error dy is required
entmaxBackward(xs);
// @ts-expect-error dy is scores, not a string
softmaxBackward(xs, "1 0 -1");
// @ts-expect-error lambda is fusedmax's option
entmaxBackward(xs, dy, { lambda: 1 });
// @ts-expect-error entmaxAlphaGrad takes entmax's options
entmaxAlphaGrad(xs, dy, { beta: 1 });

// --------------------------------------------------------------------- entropy
exact<Float32Array>()(tsallisEntropy([1 / 3, 1 / 3, 1 / 3], { alpha: 1 }));
const entropyOptions: EntropyOptions = { n: 3, alpha: 0.5, out: new Float32Array(2) };
exact<Float32Array>()(tsallisEntropy(x, entropyOptions));
// @ts-expect-error tsallisEntropy has no temperature
tsallisEntropy(xs, { temperature: 1 });

// ------------------------------------------------------------------- attention
const q = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1];
const k = [2, 0, 0, 2, 0, 2, 2, 0, 1, 1, 1, 1, -2, 0, 0, -2];
const v = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0];
const { out, weights } = attention(q, k, v, { tq: 3, heads: 2, mapping: "sparsemax", causal: true, weights: true });
exact<Float32Array>()(out);
exact<Float32Array>()(weights.subarray(0, 12));
exact<Pooled>()(attention(q, k, v, { tq: 3, heads: 2, weights: new Float32Array(24) }));
exact<Float32Array>()(attention(q, k, v, { tq: 3, heads: 2 }));
exact<Float32Array>()(attention(q, k, v, { tq: 3, heads: 2, weights: false }));
exact<Float32Array>()(attention(new Float32Array(q), new Float64Array(k), v, {
  tq: 3, tk: 4, heads: 2, batch: 1, mapping: "entmax", alpha: 1.5, keyLengths: [3], out: new Float32Array(12),
}));
exact<Float32Array>()(attention(q, k, v, { tq: 3, mapping: "fusedmax", lambda: 1, keyLengths: new Int32Array([4]) }));
const attentionOptions: AttentionOptions = { tq: 3, heads: 2, mapping: "entmax15" };
const wantWeights: boolean = Math.random() < 0.5;
// weights decided at run time: either result
exact<Float32Array | Pooled>()(attention(q, k, v, { ...attentionOptions, weights: wantWeights }));
// patterns (issue 13)
exact<Float32Array>()(attention(q, k, v, { tq: 3, heads: 2, pattern: { kind: "local", width: 1 } }));
exact<Pooled>()(attention(q, k, v, { tq: 4, heads: 2, pattern: { kind: "lsh", buckets: 4, rounds: 2, seed: 1 }, weights: true }));
const fixedMask: PatternMask = attentionPattern(16, { kind: "fixed", block: 4, summary: 1 }, { causal: true });
exact<Uint8Array>()(fixedMask.mask);
exact<number>()(attentionPattern(16, { kind: "strided", stride: 4 }).fraction);
const lshSteps: LshPatternMask = attentionPattern(4, { kind: "lsh", buckets: 4 }, { k, heads: 2 });
exact<Int32Array>()(lshSteps.order);
const somePattern = { kind: "dense" } as AttentionPattern;
exact<PatternMask | LshPatternMask>()(attentionPattern(4, somePattern, { k }));
// @ts-expect-error a local pattern needs its width
attention(q, k, v, { tq: 3, pattern: { kind: "local" } });
// @ts-expect-error "sliding" is not a pattern kind
attentionPattern(8, { kind: "sliding", width: 2 });
// @ts-expect-error causal is a boolean
attentionPattern(8, { kind: "local", width: 2 }, { causal: 1 });
// @ts-expect-error tq is required
attention(q, k, v, { heads: 2 });
// @ts-expect-error and so are the options
attention(q, k, v);
// @ts-expect-error "entmax-learned" is for models only
attention(q, k, v, { tq: 3, mapping: "entmax-learned" });
// @ts-expect-error oscarmax is not an attention mapping
attention(q, k, v, { tq: 3, mapping: "oscarmax" });
// @ts-expect-error causal is a boolean
attention(q, k, v, { tq: 3, causal: 1 });
// @ts-expect-error keyLengths are integers
attention(q, k, v, { tq: 3, keyLengths: new Float32Array([4]) });
// @ts-expect-error with weights the result is { out, weights }, not a Float32Array
const notOut: Float32Array = attention(q, k, v, { tq: 3, heads: 2, weights: true });
// @ts-expect-error without weights the result is the output itself
void attention(q, k, v, { tq: 3, heads: 2 }).out;

// ------------------------------------------------ adaptive span and attention pooling
exact<Float32Array>()(spanMask([0, 1, 2, 3, 4, 5], { z: 2, ramp: 2 }));
const spanOptions: SpanMaskOptions = { z: 2.5, ramp: 3, maxSpan: 12, out: new Float32Array(6) };
exact<Float32Array>()(spanMask(new Float32Array(6), spanOptions));
// @ts-expect-error ramp is required
spanMask([0, 1], { z: 2 });
// @ts-expect-error z is a number
spanMask([0, 1], { z: "2", ramp: 3 });
// @ts-expect-error the options are required
spanMask([0, 1]);

const px = [0.1, 0.5, 0.9, 1.4, 2.0, 2.3, 2.9, 3.5, 4.1, 4.6];
const py = px.map((t) => 2 * Math.sin(t) + t ** 0.8);
let w = 0.5;
for (let step = 0; step < 50; step++) {
  const { out } = attentionPooling(px, px, py, { w, mapping: "sparsemax", leaveOneOut: true });
  const pdy = out.map((o, i) => (o - py[i]) / px.length);
  w -= 2 * attentionPoolingBackward(px, px, py, pdy, { w, mapping: "sparsemax", leaveOneOut: true }).dw;
}
// the README's example: weights are there by default
const pooled = attentionPooling([1, 3], px, py, { w, mapping: "sparsemax" });
exact<Pooled>()(pooled);
exact<number>()(pooled.weights.filter((u) => u === 0).length);
exact<Pooled>()(attentionPooling([1, 3], px, py));
exact<Pooled>()(attentionPooling([1, 3], px, py, { weights: true, out: new Float32Array(2) }));
exact<Pooled>()(attentionPooling([1, 3], px, py, { weights: new Float32Array(20), mapping: "entmax", alpha: 1.5 }));
exact<{ out: Float32Array; weights: null }>()(attentionPooling([1, 3], px, py, { weights: false }));
const poolingForward: PoolingForwardOptions = { w: 2, mapping: "fusedmax", lambda: 0.5, weights: wantWeights };
exact<{ out: Float32Array; weights: Float32Array | null }>()(attentionPooling([1, 3], px, py, poolingForward));
const pooling: PoolingOptions = { w: 2, mapping: "entmax15", leaveOneOut: false };
exact<{ dw: number }>()(attentionPoolingBackward([1, 3], px, py, [1, -1], pooling));
// @ts-expect-error with weights: false there are none
void attentionPooling([1, 3], px, py, { weights: false }).weights.length;
// @ts-expect-error leaveOneOut is a boolean
attentionPooling(px, px, py, { leaveOneOut: 1 });
// @ts-expect-error "entmax-learned" is for models only
attentionPooling(px, px, py, { mapping: "entmax-learned" });
// @ts-expect-error the backward pass writes no output
attentionPoolingBackward(px, px, py, px, { out: new Float32Array(10) });
// @ts-expect-error w is a number
attentionPoolingBackward(px, px, py, px, { w: "1" });

// ---------------------------------------------------------------------- errors
try {
  softmax([0, 1, NaN]);
} catch (e) {
  if (!(e instanceof SimplexityError)) throw e;
  exact<number>()(e.code);
  exact<number | undefined>()(e.index);
  exact<string>()(e.message);
  exact<"SimplexityError">()(e.name);
}
const made = new SimplexityError("softmax: x[2] must be finite or -Infinity (got NaN)", 2, 2);
const asError: Error = made;
// @ts-expect-error the code is a number
const codeText: string = made.code;
// @ts-expect-error the C status is required
void new SimplexityError("message");

// ----------------------------------------------------------------------- tasks
const names: TaskName[] = tasks.names();
exact<TaskName[]>()(names);
const batch: GeneratedBatch = tasks.generate("date", { seed: 1, count: 3, split: "heldout" });
exact<GeneratedBatch>()(batch);
const { src, tgt, shape: [count, width] } = batch;
exact<Int32Array>()(src);
exact<number>()(count);
for (let r = 0; r < count; r++) {
  const row = (a: Int32Array) => a.subarray(r * width, (r + 1) * width);
  exact<string>()(tasks.decode("date", row(src)));
  exact<string>()(tasks.decode("date", row(tgt)));
}
const generateOptions: GenerateOptions = { seed: 2, count: 4, split: "train", start: 8, maxLen: 16 };
exact<GeneratedBatch>()(tasks.generate("reverse", generateOptions));
exact<GeneratedBatch>()(tasks.generate("sort"));
exact<Int32Array>()(tasks.encode("reverse", "abc"));
exact<Int32Array>()(tasks.encode("after_marker", "ab|cd", { maxLen: 16 }));
exact<string>()(tasks.answer("date", "22 Nov 2026"));
exact<Int32Array>()(tasks.answer("date", src, { count: 3 }));
exact<Int32Array[]>()(tasks.answer("reverse", [tasks.encode("reverse", "abc"), [3, 4, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0]]));
const someRows: TokenRows = Math.random() < 0.5 ? src : [src];
exact<Int32Array | Int32Array[]>()(tasks.answer("date", someRows));
exact<string[]>()(tasks.vocab("sort"));
exact<number>()(tasks.width("date"));
exact<{ minSrc: number; maxSrc: number; minTgt: number; maxTgt: number }>()(tasks.lengths("reverse"));
const split: Split = tasks.splitOf("date", "22 Nov 2026");
exact<Split>()(tasks.splitOf("reverse", new Uint8Array([3, 4, 2])));
// @ts-expect-error no such task
tasks.generate("copy");
// @ts-expect-error no such split
tasks.generate("date", { split: "test" });
// @ts-expect-error a misspelled option
tasks.generate("date", { maxlen: 16 });
// @ts-expect-error a row is token ids, not text
tasks.decode("date", "22 Nov 2026");
// @ts-expect-error the text is a string
tasks.encode("reverse", 123);
// @ts-expect-error a text's answer is text
const answerRow: Int32Array = tasks.answer("date", "22 Nov 2026");
// @ts-expect-error token ids are integers
tasks.decode("date", new Float32Array(12));

// ----------------------------------------------------------------------- Model
const model = new Model({ task: "reverse", layers: 1, alphaLr: 10 });
try {
  for (let step = 0; step < 20; step++) {
    const b = tasks.generate("reverse", { seed: 1, start: 32 * step, count: 32 });
    const loss: number = model.trainStep(b, { lr: 3e-3 });
    if (step % 10 === 0) console.log(step, loss.toFixed(3));
  }
  const row = tasks.encode("reverse", "abcd");
  const [answer] = model.generate([row]);
  exact<Int32Array>()(answer);
  exact<string>()(tasks.decode("reverse", answer));
  const forward: ForwardResult = model.forward([row], [answer]);
  exact<ForwardResult>()(forward);
  exact<Float32Array>()(forward.logits);
  exact<[number, number, number]>()(forward.shape);
  const cross = forward.attention.find((a) => a.kind === "cross");
  exact<AttentionMap | undefined>()(cross);
  if (cross) {
    exact<[number, number, number, number]>()(cross.shape);
    exact<AttentionKind>()(cross.kind);
    exact<number>()(cross.layer);
    exact<number>()(cross.heads);
    exact<Float32Array>()(cross.data);
    exact<number[]>()(cross.alpha);
    exact<(number | null)[]>()(cross.span);
  }
  const alphas: PerHead<number> = model.alphas();
  exact<PerHead<number>>()(alphas);
  exact<number[][]>()(alphas.cross);
  exact<PerHead<number | null>>()(model.spans());

  // explanation: attributions, interventions, the gradient wrt an attention row
  const why: ExplainResult = model.explain(row, answer, { step: 1, objective: "logit", steps: 32 });
  exact<ExplainResult>()(why);
  exact<Float32Array | undefined>()(why.importance.leaveOneOut);
  exact<number | null>()(why.baselineValue);
  exact<"logProb" | "logit">()(why.objective);
  const methods: ExplainMethod[] = ["gradInput", "rollout"];
  const explainOptions: ExplainOptions = { step: 2, target: 5, methods, intervene: [{ op: "ablate", kind: "cross", layer: 0 }] };
  model.explain(row, answer, explainOptions);
  const edits: Edit[] = [
    { op: "replace", kind: "cross", layer: 0, head: 1, row: 2, weights: new Float32Array(6) },
    { op: "erase", kind: "encoder", keys: [1, 2] },
    { op: "mask", kind: "cross", keys: [0] },
    { op: "ablate", kind: "decoder", head: 0 },
  ];
  exact<ForwardResult>()(model.forward([row], [answer], { intervene: edits }));
  exact<Int32Array[]>()(model.generate([row], { intervene: edits }));
  const gradOptions: AttentionGradOptions = { kind: "cross", layer: 0, head: 0, row: 1, step: 1, dlogits: [1, 0] };
  exact<Float32Array>()(model.attentionGrad(row, answer, gradOptions));
  // @ts-expect-error step is required
  model.explain(row, answer, {});
  // @ts-expect-error a method name from the list
  model.explain(row, answer, { step: 1, methods: ["attention"] });
  // @ts-expect-error the objective is "logProb" or "logit"
  model.explain(row, answer, { step: 1, objective: "prob" });
  // @ts-expect-error replace needs weights
  model.forward([row], [answer], { intervene: [{ op: "replace", kind: "cross" }] });
  // @ts-expect-error mask applies to every head: no head field
  model.forward([row], [answer], { intervene: [{ op: "mask", kind: "cross", head: 0, keys: [1] }] });
  // @ts-expect-error kind is an attention kind name
  model.forward([row], [answer], { intervene: [{ op: "ablate", kind: 2 }] });
  exact<Float32Array>()(model.attentionGrad(row, answer, { kind: "cross", row: 1, step: 1 }));
  // @ts-expect-error the row gradient needs kind, row and step
  model.attentionGrad(row, answer, { kind: "cross", layer: 0 });

  const bytes: Uint8Array = model.save();
  exact<Uint8Array>()(model.save({ precision: "float16" }));
  exact<Uint8Array>()(model.save({ precision: "float32" }));
  const copy: Model = Model.load(bytes);
  exact<Model>()(Model.load(bytes.buffer as ArrayBuffer));
  exact<readonly Mapping[]>()(copy.config.attention);
  copy.free();
  exact<boolean>()(copy.freed);
  // @ts-expect-error the precision is "float32" or "float16"
  model.save({ precision: "float64" });
  // @ts-expect-error the precision is a name, not bits
  model.save({ precision: 16 });
  // @ts-expect-error the options are an object
  model.save("float16");
  // @ts-expect-error checkpoint bytes, not a path
  Model.load("web/models/date-softmax.sxm");
} finally {
  model.free();
}

const config: ModelConfig = {
  vocab: 16, maxLen: 12, dModel: 16, heads: 2, layers: 2, dFF: 32, attention: ["softmax", "entmax-learned"],
  alpha: 1.5, lambda: 0.1, span: true, spanRamp: 3, activation: "gelu", seed: 7, maxBatch: 8,
  spanPenalty: 0.002, clip: 1, alphaLr: 1,
};
const m = new Model(config);
const resolved: ResolvedModelConfig = m.config;
exact<ResolvedModelConfig>()(resolved);
exact<number>()(resolved.span);
exact<"relu" | "gelu">()(resolved.activation);
exact<number>()(m.numParams);
exact<number>()(m.steps);
const trainBatch: Batch = { src: [[3, 4, 2, 0]], tgt: [[1, 4, 3, 2]] };
exact<number>()(m.loss(trainBatch));
exact<number>()(m.trainStep({ src: new Int32Array(8), tgt: new Int32Array(8), shape: [2, 4] }));
exact<ForwardResult>()(m.forward(new Int32Array(8), new Int32Array(8), { count: 2, attention: false }));
exact<Int32Array[]>()(m.generate(new Int32Array(8), { count: 2, maxLen: 6 }));
const ids: TokenRow = new Uint16Array(4);
exact<Int32Array[]>()(m.generate([ids]));
exact<void>()(m.free());
new Model({ task: "date", attention: "fusedmax", lambda: 0.2, span: 6, spanRamp: 2 }).free();

// sparse outputs: the output mapping, decode's distributions, exact search
const sparse = new Model({ task: "reverse", layers: 1, attention: "entmax15", output: "entmax", outputAlpha: 1.5 });
exact<OutputMapping>()(sparse.config.output);
exact<number>()(sparse.config.outputAlpha);
const decoded: DecodedRow[] = sparse.decode([tasks.encode("reverse", "abc")], { maxLen: 8 });
const step0: DecodeStep | undefined = decoded[0]?.steps[0];
if (step0) {
  exact<number>()(step0.token);
  exact<Float32Array>()(step0.probs);
  exact<Int32Array>()(step0.support);
}
exact<Float32Array | undefined>()(sparse.forward([[3, 2]], [[1]], { probs: true }).probs);
const searchOptions: ExactSearchOptions = { cap: 100, maxLen: 8, partial: true };
const found: ExactSearchResult = sparse.exactSearch(tasks.encode("reverse", "abc"), searchOptions);
exact<boolean>()(found.complete);
exact<number>()(found.expanded);
const best: OutputSequence | undefined = found.sequences[0];
if (best) {
  exact<Int32Array>()(best.tokens);
  exact<number>()(best.probability);
  exact<boolean>()(best.finished);
}
// @ts-expect-error no such output mapping
new Model({ task: "reverse", output: "fusedmax" });
// @ts-expect-error outputAlpha is a number
new Model({ task: "reverse", output: "entmax", outputAlpha: "1.5" });
// @ts-expect-error partial is a boolean
sparse.exactSearch([3, 2], { partial: 1 });
// @ts-expect-error exact search has a cap, not a beam
sparse.exactSearch([3, 2], { beam: 4 });
sparse.free();
// @ts-expect-error the config is required
new Model();
// @ts-expect-error no such task
new Model({ task: "copy" });
// @ts-expect-error a misspelled field
new Model({ task: "reverse", dmodel: 32 });
// @ts-expect-error groupmax is not a model mapping
new Model({ task: "reverse", attention: "groupmax" });
new Model({ task: "date", attention: "oscarmax", beta: 0.05 });
// @ts-expect-error the recurrent models' scores take no oscarmax
new RNN({ task: "reverse", mapping: "oscarmax" });
// @ts-expect-error no such activation
new Model({ task: "reverse", activation: "tanh" });
// @ts-expect-error span is positions or a boolean
new Model({ task: "reverse", span: "max" });
// @ts-expect-error the resolved config is read-only
m.config.heads = 8;
// @ts-expect-error and so is the step count
m.steps = 0;
// @ts-expect-error lr is trainStep's option
m.trainStep(trainBatch, { learningRate: 1e-3 });
// @ts-expect-error a batch has src and tgt rows
m.loss({ src: [[3, 4, 2, 0]] });
// @ts-expect-error forward needs the decoder input
m.forward([[3, 4, 2, 0]]);
// @ts-expect-error a misspelled option
m.generate([[3, 4, 2, 0]], { maxlen: 4 });
// @ts-expect-error token ids are integers
m.generate(new Float32Array(4));
// @ts-expect-error attention is a boolean
m.forward([[3, 4, 2, 0]], [[1, 4, 3, 2]], { attention: "cross" });

// ------------------------------------------------------------------- positions
exact<Float32Array>()(positionalEncoding(48, 32));
const peOptions: PositionalEncodingOptions = { base: 100, out: new Float32Array(8 * 4) };
exact<Float32Array>()(positionalEncoding(8, 4, peOptions));
const shawOptions: RelativeScoresOptions = { maxDistance: 2, tk: 3 };
exact<Float32Array>()(relativeScores([1, 0, 0, 1], new Float32Array(10), shawOptions));
const txlOptions: TxlScoresOptions = { u: [0, 1], v: new Float64Array(2), wr: new Float32Array(8), dimR: 4, base: 10000 };
exact<Float32Array>()(txlScores([1, 0], [1, 1], txlOptions));
const txl = txlScores([1, 0], [1, 1], { ...txlOptions, terms: true });
exact<Float32Array>()(txl.out);
exact<Float32Array>()(txl.terms);
exact<{ out: Float32Array; terms: Float32Array }>()(txlScores([1, 0], [1, 1], { u: [0, 1], v: [1, 0], terms: new Float32Array(4) }));
// @ts-expect-error positionalEncoding needs the dimension
positionalEncoding(48);
// @ts-expect-error base is a number
positionalEncoding(48, 32, { base: "10000" });
// @ts-expect-error relativeScores needs maxDistance
relativeScores([1, 0], [1, 1, 1, 1, 1, 1], {});
// @ts-expect-error the table is numbers
relativeScores([1, 0], "1 1", { maxDistance: 0 });
// @ts-expect-error txlScores needs the biases u and v
txlScores([1, 0], [1, 1], { u: [0, 1] });
// @ts-expect-error without terms the result is the scores alone
txlScores([1, 0], [1, 1], { u: [0, 1], v: [1, 0] }).terms;
// @ts-expect-error wr is numbers, not a matrix of rows
txlScores([1, 0], [1, 1], { u: [0, 1], v: [1, 0], wr: [[1, 0], [0, 1]] });

// Keep the locals that exist only to be type-checked.
export { notArray, dx, asError, codeText, split, answerRow, notOut };

// ------------------------------------------------------------- scoring functions (README)
{
  const q = new Float32Array(2 * 4), k = new Float32Array(3 * 4);
  exact<Float32Array>()(attentionScores(q, k, { nq: 2, nk: 3 }));
  exact<Float32Array>()(attentionScores(q, k, { nq: 2, nk: 3, scoring: "dot", out: new Float32Array(6) }));
  exact<Float32Array>()(attentionScores(q, k, { nq: 2, nk: 3, scoring: "bilinear", W: new Float32Array(16) }));
  const add = { nq: 2, nk: 3, scoring: "additive", Wq: [1, 0, 0, 0], Wk: [0, 1, 0, 0], wv: [1] } as const;
  exact<Float32Array>()(attentionScores(q, k, add));
  const g = attentionScoresBackward(q, k, new Float32Array(6), add);
  exact<Float32Array>()(g.dWq);
  exact<Float32Array>()(g.dwv);
  exact<Float32Array>()(attentionScoresBackward(q, k, new Float32Array(6), { nq: 2, nk: 3, scoring: "bilinear", W: new Float32Array(16) }).dW);
  exact<Float32Array>()(attentionScoresBackward(q, k, new Float32Array(6), { nq: 2, nk: 3 }).dq);
  exact<Float32Array>()(maskedMapping(new Float32Array(6), { n: 3, validLengths: [2, 0], mapping: "sparsemax" }));
  exact<Float32Array>()(maskedMapping([1, 2, 3], { validLengths: new Int32Array([1]), mapping: "entmax", alpha: 1.3 }));
  exact<Float32Array>()(maskedMappingBackward([1, 2, 3], [1, 0, 0], { validLengths: [2], mapping: "sigmoid" }));
  // @ts-expect-error no such scoring
  attentionScores(q, k, { scoring: "cosine" });
  // @ts-expect-error bilinear needs W
  attentionScores(q, k, { scoring: "bilinear" });
  // @ts-expect-error W belongs to bilinear, not to dot
  attentionScores(q, k, { scoring: "dot", W: [1] });
  // @ts-expect-error additive needs wv
  attentionScores(q, k, { scoring: "additive", Wq: [1], Wk: [1] });
  // @ts-expect-error validLengths are integers, not a string
  maskedMapping([1, 2], { validLengths: "2" });
  // @ts-expect-error groupmax has no mapping code
  maskedMapping([1, 2], { mapping: "groupmax" });
  const fy = fyLoss([1, 2, 3], [0], { mapping: "entmax", alpha: 1.3, grad: true, alphaGrad: true });
  exact<Float32Array>()(fy.loss);
  exact<Float32Array | undefined>()(fy.grad);
  exact<Float32Array | undefined>()(fy.dalpha);
  fyLoss(new Float32Array(6), new Float64Array(6), { n: 3, mapping: "sparsemax" });
  fyLoss(new Float32Array(6), new Int32Array([0, -1]), { n: 3 });
  // @ts-expect-error fusedmax has no loss here
  fyLoss([1, 2], [0], { mapping: "fusedmax" });
  // @ts-expect-error grad is a boolean
  fyLoss([1, 2], [0], { grad: 1 });
  exact<Float32Array>()(chainAttention([1, 2, 3], { method: "sparsemap", transition: 0.5 }));
  const cb = chainAttentionBackward(new Float32Array(4), [1, 0, 0, 1], { n: 2 });
  exact<Float32Array>()(cb.du);
  exact<number>()(cb.dt);
  const sel = sparsemapSelections([1, 0.2], { transition: 1 }).selections[0];
  exact<number[]>()(sel.positions);
  exact<number>()(sel.weight);
  // @ts-expect-error method is "crf" or "sparsemap"
  chainAttention([1, 2], { method: "viterbi" });
  // @ts-expect-error the backward pass writes no out
  chainAttentionBackward([1, 2], [1, 0], { out: new Float32Array(2) });
}

// ------------------------------------------------------- caller-owned wasm arrays
{
  const wx: WasmArray = alloc(6);
  const wp = alloc(6);
  exact<Float32Array>()(wx.array);
  exact<number>()(wx.length);
  exact<boolean>()(wx.freed);
  exact<WasmArray>()(sparsemax(wx, { n: 3, out: wp }));
  exact<WasmArray>()(entmax(wx, { n: 3, alpha: 1.3, out: wx }));
  exact<WasmArray>()(softmaxBackward(wx, wp, { n: 3, out: wp }));
  exact<Float32Array>()(sparsemax(wx, { n: 3 }));
  exact<Float32Array>()(entmax15(wx.array, { n: 3, out: new Float32Array(6) }));
  exact<WasmArray>()(tsallisEntropy(wp, { n: 3, out: alloc(2) }));
  const o: Output = wp;
  exact<WasmArray>()(null as unknown as Result<WasmArray>);
  exact<Float32Array>()(null as unknown as Result<Float32Array>);
  void o;
  wx.free();
  // @ts-expect-error length is read-only
  wx.length = 3;
  // @ts-expect-error a WasmArray comes from alloc(), not new
  new WasmArray();
  // @ts-expect-error out is a Float32Array or a WasmArray
  sparsemax(wx, { out: [0, 0, 0, 0, 0, 0] });
}
