/* rnn.h - a recurrent encoder-decoder (GRU), the model attention was invented for (issue 24).

   The entry points are public: declared in simplexity.h (section "recurrent encoder-decoder").
   The full wasm core exports them (wasm/exports.txt; web/lib/model/rnn-class.js, the JS class RNN)
   but sx_rnn_backward, sx_rnn_params, sx_rnn_grads and the tensor queries.
   This header keeps the model's documentation and the internal helpers its tests reach.

   USAGE

     int cfg[SX_RNN_N_CFG] = { 0 };
     cfg[SX_RNN_VOCAB] = 13; cfg[SX_RNN_EMBED] = 16; cfg[SX_RNN_HIDDEN] = 64;
     cfg[SX_RNN_ATTN_HIDDEN] = 32; cfg[SX_RNN_MAX_LEN] = 12; cfg[SX_RNN_SEED] = 1;
     cfg[SX_RNN_MAX_BATCH] = 32; cfg[SX_RNN_ATTENTION] = SX_RNN_ADDITIVE;
     cfg[SX_RNN_MAP] = SX_MAP_SPARSEMAX;
     sx_rnn *m;
     if (sx_rnn_create(&m, cfg, SX_RNN_N_CFG, NULL, 0)) fail(sx_last_error());
     for (step ...) sx_rnn_train_step(m, &loss, src, 12, tgt, 12, 32, 3e-3f);
     sx_rnn_generate(m, out, 12, src, 12, 32);           // greedy: BOS, tokens, EOS, PAD
     const float *att = sx_rnn_attention(m);             // (B, Tt, Ts) of the last pass
     sx_rnn_free(m);

   ARCHITECTURE (Cho et al. 2014; Bahdanau et al. 2015), V tokens, E = embed, H = hidden,
   A = attention hidden; one token table wte (V, E) shared by both sides:
     encoder: h_0 = 0, h_j = GRU_enc(h_{j-1}, wte[x_j]) over the source row (PAD positions are
              run but never read); h_last = h_n, n = the source length up to its first PAD
              (EOS included), or 0 when the row starts with PAD.
     decoder: s_0 = h_last; at step t (input token y_t: BOS, then the previous target token)
              c_t = the context (below), s_{t+1} = GRU_dec(s_t, [wte[y_t]; c_t]),
              logits_t = W_out [s_{t+1}; c_t] + b_out.
     the context, by SX_RNN_ATTENTION (one code path, three selectors):
       SX_RNN_NONE      c_t = h_last: the whole source through one vector (the bottleneck);
       SX_RNN_ADDITIVE  e_tj = w_v . tanh(W_q s_t + W_k h_j) over j = 1..n (sx_attention_scores,
                        SX_SCORE_ADDITIVE), a_t = map(e_t) with the layer mapping SX_RNN_MAP
                        (SX_MAP_SOFTMAX, SPARSEMAX, ENTMAX15, ENTMAX with alpha = F_PARAM,
                        ENTMAX_LEARNED: alpha = 1 + sigmoid(a), one learned a, FUSEDMAX with
                        lambda = F_PARAM), c_t = sum_j a_tj h_j;
       SX_RNN_HARD      the same scores and p_t = map(e_t), then ONE position: c_t = h_{j_t}.
                        Evaluation (sx_rnn_loss, sx_rnn_forward, sx_rnn_generate) takes
                        j_t = argmax p_t; training (sx_rnn_backward, sx_rnn_train_step) picks
                        it by the estimator SX_RNN_ESTIMATOR (hard.c):
                        SX_RNN_REINFORCE  j_t ~ p_t; the scores get (R_b - baseline) d log p_t(j_t)
                                          (Williams 1992), R_b the sequence's summed
                                          cross-entropy over the batch's label count, the
                                          baseline n_b times a moving average (F_BASELINE) of
                                          the per-label loss;
                        SX_RNN_GUMBEL     j_t = argmax y, y = softmax((log p_t + g) / tau),
                                          g Gumbel noise, tau = F_TEMPERATURE; the backward pass
                                          treats the one-hot as y (straight-through
                                          Gumbel-softmax, Jang et al. 2017);
                        SX_RNN_STRAIGHT   j_t = argmax p_t; the backward pass treats the one-hot
                                          as p_t (the straight-through estimator, Bengio et al.
                                          2013).
                        In every case h_{j_t} itself gets the exact gradient of c_t.
   The attention weights (B, Tt, Ts) are a_t for ADDITIVE, the one-hot of j_t for HARD, and
   one-hot at the last source position for NONE (what the decoder reads).
   Loss: mean cross-entropy over the non-PAD labels, as the Transformer's. Adam (beta1 0.9,
   beta2 0.98, eps 1e-9), gradients clipped to global norm F_CLIP, alpha's a at lr * F_ALPHA_LR.

   GRU (the PyTorch form): with gx = x W_x + b_x and gh = h W_h + b_h, (B, 3H) in r, z, n order,
     r = sigmoid(gx_r + gh_r), z = sigmoid(gx_z + gh_z), n = tanh(gx_n + r * gh_n),
     h' = (1 - z) n + z h.

   PARAMETERS in one float block, in this order: wte (V, E); enc.wx (E, 3H); enc.bx (3H);
   enc.wh (H, 3H); enc.bh (3H); dec.wx (E + H, 3H); dec.bx; dec.wh (H, 3H); dec.bh; out_w (2H, V);
   out_b (V); att ([W_q (A, H) | W_k (A, H) | w_v (A)], sx_attention_scores' layout; 0 floats
   for SX_RNN_NONE); alpha_a (1). Weights N(0, 1/fan_in) from splitmix64 (SX_RNN_SEED), wte
   N(0, 1), biases 0, a = 0 (alpha 1.5).

   CHECKPOINTS: core/src/rnn_checkpoint.c (the model's format, magic "SXRN").

   CONVENTIONS as the Transformer's (model.h): token rows (count, len) as tasks.h writes them,
   every id checked, calls return an SX_* status with sx_last_error() naming the function, the
   field and the value; nothing allocates per step except the scratch of the public scoring and
   mapping calls (sx_attention_scores' doubles, alpha-entmax's candidates). */
