/* fusedmax.c - fusedmax(x; lambda) = sparsemax(prox_TV(z; lambda)), z = x / T.

   prox_TV(z) = argmin_y 1/2 ||y - z||^2 + lambda sum_i |y_{i+1} - y_i| is computed exactly by
   Condat's direct 1-D total-variation algorithm (L. Condat, "A direct algorithm for 1-D total
   variation denoising", IEEE SPL 2013): one left-to-right sweep that keeps the range
   [vmin, vmax] of values the current segment can still take and the dual variable at its end,
   and emits a segment (a fused run) as soon as the range proves a jump. O(n) typical.

   Numerics. Everything runs in double on z_i = (x_i - max x) / T, computed once per row into a
   dense array of the unmasked entries (scratch, once per call: on the stack for n <= 128, else
   one allocation; without it, or for n < 8, the sweeps read x on the fly), so T = 1e-6 with
   |x| = 1e30 cannot overflow. Each emitted run gets one double value, so the values written for a
   run are bitwise equal (the backward pass and the page's picture rely on it). The sweep records
   the runs (first entry, value) and the top value; sparsemax then works on the runs, in double:
   tau >= top - 1, so only the runs within 1 of the top can be in the support and tau comes from
   those alone (Michelot's iteration, each run weighted by its length); p = v - tau in float for
   the support's runs, exactly 0 elsewhere. (Without scratch: a first sweep finds the top, a
   second writes max(v - top, -2) in float, then the float sparsemax of the row.)
   When lambda is at least the largest partial sum of z - mean(z) the prox is the constant mean
   (its optimality condition); that is tested first whenever it can hold (no |z_i - mean| above
   4 lambda: one step of the partial sums moves by z_i - mean, and must stay within 2 lambda),
   which also spares the sweep a cancellation between a huge lambda and small scores.

   Speed. The sweep's branches depend on the data (about one misprediction per entry), so dense
   rows go two at a time through a branch-free version of it on f64x2 lanes (both outcomes of
   each step computed, then selected; bitwise the same runs as the scalar sweep), which finishes
   each row's tail (masked rows too: on their dense z); 1/c for the run averages comes from a
   table. The scalar wasm build, and rows whose prox may be the constant mean, use the scalar sweep.

   Masks. -Infinity entries are skipped: the TV chain links each unmasked entry to the next
   unmasked one in order (a masked gap does not break a run), the masked entries get exactly 0,
   and a fully masked row gives zeros. lambda = 0 is sparsemax exactly: it calls sx_sparsemax.

   Backward. The Jacobian of prox_TV averages over each fused run, so
   dx = (1/T) avg_run( sparsemax_backward(p, dy) ), over the runs the forward sweep recorded;
   only the support's runs need it (off the support the sparsemax backward is 0 at every entry
   of the run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

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
enum { TV_TOP, TV_WRITE, TV_AVERAGE, TV_RECORD, TV_PROX };
/* sx_prox_tv (TV_PROX) is exported by the full core only: the mappings core leaves its branch out */
#ifdef SX_MAPPINGS_CORE
#define TV_PROX_ON 0
#else
#define TV_PROX_ON 1
#endif

typedef struct {
    int mode;
    float *buf;  /* TV_WRITE, TV_PROX: the prox values; TV_AVERAGE: the gradient averaged in place */
    double vtop; /* TV_TOP and TV_RECORD result, used by TV_WRITE (TV_PROX: 0) */
    double *val; /* TV_RECORD (dense rows): the prox value of each ordinal */
    int *run;    /* TV_RECORD: the first ordinal of each run; TV_PROX: each entry's run (or NULL) */
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
    } else if (s->mode == TV_WRITE || (TV_PROX_ON && s->mode == TV_PROX)) {
        double w = v - s->vtop;
        float f = (float)((TV_PROX_ON && s->mode == TV_PROX) || w > -2.0 ? w : -2.0);
        for (int c = 0; c < count; c++, i = tv_next(r, i)) {
            s->buf[i] = f;
            if (TV_PROX_ON && s->run) s->run[i] = s->nruns;
        }
        s->nruns++;
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
   indices into the row (i, i0: for reading z and emitting). A run's value is updated by a
   multiply by 1/c, as the dense sweep does with its table: the two sweeps give the same bits. */
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
                tv_emit(r, s, i0, k - k0 + 1, vmin + umin * (1.0 / (k - k0 + 1)));
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
            vmin += (umin - lam) * (1.0 / (km - k0 + 1));
            umin = lam;
        }
        if (umax <= -lam) {
            kp = k;
            vmax += (umax + lam) * (1.0 / (kp - k0 + 1));
            umax = -lam;
        }
    }
}

