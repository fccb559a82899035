/* attention.c - multi-head scaled dot-product attention with a mapping per head (softmax,
   sparsemax, 1.5-entmax, alpha-entmax fixed or learned, fusedmax, oscarmax), causal and padding masks,
   adaptive attention span, and Nadaraya-Watson attention pooling.

   Per (batch element, head), the forward pass is three steps over a (Tq, Tk) map:
     1. scores: s = q k^T / sqrt(hs), computed by the matmul kernel in tiles of query rows,
        each tile only over the key range some row of it can see (causal, padding, span), so
        masked keys cost nothing; everything outside a row's window is set to -INFINITY;
     2. the mapping: one call of the public function on the whole (Tq, Tk) map (masked
        entries come out as exact zeros), or, with causal or span masks and Tk >= 64, one call
        per row on its window only (the masked keys are skipped here too);
     3. with adaptive span: att = p m / sum(p m), m the soft span mask; then out = att v, in
        the same tiles.
   The backward pass mirrors it; the mapping backward passes work from the saved mapping
   output p (fusedmax, oscarmax: from the saved scores), again per window.
   sx_nn_attention_row_forward runs the same three steps for one query row per batch element
   over a KV cache (model.c's incremental decoding).
   Adaptive span (Sukhbaatar et al. 2019) follows SCIENCE.md; see nn.h for the exact
   definition used here (the mapping sees the keys inside span + ramp only). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "simd.h"

/* ------------------------------------------------------------------ mappings */
float sx_nn_alpha_of(float a) { return 1.0f + 1.0f / (1.0f + expf(-a)); }

static float alpha_slope(float a) { /* d alpha / d a = sigmoid(a) (1 - sigmoid(a)) */
    const float s = 1.0f / (1.0f + expf(-a));
    return s * (1.0f - s);
}

int sx_nn_map_forward(float *p, const float *x, int rows, int n, int kind, float param) {
    switch (kind) {
    case SX_NN_SOFTMAX: return sx_softmax(p, x, rows, n, 1.0f);
    case SX_NN_SPARSEMAX: return sx_sparsemax(p, x, rows, n, 1.0f);
    case SX_NN_ENTMAX15: return sx_entmax15(p, x, rows, n, 1.0f);
    case SX_NN_ENTMAX:
    case SX_NN_ENTMAX_LEARNED: return sx_entmax(p, x, rows, n, param, 1.0f);
    case SX_NN_FUSEDMAX: return sx_fusedmax(p, x, rows, n, param, 1.0f);
    case SX_NN_OSCARMAX: return sx_oscarmax(p, x, rows, n, param, 1.0f);
    default: return sx__fail(SX_EINVAL, -1, "unknown attention mapping %d", kind);
    }
}

/* The second sweep of the backward passes from p below, dx = s (g - mean) with the weights s
   in dx (overwritten), in double: for a row with |g| > 2^126, where the float difference
   g - mean can overflow (then 0 * Infinity = NaN at the entries with s = 0, and +-Infinity on
   the support where the true value fits float). g is taken relative to one support entry's
   (exact in double), so g equal on the support gives exactly 0; entries with s = 0 get exactly
   0; the result is clamped to +-FLT_MAX, as sx__entmax_alpha_backward_row does. Rows with smaller g
   never come here: their arithmetic is the float sweep's, bit for bit. */
static void backward_p_row_double(float *dx, const float *g, int n) {
    int ref = 0;
    while (ref < n && !(dx[ref] > 0.0f)) ref++;
    if (ref == n) {
        memset(dx, 0, sizeof(float) * (size_t)n);
        return;
    }
    const double g0 = g[ref];
    double ssum = 0.0, sg = 0.0;
    for (int i = 0; i < n; i++)
        if (dx[i] > 0.0f) {
            ssum += dx[i];
            sg += (double)dx[i] * ((double)g[i] - g0);
        }
    const double mean = sg / ssum; /* relative to g0 */
    for (int i = 0; i < n; i++) {
        if (!(dx[i] > 0.0f)) { dx[i] = 0.0f; continue; }
        const double v = (double)dx[i] * (((double)g[i] - g0) - mean);
        dx[i] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
    }
}

/* Backward of softmax / sparsemax / alpha-entmax from the output p of one row (the cheap path:
   no recomputation of the forward). s_i = p_i^(2 - alpha) on the support (p itself for
   softmax, 1 for sparsemax, sqrt p for 1.5); dx = s g - (sum s g / sum s) s, in float, or in
   backward_p_row_double when some |g| > 2^126 (|g - mean| then may exceed FLT_MAX). */
static void entmax_backward_p(float *dx, const float *p, const float *g, int n, int kind,
                              float alpha, double *ls) {
    if (kind != SX_NN_SOFTMAX && kind != SX_NN_SPARSEMAX && kind != SX_NN_ENTMAX15 &&
        alpha != 1.0f && alpha != 2.0f) {
        sx__entmax_alpha_backward_row(dx, p, g, n, 2.0 - (double)alpha, 1.0, ls);
        return;
    }
    double ssum = 0.0, sg = 0.0;
    float gmax = 0.0f;
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        if (p[i] > 0.0f) {
            switch (kind) {
            case SX_NN_SOFTMAX: s = p[i]; break;
            case SX_NN_SPARSEMAX: s = 1.0f; break;
            case SX_NN_ENTMAX15: s = sqrtf(p[i]); break;
            default: s = alpha == 1.0f ? p[i] : 1.0f; /* alpha 2: sparsemax */
            }
        }
        dx[i] = s; /* s kept in dx until the second sweep */
        ssum += s;
        sg += (double)s * g[i];
        gmax = fmaxf(gmax, fabsf(g[i]));
    }
    if (gmax > 0x1p126f) {
        backward_p_row_double(dx, g, n);
        return;
    }
    const float c = ssum > 0.0 ? (float)(sg / ssum) : 0.0f;
    for (int i = 0; i < n; i++) dx[i] = dx[i] * (g[i] - c);
}

