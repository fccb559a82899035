/* rnn.c - the recurrent encoder-decoder (rnn.h): config, parameters, activations, lifetime, the
   GRU cell, encoder, context (none, additive, hard), decoder, loss, backward, training, greedy
   decoding, queries. llm.c conventions as model.c: one block of parameters (grads, Adam moments)
   with named tensors, one block of activations, backward passes accumulate. The layers are
   nn.h's (embedding, linear, cross-entropy, Adam, the mappings and their backward passes); the
   scores are scoring.c's additive scores. Internally rows are time-major, (T, B, *), so a step
   of the recurrence is one contiguous (B, *) block for the matmuls. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "rnn.h"
#include "rng.h"

SX_COLD_BEGIN /* config and setup: compiled for size in the wasm builds */

/* ================================================================== config */
static const char *const cfg_name[SX_RNN_N_CFG] = {
    "vocab", "embed", "hidden", "attn_hidden", "max_len", "seed", "max_batch", "attention",
    "map", "estimator"
};

static int check_fconfig(const char *fn, const int *cfg, const float *fcfg, int n_fcfg) {
    if (n_fcfg < 0 || n_fcfg > SX_RNN_N_FCFG || (n_fcfg > 0 && !fcfg))
        return sx__fail(SX_EINVAL, -1, "%s: float config must have 0..%d entries (got %d%s)", fn,
                        SX_RNN_N_FCFG, n_fcfg, n_fcfg > 0 && !fcfg ? ", NULL" : "");
    static const char *const name[SX_RNN_N_FCFG] = { "param", "clip", "alpha_lr", "temperature",
                                                     "baseline" };
    for (int i = 0; i < n_fcfg; i++) {
        const float v = fcfg[i];
        int ok = v > -INFINITY && v < INFINITY;
        if (i == SX_RNN_F_PARAM && cfg[SX_RNN_MAP] == SX_MAP_ENTMAX) ok &= v >= 1.0f && v <= 8.0f;
        if (i == SX_RNN_F_PARAM && cfg[SX_RNN_MAP] == SX_MAP_FUSEDMAX) ok &= v >= 0.0f;
        if (i == SX_RNN_F_ALPHA_LR) ok &= v >= 0.0f;
        if (i == SX_RNN_F_TEMPERATURE) ok &= v > 0.0f;
        if (i == SX_RNN_F_BASELINE) ok &= v >= 0.0f && v < 1.0f;
        if (!ok)
            return sx__fail(SX_EINVAL, i, "%s: float config %s is out of range (got %g)", fn,
                            name[i], (double)v);
    }
    return SX_OK;
}

static int check_config(const char *fn, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg) {
    if (!cfg) return sx__fail(SX_EINVAL, -1, "%s: config is NULL", fn);
    if (n_cfg != SX_RNN_N_CFG)
        return sx__fail(SX_EINVAL, -1, "%s: config has %d ints, needs %d", fn, n_cfg, SX_RNN_N_CFG);
    static const int lo[SX_RNN_N_CFG] = { 4, 1, 1, 1, 2, INT32_MIN, 1, 0, 0, 0 };
    static const int hi[SX_RNN_N_CFG] = { 4096, 1024, 1024, 1024, 256, INT32_MAX, 4096, 2,
                                          SX_MAP_FUSEDMAX, 2 };
    for (int i = 0; i < SX_RNN_N_CFG; i++)
        if (cfg[i] < lo[i] || cfg[i] > hi[i])
            return sx__fail(SX_EINVAL, i, "%s: config %s must be in [%d, %d] (got %d)", fn,
                            cfg_name[i], lo[i], hi[i], cfg[i]);
    return check_fconfig(fn, cfg, fcfg, n_fcfg);
}

/* ============================================================== parameters */
enum {
    P_WTE, P_E_WX, P_E_BX, P_E_WH, P_E_BH, P_D_WX, P_D_BX, P_D_WH, P_D_BH, P_OUT_W, P_OUT_B,
    P_ATT, P_ALPHA, /* alpha last: its slice may take a scaled learning rate */
    P_COUNT
};
static const char *const tensor_name[P_COUNT] = {
    "wte", "enc.wx", "enc.bx", "enc.wh", "enc.bh", "dec.wx", "dec.bx", "dec.wh", "dec.bh",
    "out_w", "out_b", "att", "alpha_a"
};

/* ============================================================= activations */
enum {
    A_E_EMB,   /* (T, B, E) source embeddings */
    A_E_GX,    /* (T, B, 3H) x W_x + b_x */
    A_E_GATE,  /* (T, B, 3H) r, z, n */
    A_E_GHN,   /* (T, B, H) (h W_h + b_h)_n */
    A_E_H,     /* (T + 1, B, H) h_0 = 0, h_1 .. */
    A_KEYS,    /* (B, T, H) the encoder states batch-major: the attention's keys */
    A_D_EMB,   /* (T, B, E) */
    A_D_X,     /* (T, B, E + H) [wte[y_t]; c_t] */
    A_D_GX, A_D_GATE, A_D_GHN,
    A_D_S,     /* (T + 1, B, H) s_0 = h_last, s_1 .. */
    A_D_O,     /* (T, B, 2H) [s_{t+1}; c_t] */
    A_SCORE,   /* (B, T, T) e_t over the source positions */
    A_PROB,    /* (B, T, T) map(e_t): the soft weights, the hard policy */
    A_ATT,     /* (B, T, T) the weights c_t is made of */
    A_SOFT,    /* (B, T, T) Gumbel-softmax's y */
    A_LOGITS, A_PROBS, /* (T, B, V) */
    A_LOGITS_BM, /* (B, T, V) the public copy */
    A_SEQ,     /* (B) each row's summed cross-entropy (REINFORCE) */
    A_GH,      /* (B, 3H) scratch: h W_h + b_h, its gradient */
    /* backward */
    A_G_LOGITS, /* (T, B, V) */
    A_G_O,      /* (T, B, 2H) */
    A_G_S,      /* (T + 1, B, H) */
    A_G_C,      /* (T, B, H) */
    A_G_X,      /* (B, E + H) */
    A_G_GX,     /* (T, B, 3H) */
    A_G_EMB,    /* (T, B, E) */
    A_G_H,      /* (T + 1, B, H) */
    A_G_KEYS,   /* (B, T, H) */
    A_G_ROW,    /* 3T + H + T H + A (2H + 1): one step's dalpha, de, dp, dq, dk, dparams */
    A_COUNT
};
enum { I_SRC, I_DIN, I_LABELS, I_KLEN, I_PICK, I_COUNT }; /* (T, B) (T, B) (T, B) (B) (B, T) */

