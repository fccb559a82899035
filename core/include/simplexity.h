/* simplexity.h - sparse attention mappings onto the simplex, in C99, and a tiny Transformer
   that uses them (sections: mappings, backward passes, entropies, Fenchel-Young losses, mapping codes,
   Jacobian and threshold, span and pooling, attention, tasks, model, memory; then beyond the
   simplex, positions, scoring functions, the recurrent encoder-decoder).

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
   - Empty calls, one rule for every entry point with an output pointer: a call whose outputs
     have zero elements (every size that may be 0 being 0: rows = 0, count = 0, n_q = 0, ...)
     is a no-op. Its sizes and scalar parameters are checked as always (a bad temperature, a
     bad mapping code, a NULL pattern or groups array are still errors); then it returns SX_OK,
     reads no buffer, writes nothing, and any of its buffers may be NULL. Only a fixed-size
     result is still written: sx_nw_pooling_backward's *dw (0, the gradient of an empty sum),
     sx_attention_tiled's tiles ({0, 0}). A buffer that has no elements in a call (k and v when
     Tk = 0) may be NULL too. Otherwise a NULL buffer where there are elements to read or write
     is SX_EINVAL, and sx_last_error() names it ("null buffer (dx)", "model_explain: out is
     NULL"); optional outputs (documented "may be NULL") are exempt. Sizes a function requires
     to be >= 1 (n for the mappings, a model's count and lengths) stay errors at 0.
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

/* 1 when this build runs WebAssembly SIMD (compiled with -msimd128), 0 otherwise (the scalar
   wasm build, and native builds, where SIMDe lowers the intrinsics to SSE or scalar code). */
int sx_build_simd(void);
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
/* prox_TV(z; lambda) = argmin_y 1/2 ||y - z||^2 + lambda sum_i |y_{i+1} - y_i|, z = x / T: fusedmax's
   first step (fusedmax = sparsemax of it). Masked (-Infinity) entries leave the chain as in
   sx_fusedmax and get -Infinity; values beyond the float range saturate to +-Infinity, as x / T
   would. runs (rows * n ints, or NULL) gets each entry's fused run, numbered from 0 in each row
   left to right (-1 where masked); the entries of a run have bitwise equal values. */
int sx_prox_tv(float *out, int *runs, const float *x, int rows, int n, float lambda, float temperature);
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

/* ====================================================== Fenchel-Young losses */
/* The loss of the mapping against a target, per row (Peters, Niculae & Martins 2019, sec. 3):
   L(z; y) = <p - y, z> + H(p) - H(y), z = x / T, p = the mapping of z, H the mapping's Tsallis
   entropy (see above): softmax gives the cross-entropy, sparsemax the sparsemax loss
   (H = (1 - ||p||^2) / 2), 1.5-entmax and alpha-entmax the entmax losses. L >= 0, and L = 0
   exactly when p = y (a sparse mapping reaches a one-hot target once the margin is met: for
   sparsemax z_t >= z_j + 1 for every j; softmax never does).
   mapping: SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15 or SX_MAP_ENTMAX (param = alpha,
   finite, >= 1; 1, 1.5 and 2 are the other three exactly); others are SX_EINVAL.
   loss: `rows` floats (+Infinity only when the scores overflow double, never NaN).
   dx (may be NULL): the gradient of sum(loss), (p - y) / T, rows * n floats.
   dalpha (may be NULL; SX_MAP_ENTMAX only): dL/dalpha per row (the envelope theorem: the
   entropy's derivative in alpha at p minus at y), continuous through alpha = 1.
   x as for the mappings (finite or -INFINITY). sx_fy_loss: y, rows * n floats, each row a
   distribution (finite, >= 0, summing to 1 within 1e-3; it is rescaled to sum 1) with no mass
   on a masked score (SX_EINVAL). sx_fy_loss_index: one-hot targets, target[r] in [0, n) and
   not masked, or -1 to skip the row (loss, dx and dalpha 0 there: padding). Allocates rows
   doubles (sx_fy_loss) and, when dx is NULL, rows * n floats: SX_ENOMEM if it cannot. */
int sx_fy_loss(float *loss, float *dx, float *dalpha, const float *x, const float *y, int rows, int n,
               int mapping, float param, float temperature);
int sx_fy_loss_index(float *loss, float *dx, float *dalpha, const float *x, const int *target, int rows, int n,
                     int mapping, float param, float temperature);

/* ================================================== structured attention over a sequence */
/* A linear chain of binary "attend / skip" variables y_1 .. y_n per row, scored
   s(y) = sum_i u_i y_i + t sum_i y_i y_{i+1}: unary scores u (finite or -Infinity: never
   selected) and one transition score t (finite; t > 0 rewards contiguous selections).
   sx_chain_marginals: the CRF marginals mu_i = P(y_i = 1), P(y) proportional to exp s(y), by
   forward-backward (Kim et al. 2017): dense, every unmasked position gets some weight.
   sx_chain_sparsemap: SparseMAP (Niculae et al. 2018), the unary marginals of the projection onto
   the chain's marginal polytope by the active-set method with Viterbi as the oracle: a sparse
   mixture of a few selections, listed with their weights (largest first) by
   sx_chain_sparsemap_support (count gets the number of selections, cap x n bytes of sel and cap
   floats of weight are written; cap = 0 only counts); its rows have at most
   SX_CHAIN_SPARSEMAP_MAX_N = 63 positions (SX_EINVAL beyond: up to 2n selections can be active,
   each step solves their KKT system afresh). mu_i is in [0, 1], not normalised.
   The backward passes take dmu (finite) and write du and, when dt is not NULL, the gradient
   wrt t summed over the rows. Each call allocates O(n) scratch (SparseMAP: up to 128 active
   selections, O(128 n + 128^2)): SX_ENOMEM if it cannot. */
#define SX_CHAIN_SPARSEMAP_MAX_N 63
int sx_chain_marginals(float *mu, const float *u, int rows, int n, float t);
int sx_chain_marginals_backward(float *du, float *dt, const float *u, const float *dmu, int rows, int n, float t);
int sx_chain_sparsemap(float *mu, const float *u, int rows, int n, float t);
int sx_chain_sparsemap_backward(float *du, float *dt, const float *u, const float *dmu, int rows, int n, float t);
int sx_chain_sparsemap_support(unsigned char *sel, float *weight, int cap, int *count, const float *u, int n,
                               float t);

/* =========================================================== mapping codes */
/* The `mapping` argument of sx_nw_pooling and sx_attention, and a model layer's mapping (the
   config ints SX_MODEL_MAP + layer): one set of codes for all three. The values are fixed (the
   JS API and the checkpoint format store them). `param` is the mapping's parameter where it has
   one, ignored otherwise. A function given a code it does not support fails with SX_EINVAL. */
enum {
    SX_MAP_SOFTMAX = 0,
    SX_MAP_SPARSEMAX = 1,
    SX_MAP_ENTMAX15 = 2,
    SX_MAP_ENTMAX = 3,         /* alpha-entmax, param = alpha >= 1 (a model layer: in [1, 8]) */
    SX_MAP_ENTMAX_LEARNED = 4, /* model layers only: alpha = 1 + sigmoid(a), a learned per head */
    SX_MAP_FUSEDMAX = 5,       /* param = lambda >= 0 */
    SX_MAP_OSCARMAX = 6        /* param = beta >= 0: sx_jacobian and model layers only; the others refuse it */
};
/* Deprecated: the former per-function names, aliases of SX_MAP_* kept so that existing code
   compiles (same values). New code uses SX_MAP_*. */
#define SX_POOL_SOFTMAX SX_MAP_SOFTMAX
#define SX_POOL_SPARSEMAX SX_MAP_SPARSEMAX
#define SX_POOL_ENTMAX15 SX_MAP_ENTMAX15
#define SX_POOL_ENTMAX SX_MAP_ENTMAX
#define SX_POOL_FUSEDMAX SX_MAP_FUSEDMAX
#define SX_ATTN_SOFTMAX SX_MAP_SOFTMAX
#define SX_ATTN_SPARSEMAX SX_MAP_SPARSEMAX
#define SX_ATTN_ENTMAX15 SX_MAP_ENTMAX15
#define SX_ATTN_ENTMAX SX_MAP_ENTMAX
#define SX_ATTN_FUSEDMAX SX_MAP_FUSEDMAX
#define SX_MODEL_SOFTMAX SX_MAP_SOFTMAX
#define SX_MODEL_SPARSEMAX SX_MAP_SPARSEMAX
#define SX_MODEL_ENTMAX15 SX_MAP_ENTMAX15
#define SX_MODEL_ENTMAX SX_MAP_ENTMAX
#define SX_MODEL_ENTMAX_LEARNED SX_MAP_ENTMAX_LEARNED
#define SX_MODEL_FUSEDMAX SX_MAP_FUSEDMAX

