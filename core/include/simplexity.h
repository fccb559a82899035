/* simplexity.h - sparse attention mappings onto the simplex, in C99.

   One public header. Every mapping takes `rows` rows of `n` scores, row-major,
   and writes `rows * n` probabilities. Every function that can fail returns an
   int status (SX_OK = 0); sx_status_str(status) names it and sx_last_error()
   gives the detail of the last failure (which argument, which element).

   USAGE

     float x[2 * 3] = { 1.5f, 0.0f, 1.0f,   3.0f, -INFINITY, 1.0f };
     float p[2 * 3];
     int st = sx_entmax(p, x, 2, 3, 1.5f, 1.0f);   // alpha 1.5, temperature 1
     if (st != SX_OK) fprintf(stderr, "%s\n", sx_last_error());

   CONVENTIONS
   - Outputs first, then inputs, then sizes, then parameters (llm.c order).
   - `temperature` T > 0 maps the scores x to x / T before the mapping.
   - Scores may be -INFINITY: a masked entry gets exactly 0 and the rest of the
     row is mapped as if it were absent. A row that is entirely -INFINITY maps to
     all zeros (and its backward pass to all zeros). NaN and +INFINITY scores are
     errors (SX_ENONFINITE), never silent NaN output.
   - Backward passes compute the vector-Jacobian product: dx = J(x)^T dy, the
     gradient of <dy, mapping(x)> with respect to x (the 1/T factor included).
     They overwrite dx (they do not accumulate). At a point exactly on a support
     boundary the mapping is not differentiable; we return the Jacobian of the
     smaller support.
   - Output buffers must not overlap inputs. The core keeps no pointer after a
     call returns. oscarmax allocates its scratch once per call and returns
     SX_ENOMEM if it cannot; alpha-entmax (alpha not 1, 1.5, 2) uses scratch to
     shrink its candidate set and falls back to plain bisection without it.
   - Gradients scale as 1/T: for T below about 1e-38 they overflow to +-Infinity
     (never NaN); at T = 1e-6 everything stays finite.
   - Not thread-safe: sx_last_error() is one static buffer.
   - alpha-entmax for alpha > 4 is ill-conditioned in any precision; it is
     computed (no NaN) but not to float32 accuracy.
*/
#ifndef SIMPLEXITY_H
#define SIMPLEXITY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever an exported signature or a memory convention changes; the
   JS loader refuses a .wasm whose ABI differs from the one it was written for. */
#define SX_ABI_VERSION 1

enum {
    SX_OK = 0,
    SX_EINVAL = 1,      /* a size or parameter is out of range */
    SX_ENONFINITE = 2,  /* a score is NaN or +Infinity (or a probability is NaN, negative, Inf) */
    SX_ENOMEM = 3       /* scratch memory could not be allocated */
};

int sx_abi_version(void);
const char *sx_status_str(int status);
/* Detail of the last failure, e.g. "x[5] is NaN". Empty after success is not
   guaranteed: read it only after a call returned a non-zero status. */
const char *sx_last_error(void);
/* Flat index (row * n + i) of the offending element of the last SX_ENONFINITE
   failure, -1 otherwise. */
int sx_last_error_index(void);

/* ---------------------------------------------------------------- mappings */
/* softmax: exp(z - max z) / sum. Dense. */
int sx_softmax(float *out, const float *x, int rows, int n, float temperature);
/* sparsemax: Euclidean projection onto the simplex, [z - tau]_+. */
int sx_sparsemax(float *out, const float *x, int rows, int n, float temperature);
/* 1.5-entmax, exact: [z/2 - tau]_+^2. */
int sx_entmax15(float *out, const float *x, int rows, int n, float temperature);
/* alpha-entmax for any alpha >= 1: softmax at 1, sparsemax at 2, the exact
   1.5 method at 1.5, bisection in double otherwise. */
int sx_entmax(float *out, const float *x, int rows, int n, float alpha, float temperature);
/* fusedmax: sparsemax(prox_TV(z; lambda)), z = x / T, lambda >= 0 (0 gives sparsemax).
   lambda acts on z (it is not scaled by T). Masked entries leave the TV chain: each
   unmasked entry is linked to the next unmasked one. */
int sx_fusedmax(float *out, const float *x, int rows, int n, float lambda, float temperature);
/* oscarmax: argmin over the simplex of 1/2||p - z||^2 + beta sum_{i<j} max(p_i, p_j),
   z = x / T, beta >= 0 (acting on z). Shift invariant. Masked entries are left out. */
int sx_oscarmax(float *out, const float *x, int rows, int n, float beta, float temperature);

/* ---------------------------------------------------------- backward passes */
int sx_softmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature);
int sx_sparsemax_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature);
int sx_entmax15_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature);
int sx_entmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float alpha,
                       float temperature);
int sx_fusedmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float lambda,
                         float temperature);
int sx_oscarmax_backward(float *dx, const float *x, const float *dy, int rows, int n, float beta,
                         float temperature);
/* d <dy, entmax(x; alpha)> / d alpha, one value per row (dalpha has `rows` entries). */
int sx_entmax_alpha_grad(float *dalpha, const float *x, const float *dy, int rows, int n, float alpha,
                         float temperature);

/* ---------------------------------------------------------------- entropies */
/* Tsallis alpha-entropy per row: sum_i (p_i - p_i^alpha) / (alpha (alpha - 1)), which
   is (1 - sum p^alpha) / (alpha (alpha - 1)) on the simplex, and Shannon -sum p log p
   at alpha = 1; h has `rows` entries. alpha > 0 (the entropy pictures use 0.5).
   p must be finite and >= 0; rows need not sum to 1 (the per-entry form keeps the
   value continuous in alpha even when float rounding leaves a row off the simplex). */
int sx_tsallis_entropy(float *h, const float *p, int rows, int n, float alpha);

/* ------------------------------------------------------------------- memory */
/* malloc/free for the JS side (wasm callers have no other allocator). */
void *sx_malloc(int bytes);
void sx_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif /* SIMPLEXITY_H */
