/* rationale.c - the rationale model (rationale.h): a generator's scores per position, the
   selection of each method (sparsemax, 1.5-entmax, HardKuma gates, REINFORCE Bernoulli gates),
   a predictor over the selected tokens; forward, hand-written backward, Adam. Sections: model
   lifetime, generator, selection, predictor, loss and gradient, public calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "rationale.h"

SX_COLD_BEGIN /* minutes of training at page scale: compiled for size in the wasm builds */

enum { D = SX_RAT_D, H = SX_RAT_H, T = SX_RAT_T, V = SX_RAT_V, W3 = 3 * SX_RAT_D };
#define KUMA_L (-0.1)
#define KUMA_R 1.1
#define KUMA_MIN 0.01 /* a, b = KUMA_MIN + softplus(score) */

/* ================================================================ model lifetime */
static const size_t SIZES[SX_RAT_P_COUNT] = {V * D, W3 * H, H, H * 2, 2, V * D, D * 2, 2};

static void init_params(sx_rationale *m, int seed) {
    sx__rng r;
    sx__rng_init(&r, (uint64_t)(uint32_t)seed, 0x7261746eu); /* "ratn" */
    const float scale[SX_RAT_P_COUNT] = {0.5f, 1.0f / 6.93f, 0, 0.25f, 0, 0.5f, 0.25f, 0};
    for (int i = 0; i < SX_RAT_P_COUNT; i++)
        for (size_t j = 0; j < SIZES[i]; j++) m->p[i][j] = scale[i] * sx__rng_normal(&r);
}

/* Activations and scratch for max_batch rows, one allocation: each buffer is B T or B times its
   width in floats, in the struct's order. */
static int alloc_acts(sx_rationale *m, int B) {
    float **const slot[] = {&m->eg, &m->win, &m->hc, &m->s, &m->sc, &m->w, &m->ep, &m->aux, &m->d_big,
                            &m->d_win, &m->d_hc, &m->d_s, &m->d_w, &m->noise, &m->h, &m->den, &m->logits,
                            &m->probs};
    static const unsigned char width[] = {D, W3, H, 2, 1, 1, D, 1, D, W3, H, 2, 1, 1, D, 1, 2, 2};
    enum { PER_POSITION = 14, SLOTS = sizeof width };
    size_t n = 0;
    for (int k = 0; k < SLOTS; k++) n += (size_t)width[k] * B * (k < PER_POSITION ? T : 1);
    float *a = calloc(n, sizeof(float));
    if (!a) return SX_ENOMEM;
    for (int k = 0; k < SLOTS; k++) *slot[k] = a, a += (size_t)width[k] * B * (k < PER_POSITION ? T : 1);
    return SX_OK;
}

int sx_rationale_create(sx_rationale **out, int method, int seed, int max_batch, float sparsity) {
    static const char fn[] = "rationale_create";
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    *out = NULL;
    if (method < 0 || method >= SX_RATIONALE_METHODS)
        return sx__fail(SX_EINVAL, -1, "%s: method must be in [0, 3] (got %d)", fn, method);
    if (max_batch < 1 || max_batch > 4096)
        return sx__fail(SX_EINVAL, -1, "%s: max_batch must be in [1, 4096] (got %d)", fn, max_batch);
    if (!(sparsity >= 0.0f && sparsity < INFINITY))
        return sx__fail(SX_EINVAL, -1, "%s: sparsity must be finite and >= 0 (got %g)", fn, (double)sparsity);
    sx_rationale *m = calloc(1, sizeof *m);
    if (!m) return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    m->method = method, m->max_batch = max_batch, m->sparsity = sparsity;
    for (int i = 0; i < SX_RAT_P_COUNT; i++) m->n_params += SIZES[i];
    m->params = calloc(4 * m->n_params, sizeof(float));
    if (!m->params || alloc_acts(m, max_batch) != SX_OK) {
        sx_rationale_free(m);
        return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    }
    m->grads = m->params + m->n_params;
    m->adam_m = m->grads + m->n_params;
    m->adam_v = m->adam_m + m->n_params;
    size_t at = 0;
    for (int i = 0; i < SX_RAT_P_COUNT; i++) m->p[i] = m->params + at, m->g[i] = m->grads + at, at += SIZES[i];
    init_params(m, seed);
    sx__rng_init(&m->rng, (uint64_t)(uint32_t)seed, 0x6e6f6973u); /* "nois" */
    *out = m;
    return SX_OK;
}

