/* test_rationale.c - rationales (core/src/rationale.c, rationale_task.c; issue 25 item 4): the
   task's gold rationale and label, gradient checks against central differences for sparsemax,
   1.5-entmax and HardKuma (fixed noise: the reparameterised sample is a function of the
   parameters), REINFORCE's estimator against the exact gradient of the expected loss (all 2^12
   selections of one example enumerated), a training run per method, and bad input. */
#include <stdlib.h>
#include <string.h>
#define SX_TEST_SEED 0x7261746e2025ull
#include "check.h"
#include "prng.h"
#include "rationale.h"

enum { T = SX_RATIONALE_LEN };

/* ------------------------------------------------------------------ the task */
static void test_task(void) {
    int x[50 * T], y[50], g[50 * T], x2[50 * T], y2[50], g2[50 * T];
    CHECK(sx_rationale_task(x, y, g, 50, 3, 0, 10) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < 50; i++) {
        int markers = 0, positive = 0, ok = 1;
        for (int t = 0; t < T; t++) {
            const int k = x[i * T + t];
            ok &= g[i * T + t] == (k < 6) && k >= 0 && k < SX_RATIONALE_VOCAB;
            markers += k < 6, positive += k < 3;
        }
        CHECK(ok && (markers == 1 || markers == 3 || markers == 5), "example %d: gold = the marker positions, %d", i, markers);
        CHECK(y[i] == (2 * positive > markers), "example %d: label %d is the majority of %d positive of %d", i, y[i], positive, markers);
    }
    /* example 10 + i alone equals row i; the held-out split is another stream */
    CHECK(sx_rationale_task(x2, y2, g2, 1, 3, 0, 14) == SX_OK, "one example");
    CHECK(!memcmp(x2, x + 4 * T, sizeof(int) * T) && y2[0] == y[4], "example 14 is row 4 of the run from 10");
    CHECK(sx_rationale_task(x2, NULL, NULL, 50, 3, 1, 10) == SX_OK, "held-out");
    CHECK(memcmp(x2, x, sizeof x) != 0, "the held-out split differs from the training split");
    CHECK(!strcmp(sx_rationale_word(0), "good") && !strcmp(sx_rationale_word(15), "very") &&
          sx_rationale_word(16) == NULL && sx_rationale_word(-1) == NULL, "words");
}

/* ------------------------------------------------------------------ gradient checks */
static float loss_at(sx_rationale *m, const int *x, const int *y, int B, const float *noise) {
    float l = NAN;
    sx__rationale_forward(m, &l, x, y, B, noise);
    return l;
}

/* <grad, v> against (L(p + e v) - L(p - e v)) / 2e for random directions v on one tensor at a
   time (every tensor checked on its own); returns the worst relative error. */
static double directional(sx_rationale *m, const int *x, const int *y, int B, const float *noise) {
    float l;
    CHECK(sx__rationale_grad(m, &l, x, y, B, noise, 0.0f) == SX_OK, "%s", sx_last_error());
    const size_t n = m->n_params;
    float *g = malloc(n * sizeof(float)), *p0 = malloc(n * sizeof(float)), *v = malloc(n * sizeof(float));
    memcpy(g, m->grads, n * sizeof(float));
    memcpy(p0, m->params, n * sizeof(float));
    double worst = 0.0;
    for (int k = 0; k < SX_RAT_P_COUNT; k++) {
        const size_t at = (size_t)(m->p[k] - m->params), len = (size_t)(m->p[k + 1 < SX_RAT_P_COUNT ? k + 1 : 0] - m->p[k]);
        const size_t size = k + 1 < SX_RAT_P_COUNT ? len : n - at;
        memset(v, 0, n * sizeof(float));
        double gv = 0.0;
        for (size_t i = at; i < at + size; i++) v[i] = (float)nrand(), gv += (double)g[i] * v[i];
        const float e = 1e-3f;
        for (size_t i = 0; i < n; i++) m->params[i] = p0[i] + e * v[i];
        const double lp = loss_at(m, x, y, B, noise);
        for (size_t i = 0; i < n; i++) m->params[i] = p0[i] - e * v[i];
        const double lm = loss_at(m, x, y, B, noise);
        memcpy(m->params, p0, n * sizeof(float));
        const double fd = (lp - lm) / (2.0 * e), err = fabs(fd - gv) / (fabs(gv) + 1e-2);
        CHECK(err < 2e-2, "method %d tensor %d: <grad, v> %.6g, central difference %.6g", m->method, k, gv, fd);
        worst = err > worst ? err : worst;
    }
    free(g), free(p0), free(v);
    return worst;
}

