/* model.c - the tiny encoder-decoder Transformer (model.h): config, parameter and activation
   blocks, forward, backward, Adam, greedy decoding, checkpoints. Sections in data-flow order:
   config, parameters, activations, lifetime, forward, backward, training, decoding, queries,
   checkpoints. llm.c conventions: one block of parameters (and grads, Adam moments) with named
   tensors, one block of activations, grads zeroed with one memset. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "half.h"
#include "internal.h"
#include "model.h"
#include "nn.h"
#include "rng.h"
#include "tasks.h"

SX_COLD_BEGIN /* config, sizes, allocation, initialisation: once per model (internal.h) */

/* ================================================================== config */
#define MAX_HEADS 16
#define MAX_EDITS SX_MODEL_MAX_EDITS
#define N_CFG(L) (SX_MODEL_MAP + (L))
#define N_FCFG(L) (SX_MODEL_F_PARAM + (L))
#define N_CFG_MAX (N_CFG(SX_MODEL_MAX_LAYERS) + 2)   /* + the output mapping, the architecture */
#define N_FCFG_MAX (N_FCFG(SX_MODEL_MAX_LAYERS) + 1) /* + the output alpha */

static const char *const cfg_name[SX_MODEL_MAP] = {
    "vocab", "d_model", "n_head", "n_layer", "d_ff", "max_len", "span", "span_ramp", "seed",
    "max_batch", "act"
};

/* Check every field; name the first bad one. */
static int check_config(const char *fn, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg) {
    if (!cfg) return sx__fail(SX_EINVAL, -1, "%s: config is NULL", fn);
    if (n_cfg < SX_MODEL_MAP)
        return sx__fail(SX_EINVAL, -1, "%s: config has %d ints, needs %d + n_layer", fn, n_cfg,
                        SX_MODEL_MAP);
    static const int lo[SX_MODEL_MAP] = { 4, 2, 1, 1, 1, 2, 0, 1, INT32_MIN, 1, 0 };
    static const int hi[SX_MODEL_MAP] = { 4096, 1024, MAX_HEADS, SX_MODEL_MAX_LAYERS, 4096, 256,
                                          256, 256, INT32_MAX, 4096, 1 };
    for (int i = 0; i < SX_MODEL_MAP; i++) {
        if (i == SX_MODEL_SPAN_RAMP && cfg[SX_MODEL_SPAN] == 0) continue;
        if (cfg[i] < lo[i] || cfg[i] > hi[i])
            return sx__fail(SX_EINVAL, i, "%s: config %s must be in [%d, %d] (got %d)", fn,
                            cfg_name[i], lo[i], hi[i], cfg[i]);
    }
    const int C = cfg[SX_MODEL_D_MODEL], NH = cfg[SX_MODEL_N_HEAD], L = cfg[SX_MODEL_N_LAYER];
    if (C % 2 || C % NH)
        return sx__fail(SX_EINVAL, SX_MODEL_D_MODEL, "%s: config d_model must be even and a "
                        "multiple of n_head %d (got %d)", fn, NH, C);
    if (cfg[SX_MODEL_SPAN] > cfg[SX_MODEL_MAX_LEN])
        return sx__fail(SX_EINVAL, SX_MODEL_SPAN, "%s: config span must be in [0, max_len %d] "
                        "(got %d)", fn, cfg[SX_MODEL_MAX_LEN], cfg[SX_MODEL_SPAN]);
    if (n_cfg < N_CFG(L) || n_cfg > N_CFG(L) + 2)
        return sx__fail(SX_EINVAL, -1, "%s: config has %d ints, n_layer %d needs %d to %d", fn,
                        n_cfg, L, N_CFG(L), N_CFG(L) + 2);
    if (n_cfg == N_CFG(L) + 2 && cfg[N_CFG(L) + 1] != SX_MODEL_ENC_DEC &&
        cfg[N_CFG(L) + 1] != SX_MODEL_DECODER)
        return sx__fail(SX_EINVAL, N_CFG(L) + 1, "%s: config arch must be %d (encoder-decoder) or "
                        "%d (decoder-only) (got %d)", fn, SX_MODEL_ENC_DEC, SX_MODEL_DECODER,
                        cfg[N_CFG(L) + 1]);
    /* map[0 .. L - 1]: the layers' mappings; map[L], when given: the output's (SX_MODEL_OUTPUT) */
    const int n_maps = n_cfg > N_CFG(L) ? L + 1 : L;
    for (int l = 0; l < n_maps; l++) {
        const int k = cfg[SX_MODEL_MAP + l], hi = l < L ? SX_NN_MAP_COUNT - 1 : SX_MAP_ENTMAX;
        if (k < 0 || k > hi)
            return sx__fail(SX_EINVAL, SX_MODEL_MAP + l, "%s: config map[%d] must be a mapping "
                            "kind in [0, %d] (got %d)", fn, l, hi, k);
    }
    if (n_fcfg < 0 || n_fcfg > N_FCFG(L) + 1 || (n_fcfg > 0 && !fcfg))
        return sx__fail(SX_EINVAL, -1, "%s: float config must have 0..%d entries (got %d%s)", fn,
                        N_FCFG(L) + 1, n_fcfg, n_fcfg > 0 && !fcfg ? ", NULL" : "");
    for (int i = 0; i < n_fcfg; i++)
        if (!(fcfg[i] > -INFINITY && fcfg[i] < INFINITY))
            return sx__fail(SX_EINVAL, i, "%s: float config[%d] must be finite (got %g)", fn, i,
                            (double)fcfg[i]);
    if (n_fcfg > SX_MODEL_F_SPAN_PENALTY && fcfg[SX_MODEL_F_SPAN_PENALTY] < 0.0f)
        return sx__fail(SX_EINVAL, 0, "%s: float config span_penalty must be >= 0 (got %g)", fn,
                        (double)fcfg[SX_MODEL_F_SPAN_PENALTY]);
    if (n_fcfg > SX_MODEL_F_ALPHA_LR && fcfg[SX_MODEL_F_ALPHA_LR] < 0.0f)
        return sx__fail(SX_EINVAL, SX_MODEL_F_ALPHA_LR, "%s: float config alpha_lr must be >= 0 "
                        "(got %g)", fn, (double)fcfg[SX_MODEL_F_ALPHA_LR]);
    for (int l = 0; l < n_maps && SX_MODEL_F_PARAM + l < n_fcfg; l++) { /* the output's alpha too */
        const int k = cfg[SX_MODEL_MAP + l];
        const float p = fcfg[SX_MODEL_F_PARAM + l];
        if (k == SX_NN_ENTMAX && !(p >= 1.0f && p <= 8.0f))
            return sx__fail(SX_EINVAL, SX_MODEL_F_PARAM + l, "%s: float config param[%d] (entmax "
                            "alpha) must be in [1, 8] (got %g)", fn, l, (double)p);
        if ((k == SX_NN_FUSEDMAX || k == SX_NN_OSCARMAX) && !(p >= 0.0f))
            return sx__fail(SX_EINVAL, SX_MODEL_F_PARAM + l, "%s: float config param[%d] "
                            "(%s) must be >= 0 (got %g)", fn, l,
                            k == SX_NN_FUSEDMAX ? "fusedmax lambda" : "oscarmax beta", (double)p);
    }
    return SX_OK;
}

/* ============================================================== parameters */
enum {
    P_WTE, P_OUT_W, P_OUT_B, P_ELNF_W, P_ELNF_B, P_DLNF_W, P_DLNF_B,
    /* encoder, (L, ...) */
    P_E_LN1_W, P_E_LN1_B, P_E_QKV_W, P_E_QKV_B, P_E_O_W, P_E_O_B,
    P_E_LN2_W, P_E_LN2_B, P_E_FC_W, P_E_FC_B, P_E_PROJ_W, P_E_PROJ_B,
    /* decoder, (L, ...) */
    P_D_LN1_W, P_D_LN1_B, P_D_QKV_W, P_D_QKV_B, P_D_O_W, P_D_O_B,
    P_D_LN2_W, P_D_LN2_B, P_D_Q_W, P_D_Q_B, P_D_KV_W, P_D_KV_B, P_D_CO_W, P_D_CO_B,
    P_D_LN3_W, P_D_LN3_B, P_D_FC_W, P_D_FC_B, P_D_PROJ_W, P_D_PROJ_B,
    /* (3, L, NH); alpha last: its slice may take a scaled learning rate */
    P_SPAN, P_ALPHA,
    P_COUNT
};

static const char *const tensor_name[P_COUNT] = {
    "wte", "out_w", "out_b", "enc.lnf_w", "enc.lnf_b", "dec.lnf_w", "dec.lnf_b",
    "enc.ln1_w", "enc.ln1_b", "enc.qkv_w", "enc.qkv_b", "enc.o_w", "enc.o_b",
    "enc.ln2_w", "enc.ln2_b", "enc.fc_w", "enc.fc_b", "enc.proj_w", "enc.proj_b",
    "dec.ln1_w", "dec.ln1_b", "dec.qkv_w", "dec.qkv_b", "dec.o_w", "dec.o_b",
    "dec.ln2_w", "dec.ln2_b", "dec.q_w", "dec.q_b", "dec.kv_w", "dec.kv_b", "dec.co_w", "dec.co_b",
    "dec.ln3_w", "dec.ln3_b", "dec.fc_w", "dec.fc_b", "dec.proj_w", "dec.proj_b",
    "span_z", "alpha_a"
};

/* ============================================================= activations */
enum {
    /* encoder: B Ts rows */
    A_E_X,      /* (2L + 1, N, C) residual stream: layer input, after attention, ..., final */
    A_E_LN1, A_E_LN1_M, A_E_LN1_R, /* (L, N, C), (L, N), (L, N) */
    A_E_QKV,    /* (L, N, 3C) */
    A_E_SCORE, A_E_PROB, A_E_ATT, /* (L, B, NH, Ts, Ts) */
    A_E_Y,      /* (L, N, C) attention output before the projection */
    A_E_LN2, A_E_LN2_M, A_E_LN2_R,
    A_E_FCH, A_E_FCA, /* (L, N, F) before / after the activation */
    A_E_OUT, A_E_OUT_M, A_E_OUT_R, /* (N, C) the encoder output (final layernorm) */
    /* decoder: B Tt rows */
    A_D_X,      /* (3L + 1, N, C) */
    A_D_LN1, A_D_LN1_M, A_D_LN1_R, A_D_QKV, A_D_SCORE, A_D_PROB, A_D_ATT, A_D_Y,
    A_D_LN2, A_D_LN2_M, A_D_LN2_R,
    A_D_Q,      /* (L, N, C) cross-attention queries */
    A_D_KV,     /* (L, B Ts, 2C) cross-attention keys and values of the encoder output */
    A_C_SCORE, A_C_ATT, /* (L, B, NH, Tt, Ts) */
    A_D_CY,     /* (L, N, C) */
    A_D_LN3, A_D_LN3_M, A_D_LN3_R, A_D_FCH, A_D_FCA,
    A_D_OUT, A_D_OUT_M, A_D_OUT_R,
    A_LOGITS, A_PROBS, /* (N, V) */
    /* backward scratch, reused layer by layer: Bmax T rows */
    A_G_RES, A_G_LN, A_G_Y, A_G_QKV, A_G_KV, A_G_FCA, A_G_FCH, A_G_EOUT, A_G_LOGITS, A_G_TMP,
    A_G_ATT,    /* attention backward scratch */
    A_COUNT
};

