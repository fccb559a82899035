// write-words.test.mjs - runtime/words.js (<sx-write>'s "every word it could write next"): the
// level-by-level enumeration against a recursive depth-first one over the same distributions,
// on a small synthetic character model whose words close (the shipped sparse-output model keeps
// ~20 characters in its support, so its lists pass any small cap: tests/browser/write.mjs checks
// the widget against the library there), the cap, the depth limit and the context rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { wordContinuations, advanceContext, endsWord } from "../../web/widgets/runtime/words.js";

const CHARS = "\n abc.", OFF = 3, V = OFF + CHARS.length;
/** A deterministic sparse next-character distribution of a context (a hash of its last 3 chars). */
function model(ctx) {
  let h = 2166136261;
  for (const c of ctx.slice(-3)) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const p = new Float64Array(V), letters = ctx.length % 5 === 4 ? 0 : 1 + (h % 2); // words close
  const pick = [OFF + 1 + (h % 2 ? 0 : 4)]; // a space or a full stop
  for (let k = 0; k < letters; k++) pick.push(OFF + 2 + ((h >>> (3 + k)) % 3));
  for (const v of pick) p[v] += 1 / pick.length;
  return p;
}

function dfs(context, maxLen, cap) {
  const found = [];
  let nodes = 0, over = false;
  const go = (ctx, w, p) => {
    const q = model(ctx);
    for (let v = OFF; v < V && !over; v++) {
      if (!(q[v] > 0)) continue;
      if (++nodes > cap) { over = true; return; }
      const ch = CHARS[v - OFF];
      if (endsWord(ch)) found.push({ word: w + ch, p: p * q[v] });
      else go(advanceContext(ctx, ch, maxLen), w + ch, p * q[v]);
    }
  };
  go(context, "", 1);
  return { over, words: found.sort((a, b) => b.p - a.p || (a.word < b.word ? -1 : 1)) };
}

const dist = (contexts) => contexts.map(model);

test("the list equals a depth-first enumeration, words and probabilities, with the mass 1", () => {
  let lists = 0;
  for (const ctx of ["a", "ab", "abc a", "b.", "cab", "c\nab", "aaaa", "bcb c"]) {
    const r = wordContinuations(ctx, { dist, chars: CHARS, offset: OFF, maxLen: 8, cap: 10000 });
    const d = dfs(ctx, 8, 10000);
    assert.equal(r.overflow, false);
    assert.equal(r.complete, true, ctx);
    assert.deepEqual(r.words.map((w) => w.word), d.words.map((w) => w.word), ctx);
    r.words.forEach((w, k) => assert.ok(Math.abs(w.p - d.words[k].p) < 1e-12));
    assert.ok(Math.abs(r.words.reduce((a, w) => a + w.p, 0) - 1) < 1e-9, `${ctx}: mass`);
    lists += r.words.length > 1;
  }
  assert.ok(lists >= 4, "several contexts have more than one word");
});

test("past the cap: overflow and no list, exactly when the depth-first search passes it", () => {
  for (const cap of [1, 2, 3, 5, 8, 13, 40]) {
    for (const ctx of ["a", "abc a", "cab"]) {
      const r = wordContinuations(ctx, { dist, chars: CHARS, offset: OFF, maxLen: 8, cap });
      assert.equal(r.overflow, dfs(ctx, 8, cap).over, `${ctx} cap ${cap}`);
      if (r.overflow) assert.deepEqual(r.words, []);
    }
  }
});

test("the depth limit leaves prefixes unfinished; the context rule is TextModel.generate's", () => {
  const r = wordContinuations("a", { dist, chars: CHARS, offset: OFF, maxLen: 8, cap: 10000, depth: 1 });
  assert.ok(r.unfinished > 0 && !r.complete);
  assert.equal(advanceContext("1234567", "8", 8), "12345678");
  assert.equal(advanceContext("12345678", "9", 8), "6789");
  assert.ok(endsWord(" ") && endsWord(".") && endsWord("\n") && !endsWord("a") && !endsWord("'") && !endsWord("7"));
});
