/* nn.h - neural-network building blocks for the tiny Transformer (internal, sx_nn_ prefix).

   Not part of the public ABI: model.c builds on these, and only model.c's entry points (and
   pooling.c's wrappers of the span mask and Nadaraya-Watson pooling) are exported. llm.c
   conventions throughout:
   - every layer is a *_forward / *_backward pair; arguments are outputs first, then inputs,
     then dimensions, then settings;
   - gradients carry a `d` prefix and backward passes ACCUMULATE into them (+=), so a
     parameter used twice gets the sum, and the caller zeroes all grads with one memset;
   - shapes are comments: (B, T, C) is row-major with C fastest;
   - callers own every buffer (parameters in one block, activations in one block, scratch);
     the *_size functions say how many floats to reserve. Nothing here allocates, except
     that the mapping calls of attention and Nadaraya-Watson go through the public mapping
     functions (sx_entmax, ...), which may allocate their own scratch once per call.
   - No printf/exit/abort. Fallible functions return an SX_* status with sx_last_error().

   Sections: matmul (matmul.c); layers (layers.c): linear, layernorm, GELU/ReLU, residual,
   embeddings + sinusoidal positions, softmax cross-entropy, Adam with global-norm clipping;
   attention (attention.c): multi-head attention with a mapping per head, learned alpha,
   adaptive span, and Nadaraya-Watson pooling.

   USAGE: one decoder self-attention sub-layer (pre-LN), N = B T rows, C = NH hs.

     sx_nn_layernorm_forward(ln, ln_mean, ln_rstd, x, ln_w, ln_b, N, C);
     sx_nn_linear_forward(qkv, ln, w_qkv, b_qkv, N, C, 3 * C);            // (B, T, 3C)
     st = sx_nn_attention_forward(y, score, prob, att, qkv, 3 * C, qkv + C, qkv + 2 * C, 3 * C,
                                  alpha_a, span_z, tgt_len, B, T, T, &cfg);  // cfg.causal = 1
     sx_nn_linear_forward(proj, y, w_o, b_o, N, C, C);
     sx_nn_residual_forward(x2, x, proj, (size_t)N * C);
   and backward, in reverse, all d-buffers zeroed once per step:
     sx_nn_accumulate(dx, dx2, N * C); sx_nn_accumulate(dproj, dx2, N * C);
     sx_nn_linear_backward(dy, dw_o, db_o, dproj, y, w_o, N, C, C);
     st = sx_nn_attention_backward(dqkv, dqkv + C, dqkv + 2 * C, dalpha_a, dspan_z, scratch, dy,
                                   score, prob, att, qkv, 3 * C, qkv + C, qkv + 2 * C, 3 * C,
                                   alpha_a, span_z, tgt_len, B, T, T, &cfg);
     sx_nn_linear_backward(dln, dw_qkv, db_qkv, dqkv, ln, w_qkv, N, C, 3 * C);
     sx_nn_layernorm_backward(dx, dln_w, dln_b, dln, x, ln_w, ln_mean, ln_rstd, N, C);
   Cross-attention: q from the decoder (stride C), k and v from one (B, Ts, 2C) projection of
   the encoder output (k = kv, v = kv + C, stride 2C), k_len = the source lengths, causal 0.
   After the optimizer step: sx_nn_span_clamp(span_z, NH). Add sx_nn_span_penalty to the loss. */
#ifndef SX_NN_H
#define SX_NN_H

#include <stddef.h>

/* ================================================================== matmul (matmul.c) */
/* out (M, N) = op(A) op(B) (+ bias (N)), or out += ... when `accumulate` is non-zero.
   op(A) is A (M, K) stored with row stride lda when ta == 0, or A^T where A is (K, M) with
   row stride lda when ta != 0; likewise op(B) is B (K, N) [tb == 0] or B^T with B (N, K)
   [tb != 0]. out has row stride ldo. bias may be NULL. Strides let callers address one head
   of a (T, C) tensor (pointer offset h * hs, stride C). out must not overlap a or b.
   SIMD: a 4x8 register block over a B panel packed into an on-stack buffer (K blocks of 256),
   so A B^T (Q K^T) packs the transposed panel once per call. M, N or K of 0 is a no-op (with
   accumulate == 0 and K == 0, out is set to the bias or to 0). */
void sx_nn_matmul(float *out, int ldo, const float *a, int lda, int ta, const float *b, int ldb,
                  int tb, const float *bias, int M, int N, int K, int accumulate);