struct sx_model {
    int cfg[N_CFG_MAX], n_cfg;
    float fcfg[N_FCFG_MAX]; /* defaults filled in */
    int n_fcfg_given;       /* the float entries the creator gave (saved as given) */
    int V, C, NH, L, F, T, span, act;
    float ramp, escale;
    int gpt;         /* decoder-only (SX_MODEL_DECODER): no encoder, no cross-attention */
    int dsub;        /* residual-stream slots per decoder layer: 3, or 2 without cross-attention */
    int lm_next, lm_B; /* sx_model_lm_step: the next position and the rows (0: no rows open) */
    int out_map;     /* the output mapping: SX_MAP_SOFTMAX (cross-entropy) ... SX_MAP_ENTMAX */
    float out_alpha; /* its alpha (SX_MAP_ENTMAX) */
    int head_kind[SX_MODEL_MAX_LAYERS][MAX_HEADS];
    float head_param[SX_MODEL_MAX_LAYERS][MAX_HEADS];
    /* parameters, grads, Adam moments: one allocation, 4 n_params floats, then pe (T, C) */
    size_t n_params, p_size[P_COUNT];
    float *mem, *params, *grads, *adam_m, *adam_v, *pe;
    float *p[P_COUNT], *g[P_COUNT];
    int step;
    /* activations: one allocation of floats and one of ints */
    int max_batch;
    size_t a_size[A_COUNT];
    float *acts, *a[A_COUNT];
    int *ints, *din, *labels, *klen; /* (Bmax T), (Bmax T), (Bmax) */
    /* shape of the last forward pass (B = 0: none yet) */
    int B, Ts, Tt;
    /* interventions (sx_model_edit), per [kind][layer]: heads off, keys masked, row edits (their
       weights in edit_w, T floats per slot); edit[k][l] is what attn_cfg hands the attention
       (refresh_edits), with the backward's grab (datt) when explain.c asks for one */
    unsigned char head_off[3][SX_MODEL_MAX_LAYERS][MAX_HEADS];
    unsigned char key_off[3][SX_MODEL_MAX_LAYERS][256];
    sx_nn_row_edit rows[3][SX_MODEL_MAX_LAYERS][MAX_EDITS];
    int n_rows[3][SX_MODEL_MAX_LAYERS], n_heads_off[3][SX_MODEL_MAX_LAYERS];
    int n_keys_off[3][SX_MODEL_MAX_LAYERS], n_edits, n_slots;
    float *edit_w;
    sx_nn_attn_edit edit[3][SX_MODEL_MAX_LAYERS];
    int edit_on[3][SX_MODEL_MAX_LAYERS];
    /* explain.c: the source token embeddings to use instead of wte[src] scale (B, Ts, C) */
    const float *emb_src;
};

/* Rebuild edit[k][l] from the stored edits and the grab request. */
static void refresh_edits(sx_model *m, int grab_kind, int grab_layer, int grab_head, int grab_row,
                          float *datt, int grab_tk) {
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < m->L; l++) {
            sx_nn_attn_edit *e = &m->edit[k][l];
            const int grab = datt && k == grab_kind && (grab_layer < 0 || l == grab_layer);
            const size_t at = grab_layer < 0 ? (size_t)l * (grab_head < 0 ? m->NH : 1) * grab_tk : 0;
            e->key_off = m->n_keys_off[k][l] ? m->key_off[k][l] : NULL;
            e->head_off = m->n_heads_off[k][l] ? m->head_off[k][l] : NULL;
            e->rows = m->rows[k][l];
            e->n_rows = m->n_rows[k][l];
            e->datt = grab ? datt + at : NULL;
            e->grab_head = grab ? grab_head : -1;
            e->grab_row = grab ? grab_row : -1;
            m->edit_on[k][l] = e->key_off || e->head_off || e->n_rows || e->datt;
        }
}

static sx_nn_attn_cfg attn_cfg(const sx_model *m, int kind, int l) {
    sx_nn_attn_cfg c;
    c.n_head = m->NH;
    c.head_size = m->C / m->NH;
    c.causal = kind == SX_MODEL_DEC_SELF;
    c.kind = m->head_kind[l];
    c.param = m->head_param[l];
    c.span_max = kind == SX_MODEL_CROSS ? 0 : m->span;
    c.span_ramp = m->ramp;
    c.edit = m->edit_on[kind][l] ? &m->edit[kind][l] : NULL;
    return c;
}

static void param_sizes(sx_model *m) {
    const size_t V = m->V, C = m->C, L = m->L, F = m->F, NH = m->NH;
    size_t *s = m->p_size;
    s[P_WTE] = V * C; s[P_OUT_W] = C * V; s[P_OUT_B] = V;
    s[P_ELNF_W] = s[P_ELNF_B] = s[P_DLNF_W] = s[P_DLNF_B] = C;
    s[P_E_LN1_W] = s[P_E_LN1_B] = s[P_E_LN2_W] = s[P_E_LN2_B] = L * C;
    s[P_E_QKV_W] = L * C * 3 * C; s[P_E_QKV_B] = L * 3 * C;
    s[P_E_O_W] = L * C * C; s[P_E_O_B] = L * C;
    s[P_E_FC_W] = L * C * F; s[P_E_FC_B] = L * F; s[P_E_PROJ_W] = L * F * C; s[P_E_PROJ_B] = L * C;
    s[P_D_LN1_W] = s[P_D_LN1_B] = s[P_D_LN2_W] = s[P_D_LN2_B] = s[P_D_LN3_W] = s[P_D_LN3_B] = L * C;
    s[P_D_QKV_W] = L * C * 3 * C; s[P_D_QKV_B] = L * 3 * C;
    s[P_D_O_W] = L * C * C; s[P_D_O_B] = L * C;
    s[P_D_Q_W] = L * C * C; s[P_D_Q_B] = L * C;
    s[P_D_KV_W] = L * C * 2 * C; s[P_D_KV_B] = L * 2 * C;
    s[P_D_CO_W] = L * C * C; s[P_D_CO_B] = L * C;
    s[P_D_FC_W] = L * C * F; s[P_D_FC_B] = L * F; s[P_D_PROJ_W] = L * F * C; s[P_D_PROJ_B] = L * C;
    s[P_ALPHA] = s[P_SPAN] = 3 * L * NH; /* kept whole: one head index in both architectures */
    if (m->gpt) { /* no encoder, no cross-attention: the decoder's FFN keeps ln3 */
        s[P_ELNF_W] = s[P_ELNF_B] = 0;
        for (int i = P_E_LN1_W; i <= P_E_PROJ_B; i++) s[i] = 0;
        for (int i = P_D_LN2_W; i <= P_D_CO_B; i++) s[i] = 0;
    }
    m->n_params = 0;
    for (int i = 0; i < P_COUNT; i++) m->n_params += s[i];
}

static void act_sizes(sx_model *m, int Bmax) {
    const size_t B = Bmax, T = m->T, N = B * T, C = m->C, L = m->L, F = m->F, V = m->V;
    const size_t maps = L * B * m->NH * T * T;
    size_t *s = m->a_size;
    memset(s, 0, sizeof m->a_size);
    s[A_E_X] = (2 * L + 1) * N * C;
    s[A_E_LN1] = s[A_E_LN2] = s[A_E_Y] = L * N * C;
    s[A_E_LN1_M] = s[A_E_LN1_R] = s[A_E_LN2_M] = s[A_E_LN2_R] = L * N;
    s[A_E_QKV] = L * N * 3 * C;
    s[A_E_SCORE] = s[A_E_ATT] = maps;
    s[A_E_PROB] = m->span ? maps : 0;
    s[A_E_FCH] = s[A_E_FCA] = L * N * F;
    s[A_E_OUT] = N * C; s[A_E_OUT_M] = s[A_E_OUT_R] = N;
    s[A_D_X] = (3 * L + 1) * N * C;
    s[A_D_LN1] = s[A_D_LN2] = s[A_D_LN3] = s[A_D_Y] = s[A_D_Q] = s[A_D_CY] = L * N * C;
    s[A_D_LN1_M] = s[A_D_LN1_R] = s[A_D_LN2_M] = s[A_D_LN2_R] = s[A_D_LN3_M] = s[A_D_LN3_R] = L * N;
    s[A_D_QKV] = L * N * 3 * C;
    s[A_D_KV] = L * N * 2 * C;
    s[A_D_SCORE] = s[A_D_ATT] = s[A_C_SCORE] = s[A_C_ATT] = maps;
    s[A_D_PROB] = m->span ? maps : 0;
    s[A_D_FCH] = s[A_D_FCA] = L * N * F;
    s[A_D_OUT] = N * C; s[A_D_OUT_M] = s[A_D_OUT_R] = N;
    s[A_LOGITS] = s[A_PROBS] = N * V;
    s[A_G_RES] = s[A_G_LN] = s[A_G_Y] = s[A_G_EOUT] = s[A_G_TMP] = N * C;
    s[A_G_QKV] = N * 3 * C;
    s[A_G_KV] = N * 2 * C;
    s[A_G_FCA] = s[A_G_FCH] = N * F;
    s[A_G_LOGITS] = N * V;
    sx_nn_attn_cfg c = attn_cfg(m, SX_MODEL_ENC_SELF, 0);
    s[A_G_ATT] = sx_nn_attention_scratch_size(&c, m->T, m->T);
    if (m->gpt) { /* no encoder, no cross-attention; 2 slots per layer in the residual stream */
        for (int i = A_E_X; i <= A_E_OUT_R; i++) s[i] = 0;
        for (int i = A_D_LN2; i <= A_D_CY; i++) s[i] = 0;
        s[A_D_X] = (2 * L + 1) * N * C;
        s[A_G_KV] = s[A_G_EOUT] = 0;
    }
}

/* The activation block's size for Bmax rows (in m->a_size and *total), or a failure when it
   exceeds 2^28 floats: checked before anything is allocated. */
static int acts_fit(sx_model *m, int Bmax, const char *fn, size_t *total) {
    act_sizes(m, Bmax);
    *total = 0;
    for (int i = 0; i < A_COUNT; i++) *total += m->a_size[i];
    if (*total > ((size_t)1 << 28))
        return sx__fail(SX_EINVAL, -1, "%s: %d rows need too many activations (%d M floats)", fn,
                        Bmax, (int)(*total >> 20));
    return SX_OK;
}

/* Allocate the activation block for Bmax rows (contents are lost; zeroed by calloc, which the
   system gives as untouched zero pages). */
static int alloc_acts(sx_model *m, int Bmax, const char *fn) {
    size_t total;
    const int st = acts_fit(m, Bmax, fn, &total);
    if (st != SX_OK) return st;
    float *acts = calloc(total, sizeof(float));
    int *ints = malloc(((size_t)2 * Bmax * m->T + Bmax) * sizeof(int));
    if (!acts || !ints) {
        free(acts);
        free(ints);
        return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate activations for %d rows", fn, Bmax);
    }
    free(m->acts);
    free(m->ints);
    m->acts = acts;
    m->ints = ints;
    size_t at = 0;
    for (int i = 0; i < A_COUNT; i++) {
        m->a[i] = acts + at;
        at += m->a_size[i];
    }
    m->din = ints;
    m->labels = ints + (size_t)Bmax * m->T;
    m->klen = ints + (size_t)2 * Bmax * m->T;
    m->max_batch = Bmax;
    m->cfg[SX_MODEL_MAX_BATCH] = Bmax;
    m->B = 0;
    m->lm_B = 0;
    return SX_OK;
}

/* ================================================================ lifetime */
static void init_params(sx_model *m) {
    sx__rng r;
    for (int i = 0; i < P_COUNT; i++) {
        float *p = m->p[i];
        const size_t n = m->p_size[i];
        size_t fan_in = 0;
        switch (i) {
        case P_WTE: fan_in = m->C; break; /* times escale = sqrt(C) in the forward: N(0, 1) */
        case P_OUT_W: case P_E_QKV_W: case P_E_O_W: case P_E_FC_W: case P_D_QKV_W: case P_D_O_W:
        case P_D_Q_W: case P_D_KV_W: case P_D_CO_W: case P_D_FC_W: fan_in = m->C; break;
        case P_E_PROJ_W: case P_D_PROJ_W: fan_in = m->F; break;
        default: break;
        }
        if (fan_in) {
            sx__rng_init(&r, (uint64_t)(uint32_t)m->cfg[SX_MODEL_SEED], (uint64_t)i);
            const float sd = 1.0f / sqrtf((float)fan_in);
            for (size_t k = 0; k < n; k++) p[k] = sx__rng_normal(&r) * sd;
        } else {
            const int one = i == P_ELNF_W || i == P_DLNF_W || i == P_E_LN1_W || i == P_E_LN2_W ||
                            i == P_D_LN1_W || i == P_D_LN2_W || i == P_D_LN3_W || i == P_SPAN;
            for (size_t k = 0; k < n; k++) p[k] = one ? 1.0f : 0.0f;
        }
    }
}

