/* sparsemax.c - sparsemax: Euclidean projection onto the simplex, p = [z - tau]_+.

   tau by Michelot's pivot method: start from the lower bound tau = max z - 1 and iterate
   tau <- (sum_{z > tau} z - 1) / |{z > tau}| until the support stops shrinking. Every iterate
   is a lower bound of the answer (tau* = max over subsets A of (sum_A z - 1)/|A|), the supports
   are nested, and each pass is one SIMD sweep over the row (over a list of the candidates
   d > -1 for rows of 384 entries or more). For n = 3 the same identity gives a closed form,
   computed four rows at a time. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

/* --------------------------------------------------------------- row max */
float sx__row_max(const float *x, int n) {
    v128 m0 = vsplat(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = vmax(m0, vload(x + i));
        m1 = vmax(m1, vload(x + i + 4));
        m2 = vmax(m2, vload(x + i + 8));
        m3 = vmax(m3, vload(x + i + 12));
    }
    for (; i + 4 <= n; i += 4) m0 = vmax(m0, vload(x + i));
    if (i < n) m1 = vmax(m1, sx_load_tail(x + i, n - i, -INFINITY));
    return sx_hmax(vmax(vmax(m0, m1), vmax(m2, m3)));
}

/* ----------------------------------------------------------- pivot search */
/* tau, relative to the shifted scores d = (x - m) * s (max d = 0), of the sparsemax of d.
   Each pass sums w = d - tau over the support {w > 0} and moves tau by (sum w - 1) / |support|:
   Michelot's update written as a correction, so that the last pass (support unchanged) refines
   tau from sums of O(1) terms. tau is carried in double and applied as two floats (hi + lo) so
   its rounding does not shift every support entry the same way (the sum of p stays at 1). */
static __attribute__((noinline)) double michelot_tau(const float *x, int n, float m, float s) {
    const v128 vm = vsplat(m), vs = vsplat(s), zero = vsplat(0.0f);
    double tau = -1.0;
    int k_prev = n + 1;
    for (int iter = 0; iter <= n + 1; iter++) {
        const float hi = (float)tau, lo = (float)(tau - (double)hi);
        const v128 vh = vsplat(hi), vl = vsplat(lo);
        v128 s0 = zero, s1 = zero, s2 = zero, s3 = zero;
        v128 c0 = simde_wasm_i32x4_splat(0), c1 = c0;
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            v128 w0 = vsub(vsub(vmul(vsub(vload(x + i), vm), vs), vh), vl);
            v128 w1 = vsub(vsub(vmul(vsub(vload(x + i + 4), vm), vs), vh), vl);
            v128 w2 = vsub(vsub(vmul(vsub(vload(x + i + 8), vm), vs), vh), vl);
            v128 w3 = vsub(vsub(vmul(vsub(vload(x + i + 12), vm), vs), vh), vl);
            v128 k0 = vgt(w0, zero), k1 = vgt(w1, zero), k2 = vgt(w2, zero), k3 = vgt(w3, zero);
            s0 = vadd(s0, vand(w0, k0));
            s1 = vadd(s1, vand(w1, k1));
            s2 = vadd(s2, vand(w2, k2));
            s3 = vadd(s3, vand(w3, k3));
            c0 = simde_wasm_i32x4_sub(c0, simde_wasm_i32x4_add(k0, k1));
            c1 = simde_wasm_i32x4_sub(c1, simde_wasm_i32x4_add(k2, k3));
        }
        for (; i < n; i += 4) {
            v128 xv = i + 4 <= n ? vload(x + i) : sx_load_tail(x + i, n - i, -INFINITY);
            v128 w = vsub(vsub(vmul(vsub(xv, vm), vs), vh), vl);
            v128 k = vgt(w, zero);
            s0 = vadd(s0, vand(w, k));
            c0 = simde_wasm_i32x4_sub(c0, k);
        }
        const int cnt = sx_hsum_i32(simde_wasm_i32x4_add(c0, c1));
        const double sum = sx_hsum(vadd(vadd(s0, s1), vadd(s2, s3)));
        if (cnt < 1 || cnt > k_prev) break; /* only by rounding: keep tau */
        const double next = tau + (sum - 1.0) / cnt;
        const int done = cnt == k_prev;
        k_prev = cnt;
        if (!(next >= tau - 1e-7) && !done) break;
        tau = next;
        if (done) break; /* support unchanged: that was the refinement */
    }
    return tau;
}

