/* test_outputs.c - the model's sparse output layers (model.h, "Loss"): the output mapping in the
   config (SX_MODEL_OUTPUT(L), its alpha SX_MODEL_F_OUTPUT_ALPHA(L)) trained with its
   Fenchel-Young loss. The whole model's gradient against central differences for each output
   mapping; the loss against losses.c's sx_fy_loss_index on the model's own logits; a softmax
   output given explicitly trains bit for bit like a config without one; checkpoints keep the
   output mapping, and files without it (the version-1 golden file, a shipped softmax model) load
   as softmax outputs; bad configs and their messages; a short training run whose next-token
   distributions end up with exact zeros. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"
#include "tasks.h"

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
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

enum { V = 7, C = 8, NH = 2, L = 1, F = 12, T = 6, B = 3 };

/* A one-layer config with attention `map`; with_out: the output mapping `out` appended. */
static int tiny_cfg(int *cfg, int map, int with_out, int out, int seed) {
    const int v[SX_MODEL_MAP] = { V, C, NH, L, F, T, 0, 1, seed, B, 1 };
    memcpy(cfg, v, sizeof v);
    cfg[SX_MODEL_MAP] = map;
    cfg[SX_MODEL_OUTPUT(L)] = out;
    return SX_MODEL_MAP + L + (with_out ? 1 : 0);
}

/* src = letters, EOS, PAD; tgt = BOS, letters in another order, EOS, PAD (lengths vary). */
static void toy_batch(int *src, int *tgt) {
    for (int b = 0; b < B; b++) {
        const int n = T - 2 - (b % 2);
        for (int t = 0; t < T; t++) src[b * T + t] = tgt[b * T + t] = SX_TOKEN_PAD;
        for (int t = 0; t < n; t++) src[b * T + t] = 3 + (int)(urand() * (V - 3));
        src[b * T + n] = SX_TOKEN_EOS;
        tgt[b * T] = SX_TOKEN_BOS;
        for (int t = 0; t < n; t++) tgt[b * T + 1 + t] = src[b * T + (t * 2) % n];
        tgt[b * T + 1 + n] = SX_TOKEN_EOS;
    }
}

static double loss_of(sx_model *m, const int *src, const int *tgt) {
    float loss = NAN;
    CHECK(sx_model_loss(m, &loss, src, T, tgt, T, B) == SX_OK, "loss: %s", sx_last_error());
    return loss;
}

/* Central differences on every tensor (about 12 entries each, biases and layernorms moved off
   their initial values); entries within eps of a kink (one-sided differences disagree) are
   skipped and counted. The output weights are scaled up so that the output mapping has exact
   zeros (checked). */
static void gradcheck(const char *what, int out, float alpha) {
    int cfg[SX_MODEL_MAP + L + 1], src[B * T], tgt[B * T];
    const int n = tiny_cfg(cfg, SX_MAP_ENTMAX15, 1, out, 5);
    const float fcfg[SX_MODEL_F_PARAM + L + 1] = { 0.0f, 1.0f, 1.0f, 1.5f, alpha };
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, n, fcfg, SX_MODEL_F_PARAM + L + 1) == SX_OK, "%s: %s", what, sx_last_error());
    if (!m) return;
    float *params = sx_model_params(m), *grads = sx_model_grads(m);
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const char *name = sx_model_tensor_name(t);
        float *p = params + sx_model_tensor_offset(m, t);
        for (int i = 0; i < sx_model_tensor_size(m, t); i++) {
            if (!strcmp(name, "out_w")) p[i] *= 4.0f;
            else if (strstr(name, "_b")) p[i] = (float)(urand() * 0.2 - 0.1);
            else if (strstr(name, "ln")) p[i] = (float)(0.8 + 0.4 * urand());
        }
    }
    toy_batch(src, tgt);
    const int np = sx_model_num_params(m);
    float *g = malloc((size_t)np * sizeof(float));
    float l0f = 0.0f;
    CHECK(sx_model_backward(m, &l0f, src, T, tgt, T, B) == SX_OK, "%s: %s", what, sx_last_error());
    memcpy(g, grads, (size_t)np * sizeof(float));
    /* the output distributions of that pass have exact zeros (else this is softmax's test) */
    float *p = malloc(sizeof(float) * B * (T - 1) * V);
    const float al = out == SX_MAP_SPARSEMAX ? 2.0f : out == SX_MAP_ENTMAX15 ? 1.5f : alpha;
    int zeros = 0;
    CHECK(sx_entmax(p, sx_model_logits(m), B * (T - 1), V, al, 1.0f) == SX_OK, "%s", sx_last_error());
    for (int i = 0; i < B * (T - 1) * V; i++) zeros += p[i] == 0.0f;
    CHECK(zeros > B * (T - 1), "%s: only %d exact zeros in the output distributions", what, zeros);
    const double l0 = loss_of(m, src, tgt);
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
            const double hp = (double)*q - keep, lp = loss_of(m, src, tgt);
            *q = keep - eps;
            const double hm = (double)keep - *q, lm = loss_of(m, src, tgt);
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
    printf("test_outputs: gradient check, %-24s %4d entries, worst |error| %.2e, %d skipped at kinks, "
           "%d exact zeros of %d\n", what, checked, worst, skipped, zeros, B * (T - 1) * V);
    CHECK(skipped * 5 < checked, "%s: %d of %d entries skipped", what, skipped, checked + skipped);
    free(p);
    free(g);
    sx_model_free(m);
}