/* A model from a checked config. want_params: the parameter count a checkpoint stores (SIZE_MAX:
   any, sx_model_create): the config's count, its limit and the activations' are checked before
   the parameters and activations are allocated, so a crafted config costs no work. */
static int model_new(sx_model **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg,
                     const char *fn, size_t want_params) {
    int st = check_config(fn, cfg, n_cfg, fcfg, n_fcfg);
    if (st != SX_OK) return st;
    sx_model *m = calloc(1, sizeof *m);
    if (!m) return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    memcpy(m->cfg, cfg, (size_t)n_cfg * sizeof(int));
    m->n_cfg = n_cfg;
    m->V = cfg[SX_MODEL_VOCAB];
    m->C = cfg[SX_MODEL_D_MODEL];
    m->NH = cfg[SX_MODEL_N_HEAD];
    m->L = cfg[SX_MODEL_N_LAYER];
    m->F = cfg[SX_MODEL_D_FF];
    m->T = cfg[SX_MODEL_MAX_LEN];
    m->span = cfg[SX_MODEL_SPAN];
    m->ramp = (float)(m->span ? cfg[SX_MODEL_SPAN_RAMP] : 1);
    m->act = cfg[SX_MODEL_ACT];
    m->escale = sqrtf((float)m->C);
    m->fcfg[SX_MODEL_F_SPAN_PENALTY] = 0.002f;
    m->fcfg[SX_MODEL_F_CLIP] = 1.0f;
    m->fcfg[SX_MODEL_F_ALPHA_LR] = 1.0f;
    for (int l = 0; l < m->L; l++)
        m->fcfg[SX_MODEL_F_PARAM + l] =
            cfg[SX_MODEL_MAP + l] == SX_NN_FUSEDMAX || cfg[SX_MODEL_MAP + l] == SX_NN_OSCARMAX ? 0.1f : 1.5f;
    m->fcfg[N_FCFG(m->L)] = 1.5f;
    for (int i = 0; i < n_fcfg; i++) m->fcfg[i] = fcfg[i];
    m->n_fcfg_given = n_fcfg;
    m->cfg[N_CFG(m->L)] = m->out_map = n_cfg > N_CFG(m->L) ? cfg[N_CFG(m->L)] : SX_MAP_SOFTMAX;
    m->cfg[N_CFG(m->L) + 1] = n_cfg > N_CFG(m->L) + 1 ? cfg[N_CFG(m->L) + 1] : SX_MODEL_ENC_DEC;
    m->gpt = m->cfg[N_CFG(m->L) + 1] == SX_MODEL_DECODER;
    m->dsub = m->gpt ? 2 : 3;
    m->out_alpha = m->fcfg[N_FCFG(m->L)];
    for (int l = 0; l < m->L; l++)
        for (int h = 0; h < m->NH; h++) {
            m->head_kind[l][h] = cfg[SX_MODEL_MAP + l];
            m->head_param[l][h] = m->fcfg[SX_MODEL_F_PARAM + l];
        }
    param_sizes(m);
    size_t n_acts;
    if (m->n_params > ((size_t)1 << 26))
        st = sx__fail(SX_EINVAL, -1, "%s: config needs too many parameters", fn);
    else if (want_params != SIZE_MAX && m->n_params != want_params)
        st = sx__fail(SX_EINVAL, -1, "%s: %d parameters stored, the config needs %d", fn,
                      (int)want_params, (int)m->n_params);
    else st = acts_fit(m, cfg[SX_MODEL_MAX_BATCH], fn, &n_acts);
    if (st != SX_OK) {
        free(m);
        return st;
    }
    m->mem = malloc((4 * m->n_params + (size_t)m->T * m->C) * sizeof(float));
    if (!m->mem) {
        free(m);
        return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate parameters", fn);
    }
    m->edit_w = malloc((size_t)MAX_EDITS * m->T * sizeof(float));
    if (!m->edit_w) {
        free(m->mem);
        free(m);
        return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate parameters", fn);
    }
    m->params = m->mem;
    m->grads = m->params + m->n_params;
    m->adam_m = m->grads + m->n_params;
    m->adam_v = m->adam_m + m->n_params;
    m->pe = m->adam_v + m->n_params;
    memset(m->grads, 0, 3 * m->n_params * sizeof(float));
    size_t at = 0;
    for (int i = 0; i < P_COUNT; i++) {
        m->p[i] = m->params + at;
        m->g[i] = m->grads + at;
        at += m->p_size[i];
    }
    sx_nn_posenc(m->pe, m->T, m->C);
    init_params(m);
    st = alloc_acts(m, cfg[SX_MODEL_MAX_BATCH], fn);
    if (st != SX_OK) {
        free(m->edit_w);
        free(m->mem);
        free(m);
        return st;
    }
    *out = m;
    return SX_OK;
}

int sx_model_create(sx_model **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg) {
    if (!out) return sx__fail(SX_EINVAL, -1, "model_create: out is NULL");
    *out = NULL;
    return model_new(out, cfg, n_cfg, fcfg, n_fcfg, "model_create", SIZE_MAX);
}

void sx_model_free(sx_model *m) {
    if (!m) return;
    free(m->mem);
    free(m->edit_w);
    free(m->acts);
    free(m->ints);
    free(m);
}

int sx_model_reserve(sx_model *m, int max_batch) {
    if (!m) return sx__fail(SX_EINVAL, -1, "model_reserve: model is NULL");
    if (max_batch < 1 || max_batch > 4096)
        return sx__fail(SX_EINVAL, -1, "model_reserve: max_batch must be in [1, 4096] (got %d)",
                        max_batch);
    if (max_batch <= m->max_batch) return SX_OK;
    return alloc_acts(m, max_batch, "model_reserve");
}

SX_COLD_END

/* ================================================================= forward */
/* Check a token block and the call's sizes. */
static int check_tokens(const sx_model *m, const char *fn, const char *name, const int *tok,
                        int len, int count, int min_len) {
    return sx__check_tokens(fn, name, tok, len, count, min_len, m->T, m->V);
}
static int check_call(const sx_model *m, const char *fn, int count) {
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    return sx__check_count(fn, count, m->max_batch);
}

/* Map offsets of one layer for (B, Tq, Tk). */
static size_t map_off(const sx_model *m, int l, int B, int Tq, int Tk) {
    return (size_t)l * B * m->NH * Tq * Tk;
}

static void act_forward(const sx_model *m, float *out, const float *inp, size_t n) {
    if (m->act) sx_nn_gelu_forward(out, inp, n);
    else sx_nn_relu_forward(out, inp, n);
}
static void act_backward(const sx_model *m, float *dinp, const float *inp, const float *dout,
                         size_t n) {
    if (m->act) sx_nn_gelu_backward(dinp, inp, dout, n);
    else sx_nn_relu_backward(dinp, inp, dout, n);
}

/* The feed-forward sub-layer: x_out = x + proj(act(fc(ln(x)))). */
static void ffn_forward(const sx_model *m, float *x_out, float *ln, float *ln_m, float *ln_r,
                        float *fch, float *fca, const float *x, const float *ln_w,
                        const float *ln_b, const float *fc_w, const float *fc_b,
                        const float *proj_w, const float *proj_b, int N) {
    const int C = m->C, F = m->F;
    float *tmp = m->a[A_G_TMP];
    sx_nn_layernorm_forward(ln, ln_m, ln_r, x, ln_w, ln_b, N, C);
    sx_nn_linear_forward(fch, ln, fc_w, fc_b, N, C, F);
    act_forward(m, fca, fch, (size_t)N * F);
    sx_nn_linear_forward(tmp, fca, proj_w, proj_b, N, F, C);
    sx_nn_residual_forward(x_out, x, tmp, (size_t)N * C);
}

/* Encoder over src (B, Ts): fills the encoder activations and klen. */
static int encoder_forward(sx_model *m, const int *src, int B, int Ts) {
    const int C = m->C, L = m->L, F = m->F, N = B * Ts;
    const size_t NC = (size_t)N * C;
    float **a = m->a, **p = m->p, *tmp = m->a[A_G_TMP];
    for (int b = 0; b < B; b++) { /* keys up to the first PAD */
        int n = 0;
        while (n < Ts && src[b * Ts + n] != SX_TOKEN_PAD) n++;
        m->klen[b] = n;
    }
    int st = sx_nn_embedding_forward(a[A_E_X], src, p[P_WTE], m->pe, m->escale, B, Ts, C, m->V);
    if (st != SX_OK) return st;
    if (m->emb_src) /* explain.c: given token embeddings, the same positions */
        for (int b = 0; b < B; b++)
            for (int t = 0; t < Ts; t++)
                for (int c = 0; c < C; c++)
                    a[A_E_X][((size_t)b * Ts + t) * C + c] =
                        m->emb_src[((size_t)b * Ts + t) * C + c] + m->pe[(size_t)t * C + c];
    for (int l = 0; l < L; l++) {
        const sx_nn_attn_cfg ac = attn_cfg(m, SX_MODEL_ENC_SELF, l);
        float *x = a[A_E_X] + 2 * l * NC, *x2 = x + NC, *x3 = x2 + NC;
        float *ln1 = a[A_E_LN1] + l * NC, *qkv = a[A_E_QKV] + 3 * l * NC, *y = a[A_E_Y] + l * NC;
        const size_t mo = map_off(m, l, B, Ts, Ts);
        sx_nn_layernorm_forward(ln1, a[A_E_LN1_M] + l * N, a[A_E_LN1_R] + l * N, x,
                                p[P_E_LN1_W] + l * C, p[P_E_LN1_B] + l * C, N, C);
        sx_nn_linear_forward(qkv, ln1, p[P_E_QKV_W] + (size_t)l * C * 3 * C,
                             p[P_E_QKV_B] + l * 3 * C, N, C, 3 * C);
        st = sx_nn_attention_forward(y, a[A_E_SCORE] + mo, m->span ? a[A_E_PROB] + mo : NULL,
                                     a[A_E_ATT] + mo, qkv, 3 * C, qkv + C, qkv + 2 * C, 3 * C,
                                     p[P_ALPHA] + (0 * L + l) * m->NH,
                                     p[P_SPAN] + (0 * L + l) * m->NH, m->klen, B, Ts, Ts, &ac);
        if (st != SX_OK) return st;
        sx_nn_linear_forward(tmp, y, p[P_E_O_W] + (size_t)l * C * C, p[P_E_O_B] + l * C, N, C, C);
        sx_nn_residual_forward(x2, x, tmp, NC);
        ffn_forward(m, x3, a[A_E_LN2] + l * NC, a[A_E_LN2_M] + l * N, a[A_E_LN2_R] + l * N,
                    a[A_E_FCH] + (size_t)l * N * F, a[A_E_FCA] + (size_t)l * N * F, x2,
                    p[P_E_LN2_W] + l * C, p[P_E_LN2_B] + l * C, p[P_E_FC_W] + (size_t)l * C * F,
                    p[P_E_FC_B] + l * F, p[P_E_PROJ_W] + (size_t)l * F * C, p[P_E_PROJ_B] + l * C,
                    N);
    }
    sx_nn_layernorm_forward(a[A_E_OUT], a[A_E_OUT_M], a[A_E_OUT_R], a[A_E_X] + 2 * L * NC,
                            p[P_ELNF_W], p[P_ELNF_B], N, C);
    return SX_OK;
}

