// arrays.js - the arrays of a file, as a reader's own attention comes (the library layer: no DOM,
// no Node import, the same module in browsers and Node; "simplexity/arrays"):
//   parseNpy(bytes, { name })            NumPy .npy: float16, float32, float64, either byte order,
//                                        C or Fortran order (read into C order)
//   parseNpz(bytes, { name })            NumPy .npz, a zip of .npy files, stored (np.savez) or
//                                        deflated (np.savez_compressed: DecompressionStream
//                                        ("deflate-raw"), the platform's), each member's CRC-32
//                                        checked; a Promise of a Map name -> array
//   parseSafetensors(bytes, { name })    safetensors: F16, BF16, F32, F64; a Map name -> array
//   parseAttentionJSON(text, { name })   JSON: nested arrays of numbers, or { shape, data } (data
//                                        flat or nested; optional tokens, a list of strings)
//   readArrays(bytes, { name })          any of the four, told apart by their first bytes
//   toAttention(arrays, { name, key, values })  one array as (layers, heads, queries, keys)
//   parseLabels(text, { name })          token labels: a JSON array of strings, or one per line
// An array is { dtype, shape, data }: data a Float64Array for float64, else a Float32Array (every
// float16 and bfloat16 value is exactly a float32), in C order. A file that cannot be read throws
// an ArrayFileError whose message starts with the file's name and says what is wrong (the dtype,
// the shape, where it is truncated, which row is not weights).

/** A file that is not what it should be: `.file` is its name. */
export class ArrayFileError extends Error {
  constructor(file, message) {
    super(`${file}: ${message}`);
    this.name = "ArrayFileError";
    this.file = file;
  }
}

const MAX_VALUES = 1 << 26; // 64 M values: 256 MB as float32, more than a page should draw

// ------------------------------------------------------------------ bytes and dtypes
function asBytes(fn, bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`${fn}: bytes must be a Uint8Array or an ArrayBuffer (got ${bytes === null ? "null" : typeof bytes})`);
}

function fileName(fn, opts) {
  const name = opts?.name ?? "the file";
  if (typeof name !== "string") throw new TypeError(`${fn}: name must be a string (got ${typeof name})`);
  return name;
}

/** IEEE half -> float32, exactly (subnormals, infinities, NaN). */
export function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

// The float dtypes, by their names in each format: bytes per value and a reader.
const DTYPES = {
  float16: { size: 2, read: (v, o, le) => halfToFloat(v.getUint16(o, le)) },
  bfloat16: { size: 2, read: (v, o, le) => { TMP_U32[0] = v.getUint16(o, le) << 16; return TMP_F32[0]; } },
  float32: { size: 4, read: (v, o, le) => v.getFloat32(o, le) },
  float64: { size: 8, read: (v, o, le) => v.getFloat64(o, le) },
};
const TMP_F32 = new Float32Array(1), TMP_U32 = new Uint32Array(TMP_F32.buffer);

/** count values of dtype from bytes at offset (little-endian unless le is false). */
function decode(bytes, offset, count, dtype, le = true) {
  const { size, read } = DTYPES[dtype];
  const out = dtype === "float64" ? new Float64Array(count) : new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * size);
  for (let i = 0; i < count; i++) out[i] = read(view, i * size, le);
  return out;
}

