// write-tune.js - <sx-write>'s fine-tuning on the reader's pasted text, the pure part (no DOM, no
// wasm; tests/js/write-tune.test.mjs): the text cleaned to the model's characters (line ends
// normalised, a few look-alikes mapped to the model's own - curly quotes, dashes, tabs,
// non-breaking spaces, the ellipsis - and every other unknown character dropped, each counted),
// then split into a training part and a held-out tail the training never reads, that tail cut
// into whole windows for the held-out loss. tuneText says in one sentence what it did, or why
// the text cannot be used. write-tune-session.js runs it in the worker; the widget runs it too, to
// answer before it starts one.

/** Fewest characters the model knows, after cleaning, for a run (a training part of a few
 *  windows and a held-out tail of at least one). */
export const MIN_CHARS = 256;
/** Most characters read (the rest of a longer paste is left out, and the note says so). */
export const MAX_CHARS = 200000;
/** The held-out tail: a tenth of the text, at least one window, at most HELD_WINDOWS windows. */
export const HELD_WINDOWS = 16;

const MAP = new Map([
  ["\t", " "], ["\u00a0", " "], ["\u2009", " "], ["\u202f", " "], ["\r", "\n"],
  ["\u2018", "'"], ["\u2019", "'"], ["\u201a", "'"], ["\u2032", "'"],
  ["\u201c", '"'], ["\u201d", '"'], ["\u201e", '"'], ["\u2033", '"'],
  ["\u2010", "-"], ["\u2011", "-"], ["\u2012", "-"], ["\u2013", "-"], ["\u2014", "--"], ["\u2212", "-"],
  ["\u2026", "..."],
]);

const quote = (c) => JSON.stringify(c);

/**
 * The text in the model's characters `chars` (a string): { text, mapped (how many characters
 * were replaced by look-alikes), dropped: [[char, count], ...] (most frequent first), droppedCount }.
 * A "\r\n" is one "\n", not counted.
 */
export function cleanText(text, chars) {
  if (typeof text !== "string") throw new TypeError(`cleanText: text must be a string (got ${text === null ? "null" : typeof text})`);
  if (typeof chars !== "string" || chars.length === 0) throw new TypeError(`cleanText: chars must be a non-empty string (got ${quote(chars)})`);
  const known = new Set(chars), dropped = new Map();
  let out = "", mapped = 0, droppedCount = 0;
  for (const c of text.replace(/\r\n/g, "\n")) { // by code point: an emoji is one dropped character
    if (known.has(c)) { out += c; continue; }
    const m = MAP.get(c);
    if (m !== undefined && [...m].every((x) => known.has(x))) { out += m; mapped++; continue; }
    dropped.set(c, (dropped.get(c) || 0) + 1);
    droppedCount++;
  }
  return { text: out, mapped, dropped: [...dropped].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)), droppedCount };
}

/** The held-out tail's length for a text of n characters and windows of `win`. */
export function heldLength(n, win) {
  return Math.min(Math.max(Math.floor(n / 10), win + 1), HELD_WINDOWS * win + 1);
}

/**
 * Cut `ids` (the held-out tail's tokens) into its whole windows of `win` tokens, one after the
 * other (the last partial one left out): rows for model.loss({ tgt: rows }).
 */
export function heldRows(ids, win) {
  const rows = [];
  for (let at = 0; at + win <= ids.length; at += win) rows.push(ids.slice(at, at + win));
  return rows;
}

/** "…: "é" ×3, "😀" ×2" (the first five kinds, then how many more). */
function droppedList(dropped) {
  const shown = dropped.slice(0, 5).map(([c, n]) => `${quote(c)} ×${n}`).join(", ");
  return dropped.length > 5 ? `${shown} and ${dropped.length - 5} other kinds` : shown;
}

/**
 * The pasted `text` made ready for a run of a model with characters `chars` and context `win`:
 * { ok: true, train, held, note } (note: what was mapped, dropped or left out, or "") or
 * { ok: false, message } saying why it cannot be used. Never throws on a string.
 */
export function tuneText(text, chars, win) {
  if (typeof text !== "string") return { ok: false, message: "paste some text to fine-tune on" };
  const c = cleanText(text, chars);
  const notes = [];
  if (c.mapped) notes.push(`${c.mapped} character${c.mapped === 1 ? "" : "s"} mapped to the model's (quotes, dashes, tabs, spaces)`);
  if (c.droppedCount) notes.push(`${c.droppedCount} dropped, not among the model's ${chars.length} characters: ${droppedList(c.dropped)}`);
  let t = c.text;
  if (t.length < MIN_CHARS) {
    const what = t.length === 0 && !c.droppedCount ? "the text is empty" : `only ${t.length} of its characters are the model's`;
    return { ok: false, message: `${what}: paste at least ${MIN_CHARS}${notes.length ? ` (${notes.join("; ")})` : ""}` };
  }
  if (t.length > MAX_CHARS) {
    notes.push(`only the first ${MAX_CHARS} of ${t.length} characters read`);
    t = t.slice(0, MAX_CHARS);
  }
  const h = heldLength(t.length, win);
  return { ok: true, train: t.slice(0, t.length - h), held: t.slice(t.length - h), note: notes.join("; ") };
}