/* ================================================== Jacobian and threshold */
/* The mapping, whole: its Jacobian and its threshold, per row, for pictures and checks.
   mapping: SX_MAP_* (param as in the mapping codes: alpha >= 1 for SX_MAP_ENTMAX, lambda >= 0
   for SX_MAP_FUSEDMAX, beta >= 0 for SX_MAP_OSCARMAX; ignored otherwise; SX_MAP_ENTMAX_LEARNED
   is refused with SX_EINVAL). SX_MAP_ENTMAX at alpha 1, 1.5, 2 is softmax, SX_MAP_ENTMAX15,
   sparsemax, exactly as sx_entmax dispatches. x as for the mappings (finite or -INFINITY).

   USAGE

     float x[3] = { 2.0f, 1.0f, -1.0f }, J[3 * 3], tau[1];
     sx_jacobian(J, x, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 1.0f);  // J[i*3 + j] = dp_i / dx_j
     sx_threshold(tau, x, 1, 3, SX_MAP_SPARSEMAX, 0.0f, 1.0f); // tau[0] = 1: p = [x - 1]_+

   sx_jacobian: J (rows * n * n floats, the caller's), row r's block J[r n n + i n + j] =
   dp_i / dx_j of p = mapping(x_r), the 1/T factor included (so J^T dy equals the backward pass
   sx_*_backward(dy)). Closed forms read off p, all (1/T)(diag(w) - w w^T / sum w):
   softmax w = p; sparsemax w = 1 on the support S = {p > 0}, 0 off it (it depends on S only:
   p = [.99, .01, 0] and [.5, .5, 0] have the same Jacobian); alpha-entmax w = p^(2 - alpha)
   on S (1.5-entmax: sqrt p). These are symmetric and every row sums to 0. fusedmax and
   oscarmax: row j is their exact backward pass applied to the unit vector e_j (n backward
   passes per row; not symmetric in general). Masked (-INFINITY) entries have all-zero rows
   and columns; an all-masked row gives an all-zero block. At a point exactly on a support
   boundary: the Jacobian of the smaller support (the backward passes' convention).
   rows * n * n floats must fit in 2^31 - 1 bytes (at most 2^29 floats, as rows * n for the
   mappings): SX_EINVAL otherwise, before anything is read or written. Allocates 2 n doubles
   of scratch per call (SX_ENOMEM). alpha-entmax with alpha > 2 has an unbounded Jacobian at
   the support's edge: entries are clamped to +-FLT_MAX, never NaN.

   sx_threshold: tau (rows floats), the threshold of each row, in the units of the scores
   divided by the temperature, z = x / T (so for T = 1 it is drawn on the score axis):
   - SX_MAP_SPARSEMAX (and entmax at alpha 2): p_i = [z_i - tau]_+; the support is
     {z_i > tau}, and tau = (sum_S z_i - 1) / |S| over the forward pass's support S.
   - SX_MAP_ENTMAX15 and SX_MAP_ENTMAX (alpha > 1): p_i = [(alpha - 1) z_i - tau]_+^(1/(alpha-1))
     (docs/SCIENCE.md's convention; 1.5-entmax: p_i = [z_i / 2 - tau]_+^2). tau is on the scale
     of (alpha - 1) z: the line across the score bars z sits at tau / (alpha - 1), and the
     support is {z_i > tau / (alpha - 1)}. Closed form on the forward's support at 1.5,
     bisection in double (100 halvings) otherwise.
   - SX_MAP_SOFTMAX (and entmax at alpha 1): no threshold (softmax is dense): the log-sum-exp
     normaliser tau = log sum_i exp(z_i), with p_i = exp(z_i - tau).
   - SX_MAP_FUSEDMAX, SX_MAP_OSCARMAX: refused with SX_EINVAL (naming the mapping): their
     sparsemax thresholds an inner vector (prox_TV(z), the pooled z), not the scores, so a line
     across the score bars would mislead.
   An all-masked row gets tau = +INFINITY (every p_i = [-inf - tau]_+ = 0) for the sparse
   mappings and -INFINITY (the log of an empty sum) for softmax. tau overflows to +-Infinity
   when z does (tiny T); computed in double, rounded once to float. Scratch: n floats. */
int sx_jacobian(float *J, const float *x, int rows, int n, int mapping, float param, float temperature);
int sx_threshold(float *tau, const float *x, int rows, int n, int mapping, float param, float temperature);

/* ====================================================== span and pooling */
/* Two attention pieces on their own, for pictures and experiments.

   The adaptive span's soft mask (Sukhbaatar et al. 2019), as the model applies it to a head:
   m[i] = clamp((ramp + z - distances[i]) / ramp, 0, 1) for n distances (finite, >= 0) from the
   query back to the key; z >= 0 is the span in positions, ramp > 0 the width of the ramp.
   span_max > 0 clamps z into [0, span_max] first, as a model reads a head's z (a fraction of
   its max span L, clamped to [0, 1]: pass z = fraction * L and span_max = L); 0: no clamp.
   A NaN or +Infinity distance is SX_ENONFINITE (with its index), a negative one SX_EINVAL. */
int sx_span_mask(float *m, const float *distances, int n, float z, float ramp, float span_max);

/* Nadaraya-Watson attention pooling (D2L, "attention pooling by similarity"): for each of nq
   queries, out[i] = sum_j weights[i][j] values[j] with weights[i] = map(s_i) over the nk keys
   and scores s_ij = -((queries[i] - keys[j]) w)^2 / 2: a Gaussian kernel of width 1 / |w| for
   softmax, compact kernels (exact zeros) for the sparse mappings. w = 0 gives uniform weights;
   huge w tends to the nearest key(s). Scores are computed in double and shifted by their row
   max, so no finite w overflows; keys whose shifted score falls below -FLT_MAX get weight
   exactly 0. mapping: SX_MAP_* except SX_MAP_ENTMAX_LEARNED (param: alpha >= 1 for
   SX_MAP_ENTMAX, lambda >= 0 for SX_MAP_FUSEDMAX, ignored otherwise). leave_one_out = 1
   (needs nq == nk: the queries are the keys, as when w is trained on the data) masks key i for
   query i, so a point never predicts itself; a query with no visible key (nk = 1) gets zero
   weights and out 0.
   out (nq); weights (nq * nk, row-major) may be NULL. nq >= 0, nk >= 1; queries, keys and
   values finite (SX_ENONFINITE naming the array and the index). nq = 0 is an empty call (no
   buffer read: keys and values may be NULL too; the backward sets *dw = 0). Allocates nq * nk floats of
   scratch per call (2 nq nk without weights): SX_ENOMEM if it cannot. */
int sx_nw_pooling(float *out, float *weights, const float *queries, const float *keys,
                  const float *values, int nq, int nk, float w, int mapping, float param,
                  int leave_one_out);
/* *dw = d <dy, out> / d w for dy (nq, finite), the same arguments as sx_nw_pooling: with
   dy = out - target it is the gradient of 1/2 ||out - target||^2, which trains w. Sparse
   mappings are piecewise smooth in w (kinks where a key enters or leaves a support).
   Recomputes the forward pass (scratch 4 nq nk + nq floats); *dw is written only on success. */
int sx_nw_pooling_backward(float *dw, const float *dy, const float *queries, const float *keys,
                           const float *values, int nq, int nk, float w, int mapping,
                           float param, int leave_one_out);

