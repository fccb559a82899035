/* test_dense.c - softmax, sparsemax, 1.5-entmax, alpha-entmax, their backward passes, the alpha
   gradient and the Tsallis entropy: golden vectors, cross-checks against the float64 references,
   properties under a seeded PRNG, edge cases, error paths, gradient checks. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"
#include "ref.h"

/* ------------------------------------------------------------------ PRNG */
#define SX_TEST_SEED 0x9E3779B97F4A7C15ull
#include "prng.h"

/* -------------------------------------------------------------- mappings */
enum { SOFTMAX, SPARSEMAX, ENTMAX15, ENTMAX };
static const char *kind_name[] = { "softmax", "sparsemax", "entmax15", "entmax" };

static int run_map(int kind, float *out, const float *x, int rows, int n, float alpha, float t) {
    switch (kind) {
    case SOFTMAX: return sx_softmax(out, x, rows, n, t);
    case SPARSEMAX: return sx_sparsemax(out, x, rows, n, t);
    case ENTMAX15: return sx_entmax15(out, x, rows, n, t);
    default: return sx_entmax(out, x, rows, n, alpha, t);
    }
}
static int run_backward(int kind, float *dx, const float *x, const float *dy, int rows, int n, float alpha,
                        float t) {
    switch (kind) {
    case SOFTMAX: return sx_softmax_backward(dx, x, dy, rows, n, t);
    case SPARSEMAX: return sx_sparsemax_backward(dx, x, dy, rows, n, t);
    case ENTMAX15: return sx_entmax15_backward(dx, x, dy, rows, n, t);
    default: return sx_entmax_backward(dx, x, dy, rows, n, alpha, t);
    }
}
static double kind_alpha(int kind, double alpha) {
    return kind == SOFTMAX ? 1.0 : kind == SPARSEMAX ? 2.0 : kind == ENTMAX15 ? 1.5 : alpha;
}
/* reference on z = x / T (double) */
static void ref_map(int kind, double *p, const float *x, int n, double alpha, double t) {
    double *z = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) z[i] = (double)x[i] / t;
    switch (kind) {
    case SOFTMAX: ref_softmax(p, z, n); break;
    case SPARSEMAX: ref_sparsemax(p, z, n); break;
    case ENTMAX15: ref_entmax15(p, z, n); break;
    default: ref_entmax(p, z, n, alpha); break;
    }
    free(z);
}

/* row on the simplex: every p >= 0 and finite, sum 1 within tol (0 for an all-masked row) */
static int on_simplex(const float *p, int n, int all_masked, double tol) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(p[i] >= 0.0f) || !(p[i] <= 1.0f)) return 0;
        s += p[i];
    }
    return all_masked ? s == 0.0 : fabs(s - 1.0) <= tol;
}

static void fill_row(float *x, int n, double scale, double mask_frac) {
    for (int i = 0; i < n; i++) x[i] = (float)(scale * nrand());
    if (mask_frac > 0)
        for (int i = 0; i < n; i++)
            if (urand() < mask_frac) x[i] = -INFINITY;
}

/* --------------------------------------------------------------- golden */
static void test_golden(void) {
    const char *paths[] = { "tests/golden/mappings.txt", "../tests/golden/mappings.txt", "../../tests/golden/mappings.txt" };
    FILE *f = NULL;
    for (int i = 0; i < 3 && !f; i++) f = fopen(paths[i], "r");
    CHECK(f != NULL, "cannot open tests/golden/mappings.txt (run from the repository root)");
    if (!f) return;
    char line[8192];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *tok[1024];
        int nt = 0;
        for (char *s = strtok(line, " \t\r\n"); s && nt < 1024; s = strtok(NULL, " \t\r\n")) tok[nt++] = s;
        if (nt == 0) continue;
        CHECK(nt >= 5, "short golden line");
        if (nt < 5) continue;
        int kind = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(tok[0], kind_name[k])) kind = k;
        CHECK(kind >= 0, "unknown mapping %s", tok[0]);
        if (kind < 0) continue;
        float alpha = kind == ENTMAX ? strtof(tok[1], NULL) : 0.0f;
        float t = strtof(tok[2], NULL);
        double tol = strtod(tok[3], NULL);
        int n = atoi(tok[4]);
        CHECK(nt == 5 + 2 * n, "golden line for %s has %d fields, expected %d", tok[0], nt, 5 + 2 * n);
        if (nt != 5 + 2 * n) continue;
        float x[512], p[512];
        for (int i = 0; i < n; i++) x[i] = strcmp(tok[5 + i], "-inf") ? strtof(tok[5 + i], NULL) : -INFINITY;
        CHECK(run_map(kind, p, x, 1, n, alpha, t) == SX_OK, "golden %s", tok[0]);
        for (int i = 0; i < n; i++) {
            double want = strtod(tok[5 + n + i], NULL);
            CHECK_NEAR(p[i], want, tol, "golden %s (alpha %g, T %g) case %d, entry %d", tok[0], alpha, t, cases, i);
        }
        /* a single row through the batched API with more rows (the n = 3 path batches 4) */
        float xb[5 * 512], pb[5 * 512];
        for (int r = 0; r < 5; r++) memcpy(xb + r * n, x, sizeof(float) * (size_t)n);
        CHECK(run_map(kind, pb, xb, 5, n, alpha, t) == SX_OK, "golden batched");
        for (int r = 0; r < 5; r++)
            for (int i = 0; i < n; i++) CHECK(pb[r * n + i] == p[i], "batched row %d differs at %d", r, i);
        cases++;
    }
    fclose(f);
    CHECK(cases >= 30, "only %d golden cases", cases);
}

