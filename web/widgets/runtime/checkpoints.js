// checkpoints.js - where the shipped models of the tiny Transformer are: models/<task>-<kind>.sxm
// beside this module (in dist/, in the npm package, in dist/site/, and beside the single-file
// bundle, into which this module is inlined at the same level).
//
// One literal `new URL("./models/<file>", import.meta.url)` per checkpoint, because that is the
// only form bundlers (Vite, webpack, Parcel, Rollup with an import-meta-assets plugin) turn into
// an emitted file: an app that bundles <sx-attention> or <sx-span-mask> carries the 28 files as
// assets, and a page fetches only the one a widget shows, when it shows it. A URL built from a
// variable would build without a warning and 404 in the page.

const CHECKPOINTS = {
  "reverse-softmax": () => new URL("../../models/reverse-softmax.sxm", import.meta.url),
  "reverse-entmax15": () => new URL("../../models/reverse-entmax15.sxm", import.meta.url),
  "reverse-alpha": () => new URL("../../models/reverse-alpha.sxm", import.meta.url),
  "reverse-alpha-span": () => new URL("../../models/reverse-alpha-span.sxm", import.meta.url),
  "reverse-entmax15-out": () => new URL("../../models/reverse-entmax15-out.sxm", import.meta.url),
  "reverse-sparsemax-out": () => new URL("../../models/reverse-sparsemax-out.sxm", import.meta.url),
  "sort-softmax": () => new URL("../../models/sort-softmax.sxm", import.meta.url),
  "sort-entmax15": () => new URL("../../models/sort-entmax15.sxm", import.meta.url),
  "sort-alpha": () => new URL("../../models/sort-alpha.sxm", import.meta.url),
  "sort-alpha-span": () => new URL("../../models/sort-alpha-span.sxm", import.meta.url),
  "sort-entmax15-out": () => new URL("../../models/sort-entmax15-out.sxm", import.meta.url),
  "sort-sparsemax-out": () => new URL("../../models/sort-sparsemax-out.sxm", import.meta.url),
  "after_marker-softmax": () => new URL("../../models/after_marker-softmax.sxm", import.meta.url),
  "after_marker-entmax15": () => new URL("../../models/after_marker-entmax15.sxm", import.meta.url),
  "after_marker-alpha": () => new URL("../../models/after_marker-alpha.sxm", import.meta.url),
  "after_marker-alpha-span": () => new URL("../../models/after_marker-alpha-span.sxm", import.meta.url),
  "after_marker-entmax15-out": () => new URL("../../models/after_marker-entmax15-out.sxm", import.meta.url),
  "after_marker-sparsemax-out": () => new URL("../../models/after_marker-sparsemax-out.sxm", import.meta.url),
  "date-softmax": () => new URL("../../models/date-softmax.sxm", import.meta.url),
  "date-entmax15": () => new URL("../../models/date-entmax15.sxm", import.meta.url),
  "date-alpha": () => new URL("../../models/date-alpha.sxm", import.meta.url),
  "date-alpha-span": () => new URL("../../models/date-alpha-span.sxm", import.meta.url),
  "date-entmax15-out": () => new URL("../../models/date-entmax15-out.sxm", import.meta.url),
  "date-sparsemax-out": () => new URL("../../models/date-sparsemax-out.sxm", import.meta.url),
  // structured attention (fusedmax, oscarmax), shipped for the two tasks with contiguous targets
  "after_marker-fusedmax": () => new URL("../../models/after_marker-fusedmax.sxm", import.meta.url),
  "after_marker-oscarmax": () => new URL("../../models/after_marker-oscarmax.sxm", import.meta.url),
  "date-fusedmax": () => new URL("../../models/date-fusedmax.sxm", import.meta.url),
  "date-oscarmax": () => new URL("../../models/date-oscarmax.sxm", import.meta.url),
};

