/* test_model.c - the tiny encoder-decoder Transformer (core/src/model.h): the whole model's
   gradient against central differences on tiny configs (every parameter tensor, including the
   learned alpha a and the span z, one config per mapping kind), checkpoint round trips (bit for
   bit), corrupted / truncated / wrong-magic / wrong-version loads and their messages, bad
   configs and bad token ids, greedy decoding's format, and a short deterministic training run
   on sequence reversal that must reach a loss bound. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"
#include "model.h"
#include "tasks.h"
#include "nn.h"

/* ------------------------------------------------------------------ helpers */
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

enum { MAXC = SX_MODEL_MAP + SX_MODEL_MAX_LAYERS };

/* A config with the given sizes; maps[] per layer. */
static int make_cfg(int *cfg, int V, int C, int NH, int L, int F, int T, int span, int ramp,
                    int seed, int max_batch, int act, const int *maps) {
    memset(cfg, 0, MAXC * sizeof(int));
    cfg[SX_MODEL_VOCAB] = V;
    cfg[SX_MODEL_D_MODEL] = C;
    cfg[SX_MODEL_N_HEAD] = NH;
    cfg[SX_MODEL_N_LAYER] = L;
    cfg[SX_MODEL_D_FF] = F;
    cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = span;
    cfg[SX_MODEL_SPAN_RAMP] = ramp;
    cfg[SX_MODEL_SEED] = seed;
    cfg[SX_MODEL_MAX_BATCH] = max_batch;
    cfg[SX_MODEL_ACT] = act;
    for (int l = 0; l < L; l++) cfg[SX_MODEL_MAP + l] = maps[l];
    return SX_MODEL_MAP + L;
}

/* B rows of a toy copy-like task with vocabulary V: src = letters, EOS, PAD; tgt = BOS,
   letters (shuffled by a fixed rule), EOS, PAD. Lengths vary so padding is exercised. */
static void toy_batch(int *src, int *tgt, int B, int T, int V) {
    for (int b = 0; b < B; b++) {
        const int n = T - 2 - (b % 2); /* letters */
        for (int t = 0; t < T; t++) src[b * T + t] = tgt[b * T + t] = SX_TOKEN_PAD;
        for (int t = 0; t < n; t++) src[b * T + t] = 3 + (int)(urand() * (V - 3));
        src[b * T + n] = SX_TOKEN_EOS;
        tgt[b * T] = SX_TOKEN_BOS;
        for (int t = 0; t < n; t++) tgt[b * T + 1 + t] = src[b * T + (t * 2) % n];
        tgt[b * T + 1 + n] = SX_TOKEN_EOS;
    }
}

/* ------------------------------------------------------------ gradient check */
typedef struct {
    sx_model *m;
    const int *src, *tgt;
    int B, T;
} loss_ctx;

static double model_loss(loss_ctx *c) {
    float loss = 0.0f;
    int st = sx_model_loss(c->m, &loss, c->src, c->T, c->tgt, c->T, c->B);
    if (st != SX_OK) {
        CHECK(0, "model_loss failed: %s", sx_last_error());
        return NAN;
    }
    return loss;
}

/* Central differences on up to `count` evenly spread entries of every tensor. sparsemax,
   entmax, the span window and ReLU are piecewise smooth: an entry whose one-sided differences
   disagree beyond the tolerance sits within eps of a kink and is skipped (counted). Returns the
   worst absolute error over the checked entries; *checked / *skipped count them. */
