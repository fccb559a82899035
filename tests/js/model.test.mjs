// model.test.mjs - the Model and tasks API on both wasm builds: construction and every config
// error, the tasks (determinism, round trips, equality with the C reference answers), forward
// shapes and attention maps (simplex rows, exact zeros, causal and padding masks), checkpoints
// (float32 round trip bit for bit, float16 to the nearest halves with the same greedy outputs,
// version-1 files, truncated/corrupted bytes), training that lowers the loss, greedy
// decoding, freed models, SIMD vs scalar agreement, and memory that stays flat.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, throwsExactly } from "./helpers.mjs";

const all = await builds();

/** assert.throws with the exact class and message (string: equal; RegExp: match). */
const SMALL = { task: "reverse", dModel: 16, heads: 2, layers: 2, dFF: 32, maxBatch: 8 };

// Checkpoints (core/src/model.h): a 20-byte header, the config, the parameters (float32 in
// format version 1, IEEE float16 in version 2), then an FNV-1a checksum.
const fnv1a = (b) => {
  let h = 2166136261;
  for (const x of b) h = Math.imul(h ^ x, 16777619) >>> 0;
  return h;
};
const resign = (b) => new DataView(b.buffer, b.byteOffset).setUint32(b.length - 4, fnv1a(b.subarray(0, b.length - 4)), true);
/** The parameters a checkpoint stores, as numbers (float16 decoded exactly). */
function storedParams(bytes, numParams) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const version = dv.getUint32(4, true), width = version === 2 ? 2 : 4;
  const at = bytes.length - 4 - width * numParams;
  return Array.from({ length: numParams }, (_, i) => {
    if (width === 4) return dv.getFloat32(at + 4 * i, true);
    const h = dv.getUint16(at + 2 * i, true), e = (h >> 10) & 31, m = h & 1023;
    const v = e === 31 ? (m ? NaN : Infinity) : e ? 2 ** (e - 15) * (1 + m / 1024) : m * 2 ** -24;
    return h & 0x8000 ? -v : v;
  });
}
const V1_FILE = new URL("../golden/model-v1.sxm", import.meta.url); // tests/golden/gen_model_v1.c
const ROW = (a, r, len) => a.subarray(r * len, (r + 1) * len);