/* The cross-attention sub-layer of decoder layer l: x3 = x2 + co(attn(q(ln2(x2)), kv(enc_out))). */
static int cross_forward(sx_model *m, float *x3, const float *x2, int l, int B, int Ts, int Tt) {
    const int C = m->C, N = B * Tt, Ns = B * Ts;
    const size_t NC = (size_t)N * C;
    float **a = m->a, **p = m->p, *tmp = m->a[A_G_TMP];
    const sx_nn_attn_cfg cc = attn_cfg(m, SX_MODEL_CROSS, l);
    float *ln2 = a[A_D_LN2] + l * NC, *q = a[A_D_Q] + l * NC, *cy = a[A_D_CY] + l * NC;
    float *kv = a[A_D_KV] + (size_t)l * Ns * 2 * C;
    const size_t co = map_off(m, l, B, Tt, Ts);
    sx_nn_layernorm_forward(ln2, a[A_D_LN2_M] + l * N, a[A_D_LN2_R] + l * N, x2,
                            p[P_D_LN2_W] + l * C, p[P_D_LN2_B] + l * C, N, C);
    sx_nn_linear_forward(q, ln2, p[P_D_Q_W] + (size_t)l * C * C, p[P_D_Q_B] + l * C, N, C, C);
    sx_nn_linear_forward(kv, a[A_E_OUT], p[P_D_KV_W] + (size_t)l * C * 2 * C,
                         p[P_D_KV_B] + l * 2 * C, Ns, C, 2 * C);
    int st = sx_nn_attention_forward(cy, a[A_C_SCORE] + co, NULL, a[A_C_ATT] + co, q, C, kv,
                                     kv + C, 2 * C, p[P_ALPHA] + (2 * m->L + l) * m->NH, NULL,
                                     m->klen, B, Tt, Ts, &cc);
    if (st != SX_OK) return st;
    sx_nn_linear_forward(tmp, cy, p[P_D_CO_W] + (size_t)l * C * C, p[P_D_CO_B] + l * C, N, C, C);
    sx_nn_residual_forward(x3, x2, tmp, NC);
    return SX_OK;
}

/* Decoder over m->din (B, Tt) against the encoder output of (B, Ts) (none when decoder-only):
   logits. Layer l's residual stream: x (input), x2 (after self-attention), x3 (after
   cross-attention; x2 itself when decoder-only), then the FFN's output, the next layer's x. */
static int decoder_forward(sx_model *m, int B, int Ts, int Tt) {
    const int C = m->C, L = m->L, F = m->F, N = B * Tt;
    const size_t NC = (size_t)N * C;
    float **a = m->a, **p = m->p, *tmp = m->a[A_G_TMP];
    int st = sx_nn_embedding_forward(a[A_D_X], m->din, p[P_WTE], m->pe, m->escale, B, Tt, C, m->V);
    if (st != SX_OK) return st;
    for (int l = 0; l < L; l++) {
        const sx_nn_attn_cfg sc = attn_cfg(m, SX_MODEL_DEC_SELF, l);
        float *x = a[A_D_X] + (size_t)m->dsub * l * NC, *x2 = x + NC;
        float *x3 = m->gpt ? x2 : x2 + NC, *x4 = x3 + NC;
        float *ln1 = a[A_D_LN1] + l * NC, *qkv = a[A_D_QKV] + 3 * l * NC, *y = a[A_D_Y] + l * NC;
        const size_t mo = map_off(m, l, B, Tt, Tt);
        /* causal self-attention */
        sx_nn_layernorm_forward(ln1, a[A_D_LN1_M] + l * N, a[A_D_LN1_R] + l * N, x,
                                p[P_D_LN1_W] + l * C, p[P_D_LN1_B] + l * C, N, C);
        sx_nn_linear_forward(qkv, ln1, p[P_D_QKV_W] + (size_t)l * C * 3 * C,
                             p[P_D_QKV_B] + l * 3 * C, N, C, 3 * C);
        st = sx_nn_attention_forward(y, a[A_D_SCORE] + mo, m->span ? a[A_D_PROB] + mo : NULL,
                                     a[A_D_ATT] + mo, qkv, 3 * C, qkv + C, qkv + 2 * C, 3 * C,
                                     p[P_ALPHA] + (1 * L + l) * m->NH,
                                     p[P_SPAN] + (1 * L + l) * m->NH, NULL, B, Tt, Tt, &sc);
        if (st != SX_OK) return st;
        sx_nn_linear_forward(tmp, y, p[P_D_O_W] + (size_t)l * C * C, p[P_D_O_B] + l * C, N, C, C);
        sx_nn_residual_forward(x2, x, tmp, NC);
        if (!m->gpt && (st = cross_forward(m, x3, x2, l, B, Ts, Tt)) != SX_OK) return st;
        ffn_forward(m, x4, a[A_D_LN3] + l * NC, a[A_D_LN3_M] + l * N, a[A_D_LN3_R] + l * N,
                    a[A_D_FCH] + (size_t)l * N * F, a[A_D_FCA] + (size_t)l * N * F, x3,
                    p[P_D_LN3_W] + l * C, p[P_D_LN3_B] + l * C, p[P_D_FC_W] + (size_t)l * C * F,
                    p[P_D_FC_B] + l * F, p[P_D_PROJ_W] + (size_t)l * F * C, p[P_D_PROJ_B] + l * C,
                    N);
    }
    sx_nn_layernorm_forward(a[A_D_OUT], a[A_D_OUT_M], a[A_D_OUT_R],
                            a[A_D_X] + (size_t)m->dsub * L * NC, p[P_DLNF_W], p[P_DLNF_B], N, C);
    sx_nn_linear_forward(a[A_LOGITS], a[A_D_OUT], p[P_OUT_W], p[P_OUT_B], N, C, m->V);
    /* The policy for a model whose finite weights overflow float32 arithmetic (a crafted or
       diverged checkpoint): every call that runs the decoder (forward, loss, generate, a
       training step) fails here, with the same error, instead of returning Infinity or NaN
       logits (or, in generate, tokens chosen among NaNs). */
    const float *lg = a[A_LOGITS];
    for (size_t i = 0, nl = (size_t)N * m->V; i < nl; i++)
        if (!(lg[i] > -INFINITY && lg[i] < INFINITY))
            return sx__fail(SX_ENONFINITE, -1, "the model's logits are not finite (logit %d is %g): "
                            "its weights overflow float32 arithmetic", (int)i, (double)lg[i]);
    m->B = B;
    m->Ts = Ts;
    m->Tt = Tt;
    return SX_OK;
}

/* The source of a call: token rows for an encoder-decoder model, none (NULL, 0) for a
   decoder-only one. */
static int check_src(const sx_model *m, const char *fn, const int *src, int Ts, int count) {
    if (!m->gpt) return check_tokens(m, fn, "src", src, Ts, count, 1);
    if (src || Ts)
        return sx__fail(SX_EINVAL, -1, "%s: a decoder-only model takes no source (src must be "
                        "NULL and src_len 0, got src_len %d)", fn, Ts);
    return SX_OK;
}

/* The encoder (unless decoder-only) and the decoder over m->din (B, Tt); ends any open
   sx_model_lm_step rows (the passes share the activations). */
static int run_forward(sx_model *m, const int *src, int B, int Ts, int Tt) {
    m->B = 0;
    m->lm_B = 0;
    const int st = m->gpt ? SX_OK : encoder_forward(m, src, B, Ts);
    return st == SX_OK ? decoder_forward(m, B, Ts, Tt) : st;
}

int sx_model_forward(sx_model *m, const int *src, int src_len, const int *tgt_in, int tgt_len,
                     int count) {
    static const char fn[] = "model_forward";
    int st = check_call(m, fn, count);
    if (st == SX_OK) st = check_src(m, fn, src, src_len, count);
    if (st == SX_OK) st = check_tokens(m, fn, "tgt", tgt_in, tgt_len, count, 1);
    if (st != SX_OK) return st;
    memcpy(m->din, tgt_in, (size_t)count * tgt_len * sizeof(int));
    return run_forward(m, src, count, src_len, tgt_len);
}

/* The output layer's loss over N rows of logits and labels, averaged over the labels, and
   a[A_PROBS] = p on every labelled row (a PAD row's is 0 but for softmax), from which the
   backward pass takes the gradient (p - onehot) / labels, as cross-entropy's: for softmax
   outputs the cross-entropy; otherwise the Fenchel-Young loss of the output mapping
   (losses.c: p - onehot, made p again; the rows' losses pass through a[A_G_LOGITS], which the
   backward pass overwrites). */
SX_COLD_FN __attribute__((noinline)) static int output_loss(sx_model *m, float *loss, int N) {
    float *probs = m->a[A_PROBS], *rows = m->a[A_G_LOGITS];
    if (m->out_map == SX_MAP_SOFTMAX)
        return sx_nn_crossentropy_forward(loss, probs, m->a[A_LOGITS], m->labels, N, m->V, -1);
    const int st = sx_fy_loss_index(rows, probs, NULL, m->a[A_LOGITS], m->labels, N, m->V,
                                    m->out_map, m->out_alpha, 1.0f);
    double sum = 0.0;
    int count = 0;
    for (int n = 0; n < N; n++)
        if (m->labels[n] >= 0) {
            sum += rows[n];
            count++;
            probs[(size_t)n * m->V + m->labels[n]] += 1.0f;
        }
    *loss = count ? (float)(sum / count) : 0.0f;
    return st;
}

/* The span parameters of the self-attention heads that exist (encoder and decoder; the
   decoder's when decoder-only) in the block `blk` (m->p or m->g), and their count. */
static float *span_z(const sx_model *m, float **blk) {
    return blk[P_SPAN] + (m->gpt ? (size_t)SX_MODEL_DEC_SELF * m->L * m->NH : 0);
}
static int span_heads(const sx_model *m) { return (m->gpt ? 1 : 2) * m->L * m->NH; }

/* Forward on full target rows with the loss (cross-entropy + span penalty, the penalty's
   gradient accumulated when grads is set). */
static int loss_forward(sx_model *m, float *loss, const int *src, int Ts, const int *tgt,
                        int len, int B, const char *fn) {
    int st = check_call(m, fn, B);
    if (st == SX_OK) st = check_src(m, fn, src, Ts, B);
    if (st == SX_OK) st = check_tokens(m, fn, "tgt", tgt, len, B, 2);
    if (st != SX_OK) return st;
    const int Tt = len - 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < Tt; t++) {
            m->din[b * Tt + t] = tgt[b * len + t];
            const int y = tgt[b * len + t + 1];
            m->labels[b * Tt + t] = y == SX_TOKEN_PAD ? -1 : y;
        }
    st = run_forward(m, src, B, Ts, Tt);
    if (st != SX_OK) return st;
    float ce = 0.0f;
    st = output_loss(m, &ce, B * Tt);
    if (st != SX_OK) return st;
    double total = ce;
    if (m->span) /* the self-attention heads: encoder and decoder, or the decoder's */
        total += sx_nn_span_penalty(NULL, span_z(m, m->p), span_heads(m),
                                    m->fcfg[SX_MODEL_F_SPAN_PENALTY]);
    if (loss) *loss = (float)total;
    return SX_OK;
}

int sx_model_loss(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                  int tgt_len, int count) {
    return loss_forward(m, loss, src, src_len, tgt, tgt_len, count, "model_loss");
}

/* ================================================================ backward */
/* Backward of the feed-forward sub-layer; dx holds d x_out and receives d x (accumulated). */
static void ffn_backward(const sx_model *m, float *dx, float *dln_w, float *dln_b, float *dfc_w,
                         float *dfc_b, float *dproj_w, float *dproj_b, const float *x,
                         const float *ln, const float *ln_m, const float *ln_r, const float *fch,
                         const float *fca, const float *ln_w, const float *fc_w,
                         const float *proj_w, int N) {
    const int C = m->C, F = m->F;
    float *dfca = m->a[A_G_FCA], *dfch = m->a[A_G_FCH], *dln = m->a[A_G_LN];
    memset(dfca, 0, (size_t)N * F * sizeof(float));
    memset(dfch, 0, (size_t)N * F * sizeof(float));
    memset(dln, 0, (size_t)N * C * sizeof(float));
    sx_nn_linear_backward(dfca, dproj_w, dproj_b, dx, fca, proj_w, N, F, C);
    act_backward(m, dfch, fch, dfca, (size_t)N * F);
    sx_nn_linear_backward(dln, dfc_w, dfc_b, dfch, ln, fc_w, N, C, F);
    sx_nn_layernorm_backward(dx, dln_w, dln_b, dln, x, ln_w, ln_m, ln_r, N, C);
}

