// blocks/scores.js - scoring functions: dot, scaled dot, bilinear and additive score matrices and
// their backward (sx_attention_scores). Over one mappings.js instance's internals (blocks.js
// documents `lib`).

/** The functions over one mappings.js instance's internals; `shared`: other blocks/ modules' helpers. */
export function scoresApi(lib, shared) {
  const {
    MAX_FLOATS, TOO_LARGE, copyIn, copyOut, coreError, fitCall, inputArg, optionsArg, outArg, pad4,
    readIn, readyFull, scratch, show,
  } = lib;
  const { sizeArg } = shared;

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

  return { attentionScores, attentionScoresBackward };
}