/* ------------------------------------------------------------ the dense sweep */
/* TV_SPEED: the dense sweep and z_all's SIMD conversion, not in the mappings core (SX_MAPPINGS_CORE,
   compiled for size): there every row with scratch goes through tv_sweep, which records the same
   runs with the same bits (tests/js/cores.test.mjs), and z is converted one entry at a time (the
   same operations). */
#ifdef SX_MAPPINGS_CORE
#define TV_SPEED 0
#else
#define TV_SPEED 1
#endif

#if TV_SPEED
/* The same sweep, specialised to a dense row z[0..m-1] (m >= 1) with everything inlined. Its
   state is explicit so that a sweep can be started two rows at a time in SIMD and finished here:
   it records each run's first ordinal in run[] and its value in val[], their number in nr and the
   largest value in vtop. rinv[c] = 1/c for c = 1..m (a multiply where the generic sweep divides: at
   most one rounding apart). The run lengths of the right end are settled as above. */
typedef struct {
    int k, k0, km, kp, nr; /* ordinals: current, run start, last umin, last umax hits; runs so far */
    double vmin, vmax, umin, umax, vtop;
} tv_state;

static void tv_state_init(tv_state *s, const double *z, double lam) {
    s->k = s->k0 = s->km = s->kp = s->nr = 0;
    s->vmin = z[0] - lam;
    s->vmax = z[0] + lam;
    s->umin = lam;
    s->umax = -lam;
    s->vtop = -INFINITY;
}

static void tv_sweep_dense(tv_state *st, const double *z, int m, double lam, const double *rinv, int *run,
                           double *val) {
    int k = st->k, k0 = st->k0, km = st->km, kp = st->kp, nr = st->nr;
    double vmin = st->vmin, vmax = st->vmax, umin = st->umin, umax = st->umax, vtop = st->vtop;
#define TV_PUT(from, v)                                                                           \
    do {                                                                                          \
        const double v_ = (v);                                                                    \
        run[nr] = (from);                                                                         \
        val[nr++] = v_;                                                                           \
        vtop = v_ > vtop ? v_ : vtop;                                                             \
    } while (0)
    const double twolam = 2.0 * lam;
    const int last = m - 1;
    for (;;) {
        while (k == last) {
            if (umin < 0.0) {
                TV_PUT(k0, vmin);
                k0 = k = km = (km >= k0 ? km : k0) + 1;
                if (k0 >= m) goto done; /* defensive */
                vmin = z[k];
                umin = lam;
                umax = vmin + lam - vmax;
            } else if (umax > 0.0) {
                TV_PUT(k0, vmax);
                k0 = k = kp = (kp >= k0 ? kp : k0) + 1;
                if (k0 >= m) goto done; /* defensive */
                vmax = z[k];
                umax = -lam;
                umin = vmax - lam - vmin;
            } else {
                TV_PUT(k0, vmin + umin * rinv[k - k0 + 1]);
                goto done;
            }
        }
        const double zn = z[k + 1];
        umin += zn - vmin;
        if (umin < -lam) {
            TV_PUT(k0, vmin);
            k0 = k = kp = km = (km >= k0 ? km : k0) + 1;
            vmin = z[k];
            vmax = vmin + twolam;
            umin = lam;
            umax = -lam;
            continue;
        }
        umax += zn - vmax;
        if (umax > lam) {
            TV_PUT(k0, vmax);
            k0 = k = km = kp = (kp >= k0 ? kp : k0) + 1;
            vmax = z[k];
            vmin = vmax - twolam;
            umin = lam;
            umax = -lam;
            continue;
        }
        k++;
        if (umin >= lam) {
            km = k;
            vmin += (umin - lam) * rinv[k - k0 + 1];
            umin = lam;
        }
        if (umax <= -lam) {
            kp = k;
            vmax += (umax + lam) * rinv[k - k0 + 1];
            umax = -lam;
        }
    }
done:
#undef TV_PUT
    st->nr = nr;
    st->vtop = vtop;
}
#endif /* TV_SPEED */

/* ------------------------------------------------------------ one row */
/* Scratch, once per call, for TV_ROWS = 2 rows (the two lanes of tv_sweep_pair): per row the
   dense z of its unmasked entries, their row indices, the run values and first ordinals, the
   sparsemax's candidate runs; 1/c, shared.
   Without it (malloc failed, or n < 8) the sweeps read x on the fly, twice. */
typedef struct {
    double *z, *val;       /* (n) */
    const double *rinv;    /* (n + 1) */
    int *idx, *run, *cand; /* (n) */
    int m, nruns, dense;   /* dense: no masked entry, idx is the identity (not written) */
    int nsup;              /* the support's runs: cand[0..nsup) (runs_sparsemax) */
    int kind;              /* TV_MASKED: fully masked; TV_DONE: runs recorded; TV_FAST: z ready */
    double vtop;
} tv_scratch;

