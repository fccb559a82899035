// model-store.js - the reader's own models, kept in this browser: IndexedDB database
// "simplexity", object store "models". <sx-attention>'s, one record per "<task>-<kind>" (its key):
//   { key, task, kind, bytes (the .sxm checkpoint, a Uint8Array), source ("trained" | "file"),
//     name (the file's name, or null), date (ms since 1970), steps (or null), accuracy (held-out
//     exact fraction, or null), examples (how many held-out examples that was) }
// <sx-write>'s fine-tuned character models, as many as the reader keeps, keys "text:<date>":
//   { key, task: "text", kind (the shipped model it started from), vocab ({ chars, token_offset }),
//     bytes, source: "tuned", name (what the menu says), date, steps, lr (the learning rate; absent
//     in records kept before it was recorded), loss, held (the last train and held-out losses) }
// Both kinds share the store and its version: neither reads the other's keys.
// Reading never creates the database (a visitor who never trains or loads a model gets none):
// the first open is aborted in its upgrade when it only reads. Every call answers within
// TIMEOUT_MS; where IndexedDB is missing or refuses (a private window, a sandboxed iframe, a
// quota, a blocked upgrade) the promise rejects with an Error saying why, and the widget says it
// cannot keep the model. No DOM, no dependency.

const DB = "simplexity", STORE = "models", VERSION = 1, TIMEOUT_MS = 4000;

let db = null; // the open connection, once one was created or found
let queue = Promise.resolve(); // one operation at a time, in call order (a forget after a save wins)
function serial(f) {
  const p = queue.then(f, f);
  queue = p.catch(() => {});
  return p;
}

// A request or a transaction as a promise, with a time limit.
function settle(target, what, done) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`IndexedDB did not answer (${what})`)), TIMEOUT_MS);
    const end = (f, v) => { clearTimeout(timer); f(v); };
    done(target, (v) => end(resolve, v), (err) => end(reject, err));
  });
}
const why = (err, what) => new Error(`${what}: ${err && err.message ? err.message : err && err.name ? err.name : "refused"}`);

// The database, or null when reading and there is none (create: make it when missing).
async function open(create) {
  if (db) return db;
  let req;
  try {
    if (typeof indexedDB === "undefined" || !indexedDB) throw new Error("not available here");
    req = indexedDB.open(DB, VERSION);
  } catch (err) {
    throw why(err, "IndexedDB");
  }
  let aborted = false;
  const conn = await settle(req, "open", (r, ok, no) => {
    r.onupgradeneeded = () => {
      if (create) r.result.createObjectStore(STORE, { keyPath: "key" });
      else { aborted = true; r.transaction.abort(); }
    };
    r.onsuccess = () => ok(r.result);
    r.onerror = (e) => { e.preventDefault(); if (aborted) ok(null); else no(why(r.error, "IndexedDB")); };
    r.onblocked = () => no(new Error("IndexedDB: blocked by another tab's older version"));
  });
  if (!conn) return null;
  conn.onversionchange = () => { conn.close(); if (db === conn) db = null; };
  return (db = conn);
}

// One operation on the store: fn(store) -> an IDBRequest whose result is the answer.
async function run(create, mode, fn) {
  const conn = await open(create);
  if (!conn) return undefined;
  let tx;
  try {
    tx = conn.transaction(STORE, mode);
  } catch (err) {
    throw why(err, "IndexedDB");
  }
  const req = fn(tx.objectStore(STORE));
  return settle(tx, mode, (t, ok, no) => {
    t.oncomplete = () => ok(req.result);
    t.onerror = (e) => { e.preventDefault(); no(why(t.error || req.error, "IndexedDB")); };
    t.onabort = () => no(why(t.error || req.error, "IndexedDB"));
  });
}

/** The record kept for key ("<task>-<kind>"), or null. */
export function getModel(key) {
  return serial(() => run(false, "readonly", (s) => s.get(key))).then((r) => (r && r.bytes instanceof Uint8Array ? r : null));
}

/** The keys of every record kept, sorted. */
export function listModels() {
  return serial(() => run(false, "readonly", (s) => s.getAllKeys())).then((keys) => (Array.isArray(keys) ? keys.map(String) : []));
}

/** <sx-write>'s kept character models (keys "text:..."), well-formed ones only, oldest first. */
export function listTextModels() {
  return serial(() => run(false, "readonly", (s) => s.getAll(IDBKeyRange.bound("text:", "text:\uffff")))).then((rs) =>
    (Array.isArray(rs) ? rs : []).filter((r) => r && r.task === "text" && r.bytes instanceof Uint8Array && r.vocab && typeof r.vocab.chars === "string")
      .sort((a, b) => a.date - b.date));
}

/** Keep a record (replacing the one of its key). */
export function putModel(record) {
  return serial(() => run(true, "readwrite", (s) => s.put(record))).then(() => {});
}

/** Forget the record of key (nothing to forget is fine). */
export function deleteModel(key) {
  return serial(() => run(false, "readwrite", (s) => s.delete(key))).then(() => {});
}