/* Backward of a self-attention sub-layer x_out = x + o(attn(qkv(ln(x)))); dx as above. */
static int self_backward(sx_model *m, float *dx, int kind, int l, int B, int T, const float *x,
                         float *dln_w, float *dln_b, float *dqkv_w, float *dqkv_b, float *do_w,
                         float *do_b, const float *ln, const float *ln_m, const float *ln_r,
                         const float *qkv, const float *score, const float *prob,
                         const float *att, const float *y, const float *ln_w,
                         const float *qkv_w, const float *o_w, const int *klen) {
    const int C = m->C, N = B * T, L = m->L;
    const sx_nn_attn_cfg ac = attn_cfg(m, kind, l);
    float *dy = m->a[A_G_Y], *dqkv = m->a[A_G_QKV], *dln = m->a[A_G_LN];
    memset(dy, 0, (size_t)N * C * sizeof(float));
    memset(dqkv, 0, (size_t)N * 3 * C * sizeof(float));
    memset(dln, 0, (size_t)N * C * sizeof(float));
    sx_nn_linear_backward(dy, do_w, do_b, dx, y, o_w, N, C, C);
    const size_t h0 = (size_t)(kind * L + l) * m->NH;
    int st = sx_nn_attention_backward(dqkv, dqkv + C, dqkv + 2 * C, m->g[P_ALPHA] + h0,
                                      m->g[P_SPAN] + h0, m->a[A_G_ATT], dy, score, prob, att, qkv,
                                      3 * C, qkv + C, qkv + 2 * C, 3 * C, m->p[P_ALPHA] + h0,
                                      m->p[P_SPAN] + h0, klen, B, T, T, &ac);
    if (st != SX_OK) return st;
    sx_nn_linear_backward(dln, dqkv_w, dqkv_b, dqkv, ln, qkv_w, N, C, 3 * C);
    sx_nn_layernorm_backward(dx, dln_w, dln_b, dln, x, ln_w, ln_m, ln_r, N, C);
    return SX_OK;
}

/* Backward of decoder layer l's cross-attention sub-layer; dres holds d x3 and receives d x2
   (accumulated); d enc_out accumulates in a[A_G_EOUT]. */
static int cross_backward(sx_model *m, float *dres, const float *x2, int l, int B, int Ts,
                          int Tt) {
    const int C = m->C, N = B * Tt, Ns = B * Ts;
    const size_t NC = (size_t)N * C, NsC = (size_t)Ns * C;
    float **a = m->a, **p = m->p, **g = m->g;
    const sx_nn_attn_cfg cc = attn_cfg(m, SX_MODEL_CROSS, l);
    float *dy = a[A_G_Y], *dq = a[A_G_TMP], *dkv = a[A_G_KV], *dln = a[A_G_LN];
    const float *q = a[A_D_Q] + l * NC, *kv = a[A_D_KV] + (size_t)l * Ns * 2 * C;
    const size_t h0 = (size_t)(2 * m->L + l) * m->NH, co = map_off(m, l, B, Tt, Ts);
    memset(dy, 0, NC * sizeof(float));
    memset(dq, 0, NC * sizeof(float));
    memset(dkv, 0, NsC * 2 * sizeof(float));
    memset(dln, 0, NC * sizeof(float));
    sx_nn_linear_backward(dy, g[P_D_CO_W] + (size_t)l * C * C, g[P_D_CO_B] + l * C, dres,
                          a[A_D_CY] + l * NC, p[P_D_CO_W] + (size_t)l * C * C, N, C, C);
    int st = sx_nn_attention_backward(dq, dkv, dkv + C, g[P_ALPHA] + h0, NULL, a[A_G_ATT], dy,
                                      a[A_C_SCORE] + co, NULL, a[A_C_ATT] + co, q, C, kv, kv + C,
                                      2 * C, p[P_ALPHA] + h0, NULL, m->klen, B, Tt, Ts, &cc);
    if (st != SX_OK) return st;
    sx_nn_linear_backward(a[A_G_EOUT], g[P_D_KV_W] + (size_t)l * C * 2 * C,
                          g[P_D_KV_B] + l * 2 * C, dkv, a[A_E_OUT],
                          p[P_D_KV_W] + (size_t)l * C * 2 * C, Ns, C, 2 * C);
    sx_nn_linear_backward(dln, g[P_D_Q_W] + (size_t)l * C * C, g[P_D_Q_B] + l * C, dq,
                          a[A_D_LN2] + l * NC, p[P_D_Q_W] + (size_t)l * C * C, N, C, C);
    sx_nn_layernorm_backward(dres, g[P_D_LN2_W] + l * C, g[P_D_LN2_B] + l * C, dln, x2,
                             p[P_D_LN2_W] + l * C, a[A_D_LN2_M] + l * N, a[A_D_LN2_R] + l * N,
                             N, C);
    return SX_OK;
}

/* Backward of the decoder from d logits in a[A_G_LOGITS] down to the token embeddings. */
static int decoder_backward(sx_model *m) {
    const int B = m->B, Ts = m->Ts, Tt = m->Tt, C = m->C, L = m->L, F = m->F, V = m->V;
    const int N = B * Tt;
    const size_t NC = (size_t)N * C;
    float **a = m->a, **p = m->p, **g = m->g;
    float *dres = a[A_G_RES], *dtmp = a[A_G_TMP];
    memset(dtmp, 0, NC * sizeof(float));
    memset(dres, 0, NC * sizeof(float));
    sx_nn_linear_backward(dtmp, g[P_OUT_W], g[P_OUT_B], a[A_G_LOGITS], a[A_D_OUT], p[P_OUT_W], N,
                          C, V);
    sx_nn_layernorm_backward(dres, g[P_DLNF_W], g[P_DLNF_B], dtmp,
                             a[A_D_X] + (size_t)m->dsub * L * NC, p[P_DLNF_W], a[A_D_OUT_M],
                             a[A_D_OUT_R], N, C);
    for (int l = L - 1; l >= 0; l--) { /* last layer first */
        const float *x = a[A_D_X] + (size_t)m->dsub * l * NC, *x2 = x + NC;
        const float *x3 = m->gpt ? x2 : x2 + NC;
        const size_t mo = map_off(m, l, B, Tt, Tt);
        ffn_backward(m, dres, g[P_D_LN3_W] + l * C, g[P_D_LN3_B] + l * C,
                     g[P_D_FC_W] + (size_t)l * C * F, g[P_D_FC_B] + l * F,
                     g[P_D_PROJ_W] + (size_t)l * F * C, g[P_D_PROJ_B] + l * C, x3,
                     a[A_D_LN3] + l * NC, a[A_D_LN3_M] + l * N, a[A_D_LN3_R] + l * N,
                     a[A_D_FCH] + (size_t)l * N * F, a[A_D_FCA] + (size_t)l * N * F,
                     p[P_D_LN3_W] + l * C, p[P_D_FC_W] + (size_t)l * C * F,
                     p[P_D_PROJ_W] + (size_t)l * F * C, N);
        int st = m->gpt ? SX_OK : cross_backward(m, dres, x2, l, B, Ts, Tt);
        if (st == SX_OK)
            st = self_backward(m, dres, SX_MODEL_DEC_SELF, l, B, Tt, x, g[P_D_LN1_W] + l * C,
                               g[P_D_LN1_B] + l * C, g[P_D_QKV_W] + (size_t)l * C * 3 * C,
                               g[P_D_QKV_B] + l * 3 * C, g[P_D_O_W] + (size_t)l * C * C,
                               g[P_D_O_B] + l * C, a[A_D_LN1] + l * NC, a[A_D_LN1_M] + l * N,
                               a[A_D_LN1_R] + l * N, a[A_D_QKV] + 3 * l * NC, a[A_D_SCORE] + mo,
                               m->span ? a[A_D_PROB] + mo : NULL, a[A_D_ATT] + mo,
                               a[A_D_Y] + l * NC, p[P_D_LN1_W] + l * C,
                               p[P_D_QKV_W] + (size_t)l * C * 3 * C,
                               p[P_D_O_W] + (size_t)l * C * C, NULL);
        if (st != SX_OK) return st;
    }
    sx_nn_embedding_backward(g[P_WTE], dres, m->din, m->escale, B, Tt, C);
    return SX_OK;
}

/* Backward of the encoder from d enc_out in a[A_G_EOUT]; d (its input embeddings) (B, Ts, C)
   copied to d_emb when it is not NULL. */
static int encoder_backward(sx_model *m, const int *src, float *d_emb) {
    const int B = m->B, Ts = m->Ts, C = m->C, L = m->L, F = m->F, Ns = B * Ts;
    const size_t NsC = (size_t)Ns * C;
    float **a = m->a, **p = m->p, **g = m->g, *dres = a[A_G_RES];
    memset(dres, 0, NsC * sizeof(float));
    sx_nn_layernorm_backward(dres, g[P_ELNF_W], g[P_ELNF_B], a[A_G_EOUT], a[A_E_X] + 2 * L * NsC,
                             p[P_ELNF_W], a[A_E_OUT_M], a[A_E_OUT_R], Ns, C);
    for (int l = L - 1; l >= 0; l--) {
        const float *x = a[A_E_X] + 2 * l * NsC, *x2 = x + NsC;
        const size_t mo = map_off(m, l, B, Ts, Ts);
        ffn_backward(m, dres, g[P_E_LN2_W] + l * C, g[P_E_LN2_B] + l * C,
                     g[P_E_FC_W] + (size_t)l * C * F, g[P_E_FC_B] + l * F,
                     g[P_E_PROJ_W] + (size_t)l * F * C, g[P_E_PROJ_B] + l * C, x2,
                     a[A_E_LN2] + l * NsC, a[A_E_LN2_M] + l * Ns, a[A_E_LN2_R] + l * Ns,
                     a[A_E_FCH] + (size_t)l * Ns * F, a[A_E_FCA] + (size_t)l * Ns * F,
                     p[P_E_LN2_W] + l * C, p[P_E_FC_W] + (size_t)l * C * F,
                     p[P_E_PROJ_W] + (size_t)l * F * C, Ns);
        const int st = self_backward(m, dres, SX_MODEL_ENC_SELF, l, B, Ts, x, g[P_E_LN1_W] + l * C,
                           g[P_E_LN1_B] + l * C, g[P_E_QKV_W] + (size_t)l * C * 3 * C,
                           g[P_E_QKV_B] + l * 3 * C, g[P_E_O_W] + (size_t)l * C * C,
                           g[P_E_O_B] + l * C, a[A_E_LN1] + l * NsC, a[A_E_LN1_M] + l * Ns,
                           a[A_E_LN1_R] + l * Ns, a[A_E_QKV] + 3 * l * NsC, a[A_E_SCORE] + mo,
                           m->span ? a[A_E_PROB] + mo : NULL, a[A_E_ATT] + mo, a[A_E_Y] + l * NsC,
                           p[P_E_LN1_W] + l * C, p[P_E_QKV_W] + (size_t)l * C * 3 * C,
                           p[P_E_O_W] + (size_t)l * C * C, m->klen);
        if (st != SX_OK) return st;
    }
    if (d_emb) memcpy(d_emb, dres, NsC * sizeof(float));
    sx_nn_embedding_backward(g[P_WTE], dres, src, m->escale, B, Ts, C);
    return SX_OK;
}

/* Gradient of the loss of the last loss_forward into m->grads (zeroed here); or, with seed
   (B, V), of f = sum_b <seed[b], logits[b][step]> after a forward pass, with d f / d (the
   encoder's input embeddings) (B, Ts, C) copied to d_emb when it is not NULL. */
static int model_backward(sx_model *m, const int *src, const float *seed, int step, float *d_emb) {
    const int B = m->B, Tt = m->Tt, N = B * Tt, V = m->V;
    float **a = m->a;
    memset(m->grads, 0, m->n_params * sizeof(float));
    if (m->span && !seed)
        sx_nn_span_penalty(span_z(m, m->g), span_z(m, m->p), span_heads(m),
                           m->fcfg[SX_MODEL_F_SPAN_PENALTY]);
    memset(a[A_G_LOGITS], 0, (size_t)N * V * sizeof(float));
    if (!m->gpt) memset(a[A_G_EOUT], 0, (size_t)B * m->Ts * m->C * sizeof(float));
    if (!seed) /* the output mapping's p from output_loss: (p - onehot) / labels */
        sx_nn_crossentropy_backward(a[A_G_LOGITS], a[A_PROBS], m->labels, N, V, -1, 1.0f);
    else
        for (int b = 0; b < B; b++)
            memcpy(a[A_G_LOGITS] + ((size_t)b * Tt + step) * V, seed + (size_t)b * V,
                   (size_t)V * sizeof(float));
    int st = decoder_backward(m);
    if (st == SX_OK && !m->gpt) st = encoder_backward(m, src, d_emb);
    return st;
}