static void test_gradients(void) {
    enum { B = 6 };
    int x[B * T], y[B];
    sx_rationale_task(x, y, NULL, B, 9, 0, 0);
    float noise[B * T];
    for (int i = 0; i < B * T; i++) noise[i] = 0.02f + 0.96f * (float)urand();
    for (int method = 0; method < SX_RATIONALE_REINFORCE; method++) {
        sx_rationale *m;
        CHECK(sx_rationale_create(&m, method, 5, B, 0.7f) == SX_OK, "%s", sx_last_error());
        /* a trained point too: a few steps move the scores off their initial spread */
        const double w0 = directional(m, x, y, B, method == SX_RATIONALE_HARDKUMA ? noise : NULL);
        if (method == SX_RATIONALE_HARDKUMA) { /* some gates exactly 0 or 1, some between */
            int zero = 0, one = 0, mid = 0;
            for (int i = 0; i < B * T; i++) zero += m->w[i] == 0.0f, one += m->w[i] == 1.0f, mid += m->w[i] > 0 && m->w[i] < 1;
            CHECK(zero > 0 && one > 0 && mid > 0, "HardKuma gates at init: %d at 0, %d at 1, %d between", zero, one, mid);
        }
        for (int s = 0; s < 20; s++) sx_rationale_train_step(m, NULL, x, y, B, 0.02f);
        const double w1 = directional(m, x, y, B, method == SX_RATIONALE_HARDKUMA ? noise : NULL);
        printf("method %d: worst relative error of <grad, v> %.2e at init, %.2e after 20 steps\n", method, w0, w1);
        sx_rationale_free(m);
    }
}

/* REINFORCE: for one example, E[L] = sum over the 2^12 selections g of p(g) L(g); its gradient
   by central differences equals sum_g p(g) (the estimator's gradient at g) for any baseline. The
   selection g is forced by the noise: u = 0 selects (0 < sigmoid), u = 1 does not. */
static double expected(sx_rationale *m, const int *x, const int *y, float baseline, double *grad) {
    float u[T];
    for (int t = 0; t < T; t++) u[t] = 0.5f;
    sx__rationale_forward(m, NULL, x, y, 1, u);
    double pi[T], e = 0.0;
    for (int t = 0; t < T; t++) pi[t] = m->aux[t];
    if (grad) memset(grad, 0, m->n_params * sizeof(double));
    for (int g = 0; g < 1 << T; g++) {
        double p = 1.0;
        for (int t = 0; t < T; t++) u[t] = (g >> t & 1) ? 0.0f : 1.0f, p *= (g >> t & 1) ? pi[t] : 1.0 - pi[t];
        float l;
        if (grad) {
            sx__rationale_grad(m, &l, x, y, 1, u, baseline);
            for (size_t i = 0; i < m->n_params; i++) grad[i] += p * m->grads[i];
        } else {
            sx__rationale_forward(m, &l, x, y, 1, u);
        }
        e += p * l;
    }
    return e;
}

static void test_reinforce_unbiased(void) {
    int x[T], y[1];
    sx_rationale_task(x, y, NULL, 1, 4, 0, 2);
    sx_rationale *m;
    CHECK(sx_rationale_create(&m, SX_RATIONALE_REINFORCE, 8, 1, 0.5f) == SX_OK, "%s", sx_last_error());
    const size_t n = m->n_params;
    double *grad = malloc(n * sizeof(double));
    float *p0 = malloc(n * sizeof(float));
    memcpy(p0, m->params, n * sizeof(float));
    expected(m, x, y, 0.37f, grad);
    /* generator: s0's weights and bias, the first token's generator embedding; predictor: Wp */
    const size_t at[6] = {(size_t)(m->p[SX_RAT_WO] - m->params), (size_t)(m->p[SX_RAT_WO] - m->params) + 6,
                          (size_t)(m->p[SX_RAT_BO] - m->params), (size_t)(m->p[SX_RAT_EG] - m->params) + (size_t)x[0] * SX_RAT_D + 3,
                          (size_t)(m->p[SX_RAT_WC] - m->params) + 5, (size_t)(m->p[SX_RAT_WP] - m->params) + 1};
    for (int k = 0; k < 6; k++) {
        const size_t i = at[k];
        const float e = 2e-3f;
        m->params[i] = p0[i] + e;
        const double lp = expected(m, x, y, 0, NULL);
        m->params[i] = p0[i] - e;
        const double lm = expected(m, x, y, 0, NULL);
        m->params[i] = p0[i];
        const double fd = (lp - lm) / (2.0 * e);
        CHECK_NEAR(grad[i], fd, 1e-4 + 1e-3 * fabs(fd), "REINFORCE mean gradient of parameter %zu", i);
        printf("REINFORCE: parameter %zu, mean estimate %.6f, d E[L] by central differences %.6f\n", i, grad[i], fd);
    }
    free(grad), free(p0);
    sx_rationale_free(m);
}