/* ----------------------------------------------- SIMD kernels vs float64 refs */
static double cross_check(int kind, double alpha, int n, int rows, double scale, double t, double mask_frac) {
    float *x = calloc((size_t)rows * n, sizeof(float)), *p = calloc((size_t)rows * n, sizeof(float));
    double *q = malloc(sizeof(double) * (size_t)n);
    for (int r = 0; r < rows; r++) fill_row(x + (size_t)r * n, n, scale, mask_frac);
    double worst = 0.0;
    int st = run_map(kind, p, x, rows, n, (float)alpha, (float)t);
    CHECK(st == SX_OK, "%s n=%d: %s", kind_name[kind], n, sx_last_error());
    for (int r = 0; r < rows && st == SX_OK; r++) {
        const float *xr = x + (size_t)r * n, *pr = p + (size_t)r * n;
        int all_masked = 1;
        for (int i = 0; i < n; i++) all_masked &= xr[i] == -INFINITY;
        ref_map(kind, q, xr, n, (double)(float)alpha, t);
        for (int i = 0; i < n; i++) {
            double e = fabs(pr[i] - q[i]);
            if (!(e <= worst)) worst = e; /* NaN sticks */
            if (xr[i] == -INFINITY && pr[i] != 0.0f) worst = INFINITY;
        }
        CHECK(on_simplex(pr, n, all_masked, 1e-5), "%s alpha %g n=%d row %d not on the simplex", kind_name[kind],
              alpha, n, r);
    }
    free(x);
    free(p);
    free(q);
    return worst;
}

static void test_cross(void) {
    const int ns[] = { 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 64, 100, 512, 4096 };
    const double scales[] = { 0.1, 1.0, 10.0, 1e4 };
    const double temps[] = { 1.0, 0.3, 5.0 };
    const double alphas[] = { 1.0001, 1.1, 1.25, 1.7, 3.0, 4.0 };
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        int n = ns[a];
        for (int kind = 0; kind < 3; kind++)
            for (size_t s = 0; s < 4; s++)
                for (size_t ti = 0; ti < 3; ti++) {
                    int rows = n >= 512 ? 6 : 40;
                    double e = cross_check(kind, 0, n, rows, scales[s], temps[ti], s == 1 ? 0.2 : 0.0);
                    CHECK(e < 1e-5, "%s n=%d scale %g T %g: max abs error %g", kind_name[kind], n, scales[s],
                          temps[ti], e);
                }
        for (size_t al = 0; al < sizeof alphas / sizeof alphas[0]; al++)
            for (size_t s = 0; s < 4; s++) {
                int rows = n >= 512 ? 2 : 10;
                if (n == 4096 && s != 1) continue;
                double e = cross_check(ENTMAX, alphas[al], n, rows, scales[s], 1.0, s == 1 ? 0.2 : 0.0);
                CHECK(e < 1e-5, "entmax alpha %g n=%d scale %g: max abs error %g", alphas[al], n, scales[s], e);
            }
    }
}

/* sort-based references vs the bisection reference */
static void test_ref_consistency(void) {
    double z[64], p1[64], p2[64];
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + (int)(urand() * 60);
        for (int i = 0; i < n; i++) z[i] = nrand() * (trial % 2 ? 3.0 : 0.5);
        ref_entmax15(p1, z, n);
        ref_entmax_bisect(p2, z, n, 1.5);
        double e = 0.0;
        for (int i = 0; i < n; i++) e = fmax(e, fabs(p1[i] - p2[i]));
        CHECK(e < 1e-12, "entmax15 sort vs bisection: %g (n=%d)", e, n);
        ref_sparsemax(p1, z, n);
        ref_entmax_bisect(p2, z, n, 2.0);
        e = 0.0;
        for (int i = 0; i < n; i++) e = fmax(e, fabs(p1[i] - p2[i]));
        CHECK(e < 1e-12, "sparsemax sort vs bisection: %g (n=%d)", e, n);
    }
}

/* alpha = 2, 1.5, 1 dispatch exactly; alpha next to them converges to them */
static void test_alpha_limits(void) {
    enum { R = 16, N = 37 };
    float x[R * N], a[R * N], b[R * N];
    for (int i = 0; i < R * N; i++) x[i] = (float)nrand();
    x[5] = -INFINITY;
    sx_entmax(a, x, R, N, 2.0f, 0.7f);
    sx_sparsemax(b, x, R, N, 0.7f);
    CHECK(!memcmp(a, b, sizeof a), "entmax(alpha=2) is sparsemax");
    sx_entmax(a, x, R, N, 1.5f, 0.7f);
    sx_entmax15(b, x, R, N, 0.7f);
    CHECK(!memcmp(a, b, sizeof a), "entmax(alpha=1.5) is entmax15");
    sx_entmax(a, x, R, N, 1.0f, 0.7f);
    sx_softmax(b, x, R, N, 0.7f);
    CHECK(!memcmp(a, b, sizeof a), "entmax(alpha=1) is softmax");
    double e = 0.0;
    sx_entmax(a, x, R, N, 1.0001f, 0.7f);
    for (int i = 0; i < R * N; i++) e = fmax(e, fabs(a[i] - b[i]));
    CHECK(e < 1e-3 && e > 0.0, "entmax(1.0001) vs softmax: %g", e);
    sx_entmax(a, x, R, N, 1.0000001f, 0.7f);
    e = 0.0;
    for (int i = 0; i < R * N; i++) e = fmax(e, fabs(a[i] - b[i]));
    CHECK(e < 2e-5, "entmax(1 + 1 ulp) vs softmax: %g", e);
    sx_entmax(a, x, R, N, 1.9999f, 0.7f);
    sx_sparsemax(b, x, R, N, 0.7f);
    e = 0.0;
    for (int i = 0; i < R * N; i++) e = fmax(e, fabs(a[i] - b[i]));
    CHECK(e < 1e-3, "entmax(1.9999) vs sparsemax: %g", e);
    sx_entmax(a, x, R, N, 1.5001f, 0.7f);
    sx_entmax15(b, x, R, N, 0.7f);
    e = 0.0;
    for (int i = 0; i < R * N; i++) e = fmax(e, fabs(a[i] - b[i]));
    CHECK(e < 1e-3, "entmax(1.5001) vs entmax15: %g", e);
    /* huge alpha: no NaN, mass on the argmax (ties split) */
    const float big[] = { 5.0f, 1e30f, 1e6f, 3e38f };
    for (int k = 0; k < 4; k++) {
        float y[4] = { 0.5f, 2.0f, 2.0f, -1.0f }, p[4];
        CHECK(sx_entmax(p, y, 1, 4, big[k], 1.0f) == SX_OK, "huge alpha");
        CHECK(on_simplex(p, 4, 0, 1e-5), "huge alpha %g on simplex", big[k]);
        if (big[k] > 100.0f) CHECK_NEAR(p[1], 0.5, 1e-4, "alpha %g ties split", big[k]);
    }
}

