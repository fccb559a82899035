/* entmax.c - alpha-entmax: p = [(alpha - 1) z - tau]_+^(1 / (alpha - 1)), z = x / T.

   1.5-entmax, exact: with z = (x - max x) / (2T), p = [z - tau]_+^2 and f(tau) = sum [z - tau]_+^2 - 1
   is convex and decreasing, so Newton from the lower bound tau = -1 never overshoots and its
   supports shrink towards the true one. Every SIMD pass also gives the closed form on its support
   (tau = mean - sqrt((1 - ss) / k)); once that tau lies below the smallest support entry it is
   the exact answer. For n = 3 the sort-based formula on a 3-element sorting network, four rows
   at a time.

   Any other alpha: alpha = 1 is softmax, alpha = 2 sparsemax (exact algorithms). For 1 < alpha < 2,
   rows of n >= 16 whose candidates all lie in the support (flat rows) take the dense path first
   (dense_row: tau from the moments, one float power pass checked by an exact Newton step); else
   Newton on the q-norm ||[X - tau]_+||_q = 1 (q = 1 / (alpha - 1), X = (alpha - 1) z) over the
   candidates X > -1 and then X > each iterate: a float search first (u^(q - 1) by float log and
   exp, no division; its first step alone for rows of few candidates), started from an estimate
   of tau taken in the candidates' pass (a Jensen lower bound, and a second-order estimate that
   lands within ~1e-5 on near-uniform rows) and stopped once its predicted error lets one
   double pass finish; then Newton in double from just left of its answer (the float search
   only places the start: the double pass checks it). The double pass takes u^(q - 1) in double,
   except in float for the entries whose p is below ~0.33 / (q + 3) (errors below 2e-8 of
   each, see erow.uthr); the powers are taken over the candidates alone, those after the last
   (tiny) step from the last pass's by a short binomial series. Rows are solved four at a time,
   one pass of each in turn; rows of n = 3 (1.125 <= alpha < 2) by a kernel four rows wide
   (entmax3), and groups of three or four rows of 4 <= n <= 32 the same way (entmax_short4). For alpha > 2, a safeguarded Newton / bisection on tau in double over
   [max X - 1, max X - (1/n)^(alpha-1)]. Then renormalised.

   Backward: s = p^(2 - alpha) on the support, dx = (s g - (sum s g / sum s) s) / T.
   Gradient wrt alpha: Correia et al. (2019), computed in double with expm1 so that its 0/0 as
   alpha -> 1 cancels cleanly; at alpha = 1 exactly, its limit sum g p (E[L^2] - L^2) / 2, L = log p. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

/* Pass counts of the general-alpha solver (1 < alpha < 2, rows of n > 32), for the benchmarks
   only: built with -DSX_COUNT_PASSES (bench/entmax_passes.c), the shipped builds have none of it.
   [0] rows, [1] float passes, [2] entries in them, [3] double passes, [4] entries in them,
   [5] dense power passes (dense_row), [6] entries in them. */
#ifdef SX_COUNT_PASSES
long long sx__entmax_passes[7];
#define SX_COUNT(i, k) (sx__entmax_passes[1 + 2 * (i)]++, sx__entmax_passes[2 + 2 * (i)] += (k))
#define SX_COUNT_ROW() (sx__entmax_passes[0]++)
#else
#define SX_COUNT(i, k) ((void)0)
#define SX_COUNT_ROW() ((void)0)
#endif

/* ============================================================== 1.5-entmax */

/* tau of 1.5-entmax of z = (x - m) * s (max z = 0). The passes run at float tau; the closed form
   is added in double, and the result is applied as two floats (see sparsemax_apply). */
static double entmax15_tau(const float *x, int n, float m, float s) {
    const v128 vm = vsplat(m), vs = vsplat(s), zero = vsplat(0.0f), inf = vsplat(INFINITY);
    float tau = -1.0f;
    for (int iter = 0; iter < 200; iter++) {
        const v128 vt = vsplat(tau);
        v128 a0 = zero, a1 = zero, b0 = zero, b1 = zero, mn0 = inf, mn1 = inf;
        v128 cnt = simde_wasm_i32x4_splat(0);
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            v128 w0 = vsub(vmul(vsub(vload(x + i), vm), vs), vt);
            v128 w1 = vsub(vmul(vsub(vload(x + i + 4), vm), vs), vt);
            v128 w2 = vsub(vmul(vsub(vload(x + i + 8), vm), vs), vt);
            v128 w3 = vsub(vmul(vsub(vload(x + i + 12), vm), vs), vt);
            v128 k0 = vgt(w0, zero), k1 = vgt(w1, zero), k2 = vgt(w2, zero), k3 = vgt(w3, zero);
            mn0 = vmin(mn0, vmin(vsel(k0, w0, inf), vsel(k1, w1, inf)));
            mn1 = vmin(mn1, vmin(vsel(k2, w2, inf), vsel(k3, w3, inf)));
            w0 = vand(w0, k0);
            w1 = vand(w1, k1);
            w2 = vand(w2, k2);
            w3 = vand(w3, k3);
            a0 = vadd(a0, vadd(w0, w1));
            a1 = vadd(a1, vadd(w2, w3));
            b0 = vadd(b0, vadd(vmul(w0, w0), vmul(w1, w1)));
            b1 = vadd(b1, vadd(vmul(w2, w2), vmul(w3, w3)));
            cnt = simde_wasm_i32x4_sub(cnt, simde_wasm_i32x4_add(simde_wasm_i32x4_add(k0, k1),
                                                                simde_wasm_i32x4_add(k2, k3)));
        }
        for (; i < n; i += 4) {
            v128 xv = i + 4 <= n ? vload(x + i) : sx_load_tail(x + i, n - i, -INFINITY);
            v128 w = vsub(vmul(vsub(xv, vm), vs), vt);
            v128 k = vgt(w, zero);
            mn0 = vmin(mn0, vsel(k, w, inf));
            w = vand(w, k);
            a0 = vadd(a0, w);
            b0 = vadd(b0, vmul(w, w));
            cnt = simde_wasm_i32x4_sub(cnt, k);
        }
        const int k = sx_hsum_i32(cnt);
        const double s1 = sx_hsum(vadd(a0, a1)), s2 = sx_hsum(vadd(b0, b1));
        const double mn = sx_hmin(vmin(mn0, mn1));
        if (k < 1) break; /* cannot happen (tau < 0 = max z) unless rounding: keep tau */
        /* closed form on this support, relative to tau */
        double mean = s1 / k, ss = s2 - s1 * mean;
        if (ss < 0.0) ss = 0.0;
        double delta = (1.0 - ss) / k;
        if (delta >= 0.0) {
            double tc = mean - sqrt(delta);
            if (tc <= mn) {
                /* exact on this support; but from a pass far from the answer the sums are large
                   and ss = s2 - s1^2/k cancels: redo one pass just left of it, where w = sqrt(p) */
                if (tc <= 1e-3) return (double)tau + tc;
                float next = (float)((double)tau + tc * (1.0 - 1e-4));
                if (next > tau) { tau = next; continue; }
                return (double)tau + tc;
            }
        }
        /* Newton: f = s2 - 1, f' = -2 s1 */
        double f = s2 - 1.0;
        if (!(f > 0.0)) break;
        float next = (float)((double)tau + f / (2.0 * s1));
        if (!(next > tau)) break;
        tau = next;
    }
    return tau;
}

/* out = [(x - m) * s - tau]_+, squared when `square` (p), else as is (s = sqrt p, the backward's weights). */
static void entmax15_apply(float *out, const float *x, int n, float m, float s, double tau, int square) {
    const float hi = (float)tau, lo = (float)(tau - (double)hi);
    const v128 vm = vsplat(m), vs = vsplat(s), vh = vsplat(hi), vl = vsplat(lo), zero = vsplat(0.0f);
    int i = 0;
    if (square) {
        for (; i + 16 <= n; i += 16) {
            v128 w0 = vmax(vsub(vsub(vmul(vsub(vload(x + i), vm), vs), vh), vl), zero);
            v128 w1 = vmax(vsub(vsub(vmul(vsub(vload(x + i + 4), vm), vs), vh), vl), zero);
            v128 w2 = vmax(vsub(vsub(vmul(vsub(vload(x + i + 8), vm), vs), vh), vl), zero);
            v128 w3 = vmax(vsub(vsub(vmul(vsub(vload(x + i + 12), vm), vs), vh), vl), zero);
            vstore(out + i, vmul(w0, w0));
            vstore(out + i + 4, vmul(w1, w1));
            vstore(out + i + 8, vmul(w2, w2));
            vstore(out + i + 12, vmul(w3, w3));
        }
    }
    for (; i < n; i += 4) {
        v128 xv = i + 4 <= n ? vload(x + i) : sx_load_tail(x + i, n - i, -INFINITY);
        v128 w = vmax(vsub(vsub(vmul(vsub(xv, vm), vs), vh), vl), zero);
        if (square) w = vmul(w, w);
        if (i + 4 <= n) vstore(out + i, w);
        else sx_store_tail(out + i, w, n - i);
    }
}

/* 1.5-entmax of one row; s = 1 / (2T). Writes sqrt(p) instead of p when !square. */
static void entmax15_row(float *out, const float *x, int n, float s, int square) {
    const float m = sx__row_max(x, n);
    if (m == -INFINITY) {
        memset(out, 0, (size_t)n * sizeof(float));
        return;
    }
    entmax15_apply(out, x, n, m, s, entmax15_tau(x, n, m, s), square);
}

/* ------------------------------------------------------- n = 3, 4 rows at once */
/* Sorted z (s1 >= s2 >= s3, s1 = 0): tau_r = mean_r - sqrt(max((1 - ss_r) / r, 0)) for each prefix,
   support k = #{r : tau_r <= s_r}, tau = tau_k. Masked (-Infinity) scores are clamped with the rest. */
SX_INLINE void entmax15_3(v128 *a, v128 *b, v128 *c, v128 vs) {
    const v128 ninf = vsplat(-INFINITY), zero = vsplat(0.0f), one = vsplat(1.0f);
    v128 m = vmax(*a, vmax(*b, *c));
    v128 dead = veq(m, ninf);
    /* tau >= -1, so scores below -1 are never in the support: clamping them at -4 changes no
       output and keeps the prefix sums finite however small T is (1/T capped at FLT_MAX). */
    const v128 floor = vsplat(-4.0f);
    v128 za = vmax(vmul(vsub(*a, m), vs), floor), zb = vmax(vmul(vsub(*b, m), vs), floor),
         zc = vmax(vmul(vsub(*c, m), vs), floor);
    v128 hi = vmax(za, zb), lo = vmin(za, zb);
    v128 s1 = vmax(hi, zc), u = vmin(hi, zc);
    v128 s2 = vmax(lo, u), s3 = vmin(lo, u);
    /* r = 2 */
    v128 mean2 = vmul(vadd(s1, s2), vsplat(0.5f));
    v128 d12 = vsub(s1, s2);
    v128 delta2 = vmul(vsub(one, vmul(vmul(d12, d12), vsplat(0.5f))), vsplat(0.5f));
    v128 tau2 = vsub(mean2, vsqrt(vmax(delta2, zero)));
    v128 ok2 = vand(vge(s2, tau2), vgt(s2, ninf));
    /* r = 3 */
    v128 mean3 = vdiv(vadd(vadd(s1, s2), s3), vsplat(3.0f));
    v128 e1 = vsub(s1, mean3), e2 = vsub(s2, mean3), e3 = vsub(s3, mean3);
    v128 ss3 = vadd(vadd(vmul(e1, e1), vmul(e2, e2)), vmul(e3, e3));
    v128 delta3 = vdiv(vsub(one, ss3), vsplat(3.0f));
    v128 tau3 = vsub(mean3, vsqrt(vmax(delta3, zero)));
    v128 ok3 = vand(vge(s3, tau3), vgt(s3, ninf));
    v128 tau = vsel(vand(ok2, ok3), tau3, vsel(vor(ok2, ok3), tau2, vsub(zero, one)));
    v128 pa = vmax(vsub(za, tau), zero), pb = vmax(vsub(zb, tau), zero), pc = vmax(vsub(zc, tau), zero);
    *a = vandnot(vmul(pa, pa), dead);
    *b = vandnot(vmul(pb, pb), dead);
    *c = vandnot(vmul(pc, pc), dead);
}

static void entmax15_rows3(float *out, const float *x, int rows, float s) {
    const v128 vs = vsplat(s);
    SX_ROWS3(out, x, rows, entmax15_3(&a, &b, &c, vs));
}

/* ------------------------------------------------------- argument checks */
static int check_map(const float *out, const float *x, int rows, int n, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    return st;
}

static int check_alpha(float alpha) {
    if (!(alpha >= 1.0f)) return sx__fail(SX_EINVAL, -1, "alpha must be >= 1 (got %g)", (double)alpha);
    if (alpha == INFINITY) return sx__fail(SX_EINVAL, -1, "alpha must be finite (got %g)", (double)alpha);
    return SX_OK;
}

static int check_backward(const float *dx, const char *dx_name, const float *x, const float *dy, int rows, int n,
                          float temperature) {
    int st = sx__check_dims_as(dx, dx_name, x, "x", rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st && rows > 0 && !dy) st = sx__null("dy");
    return st;
}

static int check_scores2(const float *x, const float *dy, int rows, int n) {
    int st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = SX_CHECK_SCORES(dy, (size_t)rows * (size_t)n, "dy", 0);
    return st;
}

