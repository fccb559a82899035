/* softmax.c - softmax: p = exp(z - max z) / sum, z = x / T.

   Three SIMD sweeps per row: max (pmax), exp and sum (XNNPACK-style exp, 16 wide, a copy without
   the 1/T multiply for T = 1), scale.
   The max is subtracted before dividing by T, so T = 1e-6 cannot overflow; -Infinity entries
   give exactly 0 through the exp cutoff mask. For n = 3, four rows at a time. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "simd.h"

/* --------------------------------------------------------------- one row */
/* p = exp((x - m) * s) (no multiply when `scaled` is 0: s = 1), returns the sum. 16 wide with
   two accumulators: with four, the exp's constants and the accumulators overflow the 16 xmm
   registers and V8 spills (5% slower); the unscaled copy for T = 1 saves a multiply a vector. */
SX_INLINE float exp_sum(float *p, const float *x, int n, float m, float s, int scaled) {
    const v128 vm = vsplat(m), vs = vsplat(s);
#define SX_ARG(v) (scaled ? vmul(vsub((v), vm), vs) : vsub((v), vm))
    v128 a0 = vsplat(0.0f), a1 = a0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        v128 e0 = sx_exp_nonpos(SX_ARG(vload(x + i)));
        v128 e1 = sx_exp_nonpos(SX_ARG(vload(x + i + 4)));
        v128 e2 = sx_exp_nonpos(SX_ARG(vload(x + i + 8)));
        v128 e3 = sx_exp_nonpos(SX_ARG(vload(x + i + 12)));
        vstore(p + i, e0);
        vstore(p + i + 4, e1);
        vstore(p + i + 8, e2);
        vstore(p + i + 12, e3);
        a0 = vadd(a0, vadd(e0, e2));
        a1 = vadd(a1, vadd(e1, e3));
    }
    for (; i + 4 <= n; i += 4) {
        v128 e = sx_exp_nonpos(SX_ARG(vload(x + i)));
        vstore(p + i, e);
        a0 = vadd(a0, e);
    }
    if (i < n) {
        v128 e = sx_exp_nonpos(SX_ARG(sx_load_tail(x + i, n - i, -INFINITY)));
        sx_store_tail(p + i, e, n - i);
        a1 = vadd(a1, e);
    }
#undef SX_ARG
    return sx_hsum(vadd(a0, a1));
}

/* p = softmax((x - max x) * s). Returns the sum of the exps (0 for an all -Infinity row). */
static float softmax_row(float *p, const float *x, int n, float s) {
    const float m = sx__row_max(x, n);
    if (m == -INFINITY) {
        memset(p, 0, (size_t)n * sizeof(float));
        return 0.0f;
    }
    /* >= 1: the max gives exp(0) */
    const float sum = s == 1.0f ? exp_sum(p, x, n, m, 1.0f, 0) : exp_sum(p, x, n, m, s, 1);
    int i;
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
SX_INLINE void softmax3(v128 *a, v128 *b, v128 *c, v128 vs, int scaled) {
    v128 m = vmax(*a, vmax(*b, *c));
    v128 dead = veq(m, vsplat(-INFINITY)); /* all-masked rows: zeros (a - m is NaN there) */
    v128 ea = sx_exp_nonpos(scaled ? vmul(vsub(*a, m), vs) : vsub(*a, m));
    v128 eb = sx_exp_nonpos(scaled ? vmul(vsub(*b, m), vs) : vsub(*b, m));
    v128 ec = sx_exp_nonpos(scaled ? vmul(vsub(*c, m), vs) : vsub(*c, m));
    v128 inv = vdiv(vsplat(1.0f), vadd(vadd(ea, eb), ec));
    *a = vandnot(vmul(ea, inv), dead);
    *b = vandnot(vmul(eb, inv), dead);
    *c = vandnot(vmul(ec, inv), dead);
}

SX_INLINE void softmax_rows3_k(float *out, const float *x, int rows, float s, int scaled) {
    const v128 vs = vsplat(s);
    SX_ROWS3(out, x, rows, softmax3(&a, &b, &c, vs, scaled));
}

static void softmax_rows3(float *out, const float *x, int rows, float s) {
    if (s == 1.0f) softmax_rows3_k(out, x, rows, 1.0f, 0);
    else softmax_rows3_k(out, x, rows, s, 1);
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
    int st = sx__check_grad_dims(dx, x, dy, rows, n);
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
