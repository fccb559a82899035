// widgets.ts - the widgets as a TypeScript page uses them (README "Widgets for a blog post" and
// "TypeScript"), type-checked against dist/widgets.d.ts by `make test-types` (tsc -p tests/types;
// never run, never emitted). The same three kinds of lines as api.ts: documented uses, which
// must compile; exact<T>()(value), whose type must be exactly T; `// @ts-expect-error` before a
// misuse the declarations must reject. tests/js/declarations.test.mjs checks the declarations
// against the widgets' JS (every attribute, property, method and event).

import { load, TAGS } from "simplexity/widgets";
import type {
  SxElement, SxSimplexElement, SxEntropyElement, SxTrajectoryElement, SxTwoChoiceElement, SxFusedElement,
  SxSpanMaskElement, SxPoolingElement, SxAttentionElement, SxTag, SxWidgetAttributes, SxEventMap,
  SxPoolingLearnDetail, SxAttentionTrainedDetail, SxAttentionModelDetail, SxTrainOptions, SxMappingName,
  SxExplainChangeDetail, SxExplainExperiments,
  SxDecodeResult,
} from "simplexity/widgets";
// Each widget's module alone: it registers its element; its types are the same file's.
import "simplexity/widgets/sx-simplex";
import type { SxFusedElement as FusedFromModule } from "simplexity/widgets/sx-fused";
// The single-file build: the library and the widgets' load() and TAGS in one module.
import { load as loadOne, TAGS as tagsOne, softmax, init } from "simplexity/standalone";
import type { TaskName, AttentionKind } from "simplexity";
// A regular import of a class: allowed for its type, not as a value (the modules export none).
import { SxPoolingElement as PoolingType } from "simplexity/widgets";

// --------------------------------------------------------------------- helpers
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
/** exact<T>()(value) compiles only when value's type is exactly T ("Expected 2 arguments" otherwise). */
function exact<T>() {
  return <V>(value: V, ..._mismatch: Equal<V, T> extends true ? [] : [never]): V => value;
}
type Theme = "auto" | "light" | "dark";

// ------------------------------------------------------------------ tags, load
exact<readonly SxTag[]>()(TAGS);
exact<readonly SxTag[]>()(tagsOne);
exact<SxTag>()(TAGS[0]!);
const Simplex = await load("sx-simplex");
exact<typeof SxSimplexElement>()(Simplex);
exact<SxSimplexElement>()(new Simplex());
exact<Promise<typeof SxAttentionElement>>()(load("sx-attention"));
exact<Promise<typeof SxAttentionElement>>()(loadOne("sx-attention"));
exact<Promise<typeof SxTwoChoiceElement | typeof SxFusedElement>>()(load("sx-two-choice" as "sx-two-choice" | "sx-fused"));
for (const tag of TAGS) void load(tag);
const anyWidget: SxElement = new (await load("sx-pooling"))();
exact<FusedFromModule>()(new (await load("sx-fused"))());
// @ts-expect-error not a widget
void load("sx-nothing");
// @ts-expect-error a tag, not a string
void load("sx-simplex" as string);
// @ts-expect-error TAGS is read-only
TAGS.push("sx-simplex");
// @ts-expect-error the classes are types: widgets.js exports none
new PoolingType();
void softmax([1, 2]);
void init;

// ---------------------------------------------------------- the DOM knows the tags
const sim = document.querySelector("sx-simplex");
exact<SxSimplexElement | null>()(sim);
exact<SxAttentionElement>()(document.createElement("sx-attention"));
exact<HTMLCollectionOf<SxPoolingElement>>()(document.getElementsByTagName("sx-pooling"));
exact<NodeListOf<SxSpanMaskElement>>()(document.querySelectorAll("sx-span-mask"));
exact<SxEntropyElement | null>()(document.body.querySelector("sx-entropy"));
exact<SxTrajectoryElement | null>()(document.querySelector("sx-trajectory"));
// An element is still an HTMLElement.
const asHtml: HTMLElement | null = sim;
void asHtml;
// Other tags keep their types.
exact<HTMLDivElement>()(document.createElement("div"));