struct sx_rnn {
    int cfg[SX_RNN_N_CFG];
    float fcfg[SX_RNN_N_FCFG];
    int n_fcfg_given;
    int V, E, H, A, T, attn, map, est;
    size_t n_params, p_size[P_COUNT];
    float *mem, *params, *grads, *adam_m, *adam_v;
    float *p[P_COUNT], *g[P_COUNT];
    int step;
    int max_batch;
    size_t a_size[A_COUNT];
    float *acts, *a[A_COUNT];
    int *ints, *in[I_COUNT];
    int B, Ts, Tt; /* shape of the last pass (B = 0: none) */
    sx__rng rng;   /* hard attention's draws */
    double baseline; /* REINFORCE: moving average of the per-label loss (NAN: none yet) */
};

static void param_sizes(sx_rnn *m) {
    const size_t V = m->V, E = m->E, H = m->H, A = m->A;
    size_t *s = m->p_size;
    s[P_WTE] = V * E;
    s[P_E_WX] = E * 3 * H; s[P_E_BX] = s[P_E_BH] = s[P_D_BX] = s[P_D_BH] = 3 * H;
    s[P_E_WH] = s[P_D_WH] = H * 3 * H;
    s[P_D_WX] = (E + H) * 3 * H;
    s[P_OUT_W] = 2 * H * V; s[P_OUT_B] = V;
    s[P_ATT] = m->attn == SX_RNN_NONE ? 0 : A * (2 * H + 1);
    s[P_ALPHA] = 1;
    m->n_params = 0;
    for (int i = 0; i < P_COUNT; i++) m->n_params += s[i];
}

static void act_sizes(sx_rnn *m, int Bmax) {
    const size_t B = Bmax, T = m->T, V = m->V, E = m->E, H = m->H, A = m->A;
    const size_t TB = T * B;
    size_t *s = m->a_size;
    s[A_E_EMB] = s[A_D_EMB] = s[A_G_EMB] = TB * E;
    s[A_E_GX] = s[A_E_GATE] = s[A_D_GX] = s[A_D_GATE] = s[A_G_GX] = TB * 3 * H;
    s[A_E_GHN] = s[A_D_GHN] = s[A_KEYS] = s[A_G_C] = s[A_G_KEYS] = TB * H;
    s[A_E_H] = s[A_D_S] = s[A_G_S] = s[A_G_H] = (T + 1) * B * H;
    s[A_D_X] = TB * (E + H);
    s[A_G_X] = B * (E + H);
    s[A_D_O] = s[A_G_O] = TB * 2 * H;
    s[A_SCORE] = s[A_PROB] = s[A_ATT] = s[A_SOFT] = TB * T;
    s[A_LOGITS] = s[A_PROBS] = s[A_LOGITS_BM] = s[A_G_LOGITS] = TB * V;
    s[A_SEQ] = B;
    s[A_GH] = B * 3 * H;
    s[A_G_ROW] = 3 * T + H + T * H + A * (2 * H + 1);
}

/* The activation block's size for Bmax rows (in m->a_size and *total), or a failure when it
   exceeds 2^28 floats: checked before anything is allocated. */
static int acts_fit(sx_rnn *m, int Bmax, const char *fn, size_t *total) {
    act_sizes(m, Bmax);
    *total = 0;
    for (int i = 0; i < A_COUNT; i++) *total += m->a_size[i];
    if (*total > ((size_t)1 << 28))
        return sx__fail(SX_EINVAL, -1, "%s: %d rows need too many activations (%d M floats)", fn,
                        Bmax, (int)(*total >> 20));
    return SX_OK;
}

/* Zeroed by calloc, which the system gives as untouched zero pages. */
static int alloc_acts(sx_rnn *m, int Bmax, const char *fn) {
    size_t total;
    const int st = acts_fit(m, Bmax, fn, &total);
    if (st != SX_OK) return st;
    const size_t TB = (size_t)m->T * Bmax, ni = 4 * TB + Bmax;
    m->acts = calloc(total, sizeof(float));
    m->ints = calloc(ni, sizeof(int));
    if (!m->acts || !m->ints)
        return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate activations for %d rows", fn, Bmax);
    size_t at = 0;
    for (int i = 0; i < A_COUNT; i++) {
        m->a[i] = m->acts + at;
        at += m->a_size[i];
    }
    m->in[I_SRC] = m->ints;
    m->in[I_DIN] = m->ints + TB;
    m->in[I_LABELS] = m->ints + 2 * TB;
    m->in[I_PICK] = m->ints + 3 * TB;
    m->in[I_KLEN] = m->ints + 4 * TB;
    m->max_batch = Bmax;
    return SX_OK;
}

