/* test_scoring.c - the attention scoring functions (dot, scaled, bilinear, additive) against a
   float64 reference, their backward passes against central differences of that reference for
   q, k and every parameter, the masked mapping (valid lengths) against the mapping of the
   truncated rows for every mapping, and the bad inputs with their messages. */
#define SX_TEST_SEED 0x5C0E5ull
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "prng.h"
#include "simplexity.h"

static const char *KIND[] = { "dot", "scaled", "bilinear", "additive" };

static int nparams(int kind, int dq, int dk, int h) {
    return kind == SX_SCORE_BILINEAR ? dq * dk : kind == SX_SCORE_ADDITIVE ? h * (dq + dk + 1) : 0;
}

/* ------------------------------------------------------- float64 reference */
static double ref_score(const double *q, const double *k, const double *p, int dq, int dk, int h,
                        int kind) {
    double s = 0.0;
    if (kind <= SX_SCORE_SCALED) {
        for (int m = 0; m < dq; m++) s += q[m] * k[m];
        return kind == SX_SCORE_SCALED ? s / sqrt((double)dq) : s;
    }
    if (kind == SX_SCORE_BILINEAR) {
        for (int m = 0; m < dq; m++)
            for (int n = 0; n < dk; n++) s += q[m] * p[m * dk + n] * k[n];
        return s;
    }
    const double *Wq = p, *Wk = p + h * dq, *wv = Wk + h * dk;
    for (int l = 0; l < h; l++) {
        double a = 0.0;
        for (int m = 0; m < dq; m++) a += Wq[l * dq + m] * q[m];
        for (int n = 0; n < dk; n++) a += Wk[l * dk + n] * k[n];
        s += wv[l] * tanh(a);
    }
    return s;
}

/* L = <G, scores> in double */
static double ref_loss(const double *G, const double *q, const double *k, const double *p, int nq,
                       int nk, int dq, int dk, int h, int kind) {
    double L = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) L += G[i * nk + j] * ref_score(q + i * dq, k + j * dk, p, dq, dk, h, kind);
    return L;
}

static void to_f(float *f, const double *d, int n) { for (int i = 0; i < n; i++) f[i] = (float)d[i]; }
static void to_d(double *d, const float *f, int n) { for (int i = 0; i < n; i++) d[i] = f[i]; }

/* --------------------------------------------------------- forward, backward */
static double worst_fwd = 0.0, worst_grad = 0.0, worst_masked = 0.0;