/* The model's loss is the mean over the labelled positions of sx_fy_loss_index on its own
   teacher-forced logits (PAD labels skipped). */
static void test_loss_value(void) {
    static const struct { int out; float alpha; } cases[] = {
        { SX_MAP_SOFTMAX, 1.5f }, { SX_MAP_SPARSEMAX, 1.5f }, { SX_MAP_ENTMAX15, 1.5f }, { SX_MAP_ENTMAX, 1.7f },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int cfg[SX_MODEL_MAP + L + 1], src[B * T], tgt[B * T], din[B * (T - 1)], lab[B * (T - 1)];
        const int n = tiny_cfg(cfg, SX_MAP_SOFTMAX, 1, cases[k].out, 9);
        const float fcfg[SX_MODEL_F_PARAM + L + 1] = { 0.0f, 1.0f, 1.0f, 1.5f, cases[k].alpha };
        sx_model *m = NULL;
        CHECK(sx_model_create(&m, cfg, n, fcfg, SX_MODEL_F_PARAM + L + 1) == SX_OK, "%s", sx_last_error());
        if (!m) continue;
        toy_batch(src, tgt);
        for (int b = 0; b < B; b++)
            for (int t = 0; t + 1 < T; t++) {
                din[b * (T - 1) + t] = tgt[b * T + t];
                lab[b * (T - 1) + t] = tgt[b * T + t + 1] == SX_TOKEN_PAD ? -1 : tgt[b * T + t + 1];
            }
        const double got = loss_of(m, src, tgt);
        CHECK(sx_model_forward(m, src, T, din, T - 1, B) == SX_OK, "%s", sx_last_error());
        float rows[B * (T - 1)];
        CHECK(sx_fy_loss_index(rows, NULL, NULL, sx_model_logits(m), lab, B * (T - 1), V, cases[k].out,
                               cases[k].alpha, 1.0f) == SX_OK, "%s", sx_last_error());
        double sum = 0.0;
        int count = 0;
        for (int i = 0; i < B * (T - 1); i++)
            if (lab[i] >= 0) sum += rows[i], count++;
        CHECK_NEAR(got, sum / count, 1e-5 * (1.0 + fabs(got)), "output mapping %d", cases[k].out);
        CHECK(sx_model_config(m, SX_MODEL_OUTPUT(L)) == cases[k].out &&
              sx_model_fconfig(m, SX_MODEL_F_OUTPUT_ALPHA(L)) == cases[k].alpha, "config read back");
        sx_model_free(m);
    }
}

/* SX_MAP_SOFTMAX given as the output mapping trains bit for bit like a config without one;
   the checkpoint then holds one more int. */
static void test_softmax_explicit(void) {
    int c0[SX_MODEL_MAP + L + 1], c1[SX_MODEL_MAP + L + 1], src[B * T], tgt[B * T];
    const int n0 = tiny_cfg(c0, SX_MAP_ENTMAX_LEARNED, 0, 0, 3), n1 = tiny_cfg(c1, SX_MAP_ENTMAX_LEARNED, 1, 0, 3);
    sx_model *a = NULL, *b = NULL;
    CHECK(sx_model_create(&a, c0, n0, NULL, 0) == SX_OK && sx_model_create(&b, c1, n1, NULL, 0) == SX_OK,
          "%s", sx_last_error());
    if (!a || !b) return;
    float la = 0.0f, lb = 0.0f;
    for (int s = 0; s < 5; s++) {
        toy_batch(src, tgt);
        CHECK(sx_model_train_step(a, &la, src, T, tgt, T, B, 1e-2f) == SX_OK &&
              sx_model_train_step(b, &lb, src, T, tgt, T, B, 1e-2f) == SX_OK, "%s", sx_last_error());
        CHECK(la == lb, "step %d: loss %.9g vs %.9g", s, (double)la, (double)lb);
    }
    const int np = sx_model_num_params(a);
    CHECK(!memcmp(sx_model_params(a), sx_model_params(b), (size_t)np * sizeof(float)),
          "an explicit softmax output trains differently");
    CHECK(sx_model_config(a, SX_MODEL_OUTPUT(L)) == SX_MAP_SOFTMAX &&
          sx_model_fconfig(a, SX_MODEL_F_OUTPUT_ALPHA(L)) == 1.5f, "defaults read back");
    CHECK(sx_model_save_size(b) == sx_model_save_size(a) + 4, "the explicit output is one more int");
    CHECK(sx_model_config(a, SX_MODEL_ARCH(L)) == SX_MODEL_ENC_DEC, "the architecture defaults to encoder-decoder");
    CHECK(sx_model_config(a, SX_MODEL_ARCH(L) + 1) == -1, "field past the architecture is bad");
    sx_model_free(a);
    sx_model_free(b);
}

