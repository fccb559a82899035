/* test_perplexity.c - the epsilon-perplexity of Martins et al. 2020 (sx_eps_perplexity) against
   hand computations, its limit eps -> 0 (the plain perplexity of a dense model), the support
   rate, sx_eps_choose against a closed-form optimum and against a grid, and the error paths. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double unit(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static void expect(int st, int want, const char *needle, const char *what) {
    CHECK(st == want, "%s: status %d, want %d", what, st, want);
    CHECK(st != SX_OK && strstr(sx_last_error(), needle), "%s: message '%s' lacks '%s'", what,
          sx_last_error(), needle);
}

/* p = {0.5, 0.25, 0, 1}, V = 4, eps = 0.1: p_eps = {0.6, 0.35, 0.1, 1.1} / 1.4. */
static void test_hand(void) {
    const float p[4] = { 0.5f, 0.25f, 0.0f, 1.0f };
    double out[3];
    CHECK(sx_eps_perplexity(out, p, 4, 4, 0.1) == SX_OK, "%s", sx_last_error());
    const double nll = (log(1.4 / 0.6) + log(1.4 / 0.35) + log(1.4 / 0.1) + log(1.4 / 1.1)) / 4;
    CHECK_NEAR(out[0], exp(nll), 1e-12, "eps-perplexity");
    CHECK_NEAR(out[1], nll / log(2.0), 1e-12, "bits per token");
    CHECK_NEAR(out[2], 0.75, 0, "three of four inside the support");
    CHECK(sx_eps_perplexity(out, p, 4, 4, 0.0) == SX_OK, "%s", sx_last_error());
    CHECK(isinf(out[0]) && out[0] > 0 && isinf(out[1]), "eps = 0 with a zero: +Infinity (got %g)", out[0]);
    CHECK_NEAR(out[2], 0.75, 0, "support rate at eps = 0");
    /* eps = 0 on dense probabilities: the plain perplexity, 2^(bits) */
    const float q[2] = { 0.5f, 0.125f };
    CHECK(sx_eps_perplexity(out, q, 2, 4, 0.0) == SX_OK, "%s", sx_last_error());
    CHECK_NEAR(out[1], 2.0, 1e-12, "(1 + 3) / 2 bits");
    CHECK_NEAR(out[0], 4.0, 1e-12, "perplexity 4");
    CHECK_NEAR(out[2], 1.0, 0, "all inside");
}

/* A dense model: eps-perplexity -> perplexity as eps -> 0, and it grows away from there only
   when it moves mass off tokens above 1 / V. */
static void test_dense_limit(void) {
    enum { N = 500, V = 96 };
    float p[N];
    double nll = 0.0, out[3], prev = 0.0;
    for (int t = 0; t < N; t++) {
        p[t] = (float)(0.02 + 0.9 * unit());
        nll -= log((double)p[t]);
    }
    const double ppl = exp(nll / N);
    for (double eps = 1e-3; eps >= 1e-9; eps /= 10) {
        CHECK(sx_eps_perplexity(out, p, N, V, eps) == SX_OK, "%s", sx_last_error());
        const double rel = fabs(out[0] - ppl) / ppl;
        CHECK(rel < 20 * eps * V, "eps %g: eps-ppl %.9g vs ppl %.9g", eps, out[0], ppl);
        if (eps < 1e-3) CHECK(rel <= prev, "closer as eps shrinks (%g after %g)", rel, prev);
        prev = rel;
    }
    CHECK(prev < 1e-6, "eps 1e-9: relative gap %g", prev);
}

/* Two tokens, p = {0, q}: F'(lambda) = 0 at lambda = q / (2 (q - 1/V)), so with V = 10,
   q = 0.5: lambda = 0.625, eps = lambda / (V (1 - lambda)) = 1/6. */
