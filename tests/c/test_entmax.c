/* test_entmax.c - the 1 < alpha < 2 solver of alpha-entmax (core/src/entmax.c: the q-norm Newton
   over the candidates X > -1, the float search, the powers over the candidates alone) against the
   long-double bisection reference: alpha next to 1, 1.5 and 2, n = 1, 2, 3 and across the float
   search's threshold (16) up to 4096, ties at the candidate threshold X = -1 and at the support's
   edge, masks, |x| up to 1e4 and 1e30, T from 1e-6; the backward pass and the alpha gradient on
   the same rows; flat rows (the dense path) within 1e-6. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"
#include "ref.h"

#define SX_TEST_SEED 0x243F6A8885A308D3ull
#include "prng.h"

/* Max |p - ref| over one row (Infinity for a NaN, a nonzero masked entry or p off the simplex). */
static double row_error(const float *p, const float *x, int n, float alpha, float t) {
    double *z = malloc(sizeof(double) * (size_t)n), *q = malloc(sizeof(double) * (size_t)n);
    if (n < 1 || !z || !q) { free(z); free(q); return INFINITY; } /* callers pass n >= 1 */
    int all_masked = 1;
    for (int i = 0; i < n; i++) {
        z[i] = (double)x[i] / (double)t;
        all_masked &= x[i] == -INFINITY;
    }
    ref_entmax(q, z, n, (double)alpha);
    double worst = 0.0, s = 0.0;
    for (int i = 0; i < n; i++) {
        double e = fabs((double)p[i] - q[i]);
        if (!(e <= worst)) worst = e; /* NaN sticks */
        if ((x[i] == -INFINITY && p[i] != 0.0f) || !(p[i] >= 0.0f)) worst = INFINITY;
        s += p[i];
    }
    if (all_masked ? s != 0.0 : !(fabs(s - 1.0) <= 1e-5)) worst = INFINITY;
    free(z);
    free(q);
    return worst;
}

/* rows of n scores, scale * N(0, 1), a fraction masked; returns the worst row error */
static double check_rows(float alpha, int n, int rows, double scale, float t, double mask_frac) {
    float *x = malloc(sizeof(float) * (size_t)rows * n), *p = malloc(sizeof(float) * (size_t)rows * n);
    for (int i = 0; i < rows * n; i++) x[i] = urand() < mask_frac ? -INFINITY : (float)(scale * nrand());
    double worst = 0.0;
    if (sx_entmax(p, x, rows, n, alpha, t) != SX_OK) worst = INFINITY;
    for (int r = 0; r < rows && worst < INFINITY; r++)
        worst = fmax(worst, row_error(p + (size_t)r * n, x + (size_t)r * n, n, alpha, t));
    free(x);
    free(p);
    return worst;
}

/* vs the reference over alpha next to 1, 1.5 and 2 and across (1, 2), n = 1 .. 4096 */
static void test_cross(void) {
    const float alphas[] = { 1.0000001f, 1.0001f, 1.01f, 1.1f, 1.3f, 1.4999f, 1.5001f, 1.7f, 1.99f, 1.9999f, 1.9999999f };
    const int ns[] = { 1, 2, 3, 4, 7, 15, 16, 17, 33, 128, 513, 4096 };
    const double scales[] = { 0.1, 1.0, 30.0, 1e4 };
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
                const int n = ns[k], rows = n >= 4096 ? 2 : n >= 128 ? 4 : 12;
                const float t = s == 2 ? 3.0f : 1.0f;
                double e = check_rows(alphas[a], n, rows, scales[s], t, s == 1 ? 0.25 : 0.0);
                CHECK(e < 1e-5, "alpha %.9g n=%d scale %g T %g: max abs error %g", alphas[a], n, scales[s], t, e);
            }
}

/* Ties at the candidate threshold: a top entry and n - 1 ties at X = -1 exactly (x = -T / (alpha - 1),
   exact in float for these alphas), where p = one-hot; one ulp above (a little mass for the ties)
   and below; and rows of many ties at a few levels, where the support's edge falls on a tie block. */