/* =============================================================== attention */
/* Multi-head scaled dot-product attention of already-projected queries, keys and values
   (the projections are the caller's): for every batch element b and head h,
     out_bh = map(q_bh k_bh^T / sqrt(dh)) v_bh,
   where q_bh is the (Tq, dh) block of columns [h dh, (h + 1) dh) of q (B, Tq, H dh), k_bh and
   v_bh those of k and v (B, Tk, H dh), and out (B, Tq, H dh) holds the heads side by side; all
   row-major and contiguous. mapping: SX_MAP_* except SX_MAP_ENTMAX_LEARNED (param: alpha >= 1
   for SX_MAP_ENTMAX, lambda >= 0 for SX_MAP_FUSEDMAX, ignored otherwise).
   Masks: causal != 0 lets query i see keys j <= i only; k_len (B entries in [0, Tk], or NULL
   for none) marks keys j >= k_len[b] of batch element b as padding. Masked keys get exactly
   0 weight: their scores are -INFINITY before the mapping (and are never computed). A query
   that sees no key (k_len[b] = 0) gets all-zero weights and output 0.
   att (B, H, Tq, Tk): the attention weights (each row on the simplex, exact zeros where
   masked or cut by a sparse mapping), or NULL when not needed.
   B, Tq, Tk >= 0, H, dh >= 1. q, k, v must be finite (SX_ENONFINITE names the array and the
   index); scores that overflow float are SX_ENONFINITE too. Allocates H Tq Tk floats of
   scratch per call (twice that when att is NULL): SX_ENOMEM if it cannot. The model's
   attention runs the same kernels. */
int sx_attention(float *out, float *att, const float *q, const float *k, const float *v,
                 const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping, float param,
                 int causal);
/* The same attention for long sequences, in O((Tq + Tk) H dh) memory plus O(block_q Tk) of
   scratch, never the (Tq, Tk) map (issue 14; core/src/tiled.c): softmax by FlashAttention's
   online softmax over key blocks (running max and sum per query row); the sparse mappings a
   block of block_q queries at a time: their scores against every visible key, each row's
   mapping by the same calls as sx_attention (same weights), then out += weights v over key
   blocks of block_k, skipping each (block_q, block_k) tile whose weights are all zero.
   Arguments, masks, errors as sx_attention (no att: the weights are never held whole); out
   equals sx_attention's up to the order of its float sums. block_q, block_k >= 0: 0 picks the
   defaults (64 queries; 256 keys for softmax, 64 for the sparse mappings). tiles, when not NULL,
   receives 2 doubles on success: the tiles computed (blocks of queries x keys holding a visible
   pair, over every batch element and head) and how many of them were skipped as all zero
   (always 0 for softmax). Allocates (Tk dh + 2 block_q Tk) floats of scratch per call (softmax:
   Tk dh + block_q block_k + 2 block_q): SX_ENOMEM if it cannot. The JS attention() picks this
   path on its own for long sequences (README, "### Attention"). */
int sx_attention_tiled(float *out, const float *q, const float *k, const float *v,
                       const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                       float param, int causal, int block_q, int block_k, double *tiles);

/* ====================================================== attention patterns */
/* Attention restricted to a sparsity pattern (issue 13; core/src/patterns.c): query i sees key j
   only where the pattern allows it (and causality and padding, as in sx_attention). `pattern` is
   SX_PATTERN_LEN ints { kind, size, summary, buckets, rounds, seed }:
   - SX_PATTERN_DENSE: every key (sx_attention's pairs).
   - SX_PATTERN_LOCAL, size w >= 0: |i - j| <= w (a window of 2w + 1 keys; causal: w + 1).
   - SX_PATTERN_STRIDED, size l >= 1 (Sparse Transformer, Child et al. 2019, its two heads
     merged): |i - j| < l, or (i - j) mod l == 0.
   - SX_PATTERN_FIXED, size l >= 1, summary c in [1, l] (Child et al. 2019): j in i's block,
     floor(j / l) == floor(i / l), or j a summary position, j mod l >= l - c.
   - SX_PATTERN_LSH (Reformer, Kitaev et al. 2020), self-attention only (Tq == Tk): size m >= 1
     is the chunk length, buckets (even, in [2, 4096]), rounds in [1, 64], seed any int. Per
     head and round, position t is hashed by a random rotation R (dh, buckets / 2, entries
     approx. N(0, 1), seeded by (seed, head, round), the same in every build) of its key k_t:
     bucket = argmax [k_t R, -k_t R] (first on ties); pass k = q for Reformer's shared-QK. The
     positions are sorted by (bucket, position) and cut into chunks of m in that order; query i
     sees the keys of its chunk and of the chunk before, in any round (so always itself).
   Other entries of the pattern are ignored. Masked pairs are never computed: per row, the
   visible keys are listed and only their scores are computed and mapped (the cost scales with
   the pair count); their weights are exactly 0 for every mapping, and the result equals
   sx_attention with those scores set to -INFINITY. Arguments as sx_attention; att (B, H, Tq,
   Tk) or NULL. Scratch: about 13 Tk bytes (LSH: + 12 rounds Tk). */
enum { SX_PATTERN_DENSE = 0, SX_PATTERN_LOCAL = 1, SX_PATTERN_STRIDED = 2, SX_PATTERN_FIXED = 3,
       SX_PATTERN_LSH = 4 };
#define SX_PATTERN_LEN 6
int sx_attention_pattern(float *out, float *att, const float *q, const float *k, const float *v,
                         const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                         float param, int causal, const int *pattern);
/* The pairs sx_attention_pattern computes for head `head` of one batch element: mask (Tq, Tk)
   = 1 where query i sees key j, else 0; keys j >= k_len (in [0, Tk]) are padding. k (Tk, H dh)
   is read for SX_PATTERN_LSH only (NULL allowed otherwise). */
int sx_pattern_mask(unsigned char *mask, const float *k, int Tq, int Tk, int H, int dh, int head,
                    const int *pattern, int causal, int k_len);
/* LSH's steps for head `head` (pictures, tests): bucket (rounds, T) the bucket of each position
   per round, order (rounds, T) the positions sorted by (bucket, position); chunk c of a round
   is order[c m .. (c + 1) m). k (T, H dh). */
int sx_pattern_lsh(int *bucket, int *order, const float *k, int T, int H, int dh, int head,
                   const int *pattern);

/* =================================================================== tasks */
/* Toy sequence-to-sequence tasks, generated deterministically (integer arithmetic only, so
   native and wasm agree): the tasks, token conventions, splits and domains are documented in
   core/src/tasks.h. */
enum { SX_TASK_REVERSE = 0, SX_TASK_SORT = 1, SX_TASK_AFTER_MARKER = 2, SX_TASK_DATE = 3, SX_TASK_COUNT = 4 };
enum { SX_TASK_TRAIN = 0, SX_TASK_HELDOUT = 1 };
enum { SX_TOKEN_PAD = 0, SX_TOKEN_BOS = 1, SX_TOKEN_EOS = 2 };

/* ------------------------------------------------------------------ queries */
/* Number of tasks (4). */
int sx_task_count(void);
/* "reverse", "sort", "after_marker", "date"; NULL for a bad id. */
const char *sx_task_name(int task);
/* Vocabulary size including PAD, BOS, EOS; 0 for a bad id. */
int sx_task_vocab_size(int task);
/* The smallest max_len that holds every example of the task; 0 for a bad id. */
int sx_task_width(int task);
/* Source and target length ranges in characters (without EOS/BOS); any pointer may be NULL. */
int sx_task_lengths(int *min_src, int *max_src, int *min_tgt, int *max_tgt, int task);
/* The character (ASCII code) of a token: >= 32 for the alphabet's tokens, 0 for PAD, BOS, EOS;
   -1 for a bad task or a token outside [0, vocab). */
int sx_task_token_char(int task, int token);

/* --------------------------------------------------------------- generation */
/* Examples start .. start + count - 1 of (task, split, seed) into src and tgt, both
   (count, max_len). count >= 0 (0 writes nothing), start >= 0, start + count <= 2^31 - 1,
   max_len >= sx_task_width(task), split 0 (train) or 1 (held-out). */
int sx_task_generate(int *src, int *tgt, int task, int split, unsigned seed, int start, int count,
                     int max_len);

/* -------------------------------------------------------- reference solver */
/* The exact answer: tgt rows (count, max_len) = BOS, answer, EOS, PAD for the src rows
   (count, max_len) (characters, EOS, PAD). Fails with the row and the reason when a row has no
   EOS, holds PAD or BOS before its EOS, a token outside the vocabulary, or a source outside the
   task's domain: after_marker needs exactly one '|'; date needs "D Mon YYYY" (day of 1 or 2
   digits, "Jan".."Dec" as spelled, 4-digit year >= 1) naming a real Gregorian date, e.g. not
   "30 Feb 2024" nor "29 Feb 2023". reverse and sort accept any length. Sources longer than the
   generated ones are answered too, as long as the answer fits in max_len. max_len <= 240 (rows
   are solved in a stack buffer). */
