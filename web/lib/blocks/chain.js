// blocks/chain.js - structured attention over a sequence (sx_chain_*): a linear chain of
// attend / skip variables with unary scores u and a transition score that rewards contiguous
// selections; its CRF marginals (dense) or SparseMAP (a sparse mixture of a few selections),
// their backward passes, and SparseMAP's selections. Over one mappings.js instance's internals
// (blocks.js documents `lib`).

/** The functions over one mappings.js instance's internals. */
export function chainApi(lib) {
  const {
    copyIn, copyOut, coreError, fitCall, inputArg, optionsArg, outArg, pad4, readIn, readyFull,
    rowLength, scratch, show,
  } = lib;

  const METHODS = ["crf", "sparsemap"];
  const SPARSEMAP_MAX_N = 63; // SX_CHAIN_SPARSEMAP_MAX_N

  function methodArg(fn, m) {
    if (m === undefined) return "crf";
    if (!METHODS.includes(m)) throw new RangeError(`${fn}: method must be "crf" or "sparsemap" (got ${show(m)})`);
    return m;
  }

  /** The transition score t: a finite number (float32), default 0 (independent positions). */
  function transitionArg(fn, t) {
    if (t === undefined) return 0;
    if (typeof t !== "number") throw new TypeError(`${fn}: transition must be a number (got ${show(t)})`);
    if (!Number.isFinite(t) || !Number.isFinite(Math.fround(t))) {
      throw new RangeError(`${fn}: transition must be finite in float32 (got ${show(t)})`);
    }
    return t;
  }

  function sizeCheck(fn, method, n) {
    if (method === "sparsemap" && n > SPARSEMAP_MAX_N) {
      throw new RangeError(`${fn}: method "sparsemap" takes rows of at most ${SPARSEMAP_MAX_N} positions (got n = ${n}); "crf" has no such limit`);
    }
  }

  // The core's own scratch per call: CRF 4 n doubles of duals (32 n bytes); SparseMAP up to
  // 2n + 2 selections: (2n + 2) n bytes and two (2n + 3)^2 matrices of doubles.
  function coreTemp(method, n) {
    if (method === "crf") return 64 * n;
    const cap = 2 * n + 2;
    return 8 * (3 * cap + cap * cap + (cap + 1) * (cap + 1) + cap + 1 + 2 * n) + cap * n + 3 * n;
  }

  /**
   * Attention weights from a chain over each row of u (n unary scores, -Infinity: never
   * attended): method "crf" (default) gives the marginals P(y_i = 1) by forward-backward,
   * "sparsemap" the SparseMAP marginals (rows of at most 63). Each weight is in [0, 1]; the row
   * is not normalised. transition (default 0) rewards (> 0) or penalises (< 0) attending to
   * neighbours together.
   */
  function chainAttention(u, opts) {
    const fn = "chainAttention";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const method = methodArg(fn, o.method), t = transitionArg(fn, o.transition);
    const len = inputArg(fn, "u", u);
    const ku = lib.inKind();
    const n = rowLength(fn, o.n, len, "u");
    sizeCheck(fn, method, n);
    const out = outArg(fn, o.out, len, "u.length");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    const seg = pad4(len);
    fitCall(fn, 2 * seg, coreTemp(method, n));
    const us = readIn(fn, "u", u, ku, len);
    const at = scratch(fn, 2 * seg);
    copyIn(fn, "u", us, at + seg, len, ku);
    const w = lib.exports(), rows = len / n;
    const st = method === "crf" ? w.sx_chain_marginals(at << 2, (at + seg) << 2, rows, n, t)
      : w.sx_chain_sparsemap(at << 2, (at + seg) << 2, rows, n, t);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  /** The backward pass of chainAttention: { du, dt } for a gradient dmu of the weights (dt
   *  summed over the rows). Same options. */
  function chainAttentionBackward(u, dmu, opts) {
    const fn = "chainAttentionBackward";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const method = methodArg(fn, o.method), t = transitionArg(fn, o.transition);
    const len = inputArg(fn, "u", u);
    const ku = lib.inKind();
    const dlen = inputArg(fn, "dmu", dmu);
    const kd = lib.inKind();
    if (dlen !== len) throw new RangeError(`${fn}: dmu.length (${dlen}) must equal u.length (${len})`);
    const n = rowLength(fn, o.n, len, "u");
    sizeCheck(fn, method, n);
    if (len === 0) return { du: new Float32Array(0), dt: 0 };
    const seg = pad4(len);
    fitCall(fn, 3 * seg + 4, coreTemp(method, n));
    const us = readIn(fn, "u", u, ku, len), ds = readIn(fn, "dmu", dmu, kd, len);
    const at = scratch(fn, 3 * seg + 4);
    copyIn(fn, "u", us, at + seg, len, ku);
    copyIn(fn, "dmu", ds, at + 2 * seg, len, kd);
    const w = lib.exports(), rows = len / n, dtAt = at + 3 * seg;
    const args = [at << 2, dtAt << 2, (at + seg) << 2, (at + 2 * seg) << 2, rows, n, t];
    const st = method === "crf" ? w.sx_chain_marginals_backward(...args) : w.sx_chain_sparsemap_backward(...args);
    if (st !== 0) throw coreError(fn, st);
    const dt = lib.f32()[dtAt];
    return { du: copyOut(fn, "du", undefined, at, len), dt };
  }

  /**
   * SparseMAP's selections for one row u (at most 63 scores): { count, selections }, each
   * selection { positions (the attended indices, ascending), weight }, largest weight first;
   * the weights sum to 1 and sum_s weight_s [i in s] is chainAttention's weight i.
   */
  function sparsemapSelections(u, opts) {
    const fn = "sparsemapSelections";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const t = transitionArg(fn, o.transition);
    if (o.n !== undefined) throw new RangeError(`${fn}: takes one row (u is the row): no n option (got n = ${show(o.n)})`);
    const n = inputArg(fn, "u", u);
    const ku = lib.inKind();
    if (n === 0) throw new RangeError(`${fn}: u must hold at least one score (got an empty array)`);
    sizeCheck(fn, "sparsemap", n);
    const cap = 2 * n + 2, seg = pad4(n), wseg = pad4(cap), bseg = pad4(Math.ceil((cap * n) / 4));
    const floats = seg + wseg + bseg + 4;
    fitCall(fn, floats, coreTemp("sparsemap", n));
    const us = readIn(fn, "u", u, ku, n);
    const at = scratch(fn, floats);
    copyIn(fn, "u", us, at, n, ku);
    const wAt = at + seg, cAt = wAt + wseg, sAt = cAt + 4;
    const st = lib.exports().sx_chain_sparsemap_support(sAt << 2, wAt << 2, cap, cAt << 2, at << 2, n, t);
    if (st !== 0) throw coreError(fn, st);
    const count = lib.i32()[cAt], f = lib.f32(), bytes = lib.u8(), selections = [];
    for (let s = 0; s < count; s++) {
      const positions = [];
      for (let i = 0; i < n; i++) if (bytes[(sAt << 2) + s * n + i]) positions.push(i);
      selections.push({ positions, weight: f[wAt + s] });
    }
    return { count, selections };
  }

  return { chainAttention, chainAttentionBackward, sparsemapSelections };
}
