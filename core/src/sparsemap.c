/* sparsemap.c - SparseMAP attention over a linear chain (Niculae et al. 2018); chain.c states the
   model, s(y) = sum_i u_i y_i + t sum_i y_i y_{i+1}, and its CRF marginals.

   mu = argmax over the chain's marginal polytope of <u, mu_U> + t sum_k mu_{k,k+1} - 1/2
   ||mu_U||^2 is the unary part of a convex combination sum_s p_s m_s of a few selections s
   (m_s its 0/1 indicator, c_s its number of adjacent selected pairs). The active-set method
   (Nocedal & Wright, ch. 16; the paper's algorithm) keeps the selections A with p_s > 0:

   1. start from the MAP selection (Viterbi on u), p = 1;
   2. ask the oracle, Viterbi on the unaries u - mu, for the selection that improves most; stop
      when it improves on the active ones by no more than a rounding tolerance;
   3. add it with weight 0 and solve the active set's KKT system [G 1; 1' 0] [p; tau] = [b; 1]
      (G_ss' = |s and s'|, b_s = <u, m_s> + t c_s); if a weight would turn negative, step to the
      first one that reaches 0, drop it and solve again.

   Limits. Rows have at most SX_CHAIN_SPARSEMAP_MAX_N = 63 positions: the polytope has dimension
   2n - 1, so at most 2n selections are ever active (128 at n = 63) and each KKT solve, rebuilt
   from scratch, costs O(k^3); a longer row would need an incremental factorisation (not done).
   The loop runs at most 20 (2n + 2) times; at that limit, or if the KKT system turns singular
   (affinely dependent selections are swapped, not added, so it should not), the search stops
   where it is: a point of the polytope (every mu_i in [0, 1]) no worse than the MAP selection's.
   The tests check on thousands of rows that the oracle's gap closes.

   Backward: with the active set fixed, du = M_A x and dt = c' x, [x; .] = K^-1 [M_A' dmu; 0]. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Scalar double code, not a hot path of any model yet: compiled for size in wasm. */
SX_COLD_BEGIN


typedef struct {
    int n, cap, k;       /* positions, capacity, active selections */
    unsigned char *sel;  /* cap x n indicators of the active selections */
    unsigned char *cand; /* n: the oracle's selection */
    unsigned char *back; /* 2 n: Viterbi's backpointers */
    double *p, *b, *c;   /* cap each: weights, scores b_s, adjacent pairs c_s */
    double *g;           /* cap x cap overlaps |s and s'| */
    double *m;           /* (cap + 1)^2: the KKT matrix being factored */
    double *x;           /* cap + 1: right side, then solution */
    double *w, *mu;      /* n each: the oracle's unaries, the current marginals */
} active_set;

static void *set_alloc(active_set *as, int n) {
    int cap = 2 * n + 2; /* Caratheodory: a point of the (2n - 1)-dimensional polytope needs at most 2n */
    size_t nd = 3 * (size_t)cap + (size_t)cap * cap + (size_t)(cap + 1) * (cap + 1) + (cap + 1) + 2 * (size_t)n;
    size_t nb = (size_t)cap * n + 3 * (size_t)n;
    double *d = malloc(nd * sizeof(double) + nb);
    if (!d) return NULL;
    as->n = n;
    as->cap = cap;
    as->k = 0;
    as->p = d;
    as->b = as->p + cap;
    as->c = as->b + cap;
    as->g = as->c + cap;
    as->m = as->g + (size_t)cap * cap;
    as->x = as->m + (size_t)(cap + 1) * (cap + 1);
    as->w = as->x + cap + 1;
    as->mu = as->w + n;
    as->sel = (unsigned char *)(as->mu + n);
    as->cand = as->sel + (size_t)cap * n;
    as->back = as->cand + n;
    return d;
}

/* ------------------------------------------------------------ selections */
/* The best selection under unaries w (-Infinity: never selected) and transition t, into y; returns
   its score. Ties go to "skip", so the answer is deterministic. */
static double viterbi(unsigned char *y, unsigned char *back, const double *w, int n, double t) {
    double s0 = 0.0, s1 = w[0];
    for (int i = 1; i < n; i++) {
        double from1 = s1 + t, n0, n1;
        back[2 * i] = s1 > s0;
        n0 = s1 > s0 ? s1 : s0;
        back[2 * i + 1] = from1 > s0;
        n1 = w[i] == -INFINITY ? -INFINITY : w[i] + (from1 > s0 ? from1 : s0);
        s0 = n0;
        s1 = n1;
    }
    int state = s1 > s0;
    double best = state ? s1 : s0;
    for (int i = n - 1; i >= 0; i--) {
        y[i] = (unsigned char)state;
        if (i > 0) state = back[2 * i + state];
    }
    return best;
}

