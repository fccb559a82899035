// viz-attention.test.mjs - the helpers behind <sx-attention> and its training worker: heatmap
// tints, cell kinds, labels and layout (web/widgets/viz/heatmap.js), per-head sparsity statistics
// (web/widgets/viz/attention-stats.js), the loss curve (web/widgets/viz/loss-curve.js), the training schedule,
// teacher-forced exact accuracy and the Trainer (web/widgets/runtime/trainer.js), and inspect() (web/widgets/runtime/inspect.js)
// on a shipped checkpoint, the last two against both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { heatLevel, cellKind, tokenLabel, heatmapLayout, equalRuns } from "../../web/widgets/viz/heatmap.js";
import { headStats } from "../../web/widgets/viz/attention-stats.js";
import { lossCurve } from "../../web/widgets/viz/loss-curve.js";
import { KINDS, SCHEDULE, kindFits, modelConfig, learningRate, decoderInputs, exactRows, exactAccuracy, Evaluation, Trainer } from "../../web/widgets/runtime/trainer.js";
import { inspect, EXAMPLES } from "../../web/widgets/runtime/inspect.js";
import { builds } from "./helpers.mjs";

const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

describe("heatmap helpers", () => {
  test("heatLevel: exact zero (and non-numbers) untinted, the smallest weight at the floor, 1 at full, monotone", () => {
    assert.equal(heatLevel(0), 0);
    for (const v of [-0, -1e-3, NaN, undefined, null]) assert.equal(heatLevel(v), 0);
    assert.ok(heatLevel(1e-30) >= 0.12 && heatLevel(1e-30) < 0.1201, "a tiny weight still gets the floor tint");
    assert.equal(heatLevel(1), 1);
    assert.equal(heatLevel(2), 1);
    let prev = 0;
    for (let v = 0.001; v <= 1; v += 0.013) {
      const t = heatLevel(v);
      assert.ok(t > prev, `heatLevel increases (at ${v})`);
      prev = t;
    }
    close(heatLevel(0.25, { floor: 0, gamma: 0.5 }), 0.5);
    close(heatLevel(0.25, { floor: 0.2, gamma: 1 }), 0.4);
  });

  test("equalRuns: maximal blocks of equal nonzero weights; zeros end runs; a fusedmax row's runs are its fused groups", async () => {
    assert.deepEqual(equalRuns([0.25, 0.25, 0.5, 0, 0, 0.5], 6), [[0, 2], [2, 3], [5, 6]]);
    assert.deepEqual(equalRuns([0, 0, 0], 3), []);
    assert.deepEqual(equalRuns([0.1, 0.2, 0.3, 0.4], 4).length, 4, "distinct weights: one run each");
    assert.deepEqual(equalRuns([0.5, 0.5, 0, 0.5, 0.5], 5), [[0, 2], [3, 5]], "a zero splits equal weights");
    assert.deepEqual(equalRuns([0.3, 0.3, 0.4], 2), [[0, 2]], "only the first n entries");
    // fusedmax's runs are bitwise equal: its groups from sx_prox_tv are the runs here
    const x = new Float32Array([0.1, 0.9, 0.95, 0.92, 0.2, -1, 1.5, 1.52]);
    for (const { name, sx } of await builds()) {
      const p = sx.fusedmax(x, { lambda: 0.3 });
      const runs = sx.proxTVRuns(x, { lambda: 0.3 });
      const groups = [];
      for (let j = 0; j < x.length; j++) if (p[j] > 0 && (j === 0 || runs[j] !== runs[j - 1] || p[j - 1] === 0)) groups.push(j);
      assert.deepEqual(equalRuns(p, x.length).map((r) => r[0]), groups, `${name}: runs start where prox_TV's groups do`);
      assert.ok(equalRuns(p, x.length).some(([a, b]) => b - a >= 2), `${name}: lambda 0.3 fuses some neighbours`);
    }
  });

  test("cellKind: the decoder's future is masked, a visible 0 is a zero, anything else a weight", () => {
    assert.equal(cellKind("decoder", 1, 2, 0), "masked");
    assert.equal(cellKind("decoder", 2, 2, 0), "zero");
    assert.equal(cellKind("decoder", 2, 1, 0.3), "weight");
    assert.equal(cellKind("encoder", 0, 5, 0), "zero");
    assert.equal(cellKind("cross", 0, 5, 1e-9), "weight");
  });

  test("tokenLabel: BOS, EOS, space, padding, characters", () => {
    assert.deepEqual(["<bos>", "<eos>", " ", "<pad>", "a", "|", "7"].map(tokenLabel), ["^", "$", "␣", "", "a", "|", "7"]);
    assert.equal(tokenLabel(undefined), "");
  });

  test("heatmapLayout: cells fill the width within the clamps, panels never overlap, hit() inverts cellXY()", () => {
    const lay = heatmapLayout({ nq: 9, nk: 9, rows: 2, cols: 4, width: 720, top: 30, labelW: 16, labelH: 15, captionH: 44, gap: 14 });
    assert.equal(lay.cell, Math.floor((720 - 4 * 16 - 3 * 14) / 36));
    assert.ok(lay.width <= 720 && lay.width > 700 - 36, `uses the width (${lay.width})`);
    assert.equal(lay.height, 30 + 2 * lay.panelH + 14);
    for (let r = 0; r < 2; r++) {
      for (let c = 0; c < 4; c++) {
        for (const [i, j] of [[0, 0], [8, 8], [3, 5]]) {
          const [x, y] = lay.cellXY(r, c, i, j);
          assert.deepEqual(lay.hit(x + lay.cell / 2, y + lay.cell / 2), { r, c, i, j });
        }
        if (c < 3) {
          const [xr] = lay.cellXY(r, c, 0, 8), [xn] = lay.cellXY(r, c + 1, 0, 0);
          assert.ok(xr + lay.cell <= xn - 16, "a panel's cells end before the next panel's labels");
        }
      }
    }
    // the label strip, the caption and the gaps are not cells
    const [x0, y0] = lay.origin(0, 0);
    assert.equal(lay.hit(x0 - 3, y0 + 2), null);
    assert.equal(lay.hit(x0 + 2, y0 + 9 * lay.cell + 5), null);
    assert.equal(lay.hit(-5, y0), null);
    // clamps: few keys -> maxCell, many -> minCell; minPanel widens a narrow panel
    assert.equal(heatmapLayout({ nq: 3, nk: 3, cols: 4, width: 720, maxCell: 22 }).cell, 22);
    assert.equal(heatmapLayout({ nq: 200, nk: 200, cols: 4, width: 720, minCell: 5 }).cell, 5);
    const wide = heatmapLayout({ nq: 3, nk: 3, cols: 4, width: 720, maxCell: 22, labelW: 16, minPanel: 152 });
    assert.equal(wide.panelW, 152);
    assert.throws(() => heatmapLayout({ nq: 0, nk: 3 }), { name: "RangeError", message: "heatmapLayout: nq must be a positive integer (got 0)" });
  });
});

