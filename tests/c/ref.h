/* ref.h - naive float64 reference mappings for the tests (sort-based, bisection), written for
   obviousness, not speed. Inputs are already divided by the temperature; -INFINITY entries are
   masks (exact 0 out); an all -INFINITY row gives all zeros. */
#ifndef SX_REF_H
#define SX_REF_H

void ref_softmax(double *p, const double *z, int n);
/* sort descending, k = max{r : 1 + r zs_r > sum_{i<=r} zs_i}, tau = (sum_{i<=k} zs_i - 1) / k */
double ref_sparsemax(double *p, const double *z, int n);
/* sort-based exact 1.5-entmax (Peters et al. 2019), p = [z/2 - tau]_+^2; returns tau */
double ref_entmax15(double *p, const double *z, int n);
/* bisection in long double (200 halvings) on tau in [max X - 1, max X - (1/n)^(alpha-1)],
   X = (alpha - 1) z, then renormalised. alpha > 1. */
void ref_entmax_bisect(double *p, const double *z, int n, double alpha);
/* alpha-entmax by the references: softmax at 1, sparsemax at 2, bisection otherwise. */
void ref_entmax(double *p, const double *z, int n, double alpha);

/* vector-Jacobian products from the closed-form Jacobians, given p */
void ref_softmax_backward(double *dz, const double *p, const double *g, int n);
void ref_entmax_backward(double *dz, const double *p, const double *g, int n, double alpha);
/* d <g, entmax(z; alpha)> / d alpha by central differences of ref_entmax (h relative) */
double ref_entmax_alpha_grad_fd(const double *z, const double *g, int n, double alpha, double h);

/* Tsallis entropy, direct formula (Shannon at alpha = 1) */
double ref_tsallis(const double *p, int n, double alpha);

#endif