int sx_entmax15(float *out, const float *x, int rows, int n, float temperature) {
    int st = check_map(out, x, rows, n, temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    const float s = 0.5f * sx_inv_temperature(temperature);
    if (n == 3) {
        entmax15_rows3(out, x, rows, s);
        return SX_OK;
    }
    for (int r = 0; r < rows; r++) entmax15_row(out + (size_t)r * n, x + (size_t)r * n, n, s, 1);
    return SX_OK;
}

/* One row's dx = s (g - mean) / T in double, s = sqrt(p) in d (overwritten, sum s > 0): for dy
   so large that the float sum s g or a difference g - mean overflows. g is taken relative to
   one support entry's (exact in double), so equal g on the support give exactly 0; entries with
   s = 0 (masked, or out of the support) get exactly 0; a result too large for float (huge dy
   over small T) is +-Infinity, never NaN. */
static void entmax15_backward_row_double(float *d, const float *g, int n, double invt) {
    int ref = 0;
    while (!(d[ref] > 0.0f)) ref++;
    const double g0 = g[ref];
    double ssum = 0.0, sg = 0.0;
    for (int i = 0; i < n; i++) {
        ssum += d[i];
        sg += (double)d[i] * ((double)g[i] - g0);
    }
    const double mean = sg / ssum; /* relative to g0 */
    for (int i = 0; i < n; i++)
        if (d[i] > 0.0f) d[i] = (float)((double)d[i] * (((double)g[i] - g0) - mean) * invt);
}

/* dx = (s g - (sum s g / sum s) s) / T with s = sqrt(p) = [z - tau]_+, in float; a row whose
   float sum s g overflows or whose |dy| exceeds 2^126 (g - mean could overflow) goes to
   entmax15_backward_row_double instead, where the float path would give a mean of +-Infinity
   and then 0 * Infinity = NaN at the masked entries. */
int sx_entmax15_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = check_backward(dx, "dx", x, dy, rows, n, temperature);
    if (!st) st = check_scores2(x, dy, rows, n);
    if (st) return st;
    const float invt = sx_inv_temperature(temperature);
    const v128 sign = vsplat(-0.0f);
    for (int r = 0; r < rows; r++) {
        float *d = dx + (size_t)r * n;
        const float *g = dy + (size_t)r * n;
        entmax15_row(d, x + (size_t)r * n, n, 0.5f * invt, 0); /* s, in dx */
        v128 a0 = vsplat(0.0f), a1 = a0, gm = a0;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            v128 sv = vload(d + i), gv = vload(g + i);
            a0 = vadd(a0, sv);
            a1 = vadd(a1, vmul(sv, gv));
            gm = vmax(gm, vandnot(gv, sign)); /* |g| */
        }
        float ssum = sx_hsum(a0), sg = sx_hsum(a1), gmax = sx_hmax(gm);
        for (; i < n; i++) {
            ssum += d[i];
            sg += d[i] * g[i];
            gmax = fmaxf(gmax, fabsf(g[i]));
        }
        if (!(ssum > 0.0f)) continue; /* all masked: zeros already */
        if (!(fabsf(sg) <= FLT_MAX) || gmax > 0x1p126f) {
            entmax15_backward_row_double(d, g, n, (double)invt);
            continue;
        }
        const float mean = sg / ssum;
        const v128 vmean = vsplat(mean), vs = vsplat(invt);
        for (i = 0; i + 4 <= n; i += 4) vstore(d + i, vmul(vmul(vload(d + i), vsub(vload(g + i), vmean)), vs));
        for (; i < n; i++) d[i] = d[i] * (g[i] - mean) * invt;
    }
    return SX_OK;
}

/* ====================================================== alpha-entmax, any alpha */

/* One row in double: X_i = (alpha - 1) (x_i - m) / T, p_i = [X_i - tau]_+^q, q = 1 / (alpha - 1). */
typedef struct {
    const float *x;
    int n;
    double m, t, am1, q, c; /* c = (alpha - 1) / T */
    /* qnorm_sums takes u^(q - 1) in float (4 lanes, ~(q + 3) 6e-8 relative error) for the entries
       with u <= uthr, i.e. p ~ u^q <= thr = 0.33 / (q + 3) (sum p ~ 1 there): an error below 2e-8
       of each such p, and their sum's error moves tau by so little that the other p change
       by a relative ~1e-7 times the mass in float at worst (random signs: far less). 0: all
       in double (set by entmax_qnorm_rows; q <= 64 only). */
    double uthr;
} erow;

static double erow_X(const erow *e, int i) { return ((double)e->x[i] - e->m) * e->c; }

/* ---- u^q in double, two lanes at a time, for 0 < u <= 1 and q > 0 (libm pow dominated the
   time, and musl's pow in wasm is much slower than glibc's): exp(q log u) with simd.h's double
   log and exp kernels (sx_dlog, |error| < 2^-58; sx_dexp_split, degree-12 Taylor on
   |r| <= ln(2)/2, truncation 2e-16). Relative error a few ulp of q log u. Lanes with u <= 0
   give 0, and so do results below 2^-1022. */
SX_INLINE v128d pow_unit(v128d u, v128d q) {
    const v128d zero = dsplat(0.0);
    v128d live = simde_wasm_f64x2_gt(u, zero);
    v128d lg = sx_dlog(simde_wasm_f64x2_pmax(u, dsplat(0x1p-1022)));
    /* exp(y), y = q log u <= 0 */
    v128d y = simde_wasm_f64x2_pmin(dmul(q, lg), zero), scale; /* scale = 2^n, n >= -1022 */
    v128d ok = vand(live, simde_wasm_f64x2_ge(y, dsplat(-708.0)));
    /* clamped: a y far below -708 (u <= 0 lanes) would build a garbage scale, and subnormal
       operands cost a microcode assist each on x86, in wasm too */
    v128d p = dadd(sx_dexp_split(simde_wasm_f64x2_pmax(y, dsplat(-708.0)), &scale), dsplat(1.0));
    return vand(dmul(p, scale), ok);
}

/* f(tau) = sum p - 1 and f'(tau) over the candidates X[0..k): libm pow, for few candidates
   (too few to pay for pow_unit's constants) and in the scalar wasm build (emulated lanes). */
SX_COLD_FN static void erow_eval_libm(const double *X, int k, double q, double tau, double *f, double *df) {
    double s = 0.0, d = 0.0;
    for (int i = 0; i < k; i++) {
        double u = X[i] - tau;
        if (u > 0.0) {
            double p = pow(u, q);
            s += p;
            d += p / u;
        }
    }
    *f = s - 1.0;
    *df = -q * d;
}

static void erow_eval(const double *X, int k, double q, double tau, double *f, double *df) {
    if (SX_SCALAR_WASM || k < 2) {
        erow_eval_libm(X, k, q, tau, f, df);
        return;
    }
    const v128d vt = dsplat(tau), vq = dsplat(q), tiny = dsplat(0x1p-1022);
    v128d s = dsplat(0.0), d = s;
    int i = 0;
    for (; i + 2 <= k; i += 2) {
        v128d u = dsub(simde_wasm_v128_load(X + i), vt);
        v128d p = pow_unit(u, vq);
        s = dadd(s, p);
        d = dadd(d, simde_wasm_f64x2_div(p, simde_wasm_f64x2_pmax(u, tiny)));
    }
    if (i < k) {
        v128d u = dsub(simde_wasm_f64x2_make(X[i], -2.0), vt);
        v128d p = pow_unit(u, vq);
        s = dadd(s, p);
        d = dadd(d, simde_wasm_f64x2_div(p, simde_wasm_f64x2_pmax(u, tiny)));
    }
    *f = simde_wasm_f64x2_extract_lane(s, 0) + simde_wasm_f64x2_extract_lane(s, 1) - 1.0;
    *df = -q * (simde_wasm_f64x2_extract_lane(d, 0) + simde_wasm_f64x2_extract_lane(d, 1));
}

/* Keep the candidates that can still be in the support (X > lo: tau never goes below lo). */
static int erow_compact(double *X, int k, double lo) {
    int j = 0;
    for (int i = 0; i < k; i++) {
        X[j] = X[i];
        j += X[i] > lo;
    }
    return j;
}

/* ---- keeping the lanes of a 4-lane mask (candidate lists): pack_lanes(v, bits) moves the lanes
   of v whose bit is set in bits (i32x4_bitmask of the mask) to the front, in order, by one byte
   swizzle from a table; the caller stores all four lanes and advances by lane_count[bits].
   (The scalar wasm build keeps plain loops: SIMDe's emulated swizzle costs more.) */
