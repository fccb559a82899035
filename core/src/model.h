/* model.h - a tiny encoder-decoder Transformer with a sparse attention mapping per layer, and
   its decoder-only configuration (a character language model, "tiny GPT").

   The entry points are public: declared in simplexity.h (section "model"), exported to wasm
   (wasm/exports.txt). This header keeps the model's documentation. Built on nn.h.

   USAGE

     int cfg[SX_MODEL_MAP + 2] = { 0 };
     cfg[SX_MODEL_VOCAB] = 13; cfg[SX_MODEL_D_MODEL] = 32; cfg[SX_MODEL_N_HEAD] = 4;
     cfg[SX_MODEL_N_LAYER] = 2; cfg[SX_MODEL_D_FF] = 64; cfg[SX_MODEL_MAX_LEN] = 12;
     cfg[SX_MODEL_SEED] = 1; cfg[SX_MODEL_MAX_BATCH] = 32;
     cfg[SX_MODEL_MAP + 0] = cfg[SX_MODEL_MAP + 1] = SX_MAP_ENTMAX_LEARNED;
     sx_model *m;
     if (sx_model_create(&m, cfg, SX_MODEL_MAP + 2, NULL, 0)) fail(sx_last_error());
     for (step ...) sx_model_train_step(m, &loss, src, 12, tgt, 12, 32, 1e-3f);
     sx_model_generate(m, out, 12, src, 12, 32);        // greedy: BOS, tokens, EOS, PAD
                                                        // (incremental: a KV cache; model.c, decoding)
     sx_model_forward(m, src, 12, dec_in, 11, 1);       // then read logits and maps:
     const float *att = sx_model_attention(m, SX_MODEL_CROSS, 0); // (B, NH, Tq, Tk)
     sx_model_free(m);

   DECODER-ONLY (cfg[SX_MODEL_ARCH(L)] = SX_MODEL_DECODER; the config then gives the output
   mapping too): the same code with the encoder and the cross-attention left out. Per layer
   d += CausalSelfAttn(LN(d)); d += FFN(LN(d)) (the FFN's layernorm is the decoder's ln3);
   logits = LN_f(d) W_out + b_out (untied). Calls take no source (src NULL, src_len 0): the loss
   of token rows (count, len) is next-token prediction, tgt[:, :len-1] in, tgt[:, 1:] scored
   (PAD labels ignored), with any output mapping; span and alpha apply to its self-attention
   heads. Generation is by sx_model_lm_step, one position of count rows per call over the KV
   cache (the decoding layout below, with Tc = max_len), returning the next token's
   distribution under the output mapping; sx_model_lm_attention gives the step's attention
   rows. sx_model_generate, the explain calls and the kinds ENC_SELF and CROSS (attention,
   edits) refuse a decoder-only model.

     int cfg[SX_MODEL_MAP + 2 + 2] = { 99, 64, 4, 2, 256, 65, 0, 1, 1, 32, 1 };
     cfg[SX_MODEL_MAP] = cfg[SX_MODEL_MAP + 1] = SX_MAP_ENTMAX15;
     cfg[SX_MODEL_OUTPUT(2)] = SX_MAP_SOFTMAX; cfg[SX_MODEL_ARCH(2)] = SX_MODEL_DECODER;
     sx_model_create(&m, cfg, SX_MODEL_MAP + 4, NULL, 0);
     sx_model_train_step(m, &loss, NULL, 0, rows, 65, 32, 3e-3f);   // rows (32, 65) tokens
     for (t = 0; t < n; t++) sx_model_lm_step(m, p, NULL, &tok[t], 1, t); // p: next token

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
     Loss: the mean over the non-PAD labels of the output layer's loss + span_penalty * sum of
     z over the span heads (z as a fraction of L, the reference's L1 penalty). The output
     mapping (SX_MODEL_OUTPUT(L), optional: softmax when absent) turns the logits into the
     next token's distribution: softmax is trained with cross-entropy (layers.c, as ever),
     sparsemax, 1.5-entmax and alpha-entmax (alpha SX_MODEL_F_OUTPUT_ALPHA(L)) with their
     Fenchel-Young losses (losses.c's sx_fy_loss_index: gradient p - onehot), so their
     distributions have exact zeros. Greedy decoding is unchanged: each of these mappings keeps
     the order of the logits, so the argmax is the logits'. Adam (beta1 0.9, beta2 0.98,
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
   heads, unused elsewhere). A decoder-only model stores none of the tensors of the encoder
   (enc.*) or of the cross-attention (dec.ln2, dec.q, dec.kv, dec.co): their sizes are 0, the
   other tensors keep their order; span_z and alpha_a keep their (3, L, NH) shape (one head
   index in both architectures), the decoder's slice used. Weights are initialised from splitmix64 (SX_MODEL_SEED) with
   N(0, 1/fan_in), biases 0, layernorm weights 1, a = 0 (alpha 1.5), z = 1.

   CHECKPOINTS (sx_model_save_as / sx_model_load), little-endian, no padding:
     "SXMD" magic | u32 format version | u32 n_cfg | u32 n_fcfg | u32 n_params |
     i32 cfg[n_cfg] | f32 fcfg[n_fcfg] | params[n_params] | u32 FNV-1a checksum of all the
     bytes before it,
   cfg holding the architecture as its last int when given (after the output mapping; a file
   without it, any file written before it existed included, is an encoder-decoder model), the
   output mapping before it when the model has one given (a file without
   it, any file written before output mappings existed included, is a softmax-output model;
   fcfg likewise may end with the output alpha), the parameters as f32 (4 bytes each) in version 1 (SX_SAVE_FLOAT32, what sx_model_save
   writes) or as IEEE binary16 (2 bytes each, half.h) in version 2 (SX_SAVE_FLOAT16); the
   config is exact in both. Only the parameters are stored (not Adam's moments): a model loaded
   from version 1 predicts bit for bit like the saved one, from version 2 like the saved one
   with every parameter rounded to float16 (nearest, ties to even); training it further
   restarts Adam. Saving as float16 fails (SX_EINVAL, naming the tensor) when a parameter rounds
   past 65504 (|x| >= 65520). Loading checks, in order: size, magic, version (1 or 2), declared
   sizes against the byte count, checksum, the config (as sx_model_create), the parameter count,
   finite parameters (a float16 infinity or NaN included); each failure is SX_EINVAL with a
   message.

   CONVENTIONS (as simplexity.h): calls return an SX_* status and sx_last_error() names the
   field, the row and the value of a failure. Token rows are (count, len) row-major as tasks.h
   writes them: src = characters, EOS, PAD...; tgt = BOS, characters, EOS, PAD... Every call
   checks every token id. Nothing allocates per step: create/load/reserve allocate. */
