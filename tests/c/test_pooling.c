/* test_pooling.c - the public span mask and Nadaraya-Watson pooling (core/src/pooling.c):
   against float64 references (the mask formula; pooling with double scores and the reference
   mappings of ref.c / ref_structured.c), the gradient wrt w against central differences of the
   float64 reference, the edge cases (w = 0, huge w, negative w, leave-one-out masks, a query
   with no visible key, empty inputs), a training smoke test (gradient descent on w lowers the
   leave-one-out error for every mapping, from a too wide kernel), and every error path with
   its message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "nn.h"
#include "ref.h"
#include "ref_structured.h"
#include "simplexity.h"

/* ---------------------------------------------------------------- helpers */
static unsigned long long rng_state = 0x243F6A8885A308D3ull;
static double urand(void) { /* [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double nrand(void) { /* standard normal, Box-Muller */
    const double u = 1.0 - urand(), v = urand();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}
static int cmp_float(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static const int MAPS[5] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX, SX_MAP_FUSEDMAX };
static const float PARAMS[5] = { 0.0f, 0.0f, 0.0f, 1.3f, 0.05f };
static const char *NAMES[5] = { "softmax", "sparsemax", "entmax15", "entmax 1.3", "fusedmax 0.05" };

/* D2L's data: n sorted inputs in [0, 5), targets 2 sin x + x^0.8 + N(0, 0.5). */
static void d2l_data(float *x, float *y, int n) {
    for (int i = 0; i < n; i++) x[i] = (float)(5.0 * urand());
    qsort(x, (size_t)n, sizeof(float), cmp_float);
    for (int i = 0; i < n; i++) y[i] = (float)(2.0 * sin(x[i]) + pow(x[i], 0.8) + 0.5 * nrand());
}

static void expect_error(int st, int want, const char *msg, const char *what) {
    CHECK(st == want, "%s: status %d, expected %d", what, st, want);
    CHECK(strstr(sx_last_error(), msg) != NULL, "%s: message \"%s\" lacks \"%s\"", what, sx_last_error(), msg);
}

