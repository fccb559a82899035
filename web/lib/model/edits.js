// model/edits.js - interventions: the `intervene` option of forward, generate, explain and
// attentionGrad (ablate a head, replace or erase a row's weights, mask keys), checked and read
// once into plain records for sx_model_edit; the attention kind and float-list checks they share.
import { KINDS, EDIT_OPS, MAX_EDITS, MAX_ROW_EDITS } from "./names.js";

/** kindArg, floatsArg and editsArg over one core. */
export function editArgs(core, { intArg, objectArg, knownKeys }) {
  const { show } = core;

  /** A kind name -> 0..2 (`where` names the field). */
  function kindArg(fn, where, v) {
    const k = KINDS.indexOf(v);
    if (k < 0) {
      const E = typeof v === "string" ? RangeError : TypeError;
      throw new E(`${fn}: ${where} must be "encoder", "decoder" or "cross" (got ${show(v)})`);
    }
    return k;
  }

  /** Finite floats of an array or typed array of 1..max entries (each >= min). */
  function floatsArg(fn, where, v, max, min) {
    if (!Array.isArray(v) && !ArrayBuffer.isView(v)) {
      throw new TypeError(`${fn}: ${where} must be an array of numbers (got ${show(v)})`);
    }
    const n = Array.isArray(v) ? v.length : core.typedLength(v);
    if (!(n >= 1 && n <= max)) throw new RangeError(`${fn}: ${where} must have 1..${max} entries (got ${n})`);
    const out = new Float32Array(n);
    for (let j = 0; j < n; j++) {
      const x = v[j];
      if (typeof x !== "number") throw new TypeError(`${fn}: ${where}[${j}] must be a number (got ${show(x)})`);
      if (!Number.isFinite(x) || !Number.isFinite(Math.fround(x)) || x < min) {
        throw new RangeError(`${fn}: ${where}[${j}] must be finite${min > -Infinity ? ` and >= ${min}` : ""} (got ${show(x)})`);
      }
      out[j] = x;
    }
    return out;
  }

  /**
   * options.intervene: an array of edits, each { op, kind, layer?, head?, row?, weights | keys },
   * checked and read once into plain records { op, kind, layer, head, row, w } (-1: every).
   */
  function editsArg(fn, v, cfg) {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new TypeError(`${fn}: intervene must be an array of edits (got ${show(v)})`);
    const n = v.length;
    if (n > MAX_EDITS) throw new RangeError(`${fn}: intervene has at most ${MAX_EDITS} edits (got ${n})`);
    const { layers, heads, maxLen } = cfg;
    const out = [];
    let rowEdits = 0;
    for (let i = 0; i < n; i++) {
      const w = `intervene[${i}]`;
      const e = objectArg(fn, w, v[i], false);
      const opName = e.op;
      if (typeof opName !== "string" || !Object.hasOwn(EDIT_OPS, opName)) {
        const E = typeof opName === "string" ? RangeError : TypeError;
        throw new E(`${fn}: ${w}.op must be "ablate", "replace", "erase" or "mask" (got ${show(opName)})`);
      }
      const op = EDIT_OPS[opName];
      const keys = { ablate: ["op", "kind", "layer", "head"], replace: ["op", "kind", "layer", "head", "row", "weights"],
        erase: ["op", "kind", "layer", "head", "row", "keys"], mask: ["op", "kind", "layer", "keys"] }[opName];
      knownKeys(fn, w, e, keys);
      const kind = kindArg(fn, `${w}.kind`, e.kind);
      const layer = e.layer === undefined ? -1 : intArg(fn, `${w}.layer`, e.layer, 0, layers - 1);
      const head = e.head === undefined ? -1 : intArg(fn, `${w}.head`, e.head, 0, heads - 1);
      const row = e.row === undefined ? -1 : intArg(fn, `${w}.row`, e.row, 0, maxLen - 1);
      let wts = null;
      if (opName === "replace") {
        if (e.weights === undefined) throw new TypeError(`${fn}: ${w}.weights is required for "replace"`);
        wts = floatsArg(fn, `${w}.weights`, e.weights, maxLen, 0);
      } else if (opName !== "ablate") {
        const k = e.keys;
        if (!Array.isArray(k) || k.length === 0) {
          throw new TypeError(`${fn}: ${w}.keys must be a non-empty array of key positions (got ${show(k)})`);
        }
        wts = new Float32Array(maxLen);
        for (let j = 0; j < k.length; j++) wts[intArg(fn, `${w}.keys[${j}]`, k[j], 0, maxLen - 1)] = 1;
      }
      if (op === EDIT_OPS.replace || op === EDIT_OPS.erase) rowEdits += layer < 0 ? layers : 1;
      if (rowEdits > MAX_ROW_EDITS) {
        throw new RangeError(`${fn}: intervene has more than ${MAX_ROW_EDITS} row edits (replace and erase, one per layer they touch)`);
      }
      out.push({ op, kind, layer, head, row, w: wts });
    }
    return out;
  }

  return { kindArg, floatsArg, editsArg };
}
