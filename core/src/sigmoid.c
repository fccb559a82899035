/* sigmoid.c - sigmoid attention, for contrast: independent weights p_i = sigmoid(x_i / T).

   Not a mapping onto the simplex: each weight depends on its own score only, so the weights do
   not sum to 1 (n scores of 0 give n/2), nothing competes, and no weight is ever exactly 0 for
   a finite score (exactly 0 only where the score is -Infinity, or where exp underflows). It is
   what the simplex mappings are compared against: softmax is sigmoid normalised, sparsemax is
   [z - tau]_+ with a tau that couples every entry.

   Numerics. In double, from z = x / T (no overflow: |x| / T <= 3.4e38 / 1.4e-45 fits):
   sigmoid(z) = 1 / (1 + e^-z) for z >= 0 and e^z / (1 + e^z) for z < 0, so neither branch
   overflows and a very negative z keeps its relative accuracy (no 1 - p cancellation).
   -Infinity gives exactly 0 (e^-inf = 0); an all-masked row is all zeros like every mapping.
   NaN and +Infinity scores are SX_ENONFINITE (the header's policy: a +Infinity score has no
   finite weight in any other mapping, so it is refused here too, not mapped to 1).

   Backward. dp_i / dx_i = sigmoid'(z_i) / T = e^-|z| / (1 + e^-|z|)^2 / T, diagonal: dx_i =
   dy_i sigmoid'(z_i) / T, in double and rounded once (1/T up to 7e44 fits in double: a tiny T
   overflows the float result to +-Infinity, never NaN; sigmoid' = 0 far out gives 0). */
#include <math.h>
#include "internal.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* ------------------------------------------------------------------ helpers */
static double sigmoid_d(double z) {
    if (z >= 0.0) return 1.0 / (1.0 + exp(-z));
    const double e = exp(z); /* z = -Infinity: e = 0, p = 0 exactly */
    return e / (1.0 + e);
}

/* sigmoid'(z) = sigmoid(z) sigmoid(-z) = e^-|z| / (1 + e^-|z|)^2; 0 at -Infinity. */
static double sigmoid_grad_d(double z) {
    const double e = exp(-fabs(z));
    return e / ((1.0 + e) * (1.0 + e));
}

/* ------------------------------------------------------------------ public */
int sx_sigmoid(float *out, const float *x, int rows, int n, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    const double t = (double)temperature;
    const size_t len = (size_t)rows * (size_t)n;
    for (size_t i = 0; i < len; i++) out[i] = (float)sigmoid_d((double)x[i] / t);
    return SX_OK;
}

int sx_sigmoid_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = sx__check_grad_dims(dx, x, dy, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = sx__check_scores(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    const double t = (double)temperature, inv_t = 1.0 / t;
    const size_t len = (size_t)rows * (size_t)n;
    for (size_t i = 0; i < len; i++) {
        const double g = sigmoid_grad_d((double)x[i] / t) * inv_t;
        dx[i] = (float)((double)dy[i] * g) + 0.0f; /* +0 for masked entries */
    }
    return SX_OK;
}

SX_COLD_END