function product(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// ------------------------------------------------------------------ .npy
// What NumPy's descr names, for the message when it is not a float we read.
const NPY_KINDS = { b: "bool", i: "int", u: "uint", c: "complex", O: "object (pickled Python objects)", U: "unicode string",
  S: "byte string", V: "void",
  M: "datetime", m: "timedelta", f: "float" };

function npyDtype(file, descr) {
  const m = /^([<>|=])([a-zA-Z])(\d+)$/.exec(descr);
  if (!m) throw new ArrayFileError(file, `dtype ${descr} is not a plain number type (a structured array?): save a float array`);
  const [, order, kind, n] = m;
  const name = kind === "f" ? `float${8 * n}` : `${NPY_KINDS[kind] ?? kind}${kind === "i" || kind === "u" || kind === "c" ? 8 * n : ""}`;
  if (kind !== "f" || !(name in DTYPES) || name === "bfloat16") {
    const hint = kind === "V" && n === "2" ? " (raw 2-byte values: how ml_dtypes' bfloat16 is saved, nameless; use safetensors for bfloat16)" : "";
    throw new ArrayFileError(file, `dtype ${name} (${descr})${hint} is not supported: save float16, float32 or float64 (arr.astype(np.float32))`);
  }
  return { dtype: name, le: order !== ">" };
}

function npyHeader(file, b) {
  if (b.length < 10 || b[0] !== 0x93 || String.fromCharCode(...b.subarray(1, 6)) !== "NUMPY") {
    throw new ArrayFileError(file, "is not a .npy file (no \\x93NUMPY magic at its start)");
  }
  const major = b[6], view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (major < 1 || major > 3) throw new ArrayFileError(file, `.npy format version ${major}.${b[7]} is not one this reader knows (1, 2 or 3)`);
  const lenBytes = major === 1 ? 2 : 4, start = 8 + lenBytes;
  if (b.length < start) throw new ArrayFileError(file, "is truncated inside its header");
  const len = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (b.length < start + len) throw new ArrayFileError(file, `is truncated inside its header (${b.length} bytes, the header ends at ${start + len})`);
  const text = new TextDecoder().decode(b.subarray(start, start + len));
  return { text, dataStart: start + len };
}

function npyFields(file, text) {
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(text);
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text);
  const shape = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) throw new ArrayFileError(file, `has a bad header (${JSON.stringify(text.trim().slice(0, 80))}): no descr, fortran_order or shape`);
  const dims = shape[1].split(",").map((s) => s.trim()).filter(Boolean);
  if (dims.some((d) => !/^\d+$/.test(d))) throw new ArrayFileError(file, `has a bad shape in its header: (${shape[1]})`);
  return { descr: descr[1], fortran: fortran[1] === "True", shape: dims.map(Number) };
}

/** C order from Fortran order: the same values, the last index fastest. */
function fromFortran(data, shape) {
  const out = new data.constructor(data.length), n = shape.length;
  const strides = new Array(n); // Fortran strides
  for (let k = 0, s = 1; k < n; k++) { strides[k] = s; s *= shape[k]; }
  const idx = new Array(n).fill(0);
  for (let c = 0; c < data.length; c++) {
    let f = 0;
    for (let k = 0; k < n; k++) f += idx[k] * strides[k];
    out[c] = data[f];
    for (let k = n - 1; k >= 0 && ++idx[k] === shape[k]; k--) idx[k] = 0;
  }
  return out;
}

/** A NumPy .npy file's array. */
export function parseNpy(bytes, opts) {
  const b = asBytes("parseNpy", bytes), file = fileName("parseNpy", opts);
  const { text, dataStart } = npyHeader(file, b);
  const { descr, fortran, shape } = npyFields(file, text);
  const { dtype, le } = npyDtype(file, descr);
  const count = product(shape), need = count * DTYPES[dtype].size;
  if (count > MAX_VALUES) throw new ArrayFileError(file, `holds ${count} values (shape (${shape.join(", ")})): more than ${MAX_VALUES} is too many to draw`);
  if (b.length - dataStart < need) {
    throw new ArrayFileError(file, `is truncated: shape (${shape.join(", ")}) of ${dtype} needs ${need} bytes of data, the file has ${b.length - dataStart}`);
  }
  const data = decode(b, dataStart, count, dtype, le);
  return { dtype, shape, data: fortran && shape.length > 1 ? fromFortran(data, shape) : data };
}

