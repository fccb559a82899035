/* positions.c - positional encodings (simplexity.h, section "positions"): the sinusoidal
   position x dimension matrix of Vaswani et al. 2017 (the model's own table, layers.c's
   sx_nn_posenc_range, wrapped with argument checks), the relative-position score term of Shaw
   et al. 2018 for a given table, and Transformer-XL's four-term relative scores (Dai et al.
   2019). Sums in double, results rounded to float once. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"
#include "nn.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* n_q * n_k (or positions * dim) floats: kept below 2^29 so the byte count fits an int32 */
#define SX_POS_MAX ((size_t)1 << 29)

static int check_size(const char *name, int v) {
    if (v < 0) return sx__fail(SX_EINVAL, -1, "%s must be >= 0 (got %d)", name, v);
    return SX_OK;
}

static int check_dim(const char *name, int dim) {
    if (dim < 2 || dim % 2)
        return sx__fail(SX_EINVAL, -1, "%s must be even and >= 2 (got %d)", name, dim);
    return SX_OK;
}

static int check_base(double base) {
    if (!(base > 0.0) || base == INFINITY)
        return sx__fail(SX_EINVAL, -1, "base must be finite and > 0 (got %g)", base);
    return SX_OK;
}

static int check_area(const char *what, int a, int b) {
    if ((size_t)a * (size_t)b >= SX_POS_MAX)
        return sx__fail(SX_EINVAL, -1, "%s too large (%d * %d)", what, a, b);
    return SX_OK;
}

/* ------------------------------------------------------------ sinusoidal */
int sx_positional_encoding(float *out, int positions, int dim, double base) {
    int st = check_size("positions", positions);
    if (st == SX_OK) st = check_dim("dim", dim);
    if (st == SX_OK) st = check_base(base);
    if (st == SX_OK) st = check_area("positions * dim", positions, dim);
    if (st != SX_OK) return st;
    if (positions == 0) return SX_OK;
    if (!out) return sx__null("out");
    sx_nn_posenc_range(out, 0, positions, dim, base); /* (positions, dim) */
    return SX_OK;
}

/* ------------------------------------------------------------- Shaw et al. */
int sx_relative_scores(float *out, const float *q, const float *table, int n_q, int n_k, int dim,
                       int max_distance) {
    int st = check_size("n_q", n_q);
    if (st == SX_OK) st = check_size("n_k", n_k);
    if (st == SX_OK && dim < 1) st = sx__fail(SX_EINVAL, -1, "dim must be >= 1 (got %d)", dim);
    if (st == SX_OK && (max_distance < 0 || max_distance > (1 << 28)))
        st = sx__fail(SX_EINVAL, -1, "max_distance must be in [0, 2^28] (got %d)", max_distance);
    if (st == SX_OK) st = check_area("n_q * n_k", n_q, n_k);
    if (st == SX_OK) st = check_area("n_q * dim", n_q, dim);
    if (st == SX_OK) st = check_area("(2 max_distance + 1) * dim", 2 * max_distance + 1, dim);
    if (st != SX_OK) return st;
    if (n_q == 0 || n_k == 0) return SX_OK;
    if (!out || !q || !table) return sx__null(!out ? "out" : !q ? "q" : "table");
    const int K = max_distance;
    st = sx__check_scores(q, (size_t)n_q * dim, "q", 0);
    if (st == SX_OK) st = sx__check_scores(table, (size_t)(2 * K + 1) * dim, "table", 0);
    if (st != SX_OK) return st;
    for (int i = 0; i < n_q; i++) {
        const float *q_i = q + (size_t)i * dim;
        float *out_i = out + (size_t)i * n_k; /* (n_k) */
        for (int j = 0; j < n_k; j++) {
            long rel = (long)j - i; /* key minus query, clipped to [-K, K] */
            if (rel < -K) rel = -K;
            if (rel > K) rel = K;
            const float *a = table + (size_t)(rel + K) * dim;
            double s = 0.0;
            for (int c = 0; c < dim; c++) s += (double)q_i[c] * a[c];
            out_i[j] = (float)s;
        }
    }
    return SX_OK;
}

