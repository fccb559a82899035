// rnn.test.mjs - the RNN class (the recurrent encoder-decoder, core/src/rnn.c) on both wasm
// builds: training through RNN.train against the native trainer's losses for the same seed
// (tests/golden/rnn-native.json), config read back, forward and attention shapes (simplex rows,
// sparsemax's exact zeros, hard attention's one-hots, none's last position), greedy decoding
// against the attention call's tokens, checkpoints (float32 bit for bit, float16, truncated and
// foreign bytes), the argument errors, freed models, SIMD vs scalar, and memory that stays flat.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, throwsExactly, DIST } from "./helpers.mjs";

const all = await builds();
const golden = JSON.parse(await readFile(new URL("../golden/rnn-native.json", import.meta.url), "utf8"));

const SMALL = { task: "reverse", embed: 8, hidden: 16, attnHidden: 8, maxBatch: 8 };
const PAD = 0, EOS = 2;

/** The native trainer's EMA of the per-step losses (tools/train-rnn.c: 0.95 old + 0.05 new). */
function ema(losses) {
  let e = 0;
  losses.forEach((l, i) => (e = i ? 0.95 * e + 0.05 * l : l));
  return e;
}

/** Source positions before the first PAD of a row (EOS included), as the encoder reads. */
function srcLen(row) {
  const k = Array.prototype.indexOf.call(row, PAD);
  return k < 0 ? row.length : k;
}