static double gradcheck_model(const char *what, loss_ctx *c, int count, int *checked,
                              int *skipped) {
    float *params = sx_model_params(c->m), *grads = sx_model_grads(c->m);
    const int n = sx_model_num_params(c->m);
    float *g = malloc((size_t)n * sizeof(float));
    float l0f = 0.0f;
    int st = sx_model_backward(c->m, &l0f, c->src, c->T, c->tgt, c->T, c->B);
    CHECK(st == SX_OK, "%s: backward failed: %s", what, sx_last_error());
    memcpy(g, grads, (size_t)n * sizeof(float));
    const double l0 = model_loss(c);
    CHECK(l0 == l0f, "%s: loss %.9g vs backward's %.9g", what, l0, (double)l0f);
    const float eps = 2e-3f;
    const double atol = 1e-3, rtol = 3e-2;
    double worst = 0.0;
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const int off = sx_model_tensor_offset(c->m, t), size = sx_model_tensor_size(c->m, t);
        const char *name = sx_model_tensor_name(t);
        const int step = size > count ? size / count : 1;
        for (int i = 0; i < size; i += step) {
            float *p = params + off + i;
            const float keep = *p;
            *p = keep + eps;
            const double hp = (double)*p - keep, lp = model_loss(c);
            *p = keep - eps;
            const double hm = (double)keep - *p, lm = model_loss(c);
            *p = keep;
            const double fd = (lp - lm) / (hp + hm), tol = atol + rtol * fabs(fd);
            if (fabs((lp - l0) / hp - (l0 - lm) / hm) > tol) {
                (*skipped)++;
                continue;
            }
            const double err = fabs(g[off + i] - fd);
            worst = err > worst ? err : worst;
            (*checked)++;
            CHECK(err <= tol, "%s: %s[%d]: analytic %.7g vs differences %.7g", what, name, i,
                  (double)g[off + i], fd);
        }
    }
    free(g);
    return worst;
}

static void test_gradients(void) {
    enum { V = 7, C = 8, NH = 2, F = 12, T = 6, B = 3 };
    static const struct {
        const char *name;
        int L, span, act, maps[2];
        float fparam[2];
    } cases[] = {
        { "softmax + span", 1, 5, 1, { SX_MAP_SOFTMAX }, { 0 } },
        { "sparsemax", 1, 0, 1, { SX_MAP_SPARSEMAX }, { 0 } },
        { "entmax15", 1, 0, 0, { SX_MAP_ENTMAX15 }, { 0 } },
        { "entmax alpha 1.3", 1, 0, 1, { SX_MAP_ENTMAX }, { 1.3f } },
        { "learned alpha", 1, 0, 1, { SX_MAP_ENTMAX_LEARNED }, { 0 } },
        { "learned alpha + span, 2 layers", 2, 6, 1,
          { SX_MAP_ENTMAX_LEARNED, SX_MAP_SOFTMAX }, { 0, 0 } },
        { "fusedmax + learned", 2, 0, 1, { SX_MAP_FUSEDMAX, SX_MAP_ENTMAX_LEARNED }, { 0.2f, 0 } },
    };
    double worst_all = 0.0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int cfg[MAXC], src[B * T], tgt[B * T];
        const int n = make_cfg(cfg, V, C, NH, cases[k].L, F, T, cases[k].span, 2, 7 + (int)k, B,
                               cases[k].act, cases[k].maps);
        float fcfg[SX_MODEL_F_PARAM + 2] = { 0.01f, 1.0f, 1.0f, cases[k].fparam[0], cases[k].fparam[1] };
        sx_model *m = NULL;
        int st = sx_model_create(&m, cfg, n, fcfg, SX_MODEL_F_PARAM + cases[k].L);
        CHECK(st == SX_OK, "%s: create: %s", cases[k].name, sx_last_error());
        if (st != SX_OK) continue;
        /* move a and z off their initial values so every path carries gradient: alpha in
           about (1.3, 1.7), z with part of the keys on the ramp */
        float *params = sx_model_params(m);
        for (int t = 0; t < sx_model_tensor_count(); t++) {
            const char *name = sx_model_tensor_name(t);
            float *p = params + sx_model_tensor_offset(m, t);
            const int size = sx_model_tensor_size(m, t);
            for (int i = 0; i < size; i++) {
                if (!strcmp(name, "alpha_a")) p[i] = (float)(urand() * 2.0 - 1.0);
                else if (!strcmp(name, "span_z")) p[i] = (float)(0.15 + 0.5 * urand());
                else if (strstr(name, "_b")) p[i] = (float)(urand() * 0.2 - 0.1);
                else if (strstr(name, "ln")) p[i] = (float)(0.8 + 0.4 * urand());
            }
        }
        toy_batch(src, tgt, B, T, V);
        loss_ctx c = { m, src, tgt, B, T };
        int checked = 0, skipped = 0;
        const double worst = gradcheck_model(cases[k].name, &c, 12, &checked, &skipped);
        printf("test_model: gradient check %-32s %4d entries, worst |error| %.2e, %d skipped at kinks\n",
               cases[k].name, checked, worst, skipped);
        CHECK(skipped * 5 < checked, "%s: %d of %d entries skipped", cases[k].name, skipped,
              checked + skipped);
        worst_all = worst > worst_all ? worst : worst_all;
        /* the learned-alpha and span gradients are not trivially zero */
        const float *g = sx_model_grads(m);
        for (int t = 0; t < sx_model_tensor_count(); t++) {
            const char *name = sx_model_tensor_name(t);
            const int off = sx_model_tensor_offset(m, t);
            double s = 0.0;
            for (int i = 0; i < NH; i++) s += fabs(g[off + i]);
            if (!strcmp(name, "alpha_a") && cases[k].maps[0] == SX_MAP_ENTMAX_LEARNED)
                CHECK(s > 1e-6, "%s: alpha gradient is zero", cases[k].name);
            if (!strcmp(name, "span_z") && cases[k].span)
                CHECK(s > 1e-6, "%s: span gradient is zero", cases[k].name);
        }
        sx_model_free(m);
    }
    printf("test_model: whole-model gradient check, worst |error| over all configs %.2e\n", worst_all);
}

