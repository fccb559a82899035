/* test_losses.c - the Fenchel-Young losses (sx_fy_loss, sx_fy_loss_index) against a float64
   reference built from ref.c's mappings and the literal formula, the sparsemax loss against
   Martins & Astudillo's closed form, zero loss once the margin is met, the alpha = 1 limit,
   dx and dalpha against central differences, targets as indices and as distributions, skipped
   rows, masks, temperature, extreme magnitudes and every error path. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "ref.h"
#include "simplexity.h"

#define MAXN 48

static uint64_t rng = 0x10555ULL;
static double unit(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static double range(double lo, double hi) { return lo + (hi - lo) * unit(); }
static int irange(int lo, int hi) { return lo + (int)(unit() * (hi - lo + 1)) % (hi - lo + 1); }

static int code_of(double alpha) {
    return alpha == 1.0 ? SX_MAP_SOFTMAX : alpha == 2.0 ? SX_MAP_SPARSEMAX : alpha == 1.5 ? SX_MAP_ENTMAX15 : SX_MAP_ENTMAX;
}

/* The literal loss in double: p by the references, <p - y, z> + H(p) - H(y). */
static double ref_loss(const double *z, const double *y, int n, double alpha) {
    double p[MAXN], lin = 0.0;
    ref_entmax(p, z, n, alpha);
    for (int i = 0; i < n; i++)
        if (z[i] != -INFINITY) lin += (p[i] - y[i]) * z[i];
    return lin + ref_tsallis(p, n, alpha) - ref_tsallis(y, n, alpha);
}

/* A random row (scale, ties, masks) and a target distribution on its unmasked entries (one-hot
   when onehot >= 0 is returned). */
static int random_case(float *x, float *y, int n, double scale, int masks, int dense_target) {
    int live = 0, first = -1;
    for (int i = 0; i < n; i++) {
        x[i] = (float)(scale * range(-2, 2));
        if (i && unit() < 0.15) x[i] = x[i - 1];
        if (masks && unit() < 0.2 && i) x[i] = -INFINITY;
        if (x[i] != -INFINITY) live++, first = first < 0 ? i : first;
    }
    int t = first, k = irange(0, live - 1); /* the k-th unmasked entry */
    for (int i = 0; i < n; i++)
        if (x[i] != -INFINITY && k-- == 0) t = i;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        y[i] = dense_target && x[i] != -INFINITY ? (float)(unit() < 0.3 ? 0.0 : unit()) : 0.0f;
        if (!dense_target && i == t) y[i] = 1.0f;
        s += y[i];
    }
    if (s == 0.0) y[t] = 1.0f, s = 1.0;
    for (int i = 0; i < n; i++) y[i] = (float)(y[i] / s);
    return t;
}

static void test_against_reference(void) {
    const double alphas[] = { 1.0, 1.05, 1.3, 1.5, 1.7, 2.0, 3.0 };
    float x[MAXN], y[MAXN], loss[1], dx[MAXN];
    double z[MAXN], yd[MAXN], worst = 0.0;
    for (int trial = 0; trial < 4000; trial++) {
        const int n = irange(1, MAXN), dense = trial % 2;
        const double alpha = alphas[trial % 7], scale = unit() < 0.5 ? 1.0 : range(0.01, 30.0);
        const float t = unit() < 0.6 ? 1.0f : (float)range(0.2, 4.0);
        random_case(x, y, n, scale, trial % 3 == 0, dense);
        double zmax = 0.0, ys = 0.0;
        for (int i = 0; i < n; i++) {
            z[i] = x[i] == -INFINITY ? -INFINITY : x[i] / (double)t;
            if (x[i] != -INFINITY) zmax = fmax(zmax, fabs(z[i]));
            ys += y[i];
        }
        for (int i = 0; i < n; i++) yd[i] = y[i] / ys;
        const int st = sx_fy_loss(loss, dx, NULL, x, y, 1, n, code_of(alpha), (float)alpha, t);
        const double want = ref_loss(z, yd, n, alpha), err = fabs(loss[0] - want) / (1.0 + zmax);
        worst = fmax(worst, err);
        if (st != SX_OK || !(err <= 2e-6) || !(loss[0] >= 0.0f)) {
            CHECK(0, "alpha %g n %d T %g: loss %.9g, reference %.9g (%s)", alpha, n, t, loss[0], want,
                  st ? sx_last_error() : "ok");
            return;
        }
    }
    CHECK(1, "reference");
    printf("  loss vs float64 reference, 4000 rows: worst |diff| / (1 + max|z|) %.3g\n", worst);
}