#if !SX_SCALAR_WASM
static const unsigned char pack_table[16][16] = {
    { 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 128, 128, 128, 128 },
    { 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 128, 128, 128, 128 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }
};
static const int lane_count[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
SX_INLINE v128 pack_lanes(v128 v, int bits) {
    return simde_wasm_i8x16_swizzle(v, vload(pack_table[bits]));
}
#endif

/* ---- float search: narrows the bracket without libm pow
   u^q = exp(q log u) in float SIMD (log below, sx_exp_nonpos) over a float copy of X, clamped to
   >= -2 (masked and far entries: never in the support, tau >= -1) and padded with -2 to a
   multiple of 4. Its answer is only a starting point: the double search starts there after
   checking f > 0 in double, so float rounding never reaches the output. */

/* log(u) for u >= FLT_MIN (Cephes logf: u = 2^e m, m in [sqrt(1/2), sqrt 2), degree-9
   polynomial; ~1 ulp). */
SX_INLINE v128 log_pos(v128 u) {
    const v128 one = vsplat(1.0f);
    v128 e = simde_wasm_i32x4_sub(simde_wasm_u32x4_shr(u, 23), simde_wasm_i32x4_splat(126));
    v128 m = vor(vand(u, simde_wasm_i32x4_splat(0x007fffff)), vsplat(0.5f)); /* [0.5, 1) */
    v128 small = vlt(m, vsplat(0.70710678f));
    e = simde_wasm_i32x4_add(e, small); /* -1 where m < sqrt(1/2) */
    v128 x = vsub(vadd(m, vand(m, small)), one);
    v128 ef = simde_wasm_f32x4_convert_i32x4(e);
    v128 z = vmul(x, x);
    v128 y = vsplat(7.0376836292e-2f);
    y = vadd(vmul(y, x), vsplat(-1.1514610310e-1f));
    y = vadd(vmul(y, x), vsplat(1.1676998740e-1f));
    y = vadd(vmul(y, x), vsplat(-1.2420140846e-1f));
    y = vadd(vmul(y, x), vsplat(1.4249322787e-1f));
    y = vadd(vmul(y, x), vsplat(-1.6668057665e-1f));
    y = vadd(vmul(y, x), vsplat(2.0000714765e-1f));
    y = vadd(vmul(y, x), vsplat(-2.4999993993e-1f));
    y = vadd(vmul(y, x), vsplat(3.3333331174e-1f));
    y = vmul(vmul(y, x), z);
    y = vadd(y, vmul(ef, vsplat(-2.12194440e-4f)));
    y = vsub(y, vmul(z, vsplat(0.5f)));
    return vadd(vadd(x, y), vmul(ef, vsplat(0.693359375f)));
}

/* exp(min(y, 0)) in float, y clamped at -80 (exp = 1.8e-35): the lanes with u <= 0 have y ~ -87 q,
   where sx_exp_nonpos would build a garbage 2^n, and near -87 its 2^n t is subnormal; a subnormal
   operand costs a microcode assist on x86 (in wasm too). Callers mask the lanes with u <= 0. */
SX_INLINE v128 exp_clamped(v128 y) {
    return sx_exp_nonpos(vmax(vmin(y, vsplat(0.0f)), vsplat(-80.0f)));
}

/* [u]_+^e (e > 0) in float, and pow_unit, out of line: the callers outside the hot loops would
   otherwise each carry a copy of the log and exp polynomials (kilobytes of wasm). */
#define SX_NOINLINE __attribute__((noinline))
static SX_NOINLINE v128 pow_f(v128 u, v128 e) {
    return vand(exp_clamped(vmul(e, log_pos(vmax(u, vsplat(FLT_MIN))))), vgt(u, vsplat(0.0f)));
}

static SX_NOINLINE v128d pow_unit_f(v128d u, v128d q) { return pow_unit(u, q); }

/* pow_f inline, for the short rows' loops (independent calls side by side overlap) */
SX_INLINE v128 pow_fi(v128 u, v128 e) {
    return vand(exp_clamped(vmul(e, log_pos(vmax(u, vsplat(FLT_MIN))))), vgt(u, vsplat(0.0f)));
}

/* f(tau) + 1 = sum [X - tau]_+^q and sum [X - tau]_+^(q - 1) in float, X (k4, a multiple of 4). */
static SX_NOINLINE void erow_eval_f(const float *X, int k4, float q, float tau, double *s_out, double *d_out) {
    const v128 vt = vsplat(tau), vq = vsplat(q), zero = vsplat(0.0f), tiny = vsplat(FLT_MIN);
    v128 s0 = zero, d0 = zero;
    int i = 0;
    for (; i < k4; i += 4) {
        v128 u0 = vsub(vload(X + i), vt);
        v128 k0 = vgt(u0, zero);
        u0 = vmax(u0, tiny);
        v128 p0 = vand(exp_clamped(vmul(vq, log_pos(u0))), k0);
        s0 = vadd(s0, p0);
        d0 = vadd(d0, vdiv(p0, u0));
    }
    *s_out = sx_hsum(s0);
    *d_out = sx_hsum(d0);
}

/* Keeps the float candidates above lo, pads to a multiple of 4; returns the padded count. */
static int erow_compact_f(float *X, int k4, float lo) {
    int j = 0;
#if !SX_SCALAR_WASM
    const v128 vlo = vsplat(lo);
    for (int i = 0; i < k4; i += 4) { /* X[j .. j + 4) never reaches a later block: j <= i */
        const v128 v = vload(X + i);
        const int bits = simde_wasm_i32x4_bitmask(vgt(v, vlo));
        vstore(X + j, pack_lanes(v, bits));
        j += lane_count[bits];
    }
#else
    for (int i = 0; i < k4; i++) {
        X[j] = X[i];
        j += X[i] > lo;
    }
#endif
    int j4 = (j + 3) & ~3;
    for (int i = j; i < j4; i++) X[i] = -2.0f;
    return j4;
}

/* Narrows [*lo, *hi] around the root of the float f by safeguarded Newton, to ~1e-6. */
static void erow_bracket_f(float *X, int k4, double q, double *lo_io, double *hi_io) {
    double lo = *lo_io, hi = *hi_io, tau = lo, s, d;
    const float qf = (float)q;
    for (int it = 0; it < 60 && hi - lo > 2e-6; it++) {
        erow_eval_f(X, k4, qf, (float)tau, &s, &d);
        double f = s - 1.0, df = -q * d;
        if (f > 0.0) {
            lo = tau;
            k4 = erow_compact_f(X, k4, (float)lo);
        } else if (f < 0.0) hi = tau;
        double cand = df < 0.0 ? tau - f / df : hi + 1.0;
        double next = cand > lo && cand < hi ? cand : 0.5 * (lo + hi);
        /* converged (to float resolution, or a Newton step below 1e-7): bracket the estimate */
        if (f == 0.0 || (float)next == (float)tau || fabs(next - tau) < 1e-7) {
            lo = fmax(lo, next - 1e-6);
            hi = fmin(hi, next + 1e-6);
            break;
        }
        tau = next;
    }
    *lo_io = lo;
    *hi_io = hi;
}

/* ---- 1 < alpha < 2 (q > 1): Newton on the q-norm g(tau) = ||[X - tau]_+||_q, g(tau*) = 1.
   g is convex and decreasing (a norm of a convex, nonnegative, decreasing vector), so Newton from
   a point with g >= 1 stays at or left of tau* (every iterate is a lower bound: candidates
   X <= tau can go), and g is nearly linear (linear per support at q = 1, -tau as q -> inf), so
   it needs a few passes where Newton on sum u^q - 1 crawls. Step (g - 1) / -g' from the sums
   S = sum u^q and S1 = sum u^(q - 1): S^(1 - 1/q) (S^(1/q) - 1) / S1 = -S expm1(-log(S) / q) / S1,
   with expm1 so that huge q (alpha = 1 + 1 ulp) keeps its digits. Near the root (|S - 1| <=
   2^-12: the last pass or two of every row) by the binomial series of 1 - (1 + d)^(-1/q) to d^4
   (truncation below 4e-15 of the step), else by simd.h's double kernels (one lane used: cheaper
   than libm's calls) for normal S. */
static double qnorm_step(double S, double S1, const erow *e) {
    if (!(S > 0.0) || !(S1 > 0.0) || S == INFINITY) return 0.0;
    const double d = S - 1.0, r = 1.0 / e->q;
    if (fabs(d) <= 0x1p-12) {
        const double c1 = 0.5 * (r + 1.0), c2 = c1 * (r + 2.0) / 3.0, c3 = c2 * (r + 3.0) * 0.25;
        return S * r * d * (1.0 - d * (c1 - d * (c2 - d * c3))) / S1;
    }
#if !SX_SCALAR_WASM
    if (S >= 0x1p-1000) {
        const v128d y = dmul(sx_dlog(dsplat(S)), dsplat(-r)); /* |y| <= 710 */
        return -S * dlane(sx_dexpm1(y), 0) / S1;
    }
#endif
    return -S * expm1(-log(S) * r) / S1;
}

/* K of the error model e' = K e^2 before it can be estimated: larger than any seen on random rows
   (0.5 - 0.9), so that a first step is trusted only when small. */
#define SX_QNORM_K0 2.0

#if !SX_SCALAR_WASM
/* One pass of the float search: S = sum u^q and S1 = sum u^(q - 1), u = [X - tau]_+, over X[0..k4)
   (padded with -2), u^(q - 1) = exp((q - 1) log u) and u^q = u^(q - 1) u (no division); the
   entries with X > keep (a lower bound of tau) are moved to the front in the same pass and padded
   again.
   Returns the new padded count. */
static int qnorm_pass_f(float *X, int k4, float q1, float tau, float keep, double *S, double *S1) {
    SX_COUNT(0, k4);
    const v128 vt = vsplat(tau), vq1 = vsplat(q1), zero = vsplat(0.0f), tiny = vsplat(FLT_MIN);
    const v128 vkeep = vsplat(keep);
    v128 s0 = zero, d0 = zero;
    int i = 0, j = 0;
    for (; i < k4; i += 4) {
        const v128 x0 = vload(X + i);
        v128 u0 = vsub(x0, vt);
        const v128 k0 = vgt(u0, zero);
        u0 = vmax(u0, tiny);
        const v128 w0 = vand(exp_clamped(vmul(vq1, log_pos(u0))), k0);
        d0 = vadd(d0, w0);
        s0 = vadd(s0, vmul(w0, u0));
        const int b0 = simde_wasm_i32x4_bitmask(vgt(x0, vkeep));
        vstore(X + j, pack_lanes(x0, b0));
        j += lane_count[b0];
    }
    *S = sx_hsum(s0);
    *S1 = sx_hsum(d0);
    const int j4 = (j + 3) & ~3;
    for (int t = j; t < j4; t++) X[t] = -2.0f;
    return j4;
}

/* The float search: Newton on the q-norm from a lower bound of the root (start) until the double
   search can finish in one pass. Every iterate stays left of the root (up to float rounding,
   which the double search's margin of 1e-6 covers) and converges quadratically: the error left
   after a step s is about K s^2, with K estimated from the last two steps (K ~ s_k / s_(k-1)^2,
   at least 0.5; SX_QNORM_K0 before the second step). The search stops once K s^2 <= 4e-6: the
   double Newton step from there (about that size) then leaves ~K (4e-6)^2 < 1e-10, and
   qnorm_pass accepts it (see there). Returns the estimate; *K_out the last K. */
static SX_NOINLINE double qnorm_search_f(float *X, int k4, const erow *e, double start, double lb, double *K_out) {
    double tau = start, s, d, prev = 0.0, K = SX_QNORM_K0;
    const float q1 = (float)(e->q - 1.0);
    for (int it = 0; it < 40; it++) {
        k4 = qnorm_pass_f(X, k4, q1, (float)tau, (float)(it ? tau : lb), &s, &d);
        /* S < 1: right of the root, which only the start may be (then the step goes left, and
           lands left of the root: g is convex); later, float rounding near the root */
        if (!(s >= 1.0) && (it || !(s > 0.0))) break;
        const double step = qnorm_step(s, d, e);
        if (!(step > 0.0) && it) break;
        tau += step;
        if (prev > 0.0) {
            K = fabs(step) / (prev * prev);
            K = K > 0.5 ? K : 0.5;
        }
        if (K * step * step <= 4e-6) break; /* the double search ends in one pass from here */
        prev = fabs(step);
    }
    *K_out = K;
    return tau;
}
#endif

/* ---- 1 < alpha < 2: the candidates, the float search, then the double Newton on them.
   Candidates: the entries with X > -1 (tau >= -1 = max X - 1, so no other entry is ever in the
   support), found by one SIMD float pass that keeps each one's index (the float X is only
   compared with a threshold a little below -1, so its rounding loses no candidate). The float
   search runs on a copy of their float X; the double search recomputes X in double from x for
   the candidates above its start (est - margin, or the float first step's landing point, once
   g >= 1 is checked there; else -1), so the float search's own compaction can never drop an
   entry. Every double iterate is a lower bound
   of tau (see qnorm_step), so the candidates stay a superset of the support, and the powers are
   taken over them alone. */
typedef struct {
    double *X; /* double X of the candidates */
    double *P; /* u^q at the last sums (qnorm_sums), u = X - tau there */
    float *Xf; /* float X (the float search's copy), padded to a multiple of 4 with -2 */
    int *idx;  /* each candidate's index in the row */
    int k;     /* number of candidates */
    double lb; /* a lower bound of tau (ecand_float), -1 at worst */
    double est; /* an estimate of tau (ecand_float), >= lb */
} ecand;

static void ecand_at(ecand *c, void *scratch, int n) {
    const int n4 = (n + 3) & ~3;
    c->X = (double *)scratch;
    c->P = c->X + n;
    c->Xf = (float *)(c->P + n);
    c->idx = (int *)(c->Xf + n4);
    c->k = 0;
}

/* The float X = (x - m) c of the entries with X > -1 (and a few just below) into c->Xf, their
   indices into c->idx. c is clamped at FLT_MAX so that x = m gives 0, never 0 * Infinity. */
static void ecand_float(ecand *c, const erow *e) {
    const float cf = e->c < FLT_MAX ? (float)e->c : FLT_MAX;
    const v128 vm = vsplat((float)e->m), vc = vsplat(cf), thr = vsplat(-1.0001f);
#if !SX_SCALAR_WASM
    const v128 lane = simde_wasm_i32x4_make(0, 1, 2, 3);
#endif
    const float *x = e->x;
    float *Xf = c->Xf;
    int *idx = c->idx, k = 0;
    for (int i = 0; i < e->n; i += 4) {
        v128 xv = i + 4 <= e->n ? vload(x + i) : sx_load_tail(x + i, e->n - i, -INFINITY);
        v128 w = vmul(vsub(xv, vm), vc);
        v128 keep = vgt(w, thr);
#if !SX_SCALAR_WASM
        const int bits = simde_wasm_i32x4_bitmask(keep);
        if (!bits) continue;
        vstore(Xf + k, pack_lanes(w, bits)); /* k <= i: room for four */
        vstore(idx + k, pack_lanes(simde_wasm_i32x4_add(simde_wasm_i32x4_splat(i), lane), bits));
        k += lane_count[bits];
#else
        if (!simde_wasm_v128_any_true(keep)) continue;
        float t[4];
        vstore(t, w);
        for (int l = 0; l < 4; l++) {
            Xf[k] = t[l];
            idx[k] = i + l;
            k += t[l] > -1.0001f;
        }
#endif
    }
    for (int i = k; i < ((k + 3) & ~3); i++) Xf[i] = -2.0f;
    c->k = k;
    c->lb = c->est = -1.0;
#if !SX_SCALAR_WASM
    /* A lower bound of tau: for any set A of k entries, sum_A [X - t]_+^q >= k [mean_A X - t]_+^q
       (Jensen: u -> [u]_+^q is convex), which is >= 1 at t = mean_A X - k^(-1/q): there f >= 0,
       so tau >= t. A = the entries above each cut (the best of four); k^(-1/q) in float (the
       bound only starts the float search: the double search checks its own start).
       An estimate: if A were the support, sum_A (X - t)^q = 1 to second order in the spread of
       A is k (d^q + q (q - 1) / 2 d^(q - 2) var_A) = 1, d = mean_A - t, so d ~ d0 - (q - 1)
       var_A / (2 d0), d0 = k^(-1/q); taken from the highest cut below its own estimate (A is
       then about the support). Near-uniform rows (the whole row in the support) get within
       ~1e-5 of tau; the estimate may lie right of tau (see qnorm_search_f). */
    /* the counts, sums and sums of squares of the candidates above -1/8, -1/4, -1/2, -1: one
       cut per lane */
    const float cuts[4] = { -0.125f, -0.25f, -0.5f, -1.0f };
    const v128 vcut = vload(cuts);
    v128 vs = vsplat(0.0f), vq = vs, vn = vs;
    for (int j = 0; j < k; j++) {
        const v128 w = vsplat(Xf[j]), m = vgt(w, vcut), wm = vand(w, m);
        vs = vadd(vs, wm);
        vq = vadd(vq, vmul(wm, wm));
        vn = simde_wasm_i32x4_sub(vn, m);
    }
    float sums[4], sqs[4], pw[4];
    int cnts[4];
    vstore(sums, vs);
    vstore(sqs, vq);
    vstore(cnts, vn);
    vstore(pw, pow_f(vmax(simde_wasm_f32x4_convert_i32x4(vn), vsplat(1.0f)), vsplat((float)-e->am1)));
    double est = -2.0;
    for (int j = 0; j < 4; j++)
        if (cnts[j] > 0) {
            const double mean = (double)sums[j] / cnts[j], d0 = pw[j], t = mean - d0;
            if (t > c->lb) c->lb = t;
            double var = (double)sqs[j] / cnts[j] - mean * mean;
            var = var > 0.0 ? var : 0.0;
            const double te = t + (e->q - 1.0) * var / (2.0 * d0);
            if (est == -2.0 && te > cuts[j]) est = te;
        }
    c->est = est > c->lb && est < 0.0 ? est : c->lb;
#endif
}

/* Keeps the candidates whose double X is > lo, computing X from x; returns their count. */
static int ecand_double(ecand *c, const erow *e, double lo) {
    int k = 0;
    for (int j = 0; j < c->k; j++) {
        const int i = c->idx[j];
        c->X[k] = ((double)e->x[i] - e->m) * e->c;
        c->idx[k] = i;
        k += c->X[k] > lo;
    }
    return c->k = k;
}

/* Keeps the candidates with X > lo (both arrays). */
static void ecand_compact(ecand *c, double lo) {
    int k = 0;
    for (int j = 0; j < c->k; j++) {
        c->X[k] = c->X[j];
        c->idx[k] = c->idx[j];
        k += c->X[j] > lo;
    }
    c->k = k;
}

/* S = sum u^q and S1 = sum u^(q - 1), u = [X - tau]_+, over the candidates X[0..k), q > 1:
   u^(q - 1) by pow_unit and u^q = u^(q - 1) u (no division), each u^q kept in P (for
   ecand_powers); libm in the scalar wasm build. */
static void qnorm_sums(const double *X, double *P, int k, double q, double tau, double uthr,
                       double *S, double *S1) {
    SX_COUNT(1, k);
    int i = 0;
    double s = 0.0, s1 = 0.0;
#if !SX_SCALAR_WASM
    const v128d vt = dsplat(tau), vq1 = dsplat(q - 1.0);
    v128d vs = dsplat(0.0), vs1 = vs;
    if (uthr > 0.0) {
        /* four at a time: u^(q - 1) in float where all four u are <= uthr (see erow.uthr) */
        const v128d vu = dsplat(uthr);
        const v128 fq1 = vsplat((float)(q - 1.0));
        for (; i + 4 <= k; i += 4) {
            const v128d u0 = dsub(simde_wasm_v128_load(X + i), vt), u1 = dsub(simde_wasm_v128_load(X + i + 2), vt);
            v128d w0, w1;
            if (simde_wasm_i64x2_bitmask(vand(simde_wasm_f64x2_le(u0, vu), simde_wasm_f64x2_le(u1, vu))) == 3) {
                const v128 uf = simde_wasm_i32x4_shuffle(simde_wasm_f32x4_demote_f64x2_zero(u0),
                                                         simde_wasm_f32x4_demote_f64x2_zero(u1), 0, 1, 4, 5);
                const v128 w = pow_f(uf, fq1);
                w0 = simde_wasm_f64x2_promote_low_f32x4(w);
                w1 = simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(w, w, 2, 3, 0, 1));
            } else {
                w0 = pow_unit_f(u0, vq1);
                w1 = pow_unit_f(u1, vq1);
            }
            const v128d pu0 = dmul(w0, u0), pu1 = dmul(w1, u1); /* 0 where u <= 0 */
            simde_wasm_v128_store(P + i, pu0);
            simde_wasm_v128_store(P + i + 2, pu1);
            vs = dadd(vs, dadd(pu0, pu1));
            vs1 = dadd(vs1, dadd(w0, w1));
        }
    }
    for (; i + 2 <= k; i += 2) {
        const v128d u = dsub(simde_wasm_v128_load(X + i), vt);
        const v128d w = pow_unit_f(u, vq1), pu = dmul(w, u); /* 0 where u <= 0 */
        simde_wasm_v128_store(P + i, pu);
        vs = dadd(vs, pu);
        vs1 = dadd(vs1, w);
    }
    if (i < k) {
        const v128d u = dsub(simde_wasm_f64x2_make(X[i], -2.0), vt);
        const v128d w = pow_unit_f(u, vq1), pu = dmul(w, u);
        P[i++] = dlane(pu, 0);
        vs = dadd(vs, pu);
        vs1 = dadd(vs1, w);
    }
    s = dlane(vs, 0) + dlane(vs, 1);
    s1 = dlane(vs1, 0) + dlane(vs1, 1);
#else
    (void)uthr;
#endif
    for (; i < k; i++) {
        const double u = X[i] - tau;
        P[i] = 0.0;
        if (u > 0.0) {
            const double w = pow(u, q - 1.0);
            s += P[i] = w * u;
            s1 += w;
        }
    }
    *S = s;
    *S1 = s1;
}

