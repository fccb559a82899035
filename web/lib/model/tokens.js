// model/tokens.js - token rows in and out of the core: the rows Model and tasks take (an array of
// rows, or one flat array of count * len ids), read once and checked id by id into JS-owned
// Int32Arrays before anything touches wasm memory; result rows copied out; C strings.
import { MAX_ROWS } from "./names.js";

/** A model call takes at most 4096 rows. */
export function rowCount(fn, count, max = MAX_ROWS) {
  if (count > max) throw new RangeError(`${fn}: a batch has at most ${max} rows (got ${count})`);
}

export function lengthCheck(fn, name, len, lo, maxLen) {
  if (len < lo || len > maxLen) {
    throw new RangeError(`${fn}: ${name} rows must have ${lo}..${maxLen} tokens (maxLen) (got ${len})`);
  }
}

/** The row helpers over one core (modelApi's `core`). */
export function tokenRows(core) {
  const { show } = core;

  function cString(ptr, max = 4096) {
    const u8 = core.u8();
    let s = "";
    for (let p = ptr >>> 0; p < u8.length && u8[p] !== 0 && s.length < max; p++) s += String.fromCharCode(u8[p]);
    return s;
  }

  // -------------------------------------------------------------- token rows
  // Rows are Arrays or integer typed arrays (real ones: a Proxy's traps would run on the typed
  // array's accessors, and the engine's errors are not ours to show).
  const INT_ARRAYS = ["Int32Array", "Uint8Array", "Uint16Array", "Uint32Array", "Int8Array", "Int16Array"];
  const isIntArray = (x) => INT_ARRAYS.includes(core.typedName(x));
  const isRow = (x) => Array.isArray(x) || isIntArray(x);
  const TOKENS_TYPE = "an Int32Array, an array of token ids or an array of rows";

  /** The length of a row (isRow(x)), read once; a detached typed array is a TypeError. */
  function rowLength(fn, name, x) {
    if (Array.isArray(x)) {
      const len = x.length; // a Proxy's trap may answer anything
      if (len >>> 0 !== len) throw new TypeError(`${fn}: ${name}.length must be an integer >= 0 (got ${show(len)})`);
      return len;
    }
    const len = core.typedLength(x);
    if (len === 0 && core.detached(x)) throw new TypeError(`${fn}: ${name} is a detached ${core.typedName(x)}`);
    return len;
  }

  /**
   * Token rows: an array of rows (each an array or integer typed array of equal length), or one
   * flat array of count * len ids (count from the caller: a batch's shape[0], the count option,
   * or 1). `countWhat` names where count came from: a nested input's rows must agree with it.
   * At most maxRows rows. Returns { x, rows (the nested rows, each read once), nested, count, len }.
   */
  function rowsOf(fn, name, x, count, countWhat, maxRows = MAX_ROWS) {
    if (Array.isArray(x)) {
      const n = rowLength(fn, name, x);
      const first = n > 0 ? x[0] : undefined;
      if (isRow(first)) {
        rowCount(fn, n, maxRows);
        const rows = new Array(n);
        let len = 0;
        for (let r = 0; r < n; r++) {
          const row = r === 0 ? first : x[r];
          if (!isRow(row)) throw new TypeError(`${fn}: ${name}[${r}] must be a row of token ids (got ${show(row)})`);
          const l = rowLength(fn, `${name}[${r}]`, row);
          if (r === 0) len = l;
          else if (l !== len) {
            throw new RangeError(`${fn}: ${name}[${r}] has ${l} tokens, ${name}[0] has ${len}: rows must have equal lengths`);
          }
          rows[r] = row;
        }
        if (countWhat !== undefined && count !== n) {
          throw new RangeError(`${fn}: ${name} has ${n} rows, ${countWhat} says ${count}`);
        }
        return { x, rows, nested: true, count: n, len };
      }
    } else if (!isIntArray(x)) {
      throw new TypeError(`${fn}: ${name} must be ${TOKENS_TYPE} (got ${show(x)})`);
    }
    const total = rowLength(fn, name, x);
    const c = count === undefined ? 1 : count;
    if (total === 0 || total % c !== 0) {
      throw new RangeError(`${fn}: ${name}.length (${total}) must be a positive multiple of the row count (${c})`);
    }
    return { x, rows: null, nested: false, count: c, len: total / c };
  }

  /**
   * The ids of rowsOf's rows in a new Int32Array (count * len, row-major), each checked against
   * [0, vocab). User code (getters, Proxy traps) runs here, before anything touches wasm memory.
   */
  function readTokens(fn, name, rows, vocab) {
    const { x, count, len } = rows;
    const ids = new Int32Array(count * len);
    for (let r = 0; r < count; r++) {
      const row = rows.nested ? rows.rows[r] : x;
      const off = rows.nested ? 0 : r * len;
      for (let i = 0; i < len; i++) {
        const v = row[off + i];
        if (!Number.isInteger(v) || v < 0 || v >= vocab) {
          const where = count > 1 || rows.nested ? `${name}[${r}][${i}]` : `${name}[${i}]`;
          const E = typeof v === "number" ? RangeError : TypeError;
          throw new E(`${fn}: ${where} must be a token id in [0, ${vocab}) (got ${show(v)})`);
        }
        ids[r * len + i] = v;
      }
    }
    return ids;
  }

  /** Rows of a result: count Int32Arrays of len, copied out of i32[at ...]. */
  function rowsOut(at, count, len) {
    const h = core.i32();
    const out = new Array(count);
    for (let r = 0; r < count; r++) out[r] = h.slice(at + r * len, at + (r + 1) * len);
    return out;
  }

  return { cString, isRow, rowLength, rowsOf, readTokens, rowsOut };
}
