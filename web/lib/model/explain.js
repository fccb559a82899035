// model/explain.js - the explanation methods of a Model: model.explain (attributions of one
// prediction to the source tokens: gradient x input, gradient norm, integrated gradients,
// leave-one-out, attention rollout) and model.attentionGrad (the gradient of a prediction wrt one
// row of attention weights), each on one example, interventions applied. The Model class calls
// them with `m`, a view of its private state for one call: live(fn) (the exports, or the freed
// model's error), handle(), config(), edited(fn, ex, edits, body), results(ex, count, tlen, maps).
import { EXPLAIN_ALL, EXPLAIN_METHODS } from "./names.js";
import { lengthCheck } from "./tokens.js";

/** log softmax(z)[t] in double. */
function logSoftmaxAt(z, t) {
  let mx = -Infinity, s = 0;
  for (const v of z) mx = v > mx ? v : mx;
  for (const v of z) s += Math.exp(v - mx);
  return z[t] - mx - Math.log(s);
}

/** explain(m, src, tgt, opts) and attentionGrad(m, src, tgt, opts) over one core. */
export function explainMethods(core, { intArg, objectArg, knownKeys, rowsOf, readTokens, kindArg, floatsArg, editsArg }) {
  const { show, coreError } = core;

  /** One example's src and tgt rows for explain / attentionGrad: { src, tgt } Int32Arrays. */
  function example(m, fn, src, tgt) {
    const { vocab, maxLen } = m.config();
    const s = rowsOf(fn, "src", src, undefined, undefined, 1);
    const t = rowsOf(fn, "tgt", tgt, undefined, undefined, 1);
    if (s.count !== 1 || t.count !== 1) {
      throw new RangeError(`${fn}: src and tgt must be one row each (got ${s.count} and ${t.count})`);
    }
    lengthCheck(fn, "src", s.len, 1, maxLen);
    lengthCheck(fn, "tgt", t.len, 1, maxLen);
    return { src: readTokens(fn, "src", s, vocab), tgt: readTokens(fn, "tgt", t, vocab) };
  }

  /** options.step (required) and options.target (default: tgt[step + 1], the token the row has next). */
  function stepTarget(m, fn, o, tgt) {
    if (o.step === undefined) throw new TypeError(`${fn}: options.step is required (the decoder position to explain)`);
    const step = intArg(fn, "step", o.step, 0, tgt.length - 1);
    if (o.target === undefined && step + 1 >= tgt.length) {
      throw new RangeError(`${fn}: options.target is required when step (${step}) is the last position of tgt`);
    }
    const target = o.target === undefined ? tgt[step + 1] : intArg(fn, "target", o.target, 0, m.config().vocab - 1);
    return { step, target };
  }

  /**
   * Which source tokens does the prediction of `target` at decoder position `step` depend on?
   * src: one source row; tgt: one decoder input row (BOS, tokens...; a generated row is fine).
   * options: step (required), target (default tgt[step + 1]), objective ("logProb", default,
   * or "logit": f is log p(target) or the target's logit), methods (default all of gradInput,
   * gradNorm, integratedGradients, leaveOneOut, rollout), steps (integrated gradients,
   * default 64), intervene. Returns { step, target, objective, value (f), baselineValue (f at
   * the zero-embedding baseline, with integratedGradients; else null), logProb,
   * importance: { method: Float32Array(src length) }, logits (the step's row), attention }.
   */
  function explain(m, src, tgt, opts) {
    const fn = "model.explain";
    const ex = m.live(fn);
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["step", "target", "objective", "methods", "steps", "intervene"]);
    const { src: sIds, tgt: tIds } = example(m, fn, src, tgt);
    const { step, target } = stepTarget(m, fn, o, tIds);
    let methods = EXPLAIN_ALL;
    if (o.methods !== undefined) {
      if (!Array.isArray(o.methods) || o.methods.length === 0) {
        throw new TypeError(`${fn}: methods must be a non-empty array of method names (got ${show(o.methods)})`);
      }
      methods = Array.from(o.methods);
      for (const m of methods) {
        if (!EXPLAIN_ALL.includes(m)) {
          const E = typeof m === "string" ? RangeError : TypeError;
          throw new E(`${fn}: methods must name ${EXPLAIN_ALL.map((x) => JSON.stringify(x)).join(", ")} (got ${show(m)})`);
        }
      }
    }
    const steps = intArg(fn, "steps", o.steps, 1, 4096, 64);
    const objective = o.objective === undefined ? "logProb" : o.objective;
    if (objective !== "logProb" && objective !== "logit") {
      const E = typeof objective === "string" ? RangeError : TypeError;
      throw new E(`${fn}: objective must be "logProb" or "logit" (got ${show(objective)})`);
    }
    const edits = editsArg(fn, o.intervene, m.config());
    m.live(fn); // a getter may have freed the model
    const ns = sIds.length, nt = tIds.length;
    return m.edited(fn, ex, edits, () => {
      const h = m.handle();
      const importance = {};
      let value = null, baseline = null;
      const at = core.scratch(fn, 4 * (ns + nt + ns * nt + ns + 2));
      const pS = at, pT = at + 4 * ns, pOut = pT + 4 * nt, pVal = pOut + 4 * ns * nt;
      for (const m of methods) {
        if (m === "rollout") continue;
        const i32 = core.i32();
        i32.set(sIds, pS >> 2);
        i32.set(tIds, pT >> 2);
        const st = ex.sx_model_explain(h, pOut, pVal, EXPLAIN_METHODS[m], pS, ns, pT, nt, step, target,
          objective === "logit" ? 1 : 0, steps);
        if (st !== 0) throw coreError(fn, st);
        const f32 = core.f32();
        importance[m] = f32.slice(pOut >> 2, (pOut >> 2) + ns);
        value = f32[pVal >> 2];
        if (m === "integratedGradients") baseline = f32[(pVal >> 2) + 1];
      }
      if (value === null || methods.includes("rollout")) { // the example's forward pass
        const i32 = core.i32();
        i32.set(sIds, pS >> 2);
        i32.set(tIds, pT >> 2);
        const st = ex.sx_model_forward(h, pS, ns, pT, nt, 1);
        if (st !== 0) throw coreError(fn, st);
      }
      if (methods.includes("rollout")) {
        const st = ex.sx_model_rollout(h, pOut, 0);
        if (st !== 0) throw coreError(fn, st);
        importance.rollout = core.f32().slice((pOut >> 2) + step * ns, (pOut >> 2) + (step + 1) * ns);
      }
      const r = m.results(ex, 1, nt, true);
      const logits = r.logits.slice(step * m.config().vocab, (step + 1) * m.config().vocab);
      if (value === null) value = objective === "logit" ? logits[target] : logSoftmaxAt(logits, target);
      return { step, target, objective, value, baselineValue: baseline, logProb: logSoftmaxAt(logits, target),
        importance, logits, attention: r.attention };
    });
  }

  /**
   * d f / d (one row of attention weights): f = log p(target) at `step` (default), or
   * <dlogits, logits[step]> when options.dlogits (vocab numbers) is given. options: kind,
   * layer, head (each omitted: every one), row (the query position), step, target, dlogits,
   * intervene (with a "replace" edit on this very row, the gradient at the replaced weights).
   * Returns a Float32Array over the keys (src length for "encoder" and "cross", tgt length for
   * "decoder"), one such row per selected layer and head, (layers, heads, keys) row-major.
   */
  function attentionGrad(m, src, tgt, opts) {
    const fn = "model.attentionGrad";
    const ex = m.live(fn);
    const o = objectArg(fn, "options", opts, false);
    knownKeys(fn, "options", o, ["kind", "layer", "head", "row", "step", "target", "dlogits", "intervene"]);
    const { src: sIds, tgt: tIds } = example(m, fn, src, tgt);
    const { layers, heads, vocab } = m.config();
    const kind = kindArg(fn, "kind", o.kind);
    const layer = intArg(fn, "layer", o.layer, 0, layers - 1, -1);
    const head = intArg(fn, "head", o.head, 0, heads - 1, -1);
    const Tq = kind === 0 ? sIds.length : tIds.length, Tk = kind === 1 ? tIds.length : sIds.length;
    const nOut = (layer < 0 ? layers : 1) * (head < 0 ? heads : 1) * Tk;
    const row = intArg(fn, "row", o.row, 0, Tq - 1);
    let dl = null, step, target = 0;
    if (o.dlogits !== undefined) {
      dl = floatsArg(fn, "dlogits", o.dlogits, vocab, -Infinity);
      if (dl.length !== vocab) throw new RangeError(`${fn}: dlogits must have vocab (${vocab}) entries (got ${dl.length})`);
      if (o.target !== undefined) throw new TypeError(`${fn}: give target or dlogits, not both`);
      if (o.step === undefined) throw new TypeError(`${fn}: options.step is required (the decoder position)`);
      step = intArg(fn, "step", o.step, 0, tIds.length - 1);
    } else {
      ({ step, target } = stepTarget(m, fn, o, tIds));
    }
    const edits = editsArg(fn, o.intervene, m.config());
    m.live(fn); // a getter may have freed the model
    return m.edited(fn, ex, edits, () => {
      const ns = sIds.length, nt = tIds.length;
      const at = core.scratch(fn, 4 * (ns + nt + nOut + vocab));
      const pS = at, pT = at + 4 * ns, pOut = pT + 4 * nt, pD = pOut + 4 * nOut;
      core.i32().set(sIds, pS >> 2);
      core.i32().set(tIds, pT >> 2);
      if (dl) core.f32().set(dl, pD >> 2);
      const st = ex.sx_model_attention_grad(m.handle(), pOut, kind, layer, head, row, pS, ns, pT, nt, step, target, dl ? pD : 0);
      if (st !== 0) throw coreError(fn, st);
      return core.f32().slice(pOut >> 2, (pOut >> 2) + nOut);
    });
  }

  return { explain, attentionGrad };
}
