/* losses.c - Fenchel-Young losses of the entmax family (Blondel, Martins & Niculae; Peters,
   Niculae & Martins 2019): for scores z = x / T, a target distribution y and p = the mapping of z,

     L(z; y) = <p - y, z> + H(p) - H(y),   dL/dz = p - y,

   where H is the entropy the mapping maximises <p, z> + H(p) with: Tsallis alpha,
   H(p) = sum_i (p_i - p_i^alpha) / (alpha (alpha - 1)), Shannon at alpha = 1. softmax (alpha 1)
   gives the cross-entropy, sparsemax (alpha 2, H = (1 - ||p||^2) / 2) the sparsemax loss,
   1.5-entmax and alpha-entmax the entmax losses. L >= 0, and L = 0 exactly when p = y: a sparse
   mapping reaches a one-hot target once the margin is met, softmax never does.

   Everything after p is in double. <p - y, z> is taken as <p - y, z - max z> (both sum to 1), so
   huge scores do not cancel. At alpha = 1 the loss is log-sum-exp(z) - <y, z> - H(y), not p's
   rounded logs. The Tsallis entropy is written -(1/alpha) sum_i p_i f(alpha - 1, log p_i) with
   f(u, l) = expm1(u l) / u (l at u = 0), continuous down to Shannon; its derivative in alpha, for
   the loss's gradient in alpha (the envelope theorem: p's own change does not count, since p
   maximises <p, z> + H(p)), is dH/dalpha = S / alpha^2 - (1/alpha) sum_i p_i f'(u, l_i), where
   S = sum_i p_i f(u, l_i) and f'(u, l) = (u l e^(u l) - expm1(u l)) / u^2, by its series
   l^2 sum_k>=2 (k - 1) (u l)^(k-2) / k! when |u l| is small (the closed form cancels there). */
#include <math.h>
#include <stdlib.h>
#include "internal.h"

/* f(u, l) and f'(u, l) above. */
static double tsallis_f(double u, double l) { return u == 0.0 ? l : expm1(u * l) / u; }

static double tsallis_df(double u, double l) {
    const double x = u * l;
    if (fabs(x) < 0.1)
        return l * l * (1.0 / 2 + x * (1.0 / 3 + x * (1.0 / 8 + x * (1.0 / 30 + x * (1.0 / 144 + x / 840)))));
    return (x * exp(x) - expm1(x)) / (u * u);
}

/* sum_i w_i f(u, log w_i) and sum_i w_i f'(u, log w_i) over the entries w_i > 0, w_i scaled by
   s (a target row's 1 / sum). */
static void tsallis_sums(const float *w, int n, double s, double u, double *sf, double *sdf) {
    double a = 0.0, b = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = w[i] * s;
        if (v > 0.0) {
            const double l = log(v);
            a += v * tsallis_f(u, l);
            if (sdf) b += v * tsallis_df(u, l);
        }
    }
    *sf = a;
    if (sdf) *sdf = b;
}

/* A row to score: its z (x / T, -Infinity masked), p, its target as a distribution (y scaled by
   ys = 1 / sum y) or as an index (y NULL). */
typedef struct {
    const float *x, *p, *y;
    double ys, invt, alpha;
    int n, target;
} fy_row;

static double target_at(const fy_row *r, int i) {
    return r->y ? r->y[i] * r->ys : (double)(i == r->target);
}

/* The loss of one row, and its gradient in alpha when dalpha is not NULL. */
static double fy_row_loss(const fy_row *r, double *dalpha) {
    const int n = r->n;
    double m = -INFINITY;
    for (int i = 0; i < n; i++) m = fmax(m, (double)r->x[i]);
    m *= r->invt;
    double lin = 0.0, yz = 0.0; /* <p - y, z - m>, and <y, z - m> alone for Shannon */
    for (int i = 0; i < n; i++) {
        if (r->x[i] == -INFINITY) continue;
        const double zi = r->x[i] * r->invt - m, yi = target_at(r, i);
        lin += (r->p[i] - yi) * zi;
        yz += yi * zi;
    }
    const double u = r->alpha - 1.0;
    double hy_f, hy_df, ly = 0.0;
    if (r->y) {
        tsallis_sums(r->y, n, r->ys, u, &hy_f, dalpha ? &hy_df : NULL);
    } else { /* one-hot: log 1 = 0 */
        hy_f = 0.0;
        hy_df = 0.0;
    }
    double loss;
    if (u == 0.0) { /* Shannon: log-sum-exp(z) - <y, z> - H(y), H(y) = -hy_f */
        double se = 0.0;
        for (int i = 0; i < n; i++)
            if (r->x[i] != -INFINITY) se += exp(r->x[i] * r->invt - m);
        ly = log(se);
        loss = ly - yz + hy_f;
    } else {
        double hp_f;
        tsallis_sums(r->p, n, 1.0, u, &hp_f, NULL);
        loss = lin + (hy_f - hp_f) / r->alpha;
    }
    if (dalpha) {
        double hp_f, hp_df;
        tsallis_sums(r->p, n, 1.0, u, &hp_f, &hp_df);
        const double a = r->alpha, dhp = hp_f / (a * a) - hp_df / a, dhy = hy_f / (a * a) - hy_df / a;
        *dalpha = dhp - dhy;
    }
    return loss > 0.0 ? loss : 0.0; /* >= 0 exactly; rounding can leave -1e-17 */
}

