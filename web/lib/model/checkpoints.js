// model/checkpoints.js - a Model's checkpoints (and an RNN's, through loadWith and saveWith): model.save() (config + parameters, checksummed;
// float32, lossless, or float16, half the bytes) and the bytes Model.load reads back (either
// precision; truncated or corrupted bytes are a SimplexityError). The Model class calls them
// (save with `m`, its private state for one call: model-class.js #inner()).
import { SAVE_PRECISION } from "./names.js";

/** loadHandle(bytes) and save(m, opts) over one core. */
export function checkpointMethods(core, { objectArg, knownKeys }) {
  const { show, coreError } = core;

  /** Model.load: the handle of a model built from checkpoint bytes (model.save()); bad bytes throw SimplexityError. */
  function loadHandle(bytes) {
    return loadWith("Model.load", "sx_model_load", bytes);
  }

  /** The handle the core's loader (sx_model_load, sx_rnn_load) builds from checkpoint bytes. */
  function loadWith(fn, loader, bytes) {
    let b = bytes;
    if (b instanceof ArrayBuffer) {
      if (core.bufferDetached(b)) throw new TypeError(`${fn}: bytes is a detached ArrayBuffer`);
      b = new Uint8Array(b);
    }
    if (core.typedName(b) !== "Uint8Array") {
      throw new TypeError(`${fn}: bytes must be a Uint8Array or an ArrayBuffer (got ${show(bytes)})`);
    }
    const n = core.typedLength(b); // the real length: the copy below writes that many bytes
    if (n === 0 && core.detached(b)) throw new TypeError(`${fn}: bytes is a detached Uint8Array`);
    core.fit(fn, 16 + n, n); // the model the core builds from them is about as large
    const ex = core.ready(fn);
    const at = core.scratch(fn, 16 + n);
    core.i32()[at >> 2] = 0;
    core.u8().set(b, at + 16);
    const st = ex[loader](at, at + 16, n);
    if (st !== 0) throw coreError(fn, st);
    return core.i32()[at >> 2] >>> 0;
  }

  /**
   * The checkpoint bytes (config + parameters, checksummed), for Model.load. precision
   * "float32" (default) is lossless; "float16" halves the bytes, each parameter rounded to the
   * nearest float16 (a parameter of magnitude >= 65520 is a SimplexityError: save as float32).
   */
  function save(m, opts) {
    return saveWith("model.save", m, opts, "sx_model_save_size_as", "sx_model_save_as");
  }

  /** save() over the core's size and save calls (sx_model_*, sx_rnn_*). */
  function saveWith(fn, m, opts, sizeAs, saveAs) {
    const ex = m.live(fn);
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["precision"]);
    const precision = o.precision === undefined ? "float32" : o.precision;
    if (typeof precision !== "string" || !Object.hasOwn(SAVE_PRECISION, precision)) {
      const E = typeof precision === "string" ? RangeError : TypeError;
      throw new E(`${fn}: options.precision must be "float32" or "float16" (got ${show(precision)})`);
    }
    const bits = SAVE_PRECISION[precision];
    const n = ex[sizeAs](m.handle(), bits);
    const at = core.scratch(fn, n);
    const st = ex[saveAs](m.handle(), at, n, bits);
    if (st !== 0) throw coreError(fn, st);
    return core.u8().slice(at, at + n);
  }

  return { loadHandle, save, loadWith, saveWith };
}
