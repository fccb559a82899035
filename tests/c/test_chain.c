/* test_chain.c - structured attention over a chain (chain.c, sparsemap.c) against brute force
   over all 2^n selections of short rows: the CRF marginals and their covariance (the backward
   pass), SparseMAP by its optimality certificate (no selection beats the active ones on u - mu,
   the active ones tie), its closed form at t = 0 (clip(u, 0, 1)), its backward pass against
   central differences where the active set is stable, masks, huge magnitudes and every error. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"

#define MAXN 10
#define CAP 128

static uint64_t rng = 0xc4a1dULL;
static double unit(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static double range(double lo, double hi) { return lo + (hi - lo) * unit(); }

/* A random row: scale, some masked entries, sometimes ties. */
static void random_row(float *u, int n, double scale, int masks) {
    for (int i = 0; i < n; i++) u[i] = (float)range(-scale, scale);
    if (unit() < 0.2 && n > 1) u[1] = u[0];
    if (masks)
        for (int i = 0; i < n; i++)
            if (unit() < 0.15) u[i] = -INFINITY;
}

static int bit(unsigned s, int i) { return (int)((s >> i) & 1u); }

static int allowed(unsigned s, const float *u, int n) {
    for (int i = 0; i < n; i++)
        if (bit(s, i) && u[i] == -INFINITY) return 0;
    return 1;
}

static double chain_score(unsigned s, const double *w, int n, double t) {
    double v = 0.0;
    for (int i = 0; i < n; i++)
        if (bit(s, i)) v += w[i] + (i + 1 < n && bit(s, i + 1) ? t : 0.0);
    return v;
}

static double pairs_of(unsigned s, int n) {
    double c = 0.0;
    for (int i = 0; i + 1 < n; i++) c += bit(s, i) && bit(s, i + 1);
    return c;
}

/* Brute-force CRF: marginals, and with g the covariance products J g and Cov(g.y, pairs). */
static void brute_crf(double *mu, double *jg, double *dt, const float *u, const float *g, int n, double t) {
    double w[MAXN], top = -INFINITY, z = 0.0, eg = 0.0, ec = 0.0, egc = 0.0, eyg[MAXN] = {0};
    for (int i = 0; i < n; i++) w[i] = u[i];
    for (unsigned s = 0; s < (1u << n); s++)
        if (allowed(s, u, n) && chain_score(s, w, n, t) > top) top = chain_score(s, w, n, t);
    for (int i = 0; i < n; i++) mu[i] = 0.0;
    for (unsigned s = 0; s < (1u << n); s++) {
        if (!allowed(s, u, n)) continue;
        double p = exp(chain_score(s, w, n, t) - top), gy = 0.0;
        z += p;
        for (int i = 0; i < n; i++)
            if (bit(s, i)) { mu[i] += p; gy += g ? g[i] : 0.0; }
        for (int i = 0; i < n; i++)
            if (bit(s, i)) eyg[i] += p * gy;
        eg += p * gy;
        ec += p * pairs_of(s, n);
        egc += p * gy * pairs_of(s, n);
    }
    for (int i = 0; i < n; i++) {
        mu[i] /= z;
        if (jg) jg[i] = eyg[i] / z - mu[i] * eg / z;
    }
    if (dt) *dt = egc / z - (eg / z) * (ec / z);
}

