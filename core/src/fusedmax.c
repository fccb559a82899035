/* fusedmax.c - fusedmax(x; lambda) = sparsemax(prox_TV(z; lambda)), z = x / T.

   prox_TV(z) = argmin_y 1/2 ||y - z||^2 + lambda sum_i |y_{i+1} - y_i| is computed exactly by
   Condat's direct 1-D total-variation algorithm (L. Condat, "A direct algorithm for 1-D total
   variation denoising", IEEE SPL 2013): one left-to-right sweep that keeps the range
   [vmin, vmax] of values the current segment can still take and the dual variable at its end,
   and emits a segment (a fused run) as soon as the range proves a jump. O(n) typical.

   Numerics. Everything runs in double on z_i = (x_i - max x) / T, computed once per row into a
   dense array of the unmasked entries (scratch, one allocation per call; without it the sweeps
   read x on the fly), so T = 1e-6 with |x| = 1e30 cannot overflow. Each emitted run gets one double
   value, so the values written for a run are bitwise equal (the backward pass and the page's
   picture rely on it). Sparsemax only looks at values within 1 of the top, so we write
   max(v - max v, -2) in float: exact relative to the top, and runs below the cut stay at
   exactly 0 probability. One sweep records the run values and the top; the top is subtracted
   afterwards (without scratch: a first sweep finds the top, a second writes).
   When lambda is at least the largest partial sum of z - mean(z) the prox is the constant mean
   (its optimality condition); we test that first, which also spares the sweep a cancellation
   between a huge lambda and small scores.

   Masks. -Infinity entries are skipped: the TV chain links each unmasked entry to the next
   unmasked one in order (a masked gap does not break a run), the masked entries get exactly 0,
   and a fully masked row gives zeros. lambda = 0 is sparsemax exactly: it calls sx_sparsemax.

   Backward. The Jacobian of prox_TV averages over each fused run, so
   dx = (1/T) avg_run( sparsemax_backward(p, dy) ), over the runs the forward sweep recorded. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* ------------------------------------------------------------ the row view */
/* A row of scores seen through the mask: z(i) in double, and a cursor over unmasked entries.
   Either the dense z of the unmasked entries (z != NULL: the fast path, positions are ordinals)
   or, without scratch memory, x read on the fly (positions are row indices). */
typedef struct {
    const float *x;
    const double *z; /* (n) dense z, or NULL */
    int n;
    double top; /* max x */
    double t;   /* temperature */
} tv_row;

static double tv_z_of(const tv_row *r, int i) { return ((double)r->x[i] - r->top) / r->t; }

static double tv_z(const tv_row *r, int i) { return r->z ? r->z[i] : tv_z_of(r, i); }

static int tv_next(const tv_row *r, int i) {
    if (r->z) return i + 1;
    do i++;
    while (i < r->n && r->x[i] == -INFINITY);
    return i;
}

/* ------------------------------------------------------------ segment sinks */
/* What to do with each emitted run: find the top value, write the values, or average a
   gradient over the run. */
enum { TV_TOP, TV_WRITE, TV_AVERAGE, TV_RECORD };

typedef struct {
    int mode;
    float *buf;  /* TV_WRITE: the prox values; TV_AVERAGE: the gradient averaged in place */
    double vtop; /* TV_TOP and TV_RECORD result, used by TV_WRITE */
    double *val; /* TV_RECORD (dense rows): the prox value of each ordinal */
    int *run;    /* TV_RECORD: the first ordinal of each run */
    int nruns;
} tv_sink;

/* The run starts at unmasked index `from` and holds `count` unmasked entries. Returns the index
   after its last entry (the next unmasked one, or n). */