/* Martins & Astudillo 2016, eq. 17: L = -z_k + 1/2 sum_{j in S} (z_j^2 - tau^2) + 1/2. */
static void test_sparsemax_closed_form(void) {
    float x[MAXN], y[MAXN], loss[1];
    double z[MAXN], p[MAXN], worst = 0.0;
    int target[1];
    for (int trial = 0; trial < 2000; trial++) {
        const int n = irange(2, MAXN);
        target[0] = random_case(x, y, n, range(0.1, 5.0), 0, 0);
        for (int i = 0; i < n; i++) z[i] = x[i];
        const double tau = ref_sparsemax(p, z, n);
        double want = -z[target[0]] + 0.5;
        for (int i = 0; i < n; i++)
            if (p[i] > 0.0) want += 0.5 * (z[i] * z[i] - tau * tau);
        CHECK(sx_fy_loss_index(loss, NULL, NULL, x, target, 1, n, SX_MAP_SPARSEMAX, 0.0f, 1.0f) == SX_OK, "%s",
              sx_last_error());
        worst = fmax(worst, fabs(loss[0] - want));
    }
    CHECK(worst <= 1e-5, "sparsemax loss vs the closed form: %g", worst);
    printf("  sparsemax loss vs Martins & Astudillo's closed form: worst |diff| %.3g\n", worst);
}

/* Zero exactly once the target wins by the margin; cross-entropy stays positive. */
static void test_margins(void) {
    const float x[4] = { 3.0f, 2.0f, 1.5f, -INFINITY }, x15[4] = { 4.0f, 2.0f, 1.0f, 0.0f };
    const float close[4] = { 3.0f, 2.5f, 1.5f, 0.0f };
    const int t0[1] = { 0 };
    float l[1];
    CHECK(sx_fy_loss_index(l, NULL, NULL, x, t0, 1, 4, SX_MAP_SPARSEMAX, 0, 1) == 0 && l[0] == 0.0f,
          "sparsemax loss at margin 1: %g", l[0]);
    CHECK(sx_fy_loss_index(l, NULL, NULL, close, t0, 1, 4, SX_MAP_SPARSEMAX, 0, 1) == 0 && l[0] > 0.0f,
          "sparsemax loss at margin 0.5: %g", l[0]);
    CHECK(sx_fy_loss_index(l, NULL, NULL, x15, t0, 1, 4, SX_MAP_ENTMAX15, 0, 1) == 0 && l[0] == 0.0f,
          "1.5-entmax loss at margin 2: %g", l[0]);
    CHECK(sx_fy_loss_index(l, NULL, NULL, x, t0, 1, 4, SX_MAP_ENTMAX15, 0, 1) == 0 && l[0] > 0.0f,
          "1.5-entmax loss at margin 1: %g", l[0]);
    const float far[3] = { 20.0f, 0.0f, 0.0f };
    CHECK(sx_fy_loss_index(l, NULL, NULL, far, t0, 1, 3, SX_MAP_SOFTMAX, 0, 1) == 0 && l[0] > 0.0f &&
              fabs(l[0] - log1p(2 * exp(-20.0))) < 1e-12,
          "cross-entropy at margin 20: %g", l[0]);
    CHECK(sx_fy_loss_index(l, NULL, NULL, far, t0, 1, 3, SX_MAP_ENTMAX, 1.25f, 1) == 0 && l[0] < 1e-6f,
          "1.25-entmax loss at margin 20 (> 1 / (alpha - 1)): %g", l[0]);
}

