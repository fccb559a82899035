/* test_rnn.c - the recurrent encoder-decoder (core/src/rnn.c, hard.c; issue 24): central-
   difference gradient checks of every parameter tensor for each attention variant and several
   mappings, the bad-input contract, a short training run on the reverse task, and the hard
   attention estimators against the exact gradient of the expected loss. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "rnn.h"
#include "simplexity.h"
#define SX_TEST_SEED 24
#include "prng.h"

enum { T = 12, V = 13 };

static sx_rnn *make(int attn, int map, int est, int E, int H, int A, int batch, int seed) {
    int cfg[SX_RNN_N_CFG] = { 0 };
    cfg[SX_RNN_VOCAB] = V;
    cfg[SX_RNN_EMBED] = E;
    cfg[SX_RNN_HIDDEN] = H;
    cfg[SX_RNN_ATTN_HIDDEN] = A;
    cfg[SX_RNN_MAX_LEN] = T;
    cfg[SX_RNN_SEED] = seed;
    cfg[SX_RNN_MAX_BATCH] = batch;
    cfg[SX_RNN_ATTENTION] = attn;
    cfg[SX_RNN_MAP] = map;
    cfg[SX_RNN_ESTIMATOR] = est;
    const float fcfg[1] = { 1.3f }; /* alpha of SX_MAP_ENTMAX (a general alpha, not 1.5) */
    sx_rnn *m = NULL;
    if (sx_rnn_create(&m, cfg, SX_RNN_N_CFG, fcfg, 1) != SX_OK)
        fprintf(stderr, "rnn_create: %s\n", sx_last_error());
    return m;
}

/* Reverse-task rows whose source has at most max_chars letters (drawn in order from the split). */
static void short_rows(int *src, int *tgt, int count, int max_chars, int split, unsigned seed) {
    int s[T], g[T], k = 0;
    for (int i = 0; k < count; i++) {
        sx_task_generate(s, g, SX_TASK_REVERSE, split, seed, i, 1, T);
        int n = 0;
        while (s[n] != SX_TOKEN_EOS) n++;
        if (n > max_chars) continue;
        memcpy(src + k * T, s, sizeof s);
        memcpy(tgt + k * T, g, sizeof g);
        k++;
    }
}

/* ======================================================== gradient checks */
/* The zero pattern of the attention weights of the last pass (sparse mappings' supports). */
static unsigned long support_hash(const sx_rnn *m) {
    const float *att = sx_rnn_attention(m);
    const int n = sx_rnn_attention_shape(m, 0) * sx_rnn_attention_shape(m, 1) * sx_rnn_attention_shape(m, 2);
    unsigned long h = 1469598103u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned long)(att[i] != 0.0f)) * 16777619u;
    return h;
}

static double loss_at(sx_rnn *m, const int *src, const int *tgt, int B, unsigned long *supp) {
    float l = 0.0f;
    CHECK(sx_rnn_loss(m, &l, src, T, tgt, T, B) == SX_OK, "loss: %s", sx_last_error());
    *supp = support_hash(m);
    return l;
}

/* Directional derivative of the loss along a random unit direction v over one tensor, by
   central differences, against <grad, v>. The loss is a float near 2.6 (ulp 2.4e-7): with a few
   ulps of rounding in each of the two losses the quotient carries about 1e-6 / h of noise, and
   h^2 |f'''| / 6 of truncation, under 1e-2 of the derivative at h <= 1e-2. The tolerance is
   their sum, 1e-6 / h + 1e-2 |<grad, v>| (measured errors: 1e-7 .. 2e-5), while a wrong gradient
   (a missing term, a sign) moves the product by its whole size. Sparse mappings are piecewise
   smooth: when the support differs between the two points, h is halved (up to four times) so
   both sit on the same piece. */