/* ------------------------------------------------------------- checkpoints */
static void test_checkpoint(void) {
    enum { V = 9, T = 7, B = 4 };
    int cfg[MAXC], src[B * T], tgt[B * T];
    const int maps[2] = { SX_MAP_ENTMAX_LEARNED, SX_MAP_FUSEDMAX };
    const int n = make_cfg(cfg, V, 8, 2, 2, 16, T, 4, 2, 3, B, 0, maps);
    const float fcfg[SX_MODEL_F_PARAM + 2] = { 0.01f, 0.5f, 4.0f, 1.5f, 0.3f };
    sx_model *m = NULL, *r = NULL;
    CHECK(sx_model_create(&m, cfg, n, fcfg, SX_MODEL_F_PARAM + 2) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    for (int s = 0; s < 5; s++) { /* move away from the initialisation */
        toy_batch(src, tgt, B, T, V);
        CHECK(sx_model_train_step(m, NULL, src, T, tgt, T, B, 3e-3f) == SX_OK, "%s", sx_last_error());
    }
    const int size = sx_model_save_size(m);
    CHECK(size == 20 + 4 * (n + SX_MODEL_F_PARAM + 2 + sx_model_num_params(m)) + 4, "size %d", size);
    unsigned char *buf = malloc((size_t)size + 8), *buf2 = malloc((size_t)size), *bad = malloc((size_t)size + 8);
    CHECK_MSG(sx_model_save(m, buf, size - 1), SX_EINVAL, "buffer holds");
    CHECK(sx_model_save(m, buf, size) == SX_OK, "save: %s", sx_last_error());
    CHECK(sx_model_load(&r, buf, size) == SX_OK, "load: %s", sx_last_error());
    if (r) {
        /* same config, same parameters, same bytes, same forward bit for bit */
        for (int i = 0; i < n; i++) CHECK(sx_model_config(r, i) == sx_model_config(m, i), "cfg %d", i);
        CHECK(sx_model_save(r, buf2, size) == SX_OK && !memcmp(buf, buf2, (size_t)size), "resave differs");
        toy_batch(src, tgt, B, T, V);
        CHECK(sx_model_forward(m, src, T, tgt, T - 1, B) == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_forward(r, src, T, tgt, T - 1, B) == SX_OK, "%s", sx_last_error());
        CHECK(!memcmp(sx_model_logits(m), sx_model_logits(r), (size_t)B * (T - 1) * V * sizeof(float)),
              "logits differ after a round trip");
        for (int kind = 0; kind < 3; kind++)
            for (int l = 0; l < 2; l++) {
                size_t cnt = 1;
                for (int d = 0; d < 4; d++) cnt *= (size_t)sx_model_attention_shape(m, kind, d);
                CHECK(!memcmp(sx_model_attention(m, kind, l), sx_model_attention(r, kind, l),
                              cnt * sizeof(float)), "attention kind %d layer %d differs", kind, l);
            }
        int out1[B * T], out2[B * T];
        CHECK(sx_model_generate(m, out1, T, src, T, B) == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_generate(r, out2, T, src, T, B) == SX_OK, "%s", sx_last_error());
        CHECK(!memcmp(out1, out2, sizeof out1), "generate differs after a round trip");
        for (int b = 0; b < B; b++) { /* BOS, tokens, EOS, then only PAD */
            CHECK(out1[b * T] == SX_TOKEN_BOS, "row %d starts with %d", b, out1[b * T]);
            int ended = 0, ok = 1;
            for (int t = 1; t < T; t++) {
                if (ended) ok &= out1[b * T + t] == SX_TOKEN_PAD;
                else ok &= out1[b * T + t] != SX_TOKEN_PAD && out1[b * T + t] != SX_TOKEN_BOS;
                ended |= out1[b * T + t] == SX_TOKEN_EOS;
            }
            CHECK(ok, "generated row %d is not BOS tokens EOS PAD", b);
        }
        sx_model_free(r);
        r = NULL;
    }
    /* the error paths: each a clear EINVAL with its message, never a crash */
    CHECK_MSG(sx_model_load(&r, buf, 10), SX_EINVAL, "truncated: 10 bytes");
    CHECK_MSG(sx_model_load(&r, NULL, size), SX_EINVAL, "truncated");
    CHECK_MSG(sx_model_load(&r, buf, size - 1), SX_EINVAL, "truncated");
    CHECK_MSG(sx_model_load(&r, buf, size / 2), SX_EINVAL, "truncated");
    memcpy(bad, buf, (size_t)size);
    memset(bad + size, 0, 8);
    CHECK_MSG(sx_model_load(&r, bad, size + 8), SX_EINVAL, "8 bytes after the checkpoint's end");
    bad[0] = 'X';
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "not a Simplexity model (bad magic)");
    memcpy(bad, buf, (size_t)size);
    bad[4] = 2;
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "format version 2 is not supported");
    memcpy(bad, buf, (size_t)size);
    bad[16] = 0xff; bad[17] = 0xff; bad[18] = 0xff; bad[19] = 0x7f;
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "corrupted header");
    memcpy(bad, buf, (size_t)size);
    bad[size / 2] ^= 0x10; /* one bit in the parameters */
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "checksum mismatch");
    /* every single-byte corruption and every truncation fails cleanly */
    int all_fail = 1;
    for (int i = 0; i < size; i += 7) {
        memcpy(bad, buf, (size_t)size);
        bad[i] ^= 0x5a;
        all_fail &= sx_model_load(&r, bad, size) == SX_EINVAL && r == NULL;
        all_fail &= sx_model_load(&r, buf, i) == SX_EINVAL && r == NULL;
    }
    CHECK(all_fail, "a corrupted or truncated checkpoint loaded");
    free(buf);
    free(buf2);
    free(bad);
    sx_model_free(m);
}