/* ================================================================ lifetime */
static void init_params(sx_rnn *m) {
    for (int i = 0; i < P_COUNT; i++) {
        size_t fan_in = 0;
        switch (i) {
        case P_WTE: fan_in = 1; break;
        case P_E_WX: fan_in = m->E; break;
        case P_D_WX: fan_in = m->E + m->H; break;
        case P_E_WH: case P_D_WH: fan_in = m->H; break;
        case P_OUT_W: fan_in = 2 * m->H; break;
        default: break;
        }
        float *p = m->p[i];
        if (fan_in) {
            sx__rng r;
            sx__rng_init(&r, (uint64_t)(uint32_t)m->cfg[SX_RNN_SEED], 0x524e4e00u + (uint64_t)i);
            const float sd = 1.0f / sqrtf((float)fan_in);
            for (size_t k = 0; k < m->p_size[i]; k++) p[k] = sx__rng_normal(&r) * sd;
        } else {
            memset(p, 0, m->p_size[i] * sizeof(float));
        }
    }
    /* the scoring parameters: W_q, W_k rows of fan-in H, w_v of fan-in A */
    if (m->p_size[P_ATT]) {
        sx__rng r;
        sx__rng_init(&r, (uint64_t)(uint32_t)m->cfg[SX_RNN_SEED], 0x524e4e00u + P_ATT);
        const size_t nw = (size_t)2 * m->A * m->H;
        for (size_t k = 0; k < m->p_size[P_ATT]; k++)
            m->p[P_ATT][k] = sx__rng_normal(&r) / sqrtf((float)(k < nw ? m->H : m->A));
    }
}

void sx_rnn_free(sx_rnn *m) {
    if (!m) return;
    free(m->mem);
    free(m->acts);
    free(m->ints);
    free(m);
}

static void read_config(sx_rnn *m, const int *cfg, const float *fcfg, int n_fcfg) {
    memcpy(m->cfg, cfg, sizeof m->cfg);
    m->V = cfg[SX_RNN_VOCAB];
    m->E = cfg[SX_RNN_EMBED];
    m->H = cfg[SX_RNN_HIDDEN];
    m->A = cfg[SX_RNN_ATTN_HIDDEN];
    m->T = cfg[SX_RNN_MAX_LEN];
    m->attn = cfg[SX_RNN_ATTENTION];
    m->map = cfg[SX_RNN_MAP];
    m->est = cfg[SX_RNN_ESTIMATOR];
    m->fcfg[SX_RNN_F_PARAM] = m->map == SX_MAP_FUSEDMAX ? 0.1f : 1.5f;
    m->fcfg[SX_RNN_F_CLIP] = 1.0f;
    m->fcfg[SX_RNN_F_ALPHA_LR] = 1.0f;
    m->fcfg[SX_RNN_F_TEMPERATURE] = 1.0f;
    m->fcfg[SX_RNN_F_BASELINE] = 0.9f;
    for (int i = 0; i < n_fcfg; i++) m->fcfg[i] = fcfg[i];
    m->n_fcfg_given = n_fcfg;
    m->baseline = NAN;
    sx__rng_init(&m->rng, (uint64_t)(uint32_t)cfg[SX_RNN_SEED], 0x48415244u); /* "HARD" */
}

int sx__rnn_new(sx_rnn **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg,
                const char *fn, size_t want_params) {
    int st = check_config(fn, cfg, n_cfg, fcfg, n_fcfg);
    if (st != SX_OK) return st;
    sx_rnn s; /* the sizes, worked out before anything is allocated */
    memset(&s, 0, sizeof s);
    read_config(&s, cfg, fcfg, n_fcfg);
    param_sizes(&s);
    size_t n_acts;
    if (s.n_params > ((size_t)1 << 26))
        return sx__fail(SX_EINVAL, -1, "%s: config needs too many parameters", fn);
    if (want_params != SIZE_MAX && s.n_params != want_params)
        return sx__fail(SX_EINVAL, -1, "%s: %d parameters stored, the config needs %d", fn,
                        (int)want_params, (int)s.n_params);
    if ((st = acts_fit(&s, cfg[SX_RNN_MAX_BATCH], fn, &n_acts)) != SX_OK) return st;
    sx_rnn *m = malloc(sizeof *m);
    if (!m) return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    *m = s;
    m->mem = calloc(4 * m->n_params, sizeof(float));
    if (!m->mem) {
        sx_rnn_free(m);
        return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate parameters", fn);
    }
    m->params = m->mem;
    m->grads = m->params + m->n_params;
    m->adam_m = m->grads + m->n_params;
    m->adam_v = m->adam_m + m->n_params;
    size_t at = 0;
    for (int i = 0; i < P_COUNT; i++) {
        m->p[i] = m->params + at;
        m->g[i] = m->grads + at;
        at += m->p_size[i];
    }
    init_params(m);
    if ((st = alloc_acts(m, cfg[SX_RNN_MAX_BATCH], fn)) != SX_OK) {
        sx_rnn_free(m);
        return st;
    }
    *out = m;
    return SX_OK;
}

int sx_rnn_create(sx_rnn **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg) {
    if (!out) return sx__fail(SX_EINVAL, -1, "rnn_create: out is NULL");
    *out = NULL;
    return sx__rnn_new(out, cfg, n_cfg, fcfg, n_fcfg, "rnn_create", SIZE_MAX);
}

SX_COLD_END

/* ================================================================ GRU cell */
static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* One step for B rows: h (B, H) from gx (B, 3H) = x W_x + b_x and h_prev (B, H); saves the gates
   (B, 3H: r, z, n) and ghn (B, H) for the backward pass. gh: (B, 3H) scratch. */