/* alpha = 1 is softmax's cross-entropy, and the loss and its alpha gradient are continuous there. */
static void test_alpha_one(void) {
    float x[MAXN], y[MAXN], l0[1], l1[1], lh[1], d1[1], dh[1], dx[MAXN];
    double worst = 0.0;
    for (int trial = 0; trial < 300; trial++) {
        const int n = irange(2, 20);
        random_case(x, y, n, 2.0, trial % 2, trial % 3 == 0);
        CHECK(sx_fy_loss(l0, NULL, NULL, x, y, 1, n, SX_MAP_SOFTMAX, 0, 1) == 0, "%s", sx_last_error());
        CHECK(sx_fy_loss(l1, dx, d1, x, y, 1, n, SX_MAP_ENTMAX, 1.0f, 1) == 0, "%s", sx_last_error());
        CHECK(sx_fy_loss(lh, NULL, dh, x, y, 1, n, SX_MAP_ENTMAX, 1.001f, 1) == 0, "%s", sx_last_error());
        CHECK(l0[0] == l1[0], "entmax at alpha 1 (%.9g) is the cross-entropy (%.9g)", l1[0], l0[0]);
        const double h = (double)1.001f - 1.0, fd = (lh[0] - l1[0]) / h;
        worst = fmax(worst, fabs(fd - 0.5 * (d1[0] + dh[0])) / (1.0 + fabs(d1[0])));
        CHECK(fabs(d1[0] - dh[0]) <= 0.02 * (1.0 + fabs(d1[0])), "dalpha jumps at alpha 1: %g vs %g", d1[0], dh[0]);
    }
    CHECK(worst <= 5e-3, "dalpha at alpha 1 vs a difference over [1, 1.001]: %g", worst);
    printf("  alpha = 1: the cross-entropy; dalpha vs a one-sided difference: worst %.3g\n", worst);
}

/* dx against central differences of the float64 reference; dalpha likewise in alpha. */
static void test_gradients(void) {
    /* 1.01 and 1.05 put most entries in dH/dalpha's series (|(alpha - 1) log p| < 0.1) */
    const double alphas[] = { 1.0, 1.2, 1.5, 1.8, 2.0, 2.5, 1.01, 1.05 };
    float x[MAXN], y[MAXN], loss[1], dx[MAXN], da[1];
    double z[MAXN], yd[MAXN], wx = 0.0, wa = 0.0;
    for (int trial = 0; trial < 800; trial++) {
        const int n = irange(2, 16);
        const double alpha = alphas[trial % 8];
        const float t = trial % 4 == 0 ? 0.5f : 1.0f;
        random_case(x, y, n, 1.5, trial % 3 == 0, trial % 2);
        for (int i = 0; i < n; i++) z[i] = x[i] == -INFINITY ? -INFINITY : x[i] / (double)t, yd[i] = y[i];
        const int code = alpha == 1.0 || alpha == 2.0 ? SX_MAP_ENTMAX : code_of(alpha);
        CHECK(sx_fy_loss(loss, dx, code == SX_MAP_ENTMAX ? da : NULL, x, y, 1, n, code, (float)alpha, t) == 0, "%s",
              sx_last_error());
        const double h = 1e-5;
        for (int i = 0; i < n; i++) {
            if (x[i] == -INFINITY) continue;
            const double zi = z[i];
            z[i] = zi + h / t;
            const double up = ref_loss(z, yd, n, alpha);
            z[i] = zi - h / t;
            const double dn = ref_loss(z, yd, n, alpha);
            z[i] = zi;
            wx = fmax(wx, fabs(dx[i] - (up - dn) / (2 * h)));
        }
        if (code == SX_MAP_ENTMAX && alpha > 1.0) {
            const double fd = (ref_loss(z, yd, n, alpha + h) - ref_loss(z, yd, n, alpha - h)) / (2 * h);
            wa = fmax(wa, fabs(da[0] - fd) / (1.0 + fabs(fd)));
        }
    }
    CHECK(wx <= 2e-5, "dx vs central differences: %g", wx);
    CHECK(wa <= 2e-6, "dalpha vs central differences: %g", wa);
    printf("  dx vs central differences: worst %.3g; dalpha: worst relative %.3g\n", wx, wa);
}

