/* test_nn.c - the neural-network building blocks (core/src/nn.h): matmul against a naive
   float64 product, every layer's backward pass against central differences (attention
   including the learned alpha, through a, and the span z), attention against a naive
   per-row reference, the mask properties, and an Adam smoke test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"
#include "nn.h"

/* ------------------------------------------------------------------ helpers */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)urand(); }
static void fill(float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) x[i] = frand(lo, hi);
}
static float *falloc(size_t n) { return calloc(n ? n : 1, sizeof(float)); }
static double dot_d(const float *a, const float *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

/* Central differences of a scalar loss(ctx) against an analytic gradient, on every entry of
   `param` (or about `count` evenly spread ones). Passes if |g - fd| <= atol + rtol |fd|.
   sparsemax and entmax are piecewise smooth: where the two one-sided differences disagree
   by more than that tolerance, a support boundary lies within eps and the entry is skipped
   (counted; the callers bound the count). With `smooth` set no entry is skipped: for
   parameters the loss is known to be smooth in (z: the window is fixed within eps, and the
   mask is linear on the ramp), where curvature alone could exceed the kink test.
   The worst error goes to *worst for the report. */
typedef double (*loss_fn)(void *ctx);
static int gradcheck_s(const char *what, loss_fn f, void *ctx, float *param, const float *grad,
                       int n, int count, float eps, double atol, double rtol, double *worst,
                       int smooth) {
    int step = count > 0 && count < n ? n / count : 1, kinks = 0;
    const double l0 = f(ctx);
    for (int i = 0; i < n; i += step) {
        const float keep = param[i];
        param[i] = keep + eps;
        const double hp = (double)param[i] - keep, lp = f(ctx);
        param[i] = keep - eps;
        const double hm = (double)keep - param[i], lm = f(ctx);
        param[i] = keep;
        const double fd = (lp - lm) / (hp + hm);
        const double tol = atol + rtol * fabs(fd);
        if (!smooth && fabs((lp - l0) / hp - (l0 - lm) / hm) > tol) {
            kinks++;
            continue;
        }
        const double err = fabs(grad[i] - fd);
        if (worst && err > *worst) *worst = err;
        CHECK(err <= tol, "%s[%d]: analytic %.7g vs differences %.7g", what, i, (double)grad[i], fd);
        if (n == 1) printf("test_nn:   %s: analytic %.6f, differences %.6f\n", what, (double)grad[i], fd);
    }
    return kinks;
}
static int gradcheck(const char *what, loss_fn f, void *ctx, float *param, const float *grad,
                     int n, int count, float eps, double atol, double rtol, double *worst) {
    return gradcheck_s(what, f, ctx, param, grad, n, count, eps, atol, rtol, worst, 0);
}

/* ------------------------------------------------------------------ matmul */
static void ref_matmul(double *out, const float *a, int lda, int ta, const float *b, int ldb,
                       int tb, const float *bias, int M, int N, int K) {
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = bias ? bias[j] : 0.0;
            for (int k = 0; k < K; k++) {
                const double x = ta ? a[(size_t)k * lda + i] : a[(size_t)i * lda + k];
                const double y = tb ? b[(size_t)j * ldb + k] : b[(size_t)k * ldb + j];
                s += x * y;
            }
            out[(size_t)i * N + j] = s;
        }
}

static void test_matmul(void) {
    const int shapes[][3] = { { 1, 1, 1 }, { 3, 5, 7 }, { 4, 8, 16 }, { 5, 9, 3 }, { 13, 17, 33 },
                              { 7, 64, 64 }, { 64, 7, 300 }, { 33, 31, 513 }, { 2, 1, 260 } };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int mode = 0; mode < 3; mode++) { /* 0 plain, 1 bias, 2 accumulate + bias */
                    /* padded strides: lda, ldb, ldo larger than the logical widths */
                    const int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldo = N + 5;
                    float *a = falloc((size_t)(ta ? K : M) * lda);
                    float *b = falloc((size_t)(tb ? N : K) * ldb);
                    float *bias = falloc(N), *out = falloc((size_t)M * ldo);
                    double *ref = malloc(sizeof(double) * M * N);
                    fill(a, (size_t)(ta ? K : M) * lda, -1, 1);
                    fill(b, (size_t)(tb ? N : K) * ldb, -1, 1);
                    fill(bias, N, -1, 1);
                    fill(out, (size_t)M * ldo, -1, 1);
                    float *before = falloc((size_t)M * ldo);
                    memcpy(before, out, sizeof(float) * M * ldo);
                    ref_matmul(ref, a, lda, ta, b, ldb, tb, mode ? bias : NULL, M, N, K);
                    sx_nn_matmul(out, ldo, a, lda, ta, b, ldb, tb, mode ? bias : NULL, M, N, K,
                                 mode == 2);
                    double err = 0.0;
                    int pad_ok = 1;
                    for (int i = 0; i < M; i++) {
                        for (int j = 0; j < N; j++) {
                            double want = ref[(size_t)i * N + j] +
                                          (mode == 2 ? before[(size_t)i * ldo + j] : 0.0);
                            err = fmax(err, fabs(out[(size_t)i * ldo + j] - want));
                        }
                        for (int j = N; j < ldo; j++)
                            pad_ok &= out[(size_t)i * ldo + j] == before[(size_t)i * ldo + j];
                    }
                    CHECK(err <= 2e-6 * sqrt((double)K) + 1e-6,
                          "matmul M=%d N=%d K=%d ta=%d tb=%d mode=%d: max error %g", M, N, K, ta,
                          tb, mode, err);
                    CHECK(pad_ok, "matmul M=%d N=%d K=%d: wrote outside the N columns", M, N, K);
                    free(a); free(b); free(bias); free(out); free(ref); free(before);
                }
    }
    /* K = 0: the bias (or zeros); accumulate leaves out alone */
    float out[6] = { 9, 9, 9, 9, 9, 9 }, bias[3] = { 1, 2, 3 };
    sx_nn_matmul(out, 3, NULL, 1, 0, NULL, 1, 0, bias, 2, 3, 0, 0);
    CHECK(out[0] == 1 && out[4] == 2 && out[5] == 3, "K=0 gives the bias");
    sx_nn_matmul(out, 3, NULL, 1, 0, NULL, 1, 0, NULL, 2, 3, 0, 1);
    CHECK(out[0] == 1 && out[5] == 3, "K=0 accumulate is a no-op");
}

/* ------------------------------------------------------------------ layers */
typedef struct {
    int N, C, OC;
    float *inp, *w, *bias, *out, *r, *mean, *rstd;
    int which; /* 0 linear, 1 layernorm, 2 gelu, 3 relu */
} layer_ctx;

static double layer_loss(void *p) {
    layer_ctx *c = p;
    const size_t n = (size_t)c->N * c->OC;
    switch (c->which) {
    case 0: sx_nn_linear_forward(c->out, c->inp, c->w, c->bias, c->N, c->C, c->OC); break;
    case 1: sx_nn_layernorm_forward(c->out, c->mean, c->rstd, c->inp, c->w, c->bias, c->N, c->C); break;
    case 2: sx_nn_gelu_forward(c->out, c->inp, n); break;
    default: sx_nn_relu_forward(c->out, c->inp, n); break;
    }
    return dot_d(c->out, c->r, n);
}