// ---------------------------------------------------------------- <sx-simplex>
const el = document.createElement("sx-simplex");
exact<readonly number[]>()(el.scores);
exact<number>()(el.alpha);
exact<number>()(el.lambda);
exact<number>()(el.beta);
exact<number>()(el.temperature);
exact<readonly SxMappingName[]>()(el.mappings);
exact<"none" | "all" | SxMappingName>()(el.cloud);
exact<"none" | "shannon" | "tsallis">()(el.entropy);
exact<"both" | "ternary">()(el.view);
exact<number>()(el.yaw);
exact<number>()(el.pitch);
exact<Theme>()(el.theme);
exact<number>()(el.lastRenderMs);
exact<Promise<void>>()(el.exportAs("png"));
exact<string>()(el.toSVG());
exact<Promise<Blob>>()(el.toPNG(3));
exact<Promise<Blob>>()(el.toPNG());
el.invalidate();
el.renderNow();
el.scores = [1, 0, -1];
el.scores = new Float32Array([1, 0, -1]);
el.scores = el.scores.map((v) => v * 2);
el.scores = null; // back to the default
el.alpha = 1.5;
el.alpha = undefined;
el.mappings = ["softmax", "oscarmax"];
el.cloud = "all";
el.entropy = "tsallis";
el.view = "ternary";
el.theme = "dark";
el.temperature = 0.5;
// @ts-expect-error alpha is a number
el.alpha = "x";
// @ts-expect-error a list is an iterable of numbers, not the attribute's string
el.scores = "1 0 -1";
// @ts-expect-error no such mapping
el.mappings = ["softmax", "entmax2"];
// @ts-expect-error no such cloud
el.cloud = "some";
// @ts-expect-error no such theme
el.theme = "sepia";
exact<"copy" | "live" | "none">()(el.link);
el.link = "live"; // the page's URL follows the reader (README, "Links that keep what the reader set")
el.link = null;
// @ts-expect-error no such link mode
el.link = "always";
// @ts-expect-error the list read back is not live: assign a new one
el.scores[0] = 2;
// @ts-expect-error the element sets it
el.lastRenderMs = 0;
// @ts-expect-error exported as svg or png only
void el.exportAs("jpg");
// @ts-expect-error sx-simplex has no t
void el.t;

