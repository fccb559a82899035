/* test_jacobian.c - sx_jacobian and sx_threshold (core/src/jacobian.c): the Jacobian against
   central differences in double of the float64 references (ref.c, ref_structured.c) away from
   support changes, J^T dy against every backward pass, symmetry and zero row / column sums, the
   lecture's example (sparsemax's Jacobian depends on the support only), masks, errors; tau
   against the forward pass (p rebuilt from tau, on the simplex). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"
#include "ref.h"
#include "ref_structured.h"

#define SX_TEST_SEED 0x6A09E667F3BCC908ull
#include "prng.h"

#define MAXN 16

typedef struct { int map; float param; const char *name; } mapcase;
static const mapcase CASES[] = {
    { SX_MAP_SOFTMAX, 0.0f, "softmax" },     { SX_MAP_SPARSEMAX, 0.0f, "sparsemax" },
    { SX_MAP_ENTMAX15, 0.0f, "entmax15" },   { SX_MAP_ENTMAX, 1.25f, "entmax 1.25" },
    { SX_MAP_ENTMAX, 1.5f, "entmax 1.5" },   { SX_MAP_ENTMAX, 2.0f, "entmax 2" },
    { SX_MAP_ENTMAX, 1.0f, "entmax 1" },     { SX_MAP_ENTMAX, 3.0f, "entmax 3" },
    { SX_MAP_FUSEDMAX, 0.3f, "fusedmax 0.3" }, { SX_MAP_FUSEDMAX, 0.0f, "fusedmax 0" },
    { SX_MAP_OSCARMAX, 0.1f, "oscarmax 0.1" },
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

/* ------------------------------------------------------------------ helpers */
/* The float64 reference of a mapping of raw scores x at temperature t. */
static void ref_map(double *p, const double *x, int n, const mapcase *c, double t) {
    double z[MAXN];
    for (int i = 0; i < n; i++) z[i] = x[i] / t;
    switch (c->map) {
    case SX_MAP_SOFTMAX: ref_softmax(p, z, n); break;
    case SX_MAP_SPARSEMAX: ref_sparsemax(p, z, n); break;
    case SX_MAP_ENTMAX15: ref_entmax15(p, z, n); break;
    case SX_MAP_ENTMAX: ref_entmax(p, z, n, c->param); break;
    case SX_MAP_FUSEDMAX: rs_fusedmax(p, x, n, c->param, t); break;
    default: rs_oscarmax(p, x, n, c->param, t); break;
    }
}

static int backward(float *dx, const float *x, const float *dy, int n, const mapcase *c, float t) {
    switch (c->map) {
    case SX_MAP_SOFTMAX: return sx_softmax_backward(dx, x, dy, 1, n, t);
    case SX_MAP_SPARSEMAX: return sx_sparsemax_backward(dx, x, dy, 1, n, t);
    case SX_MAP_ENTMAX15: return sx_entmax15_backward(dx, x, dy, 1, n, t);
    case SX_MAP_ENTMAX: return sx_entmax_backward(dx, x, dy, 1, n, c->param, t);
    case SX_MAP_FUSEDMAX: return sx_fusedmax_backward(dx, x, dy, 1, n, c->param, t);
    default: return sx_oscarmax_backward(dx, x, dy, 1, n, c->param, t);
    }
}

/* A row of n scores: N(0, 1) * scale, a few on a grid (ties, for fusedmax's runs), a few masked. */
static void random_row(float *x, int n, double scale, int masks) {
    for (int i = 0; i < n; i++) {
        x[i] = urand() < 0.2 ? (float)floor(urand() * 4.0) * 0.5f : (float)(scale * nrand());
        if (masks && n > 1 && urand() < 0.15) x[i] = -INFINITY;
    }
}

/* --------------------------------------------------- vs finite differences */
/* Column j of J by central differences (h = 1e-5) of the reference in double; a column whose
   second difference shows a kink (a support or a run changing within +-h) is skipped. */
