// tiled.test.mjs - attention()'s tiled path (sx_attention_tiled: O(n d) memory, issue 14) on both
// wasm builds: a long sequence the map path refuses (n = 16384) against a float64 reference on a
// few rows, in a few MB of wasm memory; the same results as the path that holds the map
// (tiled: false) for every mapping, causal and padding masks, a batch element with no key, n = 1,
// sizes that are not multiples of the blocks, huge magnitudes; the automatic choice (tq * tk >=
// 2^20, never with weights or a pattern); tileStats' counts on inputs whose weights are known;
// non-finite inputs as the map path reports them (out untouched); the argument errors.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, rng, throwsExactly } from "./helpers.mjs";

const all = await builds();

/** max |a - b| / max(1, max |b|); Infinity when a holds a non-finite value. */
function relErr(a, b) {
  assert.equal(a.length, b.length, "lengths");
  let e = 0, m = 1;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(b[i]));
  for (let i = 0; i < b.length; i++) {
    if (!Number.isFinite(a[i])) return Infinity;
    e = Math.max(e, Math.abs(a[i] - b[i]));
  }
  return e / m;
}

const MAPS = [["softmax", {}], ["sparsemax", {}], ["entmax15", {}], ["entmax", { alpha: 1.3 }],
  ["entmax", { alpha: 2.5 }], ["fusedmax", { lambda: 0.5 }]];

