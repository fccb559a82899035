/* groupmax.c - group-sparse attention: sparsemax's regulariser plus a group lasso over groups
   given in advance,

     groupmax(x; groups, lambda) = argmax_{p in simplex} <p, z> - 1/2 ||p||^2 - lambda sum_g ||p_g||_2,

   z = x / T, lambda >= 0 acting on z (not scaled by T), the groups contiguous and given by
   their sizes (groups = [2, 3, 1] for n = 6: entries 0-1, 2-4, 5). lambda = 0 is sparsemax
   (it calls sx_sparsemax). The framework of Niculae & Blondel, "A Regularized Framework for
   Sparse and Structured Neural Attention" (NeurIPS 2017), with Omega(p) = 1/2 ||p||^2 +
   lambda sum_g ||p_g||: whole groups get exactly 0 (group sparsity), as well as single entries.

   Derivation. Equivalently p = argmin_{p >= 0, sum p = 1} 1/2 ||p - z||^2 + lambda sum_g ||p_g||.
   With a multiplier tau for sum p = 1, the problem separates by group into the prox of
   lambda ||.||_2 plus the indicator of p >= 0 at z_g - tau. That prox is block soft-thresholding
   of the positive part: for a fixed norm ||p_g|| = rho, <p_g, v> over p_g >= 0 is largest at
   p_g = rho [v]_+ / ||[v]_+||, and the remaining 1-D problem in rho gives rho = (||[v]_+|| -
   lambda)_+. So
       u_g(tau) = [z_g - tau]_+,  r_g = ||u_g||_2,  s_g = (1 - lambda / r_g)_+,  p_g = s_g u_g.
   The group's mass h_g(tau) = s_g ||u_g||_1 = (r_g - lambda)_+ ||u_g||_1 / r_g is continuous and
   non-increasing in tau (u_g shrinks entrywise, so do r_g and s_g), strictly decreasing where
   it is positive; f(tau) = sum_g h_g(tau) = 1 has one solution. Bracket, with max z = 0: f(0) = 0,
   and at tau = -1 - lambda the top entry's group has ||u||_1 >= r >= 1 + lambda, so its mass
   (r - lambda) ||u||_1 / r >= r - lambda >= 1.
   Where the support S_g = {z_i > tau} and the active groups A = {r_g > lambda} are fixed, with
   k_g = |S_g| and L_g = ||u_g||_1 (dr_g/dtau = -L_g / r_g, dL_g/dtau = -k_g),
       -f'(tau) = c(tau) = sum_{g in A} s_g k_g + lambda L_g^2 / r_g^3  > 0.
   We solve f = 1 by Newton's method safeguarded by bisection on [-1 - lambda, 0]: each step
   evaluates f and c on the current support and active groups (so once they are the final
   ones, the steps are Newton's on the smooth equation, converging quadratically), keeps the
   bracket [lo, hi] with f(lo) > 1 > f(hi), and falls back to its midpoint when Newton would
   leave it. It stops when a step changes nothing or the bracket is two adjacent doubles: tau
   to full double precision, so p = s_g u_g, rounded once to float, is exact to float rounding
   and sums to 1 within n float roundings. Typically 5-15 steps of O(n).
   Special cases (tests/c/test_groupmax.c checks each): groups all of size 1: s u = [u - lambda]_+,
   sparsemax of z shifted, i.e. sparsemax; one group of size n: p = s [z - tau]_+ with sum 1 is
   sparsemax(s z), sparsemax at temperature 1/s = (||p|| + lambda) / ||p|| (denser, never 0);
   groups of equal sizes k with equal scores inside each: every s_g u_i = z_i - tau - lambda /
   sqrt(k), sparsemax again. The group lasso's price per unit of mass spread evenly over k
   entries is lambda / sqrt(k), so as lambda grows small groups die first and the mass ends on
   the largest group(s).

   Backward (implicit differentiation on the active set). For g in A, p_g = s_g u_g on S_g with
   u_g = z_{S_g} - tau 1, and
       M_g = dp_g / du_g = (1 - lambda / r_g) I + lambda u_g u_g^T / r_g^3   (symmetric),
   so dp_g = M_g (dz_g - dtau 1). The constraint sum p = 1 gives sum_g 1^T dp_g = 0, i.e.
   dtau = w^T dz / c with w_g = M_g 1 = s_g 1 + lambda L_g u_g / r_g^3 and c = sum 1^T M_g 1 (the
   c above). Hence, with z = x / T,
       J = (1/T) (blockdiag(M_g) - w w^T / c),   symmetric, rows summing to 0,
   zero on entries outside the support and on whole inactive groups, and
       dx_g = (1/T) (s_g dy_g + lambda u_g (u_g^T dy_g) / r_g^3 - w_g (w^T dy) / c).
   lambda = 0: M = I, w = 1 on S, c = |S|: sparsemax's Jacobian. At a point exactly on a
   boundary (some z_i = tau, or r_g = lambda) we use the smaller support, as every backward
   pass here does.

   Numerics. z_i = (x_i - max x) / T in double, recomputed on the fly (no scratch, so no
   SX_ENOMEM); the gradient in double, rounded once (a huge dy or tiny T overflows to
   +-Infinity, never NaN). Masks: -Infinity entries have u_i = 0 always, get exactly 0 and no
   gradient, and leave their group's norm; a group that is all masked is inactive; an
   all-masked row maps to zeros. */
