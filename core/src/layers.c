/* layers.c - the Transformer's layers other than attention: linear, layernorm, GELU/ReLU,
   residual, token embedding + sinusoidal positions, softmax cross-entropy, Adam.

   llm.c conventions (nn.h): outputs first; backward passes accumulate into d-grads. Reductions
   that decide a loss or a norm run in double; the elementwise loops are plain C (they are a
   small share of a step next to the matmuls and the attention maps). */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "simd.h"

/* ------------------------------------------------------------------ linear */
void sx_nn_linear_forward(float *out, const float *inp, const float *w, const float *bias, int N,
                          int C, int OC) {
    /* out (N, OC) = inp (N, C) @ w (C, OC) + bias (OC) */
    sx_nn_matmul(out, OC, inp, C, 0, w, OC, 0, bias, N, OC, C, 0);
}

void sx_nn_linear_backward(float *dinp, float *dw, float *dbias, const float *dout,
                           const float *inp, const float *w, int N, int C, int OC) {
    /* dinp (N, C) += dout (N, OC) @ w^T (OC, C) */
    if (dinp) sx_nn_matmul(dinp, C, dout, OC, 0, w, OC, 1, NULL, N, C, OC, 1);
    /* dw (C, OC) += inp^T (C, N) @ dout (N, OC) */
    sx_nn_matmul(dw, OC, inp, C, 1, dout, OC, 0, NULL, C, OC, N, 1);
    if (dbias) {
        for (int n = 0; n < N; n++) {
            const float *dout_n = dout + (size_t)n * OC;
            for (int o = 0; o < OC; o++) dbias[o] += dout_n[o];
        }
    }
}

/* --------------------------------------------------------------- layernorm */
void sx_nn_layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                             const float *weight, const float *bias, int N, int C) {
    const double eps = 1e-5;
    for (int n = 0; n < N; n++) {
        const float *x = inp + (size_t)n * C;
        float *o = out + (size_t)n * C;
        double m = 0.0, v = 0.0;
        for (int i = 0; i < C; i++) m += x[i];
        m /= C;
        for (int i = 0; i < C; i++) v += (x[i] - m) * (x[i] - m);
        v /= C;
        const double s = 1.0 / sqrt(v + eps);
        for (int i = 0; i < C; i++) o[i] = (float)((x[i] - m) * s) * weight[i] + bias[i];
        mean[n] = (float)m;
        rstd[n] = (float)s;
    }
}

void sx_nn_layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                              const float *inp, const float *weight, const float *mean,
                              const float *rstd, int N, int C) {
    for (int n = 0; n < N; n++) {
        const float *x = inp + (size_t)n * C;
        const float *g = dout + (size_t)n * C;
        float *dx = dinp + (size_t)n * C;
        const float m = mean[n], s = rstd[n];
        /* two reductions: mean of dnorm and mean of dnorm * norm */
        double dnorm_mean = 0.0, dnorm_norm_mean = 0.0;
        for (int i = 0; i < C; i++) {
            const float norm = (x[i] - m) * s;
            const float dnorm = weight[i] * g[i];
            dnorm_mean += dnorm;
            dnorm_norm_mean += (double)dnorm * norm;
        }
        dnorm_mean /= C;
        dnorm_norm_mean /= C;
        for (int i = 0; i < C; i++) {
            const float norm = (x[i] - m) * s;
            const float dnorm = weight[i] * g[i];
            dbias[i] += g[i];
            dweight[i] += norm * g[i];
            dx[i] += (float)((dnorm - dnorm_mean - norm * dnorm_norm_mean) * s);
        }
    }
}

/* ------------------------------------------------------------- activations */
#define GELU_SCALE 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_CUBIC 0.044715f

/* tanh(u) = sign(u) (1 - e) / (1 + e), e = exp(-2 |u|) in (0, 1]: the shared exp for x <= 0
   (exactly 0 below its cutoff, so tanh = +-1 there). Absolute error ~1e-7. */