// ------------------------------------------------------------------ .npz (zip)
const CRC_TABLE = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** CRC-32 of bytes (zip's), as an unsigned integer. */
export function crc32(bytes) {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** The zip's End Of Central Directory: where its directory starts and how many entries. */
function zipEnd(file, b, view) {
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      const entries = view.getUint16(i + 10, true), at = view.getUint32(i + 16, true);
      if (entries === 0xffff || at === 0xffffffff) throw new ArrayFileError(file, "is a zip64 archive of more than 65535 members or 4 GB: too big to draw");
      return { entries, at };
    }
  }
  throw new ArrayFileError(file, b.length >= 4 && view.getUint32(0, true) === 0x04034b50
    ? "is truncated: the zip's directory at its end is missing" : "is not a .npz file (no zip directory)");
}

/** The zip's members: { name, method, crc, size, usize, offset } from the central directory. */
function zipEntries(file, b) {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const { entries, at } = zipEnd(file, b, view);
  const out = [];
  for (let k = 0, p = at; k < entries; k++) {
    if (p + 46 > b.length || view.getUint32(p, true) !== 0x02014b50) throw new ArrayFileError(file, `has a damaged zip directory (entry ${k + 1} of ${entries})`);
    const nameLen = view.getUint16(p + 28, true), extraLen = view.getUint16(p + 30, true), commentLen = view.getUint16(p + 32, true);
    out.push({
      name: new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen)), method: view.getUint16(p + 10, true),
      crc: view.getUint32(p + 16, true), size: view.getUint32(p + 20, true), usize: view.getUint32(p + 24, true),
      offset: view.getUint32(p + 42, true),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return { out, view };
}

async function inflateRaw(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function zipMember(file, b, view, e) {
  const where = `member ${e.name}`;
  if (e.offset + 30 > b.length || view.getUint32(e.offset, true) !== 0x04034b50) throw new ArrayFileError(file, `${where}: its local header is missing or damaged`);
  const start = e.offset + 30 + view.getUint16(e.offset + 26, true) + view.getUint16(e.offset + 28, true);
  if (start + e.size > b.length) throw new ArrayFileError(file, `${where} is truncated (${e.size} bytes from ${start}, the file has ${b.length})`);
  const raw = b.subarray(start, start + e.size);
  let data;
  if (e.method === 0) data = raw;
  else if (e.method === 8) {
    try { data = await inflateRaw(raw); } catch { throw new ArrayFileError(file, `${where}: its deflated data is corrupt or truncated`); }
  } else throw new ArrayFileError(file, `${where} is compressed with zip method ${e.method}: only stored (np.savez) and deflated (np.savez_compressed) are read`);
  if (data.length !== e.usize || crc32(data) !== e.crc) throw new ArrayFileError(file, `${where} is corrupt: its size or CRC-32 does not match the zip's directory`);
  return data;
}

/** A NumPy .npz file's arrays: a Promise of a Map from each name (without ".npy") to its array. */
export async function parseNpz(bytes, opts) {
  const b = asBytes("parseNpz", bytes), file = fileName("parseNpz", opts);
  const { out, view } = zipEntries(file, b);
  const arrays = new Map();
  for (const e of out) {
    if (e.name.endsWith("/")) continue;
    const data = await zipMember(file, b, view, e);
    const name = e.name.replace(/\.npy$/, "");
    arrays.set(name, parseNpy(data, { name: `${file}: ${e.name}` }));
  }
  if (!arrays.size) throw new ArrayFileError(file, "holds no array");
  return arrays;
}

// ------------------------------------------------------------------ safetensors
const ST_DTYPES = { F16: "float16", BF16: "bfloat16", F32: "float32", F64: "float64" };

function stHeader(file, b) {
  if (b.length < 8) throw new ArrayFileError(file, `is truncated: ${b.length} bytes, not even a safetensors header length`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const len = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (len > b.length - 8) throw new ArrayFileError(file, `is truncated or not safetensors: its header would be ${len} bytes, the file has ${b.length - 8} after the length`);
  let header;
  try { header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b.subarray(8, 8 + len))); } catch (err) {
    throw new ArrayFileError(file, `has a bad safetensors header (not JSON: ${err.message})`);
  }
  if (!header || typeof header !== "object" || Array.isArray(header)) throw new ArrayFileError(file, "has a bad safetensors header (not a JSON object)");
  return { header, start: 8 + len };
}

function stTensor(file, b, start, name, t) {
  const where = `tensor ${name}`;
  if (!t || !Array.isArray(t.shape) || !Array.isArray(t.data_offsets) || t.data_offsets.length !== 2
    || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) throw new ArrayFileError(file, `${where}: a bad header entry ${JSON.stringify(t).slice(0, 80)}`);
  const dtype = ST_DTYPES[t.dtype];
  if (!dtype) throw new ArrayFileError(file, `${where}: dtype ${t.dtype} is not supported: save F16, BF16, F32 or F64 (tensor.float())`);
  const [a, e] = t.data_offsets, count = product(t.shape);
  if (!Number.isInteger(a) || !Number.isInteger(e) || e - a !== count * DTYPES[dtype].size) {
    throw new ArrayFileError(file, `${where}: data_offsets [${a}, ${e}] do not hold shape [${t.shape}] of ${t.dtype} (${count * DTYPES[dtype].size} bytes)`);
  }
  if (count > MAX_VALUES) throw new ArrayFileError(file, `${where} holds ${count} values: more than ${MAX_VALUES} is too many to draw`);
  if (start + e > b.length) throw new ArrayFileError(file, `is truncated: ${where} ends at byte ${start + e}, the file has ${b.length}`);
  return { dtype, shape: t.shape.slice(), data: decode(b, start + a, count, dtype) };
}

/** A safetensors file's tensors: a Map from each name to its array (the header's order). */
export function parseSafetensors(bytes, opts) {
  const b = asBytes("parseSafetensors", bytes), file = fileName("parseSafetensors", opts);
  const { header, start } = stHeader(file, b);
  const arrays = new Map();
  for (const [name, t] of Object.entries(header)) if (name !== "__metadata__") arrays.set(name, stTensor(file, b, start, name, t));
  if (!arrays.size) throw new ArrayFileError(file, "holds no tensor");
  return arrays;
}

// ------------------------------------------------------------------ JSON
/** Nested arrays of numbers: their shape and values in C order; where is the path for messages. */
function nested(file, v, shape, depth, out, where) {
  if (depth === shape.length) {
    if (typeof v !== "number") throw new ArrayFileError(file, `${where || "the value"} is ${v === null ? "null" : Array.isArray(v) ? "a list" : typeof v}, not a number`);
    out.push(v);
    return;
  }
  if (!Array.isArray(v) || v.length !== shape[depth]) {
    throw new ArrayFileError(file, `${where || "the array"} is ${Array.isArray(v) ? `a list of ${v.length}` : typeof v}, where ${shape[depth]} values were expected (the lists are not rectangular)`);
  }
  for (let i = 0; i < v.length; i++) nested(file, v[i], shape, depth + 1, out, `${where}[${i}]`);
}

function shapeOf(v) {
  const shape = [];
  for (let x = v; Array.isArray(x); x = x[0]) shape.push(x.length);
  return shape;
}

function jsonArray(file, v, shape, where = "") {
  const want = shape ?? shapeOf(v);
  const flat = [];
  if (shape && !Array.isArray(v?.[0]) && Array.isArray(v)) {
    if (v.length !== product(shape)) throw new ArrayFileError(file, `data has ${v.length} values, shape [${shape}] needs ${product(shape)}`);
    nested(file, v, [v.length], 0, flat, "data");
  } else nested(file, v, want, 0, flat, where);
  if (flat.length > MAX_VALUES) throw new ArrayFileError(file, `holds ${flat.length} values: more than ${MAX_VALUES} is too many to draw`);
  return { dtype: "float64", shape: want, data: Float64Array.from(flat) };
}

/** A JSON file's array (nested lists, or { shape, data, tokens? }): { dtype: "float64", shape, data, tokens? }. */
export function parseAttentionJSON(text, opts) {
  const file = fileName("parseAttentionJSON", opts);
  if (typeof text !== "string") text = new TextDecoder().decode(asBytes("parseAttentionJSON", text));
  let v;
  try { v = JSON.parse(text); } catch (err) { throw new ArrayFileError(file, `is not valid JSON (${err.message})`); }
  if (Array.isArray(v)) return jsonArray(file, v, null);
  if (!v || typeof v !== "object" || !("data" in v)) throw new ArrayFileError(file, "holds neither a list of lists of numbers nor an object with data (and shape)");
  if (v.shape !== undefined && (!Array.isArray(v.shape) || !v.shape.every((d) => Number.isInteger(d) && d >= 0))) {
    throw new ArrayFileError(file, `shape must be a list of whole numbers (got ${JSON.stringify(v.shape).slice(0, 40)})`);
  }
  const arr = v.shape !== undefined && !Array.isArray(v.data?.[0]) ? jsonArray(file, v.data, v.shape) : jsonArray(file, v.data, null, "data");
  if (v.shape !== undefined && arr.shape.join() !== v.shape.join()) throw new ArrayFileError(file, `data has shape [${arr.shape}], not the shape [${v.shape}] it declares`);
  if (v.tokens !== undefined) arr.tokens = checkLabels(file, v.tokens, "tokens");
  return arr;
}

// ------------------------------------------------------------------ any file, labels
/** A file's arrays, its format told by its first bytes: a Promise of a Map name -> array. */
export async function readArrays(bytes, opts) {
  const b = asBytes("readArrays", bytes), file = fileName("readArrays", opts);
  if (b.length === 0) throw new ArrayFileError(file, "is empty");
  if (b[0] === 0x93 && b[1] === 0x4e) return new Map([["array", parseNpy(b, { name: file })]]);
  if (b[0] === 0x50 && b[1] === 0x4b) return parseNpz(b, { name: file });
  // safetensors: a little-endian u64 header length (below 4 GB: four zero bytes, never in JSON text), then "{"
  if (b.length >= 9 && b[4] === 0 && b[5] === 0 && b[6] === 0 && b[7] === 0 && b[8] === 0x7b) return parseSafetensors(b, { name: file });
  let i = 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09 || b[i] === 0xef || b[i] === 0xbb || b[i] === 0xbf)) i++;
  if (b[i] === 0x5b || b[i] === 0x7b) return new Map([["array", parseAttentionJSON(b, { name: file })]]);
  throw new ArrayFileError(file, "is none of .npy, .npz, safetensors or JSON (by its first bytes)");
}