int sx_task_answer(int *tgt, int task, const int *src, int count, int max_len);

/* split[r] = 0 or 1: the split that source row r belongs to (rows as for sx_task_answer; the
   source need not be in the task's domain). max_len <= 256. */
int sx_task_split_of(int *split, int task, const int *src, int count, int max_len);

/* ------------------------------------------------------------ text <-> tokens */
/* One src row (max_len tokens) from NUL-terminated text: its characters, EOS, PAD. Fails on a
   character outside the task's alphabet (naming it and its 0-based position) or a text that
   does not fit (strlen(text) + 1 > max_len). Does not check the task's domain. */
int sx_task_encode(int *src, int task, const char *text, int max_len);
/* NUL-terminated text from n tokens: BOS tokens are skipped, decoding stops at the first EOS or
   PAD, every other token becomes its character. Works on src rows, tgt rows and model output.
   Fails on a token outside [0, vocab) or when the text and its NUL exceed cap bytes. */
int sx_task_decode(char *text, int cap, int task, const int *tokens, int n);

/* =================================================================== model */
/* A tiny encoder-decoder Transformer with a sparse attention mapping per layer: architecture,
   parameter layout and checkpoint format are documented in core/src/model.h. */
typedef struct sx_model sx_model;

/* Integer config: an array of SX_MODEL_MAP + n_layer ints at these indices, and optionally
   one more, the output mapping (SX_MODEL_OUTPUT(n_layer)). */
enum {
    SX_MODEL_VOCAB = 0,     /* vocabulary size incl. PAD 0, BOS 1, EOS 2: 4..4096 */
    SX_MODEL_D_MODEL = 1,   /* C: 2..1024, even, a multiple of n_head */
    SX_MODEL_N_HEAD = 2,    /* 1..16 */
    SX_MODEL_N_LAYER = 3,   /* encoder layers = decoder layers: 1..8 */
    SX_MODEL_D_FF = 4,      /* 1..4096 */
    SX_MODEL_MAX_LEN = 5,   /* longest src or tgt row: 2..256 */
    SX_MODEL_SPAN = 6,      /* adaptive span: max span L in positions (1..max_len), 0 = off */
    SX_MODEL_SPAN_RAMP = 7, /* ramp R in positions (1..256; ignored when the span is off) */
    SX_MODEL_SEED = 8,      /* parameter initialisation seed (any int) */
    SX_MODEL_MAX_BATCH = 9, /* rows per call the activation block holds: 1..4096 */
    SX_MODEL_ACT = 10,      /* feed-forward activation: 0 = ReLU, 1 = GELU */
    SX_MODEL_MAP = 11,      /* first of n_layer mapping codes, one per layer (SX_MAP_*) */
    SX_MODEL_MAX_LAYERS = 8
};
/* A layer's mapping code is SX_MAP_* (the values of nn.h's SX_NN_*): SX_MAP_ENTMAX takes its
   fixed alpha, SX_MAP_FUSEDMAX its lambda from the layer's float parameter; SX_MAP_ENTMAX_LEARNED
   learns alpha = 1 + sigmoid(a) per head. */
/* The output layer's mapping, trained with its Fenchel-Young loss (sx_fy_loss_index): the int
   after the layers' codes (map[n_layer] in the config's messages), SX_MAP_SOFTMAX (cross-entropy; the default, and what a config or
   checkpoint without it gets), SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15 or SX_MAP_ENTMAX, whose alpha
   (in [1, 8], default 1.5) is the float after the layers' parameters (param[n_layer]). */
#define SX_MODEL_OUTPUT(n_layer) (SX_MODEL_MAP + (n_layer))
/* The architecture: the int after the output mapping (a config that gives it gives the output
   mapping too), SX_MODEL_ENC_DEC (the default, and what a config or checkpoint without it gets)
   or SX_MODEL_DECODER: decoder-only (a character language model, "tiny GPT"): no encoder, no
   cross-attention; every layer is causal self-attention and the FFN (model.h). Its calls take
   no source: src NULL and src_len 0 in sx_model_forward / loss / backward / train_step, the
   rows in tgt; it generates with sx_model_lm_step (sx_model_generate and the explain calls
   refuse it). */
#define SX_MODEL_ARCH(n_layer) (SX_MODEL_MAP + (n_layer) + 1)
enum { SX_MODEL_ENC_DEC = 0, SX_MODEL_DECODER = 1 };
#define SX_MODEL_F_OUTPUT_ALPHA(n_layer) (SX_MODEL_F_PARAM + (n_layer))
/* Float config: up to SX_MODEL_F_PARAM + n_layer floats (+ 1, the output alpha); missing
   entries take the defaults. */
enum {
    SX_MODEL_F_SPAN_PENALTY = 0, /* L1 coefficient on z (default 0.002; >= 0) */
    SX_MODEL_F_CLIP = 1,         /* global gradient-norm clip (default 1; <= 0: none) */
    SX_MODEL_F_ALPHA_LR = 2,     /* learning-rate multiplier of alpha_a (default 1; >= 0) */
    SX_MODEL_F_PARAM = 3         /* per layer: fixed alpha (default 1.5) or lambda (default 0.1) */
};
/* Attention kinds (sx_model_attention, alphas, spans). */
enum { SX_MODEL_ENC_SELF = 0, SX_MODEL_DEC_SELF = 1, SX_MODEL_CROSS = 2 };

/* ------------------------------------------------------------------ lifetime */
/* *out = a new model from the config (checked field by field); NULL on failure. */
int sx_model_create(sx_model **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg);
/* Frees the model; NULL is a no-op. */
void sx_model_free(sx_model *m);
/* Grow the activation block to hold `max_batch` rows (never shrinks). Not during a call. */
int sx_model_reserve(sx_model *m, int max_batch);

/* ------------------------------------------------------------------- queries */
/* The config int at `field` (0 .. SX_MODEL_ARCH(n_layer); max_batch reflects reserve; the
   output mapping is SX_MAP_SOFTMAX and the architecture SX_MODEL_ENC_DEC when the config did
   not give them); -1 for a bad field. */
int sx_model_config(const sx_model *m, int field);
/* The float config entry (defaults filled in); NaN for a bad field. */
float sx_model_fconfig(const sx_model *m, int field);
/* The flat parameter and gradient blocks (n floats each): for tests and tools. */
int sx_model_num_params(const sx_model *m);
float *sx_model_params(sx_model *m);
float *sx_model_grads(sx_model *m);
/* The named tensors of the parameter block (model.h's PARAMETERS order): their count, name
   ("wte", "enc.qkv_w", ..., "alpha_a", "span_z"), offset and size in floats; NULL / -1 for a
   bad index. */
int sx_model_tensor_count(void);
const char *sx_model_tensor_name(int index);
int sx_model_tensor_offset(const sx_model *m, int index);
int sx_model_tensor_size(const sx_model *m, int index);
/* Adam steps taken so far. */
int sx_model_steps(const sx_model *m);
/* Effective alpha per [kind][layer][head] (3 L NH floats): 1 softmax, 2 sparsemax and
   fusedmax, 1.5 entmax15, the fixed alpha, or 1 + sigmoid(a) for learned heads. */
int sx_model_alphas(const sx_model *m, float *out);
/* Span per [kind][layer][head] (3 L NH floats) in positions: z L on self-attention heads when
   the span is on, -1 where no span applies (cross-attention, span off). */
int sx_model_spans(const sx_model *m, float *out);

/* ----------------------------------------------------------------- compute */
/* Forward pass: src (count, src_len) source rows, tgt_in (count, tgt_len) decoder inputs
   (BOS, tokens...; PAD after the end is fine: the decoder is causal). src_len, tgt_len in
   1..max_len, count in 1..max_batch. Then read the results below (valid until the next call). */
int sx_model_forward(sx_model *m, const int *src, int src_len, const int *tgt_in, int tgt_len,
                     int count);