/* Attention scores: out (M, N) = (q k^T) * scale, q (M, K) stride ldq, k (N, K) stride ldk,
   each entry the float product of sx_nn_matmul's dot product and scale (the same bits as
   sx_nn_matmul, then a multiply). Returns 1 when every entry is finite, 0 otherwise (the caller
   rescores those in double). Heads of 8 and 16 dimensions (K = 8, 16) take a kernel with the
   scale and the check in its stores, so the scores are written once. */
int sx_nn_scores(float *out, int ldo, const float *q, int ldq, const float *k, int ldk, int M,
                 int N, int K, float scale);

/* x[0 .. n) *= s (n <= 0: nothing); returns 0 when some result is not finite (x - x is 0 only
   for finite x), 1 otherwise. */
int sx_nn_scale_row(float *x, int n, float s);

/* ==================================================================== layers (layers.c) */
/* linear: out (N, OC) = inp (N, C) @ w (C, OC) + bias (OC); bias may be NULL.
   Weight layout (C, OC), "in by out", so the forward pass is the fast NN product. */
void sx_nn_linear_forward(float *out, const float *inp, const float *w, const float *bias, int N,
                          int C, int OC);
/* dinp (N, C) += dout @ w^T; dw (C, OC) += inp^T @ dout; dbias (OC) += column sums of dout.
   dinp, dbias may be NULL (not needed / no bias). */
void sx_nn_linear_backward(float *dinp, float *dw, float *dbias, const float *dout,
                           const float *inp, const float *w, int N, int C, int OC);

/* layernorm over the last dim: out = (x - mean) * rstd * weight + bias, eps = 1e-5.
   mean, rstd (N) are saved for the backward pass. */
void sx_nn_layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                             const float *weight, const float *bias, int N, int C);
void sx_nn_layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout,
                              const float *inp, const float *weight, const float *mean,
                              const float *rstd, int N, int C);

/* GELU (tanh approximation) and ReLU, elementwise over n values. out may equal inp in the
   forward pass; backward: dinp += dout * f'(inp) (dinp may not alias dout). */
void sx_nn_gelu_forward(float *out, const float *inp, size_t n);
void sx_nn_gelu_backward(float *dinp, const float *inp, const float *dout, size_t n);
void sx_nn_relu_forward(float *out, const float *inp, size_t n);
void sx_nn_relu_backward(float *dinp, const float *inp, const float *dout, size_t n);

/* out (n) = a + b (residual connection; out may equal a or b). Backward of a residual is two
   accumulations: use sx_nn_accumulate(da, dout, n) and sx_nn_accumulate(db, dout, n). */
void sx_nn_residual_forward(float *out, const float *a, const float *b, size_t n);
void sx_nn_accumulate(float *dst, const float *src, size_t n);

/* Sinusoidal positions: pe (T, C), pe[t][2i] = sin(t / 10000^(2i/C)), pe[t][2i+1] = cos(same).
   Fill once at model creation (it is not a parameter). */
void sx_nn_posenc(float *pe, int T, int C);
/* The same formula for any base and positions t0 .. t0 + T - 1 (t0 may be negative: the
   relative positions i - j of Transformer-XL): row r holds position t0 + r,
   pe[r][2i] = sin((t0 + r) / base^(2i/C)), pe[r][2i+1] = cos(same). sx_nn_posenc(pe, T, C) is
   sx_nn_posenc_range(pe, 0, T, C, 10000.0); the public sx_positional_encoding wraps it. */
void sx_nn_posenc_range(float *pe, int t0, int T, int C, double base);
/* Embedding: out (B, T, C) = wte[tok[b][t]] * scale + pe[t]. tok (B, T) ids in [0, V);
   wte (V, C); pe (T_max >= T, C) or NULL for no positions. Returns SX_EINVAL (with the
   position and the id in sx_last_error) for an id out of range, before writing anything. */
int sx_nn_embedding_forward(float *out, const int *tok, const float *wte, const float *pe,
                            float scale, int B, int T, int C, int V);
/* dwte (V, C) += scale * dout at each token's row. Ids are assumed checked by the forward. */
void sx_nn_embedding_backward(float *dwte, const float *dout, const int *tok, float scale, int B,
                              int T, int C);

/* Softmax cross-entropy with padding ignored: rows whose target equals `ignore` (for
   example the pad id, or -1) do not count. probs (N, V) = softmax(logits (N, V)) is saved
   for the backward pass; *loss = mean over the counted rows of -log probs[target] (0 if no
   row counts). Returns SX_EINVAL for a target outside [0, V) that is not `ignore`, and the
   mapping status (SX_ENONFINITE) if a logit is NaN or infinite. */