/* Smallest candidate count for the float search (below it the double search alone is cheaper). */
#define SX_QNORM_FLOAT_MIN 16

/* One row's Newton state: the row, its candidates, tau (a lower bound of the root) and the sums
   S, S1 at tau. */
typedef struct {
    erow e;
    ecand c;
    float *p; /* the row's output */
    double tau, t0, S, S1; /* S, S1 (and c.P) taken at t0 */
    double K;              /* the error model's constant (qnorm_search_f), or 0: unknown */
    int it, done;
} qrow;

/* After ecand_float: the float search (many candidates) and the sums at the start (a lower bound:
   -1, or the float search's estimate minus a margin once S >= 1 is checked there). */
static void qnorm_start(qrow *r) {
    const erow *e = &r->e;
    ecand *c = &r->c;
    const double lo0 = -1.0;
    r->tau = lo0;
    r->K = 0.0;
    r->it = r->done = 0;
#if !SX_SCALAR_WASM /* emulated lanes: the float search would cost more than it saves */
    if (c->k >= SX_QNORM_FLOAT_MIN) {
        /* the search compacts a copy: the candidate list stays whole. The copy keeps only the
           candidates above the lower bound (tau >= lb: the others are never in the support), so
           the first pass takes no powers of them */
        const int k = c->k;
        float *Xw = (float *)(c->X); /* the double X is not built yet: its room (8n >= 4 k4 bytes, as
                                        n >= k >= 4) holds the copy */
        const v128 vlb = vsplat((float)c->lb);
        int k4 = 0;
        for (int i = 0; i < k; i += 4) {
            const v128 v = vload(c->Xf + i); /* padded with -2 */
            const int bits = simde_wasm_i32x4_bitmask(vgt(v, vlb));
            vstore(Xw + k4, pack_lanes(v, bits));
            k4 += lane_count[bits];
        }
        for (int i = k4; i < ((k4 + 3) & ~3); i++) Xw[i] = -2.0f;
        k4 = (k4 + 3) & ~3;
        double K;
        const double est = qnorm_search_f(Xw, k4, e, c->est, c->lb, &K);
        for (double margin = 1e-6; margin < 1e-3; margin *= 100.0) {
            const double t0 = est - margin;
            if (!(t0 > lo0)) break;
            ecand_double(c, e, t0);
            qnorm_sums(c->X, c->P, c->k, e->q, t0, e->uthr, &r->S, &r->S1);
            if (r->S >= 1.0) {
                r->tau = r->t0 = t0;
                r->K = margin == 1e-6 ? K : 0.0;
                return;
            }
            ecand_float(c, e); /* ecand_double dropped the candidates below t0: list them again */
        }
    } else if (c->k >= 2) {
        /* few candidates: the first Newton step from the estimate in float (four lanes, float
           log and exp); it lands left of the root (g convex; from either side) up to its float
           rounding: a lower bound less 1e-6, once S >= 1 is checked there in double */
        double s, d;
        erow_eval_f(c->Xf, (c->k + 3) & ~3, (float)e->q, (float)c->est, &s, &d);
        const double step = qnorm_step(s, d, e), t0 = c->est + step - 1e-6;
        if (t0 > lo0 && t0 < 0.0) {
            ecand_double(c, e, t0);
            qnorm_sums(c->X, c->P, c->k, e->q, t0, e->uthr, &r->S, &r->S1);
            if (r->S >= 1.0) {
                r->tau = r->t0 = t0;
                return;
            }
            ecand_float(c, e);
        }
    }
#endif
    ecand_double(c, e, lo0);
    r->t0 = lo0;
    qnorm_sums(c->X, c->P, c->k, e->q, lo0, e->uthr, &r->S, &r->S1);
}

/* One Newton pass: the step from the sums at tau, then (unless that was the last) the sums at the
   new tau, over the candidates above it. */
static void qnorm_pass(qrow *r) {
    const double step = qnorm_step(r->S, r->S1, &r->e);
    if (!(step > 0.0) || ++r->it > 100) {
        r->done = 1;
        return;
    }
    r->tau += step;
    /* quadratic: the error left is ~ K step^2 (K from the float search, with a factor 4 to
       spare), or below 4e-12 K for the smallest steps */
    if (step <= 2e-6 || (r->K > 0.0 && 4.0 * r->K * step * step <= 1e-10)) {
        r->done = 1;
        return;
    }
    ecand_compact(&r->c, r->tau);
    r->t0 = r->tau;
    qnorm_sums(r->c.X, r->c.P, r->c.k, r->e.q, r->tau, r->e.uthr, &r->S, &r->S1);
}

/* tau of one row alone; c keeps the candidates left (a superset of the support). */
static double erow_tau_qnorm(const erow *e, ecand *c) {
    qrow r;
    r.e = *e;
    r.c = *c;
    ecand_float(&r.c, e);
    qnorm_start(&r);
    while (!r.done) qnorm_pass(&r);
    *c = r.c;
    return r.tau;
}

/* p_i = [X_i - tau]_+^q for the candidates (p zero elsewhere); returns their sum. The last sums
   were taken at t0 <= tau (P = u^q there, u = X - t0, delta = tau - t0 <= 2e-6: the last Newton
   step): (u - delta)^q = P (1 - x)^q, x = delta / u, by the binomial series to x^6 for a pair whose
   x are both <= 2^-8 / q (the terms left are below 2^-56 of the sum: as exact as pow_unit, for a
   division and a few products instead of a log and an exp), pow_unit at tau otherwise. */
static double ecand_powers(float *p, const ecand *c, int n, double q, double t0, double tau) {
    memset(p, 0, (size_t)n * sizeof(float));
    const double *X = c->X, *P = c->P;
    const int *idx = c->idx;
    double mass = 0.0;
    int j = 0;
#if !SX_SCALAR_WASM
    double b[7] = { 1.0 }; /* (1 - x)^q = sum b_k x^k, b_k = (-1)^k binom(q, k) */
    for (int m = 1; m < 7; m++) b[m] = b[m - 1] * ((double)(m - 1) - q) / (double)m;
    const v128d vt = dsplat(tau), vt0 = dsplat(t0), vd = dsplat(tau - t0), vq = dsplat(q);
    const v128d zero = dsplat(0.0), xmax = dsplat(0x1p-8 / q);
    v128d vmass = zero;
    for (; j + 2 <= c->k; j += 2) {
        const v128d Xj = simde_wasm_v128_load(X + j), u = dsub(Xj, vt0), x = ddiv(vd, u);
        v128d v;
        if (simde_wasm_i64x2_bitmask(vand(simde_wasm_f64x2_gt(u, zero), simde_wasm_f64x2_le(x, xmax))) == 3) {
            v128d t = dadd(dsplat(b[5]), dmul(x, dsplat(b[6])));
            t = dadd(dsplat(b[4]), dmul(x, t));
            t = dadd(dsplat(b[3]), dmul(x, t));
            t = dadd(dsplat(b[2]), dmul(x, t));
            t = dadd(dsplat(b[1]), dmul(x, t));
            t = dadd(dsplat(1.0), dmul(x, t));
            v = dmul(simde_wasm_v128_load(P + j), t);
        } else
            v = pow_unit(dsub(Xj, vt), vq);
        vmass = dadd(vmass, v);
        p[idx[j]] = (float)dlane(v, 0);
        p[idx[j + 1]] = (float)dlane(v, 1);
    }
    mass = dlane(vmass, 0) + dlane(vmass, 1);
    if (j < c->k) { /* the last one: pow_unit, a dead second lane */
        const double v = dlane(pow_unit(dsub(simde_wasm_f64x2_make(X[j], -2.0), vt), vq), 0);
        mass += v;
        p[idx[j++]] = (float)v;
    }
#else
    (void)P;
    (void)t0;
#endif
    for (; j < c->k; j++) {
        const double u = X[j] - tau, v = u > 0.0 ? pow(u, q) : 0.0;
        mass += v;
        p[idx[j]] = (float)v;
    }
    return mass;
}

/* alpha > 2 (q < 1; and the q > 1 solver above, given room for its arrays):
   Safeguarded Newton (rtsafe) in double on [-1, -(1/n)^(alpha-1)], started from the low end the
   float search found (minus 1e-5, used only if f > 0 there in double, else -1), over a
   shrinking candidate set (without the scratch allocation: plain bisection, correct but
   slower). */
/* SIZE_MAX when the byte count does not fit a size_t (wasm32: 24 n bytes pass 4 GiB at n near
   180 M): malloc then fails and the callers take their allocation-free paths, instead of a
   wrapped, too small buffer. */
static size_t erow_scratch_bytes(int n) {
    const size_t n4 = ((size_t)n + 3) & ~(size_t)3;
    /* X, then (q > 1) P, then Xf, idx (alpha > 2: X, Xf) */
    const size_t per = 2 * sizeof(double) + sizeof(float) + sizeof(int);
    return n4 > SIZE_MAX / per ? SIZE_MAX : 2 * sizeof(double) * (size_t)n + (sizeof(float) + sizeof(int)) * n4;
}

