// simplexity.js - the public ES module: sparse attention mappings onto the simplex, in wasm.
//
//   import { init, entmax } from "simplexity";
//   await init();
//   const p = entmax([1.5, 0, 1], { alpha: 1.5 });     // Float32Array [0.6..., 0, 0.3...]
//
// Reading order: errors, typed arrays, state and init, argument checks, the wasm heap (views,
// scratch, reading Arrays, copies), the three call shapes (forward, backward, per-row
// reduction), the public functions.
//
// The boundary rules (docs/STYLE.md, docs/PERFORMANCE.md point 6):
// - JS validates every argument before crossing into wasm and throws TypeError/RangeError
//   naming the function, the argument and the bad value. NaN/+Infinity scores are found by the
//   C core; its status becomes a SimplexityError with .code (and .index for a bad element).
// - Inputs are copied into one grow-only scratch region of wasm memory, the C function writes
//   its result there, and the result is copied out only on success: on any error, opts.out is
//   untouched. Nothing is malloc'ed or freed per call.
// - No user code runs once a call has taken a pointer into wasm memory: every argument is
//   checked, sized (a call's bytes computed in double, with the core's temporaries) and read
//   first. A typed array must be a real one (ArrayBuffer.isView: a Proxy passes instanceof,
//   not that), so its reads run no user code; an Array's elements (where getters and Proxy
//   traps run, and may call this module again) are read into JS-owned memory before anything
//   is copied into wasm memory. A rejected call never grows wasm memory for its inputs.
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
  const t = typedName(v);
  if (t !== undefined) return `a ${t}`;
  if (ArrayBuffer.isView(v)) return "a DataView";
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  if (/^(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array$/.test(tag)) {
    return `an object posing as a ${tag} (a Proxy?), not a typed array`;
  }
  return `an object (${tag})`;
}

// ------------------------------------------------------------------- typed arrays
// The %TypedArray%.prototype accessors, called on the object: they read its internal slots, so
// neither an own `length` property, a subclass getter nor a Proxy can answer for them.
const TypedArrayProto = Object.getPrototypeOf(Int8Array.prototype);
const taTag = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
const taLength = Object.getOwnPropertyDescriptor(TypedArrayProto, "length").get;
const taBuffer = Object.getOwnPropertyDescriptor(TypedArrayProto, "buffer").get;
const taSet = TypedArrayProto.set;

/** "Float32Array", "Int32Array"... for a real typed array; undefined for anything else. */
function typedName(v) {
  return taTag.call(v);
}

/** A real typed array's element count (0 once its buffer is detached). */
function typedLength(v) {
  return taLength.call(v);
}

/** True for an ArrayBuffer whose contents were transferred away (postMessage, structuredClone). */
function bufferDetached(b) {
  try {
    new Uint8Array(b, 0, 0); // a view of a detached buffer is a TypeError
    return false;
  } catch {
    return true;
  }
}

