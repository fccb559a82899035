// arrays.d.ts - declarations of arrays.js ("simplexity/arrays"): the readers of attention files
// (.npy, .npz, safetensors, JSON) and token labels. Hand-written; tests/js/declarations.test.mjs
// checks them against the JS.

/** The float dtypes read (every float16 and bfloat16 value is exactly a float32). */
export type ArrayDtype = "float16" | "bfloat16" | "float32" | "float64";

/** One array of a file, in C order: data a Float64Array for float64, else a Float32Array. */
export interface NdArray {
  dtype: ArrayDtype;
  shape: number[];
  data: Float32Array | Float64Array;
  /** A JSON file's `tokens`, when it has them. */
  tokens?: string[];
}

/** What a reader takes: the file's bytes. */
type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;
/** The file's name, which every error message starts with (default "the file"). */
interface NameOption { name?: string }

/** A file that cannot be read: the message starts with the file's name and says what is wrong. */
export class ArrayFileError extends Error {
  constructor(file: string, message: string);
  readonly name: "ArrayFileError";
  /** The file's name. */
  readonly file: string;
}

/** A NumPy .npy file's array: float16, float32 or float64, either byte order, C or Fortran order (read into C order). */
export function parseNpy(bytes: Bytes, opts?: NameOption): NdArray;
/** A NumPy .npz file's arrays (stored or deflated members, each CRC-checked), by name without ".npy". */
export function parseNpz(bytes: Bytes, opts?: NameOption): Promise<Map<string, NdArray>>;
/** A safetensors file's tensors (F16, BF16, F32, F64), by name, in the header's order. */
export function parseSafetensors(bytes: Bytes, opts?: NameOption): Map<string, NdArray>;
/** A JSON array: nested lists of numbers, or { shape, data (flat or nested), tokens? }; dtype "float64". */
export function parseAttentionJSON(text: string | Bytes, opts?: NameOption): NdArray;
/** Any of the four formats, told apart by the first bytes: a Map name -> array (one entry "array" for .npy and JSON). */
export function readArrays(bytes: Bytes, opts?: NameOption): Promise<Map<string, NdArray>>;
/** Token labels: a JSON list of strings, or one a line. */
export function parseLabels(text: string | Bytes, opts?: NameOption): string[];

/** One array as attention: (layers, heads, queries, keys), float32. */
export interface Attention {
  key: string;
  dtype: ArrayDtype;
  shape: [number, number, number, number];
  data: Float32Array;
  values: "weights" | "scores";
  tokens?: string[];
}
/**
 * One array of `arrays` as attention, shaped (keys) ... (layers, heads, queries, keys). key: which
 * array (needed when there are several); values: "weights" (the default: each row >= 0 summing
 * to 1, or all 0) or "scores" (numbers; -Infinity a masked key).
 */
export function toAttention(arrays: Map<string, NdArray>, opts?: NameOption & { key?: string; values?: "weights" | "scores" }): Attention;

/** IEEE float16 bits -> its value, exactly. */
export function halfToFloat(bits: number): number;
/** CRC-32 (zip's) of bytes, unsigned. */
export function crc32(bytes: Uint8Array): number;
