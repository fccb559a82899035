/* ref_structured.c - float64 references for fusedmax and oscarmax (see ref_structured.h).
   Deliberately simple and by different algorithms than core/src: a test compares the two. */
#include <math.h>
#include <string.h>
#include "ref_structured.h"

#define RS_MAX 4096

/* ---------------------------------------------------------------- sparsemax */
void rs_sparsemax(double *p, const double *z, int m) {
    static double s[RS_MAX];
    memcpy(s, z, (size_t)m * sizeof(double));
    for (int i = 1; i < m; i++) { /* insertion sort, descending */
        double v = s[i];
        int j = i;
        for (; j > 0 && s[j - 1] < v; j--) s[j] = s[j - 1];
        s[j] = v;
    }
    double cum = 0.0, tau = s[0] - 1.0;
    for (int r = 1; r <= m; r++) {
        cum += s[r - 1];
        if (1.0 + r * s[r - 1] > cum) tau = (cum - 1.0) / r;
    }
    for (int i = 0; i < m; i++) p[i] = z[i] > tau ? z[i] - tau : 0.0;
}

/* ---------------------------------------------------------------- TV prox */
/* Dual: min_u 1/2 ||z - D^T u||^2 over |u_k| <= lam, y = z - D^T u, y_i = z_i - u_{i-1} + u_i.
   Exact coordinate minimisation: u_k += (y_{k+1} - y_k) / 2, clipped. */
void rs_tv_prox(double *y, const double *z, int m, double lam) {
    double u[64] = { 0 };
    double scale = lam;
    for (int i = 0; i < m; i++) {
        y[i] = z[i];
        if (fabs(z[i]) > scale) scale = fabs(z[i]);
    }
    for (int sweep = 0; sweep < 200000; sweep++) {
        double moved = 0.0;
        for (int k = 0; k + 1 < m; k++) {
            double v = u[k] + 0.5 * (y[k + 1] - y[k]);
            if (v > lam) v = lam;
            if (v < -lam) v = -lam;
            double d = v - u[k];
            u[k] = v;
            y[k] += d;
            y[k + 1] -= d;
            if (fabs(d) > moved) moved = fabs(d);
        }
        if (moved <= 1e-16 * scale) break;
    }
}

/* ---------------------------------------------------------------- rows with masks */
/* Compacts the unmasked entries of x into z = (x - max) / t; returns their count. */
static int rs_compact(double *z, int *idx, const double *x, int n, double t) {
    double top = -INFINITY;
    for (int i = 0; i < n; i++)
        if (x[i] > top) top = x[i];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (x[i] != -INFINITY) {
            z[m] = (x[i] - top) / t;
            idx[m++] = i;
        }
    return m;
}

void rs_fusedmax(double *p, const double *x, int n, double lam, double t) {
    static double z[RS_MAX], y[RS_MAX], q[RS_MAX];
    static int idx[RS_MAX];
    int m = rs_compact(z, idx, x, n, t);
    for (int i = 0; i < n; i++) p[i] = 0.0;
    if (m == 0) return;
    rs_tv_prox(y, z, m, lam);
    rs_sparsemax(q, y, m);
    for (int j = 0; j < m; j++) p[idx[j]] = q[j];
}

/* sort descending (ties by index), subtract beta (m - 1 - k) at rank k, PAV, unsort. */
static void rs_oscar_prox(double *v, const double *z, int m, double beta) {
    static int ord[RS_MAX], start[RS_MAX], cnt[RS_MAX];
    static double sum[RS_MAX];
    for (int i = 0; i < m; i++) ord[i] = i;
    for (int i = 1; i < m; i++) {
        int o = ord[i], j = i;
        for (; j > 0 && (z[ord[j - 1]] < z[o] || (z[ord[j - 1]] == z[o] && ord[j - 1] > o)); j--)
            ord[j] = ord[j - 1];
        ord[j] = o;
    }
    int nb = 0;
    for (int k = 0; k < m; k++) {
        sum[nb] = z[ord[k]] - beta * (m - 1 - k);
        start[nb] = k;
        cnt[nb] = 1;
        nb++;
        while (nb > 1 && sum[nb - 2] / cnt[nb - 2] < sum[nb - 1] / cnt[nb - 1]) {
            sum[nb - 2] += sum[nb - 1];
            cnt[nb - 2] += cnt[nb - 1];
            nb--;
        }
    }
    for (int b = 0; b < nb; b++)
        for (int k = start[b]; k < start[b] + cnt[b]; k++) v[ord[k]] = sum[b] / cnt[b];
}