int sx_nn_crossentropy_forward(float *loss, float *probs, const float *logits, const int *targets,
                               int N, int V, int ignore);
/* dlogits (N, V) += dloss * (probs - onehot(target)) / count on counted rows. */
void sx_nn_crossentropy_backward(float *dlogits, const float *probs, const int *targets, int N,
                                 int V, int ignore, float dloss);

/* Adam (AdamW form: decoupled weight decay) over one flat parameter block, with the
   gradient first clipped to global L2 norm <= max_norm (max_norm <= 0: no clipping).
   m, v (n) are the moment buffers (zero at step 1); t >= 1 is the step number. Returns the
   gradient's global norm before clipping. Grads are read, not modified. */
typedef struct {
    float lr, beta1, beta2, eps, weight_decay, max_norm;
} sx_nn_adam_cfg;
float sx_nn_grad_norm(const float *grad, size_t n);
float sx_nn_adam_step(float *param, float *m, float *v, const float *grad, size_t n, int t,
                      const sx_nn_adam_cfg *cfg);
/* The models' optimiser step: Adam (beta1 0.9, beta2 0.98, eps 1e-9, no weight decay) over one
   block in two slices, [0, n0) at lr and [n0, n0 + na) (the learned alphas) at lr * alpha_lr.
   The clip stays global: each slice gets max_norm scaled by its share of the global norm, so
   both are scaled by clip / global norm (or not at all; clip <= 0: never). Returns the global
   gradient norm; when it is not finite nothing is updated and *t is unchanged, else *t is
   incremented first (the step number Adam's bias correction uses). */
float sx_nn_adam_two_rates(float *param, float *m, float *v, const float *grad, size_t n0,
                           size_t na, int *t, float lr, float alpha_lr, float clip);

/* ============================================================= attention (attention.c) */
/* The mapping of one head. */
enum {
    SX_NN_SOFTMAX = 0,
    SX_NN_SPARSEMAX = 1,
    SX_NN_ENTMAX15 = 2,
    SX_NN_ENTMAX = 3,       /* alpha-entmax with a fixed alpha = param (>= 1) */
    SX_NN_ENTMAX_LEARNED = 4, /* alpha = 1 + sigmoid(a), a learned per head: alpha in (1, 2) */
    SX_NN_FUSEDMAX = 5,     /* fusedmax with lambda = param (>= 0) */
    SX_NN_OSCARMAX = 6,     /* oscarmax with beta = param (>= 0) */
    SX_NN_MAP_COUNT = 7
};

/* alpha = 1 + sigmoid(a) and d alpha / d a = sigmoid(a) (1 - sigmoid(a)). */
float sx_nn_alpha_of(float a);

/* Apply the mapping `kind` (param: fixed alpha or lambda; alpha for ENTMAX_LEARNED) to rows
   of n scores (-INFINITY entries are masks), and its backward pass. dx is OVERWRITTEN (it is
   scratch, not a gradient). For ENTMAX_LEARNED, *dalpha += sum over rows of
   d<dy, p>/d alpha (dalpha may be NULL).
   Backward: with p (the forward output) given, softmax, sparsemax and entmax (any alpha,
   and the alpha gradient) are computed from p alone: s = p^(2 - alpha) on the support,
   dx = s dy - (<s, dy> / sum s) s (SCIENCE.md), no recomputation of the forward. With p NULL,
   or for fusedmax and oscarmax, the public sx_*_backward / sx_entmax_alpha_grad recompute from x. */
int sx_nn_map_forward(float *p, const float *x, int rows, int n, int kind, float param);
/* Scores s[0, n) of query i over keys j0 ... j0 + n - 1 (k at key j0, row stride ldkv, hs
   wide) that overflowed the float matmul, recomputed in double; SX_ENONFINITE (naming key j0 + j)
   for one that does not fit float. Normal scores are not touched. */
int sx_nn_rescore_scores(float *s, int n, int i, int j0, const float *q_i, const float *k,
                         int ldkv, int hs, float scale);
int sx_nn_map_backward(float *dx, float *dalpha, const float *x, const float *p, const float *dy,
                       int rows, int n, int kind, float param);
/* d <g, entmax(.; alpha)> / d alpha of one row from its output p (double, guarded near 1). */
double sx_nn_entmax_alpha_grad_p(const float *p, const float *g, int n, float alpha);

