// main-thread.js - a Worker look-alike that runs a widget's session on the page's main thread,
// where no worker can be started (the file missing where a bundler did not emit it, a CSP that
// refuses the single-file bundle's blob: worker). Each session module (train-session.js,
// bottleneck-session.js, write-tune-session.js, explain-session.js) gives its session to it.

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