static void test_layers(void) {
    double worst = 0.0;
    /* linear: odd shapes, bias */
    {
        layer_ctx c = { 5, 7, 9, 0, 0, 0, 0, 0, 0, 0, 0 };
        c.inp = falloc(35); c.w = falloc(63); c.bias = falloc(9); c.out = falloc(45); c.r = falloc(45);
        fill(c.inp, 35, -1, 1); fill(c.w, 63, -1, 1); fill(c.bias, 9, -1, 1); fill(c.r, 45, -1, 1);
        float *dinp = falloc(35), *dw = falloc(63), *db = falloc(9);
        /* accumulation: start the grads at 1 and subtract it after */
        for (int i = 0; i < 35; i++) dinp[i] = 1.0f;
        sx_nn_linear_backward(dinp, dw, db, c.r, c.inp, c.w, 5, 7, 9);
        for (int i = 0; i < 35; i++) dinp[i] -= 1.0f;
        c.which = 0;
        gradcheck("linear dinp", layer_loss, &c, c.inp, dinp, 35, 0, 1e-2f, 1e-3, 1e-3, &worst);
        gradcheck("linear dw", layer_loss, &c, c.w, dw, 63, 0, 1e-2f, 1e-3, 1e-3, &worst);
        gradcheck("linear dbias", layer_loss, &c, c.bias, db, 9, 0, 1e-2f, 1e-3, 1e-3, &worst);
        free(c.inp); free(c.w); free(c.bias); free(c.out); free(c.r); free(dinp); free(dw); free(db);
    }
    /* layernorm */
    {
        layer_ctx c = { 4, 11, 11, 0, 0, 0, 0, 0, 0, 0, 1 };
        c.inp = falloc(44); c.w = falloc(11); c.bias = falloc(11); c.out = falloc(44); c.r = falloc(44);
        c.mean = falloc(4); c.rstd = falloc(4);
        fill(c.inp, 44, -2, 2); fill(c.w, 11, 0.5, 1.5); fill(c.bias, 11, -1, 1); fill(c.r, 44, -1, 1);
        float *dinp = falloc(44), *dw = falloc(11), *db = falloc(11);
        layer_loss(&c);
        sx_nn_layernorm_backward(dinp, dw, db, c.r, c.inp, c.w, c.mean, c.rstd, 4, 11);
        gradcheck("layernorm dinp", layer_loss, &c, c.inp, dinp, 44, 0, 1e-2f, 2e-3, 1e-2, &worst);
        gradcheck("layernorm dweight", layer_loss, &c, c.w, dw, 11, 0, 1e-2f, 2e-3, 1e-2, &worst);
        gradcheck("layernorm dbias", layer_loss, &c, c.bias, db, 11, 0, 1e-2f, 2e-3, 1e-2, &worst);
        /* normalised rows: mean 0, variance 1 with weight 1, bias 0 */
        for (int i = 0; i < 11; i++) { c.w[i] = 1.0f; c.bias[i] = 0.0f; }
        layer_loss(&c);
        double m = 0, v = 0;
        for (int i = 0; i < 11; i++) m += c.out[i];
        for (int i = 0; i < 11; i++) v += c.out[i] * c.out[i];
        CHECK(fabs(m / 11) < 1e-6 && fabs(v / 11 - 1) < 1e-3, "layernorm normalises (mean %g, var %g)",
              m / 11, v / 11);
        free(c.inp); free(c.w); free(c.bias); free(c.out); free(c.r); free(c.mean); free(c.rstd);
        free(dinp); free(dw); free(db);
    }
    /* GELU and ReLU (inputs away from ReLU's kink) */
    for (int which = 2; which <= 3; which++) {
        layer_ctx c = { 1, 37, 37, 0, 0, 0, 0, 0, 0, 0, which };
        c.inp = falloc(37); c.out = falloc(37); c.r = falloc(37);
        fill(c.inp, 37, -3, 3);
        for (int i = 0; i < 37; i++)
            if (fabsf(c.inp[i]) < 0.05f) c.inp[i] = 0.5f;
        fill(c.r, 37, -1, 1);
        float *dinp = falloc(37);
        if (which == 2) sx_nn_gelu_backward(dinp, c.inp, c.r, 37);
        else sx_nn_relu_backward(dinp, c.inp, c.r, 37);
        gradcheck(which == 2 ? "gelu" : "relu", layer_loss, &c, c.inp, dinp, 37, 0, 1e-2f, 1e-3,
                  1e-3, &worst);
        free(c.inp); free(c.out); free(c.r); free(dinp);
    }
    printf("test_nn: layers gradient check, worst |analytic - differences| = %.2g\n", worst);

    /* SIMD GELU and its derivative against the double formula over [-12, 12] and far out */
    {
        enum { NG = 1203 };
        float gx[NG], gy[NG], gd[NG], ones[NG];
        for (int i = 0; i < NG; i++) { gx[i] = -12.0f + 24.0f * i / (NG - 1); gd[i] = 0.0f; ones[i] = 1.0f; }
        gx[0] = -1e6f; gx[1] = 1e6f; gx[2] = -60.0f;
        sx_nn_gelu_forward(gy, gx, NG);
        sx_nn_gelu_backward(gd, gx, ones, NG);
        double ey = 0.0, ed = 0.0;
        for (int i = 0; i < NG; i++) {
            const double x = gx[i], u = 0.7978845608028654 * (x + 0.044715 * x * x * x), th = tanh(u);
            const double y = 0.5 * x * (1 + th);
            const double d = 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x);
            ey = fmax(ey, fabs(gy[i] - y) / fmax(1.0, fabs(y)));
            ed = fmax(ed, fabs(gd[i] - d));
        }
        CHECK(ey < 1e-6 && ed < 1e-5, "gelu vs double: value %g, derivative %g", ey, ed);
    }
    /* GELU values: gelu(0) = 0, gelu(1) ~ 0.841192 (tanh form), gelu(-10) ~ 0 */
    float x[3] = { 0.0f, 1.0f, -10.0f }, y[3];
    sx_nn_gelu_forward(y, x, 3);
    CHECK(y[0] == 0.0f && fabsf(y[1] - 0.841192f) < 1e-5f && fabsf(y[2]) < 1e-6f,
          "gelu values %g %g %g", (double)y[0], (double)y[1], (double)y[2]);
}