static double erow_tau(const erow *e, void *scratch) {
    const double lo0 = -1.0, hi0 = -pow(1.0 / e->n, e->am1);
    double lo = lo0, hi = hi0;
    const int n4 = (e->n + 3) & ~3;
    double *X = scratch ? (double *)scratch : malloc(erow_scratch_bytes(e->n));
    if (!X) {
        for (int it = 0; it < 200 && hi - lo > 1e-17; it++) {
            double mid = 0.5 * (lo + hi), f = -1.0;
            for (int i = 0; i < e->n; i++) {
                double u = erow_X(e, i) - mid;
                if (u > 0.0) f += pow(u, e->q);
            }
            if (f > 0.0) lo = mid;
            else hi = mid;
        }
        return 0.5 * (lo + hi);
    }
    if (e->q > 1.0) {
        ecand c;
        ecand_at(&c, X, e->n);
        const double tau = erow_tau_qnorm(e, &c);
        if (!scratch) free(X);
        return tau;
    }
    float *Xf = (float *)(X + e->n);
    int k = 0;
    for (int i = 0; i < e->n; i++) {
        X[k] = erow_X(e, i);
        Xf[k] = X[k] > -2.0 ? (float)X[k] : -2.0f;
        k += X[k] > lo;
    }
    for (int i = k; i < n4; i++) Xf[i] = -2.0f;
    double flo = lo0, fhi = hi0, f, df;
#if !SX_SCALAR_WASM /* emulated lanes: the float search would cost more than it saves */
    if (k >= 16) erow_bracket_f(Xf, (k + 3) & ~3, e->q, &flo, &fhi); /* else the double search alone */
#endif
    /* the double search starts at the low end of the narrowed bracket, once f > 0 is checked
       there (else from -1, where it is >= 0) */
    const double margin = 1e-5;
    double tau = lo;
    if (flo - margin > lo0) {
        erow_eval(X, k, e->q, flo - margin, &f, &df);
        if (f > 0.0) {
            lo = tau = flo - margin;
            k = erow_compact(X, k, lo);
        }
    }
    if (tau == lo0) erow_eval(X, k, e->q, tau, &f, &df);
    (void)fhi; /* the high end stays unchecked at -(1/n)^(alpha-1): from a start within ~1e-5 of
                  the root, Newton does not need it, and checking it cost a quarter of the passes */
    double dx = hi - lo, dxold = 4.0 * dx; /* a first Newton step from the narrowed bracket's end */
    for (int it = 0; it < 300 && f != 0.0; it++) {
        if (f > 0.0) {
            lo = tau;
            k = erow_compact(X, k, lo);
        } else hi = tau;
        double prev = tau;
        double cand = df < 0.0 ? tau - f / df : hi + 1.0;
        /* a Newton step of a few ulp: converged (the next f would be rounding noise, and
           bisecting on its sign takes ~40 more passes) */
        if (fabs(cand - tau) <= 4e-16) break;
        if (!(cand > lo && cand < hi) || fabs(2.0 * f) > fabs(dxold * df)) {
            dxold = dx;
            dx = 0.5 * (hi - lo);
            tau = lo + dx;
        } else {
            dxold = dx;
            dx = cand - tau;
            tau = cand;
        }
        if (tau == prev || hi - lo <= 1e-17) break;
        erow_eval(X, k, e->q, tau, &f, &df);
    }
    if (!scratch) free(X);
    return tau;
}

/* sum_i [X_i - tau]_+^q: the normaliser. */
static double erow_mass(const erow *e, double tau) {
    double s = 0.0;
    for (int i = 0; i < e->n; i++) {
        double u = erow_X(e, i) - tau;
        if (u > 0.0) s += pow(u, e->q);
    }
    return s;
}

/* Set up the row; returns 0 for an all -Infinity row. */
static int erow_init(erow *e, const float *x, int n, float alpha, float temperature) {
    e->x = x;
    e->n = n;
    e->m = sx__row_max(x, n);
    e->t = temperature;
    e->am1 = (double)alpha - 1.0;
    e->q = 1.0 / e->am1;
    e->c = e->am1 / e->t;
    e->uthr = 0.0;
    return e->m != -INFINITY;
}

/* p_i = [X_i - tau]_+^q into p (float); returns their sum. */
SX_COLD_FN static double erow_powers_libm(float *p, const erow *e, double tau) {
    double mass = 0.0;
    for (int i = 0; i < e->n; i++) {
        double u = erow_X(e, i) - tau, v = u > 0.0 ? pow(u, e->q) : 0.0;
        mass += v;
        p[i] = (float)v;
    }
    return mass;
}

static double erow_powers(float *p, const erow *e, double tau) {
    const v128d vt = dsplat(tau), vq = dsplat(e->q), vm = dsplat(e->m), vc = dsplat(e->c);
    const float *x = e->x;
    v128d vmass = dsplat(0.0);
    int i = 0;
    for (; i + 2 <= e->n; i += 2) {
        v128d X = dmul(dsub(simde_wasm_f64x2_make((double)x[i], (double)x[i + 1]), vm), vc);
        v128d u = dsub(X, vt);
        if (!simde_wasm_v128_any_true(simde_wasm_f64x2_gt(u, dsplat(0.0)))) {
            p[i] = p[i + 1] = 0.0f;
            continue;
        }
        v128d v = pow_unit(u, vq);
        vmass = dadd(vmass, v);
        p[i] = (float)simde_wasm_f64x2_extract_lane(v, 0);
        p[i + 1] = (float)simde_wasm_f64x2_extract_lane(v, 1);
    }
    if (i < e->n) {
        v128d v = pow_unit(dsub(simde_wasm_f64x2_make(erow_X(e, i), -2.0), vt), vq);
        vmass = dadd(vmass, v);
        p[i] = (float)simde_wasm_f64x2_extract_lane(v, 0);
    }
    return simde_wasm_f64x2_extract_lane(vmass, 0) + simde_wasm_f64x2_extract_lane(vmass, 1);
}

/* p = the row's powers / mass, or the uniform distribution on the argmax ties if the mass
   underflows (huge alpha). */
static void erow_finish(float *p, const erow *e, double mass) {
    const int n = e->n;
    if (!(mass > 0.0) || mass == INFINITY) {
        int k = 0;
        for (int i = 0; i < n; i++) k += e->x[i] == (float)e->m;
        for (int i = 0; i < n; i++) p[i] = e->x[i] == (float)e->m ? 1.0f / (float)k : 0.0f;
        return;
    }
    /* p_i <= mass, but each was rounded to float before this float product: a row that is
       nearly one-hot (large alpha) could come out at 1.0000001. Clamped, so p lies in [0, 1]. */
    const float inv = (float)(1.0 / mass);
    for (int i = 0; i < n; i++) {
        const float v = p[i] * inv;
        p[i] = v > 1.0f ? 1.0f : v;
    }
}

/* ---- dense rows (1 < alpha < 2, SIMD builds): when every candidate is in the support (flat
   rows: a model at initialisation, small heads, alpha near 1), tau comes from the row's moments
   and one power pass checks it by an exact Newton step on the q-norm; p is that pass's powers
   moved by the step. With n candidates (X > -1), mu, v, m3, m4 their mean and central moments and
   t = mu - tau, sum (X - tau)^q = 1 expands as n t^q (1 + eps(t)), eps = A2 v / t^2 + A3 m3 / t^3
   + A4 m4 / t^4 (A_k = binom(q, k), the rest of order (spread / t)^5), so t = n^(-1/q) (1 +
   eps(t))^(-1/q): two fixed-point steps from n^(-1/q). The q-norm is linear in tau on a uniform
   row and its curvature is about K = (q - 1) v / (2 t^3) otherwise, so tau + delta (delta the
   Newton step from the powers at tau) is within ~K delta^2 of the root. Accepted (qnorm_pass's
   test) when 4 K delta^2 <= 1e-10, every candidate stays in the support with q |delta| / u <=
   2^-6 (p moved by the binomial series to delta^3: truncation below 3e-9 of each p) and every p is
   below 0.33 / (q + 3) (the float powers' error below 2e-8 of each, as erow.uthr); else another
   pass from tau + delta (K then also from the last two steps), up to three; a row where an entry
   leaves the support goes to the general search (dense_row returns 0). */
/* The native and full SIMD wasm builds (SX_WIDE_PATHS): not in the mappings core (compiled for
   size, short rows) nor in the scalar wasm build (emulated lanes). */
#if SX_WIDE_PATHS
typedef struct {
    double n, s1, s2, s3, s4, wmin; /* count, sums of w^k over the candidates, their smallest w */
    float cf;                       /* c in float (clamped at FLT_MAX) */
} dmoments;

/* One pass: w = (x - m) c in float over the row; count, power sums and minimum of w > -1. */
static void dense_moments(const erow *e, dmoments *mo) {
    const float cf = e->c < FLT_MAX ? (float)e->c : FLT_MAX;
    const v128 vm = vsplat((float)e->m), vc = vsplat(cf), lo = vsplat(-1.0f), zero = vsplat(0.0f);
    v128 a = zero, b = zero, c = zero, d = zero, mn = vsplat(INFINITY), cnt = simde_wasm_i32x4_splat(0);
    for (int i = 0; i < e->n; i += 4) {
        const v128 xv = i + 4 <= e->n ? vload(e->x + i) : sx_load_tail(e->x + i, e->n - i, -INFINITY);
        const v128 w = vmul(vsub(xv, vm), vc), k = vgt(w, lo), wk = vand(w, k), w2 = vmul(wk, wk);
        a = vadd(a, wk);
        b = vadd(b, w2);
        c = vadd(c, vmul(w2, wk));
        d = vadd(d, vmul(w2, w2));
        mn = vmin(mn, vsel(k, w, vsplat(INFINITY)));
        cnt = simde_wasm_i32x4_sub(cnt, k);
    }
    mo->n = sx_hsum_i32(cnt);
    mo->s1 = sx_hsum(a);
    mo->s2 = sx_hsum(b);
    mo->s3 = sx_hsum(c);
    mo->s4 = sx_hsum(d);
    mo->wmin = sx_hmin(mn);
    mo->cf = cf;
}

/* tau from the moments (see above), and K; 0 if the row is not flat enough for the expansion. */
static int dense_tau0(const dmoments *mo, double q, double *tau, double *K) {
    const double n = mo->n, mu = mo->s1 / n, e2 = mo->s2 / n, e3 = mo->s3 / n, e4 = mo->s4 / n;
    const double v = fmax(e2 - mu * mu, 0.0), m3 = e3 - 3.0 * mu * e2 + 2.0 * mu * mu * mu;
    const double m4 = fmax(e4 - 4.0 * mu * e3 + 6.0 * mu * mu * e2 - 3.0 * mu * mu * mu * mu, 0.0);
    const double a2 = 0.5 * q * (q - 1.0), a3 = a2 * (q - 2.0) / 3.0, a4 = a3 * (q - 3.0) * 0.25, r = 1.0 / q;
    const double t0 = exp(-log(n) * r);
    double t = t0;
    for (int it = 0; it < 2; it++) {
        const double i2 = 1.0 / (t * t), eps = i2 * (a2 * v + (a3 * m3 + a4 * m4 * i2 / t) / t);
        if (!(fabs(eps) <= 0.25)) return 0;
        t = t0 * exp(-log1p(eps) * r);
    }
    *tau = mu - t;
    *K = (q - 1.0) * v / (2.0 * t * t * t);
    return n >= 1.0 && *tau < mo->wmin;
}

/* p = u^q, u = w - tau over the candidates (0 elsewhere), into p; S = sum u^q, S1 = sum u^(q - 1). */
static void dense_powers(float *p, const erow *e, const dmoments *mo, double tau, double *S, double *S1) {
    const v128 vm = vsplat((float)e->m), vc = vsplat(mo->cf), vt = vsplat((float)tau), lo = vsplat(-1.0f);
    const v128 q1 = vsplat((float)(e->q - 1.0)), zero = vsplat(0.0f);
    v128d s = dsplat(0.0), s1 = s;
    for (int i = 0; i < e->n; i += 4) {
        const v128 xv = i + 4 <= e->n ? vload(e->x + i) : sx_load_tail(e->x + i, e->n - i, -INFINITY);
        const v128 w = vmul(vsub(xv, vm), vc), u = vsub(w, vt);
        const v128 k = vand(vgt(w, lo), vgt(u, zero));
        /* masked after the product: u = -Infinity at masked entries */
        const v128 w1 = vand(exp_clamped(vmul(q1, log_pos(vmax(u, vsplat(FLT_MIN))))), k), pu = vand(vmul(w1, u), k);
        s = dadd(s, dadd(simde_wasm_f64x2_promote_low_f32x4(pu),
                         simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(pu, pu, 2, 3, 0, 1))));
        s1 = dadd(s1, dadd(simde_wasm_f64x2_promote_low_f32x4(w1),
                           simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(w1, w1, 2, 3, 0, 1))));
        if (i + 4 <= e->n) vstore(p + i, pu);
        else sx_store_tail(p + i, pu, e->n - i);
    }
    *S = dlane(s, 0) + dlane(s, 1);
    *S1 = dlane(s1, 0) + dlane(s1, 1);
}

/* p *= (1 - x)^q, x = delta / u (u = w - tau as dense_powers took it), by the series to x^3;
   returns the sum of the new p. */
static double dense_move(float *p, const erow *e, const dmoments *mo, double tau, double delta) {
    const double q = e->q, a2 = 0.5 * q * (q - 1.0), a3 = a2 * (q - 2.0) / 3.0;
    const v128 vm = vsplat((float)e->m), vc = vsplat(mo->cf), vt = vsplat((float)tau), zero = vsplat(0.0f);
    const v128 vd = vsplat((float)delta), c1 = vsplat((float)-q), c2 = vsplat((float)a2), c3 = vsplat((float)-a3);
    v128d s = dsplat(0.0);
    for (int i = 0; i < e->n; i += 4) {
        const int full = i + 4 <= e->n;
        const v128 xv = full ? vload(e->x + i) : sx_load_tail(e->x + i, e->n - i, -INFINITY);
        const v128 pv = full ? vload(p + i) : sx_load_tail(p + i, e->n - i, 0.0f);
        const v128 u = vsub(vmul(vsub(xv, vm), vc), vt), live = vgt(pv, zero);
        const v128 x = vand(vdiv(vd, vsel(live, u, vsplat(1.0f))), live);
        const v128 f = vadd(vsplat(1.0f), vmul(x, vadd(c1, vmul(x, vadd(c2, vmul(x, c3))))));
        const v128 pn = vmul(pv, f);
        s = dadd(s, dadd(simde_wasm_f64x2_promote_low_f32x4(pn),
                         simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(pn, pn, 2, 3, 0, 1))));
        if (full) vstore(p + i, pn);
        else sx_store_tail(p + i, pn, e->n - i);
    }
    return dlane(s, 0) + dlane(s, 1);
}

