/* matmul.c - out (M, N) = op(A) op(B) (+ bias), SIMD.

   The micro-kernel computes a 4 x 8 block of out in eight f32x4 accumulators: per step of k it
   loads 8 floats of a packed B panel (two vectors) and splats four A values (load32_splat),
   then 8 multiplies and 8 adds (no FMA: relaxed SIMD is not usable here, PERFORMANCE.md).
   B is packed panel by panel (8 columns, K in blocks of KC) into an on-stack buffer, from
   either layout, so A B^T (Q K^T) costs one transposing pack per panel, reused by every row
   block. A is read in place through (row, column) strides, which covers A and A^T alike.
   The scalar wasm build runs a plain-C kernel of the same sums in the same order instead.
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

/* A partial row (nc < 8) of a block, out of line: the eight inlined copies of store_row
   would otherwise carry eight copies of this loop (kilobytes of wasm). */
static __attribute__((noinline)) void store_part(float *c, v128 v0, v128 v1, int nc, int add,
                                                 const float *bias) {
    float t[8];
    vstore(t, v0);
    vstore(t + 4, v1);
    for (int j = 0; j < nc; j++) {
        if (add) c[j] += t[j];
        else c[j] = t[j] + (bias ? bias[j] : 0.0f);
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
    store_part(c, v0, v1, nc, add, bias);
}

/* c (mr <= 4, nc <= 8) (+)= A-rows (4, kc) pk (kc, 8). Rows r >= mr of A point at row 0 and
   are discarded. add: 1 adds into c, 0 overwrites c with the product + bias (bias may be 0). */
#if SX_SCALAR_WASM
/* The scalar wasm build: SIMDe would keep the eight f32x4 accumulators in memory (2 GFLOP/s);
   plain C keeps a 4 x 4 block in locals, which V8 holds in registers, in two passes over the
   8-wide panel (6-8 GFLOP/s). Every entry is the same sum in the same order as in the SIMD
   kernel (acc += a * b over k from 0, then stored as store_row does), so both builds give the
   same bits. */
static void kernel4x8(float *c, int ldc, const float *a0, const float *a1, const float *a2,
                      const float *a3, int cs, const float *pk, int kc, int mr, int nc, int add,
                      const float *bias) {
    for (int h = 0; h < nc; h += 4) {
        float c00 = 0.0f, c01 = 0.0f, c02 = 0.0f, c03 = 0.0f, c10 = 0.0f, c11 = 0.0f, c12 = 0.0f;
        float c13 = 0.0f, c20 = 0.0f, c21 = 0.0f, c22 = 0.0f, c23 = 0.0f, c30 = 0.0f, c31 = 0.0f;
        float c32 = 0.0f, c33 = 0.0f;
        const float *b = pk + h, *p0 = a0, *p1 = a1, *p2 = a2, *p3 = a3;
        for (int kk = 0; kk < kc; kk++) {
            const float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
            const float x0 = *p0, x1 = *p1, x2 = *p2, x3 = *p3;
            c00 += x0 * b0; c01 += x0 * b1; c02 += x0 * b2; c03 += x0 * b3;
            c10 += x1 * b0; c11 += x1 * b1; c12 += x1 * b2; c13 += x1 * b3;
            c20 += x2 * b0; c21 += x2 * b1; c22 += x2 * b2; c23 += x2 * b3;
            c30 += x3 * b0; c31 += x3 * b1; c32 += x3 * b2; c33 += x3 * b3;
            b += 8;
            p0 += cs;
            p1 += cs;
            p2 += cs;
            p3 += cs;
        }
        const float t[4][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 },
                                { c20, c21, c22, c23 }, { c30, c31, c32, c33 } };
        const int w = nc - h < 4 ? nc - h : 4;
        for (int r = 0; r < mr; r++) {
            float *cr = c + (size_t)r * ldc + h;
            for (int j = 0; j < w; j++) {
                if (add) cr[j] += t[r][j];
                else if (nc == 8 && !bias) cr[j] = t[r][j];
                else cr[j] = t[r][j] + (bias ? bias[h + j] : 0.0f);
            }
        }
    }
}
#else
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

/* Scores of small heads (sx_nn_scores with K = 8 or 16): the whole product fits one packed
   panel of K rows, and the generic kernel's per-block costs (a call, the zeroing, a K loop of 8
   steps, the store's branches) outweigh its 8 K steps of arithmetic. Here the K loop has a
   constant trip count (unrolled), the row blocks loop inside one call, and each block is scaled
   and checked in registers before its one store. The same sums in the same order as
   kernel4x8, then the same multiply as a pass over the stored product: the same bits. Returns
   the finiteness lanes (all true: every entry finite). */
