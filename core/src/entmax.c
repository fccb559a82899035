/* entmax.c - alpha-entmax: p = [(alpha - 1) z - tau]_+^(1 / (alpha - 1)), z = x / T.

   1.5-entmax, exact: with z = (x - max x) / (2T), p = [z - tau]_+^2 and f(tau) = sum [z - tau]_+^2 - 1
   is convex and decreasing, so Newton from the lower bound tau = -1 never overshoots and its
   supports shrink towards the true one. Every SIMD pass also gives the closed form on its support
   (tau = mean - sqrt((1 - ss) / k)); once that tau lies below the smallest support entry it is
   the exact answer. For n = 3 the sort-based formula on a 3-element sorting network, four rows
   at a time.

   Any other alpha: alpha = 1 is softmax, alpha = 2 sparsemax (exact algorithms), otherwise a
   safeguarded Newton / bisection on tau in double over [max X - 1, max X - (1/n)^(alpha-1)],
   X = (alpha - 1) z, then renormalised.

   Backward: s = p^(2 - alpha) on the support, dx = (s g - (sum s g / sum s) s) / T.
   Gradient wrt alpha: Correia et al. (2019), computed in double with expm1 so that its 0/0 as
   alpha -> 1 cancels cleanly; at alpha = 1 exactly, its limit sum g p (E[L^2] - L^2) / 2, L = log p. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

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
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *xr = x + 3 * r;
        float *o = out + 3 * r;
        v128 a, b, c, v0, v1, v2;
        sx_deinterleave3(vload(xr), vload(xr + 4), vload(xr + 8), &a, &b, &c);
        entmax15_3(&a, &b, &c, vs);
        sx_interleave3(a, b, c, &v0, &v1, &v2);
        vstore(o, v0);
        vstore(o + 4, v1);
        vstore(o + 8, v2);
    }
    if (r < rows) {
        float buf[12] = { 0 };
        int k = 3 * (rows - r);
        memcpy(buf, x + 3 * r, (size_t)k * sizeof(float));
        v128 a, b, c, v0, v1, v2;
        sx_deinterleave3(vload(buf), vload(buf + 4), vload(buf + 8), &a, &b, &c);
        entmax15_3(&a, &b, &c, vs);
        sx_interleave3(a, b, c, &v0, &v1, &v2);
        vstore(buf, v0);
        vstore(buf + 4, v1);
        vstore(buf + 8, v2);
        memcpy(out + 3 * r, buf, (size_t)k * sizeof(float));
    }
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

static int check_backward(const float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = check_map(dx, x, rows, n, temperature);
    if (!st && rows > 0 && !dy) st = sx__fail(SX_EINVAL, -1, "null buffer");
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

/* dx = (s g - (sum s g / sum s) s) / T with s = sqrt(p) = [z - tau]_+. */
int sx_entmax15_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = check_backward(dx, x, dy, rows, n, temperature);
    if (!st) st = check_scores2(x, dy, rows, n);
    if (st) return st;
    const float invt = sx_inv_temperature(temperature);
    for (int r = 0; r < rows; r++) {
        float *d = dx + (size_t)r * n;
        const float *g = dy + (size_t)r * n;
        entmax15_row(d, x + (size_t)r * n, n, 0.5f * invt, 0); /* s, in dx */
        v128 a0 = vsplat(0.0f), a1 = a0;
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            v128 sv = vload(d + i);
            a0 = vadd(a0, sv);
            a1 = vadd(a1, vmul(sv, vload(g + i)));
        }
        float ssum = sx_hsum(a0), sg = sx_hsum(a1);
        for (; i < n; i++) { ssum += d[i]; sg += d[i] * g[i]; }
        if (!(ssum > 0.0f)) continue; /* all masked: zeros already */
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
    double m, t, am1, q;
} erow;

static double erow_X(const erow *e, int i) { return e->am1 * (((double)e->x[i] - e->m) / e->t); }