/* Indices and one-hot distributions agree; -1 skips a row; several rows at once. */
static void test_indices_and_rows(void) {
    float x[3 * 5], y[3 * 5] = { 0 }, la[3], lb[3], da[3 * 5], db[3 * 5], aa[3], ab[3];
    const int target[3] = { 4, -1, 0 };
    for (int i = 0; i < 15; i++) x[i] = (float)sin(i * 1.7) * 2.0f;
    x[7] = -INFINITY;
    y[4] = 1.0f, y[5] = 0.25f, y[6] = 0.75f, y[10] = 1.0f;
    CHECK(sx_fy_loss_index(la, da, aa, x, target, 3, 5, SX_MAP_ENTMAX, 1.3f, 0.8f) == 0, "%s", sx_last_error());
    CHECK(sx_fy_loss(lb, db, ab, x, y, 3, 5, SX_MAP_ENTMAX, 1.3f, 0.8f) == 0, "%s", sx_last_error());
    CHECK(la[0] == lb[0] && la[2] == lb[2] && aa[0] == ab[0] && aa[2] == ab[2], "index vs one-hot rows");
    CHECK(la[1] == 0.0f && aa[1] == 0.0f && lb[1] > 0.0f, "a skipped row: %g %g", la[1], aa[1]);
    int same = 1, zero = 1;
    for (int i = 0; i < 5; i++) {
        same &= da[i] == db[i] && da[10 + i] == db[10 + i];
        zero &= da[5 + i] == 0.0f;
    }
    CHECK(same && zero, "dx of index and one-hot rows, and of a skipped row");
    /* shift invariance and temperature: L(x + c, T) = L(x, T), L(x, T) = L(x / T, 1) */
    float xs[5], xt[5], l1[1], l2[1];
    for (int i = 0; i < 5; i++) xs[i] = x[i] + 100.0f, xt[i] = x[i] / 0.8f;
    CHECK(sx_fy_loss_index(l1, NULL, NULL, xs, target, 1, 5, SX_MAP_ENTMAX15, 0, 0.8f) == 0 &&
              sx_fy_loss_index(l2, NULL, NULL, xt, target, 1, 5, SX_MAP_ENTMAX15, 0, 1.0f) == 0,
          "%s", sx_last_error());
    CHECK_NEAR(l1[0], l2[0], 1e-4, "shift by 100 and T = 0.8 vs x / T");
}

static void test_extremes(void) {
    const float huge[4] = { 3e38f, -3e38f, 1e30f, 0.0f }, tiny[4] = { 1e-30f, 0.0f, -1e-30f, 2e-30f };
    const int t1[1] = { 1 }, t0[1] = { 0 };
    float l[1], dx[4], da[1];
    const int codes[4] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX };
    for (int c = 0; c < 4; c++) {
        for (int k = 0; k < 3; k++) {
            const float *x = k == 2 ? tiny : huge, t = k == 1 ? 1e-6f : 1.0f;
            const int *tg = k == 0 ? t1 : t0;
            CHECK(sx_fy_loss_index(l, dx, codes[c] == SX_MAP_ENTMAX ? da : NULL, x, tg, 1, 4, codes[c], 1.3f, t) == 0,
                  "%s", sx_last_error());
            int ok = l[0] == l[0] && l[0] >= 0.0f;
            for (int i = 0; i < 4; i++) ok &= dx[i] == dx[i];
            if (codes[c] == SX_MAP_ENTMAX) ok &= da[0] == da[0];
            CHECK(ok, "mapping %d case %d: loss %g (no NaN)", codes[c], k, l[0]);
        }
    }
    /* tiny scores: uniform p, loss = the entropy gap to a one-hot target */
    CHECK(sx_fy_loss_index(l, NULL, NULL, tiny, t0, 1, 4, SX_MAP_SOFTMAX, 0, 1) == 0, "%s", sx_last_error());
    CHECK_NEAR(l[0], log(4.0), 1e-6, "cross-entropy of a flat row");
}

static void expect(int st, int want, const char *has, const char *what) {
    CHECK(st == want && strstr(sx_last_error(), has) != NULL, "%s: status %d, '%s' (want %d with '%s')", what, st,
          sx_last_error(), want, has);
}