/* n = 3 across-rows path vs the general path ([a, b, c, -inf] is [a, b, c] plus a mask) */
static void test_small_n(void) {
    enum { R = 203 };
    float x3[R * 3], x4[R * 4], p3[R * 3], p4[R * 4];
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < 3; i++) {
            double u = urand();
            float v = (float)nrand() * (r % 3 == 0 ? 0.2f : 2.0f);
            if (u < 0.1) v = -INFINITY;
            else if (u < 0.25 && i > 0) v = x3[r * 3 + i - 1]; /* ties */
            x3[r * 3 + i] = x4[r * 4 + i] = v;
        }
        x4[r * 4 + 3] = -INFINITY;
    }
    for (int i = 0; i < 3; i++) x3[7 * 3 + i] = x4[7 * 4 + i] = -INFINITY; /* an all-masked row */
    const float temps[] = { 1.0f, 0.05f, 1e-6f, 30.0f };
    for (int kind = 0; kind < 3; kind++)
        for (int ti = 0; ti < 4; ti++) {
            for (int rows = 0; rows <= R; rows += (rows < 9 ? 1 : 97)) {
                CHECK(run_map(kind, p3, x3, rows, 3, 0, temps[ti]) == SX_OK, "n=3");
                CHECK(run_map(kind, p4, x4, rows, 4, 0, temps[ti]) == SX_OK, "n=4");
                double e = 0.0;
                int simplex = 1;
                for (int r = 0; r < rows; r++) {
                    int dead = x3[r * 3] == -INFINITY && x3[r * 3 + 1] == -INFINITY && x3[r * 3 + 2] == -INFINITY;
                    simplex &= on_simplex(p3 + r * 3, 3, dead, 1e-5);
                    for (int i = 0; i < 3; i++) {
                        double d = fabs(p3[r * 3 + i] - p4[r * 4 + i]);
                        if (!(d <= e)) e = d;
                        if (x3[r * 3 + i] == -INFINITY && p3[r * 3 + i] != 0.0f) e = INFINITY;
                    }
                    CHECK(p4[r * 4 + 3] == 0.0f, "mask");
                }
                CHECK(e < 1e-6, "%s n=3 path vs general, rows=%d T=%g: %g", kind_name[kind], rows, temps[ti], e);
                CHECK(simplex, "%s n=3 simplex, rows=%d", kind_name[kind], rows);
            }
        }
}

/* ---------------------------------------------------------- properties */
static void test_properties(void) {
    enum { N = 50 };
    float x[N], y[N], p[N], q[N];
    const float alphas[] = { 1.0f, 1.2f, 1.5f, 2.0f, 2.5f };
    for (int trial = 0; trial < 60; trial++) {
        fill_row(x, N, trial % 2 ? 0.5 : 3.0, trial % 3 == 0 ? 0.1 : 0.0);
        for (int a = 0; a < 5; a++) {
            /* shift invariance */
            float c = (float)(nrand() * 4.0);
            for (int i = 0; i < N; i++) y[i] = x[i] + c;
            sx_entmax(p, x, 1, N, alphas[a], 1.0f);
            sx_entmax(q, y, 1, N, alphas[a], 1.0f);
            double e = 0.0;
            for (int i = 0; i < N; i++) e = fmax(e, fabs(p[i] - q[i]));
            CHECK(e < 1e-5, "shift invariance alpha %g: %g", alphas[a], e);
            /* permutation equivariance */
            int perm[N];
            for (int i = 0; i < N; i++) perm[i] = i;
            for (int i = N - 1; i > 0; i--) {
                int j = (int)(urand() * (i + 1)), tmp = perm[i];
                perm[i] = perm[j];
                perm[j] = tmp;
            }
            for (int i = 0; i < N; i++) y[i] = x[perm[i]];
            sx_entmax(q, y, 1, N, alphas[a], 1.0f);
            e = 0.0;
            for (int i = 0; i < N; i++) e = fmax(e, fabs(q[i] - p[perm[i]]));
            CHECK(e < 1e-6, "permutation equivariance alpha %g: %g", alphas[a], e);
            /* argmax preserved: the largest score gets the largest probability */
            int im = 0;
            for (int i = 1; i < N; i++) if (x[i] > x[im]) im = i;
            for (int i = 0; i < N; i++) CHECK(p[i] <= p[im], "argmax alpha %g", alphas[a]);
        }
        /* support size non-increasing as alpha grows (non-decreasing as alpha -> 1) */
        const float as[] = { 1.05f, 1.1f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 4.0f };
        int prev = N + 1;
        for (int a = 0; a < 9; a++) {
            sx_entmax(p, x, 1, N, as[a], 1.0f);
            int k = 0;
            for (int i = 0; i < N; i++) k += p[i] > 0.0f;
            CHECK(k <= prev, "support grew from %d to %d at alpha %g", prev, k, as[a]);
            prev = k;
        }
        /* temperature: T scales the scores */
        for (int i = 0; i < N; i++) y[i] = x[i] * 0.25f;
        for (int kind = 0; kind < 3; kind++) {
            run_map(kind, p, x, 1, N, 0, 4.0f);
            run_map(kind, q, y, 1, N, 0, 1.0f);
            double e = 0.0;
            for (int i = 0; i < N; i++) e = fmax(e, fabs(p[i] - q[i]));
            CHECK(e < 1e-6, "%s temperature 4 is x/4: %g", kind_name[kind], e);
        }
    }
}