for (const { name, sx } of all) {
  const { Model, tasks, SimplexityError } = sx;

  describe(`tasks [${name} build]`, () => {
    test("names, vocabularies, widths", () => {
      assert.deepEqual(tasks.names(), ["reverse", "sort", "after_marker", "date"]);
      assert.deepEqual(tasks.names().map((t) => tasks.vocab(t).length), [13, 13, 14, 37]);
      assert.deepEqual(tasks.names().map((t) => tasks.width(t)), [12, 12, 13, 12]);
      assert.deepEqual(tasks.vocab("reverse"), ["<pad>", "<bos>", "<eos>", ..."abcdefghij"]);
      assert.equal(tasks.vocab("after_marker")[13], "|");
      assert.deepEqual(tasks.lengths("date"), { minSrc: 10, maxSrc: 11, minTgt: 10, maxTgt: 10 });
    });

    test("generate is deterministic and independent of how the rows are chunked", () => {
      for (const t of tasks.names()) {
        const a = tasks.generate(t, { seed: 7, count: 10, split: "heldout" });
        const b = tasks.generate(t, { seed: 7, count: 10, split: "heldout" });
        assert.deepEqual(a, b);
        const w = tasks.width(t);
        assert.deepEqual(a.shape, [10, w]);
        assert.ok(a.src instanceof Int32Array && a.src.length === 10 * w && a.tgt.length === 10 * w);
        const c = tasks.generate(t, { seed: 7, count: 4, split: "heldout" });
        const d = tasks.generate(t, { seed: 7, start: 4, count: 6, split: "heldout" });
        assert.deepEqual([...c.src, ...d.src], [...a.src]);
        assert.deepEqual([...c.tgt, ...d.tgt], [...a.tgt]);
        assert.notDeepEqual(tasks.generate(t, { seed: 8, count: 10, split: "heldout" }).src, a.src);
        // a wider maxLen only adds PAD
        const wide = tasks.generate(t, { seed: 7, count: 10, split: "heldout", maxLen: w + 3 });
        for (let r = 0; r < 10; r++) assert.deepEqual([...ROW(wide.src, r, w + 3)], [...ROW(a.src, r, w), 0, 0, 0]);
      }
    });

    test("encode/decode round trip; answers and splits equal the C reference", () => {
      for (const t of tasks.names()) {
        const w = tasks.width(t);
        for (const split of ["train", "heldout"]) {
          const b = tasks.generate(t, { seed: 3, count: 50, split });
          assert.deepEqual(tasks.answer(t, b.src, { count: 50 }), b.tgt); // C solver, all rows at once
          for (let r = 0; r < 50; r++) {
            const text = tasks.decode(t, ROW(b.src, r, w));
            assert.deepEqual(tasks.encode(t, text), ROW(b.src, r, w));
            assert.equal(tasks.answer(t, text), tasks.decode(t, ROW(b.tgt, r, w)));
            assert.equal(tasks.splitOf(t, text), split);
          }
        }
      }
      assert.equal(tasks.answer("date", "22 Nov 2026"), "2026-11-22");
      assert.equal(tasks.answer("reverse", "abcde"), "edcba");
      assert.equal(tasks.answer("sort", "cabca"), "aabcc");
      assert.equal(tasks.answer("after_marker", "jd|abg"), "abg");
      assert.deepEqual(tasks.encode("reverse", "abc", { maxLen: 5 }), new Int32Array([3, 4, 5, 2, 0]));
      assert.equal(tasks.decode("reverse", [1, 7, 6, 2, 0, 9]), "ed");
      // nested rows in, nested rows out
      const rows = tasks.answer("reverse", [[3, 4, 5, 2, 0], [5, 2, 0, 0, 0]]);
      assert.deepEqual(rows, [new Int32Array([1, 5, 4, 3, 2]), new Int32Array([1, 5, 2, 0, 0])]);
    });

    test("bad arguments are clear errors", () => {
      throwsExactly(() => tasks.generate("rev"), RangeError,
        'tasks.generate: task must be one of "reverse", "sort", "after_marker", "date" (got "rev")');
      throwsExactly(() => tasks.vocab(0), TypeError, "tasks.vocab: task must be a task name string (got 0)");
      throwsExactly(() => tasks.generate("sort", { split: "test" }), RangeError,
        'tasks.generate: split must be "train" or "heldout" (got "test")');
      throwsExactly(() => tasks.generate("sort", { count: 0 }), RangeError,
        "tasks.generate: count must be an integer in [1, 65536] (got 0)");
      throwsExactly(() => tasks.generate("sort", { maxLen: 11 }), RangeError,
        "tasks.generate: maxLen must be an integer in [12, 256] (got 11)");
      throwsExactly(() => tasks.generate("sort", { seed: -1 }), RangeError,
        "tasks.generate: seed must be an integer in [0, 4294967295] (got -1)");
      throwsExactly(() => tasks.generate("sort", { sede: 1 }), RangeError,
        'tasks.generate: unknown options field "sede" (known: seed, count, split, start, maxLen)');
      throwsExactly(() => tasks.encode("reverse", "abz"), RangeError,
        'tasks.encode: text[2] "z" is not in the reverse alphabet "abcdefghij"');
      throwsExactly(() => tasks.encode("reverse", "abcdefghijab"), RangeError,
        'tasks.encode: text "abcdefghijab" has 12 characters; with EOS it must fit in maxLen 12');
      // tasks.splitOf names its argument as the caller gave it: a string `text` (as tasks.encode
      // and tasks.answer), a row of ids `src`
      throwsExactly(() => tasks.splitOf("reverse", "abz"), RangeError,
        'tasks.splitOf: text[2] "z" is not in the reverse alphabet "abcdefghij"');
      throwsExactly(() => tasks.splitOf("date", "9 Oct 2026?"), RangeError,
        'tasks.splitOf: text[10] "?" is not in the date alphabet " -0123456789ADFJMNOSabceglnoprtuvy"');
      throwsExactly(() => tasks.splitOf("reverse", "a".repeat(256)), RangeError,
        "tasks.splitOf: text has 256 characters, more than 255");
      throwsExactly(() => tasks.splitOf("reverse", [3, 99]), RangeError,
        "tasks.splitOf: src[1] must be a token id in [0, 13) (got 99)");
      throwsExactly(() => tasks.splitOf("reverse", []), RangeError, "tasks.splitOf: src must have 1..256 tokens (got 0)");
      throwsExactly(() => tasks.splitOf("reverse", 5), TypeError,
        "tasks.splitOf: src must be a string or a row of token ids (got 5)");
      throwsExactly(() => tasks.decode("reverse", [1, 3, 13]), RangeError,
        "tasks.decode: tokens[2] must be a token id in [0, 13) (got 13)");
      throwsExactly(() => tasks.decode("reverse", [1, 3.5]), RangeError,
        "tasks.decode: tokens[1] must be a token id in [0, 13) (got 3.5)");
      throwsExactly(() => tasks.decode("reverse", "abc"), TypeError,
        'tasks.decode: tokens must be an Int32Array or an array of token ids (got "abc")');
      // domain errors are found by the C solver
      throwsExactly(() => tasks.answer("date", "30 Feb 2024"), SimplexityError, /^tasks\.answer: .*30 Feb 2024/, { code: 1 });
    });
  });

  describe(`Model construction [${name} build]`, () => {
    test("defaults and the resolved config", () => {
      const m = new Model({ task: "reverse" });
      try {
        assert.deepEqual({ ...m.config, attention: [...m.config.attention] }, {
          vocab: 13, maxLen: 12, dModel: 32, heads: 4, layers: 2, dFF: 64,
          attention: ["entmax-learned", "entmax-learned"], alpha: 1.5, lambda: 0.1, beta: 0.1, span: 0,
          spanRamp: 3, activation: "relu", seed: 1, maxBatch: 32, spanPenalty: 0.002, clip: 1,
          alphaLr: 1, output: "softmax", outputAlpha: 1.5, arch: "encoder-decoder",
        });
        assert.ok(Object.isFrozen(m.config));
        assert.equal(m.steps, 0);
        assert.ok(m.numParams > 40000 && m.numParams < 50000, `numParams ${m.numParams}`);
        const al = m.alphas();
        assert.deepEqual(Object.keys(al), ["encoder", "decoder", "cross"]);
        for (const k of Object.keys(al)) assert.deepEqual(al[k], [[1.5, 1.5, 1.5, 1.5], [1.5, 1.5, 1.5, 1.5]]);
        assert.deepEqual(m.spans().cross, [[null, null, null, null], [null, null, null, null]]);
      } finally {
        m.free();
      }
      const m2 = new Model({
        vocab: 20, maxLen: 9, dModel: 8, heads: 2, dFF: 4, seed: 7, activation: "gelu",
        attention: ["softmax", "entmax", "fusedmax", "oscarmax"], alpha: 1.25, lambda: 0.5, beta: 0.25, span: true,
        spanRamp: 2, maxBatch: 3, spanPenalty: 0, clip: 0, alphaLr: 2, layers: 4,
      });
      try {
        const c = m2.config;
        assert.deepEqual([c.vocab, c.maxLen, c.span, c.spanRamp, c.alpha, c.lambda, c.beta, c.activation, c.clip, c.alphaLr],
          [20, 9, 9, 2, 1.25, 0.5, 0.25, "gelu", 0, 2]);
        assert.deepEqual([...c.attention], ["softmax", "entmax", "fusedmax", "oscarmax"]);
        const al = m2.alphas();
        assert.deepEqual(al.encoder, [[1, 1], [1.25, 1.25], [2, 2], [2, 2]]);
        const sp = m2.spans();
        assert.deepEqual(sp.encoder, [[9, 9], [9, 9], [9, 9], [9, 9]]); // z = 1 at init: the full span
        assert.deepEqual(sp.cross, [[null, null], [null, null], [null, null], [null, null]]);
      } finally {
        m2.free();
      }
    });

    const R = { task: "reverse" };
    const CONFIG_ERRORS = [
      [undefined, TypeError, "Model: config must be an object (got undefined)"],
      [[1], TypeError, "Model: config must be an object (got an Array)"],
      [{ dModel: 32 }, TypeError, "Model: config.vocab is required when config.task is not given"],
      [{ vocab: 10 }, TypeError, "Model: config.maxLen is required when config.task is not given"],
      [{ task: "copy" }, RangeError, 'Model: task must be one of "reverse", "sort", "after_marker", "date" (got "copy")'],
      [{ ...R, dmodel: 32 }, RangeError, /^Model: unknown config field "dmodel" \(known: task, vocab, /],
      [{ ...R, vocab: 3 }, RangeError, "Model: config.vocab must be an integer in [4, 4096] (got 3)"],
      [{ ...R, vocab: 12 }, RangeError, "Model: config.vocab must be >= 13 for the reverse task (got 12)"],
      [{ ...R, maxLen: 11 }, RangeError, "Model: config.maxLen must be an integer in [12, 256] (got 11)"],
      [{ vocab: 5, maxLen: 1 }, RangeError, "Model: config.maxLen must be an integer in [2, 256] (got 1)"],
      [{ ...R, heads: 0 }, RangeError, "Model: config.heads must be an integer in [1, 16] (got 0)"],
      [{ ...R, heads: 2.5 }, RangeError, "Model: config.heads must be an integer in [1, 16] (got 2.5)"],
      [{ ...R, dModel: "32" }, TypeError, 'Model: config.dModel must be an integer in [2, 1024] (got "32")'],
      [{ ...R, dModel: 30 }, RangeError, "Model: config.dModel must be even and a multiple of config.heads (4) (got 30)"],
      [{ ...R, dModel: 2048 }, RangeError, "Model: config.dModel must be an integer in [2, 1024] (got 2048)"],
      [{ ...R, layers: 9 }, RangeError, "Model: config.layers must be an integer in [1, 8] (got 9)"],
      [{ ...R, dFF: 0 }, RangeError, "Model: config.dFF must be an integer in [1, 4096] (got 0)"],
      [{ ...R, attention: "sparse" }, RangeError, /^Model: config.attention must be one of "softmax", "sparsemax", "entmax15", "entmax", "entmax-learned", "fusedmax", "oscarmax" \(got "sparse"\)$/],
      [{ ...R, attention: "oscarmax", beta: -0.5 }, RangeError, "Model: config.beta must be >= 0 (got -0.5)"],
      [{ ...R, attention: ["softmax"] }, RangeError, "Model: config.attention must name one mapping per layer (2) (got 1)"],
      [{ ...R, attention: ["softmax", 3] }, TypeError, /^Model: config.attention\[1\] must be one of .* \(got 3\)$/],
      [{ ...R, attention: 1 }, TypeError, "Model: config.attention must be a mapping name or an array of one per layer (got 1)"],
      [{ ...R, alpha: 0.5 }, RangeError, "Model: config.alpha must be in [1, 8] (got 0.5)"],
      [{ ...R, alpha: NaN }, RangeError, "Model: config.alpha must be finite (got NaN)"],
      [{ ...R, lambda: -1 }, RangeError, "Model: config.lambda must be >= 0 (got -1)"],
      [{ ...R, span: 13 }, RangeError, "Model: config.span must be an integer in [0, 12] (got 13)"],
      [{ ...R, span: "yes" }, TypeError, 'Model: config.span must be an integer in [0, 12] (got "yes")'],
      [{ ...R, span: 4, spanRamp: 0 }, RangeError, "Model: config.spanRamp must be an integer in [1, 256] (got 0)"],
      [{ ...R, activation: "tanh" }, RangeError, 'Model: config.activation must be "relu" or "gelu" (got "tanh")'],
      [{ ...R, seed: 2 ** 32 }, RangeError, "Model: config.seed must be an integer in [-2147483648, 4294967295] (got 4294967296)"],
      [{ ...R, maxBatch: 0 }, RangeError, "Model: config.maxBatch must be an integer in [1, 4096] (got 0)"],
      [{ ...R, spanPenalty: -0.1 }, RangeError, "Model: config.spanPenalty must be >= 0 (got -0.1)"],
      [{ ...R, clip: Infinity }, RangeError, "Model: config.clip must be finite (got Infinity)"],
      [{ ...R, alphaLr: -1 }, RangeError, "Model: config.alphaLr must be >= 0 (got -1)"],
      [{ ...R, alphaLr: 1e39 }, RangeError, "Model: config.alphaLr must be finite (got 1e+39)"],
    ];
    for (const [config, Cls, message] of CONFIG_ERRORS) {
      test(`config error: ${message instanceof RegExp ? message.source.slice(0, 60) : message}`, () => {
        throwsExactly(() => new Model(config), Cls, message);
      });
    }

    test("a config the C core refuses is a SimplexityError with its code", () => {
      throwsExactly(() => new Model({ vocab: 4096, maxLen: 16, dModel: 1024, heads: 16, layers: 8, dFF: 4096 }),
        SimplexityError, "Model: model_create: config needs too many parameters", { code: 1 });
    });
  });

  describe(`Model compute [${name} build]`, () => {
    test("forward: shapes, copies, attention on the simplex, exact zeros, causal and padding masks", () => {
      const m = new Model({ ...SMALL, attention: ["sparsemax", "softmax"] });
      try {
        const b = tasks.generate("reverse", { seed: 4, count: 5 });
        const f = m.forward(b.src, b.tgt, { count: 5 });
        assert.deepEqual(f.shape, [5, 12, 13]);
        assert.ok(f.logits instanceof Float32Array && f.logits.length === 5 * 12 * 13);
        assert.ok(f.logits.every(Number.isFinite));
        assert.deepEqual(f.attention.map((a) => `${a.kind}${a.layer}`), ["encoder0", "encoder1", "decoder0", "decoder1", "cross0", "cross1"]);
        for (const a of f.attention) {
          const [B, H, Tq, Tk] = a.shape;
          assert.deepEqual([B, H, Tq, Tk], [5, 2, 12, 12]);
          assert.equal(a.heads, 2);
          assert.ok(a.data instanceof Float32Array && a.data.length === B * H * Tq * Tk);
          assert.equal(a.data.buffer.byteLength, a.data.byteLength); // a copy, not a view of wasm memory
          assert.deepEqual(a.alpha, a.layer === 0 ? [2, 2] : [1, 1]);
          let zeros = 0;
          for (let r = 0; r < B; r++) {
            const srcLen = ROW(b.src, r, 12).indexOf(0); // keys from the first PAD on are masked
            for (let h = 0; h < H; h++) {
              for (let i = 0; i < Tq; i++) {
                const row = a.data.subarray(((r * H + h) * Tq + i) * Tk, ((r * H + h) * Tq + i + 1) * Tk);
                let sum = 0;
                for (let j = 0; j < Tk; j++) {
                  const v = row[j];
                  assert.ok(v >= 0 && v <= 1, `${a.kind}${a.layer} entry ${v}`);
                  sum += v;
                  if (v === 0) zeros++;
                  if (a.kind === "decoder" && j > i) assert.equal(v, 0, `causal: decoder row ${i} key ${j}`);
                  if (a.kind !== "decoder" && srcLen >= 0 && j >= srcLen) assert.equal(v, 0, `padding: key ${j}`);
                }
                assert.ok(Math.abs(sum - 1) < 1e-5, `${a.kind}${a.layer} row sums to ${sum}`);
              }
            }
          }
          if (a.layer === 0) {
            // sparsemax: exact zeros beyond the masked ones
            const masked = a.kind === "decoder" ? B * H * (Tq * (Tq - 1)) / 2 : 0;
            assert.ok(zeros > masked, `${a.kind}: ${zeros} zeros, ${masked} masked`);
          }
        }
        // the same pass again gives the same bytes; nested rows give the same as flat rows
        const g = m.forward(Array.from({ length: 5 }, (_, r) => ROW(b.src, r, 12)),
          Array.from({ length: 5 }, (_, r) => [...ROW(b.tgt, r, 12)]));
        assert.deepEqual(g.logits, f.logits);
        assert.deepEqual(g.attention[4].data, f.attention[4].data);
        // shorter rows; attention: false skips the maps
        const h = m.forward([[3, 4, 2]], [[1, 4]], { attention: false });
        assert.deepEqual(h.shape, [1, 2, 13]);
        assert.deepEqual(h.attention, []);
        const k = m.forward([3, 4, 2], [1, 4, 3]);
        assert.deepEqual(k.attention.find((a) => a.kind === "cross").shape, [1, 2, 3, 3]);
        assert.deepEqual(k.attention.find((a) => a.kind === "encoder").shape, [1, 2, 3, 3]);
        // more rows than maxBatch: the activation block grows
        const big = tasks.generate("reverse", { seed: 1, count: 20 });
        assert.deepEqual(m.forward(big.src, big.tgt, { count: 20 }).shape, [20, 12, 13]);
        assert.equal(m.config.maxBatch, 20);
      } finally {
        m.free();
      }
    });

    test("bad token rows are clear errors, and the model works afterwards", () => {
      const m = new Model(SMALL);
      try {
        const E = [
          [() => m.forward([[3, 13, 2]], [[1]]), RangeError, "model.forward: src[0][1] must be a token id in [0, 13) (got 13)"],
          [() => m.forward([3, 4, 2], [1, -1]), RangeError, "model.forward: tgt[1] must be a token id in [0, 13) (got -1)"],
          [() => m.forward([3, 4, 2, 3, 4, 2], [1, 4, 1, 4.5], { count: 2 }), RangeError, "model.forward: tgt[1][1] must be a token id in [0, 13) (got 4.5)"],
          [() => m.forward([[3, "4"]], [[1]]), TypeError, 'model.forward: src[0][1] must be a token id in [0, 13) (got "4")'],
          [() => m.forward("abc", [1]), TypeError, 'model.forward: src must be an Int32Array, an array of token ids or an array of rows (got "abc")'],
          [() => m.forward(new Float32Array(3), [1]), TypeError, "model.forward: src must be an Int32Array, an array of token ids or an array of rows (got a Float32Array)"],
          [() => m.forward([[3, 2], [3]], [[1], [1]]), RangeError, "model.forward: src[1] has 1 tokens, src[0] has 2: rows must have equal lengths"],
          [() => m.forward([[3, 2], [3, 2]], [[1]]), RangeError, "model.forward: src has 2 rows, tgt has 1"],
          [() => m.forward([3, 2, 3], [1, 1], { count: 2 }), RangeError, "model.forward: src.length (3) must be a positive multiple of the row count (2)"],
          [() => m.forward([], [1]), RangeError, "model.forward: src.length (0) must be a positive multiple of the row count (1)"],
          [() => m.forward(new Int32Array(13), [1]), RangeError, "model.forward: src rows must have 1..12 tokens (maxLen) (got 13)"],
          [() => m.forward([2], [1], { count: 0 }), RangeError, "model.forward: count must be an integer in [1, 4096] (got 0)"],
          [() => m.forward([2], [1], { attention: 1 }), TypeError, "model.forward: attention must be true or false (got 1)"],
          [() => m.trainStep({ src: [3, 2], tgt: [1] }), RangeError, "model.trainStep: batch.tgt rows must have 2..12 tokens (maxLen) (got 1)"],
          [() => m.trainStep({ src: [3, 2], tgt: [1, 14] }), RangeError, "model.trainStep: batch.tgt[1] must be a token id in [0, 13) (got 14)"],
          [() => m.trainStep([3, 2]), TypeError, "model.trainStep: batch must be an object (got an Array)"],
          [() => m.trainStep({ src: [3, 2], tgt: [1, 2] }, { lr: -1 }), RangeError, "model.trainStep: lr must be >= 0 (got -1)"],
          [() => m.trainStep({ src: [3, 2], tgt: [1, 2] }, { lr: NaN }), RangeError, "model.trainStep: lr must be finite (got NaN)"],
          [() => m.trainStep({ src: [3, 2], tgt: [1, 2] }, { rate: 1 }), RangeError, 'model.trainStep: unknown options field "rate" (known: lr)'],
          [() => m.trainStep({ src: [3, 2], tgt: [1, 2], shape: [3, 2] }), RangeError, "model.trainStep: batch.src.length (2) must be a positive multiple of the row count (3)"],
          [() => m.generate([[3, 99]]), RangeError, "model.generate: src[0][1] must be a token id in [0, 13) (got 99)"],
          [() => m.generate([3, 2], { maxLen: 13 }), RangeError, "model.generate: maxLen must be an integer in [2, 12] (got 13)"],
        ];
        for (const [f, Cls, msg] of E) throwsExactly(f, Cls, msg);
        assert.deepEqual(m.forward([3, 2], [1]).shape, [1, 1, 13]);
      } finally {
        m.free();
      }
    });

    test("generate returns BOS, tokens of the alphabet, EOS, then PAD", () => {
      const m = new Model(SMALL);
      try {
        const b = tasks.generate("reverse", { seed: 2, count: 6, split: "heldout" });
        const out = m.generate(b.src, { count: 6 });
        assert.equal(out.length, 6);
        for (const row of out) {
          assert.ok(row instanceof Int32Array && row.length === 12);
          assert.equal(row[0], 1);
          let t = 1;
          while (t < 12 && row[t] >= 3 && row[t] < 13) t++;
          if (t < 12) assert.equal(row[t], 2, `row ${row}: EOS after the tokens`);
          for (t++; t < 12; t++) assert.equal(row[t], 0, `row ${row}: PAD after EOS`);
          assert.equal(typeof tasks.decode("reverse", row), "string");
        }
        assert.equal(m.generate([3, 4, 2], { maxLen: 4 })[0].length, 4);
      } finally {
        m.free();
      }
    });

    test("save/load: identical forward outputs, config and alphas; bad bytes are SimplexityErrors", () => {
      const m = new Model({ ...SMALL, attention: ["entmax-learned", "fusedmax"], span: 6, alphaLr: 10 });
      let m2 = null;
      try {
        for (let s = 0; s < 5; s++) m.trainStep(tasks.generate("reverse", { seed: 1, start: 8 * s, count: 8 }), { lr: 1e-2 });
        const bytes = m.save();
        assert.ok(bytes instanceof Uint8Array);
        assert.deepEqual([...bytes.subarray(0, 4)].map((c) => String.fromCharCode(c)).join(""), "SXMD");
        m2 = Model.load(bytes);
        assert.deepEqual(m2.config, m.config);
        assert.deepEqual(m2.alphas(), m.alphas());
        assert.deepEqual(m2.spans(), m.spans());
        assert.equal(m2.steps, 0);
        const b = tasks.generate("reverse", { seed: 11, count: 4, split: "heldout" });
        const f1 = m.forward(b.src, b.tgt, { count: 4 });
        const f2 = m2.forward(b.src, b.tgt, { count: 4 });
        assert.deepEqual(f2.logits, f1.logits);
        for (let i = 0; i < f1.attention.length; i++) assert.deepEqual(f2.attention[i].data, f1.attention[i].data);
        assert.deepEqual(m2.save(), bytes);
        assert.deepEqual(Model.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)).save(), bytes);

        throwsExactly(() => Model.load(bytes.subarray(0, bytes.length - 7)), SimplexityError,
          `Model.load: model_load: truncated: ${bytes.length - 7} bytes, the header promises ${bytes.length}`, { code: 1 });
        throwsExactly(() => Model.load(bytes.subarray(0, 10)), SimplexityError,
          "Model.load: model_load: truncated: 10 bytes, a checkpoint has at least 24", { code: 1 });
        const bad = bytes.slice();
        bad[bytes.length >> 1] ^= 0x40;
        throwsExactly(() => Model.load(bad), SimplexityError,
          "Model.load: model_load: checksum mismatch (the file is corrupted)", { code: 1 });
        const magic = bytes.slice();
        magic[0] = 0x58;
        throwsExactly(() => Model.load(magic), SimplexityError, "Model.load: model_load: not a Simplexity model (bad magic)", { code: 1 });
        throwsExactly(() => Model.load([1, 2, 3]), TypeError, "Model.load: bytes must be a Uint8Array or an ArrayBuffer (got an Array)");
        throwsExactly(() => Model.load(new Uint8Array(0)), SimplexityError, /truncated: 0 bytes/, { code: 1 });
        const v3 = bytes.slice();
        v3[4] = 3;
        throwsExactly(() => Model.load(v3), SimplexityError,
          "Model.load: model_load: format version 3 is not supported (this build reads versions 1 (float32) and 2 (float16))", { code: 1 });
      } finally {
        m.free();
        if (m2) m2.free();
      }
    });

    test("save({ precision }): float32 exact (version 1), float16 the nearest halves in half the bytes (version 2)", () => {
      const m = new Model({ ...SMALL, attention: "entmax-learned", span: 6, alphaLr: 10 });
      const loaded = [];
      try {
        for (let s = 0; s < 5; s++) m.trainStep(tasks.generate("reverse", { seed: 1, start: 8 * s, count: 8 }), { lr: 1e-2 });
        const np = m.numParams, b32 = m.save(), b16 = m.save({ precision: "float16" });
        assert.deepEqual(m.save({ precision: "float32" }), b32);
        assert.deepEqual(m.save({}), b32);
        assert.equal(b32[4], 1);
        assert.equal(b16[4], 2);
        assert.equal(b16.length, b32.length - 2 * np);
        assert.deepEqual(b16.subarray(8, b32.length - 4 * np - 4), b32.subarray(8, b32.length - 4 * np - 4), "same header and config");
        const m16 = Model.load(b16);
        loaded.push(m16);
        assert.deepEqual(m16.config, m.config);
        const p32 = storedParams(b32, np), p16 = storedParams(b16, np);
        let worst = 0, moved = 0;
        p32.forEach((p, i) => {
          const q = p16[i];
          moved += q !== p;
          if (Math.abs(p) >= 2 ** -14) worst = Math.max(worst, Math.abs(q - p) / Math.abs(p));
          else assert.ok(Math.abs(q - p) <= 2 ** -25, `parameter ${i}: ${p} -> ${q}`);
        });
        assert.ok(worst <= 2 ** -11 && moved > np / 2, `relative error ${worst}, ${moved} of ${np} moved`);
        // the loaded model holds exactly the halves: saved as float32 they come back, as float16
        // the bytes are the same
        assert.deepEqual(storedParams(m16.save(), np), p16);
        assert.deepEqual(m16.save({ precision: "float16" }), b16);
        const b = tasks.generate("reverse", { seed: 11, count: 4, split: "heldout" });
        assertClose(m16.forward(b.src, b.tgt, { count: 4 }).logits, m.forward(b.src, b.tgt, { count: 4 }).logits, 2e-2, "float16 logits");

        throwsExactly(() => m.save({ precision: "float64" }), RangeError,
          'model.save: options.precision must be "float32" or "float16" (got "float64")');
        throwsExactly(() => m.save({ precision: "toString" }), RangeError,
          'model.save: options.precision must be "float32" or "float16" (got "toString")');
        throwsExactly(() => m.save({ precision: 16 }), TypeError,
          'model.save: options.precision must be "float32" or "float16" (got 16)');
        throwsExactly(() => m.save({ precison: "float16" }), RangeError, 'model.save: unknown options field "precison" (known: precision)');
        throwsExactly(() => m.save("float16"), TypeError, 'model.save: options must be an object (got "float16")');
        throwsExactly(() => Model.load(b16.subarray(0, b16.length - 1)), SimplexityError,
          `Model.load: model_load: truncated: ${b16.length - 1} bytes, the header promises ${b16.length}`, { code: 1 });
        const bad = b16.slice();
        bad[b16.length - 9] ^= 0x04;
        throwsExactly(() => Model.load(bad), SimplexityError, "Model.load: model_load: checksum mismatch (the file is corrupted)", { code: 1 });
        const inf = b16.slice();
        new DataView(inf.buffer).setUint16(b16.length - 4 - 2 * np + 2 * 5, 0x7c00, true);
        resign(inf);
        throwsExactly(() => Model.load(inf), SimplexityError, "Model.load: model_load: parameter 5 is not finite (Infinity)", { code: 1 });
        // a parameter float16 cannot hold: saving as float16 fails and names it, float32 works
        const big = b32.slice();
        new DataView(big.buffer).setFloat32(b32.length - 4 - 4 * np + 4 * 3, 1e5, true);
        resign(big);
        const mb = Model.load(big);
        loaded.push(mb);
        throwsExactly(() => mb.save({ precision: "float16" }), SimplexityError,
          "model.save: model_save: parameter 3 (wte[3]) is 100000, beyond float16 (finite, magnitude below 65520): save as float32", { code: 1 });
        assert.deepEqual(mb.save(), big);
      } finally {
        m.free();
        for (const x of loaded) x.free();
      }
    });

    test("a version-1 (float32) checkpoint made before float16 existed still loads and saves back byte for byte", async () => {
      const file = new Uint8Array(await readFile(V1_FILE));
      assert.equal(file[4], 1);
      const m = Model.load(file);
      try {
        assert.equal(m.numParams, 1769);
        assert.deepEqual(m.save(), file);
        const b16 = m.save({ precision: "float16" });
        assert.equal(b16.length, file.length - 2 * m.numParams);
        const m16 = Model.load(b16);
        const p32 = storedParams(file, m.numParams), p16 = storedParams(b16, m.numParams);
        m16.free();
        p32.forEach((p, i) => assert.ok(Math.abs(p16[i] - p) <= Math.max(2 ** -11 * Math.abs(p), 2 ** -25), `parameter ${i}`));
      } finally {
        m.free();
      }
    });

    test("a committed checkpoint (web/models) loads, matches the trainer's summary and is accurate in wasm", async () => {
      const bytes = new Uint8Array(await readFile(new URL("../../web/models/reverse-alpha-span.sxm", import.meta.url)));
      const summary = JSON.parse(await readFile(new URL("../../web/models/summary.json", import.meta.url), "utf8"))
        .find((e) => e.task === "reverse" && e.kind === "alpha-span");
      const m = Model.load(bytes);
      try {
        assert.equal(m.numParams, summary.params);
        const al = m.alphas();
        assertClose(al.encoder.flat(), summary.alphas.enc_self.flat(), 2e-3, "encoder alphas");
        assertClose(al.cross.flat(), summary.alphas.cross.flat(), 2e-3, "cross alphas");
        assert.ok(m.spans().encoder.flat().every((v) => v >= 0 && v <= m.config.maxLen));
        const held = tasks.generate("reverse", { seed: 123, count: 200, split: "heldout" });
        const out = m.generate(held.src, { count: 200 });
        let right = 0;
        out.forEach((r, i) => (right += tasks.decode("reverse", r) === tasks.decode("reverse", held.tgt.subarray(12 * i, 12 * i + 12))));
        assert.ok(right >= 196, `${right} / 200 held-out examples right`);
      } finally {
        m.free();
      }
    });

    test("the committed checkpoints are float16 (version 2); a trained model decodes the same from float16", async () => {
      const bytes = new Uint8Array(await readFile(new URL("../../web/models/reverse-alpha.sxm", import.meta.url)));
      assert.equal(bytes[4], 2);
      const m = Model.load(bytes);
      let m16 = null;
      try {
        assert.deepEqual(m.save({ precision: "float16" }), bytes, "halves resave to the same bytes");
        assert.equal(m.save().length, bytes.length + 2 * m.numParams);
        // one tiny Adam step moves every weight off the float16 grid; the model stays trained
        m.trainStep(tasks.generate("reverse", { seed: 5, count: 32 }), { lr: 1e-4 });
        const b16 = m.save({ precision: "float16" });
        assert.notDeepEqual(b16, bytes);
        m16 = Model.load(b16);
        const held = tasks.generate("reverse", { seed: 321, count: 300, split: "heldout" });
        const o32 = m.generate(held.src, { count: 300 }), o16 = m16.generate(held.src, { count: 300 });
        let right = 0, same = 0;
        o32.forEach((r, i) => {
          right += tasks.decode("reverse", r) === tasks.decode("reverse", held.tgt.subarray(12 * i, 12 * i + 12));
          same += r.every((t, j) => t === o16[i][j]);
        });
        assert.ok(right >= 294, `${right} / 300 held-out examples right`);
        assert.equal(same, 300, `float16 changed ${300 - same} of 300 greedy outputs`);
      } finally {
        m.free();
        if (m16) m16.free();
      }
    });

    test("trainStep lowers the loss on reversal (deterministic)", () => {
      const m = new Model({ task: "reverse", dModel: 32, heads: 4, layers: 1, dFF: 64, alphaLr: 10 });
      try {
        const losses = [];
        for (let s = 0; s < 150; s++) {
          const b = tasks.generate("reverse", { seed: 1, start: 32 * s, count: 32 });
          losses.push(m.trainStep(b, { lr: 1e-2 * Math.min(1, (s + 1) / 30) }));
        }
        const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
        const first = mean(losses.slice(0, 5)), last = mean(losses.slice(-10));
        assert.ok(first > 2 && last < 0.6 * first && last < 1.5, `loss ${first} -> ${last}`);
        assert.equal(m.steps, 150);
        const held = tasks.generate("reverse", { seed: 3, count: 32, split: "heldout" });
        assert.ok(m.loss(held) < 1.5, `held-out loss ${m.loss(held)}`);
        // learned alphas moved away from 1.5
        assert.ok(m.alphas().cross[0].some((a) => Math.abs(a - 1.5) > 1e-3));
      } finally {
        m.free();
      }
    });

    test("a freed model throws a clear Error on any use; free() is idempotent", () => {
      const m = new Model(SMALL);
      assert.equal(m.freed, false);
      m.free();
      m.free();
      assert.equal(m.freed, true);
      const msg = (fn) => `${fn}: this model has been freed (free() was called); create or load a new one`;
      throwsExactly(() => m.forward([3, 2], [1]), Error, msg("model.forward"));
      throwsExactly(() => m.trainStep({ src: [3, 2], tgt: [1, 2] }), Error, msg("model.trainStep"));
      throwsExactly(() => m.loss({ src: [3, 2], tgt: [1, 2] }), Error, msg("model.loss"));
      throwsExactly(() => m.generate([3, 2]), Error, msg("model.generate"));
      throwsExactly(() => m.alphas(), Error, msg("model.alphas"));
      throwsExactly(() => m.spans(), Error, msg("model.spans"));
      throwsExactly(() => m.save(), Error, msg("model.save"));
      throwsExactly(() => m.config, Error, msg("model.config"));
      throwsExactly(() => m.steps, Error, msg("model.steps"));
      throwsExactly(() => m.numParams, Error, msg("model.numParams"));
    });

    test("memory stays flat over many forward, trainStep, generate, save/load and create/free calls", () => {
      const m = new Model(SMALL);
      try {
        const b = tasks.generate("reverse", { seed: 1, count: 8 });
        const step = () => {
          m.forward(b.src, b.tgt, { count: 8 });
          m.trainStep(b, { lr: 1e-3 });
          m.generate(b.src, { count: 8 });
          Model.load(m.save()).free();
          Model.load(m.save({ precision: "float16" })).free();
          new Model(SMALL).free();
        };
        for (let i = 0; i < 5; i++) step(); // warm up: scratch and allocator settle
        const before = sx.info().memoryBytes;
        for (let i = 0; i < 200; i++) step();
        assert.equal(sx.info().memoryBytes, before);
      } finally {
        m.free();
      }
    });
  });
}