static void test_finite_differences(void) {
    const int ns[] = { 1, 2, 3, 5, 8, 12 };
    const float ts[] = { 1.0f, 0.5f, 2.0f };
    for (int c = 0; c < NCASES; c++) {
        int tested = 0, skipped = 0;
        double worst = 0.0;
        for (int trial = 0; trial < 40; trial++) {
            const int n = ns[trial % 6];
            const float t = ts[trial % 3];
            float x[MAXN], J[MAXN * MAXN];
            random_row(x, n, 1.5, trial % 4 == 3);
            int st = sx_jacobian(J, x, 1, n, CASES[c].map, CASES[c].param, t);
            CHECK(st == SX_OK, "%s: %s", CASES[c].name, sx_last_error());
            if (st) continue;
            for (int j = 0; j < n; j++) {
                double xp[MAXN], xm[MAXN], p0[MAXN], pp[MAXN], pm[MAXN];
                const double h = 1e-5;
                if (x[j] == -INFINITY) { /* masked: column and row are 0 */
                    for (int i = 0; i < n; i++)
                        CHECK(J[i * n + j] == 0.0f && J[j * n + i] == 0.0f, "%s: masked %d", CASES[c].name, j);
                    continue;
                }
                for (int i = 0; i < n; i++) xp[i] = xm[i] = x[i];
                xp[j] += h;
                xm[j] -= h;
                ref_map(p0, xp, n, &CASES[c], t); /* reuse p0 as a scratch for the kink test */
                memcpy(pp, p0, sizeof pp);
                ref_map(pm, xm, n, &CASES[c], t);
                double xx[MAXN];
                for (int i = 0; i < n; i++) xx[i] = x[i];
                ref_map(p0, xx, n, &CASES[c], t);
                int kink = 0;
                for (int i = 0; i < n; i++) kink |= fabs(pp[i] - 2.0 * p0[i] + pm[i]) > 1e-8;
                if (kink) { skipped++; continue; }
                tested++;
                for (int i = 0; i < n; i++) {
                    double fd = (pp[i] - pm[i]) / (2.0 * h), e = fabs(fd - (double)J[i * n + j]);
                    if (!(e <= worst)) worst = e;
                }
            }
        }
        CHECK(worst <= 1e-4, "%s: |J - finite differences| = %g", CASES[c].name, worst);
        CHECK(tested > 4 * skipped && tested > 100, "%s: only %d columns tested (%d skipped)",
              CASES[c].name, tested, skipped);
    }
}

/* ------------------------------------------------------ vs the backward passes */
static void test_backward(void) {
    for (int c = 0; c < NCASES; c++) {
        double worst = 0.0;
        for (int trial = 0; trial < 60; trial++) {
            const int n = 1 + trial % MAXN;
            const float t = trial % 3 == 0 ? 0.5f : trial % 3 == 1 ? 1.0f : 3.0f;
            float x[MAXN], dy[MAXN], dx[MAXN], J[MAXN * MAXN];
            random_row(x, n, 2.0, trial % 2);
            for (int i = 0; i < n; i++) dy[i] = (float)(2.0 * urand() - 1.0);
            int st = sx_jacobian(J, x, 1, n, CASES[c].map, CASES[c].param, t);
            if (!st) st = backward(dx, x, dy, n, &CASES[c], t);
            CHECK(st == SX_OK, "%s: %s", CASES[c].name, sx_last_error());
            if (st) continue;
            for (int i = 0; i < n; i++) { /* (J^T dy)_i */
                double v = 0.0;
                for (int k = 0; k < n; k++) v += (double)J[k * n + i] * dy[k];
                double e = fabs(v - dx[i]);
                if (!(e <= worst)) worst = e;
            }
        }
        CHECK(worst <= 1e-6, "%s: |J^T dy - backward(dy)| = %g", CASES[c].name, worst);
    }
}

/* ----------------------------------------------- symmetry, zero row and column sums */
static void test_structure(void) {
    for (int c = 0; c < NCASES; c++) {
        const int symmetric = CASES[c].map != SX_MAP_FUSEDMAX && CASES[c].map != SX_MAP_OSCARMAX;
        double asym = 0.0, rsum = 0.0, csum = 0.0;
        for (int trial = 0; trial < 40; trial++) {
            const int n = 1 + trial % MAXN;
            float x[MAXN], J[MAXN * MAXN];
            random_row(x, n, 1.0, trial % 2);
            if (sx_jacobian(J, x, 1, n, CASES[c].map, CASES[c].param, 1.0f) != SX_OK) {
                CHECK(0, "%s: %s", CASES[c].name, sx_last_error());
                continue;
            }
            for (int i = 0; i < n; i++) {
                double r = 0.0, s = 0.0;
                for (int j = 0; j < n; j++) {
                    r += J[i * n + j];
                    s += J[j * n + i];
                    asym = fmax(asym, fabs((double)J[i * n + j] - J[j * n + i]));
                }
                rsum = fmax(rsum, fabs(r));
                csum = fmax(csum, fabs(s));
            }
        }
        if (symmetric) CHECK(asym == 0.0, "%s: J not symmetric by %g", CASES[c].name, asym);
        CHECK(rsum <= 1e-6, "%s: a row of J sums to %g", CASES[c].name, rsum);
        CHECK(csum <= 1e-6, "%s: a column of J sums to %g", CASES[c].name, csum);
    }
}

