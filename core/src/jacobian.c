/* jacobian.c - the whole Jacobian dp/dx of a mapping, and the threshold tau of a row.

   Jacobians: softmax, sparsemax and alpha-entmax by their closed forms read off p (symmetric,
   rows summing to 0); fusedmax and oscarmax by their exact backward passes applied to each unit
   vector (row j of J is J^T e_j), n backward passes per row; sigmoid (not on the simplex) by its
   diagonal p (1 - p) / T. Thresholds: log-sum-exp for
   softmax; for the sparse mappings the tau of p = [x/T - tau]_+ (sparsemax) or
   p = [(alpha - 1) x/T - tau]_+^(1/(alpha-1)) (entmax), in double, from the support the
   forward pass chose (closed forms at alpha 2 and 1.5, bisection otherwise). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* ---------------------------------------------------------- argument checks */
/* The mapping and its parameter; *alpha gets the effective alpha of the entmax family. */
static int check_mapping(const char *fn, int mapping, float param, int allow_structured) {
    switch (mapping) {
    case SX_MAP_SOFTMAX:
    case SX_MAP_SPARSEMAX:
    case SX_MAP_ENTMAX15: return SX_OK;
    case SX_MAP_ENTMAX:
        if (!(param >= 1.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "%s: alpha must be finite and >= 1 (got %g)", fn, (double)param);
        return SX_OK;
    case SX_MAP_FUSEDMAX:
    case SX_MAP_OSCARMAX:
        if (!allow_structured)
            return sx__fail(SX_EINVAL, -1,
                            "%s: %s has no threshold on the scores (its sparsemax thresholds %s, "
                            "not x / T)", fn, mapping == SX_MAP_FUSEDMAX ? "fusedmax" : "oscarmax",
                            mapping == SX_MAP_FUSEDMAX ? "prox_TV(x / T)" : "the pooled x / T");
        if (!(param >= 0.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "%s: %s must be finite and >= 0 (got %g)", fn,
                            mapping == SX_MAP_FUSEDMAX ? "lambda" : "beta", (double)param);
        return SX_OK;
    case SX_MAP_SIGMOID:
        if (!allow_structured)
            return sx__fail(SX_EINVAL, -1, "%s: sigmoid has no threshold (its weights are independent, "
                            "p_i = sigmoid(x_i / T): no tau couples them)", fn);
        return SX_OK;
    case SX_MAP_ENTMAX_LEARNED:
        return sx__fail(SX_EINVAL, -1, "%s: mapping 4 (SX_MAP_ENTMAX_LEARNED) is for model layers "
                        "only: pass SX_MAP_ENTMAX and the alpha", fn);
    default:
        return sx__fail(SX_EINVAL, -1, "%s: unknown mapping %d (SX_MAP_SOFTMAX 0, SPARSEMAX 1, "
                        "ENTMAX15 2, ENTMAX 3, FUSEDMAX 5, OSCARMAX 6, SIGMOID 7)", fn, mapping);
    }
}

/* The entmax family by alpha: 1 softmax, 2 sparsemax, 1.5 entmax15 (as sx_entmax dispatches). */
static int family(int mapping, float param) {
    if (mapping != SX_MAP_ENTMAX) return mapping;
    if (param == 1.0f) return SX_MAP_SOFTMAX;
    if (param == 1.5f) return SX_MAP_ENTMAX15;
    if (param == 2.0f) return SX_MAP_SPARSEMAX;
    return SX_MAP_ENTMAX;
}

static int forward_row(float *p, const float *x, int n, int map, float param, float t) {
    switch (map) {
    case SX_MAP_SOFTMAX: return sx_softmax(p, x, 1, n, t);
    case SX_MAP_SPARSEMAX: return sx_sparsemax(p, x, 1, n, t);
    case SX_MAP_ENTMAX15: return sx_entmax15(p, x, 1, n, t);
    default: return sx_entmax(p, x, 1, n, param, t);
    }
}

/* ------------------------------------------------------------------ Jacobian */
/* J = s (diag(w) - w w^T / sum w) with w = p (softmax: sum w = 1), 1 on the support
   (sparsemax), sqrt p on the support (1.5-entmax); s = 1/T. */
static void closed_form(float *J, const float *p, int n, int map, float s, float *w) {
    double sw = 0.0;
    for (int i = 0; i < n; i++) {
        float wi = 0.0f;
        if (p[i] > 0.0f) wi = map == SX_MAP_SOFTMAX ? p[i] : map == SX_MAP_SPARSEMAX ? 1.0f : sqrtf(p[i]);
        w[i] = wi;
        sw += wi;
    }
    for (int i = 0; i < n; i++) {
        float *Ji = J + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            double v = sw > 0.0 ? -(double)w[i] * (double)w[j] / sw : 0.0;
            if (i == j) v += w[i];
            Ji[j] = (float)(v * s) + 0.0f; /* +0, not -0, off the support */
        }
    }
}

/* alpha-entmax, w = p^(2 - alpha) on the support, which overflows for alpha well above 2 (and
   p small): as its backward pass, log-weights ls relative to their max (w w^T / sum w =
   exp(ls_i + ls_j - max) / sum exp(ls - max)), exp capped at e^700, entries clamped to
   +-FLT_MAX, never NaN. ls[] holds n doubles. */
static void entmax_form(float *J, const float *p, int n, float alpha, double invt, double *ls) {
    const double e2 = 2.0 - (double)alpha;
    double lmax = -INFINITY, sw = 0.0;
    for (int i = 0; i < n; i++) {
        ls[i] = p[i] > 0.0f ? e2 * log((double)p[i]) : -INFINITY;
        if (ls[i] > lmax) lmax = ls[i];
    }
    if (lmax != -INFINITY)
        for (int i = 0; i < n; i++) sw += exp(ls[i] - lmax);
    for (int i = 0; i < n; i++) {
        float *Ji = J + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            double v = 0.0;
            if (ls[i] != -INFINITY && ls[j] != -INFINITY) {
                const double l = ls[i] + ls[j] - lmax;
                v = -exp(l < 700.0 ? l : 700.0) / sw;
                if (i == j) v += exp(ls[i] < 700.0 ? ls[i] : 700.0);
                v *= invt;
            }
            Ji[j] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v) + 0.0f;
        }
    }
}

