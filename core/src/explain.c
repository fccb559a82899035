/* explain.c - which source tokens does a prediction depend on? Attributions of the tiny
   Transformer's output (gradient x input, gradient norm, integrated gradients, leave-one-out),
   the gradient wrt one row of attention weights (for adversarial attention searches) and
   attention rollout, for the "is attention explanation?" experiments (Jain & Wallace 2019,
   Serrano & Smith 2019, Wiegreffe & Pinter 2019, Sundararajan et al. 2017, Abnar & Zuidema
   2020). Declared in simplexity.h, sections "interventions" and "explain"; built on model.c's
   forward and backward passes (model.h's sx__model_* hooks). Calls allocate their scratch
   (explaining is not a training step) and free it before returning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "model.h"
#include "tasks.h"

/* Nothing here is a hot loop (one example at a time, T <= 256): compiled for size under clang
   (emcc), which otherwise unrolls and vectorises the rollout's products into kilobytes of wasm
   that every page would fetch. */
SX_COLD_BEGIN

/* Check the example and the step; *klen = the source tokens before the first PAD. */
static int check_example(const sx_model *m, const char *fn, const int *src, int Ts,
                         const int *tgt, int Tt, int step, int target, int *klen) {
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    const int V = sx_model_config(m, SX_MODEL_VOCAB), T = sx_model_config(m, SX_MODEL_MAX_LEN);
    if (sx_model_config(m, SX_MODEL_ARCH(sx_model_config(m, SX_MODEL_N_LAYER))) == SX_MODEL_DECODER)
        return sx__fail(SX_EINVAL, -1, "%s: a decoder-only model has no source to explain", fn);
    if (!src || !tgt) return sx__fail(SX_EINVAL, -1, "%s: %s is NULL", fn, src ? "tgt" : "src");
    if (Ts < 1 || Ts > T)
        return sx__fail(SX_EINVAL, -1, "%s: src length must be in [1, max_len %d] (got %d)", fn, T, Ts);
    if (Tt < 1 || Tt > T)
        return sx__fail(SX_EINVAL, -1, "%s: tgt length must be in [1, max_len %d] (got %d)", fn, T, Tt);
    for (int i = 0; i < Ts; i++)
        if (src[i] < 0 || src[i] >= V)
            return sx__fail(SX_EINVAL, i, "%s: src[%d] must be a token id in [0, %d) (got %d)", fn,
                            i, V, src[i]);
    for (int i = 0; i < Tt; i++)
        if (tgt[i] < 0 || tgt[i] >= V)
            return sx__fail(SX_EINVAL, i, "%s: tgt[%d] must be a token id in [0, %d) (got %d)", fn,
                            i, V, tgt[i]);
    if (step < 0 || step >= Tt)
        return sx__fail(SX_EINVAL, -1, "%s: step must be in [0, tgt length %d) (got %d)", fn, Tt, step);
    if (target < 0 || target >= V)
        return sx__fail(SX_EINVAL, -1, "%s: target must be a token id in [0, %d) (got %d)", fn, V,
                        target);
    int n = 0;
    while (n < Ts && src[n] != SX_TOKEN_PAD) n++;
    *klen = n;
    return SX_OK;
}

/* log p(target) from one row of logits (in double, finite for finite logits), and when seed is
   not NULL, its gradient wrt the logits: onehot(target) - softmax. */
static double log_prob(const float *z, int V, int target, float *seed) {
    double mx = z[0], s = 0.0;
    for (int v = 1; v < V; v++) mx = z[v] > mx ? z[v] : mx;
    for (int v = 0; v < V; v++) s += exp((double)z[v] - mx);
    if (seed)
        for (int v = 0; v < V; v++) seed[v] = (float)((v == target) - exp((double)z[v] - mx) / s);
    return (double)z[target] - mx - log(s);
}

/* f of batch row b of the last forward pass (tgt length Tt): log p(target) or the target's
   logit; seed (may be NULL) gets its gradient wrt the step's logits. */
static double f_of(const sx_model *m, int b, int Tt, int step, int target, int objective,
                   float *seed) {
    const int V = sx_model_config(m, SX_MODEL_VOCAB);
    const float *z = sx_model_logits(m) + ((size_t)b * Tt + step) * V;
    if (objective == SX_EXPLAIN_LOG_PROB) return log_prob(z, V, target, seed);
    if (seed)
        for (int v = 0; v < V; v++) seed[v] = (float)(v == target);
    return z[target];
}