/* ------------------------------------------------------------ edge cases */
static void test_edges(void) {
    float p[8], q[8];
    for (int kind = 0; kind < 4; kind++) {
        const float alphas[] = { 1.3f, 2.7f };
        for (int ai = 0; ai < (kind == ENTMAX ? 2 : 1); ai++) {
            float al = alphas[ai];
            const char *nm = kind_name[kind];
            /* masks: exactly 0, rest as if absent */
            float xm[6] = { 0.3f, -INFINITY, 1.0f, -0.2f, -INFINITY, 0.9f }, xs[4] = { 0.3f, 1.0f, -0.2f, 0.9f };
            run_map(kind, p, xm, 1, 6, al, 0.8f);
            run_map(kind, q, xs, 1, 4, al, 0.8f);
            CHECK(p[1] == 0.0f && p[4] == 0.0f, "%s masks are 0", nm);
            CHECK(p[0] == q[0] && p[2] == q[1] && p[3] == q[2] && p[5] == q[3], "%s masked = absent", nm);
            /* all masked row: zeros, and the backward of it too */
            float xi[5] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY }, g[5] = { 1, 2, 3, 4, 5 };
            for (int i = 0; i < 5; i++) p[i] = 7.0f;
            CHECK(run_map(kind, p, xi, 1, 5, al, 1.0f) == SX_OK, "%s all masked", nm);
            for (int i = 0; i < 5; i++) CHECK(p[i] == 0.0f, "%s all masked -> 0", nm);
            for (int i = 0; i < 5; i++) p[i] = 7.0f;
            CHECK(run_backward(kind, p, xi, g, 1, 5, al, 1.0f) == SX_OK, "%s all masked bwd", nm);
            for (int i = 0; i < 5; i++) CHECK(p[i] == 0.0f, "%s all masked backward -> 0", nm);
            /* ties: even split */
            float xt[4] = { 2.0f, 2.0f, 2.0f, 2.0f };
            run_map(kind, p, xt, 1, 4, al, 1.0f);
            for (int i = 0; i < 4; i++) CHECK_NEAR(p[i], 0.25, 1e-6, "%s ties", nm);
            /* huge magnitudes */
            float xh[5] = { 1e30f, -1e30f, 1e30f, 3e38f, -3e38f };
            run_map(kind, p, xh, 1, 5, al, 1.0f);
            CHECK(on_simplex(p, 5, 0, 1e-5) && p[3] == 1.0f, "%s 1e30 / 3e38", nm);
            float xh2[3] = { 1e30f, -1e30f, 1e30f };
            run_map(kind, p, xh2, 1, 3, al, 1.0f);
            CHECK_NEAR(p[0], 0.5, 1e-6, "%s 1e30 ties", nm);
            CHECK(p[1] == 0.0f, "%s -1e30", nm);
            /* tiny spreads: near-uniform */
            float xe[5] = { 1.0f, 1.0000001f, 0.9999999f, 1.0f, 1.0000002f };
            run_map(kind, p, xe, 1, 5, al, 1.0f);
            CHECK(on_simplex(p, 5, 0, 1e-5), "%s 1e-7 spread", nm);
            for (int i = 0; i < 5; i++) CHECK_NEAR(p[i], 0.2, 1e-5, "%s 1e-7 spread", nm);
            /* T -> 0: the argmax vertex, ties split */
            const float ts[] = { 1e-6f, 1e-20f, 1e-45f };
            for (int k = 0; k < 3; k++) {
                float xv[5] = { 1.0f, 3.0f, 3.0f, 0.0f, -INFINITY }, gv[5] = { 1, -1, 2, 0, 5 };
                CHECK(run_map(kind, p, xv, 1, 5, al, ts[k]) == SX_OK, "tiny T");
                CHECK(p[0] == 0.0f && p[3] == 0.0f && p[4] == 0.0f, "%s T=%g vertex", nm, ts[k]);
                CHECK_NEAR(p[1], 0.5, 1e-6, "%s T=%g ties split", nm, ts[k]);
                CHECK_NEAR(p[2], 0.5, 1e-6, "%s T=%g ties split", nm, ts[k]);
                CHECK(run_backward(kind, q, xv, gv, 1, 5, al, ts[k]) == SX_OK, "tiny T backward");
                /* (the gradient scales as 1/T: at T = 1e-45 it overflows float, as it should) */
                for (int i = 0; i < 5; i++) CHECK(isfinite(q[i]) || ts[k] < 1e-40f, "%s T=%g backward finite", nm, ts[k]);
                for (int i = 0; i < 5; i++) CHECK(q[i] == q[i], "%s T=%g backward not NaN", nm, ts[k]);
            }
            /* n = 3 (the across-rows path) at subnormal T: was Infinity for 1.5-entmax (fuzzer find) */
            {
                float x3[12] = { 0.0f, -1.5625f, -1.5625f, 1.0f, 1.0f, -2.0f, -INFINITY, 0.5f, 0.25f,
                                 -3e38f, 3e38f, 0.0f };
                float p3[12];
                for (int k = 0; k < 3; k++) {
                    CHECK(run_map(kind, p3, x3, 4, 3, al, ts[k]) == SX_OK, "n=3 tiny T");
                    for (int r = 0; r < 4; r++)
                        CHECK(on_simplex(p3 + 3 * r, 3, 0, 1e-5), "%s n=3 T=%g row %d on simplex", nm, ts[k], r);
                    CHECK(p3[0] == 1.0f && p3[7] == 1.0f && p3[10] == 1.0f, "%s n=3 T=%g vertex", nm, ts[k]);
                    CHECK_NEAR(p3[3], 0.5, 1e-6, "%s n=3 T=%g ties split", nm, ts[k]);
                }
            }
            /* rows = 0, NULL buffers allowed */
            CHECK(run_map(kind, NULL, NULL, 0, 5, al, 1.0f) == SX_OK, "%s rows=0", nm);
            CHECK(run_backward(kind, NULL, NULL, NULL, 0, 5, al, 1.0f) == SX_OK, "%s rows=0 backward", nm);
            /* n = 1 */
            float x1 = -123.0f;
            run_map(kind, p, &x1, 1, 1, al, 1.0f);
            CHECK(p[0] == 1.0f, "%s n=1", nm);
        }
    }
    float dal[2], x1[2] = { -INFINITY, -INFINITY }, g1[2] = { 1, 2 };
    CHECK(sx_entmax_alpha_grad(dal, x1, g1, 1, 2, 1.3f, 1.0f) == SX_OK && dal[0] == 0.0f, "alpha grad all masked");
    CHECK(sx_entmax_alpha_grad(dal, x1, g1, 1, 2, 1.0f, 1.0f) == SX_OK && dal[0] == 0.0f, "alpha grad all masked, 1");
}