/* ----------------------------------------------------- embedding + positions */
static void test_embedding(void) {
    const int B = 2, T = 3, C = 6, V = 5;
    float pe[3 * 6], wte[5 * 6], out[2 * 3 * 6], dwte[5 * 6] = { 0 }, dout[2 * 3 * 6];
    sx_nn_posenc(pe, T, C);
    CHECK(pe[0] == 0.0f && pe[1] == 1.0f, "PE(0) = (sin 0, cos 0, ...)");
    CHECK(fabsf(pe[6 + 2] - (float)sin(1.0 / pow(10000.0, 2.0 / 6))) < 1e-7f, "PE(1, 2)");
    CHECK(fabsf(pe[12 + 5] - (float)cos(2.0 / pow(10000.0, 4.0 / 6))) < 1e-7f, "PE(2, 5)");
    fill(wte, 30, -1, 1);
    int tok[6] = { 0, 4, 2, 2, 1, 0 };
    CHECK(sx_nn_embedding_forward(out, tok, wte, pe, 2.0f, B, T, C, V) == SX_OK, "embedding ok");
    CHECK(out[6 * 4 + 3] == wte[6 * 1 + 3] * 2.0f + pe[6 * 1 + 3], "embedding value");
    fill(dout, 36, -1, 1);
    sx_nn_embedding_backward(dwte, dout, tok, 2.0f, B, T, C);
    CHECK(fabsf(dwte[6 * 2 + 1] - 2.0f * (dout[6 * 2 + 1] + dout[6 * 3 + 1])) < 1e-6f,
          "embedding backward sums repeated tokens");
    CHECK(dwte[6 * 3] == 0.0f, "unused token has no gradient");
    /* residual and accumulate (odd length: the SIMD body and the tail) */
    float ra[7], rb[7], ro[7];
    fill(ra, 7, -1, 1);
    fill(rb, 7, -1, 1);
    sx_nn_residual_forward(ro, ra, rb, 7);
    int res_ok = 1;
    for (int i = 0; i < 7; i++) res_ok &= ro[i] == ra[i] + rb[i];
    sx_nn_accumulate(ro, ra, 7);
    for (int i = 0; i < 7; i++) res_ok &= ro[i] == (ra[i] + rb[i]) + ra[i];
    CHECK(res_ok, "residual and accumulate");
    int bad[6] = { 0, 1, 5, 0, 0, 0 };
    out[0] = 42.0f;
    CHECK(sx_nn_embedding_forward(out, bad, wte, pe, 1.0f, B, T, C, V) == SX_EINVAL, "bad id");
    CHECK(strstr(sx_last_error(), "got 5") != NULL, "message names the id: %s", sx_last_error());
    CHECK(out[0] == 42.0f, "a bad id writes nothing");
}

/* ----------------------------------------------------------- cross-entropy */
typedef struct {
    int N, V, ignore;
    float *logits, *probs;
    const int *targets;
} ce_ctx;

static double ce_loss(void *p) {
    ce_ctx *c = p;
    float loss = 0.0f;
    sx_nn_crossentropy_forward(&loss, c->probs, c->logits, c->targets, c->N, c->V, c->ignore);
    return loss;
}

static void test_crossentropy(void) {
    const int N = 6, V = 7;
    int targets[6] = { 3, 0, -1, 6, -1, 2 };
    ce_ctx c = { N, V, -1, falloc(N * V), falloc(N * V), targets };
    fill(c.logits, N * V, -3, 3);
    float loss;
    CHECK(sx_nn_crossentropy_forward(&loss, c.probs, c.logits, targets, N, V, -1) == SX_OK, "ce ok");
    double want = 0.0;
    for (int n = 0; n < N; n++) {
        if (targets[n] < 0) continue;
        double s = 0.0;
        for (int i = 0; i < V; i++) s += exp(c.logits[n * V + i]);
        want += log(s) - c.logits[n * V + targets[n]];
    }
    CHECK_NEAR(loss, want / 4, 1e-6, "mean over the 4 counted rows");
    float *dl = falloc(N * V);
    sx_nn_crossentropy_backward(dl, c.probs, targets, N, V, -1, 1.0f);
    double worst = 0.0;
    gradcheck("crossentropy dlogits", ce_loss, &c, c.logits, dl, N * V, 0, 1e-2f, 1e-4, 1e-3, &worst);
    int zero = 1;
    for (int i = 0; i < V; i++) zero &= dl[2 * V + i] == 0.0f && dl[4 * V + i] == 0.0f;
    CHECK(zero, "ignored rows get no gradient");
    printf("test_nn: cross-entropy gradient check, worst error %.2g\n", worst);
    int bad[6] = { 3, 0, 7, 6, -1, 2 };
    CHECK(sx_nn_crossentropy_forward(&loss, c.probs, c.logits, bad, N, V, -1) == SX_EINVAL,
          "target out of range");
    c.logits[5] = NAN;
    CHECK(sx_nn_crossentropy_forward(&loss, c.probs, c.logits, targets, N, V, -1) == SX_ENONFINITE,
          "NaN logit");
    c.logits[5] = -INFINITY;
    CHECK(sx_nn_crossentropy_forward(&loss, c.probs, c.logits, targets, N, V, -1) == SX_ENONFINITE,
          "-Infinity logit");
    /* a target whose probability underflows: the loss stays exact (log-sum-exp path) */
    {
        float lg[3] = { 0.0f, 120.0f, 1.0f }, pr[3], l1;
        int tg[1] = { 0 };
        CHECK(sx_nn_crossentropy_forward(&l1, pr, lg, tg, 1, 3, -1) == SX_OK, "ce underflow ok");
        CHECK_NEAR(l1, 120.0 + log(1.0 + exp(-120.0) + exp(-119.0)), 1e-4, "ce loss with p = 0");
    }
    /* all rows ignored: loss 0, no gradient */
    int none[6] = { -1, -1, -1, -1, -1, -1 };
    c.logits[5] = 0.0f;
    CHECK(sx_nn_crossentropy_forward(&loss, c.probs, c.logits, none, N, V, -1) == SX_OK && loss == 0.0f,
          "no counted row");
    free(c.logits); free(c.probs); free(dl);
}

/* ------------------------------------------- mapping backward: from p vs from x */
static void test_map_backward(void) {
    const int rows = 7, n = 23;
    const int kinds[5] = { SX_NN_SOFTMAX, SX_NN_SPARSEMAX, SX_NN_ENTMAX15, SX_NN_ENTMAX, SX_NN_ENTMAX_LEARNED };
    const float alphas[7] = { 1.0f, 1.00005f, 1.01f, 1.3f, 1.5f, 1.83f, 2.0f };
    float x[7 * 23], p[7 * 23], g[7 * 23], d1[7 * 23], d2[7 * 23];
    double worst_dx = 0.0, worst_da = 0.0;
    for (int t = 0; t < 5; t++)
        for (int ai = 0; ai < (kinds[t] >= SX_NN_ENTMAX ? 7 : 1); ai++) {
            const float alpha = alphas[ai];
            fill(x, rows * n, -2, 2);
            fill(g, rows * n, -1, 1);
            for (int j = 0; j < n; j += 5) x[j] = -INFINITY;         /* masks in row 0 */
            for (int j = 0; j < n; j++) x[n + j] = -INFINITY;        /* row 1 fully masked */
            CHECK(sx_nn_map_forward(p, x, rows, n, kinds[t], alpha) == SX_OK, "map forward");
            float da1 = 0.0f, da2 = 0.0f;
            CHECK(sx_nn_map_backward(d1, &da1, x, p, g, rows, n, kinds[t], alpha) == SX_OK, "from p");
            CHECK(sx_nn_map_backward(d2, &da2, x, NULL, g, rows, n, kinds[t], alpha) == SX_OK,
                  "from x: %s", sx_last_error());
            double e = 0.0;
            for (int i = 0; i < rows * n; i++) e = fmax(e, fabs(d1[i] - d2[i]));
            worst_dx = fmax(worst_dx, e);
            CHECK(e < 1e-5, "kind %d alpha %g: backward from p vs from x differ by %g", kinds[t],
                  (double)alpha, e);
            int zero = 1;
            for (int j = 0; j < n; j++) zero &= d1[n + j] == 0.0f && (j % 5 || d1[j] == 0.0f);
            CHECK(zero, "kind %d: masked entries get 0 gradient", kinds[t]);
            if (kinds[t] == SX_NN_ENTMAX_LEARNED) {
                double rowsum = 0.0;
                for (int r = 0; r < rows; r++) rowsum += sx_nn_entmax_alpha_grad_p(p + r * n, g + r * n, n, alpha);
                CHECK(fabs(rowsum - da1) <= 1e-6 * fmax(1.0, fabs(rowsum)),
                      "sx_nn_entmax_alpha_grad_p rows %.9g vs map_backward %.9g", rowsum, (double)da1);
                worst_da = fmax(worst_da, fabs(da1 - da2) / fmax(1.0, fabs(da2)));
                CHECK(fabs(da1 - da2) <= 1e-4 * fmax(1.0, fabs(da2)),
                      "alpha %g: alpha gradient from p %.7g vs sx_entmax_alpha_grad %.7g",
                      (double)alpha, (double)da1, (double)da2);
            }
        }
    printf("test_nn: mapping backward from p vs from x: worst dx %.2g, worst relative d alpha %.2g\n",
           worst_dx, worst_da);
}

