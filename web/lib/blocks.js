// blocks.js - attention and its building blocks beyond the mappings, each on the full core
// (and proxTV, fusedmax's first step):
// multi-head attention (materialised or tiled), attention patterns, the adaptive span mask and Nadaraya-Watson pooling, positional encodings,
// scoring functions, the masked mapping and the Fenchel-Young losses. simplexity.js builds them over mappings.js's
// internals (blocksApi(internal.lib)) and exports them; the widgets that draw mappings only
// import mappings.js alone, so a post holding only them never fetches this module. Like model.js
// it holds no state (the README's API sections document each function).
//
// This file assembles them from blocks/, one concept per file: attention.js (attention),
// patterns.js (attentionPattern and the pattern option), pooling.js (spanMask, attentionPooling
// and its backward), positions.js (positionalEncoding, relativeScores, txlScores), scores.js
// (attentionScores and its backward), masked.js (maskedMapping and its backward), losses.js
// (fyLoss: the Fenchel-Young losses), chain.js (chainAttention: CRF and SparseMAP attention over
// a sequence), prox.js (proxTV: fusedmax's first step), args.js (what
// they share: sx_attention's mapping codes, the size check).
import { sizeArgs } from "./blocks/args.js";
import { attentionApi } from "./blocks/attention.js";
import { patternsApi } from "./blocks/patterns.js";
import { poolingApi } from "./blocks/pooling.js";
import { positionsApi } from "./blocks/positions.js";
import { scoresApi } from "./blocks/scores.js";
import { maskedApi } from "./blocks/masked.js";
import { lossesApi } from "./blocks/losses.js";
import { chainApi } from "./blocks/chain.js";
import { proxApi } from "./blocks/prox.js";

/**
 * The functions over one mappings.js instance. lib: that module's internals (argument
 * checks, scratch, copies, constants) and the accessors of its mutable state: exports() the
 * wasm exports, f32() / i32() / u8() the heap views, inKind() inputArg's second result.
 */
export function blocksApi(lib) {
  const shared = sizeArgs(lib.show);
  const { patternArg, attentionPattern } = patternsApi(lib, shared);
  Object.assign(shared, { patternArg });
  return {
    ...attentionApi(lib, shared), attentionPattern, ...poolingApi(lib), ...positionsApi(lib, shared),
    ...scoresApi(lib, shared), ...maskedApi(lib), ...lossesApi(lib), ...chainApi(lib), ...proxApi(lib),
  };
}