/* ---------------------------------------------------------------- errors */
#define EXPECT_ERR(call, status, msg, index) do { \
    int st_ = (call); \
    CHECK(st_ == (status), "%s returned %d, expected %d", #call, st_, (status)); \
    CHECK(!strcmp(sx_last_error(), (msg)), "%s: message \"%s\", expected \"%s\"", #call, sx_last_error(), (msg)); \
    CHECK(sx_last_error_index() == (index), "%s: index %d, expected %d", #call, sx_last_error_index(), (index)); \
} while (0)

static void test_errors(void) {
    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, g[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, p[8];
    for (int kind = 0; kind < 4; kind++) {
        EXPECT_ERR(run_map(kind, p, x, 2, 0, 1.5f, 1.0f), SX_EINVAL, "n must be >= 1 (got 0)", -1);
        EXPECT_ERR(run_map(kind, p, x, -1, 4, 1.5f, 1.0f), SX_EINVAL, "rows must be >= 0 (got -1)", -1);
        EXPECT_ERR(run_map(kind, NULL, x, 2, 4, 1.5f, 1.0f), SX_EINVAL, "null buffer (out)", -1);
        EXPECT_ERR(run_map(kind, p, NULL, 2, 4, 1.5f, 1.0f), SX_EINVAL, "null buffer (x)", -1);
        EXPECT_ERR(run_map(kind, p, x, 2, 4, 1.5f, 0.0f), SX_EINVAL, "temperature must be finite and > 0 (got 0)", -1);
        EXPECT_ERR(run_map(kind, p, x, 2, 4, 1.5f, -2.5f), SX_EINVAL,
                   "temperature must be finite and > 0 (got -2.5)", -1);
        EXPECT_ERR(run_map(kind, p, x, 2, 4, 1.5f, NAN), SX_EINVAL, "temperature must be finite and > 0 (got NaN)", -1);
        EXPECT_ERR(run_map(kind, p, x, 2, 4, 1.5f, INFINITY), SX_EINVAL,
                   "temperature must be finite and > 0 (got Infinity)", -1);
        EXPECT_ERR(run_backward(kind, p, x, NULL, 2, 4, 1.5f, 1.0f), SX_EINVAL, "null buffer (dy)", -1);
        /* bad scores: nothing written */
        float bad[8] = { 1, 2, 3, 4, 5, 6, NAN, 8 };
        for (int i = 0; i < 8; i++) p[i] = 42.0f;
        EXPECT_ERR(run_map(kind, p, bad, 2, 4, 1.7f, 1.0f), SX_ENONFINITE, "x[6] must be finite or -Infinity (got NaN)", 6);
        for (int i = 0; i < 8; i++) CHECK(p[i] == 42.0f, "%s wrote before failing", kind_name[kind]);
        bad[6] = INFINITY;
        EXPECT_ERR(run_map(kind, p, bad, 2, 4, 1.7f, 1.0f), SX_ENONFINITE,
                   "x[6] must be finite or -Infinity (got Infinity)", 6);
        bad[6] = 7;
        CHECK(run_backward(kind, p, bad, bad, 2, 4, 1.7f, 1.0f) == SX_OK, "finite dy is fine");
        float gb[8] = { 1, 1, 1, -INFINITY, 1, 1, 1, 1 };
        EXPECT_ERR(run_backward(kind, p, x, gb, 2, 4, 1.7f, 1.0f), SX_ENONFINITE, "dy[3] must be finite (got -Infinity)", 3);
        gb[3] = NAN;
        EXPECT_ERR(run_backward(kind, p, x, gb, 2, 4, 1.7f, 1.0f), SX_ENONFINITE, "dy[3] must be finite (got NaN)", 3);
        bad[2] = NAN;
        EXPECT_ERR(run_backward(kind, p, bad, g, 2, 4, 1.7f, 1.0f), SX_ENONFINITE, "x[2] must be finite or -Infinity (got NaN)", 2);
    }
    EXPECT_ERR(sx_entmax(p, x, 2, 4, 0.5f, 1.0f), SX_EINVAL, "alpha must be >= 1 (got 0.5)", -1);
    EXPECT_ERR(sx_entmax(p, x, 2, 4, NAN, 1.0f), SX_EINVAL, "alpha must be >= 1 (got NaN)", -1);
    EXPECT_ERR(sx_entmax(p, x, 2, 4, INFINITY, 1.0f), SX_EINVAL, "alpha must be finite (got Infinity)", -1);
    EXPECT_ERR(sx_entmax(p, x, 2, 4, -INFINITY, 1.0f), SX_EINVAL, "alpha must be >= 1 (got -Infinity)", -1);
    EXPECT_ERR(sx_entmax_backward(p, x, g, 2, 4, 0.999f, 1.0f), SX_EINVAL, "alpha must be >= 1 (got 0.999)", -1);
    EXPECT_ERR(sx_entmax_alpha_grad(p, x, g, 2, 4, 0.0f, 1.0f), SX_EINVAL, "alpha must be >= 1 (got 0)", -1);
    EXPECT_ERR(sx_entmax_alpha_grad(p, x, NULL, 2, 4, 1.5f, 1.0f), SX_EINVAL, "null buffer (dy)", -1);
    EXPECT_ERR(sx_entmax_alpha_grad(NULL, x, g, 2, 4, 1.5f, 1.0f), SX_EINVAL, "null buffer (dalpha)", -1);
    EXPECT_ERR(sx_entmax_alpha_grad(p, x, g, 2, 4, 1.5f, 0.0f), SX_EINVAL, "temperature must be finite and > 0 (got 0)", -1);
    /* entropy */
    float pr[6] = { 0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f }, h[2];
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, 0.0f), SX_EINVAL, "alpha must be finite and > 0 (got 0)", -1);
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, -1.0f), SX_EINVAL, "alpha must be finite and > 0 (got -1)", -1);
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, INFINITY), SX_EINVAL, "alpha must be finite and > 0 (got Infinity)", -1);
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 0, 1.0f), SX_EINVAL, "n must be >= 1 (got 0)", -1);
    EXPECT_ERR(sx_tsallis_entropy(NULL, pr, 2, 3, 1.0f), SX_EINVAL, "null buffer (h)", -1);
    pr[4] = -0.25f;
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, 1.0f), SX_ENONFINITE, "p[4] must be finite and >= 0 (got -0.25)", 4);
    pr[4] = NAN;
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, 1.0f), SX_ENONFINITE, "p[4] must be finite and >= 0 (got NaN)", 4);
    pr[4] = INFINITY;
    EXPECT_ERR(sx_tsallis_entropy(h, pr, 2, 3, 1.0f), SX_ENONFINITE, "p[4] must be finite and >= 0 (got Infinity)", 4);
    CHECK(!strcmp(sx_status_str(SX_ENONFINITE), "non-finite value"), "status string");
}