static void test_ties(void) {
    const float alphas[] = { 1.0625f, 1.125f, 1.25f, 1.75f };
    const int ns[] = { 2, 3, 16, 17, 300 };
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            const int n = ns[k];
            float *x = malloc(sizeof(float) * (size_t)n), *p = malloc(sizeof(float) * (size_t)n);
            const float v = -1.0f / (alphas[a] - 1.0f);
            const float vs[3] = { v, nextafterf(v, 0.0f), nextafterf(v, -INFINITY) };
            for (int w = 0; w < 3; w++) {
                for (int i = 0; i < n; i++) x[i] = vs[w];
                x[n / 2] = 0.0f;
                CHECK(sx_entmax(p, x, 1, n, alphas[a], 1.0f) == SX_OK, "ties");
                double e = row_error(p, x, n, alphas[a], 1.0f);
                CHECK(e < 1e-5, "alpha %g n=%d ties at X = -1 (%s): error %g", alphas[a], n,
                      w == 0 ? "exactly" : w == 1 ? "1 ulp above" : "1 ulp below", e);
                if (w != 1) CHECK(p[n / 2] == 1.0f, "alpha %g n=%d ties at or below X = -1: one-hot (got %g)", alphas[a], n, p[n / 2]);
            }
            /* every entry tied: uniform */
            for (int i = 0; i < n; i++) x[i] = 2.5f;
            CHECK(sx_entmax(p, x, 1, n, alphas[a], 1.0f) == SX_OK, "all tied");
            for (int i = 0; i < n; i++) CHECK_NEAR(p[i], 1.0 / n, 1e-6, "alpha %g n=%d all tied", alphas[a], n);
            /* a few levels, many ties each (quarter steps: the support's edge lands on a block) */
            for (int trial = 0; trial < 20; trial++) {
                const double step = 0.25 * (1 + trial % 4);
                for (int i = 0; i < n; i++) x[i] = (float)(step * floor(2.0 * nrand()));
                CHECK(sx_entmax(p, x, 1, n, alphas[a], 1.0f) == SX_OK, "tie levels");
                double e = row_error(p, x, n, alphas[a], 1.0f);
                CHECK(e < 1e-5, "alpha %g n=%d tie levels %g: error %g", alphas[a], n, step, e);
            }
            free(x);
            free(p);
        }
}

/* n = 1, 2, 3 by hand; extreme magnitudes and temperatures: no NaN, the argmax limit */
static void test_edges(void) {
    const float alphas[] = { 1.0000001f, 1.2f, 1.9999999f };
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
        const float al = alphas[a];
        float p[8];
        const float x1[1] = { -3.0f };
        CHECK(sx_entmax(p, x1, 1, 1, al, 1.0f) == SX_OK && p[0] == 1.0f, "alpha %g n=1: 1 (got %g)", al, p[0]);
        const float x2[2] = { 0.2f, -INFINITY };
        CHECK(sx_entmax(p, x2, 1, 2, al, 1.0f) == SX_OK && p[0] == 1.0f && p[1] == 0.0f, "alpha %g n=2 masked", al);
        const float x3[3] = { 1e30f, -1e30f, 1e30f };
        CHECK(sx_entmax(p, x3, 1, 3, al, 1.0f) == SX_OK, "1e30");
        CHECK(p[0] == 0.5f && p[1] == 0.0f && p[2] == 0.5f, "alpha %g +-1e30: ties split (got %g %g %g)", al, p[0], p[1], p[2]);
        const float x8[8] = { 1e4f, -1e4f, 9999.999f, 0.0f, -INFINITY, 1e4f, 3.0f, -2.0f };
        const float ts[] = { 1e-6f, 1e-3f, 1.0f, 1e4f, 3e38f };
        for (size_t t = 0; t < sizeof ts / sizeof ts[0]; t++) {
            CHECK(sx_entmax(p, x8, 1, 8, al, ts[t]) == SX_OK, "T");
            double e = row_error(p, x8, 8, al, ts[t]);
            CHECK(e < 1e-5, "alpha %.9g T %g: error %g", al, ts[t], e);
        }
        CHECK(sx_entmax(p, x8, 1, 8, al, 1e-6f) == SX_OK && p[0] == 0.5f && p[5] == 0.5f,
              "alpha %.9g T = 1e-6: the argmax ties split (got %g %g)", al, p[0], p[5]);
    }
}

/* The backward pass and the alpha gradient on rows the solver takes both ways (n < 16: double
   search alone; n >= 16: float search first), vs the closed-form Jacobian at the reference p and
   central differences of the reference in alpha. */