#include <math.h>
#include <string.h>
#include "internal.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* ------------------------------------------------------------------ a row */
/* tau is carried as c0 + sigma with c0 = -lambda / sqrt(K), K the largest group size: when
   lambda is far above the scores' spread (lambda = 1e30) tau sits within O(1) of c0, where a
   plain double tau (ulp 1e14) could not resolve r_g - lambda, and sigma can. Each group is seen
   through the mean m of z over its support and the spread D = sum (z_i - m)^2, so with
   b = m - tau (u_i = b + z_i - m) and e = sqrt(k) b - lambda
   = sqrt(k) (m - sigma) - lambda (1 - sqrt(k / K)) (the last term exactly 0 for k = K),
       r^2 - lambda^2 = e (e + 2 lambda) + D,   r - lambda = (r^2 - lambda^2) / (r + lambda),
   free of the cancellation of r - lambda for either size of lambda. */
typedef struct {
    const float *x;     /* (n) the row's scores */
    const int *groups;  /* (n_groups) sizes, summing to n */
    int n_groups, kmax; /* the largest group size K */
    double top, t, lam; /* max x, temperature, lambda */
    double c0;          /* -lambda / sqrt(K) */
} gm_row;

/* One group at tau = c0 + sigma: support size k, b = m - tau, the spread D, r = ||u||, and
   s = (r - lambda) / r (0 for an inactive or empty group). */
typedef struct {
    int k;
    double m, b, r, s;
} gm_group;

static double gm_z(const gm_row *r, int i) { return ((double)r->x[i] - r->top) / r->t; }

static void gm_group_at(const gm_row *r, int from, int size, double sigma, gm_group *g) {
    double sum = 0.0, D = 0.0;
    int k = 0;
    for (int i = from; i < from + size; i++) { /* support: z_i > tau (masked: -Infinity) */
        const double z = gm_z(r, i);
        if (z - sigma > r->c0) { sum += z; k++; }
    }
    g->k = k;
    g->s = 0.0;
    g->m = g->b = g->r = 0.0;
    if (k == 0) return;
    const double m = sum / k;
    for (int i = from; i < from + size; i++) {
        const double z = gm_z(r, i);
        if (z - sigma > r->c0) D += (z - m) * (z - m);
    }
    const double sk = sqrt((double)k), lam = r->lam;
    const double e = sk * (m - sigma) - lam * (1.0 - sqrt((double)k / r->kmax));
    const double b = (m - sigma) - r->c0, rg = sqrt(k * b * b + D);
    const double num = e * (e + 2.0 * lam) + D; /* r^2 - lambda^2 */
    g->m = m;
    g->b = b;
    g->r = rg;
    if (num > 0.0 && rg > 0.0) g->s = num / (rg + lam) / rg;
}

/* f = sum_g s_g ||u_g||_1 (= s k b) and c = -f' = sum s k + lambda (k b)^2 / r^3 at sigma. */
static double gm_mass(const gm_row *r, double sigma, double *c) {
    double f = 0.0, d = 0.0;
    gm_group g;
    for (int j = 0, from = 0; j < r->n_groups; from += r->groups[j++]) {
        gm_group_at(r, from, r->groups[j], sigma, &g);
        if (g.s == 0.0) continue; /* inactive (or empty) group */
        const double L = g.k * g.b;
        f += g.s * L;
        d += g.s * g.k + r->lam * (L / g.r) * (L / g.r) / g.r;
    }
    *c = d;
    return f;
}