// ------------------------------------------------------------- the other widgets
const ent = document.createElement("sx-entropy");
exact<readonly number[] | null>()(ent.scores);
exact<number>()(ent.alpha);
ent.scores = [1, 2, 3];
const traj = document.createElement("sx-trajectory");
exact<number>()(traj.t);
exact<number>()(traj.tmax);
exact<readonly SxMappingName[]>()(traj.mappings);
const two = document.createElement("sx-two-choice");
exact<readonly number[]>()(two.alphas);
two.alphas = [1, 1.5, 2];
exact<number>()(two.t);
const fused = document.createElement("sx-fused");
exact<readonly number[]>()(fused.scores);
exact<number>()(fused.beta);
exact<readonly number[]>()(fused.groups);
fused.groups = [3, 3, 2, 2];
fused.groupLambda = 1.5;
exact<number>()(fused.groupLambda);
fused.addEventListener("sx-fused-change", (e) => exact<number>()(e.detail.groupLambda));
exact<boolean>()(fused.steps);
fused.steps = true;
fused.output = 3;
exact<number>()(fused.output);
fused.addEventListener("sx-fused-change", (e) => exact<boolean>()(e.detail.steps));
const jac = document.createElement("sx-jacobian");
exact<SxMappingName>()(jac.mapping);
exact<"none" | SxMappingName>()(jac.compare);
exact<number>()(jac.n);
exact<readonly number[]>()(jac.scores);
exact<readonly number[]>()(jac.from);
exact<readonly number[]>()(jac.to);
exact<number>()(jac.t);
exact<number>()(jac.temperature);
exact<Float32Array | null>()(jac.jacobian);
exact<Float32Array | null>()(jac.p);
jac.mapping = "entmax";
jac.alpha = 1.25;
jac.compare = "none";
jac.n = 4;
jac.scores = new Float32Array([1, 0.5, -1, 0]);
jac.from = [0.99, 0.01, -1, -1];
jac.t = 0.5;
jac.scores = null; // back onto the face path
// @ts-expect-error no such mapping
jac.mapping = "entmax2";
// @ts-expect-error n is a number
jac.n = "3";
// @ts-expect-error the element computes it
jac.jacobian = new Float32Array(9);
// @ts-expect-error read-only
jac.p = null;
// @ts-expect-error compare takes a mapping or "none", not a list
jac.compare = ["softmax"];
const thr = document.createElement("sx-threshold");
exact<number>()(thr.n);
exact<readonly number[] | null>()(thr.scores);
exact<number>()(thr.seed);
exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(thr.mapping);
exact<number>()(thr.alpha);
exact<number>()(thr.temperature);
exact<boolean>()(thr.steps);
thr.n = 50;
thr.scores = new Float32Array([1.2, 0.3, -0.5]);
thr.scores = null; // back to n seeded random scores
thr.mapping = "entmax";
thr.alpha = 1.25;
thr.steps = true;
// @ts-expect-error the threshold has no fusedmax (it thresholds an inner vector, not the scores)
thr.mapping = "fusedmax";
// @ts-expect-error n is a number
thr.n = "8";
// @ts-expect-error steps is a boolean attribute
thr.steps = "yes";
const reg = document.createElement("sx-regularized");
exact<readonly number[]>()(reg.scores);
exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(reg.mapping);
exact<number>()(reg.alpha);
exact<number>()(reg.temperature);
exact<readonly ("argmax" | "max" | "omega")[]>()(reg.view);
exact<readonly number[] | null>()(reg.p);
exact<number | null>()(reg.value);
exact<readonly number[] | null>()(reg.argmax);
reg.scores = new Float32Array([1, 1, 0]);
reg.mapping = "entmax";
reg.alpha = 1.25;
reg.temperature = 0.1;
reg.view = ["argmax", "max"];
// @ts-expect-error no fusedmax: its regulariser is not a Tsallis entropy
reg.mapping = "fusedmax";
// @ts-expect-error read-only: the element computes it
reg.value = 1;
// @ts-expect-error no such view
reg.view = ["simplex"];
const span = document.createElement("sx-span-mask");
exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(span.mapping);
exact<"none" | TaskName>()(span.model);
exact<number>()(span.z);
exact<number>()(span.ramp);
span.model = "date";
// @ts-expect-error span-mask has no fusedmax row
span.mapping = "fusedmax";
// @ts-expect-error no such task
span.model = "copy";
const pats = document.createElement("sx-patterns");
exact<number>()(pats.n);
exact<"local" | "strided" | "fixed" | "lsh">()(pats.pattern);
pats.pattern = "lsh";
pats.n = 512;
exact<number | undefined>()(pats.result?.fraction);
pats.addEventListener("sx-patterns-change", (e) => exact<number>()(e.detail.pairs));
// @ts-expect-error no such pattern
pats.pattern = "sliding";
void ({ n: "1024", pattern: "fixed", block: 16, summary: "2" } satisfies SxWidgetAttributes["sx-patterns"]);
const pool = document.createElement("sx-pooling");
exact<readonly ("softmax" | "sparsemax" | "entmax15" | "entmax" | "fusedmax")[]>()(pool.mappings);
exact<number>()(pool.w);
exact<number>()(pool.points);
exact<number>()(pool.seed);
exact<number>()(pool.noise);
exact<number>()(pool.steps);
exact<SxPoolingLearnDetail | undefined>()(pool.lastLearn);
// @ts-expect-error pooling has no oscarmax kernel
pool.mappings = ["oscarmax"];
// @ts-expect-error the element sets it
pool.lastLearn = undefined;

const att = document.createElement("sx-attention");
exact<TaskName>()(att.task);
exact<"softmax" | "entmax15" | "alpha" | "alpha-span" | "fusedmax" | "oscarmax">()(att.kind);
exact<readonly AttentionKind[]>()(att.maps);
exact<boolean>()(att.noTrain);
exact<string>()(att.input);
exact<string | null>()(att.models);
exact<SxTrainOptions | null>()(att.trainOptions);
exact<Worker | null>()(att.trainingWorker);
exact<"worker" | "main" | null>()(att.trainingThread);
exact<string | null>()(att.modelSrc);
exact<SxAttentionModelDetail | null>()(att.shownModel);
att.task = "date";
att.kind = "alpha-span";
att.input = "22 Nov 2026";
att.maps = ["cross"];
att.noTrain = true;
att.models = new URL("https://example.com/models/");
att.models = null;
att.trainOptions = { maxSteps: 200, lr: 3e-3 };
att.trainOptions = null;
att.modelSrc = "models/date-alpha-trained.sxm";
att.modelSrc = new URL("https://example.com/mine.sxm");
att.modelSrc = null;
// @ts-expect-error no such task
att.task = "copy";
// @ts-expect-error no such model kind
att.kind = "sparsemax";
// @ts-expect-error no such map
att.maps = ["self"];
// @ts-expect-error a misspelled schedule field
att.trainOptions = { maxstep: 200 };
// @ts-expect-error read-only
att.trainingThread = "main";
// @ts-expect-error read-only
att.trainingWorker = null;
// @ts-expect-error read-only
att.shownModel = null;
// @ts-expect-error the property is camelCase
void att["no-train"];

