/* entropy.c - Tsallis alpha-entropy H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1)), Shannon
   -sum p log p at alpha = 1, with 0 log 0 = 0 and 0^alpha = 0.

   In double, written as ((1 - sum p) - sum p expm1((alpha - 1) log p)) / (alpha (alpha - 1)) so that
   alpha near 1 loses no digits (the expm1 term carries the whole difference from Shannon). */
#include <math.h>
#include "internal.h"

int sx_tsallis_entropy(float *h, const float *p, int rows, int n, float alpha) {
    int st = sx__check_dims(h, p, rows, n);
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
        double acc = 0.0, mass = 0.0;
        for (int i = 0; i < n; i++) {
            double v = pr[i];
            if (v > 0.0) {
                double l = log(v);
                mass += v;
                acc += alpha == 1.0f ? v * l : v * expm1(am1 * l);
            }
        }
        h[r] = alpha == 1.0f ? (float)(-acc) : (float)(((1.0 - mass) - acc) / (a * am1));
    }
    return SX_OK;
}