static void test_gradients(void) {
    const float alphas[] = { 1.01f, 1.2f, 1.7f, 1.99f };
    const int ns[] = { 5, 40, 300 };
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            const int n = ns[k];
            const float al = alphas[a], t = 0.8f;
            float *x = malloc(sizeof(float) * n), *gf = malloc(sizeof(float) * n), *dx = malloc(sizeof(float) * n);
            double *z = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n), *q = malloc(sizeof(double) * n),
                   *dref = malloc(sizeof(double) * n);
            for (int i = 0; i < n; i++) {
                x[i] = (float)(2.0 * nrand());
                gf[i] = (float)nrand();
                g[i] = gf[i];
                z[i] = (double)x[i] / t;
            }
            CHECK(sx_entmax_backward(dx, x, gf, 1, n, al, t) == SX_OK, "backward");
            ref_entmax(q, z, n, al);
            ref_entmax_backward(dref, q, g, n, al);
            double worst = 0.0, scale = 0.0;
            for (int i = 0; i < n; i++) {
                worst = fmax(worst, fabs(dref[i] / t - dx[i]));
                scale = fmax(scale, fabs(dref[i] / t));
            }
            CHECK(worst < 1e-5 * fmax(1.0, scale), "alpha %g n=%d backward vs closed form: %g", al, n, worst);
            float da;
            CHECK(sx_entmax_alpha_grad(&da, x, gf, 1, n, al, t) == SX_OK, "alpha grad");
            const double h = 1e-5 * (al - 1.0);
            double *pp = malloc(sizeof(double) * n), *pm = malloc(sizeof(double) * n);
            ref_entmax_bisect(pp, z, n, al + h);
            ref_entmax_bisect(pm, z, n, al - h);
            int same = 1;
            for (int i = 0; i < n; i++) same &= (pp[i] > 0) == (pm[i] > 0);
            if (same) {
                double fd = ref_entmax_alpha_grad_fd(z, g, n, al, h);
                CHECK(fabs(fd - da) < 1e-4 * fmax(1.0, fabs(fd)), "alpha grad at %g n=%d: %.9g vs finite differences %.9g",
                      al, n, da, fd);
            }
            free(pp);
            free(pm);
            free(x);
            free(gf);
            free(dx);
            free(z);
            free(g);
            free(q);
            free(dref);
        }
}

/* Issue 14's paths held to today's accuracy (max abs error 1.5e-7 against the reference, not
   just the 1e-5 of the tests above): the n = 3 kernel (alpha in [1.125, 2), four rows at a time,
   a partial last group; masks, rows wholly masked, ties, 1e30 and tiny spreads, T), its edges
   (alpha just below 1.125 takes the general path), the start estimate and the float parts of the
   double pass on near-uniform and peaked rows of n = 16 .. 4096. */
