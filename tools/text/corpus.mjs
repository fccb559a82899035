// corpus.mjs - The Devil's Dictionary (Ambrose Bierce, 1911; public domain) as a plain-text
// corpus for the character models, from Debian's dict-devil package, with a fixed split.
//
//   node tools/text/corpus.mjs [--out build/text] [--hashes tools/text/devil.sha256] [--update]
//
// Reads /usr/share/dictd/devil.dict.dz (dictzip: a gzip file, read whole here) and devil.index
// (one line per headword: name, offset, length, the numbers in dictd's base 64), and writes:
//   devil.dict                the unpacked source, for the record
//   devil-train.txt           90% of the characters, in whole entries (assignSplits: a seeded
//   devil-valid.txt           5%      hash of each headword ranks the entries)
//   devil-test.txt            5%
//   devil.json                counts, characters mapped or dropped, the vocabulary, the hashes
// Each split holds its entries in the book's order (their offsets in the file), each entry its
// headword line and definition, separated by one blank line. Normalised: tabs become a space,
// carriage returns and trailing spaces go, runs of blank lines become one, leading indentation
// (verse, right-aligned attributions) is kept. The vocabulary (vocab.mjs) is newline and printable
// ASCII; any other character is dropped and counted. The SHA-256 of each file is printed and
// compared with --hashes (sha256sum's format): a difference fails, naming the file, unless
// --update rewrites the list. The front matter (the 00-database-* entries: the preface, the
// licence header) is not an entry and is left out.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { VOCAB, normalizeChars } from './vocab.mjs';

const DICT = '/usr/share/dictd/devil.dict.dz';
const INDEX = '/usr/share/dictd/devil.index';
const SPLIT_SEED = 'devil-split-v1';
const SPLIT_PERCENT = { train: 90, valid: 5, test: 5 };

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export function decodeB64(s) {
  let v = 0;
  for (const c of s) {
    const d = B64.indexOf(c);
    if (d < 0) throw new Error(`corpus: bad dictd base-64 number '${s}'`);
    v = v * 64 + d;
  }
  return v;
}

// The entries (dict: the unpacked bytes; the index's offsets count bytes), unique by offset, in
// file order, decoded as UTF-8; the headword of an entry several index lines
// point at is the first of them in the index (which is sorted).
export function readEntries(dict, index) {
  const byOffset = new Map();
  for (const line of index.split('\n')) {
    if (!line) continue;
    const [name, off, len] = line.split('\t');
    if (len === undefined) throw new Error(`corpus: bad index line '${line}'`);
    if (name.startsWith('00database')) continue;
    const offset = decodeB64(off), length = decodeB64(len);
    if (offset + length > dict.length) throw new Error(`corpus: index entry '${name}' runs past the end of the dictionary`);
    if (!byOffset.has(offset)) byOffset.set(offset, { headword: name, offset, length });
  }
  return [...byOffset.values()].sort((a, b) => a.offset - b.offset)
    .map((e) => ({ headword: e.headword, raw: dict.subarray(e.offset, e.offset + e.length).toString('utf8') }));
}

