// simplexity.js - the public ES module: sparse attention mappings onto the simplex, in wasm.
//
//   import { init, entmax } from "simplexity";
//   await init();
//   const p = entmax([1.5, 0, 1], { alpha: 1.5 });     // Float32Array [0.6..., 0, 0.3...]
//
// The library is three modules over one wasm instance: mappings.js (the state, init(), the
// argument checks and copies, alloc(), the mappings), model.js (Model, RNN, tasks) and blocks.js
// (attention, its patterns, span masks and pooling, positional encodings, scoring functions,
// masked mappings), the last two built here over mappings.js's internals. This module is their sum, the
// API the README documents. The boundary rules are mappings.js's.
import { internal } from "./mappings.js";
import { modelApi } from "./model.js";
import { blocksApi } from "./blocks.js";

export {
  SimplexityError, init, info, softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax, sigmoid,
  groupmax, softmaxBackward, sparsemaxBackward, entmax15Backward, entmaxBackward, fusedmaxBackward,
  oscarmaxBackward, sigmoidBackward, groupmaxBackward, entmaxAlphaGrad, tsallisEntropy, jacobian,
  threshold, alloc, WasmArray,
} from "./mappings.js";

/** The tiny encoder-decoder Transformer, the recurrent one and the toy tasks (see model.js and the README). */
export const { Model, RNN, TextModel, Rationale, tasks } = modelApi(internal.core);

/** The building blocks of attention beyond the mappings (see blocks.js and the README). */
export const {
  attention, attentionPattern, spanMask, attentionPooling, attentionPoolingBackward, positionalEncoding,
  relativeScores, txlScores, attentionScores, attentionScoresBackward, maskedMapping,
  maskedMappingBackward, fyLoss, chainAttention, chainAttentionBackward, sparsemapSelections,
  proxTV, proxTVRuns,
} = blocksApi(internal.lib);
