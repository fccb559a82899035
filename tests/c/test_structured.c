/* test_structured.c - fusedmax and oscarmax against float64 references (ref_structured.c), their
   properties (simplex, shift invariance, permutation / reversal equivariance, exact runs), masks,
   extreme inputs, every error path with its message, and both backward passes by central
   differences. */
#define _POSIX_C_SOURCE 200112L /* alarm */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "ref_structured.h"
#include "simplexity.h"

/* ---------------------------------------------------------------- helpers */
static uint64_t rng_state = 0x5eed5eedULL;
static uint32_t rng_u32(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}
static double rng_unit(void) { return rng_u32() / 4294967296.0; }
static double rng_range(double lo, double hi) { return lo + (hi - lo) * rng_unit(); }
static int rng_int(int lo, int hi) { return lo + (int)(rng_u32() % (uint32_t)(hi - lo + 1)); }

typedef int (*fwd_fn)(float *, const float *, int, int, float, float);
typedef int (*bwd_fn)(float *, const float *, const float *, int, int, float, float);
typedef void (*ref_fn)(double *, const double *, int, double, double);

static const char *fname(fwd_fn f) { return f == sx_fusedmax ? "fusedmax" : "oscarmax"; }

/* p >= 0, sums to 1 (or all zero for a fully masked row), masked entries exactly 0. */
static int on_simplex(const float *p, const float *x, int n, double tol) {
    double s = 0.0;
    int live = 0;
    for (int i = 0; i < n; i++) {
        if (!(p[i] >= 0.0f) || p[i] > 1.0f) return 0;
        if (x[i] == -INFINITY && p[i] != 0.0f) return 0;
        live += x[i] != -INFINITY;
        s += p[i];
    }
    return live ? fabs(s - 1.0) <= tol : s == 0.0;
}