SX_INLINE v128 tanh4(v128 u) {
    const v128 sign = vsplat(-0.0f);
    const v128 au = vandnot(u, sign); /* |u| */
    const v128 e = sx_exp_nonpos(vmul(au, vsplat(-2.0f)));
    const v128 one = vsplat(1.0f);
    const v128 t = vdiv(vsub(one, e), vadd(one, e));
    return vor(t, vand(u, sign)); /* copy the sign of u */
}
SX_INLINE v128 gelu_u(v128 x) { /* sqrt(2/pi) (x + 0.044715 x^3) */
    return vmul(vsplat(GELU_SCALE), vadd(x, vmul(vsplat(GELU_CUBIC), vmul(x, vmul(x, x)))));
}
static float tanh1(float u) { /* the same formula, one lane */
    float t[4] = { u, 0, 0, 0 };
    vstore(t, tanh4(vload(t)));
    return t[0];
}

void sx_nn_gelu_forward(float *out, const float *inp, size_t n) {
    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    size_t i = 0;
    const v128 half = vsplat(0.5f), one = vsplat(1.0f);
    for (; i + 4 <= n; i += 4) {
        const v128 x = vload(inp + i);
        vstore(out + i, vmul(vmul(half, x), vadd(one, tanh4(gelu_u(x)))));
    }
    for (; i < n; i++) {
        const float x = inp[i];
        out[i] = 0.5f * x * (1.0f + tanh1(GELU_SCALE * (x + GELU_CUBIC * x * x * x)));
    }
}

void sx_nn_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
    /* d/dx = 0.5 (1 + th) + 0.5 x (1 - th^2) sqrt(2/pi) (1 + 3 0.044715 x^2) */
    size_t i = 0;
    const v128 half = vsplat(0.5f), one = vsplat(1.0f), c3 = vsplat(3.0f * GELU_CUBIC);
    const v128 sc = vsplat(GELU_SCALE);
    for (; i + 4 <= n; i += 4) {
        const v128 x = vload(inp + i);
        const v128 th = tanh4(gelu_u(x));
        const v128 sech2 = vsub(one, vmul(th, th));
        const v128 g = vadd(vmul(half, vadd(one, th)),
                            vmul(vmul(vmul(half, x), sech2), vmul(sc, vadd(one, vmul(c3, vmul(x, x))))));
        vstore(dinp + i, vadd(vload(dinp + i), vmul(g, vload(dout + i))));
    }
    for (; i < n; i++) {
        const float x = inp[i];
        const float th = tanh1(GELU_SCALE * (x + GELU_CUBIC * x * x * x));
        const float g = 0.5f * (1.0f + th) +
                        0.5f * x * (1.0f - th * th) * GELU_SCALE * (1.0f + 3.0f * GELU_CUBIC * x * x);
        dinp[i] += g * dout[i];
    }
}

void sx_nn_relu_forward(float *out, const float *inp, size_t n) {
    size_t i = 0;
    const v128 zero = vsplat(0.0f);
    for (; i + 4 <= n; i += 4) vstore(out + i, vmax(vload(inp + i), zero));
    for (; i < n; i++) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

/* dinp += dout where inp > 0, left as it is elsewhere (a select, not an add of 0: the same bits
   as the branch, -0 included; the branch mispredicted on every other entry). */
void sx_nn_relu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
    size_t i = 0;
    const v128 zero = vsplat(0.0f);
    for (; i + 4 <= n; i += 4) {
        const v128 d = vload(dinp + i);
        vstore(dinp + i, vsel(vgt(vload(inp + i), zero), vadd(d, vload(dout + i)), d));
    }
    for (; i < n; i++)
        if (inp[i] > 0.0f) dinp[i] += dout[i];
}

void sx_nn_residual_forward(float *out, const float *a, const float *b, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vstore(out + i, vadd(vload(a + i), vload(b + i)));
    for (; i < n; i++) out[i] = a[i] + b[i];
}

void sx_nn_accumulate(float *dst, const float *src, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vstore(dst + i, vadd(vload(dst + i), vload(src + i)));
    for (; i < n; i++) dst[i] += src[i];
}