static unsigned char *read_file(const char *rel, int *size) {
    static const char *const up[] = { "", "../", "../../" };
    for (int i = 0; i < 3; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s%s", up[i], rel);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static unsigned char buf[1 << 18];
        *size = (int)fread(buf, 1, sizeof buf, f);
        fclose(f);
        return buf;
    }
    CHECK(0, "cannot open %s (run from the repository root)", rel);
    return NULL;
}

/* Checkpoints keep the output mapping and its alpha (float32 and float16); files written
   before output mappings existed load as softmax outputs. */
static void test_checkpoints(void) {
    static const char *const old[] = { "tests/golden/model-v1.sxm", "web/models/date-softmax.sxm" };
    for (int k = 0; k < 2; k++) {
        int size = 0;
        const unsigned char *file = read_file(old[k], &size);
        sx_model *m = NULL;
        CHECK(file && sx_model_load(&m, file, size) == SX_OK, "%s: %s", old[k], sx_last_error());
        if (!m) continue;
        const int nl = sx_model_config(m, SX_MODEL_N_LAYER);
        CHECK(sx_model_config(m, SX_MODEL_OUTPUT(nl)) == SX_MAP_SOFTMAX &&
              sx_model_fconfig(m, SX_MODEL_F_OUTPUT_ALPHA(nl)) == 1.5f, "%s: not a softmax output", old[k]);
        unsigned char *buf = malloc((size_t)size);
        const int prec = file[4] == 1 ? SX_SAVE_FLOAT32 : SX_SAVE_FLOAT16;
        CHECK(sx_model_save_size_as(m, prec) == size && sx_model_save_as(m, buf, size, prec) == SX_OK &&
              !memcmp(buf, file, (size_t)size), "%s does not save back byte for byte", old[k]);
        free(buf);
        sx_model_free(m);
    }
    int cfg[SX_MODEL_MAP + L + 1], src[B * T], tgt[B * T];
    const int n = tiny_cfg(cfg, SX_MAP_SPARSEMAX, 1, SX_MAP_ENTMAX, 4);
    const float fcfg[SX_MODEL_F_PARAM + L + 1] = { 0.0f, 1.0f, 1.0f, 1.5f, 1.25f };
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, n, fcfg, SX_MODEL_F_PARAM + L + 1) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    toy_batch(src, tgt);
    const double l0 = loss_of(m, src, tgt);
    for (int prec = 16; prec <= 32; prec += 16) {
        const int size = sx_model_save_size_as(m, prec);
        unsigned char *buf = malloc((size_t)size);
        sx_model *r = NULL;
        CHECK(sx_model_save_as(m, buf, size, prec) == SX_OK && sx_model_load(&r, buf, size) == SX_OK,
              "%s", sx_last_error());
        if (r) {
            CHECK(sx_model_config(r, SX_MODEL_OUTPUT(L)) == SX_MAP_ENTMAX &&
                  sx_model_fconfig(r, SX_MODEL_F_OUTPUT_ALPHA(L)) == 1.25f, "float%d: output lost", prec);
            const double l1 = loss_of(r, src, tgt);
            CHECK(prec == 32 ? l1 == l0 : fabs(l1 - l0) < 1e-2, "float%d: loss %.9g vs %.9g", prec, l1, l0);
        }
        sx_model_free(r);
        free(buf);
    }
    sx_model_free(m);
}