static void test_crf_brute(void) {
    float u[MAXN], g[MAXN], mu[MAXN], du[MAXN], dt;
    double ref[MAXN], jg[MAXN], rdt, worst = 0.0, worst_g = 0.0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + trial % MAXN;
        double t = range(-4.0, 4.0);
        random_row(u, n, trial % 3 == 0 ? 8.0 : 2.0, trial % 4 == 0);
        for (int i = 0; i < n; i++) g[i] = (float)range(-1.0, 1.0);
        CHECK(sx_chain_marginals(mu, u, 1, n, (float)t) == SX_OK, "%s", sx_last_error());
        CHECK(sx_chain_marginals_backward(du, &dt, u, g, 1, n, (float)t) == SX_OK, "%s", sx_last_error());
        brute_crf(ref, jg, &rdt, u, g, n, (float)t);
        double gs = 0.0;
        for (int i = 0; i < n; i++) {
            double e = fabs(mu[i] - ref[i]);
            if (e > worst) worst = e;
            if (fabs(du[i] - jg[i]) > worst_g) worst_g = fabs(du[i] - jg[i]);
            gs += fabs(jg[i]);
            if (u[i] == -INFINITY) CHECK(mu[i] == 0.0f && du[i] == 0.0f, "masked entry %d: %g %g", i, mu[i], du[i]);
        }
        CHECK_NEAR(dt, rdt, 1e-5 * (1.0 + fabs(rdt)), "dt, n %d trial %d", n, trial);
        (void)gs;
    }
    CHECK(worst < 2e-6, "CRF marginals: worst error %g against brute force", worst);
    CHECK(worst_g < 1e-5, "CRF backward: worst error %g against the brute-force covariance", worst_g);
}

/* t = 0: independent sigmoids; huge magnitudes: 0 and 1 exactly, no NaN; every row masked: 0. */
static void test_crf_limits(void) {
    float u[6] = {-2.0f, 0.0f, 3.0f, -INFINITY, 1e30f, -1e30f}, mu[6], du[6], g[6] = {1, 1, 1, 1, 1, 1}, dt;
    CHECK(sx_chain_marginals(mu, u, 1, 6, 0.0f) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < 3; i++) CHECK_NEAR(mu[i], 1.0 / (1.0 + exp(-u[i])), 1e-7, "t = 0, entry %d", i);
    CHECK(mu[3] == 0.0f && mu[4] == 1.0f && mu[5] == 0.0f, "masked / huge: %g %g %g", mu[3], mu[4], mu[5]);
    float big[4] = {1e30f, -1e30f, 1e30f, 1e30f};
    CHECK(sx_chain_marginals(mu, big, 1, 4, 1e30f) == SX_OK, "%s", sx_last_error());
    CHECK(mu[0] == 1.0f && mu[1] == 1.0f && mu[2] == 1.0f && mu[3] == 1.0f, "t = 1e30 joins them: %g %g %g %g",
          mu[0], mu[1], mu[2], mu[3]);
    CHECK(sx_chain_marginals_backward(du, &dt, big, g, 1, 4, 1e30f) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < 4; i++) CHECK(isfinite(du[i]), "huge: du[%d] = %g", i, du[i]);
    CHECK(isfinite(dt), "huge: dt %g", dt);
    float masked[3] = {-INFINITY, -INFINITY, -INFINITY};
    CHECK(sx_chain_marginals(mu, masked, 1, 3, 2.0f) == SX_OK && mu[0] == 0.0f && mu[1] == 0.0f && mu[2] == 0.0f,
          "all masked: %g %g %g", mu[0], mu[1], mu[2]);
    CHECK(sx_chain_marginals_backward(du, &dt, masked, g, 1, 3, 2.0f) == SX_OK && du[0] == 0.0f && dt == 0.0f,
          "all masked backward: %g %g", du[0], dt);
}

/* The certificate: weights >= 0 summing to 1 that give mu, the active selections tie on
   u - mu, and no selection (brute force) beats them. Returns the number of active selections. */
