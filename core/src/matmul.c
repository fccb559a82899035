/* matmul.c - out (M, N) = op(A) op(B) (+ bias), SIMD.

   The micro-kernel computes a 4 x 8 block of out in eight f32x4 accumulators: per step of k it
   loads 8 floats of a packed B panel (two vectors) and splats four A values (load32_splat),
   then 8 multiplies and 8 adds (no FMA: relaxed SIMD is not usable here, PERFORMANCE.md).
   B is packed panel by panel (8 columns, K in blocks of KC) into an on-stack buffer, from
   either layout, so A B^T (Q K^T) costs one transposing pack per panel, reused by every row
   block. A is read in place through (row, column) strides, which covers A and A^T alike.
   The naive reference lives in tests/c/ref_nn.c and the tests compare the two. */
#include <string.h>
#include "nn.h"
#include "simd.h"

#define KC 256 /* K block: a packed panel is KC * 8 floats = 8 KB of stack */

/* pk (kc, 8) = op(B)[k0 .. k0+kc, j0 .. j0+nc], columns nc..7 zero. */
static void pack_panel(float *pk, const float *b, int ldb, int tb, int k0, int kc, int j0, int nc) {
    if (!tb && nc == 8) {
        for (int kk = 0; kk < kc; kk++) {
            const float *src = b + (size_t)(k0 + kk) * ldb + j0;
            vstore(pk + 8 * kk, vload(src));
            vstore(pk + 8 * kk + 4, vload(src + 4));
        }
        return;
    }
    if (nc < 8) memset(pk, 0, (size_t)kc * 8 * sizeof(float));
    if (!tb) {
        for (int kk = 0; kk < kc; kk++) {
            const float *src = b + (size_t)(k0 + kk) * ldb + j0;
            for (int jj = 0; jj < nc; jj++) pk[8 * kk + jj] = src[jj];
        }
    } else {
        /* B is (N, K): column j of op(B) is row j of B, contiguous in k. */
        for (int jj = 0; jj < nc; jj++) {
            const float *src = b + (size_t)(j0 + jj) * ldb + k0;
            for (int kk = 0; kk < kc; kk++) pk[8 * kk + jj] = src[kk];
        }
    }
}

/* One row of a block: c[0 .. nc) (+)= (v0, v1) (+ bias). */
SX_INLINE void store_row(float *c, v128 v0, v128 v1, int nc, int add, const float *bias) {
    if (nc == 8) {
        if (add) {
            vstore(c, vadd(vload(c), v0));
            vstore(c + 4, vadd(vload(c + 4), v1));
        } else if (bias) {
            vstore(c, vadd(v0, vload(bias)));
            vstore(c + 4, vadd(v1, vload(bias + 4)));
        } else {
            vstore(c, v0);
            vstore(c + 4, v1);
        }
        return;
    }
    float t[8];
    vstore(t, v0);
    vstore(t + 4, v1);
    for (int j = 0; j < nc; j++) {
        if (add) c[j] += t[j];
        else c[j] = t[j] + (bias ? bias[j] : 0.0f);
    }
}

/* c (mr <= 4, nc <= 8) (+)= A-rows (4, kc) pk (kc, 8). Rows r >= mr of A point at row 0 and
   are discarded. add: 1 adds into c, 0 overwrites c with the product + bias (bias may be 0). */
static void kernel4x8(float *c, int ldc, const float *a0, const float *a1, const float *a2,
                      const float *a3, int cs, const float *pk, int kc, int mr, int nc, int add,
                      const float *bias) {
    v128 c00 = vsplat(0.0f), c01 = c00, c10 = c00, c11 = c00;
    v128 c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    for (int kk = 0; kk < kc; kk++) {
        const v128 b0 = vload(pk), b1 = vload(pk + 4);
        const v128 x0 = simde_wasm_v128_load32_splat(a0);
        const v128 x1 = simde_wasm_v128_load32_splat(a1);
        const v128 x2 = simde_wasm_v128_load32_splat(a2);
        const v128 x3 = simde_wasm_v128_load32_splat(a3);
        c00 = vadd(c00, vmul(x0, b0));
        c01 = vadd(c01, vmul(x0, b1));
        c10 = vadd(c10, vmul(x1, b0));
        c11 = vadd(c11, vmul(x1, b1));
        c20 = vadd(c20, vmul(x2, b0));
        c21 = vadd(c21, vmul(x2, b1));
        c30 = vadd(c30, vmul(x3, b0));
        c31 = vadd(c31, vmul(x3, b1));
        pk += 8;
        a0 += cs;
        a1 += cs;
        a2 += cs;
        a3 += cs;
    }
    store_row(c, c00, c01, nc, add, bias);
    if (mr > 1) store_row(c + ldc, c10, c11, nc, add, bias);
    if (mr > 2) store_row(c + 2 * (size_t)ldc, c20, c21, nc, add, bias);
    if (mr > 3) store_row(c + 3 * (size_t)ldc, c30, c31, nc, add, bias);
}

void sx_nn_matmul(float *out, int ldo, const float *a, int lda, int ta, const float *b, int ldb,
                  int tb, const float *bias, int M, int N, int K, int accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (accumulate) return;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) out[(size_t)i * ldo + j] = bias ? bias[j] : 0.0f;
        return;
    }
    /* element (i, k) of op(A) is a[i * rs + k * cs] */
    const size_t rs = ta ? 1 : (size_t)lda;
    const int cs = ta ? lda : 1;
    float pk[KC * 8];
    for (int j0 = 0; j0 < N; j0 += 8) {
        const int nc = N - j0 < 8 ? N - j0 : 8;
        for (int k0 = 0; k0 < K; k0 += KC) {
            const int kc = K - k0 < KC ? K - k0 : KC;
            pack_panel(pk, b, ldb, tb, k0, kc, j0, nc);
            const int add = accumulate || k0 > 0;
            const float *bj = bias && k0 == 0 ? bias + j0 : NULL;
            const float *ak = a + (size_t)k0 * cs;
            for (int i0 = 0; i0 < M; i0 += 4) {
                const int mr = M - i0 < 4 ? M - i0 : 4;
                const float *r0 = ak + (size_t)i0 * rs;
                const float *r1 = mr > 1 ? r0 + rs : r0;
                const float *r2 = mr > 2 ? r0 + 2 * rs : r0;
                const float *r3 = mr > 3 ? r0 + 3 * rs : r0;
                float *c = out + (size_t)i0 * ldo + j0;
                if (add && bj) {
                    /* accumulate with a bias: add the bias once, then accumulate the product */
                    for (int r = 0; r < mr; r++)
                        for (int jj = 0; jj < nc; jj++) c[(size_t)r * ldo + jj] += bj[jj];
                    kernel4x8(c, ldo, r0, r1, r2, r3, cs, pk, kc, mr, nc, 1, NULL);
                } else {
                    kernel4x8(c, ldo, r0, r1, r2, r3, cs, pk, kc, mr, nc, add, bj);
                }
            }
        }
    }
}
