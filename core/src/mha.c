/* mha.c - sx_attention, the public multi-head attention entry point: validation, scratch, and
   one call of the model's attention kernel (attention.c, sx_nn_attention_forward) per batch
   element, on already-projected q, k, v with the heads side by side (no span, no learned
   alpha: those belong to the model). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nn.h"

/* Largest element count of any one buffer: the JS side addresses floats by int byte offsets. */
#define SX_MAX_ELEMS ((uint64_t)INT32_MAX / 4)

int sx_attention(float *out, float *att, const float *q, const float *k, const float *v,
                 const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping, float param,
                 int causal) {
    if (B < 0 || Tq < 0 || Tk < 0)
        return sx__fail(SX_EINVAL, -1, "B, Tq and Tk must be >= 0 (got %d, %d, %d)", B,
                        Tq, Tk);
    if (H < 1 || dh < 1)
        return sx__fail(SX_EINVAL, -1, "H and dh must be >= 1 (got %d, %d)", H, dh);
    int st = sx__check_attention_mapping(mapping, param);
    if (st != SX_OK) return st;
    const uint64_t C = (uint64_t)H * (uint64_t)dh;
    const uint64_t nq = (uint64_t)B * Tq * C, nk = (uint64_t)B * Tk * C;
    const uint64_t map = (uint64_t)H * Tq * Tk; /* one batch element's maps */
    if (C > SX_MAX_ELEMS || nq > SX_MAX_ELEMS || nk > SX_MAX_ELEMS || (uint64_t)B * map > SX_MAX_ELEMS)
        return sx__fail(SX_EINVAL, -1, "sizes too large (B %d, Tq %d, Tk %d, H %d, dh %d)",
                        B, Tq, Tk, H, dh);
    if (nq == 0) return SX_OK; /* no query: nothing to write */
    if (!out || !q || (nk > 0 && (!k || !v)))
        return sx__fail(SX_EINVAL, -1, "null buffer");
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
    const int ld = (int)C;
    for (int b = 0; b < B && st == SX_OK; b++) {
        float *att_b = att ? att + (size_t)b * map : scratch + map; /* (H, Tq, Tk) */
        st = sx_nn_attention_forward(out + (size_t)b * Tq * C, scratch, NULL, att_b,
                                     q + (size_t)b * Tq * C, ld, k + (size_t)b * Tk * C,
                                     v + (size_t)b * Tk * C, ld, NULL, NULL, k_len ? k_len + b : NULL,
                                     1, Tq, Tk, &cfg);
        if (st == SX_ENONFINITE)
            st = sx__fail(SX_ENONFINITE, -1,
                          "a score q.k / sqrt(dh) of batch element %d overflows float "
                          "(scale q or k down)", b);
    }
    free(scratch);
    return st;
}
