/* ref_structured.h - float64 references for fusedmax and oscarmax, by other algorithms than the
   core's: a dual coordinate-descent TV prox, a sort-based sparsemax, the sort + PAV oscar prox,
   and an exhaustive search over the faces of the simplex for the oscarmax argmin (small n). */
#ifndef SX_REF_STRUCTURED_H
#define SX_REF_STRUCTURED_H

/* sparsemax of z (m entries, all finite), by sorting. */
void rs_sparsemax(double *p, const double *z, int m);
/* prox_TV(z; lam) by coordinate descent on the box-constrained dual, to ~1e-14. m <= 64. */
void rs_tv_prox(double *y, const double *z, int m, double lam);
/* fusedmax / oscarmax of a row of n scores (-INFINITY entries are masked: 0, and the rest is
   mapped as if absent; the TV chain links consecutive unmasked entries), at temperature t. */
void rs_fusedmax(double *p, const double *x, int n, double lam, double t);
void rs_oscarmax(double *p, const double *x, int n, double beta, double t);
/* The oscarmax objective 1/2||p - z||^2 + beta sum_{i<j} max(p_i, p_j), literally. */
double rs_oscar_objective(const double *p, const double *z, int n, double beta);
/* The exact argmin of that objective over the simplex by enumerating every ordering and every
   face of (order cone x simplex), n <= 6. Returns the objective value. */
double rs_oscar_bruteforce(double *p, const double *z, int n, double beta);

#endif