/* ---------------------------------------------------- candidate lists (internal.h) */
int sx__gather_above(float *c, int cap, const float *x, int n, float m, float s, float lo) {
    const v128 vm = vsplat(m), vs = vsplat(s), vlo = vsplat(lo);
    int k = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        const v128 d = vmul(vsub(vload(x + i), vm), vs);
        const int bits = simde_wasm_i32x4_bitmask(vgt(d, vlo));
        if (!bits) continue;
        if (k + 4 > cap) return -1;
        /* branch-free compaction: every lane is written, the count moves by its bit */
        float t[4];
        vstore(t, d);
        c[k] = t[0];
        k += bits & 1;
        c[k] = t[1];
        k += bits >> 1 & 1;
        c[k] = t[2];
        k += bits >> 2 & 1;
        c[k] = t[3];
        k += bits >> 3 & 1;
    }
    for (; i < n; i++) {
        const float d = (x[i] - m) * s;
        if (d > lo) {
            if (k == cap) return -1;
            c[k++] = d;
        }
    }
    return k;
}

/* Long rows whose support candidates fit a small list: every iterate of Michelot's method is at
   least -1 (the singleton of the max), so only entries with d = (x - m) * s > -1 can ever be in
   the support; one SIMD pass gathers them (for normal scores, ~13 of 512, ~25 of 4096) and the
   sweeps run on that list instead of on the row 4-5 times (n = 512: 1.15x faster, n = 4096: 2x,
   native and wasm). The list costs ~80 ns a row (the gather's scalar stores feed vector loads),
   which shorter rows do not win back: below SX_GATHER_MIN_N entries, and for a row with more
   candidates than the list holds, the sweeps run on the row. Returns tau (as michelot_tau), or
   NAN when the list overflowed. */
static double michelot_tau_list(const float *x, int n, float m, float s) {
    float c[SX_GATHER_CAP];
    const int k = sx__gather_above(c, SX_GATHER_CAP, x, n, m, s, -1.0f);
    if (k < 0) return NAN;
    /* Michelot's sweeps on the list: its entries are d already (m = 0, s = 1 leave them exact) */
    return k ? michelot_tau(c, k, 0.0f, 1.0f) : -1.0;
}

/* tau of the row: from the candidate list when it fits, else by sweeps. */
static double sparsemax_tau(const float *x, int n, float m, float s) {
#ifdef SX_MAPPINGS_CORE
    return michelot_tau(x, n, m, s); /* compiled for size (simd.h, SX_WIDE_PATHS) */
#endif
    if (n < SX_GATHER_MIN_N) return michelot_tau(x, n, m, s);
    const double tau = michelot_tau_list(x, n, m, s);
    return tau == tau ? tau : michelot_tau(x, n, m, s);
}

/* p = [(x - m) * s - tau]_+ */
static void sparsemax_apply(float *p, const float *x, int n, float m, float s, double tau) {
    const float hi = (float)tau, lo = (float)(tau - (double)hi);
    const v128 vm = vsplat(m), vs = vsplat(s), vh = vsplat(hi), vl = vsplat(lo), zero = vsplat(0.0f);
#define SX_P(v) vmax(vsub(vsub(vmul(vsub((v), vm), vs), vh), vl), zero)
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        vstore(p + i, SX_P(vload(x + i)));
        vstore(p + i + 4, SX_P(vload(x + i + 4)));
        vstore(p + i + 8, SX_P(vload(x + i + 8)));
        vstore(p + i + 12, SX_P(vload(x + i + 12)));
    }
    for (; i + 4 <= n; i += 4) vstore(p + i, SX_P(vload(x + i)));
    if (i < n) sx_store_tail(p + i, SX_P(sx_load_tail(x + i, n - i, -INFINITY)), n - i);
#undef SX_P
}

float sx__sparsemax_row(float *p, const float *z, int n) {
    float m = sx__row_max(z, n);
    double tau = sparsemax_tau(z, n, m, 1.0f);
    sparsemax_apply(p, z, n, m, 1.0f, tau);
    return (float)((double)m + tau);
}

/* ------------------------------------------------------- n = 3, 4 rows at once */
/* tau* = max over subsets A of (sum_A z - 1) / |A|; with max z = 0 the singletons give -1.
   -Infinity entries make their subsets' sums -Infinity, so masks need no special case. */
SX_INLINE void sparsemax3(v128 *a, v128 *b, v128 *c, v128 vs) {
    const v128 ninf = vsplat(-INFINITY), one = vsplat(1.0f), zero = vsplat(0.0f);
    v128 m = vmax(*a, vmax(*b, *c));
    v128 dead = veq(m, ninf); /* all-masked rows: zeros */
    v128 za = vmul(vsub(*a, m), vs), zb = vmul(vsub(*b, m), vs), zc = vmul(vsub(*c, m), vs);
    v128 pair = vmax(vadd(za, zb), vmax(vadd(za, zc), vadd(zb, zc)));
    v128 tau = vmax(vsub(zero, one), vmul(vsub(pair, one), vsplat(0.5f)));
    tau = vmax(tau, vdiv(vsub(vadd(vadd(za, zb), zc), one), vsplat(3.0f)));
    *a = vandnot(vmax(vsub(za, tau), zero), dead);
    *b = vandnot(vmax(vsub(zb, tau), zero), dead);
    *c = vandnot(vmax(vsub(zc, tau), zero), dead);
}