int sx_model_explain(sx_model *m, float *out, float *value, int method, const int *src,
                     int src_len, const int *tgt_in, int tgt_len, int step, int target,
                     int objective, int steps) {
    static const char fn[] = "model_explain";
    int klen, st = check_example(m, fn, src, src_len, tgt_in, tgt_len, step, target, &klen);
    if (st != SX_OK) return st;
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    if (method < SX_EXPLAIN_GRAD_INPUT || method > SX_EXPLAIN_LEAVE_ONE_OUT)
        return sx__fail(SX_EINVAL, -1, "%s: method must be in [%d, %d] (got %d)", fn,
                        SX_EXPLAIN_GRAD_INPUT, SX_EXPLAIN_LEAVE_ONE_OUT, method);
    if (objective != SX_EXPLAIN_LOG_PROB && objective != SX_EXPLAIN_LOGIT)
        return sx__fail(SX_EINVAL, -1, "%s: objective must be 0 (log p) or 1 (logit) (got %d)", fn,
                        objective);
    if (method == SX_EXPLAIN_INTEGRATED_GRAD && (steps < 1 || steps > 4096))
        return sx__fail(SX_EINVAL, -1, "%s: steps must be in [1, 4096] (got %d)", fn, steps);
    const int C = sx_model_config(m, SX_MODEL_D_MODEL), V = sx_model_config(m, SX_MODEL_VOCAB);
    const int L = sx_model_config(m, SX_MODEL_N_LAYER);
    const int Bc = method != SX_EXPLAIN_INTEGRATED_GRAD ? 1
                 : steps < sx_model_config(m, SX_MODEL_MAX_BATCH) ? steps
                 : sx_model_config(m, SX_MODEL_MAX_BATCH);
    const size_t TC = (size_t)src_len * C;
    /* e (Ts C), gsum (Ts C) in double, per chunk: emb, d_emb (Bc Ts C), seed (Bc V), src and
       tgt rows (Bc Ts + Bc Tt), saved key bits (2 L) */
    float *e = malloc(sizeof(float) * (TC * (1 + 2 * (size_t)Bc) + (size_t)Bc * V));
    double *gsum = calloc(TC, sizeof(double));
    int *rows = malloc(sizeof(int) * (size_t)Bc * (src_len + tgt_len));
    unsigned char *saved = malloc((size_t)2 * L);
    if (!e || !gsum || !rows || !saved) {
        free(e), free(gsum), free(rows), free(saved);
        return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    }
    float *emb = e + TC, *d_emb = emb + (size_t)Bc * TC, *seed = d_emb + (size_t)Bc * TC;
    int *srcs = rows, *tgts = rows + (size_t)Bc * src_len;
    for (int b = 0; b < Bc; b++) {
        memcpy(srcs + (size_t)b * src_len, src, sizeof(int) * src_len);
        memcpy(tgts + (size_t)b * tgt_len, tgt_in, sizeof(int) * tgt_len);
    }
    sx__model_embed(m, e, src, src_len);
    double f = 0.0, ref = 0.0;
    if ((st = sx__model_run(m, src, src_len, tgt_in, tgt_len, 1, NULL)) != SX_OK) goto done;
    f = ref = f_of(m, 0, tgt_len, step, target, objective, seed);
    for (int i = 0; i < src_len; i++) out[i] = 0.0f;
    switch (method) {
    case SX_EXPLAIN_GRAD_INPUT:
    case SX_EXPLAIN_GRAD_NORM:
        if ((st = sx__model_grad(m, src, seed, step, d_emb, -1, -1, -1, -1, NULL, 0)) != SX_OK) goto done;
        for (int i = 0; i < klen; i++) {
            double acc = 0.0;
            for (int c = 0; c < C; c++) {
                const double g = d_emb[(size_t)i * C + c];
                acc += method == SX_EXPLAIN_GRAD_INPUT ? e[(size_t)i * C + c] * g : g * g;
            }
            out[i] = (float)(method == SX_EXPLAIN_GRAD_INPUT ? acc : sqrt(acc));
        }
        break;
    case SX_EXPLAIN_INTEGRATED_GRAD:
        for (int k0 = 0; k0 < steps; k0 += Bc) {
            const int nb = steps - k0 < Bc ? steps - k0 : Bc;
            for (int b = 0; b < nb; b++) {
                const float a = (float)((k0 + b + 0.5) / steps);
                for (size_t j = 0; j < TC; j++) emb[(size_t)b * TC + j] = e[j] * a;
            }
            if ((st = sx__model_run(m, srcs, src_len, tgts, tgt_len, nb, emb)) != SX_OK) goto done;
            for (int b = 0; b < nb; b++) f_of(m, b, tgt_len, step, target, objective, seed + (size_t)b * V);
            if ((st = sx__model_grad(m, srcs, seed, step, d_emb, -1, -1, -1, -1, NULL, 0)) != SX_OK)
                goto done;
            for (int b = 0; b < nb; b++)
                for (size_t j = 0; j < TC; j++) gsum[j] += d_emb[(size_t)b * TC + j];
        }
        for (int i = 0; i < klen; i++) {
            double acc = 0.0;
            for (int c = 0; c < C; c++) acc += e[(size_t)i * C + c] * gsum[(size_t)i * C + c];
            out[i] = (float)(acc / steps);
        }
        memset(emb, 0, TC * sizeof(float)); /* the baseline: every token embedding 0 */
        if ((st = sx__model_run(m, src, src_len, tgt_in, tgt_len, 1, emb)) != SX_OK) goto done;
        ref = f_of(m, 0, tgt_len, step, target, objective, NULL);
        break;
    case SX_EXPLAIN_LEAVE_ONE_OUT:
        for (int i = 0; i < klen; i++) {
            sx__model_mask_source_key(m, i, saved, 0);
            st = sx__model_run(m, src, src_len, tgt_in, tgt_len, 1, NULL);
            sx__model_mask_source_key(m, i, saved, 1);
            if (st != SX_OK) goto done;
            out[i] = (float)(f - f_of(m, 0, tgt_len, step, target, objective, NULL));
        }
        break;
    }
    /* leave the example's own forward pass for the caller to read */
    if (method != SX_EXPLAIN_GRAD_INPUT && method != SX_EXPLAIN_GRAD_NORM)
        st = sx__model_run(m, src, src_len, tgt_in, tgt_len, 1, NULL);
    if (st == SX_OK && value) {
        value[0] = (float)f;
        value[1] = (float)ref;
    }
done:
    free(e), free(gsum), free(rows), free(saved);
    return st;
}