/* ------------------------------------------------------ attention reference */
/* Naive attention of one (b, h): scores in double, the window by the definition (causal,
   padding, m(x) > 0), the mapping row by row, span mask and renormalisation, out = att v. */
static void ref_attention(float *out, float *att, const float *q, int ldq, const float *k,
                          const float *v, int ldkv, const float *alpha_a, const float *span_z,
                          const int *k_len, int B, int Tq, int Tk, const sx_nn_attn_cfg *cfg) {
    const int NH = cfg->n_head, hs = cfg->head_size, C = NH * hs;
    float *s = falloc(Tk), *p = falloc(Tk);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            const int kind = cfg->kind[h];
            const float param = kind == SX_NN_ENTMAX_LEARNED ? sx_nn_alpha_of(alpha_a[h])
                                                             : cfg->param ? cfg->param[h] : 0.0f;
            const int klen = k_len ? k_len[b] : Tk;
            for (int i = 0; i < Tq; i++) {
                for (int j = 0; j < Tk; j++) {
                    int ok = j < klen && (!cfg->causal || j <= i);
                    const float x = (float)abs(i - j);
                    if (cfg->span_max > 0)
                        ok = ok && sx_nn_span_mask(x, span_z[h], cfg->span_max, cfg->span_ramp) > 0;
                    double d = 0.0;
                    for (int c = 0; c < hs; c++)
                        d += (double)q[((size_t)b * Tq + i) * ldq + h * hs + c] *
                             k[((size_t)b * Tk + j) * ldkv + h * hs + c];
                    s[j] = ok ? (float)(d / sqrt((double)hs)) : -INFINITY;
                }
                sx_nn_map_forward(p, s, 1, Tk, kind, param);
                if (cfg->span_max > 0) {
                    double sum = 0.0;
                    for (int j = 0; j < Tk; j++) {
                        p[j] *= sx_nn_span_mask((float)abs(i - j), span_z[h], cfg->span_max,
                                                cfg->span_ramp);
                        sum += p[j];
                    }
                    for (int j = 0; j < Tk; j++) p[j] = sum > 0 ? (float)(p[j] / sum) : 0.0f;
                }
                memcpy(att + (((size_t)b * NH + h) * Tq + i) * Tk, p, sizeof(float) * Tk);
                for (int c = 0; c < hs; c++) {
                    double o = 0.0;
                    for (int j = 0; j < Tk; j++)
                        o += (double)p[j] * v[((size_t)b * Tk + j) * ldkv + h * hs + c];
                    out[((size_t)b * Tq + i) * C + h * hs + c] = (float)o;
                }
            }
        }
    free(s); free(p);
}

/* One attention problem: q (B, Tq, ldq), k and v inside one (B, Tk, 2C) buffer. */
typedef struct {
    sx_nn_attn_cfg cfg;
    int B, Tq, Tk, ldq, ldkv;
    float *q, *kv, *a, *z, *r;
    const int *k_len;
    float *out, *score, *prob, *att;
} att_ctx;

static void att_alloc(att_ctx *c) {
    const int C = c->cfg.n_head * c->cfg.head_size;
    c->ldq = C + 1; /* a padded stride, to exercise the strides */
    c->ldkv = 2 * C;
    const size_t maps = sx_nn_attention_map_size(&c->cfg, c->B, c->Tq, c->Tk);
    c->q = falloc((size_t)c->B * c->Tq * c->ldq);
    c->kv = falloc((size_t)c->B * c->Tk * c->ldkv);
    c->a = falloc(c->cfg.n_head);
    c->z = falloc(c->cfg.n_head);
    c->r = falloc((size_t)c->B * c->Tq * C);
    c->out = falloc((size_t)c->B * c->Tq * C);
    c->score = falloc(maps);
    c->prob = falloc(maps);
    c->att = falloc(maps);
    fill(c->q, (size_t)c->B * c->Tq * c->ldq, -1.5f, 1.5f);
    fill(c->kv, (size_t)c->B * c->Tk * c->ldkv, -1.5f, 1.5f);
    fill(c->r, (size_t)c->B * c->Tq * C, -1, 1);
}
static void att_free(att_ctx *c) {
    free(c->q); free(c->kv); free(c->a); free(c->z); free(c->r);
    free(c->out); free(c->score); free(c->prob); free(c->att);
}
static int att_forward(att_ctx *c) {
    const int C = c->cfg.n_head * c->cfg.head_size;
    return sx_nn_attention_forward(c->out, c->score, c->cfg.span_max > 0 ? c->prob : NULL, c->att,
                                   c->q, c->ldq, c->kv, c->kv + C, c->ldkv, c->a, c->z, c->k_len,
                                   c->B, c->Tq, c->Tk, &c->cfg);
}
static double att_loss(void *p) {
    att_ctx *c = p;
    int st = att_forward(c);
    if (st != SX_OK) return NAN;
    return dot_d(c->out, c->r, (size_t)c->B * c->Tq * c->cfg.n_head * c->cfg.head_size);
}