void sx_rationale_free(sx_rationale *m) {
    if (!m) return;
    free(m->eg);
    free(m->params);
    free(m);
}

int sx_rationale_num_params(const sx_rationale *m) { return m ? (int)m->n_params : 0; }
int sx_rationale_steps(const sx_rationale *m) { return m ? m->step : 0; }
float *sx_rationale_params(sx_rationale *m) { return m ? m->params : NULL; }
float *sx_rationale_grads(sx_rationale *m) { return m ? m->grads : NULL; }

/* ================================================================ generator */
/* s (B T, 2) = tanh(window(Eg[x]) Wc + bc) Wo + bo; hc keeps the tanh output. */
static int generator_forward(sx_rationale *m, const int *tok, int B) {
    int st = sx_nn_embedding_forward(m->eg, tok, m->p[SX_RAT_EG], NULL, 1.0f, B, T, D, V);
    if (st != SX_OK) return st;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            float *win = m->win + ((size_t)b * T + t) * W3; /* (3D): left, centre, right */
            for (int k = -1; k <= 1; k++) {
                const int u = t + k;
                if (u < 0 || u >= T) memset(win + (k + 1) * D, 0, D * sizeof(float));
                else memcpy(win + (k + 1) * D, m->eg + ((size_t)b * T + u) * D, D * sizeof(float));
            }
        }
    const int N = B * T;
    sx_nn_linear_forward(m->hc, m->win, m->p[SX_RAT_WC], m->p[SX_RAT_BC], N, W3, H);
    for (size_t i = 0; i < (size_t)N * H; i++) m->hc[i] = tanhf(m->hc[i]);
    sx_nn_linear_forward(m->s, m->hc, m->p[SX_RAT_WO], m->p[SX_RAT_BO], N, H, 2);
    return SX_OK;
}

/* From d_s (B T, 2) back to the generator's parameters. */
static void generator_backward(sx_rationale *m, const int *tok, int B) {
    const int N = B * T;
    memset(m->d_hc, 0, (size_t)N * H * sizeof(float));
    sx_nn_linear_backward(m->d_hc, m->g[SX_RAT_WO], m->g[SX_RAT_BO], m->d_s, m->hc, m->p[SX_RAT_WO], N, H, 2);
    for (size_t i = 0; i < (size_t)N * H; i++) m->d_hc[i] *= 1.0f - m->hc[i] * m->hc[i];
    memset(m->d_win, 0, (size_t)N * W3 * sizeof(float));
    sx_nn_linear_backward(m->d_win, m->g[SX_RAT_WC], m->g[SX_RAT_BC], m->d_hc, m->win, m->p[SX_RAT_WC], N, W3, H);
    memset(m->d_big, 0, (size_t)N * D * sizeof(float));
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int k = -1; k <= 1; k++) {
                const int u = t + k;
                if (u < 0 || u >= T) continue;
                sx_nn_accumulate(m->d_big + ((size_t)b * T + u) * D,
                                 m->d_win + ((size_t)b * T + t) * W3 + (k + 1) * D, D);
            }
    sx_nn_embedding_backward(m->g[SX_RAT_EG], m->d_big, tok, 1.0f, B, T, D);
}

/* ================================================================ selection */
static double softplus(double x) { return x > 20 ? x : log1p(exp(x)); }
static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
/* x0 = -l / (r - l): the point of [0, 1] that the stretch maps to z = 0 */
static double kuma_x0(void) { return -KUMA_L / (KUMA_R - KUMA_L); }
/* P(z != 0) = P(k > x0) = (1 - x0^a)^b */
static double kuma_nonzero(double a, double b) { return pow(1.0 - pow(kuma_x0(), a), b); }