static void test_kind(int kind, int nq, int nk, int dq, int dk, int h, double scale) {
    const int np = nparams(kind, dq, dk, h);
    float *q = malloc(sizeof(float) * nq * dq), *k = malloc(sizeof(float) * nk * dk);
    float *p = malloc(sizeof(float) * (np + 1)), *S = malloc(sizeof(float) * nq * nk);
    float *G = malloc(sizeof(float) * nq * nk), *gq = malloc(sizeof(float) * nq * dq);
    float *gk = malloc(sizeof(float) * nk * dk), *gp = malloc(sizeof(float) * (np + 1));
    double *qd = malloc(sizeof(double) * nq * dq), *kd = malloc(sizeof(double) * nk * dk);
    double *pd = malloc(sizeof(double) * (np + 1)), *Gd = malloc(sizeof(double) * nq * nk);
    for (int i = 0; i < nq * dq; i++) q[i] = (float)(scale * nrand());
    for (int i = 0; i < nk * dk; i++) k[i] = (float)(scale * nrand());
    for (int i = 0; i < np; i++) p[i] = (float)(0.7 * nrand());
    for (int i = 0; i < nq * nk; i++) G[i] = (float)nrand();
    to_d(qd, q, nq * dq); to_d(kd, k, nk * dk); to_d(pd, p, np); to_d(Gd, G, nq * nk);

    int st = sx_attention_scores(S, q, k, np ? p : NULL, nq, nk, dq, dk, h, kind);
    CHECK(st == SX_OK, "%s forward: %s", KIND[kind], sx_last_error());
    double err = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) {
            const double r = ref_score(qd + i * dq, kd + j * dk, pd, dq, dk, h, kind);
            const double e = fabs(S[i * nk + j] - r) / (1.0 + fabs(r));
            if (e > err) err = e;
        }
    CHECK(err < 1e-6, "%s forward vs float64: relative error %g", KIND[kind], err);
    if (err > worst_fwd) worst_fwd = err;

    st = sx_attention_scores_backward(gq, gk, np ? gp : NULL, G, q, k, np ? p : NULL, nq, nk, dq,
                                      dk, h, kind);
    CHECK(st == SX_OK, "%s backward: %s", KIND[kind], sx_last_error());
    /* central differences of the double reference, every coordinate of q, k and the params */
    const double eps = 1e-5;
    double gerr = 0.0;
    double *arrs[3] = { qd, kd, pd };
    float *grads[3] = { gq, gk, gp };
    const int lens[3] = { nq * dq, nk * dk, np };
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < lens[a]; i++) {
            const double keep = arrs[a][i];
            arrs[a][i] = keep + eps;
            const double Lp = ref_loss(Gd, qd, kd, pd, nq, nk, dq, dk, h, kind);
            arrs[a][i] = keep - eps;
            const double Lm = ref_loss(Gd, qd, kd, pd, nq, nk, dq, dk, h, kind);
            arrs[a][i] = keep;
            const double fd = (Lp - Lm) / (2 * eps);
            const double e = fabs(grads[a][i] - fd) / (1.0 + fabs(fd));
            if (e > gerr) gerr = e;
        }
    CHECK(gerr < 1e-5, "%s backward vs central differences: relative error %g", KIND[kind], gerr);
    if (gerr > worst_grad) worst_grad = gerr;

    /* NULL gradients are skipped, the others are unchanged */
    float *gq2 = malloc(sizeof(float) * nq * dq);
    st = sx_attention_scores_backward(gq2, NULL, NULL, G, q, k, np ? p : NULL, nq, nk, dq, dk, h, kind);
    CHECK(st == SX_OK && memcmp(gq, gq2, sizeof(float) * nq * dq) == 0, "%s: dq alone", KIND[kind]);
    free(gq2);
    free(q); free(k); free(p); free(S); free(G); free(gq); free(gk); free(gp);
    free(qd); free(kd); free(pd); free(Gd);
}

/* The scaled score has variance ~1 for unit-variance q, k of any d; the dot product ~d. */
static void test_scale_variance(void) {
    const int d = 64, n = 400;
    float *q = malloc(sizeof(float) * n * d), *k = malloc(sizeof(float) * n * d), s[400];
    for (int i = 0; i < n * d; i++) { q[i] = (float)nrand(); k[i] = (float)nrand(); }
    double v[2];
    for (int kind = 0; kind < 2; kind++) {
        double acc = 0.0;
        for (int i = 0; i < n; i++) {
            sx_attention_scores(s, q + i * d, k + i * d, NULL, 1, 1, d, d, 0, kind);
            acc += (double)s[0] * s[0];
        }
        v[kind] = acc / n;
    }
    CHECK(v[0] > 40.0 && v[0] < 90.0, "dot score variance %g, expected about d = %d", v[0], d);
    CHECK(v[1] > 0.6 && v[1] < 1.4, "scaled score variance %g, expected about 1", v[1]);
    free(q); free(k);
}

/* -------------------------------------------------------------- masked mapping */
static const int MAPS[] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX,
                            SX_MAP_FUSEDMAX, SX_MAP_OSCARMAX, SX_MAP_SIGMOID };
static const char *MAP_NAME[] = { "softmax", "sparsemax", "entmax15", "entmax", "fusedmax",
                                  "oscarmax", "sigmoid" };
static const float MAP_PARAM[] = { 0.0f, 0.0f, 0.0f, 1.3f, 0.5f, 0.3f, 0.0f };

static int map_one(float *out, const float *x, int n, int m, float param, float t) {
    const int v[1] = { n };
    return sx_masked_mapping(out, x, v, 1, n, m, param, t);
}