/* ---------------------------------------------------------- Transformer-XL */
int sx_txl_scores(float *out, float *terms, const float *q, const float *k, const float *u,
                  const float *v, const float *w_r, int n_q, int n_k, int dim, int dim_r,
                  double base) {
    int st = check_size("n_q", n_q);
    if (st == SX_OK) st = check_size("n_k", n_k);
    if (st == SX_OK && dim < 1) st = sx__fail(SX_EINVAL, -1, "dim must be >= 1 (got %d)", dim);
    if (st == SX_OK) st = check_dim("dim_r", dim_r);
    if (st == SX_OK) st = check_base(base);
    if (st == SX_OK && !w_r && dim_r != dim)
        st = sx__fail(SX_EINVAL, -1, "w_r is NULL: dim_r must equal dim (got %d and %d)", dim_r, dim);
    if (st == SX_OK) st = check_area("n_q * n_k", n_q, n_k);
    if (st == SX_OK) st = check_area("(n_q + n_k) * dim", n_q + n_k, dim);
    if (st == SX_OK) st = check_area("(n_q + n_k) * dim_r", n_q + n_k, dim_r);
    if (st == SX_OK) st = check_area("dim_r * dim", dim_r, dim);
    if (st != SX_OK) return st;
    if (n_q == 0 || n_k == 0) return SX_OK;
    if (!out || !q || !k || !u || !v)
        return sx__null(!out ? "out" : !q ? "q" : !k ? "k" : !u ? "u" : "v");
    st = sx__check_scores(q, (size_t)n_q * dim, "q", 0);
    if (st == SX_OK) st = sx__check_scores(k, (size_t)n_k * dim, "k", 0);
    if (st == SX_OK) st = sx__check_scores(u, (size_t)dim, "u", 0);
    if (st == SX_OK) st = sx__check_scores(v, (size_t)dim, "v", 0);
    if (st == SX_OK && w_r) st = sx__check_scores(w_r, (size_t)dim_r * dim, "w_r", 0);
    if (st != SX_OK) return st;

    /* the relative positions t = i - j run from -(n_k - 1) to n_q - 1: R (n_rel, dim_r) the
       sinusoids, then r (n_rel, dim) = R w_r in double */
    const int t0 = -(n_k - 1), n_rel = n_q + n_k - 1;
    float *R = malloc((size_t)n_rel * dim_r * sizeof(float));
    double *r = malloc((size_t)n_rel * dim * sizeof(double));
    if (!R || !r) {
        free(R);
        free(r);
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %d relative positions", n_rel);
    }
    sx_nn_posenc_range(R, t0, n_rel, dim_r, base);
    for (int t = 0; t < n_rel; t++) {
        const float *R_t = R + (size_t)t * dim_r;
        double *r_t = r + (size_t)t * dim;
        if (!w_r) {
            for (int c = 0; c < dim; c++) r_t[c] = R_t[c];
            continue;
        }
        for (int c = 0; c < dim; c++) r_t[c] = 0.0;
        for (int e = 0; e < dim_r; e++) {
            const float *w_e = w_r + (size_t)e * dim;
            for (int c = 0; c < dim; c++) r_t[c] += (double)R_t[e] * w_e[c];
        }
    }
    const size_t area = (size_t)n_q * n_k;
    for (int i = 0; i < n_q; i++) {
        const float *q_i = q + (size_t)i * dim;
        for (int j = 0; j < n_k; j++) {
            const float *k_j = k + (size_t)j * dim;
            const double *r_ij = r + (size_t)(i - j - t0) * dim; /* r_{i-j} */
            double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
            for (int m = 0; m < dim; m++) {
                a += (double)q_i[m] * k_j[m];
                b += q_i[m] * r_ij[m];
                c += (double)u[m] * k_j[m];
                d += v[m] * r_ij[m];
            }
            const size_t ij = (size_t)i * n_k + j;
            out[ij] = (float)(a + b + c + d);
            if (terms) {
                terms[ij] = (float)a;
                terms[area + ij] = (float)b;
                terms[2 * area + ij] = (float)c;
                terms[3 * area + ij] = (float)d;
            }
        }
    }
    free(R);
    free(r);
    return SX_OK;
}

SX_COLD_END