static double max_abs_diff_fd(const float *a, const double *b, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* ---------------------------------------------------------------- errors */
static void test_errors(void) {
    float x[6] = { 0.5f, 1, 2, 0, -1, 3 }, out[6], dy[6] = { 1, 0, 0, 1, 0, 0 };
    fwd_fn fw[2] = { sx_fusedmax, sx_oscarmax };
    bwd_fn bw[2] = { sx_fusedmax_backward, sx_oscarmax_backward };
    const char *par[2] = { "lambda", "beta" };
    for (int f = 0; f < 2; f++) {
        char msg[96];
        CHECK(fw[f](out, x, 1, 0, 1, 1) == SX_EINVAL && !strcmp(sx_last_error(), "n must be >= 1 (got 0)"),
              "%s n=0: %s", fname(fw[f]), sx_last_error());
        CHECK(fw[f](out, x, -1, 6, 1, 1) == SX_EINVAL && !strcmp(sx_last_error(), "rows must be >= 0 (got -1)"),
              "%s rows=-1: %s", fname(fw[f]), sx_last_error());
        CHECK(fw[f](NULL, x, 1, 6, 1, 1) == SX_EINVAL && !strcmp(sx_last_error(), "null buffer (out)"), "%s", sx_last_error());
        CHECK(fw[f](out, NULL, 1, 6, 1, 1) == SX_EINVAL && !strcmp(sx_last_error(), "null buffer (x)"), "%s", sx_last_error());
        CHECK(bw[f](out, x, NULL, 1, 6, 1, 1) == SX_EINVAL && !strcmp(sx_last_error(), "null buffer (dy)"), "%s", sx_last_error());
        CHECK(fw[f](out, x, 1, 6, 1, 0) == SX_EINVAL &&
              !strcmp(sx_last_error(), "temperature must be finite and > 0 (got 0)"), "%s", sx_last_error());
        CHECK(fw[f](out, x, 1, 6, 1, NAN) == SX_EINVAL &&
              !strcmp(sx_last_error(), "temperature must be finite and > 0 (got NaN)"), "%s", sx_last_error());
        CHECK(bw[f](out, x, dy, 1, 6, 1, INFINITY) == SX_EINVAL &&
              !strcmp(sx_last_error(), "temperature must be finite and > 0 (got Infinity)"), "%s", sx_last_error());
        snprintf(msg, sizeof msg, "%s must be >= 0 (got -1)", par[f]);
        CHECK(fw[f](out, x, 1, 6, -1, 1) == SX_EINVAL && !strcmp(sx_last_error(), msg), "%s", sx_last_error());
        CHECK(bw[f](out, x, dy, 1, 6, -1, 1) == SX_EINVAL && !strcmp(sx_last_error(), msg), "%s", sx_last_error());
        snprintf(msg, sizeof msg, "%s must be >= 0 (got -0.25)", par[f]);
        CHECK(fw[f](out, x, 1, 6, -0.25f, 1) == SX_EINVAL && !strcmp(sx_last_error(), msg), "%s", sx_last_error());
        snprintf(msg, sizeof msg, "%s must be finite (got NaN)", par[f]);
        CHECK(fw[f](out, x, 1, 6, NAN, 1) == SX_EINVAL && !strcmp(sx_last_error(), msg), "%s", sx_last_error());
        snprintf(msg, sizeof msg, "%s must be finite (got Infinity)", par[f]);
        CHECK(bw[f](out, x, dy, 1, 6, INFINITY, 1) == SX_EINVAL && !strcmp(sx_last_error(), msg), "%s", sx_last_error());
        CHECK(fw[f](out, x, 0, 6, -1, 1) == SX_EINVAL, "parameters are checked even for rows = 0");
        CHECK(fw[f](out, x, 0, 6, 1, 1) == SX_OK, "rows = 0 is fine");
        CHECK(bw[f](out, x, dy, 0, 6, 1, 1) == SX_OK, "rows = 0 is fine");

        /* Non-finite scores: the error names the element, and nothing is written. */
        float bad[12], o[12];
        for (int i = 0; i < 12; i++) { bad[i] = (float)i; o[i] = 42.0f; }
        bad[11] = NAN;
        CHECK(fw[f](o, bad, 2, 6, 0.5f, 1) == SX_ENONFINITE && !strcmp(sx_last_error(), "x[11] must be finite or -Infinity (got NaN)")
              && sx_last_error_index() == 11, "%s", sx_last_error());
        int untouched = 1;
        for (int i = 0; i < 12; i++) untouched &= o[i] == 42.0f;
        CHECK(untouched, "%s wrote output before failing", fname(fw[f]));
        bad[11] = 0;
        bad[7] = INFINITY;
        CHECK(bw[f](o, bad, bad, 2, 6, 0.5f, 1) == SX_ENONFINITE && !strcmp(sx_last_error(), "x[7] must be finite or -Infinity (got Infinity)")
              && sx_last_error_index() == 7, "%s", sx_last_error());
        bad[7] = -INFINITY; /* a mask in x is fine, in dy it is not */
        float g[12];
        for (int i = 0; i < 12; i++) g[i] = 1;
        g[9] = -INFINITY;
        for (int i = 0; i < 12; i++) o[i] = 42.0f;
        CHECK(bw[f](o, bad, g, 2, 6, 0.5f, 1) == SX_ENONFINITE && !strcmp(sx_last_error(), "dy[9] must be finite (got -Infinity)")
              && sx_last_error_index() == 9, "%s", sx_last_error());
        untouched = 1;
        for (int i = 0; i < 12; i++) untouched &= o[i] == 42.0f;
        CHECK(untouched, "%s backward wrote output before failing", fname(fw[f]));
        g[9] = NAN;
        CHECK(bw[f](o, bad, g, 2, 6, 0.5f, 1) == SX_ENONFINITE && !strcmp(sx_last_error(), "dy[9] must be finite (got NaN)"),
              "%s", sx_last_error());
    }
}

/* ---------------------------------------------------------------- references */
static void test_against_refs(fwd_fn f, ref_fn ref, const double *params, int np, int maxn, int masks) {
    float x[64], p[64];
    double xd[64], pr[64];
    double worst = 0.0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = rng_int(1, maxn);
        double scale = rng_unit() < 0.5 ? 1.0 : rng_range(0.1, 10.0);
        double par = params[rng_int(0, np - 1)];
        float t = rng_unit() < 0.7 ? 1.0f : (float)rng_range(0.2, 3.0);
        for (int i = 0; i < n; i++) {
            x[i] = (float)(scale * rng_range(-3, 3));
            if (rng_unit() < 0.2) x[i] = x[i > 0 ? i - 1 : 0]; /* ties with a neighbour */
            if (masks && rng_unit() < 0.2) x[i] = -INFINITY;
            xd[i] = x[i];
        }
        CHECK(f(p, x, 1, n, (float)par, t) == SX_OK, "%s", sx_last_error());
        ref(pr, xd, n, par, t);
        double d = max_abs_diff_fd(p, pr, n);
        if (d > worst) worst = d;
        if (d > 2e-5) {
            CHECK(d <= 2e-5, "%s vs reference: n=%d par=%g T=%g diff %g", fname(f), n, par, t, d);
            return;
        }
        CHECK(on_simplex(p, x, n, 1e-5), "%s off the simplex (n=%d)", fname(f), n);
    }
    printf("  %s vs float64 reference (masks %d): worst |diff| %.3g\n", fname(f), masks, worst);
}

/* Rows of thirds and sixths: the runs' values tie with the threshold of the other runs, exactly
   up to rounding. runs_sparsemax once let such a run leave the support and come back as tau
   rounded one ulp either side, forever (the fuzzer found it; so does any row below with the old
   loop, in about a second). A watchdog turns a hang into a failure. */
static const char *watched;
static void on_hang(int sig) {
    (void)sig;
    printf("FAIL: %s did not return within 10 s (an endless loop)\n", watched);
    fflush(stdout);
    _exit(1);
}

