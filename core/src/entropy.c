/* entropy.c - Tsallis alpha-entropy H_alpha(p) = sum_i (p_i - p_i^alpha) / (alpha (alpha - 1)), which
   is (1 - sum p^alpha) / (alpha (alpha - 1)) on the simplex; Shannon -sum p log p at alpha = 1, with
   0 log 0 = 0 and 0^alpha = 0.

   The per-entry form matters off the simplex: a float row sums to 1 only within rounding, and
   (1 - sum p) / (alpha - 1) would blow that rounding up as alpha -> 1. Written in double as
   -sum p expm1((alpha - 1) log p) / (alpha (alpha - 1)), alpha near 1 loses no digits and the
   value is continuous in alpha down to Shannon. */
#include <math.h>
#include "internal.h"

int sx_tsallis_entropy(float *h, const float *p, int rows, int n, float alpha) {
    int st = sx__check_dims_as(h, "h", p, "p", rows, n);
    if (st) return st;
    if (!(alpha > 0.0f) || alpha == INFINITY)
        return sx__fail(SX_EINVAL, -1, "alpha must be finite and > 0 (got %g)", (double)alpha);
    const size_t count = (size_t)rows * (size_t)n;
    for (size_t i = 0; i < count; i++) {
        float v = p[i];
        if (!(v >= 0.0f) || v == INFINITY)
            return sx__fail(SX_ENONFINITE, (int)i, "p[%d] must be finite and >= 0 (got %g)", (int)i, (double)v);
    }
    const double a = alpha, am1 = a - 1.0;
    for (int r = 0; r < rows; r++) {
        const float *pr = p + (size_t)r * n;
        double acc = 0.0;
        for (int i = 0; i < n; i++) {
            double v = pr[i];
            if (v > 0.0) {
                double l = log(v);
                acc += alpha == 1.0f ? v * l : v * expm1(am1 * l);
            }
        }
        h[r] = alpha == 1.0f ? (float)(-acc) : (float)(-acc / (a * am1));
    }
    return SX_OK;
}
