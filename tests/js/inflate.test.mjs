// inflate.test.mjs - tools/inflate.js, the synchronous raw-DEFLATE decoder that the single-file
// build uses for its inlined wasm and workers' code, against node:zlib: every block type zlib
// makes (stored, fixed and dynamic Huffman; level 0 to 9, each strategy) on the wasm builds, a
// widget's source, runs, empty input and seeded random bytes; and corrupt input refused with a
// message, never a wrong result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import zlib from "node:zlib";
import { inflateRaw } from "../../tools/inflate.js";
import { DIST } from "./helpers.mjs";

function random(n, seed) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; b[i] = seed >>> 24; }
  return b;
}

const { Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED } = zlib.constants;

test("inflateRaw gives back what zlib's deflateRaw packed, at every level and strategy", async () => {
  const inputs = {
    "simplexity-simd.wasm": await readFile(new URL("simplexity-simd.wasm", DIST)),
    "simplexity-mappings.wasm": await readFile(new URL("simplexity-mappings.wasm", DIST)),
    "widgets/sx-simplex.js": await readFile(new URL("widgets/sx-simplex.js", DIST)),
    empty: Buffer.alloc(0), one: Buffer.from("a"), run: Buffer.alloc(100000, 7),
    random: random(70000, 1), "random, 1 byte alphabet mix": Buffer.concat([random(3000, 2), Buffer.alloc(40000, 0), random(3000, 3)]),
  };
  for (const [name, x] of Object.entries(inputs)) {
    for (const level of [0, 1, 6, 9]) {
      for (const strategy of [Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED]) {
        const packed = zlib.deflateRawSync(x, { level, strategy });
        const got = inflateRaw(new Uint8Array(packed), x.length);
        assert.ok(Buffer.from(got).equals(x), `${name}, level ${level}, strategy ${strategy}`);
      }
    }
  }
});

test("inflateRaw refuses corrupt or truncated input and a wrong size", () => {
  const x = Buffer.from("sparse attention ".repeat(500));
  const packed = new Uint8Array(zlib.deflateRawSync(x, { level: 9 }));
  assert.throws(() => inflateRaw(packed.subarray(0, packed.length - 3), x.length), /^Error: inflate: the input ends early/);
  assert.throws(() => inflateRaw(packed, x.length - 1), /^Error: inflate: more output than expected/);
  assert.throws(() => inflateRaw(packed, x.length + 1), /^Error: inflate: \d+ bytes of output where \d+ were expected/);
  assert.throws(() => inflateRaw(new Uint8Array([0x07]), 1), /^Error: inflate: block type 3/);
  assert.throws(() => inflateRaw(new Uint8Array([0x01, 0x05, 0x00, 0x00, 0x00]), 5), /^Error: inflate: a stored block's length is corrupt/);
  // whatever a flipped byte does, the result is an error or zlib's own answer, never a silent wrong one
  for (let i = 0; i < packed.length; i += 7) {
    const bad = packed.slice(); bad[i] ^= 0x5a;
    let want = null;
    try { want = zlib.inflateRawSync(bad); } catch { /* zlib refuses it too */ }
    let got = null;
    try { got = Buffer.from(inflateRaw(bad, x.length)); } catch (err) { assert.match(err.message, /^inflate: /); }
    if (got) assert.ok(want && got.equals(want.subarray(0, got.length)) && want.length === got.length, `byte ${i} flipped`);
  }
});