/* fast vs the naive reference, masks, then the gradient check of every input */
static void check_attention(const char *name, att_ctx *c, int gradients, double *worst) {
    const sx_nn_attn_cfg *cfg = &c->cfg;
    const int NH = cfg->n_head, hs = cfg->head_size, C = NH * hs, B = c->B, Tq = c->Tq, Tk = c->Tk;
    const size_t maps = sx_nn_attention_map_size(cfg, B, Tq, Tk);
    CHECK(att_forward(c) == SX_OK, "%s: forward ok (%s)", name, sx_last_error());
    float *ref_out = falloc((size_t)B * Tq * C), *ref_att = falloc(maps);
    ref_attention(ref_out, ref_att, c->q, c->ldq, c->kv, c->kv + C, c->ldkv, c->a, c->z, c->k_len,
                  B, Tq, Tk, cfg);
    double e_out = 0.0, e_att = 0.0;
    for (size_t i = 0; i < (size_t)B * Tq * C; i++) e_out = fmax(e_out, fabs(c->out[i] - ref_out[i]));
    for (size_t i = 0; i < maps; i++) e_att = fmax(e_att, fabs(c->att[i] - ref_att[i]));
    CHECK(e_out < 2e-5 && e_att < 2e-5, "%s: fast vs naive: out %g, att %g", name, e_out, e_att);

    /* mask properties, exact */
    int future = 0, padded = 0, beyond = 0, rows_ok = 1;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < Tq; i++) {
                const float *a_i = c->att + (((size_t)b * NH + h) * Tq + i) * Tk;
                const int klen = c->k_len ? c->k_len[b] : Tk;
                double sum = 0.0;
                int visible = 0;
                for (int j = 0; j < Tk; j++) {
                    sum += a_i[j];
                    if (cfg->causal && j > i && a_i[j] != 0.0f) future++;
                    if (j >= klen && a_i[j] != 0.0f) padded++;
                    if (cfg->span_max > 0 &&
                        sx_nn_span_mask((float)abs(i - j), c->z[h], cfg->span_max, cfg->span_ramp) == 0.0f &&
                        a_i[j] != 0.0f)
                        beyond++;
                    if (a_i[j] < 0.0f || a_i[j] > 1.0f) rows_ok = 0;
                    visible |= j < klen && (!cfg->causal || j <= i) &&
                               (cfg->span_max == 0 ||
                                sx_nn_span_mask((float)abs(i - j), c->z[h], cfg->span_max, cfg->span_ramp) > 0.0f);
                }
                if (visible ? fabs(sum - 1.0) > 1e-5 : sum != 0.0) rows_ok = 0;
            }
    CHECK(future == 0, "%s: %d weights on future keys", name, future);
    CHECK(padded == 0, "%s: %d weights on padding keys", name, padded);
    CHECK(beyond == 0, "%s: %d weights beyond span + ramp", name, beyond);
    CHECK(rows_ok, "%s: rows on the simplex (or all zero when nothing is visible)", name);
    free(ref_out); free(ref_att);
    if (!gradients) return;

    /* analytic gradients, accumulated on top of a non-zero start (then subtracted) */
    const size_t nq = (size_t)B * Tq * c->ldq, nkv = (size_t)B * Tk * c->ldkv;
    float *dq = falloc(nq), *dkv = falloc(nkv), *da = falloc(NH), *dz = falloc(NH);
    float *scratch = falloc(sx_nn_attention_scratch_size(cfg, Tq, Tk));
    for (size_t i = 0; i < nkv; i++) dkv[i] = 0.5f;
    att_forward(c);
    int st = sx_nn_attention_backward(dq, dkv, dkv + C, da, dz, scratch, c->r, c->score,
                                      cfg->span_max > 0 ? c->prob : NULL, c->att, c->q, c->ldq,
                                      c->kv, c->kv + C, c->ldkv, c->a, c->z, c->k_len, B, Tq, Tk, cfg);
    CHECK(st == SX_OK, "%s: backward ok (%s)", name, sx_last_error());
    for (size_t i = 0; i < nkv; i++) dkv[i] -= 0.5f;
    char what[96];
    snprintf(what, sizeof what, "%s dq", name);
    int kinks = gradcheck(what, att_loss, c, c->q, dq, (int)nq, 120, 1e-3f, 2e-3, 2e-2, worst);
    snprintf(what, sizeof what, "%s dk,dv", name);
    kinks += gradcheck(what, att_loss, c, c->kv, dkv, (int)nkv, 160, 1e-3f, 2e-3, 2e-2, worst);
    CHECK(kinks <= 6, "%s: %d of ~280 entries skipped at a support boundary", name, kinks);
    for (int h = 0; h < NH; h++) {
        if (cfg->kind[h] == SX_NN_ENTMAX_LEARNED) {
            snprintf(what, sizeof what, "%s d a (alpha %.3f, head %d)", name,
                     (double)sx_nn_alpha_of(c->a[h]), h);
            CHECK(gradcheck(what, att_loss, c, c->a + h, da + h, 1, 0, 1e-3f, 2e-3, 2e-2, worst) == 0,
                  "%s: smooth in a", what);
            CHECK(da[h] != 0.0f, "%s: alpha gradient of head %d is not zero", name, h);
        } else {
            CHECK(da[h] == 0.0f, "%s: no alpha gradient for fixed head %d", name, h);
        }
        if (cfg->span_max > 0) {
            snprintf(what, sizeof what, "%s d z (head %d)", name, h);
            gradcheck_s(what, att_loss, c, c->z + h, dz + h, 1, 0, 1e-3f, 2e-3, 2e-2, worst, 1);
            CHECK(dz[h] != 0.0f, "%s: non-zero (a key on the ramp)", what);
        }
    }
    free(dq); free(dkv); free(da); free(dz); free(scratch);
}

