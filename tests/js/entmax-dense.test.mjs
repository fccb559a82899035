// entmax-dense.test.mjs - alpha-entmax on flat rows (issue 26), on both wasm builds: in the full
// SIMD core such rows take the dense path (entmax.c dense_row: tau from the row's moments, one
// float power pass checked by an exact Newton step, p moved by a binomial series), the scalar core
// the general search. Near-uniform rows, an offset plus tiny noise, a tenth masked, tails past a
// multiple of 4, single rows and batches, against the float64 reference within 1e-6 (the native
// tests' tolerance, tests/c/test_entmax.c test_flat), and the two builds within 1e-6 of each other.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { builds, assertClose, assertOnSimplex, rng, byRow, refEntmax } from "./helpers.mjs";

const ALPHAS = [1.02, 1.1, 1.3, 1.7, 1.95];
const NS = [16, 33, 130];
const SPREADS = [1e-4, 3e-3, 0.03, 0.3];

/** Rows of one family: variant 0 an offset of 0.7 plus noise, 1 noise with a tenth masked, 2 one row. */
function flatRows(n, spread, variant, seed) {
  const r = rng(seed), rows = variant === 2 ? 1 : 4;
  return { rows, x: Float32Array.from({ length: rows * n }, () =>
    (variant === 1 && r() < 0.1 ? -Infinity : (variant === 0 ? 0.7 : 0) + spread * r.normal())) };
}

describe("alpha-entmax on flat rows (the full SIMD core's dense path)", async () => {
  const all = await builds();

  test("both builds match the float64 reference within 1e-6 and each other within 1e-6", () => {
    let seed = 1, worst = 0;
    for (const alpha of ALPHAS)
      for (const n of NS)
        for (const spread of SPREADS)
          for (let v = 0; v < 3; v++) {
            const { rows, x } = flatRows(n, spread, v, seed++);
            const want = byRow(refEntmax, x, n, alpha);
            const got = all.map((b) => b.sx.entmax(x, { n, alpha }));
            all.forEach((b, k) => {
              const what = `${b.name}: alpha ${alpha}, n ${n}, spread ${spread}, variant ${v}`;
              assertOnSimplex(got[k], n, 1e-5, what, { allowZeroRow: v === 1 });
              assertClose(got[k], want, 1e-6, what);
              for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[k][i] - want[i]));
            });
            assertClose(got[0], got[1], 1e-6, `simd vs scalar: alpha ${alpha}, n ${n}, spread ${spread}, variant ${v}, ${rows} rows`);
          }
    assert.ok(worst < 1e-6, `worst abs error ${worst}`);
  });

  test("a long flat row (n = 512) and a temperature, through attention-sized batches", () => {
    const n = 512, x = flatRows(n, 0.02, 0, 99).x;
    for (const temperature of [1, 0.25]) {
      const want = byRow((row) => refEntmax(row, 1.3, temperature), x, n);
      for (const b of all) assertClose(b.sx.entmax(x, { n, alpha: 1.3, temperature }), want, 1e-6, `${b.name}: T ${temperature}`);
    }
  });
});