static double score(const unsigned char *y, const double *w, int n, double t) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        if (y[i]) s += w[i] + (i + 1 < n && y[i + 1] ? t : 0.0);
    return s;
}

static double pairs(const unsigned char *y, int n) {
    double c = 0.0;
    for (int i = 0; i + 1 < n; i++) c += y[i] && y[i + 1];
    return c;
}

static double overlap(const unsigned char *a, const unsigned char *b, int n) {
    double c = 0.0;
    for (int i = 0; i < n; i++) c += a[i] & b[i];
    return c;
}

static int contains(const active_set *as, const unsigned char *y) {
    for (int s = 0; s < as->k; s++)
        if (!memcmp(as->sel + (size_t)s * as->n, y, (size_t)as->n)) return 1;
    return 0;
}

/* Append y with weight p; b_s = <u, y> + t c_s, u as doubles. */
static void add(active_set *as, const unsigned char *y, const double *u, double t, double p) {
    int k = as->k, n = as->n;
    memcpy(as->sel + (size_t)k * n, y, (size_t)n);
    as->p[k] = p;
    as->c[k] = pairs(y, n);
    as->b[k] = score(y, u, n, t);
    for (int s = 0; s <= k; s++)
        as->g[(size_t)s * as->cap + k] = as->g[(size_t)k * as->cap + s] = overlap(as->sel + (size_t)s * n, y, n);
    as->k = k + 1;
}

static void drop(active_set *as, int j) {
    int k = as->k, n = as->n, cap = as->cap;
    for (int s = j; s + 1 < k; s++) {
        memcpy(as->sel + (size_t)s * n, as->sel + (size_t)(s + 1) * n, (size_t)n);
        as->p[s] = as->p[s + 1];
        as->b[s] = as->b[s + 1];
        as->c[s] = as->c[s + 1];
    }
    for (int r = 0; r < k; r++) /* remove row and column j of G */
        for (int s = j; s + 1 < k; s++) as->g[(size_t)r * cap + s] = as->g[(size_t)r * cap + s + 1];
    for (int r = j; r + 1 < k; r++)
        memcpy(as->g + (size_t)r * cap, as->g + (size_t)(r + 1) * cap, sizeof(double) * (size_t)(k - 1));
    as->k = k - 1;
}

static void marginals(active_set *as) {
    memset(as->mu, 0, sizeof(double) * (size_t)as->n);
    for (int s = 0; s < as->k; s++) {
        const unsigned char *y = as->sel + (size_t)s * as->n;
        for (int i = 0; i < as->n; i++)
            if (y[i]) as->mu[i] += as->p[s];
    }
}

/* ------------------------------------------------------------ the KKT system */
/* Solve [G 1; 1' 0] z = x in place (x: k + 1 entries) by Gaussian elimination with partial
   pivoting. Returns 0 when the system is singular (affinely dependent selections). */
static int solve_kkt(active_set *as) {
    int k = as->k, d = k + 1;
    double *m = as->m, *x = as->x, big = 1.0;
    for (int r = 0; r < d; r++)
        for (int s = 0; s < d; s++) {
            double v = r < k && s < k ? as->g[(size_t)r * as->cap + s] : (r == k && s == k ? 0.0 : 1.0);
            m[(size_t)r * d + s] = v;
            if (fabs(v) > big) big = fabs(v);
        }
    for (int col = 0; col < d; col++) {
        int piv = col;
        for (int r = col + 1; r < d; r++)
            if (fabs(m[(size_t)r * d + col]) > fabs(m[(size_t)piv * d + col])) piv = r;
        if (fabs(m[(size_t)piv * d + col]) < 1e-12 * big) return 0;
        if (piv != col) {
            for (int s = 0; s < d; s++) {
                double tmp = m[(size_t)col * d + s];
                m[(size_t)col * d + s] = m[(size_t)piv * d + s];
                m[(size_t)piv * d + s] = tmp;
            }
            double tmp = x[col];
            x[col] = x[piv];
            x[piv] = tmp;
        }
        for (int r = col + 1; r < d; r++) {
            double f = m[(size_t)r * d + col] / m[(size_t)col * d + col];
            if (f == 0.0) continue;
            for (int s = col; s < d; s++) m[(size_t)r * d + s] -= f * m[(size_t)col * d + s];
            x[r] -= f * x[col];
        }
    }
    for (int r = d - 1; r >= 0; r--) {
        double v = x[r];
        for (int s = r + 1; s < d; s++) v -= m[(size_t)r * d + s] * x[s];
        x[r] = v / m[(size_t)r * d + r];
    }
    return 1;
}