static void check_tensor(sx_rnn *m, int tensor, const int *src, const int *tgt, int B, const char *what) {
    const int off = sx_rnn_tensor_offset(m, tensor), n = sx_rnn_tensor_size(m, tensor);
    if (n == 0) return;
    float *p = sx_rnn_params(m) + off;
    const float *g = sx_rnn_grads(m) + off;
    double *v = malloc(sizeof(double) * n), norm = 0.0, dot = 0.0;
    for (int i = 0; i < n; i++) {
        v[i] = nrand();
        norm += v[i] * v[i];
    }
    for (int i = 0; i < n; i++) dot += (v[i] /= sqrt(norm)) * g[i];
    float *save = malloc(sizeof(float) * n);
    memcpy(save, p, sizeof(float) * n);
    double h = 1e-2, num = 0.0;
    for (int tries = 0; tries < 5; tries++, h /= 2) {
        unsigned long s1, s2, s0;
        for (int i = 0; i < n; i++) p[i] = (float)(save[i] + h * v[i]);
        const double lp = loss_at(m, src, tgt, B, &s1);
        for (int i = 0; i < n; i++) p[i] = (float)(save[i] - h * v[i]);
        const double lm = loss_at(m, src, tgt, B, &s2);
        memcpy(p, save, sizeof(float) * n);
        loss_at(m, src, tgt, B, &s0);
        num = (lp - lm) / (2 * h);
        if (s1 == s0 && s2 == s0) break;
    }
    if (getenv("VERBOSE")) printf("%-28s %-8s %12.6g %12.6g %8.2g h %g\n", what, sx_rnn_tensor_name(tensor), num, dot, fabs(num - dot), h);
    CHECK_NEAR(num, dot, 1e-6 / h + 1e-2 * fabs(dot), "%s: d loss along v in %s (h %g)", what,
               sx_rnn_tensor_name(tensor), h);
    free(v);
    free(save);
}

static void gradcheck(int attn, int map, int est, const char *what) {
    enum { B = 3 };
    sx_rnn *m = make(attn, map, est, 5, 6, 4, B, 7);
    int src[B * T], tgt[B * T];
    short_rows(src, tgt, B, 6, SX_TASK_TRAIN, 3);
    if (attn == SX_RNN_HARD) { /* w_v = 0: every score 0, the pick fixed at 0 (see below) */
        const int at = sx_rnn_tensor_offset(m, 11), na = sx_rnn_tensor_size(m, 11);
        CHECK(!strcmp(sx_rnn_tensor_name(11), "att"), "tensor 11 is %s", sx_rnn_tensor_name(11));
        for (int i = na - 4; i < na; i++) sx_rnn_params(m)[at + i] = 0.0f;
    }
    if (map == SX_MAP_ENTMAX_LEARNED) sx_rnn_params(m)[sx_rnn_tensor_offset(m, sx_rnn_tensor_count() - 1)] = 0.4f;
    float loss = 0.0f;
    CHECK(sx_rnn_backward(m, &loss, src, T, tgt, T, B) == SX_OK, "%s: backward: %s", what, sx_last_error());
    CHECK(loss > 0.0f && loss < 10.0f, "%s: loss %g", what, (double)loss);
    for (int k = 0; k < sx_rnn_tensor_count(); k++) {
        if (k == sx_rnn_tensor_count() - 1 && map != SX_MAP_ENTMAX_LEARNED) {
            CHECK(sx_rnn_grads(m)[sx_rnn_tensor_offset(m, k)] == 0.0f, "%s: alpha_a has a gradient", what);
            continue;
        }
        if (attn == SX_RNN_HARD && !strcmp(sx_rnn_tensor_name(k), "att")) continue; /* no exact gradient */
        check_tensor(m, k, src, tgt, B, what);
    }
    sx_rnn_free(m);
}

static void test_gradients(void) {
    gradcheck(SX_RNN_NONE, SX_MAP_SOFTMAX, 0, "none");
    gradcheck(SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0, "additive softmax");
    gradcheck(SX_RNN_ADDITIVE, SX_MAP_SPARSEMAX, 0, "additive sparsemax");
    gradcheck(SX_RNN_ADDITIVE, SX_MAP_ENTMAX15, 0, "additive entmax15");
    gradcheck(SX_RNN_ADDITIVE, SX_MAP_ENTMAX, 0, "additive entmax alpha 1.3");
    gradcheck(SX_RNN_ADDITIVE, SX_MAP_ENTMAX_LEARNED, 0, "additive learned alpha");
    /* hard attention's pathwise gradients (c_t = h_{j_t} into the keys, the encoder, the
       decoder): with w_v = 0 every score is exactly 0, so p is uniform, the argmax pick is
       position 0 under any small move of the other tensors, and the straight-through term
       reaches w_v only (d score / d q = d score / d k = 0): every tensor but "att" then has
       its exact gradient */
    gradcheck(SX_RNN_HARD, SX_MAP_SOFTMAX, SX_RNN_STRAIGHT, "hard straight");
}