/** True for a real typed array over a detached buffer. Cheap to call only when its length is 0. */
function detached(v) {
  return typedName(v) !== undefined && typedLength(v) === 0 && bufferDetached(taBuffer.call(v));
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

// An input array's kind: the caller's Float32Array or Float64Array (copied as they are), or an
// Array (read element by element into JS memory first: see readArray).
const F32 = 0, F64 = 1, ARR = 2;
let inKind = F32; // inputArg's second result (like cOut below: no object per call)

/**
 * Length of an input array: Float32Array, Float64Array or an Array of numbers; sets inKind.
 * The hot path (a Float32Array) is kept small so that it is inlined: instanceof and isView (a
 * Proxy passes the first, not the second) and x.length. That length may lie (an own `length`
 * property, a subclass getter): copyIn copies up to 16 elements one by one up to it, and checks
 * it against the real element count before TypedArray.prototype.set copies them all.
 */
function inputArg(fn, name, x) {
  if (x instanceof Float32Array && ArrayBuffer.isView(x)) {
    const len = x.length;
    if (len === 0) emptyInput(fn, name, x);
    inKind = F32;
    return len;
  }
  return otherInput(fn, name, x);
}

/** An empty typed input: a TypeError if its buffer was detached (not an empty input). */
function emptyInput(fn, name, x) {
  if (detached(x)) throw new TypeError(`${fn}: ${name} is a detached ${typedName(x)}`);
}

/** inputArg for anything but a plain Float32Array. */
function otherInput(fn, name, x) {
  const t = typedName(x);
  if (t === "Float32Array" || t === "Float64Array") {
    const len = typedLength(x);
    if (len === 0) emptyInput(fn, name, x);
    inKind = t === "Float32Array" ? F32 : F64;
    return len;
  }
  if (Array.isArray(x)) {
    const len = x.length; // a Proxy's trap may run (and call us): nothing is taken yet
    if (len >>> 0 !== len) throw new TypeError(`${fn}: ${name}.length must be an integer >= 0 (got ${show(len)})`);
    inKind = ARR;
    return len;
  }
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
  // Fast for the common case; the full check (internal slots) for the rest, and above 64
  // elements, where copyOut uses TypedArray.prototype.set, which needs the real length.
  if (!(out instanceof Float32Array && ArrayBuffer.isView(out)) || out.length !== len || len === 0 || len > 64) {
    bufferArg(fn, "out", out, len, what);
  }
  return out;
}

/** An output buffer given by the caller: a (real, attached) Float32Array of `len` elements. */
function bufferArg(fn, name, out, len, what) {
  if (typedName(out) !== "Float32Array") {
    throw new TypeError(`${fn}: ${name} must be a Float32Array (got ${show(out)})`);
  }
  const n = typedLength(out);
  if (n === 0 && detached(out)) throw new TypeError(`${fn}: ${name} is a detached Float32Array`);
  if (n !== len) throw new RangeError(`${fn}: ${name}.length (${n}) must equal ${what} (${len})`);
  return out;
}

// ----------------------------------------------------------------- the wasm heap
// Everything a call needs sits in one scratch region: [result | x | dy], each segment rounded
// up to 4 floats (16 bytes) so SIMD loads stay aligned.
const MAX_FLOATS = Math.floor(0x7fffffff / 4); // sx_malloc takes an int byte count
// One call's wasm memory: its scratch plus the core's temporaries, computed in double before
// anything is allocated (the core sizes its temporaries in 32 bits: more would wrap).
const CALL_MAX_BYTES = 0x7fffffff;
const TOO_LARGE = "more than the 2 GiB a wasm32 module can address";
// Inputs above this many floats have their call's bytes checked (below it no call can pass
// CALL_MAX_BYTES: 4 segments of scratch and 96 bytes of temporaries per element at most).
const BIG_LEN = 1 << 24;

/** RangeError unless a call of `floats` scratch floats and `temp` bytes of core temporaries fits. */
function fitCall(fn, floats, temp) {
  const bytes = 4 * floats + temp;
  if (floats > MAX_FLOATS || bytes > CALL_MAX_BYTES) {
    throw new RangeError(`${fn}: input too large: it needs ${bytes} bytes of wasm memory, ${TOO_LARGE}`);
  }
}

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

// Array inputs are read into JS memory (checked: numbers only) before any pointer into wasm
// memory is taken. A call's Arrays of up to STAGE elements go to these reused buffers (one per
// argument), unless a read is already under way: a call made from inside an Array's getter or a
// Proxy's trap reads into new arrays, so it cannot overwrite what the outer call has read.
const STAGE = 256;
const stage0 = new Float32Array(STAGE);
const stage1 = new Float32Array(STAGE);
let staging = false; // a call is reading Arrays into stage0 / stage1

/**
 * The elements of Array x (len of them), checked, in a Float32Array: `buf` (a free stage) or a
 * new array, grown as the read goes (a hole found early costs little memory).
 */
function readArray(fn, name, x, len, buf) {
  if (buf === undefined) buf = newFloats(fn, Math.min(len, 1 << 16));
  let i = 0;
  for (;;) {
    const end = Math.min(len, buf.length);
    for (; i < end; i++) {
      const v = x[i];
      if (typeof v !== "number") badElement(fn, name, i, v);
      buf[i] = v;
    }
    if (i >= len) return buf;
    const grown = newFloats(fn, Math.min(len, 2 * buf.length));
    grown.set(buf);
    buf = grown;
  }
}

/** A JS Float32Array of len floats; a failed allocation names the function. */
function newFloats(fn, len) {
  try {
    return new Float32Array(len);
  } catch {
    throw new RangeError(`${fn}: out of JS memory: cannot allocate ${4 * len} bytes`);
  }
}

/** An Array input of a mapping, read into stage0 (or new memory when nested or long). */
function stageArray(fn, name, x, len) {
  if (staging || len > STAGE) return readArray(fn, name, x, len, undefined);
  staging = true;
  try {
    for (let i = 0; i < len; i++) { // readArray's loop, small enough to be inlined
      const v = x[i];
      if (typeof v !== "number") badElement(fn, name, i, v);
      stage0[i] = v;
    }
    return stage0;
  } finally {
    staging = false;
  }
}

function badElement(fn, name, i, v) {
  throw new TypeError(`${fn}: ${name}[${i}] must be a number (got ${show(v)})`);
}

let stagedDy; // stageArrays' second result
/** The x and dy of a backward pass, those that are Arrays read into stage0 / stage1 (or new memory). */
function stageArrays(fn, x, dy, kx, kd, len) {
  const own = !staging && len <= STAGE;
  if (own) staging = true;
  try {
    const xs = kx === ARR ? readArray(fn, "x", x, len, own ? stage0 : undefined) : x;
    stagedDy = kd === ARR ? readArray(fn, "dy", dy, len, own ? stage1 : undefined) : dy;
    return xs;
  } finally {
    if (own) staging = false;
  }
}

/** x as a Float32Array / Float64Array to copy: x itself, or (an Array) its elements read by readArray. */
function readIn(fn, name, x, kind, len) {
  return kind === ARR ? readArray(fn, name, x, len, undefined) : x;
}

/**
 * Copy len elements of src (the caller's Float32Array / Float64Array, measured at len, or
 * readArray's result: a stage or an array of exactly len) into heap[at ...]. Up to 16 (a stage:
 * 256) one by one, up to len; more with TypedArray.prototype.set, which copies every element src
 * has: so a caller's array must really have len (its length property may lie, and user code run
 * since it was measured, a getter or a Proxy trap of another argument, may have detached it).
 */
function copyIn(fn, name, src, at, len, kind) {
  const h = heap;
  if (kind === F64 || len > (kind === ARR ? STAGE : 16)) {
    if (kind !== ARR && typedLength(src) !== len) changed(fn, name, src, len);
    h.set(src, at); // Float64: to float32
  } else {
    for (let i = 0; i < len; i++) h[at + i] = src[i];
  }
}

/**
 * Copy heap[at ... at+len) to `out` (the caller's Float32Array, checked at len), or to a new
 * Float32Array. Above 64 elements with TypedArray.prototype.set (not out.set: that may be an own
 * property), after checking that out was not detached or shrunk meanwhile.
 */
function copyOut(fn, name, out, at, len) {
  const h = heap;
  if (out === undefined) {
    if (len > 16) return h.slice(at, at + len);
    out = new Float32Array(len);
    for (let i = 0; i < len; i++) out[i] = h[at + i];
    return out;
  }
  if (len <= 64) {
    for (let i = 0; i < len; i++) out[i] = h[at + i];
  } else {
    if (typedLength(out) !== len) changed(fn, name, out, len);
    taSet.call(out, h.subarray(at, at + len));
  }
  return out;
}

/** A typed array measured at `len` that has not `len` elements: detached since, or it lied. */
function changed(fn, name, a, len) {
  if (detached(a)) {
    throw new TypeError(`${fn}: ${name} changed during the call (it had ${len} elements and is now a detached ${typedName(a)})`);
  }
  throw new TypeError(`${fn}: ${name} has ${typedLength(a)} elements, but its length said ${len}`);
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
let pExtra = 0; // byte address of the `extra` floats after x (and dy): groupmax's group sizes

/**
 * For out = mapping(x): rows * n in, rows * n out. `temp`: bytes of core temporaries per element
 * of a row (the mapping's per-call scratch in C), for the size check of huge inputs.
 */
function prepareForward(fn, x, opts, temp, extra = 0) {
  const len = inputArg(fn, "x", x);
  const kind = inKind;
  const n = rowLength(fn, opts.n, len, "x");
  const t = temperatureArg(fn, opts.temperature);
  const out = outArg(fn, opts.out, len, "x.length");
  const seg = pad4(len);
  if (2 * seg + extra > scratchFloats || len > BIG_LEN) fitCall(fn, 2 * seg + extra, temp * n);
  const src = kind === ARR ? stageArray(fn, "x", x, len) : x;
  const at = scratch(fn, 2 * seg + extra);
  copyIn(fn, "x", src, at + seg, len, kind);
  cOut = out; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
  pExtra = (at + 2 * seg) << 2;
}

/** For dx = J(x)^T dy: x and dy rows * n in, rows * n out; `temp` as for prepareForward. */
function prepareBackward(fn, x, dy, opts, temp, extra = 0) {
  const len = inputArg(fn, "x", x);
  const kx = inKind;
  const n = rowLength(fn, opts.n, len, "x");
  const dyLen = inputArg(fn, "dy", dy);
  const kd = inKind;
  if (dyLen !== len) {
    throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
  }
  const t = temperatureArg(fn, opts.temperature);
  const out = outArg(fn, opts.out, len, "x.length");
  const seg = pad4(len);
  if (3 * seg + extra > scratchFloats || len > BIG_LEN) fitCall(fn, 3 * seg + extra, temp * n);
  let xs = x, ds = dy;
  if (kx === ARR || kd === ARR) {
    xs = stageArrays(fn, x, dy, kx, kd, len);
    ds = stagedDy;
  }
  const at = scratch(fn, 3 * seg + extra);
  copyIn(fn, "x", xs, at + seg, len, kx);
  copyIn(fn, "dy", ds, at + 2 * seg, len, kd);
  cOut = out; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
  pDy = (at + 2 * seg) << 2;
  pExtra = (at + 3 * seg) << 2;
}

/** The C status to an error, or the result copied out of scratch. */
function finish(fn, status) {
  if (status !== 0) throw coreError(fn, status);
  return copyOut(fn, "out", cOut, cAt, cLen);
}

// ------------------------------------------------------------------- the mappings
// An empty x never reaches wasm: `cLen === 0 ? 0 : call`.
// The core's temporaries per element of a row, in bytes (upper bounds; core/src): entmax's
// bisection keeps 24 bytes for each of 4 rows at once below alpha 2, for one row above (and in
// the backward pass and entmaxAlphaGrad); fusedmax 24 (+4 backward); oscarmax 48 (+4 backward).
// softmax, sparsemax and entmax15 (entmax at alpha 1, 1.5 and 2) take none.
const T_FUSEDMAX = 28, T_OSCARMAX = 52, T_ROW = 24;

function entmaxTemp(alpha, forward) {
  const a = Math.fround(alpha);
  if (a === 1 || a === 1.5 || a === 2) return 0;
  return forward && a < 2 ? 4 * T_ROW : T_ROW;
}

/** softmax: exp(x/T - max) / sum. Dense. */
export function softmax(x, opts) {
  prepareForward("softmax", x, optionsArg("softmax", opts), 0);
  return finish("softmax", cLen === 0 ? 0 : wasm.sx_softmax(pRes, pX, cRows, cN, cT));
}

/** sparsemax: Euclidean projection of x/T onto the simplex. */
export function sparsemax(x, opts) {
  prepareForward("sparsemax", x, optionsArg("sparsemax", opts), 0);
  return finish("sparsemax", cLen === 0 ? 0 : wasm.sx_sparsemax(pRes, pX, cRows, cN, cT));
}

/** 1.5-entmax, exact (the closed-form threshold on the support). */
export function entmax15(x, opts) {
  prepareForward("entmax15", x, optionsArg("entmax15", opts), 0);
  return finish("entmax15", cLen === 0 ? 0 : wasm.sx_entmax15(pRes, pX, cRows, cN, cT));
}

/** alpha-entmax, alpha >= 1 (default 1.5): softmax at 1, sparsemax at 2. */
export function entmax(x, opts) {
  const o = optionsArg("entmax", opts);
  const alpha = paramArg("entmax", "alpha", o.alpha, 1.5, 1, false);
  prepareForward("entmax", x, o, entmaxTemp(alpha, true));
  return finish("entmax", cLen === 0 ? 0 : wasm.sx_entmax(pRes, pX, cRows, cN, alpha, cT));
}

/** fusedmax: sparsemax(prox_TV(x/T; lambda)), lambda >= 0 (default 1). */
export function fusedmax(x, opts) {
  const o = optionsArg("fusedmax", opts);
  const lambda = paramArg("fusedmax", "lambda", o.lambda, 1, 0, false);
  prepareForward("fusedmax", x, o, T_FUSEDMAX);
  return finish("fusedmax", cLen === 0 ? 0 : wasm.sx_fusedmax(pRes, pX, cRows, cN, lambda, cT));
}

/** oscarmax: simplex-constrained OSCAR, beta >= 0 (default 1). */
export function oscarmax(x, opts) {
  const o = optionsArg("oscarmax", opts);
  const beta = paramArg("oscarmax", "beta", o.beta, 1, 0, false);
  prepareForward("oscarmax", x, o, T_OSCARMAX);
  return finish("oscarmax", cLen === 0 ? 0 : wasm.sx_oscarmax(pRes, pX, cRows, cN, beta, cT));
}

// -------------------------------------------------- beyond the simplex, for contrast
/** sigmoid: independent weights sigmoid(x/T), not on the simplex (a row does not sum to 1). */
export function sigmoid(x, opts) {
  prepareForward("sigmoid", x, optionsArg("sigmoid", opts), 0);
  return finish("sigmoid", cLen === 0 ? 0 : wasm.sx_sigmoid(pRes, pX, cRows, cN, cT));
}

/**
 * opts.groups of groupmax: contiguous group sizes (an Array or typed array of integers >= 1,
 * at least one), summing to opts.n when it is given; read into a JS Int32Array (no user code
 * runs once wasm memory is touched). Returns the options prepareForward reads, with n = the sum.
 */
function groupsArg(fn, o) {
  const g = o.groups;
  const t = typedName(g);
  if (!Array.isArray(g) && (t === undefined || t === "BigInt64Array" || t === "BigUint64Array")) {
    throw new TypeError(`${fn}: groups must be an array of group sizes, e.g. [2, 3, 1] (got ${show(g)})`);
  }
  const k = t === undefined ? g.length : typedLength(g);
  if (k === 0) throw new RangeError(`${fn}: groups must hold at least one group size (got an empty array)`);
  if (k > 0x7fffffff) throw new RangeError(`${fn}: groups has too many entries (${k})`);
  const sizes = new Int32Array(k);
  let sum = 0;
  for (let i = 0; i < k; i++) {
    const v = g[i];
    if (typeof v !== "number") throw new TypeError(`${fn}: groups[${i}] must be an integer >= 1 (got ${show(v)})`);
    if (!Number.isInteger(v) || v < 1 || v > 0x7fffffff) {
      throw new RangeError(`${fn}: groups[${i}] must be an integer >= 1 (got ${show(v)})`);
    }
    sizes[i] = v;
    sum += v;
  }
  if (sum > 0x7fffffff) throw new RangeError(`${fn}: groups must sum to n, at most 2^31 - 1 (got ${sum})`);
  if (o.n !== undefined) {
    rowLength(fn, o.n, o.n, "x"); // n's own checks (type, integer >= 1)
    if (sum !== o.n) throw new RangeError(`${fn}: groups must sum to n (got ${sum}, n = ${o.n})`);
  }
  groupSizes = sizes;
  return { n: sum, temperature: o.temperature, out: o.out };
}
let groupSizes = new Int32Array(0); // groupsArg's second result

/** Copies groupSizes to pExtra (after prepare*: nothing runs user code between). */
function placeGroups() {
  if (heapI32.buffer !== memory.buffer) refreshHeap();
  heapI32.set(groupSizes, pExtra >>> 2);
}

/**
 * groupmax: argmax over the simplex of <p, z> - 1/2 ||p||^2 - lambda sum_g ||p_g||_2, z = x/T,
 * groups the contiguous group sizes (summing to n), lambda >= 0 (default 1; 0 is sparsemax).
 */
export function groupmax(x, opts) {
  const fn = "groupmax";
  const o = optionsArg(fn, opts);
  const lambda = paramArg(fn, "lambda", o.lambda, 1, 0, false);
  const go = groupsArg(fn, o);
  const k = groupSizes.length;
  prepareForward(fn, x, go, 0, pad4(k));
  if (cLen === 0) return finish(fn, 0);
  placeGroups();
  return finish(fn, wasm.sx_groupmax(pRes, pX, cRows, cN, pExtra, k, lambda, cT));
}

// ------------------------------------------------------------- backward passes
export function softmaxBackward(x, dy, opts) {
  const fn = "softmaxBackward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts), 0);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_softmax_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function sparsemaxBackward(x, dy, opts) {
  const fn = "sparsemaxBackward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts), 0);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_sparsemax_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function entmax15Backward(x, dy, opts) {
  const fn = "entmax15Backward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts), 0);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_entmax15_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function entmaxBackward(x, dy, opts) {
  const fn = "entmaxBackward";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 1, false);
  prepareBackward(fn, x, dy, o, entmaxTemp(alpha, false));
  return finish(fn, cLen === 0 ? 0 : wasm.sx_entmax_backward(pRes, pX, pDy, cRows, cN, alpha, cT));
}

export function fusedmaxBackward(x, dy, opts) {
  const fn = "fusedmaxBackward";
  const o = optionsArg(fn, opts);
  const lambda = paramArg(fn, "lambda", o.lambda, 1, 0, false);
  prepareBackward(fn, x, dy, o, T_FUSEDMAX);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_fusedmax_backward(pRes, pX, pDy, cRows, cN, lambda, cT));
}