/* k = (1 - (1 - u)^(1/b))^(1/a); u NULL: Kuma's median, u = 1/2. Writes dk/da, dk/db. */
static double kuma_sample(double a, double b, double u, double *dka, double *dkb) {
    const double l1u = log1p(-u), q = exp(l1u / b), mq = 1.0 - q;
    *dka = *dkb = 0.0;
    if (!(mq > 0.0)) return 0.0;
    const double k = exp(log(mq) / a);
    *dka = -k * log(mq) / (a * a);
    *dkb = k / (a * mq) * q * l1u / (b * b);
    return k;
}

/* w (B, T) from s; sc keeps s0 rows (the mappings' input, REINFORCE's sigmoid). */
static int select_forward(sx_rationale *m, int B, const float *noise) {
    const int N = B * T;
    for (int i = 0; i < N; i++) m->sc[i] = m->s[2 * i];
    if (m->method == SX_RATIONALE_SPARSEMAX || m->method == SX_RATIONALE_ENTMAX15)
        return sx_nn_map_forward(m->w, m->sc, B, T,
                                 m->method == SX_RATIONALE_SPARSEMAX ? SX_NN_SPARSEMAX : SX_NN_ENTMAX15, 0.0f);
    for (int i = 0; i < N; i++) { /* a NaN score makes NaN logits: the loss's SX_ENONFINITE */
        if (m->method == SX_RATIONALE_REINFORCE) {
            const double pi = sigmoid(m->sc[i]);
            m->w[i] = noise ? (float)(noise[i] < pi) : (float)(pi > 0.5);
            m->aux[i] = (float)pi;
            continue;
        }
        const double a = KUMA_MIN + softplus(m->sc[i]), b = KUMA_MIN + softplus(m->s[2 * i + 1]);
        double dka, dkb;
        const double k = kuma_sample(a, b, noise ? noise[i] : 0.5, &dka, &dkb);
        const double t = KUMA_L + (KUMA_R - KUMA_L) * k;
        m->w[i] = t <= 0.0 ? 0.0f : t >= 1.0 ? 1.0f : (float)t;
        m->aux[i] = (float)t; /* the stretched value, for the clamp's gradient */
    }
    return SX_OK;
}

/* d_s from d_w (and the penalty's gradient for HardKuma); REINFORCE's is made in loss_backward. */
static int select_backward(sx_rationale *m, int B, const float *noise) {
    const int N = B * T;
    memset(m->d_s, 0, (size_t)N * 2 * sizeof(float));
    if (m->method == SX_RATIONALE_SPARSEMAX || m->method == SX_RATIONALE_ENTMAX15) {
        float *ds0 = m->d_big; /* free after the predictor's backward */
        const int st = sx_nn_map_backward(ds0, NULL, m->sc, m->w, m->d_w, B, T,
                                          m->method == SX_RATIONALE_SPARSEMAX ? SX_NN_SPARSEMAX : SX_NN_ENTMAX15, 0.0f);
        for (int i = 0; i < N; i++) m->d_s[2 * i] = ds0[i];
        return st;
    }
    const double pen = m->sparsity / ((double)N), lx0 = log(kuma_x0());
    for (int i = 0; i < N; i++) {
        const double s0 = m->sc[i], s1 = m->s[2 * i + 1];
        const double a = KUMA_MIN + softplus(s0), b = KUMA_MIN + softplus(s1);
        double dka, dkb;
        kuma_sample(a, b, noise ? noise[i] : 0.5, &dka, &dkb);
        const double t = m->aux[i], gz = t > 0.0 && t < 1.0 ? (double)m->d_w[i] * (KUMA_R - KUMA_L) : 0.0;
        const double xa = exp(a * lx0), base = 1.0 - xa; /* P = base^b */
        const double dpa = b * pow(base, b - 1.0) * (-xa * lx0), dpb = pow(base, b) * log(base);
        m->d_s[2 * i] = (float)((gz * dka + pen * dpa) * sigmoid(s0));
        m->d_s[2 * i + 1] = (float)((gz * dkb + pen * dpb) * sigmoid(s1));
    }
    return SX_OK;
}

