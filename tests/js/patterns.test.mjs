// patterns.test.mjs - attention under a sparsity pattern (attention's pattern option and
// attentionPattern) on both wasm builds: each structured mask against its plain definition (with
// causal and keyLength masks), attention with a pattern against a float64 dense reference whose
// masked scores are -Infinity, for softmax, sparsemax and entmax; exact zeros outside the mask;
// LSH: the same steps for a seed (and in both builds), the mask from the chunks of the sorted
// order, self always seen; pair counts; and the error messages.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, rng, refSoftmax, refSparsemax, refEntmax } from "./helpers.mjs";

const all = await builds();

/** The definition of each structured pattern, one pair at a time. */
function allowed(p, i, j) {
  switch (p.kind) {
    case "dense": return true;
    case "local": return Math.abs(i - j) <= p.width;
    case "strided": return Math.abs(i - j) < p.stride || (i - j) % p.stride === 0;
    case "fixed": return Math.floor(j / p.block) === Math.floor(i / p.block) || j % p.block >= p.block - (p.summary ?? 1);
  }
  throw new Error(p.kind);
}
function refMask(n, p, { causal = false, keyLength = n } = {}) {
  const m = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m[i * n + j] = allowed(p, i, j) && j < keyLength && (!causal || j <= i) ? 1 : 0;
  return m;
}

const REF = { softmax: refSoftmax, sparsemax: refSparsemax, entmax15: (s) => refEntmax(s, 1.5) };

/** One head, one batch element: float64 dense attention with masked scores -Infinity. */
function refAttention(q, k, v, n, dh, mask, mapping) {
  const out = new Float64Array(n * dh), w = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const keys = [];
    for (let j = 0; j < n; j++) if (mask[i * n + j]) keys.push(j);
    if (keys.length === 0) continue;
    const s = keys.map((j) => {
      let d = 0;
      for (let c = 0; c < dh; c++) d += q[i * dh + c] * k[j * dh + c];
      return d / Math.sqrt(dh);
    });
    const p = REF[mapping](s); // the masked keys are absent, as -Infinity scores are
    keys.forEach((j, t) => {
      w[i * n + j] = p[t];
      for (let c = 0; c < dh; c++) out[i * dh + c] += p[t] * v[j * dh + c];
    });
  }
  return { out, w };
}

const PATTERNS = [
  { kind: "dense" }, { kind: "local", width: 0 }, { kind: "local", width: 3 }, { kind: "strided", stride: 1 },
  { kind: "strided", stride: 5 }, { kind: "fixed", block: 4 }, { kind: "fixed", block: 6, summary: 2 },
  { kind: "fixed", block: 7, summary: 7 },
];