/* Multi-head scaled dot-product attention: the shape of one attention sub-layer.
   q (B, Tq, *) row stride ldq, k and v (B, Tk, *) row stride ldkv, head h in columns
   [h hs, (h + 1) hs). Scores s = q.k / sqrt(hs) for the keys a query may see:
   - padding: keys j >= k_len[b] are masked (k_len NULL: all Tk keys valid);
   - causal (decoder self-attention): keys j > i are masked;
   - adaptive span on head h (span_max L > 0): key j at distance x = i - j (|i - j| when not
     causal) gets the soft mask m(x) = clamp((R + z_h L - x) / R, 0, 1), R = span_ramp.
     Keys with m = 0 (x >= R + z L) are masked before the mapping (their scores are never
     computed: the compute saving); after the mapping the weights are multiplied by m and
     each row renormalised: att = p m / sum(p m). The mapping thus sees only the keys inside
     span + ramp: for softmax this equals the paper's softmax-then-mask exactly (the m = 0
     keys cancel in the renormalisation); for sparse mappings it is our definition (the
     threshold is computed over the visible keys), and the loss jumps slightly when z moves
     a key across the window edge (the gradient wrt z is exact between such points).
     z is a fraction of L in [0, 1] (sx_nn_span_clamp after each step); d m / d z = L / R
     inside the ramp.
   Masked scores are -INFINITY, so masked keys get exactly 0 weight; a row with no visible
   key (k_len 0) is all zeros and its output is 0. Queries i >= q_len are computed as usual
   (the loss ignores them), so q_len is not needed. Row-major (Tq, Tk) maps per head. */
/* Interventions on the attention weights of one sub-layer (model.c's edits, for the
   explanation experiments). In the forward pass:
   - key_off (Tk bytes; NULL: none): those keys' scores are set to -INFINITY before the
     mapping, as padding is: they get exact zeros and the mapping spreads the mass over the
     rest (a row left with no visible key is all zeros);
   - after the mapping (and the span mask): head_off (n_head bytes; NULL: none) zeroes every
     weight of those heads (their output is 0); then each of the n_rows row edits in order,
     on row `row` (-1: every row) of head `head` (-1: every head): SX_NN_EDIT_REPLACE sets
     the row's weights to w[j] (keys the row cannot see, by padding, causality or span, stay
     0), SX_NN_EDIT_ERASE sets to 0 the weights of the keys with w[j] != 0 and divides the
     rest by their sum (in double; a row left with no weight is all zeros).
   In the backward pass an ablated head's or an edited row's weights are constants: no
   gradient flows from them into the scores (everything else is exact). When datt is not
   NULL, the backward pass also copies d loss / d att of (batch 0, head grab_head, row
   grab_row), Tk floats, to datt, taken before that cut (grab_head -1: every head, head h at
   datt + h Tk). w holds Tk floats per edit. */
enum { SX_NN_EDIT_REPLACE = 1, SX_NN_EDIT_ERASE = 2 };
typedef struct {
    int op, head, row;
    const float *w;
} sx_nn_row_edit;
typedef struct {
    const unsigned char *key_off;
    const unsigned char *head_off;
    const sx_nn_row_edit *rows;
    int n_rows;
    float *datt;
    int grab_head, grab_row;
} sx_nn_attn_edit;

typedef struct {
    int n_head, head_size;  /* C = n_head * head_size */
    int causal;             /* 1: query i sees keys j <= i */
    const int *kind;        /* (n_head) SX_NN_* mapping per head */
    const float *param;     /* (n_head) fixed alpha (SX_NN_ENTMAX) or lambda (FUSEDMAX); may be NULL */
    int span_max;           /* L > 0: adaptive span on every head; 0: off */
    float span_ramp;        /* R > 0, in positions (the paper uses 32) */
    const sx_nn_attn_edit *edit; /* interventions (see above); NULL: none */
} sx_nn_attn_cfg;

/* Floats of each activation buffer, (B, NH, Tq, Tk). */
size_t sx_nn_attention_map_size(const sx_nn_attn_cfg *cfg, int B, int Tq, int Tk);
/* Floats of scratch the backward pass needs: 3 Tq Tk + Tq. */
size_t sx_nn_attention_scratch_size(const sx_nn_attn_cfg *cfg, int Tq, int Tk);

