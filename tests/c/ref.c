/* ref.c - naive float64 reference mappings (see ref.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* finite entries of z, sorted descending, into a fresh array; returns their count */
static int sorted_finite(double **out, const double *z, int n) {
    double *s = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int k = 0;
    for (int i = 0; i < n; i++)
        if (z[i] != -INFINITY) s[k++] = z[i];
    qsort(s, (size_t)k, sizeof(double), cmp_desc);
    *out = s;
    return k;
}

static double max_of(const double *z, int n) {
    double m = -INFINITY;
    for (int i = 0; i < n; i++)
        if (z[i] > m) m = z[i];
    return m;
}

void ref_softmax(double *p, const double *z, int n) {
    double m = max_of(z, n), s = 0.0;
    if (m == -INFINITY) { memset(p, 0, sizeof(double) * (size_t)n); return; }
    for (int i = 0; i < n; i++) s += p[i] = exp(z[i] - m);
    for (int i = 0; i < n; i++) p[i] /= s;
}

double ref_sparsemax(double *p, const double *z, int n) {
    double *s;
    int m = sorted_finite(&s, z, n);
    if (m == 0) { free(s); memset(p, 0, sizeof(double) * (size_t)n); return 0.0; }
    double cum = 0.0, tau = 0.0;
    int k = 0;
    for (int r = 1; r <= m; r++) {
        cum += s[r - 1];
        if (1.0 + r * s[r - 1] > cum) k = r;
    }
    cum = 0.0;
    for (int r = 0; r < k; r++) cum += s[r];
    tau = (cum - 1.0) / k;
    for (int i = 0; i < n; i++) p[i] = z[i] > tau ? z[i] - tau : 0.0;
    free(s);
    return tau;
}

double ref_entmax15(double *p, const double *z, int n) {
    double *s;
    int m = sorted_finite(&s, z, n);
    if (m == 0) { free(s); memset(p, 0, sizeof(double) * (size_t)n); return 0.0; }
    double mx = s[0];
    for (int i = 0; i < m; i++) s[i] = (s[i] - mx) / 2.0;
    double sum = 0.0, sumsq = 0.0, tau_k = 0.0;
    int k = 0;
    for (int r = 1; r <= m; r++) {
        sum += s[r - 1];
        sumsq += s[r - 1] * s[r - 1];
        double mean = sum / r, meansq = sumsq / r;
        double ss = r * (meansq - mean * mean);
        double delta = (1.0 - ss) / r;
        double tau = mean - sqrt(delta > 0.0 ? delta : 0.0);
        if (tau <= s[r - 1]) { k++; }
        if (k == r) tau_k = tau;
    }
    /* k = #{r : tau_r <= zs_r}; recompute tau_k from the first k (the count, as in the paper) */
    sum = sumsq = 0.0;
    for (int r = 1; r <= k; r++) { sum += s[r - 1]; sumsq += s[r - 1] * s[r - 1]; }
    {
        double mean = sum / k, ss = sumsq - k * mean * mean, delta = (1.0 - ss) / k;
        tau_k = mean - sqrt(delta > 0.0 ? delta : 0.0);
    }
    for (int i = 0; i < n; i++) {
        double u = z[i] == -INFINITY ? -1.0 : (z[i] - mx) / 2.0 - tau_k;
        p[i] = u > 0.0 ? u * u : 0.0;
    }
    free(s);
    return tau_k;
}

void ref_entmax_bisect(double *p, const double *z, int n, double alpha) {
    double mx = max_of(z, n);
    if (mx == -INFINITY) { memset(p, 0, sizeof(double) * (size_t)n); return; }
    long double am1 = (long double)alpha - 1.0L, q = 1.0L / am1;
    long double lo = -1.0L, hi = -powl(1.0L / n, am1);
    for (int it = 0; it < 200; it++) {
        long double mid = 0.5L * (lo + hi), f = -1.0L;
        for (int i = 0; i < n; i++) {
            if (z[i] == -INFINITY) continue;
            long double u = am1 * ((long double)z[i] - mx) - mid;
            if (u > 0.0L) f += powl(u, q);
        }
        if (f > 0.0L) lo = mid; else hi = mid;
    }
    long double tau = 0.5L * (lo + hi), s = 0.0L;
    long double *tmp = malloc(sizeof(long double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        long double u = z[i] == -INFINITY ? -1.0L : am1 * ((long double)z[i] - mx) - tau;
        tmp[i] = u > 0.0L ? powl(u, q) : 0.0L;
        s += tmp[i];
    }
    for (int i = 0; i < n; i++) p[i] = (double)(tmp[i] / s);
    free(tmp);
}

void ref_entmax(double *p, const double *z, int n, double alpha) {
    if (alpha == 1.0) ref_softmax(p, z, n);
    else if (alpha == 2.0) ref_sparsemax(p, z, n);
    else ref_entmax_bisect(p, z, n, alpha);
}

void ref_softmax_backward(double *dz, const double *p, const double *g, int n) {
    double dot = 0.0;
    for (int i = 0; i < n; i++) dot += p[i] * g[i];
    for (int i = 0; i < n; i++) dz[i] = p[i] * (g[i] - dot);
}

void ref_entmax_backward(double *dz, const double *p, const double *g, int n, double alpha) {
    double ss = 0.0, sg = 0.0;
    for (int i = 0; i < n; i++) {
        double s = p[i] > 0.0 ? pow(p[i], 2.0 - alpha) : 0.0;
        ss += s;
        sg += s * g[i];
    }
    for (int i = 0; i < n; i++) {
        double s = p[i] > 0.0 ? pow(p[i], 2.0 - alpha) : 0.0;
        dz[i] = ss > 0.0 ? s * g[i] - sg / ss * s : 0.0;
    }
}

double ref_entmax_alpha_grad_fd(const double *z, const double *g, int n, double alpha, double h) {
    double *p = malloc(sizeof(double) * (size_t)n);
    double fp = 0.0, fm = 0.0;
    ref_entmax_bisect(p, z, n, alpha + h);
    for (int i = 0; i < n; i++) fp += g[i] * p[i];
    ref_entmax_bisect(p, z, n, alpha - h);
    for (int i = 0; i < n; i++) fm += g[i] * p[i];
    free(p);
    return (fp - fm) / (2.0 * h);
}

double ref_tsallis(const double *p, int n, double alpha) {
    double s = 0.0;
    if (alpha == 1.0) {
        for (int i = 0; i < n; i++)
            if (p[i] > 0.0) s -= p[i] * log(p[i]);
        return s;
    }
    /* the per-entry form sum (p - p^alpha) / (alpha (alpha - 1)): equal to (1 - sum p^alpha) / ...
       on the simplex, and what the header defines off it (long double: alpha near 1 cancels) */
    long double t = 0.0L;
    for (int i = 0; i < n; i++)
        if (p[i] > 0.0) t += (long double)p[i] - powl((long double)p[i], (long double)alpha);
    s = (double)(t / ((long double)alpha * ((long double)alpha - 1.0L)));
    return s;
}
