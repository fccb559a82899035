// outputs.test.mjs - sparse output layers (model/outputs.js, core/src/model.h "Loss") on both
// wasm builds: the config's output mapping and its errors; checkpoints keep it and files from
// before it (a shipped softmax model, the version-1 golden file) load as softmax outputs; the
// model's loss is the mean Fenchel-Young loss (fyLoss) of its logits, whose gradient in the
// logits (central differences) is forward's probs minus the one-hot labels; forward's probs are
// the mapping of the logits, with exact zeros; decode's steps against teacher-forced passes;
// exactSearch against brute-force enumeration of every sequence up to maxLen, the cap and its
// errors; a short training run of a sparse-output model.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, throwsExactly } from "./helpers.mjs";

const all = await builds();
const SHIPPED = new URL("../../web/models/date-softmax.sxm", import.meta.url);
const V1_FILE = new URL("../golden/model-v1.sxm", import.meta.url);
const PAD = 0, BOS = 1, EOS = 2;
const TINY = { vocab: 6, maxLen: 5, dModel: 8, heads: 2, layers: 1, dFF: 8, maxBatch: 4 };
const OUTPUTS = [["sparsemax", {}], ["entmax15", {}], ["entmax", { outputAlpha: 1.3 }]];

/** Every decoder row BOS t1 .. t_{L-1} over the vocabulary, and the sequences (tokens up to the
 *  first EOS or PAD, or all) they spell, with their probabilities from teacher-forced passes:
 *  the brute force exactSearch must agree with. */
function bruteForce(sx, m, src) {
  const { vocab: V, maxLen: L } = m.config;
  const n = V ** (L - 1), rows = [], seqs = new Map();
  for (let i = 0; i < n; i++) {
    const toks = [];
    for (let k = 0, x = i; k < L - 1; k++, x = Math.floor(x / V)) toks.push(x % V);
    rows.push(toks);
  }
  for (let at = 0; at < n; at += 4096) {
    const chunk = rows.slice(at, at + 4096);
    const dec = chunk.map((t) => [BOS, ...t.slice(0, L - 2)]);
    const { probs } = m.forward(chunk.map(() => src), dec, { attention: false, probs: true });
    chunk.forEach((t, r) => {
      let prob = 1, len = 0;
      while (len < L - 1) {
        prob *= probs[(r * (L - 1) + len) * V + t[len]];
        if (t[len++] === EOS || t[len - 1] === PAD) break;
      }
      const key = [BOS, ...t.slice(0, len)].join(",");
      if (prob > 0 && !seqs.has(key)) seqs.set(key, prob);
    });
  }
  return seqs;
}