/* ------------------------------------------------------------ the lecture's example */
/* p = [.99, .01, 0] and p = [.5, .5, 0]: one support, one sparsemax Jacobian
   [[.5, -.5, 0], [-.5, .5, 0], [0, 0, 0]]; softmax's differ. */
static void test_lecture(void) {
    const float a[3] = { 0.99f, 0.01f, -1.0f }, b[3] = { 0.5f, 0.5f, -1.0f };
    const float want[9] = { 0.5f, -0.5f, 0, -0.5f, 0.5f, 0, 0, 0, 0 };
    float pa[3], Ja[9], Jb[9];
    CHECK(sx_sparsemax(pa, a, 1, 3, 1.0f) == SX_OK && fabsf(pa[0] - 0.99f) < 1e-6f && pa[2] == 0.0f,
          "p = [%g, %g, %g]", pa[0], pa[1], pa[2]);
    CHECK(sx_jacobian(Ja, a, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(sx_jacobian(Jb, b, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(memcmp(Ja, Jb, sizeof Ja) == 0 && memcmp(Ja, want, sizeof Ja) == 0,
          "sparsemax J differ: %g %g %g / %g %g %g", Ja[0], Ja[1], Ja[4], Jb[0], Jb[1], Jb[4]);
    CHECK(sx_jacobian(Ja, a, 1, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(sx_jacobian(Jb, b, 1, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(fabsf(Ja[0] - Jb[0]) > 0.01f, "softmax J the same: %g %g", Ja[0], Jb[0]);
    /* temperature: J scales as 1/T for a support that does not change */
    CHECK(sx_jacobian(Ja, b, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 0.25f) == SX_OK && Ja[0] == 2.0f && Ja[8] == 0.0f,
          "T = 0.25: J[0] = %g", Ja[0]);
}

/* ------------------------------------------------------------------- masks */
static void test_masks(void) {
    const float x[2 * 4] = { 1.0f, -INFINITY, 0.5f, 0.7f, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    float J[2 * 16], tau[2];
    for (int c = 0; c < NCASES; c++) {
        for (int i = 0; i < 32; i++) J[i] = 42.0f;
        CHECK(sx_jacobian(J, x, 2, 4, CASES[c].map, CASES[c].param, 1.0f) == SX_OK, "%s: %s", CASES[c].name, sx_last_error());
        int ok = 1;
        for (int k = 0; k < 4; k++) ok &= J[1 * 4 + k] == 0.0f && J[k * 4 + 1] == 0.0f;
        for (int k = 16; k < 32; k++) ok &= J[k] == 0.0f;
        CHECK(ok, "%s: masked rows / columns or the all-masked block not zero", CASES[c].name);
    }
    CHECK(sx_threshold(tau, x, 2, 4, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_OK && tau[1] == INFINITY,
          "all-masked sparsemax tau = %g", tau[1]);
    CHECK(sx_threshold(tau, x, 2, 4, SX_MAP_ENTMAX, 1.3f, 1.0f) == SX_OK && tau[1] == INFINITY,
          "all-masked entmax tau = %g", tau[1]);
    CHECK(sx_threshold(tau, x, 2, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_OK && tau[1] == -INFINITY,
          "all-masked softmax tau = %g", tau[1]);
}

/* --------------------------------------------------------------- threshold */
/* p rebuilt from tau equals the forward pass and sums to 1. */
static void test_threshold(void) {
    const mapcase tc[] = {
        { SX_MAP_SOFTMAX, 0.0f, "softmax" }, { SX_MAP_SPARSEMAX, 0.0f, "sparsemax" },
        { SX_MAP_ENTMAX15, 0.0f, "entmax15" }, { SX_MAP_ENTMAX, 1.0f, "entmax 1" },
        { SX_MAP_ENTMAX, 1.2f, "entmax 1.2" }, { SX_MAP_ENTMAX, 1.5f, "entmax 1.5" },
        { SX_MAP_ENTMAX, 1.8f, "entmax 1.8" }, { SX_MAP_ENTMAX, 2.0f, "entmax 2" },
        { SX_MAP_ENTMAX, 3.0f, "entmax 3" },
    };
    const float ts[] = { 1.0f, 0.3f, 2.0f, 1e-3f };
    for (int c = 0; c < (int)(sizeof tc / sizeof tc[0]); c++) {
        double worst = 0.0, worst_sum = 0.0;
        for (int trial = 0; trial < 80; trial++) {
            const int n = 1 + trial % MAXN;
            const float t = ts[trial % 4];
            float x[MAXN], p[MAXN], tau;
            random_row(x, n, 3.0, trial % 3 == 0);
            int any = 0;
            for (int i = 0; i < n; i++) any |= x[i] != -INFINITY;
            if (!any) x[0] = 0.0f;
            int st = sx_threshold(&tau, x, 1, n, tc[c].map, tc[c].param, t);
            if (!st) st = tc[c].map == SX_MAP_ENTMAX ? sx_entmax(p, x, 1, n, tc[c].param, t)
                        : tc[c].map == SX_MAP_SOFTMAX ? sx_softmax(p, x, 1, n, t)
                        : tc[c].map == SX_MAP_SPARSEMAX ? sx_sparsemax(p, x, 1, n, t)
                        : sx_entmax15(p, x, 1, n, t);
            CHECK(st == SX_OK, "%s: %s", tc[c].name, sx_last_error());
            if (st) continue;
            const double a = tc[c].map == SX_MAP_SOFTMAX ? 1.0 : tc[c].map == SX_MAP_SPARSEMAX ? 2.0
                           : tc[c].map == SX_MAP_ENTMAX15 ? 1.5 : tc[c].param;
            /* the rebuild in double, relative to tau (z = x / T can be large at T = 1e-3) */
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                const double z = (double)x[i] / t;
                double q;
                if (a == 1.0) q = exp(z - tau);
                else {
                    const double u = (a - 1.0) * z - tau;
                    q = u > 0.0 ? pow(u, 1.0 / (a - 1.0)) : 0.0;
                }
                s += q;
                worst = fmax(worst, fabs(q - p[i]));
            }
            worst_sum = fmax(worst_sum, fabs(s - 1.0));
        }
        /* tau is a float: at T = 1e-3 and |z| ~ 1e4 its rounding alone is ~1e-3 * ulp-scale */
        CHECK(worst <= 2e-3, "%s: |p(tau) - forward| = %g", tc[c].name, worst);
        CHECK(worst_sum <= 2e-3, "%s: |sum p(tau) - 1| = %g", tc[c].name, worst_sum);
    }
    /* at T = 1 and moderate scores, the rebuild is tight */
    for (int c = 0; c < (int)(sizeof tc / sizeof tc[0]); c++) {
        double worst = 0.0;
        for (int trial = 0; trial < 40; trial++) {
            const int n = 1 + trial % MAXN;
            float x[MAXN], p[MAXN], tau;
            random_row(x, n, 1.0, 0);
            const double a = tc[c].map == SX_MAP_SOFTMAX ? 1.0 : tc[c].map == SX_MAP_SPARSEMAX ? 2.0
                           : tc[c].map == SX_MAP_ENTMAX15 ? 1.5 : tc[c].param;
            CHECK(sx_threshold(&tau, x, 1, n, tc[c].map, tc[c].param, 1.0f) == SX_OK &&
                  sx_entmax(p, x, 1, n, (float)a, 1.0f) == SX_OK, "%s", sx_last_error());
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                const double u = a == 1.0 ? exp(x[i] - (double)tau) : (a - 1.0) * x[i] - tau;
                const double q = a == 1.0 ? u : u > 0.0 ? pow(u, 1.0 / (a - 1.0)) : 0.0;
                worst = fmax(worst, fabs(q - p[i]));
                s += q;
            }
            worst = fmax(worst, fabs(s - 1.0));
        }
        CHECK(worst <= 1e-5, "%s (T = 1): |p(tau) - forward| = %g", tc[c].name, worst);
    }
    /* the header's example: sparsemax([2, 1, -1]) = [1, 0, 0] with tau = 1 */
    const float x[3] = { 2.0f, 1.0f, -1.0f };
    float tau = 0.0f;
    CHECK(sx_threshold(&tau, x, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_OK && tau == 1.0f, "tau = %g", tau);
    CHECK(sx_threshold(&tau, x, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 0.5f) == SX_OK && tau == 3.0f,
          "T = 0.5: tau = %g (z = [4, 2, -2])", tau);
}

/* ------------------------------------------------------------------ errors */
static void test_errors(void) {
    float x[4] = { 0.0f, 1.0f, 2.0f, 3.0f }, J[16], tau[4];
    CHECK(sx_jacobian(NULL, x, 1, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL, "null J");
    CHECK(sx_jacobian(J, x, 1, 0, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL, "n = 0");
    CHECK(sx_jacobian(J, x, -1, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL, "rows = -1");
    CHECK(sx_jacobian(J, x, 0, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_OK, "rows = 0");
    CHECK(sx_jacobian(J, x, 1, 4, 8, 0.0f, 1.0f) == SX_EINVAL && strstr(sx_last_error(), "unknown mapping 8"),
          "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_ENTMAX_LEARNED, 0.0f, 1.0f) == SX_EINVAL &&
          strstr(sx_last_error(), "model layers only"), "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_ENTMAX, 0.5f, 1.0f) == SX_EINVAL && strstr(sx_last_error(), "alpha"),
          "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_FUSEDMAX, NAN, 1.0f) == SX_EINVAL && strstr(sx_last_error(), "lambda"),
          "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_OSCARMAX, -1.0f, 1.0f) == SX_EINVAL && strstr(sx_last_error(), "beta"),
          "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_SOFTMAX, 0.0f, 0.0f) == SX_EINVAL, "T = 0");
    /* rows * n * n beyond memory: refused before x is read (x holds 4 floats only) */
    CHECK(sx_jacobian(J, x, 1, 1 << 15, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL &&
          strstr(sx_last_error(), "do not fit"), "%s", sx_last_error());
    CHECK(sx_jacobian(J, x, 1 << 13, 1 << 8, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL &&
          strstr(sx_last_error(), "do not fit"), "%s", sx_last_error()); /* 2^29 floats: one past the limit */
    CHECK(sx_jacobian(J, x, 2147483647, 2147483647, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL, "max sizes");
    x[2] = NAN;
    CHECK(sx_jacobian(J, x, 1, 4, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_ENONFINITE && sx_last_error_index() == 2,
          "NaN at 2: index %d", sx_last_error_index());
    CHECK(sx_threshold(tau, x, 2, 2, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_ENONFINITE && sx_last_error_index() == 2,
          "NaN at 2: index %d", sx_last_error_index());
    x[2] = INFINITY;
    CHECK(sx_threshold(tau, x, 1, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_ENONFINITE, "+Infinity");
    x[2] = 2.0f;
    CHECK(sx_threshold(tau, x, 1, 4, SX_MAP_FUSEDMAX, 0.1f, 1.0f) == SX_EINVAL &&
          strstr(sx_last_error(), "fusedmax"), "%s", sx_last_error());
    CHECK(sx_threshold(tau, x, 1, 4, SX_MAP_OSCARMAX, 0.1f, 1.0f) == SX_EINVAL &&
          strstr(sx_last_error(), "oscarmax"), "%s", sx_last_error());
    CHECK(sx_threshold(NULL, x, 1, 4, SX_MAP_SOFTMAX, 0.0f, 1.0f) == SX_EINVAL, "null tau");
    /* the other SX_MAP_* users refuse the new code */
    float w[4];
    const float q[2] = { 0.0f, 1.0f };
    CHECK(sx_nw_pooling(w, NULL, q, q, q, 2, 2, 1.0f, SX_MAP_OSCARMAX, 0.1f, 0) == SX_EINVAL,
          "pooling took SX_MAP_OSCARMAX");
}

int main(void) {
    test_finite_differences();
    test_backward();
    test_structure();
    test_lecture();
    test_masks();
    test_threshold();
    test_errors();
    return sx_test_summary("test_jacobian");
}