static void test_tight(void) {
    const double tol = 1.5e-7;
    const float alphas3[] = { 1.1249999f, 1.125f, 1.13f, 1.2f, 1.3f, 1.4999f, 1.6f, 1.75f, 1.9f, 1.99f, 1.9999999f };
    const double scales[] = { 1e-7, 0.01, 0.3, 1.0, 3.0, 30.0, 1e30 };
    for (size_t a = 0; a < sizeof alphas3 / sizeof alphas3[0]; a++)
        for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
            for (int rows = 1; rows <= 9; rows += 4) {
                const float t = s == 4 ? 0.25f : 1.0f;
                double e = check_rows(alphas3[a], 3, rows * 50 + rows % 4, scales[s], t, s == 3 ? 0.3 : 0.0);
                CHECK(e < tol, "n=3 alpha %.9g scale %g T %g: max abs error %g", alphas3[a], scales[s], t, e);
            }
    /* n = 3 across temperatures (X = (alpha - 1)(x - max) / T from 1e-38 to 1e10 in size) */
    {
        const float ts[] = { 1e-6f, 1e-3f, 1e4f, 3e38f };
        for (size_t t = 0; t < sizeof ts / sizeof ts[0]; t++)
            for (size_t a = 0; a < sizeof alphas3 / sizeof alphas3[0]; a += 3) {
                double e = check_rows(alphas3[a], 3, 41, t == 0 ? 1.0 : 1e4, ts[t], 0.1);
                CHECK(e < tol, "n=3 alpha %.9g T %g: max abs error %g", alphas3[a], ts[t], e);
            }
    }
    /* n = 3: ties, two and three masked, one-hot at the support edge */
    {
        const float rows3[] = { 1, 1, 1, 1, 1, -2, 0, -INFINITY, 5, -INFINITY, -INFINITY, 7, -INFINITY, -INFINITY, -INFINITY,
                                2, 2, -3, 0, -1.0f / 0.3f, -1.0f / 0.3f, 1e30f, -1e30f, 1e30f, 0, 1e-30f, -1e-30f };
        float p[27];
        const float al[] = { 1.3f, 1.7f };
        for (int k = 0; k < 2; k++) {
            CHECK(sx_entmax(p, rows3, 9, 3, al[k], 1.0f) == SX_OK, "n=3 rows");
            for (int r = 0; r < 9; r++) {
                double e = row_error(p + 3 * r, rows3 + 3 * r, 3, al[k], 1.0f);
                CHECK(e < tol, "n=3 alpha %g hand row %d (%g %g %g): error %g", al[k], r, rows3[3 * r], rows3[3 * r + 1],
                      rows3[3 * r + 2], e);
            }
            CHECK(p[12] == 0.0f && p[13] == 0.0f && p[14] == 0.0f, "n=3 alpha %g: a wholly masked row gives zeros", al[k]);
            CHECK(p[0] == p[1] && p[1] == p[2], "n=3 alpha %g: ties equal (%g %g %g)", al[k], p[0], p[1], p[2]);
            CHECK(p[21] == 0.5f && p[23] == 0.5f, "n=3 alpha %g: 1e30 ties split (%g %g)", al[k], p[21], p[23]);
        }
    }
    /* longer rows: near-uniform (every p small: the float part of the double pass), peaked, masked */
    const float alphas[] = { 1.0001f, 1.1f, 1.3f, 1.5001f, 1.8f, 1.9999f };
    const int ns[] = { 16, 64, 128, 512, 4096 };
    const double spreads[] = { 1e-6, 0.01, 0.1, 1.0, 5.0 };
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (size_t s = 0; s < sizeof spreads / sizeof spreads[0]; s++) {
                const int n = ns[k], rows = n >= 4096 ? 2 : n >= 512 ? 4 : 10;
                double e = check_rows(alphas[a], n, rows, spreads[s], 1.0f, s == 2 ? 0.2 : 0.0);
                CHECK(e < tol, "alpha %.9g n=%d spread %g: max abs error %g", alphas[a], n, spreads[s], e);
            }
}

/* Flat rows (issue 26: the dense path, tau from the row's moments and one power pass checked by
   a Newton step): near-uniform rows, an offset plus tiny noise, a tail past a multiple of 4, a
   tenth masked, single rows and batches, against the reference within 1e-6 (today's worst is
   ~3e-8): the path's float powers, its binomial move and its fall-back to the general search
   (an entry at the support's edge) all show here. */
static void test_flat(void) {
    const float alphas[] = { 1.02f, 1.1f, 1.3f, 1.4999f, 1.7f, 1.95f };
    const int ns[] = { 16, 33, 127, 130, 1000 };
    const double spreads[] = { 1e-4, 3e-3, 0.03, 0.1, 0.3 };
    double worst = 0.0;
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (size_t s = 0; s < sizeof spreads / sizeof spreads[0]; s++)
                for (int v = 0; v < 3; v++) {
                    const int n = ns[k], rows = v == 2 ? 1 : 6;
                    float *x = malloc(sizeof(float) * (size_t)rows * n), *p = malloc(sizeof(float) * (size_t)rows * n);
                    for (int i = 0; i < rows * n; i++)
                        x[i] = v == 1 && urand() < 0.1 ? -INFINITY : (float)((v == 0 ? 0.7 : 0.0) + spreads[s] * nrand());
                    double e = sx_entmax(p, x, rows, n, alphas[a], 1.0f) == SX_OK ? 0.0 : INFINITY;
                    for (int r = 0; r < rows && e < INFINITY; r++)
                        e = fmax(e, row_error(p + (size_t)r * n, x + (size_t)r * n, n, alphas[a], 1.0f));
                    CHECK(e < 1e-6, "flat rows: alpha %.9g n=%d spread %g variant %d: max abs error %g", alphas[a], n,
                          spreads[s], v, e);
                    worst = fmax(worst, e);
                    free(x);
                    free(p);
                }
    printf("test_entmax: flat rows, worst abs error %.3g\n", worst);
}

int main(void) {
    test_flat();
    test_tight();
    test_edges();
    test_ties();
    test_cross();
    test_gradients();
    return sx_test_summary("test_entmax");
}