#define SX_FINITE(v) veq(vsub((v), (v)), vsub((v), (v)))
#define SX_SMALL_K(KK)                                                                          \
    static v128 panel_k##KK(float *c, int ldc, const float *a, size_t rs, int cs,               \
                            const float *pk, int M, int nc, float scale) {                      \
        v128 ok = simde_wasm_i32x4_splat(-1);                                                   \
        for (int i0 = 0; i0 < M; i0 += 4) {                                                     \
            const int mr = M - i0 < 4 ? M - i0 : 4;                                             \
            const float *a0 = a + (size_t)i0 * rs;                                              \
            const float *a1 = mr > 1 ? a0 + rs : a0, *a2 = mr > 2 ? a0 + 2 * rs : a0;           \
            const float *a3 = mr > 3 ? a0 + 3 * rs : a0;                                        \
            v128 c00 = vsplat(0.0f), c01 = c00, c10 = c00, c11 = c00;                           \
            v128 c20 = c00, c21 = c00, c30 = c00, c31 = c00;                                    \
            for (int kk = 0; kk < KK; kk++) {                                                   \
                const v128 b0 = vload(pk + 8 * kk), b1 = vload(pk + 8 * kk + 4);                \
                const v128 x0 = simde_wasm_v128_load32_splat(a0 + kk * cs);                     \
                const v128 x1 = simde_wasm_v128_load32_splat(a1 + kk * cs);                     \
                const v128 x2 = simde_wasm_v128_load32_splat(a2 + kk * cs);                     \
                const v128 x3 = simde_wasm_v128_load32_splat(a3 + kk * cs);                     \
                c00 = vadd(c00, vmul(x0, b0));                                                  \
                c01 = vadd(c01, vmul(x0, b1));                                                  \
                c10 = vadd(c10, vmul(x1, b0));                                                  \
                c11 = vadd(c11, vmul(x1, b1));                                                  \
                c20 = vadd(c20, vmul(x2, b0));                                                  \
                c21 = vadd(c21, vmul(x2, b1));                                                  \
                c30 = vadd(c30, vmul(x3, b0));                                                  \
                c31 = vadd(c31, vmul(x3, b1));                                                  \
            }                                                                                   \
            const v128 vs = vsplat(scale);                                                      \
            c00 = vmul(c00, vs);                                                                \
            c01 = vmul(c01, vs);                                                                \
            c10 = vmul(c10, vs);                                                                \
            c11 = vmul(c11, vs);                                                                \
            c20 = vmul(c20, vs);                                                                \
            c21 = vmul(c21, vs);                                                                \
            c30 = vmul(c30, vs);                                                                \
            c31 = vmul(c31, vs);                                                                \
            /* x - x is 0 for finite x, NaN otherwise (d == d fails); rows r >= mr repeat row  \
               0, columns nc.. are 0 */                                                         \
            ok = vand(ok, vand(SX_FINITE(c00), SX_FINITE(c01)));                                \
            ok = vand(ok, vand(SX_FINITE(c10), SX_FINITE(c11)));                                \
            ok = vand(ok, vand(SX_FINITE(c20), SX_FINITE(c21)));                                \
            ok = vand(ok, vand(SX_FINITE(c30), SX_FINITE(c31)));                                \
            float *o = c + (size_t)i0 * ldc;                                                    \
            if (mr == 4 && nc == 8) {                                                           \
                vstore(o, c00);                                                                 \
                vstore(o + 4, c01);                                                             \
                vstore(o + ldc, c10);                                                           \
                vstore(o + ldc + 4, c11);                                                       \
                vstore(o + 2 * (size_t)ldc, c20);                                               \
                vstore(o + 2 * (size_t)ldc + 4, c21);                                           \
                vstore(o + 3 * (size_t)ldc, c30);                                               \
                vstore(o + 3 * (size_t)ldc + 4, c31);                                           \
            } else {                                                                            \
                store_row(o, c00, c01, nc, 0, NULL);                                            \
                if (mr > 1) store_row(o + ldc, c10, c11, nc, 0, NULL);                          \
                if (mr > 2) store_row(o + 2 * (size_t)ldc, c20, c21, nc, 0, NULL);              \
                if (mr > 3) store_row(o + 3 * (size_t)ldc, c30, c31, nc, 0, NULL);              \
            }                                                                                   \
        }                                                                                       \
        return ok;                                                                              \
    }
SX_SMALL_K(8)
SX_SMALL_K(16)
#undef SX_SMALL_K
#undef SX_FINITE
#endif

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

int sx_nn_scores(float *out, int ldo, const float *q, int ldq, const float *k, int ldk, int M,
                 int N, int K, float scale) {
    if (M <= 0 || N <= 0) return 1;
#if !SX_SCALAR_WASM
    if (K == 8 || K == 16) {
        float pk[16 * 8];
        v128 ok = simde_wasm_i32x4_splat(-1);
        for (int j0 = 0; j0 < N; j0 += 8) {
            const int nc = N - j0 < 8 ? N - j0 : 8;
            pack_panel(pk, k, ldk, 1, 0, K, j0, nc);
            ok = vand(ok, K == 8 ? panel_k8(out + j0, ldo, q, (size_t)ldq, 1, pk, M, nc, scale)
                                 : panel_k16(out + j0, ldo, q, (size_t)ldq, 1, pk, M, nc, scale));
        }
        return simde_wasm_i32x4_all_true(ok);
    }
#endif
    sx_nn_matmul(out, ldo, q, ldq, 0, k, ldk, 1, NULL, M, N, K, 0);
    int fin = 1;
    for (int i = 0; i < M; i++) fin &= sx_nn_scale_row(out + (size_t)i * ldo, N, scale);
    return fin;
}

int sx_nn_scale_row(float *x, int n, float s) {
    const v128 vs = vsplat(s), zero = vsplat(0.0f);
    v128 ok = veq(zero, zero);
    int j = 0, fin = 1;
    for (; j + 4 <= n; j += 4) {
        const v128 y = vmul(vload(x + j), vs);
        vstore(x + j, y);
        ok = vand(ok, veq(vsub(y, y), zero));
    }
    for (; j < n; j++) {
        x[j] *= s;
        fin &= x[j] - x[j] == 0.0f;
    }
    return fin & simde_wasm_i32x4_all_true(ok);
}
