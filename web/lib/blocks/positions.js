// blocks/positions.js - positional encodings: the sinusoidal matrix (sx_positional_encoding), Shaw
// et al.'s relative-position scores (sx_relative_scores), Transformer-XL's four-term scores
// (sx_txl_scores). Over one mappings.js instance's internals (blocks.js documents `lib`).

/** The functions over one mappings.js instance's internals; `shared`: other blocks/ modules' helpers. */
export function positionsApi(lib, shared) {
  const {
    F32, bufferArg, copyIn, copyOut, coreError, fitCall, inputArg, newFloats, optionsArg, outArg, pad4,
    paramArg, readIn, readyFull, scratch, show,
  } = lib;
  const { sizeArg } = shared;

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

  return { positionalEncoding, relativeScores, txlScores };
}