static int tv_emit(const tv_row *r, tv_sink *s, int from, int count, double v) {
    int i = from;
    if (s->mode == TV_RECORD) {
        if (v > s->vtop) s->vtop = v;
        s->run[s->nruns++] = from;
        for (int c = 0; c < count; c++) s->val[from + c] = v;
        return from + count;
    }
    if (s->mode == TV_TOP) {
        if (v > s->vtop) s->vtop = v;
        for (int c = 0; c < count; c++) i = tv_next(r, i);
    } else if (s->mode == TV_WRITE) {
        double w = v - s->vtop;
        float f = (float)(w > -2.0 ? w : -2.0);
        for (int c = 0; c < count; c++, i = tv_next(r, i)) s->buf[i] = f;
    } else {
        double sum = 0.0;
        for (int c = 0; c < count; c++, i = tv_next(r, i)) sum += s->buf[i];
        float avg = (float)(sum / count);
        for (int c = 0, j = from; c < count; c++, j = tv_next(r, j)) s->buf[j] = avg;
    }
    return i;
}

/* ------------------------------------------------------------ Condat's sweep */
/* Emits the runs of prox_TV(z; lam) over the unmasked entries first..last (m of them) in order.
   Positions are kept twice: as unmasked ordinals (k, k0, km, kp: for the run lengths) and as
   indices into the row (i, i0: for reading z and emitting). */
static void tv_sweep(const tv_row *r, tv_sink *s, int first, int last, int m, double lam) {
    /* Fully fused? The constant mean is optimal iff every partial sum of z - mean is <= lam. */
    double mean = 0.0;
    for (int i = first; i <= last; i = tv_next(r, i)) mean += tv_z(r, i);
    mean /= m;
    double cum = 0.0, worst = 0.0;
    for (int i = first; i < last; i = tv_next(r, i)) {
        cum += tv_z(r, i) - mean;
        if (fabs(cum) > worst) worst = fabs(cum);
    }
    if (worst <= lam) {
        tv_emit(r, s, first, m, mean);
        return;
    }

    int k = 0, k0 = 0, km = 0, kp = 0; /* ordinals: current, run start, last umin, last umax hits */
    int i = first, i0 = first;         /* row indices of k and k0 */
    double vmin = tv_z(r, first) - lam, vmax = tv_z(r, first) + lam; /* the run's value range */
    double umin = lam, umax = -lam;                                   /* dual at k, both ends */
    for (;;) {
        /* At the right end the dual must be 0: settle the run, or jump and restart from it. */
        while (k == m - 1) {
            if (umin < 0.0) { /* even vmin is too high: a downward jump after km */
                int cnt = km >= k0 ? km - k0 + 1 : 1;
                i0 = i = tv_emit(r, s, i0, cnt, vmin);
                k0 = k = km = k0 + cnt;
                if (k0 >= m) return; /* defensive: the sweep never gets here */
                vmin = tv_z(r, i);
                umin = lam;
                umax = vmin + lam - vmax;
            } else if (umax > 0.0) { /* even vmax is too low: an upward jump after kp */
                int cnt = kp >= k0 ? kp - k0 + 1 : 1;
                i0 = i = tv_emit(r, s, i0, cnt, vmax);
                k0 = k = kp = k0 + cnt;
                if (k0 >= m) return; /* defensive: the sweep never gets here */
                vmax = tv_z(r, i);
                umax = -lam;
                umin = vmax - lam - vmin;
            } else {
                tv_emit(r, s, i0, k - k0 + 1, vmin + umin / (k - k0 + 1));
                return;
            }
        }
        int inext = tv_next(r, i);
        double znext = tv_z(r, inext);
        umin += znext - vmin;
        if (umin < -lam) { /* the run cannot go on at vmin: it ends at km, the next one is lower */
            int cnt = km >= k0 ? km - k0 + 1 : 1;
            i0 = i = tv_emit(r, s, i0, cnt, vmin);
            k0 = k = km = kp = k0 + cnt;
            vmin = tv_z(r, i);
            vmax = vmin + 2.0 * lam;
            umin = lam;
            umax = -lam;
            continue;
        }
        umax += znext - vmax;
        if (umax > lam) { /* the run ends at kp, the next one is higher */
            int cnt = kp >= k0 ? kp - k0 + 1 : 1;
            i0 = i = tv_emit(r, s, i0, cnt, vmax);
            k0 = k = km = kp = k0 + cnt;
            vmax = tv_z(r, i);
            vmin = vmax - 2.0 * lam;
            umin = lam;
            umax = -lam;
            continue;
        }
        k++; /* no jump: extend the run, tighten the range */
        i = inext;
        if (umin >= lam) {
            km = k;
            vmin += (umin - lam) / (km - k0 + 1);
            umin = lam;
        }
        if (umax <= -lam) {
            kp = k;
            vmax += (umax + lam) / (kp - k0 + 1);
            umax = -lam;
        }
    }
}

