/* model.h - a tiny encoder-decoder Transformer with a sparse attention mapping per layer.

   Public entry points (sx_model_ prefix, wasm-friendly: ints, floats and pointers only); the
   integrator moves them into simplexity.h and the wasm export list. Built on nn.h.

   USAGE

     int cfg[SX_MODEL_MAP + 2] = { 0 };
     cfg[SX_MODEL_VOCAB] = 13; cfg[SX_MODEL_D_MODEL] = 32; cfg[SX_MODEL_N_HEAD] = 4;
     cfg[SX_MODEL_N_LAYER] = 2; cfg[SX_MODEL_D_FF] = 64; cfg[SX_MODEL_MAX_LEN] = 12;
     cfg[SX_MODEL_SEED] = 1; cfg[SX_MODEL_MAX_BATCH] = 32;
     cfg[SX_MODEL_MAP + 0] = cfg[SX_MODEL_MAP + 1] = SX_MODEL_ENTMAX_LEARNED;
     sx_model *m;
     if (sx_model_create(&m, cfg, SX_MODEL_MAP + 2, NULL, 0)) fail(sx_last_error());
     for (step ...) sx_model_train_step(m, &loss, src, 12, tgt, 12, 32, 1e-3f);
     sx_model_generate(m, out, 12, src, 12, 32);        // greedy: BOS, tokens, EOS, PAD
     sx_model_forward(m, src, 12, dec_in, 11, 1);       // then read logits and maps:
     const float *att = sx_model_attention(m, SX_MODEL_CROSS, 0); // (B, NH, Tq, Tk)
     sx_model_free(m);

   ARCHITECTURE (pre-LN, chosen because it trains without a warm-up and with a fixed learning
   rate at these sizes; every sub-layer is x + f(layernorm(x)), and each stack ends with a final
   layernorm):
     encoder: e = wte[src] sqrt(C) + PE;  per layer: e += SelfAttn(LN(e)); e += FFN(LN(e));
              enc = LN_f(e)
     decoder: d = wte[tgt_in] sqrt(C) + PE (the same token table); per layer:
              d += CausalSelfAttn(LN(d)); d += CrossAttn(LN(d), enc); d += FFN(LN(d));
              logits = LN_f(d) W_out + b_out
     FFN = W2 act(W1 x + b1) + b2 with act = ReLU or GELU. Attention: sx_nn_attention_forward
     with the layer's mapping on every head of its three attention sub-layers (encoder self,
     decoder self, cross). Source padding (the keys after the source's first PAD) is masked in
     encoder self-attention and cross-attention; the decoder self-attention is causal.
     Adaptive span (SX_MODEL_SPAN = L > 0) applies to the two SELF-attention kinds (distance |i - j|
     in the encoder, i - j in the decoder); cross-attention has none (a source position and a
     target position are not on one axis: date normalisation aligns them out of order).
     Loss: mean cross-entropy over the non-PAD labels + span_penalty * sum of z over the span
     heads (z as a fraction of L, the reference's L1 penalty). Adam (beta1 0.9, beta2 0.98,
     eps 1e-9, no weight decay), gradients clipped to global norm SX_MODEL_F_CLIP, z clamped to
     [0, 1] after every step; alpha_a may take a larger learning rate (SX_MODEL_F_ALPHA_LR):
     at the step counts that train these tasks, a at the shared rate barely leaves 0.

   PARAMETERS live in one float block, tensors in this order (L layers stacked, C = d_model,
   F = d_ff, V = vocab, NH heads): wte (V, C); out_w (C, V); out_b (V); enc_lnf w, b (C);
   dec_lnf w, b (C); encoder per layer: ln1 w, b (L, C); qkv_w (L, C, 3C); qkv_b (L, 3C);
   o_w (L, C, C); o_b (L, C); ln2 w, b; fc_w (L, C, F); fc_b (L, F); proj_w (L, F, C);
   proj_b (L, C); decoder per layer: ln1 w, b; qkv_w; qkv_b; o_w; o_b; ln2 w, b; q_w (L, C, C);
   q_b; kv_w (L, C, 2C); kv_b (L, 2C); co_w (L, C, C); co_b; ln3 w, b; fc_w; fc_b; proj_w;
   proj_b; then span_z (3, L, NH) and alpha_a (3, L, NH), indexed [attention kind][layer][head]
   (z in [0, 1], used on self-attention heads when the span is on; the a of learned-alpha
   heads, unused elsewhere). Weights are initialised from splitmix64 (SX_MODEL_SEED) with
   N(0, 1/fan_in), biases 0, layernorm weights 1, a = 0 (alpha 1.5), z = 1.

   CHECKPOINTS (sx_model_save / sx_model_load), all little-endian 32-bit words:
     "SXMD" magic | u32 format version (1) | u32 n_cfg | u32 n_fcfg | u32 n_params |
     i32 cfg[n_cfg] | f32 fcfg[n_fcfg] | f32 params[n_params] | u32 FNV-1a checksum of all the
     bytes before it.
   Only the parameters are stored (not Adam's moments): a loaded model predicts bit for bit like
   the saved one; training it further restarts Adam. Loading checks, in order: size, magic,
   version, declared sizes against the byte count, checksum, the config (as sx_model_create), the
   parameter count, finite parameters; each failure is SX_EINVAL with a message.

   CONVENTIONS (as simplexity.h): calls return an SX_* status and sx_last_error() names the
   field, the row and the value of a failure. Token rows are (count, len) row-major as tasks.h
   writes them: src = characters, EOS, PAD...; tgt = BOS, characters, EOS, PAD... Every call
   checks every token id. Nothing allocates per step: create/load/reserve allocate. */
