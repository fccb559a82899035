// model/rationale-task.js - the rationale task's examples in JS, bit for bit those of the core's
// sx_rationale_task (core/src/rationale_task.c; rationale.h documents the task): 12 tokens, one,
// three or five marker words (ids 0-2 positive, 3-5 negative) among fillers (6-15), the label
// their majority, the gold rationale their positions. The C function stays native only (the
// full wasm core is at its size budget); tests/js/rationale.test.mjs checks this one against
// tests/golden/rationale-task.json, written by the C one (build/tools/rationales --dump 100).
// The generator is the core's splitmix64 (core/src/rng.c) in BigInt.

export const LENGTH = 12;
export const VOCAB = 16;
export const WORDS = Object.freeze(["good", "great", "superb", "bad", "awful", "dull",
  "the", "film", "plot", "was", "and", "a", "scene", "actor", "music", "very"]);

const M64 = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;

function mix64(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

/** sx__rng_init(seed, stream) and sx__rng_below(n), as a closure over the state. */
function rng(seed, stream) {
  let state = mix64((seed + GOLDEN) & M64) ^ mix64((mix64(stream) + 0x2545f4914f6cdd1dn) & M64);
  const u32 = () => {
    state = (state + GOLDEN) & M64;
    return mix64(state) >> 32n;
  };
  return function below(n) { // Lemire's multiply-shift with rejection
    const N = BigInt(n);
    let m = u32() * N, low = m & 0xffffffffn;
    if (low < N) {
      const threshold = ((1n << 32n) - N) % N;
      while (low < threshold) m = u32() * N, low = m & 0xffffffffn;
    }
    return Number(m >> 32n);
  };
}

/** Example `index` of (seed, split 0 train / 1 held-out) into tokens, gold at row r; its label. */
function example(tokens, gold, r, seed, split, index) {
  const below = rng(BigInt(seed >>> 0), (BigInt(split + 1) << 32n) | BigInt(index >>> 0));
  const pos = Array.from({ length: LENGTH }, (_, t) => t);
  const markers = 1 + 2 * below(3);
  const o = r * LENGTH;
  for (let k = 0; k < markers; k++) {
    const j = k + below(LENGTH - k);
    [pos[k], pos[j]] = [pos[j], pos[k]];
    gold[o + pos[k]] = 1;
  }
  let positive = 0;
  for (let t = 0; t < LENGTH; t++) {
    if (gold[o + t]) {
      const pol = below(2);
      positive += pol;
      tokens[o + t] = (pol ? 0 : 3) + below(3);
    } else {
      tokens[o + t] = 6 + below(10);
    }
  }
  return 2 * positive > markers ? 1 : 0;
}

/** count examples from `first` of (seed, split): { count, tokens, labels, gold }. */
export function rationaleExamples(count, seed, split, first) {
  const tokens = new Int32Array(count * LENGTH), labels = new Int32Array(count);
  const gold = new Uint8Array(count * LENGTH);
  for (let i = 0; i < count; i++) labels[i] = example(tokens, gold, i, seed, split, first + i);
  return { count, tokens, labels, gold };
}
