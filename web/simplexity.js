// simplexity.js - the public ES module: sparse attention mappings onto the simplex, in wasm.
//
//   import { init, entmax } from "simplexity";
//   await init();
//   const p = entmax([1.5, 0, 1], { alpha: 1.5 });     // Float32Array [0.6..., 0, 0.3...]
//
// Reading order: errors, state and init, argument checks, the wasm heap (views, scratch,
// copies), the three call shapes (forward, backward, per-row reduction), the public functions.
//
// The boundary rules (docs/STYLE.md, docs/PERFORMANCE.md point 6):
// - JS validates every argument before crossing into wasm and throws TypeError/RangeError
//   naming the function, the argument and the bad value. NaN/+Infinity scores are found by the
//   C core; its status becomes a SimplexityError with .code (and .index for a bad element).
// - Inputs are copied into one grow-only scratch region of wasm memory, the C function writes
//   its result there, and the result is copied out only on success: on any error, opts.out is
//   untouched. Nothing is malloc'ed or freed per call.
// - memory.buffer is never touched on the hot path: one cached Float32Array view is rebuilt when
//   the module calls env.emscripten_notify_memory_growth (and, defensively, if it is detached).

import { loadWasm, hasSimd } from "./loader.js";
import { modelApi } from "./model.js";

// ------------------------------------------------------------------------- errors
/** A failure reported by the C core: `.code` is its status (1 invalid argument,
 *  2 non-finite value, 3 out of memory); `.index` the flat index of the bad element. */
export class SimplexityError extends Error {
  constructor(message, code, index) {
    super(message);
    this.name = "SimplexityError";
    this.code = code;
    if (index !== undefined && index >= 0) this.index = index;
  }
}

const SX_ENOMEM = 3;

/** A value as an error message shows it: numbers as JS prints them, strings quoted. */
function show(v) {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? v.slice(0, 40) + "..." : v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "number" || typeof v === "boolean" || v == null) return String(v);
  if (typeof v === "function") return "a function";
  if (Array.isArray(v)) return "an Array";
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return `an object (${Object.prototype.toString.call(v).slice(8, -1)})`;
}

// ------------------------------------------------------------------ state and init
let wasm = null;         // the instance's exports, null until init() resolves
let memory = null;       // its WebAssembly.Memory
let heap = new Float32Array(0); // cached view over memory.buffer, rebuilt on growth
let heapI32 = new Int32Array(0); // the same bytes as int32 and as bytes (model.js: tokens,
let heapU8 = new Uint8Array(0);  // checkpoints, strings)
let build = null;        // { simd, abi }
let initPromise = null;  // the memoised init() promise
let initSimd;            // the build the pending/finished init() chose
let scratchPtr = 0;      // byte address of the scratch region (sx_malloc), 0 when none
let scratchFloats = 0;   // its capacity in floats

function refreshHeap() {
  heap = new Float32Array(memory.buffer);
  heapI32 = new Int32Array(memory.buffer);
  heapU8 = new Uint8Array(memory.buffer);
}

/**
 * Load and initialise the wasm module. Idempotent: every call returns the same promise.
 * A failed init() (e.g. HTTP 404 for the .wasm) can be retried by calling init() again.
 * `bytes` gives the module's bytes instead of a file to fetch (the single-file widget bundle
 * inlines them): they must be the build `simd` names (or the probed one when simd is omitted).
 * @param {{ simd?: boolean, url?: string | URL, bytes?: ArrayBuffer | ArrayBufferView }} [options]
 */
