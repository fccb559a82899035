/* test_gpt.c - the decoder-only configuration of the model (SX_MODEL_ARCH(L) = SX_MODEL_DECODER,
   model.h): the parameter layout has no encoder or cross-attention tensors; the whole model's
   gradient against central differences (softmax attention, 1.5-entmax attention with learned
   alpha and the adaptive span, 1.5-entmax outputs); the KV-cache steps (sx_model_lm_step)
   against full passes over every prefix: logits, next-token distributions and attention rows;
   checkpoints keep the architecture (float32 bit for bit, float16 close); bad inputs and their
   messages; a short training run on a repeating text whose loss falls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"
#include "tasks.h"

static unsigned long long rng_state = 0x2545F4914F6CDD1Dull;
static double urand(void) { /* [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

#define CHECK_MSG(st, code, text) do { \
    int _st = (st); \
    CHECK(_st == (code) && strstr(sx_last_error(), (text)) != NULL, \
          "status %d (want %d), message \"%s\" (want \"%s\")", _st, (code), sx_last_error(), (text)); \
} while (0)

enum { V = 9, C = 8, NH = 2, L = 2, F = 12, T = 7, B = 3, NCFG = SX_MODEL_MAP + L + 2 };

/* A decoder-only config: both layers' attention `map`, output mapping `out`, span `span`. */
static sx_model *make(int map, int out, int span, int seed, float out_alpha) {
    int cfg[NCFG];
    const int v[SX_MODEL_MAP] = { V, C, NH, L, F, T, span, 2, seed, B, 1 };
    memcpy(cfg, v, sizeof v);
    for (int l = 0; l < L; l++) cfg[SX_MODEL_MAP + l] = map;
    cfg[SX_MODEL_OUTPUT(L)] = out;
    cfg[SX_MODEL_ARCH(L)] = SX_MODEL_DECODER;
    const float fcfg[SX_MODEL_F_PARAM + L + 1] = { 0.01f, 1.0f, 1.0f, 1.5f, 1.5f, out_alpha };
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, NCFG, fcfg, SX_MODEL_F_PARAM + L + 1) == SX_OK, "create: %s",
          sx_last_error());
    return m;
}

/* Token rows (B, T): random ids from 1 (BOS may appear; PAD 0 only at the end of row 1). */
static void rows(int *tok) {
    for (int i = 0; i < B * T; i++) tok[i] = 1 + (int)(urand() * (V - 1));
    tok[1 * T + T - 1] = tok[1 * T + T - 2] = SX_TOKEN_PAD;
}

static double loss_of(sx_model *m, const int *tok) {
    float loss = NAN;
    CHECK(sx_model_loss(m, &loss, NULL, 0, tok, T, B) == SX_OK, "loss: %s", sx_last_error());
    return loss;
}

/* The tensors of an encoder-decoder model that a decoder-only one does not have. */
static int absent(const char *name) {
    return !strncmp(name, "enc.", 4) || !strncmp(name, "dec.ln2", 7) || !strncmp(name, "dec.q_", 6) ||
           !strncmp(name, "dec.kv", 6) || !strncmp(name, "dec.co", 6);
}

static void test_layout(void) {
    sx_model *m = make(SX_MAP_SOFTMAX, SX_MAP_SOFTMAX, 0, 1, 1.5f);
    if (!m) return;
    int total = 0;
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const char *name = sx_model_tensor_name(t);
        const int size = sx_model_tensor_size(m, t);
        CHECK(absent(name) ? size == 0 : size > 0, "%s has %d floats", name, size);
        total += size;
    }
    /* wte, out_w, out_b, dec.lnf; per layer ln1, qkv, o, ln3, fc, proj; span_z and alpha_a */
    const int want = 2 * V * C + V + 2 * C + L * (2 * C + 3 * C * C + 3 * C + C * C + C + 2 * C +
                     C * F + F + F * C + C) + 2 * 3 * L * NH;
    CHECK(total == want && sx_model_num_params(m) == want, "%d parameters, want %d", total, want);
    CHECK(sx_model_config(m, SX_MODEL_ARCH(L)) == SX_MODEL_DECODER, "arch reads back");
    sx_model_free(m);
}

