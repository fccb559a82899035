/* scoring.c - attention scoring functions and the masked mapping (issue 13; D2L "Attention
   Scoring Functions"): the (nq, nk) score matrix of queries against keys by a dot product, a
   scaled dot product, a bilinear form q^T W k or additive attention w_v^T tanh(W_q q + W_k k),
   with its backward pass (dq, dk and the parameters' gradients); and D2L's masked_softmax
   generalised to every mapping: a row's entries beyond its valid length get exactly 0. The
   mappings themselves are the public sx_* functions: a score matrix is rows of scores.
   Everything is accumulated in double and rounded to float once. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* Largest element count of any one buffer: the JS side addresses floats by int byte offsets. */
#define SX_MAX_ELEMS ((uint64_t)INT32_MAX / 4)

/* ---------------------------------------------------------------- arguments */
static const char *kind_name(int kind) {
    switch (kind) {
    case SX_SCORE_DOT: return "dot";
    case SX_SCORE_SCALED: return "scaled";
    case SX_SCORE_BILINEAR: return "bilinear";
    default: return "additive";
    }
}

/* Parameter floats of a scoring kind: 0, 0, q_dim k_dim, hidden (q_dim + k_dim + 1). */
static uint64_t param_count(int kind, int q_dim, int k_dim, int hidden) {
    if (kind == SX_SCORE_BILINEAR) return (uint64_t)q_dim * (uint64_t)k_dim;
    if (kind == SX_SCORE_ADDITIVE) return (uint64_t)hidden * ((uint64_t)q_dim + (uint64_t)k_dim + 1);
    return 0;
}

/* empty: the call writes nothing (the forward with nq nk = 0): only the sizes and the kind are
   checked, no buffer is read (any may be NULL). */
static int check_scores_args(const char *fn, const float *q, const float *k, const float *params,
                             int nq, int nk, int q_dim, int k_dim, int hidden, int kind, int empty) {
    if (kind < SX_SCORE_DOT || kind > SX_SCORE_ADDITIVE)
        return sx__fail(SX_EINVAL, -1,
                        "%s: unknown scoring kind %d (SX_SCORE_DOT 0, SCALED 1, BILINEAR 2, "
                        "ADDITIVE 3)", fn, kind);
    if (nq < 0 || nk < 0)
        return sx__fail(SX_EINVAL, -1, "%s: nq and nk must be >= 0 (got %d, %d)", fn, nq, nk);
    if (q_dim < 1 || k_dim < 1)
        return sx__fail(SX_EINVAL, -1, "%s: q_dim and k_dim must be >= 1 (got %d, %d)", fn,
                        q_dim, k_dim);
    if ((kind == SX_SCORE_DOT || kind == SX_SCORE_SCALED) && q_dim != k_dim)
        return sx__fail(SX_EINVAL, -1, "%s: %s scores need q_dim == k_dim (got %d and %d)", fn,
                        kind_name(kind), q_dim, k_dim);
    if (kind == SX_SCORE_ADDITIVE && hidden < 1)
        return sx__fail(SX_EINVAL, -1, "%s: hidden must be >= 1 for additive scores (got %d)", fn,
                        hidden);
    if (kind != SX_SCORE_ADDITIVE) hidden = 0;
    const uint64_t hq = (uint64_t)(nq + 1) * (uint64_t)(hidden > k_dim ? hidden : k_dim);
    const uint64_t hk = (uint64_t)(nk + 1) * (uint64_t)(hidden > 0 ? hidden : 1);
    if ((uint64_t)nq * nk > SX_MAX_ELEMS || (uint64_t)nq * q_dim > SX_MAX_ELEMS ||
        (uint64_t)nk * k_dim > SX_MAX_ELEMS || param_count(kind, q_dim, k_dim, hidden) > SX_MAX_ELEMS ||
        4 * (hq + hk) > SX_MAX_ELEMS)
        return sx__fail(SX_EINVAL, -1, "%s: sizes too large (nq %d, nk %d, q_dim %d, k_dim %d, "
                        "hidden %d)", fn, nq, nk, q_dim, k_dim, hidden);
    if (empty) return SX_OK;
    if (nq > 0 && !q) return sx__null("q");
    if (nk > 0 && !k) return sx__null("k");
    if (kind >= SX_SCORE_BILINEAR && !params) return sx__null("params");
    int st = sx__check_scores(q, (size_t)nq * q_dim, "q", 0);
    if (st == SX_OK) st = sx__check_scores(k, (size_t)nk * k_dim, "k", 0);
    if (st == SX_OK && kind == SX_SCORE_BILINEAR)
        st = sx__check_scores(params, (size_t)q_dim * k_dim, "W", 0);
    if (st == SX_OK && kind == SX_SCORE_ADDITIVE) {
        const size_t a = (size_t)hidden * q_dim, b = (size_t)hidden * k_dim;
        st = sx__check_scores(params, a, "Wq", 0);
        if (st == SX_OK) st = sx__check_scores(params + a, b, "Wk", 0);
        if (st == SX_OK) st = sx__check_scores(params + a + b, (size_t)hidden, "wv", 0);
    }
    return st;
}