/* ================================================================ predictor */
/* h (B, D) = sum_t w_t Ep[x_t] / den (den (B) kept); logits (B, 2) = h Wp + bp. */
static int predictor_forward(sx_rationale *m, const int *tok, int B) {
    int st = sx_nn_embedding_forward(m->ep, tok, m->p[SX_RAT_EP], NULL, 1.0f, B, T, D, V);
    if (st != SX_OK) return st;
    const int gates = m->method >= SX_RATIONALE_HARDKUMA;
    for (int b = 0; b < B; b++) {
        float *h = m->h + (size_t)b * D;
        const float *w = m->w + (size_t)b * T;
        double sum = 0.0;
        for (int t = 0; t < T; t++) sum += w[t];
        const float den = gates && sum > 1.0 ? (float)sum : 1.0f;
        memset(h, 0, D * sizeof(float));
        for (int t = 0; t < T; t++)
            for (int j = 0; j < D; j++) h[j] += w[t] * m->ep[((size_t)b * T + t) * D + j];
        for (int j = 0; j < D; j++) h[j] /= den;
        m->den[b] = den;
    }
    sx_nn_linear_forward(m->logits, m->h, m->p[SX_RAT_WP], m->p[SX_RAT_BP], B, D, 2);
    return SX_OK;
}

/* dlogits (B, 2) -> Wp, bp, Ep, and d_w (B, T) (overwritten). The gates' masked mean:
   dh/dw_t = (Ep[x_t] - h) / den when den = sum w > 1, Ep[x_t] / den otherwise. */
static void predictor_backward(sx_rationale *m, const float *dlogits, const int *tok, int B) {
    const int gates = m->method >= SX_RATIONALE_HARDKUMA;
    float dh[D];
    memset(m->d_big, 0, (size_t)B * T * D * sizeof(float));
    for (int b = 0; b < B; b++) {
        const float den = m->den[b], *h = m->h + (size_t)b * D;
        memset(dh, 0, sizeof dh);
        sx_nn_linear_backward(dh, m->g[SX_RAT_WP], m->g[SX_RAT_BP], dlogits + 2 * b, h, m->p[SX_RAT_WP], 1, D, 2);
        double dhh = 0.0;
        for (int j = 0; j < D; j++) dhh += (double)dh[j] * h[j];
        const double shift = gates && den > 1.0f ? dhh : 0.0;
        for (int t = 0; t < T; t++) {
            const size_t i = (size_t)b * T + t;
            const float *ep = m->ep + i * D;
            float *dep = m->d_big + i * D;
            double dw = 0.0;
            for (int j = 0; j < D; j++) dep[j] = dh[j] * m->w[i] / den, dw += (double)dh[j] * ep[j];
            m->d_w[i] = (float)((dw - shift) / den);
        }
    }
    sx_nn_embedding_backward(m->g[SX_RAT_EP], m->d_big, tok, 1.0f, B, T, D);
}

/* ================================================================ loss and gradient */
static int check_batch(const sx_rationale *m, const char *fn, const int *tok, const int *lab, int B) {
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    int st = sx__check_count(fn, B, m->max_batch);
    if (st == SX_OK) st = sx__check_tokens(fn, "tokens", tok, T, B, T, T, V);
    if (st != SX_OK || !lab) return st; /* labels NULL: predict's call */
    for (int b = 0; b < B; b++)
        if (lab[b] != 0 && lab[b] != 1)
            return sx__fail(SX_EINVAL, b, "%s: labels[%d] must be 0 or 1 (got %d)", fn, b, lab[b]);
    return SX_OK;
}

/* The penalty: HardKuma's lambda mean P(z != 0), REINFORCE's lambda mean g; 0 for the others. */
static double penalty(const sx_rationale *m, int B) {
    if (m->method < SX_RATIONALE_HARDKUMA) return 0.0;
    double sum = 0.0;
    for (int i = 0; i < B * T; i++)
        sum += m->method == SX_RATIONALE_REINFORCE
                   ? m->w[i]
                   : kuma_nonzero(KUMA_MIN + softplus(m->sc[i]), KUMA_MIN + softplus(m->s[2 * i + 1]));
    return m->sparsity * sum / ((double)B * T);
}