/* Central differences on about 12 entries of every tensor (biases and layernorms moved off their
   initial values, the output weights scaled up so that sparse outputs have exact zeros); entries
   within eps of a kink (one-sided differences disagree) are skipped and counted. */
static void gradcheck(const char *what, int map, int out, int span) {
    sx_model *m = make(map, out, span, 5, 1.5f);
    if (!m) return;
    float *params = sx_model_params(m);
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const char *name = sx_model_tensor_name(t);
        float *p = params + sx_model_tensor_offset(m, t);
        for (int i = 0; i < sx_model_tensor_size(m, t); i++) {
            if (!strcmp(name, "out_w")) p[i] *= 4.0f;
            else if (!strcmp(name, "alpha_a")) p[i] = (float)(urand() - 0.5);
            else if (!strcmp(name, "span_z")) p[i] = (float)(0.3 + 0.4 * urand());
            else if (strstr(name, "_b")) p[i] = (float)(urand() * 0.2 - 0.1);
            else if (strstr(name, "ln")) p[i] = (float)(0.8 + 0.4 * urand());
        }
    }
    int tok[B * T];
    rows(tok);
    const int np = sx_model_num_params(m);
    float *g = malloc((size_t)np * sizeof(float)), l0f = 0.0f;
    CHECK(sx_model_backward(m, &l0f, NULL, 0, tok, T, B) == SX_OK, "%s: %s", what, sx_last_error());
    memcpy(g, sx_model_grads(m), (size_t)np * sizeof(float));
    const double l0 = loss_of(m, tok);
    CHECK(l0 == l0f, "%s: loss %.9g vs backward's %.9g", what, l0, (double)l0f);
    const float eps = 2e-3f;
    const double atol = 1e-3, rtol = 3e-2;
    int checked = 0, skipped = 0;
    double worst = 0.0;
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const int off = sx_model_tensor_offset(m, t), size = sx_model_tensor_size(m, t);
        for (int i = 0; i < size; i += size > 12 ? size / 12 : 1) {
            float *q = params + off + i;
            const float keep = *q;
            *q = keep + eps;
            const double hp = (double)*q - keep, lp = loss_of(m, tok);
            *q = keep - eps;
            const double hm = (double)keep - *q, lm = loss_of(m, tok);
            *q = keep;
            const double fd = (lp - lm) / (hp + hm), tol = atol + rtol * fabs(fd);
            if (fabs((lp - l0) / hp - (l0 - lm) / hm) > tol) {
                skipped++;
                continue;
            }
            const double err = fabs(g[off + i] - fd);
            worst = err > worst ? err : worst;
            checked++;
            CHECK(err <= tol, "%s: %s[%d]: analytic %.7g vs differences %.7g", what,
                  sx_model_tensor_name(t), i, (double)g[off + i], fd);
        }
    }
    printf("test_gpt: gradient check, %-40s %4d entries, worst |error| %.2e, %d skipped at kinks\n",
           what, checked, worst, skipped);
    CHECK(checked > 150 && skipped * 5 < checked, "%s: %d checked, %d skipped", what, checked, skipped);
    free(g);
    sx_model_free(m);
}

/* sx_model_lm_step over the rows, position by position, against sx_model_forward over every
   prefix: logits, distributions (the output mapping of the full pass's logits) and each layer's
   attention row. */