// One entry's text: lines trimmed at the end, no blank lines at either end, runs of blank
// lines made one; ends with a newline.
export function normalizeEntry(text) {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const out = [];
  for (const l of lines) {
    if (l === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(l);
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n') + '\n';
}

// The split: entries ranked by SHA-256(seed '/' headword); from the top of that ranking, whole
// entries go to test until it holds 5% of the characters, then to valid until it holds 5%; the
// rest is train. Fixed by the seed and the source alone, and close to 90/5/5 in characters
// (a plain hash-mod-100 rule gave this source 3.5% for test).
export function splitKey(headword, seed = SPLIT_SEED) {
  return createHash('sha256').update(`${seed}/${headword}`).digest('hex');
}

export function assignSplits(texts, headwords, percent = SPLIT_PERCENT) {
  const total = texts.reduce((a, t) => a + t.length, 0);
  const order = texts.map((_, i) => i).sort((a, b) => {
    const ka = splitKey(headwords[a]), kb = splitKey(headwords[b]);
    return ka < kb ? -1 : ka > kb ? 1 : a - b;
  });
  const split = new Array(texts.length).fill('train');
  let at = 0;
  for (const [name, share] of [['test', percent.test], ['valid', percent.valid]]) {
    let chars = 0;
    while (at < order.length && chars < total * share / 100) {
      split[order[at]] = name;
      chars += texts[order[at++]].length;
    }
  }
  return split;
}

export function buildSplits(entries) {
  const counts = { mapped: {}, dropped: {} };
  const texts = entries.map((e) => normalizeEntry(normalizeChars(e.raw, counts)));
  const split = assignSplits(texts, entries.map((e) => e.headword));
  const files = {}, count = {};
  for (const name of ['train', 'valid', 'test']) {
    const mine = texts.filter((_, i) => split[i] === name);
    files[name] = mine.join('\n');
    count[name] = mine.length;
  }
  return { files, entries: count, counts };
}

const sha256 = (s) => createHash('sha256').update(s).digest('hex'); // a string as UTF-8 (here ASCII)

function parseArgs(argv) {
  const o = { out: 'build/text', hashes: 'tools/text/devil.sha256', update: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--update') o.update = true;
    else if (a === '--out' || a === '--hashes') o[a.slice(2)] = argv[++i];
    else throw new Error(`corpus: unknown argument '${a}' (--out DIR, --hashes FILE, --update)`);
  }
  return o;
}

// Compares the printed hashes with the committed list; returns the names that differ.
function compareHashes(lines, file) {
  if (!existsSync(file)) return [`${file} (missing)`];
  const want = new Map(readFileSync(file, 'utf8').trim().split('\n')
    .map((l) => l.split(/\s+/)).map(([h, name]) => [name, h]));
  return lines.filter(([name, h]) => want.get(name) !== h).map(([name]) => name);
}

function main() {
  const opt = parseArgs(process.argv.slice(2));
  for (const f of [DICT, INDEX]) {
    if (!existsSync(f)) {
      console.error(`corpus: ${f} not found: apt-get install dict-devil (The Devil's Dictionary, public domain)`);
      process.exit(1);
    }
  }
  const dict = gunzipSync(readFileSync(DICT));
  const { files, entries, counts } = buildSplits(readEntries(dict, readFileSync(INDEX, 'latin1')));
  mkdirSync(opt.out, { recursive: true });
  const written = [['devil.dict', dict], ...Object.entries(files).map(([k, v]) => [`devil-${k}.txt`, v])];
  for (const [name, text] of written) writeFileSync(join(opt.out, name), text);
  const hashes = written.map(([name, text]) => [name, sha256(text)]);
  const manifest = {
    source: 'Debian dict-devil: ' + DICT, split_seed: SPLIT_SEED, split_percent: SPLIT_PERCENT,
    entries, chars: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.length])),
    vocab: VOCAB, mapped: counts.mapped, dropped: counts.dropped, sha256: Object.fromEntries(hashes),
  };
  writeFileSync(join(opt.out, 'devil.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const [name, h] of hashes) console.log(`${h}  ${name}`);
  console.log(`corpus: entries train ${entries.train}, valid ${entries.valid}, test ${entries.test}; ` +
              `characters ${Object.entries(manifest.chars).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
              `mapped ${JSON.stringify(counts.mapped)}, dropped ${JSON.stringify(counts.dropped)}`);
  if (opt.update) {
    writeFileSync(opt.hashes, hashes.map(([name, h]) => `${h}  ${name}`).join('\n') + '\n');
    console.log(`corpus: wrote ${opt.hashes}`);
    return;
  }
  const bad = compareHashes(hashes, opt.hashes);
  if (bad.length) {
    console.error(`corpus: SHA-256 differs from ${opt.hashes} for ${bad.join(', ')}: another dict-devil ` +
                  `version (these were made from Debian 12's 1.0-13.1) or a changed extractor; ` +
                  `if the change is meant, rerun with --update and commit the list`);
    process.exit(1);
  }
  console.log(`corpus: every hash matches ${opt.hashes}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