/* Re-solve the weights after an addition: step toward the KKT solution, dropping each selection
   whose weight reaches 0 first. Returns 0 if the system turned singular or the newest selection
   (the last) was dropped again: no progress, the caller stops. */
static int reoptimise(active_set *as) {
    for (;;) {
        int k = as->k;
        memcpy(as->x, as->b, sizeof(double) * (size_t)k);
        as->x[k] = 1.0;
        if (!solve_kkt(as)) {
            drop(as, k - 1);
            return 0;
        }
        int block = -1;
        double step = 1.0;
        for (int s = 0; s < k; s++)
            if (as->x[s] < 0.0) {
                double a = as->p[s] / (as->p[s] - as->x[s]);
                if (a < step || block < 0) { step = a; block = s; }
            }
        if (block < 0) {
            memcpy(as->p, as->x, sizeof(double) * (size_t)k);
            return 1;
        }
        for (int s = 0; s < k; s++) as->p[s] += step * (as->x[s] - as->p[s]);
        drop(as, block);
        if (block == k - 1) return 0;
    }
}

/* Is the oracle's selection an affine combination of the active ones (m_cand = sum_s l_s m_s,
   sum_s l_s = 1)? The unary vectors alone decide it, and they often are: the pairwise part tells
   the selections apart through b, not through G. Leaves l in x. */
static int dependent(active_set *as) {
    int k = as->k, n = as->n;
    for (int s = 0; s < k; s++) as->x[s] = overlap(as->sel + (size_t)s * n, as->cand, n);
    as->x[k] = 1.0;
    if (!solve_kkt(as)) return 0;
    for (int i = 0; i < n; i++) {
        double r = as->cand[i];
        for (int s = 0; s < k; s++)
            if (as->sel[(size_t)s * n + i]) r -= as->x[s];
        if (fabs(r) > 1e-9) return 0;
    }
    return 1;
}

/* Then moving weight along (cand: +1, s: -l_s) keeps mu and improves the objective by the oracle's
   gain: move until the first active weight reaches 0, and the candidate takes its place (the set
   stays affinely independent). */
static void swap_in(active_set *as, double t) {
    int k = as->k, block = -1;
    double step = INFINITY;
    for (int s = 0; s < k; s++)
        if (as->x[s] > 1e-12 && as->p[s] / as->x[s] < step) { step = as->p[s] / as->x[s]; block = s; }
    for (int s = 0; s < k; s++) as->p[s] -= step * as->x[s];
    drop(as, block);
    add(as, as->cand, as->w, t, step);
}

/* Weights that are 0 up to rounding (a degenerate optimum keeps a selection at 1e-8, or exactly
   0): drop them and renormalise, so the listed selections are the ones that carry weight. */
static void prune(active_set *as) {
    double top = 0.0, sum = 0.0;
    for (int s = 0; s < as->k; s++)
        if (as->p[s] > top) top = as->p[s];
    for (int s = as->k - 1; s >= 0 && as->k > 1; s--)
        if (!(as->p[s] > 1e-6 * top)) drop(as, s);
    for (int s = 0; s < as->k; s++) sum += as->p[s];
    for (int s = 0; s < as->k; s++) as->p[s] /= sum;
}

/* ------------------------------------------------------------ one row */
static void solve_row(active_set *as, const float *uf, float tf) {
    int n = as->n;
    double t = tf, *mu = as->mu;
    for (int i = 0; i < n; i++) as->w[i] = uf[i];
    as->k = 0;
    viterbi(as->cand, as->back, as->w, n, t);
    add(as, as->cand, as->w, t, 1.0);
    double scale = 1.0 + fabs(t);
    for (int i = 0; i < n; i++)
        if (uf[i] != -INFINITY) scale += fabs(uf[i]);
    for (int it = 0; it < 20 * as->cap; it++) {
        marginals(as);
        for (int i = 0; i < n; i++) as->w[i] = uf[i] == -INFINITY ? -INFINITY : (double)uf[i] - mu[i];
        double best = viterbi(as->cand, as->back, as->w, n, t), tau = -INFINITY;
        for (int s = 0; s < as->k; s++) {
            double v = score(as->sel + (size_t)s * n, as->w, n, t);
            if (v > tau) tau = v;
        }
        if (best <= tau + 1e-12 * scale || as->k == as->cap || contains(as, as->cand)) break;
        for (int i = 0; i < n; i++) as->w[i] = uf[i];
        if (dependent(as)) swap_in(as, t);
        else add(as, as->cand, as->w, t, 0.0);
        if (!reoptimise(as)) break;
    }
    prune(as);
    marginals(as);
}