export function init(options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object") {
    return Promise.reject(new TypeError(`init: options must be an object (got ${show(options)})`));
  }
  const { simd, url, bytes } = options;
  if (simd !== undefined && typeof simd !== "boolean") {
    return Promise.reject(new TypeError(`init: simd must be true, false or undefined (got ${show(simd)})`));
  }
  if (url !== undefined && typeof url !== "string" && !(url instanceof URL)) {
    return Promise.reject(new TypeError(`init: url must be a string or a URL (got ${show(url)})`));
  }
  if (bytes !== undefined && !(bytes instanceof ArrayBuffer) && !ArrayBuffer.isView(bytes)) {
    return Promise.reject(new TypeError(`init: bytes must be an ArrayBuffer or a typed array (got ${show(bytes)})`));
  }
  if (bytes !== undefined && url !== undefined) {
    return Promise.reject(new TypeError("init: pass url or bytes, not both"));
  }
  if (initPromise !== null) {
    if (simd !== undefined && simd !== initSimd) {
      const had = initSimd ? "SIMD" : "scalar";
      return Promise.reject(new Error(
        `init: simplexity is already initialised with the ${had} build; ` +
        `init({ simd: ${simd} }) must be the first call to init()`));
    }
    return initPromise;
  }
  initSimd = simd === undefined ? hasSimd() : simd;
  initPromise = loadWasm({ simd: bytes === undefined ? initSimd : simd, url, bytes, onMemoryGrowth: () => refreshHeap() }).then(
    (loaded) => {
      wasm = loaded.exports;
      memory = loaded.memory;
      initSimd = loaded.simd; // given bytes decide the build
      build = { simd: loaded.simd, abi: loaded.abi };
      refreshHeap();
      return info();
    },
    (err) => {
      initPromise = null; // let the caller retry
      throw err;
    },
  );
  return initPromise;
}

/** Which build is running, its ABI and the current size of its memory in bytes. */
export function info() {
  ready("info");
  return { simd: build.simd, abi: build.abi, memoryBytes: memory.buffer.byteLength };
}

function ready(fn) {
  if (wasm === null) {
    throw new Error(`${fn}: simplexity is not initialised yet: call \`await init()\` first`);
  }
}

// --------------------------------------------------------------- argument checks
const NO_OPTIONS = Object.freeze({});

function optionsArg(fn, opts) {
  ready(fn);
  if (opts === undefined || opts === null) return NO_OPTIONS;
  if (typeof opts !== "object") {
    throw new TypeError(`${fn}: options must be an object (got ${show(opts)})`);
  }
  return opts;
}

/** Length of an input array: Float32Array, Float64Array or an Array of numbers. */
function lengthOf(fn, name, x) {
  if (x instanceof Float32Array || Array.isArray(x) || x instanceof Float64Array) return x.length;
  throw new TypeError(
    `${fn}: ${name} must be a Float32Array or an array of numbers (got ${show(x)})`);
}

/** The row length n: an integer >= 1 dividing len; defaults to len (one row). */
function rowLength(fn, n, len, name) {
  if (n === undefined) return len > 0 ? len : 1;
  if (typeof n !== "number") throw new TypeError(`${fn}: n must be an integer >= 1 (got ${show(n)})`);
  if (!Number.isInteger(n) || n < 1 || n > 0x7fffffff) {
    throw new RangeError(`${fn}: n must be an integer >= 1 (got ${show(n)})`);
  }
  if (len % n !== 0) {
    throw new RangeError(`${fn}: ${name}.length (${len}) is not a multiple of n (${n})`);
  }
  return n;
}

function temperatureArg(fn, t) {
  if (t === undefined) return 1;
  if (typeof t !== "number") {
    throw new TypeError(`${fn}: temperature must be a number (got ${show(t)})`);
  }
  if (!(t > 0) || t === Infinity) {
    throw new RangeError(`${fn}: temperature must be finite and > 0 (got ${show(t)})`);
  }
  const f = Math.fround(t);
  if (f === 0 || f === Infinity) {
    throw new RangeError(
      `${fn}: temperature must be finite and > 0 in float32 (got ${show(t)}, which is ${f} in float32)`);
  }
  return t;
}