/* ---------------------------------------------------------- gradients */
/* <g, ref(z)> for the mapping of `kind` */
static double ref_obj(int kind, double alpha, const double *z, const double *g, int n) {
    double p[128], s = 0.0;
    switch (kind) {
    case SOFTMAX: ref_softmax(p, z, n); break;
    case SPARSEMAX: ref_sparsemax(p, z, n); break;
    case ENTMAX15: ref_entmax15(p, z, n); break;
    default: ref_entmax(p, z, n, alpha); break;
    }
    for (int i = 0; i < n; i++) s += p[i] * g[i];
    return s;
}

static void support_of(int kind, double alpha, const double *z, int n, int *sup) {
    double p[128];
    switch (kind) {
    case SOFTMAX: ref_softmax(p, z, n); break;
    case SPARSEMAX: ref_sparsemax(p, z, n); break;
    case ENTMAX15: ref_entmax15(p, z, n); break;
    default: ref_entmax(p, z, n, alpha); break;
    }
    for (int i = 0; i < n; i++) sup[i] = p[i] > 1e-9;
}

static void test_gradients(void) {
    const double alphas[] = { 1.2, 1.7, 2.5 };
    int checked = 0;
    for (int kind = 0; kind < 6; kind++) {
        int k = kind < 3 ? kind : ENTMAX;
        double alpha = kind < 3 ? kind_alpha(kind, 0) : alphas[kind - 3];
        for (int trial = 0; trial < 12; trial++) {
            int n = 2 + (int)(urand() * 40);
            float x[128], gf[128], dx[128];
            double z[128], g[128], zz[128];
            const float t = trial % 3 == 0 ? 0.5f : 1.0f;
            fill_row(x, n, 1.0, trial % 4 == 1 ? 0.15 : 0.0);
            x[0] = 0.5f;
            for (int i = 0; i < n; i++) { gf[i] = (float)nrand(); g[i] = gf[i]; z[i] = (double)x[i] / t; }
            int sup[128], sp[128], sm[128];
            const double h = 1e-6;
            support_of(k, alpha, z, n, sup);
            int stable = 1;
            for (int i = 0; i < n && stable; i++) {
                if (x[i] == -INFINITY) continue;
                memcpy(zz, z, sizeof(double) * n);
                zz[i] += 100 * h;
                support_of(k, alpha, zz, n, sp);
                zz[i] -= 200 * h;
                support_of(k, alpha, zz, n, sm);
                for (int j = 0; j < n; j++) stable &= sp[j] == sup[j] && sm[j] == sup[j];
            }
            if (!stable) continue; /* near a support change: not differentiable there */
            CHECK(run_backward(k, dx, x, gf, 1, n, (float)alpha, t) == SX_OK, "backward");
            double worst = 0.0;
            for (int i = 0; i < n; i++) {
                double fd = 0.0;
                if (x[i] != -INFINITY) {
                    memcpy(zz, z, sizeof(double) * n);
                    zz[i] += h;
                    double fp = ref_obj(k, alpha, zz, g, n);
                    zz[i] -= 2 * h;
                    double fm = ref_obj(k, alpha, zz, g, n);
                    fd = (fp - fm) / (2 * h) / t;
                }
                worst = fmax(worst, fabs(fd - dx[i]));
            }
            CHECK(worst < 2e-5 * (1.0 / t), "%s alpha %g backward vs central differences: %g (n=%d)", kind_name[k],
                  alpha, worst, n);
            /* closed-form reference Jacobian too */
            double p[128], dref[128];
            ref_map(k, p, x, n, alpha, t);
            if (k == SOFTMAX) ref_softmax_backward(dref, p, g, n);
            else ref_entmax_backward(dref, p, g, n, alpha);
            worst = 0.0;
            for (int i = 0; i < n; i++) worst = fmax(worst, fabs(dref[i] / t - dx[i]));
            CHECK(worst < 1e-5 / t, "%s alpha %g backward vs closed form: %g", kind_name[k], alpha, worst);
            checked++;
        }
    }
    CHECK(checked >= 40, "only %d gradient checks ran", checked);

    /* batched backward with rows and T, through n = 3 and general n */
    {
        enum { R = 9, N = 3 };
        float x[R * N], gf[R * N], dx[R * N];
        for (int i = 0; i < R * N; i++) { x[i] = (float)nrand(); gf[i] = (float)nrand(); }
        for (int kind = 0; kind < 3; kind++) {
            sx_softmax_backward(dx, x, gf, R, N, 2.0f);
            CHECK(run_backward(kind, dx, x, gf, R, N, 0, 2.0f) == SX_OK, "batched backward");
            for (int r = 0; r < R; r++) {
                double p[N], g[N], dref[N];
                for (int i = 0; i < N; i++) g[i] = gf[r * N + i];
                ref_map(kind, p, x + r * N, N, kind_alpha(kind, 0), 2.0);
                if (kind == SOFTMAX) ref_softmax_backward(dref, p, g, N);
                else ref_entmax_backward(dref, p, g, N, kind_alpha(kind, 0));
                for (int i = 0; i < N; i++) CHECK_NEAR(dx[r * N + i], dref[i] / 2.0, 1e-6, "%s batched row %d", kind_name[kind], r);
            }
        }
    }

    /* d/d alpha vs central differences of the long-double reference */
    const double as[] = { 1.001, 1.01, 1.1, 1.3, 1.5, 1.8, 2.0, 2.5, 3.5 };
    for (size_t a = 0; a < sizeof as / sizeof as[0]; a++)
        for (int trial = 0; trial < 4; trial++) {
            int n = 3 + (int)(urand() * 20);
            float x[64], gf[64], da;
            double z[64], g[64];
            const float t = trial % 2 ? 0.7f : 1.0f;
            fill_row(x, n, 1.0, trial == 3 ? 0.2 : 0.0);
            x[1] = 0.3f;
            for (int i = 0; i < n; i++) { gf[i] = (float)nrand(); g[i] = gf[i]; z[i] = (double)x[i] / t; }
            float af = (float)as[a];
            CHECK(sx_entmax_alpha_grad(&da, x, gf, 1, n, af, t) == SX_OK, "alpha grad");
            double h = 1e-5 * (af - 1.0);
            double fd = ref_entmax_alpha_grad_fd(z, g, n, af, h);
            /* skip if a support change sits inside [alpha - h, alpha + h] */
            double pp[64], pm[64];
            ref_entmax_bisect(pp, z, n, af + h);
            ref_entmax_bisect(pm, z, n, af - h);
            int same = 1;
            for (int i = 0; i < n; i++) same &= (pp[i] > 0) == (pm[i] > 0);
            if (!same) continue;
            CHECK(fabs(fd - da) < 1e-4 * fmax(1.0, fabs(fd)), "alpha grad at %g: %.9g vs finite differences %.9g (n=%d)",
                  af, da, fd, n);
        }
    /* alpha = 1: the limit; continuous with alpha = 1 + 1 ulp and matching one-sided differences */
    for (int trial = 0; trial < 10; trial++) {
        int n = 2 + (int)(urand() * 30);
        float x[64], gf[64], d1, d2;
        double z[64], g[64], p0[64], p1[64];
        fill_row(x, n, 1.5, trial % 3 == 2 ? 0.2 : 0.0);
        x[0] = 0.1f;
        for (int i = 0; i < n; i++) { gf[i] = (float)nrand(); g[i] = gf[i]; z[i] = x[i]; }
        sx_entmax_alpha_grad(&d1, x, gf, 1, n, 1.0f, 1.0f);
        sx_entmax_alpha_grad(&d2, x, gf, 1, n, 1.0000001f, 1.0f);
        CHECK(isfinite(d1) && isfinite(d2), "alpha grad finite near 1");
        CHECK(fabs(d1 - d2) < 1e-5 * fmax(1.0, fabs(d1)), "alpha grad at 1 (%.9g) vs 1+ulp (%.9g)", d1, d2);
        /* Richardson on one-sided differences: (4 D(h/2) - D(h)) / 3, error O(h^2) */
        double h = 1e-4, f0 = 0, fh = 0, fh2 = 0;
        ref_softmax(p0, z, n);
        for (int i = 0; i < n; i++) f0 += g[i] * p0[i];
        ref_entmax_bisect(p1, z, n, 1.0 + h);
        for (int i = 0; i < n; i++) fh += g[i] * p1[i];
        ref_entmax_bisect(p1, z, n, 1.0 + h / 2);
        for (int i = 0; i < n; i++) fh2 += g[i] * p1[i];
        double est = (4 * (fh2 - f0) / (h / 2) - (fh - f0) / h) / 3;
        CHECK(fabs(est - d1) < 1e-4 * fmax(1.0, fabs(d1)), "alpha grad at 1: %.9g vs differences %.9g", d1, est);
    }
    /* huge alpha: finite */
    float x[6] = { 1, 2, 2, -1, 0.5f, 3 }, gf[6] = { 1, -2, 3, 0.5f, 1, -1 }, da;
    const float big[] = { 10.0f, 1e6f, 3e38f };
    for (int k = 0; k < 3; k++) {
        CHECK(sx_entmax_alpha_grad(&da, x, gf, 1, 6, big[k], 1.0f) == SX_OK && isfinite(da), "alpha grad %g", big[k]);
        float dx[6];
        CHECK(sx_entmax_backward(dx, x, gf, 1, 6, big[k], 1.0f) == SX_OK, "backward huge alpha");
        for (int i = 0; i < 6; i++) CHECK(isfinite(dx[i]), "backward huge alpha %g finite", big[k]);
    }
}

