// write-words.test.mjs - runtime/words.js (<sx-write>'s "every word it could write next"): the
// best-first search against a recursive depth-first enumeration over the same distributions, on
// a small synthetic character model whose words close (the shipped sparse-output models keep
// 12-20 characters in their support, so their lists rarely fit a small cap:
// tests/browser/write.mjs checks the widget against the library there); past the cap, what it
// keeps (the words found with their exact probabilities, the open mass, the words surely the
// most probable); the depth limit, the context rule, and textModelDist's chunked passes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { wordContinuations, advanceContext, endsWord, textModelDist } from "../../web/widgets/runtime/words.js";

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

test("past the cap: the words found are the full list's, with the open mass, and the sure ones lead it", () => {
  let partial = 0, sureSeen = 0;
  for (const cap of [1, 2, 3, 5, 8, 13, 40]) {
    for (const ctx of ["a", "abc a", "cab", "b.", "aaaa"]) {
      for (const batch of [1, 3, 32]) {
        const r = wordContinuations(ctx, { dist, chars: CHARS, offset: OFF, maxLen: 8, cap, batch });
        const full = dfs(ctx, 8, 1e9).words, at = new Map(full.map((w, k) => [w.word, k]));
        const tag = `${ctx} cap ${cap} batch ${batch}`;
        if (r.overflow) assert.ok(dfs(ctx, 8, cap).over, `${tag}: stopped only where the tree passes the cap`);
        else {
          assert.deepEqual(r.words.map((w) => w.word), full.map((w) => w.word), `${tag}: not stopped, so complete`);
          continue;
        }
        partial++;
        assert.ok(r.visited > cap && r.open > 0 && !r.complete, tag);
        for (const w of r.words) {
          assert.ok(at.has(w.word), `${tag}: ${w.word} is a continuation`);
          assert.ok(Math.abs(w.p - full[at.get(w.word)].p) < 1e-12, `${tag}: ${w.word}'s p`);
        }
        const mass = r.words.reduce((a, w) => a + w.p, 0);
        assert.ok(Math.abs(mass + r.openMass - 1) < 1e-9, `${tag}: the words and the open prefixes hold all the mass`);
        // the first `sure` words are the full list's first (ties aside), and no word left out beats them
        const listed = new Set(r.words.map((w) => w.word));
        for (let k = 0; k < r.sure; k++) assert.ok(Math.abs(r.words[k].p - full[k].p) < 1e-12, `${tag}: sure word ${k}`);
        if (r.sure > 0) {
          const last = r.words[r.sure - 1].p;
          assert.ok(full.every((w) => listed.has(w.word) || w.p <= last + 1e-12), `${tag}: an unlisted word beats a sure one`);
        }
        sureSeen += r.sure > 0;
      }
    }
  }
  assert.ok(partial >= 20 && sureSeen >= 5, `the cases reach partial lists (${partial}) with sure words (${sureSeen})`);
});

test("best-first: past the cap it has searched the likeliest prefixes, not the first ones", () => {
  // after a space: "a" with p 0.9, whose words run 6 letters of a or b (64 words of p 0.9 / 64),
  // or "." with p 0.1, a word at once. A depth-first search in token order would spend any small cap
  // inside the "a" tree and never sees "."; best-first finds "." and knows it is the most probable.
  const skew = (ctx) => {
    const p = new Float64Array(V), w = ctx.slice(ctx.lastIndexOf(" ") + 1);
    if (w === "") { p[OFF + 5] = 0.1; p[OFF + 2] = 0.9; }
    else if (w.length < 6) { p[OFF + 2] = 0.5; p[OFF + 3] = 0.5; }
    else p[OFF + 1] = 1;
    return p;
  };
  for (const batch of [1, 4]) {
    const r = wordContinuations(" ", { dist: (cs) => cs.map(skew), chars: CHARS, offset: OFF, maxLen: 16, cap: 40, batch });
    assert.ok(r.overflow && r.words.length >= 1, `batch ${batch}: ${JSON.stringify(r.words)}`);
    assert.equal(r.words[0].word, ".");
    assert.ok(r.sure >= 1, `batch ${batch}: "." is surely the most probable (sure ${r.sure})`);
    assert.ok(Math.abs(r.openMass + r.words.reduce((a, w) => a + w.p, 0) - 1) < 1e-12);
  }
});

test("textModelDist: one pass per length and per chunk, the last position's distribution of each", () => {
  const calls = [];
  const tm = {
    model: {
      config: { vocab: V },
      forward(src, rows) {
        calls.push(rows.length);
        const len = rows[0].length, probs = new Float32Array(rows.length * len * V);
        rows.forEach((row, r) => { for (let t = 0; t < len; t++) probs[(r * len + t) * V + (row[t] % V)] = t + 1; });
        return { probs };
      },
    },
    encode: (s) => Int32Array.from(s, (c) => c.charCodeAt(0)),
  };
  const ctxs = Array.from({ length: 150 }, (_, i) => (i % 2 ? "ab" : "abc").repeat(1 + (i % 3)) + String.fromCharCode(65 + (i % 26)));
  const out = textModelDist(tm, 64)(ctxs);
  assert.ok(calls.every((n) => n <= 64), `chunks of at most 64 rows (${calls})`);
  assert.equal(calls.reduce((a, n) => a + n, 0), 150);
  ctxs.forEach((c, i) => {
    assert.equal(out[i].length, V);
    assert.equal(out[i][c.charCodeAt(c.length - 1) % V], c.length, `context ${i}: its last position`);
  });
});

test("the depth limit leaves prefixes unfinished; the context rule is TextModel.generate's", () => {
  const r = wordContinuations("a", { dist, chars: CHARS, offset: OFF, maxLen: 8, cap: 10000, depth: 1 });
  assert.ok(r.unfinished > 0 && !r.complete);
  assert.equal(advanceContext("1234567", "8", 8), "12345678");
  assert.equal(advanceContext("12345678", "9", 8), "6789");
  assert.ok(endsWord(" ") && endsWord(".") && endsWord("\n") && !endsWord("a") && !endsWord("'") && !endsWord("7"));
});
