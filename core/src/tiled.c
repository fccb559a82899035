/* tiled.c - long-sequence attention in O(n d) memory (issue 14): the kernel behind
   sx_attention_tiled (mha.c), one (batch element, head) per call. No n x n buffer:
   - softmax: FlashAttention's online softmax (Dao et al. 2022). Per block of bq queries, the keys
     in blocks of bk: the tile's scores S = q k^T / sqrt(d), per row a running max m and sum l,
     P = exp(S - m) added into the output row after rescaling it by exp(m_old - m); out /= l at
     the end. Scratch: one (bq, bk) tile, m and l.
   - sparse mappings (sparsemax, 1.5-entmax, alpha-entmax, fusedmax): per block of bq queries, the
     scores against every visible key (bq, n), the mapping by the same calls as attention.c
     (sx_nn_map_forward: one call on the block, or one per row on its causal window), then
     out += P v over key blocks of bk: a (bq, bk) tile of P that is all zero is skipped (and
     counted), a sparse one gathered (out_i += p_ij v_j over its non-zeros), a dense one goes
     through the matmul. Scratch: 2 bq n.
   Both transpose k once per head into (d, n), so the score matmul packs its panels with vector
   loads; the scores are attention.c's bit for bit (the same kernel and sums), and the sparse
   mappings' weights too where both map the same row (attention.c maps a padded row with its
   -Infinity tail, and a causal row of fewer than 64 keys whole, which may round differently);
   out differs from attention.c's by the order of its sums. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "simd.h"
#include "tiled.h"

SX_COLD_BEGIN /* compiled for size (internal.h): the time is in the matmuls and the mappings */

/* Keys query i sees: [0, hi). */
static int row_hi(int i, int klen, int causal) { return causal && i + 1 < klen ? i + 1 : klen; }

/* ---------------------------------------------------------------- inner loops */
/* x[0 .. n) = exp(x - m) (x <= m), returns their sum. One exp in the loop: the tail goes
   through it too (padded with -Infinity, whose exp is 0). */
static float exp_sum(float *x, int n, float m) {
    const v128 vm = vsplat(m);
    v128 a = vsplat(0.0f);
    for (int j = 0; j < n; j += 4) {
        const int w = n - j < 4 ? n - j : 4;
        const v128 e = sx_exp_nonpos(vsub(w == 4 ? vload(x + j) : sx_load_tail(x + j, w, -INFINITY), vm));
        if (w == 4) vstore(x + j, e);
        else sx_store_tail(x + j, e, w);
        a = vadd(a, e);
    }
    return sx_hsum(a);
}

/* y[0 .. n) += a x. */
static void axpy(float *y, const float *x, int n, float a) {
    const v128 va = vsplat(a);
    int j = 0;
    for (; j + 4 <= n; j += 4) vstore(y + j, vadd(vload(y + j), vmul(vload(x + j), va)));
    for (; j < n; j++) y[j] += a * x[j];
}

/* Non-zeros of a (rows, cols) tile of p (row stride ld; p >= 0). */
static int tile_nnz(const float *p, size_t ld, int rows, int cols) {
    const v128 zero = vsplat(0.0f);
    v128 cnt = simde_wasm_i32x4_splat(0);
    int n = 0;
    for (int r = 0; r < rows; r++, p += ld) {
        int j = 0;
        for (; j + 4 <= cols; j += 4) cnt = simde_wasm_i32x4_sub(cnt, vgt(vload(p + j), zero));
        for (; j < cols; j++) n += p[j] > 0.0f;
    }
    return n + sx_hsum_i32(cnt);
}

/* out_r += sum_j p_rj v_j over the non-zeros of a (rows, cols) tile of p (row stride ldp). */
static void gather(float *out, int ldo, const float *p, size_t ldp, const float *v, int ldkv,
                   int rows, int cols, int dh) {
    const v128 zero = vsplat(0.0f);
    for (int r = 0; r < rows; r++, p += ldp, out += ldo)
        for (int j = 0; j < cols; j += 4) {
            if (j + 4 <= cols && !simde_wasm_v128_any_true(vgt(vload(p + j), zero))) continue;
            for (int jj = j; jj < j + 4 && jj < cols; jj++)
                if (p[jj] > 0.0f) axpy(out, v + (size_t)jj * ldkv, dh, p[jj]);
        }
}

/* Scale row r of a block of scores (its first n keys from key j0), rescoring overflows. */
static int scale_scores(float *s, int n, int i, int j0, const float *q, int ldq, const float *k,
                        int ldkv, int dh, float scale) {
    if (sx_nn_scale_row(s, n, scale)) return SX_OK;
    return sx_nn_rescore_scores(s, n, i, j0, q + (size_t)i * ldq, k + (size_t)j0 * ldkv, ldkv, dh,
                                scale);
}

uint64_t sx__attention_tiled_scratch(int Tk, int dh, int mapping, int bq, int bk) {
    const uint64_t kt = (uint64_t)dh * Tk;
    if (mapping == SX_MAP_SOFTMAX) return kt + (uint64_t)bq * bk + 2 * (uint64_t)bq;
    return kt + 2 * (uint64_t)bq * Tk;
}