static int check_sparsemap_row(const float *u, int n, float t, int trial) {
    float mu[MAXN], w[CAP];
    unsigned char sel[CAP * MAXN];
    int count = -1;
    CHECK(sx_chain_sparsemap(mu, u, 1, n, t) == SX_OK, "%s", sx_last_error());
    CHECK(sx_chain_sparsemap_support(sel, w, CAP, &count, u, n, t) == SX_OK, "%s", sx_last_error());
    double sum = 0.0, rec[MAXN] = {0}, r[MAXN], tau = INFINITY, tau_hi = -INFINITY, best = -INFINITY;
    for (int s = 0; s < count; s++) {
        CHECK(w[s] > 1e-6f, "trial %d: weight %d = %g (a selection at rounding level)", trial, s, w[s]);
        CHECK(s == 0 || w[s] <= w[s - 1], "trial %d: weights not sorted", trial);
        sum += w[s];
        for (int i = 0; i < n; i++) rec[i] += sel[s * n + i] ? w[s] : 0.0;
    }
    CHECK_NEAR(sum, 1.0, 1e-5, "trial %d: weights sum", trial);
    for (int i = 0; i < n; i++) {
        CHECK_NEAR(rec[i], mu[i], 1e-5, "trial %d: mu[%d] from the selections", trial, i);
        r[i] = u[i] == -INFINITY ? -INFINITY : (double)u[i] - mu[i];
        if (u[i] == -INFINITY) CHECK(mu[i] == 0.0f, "trial %d: masked mu[%d] = %g", trial, i, mu[i]);
    }
    for (int s = 0; s < count; s++) {
        unsigned m = 0;
        for (int i = 0; i < n; i++) m |= (unsigned)sel[s * n + i] << i;
        double v = chain_score(m, r, n, t);
        if (v < tau) tau = v;
        if (v > tau_hi) tau_hi = v;
    }
    for (unsigned s = 0; s < (1u << n); s++)
        if (allowed(s, u, n) && chain_score(s, r, n, t) > best) best = chain_score(s, r, n, t);
    double tol = 1e-4 * (1.0 + fabs(t));
    CHECK(tau_hi - tau <= tol, "trial %d: active selections do not tie (%g .. %g)", trial, tau, tau_hi);
    CHECK(best <= tau + tol, "trial %d: a selection beats the active set by %g", trial, best - tau);
    return count;
}

static void test_sparsemap_certificate(void) {
    float u[MAXN];
    int most = 0, mixtures = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + trial % MAXN;
        random_row(u, n, trial % 3 == 0 ? 3.0 : 1.2, trial % 4 == 0);
        float t = (float)range(-1.5, 2.5);
        int k = check_sparsemap_row(u, n, t, trial);
        if (k > most) most = k;
        mixtures += k > 1;
    }
    CHECK(mixtures > 300, "only %d rows were mixtures: the test does not exercise the active set", mixtures);
    printf("sparsemap: up to %d active selections, %d of 3000 rows mixtures\n", most, mixtures);
}