// The decoder-only character models (<sx-write>): models/text/devil-<kind>.sxm, and the summary
// that carries their vocabulary (each entry's chars and token_offset, tools/train-gpt.c's JSON).
const TEXT_CHECKPOINTS = {
  softmax: () => new URL("../../models/text/devil-softmax.sxm", import.meta.url),
  entmax15: () => new URL("../../models/text/devil-entmax15.sxm", import.meta.url),
  "entmax15-out": () => new URL("../../models/text/devil-entmax15-out.sxm", import.meta.url),
};
export const TEXT_KINDS = Object.freeze(Object.keys(TEXT_CHECKPOINTS));
/** The URL of a shipped character model of `kind` (TEXT_KINDS). */
export const textCheckpointUrl = (kind) => TEXT_CHECKPOINTS[kind]();
/** The URL of web/models/text/summary.json (the character models' vocabulary and figures). */
export const textSummaryUrl = () => new URL("../../models/text/summary.json", import.meta.url);

// A checkpoint's bytes by URL, shared by every widget of the page (<sx-attention>, <sx-explain>):
// fetched once, when first shown. A failed fetch is forgotten (the next attempt fetches again).
const bytesCache = new Map();

/** The bytes of the checkpoint at `url` (a string), fetched once per page; rejects with the HTTP status. */
export function fetchCheckpoint(url) {
  if (!bytesCache.has(url)) {
    const p = fetch(url).then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status} ${r.statusText}`.trimEnd());
      return r.arrayBuffer();
    }).then((b) => new Uint8Array(b));
    p.catch(() => bytesCache.delete(url));
    bytesCache.set(url, p);
  }
  return bytesCache.get(url);
}

/**
 * A widget's checkpoint at `url` (a URL), fetched once per page and made a model by `load`
 * (Model.load: this module imports no model code): the latest request wins. The host keeps the
 * request's state in host._pending (the URL under way) and host._failed ({ key, message }: the
 * message its attribute errors show, so a failed URL is not fetched again until it changes);
 * done(model, bytes, key) takes the loaded model (the host frees the one it replaces); the host
 * is invalidated when the request ends, either way.
 */
export function loadCheckpoint(host, url, load, done) {
  const key = url.href;
  if (host._pending === key || (host._failed && host._failed.key === key)) return;
  host._pending = key;
  fetchCheckpoint(key).then((bytes) => {
    if (host._pending !== key) return;
    host._pending = null;
    let model;
    try { model = load(bytes); } catch (err) {
      host._failed = { key, message: `the model ${url.pathname.split("/").pop()} could not be loaded: ${err.message}` };
      host.invalidate();
      return;
    }
    host._failed = null;
    done(model, bytes, key);
    host.invalidate();
  }, (err) => {
    if (host._pending !== key) return;
    host._pending = null;
    host._failed = { key, message: `could not fetch the model ${url.href}: ${err.message}` };
    host.invalidate();
  });
}

/** The (task, kind) pairs that have a shipped checkpoint, as "<task>-<kind>". */
export const SHIPPED = Object.freeze(Object.keys(CHECKPOINTS));

/**
 * The URL of the checkpoint of (task, kind): models/<task>-<kind>.sxm in `folder` when one is
 * given (a URL or a string resolved against the page), else the shipped file beside this module.
 * Throws a RangeError for a pair that was never shipped (without `folder`).
 */
export function checkpointUrl(task, kind, folder) {
  const name = `${task}-${kind}`;
  if (folder !== undefined && folder !== null) {
    const base = String(folder).endsWith("/") ? String(folder) : `${folder}/`;
    return new URL(`${name}.sxm`, new URL(base, typeof document !== "undefined" ? document.baseURI : undefined));
  }
  if (!Object.hasOwn(CHECKPOINTS, name)) {
    throw new RangeError(`checkpointUrl: no shipped model "${name.slice(0, 40)}" (one of ${SHIPPED.join(", ")})`);
  }
  return CHECKPOINTS[name]();
}