static void test_rational_ties(void) {
    static const float rows[2][13] = {
        { 2.f / 3, 4.f / 3, 2.f / 3, 1.f / 3, 1.f / 3, 4.f / 3, 4.f / 3, 4.f / 3, 0, 1, 4.f / 3, 2.f / 3 },
        { 2.f / 3, 1, 2.f / 3, 1.f / 3, 0, 1, 2.f / 3, 4.f / 3, 1, 1, 1.f / 3, 1.f / 3, 1 },
    };
    static const int lens[2] = { 12, 13 };
    static const float lams[2] = { 0x1.4b50ecp-2f, 0x1.e6a53p-3f };
    float x[40], p[40], g[40], dx[40];
    double xd[40], pr[40], worst = 0.0;
    signal(SIGALRM, on_hang);
    for (int trial = 0; trial < 20000; trial++) {
        int n;
        float lam;
        if (trial < 2) {
            n = lens[trial];
            lam = lams[trial];
            memcpy(x, rows[trial], sizeof(float) * (size_t)n);
        } else {
            n = rng_int(2, 40);
            lam = (float)rng_range(0.01, 0.5);
            const int den = trial % 2 ? 3 : 6;
            for (int i = 0; i < n; i++) x[i] = (float)rng_int(0, 2 * den) / (float)den;
        }
        for (int i = 0; i < n; i++) {
            xd[i] = x[i];
            g[i] = (float)rng_range(-1, 1);
        }
        watched = "fusedmax on a row of thirds or sixths";
        alarm(10);
        const int st = sx_fusedmax(p, x, 1, n, lam, 1.0f);
        watched = "fusedmax_backward on a row of thirds or sixths";
        const int sb = sx_fusedmax_backward(dx, x, g, 1, n, lam, 1.0f);
        alarm(0);
        CHECK(st == SX_OK && sb == SX_OK, "%s", sx_last_error());
        rs_fusedmax(pr, xd, n, lam, 1.0);
        const double d = max_abs_diff_fd(p, pr, n);
        worst = fmax(worst, d);
        if (d > 2e-5 || !on_simplex(p, x, n, 1e-5)) {
            CHECK(0, "fusedmax on a row of ties (n=%d lam=%a): diff %g", n, (double)lam, d);
            break;
        }
        double sdx = 0.0;
        for (int i = 0; i < n; i++) sdx += dx[i];
        if (!(fabs(sdx) <= 1e-4)) { /* the backward stays in the simplex's tangent space */
            CHECK(0, "fusedmax_backward on a row of ties (n=%d): sum dx = %g", n, sdx);
            break;
        }
    }
    signal(SIGALRM, SIG_DFL);
    printf("  fusedmax on 20000 rows of thirds / sixths: returns, worst |diff| %.3g\n", worst);
}

/* The oscar formula (sort, PAV, sparsemax) is the argmin of the stated objective: compare with an
   exhaustive search over every face, in double, with mixed signs. */
static void test_oscar_bruteforce(void) {
    double worst = 0.0;
    for (int trial = 0; trial < 400; trial++) {
        int n = rng_int(1, 5);
        double z[8], x[8], pf[8], pb[8];
        double beta = trial % 4 == 0 ? rng_range(0, 0.05) : rng_range(0, 1.5);
        for (int i = 0; i < n; i++) x[i] = z[i] = rng_range(-2, 2);
        if (n > 2 && trial % 3 == 0) x[1] = z[1] = z[0];
        rs_oscarmax(pf, x, n, beta, 1.0);
        /* rs_oscarmax shifts by the max: the objective is shift invariant only up to a constant,
           so compare argmins, and objectives at the unshifted z. */
        double fb = rs_oscar_bruteforce(pb, z, n, beta);
        double ff = rs_oscar_objective(pf, z, n, beta);
        double d = 0.0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(pf[i] - pb[i]));
        worst = fmax(worst, d);
        CHECK(ff <= fb + 1e-12, "oscar formula objective %.15g > brute force %.15g (n=%d beta=%g)", ff, fb, n, beta);
        CHECK(d <= 1e-9, "oscar formula vs brute force argmin: %g (n=%d beta=%g)", d, n, beta);
    }
    printf("  oscar formula vs exhaustive argmin: worst |diff| %.3g\n", worst);
}

/* Long rows through oscarmax's merge sort (runs of 8, then merges, odd tails): sizes around the
   run and merge boundaries, many ties (a coarse grid) and masks, against the float64 reference;
   tied scores must get bitwise equal outputs. */