/** A numeric parameter >= min (or > min when strict), finite, with a default. */
function paramArg(fn, name, v, dflt, min, strict) {
  if (v === undefined) return dflt;
  if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be a number (got ${show(v)})`);
  if (strict ? !(v > min) : !(v >= min)) {
    throw new RangeError(`${fn}: ${name} must be ${strict ? ">" : ">="} ${min} (got ${show(v)})`);
  }
  if (v === Infinity || Math.fround(v) === Infinity) {
    throw new RangeError(`${fn}: ${name} must be finite (got ${show(v)})`);
  }
  return v;
}

/** opts.out: absent, or a Float32Array of exactly `len` elements. */
function outArg(fn, out, len, what) {
  if (out === undefined || out === null) return undefined;
  if (!(out instanceof Float32Array)) {
    throw new TypeError(`${fn}: out must be a Float32Array (got ${show(out)})`);
  }
  if (out.length !== len) {
    throw new RangeError(`${fn}: out.length (${out.length}) must equal ${what} (${len})`);
  }
  return out;
}

// ----------------------------------------------------------------- the wasm heap
// Everything a call needs sits in one scratch region: [result | x | dy], each segment rounded
// up to 4 floats (16 bytes) so SIMD loads stay aligned.
const MAX_FLOATS = Math.floor(0x7fffffff / 4); // sx_malloc takes an int byte count

function pad4(len) {
  return len + (-len & 3);
}

/** Float offset (into `heap`) of a scratch region of at least `floats` floats. */
function scratch(fn, floats) {
  if (floats > scratchFloats) growScratch(fn, floats);
  if (heap.length === 0) refreshHeap(); // defensive: a view over a detached buffer
  return scratchPtr >>> 2;
}

function growScratch(fn, floats) {
  if (floats > MAX_FLOATS) {
    throw new RangeError(
      `${fn}: input too large: it needs ${floats * 4} bytes of wasm memory, more than the ` +
      `2 GiB a wasm32 module can address`);
  }
  // Grow-only, doubling, so a mix of sizes settles after a few calls. The old region is freed
  // first so the allocator can extend it in place.
  const want = Math.max(floats, Math.min(2 * scratchFloats, MAX_FLOATS), 256);
  if (scratchPtr !== 0) wasm.sx_free(scratchPtr);
  scratchPtr = 0;
  scratchFloats = 0;
  let ptr = wasm.sx_malloc(want * 4) >>> 0;
  let got = want;
  if (ptr === 0 && want > floats) {
    ptr = wasm.sx_malloc(floats * 4) >>> 0;
    got = floats;
  }
  if (ptr === 0) {
    throw new SimplexityError(
      `${fn}: out of wasm memory: cannot allocate ${floats * 4} bytes of scratch`, SX_ENOMEM);
  }
  scratchPtr = ptr;
  scratchFloats = got;
}

/** Copy an input into heap[at ...]. Arrays are checked element by element. */
function copyIn(fn, name, x, at, len) {
  const h = heap;
  if (x instanceof Float32Array) {
    if (len <= 16) for (let i = 0; i < len; i++) h[at + i] = x[i];
    else h.set(x, at);
  } else if (Array.isArray(x)) {
    for (let i = 0; i < len; i++) {
      const v = x[i];
      if (typeof v !== "number") {
        throw new TypeError(`${fn}: ${name}[${i}] must be a number (got ${show(v)})`);
      }
      h[at + i] = v;
    }
  } else {
    h.set(x, at); // Float64Array: converted to float32
  }
}

/** Copy heap[at ... at+len) to `out`, or to a new Float32Array. */
function copyOut(out, at, len) {
  const h = heap;
  if (out === undefined) {
    if (len > 16) return h.slice(at, at + len);
    out = new Float32Array(len);
    for (let i = 0; i < len; i++) out[i] = h[at + i];
    return out;
  }
  if (len <= 64) for (let i = 0; i < len; i++) out[i] = h[at + i];
  else out.set(h.subarray(at, at + len));
  return out;
}

/** The C core's last failure as a SimplexityError: "<fn>: <C detail>". */
function coreError(fn, status) {
  const bytes = new Uint8Array(memory.buffer);
  let p = wasm.sx_last_error() >>> 0;
  let detail = "";
  while (p < bytes.length && bytes[p] !== 0 && detail.length < 512) detail += String.fromCharCode(bytes[p++]);
  if (detail === "") detail = `C status ${status}`;
  const index = status === 2 ? wasm.sx_last_error_index() : -1;
  return new SimplexityError(`${fn}: ${detail}`, status, index);
}

// --------------------------------------------------------------- the call shapes
// prepare*() validates, places the inputs in scratch and leaves the call's layout in the
// variables below; each public function then calls its own wasm export (one call site per
// export: a shared call site would be polymorphic and cost ~15 ns per call) and finish()es.
// Nothing re-enters between the two: wasm calls back into JS only to report memory growth.
let cOut;      // opts.out or undefined
let cAt = 0;   // float offset of the result in heap
let cLen = 0;  // result length
let cRows = 0; // rows
let cN = 1;    // row length
let cT = 1;    // temperature
let pRes = 0;  // byte addresses of the result, x and dy in wasm memory
let pX = 0;
let pDy = 0;

/** For out = mapping(x): rows * n in, rows * n out. */
function prepareForward(fn, x, opts) {
  const len = lengthOf(fn, "x", x);
  const n = rowLength(fn, opts.n, len, "x");
  const t = temperatureArg(fn, opts.temperature);
  const out = outArg(fn, opts.out, len, "x.length");
  const seg = pad4(len);
  const at = scratch(fn, 2 * seg);
  copyIn(fn, "x", x, at + seg, len);
  cOut = out; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
}

/** For dx = J(x)^T dy: x and dy rows * n in, rows * n out. */
function prepareBackward(fn, x, dy, opts) {
  const len = lengthOf(fn, "x", x);
  const n = rowLength(fn, opts.n, len, "x");
  const dyLen = lengthOf(fn, "dy", dy);
  if (dyLen !== len) {
    throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
  }
  const t = temperatureArg(fn, opts.temperature);
  const out = outArg(fn, opts.out, len, "x.length");
  const seg = pad4(len);
  const at = scratch(fn, 3 * seg);
  copyIn(fn, "x", x, at + seg, len);
  copyIn(fn, "dy", dy, at + 2 * seg, len);
  cOut = out; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
  pDy = (at + 2 * seg) << 2;
}

/** The C status to an error, or the result copied out of scratch. */
function finish(fn, status) {
  if (status !== 0) throw coreError(fn, status);
  return copyOut(cOut, cAt, cLen);
}

// ------------------------------------------------------------------- the mappings
// An empty x never reaches wasm: `cLen === 0 ? 0 : call`.

/** softmax: exp(x/T - max) / sum. Dense. */
export function softmax(x, opts) {
  prepareForward("softmax", x, optionsArg("softmax", opts));
  return finish("softmax", cLen === 0 ? 0 : wasm.sx_softmax(pRes, pX, cRows, cN, cT));
}

/** sparsemax: Euclidean projection of x/T onto the simplex. */
export function sparsemax(x, opts) {
  prepareForward("sparsemax", x, optionsArg("sparsemax", opts));
  return finish("sparsemax", cLen === 0 ? 0 : wasm.sx_sparsemax(pRes, pX, cRows, cN, cT));
}

/** 1.5-entmax, exact (the closed-form threshold on the support). */
export function entmax15(x, opts) {
  prepareForward("entmax15", x, optionsArg("entmax15", opts));
  return finish("entmax15", cLen === 0 ? 0 : wasm.sx_entmax15(pRes, pX, cRows, cN, cT));
}

/** alpha-entmax, alpha >= 1 (default 1.5): softmax at 1, sparsemax at 2. */
export function entmax(x, opts) {
  const o = optionsArg("entmax", opts);
  const alpha = paramArg("entmax", "alpha", o.alpha, 1.5, 1, false);
  prepareForward("entmax", x, o);
  return finish("entmax", cLen === 0 ? 0 : wasm.sx_entmax(pRes, pX, cRows, cN, alpha, cT));
}

/** fusedmax: sparsemax(prox_TV(x/T; lambda)), lambda >= 0 (default 1). */
export function fusedmax(x, opts) {
  const o = optionsArg("fusedmax", opts);
  const lambda = paramArg("fusedmax", "lambda", o.lambda, 1, 0, false);
  prepareForward("fusedmax", x, o);
  return finish("fusedmax", cLen === 0 ? 0 : wasm.sx_fusedmax(pRes, pX, cRows, cN, lambda, cT));
}

/** oscarmax: simplex-constrained OSCAR, beta >= 0 (default 1). */
export function oscarmax(x, opts) {
  const o = optionsArg("oscarmax", opts);
  const beta = paramArg("oscarmax", "beta", o.beta, 1, 0, false);
  prepareForward("oscarmax", x, o);
  return finish("oscarmax", cLen === 0 ? 0 : wasm.sx_oscarmax(pRes, pX, cRows, cN, beta, cT));
}

// ------------------------------------------------------------- backward passes
export function softmaxBackward(x, dy, opts) {
  const fn = "softmaxBackward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts));
  return finish(fn, cLen === 0 ? 0 : wasm.sx_softmax_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function sparsemaxBackward(x, dy, opts) {
  const fn = "sparsemaxBackward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts));
  return finish(fn, cLen === 0 ? 0 : wasm.sx_sparsemax_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function entmax15Backward(x, dy, opts) {
  const fn = "entmax15Backward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts));
  return finish(fn, cLen === 0 ? 0 : wasm.sx_entmax15_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function entmaxBackward(x, dy, opts) {
  const fn = "entmaxBackward";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 1, false);
  prepareBackward(fn, x, dy, o);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_entmax_backward(pRes, pX, pDy, cRows, cN, alpha, cT));
}

export function fusedmaxBackward(x, dy, opts) {
  const fn = "fusedmaxBackward";
  const o = optionsArg(fn, opts);
  const lambda = paramArg(fn, "lambda", o.lambda, 1, 0, false);
  prepareBackward(fn, x, dy, o);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_fusedmax_backward(pRes, pX, pDy, cRows, cN, lambda, cT));
}

export function oscarmaxBackward(x, dy, opts) {
  const fn = "oscarmaxBackward";
  const o = optionsArg(fn, opts);
  const beta = paramArg(fn, "beta", o.beta, 1, 0, false);
  prepareBackward(fn, x, dy, o);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_oscarmax_backward(pRes, pX, pDy, cRows, cN, beta, cT));
}

// ------------------------------------------------------------ per-row reductions
/** d <dy, entmax(x; alpha)> / d alpha, one value per row. */
export function entmaxAlphaGrad(x, dy, opts) {
  const fn = "entmaxAlphaGrad";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 1, false);
  const len = lengthOf(fn, "x", x);
  const n = rowLength(fn, o.n, len, "x");
  const dyLen = lengthOf(fn, "dy", dy);
  if (dyLen !== len) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
  const t = temperatureArg(fn, o.temperature);
  const rows = len / n;
  const out = outArg(fn, o.out, rows, "the number of rows");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const rseg = pad4(rows);
  const seg = pad4(len);
  const at = scratch(fn, rseg + 2 * seg);
  copyIn(fn, "x", x, at + rseg, len);
  copyIn(fn, "dy", dy, at + rseg + seg, len);
  const st = wasm.sx_entmax_alpha_grad(at << 2, (at + rseg) << 2, (at + rseg + seg) << 2, rows, n, alpha, t);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(out, at, rows);
}

/** Tsallis alpha-entropy of each row of p (alpha > 0, default 1.5); Shannon at alpha = 1. */
export function tsallisEntropy(p, opts) {
  const fn = "tsallisEntropy";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 0, true);
  const len = lengthOf(fn, "p", p);
  const n = rowLength(fn, o.n, len, "p");
  const rows = len / n;
  const out = outArg(fn, o.out, rows, "the number of rows");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const rseg = pad4(rows);
  const at = scratch(fn, rseg + pad4(len));
  copyIn(fn, "p", p, at + rseg, len);
  const st = wasm.sx_tsallis_entropy(at << 2, (at + rseg) << 2, rows, n, alpha);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(out, at, rows);
}

// ---------------------------------------------------------------------- attention
/**
 * The mapping option of attention() and attentionPooling(): its name (default "softmax", one of
 * `table`'s keys) and its parameter (alpha of "entmax", default 1.5; lambda of "fusedmax",
 * default 1; 0 otherwise). alpha or lambda given for another mapping is an error, not ignored.
 */
function mappingArg(fn, o, table) {
  const mapping = o.mapping === undefined ? "softmax" : o.mapping;
  if (typeof mapping !== "string") {
    throw new TypeError(`${fn}: mapping must be a string (got ${show(mapping)})`);
  }
  if (!Object.hasOwn(table, mapping)) {
    throw new RangeError(`${fn}: mapping must be one of ${Object.keys(table).map((m) => `"${m}"`).join(", ")} (got ${show(mapping)})`);
  }
  if (o.alpha !== undefined && mapping !== "entmax") {
    throw new RangeError(`${fn}: alpha applies to mapping "entmax" only (mapping is "${mapping}")`);
  }
  if (o.lambda !== undefined && mapping !== "fusedmax") {
    throw new RangeError(`${fn}: lambda applies to mapping "fusedmax" only (mapping is "${mapping}")`);
  }
  const param = mapping === "entmax" ? paramArg(fn, "alpha", o.alpha, 1.5, 1, false)
    : mapping === "fusedmax" ? paramArg(fn, "lambda", o.lambda, 1, 0, false) : 0;
  return { mapping, param };
}

// The mapping codes of sx_attention: SX_MAP_* in simplexity.h (4, learned alpha, is for models).
const ATTN_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3, fusedmax: 5 };

/** A size option: an integer in [min, 2^31 - 1]; `dflt` undefined makes it required. */
function sizeArg(fn, name, v, dflt, min, what) {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== "number") {
    throw new TypeError(`${fn}: ${name} (${what}) must be an integer >= ${min} (got ${show(v)})`);
  }
  if (!Number.isInteger(v) || v < min || v > 0x7fffffff) {
    throw new RangeError(`${fn}: ${name} (${what}) must be an integer >= ${min} (got ${show(v)})`);
  }
  return v;
}

/**
 * Multi-head scaled dot-product attention of already-projected queries, keys and values:
 * per batch element and head, out = mapping(q k^T / sqrt(dh)) v. q is (batch, tq, width), k and
 * v (batch, tk, width), width = heads * dh with the heads side by side; out has q's shape.
 * With opts.weights (true, or a Float32Array of batch * heads * tq * tk) returns
 * { out, weights } with the weights (batch, heads, tq, tk); otherwise the out Float32Array.
 */
export function attention(q, k, v, opts) {
  const fn = "attention";
  const o = optionsArg(fn, opts);
  const qLen = lengthOf(fn, "q", q);
  const kLen = lengthOf(fn, "k", k);
  const vLen = lengthOf(fn, "v", v);
  const heads = sizeArg(fn, "heads", o.heads, 1, 1, "the number of heads");
  const batch = sizeArg(fn, "batch", o.batch, 1, 1, "the number of batch elements");
  const tq = sizeArg(fn, "tq", o.tq, undefined, 1, "queries per batch element");
  if (qLen === 0 || qLen % (batch * tq) !== 0) {
    throw new RangeError(`${fn}: q.length (${qLen}) must be a non-zero multiple of batch * tq (${batch} * ${tq})`);
  }
  const width = qLen / (batch * tq);
  if (width % heads !== 0) {
    throw new RangeError(`${fn}: the width of q, q.length / (batch * tq) = ${width}, is not a multiple of heads (${heads})`);
  }
  let tk;
  if (o.tk === undefined) {
    if (kLen === 0 || kLen % (batch * width) !== 0) {
      throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of batch * width (${batch} * ${width})`);
    }
    tk = kLen / (batch * width);
  } else {
    tk = sizeArg(fn, "tk", o.tk, undefined, 1, "keys per batch element");
    if (kLen !== batch * tk * width) {
      throw new RangeError(`${fn}: k.length (${kLen}) must equal batch * tk * width (${batch} * ${tk} * ${width} = ${batch * tk * width})`);
    }
  }
  if (vLen !== kLen) throw new RangeError(`${fn}: v.length (${vLen}) must equal k.length (${kLen})`);

  const { mapping, param } = mappingArg(fn, o, ATTN_MAPPINGS);
  if (o.causal !== undefined && typeof o.causal !== "boolean") {
    throw new TypeError(`${fn}: causal must be true or false (got ${show(o.causal)})`);
  }
  const lens = o.keyLengths;
  if (lens !== undefined) {
    if (!Array.isArray(lens) && !(lens instanceof Int32Array)) {
      throw new TypeError(`${fn}: keyLengths must be an Array or an Int32Array of batch (${batch}) integers (got ${show(lens)})`);
    }
    if (lens.length !== batch) {
      throw new RangeError(`${fn}: keyLengths.length (${lens.length}) must equal batch (${batch})`);
    }
    for (let b = 0; b < batch; b++) {
      const n = lens[b];
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > tk) {
        throw new RangeError(`${fn}: keyLengths[${b}] must be an integer in [0, tk = ${tk}] (got ${show(n)})`);
      }
    }
  }
  const out = outArg(fn, o.out, qLen, "q.length");
  const wLen = batch * heads * tq * tk;
  let weights = o.weights;
  if (weights === true) weights = new Float32Array(wLen);
  else if (weights === undefined || weights === false) weights = undefined;
  else if (!(weights instanceof Float32Array)) {
    throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
  } else if (weights.length !== wLen) {
    throw new RangeError(`${fn}: weights.length (${weights.length}) must equal batch * heads * tq * tk (${wLen})`);
  }

  // scratch: [out | weights | q | k | v | keyLengths]
  const oSeg = pad4(qLen), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(kLen);
  const lSeg = lens === undefined ? 0 : pad4(batch);
  const at = scratch(fn, oSeg + wSeg + oSeg + 2 * kSeg + lSeg);
  const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg, lAt = vAt + kSeg;
  copyIn(fn, "q", q, qAt, qLen);
  copyIn(fn, "k", k, kAt, kLen);
  copyIn(fn, "v", v, vAt, kLen);
  if (lens !== undefined) {
    if (heapI32.length === 0) refreshHeap();
    for (let b = 0; b < batch; b++) heapI32[lAt + b] = lens[b];
  }
  const st = wasm.sx_attention(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, vAt << 2,
    lens === undefined ? 0 : lAt << 2, batch, tq, tk, heads, width / heads, ATTN_MAPPINGS[mapping],
    param, o.causal ? 1 : 0);
  if (st !== 0) throw coreError(fn, st);
  const result = copyOut(out, at, qLen);
  if (weights === undefined) return result;
  copyOut(weights, at + oSeg, wLen);
  return { out: result, weights };
}

