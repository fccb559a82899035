/* pooling.c - the public entry points of two attention pieces the page draws: the adaptive
   span's soft mask (Sukhbaatar et al. 2019) and Nadaraya-Watson attention pooling (D2L) with
   any mapping as its kernel. The computations live in attention.c (sx_nn_span_mask,
   sx_nn_nw_forward / _backward, which the model and the C tests use too); this file validates
   the arguments, owns the scratch and returns a status, like every public function. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"
#include "nn.h"

/* ------------------------------------------------------------ adaptive span */
int sx_span_mask(float *m, const float *distances, int n, float z, float ramp, float span_max) {
    if (n < 0) return sx__fail(SX_EINVAL, -1, "n must be >= 0 (got %d)", n);
    const float *x = distances;
    if (n > 0 && (!m || !x)) return sx__null(m ? "distances" : "m");
    if (!(z >= 0.0f) || z == INFINITY)
        return sx__fail(SX_EINVAL, -1, "z must be finite and >= 0 (got %g)", (double)z);
    if (!(ramp > 0.0f) || ramp == INFINITY)
        return sx__fail(SX_EINVAL, -1, "ramp must be finite and > 0 (got %g)", (double)ramp);
    if (!(span_max >= 0.0f) || span_max == INFINITY)
        return sx__fail(SX_EINVAL, -1, "span_max must be finite and >= 0 (got %g)", (double)span_max);
    for (int i = 0; i < n; i++) {
        if (!(x[i] >= 0.0f) || x[i] == INFINITY) {
            const int bad = x[i] != x[i] || x[i] == INFINITY;
            return sx__fail(bad ? SX_ENONFINITE : SX_EINVAL, bad ? i : -1,
                            "distances[%d] must be finite and >= 0 (got %g)", i, (double)x[i]);
        }
    }
    if (span_max > 0.0f && z > span_max) z = span_max;
    /* z in positions is sx_nn_span_mask's z L with L = 1: the same float operations */
    for (int i = 0; i < n; i++) m[i] = sx_nn_span_mask(x[i], z, 1, ramp);
    return SX_OK;
}

/* ------------------------------------------------------ Nadaraya-Watson pooling */
/* The nn.h mapping kind of a pooling mapping, -1 when unknown. */
static int pool_kind(int mapping) {
    switch (mapping) {
    case SX_MAP_SOFTMAX: return SX_NN_SOFTMAX;
    case SX_MAP_SPARSEMAX: return SX_NN_SPARSEMAX;
    case SX_MAP_ENTMAX15: return SX_NN_ENTMAX15;
    case SX_MAP_ENTMAX: return SX_NN_ENTMAX;
    case SX_MAP_FUSEDMAX: return SX_NN_FUSEDMAX;
    default: return -1;
    }
}

static int check_pool(const float *xq, const float *xk, const float *yk, int nq, int nk, float w,
                      int mapping, float param, int leave_one_out) {
    if (nq < 0) return sx__fail(SX_EINVAL, -1, "nq must be >= 0 (got %d)", nq);
    if (nk < 1) return sx__fail(SX_EINVAL, -1, "nk must be >= 1 (got %d)", nk);
    /* the backward pass allocates 4 nq nk + nq floats: keep that under 2^31 bytes */
    if ((size_t)nq * (size_t)nk > (size_t)INT32_MAX / 32)
        return sx__fail(SX_EINVAL, -1, "nq * nk too large (%d * %d)", nq, nk);
    if (!isfinite(w)) return sx__fail(SX_EINVAL, -1, "w must be finite (got %g)", (double)w);
    const int kind = pool_kind(mapping);
    if (kind < 0) return sx__fail(SX_EINVAL, -1, "unknown pooling mapping %d", mapping);
    if (kind == SX_NN_ENTMAX && (!(param >= 1.0f) || param == INFINITY))
        return sx__fail(SX_EINVAL, -1, "alpha must be finite and >= 1 (got %g)", (double)param);
    if (kind == SX_NN_FUSEDMAX && (!(param >= 0.0f) || param == INFINITY))
        return sx__fail(SX_EINVAL, -1, "lambda must be finite and >= 0 (got %g)", (double)param);
    if (leave_one_out != 0 && leave_one_out != 1)
        return sx__fail(SX_EINVAL, -1, "leave_one_out must be 0 or 1 (got %d)", leave_one_out);
    if (leave_one_out && nq != nk)
        return sx__fail(SX_EINVAL, -1, "leave_one_out needs nq == nk (got %d and %d)", nq, nk);
    if (nq == 0) return SX_OK; /* no query: nothing to read (keys and values may be NULL) */
    if (!xq || !xk || !yk) return sx__null(!xq ? "queries" : !xk ? "keys" : "values");
    int st = sx__check_scores(xq, (size_t)nq, "queries", 0);
    if (st == SX_OK) st = sx__check_scores(xk, (size_t)nk, "keys", 0);
    if (st == SX_OK) st = sx__check_scores(yk, (size_t)nk, "values", 0);
    return st;
}

int sx_nw_pooling(float *out, float *weights, const float *queries, const float *keys,
                  const float *values, int nq, int nk, float w, int mapping, float param,
                  int leave_one_out) {
    int st = check_pool(queries, keys, values, nq, nk, w, mapping, param, leave_one_out);
    if (st != SX_OK) return st;
    if (nq == 0) return SX_OK;
    if (!out) return sx__null("out");
    const size_t nm = (size_t)nq * nk;
    /* scores, then the weights when the caller does not want them */
    float *scratch = malloc(sizeof(float) * (weights ? nm : 2 * nm));
    if (!scratch)
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %g bytes of scratch", (double)(weights ? 4 * nm : 8 * nm));
    float *att = weights ? weights : scratch + nm;
    st = sx_nn_nw_forward(out, scratch, att, queries, keys, values, w, nq, nk, leave_one_out,
                          pool_kind(mapping), param);
    free(scratch);
    return st;
}

int sx_nw_pooling_backward(float *dw, const float *dy, const float *queries, const float *keys,
                           const float *values, int nq, int nk, float w, int mapping,
                           float param, int leave_one_out) {
    int st = check_pool(queries, keys, values, nq, nk, w, mapping, param, leave_one_out);
    if (st != SX_OK) return st;
    if (!dw) return sx__null("dw"); /* its one value, written even when nq = 0 */
    if (nq == 0) {
        *dw = 0.0f; /* the gradient of an empty sum */
        return SX_OK;
    }
    if (!dy) return sx__null("dy");
    st = sx__check_scores(dy, (size_t)nq, "dy", 0);
    if (st != SX_OK) return st;
    const size_t nm = (size_t)nq * nk;
    /* score, att, and the backward's 2 nq nk; out (nq) is not needed, it goes last */
    float *scratch = malloc(sizeof(float) * (4 * nm + (size_t)nq));
    if (!scratch)
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %g bytes of scratch", (double)(4 * (4 * nm + (size_t)nq)));
    float *score = scratch, *att = scratch + nm, *out = scratch + 4 * nm;
    const int kind = pool_kind(mapping);
    st = sx_nn_nw_forward(out, score, att, queries, keys, values, w, nq, nk, leave_one_out, kind,
                          param);
    float g = 0.0f;
    if (st == SX_OK)
        st = sx_nn_nw_backward(&g, scratch + 2 * nm, dy, score, att, queries, keys, values, w,
                               nq, nk, kind, param);
    free(scratch);
    if (st == SX_OK) *dw = g;
    return st;
}