/* ========================================================= bad input */
#define EXPECT(call, code, text) do { \
    const int _st = (call); \
    CHECK(_st == (code) && strstr(sx_last_error(), (text)) != NULL, \
          "status %d (want %d), message \"%s\" (want \"%s\")", _st, (code), sx_last_error(), (text)); \
} while (0)

static void test_contract(void) {
    int cfg[SX_RNN_N_CFG] = { V, 4, 5, 3, T, 1, 2, SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0 };
    sx_rnn *m = (sx_rnn *)&cfg; /* a sentinel: a failed create must set *out to NULL */
    EXPECT(sx_rnn_create(NULL, cfg, SX_RNN_N_CFG, NULL, 0), SX_EINVAL, "rnn_create: out is NULL");
    EXPECT(sx_rnn_create(&m, NULL, SX_RNN_N_CFG, NULL, 0), SX_EINVAL, "config is NULL");
    CHECK(m == NULL, "a failed create leaves *out NULL");
    EXPECT(sx_rnn_create(&m, cfg, SX_RNN_N_CFG - 1, NULL, 0), SX_EINVAL, "config has 9 ints, needs 10");
    static const struct { int field, value; const char *text; } bad[] = {
        { SX_RNN_VOCAB, 3, "config vocab must be in [4, 4096] (got 3)" },
        { SX_RNN_HIDDEN, 0, "config hidden must be in [1, 1024] (got 0)" },
        { SX_RNN_MAX_LEN, 1, "config max_len must be in [2, 256] (got 1)" },
        { SX_RNN_MAX_BATCH, 0, "config max_batch must be in [1, 4096] (got 0)" },
        { SX_RNN_ATTENTION, 3, "config attention must be in [0, 2] (got 3)" },
        { SX_RNN_MAP, 6, "config map must be in [0, 5] (got 6)" },
        { SX_RNN_ESTIMATOR, -1, "config estimator must be in [0, 2] (got -1)" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const int keep = cfg[bad[k].field];
        cfg[bad[k].field] = bad[k].value;
        EXPECT(sx_rnn_create(&m, cfg, SX_RNN_N_CFG, NULL, 0), SX_EINVAL, bad[k].text);
        cfg[bad[k].field] = keep;
    }
    const float fbad[SX_RNN_N_FCFG] = { 1.5f, 1.0f, 1.0f, 0.0f, 0.9f };
    EXPECT(sx_rnn_create(&m, cfg, SX_RNN_N_CFG, fbad, 4), SX_EINVAL, "float config temperature is out of range (got 0)");
    EXPECT(sx_rnn_create(&m, cfg, SX_RNN_N_CFG, NULL, 2), SX_EINVAL, "float config must have 0..5 entries (got 2, NULL)");
    cfg[SX_RNN_MAP] = SX_MAP_ENTMAX;
    const float falpha[1] = { 0.5f };
    EXPECT(sx_rnn_create(&m, cfg, SX_RNN_N_CFG, falpha, 1), SX_EINVAL, "float config param is out of range (got 0.5)");
    cfg[SX_RNN_MAP] = SX_MAP_SOFTMAX;
    CHECK(sx_rnn_create(&m, cfg, SX_RNN_N_CFG, NULL, 0) == SX_OK && m, "create: %s", sx_last_error());

    int src[2 * T], tgt[2 * T], out[2 * T];
    short_rows(src, tgt, 2, 5, SX_TASK_TRAIN, 1);
    float loss = -1.0f;
    EXPECT(sx_rnn_loss(NULL, &loss, src, T, tgt, T, 2), SX_EINVAL, "rnn_loss: model is NULL");
    EXPECT(sx_rnn_loss(m, &loss, NULL, T, tgt, T, 2), SX_EINVAL, "rnn_loss: src is NULL");
    EXPECT(sx_rnn_loss(m, &loss, src, T, NULL, T, 2), SX_EINVAL, "rnn_loss: tgt is NULL");
    EXPECT(sx_rnn_loss(m, &loss, src, T, tgt, T, 3), SX_EINVAL, "count must be in [1, max_batch 2] (got 3)");
    EXPECT(sx_rnn_loss(m, &loss, src, T, tgt, T, 0), SX_EINVAL, "count must be in [1, max_batch 2] (got 0)");
    EXPECT(sx_rnn_loss(m, &loss, src, T + 1, tgt, T, 2), SX_EINVAL, "src length must be in [1, max_len 12] (got 13)");
    EXPECT(sx_rnn_loss(m, &loss, src, T, tgt, 1, 2), SX_EINVAL, "tgt length must be in [2, max_len 12] (got 1)");
    CHECK(loss == -1.0f, "a failed loss call leaves *loss");
    src[T + 2] = V;
    EXPECT(sx_rnn_backward(m, &loss, src, T, tgt, T, 2), SX_EINVAL, "rnn_backward: src[1][2] must be a token id in [0, 13) (got 13)");
    src[T + 2] = -1;
    EXPECT(sx_rnn_forward(m, src, T, tgt, T, 2), SX_EINVAL, "rnn_forward: src[1][2] must be a token id in [0, 13) (got -1)");
    src[T + 2] = 3;
    EXPECT(sx_rnn_train_step(m, &loss, src, T, tgt, T, 2, NAN), SX_EINVAL, "rnn_train_step: lr must be finite and >= 0 (got NaN)");
    EXPECT(sx_rnn_train_step(NULL, &loss, src, T, tgt, T, 2, 1e-3f), SX_EINVAL, "model is NULL");
    EXPECT(sx_rnn_generate(m, NULL, T, src, T, 2), SX_EINVAL, "rnn_generate: out is NULL");
    EXPECT(sx_rnn_generate(m, out, 1, src, T, 2), SX_EINVAL, "out_len must be in [2, max_len 12] (got 1)");
    EXPECT(sx_rnn_generate(m, out, T, src, 0, 2), SX_EINVAL, "src length must be in [1, max_len 12] (got 0)");
    CHECK(sx_rnn_steps(m) == 0, "no step taken by failed calls");
    /* the queries on NULL and bad fields */
    CHECK(sx_rnn_config(NULL, 0) == -1 && sx_rnn_config(m, SX_RNN_N_CFG) == -1, "config of bad field");
    CHECK(isnan(sx_rnn_fconfig(m, -1)) && sx_rnn_fconfig(m, SX_RNN_F_BASELINE) == 0.9f, "fconfig");
    CHECK(sx_rnn_tensor_name(-1) == NULL && sx_rnn_tensor_offset(NULL, 0) == -1, "tensor queries");
    CHECK(sx_rnn_logits(NULL) == NULL && sx_rnn_attention_shape(m, 3) == -1, "results of nothing");
    CHECK(sx_rnn_num_params(NULL) == 0 && sx_rnn_params(NULL) == NULL, "params of NULL");
    /* a source row that starts with PAD: no key, context 0, still a finite loss */
    for (int t = 0; t < T; t++) src[t] = SX_TOKEN_PAD;
    CHECK(sx_rnn_loss(m, &loss, src, T, tgt, T, 2) == SX_OK && loss > 0.0f && loss < 20.0f,
          "empty source row: %s, loss %g", sx_last_error(), (double)loss);
    sx_rnn_free(m);
    sx_rnn_free(NULL);
}

/* ============================================================ training */
/* Train on reverse rows of at most max_chars letters (train split, fresh rows every step), then
   greedy exact-sequence accuracy on n held-out rows of the same lengths. */
static double train_reverse(sx_rnn *m, int steps, int max_chars, float lr, int n, float *last) {
    enum { B = 32 };
    int src[B * T], tgt[B * T], out[B * T];
    float loss = 0.0f;
    for (int s = 0; s < steps; s++) {
        short_rows(src, tgt, B, max_chars, SX_TASK_TRAIN, 100u + (unsigned)s);
        CHECK(sx_rnn_train_step(m, &loss, src, T, tgt, T, B, lr) == SX_OK, "step %d: %s", s, sx_last_error());
    }
    *last = loss;
    int right = 0;
    for (int k = 0; k < n; k += B) {
        short_rows(src, tgt, B, max_chars, SX_TASK_HELDOUT, 7000u + (unsigned)k);
        CHECK(sx_rnn_generate(m, out, T, src, T, B) == SX_OK, "generate: %s", sx_last_error());
        for (int r = 0; r < B; r++) right += !memcmp(out + r * T, tgt + r * T, sizeof(int) * T);
    }
    return (double)right / n;
}

/* Chance: a reverse row of 3..4 letters over 10 letters is guessed exactly with probability
   about 10^-3.5; a model that learned nothing scores 0 on 128 rows. The bound 0.5 needs the
   model to have learned the task on most rows. */
static void test_training(void) {
    sx_rnn *m = make(SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0, 16, 32, 16, 32, 1);
    float loss = 0.0f;
    const double acc = train_reverse(m, 300, 4, 1e-2f, 128, &loss);
    printf("additive softmax, reverse of 3..4 letters, 300 steps: loss %.3f, held-out exact %.1f%%\n",
           (double)loss, 100 * acc);
    CHECK(acc > 0.5, "held-out exact accuracy %g", acc);
    sx_rnn_free(m);
}

/* ======================================================= hard attention */
/* A tiny fixed problem: scores e (4) -> p = map(e), one position j drawn by the estimator,
   c = h_j (h: 4 x 3), loss f(c) = |c - y|^2 / 2. The exact gradient of the expected loss
   sum_j p_j f(h_j) in e is J^T f (J = dp/de). Each estimator's gradient in e (sx__hard_grad,
   then the mapping's backward) is averaged over N draws: REINFORCE (constant baseline) is
   unbiased, so every component of its mean must lie within 4 standard errors of J^T f; the
   straight-through estimators are biased, so their mean need only point the same way: the
   lower end of <mean, J^T f> (4 standard errors of each component times |J^T f|) must be > 0. */
static void backward_e(float *de, const float *e, const float *dp, int map) {
    if (map == SX_MAP_SOFTMAX) sx_softmax_backward(de, e, dp, 1, 4, 1.0f);
    else sx_sparsemax_backward(de, e, dp, 1, 4, 1.0f);
}

static void estimator_check(int map, int est, const char *what) {
    enum { n = 4, d = 3, N = 20000 };
    const float e[n] = { 0.3f, -0.2f, 0.5f, 0.1f };
    const float h[n][d] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 1, 0 } };
    const float y[d] = { 0.2f, 0.9f, -0.3f };
    float p[n], f[n], exact[n], soft[n], dp[n], de[n], g[n];
    if (map == SX_MAP_SOFTMAX) sx_softmax(p, e, 1, n, 1.0f);
    else sx_sparsemax(p, e, 1, n, 1.0f);
    for (int j = 0; j < n; j++) {
        f[j] = 0.0f;
        for (int i = 0; i < d; i++) f[j] += 0.5f * (h[j][i] - y[i]) * (h[j][i] - y[i]);
    }
    backward_e(exact, e, f, map);
    sx__rng rng;
    sx__rng_init(&rng, 24, est);
    double sum[n] = { 0 }, sq[n] = { 0 };
    for (int k = 0; k < N; k++) {
        const int j = sx__hard_select(soft, p, n, est, 0.5f, 1, &rng);
        for (int u = 0; u < n; u++) { /* g_u = <dc, h_u>, dc = h_j - y */
            g[u] = 0.0f;
            for (int i = 0; i < d; i++) g[u] += (h[j][i] - y[i]) * h[u][i];
        }
        sx__hard_grad(dp, g, soft, p, n, j, est, 0.5f, f[j] - 0.8f);
        backward_e(de, e, dp, map);
        for (int u = 0; u < n; u++) sum[u] += de[u], sq[u] += (double)de[u] * de[u];
    }
    double dot = 0.0, se2 = 0.0, en = 0.0, mn = 0.0;
    int within = 1;
    for (int u = 0; u < n; u++) {
        const double mean = sum[u] / N, se = sqrt(fmax(sq[u] / N - mean * mean, 0.0) / N);
        within &= fabs(mean - exact[u]) <= 4 * se + 1e-7;
        dot += mean * exact[u], se2 += se * se, en += (double)exact[u] * exact[u], mn += mean * mean;
    }
    printf("%-22s cos(mean estimate, exact) %+.3f, standard error %.2g\n", what,
           dot / sqrt(en * mn + 1e-300), sqrt(se2));
    if (est == SX_RNN_REINFORCE) CHECK(within, "%s: a component outside 4 standard errors", what);
    CHECK(dot - 4 * sqrt(se2 * en) > 0.0, "%s: <mean, exact> %g not above its noise", what, dot);
}

