// model/training.js - training a Model: one Adam step on a batch (model.trainStep) and a batch's
// loss without one (model.loss); a batch's rows checked (batchArg, which the RNN shares) (shape against data, every id) and
// copied into scratch. The Model class calls them with `m`, its private state for one call
// (model-class.js #inner()).
import { rowCount, lengthCheck } from "./tokens.js";

/** trainStep(m, batch, opts) and loss(m, batch) over one core. */
export function trainingMethods(core, { intArg, numArg, objectArg, knownKeys, rowsOf, readTokens }) {
  const { show, coreError } = core;

  /**
   * A batch's (src, tgt) rows, checked (shape against data, every id) and copied into scratch;
   * returns the layout. batch.shape, when given, is [rows, row length] of both src and tgt.
   */
  function batchArg(m, fn, ex, batch, extra) {
    const b = objectArg(fn, "batch", batch, false);
    const shape = b.shape, bsrc = b.src, btgt = b.tgt; // each read once
    let count, width;
    if (shape !== undefined) {
      const n = Array.isArray(shape) ? shape.length : undefined;
      if (n !== 2) throw new TypeError(`${fn}: batch.shape must be [count, length] (got ${show(shape)})`);
      const s0 = shape[0], s1 = shape[1];
      count = intArg(fn, "batch.shape[0]", s0, 1, 4096);
      width = intArg(fn, "batch.shape[1]", s1, 1, 0x7fffffff);
    }
    const countWhat = count === undefined ? undefined : "batch.shape[0]";
    const s = m.sourceRows ? m.sourceRows(fn, "batch.src", bsrc, count, countWhat) : rowsOf(fn, "batch.src", bsrc, count, countWhat);
    const t = rowsOf(fn, "batch.tgt", btgt, count ?? (s.nested ? undefined : s.count), countWhat);
    const noSrc = s.len === 0; // a decoder-only model: tgt rows only
    if (!noSrc && t.count !== s.count) throw new RangeError(`${fn}: batch.src has ${s.count} rows, batch.tgt has ${t.count}`);
    if (width !== undefined) {
      for (const [name, r] of noSrc ? [["batch.tgt", t]] : [["batch.src", s], ["batch.tgt", t]]) {
        if (r.len !== width) {
          throw new RangeError(`${fn}: batch.shape[1] (${width}) must equal the length of the rows of ${name} (${r.len})`);
        }
      }
    }
    const { vocab, maxLen } = m.config();
    if (!noSrc) lengthCheck(fn, "batch.src", s.len, 1, maxLen);
    lengthCheck(fn, "batch.tgt", t.len, 2, maxLen);
    rowCount(fn, t.count);
    const srcIds = noSrc ? new Int32Array(0) : readTokens(fn, "batch.src", s, vocab);
    const tgtIds = readTokens(fn, "batch.tgt", t, vocab);
    m.live(fn); // a getter may have freed the model
    m.reserve(fn, ex, t.count);
    const ns = srcIds.length, nt = t.count * t.len;
    const at = core.scratch(fn, 16 + 4 * (ns + nt) + extra);
    const i32 = core.i32();
    i32.set(srcIds, (at >> 2) + 4);
    i32.set(tgtIds, (at >> 2) + 4 + ns);
    return { at, src: noSrc ? 0 : at + 16, tgt: at + 16 + 4 * ns, count: t.count, slen: s.len, tlen: t.len };
  }

  // ------------------------------------------------------------ training
  /**
   * One Adam step on a batch { src, tgt, shape? } of full target rows (BOS, answer, EOS, PAD):
   * the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:]. Returns the loss before the step.
   * A decoder-only model takes { tgt } alone (next-token prediction on each row).
   */
  function trainStep(m, batch, opts) {
    const fn = "model.trainStep";
    const ex = m.live(fn);
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["lr"]);
    const lr = numArg(fn, "lr", o.lr, 1e-3, 0);
    const b = batchArg(m, fn, ex, batch, 0);
    const st = ex.sx_model_train_step(m.handle(), b.at, b.src, b.slen, b.tgt, b.tlen, b.count, lr);
    if (st !== 0) throw coreError(fn, st);
    return core.f32()[b.at >> 2];
  }

  /** The loss of a batch (as trainStep's) without a step. */
  function loss(m, batch) {
    const fn = "model.loss";
    const ex = m.live(fn);
    const b = batchArg(m, fn, ex, batch, 0);
    const st = ex.sx_model_loss(m.handle(), b.at, b.src, b.slen, b.tgt, b.tlen, b.count);
    if (st !== 0) throw coreError(fn, st);
    return core.f32()[b.at >> 2];
  }

  return { trainStep, loss, batchArg };
}