static void test_oscar_long_rows(void) {
    static float x[1100], p[1100], dx[1100], dy[1100];
    static double xd[1100], pr[1100];
    const int sizes[] = { 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 127, 200, 257, 513, 1000, 1025 };
    double worst = 0.0;
    for (int trial = 0; trial < 64; trial++) {
        int n = sizes[trial % 16], grid = trial % 3 == 0 ? 4 : trial % 3 == 1 ? 64 : 1 << 20;
        double beta = trial % 2 ? 0.1 : pow(10.0, rng_range(-4, 0)) / n;
        for (int i = 0; i < n; i++) {
            xd[i] = x[i] = (float)rng_int(-grid, grid) * (4.0f / (float)grid);
            if (trial % 4 && rng_unit() < 0.15) xd[i] = x[i] = -INFINITY;
            dy[i] = (float)rng_range(-1, 1);
        }
        if (trial % 8 == 7) x[n - 1] = x[0], xd[n - 1] = xd[0];
        CHECK(sx_oscarmax(p, x, 1, n, (float)beta, 1.0f) == SX_OK, "%s", sx_last_error());
        rs_oscarmax(pr, xd, n, (float)beta, 1.0);
        double d = max_abs_diff_fd(p, pr, n);
        worst = fmax(worst, d);
        CHECK(d <= 2e-5, "oscarmax long row vs reference: n=%d beta=%g grid=%d diff %g", n, beta, grid, d);
        CHECK(on_simplex(p, x, n, 1e-5), "oscarmax long row off the simplex (n=%d)", n);
        int split = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) split += x[i] == x[j] && x[i] != -INFINITY && p[i] != p[j];
        CHECK(split == 0, "oscarmax: %d tied pairs with different outputs (n=%d)", split, n);
        CHECK(sx_oscarmax_backward(dx, x, dy, 1, n, (float)beta, 1.0f) == SX_OK, "%s", sx_last_error());
        split = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) split += x[i] == x[j] && p[i] > 0 && dx[i] != dx[j];
        CHECK(split == 0, "oscarmax backward: %d tied pairs with different gradients (n=%d)", split, n);
    }
    printf("  oscarmax long rows with ties and masks vs float64 reference: worst |diff| %.3g\n", worst);
}

/* ---------------------------------------------------------------- properties */
static void test_lambda_zero(void) {
    float x[3 * 37], a[3 * 37], b[3 * 37], dy[3 * 37];
    for (int i = 0; i < 3 * 37; i++) {
        x[i] = (float)rng_range(-2, 2);
        dy[i] = (float)rng_range(-1, 1);
    }
    x[5] = -INFINITY;
    int same = 1;
    sx_sparsemax(a, x, 3, 37, 0.7f);
    sx_fusedmax(b, x, 3, 37, 0.0f, 0.7f);
    same &= !memcmp(a, b, sizeof a);
    sx_oscarmax(b, x, 3, 37, 0.0f, 0.7f);
    same &= !memcmp(a, b, sizeof a);
    sx_sparsemax_backward(a, x, dy, 3, 37, 0.7f);
    sx_fusedmax_backward(b, x, dy, 3, 37, 0.0f, 0.7f);
    same &= !memcmp(a, b, sizeof a);
    sx_oscarmax_backward(b, x, dy, 3, 37, 0.0f, 0.7f);
    same &= !memcmp(a, b, sizeof a);
    CHECK(same, "lambda = 0 / beta = 0 must be sparsemax exactly, forward and backward");
    /* tiny lambda is close to sparsemax through the TV path */
    sx_sparsemax(a, x, 3, 37, 0.7f);
    sx_fusedmax(b, x, 3, 37, 1e-7f, 0.7f);
    double d = 0;
    for (int i = 0; i < 3 * 37; i++) d = fmax(d, fabs(a[i] - b[i]));
    CHECK(d < 1e-5, "fusedmax(lambda = 1e-7) vs sparsemax: %g", d);
}

/* Scores on a 1/64 grid shifted by a constant stay exact, so the outputs must be bitwise equal. */
static void test_shift_invariance(void) {
    const float shifts[4] = { 1000.0f, -3.0f, 2.5f, -4096.0f };
    fwd_fn fw[2] = { sx_fusedmax, sx_oscarmax };
    for (int trial = 0; trial < 400; trial++) {
        int n = rng_int(1, 40);
        float x[40], xs[40], a[40], b[40];
        float c = shifts[trial % 4], par = (float)rng_range(0.01, 2.0), t = trial % 2 ? 1.0f : 0.5f;
        for (int i = 0; i < n; i++) {
            x[i] = (float)rng_int(-256, 256) / 64.0f; /* mixed signs */
            if (rng_unit() < 0.1) x[i] = -INFINITY;
            xs[i] = x[i] + c;
        }
        for (int f = 0; f < 2; f++) {
            fw[f](a, x, 1, n, par, t);
            fw[f](b, xs, 1, n, par, t);
            CHECK(!memcmp(a, b, (size_t)n * sizeof(float)), "%s not shift invariant (n=%d c=%g)", fname(fw[f]), n, c);
        }
    }
}

static void test_equivariance(void) {
    for (int trial = 0; trial < 300; trial++) {
        int n = rng_int(2, 50), perm[50];
        float x[50], xp[50], a[50], b[50];
        float par = (float)rng_range(0.01, 1.5);
        for (int i = 0; i < n; i++) { x[i] = (float)rng_range(-3, 3); perm[i] = i; }
        if (trial % 5 == 0) x[n - 1] = -INFINITY;
        for (int i = n - 1; i > 0; i--) { int j = rng_int(0, i), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
        for (int i = 0; i < n; i++) xp[i] = x[perm[i]];
        sx_oscarmax(a, x, 1, n, par, 1.0f);
        sx_oscarmax(b, xp, 1, n, par, 1.0f);
        double d = 0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(b[i] - a[perm[i]]));
        CHECK(d < 2e-6, "oscarmax not permutation equivariant: %g", d);
        /* fusedmax: the chain is symmetric, so reversing the row reverses the output */
        for (int i = 0; i < n; i++) xp[i] = x[n - 1 - i];
        sx_fusedmax(a, x, 1, n, par, 1.0f);
        sx_fusedmax(b, xp, 1, n, par, 1.0f);
        d = 0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(b[i] - a[n - 1 - i]));
        CHECK(d < 2e-6, "fusedmax not reversal equivariant: %g", d);
    }
}