static void gru_forward(float *h, float *gate, float *ghn, float *gh, const float *gx,
                        const float *h_prev, const float *w_h, const float *b_h, int B, int H) {
    sx_nn_linear_forward(gh, h_prev, w_h, b_h, B, H, 3 * H);
    for (int b = 0; b < B; b++) {
        const float *gx_b = gx + (size_t)b * 3 * H, *gh_b = gh + (size_t)b * 3 * H;
        const float *hp = h_prev + (size_t)b * H;
        float *g_b = gate + (size_t)b * 3 * H, *h_b = h + (size_t)b * H, *ghn_b = ghn + (size_t)b * H;
        for (int i = 0; i < H; i++) {
            const float r = sigmoidf(gx_b[i] + gh_b[i]);
            const float z = sigmoidf(gx_b[H + i] + gh_b[H + i]);
            const float n = tanhf(gx_b[2 * H + i] + r * gh_b[2 * H + i]);
            g_b[i] = r, g_b[H + i] = z, g_b[2 * H + i] = n;
            ghn_b[i] = gh_b[2 * H + i];
            h_b[i] = (1.0f - z) * n + z * hp[i];
        }
    }
}

/* Backward of one step: dgx (B, 3H) is overwritten with d(x W_x + b_x); dh_prev, dw_h, db_h
   accumulate. dh (B, H) is d h. dgh: (B, 3H) scratch. */
static void gru_backward(float *dgx, float *dh_prev, float *dw_h, float *db_h, float *dgh,
                         const float *dh, const float *gate, const float *ghn, const float *h_prev,
                         const float *w_h, int B, int H) {
    for (int b = 0; b < B; b++) {
        const float *g_b = gate + (size_t)b * 3 * H, *ghn_b = ghn + (size_t)b * H;
        const float *hp = h_prev + (size_t)b * H, *dh_b = dh + (size_t)b * H;
        float *dgx_b = dgx + (size_t)b * 3 * H, *dgh_b = dgh + (size_t)b * 3 * H;
        float *dhp = dh_prev + (size_t)b * H;
        for (int i = 0; i < H; i++) {
            const float r = g_b[i], z = g_b[H + i], n = g_b[2 * H + i], d = dh_b[i];
            const float dn = d * (1.0f - z) * (1.0f - n * n); /* through tanh */
            const float dz = d * (hp[i] - n) * z * (1.0f - z);
            const float dr = dn * ghn_b[i] * r * (1.0f - r);
            dhp[i] += d * z;
            dgx_b[i] = dgh_b[i] = dr;
            dgx_b[H + i] = dgh_b[H + i] = dz;
            dgx_b[2 * H + i] = dn;
            dgh_b[2 * H + i] = dn * r;
        }
    }
    sx_nn_linear_backward(dh_prev, dw_h, db_h, dgh, h_prev, w_h, B, H, 3 * H);
}

/* ================================================================= forward */
static int check_tokens(const sx_rnn *m, const char *fn, const char *name, const int *tok, int len,
                        int count, int min_len) {
    return sx__check_tokens(fn, name, tok, len, count, min_len, m->T, m->V);
}
static int check_call(const sx_rnn *m, const char *fn, int count) {
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    return sx__check_count(fn, count, m->max_batch);
}

/* Encoder over src (B, Ts): states, keys, klen, and s_0 = h_last. */
static int encoder_forward(sx_rnn *m, const int *src, int B, int Ts) {
    const int H = m->H, E = m->E;
    float **a = m->a, **p = m->p;
    int *tok = m->in[I_SRC], *klen = m->in[I_KLEN];
    for (int b = 0; b < B; b++) {
        int n = 0;
        while (n < Ts && src[b * Ts + n] != SX_TOKEN_PAD) n++;
        klen[b] = n;
        for (int t = 0; t < Ts; t++) tok[t * B + b] = src[b * Ts + t];
    }
    int st = sx_nn_embedding_forward(a[A_E_EMB], tok, p[P_WTE], NULL, 1.0f, 1, Ts * B, E, m->V);
    if (st != SX_OK) return st;
    sx_nn_linear_forward(a[A_E_GX], a[A_E_EMB], p[P_E_WX], p[P_E_BX], Ts * B, E, 3 * H);
    memset(a[A_E_H], 0, (size_t)B * H * sizeof(float));
    for (int t = 0; t < Ts; t++) {
        const size_t r = (size_t)t * B;
        gru_forward(a[A_E_H] + (r + B) * H, a[A_E_GATE] + r * 3 * H, a[A_E_GHN] + r * H, a[A_GH],
                    a[A_E_GX] + r * 3 * H, a[A_E_H] + r * H, p[P_E_WH], p[P_E_BH], B, H);
    }
    for (int b = 0; b < B; b++) {
        for (int j = 0; j < Ts; j++)
            memcpy(a[A_KEYS] + ((size_t)b * Ts + j) * H, a[A_E_H] + ((size_t)(j + 1) * B + b) * H,
                   (size_t)H * sizeof(float));
        memcpy(a[A_D_S] + (size_t)b * H, a[A_E_H] + ((size_t)klen[b] * B + b) * H,
               (size_t)H * sizeof(float));
    }
    return SX_OK;
}

/* The mapping's kind and parameter (learned alpha: 1 + sigmoid(a)). */
static float map_param(const sx_rnn *m) {
    if (m->map == SX_MAP_ENTMAX_LEARNED) return sx_nn_alpha_of(m->p[P_ALPHA][0]);
    return m->fcfg[SX_RNN_F_PARAM];
}

/* Row (b, t) of a (B, Tt, Ts) map. */
static float *map_row(const sx_rnn *m, int which, int b, int t) {
    return m->a[which] + ((size_t)b * m->Tt + t) * m->Ts;
}