/* Learned-alpha entmax backward from the output p of one row, in one transcendental sweep:
   dx (as entmax_backward_p) and returns d <g, entmax(x; alpha)> / d alpha (Correia et al.
   2019, the SCIENCE.md formula) in double. With eps = alpha - 1, L = log p on the support,
   ent = sum p L, a_i = expm1(-eps L_i) (so s_i = p_i^(2 - alpha) = p_i (1 + a_i), exactly
   the backward's weights), A = sum p a, t = p (1 + a) / (1 + A), p - t = p (A - a) / (1 + A):
     d alpha = sum g [ (p - t) / eps^2 - (p L - t ent) / eps ]
             = (A Sgp - Sgpa) / ((1 + A) eps^2) - Sgpl / eps + ent (Sgp + Sgpa) / ((1 + A) eps)
   with Sgp = sum g p, Sgpa = sum g p a, Sgpl = sum g p L: all sums of one sweep. The two
   1/eps terms cancel as alpha -> 1 (double keeps ~12 digits down to eps = 1e-4); below
   eps = 1e-4 the limit sum g p (E_p[L^2] - L^2) / 2 is used. p is renormalised in double
   first (the formula assumes sum p = 1). */
static double entmax_learned_backward_p(float *dx, const float *p, const float *g, int n,
                                        float alpha) {
    double sum = 0.0;
    float gmax = 0.0f;
    int i = 0;
#if !SX_SCALAR_WASM
    { /* sum p in double and max |g|, four at a time (p >= 0: no mask needed) */
        v128d s0 = dsplat(0.0), s1 = s0;
        v128 gm = vsplat(0.0f);
        const v128 sign = vsplat(-0.0f);
        for (; i + 4 <= n; i += 4) {
            const v128 pv = vload(p + i);
            s0 = dadd(s0, simde_wasm_f64x2_promote_low_f32x4(pv));
            s1 = dadd(s1, simde_wasm_f64x2_promote_low_f32x4(simde_wasm_i32x4_shuffle(pv, pv, 2, 3, 0, 1)));
            gm = vmax(gm, vandnot(vload(g + i), sign));
        }
        sum = dlane(dadd(s0, s1), 0) + dlane(dadd(s0, s1), 1);
        gmax = sx_hmax(gm);
    }
#endif
    for (; i < n; i++) {
        sum += p[i] > 0.0f ? p[i] : 0.0f;
        const float a = fabsf(g[i]);
        gmax = a > gmax ? a : gmax;
    }
    if (!(sum > 0.0)) {
        if (dx) memset(dx, 0, (size_t)n * sizeof(float));
        return 0.0;
    }
    const double inv = 1.0 / sum, eps = (double)alpha - 1.0;
    double ent = 0.0, m2 = 0.0, A = 0.0, sgp = 0.0, sgpa = 0.0, sgpl = 0.0, sgpll = 0.0;
    double ssum = 0.0, sg = 0.0;
    i = 0;
#if !SX_SCALAR_WASM
    /* two entries at a time, log and expm1 by simd.h's double kernels: -eps L <= 103.3 eps (p
       is a float >= 2^-149 and sum p ~ 1), within their range for eps <= 6 (learned alphas
       are below 2; a larger alpha takes libm below) */
    if (eps <= 6.0) {
        const v128d vinv = dsplat(inv), veps = dsplat(-eps), zero = dsplat(0.0), one = dsplat(1.0);
        v128d vent = zero, vm2 = zero, vA = zero, vsgp = zero, vsgpa = zero, vsgpl = zero;
        v128d vsgpll = zero, vssum = zero, vsg = zero;
        /* in chunks of up to 32 pairs, the logs of a chunk first, then its expm1 and sums: each
           loop's iterations are independent and short, so the processor overlaps them (one
           loop of both chains, log then expm1, waited on their latency) */
        v128d lc[32];
        unsigned char lv[32];
        for (int i0 = 0; i0 < n; i0 += 64) {
            const int i1 = n - i0 < 64 ? n : i0 + 64;
            for (int j = 0; i0 + 2 * j < i1; j++) {
                const int k = i0 + 2 * j, two = k + 2 <= n; /* else the last entry, a zero second lane */
                const v128d pi = dmul(two ? dload_f(p + k) : simde_wasm_f64x2_make(p[k], 0.0), vinv);
                const v128d live = simde_wasm_f64x2_gt(pi, zero);
                lv[j] = (unsigned char)simde_wasm_v128_any_true(live);
                if (lv[j]) lc[j] = vand(sx_dlog(simde_wasm_f64x2_pmax(pi, dsplat(0x1p-1022))), live);
            }
            for (int j = 0; i0 + 2 * j < i1; j++) {
                const int k = i0 + 2 * j, two = k + 2 <= n;
                if (!lv[j]) {
                    if (dx) {
                        dx[k] = 0.0f;
                        if (two) dx[k + 1] = 0.0f;
                    }
                    continue;
                }
                const v128d pi = dmul(two ? dload_f(p + k) : simde_wasm_f64x2_make(p[k], 0.0), vinv);
                const v128d gi = two ? dload_f(g + k) : simde_wasm_f64x2_make(g[k], 0.0);
                const v128d l = lc[j];
                const v128d a = sx_dexpm1(dmul(veps, l)), gp = dmul(gi, pi), pl = dmul(pi, l);
                const v128d si = dmul(pi, dadd(one, a)); /* p^(2 - alpha); 0 off the support */
                vent = dadd(vent, pl);
                vA = dadd(vA, dmul(pi, a));
                vsgp = dadd(vsgp, gp);
                vsgpa = dadd(vsgpa, dmul(gp, a));
                vsgpl = dadd(vsgpl, dmul(gp, l));
                if (eps < 1e-4) { /* the limit's sums (below) */
                    vm2 = dadd(vm2, dmul(pl, l));
                    vsgpll = dadd(vsgpll, dmul(dmul(gp, l), l));
                }
                vssum = dadd(vssum, si);
                vsg = dadd(vsg, dmul(si, gi));
                if (dx && two) dstore_f(dx + k, si); /* s kept in dx until the second sweep */
                else if (dx) dx[k] = (float)dlane(si, 0);
            }
        }
        i = n;
#define SX_HSUM2(v) (dlane(v, 0) + dlane(v, 1))
        ent = SX_HSUM2(vent), m2 = SX_HSUM2(vm2), A = SX_HSUM2(vA), sgp = SX_HSUM2(vsgp);
        sgpa = SX_HSUM2(vsgpa), sgpl = SX_HSUM2(vsgpl), sgpll = SX_HSUM2(vsgpll);
        ssum = SX_HSUM2(vssum), sg = SX_HSUM2(vsg);
#undef SX_HSUM2
    }
#endif
    for (; i < n; i++) {
        if (!(p[i] > 0.0f)) {
            if (dx) dx[i] = 0.0f;
            continue;
        }
        const double pi = p[i] * inv, l = log(pi), a = expm1(-eps * l), gp = g[i] * pi;
        const double si = pi * (1.0 + a); /* p^(2 - alpha) */
        ent += pi * l;
        m2 += pi * l * l;
        A += pi * a;
        sgp += gp;
        sgpa += gp * a;
        sgpl += gp * l;
        sgpll += gp * l * l;
        ssum += si;
        sg += si * g[i];
        if (dx) dx[i] = (float)si; /* s kept in dx until the second sweep */
    }
    if (dx && gmax > 0x1p126f) backward_p_row_double(dx, g, n); /* as entmax_backward_p */
    else if (dx) {
        const float c = (float)(sg / ssum);
        int j = 0;
#if !SX_SCALAR_WASM
        const v128 vc = vsplat(c);
        for (; j + 4 <= n; j += 4) vstore(dx + j, vmul(vload(dx + j), vsub(vload(g + j), vc)));
#endif
        for (; j < n; j++) dx[j] = dx[j] * (g[j] - c);
    }
    if (eps < 1e-4) return 0.5 * (m2 * sgp - sgpll);
    return (A * sgp - sgpa) / ((1.0 + A) * eps * eps) - sgpl / eps +
           ent * (sgp + sgpa) / ((1.0 + A) * eps);
}