static void test_errors(void) {
    const float x[3] = { 1, 2, -INFINITY }, y[3] = { 0.5f, 0.5f, 0 }, bad_sum[3] = { 0.5f, 0.2f, 0 };
    const float on_mask[3] = { 0.5f, 0.25f, 0.25f }, neg[3] = { 1.5f, -0.5f, 0 }, nanx[3] = { 1, NAN, 0 };
    const int t_ok[1] = { 1 }, t_big[1] = { 3 }, t_neg[1] = { -2 }, t_mask[1] = { 2 };
    float l[1], dx[3], da[1];
    expect(sx_fy_loss(l, dx, NULL, x, y, 1, 3, SX_MAP_FUSEDMAX, 1, 1), SX_EINVAL, "mapping 5", "fusedmax");
    expect(sx_fy_loss(l, dx, NULL, x, y, 1, 3, 99, 1, 1), SX_EINVAL, "mapping 99", "code 99");
    expect(sx_fy_loss(l, dx, NULL, x, y, 1, 3, SX_MAP_ENTMAX, 0.5f, 1), SX_EINVAL, "alpha", "alpha 0.5");
    expect(sx_fy_loss(l, dx, NULL, x, y, 1, 3, SX_MAP_ENTMAX, NAN, 1), SX_EINVAL, "alpha", "alpha NaN");
    expect(sx_fy_loss(l, dx, da, x, y, 1, 3, SX_MAP_SPARSEMAX, 0, 1), SX_EINVAL, "dalpha", "dalpha, sparsemax");
    expect(sx_fy_loss(l, dx, NULL, x, y, 1, 3, SX_MAP_SOFTMAX, 0, 0.0f), SX_EINVAL, "temperature", "T 0");
    expect(sx_fy_loss(l, dx, NULL, nanx, y, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_ENONFINITE, "x[1]", "NaN x");
    expect(sx_fy_loss(l, dx, NULL, x, bad_sum, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "sums to 0.7", "y sum");
    expect(sx_fy_loss(l, dx, NULL, x, on_mask, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "masked", "y on a mask");
    expect(sx_fy_loss(l, dx, NULL, x, neg, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_ENONFINITE, "y[1]", "y < 0");
    expect(sx_fy_loss(l, dx, NULL, x, NULL, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "(y)", "NULL y");
    expect(sx_fy_loss(NULL, dx, NULL, x, y, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "(loss)", "NULL loss");
    expect(sx_fy_loss_index(l, dx, NULL, x, t_big, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "target[0]", "t = n");
    expect(sx_fy_loss_index(l, dx, NULL, x, t_neg, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "got -2", "t = -2");
    expect(sx_fy_loss_index(l, dx, NULL, x, t_mask, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "masked", "t masked");
    expect(sx_fy_loss_index(l, dx, NULL, x, NULL, 1, 3, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "(target)", "NULL t");
    expect(sx_fy_loss_index(l, dx, NULL, x, t_ok, 1, 0, SX_MAP_SOFTMAX, 0, 1), SX_EINVAL, "n must", "n = 0");
    /* the empty call: rows = 0 reads nothing, any buffer may be NULL; parameters still checked */
    CHECK(sx_fy_loss(NULL, NULL, NULL, NULL, NULL, 0, 3, SX_MAP_SOFTMAX, 0, 1) == SX_OK, "empty call");
    CHECK(sx_fy_loss_index(NULL, NULL, NULL, NULL, NULL, 0, 3, SX_MAP_ENTMAX, 1.5f, 1) == SX_OK, "empty call");
    expect(sx_fy_loss(NULL, NULL, NULL, NULL, NULL, 0, 3, SX_MAP_ENTMAX, 0.0f, 1), SX_EINVAL, "alpha", "empty, alpha");
}

int main(void) {
    test_errors();
    test_against_reference();
    test_sparsemax_closed_form();
    test_margins();
    test_alpha_one();
    test_gradients();
    test_indices_and_rows();
    test_extremes();
    return sx_test_summary("test_losses");
}