int sx_model_attention_grad(sx_model *m, float *out, int kind, int layer, int head, int row,
                            const int *src, int src_len, const int *tgt_in, int tgt_len, int step,
                            int target, const float *dlogits) {
    static const char fn[] = "model_attention_grad";
    int klen, st = check_example(m, fn, src, src_len, tgt_in, tgt_len, step,
                                 dlogits ? 0 : target, &klen);
    if (st != SX_OK) return st;
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), NH = sx_model_config(m, SX_MODEL_N_HEAD);
    const int V = sx_model_config(m, SX_MODEL_VOCAB);
    if (kind < 0 || kind > 2)
        return sx__fail(SX_EINVAL, -1, "%s: kind must be 0, 1 or 2 (got %d)", fn, kind);
    if (layer < -1 || layer >= L)
        return sx__fail(SX_EINVAL, -1, "%s: layer must be in [-1, %d) (got %d)", fn, L, layer);
    if (head < -1 || head >= NH)
        return sx__fail(SX_EINVAL, -1, "%s: head must be in [-1, %d) (got %d)", fn, NH, head);
    const int Tq = kind == SX_MODEL_ENC_SELF ? src_len : tgt_len;
    const int Tk = kind == SX_MODEL_DEC_SELF ? tgt_len : src_len;
    if (row < 0 || row >= Tq)
        return sx__fail(SX_EINVAL, -1, "%s: row must be in [0, %d) (got %d)", fn, Tq, row);
    if (dlogits)
        for (int v = 0; v < V; v++)
            if (!(dlogits[v] > -INFINITY && dlogits[v] < INFINITY))
                return sx__fail(SX_EINVAL, v, "%s: dlogits[%d] must be finite (got %g)", fn, v,
                                (double)dlogits[v]);
    float *seed = malloc(sizeof(float) * (size_t)V);
    if (!seed) return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    st = sx__model_run(m, src, src_len, tgt_in, tgt_len, 1, NULL);
    if (st == SX_OK) {
        if (dlogits) memcpy(seed, dlogits, sizeof(float) * (size_t)V);
        else f_of(m, 0, tgt_len, step, target, SX_EXPLAIN_LOG_PROB, seed);
        memset(out, 0, sizeof(float) * (size_t)(layer < 0 ? L : 1) * (head < 0 ? NH : 1) * Tk);
        st = sx__model_grad(m, src, seed, step, NULL, kind, layer, head, row, out, Tk);
    }
    free(seed);
    return st;
}

