// blocks/masked.js - the masked mapping: any mapping over each row's valid length, forward and
// backward (sx_masked_mapping). Over one mappings.js instance's internals (blocks.js documents
// `lib`).

/** The functions over one mappings.js instance's internals. */
export function maskedApi(lib) {
  const {
    F32, JACOBIAN_MAPPINGS, T_FUSEDMAX, T_OSCARMAX, copyIn, copyOut, coreError, detached, entmaxTemp,
    fitCall, inputArg, mappingArg, optionsArg, outArg, pad4, readIn, readyFull, rowLength, scratch,
    show, temperatureArg, typedLength, typedName,
  } = lib;

  // Every mapping with a code (groupmax has none): SX_MAP_* as for jacobian().
  const MASKED_MAPPINGS = JACOBIAN_MAPPINGS;

  /** validLengths: an Array or Int32Array of `rows` integers in [0, n], read once; or undefined. */
  function validLengthsArg(fn, v, rows, n) {
    if (v === undefined) return undefined;
    const t = typedName(v);
    if (!Array.isArray(v) && t !== "Int32Array") {
      throw new TypeError(`${fn}: validLengths must be an Array or an Int32Array of one integer per row (got ${show(v)})`);
    }
    const len = t === "Int32Array" ? typedLength(v) : v.length;
    if (len === 0 && t !== undefined && detached(v)) throw new TypeError(`${fn}: validLengths is a detached Int32Array`);
    if (len !== rows) throw new RangeError(`${fn}: validLengths.length (${len}) must equal the number of rows (${rows})`);
    const lens = new Int32Array(rows);
    for (let r = 0; r < rows; r++) {
      const x = v[r];
      if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > n) {
        throw new RangeError(`${fn}: validLengths[${r}] must be an integer in [0, n = ${n}] (got ${show(x)})`);
      }
      lens[r] = x;
    }
    return lens;
  }

  /** The shared part of maskedMapping and its backward pass (`back`: with dy). */
  function maskedCall(fn, back, x, dy, o) {
    const { code, mapping, param } = mappingArg(fn, o, MASKED_MAPPINGS);
    const len = inputArg(fn, "x", x);
    const kx = lib.inKind();
    const n = rowLength(fn, o.n, len, "x");
    const t = temperatureArg(fn, o.temperature);
    let dyLen = 0, kd = F32;
    if (back) {
      dyLen = inputArg(fn, "dy", dy);
      kd = lib.inKind();
      if (dyLen !== len) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
    }
    const rows = len / n;
    const lens = validLengthsArg(fn, o.validLengths, rows, n);
    const out = outArg(fn, o.out, len, "x.length");
    if (len === 0) return out === undefined ? new Float32Array(0) : out;
    // scratch: [result | x | dy | validLengths]
    const seg = pad4(len);
    const floats = (back ? 3 : 2) * seg + pad4(rows);
    const temp = mapping === "fusedmax" ? T_FUSEDMAX : mapping === "oscarmax" ? T_OSCARMAX
      : mapping === "entmax" ? entmaxTemp(param, !back) : 0;
    fitCall(fn, floats, (4 + temp) * n);
    const xs = readIn(fn, "x", x, kx, len);
    const ds = back ? readIn(fn, "dy", dy, kd, len) : undefined;
    const at = scratch(fn, floats);
    copyIn(fn, "x", xs, at + seg, len, kx);
    if (back) copyIn(fn, "dy", ds, at + 2 * seg, len, kd);
    const lAt = at + (back ? 3 : 2) * seg;
    if (lens !== undefined) {
      lib.i32().set(lens, lAt);
    }
    const pl = lens === undefined ? 0 : lAt << 2;
    const st = back
      ? lib.exports().sx_masked_mapping_backward(at << 2, (at + seg) << 2, (at + 2 * seg) << 2, pl, rows, n, code, param, t)
      : lib.exports().sx_masked_mapping(at << 2, (at + seg) << 2, pl, rows, n, code, param, t);
    if (st !== 0) throw coreError(fn, st);
    return copyOut(fn, "out", out, at, len);
  }

  /**
   * D2L's masked softmax by valid length, for every mapping: each row of x (n scores) is mapped
   * with its entries from validLengths[row] on removed: they get exactly 0, and a valid length of
   * 0 gives an all-zero row. mapping: "softmax" (default), "sparsemax", "entmax15", "entmax"
   * (alpha), "fusedmax" (lambda), "oscarmax" (beta), "sigmoid". Without validLengths: the mapping.
   */
  function maskedMapping(x, opts) {
    readyFull("maskedMapping");
    return maskedCall("maskedMapping", false, x, undefined, optionsArg("maskedMapping", opts));
  }

  /** dx = J^T dy of maskedMapping (zeros beyond the valid lengths); same options. */
  function maskedMappingBackward(x, dy, opts) {
    readyFull("maskedMappingBackward");
    return maskedCall("maskedMappingBackward", true, x, dy, optionsArg("maskedMappingBackward", opts));
  }

  return { maskedMapping, maskedMappingBackward };
}