/* --------------------------------------------------------------- entropy */
static void test_entropy(void) {
    const float alphas[] = { 0.5f, 1.0f, 1.0001f, 1.5f, 2.0f, 3.0f };
    for (int a = 0; a < 6; a++)
        for (int trial = 0; trial < 20; trial++) {
            int n = 1 + (int)(urand() * 50);
            float p[64], h;
            double pd[64], s = 0.0;
            for (int i = 0; i < n; i++) { pd[i] = urand() < 0.2 ? 0.0 : urand(); s += pd[i]; }
            for (int i = 0; i < n; i++) { p[i] = trial % 2 ? (float)(s > 0 ? pd[i] / s : 0) : (float)pd[i]; pd[i] = p[i]; }
            CHECK(sx_tsallis_entropy(&h, p, 1, n, alphas[a]) == SX_OK, "entropy");
            double want = ref_tsallis(pd, n, (double)alphas[a]);
            CHECK_NEAR(h, want, 1e-5 * fmax(1.0, fabs(want)), "tsallis alpha %g n=%d", alphas[a], n);
        }
    /* closed forms: uniform over n: Shannon log n, Tsallis (1 - n^(1 - alpha)) / (alpha (alpha - 1)) */
    float u[8] = { 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f }, h[2];
    sx_tsallis_entropy(h, u, 2, 4, 1.0f);
    CHECK_NEAR(h[0], 0.5 * log(8.0), 1e-6, "shannon of 4 x 1/8");
    CHECK_NEAR(h[1], 0.5 * log(8.0), 1e-6, "shannon of 4 x 1/8, row 2");
    const float one[3] = { 1.0f, 0.0f, 0.0f }, third[3] = { 1.0f / 3, 1.0f / 3, 1.0f / 3 };
    for (int a = 0; a < 6; a++) {
        sx_tsallis_entropy(h, one, 1, 3, alphas[a]);
        CHECK_NEAR(h[0], 0.0, 1e-7, "vertex has zero entropy (alpha %g)", alphas[a]);
        /* 1/4, 1/4, 1/2 sums to 1 exactly in float */
        const float q3[3] = { 0.25f, 0.25f, 0.5f };
        sx_tsallis_entropy(h, q3, 1, 3, alphas[a]);
        double al = alphas[a];
        double want = al == 1.0 ? 1.5 * log(2.0)
                                : (1.0 - 2 * pow(0.25, al) - pow(0.5, al)) / (al * (al - 1.0));
        CHECK_NEAR(h[0], want, 1e-6, "1/4 1/4 1/2 (alpha %g)", al);
        sx_tsallis_entropy(h, third, 1, 3, alphas[a]);
        double p3 = third[0], s3 = 3 * p3;
        want = al == 1.0 ? -s3 * log(p3) : (s3 - 3 * pow(p3, al)) / (al * (al - 1.0));
        CHECK_NEAR(h[0], want, 1e-6 * fmax(1.0, fabs(want)), "float thirds (alpha %g)", al);
    }
    /* float thirds sum to 1 only within rounding: the entropy is still continuous at alpha = 1 */
    sx_tsallis_entropy(h, third, 1, 3, 1.0000001f);
    CHECK_NEAR(h[0], log(3.0), 1e-5, "float thirds, alpha 1 + 1 ulp, is Shannon");
    const float q3[3] = { 0.25f, 0.25f, 0.5f };
    sx_tsallis_entropy(h, q3, 1, 3, 1.0000001f);
    CHECK_NEAR(h[0], 1.5 * log(2.0), 1e-6, "alpha 1 + 1 ulp is Shannon");
    CHECK(sx_tsallis_entropy(NULL, NULL, 0, 3, 2.0f) == SX_OK, "entropy rows = 0");
}

