// model/names.js - the Model's and the tasks' names and constants: mapping and attention kinds,
// edit ops, attribution methods, the C config's field indices, and MODEL_DEFAULTS (what new
// Model() accepts). Plain data; model.js re-exports MODEL_DEFAULTS.

/** Mapping kinds of a Transformer layer, indexed by the C mapping code (SX_MAP_SOFTMAX = 0 ...
 *  SX_MAP_OSCARMAX = 6); the recurrent models' scores take the first six (RNN_MAPPINGS). */
export const MAPPINGS = ["softmax", "sparsemax", "entmax15", "entmax", "entmax-learned", "fusedmax", "oscarmax"];
export const RNN_MAPPINGS = MAPPINGS.slice(0, 6);
export const ENTMAX = 3;
/** Output mappings (the C SX_MAP_* code is the index), and the alpha of each (entmax: outputAlpha). */
export const OUTPUTS = ["softmax", "sparsemax", "entmax15", "entmax"];
export const OUTPUT_ALPHA = Object.freeze({ softmax: 1, sparsemax: 2, entmax15: 1.5 });
export const FUSEDMAX = 5, OSCARMAX = 6;
/** Attention kinds, indexed by the C enum (ENC_SELF, DEC_SELF, CROSS). */
export const KINDS = ["encoder", "decoder", "cross"];
/** Architectures, indexed by the C code (SX_MODEL_ENC_DEC, SX_MODEL_DECODER: a character LM). */
export const ARCHS = ["encoder-decoder", "decoder"];
export const SPLITS = ["train", "heldout"];
/** model.save()'s precisions: the C SX_SAVE_FLOAT32 / SX_SAVE_FLOAT16 (bits per parameter). */
export const SAVE_PRECISION = Object.freeze({ float32: 32, float16: 16 });
// Interventions (sx_model_edit ops) and attributions (sx_model_explain methods)
export const EDIT_OPS = Object.freeze({ ablate: 0, replace: 1, erase: 2, mask: 3 });
export const MAX_ROW_EDITS = 64; // SX_MODEL_MAX_EDITS
export const MAX_EDITS = 256;
export const EXPLAIN_METHODS = Object.freeze({ gradInput: 0, gradNorm: 1, integratedGradients: 2, leaveOneOut: 3 });
export const EXPLAIN_ALL = Object.freeze([...Object.keys(EXPLAIN_METHODS), "rollout"]);

// The integer config (model.h): field indices and the float config's.
export const C_VOCAB = 0, C_D_MODEL = 1, C_N_HEAD = 2, C_N_LAYER = 3, C_D_FF = 4, C_MAX_LEN = 5,
  C_SPAN = 6, C_SPAN_RAMP = 7, C_SEED = 8, C_MAX_BATCH = 9, C_ACT = 10, C_MAP = 11;
export const F_SPAN_PENALTY = 0, F_CLIP = 1, F_ALPHA_LR = 2, F_PARAM = 3;
export const MAX_LAYERS = 8;
export const MAX_ROWS = 4096; // rows of one model call

/** The config fields new Model() accepts, with their defaults (task: see resolveConfig). */
export const MODEL_DEFAULTS = Object.freeze({
  task: undefined, vocab: undefined, maxLen: undefined, dModel: 32, heads: 4, layers: 2,
  dFF: 64, attention: "entmax-learned", alpha: 1.5, lambda: 0.1, beta: 0.1, span: 0, spanRamp: 3,
  activation: "relu", seed: 1, maxBatch: 32, spanPenalty: 0.002, clip: 1, alphaLr: 1,
  output: "softmax", outputAlpha: 1.5, arch: "encoder-decoder",
});