/* The context c (H) of step t for batch row b, and its weights. sample: hard attention draws
   by the estimator (training) instead of taking the argmax. */
static int context_forward(sx_rnn *m, float *c, int b, int t, int sample) {
    const int H = m->H, Ts = m->Ts, n = m->in[I_KLEN][b];
    float *att = map_row(m, A_ATT, b, t), *e = map_row(m, A_SCORE, b, t);
    float *pr = map_row(m, A_PROB, b, t);
    const float *keys = m->a[A_KEYS] + (size_t)b * Ts * H;
    memset(att, 0, (size_t)Ts * sizeof(float));
    if (m->attn == SX_RNN_NONE || n == 0) {
        memcpy(c, m->a[A_D_S] + (size_t)b * H, (size_t)H * sizeof(float)); /* h_last (0 if n = 0) */
        if (n > 0) att[n - 1] = 1.0f;
        return SX_OK;
    }
    const float *s = m->a[A_D_S] + ((size_t)t * m->B + b) * H;
    int st = sx_attention_scores(e, s, keys, m->p[P_ATT], 1, n, H, H, m->A, SX_SCORE_ADDITIVE);
    if (st == SX_OK) st = sx_nn_map_forward(pr, e, 1, n, m->map, map_param(m));
    if (st != SX_OK) return st;
    if (m->attn == SX_RNN_HARD) {
        const int j = sx__hard_select(map_row(m, A_SOFT, b, t), pr, n, m->est,
                                      m->fcfg[SX_RNN_F_TEMPERATURE], sample, &m->rng);
        m->in[I_PICK][b * m->Tt + t] = j;
        att[j] = 1.0f;
    } else {
        memcpy(att, pr, (size_t)n * sizeof(float));
    }
    memset(c, 0, (size_t)H * sizeof(float));
    for (int j = 0; j < n; j++)
        if (att[j] != 0.0f)
            for (int i = 0; i < H; i++) c[i] += att[j] * keys[(size_t)j * H + i];
    return SX_OK;
}

/* Decoder step t over din (T, B): contexts, the GRU, the logits of row t. */
static int decoder_step(sx_rnn *m, int t, int sample) {
    const int B = m->B, H = m->H, E = m->E, V = m->V, EH = E + H;
    float **a = m->a, **p = m->p;
    const size_t r = (size_t)t * B;
    float *x = a[A_D_X] + r * EH, *o = a[A_D_O] + r * 2 * H;
    int st = sx_nn_embedding_forward(a[A_D_EMB] + r * E, m->in[I_DIN] + r, p[P_WTE], NULL, 1.0f, 1,
                                     B, E, V);
    if (st != SX_OK) return st;
    for (int b = 0; b < B; b++) {
        float *x_b = x + (size_t)b * EH;
        memcpy(x_b, a[A_D_EMB] + (r + b) * E, (size_t)E * sizeof(float));
        if ((st = context_forward(m, x_b + E, b, t, sample)) != SX_OK) return st;
    }
    sx_nn_linear_forward(a[A_D_GX] + r * 3 * H, x, p[P_D_WX], p[P_D_BX], B, EH, 3 * H);
    float *s_next = a[A_D_S] + (r + B) * H;
    gru_forward(s_next, a[A_D_GATE] + r * 3 * H, a[A_D_GHN] + r * H, a[A_GH],
                a[A_D_GX] + r * 3 * H, a[A_D_S] + r * H, p[P_D_WH], p[P_D_BH], B, H);
    for (int b = 0; b < B; b++) {
        memcpy(o + (size_t)b * 2 * H, s_next + (size_t)b * H, (size_t)H * sizeof(float));
        memcpy(o + (size_t)b * 2 * H + H, x + (size_t)b * EH + E, (size_t)H * sizeof(float));
    }
    float *lg = a[A_LOGITS] + r * V;
    sx_nn_linear_forward(lg, o, p[P_OUT_W], p[P_OUT_B], B, 2 * H, V);
    for (size_t i = 0; i < (size_t)B * V; i++)
        if (!(lg[i] > -INFINITY && lg[i] < INFINITY))
            return sx__fail(SX_ENONFINITE, -1, "the rnn's logits are not finite (logit %d is %g): "
                            "its weights overflow float32 arithmetic", (int)i, (double)lg[i]);
    for (int b = 0; b < B; b++)
        memcpy(a[A_LOGITS_BM] + ((size_t)b * m->Tt + t) * V, lg + (size_t)b * V, (size_t)V * sizeof(float));
    return SX_OK;
}

/* The whole teacher-forced pass over m->in[I_DIN] (Tt, B). */
static int run(sx_rnn *m, const int *src, int B, int Ts, int Tt, int sample) {
    m->B = B, m->Ts = Ts, m->Tt = Tt;
    int st = encoder_forward(m, src, B, Ts);
    for (int t = 0; st == SX_OK && t < Tt; t++) st = decoder_step(m, t, sample);
    if (st != SX_OK) m->B = 0;
    return st;
}

int sx_rnn_forward(sx_rnn *m, const int *src, int src_len, const int *tgt_in, int tgt_len,
                   int count) {
    static const char fn[] = "rnn_forward";
    int st = check_call(m, fn, count);
    if (st == SX_OK) st = check_tokens(m, fn, "src", src, src_len, count, 1);
    if (st == SX_OK) st = check_tokens(m, fn, "tgt_in", tgt_in, tgt_len, count, 1);
    if (st != SX_OK) return st;
    for (int b = 0; b < count; b++)
        for (int t = 0; t < tgt_len; t++) m->in[I_DIN][t * count + b] = tgt_in[b * tgt_len + t];
    return run(m, src, count, src_len, tgt_len, 0);
}