/* A failure recorded by a shared check ("q[3] must be finite (got nan)", "n must be >= 1")
   with the public function's name put in front, as this file's own messages have it. */
static int named(const char *fn, int st) {
    if (st == SX_OK) return st;
    const char *e = sx_last_error();
    if (strncmp(e, "sx_", 3) == 0) return st;
    char msg[200];
    size_t i = 0;
    for (; e[i] && i + 1 < sizeof msg; i++) msg[i] = e[i];
    msg[i] = 0;
    return sx__fail(st, sx_last_error_index(), "%s: %s", fn, msg);
}

static int no_memory(const char *fn, size_t doubles) {
    return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate %g bytes of scratch", fn,
                    (double)doubles * 8.0);
}

/* ------------------------------------------------------------------ forward */
/* q (nq, q_dim), k (nk, k_dim) -> proj (n, hidden) = x W^T for W (hidden, dim): the additive
   score's projections, in double. */
static void project(double *proj, const float *x, const float *W, int n, int dim, int hidden) {
    for (int i = 0; i < n; i++) {
        const float *x_i = x + (size_t)i * dim;
        for (int l = 0; l < hidden; l++) {
            const float *W_l = W + (size_t)l * dim;
            double s = 0.0;
            for (int m = 0; m < dim; m++) s += (double)x_i[m] * W_l[m];
            proj[(size_t)i * hidden + l] = s;
        }
    }
}

