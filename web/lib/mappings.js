// mappings.js - the library's core: the state (one wasm instance), init() and info(), the
// argument checks and copies every function shares, caller-owned wasm arrays (alloc()), the
// mappings and their gradients, entropies, Jacobians and thresholds. simplexity.js, the public module,
// re-exports it with model.js's Model and tasks and blocks.js's functions; the widgets that draw
// mappings only import this module alone, so a post holding only them loads neither model.js nor
// blocks.js (and init({ core: "mappings" }) fetches the small mappings core).
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
// One instance at a time: the mappings core (init({ core: "mappings" }): the widgets that draw
// mappings only) until something asks for the full one, which then replaces it for every
// function (calls are synchronous, so the swap falls between two calls; the old instance held
// nothing but the scratch region, which goes with it).
let wasm = null;         // the instance's exports, null until init() resolves
let memory = null;       // its WebAssembly.Memory
let heap = new Float32Array(0); // cached view over memory.buffer, rebuilt on growth
let heapI32 = new Int32Array(0); // the same bytes as int32 and as bytes (model.js: tokens,
let heapU8 = new Uint8Array(0);  // checkpoints, strings)
let build = null;        // { simd, abi, core }
const pending = { full: null, mappings: null }; // the memoised init() promise per core
let initSimd;            // the build the first pending/finished init() chose
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
 * `core`: "full" (the default: every function, Model and tasks) or "mappings" (the mappings,
 * their gradients, entropies, Jacobians and thresholds, from a module a quarter the size); once
 * the full core is asked for, it serves everything, and a later init({ core: "mappings" })
 * returns its promise.
 * `bytes` gives the module's bytes instead of a file to fetch (the single-file widget bundle
 * inlines them): they must be the build `simd` names (or the probed one when simd is omitted),
 * and either core (the module says which).
 * @param {{ simd?: boolean, core?: "full" | "mappings", url?: string | URL, bytes?: ArrayBuffer | ArrayBufferView }} [options]
 */
export function init(options) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object") {
    return Promise.reject(new TypeError(`init: options must be an object (got ${show(options)})`));
  }
  const { simd, url, bytes, core: want = "full" } = options;
  if (simd !== undefined && typeof simd !== "boolean") {
    return Promise.reject(new TypeError(`init: simd must be true, false or undefined (got ${show(simd)})`));
  }
  if (want !== "full" && want !== "mappings") {
    return Promise.reject(new TypeError(`init: core must be "full", "mappings" or undefined (got ${show(want)})`));
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
  const started = pending.full ?? pending.mappings;
  if (started !== null && simd !== undefined && simd !== initSimd) {
    const had = initSimd ? "SIMD" : "scalar";
    return Promise.reject(new Error(
      `init: simplexity is already initialised with the ${had} build; ` +
      `init({ simd: ${simd} }) must be the first call to init()`));
  }
  if (pending.full !== null) return pending.full; // the full core serves both
  if (want === "mappings" && pending.mappings !== null) return pending.mappings;
  if (started === null) initSimd = simd === undefined ? hasSimd() : simd;
  const promise = loadWasm({
    simd: bytes === undefined ? initSimd : simd, core: want, url, bytes,
    onMemoryGrowth: () => { if (memory !== null) refreshHeap(); },
  }).then((loaded) => {
    // given bytes or a url may hold the full core where the mappings were asked for
    if (loaded.core === "full") pending.full ??= promise;
    if (loaded.core === "full" || build === null || build.core !== "full") install(loaded);
    return info();
  }).catch((err) => {
    if (pending[want] === promise) pending[want] = null; // let the caller retry
    if (pending.full === promise) pending.full = null;
    throw err;
  });
  pending[want] = promise;
  return promise;
}

/** Make a loaded instance the one every function calls. */
function install(loaded) {
  wasm = loaded.exports;
  memory = loaded.memory;
  initSimd = loaded.simd; // given bytes decide the build
  build = { simd: loaded.simd, abi: loaded.abi, core: loaded.core };
  scratchPtr = 0; // the scratch region was the previous instance's
  scratchFloats = 0;
  instanceId++; // and the WasmArrays allocated so far
  refreshHeap();
}