/* A checkpoint whose checksum is right but whose content is not: re-sign after editing. */
static uint32_t fnv1a(const unsigned char *b, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}
static void resign(unsigned char *b, int size) {
    const uint32_t h = fnv1a(b, (size_t)size - 4);
    for (int k = 0; k < 4; k++) b[size - 4 + k] = (unsigned char)(h >> (8 * k));
}

static void test_checkpoint_content(void) {
    int cfg[MAXC];
    const int maps[1] = { SX_MAP_SOFTMAX };
    const int n = make_cfg(cfg, 6, 4, 1, 1, 4, 5, 0, 1, 1, 2, 0, maps);
    sx_model *m = NULL, *r = NULL;
    CHECK(sx_model_create(&m, cfg, n, NULL, 0) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    const int size = sx_model_save_size(m);
    unsigned char *buf = malloc((size_t)size), *bad = malloc((size_t)size);
    CHECK(sx_model_save(m, buf, size) == SX_OK, "%s", sx_last_error());
    memcpy(bad, buf, (size_t)size);
    memset(bad + 20 + 4 * SX_MODEL_VOCAB, 0, 4); /* vocab 0 */
    resign(bad, size);
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "model_load: config vocab must be in [4, 4096] (got 0)");
    memcpy(bad, buf, (size_t)size);
    bad[20 + 4 * SX_MODEL_D_FF] = 5; /* d_ff 5: a different parameter count */
    resign(bad, size);
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "parameters stored, the config needs");
    memcpy(bad, buf, (size_t)size);
    const float nan = NAN;
    memcpy(bad + 20 + 4 * n + 12, &nan, 4);
    resign(bad, size);
    CHECK_MSG(sx_model_load(&r, bad, size), SX_EINVAL, "parameter 3 is not finite");
    CHECK(r == NULL, "a failed load leaves *out NULL");
    free(buf);
    free(bad);
    sx_model_free(m);
    sx_model_free(NULL); /* no-op */
}