/* ---------------------------------------------------------------- span mask */
static void test_span_mask(void) {
    enum { N = 201 };
    float x[N], m[N];
    for (int i = 0; i < N; i++) x[i] = 0.125f * (float)i; /* 0 .. 25 */
    int bad = 0, monotone = 1;
    for (int zi = 0; zi <= 20; zi++)
        for (int ri = 1; ri <= 8; ri++) {
            const float z = 0.75f * (float)zi, R = 0.5f * (float)ri;
            CHECK(sx_span_mask(m, x, N, z, R, 0.0f) == SX_OK, "span mask z %g R %g", z, R);
            for (int i = 0; i < N; i++) {
                double r = (R + (double)z - x[i]) / R;
                r = r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
                bad += fabs(m[i] - r) > 1e-6 || !(m[i] >= 0.0f && m[i] <= 1.0f);
                if (i) monotone &= m[i] <= m[i - 1];
            }
            bad += m[0] != 1.0f; /* distance 0 is always fully visible */
        }
    CHECK(bad == 0, "span mask vs the float64 formula: %d mismatches", bad);
    CHECK(monotone, "the mask never increases with the distance");

    /* exactly the model's mask: z = fraction * L, span_max = L */
    int same = 1;
    for (int zi = 0; zi <= 10; zi++) {
        const float frac = (float)zi / 10.0f, L = 12.0f, R = 3.0f;
        CHECK(sx_span_mask(m, x, N, frac * L, R, L) == SX_OK, "model mask");
        for (int i = 0; i < N; i++) same &= m[i] == sx_nn_span_mask(x[i], frac, 12, R);
    }
    CHECK(same, "sx_span_mask(z = frac L) is the model's mask bit for bit");
    float m2[N];
    sx_span_mask(m, x, N, 12.0f, 3.0f, 12.0f);
    sx_span_mask(m2, x, N, 40.0f, 3.0f, 12.0f);
    CHECK(memcmp(m, m2, sizeof m) == 0, "span_max clamps z");
    CHECK(m[12 * 8] == 1.0f && m[15 * 8] == 0.0f && m[(27 * 8) / 2] == 0.5f, "span 12, ramp 3: 1 at 12, 1/2 at 13.5, 0 at 15");

    /* errors: the mask is untouched */
    float keep[3] = { 7, 7, 7 }, d[3] = { 0, 1, 2 };
    expect_error(sx_span_mask(keep, d, -1, 1, 1, 0), SX_EINVAL, "n must be >= 0 (got -1)", "n < 0");
    expect_error(sx_span_mask(NULL, d, 3, 1, 1, 0), SX_EINVAL, "null buffer (m)", "null m");
    expect_error(sx_span_mask(keep, d, 3, -1, 1, 0), SX_EINVAL, "z must be finite and >= 0 (got -1)", "z < 0");
    expect_error(sx_span_mask(keep, d, 3, NAN, 1, 0), SX_EINVAL, "z must be finite and >= 0 (got NaN)", "z NaN");
    expect_error(sx_span_mask(keep, d, 3, INFINITY, 1, 0), SX_EINVAL, "z must be finite and >= 0 (got Infinity)", "z inf");
    expect_error(sx_span_mask(keep, d, 3, 1, 0, 0), SX_EINVAL, "ramp must be finite and > 0 (got 0)", "ramp 0");
    expect_error(sx_span_mask(keep, d, 3, 1, INFINITY, 0), SX_EINVAL, "ramp must be finite and > 0 (got Infinity)", "ramp inf");
    expect_error(sx_span_mask(keep, d, 3, 1, 1, -2), SX_EINVAL, "span_max must be finite and >= 0 (got -2)", "span_max < 0");
    d[1] = NAN;
    expect_error(sx_span_mask(keep, d, 3, 1, 1, 0), SX_ENONFINITE, "distances[1] must be finite and >= 0 (got NaN)", "x NaN");
    CHECK(sx_last_error_index() == 1, "the NaN's index");
    d[1] = -0.5f;
    expect_error(sx_span_mask(keep, d, 3, 1, 1, 0), SX_EINVAL, "distances[1] must be finite and >= 0 (got -0.5)", "x < 0");
    d[1] = INFINITY;
    expect_error(sx_span_mask(keep, d, 3, 1, 1, 0), SX_ENONFINITE, "distances[1] must be finite and >= 0 (got Infinity)", "x inf");
    CHECK(keep[0] == 7 && keep[1] == 7 && keep[2] == 7, "a failed call leaves m untouched");
    CHECK(sx_span_mask(NULL, NULL, 0, 1, 1, 0) == SX_OK, "n = 0 with null buffers is fine");
}

/* -------------------------------------------------- float64 pooling reference */
/* weights (nq, nk) and out (nq) in double: scores -((xq - xk) w)^2 / 2, key i masked for
   query i when loo. */
static void ref_pool(double *out, double *att, const float *xq, const float *xk, const float *yk,
                     int nq, int nk, double w, int t, int loo) {
    double *s = malloc(sizeof(double) * (size_t)nk);
    for (int i = 0; i < nq; i++) {
        double *a = att + (size_t)i * nk;
        for (int j = 0; j < nk; j++) {
            const double d = ((double)xq[i] - xk[j]) * w;
            s[j] = loo && i == j ? -INFINITY : -0.5 * d * d;
        }
        switch (MAPS[t]) {
        case SX_MAP_SOFTMAX: ref_softmax(a, s, nk); break;
        case SX_MAP_SPARSEMAX: ref_sparsemax(a, s, nk); break;
        case SX_MAP_ENTMAX15: ref_entmax15(a, s, nk); break;
        case SX_MAP_ENTMAX: ref_entmax(a, s, nk, PARAMS[t]); break;
        default: rs_fusedmax(a, s, nk, PARAMS[t], 1.0); break;
        }
        double o = 0.0;
        for (int j = 0; j < nk; j++) o += a[j] * yk[j];
        out[i] = o;
    }
    free(s);
}