enum { TV_MASKED, TV_DONE, TV_FAST };
enum { TV_STACK_N = 128, TV_ROWS = 2 }; /* rows up to this long use a stack buffer: no malloc per call */
#define TV_SCRATCH_BYTES(n)                                                                       \
    ((2 * TV_ROWS * (size_t)(n) + (n) + 1) * sizeof(double) + 3 * TV_ROWS * (size_t)(n) * sizeof(int))

/* Sets sc[0..TV_ROWS) up in stack (TV_SCRATCH_BYTES(TV_STACK_N) bytes) or one allocation, returned
   for free(); sc[0].z = NULL when there is no scratch. */
static void *scratch_alloc(tv_scratch *sc, int n, unsigned char *stack) {
    for (int h = 0; h < TV_ROWS; h++) sc[h].z = NULL;
    if (n < 8) return NULL; /* short rows: the copy costs more than it saves (n = 3: 15% slower) */
    unsigned char *b = stack, *heap = NULL;
    if (n > TV_STACK_N) {
        b = heap = (unsigned char *)malloc(TV_SCRATCH_BYTES(n));
        if (!b) return NULL;
    }
    double *rinv = (double *)b, *d = rinv + n + 1;
    int *i = (int *)(d + 2 * TV_ROWS * (size_t)n);
    rinv[0] = 0.0;
    if (TV_SPEED)
        for (int c = 1; c <= n; c++) rinv[c] = 1.0 / c;
    for (int h = 0; h < TV_ROWS; h++) {
        sc[h].rinv = rinv;
        sc[h].z = d + 2 * (size_t)h * n;
        sc[h].val = sc[h].z + n;
        sc[h].idx = i + 3 * (size_t)h * n;
        sc[h].run = sc[h].idx + n;
        sc[h].cand = sc[h].run + n;
    }
    return heap;
}

#if SX_WIDE_PATHS
/* Two dense rows at once, one per f64x2 lane (of any lengths), without a branch on the data
   (the scalar sweep mispredicts about once per entry): every step computes both outcomes, the
   jump and the extension, and selects. The same operations in the same order as tv_sweep_dense, so
   the runs come out bitwise the same. A pair runs while both its rows have k < m - 1 and leaves
   the states for tv_sweep_dense to finish (a step stores at run[nr], val[nr] even without a jump:
   harmless, nr < m). */
typedef struct {
    v128 vmin, vmax, umin, umax; /* (no vtop: taken over the runs afterwards) */
    int k[2], k0[2], km[2], kp[2], nr[2];
    const double *z[2];
    int *run[2];
    double *val[2];
} tv_pair;

static void tv_pair_load(tv_pair *p, const tv_state *s, const tv_scratch *sc) {
    p->vmin = simde_wasm_f64x2_make(s[0].vmin, s[1].vmin);
    p->vmax = simde_wasm_f64x2_make(s[0].vmax, s[1].vmax);
    p->umin = simde_wasm_f64x2_make(s[0].umin, s[1].umin);
    p->umax = simde_wasm_f64x2_make(s[0].umax, s[1].umax);
    for (int h = 0; h < 2; h++) {
        p->k[h] = s[h].k, p->k0[h] = s[h].k0, p->km[h] = s[h].km, p->kp[h] = s[h].kp, p->nr[h] = s[h].nr;
        p->z[h] = sc[h].z, p->run[h] = sc[h].run, p->val[h] = sc[h].val;
    }
}

static void tv_pair_store(tv_state *s, const tv_pair *p) {
    double f[8]; /* vmin0 vmin1 vmax0 vmax1 umin0 umin1 umax0 umax1 */
    simde_wasm_v128_store(f, p->vmin);
    simde_wasm_v128_store(f + 2, p->vmax);
    simde_wasm_v128_store(f + 4, p->umin);
    simde_wasm_v128_store(f + 6, p->umax);
    for (int h = 0; h < 2; h++) {
        s[h].vmin = f[h], s[h].vmax = f[2 + h], s[h].umin = f[4 + h], s[h].umax = f[6 + h];
        s[h].k = p->k[h], s[h].k0 = p->k0[h], s[h].km = p->km[h], s[h].kp = p->kp[h], s[h].nr = p->nr[h];
    }
}

/* f64x2 (a[i], b[j]): two lane loads (f64x2.make lowers to more in V8) */
static inline __attribute__((always_inline)) v128 tv_gather2(const double *a, const double *b) {
    return simde_wasm_v128_load64_lane(b, simde_wasm_v128_load64_zero(a), 1);
}