/* The mapping code's alpha (SX_MAP_ENTMAX: param), or a recorded failure. */
static int fy_alpha(int mapping, float param, int want_dalpha, double *alpha) {
    switch (mapping) {
    case SX_MAP_SOFTMAX: *alpha = 1.0; break;
    case SX_MAP_SPARSEMAX: *alpha = 2.0; break;
    case SX_MAP_ENTMAX15: *alpha = 1.5; break;
    case SX_MAP_ENTMAX:
        if (!(param >= 1.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "alpha must be finite and >= 1 (got %g)", (double)param);
        *alpha = param;
        break;
    default:
        return sx__fail(SX_EINVAL, -1,
                        "the Fenchel-Young losses take SX_MAP_SOFTMAX, SPARSEMAX, ENTMAX15 or ENTMAX (got mapping %d)",
                        mapping);
    }
    if (want_dalpha && mapping != SX_MAP_ENTMAX)
        return sx__fail(SX_EINVAL, -1, "dalpha needs SX_MAP_ENTMAX (alpha is fixed in mapping %d)", mapping);
    return SX_OK;
}

/* Each target row: finite, >= 0, summing to 1 within 1e-3, no mass on a masked score. ys gets
   1 / sum. */
static int check_targets(const float *y, const float *x, int rows, int n, double *ys) {
    for (int r = 0; r < rows; r++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            const size_t k = (size_t)r * n + i;
            const float v = y[k];
            if (!(v >= 0.0f) || v == INFINITY)
                return sx__fail(SX_ENONFINITE, (int)k, "y[%d] must be finite and >= 0 (got %g)", (int)k, (double)v);
            if (v > 0.0f && x[k] == -INFINITY)
                return sx__fail(SX_EINVAL, (int)k, "y[%d] = %g puts mass on a masked score (x[%d] is -Infinity)",
                                (int)k, (double)v, (int)k);
            s += v;
        }
        if (!(fabs(s - 1.0) <= 1e-3))
            return sx__fail(SX_EINVAL, -1, "row %d of y sums to %g, not 1", r, s);
        ys[r] = 1.0 / s;
    }
    return SX_OK;
}

static int check_indices(const int *target, const float *x, int rows, int n) {
    for (int r = 0; r < rows; r++) {
        const int t = target[r];
        if (t == -1) continue;
        if (t < 0 || t >= n)
            return sx__fail(SX_EINVAL, r, "target[%d] must be in [0, %d) or -1 to skip the row (got %d)", r, n, t);
        if (x[(size_t)r * n + t] == -INFINITY)
            return sx__fail(SX_EINVAL, r, "target[%d] = %d points at a masked score (x[%d] is -Infinity)", r, t,
                            r * n + t);
    }
    return SX_OK;
}

static int fy_map(float *p, const float *x, int rows, int n, double alpha, float t) {
    return sx_entmax(p, x, rows, n, (float)alpha, t);
}

/* The shared body: y (distributions, ys their 1 / sums) or target (indices). */
static int fy_loss(float *loss, float *dx, float *dalpha, const float *x, const float *y, const double *ys,
                   const int *target, int rows, int n, double alpha, float t) {
    float *p = dx ? dx : (float *)malloc((size_t)rows * n * sizeof(float));
    if (!p) return sx__fail(SX_ENOMEM, -1, "out of memory for p (%d floats)", rows * n);
    int st = fy_map(p, x, rows, n, alpha, t);
    for (int r = 0; st == SX_OK && r < rows; r++) {
        const size_t o = (size_t)r * n;
        const int skip = !y && target[r] == -1;
        fy_row row = { x + o, p + o, y ? y + o : NULL, y ? ys[r] : 1.0, 1.0 / t, alpha, n, y ? -1 : target[r] };
        double da = 0.0;
        loss[r] = skip ? 0.0f : (float)fy_row_loss(&row, dalpha ? &da : NULL);
        if (dalpha) dalpha[r] = skip ? 0.0f : (float)da;
        if (!dx) continue;
        for (int i = 0; i < n; i++) /* (p - y) / T in place */
            dx[o + i] = skip ? 0.0f : (float)((p[o + i] - target_at(&row, i)) * row.invt);
    }
    if (!dx) free(p);
    return st;
}

static int fy_check(const float *loss, const float *x, int rows, int n, int mapping, float param, float t,
                    const float *dalpha, double *alpha) {
    int st = sx__check_dims_as(loss, "loss", x, "x", rows, n);
    if (!st) st = sx__check_temperature(t);
    if (!st) st = fy_alpha(mapping, param, dalpha != NULL, alpha);
    if (!st && rows > 0) st = sx__check_scores(x, (size_t)rows * n, "x", 1);
    return st;
}

int sx_fy_loss(float *loss, float *dx, float *dalpha, const float *x, const float *y, int rows, int n,
               int mapping, float param, float temperature) {
    double alpha;
    int st = fy_check(loss, x, rows, n, mapping, param, temperature, dalpha, &alpha);
    if (st || rows == 0) return st;
    if (!y) return sx__null("y");
    double *ys = (double *)malloc((size_t)rows * sizeof(double));
    if (!ys) return sx__fail(SX_ENOMEM, -1, "out of memory for %d row sums", rows);
    st = check_targets(y, x, rows, n, ys);
    if (!st) st = fy_loss(loss, dx, dalpha, x, y, ys, NULL, rows, n, alpha, temperature);
    free(ys);
    return st;
}

int sx_fy_loss_index(float *loss, float *dx, float *dalpha, const float *x, const int *target, int rows, int n,
                     int mapping, float param, float temperature) {
    double alpha;
    int st = fy_check(loss, x, rows, n, mapping, param, temperature, dalpha, &alpha);
    if (st || rows == 0) return st;
    if (!target) return sx__null("target");
    st = check_indices(target, x, rows, n);
    if (!st) st = fy_loss(loss, dx, dalpha, x, NULL, NULL, target, rows, n, alpha, temperature);
    return st;
}
