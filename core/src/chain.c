/* chain.c - structured attention over a sequence: a linear chain of binary "attend / skip"
   variables y_1 .. y_n with unary scores u_i and one transition score t that rewards
   contiguous selections,

       s(y) = sum_i u_i y_i + t sum_i y_i y_{i+1},

   and two ways to turn it into attention weights (issue 25):

   - CRF marginals (Kim et al. 2017, "Structured attention networks"): mu_i = P(y_i = 1) under
     P(y) proportional to exp s(y), by forward-backward. Dense: every unmasked position gets
     some weight.
   - SparseMAP (Niculae et al. 2018): mu = the unary part of argmax over the marginal polytope
     of <theta, mu> - 1/2 ||mu_U||^2, solved by the active-set method with Viterbi as the
     linear oracle. mu is a sparse mixture of a few selections (sx_chain_sparsemap_support
     lists them with their weights).

   mu_i is in [0, 1] and the weights are not normalised (a selection can attend to several
   positions or to none): a caller that wants a distribution divides by the sum.

   Numerics. Everything runs in double. Forward-backward keeps each position's two messages
   normalised (the larger is 0), and each marginal is a sigmoid of a local difference, so no
   global log-partition is subtracted from a huge number: |u| = 1e30 gives marginals of 0 and 1,
   not exp(rounding error). Masked positions (u_i = -Infinity) are never selected and get 0.

   Backward. The CRF marginals are the gradient of the log-partition A(u, t), so their Jacobian
   is symmetric: du = J dmu is the derivative of mu along dmu, and dt = sum_k d/d(eps) P(y_k =
   y_{k+1} = 1) along the same direction. Both come from one forward-backward in dual numbers
   (value, derivative along dmu). SparseMAP's mu = M_A p with p the solution of the active set's
   KKT system [G 1; 1' 0] [p; tau] = [b; 1], G = M_A' M_A (overlaps of the selections), b_s =
   <u, m_s> + t c_s (c_s: the selection's adjacent pairs); with the active set fixed, du = M_A x
   and dt = c' x where [x; .] solves the same system with right side [M_A' dmu; 0]. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Scalar double code, not a hot path of any model yet: compiled for size in wasm. */
SX_COLD_BEGIN

/* ------------------------------------------------------------ dual numbers */
typedef struct {
    double v; /* value */
    double d; /* derivative along the direction dmu */
} dual;

static dual dadd(dual a, dual b) { return (dual){a.v + b.v, a.d + b.d}; }
static dual dsub(dual a, dual b) { return (dual){a.v - b.v, a.d - b.d}; }

/* log(e^a + e^b), -Infinity aware: the derivative is the softmax-weighted one. */
static dual dlse(dual a, dual b) {
    if (a.v == -INFINITY) return b;
    if (b.v == -INFINITY) return a;
    if (a.v < b.v) { dual t = a; a = b; b = t; }
    double e = exp(b.v - a.v), w = e / (1.0 + e);
    return (dual){a.v + log1p(e), a.d + w * (b.d - a.d)};
}

static float clamp_float(double x) { return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x; }