/* always inlined: otherwise the pair lives in (wasm linear) memory, not in registers */
static inline __attribute__((always_inline)) void tv_pair_step(tv_pair *p, v128 LAM, v128 NLAM, v128 TWOLAM, v128 INF,
                                                               const double *rinv) {
    const v128 zn = tv_gather2(p->z[0] + p->k[0] + 1, p->z[1] + p->k[1] + 1);
    const v128 a = simde_wasm_f64x2_add(p->umin, simde_wasm_f64x2_sub(zn, p->vmin)); /* umin, umax after zn */
    const v128 b = simde_wasm_f64x2_add(p->umax, simde_wasm_f64x2_sub(zn, p->vmax));
    const v128 dn = simde_wasm_f64x2_lt(a, NLAM), jump = simde_wasm_v128_or(dn, simde_wasm_f64x2_gt(b, LAM));
    const v128 cm = simde_wasm_f64x2_ge(a, LAM), cp = simde_wasm_f64x2_le(b, NLAM);
    const int bdn = simde_wasm_i64x2_bitmask(dn), bj = simde_wasm_i64x2_bitmask(jump);
    const int bcm = simde_wasm_i64x2_bitmask(cm), bcp = simde_wasm_i64x2_bitmask(cp);
    /* the run a jump ends */
    const v128 vj = simde_wasm_v128_bitselect(p->vmin, p->vmax, dn);
    p->run[0][p->nr[0]] = p->k0[0];
    p->run[1][p->nr[1]] = p->k0[1];
    simde_wasm_v128_store64_lane(p->val[0] + p->nr[0], vj, 0);
    simde_wasm_v128_store64_lane(p->val[1] + p->nr[1], vj, 1);
    p->nr[0] += bj & 1;
    p->nr[1] += bj >> 1;
    /* after a jump the next run starts at kj; else k + 1 extends this one. The integer selects
       are masks (-1 or 0): nested ?: became branches on the data in the wasm build. */
    int kj[2], kn[2];
    for (int h = 0; h < 2; h++) {
        const int mdn = -(bdn >> h & 1);
        const int kk = (p->km[h] & mdn) | (p->kp[h] & ~mdn);
        kj[h] = (kk >= p->k0[h] ? kk : p->k0[h]) + 1;
        kn[h] = p->k[h] + 1;
    }
    const v128 r = tv_gather2(rinv + kn[0] - p->k0[0] + 1, rinv + kn[1] - p->k0[1] + 1);
    const v128 zj = tv_gather2(p->z[0] + kj[0], p->z[1] + kj[1]);
    const v128 dmin = simde_wasm_f64x2_mul(simde_wasm_f64x2_sub(a, LAM), r);
    const v128 dmax = simde_wasm_f64x2_mul(simde_wasm_f64x2_add(b, LAM), r);
    const v128 vmin_n = simde_wasm_f64x2_add(p->vmin, simde_wasm_v128_and(cm, dmin));
    const v128 vmax_n = simde_wasm_f64x2_add(p->vmax, simde_wasm_v128_and(cp, dmax));
    /* after a jump down: [zj, zj + 2 lam], up: [zj - 2 lam, zj] (+-0, not a select) */
    const v128 vmin_j = simde_wasm_f64x2_sub(zj, simde_wasm_v128_andnot(TWOLAM, dn));
    const v128 vmax_j = simde_wasm_f64x2_add(zj, simde_wasm_v128_and(TWOLAM, dn));
    p->vmin = simde_wasm_v128_bitselect(vmin_j, vmin_n, jump);
    p->vmax = simde_wasm_v128_bitselect(vmax_j, vmax_n, jump);
    /* umin = lam after a jump or when a >= lam, else a: min(a + (jump ? inf : 0), lam); umax alike */
    p->umin = simde_wasm_f64x2_pmin(simde_wasm_f64x2_add(a, simde_wasm_v128_and(jump, INF)), LAM);
    p->umax = simde_wasm_f64x2_pmax(simde_wasm_f64x2_sub(b, simde_wasm_v128_and(jump, INF)), NLAM);
    for (int h = 0; h < 2; h++) {
        const int mj = -(bj >> h & 1), mcm = -(bcm >> h & 1), mcp = -(bcp >> h & 1);
        p->km[h] = (kj[h] & mj) | (((kn[h] & mcm) | (p->km[h] & ~mcm)) & ~mj);
        p->kp[h] = (kj[h] & mj) | (((kn[h] & mcp) | (p->kp[h] & ~mcp)) & ~mj);
        p->k0[h] = (kj[h] & mj) | (p->k0[h] & ~mj);
        p->k[h] = (kj[h] & mj) | (kn[h] & ~mj);
    }
}

