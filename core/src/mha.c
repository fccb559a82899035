/* mha.c - the public multi-head attention entry points on already-projected q, k, v with the
   heads side by side (no span, no learned alpha: those belong to the model): argument checks
   and scratch around one kernel call per batch element and head. sx_attention runs the model's
   kernel (attention.c, sx_nn_attention_forward: the whole (Tq, Tk) map of scores, the weights
   available); sx_attention_tiled the long-sequence kernel (tiled.c: blocks, O(n d) memory). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "tiled.h"

/* Largest element count of any one buffer: the JS side addresses floats by int byte offsets. */
#define SX_MAX_ELEMS ((uint64_t)INT32_MAX / 4)

SX_COLD_BEGIN /* argument checks: compiled for size (internal.h) */

/* The checks both entry points make, in this order: sizes, the mapping, `extra` (the entry
   point's own buffers, in floats) and the inputs' sizes against SX_MAX_ELEMS, buffers, k_len,
   finite inputs. Sets *done when nothing is left to compute (no query; no key: out zeroed). */
static int check_args(int *done, float *out, const float *q, const float *k, const float *v,
                      const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                      float param, uint64_t extra) {
    *done = 1;
    if (B < 0 || Tq < 0 || Tk < 0)
        return sx__fail(SX_EINVAL, -1, "B, Tq and Tk must be >= 0 (got %d, %d, %d)", B,
                        Tq, Tk);
    if (H < 1 || dh < 1)
        return sx__fail(SX_EINVAL, -1, "H and dh must be >= 1 (got %d, %d)", H, dh);
    int st = sx__check_attention_mapping(mapping, param);
    if (st != SX_OK) return st;
    const uint64_t C = (uint64_t)H * (uint64_t)dh;
    const uint64_t nq = (uint64_t)B * Tq * C, nk = (uint64_t)B * Tk * C;
    if (C > SX_MAX_ELEMS || nq > SX_MAX_ELEMS || nk > SX_MAX_ELEMS || extra > SX_MAX_ELEMS)
        return sx__fail(SX_EINVAL, -1, "sizes too large (B %d, Tq %d, Tk %d, H %d, dh %d)",
                        B, Tq, Tk, H, dh);
    if (nq == 0) return SX_OK; /* no query: nothing to write */
    if (!out) return sx__null("out");
    if (!q) return sx__null("q");
    if (nk > 0 && (!k || !v)) return sx__null(k ? "v" : "k"); /* Tk = 0: k and v are empty */
    if (k_len)
        for (int b = 0; b < B; b++)
            if (k_len[b] < 0 || k_len[b] > Tk)
                return sx__fail(SX_EINVAL, b, "k_len[%d] must be in [0, Tk = %d] (got %d)",
                                b, Tk, k_len[b]);
    if ((st = sx__check_scores(q, (size_t)nq, "q", 0)) != SX_OK) return st;
    if ((st = sx__check_scores(k, (size_t)nk, "k", 0)) != SX_OK) return st;
    if ((st = sx__check_scores(v, (size_t)nk, "v", 0)) != SX_OK) return st;
    if (Tk == 0) {
        memset(out, 0, (size_t)nq * sizeof(float));
        return SX_OK;
    }
    *done = 0;
    return SX_OK;
}

/* The message of a score overflow in batch element b. */
static int overflow(int b) {
    return sx__fail(SX_ENONFINITE, -1, "a score q.k / sqrt(dh) of batch element %d overflows "
                    "float (scale q or k down)", b);
}

int sx_attention(float *out, float *att, const float *q, const float *k, const float *v,
                 const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping, float param,
                 int causal) {
    int done;
    const uint64_t map = (uint64_t)H * Tq * Tk; /* one batch element's maps */
    int st = check_args(&done, out, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param,
                        H >= 1 && B >= 0 ? (uint64_t)B * map : 0);
    if (st != SX_OK || done) return st;
    const int C = H * dh;

    /* scratch: the scores of one batch element, then its weights when att is NULL, then the
       per-head mapping table */
    const size_t maps = (size_t)map * (att ? 1 : 2);
    float *scratch = malloc(maps * sizeof(float) + (size_t)H * (sizeof(int) + sizeof(float)));
    if (!scratch)
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %g bytes of scratch",
                        (double)(maps * sizeof(float)));
    float *param_h = scratch + maps;
    int *kind_h = (int *)(param_h + H);
    for (int h = 0; h < H; h++) {
        kind_h[h] = mapping;
        param_h[h] = param;
    }
    const sx_nn_attn_cfg cfg = { H, dh, causal != 0, kind_h, param_h, 0, 0.0f, NULL };
    const int ld = C;
    for (int b = 0; b < B && st == SX_OK; b++) {
        float *att_b = att ? att + (size_t)b * map : scratch + map; /* (H, Tq, Tk) */
        st = sx_nn_attention_forward(out + (size_t)b * Tq * C, scratch, NULL, att_b,
                                     q + (size_t)b * Tq * C, ld, k + (size_t)b * Tk * C,
                                     v + (size_t)b * Tk * C, ld, NULL, NULL, k_len ? k_len + b : NULL,
                                     1, Tq, Tk, &cfg);
        if (st == SX_ENONFINITE) st = overflow(b);
    }
    free(scratch);
    return st;
}

int sx_attention_tiled(float *out, const float *q, const float *k, const float *v,
                       const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                       float param, int causal, int block_q, int block_k, double *tiles) {
    if (block_q < 0 || block_k < 0)
        return sx__fail(SX_EINVAL, -1, "block_q and block_k must be >= 0 (got %d, %d)", block_q,
                        block_k);
    /* blocks no larger than the map (1 for an empty one) */
    int bq = block_q ? block_q : SX_TILE_BQ;
    int bk = block_k ? block_k : mapping == SX_MAP_SOFTMAX ? SX_TILE_BK_SOFTMAX : SX_TILE_BK_SPARSE;
    bq = bq < Tq ? bq : Tq > 1 ? Tq : 1;
    bk = bk < Tk ? bk : Tk > 1 ? Tk : 1;
    int done;
    const uint64_t floats = Tk >= 0 && dh >= 1 ? sx__attention_tiled_scratch(Tk, dh, mapping, bq, bk) : 0;
    int st = check_args(&done, out, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, floats);
    if (tiles && st == SX_OK) tiles[0] = tiles[1] = 0.0;
    if (st != SX_OK || done) return st;
    float *scratch = malloc((size_t)floats * sizeof(float));
    if (!scratch)
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %g bytes of scratch",
                        (double)(floats * sizeof(float)));
    const int C = H * dh;
    double count[2] = { 0.0, 0.0 };
    for (int b = 0; b < B && st == SX_OK; b++)
        for (int h = 0; h < H && st == SX_OK; h++) {
            const size_t qo = (size_t)b * Tq * C + (size_t)h * dh, ko = (size_t)b * Tk * C + (size_t)h * dh;
            st = sx__attention_tiled(out + qo, C, scratch, q + qo, C, k + ko, v + ko, C,
                                     k_len ? k_len[b] : Tk, Tq, Tk, dh, mapping, param,
                                     causal != 0, bq, bk, count);
            if (st == SX_ENONFINITE) st = overflow(b);
        }
    free(scratch);
    if (tiles && st == SX_OK) {
        tiles[0] = count[0];
        tiles[1] = count[1];
    }
    return st;
}

SX_COLD_END