static void test_kvcache(int map, int out, int span) {
    sx_model *m = make(map, out, span, 3, 1.5f);
    if (!m) return;
    int tok[B * T], pre[B * T];
    rows(tok);
    float probs[B * V], logits[B * V], ref[B * V];
    double worst_l = 0.0, worst_a = 0.0;
    int zeros = 0;
    for (int t = 0; t < T; t++) {
        int step_tok[B];
        for (int b = 0; b < B; b++) step_tok[b] = tok[b * T + t];
        CHECK(sx_model_lm_step(m, probs, logits, step_tok, B, t) == SX_OK, "step %d: %s", t, sx_last_error());
        float steps_att[L][B * NH * T];
        for (int l = 0; l < L; l++)
            CHECK(sx_model_lm_attention(m, steps_att[l], l) == SX_OK, "attention: %s", sx_last_error());
        float mine[B * V];
        memcpy(mine, logits, sizeof mine);
        memcpy(ref, probs, sizeof ref);
        /* the full pass over positions 0..t (which ends the steps' rows) */
        for (int b = 0; b < B; b++) memcpy(pre + b * (t + 1), tok + b * T, sizeof(int) * (t + 1));
        CHECK(sx_model_forward(m, NULL, 0, pre, t + 1, B) == SX_OK, "forward: %s", sx_last_error());
        const float *full = sx_model_logits(m);
        float last[B * V], p_full[B * V];
        for (int b = 0; b < B; b++) memcpy(last + b * V, full + ((size_t)b * (t + 1) + t) * V, sizeof(float) * V);
        for (int i = 0; i < B * V; i++) worst_l = fmax(worst_l, fabs(mine[i] - last[i]));
        const float al = out == SX_MAP_SOFTMAX ? 1.0f : out == SX_MAP_ENTMAX15 ? 1.5f : 2.0f;
        CHECK(sx_entmax(p_full, last, B, V, al, 1.0f) == SX_OK, "%s", sx_last_error());
        for (int i = 0; i < B * V; i++) {
            CHECK(fabs(ref[i] - p_full[i]) < 1e-4, "t %d: p[%d] %g vs full %g", t, i, (double)ref[i],
                  (double)p_full[i]);
            CHECK((ref[i] == 0.0f) == (p_full[i] == 0.0f) || fabs(p_full[i]) < 1e-5, "support differs");
            zeros += ref[i] == 0.0f;
        }
        for (int l = 0; l < L; l++) {
            const float *A = sx_model_attention(m, SX_MODEL_DEC_SELF, l); /* (B, NH, t+1, t+1) */
            for (int bh = 0; bh < B * NH; bh++)
                for (int j = 0; j <= t; j++)
                    worst_a = fmax(worst_a, fabs(steps_att[l][bh * (t + 1) + j] -
                                                 A[((size_t)bh * (t + 1) + t) * (t + 1) + j]));
        }
        /* continue the steps after the full pass: restart and replay positions 0..t */
        for (int s = 0; s <= t; s++) {
            for (int b = 0; b < B; b++) step_tok[b] = tok[b * T + s];
            CHECK(sx_model_lm_step(m, NULL, NULL, step_tok, B, s) == SX_OK, "replay: %s", sx_last_error());
        }
    }
    printf("test_gpt: KV cache vs full passes (map %d, output %d, span %d): logits %.2e, attention "
           "%.2e apart; %d exact zeros in the distributions\n", map, out, span, worst_l, worst_a, zeros);
    CHECK(worst_l < 1e-4 && worst_a < 2e-5, "logits %g, attention %g apart", worst_l, worst_a);
    if (out != SX_MAP_SOFTMAX) CHECK(zeros > 0, "sparse outputs without a zero");
    sx_model_free(m);
}

static void test_checkpoint(void) {
    sx_model *m = make(SX_MAP_ENTMAX_LEARNED, SX_MAP_ENTMAX, 4, 7, 1.25f);
    if (!m) return;
    int tok[B * T];
    rows(tok);
    for (int s = 0; s < 3; s++)
        CHECK(sx_model_train_step(m, NULL, NULL, 0, tok, T, B, 1e-2f) == SX_OK, "%s", sx_last_error());
    const double l0 = loss_of(m, tok);
    for (int prec = 16; prec <= 32; prec += 16) {
        const int size = sx_model_save_size_as(m, prec);
        unsigned char *buf = malloc((size_t)size);
        sx_model *r = NULL;
        CHECK(sx_model_save_as(m, buf, size, prec) == SX_OK && sx_model_load(&r, buf, size) == SX_OK,
              "float%d: %s", prec, sx_last_error());
        if (r) {
            CHECK(sx_model_config(r, SX_MODEL_ARCH(L)) == SX_MODEL_DECODER &&
                  sx_model_config(r, SX_MODEL_OUTPUT(L)) == SX_MAP_ENTMAX &&
                  sx_model_fconfig(r, SX_MODEL_F_OUTPUT_ALPHA(L)) == 1.25f, "float%d: config lost", prec);
            const double l1 = loss_of(r, tok);
            CHECK(prec == 32 ? l1 == l0 : fabs(l1 - l0) < 1e-2, "float%d: loss %.9g vs %.9g", prec, l1, l0);
        }
        sx_model_free(r);
        free(buf);
    }
    sx_model_free(m);
}

