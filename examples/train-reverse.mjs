// train-reverse.mjs - train a tiny Transformer with learned-alpha entmax attention to reverse
// strings, in wasm, in a few seconds; then print one example's cross-attention as a text
// heatmap (exact zeros as '·') and the learned alphas. Run: node examples/train-reverse.mjs
import { init, info, Model, tasks } from "simplexity";

await init();
const TASK = "reverse";
const BATCH = 32, MAX_STEPS = 800, LR = 1e-2, LR_MIN = 1e-3, WARMUP = 30;

// One layer each side, 4 heads of 8; alpha = 1 + sigmoid(a) learned per head (alphaLr speeds a up).
const model = new Model({ task: TASK, dModel: 32, heads: 4, layers: 1, dFF: 64, maxBatch: BATCH,
  attention: "entmax-learned", alphaLr: 10, seed: 1 });
console.log(`simplexity ${info().simd ? "SIMD" : "scalar"} build; ${TASK}: ${model.numParams} parameters`);

// Greedy exact-sequence accuracy on held-out strings (never seen in training: the split is a
// property of the string).
const held = tasks.generate(TASK, { seed: 2, count: 200, split: "heldout" });
const width = held.shape[1];
const row = (a, r) => a.subarray(r * width, (r + 1) * width);
function accuracy() {
  const out = model.generate(held.src, { count: held.shape[0] });
  let right = 0;
  out.forEach((r, i) => (right += tasks.decode(TASK, r) === tasks.decode(TASK, row(held.tgt, i))));
  return right / out.length;
}

const t0 = performance.now();
let step = 0, acc = 0, loss = 0;
while (step < MAX_STEPS) {
  // linear warm-up, then cosine decay; fresh training examples every step
  const lr = (LR_MIN + 0.5 * (LR - LR_MIN) * (1 + Math.cos(Math.PI * step / MAX_STEPS))) * Math.min(1, (step + 1) / WARMUP);
  loss = model.trainStep(tasks.generate(TASK, { seed: 1, start: step * BATCH, count: BATCH }), { lr });
  step++;
  if (step % 100 === 0) {
    acc = accuracy();
    const s = (performance.now() - t0) / 1000;
    console.log(`step ${String(step).padStart(4)}  loss ${loss.toFixed(3)}  held-out exact ${(100 * acc).toFixed(1)}%  ${s.toFixed(1)} s`);
    if (acc >= 0.99) break;
  }
}
const seconds = (performance.now() - t0) / 1000;
console.log(`${step} steps in ${seconds.toFixed(1)} s (${(step / seconds).toFixed(0)} steps/s, evaluation included)`);

// One held-out example: its answer and its cross-attention per head (rows: decoder step, named
// by the token it emits; columns: source characters and EOS '$'). ' .:-=+*#%@' by weight, '·'
// for an exact zero.
const text = "abcdefgh";
const src = tasks.encode(TASK, text);
const [out] = model.generate([src]);
const answer = tasks.decode(TASK, out);
console.log(`\n"${text}" -> "${answer}" (${answer === tasks.answer(TASK, text) ? "right" : "wrong"})`);
const dec = out.subarray(0, answer.length + 1); // decoder input: BOS, the answer (the last step emits EOS)
const { attention } = model.forward([src], [dec]);
const cross = attention.find((a) => a.kind === "cross" && a.layer === 0);
const [, H, Tq, Tk] = cross.shape;
const srcLen = text.length + 1; // the characters and EOS (the keys after it are masked)
const RAMP = " .:-=+*#%@";
const cell = (v) => (v === 0 ? "·" : RAMP[Math.min(RAMP.length - 1, Math.ceil(v * (RAMP.length - 1)))]);
const heads = Array.from({ length: H }, (_, h) => `head ${h} (a ${cross.alpha[h].toFixed(2)})`.padEnd(srcLen + 8));
console.log("cross-attention     " + heads.join(""));
console.log("      " + Array.from({ length: H }, () => (text + "$").padEnd(srcLen + 8)).join(""));
let zeros = 0;
for (let i = 0; i < Tq; i++) {
  let line = "";
  for (let h = 0; h < H; h++) {
    const r = cross.data.subarray((h * Tq + i) * Tk, (h * Tq + i) * Tk + srcLen);
    zeros += r.filter((v) => v === 0).length;
    line += Array.from(r, cell).join("").padEnd(srcLen + 8);
  }
  console.log(`  ${i < answer.length ? answer[i] : "$"}   ${line}`);
}
console.log(`exact zeros: ${zeros} of ${Tq * H * srcLen} visible cross-attention weights (${(100 * zeros / (Tq * H * srcLen)).toFixed(0)}%)`);

const alphas = model.alphas();
for (const kind of ["encoder", "decoder", "cross"]) {
  console.log(`alpha ${kind.padEnd(7)} ${alphas[kind].map((l) => l.map((a) => a.toFixed(2)).join(" ")).join(" | ")}`);
}
model.free();