static double ref_loss(const float *xq, const float *xk, const float *yk, const float *dy, int nq,
                       int nk, double w, int t, int loo) {
    double *out = malloc(sizeof(double) * (size_t)nq), *att = malloc(sizeof(double) * (size_t)nq * nk);
    ref_pool(out, att, xq, xk, yk, nq, nk, w, t, loo);
    double l = 0.0;
    for (int i = 0; i < nq; i++) l += dy[i] * out[i];
    free(out);
    free(att);
    return l;
}

/* ------------------------------------------------------- pooling vs reference */
static void test_pooling_reference(void) {
    enum { NK = 40, NQ = 25 };
    float xk[NK], yk[NK], xq[NQ], out[NK], att[NK * NK], dy[NK];
    double rout[NK], ratt[NK * NK];
    d2l_data(xk, yk, NK);
    for (int i = 0; i < NQ; i++) xq[i] = 0.2f * (float)i;
    for (int i = 0; i < NK; i++) dy[i] = (float)nrand();
    double worst_fwd = 0.0, worst_grad = 0.0;
    int kinks = 0, grads = 0;
    const float ws[4] = { 0.4f, 1.0f, 2.5f, 6.0f };
    for (int t = 0; t < 5; t++)
        for (int wi = 0; wi < 4; wi++)
            for (int loo = 0; loo <= 1; loo++) {
                const float *q = loo ? xk : xq;
                const int nq = loo ? NK : NQ;
                const float w = ws[wi];
                int st = sx_nw_pooling(out, att, q, xk, yk, nq, NK, w, MAPS[t], PARAMS[t], loo);
                CHECK(st == SX_OK, "%s w %g loo %d: %s", NAMES[t], w, loo, sx_last_error());
                ref_pool(rout, ratt, q, xk, yk, nq, NK, w, t, loo);
                int simplex = 1, masked = 1;
                for (int i = 0; i < nq; i++) {
                    double s = 0.0;
                    for (int j = 0; j < NK; j++) {
                        const float a = att[i * NK + j];
                        simplex &= a >= 0.0f && a <= 1.0f;
                        s += a;
                        worst_fwd = fmax(worst_fwd, fabs(a - ratt[i * NK + j]));
                    }
                    simplex &= fabs(s - 1.0) < 1e-5;
                    if (loo) masked &= att[i * NK + i] == 0.0f;
                    worst_fwd = fmax(worst_fwd, fabs(out[i] - rout[i]) / 4.0); /* |y| <= ~4 */
                }
                CHECK(simplex, "%s w %g loo %d: weights on the simplex", NAMES[t], w, loo);
                CHECK(masked, "%s w %g: leave-one-out weights[i][i] are exactly 0", NAMES[t], w);
                /* without weights: the same out */
                float out2[NK];
                CHECK(sx_nw_pooling(out2, NULL, q, xk, yk, nq, NK, w, MAPS[t], PARAMS[t], loo) == SX_OK &&
                      memcmp(out, out2, sizeof(float) * nq) == 0, "%s: weights = NULL gives the same out", NAMES[t]);

                /* dw against central differences of the float64 reference */
                float dw = 123.0f;
                CHECK(sx_nw_pooling_backward(&dw, dy, q, xk, yk, nq, NK, w, MAPS[t], PARAMS[t], loo) == SX_OK,
                      "%s backward: %s", NAMES[t], sx_last_error());
                const double h = 1e-4 * w;
                const double l0 = ref_loss(q, xk, yk, dy, nq, NK, w, t, loo);
                const double lp = ref_loss(q, xk, yk, dy, nq, NK, w + h, t, loo);
                const double lm = ref_loss(q, xk, yk, dy, nq, NK, w - h, t, loo);
                const double fd = (lp - lm) / (2 * h), tol = 2e-3 + 2e-3 * fabs(fd);
                if (fabs((lp - l0) / h - (l0 - lm) / h) > tol) { kinks++; continue; } /* a support change within h */
                grads++;
                worst_grad = fmax(worst_grad, fabs(dw - fd) / (1.0 + fabs(fd)));
                CHECK(fabs(dw - fd) <= tol, "%s w %g loo %d: dw %.7g vs differences %.7g", NAMES[t], w, loo, (double)dw, fd);
            }
    CHECK(worst_fwd < 2e-5, "pooling vs float64 reference: worst %.3g", worst_fwd);
    CHECK(kinks <= 4 && grads >= 36, "gradient checks: %d compared, %d skipped at kinks", grads, kinks);
    printf("test_pooling: NW vs float64 reference, worst weight/out error %.2g; dw vs central differences "
           "(%d points, %d at kinks skipped), worst relative error %.2g\n", worst_fwd, grads, kinks, worst_grad);
}

