// blocks/losses.js - the Fenchel-Young losses of the entmax family (sx_fy_loss and
// sx_fy_loss_index): cross-entropy, the sparsemax loss, the entmax losses, with their gradients
// in the scores and in alpha. Over one mappings.js instance's internals (blocks.js documents `lib`).

/** The functions over one mappings.js instance's internals. */
export function lossesApi(lib) {
  const {
    copyIn, copyOut, coreError, entmaxTemp, fitCall, inputArg, mappingArg, optionsArg, pad4, readIn,
    readyFull, rowLength, scratch, show, temperatureArg, typedLength, typedName,
  } = lib;

  // The mappings with a Fenchel-Young loss here (SX_MAP_* codes).
  const LOSS_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3 };
  const noLoss = (m) => m === "fusedmax" || m === "oscarmax"
    ? " (fusedmax and oscarmax have Fenchel-Young losses too, not implemented here)" : "";

  /** One-hot targets: an Int32Array, or an Array of `rows` integers in [-1, n) (-1 skips the row). */
  function indexTargets(fn, target, rows, n) {
    const len = typedName(target) === "Int32Array" ? typedLength(target) : target.length;
    if (len !== rows) {
      throw new RangeError(`${fn}: target has ${len} indices, but x has ${rows} rows (an index per row, or a distribution of x.length = ${rows * n} numbers)`);
    }
    const t = new Int32Array(rows);
    for (let r = 0; r < rows; r++) {
      const v = target[r];
      if (typeof v !== "number" || !Number.isInteger(v) || v < -1 || v >= n) {
        throw new RangeError(`${fn}: target[${r}] must be an integer in [0, ${n}), or -1 to skip the row (got ${show(v)})`);
      }
      t[r] = v;
    }
    return t;
  }

  /** Whether target holds indices (one per row) rather than distributions (one per score). */
  function isIndexTarget(fn, target, rows, len) {
    if (typedName(target) === "Int32Array") return true;
    if (Array.isArray(target)) return target.length === rows && target.length !== len;
    if (target === null || typeof target !== "object") {
      throw new TypeError(`${fn}: target must be an Array or Int32Array of indices (one per row) or a distribution per row (Float32Array, Float64Array, Array or WasmArray of x.length numbers) (got ${show(target)})`);
    }
    return false;
  }

  /** Each target row a distribution: finite, >= 0, summing to 1 within 1e-3, nothing on a masked
   *  score. Read from the heap, as the core will (float32). */
  function checkDistributions(fn, xAt, yAt, rows, n) {
    const h = lib.f32();
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const k = r * n + i, v = h[yAt + k];
        if (!(v >= 0) || v === Infinity) throw new RangeError(`${fn}: target[${k}] must be finite and >= 0 (got ${show(v)})`);
        if (v > 0 && h[xAt + k] === -Infinity) {
          throw new RangeError(`${fn}: target[${k}] = ${v} puts probability on a masked score (x[${k}] is -Infinity)`);
        }
        s += v;
      }
      if (!(Math.abs(s - 1) <= 1e-3)) throw new RangeError(`${fn}: row ${r} of target sums to ${s}, not 1 (a distribution per row)`);
    }
  }

  function flag(fn, o, name) {
    const v = o[name];
    if (v === undefined) return false;
    if (typeof v !== "boolean") throw new TypeError(`${fn}: ${name} must be a boolean (got ${show(v)})`);
    return v;
  }

  /**
   * Fenchel-Young loss of each row of x (n scores) against a target: indices (one per row, -1
   * skips it) or distributions (x.length numbers, each row summing to 1). mapping "softmax"
   * (cross-entropy, default), "sparsemax", "entmax15", "entmax" (alpha). Returns { loss } with
   * `grad` ((p - y) / T) when opts.grad and `dalpha` (entmax only) when opts.alphaGrad.
   */
  function fyLoss(x, target, opts) {
    const fn = "fyLoss";
    readyFull(fn);
    const o = optionsArg(fn, opts);
    const { code, mapping, param } = mappingArg(fn, o, LOSS_MAPPINGS, undefined, noLoss);
    const wantGrad = flag(fn, o, "grad"), wantAlpha = flag(fn, o, "alphaGrad");
    if (wantAlpha && mapping !== "entmax") {
      throw new RangeError(`${fn}: alphaGrad needs mapping "entmax" (alpha is fixed in "${mapping}")`);
    }
    const len = inputArg(fn, "x", x);
    const kx = lib.inKind();
    const n = rowLength(fn, o.n, len, "x");
    const t = temperatureArg(fn, o.temperature);
    const rows = len / n;
    const byIndex = isIndexTarget(fn, target, rows, len);
    let idx, ky, ylen = 0;
    if (byIndex) idx = indexTargets(fn, target, rows, n);
    else {
      ylen = inputArg(fn, "target", target);
      ky = lib.inKind();
      if (ylen !== len) throw new RangeError(`${fn}: target.length (${ylen}) must equal x.length (${len}) for distributions, or the number of rows (${rows}) for indices`);
    }
    if (len === 0) return lossResult(new Float32Array(0), wantGrad && new Float32Array(0), wantAlpha && new Float32Array(0));
    // scratch: [loss | dalpha | grad | x | target]; the core allocates rows doubles besides
    const rseg = pad4(rows), seg = pad4(len);
    const floats = 2 * rseg + 3 * seg;
    fitCall(fn, floats, 8 * rows + 4 * entmaxTemp(param, false) * n);
    const xs = readIn(fn, "x", x, kx, len);
    const ys = byIndex ? undefined : readIn(fn, "target", target, ky, len);
    const at = scratch(fn, floats);
    const aAt = at + rseg, gAt = at + 2 * rseg, xAt = gAt + seg, yAt = xAt + seg;
    copyIn(fn, "x", xs, xAt, len, kx);
    if (byIndex) lib.i32().set(idx, yAt);
    else {
      copyIn(fn, "target", ys, yAt, len, ky);
      checkDistributions(fn, xAt, yAt, rows, n);
    }
    const w = lib.exports();
    const st = byIndex
      ? w.sx_fy_loss_index(at << 2, gAt << 2, wantAlpha ? aAt << 2 : 0, xAt << 2, yAt << 2, rows, n, code, param, t)
      : w.sx_fy_loss(at << 2, gAt << 2, wantAlpha ? aAt << 2 : 0, xAt << 2, yAt << 2, rows, n, code, param, t);
    if (st !== 0) throw coreError(fn, st);
    return lossResult(copyOut(fn, "loss", undefined, at, rows),
      wantGrad && copyOut(fn, "grad", undefined, gAt, len), wantAlpha && copyOut(fn, "dalpha", undefined, aAt, rows));
  }

  function lossResult(loss, grad, dalpha) {
    const r = { loss };
    if (grad) r.grad = grad;
    if (dalpha) r.dalpha = dalpha;
    return r;
  }

  return { fyLoss };
}