int sx_model_backward(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                      int tgt_len, int count) {
    int st = loss_forward(m, loss, src, src_len, tgt, tgt_len, count, "model_backward");
    if (st == SX_OK) st = model_backward(m, src, NULL, 0, NULL);
    return st;
}

/* ================================================================ training */
int sx_model_train_step(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                        int tgt_len, int count, float lr) {
    static const char fn[] = "model_train_step";
    if (m && !(lr >= 0.0f && lr < INFINITY))
        return sx__fail(SX_EINVAL, -1, "%s: lr must be finite and >= 0 (got %g)", fn, (double)lr);
    int st = loss_forward(m, loss, src, src_len, tgt, tgt_len, count, fn);
    if (st == SX_OK) st = model_backward(m, src, NULL, 0, NULL);
    if (st != SX_OK) return st;
    /* Adam at lr, alpha_a at lr * alpha_lr, one global clip (layers.c) */
    const size_t na = m->p_size[P_ALPHA];
    const float norm = sx_nn_adam_two_rates(m->params, m->adam_m, m->adam_v, m->grads,
                                            m->n_params - na, na, &m->step, lr,
                                            m->fcfg[SX_MODEL_F_ALPHA_LR], m->fcfg[SX_MODEL_F_CLIP]);
    if (!(norm < INFINITY))
        return sx__fail(SX_ENONFINITE, -1, "%s: gradient norm is %g (diverged)", fn, (double)norm);
    sx_nn_span_clamp(m->p[P_SPAN], 3 * m->L * m->NH);
    return SX_OK;
}

/* ================================================================ decoding */
/* Incremental decoding (the KV cache). Step t runs the decoder for position t of every row
   only: its layernorms, the q/k/v projection of that one position (k and v appended to the
   cache), the self-attention of its one query over the t + 1 cached keys, the cross-attention
   of that query over the source (the kv projection of the encoder output computed once per
   generate), the FFN and the output head: O(t) per step instead of a decoder pass over
   positions 0..t. The cache and the per-step rows live in the decoder's activation buffers
   (nothing is allocated), laid out as a pass of Tc = out_len positions would be:
     cache    a[A_D_QKV] (L, B, Tc, 3C): q, k, v of every decoded position (k, v are the cache)
     cross kv a[A_D_KV] (L, B, Ts, 2C), as the full pass
     maps     a[A_D_ATT], A_D_SCORE, A_D_PROB (L, B, NH, Tc, Tc); a[A_C_ATT], A_C_SCORE
              (L, B, NH, Tc, Ts): step t fills row t
     logits   a[A_LOGITS] (B, Tc, V): step t fills row t
     one row  x (the residual stream), ln, y, q, cy, fch, fca, out: (B, C) or (B, F) at the
              start of the decoder buffers
   generate then compacts maps and logits to the shapes of a pass over `steps` positions, which
   is what sx_model_attention and sx_model_logits read. Each row is what a full pass over
   positions 0..t computes for its last row, from cached keys and values that the longer full
   passes recompute with masked trailing entries in their rows (rounding: see nn.h's
   sx_nn_attention_row_forward; tests/c/test_kvcache.c measures it). */
/* The cross-attention of step t: one query of each row over its source; x (B, C) in place. */
static int cross_step(sx_model *m, float *x, int l, int B, int Ts, int Tc, int t) {
    const int C = m->C, Ns = B * Ts;
    float **a = m->a, **p = m->p, *tmp = m->a[A_G_TMP];
    float *ln = a[A_D_LN1], *ln_m = a[A_D_LN1_M], *ln_r = a[A_D_LN1_R];
    float *q = a[A_D_Q], *cy = a[A_D_CY];
    const sx_nn_attn_cfg cc = attn_cfg(m, SX_MODEL_CROSS, l);
    const float *kv = a[A_D_KV] + (size_t)l * Ns * 2 * C; /* (B, Ts, 2C) */
    const size_t co = map_off(m, l, B, Tc, Ts) + (size_t)t * Ts;
    sx_nn_layernorm_forward(ln, ln_m, ln_r, x, p[P_D_LN2_W] + l * C, p[P_D_LN2_B] + l * C, B, C);
    sx_nn_linear_forward(q, ln, p[P_D_Q_W] + (size_t)l * C * C, p[P_D_Q_B] + l * C, B, C, C);
    const int st = sx_nn_attention_row_forward(cy, a[A_C_SCORE] + co, NULL, a[A_C_ATT] + co,
                                               (size_t)Tc * Ts, Ts, q, C, kv, kv + C, 2 * C,
                                               (size_t)Ts * 2 * C,
                                               p[P_ALPHA] + (2 * m->L + l) * m->NH, NULL, m->klen,
                                               B, t, Ts, &cc);
    if (st != SX_OK) return st;
    sx_nn_linear_forward(tmp, cy, p[P_D_CO_W] + (size_t)l * C * C, p[P_D_CO_B] + l * C, B, C, C);
    sx_nn_residual_forward(x, x, tmp, (size_t)B * C);
    return SX_OK;
}

static int decoder_step(sx_model *m, const int *tok, int B, int Ts, int Tc, int t) {
    const int C = m->C, L = m->L, V = m->V;
    const size_t BC = (size_t)B * C;
    float **a = m->a, **p = m->p, *tmp = m->a[A_G_TMP];
    float *x = a[A_D_X], *ln = a[A_D_LN1], *ln_m = a[A_D_LN1_M], *ln_r = a[A_D_LN1_R];
    float *y = a[A_D_Y];
    int st = sx_nn_embedding_forward(x, tok, p[P_WTE], m->pe + (size_t)t * C, m->escale, B, 1, C,
                                     V);
    if (st != SX_OK) return st;
    for (int l = 0; l < L; l++) {
        const sx_nn_attn_cfg sc = attn_cfg(m, SX_MODEL_DEC_SELF, l);
        float *qkv = a[A_D_QKV] + (size_t)l * B * Tc * 3 * C; /* (B, Tc, 3C) */
        const size_t mo = map_off(m, l, B, Tc, Tc) + (size_t)t * Tc;
        /* causal self-attention: one query over the t + 1 cached keys */
        sx_nn_layernorm_forward(ln, ln_m, ln_r, x, p[P_D_LN1_W] + l * C, p[P_D_LN1_B] + l * C, B, C);
        sx_nn_matmul(qkv + (size_t)t * 3 * C, Tc * 3 * C, ln, C, 0,
                     p[P_D_QKV_W] + (size_t)l * C * 3 * C, 3 * C, 0, p[P_D_QKV_B] + l * 3 * C, B,
                     3 * C, C, 0);
        st = sx_nn_attention_row_forward(y, a[A_D_SCORE] + mo, m->span ? a[A_D_PROB] + mo : NULL,
                                         a[A_D_ATT] + mo, (size_t)Tc * Tc, Tc,
                                         qkv + (size_t)t * 3 * C, Tc * 3 * C, qkv + C, qkv + 2 * C,
                                         3 * C,
                                         (size_t)Tc * 3 * C, p[P_ALPHA] + (1 * L + l) * m->NH,
                                         p[P_SPAN] + (1 * L + l) * m->NH, NULL, B, t, t + 1, &sc);
        if (st != SX_OK) return st;
        sx_nn_linear_forward(tmp, y, p[P_D_O_W] + (size_t)l * C * C, p[P_D_O_B] + l * C, B, C, C);
        sx_nn_residual_forward(x, x, tmp, BC);
        if (!m->gpt && (st = cross_step(m, x, l, B, Ts, Tc, t)) != SX_OK) return st;
        ffn_forward(m, x, ln, ln_m, ln_r, a[A_D_FCH], a[A_D_FCA], x, p[P_D_LN3_W] + l * C,
                    p[P_D_LN3_B] + l * C, p[P_D_FC_W] + (size_t)l * C * m->F, p[P_D_FC_B] + l * m->F,
                    p[P_D_PROJ_W] + (size_t)l * m->F * C, p[P_D_PROJ_B] + l * C, B);
    }
    sx_nn_layernorm_forward(a[A_D_OUT], a[A_D_OUT_M], a[A_D_OUT_R], x, p[P_DLNF_W], p[P_DLNF_B],
                            B, C);
    float *lg = a[A_LOGITS] + (size_t)t * V; /* row t of (B, Tc, V) */
    sx_nn_matmul(lg, Tc * V, a[A_D_OUT], C, 0, p[P_OUT_W], V, 0, p[P_OUT_B], B, V, C, 0);
    for (int b = 0; b < B; b++) /* as decoder_forward's policy */
        for (int v = 0; v < V; v++) {
            const float z = lg[(size_t)b * Tc * V + v];
            if (!(z > -INFINITY && z < INFINITY))
                return sx__fail(SX_ENONFINITE, -1, "the model's logits are not finite (logit %d is "
                                "%g): its weights overflow float32 arithmetic",
                                (int)(((size_t)b * (t + 1) + t) * V + v), (double)z);
        }
    return SX_OK;
}

/* (n_blocks, R0, W0) rows of W0 floats -> (n_blocks, R, W), in place (R <= R0, W <= W0): each
   destination lies at or before its source and after every destination before it. */
static void compact_rows(float *x, int n_blocks, int R0, int W0, int R, int W) {
    for (int k = 0; k < n_blocks; k++)
        for (int i = 0; i < R; i++)
            memmove(x + ((size_t)k * R + i) * W, x + ((size_t)k * R0 + i) * W0, (size_t)W * sizeof(float));
}

/* Choose out[:, t] from the logits of position t - 1 (row stride ld rows of V); returns the number
   of rows still open. */
static int greedy_pick(const sx_model *m, int *out, int out_len, int count, int t, const float *lg,
                       int ld) {
    int open = 0;
    for (int b = 0; b < count; b++) {
        const int prev = out[b * out_len + t - 1];
        if (t > 1 && (prev == SX_TOKEN_EOS || prev == SX_TOKEN_PAD)) continue; /* done */
        const float *lg_b = lg + (size_t)b * ld * m->V;
        int best = SX_TOKEN_EOS; /* never PAD or BOS: rows stay BOS, tokens, EOS, PAD */
        for (int v = SX_TOKEN_EOS + 1; v < m->V; v++) best = lg_b[v] > lg_b[best] ? v : best;
        out[b * out_len + t] = best;
        open += best != SX_TOKEN_EOS;
    }
    return open;
}