/* f(tau) = sum p - 1 and f'(tau) over the candidates X[0..k) */
static void erow_eval(const double *X, int k, double q, double tau, double *f, double *df) {
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

/* Keep the candidates that can still be in the support (X > lo: tau never goes below lo). */
static int erow_compact(double *X, int k, double lo) {
    int j = 0;
    for (int i = 0; i < k; i++) {
        X[j] = X[i];
        j += X[i] > lo;
    }
    return j;
}

/* Safeguarded Newton (rtsafe) on the bracket [-1, -(1/n)^(alpha-1)], over a shrinking candidate
   set in one scratch allocation per row (without it: plain bisection, correct but slower). */
static double erow_tau(const erow *e) {
    double lo = -1.0, hi = -pow(1.0 / e->n, e->am1);
    double *X = malloc(sizeof(double) * (size_t)e->n);
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
    int k = 0;
    for (int i = 0; i < e->n; i++) {
        X[k] = erow_X(e, i);
        k += X[k] > lo;
    }
    double tau = lo, f, df;
    double dx = hi - lo, dxold = dx;
    erow_eval(X, k, e->q, tau, &f, &df);
    for (int it = 0; it < 300 && f != 0.0; it++) {
        if (f > 0.0) {
            lo = tau;
            k = erow_compact(X, k, lo);
        } else hi = tau;
        double prev = tau;
        double cand = df < 0.0 ? tau - f / df : hi + 1.0;
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
    free(X);
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
    return e->m != -INFINITY;
}

/* p of one row, float output; tau and mass returned for reuse. Falls back to the uniform
   distribution on the argmax ties if the mass underflows (huge alpha). */
static void entmax_bisect_row(float *p, const float *x, int n, float alpha, float temperature) {
    erow e;
    if (!erow_init(&e, x, n, alpha, temperature)) {
        memset(p, 0, (size_t)n * sizeof(float));
        return;
    }
    const double tau = erow_tau(&e);
    /* one pow per support entry: unnormalised values (the largest is >= 1/n, since
       tau <= -(1/n)^(alpha-1)), then scaled */
    double mass = 0.0;
    for (int i = 0; i < n; i++) {
        double u = erow_X(&e, i) - tau, v = u > 0.0 ? pow(u, e.q) : 0.0;
        mass += v;
        p[i] = (float)v;
    }
    if (!(mass > 0.0) || mass == INFINITY) {
        int k = 0;
        for (int i = 0; i < n; i++) k += x[i] == (float)e.m;
        for (int i = 0; i < n; i++) p[i] = x[i] == (float)e.m ? 1.0f / (float)k : 0.0f;
        return;
    }
    const float inv = (float)(1.0 / mass);
    for (int i = 0; i < n; i++) p[i] *= inv;
}

int sx_entmax(float *out, const float *x, int rows, int n, float alpha, float temperature) {
    int st = check_map(out, x, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (st) return st;
    if (alpha == 1.0f) return sx_softmax(out, x, rows, n, temperature);
    if (alpha == 1.5f) return sx_entmax15(out, x, rows, n, temperature);
    if (alpha == 2.0f) return sx_sparsemax(out, x, rows, n, temperature);
    st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    for (int r = 0; r < rows; r++) entmax_bisect_row(out + (size_t)r * n, x + (size_t)r * n, n, alpha, temperature);
    return SX_OK;
}

/* General alpha: s = p^(2 - alpha) in double (clamped so that alpha > 2 and tiny p give huge
   but finite weights), dx = s (g - sum s g / sum s) / T. */
int sx_entmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float alpha,
                       float temperature) {
    int st = check_backward(dx, x, dy, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (st) return st;
    if (alpha == 1.0f) return sx_softmax_backward(dx, x, dy, rows, n, temperature);
    if (alpha == 1.5f) return sx_entmax15_backward(dx, x, dy, rows, n, temperature);
    if (alpha == 2.0f) return sx_sparsemax_backward(dx, x, dy, rows, n, temperature);
    st = check_scores2(x, dy, rows, n);
    if (st) return st;
    const double e2 = 2.0 - (double)alpha, invt = 1.0 / (double)temperature;
    for (int r = 0; r < rows; r++) {
        float *d = dx + (size_t)r * n;
        const float *g = dy + (size_t)r * n;
        entmax_bisect_row(d, x + (size_t)r * n, n, alpha, temperature);
        double ls_max = -INFINITY;
        for (int i = 0; i < n; i++)
            if (d[i] > 0.0f) {
                double ls = e2 * log((double)d[i]);
                if (ls > ls_max) ls_max = ls;
            }
        if (ls_max == -INFINITY) continue; /* all masked: zeros already */
        /* weights relative to the largest (the mean is scale free), then the true scale */
        double ssum = 0.0, sg = 0.0;
        for (int i = 0; i < n; i++)
            if (d[i] > 0.0f) {
                double w = exp(e2 * log((double)d[i]) - ls_max);
                ssum += w;
                sg += w * g[i];
            }
        const double mean = sg / ssum;
        for (int i = 0; i < n; i++) {
            if (!(d[i] > 0.0f)) { d[i] = 0.0f; continue; }
            double ls = e2 * log((double)d[i]);
            double v = exp(ls < 700.0 ? ls : 700.0) * ((double)g[i] - mean) * invt;
            d[i] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
        }
    }
    return SX_OK;
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
    const double tau = erow_tau(&e);
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
    int st = check_backward(dalpha, x, dy, rows, n, temperature);
    if (!st) st = check_alpha(alpha);
    if (!st) st = check_scores2(x, dy, rows, n);
    if (st) return st;
    for (int r = 0; r < rows; r++) {
        double v = alpha_grad_row(x + (size_t)r * n, dy + (size_t)r * n, n, alpha, temperature);
        dalpha[r] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
    }
    return SX_OK;
}