static void test_estimators(void) {
    estimator_check(SX_MAP_SOFTMAX, SX_RNN_REINFORCE, "softmax REINFORCE");
    estimator_check(SX_MAP_SOFTMAX, SX_RNN_GUMBEL, "softmax Gumbel ST");
    estimator_check(SX_MAP_SOFTMAX, SX_RNN_STRAIGHT, "softmax argmax ST");
    estimator_check(SX_MAP_SPARSEMAX, SX_RNN_REINFORCE, "sparsemax REINFORCE");
    estimator_check(SX_MAP_SPARSEMAX, SX_RNN_GUMBEL, "sparsemax Gumbel ST");
    estimator_check(SX_MAP_SPARSEMAX, SX_RNN_STRAIGHT, "sparsemax argmax ST");
}

/* Hard attention trains with each estimator: loss after training below the loss at
   initialisation (log 13 = 2.56 for uniform guesses), and held-out rows above chance. */
static void test_hard_training(void) {
    static const char *const name[3] = { "REINFORCE", "Gumbel ST", "argmax ST" };
    for (int est = 0; est < 3; est++) {
        sx_rnn *m = make(SX_RNN_HARD, SX_MAP_SOFTMAX, est, 16, 32, 16, 32, 1);
        float loss = 0.0f;
        const double acc = train_reverse(m, 150, 4, 1e-2f, 64, &loss);
        printf("hard %-10s reverse of 3..4 letters, 150 steps: loss %.3f, held-out exact %.1f%%\n",
               name[est], (double)loss, 100 * acc);
        CHECK(loss < 1.0f, "hard %s: loss %g", name[est], (double)loss);
        CHECK(acc > 0.1, "hard %s: held-out exact accuracy %g", name[est], acc);
        sx_rnn_free(m);
    }
}