const dec = document.createElement("sx-decode");
exact<TaskName>()(dec.task);
exact<"softmax" | "sparsemax" | "entmax15">()(dec.output);
exact<number>()(dec.cap);
exact<string>()(dec.source);
exact<SxDecodeResult | null>()(dec.result);
if (dec.result) exact<Int32Array>()(dec.result.decode.steps[0].support);
if (dec.result) exact<boolean>()(dec.result.search.complete);
dec.output = "sparsemax";
// @ts-expect-error alpha-entmax outputs are not shipped
dec.output = "entmax";
// @ts-expect-error read-only
dec.result = null;
dec.addEventListener("sx-decode-change", (e) => exact<number>()(e.detail.step));

const exp = document.createElement("sx-explain");
exact<TaskName>()(exp.task);
exact<"softmax" | "entmax15" | "alpha" | "alpha-span">()(exp.kind);
exact<"logit" | "logProb">()(exp.objective);
exact<number>()(exp.step);
exact<number>()(exp.examples);
exact<string>()(exp.text);
exact<string>()(exp.head);
exact<string | null>()(exp.models);
exact<"worker" | "main" | null>()(exp.experimentsRanIn);
exact<SxExplainExperiments | null>()(exp.experiments);
exp.task = "date";
exp.kind = "softmax";
exp.text = "22 Nov 2026";
exp.step = 3;
exp.head = "2.1";
exp.head = "mean";
exp.objective = "logProb";
exp.examples = 10;
exp.models = new URL("https://example.com/models/");
exp.models = null;
const firstSummary = exp.experiments?.summaries.entmax15;
if (firstSummary) exact<number>()(firstSummary.tau.leaveOneOut.mean);
// @ts-expect-error no such objective
exp.objective = "prob";
// @ts-expect-error examples is a number
exp.examples = "100";
// @ts-expect-error read-only
exp.experimentsRanIn = "worker";
// @ts-expect-error read-only
exp.experiments = null;
// @ts-expect-error the experiments compare softmax, entmax15 and alpha only
void exp.experiments?.summaries["alpha-span"];