export function oscarmaxBackward(x, dy, opts) {
  const fn = "oscarmaxBackward";
  const o = optionsArg(fn, opts);
  const beta = paramArg(fn, "beta", o.beta, 1, 0, false);
  prepareBackward(fn, x, dy, o, T_OSCARMAX);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_oscarmax_backward(pRes, pX, pDy, cRows, cN, beta, cT));
}

export function sigmoidBackward(x, dy, opts) {
  const fn = "sigmoidBackward";
  prepareBackward(fn, x, dy, optionsArg(fn, opts), 0);
  return finish(fn, cLen === 0 ? 0 : wasm.sx_sigmoid_backward(pRes, pX, pDy, cRows, cN, cT));
}

export function groupmaxBackward(x, dy, opts) {
  const fn = "groupmaxBackward";
  const o = optionsArg(fn, opts);
  const lambda = paramArg(fn, "lambda", o.lambda, 1, 0, false);
  const go = groupsArg(fn, o);
  const k = groupSizes.length;
  prepareBackward(fn, x, dy, go, 0, pad4(k));
  if (cLen === 0) return finish(fn, 0);
  placeGroups();
  return finish(fn, wasm.sx_groupmax_backward(pRes, pX, pDy, cRows, cN, pExtra, k, lambda, cT));
}

