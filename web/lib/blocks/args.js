// blocks/args.js - what several blocks/ modules share: the mapping codes of sx_attention (also
// pooling's) and the check of a size option.

// The mapping codes of sx_attention: SX_MAP_* in simplexity.h (4, learned alpha, is for models).
export const ATTN_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3, fusedmax: 5 };

/** sizeArg over mappings.js's show(). */
export function sizeArgs(show) {
  /** A size option: an integer in [min, 2^31 - 1]; `dflt` undefined makes it required. */
  function sizeArg(fn, name, v, dflt, min, what) {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "number") {
      throw new TypeError(`${fn}: ${name} (${what}) must be an integer >= ${min} (got ${show(v)})`);
    }
    if (!Number.isInteger(v) || v < min || v > 0x7fffffff) {
      throw new RangeError(`${fn}: ${name} (${what}) must be an integer >= ${min} (got ${show(v)})`);
    }
    return v;
  }

  return { sizeArg };
}