static void test_attention(void) {
    double worst = 0.0;
    /* 1. decoder self-attention: causal, span, padding, all kinds of heads */
    {
        static const int kind[4] = { SX_NN_SOFTMAX, SX_NN_SPARSEMAX, SX_NN_ENTMAX15, SX_NN_ENTMAX_LEARNED };
        static const int k_len[2] = { 9, 6 };
        att_ctx c = { { 4, 3, 1, kind, NULL, 8, 2.0f, NULL }, 2, 9, 9, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&c);
        /* spans with R + z L away from an integer (the window is fixed within eps) */
        const float z[4] = { 0.43f, 0.18f, 0.81f, 0.3f }, a[4] = { 0, 0, 0, -0.4f };
        memcpy(c.z, z, sizeof z);
        memcpy(c.a, a, sizeof a);
        check_attention("causal+span", &c, 1, &worst);
        att_free(&c);
    }
    /* 2. cross-attention: padding only, fusedmax, fixed alpha, learned alpha near 2 */
    {
        static const int kind[4] = { SX_NN_ENTMAX_LEARNED, SX_NN_FUSEDMAX, SX_NN_ENTMAX, SX_NN_SOFTMAX };
        static const float param[4] = { 0, 0.2f, 1.7f, 0 };
        static const int k_len[2] = { 11, 7 };
        att_ctx c = { { 4, 5, 0, kind, param, 0, 0, NULL }, 2, 6, 11, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&c);
        c.a[0] = 1.5f;
        check_attention("cross+padding", &c, 1, &worst);
        att_free(&c);
    }
    /* 3. encoder self-attention with span (symmetric distance), learned alpha near 1 */
    {
        static const int kind[2] = { SX_NN_ENTMAX_LEARNED, SX_NN_SPARSEMAX };
        att_ctx c = { { 2, 4, 0, kind, NULL, 6, 1.5f, NULL }, 1, 8, 8, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };
        att_alloc(&c);
        c.a[0] = -2.0f;
        c.z[0] = 0.37f;
        c.z[1] = 0.12f;
        check_attention("encoder+span", &c, 1, &worst);
        att_free(&c);
    }
    printf("test_nn: attention gradient check (q, k, v, a, z), worst error %.2g\n", worst);

    /* 4. long causal sequences: several query tiles, windows that start mid-tile, odd sizes */
    {
        static const int kind[3] = { SX_NN_SOFTMAX, SX_NN_ENTMAX_LEARNED, SX_NN_SPARSEMAX };
        static const int k_len[2] = { 150, 97 };
        att_ctx c = { { 3, 8, 1, kind, NULL, 100, 16.0f, NULL }, 2, 150, 150, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&c);
        c.z[0] = 0.2f; c.z[1] = 0.55f; c.z[2] = 1.0f;
        c.a[1] = 0.7f;
        check_attention("long causal+span", &c, 0, &worst);
        att_free(&c);
        att_ctx d = { { 3, 8, 1, kind, NULL, 0, 0, NULL }, 2, 130, 130, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };
        att_alloc(&d);
        check_attention("long causal", &d, 0, &worst);
        att_free(&d);
        att_ctx e = { { 3, 7, 0, kind, NULL, 0, 0, NULL }, 2, 67, 131, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&e);
        check_attention("long cross", &e, 0, &worst);
        att_free(&e);
    }
    /* 4b. more queries than keys: windows past the last key are empty (rows of zeros) */
    {
        static const int kind[2] = { SX_NN_SPARSEMAX, SX_NN_SOFTMAX };
        static const int k_len[2] = { 8, 5 };
        att_ctx c = { { 2, 3, 0, kind, NULL, 4, 1.0f, NULL }, 2, 40, 8, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&c);
        c.z[0] = 0.3f; c.z[1] = 1.0f;
        check_attention("span Tq > Tk", &c, 0, &worst);
        att_free(&c);
        att_ctx d = { { 2, 3, 1, kind, NULL, 0, 0, NULL }, 1, 100, 70, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0 };
        att_alloc(&d);
        check_attention("causal Tq > Tk", &d, 0, &worst);
        att_free(&d);
    }
    /* 5. a batch element with no valid key: zero weights, zero output, zero gradients */
    {
        static const int kind[2] = { SX_NN_SOFTMAX, SX_NN_ENTMAX15 };
        static const int k_len[2] = { 0, 3 };
        att_ctx c = { { 2, 2, 0, kind, NULL, 0, 0, NULL }, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, k_len, 0, 0, 0, 0 };
        att_alloc(&c);
        check_attention("empty keys", &c, 0, &worst);
        int zero = 1;
        for (int i = 0; i < 3 * 4; i++) zero &= c.out[i] == 0.0f;
        CHECK(zero, "no valid key: output 0");
        att_free(&c);
    }
    /* error paths */
    {
        static const int kind[1] = { 9 };
        sx_nn_attn_cfg cfg = { 1, 2, 0, kind, NULL, 0, 0, NULL };
        float x[8] = { 0 }, s[4], o[4];
        CHECK(sx_nn_attention_forward(o, s, NULL, s, x, 2, x, x, 2, NULL, NULL, NULL, 1, 2, 2, &cfg) == SX_EINVAL,
              "unknown mapping is an error");
        static const int learned[1] = { SX_NN_ENTMAX_LEARNED };
        cfg.kind = learned;
        CHECK(sx_nn_attention_forward(o, s, NULL, s, x, 2, x, x, 2, NULL, NULL, NULL, 1, 2, 2, &cfg) == SX_EINVAL,
              "learned alpha without a is an error");
        CHECK(strstr(sx_last_error(), "alpha_a") != NULL, "message: %s", sx_last_error());
        static const int soft[1] = { SX_NN_SOFTMAX };
        cfg.kind = soft;
        cfg.span_max = 4;
        cfg.span_ramp = 0.0f;
        CHECK(sx_nn_attention_forward(o, s, s, s, x, 2, x, x, 2, NULL, x, NULL, 1, 2, 2, &cfg) == SX_EINVAL,
              "span ramp 0 is an error");
        cfg.span_ramp = 2.0f;
        CHECK(sx_nn_attention_forward(o, s, NULL, s, x, 2, x, x, 2, NULL, x, NULL, 1, 2, 2, &cfg) == SX_EINVAL,
              "span without prob is an error");
        /* a NaN in q reaches the mapping as a NaN score: an error, not NaN weights */
        cfg.span_max = 0;
        x[0] = NAN;
        CHECK(sx_nn_attention_forward(o, s, NULL, s, x, 2, x, x, 2, NULL, NULL, NULL, 1, 2, 2, &cfg) == SX_ENONFINITE,
              "NaN input is SX_ENONFINITE");
    }
}

/* ------------------------------------------------------------------- spans */
static void test_span(void) {
    int in01 = 1;
    for (int i = 0; i <= 400; i++) {
        const float x = i * 0.25f;
        for (int zi = 0; zi <= 10; zi++) {
            const float m = sx_nn_span_mask(x, zi / 10.0f, 64, 8.0f);
            in01 &= m >= 0.0f && m <= 1.0f;
        }
    }
    CHECK(in01, "span mask in [0, 1]");
    CHECK(sx_nn_span_mask(0.0f, 0.0f, 64, 8.0f) == 1.0f, "distance 0 always fully visible");
    CHECK(sx_nn_span_mask(16.0f, 0.25f, 64, 8.0f) == 1.0f, "inside the span: 1");
    CHECK(sx_nn_span_mask(20.0f, 0.25f, 64, 8.0f) == 0.5f, "mid ramp: 1/2");
    CHECK(sx_nn_span_mask(24.0f, 0.25f, 64, 8.0f) == 0.0f, "end of the ramp: 0");
    float z[3] = { -0.5f, 0.5f, 1.5f }, dz[3] = { 1, 1, 1 };
    const float pen = sx_nn_span_penalty(dz, z, 3, 0.01f);
    CHECK_NEAR(pen, 0.015, 1e-7, "penalty = coef sum z");
    CHECK(dz[0] == 1.01f && dz[2] == 1.01f, "penalty gradient accumulates coef");
    sx_nn_span_clamp(z, 3);
    CHECK(z[0] == 0.0f && z[1] == 0.5f && z[2] == 1.0f, "clamp to [0, 1]");
}

/* ------------------------------------------------------ Nadaraya-Watson pooling */
typedef struct {
    int nq, nk, kind;
    float param, w;
    float *xq, *xk, *yk, *out, *score, *att, *r;
} nw_ctx;

static double nw_loss(void *p) {
    nw_ctx *c = p;
    if (sx_nn_nw_forward(c->out, c->score, c->att, c->xq, c->xk, c->yk, c->w, c->nq, c->nk, 0,
                         c->kind, c->param) != SX_OK)
        return NAN;
    return dot_d(c->out, c->r, c->nq);
}