/* Huge dy: the mean of dy over the support overflows a float sum, and dy - mean overflows
   before the 1/T scale; the true gradient (finite at a large T) must come out finite, masked
   entries exactly 0 (sparsemax, 1.5-entmax). */
static void test_huge_dy(void) {
    const float x[3] = { 1.0f, 1.0f, 0.9f }, dy[3] = { 3e38f, -3e38f, -3e38f }, same[3] = { -2.7e38f, -2.7e38f, -2.7e38f };
    float dx[3];
    CHECK(sx_sparsemax_backward(dx, x, dy, 1, 3, 3.4e38f) == SX_OK, "sparsemax backward");
    CHECK(isfinite(dx[0]) && isfinite(dx[1]) && isfinite(dx[2]), "huge dy at T = FLT_MAX: finite (got %g %g %g)", dx[0], dx[1], dx[2]);
    CHECK(dx[0] > 1.0f && dx[1] < -0.5f, "and the right signs (got %g %g %g)", dx[0], dx[1], dx[2]);
    CHECK(sx_sparsemax_backward(dx, x, same, 1, 3, 1.0f) == SX_OK && dx[0] == 0.0f && dx[1] == 0.0f && dx[2] == 0.0f,
          "equal huge dy: exactly 0 (got %g %g %g)", dx[0], dx[1], dx[2]);

    /* 1.5-entmax: the float sum s dy overflowed to +-Infinity, the mean with it, and masked
       entries got 0 * Infinity = NaN (fuzzer find: denormal T, dy -1.9e38) */
    const float xm[5] = { 0.0f, 0.0f, 0.0f, 0.0f, -INFINITY }, gm[5] = { 3e38f, 3e38f, 3e38f, -1e38f, 1e38f };
    float d5[5];
    CHECK(sx_entmax15_backward(d5, xm, gm, 1, 5, 1.0f) == SX_OK, "entmax15 backward huge dy");
    CHECK(d5[4] == 0.0f, "entmax15 huge dy: masked entry exactly 0 (got %g)", d5[4]);
    /* p = 1/4 each, s = 1/2, mean 2e38: dx = (3e38 - 2e38) / 2 and (-1e38 - 2e38) / 2 */
    CHECK_NEAR(d5[0], 0.5e38, 1e32, "entmax15 huge dy: support entry");
    CHECK_NEAR(d5[3], -1.5e38, 1e32, "entmax15 huge dy: support entry");
    const float xd[8] = { -INFINITY, -INFINITY, 0x1.cp-147f, 0x1.cp-147f, -0x1p-146f, -0x1p-146f, -0x1p-146f, -0x1p-148f };
    float gd[8], d8[8];
    for (int i = 0; i < 8; i++) gd[i] = -0x1.255d1ap+127f;
    gd[0] = -0x1.0000acp-107f;
    CHECK(sx_entmax15_backward(d8, xd, gd, 1, 8, 0x1p-149f) == SX_OK, "entmax15 backward T = 1e-45");
    int ok = 1;
    for (int i = 0; i < 8; i++) ok &= d8[i] == 0.0f;
    CHECK(ok, "entmax15, T = 1e-45, dy -1.9e38 equal on the support: masked 0, support exactly 0 "
          "(got %g %g %g %g)", d8[0], d8[1], d8[2], d8[7]);
    /* dy - mean overflows before the 1/T scale: at T = FLT_MAX the gradient is finite */
    CHECK(sx_entmax15_backward(dx, x, dy, 1, 3, 3.4e38f) == SX_OK, "entmax15 backward T = FLT_MAX");
    CHECK(isfinite(dx[0]) && isfinite(dx[1]) && isfinite(dx[2]) && dx[0] > 0.5f && dx[1] < -0.1f,
          "entmax15 huge dy at T = FLT_MAX: finite, right signs (got %g %g %g)", dx[0], dx[1], dx[2]);
}

int main(void) {
    test_huge_dy();
    test_golden();
    test_ref_consistency();
    test_cross();
    test_alpha_limits();
    test_small_n();
    test_properties();
    test_edges();
    test_errors();
    test_gradients();
    test_entropy();
    return sx_test_summary("test_dense");
}