/* ========================================================= checkpoints */
static void test_checkpoints(void) {
    enum { B = 4 };
    sx_rnn *m = make(SX_RNN_ADDITIVE, SX_MAP_ENTMAX_LEARNED, 0, 5, 6, 4, B, 3), *back = NULL;
    int src[B * T], tgt[B * T], o1[B * T], o2[B * T];
    short_rows(src, tgt, B, 6, SX_TASK_TRAIN, 5);
    float l0 = 0.0f, l1 = 0.0f;
    for (int s = 0; s < 3; s++) sx_rnn_train_step(m, &l0, src, T, tgt, T, B, 1e-2f);
    const int n32 = sx_rnn_save_size_as(m, SX_SAVE_FLOAT32), n16 = sx_rnn_save_size_as(m, SX_SAVE_FLOAT16);
    CHECK(n32 == 20 + 4 * 15 + 4 * sx_rnn_num_params(m) + 4 && n16 == n32 - 2 * sx_rnn_num_params(m),
          "sizes %d %d", n32, n16);
    unsigned char *buf = malloc((size_t)n32);
    CHECK(sx_rnn_save_as(m, buf, n32, SX_SAVE_FLOAT32) == SX_OK, "save: %s", sx_last_error());
    CHECK(sx_rnn_load(&back, buf, n32) == SX_OK && back, "load: %s", sx_last_error());
    sx_rnn_loss(m, &l0, src, T, tgt, T, B);
    sx_rnn_loss(back, &l1, src, T, tgt, T, B);
    sx_rnn_generate(m, o1, T, src, T, B);
    sx_rnn_generate(back, o2, T, src, T, B);
    CHECK(l0 == l1 && !memcmp(o1, o2, sizeof o1), "float32 round trip: loss %.9g vs %.9g", (double)l0, (double)l1);
    CHECK(sx_rnn_alpha(back) == sx_rnn_alpha(m) && sx_rnn_alpha(m) != 1.5f, "learned alpha kept: %g", (double)sx_rnn_alpha(back));
    sx_rnn_free(back);
    CHECK(sx_rnn_save_as(m, buf, n16, SX_SAVE_FLOAT16) == SX_OK, "save f16: %s", sx_last_error());
    CHECK(sx_rnn_load(&back, buf, n16) == SX_OK && back, "load f16: %s", sx_last_error());
    sx_rnn_loss(back, &l1, src, T, tgt, T, B);
    CHECK_NEAR(l1, l0, 1e-2, "float16 round trip loss");
    sx_rnn_free(back);
    /* refusals */
    EXPECT(sx_rnn_save_as(m, buf, n32 - 1, SX_SAVE_FLOAT32), SX_EINVAL, "the checkpoint needs");
    EXPECT(sx_rnn_save_as(m, buf, n32, 8), SX_EINVAL, "precision must be");
    sx_rnn_save_as(m, buf, n32, SX_SAVE_FLOAT32);
    EXPECT(sx_rnn_load(&back, buf, n32 - 1), SX_EINVAL, "the header promises");
    buf[100] ^= 1;
    EXPECT(sx_rnn_load(&back, buf, n32), SX_EINVAL, "checksum mismatch");
    buf[0] = 'X';
    EXPECT(sx_rnn_load(&back, buf, n32), SX_EINVAL, "bad magic");
    EXPECT(sx_rnn_load(NULL, buf, n32), SX_EINVAL, "rnn_load: out is NULL");
    EXPECT(sx_rnn_load(&back, NULL, 0), SX_EINVAL, "truncated");
    CHECK(back == NULL, "failed loads leave *out NULL");
    free(buf);
    sx_rnn_free(m);
}