int sx_attention_scores(float *scores, const float *q, const float *k, const float *params,
                        int nq, int nk, int q_dim, int k_dim, int hidden, int kind) {
    const char *fn = "sx_attention_scores";
    const int empty = (size_t)nq * nk == 0; /* no score to write: nothing read */
    int st = named(fn, check_scores_args(fn, q, k, params, nq, nk, q_dim, k_dim, hidden, kind, empty));
    if (st != SX_OK || empty) return st;
    if (!scores) return named(fn, sx__null("scores"));

    double *tmp = NULL; /* bilinear: P = q W (nq, k_dim); additive: A (nq, h), B (nk, h) */
    size_t nt = 0;
    if (kind == SX_SCORE_BILINEAR) nt = (size_t)nq * k_dim;
    if (kind == SX_SCORE_ADDITIVE) nt = ((size_t)nq + nk) * hidden;
    if (nt > 0 && !(tmp = malloc(nt * sizeof(double)))) return no_memory(fn, nt);

    if (kind == SX_SCORE_BILINEAR) {
        for (int i = 0; i < nq; i++) {
            const float *q_i = q + (size_t)i * q_dim;
            double *P_i = tmp + (size_t)i * k_dim;
            for (int n = 0; n < k_dim; n++) P_i[n] = 0.0;
            for (int m = 0; m < q_dim; m++) {
                const float *W_m = params + (size_t)m * k_dim;
                for (int n = 0; n < k_dim; n++) P_i[n] += (double)q_i[m] * W_m[n];
            }
        }
    } else if (kind == SX_SCORE_ADDITIVE) {
        project(tmp, q, params, nq, q_dim, hidden);
        project(tmp + (size_t)nq * hidden, k, params + (size_t)hidden * q_dim, nk, k_dim, hidden);
    }
    const float *wv = params ? params + (size_t)hidden * (q_dim + k_dim) : NULL;
    const double c = kind == SX_SCORE_SCALED ? 1.0 / sqrt((double)q_dim) : 1.0;
    for (int i = 0; i < nq && st == SX_OK; i++) {
        const float *q_i = q + (size_t)i * q_dim;
        for (int j = 0; j < nk; j++) {
            const float *k_j = k + (size_t)j * k_dim;
            double s = 0.0;
            if (kind == SX_SCORE_DOT || kind == SX_SCORE_SCALED) {
                for (int m = 0; m < q_dim; m++) s += (double)q_i[m] * k_j[m];
                s *= c;
            } else if (kind == SX_SCORE_BILINEAR) {
                const double *P_i = tmp + (size_t)i * k_dim;
                for (int n = 0; n < k_dim; n++) s += P_i[n] * k_j[n];
            } else {
                const double *A_i = tmp + (size_t)i * hidden;
                const double *B_j = tmp + ((size_t)nq + j) * hidden;
                for (int l = 0; l < hidden; l++) s += (double)wv[l] * tanh(A_i[l] + B_j[l]);
            }
            if (!(fabs(s) <= FLT_MAX)) {
                st = sx__fail(SX_ENONFINITE, i * nk + j,
                              "%s: score[%d][%d] overflows float (got %g; scale q, k or the "
                              "parameters down)", fn, i, j, s);
                break;
            }
            scores[(size_t)i * nk + j] = (float)s;
        }
    }
    free(tmp);
    return st;
}

/* ----------------------------------------------------------------- backward */
static float to_float(double v) { return (float)v; } /* overflow gives +-Infinity, never NaN */