/* Fused runs / clusters of the prox must come out bitwise equal in p. */
static void test_exact_runs(void) {
    int runs = 0;
    for (int trial = 0; trial < 500; trial++) {
        int n = rng_int(2, 30);
        float x[30], p[30];
        double xd[30], z[30], y[30];
        for (int i = 0; i < n; i++) xd[i] = x[i] = (float)rng_range(-1, 1);
        double top = -INFINITY;
        for (int i = 0; i < n; i++) top = fmax(top, xd[i]);
        for (int i = 0; i < n; i++) z[i] = xd[i] - top;
        rs_tv_prox(y, z, n, 0.3);
        sx_fusedmax(p, x, 1, n, 0.3f, 1.0f);
        for (int i = 0; i + 1 < n; i++)
            if (fabs(y[i] - y[i + 1]) < 1e-11 && p[i] > 0) {
                runs++;
                CHECK(p[i] == p[i + 1], "fused run not exactly equal: p[%d] = %.9g, p[%d] = %.9g", i, p[i], i + 1, p[i + 1]);
            }
        sx_oscarmax(p, x, 1, n, 0.1f, 1.0f);
        int cl = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) cl += i != j && p[i] > 0 && fabs(p[i] - p[j]) < 1e-7 && p[i] != p[j];
        CHECK(cl == 0, "oscarmax cluster not exactly equal");
    }
    CHECK(runs > 100, "too few fused runs exercised (%d)", runs);
}

static void test_random_simplex(void) {
    static float x[4 * 300], p[4 * 300], dx[4 * 300], dy[4 * 300];
    fwd_fn fw[2] = { sx_fusedmax, sx_oscarmax };
    bwd_fn bw[2] = { sx_fusedmax_backward, sx_oscarmax_backward };
    int ok = 1;
    for (int trial = 0; trial < 300; trial++) {
        int rows = rng_int(1, 4), n = rng_int(1, 300);
        double scale = pow(10.0, rng_range(-3, 3));
        float par = (float)(pow(10.0, rng_range(-4, 2))), t = (float)pow(10.0, rng_range(-2, 1));
        for (int i = 0; i < rows * n; i++) {
            x[i] = (float)(scale * rng_range(-1, 1));
            if (rng_unit() < 0.1) x[i] = -INFINITY;
            dy[i] = (float)rng_range(-1, 1);
        }
        for (int f = 0; f < 2; f++) {
            ok &= fw[f](p, x, rows, n, par, t) == SX_OK;
            for (int r = 0; r < rows; r++) ok &= on_simplex(p + r * n, x + r * n, n, 1e-5);
            if (!ok) fprintf(stderr, "forward off the simplex\n");
            ok &= bw[f](dx, x, dy, rows, n, par, t) == SX_OK;
            for (int i = 0; i < rows * n; i++) {
                if (!(isfinite(dx[i]) && (p[i] > 0 || dx[i] == 0))) { fprintf(stderr, "dx[%d] = %g, p = %g\n", i, dx[i], p[i]); ok = 0; }
            }
            double s = 0; /* the gradient sums to 0 on each row: J^T 1 = 0 (p stays on the simplex) */
            for (int r = 0; r < rows; r++) {
                s = 0;
                double mag = 0, gmag = 0; /* float rounding of mean(dy), scaled by 1/T */
                for (int i = 0; i < n; i++) { s += dx[r * n + i]; mag += fabs(dx[r * n + i]); gmag += fabs(dy[r * n + i]); }
                if (!(fabs(s) <= 1e-4 * mag + 1e-6 * (1 + gmag) / t)) { fprintf(stderr, "row %d: sum %g mag %g\n", r, s, mag); ok = 0; }
            }
            if (!ok) {
                CHECK(ok, "%s random rows: rows=%d n=%d par=%g T=%g", fname(fw[f]), rows, n, par, t);
                return;
            }
        }
    }
    CHECK(ok, "random rows on the simplex");
}