#ifndef SX_MODEL_H
#define SX_MODEL_H

#include "simplexity.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sx_model sx_model;

/* Integer config: an array of SX_MODEL_MAP + n_layer ints at these indices. */
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
    SX_MODEL_MAP = 11,      /* first of n_layer mapping kinds, one per layer (SX_MODEL_SOFTMAX...) */
    SX_MODEL_MAX_LAYERS = 8
};
/* Mapping kinds (the values of nn.h's SX_NN_*). */
enum {
    SX_MODEL_SOFTMAX = 0,
    SX_MODEL_SPARSEMAX = 1,
    SX_MODEL_ENTMAX15 = 2,
    SX_MODEL_ENTMAX = 3,         /* fixed alpha = the layer's float parameter (>= 1) */
    SX_MODEL_ENTMAX_LEARNED = 4, /* alpha = 1 + sigmoid(a), a learned per head */
    SX_MODEL_FUSEDMAX = 5        /* lambda = the layer's float parameter (>= 0) */
};
/* Float config: up to SX_MODEL_F_PARAM + n_layer floats; missing entries take the defaults. */
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
/* The config int at `field` (0 .. SX_MODEL_MAP + n_layer - 1; max_batch reflects reserve);
   -1 for a bad field. */
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
   *loss = cross-entropy + span penalty. sx_model_backward also leaves the gradient in
   sx_model_grads() (zeroed first); sx_model_train_step then takes one Adam step at `lr`
   (clip, step, z clamp) and *loss is the loss before the step. loss may be NULL. */
int sx_model_loss(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                  int tgt_len, int count);
int sx_model_backward(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                      int tgt_len, int count);
int sx_model_train_step(sx_model *m, float *loss, const int *src, int src_len, const int *tgt,
                        int tgt_len, int count, float lr);

/* Greedy decoding: out (count, out_len) = BOS, argmax tokens until EOS (included), then PAD
   (a row that never emits EOS is cut at out_len). The argmax runs over EOS and the alphabet
   (PAD and BOS are never emitted). out_len in 2..max_len. Afterwards the maps
   and logits are those of the last decoder pass (the decoder read out[:, :steps]). */
int sx_model_generate(sx_model *m, int *out, int out_len, const int *src, int src_len, int count);

/* ------------------------------------------------------------- checkpoints */
/* Bytes sx_model_save writes. */
int sx_model_save_size(const sx_model *m);
/* Writes the checkpoint into buf (cap >= sx_model_save_size bytes). */
int sx_model_save(const sx_model *m, unsigned char *buf, int cap);
/* *out = the model in buf (size bytes); NULL on failure. */
int sx_model_load(sx_model **out, const unsigned char *buf, int size);

#ifdef __cplusplus
}
#endif
#endif