void rs_oscarmax(double *p, const double *x, int n, double beta, double t) {
    static double z[RS_MAX], v[RS_MAX], q[RS_MAX];
    static int idx[RS_MAX];
    int m = rs_compact(z, idx, x, n, t);
    for (int i = 0; i < n; i++) p[i] = 0.0;
    if (m == 0) return;
    rs_oscar_prox(v, z, m, beta);
    rs_sparsemax(q, v, m);
    for (int j = 0; j < m; j++) p[idx[j]] = q[j];
}

/* ---------------------------------------------------------------- brute force */
double rs_oscar_objective(const double *p, const double *z, int n, double beta) {
    double f = 0.0;
    for (int i = 0; i < n; i++) f += 0.5 * (p[i] - z[i]) * (p[i] - z[i]);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) f += beta * (p[i] > p[j] ? p[i] : p[j]);
    return f;
}

/* Within the cone where p is ordered by perm, the objective is 1/2||p - a||^2 + const with
   a_k = z_perm(k) - beta (n - 1 - k). Its faces: consecutive ranks tied into groups, the last group
   possibly at 0. On a face the minimiser with sum 1 is p_g = mean_g(a) - nu. Every feasible face
   minimiser is a point of the simplex, and the optimum is one of them, so the best is exact. */
static void rs_faces(const int *perm, const double *z, int n, double beta, double *best_f, double *best_p) {
    double a[8], p[8], cand[8];
    for (int k = 0; k < n; k++) a[k] = z[perm[k]] - beta * (n - 1 - k);
    for (int cuts = 0; cuts < (1 << (n - 1)); cuts++) {
        int gstart[8], ng = 0;
        gstart[ng++] = 0;
        for (int k = 0; k + 1 < n; k++)
            if (cuts & (1 << k)) gstart[ng++] = k + 1;
        gstart[ng] = n;
        for (int zero_last = 0; zero_last < 2; zero_last++) {
            int live = zero_last ? ng - 1 : ng;
            if (live == 0) continue;
            double s = 0.0;
            int c = 0;
            for (int k = 0; k < gstart[live]; k++) { s += a[k]; c++; }
            double nu = (s - 1.0) / c;
            for (int g = 0; g < ng; g++) {
                double mean = 0.0;
                for (int k = gstart[g]; k < gstart[g + 1]; k++) mean += a[k];
                mean /= gstart[g + 1] - gstart[g];
                for (int k = gstart[g]; k < gstart[g + 1]; k++) p[k] = g < live ? mean - nu : 0.0;
            }
            int ok = 1;
            for (int k = 0; k < n; k++)
                if (p[k] < -1e-13 || (k + 1 < n && p[k] < p[k + 1] - 1e-13)) ok = 0;
            if (!ok) continue;
            for (int k = 0; k < n; k++) cand[perm[k]] = p[k] > 0.0 ? p[k] : 0.0;
            double f = rs_oscar_objective(cand, z, n, beta);
            if (f < *best_f) {
                *best_f = f;
                memcpy(best_p, cand, (size_t)n * sizeof(double));
            }
        }
    }
}

static void rs_permute(int *perm, int k, int n, const double *z, double beta, double *best_f, double *best_p) {
    if (k == n) {
        rs_faces(perm, z, n, beta, best_f, best_p);
        return;
    }
    for (int i = k; i < n; i++) {
        int t = perm[k]; perm[k] = perm[i]; perm[i] = t;
        rs_permute(perm, k + 1, n, z, beta, best_f, best_p);
        t = perm[k]; perm[k] = perm[i]; perm[i] = t;
    }
}

double rs_oscar_bruteforce(double *p, const double *z, int n, double beta) {
    int perm[8];
    double best = INFINITY;
    for (int i = 0; i < n; i++) perm[i] = i;
    rs_permute(perm, 0, n, z, beta, &best, p);
    return best;
}