int sx__rationale_forward(sx_rationale *m, float *loss, const int *tok, const int *lab, int B,
                          const float *noise) {
    int st = generator_forward(m, tok, B);
    if (st == SX_OK) st = select_forward(m, B, noise);
    if (st == SX_OK) st = predictor_forward(m, tok, B);
    if (st != SX_OK || !lab) return st;
    float ce;
    st = sx_nn_crossentropy_forward(&ce, m->probs, m->logits, lab, B, 2, -1);
    if (st != SX_OK) return st;
    m->loss_ce = ce;
    if (loss) *loss = (float)(ce + penalty(m, B));
    return SX_OK;
}

/* REINFORCE's score function into d_s: (L_b - baseline) (g - pi) / B per position. */
static void reinforce_backward(sx_rationale *m, const int *lab, int B, float baseline) {
    for (int b = 0; b < B; b++) {
        double sel = 0.0;
        for (int t = 0; t < T; t++) sel += m->w[(size_t)b * T + t];
        const double pb = m->probs[2 * b + lab[b]];
        const double lb = -log(pb > 1e-30 ? pb : 1e-30) + m->sparsity * sel / T;
        for (int t = 0; t < T; t++) {
            const size_t i = (size_t)b * T + t;
            m->d_s[2 * i] = (float)((lb - baseline) * (m->w[i] - m->aux[i]) / B);
            m->d_s[2 * i + 1] = 0.0f;
        }
    }
}

int sx__rationale_grad(sx_rationale *m, float *loss, const int *tok, const int *lab, int B,
                       const float *noise, float baseline) {
    int st = sx__rationale_forward(m, loss, tok, lab, B, noise);
    if (st != SX_OK) return st;
    memset(m->grads, 0, m->n_params * sizeof(float));
    float *dlogits = m->logits; /* the logits are not needed again */
    memset(dlogits, 0, (size_t)B * 2 * sizeof(float));
    sx_nn_crossentropy_backward(dlogits, m->probs, lab, B, 2, -1, 1.0f);
    predictor_backward(m, dlogits, tok, B);
    if (m->method == SX_RATIONALE_REINFORCE) reinforce_backward(m, lab, B, baseline);
    else if ((st = select_backward(m, B, noise)) != SX_OK) return st;
    generator_backward(m, tok, B);
    return SX_OK;
}

/* ================================================================ public calls */
int sx_rationale_train_step(sx_rationale *m, float *loss, const int *tokens, const int *labels,
                            int count, float lr) {
    static const char fn[] = "rationale_train_step";
    int st = labels ? check_batch(m, fn, tokens, labels, count) : sx__fail(SX_EINVAL, -1, "%s: labels is NULL", fn);
    if (st != SX_OK) return st;
    if (!(lr >= 0.0f && lr < INFINITY))
        return sx__fail(SX_EINVAL, -1, "%s: lr must be finite and >= 0 (got %g)", fn, (double)lr);
    for (int i = 0; i < count * T; i++) m->noise[i] = sx__rng_uniform(&m->rng) + 0x1p-25f; /* in (0, 1) */
    float l;
    if ((st = sx__rationale_grad(m, &l, tokens, labels, count, m->noise, m->baseline)) != SX_OK) return st;
    const sx_nn_adam_cfg adam = {lr, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f};
    const float norm = sx_nn_adam_step(m->params, m->adam_m, m->adam_v, m->grads, m->n_params, m->step + 1, &adam);
    if (!(norm < INFINITY))
        return sx__fail(SX_ENONFINITE, -1, "%s: gradient norm is %g (diverged)", fn, (double)norm);
    m->step++;
    m->baseline = m->step == 1 ? l : 0.9f * m->baseline + 0.1f * l;
    if (loss) *loss = l;
    return SX_OK;
}

int sx_rationale_predict(sx_rationale *m, float *weights, int *pred, const int *tokens, int count) {
    static const char fn[] = "rationale_predict";
    int st = check_batch(m, fn, tokens, NULL, count);
    if (st == SX_OK) st = sx__rationale_forward(m, NULL, tokens, NULL, count, NULL);
    if (st != SX_OK) return st;
    if (weights) memcpy(weights, m->w, (size_t)count * T * sizeof(float));
    if (pred)
        for (int b = 0; b < count; b++) pred[b] = m->logits[2 * b + 1] > m->logits[2 * b];
    return SX_OK;
}

SX_COLD_END