for (const { name, sx } of all) {
  describe(`a loaded model whose finite weights overflow [${name} build]`, () => {
    test("forward, loss, generate and trainStep all fail with the same SimplexityError (code 2) naming the call", () => {
      const m = new sx.Model(SMALL);
      const { vocab: V, dModel: C } = m.config;
      const bytes = m.save(); // float32: each parameter as stored
      m.free();
      const dv = new DataView(bytes.buffer);
      const nCfg = dv.getUint32(8, true), nF = dv.getUint32(12, true);
      const at = 20 + 4 * (nCfg + nF);
      // the output projection and bias (after the token embedding, core/src/model.c's tensor
      // order) at +-3e38: attention stays finite, the logits overflow (the reported case)
      for (let i = V * C; i < 2 * V * C + V; i++) dv.setFloat32(at + 4 * i, dv.getFloat32(at + 4 * i, true) < 0 ? -3e38 : 3e38, true);
      resign(bytes);
      const huge = sx.Model.load(bytes); // finite, checksum-valid: it loads
      try {
        const batch = sx.tasks.generate("reverse", { seed: 3, count: 2 });
        const calls = {
          "model.forward": () => huge.forward(batch.src, batch.tgt, { count: 2 }),
          "model.loss": () => huge.loss(batch),
          "model.generate": () => huge.generate(batch.src, { count: 2 }),
          "model.trainStep": () => huge.trainStep(batch, { lr: 1e-3 }),
        };
        for (const [fn, call] of Object.entries(calls)) {
          assert.throws(call, (e) => {
            assert.equal(e.name, "SimplexityError", `${fn}: ${e.message}`);
            assert.equal(e.code, 2, fn);
            assert.match(e.message, new RegExp(`^${fn.replace(".", "\\.")}: .*the model's logits are not finite .*overflow float32`), fn);
            return true;
          });
        }
      } finally {
        huge.free();
      }
    });
  });
}