/* ------------------------------------------------------------ edge cases */
static void test_pooling_edges(void) {
    enum { N = 9 };
    float xk[N], yk[N], out[N], att[N * N], dw;
    for (int i = 0; i < N; i++) { xk[i] = 0.5f * (float)i; yk[i] = (float)(i * i) - 3.0f; }
    double mean = 0.0;
    for (int i = 0; i < N; i++) mean += yk[i] / (double)N;
    const float xq[3] = { 0.9f, 2.0f, 3.74f }; /* nearest keys 2 (1.0), 4 (2.0), 7 (3.5) */
    for (int t = 0; t < 5; t++) {
        /* w = 0: uniform weights, the mean; dw = 0 */
        CHECK(sx_nw_pooling(out, att, xq, xk, yk, 3, N, 0.0f, MAPS[t], PARAMS[t], 0) == SX_OK, "w = 0");
        int uniform = 1;
        for (int k = 0; k < 3 * N; k++) uniform &= fabsf(att[k] - 1.0f / N) < 1e-6f;
        CHECK(uniform && fabs(out[1] - mean) < 1e-5, "%s: w = 0 gives uniform weights and the mean", NAMES[t]);
        const float g[3] = { 1, -2, 0.5f };
        CHECK(sx_nw_pooling_backward(&dw, g, xq, xk, yk, 3, N, 0.0f, MAPS[t], PARAMS[t], 0) == SX_OK && dw == 0.0f,
              "%s: dw = 0 at w = 0 (got %g)", NAMES[t], (double)dw);

        /* huge w: the nearest key, no NaN; the gradient finite */
        const float huge[3] = { 1e4f, 1e30f, 3.4e38f };
        for (int h = 0; h < 3; h++) {
            CHECK(sx_nw_pooling(out, att, xq, xk, yk, 3, N, huge[h], MAPS[t], PARAMS[t], 0) == SX_OK, "huge w");
            CHECK(out[0] == yk[2] && out[1] == yk[4] && out[2] == yk[7] && att[2] == 1.0f && att[N + 4] == 1.0f,
                  "%s w %g: the nearest key's value (got %g %g %g)", NAMES[t], (double)huge[h], (double)out[0],
                  (double)out[1], (double)out[2]);
            CHECK(sx_nw_pooling_backward(&dw, g, xq, xk, yk, 3, N, huge[h], MAPS[t], PARAMS[t], 0) == SX_OK && isfinite(dw),
                  "%s w %g: finite dw (got %g)", NAMES[t], (double)huge[h], (double)dw);
        }
        /* a tie at huge w: both nearest keys share the weight */
        const float mid = 0.75f;
        CHECK(sx_nw_pooling(out, att, &mid, xk, yk, 1, N, 1e30f, MAPS[t], PARAMS[t], 0) == SX_OK &&
              fabsf(att[1] - 0.5f) < 1e-6f && att[1] == att[2] && att[0] == 0.0f && att[3] == 0.0f,
              "%s: a tie at huge w splits evenly", NAMES[t]);

        /* w and -w are the same kernel; dw is odd in w */
        float out_m[3], dw_m;
        sx_nw_pooling(out, NULL, xq, xk, yk, 3, N, 1.7f, MAPS[t], PARAMS[t], 0);
        sx_nw_pooling(out_m, NULL, xq, xk, yk, 3, N, -1.7f, MAPS[t], PARAMS[t], 0);
        sx_nw_pooling_backward(&dw, g, xq, xk, yk, 3, N, 1.7f, MAPS[t], PARAMS[t], 0);
        sx_nw_pooling_backward(&dw_m, g, xq, xk, yk, 3, N, -1.7f, MAPS[t], PARAMS[t], 0);
        CHECK(memcmp(out, out_m, sizeof out_m) == 0 && dw == -dw_m, "%s: -w is w", NAMES[t]);

        /* leave-one-out masks key i for query i: the same as pooling over the other keys */
        CHECK(sx_nw_pooling(out, att, xk, xk, yk, N, N, 1.3f, MAPS[t], PARAMS[t], 1) == SX_OK, "loo");
        float xo[N - 1], yo[N - 1], o1;
        int same = 1;
        for (int i = 0; i < N; i++) {
            for (int j = 0, k = 0; j < N; j++) if (j != i) { xo[k] = xk[j]; yo[k] = yk[j]; k++; }
            sx_nw_pooling(&o1, NULL, &xk[i], xo, yo, 1, N - 1, 1.3f, MAPS[t], PARAMS[t], 0);
            same &= fabsf(o1 - out[i]) <= 1e-5f * (1.0f + fabsf(o1)) && att[i * N + i] == 0.0f;
        }
        CHECK(same, "%s: leave-one-out = pooling without the query's own key", NAMES[t]);
        /* one key, left out: nothing visible, zeros, no NaN */
        float o = 5.0f, a = 5.0f, one_x = 2.0f, one_y = 3.0f, one_g = 1.0f;
        CHECK(sx_nw_pooling(&o, &a, &one_x, &one_x, &one_y, 1, 1, 2.0f, MAPS[t], PARAMS[t], 1) == SX_OK &&
              o == 0.0f && a == 0.0f, "%s: a query with no visible key gets 0", NAMES[t]);
        CHECK(sx_nw_pooling_backward(&dw, &one_g, &one_x, &one_x, &one_y, 1, 1, 2.0f, MAPS[t], PARAMS[t], 1) == SX_OK &&
              dw == 0.0f, "%s: and dw 0", NAMES[t]);
        /* keys far apart at a large w: exact zeros beyond the kernel for the sparse mappings */
        CHECK(sx_nw_pooling(out, att, xq, xk, yk, 3, N, 3.0f, MAPS[t], PARAMS[t], 0) == SX_OK, "w 3");
        int zeros = 0;
        for (int k = 0; k < 3 * N; k++) zeros += att[k] == 0.0f;
        if (t == 0) CHECK(zeros < 3 * N / 2, "softmax: mostly non-zero (%d zeros)", zeros);
        else CHECK(zeros >= 3 * (N - 3), "%s: compact kernel, %d exact zeros", NAMES[t], zeros);
    }
    /* nq = 0: nothing to do */
    dw = 9.0f;
    CHECK(sx_nw_pooling(NULL, NULL, NULL, xk, yk, 0, N, 1.0f, SX_MAP_SOFTMAX, 0, 0) == SX_OK, "nq = 0");
    CHECK(sx_nw_pooling_backward(&dw, NULL, NULL, xk, yk, 0, N, 1.0f, SX_MAP_SOFTMAX, 0, 0) == SX_OK && dw == 0.0f, "nq = 0 backward");
}