/* ---------------------------------------------------------------- edge cases */
static void test_edges(void) {
    fwd_fn fw[2] = { sx_fusedmax, sx_oscarmax };
    bwd_fn bw[2] = { sx_fusedmax_backward, sx_oscarmax_backward };
    for (int f = 0; f < 2; f++) {
        const char *nm = fname(fw[f]);
        float p[8], dx[8], dy[8] = { 1, -2, 3, 0.5f, 1, 1, 1, 1 };
        /* fully masked row, next to a live one */
        float xm[8] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, 1, -INFINITY, 2, 0 };
        CHECK(fw[f](p, xm, 2, 4, 0.5f, 1) == SX_OK && p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0, "%s all masked", nm);
        CHECK(on_simplex(p + 4, xm + 4, 4, 1e-6) && p[5] == 0, "%s masked entry", nm);
        for (int i = 0; i < 8; i++) dx[i] = 7;
        CHECK(bw[f](dx, xm, dy, 2, 4, 0.5f, 1) == SX_OK && dx[0] == 0 && dx[1] == 0 && dx[2] == 0 && dx[3] == 0 && dx[5] == 0,
              "%s all-masked backward is zero (and overwrites dx)", nm);
        /* masked entries behave as if absent: compare with the compacted row */
        float xc[3] = { 1, 2, 0 }, pc[3];
        fw[f](pc, xc, 1, 3, 0.5f, 1);
        CHECK(fabs(pc[0] - p[4]) < 1e-6 && fabs(pc[1] - p[6]) < 1e-6 && fabs(pc[2] - p[7]) < 1e-6,
              "%s mask = absent: %g %g %g vs %g %g %g", nm, pc[0], pc[1], pc[2], p[4], p[6], p[7]);
        /* ties: a constant row is uniform */
        float xt[5] = { 2, 2, 2, 2, 2 };
        fw[f](p, xt, 1, 5, 0.3f, 1);
        int uni = 1;
        for (int i = 0; i < 5; i++) uni &= fabs(p[i] - 0.2) < 1e-7;
        CHECK(uni, "%s constant row not uniform", nm);
        /* n = 1 */
        float one = -5;
        CHECK(fw[f](p, &one, 1, 1, 0.3f, 1) == SX_OK && p[0] == 1.0f, "%s n=1", nm);
        CHECK(bw[f](dx, &one, dy, 1, 1, 0.3f, 1) == SX_OK && dx[0] == 0.0f, "%s n=1 backward", nm);
        /* 1e30 magnitudes and T = 1e-6: argmax vertex, ties split evenly */
        /* (fusedmax is not permutation invariant: {1e30, -1e30, 1e30} gives 0.75 / 0.25, the middle
           one having two lower neighbours; adjacent ties fuse and split evenly) */
        float xh[4] = { 1e30f, 1e30f, -1e30f, 5e29f };
        CHECK(fw[f](p, xh, 1, 4, 0.5f, 1e-6f) == SX_OK && on_simplex(p, xh, 4, 1e-6), "%s 1e30", nm);
        CHECK(fabs(p[0] - 0.5) < 1e-6 && fabs(p[1] - 0.5) < 1e-6, "%s 1e30 ties: %g %g %g %g", nm, p[0], p[1], p[2], p[3]);
        CHECK(bw[f](dx, xh, dy, 1, 4, 0.5f, 1e-6f) == SX_OK && isfinite(dx[0]) && isfinite(dx[1]), "%s 1e30 backward", nm);
        float xe[3] = { 3e38f, -3e38f, 1 };
        CHECK(fw[f](p, xe, 1, 3, 0.5f, 1e-6f) == SX_OK && p[0] == 1.0f && p[1] == 0 && p[2] == 0, "%s +-3e38 at T=1e-6", nm);
        CHECK(fw[f](p, xe, 1, 3, 3e38f, 1e-30f) == SX_OK && on_simplex(p, xe, 3, 1e-6), "%s huge parameter", nm);
        float xa[4] = { 1, 3, 3, 0 };
        fw[f](p, xa, 1, 4, 0.5f, 1e-6f);
        CHECK(fabs(p[1] - 0.5) < 1e-6 && fabs(p[2] - 0.5) < 1e-6 && p[0] == 0 && p[3] == 0, "%s T -> 0 ties split evenly", nm);
        /* 1e-7 spreads around 1: the output follows the float64 reference of the same floats */
        float xs[6];
        double xsd[6], pr[6];
        for (int i = 0; i < 6; i++) xsd[i] = xs[i] = 1.0f + (float)i * 1.2e-7f;
        fw[f](p, xs, 1, 6, 1e-7f, 1e-6f);
        if (f == 0) rs_fusedmax(pr, xsd, 6, 1e-7, 1e-6);
        else rs_oscarmax(pr, xsd, 6, 1e-7, 1e-6);
        CHECK(max_abs_diff_fd(p, pr, 6) < 1e-4 && on_simplex(p, xs, 6, 1e-6), "%s 1e-7 spreads: diff %g", nm,
              max_abs_diff_fd(p, pr, 6));
        /* a huge parameter fuses everything: uniform over the unmasked entries */
        float xf[5] = { 3, -1, -INFINITY, 10, 0 };
        fw[f](p, xf, 1, 5, 1e30f, 1);
        CHECK(p[0] == 0.25f && p[1] == 0.25f && p[2] == 0 && p[3] == 0.25f && p[4] == 0.25f,
              "%s lambda/beta -> inf is uniform: %g %g %g %g %g", nm, p[0], p[1], p[2], p[3], p[4]);
    }
    /* the TV chain links across masked gaps: a masked entry between two equal scores fuses them */
    float x[5] = { 0, 2, -INFINITY, 2, 0 }, p[5];
    sx_fusedmax(p, x, 1, 5, 0.1f, 1);
    CHECK(p[1] == p[3] && p[1] > 0 && p[2] == 0, "fusedmax across a mask: %g %g %g", p[1], p[2], p[3]);
    /* a fused plateau: lambda large enough to merge the middle three */
    float xp[5] = { 0, 1, 1.25f, 0.875f, 0 }; /* prox: -1, -0.375 x 3, -1 (exact in binary) */
    sx_fusedmax(p, xp, 1, 5, 0.25f, 1);
    CHECK(p[1] == p[2] && p[2] == p[3] && fabs(p[1] - 1.0 / 3) < 1e-6, "fusedmax plateau: %g %g %g", p[1], p[2], p[3]);
}

