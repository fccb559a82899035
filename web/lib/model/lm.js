// model/lm.js - a decoder-only Model's steps over its KV cache (sx_model_lm_step,
// sx_model_lm_attention): model.lmStep(tokens, pos, opts) runs position pos of `tokens.length` rows
// (one token each) and returns the next token's distribution under the output mapping (exact
// zeros for sparse outputs), the logits and (option attention) every layer's attention rows of
// that step. Rows start at pos 0 and continue one position per call (pos 0 starts them again); the
// cache holds config.maxLen positions. The Model class calls them with `m`, its private state
// for one call (model-class.js #inner()). model/text-model.js builds the character model on them.

/** lmStep(m, tokens, pos, opts) over one core. */
export function lmMethods(core, { intArg, objectArg, knownKeys, rowsOf, readTokens }) {
  const { show, coreError } = core;

  function decoderOnly(fn, m) {
    const ex = m.live(fn);
    if (m.config().arch !== "decoder") {
      throw new TypeError(`${fn}: the model is not decoder-only (config.arch ${JSON.stringify(m.config().arch)})`);
    }
    return ex;
  }

  /**
   * { probs, logits } Float32Arrays (rows, vocab) of the next token after position pos, and with
   * opts.attention true `attention`: per layer a Float32Array (rows, heads, pos + 1), that step's
   * attention row of every head.
   */
  function lmStep(m, tokens, pos, opts) {
    const fn = "model.lmStep";
    const ex = decoderOnly(fn, m);
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["attention"]);
    if (o.attention !== undefined && typeof o.attention !== "boolean") {
      throw new TypeError(`${fn}: attention must be true or false (got ${show(o.attention)})`);
    }
    const { vocab, maxLen, layers, heads } = m.config();
    const p = intArg(fn, "pos", pos, 0, maxLen - 1);
    const r = rowsOf(fn, "tokens", tokens, 1);
    if (r.nested) throw new TypeError(`${fn}: tokens must be one id per row, a flat array or an Int32Array (got rows)`);
    if (r.len < 1) throw new RangeError(`${fn}: tokens must hold at least one id (one per row) (got 0)`);
    const ids = readTokens(fn, "tokens", { ...r, count: 1 }, vocab);
    m.live(fn); // a getter may have freed the model
    const n = ids.length;
    m.reserve(fn, ex, n);
    const na = n * heads * (p + 1);
    const at = core.scratch(fn, 4 * (n + 2 * n * vocab + na));
    core.i32().set(ids, at >> 2);
    const pp = at + 4 * n, pl = pp + 4 * n * vocab, pa = pl + 4 * n * vocab;
    const st = ex.sx_model_lm_step(m.handle(), pp, pl, at, n, p);
    if (st !== 0) throw coreError(fn, st);
    const out = {
      probs: core.f32().slice(pp >> 2, (pp >> 2) + n * vocab),
      logits: core.f32().slice(pl >> 2, (pl >> 2) + n * vocab),
    };
    if (o.attention) {
      out.attention = [];
      for (let l = 0; l < layers; l++) {
        const sa = ex.sx_model_lm_attention(m.handle(), pa, l);
        if (sa !== 0) throw coreError(fn, sa);
        out.attention.push(core.f32().slice(pa >> 2, (pa >> 2) + na));
      }
    }
    return out;
  }

  return { lmStep };
}
