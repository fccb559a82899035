// experiments.test.mjs - explain.js ("simplexity/explain"): Kendall's tau-b against a plain
// O(n^2) definition on ties, JSD and TV on known cases, the tasks' alignments on examples
// worked by hand, erasure (the flip is real: the decision after erasing `removed` keys differs,
// after removed - 1 it does not), the adversarial search (its row is on the simplex and keeps the
// output within epsilon), runExperiments' summary on a shipped model (progress, early stop,
// abort), and argument errors. On the SIMD build (explain.js imports ./simplexity.js).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DIST, throwsExactly } from "./helpers.mjs";

const sx = await import(new URL("simplexity.js", DIST).href);
const ex = await import(new URL("explain.js", DIST).href);
await sx.init();
const { Model, tasks } = sx;
const load = (name) => Model.load(readFileSync(new URL(`models/${name}.sxm`, DIST)));

describe("explain.js", () => {
  test("kendallTau, jsd, totalVariation", () => {
    assert.equal(ex.kendallTau([1, 2, 3, 4], [10, 20, 30, 40]), 1);
    assert.equal(ex.kendallTau([1, 2, 3, 4], [4, 3, 2, 1]), -1);
    assert.ok(Number.isNaN(ex.kendallTau([1, 1, 1], [1, 2, 3])));
    // tau-b with ties: x = [1,2,2,3], y = [1,3,2,2]: pairs (0,1) c, (0,2) c, (0,3) c, (1,2) x-tie,
    // (1,3) d, (2,3) y-tie -> c 3, d 1, tx 1, ty 1: (3 - 1) / sqrt(5 * 5) = 0.4
    assert.ok(Math.abs(ex.kendallTau([1, 2, 2, 3], [1, 3, 2, 2]) - 0.4) < 1e-12);
    assert.ok(Math.abs(ex.jsd([1, 0], [0, 1]) - Math.log(2)) < 1e-12);
    assert.equal(ex.jsd([0.3, 0.7], [0.3, 0.7]), 0);
    assert.ok(Math.abs(ex.totalVariation([0.5, 0.5, 0], [0, 0.5, 0.5]) - 0.5) < 1e-12);
    assert.throws(() => ex.kendallTau([1, 2], [1]), /kendallTau: x and y must have equal lengths \(got 2 and 1\)/);
    assert.throws(() => ex.jsd("ab", [1]), /jsd: p must be an array of numbers \(got "ab"\)/);
  });

  test("jsd and totalVariation: argument errors name the function, the argument and the value", () => {
    const third = [1 / 3, 1 / 3, 1 / 3];
    for (const fn of ["jsd", "totalVariation"]) {
      const f = ex[fn];
      // unequal lengths, either way round, Arrays and typed arrays
      throwsExactly(() => f([0.5, 0.5], third), RangeError, `${fn}: p and q must have equal lengths (got 2 and 3)`);
      throwsExactly(() => f(third, [1]), RangeError, `${fn}: p and q must have equal lengths (got 3 and 1)`);
      throwsExactly(() => f(new Float32Array(4), new Float64Array(2)), RangeError, `${fn}: p and q must have equal lengths (got 4 and 2)`);
      throwsExactly(() => f([], [1]), RangeError, `${fn}: p and q must have equal lengths (got 0 and 1)`);
      // not arrays of numbers
      throwsExactly(() => f("ab", [1, 0]), TypeError, `${fn}: p must be an array of numbers (got "ab")`);
      throwsExactly(() => f(), TypeError, `${fn}: p must be an array of numbers (got undefined)`);
      throwsExactly(() => f([1, 0], null), TypeError, `${fn}: q must be an array of numbers (got null)`);
      throwsExactly(() => f([1, 0], { length: 2, 0: 1, 1: 0 }), TypeError, `${fn}: q must be an array of numbers (got an object)`);
      throwsExactly(() => f(new DataView(new ArrayBuffer(8)), new DataView(new ArrayBuffer(16))), TypeError,
        `${fn}: p must be an array of numbers (got a DataView)`);
      throwsExactly(() => f([0, 1], new BigInt64Array(2)), TypeError, `${fn}: q must be an array of numbers (got a BigInt64Array)`);
      // entries
      throwsExactly(() => f([0.5, "0.5"], [1, 0]), TypeError, `${fn}: p[1] must be a number (got "0.5")`);
      throwsExactly(() => f([1, 0], [NaN, 1]), TypeError, `${fn}: q[0] must be a number (got NaN)`);
      throwsExactly(() => f([1, , 0], [0, 0, 1]), TypeError, `${fn}: p[1] must be a number (got undefined)`); // eslint-disable-line no-sparse-arrays
      // and the argument checks come first: equal lengths of bad entries are still refused
      throwsExactly(() => f([1, null], [0, 1, 0]), TypeError, `${fn}: p[1] must be a number (got null)`);
    }
  });

  test("alignment: worked examples", () => {
    assert.deepEqual(ex.alignment("reverse", tasks.encode("reverse", "abc")), [[2], [1], [0], []]);
    assert.deepEqual(ex.alignment("sort", tasks.encode("sort", "cab")), [[1], [2], [0], []]);
    assert.deepEqual(ex.alignment("sort", tasks.encode("sort", "bab")), [[1], [0, 2], [0, 2], []]);
    assert.deepEqual(ex.alignment("after_marker", tasks.encode("after_marker", "ab|cd")), [[3], [4], []]);
    const d = ex.alignment("date", tasks.encode("date", "9 Oct 2026")); // 2026-10-09
    assert.deepEqual(d, [[6], [7], [8], [9], [], [2, 3, 4], [2, 3, 4], [], [0], [0], []]);
    assert.throws(() => ex.alignment("copy", [3, 2]), RangeError);
  });

  test("erasure: the reported flip is real", () => {
    const m = load("reverse-entmax15");
    try {
      const src = tasks.encode("reverse", "gfedcb");
      const out = m.generate(src)[0];
      const V = m.config.vocab;
      const dec = (keys, step) => {
        const lg = m.forward(src, out, { attention: false, intervene: keys.length ? [{ op: "erase", kind: "cross", row: step, keys }] : undefined }).logits;
        const z = lg.subarray(step * V, (step + 1) * V);
        return z.indexOf(Math.max(...z));
      };
      for (const order of ["attention", "gradient", "attentionGradient", "random"]) {
        for (const step of [0, 3]) {
          const r = ex.erasure(m, src, out, { step, order });
          assert.equal(r.decision, out[step + 1]);
          assert.deepEqual([...r.ranking].sort(), [0, 1, 2, 3, 4, 5, 6]);
          assert.ok(r.removed !== null, `${order}: a 7-key source flips when all are erased`);
          assert.notEqual(dec(r.ranking.slice(0, r.removed), step), r.decision);
          assert.equal(r.flippedTo, dec(r.ranking.slice(0, r.removed), step));
          if (r.removed > 1) assert.equal(dec(r.ranking.slice(0, r.removed - 1), step), r.decision);
          assert.equal(r.fraction, r.removed / 7);
        }
      }
      assert.throws(() => ex.erasure(m, src, out, { step: 1, order: "loo" }), /erasure: order must be one of "attention", "gradient", "attentionGradient", "random" \(got "loo"\)/);
      assert.throws(() => ex.erasure(m, src, out, {}), /erasure: options\.step is required/);
      assert.throws(() => ex.erasure({}, src, out, { step: 1 }), /erasure: model must be a Model/);
    } finally {
      m.free();
    }
  });

  test("adversarialAttention: on the simplex, within epsilon", () => {
    const m = load("reverse-softmax");
    try {
      const src = tasks.encode("reverse", "abcdefgh");
      const out = m.generate(src)[0];
      const V = m.config.vocab;
      for (const epsilon of [0.01, 0.1]) {
        const r = ex.adversarialAttention(m, src, out, { step: 2, layer: 1, head: 1, epsilon, iterations: 20 });
        const all = ex.adversarialAttention(m, src, out, { step: 2, epsilon, iterations: 20 });
        assert.ok(all.tv <= epsilon && Math.abs(all.adversarial.reduce((x, y) => x + y) - 1) < 1e-5);
        const wa = new Float32Array(12);
        wa.set(all.adversarial);
        const za = m.forward(src, out, { attention: false, intervene: [{ op: "replace", kind: "cross", row: 2, weights: wa }] }).logits.subarray(2 * V, 3 * V);
        const z00 = m.forward(src, out, { attention: false }).logits.subarray(2 * V, 3 * V);
        const sm0 = (z) => { const mx = Math.max(...z); const e = Array.from(z, (v) => Math.exp(v - mx)); const t = e.reduce((x, y) => x + y); return e.map((v) => v / t); };
        assert.ok(Math.abs(ex.totalVariation(sm0(z00), sm0(za)) - all.tv) < 1e-5, "every head replaced: the reported TV");
        const s = r.adversarial.reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(s - 1) < 1e-5 && r.adversarial.every((v) => v >= 0), "on the simplex");
        assert.equal(r.adversarial.length, 9); // the source keys: 8 letters and EOS
        assert.ok(r.tv <= epsilon);
        // the reported TV is the output's under the replaced row
        const w = new Float32Array(12);
        w.set(r.adversarial);
        const z0 = m.forward(src, out, { attention: false }).logits.subarray(2 * V, 3 * V);
        const z1 = m.forward(src, out, { attention: false, intervene: [{ op: "replace", kind: "cross", layer: 1, head: 1, row: 2, weights: w }] }).logits.subarray(2 * V, 3 * V);
        const sm = (z) => { const mx = Math.max(...z); const e = Array.from(z, (v) => Math.exp(v - mx)); const t = e.reduce((a, b) => a + b); return e.map((v) => v / t); };
        assert.ok(Math.abs(ex.totalVariation(sm(z0), sm(z1)) - r.tv) < 1e-5);
        assert.ok(Math.abs(ex.jsd(r.adversarial, r.original) - r.jsd) < 1e-9);
        assert.ok(r.jsd > 0.1, `a head of four can move far (${r.jsd})`);
      }
      assert.throws(() => ex.adversarialAttention(m, src, out, { step: 1, kind: "encoder" }), /kind must be "cross" or "decoder" \(got "encoder"\)/);
      assert.throws(() => ex.adversarialAttention(m, src, out, { step: 1, epsilon: 2 }), /epsilon must be a number in \[0, 1\] \(got 2\)/);
    } finally {
      m.free();
    }
  });

  test("runExperiments: a summary, progress, stop and abort", async () => {
    const m = load("reverse-softmax");
    try {
      const seen = [];
      const r = await ex.runExperiments(m, "reverse", { count: 6, onProgress: (d, t) => { seen.push([d, t]); } });
      assert.deepEqual(seen, [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6], [6, 6]]);
      assert.equal(r.examples + r.wrong, 6);
      assert.ok(r.steps >= r.examples * 4);
      for (const m2 of ["gradInput", "integratedGradients", "leaveOneOut", "rollout"]) {
        assert.equal(r.tau[m2].perHead.length, 2);
        assert.ok(r.tau[m2].mean >= -1 && r.tau[m2].mean <= 1);
      }
      assert.ok(r.alignment.best.accuracy > 0.8, "a trained reversal model has an aligned cross head");
      assert.ok(r.erasure.attention.flipRate > 0.9);
      assert.equal(r.erasure.random.fractions.length, r.erasure.random.runs);
      assert.equal(r.adversarial.values.length, r.adversarial.runs);
      assert.ok(r.adversarial.runs === r.examples && r.adversarial.meanJSD > 0);
      const stop = new AbortController();
      const stopped = await ex.runExperiments(m, "reverse", { count: 6, adversarial: false, signal: stop.signal,
        onProgress: (d) => d === 2 && stop.abort() });
      assert.equal(stopped.examples + stopped.wrong, 2);
      assert.equal(stopped.adversarial, null);
      const ac = new AbortController();
      ac.abort();
      const none = await ex.runExperiments(m, "reverse", { count: 6, signal: ac.signal });
      assert.equal(none.examples, 0);
      await assert.rejects(ex.runExperiments(m, "copy"), /runExperiments: task must be "reverse", "sort", "after_marker" or "date" \(got "copy"\)/);
      await assert.rejects(ex.runExperiments(m, "reverse", { count: 0 }), /runExperiments: count must be an integer in \[1, 10000\] \(got 0\)/);
      await assert.rejects(ex.runExperiments(m, "reverse", { bogus: 1 }), /runExperiments: unknown options field "bogus"/);
    } finally {
      m.free();
    }
  });
});