/* ---------------------------------------------------------------- gradients */
/* Structure at a point: support and the partition into fused runs / clusters of the ref. */
static void structure(char *sig, ref_fn ref, const double *x, int n, double par, double t) {
    double p[32];
    ref(p, x, n, par, t);
    for (int i = 0; i < n; i++) sig[i] = p[i] > 1e-9 ? 'S' : '0';
    /* clusters: equal positive values */
    for (int i = 0; i < n; i++) {
        sig[n + i] = (char)('a' + i);
        for (int j = 0; j < i; j++)
            if (p[i] > 1e-9 && fabs(p[i] - p[j]) < 1e-9) { sig[n + i] = sig[n + j]; break; }
    }
    sig[2 * n] = 0;
}

static void test_gradients(fwd_fn f, bwd_fn b, ref_fn ref) {
    int tested = 0;
    double worst = 0;
    for (int trial = 0; trial < 600 && tested < 200; trial++) {
        int n = rng_int(2, 12);
        float x[32], dy[32], dx[32];
        double xd[32], xp[32], pp[32], pm[32];
        double par = rng_range(0.05, 1.0), t = trial % 3 ? 1.0 : 0.5;
        for (int i = 0; i < n; i++) {
            xd[i] = x[i] = (float)rng_range(-2, 2);
            if (rng_unit() < 0.15) xd[i] = x[i] = x[i > 0 ? i - 1 : 0]; /* start on a tie: a run */
            if (rng_unit() < 0.1) xd[i] = x[i] = -INFINITY;
            dy[i] = (float)rng_range(-1, 1);
        }
        char sig0[80], sig1[80];
        structure(sig0, ref, xd, n, par, t);
        const double h = 1e-6;
        double fd[32];
        int smooth = 1;
        for (int i = 0; i < n && smooth; i++) {
            if (xd[i] == -INFINITY) { fd[i] = 0; continue; }
            memcpy(xp, xd, sizeof xp);
            xp[i] = xd[i] + h;
            ref(pp, xp, n, par, t);
            structure(sig1, ref, xp, n, par, t);
            smooth &= !strcmp(sig0, sig1);
            xp[i] = xd[i] - h;
            ref(pm, xp, n, par, t);
            structure(sig1, ref, xp, n, par, t);
            smooth &= !strcmp(sig0, sig1);
            double s = 0;
            for (int j = 0; j < n; j++) s += dy[j] * (pp[j] - pm[j]);
            fd[i] = s / (2 * h);
        }
        if (!smooth) continue; /* on a support / run change: not differentiable there */
        tested++;
        CHECK(b(dx, x, dy, 1, n, (float)par, (float)t) == SX_OK, "%s", sx_last_error());
        double d = 0, mag = 0;
        for (int i = 0; i < n; i++) { d = fmax(d, fabs(dx[i] - fd[i])); mag = fmax(mag, fabs(fd[i])); }
        worst = fmax(worst, d);
        CHECK(d <= 1e-4 * (1 + mag), "%s backward vs central differences: %g (n=%d par=%g T=%g)", fname(f), d, n, par, t);
    }
    CHECK(tested >= 100, "%s: too few smooth points tested (%d)", fname(f), tested);
    printf("  %s backward vs central differences: %d points, worst |diff| %.3g\n", fname(f), tested, worst);
}

/* ---------------------------------------------------------------- main */
/* Huge dy at a large temperature: the true gradient, (dy - mean dy) / T on the blocks, is
   finite, and so must every intermediate be (a fuzzer find: a float sum of dy over the support
   overflowed). Equal dy: exactly 0. */