double sx_nn_entmax_alpha_grad_p(const float *p, const float *g, int n, float alpha) {
    return entmax_learned_backward_p(NULL, p, g, n, alpha);
}

int sx_nn_map_backward(float *dx, float *dalpha, const float *x, const float *p, const float *dy,
                       int rows, int n, int kind, float param) {
    if (p && kind != SX_NN_FUSEDMAX && kind != SX_NN_OSCARMAX && kind >= 0 && kind < SX_NN_MAP_COUNT) {
        if ((kind == SX_NN_ENTMAX || kind == SX_NN_ENTMAX_LEARNED) && !(param >= 1.0f))
            return sx__fail(SX_EINVAL, -1, "entmax: alpha must be >= 1 (got %g)", (double)param);
        /* the rows entmax_backward_p gives to sx__entmax_alpha_backward_row take n doubles */
        const int alpha_rows = (kind == SX_NN_ENTMAX || (kind == SX_NN_ENTMAX_LEARNED && !dalpha)) &&
                               param != 1.0f && param != 2.0f;
        double stack[SX_ENTMAX_BW_STACK], *ls = stack;
        if (alpha_rows && n > SX_ENTMAX_BW_STACK) {
            ls = (double *)malloc(sizeof(double) * (size_t)n);
            if (!ls) return sx__fail(SX_ENOMEM, -1, "attention backward: cannot allocate %d doubles", n);
        }
        double da = 0.0;
        for (int r = 0; r < rows; r++) {
            const float *p_r = p + (size_t)r * n, *g_r = dy + (size_t)r * n;
            if (kind == SX_NN_ENTMAX_LEARNED && dalpha)
                da += entmax_learned_backward_p(dx + (size_t)r * n, p_r, g_r, n, param);
            else
                entmax_backward_p(dx + (size_t)r * n, p_r, g_r, n, kind, param, ls);
        }
        if (ls != stack) free(ls);
        if (dalpha) *dalpha += (float)da;
        return SX_OK;
    }
    switch (kind) {
    case SX_NN_SOFTMAX: return sx_softmax_backward(dx, x, dy, rows, n, 1.0f);
    case SX_NN_SPARSEMAX: return sx_sparsemax_backward(dx, x, dy, rows, n, 1.0f);
    case SX_NN_ENTMAX15: return sx_entmax15_backward(dx, x, dy, rows, n, 1.0f);
    case SX_NN_ENTMAX_LEARNED:
        if (dalpha) {
            /* per-row alpha gradients into dx's first `rows` floats (rows <= rows * n), summed
               in double, before dx is overwritten by the backward pass proper */
            int st = sx_entmax_alpha_grad(dx, x, dy, rows, n, param, 1.0f);
            if (st != SX_OK) return st;
            double s = 0.0;
            for (int r = 0; r < rows; r++) s += dx[r];
            *dalpha += (float)s;
        }
        /* fall through */
    case SX_NN_ENTMAX: return sx_entmax_backward(dx, x, dy, rows, n, param, 1.0f);
    case SX_NN_FUSEDMAX: return sx_fusedmax_backward(dx, x, dy, rows, n, param, 1.0f);
    case SX_NN_OSCARMAX: return sx_oscarmax_backward(dx, x, dy, rows, n, param, 1.0f);
    default: return sx__fail(SX_EINVAL, -1, "unknown attention mapping %d", kind);
    }
}

/* The mapping parameter of head h: alpha for learned heads, cfg->param otherwise. */
static float head_param(const sx_nn_attn_cfg *cfg, const float *alpha_a, int h) {
    if (cfg->kind[h] == SX_NN_ENTMAX_LEARNED) return sx_nn_alpha_of(alpha_a ? alpha_a[h] : 0.0f);
    return cfg->param ? cfg->param[h] : 0.0f;
}

/* ------------------------------------------------------------ adaptive span */
/* (R + zL - x) / R before clamping, in double with the distance subtracted first: in float, R
   added to a large zL first lost ~1e-5 relative near the ramp at distances of a few hundred.
   zL itself is the float product (the model's span is defined by it, and sx_span_mask's z, with
   L = 1, is the same float), so the public mask and the model's stay equal bit for bit; rounded
   once, the mask is float32's nearest value of the exact one. */
static double span_ramp(float x, float z, float span_max, float ramp) {
    return (((double)(z * span_max) - (double)x) + (double)ramp) / (double)ramp;
}

float sx_nn_span_mask(float x, float z, int span_max, float ramp) {
    const double m = span_ramp(x, z, (float)span_max, ramp);
    return m < 0.0 ? 0.0f : m > 1.0 ? 1.0f : (float)m;
}

float sx_nn_span_penalty(float *dz, const float *z, int n_head, float coef) {
    double s = 0.0;
    for (int h = 0; h < n_head; h++) {
        s += z[h];
        if (dz) dz[h] += coef;
    }
    return (float)(coef * s);
}

