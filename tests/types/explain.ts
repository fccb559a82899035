// explain.ts - "simplexity/explain" as the README uses it, type-checked against dist/explain.d.ts
// by `make test-types` (never run). See api.ts for the conventions.
import { init, Model, tasks } from "simplexity";
import { alignment, kendallTau, jsd, totalVariation, erasure, adversarialAttention, runExperiments } from "simplexity/explain";
import type { ExperimentSummary, ErasureResult, AdversarialResult, AlignedTask } from "simplexity/explain";

await init();
const model = new Model({ task: "reverse" });
const src = tasks.encode("reverse", "abc");
const [out] = model.generate([src]);
const a: number[][] = alignment("reverse", src);
const t: number = kendallTau([1, 2], new Float32Array(2)) + jsd([1, 0], [0, 1]) + totalVariation([1], [1]);
const e: ErasureResult = erasure(model, src, out, { step: 1, order: "gradient" });
const adv: AdversarialResult = adversarialAttention(model, src, out, { step: 1, layer: 1, head: 0, epsilon: 0.01 });
const task: AlignedTask = "date";
const summary: ExperimentSummary = await runExperiments(model, task, { count: 10, onProgress: (d, n) => console.log(d, n) });
const best: number = summary.alignment.best.accuracy + summary.tau.rollout.mean + summary.erasure.random.flipRate;
console.log(a, t, e.removed, adv.jsd, best);
// @ts-expect-error copy has no known alignment
alignment("copy", src);
// @ts-expect-error an erasure order is one of four names
erasure(model, src, out, { step: 1, order: "loo" });
// @ts-expect-error the step is required
adversarialAttention(model, src, out, { epsilon: 0.1 });
model.free();
