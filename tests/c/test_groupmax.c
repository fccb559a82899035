/* test_groupmax.c - the two mappings beyond the simplex (core/src/groupmax.c, core/src/sigmoid.c).
   groupmax: golden cases worked by hand, lambda = 0 is sparsemax bitwise, the special cases
   the derivation predicts (singleton groups: sparsemax; one group of size n: sparsemax(s z);
   equal groups of constant scores: sparsemax), a float64 reference by another solver (plain
   bisection) and the KKT conditions checked on the output, group sparsity at large lambda,
   shift invariance, masks (= the entry removed), extreme inputs, the backward pass against
   central differences of the float64 reference and its structure (symmetric, rows sum to 0),
   every error with its message. sigmoid: golden values, -Infinity, extremes, backward vs
   central differences, sx_jacobian's diagonal and sx_threshold's refusal, errors. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"

#define SX_TEST_SEED 0x243F6A8885A308D3ull
#include "prng.h"

#define MAXN 64

/* ------------------------------------------------------------ float64 reference */
/* groupmax of raw scores x at temperature t by plain bisection on f(tau) = 1 (300 halvings of
   [-1 - lam, 0] relative to max z: another solver than the core's safeguarded Newton). */
static double ref_mass(const double *z, int n, const int *groups, int ng, double lam, double tau, double *p) {
    double f = 0.0;
    (void)n;
    for (int g = 0, from = 0; g < ng; from += groups[g++]) {
        double q = 0.0;
        for (int i = from; i < from + groups[g]; i++) { double u = z[i] - tau; if (u > 0) q += u * u; }
        double r = sqrt(q), s = r > lam ? 1.0 - lam / r : 0.0;
        for (int i = from; i < from + groups[g]; i++) {
            double u = z[i] - tau, v = u > 0 && s > 0 ? s * u : 0.0;
            if (p) p[i] = v;
            f += v;
        }
    }
    return f;
}

static double ref_groupmax(double *p, const double *x, int n, const int *groups, int ng, double lam, double t) {
    double z[MAXN], top = -INFINITY;
    for (int i = 0; i < n; i++) if (x[i] > top) top = x[i];
    if (top == -INFINITY) { for (int i = 0; i < n; i++) p[i] = 0.0; return INFINITY; }
    for (int i = 0; i < n; i++) z[i] = (x[i] - top) / t;
    double lo = -1.0 - lam, hi = 0.0;
    for (int it = 0; it < 300; it++) {
        double mid = 0.5 * (lo + hi);
        if (ref_mass(z, n, groups, ng, lam, mid, NULL) > 1.0) lo = mid; else hi = mid;
    }
    double tau = 0.5 * (lo + hi);
    ref_mass(z, n, groups, ng, lam, tau, p);
    return tau;
}

/* sparsemax in double (sort-free: tau by the same bisection at lam = 0, singleton groups). */
static void ref_sparsemax(double *p, const double *x, int n, double t) {
    int ones[MAXN];
    for (int i = 0; i < n; i++) ones[i] = 1;
    ref_groupmax(p, x, n, ones, n, 0.0, t);
}

/* ------------------------------------------------------------------ helpers */
static void random_groups(int *groups, int *ng, int n) {
    int left = n, k = 0;
    while (left > 0) {
        int s = 1 + (int)(urand() * (urand() < 0.3 ? 1 : 5));
        if (s > left) s = left;
        groups[k++] = s;
        left -= s;
    }
    *ng = k;
}

