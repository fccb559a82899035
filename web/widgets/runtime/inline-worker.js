// inline-worker.js - a widget's Web Worker given as code rather than as a file. Each session
// module (train-, explain-, bottleneck-, write-tune-, rationale-session.js) starts its worker from
// the module file beside it (<name>-worker.js), unless the page registered the worker's code here
// (workerSeam() gives each its setter, info and start): tools/bundle.mjs's single-file build, which has no file beside it, does so
// for every worker before any widget runs, with the wasm bytes the page already holds. The worker
// then starts from a Blob URL of that code and gets the bytes in its start message (init({ bytes })
// there). The bundle registers one code for every worker, which picks the worker to run from its
// URL's fragment (blob:...#train-worker.js); a worker's own code ignores the fragment. A CSP
// without worker-src blob: refuses it: the widget then runs on the main thread.
const inlined = new Map(); // worker file -> { source, wasm }
const urls = new Map(); // source -> its Blob URL (one per code, however many workers it serves)

/**
 * Register `file`'s code (`source`, the module worker's whole code, its imports bundled in) and
 * the wasm `bytes` to post it; fn names the public setter in errors. A second call replaces the
 * first (its Blob URL is revoked once no worker uses that code).
 * @param {string} fn
 * @param {string} file
 * @param {{ source: string, wasm: ArrayBuffer | ArrayBufferView }} options
 */
export function setInlineWorker(fn, file, options) {
  const { source, wasm } = options || {};
  if (typeof source !== "string" || source.length === 0) {
    throw new TypeError(`${fn}: source must be a non-empty string (got ${typeof source})`);
  }
  if (!(wasm instanceof ArrayBuffer) && !ArrayBuffer.isView(wasm)) {
    throw new TypeError(`${fn}: wasm must be an ArrayBuffer or a typed array (got ${wasm === null ? "null" : typeof wasm})`);
  }
  const old = inlined.get(file);
  inlined.set(file, { source, wasm });
  if (old && urls.has(old.source) && ![...inlined.values()].some((c) => c.source === old.source)) {
    URL.revokeObjectURL(urls.get(old.source));
    urls.delete(old.source);
  }
}

/**
 * Where `file`'s worker comes from: { kind, name, wasm }. The module file (kind "file"; wasm
 * undefined: the worker fetches its own), or, once registered, a Blob URL of its code (kind
 * "blob") and the bytes to post it.
 */
export function inlineWorkerInfo(file) {
  const c = inlined.get(file);
  return c ? { kind: "blob", name: "a blob: URL", wasm: c.wasm } : { kind: "file", name: file, wasm: undefined };
}

/** A module worker from `file`'s registered code (its URL's fragment names file), or null. */
export function startInlineWorker(file) {
  const c = inlined.get(file);
  if (!c) return null;
  if (!urls.has(c.source)) urls.set(c.source, URL.createObjectURL(new Blob([c.source], { type: "text/javascript" })));
  return new Worker(`${urls.get(c.source)}#${file}`, { type: "module" });
}

/**
 * A session module's three exports for its worker `file`: `set(options)`, the public setter
 * (setInlineWorker, its errors naming `setter`: tools/bundle.mjs's single-file build calls it);
 * `info()`, where the worker comes from (inlineWorkerInfo); `start()`, the registered code's worker,
 * else `startFile()`'s. startFile must be the session module's own
 * `() => new Worker(new URL("./<file>", import.meta.url), { type: "module" })`, written out there:
 * bundlers (Vite, webpack, Parcel) find a worker only by that literal, in the module beside it.
 * start() throws what `new Worker` throws.
 * @param {string} setter
 * @param {string} file
 * @param {() => Worker} startFile
 */
export function workerSeam(setter, file, startFile) {
  return {
    set: (options) => setInlineWorker(setter, file, options),
    info: () => inlineWorkerInfo(file),
    start: () => startInlineWorker(file) ?? startFile(),
  };
}