/* One row by the dense path into p (normalised); 0 if the row is not dense (p is then scratch). */
static int dense_row(float *p, const erow *e) {
    dmoments mo;
    double tau, K, S, S1, prev = 0.0;
    dense_moments(e, &mo);
    if (!dense_tau0(&mo, e->q, &tau, &K)) return 0;
    const double pmax = 0.33 / (e->q + 3.0);
    for (int it = 0; it < 3; it++) {
        SX_COUNT(2, e->n);
        dense_powers(p, e, &mo, tau, &S, &S1);
        const double delta = qnorm_step(S, S1, e), u = mo.wmin - tau;
        /* an entry leaves the support, or the top entry's p is too large for float powers */
        if (!(S1 > 0.0) || !(u - delta > 0.0) || !(exp(e->q * log(-(tau + delta))) <= pmax)) return 0;
        if (prev > 0.0) K = fmax(K, fabs(delta) / (prev * prev));
        if (4.0 * K * delta * delta <= 1e-10 && e->q * fabs(delta) <= 0x1p-6 * u) {
            erow_finish(p, e, dense_move(p, e, &mo, tau, delta));
            return 1;
        }
        tau += delta;
        prev = fabs(delta);
    }
    return 0;
}
#endif

/* Rows of 1 < alpha < 2 (q > 1), given scratch for `slots` rows (erow_scratch_bytes(n) each):
   groups of up to `slots` rows, each set up (qnorm_start), then one Newton pass of each in turn
   until all are done, then the powers of each over its candidates (a superset of its support).
   A row's passes are one dependent chain (pow_unit over a few candidates, a reduction, a step),
   so the processor can overlap the chains of the rows side by side; the arithmetic of each row
   is the same as alone. */
#define SX_QNORM_ROWS 4
static void entmax_qnorm_rows(float *out, const float *x, int rows, int n, float alpha,
                              float temperature, void *scratch, int slots) {
    qrow g[SX_QNORM_ROWS];
    if (slots > SX_QNORM_ROWS) slots = SX_QNORM_ROWS;
    const double q = 1.0 / ((double)alpha - 1.0);
    const double uthr = !SX_SCALAR_WASM && q <= 64.0 ? pow(0.33 / (q + 3.0), 1.0 / q) : 0.0;
    for (int r0 = 0; r0 < rows;) {
        int m = 0;
        for (; r0 < rows && m < slots; r0++) {
            qrow *r = &g[m];
            r->p = out + (size_t)r0 * n;
            if (!erow_init(&r->e, x + (size_t)r0 * n, n, alpha, temperature)) {
                memset(r->p, 0, (size_t)n * sizeof(float));
                continue;
            }
            r->e.uthr = uthr;
            SX_COUNT_ROW();
#if SX_WIDE_PATHS
            if (n >= SX_QNORM_FLOAT_MIN && dense_row(r->p, &r->e)) continue;
#endif
            ecand_at(&r->c, (char *)scratch + (size_t)m * erow_scratch_bytes(n), n);
            ecand_float(&r->c, &r->e);
            qnorm_start(r);
            m++;
        }
        for (int busy = m; busy > 0;) {
            busy = 0;
            for (int j = 0; j < m; j++)
                if (!g[j].done) {
                    qnorm_pass(&g[j]);
                    busy += !g[j].done;
                }
        }
        for (int j = 0; j < m; j++) {
            qrow *r = &g[j];
            erow_finish(r->p, &r->e, ecand_powers(r->p, &r->c, n, r->e.q, r->t0, r->tau));
        }
    }
}

/* p of one row, float output (not inlined into sx_entmax: alpha > 2 and the no-scratch fallback). */
SX_COLD_FN __attribute__((noinline)) static void entmax_bisect_row(float *p, const float *x, int n, float alpha, float temperature, void *scratch) {
    erow e;
    if (!erow_init(&e, x, n, alpha, temperature)) {
        memset(p, 0, (size_t)n * sizeof(float));
        return;
    }
    if (e.q > 1.0 && scratch) {
        entmax_qnorm_rows(p, x, 1, n, alpha, temperature, scratch, 1);
        return;
    }
    const double tau = erow_tau(&e, scratch);
    /* unnormalised values (the largest is >= 1/n, since tau <= -(1/n)^(alpha-1)), then scaled */
    erow_finish(p, &e, SX_SCALAR_WASM || n < 2 ? erow_powers_libm(p, &e, tau) : erow_powers(p, &e, tau));
}

/* ------------------------------------------ 1 < alpha < 2, n = 3, 4 rows at once
   (the simplex plots' rows). Per lane (row): the three X = (x - max) (alpha - 1) / T sorted (a
   3-element network, as entmax15_3), a start from the second-order estimate of ecand_float on
   the largest prefix that looks like the support, float Newton steps on the q-norm until every
   lane's step is below 1e-3 (its error then ~1e-6), then one Newton step in double from there
   (X recomputed in double from x, u^(q - 1) by pow_unit, the step by qnorm_step's series: the
   error left ~1e-12), and p from the double powers at the float tau moved by that step delta to
   second order, (u - delta)^q = u^q (1 - q delta / u + q (q - 1) / 2 (delta / u)^2) (relative
   truncation (q delta / u)^3: negligible unless u is tiny, and then so is p), renormalised in
   double. An entry with u <= 0 at the float tau has p <= (1e-6)^q: 0. For q <= 8 only. */
#if !SX_SCALAR_WASM
typedef struct {
    v128 cf, q1, r, d2, d3, hq1; /* c (float), q - 1, 1 / q, 2^(-1/q), 3^(-1/q), (q - 1) / 2 */
    v128 f1, f2, f3;             /* qnorm_step's series coefficients, float */
    double c, q, r1, sc1, sc2, sc3;  /* c, q, 1 / q and qnorm_step's series coefficients */
} e3k;


/* p of two rows (lanes of the f64x2 vectors) from their double X and the float tau: Newton steps
   in double until both lanes' step is below 2e-6 (one, unless the root sits at a support edge,
   where Newton on [u]_+^q with q < 2 converges only linearly), then the powers at the last tau. */
static SX_NOINLINE void entmax3_finish(v128d *pa, v128d *pb, v128d *pc, v128d tau, const e3k *k) {
    const v128d zero = dsplat(0.0), q1 = dsplat(k->q - 1.0);
    const v128d X[3] = { *pa, *pb, *pc };
    v128d u[3], P[3], delta = zero;
    for (int it = 0; it < 64; it++) {
        v128d S = zero, S1 = zero;
        for (int i = 0; i < 3; i++) {
            u[i] = dsub(X[i], tau);
            const v128d w = pow_unit_f(u[i], q1);
            P[i] = dmul(w, u[i]);
            S = dadd(S, P[i]);
            S1 = dadd(S1, w);
        }
        /* the q-norm Newton step (qnorm_step): the series for |S - 1| <= 2^-12, else libm */
        const v128d d = dsub(S, dsplat(1.0));
        if (simde_wasm_i64x2_bitmask(simde_wasm_f64x2_le(simde_wasm_f64x2_abs(d), dsplat(0x1p-12))) == 3) {
            v128d t = dsub(dsplat(k->sc2), dmul(d, dsplat(k->sc3)));
            t = dsub(dsplat(k->sc1), dmul(d, t));
            t = dsub(dsplat(1.0), dmul(d, t));
            delta = ddiv(dmul(dmul(S, dsplat(k->r1)), dmul(d, t)), S1);
        } else {
            const double S0 = dlane(S, 0), Sb = dlane(S, 1); /* lanes by constant index (wasm) */
            delta = simde_wasm_f64x2_make(-S0 * expm1(-log(S0) * k->r1) / dlane(S1, 0),
                                          -Sb * expm1(-log(Sb) * k->r1) / dlane(S1, 1));
        }
        if (simde_wasm_i64x2_bitmask(simde_wasm_f64x2_le(simde_wasm_f64x2_abs(delta), dsplat(2e-6))) == 3) break;
        tau = dadd(tau, delta);
    }
    /* p at tau + delta from the powers at tau, to second order in delta / u (|delta| <= 2e-6) */
    const v128d h = dsplat(0.5 * k->q * (k->q - 1.0));
    v128d sum = zero;
    for (int i = 0; i < 3; i++) {
        const v128d live = simde_wasm_f64x2_gt(u[i], zero);
        const v128d x = ddiv(delta, simde_wasm_f64x2_pmax(u[i], dsplat(0x1p-1022)));
        const v128d f = dadd(dsub(dsplat(1.0), dmul(dsplat(k->q), x)), dmul(h, dmul(x, x)));
        P[i] = vand(dmul(P[i], simde_wasm_f64x2_pmax(f, zero)), live);
        sum = dadd(sum, P[i]);
    }
    const v128d inv = ddiv(dsplat(1.0), sum);
    *pa = dmul(P[0], inv);
    *pb = dmul(P[1], inv);
    *pc = dmul(P[2], inv);
}

/* The float Newton step on the q-norm, four rows (lanes) at once, from S = sum w u and
   S1 = sum w (w = u^(q-1)): step = S (1 - S^(-1/q)) / S1 (S > 0: the top entry is always in).
   Near the root (every |S - 1| <= 1/64) qnorm_step's series (truncation ~6e-8 of the step), else
   g = S^(-1/q) from (min(S, 1/S))^(1/q) <= 1. Dead rows (S = 0) have no say in the branch. */
SX_INLINE v128 qnorm_step_f(v128 S, v128 S1, v128 dead, const e3k *k) {
    const v128 one = vsplat(1.0f);
    const v128 d = vandnot(vsub(S, one), dead);
    if (!simde_wasm_v128_any_true(vgt(vandnot(d, vsplat(-0.0f)), vsplat(0.015625f)))) {
        const v128 t = vsub(one, vmul(d, vsub(k->f1, vmul(d, vsub(k->f2, vmul(d, k->f3))))));
        return vdiv(vmul(vmul(S, k->r), vmul(d, t)), S1);
    }
    const v128 ge = vge(S, one), h = pow_f(vsel(ge, vdiv(one, S), S), k->r);
    const v128 g = vsel(ge, h, vdiv(one, h));
    return vdiv(vmul(S, vsub(one, g)), S1);
}

static SX_NOINLINE void entmax3(v128 *a, v128 *b, v128 *c, const e3k *k) {
    const v128 ninf = vsplat(-INFINITY), zero = vsplat(0.0f), one = vsplat(1.0f), floor = vsplat(-2.0f);
    const v128 m = vmax(*a, vmax(*b, *c)), dead = veq(m, ninf);
    const v128 za = vmax(vmul(vsub(*a, m), k->cf), floor), zb = vmax(vmul(vsub(*b, m), k->cf), floor),
               zc = vmax(vmul(vsub(*c, m), k->cf), floor);
    const v128 hi = vmax(za, zb), lo = vmin(za, zb);
    const v128 s1 = vmax(hi, zc), mid = vmin(hi, zc);
    const v128 s2 = vmax(lo, mid), s3 = vmin(lo, mid);
    /* the start: prefix r = 3, else 2, else -1 (estimate t_r, used if t_r < s_r) */
    const v128 m2 = vmul(vadd(s1, s2), vsplat(0.5f)), e2 = vsub(s1, m2);
    const v128 t2 = vadd(vsub(m2, k->d2), vdiv(vmul(k->hq1, vmul(e2, e2)), k->d2));
    const v128 m3 = vdiv(vadd(vadd(s1, s2), s3), vsplat(3.0f));
    const v128 f1 = vsub(s1, m3), f2 = vsub(s2, m3), f3 = vsub(s3, m3);
    const v128 v3 = vdiv(vadd(vadd(vmul(f1, f1), vmul(f2, f2)), vmul(f3, f3)), vsplat(3.0f));
    const v128 t3 = vadd(vsub(m3, k->d3), vdiv(vmul(k->hq1, v3), k->d3));
    v128 tau = vsel(vlt(t3, s3), t3, vsel(vlt(t2, s2), t2, vsub(zero, one)));
    for (int it = 0; it < 30; it++) {
        const v128 ua = vsub(s1, tau), ub = vsub(s2, tau), uc = vsub(s3, tau);
        const v128 wa = pow_f(ua, k->q1), wb = pow_f(ub, k->q1), wc = pow_f(uc, k->q1);
        const v128 S = vadd(vadd(vmul(wa, ua), vmul(wb, ub)), vmul(wc, uc)), S1 = vadd(vadd(wa, wb), wc);
        v128 step = qnorm_step_f(S, S1, dead, k); /* u >= -tau > 0 for the top entry */
        tau = vadd(tau, step);
        if (!simde_wasm_v128_any_true(vgt(vandnot(step, vsplat(-0.0f)), vsplat(1e-3f)))) break;
    }
    /* the double step and p, two rows at a time, from X in double */
    const v128d cd = dsplat(k->c);
    v128 out[3];
    for (int h = 0; h < 2; h++) {
        const v128 sa = h ? simde_wasm_i32x4_shuffle(*a, *a, 2, 3, 0, 1) : *a;
        const v128 sb = h ? simde_wasm_i32x4_shuffle(*b, *b, 2, 3, 0, 1) : *b;
        const v128 sc = h ? simde_wasm_i32x4_shuffle(*c, *c, 2, 3, 0, 1) : *c;
        const v128 sm = h ? simde_wasm_i32x4_shuffle(m, m, 2, 3, 0, 1) : m;
        const v128 st = h ? simde_wasm_i32x4_shuffle(tau, tau, 2, 3, 0, 1) : tau;
        const v128d md = simde_wasm_f64x2_promote_low_f32x4(sm);
        /* masked entries: X = -Infinity (u <= 0: p = 0); dead rows are zeroed below */
        v128d pa = dmul(dsub(simde_wasm_f64x2_promote_low_f32x4(sa), md), cd);
        v128d pb = dmul(dsub(simde_wasm_f64x2_promote_low_f32x4(sb), md), cd);
        v128d pc = dmul(dsub(simde_wasm_f64x2_promote_low_f32x4(sc), md), cd);
        /* pmax(-2, X): -2 also for the NaN of -Inf - -Inf (dead rows: S stays finite) */
        pa = simde_wasm_f64x2_pmax(dsplat(-2.0), pa);
        pb = simde_wasm_f64x2_pmax(dsplat(-2.0), pb);
        pc = simde_wasm_f64x2_pmax(dsplat(-2.0), pc);
        entmax3_finish(&pa, &pb, &pc, simde_wasm_f64x2_promote_low_f32x4(st), k);
        const v128 fa = simde_wasm_f32x4_demote_f64x2_zero(pa), fb = simde_wasm_f32x4_demote_f64x2_zero(pb),
                   fc = simde_wasm_f32x4_demote_f64x2_zero(pc);
        if (!h) {
            out[0] = fa;
            out[1] = fb;
            out[2] = fc;
        } else {
            out[0] = simde_wasm_i32x4_shuffle(out[0], fa, 0, 1, 4, 5);
            out[1] = simde_wasm_i32x4_shuffle(out[1], fb, 0, 1, 4, 5);
            out[2] = simde_wasm_i32x4_shuffle(out[2], fc, 0, 1, 4, 5);
        }
    }
    *a = vandnot(out[0], dead);
    *b = vandnot(out[1], dead);
    *c = vandnot(out[2], dead);
}