/* Steps the pair of rows in sc[0], sc[1] from states s[0], s[1] until one of them reaches its
   last entry (k = m - 1), where tv_sweep_dense takes over. (Two pairs interleaved were no faster:
   the step is bound by throughput, not latency.) */
static void tv_sweep_pair(tv_state *s, const tv_scratch *sc, double lam) {
    const v128 LAM = simde_wasm_f64x2_splat(lam), NLAM = simde_wasm_f64x2_splat(-lam),
               TWOLAM = simde_wasm_f64x2_splat(2.0 * lam), INF = simde_wasm_f64x2_splat(INFINITY);
    const double *rinv = sc[0].rinv;
    const int last0 = sc[0].m - 1, last1 = sc[1].m - 1;
    tv_pair p;
    tv_pair_load(&p, s, sc);
    while (p.k[0] < last0 && p.k[1] < last1) tv_pair_step(&p, LAM, NLAM, TWOLAM, INF, rinv);
    tv_pair_store(s, &p);
}
#endif

/* Sparsemax of the runs (value val[j] - vtop, length len_j) straight into out: only runs within 1
   of the top can be in the support (tau >= vtop - 1), so tau is found over those alone (Michelot's
   iteration, in double, from the set of all of them), out is zeroed and the support's runs written,
   one float per run. sc->z (free after the sweep) holds the candidates' w, sc->cand their runs;
   then sc->cand[0..nsup) the runs of the support. */
static void runs_sparsemax(float *out, int n, tv_scratch *sc) {
    double *w = sc->z;
    int *cand = sc->cand, nc = 0;
    double s = 0.0, c = 0.0;
    for (int j = 0; j < sc->nruns; j++) {
        const double wj = sc->val[j] - sc->vtop;
        if (wj > -1.0) {
            const int len = (j + 1 < sc->nruns ? sc->run[j + 1] : sc->m) - sc->run[j];
            w[nc] = wj;
            cand[nc++] = j;
            s += wj * len;
            c += len;
        }
    }
    double tau = (s - 1.0) / c; /* the top run alone gives tau >= -1: in range */
    for (;;) { /* Michelot: drop the runs at or below tau until none is */
        /* The candidates shrink for good: a run dropped once never comes back. Filtering all of
           them each time let a run whose w equals tau (exactly, up to rounding) leave and return
           as tau rounded one ulp either side, forever. */
        double s2 = 0.0, c2 = 0.0;
        int kept = 0;
        for (int q = 0; q < nc; q++)
            if (w[q] > tau) {
                const int j = cand[q], len = (j + 1 < sc->nruns ? sc->run[j + 1] : sc->m) - sc->run[j];
                s2 += w[q] * len;
                c2 += len;
                w[kept] = w[q];
                cand[kept++] = j;
            }
        if (kept == nc) break;
        nc = kept;
        s = s2;
        c = c2;
        tau = (s - 1.0) / c;
    }
    memset(out, 0, (size_t)n * sizeof(float));
    for (int q = 0; q < nc; q++) {
        const float f = (float)(w[q] - tau);
        const int j = cand[q], from = sc->run[j], to = j + 1 < sc->nruns ? sc->run[j + 1] : sc->m;
        if (sc->dense)
            for (int k = from; k < to; k++) out[k] = f;
        else
            for (int k = from; k < to; k++) out[sc->idx[k]] = f;
    }
    const int ns = nc;
    sc->nsup = ns;
}

/* z_i = (x_i - top) / t for every entry (-Infinity where masked) with their sum and min (0 at
   least: max z = 0); returns whether some entry is masked. */
