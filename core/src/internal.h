/* internal.h - helpers shared by the core's files (double prefix sx__, never exported). */
#ifndef SX_INTERNAL_H
#define SX_INTERNAL_H

#include <stddef.h>
#include "simplexity.h"

/* Record a failure and return its status: sx__fail(SX_EINVAL, -1, "n must be >= 1 (got %d)", n).
   Formats with a tiny built-in formatter (%d %g %s only), no stdio. */
int sx__fail(int status, int index, const char *fmt, ...);

/* Validate the common arguments of a mapping call (sizes, null buffers: the empty-call rule of
   simplexity.h's CONVENTIONS, rows = 0 takes NULL buffers). Returns SX_OK or a recorded failure
   naming the NULL buffer: "null buffer (out)" (sx__null). _as names the two buffers, _grad
   checks a backward pass's dx, x and dy. */
int sx__null(const char *name);
int sx__check_dims(const void *out, const void *x, int rows, int n);
int sx__check_dims_as(const void *out, const char *out_name, const void *x, const char *x_name,
                      int rows, int n);
int sx__check_grad_dims(const void *dx, const void *x, const void *dy, int rows, int n);
int sx__check_temperature(float temperature);
/* Every score finite or -Infinity: returns SX_OK or SX_ENONFINITE with the index recorded.
   `name` is the argument name used in the message ("x" or "dy"). For dy, -Infinity is
   also an error (allow_neg_inf = 0). */
int sx__check_scores(const float *x, size_t count, const char *name, int allow_neg_inf);

/* A mapping code the attention entry points take (SX_MAP_SOFTMAX, SPARSEMAX, ENTMAX15, ENTMAX
   with alpha = param >= 1, FUSEDMAX with lambda = param >= 0) and its parameter. */
int sx__check_attention_mapping(int mapping, float param);

/* max of a row (SIMD, pmax). -INFINITY for an all -Infinity row. */
float sx__row_max(const float *x, int n);

/* Sparsemax of one prepared row: z finite or -Infinity, at least one finite entry.
   Writes p (p may equal z: in place is allowed). Returns tau. */
float sx__sparsemax_row(float *p, const float *z, int n);
/* d = (x - m) * s for the entries with d > lo, in order, into c[0 .. cap); returns their count, or
   -1 when more than cap (c's contents then undefined). One SIMD pass, branch-free compaction.
   sparsemax's threshold solves on this list for rows of SX_GATHER_MIN_N entries or more
   (shorter rows do not win back the list's ~80 ns). 1.5-entmax gains nothing from it below
   n = 4096: its Newton converges in 2-3 passes and its list (x within 2 of the max) is longer. */
int sx__gather_above(float *c, int cap, const float *x, int n, float m, float s, float lo);
#define SX_GATHER_CAP 256
#define SX_GATHER_MIN_N 384
/* Sparsemax backward of one row from its output p: dz_i = s (g_i - mean_{S} g) on the
   support S = {p > 0}, 0 elsewhere (s = 1/T: scaling here, not after, keeps a finite result
   finite when dy is huge and T large). dz may equal p. */
void sx__sparsemax_backward_row(float *dz, const float *p, const float *g, int n, float s);
/* The same, for a mapping that then averages dz over groups of equal p (fusedmax runs, oscarmax
   blocks): where max |g| >= 2^100, g_i - mean_S g can overflow float although every group's
   average fits, so such a row is computed from g * 2^-100 (exact: a power of two; tmp holds it,
   n floats) and the factor the caller multiplies its averages by, 2^100, is returned; else 1. */
double sx__sparsemax_backward_row_grouped(float *dz, const float *p, const float *g, int n, float s, float *tmp);
/* alpha-entmax backward of one row from its output p (entmax.c): dz_i = s_i (g_i - sum s g /
   sum s) invt on the support, s = p^(2 - alpha) (e2 = 2 - alpha), 0 elsewhere, clamped to
   +-FLT_MAX. ls: n doubles of scratch. dz may equal p. */
void sx__entmax_alpha_backward_row(float *dz, const float *p, const float *g, int n, double e2, double invt,
                                   double *ls);
#define SX_ENTMAX_BW_STACK 256

/* A model's token block (model.c, rnn.c): tok not NULL, len in [min_len, max_len], every id in
   [0, vocab), else SX_EINVAL naming fn, the block and the offending [row][column]; and a call's
   count in [1, max_batch]. */
int sx__check_tokens(const char *fn, const char *name, const int *tok, int len, int count, int min_len,
                     int max_len, int vocab);
int sx__check_count(const char *fn, int count, int max_batch);

/* The chain's argument checks (chain.c, sparsemap.c): sizes and NULL buffers, t finite, u finite
   or -Infinity, dmu finite. */
int sx__chain_check_t(float t);
int sx__chain_check_n(int n); /* SparseMAP's n <= SX_CHAIN_SPARSEMAP_MAX_N */
int sx__chain_check_forward(float *mu, const float *u, int rows, int n, float t);
int sx__chain_check_backward(float *du, const float *u, const float *dmu, int rows, int n, float t);

/* Code off the hot paths (argument checks, explanations, demos at page scale) compiles for size
   under clang (emcc), which otherwise unrolls and vectorises its loops into kilobytes of wasm that
   every page fetches: a file wraps its functions in SX_COLD_BEGIN ... SX_COLD_END, after its
   includes. gcc (the native tests and benchmarks) ignores it. */
#if defined(__clang__)
#define SX_COLD_BEGIN _Pragma("clang attribute push(__attribute__((minsize)), apply_to = function)")
#define SX_COLD_END _Pragma("clang attribute pop")
#define SX_COLD_FN __attribute__((minsize)) /* one function */
#else
#define SX_COLD_BEGIN
#define SX_COLD_END
#define SX_COLD_FN
#endif

#endif