// ------------------------------------------------------------- span and pooling
/** A required number: finite, >= min (or > min when strict), and non-zero in float32 if strict. */
function requiredNumber(fn, name, v, min, strict) {
  if (v === undefined) throw new TypeError(`${fn}: ${name} must be a number (got undefined)`);
  const x = paramArg(fn, name, v, undefined, min, strict);
  if (strict && Math.fround(x) === 0) {
    throw new RangeError(`${fn}: ${name} must be > ${min} in float32 (got ${show(v)}, which is 0 in float32)`);
  }
  return x;
}

/** The adaptive span's soft mask m = clamp((ramp + z - d) / ramp, 0, 1) of each distance d. */
export function spanMask(distances, opts) {
  const fn = "spanMask";
  const o = optionsArg(fn, opts);
  const len = lengthOf(fn, "distances", distances);
  const z = requiredNumber(fn, "z", o.z, 0, false);
  const ramp = requiredNumber(fn, "ramp", o.ramp, 0, true);
  const maxSpan = o.maxSpan === undefined ? 0 : requiredNumber(fn, "maxSpan", o.maxSpan, 0, true);
  const out = outArg(fn, o.out, len, "distances.length");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const seg = pad4(len);
  const at = scratch(fn, 2 * seg);
  copyIn(fn, "distances", distances, at + seg, len);
  const st = wasm.sx_span_mask(at << 2, (at + seg) << 2, len, z, ramp, maxSpan);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(out, at, len);
}