#ifndef SX_MODEL_H
#define SX_MODEL_H

#include "simplexity.h"

/* The declarations (sx_model_*, SX_MODEL_* config indices, SX_MAP_* mapping codes) are public:
   they live in simplexity.h, sections "model" and "mapping codes". */

/* Internal, for explain.c (model.c): a forward pass on (B, Ts) src and (B, Tt) decoder inputs
   with the source token embeddings taken from emb_src (B, Ts, C) when it is not NULL (the
   positions are added as usual); the backward pass of f = sum_b <seed[b], logits[b][step]>
   (seed (B, V)) after it, with d f / d (encoder input) (B, Ts, C) in d_emb (may be NULL) and
   d f / d att of (grab_kind, grab_layer, batch 0, grab_head, grab_row) in datt (may be NULL;
   grab_layer or grab_head -1: every one, datt then (layers, heads, grab_tk) of the selection);
   the token embeddings of n source tokens (n, C); the key of source position pos masked in
   every ENC_SELF and CROSS layer (restore 0; saved gets 2 L bytes) or put back (restore 1). */
int sx__model_run(sx_model *m, const int *src, int Ts, const int *tgt_in, int Tt, int B,
                  const float *emb_src);
int sx__model_grad(sx_model *m, const int *src, const float *seed, int step, float *d_emb,
                   int grab_kind, int grab_layer, int grab_head, int grab_row, float *datt,
                   int grab_tk);
void sx__model_embed(const sx_model *m, float *out, const int *src, int n);
void sx__model_mask_source_key(sx_model *m, int pos, unsigned char *saved, int restore);

#endif