/* t = 0 separates: mu = clip(u, 0, 1). Huge magnitudes give the MAP selection. */
static void test_sparsemap_limits(void) {
    float u[8] = {-0.5f, 0.25f, 0.75f, 1.5f, 0.0f, -INFINITY, 0.5f, 1.0f}, mu[8];
    CHECK(sx_chain_sparsemap(mu, u, 1, 8, 0.0f) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < 8; i++) {
        double want = u[i] == -INFINITY ? 0.0 : fmin(1.0, fmax(0.0, u[i]));
        CHECK_NEAR(mu[i], want, 1e-6, "t = 0, entry %d", i);
    }
    float big[5] = {1e30f, -1e30f, 1e30f, 1e30f, -INFINITY};
    CHECK(sx_chain_sparsemap(mu, big, 1, 5, 1.0f) == SX_OK, "%s", sx_last_error());
    CHECK(mu[0] == 1.0f && mu[1] == 0.0f && mu[2] == 1.0f && mu[3] == 1.0f && mu[4] == 0.0f,
          "huge: the MAP selection, got %g %g %g %g %g", mu[0], mu[1], mu[2], mu[3], mu[4]);
    float masked[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    int count = -1;
    CHECK(sx_chain_sparsemap(mu, masked, 1, 4, 3.0f) == SX_OK && mu[0] == 0.0f && mu[3] == 0.0f, "all masked");
    CHECK(sx_chain_sparsemap_support(NULL, NULL, 0, &count, masked, 4, 3.0f) == SX_OK && count == 1,
          "all masked: one (empty) selection, got %d", count);
    /* the longest row: t = 0 needs about n selections, clip(u, 0, 1) exactly; at t = 0.4 the
       oracle's gap closes (the test's own dynamic programme over all selections) */
    enum { L = SX_CHAIN_SPARSEMAP_MAX_N };
    float longrow[L + 1], lmu[L + 1], wts[2 * L + 2];
    static unsigned char lsel[(2 * L + 2) * L];
    for (int i = 0; i <= L; i++) longrow[i] = (float)(0.6 * sin(i * 0.37) + 0.3 * cos(i * 1.7));
    CHECK(sx_chain_sparsemap(lmu, longrow, 1, L, 0.0f) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < L; i++) CHECK_NEAR(lmu[i], fmin(1.0, fmax(0.0, longrow[i])), 1e-5, "long row, t = 0, %d", i);
    CHECK(sx_chain_sparsemap_support(lsel, wts, 2 * L + 2, &count, longrow, L, 0.4f) == SX_OK, "%s", sx_last_error());
    CHECK(sx_chain_sparsemap(lmu, longrow, 1, L, 0.4f) == SX_OK, "%s", sx_last_error());
    double r[L], tau = INFINITY;
    for (int i = 0; i < L; i++) r[i] = (double)longrow[i] - lmu[i];
    for (int s = 0; s < count; s++) {
        double v = 0.0;
        for (int i = 0; i < L; i++)
            if (lsel[s * L + i]) v += r[i] + (i + 1 < L && lsel[s * L + i + 1] ? 0.4 : 0.0);
        if (v < tau) tau = v;
    }
    double s0 = 0.0, s1 = r[0]; /* the best selection's score on u - mu */
    for (int i = 1; i < L; i++) {
        double n0 = fmax(s0, s1), n1 = r[i] + fmax(s0, s1 + 0.4);
        s0 = n0;
        s1 = n1;
    }
    CHECK(fmax(s0, s1) <= tau + 1e-4, "long row: a selection beats the %d active ones by %g", count, fmax(s0, s1) - tau);
    CHECK(count > 3, "long row: %d selections", count);
    CHECK(sx_chain_sparsemap(lmu, longrow, 1, L + 1, 0.4f) == SX_EINVAL, "n = 64 is refused");
    CHECK(strstr(sx_last_error(), "n must be <= 63") != NULL, "message: %s", sx_last_error());
    CHECK(sx_chain_marginals(lmu, longrow, 1, L, 0.4f) == SX_OK, "the CRF has no such limit");
}

/* Central differences where the active set is the same at u - h and u + h. */
static int same_support(const float *a, const float *b, int n, float ta, float tb) {
    unsigned char sa[CAP * MAXN], sb[CAP * MAXN];
    float wa[CAP], wb[CAP];
    int ca, cb;
    sx_chain_sparsemap_support(sa, wa, CAP, &ca, a, n, ta);
    sx_chain_sparsemap_support(sb, wb, CAP, &cb, b, n, tb);
    if (ca != cb) return 0;
    for (int s = 0; s < ca; s++) { /* same set of selections, in any order */
        int found = 0;
        for (int r = 0; r < cb && !found; r++) found = !memcmp(sa + s * n, sb + r * n, (size_t)n);
        if (!found) return 0;
    }
    return 1;
}

static void test_sparsemap_backward(void) {
    float u[MAXN], g[MAXN], du[MAXN], dt, up[MAXN], um[MAXN], mp[MAXN], mm[MAXN];
    const float h = 1e-3f;
    int checked = 0;
    for (int trial = 0; trial < 2000; trial++) {
        int n = 2 + trial % (MAXN - 1);
        random_row(u, n, 1.2, trial % 5 == 0);
        float t = (float)range(-1.0, 2.0);
        for (int i = 0; i < n; i++) g[i] = (float)range(-1.0, 1.0);
        CHECK(sx_chain_sparsemap_backward(du, &dt, u, g, 1, n, t) == SX_OK, "%s", sx_last_error());
        for (int j = 0; j <= n; j++) { /* j = n: the transition */
            if (j < n && u[j] == -INFINITY) { CHECK(du[j] == 0.0f, "masked du"); continue; }
            memcpy(up, u, sizeof(float) * n);
            memcpy(um, u, sizeof(float) * n);
            float tp = t, tm = t;
            if (j < n) { up[j] += h; um[j] -= h; } else { tp += h; tm -= h; }
            if (!same_support(up, um, n, tp, tm) || !same_support(up, u, n, tp, t)) continue;
            sx_chain_sparsemap(mp, up, 1, n, tp);
            sx_chain_sparsemap(mm, um, 1, n, tm);
            double fd = 0.0;
            for (int i = 0; i < n; i++) fd += g[i] * ((double)mp[i] - mm[i]) / (2.0 * h);
            double an = j < n ? du[j] : dt;
            CHECK_NEAR(an, fd, 2e-3 * (1.0 + fabs(fd)), "trial %d, n %d, %s %d", trial, n, j < n ? "u" : "t", j);
            checked++;
        }
    }
    CHECK(checked > 5000, "only %d derivatives checked", checked);
}

static void test_errors(void) {
    float u[3] = {0.0f, 1.0f, 2.0f}, mu[3], du[3], g[3] = {1, 0, 0}, w[4];
    unsigned char sel[12];
    int count;
    CHECK(sx_chain_marginals(NULL, u, 1, 3, 0.0f) == SX_EINVAL, "null mu");
    CHECK(strstr(sx_last_error(), "mu") != NULL, "message names mu: %s", sx_last_error());
    CHECK(sx_chain_sparsemap(mu, NULL, 1, 3, 0.0f) == SX_EINVAL, "null u");
    CHECK(sx_chain_marginals(mu, u, 1, 0, 0.0f) == SX_EINVAL, "n = 0");
    CHECK(sx_chain_marginals(mu, u, -1, 3, 0.0f) == SX_EINVAL, "rows < 0");
    CHECK(sx_chain_marginals(mu, u, 1, 3, NAN) == SX_EINVAL, "t NaN");
    CHECK(strstr(sx_last_error(), "t (the transition") != NULL, "message names t: %s", sx_last_error());
    CHECK(sx_chain_sparsemap(mu, u, 1, 3, INFINITY) == SX_EINVAL, "t Inf");
    float bad[3] = {0.0f, NAN, 1.0f};
    CHECK(sx_chain_marginals(mu, bad, 1, 3, 0.0f) == SX_ENONFINITE && sx_last_error_index() == 1, "NaN score");
    bad[1] = INFINITY;
    CHECK(sx_chain_sparsemap(mu, bad, 1, 3, 0.0f) == SX_ENONFINITE, "+Inf score");
    float badg[3] = {0.0f, -INFINITY, 0.0f};
    CHECK(sx_chain_marginals_backward(du, NULL, u, badg, 1, 3, 0.0f) == SX_ENONFINITE, "-Inf in dmu");
    CHECK(sx_chain_sparsemap_backward(du, NULL, u, NULL, 1, 3, 0.0f) == SX_EINVAL, "null dmu");
    CHECK(sx_chain_marginals(NULL, NULL, 0, 3, 0.0f) == SX_OK, "rows = 0 is an empty call");
    CHECK(sx_chain_sparsemap_backward(NULL, NULL, NULL, NULL, 0, 3, 0.0f) == SX_OK, "empty backward");
    CHECK(sx_chain_sparsemap_support(sel, w, 4, NULL, u, 3, 0.0f) == SX_EINVAL, "null count");
    CHECK(sx_chain_sparsemap_support(NULL, w, 4, &count, u, 3, 0.0f) == SX_EINVAL, "null sel with cap > 0");
    CHECK(sx_chain_sparsemap_support(sel, w, -1, &count, u, 3, 0.0f) == SX_EINVAL, "cap < 0");
    CHECK(sx_chain_sparsemap_support(sel, w, 4, &count, u, 3, 0.5f) == SX_OK && count >= 1, "support");
    (void)g;
}

int main(void) {
    test_crf_brute();
    test_crf_limits();
    test_sparsemap_certificate();
    test_sparsemap_limits();
    test_sparsemap_backward();
    test_errors();
    return sx_test_summary("test_chain");
}