// ------------------------------------------------------------ per-row reductions
/** d <dy, entmax(x; alpha)> / d alpha, one value per row. */
export function entmaxAlphaGrad(x, dy, opts) {
  const fn = "entmaxAlphaGrad";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 1, false);
  const len = inputArg(fn, "x", x);
  const kx = inKind;
  const n = rowLength(fn, o.n, len, "x");
  const dyLen = inputArg(fn, "dy", dy);
  const kd = inKind;
  if (dyLen !== len) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal x.length (${len})`);
  const t = temperatureArg(fn, o.temperature);
  const rows = len / n;
  const out = outArg(fn, o.out, rows, "the number of rows");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const rseg = pad4(rows);
  const seg = pad4(len);
  fitCall(fn, rseg + 2 * seg, T_ROW * n);
  const xs = readIn(fn, "x", x, kx, len);
  const ds = readIn(fn, "dy", dy, kd, len);
  const at = scratch(fn, rseg + 2 * seg);
  copyIn(fn, "x", xs, at + rseg, len, kx);
  copyIn(fn, "dy", ds, at + rseg + seg, len, kd);
  const st = wasm.sx_entmax_alpha_grad(at << 2, (at + rseg) << 2, (at + rseg + seg) << 2, rows, n, alpha, t);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, rows);
}

/** Tsallis alpha-entropy of each row of p (alpha > 0, default 1.5); Shannon at alpha = 1. */
export function tsallisEntropy(p, opts) {
  const fn = "tsallisEntropy";
  const o = optionsArg(fn, opts);
  const alpha = paramArg(fn, "alpha", o.alpha, 1.5, 0, true);
  const len = inputArg(fn, "p", p);
  const kind = inKind;
  const n = rowLength(fn, o.n, len, "p");
  const rows = len / n;
  const out = outArg(fn, o.out, rows, "the number of rows");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const rseg = pad4(rows);
  fitCall(fn, rseg + pad4(len), 0);
  const ps = readIn(fn, "p", p, kind, len);
  const at = scratch(fn, rseg + pad4(len));
  copyIn(fn, "p", ps, at + rseg, len, kind);
  const st = wasm.sx_tsallis_entropy(at << 2, (at + rseg) << 2, rows, n, alpha);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, rows);
}

// ------------------------------------------------------------ Jacobian and threshold
// The mapping codes of sx_jacobian / sx_threshold (SX_MAP_* in simplexity.h).
const JACOBIAN_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3, fusedmax: 5, oscarmax: 6, sigmoid: 7 };
const THRESHOLD_MAPPINGS = { softmax: 0, sparsemax: 1, entmax15: 2, entmax: 3 };
// The core's limit on rows * n * n (its bytes fit in an int32, as rows * n for the mappings).
const JACOBIAN_MAX = Math.floor(0x7fffffff / 4);
// Each mapping parameter and the mapping it belongs to.
const MAP_PARAMS = [["alpha", "entmax"], ["lambda", "fusedmax"], ["beta", "oscarmax"]];
// attention() and attentionPooling() have no oscarmax, and take no beta.
const ATTN_PARAMS = MAP_PARAMS.slice(0, 2);

/**
 * The mapping option of jacobian(), threshold(), attention() and attentionPooling(): its name
 * (default "softmax", one of `table`'s keys), its code (table's value) and its parameter (alpha of
 * "entmax", default 1.5; lambda of "fusedmax" and beta of "oscarmax", default 1, as the mapping
 * functions; 0 otherwise). A parameter of `params` given for another mapping is an error, not
 * ignored. `why(mapping)` adds to the message for a mapping outside `table`.
 */
function mappingArg(fn, o, table, params = MAP_PARAMS, why = () => "") {
  const mapping = o.mapping === undefined ? "softmax" : o.mapping;
  if (typeof mapping !== "string") {
    throw new TypeError(`${fn}: mapping must be a string (got ${show(mapping)})`);
  }
  if (!Object.hasOwn(table, mapping)) {
    throw new RangeError(`${fn}: mapping must be one of ${Object.keys(table).map((m) => `"${m}"`).join(", ")} (got ${show(mapping)})${why(mapping)}`);
  }
  for (const [name, owner] of params) {
    if (o[name] !== undefined && mapping !== owner) {
      throw new RangeError(`${fn}: ${name} applies to mapping "${owner}" only (mapping is "${mapping}")`);
    }
  }
  const param = mapping === "entmax" ? paramArg(fn, "alpha", o.alpha, 1.5, 1, false)
    : mapping === "fusedmax" ? paramArg(fn, "lambda", o.lambda, 1, 0, false)
    : mapping === "oscarmax" ? paramArg(fn, "beta", o.beta, 1, 0, false) : 0;
  return { code: table[mapping], mapping, param };
}

/** Why jacobian() refuses groupmax: its groups do not fit the (mapping, parameter) pair. */
const noJacobian = (mapping) => (mapping !== "groupmax" ? ""
  : ": groupmax's Jacobian is groupmaxBackward(x, e_j, { groups, lambda }) on each unit vector e_j (row j; it is symmetric)");

/** Why threshold() refuses fusedmax, oscarmax, sigmoid and groupmax. */
const noThreshold = (mapping) => (mapping === "sigmoid"
  ? ": sigmoid has no threshold (its weights are independent, p_i = sigmoid(x_i / T): no tau couples them)"
  : mapping === "groupmax" ? ": groupmax's tau does not threshold the scores (p_g = (1 - lambda / ||[z_g - tau]_+||)_+ [z_g - tau]_+)"
  : !Object.hasOwn(JACOBIAN_MAPPINGS, mapping) ? ""
  : `: ${mapping} has no threshold on the scores (its sparsemax thresholds ${mapping === "fusedmax" ? "prox_TV(x / T)" : "the pooled x / T"})`);

/**
 * The Jacobian dp/dx of the mapping at each row of x: rows * n * n floats, row r's block
 * J[r*n*n + i*n + j] = dp_i / dx_j (1/T included, so J^T dy is the backward pass). Masked
 * (-Infinity) entries have zero rows and columns.
 */
export function jacobian(x, opts) {
  const fn = "jacobian";
  const o = optionsArg(fn, opts);
  const { code, mapping, param } = mappingArg(fn, o, JACOBIAN_MAPPINGS, MAP_PARAMS, noJacobian);
  const len = inputArg(fn, "x", x);
  const kind = inKind;
  const n = rowLength(fn, o.n, len, "x");
  const t = temperatureArg(fn, o.temperature);
  const rows = len / n;
  const jlen = rows * n * n;
  if (jlen > JACOBIAN_MAX) {
    throw new RangeError(`${fn}: the Jacobian has rows * n * n = ${rows} * ${n} * ${n} = ${jlen} floats, more than ${JACOBIAN_MAX} (2 GiB of wasm memory)`);
  }
  const out = outArg(fn, o.out, jlen, "rows * n * n");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const jseg = pad4(jlen);
  const temp = mapping === "fusedmax" ? T_FUSEDMAX : mapping === "oscarmax" ? T_OSCARMAX
    : mapping === "entmax" ? entmaxTemp(param, true) : 0;
  fitCall(fn, jseg + pad4(len), (16 + temp) * n); // + 2 n doubles of the core's scratch
  const xs = readIn(fn, "x", x, kind, len);
  const at = scratch(fn, jseg + pad4(len));
  copyIn(fn, "x", xs, at + jseg, len, kind);
  const st = wasm.sx_jacobian(at << 2, (at + jseg) << 2, rows, n, code, param, t);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, jlen);
}

/**
 * The threshold tau of each row (rows floats), in units of z = x / T: sparsemax p = [z - tau]_+,
 * entmax p = [(alpha - 1) z - tau]_+^(1/(alpha-1)) (its line on the score axis: tau / (alpha - 1)),
 * softmax the log-sum-exp normaliser (p = exp(z - tau)). All-masked rows: +Infinity (softmax:
 * -Infinity).
 */
export function threshold(x, opts) {
  const fn = "threshold";
  const o = optionsArg(fn, opts);
  const { code, param } = mappingArg(fn, o, THRESHOLD_MAPPINGS, MAP_PARAMS, noThreshold);
  const len = inputArg(fn, "x", x);
  const kind = inKind;
  const n = rowLength(fn, o.n, len, "x");
  const t = temperatureArg(fn, o.temperature);
  const rows = len / n;
  const out = outArg(fn, o.out, rows, "the number of rows");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const rseg = pad4(rows);
  fitCall(fn, rseg + pad4(len), 4 * n);
  const xs = readIn(fn, "x", x, kind, len);
  const at = scratch(fn, rseg + pad4(len));
  copyIn(fn, "x", xs, at + rseg, len, kind);
  const st = wasm.sx_threshold(at << 2, (at + rseg) << 2, rows, n, code, param, t);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, rows);
}

// ---------------------------------------------------------------------- attention
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
 * opts.pattern ({ kind: "local" | "strided" | "fixed" | "lsh", ... }: see attentionPattern)
 * restricts each query to the pattern's keys; only those pairs are computed.
 */
export function attention(q, k, v, opts) {
  const fn = "attention";
  const o = optionsArg(fn, opts);
  const qLen = inputArg(fn, "q", q);
  const kq = inKind;
  const kLen = inputArg(fn, "k", k);
  const kk = inKind;
  const vLen = inputArg(fn, "v", v);
  const kv = inKind;
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
  const oTk = o.tk;
  if (oTk === undefined) {
    if (kLen === 0 || kLen % (batch * width) !== 0) {
      throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of batch * width (${batch} * ${width})`);
    }
    tk = kLen / (batch * width);
  } else {
    tk = sizeArg(fn, "tk", oTk, undefined, 1, "keys per batch element");
    if (kLen !== batch * tk * width) {
      throw new RangeError(`${fn}: k.length (${kLen}) must equal batch * tk * width (${batch} * ${tk} * ${width} = ${batch * tk * width})`);
    }
  }
  if (vLen !== kLen) throw new RangeError(`${fn}: v.length (${vLen}) must equal k.length (${kLen})`);

  const { mapping, param } = mappingArg(fn, o, ATTN_MAPPINGS, ATTN_PARAMS);
  const causal = o.causal;
  if (causal !== undefined && typeof causal !== "boolean") {
    throw new TypeError(`${fn}: causal must be true or false (got ${show(causal)})`);
  }
  const pattern = o.pattern === undefined ? undefined : patternArg(fn, o.pattern, tq, tk);
  const lens = o.keyLengths;
  let lensKind;
  if (lens !== undefined) {
    lensKind = typedName(lens);
    if (!Array.isArray(lens) && lensKind !== "Int32Array") {
      throw new TypeError(`${fn}: keyLengths must be an Array or an Int32Array of batch (${batch}) integers (got ${show(lens)})`);
    }
    const n = lensKind === "Int32Array" ? typedLength(lens) : lens.length;
    if (n === 0 && lensKind !== undefined && detached(lens)) throw new TypeError(`${fn}: keyLengths is a detached Int32Array`);
    if (n !== batch) {
      throw new RangeError(`${fn}: keyLengths.length (${n}) must equal batch (${batch})`);
    }
  }
  const out = outArg(fn, o.out, qLen, "q.length");
  const wLen = batch * heads * tq * tk; // exact in double: every factor < 2^31, the product < 2^53
  let weights = o.weights;
  if (weights === undefined || weights === false) weights = undefined;
  else if (weights !== true) {
    if (typedName(weights) !== "Float32Array") {
      throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
    }
    if (wLen <= MAX_FLOATS) bufferArg(fn, "weights", weights, wLen, "batch * heads * tq * tk");
  }

  // scratch: [out | weights | q | k | v | keyLengths]; the core adds its temporaries: the scores
  // of one batch element (and its weights when they are not asked for), and a table per head.
  const oSeg = pad4(qLen), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(kLen);
  const lSeg = lens === undefined ? 0 : pad4(batch);
  const pSeg = pattern === undefined ? 0 : pad4(pattern.length);
  const floats = oSeg + wSeg + oSeg + 2 * kSeg + lSeg + pSeg;
  const bytes = 4 * floats + (pattern ? 16 * tk : 4 * heads * tq * tk * (weights ? 1 : 2)) + 8 * heads;
  if (wLen > MAX_FLOATS || floats > MAX_FLOATS || bytes > CALL_MAX_BYTES) {
    const sizes = `batch * heads * tq * tk = ${batch} * ${heads} * ${tq} * ${tk} = ${wLen} attention weights`;
    if (wLen > MAX_FLOATS && bytes <= CALL_MAX_BYTES) {
      throw new RangeError(`${fn}: too large: ${sizes}, more than the ${MAX_FLOATS} one call can index (${4 * wLen} bytes)`);
    }
    throw new RangeError(`${fn}: too large: ${sizes} need ${bytes} bytes of wasm memory with the inputs, ${TOO_LARGE}`);
  }
  if (weights === true) weights = newFloats(fn, wLen);
  let lensIn;
  if (lens !== undefined) {
    lensIn = new Int32Array(batch); // read (and checked) once, before anything is copied
    for (let b = 0; b < batch; b++) {
      const n = lens[b];
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > tk) {
        throw new RangeError(`${fn}: keyLengths[${b}] must be an integer in [0, tk = ${tk}] (got ${show(n)})`);
      }
      lensIn[b] = n;
    }
  }
  const qs = readIn(fn, "q", q, kq, qLen);
  const ks = readIn(fn, "k", k, kk, kLen);
  const vs = readIn(fn, "v", v, kv, kLen);
  const at = scratch(fn, floats);
  const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg, lAt = vAt + kSeg;
  copyIn(fn, "q", qs, qAt, qLen, kq);
  copyIn(fn, "k", ks, kAt, kLen, kk);
  copyIn(fn, "v", vs, vAt, kLen, kv);
  if (lensIn !== undefined) {
    if (heapI32.length === 0) refreshHeap();
    heapI32.set(lensIn, lAt);
  }
  if (pattern !== undefined) {
    if (heapI32.length === 0) refreshHeap();
    heapI32.set(pattern, lAt + lSeg);
  }
  const st = pattern !== undefined
    ? wasm.sx_attention_pattern(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, vAt << 2,
      lensIn === undefined ? 0 : lAt << 2, batch, tq, tk, heads, width / heads, ATTN_MAPPINGS[mapping],
      param, causal ? 1 : 0, (lAt + lSeg) << 2)
    : wasm.sx_attention(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, vAt << 2,
    lensIn === undefined ? 0 : lAt << 2, batch, tq, tk, heads, width / heads, ATTN_MAPPINGS[mapping],
    param, causal ? 1 : 0);
  if (st !== 0) throw coreError(fn, st);
  const result = copyOut(fn, "out", out, at, qLen);
  if (weights === undefined) return result;
  copyOut(fn, "weights", weights, at + oSeg, wLen);
  return { out: result, weights };
}

