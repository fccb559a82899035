// train-alpha.mjs - `make bench-attention` (issue 26): the learned-alpha models' training speed
// against softmax's in the same run, on a model at initialisation (flat attention) and after
// training, in the SIMD wasm build through the public API (the in-tab trainer runs the same core).
// The shipped config (attention-common.mjs's MODEL_KINDS: task reverse, d_model 32, 4 heads, 2 + 2
// layers, batch 64); each kind is trained from the same seed for --steps Adam steps on fresh
// batches, and its steps/s on one batch are timed before and after.
//
//   node bench/train-alpha.mjs [--quick] [--steps S] [--ms T] [--api path/to/simplexity.js]
// An unknown option or a bad value is an error (exit code 2); --help prints the usage.
// Exit code 1 if a model's loss is not finite, or did not fall, after training.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MODEL_KINDS, TASK, BATCH } from './attention-common.mjs';
import { mdTable, commandLine, wholeNumber, positiveNumber, existingFile } from './common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: node bench/train-alpha.mjs [--quick] [--steps S] [--ms T] [--api path/to/simplexity.js]';
const { STEPS, MS, API } = commandLine('bench/train-alpha.mjs', USAGE, {
  quick: { type: 'boolean' }, steps: { type: 'string' }, ms: { type: 'string' }, api: { type: 'string' },
}, (v, bad) => ({
  STEPS: v.steps === undefined ? (v.quick ? 40 : 600) : wholeNumber(v.steps, '--steps', bad),
  MS: v.ms === undefined ? (v.quick ? 100 : 1500) : positiveNumber(v.ms, '--ms', bad),
  API: pathToFileURL(v.api === undefined ? path.join(root, 'dist/simplexity.js') : existingFile(v.api, '--api', bad)).href,
}));
const api = await import(API);
await api.init({ simd: true });

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const config = (kind) => ({ task: TASK, dModel: 32, heads: 4, layers: 2, dFF: 64, attention: MODEL_KINDS[kind].attention,
  span: MODEL_KINDS[kind].span, spanRamp: 3, seed: 1, maxBatch: BATCH, spanPenalty: 0.002, clip: 1, alphaLr: 10 });
const batch = api.tasks.generate(TASK, { seed: 1, count: BATCH, split: 'train' });

// steps/s of Adam steps on one batch after a warm-up, the weights restored afterwards (the stage is unchanged)
function stepsPerSecond(model) {
  const saved = model.save();
  for (let i = 0; i < 5; i++) model.trainStep(batch, { lr: 3e-3 });   // warm-up (V8's optimised code)
  let calls = 0;
  const c0 = cpuMs();
  let t;
  do { model.trainStep(batch, { lr: 3e-3 }); calls++; t = cpuMs(); } while (t - c0 < MS);
  model.free();
  return { rate: (1000 * calls) / (t - c0), model: api.Model.load(saved) };
}

const kinds = Object.keys(MODEL_KINDS);
const rate = { init: {}, trained: {} }, loss = {};
let failed = false;
for (const kind of kinds) {
  let model = new api.Model(config(kind));
  const l0 = model.loss(batch);
  ({ rate: rate.init[kind], model } = stepsPerSecond(model));
  for (let s = 0; s < STEPS; s++) model.trainStep(api.tasks.generate(TASK, { seed: 100 + s, count: BATCH, split: 'train' }), { lr: 3e-3 });
  const l1 = model.loss(batch);
  ({ rate: rate.trained[kind], model } = stepsPerSecond(model));
  model.free();
  loss[kind] = [l0, l1];
  if (!(Number.isFinite(l1) && l1 < l0)) { console.error(`train-alpha.mjs: ${kind}: loss ${l0} -> ${l1} after ${STEPS} steps`); failed = true; }
}
const rows = kinds.map((k) => [k, `${loss[k][0].toFixed(3)} -> ${loss[k][1].toFixed(3)}`,
  rate.init[k].toFixed(1), (rate.init[k] / rate.init.softmax).toFixed(2), rate.trained[k].toFixed(1), (rate.trained[k] / rate.trained.softmax).toFixed(2)]);
console.log(`train-alpha (issue 26): ${API}; task ${TASK}, batch ${BATCH}, ${STEPS} training steps, ${MS} ms CPU per timing\n`);
console.log(mdTable(['attention', 'loss', 'steps/s at init', 'vs softmax', `steps/s after ${STEPS} steps`, 'vs softmax'], rows, 1));
if (failed) process.exit(1);