function checkLabels(file, v, what) {
  if (!Array.isArray(v) || !v.every((t) => typeof t === "string" || typeof t === "number")) {
    throw new ArrayFileError(file, `${what} must be a list of strings`);
  }
  return v.map(String);
}

/** Token labels from a JSON list of strings, or a text file with one per line. */
export function parseLabels(text, opts) {
  const file = fileName("parseLabels", opts);
  if (typeof text !== "string") text = new TextDecoder().decode(asBytes("parseLabels", text));
  const t = text.replace(/^\uFEFF/, "");
  if (/^\s*\[/.test(t)) {
    let v;
    try { v = JSON.parse(t); } catch (err) { throw new ArrayFileError(file, `is not valid JSON (${err.message})`); }
    return checkLabels(file, v, "the labels");
  }
  const lines = t.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (!lines.length) throw new ArrayFileError(file, "holds no label");
  return lines;
}

// ------------------------------------------------------------------ one array as attention
function pickArray(file, arrays, key) {
  if (key) {
    if (!arrays.has(key)) throw new ArrayFileError(file, `has no array named "${key}" (it holds ${[...arrays.keys()].join(", ")})`);
    return [key, arrays.get(key)];
  }
  if (arrays.size === 1) return [...arrays][0];
  const list = [...arrays.keys()].join(", ");
  throw new ArrayFileError(file, `holds ${arrays.size} arrays (${list}): say which with key`);
}

const SHAPE_HELP = "(keys), (queries, keys), (heads, queries, keys) or (layers, heads, queries, keys)";

function attentionShape(file, shape) {
  if (shape.length === 0) throw new ArrayFileError(file, `is a single number, not attention: the shape must be ${SHAPE_HELP}`);
  if (shape.length > 4) {
    throw new ArrayFileError(file, `has shape (${shape.join(", ")}): ${shape.length} dimensions, at most 4: ${SHAPE_HELP} (a batch dimension? save one example, a[:, 0])`);
  }
  if (shape.some((d) => d === 0)) throw new ArrayFileError(file, `has shape (${shape.join(", ")}): an empty dimension`);
  return [...new Array(4 - shape.length).fill(1), ...shape];
}

/** Every value a number; -Infinity a masked score (never in weights); returns the values as float32. */
function checkValues(file, arr, values) {
  const { data } = arr, out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (Number.isNaN(v) || v === Infinity || (v === -Infinity && values === "weights")) {
      throw new ArrayFileError(file, `value ${i} (flat index) is ${v}: ${values === "weights" ? "weights must be finite" : "scores must be numbers (-Infinity: a masked key)"}`);
    }
    out[i] = v;
  }
  return out;
}