static int z_all(double *z, const float *x, int n, double top, double t, double *sum, double *zmin) {
    int i = 0, masked = 0;
    double s = 0.0, lo = 0.0;
#if TV_SPEED && !SX_SCALAR_WASM
    const v128 ninf = simde_wasm_f32x4_splat(-INFINITY), vtop = simde_wasm_f64x2_splat(top),
               vt = simde_wasm_f64x2_splat(t);
    v128 vs = simde_wasm_f64x2_splat(0.0), vlo = vs, vm = simde_wasm_i32x4_splat(0);
    for (; i + 4 <= n; i += 4) {
        const v128 xi = simde_wasm_v128_load(x + i);
        vm = simde_wasm_v128_or(vm, simde_wasm_f32x4_eq(xi, ninf));
        v128 a = simde_wasm_f64x2_sub(simde_wasm_f64x2_promote_low_f32x4(xi), vtop);
        v128 b = simde_wasm_f64x2_sub(
            simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(xi, xi, 2, 3, 2, 3)), vtop);
        if (t != 1.0) {
            a = simde_wasm_f64x2_div(a, vt);
            b = simde_wasm_f64x2_div(b, vt);
        }
        simde_wasm_v128_store(z + i, a);
        simde_wasm_v128_store(z + i + 2, b);
        vs = simde_wasm_f64x2_add(vs, simde_wasm_f64x2_add(a, b));
        vlo = simde_wasm_f64x2_pmin(vlo, simde_wasm_f64x2_pmin(a, b));
    }
    masked = simde_wasm_v128_any_true(vm);
    s = simde_wasm_f64x2_extract_lane(vs, 0) + simde_wasm_f64x2_extract_lane(vs, 1);
    lo = simde_wasm_f64x2_extract_lane(vlo, 0);
    if (simde_wasm_f64x2_extract_lane(vlo, 1) < lo) lo = simde_wasm_f64x2_extract_lane(vlo, 1);
#endif
    for (; i < n; i++) {
        const double zi = ((double)x[i] - top) / t;
        masked |= x[i] == -INFINITY;
        s += zi;
        lo = zi < lo ? zi : lo;
        z[i] = zi;
    }
    *sum = s;
    *zmin = lo;
    return masked;
}

/* With scratch: z of the row's unmasked entries into sc, then either the runs recorded (TV_DONE:
   the generic sweep, when the prox may be the constant mean, and for every row in the mappings
   core) or TV_FAST (z ready for the dense sweep), or TV_MASKED. */
static void row_prepare(const tv_row *r, double lam, tv_scratch *sc) {
    int m = r->n;
    double sum, zmin;
    const double top = r->top, t = r->t;
    int masked = z_all(sc->z, r->x, m, top, t, &sum, &zmin); /* first as if none were masked */
    if (masked) { /* again, the unmasked entries alone */
        m = 0;
        sum = 0.0;
        zmin = 0.0;
        for (int i = 0; i < r->n; i++)
            if (r->x[i] != -INFINITY) {
                const double zi = ((double)r->x[i] - top) / t;
                sum += zi;
                zmin = zi < zmin ? zi : zmin;
                sc->idx[m] = i;
                sc->z[m++] = zi;
            }
    }
    sc->m = m;
    sc->dense = m == r->n;
    sc->kind = m == 0 ? TV_MASKED : TV_FAST;
    if (m == 0) return;
    const double mean = sum / m; /* max z = 0 */
    if (TV_SPEED && (-mean > 4.0 * lam || mean - zmin > 4.0 * lam)) return;
    /* Else the prox may be the constant mean: the generic sweep tests that first. (When some
       |z_i - mean| > 2 lam it is not: the partial sums of z - mean move by z_i - mean per step
       and must stay within +-lam. The margin 2x keeps rounding out of that call.) */
    tv_row d = { r->x, sc->z, m, r->top, r->t };
    tv_sink s = { TV_RECORD, NULL, -INFINITY, sc->val, sc->run, 0 };
    tv_sweep(&d, &s, 0, m - 1, m, lam);
    for (int j = 0; j < s.nruns; j++) sc->val[j] = sc->val[sc->run[j]]; /* one value per run */
    sc->nruns = s.nruns;
    sc->vtop = s.vtop;
    sc->kind = TV_DONE;
}

static void row_sweep(tv_scratch *sc, double lam) {
#if TV_SPEED
    tv_state st;
    tv_state_init(&st, sc->z, lam);
    tv_sweep_dense(&st, sc->z, sc->m, lam, sc->rinv, sc->run, sc->val);
    sc->nruns = st.nr;
    sc->vtop = st.vtop;
#else
    (void)sc, (void)lam; /* never called: row_prepare records every row's runs */
#endif
}

/* Without scratch: p = fusedmax of one row into out, two sweeps over x read on the fly. Returns 0
   for a fully masked row (out zeroed). */