/* One block of softmax rows [i0, i0 + rows): the online softmax over key blocks of bk. */
static int softmax_block(float *out, int ldo, float *s, float *m, float *l, const float *q,
                         int ldq, const float *k, const float *v, int ldkv, const float *kt,
                         int ldkt, int klen, int i0, int rows, int dh, int causal, int bk,
                         float scale, double *tiles) {
    const int kw = row_hi(i0 + rows - 1, klen, causal);
    for (int r = 0; r < rows; r++) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }
    for (int j0 = 0; j0 < kw; j0 += bk) {
        const int cols = kw - j0 < bk ? kw - j0 : bk;
        const int r0 = causal && j0 > i0 ? j0 - i0 : 0; /* rows above see none of these keys */
        sx_nn_matmul(s + (size_t)r0 * bk, bk, q + (size_t)(i0 + r0) * ldq, ldq, 0, kt + j0, ldkt,
                     0, NULL, rows - r0, cols, dh, 0);
        for (int r = r0; r < rows; r++) {
            const int i = i0 + r, hi = row_hi(i, klen, causal) - j0;
            const int vis = hi < cols ? hi : cols; /* >= 1 */
            float *s_r = s + (size_t)r * bk, *o_r = out + (size_t)i * ldo;
            const int st = scale_scores(s_r, vis, i, j0, q, ldq, k, ldkv, dh, scale);
            if (st != SX_OK) return st;
            const float mx = sx__row_max(s_r, vis);
            if (mx > m[r]) { /* rescale what the row holds: exp(-inf) = 0 on its first tile */
                const float c = expf(m[r] - mx);
                l[r] *= c;
                sx_nn_scale_row(o_r, dh, c);
                m[r] = mx;
            }
            l[r] += exp_sum(s_r, vis, m[r]);
            memset(s_r + vis, 0, (size_t)(cols - vis) * sizeof(float));
        }
        sx_nn_matmul(out + (size_t)(i0 + r0) * ldo, ldo, s + (size_t)r0 * bk, bk, 0,
                     v + (size_t)j0 * ldkv, ldkv, 0, NULL, rows - r0, dh, cols, 1);
        tiles[0] += 1.0;
    }
    for (int r = 0; r < rows; r++) {
        float *o_r = out + (size_t)(i0 + r) * ldo;
        if (l[r] > 0.0f) sx_nn_scale_row(o_r, dh, 1.0f / l[r]);
    }
    return SX_OK;
}

/* One block of rows [i0, i0 + rows) of a sparse mapping: scores over every visible key, the
   mapping, then out += P v over the tiles of P that hold a non-zero. */
static int sparse_block(float *out, int ldo, float *s, float *p, const float *q, int ldq,
                        const float *k, const float *v, int ldkv, const float *kt, int ldkt,
                        int klen, int i0, int rows, int dh, int mapping, float param, int causal,
                        int bk, float scale, double *tiles) {
    const int kw = row_hi(i0 + rows - 1, klen, causal);
    int st;
    sx_nn_matmul(s, kw, q + (size_t)i0 * ldq, ldq, 0, kt, ldkt, 0, NULL, rows, kw, dh, 0);
    for (int r = 0; r < rows; r++) {
        const int i = i0 + r, hi = row_hi(i, klen, causal);
        float *s_r = s + (size_t)r * kw;
        if ((st = scale_scores(s_r, hi, i, 0, q, ldq, k, ldkv, dh, scale)) != SX_OK) return st;
        if (causal) { /* attention.c's per-row windows: the mapping sees [0, hi) only */
            float *p_r = p + (size_t)r * kw;
            if ((st = sx_nn_map_forward(p_r, s_r, 1, hi, mapping, param)) != SX_OK) return st;
            memset(p_r + hi, 0, (size_t)(kw - hi) * sizeof(float));
        }
    }
    if (!causal && (st = sx_nn_map_forward(p, s, rows, kw, mapping, param)) != SX_OK) return st;
    for (int j0 = 0; j0 < kw; j0 += bk) {
        const int cols = kw - j0 < bk ? kw - j0 : bk;
        const int nnz = tile_nnz(p + j0, kw, rows, cols);
        tiles[0] += 1.0;
        if (nnz == 0) tiles[1] += 1.0;
        else if (4 * nnz >= rows * cols)
            sx_nn_matmul(out + (size_t)i0 * ldo, ldo, p + j0, kw, 0, v + (size_t)j0 * ldkv, ldkv, 0,
                         NULL, rows, dh, cols, 1);
        else
            gather(out + (size_t)i0 * ldo, ldo, p + j0, kw, v + (size_t)j0 * ldkv, ldkv, rows,
                   cols, dh);
    }
    return SX_OK;
}

int sx__attention_tiled(float *out, int ldo, float *scratch, const float *q, int ldq,
                        const float *k, const float *v, int ldkv, int klen, int Tq, int Tk, int dh,
                        int mapping, float param, int causal, int bq, int bk, double *tiles) {
    const float scale = 1.0f / sqrtf((float)dh);
    for (int i = 0; i < Tq; i++) memset(out + (size_t)i * ldo, 0, (size_t)dh * sizeof(float));
    if (klen <= 0) return SX_OK;
    float *kt = scratch, *s = scratch + (size_t)dh * Tk; /* k^T (dh, Tk), then the blocks */
    for (int j = 0; j < klen; j++)
        for (int c = 0; c < dh; c++) kt[(size_t)c * Tk + j] = k[(size_t)j * ldkv + c];
    for (int i0 = 0; i0 < Tq; i0 += bq) {
        const int rows = Tq - i0 < bq ? Tq - i0 : bq;
        const int st = mapping == SX_MAP_SOFTMAX
            ? softmax_block(out, ldo, s, s + (size_t)bq * bk, s + (size_t)bq * bk + bq, q, ldq, k,
                            v, ldkv, kt, Tk, klen, i0, rows, dh, causal, bk, scale, tiles)
            : sparse_block(out, ldo, s, s + (size_t)bq * Tk, q, ldq, k, v, ldkv, kt, Tk, klen, i0,
                           rows, dh, mapping, param, causal, bk, scale, tiles);
        if (st != SX_OK) return st;
    }
    return SX_OK;
}

SX_COLD_END