/* out (B, Tq, C) contiguous = concat over heads of att_h v_h.
   score (B, NH, Tq, Tk): scaled scores, -INFINITY where masked (the mapping's input).
   prob (B, NH, Tq, Tk): the mapping output before the span mask; only with span on (NULL
   otherwise). att (B, NH, Tq, Tk): the attention weights (what to draw).
   alpha_a (NH): the a of learned-alpha heads (may be NULL if there are none).
   span_z (NH): z in [0, 1], read clamped (may be NULL when span is off; prob and span_z are
   required when it is on). Returns SX_OK, SX_EINVAL for a bad config, or a mapping status
   (SX_ENONFINITE if the scores hold NaN or Infinity: a diverged model). */
int sx_nn_attention_forward(float *out, float *score, float *prob, float *att, const float *q,
                            int ldq, const float *k, const float *v, int ldkv,
                            const float *alpha_a, const float *span_z, const int *k_len, int B,
                            int Tq, int Tk, const sx_nn_attn_cfg *cfg);
/* One query row per batch element (incremental decoding with a KV cache): row i of the maps
   sx_nn_attention_forward computes with Tk keys, by the same steps on that row alone, so with
   the same q row and keys it gives the same bits as that row of a full pass of Tk keys (the
   row of a longer pass can differ in rounding: the mapping of a row with trailing -INFINITY
   entries is not bit-identical to the mapping of the shorter row). q (B, *) row stride ldq;
   batch b's keys at k + b kv_stride, v + b kv_stride, (Tk, *) row stride ldkv; out (B, C).
   The rows of score, prob (span only) and att go to (b NH + h) ld_map: Tk entries, then
   -INFINITY (score) or 0 up to n_map >= Tk. Edits (cfg->edit) apply to row i as in the full
   pass; k_len, span and causal as there. */
int sx_nn_attention_row_forward(float *out, float *score, float *prob, float *att, size_t ld_map,
                                int n_map, const float *q, int ldq, const float *k,
                                const float *v, int ldkv, size_t kv_stride, const float *alpha_a,
                                const float *span_z, const int *k_len, int B, int i, int Tk,
                                const sx_nn_attn_cfg *cfg);
/* Accumulates dq (row stride ldq), dk, dv (row stride ldkv), dalpha_a (NH; may be NULL),
   dspan_z (NH; may be NULL) from dout (B, Tq, C). scratch: sx_nn_attention_scratch_size
   floats. dq, dk, dv may point into one (B, T, 3C) buffer at offsets 0, C, 2C. */
int sx_nn_attention_backward(float *dq, float *dk, float *dv, float *dalpha_a, float *dspan_z,
                             float *scratch, const float *dout, const float *score,
                             const float *prob, const float *att, const float *q, int ldq,
                             const float *k, const float *v, int ldkv, const float *alpha_a,
                             const float *span_z, const int *k_len, int B, int Tq, int Tk,
                             const sx_nn_attn_cfg *cfg);

/* The L1 span penalty: returns coef * sum_h z_h (z as a fraction of L) and accumulates
   dz += coef. Add it to the loss. */
float sx_nn_span_penalty(float *dz, const float *z, int n_head, float coef);
/* Clamp every z into [0, 1] (call after each optimizer step). */
void sx_nn_span_clamp(float *z, int n_head);
/* The mask value m(x) for distance x (what the forward applies), for plots and tests. */
float sx_nn_span_mask(float x, float z, int span_max, float ramp);

/* Nadaraya-Watson attention pooling (D2L): for each query x_q,
   f(x_q) = sum_i map(s)_i y_i with scores s_i = -((x_q - x_i) w)^2 / 2, the mapping `kind`
   with `param` (alpha for ENTMAX or ENTMAX_LEARNED, lambda for FUSEDMAX).
   out (nq); att (nq, nk) the weights (the D2L heatmap); score (nq, nk) saved for backward:
   the scores minus their row max, computed in double (no overflow for any finite w; keys whose
   shifted score rounds below -FLT_MAX get -INFINITY, i.e. weight exactly 0).
   loo (leave one out, nq <= nk): query i does not see key i (score -INFINITY), as when w is
   trained on the training points themselves; a query with no visible key gets zero weights
   and out 0. Public wrappers: sx_nw_pooling, sx_nw_pooling_backward (pooling.c). */
int sx_nn_nw_forward(float *out, float *score, float *att, const float *xq, const float *xk,
                     const float *yk, float w, int nq, int nk, int loo, int kind, float param);
/* *dw += d <dout, out> / d w given dout (nq) and the forward's score and att;
   scratch (2 nq nk floats). */
int sx_nn_nw_backward(float *dw, float *scratch, const float *dout, const float *score,
                      const float *att, const float *xq, const float *xk, const float *yk,
                      float w, int nq, int nk, int kind, float param);

#endif