static void test_masked(void) {
    enum { R = 5, N = 6 };
    const int valid[R] = { 6, 3, 0, 1, 4 };
    float x[R * N], dy[R * N], out[R * N], dx[R * N], ref[N], refd[N];
    for (int i = 0; i < R * N; i++) { x[i] = (float)(2.0 * nrand()); dy[i] = (float)nrand(); }
    x[4 * N + 1] = -INFINITY; /* a masked entry inside a valid prefix stays allowed */
    for (int mi = 0; mi < 7; mi++) {
        const int m = MAPS[mi];
        const float param = MAP_PARAM[mi], t = 0.8f;
        int st = sx_masked_mapping(out, x, valid, R, N, m, param, t);
        CHECK(st == SX_OK, "%s masked: %s", MAP_NAME[mi], sx_last_error());
        st = sx_masked_mapping_backward(dx, x, dy, valid, R, N, m, param, t);
        CHECK(st == SX_OK, "%s masked backward: %s", MAP_NAME[mi], sx_last_error());
        for (int r = 0; r < R; r++) {
            const int v = valid[r];
            int zeros = 1;
            for (int j = v; j < N; j++)
                zeros &= out[r * N + j] == 0.0f && !signbit(out[r * N + j]) &&
                         dx[r * N + j] == 0.0f && !signbit(dx[r * N + j]);
            CHECK(zeros, "%s row %d: exact zeros beyond valid length %d", MAP_NAME[mi], r, v);
            if (v == 0) continue;
            map_one(ref, x + r * N, v, m, param, t);
            const int vv[1] = { v };
            sx_masked_mapping_backward(refd, x + r * N, dy + r * N, vv, 1, v, m, param, t);
            /* the prefix is the mapping of the prefix alone (up to the order of float sums:
               a row of 6 with -Infinity tails is summed in SIMD lanes, a row of 3 is not) */
            double e = 0.0, ed = 0.0;
            for (int j = 0; j < v; j++) {
                e = fmax(e, fabs((double)ref[j] - out[r * N + j]));
                ed = fmax(ed, fabs((double)refd[j] - dx[r * N + j]));
            }
            CHECK(e < 1e-6, "%s row %d: prefix = mapping of the prefix (error %g)", MAP_NAME[mi], r, e);
            CHECK(ed < 1e-5, "%s row %d: backward prefix (error %g)", MAP_NAME[mi], r, ed);
            if (ed > worst_masked) worst_masked = ed;
            if (e > worst_masked) worst_masked = e;
            if (m != SX_MAP_SIGMOID) {
                double sum = 0.0;
                for (int j = 0; j < N; j++) sum += out[r * N + j];
                CHECK_NEAR(sum, 1.0, 1e-5, "%s row %d sums to 1", MAP_NAME[mi], r);
            }
        }
        /* valid_len NULL is the plain mapping; full lengths too */
        float plain[R * N], full[R * N];
        const int all[R] = { N, N, N, N, N };
        sx_masked_mapping(plain, x, NULL, R, N, m, param, t);
        sx_masked_mapping(full, x, all, R, N, m, param, t);
        CHECK(memcmp(plain, full, sizeof plain) == 0, "%s: NULL valid_len = full lengths", MAP_NAME[mi]);
    }
    /* softmax against D2L's masked_softmax in double on one row */
    const int v1[1] = { 3 };
    const float row[4] = { 0.5f, -1.0f, 2.0f, 9.0f };
    float p[4];
    sx_masked_mapping(p, row, v1, 1, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f);
    const double z = exp(0.5) + exp(-1.0) + exp(2.0);
    CHECK_NEAR(p[0], exp(0.5) / z, 1e-7, "masked softmax p0");
    CHECK_NEAR(p[2], exp(2.0) / z, 1e-7, "masked softmax p2");
    CHECK(p[3] == 0.0f, "masked softmax p3 exactly 0");

    /* backward against central differences on the valid prefix (softmax, entmax 1.3) */
    for (int mi = 0; mi < 4; mi += 3) {
        const int m = MAPS[mi];
        float xr[N], gr[N], dxr[N], pp[N], pm[N];
        const int vv[1] = { 4 };
        for (int j = 0; j < N; j++) { xr[j] = (float)nrand(); gr[j] = (float)nrand(); }
        sx_masked_mapping_backward(dxr, xr, gr, vv, 1, N, m, MAP_PARAM[mi], 1.0f);
        double err = 0.0;
        for (int j = 0; j < N; j++) {
            const float keep = xr[j], e = 1e-2f;
            xr[j] = keep + e; sx_masked_mapping(pp, xr, vv, 1, N, m, MAP_PARAM[mi], 1.0f);
            xr[j] = keep - e; sx_masked_mapping(pm, xr, vv, 1, N, m, MAP_PARAM[mi], 1.0f);
            xr[j] = keep;
            double fd = 0.0;
            for (int i = 0; i < N; i++) fd += gr[i] * ((double)pp[i] - pm[i]) / (2.0 * e);
            if (fabs(fd - dxr[j]) > err) err = fabs(fd - dxr[j]);
        }
        CHECK(err < 2e-3, "%s masked backward vs central differences: %g", MAP_NAME[mi], err);
    }
}