// ------------------------------------------------------------------------ events
el.addEventListener("sx-simplex-change", (e) => {
  exact<CustomEvent<{ scores: readonly number[]; alpha: number; lambda: number; temperature: number }>>()(e);
  exact<readonly number[]>()(e.detail.scores);
  // @ts-expect-error the change event has no beta
  void e.detail.beta;
});
el.addEventListener("sx-simplex-export", (e) => exact<"svg" | "png">()(e.detail.format));
att.addEventListener("sx-attention-trained", (e) => {
  exact<number | null>()(e.detail.accuracy);
  exact<SxAttentionTrainedDetail>()(e.detail);
  exact<{ step: number; accuracy: number; confirm: number; ms: number } | null>()(e.detail.reachedAt);
  exact<boolean>()(e.detail.stopped);
  // @ts-expect-error no such field
  void e.detail.accuracyPct;
});
att.addEventListener("sx-attention-progress", (e) => exact<number>()(e.detail.loss));
att.addEventListener("sx-attention-change", (e) => exact<TaskName>()(e.detail.task));
att.addEventListener("sx-attention-model", (e) => {
  exact<SxAttentionModelDetail>()(e.detail);
  exact<"shipped" | "url" | "trained" | "stored" | "file">()(e.detail.source);
  exact<number | null>()(e.detail.accuracy);
  exact<string | null>()(e.detail.name);
  // @ts-expect-error no such source
  if (e.detail.source === "cloud") void 0;
});
pool.addEventListener("sx-pooling-learn", (e) => exact<number>()(e.detail.kernels[0]!.after));
span.addEventListener("sx-span-mask-change", (e) => exact<number>()(e.detail.ramp));
two.addEventListener("sx-two-choice-change", (e) => exact<number>()(e.detail.t));
traj.addEventListener("sx-trajectory-change", (e) => exact<number>()(e.detail.t));
ent.addEventListener("sx-entropy-change", (e) => exact<number>()(e.detail.alpha));
fused.addEventListener("sx-fused-change", (e) => exact<number>()(e.detail.lambda));
jac.addEventListener("sx-jacobian-change", (e) => {
  exact<Float32Array>()(e.detail.jacobian);
  exact<Float32Array>()(e.detail.p);
  exact<readonly number[]>()(e.detail.scores);
  exact<SxMappingName>()(e.detail.mapping);
  exact<number>()(e.detail.t);
  // @ts-expect-error no such field
  void e.detail.J;
});
thr.addEventListener("sx-threshold-change", (e) => {
  exact<number>()(e.detail.tau);
  exact<readonly number[]>()(e.detail.p);
  exact<readonly number[]>()(e.detail.support);
  exact<readonly number[]>()(e.detail.scores);
  exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(e.detail.mapping);
  // @ts-expect-error no such field (the line is tau, or tau / (alpha - 1))
  void e.detail.line;
});
reg.addEventListener("sx-regularized-change", (e) => {
  exact<readonly number[]>()(e.detail.p);
  exact<number>()(e.detail.value);
  exact<readonly number[]>()(e.detail.argmax);
  exact<readonly number[]>()(e.detail.scores);
  exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(e.detail.mapping);
  // @ts-expect-error no such field (the gradient is p)
  void e.detail.gradient;
});
pool.addEventListener("sx-pooling-change", (e) => exact<number>()(e.detail.w));
exp.addEventListener("sx-explain-change", (e) => {
  exact<SxExplainChangeDetail>()(e.detail);
  exact<number>()(e.detail.step);
  exact<string>()(e.detail.head);
  exact<number[] | null>()(e.detail.attention);
  if (e.detail.importance) exact<number[]>()(e.detail.importance.leaveOneOut);
  if (e.detail.tau) exact<number | undefined>()(e.detail.tau.alignment);
  // @ts-expect-error gradNorm is not shown
  void e.detail.importance?.gradNorm;
});
exp.addEventListener("sx-explain-experiments", (e) => {
  exact<number>()(e.detail.examples);
  exact<TaskName>()(e.detail.task);
  // @ts-expect-error no such field
  void e.detail.ms;
});
// They bubble and are composed: a listener on the document or the window sees them, typed.
document.addEventListener("sx-attention-trained", (e) => exact<number | null>()(e.detail.test));
window.addEventListener("sx-fused-change", (e) => exact<number>()(e.detail.beta));
document.body.addEventListener("sx-simplex-change", (e) => exact<number>()(e.detail.alpha));
// A listener typed by hand still compiles, and so does one for any other event.
el.addEventListener("sx-simplex-change", (e: Event) => void e);
el.addEventListener("click", (e) => exact<number>()(e.clientX));
el.addEventListener("my-own-event", (e) => exact<Event>()(e));
exact<CustomEvent<SxPoolingLearnDetail>>()(null! as SxEventMap["sx-pooling-learn"]);
// @ts-expect-error the detail's type is the event's
el.addEventListener("sx-simplex-change", (e: CustomEvent<{ t: number }>) => void e);
// @ts-expect-error sx-fused-change has no w (that is sx-pooling-change)
fused.addEventListener("sx-fused-change", (e) => void e.detail.w);