// ------------------------------------------------------------------ attention patterns
// The pattern kinds of sx_attention_pattern: SX_PATTERN_* in simplexity.h.
const PATTERN_KINDS = { dense: 0, local: 1, strided: 2, fixed: 3, lsh: 4 };

/**
 * The pattern option of attention() and attentionPattern(), checked: an Int32Array of
 * SX_PATTERN_LEN ints { kind, size, summary, buckets, rounds, seed } for the core. tq, tk: the
 * map's shape (LSH is self-attention only; its chunk defaults to ceil(tk / buckets)).
 */
function patternArg(fn, p, tq, tk) {
  if (p === null || typeof p !== "object" || Array.isArray(p)) {
    throw new TypeError(`${fn}: pattern must be an object such as { kind: "local", width: 8 } (got ${show(p)})`);
  }
  const kind = p.kind;
  if (typeof kind !== "string" || !Object.hasOwn(PATTERN_KINDS, kind)) {
    const E = typeof kind === "string" ? RangeError : TypeError;
    throw new E(`${fn}: pattern.kind must be "dense", "local", "strided", "fixed" or "lsh" (got ${show(kind)})`);
  }
  const out = new Int32Array(6);
  out[0] = PATTERN_KINDS[kind];
  if (kind === "local") {
    out[1] = sizeArg(fn, "pattern.width", p.width, undefined, 0, "keys on each side of the query");
  } else if (kind === "strided") {
    out[1] = sizeArg(fn, "pattern.stride", p.stride, undefined, 1, "the stride l");
  } else if (kind === "fixed") {
    const block = sizeArg(fn, "pattern.block", p.block, undefined, 1, "the block length l");
    const summary = sizeArg(fn, "pattern.summary", p.summary, 1, 1, "summary positions per block");
    if (summary > block) {
      throw new RangeError(`${fn}: pattern.summary must be <= pattern.block (${block}) (got ${show(summary)})`);
    }
    out[1] = block;
    out[2] = summary;
  } else if (kind === "lsh") {
    if (tq !== tk) {
      throw new RangeError(`${fn}: the lsh pattern is self-attention only: tq (${tq}) must equal tk (${tk})`);
    }
    const buckets = sizeArg(fn, "pattern.buckets", p.buckets, 8, 2, "hash buckets, even");
    if (buckets % 2 !== 0 || buckets > 4096) {
      throw new RangeError(`${fn}: pattern.buckets must be even and in [2, 4096] (got ${show(buckets)})`);
    }
    const rounds = sizeArg(fn, "pattern.rounds", p.rounds, 1, 1, "hash rounds");
    if (rounds > 64) throw new RangeError(`${fn}: pattern.rounds must be in [1, 64] (got ${show(rounds)})`);
    const seed = p.seed === undefined ? 0 : p.seed;
    if (typeof seed !== "number" || !Number.isInteger(seed) || seed < -0x80000000 || seed > 0xffffffff) {
      const E = typeof seed === "number" ? RangeError : TypeError;
      throw new E(`${fn}: pattern.seed must be an integer in [-2^31, 2^32) (got ${show(seed)})`);
    }
    out[1] = sizeArg(fn, "pattern.chunk", p.chunk, Math.max(1, Math.ceil(tk / buckets)), 1, "chunk length");
    out[3] = buckets;
    out[4] = rounds;
    out[5] = seed | 0;
  }
  return out;
}

/**
 * The pairs attention() computes under a pattern, on an n x n map (one head of one batch
 * element): { n, mask, pairs, densePairs, fraction } with mask a Uint8Array (n * n), 1 where
 * query i sees key j, pairs its sum, densePairs the pairs dense attention computes under the
 * same causal / keyLength masks and fraction = pairs / densePairs. The lsh pattern hashes keys:
 * opts.k (n * width floats, width = heads * dh; head `head`), and the result adds its steps:
 * { buckets, order } (Int32Array rounds * n: each position's bucket, the positions sorted by
 * (bucket, position)), chunk (the chunk length) and rounds.
 */