/* ------------------------------------------------------------------- errors */
static void expect(int st, int want, const char *msg, const char *what) {
    CHECK(st == want, "%s: status %d, want %d (%s)", what, st, want, sx_last_error());
    CHECK(strstr(sx_last_error(), msg) != NULL, "%s: message \"%s\" lacks \"%s\"", what, sx_last_error(), msg);
}

static void test_errors(void) {
    float q[6] = { 1, 2, 3, 4, 5, 6 }, k[6] = { 1, 0, 0, 1, 1, 1 }, s[9], W[6] = { 0 };
    float g[9] = { 0 }, dq[6], dk[6];
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 3, 2, 0, SX_SCORE_DOT), SX_EINVAL,
           "sx_attention_scores: dot scores need q_dim == k_dim (got 3 and 2)", "dot dims");
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 3, 3, 0, 4), SX_EINVAL,
           "sx_attention_scores: unknown scoring kind 4", "bad kind");
    expect(sx_attention_scores(s, q, k, W, 2, 2, 3, 3, 0, SX_SCORE_ADDITIVE), SX_EINVAL,
           "sx_attention_scores: hidden must be >= 1 for additive scores (got 0)", "hidden 0");
    expect(sx_attention_scores(s, q, k, NULL, -1, 2, 3, 3, 0, SX_SCORE_DOT), SX_EINVAL,
           "sx_attention_scores: nq and nk must be >= 0 (got -1, 2)", "nq < 0");
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 0, 3, 0, SX_SCORE_DOT), SX_EINVAL,
           "q_dim and k_dim must be >= 1 (got 0, 3)", "q_dim 0");
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 3, 3, 0, SX_SCORE_BILINEAR), SX_EINVAL,
           "sx_attention_scores: null buffer (params)", "bilinear without W");
    q[4] = NAN;
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 3, 3, 0, SX_SCORE_SCALED), SX_ENONFINITE,
           "sx_attention_scores: q[4] must be finite (got NaN)", "q NaN");
    CHECK(sx_last_error_index() == 4, "q NaN index");
    q[4] = 5;
    k[2] = -INFINITY;
    expect(sx_attention_scores(s, q, k, NULL, 2, 2, 3, 3, 0, SX_SCORE_DOT), SX_ENONFINITE,
           "k[2] must be finite", "k -inf");
    k[2] = 0;
    W[5] = INFINITY;
    expect(sx_attention_scores(s, q, k, W, 2, 2, 3, 2, 0, SX_SCORE_BILINEAR), SX_ENONFINITE,
           "W[5] must be finite", "W inf");
    W[5] = 0;
    float A[1 * (3 + 3 + 1)] = { 1, 1, 1, 1, 1, 1, NAN };
    expect(sx_attention_scores(s, q, k, A, 2, 2, 3, 3, 1, SX_SCORE_ADDITIVE), SX_ENONFINITE,
           "wv[0] must be finite", "wv NaN");
    const float big[3] = { 3e38f, 3e38f, 0 };
    expect(sx_attention_scores(s, big, big, NULL, 1, 1, 3, 3, 0, SX_SCORE_DOT), SX_ENONFINITE,
           "sx_attention_scores: score[0][0] overflows float", "overflow");
    g[1] = NAN;
    expect(sx_attention_scores_backward(dq, dk, NULL, g, q, k, NULL, 2, 2, 3, 3, 0, SX_SCORE_DOT),
           SX_ENONFINITE, "sx_attention_scores_backward: dscores[1] must be finite (got NaN)", "dscores NaN");
    /* empty sizes are fine and write nothing */
    CHECK(sx_attention_scores(NULL, NULL, k, NULL, 0, 2, 3, 3, 0, SX_SCORE_DOT) == SX_OK, "nq 0");

    float x[4] = { 1, 2, 3, 4 }, out[4];
    int bad[2] = { 1, 3 };
    expect(sx_masked_mapping(out, x, bad, 2, 2, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL,
           "sx_masked_mapping: valid_len[1] must be in [0, n = 2] (got 3)", "valid too long");
    bad[1] = -1;
    expect(sx_masked_mapping(out, x, bad, 2, 2, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL,
           "valid_len[1] must be in [0, n = 2] (got -1)", "valid negative");
    expect(sx_masked_mapping(out, x, NULL, 2, 2, SX_MAP_ENTMAX_LEARNED, 0, 1), SX_EINVAL,
           "sx_masked_mapping: unknown mapping 4", "learned");
    expect(sx_masked_mapping(out, x, NULL, 2, 2, SX_MAP_ENTMAX, 0.5f, 1), SX_EINVAL,
           "sx_masked_mapping: alpha must be finite and >= 1 (got 0.5)", "alpha");
    expect(sx_masked_mapping(out, x, NULL, 2, 2, SX_MAP_OSCARMAX, -1.0f, 1), SX_EINVAL,
           "beta must be finite and >= 0 (got -1)", "beta");
    expect(sx_masked_mapping(out, x, NULL, 2, 2, SX_MAP_SOFTMAX, 0, 0), SX_EINVAL,
           "sx_masked_mapping: temperature must be finite and > 0 (got 0)", "temperature");
    expect(sx_masked_mapping(out, x, NULL, 2, 0, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL,
           "sx_masked_mapping: n must be >= 1 (got 0)", "n 0");
    x[3] = NAN; /* beyond the valid length, still an error: never silent */
    int v2[2] = { 2, 1 };
    expect(sx_masked_mapping(out, x, v2, 2, 2, SX_MAP_SPARSEMAX, 0, 1), SX_ENONFINITE,
           "sx_masked_mapping: x[3] must be finite or -Infinity (got NaN)", "x NaN");
    CHECK(sx_last_error_index() == 3, "x NaN index");
    x[3] = 4;
    float dy[4] = { 0, INFINITY, 0, 0 }, dx[4];
    expect(sx_masked_mapping_backward(dx, x, dy, v2, 2, 2, SX_MAP_SOFTMAX, 0, 1), SX_ENONFINITE,
           "sx_masked_mapping_backward: dy[1] must be finite", "dy inf");
}

int main(void) {
    const int dims[][5] = { /* nq, nk, q_dim, k_dim, hidden */
        { 3, 4, 5, 5, 0 }, { 1, 1, 1, 1, 0 }, { 4, 3, 2, 2, 0 } };
    for (int c = 0; c < 3; c++)
        for (int kind = 0; kind < 2; kind++)
            test_kind(kind, dims[c][0], dims[c][1], dims[c][2], dims[c][3], 0, 1.0);
    test_kind(SX_SCORE_BILINEAR, 3, 4, 5, 3, 0, 1.0);
    test_kind(SX_SCORE_BILINEAR, 2, 2, 1, 4, 0, 1.0);
    test_kind(SX_SCORE_ADDITIVE, 3, 4, 5, 3, 6, 1.0);
    test_kind(SX_SCORE_ADDITIVE, 2, 5, 2, 2, 1, 1.0);
    test_kind(SX_SCORE_ADDITIVE, 4, 3, 3, 3, 8, 0.3);
    test_scale_variance();
    test_masked();
    test_errors();
    printf("test_scoring: worst forward relative error %.3g, worst gradient relative error %.3g, "
           "masked prefix vs truncated row %.3g\n", worst_fwd, worst_grad, worst_masked);
    return sx_test_summary("test_scoring");
}