static void write_row(float *mu, const active_set *as) {
    for (int i = 0; i < as->n; i++) {
        double v = as->mu[i];
        mu[i] = (float)(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
    }
}

/* du = M_A x, the row's dt = c' x, [x; .] = K^-1 [M_A' dmu; 0]. */
static double backward_row(float *du, active_set *as, const float *g) {
    int n = as->n, k = as->k;
    for (int s = 0; s < k; s++) {
        const unsigned char *y = as->sel + (size_t)s * n;
        double v = 0.0;
        for (int i = 0; i < n; i++)
            if (y[i]) v += g[i];
        as->x[s] = v;
    }
    as->x[k] = 0.0;
    double dt = 0.0;
    memset(as->mu, 0, sizeof(double) * (size_t)n);
    if (solve_kkt(as)) {
        for (int s = 0; s < k; s++) {
            const unsigned char *y = as->sel + (size_t)s * n;
            for (int i = 0; i < n; i++)
                if (y[i]) as->mu[i] += as->x[s];
            dt += as->c[s] * as->x[s];
        }
    }
    for (int i = 0; i < n; i++) {
        double v = as->mu[i];
        du[i] = (float)(v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : v);
    }
    return dt;
}

/* ------------------------------------------------------------ entry points */
int sx_chain_sparsemap(float *mu, const float *u, int rows, int n, float t) {
    int st = sx__chain_check_n(n);
    if (!st) st = sx__chain_check_forward(mu, u, rows, n, t);
    if (st || rows == 0) return st;
    active_set as;
    void *mem = set_alloc(&as, n);
    if (!mem) return sx__fail(SX_ENOMEM, -1, "chain_sparsemap: out of memory for %d positions", n);
    for (int r = 0; r < rows; r++) {
        solve_row(&as, u + (size_t)r * n, t);
        write_row(mu + (size_t)r * n, &as);
    }
    free(mem);
    return SX_OK;
}

int sx_chain_sparsemap_backward(float *du, float *dt, const float *u, const float *dmu, int rows, int n, float t) {
    int st = sx__chain_check_n(n);
    if (!st) st = sx__chain_check_backward(du, u, dmu, rows, n, t);
    if (st) return st;
    double sum = 0.0;
    if (rows > 0) {
        active_set as;
        void *mem = set_alloc(&as, n);
        if (!mem) return sx__fail(SX_ENOMEM, -1, "chain_sparsemap_backward: out of memory for %d positions", n);
        for (int r = 0; r < rows; r++) {
            solve_row(&as, u + (size_t)r * n, t);
            sum += backward_row(du + (size_t)r * n, &as, dmu + (size_t)r * n);
        }
        free(mem);
    }
    if (dt) *dt = (float)(sum > FLT_MAX ? FLT_MAX : sum < -FLT_MAX ? -FLT_MAX : sum);
    return SX_OK;
}

int sx_chain_sparsemap_support(unsigned char *sel, float *weight, int cap, int *count, const float *u, int n,
                               float t) {
    if (!count) return sx__null("count");
    if (!u) return sx__null("u");
    if (n < 1) return sx__fail(SX_EINVAL, -1, "n must be >= 1 (got %d)", n);
    int st = sx__chain_check_n(n);
    if (!st) st = sx__chain_check_t(t);
    if (!st) st = sx__check_scores(u, (size_t)n, "u", 1);
    if (st) return st;
    if (cap < 0) return sx__fail(SX_EINVAL, -1, "cap must be >= 0 (got %d)", cap);
    if (cap > 0 && !sel) return sx__null("sel");
    if (cap > 0 && !weight) return sx__null("weight");
    active_set as;
    void *mem = set_alloc(&as, n);
    if (!mem) return sx__fail(SX_ENOMEM, -1, "chain_sparsemap_support: out of memory for %d positions", n);
    solve_row(&as, u, t);
    *count = as.k;
    for (int j = 0; j < cap && j < as.k; j++) { /* selection sort by weight, largest first */
        int top = j;
        for (int s = j + 1; s < as.k; s++)
            if (as.p[s] > as.p[top]) top = s;
        double tp = as.p[top];
        as.p[top] = as.p[j];
        as.p[j] = tp;
        for (int i = 0; i < n; i++) {
            unsigned char a = as.sel[(size_t)top * n + i];
            as.sel[(size_t)top * n + i] = as.sel[(size_t)j * n + i];
            as.sel[(size_t)j * n + i] = a;
        }
        memcpy(sel + (size_t)j * n, as.sel + (size_t)j * n, (size_t)n);
        weight[j] = (float)tp;
    }
    free(mem);
    return SX_OK;
}

SX_COLD_END