/* -------------------------------------------------------------- embeddings */
void sx_nn_posenc_range(float *pe, int t0, int T, int C, double base) {
    for (int r = 0; r < T; r++) {
        const int t = t0 + r;
        float *pe_t = pe + (size_t)r * C;
        for (int i = 0; i < C; i += 2) {
            const double angle = t / pow(base, (double)i / C);
            pe_t[i] = (float)sin(angle);
            if (i + 1 < C) pe_t[i + 1] = (float)cos(angle);
        }
    }
}

/* The model's table: positions 0 .. T-1, base 10000 (the same double operations as before
   the range form existed, so checkpoints and their outputs are unchanged bit for bit). */
void sx_nn_posenc(float *pe, int T, int C) { sx_nn_posenc_range(pe, 0, T, C, 10000.0); }

int sx_nn_embedding_forward(float *out, const int *tok, const float *wte, const float *pe,
                            float scale, int B, int T, int C, int V) {
    for (int i = 0; i < B * T; i++)
        if (tok[i] < 0 || tok[i] >= V)
            return sx__fail(SX_EINVAL, i, "token id at position %d must be in [0, %d) (got %d)", i,
                            V, tok[i]);
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            float *out_bt = out + ((size_t)b * T + t) * C;
            const float *w = wte + (size_t)tok[b * T + t] * C;
            const float *p = pe ? pe + (size_t)t * C : NULL;
            for (int i = 0; i < C; i++) out_bt[i] = w[i] * scale + (p ? p[i] : 0.0f);
        }
    }
    return SX_OK;
}

void sx_nn_embedding_backward(float *dwte, const float *dout, const int *tok, float scale, int B,
                              int T, int C) {
    for (int i = 0; i < B * T; i++) {
        float *dw = dwte + (size_t)tok[i] * C;
        const float *g = dout + (size_t)i * C;
        for (int c = 0; c < C; c++) dw[c] += scale * g[c];
    }
}

/* ------------------------------------------------------------ cross-entropy */
int sx_nn_crossentropy_forward(float *loss, float *probs, const float *logits, const int *targets,
                               int N, int V, int ignore) {
    for (int n = 0; n < N; n++)
        if (targets[n] != ignore && (targets[n] < 0 || targets[n] >= V))
            return sx__fail(SX_EINVAL, n, "target at row %d must be in [0, %d) or the ignore id %d "
                            "(got %d)", n, V, ignore, targets[n]);
    /* -Infinity logits would be accepted by the mapping as masks: a logit must be finite. */
    for (size_t i = 0; i < (size_t)N * V; i++)
        if (!(logits[i] > -INFINITY && logits[i] < INFINITY))
            return sx__fail(SX_ENONFINITE, (int)i, "logits[%d] must be finite (got %g)", (int)i,
                            (double)logits[i]);
    int st = sx_softmax(probs, logits, N, V, 1.0f);
    if (st != SX_OK) return st;
    double sum = 0.0;
    int count = 0;
    for (int n = 0; n < N; n++) {
        if (targets[n] == ignore) continue;
        const float pt = probs[(size_t)n * V + targets[n]];
        if (pt > 1e-30f) {
            sum -= log((double)pt); /* p within float rounding: -log p to ~1e-7 absolute */
        } else {
            /* p underflowed or nearly: -log p from the logits (log-sum-exp), exact */
            const float *lg = logits + (size_t)n * V;
            float m = lg[0];
            for (int i = 1; i < V; i++) m = lg[i] > m ? lg[i] : m;
            double s = 0.0;
            for (int i = 0; i < V; i++) s += exp((double)lg[i] - m);
            sum += log(s) + m - lg[targets[n]];
        }
        count++;
    }
    *loss = count ? (float)(sum / count) : 0.0f;
    return SX_OK;
}

void sx_nn_crossentropy_backward(float *dlogits, const float *probs, const int *targets, int N,
                                 int V, int ignore, float dloss) {
    int count = 0;
    for (int n = 0; n < N; n++) count += targets[n] != ignore;
    if (!count) return;
    const float g = dloss / (float)count;
    for (int n = 0; n < N; n++) {
        if (targets[n] == ignore) continue;
        const float *p = probs + (size_t)n * V;
        float *d = dlogits + (size_t)n * V;
        for (int i = 0; i < V; i++) d[i] += g * p[i];
        d[targets[n]] -= g;
    }
}