/* ------------------------------------------------------------ one row */
/* Scratch, once per call: the dense z of a row's unmasked entries, their row indices, the prox
   values and the runs. Without it (malloc failed, or n < 8) the sweeps read x on the fly, twice. */
typedef struct {
    double *z, *val; /* (n) */
    int *idx, *run;  /* (n) */
    int m, nruns;
} tv_scratch;

static int scratch_alloc(tv_scratch *sc, int n) {
    sc->z = NULL;
    sc->idx = NULL;
    if (n < 8) return 0; /* short rows: the copy costs more than it saves (n = 3: 15% slower) */
    sc->z = (double *)malloc(2 * (size_t)n * sizeof(double));
    sc->idx = (int *)malloc(2 * (size_t)n * sizeof(int));
    if (!sc->z || !sc->idx) {
        free(sc->z);
        free(sc->idx);
        sc->z = NULL;
        sc->idx = NULL;
        return 0;
    }
    sc->val = sc->z + n;
    sc->run = sc->idx + n;
    return 1;
}

static void scratch_free(tv_scratch *sc) {
    free(sc->z);
    free(sc->idx);
}

/* Writes p = fusedmax of one row into out; returns 0 for a fully masked row (out zeroed). With
   scratch (sc->z), one sweep over the dense z, the runs left in sc for the backward pass. */
static int fusedmax_row(float *out, const tv_row *r, double lam, tv_scratch *sc) {
    if (sc->z) {
        int m = 0;
        for (int i = 0; i < r->n; i++) {
            out[i] = -INFINITY; /* masked entries stay -Infinity */
            if (r->x[i] != -INFINITY) {
                sc->z[m] = tv_z_of(r, i); /* already (x - max) / T */
                sc->idx[m++] = i;
            }
        }
        sc->m = m;
        if (m == 0) {
            memset(out, 0, (size_t)r->n * sizeof(float));
            return 0;
        }
        tv_row d = { r->x, sc->z, m, r->top, r->t };
        tv_sink s = { TV_RECORD, NULL, -INFINITY, sc->val, sc->run, 0 };
        tv_sweep(&d, &s, 0, m - 1, m, lam);
        sc->nruns = s.nruns;
        for (int k = 0; k < m; k++) { /* the top subtracted afterwards: runs stay bitwise equal */
            double w = sc->val[k] - s.vtop;
            out[sc->idx[k]] = (float)(w > -2.0 ? w : -2.0);
        }
        sx__sparsemax_row(out, out, r->n);
        return 1;
    }
    int first = 0, last = -1, m = 0;
    while (first < r->n && r->x[first] == -INFINITY) first++;
    for (int i = first; i < r->n; i = tv_next(r, i)) { last = i; m++; }
    if (m == 0) {
        memset(out, 0, (size_t)r->n * sizeof(float));
        return 0;
    }
    tv_sink s = { TV_TOP, out, -INFINITY, NULL, NULL, 0 };
    tv_sweep(r, &s, first, last, m, lam);
    s.mode = TV_WRITE;
    for (int i = 0; i < r->n; i++) out[i] = -INFINITY; /* masked entries stay -Infinity */
    tv_sweep(r, &s, first, last, m, lam);
    sx__sparsemax_row(out, out, r->n);
    return 1;
}