/* extreme noise and scores: finite losses and gradients */
static void test_extremes(void) {
    enum { B = 2 };
    int x[B * T], y[B];
    sx_rationale_task(x, y, NULL, B, 1, 0, 0);
    float noise[B * T];
    for (int i = 0; i < B * T; i++) noise[i] = i % 2 ? 0x1p-25f : 1.0f - 0x1p-24f;
    for (int method = 0; method < SX_RATIONALE_METHODS; method++) {
        sx_rationale *m;
        sx_rationale_create(&m, method, 2, B, 1.0f);
        for (int scale = 0; scale < 2; scale++) {
            for (size_t i = 0; i < m->n_params; i++) m->params[i] *= scale ? 1e4f : 1.0f;
            float l;
            const int st = sx__rationale_grad(m, &l, x, y, B, method < 2 ? NULL : noise, 0.0f);
            int finite = st == SX_OK && isfinite(l);
            for (size_t i = 0; i < m->n_params; i++) finite &= isfinite(m->grads[i]);
            CHECK(finite, "method %d, parameters x%g: finite loss and gradient (%s)", method, scale ? 1e4 : 1.0,
                  st == SX_OK ? "ok" : sx_last_error());
        }
        sx_rationale_free(m);
    }
}

/* ------------------------------------------------------------------ training */
static void test_training(void) {
    enum { B = 32, TEST = 400 };
    static int x[B * T], y[B], xt[TEST * T], yt[TEST], gt[TEST * T];
    sx_rationale_task(xt, yt, gt, TEST, 1, 1, 0);
    const char *names[] = {"sparsemax", "entmax15", "hardkuma", "reinforce"};
    for (int method = 0; method < SX_RATIONALE_METHODS; method++) {
        sx_rationale *m;
        sx_rationale_create(&m, method, 1, B, 0.05f);
        float loss = 0, fig[4], w[B * T];
        for (int s = 0; s < 600; s++) {
            sx_rationale_task(x, y, NULL, B, 1, 0, s * B);
            CHECK(sx_rationale_train_step(m, &loss, x, y, B, 0.01f) == SX_OK, "%s", sx_last_error());
        }
        CHECK(sx_rationale_steps(m) == 600, "600 steps");
        CHECK(sx_rationale_evaluate(m, fig, xt, yt, gt, TEST) == SX_OK, "%s", sx_last_error());
        printf("%-9s 600 steps: loss %.4f, held-out accuracy %.3f, precision %.3f, recall %.3f, fraction %.3f\n",
               names[method], loss, fig[0], fig[1], fig[2], fig[3]);
        CHECK(fig[0] > 0.97f, "%s: held-out accuracy %.3f", names[method], fig[0]);
        if (method >= SX_RATIONALE_HARDKUMA) /* the penalised gates find the markers */
            CHECK(fig[1] > 0.95f && fig[2] > 0.95f, "%s: precision %.3f recall %.3f", names[method], fig[1], fig[2]);
        CHECK(sx_rationale_predict(m, w, NULL, xt, B) == SX_OK, "predict");
        for (int b = 0; b < B; b++) {
            double sum = 0;
            int ok = 1;
            for (int t = 0; t < T; t++) sum += w[b * T + t], ok &= w[b * T + t] >= 0 && w[b * T + t] <= 1;
            if (method < SX_RATIONALE_HARDKUMA) ok &= fabs(sum - 1.0) < 1e-5;
            if (method == SX_RATIONALE_REINFORCE)
                for (int t = 0; t < T; t++) ok &= w[b * T + t] == 0 || w[b * T + t] == 1;
            CHECK(ok, "%s row %d: weights in [0, 1] (simplex: sum 1, %.7f; REINFORCE: 0 or 1)", names[method], b, sum);
        }
        sx_rationale_free(m);
    }
}