/* logits (count, tgt_len, V) of the last forward pass (or train step / generate). */
const float *sx_model_logits(const sx_model *m);
/* The attention weights of one kind and layer from the last forward pass, (B, NH, Tq, Tk):
   ENC_SELF (B, NH, Ts, Ts), DEC_SELF (B, NH, Tt, Tt), CROSS (B, NH, Tt, Ts). NULL for a bad
   kind or layer or before any forward pass. */
const float *sx_model_attention(const sx_model *m, int kind, int layer);
/* dim 0..3 of that map's shape (B, NH, Tq, Tk); -1 for a bad argument. */
int sx_model_attention_shape(const sx_model *m, int kind, int dim);

/* Loss of full target rows: tgt (count, len) = BOS, answer, EOS, PAD; the decoder reads
   tgt[:, :len-1] and is scored on tgt[:, 1:] (PAD labels ignored). len in 2..max_len.
   *loss = the output mapping's loss (cross-entropy for softmax outputs), averaged over the
   labels, + span penalty. sx_model_backward also leaves the gradient in
   sx_model_grads() (zeroed first); sx_model_train_step then takes one Adam step at `lr`
   (clip, step, z clamp) and *loss is the loss before the step. loss may be NULL. */
int sx_model_loss(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                  int tgt_len, int count);
int sx_model_backward(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                      int tgt_len, int count);
int sx_model_train_step(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                        int tgt_len, int count, float lr);

/* Decoder-only models (SX_MODEL_DECODER): incremental next-token prediction with the KV cache.
   tok (count) are the tokens at position pos of count rows; pos 0 starts new rows (count in
   1..max_batch), pos > 0 continues them (pos must be the last call's pos + 1 with the same
   count, and < max_len; any other model call in between ends them). Writes the next token's
   distribution under the output mapping (exact zeros for sparse outputs) to probs (count, V)
   and its logits to logits (count, V); either may be NULL. Each position costs O(pos): the
   keys and values of the earlier positions are cached. The step's attention:
   sx_model_lm_attention writes out (count, NH, pos + 1), row pos of every head of `layer`. */
int sx_model_lm_step(sx_model *m, float *probs, float *logits, const int *tok, int count, int pos);
int sx_model_lm_attention(const sx_model *m, float *out, int layer);

/* Greedy decoding: out (count, out_len) = BOS, argmax tokens until EOS (included), then PAD
   (a row that never emits EOS is cut at out_len). The argmax runs over EOS and the alphabet
   (PAD and BOS are never emitted). out_len in 2..max_len. Afterwards the maps
   and logits are those of the last decoder pass (the decoder read out[:, :steps]). */
int sx_model_generate(sx_model *m, int *out, int out_len, const int *src, int src_len, int count);
/* sx_model_generate with flags. Decoding is incremental (a KV cache: step t runs the decoder for
   position t only, over the cached keys and values of the positions before it, and the cross-
   attention keys and values of the source are computed once); the maps and logits afterwards
   are assembled from the steps' rows. SX_GENERATE_FULL: the reference instead, the whole
   decoder over out[:, :t] at every step (O(t^2) per step), for tests and benchmarks. Both give
   the same tokens on the shipped models; maps and logits agree to float rounding (a row of a
   longer pass masks its later keys, which rounds the mapping differently). Edits apply in both. */
enum { SX_GENERATE_FULL = 1 };
int sx_model_generate_v2(sx_model *m, int *out, int out_len, const int *src, int src_len,
                         int count, int flags);

/* ------------------------------------------------------------- interventions */
/* Edits of the attention weights that every later forward pass, loss, generate, explain and
   training step applies until sx_model_clear_edits (the explanation experiments: erase the
   most-attended key, replace a row by another distribution, ablate heads, leave a token out).
   kind: SX_MODEL_ENC_SELF, DEC_SELF or CROSS; layer -1: every layer; head -1: every head;
   row -1: every query row (rows index the queries: source positions for ENC_SELF, decoder
   positions otherwise). w: n floats (n in 1..max_len) over the keys, zero past n.
   - SX_EDIT_ABLATE: the head's weights are all zero, so its output is 0 (w unused);
   - SX_EDIT_REPLACE: the row's weights become w (finite, >= 0; keys the row cannot see,
     by padding, causality or span, stay 0);
   - SX_EDIT_ERASE: the keys with w[j] != 0 get weight 0 and the rest is renormalised (a row
     left with no weight is all zeros: the head's output there is 0);
   - SX_EDIT_MASK_KEYS: the keys with w[j] != 0 are masked before the mapping, as padding
     is, so the mapping spreads the mass over the others (leave-one-out).
   REPLACE, ERASE and ABLATE act after the mapping (and the span mask); in a backward pass the
   weights they set are constants (no gradient reaches the scores from them). At most
   SX_MODEL_MAX_EDITS row edits (REPLACE and ERASE, one per layer they touch) at once. */
enum { SX_EDIT_ABLATE = 0, SX_EDIT_REPLACE = 1, SX_EDIT_ERASE = 2, SX_EDIT_MASK_KEYS = 3 };
enum { SX_MODEL_MAX_EDITS = 64 };
int sx_model_edit(sx_model *m, int op, int kind, int layer, int head, int row, const float *w,
                  int n);
int sx_model_clear_edits(sx_model *m);
/* sx_model_edit calls in place since the last clear; 0 for NULL. */
int sx_model_edit_count(const sx_model *m);

/* ------------------------------------------------------------------ explain */
/* Attributions for one example (core/src/explain.c): which source tokens does the decoder's
   output f at position `step` depend on: f = log p(target | src, tgt_in[0 .. step]) with
   objective SX_EXPLAIN_LOG_PROB, or f = the target's logit with SX_EXPLAIN_LOGIT (which does
   not saturate when p(target) is near 1, where every gradient of log p vanishes)?
   src (src_len) one source row, tgt_in (tgt_len) its decoder input (BOS, tokens...),
   step in [0, tgt_len), target a token id. out (src_len): one importance per source token
   (0 at PAD positions). The model's edits apply. Writes the gradient block (sx_model_grads)
   as scratch; afterwards the logits and maps are those of a plain forward pass on the
   example. value (2 floats, may be NULL): f at the input and at the method's reference
   (the baseline for INTEGRATED_GRAD, f itself otherwise). Methods, with e_i the token
   embedding of source position i (wte[src_i] sqrt(d_model); the sinusoidal position is added
   after and kept everywhere) and g_i = d f / d e_i:
   - SX_EXPLAIN_GRAD_INPUT: sum_c e_ic g_ic (gradient x input);
   - SX_EXPLAIN_GRAD_NORM: ||g_i||_2;
   - SX_EXPLAIN_INTEGRATED_GRAD: sum_c e_ic mean_k g_ic(e (k - 1/2) / steps), k = 1..steps:
     integrated gradients from the all-zero token embedding (midpoint rule; the sum over i
     approaches value[0] - value[1] as steps grows); steps in 1..4096;
   - SX_EXPLAIN_LEAVE_ONE_OUT: f - f with source position i masked as a key in every encoder
     self-attention and cross-attention head (SX_EDIT_MASK_KEYS). */
enum {
    SX_EXPLAIN_GRAD_INPUT = 0,
    SX_EXPLAIN_GRAD_NORM = 1,
    SX_EXPLAIN_INTEGRATED_GRAD = 2,
    SX_EXPLAIN_LEAVE_ONE_OUT = 3
};
enum { SX_EXPLAIN_LOG_PROB = 0, SX_EXPLAIN_LOGIT = 1 };
int sx_model_explain(sx_model *m, float *out, float *value, int method, const int *src,
                     int src_len, const int *tgt_in, int tgt_len, int step, int target,
                     int objective, int steps);
/* d f / d att (Tk floats: the keys of that kind) of row `row` of one head's weights
   (kind, layer, head as for sx_model_edit, batch element 0; layer or head -1: every one, out
   then holds (layers, heads, Tk) floats of the selection) for f = <dlogits, logits[step]>
   (dlogits: V floats) or, with dlogits NULL, f = log p(target) as above. With the edits in
   place; an edited row's own gradient is still reported (it is what an adversarial search on
   that row needs). The model's logits and maps are then those of the example's forward pass. */
int sx_model_attention_grad(sx_model *m, float *out, int kind, int layer, int head, int row,
                            const int *src, int src_len, const int *tgt_in, int tgt_len, int step,
                            int target, const float *dlogits);