for (const { name, sx } of all) {
  const { RNN, tasks, SimplexityError } = sx;

  describe(`RNN [${name} build]`, () => {
    test("RNN.train reproduces the native trainer's loss for the same seed, six variants", () => {
      for (const g of golden.runs) {
        const m = new RNN({ ...SMALL, attention: g.attention, mapping: g.mapping, estimator: g.estimator, seed: 3 });
        try {
          assert.equal(m.numParams, g.params, `${g.attention} ${g.mapping} ${g.estimator}: parameters`);
          const seen = [];
          const { losses } = m.train({ steps: 30, batch: 8, lr: 0.02, lrMin: 0.002, warmup: 5, seed: 3,
            every: 10, progress: (p) => void seen.push(p.step) });
          assert.deepEqual(seen, [10, 20, 30]);
          assert.equal(m.steps, 30);
          assertClose([ema(losses)], [g.loss], 2e-5, `${g.attention} ${g.mapping} ${g.estimator}: EMA loss`);
        } finally {
          m.free();
        }
      }
    });

    test("train in slices (from, total) is train in one go; progress returning false stops", () => {
      const a = new RNN({ ...SMALL, seed: 5 }), b = new RNN({ ...SMALL, seed: 5 });
      try {
        const whole = a.train({ steps: 12, batch: 4 }).losses;
        const parts = [...b.train({ steps: 5, batch: 4, total: 12 }).losses,
          ...b.train({ steps: 7, from: 5, batch: 4, total: 12 }).losses];
        assert.deepEqual(Array.from(whole), parts);
        const c = new RNN({ ...SMALL, seed: 5 });
        const got = c.train({ steps: 12, batch: 4, every: 3, progress: (p) => p.step < 6 }).losses;
        assert.equal(got.length, 6);
        assert.equal(c.steps, 6);
        c.free();
      } finally {
        a.free();
        b.free();
      }
    });

    test("the config reads back; loaded models carry theirs", () => {
      const m = new RNN({ ...SMALL, attention: "hard", mapping: "entmax", alpha: 1.7, estimator: "gumbel", temperature: 0.5 });
      try {
        const c = m.config;
        assert.deepEqual({ ...c }, {
          vocab: 13, maxLen: 12, embed: 8, hidden: 16, attnHidden: 8, attention: "hard", mapping: "entmax",
          estimator: "gumbel", alpha: 1.7, lambda: 0.1, seed: 1, maxBatch: 8, clip: 1, alphaLr: 1,
          temperature: 0.5, baseline: 0.9,
        });
        assert.ok(Object.isFrozen(c));
        assertClose([m.alpha], [1.7], 1e-6, "alpha");
        const l = RNN.load(m.save());
        assert.deepEqual(l.config, c);
        l.free();
        const none = new RNN({ ...SMALL, attention: "none" });
        assert.equal(none.alpha, 0);
        none.free();
      } finally {
        m.free();
      }
    });

    test("attention weights: simplex rows over the source, sparse zeros, hard one-hots, none's last state", () => {
      const b = tasks.generate("reverse", { seed: 7, count: 6, split: "heldout" });
      for (const [attention, mapping] of [["additive", "softmax"], ["additive", "sparsemax"], ["hard", "softmax"], ["none", "softmax"]]) {
        const m = new RNN({ ...SMALL, attention, mapping, seed: 2 });
        try {
          m.train({ steps: 20, batch: 8, lr: 0.01, warmup: 0 });
          const a = m.attention(b.src, { count: 6 });
          assert.deepEqual(a.shape, [6, 11, 12]);
          assert.equal(a.data.buffer.byteLength, a.data.byteLength); // a copy
          assert.deepEqual(a.tokens, m.generate(b.src, { count: 6 }));
          let zeros = 0;
          for (let r = 0; r < 6; r++) {
            const n = srcLen(b.src.subarray(r * 12, (r + 1) * 12));
            for (let t = 0; t < 11; t++) {
              const row = a.data.subarray((r * 11 + t) * 12, (r * 11 + t + 1) * 12);
              const sum = row.reduce((s, v) => s + v, 0);
              assertClose([sum], [1], 1e-5, `${attention} ${mapping} row ${r} step ${t} sums to 1`);
              for (let j = n; j < 12; j++) assert.equal(row[j], 0, "no weight on PAD positions");
              for (let j = 0; j < n; j++) zeros += row[j] === 0;
              if (attention !== "additive") {
                const ones = Array.from(row).filter((v) => v === 1).length;
                assert.equal(ones, 1, `${attention}: one-hot`);
              }
              if (attention === "none") assert.equal(row[n - 1], 1, "none: the last encoder state");
            }
          }
          if (mapping === "sparsemax" && attention === "additive") assert.ok(zeros > 0, "sparsemax leaves exact zeros");
          if (mapping === "softmax" && attention === "additive") assert.equal(zeros, 0, "softmax leaves none");
        } finally {
          m.free();
        }
      }
    });

    test("forward: logits and attention shapes; the loss of a batch equals trainStep's before the step", () => {
      const m = new RNN({ ...SMALL, mapping: "entmax15" });
      try {
        const b = tasks.generate("reverse", { seed: 4, count: 3 });
        const f = m.forward(b.src, b.tgt, { count: 3 });
        assert.deepEqual(f.shape, [3, 12, 13]);
        assert.equal(f.logits.length, 3 * 12 * 13);
        assert.deepEqual(f.attention.shape, [3, 12, 12]);
        const l = m.loss(b);
        assert.equal(m.trainStep(b, { lr: 0.01 }), l);
        assert.ok(m.loss(b) < l, "one step lowers the batch's loss");
      } finally {
        m.free();
      }
    });

    test("checkpoints: float32 round trip bit for bit, float16 decodes the same, bad bytes fail", () => {
      const m = new RNN({ ...SMALL, mapping: "sparsemax", seed: 9 });
      try {
        m.train({ steps: 40, batch: 8, lr: 0.01, warmup: 0 });
        const b = tasks.generate("reverse", { seed: 11, count: 8, split: "heldout" });
        const bytes = m.save();
        assert.equal(String.fromCharCode(...bytes.subarray(0, 4)), "SXRN");
        const l32 = RNN.load(bytes.buffer); // an ArrayBuffer works too
        assert.deepEqual(l32.save(), bytes);
        assert.equal(l32.loss(b), m.loss(b));
        l32.free();
        const b16 = m.save({ precision: "float16" });
        assert.ok(b16.length < 0.6 * bytes.length);
        const l16 = RNN.load(b16);
        assertClose([l16.loss(b)], [m.loss(b)], 5e-3, "float16 loss");
        l16.free();
        throwsExactly(() => RNN.load(bytes.subarray(0, 20)), SimplexityError, /rnn_load/);
        const model = new sx.Model({ task: "reverse", dModel: 8, heads: 2, layers: 1, dFF: 8 });
        throwsExactly(() => RNN.load(model.save()), SimplexityError, /not a Simplexity recurrent model/);
        model.free();
        throwsExactly(() => RNN.load("SXRN"), TypeError, 'RNN.load: bytes must be a Uint8Array or an ArrayBuffer (got "SXRN")');
        throwsExactly(() => m.save({ precision: "half" }), RangeError,
          'rnn.save: options.precision must be "float32" or "float16" (got "half")');
      } finally {
        m.free();
      }
    });

    test("bad arguments throw TypeError or RangeError naming the function, the argument and the value", () => {
      throwsExactly(() => new RNN(), TypeError, "RNN: config must be an object (got undefined)");
      throwsExactly(() => new RNN({ task: "reverse", attention: "soft" }), RangeError,
        'RNN: config.attention must be one of "none", "additive", "hard" (got "soft")');
      throwsExactly(() => new RNN({ task: "reverse", mapping: 2 }), TypeError,
        'RNN: config.mapping must be one of "softmax", "sparsemax", "entmax15", "entmax", "entmax-learned", "fusedmax" (got 2)');
      throwsExactly(() => new RNN({ task: "reverse", estimator: "score" }), RangeError,
        'RNN: config.estimator must be one of "reinforce", "gumbel", "straight" (got "score")');
      throwsExactly(() => new RNN({ task: "reverse", hidden: 0 }), RangeError,
        "RNN: config.hidden must be an integer in [1, 1024] (got 0)");
      throwsExactly(() => new RNN({ task: "reverse", temperature: 0 }), RangeError, "RNN: config.temperature must be > 0 (got 0)");
      throwsExactly(() => new RNN({ task: "reverse", baseline: 1 }), RangeError, "RNN: config.baseline must be in [0, 1) (got 1)");
      throwsExactly(() => new RNN({ task: "reverse", heads: 2 }), RangeError, /RNN: unknown config field "heads"/);
      throwsExactly(() => new RNN({ vocab: 10 }), TypeError, "RNN: config.maxLen is required when config.task is not given");
      const m = new RNN(SMALL);
      try {
        const b = tasks.generate("reverse", { seed: 1, count: 9 });
        throwsExactly(() => m.trainStep(b), RangeError, "rnn.trainStep: a batch has at most config.maxBatch (8) rows (got 9)");
        throwsExactly(() => m.trainStep({ src: b.src, tgt: b.tgt, shape: [9, 12] }, { lr: -1 }), RangeError,
          "rnn.trainStep: lr must be >= 0 (got -1)");
        throwsExactly(() => m.generate([[3, 4, 99]]), RangeError, "rnn.generate: src[0][2] must be a token id in [0, 13) (got 99)");
        throwsExactly(() => m.attention([[3, 4, EOS]], { maxLen: 1 }), RangeError,
          "rnn.attention: maxLen must be an integer in [2, 12] (got 1)");
        throwsExactly(() => m.forward([[3, EOS]], [[1, 3], [1, 4]]), RangeError, "rnn.forward: src has 1 rows, tgt has 2");
        throwsExactly(() => m.train({ steps: 0 }), RangeError, "rnn.train: steps must be an integer in [1, 10000000] (got 0)");
        throwsExactly(() => m.train({ steps: 1, task: "parity" }), RangeError, /rnn.train: task must be one of "reverse"/);
        throwsExactly(() => m.train({ steps: 1, batch: 9 }), RangeError, "rnn.train: batch must be an integer in [1, 8] (got 9)");
        throwsExactly(() => m.train({ steps: 1, progress: 1 }), TypeError, "rnn.train: progress must be a function (got 1)");
        throwsExactly(() => m.train({ steps: 1, task: "date" }), RangeError, /rnn.train: task date needs vocab >= \d+ and maxLen >= \d+ \(this model: 13, 12\)/);
        const loaded = RNN.load(m.save());
        throwsExactly(() => loaded.train({ steps: 1 }), TypeError, "rnn.train: options.task is required (this model was not created for a task)");
        loaded.free();
      } finally {
        m.free();
      }
    });

    test("a freed model throws on use; free is idempotent; progress may free it", () => {
      const m = new RNN(SMALL);
      m.free();
      m.free();
      assert.equal(m.freed, true);
      const msg = (fn) => `${fn}: this model has been freed (free() was called); create or load a new one`;
      throwsExactly(() => m.generate([[3, EOS]]), Error, msg("rnn.generate"));
      throwsExactly(() => m.config, Error, msg("rnn.config"));
      throwsExactly(() => m.save(), Error, msg("rnn.save"));
      const n = new RNN(SMALL);
      throwsExactly(() => n.train({ steps: 5, every: 1, progress: () => n.free() }), Error, msg("rnn.train"));
    });

    test("memory stays flat over many train, generate, attention, save/load and create/free calls", () => {
      const m = new RNN({ ...SMALL, attention: "hard", estimator: "reinforce" });
      try {
        const b = tasks.generate("reverse", { seed: 1, count: 8 });
        const step = () => {
          m.forward(b.src, b.tgt, { count: 8 });
          m.trainStep(b, { lr: 1e-3 });
          m.train({ steps: 1, batch: 8 });
          m.attention(b.src, { count: 8 });
          RNN.load(m.save()).free();
          RNN.load(m.save({ precision: "float16" })).free();
          new RNN(SMALL).free();
        };
        for (let i = 0; i < 5; i++) step();
        const before = sx.info().memoryBytes;
        for (let i = 0; i < 100; i++) step();
        assert.equal(sx.info().memoryBytes, before);
      } finally {
        m.free();
      }
    });
  });
}

