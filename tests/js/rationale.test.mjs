// rationale.test.mjs - the Rationale class (core/src/rationale.c; issue 25 item 4) on both wasm
// builds: Rationale.task (web/lib/model/rationale-task.js) example for example against the C
// generator's (tests/golden/rationale-task.json, `build/tools/rationales --dump 100`), training
// through train() against the native losses of the same seed and the figures after it, the
// selection's shape per method, evaluate against a recount from predict, the argument errors and
// freed models.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { builds, assertClose, throwsExactly } from "./helpers.mjs";

const all = await builds();
const golden = JSON.parse(await readFile(new URL("../golden/rationale-task.json", import.meta.url), "utf8"));
const L = 12;

for (const { name, sx } of all) {
  const { Rationale } = sx;

  describe(`Rationale [${name} build]`, () => {
    test("Rationale.task equals the C generator's examples, both splits", () => {
      for (const [split, seed] of [["train", 1], ["test", 7]]) {
        const d = Rationale.task(100, { split, seed });
        const g = golden[split];
        assert.deepEqual(Array.from(d.tokens), g.flatMap((e) => e.tokens), `${split}: tokens`);
        assert.deepEqual(Array.from(d.labels), g.map((e) => e.label), `${split}: labels`);
        assert.deepEqual(Array.from(d.gold), g.flatMap((e) => e.gold), `${split}: gold`);
        const one = Rationale.task(1, { split, seed, first: 37 });
        assert.deepEqual(Array.from(one.tokens), g[37].tokens, `${split}: example 37 alone`);
      }
      assert.equal(Rationale.words.length, Rationale.vocab);
      assert.deepEqual(Rationale.methods, ["sparsemax", "entmax15", "hardkuma", "reinforce"]);
    });

    test("train() reproduces the native losses and figures of the same seed, every method", () => {
      const held = Rationale.task(100, { split: "test", seed: 7 });
      for (const g of golden.runs) {
        const m = new Rationale({ method: g.method, maxBatch: 8 });
        try {
          const seen = [];
          const { losses } = m.train({ steps: 40, every: 10, progress: (p) => void seen.push(p.step) });
          assert.deepEqual(seen, [10, 20, 30, 40]);
          assertClose(losses, g.losses, 1e-4, `${g.method}: losses`);
          const f = m.evaluate(held);
          for (const k of ["accuracy", "precision", "recall", "fraction"]) {
            assert.ok(Math.abs(f[k] - g[k]) <= 0.02, `${g.method} ${k}: ${f[k]} vs native ${g[k]}`);
          }
          assert.equal(m.steps, 40);
        } finally {
          m.free();
        }
      }
    });

    test("the selection per method: simplex rows, gates in [0, 1], Bernoulli gates 0 or 1; evaluate recounts predict", () => {
      const d = Rationale.task(20, { split: "test" });
      for (const method of Rationale.methods) {
        const m = new Rationale({ method, maxBatch: 20, seed: 3 });
        try {
          m.train({ steps: 30 });
          const { weights, labels } = m.predict(d.tokens);
          assert.equal(weights.length, 20 * L);
          let hit = 0, sel = 0, correct = 0;
          for (let r = 0; r < 20; r++) {
            const row = weights.subarray(r * L, r * L + L);
            if (method === "sparsemax" || method === "entmax15") {
              assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `${method}: row ${r} sums to 1`);
            }
            for (const w of row) assert.ok(w >= 0 && w <= 1 && (method !== "reinforce" || w === 0 || w === 1), `${method}: ${w}`);
            correct += labels[r] === d.labels[r];
            for (let t = 0; t < L; t++) sel += row[t] > 0, hit += row[t] > 0 && d.gold[r * L + t] === 1;
          }
          const f = m.evaluate(d);
          assert.equal(f.accuracy, Number(Math.fround(correct / 20).toPrecision(7)));
          assert.equal(f.precision, sel ? Number(Math.fround(hit / sel).toPrecision(7)) : 0);
          assert.equal(f.fraction, Number(Math.fround(sel / (20 * L)).toPrecision(7)));
        } finally {
          m.free();
        }
      }
    });

    test("bad arguments throw naming the function, the argument and the value; a freed model throws", () => {
      throwsExactly(() => new Rationale({ method: "softmax" }), RangeError,
        'Rationale: method must be one of sparsemax, entmax15, hardkuma, reinforce (got "softmax")');
      throwsExactly(() => new Rationale({ maxBatch: 0 }), RangeError, "Rationale: maxBatch must be an integer in [1, 4096] (got 0)");
      throwsExactly(() => new Rationale({ sparsity: -1 }), RangeError, "Rationale: sparsity must be >= 0 (got -1)");
      throwsExactly(() => new Rationale({ lr: 1 }), RangeError, /Rationale: unknown options field "lr"/);
      throwsExactly(() => Rationale.task(0), RangeError, "Rationale.task: count must be an integer in [1, 1048576] (got 0)");
      throwsExactly(() => Rationale.task(2, { split: "valid" }), RangeError, 'Rationale.task: split must be "train" or "test" (got "valid")');
      const m = new Rationale({ maxBatch: 2 });
      const d = Rationale.task(3);
      throwsExactly(() => m.trainStep({ tokens: d.tokens, labels: d.labels }), RangeError,
        "rationale.trainStep: a batch has at most maxBatch (2) rows (got 3)");
      const bad = d.tokens.slice(0, 24);
      bad[5] = 16;
      throwsExactly(() => m.trainStep({ tokens: bad, labels: [0, 1] }), RangeError,
        "rationale.trainStep: tokens[5] must be an integer in [0, 15] (got 16)");
      throwsExactly(() => m.trainStep({ tokens: d.tokens.slice(0, 24), labels: [0, 2] }), RangeError,
        "rationale.trainStep: labels[1] must be an integer in [0, 1] (got 2)");
      throwsExactly(() => m.trainStep({ tokens: d.tokens.slice(0, 24), labels: [0] }), RangeError,
        "rationale.trainStep: labels must hold 2 values for 2 rows (got 1)");
      throwsExactly(() => m.trainStep({ tokens: d.tokens.slice(0, 24), labels: [0, 1] }, { lr: NaN }), RangeError,
        "rationale.trainStep: lr must be finite (got NaN)");
      throwsExactly(() => m.predict(d.tokens.slice(0, 13)), RangeError,
        "rationale.predict: tokens must hold a multiple of 12 values, at least 12 (got 13)");
      throwsExactly(() => m.predict("abc"), TypeError, /rationale.predict: tokens must be an array or typed array of integers/);
      throwsExactly(() => m.evaluate({ tokens: d.tokens, labels: d.labels }), TypeError, /rationale.evaluate: gold must be an array/);
      throwsExactly(() => m.train({ steps: 0 }), RangeError, "rationale.train: steps must be an integer in [1, 10000000] (got 0)");
      assert.equal(m.steps, 0, "no step taken by the failed calls");
      const loss = m.trainStep({ tokens: d.tokens.slice(0, 24), labels: d.labels.slice(0, 2) });
      assert.ok(Number.isFinite(loss) && m.steps === 1);
      m.free();
      m.free();
      assert.equal(m.freed, true);
      throwsExactly(() => m.predict(d.tokens.slice(0, 12)), Error, /rationale.predict: this model has been freed/);
    });
  });
}