static void test_errors(void) {
    int cfg[NCFG], tok[B * T], out[B * T], one[B] = { 3, 3, 3 };
    const int v[SX_MODEL_MAP] = { V, C, NH, L, F, T, 0, 1, 1, B, 0 };
    memcpy(cfg, v, sizeof v);
    cfg[SX_MODEL_MAP] = cfg[SX_MODEL_MAP + 1] = SX_MAP_SOFTMAX;
    cfg[SX_MODEL_OUTPUT(L)] = SX_MAP_SOFTMAX;
    cfg[SX_MODEL_ARCH(L)] = 2;
    sx_model *m = NULL;
    CHECK_MSG(sx_model_create(&m, cfg, NCFG, NULL, 0), SX_EINVAL,
              "model_create: config arch must be 0 (encoder-decoder) or 1 (decoder-only) (got 2)");
    m = make(SX_MAP_SOFTMAX, SX_MAP_SOFTMAX, 0, 1, 1.5f);
    if (!m) return;
    rows(tok);
    CHECK_MSG(sx_model_loss(m, NULL, tok, T, tok, T, B), SX_EINVAL,
              "model_loss: a decoder-only model takes no source (src must be NULL and src_len 0, got src_len 7)");
    CHECK_MSG(sx_model_train_step(m, NULL, NULL, 0, tok, 1, B, 1e-3f), SX_EINVAL,
              "model_train_step: tgt length must be in [2, max_len 7] (got 1)");
    CHECK_MSG(sx_model_generate(m, out, T, tok, T, B), SX_EINVAL,
              "model_generate: a decoder-only model generates with model_lm_step");
    float w[T] = { 1 };
    CHECK_MSG(sx_model_edit(m, SX_EDIT_MASK_KEYS, SX_MODEL_CROSS, 0, 0, 0, w, 1), SX_EINVAL,
              "model_edit: mask_keys: a decoder-only model has only kind 1 (decoder self) (got 2)");
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, B, 1), SX_EINVAL,
              "model_lm_step: pos 1 with 3 rows does not continue the open rows (next pos 0, 0 rows; start at pos 0)");
    CHECK_MSG(sx_model_lm_attention(m, w, 0), SX_EINVAL, "model_lm_attention: no model_lm_step rows open");
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, B, T), SX_EINVAL,
              "model_lm_step: pos must be in [0, max_len 7) (got 7)");
    CHECK(sx_model_lm_step(m, NULL, NULL, one, B, 0) == SX_OK, "%s", sx_last_error());
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, 2, 1), SX_EINVAL,
              "model_lm_step: pos 1 with 2 rows does not continue the open rows (next pos 1, 3 rows");
    CHECK_MSG(sx_model_lm_attention(m, w, 2), SX_EINVAL, "model_lm_attention: layer must be in [0, 1] (got 2)");
    one[1] = V;
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, B, 1), SX_EINVAL,
              "model_lm_step: tok[1][0] must be a token id in [0, 9) (got 9)");
    one[1] = 3;
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, NULL, B, 0), SX_EINVAL, "model_lm_step: tok is NULL");
    CHECK(sx_model_forward(m, NULL, 0, tok, T, B) == SX_OK, "%s", sx_last_error());
    CHECK(sx_model_attention(m, SX_MODEL_CROSS, 0) == NULL && sx_model_attention(m, SX_MODEL_ENC_SELF, 0) == NULL &&
          sx_model_attention(m, SX_MODEL_DEC_SELF, 0) != NULL, "only decoder self-attention maps");
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, B, 1), SX_EINVAL, "(next pos 0, 0 rows"); /* forward ended them */
    float expl[T];
    CHECK_MSG(sx_model_explain(m, expl, NULL, SX_EXPLAIN_GRAD_NORM, tok, T, tok, T, 0, 3, 0, 1), SX_EINVAL,
              "model_explain: a decoder-only model has no source to explain");
    CHECK_MSG(sx_model_rollout(m, expl, 0), SX_EINVAL, "model_rollout: a decoder-only model has no source");
    sx_model_free(m);
    /* an encoder-decoder model refuses the steps */
    cfg[SX_MODEL_ARCH(L)] = SX_MODEL_ENC_DEC;
    CHECK(sx_model_create(&m, cfg, NCFG, NULL, 0) == SX_OK, "%s", sx_last_error());
    CHECK_MSG(sx_model_lm_step(m, NULL, NULL, one, B, 0), SX_EINVAL,
              "model_lm_step: the model is not decoder-only (config arch 0)");
    sx_model_free(m);
}