/* ---------------------------------------------------------------- errors */
static void test_errors(void) {
    int cfg[MAXC];
    const int maps[2] = { SX_MAP_SOFTMAX, SX_MAP_ENTMAX };
    sx_model *m = (sx_model *)&cfg; /* must be overwritten with NULL */
    int n = make_cfg(cfg, 13, 16, 4, 2, 32, 12, 0, 1, 1, 4, 0, maps);
    struct { int field, value; const char *msg; } bad[] = {
        { SX_MODEL_VOCAB, 3, "config vocab must be in [4, 4096] (got 3)" },
        { SX_MODEL_D_MODEL, 0, "config d_model must be in [2, 1024] (got 0)" },
        { SX_MODEL_D_MODEL, 18, "config d_model must be even and a multiple of n_head 4 (got 18)" },
        { SX_MODEL_N_HEAD, 17, "config n_head must be in [1, 16] (got 17)" },
        { SX_MODEL_N_LAYER, 9, "config n_layer must be in [1, 8] (got 9)" },
        { SX_MODEL_N_LAYER, 3, "config has 13 ints, n_layer 3 needs 14" },
        { SX_MODEL_D_FF, -1, "config d_ff must be in [1, 4096] (got -1)" },
        { SX_MODEL_MAX_LEN, 1, "config max_len must be in [2, 256] (got 1)" },
        { SX_MODEL_SPAN, 13, "config span must be in [0, max_len 12] (got 13)" },
        { SX_MODEL_MAX_BATCH, 0, "config max_batch must be in [1, 4096] (got 0)" },
        { SX_MODEL_ACT, 2, "config act must be in [0, 1] (got 2)" },
        { SX_MODEL_MAP + 1, 6, "config map[1] must be a mapping kind in [0, 5] (got 6)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int c2[MAXC];
        memcpy(c2, cfg, sizeof c2);
        c2[bad[i].field] = bad[i].value;
        CHECK_MSG(sx_model_create(&m, c2, n, NULL, 0), SX_EINVAL, bad[i].msg);
        CHECK(m == NULL, "failed create leaves *out NULL");
    }
    {
        int c2[MAXC];
        memcpy(c2, cfg, sizeof c2);
        c2[SX_MODEL_SPAN] = 4;
        c2[SX_MODEL_SPAN_RAMP] = 0;
        CHECK_MSG(sx_model_create(&m, c2, n, NULL, 0), SX_EINVAL, "config span_ramp must be in [1, 256] (got 0)");
    }
    CHECK_MSG(sx_model_create(&m, NULL, n, NULL, 0), SX_EINVAL, "config is NULL");
    CHECK_MSG(sx_model_create(&m, cfg, 5, NULL, 0), SX_EINVAL, "config has 5 ints");
    const float fbad[5] = { 0.01f, 1.0f, 1.0f, 1.0f, 0.5f };
    CHECK_MSG(sx_model_create(&m, cfg, n, fbad, 5), SX_EINVAL,
              "float config param[1] (entmax alpha) must be in [1, 8] (got 0.5)");
    const float fneg[1] = { -1.0f };
    CHECK_MSG(sx_model_create(&m, cfg, n, fneg, 1), SX_EINVAL, "span_penalty must be >= 0 (got -1)");
    CHECK_MSG(sx_model_create(&m, cfg, n, fbad, 6), SX_EINVAL, "float config must have 0..5 entries (got 6)");
    const float fneglr[3] = { 0.0f, 1.0f, -2.0f };
    CHECK_MSG(sx_model_create(&m, cfg, n, fneglr, 3), SX_EINVAL, "alpha_lr must be >= 0 (got -2)");

    /* a good model, bad calls */
    CHECK(sx_model_create(&m, cfg, n, NULL, 0) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    CHECK(sx_model_fconfig(m, SX_MODEL_F_PARAM + 1) == 1.5f, "default alpha");
    int src[2 * 12], tgt[2 * 12], out[2 * 12];
    sx_task_generate(src, tgt, SX_TASK_REVERSE, 0, 1, 0, 2, 12);
    src[12 + 3] = 13;
    CHECK_MSG(sx_model_forward(m, src, 12, tgt, 11, 2), SX_EINVAL,
              "model_forward: src[1][3] must be a token id in [0, 13) (got 13)");
    CHECK_MSG(sx_model_train_step(m, NULL, src, 12, tgt, 12, 2, 1e-3f), SX_EINVAL,
              "model_train_step: src[1][3] must be a token id in [0, 13) (got 13)");
    CHECK_MSG(sx_model_generate(m, out, 12, src, 12, 2), SX_EINVAL,
              "model_generate: src[1][3] must be a token id in [0, 13) (got 13)");
    src[12 + 3] = 4;
    tgt[5] = -1;
    CHECK_MSG(sx_model_loss(m, NULL, src, 12, tgt, 12, 2), SX_EINVAL,
              "model_loss: tgt[0][5] must be a token id in [0, 13) (got -1)");
    tgt[5] = 4;
    CHECK_MSG(sx_model_forward(m, src, 13, tgt, 11, 2), SX_EINVAL, "src length must be in [1, max_len 12] (got 13)");
    CHECK_MSG(sx_model_loss(m, NULL, src, 12, tgt, 1, 2), SX_EINVAL, "tgt length must be in [2, max_len 12] (got 1)");
    CHECK_MSG(sx_model_forward(m, src, 12, tgt, 11, 5), SX_EINVAL, "count must be in [1, max_batch 4] (got 5)");
    CHECK_MSG(sx_model_train_step(m, NULL, src, 12, tgt, 12, 2, NAN), SX_EINVAL, "lr must be finite");
    CHECK_MSG(sx_model_generate(m, out, 1, src, 12, 2), SX_EINVAL, "out_len must be in [2, max_len 12] (got 1)");
    CHECK_MSG(sx_model_forward(NULL, src, 12, tgt, 11, 2), SX_EINVAL, "model is NULL");
    CHECK(sx_model_attention(m, 0, 0) == NULL, "no maps before a forward pass");
    CHECK(sx_model_reserve(m, 8) == SX_OK && sx_model_config(m, SX_MODEL_MAX_BATCH) == 8, "reserve");
    CHECK(sx_model_forward(m, src, 12, tgt, 11, 2) == SX_OK, "%s", sx_last_error());
    CHECK(sx_model_attention_shape(m, SX_MODEL_CROSS, 2) == 11 &&
          sx_model_attention_shape(m, SX_MODEL_CROSS, 3) == 12, "cross shape");
    CHECK(sx_model_attention(m, 2, 2) == NULL && sx_model_attention_shape(m, 3, 0) == -1, "bad kind/layer");
    /* attention rows sum to 1 over the visible keys, masked keys are exact zeros */
    const float *att = sx_model_attention(m, SX_MODEL_DEC_SELF, 1);
    int ok = 1;
    for (int i = 0; i < 11; i++) {
        double s = 0.0;
        for (int j = 0; j < 11; j++) {
            s += att[i * 11 + j];
            if (j > i) ok &= att[i * 11 + j] == 0.0f;
        }
        ok &= fabs(s - 1.0) < 1e-5;
    }
    CHECK(ok, "causal map rows sum to 1 with exact zeros above the diagonal");
    sx_model_free(m);
}

/* The train step's Adam runs in two slices (alpha_a may take a scaled rate): with alpha_lr 1
   and a clip that binds, it must match one global-norm-clipped Adam step over the whole block. */
static void test_adam_split(void) {
    enum { V = 7, T = 6, B = 3 };
    int cfg[MAXC], src[B * T], tgt[B * T];
    const int maps[1] = { SX_MAP_ENTMAX_LEARNED };
    const int n = make_cfg(cfg, V, 8, 2, 1, 12, T, 5, 2, 11, B, 1, maps);
    const float fcfg[3] = { 0.01f, 0.05f, 1.0f }; /* clip 0.05: binds */
    sx_model *a = NULL, *b = NULL;
    CHECK(sx_model_create(&a, cfg, n, fcfg, 3) == SX_OK && sx_model_create(&b, cfg, n, fcfg, 3) == SX_OK,
          "%s", sx_last_error());
    if (!a || !b) return;
    toy_batch(src, tgt, B, T, V);
    const int np = sx_model_num_params(a);
    float *mm = calloc((size_t)np, sizeof(float)), *vv = calloc((size_t)np, sizeof(float));
    CHECK(sx_model_train_step(a, NULL, src, T, tgt, T, B, 1e-2f) == SX_OK, "%s", sx_last_error());
    CHECK(sx_model_backward(b, NULL, src, T, tgt, T, B) == SX_OK, "%s", sx_last_error());
    const sx_nn_adam_cfg adam = { 1e-2f, 0.9f, 0.98f, 1e-9f, 0.0f, 0.05f };
    const float norm = sx_nn_adam_step(sx_model_params(b), mm, vv, sx_model_grads(b), (size_t)np, 1, &adam);
    float *z = sx_model_params(b) + sx_model_tensor_offset(b, 39);
    CHECK(!strcmp(sx_model_tensor_name(39), "span_z"), "tensor 39 is %s", sx_model_tensor_name(39));
    sx_nn_span_clamp(z, sx_model_tensor_size(b, 39));
    double worst = 0.0;
    for (int i = 0; i < np; i++) {
        const double d = fabs((double)sx_model_params(a)[i] - sx_model_params(b)[i]);
        worst = d > worst ? d : worst;
    }
    CHECK(norm > 0.05f && worst < 1e-6, "split Adam vs one step: gradient norm %g, worst |diff| %g",
          (double)norm, worst);
    free(mm);
    free(vv);
    sx_model_free(a);
    sx_model_free(b);
}

/* ------------------------------------------------------------ training */
/* A small model learns sequence reversal from the task generator: a deterministic run (fixed
   seeds) whose loss must fall below a bound. */
static void test_train(void) {
    enum { B = 16, T = 12, STEPS = 500 };
    int cfg[MAXC], src[B * T], tgt[B * T];
    const int maps[1] = { SX_MAP_ENTMAX_LEARNED };
    const int n = make_cfg(cfg, sx_task_vocab_size(SX_TASK_REVERSE), 16, 2, 1, 32, T, T, 2, 1, B, 0, maps);
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, n, NULL, 0) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    float loss = 0.0f, first = 0.0f;
    int st = SX_OK;
    for (int s = 0; s < STEPS && st == SX_OK; s++) {
        sx_task_generate(src, tgt, SX_TASK_REVERSE, SX_TASK_TRAIN, 5, s * B, B, T);
        st = sx_model_train_step(m, &loss, src, T, tgt, T, B, 1e-2f);
        if (s == 0) first = loss;
    }
    CHECK(st == SX_OK, "training: %s", sx_last_error());
    float alphas[3 * 2], spans[3 * 2];
    sx_model_alphas(m, alphas);
    sx_model_spans(m, spans);
    printf("test_model: reversal, 1 layer, d 16: loss %.3f -> %.3f in %d steps; alphas enc %.2f %.2f, "
           "dec %.2f %.2f, cross %.2f %.2f; spans enc %.1f %.1f dec %.1f %.1f\n", (double)first,
           (double)loss, STEPS, alphas[0], alphas[1], alphas[2], alphas[3], alphas[4], alphas[5],
           spans[0], spans[1], spans[2], spans[3]);
    CHECK(loss < 0.35f, "reversal loss %g after %d steps", (double)loss, STEPS);
    sx_model_free(m);
}

int main(void) {
    test_errors();
    test_checkpoint_content();
    test_checkpoint();
    test_adam_split();
    test_gradients();
    test_train();
    return sx_test_summary("test_model");
}
