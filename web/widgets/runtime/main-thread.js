// main-thread.js - a Worker look-alike that runs a widget's session on the page's main thread,
// where no worker can be started (the file missing where a bundler did not emit it, a CSP that
// refuses the single-file bundle's blob: worker). Each session module (train-, explain-,
// bottleneck-, write-tune-, rationale-session.js) gives its session to it; startSession() starts a
// widget's run in a worker and falls back to it.

/** A task of its own after the page's: setTimeout lets the browser draw a frame and handle input
 * in between (Chromium gives rendering its turn once a frame is due). */
export const pageTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * postMessage, terminate, onmessage, onerror, onmessageerror, as a Worker has them, over the
 * session `start({ post, pause })` returns ({ receive(msg), terminate() }): post delivers a
 * message to onmessage, pause is pageTurn. Messages to the session go as tasks of their own, as a
 * worker's would; views are handed over, not copied.
 */
export class MainThreadSession {
  constructor(start) {
    this.onmessage = this.onerror = this.onmessageerror = null;
    this._session = start({ post: (data) => { if (this.onmessage) this.onmessage({ data }); }, pause: pageTurn });
  }

  postMessage(msg) { setTimeout(() => this._session.receive(msg), 0); }

  terminate() {
    this._session.terminate();
    this.onmessage = this.onerror = this.onmessageerror = null;
  }
}

/**
 * Start a run of a session module's session: in a Web Worker from `startWorker()` (posted `start`,
 * with `info().wasm`, the single-file bundle's bytes, as its `wasm` where there are any), or in a
 * `new MainThreadClass()` where no worker runs it: startWorker throws, posting throws, `refused`
 * (a Map: worker source kind -> why, shared by a widget's runs) already holds info().kind, or the
 * worker errors before it was heard from (its file missing, a CSP refusing it: recorded in
 * refused). Every message of the session goes to onMessage(msg); a worker's error once heard from
 * to onError(event) (default: onMessage({ type: "error", message })); a fallback after the
 * start to onFallback({ worker, thread, why }). The worker's errors are ignored once `current()`
 * is false. heard() says whether the worker was heard from (default: it posted a message).
 * Returns { worker, thread: "worker" | "main", why: null or why it runs on the main thread }.
 */
export function startSession({ startWorker, info, MainThreadClass, start, onMessage, onError, onFallback,
  onMessageError, current, refused = null, heard }) {
  const where = info();
  const here = (why) => {
    const worker = new MainThreadClass();
    worker.onmessage = (e) => onMessage(e.data);
    worker.postMessage(start);
    return { worker, thread: "main", why };
  };
  const refuse = (why) => { if (refused) refused.set(where.kind, why); return here(why); };
  if (refused && refused.has(where.kind)) return here(refused.get(where.kind));
  let worker, spoke = false;
  try {
    worker = startWorker();
    worker.onmessage = (e) => { spoke = true; onMessage(e.data); };
    worker.onerror = (e) => {
      if (e.preventDefault) e.preventDefault();
      if (!current()) return;
      if (heard ? heard() : spoke) {
        if (onError) onError(e);
        else onMessage({ type: "error", message: e.message || "the worker failed" });
        return;
      }
      drop(worker);
      onFallback(refuse(where.kind === "blob" ? "a blob: worker was refused (the page's CSP must allow worker-src blob:)"
        : `${where.name} could not be loaded as a module worker`));
    };
    if (onMessageError) worker.onmessageerror = onMessageError;
    worker.postMessage(where.wasm === undefined ? start : { ...start, wasm: where.wasm });
  } catch (err) {
    const what = err && err.message ? err.message : String(err);
    if (worker) { drop(worker); return here(`the worker could not be sent its start (${what})`); }
    return refuse(`no Web Worker (${what})`);
  }
  return { worker, thread: "worker", why: null };
}

function drop(worker) {
  worker.onmessage = worker.onerror = worker.onmessageerror = null;
  worker.terminate();
}
