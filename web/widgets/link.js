// link.js - links that keep what the reader set. A widget's state is its attributes (the ones a
// blog author writes, the bars and sliders write them back), so a link to a widget as set is
//   <page URL>#<widget id>?<attribute>=<value>&...      (URLSearchParams encoding)
// the widget's id, or "<tag>-<n>" for the n-th such tag on the page when it has none. base.js
// fetches this module on the first "Link" click, when the page's fragment holds a "?" as a widget
// connects, and when the fragment changes to one.
//   copy(el)     the link to the clipboard (or, where the page may not write it, shown to copy)
//   restore(el)  the fragment applied to el if it names el (to every widget on the page without el)
//   live(el)     the page's URL follows el (link="live"), at most every LIVE_MS
// A link is the widget's whole state: the state attributes it names are set exactly as if the
// author had written them (a bad value gets the widget's usual message and its default), those it
// leaves out are removed (their defaults). `theme`, `link` and the attributes a class lists in
// `static authorOnly` (where its data and models come from, `no-train`) are the page's: a link
// never carries them. Names a link cannot set, and a fragment that names no widget of the page,
// leave a message in the widget.
import { SxElement } from "./base.js";

const PAGE_ONLY = ["theme", "link"];
const LIVE_MS = 250;

/** The attributes that are el's state: what a link carries and sets. */
export function stateNames(el) {
  const skip = [...PAGE_ONLY, ...(el.constructor.authorOnly || [])];
  return el.constructor.observedAttributes.filter((n) => !skip.includes(n));
}

/** The id a link names el by: its own, else "<tag>-<n>" (the n-th of its tag in the document). */
export function idOf(el) {
  return el.id || `${el.localName}-${[...document.getElementsByTagName(el.localName)].indexOf(el) + 1}`;
}

/** The link to el as it is set: the page's URL without its fragment, then #<id>?<state>. */
export function linkOf(el) {
  const q = new URLSearchParams();
  for (const n of stateNames(el)) if (el.hasAttribute(n)) q.append(n, el.getAttribute(n));
  return `${location.href.split("#")[0]}#${encodeURIComponent(idOf(el))}?${q}`;
}

/** The fragment read: { id, params (name -> value), problems } (null without a "?"). */
export function parseFragment(hash) {
  const at = hash.indexOf("?");
  if (at < 0) return null;
  const problems = [], params = new Map();
  let id = null;
  try { id = decodeURIComponent(hash.slice(hash.startsWith("#") ? 1 : 0, at)); } catch { /* bad %-escape: no id */ }
  if (!id) problems.push(`link: "${hash.slice(0, 40)}" names no widget (a link is #<widget id>?<name>=<value>&...)`);
  for (const [k, v] of new URLSearchParams(hash.slice(at + 1))) {
    if (!k) problems.push(`link: "=${v.slice(0, 20)}" has no name`);
    else if (params.has(k)) problems.push(`link: ${k} is given twice; using the last`);
    if (k) params.set(k, v);
  }
  return { id, params, problems };
}

/** Sets el to the state a parsed fragment holds, and says what it could not set. */
export function apply(el, { params, problems }) {
  const names = stateNames(el), notes = [...problems];
  for (const n of names) if (!params.has(n)) el.removeAttribute(n);
  for (const [k, v] of params) {
    if (names.includes(k)) el.setAttribute(k, v);
    else if (el.constructor.observedAttributes.includes(k)) notes.push(`link: ${k} is set by the page, not by a link`);
    else if (k) notes.push(`link: <${el.localName}> has no setting "${k.slice(0, 30)}" (its settings: ${names.join(", ")})`);
  }
  note(el, notes);
}

// Notes (base.js shows them after the attributes' messages) last until the reader changes the widget.
function note(el, lines) {
  el._linkNotes = lines;
  el.invalidate();
  if (lines.length) el.addEventListener(`${el.localName}-change`, () => { el._linkNotes = []; }, { once: true });
}

const widgets = () => [...document.querySelectorAll("*")].filter((e) => e instanceof SxElement);
const takes = (w, f) => f.id && idOf(w) === f.id && w.getAttribute("link") !== "none";
let checked = null; // the fragment whose target was looked for on the whole page

export function restore(el) {
  const f = parseFragment(location.hash);
  if (!f) return;
  for (const w of el ? [el] : widgets()) {
    if (!takes(w, f)) continue;
    apply(w, f);
    requestAnimationFrame(() => w.scrollIntoView({ block: "start" }));
  }
  if (checked !== location.hash) { checked = location.hash; noTarget(f, location.hash); }
}

// Once every widget of the page is defined, a fragment that set none of them says why, in the
// widget it names or else in the first.
async function noTarget(f, hash) {
  const tags = new Set([...document.querySelectorAll(":not(:defined)")].map((e) => e.localName).filter((t) => t.startsWith("sx-")));
  await Promise.all([...tags].map((t) => customElements.whenDefined(t)));
  const all = widgets(), hit = f.id && all.find((w) => idOf(w) === f.id);
  if (location.hash !== hash || !all.length || all.some((w) => takes(w, f))) return;
  note(hit || all[0], !f.id ? f.problems : hit ? [`link: this widget takes no links (link="none")`]
    : [`link: no widget on this page has the id "${f.id.slice(0, 40)}" (the widgets: ${all.map(idOf).join(", ")})`]);
}

export async function copy(el) {
  const url = linkOf(el);
  try {
    await navigator.clipboard.writeText(url);
    note(el, [`Link copied: ${url}`]);
  } catch {
    note(el, [`Copy this link: ${url}`]); // no clipboard here (an insecure page, a refused permission)
  }
}

let liveTimer = 0, liveEl = null;
export function live(el) {
  liveEl = el;
  liveTimer ||= setTimeout(() => {
    liveTimer = 0;
    history.replaceState(history.state, "", linkOf(liveEl));
  }, LIVE_MS);
}
