// blocks.js - attention and its building blocks beyond the mappings, each on the full core:
// multi-head attention (materialised or tiled), attention patterns, the adaptive span mask and Nadaraya-Watson pooling, positional encodings,
// scoring functions and the masked mapping. simplexity.js builds them over mappings.js's
// internals (blocksApi(internal.lib)) and exports them; the widgets that draw mappings only
// import mappings.js alone, so a post holding only them never fetches this module. Like model.js
// it holds no state (the README's API sections document each function).

/**
 * The functions over one mappings.js instance. lib: that module's internals (argument
 * checks, scratch, copies, constants) and the accessors of its mutable state: exports() the
 * wasm exports, f32() / i32() / u8() the heap views, inKind() inputArg's second result.
 */
export function blocksApi(lib) {
  const {
    ATTN_PARAMS, CALL_MAX_BYTES, F32, JACOBIAN_MAPPINGS, MAX_FLOATS, TOO_LARGE, T_FUSEDMAX, T_OSCARMAX, bufferArg,
    copyIn, copyOut, coreError, detached, entmaxTemp, fitCall, inputArg, mappingArg,
    newFloats, optionsArg, outArg, pad4, paramArg, readIn, readyFull, rowLength,
    scratch, show, temperatureArg, typedLength, typedName,
  } = lib;

  // ---------------------------------------------------------------------- attention
  // The mapping codes of sx_attention: SX_MAP_* in simplexity.h (4, learned alpha, is for models).
  const ATTN_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3, fusedmax: 5 };

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

  /**
   * Multi-head scaled dot-product attention of already-projected queries, keys and values:
   * per batch element and head, out = mapping(q k^T / sqrt(dh)) v. q is (batch, tq, width), k and
   * v (batch, tk, width), width = heads * dh with the heads side by side; out has q's shape.
   * With opts.weights (true, or a Float32Array of batch * heads * tq * tk) returns
   * { out, weights } with the weights (batch, heads, tq, tk); otherwise the out Float32Array.
   * opts.pattern ({ kind: "local" | "strided" | "fixed" | "lsh", ... }: see attentionPattern)
   * restricts each query to the pattern's keys; only those pairs are computed.
   * opts.tiled (true, false, or undefined: automatic) runs sx_attention_tiled, which never holds
   * the (tq, tk) map (O(n d) memory): chosen automatically when tq * tk >= TILED_MIN and
   * neither weights nor pattern is asked for (neither can be tiled: tiled: true with them throws).
   * opts.tileStats: true returns { out, tiles, skipped } (the tiled path's blocks of queries x keys,
   * and those skipped as all-zero weights).
   */
  function attention(q, k, v, opts) {
    const fn = "attention";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const qLen = inputArg(fn, "q", q);
    const kq = lib.inKind();
    const kLen = inputArg(fn, "k", k);
    const kk = lib.inKind();
    const vLen = inputArg(fn, "v", v);
    const kv = lib.inKind();
    const heads = sizeArg(fn, "heads", o.heads, 1, 1, "the number of heads");
    const batch = sizeArg(fn, "batch", o.batch, 1, 1, "the number of batch elements");
    const tq = sizeArg(fn, "tq", o.tq, undefined, 1, "queries per batch element");
    if (qLen === 0 || qLen % (batch * tq) !== 0) {
      throw new RangeError(`${fn}: q.length (${qLen}) must be a non-zero multiple of batch * tq (${batch} * ${tq})`);
    }
    const width = qLen / (batch * tq);
    if (width % heads !== 0) {
      throw new RangeError(`${fn}: the width of q, q.length / (batch * tq) = ${width}, is not a multiple of heads (${heads})`);
    }
    let tk;
    const oTk = o.tk;
    if (oTk === undefined) {
      if (kLen === 0 || kLen % (batch * width) !== 0) {
        throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of batch * width (${batch} * ${width})`);
      }
      tk = kLen / (batch * width);
    } else {
      tk = sizeArg(fn, "tk", oTk, undefined, 1, "keys per batch element");
      if (kLen !== batch * tk * width) {
        throw new RangeError(`${fn}: k.length (${kLen}) must equal batch * tk * width (${batch} * ${tk} * ${width} = ${batch * tk * width})`);
      }
    }
    if (vLen !== kLen) throw new RangeError(`${fn}: v.length (${vLen}) must equal k.length (${kLen})`);

    const { mapping, param } = mappingArg(fn, o, ATTN_MAPPINGS, ATTN_PARAMS);
    const causal = o.causal;
    if (causal !== undefined && typeof causal !== "boolean") {
      throw new TypeError(`${fn}: causal must be true or false (got ${show(causal)})`);
    }
    const pattern = o.pattern === undefined ? undefined : patternArg(fn, o.pattern, tq, tk);
    const lens = o.keyLengths;
    let lensKind;
    if (lens !== undefined) {
      lensKind = typedName(lens);
      if (!Array.isArray(lens) && lensKind !== "Int32Array") {
        throw new TypeError(`${fn}: keyLengths must be an Array or an Int32Array of batch (${batch}) integers (got ${show(lens)})`);
      }
      const n = lensKind === "Int32Array" ? typedLength(lens) : lens.length;
      if (n === 0 && lensKind !== undefined && detached(lens)) throw new TypeError(`${fn}: keyLengths is a detached Int32Array`);
      if (n !== batch) {
        throw new RangeError(`${fn}: keyLengths.length (${n}) must equal batch (${batch})`);
      }
    }
    const out = outArg(fn, o.out, qLen, "q.length");
    const wLen = batch * heads * tq * tk; // exact in double: every factor < 2^31, the product < 2^53
    let weights = o.weights;
    if (weights === undefined || weights === false) weights = undefined;
    else if (weights !== true) {
      if (typedName(weights) !== "Float32Array") {
        throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
      }
      if (wLen <= MAX_FLOATS) bufferArg(fn, "weights", weights, wLen, "batch * heads * tq * tk");
    }

    const tiledOpt = o.tiled, stats = o.tileStats;
    if (tiledOpt !== undefined && typeof tiledOpt !== "boolean") {
      throw new TypeError(`${fn}: tiled must be true, false or undefined (automatic) (got ${show(tiledOpt)})`);
    }
    if (stats !== undefined && typeof stats !== "boolean") {
      throw new TypeError(`${fn}: tileStats must be true or false (got ${show(stats)})`);
    }
    // The tiled path (sx_attention_tiled) never holds the (tq, tk) map: neither the weights nor a
    // pattern's pair lists fit it. Asked for (tiled: true, or tileStats), those are errors; chosen
    // automatically from TILED_MIN (bench/long.mjs), they keep the path that holds the map.
    const wantTiled = tiledOpt === true || (stats === true && tiledOpt === undefined);
    if (wantTiled && weights !== undefined) {
      throw new RangeError(`${fn}: ${tiledOpt ? "tiled: true" : "tileStats: true"} cannot return the weights (the tiled path never holds the whole map): drop the weights option or set tiled: false`);
    }
    if (wantTiled && pattern !== undefined) {
      throw new RangeError(`${fn}: ${tiledOpt ? "tiled: true" : "tileStats: true"} cannot restrict attention to a pattern (the pattern path lists each query's keys): drop the pattern option or set tiled: false`);
    }
    if (stats === true && tiledOpt === false) {
      throw new RangeError(`${fn}: tileStats: true needs the tiled path (got tiled: false)`);
    }
    const tiled = wantTiled || (tiledOpt === undefined && weights === undefined && pattern === undefined &&
      tq * tk >= TILED_MIN);
    if (tiled) return attentionTiled(fn, q, k, v, kq, kk, kv, qLen, kLen, out, lens, batch, tq, tk, heads,
      width, mapping, param, causal, stats === true);

    // scratch: [out | weights | q | k | v | keyLengths]; the core adds its temporaries: the scores
    // of one batch element (and its weights when they are not asked for), and a table per head.
    const oSeg = pad4(qLen), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(kLen);
    const lSeg = lens === undefined ? 0 : pad4(batch);
    const pSeg = pattern === undefined ? 0 : pad4(pattern.length);
    const floats = oSeg + wSeg + oSeg + 2 * kSeg + lSeg + pSeg;
    const bytes = 4 * floats + (pattern ? 16 * tk : 4 * heads * tq * tk * (weights ? 1 : 2)) + 8 * heads;
    if (wLen > MAX_FLOATS || floats > MAX_FLOATS || bytes > CALL_MAX_BYTES) {
      const sizes = `batch * heads * tq * tk = ${batch} * ${heads} * ${tq} * ${tk} = ${wLen} attention weights`;
      if (wLen > MAX_FLOATS && bytes <= CALL_MAX_BYTES) {
        throw new RangeError(`${fn}: too large: ${sizes}, more than the ${MAX_FLOATS} one call can index (${4 * wLen} bytes)`);
      }
      throw new RangeError(`${fn}: too large: ${sizes} need ${bytes} bytes of wasm memory with the inputs, ${TOO_LARGE}`);
    }
    if (weights === true) weights = newFloats(fn, wLen);
    let lensIn;
    if (lens !== undefined) {
      lensIn = new Int32Array(batch); // read (and checked) once, before anything is copied
      for (let b = 0; b < batch; b++) {
        const n = lens[b];
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > tk) {
          throw new RangeError(`${fn}: keyLengths[${b}] must be an integer in [0, tk = ${tk}] (got ${show(n)})`);
        }
        lensIn[b] = n;
      }
    }
    const qs = readIn(fn, "q", q, kq, qLen);
    const ks = readIn(fn, "k", k, kk, kLen);
    const vs = readIn(fn, "v", v, kv, kLen);
    const at = scratch(fn, floats);
    const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg, lAt = vAt + kSeg;
    copyIn(fn, "q", qs, qAt, qLen, kq);
    copyIn(fn, "k", ks, kAt, kLen, kk);
    copyIn(fn, "v", vs, vAt, kLen, kv);
    if (lensIn !== undefined) {
      lib.i32().set(lensIn, lAt);
    }
    if (pattern !== undefined) {
      lib.i32().set(pattern, lAt + lSeg);
    }
    const st = pattern !== undefined
      ? lib.exports().sx_attention_pattern(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, vAt << 2,
        lensIn === undefined ? 0 : lAt << 2, batch, tq, tk, heads, width / heads, ATTN_MAPPINGS[mapping],
        param, causal ? 1 : 0, (lAt + lSeg) << 2)
      : lib.exports().sx_attention(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, vAt << 2,
      lensIn === undefined ? 0 : lAt << 2, batch, tq, tk, heads, width / heads, ATTN_MAPPINGS[mapping],
      param, causal ? 1 : 0);
    if (st !== 0) throw coreError(fn, st);
    const result = copyOut(fn, "out", out, at, qLen);
    if (weights === undefined) return result;
    copyOut(fn, "weights", weights, at + oSeg, wLen);
    return { out: result, weights };
  }

  // attention() picks the tiled path from this many scores per head (tq * tk) on. bench/long.mjs,
  // one head of 64: at n = 512 the map path was 1.04x faster for softmax (the online softmax
  // rescales, the matmul packs k per block of queries) and 1.13x for alpha-entmax (a mapping call,
  // with its scratch, per block of 64 queries), the tiled path 0.74x for sparsemax; from n = 1024
  // on the tiled path is faster for every mapping (0.4x-0.8x at n = 4096: the map of scores no
  // longer stays in cache) and uses a fraction of the memory (README, "### Attention").
  const TILED_MIN = 1 << 20;
  const TILE_BQ = 64; // sx_attention_tiled's default query block (core/src/tiled.h)

  /** attention() through sx_attention_tiled, the arguments checked. */
  function attentionTiled(fn, q, k, v, kq, kk, kv, qLen, kLen, out, lens, batch, tq, tk, heads, width,
    mapping, param, causal, stats) {
    const dh = width / heads;
    // scratch: [tiles (2 doubles) | out | q | k | v | keyLengths]; the core adds k^T of one head
    // and two blocks of TILE_BQ rows of scores (softmax: one tile), and the mappings their own.
    const oSeg = pad4(qLen), kSeg = pad4(kLen), lSeg = lens === undefined ? 0 : pad4(batch);
    const floats = 4 + 2 * oSeg + 2 * kSeg + lSeg;
    const bytes = 4 * floats + 4 * (dh + 2 * TILE_BQ + 16) * tk + 4 * TILE_BQ * 256;
    if (floats > MAX_FLOATS || bytes > CALL_MAX_BYTES) {
      throw new RangeError(`${fn}: too large: q, k and v of batch * tq * width = ${batch} * ${tq} * ${width} and batch * tk * width = ${batch} * ${tk} * ${width} floats need ${bytes} bytes of wasm memory with the tiled path's scratch, ${TOO_LARGE}`);
    }
    let lensIn;
    if (lens !== undefined) {
      lensIn = new Int32Array(batch); // read (and checked) once, before anything is copied
      for (let b = 0; b < batch; b++) {
        const n = lens[b];
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > tk) {
          throw new RangeError(`${fn}: keyLengths[${b}] must be an integer in [0, tk = ${tk}] (got ${show(n)})`);
        }
        lensIn[b] = n;
      }
    }
    const qs = readIn(fn, "q", q, kq, qLen);
    const ks = readIn(fn, "k", k, kk, kLen);
    const vs = readIn(fn, "v", v, kv, kLen);
    const at = scratch(fn, floats); // malloc aligned (8 bytes at least): the doubles first
    const oAt = at + 4, qAt = oAt + oSeg, kAt = qAt + oSeg, vAt = kAt + kSeg, lAt = vAt + kSeg;
    copyIn(fn, "q", qs, qAt, qLen, kq);
    copyIn(fn, "k", ks, kAt, kLen, kk);
    copyIn(fn, "v", vs, vAt, kLen, kv);
    if (lensIn !== undefined) {
      lib.i32().set(lensIn, lAt);
    }
    const st = lib.exports().sx_attention_tiled(oAt << 2, qAt << 2, kAt << 2, vAt << 2,
      lensIn === undefined ? 0 : lAt << 2, batch, tq, tk, heads, dh, ATTN_MAPPINGS[mapping], param,
      causal ? 1 : 0, 0, 0, stats ? at << 2 : 0);
    if (st !== 0) throw coreError(fn, st);
    const result = copyOut(fn, "out", out, oAt, qLen);
    if (!stats) return result;
    const counts = new Float64Array(lib.f32().buffer, at << 2, 2);
    return { out: result, tiles: counts[0], skipped: counts[1] };
  }

  // ------------------------------------------------------------------ attention patterns
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

  // ------------------------------------------------------------- span and pooling
  /** A required number: finite, >= min (or > min when strict), and non-zero in float32 if strict. */
  function requiredNumber(fn, name, v, min, strict) {
    if (v === undefined) throw new TypeError(`${fn}: ${name} must be a number (got undefined)`);
    const x = paramArg(fn, name, v, undefined, min, strict);
    if (strict && Math.fround(x) === 0) {
      throw new RangeError(`${fn}: ${name} must be > ${min} in float32 (got ${show(v)}, which is 0 in float32)`);
    }
    return x;
  }

  /** The adaptive span's soft mask m = clamp((ramp + z - d) / ramp, 0, 1) of each distance d. */
  function spanMask(distances, opts) {
    const fn = "spanMask";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const len = inputArg(fn, "distances", distances);
    const kind = lib.inKind();
    const z = requiredNumber(fn, "z", o.z, 0, false);
    const ramp = requiredNumber(fn, "ramp", o.ramp, 0, true);
    const oMax = o.maxSpan;
    const maxSpan = oMax === undefined ? 0 : requiredNumber(fn, "maxSpan", oMax, 0, true);
    const out = outArg(fn, o.out, len, "distances.length");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    const seg = pad4(len);
    fitCall(fn, 2 * seg, 0);
    const ds = readIn(fn, "distances", distances, kind, len);
    const at = scratch(fn, 2 * seg);
    copyIn(fn, "distances", ds, at + seg, len, kind);
    const st = lib.exports().sx_span_mask(at << 2, (at + seg) << 2, len, z, ramp, maxSpan);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  // The kernels of attention pooling: SX_MAP_* in simplexity.h, as for attention.
  const POOL_MAPPINGS = ATTN_MAPPINGS;
  const POOL_MAX_WEIGHTS = Math.floor(0x7fffffff / 32); // the C core's bound on nq * nk

  /** Checks the arguments shared by attentionPooling and its backward pass. */
  function poolArgs(fn, queries, keys, values, o) {
    const nq = inputArg(fn, "queries", queries);
    const kq = lib.inKind();
    const nk = inputArg(fn, "keys", keys);
    const kk = lib.inKind();
    const nv = inputArg(fn, "values", values);
    const kv = lib.inKind();
    if (nk === 0) throw new RangeError(`${fn}: keys must not be empty`);
    if (nv !== nk) throw new RangeError(`${fn}: values.length (${nv}) must equal keys.length (${nk})`);
    if (nq * nk > POOL_MAX_WEIGHTS) {
      throw new RangeError(`${fn}: queries.length * keys.length (${nq} * ${nk}) is more than ${POOL_MAX_WEIGHTS} weights (the core's temporaries would need ${32 * nq * nk} bytes)`);
    }
    let w = 1;
    const ow = o.w;
    if (ow !== undefined) {
      if (typeof ow !== "number") throw new TypeError(`${fn}: w must be a number (got ${show(ow)})`);
      if (!Number.isFinite(ow) || !Number.isFinite(Math.fround(ow))) {
        throw new RangeError(`${fn}: w must be finite in float32 (got ${show(ow)})`);
      }
      w = ow;
    }
    const { mapping, param } = mappingArg(fn, o, POOL_MAPPINGS, ATTN_PARAMS);
    const loo = o.leaveOneOut === undefined ? false : o.leaveOneOut;
    if (typeof loo !== "boolean") throw new TypeError(`${fn}: leaveOneOut must be true or false (got ${show(loo)})`);
    if (loo && nq !== nk) {
      throw new RangeError(`${fn}: leaveOneOut needs queries.length (${nq}) to equal keys.length (${nk}): the queries are the keys`);
    }
    return { nq, nk, kq, kk, kv, w, kind: POOL_MAPPINGS[mapping], param, loo: loo ? 1 : 0 };
  }

  /**
   * Nadaraya-Watson attention pooling: out[i] = sum_j weights[i][j] values[j], each row of weights
   * the mapping of the scores -((queries[i] - keys[j]) w)^2 / 2 (a kernel regression with the
   * mapping as kernel). Returns { out, weights } (weights: queries.length rows of keys.length).
   */
  function attentionPooling(queries, keys, values, opts) {
    const fn = "attentionPooling";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const { nq, nk, kq, kk, kv, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
    const out = outArg(fn, o.out, nq, "queries.length");
    const wLen = nq * nk;
    const ow = o.weights;
    let weights = ow === undefined ? true : ow;
    if (weights === false) weights = null;
    else if (weights !== true) {
      if (typedName(weights) !== "Float32Array") {
        throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
      }
      bufferArg(fn, "weights", weights, wLen, "queries.length * keys.length");
    }
    // scratch: [out | weights | queries | keys | values]
    const oSeg = pad4(nq), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(nk);
    const floats = 2 * oSeg + wSeg + 2 * kSeg;
    fitCall(fn, floats, 8 * wLen);
    const qs = readIn(fn, "queries", queries, kq, nq);
    const ks = readIn(fn, "keys", keys, kk, nk);
    const vs = readIn(fn, "values", values, kv, nk);
    const at = scratch(fn, floats);
    const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg;
    copyIn(fn, "queries", qs, qAt, nq, kq);
    copyIn(fn, "keys", ks, kAt, nk, kk);
    copyIn(fn, "values", vs, vAt, nk, kv);
    const st = nq === 0 ? 0 : lib.exports().sx_nw_pooling(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2,
      vAt << 2, nq, nk, w, kind, param, loo);
    if (st !== 0) throw coreError(fn, st);
    const result = copyOut(fn, "out", out, at, nq);
    if (weights === null) return { out: result, weights: null };
    return { out: result, weights: copyOut(fn, "weights", weights === true ? undefined : weights, at + oSeg, wLen) };
  }

  /**
   * The gradient of attentionPooling wrt w: { dw } = d <dy, out> / d w, for dy one value per query
   * (dy = out - target gives the gradient of 1/2 ||out - target||^2). Same options as attentionPooling.
   */
  function attentionPoolingBackward(queries, keys, values, dy, opts) {
    const fn = "attentionPoolingBackward";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const { nq, nk, kq, kk, kv, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
    const dyLen = inputArg(fn, "dy", dy);
    const kd = lib.inKind();
    if (dyLen !== nq) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal queries.length (${nq})`);
    if (nq === 0) return { dw: 0 };
    // scratch: [dw | queries | keys | values | dy]
    const qSeg = pad4(nq), kSeg = pad4(nk);
    const floats = 4 + 2 * qSeg + 2 * kSeg;
    fitCall(fn, floats, 16 * nq * nk + 4 * nq);
    const qs = readIn(fn, "queries", queries, kq, nq);
    const ks = readIn(fn, "keys", keys, kk, nk);
    const vs = readIn(fn, "values", values, kv, nk);
    const ds = readIn(fn, "dy", dy, kd, nq);
    const at = scratch(fn, floats);
    const qAt = at + 4, kAt = qAt + qSeg, vAt = kAt + kSeg, dAt = vAt + kSeg;
    copyIn(fn, "queries", qs, qAt, nq, kq);
    copyIn(fn, "keys", ks, kAt, nk, kk);
    copyIn(fn, "values", vs, vAt, nk, kv);
    copyIn(fn, "dy", ds, dAt, nq, kd);
    const st = lib.exports().sx_nw_pooling_backward(at << 2, dAt << 2, qAt << 2, kAt << 2, vAt << 2, nq, nk, w, kind, param, loo);
    if (st !== 0) throw coreError(fn, st);
    return { dw: lib.f32()[at] };
  }

  // ------------------------------------------------------------------ positions
  // The core bounds every result of these calls to 2^29 floats (sx_*: n_q * n_k, positions * dim).
  const POS_MAX = 2 ** 29;

  /** An even integer >= 2 (a sinusoid's dimension: sin / cos column pairs). */
  function evenDimArg(fn, name, v) {
    if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be an even integer >= 2 (got ${show(v)})`);
    if (!Number.isInteger(v) || v < 2 || v % 2 !== 0 || v > 0x7fffffff) {
      throw new RangeError(`${fn}: ${name} must be an even integer >= 2 (got ${show(v)})`);
    }
    return v;
  }

  /** The sinusoids' base: a number > 0, finite; 10000 (Vaswani et al., and the model) by default. */
  function baseArg(fn, v) {
    return paramArg(fn, "base", v, 10000, 0, true);
  }

  /** RangeError unless a result of a * b floats is under the core's bound. */
  function areaArg(fn, what, a, b) {
    if (a * b >= POS_MAX) throw new RangeError(`${fn}: ${what} (${a} * ${b}) must be less than 2^29`);
  }

  /**
   * The sinusoidal positional encodings (Vaswani et al. 2017): the position x dimension matrix,
   * row t = PE(t) for t = 0 .. positions - 1, PE(t)[2i] = sin(t / base^(2i/dim)),
   * PE(t)[2i+1] = cos(t / base^(2i/dim)). The model's own table at base 10000. Returns a
   * Float32Array of positions * dim (opts.out to reuse one).
   */
  function positionalEncoding(positions, dim, opts) {
    const fn = "positionalEncoding";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const n = sizeArg(fn, "positions", positions, undefined, 0, "the number of positions");
    const d = evenDimArg(fn, "dim", dim);
    const base = baseArg(fn, o.base);
    areaArg(fn, "positions * dim", n, d);
    const len = n * d;
    const out = outArg(fn, o.out, len, "positions * dim");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    const at = scratch(fn, len);
    const st = lib.exports().sx_positional_encoding(at << 2, n, d, base);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  /**
   * Shaw et al. 2018's relative-position term of self-attention scores: out[i][j] =
   * q_i . table[clip(j - i, -maxDistance, maxDistance) + maxDistance], for queries q (tq, dim)
   * and a learned table (2 maxDistance + 1, dim) of relative-position embeddings; query i and key
   * j at positions i and j, opts.tk keys (default: as many as queries). Returns a Float32Array
   * (tq, tk): add it to q k^T before the 1 / sqrt(dim) scaling.
   */
  function relativeScores(q, table, opts) {
    const fn = "relativeScores";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const qLen = inputArg(fn, "q", q);
    const kq = lib.inKind();
    const tLen = inputArg(fn, "table", table);
    const kt = lib.inKind();
    const K = sizeArg(fn, "maxDistance", o.maxDistance, undefined, 0, "the largest relative distance kept");
    if (K > 2 ** 28) throw new RangeError(`${fn}: maxDistance must be <= 2^28 (got ${K})`);
    const rows = 2 * K + 1;
    if (tLen === 0 || tLen % rows !== 0) {
      throw new RangeError(`${fn}: table.length (${tLen}) must be a non-zero multiple of 2 maxDistance + 1 (${rows})`);
    }
    const dim = tLen / rows;
    if (qLen % dim !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a multiple of dim = table.length / (2 maxDistance + 1) (${dim})`);
    const tq = qLen / dim;
    const tk = sizeArg(fn, "tk", o.tk, tq, 0, "keys");
    areaArg(fn, "tq * tk", tq, tk);
    const len = tq * tk;
    const out = outArg(fn, o.out, len, "tq * tk");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    // scratch: [out | q | table]
    const oSeg = pad4(len), qSeg = pad4(qLen);
    const floats = oSeg + qSeg + pad4(tLen);
    fitCall(fn, floats, 0);
    const qs = readIn(fn, "q", q, kq, qLen);
    const ts = readIn(fn, "table", table, kt, tLen);
    const at = scratch(fn, floats);
    const qAt = at + oSeg, tAt = qAt + qSeg;
    copyIn(fn, "q", qs, qAt, qLen, kq);
    copyIn(fn, "table", ts, tAt, tLen, kt);
    const st = lib.exports().sx_relative_scores(at << 2, qAt << 2, tAt << 2, tq, tk, dim, K);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  /**
   * Transformer-XL's relative attention scores (Dai et al. 2019): for projected queries q (tq, dim)
   * and keys k (tk, dim), learned global biases opts.u and opts.v (dim each, which set dim),
   * out[i][j] = q_i . k_j + q_i . r_{i-j} + u . k_j + v . r_{i-j} (content-content,
   * content-position, global content bias, global position bias), r_t = PE(t) W_r with PE the
   * sinusoid of dimension dimR at base opts.base (10000) and W_r = opts.wr (dimR, dim), or no
   * projection (dimR = dim) without it. No 1 / sqrt(dim) scaling. Returns a Float32Array (tq, tk),
   * or with opts.terms (true or a Float32Array of 4 tq tk) { out, terms }, terms the four
   * (tq, tk) matrices in that order.
   */
  function txlScores(q, k, opts) {
    const fn = "txlScores";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const qLen = inputArg(fn, "q", q);
    const kq = lib.inKind();
    const kLen = inputArg(fn, "k", k);
    const kk = lib.inKind();
    if (o.u === undefined) throw new TypeError(`${fn}: u (the global content bias, dim numbers) is required`);
    if (o.v === undefined) throw new TypeError(`${fn}: v (the global position bias, dim numbers) is required`);
    const dim = inputArg(fn, "u", o.u);
    const ku = lib.inKind();
    const vLen = inputArg(fn, "v", o.v);
    const kv = lib.inKind();
    if (dim === 0) throw new RangeError(`${fn}: u must not be empty (its length is dim)`);
    if (vLen !== dim) throw new RangeError(`${fn}: v.length (${vLen}) must equal u.length (dim = ${dim})`);
    if (qLen % dim !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a multiple of dim = u.length (${dim})`);
    if (kLen % dim !== 0) throw new RangeError(`${fn}: k.length (${kLen}) must be a multiple of dim = u.length (${dim})`);
    const tq = qLen / dim, tk = kLen / dim;
    const wr = o.wr;
    let wLen = 0, kw = F32, dimR;
    if (wr === undefined || wr === null) {
      if (o.dimR !== undefined && o.dimR !== dim) {
        throw new RangeError(`${fn}: without wr, dimR must equal dim = u.length (got ${show(o.dimR)} and ${dim})`);
      }
      if (dim % 2 !== 0) throw new RangeError(`${fn}: without wr, dim = u.length must be even: the sinusoids r_{i-j} have dim columns (got ${dim})`);
      dimR = dim;
    } else {
      wLen = inputArg(fn, "wr", wr);
      kw = lib.inKind();
      if (wLen === 0 || wLen % dim !== 0) throw new RangeError(`${fn}: wr.length (${wLen}) must be a non-zero multiple of dim = u.length (${dim})`);
      dimR = wLen / dim;
      if (o.dimR !== undefined && o.dimR !== dimR) {
        throw new RangeError(`${fn}: dimR (${show(o.dimR)}) must equal wr.length / dim (${dimR})`);
      }
      evenDimArg(fn, "dimR = wr.length / dim", dimR);
    }
    const base = baseArg(fn, o.base);
    areaArg(fn, "tq * tk", tq, tk);
    areaArg(fn, "(tq + tk) * dimR", tq + tk, dimR);
    const len = tq * tk;
    const out = outArg(fn, o.out, len, "tq * tk");
    let terms = o.terms;
    if (terms === undefined || terms === false) terms = undefined;
    else if (terms !== true) bufferArg(fn, "terms", terms, 4 * len, "4 * tq * tk");
    // scratch: [out | terms | q | k | u | v | wr]; the core adds the relative table, in double
    const oSeg = pad4(len), tSeg = terms ? pad4(4 * len) : 0, qSeg = pad4(qLen), kSeg = pad4(kLen), dSeg = pad4(dim);
    const floats = oSeg + tSeg + qSeg + kSeg + 2 * dSeg + pad4(wLen);
    fitCall(fn, floats, (tq + tk) * (4 * dimR + 8 * dim));
    if (terms === true) terms = newFloats(fn, 4 * len);
    const qs = readIn(fn, "q", q, kq, qLen);
    const ks = readIn(fn, "k", k, kk, kLen);
    const us = readIn(fn, "u", o.u, ku, dim);
    const vs = readIn(fn, "v", o.v, kv, dim);
    const ws = wLen === 0 ? undefined : readIn(fn, "wr", wr, kw, wLen);
    const at = scratch(fn, floats);
    const qAt = at + oSeg + tSeg, kAt = qAt + qSeg, uAt = kAt + kSeg, vAt = uAt + dSeg, wAt = vAt + dSeg;
    if (len > 0) {
      copyIn(fn, "q", qs, qAt, qLen, kq);
      copyIn(fn, "k", ks, kAt, kLen, kk);
      copyIn(fn, "u", us, uAt, dim, ku);
      copyIn(fn, "v", vs, vAt, dim, kv);
      if (ws !== undefined) copyIn(fn, "wr", ws, wAt, wLen, kw);
      const st = lib.exports().sx_txl_scores(at << 2, terms ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, uAt << 2,
        vAt << 2, ws === undefined ? 0 : wAt << 2, tq, tk, dim, dimR, base);
      if (st !== 0) throw coreError(fn, st);
    }
    const result = copyOut(fn, "out", out, at, len);
    if (terms === undefined) return result;
    copyOut(fn, "terms", terms, at + oSeg, 4 * len);
    return { out: result, terms };
  }

  // -------------------------------------------------------------- scoring functions
  // The scoring kinds of sx_attention_scores (SX_SCORE_* in simplexity.h) and their parameters.
  const SCORINGS = { dot: 0, scaled: 1, bilinear: 2, additive: 3 };
  const SCORE_PARAMS = [["W", "bilinear"], ["Wq", "additive"], ["Wk", "additive"], ["wv", "additive"]];

  /** A parameter array of the scoring: a Float32Array, Float64Array or Array of `len` numbers. */
  function scoreParam(fn, o, name, len, what) {
    const x = o[name];
    if (x === undefined) throw new TypeError(`${fn}: ${name} (${what}) is required for scoring "${o.scoring}"`);
    const n = inputArg(fn, name, x);
    const kind = lib.inKind();
    if (len !== undefined && n !== len) throw new RangeError(`${fn}: ${name}.length (${n}) must equal ${what} (${len})`);
    return { x, n, kind };
  }

  /**
   * The checked arguments of attentionScores and its backward pass: sizes, the scoring and its
   * parameters (in one list, the core's layout: W, or Wq, Wk, wv).
   */
  function scoreArgs(fn, q, k, o) {
    const qLen = inputArg(fn, "q", q);
    const kq = lib.inKind();
    const kLen = inputArg(fn, "k", k);
    const kk = lib.inKind();
    const nq = sizeArg(fn, "nq", o.nq, 1, 1, "the number of queries");
    const nk = sizeArg(fn, "nk", o.nk, 1, 1, "the number of keys");
    if (qLen === 0 || qLen % nq !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a non-zero multiple of nq (${nq})`);
    if (kLen === 0 || kLen % nk !== 0) throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of nk (${nk})`);
    const qDim = qLen / nq, kDim = kLen / nk;
    const scoring = o.scoring === undefined ? "scaled" : o.scoring;
    if (typeof scoring !== "string") throw new TypeError(`${fn}: scoring must be a string (got ${show(scoring)})`);
    if (!Object.hasOwn(SCORINGS, scoring)) {
      throw new RangeError(`${fn}: scoring must be one of ${Object.keys(SCORINGS).map((s) => `"${s}"`).join(", ")} (got ${show(scoring)})`);
    }
    for (const [name, owner] of SCORE_PARAMS) {
      if (o[name] !== undefined && scoring !== owner) {
        throw new RangeError(`${fn}: ${name} applies to scoring "${owner}" only (scoring is "${scoring}")`);
      }
    }
    if ((scoring === "dot" || scoring === "scaled") && qDim !== kDim) {
      throw new RangeError(`${fn}: ${scoring} scores need queries and keys of one dimension (got q.length / nq = ${qDim} and k.length / nk = ${kDim})`);
    }
    const p = { scoring, nq, nk, qDim, kDim, hidden: 0, params: [], np: 0, qLen, kLen, kq, kk };
    if (scoring === "bilinear") {
      p.params = [scoreParam(fn, { ...o, scoring }, "W", qDim * kDim, "qDim * kDim")];
    } else if (scoring === "additive") {
      const oo = { Wq: o.Wq, Wk: o.Wk, wv: o.wv, scoring };
      const wv = scoreParam(fn, oo, "wv", undefined, "the hidden size h");
      if (wv.n === 0) throw new RangeError(`${fn}: wv must not be empty (its length is the hidden size)`);
      p.hidden = wv.n;
      p.params = [scoreParam(fn, oo, "Wq", wv.n * qDim, "h * qDim"), scoreParam(fn, oo, "Wk", wv.n * kDim, "h * kDim"), wv];
    }
    for (const a of p.params) p.np += a.n;
    if (nq * nk > MAX_FLOATS || qLen > MAX_FLOATS || kLen > MAX_FLOATS) {
      throw new RangeError(`${fn}: too large: nq * nk = ${nq} * ${nk} scores, ${TOO_LARGE}`);
    }
    return p;
  }

  /** q, k and the parameters read (Arrays into JS memory) before any scratch offset is taken. */
  function readScoreInputs(fn, q, k, p) {
    const name = (i) => SCORE_PARAMS[p.scoring === "bilinear" ? 0 : i + 1][0];
    return {
      qs: readIn(fn, "q", q, p.kq, p.qLen),
      ks: readIn(fn, "k", k, p.kk, p.kLen),
      ps: p.params.map((a, i) => readIn(fn, name(i), a.x, a.kind, a.n)),
      name,
    };
  }

  /** Copies what readScoreInputs read into scratch from float offset `at`; returns the offsets. */
  function placeScoreInputs(fn, r, p, at) {
    const qAt = at, kAt = qAt + pad4(p.qLen), pAt = kAt + pad4(p.kLen);
    copyIn(fn, "q", r.qs, qAt, p.qLen, p.kq);
    copyIn(fn, "k", r.ks, kAt, p.kLen, p.kk);
    let off = pAt;
    p.params.forEach((a, i) => {
      copyIn(fn, r.name(i), r.ps[i], off, a.n, a.kind);
      off += a.n;
    });
    return { qAt, kAt, pAt };
  }

  /** Bytes of the core's temporaries for a scoring call (doubles; the backward pass twice). */
  function scoreTemp(p, backward) {
    const d = p.scoring === "bilinear" ? p.nq * p.kDim : p.scoring === "additive" ? (p.nq + p.nk) * p.hidden : 0;
    return 8 * (backward ? 2 * d + p.hidden : d);
  }

  /**
   * The (nq, nk) attention scores of queries q (nq, qDim) against keys k (nk, kDim), row-major:
   * "dot" q.k, "scaled" q.k / sqrt(d) (the default), "bilinear" q^T W k (W: qDim * kDim),
   * "additive" wv . tanh(Wq q + Wk k) (Wq: h * qDim, Wk: h * kDim, wv: h). Map the rows with any
   * mapping (softmax(scores, { n: nk }), maskedMapping for valid lengths).
   */
  function attentionScores(q, k, opts) {
    const fn = "attentionScores";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const p = scoreArgs(fn, q, k, o);
    const sLen = p.nq * p.nk;
    const out = outArg(fn, o.out, sLen, "nq * nk");
    // scratch: [scores | q | k | params]
    const sSeg = pad4(sLen);
    const floats = sSeg + pad4(p.qLen) + pad4(p.kLen) + pad4(p.np);
    fitCall(fn, floats, scoreTemp(p, false));
    const r = readScoreInputs(fn, q, k, p);
    const at = scratch(fn, floats);
    const { qAt, kAt, pAt } = placeScoreInputs(fn, r, p, at + sSeg);
    const st = lib.exports().sx_attention_scores(at << 2, qAt << 2, kAt << 2, p.np ? pAt << 2 : 0, p.nq, p.nk,
      p.qDim, p.kDim, p.hidden, SCORINGS[p.scoring]);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, sLen);
  }

  /**
   * The gradients of <dscores, attentionScores(q, k, opts)>: { dq, dk } and the parameters' ({ dW }
   * for "bilinear", { dWq, dWk, dwv } for "additive"). Same options as attentionScores (no out).
   */
  function attentionScoresBackward(q, k, dscores, opts) {
    const fn = "attentionScoresBackward";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const p = scoreArgs(fn, q, k, o);
    const sLen = p.nq * p.nk;
    const dLen = inputArg(fn, "dscores", dscores);
    const kd = lib.inKind();
    if (dLen !== sLen) throw new RangeError(`${fn}: dscores.length (${dLen}) must equal nq * nk (${p.nq} * ${p.nk} = ${sLen})`);
    // scratch: [dq | dk | dparams | q | k | params | dscores]
    const qSeg = pad4(p.qLen), kSeg = pad4(p.kLen), pSeg = pad4(p.np);
    const floats = 2 * (qSeg + kSeg + pSeg) + pad4(sLen);
    fitCall(fn, floats, scoreTemp(p, true));
    const r = readScoreInputs(fn, q, k, p);
    const ds = readIn(fn, "dscores", dscores, kd, dLen);
    const at = scratch(fn, floats);
    const { qAt, kAt, pAt } = placeScoreInputs(fn, r, p, at + qSeg + kSeg + pSeg);
    const dAt = pAt + pSeg;
    copyIn(fn, "dscores", ds, dAt, sLen, kd);
    const dkAt = at + qSeg, dpAt = dkAt + kSeg;
    const st = lib.exports().sx_attention_scores_backward(at << 2, dkAt << 2, p.np ? dpAt << 2 : 0, dAt << 2,
      qAt << 2, kAt << 2, p.np ? pAt << 2 : 0, p.nq, p.nk, p.qDim, p.kDim, p.hidden, SCORINGS[p.scoring]);
    if (st !== 0) throw coreError(fn, st);
    const result = { dq: copyOut(fn, "dq", undefined, at, p.qLen), dk: copyOut(fn, "dk", undefined, dkAt, p.kLen) };
    if (p.scoring === "bilinear") result.dW = copyOut(fn, "dW", undefined, dpAt, p.np);
    if (p.scoring === "additive") {
      const h = p.hidden;
      result.dWq = copyOut(fn, "dWq", undefined, dpAt, h * p.qDim);
      result.dWk = copyOut(fn, "dWk", undefined, dpAt + h * p.qDim, h * p.kDim);
      result.dwv = copyOut(fn, "dwv", undefined, dpAt + h * (p.qDim + p.kDim), h);
    }
    return result;
  }

  // ----------------------------------------------------------- masked mapping
  // Every mapping with a code (groupmax has none): SX_MAP_* as for jacobian().
  const MASKED_MAPPINGS = JACOBIAN_MAPPINGS;

  /** validLengths: an Array or Int32Array of `rows` integers in [0, n], read once; or undefined. */
  function validLengthsArg(fn, v, rows, n) {
    if (v === undefined) return undefined;
    const t = typedName(v);
    if (!Array.isArray(v) && t !== "Int32Array") {
      throw new TypeError(`${fn}: validLengths must be an Array or an Int32Array of one integer per row (got ${show(v)})`);
    }
    const len = t === "Int32Array" ? typedLength(v) : v.length;
    if (len === 0 && t !== undefined && detached(v)) throw new TypeError(`${fn}: validLengths is a detached Int32Array`);
    if (len !== rows) throw new RangeError(`${fn}: validLengths.length (${len}) must equal the number of rows (${rows})`);
    const lens = new Int32Array(rows);
    for (let r = 0; r < rows; r++) {
      const x = v[r];
      if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > n) {
        throw new RangeError(`${fn}: validLengths[${r}] must be an integer in [0, n = ${n}] (got ${show(x)})`);
      }
      lens[r] = x;
    }
    return lens;
  }

  /** The shared part of maskedMapping and its backward pass (`back`: with dy). */
  function maskedCall(fn, back, x, dy, o) {
    const { code, mapping, param } = mappingArg(fn, o, MASKED_MAPPINGS);
    const len = inputArg(fn, "x", x);
    const kx = lib.inKind();
    const n = rowLength(fn, o.n, len, "x");
    const t = temperatureArg(fn, o.temperature);
    let dyLen = 0, kd = F32;
    if (back) {
      dyLen = inputArg(fn, "dy", dy);
      kd = lib.inKind();
      if (dyLen !== len) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
    }
    const rows = len / n;
    const lens = validLengthsArg(fn, o.validLengths, rows, n);
    const out = outArg(fn, o.out, len, "x.length");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    // scratch: [result | x | dy | validLengths]
    const seg = pad4(len);
    const floats = (back ? 3 : 2) * seg + pad4(rows);
    const temp = mapping === "fusedmax" ? T_FUSEDMAX : mapping === "oscarmax" ? T_OSCARMAX
      : mapping === "entmax" ? entmaxTemp(param, !back) : 0;
    fitCall(fn, floats, (4 + temp) * n);
    const xs = readIn(fn, "x", x, kx, len);
    const ds = back ? readIn(fn, "dy", dy, kd, len) : undefined;
    const at = scratch(fn, floats);
    copyIn(fn, "x", xs, at + seg, len, kx);
    if (back) copyIn(fn, "dy", ds, at + 2 * seg, len, kd);
    const lAt = at + (back ? 3 : 2) * seg;
    if (lens !== undefined) {
      lib.i32().set(lens, lAt);
    }
    const pl = lens === undefined ? 0 : lAt << 2;
    const st = back
      ? lib.exports().sx_masked_mapping_backward(at << 2, (at + seg) << 2, (at + 2 * seg) << 2, pl, rows, n, code, param, t)
      : lib.exports().sx_masked_mapping(at << 2, (at + seg) << 2, pl, rows, n, code, param, t);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  /**
   * D2L's masked softmax by valid length, for every mapping: each row of x (n scores) is mapped
   * with its entries from validLengths[row] on removed: they get exactly 0, and a valid length of
   * 0 gives an all-zero row. mapping: "softmax" (default), "sparsemax", "entmax15", "entmax"
   * (alpha), "fusedmax" (lambda), "oscarmax" (beta), "sigmoid". Without validLengths: the mapping.
   */
  function maskedMapping(x, opts) {
    readyFull("maskedMapping");
    return maskedCall("maskedMapping", false, x, undefined, optionsArg("maskedMapping", opts));
  }

  /** dx = J^T dy of maskedMapping (zeros beyond the valid lengths); same options. */
  function maskedMappingBackward(x, dy, opts) {
    readyFull("maskedMappingBackward");
    return maskedCall("maskedMappingBackward", true, x, dy, optionsArg("maskedMappingBackward", opts));
  }

  return { attention, attentionPattern, spanMask, attentionPooling, attentionPoolingBackward, positionalEncoding, relativeScores, txlScores, attentionScores, attentionScoresBackward, maskedMapping, maskedMappingBackward };
}