static void test_nw(void) {
    const int nq = 9, nk = 13;
    const int kinds[5] = { SX_NN_SOFTMAX, SX_NN_SPARSEMAX, SX_NN_ENTMAX15, SX_NN_ENTMAX, SX_NN_FUSEDMAX };
    const float params[5] = { 0, 0, 0, 1.3f, 0.05f };
    double worst = 0.0;
    for (int t = 0; t < 5; t++) {
        nw_ctx c = { nq, nk, kinds[t], params[t], 1.7f, falloc(nq), falloc(nk), falloc(nk), falloc(nq),
                     falloc(nq * nk), falloc(nq * nk), falloc(nq) };
        for (int i = 0; i < nk; i++) c.xk[i] = 5.0f * i / nk + frand(0, 0.3f);
        for (int i = 0; i < nk; i++) c.yk[i] = 2.0f * sinf(c.xk[i]) + c.xk[i];
        for (int i = 0; i < nq; i++) c.xq[i] = 5.0f * i / nq + 0.1f;
        fill(c.r, nq, -1, 1);
        CHECK(!isnan(nw_loss(&c)), "nw forward %d", t);
        int ok = 1;
        for (int i = 0; i < nq; i++) {
            double s = 0;
            for (int j = 0; j < nk; j++) s += c.att[i * nk + j];
            ok &= fabs(s - 1) < 1e-5;
        }
        CHECK(ok, "nw weights on the simplex (%d)", t);
        float dw = 0.25f, *scratch = falloc(2 * nq * nk);
        CHECK(sx_nn_nw_backward(&dw, scratch, c.r, c.score, c.att, c.xq, c.xk, c.yk, c.w, nq, nk,
                                c.kind, c.param) == SX_OK, "nw backward %d", t);
        dw -= 0.25f;
        CHECK(gradcheck("nw dw", nw_loss, &c, &c.w, &dw, 1, 0, 1e-3f, 2e-3, 1e-2, &worst) == 0,
              "nw smooth in w (%d)", t);
        free(c.xq); free(c.xk); free(c.yk); free(c.out); free(c.score); free(c.att); free(c.r);
        free(scratch);
    }
    printf("test_nn: Nadaraya-Watson dw gradient check, worst error %.2g\n", worst);
}

/* ------------------------------------------------------ Adam on a regression */
static void test_adam(void) {
    /* y = x W* + b*, 64 samples, 5 -> 3; fit W, b (one parameter block) with Adam */
    const int N = 64, C = 5, OC = 3;
    float x[64 * 5], y[64 * 3], wstar[15], bstar[3];
    fill(x, N * C, -1, 1);
    fill(wstar, 15, -2, 2);
    fill(bstar, 3, -1, 1);
    sx_nn_linear_forward(y, x, wstar, bstar, N, C, OC);
    float params[18] = { 0 }, grads[18], m[18] = { 0 }, v[18] = { 0 }, pred[64 * 3], dpred[64 * 3];
    float *w = params, *b = params + 15, *dw = grads, *db = grads + 15;
    sx_nn_adam_cfg cfg = { 0.05f, 0.9f, 0.999f, 1e-8f, 0.0f, 1.0f };
    float loss = 0.0f, first = 0.0f, norm = 0.0f;
    for (int t = 1; t <= 400; t++) {
        sx_nn_linear_forward(pred, x, w, b, N, C, OC);
        double l = 0.0;
        for (int i = 0; i < N * OC; i++) {
            const float d = pred[i] - y[i];
            l += 0.5 * d * d;
            dpred[i] = d / N;
        }
        loss = (float)(l / N);
        if (t == 1) first = loss;
        memset(grads, 0, sizeof grads);
        sx_nn_linear_backward(NULL, dw, db, dpred, x, w, N, C, OC);
        norm = sx_nn_adam_step(params, m, v, grads, 18, t, &cfg);
        if (t == 1) CHECK(norm > 1.0f, "the first gradient is clipped (norm %g)", (double)norm);
    }
    printf("test_nn: Adam linear regression, loss %.3g -> %.3g in 400 steps\n", (double)first,
           (double)loss);
    CHECK(loss < 1e-4f, "Adam fits the regression (loss %g)", (double)loss);
    /* clipping: one step with a huge gradient moves each parameter by about lr at most */
    float p1[4] = { 0 }, g1[4] = { 1e6f, -1e6f, 0, 1e6f }, m1[4] = { 0 }, v1[4] = { 0 };
    norm = sx_nn_adam_step(p1, m1, v1, g1, 4, 1, &cfg);
    CHECK(fabsf(norm - 1e6f * sqrtf(3.0f)) < 1.0f, "norm before clipping (%g)", (double)norm);
    CHECK(fabsf(p1[0] + 0.05f) < 1e-4f && p1[2] == 0.0f, "first Adam step is -lr sign(g)");
    CHECK_NEAR(sx_nn_grad_norm(g1, 4), 1e6 * sqrt(3.0), 1.0, "grad norm");
    /* a long norm (several flushes, a tail) against double */
    {
        enum { NN = 3001 };
        float *g = falloc(NN);
        fill(g, NN, -1, 1);
        double s = 0.0;
        for (int i = 0; i < NN; i++) s += (double)g[i] * g[i];
        CHECK(fabs(sx_nn_grad_norm(g, NN) - sqrt(s)) < 1e-6 * sqrt(s), "grad norm of %d values", NN);
        free(g);
    }
    /* decoupled weight decay: a zero gradient shrinks every parameter by lr * wd * p */
    {
        float p[5] = { 1, -2, 3, -4, 5 }, z[5] = { 0 }, m5[5] = { 0 }, v5[5] = { 0 };
        const sx_nn_adam_cfg wd = { 0.1f, 0.9f, 0.999f, 1e-8f, 0.5f, 0.0f };
        sx_nn_adam_step(p, m5, v5, z, 5, 1, &wd);
        CHECK(fabsf(p[0] - 0.95f) < 1e-6f && fabsf(p[4] - 4.75f) < 1e-6f, "weight decay %g %g",
              (double)p[0], (double)p[4]);
    }
}

/* ----------------------------------------- a one-layer attention model learns a task */
/* The building blocks wired as model.c will wire them: parameters in one block, gradients in
   one block (one memset), activations allocated once, Adam over the flat block, the span
   clamp after each step. Token embedding + sinusoidal positions -> Q, K, V projections ->
   2-head attention (one softmax head, one learned-alpha head) -> output projection ->
   cross-entropy (some targets ignored, as padding is).
   task 0, reversal: non-causal, target t = token T-1-t.
   task 1, previous token: causal with adaptive span (L = T, R = 2, z from 1) and the L1
   span penalty; target t = token t-1 (t = 0 ignored): the spans must shrink. */