for (const { name, sx } of all) {
  const { attention, info, softmax, SimplexityError } = sx;

  describe(`attention, tiled path [${name} build]`, () => {
    // first in the file: the module's memory has not grown for other tests yet
    test("n = 16384, one head: the map path refuses it, the tiled path runs it in a few MB", () => {
      const n = 16384, dh = 2, r = rng(5);
      const q = r.vector(n * dh), k = r.vector(n * dh), v = r.vector(n * dh);
      throwsExactly(() => attention(q, k, v, { tq: n, causal: true, tiled: false }), RangeError,
        /^attention: too large: batch \* heads \* tq \* tk = 1 \* 1 \* 16384 \* 16384 = 268435456 attention weights need \d+ bytes of wasm memory/);
      const out = attention(q, k, v, { tq: n, causal: true }); // automatic: tiled
      assert.ok(info().memoryBytes <= 32 * 2 ** 20, `wasm memory ${info().memoryBytes} bytes`);
      for (const i of [0, 1, 4097, n - 1]) { // float64 softmax attention of row i (keys j <= i)
        const s = [];
        for (let j = 0; j <= i; j++) s.push((q[i * dh] * k[j * dh] + q[i * dh + 1] * k[j * dh + 1]) / Math.SQRT2);
        const m = Math.max(...s), e = s.map((x) => Math.exp(x - m)), z = e.reduce((a, b) => a + b, 0);
        for (let c = 0; c < dh; c++) {
          let o = 0;
          for (let j = 0; j <= i; j++) o += e[j] / z * v[j * dh + c];
          assert.ok(Math.abs(out[i * dh + c] - o) <= 2e-6, `row ${i}, column ${c}: ${out[i * dh + c]} vs ${o}`);
        }
      }
    });

    test("the same results as the map path: every mapping, masks, odd sizes, n = 1", () => {
      const r = rng(17);
      const shapes = [
        { tq: 1, tk: 1, dh: 3 }, { tq: 1, tk: 9, dh: 4 }, { tq: 9, tk: 1, dh: 4 },
        { tq: 67, tk: 131, dh: 5 }, { tq: 130, tk: 70, dh: 8, heads: 2 },
        { tq: 300, tk: 300, dh: 16, batch: 2, keyLengths: [300, 123] },
        { tq: 97, tk: 150, dh: 7, batch: 3, heads: 3, keyLengths: [0, 150, 77] }, // no key at all for b = 0
      ];
      for (const [mapping, o] of MAPS) {
        for (const { tq, tk, dh, heads = 1, batch = 1, keyLengths } of shapes) {
          const w = heads * dh, q = r.vector(batch * tq * w, 1.5), k = r.vector(batch * tk * w, 1.5), v = r.vector(batch * tk * w);
          for (const causal of [false, true]) {
            const opts = { tq, heads, batch, keyLengths, causal, mapping, ...o };
            const a = attention(q, k, v, { ...opts, tiled: true }), b = attention(q, k, v, { ...opts, tiled: false });
            const e = relErr(a, b);
            assert.ok(e <= 2e-6, `${mapping} ${JSON.stringify(o)} tq ${tq} tk ${tk} heads ${heads} batch ${batch} causal ${causal}: error ${e}`);
            if (keyLengths?.[0] === 0) assert.ok(a.subarray(0, tq * w).every((x) => x === 0), "no key: output 0");
          }
        }
      }
    });

    test("huge magnitudes: one-hot rows, the online softmax's max jumping by ~1e37", () => {
      const r = rng(23), n = 200, dh = 4;
      const q = r.vector(n * dh, 1e18), k = r.vector(n * dh, 1e18), v = r.vector(n * dh, 1e30);
      for (const [mapping, o] of MAPS) {
        for (const causal of [false, true]) {
          const opts = { tq: n, mapping, causal, ...o };
          const e = relErr(attention(q, k, v, { ...opts, tiled: true }), attention(q, k, v, { ...opts, tiled: false }));
          assert.ok(e <= 2e-6, `${mapping} causal ${causal}: error ${e}`);
        }
      }
    });

    test("automatic: tiled from tq * tk >= 2^20 on, never with weights or a pattern", () => {
      const r = rng(29), dh = 4;
      for (const [tq, tk, tiled] of [[1024, 1024, true], [2048, 512, true], [1023, 1024, false], [512, 512, false]]) {
        const q = r.vector(tq * dh, 2), k = r.vector(tk * dh, 2), v = r.vector(tk * dh);
        for (const mapping of ["softmax", "entmax15"]) {
          const auto = attention(q, k, v, { tq, mapping });
          assert.deepEqual(auto, attention(q, k, v, { tq, mapping, tiled }), `${mapping} ${tq} x ${tk}: tiled ${tiled}`);
          assert.ok(relErr(auto, attention(q, k, v, { tq, mapping, tiled: !tiled })) <= 2e-6, "both paths agree");
        }
        // with weights: the map path, whatever the size
        const w = attention(q, k, v, { tq, weights: true });
        assert.deepEqual(w.out, attention(q, k, v, { tq, tiled: false }), "weights: the map path");
      }
    });

    test("tileStats: tiles and skipped tiles on weights known in advance", () => {
      // q_i = k_i = 8 e_i (n = dh = 256): score 4 with key i, 0 with every other key, so every
      // sparse mapping puts row i's whole weight on key i: of the 16 tiles of 64 x 64, only the
      // 4 on the diagonal hold a non-zero (causal: 10 tiles, the same 4)
      const n = 256, q = new Float32Array(n * n), v = rng(31).vector(n * n);
      for (let i = 0; i < n; i++) q[i * n + i] = 8;
      for (const [mapping, o] of MAPS) {
        for (const causal of [false, true]) {
          const r = attention(q, q, v, { tq: n, mapping, causal, tileStats: true, ...o });
          assert.deepEqual(Object.keys(r).sort(), ["out", "skipped", "tiles"]);
          assert.ok(relErr(r.out, v) <= 1e-6 || mapping === "softmax", `${mapping}: out = v`);
          if (mapping === "softmax") {
            // one tile of 64 queries x 256 keys per block of queries (causal: the same)
            assert.deepEqual([r.tiles, r.skipped], [4, 0], "softmax: nothing skipped");
          } else {
            assert.deepEqual([r.tiles, r.skipped], causal ? [10, 6] : [16, 12], `${mapping} ${JSON.stringify(o)} causal ${causal}`);
          }
        }
      }
      // random scores: supports over every key, few tiles skipped
      const rr = rng(37), x = rr.vector(512 * 8), y = rr.vector(512 * 8);
      const s = attention(x, y, y, { tq: 512, mapping: "sparsemax", tileStats: true, tiled: true });
      assert.equal(s.tiles, 8 * 8);
      assert.ok(s.skipped >= 0 && s.skipped < s.tiles);
    });

    test("non-finite inputs: the map path's errors, out untouched", () => {
      const r = rng(41), n = 70, dh = 4;
      const q = r.vector(n * dh), k = r.vector(n * dh), v = r.vector(n * dh);
      const bad = (arr, i, x) => { const c = Float32Array.from(arr); c[i] = x; return c; };
      const out = new Float32Array(n * dh).fill(7);
      for (const tiled of [true, false]) {
        throwsExactly(() => attention(bad(q, 5, NaN), k, v, { tq: n, out, tiled }), SimplexityError,
          "attention: q[5] must be finite (got NaN)", { code: 2, index: 5 });
        throwsExactly(() => attention(q, bad(k, 39, -Infinity), v, { tq: n, out, tiled, mapping: "sparsemax" }), SimplexityError,
          "attention: k[39] must be finite (got -Infinity)", { code: 2, index: 39 });
        throwsExactly(() => attention(q, k, bad(v, 0, Infinity), { tq: n, out, tiled, mapping: "entmax15" }), SimplexityError,
          "attention: v[0] must be finite (got Infinity)", { code: 2, index: 0 });
        const big = new Float32Array(n * dh).fill(3e38);
        throwsExactly(() => attention(big, big, v, { tq: n, out, tiled }), SimplexityError,
          /^attention: a score q\.k \/ sqrt\(dh\) of batch element 0 overflows float/, { code: 2 });
      }
      assert.ok(out.every((x) => x === 7), "out untouched");
      assert.equal(attention(q, k, v, { tq: n, out, tiled: true }), out, "out returned");
      assert.ok(relErr(out, attention(q, k, v, { tq: n, tiled: false })) <= 2e-6);
    });

    const Q = new Float32Array(12), K = new Float32Array(20), V = new Float32Array(20);
    const BASE = { tq: 3, heads: 2 };
    const CASES = [
      ["tiled type", () => attention(Q, K, V, { ...BASE, tiled: "yes" }), TypeError, 'attention: tiled must be true, false or undefined (automatic) (got "yes")'],
      ["tiled number", () => attention(Q, K, V, { ...BASE, tiled: 1 }), TypeError, "attention: tiled must be true, false or undefined (automatic) (got 1)"],
      ["tileStats type", () => attention(Q, K, V, { ...BASE, tileStats: 1 }), TypeError, "attention: tileStats must be true or false (got 1)"],
      ["tiled with weights", () => attention(Q, K, V, { ...BASE, tiled: true, weights: true }), RangeError,
        "attention: tiled: true cannot return the weights (the tiled path never holds the whole map): drop the weights option or set tiled: false"],
      ["tiled with a weights buffer", () => attention(Q, K, V, { ...BASE, tiled: true, weights: new Float32Array(30) }), RangeError,
        "attention: tiled: true cannot return the weights (the tiled path never holds the whole map): drop the weights option or set tiled: false"],
      ["tiled with a pattern", () => attention(Q, K, V, { ...BASE, tiled: true, pattern: { kind: "local", width: 1 } }), RangeError,
        "attention: tiled: true cannot restrict attention to a pattern (the pattern path lists each query's keys): drop the pattern option or set tiled: false"],
      ["tileStats with weights", () => attention(Q, K, V, { ...BASE, tileStats: true, weights: true }), RangeError,
        "attention: tileStats: true cannot return the weights (the tiled path never holds the whole map): drop the weights option or set tiled: false"],
      ["tileStats without tiling", () => attention(Q, K, V, { ...BASE, tileStats: true, tiled: false }), RangeError,
        "attention: tileStats: true needs the tiled path (got tiled: false)"],
    ];
    for (const [label, f, Cls, msg] of CASES) test(`argument error: ${label}`, () => throwsExactly(f, Cls, msg));

    test("tiled: false and weights, tileStats: false: the documented results", () => {
      assert.ok(attention(Q, K, V, { ...BASE, tiled: false, weights: true }).weights instanceof Float32Array);
      assert.ok(attention(Q, K, V, { ...BASE, tileStats: false }) instanceof Float32Array);
      assert.ok(softmax([1, 2]).length === 2); // the module still works after the errors
    });
  });
}

describe("attention, tiled path: SIMD and scalar builds agree", () => {
  test("every mapping, causal and padded", () => {
    const [a, b] = all.map((x) => x.sx);
    const r = rng(43), n = 150, w = 2 * 16;
    const q = r.vector(2 * n * w, 1.5), k = r.vector(2 * n * w, 1.5), v = r.vector(2 * n * w);
    for (const [mapping, o] of MAPS) {
      const opts = { batch: 2, heads: 2, tq: n, causal: true, keyLengths: [n, 90], mapping, tiled: true, ...o };
      const e = relErr(a.attention(q, k, v, opts), b.attention(q, k, v, opts));
      assert.ok(e <= 2e-6, `${mapping}: SIMD vs scalar ${e}`);
    }
  });
});