/* sigma with f(c0 + sigma) = 1: safeguarded Newton on a bracket holding tau in [-1 - lambda, 0]
   with a margin for rounding (tau = -2 - 2 lambda has mass >= 1, tau = 1 > max z has mass 0). */
static double gm_sigma(const gm_row *r, double *lo_out) {
    double lo = -2.0 - 2.0 * r->lam - r->c0, hi = 1.0 - r->c0, sigma = lo;
    for (int it = 0; it < 600; it++) {
        double c;
        const double f = gm_mass(r, sigma, &c);
        if (f > 1.0) lo = sigma;
        else if (f < 1.0) hi = sigma;
        else break;
        double next = c > 0.0 ? sigma + (f - 1.0) / c : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (next == sigma || !(next > lo && next < hi)) break; /* the bracket is two adjacent doubles */
        sigma = next;
    }
    *lo_out = lo;
    return sigma;
}

static void gm_init(gm_row *r, const float *x, const int *groups, int n_groups, float lambda, float temperature, int n) {
    r->x = x;
    r->groups = groups;
    r->n_groups = n_groups;
    r->kmax = 1;
    for (int g = 0; g < n_groups; g++) if (groups[g] > r->kmax) r->kmax = groups[g];
    r->top = (double)sx__row_max(x, n);
    r->t = (double)temperature;
    r->lam = (double)lambda;
    r->c0 = -r->lam / sqrt((double)r->kmax);
}

/* p at sigma into out, times `scale`; returns the sum of the unscaled values (in double). */
static double gm_write(float *out, const gm_row *r, double sigma, double scale) {
    gm_group g;
    double sum = 0.0;
    for (int j = 0, from = 0; j < r->n_groups; from += r->groups[j++]) {
        const int size = r->groups[j];
        gm_group_at(r, from, size, sigma, &g);
        for (int i = from; i < from + size; i++) {
            const double z = gm_z(r, i);
            const double v = g.s > 0.0 && z - sigma > r->c0 ? g.s * (g.b + (z - g.m)) : 0.0;
            sum += v;
            out[i] = (float)(v * scale);
        }
    }
    return sum;
}

/* p of one row into out; returns 0 for an all-masked row (out zeroed), else 1 and *sigma.
   When the scores and lambda are so large that no double tau gives a mass within 1e-9 of 1
   (lambda = 1e30 with a spread of 1e38: the answer depends on differences far below the
   inputs' own rounding), p at the bracket's low end (mass > 1) is rescaled to sum to 1: on the
   simplex, to the precision the inputs carry. */
static int groupmax_row(float *out, const gm_row *r, int n, double *sigma_out) {
    if (r->top == -INFINITY) {
        memset(out, 0, (size_t)n * sizeof(float));
        return 0;
    }
    double lo;
    const double sigma = gm_sigma(r, &lo);
    *sigma_out = sigma;
    const double sum = gm_write(out, r, sigma, 1.0);
    if (!(fabs(sum - 1.0) > 1e-9)) return 1;
    const double slo = gm_write(out, r, lo, 1.0);
    if (slo > 0.0) gm_write(out, r, lo, 1.0 / slo);
    *sigma_out = lo;
    return 1;
}

/* ------------------------------------------------------------ argument checks */
static int check_lambda(float lambda) {
    if (lambda != lambda || lambda == INFINITY)
        return sx__fail(SX_EINVAL, -1, "lambda must be finite (got %g)", (double)lambda);
    if (lambda < 0.0f) return sx__fail(SX_EINVAL, -1, "lambda must be >= 0 (got %g)", (double)lambda);
    return SX_OK;
}

/* groups: n_groups positive sizes summing to n. */
static int check_groups(const int *groups, int n_groups, int n) {
    if (n_groups < 1) return sx__fail(SX_EINVAL, -1, "n_groups must be >= 1 (got %d)", n_groups);
    if (n_groups > n) return sx__fail(SX_EINVAL, -1, "n_groups must be <= n (got %d, n = %d)", n_groups, n);
    if (!groups) return sx__null("groups");
    long long sum = 0;
    for (int g = 0; g < n_groups; g++) {
        if (groups[g] < 1)
            return sx__fail(SX_EINVAL, -1, "groups[%d] must be >= 1 (got %d)", g, groups[g]);
        sum += groups[g];
    }
    if (sum != n)
        return sx__fail(SX_EINVAL, -1, "groups must sum to n (got %g, n = %d)", (double)sum, n);
    return SX_OK;
}