void sx_nn_span_clamp(float *z, int n_head) {
    for (int h = 0; h < n_head; h++) z[h] = z[h] < 0.0f ? 0.0f : z[h] > 1.0f ? 1.0f : z[h];
}

/* The window of keys a row may see, [lo, hi), and the span of one head. */
typedef struct {
    int causal, klen, span; /* span: 1 when the adaptive span is on */
    int xmax;               /* span: the largest distance with m > 0 */
    float z, L, R;
} window;

static window make_window(const sx_nn_attn_cfg *cfg, const float *span_z, const int *k_len, int b,
                          int h, int Tk) {
    window w;
    w.causal = cfg->causal;
    w.klen = k_len ? k_len[b] : Tk;
    if (w.klen > Tk) w.klen = Tk;
    if (w.klen < 0) w.klen = 0;
    w.span = cfg->span_max > 0;
    w.z = 0.0f;
    w.L = (float)cfg->span_max;
    w.R = cfg->span_ramp;
    w.xmax = Tk;
    if (w.span) {
        float z = span_z[h];
        w.z = z < 0.0f ? 0.0f : z > 1.0f ? 1.0f : z;
        /* m(x) > 0 for x < R + z L; find the last integer distance with m > 0 exactly as the
           mask computes it, so the window and the mask agree to the last bit */
        int x = (int)ceilf(w.R + w.z * w.L) - 1;
        if (x < 0) x = 0;
        while (sx_nn_span_mask((float)(x + 1), w.z, cfg->span_max, w.R) > 0.0f) x++;
        while (x > 0 && !(sx_nn_span_mask((float)x, w.z, cfg->span_max, w.R) > 0.0f)) x--;
        w.xmax = x; /* m(0) >= 1 since z >= 0: distance 0 is always inside */
    }
    return w;
}

static int row_lo(const window *w, int i, int Tk) {
    if (!w->span) return 0;
    const int lo = i - w->xmax > 0 ? i - w->xmax : 0;
    return lo < Tk ? lo : Tk; /* Tq > Tk + span: the window is empty, lo stays in the row */
}
static int row_hi(const window *w, int i) {
    int hi = w->klen;
    if (w->causal && i + 1 < hi) hi = i + 1;
    if (w->span && !w->causal && i + w->xmax + 1 < hi) hi = i + w->xmax + 1;
    return hi;
}
static float row_mask(const window *w, int i, int j) {
    const int x = i >= j ? i - j : j - i;
    return sx_nn_span_mask((float)x, w->z, (int)w->L, w->R);
}

/* a_i[0 .. n) = row i of the span-masked weights: p_i times the mask over the window, renormalised
   (zeros elsewhere; a row whose masked weights sum to 0 stays 0). */
static void span_row(float *a_i, const float *p_i, size_t n, const window *w, int i, int Tk) {
    const int lo = row_lo(w, i, Tk), hi = row_hi(w, i);
    double sum = 0.0;
    memset(a_i, 0, n * sizeof(float));
    for (int j = lo; j < hi; j++) {
        a_i[j] = p_i[j] * row_mask(w, i, j);
        sum += a_i[j];
    }
    const float inv = sum > 0.0 ? (float)(1.0 / sum) : 0.0f;
    for (int j = lo; j < hi; j++) a_i[j] *= inv;
}

/* Query rows per tile: 64 (the key range shrinks with the tile under a window; a tile of
   scores and weights stays in cache through its passes; the per-tile pack of K stays small). */
#ifndef SX_ATTN_TILE
#define SX_ATTN_TILE 64
#endif
static int tile_rows(const window *w, int Tq) {
    (void)w;
    return SX_ATTN_TILE < Tq ? SX_ATTN_TILE : Tq;
}

/* Map row by row over each row's window (skipping the masked keys) or the whole map in one
   call (masked keys are -INFINITY and come out 0)? Per row pays a call per row (~100 ns of
   checks), so only when windows differ between rows and rows are long. */
static int per_row_windows(const window *w, int Tk) {
    return (w->causal || w->span) && Tk >= 64;
}

/* x[0 .. n) = -INFINITY (n may be <= 0: nothing). */
static void fill_ninf(float *x, int n) {
    int j = 0;
    const v128 ninf = vsplat(-INFINITY);
    for (; j + 4 <= n; j += 4) vstore(x + j, ninf);
    for (; j < n; j++) x[j] = -INFINITY;
}
/* The scores s[0, n) of query i over keys j0 ... j0 + n - 1 (k points at key j0) that came out
   of the float matmul as +-Infinity or NaN (q and k are finite: the dot product or one of its
   terms overflowed), recomputed in double, where no product of two floats or sum of a few
   overflows: a score that fits float is kept; one that does not is SX_ENONFINITE, naming key
   j0 + j. Never a silent -Infinity, which would mask the key (a row of them: all-zero weights
   off the simplex). Normal scores are never touched. Shared with tiled.c (nn.h). */
int sx_nn_rescore_scores(float *s, int n, int i, int j0, const float *q_i, const float *k,
                         int ldkv, int hs, float scale) {
    for (int j = 0; j < n; j++) {
        if (s[j] - s[j] == 0.0f) continue;
        const float *k_j = k + (size_t)j * ldkv;
        double d = 0.0;
        for (int c = 0; c < hs; c++) d += (double)q_i[c] * k_j[c];
        d *= scale;
        if (!(fabs(d) <= FLT_MAX))
            return sx__fail(SX_ENONFINITE, j0 + j, "attention: the score q.k / sqrt(hs) of query %d "
                            "and key %d overflows float (%g)", i, j0 + j, d);
        s[j] = (float)d;
    }
    return SX_OK;
}

/* ----------------------------------------------------------------- sizes */
size_t sx_nn_attention_map_size(const sx_nn_attn_cfg *cfg, int B, int Tq, int Tk) {
    return (size_t)B * cfg->n_head * Tq * Tk;
}

size_t sx_nn_attention_scratch_size(const sx_nn_attn_cfg *cfg, int Tq, int Tk) {
    (void)cfg;
    return 3 * (size_t)Tq * Tk + (size_t)Tq;
}