describe("attention statistics", () => {
  test("one-hot rows: support 1, entropy 0; uniform rows: support k, entropy ln k; zeros among the visible weights", () => {
    // 2 heads, 3 queries, 4 keys: head 0 one-hot, head 1 uniform
    const data = new Float32Array(2 * 3 * 4);
    for (let i = 0; i < 3; i++) data[i * 4 + i] = 1;
    data.fill(0.25, 12);
    const [h0, h1] = headStats(data, { heads: 2, nq: 3, nk: 4, kind: "cross" });
    assert.deepEqual(h0, { support: 1, zeros: 0.75, entropy: 0, visible: 12 });
    assert.equal(h1.support, 4);
    assert.equal(h1.zeros, 0);
    close(h1.entropy, Math.log(4), 1e-6);
  });

  test("the decoder's causal mask: future weights are neither zeros nor support", () => {
    // 1 head, 3 x 3, row i uniform over keys 0..i (what a causal softmax of equal scores gives)
    const data = new Float32Array([1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3]);
    const [h] = headStats(data, { heads: 1, nq: 3, nk: 3, kind: "decoder" });
    assert.equal(h.visible, 6);
    assert.equal(h.zeros, 0);
    close(h.support, 2);
    close(h.entropy, (0 + Math.log(2) + Math.log(3)) / 3, 1e-6);
    // the same numbers read as an encoder map: the upper triangle is now 3 exact zeros of 9
    const [e] = headStats(data, { heads: 1, nq: 3, nk: 3, kind: "encoder" });
    assert.equal(e.visible, 9);
    close(e.zeros, 3 / 9);
  });

  test("bad shapes are RangeErrors naming the argument", () => {
    assert.throws(() => headStats(new Float32Array(5), { heads: 1, nq: 2, nk: 2 }),
      { name: "RangeError", message: "headStats: data must hold heads * nq * nk = 4 weights (got 5)" });
    assert.throws(() => headStats(new Float32Array(4), { heads: 1, nq: 2.5, nk: 2 }), /headStats: nq must be a positive integer/);
  });
});