static void e3k_init(e3k *kp, float alpha, float temperature) {
    e3k k;
    k.q = 1.0 / ((double)alpha - 1.0);
    k.c = ((double)alpha - 1.0) / (double)temperature;
    k.r1 = 1.0 / k.q;
    k.sc1 = 0.5 * (k.r1 + 1.0);
    k.sc2 = k.sc1 * (k.r1 + 2.0) / 3.0;
    k.sc3 = k.sc2 * (k.r1 + 3.0) * 0.25;
    k.cf = vsplat(k.c < FLT_MAX ? (float)k.c : FLT_MAX);
    k.q1 = vsplat((float)(k.q - 1.0));
    k.r = vsplat((float)k.r1);
    k.d2 = vsplat((float)pow(2.0, -k.r1));
    k.d3 = vsplat((float)pow(3.0, -k.r1));
    k.hq1 = vsplat((float)(0.5 * (k.q - 1.0)));
    k.f1 = vsplat((float)k.sc1);
    k.f2 = vsplat((float)k.sc2);
    k.f3 = vsplat((float)k.sc3);
    *kp = k;
}

static void entmax_rows3(float *out, const float *x, int rows, float alpha, float temperature) {
    e3k k;
    e3k_init(&k, alpha, temperature);
    /* one path for whole and partial groups of four rows (SX_ROWS3 would expand twice) */
    for (int r = 0; r < rows; r += 4) {
        float buf[12] = { 0 };
        const size_t bytes = 3 * (size_t)(rows - r < 4 ? rows - r : 4) * sizeof(float);
        v128 a, b, c, v0, v1, v2;
        memcpy(buf, x + 3 * (size_t)r, bytes);
        sx_deinterleave3(vload(buf), vload(buf + 4), vload(buf + 8), &a, &b, &c);
        entmax3(&a, &b, &c, &k);
        sx_interleave3(a, b, c, &v0, &v1, &v2);
        vstore(buf, v0);
        vstore(buf + 4, v1);
        vstore(buf + 8, v2);
        memcpy(out + 3 * (size_t)r, buf, bytes);
    }
}

/* ------------------------------ 1.125 <= alpha < 2, 4 <= n <= 32, four rows at once
   (the models' maps: rows of n = 11 or 12, one call per map). The rows of a group are
   transposed into one vector per column (lane = row), so every step is uniform over the four
   rows and no pass waits on a horizontal sum. As entmax3: float X clamped at -2; a start from
   ecand_float's estimate (Jensen lower bounds and the second-order estimate over the entries
   above -1/8, -1/4, -1/2, -1, per lane); float Newton steps on the q-norm until every lane's
   step is below SX_SHORT_FSTEP; then, two rows at a time, Newton in double from X recomputed
   in double (entmax3_finish's steps) and p from the last powers moved by the last step to second
   order, renormalised in double and rounded once. The columns no lane can reach (each lane's X
   below its lower bound) are dropped after the start. On the models' maps (rows of 11-12, about
   40% masked, alpha near 1.5) about twice as fast as the per-row solver below (entmax_qnorm_rows),
   which keeps single rows and pairs (a group of four costs about as much as two rows there). */
#define SX_SHORT_N 32
#define SX_SHORT_FSTEP 1e-3f

SX_INLINE void transpose4(v128 *a, v128 *b, v128 *c, v128 *d) {
    const v128 t0 = simde_wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5), t1 = simde_wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7);
    const v128 t2 = simde_wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5), t3 = simde_wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
    *a = simde_wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    *b = simde_wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    *c = simde_wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    *d = simde_wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

/* The double steps and p of two rows (lanes 2h and 2h + 1) over the nl live columns: xc their x
   (floats), tauf the float search's tau; out gets those two lanes of each column's p. */
static SX_NOINLINE void entmax_short_finish(v128 *out, const v128 *xc, int nl, int h,
                                            v128 msafe, v128 tauf, v128 dead, const e3k *k) {
    const v128d zero = dsplat(0.0), one = dsplat(1.0), q1 = dsplat(k->q - 1.0), cd = dsplat(k->c);
    const v128 sh = h ? simde_wasm_i32x4_shuffle(msafe, msafe, 2, 3, 0, 1) : msafe;
    const v128 st = h ? simde_wasm_i32x4_shuffle(tauf, tauf, 2, 3, 0, 1) : tauf;
    const v128 sd = h ? simde_wasm_i32x4_shuffle(dead, dead, 2, 3, 0, 1) : dead;
    const v128d md = simde_wasm_f64x2_promote_low_f32x4(sh);
    /* dead rows: S = S1 = 1 (no step), zeros out */
    const v128d deadd = simde_wasm_i64x2_extend_low_i32x4(sd);
    v128d X[SX_SHORT_N], u[SX_SHORT_N], P[SX_SHORT_N];
    v128d tau = simde_wasm_f64x2_promote_low_f32x4(st), delta = zero;
    for (int j = 0; j < nl; j++) {
        const v128 xs = h ? simde_wasm_i32x4_shuffle(xc[j], xc[j], 2, 3, 0, 1) : xc[j];
        X[j] = simde_wasm_f64x2_pmax(dsplat(-2.0), dmul(dsub(simde_wasm_f64x2_promote_low_f32x4(xs), md), cd));
    }
    for (int it = 0; it < 64; it++) {
        /* u^(q - 1) as pow_unit, the logs of all columns first, then the exps: each loop's
           iterations are independent, so the processor overlaps them */
        v128d S = zero, S1 = zero;
        for (int j = 0; j < nl; j++) {
            u[j] = dsub(X[j], tau);
            P[j] = dmul(q1, sx_dlog(simde_wasm_f64x2_pmax(u[j], dsplat(0x1p-1022))));
        }
        for (int j = 0; j < nl; j++) {
            const v128d y = simde_wasm_f64x2_pmin(P[j], zero);
            const v128d ok = vand(simde_wasm_f64x2_gt(u[j], zero), simde_wasm_f64x2_ge(y, dsplat(-708.0)));
            v128d scale;
            const v128d e = dadd(sx_dexp_split(simde_wasm_f64x2_pmax(y, dsplat(-708.0)), &scale), one);
            const v128d w = vand(dmul(e, scale), ok);
            P[j] = dmul(w, u[j]);
            S = dadd(S, P[j]);
            S1 = dadd(S1, w);
        }
        S = vsel(deadd, one, S);
        S1 = vsel(deadd, one, S1);
        const v128d d = dsub(S, one);
        if (simde_wasm_i64x2_bitmask(simde_wasm_f64x2_le(simde_wasm_f64x2_abs(d), dsplat(0x1p-12))) == 3) {
            v128d t = dsub(dsplat(k->sc2), dmul(d, dsplat(k->sc3)));
            t = dsub(dsplat(k->sc1), dmul(d, t));
            t = dsub(one, dmul(d, t));
            delta = ddiv(dmul(dmul(S, dsplat(k->r1)), dmul(d, t)), S1);
        } else {
            const double S0 = dlane(S, 0), Sb = dlane(S, 1);
            delta = simde_wasm_f64x2_make(-S0 * expm1(-log(S0) * k->r1) / dlane(S1, 0),
                                          -Sb * expm1(-log(Sb) * k->r1) / dlane(S1, 1));
        }
        if (simde_wasm_i64x2_bitmask(simde_wasm_f64x2_le(simde_wasm_f64x2_abs(delta), dsplat(2e-6))) == 3) break;
        tau = dadd(tau, delta);
    }
    /* p at tau + delta from the powers at tau, to second order in delta / u (|delta| <= 2e-6) */
    const v128d hq = dsplat(0.5 * k->q * (k->q - 1.0)), vq = dsplat(k->q);
    v128d sum = zero;
    for (int j = 0; j < nl; j++) {
        const v128d x = ddiv(delta, simde_wasm_f64x2_pmax(u[j], dsplat(0x1p-1022)));
        const v128d f = dadd(dsub(one, dmul(vq, x)), dmul(hq, dmul(x, x)));
        P[j] = vand(dmul(P[j], simde_wasm_f64x2_pmax(f, zero)), simde_wasm_f64x2_gt(u[j], zero));
        sum = dadd(sum, P[j]);
    }
    const v128d inv = ddiv(one, sum);
    for (int j = 0; j < nl; j++) {
        const v128 f = simde_wasm_f32x4_demote_f64x2_zero(dmul(P[j], inv));
        out[j] = h ? simde_wasm_i32x4_shuffle(out[j], f, 0, 1, 4, 5) : f;
    }
}

