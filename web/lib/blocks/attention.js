// blocks/attention.js - multi-head attention of projected q, k, v (sx_attention), materialised or
// tiled (sx_attention_tiled: O(n d) memory, chosen automatically for long sequences), a sparsity
// pattern optional. Over one mappings.js instance's internals (blocks.js documents `lib`).
import { ATTN_MAPPINGS } from "./args.js";

/** The functions over one mappings.js instance's internals; `shared`: other blocks/ modules' helpers. */
export function attentionApi(lib, shared) {
  const {
    ATTN_PARAMS, CALL_MAX_BYTES, MAX_FLOATS, TOO_LARGE, bufferArg, copyIn, copyOut, coreError, detached,
    inputArg, mappingArg, newFloats, optionsArg, outArg, pad4, readIn, readyFull, scratch, show,
    typedLength, typedName,
  } = lib;
  const { sizeArg, patternArg } = shared;


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

  return { attention };
}
