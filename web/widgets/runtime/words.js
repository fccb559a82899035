// runtime/words.js - every word a sparse-output character model could write next (<sx-write>):
// the continuations of the current word with nonzero probability, each with its probability (the
// product of its characters'), found over each step's support until a character that ends a word
// (anything but a letter, a digit or an apostrophe). The search is best-first: the open prefixes
// with the highest probability are expanded first, `batch` at a time (one batched forward pass
// per prefix length). When the whole tree of nonzero continuations fits in `cap` prefixes and
// words, the list is complete and every other continuation has probability exactly 0. Past the
// cap the search stops but keeps what it found: the words found, the probability still held by
// the open prefixes (exactly 1 minus the words' sum), and how many of the found words are surely
// the most probable of all (those at least as probable as the likeliest open prefix: no word
// below an open prefix can beat it). The contexts follow TextModel.generate's rule
// (advanceContext): a context past maxLen is cut to its last maxLen / 2 characters.

/** The context after writing ch, as TextModel.generate keeps it. */
export function advanceContext(ctx, ch, maxLen) {
  const c = ctx + ch;
  return c.length > maxLen ? c.slice(-(maxLen / 2 | 0)) : c;
}

/**
 * dist(contexts) over a TextModel for wordContinuations: one forward pass per context length
 * and per `chunk` contexts (a pass over all of a level's prefixes at once can need more
 * activations than the core allows: 1,255 contexts of 64 characters ask for 348 M floats).
 */
export function textModelDist(tm, chunk = 64) {
  const V = tm.model.config.vocab;
  return (contexts) => {
    const out = new Array(contexts.length), byLen = new Map();
    contexts.forEach((c, i) => { if (!byLen.has(c.length)) byLen.set(c.length, []); byLen.get(c.length).push(i); });
    for (const [len, all] of byLen) {
      for (let s = 0; s < all.length; s += chunk) {
        const idx = all.slice(s, s + chunk);
        const f = tm.model.forward(null, idx.map((i) => tm.encode(contexts[i])), { probs: true, attention: false });
        idx.forEach((i, r) => { out[i] = f.probs.slice(((r + 1) * len - 1) * V, (r + 1) * len * V); });
      }
    }
    return out;
  };
}

/** True for a character that ends a word (it is written as the word's last character). */
export const endsWord = (ch) => !/[A-Za-z0-9']/.test(ch);

/** A max-heap of prefixes by p (ties: the earlier pushed first, so the search is deterministic). */
class PrefixHeap {
  constructor() { this.a = []; this.n = 0; }
  get size() { return this.a.length; }
  get top() { return this.a[0]; }
  #less(i, j) { const x = this.a[i], y = this.a[j]; return x.p < y.p || (x.p === y.p && x.id > y.id); }
  #swap(i, j) { const t = this.a[i]; this.a[i] = this.a[j]; this.a[j] = t; }
  push(node) {
    node.id = this.n++;
    const a = this.a;
    a.push(node);
    for (let i = a.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (!this.#less(up, i)) break;
      this.#swap(up, i);
      i = up;
    }
  }
  pop() {
    const a = this.a, top = a[0], last = a.pop();
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.#less(m, l)) m = l;
        if (r < a.length && this.#less(m, r)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

/**
 * { words: [{ word, p }] (most probable first; ties by the word), complete (every continuation
 * with p > 0 is listed), overflow (the search passed cap prefixes and words visited: the list is
 * what it found), open (prefixes left unexpanded past the cap) and openMass (their probability),
 * sure (the first `sure` words are the most probable of all), unfinished (prefixes still open at
 * depth characters, not listed), visited }.
 * dist(contexts) returns the next-token distribution of each context (arrays over the tokens).
 */
export function wordContinuations(context, { dist, chars, offset, maxLen, cap = 200, depth = 24, batch = 32 }) {
  const words = [], heap = new PrefixHeap();
  heap.push({ ctx: context, w: "", p: 1 });
  let visited = 0, unfinished = 0, unfinishedMax = 0, overflow = false;
  while (heap.size > 0) {
    if (visited > cap) { overflow = true; break; }
    const nodes = [];
    while (nodes.length < batch && heap.size > 0) nodes.push(heap.pop());
    const probs = dist(nodes.map((n) => n.ctx));
    nodes.forEach((n, i) => {
      const q = probs[i];
      for (let v = offset; v < offset + chars.length; v++) {
        if (!(q[v] > 0)) continue;
        const ch = chars[v - offset], m = { ctx: advanceContext(n.ctx, ch, maxLen), w: n.w + ch, p: n.p * q[v] };
        visited++;
        if (endsWord(ch)) words.push(m);
        else if (m.w.length >= depth) { unfinished++; unfinishedMax = Math.max(unfinishedMax, m.p); }
        else heap.push(m);
      }
    });
  }
  const out = words.map((m) => ({ word: m.w, p: m.p })).sort((a, b) => b.p - a.p || (a.word < b.word ? -1 : 1));
  const best = Math.max(heap.size > 0 ? heap.top.p : 0, unfinishedMax);
  let openMass = 0;
  for (const n of heap.a) openMass += n.p;
  const sure = best > 0 ? out.filter((w) => w.p >= best).length : out.length;
  return { words: out, complete: !overflow && unfinished === 0, overflow, open: heap.size, openMass, sure, unfinished, visited };
}