#ifndef SX_RNN_H
#define SX_RNN_H

#include "simplexity.h"
#include "rng.h"

/* ------------------------------------------------- construction (rnn.c) */
/* sx_rnn_create under the name fn, for a checkpoint's loader: the config checked as create
   checks it, then, before anything is allocated, its parameter count against want_params (the
   count a checkpoint stores; SIZE_MAX: any) and its activations against their limit. */
int sx__rnn_new(sx_rnn **out, const int *cfg, int n_cfg, const float *fcfg, int n_fcfg,
                const char *fn, size_t want_params);

/* ------------------------------------------------- hard attention (hard.c) */
/* One decoder step's selection over n >= 1 positions: p (n) the mapping's output (the policy),
   u (n) scratch for the Gumbel-perturbed soft sample y (GUMBEL: written, the backward reads it).
   sample = 0: argmax p (the first on ties); 1: REINFORCE draws j ~ p, GUMBEL argmax of
   y = softmax((log p + g) / tau) over p > 0, STRAIGHT argmax p. Returns j. */
int sx__hard_select(float *y, const float *p, int n, int estimator, float tau, int sample,
                    sx__rng *rng);
/* dp (n) = the estimator's gradient wrt p of a loss whose gradient wrt the one-hot selection
   is g (n: g_j = <dc, h_j>), for the pick j: STRAIGHT dp = g; GUMBEL the softmax_tau backward
   of g through y, divided by p (d log p / d p; 0 where p = 0). REINFORCE: dp = weight e_j /
   p_j (weight = R - baseline). The caller maps dp to the scores with the mapping's backward. */
void sx__hard_grad(float *dp, const float *g, const float *y, const float *p, int n, int j,
                   int estimator, float tau, float weight);

#endif