export function attentionPattern(n, pattern, opts) {
  const fn = "attentionPattern";
  const o = optionsArg(fn, opts);
  n = sizeArg(fn, "n", n, undefined, 1, "queries and keys");
  const pat = patternArg(fn, pattern, n, n);
  const heads = sizeArg(fn, "heads", o.heads, 1, 1, "the number of heads");
  const head = sizeArg(fn, "head", o.head, 0, 0, "which head");
  if (head >= heads) throw new RangeError(`${fn}: head must be < heads (${heads}) (got ${show(head)})`);
  const causal = o.causal;
  if (causal !== undefined && typeof causal !== "boolean") {
    throw new TypeError(`${fn}: causal must be true or false (got ${show(causal)})`);
  }
  const klen = sizeArg(fn, "keyLength", o.keyLength, n, 0, "valid keys");
  if (klen > n) throw new RangeError(`${fn}: keyLength must be <= n (${n}) (got ${show(klen)})`);
  const lsh = pat[0] === PATTERN_KINDS.lsh;
  let kLen = 0, kk = F32, dh = 1;
  if (lsh) {
    if (o.k === undefined) throw new TypeError(`${fn}: the lsh pattern hashes keys: opts.k (n * width floats) is required (got undefined)`);
    kLen = inputArg(fn, "k", o.k);
    kk = inKind;
    if (kLen === 0 || kLen % (n * heads) !== 0) {
      throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of n * heads (${n} * ${heads})`);
    }
    dh = kLen / (n * heads);
  }
  const mLen = n * n;
  const rounds = lsh ? pat[4] : 0;
  const mSeg = pad4(Math.ceil(mLen / 4)), kSeg = pad4(kLen), sSeg = pad4(rounds * n);
  const floats = mSeg + kSeg + 2 * sSeg + 8;
  if (floats > MAX_FLOATS) throw new RangeError(`${fn}: too large: n = ${n} needs ${4 * floats} bytes, ${TOO_LARGE}`);
  const ks = lsh ? readIn(fn, "k", o.k, kk, kLen) : undefined;
  const at = scratch(fn, floats);
  const kAt = at + mSeg, bAt = kAt + kSeg, oAt = bAt + sSeg, pAt = oAt + sSeg;
  if (lsh) copyIn(fn, "k", ks, kAt, kLen, kk);
  if (heapI32.length === 0) refreshHeap();
  heapI32.set(pat, pAt);
  let st = wasm.sx_pattern_mask(at << 2, lsh ? kAt << 2 : 0, n, n, heads, dh, head, pAt << 2,
    causal ? 1 : 0, klen);
  if (st !== 0) throw coreError(fn, st);
  if (lsh) {
    st = wasm.sx_pattern_lsh(bAt << 2, oAt << 2, kAt << 2, n, heads, dh, head, pAt << 2);
    if (st !== 0) throw coreError(fn, st);
  }
  if (heapU8.length === 0) refreshHeap();
  const mask = heapU8.slice(at << 2, (at << 2) + mLen);
  let pairs = 0;
  for (let i = 0; i < mLen; i++) pairs += mask[i];
  const densePairs = causal ? (klen * (klen + 1)) / 2 + (n - klen) * klen : n * klen;
  const result = { n, mask, pairs, densePairs, fraction: densePairs > 0 ? pairs / densePairs : 0 };
  if (!lsh) return result;
  return {
    ...result,
    buckets: heapI32.slice(bAt, bAt + rounds * n),
    order: heapI32.slice(oAt, oAt + rounds * n),
    chunk: pat[1],
    rounds,
  };
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
  const len = inputArg(fn, "distances", distances);
  const kind = inKind;
  const z = requiredNumber(fn, "z", o.z, 0, false);
  const ramp = requiredNumber(fn, "ramp", o.ramp, 0, true);
  const oMax = o.maxSpan;
  const maxSpan = oMax === undefined ? 0 : requiredNumber(fn, "maxSpan", oMax, 0, true);
  const out = outArg(fn, o.out, len, "distances.length");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const seg = pad4(len);
  fitCall(fn, 2 * seg, 0);
  const ds = readIn(fn, "distances", distances, kind, len);
  const at = scratch(fn, 2 * seg);
  copyIn(fn, "distances", ds, at + seg, len, kind);
  const st = wasm.sx_span_mask(at << 2, (at + seg) << 2, len, z, ramp, maxSpan);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, len);
}

// The kernels of attention pooling: SX_MAP_* in simplexity.h, as for attention.
const POOL_MAPPINGS = ATTN_MAPPINGS;
const POOL_MAX_WEIGHTS = Math.floor(0x7fffffff / 32); // the C core's bound on nq * nk

/** Checks the arguments shared by attentionPooling and its backward pass. */
function poolArgs(fn, queries, keys, values, o) {
  const nq = inputArg(fn, "queries", queries);
  const kq = inKind;
  const nk = inputArg(fn, "keys", keys);
  const kk = inKind;
  const nv = inputArg(fn, "values", values);
  const kv = inKind;
  if (nk === 0) throw new RangeError(`${fn}: keys must not be empty`);
  if (nv !== nk) throw new RangeError(`${fn}: values.length (${nv}) must equal keys.length (${nk})`);
  if (nq * nk > POOL_MAX_WEIGHTS) {
    throw new RangeError(`${fn}: queries.length * keys.length (${nq} * ${nk}) is more than ${POOL_MAX_WEIGHTS} weights (the core's temporaries would need ${32 * nq * nk} bytes)`);
  }
  let w = 1;
  const ow = o.w;
  if (ow !== undefined) {
    if (typeof ow !== "number") throw new TypeError(`${fn}: w must be a number (got ${show(ow)})`);
    if (!Number.isFinite(ow) || !Number.isFinite(Math.fround(ow))) {
      throw new RangeError(`${fn}: w must be finite in float32 (got ${show(ow)})`);
    }
    w = ow;
  }
  const { mapping, param } = mappingArg(fn, o, POOL_MAPPINGS, ATTN_PARAMS);
  const loo = o.leaveOneOut === undefined ? false : o.leaveOneOut;
  if (typeof loo !== "boolean") throw new TypeError(`${fn}: leaveOneOut must be true or false (got ${show(loo)})`);
  if (loo && nq !== nk) {
    throw new RangeError(`${fn}: leaveOneOut needs queries.length (${nq}) to equal keys.length (${nk}): the queries are the keys`);
  }
  return { nq, nk, kq, kk, kv, w, kind: POOL_MAPPINGS[mapping], param, loo: loo ? 1 : 0 };
}

/**
 * Nadaraya-Watson attention pooling: out[i] = sum_j weights[i][j] values[j], each row of weights
 * the mapping of the scores -((queries[i] - keys[j]) w)^2 / 2 (a kernel regression with the
 * mapping as kernel). Returns { out, weights } (weights: queries.length rows of keys.length).
 */
export function attentionPooling(queries, keys, values, opts) {
  const fn = "attentionPooling";
  const o = optionsArg(fn, opts);
  const { nq, nk, kq, kk, kv, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
  const out = outArg(fn, o.out, nq, "queries.length");
  const wLen = nq * nk;
  const ow = o.weights;
  let weights = ow === undefined ? true : ow;
  if (weights === false) weights = null;
  else if (weights !== true) {
    if (typedName(weights) !== "Float32Array") {
      throw new TypeError(`${fn}: weights must be true, false or a Float32Array (got ${show(weights)})`);
    }
    bufferArg(fn, "weights", weights, wLen, "queries.length * keys.length");
  }
  // scratch: [out | weights | queries | keys | values]
  const oSeg = pad4(nq), wSeg = weights ? pad4(wLen) : 0, kSeg = pad4(nk);
  const floats = 2 * oSeg + wSeg + 2 * kSeg;
  fitCall(fn, floats, 8 * wLen);
  const qs = readIn(fn, "queries", queries, kq, nq);
  const ks = readIn(fn, "keys", keys, kk, nk);
  const vs = readIn(fn, "values", values, kv, nk);
  const at = scratch(fn, floats);
  const qAt = at + oSeg + wSeg, kAt = qAt + oSeg, vAt = kAt + kSeg;
  copyIn(fn, "queries", qs, qAt, nq, kq);
  copyIn(fn, "keys", ks, kAt, nk, kk);
  copyIn(fn, "values", vs, vAt, nk, kv);
  const st = nq === 0 ? 0 : wasm.sx_nw_pooling(at << 2, weights ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2,
    vAt << 2, nq, nk, w, kind, param, loo);
  if (st !== 0) throw coreError(fn, st);
  const result = copyOut(fn, "out", out, at, nq);
  if (weights === null) return { out: result, weights: null };
  return { out: result, weights: copyOut(fn, "weights", weights === true ? undefined : weights, at + oSeg, wLen) };
}

/**
 * The gradient of attentionPooling wrt w: { dw } = d <dy, out> / d w, for dy one value per query
 * (dy = out - target gives the gradient of 1/2 ||out - target||^2). Same options as attentionPooling.
 */
export function attentionPoolingBackward(queries, keys, values, dy, opts) {
  const fn = "attentionPoolingBackward";
  const o = optionsArg(fn, opts);
  const { nq, nk, kq, kk, kv, w, kind, param, loo } = poolArgs(fn, queries, keys, values, o);
  const dyLen = inputArg(fn, "dy", dy);
  const kd = inKind;
  if (dyLen !== nq) throw new RangeError(`${fn}: dy.length (${dyLen}) must equal queries.length (${nq})`);
  if (nq === 0) return { dw: 0 };
  // scratch: [dw | queries | keys | values | dy]
  const qSeg = pad4(nq), kSeg = pad4(nk);
  const floats = 4 + 2 * qSeg + 2 * kSeg;
  fitCall(fn, floats, 16 * nq * nk + 4 * nq);
  const qs = readIn(fn, "queries", queries, kq, nq);
  const ks = readIn(fn, "keys", keys, kk, nk);
  const vs = readIn(fn, "values", values, kv, nk);
  const ds = readIn(fn, "dy", dy, kd, nq);
  const at = scratch(fn, floats);
  const qAt = at + 4, kAt = qAt + qSeg, vAt = kAt + kSeg, dAt = vAt + kSeg;
  copyIn(fn, "queries", qs, qAt, nq, kq);
  copyIn(fn, "keys", ks, kAt, nk, kk);
  copyIn(fn, "values", vs, vAt, nk, kv);
  copyIn(fn, "dy", ds, dAt, nq, kd);
  const st = wasm.sx_nw_pooling_backward(at << 2, dAt << 2, qAt << 2, kAt << 2, vAt << 2, nq, nk, w, kind, param, loo);
  if (st !== 0) throw coreError(fn, st);
  return { dw: heap[at] };
}

// ------------------------------------------------------------------ positions
// The core bounds every result of these calls to 2^29 floats (sx_*: n_q * n_k, positions * dim).
const POS_MAX = 2 ** 29;

/** An even integer >= 2 (a sinusoid's dimension: sin / cos column pairs). */
function evenDimArg(fn, name, v) {
  if (typeof v !== "number") throw new TypeError(`${fn}: ${name} must be an even integer >= 2 (got ${show(v)})`);
  if (!Number.isInteger(v) || v < 2 || v % 2 !== 0 || v > 0x7fffffff) {
    throw new RangeError(`${fn}: ${name} must be an even integer >= 2 (got ${show(v)})`);
  }
  return v;
}

/** The sinusoids' base: a number > 0, finite; 10000 (Vaswani et al., and the model) by default. */
function baseArg(fn, v) {
  return paramArg(fn, "base", v, 10000, 0, true);
}

/** RangeError unless a result of a * b floats is under the core's bound. */
function areaArg(fn, what, a, b) {
  if (a * b >= POS_MAX) throw new RangeError(`${fn}: ${what} (${a} * ${b}) must be less than 2^29`);
}

/**
 * The sinusoidal positional encodings (Vaswani et al. 2017): the position x dimension matrix,
 * row t = PE(t) for t = 0 .. positions - 1, PE(t)[2i] = sin(t / base^(2i/dim)),
 * PE(t)[2i+1] = cos(t / base^(2i/dim)). The model's own table at base 10000. Returns a
 * Float32Array of positions * dim (opts.out to reuse one).
 */
export function positionalEncoding(positions, dim, opts) {
  const fn = "positionalEncoding";
  const o = optionsArg(fn, opts);
  const n = sizeArg(fn, "positions", positions, undefined, 0, "the number of positions");
  const d = evenDimArg(fn, "dim", dim);
  const base = baseArg(fn, o.base);
  areaArg(fn, "positions * dim", n, d);
  const len = n * d;
  const out = outArg(fn, o.out, len, "positions * dim");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  const at = scratch(fn, len);
  const st = wasm.sx_positional_encoding(at << 2, n, d, base);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, len);
}

/**
 * Shaw et al. 2018's relative-position term of self-attention scores: out[i][j] =
 * q_i . table[clip(j - i, -maxDistance, maxDistance) + maxDistance], for queries q (tq, dim)
 * and a learned table (2 maxDistance + 1, dim) of relative-position embeddings; query i and key
 * j at positions i and j, opts.tk keys (default: as many as queries). Returns a Float32Array
 * (tq, tk): add it to q k^T before the 1 / sqrt(dim) scaling.
 */
export function relativeScores(q, table, opts) {
  const fn = "relativeScores";
  const o = optionsArg(fn, opts);
  const qLen = inputArg(fn, "q", q);
  const kq = inKind;
  const tLen = inputArg(fn, "table", table);
  const kt = inKind;
  const K = sizeArg(fn, "maxDistance", o.maxDistance, undefined, 0, "the largest relative distance kept");
  if (K > 2 ** 28) throw new RangeError(`${fn}: maxDistance must be <= 2^28 (got ${K})`);
  const rows = 2 * K + 1;
  if (tLen === 0 || tLen % rows !== 0) {
    throw new RangeError(`${fn}: table.length (${tLen}) must be a non-zero multiple of 2 maxDistance + 1 (${rows})`);
  }
  const dim = tLen / rows;
  if (qLen % dim !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a multiple of dim = table.length / (2 maxDistance + 1) (${dim})`);
  const tq = qLen / dim;
  const tk = sizeArg(fn, "tk", o.tk, tq, 0, "keys");
  areaArg(fn, "tq * tk", tq, tk);
  const len = tq * tk;
  const out = outArg(fn, o.out, len, "tq * tk");
  if (len === 0) return out === undefined ? new Float32Array(0) : out;
  // scratch: [out | q | table]
  const oSeg = pad4(len), qSeg = pad4(qLen);
  const floats = oSeg + qSeg + pad4(tLen);
  fitCall(fn, floats, 0);
  const qs = readIn(fn, "q", q, kq, qLen);
  const ts = readIn(fn, "table", table, kt, tLen);
  const at = scratch(fn, floats);
  const qAt = at + oSeg, tAt = qAt + qSeg;
  copyIn(fn, "q", qs, qAt, qLen, kq);
  copyIn(fn, "table", ts, tAt, tLen, kt);
  const st = wasm.sx_relative_scores(at << 2, qAt << 2, tAt << 2, tq, tk, dim, K);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, len);
}

/**
 * Transformer-XL's relative attention scores (Dai et al. 2019): for projected queries q (tq, dim)
 * and keys k (tk, dim), learned global biases opts.u and opts.v (dim each, which set dim),
 * out[i][j] = q_i . k_j + q_i . r_{i-j} + u . k_j + v . r_{i-j} (content-content,
 * content-position, global content bias, global position bias), r_t = PE(t) W_r with PE the
 * sinusoid of dimension dimR at base opts.base (10000) and W_r = opts.wr (dimR, dim), or no
 * projection (dimR = dim) without it. No 1 / sqrt(dim) scaling. Returns a Float32Array (tq, tk),
 * or with opts.terms (true or a Float32Array of 4 tq tk) { out, terms }, terms the four
 * (tq, tk) matrices in that order.
 */
export function txlScores(q, k, opts) {
  const fn = "txlScores";
  const o = optionsArg(fn, opts);
  const qLen = inputArg(fn, "q", q);
  const kq = inKind;
  const kLen = inputArg(fn, "k", k);
  const kk = inKind;
  if (o.u === undefined) throw new TypeError(`${fn}: u (the global content bias, dim numbers) is required`);
  if (o.v === undefined) throw new TypeError(`${fn}: v (the global position bias, dim numbers) is required`);
  const dim = inputArg(fn, "u", o.u);
  const ku = inKind;
  const vLen = inputArg(fn, "v", o.v);
  const kv = inKind;
  if (dim === 0) throw new RangeError(`${fn}: u must not be empty (its length is dim)`);
  if (vLen !== dim) throw new RangeError(`${fn}: v.length (${vLen}) must equal u.length (dim = ${dim})`);
  if (qLen % dim !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a multiple of dim = u.length (${dim})`);
  if (kLen % dim !== 0) throw new RangeError(`${fn}: k.length (${kLen}) must be a multiple of dim = u.length (${dim})`);
  const tq = qLen / dim, tk = kLen / dim;
  const wr = o.wr;
  let wLen = 0, kw = F32, dimR;
  if (wr === undefined || wr === null) {
    if (o.dimR !== undefined && o.dimR !== dim) {
      throw new RangeError(`${fn}: without wr, dimR must equal dim = u.length (got ${show(o.dimR)} and ${dim})`);
    }
    if (dim % 2 !== 0) throw new RangeError(`${fn}: without wr, dim = u.length must be even: the sinusoids r_{i-j} have dim columns (got ${dim})`);
    dimR = dim;
  } else {
    wLen = inputArg(fn, "wr", wr);
    kw = inKind;
    if (wLen === 0 || wLen % dim !== 0) throw new RangeError(`${fn}: wr.length (${wLen}) must be a non-zero multiple of dim = u.length (${dim})`);
    dimR = wLen / dim;
    if (o.dimR !== undefined && o.dimR !== dimR) {
      throw new RangeError(`${fn}: dimR (${show(o.dimR)}) must equal wr.length / dim (${dimR})`);
    }
    evenDimArg(fn, "dimR = wr.length / dim", dimR);
  }
  const base = baseArg(fn, o.base);
  areaArg(fn, "tq * tk", tq, tk);
  areaArg(fn, "(tq + tk) * dimR", tq + tk, dimR);
  const len = tq * tk;
  const out = outArg(fn, o.out, len, "tq * tk");
  let terms = o.terms;
  if (terms === undefined || terms === false) terms = undefined;
  else if (terms !== true) bufferArg(fn, "terms", terms, 4 * len, "4 * tq * tk");
  // scratch: [out | terms | q | k | u | v | wr]; the core adds the relative table, in double
  const oSeg = pad4(len), tSeg = terms ? pad4(4 * len) : 0, qSeg = pad4(qLen), kSeg = pad4(kLen), dSeg = pad4(dim);
  const floats = oSeg + tSeg + qSeg + kSeg + 2 * dSeg + pad4(wLen);
  fitCall(fn, floats, (tq + tk) * (4 * dimR + 8 * dim));
  if (terms === true) terms = newFloats(fn, 4 * len);
  const qs = readIn(fn, "q", q, kq, qLen);
  const ks = readIn(fn, "k", k, kk, kLen);
  const us = readIn(fn, "u", o.u, ku, dim);
  const vs = readIn(fn, "v", o.v, kv, dim);
  const ws = wLen === 0 ? undefined : readIn(fn, "wr", wr, kw, wLen);
  const at = scratch(fn, floats);
  const qAt = at + oSeg + tSeg, kAt = qAt + qSeg, uAt = kAt + kSeg, vAt = uAt + dSeg, wAt = vAt + dSeg;
  if (len > 0) {
    copyIn(fn, "q", qs, qAt, qLen, kq);
    copyIn(fn, "k", ks, kAt, kLen, kk);
    copyIn(fn, "u", us, uAt, dim, ku);
    copyIn(fn, "v", vs, vAt, dim, kv);
    if (ws !== undefined) copyIn(fn, "wr", ws, wAt, wLen, kw);
    const st = wasm.sx_txl_scores(at << 2, terms ? (at + oSeg) << 2 : 0, qAt << 2, kAt << 2, uAt << 2,
      vAt << 2, ws === undefined ? 0 : wAt << 2, tq, tk, dim, dimR, base);
    if (st !== 0) throw coreError(fn, st);
  }
  const result = copyOut(fn, "out", out, at, len);
  if (terms === undefined) return result;
  copyOut(fn, "terms", terms, at + oSeg, 4 * len);
  return { out: result, terms };
}

// -------------------------------------------------------------- scoring functions
// The scoring kinds of sx_attention_scores (SX_SCORE_* in simplexity.h) and their parameters.
const SCORINGS = { dot: 0, scaled: 1, bilinear: 2, additive: 3 };
const SCORE_PARAMS = [["W", "bilinear"], ["Wq", "additive"], ["Wk", "additive"], ["wv", "additive"]];

/** A parameter array of the scoring: a Float32Array, Float64Array or Array of `len` numbers. */
function scoreParam(fn, o, name, len, what) {
  const x = o[name];
  if (x === undefined) throw new TypeError(`${fn}: ${name} (${what}) is required for scoring "${o.scoring}"`);
  const n = inputArg(fn, name, x);
  const kind = inKind;
  if (len !== undefined && n !== len) throw new RangeError(`${fn}: ${name}.length (${n}) must equal ${what} (${len})`);
  return { x, n, kind };
}

/**
 * The checked arguments of attentionScores and its backward pass: sizes, the scoring and its
 * parameters (in one list, the core's layout: W, or Wq, Wk, wv).
 */
function scoreArgs(fn, q, k, o) {
  const qLen = inputArg(fn, "q", q);
  const kq = inKind;
  const kLen = inputArg(fn, "k", k);
  const kk = inKind;
  const nq = sizeArg(fn, "nq", o.nq, 1, 1, "the number of queries");
  const nk = sizeArg(fn, "nk", o.nk, 1, 1, "the number of keys");
  if (qLen === 0 || qLen % nq !== 0) throw new RangeError(`${fn}: q.length (${qLen}) must be a non-zero multiple of nq (${nq})`);
  if (kLen === 0 || kLen % nk !== 0) throw new RangeError(`${fn}: k.length (${kLen}) must be a non-zero multiple of nk (${nk})`);
  const qDim = qLen / nq, kDim = kLen / nk;
  const scoring = o.scoring === undefined ? "scaled" : o.scoring;
  if (typeof scoring !== "string") throw new TypeError(`${fn}: scoring must be a string (got ${show(scoring)})`);
  if (!Object.hasOwn(SCORINGS, scoring)) {
    throw new RangeError(`${fn}: scoring must be one of ${Object.keys(SCORINGS).map((s) => `"${s}"`).join(", ")} (got ${show(scoring)})`);
  }
  for (const [name, owner] of SCORE_PARAMS) {
    if (o[name] !== undefined && scoring !== owner) {
      throw new RangeError(`${fn}: ${name} applies to scoring "${owner}" only (scoring is "${scoring}")`);
    }
  }
  if ((scoring === "dot" || scoring === "scaled") && qDim !== kDim) {
    throw new RangeError(`${fn}: ${scoring} scores need queries and keys of one dimension (got q.length / nq = ${qDim} and k.length / nk = ${kDim})`);
  }
  const p = { scoring, nq, nk, qDim, kDim, hidden: 0, params: [], np: 0, qLen, kLen, kq, kk };
  if (scoring === "bilinear") {
    p.params = [scoreParam(fn, { ...o, scoring }, "W", qDim * kDim, "qDim * kDim")];
  } else if (scoring === "additive") {
    const oo = { Wq: o.Wq, Wk: o.Wk, wv: o.wv, scoring };
    const wv = scoreParam(fn, oo, "wv", undefined, "the hidden size h");
    if (wv.n === 0) throw new RangeError(`${fn}: wv must not be empty (its length is the hidden size)`);
    p.hidden = wv.n;
    p.params = [scoreParam(fn, oo, "Wq", wv.n * qDim, "h * qDim"), scoreParam(fn, oo, "Wk", wv.n * kDim, "h * kDim"), wv];
  }
  for (const a of p.params) p.np += a.n;
  if (nq * nk > MAX_FLOATS || qLen > MAX_FLOATS || kLen > MAX_FLOATS) {
    throw new RangeError(`${fn}: too large: nq * nk = ${nq} * ${nk} scores, ${TOO_LARGE}`);
  }
  return p;
}

/** q, k and the parameters read (Arrays into JS memory) before any scratch offset is taken. */
function readScoreInputs(fn, q, k, p) {
  const name = (i) => SCORE_PARAMS[p.scoring === "bilinear" ? 0 : i + 1][0];
  return {
    qs: readIn(fn, "q", q, p.kq, p.qLen),
    ks: readIn(fn, "k", k, p.kk, p.kLen),
    ps: p.params.map((a, i) => readIn(fn, name(i), a.x, a.kind, a.n)),
    name,
  };
}

/** Copies what readScoreInputs read into scratch from float offset `at`; returns the offsets. */
function placeScoreInputs(fn, r, p, at) {
  const qAt = at, kAt = qAt + pad4(p.qLen), pAt = kAt + pad4(p.kLen);
  copyIn(fn, "q", r.qs, qAt, p.qLen, p.kq);
  copyIn(fn, "k", r.ks, kAt, p.kLen, p.kk);
  let off = pAt;
  p.params.forEach((a, i) => {
    copyIn(fn, r.name(i), r.ps[i], off, a.n, a.kind);
    off += a.n;
  });
  return { qAt, kAt, pAt };
}

/** Bytes of the core's temporaries for a scoring call (doubles; the backward pass twice). */
function scoreTemp(p, backward) {
  const d = p.scoring === "bilinear" ? p.nq * p.kDim : p.scoring === "additive" ? (p.nq + p.nk) * p.hidden : 0;
  return 8 * (backward ? 2 * d + p.hidden : d);
}

/**
 * The (nq, nk) attention scores of queries q (nq, qDim) against keys k (nk, kDim), row-major:
 * "dot" q.k, "scaled" q.k / sqrt(d) (the default), "bilinear" q^T W k (W: qDim * kDim),
 * "additive" wv . tanh(Wq q + Wk k) (Wq: h * qDim, Wk: h * kDim, wv: h). Map the rows with any
 * mapping (softmax(scores, { n: nk }), maskedMapping for valid lengths).
 */
export function attentionScores(q, k, opts) {
  const fn = "attentionScores";
  const o = optionsArg(fn, opts);
  const p = scoreArgs(fn, q, k, o);
  const sLen = p.nq * p.nk;
  const out = outArg(fn, o.out, sLen, "nq * nk");
  // scratch: [scores | q | k | params]
  const sSeg = pad4(sLen);
  const floats = sSeg + pad4(p.qLen) + pad4(p.kLen) + pad4(p.np);
  fitCall(fn, floats, scoreTemp(p, false));
  const r = readScoreInputs(fn, q, k, p);
  const at = scratch(fn, floats);
  const { qAt, kAt, pAt } = placeScoreInputs(fn, r, p, at + sSeg);
  const st = wasm.sx_attention_scores(at << 2, qAt << 2, kAt << 2, p.np ? pAt << 2 : 0, p.nq, p.nk,
    p.qDim, p.kDim, p.hidden, SCORINGS[p.scoring]);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, sLen);
}

/**
 * The gradients of <dscores, attentionScores(q, k, opts)>: { dq, dk } and the parameters' ({ dW }
 * for "bilinear", { dWq, dWk, dwv } for "additive"). Same options as attentionScores (no out).
 */
export function attentionScoresBackward(q, k, dscores, opts) {
  const fn = "attentionScoresBackward";
  const o = optionsArg(fn, opts);
  const p = scoreArgs(fn, q, k, o);
  const sLen = p.nq * p.nk;
  const dLen = inputArg(fn, "dscores", dscores);
  const kd = inKind;
  if (dLen !== sLen) throw new RangeError(`${fn}: dscores.length (${dLen}) must equal nq * nk (${p.nq} * ${p.nk} = ${sLen})`);
  // scratch: [dq | dk | dparams | q | k | params | dscores]
  const qSeg = pad4(p.qLen), kSeg = pad4(p.kLen), pSeg = pad4(p.np);
  const floats = 2 * (qSeg + kSeg + pSeg) + pad4(sLen);
  fitCall(fn, floats, scoreTemp(p, true));
  const r = readScoreInputs(fn, q, k, p);
  const ds = readIn(fn, "dscores", dscores, kd, dLen);
  const at = scratch(fn, floats);
  const { qAt, kAt, pAt } = placeScoreInputs(fn, r, p, at + qSeg + kSeg + pSeg);
  const dAt = pAt + pSeg;
  copyIn(fn, "dscores", ds, dAt, sLen, kd);
  const dkAt = at + qSeg, dpAt = dkAt + kSeg;
  const st = wasm.sx_attention_scores_backward(at << 2, dkAt << 2, p.np ? dpAt << 2 : 0, dAt << 2,
    qAt << 2, kAt << 2, p.np ? pAt << 2 : 0, p.nq, p.nk, p.qDim, p.kDim, p.hidden, SCORINGS[p.scoring]);
  if (st !== 0) throw coreError(fn, st);
  const result = { dq: copyOut(fn, "dq", undefined, at, p.qLen), dk: copyOut(fn, "dk", undefined, dkAt, p.kLen) };
  if (p.scoring === "bilinear") result.dW = copyOut(fn, "dW", undefined, dpAt, p.np);
  if (p.scoring === "additive") {
    const h = p.hidden;
    result.dWq = copyOut(fn, "dWq", undefined, dpAt, h * p.qDim);
    result.dWk = copyOut(fn, "dWk", undefined, dpAt + h * p.qDim, h * p.kDim);
    result.dwv = copyOut(fn, "dwv", undefined, dpAt + h * (p.qDim + p.kDim), h);
  }
  return result;
}

// ----------------------------------------------------------- masked mapping
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
  const kx = inKind;
  const n = rowLength(fn, o.n, len, "x");
  const t = temperatureArg(fn, o.temperature);
  let dyLen = 0, kd = F32;
  if (back) {
    dyLen = inputArg(fn, "dy", dy);
    kd = inKind;
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
    if (heapI32.length === 0) refreshHeap();
    heapI32.set(lens, lAt);
  }
  const pl = lens === undefined ? 0 : lAt << 2;
  const st = back
    ? wasm.sx_masked_mapping_backward(at << 2, (at + seg) << 2, (at + 2 * seg) << 2, pl, rows, n, code, param, t)
    : wasm.sx_masked_mapping(at << 2, (at + seg) << 2, pl, rows, n, code, param, t);
  if (st !== 0) throw coreError(fn, st);
  return copyOut(fn, "out", out, at, len);
}

