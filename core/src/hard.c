/* hard.c - hard attention's selection of one position and the three gradient estimators
   (rnn.h): REINFORCE (Williams 1992), straight-through Gumbel-softmax (Jang et al. 2017;
   Maddison et al. 2017) and the straight-through argmax (Bengio et al. 2013). One row of one
   decoder step at a time; the draws come from the model's splitmix64 stream (rng.h), so a seed
   gives the same picks in every build. */
#include <math.h>
#include "internal.h"
#include "rnn.h"

SX_COLD_BEGIN /* compiled for size in the wasm builds (clang minsize), as when it was native only */

static int argmax(const float *x, int n) {
    int j = 0;
    for (int i = 1; i < n; i++) j = x[i] > x[j] ? i : j;
    return j;
}

/* j ~ p: the first j whose cumulative sum passes a uniform draw (the last positive entry if
   rounding leaves the sum short of the draw). */
static int draw(const float *p, int n, sx__rng *rng) {
    const double u = sx__rng_uniform(rng);
    double cum = 0.0;
    int last = 0;
    for (int j = 0; j < n; j++) {
        if (!(p[j] > 0.0f)) continue;
        cum += p[j];
        last = j;
        if (u < cum) return j;
    }
    return last;
}

/* y = softmax((log p + g) / tau) over the entries with p > 0 (0 elsewhere), g ~ Gumbel(0, 1)
   from uniforms in (0, 1) (k + 1/2) 2^-24; returns argmax y. */
static int gumbel(float *y, const float *p, int n, float tau, sx__rng *rng) {
    double mx = -INFINITY;
    for (int j = 0; j < n; j++) {
        const double u = sx__rng_uniform(rng) + 0x1p-25;
        const double v = p[j] > 0.0f ? (log((double)p[j]) - log(-log(u))) / tau : -INFINITY;
        y[j] = (float)v;
        mx = v > mx ? v : mx;
    }
    double sum = 0.0;
    for (int j = 0; j < n; j++) sum += (y[j] = y[j] > -INFINITY ? (float)exp(y[j] - mx) : 0.0f);
    for (int j = 0; j < n; j++) y[j] = (float)(y[j] / sum);
    return argmax(y, n);
}

int sx__hard_select(float *y, const float *p, int n, int estimator, float tau, int sample,
                    sx__rng *rng) {
    if (!sample || estimator == SX_RNN_STRAIGHT) return argmax(p, n);
    if (estimator == SX_RNN_REINFORCE) return draw(p, n, rng);
    return gumbel(y, p, n, tau, rng);
}

void sx__hard_grad(float *dp, const float *g, const float *y, const float *p, int n, int j,
                   int estimator, float tau, float weight) {
    if (estimator == SX_RNN_STRAIGHT) {
        for (int i = 0; i < n; i++) dp[i] = g[i];
        return;
    }
    if (estimator == SX_RNN_REINFORCE) { /* weight * d log p_j / d p */
        for (int i = 0; i < n; i++) dp[i] = 0.0f;
        dp[j] = weight / p[j];
        return;
    }
    double yg = 0.0; /* Gumbel: d y / d u = (diag y - y y^T) / tau, u = log p + g */
    for (int i = 0; i < n; i++) yg += (double)y[i] * g[i];
    for (int i = 0; i < n; i++)
        dp[i] = p[i] > 0.0f ? (float)(y[i] * (g[i] - yg) / tau / p[i]) : 0.0f;
}

SX_COLD_END