static int check_cfg(const sx_nn_attn_cfg *cfg, const float *alpha_a, const float *prob,
                     const float *span_z, int B, int Tq, int Tk) {
    if (!cfg || cfg->n_head < 1 || cfg->head_size < 1 || !cfg->kind)
        return sx__fail(SX_EINVAL, -1, "attention: bad config (n_head, head_size, kind)");
    if (B < 0 || Tq < 0 || Tk < 0)
        return sx__fail(SX_EINVAL, -1, "attention: sizes must be >= 0 (B %d, Tq %d, Tk %d)", B, Tq, Tk);
    if (cfg->span_max > 0 && !(cfg->span_ramp > 0.0f))
        return sx__fail(SX_EINVAL, -1, "attention: span ramp must be > 0 (got %g)",
                        (double)cfg->span_ramp);
    if (cfg->span_max > 0 && (!prob || !span_z))
        return sx__fail(SX_EINVAL, -1, "attention: adaptive span needs prob and span_z");
    for (int h = 0; h < cfg->n_head; h++) {
        const int kind = cfg->kind[h];
        if (kind < 0 || kind >= SX_NN_MAP_COUNT)
            return sx__fail(SX_EINVAL, h, "attention: head %d has unknown mapping %d", h, kind);
        if (kind == SX_NN_ENTMAX_LEARNED && !alpha_a)
            return sx__fail(SX_EINVAL, h, "attention: head %d learns alpha but alpha_a is NULL", h);
    }
    return SX_OK;
}

/* ------------------------------------------------------------------ edits */
/* Does an edit make row i of head h a constant (an ablated head or an edited row)? */
static int row_edited(const sx_nn_attn_edit *e, int h, int i) {
    if (!e) return 0;
    if (e->head_off && e->head_off[h]) return 1;
    for (int r = 0; r < e->n_rows; r++)
        if ((e->rows[r].head < 0 || e->rows[r].head == h) &&
            (e->rows[r].row < 0 || e->rows[r].row == i))
            return 1;
    return 0;
}

/* Apply the row edits of head h to row i (Tk weights) of its map, in the edits' order. */
static void edit_row(float *a_i, const sx_nn_attn_edit *e, const window *w, int h, int i, int Tk) {
    for (int r = 0; r < e->n_rows; r++) {
        const sx_nn_row_edit *re = &e->rows[r];
        if ((re->head >= 0 && re->head != h) || (re->row >= 0 && re->row != i)) continue;
        const int lo = row_lo(w, i, Tk), hi = row_hi(w, i);
        if (re->op == SX_NN_EDIT_REPLACE) {
            for (int j = 0; j < Tk; j++) a_i[j] = j >= lo && j < hi ? re->w[j] : 0.0f;
        } else {
            double sum = 0.0;
            for (int j = 0; j < Tk; j++) {
                if (re->w[j] != 0.0f) a_i[j] = 0.0f;
                sum += a_i[j];
            }
            const double inv = sum > 0.0 ? 1.0 / sum : 0.0;
            for (int j = 0; j < Tk; j++) a_i[j] = (float)(a_i[j] * inv);
        }
    }
}

/* Apply the after-mapping edits to rows [i0, i1) of the (Tq, Tk) weights of head h. */
static void apply_edits(float *a_bh, const sx_nn_attn_edit *e, const window *w, int h, int i0,
                        int i1, int Tk) {
    if (e->head_off && e->head_off[h]) {
        memset(a_bh + (size_t)i0 * Tk, 0, (size_t)(i1 - i0) * Tk * sizeof(float));
        return;
    }
    if (e->n_rows)
        for (int i = i0; i < i1; i++) edit_row(a_bh + (size_t)i * Tk, e, w, h, i, Tk);
}

/* ---------------------------------------------------------------- forward */
int sx_nn_attention_forward(float *out, float *score, float *prob, float *att, const float *q,
                            int ldq, const float *k, const float *v, int ldkv,
                            const float *alpha_a, const float *span_z, const int *k_len, int B,
                            int Tq, int Tk, const sx_nn_attn_cfg *cfg) {
    int st = check_cfg(cfg, alpha_a, prob, span_z, B, Tq, Tk);
    if (st != SX_OK) return st;
    const int NH = cfg->n_head, hs = cfg->head_size, C = NH * hs;
    const float scale = 1.0f / sqrtf((float)hs);
    const sx_nn_attn_edit *edit = cfg->edit;
    if (Tk == 0) {
        for (size_t i = 0; i < (size_t)B * Tq * C; i++) out[i] = 0.0f;
        return SX_OK;
    }
    for (int b = 0; b < B; b++) {
        for (int h = 0; h < NH; h++) {
            const float *q_bh = q + (size_t)b * Tq * ldq + h * hs;   /* (Tq, hs) stride ldq */
            const float *k_bh = k + (size_t)b * Tk * ldkv + h * hs;  /* (Tk, hs) stride ldkv */
            const float *v_bh = v + (size_t)b * Tk * ldkv + h * hs;  /* (Tk, hs) stride ldkv */
            float *out_bh = out + (size_t)b * Tq * C + h * hs;       /* (Tq, hs) stride C */
            const size_t off = ((size_t)b * NH + h) * Tq * Tk;
            float *s_bh = score + off;                               /* (Tq, Tk) */
            float *a_bh = att + off;                                 /* (Tq, Tk) */
            const window w = make_window(cfg, span_z, k_len, b, h, Tk);
            float *p_bh = w.span ? prob + off : a_bh;                /* mapping output */
            const int tq = tile_rows(&w, Tq);

            const float param = head_param(cfg, alpha_a, h);
            const int per_row = per_row_windows(&w, Tk);
            /* Tile by tile of query rows, each over the keys the tile can see: the scores, the
               mapping, the span mask, the edits and att v of one tile while its rows are in
               cache (a head's maps are MBs; a tile's fit L2). */
            for (int i0 = 0; i0 < Tq; i0 += tq) {
                const int i1 = i0 + tq < Tq ? i0 + tq : Tq;
                const int klo = row_lo(&w, i0, Tk), khi = row_hi(&w, i1 - 1);
                /* 1. scores, scaled (any that overflowed float are rescored in double) */
                const int fin = khi > klo ? sx_nn_scores(s_bh + (size_t)i0 * Tk + klo, Tk,
                                                         q_bh + (size_t)i0 * ldq, ldq,
                                                         k_bh + (size_t)klo * ldkv, ldkv, i1 - i0,
                                                         khi - klo, hs, scale)
                                          : 1;
                for (int i = i0; i < i1; i++) {
                    float *s_i = s_bh + (size_t)i * Tk;
                    const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
                    fill_ninf(s_i, lo);
                    if (!fin &&
                        (st = sx_nn_rescore_scores(s_i + lo, hi - lo, i, lo, q_bh + (size_t)i * ldq,
                                                   k_bh + (size_t)lo * ldkv, ldkv, hs,
                                                   scale)) != SX_OK)
                        return st;
                    if (hi > lo) fill_ninf(s_i + hi, Tk - hi);
                    else fill_ninf(s_i + lo, Tk - lo);
                    if (edit && edit->key_off)
                        for (int j = lo; j < hi; j++)
                            if (edit->key_off[j]) s_i[j] = -INFINITY;
                }
                /* 2. the mapping: the tile's rows in one call, or row by row over each window */
                if (!per_row) {
                    st = sx_nn_map_forward(p_bh + (size_t)i0 * Tk, s_bh + (size_t)i0 * Tk, i1 - i0,
                                           Tk, cfg->kind[h], param);
                    if (st != SX_OK) return st;
                } else {
                    for (int i = i0; i < i1; i++) {
                        const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
                        float *p_i = p_bh + (size_t)i * Tk;
                        if (hi <= lo) {
                            memset(p_i, 0, (size_t)Tk * sizeof(float));
                            continue;
                        }
                        memset(p_i, 0, (size_t)lo * sizeof(float));
                        memset(p_i + hi, 0, (size_t)(Tk - hi) * sizeof(float));
                        st = sx_nn_map_forward(p_i + lo, s_bh + (size_t)i * Tk + lo, 1, hi - lo,
                                               cfg->kind[h], param);
                        if (st != SX_OK) return st;
                    }
                }
                /* 3. span mask and renormalisation */
                if (w.span)
                    for (int i = i0; i < i1; i++)
                        span_row(a_bh + (size_t)i * Tk, p_bh + (size_t)i * Tk, Tk, &w, i, Tk);
                if (edit) apply_edits(a_bh, edit, &w, h, i0, i1, Tk);
                /* 4. out = att v over the tile's key range */
                sx_nn_matmul(out_bh + (size_t)i0 * C, C, a_bh + (size_t)i0 * Tk + klo, Tk, 0,
                             v_bh + (size_t)klo * ldkv, ldkv, 0, NULL, i1 - i0, hs,
                             khi > klo ? khi - klo : 0, 0);
            }
        }
    }
    return SX_OK;
}

