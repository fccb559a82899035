// blocks/prox.js - fusedmax's first step on its own (sx_prox_tv, full core only): prox_TV(x / T;
// lambda) of each row and its fused runs. Over one mappings.js instance's internals (blocks.js
// documents `lib`). Not in mappings.js nor in the mappings core: each mapping widget's post has a
// 50 KB budget, and the export's 450 bytes (and these functions') put three of them over it;
// <sx-fused> loads the full core when its steps are first shown.

/** The functions over one mappings.js instance's internals. */
export function proxApi(lib) {
  const { readyFull, copyIn, copyOut, coreError, fitCall, inputArg, optionsArg, outArg, pad4, paramArg, readIn, rowLength, scratch, show, temperatureArg } = lib;

  /** Checks the arguments and calls sx_prox_tv: the values at float `at` of the heap, x after them,
   *  the runs after x when `runs`. Returns { at, seg, len, out } (len 0: no call). */
  function call(fn, x, opts, runs) {
    const o = optionsArg(fn, opts);
    readyFull(fn);
    if (runs && o.out !== undefined) throw new TypeError(`${fn}: takes no opts.out (it returns a new Int32Array; got ${show(o.out)})`);
    const lambda = paramArg(fn, "lambda", o.lambda, 1, 0, false);
    const len = inputArg(fn, "x", x);
    const kind = lib.inKind();
    const n = rowLength(fn, o.n, len, "x");
    const t = temperatureArg(fn, o.temperature);
    const out = runs ? undefined : outArg(fn, o.out, len, "x.length");
    const seg = pad4(len), floats = (runs ? 3 : 2) * seg;
    if (len === 0) return { len, out };
    fitCall(fn, floats, 0);
    const xs = readIn(fn, "x", x, kind, len);
    const at = scratch(fn, floats);
    copyIn(fn, "x", xs, at + seg, len, kind);
    const st = lib.exports().sx_prox_tv(at << 2, runs ? (at + 2 * seg) << 2 : 0, (at + seg) << 2, len / n, n, lambda, t);
    if (st !== 0) throw coreError(fn, st);
    return { at, seg, len, out };
  }

  /**
   * prox_TV(x / T; lambda) of each row: argmin_y 1/2 ||y - z||^2 + lambda sum_i |y_{i+1} - y_i|,
   * z = x / T, the fused-lasso step fusedmax projects onto the simplex (fusedmax(x) =
   * sparsemax(proxTV(x)) at T = 1). lambda >= 0 (default 1, as fusedmax; 0: the identity). Masked
   * (-Infinity) entries leave the chain, as in fusedmax, and stay -Infinity.
   */
  function proxTV(x, opts) {
    const r = call("proxTV", x, opts, false);
    if (r.len === 0) return r.out === undefined ? new Float32Array(0) : r.out;
    return copyOut("proxTV", "out", r.out, r.at, r.len);
  }

  /**
   * The fused runs of proxTV(x, opts): an Int32Array as long as x, each entry's run numbered from
   * 0 in each row, left to right (-1 where masked); a run's entries have equal proxTV values.
   * Takes proxTV's options but not opts.out.
   */
  function proxTVRuns(x, opts) {
    const r = call("proxTVRuns", x, opts, true);
    if (r.len === 0) return new Int32Array(0);
    const from = r.at + 2 * r.seg;
    return lib.i32().slice(from, from + r.len);
  }

  return { proxTV, proxTVRuns };
}
