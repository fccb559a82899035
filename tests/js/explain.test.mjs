// explain.test.mjs - Model.explain, Model.attentionGrad and the `intervene` option of forward and
// generate, on shipped models (softmax, 1.5-entmax, learned alpha): integrated gradients'
// completeness (log p and logit), leave-one-out against masking by hand, rollout rows, the
// identities of interventions (a row replaced by itself, a zero-weight key erased, "mask" and
// "erase" agreeing for softmax), the attention-row gradient against differences of replaced
// rows, edits never outliving a call (also a failed one), and the argument errors. The C core
// checks the gradients against finite differences (tests/c/test_explain.c). On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { builds, DIST } from "./helpers.mjs";

const MODELS = ["reverse-softmax", "reverse-entmax15", "reverse-alpha"];
const bytes = (name) => readFileSync(new URL(`models/${name}.sxm`, DIST));

function maxDiff(a, b) {
  let w = 0;
  for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i] - b[i]));
  return w;
}

const logSoftmaxAt = (z, t) => {
  let mx = -Infinity, s = 0;
  for (const v of z) mx = Math.max(mx, v);
  for (const v of z) s += Math.exp(v - mx);
  return z[t] - mx - Math.log(s);
};

for (const { name: build, sx } of await builds()) {
  const { Model, tasks } = sx;
  describe(`explain (${build})`, () => {
    for (const name of MODELS) {
      test(`${name}: attributions`, () => {
        const m = Model.load(bytes(name));
        try {
          const src = tasks.encode("reverse", "hgfab");
          const out = m.generate(src)[0];
          assert.equal(tasks.decode("reverse", out), "bafgh");
          for (const objective of ["logProb", "logit"]) {
            const r = m.explain(src, out, { step: 2, objective, steps: 256 });
            assert.equal(r.target, out[3]);
            assert.deepEqual(Object.keys(r.importance).sort(),
              ["gradInput", "gradNorm", "integratedGradients", "leaveOneOut", "rollout"]);
            for (const v of Object.values(r.importance)) {
              assert.equal(v.length, src.length);
              for (let i = 6; i < src.length; i++) assert.equal(v[i], 0, "PAD positions get 0");
            }
            // completeness: the attributions add up to f(input) - f(baseline)
            const sum = r.importance.integratedGradients.reduce((a, b) => a + b, 0);
            const gap = r.value - r.baselineValue;
            assert.ok(Math.abs(sum - gap) <= 0.02 * (1 + Math.abs(gap)), `${objective}: sum ${sum} vs ${gap}`);
            // value is f of the example's own forward pass
            const fw = m.forward(src, out, { attention: false });
            const z = fw.logits.subarray(2 * m.config.vocab, 3 * m.config.vocab);
            const f = objective === "logit" ? z[r.target] : logSoftmaxAt(z, r.target);
            assert.ok(Math.abs(r.value - f) < 1e-5);
            // leave-one-out = the drop when the key is masked by hand
            for (let i = 0; i < 6; i++) {
              const keys = [i];
              const masked = m.forward(src, out, { attention: false, intervene: [
                { op: "mask", kind: "encoder", keys }, { op: "mask", kind: "cross", keys }] });
              const zm = masked.logits.subarray(2 * m.config.vocab, 3 * m.config.vocab);
              const fm = objective === "logit" ? zm[r.target] : logSoftmaxAt(zm, r.target);
              assert.ok(Math.abs(r.importance.leaveOneOut[i] - (f - fm)) < 1e-4, `token ${i}`);
            }
            // rollout: a share of the source, in [0, 1]
            const rs = r.importance.rollout.reduce((a, b) => a + b, 0);
            assert.ok(rs > 0 && rs <= 1 + 1e-6);
          }
          // the answer's alignment is known: step t copies source letter 4 - t; among the letters
          // (EOS matters too: these models find positions from it), leave-one-out points there
          for (let step = 0; step < 5; step++) {
            const r = m.explain(src, out, { step, methods: ["leaveOneOut"], objective: "logit" });
            const loo = Array.from(r.importance.leaveOneOut.subarray(0, 5));
            assert.equal(loo.indexOf(Math.max(...loo)), 4 - step, `step ${step}: ${loo}`);
          }
        } finally {
          m.free();
        }
      });

      test(`${name}: interventions`, () => {
        const m = Model.load(bytes(name));
        try {
          const src = tasks.encode("reverse", "cadbe");
          const out = m.generate(src)[0];
          const base = m.forward(src, out);
          const { layers, heads } = m.config;
          const maps = Object.fromEntries(base.attention.map((a) => [`${a.kind}${a.layer}`, a]));
          // every row of every head replaced by itself: the logits do not move
          for (const kind of ["encoder", "decoder", "cross"]) {
            const a = maps[`${kind}1`];
            const [, , Tq, Tk] = a.shape;
            const edits = [];
            for (let h = 0; h < heads; h++) {
              for (const row of [0, 3]) {
                edits.push({ op: "replace", kind, layer: 1, head: h, row,
                  weights: a.data.slice((h * Tq + row) * Tk, (h * Tq + row + 1) * Tk) });
              }
            }
            const r = m.forward(src, out, { intervene: edits });
            assert.equal(maxDiff(r.logits, base.logits), 0, `${kind}: replaced by itself`);
          }
          // erasing a key of zero weight changes (almost) nothing; erasing the top key changes the row
          const [, , Tq, Tk] = maps.cross0.shape;
          let zero = null;
          for (let l = 0; l < layers && !zero; l++) {
            const c = maps[`cross${l}`];
            for (let h = 0; h < heads && !zero; h++) {
              for (let row = 0; row < Tq && !zero; row++) {
                for (let j = 0; j < 6 && !zero; j++) if (c.data[(h * Tq + row) * Tk + j] === 0) zero = { layer: l, head: h, row, keys: [j] };
              }
            }
          }
          if (name !== "reverse-softmax") {
            assert.ok(zero, "a sparse model has zero weights");
            const r = m.forward(src, out, { intervene: [{ op: "erase", kind: "cross", ...zero }] });
            assert.ok(maxDiff(r.logits, base.logits) < 1e-5);
          }
          // softmax: erase (after the mapping) = mask (before it)
          if (name === "reverse-softmax") {
            const e = m.forward(src, out, { intervene: [{ op: "erase", kind: "cross", keys: [1, 3] }] });
            const k = m.forward(src, out, { intervene: [{ op: "mask", kind: "cross", keys: [1, 3] }] });
            assert.ok(maxDiff(e.logits, k.logits) < 1e-4);
          }
          // ablating every cross head breaks the copy; the edits end with the call
          const ab = m.generate(src, { intervene: [{ op: "ablate", kind: "cross" }] })[0];
          assert.notDeepEqual(Array.from(ab), Array.from(out));
          const ablated = m.forward(src, out, { intervene: [{ op: "ablate", kind: "cross", layer: layers - 1, head: 0 }] });
          const a1 = ablated.attention.find((a) => a.kind === "cross" && a.layer === layers - 1);
          assert.ok(a1.data.subarray(0, Tq * Tk).every((v) => v === 0));
          assert.deepEqual(Array.from(m.generate(src)[0]), Array.from(out));
          assert.equal(maxDiff(m.forward(src, out).logits, base.logits), 0);
          // a failed call leaves no edit behind either
          assert.throws(() => m.forward(src, out, { intervene: [{ op: "ablate", kind: "cross" }, { op: "ablate", kind: "nope" }] }), RangeError);
          assert.throws(() => m.explain(src, out, { step: 30, intervene: [{ op: "ablate", kind: "cross" }] }), RangeError);
          assert.equal(maxDiff(m.forward(src, out).logits, base.logits), 0);
        } finally {
          m.free();
        }
      });

      test(`${name}: attentionGrad against differences`, () => {
        const m = Model.load(bytes(name));
        try {
          const src = tasks.encode("reverse", "edcab");
          const out = m.generate(src)[0];
          const opts = { kind: "cross", layer: 1, head: 2, row: 3, step: 3 };
          const target = out[4];
          const base = m.forward(src, out).attention.find((a) => a.kind === "cross" && a.layer === 1);
          const [, , Tq, Tk] = base.shape;
          const row = base.data.slice((2 * Tq + 3) * Tk, (2 * Tq + 4) * Tk);
          // the logit objective through dlogits: no saturation, a well-scaled check
          const dl = new Float32Array(m.config.vocab);
          dl[target] = 1;
          const g = m.attentionGrad(src, out, { ...opts, dlogits: dl });
          assert.equal(g.length, Tk);
          const f = (w) => m.forward(src, out, { attention: false, intervene: [
            { op: "replace", kind: "cross", layer: 1, head: 2, row: 3, weights: w }] }).logits[3 * m.config.vocab + target];
          // one-sided second-order differences (weights stay >= 0): (-3 f(w) + 4 f(w + h) - f(w + 2h)) / 2h
          const h = 1e-2;
          const diff = (w, j) => {
            const w1 = Float32Array.from(w), w2 = Float32Array.from(w);
            w1[j] += h;
            w2[j] += 2 * h;
            return (-3 * f(w) + 4 * f(w1) - f(w2)) / (2 * h);
          };
          for (let j = 0; j < 6; j++) {
            const d = diff(row, j);
            assert.ok(Math.abs(g[j] - d) <= 2e-3 + 1e-2 * Math.abs(d), `key ${j}: ${g[j]} vs ${d}`);
          }
          // at a replaced row, the gradient at the replacement
          const w = new Float32Array(Tk);
          w[0] = 1;
          const gr = m.attentionGrad(src, out, { ...opts, dlogits: dl, intervene: [
            { op: "replace", kind: "cross", layer: 1, head: 2, row: 3, weights: w }] });
          for (const j of [0, 1, 4]) {
            const d = diff(w, j);
            assert.ok(Math.abs(gr[j] - d) <= 2e-3 + 1e-2 * Math.abs(d), `replaced row, key ${j}: ${gr[j]} vs ${d}`);
          }
          // log p by default
          const gl = m.attentionGrad(src, out, opts);
          assert.ok(gl.every(Number.isFinite));
          // every layer and head at once: (layers, heads, keys)
          const all = m.attentionGrad(src, out, { kind: "cross", row: 3, step: 3, dlogits: dl });
          const { layers, heads } = m.config;
          assert.equal(all.length, layers * heads * Tk);
          assert.deepEqual(all.subarray((1 * heads + 2) * Tk, (1 * heads + 3) * Tk), g);
        } finally {
          m.free();
        }
      });
    }

    test("argument errors name the function, the argument and the value", () => {
      const m = Model.load(bytes("reverse-softmax"));
      try {
        const src = tasks.encode("reverse", "abc");
        const tgt = m.generate(src)[0];
        const bad = [
          [() => m.explain(src, tgt), TypeError, /model\.explain: options\.step is required/],
          [() => m.explain(src, tgt, { step: 12 }), RangeError, /model\.explain: step must be an integer in \[0, 11\] \(got 12\)/],
          [() => m.explain(src, tgt, { step: 11 }), RangeError, /options\.target is required when step \(11\)/],
          [() => m.explain(src, tgt, { step: 1, target: 13 }), RangeError, /target must be an integer in \[0, 12\] \(got 13\)/],
          [() => m.explain(src, tgt, { step: 1, methods: ["attention"] }), RangeError, /methods must name "gradInput"/],
          [() => m.explain(src, tgt, { step: 1, methods: [] }), TypeError, /methods must be a non-empty array/],
          [() => m.explain(src, tgt, { step: 1, steps: 0 }), RangeError, /steps must be an integer in \[1, 4096\] \(got 0\)/],
          [() => m.explain(src, tgt, { step: 1, objective: "prob" }), RangeError, /objective must be "logProb" or "logit" \(got "prob"\)/],
          [() => m.explain(src, tgt, { step: 1, nope: 1 }), RangeError, /unknown options field "nope"/],
          [() => m.explain([src, src], tgt, { step: 1 }), RangeError, /src and tgt must be one row each|at most 1 rows/],
          [() => m.explain(src, [1, 99], { step: 0 }), RangeError, /tgt\[1\] must be a token id in \[0, 13\) \(got 99\)/],
          [() => m.forward(src, tgt, { intervene: {} }), TypeError, /model\.forward: intervene must be an array of edits/],
          [() => m.forward(src, tgt, { intervene: [{ op: "swap", kind: "cross" }] }), RangeError, /intervene\[0\]\.op must be "ablate", "replace", "erase" or "mask" \(got "swap"\)/],
          [() => m.forward(src, tgt, { intervene: [{ op: "ablate", kind: "cross", layer: 2 }] }), RangeError, /intervene\[0\]\.layer must be an integer in \[0, 1\] \(got 2\)/],
          [() => m.forward(src, tgt, { intervene: [{ op: "ablate", kind: "cross", row: 1 }] }), RangeError, /unknown intervene\[0\] field "row"/],
          [() => m.forward(src, tgt, { intervene: [{ op: "replace", kind: "cross", head: 0, row: 1 }] }), TypeError, /intervene\[0\]\.weights is required/],
          [() => m.forward(src, tgt, { intervene: [{ op: "replace", kind: "cross", weights: [0.5, -1] }] }), RangeError, /intervene\[0\]\.weights\[1\] must be finite and >= 0 \(got -1\)/],
          [() => m.forward(src, tgt, { intervene: [{ op: "replace", kind: "cross", weights: [0.5, NaN] }] }), RangeError, /weights\[1\] must be finite/],
          [() => m.forward(src, tgt, { intervene: [{ op: "erase", kind: "cross", keys: [] }] }), TypeError, /intervene\[0\]\.keys must be a non-empty array/],
          [() => m.forward(src, tgt, { intervene: [{ op: "mask", kind: "cross", keys: [12] }] }), RangeError, /intervene\[0\]\.keys\[0\] must be an integer in \[0, 11\] \(got 12\)/],
          [() => m.forward(src, tgt, { intervene: Array(40).fill({ op: "erase", kind: "cross", keys: [1] }) }), RangeError, /more than 64 row edits/],
          [() => m.attentionGrad(src, tgt), TypeError, /model\.attentionGrad: options must be an object/],
          [() => m.attentionGrad(src, tgt, { kind: "cross", layer: 0, head: 0, row: 12, step: 1 }), RangeError, /row must be an integer in \[0, 11\] \(got 12\)/],
          [() => m.attentionGrad(src, tgt, { kind: "cross", layer: 0, head: 0, row: 1, step: 1, dlogits: [1] }), RangeError, /dlogits must have vocab \(13\) entries \(got 1\)/],
          [() => m.attentionGrad(src, tgt, { kind: "cross", layer: 0, head: 0, row: 1, step: 1, target: 3, dlogits: new Float32Array(13) }), TypeError, /give target or dlogits, not both/],
        ];
        for (const [f, E, re] of bad) assert.throws(f, (e) => e instanceof E && re.test(e.message), String(f));
        // after all that, a plain call is as before
        assert.equal(tasks.decode("reverse", m.generate(src)[0]), "cba");
        m.free();
        assert.throws(() => m.explain(src, tgt, { step: 1 }), /model\.explain: this model has been freed/);
      } finally {
        m.free();
      }
    });
  });
}