/* Forward on full target rows with the mean cross-entropy; the per-row sums in A_SEQ. */
static int loss_forward(sx_rnn *m, float *loss, const int *src, int Ts, const int *tgt, int len,
                        int B, int sample, const char *fn) {
    int st = check_call(m, fn, B);
    if (st == SX_OK) st = check_tokens(m, fn, "src", src, Ts, B, 1);
    if (st == SX_OK) st = check_tokens(m, fn, "tgt", tgt, len, B, 2);
    if (st != SX_OK) return st;
    const int Tt = len - 1, V = m->V;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < Tt; t++) {
            const int y = tgt[b * len + t + 1];
            m->in[I_DIN][t * B + b] = tgt[b * len + t];
            m->in[I_LABELS][t * B + b] = y == SX_TOKEN_PAD ? -1 : y;
        }
    if ((st = run(m, src, B, Ts, Tt, sample)) != SX_OK) return st;
    float ce = 0.0f;
    st = sx_nn_crossentropy_forward(&ce, m->a[A_PROBS], m->a[A_LOGITS], m->in[I_LABELS], Tt * B, V, -1);
    if (st != SX_OK) return st;
    for (int b = 0; b < B; b++) {
        double s = 0.0;
        for (int t = 0; t < Tt; t++) {
            const int y = m->in[I_LABELS][t * B + b];
            if (y >= 0) s -= log(fmax((double)m->a[A_PROBS][((size_t)t * B + b) * V + y], 1e-30));
        }
        m->a[A_SEQ][b] = (float)s;
    }
    if (loss) *loss = ce;
    return SX_OK;
}

int sx_rnn_loss(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt, int tgt_len,
                int count) {
    return loss_forward(m, loss, src, src_len, tgt, tgt_len, count, 0, "rnn_loss");
}

/* ================================================================ backward */
/* d c of step t, batch row b, into the scores' parameters, the query s_t and the keys. */
static int context_backward(sx_rnn *m, const float *dc, int b, int t, int count) {
    const int H = m->H, Ts = m->Ts, n = m->in[I_KLEN][b], B = m->B;
    float **a = m->a;
    if (m->attn == SX_RNN_NONE || n == 0) {
        if (n > 0) sx_nn_accumulate(a[A_G_S] + (size_t)b * H, dc, (size_t)H);
        return SX_OK;
    }
    const float *keys = a[A_KEYS] + (size_t)b * Ts * H, *att = map_row(m, A_ATT, b, t);
    const float *pr = map_row(m, A_PROB, b, t), *e = map_row(m, A_SCORE, b, t);
    float *dkeys = a[A_G_KEYS] + (size_t)b * Ts * H;
    float *dw = a[A_G_ROW], *de = dw + Ts, *dp = de + Ts, *dq = dp + Ts, *dk = dq + H;
    float *dpar = dk + (size_t)Ts * H;
    for (int j = 0; j < n; j++) { /* dw_j = <dc, h_j>; dh_j += w_j dc */
        double s = 0.0;
        for (int i = 0; i < H; i++) s += (double)dc[i] * keys[(size_t)j * H + i];
        dw[j] = (float)s;
        if (att[j] != 0.0f)
            for (int i = 0; i < H; i++) dkeys[(size_t)j * H + i] += att[j] * dc[i];
    }
    if (m->attn == SX_RNN_HARD) {
        const int j = m->in[I_PICK][b * m->Tt + t];
        float weight = 0.0f;
        if (m->est == SX_RNN_REINFORCE) {
            const double base = isnan(m->baseline) ? 0.0 : m->baseline;
            int nb = 0;
            for (int u = 0; u < m->Tt; u++) nb += m->in[I_LABELS][u * B + b] >= 0;
            weight = (float)((a[A_SEQ][b] - base * nb) / count);
        }
        sx__hard_grad(dp, dw, map_row(m, A_SOFT, b, t), pr, n, j, m->est,
                      m->fcfg[SX_RNN_F_TEMPERATURE], weight);
    } else {
        memcpy(dp, dw, (size_t)n * sizeof(float));
    }
    float dalpha = 0.0f;
    const int learned = m->map == SX_MAP_ENTMAX_LEARNED;
    int st = sx_nn_map_backward(de, learned ? &dalpha : NULL, e, pr, dp, 1, n, m->map, map_param(m));
    if (st != SX_OK) return st;
    if (learned) {
        const float al = map_param(m); /* d alpha / d a = sigmoid(a)(1 - sigmoid(a)) */
        m->g[P_ALPHA][0] += dalpha * (al - 1.0f) * (2.0f - al);
    }
    const float *s = a[A_D_S] + ((size_t)t * B + b) * H;
    st = sx_attention_scores_backward(dq, dk, dpar, de, s, keys, m->p[P_ATT], 1, n, H, H, m->A,
                                      SX_SCORE_ADDITIVE);
    if (st != SX_OK) return st;
    sx_nn_accumulate(a[A_G_S] + ((size_t)t * B + b) * H, dq, (size_t)H);
    sx_nn_accumulate(dkeys, dk, (size_t)n * H);
    sx_nn_accumulate(m->g[P_ATT], dpar, m->p_size[P_ATT]);
    return SX_OK;
}