static void test_errors(void) {
    int cfg[SX_MODEL_MAP + L + 3] = { 0 };
    sx_model *m = NULL;
    int n = tiny_cfg(cfg, SX_MAP_SOFTMAX, 1, 4, 1);
    CHECK_MSG(sx_model_create(&m, cfg, n, NULL, 0), SX_EINVAL,
              "model_create: config map[1] must be a mapping kind in [0, 3] (got 4)");
    CHECK(m == NULL, "failed create leaves *out NULL");
    cfg[SX_MODEL_OUTPUT(L)] = -1;
    CHECK_MSG(sx_model_create(&m, cfg, n, NULL, 0), SX_EINVAL, "config map[1] must be a mapping kind in [0, 3] (got -1)");
    cfg[SX_MODEL_OUTPUT(L)] = SX_MAP_ENTMAX;
    const float fbad[SX_MODEL_F_PARAM + L + 2] = { 0.0f, 1.0f, 1.0f, 1.5f, 0.5f, 1.0f };
    CHECK_MSG(sx_model_create(&m, cfg, n, fbad, SX_MODEL_F_PARAM + L + 1), SX_EINVAL,
              "float config param[1] (entmax alpha) must be in [1, 8] (got 0.5)");
    CHECK_MSG(sx_model_create(&m, cfg, n, fbad, SX_MODEL_F_PARAM + L + 2), SX_EINVAL,
              "float config must have 0..5 entries (got 6)");
    CHECK_MSG(sx_model_create(&m, cfg, n + 2, NULL, 0), SX_EINVAL,
              "config has 15 ints, n_layer 1 needs 12 to 14");
}

/* A sparsemax-output model trained briefly on reversal: the loss falls, and its next-token
   distributions (teacher forced, the answer's positions) have a small support that holds the
   right token. */
static void test_train(void) {
    enum { TB = 16, TT = 12, STEPS = 400 };
    const int vocab = sx_task_vocab_size(SX_TASK_REVERSE);
    int cfg[SX_MODEL_MAP + 2], src[TB * TT], tgt[TB * TT], din[TB * (TT - 1)];
    const int v[SX_MODEL_MAP] = { vocab, 16, 2, 1, 32, TT, 0, 1, 1, TB, 0 };
    memcpy(cfg, v, sizeof v);
    cfg[SX_MODEL_MAP] = SX_MAP_ENTMAX15;
    cfg[SX_MODEL_OUTPUT(1)] = SX_MAP_SPARSEMAX;
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, SX_MODEL_MAP + 2, NULL, 0) == SX_OK, "%s", sx_last_error());
    if (!m) return;
    float loss = 0.0f, first = 0.0f;
    for (int s = 0; s < STEPS; s++) {
        sx_task_generate(src, tgt, SX_TASK_REVERSE, SX_TASK_TRAIN, 5, s * TB, TB, TT);
        CHECK(sx_model_train_step(m, &loss, src, TT, tgt, TT, TB, 1e-2f) == SX_OK, "%s", sx_last_error());
        if (s == 0) first = loss;
    }
    sx_task_generate(src, tgt, SX_TASK_REVERSE, SX_TASK_HELDOUT, 7, 0, TB, TT);
    for (int b = 0; b < TB; b++) memcpy(din + b * (TT - 1), tgt + b * TT, sizeof(int) * (TT - 1));
    CHECK(sx_model_forward(m, src, TT, din, TT - 1, TB) == SX_OK, "%s", sx_last_error());
    static float p[TB * (TT - 1) * 64];
    CHECK(sx_sparsemax(p, sx_model_logits(m), TB * (TT - 1), vocab, 1.0f) == SX_OK, "%s", sx_last_error());
    int steps = 0, support = 0, inside = 0;
    for (int b = 0; b < TB; b++)
        for (int t = 0; t + 1 < TT && tgt[b * TT + t] != SX_TOKEN_EOS; t++, steps++) {
            const float *row = p + (size_t)(b * (TT - 1) + t) * vocab;
            for (int k = 0; k < vocab; k++) support += row[k] > 0.0f;
            inside += row[tgt[b * TT + t + 1]] > 0.0f;
        }
    printf("test_outputs: sparsemax outputs on reversal: loss %.3f -> %.3f in %d steps; held-out support "
           "%.2f of %d tokens, the right token inside it at %d of %d steps\n", (double)first, (double)loss,
           STEPS, (double)support / steps, vocab, inside, steps);
    CHECK(loss < 0.25f * first, "loss %g -> %g", (double)first, (double)loss);
    CHECK(support < 4 * steps, "mean support %.2f of %d tokens", (double)support / steps, vocab);
    CHECK(inside * 10 >= steps * 9, "right token inside the support at %d of %d steps", inside, steps);
    sx_model_free(m);
}

int main(void) {
    test_errors();
    test_loss_value();
    test_softmax_explicit();
    test_checkpoints();
    gradcheck("sparsemax outputs", SX_MAP_SPARSEMAX, 1.5f);
    gradcheck("1.5-entmax outputs", SX_MAP_ENTMAX15, 1.5f);
    gradcheck("entmax 1.3 outputs", SX_MAP_ENTMAX, 1.3f);
    gradcheck("entmax 2.5 outputs", SX_MAP_ENTMAX, 2.5f);
    test_train();
    return sx_test_summary("test_outputs");
}