/* ------------------------------------------------------- one query (KV cache) */
/* Row i of the maps sx_nn_attention_forward computes, for each of B batch elements, from a
   cache of Tk keys: the same steps on that row alone (scores over its window, the mapping on
   the row of Tk entries, or on its window when the full pass maps per window, the span mask,
   the edits, att v), so given the same q row and keys it gives the same bits as the row of a
   full pass with this Tk. Rows are written at (b NH + h) ld_map of score, prob, att (Tk
   entries, then -INFINITY / 0 up to n_map). */
int sx_nn_attention_row_forward(float *out, float *score, float *prob, float *att, size_t ld_map,
                                int n_map, const float *q, int ldq, const float *k,
                                const float *v, int ldkv, size_t kv_stride, const float *alpha_a,
                                const float *span_z, const int *k_len, int B, int i, int Tk,
                                const sx_nn_attn_cfg *cfg) {
    int st = check_cfg(cfg, alpha_a, prob, span_z, B, 1, Tk);
    if (st != SX_OK) return st;
    if (i < 0 || n_map < Tk)
        return sx__fail(SX_EINVAL, -1, "attention: row %d, map rows of %d < Tk %d", i, n_map, Tk);
    const int NH = cfg->n_head, hs = cfg->head_size, C = NH * hs;
    const float scale = 1.0f / sqrtf((float)hs);
    const sx_nn_attn_edit *edit = cfg->edit;
    for (int b = 0; b < B; b++) {
        for (int h = 0; h < NH; h++) {
            const float *q_bh = q + (size_t)b * ldq + h * hs;              /* (hs) */
            const float *k_bh = k + (size_t)b * kv_stride + h * hs;        /* (Tk, hs) stride ldkv */
            const float *v_bh = v + (size_t)b * kv_stride + h * hs;        /* (Tk, hs) stride ldkv */
            float *out_bh = out + (size_t)b * C + h * hs;                 /* (hs) */
            const size_t off = ((size_t)b * NH + h) * ld_map;
            float *s_i = score + off, *a_i = att + off;                   /* (n_map) */
            const window w = make_window(cfg, span_z, k_len, b, h, Tk);
            float *p_i = w.span ? prob + off : a_i;
            if (Tk == 0) {
                for (int c = 0; c < hs; c++) out_bh[c] = 0.0f;
                fill_ninf(s_i, n_map);
                memset(a_i, 0, (size_t)n_map * sizeof(float));
                if (w.span) memset(p_i, 0, (size_t)n_map * sizeof(float));
                continue;
            }
            const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
            /* 1. scores over the window */
            if (hi > lo)
                sx_nn_matmul(s_i + lo, Tk, q_bh, ldq, 0, k_bh + (size_t)lo * ldkv, ldkv, 1, NULL, 1,
                             hi - lo, hs, 0);
            fill_ninf(s_i, lo);
            if (!sx_nn_scale_row(s_i + lo, hi - lo, scale) &&
                (st = sx_nn_rescore_scores(s_i + lo, hi - lo, i, lo, q_bh, k_bh + (size_t)lo * ldkv,
                                           ldkv, hs, scale)) != SX_OK)
                return st;
            if (hi > lo) fill_ninf(s_i + hi, n_map - hi);
            else fill_ninf(s_i + lo, n_map - lo);
            if (edit && edit->key_off)
                for (int j = lo; j < hi; j++)
                    if (edit->key_off[j]) s_i[j] = -INFINITY;
            /* 2. the mapping, on the row as the full pass maps it */
            const float param = head_param(cfg, alpha_a, h);
            memset(p_i + Tk, 0, (size_t)(n_map - Tk) * sizeof(float));
            if (!per_row_windows(&w, Tk)) {
                st = sx_nn_map_forward(p_i, s_i, 1, Tk, cfg->kind[h], param);
                if (st != SX_OK) return st;
            } else if (hi <= lo) {
                memset(p_i, 0, (size_t)Tk * sizeof(float));
            } else {
                memset(p_i, 0, (size_t)lo * sizeof(float));
                memset(p_i + hi, 0, (size_t)(Tk - hi) * sizeof(float));
                st = sx_nn_map_forward(p_i + lo, s_i + lo, 1, hi - lo, cfg->kind[h], param);
                if (st != SX_OK) return st;
            }
            /* 3. span mask and renormalisation */
            if (w.span) span_row(a_i, p_i, n_map, &w, i, Tk);
            if (edit && edit->head_off && edit->head_off[h]) memset(a_i, 0, (size_t)Tk * sizeof(float));
            else if (edit && edit->n_rows) edit_row(a_i, edit, &w, h, i, Tk);
            /* out = att v over the window (the full pass's tile range adds only zeros) */
            sx_nn_matmul(out_bh, C, a_i + lo, Tk, 0, v_bh + (size_t)lo * ldkv, ldkv, 0, NULL, 1, hs,
                         hi > lo ? hi - lo : 0, 0);
        }
    }
    return SX_OK;
}