/* Backward of decoder step t: d s_{t+1} in G_S[t + 1], d c_t in G_C[t]. */
static int decoder_step_backward(sx_rnn *m, int t, int count) {
    const int B = m->B, H = m->H, E = m->E, EH = E + H;
    float **a = m->a, **g = m->g;
    const size_t r = (size_t)t * B;
    float *dgx = a[A_G_GX] + r * 3 * H, *dx = a[A_G_X];
    gru_backward(dgx, a[A_G_S] + r * H, g[P_D_WH], g[P_D_BH], a[A_GH], a[A_G_S] + (r + B) * H,
                 a[A_D_GATE] + r * 3 * H, a[A_D_GHN] + r * H, a[A_D_S] + r * H, m->p[P_D_WH], B, H);
    memset(dx, 0, (size_t)B * EH * sizeof(float));
    sx_nn_linear_backward(dx, g[P_D_WX], g[P_D_BX], dgx, a[A_D_X] + r * EH, m->p[P_D_WX], B, EH,
                          3 * H);
    for (int b = 0; b < B; b++) {
        memcpy(a[A_G_EMB] + (r + b) * E, dx + (size_t)b * EH, (size_t)E * sizeof(float));
        float *dc = a[A_G_C] + (r + b) * H;
        sx_nn_accumulate(dc, dx + (size_t)b * EH + E, (size_t)H);
        const int st = context_backward(m, dc, b, t, count);
        if (st != SX_OK) return st;
    }
    return SX_OK;
}

/* Backward of the encoder from d keys (G_KEYS) and d h_last (G_S[0]). */
static void encoder_backward(sx_rnn *m) {
    const int B = m->B, Ts = m->Ts, H = m->H, E = m->E;
    float **a = m->a, **g = m->g;
    const int *klen = m->in[I_KLEN];
    float *dh = a[A_G_H];
    memset(dh, 0, (size_t)(Ts + 1) * B * H * sizeof(float));
    for (int b = 0; b < B; b++) {
        for (int j = 0; j < Ts; j++)
            sx_nn_accumulate(dh + ((size_t)(j + 1) * B + b) * H, a[A_G_KEYS] + ((size_t)b * Ts + j) * H,
                             (size_t)H);
        if (klen[b] > 0)
            sx_nn_accumulate(dh + ((size_t)klen[b] * B + b) * H, a[A_G_S] + (size_t)b * H, (size_t)H);
    }
    for (int t = Ts - 1; t >= 0; t--) {
        const size_t r = (size_t)t * B;
        gru_backward(a[A_G_GX] + r * 3 * H, dh + r * H, g[P_E_WH], g[P_E_BH], a[A_GH],
                     dh + (r + B) * H, a[A_E_GATE] + r * 3 * H, a[A_E_GHN] + r * H,
                     a[A_E_H] + r * H, m->p[P_E_WH], B, H);
    }
    memset(a[A_G_EMB], 0, (size_t)Ts * B * E * sizeof(float));
    sx_nn_linear_backward(a[A_G_EMB], g[P_E_WX], g[P_E_BX], a[A_G_GX], a[A_E_EMB], m->p[P_E_WX],
                          Ts * B, E, 3 * H);
    sx_nn_embedding_backward(g[P_WTE], a[A_G_EMB], m->in[I_SRC], 1.0f, 1, Ts * B, E);
}

/* Gradient of the last loss_forward into m->grads (zeroed here). */
static int rnn_backward(sx_rnn *m) {
    const int B = m->B, Tt = m->Tt, Ts = m->Ts, H = m->H, E = m->E, V = m->V, N = Tt * B;
    float **a = m->a, **g = m->g;
    int count = 0;
    for (int i = 0; i < N; i++) count += m->in[I_LABELS][i] >= 0;
    memset(m->grads, 0, m->n_params * sizeof(float));
    memset(a[A_G_LOGITS], 0, (size_t)N * V * sizeof(float));
    memset(a[A_G_O], 0, (size_t)N * 2 * H * sizeof(float));
    memset(a[A_G_S], 0, (size_t)(Tt + 1) * B * H * sizeof(float));
    memset(a[A_G_C], 0, (size_t)N * H * sizeof(float));
    memset(a[A_G_KEYS], 0, (size_t)B * Ts * H * sizeof(float));
    sx_nn_crossentropy_backward(a[A_G_LOGITS], a[A_PROBS], m->in[I_LABELS], N, V, -1, 1.0f);
    sx_nn_linear_backward(a[A_G_O], g[P_OUT_W], g[P_OUT_B], a[A_G_LOGITS], a[A_D_O], m->p[P_OUT_W],
                          N, 2 * H, V);
    for (int i = 0; i < N; i++) { /* [s_{t+1}; c_t] */
        sx_nn_accumulate(a[A_G_S] + ((size_t)B + i) * H, a[A_G_O] + (size_t)i * 2 * H, (size_t)H);
        sx_nn_accumulate(a[A_G_C] + (size_t)i * H, a[A_G_O] + (size_t)i * 2 * H + H, (size_t)H);
    }
    float *demb = a[A_G_EMB]; /* the decoder's embeddings first, the encoder's after */
    for (int t = Tt - 1; t >= 0; t--) {
        const int st = decoder_step_backward(m, t, count ? count : 1);
        if (st != SX_OK) return st;
    }
    sx_nn_embedding_backward(g[P_WTE], demb, m->in[I_DIN], 1.0f, 1, N, E);
    encoder_backward(m);
    return SX_OK;
}

/* REINFORCE's baseline after a step: the moving average of the per-label loss. */
static void update_baseline(sx_rnn *m, float loss) {
    const double d = m->fcfg[SX_RNN_F_BASELINE];
    m->baseline = isnan(m->baseline) ? loss : d * m->baseline + (1.0 - d) * loss;
}

int sx_rnn_backward(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt,
                    int tgt_len, int count) {
    float l = 0.0f;
    int st = loss_forward(m, &l, src, src_len, tgt, tgt_len, count, 1, "rnn_backward");
    if (st == SX_OK) st = rnn_backward(m);
    if (st != SX_OK) return st;
    if (m->attn == SX_RNN_HARD && m->est == SX_RNN_REINFORCE) update_baseline(m, l);
    if (loss) *loss = l;
    return SX_OK;
}

