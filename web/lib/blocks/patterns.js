// blocks/patterns.js - attention patterns: local window, strided, fixed, LSH (sx_pattern_mask,
// sx_pattern_lsh), and the pattern option attention() takes. Over one mappings.js instance's
// internals (blocks.js documents `lib`).

/** The functions over one mappings.js instance's internals; `shared`: other blocks/ modules' helpers. */
export function patternsApi(lib, shared) {
  const {
    F32, MAX_FLOATS, TOO_LARGE, copyIn, coreError, inputArg, optionsArg, pad4, readIn, readyFull,
    scratch, show,
  } = lib;
  const { sizeArg } = shared;

  // The pattern kinds of sx_attention_pattern: SX_PATTERN_* in simplexity.h.
  const PATTERN_KINDS = { dense: 0, local: 1, strided: 2, fixed: 3, lsh: 4 };

  /**
   * The pattern option of attention() and attentionPattern(), checked: an Int32Array of
   * SX_PATTERN_LEN ints { kind, size, summary, buckets, rounds, seed } for the core. tq, tk: the
   * map's shape (LSH is self-attention only; its chunk defaults to ceil(tk / buckets)).
   */
  function patternArg(fn, p, tq, tk) {
    if (p === null || typeof p !== "object" || Array.isArray(p)) {
      throw new TypeError(`${fn}: pattern must be an object such as { kind: "local", width: 8 } (got ${show(p)})`);
    }
    const kind = p.kind;
    if (typeof kind !== "string" || !Object.hasOwn(PATTERN_KINDS, kind)) {
      const E = typeof kind === "string" ? RangeError : TypeError;
      throw new E(`${fn}: pattern.kind must be "dense", "local", "strided", "fixed" or "lsh" (got ${show(kind)})`);
    }
    const out = new Int32Array(6);
    out[0] = PATTERN_KINDS[kind];
    if (kind === "local") {
      out[1] = sizeArg(fn, "pattern.width", p.width, undefined, 0, "keys on each side of the query");
    } else if (kind === "strided") {
      out[1] = sizeArg(fn, "pattern.stride", p.stride, undefined, 1, "the stride l");
    } else if (kind === "fixed") {
      const block = sizeArg(fn, "pattern.block", p.block, undefined, 1, "the block length l");
      const summary = sizeArg(fn, "pattern.summary", p.summary, 1, 1, "summary positions per block");
      if (summary > block) {
        throw new RangeError(`${fn}: pattern.summary must be <= pattern.block (${block}) (got ${show(summary)})`);
      }
      out[1] = block;
      out[2] = summary;
    } else if (kind === "lsh") {
      if (tq !== tk) {
        throw new RangeError(`${fn}: the lsh pattern is self-attention only: tq (${tq}) must equal tk (${tk})`);
      }
      const buckets = sizeArg(fn, "pattern.buckets", p.buckets, 8, 2, "hash buckets, even");
      if (buckets % 2 !== 0 || buckets > 4096) {
        throw new RangeError(`${fn}: pattern.buckets must be even and in [2, 4096] (got ${show(buckets)})`);
      }
      const rounds = sizeArg(fn, "pattern.rounds", p.rounds, 1, 1, "hash rounds");
      if (rounds > 64) throw new RangeError(`${fn}: pattern.rounds must be in [1, 64] (got ${show(rounds)})`);
      const seed = p.seed === undefined ? 0 : p.seed;
      if (typeof seed !== "number" || !Number.isInteger(seed) || seed < -0x80000000 || seed > 0xffffffff) {
        const E = typeof seed === "number" ? RangeError : TypeError;
        throw new E(`${fn}: pattern.seed must be an integer in [-2^31, 2^32) (got ${show(seed)})`);
      }
      out[1] = sizeArg(fn, "pattern.chunk", p.chunk, Math.max(1, Math.ceil(tk / buckets)), 1, "chunk length");
      out[3] = buckets;
      out[4] = rounds;
      out[5] = seed | 0;
    }
    return out;
  }

  /**
   * The pairs attention() computes under a pattern, on an n x n map (one head of one batch
   * element): { n, mask, pairs, densePairs, fraction } with mask a Uint8Array (n * n), 1 where
   * query i sees key j, pairs its sum, densePairs the pairs dense attention computes under the
   * same causal / keyLength masks and fraction = pairs / densePairs. The lsh pattern hashes keys:
   * opts.k (n * width floats, width = heads * dh; head `head`), and the result adds its steps:
   * { buckets, order } (Int32Array rounds * n: each position's bucket, the positions sorted by
   * (bucket, position)), chunk (the chunk length) and rounds.
   */
  function attentionPattern(n, pattern, opts) {
    const fn = "attentionPattern";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    n = sizeArg(fn, "n", n, undefined, 1, "queries and keys");
    const pat = patternArg(fn, pattern, n, n);
    const heads = sizeArg(fn, "heads", o.heads, 1, 1, "the number of heads");
    const head = sizeArg(fn, "head", o.head, 0, 0, "which head");
    if (head >= heads) throw new RangeError(`${fn}: head must be < heads (${heads}) (got ${show(head)})`);
    const causal = o.causal;
    if (causal !== undefined && typeof causal !== "boolean") {
      throw new TypeError(`${fn}: causal must be true or false (got ${show(causal)})`);
    }
    const klen = sizeArg(fn, "keyLength", o.keyLength, n, 0, "valid keys");
    if (klen > n) throw new RangeError(`${fn}: keyLength must be <= n (${n}) (got ${show(klen)})`);
    const lsh = pat[0] === PATTERN_KINDS.lsh;
    let kLen = 0, kk = F32, dh = 1;
    if (lsh) {
      if (o.k === undefined) throw new TypeError(`${fn}: the lsh pattern hashes keys: opts.k (n * width floats) is required (got undefined)`);
      kLen = inputArg(fn, "k", o.k);
      kk = lib.inKind();
      if (kLen === 0 || kLen % (n * heads) !== 0) {
        throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of n * heads (${n} * ${heads})`);
      }
      dh = kLen / (n * heads);
    }
    const mLen = n * n;
    const rounds = lsh ? pat[4] : 0;
    const mSeg = pad4(Math.ceil(mLen / 4)), kSeg = pad4(kLen), sSeg = pad4(rounds * n);
    const floats = mSeg + kSeg + 2 * sSeg + 8;
    if (floats > MAX_FLOATS) throw new RangeError(`${fn}: too large: n = ${n} needs ${4 * floats} bytes, ${TOO_LARGE}`);
    const ks = lsh ? readIn(fn, "k", o.k, kk, kLen) : undefined;
    const at = scratch(fn, floats);
    const kAt = at + mSeg, bAt = kAt + kSeg, oAt = bAt + sSeg, pAt = oAt + sSeg;
    if (lsh) copyIn(fn, "k", ks, kAt, kLen, kk);
    lib.i32().set(pat, pAt);
    let st = lib.exports().sx_pattern_mask(at << 2, lsh ? kAt << 2 : 0, n, n, heads, dh, head, pAt << 2,
      causal ? 1 : 0, klen);
    if (st !== 0) throw coreError(fn, st);
    if (lsh) {
      st = lib.exports().sx_pattern_lsh(bAt << 2, oAt << 2, kAt << 2, n, heads, dh, head, pAt << 2);
      if (st !== 0) throw coreError(fn, st);
    }
    const mask = lib.u8().slice(at << 2, (at << 2) + mLen);
    let pairs = 0;
    for (let i = 0; i < mLen; i++) pairs += mask[i];
    const densePairs = causal ? (klen * (klen + 1)) / 2 + (n - klen) * klen : n * klen;
    const result = { n, mask, pairs, densePairs, fraction: densePairs > 0 ? pairs / densePairs : 0 };
    if (!lsh) return result;
    return {
      ...result,
      buckets: lib.i32().slice(bAt, bAt + rounds * n),
      order: lib.i32().slice(oAt, oAt + rounds * n),
      chunk: pat[1],
      rounds,
    };
  }

  return { patternArg, attentionPattern };
}
