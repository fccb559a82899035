// runtime/words.js - every word a sparse-output character model could write next (<sx-write>):
// the continuations of the current word with nonzero probability, found over each step's
// support (a level at a time, so one batched forward pass serves every prefix of a length) until
// a character that ends a word (anything but a letter, a digit or an apostrophe), each with its
// probability (the product of its characters'). The contexts follow TextModel.generate's rule
// (advanceContext): a context past maxLen is cut to its last maxLen / 2 characters.

/** The context after writing ch, as TextModel.generate keeps it. */
export function advanceContext(ctx, ch, maxLen) {
  const c = ctx + ch;
  return c.length > maxLen ? c.slice(-(maxLen / 2 | 0)) : c;
}

/** True for a character that ends a word (it is written as the word's last character). */
export const endsWord = (ch) => !/[A-Za-z0-9']/.test(ch);

/**
 * { words: [{ word, p }] (most probable first; ties by the word), complete, overflow (more than
 * cap prefixes and words visited in all: then no words), unfinished (prefixes still open at
 * depth characters, not listed) }.
 * dist(contexts) returns the next-token distribution of each context (arrays over the tokens).
 */
export function wordContinuations(context, { dist, chars, offset, maxLen, cap = 200, depth = 24 }) {
  const words = [];
  let frontier = [{ ctx: context, w: "", p: 1 }], overflow = false, visited = 0;
  for (let d = 0; frontier.length > 0 && d < depth && !overflow; d++) {
    const probs = dist(frontier.map((n) => n.ctx)), next = [];
    frontier.forEach((n, i) => {
      const q = probs[i];
      for (let v = offset; v < offset + chars.length; v++) {
        if (!(q[v] > 0)) continue;
        const ch = chars[v - offset];
        const m = { ctx: advanceContext(n.ctx, ch, maxLen), w: n.w + ch, p: n.p * q[v] };
        (endsWord(ch) ? words : next).push(m);
        visited++;
      }
    });
    if (visited > cap) overflow = true;
    frontier = next;
  }
  const unfinished = overflow ? 0 : frontier.length;
  const out = words.map((m) => ({ word: m.w, p: m.p })).sort((a, b) => b.p - a.p || (a.word < b.word ? -1 : 1));
  return { words: overflow ? [] : out, complete: !overflow && unfinished === 0, overflow, unfinished };
}