static void entmax_short4(float *out, const float *x, int rows, int n, const e3k *k) {
    v128 xc[SX_SHORT_N], X[SX_SHORT_N], po[SX_SHORT_N];
    int live[SX_SHORT_N];
    const v128 ninf = vsplat(-INFINITY), zero = vsplat(0.0f), one = vsplat(1.0f), floor = vsplat(-2.0f);
    v128 m = ninf;
    for (int j = 0; j < n; j += 4) { /* rows past the last and columns past n: -Infinity */
        v128 v[4];
        for (int r = 0; r < 4; r++)
            v[r] = r >= rows ? ninf : j + 4 <= n ? vload(x + (size_t)r * n + j) : sx_load_tail(x + (size_t)r * n + j, n - j, -INFINITY);
        v128 a = v[0], b = v[1], c = v[2], d = v[3];
        transpose4(&a, &b, &c, &d);
        xc[j] = a, xc[j + 1] = b, xc[j + 2] = c, xc[j + 3] = d;
        m = vmax(m, vmax(vmax(a, b), vmax(c, d)));
    }
    const v128 dead = veq(m, ninf), msafe = vandnot(m, dead); /* dead rows: X = -2 throughout */
    /* the start (ecand_float's): per lane and cut, count, sum and sum of squares above it */
    const v128 cut[4] = { vsplat(-0.125f), vsplat(-0.25f), vsplat(-0.5f), vsplat(-1.0f) };
    v128 cs[4], css[4], cn[4];
    for (int c = 0; c < 4; c++) cs[c] = css[c] = cn[c] = zero;
    /* first the columns with some X > -1 (less a margin for the float rounding: tau >= -1),
       moved to the front with their indices */
    int idx[SX_SHORT_N], nc = 0;
    for (int j = 0; j < n; j++) {
        const v128 w = vmax(vmul(vsub(xc[j], msafe), k->cf), floor);
        X[nc] = w;
        xc[nc] = xc[j];
        idx[nc] = j;
        nc += simde_wasm_v128_any_true(vgt(w, vsplat(-1.0001f)));
    }
    for (int j = 0; j < nc; j++) {
        const v128 w = X[j];
        for (int c = 0; c < 4; c++) {
            const v128 sel = vgt(w, cut[c]), wm = vand(w, sel);
            cs[c] = vadd(cs[c], wm);
            css[c] = vadd(css[c], vmul(wm, wm));
            cn[c] = simde_wasm_i32x4_sub(cn[c], sel);
        }
    }
    v128 lb = vsplat(-1.0f), est = vsplat(-2.0f);
    const v128 mr = vsplat((float)-k->r1);
    for (int c = 0; c < 4; c++) {
        const v128 has = simde_wasm_i32x4_gt(cn[c], simde_wasm_i32x4_splat(0));
        const v128 cnt = vmax(simde_wasm_f32x4_convert_i32x4(cn[c]), one);
        const v128 d0 = pow_f(cnt, mr), mean = vdiv(cs[c], cnt), t = vsub(mean, d0);
        lb = vsel(vand(has, vgt(t, lb)), t, lb);
        const v128 var = vmax(vsub(vdiv(css[c], cnt), vmul(mean, mean)), zero);
        const v128 te = vadd(t, vdiv(vmul(k->hq1, var), d0));
        est = vsel(vand(vand(has, veq(est, vsplat(-2.0f))), vgt(te, cut[c])), te, est);
    }
    /* the estimate only if below -1/32 (tau <= -(1/n)^(alpha - 1) <= -1/32 here): the top
       entry's u^q then stays a normal float */
    v128 tau = vsel(vand(vgt(est, lb), vlt(est, vsplat(-0.03125f))), est, lb);
    /* the columns some lane can reach: X above that lane's lower bound less 2e-6 (more than
       the float rounding of X and of the bound: a dropped entry lies left of tau, p = 0) */
    const v128 lbm = vsub(lb, vsplat(2e-6f));
    int nl = 0;
    for (int j = 0; j < nc; j++) {
        X[nl] = X[j];
        xc[nl] = xc[j];
        live[nl] = idx[j];
        nl += simde_wasm_v128_any_true(vgt(X[j], lbm));
    }
    for (int it = 0; it < 30; it++) {
        /* u^(q - 1) as pow_f, the logs of all columns first, then the exps (as entmax_short_finish) */
        v128 S = zero, S1 = zero, lg[SX_SHORT_N];
        for (int l = 0; l < nl; l++) lg[l] = vmul(k->q1, log_pos(vmax(vsub(X[l], tau), vsplat(FLT_MIN))));
        for (int l = 0; l < nl; l++) {
            const v128 u = vsub(X[l], tau), w = vand(exp_clamped(lg[l]), vgt(u, zero));
            S = vadd(S, vmul(w, u));
            S1 = vadd(S1, w);
        }
        v128 step = qnorm_step_f(S, S1, dead, k);
        step = vandnot(step, dead);
        tau = vadd(tau, step);
        if (!simde_wasm_v128_any_true(vgt(vandnot(step, vsplat(-0.0f)), vsplat(SX_SHORT_FSTEP)))) break;
    }
    entmax_short_finish(po, xc, nl, 0, msafe, tau, dead, k);
    if (rows > 2) entmax_short_finish(po, xc, nl, 1, msafe, tau, dead, k);
    /* back to rows: the dropped columns are zeros */
    for (int j = 0; j < ((n + 3) & ~3); j++) X[j] = zero;
    for (int l = 0; l < nl; l++) X[live[l]] = vandnot(po[l], dead);
    for (int j = 0; j < n; j += 4) {
        v128 v[4] = { X[j], X[j + 1], X[j + 2], X[j + 3] };
        transpose4(&v[0], &v[1], &v[2], &v[3]);
        for (int r = 0; r < rows && r < 4; r++) {
            if (j + 4 <= n) vstore(out + (size_t)r * n + j, v[r]);
            else sx_store_tail(out + (size_t)r * n + j, v[r], n - j);
        }
    }
}

static void entmax_short_rows(float *out, const float *x, int rows, int n, float alpha, float temperature) {
    e3k k;
    e3k_init(&k, alpha, temperature);
    for (int r = 0; r < rows; r += 4)
        entmax_short4(out + (size_t)r * n, x + (size_t)r * n, rows - r, n, &k);
}
#endif

/* noinline: sx_entmax_backward calls it too, and one copy of its code is enough */
__attribute__((noinline)) int sx_entmax(float *out, const float *x, int rows, int n, float alpha,
                                        float temperature) {
    int st = check_map(out, x, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (st) return st;
    if (alpha == 1.0f) return sx_softmax(out, x, rows, n, temperature);
    if (alpha == 1.5f) return sx_entmax15(out, x, rows, n, temperature);
    if (alpha == 2.0f) return sx_sparsemax(out, x, rows, n, temperature);
    st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
#if !SX_SCALAR_WASM
    if (n == 3 && alpha >= 1.125f && alpha < 2.0f) {
        entmax_rows3(out, x, rows, alpha, temperature);
        return SX_OK;
    }
#if SX_WIDE_PATHS
    if (n >= 4 && n <= SX_SHORT_N && alpha >= 1.125f && alpha < 2.0f && rows >= 3) {
        /* groups of four rows (three: one idle lane); a last one or two rows take the path
           below (a group of four costs about as much as two rows alone there) */
        const int tail = rows % 4 <= 2 ? rows % 4 : 0;
        entmax_short_rows(out, x, rows - tail, n, alpha, temperature);
        if (!tail) return SX_OK;
        out += (size_t)(rows - tail) * n;
        x += (size_t)(rows - tail) * n;
        rows = tail;
    }
#endif
#endif
    if (alpha < 2.0f) {
        /* rows of up to 64 entries (the model's maps: a call per map): scratch on the stack */
        double stack[SX_QNORM_ROWS * 3 * 64];
        const size_t one = erow_scratch_bytes(n);
        const size_t bytes = one > SIZE_MAX / SX_QNORM_ROWS ? SIZE_MAX : SX_QNORM_ROWS * one;
        /* SIZE_MAX (does not fit) is never asked of malloc: the bisection below works per row */
        void *scratch = bytes <= sizeof stack ? (void *)stack : bytes < SIZE_MAX ? malloc(bytes) : NULL;
        if (scratch) {
            entmax_qnorm_rows(out, x, rows, n, alpha, temperature, scratch, SX_QNORM_ROWS);
            if (scratch != (void *)stack) free(scratch);
            return SX_OK;
        }
    }
    const size_t row_bytes = erow_scratch_bytes(n);
    void *scratch = row_bytes < SIZE_MAX ? malloc(row_bytes) : NULL; /* NULL: each row tries its own */
    for (int r = 0; r < rows; r++) entmax_bisect_row(out + (size_t)r * n, x + (size_t)r * n, n, alpha, temperature, scratch);
    free(scratch);
    return SX_OK;
}

/* s = p^(2 - alpha) overflows float for alpha > 2 (the Jacobian is unbounded at the support's
   edge), so the mean of g under s is taken in double with the weights relative to the largest,
   exp(log s - max log s) (the mean is scale free), and each entry with its own s, exp(log s)
   clamped at exp(700); the result is clamped to +-FLT_MAX: never Infinity * 0. log s is taken
   once per entry, into ls. (simd.h's double log and exp two entries at a time were measured:
   1.3x faster at n = 64, 1.1x at 512, for 2.3 KB of the full core, near webpack's size hint.) */
void sx__entmax_alpha_backward_row(float *dz, const float *p, const float *g, int n, double e2, double invt,
                                   double *ls) {
    double ls_max = -INFINITY;
    for (int i = 0; i < n; i++) {
        ls[i] = p[i] > 0.0f ? e2 * log((double)p[i]) : -INFINITY;
        if (ls[i] > ls_max) ls_max = ls[i];
    }
    if (ls_max == -INFINITY) { /* all masked */
        memset(dz, 0, sizeof(float) * (size_t)n);
        return;
    }
    double ssum = 0.0, sg = 0.0;
    for (int i = 0; i < n; i++)
        if (p[i] > 0.0f) {
            const double w = exp(ls[i] - ls_max);
            ssum += w;
            sg += w * g[i];
        }
    const double c = sg / ssum;
    for (int i = 0; i < n; i++) {
        if (!(p[i] > 0.0f)) { dz[i] = 0.0f; continue; }
        const double v = exp(ls[i] < 700.0 ? ls[i] : 700.0) * ((double)g[i] - c) * invt;
        dz[i] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
    }
}

/* General alpha: p from sx_entmax itself, the whole batch at once into dx (the forward's own
   paths: the q-norm Newton below alpha 2), then each row turned into its gradient in place
   (sx__entmax_alpha_backward_row; its n doubles on the stack up to SX_ENTMAX_BW_STACK entries). */
int sx_entmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float alpha,
                       float temperature) {
    int st = check_backward(dx, "dx", x, dy, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (st) return st;
    if (alpha == 1.0f) return sx_softmax_backward(dx, x, dy, rows, n, temperature);
    if (alpha == 1.5f) return sx_entmax15_backward(dx, x, dy, rows, n, temperature);
    if (alpha == 2.0f) return sx_sparsemax_backward(dx, x, dy, rows, n, temperature);
    st = check_scores2(x, dy, rows, n);
    if (st) return st;
    double stack[SX_ENTMAX_BW_STACK];
    double *ls = n <= SX_ENTMAX_BW_STACK ? stack : (double *)malloc(sizeof(double) * (size_t)n);
    if (!ls) return sx__fail(SX_ENOMEM, -1, "sx_entmax_backward: cannot allocate %d doubles", n);
    st = sx_entmax(dx, x, rows, n, alpha, temperature); /* p, into dx */
    const double e2 = 2.0 - (double)alpha, invt = 1.0 / (double)temperature;
    for (int r = 0; r < rows && !st; r++)
        sx__entmax_alpha_backward_row(dx + (size_t)r * n, dx + (size_t)r * n, dy + (size_t)r * n, n, e2, invt, ls);
    if (ls != stack) free(ls);
    return st;
}

/* ------------------------------------------------------------- d / d alpha */
/* One row: d <g, entmax(z; alpha)> / d alpha, z = x / T, all in double. */
static double alpha_grad_row(const float *x, const float *g, int n, float alpha, float temperature) {
    erow e;
    if (!erow_init(&e, x, n, alpha, temperature)) return 0.0;
    if (alpha == 1.0f) {
        /* softmax, and the limit of the formula: sum g p (E_p[L^2] - L^2) / 2, L = log p */
        double mass = 0.0;
        for (int i = 0; i < n; i++) mass += exp(((double)x[i] - e.m) / e.t);
        const double lm = log(mass);
        double m2 = 0.0;
        for (int i = 0; i < n; i++) {
            if (x[i] == -INFINITY) continue;
            double l = ((double)x[i] - e.m) / e.t - lm;
            m2 += exp(l) * l * l;
        }
        double acc = 0.0;
        for (int i = 0; i < n; i++) {
            if (x[i] == -INFINITY) continue;
            double l = ((double)x[i] - e.m) / e.t - lm;
            acc += g[i] * exp(l) * (m2 - l * l) * 0.5;
        }
        return acc;
    }
    const double eps = e.am1;
    const double tau = erow_tau(&e, NULL);
    const double mass = erow_mass(&e, tau);
    if (!(mass > 0.0) || mass == INFINITY) return 0.0; /* huge alpha: ties, the gradient vanishes */
    const double lmass = log(mass);
    /* L_i = log p_i = q log u_i - log mass on the support (finite even where p_i underflows) */
#define SX_L(i, u) (e.q * log(u) - lmass)
    double ent = 0.0; /* sum p log p */
    for (int i = 0; i < n; i++) {
        double u = erow_X(&e, i) - tau;
        if (u > 0.0) {
            double l = SX_L(i, u);
            ent += exp(l) * l;
        }
    }
    double acc = 0.0;
    if (eps < 0.5) {
        /* s_i = p_i^(1 - eps) = p_i (1 + a_i), a_i = expm1(-eps L_i); 1 + A = sum s.
           p_i - t_i = p_i (A - a_i) / (1 + A): no cancellation against p_i. */
        double A = 0.0;
        for (int i = 0; i < n; i++) {
            double u = erow_X(&e, i) - tau;
            if (u > 0.0) {
                double l = SX_L(i, u), pl = exp(l);
                if (pl > 0.0) A += pl * expm1(-eps * l); /* p = 0 (underflow): negligible */
            }
        }
        for (int i = 0; i < n; i++) {
            double u = erow_X(&e, i) - tau;
            if (u > 0.0) {
                double l = SX_L(i, u), p = exp(l);
                if (!(p > 0.0)) continue;
                double a = expm1(-eps * l);
                double p_t = p * (A - a) / (1.0 + A);
                double t = p * (1.0 + a) / (1.0 + A);
                acc += g[i] * (p_t / (eps * eps) - (p * l - t * ent) / eps);
            }
        }
    } else {
        /* t = softmax((1 - eps) L) over the support, computed stably */
        double lmax = -INFINITY;
        for (int i = 0; i < n; i++) {
            double u = erow_X(&e, i) - tau;
            if (u > 0.0) {
                double v = (1.0 - eps) * SX_L(i, u);
                if (v > lmax) lmax = v;
            }
        }
        double z = 0.0;
        for (int i = 0; i < n; i++) {
            double u = erow_X(&e, i) - tau;
            if (u > 0.0) z += exp((1.0 - eps) * SX_L(i, u) - lmax);
        }
        for (int i = 0; i < n; i++) {
            double u = erow_X(&e, i) - tau;
            if (u > 0.0) {
                double l = SX_L(i, u), p = exp(l);
                double t = exp((1.0 - eps) * l - lmax) / z;
                acc += g[i] * ((p - t) / (eps * eps) - (p * l - t * ent) / eps);
            }
        }
    }
#undef SX_L
    return acc;
}

int sx_entmax_alpha_grad(float *dalpha, const float *x, const float *dy, int rows, int n, float alpha,
                         float temperature) {
    int st = check_backward(dalpha, "dalpha", x, dy, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (!st) st = check_scores2(x, dy, rows, n);
    if (st) return st;
    for (int r = 0; r < rows; r++) {
        double v = alpha_grad_row(x + (size_t)r * n, dy + (size_t)r * n, n, alpha, temperature);
        dalpha[r] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
    }
    return SX_OK;
}