/* Crafted checkpoints: the header's fields written as the format has them, the checksum made
   valid again, so that only the check under test can refuse them. */
static void put_u32(unsigned char *b, unsigned v) {
    b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8), b[2] = (unsigned char)(v >> 16), b[3] = (unsigned char)(v >> 24);
}
static void reseal(unsigned char *b, int size) { /* the FNV-1a checksum of the bytes before it */
    unsigned h = 2166136261u;
    for (int i = 0; i < size - 4; i++) h = (h ^ b[i]) * 16777619u;
    put_u32(b + size - 4, h);
}
/* A checkpoint of cfg with its float config at the defaults and n_params zeros. */
static int craft(unsigned char *b, const int *cfg, int n_params) {
    static const float fcfg[5] = { 1.5f, 1.0f, 1.0f, 1.0f, 0.9f };
    memcpy(b, "SXRN", 4);
    put_u32(b + 4, 1);
    put_u32(b + 8, SX_RNN_N_CFG);
    put_u32(b + 12, 5);
    put_u32(b + 16, (unsigned)n_params);
    int at = 20;
    for (int i = 0; i < SX_RNN_N_CFG; i++, at += 4) put_u32(b + at, (unsigned)cfg[i]);
    for (int i = 0; i < 5; i++, at += 4) {
        unsigned u;
        memcpy(&u, &fcfg[i], 4);
        put_u32(b + at, u);
    }
    memset(b + at, 0, (size_t)n_params * 4);
    at += 4 * n_params + 4;
    reseal(b, at);
    return at;
}