static void test_huge_dy(void) {
    const float x[4] = { -2.8e-45f, -2.8e-45f, 1.0f, 0.5f }, same[4] = { -2.76e38f, -2.76e38f, -2.76e38f, -2.76e38f };
    const float mixed[4] = { 3e38f, -3e38f, -3e38f, 1.0f };
    float dx[4];
    for (int f = 0; f < 2; f++) {
        bwd_fn b = f ? sx_oscarmax_backward : sx_fusedmax_backward;
        const char *name = f ? "oscarmax" : "fusedmax";
        CHECK(b(dx, x, same, 1, 4, 3.4e38f, 3.4e38f) == SX_OK, "%s", name);
        CHECK(dx[0] == 0.0f && dx[1] == 0.0f && dx[2] == 0.0f && dx[3] == 0.0f, "%s: equal huge dy gives 0 (got %g %g %g %g)",
              name, dx[0], dx[1], dx[2], dx[3]);
        CHECK(b(dx, x, mixed, 1, 4, 0.05f, 3.4e38f) == SX_OK, "%s", name);
        int finite = 1;
        for (int i = 0; i < 4; i++) finite &= isfinite(dx[i]);
        CHECK(finite, "%s: huge mixed dy at T = FLT_MAX stays finite (got %g %g %g %g)", name, dx[0], dx[1], dx[2], dx[3]);
        /* and at a tiny T, where (dy - mean) / T overflows: +-Infinity, never NaN (a block or run
           averaging +Infinity with -Infinity would give NaN) */
        const float tied[4] = { 7.6875f, 7.6875f, 7.6875f, 7.6875f }, big[4] = { -2.6e36f, 7.8e-33f, 0.0f, 2.6e36f };
        CHECK(b(dx, tied, big, 1, 4, 0.001f, 1e-30f) == SX_OK, "%s", name);
        int nan = 0;
        for (int i = 0; i < 4; i++) nan += dx[i] != dx[i];
        CHECK(!nan, "%s: huge dy at T = 1e-30 gives no NaN (got %g %g %g %g)", name, dx[0], dx[1], dx[2], dx[3]);
        /* at T = 1, a group whose average gradient fits although dy_i - mean dy does not
           (FLT_MAX + 0.07e38): the group's own average, 0 for one group of 3 (to float rounding
           of dy: within 1e-6 of max |dy|, where float32 spacing is 2e31), and
           (dy - mean) averaged per group against double otherwise. Both row lengths: the
           short-row sweep and the recorded-runs path of fusedmax. */
        const float one[3] = { 0.0f, 0.0f, 0.0f }, d3[3] = { FLT_MAX, -2e38f, -1.6e38f };
        CHECK(b(dx, one, d3, 1, 3, 0.1f, 1.0f) == SX_OK, "%s", name);
        CHECK(fabsf(dx[0]) <= 1e-6f * FLT_MAX && dx[1] == dx[0] && dx[2] == dx[0], "%s: one group, dy near FLT_MAX: 0 (got %g %g %g)",
              name, dx[0], dx[1], dx[2]);
        for (int len = 4; len <= 12; len += 8) {
            /* two tied groups, both in the support: the reference averages dy - mean_S dy over
               each group of equal p (the forward's output), in double */
            float xs[12], ds[12], dx12[12], p12[12];
            for (int i = 0; i < len; i++) {
                xs[i] = i < len / 2 ? 0.05f : 0.0f;
                ds[i] = i == 0 ? FLT_MAX : i == 1 ? -2e38f : i < len / 2 ? -1.6e38f : 1e37f;
            }
            CHECK((f ? sx_oscarmax : sx_fusedmax)(p12, xs, 1, len, 0.001f, 1.0f) == SX_OK, "%s forward", name);
            CHECK(b(dx12, xs, ds, 1, len, 0.001f, 1.0f) == SX_OK, "%s", name);
            double sum_s = 0.0, big = 0.0;
            int in_s = 0;
            for (int i = 0; i < len; i++)
                if (p12[i] > 0.0f) { sum_s += ds[i]; in_s++; }
            double want[12], worst = 0.0;
            for (int i = 0; i < len; i++) {
                double g = 0.0;
                int k = 0;
                for (int j = 0; j < len; j++)
                    if (p12[i] > 0.0f && p12[j] == p12[i]) { g += ds[j] - sum_s / in_s; k++; }
                want[i] = k ? g / k : 0.0;
                big = fmax(big, fabs(want[i]));
            }
            for (int i = 0; i < len; i++) worst = fmax(worst, fabs(dx12[i] - want[i]));
            CHECK(in_s == len && big > 1e37 && worst <= 1e-6 * big,
                  "%s n=%d: two groups, dy near FLT_MAX: |error| %g of %g (support %d; got %g, want %g)", name, len, worst, big, in_s,
                  dx12[0], want[0]);
        }
    }
}

int main(void) {
    test_errors();
    test_huge_dy();
    const double lams[] = { 0.01, 0.1, 0.3, 0.5, 1.0, 3.0, 100.0 };
    test_against_refs(sx_fusedmax, rs_fusedmax, lams, 7, 12, 0);
    test_against_refs(sx_fusedmax, rs_fusedmax, lams, 7, 60, 1);
    test_rational_ties();
    test_oscar_bruteforce();
    test_against_refs(sx_oscarmax, rs_oscarmax, lams, 7, 12, 0);
    test_against_refs(sx_oscarmax, rs_oscarmax, lams, 7, 60, 1);
    test_oscar_long_rows();
    test_lambda_zero();
    test_shift_invariance();
    test_equivariance();
    test_exact_runs();
    test_random_simplex();
    test_edges();
    test_gradients(sx_fusedmax, sx_fusedmax_backward, rs_fusedmax);
    test_gradients(sx_oscarmax, sx_oscarmax_backward, rs_oscarmax);
    return sx_test_summary("test_structured");
}