/* Attention rollout (Abnar & Zuidema 2020) of batch element b of the last forward pass:
   out (Tt, Ts), the share of each source token in each decoder position. Heads are averaged
   and each sub-layer's residual counts as half: R_enc = prod over encoder layers of
   (A + I) / 2 (source x source); per decoder layer, self-attention R = (A + I) / 2 R and
   cross-attention R_src = (R_src + A_cross R_enc) / 2, R_dec = R_dec / 2, starting from
   R_dec = I, R_src = 0. Rows sum to at most 1 (the rest stays on decoder tokens). */
int sx_model_rollout(const sx_model *m, float *out, int b);

/* ------------------------------------------------------------- checkpoints */
/* How a checkpoint stores the parameters (the config is always exact). SX_SAVE_FLOAT32 is
   lossless: a loaded model predicts, and trains on, exactly as the saved one (format version
   1). SX_SAVE_FLOAT16 (format version 2) halves the file: each parameter rounded to the nearest
   IEEE float16 (ties to even; relative error <= 2^-11 from 2^-14 up, subnormal steps of 2^-24
   below, signed zeros),
   for shipping trained models; it does not saturate: a parameter of magnitude >= 65520 makes
   the save fail with SX_EINVAL (naming it). Loading reads both versions (float16 widened to
   float32 exactly). Layout: core/src/model.h. */
enum { SX_SAVE_FLOAT16 = 16, SX_SAVE_FLOAT32 = 32 };
/* Bytes sx_model_save_as writes at that precision; 0 for a NULL model or another precision. */
int sx_model_save_size_as(const sx_model *m, int precision);
/* Writes the checkpoint into buf (cap >= sx_model_save_size_as bytes); nothing on failure. */
int sx_model_save_as(const sx_model *m, unsigned char *buf, int cap, int precision);
/* The same at SX_SAVE_FLOAT32 (lossless). */
int sx_model_save_size(const sx_model *m);
int sx_model_save(const sx_model *m, unsigned char *buf, int cap);
/* *out = the model in buf (size bytes, either version); NULL on failure. */
int sx_model_load(sx_model **out, const unsigned char *buf, int size);

/* ------------------------------------------------------------------- memory */
/* malloc/free for the JS side (wasm callers have no other allocator); 16-byte aligned, NULL for
   bytes <= 0 or when memory runs out. */
void *sx_malloc(int bytes);
void sx_free(void *ptr);

/* ============================================ beyond the simplex, for contrast */
/* Two mappings that show what the simplex buys (core/src/sigmoid.c, core/src/groupmax.c; issue
   15). Same conventions as the mappings above: rows x n row-major, z = x / T, -INFINITY entries
   get exactly 0 (and no gradient), NaN and +INFINITY scores are SX_ENONFINITE, backward passes
   overwrite dx with J^T dy (1/T included).

   sx_sigmoid: independent weights p_i = sigmoid(x_i / T) = 1 / (1 + exp(-x_i / T)). NOT on the
   simplex: rows do not sum to 1 (n zeros give n / 2), nothing competes, no finite score gets
   exactly 0. Its Jacobian is diagonal: dp_i / dx_i = p_i (1 - p_i) / T. In double, no scratch.

   sx_groupmax: group-sparse attention with groups given in advance,
     p = argmax_{p in simplex} <p, z> - 1/2 ||p||^2 - lambda sum_g ||p_g||_2,
   sparsemax's regulariser plus a group lasso; lambda >= 0 acts on z (not scaled by T), and
   lambda = 0 is sparsemax exactly. groups: n_groups contiguous group sizes (each >= 1, summing
   to n; 1 <= n_groups <= n), the same for every row: groups = {2, 3, 1} for n = 6 groups entries
   0-1, 2-4 and 5. Solution: p_g = (1 - lambda / ||[z_g - tau]_+||)_+ [z_g - tau]_+ (block
   soft-thresholding of the positive part) with tau solving sum p = 1 (Newton safeguarded by
   bisection, in double), so whole groups become exactly 0 as well as single entries; small
   groups die first (the price of mass spread over k entries is lambda / sqrt(k)). All groups
   of size 1 give sparsemax; one group of size n gives sparsemax(s z) with s = ||p|| / (||p|| +
   lambda). The backward pass differentiates the active set implicitly: J = (1/T)(blockdiag(M_g)
   - w w^T / c), M_g = (1 - lambda/r_g) I + lambda u_g u_g^T / r_g^3, w_g = M_g 1, c = sum 1^T M_g 1,
   u_g = [z_g - tau]_+, r_g = ||u_g|| (symmetric; zero on inactive groups). No scratch.
   Errors name the argument: "n_groups must be >= 1 (got 0)", "groups[1] must be >= 1 (got 0)",
   "groups must sum to n (got 5, n = 6)", "lambda must be >= 0". */
int sx_sigmoid(float *out, const float *x, int rows, int n, float temperature);
int sx_sigmoid_backward(float *dx, const float *x, const float *dy, int rows, int n, float temperature);
int sx_groupmax(float *out, const float *x, int rows, int n, const int *groups, int n_groups,
                float lambda, float temperature);
int sx_groupmax_backward(float *dx, const float *x, const float *dy, int rows, int n, const int *groups,
                         int n_groups, float lambda, float temperature);
/* The mapping code of sigmoid for sx_jacobian (its diagonal Jacobian; sx_threshold refuses it:
   no threshold, no normaliser). groupmax has no code: its groups do not fit the (mapping,
   param) pair; its Jacobian is its backward pass on unit vectors (the JS jacobian() does that). */
enum { SX_MAP_SIGMOID = 7 };

/* =============================================================== positions */
/* Positional encodings (core/src/positions.c; issue 13). Attention is blind to order; these
   put positions into the scores.

   sx_positional_encoding: the sinusoidal encodings of Vaswani et al. 2017, the position x
   dimension matrix out (positions, dim), row t = PE(t) for t = 0 .. positions - 1:
     out[t][2i] = sin(t / base^(2i/dim)),   out[t][2i+1] = cos(t / base^(2i/dim)),
   computed in double and rounded to float. dim even >= 2, base > 0 finite (10000 in the paper
   and in the model: sx_positional_encoding(pe, T, C, 10000.0) is bit for bit the table the
   model adds to its embeddings). Column pair i turns at the frequency w_i = base^(-2i/dim), so
   low columns flip fast, like the low bits of a binary counter. For any offset k,
   PE(t + k) = M_k PE(t) with M_k block-diagonal, block i the rotation
   [[cos k w_i, sin k w_i], [-sin k w_i, cos k w_i]] (its entries are PE(k)'s pair i), and
   PE(i) . PE(j) = sum_i cos((i - j) w_i) depends only on i - j.

   sx_relative_scores: the relative-position term of Shaw et al. 2018's self-attention scores,
   e_ij = q_i . (k_j + a_ij) / sqrt(d), whose a_ij = table[clip(j - i, -K, K) + K] is a row of a
   learned table (2K + 1, dim) (a parameter: the caller supplies it; K = max_distance >= 0).
   out (n_q, n_k)[i][j] = q_i . table[clip(j - i, -K, K) + K], query i and key j at positions i
   and j; q (n_q, dim). Add it to q k^T before scaling. In double, rounded to float.

   sx_txl_scores: Transformer-XL's relative scores (Dai et al. 2019), the reparametrisation of
   the absolute score q_i^T k_j with sinusoids into four terms:
     out[i][j] = q_i . k_j          (a) content-content
               + q_i . r_{i-j}      (b) content-position
               + u . k_j            (c) global content bias
               + v . r_{i-j}        (d) global position bias
   with r_t = PE(t) w_r, PE(t) the sinusoid above (dimension dim_r, base `base`, t = i - j may
   be negative) and w_r (dim_r, dim) its projection W_{k,R} ("in by out", as a linear layer), or
   NULL for none (then dim_r must equal dim). q (n_q, dim), k (n_k, dim) are the projected
   queries and keys, u and v (dim) the learned global biases; query i and key j sit at positions
   i and j (causal attention uses j <= i). terms, when not NULL, receives the four terms
   (4, n_q, n_k) in the order a, b, c, d. No 1/sqrt(dim) scaling. In double, rounded to float.

   Sizes may be 0 (nothing written); n_q * n_k (and positions * dim) must stay below 2^29.
   Inputs must be finite (SX_ENONFINITE names the element). Errors name the argument:
   "dim must be even and >= 2 (got 3)", "base must be finite and > 0 (got 0)",
   "max_distance must be >= 0 (got -1)", "w_r is NULL: dim_r must equal dim (got 6 and 4)". */