/* A repeating text: the loss falls well below uniform's and the greedy continuation by steps
   follows the period. */
static void test_train(void) {
    enum { TB = 8, TT = 24, STEPS = 300, TV = 12 };
    static const char text[] = "abcabdabe"; /* period 9 over 5 letters */
    int cfg[SX_MODEL_MAP + 2 + 2], tok[TB * TT];
    const int v[SX_MODEL_MAP] = { TV, 16, 2, 2, 32, TT, 0, 1, 1, TB, 1 };
    memcpy(cfg, v, sizeof v);
    cfg[SX_MODEL_MAP] = cfg[SX_MODEL_MAP + 1] = SX_MAP_ENTMAX15;
    cfg[SX_MODEL_OUTPUT(2)] = SX_MAP_SOFTMAX;
    cfg[SX_MODEL_ARCH(2)] = SX_MODEL_DECODER;
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, SX_MODEL_MAP + 4, NULL, 0) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    float loss = 0.0f, first = 0.0f;
    for (int s = 0; s < STEPS; s++) {
        for (int b = 0; b < TB; b++) {
            const int off = (s * 7 + b * 5) % 9;
            for (int t = 0; t < TT; t++) tok[b * TT + t] = 3 + text[(off + t) % 9] - 'a';
        }
        CHECK(sx_model_train_step(m, &loss, NULL, 0, tok, TT, TB, 1e-2f) == SX_OK, "%s", sx_last_error());
        if (s == 0) first = loss;
    }
    int cur = 3, right = 0; /* 'a' at position 0 of phase 0 */
    float p[TV];
    for (int t = 0; t + 1 < TT; t++) {
        CHECK(sx_model_lm_step(m, p, NULL, &cur, 1, t) == SX_OK, "%s", sx_last_error());
        int best = 0;
        for (int k = 1; k < TV; k++) best = p[k] > p[best] ? k : best;
        const int want = 3 + text[(t + 1) % 9] - 'a';
        right += best == want;
        cur = want;
    }
    printf("test_gpt: repeating text: loss %.3f -> %.3f in %d steps; greedy next letter right at %d of %d "
           "positions\n", (double)first, (double)loss, STEPS, right, TT - 1);
    CHECK(loss < 0.2f * first, "loss %g -> %g", (double)first, (double)loss);
    CHECK(right >= TT - 4, "greedy next letter right at %d of %d positions", right, TT - 1);
    sx_model_free(m);
}

int main(void) {
    test_layout();
    test_errors();
    gradcheck("softmax attention, softmax output", SX_MAP_SOFTMAX, SX_MAP_SOFTMAX, 0);
    gradcheck("1.5-entmax attention, 1.5-entmax output", SX_MAP_ENTMAX15, SX_MAP_ENTMAX15, 0);
    gradcheck("learned alpha + span, sparsemax output", SX_MAP_ENTMAX_LEARNED, SX_MAP_SPARSEMAX, 4);
    test_kvcache(SX_MAP_SOFTMAX, SX_MAP_SOFTMAX, 0);
    test_kvcache(SX_MAP_ENTMAX_LEARNED, SX_MAP_ENTMAX15, 4);
    test_kvcache(SX_MAP_SPARSEMAX, SX_MAP_SPARSEMAX, 0);
    test_checkpoint();
    test_train();
    return sx_test_summary("test_gpt");
}