describe("loss curve", () => {
  test("one point per finite positive loss, on whole decades, the running mean bias-corrected", () => {
    const losses = [2.5, 1.2, NaN, 0.6, 0.3, 0.04];
    const c = lossCurve(losses, { maxStep: 10, x0: 0, x1: 100, y0: 0, y1: 50 });
    assert.equal((c.raw.match(/[ML]/g) || []).length, 5);
    assert.deepEqual(c.domain, [0.01, 10]);
    assert.deepEqual(c.yTicks.map((t) => t.value), [0.01, 0.1, 1, 10]);
    close(c.y(10), 0); close(c.y(0.01), 50); close(c.x(5), 50);
    assert.ok(c.raw.startsWith(`M${c.x(1)} `), "the first loss sits at step 1");
    // the smoothed curve of a constant loss is that constant (bias correction)
    const flat = lossCurve([0.5, 0.5, 0.5], { x0: 0, x1: 30, y0: 0, y1: 10 });
    const ys = flat.smooth.split(/[ML]/).filter(Boolean).map((p) => Number(p.split(" ")[1]));
    for (const y of ys) close(y, Math.round(flat.y(0.5) * 10) / 10, 1e-9);
    // no points: an empty path and a default decade
    const none = lossCurve([]);
    assert.equal(none.raw, "");
    assert.deepEqual(none.domain, [0.1, 1]);
  });
});

describe("training schedule", () => {
  test("learning rate: linear warm-up, cosine from lr to lrMin over decaySteps, flat after", () => {
    const s = SCHEDULE;
    close(learningRate(0), s.lr / s.warmup, 1e-12);
    assert.ok(learningRate(0) < learningRate(s.warmup - 1), "warm-up rises");
    close(learningRate(s.warmup), s.lrMin + 0.5 * (s.lr - s.lrMin) * (1 + Math.cos(Math.PI * s.warmup / s.decaySteps)));
    close(learningRate(s.decaySteps), s.lrMin);
    close(learningRate(s.decaySteps + 400), s.lrMin);
    close(learningRate(s.decaySteps / 2), (s.lr + s.lrMin) / 2);
  });

  test("modelConfig: the shipped size for every kind; an unknown kind is a RangeError", () => {
    for (const k of KINDS) {
      const c = modelConfig("date", k);
      assert.equal(c.dModel, 32); assert.equal(c.heads, 4); assert.equal(c.layers, 2); assert.equal(c.dFF, 64);
    }
    assert.equal(modelConfig("sort", "softmax").attention, "softmax");
    assert.equal(modelConfig("sort", "alpha-span").span, true);
    assert.equal(modelConfig("date", "fusedmax").attention, "fusedmax");
    assert.equal(modelConfig("date", "fusedmax").lambda, 0.5);
    assert.equal(modelConfig("after_marker", "oscarmax").beta, 0.05);
    assert.deepEqual(["reverse", "sort", "after_marker", "date"].map((t) => kindFits(t, "fusedmax")), [false, false, true, true]);
    assert.ok(kindFits("reverse", "entmax15"));
    assert.throws(() => modelConfig("sort", "sparse"), { name: "RangeError", message: /^modelConfig: kind must be one of softmax, entmax15, alpha, alpha-span, fusedmax, oscarmax \(got "sparse"\)$/ });
  });

  test("decoderInputs drops each row's last token; exactRows counts rows right up to EOS", () => {
    const tgt = new Int32Array([1, 5, 6, 2, 0, 1, 7, 2, 0, 0]); // 2 rows of 5: BOS 5 6 EOS PAD, BOS 7 EOS PAD PAD
    assert.deepEqual(Array.from(decoderInputs(tgt, 2, 5)), [1, 5, 6, 2, 1, 7, 2, 0]);
    const V = 8;
    const logits = new Float32Array(2 * 4 * V);
    const predict = (r, t, v) => { logits[(r * 4 + t) * V + v] = 5; };
    // row 0 right (5 6 EOS; the position after EOS is ignored), row 1 wrong at its EOS
    predict(0, 0, 5); predict(0, 1, 6); predict(0, 2, 2); predict(0, 3, 7);
    predict(1, 0, 7); predict(1, 1, 3);
    assert.equal(exactRows(logits, V, tgt, 2, 5), 1);
    predict(1, 1, 2); logits[(1 * 4 + 1) * V + 3] = 0;
    assert.equal(exactRows(logits, V, tgt, 2, 5), 2);
  });
});

