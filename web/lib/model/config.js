// model/config.js - a Model's config: the JS object new Model() takes, checked field by field
// into the C int and float configs (resolveConfig), and read back from a live model
// (readConfig, so a loaded model has one too).
import {
  MAPPINGS, ARCHS, ENTMAX, FUSEDMAX, OSCARMAX, OUTPUTS, MAX_LAYERS, MODEL_DEFAULTS, C_VOCAB, C_D_MODEL, C_N_HEAD, C_N_LAYER, C_D_FF,
  C_MAX_LEN, C_SPAN, C_SPAN_RAMP, C_SEED, C_MAX_BATCH, C_ACT, C_MAP, F_SPAN_PENALTY, F_CLIP, F_ALPHA_LR, F_PARAM,
} from "./names.js";

/** resolveConfig and readConfig over one core. */
export function configArgs(core, { intArg, numArg, objectArg, knownKeys, taskArg }) {
  const { show } = core;

  const CONFIG_KEYS = Object.keys(MODEL_DEFAULTS);

  /** Check a JS config; returns { cfg: int[], fcfg: float[], config: resolved object }. */
  function resolveConfig(fn, config) {
    const c = objectArg(fn, "config", config, false);
    knownKeys(fn, "config", c, CONFIG_KEYS);
    const D = MODEL_DEFAULTS;
    const task = c.task === undefined ? undefined : taskArg(fn, c.task);
    if (!task && (c.vocab === undefined || c.maxLen === undefined)) {
      throw new TypeError(`${fn}: config.${c.vocab === undefined ? "vocab" : "maxLen"} is required when config.task is not given`);
    }
    const vocab = intArg(fn, "config.vocab", c.vocab, 4, 4096, task ? task.vocab.length : undefined);
    if (task && vocab < task.vocab.length) {
      throw new RangeError(`${fn}: config.vocab must be >= ${task.vocab.length} for the ${task.name} task (got ${vocab})`);
    }
    const maxLen = intArg(fn, "config.maxLen", c.maxLen, task ? task.width : 2, 256, task ? task.width : undefined);
    const heads = intArg(fn, "config.heads", c.heads, 1, 16, D.heads);
    const dModel = intArg(fn, "config.dModel", c.dModel, 2, 1024, D.dModel);
    if (dModel % 2 !== 0 || dModel % heads !== 0) {
      throw new RangeError(`${fn}: config.dModel must be even and a multiple of config.heads (${heads}) (got ${dModel})`);
    }
    const layers = intArg(fn, "config.layers", c.layers, 1, MAX_LAYERS, D.layers);
    const dFF = intArg(fn, "config.dFF", c.dFF, 1, 4096, D.dFF);
    let attention = c.attention === undefined ? D.attention : c.attention;
    if (typeof attention === "string") attention = new Array(layers).fill(attention);
    else if (Array.isArray(attention)) {
      if (attention.length !== layers) {
        throw new RangeError(`${fn}: config.attention must name one mapping per layer (${layers}) (got ${attention.length})`);
      }
    } else {
      throw new TypeError(`${fn}: config.attention must be a mapping name or an array of one per layer (got ${show(attention)})`);
    }
    const maps = attention.map((a, l) => {
      const k = MAPPINGS.indexOf(a);
      if (k < 0) {
        const E = typeof a === "string" ? RangeError : TypeError;
        const where = Array.isArray(c.attention) ? `config.attention[${l}]` : "config.attention";
        throw new E(`${fn}: ${where} must be one of ${MAPPINGS.map((m) => JSON.stringify(m)).join(", ")} (got ${show(a)})`);
      }
      return k;
    });
    const alpha = numArg(fn, "config.alpha", c.alpha, D.alpha, 1, 8);
    const lambda = numArg(fn, "config.lambda", c.lambda, D.lambda, 0);
    const beta = numArg(fn, "config.beta", c.beta, D.beta, 0);
    let span = c.span === undefined ? D.span : c.span;
    if (span === true) span = maxLen;
    else if (span === false) span = 0;
    else span = intArg(fn, "config.span", span, 0, maxLen);
    const spanRamp = intArg(fn, "config.spanRamp", c.spanRamp, 1, 256, D.spanRamp);
    const act = c.activation === undefined ? D.activation : c.activation;
    if (act !== "relu" && act !== "gelu") {
      const E = typeof act === "string" ? RangeError : TypeError;
      throw new E(`${fn}: config.activation must be "relu" or "gelu" (got ${show(act)})`);
    }
    const seed = intArg(fn, "config.seed", c.seed, -0x80000000, 0xffffffff, D.seed);
    const maxBatch = intArg(fn, "config.maxBatch", c.maxBatch, 1, 4096, D.maxBatch);
    const spanPenalty = numArg(fn, "config.spanPenalty", c.spanPenalty, D.spanPenalty, 0);
    const clip = numArg(fn, "config.clip", c.clip, D.clip, -Infinity);
    const alphaLr = numArg(fn, "config.alphaLr", c.alphaLr, D.alphaLr, 0);
    const output = c.output === undefined ? D.output : c.output;
    if (!OUTPUTS.includes(output)) {
      const E = typeof output === "string" ? RangeError : TypeError;
      throw new E(`${fn}: config.output must be one of ${OUTPUTS.map((m) => JSON.stringify(m)).join(", ")} (got ${show(output)})`);
    }
    const outputAlpha = numArg(fn, "config.outputAlpha", c.outputAlpha, D.outputAlpha, 1, 8);
    const arch = c.arch === undefined ? D.arch : c.arch;
    if (!ARCHS.includes(arch)) {
      const E = typeof arch === "string" ? RangeError : TypeError;
      throw new E(`${fn}: config.arch must be one of ${ARCHS.map((a) => JSON.stringify(a)).join(", ")} (got ${show(arch)})`);
    }
    if (arch === "decoder" && task) throw new RangeError(`${fn}: config.task needs an encoder (config.arch "decoder" has none)`);

    const cfg = [vocab, dModel, heads, layers, dFF, maxLen, span, span ? spanRamp : 1, seed | 0,
      maxBatch, act === "gelu" ? 1 : 0, ...maps];
    const fcfg = [spanPenalty, clip, alphaLr,
      ...maps.map((k) => (k === FUSEDMAX ? lambda : k === OSCARMAX ? beta : k === ENTMAX ? alpha : 1.5))];
    // a softmax output stays implicit (the config and checkpoint of a model without one), and
    // the encoder-decoder architecture too; a decoder-only model names both
    if (output !== "softmax" || arch !== D.arch) cfg.push(OUTPUTS.indexOf(output)), fcfg.push(output === "entmax" ? outputAlpha : D.outputAlpha);
    if (arch !== D.arch) cfg.push(ARCHS.indexOf(arch));
    return { cfg, fcfg };
  }

  /** The JS config of a live model, read back from C (so loaded models have one too). */
  function readConfig(ex, h) {
    const get = (f) => ex.sx_model_config(h, f);
    const fget = (f) => Number(ex.sx_model_fconfig(h, f).toPrecision(7)); // the float32, as typed
    const layers = get(C_N_LAYER);
    const attention = Array.from({ length: layers }, (_, l) => MAPPINGS[get(C_MAP + l)]);
    const maps = attention.map((a) => MAPPINGS.indexOf(a));
    const ea = maps.indexOf(ENTMAX), fl = maps.indexOf(FUSEDMAX), ob = maps.indexOf(OSCARMAX);
    return Object.freeze({
      vocab: get(C_VOCAB), maxLen: get(C_MAX_LEN), dModel: get(C_D_MODEL), heads: get(C_N_HEAD),
      layers, dFF: get(C_D_FF), attention: Object.freeze(attention),
      alpha: ea >= 0 ? fget(F_PARAM + ea) : MODEL_DEFAULTS.alpha,
      lambda: fl >= 0 ? fget(F_PARAM + fl) : MODEL_DEFAULTS.lambda,
      beta: ob >= 0 ? fget(F_PARAM + ob) : MODEL_DEFAULTS.beta,
      span: get(C_SPAN), spanRamp: get(C_SPAN) ? get(C_SPAN_RAMP) : MODEL_DEFAULTS.spanRamp,
      activation: get(C_ACT) ? "gelu" : "relu", seed: get(C_SEED), maxBatch: get(C_MAX_BATCH),
      spanPenalty: fget(F_SPAN_PENALTY), clip: fget(F_CLIP), alphaLr: fget(F_ALPHA_LR),
      output: OUTPUTS[get(C_MAP + layers)],
      outputAlpha: get(C_MAP + layers) === ENTMAX ? fget(F_PARAM + layers) : MODEL_DEFAULTS.outputAlpha,
      arch: ARCHS[get(C_MAP + layers + 1)],
    });
  }

  return { resolveConfig, readConfig };
}
