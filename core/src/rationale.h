/* rationale.h - rationales (Lei et al. 2016; Bastings et al. 2019): a generator picks input
   positions, a predictor classifies from the picked tokens alone (internal; the public entry
   points are simplexity.h's sx_rationale_*, issue 25 item 4).

   THE TASK (sx_rationale_task): SX_RATIONALE_LEN = 12 tokens over SX_RATIONALE_VOCAB = 16 words:
   one, three or five marker words (equally likely) at distinct random positions, each positive
   (good great superb, ids 0-2) or negative (bad awful dull, 3-5), neutral fillers (ids 6-15)
   elsewhere. The label is the markers' majority (1 positive, 0 negative), so the gold rationale
   is known: the marker positions (25% of the positions on average). The number of markers varies
   so that only all of them decide the label (with always three, the positive ones would).

   THE MODEL. Generator: embeddings Eg (V, D), a window of three (the token and its neighbours,
   zeros past the ends) through Wc (3D, H) + bc and tanh, then Wo (H, 2) + bo: two scores per
   position, s0 and s1 (s1 is used by HardKuma alone). Selection weights w (B, T) by the method:
     SPARSEMAX, ENTMAX15  w = sparsemax / 1.5-entmax of s0 over the T positions (sums to 1);
     HARDKUMA             w = z = clamp(l + (r - l) k, 0, 1), l = -0.1, r = 1.1, k ~ Kuma(a, b),
                          a = 0.01 + softplus(s0), b = 0.01 + softplus(s1), reparameterised:
                          k = (1 - (1 - u)^(1/b))^(1/a), u ~ U(0, 1); z is exactly 0 or 1 with
                          probability mass. Penalty: lambda * mean_t P(z_t != 0), P(z != 0) =
                          (1 - x0^a)^b at x0 = -l / (r - l) (the expected L0 norm, differentiable);
     REINFORCE            w = g ~ Bernoulli(sigmoid(s0)); the generator's gradient is the score
                          function (L_b - baseline) (g - sigmoid(s0)) per example, L_b = CE_b +
                          lambda * (selected fraction of row b), the baseline a moving average of
                          the batch loss (decay 0.9).
   Predictor: embeddings Ep (V, D), h = sum_t w_t Ep[x_t] / den (den = 1 for the simplex methods,
   max(sum_t w_t, 1) for the gates: the masked mean), logits = h Wp + bp (2 classes), softmax
   cross-entropy. Evaluation (noise NULL) is deterministic: HardKuma takes k at Kuma's median
   (1 - 2^(-1/b))^(1/a), REINFORCE g = [sigmoid(s0) > 1/2]. A position is selected when w > 0.

   PARAMETERS, in one block in this order: Eg (V, D), Wc (3D, H), bc (H), Wo (H, 2), bo (2),
   Ep (V, D), Wp (D, 2), bp (2). Adam (layers.c; beta 0.9 / 0.999, clip 1) updates it. */
#ifndef SX_RATIONALE_H
#define SX_RATIONALE_H

#include "simplexity.h"
#include "rng.h"

enum { SX_RAT_D = 16, SX_RAT_H = 16, SX_RAT_T = SX_RATIONALE_LEN, SX_RAT_V = SX_RATIONALE_VOCAB };
enum { SX_RAT_EG, SX_RAT_WC, SX_RAT_BC, SX_RAT_WO, SX_RAT_BO, SX_RAT_EP, SX_RAT_WP, SX_RAT_BP,
       SX_RAT_P_COUNT };

struct sx_rationale {
    int method, max_batch, step;
    float sparsity, baseline; /* lambda; REINFORCE's running baseline (0 before the first step) */
    size_t n_params;
    float *params, *grads, *adam_m, *adam_v; /* one allocation */
    float *p[SX_RAT_P_COUNT], *g[SX_RAT_P_COUNT];
    sx__rng rng;
    /* activations for max_batch rows (one allocation after the parameters') */
    float *eg, *win, *hc, *s, *sc, *w, *ep, *h, *den, *logits, *probs;
    float *aux; /* (B, T): HardKuma's stretched value t, REINFORCE's sigmoid(s0) */
    float *d_big, *d_win, *d_hc, *d_s, *d_w; /* backward scratch */
    float *noise;                            /* (B, T) uniforms of a training step */
    float loss_ce;                           /* mean cross-entropy of the last forward */
};

/* One forward and backward on a batch: grads zeroed, then filled; *loss = the mean objective
   (cross-entropy plus the method's penalty). noise (B, T) in (0, 1) for the stochastic methods
   (HardKuma's u, REINFORCE's g = [u < sigmoid(s0)]); NULL: the deterministic evaluation
   selection. baseline: REINFORCE's. Arguments are assumed checked. */
int sx__rationale_grad(sx_rationale *m, float *loss, const int *tok, const int *lab, int B,
                       const float *noise, float baseline);
/* The forward alone (w, probs filled); returns the status. */
int sx__rationale_forward(sx_rationale *m, float *loss, const int *tok, const int *lab, int B,
                          const float *noise);

#endif