// The kernels of attention pooling: SX_MAP_* in simplexity.h, as for attention.
const POOL_MAPPINGS = ATTN_MAPPINGS;
const POOL_MAX_WEIGHTS = Math.floor(0x7fffffff / 32); // the C core's bound on nq * nk

/** Checks the arguments shared by attentionPooling and its backward pass. */
function poolArgs(fn, queries, keys, values, o) {
  const nq = lengthOf(fn, "queries", queries);
  const nk = lengthOf(fn, "keys", keys);
  const nv = lengthOf(fn, "values", values);
  if (nk === 0) throw new RangeError(`${fn}: keys must not be empty`);
  if (nv !== nk) throw new RangeError(`${fn}: values.length (${nv}) must equal keys.length (${nk})`);
  if (nq * nk > POOL_MAX_WEIGHTS) {
    throw new RangeError(`${fn}: queries.length * keys.length (${nq} * ${nk}) is more than ${POOL_MAX_WEIGHTS} weights`);
  }
  let w = 1;
  if (o.w !== undefined) {
    if (typeof o.w !== "number") throw new TypeError(`${fn}: w must be a number (got ${show(o.w)})`);
    if (!Number.isFinite(o.w) || !Number.isFinite(Math.fround(o.w))) {
      throw new RangeError(`${fn}: w must be finite in float32 (got ${show(o.w)})`);
    }
    w = o.w;
  }
  const { mapping, param } = mappingArg(fn, o, POOL_MAPPINGS);
  const loo = o.leaveOneOut === undefined ? false : o.leaveOneOut;
  if (typeof loo !== "boolean") throw new TypeError(`${fn}: leaveOneOut must be true or false (got ${show(loo)})`);
  if (loo && nq !== nk) {
    throw new RangeError(`${fn}: leaveOneOut needs queries.length (${nq}) to equal keys.length (${nk}): the queries are the keys`);
  }
  return { nq, nk, w, kind: POOL_MAPPINGS[mapping], param, loo: loo ? 1 : 0 };
}