/* --------------------------------------------------------------- backward */
int sx_nn_attention_backward(float *dq, float *dk, float *dv, float *dalpha_a, float *dspan_z,
                             float *scratch, const float *dout, const float *score,
                             const float *prob, const float *att, const float *q, int ldq,
                             const float *k, const float *v, int ldkv, const float *alpha_a,
                             const float *span_z, const int *k_len, int B, int Tq, int Tk,
                             const sx_nn_attn_cfg *cfg) {
    int st = check_cfg(cfg, alpha_a, prob, span_z, B, Tq, Tk);
    if (st != SX_OK) return st;
    if (Tk == 0 || Tq == 0) return SX_OK;
    const int NH = cfg->n_head, hs = cfg->head_size, C = NH * hs;
    const float scale = 1.0f / sqrtf((float)hs);
    float *datt = scratch;                       /* (Tq, Tk) */
    float *dp = scratch + (size_t)Tq * Tk;       /* (Tq, Tk) */
    float *ds = scratch + 2 * (size_t)Tq * Tk;   /* (Tq, Tk) */
    const sx_nn_attn_edit *edit = cfg->edit;
    for (int b = 0; b < B; b++) {
        for (int h = 0; h < NH; h++) {
            const float *q_bh = q + (size_t)b * Tq * ldq + h * hs;
            const float *k_bh = k + (size_t)b * Tk * ldkv + h * hs;
            const float *v_bh = v + (size_t)b * Tk * ldkv + h * hs;
            float *dq_bh = dq + (size_t)b * Tq * ldq + h * hs;
            float *dk_bh = dk + (size_t)b * Tk * ldkv + h * hs;
            float *dv_bh = dv + (size_t)b * Tk * ldkv + h * hs;
            const float *dout_bh = dout + (size_t)b * Tq * C + h * hs;
            const size_t off = ((size_t)b * NH + h) * Tq * Tk;
            const float *s_bh = score + off;
            const float *a_bh = att + off;
            const window w = make_window(cfg, span_z, k_len, b, h, Tk);
            const float *p_bh = w.span ? prob + off : a_bh;
            const int tq = tile_rows(&w, Tq);

            /* datt = dout v^T (zero outside the windows); dv += att^T dout */
            for (int i0 = 0; i0 < Tq; i0 += tq) {
                const int i1 = i0 + tq < Tq ? i0 + tq : Tq;
                const int klo = row_lo(&w, i0, Tk), khi = row_hi(&w, i1 - 1);
                if (khi <= klo) {
                    memset(datt + (size_t)i0 * Tk, 0, (size_t)(i1 - i0) * Tk * sizeof(float));
                    continue;
                }
                sx_nn_matmul(datt + (size_t)i0 * Tk + klo, Tk, dout_bh + (size_t)i0 * C, C, 0,
                             v_bh + (size_t)klo * ldkv, ldkv, 1, NULL, i1 - i0, khi - klo, hs, 0);
                for (int i = i0; i < i1; i++) {
                    float *d_i = datt + (size_t)i * Tk;
                    const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
                    for (int j = 0; j < Tk; j++)
                        if (j < lo || j >= hi) d_i[j] = 0.0f;
                }
                sx_nn_matmul(dv_bh + (size_t)klo * ldkv, ldkv, a_bh + (size_t)i0 * Tk + klo, Tk, 1,
                             dout_bh + (size_t)i0 * C, C, 0, NULL, khi - klo, hs, i1 - i0, 1);
            }
            /* edits: hand out the grabbed row, then cut the edited rows off the scores */
            if (edit) {
                if (edit->datt && b == 0 && (edit->grab_head < 0 || h == edit->grab_head) &&
                    edit->grab_row < Tq)
                    memcpy(edit->datt + (edit->grab_head < 0 ? (size_t)h * Tk : 0),
                           datt + (size_t)edit->grab_row * Tk, (size_t)Tk * sizeof(float));
                for (int i = 0; i < Tq; i++)
                    if (row_edited(edit, h, i)) memset(datt + (size_t)i * Tk, 0, (size_t)Tk * sizeof(float));
            }
            /* span: att = p m / S, S = sum p m. dp = m / S (datt - <datt, att>),
               dm = p / S (datt - <datt, att>), dz += sum dm * L / R inside the ramp. */
            const float *g = datt;
            if (w.span) {
                double dz = 0.0;
                for (int i = 0; i < Tq; i++) {
                    const float *p_i = p_bh + (size_t)i * Tk;
                    const float *a_i = a_bh + (size_t)i * Tk;
                    const float *g_i = datt + (size_t)i * Tk;
                    float *dp_i = dp + (size_t)i * Tk;
                    const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
                    memset(dp_i, 0, (size_t)Tk * sizeof(float));
                    double sum = 0.0, dot = 0.0;
                    for (int j = lo; j < hi; j++) {
                        sum += (double)p_i[j] * row_mask(&w, i, j);
                        dot += (double)g_i[j] * a_i[j];
                    }
                    if (!(sum > 0.0)) continue;
                    const double inv = 1.0 / sum;
                    for (int j = lo; j < hi; j++) {
                        const float m = row_mask(&w, i, j);
                        const double c = (g_i[j] - dot) * inv, mc = m * c;
                        /* clamped: an Infinity here (datt near FLT_MAX over S < 1) would give
                           Infinity - Infinity = NaN in the mapping backward */
                        dp_i[j] = (float)(mc > FLT_MAX ? FLT_MAX : mc < -FLT_MAX ? -FLT_MAX : mc);
                        const int x = i >= j ? i - j : j - i;
                        const double ramp = span_ramp((float)x, w.z, w.L, w.R);
                        if (ramp > 0.0 && ramp < 1.0) dz += p_i[j] * c * (w.L / w.R);
                    }
                }
                if (dspan_z) dspan_z[h] += (float)dz;
                g = dp;
            }
            /* the mapping backward, alpha */
            float dalpha = 0.0f;
            const float param = head_param(cfg, alpha_a, h);
            if (!w.causal && !w.span) {
                st = sx_nn_map_backward(ds, &dalpha, s_bh, p_bh, g, Tq, Tk, cfg->kind[h], param);
                if (st != SX_OK) return st;
            } else {
                for (int i = 0; i < Tq; i++) {
                    const int lo = row_lo(&w, i, Tk), hi = row_hi(&w, i);
                    const size_t r = (size_t)i * Tk;
                    float *ds_i = ds + r;
                    if (hi <= lo) {
                        memset(ds_i, 0, (size_t)Tk * sizeof(float));
                        continue;
                    }
                    memset(ds_i, 0, (size_t)lo * sizeof(float));
                    memset(ds_i + hi, 0, (size_t)(Tk - hi) * sizeof(float));
                    st = sx_nn_map_backward(ds_i + lo, &dalpha, s_bh + r + lo, p_bh + r + lo,
                                            g + r + lo, 1, hi - lo, cfg->kind[h], param);
                    if (st != SX_OK) return st;
                }
            }
            if (cfg->kind[h] == SX_NN_ENTMAX_LEARNED && dalpha_a)
                dalpha_a[h] += dalpha * alpha_slope(alpha_a[h]);
            for (size_t i = 0; i < (size_t)Tq * Tk; i++) ds[i] *= scale;
            /* dq += ds k; dk += ds^T q */
            for (int i0 = 0; i0 < Tq; i0 += tq) {
                const int i1 = i0 + tq < Tq ? i0 + tq : Tq;
                const int klo = row_lo(&w, i0, Tk), khi = row_hi(&w, i1 - 1);
                if (khi <= klo) continue;
                sx_nn_matmul(dq_bh + (size_t)i0 * ldq, ldq, ds + (size_t)i0 * Tk + klo, Tk, 0,
                             k_bh + (size_t)klo * ldkv, ldkv, 0, NULL, i1 - i0, hs, khi - klo, 1);
                sx_nn_matmul(dk_bh + (size_t)klo * ldkv, ldkv, ds + (size_t)i0 * Tk + klo, Tk, 1,
                             q_bh + (size_t)i0 * ldq, ldq, 0, NULL, khi - klo, hs, i1 - i0, 1);
            }
        }
    }
    return SX_OK;
}