describe("SIMD and scalar builds", () => {
  test("agree closely on a forward pass and on training", () => {
    const [a, b] = all.map((x) => x.sx);
    const cfg = { ...SMALL, attention: ["entmax-learned", "sparsemax"] };
    const ma = new a.Model(cfg), mb = new b.Model(cfg);
    try {
      const batch = a.tasks.generate("reverse", { seed: 5, count: 4 });
      assert.deepEqual(b.tasks.generate("reverse", { seed: 5, count: 4 }), batch); // integer-only
      const fa = ma.forward(batch.src, batch.tgt, { count: 4 });
      const fb = mb.forward(batch.src, batch.tgt, { count: 4 });
      assertClose(fa.logits, fb.logits, 1e-4, "logits");
      for (let i = 0; i < fa.attention.length; i++) assertClose(fa.attention[i].data, fb.attention[i].data, 1e-4, `map ${i}`);
      // every head's effective alpha, encoder, decoder, cross (sparsemax heads: 2, fixed)
      const alphas = (m) => ["encoder", "decoder", "cross"].flatMap((k) => m.alphas()[k].flat());
      const a0 = alphas(ma), b0 = alphas(mb);
      assert.deepEqual(b0, a0, "the same initial alphas");
      const la = [], lb = [];
      for (let s = 0; s < 5; s++) {
        const bb = a.tasks.generate("reverse", { seed: 1, start: 8 * s, count: 8 });
        la.push(ma.trainStep(bb, { lr: 1e-2 }));
        lb.push(mb.trainStep(bb, { lr: 1e-2 }));
      }
      assertClose(la, lb, 1e-3, "losses");
      // The learned alphas: their moves over the 5 steps (~1e-2 here) agree to 1% of the largest.
      // The losses alone hardly see the alpha gradient (a sign error in the scalar build's moved
      // them by at most 1.3e-3, inside their tolerance); the alphas move the other way then.
      const da = alphas(ma).map((v, i) => v - a0[i]), db = alphas(mb).map((v, i) => v - b0[i]);
      const moved = Math.max(...da.map(Math.abs));
      assert.ok(moved >= 1e-3, `the learned alphas move in 5 steps (largest move ${moved} < 1e-3): nothing to compare`);
      const worst = Math.max(...da.map((v, i) => Math.abs(v - db[i])));
      assert.ok(worst <= 1e-2 * moved,
        `learned alphas' moves over 5 steps differ between the builds by up to ${worst} (> 1% of the largest move, ${moved})\n` +
        `  SIMD   [${da.map((v) => v.toExponential(2)).join(", ")}]\n  scalar [${db.map((v) => v.toExponential(2)).join(", ")}]`);
    } finally {
      ma.free();
      mb.free();
    }
  });
});
