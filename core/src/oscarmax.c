/* oscarmax.c - oscarmax(x; beta) = argmin over the simplex of
   1/2 ||p - z||^2 + beta sum_{i<j} max(p_i, p_j), z = x / T.

   On the simplex p >= 0, so the penalty is sum_k beta (m - k) p_(k) with p_(1) >= ... >= p_(m)
   sorted descending (the k-th largest is the max of m - k pairs): no signs, no clipping. Its
   prox is an isotonic regression: sort z descending, subtract beta (m - k) at rank k, pool
   adjacent violators into blocks of non-increasing means, undo the sort. Then sparsemax. Every
   step commutes with adding a constant to z, so the map is shift invariant, and it is
   permutation equivariant. (torchsparseattn uses the signed OSCAR prox with clipping, which is
   neither shift invariant nor this argmin when z has mixed signs.)

   Numerics. z_i = (x_i - max x) / T in double; each pooled block gets one double value, so the
   values of a cluster are bitwise equal; sparsemax gets max(v - max v, -2) in float (values more
   than 1 below the top are 0 whatever they are). Ties in the sort are broken by index.

   Masks. -Infinity entries are left out (m counts the unmasked entries), get exactly 0, and a
   fully masked row gives zeros. beta = 0 is sparsemax exactly: it calls sx_sparsemax.

   Backward. The prox's Jacobian averages over each pooled block, so
   dx = (1/T) avg_block( sparsemax_backward(p, dy) ).

   Scratch: one malloc per call of 2n (value, index) pairs (the merge sort's two halves) and n
   blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

typedef struct {
    double v; /* z, then the prox value */
    int i;    /* index in the row */
} osc_item;

typedef struct {
    double sum;
    int start, count; /* ranks start .. start + count - 1 of the sorted row */
} osc_block;

typedef struct {
    osc_item *item;   /* (n) sorted items, pointing into buf */
    osc_item *buf;    /* (2n) the sort's two halves */
    osc_block *block; /* (n) */
    int m, nblocks;
} osc_scratch;

/* ------------------------------------------------------------ sort */
/* Descending by value, ties by index. The items are filled in index order and the sort is stable,
   so "ties by index" needs no index compare: an item moves before another only if its value is
   strictly larger. A bottom-up merge sort with the compare inlined: musl's qsort (wasm) is a
   smoothsort through a function pointer and byte-wise swaps, 4x slower than this. */
#define OSC_RUN 8

static void osc_insertion(osc_item *a, int n) {
    for (int k = 1; k < n; k++) {
        osc_item cur = a[k];
        int j = k;
        while (j > 0 && a[j - 1].v < cur.v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = cur;
    }
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi) into out[lo, hi), left first on ties. */
static void osc_merge(osc_item *restrict out, const osc_item *restrict a, int lo, int mid, int hi) {
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) out[k++] = a[j].v > a[i].v ? a[j++] : a[i++];
    while (i < mid) out[k++] = a[i++];
    while (j < hi) out[k++] = a[j++];
}