int sx_model_generate_v2(sx_model *m, int *out, int out_len, const int *src, int src_len,
                         int count, int flags) {
    static const char fn[] = "model_generate";
    int st = check_call(m, fn, count);
    if (st == SX_OK && m->gpt)
        st = sx__fail(SX_EINVAL, -1, "%s: a decoder-only model generates with model_lm_step", fn);
    if (st == SX_OK) st = check_tokens(m, fn, "src", src, src_len, count, 1);
    if (st != SX_OK) return st;
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    if (out_len < 2 || out_len > m->T)
        return sx__fail(SX_EINVAL, -1, "%s: out_len must be in [2, max_len %d] (got %d)", fn, m->T,
                        out_len);
    if (flags & ~SX_GENERATE_FULL)
        return sx__fail(SX_EINVAL, -1, "%s: flags must be 0 or SX_GENERATE_FULL (%d) (got %d)", fn,
                        SX_GENERATE_FULL, flags);
    m->B = 0;
    m->lm_B = 0;
    st = encoder_forward(m, src, count, src_len);
    if (st != SX_OK) return st;
    for (int i = 0; i < count * out_len; i++) out[i] = SX_TOKEN_PAD;
    for (int b = 0; b < count; b++) out[b * out_len] = SX_TOKEN_BOS;
    if (flags & SX_GENERATE_FULL) { /* the reference: the decoder over out[:, :t] at every step */
        for (int t = 1; t < out_len; t++) {
            for (int b = 0; b < count; b++)
                for (int j = 0; j < t; j++) m->din[b * t + j] = out[b * out_len + j];
            st = decoder_forward(m, count, src_len, t);
            if (st != SX_OK) return st;
            if (!greedy_pick(m, out, out_len, count, t, m->a[A_LOGITS] + (size_t)(t - 1) * m->V, t))
                break;
        }
        return SX_OK;
    }
    const int C = m->C, L = m->L, Tc = out_len, Ns = count * src_len;
    for (int l = 0; l < L; l++) /* the cross-attention keys and values, once */
        sx_nn_linear_forward(m->a[A_D_KV] + (size_t)l * Ns * 2 * C, m->a[A_E_OUT],
                             m->p[P_D_KV_W] + (size_t)l * C * 2 * C, m->p[P_D_KV_B] + l * 2 * C, Ns,
                             C, 2 * C);
    int steps = 0;
    for (int t = 1; t < out_len; t++) {
        int *tok = m->din; /* out[:, t - 1] */
        for (int b = 0; b < count; b++) tok[b] = out[b * out_len + t - 1];
        st = decoder_step(m, tok, count, src_len, Tc, t - 1);
        if (st != SX_OK) return st;
        steps = t;
        if (!greedy_pick(m, out, out_len, count, t, m->a[A_LOGITS] + (size_t)(t - 1) * m->V, Tc))
            break;
    }
    /* the maps and logits of a pass over out[:, :steps] */
    const int nb = L * count * m->NH;
    compact_rows(m->a[A_D_ATT], nb, Tc, Tc, steps, steps);
    compact_rows(m->a[A_D_SCORE], nb, Tc, Tc, steps, steps);
    if (m->span) compact_rows(m->a[A_D_PROB], nb, Tc, Tc, steps, steps);
    compact_rows(m->a[A_C_ATT], nb, Tc, src_len, steps, src_len);
    compact_rows(m->a[A_C_SCORE], nb, Tc, src_len, steps, src_len);
    compact_rows(m->a[A_LOGITS], count, Tc, m->V, steps, m->V);
    for (int b = 0; b < count; b++) /* the decoder input of that pass */
        for (int j = 0; j < steps; j++) m->din[b * steps + j] = out[b * out_len + j];
    m->B = count;
    m->Ts = src_len;
    m->Tt = steps;
    return SX_OK;
}

int sx_model_generate(sx_model *m, int *out, int out_len, const int *src, int src_len, int count) {
    return sx_model_generate_v2(m, out, out_len, src, src_len, count, 0);
}

/* Decoder-only steps: decoder_step over a cache of Tc = max_len positions (the layout above),
   row pos of the logits and maps filled by each call. */
static int lm_check(const sx_model *m, const char *fn, const int *tok, int count, int pos) {
    int st = check_call(m, fn, count);
    if (st == SX_OK && !m->gpt)
        st = sx__fail(SX_EINVAL, -1, "%s: the model is not decoder-only (config arch %d)", fn,
                      m->cfg[N_CFG(m->L) + 1]);
    if (st == SX_OK && (pos < 0 || pos >= m->T))
        st = sx__fail(SX_EINVAL, -1, "%s: pos must be in [0, max_len %d) (got %d)", fn, m->T, pos);
    if (st == SX_OK && pos > 0 && (pos != m->lm_next || count != m->lm_B))
        st = sx__fail(SX_EINVAL, -1, "%s: pos %d with %d rows does not continue the open rows "
                      "(next pos %d, %d rows; start at pos 0)", fn, pos, count,
                      m->lm_B ? m->lm_next : 0, m->lm_B);
    if (st == SX_OK) st = check_tokens(m, fn, "tok", tok, 1, count, 1);
    return st;
}

/* p (rows, V) = the output mapping of the logits z (rows, V). */
static int output_probs(const sx_model *m, float *p, const float *z, int rows) {
    switch (m->out_map) {
    case SX_MAP_SOFTMAX: return sx_softmax(p, z, rows, m->V, 1.0f);
    case SX_MAP_SPARSEMAX: return sx_sparsemax(p, z, rows, m->V, 1.0f);
    case SX_MAP_ENTMAX15: return sx_entmax15(p, z, rows, m->V, 1.0f);
    default: return sx_entmax(p, z, rows, m->V, m->out_alpha, 1.0f);
    }
}

int sx_model_lm_step(sx_model *m, float *probs, float *logits, const int *tok, int count, int pos) {
    static const char fn[] = "model_lm_step";
    int st = lm_check(m, fn, tok, count, pos);
    if (st != SX_OK) return st;
    m->B = 0; /* the buffers hold the cache, not a pass: no logits or maps to read */
    m->lm_B = 0;
    memcpy(m->din, tok, (size_t)count * sizeof(int));
    st = decoder_step(m, m->din, count, 0, m->T, pos);
    if (st != SX_OK) return st;
    m->lm_B = count;
    m->lm_next = pos + 1;
    for (int b = 0; b < count; b++) {
        const float *z = m->a[A_LOGITS] + ((size_t)b * m->T + pos) * m->V;
        if (logits) memcpy(logits + (size_t)b * m->V, z, (size_t)m->V * sizeof(float));
        if (probs && (st = output_probs(m, probs + (size_t)b * m->V, z, 1)) != SX_OK) return st;
    }
    return SX_OK;
}

int sx_model_lm_attention(const sx_model *m, float *out, int layer) {
    static const char fn[] = "model_lm_attention";
    if (!m || !out) return sx__fail(SX_EINVAL, -1, "%s: model or out is NULL", fn);
    if (!m->lm_B) return sx__fail(SX_EINVAL, -1, "%s: no model_lm_step rows open", fn);
    if (layer < 0 || layer >= m->L)
        return sx__fail(SX_EINVAL, -1, "%s: layer must be in [0, %d] (got %d)", fn, m->L - 1, layer);
    const int T = m->T, t = m->lm_next - 1;
    const float *att = m->a[A_D_ATT] + map_off(m, layer, m->lm_B, T, T);
    for (int bh = 0; bh < m->lm_B * m->NH; bh++) /* row t of (B, NH, T, T) */
        memcpy(out + (size_t)bh * (t + 1), att + ((size_t)bh * T + t) * T,
               (size_t)(t + 1) * sizeof(float));
    return SX_OK;
}

SX_COLD_BEGIN /* interventions, queries, checkpoints: not hot paths (internal.h) */

/* =========================================================== interventions */
static const char *const edit_name[4] = { "ablate", "replace", "erase", "mask_keys" };

int sx_model_edit(sx_model *m, int op, int kind, int layer, int head, int row, const float *w,
                  int n) {
    static const char fn[] = "model_edit";
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    if (op < SX_EDIT_ABLATE || op > SX_EDIT_MASK_KEYS)
        return sx__fail(SX_EINVAL, -1, "%s: op must be in [%d, %d] (got %d)", fn, SX_EDIT_ABLATE,
                        SX_EDIT_MASK_KEYS, op);
    if (kind < 0 || kind > 2)
        return sx__fail(SX_EINVAL, -1, "%s: %s: kind must be 0 (encoder self), 1 (decoder self) "
                        "or 2 (cross) (got %d)", fn, edit_name[op], kind);
    if (m->gpt && kind != SX_MODEL_DEC_SELF)
        return sx__fail(SX_EINVAL, -1, "%s: %s: a decoder-only model has only kind 1 (decoder "
                        "self) (got %d)", fn, edit_name[op], kind);
    if (layer < -1 || layer >= m->L)
        return sx__fail(SX_EINVAL, -1, "%s: %s: layer must be in [-1, %d] (got %d)", fn,
                        edit_name[op], m->L - 1, layer);
    if (op != SX_EDIT_MASK_KEYS && (head < -1 || head >= m->NH))
        return sx__fail(SX_EINVAL, -1, "%s: %s: head must be in [-1, %d] (got %d)", fn,
                        edit_name[op], m->NH - 1, head);
    const int with_rows = op == SX_EDIT_REPLACE || op == SX_EDIT_ERASE;
    if (with_rows && (row < -1 || row >= m->T))
        return sx__fail(SX_EINVAL, -1, "%s: %s: row must be in [-1, %d] (got %d)", fn,
                        edit_name[op], m->T - 1, row);
    if (op != SX_EDIT_ABLATE) {
        if (!w) return sx__fail(SX_EINVAL, -1, "%s: %s: w is NULL", fn, edit_name[op]);
        if (n < 1 || n > m->T)
            return sx__fail(SX_EINVAL, -1, "%s: %s: n must be in [1, max_len %d] (got %d)", fn,
                            edit_name[op], m->T, n);
        for (int j = 0; j < n; j++)
            if (!(w[j] > -INFINITY && w[j] < INFINITY) || (op == SX_EDIT_REPLACE && w[j] < 0.0f))
                return sx__fail(SX_EINVAL, j, "%s: %s: w[%d] must be finite%s (got %g)", fn,
                                edit_name[op], j, op == SX_EDIT_REPLACE ? " and >= 0" : "",
                                (double)w[j]);
    }
    const int l0 = layer < 0 ? 0 : layer, l1 = layer < 0 ? m->L : layer + 1;
    if (with_rows && m->n_slots + (l1 - l0) > MAX_EDITS)
        return sx__fail(SX_EINVAL, -1, "%s: %s: at most %d row edits at once (%d in place); "
                        "clear the edits first", fn, edit_name[op], MAX_EDITS, m->n_slots);
    for (int l = l0; l < l1; l++) {
        if (op == SX_EDIT_ABLATE) {
            for (int h = 0; h < m->NH; h++)
                if ((head < 0 || head == h) && !m->head_off[kind][l][h]) {
                    m->head_off[kind][l][h] = 1;
                    m->n_heads_off[kind][l]++;
                }
        } else if (op == SX_EDIT_MASK_KEYS) {
            for (int j = 0; j < n; j++)
                if (w[j] != 0.0f && !m->key_off[kind][l][j]) {
                    m->key_off[kind][l][j] = 1;
                    m->n_keys_off[kind][l]++;
                }
        } else {
            float *slot = m->edit_w + (size_t)m->n_slots++ * m->T;
            for (int j = 0; j < m->T; j++) slot[j] = j < n ? w[j] : 0.0f;
            sx_nn_row_edit *re = &m->rows[kind][l][m->n_rows[kind][l]++];
            re->op = op == SX_EDIT_REPLACE ? SX_NN_EDIT_REPLACE : SX_NN_EDIT_ERASE;
            re->head = head;
            re->row = row;
            re->w = slot;
        }
    }
    m->n_edits++;
    refresh_edits(m, -1, -1, -1, -1, NULL, 0);
    return SX_OK;
}

int sx_model_clear_edits(sx_model *m) {
    if (!m) return sx__fail(SX_EINVAL, -1, "model_clear_edits: model is NULL");
    memset(m->head_off, 0, sizeof m->head_off);
    memset(m->key_off, 0, sizeof m->key_off);
    memset(m->n_rows, 0, sizeof m->n_rows);
    memset(m->n_heads_off, 0, sizeof m->n_heads_off);
    memset(m->n_keys_off, 0, sizeof m->n_keys_off);
    m->n_edits = m->n_slots = 0;
    refresh_edits(m, -1, -1, -1, -1, NULL, 0);
    return SX_OK;
}

int sx_model_edit_count(const sx_model *m) { return m ? m->n_edits : 0; }

/* ------------------------------------------------ for explain.c (model.h) */
int sx__model_run(sx_model *m, const int *src, int Ts, const int *tgt_in, int Tt, int B,
                  const float *emb_src) {
    memcpy(m->din, tgt_in, (size_t)B * Tt * sizeof(int));
    m->emb_src = emb_src;
    const int st = run_forward(m, src, B, Ts, Tt);
    m->emb_src = NULL;
    return st;
}

int sx__model_grad(sx_model *m, const int *src, const float *seed, int step, float *d_emb,
                   int grab_kind, int grab_layer, int grab_head, int grab_row, float *datt,
                   int grab_tk) {
    refresh_edits(m, grab_kind, grab_layer, grab_head, grab_row, datt, grab_tk);
    const int st = model_backward(m, src, seed, step, d_emb);
    refresh_edits(m, -1, -1, -1, -1, NULL, 0);
    return st;
}

void sx__model_embed(const sx_model *m, float *out, const int *src, int n) {
    for (int t = 0; t < n; t++)
        for (int c = 0; c < m->C; c++)
            out[(size_t)t * m->C + c] = m->p[P_WTE][(size_t)src[t] * m->C + c] * m->escale;
}