/* abar (Tq, Tk) = the weights of (kind, layer l, batch b) averaged over the heads, + I. */
static void head_mean(double *abar, const sx_model *m, int kind, int l, int b, int Tq, int Tk,
                      int plus_i) {
    const int NH = sx_model_config(m, SX_MODEL_N_HEAD);
    const size_t n = (size_t)Tq * Tk;
    const float *A = sx_model_attention(m, kind, l) + (size_t)b * NH * n;
    for (size_t q = 0; q < n; q++) {
        double s = 0.0;
        for (int h = 0; h < NH; h++) s += A[(size_t)h * n + q];
        abar[q] = s / NH;
    }
    if (plus_i)
        for (int i = 0; i < Tq; i++) abar[(size_t)i * Tk + i] += 1.0;
}

/* x (n, n) = I. */
static void set_identity(double *x, int n) {
    memset(x, 0, sizeof(double) * (size_t)n * n);
    for (int i = 0; i < n; i++) x[(size_t)i * n + i] = 1.0;
}

/* out (n, k) = x (n, n) y (n, k) / 2. */
static void half_product(double *out, const double *x, const double *y, int n, int k) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) {
            double acc = 0.0;
            for (int r = 0; r < n; r++) acc += x[(size_t)i * n + r] * y[(size_t)r * k + j];
            out[(size_t)i * k + j] = 0.5 * acc;
        }
}

int sx_model_rollout(const sx_model *m, float *out, int b) {
    static const char fn[] = "model_rollout";
    if (!m || !out) return sx__fail(SX_EINVAL, -1, "%s: model or out is NULL", fn);
    if (sx_model_config(m, SX_MODEL_ARCH(sx_model_config(m, SX_MODEL_N_LAYER))) == SX_MODEL_DECODER)
        return sx__fail(SX_EINVAL, -1, "%s: a decoder-only model has no source to roll out to", fn);
    const int B = sx_model_attention_shape(m, SX_MODEL_CROSS, 0);
    if (B < 1) return sx__fail(SX_EINVAL, -1, "%s: no forward pass yet", fn);
    if (b < 0 || b >= B)
        return sx__fail(SX_EINVAL, -1, "%s: b must be in [0, %d) (got %d)", fn, B, b);
    const int L = sx_model_config(m, SX_MODEL_N_LAYER);
    const int Tt = sx_model_attention_shape(m, SX_MODEL_CROSS, 2);
    const int Ts = sx_model_attention_shape(m, SX_MODEL_CROSS, 3);
    const size_t SS = (size_t)Ts * Ts, TS = (size_t)Tt * Ts, TT = (size_t)Tt * Tt;
    /* renc, tmp_s (Ts Ts); rsrc, tmp_ts (Tt Ts); rdec, tmp_t (Tt Tt); abar (max) */
    const size_t big = SS > TT ? (SS > TS ? SS : TS) : (TT > TS ? TT : TS);
    double *w = malloc(sizeof(double) * (2 * SS + 2 * TS + 2 * TT + big));
    if (!w) return sx__fail(SX_ENOMEM, -1, "%s: out of memory", fn);
    double *renc = w, *ts = renc + SS, *rsrc = ts + SS, *tts = rsrc + TS, *rdec = tts + TS;
    double *tt = rdec + TT, *abar = tt + TT;
    set_identity(renc, Ts);
    for (int l = 0; l < L; l++) {
        head_mean(abar, m, SX_MODEL_ENC_SELF, l, b, Ts, Ts, 1);
        half_product(ts, abar, renc, Ts, Ts);
        memcpy(renc, ts, SS * sizeof(double));
    }
    set_identity(rdec, Tt);
    memset(rsrc, 0, TS * sizeof(double));
    for (int l = 0; l < L; l++) {
        head_mean(abar, m, SX_MODEL_DEC_SELF, l, b, Tt, Tt, 1);
        half_product(tt, abar, rdec, Tt, Tt);
        memcpy(rdec, tt, TT * sizeof(double));
        half_product(tts, abar, rsrc, Tt, Ts);
        memcpy(rsrc, tts, TS * sizeof(double));
        head_mean(abar, m, SX_MODEL_CROSS, l, b, Tt, Ts, 0);
        for (int i = 0; i < Tt; i++)
            for (int j = 0; j < Ts; j++) {
                double acc = 0.0;
                for (int r = 0; r < Ts; r++) acc += abar[(size_t)i * Ts + r] * renc[(size_t)r * Ts + j];
                rsrc[(size_t)i * Ts + j] = 0.5 * (rsrc[(size_t)i * Ts + j] + acc);
            }
        for (size_t q = 0; q < TT; q++) rdec[q] *= 0.5;
    }
    for (size_t q = 0; q < TS; q++) out[q] = (float)rsrc[q];
    free(w);
    return SX_OK;
}

SX_COLD_END