int sx_positional_encoding(float *out, int positions, int dim, double base);
int sx_relative_scores(float *out, const float *q, const float *table, int n_q, int n_k, int dim,
                       int max_distance);
int sx_txl_scores(float *out, float *terms, const float *q, const float *k, const float *u,
                  const float *v, const float *w_r, int n_q, int n_k, int dim, int dim_r,
                  double base);

/* ======================================================== scoring functions */
/* Attention scoring functions (core/src/scoring.c; issue 13; D2L "Attention Scoring
   Functions"): the score matrix that any mapping then turns into weights.

   sx_attention_scores: scores (nq, nk)[i][j] = a(q_i, k_j) for queries q (nq, q_dim) and keys
   k (nk, k_dim), all row-major, by `kind`:
   - SX_SCORE_DOT:      q_i . k_j                      (q_dim == k_dim; params unused, may be NULL)
   - SX_SCORE_SCALED:   q_i . k_j / sqrt(q_dim)        (Vaswani et al. 2017: for q, k of
                        independent unit-variance entries q . k has variance d; the scale keeps
                        it 1, so the mapping does not saturate to one-hot as d grows)
   - SX_SCORE_BILINEAR: q_i^T W k_j, params = W (q_dim, k_dim) (Luong et al. 2015, "general")
   - SX_SCORE_ADDITIVE: wv . tanh(Wq q_i + Wk k_j) (Bahdanau et al. 2015), params = [Wq (hidden,
                        q_dim) | Wk (hidden, k_dim) | wv (hidden)] in one buffer, hidden >= 1
                        (ignored by the other kinds). q_dim and k_dim may differ.
   Sums in double, rounded once. The mappings apply to the rows: sx_softmax(p, scores, nq, nk,
   1) etc., or sx_masked_mapping for valid lengths.
   sx_attention_scores_backward: given dscores (nq, nk) = dL/dscores, writes dq (nq, q_dim),
   dk (nk, k_dim) and dparams (params' layout: dW, or [dWq | dWk | dwv]); each may be NULL when
   not needed. They are overwritten (not accumulated), like the mappings' backward passes.
   Sizes: nq, nk >= 0 (0: nothing written; the forward with nq nk = 0 reads no buffer, params
   included), q_dim, k_dim >= 1. q, k, params and dscores must be
   finite (SX_ENONFINITE names the array and the index); a score that overflows float is
   SX_ENONFINITE ("score[i][j] overflows float"). Scratch: bilinear nq k_dim doubles (backward
   twice), additive (nq + nk) hidden doubles (backward twice + hidden); SX_ENOMEM if it cannot.
   Errors name the function and the argument: "sx_attention_scores: dot scores need q_dim ==
   k_dim (got 3 and 2)", "sx_attention_scores: hidden must be >= 1 for additive scores (got 0)".

   sx_masked_mapping: D2L's masked_softmax by valid length, for every mapping: row r of x (rows,
   n) is mapped with its entries j >= valid_len[r] removed (set to -INFINITY first), so they
   get exactly 0 and the row's first valid_len[r] weights are the mapping of those scores alone
   (sigmoid: independent weights, zeros beyond); a valid length of 0 gives an all-zero row (and
   zero gradients). valid_len: rows ints in [0, n], or NULL for none (the plain mapping).
   mapping: SX_MAP_SOFTMAX, SPARSEMAX, ENTMAX15, ENTMAX (param alpha >= 1), FUSEDMAX (lambda >=
   0), OSCARMAX (beta >= 0), SIGMOID; temperature as the mappings. x as the mappings' (finite or
   -INFINITY; checked everywhere, beyond the valid lengths too). For one valid length per batch
   element of attention over (B, Tq, Tk), repeat it Tq times (sx_attention's k_len does the same
   inside attention). sx_masked_mapping_backward: dx = J^T dy of that masked mapping, zeros
   beyond the valid lengths. Scratch: n floats. */
enum { SX_SCORE_DOT = 0, SX_SCORE_SCALED = 1, SX_SCORE_BILINEAR = 2, SX_SCORE_ADDITIVE = 3 };
int sx_attention_scores(float *scores, const float *q, const float *k, const float *params,
                        int nq, int nk, int q_dim, int k_dim, int hidden, int kind);
int sx_attention_scores_backward(float *dq, float *dk, float *dparams, const float *dscores,
                                 const float *q, const float *k, const float *params, int nq,
                                 int nk, int q_dim, int k_dim, int hidden, int kind);
int sx_masked_mapping(float *out, const float *x, const int *valid_len, int rows, int n,
                      int mapping, float param, float temperature);
int sx_masked_mapping_backward(float *dx, const float *x, const float *dy, const int *valid_len,
                               int rows, int n, int mapping, float param, float temperature);

/* ================================================ held-out scores of sparse outputs */
/* A language model with sparse outputs (sparsemax, entmax) can give the true next token
   probability exactly 0, and its perplexity is then infinite. Martins, Marinho & Martins 2020
   ("Sparse Text Generation", sec. 4) report the epsilon-perplexity instead: every probability
   smoothed additively, p_eps = (p + eps) / (1 + eps V) for a vocabulary of V tokens, i.e.
   (1 - lambda) p + lambda / V with lambda = eps V / (1 + eps V), and eps chosen on held-out
   data to minimise it.
   sx_eps_perplexity: p_true, the n >= 1 probabilities a model gave the true token (each in
   [0, 1]; SX_ENONFINITE for NaN or Infinity, SX_EINVAL outside [0, 1], naming the index); eps
   finite, >= 0 (0: the plain perplexity, +Infinity when some p is 0). out, 3 doubles:
   out[0] exp(-mean log p_eps), the epsilon-perplexity; out[1] -mean log2 p_eps, the same in
   bits per token; out[2] the fraction of the n tokens with p > 0 (the true token inside the
   support). Sums in double.
   sx_eps_choose: *eps, the eps >= 0 that minimises the epsilon-perplexity of p_true (convex in
   lambda: bisection on its derivative, to double precision); 0 when smoothing cannot help (no
   p is 0 and the derivative at lambda = 0 is >= 0). SX_EINVAL when the mean of p_true is at
   most 1 / V: the minimum is then the uniform distribution (eps infinite). No scratch. */
int sx_eps_perplexity(double *out, const float *p_true, int n, int vocab, double eps);
int sx_eps_choose(double *eps, const float *p_true, int n, int vocab);

/* ============================================== recurrent encoder-decoder */
/* A GRU encoder and decoder over the same token rows as the model, with no attention (the
   decoder reads the last encoder state only), additive (Bahdanau) attention under any mapping,
   or hard attention (one source position per step) trained by REINFORCE, straight-through
   Gumbel-softmax or the straight-through argmax (core/src/rnn.c, hard.c; issue 24). The
   architecture, the estimators and the parameter layout are documented in core/src/rnn.h.
   In the full wasm core (wasm/exports.txt; the JS class RNN) except sx_rnn_backward, params,
   grads and the tensor queries (native: tests and tools). Calls as the model's: count in 1..max_batch, lengths in
   1..max_len (targets 2..max_len), every token id checked, SX_EINVAL naming the function and
   the argument. */
