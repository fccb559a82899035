// viz-heatmap.test.mjs - the helpers behind <sx-heatmap>: remap() (web/widgets/viz/remap.js), the
// post hoc re-mapping of a file's weights or scores, against the library's mappings called row by
// row on the visible keys, in both wasm builds; headOrder() (web/widgets/viz/head-order.js), the
// heads' entropy, zeros and order.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { remap, scoresOf } from "../../web/widgets/viz/remap.js";
import { headOrder } from "../../web/widgets/viz/head-order.js";
import { weightLevels } from "../../web/widgets/viz/heat-levels.js";
import { weights } from "../fixtures/attention-files.mjs";
import { builds, rng } from "./helpers.mjs";

const same = (a, b, what) => {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) assert.fail(`${what}: ${i}: ${a[i]} vs ${b[i]}`);
};

/** The reference: each row alone, over its finite scores, the masked keys 0. */
function rowByRow(z, K, run, opts) {
  const out = new Float32Array(z.length);
  for (let r = 0; r < z.length / K; r++) {
    const idx = [];
    for (let j = 0; j < K; j++) if (z[r * K + j] > -Infinity) idx.push(j);
    if (!idx.length) continue;
    const p = run(Float32Array.from(idx, (j) => z[r * K + j]), { ...opts, n: idx.length });
    idx.forEach((j, k) => { out[r * K + j] = p[k]; });
  }
  return out;
}

describe("remap", () => {
  test("scoresOf: log of weights, an exact zero -Infinity; scores as they are", () => {
    same(scoresOf({ data: new Float32Array([1, 0, 0.5]), values: "weights" }), new Float32Array([0, -Infinity, Math.log(0.5)]), "weights");
    const z = new Float32Array([3, -Infinity]);
    assert.equal(scoresOf({ data: z, values: "scores" }), z);
  });
  test("every mapping, weights and scores with masked keys: the library's row by row, bit for bit (both builds)", async () => {
    for (const { name, sx } of await builds()) {
      const w = Float32Array.from(weights(2 * 3 * 6, 6, { seed: 4, f32: true }));
      const r = rng(3), K = 6;
      const z = Float32Array.from({ length: 36 * K }, (_, i) => (i % 7 === 3 ? -Infinity : r() * 4 - 2));
      z.fill(-Infinity, 0, K); // a row with no visible key
      const opts = { temperature: 0.7, alpha: 1.3, lambda: 0.2, beta: 0.1 };
      for (const m of ["softmax", "sparsemax", "entmax15", "entmax", "fusedmax", "oscarmax"]) {
        const run = (x, o) => sx[m](x, o);
        same(remap({ shape: [2, 3, 6, K], data: w, values: "weights" }, run, opts), rowByRow(scoresOf({ data: w, values: "weights" }), K, run, opts), `${name} ${m} weights`);
        const got = remap({ shape: [2, 3, 6, K], data: z, values: "scores" }, run, opts);
        same(got, rowByRow(z, K, run, opts), `${name} ${m} scores`);
        assert.ok(got.subarray(0, K).every((v) => v === 0), "a row with no visible key stays 0");
      }
    }
  });
  test("softmax of weights taken back by log gives the weights again (to float rounding)", async () => {
    const [{ sx }] = await builds();
    const w = Float32Array.from(weights(20, 8, { seed: 5, f32: true }));
    const p = remap({ shape: [1, 1, 20, 8], data: w, values: "weights" }, (x, o) => sx.softmax(x, o));
    for (let i = 0; i < w.length; i++) assert.ok(Math.abs(p[i] - w[i]) < 1e-6 && (w[i] === 0) === (p[i] === 0), `${i}: ${p[i]} vs ${w[i]}`);
  });
});

describe("weightLevels with a fixed max (the heatmap's absolute scale)", () => {
  test("levels against max 1, not the largest weight; a bad max refused", () => {
    const w = new Float32Array([0.25, 0, 0.5, 1e-9]);
    assert.deepEqual(Array.from(weightLevels(w, { max: 1 }).level), [4, 0, 6, 1]);
    assert.deepEqual(Array.from(weightLevels(w).level), [6, 0, 8, 1], "without max: relative to 0.5");
    assert.throws(() => weightLevels(w, { max: 0 }), /weightLevels: max must be a finite number > 0 \(got 0\)/);
  });
});

describe("headOrder", () => {
  const w = new Float32Array([
    0.5, 0.5, 0, 0, /* L1 H1 */ 1, 0, 0, 0,
    0.25, 0.25, 0.25, 0.25, /* L1 H2 */ 0.25, 0.25, 0.25, 0.25,
    1, 0, 0, 0, /* L2 H1 */ 0, 1, 0, 0,
    0.7, 0.3, 0, 0, /* L2 H2 */ 0.4, 0.6, 0, 0,
  ]);
  const shape = [2, 2, 2, 4];
  test("entropy and zeros per head; the orders", () => {
    const none = headOrder(w, shape);
    assert.deepEqual(none.map((h) => `${h.layer}/${h.head}`), ["0/0", "0/1", "1/0", "1/1"]);
    assert.ok(Math.abs(none[1].entropy - Math.log(4)) < 1e-6 && none[1].zeros === 0);
    assert.ok(none[2].entropy === 0 && none[2].zeros === 0.75);
    assert.deepEqual(headOrder(w, shape, { sort: "entropy" }).map((h) => `${h.layer}/${h.head}`), ["1/0", "0/0", "1/1", "0/1"]);
    assert.deepEqual(headOrder(w, shape, { sort: "sparsity" }).map((h) => `${h.layer}/${h.head}`), ["1/0", "0/0", "1/1", "0/1"]);
    assert.deepEqual(headOrder(w, shape, { layers: [1] }).map((h) => `${h.layer}/${h.head}`), ["1/0", "1/1"]);
    assert.throws(() => headOrder(w, shape, { sort: "size" }), /headOrder: sort must be "none", "entropy" or "sparsity" \(got "size"\)/);
  });
});