describe("RNN: the SIMD and scalar builds agree", () => {
  test("the same training losses and decoded tokens to float rounding", () => {
    const [a, b] = all.map((x) => new x.sx.RNN({ ...SMALL, mapping: "entmax15", seed: 4 }));
    try {
      const la = a.train({ steps: 10, batch: 8, warmup: 0 }).losses, lb = b.train({ steps: 10, batch: 8, warmup: 0 }).losses;
      assertClose(la, lb, 1e-4, "losses");
    } finally {
      a.free();
      b.free();
    }
  });
});

// The shipped recurrent models (make models-rnn: five runs of make rnn-table, float16).
const SHIPPED = [
  { stem: "none", attention: "none", mapping: "softmax", estimator: "straight", atLeast: 0.8 },
  { stem: "additive-softmax", attention: "additive", mapping: "softmax", estimator: "straight", atLeast: 0.97 },
  { stem: "additive-sparsemax", attention: "additive", mapping: "sparsemax", estimator: "straight", atLeast: 0.97 },
  { stem: "additive-entmax15", attention: "additive", mapping: "entmax15", estimator: "straight", atLeast: 0.97 },
  { stem: "hard-straight", attention: "hard", mapping: "softmax", estimator: "straight", atLeast: 0.97 },
];

for (const { name, sx } of all) {
  describe(`the shipped RNN models [${name} build]`, () => {
    test("each loads (float16 SXRN), has the config its name says, and reverses held-out sources", async () => {
      const { RNN, tasks } = sx;
      const b = tasks.generate("reverse", { seed: 2001, split: "heldout", count: 400 });
      for (const s of SHIPPED) {
        const bytes = new Uint8Array(await readFile(new URL(`models/reverse-rnn-${s.stem}.sxrn`, DIST)));
        assert.equal(String.fromCharCode(...bytes.subarray(0, 4)), "SXRN", s.stem);
        assert.equal(new DataView(bytes.buffer).getUint32(4, true), 2, `${s.stem}: format version 2 (float16)`);
        const m = RNN.load(bytes);
        try {
          const c = m.config;
          assert.deepEqual([c.attention, c.mapping, c.estimator, c.vocab, c.maxLen], [s.attention, s.mapping, s.estimator, 13, 12], s.stem);
          let right = 0;
          for (let at = 0; at < 400; at += c.maxBatch) {
            const n = Math.min(c.maxBatch, 400 - at);
            const out = m.generate(b.src.subarray(at * 12, (at + n) * 12), { count: n });
            out.forEach((row, r) => (right += row.every((v, i) => v === b.tgt[(at + r) * 12 + i])));
          }
          assert.ok(right / 400 >= s.atLeast, `${s.stem}: ${right} of 400 held-out rows exact, expected >= ${s.atLeast * 400}`);
          const [out] = m.generate([tasks.encode("reverse", "abcdef")]);
          assert.equal(tasks.decode("reverse", out), "fedcba", s.stem);
        } finally {
          m.free();
        }
      }
    });

    // The anti-diagonal, one position late: step t writes letter n - 1 - t and attends most to
    // the encoder state after the next one (position n - t; step 0 to EOS at n), which still
    // holds it: what the three shipped additive models learned (seed 1).
    test("additive attention reads the source backwards: step t's largest weight on position n - t", async () => {
      const { RNN, tasks } = sx;
      for (const stem of ["additive-softmax", "additive-sparsemax", "additive-entmax15"]) {
        const m = RNN.load(new Uint8Array(await readFile(new URL(`models/reverse-rnn-${stem}.sxrn`, DIST))));
        try {
          const src = tasks.encode("reverse", "abcdefgh"); // 8 letters, EOS at 8
          const { shape, data } = m.attention([src]);
          let zeros = 0;
          for (let t = 0; t <= 8; t++) {
            const row = data.subarray(t * shape[2], (t + 1) * shape[2]);
            const best = row.indexOf(Math.max(...row));
            assert.equal(best, 8 - t, `${stem}: step ${t} attends to position ${best}`);
            zeros += row.subarray(0, 9).filter((v) => v === 0).length;
          }
          if (stem !== "additive-softmax") assert.ok(zeros > 0, `${stem} leaves exact zeros`);
          else assert.equal(zeros, 0, "softmax leaves none");
        } finally {
          m.free();
        }
      }
    });
  });
}