/* ------------------------------------------------------------------ bad input */
static void test_bad_input(void) {
    sx_rationale *m = (sx_rationale *)1;
    CHECK(sx_rationale_create(NULL, 0, 1, 4, 0) == SX_EINVAL, "NULL out");
    CHECK(sx_rationale_create(&m, 4, 1, 4, 0) == SX_EINVAL && m == NULL, "method 4: %s", sx_last_error());
    CHECK(strstr(sx_last_error(), "method must be in [0, 3] (got 4)"), "%s", sx_last_error());
    CHECK(sx_rationale_create(&m, 0, 1, 0, 0) == SX_EINVAL, "max_batch 0");
    CHECK(sx_rationale_create(&m, 2, 1, 4, NAN) == SX_EINVAL && strstr(sx_last_error(), "sparsity"), "NaN sparsity");
    CHECK(sx_rationale_create(&m, 2, 1, 4, -1) == SX_EINVAL, "negative sparsity");
    CHECK(sx_rationale_create(&m, 2, 1, 4, 0.1f) == SX_OK, "%s", sx_last_error());
    int x[5 * T], y[5];
    float w[5 * T], fig[4];
    sx_rationale_task(x, y, NULL, 5, 1, 0, 0);
    CHECK(sx_rationale_train_step(m, NULL, x, y, 5, 0.01f) == SX_EINVAL, "count 5 > max_batch 4: %s", sx_last_error());
    CHECK(sx_rationale_train_step(m, NULL, x, y, 0, 0.01f) == SX_EINVAL, "count 0");
    CHECK(sx_rationale_train_step(m, NULL, x, y, 4, NAN) == SX_EINVAL && strstr(sx_last_error(), "lr"), "NaN lr");
    CHECK(sx_rationale_train_step(m, NULL, x, NULL, 4, 0.01f) == SX_EINVAL, "NULL labels");
    CHECK(sx_rationale_train_step(NULL, NULL, x, y, 4, 0.01f) == SX_EINVAL, "NULL model");
    y[2] = 2;
    CHECK(sx_rationale_train_step(m, NULL, x, y, 4, 0.01f) == SX_EINVAL && strstr(sx_last_error(), "labels[2] must be 0 or 1 (got 2)"),
          "%s", sx_last_error());
    y[2] = 0, x[T + 3] = 16;
    CHECK(sx_rationale_train_step(m, NULL, x, y, 4, 0.01f) == SX_EINVAL, "token 16: %s", sx_last_error());
    CHECK(sx_rationale_predict(m, w, NULL, x, 4) == SX_EINVAL, "predict, token 16");
    CHECK(sx_rationale_predict(m, w, NULL, NULL, 4) == SX_EINVAL, "predict, NULL tokens");
    x[T + 3] = 7;
    CHECK(sx_rationale_evaluate(m, fig, x, y, NULL, 4) == SX_EINVAL, "evaluate, NULL gold");
    CHECK(sx_rationale_evaluate(m, NULL, x, y, x, 4) == SX_EINVAL, "evaluate, NULL out");
    CHECK(sx_rationale_evaluate(m, fig, x, y, x, 0) == SX_EINVAL, "evaluate, count 0");
    CHECK(sx_rationale_steps(m) == 0, "no step taken by failed calls");
    CHECK(sx_rationale_task(x, y, NULL, 1, 1, 2, 0) == SX_EINVAL && strstr(sx_last_error(), "split"), "split 2");
    CHECK(sx_rationale_task(x, y, NULL, 1, 1, 0, -1) == SX_EINVAL, "first -1");
    CHECK(sx_rationale_task(NULL, y, NULL, 1, 1, 0, 0) == SX_EINVAL, "NULL tokens");
    CHECK(sx_rationale_task(NULL, NULL, NULL, 0, 1, 0, 0) == SX_OK, "count 0 takes NULL");
    sx_rationale_free(m);
    sx_rationale_free(NULL);
    CHECK(sx_rationale_num_params(NULL) == 0 && sx_rationale_steps(NULL) == 0, "NULL queries");
}

int main(void) {
    test_task();
    test_gradients();
    test_reinforce_unbiased();
    test_extremes();
    test_training();
    test_bad_input();
    return sx_test_summary("test_rationale");
}