/**
 * Nadaraya-Watson attention pooling: out[i] = sum_j weights[i][j] values[j], each row of weights
 * the mapping of the scores -((queries[i] - keys[j]) w)^2 / 2 (a kernel regression with the
 * mapping as kernel). Returns { out, weights } (weights: queries.length rows of keys.length).
 */
export function attentionPooling(queries, keys, values, opts) {
  const fn = "attentionPooling";
  const o = optionsArg(fn, opts);
  const { nq, nk, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
  const out = outArg(fn, o.out, nq, "queries.length");
  const wLen = nq * nk;
  let weights = o.weights === undefined ? true : o.weights;
  if (weights === false) weights = null;
  else if (weights !== true && !(weights instanceof Float32Array)) {
    throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
  } else if (weights instanceof Float32Array && weights.length !== wLen) {
    throw new RangeError(`${fn}: weights.length (${weights.length}) must equal queries.length * keys.length (${wLen})`);
  }
  // scratch: [out | weights | queries | keys | values]
  const oSeg = pad4(nq), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(nk);
  const at = scratch(fn, 2 * oSeg + wSeg + 2 * kSeg);
  const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg;
  copyIn(fn, "queries", queries, qAt, nq);
  copyIn(fn, "keys", keys, kAt, nk);
  copyIn(fn, "values", values, vAt, nk);
  const st = nq === 0 ? 0 : wasm.sx_nw_pooling(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2,
    vAt << 2, nq, nk, w, kind, param, loo);
  if (st !== 0) throw coreError(fn, st);
  const result = copyOut(out, at, nq);
  if (weights === null) return { out: result, weights: null };
  return { out: result, weights: copyOut(weights === true ? undefined : weights, at + oSeg, wLen) };
}

/**
 * The gradient of attentionPooling wrt w: { dw } = d <dy, out> / d w, for dy one value per query
 * (dy = out - target gives the gradient of 1/2 ||out - target||^2). Same options as attentionPooling.
 */
export function attentionPoolingBackward(queries, keys, values, dy, opts) {
  const fn = "attentionPoolingBackward";
  const o = optionsArg(fn, opts);
  const { nq, nk, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
  const dyLen = lengthOf(fn, "dy", dy);
  if (dyLen !== nq) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal queries.length (${nq})`);
  if (nq === 0) return { dw: 0 };
  // scratch: [dw | queries | keys | values | dy]
  const qSeg = pad4(nq), kSeg = pad4(nk);
  const at = scratch(fn, 4 + 2 * qSeg + 2 * kSeg);
  const qAt = at + 4, kAt = qAt + qSeg, vAt = kAt + kSeg, dAt = vAt + kSeg;
  copyIn(fn, "queries", queries, qAt, nq);
  copyIn(fn, "keys", keys, kAt, nk);
  copyIn(fn, "values", values, vAt, nk);
  copyIn(fn, "dy", dy, dAt, nq);
  const st = wasm.sx_nw_pooling_backward(at << 2, dAt << 2, qAt << 2, kAt << 2, vAt << 2, nq, nk, w, kind, param, loo);
  if (st !== 0) throw coreError(fn, st);
  return { dw: heap[at] };
}

// ------------------------------------------------------- the model and the tasks
// model.js holds no state: it gets this instance's wasm, views and scratch through `core`.
// The view getters re-check for a detached buffer, so a view is never kept across a call.
const core = {
  ready(fn) {
    ready(fn);
    return wasm;
  },
  f32() {
    if (heap.length === 0) refreshHeap();
    return heap;
  },
  i32() {
    if (heapI32.length === 0) refreshHeap();
    return heapI32;
  },
  u8() {
    if (heapU8.length === 0) refreshHeap();
    return heapU8;
  },
  /** Byte address of a scratch region of at least `bytes` bytes (16-byte aligned). */
  scratch(fn, bytes) {
    return scratch(fn, Math.max(1, Math.ceil(bytes / 4))) << 2;
  },
  coreError,
  show,
  SimplexityError,
};

/** The tiny encoder-decoder Transformer (see model.js and the README's Model section). */
export const { Model, tasks } = modelApi(core);