static double sigmoid(double x) {
    if (x >= 0.0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

/* ------------------------------------------------------------ forward-backward */
/* One row's messages: a[2i + y] = log-sum of the scores of y_1 .. y_i ending in y (u_i counted),
   b[2i + y] = the same for y_{i+1} .. y_n given y_i = y (u_i not counted); each pair shifted so
   its larger value is 0. The derivatives follow the direction g (NULL: 0). */
static dual unary(const float *u, const float *g, int i) {
    return (dual){u[i], (g && u[i] != -INFINITY) ? g[i] : 0.0};
}

static void normalise(dual *m) {
    dual top = m[0].v >= m[1].v ? m[0] : m[1];
    m[0] = dsub(m[0], top);
    m[1] = m[1].v == -INFINITY ? (dual){-INFINITY, 0.0} : dsub(m[1], top);
}

static void messages(dual *a, dual *b, const float *u, const float *g, int n, dual t) {
    a[0] = (dual){0.0, 0.0};
    a[1] = unary(u, g, 0);
    normalise(a);
    for (int i = 1; i < n; i++) {
        dual p0 = a[2 * i - 2], p1 = a[2 * i - 1];
        a[2 * i] = dlse(p0, p1);
        a[2 * i + 1] = u[i] == -INFINITY ? (dual){-INFINITY, 0.0}
                                         : dadd(dlse(p0, dadd(p1, t)), unary(u, g, i));
        normalise(a + 2 * i);
    }
    b[2 * n - 2] = b[2 * n - 1] = (dual){0.0, 0.0};
    for (int i = n - 2; i >= 0; i--) {
        dual q0 = b[2 * i + 2], q1 = u[i + 1] == -INFINITY ? (dual){-INFINITY, 0.0}
                                                            : dadd(b[2 * i + 3], unary(u, g, i + 1));
        b[2 * i] = dlse(q0, q1);
        b[2 * i + 1] = dlse(q0, q1.v == -INFINITY ? q1 : dadd(q1, t));
        normalise(b + 2 * i);
    }
}

/* P(y_i = 1) and its derivative, from the local log-odds. */
static dual marginal(const dual *a, const dual *b, int i) {
    dual one = dadd(a[2 * i + 1], b[2 * i + 1]), zero = dadd(a[2 * i], b[2 * i]);
    if (one.v == -INFINITY) return (dual){0.0, 0.0};
    dual odds = dsub(one, zero);
    double p = sigmoid(odds.v);
    return (dual){p, p * (1.0 - p) * odds.d};
}

/* d/d(eps) P(y_k = y_{k+1} = 1): a softmax over the four joint states of (y_k, y_{k+1}). */
static double pair_derivative(const dual *a, const dual *b, const float *u, const float *g, int k, dual t) {
    if (u[k] == -INFINITY || u[k + 1] == -INFINITY) return 0.0;
    dual nx = unary(u, g, k + 1), l[4];
    l[0] = dadd(a[2 * k], b[2 * k + 2]);
    l[1] = dadd(dadd(a[2 * k], nx), b[2 * k + 3]);
    l[2] = dadd(a[2 * k + 1], b[2 * k + 2]);
    l[3] = dadd(dadd(dadd(a[2 * k + 1], t), nx), b[2 * k + 3]);
    double top = l[0].v, z = 0.0, zd = 0.0;
    for (int j = 1; j < 4; j++)
        if (l[j].v > top) top = l[j].v;
    for (int j = 0; j < 4; j++) {
        double e = exp(l[j].v - top);
        z += e;
        zd += e * l[j].d;
    }
    double pi = exp(l[3].v - top) / z;
    return pi * (l[3].d - zd / z);
}

/* One row: mu (may be NULL), and with g, du = J g and the row's dt. */
static double crf_row(float *mu, float *du, const float *u, const float *g, int n, float t, dual *scratch) {
    dual *a = scratch, *b = scratch + 2 * n, tt = {t, 0.0};
    messages(a, b, u, g, n, tt);
    for (int i = 0; i < n; i++) {
        dual m = marginal(a, b, i);
        if (mu) mu[i] = (float)m.v;
        if (du) du[i] = clamp_float(m.d);
    }
    double dt = 0.0;
    if (g)
        for (int k = 0; k + 1 < n; k++) dt += pair_derivative(a, b, u, g, k, tt);
    return dt;
}

/* ------------------------------------------------------------ argument checks (sparsemap.c too) */
int sx__chain_check_t(float t) {
    if (!isfinite(t)) return sx__fail(SX_EINVAL, -1, "t (the transition score) must be finite (got %g)", (double)t);
    return SX_OK;
}

int sx__chain_check_n(int n) {
    if (n > SX_CHAIN_SPARSEMAP_MAX_N)
        return sx__fail(SX_EINVAL, -1, "sparsemap: n must be <= %d (got %d)", SX_CHAIN_SPARSEMAP_MAX_N, n);
    return SX_OK;
}

int sx__chain_check_forward(float *mu, const float *u, int rows, int n, float t) {
    int st = sx__check_dims_as(mu, "mu", u, "u", rows, n);
    if (!st) st = sx__chain_check_t(t);
    if (!st) st = sx__check_scores(u, (size_t)rows * (size_t)n, "u", 1);
    return st;
}

int sx__chain_check_backward(float *du, const float *u, const float *dmu, int rows, int n, float t) {
    int st = sx__check_dims_as(du, "du", u, "u", rows, n);
    if (!st && rows > 0 && !dmu) st = sx__null("dmu");
    if (!st) st = sx__chain_check_t(t);
    if (!st) st = sx__check_scores(u, (size_t)rows * (size_t)n, "u", 1);
    if (!st) st = sx__check_scores(dmu, (size_t)rows * (size_t)n, "dmu", 0);
    return st;
}

int sx_chain_marginals(float *mu, const float *u, int rows, int n, float t) {
    int st = sx__chain_check_forward(mu, u, rows, n, t);
    if (st || rows == 0) return st;
    dual *s = malloc(sizeof(dual) * 4 * (size_t)n);
    if (!s) return sx__fail(SX_ENOMEM, -1, "chain_marginals: out of memory for %d positions", n);
    for (int r = 0; r < rows; r++) crf_row(mu + (size_t)r * n, NULL, u + (size_t)r * n, NULL, n, t, s);
    free(s);
    return SX_OK;
}

int sx_chain_marginals_backward(float *du, float *dt, const float *u, const float *dmu, int rows, int n, float t) {
    int st = sx__chain_check_backward(du, u, dmu, rows, n, t);
    if (st) return st;
    double sum = 0.0;
    dual *s = rows ? malloc(sizeof(dual) * 4 * (size_t)n) : NULL;
    if (rows && !s) return sx__fail(SX_ENOMEM, -1, "chain_marginals_backward: out of memory for %d positions", n);
    for (int r = 0; r < rows; r++)
        sum += crf_row(NULL, du + (size_t)r * n, u + (size_t)r * n, dmu + (size_t)r * n, n, t, s);
    free(s);
    if (dt) *dt = clamp_float(sum);
    return SX_OK;
}

SX_COLD_END
