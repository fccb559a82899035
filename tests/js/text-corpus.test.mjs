// The text corpus's extractor (tools/text/corpus.mjs, vocab.mjs): dictd's base-64 numbers, the
// entries read from a synthetic dictionary in file order, whitespace and character
// normalisation with its counts, and the split (whole entries, 5% / 5% of the characters,
// determined by the seed alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignSplits, decodeB64, normalizeEntry, readEntries, splitKey } from '../../tools/text/corpus.mjs';
import { VOCAB, normalizeChars } from '../../tools/text/vocab.mjs';

test('dictd base-64 numbers', () => {
  assert.equal(decodeB64('A'), 0);
  assert.equal(decodeB64('uA'), 46 * 64);
  assert.equal(decodeB64('BdqM'), ((1 * 64 + 29) * 64 + 42) * 64 + 12);
  assert.throws(() => decodeB64('a*'), /bad dictd base-64 number 'a\*'/);
});

test('vocabulary: newline and printable ASCII, 96 characters', () => {
  assert.equal(VOCAB.length, 96);
  assert.equal(VOCAB[0], '\n');
  assert.equal(VOCAB[1], ' ');
  assert.equal(VOCAB[95], '~');
});

test('characters outside the vocabulary are mapped or dropped, and counted', () => {
  const counts = { mapped: {}, dropped: {} };
  const out = normalizeChars('a\tb\r\nc\rd caf\u00e9 \u2014x', counts);
  assert.equal(out, 'a b\nc\nd caf x');
  assert.deepEqual(counts.mapped, { tab: 1, CR: 2 });
  assert.deepEqual(counts.dropped, { 'U+00E9': 1, 'U+2014': 1 });
});

test('an entry: trailing spaces and extra blank lines go, indentation stays', () => {
  const raw = '  \nFOO, n.  A thing.  \n\n\n    Verse line\n                 G.J.\n\n\n';
  assert.equal(normalizeEntry(raw), 'FOO, n.  A thing.\n\n    Verse line\n                 G.J.\n');
});

test('entries in file order, unique by offset, front matter left out', () => {
  const dict = Buffer.from('HEADERBBB text\nAAA text\n');
  const b64 = (n) => { let s = ''; do { s = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[n % 64] + s; n = Math.floor(n / 64); } while (n); return s; };
  const index = [
    `00databaseinfo\t${b64(0)}\t${b64(6)}`,
    `aaa\t${b64(15)}\t${b64(9)}`,
    `bbb\t${b64(6)}\t${b64(9)}`,
    `bee\t${b64(6)}\t${b64(9)}`,
  ].join('\n') + '\n';
  const entries = readEntries(dict, index);
  assert.deepEqual(entries, [{ headword: 'bbb', raw: 'BBB text\n' }, { headword: 'aaa', raw: 'AAA text\n' }]);
  assert.throws(() => readEntries(dict, `zzz\t${b64(20)}\t${b64(9)}\n`), /'zzz' runs past the end/);
});

test('the split: whole entries, 5% and 5% of the characters, fixed by the seed', () => {
  let s = 7;
  const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const texts = Array.from({ length: 1000 }, (_, i) => 'x'.repeat(50 + Math.floor(rand() * 900)) + i);
  const words = texts.map((_, i) => `word${i}`);
  const split = assignSplits(texts, words);
  assert.deepEqual(assignSplits(texts, words), split, 'deterministic');
  const total = texts.reduce((a, t) => a + t.length, 0), longest = Math.max(...texts.map((t) => t.length));
  for (const name of ['test', 'valid']) {
    const chars = texts.filter((_, i) => split[i] === name).reduce((a, t) => a + t.length, 0);
    assert.ok(chars >= 0.05 * total && chars < 0.05 * total + longest, `${name}: ${chars} of ${total}`);
  }
  assert.ok(split.every((x) => ['train', 'valid', 'test'].includes(x)));
  // the test entries are the top of the hash ranking
  const ranked = words.map((w, i) => [splitKey(w), i]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  assert.equal(split[ranked[0][1]], 'test');
  // another seed, another split
  const other = assignSplits(texts, words.map((w) => w + '!'));
  assert.notDeepEqual(other, split);
});