/* ================================================================ training */
int sx_rnn_train_step(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt,
                      int tgt_len, int count, float lr) {
    static const char fn[] = "rnn_train_step";
    if (m && !(lr >= 0.0f && lr < INFINITY))
        return sx__fail(SX_EINVAL, -1, "%s: lr must be finite and >= 0 (got %g)", fn, (double)lr);
    int st = sx_rnn_backward(m, loss, src, src_len, tgt, tgt_len, count);
    if (st != SX_OK) return st;
    /* Adam at lr, alpha_a at lr * alpha_lr, one global clip (layers.c), as the Transformer's */
    const size_t na = m->p_size[P_ALPHA];
    const float norm = sx_nn_adam_two_rates(m->params, m->adam_m, m->adam_v, m->grads,
                                            m->n_params - na, na, &m->step, lr,
                                            m->fcfg[SX_RNN_F_ALPHA_LR], m->fcfg[SX_RNN_F_CLIP]);
    if (!(norm < INFINITY))
        return sx__fail(SX_ENONFINITE, -1, "%s: gradient norm is %g (diverged)", fn, (double)norm);
    return SX_OK;
}

/* ================================================================ decoding */
int sx_rnn_generate(sx_rnn *m, int *out, int out_len, const int *src, int src_len, int count) {
    static const char fn[] = "rnn_generate";
    int st = check_call(m, fn, count);
    if (st == SX_OK) st = check_tokens(m, fn, "src", src, src_len, count, 1);
    if (st != SX_OK) return st;
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    if (out_len < 2 || out_len > m->T)
        return sx__fail(SX_EINVAL, -1, "%s: out_len must be in [2, max_len %d] (got %d)", fn, m->T,
                        out_len);
    const int V = m->V, Tt = out_len - 1;
    m->B = count, m->Ts = src_len, m->Tt = Tt;
    if ((st = encoder_forward(m, src, count, src_len)) != SX_OK) return m->B = 0, st;
    for (int i = 0; i < count * out_len; i++) out[i] = SX_TOKEN_PAD;
    for (int b = 0; b < count; b++) out[b * out_len] = m->in[I_DIN][b] = SX_TOKEN_BOS;
    for (int t = 0; t < Tt; t++) {
        if ((st = decoder_step(m, t, 0)) != SX_OK) return m->B = 0, st;
        for (int b = 0; b < count; b++) {
            const float *lg = m->a[A_LOGITS] + ((size_t)t * count + b) * V;
            int best = SX_TOKEN_EOS;
            for (int v = SX_TOKEN_EOS + 1; v < V; v++) best = lg[v] > lg[best] ? v : best;
            const int done = t > 0 && (out[b * out_len + t] == SX_TOKEN_EOS ||
                                       out[b * out_len + t] == SX_TOKEN_PAD);
            if (!done) out[b * out_len + t + 1] = best;
            if (t + 1 < Tt) m->in[I_DIN][(t + 1) * count + b] = best;
        }
    }
    return SX_OK;
}

/* ================================================================= queries */
SX_COLD_BEGIN

int sx_rnn_config(const sx_rnn *m, int field) {
    if (!m || field < 0 || field >= SX_RNN_N_CFG) {
        sx__fail(SX_EINVAL, field, "rnn_config: field must be in [0, %d) (got %d)", SX_RNN_N_CFG,
                 field);
        return -1;
    }
    return m->cfg[field];
}

float sx_rnn_fconfig(const sx_rnn *m, int field) {
    if (!m || field < 0 || field >= SX_RNN_N_FCFG) {
        sx__fail(SX_EINVAL, field, "rnn_fconfig: field must be in [0, %d) (got %d)", SX_RNN_N_FCFG,
                 field);
        return NAN;
    }
    return m->fcfg[field];
}

int sx_rnn_num_params(const sx_rnn *m) { return m ? (int)m->n_params : 0; }
float *sx_rnn_params(sx_rnn *m) { return m ? m->params : NULL; }
float *sx_rnn_grads(sx_rnn *m) { return m ? m->grads : NULL; }
int sx_rnn_tensor_count(void) { return P_COUNT; }
const char *sx_rnn_tensor_name(int index) {
    return index >= 0 && index < P_COUNT ? tensor_name[index] : NULL;
}
int sx_rnn_tensor_offset(const sx_rnn *m, int index) {
    return m && index >= 0 && index < P_COUNT ? (int)(m->p[index] - m->params) : -1;
}
int sx_rnn_tensor_size(const sx_rnn *m, int index) {
    return m && index >= 0 && index < P_COUNT ? (int)m->p_size[index] : -1;
}
int sx_rnn_steps(const sx_rnn *m) { return m ? m->step : 0; }

float sx_rnn_alpha(const sx_rnn *m) {
    if (!m || m->attn == SX_RNN_NONE) return 0.0f;
    switch (m->map) {
    case SX_MAP_SOFTMAX: return 1.0f;
    case SX_MAP_ENTMAX15: return 1.5f;
    case SX_MAP_ENTMAX: case SX_MAP_ENTMAX_LEARNED: return map_param(m);
    default: return 2.0f;
    }
}

const float *sx_rnn_logits(const sx_rnn *m) { return m && m->B ? m->a[A_LOGITS_BM] : NULL; }
const float *sx_rnn_attention(const sx_rnn *m) { return m && m->B ? m->a[A_ATT] : NULL; }
int sx_rnn_attention_shape(const sx_rnn *m, int dim) {
    if (!m || !m->B || dim < 0 || dim > 2) return -1;
    return dim == 0 ? m->B : dim == 1 ? m->Tt : m->Ts;
}

SX_COLD_END
