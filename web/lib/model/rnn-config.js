// model/rnn-config.js - an RNN's config: the JS object new RNN() takes, checked field by field
// into the C int and float configs of sx_rnn_create (core/include/simplexity.h, "recurrent
// encoder-decoder"), and read back from a live model (so a loaded one has one too).
import { RNN_MAPPINGS as MAPPINGS, ENTMAX, FUSEDMAX } from "./names.js";

/** The decoder's ways to read the source (SX_RNN_NONE, ADDITIVE, HARD) and hard attention's estimators. */
export const RNN_ATTENTIONS = ["none", "additive", "hard"];
export const RNN_ESTIMATORS = ["reinforce", "gumbel", "straight"];

// The C config's field indices (SX_RNN_*) and the float config's (SX_RNN_F_*).
const C_VOCAB = 0, C_EMBED = 1, C_HIDDEN = 2, C_ATTN_HIDDEN = 3, C_MAX_LEN = 4, C_SEED = 5,
  C_MAX_BATCH = 6, C_ATTENTION = 7, C_MAP = 8, C_ESTIMATOR = 9;
const F_PARAM = 0, F_CLIP = 1, F_ALPHA_LR = 2, F_TEMPERATURE = 3, F_BASELINE = 4;

/** The config fields new RNN() accepts, with their defaults (the native trainer's). */
export const RNN_DEFAULTS = Object.freeze({
  task: undefined, vocab: undefined, maxLen: undefined, embed: 32, hidden: 64, attnHidden: 32,
  attention: "additive", mapping: "softmax", estimator: "straight", alpha: 1.5, lambda: 0.1,
  seed: 1, maxBatch: 32, clip: 1, alphaLr: 1, temperature: 1, baseline: 0.9,
});

/** resolveRnnConfig and readRnnConfig over one core. */
export function rnnConfigArgs(core, { intArg, numArg, objectArg, knownKeys, taskArg }) {
  const { show } = core;

  /** One of `names` (a RangeError for another string, a TypeError for anything else). */
  function nameArg(fn, name, v, names, dflt) {
    const x = v === undefined ? dflt : v;
    const k = names.indexOf(x);
    if (k < 0) {
      const E = typeof x === "string" ? RangeError : TypeError;
      throw new E(`${fn}: ${name} must be one of ${names.map((m) => JSON.stringify(m)).join(", ")} (got ${show(x)})`);
    }
    return k;
  }

  /** Check a JS config; returns { cfg: int[10], fcfg: float[5] }. */
  function resolveRnnConfig(fn, config) {
    const c = objectArg(fn, "config", config, false);
    knownKeys(fn, "config", c, Object.keys(RNN_DEFAULTS));
    const D = RNN_DEFAULTS;
    const task = c.task === undefined ? undefined : taskArg(fn, c.task);
    if (!task && (c.vocab === undefined || c.maxLen === undefined)) {
      throw new TypeError(`${fn}: config.${c.vocab === undefined ? "vocab" : "maxLen"} is required when config.task is not given`);
    }
    const vocab = intArg(fn, "config.vocab", c.vocab, 4, 4096, task ? task.vocab.length : undefined);
    if (task && vocab < task.vocab.length) {
      throw new RangeError(`${fn}: config.vocab must be >= ${task.vocab.length} for the ${task.name} task (got ${vocab})`);
    }
    const maxLen = intArg(fn, "config.maxLen", c.maxLen, task ? task.width : 2, 256, task ? task.width : undefined);
    const embed = intArg(fn, "config.embed", c.embed, 1, 1024, D.embed);
    const hidden = intArg(fn, "config.hidden", c.hidden, 1, 1024, D.hidden);
    const attnHidden = intArg(fn, "config.attnHidden", c.attnHidden, 1, 1024, D.attnHidden);
    const attention = nameArg(fn, "config.attention", c.attention, RNN_ATTENTIONS, D.attention);
    const map = nameArg(fn, "config.mapping", c.mapping, MAPPINGS, D.mapping);
    const estimator = nameArg(fn, "config.estimator", c.estimator, RNN_ESTIMATORS, D.estimator);
    const alpha = numArg(fn, "config.alpha", c.alpha, D.alpha, 1, 8);
    const lambda = numArg(fn, "config.lambda", c.lambda, D.lambda, 0);
    const seed = intArg(fn, "config.seed", c.seed, -0x80000000, 0xffffffff, D.seed);
    const maxBatch = intArg(fn, "config.maxBatch", c.maxBatch, 1, 4096, D.maxBatch);
    const clip = numArg(fn, "config.clip", c.clip, D.clip, -Infinity);
    const alphaLr = numArg(fn, "config.alphaLr", c.alphaLr, D.alphaLr, 0);
    const temperature = numArg(fn, "config.temperature", c.temperature, D.temperature, 0);
    if (temperature === 0) throw new RangeError(`${fn}: config.temperature must be > 0 (got 0)`);
    const baseline = numArg(fn, "config.baseline", c.baseline, D.baseline, 0);
    if (baseline >= 1) throw new RangeError(`${fn}: config.baseline must be in [0, 1) (got ${show(baseline)})`);
    const cfg = [vocab, embed, hidden, attnHidden, maxLen, seed | 0, maxBatch, attention, map, estimator];
    const fcfg = [map === FUSEDMAX ? lambda : alpha, clip, alphaLr, temperature, baseline];
    return { cfg, fcfg };
  }

  /** The JS config of a live model, read back from C. */
  function readRnnConfig(ex, h) {
    const get = (f) => ex.sx_rnn_config(h, f);
    const fget = (f) => Number(ex.sx_rnn_fconfig(h, f).toPrecision(7)); // the float32, as typed
    const map = get(C_MAP);
    return Object.freeze({
      vocab: get(C_VOCAB), maxLen: get(C_MAX_LEN), embed: get(C_EMBED), hidden: get(C_HIDDEN),
      attnHidden: get(C_ATTN_HIDDEN), attention: RNN_ATTENTIONS[get(C_ATTENTION)], mapping: MAPPINGS[map],
      estimator: RNN_ESTIMATORS[get(C_ESTIMATOR)],
      alpha: map === ENTMAX ? fget(F_PARAM) : RNN_DEFAULTS.alpha,
      lambda: map === FUSEDMAX ? fget(F_PARAM) : RNN_DEFAULTS.lambda,
      seed: get(C_SEED), maxBatch: get(C_MAX_BATCH), clip: fget(F_CLIP), alphaLr: fget(F_ALPHA_LR),
      temperature: fget(F_TEMPERATURE), baseline: fget(F_BASELINE),
    });
  }

  return { resolveRnnConfig, readRnnConfig };
}
