// model/args.js - the argument checks Model and tasks share: integers and numbers in a range,
// option objects and their known keys. Each error names the function, the argument and the
// value (show(v), mappings.js's).

/** The checks, their messages showing values with `show`. */
export function modelArgs(show) {
  function intArg(fn, name, v, lo, hi, dflt) {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== "number") {
      throw new TypeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
    }
    if (!Number.isInteger(v) || v < lo || v > hi) {
      throw new RangeError(`${fn}: ${name} must be an integer in [${lo}, ${hi}] (got ${show(v)})`);
    }
    return v;
  }

  /** A finite number >= min (float32-finite), or the default. */
  function numArg(fn, name, v, dflt, min, max = Infinity) {
    if (v === undefined) return dflt;
    const range = max === Infinity ? `>= ${min}` : `in [${min}, ${max}]`;
    if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be a number ${range} (got ${show(v)})`);
    if (!Number.isFinite(v) || !Number.isFinite(Math.fround(v))) {
      throw new RangeError(`${fn}: ${name} must be finite (got ${show(v)})`);
    }
    if (!(v >= min && v <= max)) throw new RangeError(`${fn}: ${name} must be ${range} (got ${show(v)})`);
    return v;
  }

  function objectArg(fn, name, v, optional) {
    if (v === undefined || v === null) {
      if (optional) return {};
      throw new TypeError(`${fn}: ${name} must be an object (got ${show(v)})`);
    }
    if (typeof v !== "object" || Array.isArray(v) || ArrayBuffer.isView(v)) {
      throw new TypeError(`${fn}: ${name} must be an object (got ${show(v)})`);
    }
    return v;
  }

  function knownKeys(fn, name, obj, keys) {
    for (const k of Object.keys(obj)) {
      if (!keys.includes(k)) {
        throw new RangeError(`${fn}: unknown ${name} field ${show(k)} (known: ${keys.join(", ")})`);
      }
    }
  }

  return { intArg, numArg, objectArg, knownKeys };
}