/* ------------------------------------------------------ Nadaraya-Watson pooling */
/* score (nq, nk): s_ij = -((xq_i - xk_j) w)^2 / 2 minus its row max, in double so that no w
   overflows (|xq - xk| |w| < 2^130 squares to < 2^260); the shifted scores of far keys may
   round to -INFINITY in float, which masks them (their weight would be < exp(-3e38) anyway).
   With loo, s_ii = -INFINITY. The shift leaves every mapping unchanged (shift invariance). */
static void nw_scores(float *score, const float *xq, const float *xk, float w, int nq, int nk,
                      int loo) {
    for (int i = 0; i < nq; i++) {
        float *s_i = score + (size_t)i * nk;
        double dmin = INFINITY;
        for (int j = 0; j < nk; j++) {
            const double d = fabs(((double)xq[i] - xk[j]) * w);
            if (!(loo && j == i) && d < dmin) dmin = d;
        }
        for (int j = 0; j < nk; j++) {
            const double d = ((double)xq[i] - xk[j]) * w;
            s_i[j] = loo && j == i ? -INFINITY : (float)(0.5 * (dmin * dmin - d * d));
        }
    }
}

int sx_nn_nw_forward(float *out, float *score, float *att, const float *xq, const float *xk,
                     const float *yk, float w, int nq, int nk, int loo, int kind, float param) {
    nw_scores(score, xq, xk, w, nq, nk, loo);
    int st = sx_nn_map_forward(att, score, nq, nk, kind, param);
    if (st != SX_OK) return st;
    for (int i = 0; i < nq; i++) {
        double s = 0.0;
        for (int j = 0; j < nk; j++) s += (double)att[(size_t)i * nk + j] * yk[j];
        out[i] = (float)s;
    }
    return SX_OK;
}

int sx_nn_nw_backward(float *dw, float *scratch, const float *dout, const float *score,
                      const float *att, const float *xq, const float *xk, const float *yk,
                      float w, int nq, int nk, int kind, float param) {
    /* datt = dout yk^T, scaled by 1 / (max|dout| max|yk|) so that no product overflows in
       float (the map is linear in datt: the scale comes back in double at the end) */
    float *datt = scratch, *ds = scratch + (size_t)nq * nk;
    float sd = 0.0f, sy = 0.0f;
    for (int i = 0; i < nq; i++) sd = fmaxf(sd, fabsf(dout[i]));
    for (int j = 0; j < nk; j++) sy = fmaxf(sy, fabsf(yk[j]));
    if (sd == 0.0f || sy == 0.0f) return SX_OK;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) datt[(size_t)i * nk + j] = (dout[i] / sd) * (yk[j] / sy);
    int st = sx_nn_map_backward(ds, NULL, score, att, datt, nq, nk, kind, param);
    if (st != SX_OK) return st;
    /* d s / d w = -(xq - xk)^2 w (the row shift drops out: each row of ds sums to 0); masked
       keys (loo, or rounded to -INFINITY) have ds = 0 */
    double g = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) {
            const double d = (double)xq[i] - xk[j], dsij = ds[(size_t)i * nk + j];
            if (dsij != 0.0) g += dsij * (-d * d * w);
        }
    *dw += (float)(g * sd * sy);
    return SX_OK;
}