const all = await builds();
const reverseAlpha = await readFile(new URL("../../web/models/reverse-alpha.sxm", import.meta.url));

for (const { name, sx } of all) {
  const { Model, tasks } = sx;

  describe(`inspect and Trainer [${name} build]`, () => {
    test("inspect: the shipped reverse model answers \"abcd\" -> \"dcba\"; maps cropped to the tokens, rows on the simplex", () => {
      const model = Model.load(reverseAlpha);
      try {
        const v = inspect(model, tasks, "reverse", "abcd");
        assert.equal(v.output, "dcba");
        assert.equal(v.answer, "dcba");
        assert.equal(v.correct, true);
        assert.deepEqual(v.srcLabels, ["a", "b", "c", "d", "<eos>"]);
        assert.deepEqual(v.decLabels, ["<bos>", "d", "c", "b", "a"]);
        assert.deepEqual(v.outLabels, ["d", "c", "b", "a", "<eos>"]);
        assert.equal(v.maps.length, 6);
        for (const m of v.maps) {
          assert.deepEqual([m.nq, m.nk], [5, 5], `${m.kind} ${m.layer}`);
          assert.equal(m.data.length, m.heads * 25);
          assert.equal(m.alpha.length, 4);
          for (let r = 0; r < m.heads * 5; r++) {
            let sum = 0;
            for (let j = 0; j < 5; j++) sum += m.data[r * 5 + j];
            close(sum, 1, 1e-5);
            if (m.kind === "decoder") for (let j = (r % 5) + 1; j < 5; j++) assert.equal(m.data[r * 5 + j], 0, "causal");
          }
        }
        // the learned alpha of the second cross layer makes exact zeros (README: 28% over the test set)
        const cross = v.maps.find((m) => m.kind === "cross" && m.layer === 1);
        assert.ok(cross.data.some((p) => p === 0), "exact zeros in the layer-2 cross-attention");
        // every task's example input is valid, and a bad character is tasks.encode's RangeError
        for (const t of Object.keys(EXAMPLES)) assert.doesNotThrow(() => tasks.encode(t, EXAMPLES[t]));
        assert.throws(() => inspect(model, tasks, "reverse", "abz"), { name: "RangeError", message: /text\[2\] "z" is not in the reverse alphabet/ });
        // a text with no reference answer still runs, with a note
        const d = inspect(model, tasks, "reverse", "");
        assert.equal(typeof d.output, "string");
      } finally {
        model.free();
      }
    });

    test("teacher-forced exact accuracy equals greedy decoding's, and the shipped model is >= 98% on 500 held-out", () => {
      const model = Model.load(reverseAlpha);
      try {
        const acc = exactAccuracy(model, tasks.generate("reverse", { seed: SCHEDULE.heldoutSeed, count: 500, split: "heldout" }));
        assert.ok(acc >= 0.98, `held-out exact ${acc}`);
        const held = tasks.generate("reverse", { seed: 11, count: 200, split: "heldout" });
        const W = held.shape[1];
        const out = model.generate(held.src, { count: 200 });
        const greedy = out.filter((r, i) => tasks.decode("reverse", r) === tasks.decode("reverse", held.tgt.subarray(i * W, (i + 1) * W))).length;
        assert.equal(exactAccuracy(model, held, 64) * 200, greedy);
        // the sliced form: one chunk per zero-budget slice, the last one short, the same count
        const ev = new Evaluation(model, held, 64);
        const rows = [];
        while (!ev.run(0)) { rows.push(ev.rows); assert.equal(ev.accuracy, null); }
        rows.push(ev.rows);
        assert.deepEqual(rows, [64, 128, 192, 200]);
        assert.equal(ev.right, greedy);
      } finally {
        model.free();
      }
    });

    test("Trainer: steps in time slices, evaluates every evalEvery steps (sliced too), stops at maxSteps; the loss falls", () => {
      const t = new Trainer({ Model, tasks }, { task: "date", kind: "softmax", maxSteps: 60, evalEvery: 30, heldout: 64 });
      try {
        const losses = [], evals = [];
        let slices = 0, evalSlices = 0;
        while (!t.done) {
          const before = t.evaluating;
          const r = t.run(0); // a zero budget: exactly one unit of work per slice
          const after = t.evaluating;
          if (before) {
            // one batch (32) of the 64 held-out rows, and no step while it is pending
            assert.equal(r.losses.length, 0, "no step during an evaluation");
            assert.equal(after ? after.rows : 64, before.rows + 32);
            evalSlices++;
          } else assert.equal(r.losses.length, 1, "one step per zero-budget slice");
          losses.push(...r.losses);
          evals.push(...r.evals);
          slices++;
        }
        assert.equal(t.step, 60);
        assert.equal(losses.length, 60);
        assert.equal(evalSlices, 4, "two evaluations of two batches each");
        assert.equal(slices, 64);
        assert.equal(t.evaluating, null);
        // sliced or not, the same score: the evaluation of the final parameters in one go
        assert.equal(evals.at(-1).accuracy, exactAccuracy(t.model, t.held, 32));
        assert.deepEqual(evals.map((e) => e.step), [30, 60]);
        for (const e of evals) assert.ok(e.accuracy >= 0 && e.accuracy <= 1 && e.confirm === null, "below target: no confirmation");
        const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
        assert.ok(mean(losses.slice(-10)) < 0.8 * mean(losses.slice(0, 10)), `loss falls (${mean(losses.slice(0, 10))} -> ${mean(losses.slice(-10))})`);
        assert.ok(t.ms > 0);
        assert.equal(t.model.steps, 60);
        assert.throws(() => new Trainer({ Model, tasks }, { task: "date", kind: "softmax", steps: 3 }), { name: "RangeError", message: /^Trainer: unknown option "steps"/ });
        assert.throws(() => new Trainer({ Model, tasks }, { task: "date", kind: "softmax", maxSteps: 0 }), { name: "RangeError", message: "Trainer: maxSteps must be an integer >= 1 (got 0)" });
        assert.throws(() => new Trainer({ Model, tasks }, { task: "date", kind: "softmax", target: 1.5 }), { name: "RangeError", message: "Trainer: target must be in (0, 1] (got 1.5)" });
        assert.throws(() => new Trainer({ Model, tasks }, { task: "date", kind: "softmax", lr: "fast" }), { name: "RangeError", message: 'Trainer: lr must be a positive number (got "fast")' });
        assert.throws(() => new Trainer({ Model, tasks }, { task: "date", kind: "sparse" }), { name: "RangeError", message: /^modelConfig: kind must be one of/ });
      } finally {
        t.free();
      }
    });

    test("Trainer: fusedmax and oscarmax models train in the tab (their layers, lambda and beta; the loss falls)", () => {
      for (const [kind, field, value] of [["fusedmax", "lambda", 0.5], ["oscarmax", "beta", 0.05]]) {
        const t = new Trainer({ Model, tasks }, { task: "date", kind, maxSteps: 40, evalEvery: 40, heldout: 32 });
        try {
          const losses = [];
          while (!t.done) losses.push(...t.run(50).losses);
          assert.deepEqual([...t.model.config.attention], [kind, kind]);
          assert.equal(t.model.config[field], value);
          const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
          assert.ok(losses.every(Number.isFinite), `${kind}: finite losses`);
          assert.ok(mean(losses.slice(-10)) < 0.8 * mean(losses.slice(0, 10)), `${kind}: loss falls (${mean(losses.slice(0, 10))} -> ${mean(losses.slice(-10))})`);
        } finally {
          t.free();
        }
      }
    });

    test("Trainer: the validation score at target triggers the confirmation slice; both at target stop the run", { skip: name !== "simd" && "one build is enough (a few hundred steps)" }, () => {
      const t = new Trainer({ Model, tasks }, { task: "date", kind: "softmax", target: 0.5, evalEvery: 25, heldout: 100, confirm: 300, maxSteps: 600 });
      try {
        const evals = [];
        while (!t.done) evals.push(...t.run(50).evals);
        assert.ok(t.reachedAt, `reached 50% by step ${t.step}`);
        assert.ok(t.step < 600 && t.reachedAt.step === t.step, "stops at the evaluation that reached the target");
        assert.ok(t.reachedAt.accuracy >= 0.5 && t.reachedAt.confirm >= 0.5);
        assert.equal(t.confirmSet.shape[0], 300);
        for (const e of evals) assert.equal(e.confirm === null, e.accuracy < 0.5, `step ${e.step}: confirmation only at target`);
        assert.deepEqual(evals.at(-1), { step: t.step, accuracy: t.reachedAt.accuracy, confirm: t.reachedAt.confirm });
      } finally {
        t.free();
      }
    });
  });
}