/** Each row of weights >= 0, summing to 1 (or all 0: a masked query), within the dtype's precision. */
function checkWeights(file, data, [L, H, Q, K], dtype) {
  const tol = (dtype === "float16" || dtype === "bfloat16" ? 2e-2 : 1e-3) * Math.max(1, Math.sqrt(K) / 4);
  for (let r = 0; r < L * H * Q; r++) {
    let sum = 0, neg = null;
    for (let j = 0; j < K; j++) { const v = data[r * K + j]; sum += v; if (v < 0 && neg === null) neg = v; }
    if (neg !== null || (sum !== 0 && Math.abs(sum - 1) > tol)) {
      const q = r % Q, h = Math.floor(r / Q) % H, l = Math.floor(r / (Q * H));
      const why = neg !== null ? `holds ${neg}, below 0` : `sums to ${sum.toPrecision(4)}, not 1`;
      throw new ArrayFileError(file, `is not attention weights: layer ${l + 1} head ${h + 1} query ${q + 1} ${why} (scores? set values to "scores")`);
    }
  }
}

/**
 * One array of a file's arrays as attention: { key, dtype, shape: [layers, heads, queries, keys],
 * data: Float32Array, values, tokens? }. key: which array (needed when there are several);
 * values: "weights" (each row on the simplex, checked) or "scores" (any numbers, -Infinity masked).
 */
export function toAttention(arrays, opts) {
  opts = opts ?? {};
  const file = fileName("toAttention", opts);
  if (!(arrays instanceof Map)) throw new TypeError("toAttention: arrays must be a Map (from readArrays, parseNpz or parseSafetensors)");
  const values = opts.values ?? "weights";
  if (values !== "weights" && values !== "scores") throw new RangeError(`toAttention: values must be "weights" or "scores" (got ${JSON.stringify(String(values)).slice(0, 30)})`);
  const [key, arr] = pickArray(file, arrays, opts.key);
  const where = arrays.size > 1 ? `${file}: ${key}` : file;
  const shape = attentionShape(where, arr.shape);
  const data = checkValues(where, arr, values);
  if (values === "weights") checkWeights(where, data, shape, arr.dtype);
  return { key, dtype: arr.dtype, shape, data, values, ...(arr.tokens ? { tokens: arr.tokens } : {}) };
}