int sx_jacobian(float *J, const float *x, int rows, int n, int mapping, float param, float temperature) {
    const char *fn = "sx_jacobian";
    int st = sx__check_dims_as(J, "J", x, "x", rows, n);
    if (!st) st = check_mapping(fn, mapping, param, 1);
    if (!st) st = sx__check_temperature(temperature);
    /* like rows * n (sx__check_dims): the block's bytes fit in an int32 (rows * n <= 2^29 here,
       so the product fits in 64 bits) */
    if (!st && (uint64_t)rows * (uint64_t)n * (uint64_t)n > (uint64_t)INT32_MAX / sizeof(float))
        st = sx__fail(SX_EINVAL, -1, "%s: rows * n * n floats do not fit in memory (rows %d, n %d: "
                      "at most 2^29 floats)", fn, rows, n);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st || rows == 0) return st;
    double *ls = malloc(2 * (size_t)n * sizeof(double)); /* ls or w (n doubles), then p (n floats) */
    if (!ls) return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate %d doubles of scratch", fn, 2 * n);
    float *tmp = (float *)(void *)(ls + n), *w = (float *)(void *)ls;
    const int map = family(mapping, param);
    const float s = sx_inv_temperature(temperature);
    for (int r = 0; r < rows && !st; r++) {
        const float *xr = x + (size_t)r * n;
        float *Jr = J + (size_t)r * n * n; /* (n, n) */
        if (map == SX_MAP_SIGMOID) { /* diagonal: sigmoid'(z) / T, as sx_sigmoid_backward(e_j) */
            memset(Jr, 0, (size_t)n * n * sizeof(float));
            float *e = tmp;
            for (int j = 0; j < n; j++) e[j] = 1.0f;
            st = sx_sigmoid_backward(e, xr, e, 1, n, temperature);
            for (int j = 0; j < n && !st; j++) Jr[(size_t)j * n + j] = e[j];
        } else if (map == SX_MAP_FUSEDMAX || map == SX_MAP_OSCARMAX) {
            float *e = tmp;
            memset(e, 0, (size_t)n * sizeof(float));
            for (int j = 0; j < n && !st; j++) { /* row j of J = J^T e_j */
                e[j] = 1.0f;
                st = map == SX_MAP_FUSEDMAX
                   ? sx_fusedmax_backward(Jr + (size_t)j * n, xr, e, 1, n, param, temperature)
                   : sx_oscarmax_backward(Jr + (size_t)j * n, xr, e, 1, n, param, temperature);
                e[j] = 0.0f;
            }
        } else {
            st = forward_row(tmp, xr, n, map, param, temperature);
            if (st) break;
            if (map == SX_MAP_ENTMAX) entmax_form(Jr, tmp, n, param, 1.0 / (double)temperature, ls);
            else closed_form(Jr, tmp, n, map, s, w);
        }
    }
    free(ls);
    return st;
}