/** Which build and core are running, the ABI and the current size of its memory in bytes. */
export function info() {
  ready("info");
  return { simd: build.simd, core: build.core, abi: build.abi, memoryBytes: memory.buffer.byteLength };
}

function ready(fn) {
  if (wasm === null) {
    throw new Error(`${fn}: simplexity is not initialised yet: call \`await init()\` first`);
  }
}

/** ready() for the functions only the full core has. */
function readyFull(fn) {
  ready(fn);
  if (build.core !== "full") {
    throw new Error(`${fn}: needs the full core, but only the mappings core is loaded ` +
      '(init({ core: "mappings" })): call `await init()` first');
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
const F32 = 0, F64 = 1, ARR = 2, WASM = 3; // WASM: a WasmArray (alloc()), already in wasm memory
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
  if (x instanceof WasmArray) {
    inKind = WASM;
    return arrayLength(fn, name, x);
  }
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
    `${fn}: ${name} must be a Float32Array, a WasmArray or an array of numbers (got ${show(x)})`);
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

/** An output buffer given by the caller: a (real, attached) Float32Array or a live WasmArray of
 *  `len` elements. */
function bufferArg(fn, name, out, len, what) {
  if (out instanceof WasmArray) {
    const n = arrayLength(fn, name, out);
    if (n !== len) throw new RangeError(`${fn}: ${name}.length (${n}) must equal ${what} (${len})`);
    return out;
  }
  if (typedName(out) !== "Float32Array") {
    throw new TypeError(`${fn}: ${name} must be a Float32Array or a WasmArray (got ${show(out)})`);
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
  if (kind === WASM) {
    const from = arrayPtr(fn, name, src) >>> 2;
    if (from !== at) heap.copyWithin(at, from, from + len);
    return;
  }
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
  if (out instanceof WasmArray) {
    const to = arrayPtr(fn, name, out) >>> 2;
    if (to !== at) h.copyWithin(to, at, at + len);
    return out;
  }
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

// ---------------------------------------------------- caller-owned wasm arrays
// alloc(length) gives a WasmArray: floats that live in wasm memory until free(). Passed as an
// input or as `out`, it is read or written where it is: the mappings, their backward passes and
// the per-row functions pass its address to the core (no copy), every other function copies
// within wasm memory. Its `array` is a Float32Array view over it, made again after the memory
// grows (a view taken before a call may be detached after it: read `array` again). Each array
// belongs to the instance it was allocated in: the swap to the full core voids the older ones.
let instanceId = 0;                 // install() counts the instances
const arrayState = new WeakMap();   // WasmArray -> { ptr, length, instance, view }
const arrayRegistry = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry(({ ptr, instance }) => { if (instance === instanceId && wasm !== null) wasm.sx_free(ptr); })
  : null;
const ALLOC = Symbol("alloc"); // alloc()'s private path into the constructor

/** Floats in wasm memory, owned by the caller (see alloc()). */
export class WasmArray {
  constructor(key) {
    if (key !== ALLOC) throw new TypeError("WasmArray: use alloc(length) to make one");
  }

  /** Number of floats. */
  get length() {
    const st = arrayState.get(this);
    return st === undefined ? 0 : st.length;
  }

  /** True once free() was called, or when the full core has replaced the instance it was made in. */
  get freed() {
    const st = arrayState.get(this);
    return st === undefined || st.ptr === 0 || st.instance !== instanceId;
  }

  /** A Float32Array over the floats (the same one until wasm memory grows). */
  get array() {
    const st = liveArray("WasmArray.array", "this WasmArray", this);
    if (st.view === null || st.view.buffer !== memory.buffer) st.view = new Float32Array(memory.buffer, st.ptr, st.length);
    return st.view;
  }

  /** Give the memory back. Idempotent; any later use throws. */
  free() {
    const st = arrayState.get(this);
    if (st === undefined || st.ptr === 0) return;
    if (st.instance === instanceId) wasm.sx_free(st.ptr);
    if (arrayRegistry) arrayRegistry.unregister(this);
    st.ptr = 0;
    st.view = null;
  }
}

/**
 * A WasmArray of `length` floats, zeroed, in wasm memory (16-byte aligned): an input or `out`
 * that no call copies. Free it with free() (or it is freed when collected).
 */
export function alloc(length) {
  const fn = "alloc";
  ready(fn);
  if (typeof length !== "number") throw new TypeError(`${fn}: length must be an integer >= 1 (got ${show(length)})`);
  if (!Number.isInteger(length) || length < 1 || length > MAX_FLOATS) {
    throw new RangeError(`${fn}: length must be an integer in [1, ${MAX_FLOATS}] (got ${show(length)})`);
  }
  const ptr = wasm.sx_malloc(4 * length) >>> 0;
  if (ptr === 0) throw new SimplexityError(`${fn}: out of wasm memory: cannot allocate ${4 * length} bytes`, SX_ENOMEM);
  if (heap.buffer !== memory.buffer) refreshHeap();
  heap.fill(0, ptr >>> 2, (ptr >>> 2) + length);
  const a = new WasmArray(ALLOC);
  const st = { ptr, length, instance: instanceId, view: null };
  arrayState.set(a, st);
  if (arrayRegistry) arrayRegistry.register(a, { ptr, instance: st.instance }, a);
  return a;
}

/** A WasmArray's state, live and of this instance, or a TypeError naming the argument. */
function liveArray(fn, name, a) {
  const st = arrayState.get(a);
  if (st === undefined) throw new TypeError(`${fn}: ${name} is not a WasmArray made by alloc()`);
  if (st.ptr === 0) throw new TypeError(`${fn}: ${name} is a freed WasmArray`);
  if (st.instance !== instanceId) {
    throw new TypeError(`${fn}: ${name} is a WasmArray of the mappings core, which the full core has replaced: alloc() it again`);
  }
  return st;
}

const arrayLength = (fn, name, a) => liveArray(fn, name, a).length;
const arrayPtr = (fn, name, a) => liveArray(fn, name, a).ptr;

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
let cDirect = false; // the core writes the result into cOut, a WasmArray, where it is
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
  if (kind === WASM || out instanceof WasmArray) return prepareForwardWasm(fn, x, out, kind, len, n, t, temp, extra);
  const seg = pad4(len);
  if (2 * seg + extra > scratchFloats || len > BIG_LEN) fitCall(fn, 2 * seg + extra, temp * n);
  const src = kind === ARR ? stageArray(fn, "x", x, len) : x;
  const at = scratch(fn, 2 * seg + extra);
  copyIn(fn, "x", src, at + seg, len, kind);
  cOut = out; cDirect = false; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
  pExtra = (at + 2 * seg) << 2;
}

/** prepareForward with a WasmArray x or out: those are used where they are (no copy); the core
 *  reads x and writes out in place (an out that is x itself goes through scratch). */
function prepareForwardWasm(fn, x, out, kind, len, n, t, temp, extra) {
  const direct = out instanceof WasmArray && out !== x;
  const rSeg = direct ? 0 : pad4(len), xSeg = kind === WASM ? 0 : pad4(len);
  const floats = rSeg + xSeg + extra;
  fitCall(fn, floats, temp * n);
  const src = kind === ARR ? stageArray(fn, "x", x, len) : x;
  const at = scratch(fn, Math.max(floats, 1));
  if (kind !== WASM) copyIn(fn, "x", src, at + rSeg, len, kind);
  cOut = out; cDirect = direct; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  // the addresses last: reading an Array above ran user code, which may have freed an array
  pRes = direct ? arrayPtr(fn, "out", out) : at << 2;
  pX = kind === WASM ? arrayPtr(fn, "x", x) : (at + rSeg) << 2;
  pExtra = (at + rSeg + xSeg) << 2;
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
  if (kx === WASM || kd === WASM || out instanceof WasmArray) {
    return prepareBackwardWasm(fn, x, dy, out, kx, kd, len, n, t, temp, extra);
  }
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
  cOut = out; cDirect = false; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = at << 2;
  pX = (at + seg) << 2;
  pDy = (at + 2 * seg) << 2;
  pExtra = (at + 3 * seg) << 2;
}

/** prepareBackward with a WasmArray among x, dy and out (see prepareForwardWasm). */
function prepareBackwardWasm(fn, x, dy, out, kx, kd, len, n, t, temp, extra) {
  const direct = out instanceof WasmArray && out !== x && out !== dy;
  const seg = pad4(len);
  const rSeg = direct ? 0 : seg, xSeg = kx === WASM ? 0 : seg, dSeg = kd === WASM ? 0 : seg;
  const floats = rSeg + xSeg + dSeg + extra;
  fitCall(fn, floats, temp * n);
  let xs = x, ds = dy;
  if (kx === ARR || kd === ARR) {
    xs = stageArrays(fn, x, dy, kx, kd, len);
    ds = stagedDy;
  }
  const at = scratch(fn, Math.max(floats, 1));
  if (kx !== WASM) copyIn(fn, "x", xs, at + rSeg, len, kx);
  if (kd !== WASM) copyIn(fn, "dy", ds, at + rSeg + xSeg, len, kd);
  cOut = out; cDirect = direct; cAt = at; cLen = len; cRows = len / n; cN = n; cT = t;
  pRes = direct ? arrayPtr(fn, "out", out) : at << 2;
  pX = kx === WASM ? arrayPtr(fn, "x", x) : (at + rSeg) << 2;
  pDy = kd === WASM ? arrayPtr(fn, "dy", dy) : (at + rSeg + xSeg) << 2;
  pExtra = (at + rSeg + xSeg + dSeg) << 2;
}

/** The C status to an error, or the result copied out of scratch. */
function finish(fn, status) {
  if (status !== 0) throw coreError(fn, status);
  if (cDirect) return cOut;
  return copyOut(fn, "out", cOut, cAt, cLen);
}

// ------------------------------------------------------------------- the mappings
// An empty x never reaches wasm: `cLen === 0 ? 0 : call`.
// The core's temporaries per element of a row, in bytes (upper bounds; core/src): entmax's
// bisection keeps 24 bytes for each of 4 rows at once below alpha 2, for one row above (and in
// entmaxAlphaGrad); its backward pass runs the forward, then keeps a double per element;
// fusedmax 24 (+4 backward); oscarmax 48 (+4 backward). softmax, sparsemax and entmax15 (entmax
// at alpha 1, 1.5 and 2) take none.
const T_FUSEDMAX = 28, T_OSCARMAX = 52, T_ROW = 24;

function entmaxTemp(alpha, forward) {
  const a = Math.fround(alpha);
  if (a === 1 || a === 1.5 || a === 2) return 0;
  return (a < 2 ? 4 * T_ROW : T_ROW) + (forward ? 0 : 8);
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

// ------------------------------------------------------- the model and the tasks
// model.js holds no state: it gets this instance's wasm, views and scratch through `core`.
// The view getters re-check for a detached buffer, so a view is never kept across a call.
const core = {
  ready(fn) {
    readyFull(fn);
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

// blocks.js gets this module's internals and accessors of its mutable state (its functions run
// only once the full core is in, and read the views afresh each call).
const lib = {
  ATTN_PARAMS, CALL_MAX_BYTES, F32, JACOBIAN_MAPPINGS, MAX_FLOATS, TOO_LARGE, T_FUSEDMAX, T_OSCARMAX, bufferArg,
  copyIn, copyOut, coreError, detached, entmaxTemp, fitCall, inputArg, mappingArg,
  newFloats, optionsArg, outArg, pad4, paramArg, readIn, readyFull, rowLength,
  scratch, show, temperatureArg, typedLength, typedName,
  exports: () => wasm,
  f32: () => core.f32(),
  i32: () => core.i32(),
  u8: () => core.u8(),
  inKind: () => inKind,
};

/** What simplexity.js hands model.js and blocks.js (not part of the API). */
export const internal = Object.freeze({ core, lib });