/* ------------------------------------------------------------ errors */
static void test_pooling_errors(void) {
    float xk[4] = { 0, 1, 2, 3 }, yk[4] = { 1, 2, 3, 4 }, xq[2] = { 0.5f, 1.5f }, out[2] = { 7, 7 }, att[8], g[2] = { 1, 1 };
    float dw = 7.0f;
    const int S = SX_MAP_SOFTMAX;
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, -1, 4, 1, S, 0, 0), SX_EINVAL, "nq must be >= 0 (got -1)", "nq < 0");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 0, 1, S, 0, 0), SX_EINVAL, "nk must be >= 1 (got 0)", "nk 0");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 100000, 100000, 1, S, 0, 0), SX_EINVAL, "nq * nk too large (100000 * 100000)", "too large");
    expect_error(sx_nw_pooling(out, att, NULL, xk, yk, 2, 4, 1, S, 0, 0), SX_EINVAL, "null buffer (queries)", "null queries");
    expect_error(sx_nw_pooling(NULL, att, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_EINVAL, "null buffer (out)", "null out");
    expect_error(sx_nw_pooling(out, att, xq, xk, NULL, 2, 4, 1, S, 0, 0), SX_EINVAL, "null buffer (values)", "null values");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, NAN, S, 0, 0), SX_EINVAL, "w must be finite (got NaN)", "w NaN");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, -INFINITY, S, 0, 0), SX_EINVAL, "w must be finite (got -Infinity)", "w -inf");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, SX_MAP_ENTMAX_LEARNED, 1.5f, 0), SX_EINVAL, "unknown pooling mapping 4", "learned alpha");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, -1, 0, 0), SX_EINVAL, "unknown pooling mapping -1", "mapping -1");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, SX_MAP_ENTMAX, 0.5f, 0), SX_EINVAL, "alpha must be finite and >= 1 (got 0.5)", "alpha");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, SX_MAP_FUSEDMAX, -1, 0), SX_EINVAL, "lambda must be finite and >= 0 (got -1)", "lambda");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 2), SX_EINVAL, "leave_one_out must be 0 or 1 (got 2)", "loo 2");
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 1), SX_EINVAL, "leave_one_out needs nq == nk (got 2 and 4)", "loo shape");
    xq[1] = NAN;
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_ENONFINITE, "queries[1] must be finite (got NaN)", "queries NaN");
    CHECK(sx_last_error_index() == 1, "queries NaN index");
    xq[1] = 1.5f;
    xk[3] = INFINITY;
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_ENONFINITE, "keys[3] must be finite (got Infinity)", "keys inf");
    xk[3] = 3;
    yk[2] = -INFINITY;
    expect_error(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_ENONFINITE, "values[2] must be finite (got -Infinity)", "values -inf");
    CHECK(sx_last_error_index() == 2, "values index");
    yk[2] = 3;
    CHECK(out[0] == 7 && out[1] == 7, "failed calls leave out untouched");
    g[0] = NAN;
    expect_error(sx_nw_pooling_backward(&dw, g, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_ENONFINITE, "dy[0] must be finite (got NaN)", "dy NaN");
    g[0] = 1;
    expect_error(sx_nw_pooling_backward(NULL, g, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_EINVAL, "null buffer (dw)", "null dw");
    expect_error(sx_nw_pooling_backward(&dw, NULL, xq, xk, yk, 2, 4, 1, S, 0, 0), SX_EINVAL, "null buffer (dy)", "null dy");
    expect_error(sx_nw_pooling_backward(&dw, g, xq, xk, yk, 2, 4, 1, 9, 0, 0), SX_EINVAL, "unknown pooling mapping 9", "backward mapping");
    expect_error(sx_nw_pooling_backward(&dw, g, xq, xk, yk, 2, 4, 1, SX_MAP_ENTMAX_LEARNED, 1.5f, 0), SX_EINVAL, "unknown pooling mapping 4", "backward learned alpha");
    CHECK(dw == 7.0f, "failed backward calls leave dw untouched");
    CHECK(sx_nw_pooling(out, att, xq, xk, yk, 2, 4, 1, S, 0, 0) == SX_OK, "a later valid call works");
}

/* ------------------------------------------------- alpha-entmax kernels, alpha > 2 */
/* The kernel's backward works from the weights p: s = p^(2 - alpha) overflows float for large
   alpha (a fuzzer find: alpha = FLT_MAX gave Infinity * 0 = NaN in dw). From p it must equal
   the public sx_entmax_backward (from the scores), and dw must never be NaN. */
static void test_large_alpha(void) {
    enum { R = 3, N = 9 };
    const float alphas[5] = { 2.5f, 4.0f, 8.0f, 1e30f, 3.4e38f };
    float x[R * N], p[R * N], g[R * N], d1[R * N], d2[R * N];
    double worst = 0.0;
    for (int a = 0; a < 5; a++) {
        for (int i = 0; i < R * N; i++) { x[i] = (float)(2.0 * urand() - 1.0); g[i] = (float)nrand(); }
        x[3] = -INFINITY;
        CHECK(sx_nn_map_forward(p, x, R, N, SX_NN_ENTMAX, alphas[a]) == SX_OK, "forward alpha %g", (double)alphas[a]);
        CHECK(sx_nn_map_backward(d1, NULL, x, p, g, R, N, SX_NN_ENTMAX, alphas[a]) == SX_OK, "from p");
        CHECK(sx_entmax_backward(d2, x, g, R, N, alphas[a], 1.0f) == SX_OK, "public");
        int nan = 0;
        for (int i = 0; i < R * N; i++) {
            nan += d1[i] != d1[i];
            if (alphas[a] <= 8.0f) worst = fmax(worst, fabs(d1[i] - d2[i]) / (1.0 + fabs(d2[i])));
        }
        CHECK(!nan && d1[3] == 0.0f, "alpha %g: no NaN, masked entry 0", (double)alphas[a]);
        float xk[5] = { 0, 1, 2, 3, 4 }, yk[5] = { 1, -2, 3, 0.5f, 2 }, xq[2] = { 0.3f, 2.6f }, dy[2] = { 1, -1 }, dw = 0.0f;
        CHECK(sx_nw_pooling_backward(&dw, dy, xq, xk, yk, 2, 5, 1e-3f, SX_MAP_ENTMAX, alphas[a], 0) == SX_OK && dw == dw,
              "alpha %g: pooling dw is not NaN (got %g)", (double)alphas[a], (double)dw);
    }
    CHECK(worst < 1e-4, "alpha > 2: backward from p vs sx_entmax_backward, worst relative %.3g", worst);
}

/* ------------------------------------------------------------ training w */
/* D2L's experiment: gradient descent on w of the leave-one-out squared error over 50 noisy
   points, from w = 0.3 (a kernel much too wide for every mapping): every mapping lowers it,
   and the fit to the noiseless truth improves too. */
static void test_pooling_training(void) {
    enum { N = 50, NT = 50 };
    float x[N], y[N], out[N], dy[N], xt[NT], ft[NT];
    d2l_data(x, y, N);
    for (int i = 0; i < NT; i++) xt[i] = 0.1f * (float)i;
    for (int t = 0; t < 5; t++) {
        float w = 0.3f, dw;
        double first = 0.0, loss = 0.0, test0 = 0.0, test1 = 0.0;
        sx_nw_pooling(ft, NULL, xt, x, y, NT, N, w, MAPS[t], PARAMS[t], 0);
        for (int i = 0; i < NT; i++) { const double e = ft[i] - (2 * sin(xt[i]) + pow(xt[i], 0.8)); test0 += e * e / NT; }
        /* plain gradient descent on log w (so w stays > 0), 150 steps */
        for (int step = 0; step < 150; step++) {
            CHECK(sx_nw_pooling(out, NULL, x, x, y, N, N, w, MAPS[t], PARAMS[t], 1) == SX_OK, "train fwd");
            loss = 0.0;
            for (int i = 0; i < N; i++) { dy[i] = (out[i] - y[i]) / N; loss += 0.5 * (out[i] - y[i]) * (out[i] - y[i]) / N; }
            if (step == 0) first = loss;
            CHECK(sx_nw_pooling_backward(&dw, dy, x, x, y, N, N, w, MAPS[t], PARAMS[t], 1) == SX_OK, "train bwd");
            w = w * expf(-0.5f * w * dw);
        }
        sx_nw_pooling(ft, NULL, xt, x, y, NT, N, w, MAPS[t], PARAMS[t], 0);
        for (int i = 0; i < NT; i++) { const double e = ft[i] - (2 * sin(xt[i]) + pow(xt[i], 0.8)); test1 += e * e / NT; }
        CHECK(loss < 0.9 * first, "%s: training lowers the leave-one-out loss (%.4f -> %.4f)", NAMES[t], first, loss);
        CHECK(test1 < test0, "%s: and the test error (%.4f -> %.4f)", NAMES[t], test0, test1);
        printf("test_pooling: %-14s w 0.3 -> %.3f, leave-one-out loss %.4f -> %.4f, test MSE vs truth %.4f -> %.4f\n",
               NAMES[t], (double)w, first, loss, test0, test1);
    }
}

int main(void) {
    test_span_mask();
    test_pooling_reference();
    test_pooling_edges();
    test_pooling_errors();
    test_large_alpha();
    test_pooling_training();
    return sx_test_summary("test_pooling");
}