typedef struct sx_rnn sx_rnn;
/* Integer config: SX_RNN_N_CFG ints at these indices. */
enum {
    SX_RNN_VOCAB = 0,       /* 4..4096 */
    SX_RNN_EMBED = 1,       /* token embedding width E: 1..1024 */
    SX_RNN_HIDDEN = 2,      /* GRU state width H: 1..1024 */
    SX_RNN_ATTN_HIDDEN = 3, /* additive scoring's hidden width A: 1..1024 (ignored for NONE) */
    SX_RNN_MAX_LEN = 4,     /* longest src or tgt row: 2..256 */
    SX_RNN_SEED = 5,        /* initialisation and sampling seed (any int) */
    SX_RNN_MAX_BATCH = 6,   /* rows per call: 1..4096 */
    SX_RNN_ATTENTION = 7,   /* SX_RNN_NONE, SX_RNN_ADDITIVE, SX_RNN_HARD */
    SX_RNN_MAP = 8,         /* the scores' mapping: SX_MAP_SOFTMAX .. SX_MAP_FUSEDMAX (0..5) */
    SX_RNN_ESTIMATOR = 9,   /* hard attention's gradient: SX_RNN_REINFORCE, GUMBEL, STRAIGHT */
    SX_RNN_N_CFG = 10
};
enum { SX_RNN_NONE = 0, SX_RNN_ADDITIVE = 1, SX_RNN_HARD = 2 };
enum { SX_RNN_REINFORCE = 0, SX_RNN_GUMBEL = 1, SX_RNN_STRAIGHT = 2 };
/* Float config: up to SX_RNN_N_FCFG floats; missing entries take the defaults. */
enum {
    SX_RNN_F_PARAM = 0,       /* alpha of SX_MAP_ENTMAX (1..8, default 1.5), lambda of FUSEDMAX (>= 0, 0.1) */
    SX_RNN_F_CLIP = 1,        /* global gradient-norm clip (default 1; <= 0: none) */
    SX_RNN_F_ALPHA_LR = 2,    /* learning-rate multiplier of the learned alpha (default 1; >= 0) */
    SX_RNN_F_TEMPERATURE = 3, /* Gumbel-softmax temperature (default 1; > 0) */
    SX_RNN_F_BASELINE = 4,    /* REINFORCE baseline decay in [0, 1) (default 0.9) */
    SX_RNN_N_FCFG = 5
};
int sx_rnn_create(sx_rnn **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg);
void sx_rnn_free(sx_rnn *m);
/* The config int at field (0 .. SX_RNN_N_CFG - 1), -1 for a bad field; the float config entry
   (defaults filled in), NaN for a bad field. */
int sx_rnn_config(const sx_rnn *m, int field);
float sx_rnn_fconfig(const sx_rnn *m, int field);
/* The flat parameter and gradient blocks, and their named tensors (rnn.h's PARAMETERS order:
   "wte", "enc.wx", ..., "att", "alpha_a"); NULL / -1 for a bad index. */
int sx_rnn_num_params(const sx_rnn *m);
float *sx_rnn_params(sx_rnn *m);
float *sx_rnn_grads(sx_rnn *m);
int sx_rnn_tensor_count(void);
const char *sx_rnn_tensor_name(int index);
int sx_rnn_tensor_offset(const sx_rnn *m, int index);
int sx_rnn_tensor_size(const sx_rnn *m, int index);
int sx_rnn_steps(const sx_rnn *m);
/* The alpha of the mapping: 1 softmax, 2 sparsemax and fusedmax, 1.5 entmax15, F_PARAM for
   entmax, 1 + sigmoid(a) when learned; 0 without attention. */
float sx_rnn_alpha(const sx_rnn *m);
/* Teacher-forced forward on src (count, src_len) and decoder inputs tgt_in (count, tgt_len);
   then sx_rnn_logits (count, tgt_len, V) and sx_rnn_attention (count, tgt_len, src_len), valid
   until the next call; sx_rnn_attention_shape(m, dim) gives (B, Tt, Ts), -1 before any pass. */
int sx_rnn_forward(sx_rnn *m, const int *src, int src_len, const int *tgt_in, int tgt_len,
                   int count);
const float *sx_rnn_logits(const sx_rnn *m);
const float *sx_rnn_attention(const sx_rnn *m);
int sx_rnn_attention_shape(const sx_rnn *m, int dim);
/* Loss of full target rows, as sx_model_loss (hard attention: argmax positions). backward also
   leaves the gradient in sx_rnn_grads() (hard attention: the estimator's, on sampled positions);
   train_step then takes one Adam step at lr. loss may be NULL. */
int sx_rnn_loss(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt, int tgt_len,
                int count);
int sx_rnn_backward(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt,
                    int tgt_len, int count);
int sx_rnn_train_step(sx_rnn *m, float *loss, const int *src, int src_len, const int *tgt,
                      int tgt_len, int count, float lr);
/* Greedy decoding as sx_model_generate: out (count, out_len) = BOS, argmax tokens over EOS and
   the alphabet until EOS, then PAD; out_len in 2..max_len. */
int sx_rnn_generate(sx_rnn *m, int *out, int out_len, const int *src, int src_len, int count);
/* Checkpoints in the model's format family (magic "SXRN"; core/src/rnn_checkpoint.c): the
   config and the parameters, as float32 (SX_SAVE_FLOAT32, lossless) or float16 (SX_SAVE_FLOAT16);
   save_size_as gives the bytes (0 for NULL or another precision), save_as writes them into buf
   (cap >= that; nothing on failure), load reads either precision into *out (NULL on failure). */
int sx_rnn_save_size_as(const sx_rnn *m, int precision);
int sx_rnn_save_as(const sx_rnn *m, unsigned char *buf, int cap, int precision);
int sx_rnn_load(sx_rnn **out, const unsigned char *buf, int size);

/* ---------------------------------------------------------------- rationales (issue 25)
   A generator selects input positions and a predictor classifies from the selection alone (Lei
   et al. 2016; Bastings et al. 2019), on a task whose right rationale is known: 12 tokens, one, three
   or five of them marker words (positive or negative), the label their majority, the gold
   rationale the marker positions (core/src/rationale.h documents the task, the model and the methods).
   The selection is sparsemax or 1.5-entmax over positions, HardKuma gates (stretched and
   rectified Kumaraswamy, reparameterised, with the expected-L0 penalty) or Bernoulli gates
   trained by REINFORCE with a baseline. In the full wasm core (the JS class Rationale) except
   sx_rationale_task, _word, _evaluate, _params and _grads: the core is at its size budget, and
   the JS makes the examples (web/lib/model/rationale-task.js, checked against this one's output
   in tests/golden/rationale-task.json) and the figures itself. */
typedef struct sx_rationale sx_rationale;
enum { SX_RATIONALE_LEN = 12, SX_RATIONALE_VOCAB = 16 };
enum { SX_RATIONALE_SPARSEMAX = 0, SX_RATIONALE_ENTMAX15 = 1, SX_RATIONALE_HARDKUMA = 2,
       SX_RATIONALE_REINFORCE = 3, SX_RATIONALE_METHODS = 4 };
/* count examples of the task, example i of (seed, split) for i = first .. first + count - 1
   (split 0 train, 1 held-out: disjoint streams): tokens (count, LEN), labels (count), gold
   (count, LEN) 1 at the marker positions, 0 elsewhere (labels, gold may be NULL). count in
   0..1<<20, first >= 0. The word of a token id (NULL outside 0..VOCAB - 1). */
int sx_rationale_task(int *tokens, int *labels, int *gold, int count, int seed, int split, int first);
const char *sx_rationale_word(int id);
/* A model for method (SX_RATIONALE_*), seeded initialisation and noise, batches of up to
   max_batch rows (1..4096), sparsity the penalty weight lambda of HardKuma and REINFORCE
   (finite, >= 0; ignored by the simplex methods). *out NULL on failure. free of NULL: no-op. */
int sx_rationale_create(sx_rationale **out, int method, int seed, int max_batch, float sparsity);
void sx_rationale_free(sx_rationale *m);
int sx_rationale_num_params(const sx_rationale *m);
int sx_rationale_steps(const sx_rationale *m);
float *sx_rationale_params(sx_rationale *m);
float *sx_rationale_grads(sx_rationale *m);
/* One Adam step at lr (finite, >= 0) on count rows: tokens (count, LEN) ids in 0..VOCAB - 1,
   labels 0 or 1; *loss (may be NULL) the objective before the step. */
int sx_rationale_train_step(sx_rationale *m, float *loss, const int *tokens, const int *labels,
                            int count, float lr);
/* The deterministic selection: weights (count, LEN) (a position is selected when its weight is
   > 0) and the predicted labels pred (count); either may be NULL. */
int sx_rationale_predict(sx_rationale *m, float *weights, int *pred, const int *tokens, int count);
/* Held-out figures of the deterministic selection over count rows (any count >= 1, in batches):
   out[0] accuracy, out[1] rationale precision (selected marker positions / selected positions;
   0 when nothing is selected), out[2] recall (selected marker positions / marker positions),
   out[3] the selected fraction of positions. gold as sx_rationale_task's. */
int sx_rationale_evaluate(sx_rationale *m, float *out, const int *tokens, const int *labels,
                          const int *gold, int count);

#ifdef __cplusplus
}
#endif
#endif /* SIMPLEXITY_H */