enum { TR_V = 7, TR_C = 16, TR_NH = 2, TR_HS = 8, TR_B = 24 };
static void train_task(int task, int T, int steps, float max_loss) {
    enum { V = TR_V, C = TR_C, NH = TR_NH, B = TR_B };
    const int span = task == 1;
    /* parameter layout */
    const size_t n_wte = V * C, n_w = C * C, n_wo = C * V, n_bo = V;
    const size_t n_params = n_wte + 3 * n_w + n_wo + n_bo + 2 * NH;
    float *params = falloc(n_params), *grads = falloc(n_params);
    float *m = falloc(n_params), *vv = falloc(n_params);
    float *wte = params, *wq = wte + n_wte, *wk = wq + n_w, *wv = wk + n_w, *wo = wv + n_w;
    float *bo = wo + n_wo, *alpha_a = bo + n_bo, *span_z = alpha_a + NH;
    float *dwte = grads, *dwq = dwte + n_wte, *dwk = dwq + n_w, *dwv = dwk + n_w, *dwo = dwv + n_w;
    float *dbo = dwo + n_wo, *dalpha_a = dbo + n_bo, *dspan_z = dalpha_a + NH;
    fill(params, n_params, -0.3f, 0.3f);
    for (int h = 0; h < NH; h++) {
        alpha_a[h] = 0.0f;
        span_z[h] = 1.0f;
    }
    static const int kind[NH] = { SX_NN_SOFTMAX, SX_NN_ENTMAX_LEARNED };
    const sx_nn_attn_cfg cfg = { NH, TR_HS, span, kind, NULL, span ? T : 0, 2.0f, NULL };
    /* activations and scratch, once */
    const size_t BT = (size_t)B * T, maps = sx_nn_attention_map_size(&cfg, B, T, T);
    float *pe = falloc(T * C), *x = falloc(BT * C), *q = falloc(BT * C), *k = falloc(BT * C);
    float *v = falloc(BT * C), *y = falloc(BT * C), *logits = falloc(BT * V), *probs = falloc(BT * V);
    float *score = falloc(maps), *prob = falloc(maps), *att = falloc(maps);
    float *dx = falloc(BT * C), *dq = falloc(BT * C), *dk = falloc(BT * C), *dv = falloc(BT * C);
    float *dy = falloc(BT * C), *dlogits = falloc(BT * V);
    float *scratch = falloc(sx_nn_attention_scratch_size(&cfg, T, T));
    int *tok = calloc(BT, sizeof(int)), *tgt = calloc(BT, sizeof(int));
    sx_nn_posenc(pe, T, C);
    const sx_nn_adam_cfg adam = { 0.02f, 0.9f, 0.98f, 1e-8f, 0.0f, 1.0f };
    float loss = 0.0f, first = 0.0f;
    int st = SX_OK;
    for (int step = 1; step <= steps && st == SX_OK; step++) {
        /* a fresh batch; in the last 4 rows the last 2 targets are ignored (-1) */
        for (int b = 0; b < B; b++) {
            for (int t = 0; t < T; t++) tok[b * T + t] = (int)(urand() * V);
            for (int t = 0; t < T; t++) {
                int want = task == 0 ? tok[b * T + T - 1 - t] : t > 0 ? tok[b * T + t - 1] : -1;
                tgt[b * T + t] = b >= B - 4 && t >= T - 2 ? -1 : want;
            }
        }
        /* forward */
        st = sx_nn_embedding_forward(x, tok, wte, pe, 1.0f, B, T, C, V);
        if (st) break;
        sx_nn_linear_forward(q, x, wq, NULL, BT, C, C);
        sx_nn_linear_forward(k, x, wk, NULL, BT, C, C);
        sx_nn_linear_forward(v, x, wv, NULL, BT, C, C);
        st = sx_nn_attention_forward(y, score, span ? prob : NULL, att, q, C, k, v, C, alpha_a,
                                     span ? span_z : NULL, NULL, B, T, T, &cfg);
        if (st) break;
        sx_nn_linear_forward(logits, y, wo, bo, BT, C, V);
        st = sx_nn_crossentropy_forward(&loss, probs, logits, tgt, BT, V, -1);
        if (st) break;
        if (step == 1) first = loss;
        /* backward: zero every gradient, then accumulate */
        memset(grads, 0, n_params * sizeof(float));
        memset(dx, 0, BT * C * sizeof(float));
        memset(dq, 0, BT * C * sizeof(float));
        memset(dk, 0, BT * C * sizeof(float));
        memset(dv, 0, BT * C * sizeof(float));
        memset(dy, 0, BT * C * sizeof(float));
        memset(dlogits, 0, BT * V * sizeof(float));
        if (span) sx_nn_span_penalty(dspan_z, span_z, NH, 0.02f);
        sx_nn_crossentropy_backward(dlogits, probs, tgt, BT, V, -1, 1.0f);
        sx_nn_linear_backward(dy, dwo, dbo, dlogits, y, wo, BT, C, V);
        st = sx_nn_attention_backward(dq, dk, dv, dalpha_a, span ? dspan_z : NULL, scratch, dy,
                                      score, span ? prob : NULL, att, q, C, k, v, C, alpha_a,
                                      span ? span_z : NULL, NULL, B, T, T, &cfg);
        if (st) break;
        sx_nn_linear_backward(dx, dwq, NULL, dq, x, wq, BT, C, C);
        sx_nn_linear_backward(dx, dwk, NULL, dk, x, wk, BT, C, C);
        sx_nn_linear_backward(dx, dwv, NULL, dv, x, wv, BT, C, C);
        sx_nn_embedding_backward(dwte, dx, tok, 1.0f, B, T, C);
        sx_nn_adam_step(params, m, vv, grads, n_params, step, &adam);
        if (span) sx_nn_span_clamp(span_z, NH);
    }
    const char *name = task == 0 ? "reversal" : "previous token (span)";
    CHECK(st == SX_OK, "%s: training ran (%s)", name, sx_last_error());
    /* accuracy of the last batch (argmax of the logits on counted positions) */
    int right = 0, count = 0;
    for (size_t r = 0; r < BT; r++) {
        if (tgt[r] < 0) continue;
        int best = 0;
        for (int i = 1; i < V; i++) best = logits[r * V + i] > logits[r * V + best] ? i : best;
        right += best == tgt[r];
        count++;
    }
    size_t zeros = 0;
    for (int b = 0; b < B; b++)
        for (size_t i = 0; i < (size_t)T * T; i++) zeros += att[((size_t)b * NH + 1) * T * T + i] == 0.0f;
    printf("test_nn: 1-layer attention learns %s: loss %.3f -> %.3g in %d Adam steps, accuracy "
           "%d/%d, learned alpha %.3f, %.0f%% exact zeros in its map", name, (double)first,
           (double)loss, steps, right, count, (double)sx_nn_alpha_of(alpha_a[1]),
           100.0 * zeros / ((double)B * T * T));
    if (span) printf(", spans z L = %.2f, %.2f of %d", (double)(span_z[0] * T), (double)(span_z[1] * T), T);
    printf("\n");
    CHECK(loss < max_loss, "%s: loss %g after %d steps", name, (double)loss, steps);
    CHECK(right == count, "%s: accuracy %d/%d", name, right, count);
    if (span) CHECK(span_z[0] < 0.25f && span_z[1] < 0.25f, "spans shrink (z %g, %g)",
                    (double)span_z[0], (double)span_z[1]);
    free(params); free(grads); free(m); free(vv); free(pe); free(x); free(q); free(k); free(v);
    free(y); free(logits); free(probs); free(score); free(prob); free(att); free(dx); free(dq);
    free(dk); free(dv); free(dy); free(dlogits); free(scratch); free(tok); free(tgt);
}

static void test_train(void) {
    train_task(0, 6, 400, 0.05f);
    train_task(1, 12, 400, 0.05f);
}

int main(void) {
    test_matmul();
    test_layers();
    test_embedding();
    test_crossentropy();
    test_span();
    test_map_backward();
    test_attention();
    test_nw();
    test_adam();
    test_train();
    return sx_test_summary("test_nn");
}