/* Loading refuses what the bytes cannot back before allocating: a config within create's limits
   but with no parameters (it needs 30 M floats and, for 4096 rows, 51 G floats of activations:
   before the check, 2 s and 400 MB natively), truncations of a real checkpoint at every length
   class, a config field changed with the checksum made valid again; and still loads what it
   saved. */
static void test_checkpoint_refusals(void) {
    enum { B = 2 };
    static unsigned char b[4096];
    sx_rnn *back = (sx_rnn *)b; /* a sentinel: a failed load must set *out to NULL */
    const int huge[SX_RNN_N_CFG] = { 4096, 1024, 1024, 1024, 256, 1, 4096, SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0 };
    int size = craft(b, huge, 0);
    EXPECT(sx_rnn_load(&back, b, size), SX_EINVAL, "rnn_load: 0 parameters stored, the config needs 30426113");
    CHECK(back == NULL, "a refused load leaves *out NULL");
    /* the parameters right (47 for this config), the activations beyond creation's limit */
    const int tiny[SX_RNN_N_CFG] = { 4, 1, 1, 1, 256, 1, 4096, SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0 };
    size = craft(b, tiny, 47);
    EXPECT(sx_rnn_load(&back, b, size), SX_EINVAL, "rnn_load: 4096 rows need too many activations");
    const int tiny1[SX_RNN_N_CFG] = { 4, 1, 1, 1, 256, 1, 1, SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0 };
    size = craft(b, tiny1, 47); /* the same with one row: loads (the crafting is right) */
    CHECK(sx_rnn_load(&back, b, size) == SX_OK && sx_rnn_num_params(back) == 47, "crafted tiny: %s", sx_last_error());
    sx_rnn_free(back);

    /* a real checkpoint: its round trip, then its truncations */
    sx_rnn *m = make(SX_RNN_ADDITIVE, SX_MAP_SPARSEMAX, 0, 3, 4, 2, B, 9);
    const int n = sx_rnn_num_params(m), full = sx_rnn_save_size_as(m, SX_SAVE_FLOAT32);
    CHECK(full <= (int)sizeof b && sx_rnn_save_as(m, b, full, SX_SAVE_FLOAT32) == SX_OK, "save: %s", sx_last_error());
    CHECK(sx_rnn_load(&back, b, full) == SX_OK && back, "round trip: %s", sx_last_error());
    CHECK(back && !memcmp(sx_rnn_params(back), sx_rnn_params(m), (size_t)n * sizeof(float)), "round trip: the same parameters");
    sx_rnn_free(back);
    const int cut[] = { 0, 1, 19, 23, 24, 60, 80, 80 + 4 * (n / 2), full - 5, full - 4, full - 1 };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        back = (sx_rnn *)b;
        EXPECT(sx_rnn_load(&back, b, cut[i]), SX_EINVAL, cut[i] < 24 ? "rnn_load: truncated" : "the header promises");
        CHECK(back == NULL, "truncated at %d: *out NULL", cut[i]);
    }
    /* truncated with the header and checksum made to agree: the count is the config's to say */
    static unsigned char c[4096];
    const int keep[] = { 0, 1, n / 2, n - 1 };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const int sz = 80 + 4 * keep[i] + 4;
        memcpy(c, b, (size_t)sz);
        put_u32(c + 16, (unsigned)keep[i]);
        reseal(c, sz);
        char want[96];
        snprintf(want, sizeof want, "rnn_load: %d parameters stored, the config needs %d", keep[i], n);
        EXPECT(sx_rnn_load(&back, c, sz), SX_EINVAL, want);
    }
    /* a config field changed: without the checksum made valid, with it (the count no longer fits;
       out of range) */
    memcpy(c, b, (size_t)full);
    c[20 + 4 * SX_RNN_HIDDEN] ^= 1; /* hidden 4 -> 5 */
    EXPECT(sx_rnn_load(&back, c, full), SX_EINVAL, "checksum mismatch");
    reseal(c, full);
    EXPECT(sx_rnn_load(&back, c, full), SX_EINVAL, "parameters stored, the config needs");
    memcpy(c, b, (size_t)full);
    put_u32(c + 20 + 4 * SX_RNN_VOCAB, 0);
    reseal(c, full);
    EXPECT(sx_rnn_load(&back, c, full), SX_EINVAL, "rnn_load: config vocab must be in [4, 4096] (got 0)");
    CHECK(back == NULL, "refused loads leave *out NULL");
    sx_rnn_free(m);
}

int main(void) {
    test_gradients();
    test_contract();
    test_checkpoints();
    test_checkpoint_refusals();
    test_training();
    test_estimators();
    test_hard_training();
    return sx_test_summary("test_rnn");
}