/* -------------------------------------------------------------------- Adam */
float sx_nn_grad_norm(const float *grad, size_t n) {
    /* float lanes, flushed into a double every 1024 values */
    double s = 0.0;
    size_t i = 0;
    while (i + 4 <= n) {
        v128 acc = vsplat(0.0f);
        const size_t end = i + 1024 < n ? i + 1024 : n;
        for (; i + 4 <= end; i += 4) {
            const v128 g = vload(grad + i);
            acc = vadd(acc, vmul(g, g));
        }
        s += sx_hsum(acc);
    }
    for (; i < n; i++) s += (double)grad[i] * grad[i];
    return (float)sqrt(s);
}

float sx_nn_adam_step(float *param, float *m, float *v, const float *grad, size_t n, int t,
                      const sx_nn_adam_cfg *cfg) {
    const float norm = sx_nn_grad_norm(grad, n);
    const float clip = cfg->max_norm > 0.0f && norm > cfg->max_norm ? cfg->max_norm / norm : 1.0f;
    const float b1 = cfg->beta1, b2 = cfg->beta2;
    const float c1 = 1.0f / (1.0f - (float)pow(b1, t)); /* bias corrections */
    const float c2 = 1.0f / (1.0f - (float)pow(b2, t));
    const float lr = cfg->lr, wd = cfg->weight_decay, eps = cfg->eps;
    size_t i = 0;
    const v128 vclip = vsplat(clip), vb1 = vsplat(b1), vb2 = vsplat(b2), vc1 = vsplat(c1);
    const v128 vc2 = vsplat(c2), v1b1 = vsplat(1.0f - b1), v1b2 = vsplat(1.0f - b2);
    const v128 vlr = vsplat(lr), vwd = vsplat(wd), veps = vsplat(eps);
    for (; i + 4 <= n; i += 4) {
        const v128 g = vmul(vload(grad + i), vclip);
        const v128 mi = vadd(vmul(vb1, vload(m + i)), vmul(v1b1, g));
        const v128 vi = vadd(vmul(vb2, vload(v + i)), vmul(v1b2, vmul(g, g)));
        vstore(m + i, mi);
        vstore(v + i, vi);
        const v128 p = vload(param + i);
        const v128 step = vadd(vdiv(vmul(mi, vc1), vadd(vsqrt(vmul(vi, vc2)), veps)), vmul(vwd, p));
        vstore(param + i, vsub(p, vmul(vlr, step)));
    }
    for (; i < n; i++) {
        const float g = grad[i] * clip;
        m[i] = b1 * m[i] + (1.0f - b1) * g;
        v[i] = b2 * v[i] + (1.0f - b2) * g * g;
        const float mhat = m[i] * c1, vhat = v[i] * c2;
        param[i] -= lr * (mhat / (sqrtf(vhat) + eps) + wd * param[i]);
    }
    return norm;
}

float sx_nn_adam_two_rates(float *param, float *m, float *v, const float *grad, size_t n0,
                           size_t na, int *t, float lr, float alpha_lr, float clip) {
    const float norm0 = sx_nn_grad_norm(grad, n0), norma = sx_nn_grad_norm(grad + n0, na);
    const float norm = sqrtf(norm0 * norm0 + norma * norma);
    if (!(norm < INFINITY)) return norm;
    const int clipped = clip > 0.0f && norm > clip;
    sx_nn_adam_cfg adam = { lr, 0.9f, 0.98f, 1e-9f, 0.0f, clipped ? clip * (norm0 / norm) : 0.0f };
    ++*t;
    sx_nn_adam_step(param, m, v, grad, n0, *t, &adam);
    adam.lr = lr * alpha_lr;
    adam.max_norm = clipped ? clip * (norma / norm) : 0.0f;
    sx_nn_adam_step(param + n0, m + n0, v + n0, grad + n0, na, *t, &adam);
    return norm;
}