static void test_choose_closed_form(void) {
    const float p[2] = { 0.0f, 0.5f };
    double eps = -1;
    CHECK(sx_eps_choose(&eps, p, 2, 10) == SX_OK, "%s", sx_last_error());
    CHECK_NEAR(eps, 1.0 / 6.0, 1e-12, "closed-form optimum");
    const float sure[3] = { 1.0f, 0.9f, 1.0f };
    CHECK(sx_eps_choose(&eps, sure, 3, 10) == SX_OK, "%s", sx_last_error());
    CHECK(eps == 0.0, "smoothing cannot help confident correct tokens (got %g)", eps);
}

/* Random sparse-model-like probabilities: the chosen eps beats a grid of others. */
static void test_choose_grid(void) {
    enum { N = 400, V = 50 };
    float p[N];
    for (int t = 0; t < N; t++) p[t] = unit() < 0.1 ? 0.0f : (float)unit();
    double eps, best[3], other[3];
    CHECK(sx_eps_choose(&eps, p, N, V) == SX_OK, "%s", sx_last_error());
    CHECK(eps > 0, "zeros present: eps > 0 (got %g)", eps);
    CHECK(sx_eps_perplexity(best, p, N, V, eps) == SX_OK, "%s", sx_last_error());
    for (double f = 1e-3; f <= 1e3; f *= 1.5) {
        if (fabs(f - 1.0) < 1e-9) continue;
        CHECK(sx_eps_perplexity(other, p, N, V, eps * f) == SX_OK, "%s", sx_last_error());
        CHECK(other[0] >= best[0] - 1e-12 * best[0], "eps * %g: %.12g < %.12g at the chosen eps %g", f,
              other[0], best[0], eps);
    }
    CHECK(best[2] < 1.0 && best[2] > 0.8, "support rate %g", best[2]);
}

static void test_errors(void) {
    const float ok[2] = { 0.5f, 0.5f }, nan_p[2] = { 0.5f, NAN }, neg[2] = { 0.5f, -0.1f },
                big[2] = { 1.5f, 0.5f }, poor[3] = { 0.0f, 0.1f, 0.05f };
    double out[3], eps;
    expect(sx_eps_perplexity(out, nan_p, 2, 4, 0.1), SX_ENONFINITE, "p_true[1] must be finite", "NaN");
    CHECK(sx_last_error_index() == 1, "index of the NaN (got %d)", sx_last_error_index());
    expect(sx_eps_perplexity(out, neg, 2, 4, 0.1), SX_EINVAL, "p_true[1] must be in [0, 1]", "negative");
    expect(sx_eps_choose(&eps, big, 2, 4), SX_EINVAL, "eps_choose: p_true[0] must be in [0, 1] (got 1.5)", "above 1");
    expect(sx_eps_perplexity(out, ok, 0, 4, 0.1), SX_EINVAL, "n must be >= 1 (got 0)", "n = 0");
    expect(sx_eps_perplexity(out, ok, 2, 0, 0.1), SX_EINVAL, "vocab must be >= 1 (got 0)", "vocab = 0");
    expect(sx_eps_perplexity(out, ok, 2, 4, -0.1), SX_EINVAL, "eps must be finite and >= 0 (got -0.1)", "eps < 0");
    expect(sx_eps_perplexity(out, ok, 2, 4, INFINITY), SX_EINVAL, "eps must be finite", "eps = Inf");
    expect(sx_eps_perplexity(out, NULL, 2, 4, 0.1), SX_EINVAL, "p_true is NULL", "NULL p");
    expect(sx_eps_perplexity(NULL, ok, 2, 4, 0.1), SX_EINVAL, "out is NULL", "NULL out");
    expect(sx_eps_choose(NULL, ok, 2, 4), SX_EINVAL, "eps is NULL", "NULL eps");
    expect(sx_eps_choose(&eps, poor, 3, 10), SX_EINVAL, "at most 1 / vocab", "no better than uniform");
}

int main(void) {
    test_hand();
    test_dense_limit();
    test_choose_closed_form();
    test_choose_grid();
    test_errors();
    return sx_test_summary("test_perplexity");
}