/* ----------------------------------------------------------------- threshold */
/* Per row, in units of z = x / T (d = (x - max x) / T computed in double, then max x / T added). */
static float threshold_row(const float *x, float *p, int n, int map, float alpha, float t) {
    double m = sx__row_max(x, n), tt = t;
    if (m == -INFINITY) return map == SX_MAP_SOFTMAX ? -INFINITY : INFINITY;
    double tau = 0.0;
    if (map == SX_MAP_SOFTMAX) { /* log sum exp z */
        double sum = 0.0;
        for (int i = 0; i < n; i++) sum += exp(((double)x[i] - m) / tt);
        tau = log(sum);
    } else if (map == SX_MAP_SPARSEMAX) { /* sum_S (d_i - tau) = 1 */
        double sd = 0.0;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (p[i] > 0.0f) { sd += ((double)x[i] - m) / tt; k++; }
        tau = k ? (sd - 1.0) / k : -1.0; /* k = 0 only if rounding emptied p: the vertex */
    } else if (map == SX_MAP_ENTMAX15) { /* sum_S (d_i / 2 - tau)^2 = 1 on the forward's support */
        double sd = 0.0, sq = 0.0;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (p[i] > 0.0f) { double d = ((double)x[i] - m) / tt / 2.0; sd += d; sq += d * d; k++; }
        if (k == 0) return (float)(m / tt / 2.0 - 1.0);
        const double mean = sd / k, ss = sq - k * mean * mean, delta = (1.0 - ss) / k;
        return (float)(m / tt / 2.0 + mean - sqrt(delta > 0.0 ? delta : 0.0));
    } else { /* bisection on sum_i [(alpha - 1) d_i - tau]_+^(1/(alpha-1)) = 1 */
        const double a1 = (double)alpha - 1.0, e = 1.0 / a1;
        double lo = -1.0, hi = -pow(1.0 / n, a1);
        for (int it = 0; it < 100; it++) {
            const double mid = 0.5 * (lo + hi);
            double f = 0.0;
            for (int i = 0; i < n; i++) {
                const double u = a1 * (((double)x[i] - m) / tt) - mid;
                if (u > 0.0) f += pow(u, e);
            }
            if (f > 1.0) lo = mid; else hi = mid;
        }
        return (float)(a1 * (m / tt) + 0.5 * (lo + hi));
    }
    return (float)(m / tt + tau);
}

int sx_threshold(float *tau, const float *x, int rows, int n, int mapping, float param, float temperature) {
    const char *fn = "sx_threshold";
    int st = sx__check_dims_as(tau, "tau", x, "x", rows, n);
    if (!st) st = check_mapping(fn, mapping, param, 0);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st || rows == 0) return st;
    const int map = family(mapping, param);
    float *p = NULL;
    if (map == SX_MAP_SPARSEMAX || map == SX_MAP_ENTMAX15) {
        p = malloc((size_t)n * sizeof(float));
        if (!p) return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate %d floats of scratch", fn, n);
    }
    for (int r = 0; r < rows && !st; r++) {
        const float *xr = x + (size_t)r * n;
        if (p) st = forward_row(p, xr, n, map, param, temperature);
        if (!st) tau[r] = threshold_row(xr, p, n, map, param, temperature);
    }
    free(p);
    return st;
}

SX_COLD_END