static void sparsemax_rows3(float *out, const float *x, int rows, float s) {
    const v128 vs = vsplat(s);
    SX_ROWS3(out, x, rows, sparsemax3(&a, &b, &c, vs));
}

/* ------------------------------------------------------------------ forward */
static void sparsemax_row_scaled(float *p, const float *x, int n, float s) {
    float m = sx__row_max(x, n);
    if (m == -INFINITY) {
        memset(p, 0, (size_t)n * sizeof(float));
        return;
    }
    sparsemax_apply(p, x, n, m, s, sparsemax_tau(x, n, m, s));
}

int sx_sparsemax(float *out, const float *x, int rows, int n, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    float s = sx_inv_temperature(temperature);
    if (n == 3) {
        sparsemax_rows3(out, x, rows, s);
        return SX_OK;
    }
    for (int r = 0; r < rows; r++) sparsemax_row_scaled(out + (size_t)r * n, x + (size_t)r * n, n, s);
    return SX_OK;
}

/* ----------------------------------------------------------------- backward */
/* dz_i = s * (g_i - mean_S g) on S = {p > 0}, 0 elsewhere. dz may equal p. A finite result never
   passes through infinity: the sum falls back to double when it overflows in float (huge dy),
   and for s <= 1 (T >= 1) the scale goes on before the subtraction, g s - mean s. */
static void sparsemax_backward_row(float *dz, const float *p, const float *g, int n, float s) {
    const v128 zero = vsplat(0.0f);
    v128 a0 = zero, a1 = zero, c0 = simde_wasm_i32x4_splat(0);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v128 k0 = vgt(vload(p + i), zero), k1 = vgt(vload(p + i + 4), zero);
        a0 = vadd(a0, vand(vload(g + i), k0));
        a1 = vadd(a1, vand(vload(g + i + 4), k1));
        c0 = simde_wasm_i32x4_sub(c0, simde_wasm_i32x4_add(k0, k1));
    }
    float sum = sx_hsum(vadd(a0, a1));
    int cnt = sx_hsum_i32(c0);
    for (; i < n; i++)
        if (p[i] > 0.0f) { sum += g[i]; cnt++; }
    float mean = cnt ? sum / (float)cnt : 0.0f;
    if (!isfinite(sum)) { /* |mean| <= max |g| fits; the float sum did not */
        double d = 0.0;
        for (i = 0; i < n; i++)
            if (p[i] > 0.0f) d += g[i];
        mean = (float)(d / cnt);
    }
    const v128 vmean = vsplat(mean), vs = vsplat(s);
    if (s <= 1.0f) {
        const v128 vms = vmul(vmean, vs);
        for (i = 0; i + 4 <= n; i += 4) {
            v128 k = vgt(vload(p + i), zero);
            vstore(dz + i, vand(vsub(vmul(vload(g + i), vs), vms), k));
        }
        for (; i < n; i++) dz[i] = p[i] > 0.0f ? g[i] * s - mean * s : 0.0f;
        return;
    }
    for (i = 0; i + 4 <= n; i += 4) {
        v128 k = vgt(vload(p + i), zero);
        vstore(dz + i, vand(vmul(vsub(vload(g + i), vmean), vs), k));
    }
    for (; i < n; i++) dz[i] = p[i] > 0.0f ? (g[i] - mean) * s : 0.0f;
}

void sx__sparsemax_backward_row(float *dz, const float *p, const float *g, int n, float s) {
    sparsemax_backward_row(dz, p, g, n, s);
}

double sx__sparsemax_backward_row_grouped(float *dz, const float *p, const float *g, int n, float s, float *tmp) {
    const float big = 0x1p100f;
    int huge = 0;
    for (int i = 0; i < n && !huge; i++) huge = fabsf(g[i]) >= big;
    if (!huge) {
        sparsemax_backward_row(dz, p, g, n, s);
        return 1.0;
    }
    for (int i = 0; i < n; i++) tmp[i] = g[i] * 0x1p-100f;
    sparsemax_backward_row(dz, p, tmp, n, s);
    return 0x1p100;
}

int sx_sparsemax_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = sx__check_grad_dims(dx, x, dy, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = SX_CHECK_SCORES(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    float s = sx_inv_temperature(temperature);
    for (int r = 0; r < rows; r++) {
        float *d = dx + (size_t)r * n;
        sparsemax_row_scaled(d, x + (size_t)r * n, n, s); /* p, in dx */
        sparsemax_backward_row(d, d, dy + (size_t)r * n, n, s);
    }
    return SX_OK;
}
