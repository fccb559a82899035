// inflate.js - a raw DEFLATE decoder (RFC 1951), synchronous, for the single-file build: tools/
// bundle.mjs stores the wasm and the workers' code deflated (zlib's deflateRaw, level 9) as
// base64, and the bundle inflates them with this when it loads. Synchronous on purpose: the
// bundle must hand init() its bytes before any widget asks for the core (so no
// DecompressionStream, which is asynchronous, and no top-level await). About 1.5 KB minified.
// Decoding follows zlib's puff.c: canonical Huffman codes as counts per length and symbols in
// code order, read one bit at a time. tests/js/inflate.test.mjs checks it against node:zlib.
//
//   inflateRaw(bytes: Uint8Array, size: number) -> Uint8Array of exactly `size` bytes (or throws)

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code from its code lengths: how many codes of each length, and the
 *  symbols in code order. */
function huffman(lengths) {
  const count = new Uint16Array(16), offs = new Uint16Array(16), symbol = new Uint16Array(lengths.length);
  for (const l of lengths) count[l]++;
  count[0] = 0;
  for (let l = 1; l < 16; l++) offs[l] = offs[l - 1] + count[l - 1];
  for (let s = 0; s < lengths.length; s++) if (lengths[s]) symbol[offs[lengths[s]]++] = s;
  return { count, symbol };
}

let FIXED = null;
function fixed() {
  if (!FIXED) {
    const lit = new Uint8Array(288);
    lit.fill(8, 0, 144); lit.fill(9, 144, 256); lit.fill(7, 256, 280); lit.fill(8, 280, 288);
    FIXED = [huffman(lit), huffman(new Uint8Array(30).fill(5))];
  }
  return FIXED;
}

export function inflateRaw(src, size) {
  const out = new Uint8Array(size);
  let pos = 0, at = 0, buf = 0, cnt = 0;
  const fail = (what) => { throw new Error(`inflate: ${what} (at input byte ${pos} of ${src.length}, output byte ${at} of ${size})`); };
  const bits = (n) => {
    while (cnt < n) {
      if (pos >= src.length) fail("the input ends early");
      buf |= src[pos++] << cnt; cnt += 8;
    }
    const v = buf & ((1 << n) - 1);
    buf >>>= n; cnt -= n;
    return v;
  };
  const decode = (h) => {
    let code = 0, first = 0, index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const c = h.count[len];
      if (code - c < first) return h.symbol[index + code - first];
      index += c; first = (first + c) << 1; code <<= 1;
    }
    return fail("a code that is not in the table");
  };
  let last = 0;
  while (!last) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) { // stored: the rest of this byte is padding, then LEN, NLEN, the bytes
      buf = 0; cnt = 0;
      if (pos + 4 > src.length) fail("the input ends early");
      const len = src[pos] | (src[pos + 1] << 8), nlen = src[pos + 2] | (src[pos + 3] << 8);
      if ((len ^ 0xffff) !== nlen) fail("a stored block's length is corrupt");
      pos += 4;
      if (pos + len > src.length || at + len > size) fail("a stored block runs past the end");
      out.set(src.subarray(pos, pos + len), at);
      pos += len; at += len;
      continue;
    }
    let lit, dist;
    if (type === 1) [lit, dist] = fixed();
    else if (type === 2) {
      const nlit = bits(5) + 257, ndist = bits(5) + 1, ncl = bits(4) + 4;
      const cl = new Uint8Array(19);
      for (let i = 0; i < ncl; i++) cl[CL_ORDER[i]] = bits(3);
      const clh = huffman(cl);
      const lengths = new Uint8Array(nlit + ndist);
      for (let i = 0; i < nlit + ndist;) {
        const sym = decode(clh);
        if (sym < 16) { lengths[i++] = sym; continue; }
        let rep, val = 0;
        if (sym === 16) {
          if (i === 0) fail("a repeat with no length before it");
          val = lengths[i - 1]; rep = 3 + bits(2);
        } else rep = sym === 17 ? 3 + bits(3) : 11 + bits(7);
        if (i + rep > nlit + ndist) fail("code lengths run past the end");
        lengths.fill(val, i, i + rep); i += rep;
      }
      lit = huffman(lengths.subarray(0, nlit)); dist = huffman(lengths.subarray(nlit));
    } else fail("block type 3");
    for (;;) {
      let sym = decode(lit);
      if (sym < 256) {
        if (at >= size) fail("more output than expected");
        out[at++] = sym;
      } else if (sym === 256) break;
      else {
        sym -= 257;
        if (sym >= 29) fail("a length symbol out of range");
        const len = LEN_BASE[sym] + bits(LEN_EXTRA[sym]);
        const ds = decode(dist);
        if (ds >= 30) fail("a distance symbol out of range");
        const d = DIST_BASE[ds] + bits(DIST_EXTRA[ds]);
        if (d > at) fail("a distance before the start");
        if (at + len > size) fail("more output than expected");
        for (let k = 0; k < len; k++, at++) out[at] = out[at - d];
      }
    }
  }
  if (at !== size) fail(`${at} bytes of output where ${size} were expected`);
  return out;
}