int sx_attention_scores_backward(float *dq, float *dk, float *dparams, const float *dscores,
                                 const float *q, const float *k, const float *params, int nq,
                                 int nk, int q_dim, int k_dim, int hidden, int kind) {
    const char *fn = "sx_attention_scores_backward";
    int st = named(fn, check_scores_args(fn, q, k, params, nq, nk, q_dim, k_dim, hidden, kind, 0));
    if (st != SX_OK) return st;
    const size_t ns = (size_t)nq * nk;
    if (ns > 0 && !dscores) return named(fn, sx__null("dscores"));
    if ((st = named(fn, sx__check_scores(dscores, ns, "dscores", 0))) != SX_OK) return st;
    if (kind != SX_SCORE_ADDITIVE) hidden = 0;
    const size_t np = (size_t)param_count(kind, q_dim, k_dim, hidden);
    /* every gradient is overwritten, zeros where nothing flows */
    if (dq) memset(dq, 0, (size_t)nq * q_dim * sizeof(float));
    if (dk) memset(dk, 0, (size_t)nk * k_dim * sizeof(float));
    if (dparams) memset(dparams, 0, np * sizeof(float));
    if (ns == 0) return SX_OK;

    if (kind == SX_SCORE_DOT || kind == SX_SCORE_SCALED) {
        const double c = kind == SX_SCORE_SCALED ? 1.0 / sqrt((double)q_dim) : 1.0;
        for (int i = 0; i < nq && dq; i++) /* dq = c g k */
            for (int m = 0; m < q_dim; m++) {
                double s = 0.0;
                for (int j = 0; j < nk; j++) s += (double)dscores[(size_t)i * nk + j] * k[(size_t)j * k_dim + m];
                dq[(size_t)i * q_dim + m] = to_float(c * s);
            }
        for (int j = 0; j < nk && dk; j++) /* dk = c g^T q */
            for (int m = 0; m < k_dim; m++) {
                double s = 0.0;
                for (int i = 0; i < nq; i++) s += (double)dscores[(size_t)i * nk + j] * q[(size_t)i * q_dim + m];
                dk[(size_t)j * k_dim + m] = to_float(c * s);
            }
        return SX_OK;
    }

    if (kind == SX_SCORE_BILINEAR) {
        /* P = q W, dP = g k (both (nq, k_dim)); dq = dP W^T, dW = q^T dP, dk = g^T P */
        const size_t nt = 2 * (size_t)nq * k_dim;
        double *P = malloc(nt * sizeof(double));
        if (!P) return no_memory(fn, nt);
        double *dP = P + (size_t)nq * k_dim;
        for (int i = 0; i < nq; i++) {
            const float *q_i = q + (size_t)i * q_dim;
            const float *g_i = dscores + (size_t)i * nk;
            double *P_i = P + (size_t)i * k_dim, *dP_i = dP + (size_t)i * k_dim;
            for (int n = 0; n < k_dim; n++) {
                double p = 0.0, d = 0.0;
                for (int m = 0; m < q_dim; m++) p += (double)q_i[m] * params[(size_t)m * k_dim + n];
                for (int j = 0; j < nk; j++) d += (double)g_i[j] * k[(size_t)j * k_dim + n];
                P_i[n] = p;
                dP_i[n] = d;
            }
        }
        for (int i = 0; i < nq && dq; i++)
            for (int m = 0; m < q_dim; m++) {
                double s = 0.0;
                for (int n = 0; n < k_dim; n++) s += dP[(size_t)i * k_dim + n] * params[(size_t)m * k_dim + n];
                dq[(size_t)i * q_dim + m] = to_float(s);
            }
        for (int m = 0; m < q_dim && dparams; m++)
            for (int n = 0; n < k_dim; n++) {
                double s = 0.0;
                for (int i = 0; i < nq; i++) s += (double)q[(size_t)i * q_dim + m] * dP[(size_t)i * k_dim + n];
                dparams[(size_t)m * k_dim + n] = to_float(s);
            }
        for (int j = 0; j < nk && dk; j++)
            for (int n = 0; n < k_dim; n++) {
                double s = 0.0;
                for (int i = 0; i < nq; i++) s += (double)dscores[(size_t)i * nk + j] * P[(size_t)i * k_dim + n];
                dk[(size_t)j * k_dim + n] = to_float(s);
            }
        free(P);
        return SX_OK;
    }

    /* additive: A = q Wq^T (nq, h), B = k Wk^T (nk, h), t = tanh(A_i + B_j);
       dwv += g t, u = g wv (1 - t^2): dA_i += u, dB_j += u; then dq = dA Wq, dWq = dA^T q,
       dk = dB Wk, dWk = dB^T k */
    const int h = hidden;
    const size_t nt = 2 * ((size_t)nq + nk) * h + h;
    double *A = malloc(nt * sizeof(double));
    if (!A) return no_memory(fn, nt);
    double *B = A + (size_t)nq * h, *dA = B + (size_t)nk * h, *dB = dA + (size_t)nq * h;
    double *dwv = dB + (size_t)nk * h;
    const float *Wq = params, *Wk = params + (size_t)h * q_dim, *wv = Wk + (size_t)h * k_dim;
    project(A, q, Wq, nq, q_dim, h);
    project(B, k, Wk, nk, k_dim, h);
    memset(dA, 0, (((size_t)nq + nk) * h + h) * sizeof(double));
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) {
            const double g = dscores[(size_t)i * nk + j];
            if (g == 0.0) continue;
            const double *A_i = A + (size_t)i * h, *B_j = B + (size_t)j * h;
            double *dA_i = dA + (size_t)i * h, *dB_j = dB + (size_t)j * h;
            for (int l = 0; l < h; l++) {
                const double t = tanh(A_i[l] + B_j[l]);
                const double u = g * wv[l] * (1.0 - t * t);
                dwv[l] += g * t;
                dA_i[l] += u;
                dB_j[l] += u;
            }
        }
    for (int side = 0; side < 2; side++) {
        const int n = side ? nk : nq, dim = side ? k_dim : q_dim;
        const float *x = side ? k : q, *W = side ? Wk : Wq;
        const double *dX = side ? dB : dA;
        float *dx = side ? dk : dq;
        float *dW = dparams ? dparams + (side ? (size_t)h * q_dim : 0) : NULL;
        for (int i = 0; i < n && dx; i++)
            for (int m = 0; m < dim; m++) {
                double s = 0.0;
                for (int l = 0; l < h; l++) s += dX[(size_t)i * h + l] * W[(size_t)l * dim + m];
                dx[(size_t)i * dim + m] = to_float(s);
            }
        for (int l = 0; l < h && dW; l++)
            for (int m = 0; m < dim; m++) {
                double s = 0.0;
                for (int i = 0; i < n; i++) s += dX[(size_t)i * h + l] * x[(size_t)i * dim + m];
                dW[(size_t)l * dim + m] = to_float(s);
            }
    }
    if (dparams)
        for (int l = 0; l < h; l++) dparams[(size_t)h * (q_dim + k_dim) + l] = to_float(dwv[l]);
    free(A);
    return SX_OK;
}