static int fusedmax_row_noscratch(float *out, const tv_row *r, double lam) {
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

/* Averages the gradient over the runs the forward pass recorded in sc, or (no scratch) found by
   the generic sweep again; then the scale. */
static void average_runs(float *dx_r, const float *x_r, int n, double lam, double t, const tv_scratch *sc,
                         double scale) {
    if (sc->z) { /* the support's runs only: dx is 0 off the support, and a run is in or out whole */
        for (int q = 0; q < sc->nsup; q++) {
            const int j = sc->cand[q], from = sc->run[j], to = j + 1 < sc->nruns ? sc->run[j + 1] : sc->m;
            if (to - from == 1) continue;
            double sum = 0.0;
            if (sc->dense) {
                for (int k = from; k < to; k++) sum += dx_r[k];
                const float avg = (float)(sum / (to - from));
                for (int k = from; k < to; k++) dx_r[k] = avg;
            } else {
                for (int k = from; k < to; k++) sum += dx_r[sc->idx[k]];
                const float avg = (float)(sum / (to - from));
                for (int k = from; k < to; k++) dx_r[sc->idx[k]] = avg;
            }
        }
    } else {
        tv_row r = { x_r, NULL, n, (double)sx__row_max(x_r, n), t };
        int first = 0, last = -1, m = 0;
        while (x_r[first] == -INFINITY) first++;
        for (int i = first; i < n; i = tv_next(&r, i)) { last = i; m++; }
        tv_sink s = { TV_AVERAGE, dx_r, 0.0, NULL, NULL, 0 };
        tv_sweep(&r, &s, first, last, m, lam);
    }
    if (scale != 1.0) for (int i = 0; i < n; i++) dx_r[i] = (float)(dx_r[i] * scale);
}

/* ------------------------------------------------------------ whole maps */
/* A call: the forward writes p into out; the backward (dy != NULL) then turns each row of it into
   dx, in place. */
typedef struct {
    float *out;
    const float *x, *dy;
    int n;
    double lam, t;
    float s_in;   /* backward: 1/T inside the row's sparsemax backward (T >= 1), else 1 */
    double s_out; /* backward: 1/T after the run averages (T < 1), else 1 */
    float *tmp;   /* backward: (n) a huge dy row, scaled down */
} tv_job;

/* A row whose runs are in sc (or that is fully masked): p, then for the backward dx. */
static void row_done(const tv_job *jb, int row, tv_scratch *sc) {
    const size_t o = (size_t)row * jb->n;
    if (sc->kind == TV_MASKED) {
        memset(jb->out + o, 0, (size_t)jb->n * sizeof(float));
        return;
    }
    if (sc->kind == TV_FAST) row_sweep(sc, jb->lam);
    runs_sparsemax(jb->out + o, jb->n, sc);
    if (!jb->dy) return;
    float *dx_r = jb->out + o; /* p, then the gradient, in place */
    const double scale =
        jb->s_out * sx__sparsemax_backward_row_grouped(dx_r, dx_r, jb->dy + o, jb->n, jb->s_in, jb->tmp);
    average_runs(dx_r, jb->x + o, jb->n, jb->lam, jb->t, sc, scale);
}

static void prepare(const tv_job *jb, int row, tv_scratch *sc) {
    const float *x_r = jb->x + (size_t)row * jb->n;
    tv_row r = { x_r, NULL, jb->n, (double)sx__row_max(x_r, jb->n), jb->t };
    row_prepare(&r, jb->lam, sc);
}

#if SX_WIDE_PATHS
/* The next row that needs the dense sweep, prepared in sc (the rows before it that do not are done
   on the way), or -1 when none is left. */
static int lane_fill(const tv_job *jb, int rows, int *next, tv_scratch *sc) {
    while (*next < rows) {
        const int row = (*next)++;
        prepare(jb, row, sc);
        if (sc->kind == TV_FAST) return row;
        row_done(jb, row, sc);
    }
    return -1;
}
#endif

/* Every row of the map. With scratch, in the SIMD builds, the dense sweeps run two rows at a time,
   one per lane, until one of them ends; both finish in the scalar sweep. (Refilling a lane with
   the next row as soon as its row ended was no faster: the tails are short.) */
static void fusedmax_map(const tv_job *jb, int rows, tv_scratch *sc) {
    const int n = jb->n;
    if (!sc[0].z) {
        for (int row = 0; row < rows; row++) {
            const size_t o = (size_t)row * n;
            tv_row r = { jb->x + o, NULL, n, (double)sx__row_max(jb->x + o, n), jb->t };
            if (!fusedmax_row_noscratch(jb->out + o, &r, jb->lam) || !jb->dy) continue;
            float *dx_r = jb->out + o;
            const double scale = jb->s_out * sx__sparsemax_backward_row_grouped(dx_r, dx_r, jb->dy + o, n, jb->s_in,
                                                                                 jb->tmp);
            average_runs(dx_r, jb->x + o, n, jb->lam, jb->t, sc, scale);
        }
        return;
    }
    int next = 0;
#if SX_WIDE_PATHS
    for (;;) { /* two rows that need the dense sweep at a time */
        const int r0 = lane_fill(jb, rows, &next, &sc[0]);
        if (r0 < 0) break;
        const int r1 = lane_fill(jb, rows, &next, &sc[1]);
        if (r1 < 0) {
            row_done(jb, r0, &sc[0]);
            break;
        }
        tv_state st[2];
        tv_state_init(&st[0], sc[0].z, jb->lam);
        tv_state_init(&st[1], sc[1].z, jb->lam);
        tv_sweep_pair(st, sc, jb->lam); /* until a row reaches its last entry */
        for (int h = 0; h < 2; h++) {
            tv_sweep_dense(&st[h], sc[h].z, sc[h].m, jb->lam, sc[h].rinv, sc[h].run, sc[h].val);
            double vtop = -INFINITY; /* the pair does not track it */
            for (int j = 0; j < st[h].nr; j++) vtop = sc[h].val[j] > vtop ? sc[h].val[j] : vtop;
            sc[h].nruns = st[h].nr, sc[h].vtop = vtop, sc[h].kind = TV_DONE;
        }
        row_done(jb, r0, &sc[0]);
        row_done(jb, r1, &sc[1]);
    }
#endif
    for (; next < rows; next++) {
        prepare(jb, next, &sc[0]);
        row_done(jb, next, &sc[0]);
    }
}

static int check_lambda(float lambda) {
    if (lambda != lambda || lambda == INFINITY)
        return sx__fail(SX_EINVAL, -1, "lambda must be finite (got %g)", (double)lambda);
    if (lambda < 0.0f) return sx__fail(SX_EINVAL, -1, "lambda must be >= 0 (got %g)", (double)lambda);
    return SX_OK;
}

/* ------------------------------------------------------------ public */
/* prox_TV(x / T; lambda) of each row, the fusedmax forward's first step on its own (for pictures
   and tests): the generic sweep over x read on the fly, on z = x / T itself (in double, not
   shifted by the top as fusedmax's z: shifted, an entry of 1 beside one of 3e38 came out 0; the
   runs are fusedmax's but for jumps within rounding of 0, tests/js/prox-tv.test.mjs), each run's
   value rounded to float once (equal floats within a run). runs (NULL: not wanted) gets each
   entry's run, counted from 0 in each row; masked entries get -Infinity and run -1. */
int sx_prox_tv(float *out, int *runs, const float *x, int rows, int n, float lambda, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_lambda(lambda);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    for (int row = 0; row < rows; row++) {
        const size_t o = (size_t)row * n;
        const float *x_r = x + o;
        tv_row r = { x_r, NULL, n, 0.0, (double)temperature };
        int first = -1, last = -1, m = 0;
        if (runs) memset(runs + o, 0xff, (size_t)n * sizeof(int)); /* -1 */
        for (int i = 0; i < n; i++) {
            if (x_r[i] == -INFINITY) out[o + i] = -INFINITY; /* the sweep writes the others */
            else {
                if (first < 0) first = i;
                last = i;
                m++;
            }
        }
        if (m == 0) continue;
        tv_sink s = { TV_PROX, out + o, 0.0, NULL, runs ? runs + o : NULL, 0 };
        tv_sweep(&r, &s, first, last, m, (double)lambda);
    }
    return SX_OK;
}

int sx_fusedmax(float *out, const float *x, int rows, int n, float lambda, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_lambda(lambda);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    if (lambda == 0.0f) return sx_sparsemax(out, x, rows, n, temperature);
    if (rows == 0) return SX_OK;
    tv_scratch sc[TV_ROWS];
    double stack[TV_SCRATCH_BYTES(TV_STACK_N) / sizeof(double)];
    void *heap = scratch_alloc(sc, n, (unsigned char *)stack);
    tv_job jb = { out, x, NULL, n, (double)lambda, (double)temperature, 1.0f, 1.0, NULL };
    fusedmax_map(&jb, rows, sc);
    free(heap);
    return SX_OK;
}

int sx_fusedmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float lambda,
                         float temperature) {
    int st = sx__check_grad_dims(dx, x, dy, rows, n);
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
    float *tmp = (float *)malloc((size_t)n * sizeof(float)); /* a huge dy row, scaled down */
    if (!tmp) return sx__fail(SX_ENOMEM, -1, "sx_fusedmax_backward: cannot allocate %d floats", n);
    tv_scratch sc[TV_ROWS];
    double stack[TV_SCRATCH_BYTES(TV_STACK_N) / sizeof(double)];
    void *heap = scratch_alloc(sc, n, (unsigned char *)stack);
    /* (n) p of each row in dx, then its gradient, in place */
    tv_job jb = { dx, x, dy, n, (double)lambda, (double)temperature, inv_t < 1.0 ? (float)inv_t : 1.0f,
                  inv_t < 1.0 ? 1.0 : inv_t, tmp };
    fusedmax_map(&jb, rows, sc);
    free(heap);
    free(tmp);
    return SX_OK;
}