/* Sorts a (m) using tmp (m); returns whichever of the two holds the result. */
static osc_item *osc_sort(osc_item *a, osc_item *tmp, int m) {
    for (int lo = 0; lo < m; lo += OSC_RUN) osc_insertion(a + lo, m - lo < OSC_RUN ? m - lo : OSC_RUN);
    for (int w = OSC_RUN; w < m; w *= 2) {
        for (int lo = 0; lo < m; lo += 2 * w) {
            int mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
            if (mid == hi) memcpy(tmp + lo, a + lo, (size_t)(hi - lo) * sizeof *a);
            else osc_merge(tmp, a, lo, mid, hi);
        }
        osc_item *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

static double block_mean(const osc_block *b) { return b->sum / b->count; }

/* ------------------------------------------------------------ one row */
/* Writes p = oscarmax of one row into out, leaving the sorted items and the blocks in sc for
   the backward pass. Returns 0 for a fully masked row (out zeroed). */
static int oscarmax_row(float *out, const float *x, int n, double beta, double t, osc_scratch *sc) {
    const double top = (double)sx__row_max(x, n);
    osc_item *item = sc->buf;
    int m = 0;
    for (int i = 0; i < n; i++) {
        out[i] = -INFINITY;
        if (x[i] != -INFINITY) {
            item[m].v = ((double)x[i] - top) / t;
            item[m].i = i;
            m++;
        }
    }
    sc->m = m;
    sc->nblocks = 0;
    if (m == 0) {
        memset(out, 0, (size_t)n * sizeof(float));
        return 0;
    }
    sc->item = osc_sort(item, sc->buf + n, m);

    /* Pool adjacent violators of "non-increasing" on w_k = z_(k) - beta (m - 1 - k), k from 0. */
    osc_block *b = sc->block;
    int nb = 0;
    for (int k = 0; k < m; k++) {
        b[nb].sum = sc->item[k].v - beta * (double)(m - 1 - k);
        b[nb].start = k;
        b[nb].count = 1;
        nb++;
        while (nb > 1 && block_mean(&b[nb - 2]) < block_mean(&b[nb - 1])) {
            b[nb - 2].sum += b[nb - 1].sum;
            b[nb - 2].count += b[nb - 1].count;
            nb--;
        }
    }
    sc->nblocks = nb;

    const double vtop = block_mean(&b[0]); /* the means are non-increasing */
    for (int j = 0; j < nb; j++) {
        double w = block_mean(&b[j]) - vtop;
        float f = (float)(w > -2.0 ? w : -2.0);
        for (int k = b[j].start; k < b[j].start + b[j].count; k++) out[sc->item[k].i] = f;
    }
    sx__sparsemax_row(out, out, n);
    return 1;
}

static int check_beta(float beta) {
    if (beta != beta || beta == INFINITY)
        return sx__fail(SX_EINVAL, -1, "beta must be finite (got %g)", (double)beta);
    if (beta < 0.0f) return sx__fail(SX_EINVAL, -1, "beta must be >= 0 (got %g)", (double)beta);
    return SX_OK;
}

static int scratch_alloc(osc_scratch *sc, int n) {
    sc->buf = (osc_item *)malloc(2 * (size_t)n * sizeof(osc_item));
    sc->block = (osc_block *)malloc((size_t)n * sizeof(osc_block));
    sc->item = sc->buf;
    if (!sc->buf || !sc->block) {
        free(sc->buf);
        free(sc->block);
        return sx__fail(SX_ENOMEM, -1, "oscarmax: cannot allocate scratch for n = %d", n);
    }
    return SX_OK;
}

static void scratch_free(osc_scratch *sc) {
    free(sc->buf);
    free(sc->block);
}

/* ------------------------------------------------------------ public */
int sx_oscarmax(float *out, const float *x, int rows, int n, float beta, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_beta(beta);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    if (beta == 0.0f) return sx_sparsemax(out, x, rows, n, temperature);
    if (rows == 0) return SX_OK;
    osc_scratch sc;
    if ((st = scratch_alloc(&sc, n))) return st;
    for (int r = 0; r < rows; r++)
        oscarmax_row(out + (size_t)r * n, x + (size_t)r * n, n, (double)beta, (double)temperature, &sc);
    scratch_free(&sc);
    return SX_OK;
}

int sx_oscarmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float beta,
                         float temperature) {
    int st = sx__check_grad_dims(dx, x, dy, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_beta(beta);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = sx__check_scores(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    if (beta == 0.0f) return sx_sparsemax_backward(dx, x, dy, rows, n, temperature);
    if (rows == 0) return SX_OK;
    osc_scratch sc;
    if ((st = scratch_alloc(&sc, n))) return st;
    float *tmp = (float *)malloc((size_t)n * sizeof(float)); /* a huge dy row, scaled down */
    if (!tmp) {
        scratch_free(&sc);
        return sx__fail(SX_ENOMEM, -1, "sx_oscarmax_backward: cannot allocate %d floats", n);
    }
    /* 1/T: applied inside the row's backward when T >= 1 (so a huge dy does not overflow
       before it is scaled down), after the block averages (in double) when T < 1 (so no block
       ever sums +Infinity and -Infinity) */
    const double inv_t = 1.0 / (double)temperature;
    const float s_in = inv_t < 1.0 ? (float)inv_t : 1.0f;
    const double s_out = inv_t < 1.0 ? 1.0 : inv_t;
    for (int r = 0; r < rows; r++) {
        float *dx_r = dx + (size_t)r * n; /* (n) p, then the gradient, in place */
        if (!oscarmax_row(dx_r, x + (size_t)r * n, n, (double)beta, (double)temperature, &sc)) continue;
        const double scale = s_out * sx__sparsemax_backward_row_grouped(dx_r, dx_r, dy + (size_t)r * n, n, s_in, tmp);
        for (int j = 0; j < sc.nblocks; j++) {
            const osc_block *b = &sc.block[j];
            double sum = 0.0;
            for (int k = b->start; k < b->start + b->count; k++) sum += dx_r[sc.item[k].i];
            float avg = (float)(sum / b->count * scale);
            for (int k = b->start; k < b->start + b->count; k++) dx_r[sc.item[k].i] = avg;
        }
    }
    scratch_free(&sc);
    free(tmp);
    return SX_OK;
}
