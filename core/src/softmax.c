/* softmax.c - softmax: p = exp(z - max z) / sum, z = x / T.

   Three SIMD sweeps per row: max (pmax), exp and sum (XNNPACK-style exp, 16 wide), scale.
   The max is subtracted before dividing by T, so T = 1e-6 cannot overflow; -Infinity entries
   give exactly 0 through the exp cutoff mask. For n = 3, four rows at a time. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

/* --------------------------------------------------------------- one row */
/* p = softmax((x - max x) * s). Returns the sum of the exps (0 for an all -Infinity row). */
static float softmax_row(float *p, const float *x, int n, float s) {
    const float m = sx__row_max(x, n);
    if (m == -INFINITY) {
        memset(p, 0, (size_t)n * sizeof(float));
        return 0.0f;
    }
    const v128 vm = vsplat(m), vs = vsplat(s);
    v128 a0 = vsplat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        v128 e0 = sx_exp_nonpos(vmul(vsub(vload(x + i), vm), vs));
        v128 e1 = sx_exp_nonpos(vmul(vsub(vload(x + i + 4), vm), vs));
        v128 e2 = sx_exp_nonpos(vmul(vsub(vload(x + i + 8), vm), vs));
        v128 e3 = sx_exp_nonpos(vmul(vsub(vload(x + i + 12), vm), vs));
        vstore(p + i, e0);
        vstore(p + i + 4, e1);
        vstore(p + i + 8, e2);
        vstore(p + i + 12, e3);
        a0 = vadd(a0, e0);
        a1 = vadd(a1, e1);
        a2 = vadd(a2, e2);
        a3 = vadd(a3, e3);
    }
    for (; i + 4 <= n; i += 4) {
        v128 e = sx_exp_nonpos(vmul(vsub(vload(x + i), vm), vs));
        vstore(p + i, e);
        a0 = vadd(a0, e);
    }
    if (i < n) {
        v128 e = sx_exp_nonpos(vmul(vsub(sx_load_tail(x + i, n - i, -INFINITY), vm), vs));
        sx_store_tail(p + i, e, n - i);
        a1 = vadd(a1, e);
    }
    const float sum = sx_hsum(vadd(vadd(a0, a1), vadd(a2, a3))); /* >= 1: the max gives exp(0) */
    const v128 inv = vsplat(1.0f / sum);
    for (i = 0; i + 16 <= n; i += 16) {
        vstore(p + i, vmul(vload(p + i), inv));
        vstore(p + i + 4, vmul(vload(p + i + 4), inv));
        vstore(p + i + 8, vmul(vload(p + i + 8), inv));
        vstore(p + i + 12, vmul(vload(p + i + 12), inv));
    }
    for (; i + 4 <= n; i += 4) vstore(p + i, vmul(vload(p + i), inv));
    for (; i < n; i++) p[i] *= 1.0f / sum;
    return sum;
}

/* ------------------------------------------------------- n = 3, 4 rows at once */
SX_INLINE void softmax3(v128 *a, v128 *b, v128 *c, v128 vs) {
    v128 m = vmax(*a, vmax(*b, *c));
    v128 dead = veq(m, vsplat(-INFINITY)); /* all-masked rows: zeros (a - m is NaN there) */
    v128 ea = sx_exp_nonpos(vmul(vsub(*a, m), vs));
    v128 eb = sx_exp_nonpos(vmul(vsub(*b, m), vs));
    v128 ec = sx_exp_nonpos(vmul(vsub(*c, m), vs));
    v128 inv = vdiv(vsplat(1.0f), vadd(vadd(ea, eb), ec));
    *a = vandnot(vmul(ea, inv), dead);
    *b = vandnot(vmul(eb, inv), dead);
    *c = vandnot(vmul(ec, inv), dead);
}

static void softmax_rows3(float *out, const float *x, int rows, float s) {
    const v128 vs = vsplat(s);
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *xr = x + 3 * r;
        float *o = out + 3 * r;
        v128 a, b, c, v0, v1, v2;
        sx_deinterleave3(vload(xr), vload(xr + 4), vload(xr + 8), &a, &b, &c);
        softmax3(&a, &b, &c, vs);
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
        softmax3(&a, &b, &c, vs);
        sx_interleave3(a, b, c, &v0, &v1, &v2);
        vstore(buf, v0);
        vstore(buf + 4, v1);
        vstore(buf + 8, v2);
        memcpy(out + 3 * r, buf, (size_t)k * sizeof(float));
    }
}

/* ------------------------------------------------------------------ forward */
int sx_softmax(float *out, const float *x, int rows, int n, float temperature) {
    int st = sx__check_dims(out, x, rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (st) return st;
    float s = sx_inv_temperature(temperature);
    if (n == 3) {
        softmax_rows3(out, x, rows, s);
        return SX_OK;
    }
    for (int r = 0; r < rows; r++) softmax_row(out + (size_t)r * n, x + (size_t)r * n, n, s);
    return SX_OK;
}

/* ----------------------------------------------------------------- backward */
/* dx = s * p * (g - <g, p>), p computed into dx first. */
int sx_softmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature) {
    int st = sx__check_dims(dx, x, rows, n);
    if (!st && rows > 0 && !dy) st = sx__fail(SX_EINVAL, -1, "null buffer");
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = SX_CHECK_SCORES(x, (size_t)rows * (size_t)n, "x", 1);
    if (!st) st = SX_CHECK_SCORES(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    const float s = sx_inv_temperature(temperature);
    for (int r = 0; r < rows; r++) {
        float *p = dx + (size_t)r * n;
        const float *g = dy + (size_t)r * n;
        if (softmax_row(p, x + (size_t)r * n, n, s) == 0.0f) continue; /* all masked: zeros */
        v128 a0 = vsplat(0.0f), a1 = a0;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            a0 = vadd(a0, vmul(vload(p + i), vload(g + i)));
            a1 = vadd(a1, vmul(vload(p + i + 4), vload(g + i + 4)));
        }
        float dot = sx_hsum(vadd(a0, a1));
        for (; i < n; i++) dot += p[i] * g[i];
        const v128 vdot = vsplat(dot), vs = vsplat(s);
        for (i = 0; i + 4 <= n; i += 4)
            vstore(p + i, vmul(vmul(vload(p + i), vsub(vload(g + i), vdot)), vs));
        for (; i < n; i++) p[i] = p[i] * (g[i] - dot) * s;
    }
    return SX_OK;
}