static int check_args(const void *out, const char *out_name, const float *x, int rows, int n,
                      const int *groups, int n_groups, float lambda, float temperature) {
    int st = sx__check_dims_as(out, out_name, x, "x", rows, n);
    if (!st) st = sx__check_temperature(temperature);
    if (!st) st = check_lambda(lambda);
    if (!st) st = check_groups(groups, n_groups, n);
    if (!st) st = sx__check_scores(x, (size_t)rows * (size_t)n, "x", 1);
    return st;
}

/* ------------------------------------------------------------------ public */
int sx_groupmax(float *out, const float *x, int rows, int n, const int *groups, int n_groups,
                float lambda, float temperature) {
    int st = check_args(out, "out", x, rows, n, groups, n_groups, lambda, temperature);
    if (st) return st;
    if (lambda == 0.0f) return sx_sparsemax(out, x, rows, n, temperature);
    for (int row = 0; row < rows; row++) {
        const float *x_r = x + (size_t)row * n;
        gm_row r;
        gm_init(&r, x_r, groups, n_groups, lambda, temperature, n);
        double sigma;
        groupmax_row(out + (size_t)row * n, &r, n, &sigma);
    }
    return SX_OK;
}

int sx_groupmax_backward(float *dx, const float *x, const float *dy, int rows, int n, const int *groups,
                         int n_groups, float lambda, float temperature) {
    int st = check_args(dx, "dx", x, rows, n, groups, n_groups, lambda, temperature);
    if (!st && rows > 0 && !dy) st = sx__null("dy");
    if (!st) st = sx__check_scores(dy, (size_t)rows * (size_t)n, "dy", 0);
    if (st) return st;
    if (lambda == 0.0f) return sx_sparsemax_backward(dx, x, dy, rows, n, temperature);
    const double inv_t = 1.0 / (double)temperature, lam = (double)lambda;
    for (int row = 0; row < rows; row++) {
        const float *x_r = x + (size_t)row * n, *dy_r = dy + (size_t)row * n;
        float *dx_r = dx + (size_t)row * n;
        gm_row r;
        gm_init(&r, x_r, groups, n_groups, lambda, temperature, n);
        double sigma;
        if (!groupmax_row(dx_r, &r, n, &sigma)) continue; /* all masked: zeros */
        /* pass 1: c = sum_g 1^T M_g 1 and w^T dy, per active group from u^T dy and sum_S dy */
        double c = 0.0, wdy = 0.0;
        gm_group g;
        for (int j = 0, from = 0; j < n_groups; from += groups[j++]) {
            gm_group_at(&r, from, groups[j], sigma, &g);
            if (g.s == 0.0) continue;
            double udy = 0.0, sdy = 0.0;
            for (int i = from; i < from + groups[j]; i++) {
                const double z = gm_z(&r, i);
                if (z - sigma > r.c0) { udy += (g.b + (z - g.m)) * dy_r[i]; sdy += dy_r[i]; }
            }
            const double L = g.k * g.b, lr3 = lam / (g.r * g.r * g.r);
            c += g.s * g.k + lr3 * L * L;
            wdy += g.s * sdy + lr3 * L * udy;
        }
        const double a = c > 0.0 ? wdy / c : 0.0; /* dtau (times T) */
        /* pass 2: dx_i = (1/T) (s dy_i + lambda u_i (u^T dy) / r^3 - w_i a) on S_g, 0 elsewhere,
           w_i = s + lambda L u_i / r^3 */
        for (int j = 0, from = 0; j < n_groups; from += groups[j++]) {
            const int size = groups[j];
            gm_group_at(&r, from, size, sigma, &g);
            double udy = 0.0;
            if (g.s > 0.0)
                for (int i = from; i < from + size; i++) {
                    const double z = gm_z(&r, i);
                    if (z - sigma > r.c0) udy += (g.b + (z - g.m)) * dy_r[i];
                }
            const double L = g.k * g.b, lr3 = g.s > 0.0 ? lam / (g.r * g.r * g.r) : 0.0;
            for (int i = from; i < from + size; i++) {
                const double z = gm_z(&r, i);
                double v = 0.0;
                if (g.s > 0.0 && z - sigma > r.c0) {
                    const double u = g.b + (z - g.m), w = g.s + lr3 * L * u;
                    v = (g.s * dy_r[i] + lr3 * u * udy - w * a) * inv_t;
                }
                dx_r[i] = (float)v + 0.0f;
            }
        }
    }
    return SX_OK;
}

SX_COLD_END