static int check_lambda(float lambda) {
    if (lambda != lambda || lambda == INFINITY)
        return sx__fail(SX_EINVAL, -1, "lambda must be finite (got %g)", (double)lambda);
    if (lambda < 0.0f) return sx__fail(SX_EINVAL, -1, "lambda must be >= 0 (got %g)", (double)lambda);
    return SX_OK;
}

/* ------------------------------------------------------------ public */
int sx_fusedmax(float *out, const float *x, int rows, int n, float lambda, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_lambda(lambda);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    if (lambda == 0.0f) return sx_sparsemax(out, x, rows, n, temperature);
    if (rows == 0) return SX_OK;
    tv_scratch sc;
    scratch_alloc(&sc, n);
    for (int row = 0; row < rows; row++) {
        const float *x_r = x + (size_t)row * n;
        tv_row r = { x_r, NULL, n, (double)sx__row_max(x_r, n), (double)temperature };
        fusedmax_row(out + (size_t)row * n, &r, (double)lambda, &sc);
    }
    scratch_free(&sc);
    return SX_OK;
}

int sx_fusedmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float lambda,
                         float temperature) {
    int st = sx__check_dims(dx, x, rows, n);
    if (!st && rows > 0 && !dy) st = sx__fail(SX_EINVAL, -1, "null buffer");
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_lambda(lambda);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = sx__check_scores(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    if (lambda == 0.0f) return sx_sparsemax_backward(dx, x, dy, rows, n, temperature);
    if (rows == 0) return SX_OK;
    /* 1/T: inside the row's backward when T >= 1 (a huge dy is scaled down before it can
       overflow), after the run averages (in double) when T < 1 (no run sums +-Infinity) */
    const double inv_t = 1.0 / (double)temperature;
    const float s_in = inv_t < 1.0 ? (float)inv_t : 1.0f;
    const double s_out = inv_t < 1.0 ? 1.0 : inv_t;
    float *tmp = (float *)malloc((size_t)n * sizeof(float)); /* a huge dy row, scaled down */
    if (!tmp) return sx__fail(SX_ENOMEM, -1, "sx_fusedmax_backward: cannot allocate %d floats", n);
    tv_scratch sc;
    scratch_alloc(&sc, n);
    for (int row = 0; row < rows; row++) {
        const float *x_r = x + (size_t)row * n;
        float *dx_r = dx + (size_t)row * n; /* (n) p, then the gradient, in place */
        tv_row r = { x_r, NULL, n, (double)sx__row_max(x_r, n), (double)temperature };
        if (!fusedmax_row(dx_r, &r, (double)lambda, &sc)) continue;
        const double scale = s_out * sx__sparsemax_backward_row_grouped(dx_r, dx_r, dy + (size_t)row * n, n, s_in, tmp);
        if (sc.z) { /* average over the runs the forward sweep recorded */
            for (int j = 0; j < sc.nruns; j++) {
                int from = sc.run[j], to = j + 1 < sc.nruns ? sc.run[j + 1] : sc.m;
                double sum = 0.0;
                for (int k = from; k < to; k++) sum += dx_r[sc.idx[k]];
                float avg = (float)(sum / (to - from));
                for (int k = from; k < to; k++) dx_r[sc.idx[k]] = avg;
            }
            if (scale != 1.0) for (int i = 0; i < n; i++) dx_r[i] = (float)(dx_r[i] * scale);
            continue;
        }
        int first = 0, last = -1, m = 0;
        while (x_r[first] == -INFINITY) first++;
        for (int i = first; i < n; i = tv_next(&r, i)) { last = i; m++; }
        tv_sink s = { TV_AVERAGE, dx_r, 0.0, NULL, NULL, 0 };
        tv_sweep(&r, &s, first, last, m, (double)lambda);
        if (scale != 1.0) for (int i = 0; i < n; i++) dx_r[i] = (float)(dx_r[i] * scale);
    }
    scratch_free(&sc);
    free(tmp);
    return SX_OK;
}
