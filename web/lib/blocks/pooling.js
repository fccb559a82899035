// blocks/pooling.js - the adaptive span mask (sx_span_mask) and Nadaraya-Watson attention pooling,
// forward and backward (sx_nw_pooling). Over one mappings.js instance's internals (blocks.js
// documents `lib`).
import { ATTN_MAPPINGS } from "./args.js";

/** The functions over one mappings.js instance's internals. */
export function poolingApi(lib) {
  const {
    ATTN_PARAMS, bufferArg, copyIn, copyOut, coreError, fitCall, inputArg, mappingArg, optionsArg,
    outArg, pad4, paramArg, readIn, readyFull, scratch, show, typedName,
  } = lib;

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

  return { spanMask, attentionPooling, attentionPoolingBackward };
}