static double max_diff(const float *a, const double *b, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* p >= 0, finite, masked entries exactly 0, sum 1 (or 0 for an all-masked row). */
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

/* The optimality (KKT) conditions of groupmax, in double on the float output p: with
   tau = z_i - p_i - lam p_i / ||p_g|| on every supported entry (one value for the whole row),
   entries at 0 in an active group have z_i <= tau, and dead groups have ||[z_g - tau]_+|| <= lam.
   Returns the worst violation. */
static double kkt_violation(const float *p, const float *x, int n, const int *groups, int ng, double lam, double t) {
    double top = -INFINITY, taus = 0.0, tmin = INFINITY, tmax = -INFINITY;
    int cnt = 0;
    for (int i = 0; i < n; i++) if (x[i] > top) top = x[i];
    if (top == -INFINITY) return 0.0;
    for (int g = 0, from = 0; g < ng; from += groups[g++]) {
        double q = 0.0;
        for (int i = from; i < from + groups[g]; i++) q += (double)p[i] * p[i];
        double r = sqrt(q);
        for (int i = from; i < from + groups[g]; i++)
            if (p[i] > 0.0f) {
                double ti = ((double)x[i] - top) / t - p[i] - lam * p[i] / r;
                taus += ti; cnt++;
                tmin = fmin(tmin, ti); tmax = fmax(tmax, ti);
            }
    }
    double tau = taus / cnt, worst = tmax - tmin;
    for (int g = 0, from = 0; g < ng; from += groups[g++]) {
        double q = 0.0, pq = 0.0;
        for (int i = from; i < from + groups[g]; i++) {
            double u = ((double)x[i] - top) / t - tau;
            if (u > 0) q += u * u;
            pq += p[i];
        }
        if (pq == 0.0) worst = fmax(worst, sqrt(q) - lam); /* dead group */
        else
            for (int i = from; i < from + groups[g]; i++)
                if (p[i] == 0.0f) worst = fmax(worst, ((double)x[i] - top) / t - tau);
    }
    return worst;
}

/* ------------------------------------------------------------------ golden */
static void test_golden(void) {
    /* z = [1, .8, .8, .8], groups [1, 3], all active: p1 = 1 - tau - lam, the three = .8 - tau -
       lam / sqrt 3 (equal entries: s u = u - lam / sqrt k); sum 1 gives tau = (2.4 - lam (1 +
       sqrt 3)) / 4, so p1 = .4 + lam (sqrt 3 - 3) / 4, p_g = .2 + lam ((1 + sqrt 3) / 4 - 1 / sqrt 3). */
    const float x1[4] = { 1.0f, 0.8f, 0.8f, 0.8f };
    const int g13[2] = { 1, 3 };
    float p[MAXN];
    const double r3 = sqrt(3.0);
    for (int k = 0; k < 3; k++) {
        double lam = k == 0 ? 0.05 : k == 1 ? 0.2 : 0.5;
        CHECK(sx_groupmax(p, x1, 1, 4, g13, 2, (float)lam, 1.0f) == SX_OK, "%s", sx_last_error());
        double e1 = 0.4 + lam * (r3 - 3.0) / 4.0, eg = 0.2 + lam * ((1.0 + r3) / 4.0 - 1.0 / r3);
        CHECK_NEAR(p[0], e1, 2e-7, "golden [1,.8,.8,.8] lam %g: p1", lam);
        for (int i = 1; i < 4; i++) CHECK_NEAR(p[i], eg, 2e-7, "golden [1,.8,.8,.8] lam %g: p%d", lam, i + 1);
        CHECK(p[1] == p[2] && p[2] == p[3], "equal scores in a group get bitwise equal weights");
    }
    /* z = [.9, 1, 1, 1], groups [1, 3]. lam = .2: both active, tau = (2.9 - lam (1 + sqrt 3)) / 4,
       p1 = .9 - tau - lam = .1116025..., the three 1 - tau - lam / sqrt 3 = .2961325...
       lam = .6: the singleton dies: with group 2 alone, 3 (1 - tau) - sqrt 3 lam = 1 gives
       tau = (2 - sqrt 3 lam) / 3 = .3202563, and [.9 - tau]_+ = .5797 <= lam = .6: p = [0, 1/3,
       1/3, 1/3], where sparsemax gives [.175, .275, .275, .275]. */
    const float x2[4] = { 0.9f, 1.0f, 1.0f, 1.0f };
    CHECK(sx_groupmax(p, x2, 1, 4, g13, 2, 0.2f, 1.0f) == SX_OK, "%s", sx_last_error());
    double tau = (2.9 - 0.2 * (1.0 + r3)) / 4.0;
    CHECK_NEAR(p[0], (double)0.9f - tau - (double)0.2f, 2e-7, "golden [.9,1,1,1] lam .2: p1");
    CHECK_NEAR(p[0], 0.1116025, 1e-6, "golden [.9,1,1,1] lam .2: p1 by hand");
    CHECK_NEAR(p[1], 0.2961325, 1e-6, "golden [.9,1,1,1] lam .2: p2 by hand");
    CHECK(sx_groupmax(p, x2, 1, 4, g13, 2, 0.6f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(p[0] == 0.0f, "golden [.9,1,1,1] lam .6: the singleton group is exactly 0 (got %g)", p[0]);
    for (int i = 1; i < 4; i++) CHECK_NEAR(p[i], 1.0 / 3.0, 1e-7, "golden lam .6: p%d = 1/3", i + 1);
    float q[4];
    sx_sparsemax(q, x2, 1, 4, 1.0f);
    CHECK_NEAR(q[0], 0.175, 1e-7, "sparsemax of [.9,1,1,1] keeps entry 1");
    /* The example: groups [2, 3, 1] for n = 6, at T = 2, against the reference. */
    const float x3[6] = { 2.0f, 1.4f, 1.8f, -0.4f, 1.0f, 1.9f };
    const int g231[3] = { 2, 3, 1 };
    double xd[6], pr[6];
    for (int i = 0; i < 6; i++) xd[i] = x3[i];
    for (int k = 0; k < 4; k++) {
        double lam = k * 0.15;
        CHECK(sx_groupmax(p, x3, 1, 6, g231, 3, (float)lam, 2.0f) == SX_OK, "%s", sx_last_error());
        ref_groupmax(pr, xd, 6, g231, 3, (float)lam, 2.0);
        CHECK(max_diff(p, pr, 6) <= 1e-7, "groups [2,3,1] lam %g T 2: diff %g", lam, max_diff(p, pr, 6));
    }
}

/* ------------------------------------------------------------------ special cases */
static void test_special_cases(void) {
    float x[MAXN], p[MAXN], q[MAXN];
    int groups[MAXN], ones[MAXN], ng;
    double worst_single = 0.0, worst_one = 0.0, worst_const = 0.0;
    for (int i = 0; i < MAXN; i++) ones[i] = 1;
    for (int trial = 0; trial < 500; trial++) {
        int n = 1 + (int)(urand() * 40);
        float t = urand() < 0.5 ? 1.0f : (float)(0.2 + 3 * urand());
        float lam = (float)(urand() * 1.5);
        for (int i = 0; i < n; i++) x[i] = (float)(nrand() * (urand() < 0.5 ? 1 : 3));
        if (trial % 4 == 0) for (int i = 0; i < n; i++) if (urand() < 0.2) x[i] = -INFINITY;
        random_groups(groups, &ng, n);
        /* lambda = 0 is sparsemax, bitwise (it is sparsemax's code) */
        CHECK(sx_groupmax(p, x, 1, n, groups, ng, 0.0f, t) == SX_OK, "%s", sx_last_error());
        sx_sparsemax(q, x, 1, n, t);
        CHECK(!memcmp(p, q, (size_t)n * sizeof(float)), "lambda 0 is not sparsemax bitwise (n=%d)", n);
        /* singleton groups: s u = [u - lam]_+, sparsemax of z shifted */
        CHECK(sx_groupmax(p, x, 1, n, ones, n, lam, t) == SX_OK, "%s", sx_last_error());
        for (int i = 0; i < n; i++) worst_single = fmax(worst_single, fabs(p[i] - q[i]));
        /* one group of size n: sparsemax(s z), s = ||p|| / (||p|| + lam), i.e. temperature T / s */
        int one = n;
        CHECK(sx_groupmax(p, x, 1, n, &one, 1, lam, t) == SX_OK, "%s", sx_last_error());
        double nrm = 0.0;
        for (int i = 0; i < n; i++) nrm += (double)p[i] * p[i];
        nrm = sqrt(nrm);
        double s = nrm / (nrm + lam);
        if (nrm > 0) {
            double xd[MAXN], pr[MAXN];
            for (int i = 0; i < n; i++) xd[i] = x[i];
            ref_sparsemax(pr, xd, n, t / s);
            worst_one = fmax(worst_one, max_diff(p, pr, n));
            int zeros = 0;
            for (int i = 0; i < n; i++) zeros += x[i] != -INFINITY && p[i] == 0.0f && pr[i] > 1e-6;
            CHECK(zeros == 0, "one group: zeros where sparsemax(s z) has none");
        }
    }
    /* groups of one size k, scores constant inside each group: sparsemax */
    for (int trial = 0; trial < 200; trial++) {
        int k = 1 + (int)(urand() * 4), m = 1 + (int)(urand() * 8), n = k * m;
        for (int g = 0; g < m; g++) {
            groups[g] = k;
            float v = (float)nrand();
            for (int i = 0; i < k; i++) x[g * k + i] = v;
        }
        CHECK(sx_groupmax(p, x, 1, n, groups, m, (float)(urand() * 2), 1.0f) == SX_OK, "%s", sx_last_error());
        sx_sparsemax(q, x, 1, n, 1.0f);
        for (int i = 0; i < n; i++) worst_const = fmax(worst_const, fabs(p[i] - q[i]));
    }
    CHECK(worst_single <= 1e-6, "singleton groups vs sparsemax: %g", worst_single);
    CHECK(worst_one <= 1e-6, "one group vs sparsemax(s z): %g", worst_one);
    CHECK(worst_const <= 1e-6, "constant equal groups vs sparsemax: %g", worst_const);
    printf("  singleton groups = sparsemax: worst %.3g; one group = sparsemax(s z): worst %.3g; "
           "constant groups = sparsemax: worst %.3g\n", worst_single, worst_one, worst_const);
}

/* ------------------------------------------------------------------ reference and KKT */
static void test_reference(void) {
    float x[MAXN], p[MAXN];
    double xd[MAXN], pr[MAXN], worst = 0.0, worst_kkt = 0.0, worst_sum = 0.0;
    int groups[MAXN], ng;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int)(urand() * (trial % 2 ? 12 : MAXN));
        double scale = urand() < 0.5 ? 1.0 : 0.1 + 10 * urand();
        float t = urand() < 0.7 ? 1.0f : (float)(0.2 + 3 * urand());
        float lam = (float)(urand() < 0.2 ? 0.01 * urand() : urand() < 0.5 ? urand() : 5 * urand());
        for (int i = 0; i < n; i++) {
            x[i] = (float)(scale * nrand());
            if (urand() < 0.15) x[i] = x[i > 0 ? i - 1 : 0];
            if (trial % 3 == 0 && urand() < 0.2) x[i] = -INFINITY;
            xd[i] = x[i];
        }
        random_groups(groups, &ng, n);
        CHECK(sx_groupmax(p, x, 1, n, groups, ng, lam, t) == SX_OK, "%s", sx_last_error());
        ref_groupmax(pr, xd, n, groups, ng, lam, t);
        double d = max_diff(p, pr, n), s = 0.0;
        worst = fmax(worst, d);
        for (int i = 0; i < n; i++) s += p[i];
        if (s > 0) worst_sum = fmax(worst_sum, fabs(s - 1.0));
        worst_kkt = fmax(worst_kkt, kkt_violation(p, x, n, groups, ng, lam, t));
        if (d > 1e-6 || !on_simplex(p, x, n, 2e-6)) {
            CHECK(d <= 1e-6 && on_simplex(p, x, n, 2e-6), "groupmax vs reference: n=%d lam=%g T=%g diff %g", n, lam, t, d);
            return;
        }
    }
    CHECK(worst_kkt <= 1e-5, "KKT violation %g", worst_kkt);
    printf("  groupmax vs float64 bisection: worst |diff| %.3g, worst |sum - 1| %.3g, worst KKT violation %.3g\n",
           worst, worst_sum, worst_kkt);
}

/* ------------------------------------------------------------------ group sparsity */
static void test_group_sparsity(void) {
    /* groups [2, 3, 4, 1]: as lambda grows the live groups never come back, small groups die
       first (price lam / sqrt k), and at a large lambda only the group of 4 is left. */
    const int groups[4] = { 2, 3, 4, 1 };
    float x[10], p[10];
    int monotone = 1, dead_whole = 0, ends_big = 0;
    for (int trial = 0; trial < 100; trial++) {
        for (int i = 0; i < 10; i++) x[i] = (float)(0.5 * nrand());
        int prev_live = 4;
        for (int k = 0; k <= 40; k++) {
            float lam = 0.05f * k;
            CHECK(sx_groupmax(p, x, 1, 10, groups, 4, lam, 1.0f) == SX_OK, "%s", sx_last_error());
            int live = 0;
            for (int g = 0, from = 0; g < 4; from += groups[g++]) {
                double s = 0.0;
                for (int i = from; i < from + groups[g]; i++) s += p[i];
                live += s > 0.0;
                if (s == 0.0 && k > 0) dead_whole++;
            }
            if (live > prev_live + 1) monotone = 0; /* (a group may revive once when another dies) */
            prev_live = live;
        }
        CHECK(sx_groupmax(p, x, 1, 10, groups, 4, 50.0f, 1.0f) == SX_OK, "%s", sx_last_error());
        double big = 0.0;
        for (int i = 5; i < 9; i++) big += p[i];
        ends_big += fabs(big - 1.0) < 1e-6;
        CHECK(on_simplex(p, x, 10, 2e-6), "lam 50 off the simplex");
    }
    CHECK(dead_whole > 100, "whole groups exactly 0 at large lambda: %d", dead_whole);
    CHECK(monotone, "live groups jump back");
    CHECK(ends_big == 100, "at lambda 50 only the largest group is left (%d of 100 rows)", ends_big);
    printf("  group sparsity: %d (row, lambda) pairs with a whole group exactly 0\n", dead_whole);
}

/* ------------------------------------------------------------------ invariances, masks, edges */
static void test_masks_and_edges(void) {
    float x[MAXN], p[MAXN], xs[MAXN], ps[MAXN];
    int groups[MAXN], gs[MAXN], ng;
    double worst_mask = 0.0, worst_shift = 0.0;
    for (int trial = 0; trial < 500; trial++) {
        int n = 2 + (int)(urand() * 30);
        for (int i = 0; i < n; i++) x[i] = (float)nrand();
        random_groups(groups, &ng, n);
        float lam = (float)urand();
        /* shift invariance */
        for (int i = 0; i < n; i++) xs[i] = x[i] + 3.0f;
        sx_groupmax(p, x, 1, n, groups, ng, lam, 1.0f);
        sx_groupmax(ps, xs, 1, n, groups, ng, lam, 1.0f);
        for (int i = 0; i < n; i++) worst_shift = fmax(worst_shift, fabs(p[i] - ps[i]));
        /* a masked entry = the entry removed (its group one smaller, or gone) */
        int j = (int)(urand() * n);
        x[j] = -INFINITY;
        CHECK(sx_groupmax(p, x, 1, n, groups, ng, lam, 1.0f) == SX_OK, "%s", sx_last_error());
        CHECK(p[j] == 0.0f, "masked entry not exactly 0");
        int m = 0, ngs = 0;
        for (int g = 0, from = 0; g < ng; from += groups[g++]) {
            int size = 0;
            for (int i = from; i < from + groups[g]; i++) if (i != j) { xs[m++] = x[i]; size++; }
            if (size) gs[ngs++] = size;
        }
        CHECK(sx_groupmax(ps, xs, 1, m, gs, ngs, lam, 1.0f) == SX_OK, "%s", sx_last_error());
        for (int i = 0, k = 0; i < n; i++) if (i != j) worst_mask = fmax(worst_mask, fabs(p[i] - ps[k++]));
    }
    CHECK(worst_shift <= 1e-6, "shift invariance %g", worst_shift);
    CHECK(worst_mask <= 1e-6, "masked entry vs removed entry %g", worst_mask);
    /* an all-masked group, an all-masked row (two rows in one call) */
    const int g22[2] = { 2, 2 };
    float xm[8] = { -INFINITY, -INFINITY, 1.0f, 0.5f, -INFINITY, -INFINITY, -INFINITY, -INFINITY }, pm[8], dm[8];
    float dy[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    CHECK(sx_groupmax(pm, xm, 2, 4, g22, 2, 0.3f, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(pm[0] == 0 && pm[1] == 0 && fabs(pm[2] + pm[3] - 1.0) < 1e-6, "masked group");
    int zero = 1;
    for (int i = 4; i < 8; i++) zero &= pm[i] == 0.0f;
    CHECK(zero, "all-masked row is not all zeros");
    CHECK(sx_groupmax_backward(dm, xm, dy, 2, 4, g22, 2, 0.3f, 1.0f) == SX_OK, "%s", sx_last_error());
    zero = dm[0] == 0 && dm[1] == 0;
    for (int i = 4; i < 8; i++) zero &= dm[i] == 0.0f;
    CHECK(zero, "masked entries / rows get a zero gradient");
    /* extremes: tiny T, huge lambda, huge scores: finite, on the simplex */
    const int g3[3] = { 1, 2, 3 };
    const float ex[6] = { 3e38f, -3e38f, 1e30f, 0.0f, -1e-30f, 2e38f };
    const float lams[4] = { 1e-30f, 0.5f, 1e30f, 3e38f }, ts[3] = { 1e-30f, 1.0f, 1e30f };
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) {
            float pe[6], de[6], ge[6] = { 1e38f, -1e38f, 1, 2, -3, 0.5f };
            CHECK(sx_groupmax(pe, ex, 1, 6, g3, 3, lams[a], ts[b]) == SX_OK, "%s", sx_last_error());
            CHECK(on_simplex(pe, ex, 6, 2e-6), "extreme lam %g T %g off the simplex", lams[a], ts[b]);
            CHECK(sx_groupmax_backward(de, ex, ge, 1, 6, g3, 3, lams[a], ts[b]) == SX_OK, "%s", sx_last_error());
            int nan = 0;
            for (int i = 0; i < 6; i++) nan += de[i] != de[i];
            CHECK(!nan, "extreme lam %g T %g: NaN gradient", lams[a], ts[b]);
        }
    /* huge lambda on ordinary scores: the largest group, uniform */
    const float xo[6] = { 5.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f };
    float po[6];
    sx_groupmax(po, xo, 1, 6, g3, 3, 1e30f, 1.0f);
    CHECK(po[0] == 0 && po[1] == 0 && po[2] == 0 && fabs(po[3] - 1.0 / 3) < 1e-6 && fabs(po[5] - 1.0 / 3) < 1e-6,
          "lambda 1e30: uniform on the largest group (got %g %g %g %g %g %g)", po[0], po[1], po[2], po[3], po[4], po[5]);
    printf("  shift invariance: worst %.3g; masked entry = removed entry: worst %.3g\n", worst_shift, worst_mask);
}

/* ------------------------------------------------------------------ backward */
/* Central differences in double of the float64 reference (h = 1e-6) vs sx_groupmax_backward on
   every unit vector (dx = J^T e_j), away from support and activity changes; J symmetric with
   zero row sums; and dy random against the same reference J. */
static void test_backward(void) {
    float x[16], dx[16], e[16], J[16 * 16], dy[16], g[16];
    double xd[16], pp[16], pm[16], Jr[16 * 16];
    int groups[16], ng, tested = 0;
    double worst = 0.0, worst_sym = 0.0, worst_rows = 0.0, worst_vjp = 0.0;
    for (int trial = 0; trial < 600 && tested < 300; trial++) {
        int n = 2 + (int)(urand() * 14);
        float t = urand() < 0.6 ? 1.0f : (float)(0.3 + 2 * urand());
        float lam = (float)(urand() * 0.8);
        random_groups(groups, &ng, n);
        for (int i = 0; i < n; i++) { x[i] = (float)(0.7 * nrand()); xd[i] = x[i]; }
        if (urand() < 0.2) { x[n - 1] = -INFINITY; xd[n - 1] = -INFINITY; }
        /* skip points near a kink: some z_i near tau, or a group's r near lam */
        double tau = ref_groupmax(pp, xd, n, groups, ng, lam, t), top = -INFINITY, margin = INFINITY;
        for (int i = 0; i < n; i++) if (xd[i] > top) top = xd[i];
        for (int gg = 0, from = 0; gg < ng; from += groups[gg++]) {
            double q = 0.0;
            for (int i = from; i < from + groups[gg]; i++) {
                double u = (xd[i] - top) / t - tau;
                if (xd[i] != -INFINITY) margin = fmin(margin, fabs(u));
                if (u > 0) q += u * u;
            }
            if (lam > 0) margin = fmin(margin, fabs(sqrt(q) - lam));
        }
        if (margin < 1e-3) continue;
        tested++;
        for (int j = 0; j < n; j++) {
            if (xd[j] == -INFINITY) { for (int i = 0; i < n; i++) Jr[i * n + j] = 0; continue; }
            const double h = 1e-6;
            xd[j] += h; ref_groupmax(pp, xd, n, groups, ng, lam, t);
            xd[j] -= 2 * h; ref_groupmax(pm, xd, n, groups, ng, lam, t);
            xd[j] += h;
            for (int i = 0; i < n; i++) Jr[i * n + j] = (pp[i] - pm[i]) / (2 * h);
        }
        for (int j = 0; j < n; j++) {
            memset(e, 0, sizeof e);
            e[j] = 1.0f;
            CHECK(sx_groupmax_backward(dx, x, e, 1, n, groups, ng, lam, t) == SX_OK, "%s", sx_last_error());
            for (int i = 0; i < n; i++) { J[j * n + i] = dx[i]; worst = fmax(worst, fabs(dx[i] - Jr[j * n + i])); }
        }
        for (int i = 0; i < n; i++) {
            double rs = 0.0;
            for (int j = 0; j < n; j++) { rs += J[i * n + j]; worst_sym = fmax(worst_sym, fabs(J[i * n + j] - J[j * n + i])); }
            worst_rows = fmax(worst_rows, fabs(rs));
        }
        for (int i = 0; i < n; i++) dy[i] = (float)nrand();
        CHECK(sx_groupmax_backward(g, x, dy, 1, n, groups, ng, lam, t) == SX_OK, "%s", sx_last_error());
        for (int j = 0; j < n; j++) {
            double v = 0.0;
            for (int i = 0; i < n; i++) v += Jr[i * n + j] * dy[i];
            worst_vjp = fmax(worst_vjp, fabs(g[j] - v));
        }
    }
    CHECK(tested >= 200, "only %d points away from kinks", tested);
    CHECK(worst <= 2e-5, "backward vs central differences: %g", worst);
    CHECK(worst_vjp <= 1e-4, "J^T dy vs central differences: %g", worst_vjp);
    CHECK(worst_sym <= 1e-6, "J not symmetric: %g", worst_sym);
    CHECK(worst_rows <= 1e-5, "J rows do not sum to 0: %g", worst_rows);
    printf("  groupmax backward vs central differences of the float64 reference (%d points): worst %.3g "
           "(J^T dy: %.3g); asymmetry %.3g; row sums %.3g\n", tested, worst, worst_vjp, worst_sym, worst_rows);
    /* lambda = 0: sparsemax's backward, bitwise */
    float x6[6] = { 1, 0.5f, 0.2f, -1, 0.9f, 0.8f }, d1[6], d2[6], dy6[6] = { 1, -2, 3, 0.5f, 0, 2 };
    const int g6[2] = { 3, 3 };
    sx_groupmax_backward(d1, x6, dy6, 1, 6, g6, 2, 0.0f, 0.7f);
    sx_sparsemax_backward(d2, x6, dy6, 1, 6, 0.7f);
    CHECK(!memcmp(d1, d2, sizeof d1), "lambda 0 backward is not sparsemax's");
}

/* ------------------------------------------------------------------ errors */
#define EXPECT(call, status, msg) do { \
    int _st = (call); \
    CHECK(_st == (status) && !strcmp(sx_last_error(), (msg)), "%s: status %d, message \"%s\" (want \"%s\")", #call, _st, sx_last_error(), (msg)); \
} while (0)

static void test_errors(void) {
    float x[6] = { 0.5f, 1, 2, 0, -1, 3 }, out[6], dy[6] = { 1, 0, 0, 1, 0, 0 };
    const int g[3] = { 2, 3, 1 }, bad0[3] = { 2, 0, 4 }, badneg[3] = { 2, -1, 5 }, bad5[2] = { 2, 3 }, bad7[3] = { 2, 3, 2 };
    EXPECT(sx_groupmax(out, x, 1, 0, g, 3, 1, 1), SX_EINVAL, "n must be >= 1 (got 0)");
    EXPECT(sx_groupmax(out, x, -1, 6, g, 3, 1, 1), SX_EINVAL, "rows must be >= 0 (got -1)");
    EXPECT(sx_groupmax(NULL, x, 1, 6, g, 3, 1, 1), SX_EINVAL, "null buffer (out)");
    EXPECT(sx_groupmax_backward(out, x, NULL, 1, 6, g, 3, 1, 1), SX_EINVAL, "null buffer (dy)");
    EXPECT(sx_groupmax(out, x, 1, 6, g, 3, 1, 0), SX_EINVAL, "temperature must be finite and > 0 (got 0)");
    EXPECT(sx_groupmax(out, x, 1, 6, g, 3, -1, 1), SX_EINVAL, "lambda must be >= 0 (got -1)");
    EXPECT(sx_groupmax(out, x, 1, 6, g, 3, NAN, 1), SX_EINVAL, "lambda must be finite (got NaN)");
    EXPECT(sx_groupmax_backward(out, x, dy, 1, 6, g, 3, INFINITY, 1), SX_EINVAL, "lambda must be finite (got Infinity)");
    EXPECT(sx_groupmax(out, x, 1, 6, g, 0, 1, 1), SX_EINVAL, "n_groups must be >= 1 (got 0)");
    EXPECT(sx_groupmax(out, x, 1, 6, g, 7, 1, 1), SX_EINVAL, "n_groups must be <= n (got 7, n = 6)");
    EXPECT(sx_groupmax(out, x, 1, 6, NULL, 3, 1, 1), SX_EINVAL, "null buffer (groups)");
    EXPECT(sx_groupmax(out, x, 1, 6, bad0, 3, 1, 1), SX_EINVAL, "groups[1] must be >= 1 (got 0)");
    EXPECT(sx_groupmax_backward(out, x, dy, 1, 6, badneg, 3, 1, 1), SX_EINVAL, "groups[1] must be >= 1 (got -1)");
    EXPECT(sx_groupmax(out, x, 1, 6, bad5, 2, 1, 1), SX_EINVAL, "groups must sum to n (got 5, n = 6)");
    EXPECT(sx_groupmax(out, x, 1, 6, bad7, 3, 0, 1), SX_EINVAL, "groups must sum to n (got 7, n = 6)");
    EXPECT(sx_groupmax(out, x, 0, 6, bad7, 3, 1, 1), SX_EINVAL, "groups must sum to n (got 7, n = 6)");
    CHECK(sx_groupmax(out, x, 0, 6, g, 3, 1, 1) == SX_OK, "rows = 0 is fine");
    float bad[12], o[12];
    for (int i = 0; i < 12; i++) { bad[i] = (float)i; o[i] = 42.0f; }
    bad[11] = NAN;
    EXPECT(sx_groupmax(o, bad, 2, 6, g, 3, 0.5f, 1), SX_ENONFINITE, "x[11] must be finite or -Infinity (got NaN)");
    CHECK(sx_last_error_index() == 11, "index %d", sx_last_error_index());
    bad[11] = 0;
    bad[7] = INFINITY;
    EXPECT(sx_groupmax_backward(o, bad, bad, 2, 6, g, 3, 0.5f, 1), SX_ENONFINITE, "x[7] must be finite or -Infinity (got Infinity)");
    bad[7] = -INFINITY;
    float gg[12];
    for (int i = 0; i < 12; i++) gg[i] = 1;
    gg[9] = -INFINITY;
    EXPECT(sx_groupmax_backward(o, bad, gg, 2, 6, g, 3, 0.5f, 1), SX_ENONFINITE, "dy[9] must be finite (got -Infinity)");
    int untouched = 1;
    for (int i = 0; i < 12; i++) untouched &= o[i] == 42.0f;
    CHECK(untouched, "groupmax wrote output before failing");
    /* sigmoid */
    EXPECT(sx_sigmoid(out, x, 1, 0, 1), SX_EINVAL, "n must be >= 1 (got 0)");
    EXPECT(sx_sigmoid(out, NULL, 1, 6, 1), SX_EINVAL, "null buffer (x)");
    EXPECT(sx_sigmoid_backward(out, x, NULL, 1, 6, 1), SX_EINVAL, "null buffer (dy)");
    EXPECT(sx_sigmoid(out, x, 1, 6, -2), SX_EINVAL, "temperature must be finite and > 0 (got -2)");
    bad[7] = INFINITY;
    EXPECT(sx_sigmoid(o, bad, 2, 6, 1), SX_ENONFINITE, "x[7] must be finite or -Infinity (got Infinity)");
    bad[7] = NAN;
    EXPECT(sx_sigmoid_backward(o, bad, gg, 2, 6, 1), SX_ENONFINITE, "x[7] must be finite or -Infinity (got NaN)");
    bad[7] = -INFINITY;
    EXPECT(sx_sigmoid_backward(o, bad, gg, 2, 6, 1), SX_ENONFINITE, "dy[9] must be finite (got -Infinity)");
    untouched = 1;
    for (int i = 0; i < 12; i++) untouched &= o[i] == 42.0f;
    CHECK(untouched, "sigmoid wrote output before failing");
    float tau[1];
    EXPECT(sx_threshold(tau, x, 1, 6, SX_MAP_SIGMOID, 0, 1), SX_EINVAL,
           "sx_threshold: sigmoid has no threshold (its weights are independent, p_i = sigmoid(x_i / T): no tau couples them)");
}

/* ------------------------------------------------------------------ sigmoid */
static void test_sigmoid(void) {
    const float l3 = (float)log(3.0);
    float x[8] = { 0.0f, l3, -l3, -INFINITY, 100.0f, -80.0f, 2 * l3, 1e-30f }, p[8];
    CHECK(sx_sigmoid(p, x, 2, 4, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(p[0] == 0.5f, "sigmoid(0) = %g", p[0]);
    CHECK_NEAR(p[1], 0.75, 1e-7, "sigmoid(ln 3)");
    CHECK_NEAR(p[2], 0.25, 1e-7, "sigmoid(-ln 3)");
    CHECK(p[3] == 0.0f, "sigmoid(-Infinity) must be exactly 0 (got %g)", p[3]);
    CHECK(p[4] == 1.0f, "sigmoid(100) = %g", p[4]);
    CHECK(p[5] > 0.0f && fabs(p[5] / exp(-80.0) - 1) < 1e-6, "sigmoid(-80) keeps its relative accuracy (%g)", p[5]);
    CHECK_NEAR(p[6], 0.9, 1e-7, "sigmoid(2 ln 3) = 9/10");
    double s = p[0] + p[1] + p[2] + p[3];
    CHECK(fabs(s - 1.5) < 1e-6, "not on the simplex: the row [0, ln3, -ln3, -inf] sums to 1.5 (got %g)", s);
    /* temperature: sigmoid(x / T) */
    float q[8];
    sx_sigmoid(q, x, 1, 8, 2.0f);
    CHECK_NEAR(q[6], 0.75, 1e-7, "sigmoid(2 ln 3 / 2)");
    /* backward vs p (1 - p) / T and central differences in double */
    double worst = 0.0;
    for (int trial = 0; trial < 200; trial++) {
        float xs[8], dy[8], dx[8], t = (float)(0.2 + 3 * urand());
        for (int i = 0; i < 8; i++) { xs[i] = (float)(3 * nrand()); dy[i] = (float)nrand(); }
        xs[0] = -INFINITY;
        CHECK(sx_sigmoid_backward(dx, xs, dy, 1, 8, t) == SX_OK, "%s", sx_last_error());
        CHECK(dx[0] == 0.0f && !signbit(dx[0]), "masked entry: gradient +0");
        for (int i = 1; i < 8; i++) {
            double h = 1e-6, a = xs[i] / (double)t;
            double fd = (1 / (1 + exp(-(a + h / t))) - 1 / (1 + exp(-(a - h / t)))) / (2 * h);
            worst = fmax(worst, fabs(dx[i] - dy[i] * fd));
        }
    }
    CHECK(worst <= 1e-6, "sigmoid backward vs central differences: %g", worst);
    /* tiny T: +-Infinity or 0, never NaN */
    float xt[3] = { 0.0f, 1.0f, -1.0f }, dt[3] = { 1, 1, -1 }, gt[3];
    CHECK(sx_sigmoid_backward(gt, xt, dt, 1, 3, 1e-44f) == SX_OK, "%s", sx_last_error());
    CHECK(gt[0] == INFINITY && gt[1] == 0.0f && gt[2] == 0.0f, "tiny T: got %g %g %g", gt[0], gt[1], gt[2]);
    /* sx_jacobian: the diagonal, equal to the backward on unit vectors */
    float J[16], e[4], d[4], xj[4] = { 0.3f, -1.0f, -INFINITY, 2.0f };
    CHECK(sx_jacobian(J, xj, 1, 4, SX_MAP_SIGMOID, 0, 0.5f) == SX_OK, "%s", sx_last_error());
    int ok = 1;
    for (int j = 0; j < 4; j++) {
        memset(e, 0, sizeof e);
        e[j] = 1;
        sx_sigmoid_backward(d, xj, e, 1, 4, 0.5f);
        for (int i = 0; i < 4; i++) ok &= J[j * 4 + i] == d[i] && (i == j || J[j * 4 + i] == 0.0f);
    }
    CHECK(ok, "sx_jacobian(SX_MAP_SIGMOID) is not the diagonal of the backward pass");
    printf("  sigmoid backward vs central differences: worst %.3g\n", worst);
}

int main(void) {
    test_errors();
    test_golden();
    test_special_cases();
    test_reference();
    test_group_sparsity();
    test_masks_and_edges();
    test_backward();
    test_sigmoid();
    return sx_test_summary("test_groupmax");
}