for (const { name, sx } of all) {
  describe(`patterns (${name})`, () => {
    test("structured masks equal their definitions, with causal and keyLength", () => {
      for (const p of PATTERNS) {
        for (const n of [1, 9, 31]) {
          for (const causal of [false, true]) {
            for (const keyLength of [n, Math.floor(n / 2)]) {
              const r = sx.attentionPattern(n, p, { causal, keyLength });
              const want = refMask(n, p, { causal, keyLength });
              assert.deepEqual(r.mask, want, `${JSON.stringify(p)} n ${n} causal ${causal} keyLength ${keyLength}`);
              const pairs = want.reduce((a, b) => a + b, 0);
              assert.equal(r.pairs, pairs);
              const dense = refMask(n, { kind: "dense" }, { causal, keyLength }).reduce((a, b) => a + b, 0);
              assert.equal(r.densePairs, dense);
              assert.equal(r.fraction, dense ? pairs / dense : 0);
            }
          }
        }
      }
    });

    test("attention with a pattern equals dense attention with -Infinity outside the mask", () => {
      const n = 23, dh = 4, heads = 2, w = heads * dh, rand = rng(7);
      const q = Float32Array.from({ length: n * w }, () => 2 * rand() - 1);
      const k = Float32Array.from({ length: n * w }, () => 2 * rand() - 1);
      const v = Float32Array.from({ length: n * w }, () => 2 * rand() - 1);
      const head = (x, h) => Float64Array.from({ length: n * dh }, (_, e) => x[Math.floor(e / dh) * w + h * dh + (e % dh)]);
      for (const p of [...PATTERNS, { kind: "lsh", buckets: 4, rounds: 2, seed: 5 }, { kind: "lsh", buckets: 6, chunk: 3 }]) {
        for (const mapping of Object.keys(REF)) {
          for (const causal of [false, true]) {
            const { out, weights } = sx.attention(q, k, v, { tq: n, heads, mapping, causal, pattern: p, weights: true });
            for (let h = 0; h < heads; h++) {
              const { mask } = sx.attentionPattern(n, p, { k, heads, head: h, causal });
              const ref = refAttention(head(q, h), head(k, h), head(v, h), n, dh, mask, mapping);
              const wh = weights.subarray(h * n * n, (h + 1) * n * n);
              const what = `${JSON.stringify(p)} ${mapping} causal ${causal} head ${h}`;
              for (let e = 0; e < n * n; e++) if (!mask[e]) assert.equal(wh[e], 0, `${what}: weight ${e} outside the mask`);
              assertClose(wh, ref.w, 2e-5, `${what}: weights`);
              assertClose(head(out, h), ref.out, 1e-4, `${what}: out`);
            }
          }
        }
      }
    });

    test("LSH: deterministic for a seed, the same in both builds, chunks of the sorted order", () => {
      const n = 64, dh = 8, rand = rng(3);
      const k = Float32Array.from({ length: n * dh }, () => 2 * rand() - 1);
      const p = { kind: "lsh", buckets: 8, rounds: 2, seed: 42, chunk: 8 };
      const a = sx.attentionPattern(n, p, { k }), b = sx.attentionPattern(n, p, { k });
      assert.deepEqual(a, b);
      const other = all.find((o) => o.name !== name).sx.attentionPattern(n, p, { k });
      assert.deepEqual(other.buckets, a.buckets, "SIMD and scalar builds hash alike");
      assert.deepEqual(other.mask, a.mask);
      assert.notDeepEqual(sx.attentionPattern(n, { ...p, seed: 43 }, { k }).buckets, a.buckets, "another seed");
      const want = new Uint8Array(n * n);
      for (let r = 0; r < p.rounds; r++) {
        const order = a.order.subarray(r * n, (r + 1) * n), bucket = a.buckets.subarray(r * n, (r + 1) * n);
        const chunk = new Int32Array(n);
        order.forEach((t, s) => {
          chunk[t] = Math.floor(s / p.chunk);
          if (s > 0) assert.ok(bucket[order[s - 1]] < bucket[t] || (bucket[order[s - 1]] === bucket[t] && order[s - 1] < t), "sorted by (bucket, position)");
        });
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (chunk[j] === chunk[i] || chunk[j] === chunk[i] - 1) want[i * n + j] = 1;
      }
      assert.deepEqual(a.mask, want);
      for (let i = 0; i < n; i++) assert.equal(a.mask[i * n + i], 1, `query ${i} sees itself`);
      assert.ok(a.fraction < 0.6, `sparse: fraction ${a.fraction}`);
      assert.equal(a.chunk, 8);
      assert.equal(sx.attentionPattern(n, { kind: "lsh", buckets: 8 }, { k }).chunk, 8, "chunk defaults to n / buckets");
    });

    test("errors name the function, the argument and the value", () => {
      const q = new Float32Array(8).fill(0.5);
      const cases = [
        [() => sx.attentionPattern(0, { kind: "local", width: 1 }), RangeError, "attentionPattern: n (queries and keys) must be an integer >= 1 (got 0)"],
        [() => sx.attentionPattern(4, "local"), TypeError, 'attentionPattern: pattern must be an object such as { kind: "local", width: 8 } (got "local")'],
        [() => sx.attentionPattern(4, { kind: "sliding" }), RangeError, 'attentionPattern: pattern.kind must be "dense", "local", "strided", "fixed" or "lsh" (got "sliding")'],
        [() => sx.attentionPattern(4, { kind: "local" }), TypeError, "attentionPattern: pattern.width (keys on each side of the query) must be an integer >= 0 (got undefined)"],
        [() => sx.attentionPattern(4, { kind: "strided", stride: 0 }), RangeError, "attentionPattern: pattern.stride (the stride l) must be an integer >= 1 (got 0)"],
        [() => sx.attentionPattern(4, { kind: "fixed", block: 2, summary: 3 }), RangeError, "attentionPattern: pattern.summary must be <= pattern.block (2) (got 3)"],
        [() => sx.attentionPattern(4, { kind: "lsh", buckets: 3 }, { k: q }), RangeError, "attentionPattern: pattern.buckets must be even and in [2, 4096] (got 3)"],
        [() => sx.attentionPattern(4, { kind: "lsh", rounds: 65 }, { k: q }), RangeError, "attentionPattern: pattern.rounds must be in [1, 64] (got 65)"],
        [() => sx.attentionPattern(4, { kind: "lsh", seed: 1.5 }, { k: q }), RangeError, "attentionPattern: pattern.seed must be an integer in [-2^31, 2^32) (got 1.5)"],
        [() => sx.attentionPattern(4, { kind: "lsh" }), TypeError, "attentionPattern: the lsh pattern hashes keys: opts.k (n * width floats) is required (got undefined)"],
        [() => sx.attentionPattern(4, { kind: "lsh" }, { k: new Float32Array(6) }), RangeError, "attentionPattern: k.length (6) must be a non-zero multiple of n * heads (4 * 1)"],
        [() => sx.attentionPattern(4, { kind: "local", width: 1 }, { head: 1 }), RangeError, "attentionPattern: head must be < heads (1) (got 1)"],
        [() => sx.attentionPattern(4, { kind: "local", width: 1 }, { keyLength: 5 }), RangeError, "attentionPattern: keyLength must be <= n (4) (got 5)"],
        [() => sx.attention(q, new Float32Array(12), new Float32Array(12), { tq: 2, pattern: { kind: "lsh" } }), RangeError, "attention: the lsh pattern is self-attention only: tq (2) must equal tk (3)"],
        [() => sx.attention(q, q, q, { tq: 2, pattern: { kind: "fixed" } }), TypeError, "attention: pattern.block (the block length l) must be an integer >= 1 (got undefined)"],
      ];
      for (const [f, E, msg] of cases) assert.throws(f, (e) => e instanceof E && e.message === msg, msg);
      const bad = new Float32Array(8).fill(0.5);
      bad[3] = NaN;
      assert.throws(() => sx.attentionPattern(4, { kind: "lsh" }, { k: bad }), (e) => e.code === 2 && /k/.test(e.message));
    });

    test("the cost follows the pairs: a local window at n = 2048 computes about 1% of them", () => {
      const r = sx.attentionPattern(2048, { kind: "local", width: 8 });
      assert.equal(r.pairs, 2048 * 17 - 2 * (8 * 9) / 2);
      assert.ok(r.fraction < 0.01);
      const n = 2048, dh = 4, rand = rng(1);
      const x = Float32Array.from({ length: n * dh }, () => 2 * rand() - 1);
      const { weights } = sx.attention(x, x, x, { tq: n, mapping: "sparsemax", pattern: { kind: "local", width: 8 }, weights: true });
      for (let i = 0; i < n; i += 97) {
        let s = 0;
        for (let j = 0; j < n; j++) {
          if (Math.abs(i - j) > 8) assert.equal(weights[i * n + j], 0);
          s += weights[i * n + j];
        }
        assert.ok(Math.abs(s - 1) < 1e-5, `row ${i} on the simplex`);
      }
    });
  });
}