/* ------------------------------------------------------------ masked mapping */
static int check_masked(const char *fn, const float *x, const int *valid_len, int rows, int n,
                        int mapping, float param, float temperature) {
    int st = sx__check_dims_as(x, "x", x, "x", rows, n); /* out is checked by the caller */
    if (st != SX_OK) return st;
    if ((st = sx__check_temperature(temperature)) != SX_OK) return st;
    switch (mapping) {
    case SX_MAP_SOFTMAX: case SX_MAP_SPARSEMAX: case SX_MAP_ENTMAX15: case SX_MAP_SIGMOID: break;
    case SX_MAP_ENTMAX:
        if (!(param >= 1.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "%s: alpha must be finite and >= 1 (got %g)", fn, (double)param);
        break;
    case SX_MAP_FUSEDMAX: case SX_MAP_OSCARMAX:
        if (!(param >= 0.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "%s: %s must be finite and >= 0 (got %g)", fn,
                            mapping == SX_MAP_FUSEDMAX ? "lambda" : "beta", (double)param);
        break;
    default:
        return sx__fail(SX_EINVAL, -1,
                        "%s: unknown mapping %d (SX_MAP_SOFTMAX 0, SPARSEMAX 1, ENTMAX15 2, "
                        "ENTMAX 3, FUSEDMAX 5, OSCARMAX 6, SIGMOID 7)", fn, mapping);
    }
    if (valid_len)
        for (int r = 0; r < rows; r++)
            if (valid_len[r] < 0 || valid_len[r] > n)
                return sx__fail(SX_EINVAL, r, "%s: valid_len[%d] must be in [0, n = %d] (got %d)",
                                fn, r, n, valid_len[r]);
    return sx__check_scores(x, (size_t)rows * n, "x", 1);
}

static int map_rows(float *out, const float *x, int rows, int n, int mapping, float param, float t) {
    switch (mapping) {
    case SX_MAP_SOFTMAX: return sx_softmax(out, x, rows, n, t);
    case SX_MAP_SPARSEMAX: return sx_sparsemax(out, x, rows, n, t);
    case SX_MAP_ENTMAX15: return sx_entmax15(out, x, rows, n, t);
    case SX_MAP_ENTMAX: return sx_entmax(out, x, rows, n, param, t);
    case SX_MAP_FUSEDMAX: return sx_fusedmax(out, x, rows, n, param, t);
    case SX_MAP_OSCARMAX: return sx_oscarmax(out, x, rows, n, param, t);
    default: return sx_sigmoid(out, x, rows, n, t);
    }
}

static int map_rows_backward(float *dx, const float *x, const float *dy, int rows, int n,
                             int mapping, float param, float t) {
    switch (mapping) {
    case SX_MAP_SOFTMAX: return sx_softmax_backward(dx, x, dy, rows, n, t);
    case SX_MAP_SPARSEMAX: return sx_sparsemax_backward(dx, x, dy, rows, n, t);
    case SX_MAP_ENTMAX15: return sx_entmax15_backward(dx, x, dy, rows, n, t);
    case SX_MAP_ENTMAX: return sx_entmax_backward(dx, x, dy, rows, n, param, t);
    case SX_MAP_FUSEDMAX: return sx_fusedmax_backward(dx, x, dy, rows, n, param, t);
    case SX_MAP_OSCARMAX: return sx_oscarmax_backward(dx, x, dy, rows, n, param, t);
    default: return sx_sigmoid_backward(dx, x, dy, rows, n, t);
    }
}

/* Row r of x with its entries from valid_len[r] on set to -INFINITY, into row (n floats). */
static const float *masked_row(float *row, const float *x, const int *valid_len, int r, int n) {
    const float *x_r = x + (size_t)r * n;
    if (!valid_len || valid_len[r] == n) return x_r;
    memcpy(row, x_r, (size_t)valid_len[r] * sizeof(float));
    for (int j = valid_len[r]; j < n; j++) row[j] = -INFINITY;
    return row;
}

int sx_masked_mapping(float *out, const float *x, const int *valid_len, int rows, int n,
                      int mapping, float param, float temperature) {
    const char *fn = "sx_masked_mapping";
    int st = named(fn, check_masked(fn, x, valid_len, rows, n, mapping, param, temperature));
    if (st != SX_OK) return st;
    if (rows > 0 && !out) return named(fn, sx__null("out"));
    if (!valid_len) return named(fn, map_rows(out, x, rows, n, mapping, param, temperature));
    float *row = malloc((size_t)n * sizeof(float));
    if (!row) return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate %d bytes of scratch", fn, 4 * n);
    for (int r = 0; r < rows && st == SX_OK; r++)
        st = map_rows(out + (size_t)r * n, masked_row(row, x, valid_len, r, n), 1, n, mapping,
                      param, temperature);
    free(row);
    return named(fn, st);
}

int sx_masked_mapping_backward(float *dx, const float *x, const float *dy, const int *valid_len,
                               int rows, int n, int mapping, float param, float temperature) {
    const char *fn = "sx_masked_mapping_backward";
    int st = named(fn, check_masked(fn, x, valid_len, rows, n, mapping, param, temperature));
    if (st != SX_OK) return st;
    if (rows > 0 && (!dx || !dy)) return named(fn, sx__null(dx ? "dy" : "dx"));
    if ((st = named(fn, sx__check_scores(dy, (size_t)rows * n, "dy", 0))) != SX_OK) return st;
    if (!valid_len) return named(fn, map_rows_backward(dx, x, dy, rows, n, mapping, param, temperature));
    float *row = malloc((size_t)n * sizeof(float));
    if (!row) return sx__fail(SX_ENOMEM, -1, "%s: cannot allocate %d bytes of scratch", fn, 4 * n);
    for (int r = 0; r < rows && st == SX_OK; r++) {
        float *dx_r = dx + (size_t)r * n;
        st = map_rows_backward(dx_r, masked_row(row, x, valid_len, r, n), dy + (size_t)r * n, 1,
                               n, mapping, param, temperature);
        for (int j = valid_len[r]; j < n; j++) dx_r[j] = 0.0f; /* +0 (a mapping may give -0) */
    }
    free(row);
    return named(fn, st);
}

SX_COLD_END