// ------------------------------------------------------------- the JSX attributes
const simplexAttrs: SxWidgetAttributes["sx-simplex"] = { scores: "1.5 0 1", alpha: 1.25, lambda: "0.3", mappings: "softmax sparsemax", cloud: "none" };
const attentionAttrs: SxWidgetAttributes["sx-attention"] = { task: "date", kind: "alpha-span", input: "22 Nov 2026", "no-train": true, "model-src": "mine.sxm" };
exact<SxTag>()(null! as keyof SxWidgetAttributes);
// @ts-expect-error alpha is a number
const badAlpha: SxWidgetAttributes["sx-simplex"] = { alpha: "x" };
// @ts-expect-error no such attribute
const badAttr: SxWidgetAttributes["sx-entropy"] = { lambda: 1 };
// @ts-expect-error no such kind
const badKind: SxWidgetAttributes["sx-attention"] = { kind: "sparsemax" };
void ({ n: 12, mapping: "entmax15", steps: true, scores: "1 0.5 -1" } satisfies SxWidgetAttributes["sx-threshold"]);
// @ts-expect-error no such mapping
void ({ mapping: "oscarmax" } satisfies SxWidgetAttributes["sx-threshold"]);
void ({ mapping: "entmax", alpha: "1.3", temperature: 0.5, scores: "1 1 0", view: "argmax max" } satisfies SxWidgetAttributes["sx-regularized"]);
// @ts-expect-error temperature is a number
void ({ temperature: "cold" } satisfies SxWidgetAttributes["sx-regularized"]);
void ({ task: "date", kind: "entmax15", text: "22 Nov 2026", step: "2", head: "2.1", objective: "logit", examples: 50 } satisfies SxWidgetAttributes["sx-explain"]);
// @ts-expect-error no such objective
void ({ objective: "prob" } satisfies SxWidgetAttributes["sx-explain"]);
const jacobianAttrs: SxWidgetAttributes["sx-jacobian"] = { mapping: "sparsemax", compare: "softmax", n: 3, scores: "0.99 0.01 -1", t: "0.5" };
// @ts-expect-error n is a number
const badN: SxWidgetAttributes["sx-jacobian"] = { n: "three" };

// ------------------------------------------------------------- <sx-positions>
const pos = document.createElement("sx-positions");
exact<number>()(pos.base);
exact<number>()(pos.dim);
exact<number>()(pos.positions);
exact<number>()(pos.offset);
exact<number>()(pos.pair);
exact<number>()(pos.position);
exact<number>()(pos.clip);
exact<number>()(pos.seed);
exact<Float32Array | null>()(pos.matrix);
pos.base = 100;
pos.dim = null; // back to the default
// @ts-expect-error the matrix is read-only (drawn from the library)
pos.matrix = new Float32Array(4);
// @ts-expect-error dim is a number
pos.dim = "32";
pos.addEventListener("sx-positions-change", (e) => {
  exact<number>()(e.detail.base);
  exact<number>()(e.detail.offset);
  // @ts-expect-error no such field
  void e.detail.matrix;
});
void ({ base: 10000, dim: "32", positions: 48, offset: "4", pair: 1, position: 3, clip: 2, seed: 7 } satisfies SxWidgetAttributes["sx-positions"]);
// @ts-expect-error no such attribute
void ({ mapping: "softmax" } satisfies SxWidgetAttributes["sx-positions"]);

// Keep the locals that exist only to be type-checked.
export { anyWidget, simplexAttrs, attentionAttrs, badAlpha, badAttr, badKind };
export { jacobianAttrs, badN };

// ------------------------------------------------------------- <sx-scores>
const scr = document.createElement("sx-scores");
exact<"dot" | "scaled" | "bilinear" | "additive">()(scr.scoring);
exact<"softmax" | "sparsemax" | "entmax15" | "entmax">()(scr.mapping);
exact<readonly number[]>()(scr.query);
exact<number>()(scr.d);
exact<Float32Array | undefined>()(scr.weights);
scr.query = [0.2, -1];
scr.scoring = "additive";
scr.additive = [1, 0, 0, 1, -1, 0, 0, -1, 2, 2];
scr.d = 256;
scr.addEventListener("sx-scores-change", (e) => {
  exact<Float32Array>()(e.detail.weights);
  exact<readonly number[]>()(e.detail.pooled);
  exact<"dot" | "scaled" | "bilinear" | "additive">()(e.detail.scoring);
});
// @ts-expect-error no such scoring
scr.scoring = "cosine";
// @ts-expect-error d is a number
scr.d = "many";
// @ts-expect-error the weights are the widget's, read-only
scr.weights = new Float32Array(4);
void ({ scoring: "bilinear", mapping: "entmax", alpha: "1.3", query: "0.5 0.3", d: 128 } satisfies SxWidgetAttributes["sx-scores"]);
// @ts-expect-error no such mapping
void ({ mapping: "fusedmax" } satisfies SxWidgetAttributes["sx-scores"]);
