// model.js - the tiny encoder-decoder Transformer (Model), the recurrent encoder-decoder (RNN) and
// the toy sequence tasks (tasks), over the C core's sx_model_*, sx_rnn_* and sx_task_* exports (the full core's). simplexity.js builds
// them over mappings.js's internals (modelApi(internal.core)) and exports them, so they share
// its wasm instance, its heap views and its scratch region, and this file holds no state of its
// own.
//
// This file assembles them from model/, one concept per file: names.js (names, constants,
// MODEL_DEFAULTS), args.js (argument checks), tokens.js (token rows in and out, C strings),
// tasks.js (the tasks), edits.js (interventions), config.js (a Model's config, checked and read
// back), explain.js (model.explain and model.attentionGrad), training.js (trainStep, loss),
// checkpoints.js (save, Model.load's bytes), outputs.js (the output distributions: forward's
// probs, decode, exactSearch), model-class.js (the Model class: lifetime, compute,
// decoding, queries; the methods of explain.js, training.js and checkpoints.js delegated),
// rnn-config.js (an RNN's config, RNN_DEFAULTS) and rnn-class.js (the RNN class), lm.js
// (a decoder-only Model's KV-cache steps, model.lmStep), text-model.js (TextModel: a
// character language model, its vocabulary, stepping, sampling and fine-tuning) and
// rationale-class.js (Rationale: a generator selecting input positions, a predictor over the
// selection, on a task whose right rationale is known; issue 25).
//
// Boundary rules (docs/STYLE.md): JS checks every argument, every token id included, before
// crossing into wasm (TypeError/RangeError naming the function, the argument and the value); C
// statuses become SimplexityError. Inputs go through the shared grow-only scratch region, so no
// call mallocs except new Model / Model.load (the model itself, freed by free()). Heap views are
// fetched again after every call into wasm (core.f32() etc.); results are copies.
// Token rows are read (and checked) into JS-owned Int32Arrays before the call reserves model
// memory or takes scratch: a getter or Proxy trap that calls the library again runs before any
// pointer is taken, and a rejected batch grows nothing. A model freed meanwhile is caught.

import { modelArgs } from "./model/args.js";
import { tokenRows } from "./model/tokens.js";
import { tasksApi } from "./model/tasks.js";
import { editArgs } from "./model/edits.js";
import { configArgs } from "./model/config.js";
import { explainMethods } from "./model/explain.js";
import { trainingMethods } from "./model/training.js";
import { checkpointMethods } from "./model/checkpoints.js";
import { outputMethods } from "./model/outputs.js";
import { modelClass } from "./model/model-class.js";
import { lmMethods } from "./model/lm.js";
import { textModelClass } from "./model/text-model.js";
import { rnnConfigArgs } from "./model/rnn-config.js";
import { rnnClass } from "./model/rnn-class.js";
import { rationaleClass } from "./model/rationale-class.js";

export { MODEL_DEFAULTS } from "./model/names.js";
export { RNN_DEFAULTS } from "./model/rnn-config.js";

// ------------------------------------------------------------------------- the API
/**
 * Build Model and tasks over one mappings.js instance (its calls need the full core).
 * core: { ready(fn) -> exports, f32(), i32(), u8(), scratch(fn, bytes) -> byte address (16-byte
 * aligned, valid until the next scratch call), coreError(fn, status), show(v), SimplexityError }.
 */
export function modelApi(core) {
  const h = { ...modelArgs(core.show), ...tokenRows(core) };
  const { tasks, taskArg } = tasksApi(core, h);
  Object.assign(h, { taskArg }, editArgs(core, h));
  Object.assign(h, configArgs(core, h));
  Object.assign(h, explainMethods(core, h), trainingMethods(core, h), checkpointMethods(core, h),
    outputMethods(core, h), rnnConfigArgs(core, h), lmMethods(core, h));
  const Model = modelClass(core, h);
  return { Model, RNN: rnnClass(core, h), TextModel: textModelClass(core, h, Model), Rationale: rationaleClass(core, h), tasks };
}