void sx__model_mask_source_key(sx_model *m, int pos, unsigned char *saved, int restore) {
    static const int kinds[2] = { SX_MODEL_ENC_SELF, SX_MODEL_CROSS };
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < m->L; l++) {
            unsigned char *bit = &m->key_off[kinds[k]][l][pos];
            const unsigned char want = restore ? saved[k * m->L + l] : 1;
            if (!restore) saved[k * m->L + l] = *bit;
            m->n_keys_off[kinds[k]][l] += (int)want - (int)*bit;
            *bit = want;
        }
    refresh_edits(m, -1, -1, -1, -1, NULL, 0);
}

/* ================================================================= queries */
int sx_model_config(const sx_model *m, int field) {
    if (!m || field < 0 || field > N_CFG(m->L) + 1) {
        sx__fail(SX_EINVAL, field, "model_config: field must be in [0, %d] (got %d)",
                 m ? N_CFG(m->L) + 1 : 0, field);
        return -1;
    }
    return m->cfg[field];
}

float sx_model_fconfig(const sx_model *m, int field) {
    if (!m || field < 0 || field > N_FCFG(m->L)) {
        sx__fail(SX_EINVAL, field, "model_fconfig: bad field %d", field);
        return NAN;
    }
    return m->fcfg[field];
}

int sx_model_num_params(const sx_model *m) { return m ? (int)m->n_params : 0; }
float *sx_model_params(sx_model *m) { return m ? m->params : NULL; }
float *sx_model_grads(sx_model *m) { return m ? m->grads : NULL; }
int sx_model_tensor_count(void) { return P_COUNT; }
const char *sx_model_tensor_name(int index) {
    return index >= 0 && index < P_COUNT ? tensor_name[index] : NULL;
}
int sx_model_tensor_offset(const sx_model *m, int index) {
    if (!m || index < 0 || index >= P_COUNT) return -1;
    return (int)(m->p[index] - m->params);
}
int sx_model_tensor_size(const sx_model *m, int index) {
    if (!m || index < 0 || index >= P_COUNT) return -1;
    return (int)m->p_size[index];
}
int sx_model_steps(const sx_model *m) { return m ? m->step : 0; }

const float *sx_model_logits(const sx_model *m) { return m && m->B ? m->a[A_LOGITS] : NULL; }

int sx_model_attention_shape(const sx_model *m, int kind, int dim) {
    if (!m || !m->B || kind < 0 || kind > 2 || dim < 0 || dim > 3) return -1;
    if (m->gpt && kind != SX_MODEL_DEC_SELF) return -1;
    const int shape[4] = { m->B, m->NH, kind == SX_MODEL_ENC_SELF ? m->Ts : m->Tt,
                           kind == SX_MODEL_DEC_SELF ? m->Tt : m->Ts };
    return shape[dim];
}

const float *sx_model_attention(const sx_model *m, int kind, int layer) {
    if (!m || !m->B || kind < 0 || kind > 2 || layer < 0 || layer >= m->L) return NULL;
    if (m->gpt && kind != SX_MODEL_DEC_SELF) return NULL;
    const int Tq = sx_model_attention_shape(m, kind, 2), Tk = sx_model_attention_shape(m, kind, 3);
    const int which = kind == SX_MODEL_ENC_SELF ? A_E_ATT : kind == SX_MODEL_DEC_SELF ? A_D_ATT : A_C_ATT;
    return m->a[which] + map_off(m, layer, m->B, Tq, Tk);
}

int sx_model_alphas(const sx_model *m, float *out) {
    if (!m || !out) return sx__fail(SX_EINVAL, -1, "model_alphas: model or out is NULL");
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < m->L; l++)
            for (int h = 0; h < m->NH; h++) {
                const int i = (k * m->L + l) * m->NH + h;
                float al;
                switch (m->head_kind[l][h]) {
                case SX_NN_SOFTMAX: al = 1.0f; break;
                case SX_NN_ENTMAX15: al = 1.5f; break;
                case SX_NN_ENTMAX: al = m->head_param[l][h]; break;
                case SX_NN_ENTMAX_LEARNED: al = sx_nn_alpha_of(m->p[P_ALPHA][i]); break;
                default: al = 2.0f; /* sparsemax, fusedmax, oscarmax */
                }
                out[i] = al;
            }
    return SX_OK;
}

int sx_model_spans(const sx_model *m, float *out) {
    if (!m || !out) return sx__fail(SX_EINVAL, -1, "model_spans: model or out is NULL");
    for (int i = 0; i < 3 * m->L * m->NH; i++) {
        const float z = m->p[P_SPAN][i];
        const int self = m->gpt ? i / (m->L * m->NH) == SX_MODEL_DEC_SELF : i < 2 * m->L * m->NH;
        out[i] = m->span && self ? (z < 0 ? 0 : z > 1 ? 1 : z) * (float)m->span : -1.0f;
    }
    return SX_OK;
}

/* ============================================================= checkpoints */
#define SXM_MAGIC "SXMD"
#define SXM_VERSION_F32 1u /* parameters as float32 */
#define SXM_VERSION_F16 2u /* parameters as IEEE float16 (half.h) */
#define SXM_HEADER 20 /* magic, version, n_cfg, n_fcfg, n_params */

static void put_u32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16); b[3] = (unsigned char)(v >> 24);
}
static uint32_t get_u32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint32_t fnv1a(const unsigned char *b, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Bytes per stored parameter: 4 (SX_SAVE_FLOAT32), 2 (SX_SAVE_FLOAT16), 0 for anything else. */
static size_t param_bytes(int precision) {
    return precision == SX_SAVE_FLOAT32 ? 4 : precision == SX_SAVE_FLOAT16 ? 2 : 0;
}

int sx_model_save_size_as(const sx_model *m, int precision) {
    const size_t pb = param_bytes(precision);
    if (!m || !pb) return 0;
    return (int)(SXM_HEADER + 4 * ((size_t)m->n_cfg + m->n_fcfg_given) + pb * m->n_params + 4);
}

int sx_model_save_size(const sx_model *m) { return sx_model_save_size_as(m, SX_SAVE_FLOAT32); }

int sx_model_save_as(const sx_model *m, unsigned char *buf, int cap, int precision) {
    static const char fn[] = "model_save";
    if (!m || !buf) return sx__fail(SX_EINVAL, -1, "%s: model or buf is NULL", fn);
    const size_t pb = param_bytes(precision);
    if (!pb)
        return sx__fail(SX_EINVAL, -1, "%s: precision must be SX_SAVE_FLOAT32 (32) or "
                        "SX_SAVE_FLOAT16 (16) (got %d)", fn, precision);
    const int size = sx_model_save_size_as(m, precision);
    if (cap < size)
        return sx__fail(SX_EINVAL, -1, "%s: buffer holds %d bytes, the checkpoint needs %d", fn,
                        cap, size);
    /* float16 does not saturate: a parameter it cannot hold is an error, before any byte is
       written (save such a model as float32) */
    for (size_t i = 0; pb == 2 && i < m->n_params; i++) {
        if (sx__f16_fits(m->params[i])) continue;
        int t = P_COUNT - 1;
        while (t > 0 && (size_t)(m->p[t] - m->params) > i) t--;
        return sx__fail(SX_EINVAL, (int)i, "%s: parameter %d (%s[%d]) is %g, beyond float16 "
                        "(finite, magnitude below 65520): save as float32", fn, (int)i,
                        tensor_name[t], (int)(i - (size_t)(m->p[t] - m->params)),
                        (double)m->params[i]);
    }
    unsigned char *b = buf;
    memcpy(b, SXM_MAGIC, 4);
    put_u32(b + 4, pb == 2 ? SXM_VERSION_F16 : SXM_VERSION_F32);
    put_u32(b + 8, (uint32_t)m->n_cfg);
    put_u32(b + 12, (uint32_t)m->n_fcfg_given);
    put_u32(b + 16, (uint32_t)m->n_params);
    b += SXM_HEADER;
    for (int i = 0; i < m->n_cfg; i++, b += 4) put_u32(b, (uint32_t)m->cfg[i]);
    for (int i = 0; i < m->n_fcfg_given; i++, b += 4) put_u32(b, f2u(m->fcfg[i]));
    if (pb == 4) {
        for (size_t i = 0; i < m->n_params; i++, b += 4) put_u32(b, f2u(m->params[i]));
    } else {
        for (size_t i = 0; i < m->n_params; i++, b += 2) {
            const uint16_t h = sx__f16_from_f32(m->params[i]);
            b[0] = (unsigned char)h;
            b[1] = (unsigned char)(h >> 8);
        }
    }
    put_u32(b, fnv1a(buf, (size_t)(b - buf)));
    return SX_OK;
}

int sx_model_save(const sx_model *m, unsigned char *buf, int cap) {
    return sx_model_save_as(m, buf, cap, SX_SAVE_FLOAT32);
}

int sx_model_load(sx_model **out, const unsigned char *buf, int size) {
    static const char fn[] = "model_load";
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    *out = NULL;
    if (!buf || size < SXM_HEADER + 4)
        return sx__fail(SX_EINVAL, -1, "%s: truncated: %d bytes, a checkpoint has at least %d", fn,
                        buf ? size : 0, SXM_HEADER + 4);
    if (memcmp(buf, SXM_MAGIC, 4) != 0)
        return sx__fail(SX_EINVAL, -1, "%s: not a Simplexity model (bad magic)", fn);
    const uint32_t version = get_u32(buf + 4);
    if (version != SXM_VERSION_F32 && version != SXM_VERSION_F16)
        return sx__fail(SX_EINVAL, -1, "%s: format version %d is not supported (this build reads "
                        "versions %d (float32) and %d (float16))", fn,
                        (int)(version > 0x7fffffffu ? -1 : (int)version), (int)SXM_VERSION_F32,
                        (int)SXM_VERSION_F16);
    const size_t pb = version == SXM_VERSION_F16 ? 2 : 4;
    const uint32_t n_cfg = get_u32(buf + 8), n_fcfg = get_u32(buf + 12), n_params = get_u32(buf + 16);
    if (n_cfg > N_CFG_MAX || n_fcfg > N_FCFG_MAX || n_params > (1u << 26))
        return sx__fail(SX_EINVAL, -1, "%s: corrupted header (n_cfg %d, n_fcfg %d, n_params %d)",
                        fn, (int)(n_cfg & 0x7fffffff), (int)(n_fcfg & 0x7fffffff),
                        (int)(n_params & 0x7fffffff));
    const size_t want = SXM_HEADER + 4 * ((size_t)n_cfg + n_fcfg) + pb * n_params + 4;
    if ((size_t)size < want)
        return sx__fail(SX_EINVAL, -1, "%s: truncated: %d bytes, the header promises %d", fn, size,
                        (int)want);
    if ((size_t)size > want)
        return sx__fail(SX_EINVAL, -1, "%s: %d bytes after the checkpoint's end (%d bytes)", fn,
                        (int)((size_t)size - want), (int)want);
    if (fnv1a(buf, want - 4) != get_u32(buf + want - 4))
        return sx__fail(SX_EINVAL, -1, "%s: checksum mismatch (the file is corrupted)", fn);
    int cfg[N_CFG_MAX];
    float fcfg[N_FCFG_MAX];
    const unsigned char *b = buf + SXM_HEADER;
    for (uint32_t i = 0; i < n_cfg; i++, b += 4) cfg[i] = (int)get_u32(b);
    for (uint32_t i = 0; i < n_fcfg; i++, b += 4) fcfg[i] = u2f(get_u32(b));
    sx_model *m = NULL;
    int st = model_new(&m, cfg, (int)n_cfg, fcfg, (int)n_fcfg, fn, n_params);
    if (st != SX_OK) return st;
    for (uint32_t i = 0; i < n_params; i++, b += pb) {
        const float v = pb == 4 ? u2f(get_u32(b)) : sx__f32_from_f16((uint16_t)(b[0] | b[1] << 8));
        if (!(v > -INFINITY && v < INFINITY)) {
            st = sx__fail(SX_EINVAL, (int)i, "%s: parameter %d is not finite (%g)", fn, (int)i,
                          (double)v);
            sx_model_free(m);
            return st;
        }
        m->params[i] = v;
    }
    *out = m;
    return SX_OK;
}

SX_COLD_END