for (const { name, sx } of all) {
  describe(`sparse outputs [${name} build]`, () => {
    test("config.output: default softmax, each mapping read back, outputAlpha for entmax only", () => {
      const m = new sx.Model(TINY);
      assert.equal(m.config.output, "softmax");
      assert.equal(m.config.outputAlpha, 1.5);
      m.free();
      for (const [output, extra] of [...OUTPUTS, ["sparsemax", { outputAlpha: 3 }]]) {
        const k = new sx.Model({ ...TINY, output, ...extra });
        assert.equal(k.config.output, output);
        assert.equal(k.config.outputAlpha, output === "entmax" ? extra.outputAlpha : 1.5);
        k.free();
      }
    });

    test("config errors name Model, the field and the value", () => {
      throwsExactly(() => new sx.Model({ ...TINY, output: "argmax" }), RangeError,
        'Model: config.output must be one of "softmax", "sparsemax", "entmax15", "entmax" (got "argmax")');
      throwsExactly(() => new sx.Model({ ...TINY, output: 2 }), TypeError,
        'Model: config.output must be one of "softmax", "sparsemax", "entmax15", "entmax" (got 2)');
      throwsExactly(() => new sx.Model({ ...TINY, output: "entmax", outputAlpha: 0.5 }), RangeError,
        "Model: config.outputAlpha must be in [1, 8] (got 0.5)");
      throwsExactly(() => new sx.Model({ ...TINY, outputAlpha: "2" }), TypeError,
        'Model: config.outputAlpha must be a number in [1, 8] (got "2")');
    });

    test("checkpoints keep the output mapping; older files load as softmax outputs", async () => {
      for (const file of [SHIPPED, V1_FILE]) {
        const bytes = new Uint8Array(await readFile(file));
        const m = sx.Model.load(bytes);
        assert.equal(m.config.output, "softmax", String(file));
        const precision = bytes[4] === 1 ? "float32" : "float16";
        assert.deepEqual(m.save({ precision }), bytes, `${file} saves back byte for byte`);
        m.free();
      }
      const soft = new sx.Model(TINY);
      const head = new DataView(soft.save().buffer);
      assert.equal(head.getUint32(8, true), 11 + TINY.layers, "a softmax output adds no config int");
      soft.free();
      const m = new sx.Model({ ...TINY, output: "entmax", outputAlpha: 1.25, seed: 4 });
      const batch = { src: [[3, 4, 2, 0, 0]], tgt: [[1, 4, 3, 2, 0]] };
      for (const precision of ["float32", "float16"]) {
        const r = sx.Model.load(m.save({ precision }));
        assert.equal(r.config.output, "entmax");
        assert.equal(r.config.outputAlpha, 1.25);
        if (precision === "float32") assert.equal(r.loss(batch), m.loss(batch));
        r.free();
      }
      m.free();
    });

    for (const [output, extra] of OUTPUTS) {
      test(`${output} outputs: the loss is the mean fyLoss of the logits; its gradient in them is probs - onehot`, () => {
        const m = new sx.Model({ ...TINY, output, ...extra, seed: 7 });
        const src = [[3, 4, 5, 2, 0], [5, 3, 2, 0, 0]], tgt = [[1, 5, 4, 3, 2], [1, 3, 5, 2, 0]];
        const dec = tgt.map((r) => r.slice(0, -1));
        const labels = tgt.flatMap((r) => r.slice(1).map((y) => (y === PAD ? -1 : y)));
        const count = labels.filter((y) => y >= 0).length;
        const { logits, probs } = m.forward(src, dec, { attention: false, probs: true });
        const opts = { n: TINY.vocab, mapping: output, ...(extra.outputAlpha ? { alpha: extra.outputAlpha } : {}) };
        const mean = (x) => sx.fyLoss(x, labels, opts).loss.reduce((s, v) => s + v, 0) / count;
        assertClose(m.loss({ src, tgt }), mean(logits), 1e-5, "model.loss vs fyLoss");
        let zeros = 0;
        for (let i = 0; i < logits.length; i++) {
          const x = Float64Array.from(logits), h = 1e-2;
          x[i] += h;
          const up = mean(Float32Array.from(x));
          x[i] -= 2 * h;
          const down = mean(Float32Array.from(x));
          const row = Math.floor(i / TINY.vocab), y = labels[row];
          const want = y < 0 ? 0 : (probs[i] - (i % TINY.vocab === y ? 1 : 0)) / count;
          assert.ok(Math.abs((up - down) / (2 * h) - want) < 2e-3, `logit ${i}: differences ${(up - down) / (2 * h)}, probs ${want}`);
          zeros += probs[i] === 0;
        }
        assert.ok(zeros > 0, "the output distributions have exact zeros");
        m.free();
      });
    }

    test("forward's probs are the output mapping of the logits (softmax, sparsemax, alpha-entmax)", () => {
      const maps = { softmax: (x) => sx.softmax(x, { n: 6 }), sparsemax: (x) => sx.sparsemax(x, { n: 6 }),
        entmax: (x) => sx.entmax(x, { n: 6, alpha: 1.7 }) };
      for (const [output, f] of Object.entries(maps)) {
        const m = new sx.Model({ ...TINY, output, outputAlpha: 1.7, seed: 2 });
        const r = m.forward([[3, 4, 2, 0, 0]], [[1, 4, 3, 2]], { probs: true });
        assert.deepEqual(r.probs, f(r.logits), output);
        assert.equal(m.forward([[3, 4, 2, 0, 0]], [[1, 4]]).probs, undefined);
        throwsExactly(() => m.forward([[3]], [[1]], { probs: 1 }), TypeError, "model.forward: probs must be true or false (got 1)");
        m.free();
      }
    });

    test("decode: generate's tokens, each step's distribution and support as a teacher-forced pass gives", () => {
      const m = new sx.Model({ ...TINY, output: "sparsemax", seed: 11 });
      const src = [[3, 4, 5, 2, 0], [5, 2, 0, 0, 0], [4, 4, 3, 5, 2]];
      const rows = m.decode(src);
      const gen = m.generate(src);
      rows.forEach((row, b) => {
        assert.deepEqual(row.tokens, gen[b]);
        const { probs } = m.forward([src[b]], [Array.from(row.tokens.slice(0, row.steps.length))], { probs: true });
        row.steps.forEach((s, t) => {
          assert.equal(s.token, row.tokens[t + 1]);
          const want = probs.subarray(t * 6, (t + 1) * 6);
          for (let v = 0; v < 6; v++) assertClose(s.probs[v], want[v], 1e-5, `row ${b} step ${t} token ${v}`);
          const ids = [...s.probs.keys()].filter((v) => s.probs[v] > 0).sort((a, c) => s.probs[c] - s.probs[a] || a - c);
          assert.deepEqual(Array.from(s.support), ids);
        });
        const last = row.steps.at(-1).token;
        assert.ok(last === EOS || row.steps.length === TINY.maxLen - 1);
      });
      throwsExactly(() => m.decode(src, { maxLen: 9 }), RangeError, "model.decode: maxLen must be an integer in [2, 5] (got 9)");
      m.free();
    });

    for (const [output, extra] of OUTPUTS) {
      test(`exactSearch (${output} outputs) finds exactly the sequences brute force gives nonzero probability`, () => {
        for (const seed of [1, 2, 3]) {
          const m = new sx.Model({ ...TINY, output, ...extra, seed });
          const src = [3, 5, 4, 2, 0];
          const r = m.exactSearch(src);
          const want = bruteForce(sx, m, src);
          assert.equal(r.complete, true);
          const got = new Map(r.sequences.map((s) => [Array.from(s.tokens).join(","), s.probability]));
          assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `seed ${seed}: the sequences`);
          for (const [k, p] of want) assertClose(got.get(k), p, 1e-5 * p + 1e-9, `seed ${seed}: ${k}`);
          const total = r.sequences.reduce((s, x) => s + x.probability, 0);
          assertClose(total, 1, 1e-5, "probabilities sum to 1");
          for (let i = 1; i < r.sequences.length; i++) assert.ok(r.sequences[i - 1].probability >= r.sequences[i].probability);
          for (const s of r.sequences) assert.equal(s.finished, s.tokens.at(-1) === EOS);
          assert.ok(r.expanded >= 1 && r.expanded <= r.sequences.length * (TINY.maxLen - 1));
          m.free();
        }
      });
    }

    test("exactSearch past the cap: a RangeError, or with partial the first cap found", () => {
      const m = new sx.Model({ ...TINY, seed: 5 }); // softmax: every sequence has some probability
      throwsExactly(() => m.exactSearch([3, 2], { cap: 10 }), RangeError,
        "model.exactSearch: more than cap (10) output sequences have nonzero probability (softmax outputs: " +
        "every sequence has some): raise options.cap, or pass partial: true for the first cap found");
      const r = m.exactSearch([3, 2], { cap: 10, partial: true });
      assert.equal(r.complete, false);
      assert.equal(r.sequences.length, 10);
      const short = m.exactSearch([3, 2], { maxLen: 2 }); // one token after BOS: V sequences
      assert.equal(short.sequences.length, TINY.vocab);
      assertClose(short.sequences.reduce((s, x) => s + x.probability, 0), 1, 1e-5, "sum");
      m.free();
    });

    test("exactSearch argument errors name the function, the argument and the value", () => {
      const m = new sx.Model({ ...TINY, output: "sparsemax" });
      throwsExactly(() => m.exactSearch([[3, 2], [4, 2]]), RangeError, "model.exactSearch: src must be one source row (got 2 rows)");
      throwsExactly(() => m.exactSearch([3, 2], { cap: 0 }), RangeError, "model.exactSearch: cap must be an integer in [1, 1000000] (got 0)");
      throwsExactly(() => m.exactSearch([3, 2], { cap: "5" }), TypeError, 'model.exactSearch: cap must be an integer in [1, 1000000] (got "5")');
      throwsExactly(() => m.exactSearch([3, 2], { partial: 1 }), TypeError, "model.exactSearch: partial must be true or false (got 1)");
      throwsExactly(() => m.exactSearch([3, 2], { beam: 3 }), RangeError, 'model.exactSearch: unknown options field "beam" (known: cap, maxLen, partial)');
      throwsExactly(() => m.exactSearch([3, 9]), RangeError, "model.exactSearch: src[1] must be a token id in [0, 6) (got 9)");
      throwsExactly(() => m.exactSearch([3, 2, 2, 2, 2, 2]), RangeError, "model.exactSearch: src rows must have 1..5 tokens (maxLen) (got 6)");
      m.free();
      throwsExactly(() => m.exactSearch([3, 2]), Error, "model.exactSearch: this model has been freed (free() was called); create or load a new one");
    });

    test("a 1.5-entmax-output model learns reversal: the loss falls, its distributions get small supports", () => {
      const m = new sx.Model({ task: "reverse", dModel: 16, heads: 2, layers: 1, dFF: 32, maxBatch: 16, attention: "entmax15", output: "entmax15" });
      const losses = [];
      for (let s = 0; s < 300; s++) {
        const b = sx.tasks.generate("reverse", { split: "train", seed: 3, start: s * 16, count: 16 });
        losses.push(m.trainStep(b, { lr: 1e-2 }));
      }
      const first = losses.slice(0, 5).reduce((a, b) => a + b) / 5, last = losses.slice(-10).reduce((a, b) => a + b) / 10;
      assert.ok(last < 0.4 * first, `loss ${first} -> ${last}`);
      const held = sx.tasks.generate("reverse", { split: "heldout", seed: 4, count: 16 });
      const [count, w] = held.shape, V = m.config.vocab;
      const dec = Array.from({ length: count }, (_, r) => held.tgt.subarray(r * w, (r + 1) * w - 1));
      const { probs } = m.forward(held.src, dec, { count, attention: false, probs: true });
      let steps = 0, support = 0;
      for (let r = 0; r < count; r++) {
        for (let t = 0; t < w - 1 && held.tgt[r * w + t] !== EOS; t++, steps++) {
          for (let v = 0; v < V; v++) support += probs[(r * (w - 1) + t) * V + v] > 0;
        }
      }
      assert.ok(support < (steps * V) / 3, `mean support ${support / steps} of ${V}`);
      m.free();
    });
  });
}
