/* perplexity.c - held-out scores of a language model whose outputs may be sparse (Martins,
   Marinho & Martins 2020, "Sparse Text Generation", sec. 4): the epsilon-perplexity, which
   smooths every probability the model gave the true token additively,

     p_eps = (p + eps) / (1 + eps V) = (1 - lambda) p + lambda / V,   lambda = eps V / (1 + eps V),

   so a true token outside the support (p = 0) costs log(1 / p_eps) instead of infinity; the
   fraction of true tokens inside the support; and the eps that minimises the epsilon-perplexity
   of a held-out set (the paper tunes eps so). As a function of lambda the mean negative log is
   convex (a sum of -log of affine functions), with derivative

     F'(lambda) = -(1/n) sum_t (1/V - p_t) / ((1 - lambda) p_t + lambda / V),

   -Infinity at lambda = 0 as soon as one p_t is 0, and V mean(p) - 1 at lambda = 1: the minimum
   is inside (0, 1) when some p_t is 0 or F'(0) < 0, and mean(p) > 1 / V. Bisection on F'. */
#include <math.h>
#include "internal.h"

/* Probabilities above 1 by at most this much are float rounding, and are taken as given. */
#define SX_P_SLACK 1e-5

static int check_p(const float *p, int n, int vocab, const char *fn) {
    if (n < 1) return sx__fail(SX_EINVAL, -1, "%s: n must be >= 1 (got %d)", fn, n);
    if (vocab < 1) return sx__fail(SX_EINVAL, -1, "%s: vocab must be >= 1 (got %d)", fn, vocab);
    if (!p) return sx__fail(SX_EINVAL, -1, "%s: p_true is NULL", fn);
    for (int t = 0; t < n; t++) {
        if (!isfinite(p[t]))
            return sx__fail(SX_ENONFINITE, t, "%s: p_true[%d] must be finite (got %g)", fn, t, (double)p[t]);
        if (p[t] < 0.0f || p[t] > 1.0 + SX_P_SLACK)
            return sx__fail(SX_EINVAL, t, "%s: p_true[%d] must be in [0, 1] (got %g)", fn, t, (double)p[t]);
    }
    return SX_OK;
}

int sx_eps_perplexity(double *out, const float *p_true, int n, int vocab, double eps) {
    int st = check_p(p_true, n, vocab, "eps_perplexity");
    if (st != SX_OK) return st;
    if (!(eps >= 0.0) || !isfinite(eps))
        return sx__fail(SX_EINVAL, -1, "eps_perplexity: eps must be finite and >= 0 (got %g)", eps);
    if (!out) return sx__fail(SX_EINVAL, -1, "eps_perplexity: out is NULL");
    const double norm = log1p(eps * vocab);
    double nll = 0.0;
    int inside = 0;
    for (int t = 0; t < n; t++) {
        nll += norm - log(p_true[t] + eps); /* log(0) = -Infinity: +Infinity at eps = 0 */
        inside += p_true[t] > 0.0f;
    }
    const double mean = nll / n;
    out[0] = exp(mean);
    out[1] = mean / log(2.0);
    out[2] = (double)inside / n;
    return SX_OK;
}

/* F'(lambda) of the header comment. */
static double eps_slope(const float *p, int n, double v_inv, double lambda) {
    double s = 0.0;
    for (int t = 0; t < n; t++) s += (v_inv - p[t]) / ((1.0 - lambda) * p[t] + lambda * v_inv);
    return -s / n;
}

int sx_eps_choose(double *eps, const float *p_true, int n, int vocab) {
    int st = check_p(p_true, n, vocab, "eps_choose");
    if (st != SX_OK) return st;
    if (!eps) return sx__fail(SX_EINVAL, -1, "eps_choose: eps is NULL");
    const double v_inv = 1.0 / vocab;
    double mean = 0.0;
    for (int t = 0; t < n; t++) mean += p_true[t];
    mean /= n;
    if (mean <= v_inv)
        return sx__fail(SX_EINVAL, -1, "eps_choose: the mean of p_true (%g) is at most 1 / vocab (%g): "
                        "the best smoothing is the uniform distribution, eps infinite", mean, v_inv);
    if (eps_slope(p_true, n, v_inv, 0.0) >= 0.0) { *eps = 0.0; return SX_OK; }
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 200; it++) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (eps_slope(p_true, n, v_inv, mid) < 0.0) lo = mid; else hi = mid;
    }
    const double lambda = 0.5 * (lo + hi);
    *eps = lambda / (vocab * (1.0 - lambda));
    return SX_OK;
}