/**
 * D2L's masked softmax by valid length, for every mapping: each row of x (n scores) is mapped
 * with its entries from validLengths[row] on removed: they get exactly 0, and a valid length of
 * 0 gives an all-zero row. mapping: "softmax" (default), "sparsemax", "entmax15", "entmax"
 * (alpha), "fusedmax" (lambda), "oscarmax" (beta), "sigmoid". Without validLengths: the mapping.
 */
export function maskedMapping(x, opts) {
  return maskedCall("maskedMapping", false, x, undefined, optionsArg("maskedMapping", opts));
}

/** dx = J^T dy of maskedMapping (zeros beyond the valid lengths); same options. */
export function maskedMappingBackward(x, dy, opts) {
  return maskedCall("maskedMappingBackward", true, x, dy, optionsArg("maskedMappingBackward", opts));
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
  /** RangeError unless a call of `bytes` bytes of scratch (and `temp` of the core's) fits. */
  fit(fn, bytes, temp = 0) {
    fitCall(fn, Math.ceil(bytes / 4), temp);
  },
  typedName,
  typedLength,
  detached,
  bufferDetached,
  coreError,
  show,
  SimplexityError,
};

/** The tiny encoder-decoder Transformer (see model.js and the README's Model section). */
export const { Model, tasks } = modelApi(core);
