/* test_empty.c - the empty-call rule of simplexity.h's CONVENTIONS, for every entry point that
   takes an output pointer (issue 28): a call whose outputs have zero elements (every size that
   may be 0 being 0) returns SX_OK, reads and writes nothing, and takes NULL for any buffer; a
   non-NULL output passed to such a call keeps its sentinel. The other half of the rule: a NULL
   buffer where there are elements to read or write is SX_EINVAL with a last-error naming the
   argument. Entry points whose sizes must be >= 1 (the model's, a task row's max_len) have no
   empty case: only their NULL-output errors are checked. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"

#define SENTINEL 12345.0f
#define NS 64

static float sent[NS];  /* a non-NULL output of an empty call: must keep SENTINEL */
static int isent[NS];   /* the same for int outputs (-7) */
static double dsent[2]; /* and for doubles (SENTINEL) */

static void arm(void) {
    for (int i = 0; i < NS; i++) {
        sent[i] = SENTINEL;
        isent[i] = -7;
    }
    dsent[0] = dsent[1] = SENTINEL;
}

static int untouched(void) {
    for (int i = 0; i < NS; i++)
        if (sent[i] != SENTINEL || isent[i] != -7) return 0;
    return dsent[0] == SENTINEL && dsent[1] == SENTINEL;
}

/* An empty call with NULL buffers: SX_OK. */
#define EMPTY_NULL(call) do { \
    int _st = (call); \
    CHECK(_st == SX_OK, "%s: status %d (%s)", #call, _st, sx_last_error()); \
} while (0)

/* An empty call given outputs (sent, isent, dsent): SX_OK and every sentinel intact. */
#define EMPTY_SENT(call) do { \
    arm(); \
    int _st = (call); \
    CHECK(_st == SX_OK && untouched(), "%s: status %d (%s), sentinel %s", #call, _st, \
          sx_last_error(), untouched() ? "intact" : "overwritten"); \
} while (0)

/* 1 when the message names the buffer: "null buffer (name)" or "name is NULL". */
static int names(const char *msg, const char *name) {
    char a[64], b[64];
    snprintf(a, sizeof a, "null buffer (%s)", name);
    snprintf(b, sizeof b, "%s is NULL", name);
    return strstr(msg, a) != NULL || strstr(msg, b) != NULL;
}

/* A NULL buffer where there are elements: SX_EINVAL, and the message names the argument. */
#define NULL_BUF(call, name) do { \
    int _st = (call); \
    const char *_e = sx_last_error(); \
    CHECK(_st == SX_EINVAL && _e[0] && names(_e, name), \
          "%s: status %d, message \"%s\" (want SX_EINVAL naming %s)", #call, _st, _e, name); \
} while (0)

/* finite inputs, big enough for every non-empty call below */
static float x[NS], y[NS], z[NS], out[NS * 4];

/* ---------------------------------------------------------------- mappings */
typedef int (*fwd_fn)(float *, const float *, int, int, float);
typedef int (*bwd_fn)(float *, const float *, const float *, int, int, float);

static int entmax_a(float *o, const float *xx, int r, int n, float t) { return sx_entmax(o, xx, r, n, 1.3f, t); }
static int fused(float *o, const float *xx, int r, int n, float t) { return sx_fusedmax(o, xx, r, n, 0.1f, t); }
static int oscar(float *o, const float *xx, int r, int n, float t) { return sx_oscarmax(o, xx, r, n, 0.1f, t); }
static int proxtv(float *o, const float *xx, int r, int n, float t) { return sx_prox_tv(o, NULL, xx, r, n, 0.1f, t); }
static int entmax_ab(float *d, const float *xx, const float *g, int r, int n, float t) {
    return sx_entmax_backward(d, xx, g, r, n, 1.3f, t);
}
static int fused_b(float *d, const float *xx, const float *g, int r, int n, float t) {
    return sx_fusedmax_backward(d, xx, g, r, n, 0.1f, t);
}
static int oscar_b(float *d, const float *xx, const float *g, int r, int n, float t) {
    return sx_oscarmax_backward(d, xx, g, r, n, 0.1f, t);
}
static int alpha_g(float *d, const float *xx, const float *g, int r, int n, float t) {
    return sx_entmax_alpha_grad(d, xx, g, r, n, 1.3f, t);
}
static const int groups2[2] = { 1, 2 };
static int groupm(float *o, const float *xx, int r, int n, float t) {
    return sx_groupmax(o, xx, r, n, groups2, 2, 0.2f, t);
}
static int groupm_b(float *d, const float *xx, const float *g, int r, int n, float t) {
    return sx_groupmax_backward(d, xx, g, r, n, groups2, 2, 0.2f, t);
}
static int masked(float *o, const float *xx, int r, int n, float t) {
    static const int vl[4] = { 1, 3, 0, 2 };
    return sx_masked_mapping(o, xx, o ? vl : NULL, r, n, SX_MAP_SPARSEMAX, 0.0f, t);
}
static int masked_b(float *d, const float *xx, const float *g, int r, int n, float t) {
    static const int vl[4] = { 1, 3, 0, 2 };
    return sx_masked_mapping_backward(d, xx, g, vl, r, n, SX_MAP_ENTMAX15, 0.0f, t);
}
static int entropy(float *o, const float *xx, int r, int n, float t) {
    (void)t;
    return sx_tsallis_entropy(o, xx, r, n, 1.5f);
}
static int jac(float *o, const float *xx, int r, int n, float t) {
    return sx_jacobian(o, xx, r, n, SX_MAP_FUSEDMAX, 0.1f, t);
}
static int thr(float *o, const float *xx, int r, int n, float t) {
    return sx_threshold(o, xx, r, n, SX_MAP_ENTMAX, 1.3f, t);
}

static int fy_idx(float *o, const float *xx, int r, int n, float t) {
    static const int tg[2] = { 0, 2 };
    return sx_fy_loss_index(o, NULL, NULL, xx, o ? tg : NULL, r, n, SX_MAP_ENTMAX, 1.3f, t);
}

/* sx_fy_loss: its outputs (loss, and the optional dx and dalpha), x and the target y */
static void test_fy_loss(void) {
    static const float yd[6] = { 1, 0, 0, 0.5f, 0.5f, 0 };
    EMPTY_NULL(sx_fy_loss(NULL, NULL, NULL, NULL, NULL, 0, 3, SX_MAP_ENTMAX, 1.3f, 1.0f));
    EMPTY_SENT(sx_fy_loss(sent, sent + 8, sent + 32, x, yd, 0, 3, SX_MAP_ENTMAX, 1.3f, 1.0f));
    NULL_BUF(sx_fy_loss(NULL, out, NULL, x, yd, 2, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f), "loss");
    NULL_BUF(sx_fy_loss(out, NULL, NULL, NULL, yd, 2, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f), "x");
    NULL_BUF(sx_fy_loss(out, NULL, NULL, x, NULL, 2, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f), "y");
    NULL_BUF(sx_fy_loss_index(out, NULL, NULL, x, NULL, 2, 3, SX_MAP_SOFTMAX, 0.0f, 1.0f), "target");
    CHECK(sx_fy_loss(NULL, NULL, NULL, NULL, NULL, 0, 3, 9, 0.0f, 1.0f) == SX_EINVAL, "a bad mapping code stays an error");
}

static void test_mappings(void) {
    /* name, function, the names of its output and input */
    static const struct { const char *name; fwd_fn f; const char *o, *i; } fw[] = {
        { "softmax", sx_softmax, "out", "x" }, { "sparsemax", sx_sparsemax, "out", "x" },
        { "entmax15", sx_entmax15, "out", "x" }, { "entmax", entmax_a, "out", "x" },
        { "fusedmax", fused, "out", "x" }, { "oscarmax", oscar, "out", "x" },
        { "sigmoid", sx_sigmoid, "out", "x" }, { "groupmax", groupm, "out", "x" },
        { "masked_mapping", masked, "out", "x" }, { "tsallis_entropy", entropy, "h", "p" },
        { "jacobian", jac, "J", "x" }, { "threshold", thr, "tau", "x" },
        { "fy_loss_index", fy_idx, "loss", "x" }, { "prox_tv", proxtv, "out", "x" },
    };
    static const struct { const char *name; bwd_fn f; const char *o; } bw[] = {
        { "softmax_backward", sx_softmax_backward, "dx" }, { "sparsemax_backward", sx_sparsemax_backward, "dx" },
        { "entmax15_backward", sx_entmax15_backward, "dx" }, { "entmax_backward", entmax_ab, "dx" },
        { "fusedmax_backward", fused_b, "dx" }, { "oscarmax_backward", oscar_b, "dx" },
        { "entmax_alpha_grad", alpha_g, "dalpha" }, { "sigmoid_backward", sx_sigmoid_backward, "dx" },
        { "groupmax_backward", groupm_b, "dx" }, { "masked_mapping_backward", masked_b, "dx" },
    };
    /* rows = 0 (n >= 1 by contract: the mappings' n = 0 stays an error) */
    for (size_t i = 0; i < sizeof fw / sizeof fw[0]; i++) {
        EMPTY_NULL(fw[i].f(NULL, NULL, 0, 3, 1.0f));
        EMPTY_SENT(fw[i].f(sent, x, 0, 3, 1.0f));
        CHECK(fw[i].f(NULL, NULL, 0, 0, 1.0f) == SX_EINVAL, "%s: n = 0 must stay an error", fw[i].name);
        NULL_BUF(fw[i].f(NULL, x, 2, 3, 1.0f), fw[i].o);
        NULL_BUF(fw[i].f(out, NULL, 2, 3, 1.0f), fw[i].i);
    }
    for (size_t i = 0; i < sizeof bw / sizeof bw[0]; i++) {
        EMPTY_NULL(bw[i].f(NULL, NULL, NULL, 0, 3, 1.0f));
        EMPTY_SENT(bw[i].f(sent, x, y, 0, 3, 1.0f));
        NULL_BUF(bw[i].f(NULL, x, y, 2, 3, 1.0f), bw[i].o);
        NULL_BUF(bw[i].f(out, NULL, y, 2, 3, 1.0f), "x");
        NULL_BUF(bw[i].f(out, x, NULL, 2, 3, 1.0f), "dy");
    }
    /* scalar parameters are checked in an empty call too */
    CHECK(sx_softmax(NULL, NULL, 0, 3, -1.0f) == SX_EINVAL, "a bad temperature stays an error");
    CHECK(sx_groupmax(NULL, NULL, 0, 3, NULL, 2, 0.2f, 1.0f) == SX_EINVAL, "groups is a parameter");
}

/* --------------------------------------------------------- span and pooling */
static void test_span_pooling(void) {
    EMPTY_NULL(sx_span_mask(NULL, NULL, 0, 2.0f, 1.0f, 0.0f));
    EMPTY_SENT(sx_span_mask(sent, x, 0, 2.0f, 1.0f, 0.0f));
    NULL_BUF(sx_span_mask(NULL, z, 3, 2.0f, 1.0f, 0.0f), "m");
    NULL_BUF(sx_span_mask(out, NULL, 3, 2.0f, 1.0f, 0.0f), "distances");

    /* nq = 0: nothing to write or read (keys and values may be NULL); the backward's *dw is
       its one fixed-size result: the gradient of an empty sum, 0 */
    EMPTY_NULL(sx_nw_pooling(NULL, NULL, NULL, NULL, NULL, 0, 3, 1.0f, SX_MAP_SPARSEMAX, 0.0f, 0));
    EMPTY_SENT(sx_nw_pooling(sent, sent + 8, x, y, z, 0, 3, 1.0f, SX_MAP_SPARSEMAX, 0.0f, 0));
    float dw = SENTINEL;
    CHECK(sx_nw_pooling_backward(&dw, NULL, NULL, NULL, NULL, 0, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0)
          == SX_OK && dw == 0.0f, "nw_pooling_backward nq = 0: %s, dw %g", sx_last_error(), (double)dw);
    NULL_BUF(sx_nw_pooling(NULL, NULL, x, y, z, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "out");
    NULL_BUF(sx_nw_pooling(out, NULL, NULL, y, z, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "queries");
    NULL_BUF(sx_nw_pooling(out, NULL, x, NULL, z, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "keys");
    NULL_BUF(sx_nw_pooling(out, NULL, x, y, NULL, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "values");
    NULL_BUF(sx_nw_pooling_backward(NULL, z, x, y, z, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "dw");
    NULL_BUF(sx_nw_pooling_backward(&dw, NULL, x, y, z, 2, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "dy");
    NULL_BUF(sx_nw_pooling_backward(NULL, NULL, NULL, NULL, NULL, 0, 3, 1.0f, SX_MAP_SOFTMAX, 0.0f, 0), "dw");
}

/* --------------------------------------------------------------- attention */
static void test_attention(void) {
    static const int pat[SX_PATTERN_LEN] = { SX_PATTERN_LOCAL, 1, 0, 0, 0, 0 };
    static const int lsh[SX_PATTERN_LEN] = { SX_PATTERN_LSH, 2, 0, 4, 2, 7 };
    /* B = 0, or Tq = 0: out (B, Tq, H dh) and att (B, H, Tq, Tk) are empty */
    for (int c = 0; c < 2; c++) {
        const int B = c ? 2 : 0, Tq = c ? 0 : 3;
        EMPTY_NULL(sx_attention(NULL, NULL, NULL, NULL, NULL, NULL, B, Tq, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0));
        EMPTY_SENT(sx_attention(sent, sent + 16, x, y, z, isent, B, Tq, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0));
        EMPTY_NULL(sx_attention_tiled(NULL, NULL, NULL, NULL, NULL, B, Tq, 3, 2, 2, SX_MAP_SPARSEMAX, 0.0f, 0, 0, 0, NULL));
        EMPTY_NULL(sx_attention_pattern(NULL, NULL, NULL, NULL, NULL, NULL, B, Tq, 3, 2, 2, SX_MAP_ENTMAX15, 0.0f, 0, pat));
        EMPTY_SENT(sx_attention_pattern(sent, sent + 16, x, y, z, isent, B, Tq, 3, 2, 2, SX_MAP_ENTMAX15, 0.0f, 0, pat));
    }
    /* sx_attention_tiled's tiles is its fixed-size report: 0 tiles computed, 0 skipped */
    double tiles[2] = { SENTINEL, SENTINEL };
    arm();
    CHECK(sx_attention_tiled(sent, x, y, z, NULL, 1, 0, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0, tiles) == SX_OK &&
          tiles[0] == 0.0 && tiles[1] == 0.0 && untouched(), "tiled, Tq = 0: %s", sx_last_error());
    /* Tk = 0 with queries: out has elements (zeros: no key visible), k and v are empty (NULL ok),
       att (B, H, Tq, 0) is empty */
    for (int i = 0; i < 12; i++) out[i] = SENTINEL;
    CHECK(sx_attention(out, NULL, x, NULL, NULL, NULL, 1, 3, 0, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0) == SX_OK &&
          out[0] == 0.0f && out[11] == 0.0f, "attention, Tk = 0: %s", sx_last_error());
    NULL_BUF(sx_attention(NULL, NULL, x, NULL, NULL, NULL, 1, 3, 0, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0), "out");
    NULL_BUF(sx_attention_tiled(NULL, x, NULL, NULL, NULL, 1, 3, 0, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0, NULL), "out");
    NULL_BUF(sx_attention_pattern(NULL, NULL, x, NULL, NULL, NULL, 1, 3, 0, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, pat), "out");
    /* elements: each NULL buffer named */
    NULL_BUF(sx_attention(NULL, NULL, x, y, z, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0), "out");
    NULL_BUF(sx_attention(out, NULL, NULL, y, z, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0), "q");
    NULL_BUF(sx_attention(out, NULL, x, NULL, z, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0), "k");
    NULL_BUF(sx_attention(out, NULL, x, y, NULL, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0), "v");
    NULL_BUF(sx_attention_tiled(NULL, x, y, z, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0, NULL), "out");
    NULL_BUF(sx_attention_pattern(NULL, NULL, x, y, z, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, pat), "out");
    NULL_BUF(sx_attention_pattern(out, NULL, x, y, NULL, NULL, 1, 3, 3, 2, 2, SX_MAP_SOFTMAX, 0.0f, 0, pat), "v");

    /* the pattern's pairs: mask (Tq, Tk) empty when Tq or Tk is 0 (k may be NULL then, LSH too) */
    unsigned char *mk = (unsigned char *)isent;
    EMPTY_NULL(sx_pattern_mask(NULL, NULL, 0, 0, 1, 2, 0, lsh, 0, 0)); /* LSH: Tq == Tk */
    EMPTY_NULL(sx_pattern_mask(NULL, NULL, 4, 0, 1, 2, 0, pat, 0, 0));
    EMPTY_SENT(sx_pattern_mask(mk, y, 0, 0, 1, 2, 0, lsh, 0, 0));
    EMPTY_SENT(sx_pattern_mask(mk, y, 0, 4, 1, 2, 0, pat, 1, 4));
    NULL_BUF(sx_pattern_mask(NULL, y, 4, 4, 1, 2, 0, pat, 0, 4), "mask");
    NULL_BUF(sx_pattern_mask(mk, NULL, 4, 4, 1, 2, 0, lsh, 0, 4), "k");
    EMPTY_NULL(sx_pattern_lsh(NULL, NULL, NULL, 0, 1, 2, 0, lsh));
    EMPTY_SENT(sx_pattern_lsh(isent, isent + 8, y, 0, 1, 2, 0, lsh));
    NULL_BUF(sx_pattern_lsh(NULL, isent + 16, y, 4, 1, 2, 0, lsh), "bucket");
    NULL_BUF(sx_pattern_lsh(isent, NULL, y, 4, 1, 2, 0, lsh), "order");
    NULL_BUF(sx_pattern_lsh(isent, isent + 16, NULL, 4, 1, 2, 0, lsh), "k");
    CHECK(sx_pattern_mask(NULL, NULL, 0, 4, 1, 2, 0, NULL, 0, 4) == SX_EINVAL, "pattern is a parameter");
}

/* ------------------------------------------------------------- positions */
static void test_positions(void) {
    EMPTY_NULL(sx_positional_encoding(NULL, 0, 206, 1.5));
    EMPTY_SENT(sx_positional_encoding(sent, 0, 4, 10000.0));
    NULL_BUF(sx_positional_encoding(NULL, 3, 4, 10000.0), "out");
    /* n_q = 0 or n_k = 0: out (n_q, n_k) empty, q and the table not read */
    for (int c = 0; c < 2; c++) {
        const int nq = c ? 3 : 0, nk = c ? 0 : 3;
        EMPTY_NULL(sx_relative_scores(NULL, NULL, NULL, nq, nk, 4, 2));
        EMPTY_SENT(sx_relative_scores(sent, x, y, nq, nk, 4, 2));
        EMPTY_NULL(sx_txl_scores(NULL, NULL, NULL, NULL, NULL, NULL, NULL, nq, nk, 4, 4, 10000.0));
        EMPTY_SENT(sx_txl_scores(sent, sent + 16, x, y, z, z, y, nq, nk, 4, 4, 10000.0));
    }
    NULL_BUF(sx_relative_scores(NULL, x, y, 2, 3, 4, 2), "out");
    NULL_BUF(sx_relative_scores(out, NULL, y, 2, 3, 4, 2), "q");
    NULL_BUF(sx_relative_scores(out, x, NULL, 2, 3, 4, 2), "table");
    NULL_BUF(sx_txl_scores(NULL, NULL, x, y, z, z, NULL, 2, 3, 4, 4, 10000.0), "out");
    NULL_BUF(sx_txl_scores(out, NULL, NULL, y, z, z, NULL, 2, 3, 4, 4, 10000.0), "q");
    NULL_BUF(sx_txl_scores(out, NULL, x, NULL, z, z, NULL, 2, 3, 4, 4, 10000.0), "k");
    NULL_BUF(sx_txl_scores(out, NULL, x, y, NULL, z, NULL, 2, 3, 4, 4, 10000.0), "u");
    NULL_BUF(sx_txl_scores(out, NULL, x, y, z, NULL, NULL, 2, 3, 4, 4, 10000.0), "v");
}

/* ------------------------------------------------------------------ scoring */
static void test_scoring(void) {
    /* the forward: scores (nq, nk) empty when nq or nk is 0, for every kind (params unread) */
    for (int kind = SX_SCORE_DOT; kind <= SX_SCORE_ADDITIVE; kind++)
        for (int c = 0; c < 2; c++) {
            const int nq = c ? 3 : 0, nk = c ? 0 : 3;
            EMPTY_NULL(sx_attention_scores(NULL, NULL, NULL, NULL, nq, nk, 2, 2, 2, kind));
            EMPTY_SENT(sx_attention_scores(sent, x, y, z, nq, nk, 2, 2, 2, kind));
        }
    /* the backward: every gradient empty when nq = nk = 0 (dot, scaled: no parameters) */
    EMPTY_NULL(sx_attention_scores_backward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 2, 2, 2, SX_SCORE_DOT));
    EMPTY_SENT(sx_attention_scores_backward(sent, sent + 8, sent + 16, z, x, y, NULL, 0, 0, 2, 2, 2, SX_SCORE_SCALED));
    NULL_BUF(sx_attention_scores(NULL, x, y, NULL, 2, 3, 2, 2, 1, SX_SCORE_DOT), "scores");
    NULL_BUF(sx_attention_scores(out, NULL, y, NULL, 2, 3, 2, 2, 1, SX_SCORE_DOT), "q");
    NULL_BUF(sx_attention_scores(out, x, NULL, NULL, 2, 3, 2, 2, 1, SX_SCORE_DOT), "k");
    NULL_BUF(sx_attention_scores(out, x, y, NULL, 2, 3, 2, 2, 1, SX_SCORE_BILINEAR), "params");
    NULL_BUF(sx_attention_scores_backward(out, out + 8, NULL, NULL, x, y, NULL, 2, 3, 2, 2, 1, SX_SCORE_DOT), "dscores");
}

/* -------------------------------------------------------------------- tasks */
static void test_tasks(void) {
    EMPTY_NULL(sx_task_generate(NULL, NULL, SX_TASK_REVERSE, SX_TASK_TRAIN, 1u, 0, 0, 16));
    EMPTY_SENT(sx_task_generate(isent, isent + 16, SX_TASK_REVERSE, SX_TASK_TRAIN, 1u, 0, 0, 16));
    EMPTY_NULL(sx_task_answer(NULL, SX_TASK_SORT, NULL, 0, 16));
    EMPTY_SENT(sx_task_answer(isent, SX_TASK_SORT, isent + 16, 0, 16));
    EMPTY_NULL(sx_task_split_of(NULL, SX_TASK_DATE, NULL, 0, 16));
    EMPTY_SENT(sx_task_split_of(isent, SX_TASK_DATE, isent + 16, 0, 16));
    EMPTY_NULL(sx_task_lengths(NULL, NULL, NULL, NULL, SX_TASK_REVERSE));

    int src[2 * 24], tgt[2 * 24];
    CHECK(sx_task_generate(src, tgt, SX_TASK_REVERSE, SX_TASK_TRAIN, 1u, 0, 2, 24) == SX_OK, "%s", sx_last_error());
    NULL_BUF(sx_task_generate(NULL, tgt, SX_TASK_REVERSE, SX_TASK_TRAIN, 1u, 0, 2, 24), "src");
    NULL_BUF(sx_task_generate(src, NULL, SX_TASK_REVERSE, SX_TASK_TRAIN, 1u, 0, 2, 24), "tgt");
    NULL_BUF(sx_task_answer(NULL, SX_TASK_REVERSE, src, 2, 24), "tgt");
    NULL_BUF(sx_task_answer(tgt, SX_TASK_REVERSE, NULL, 2, 24), "src");
    NULL_BUF(sx_task_split_of(NULL, SX_TASK_REVERSE, src, 2, 24), "split");
    NULL_BUF(sx_task_split_of(isent, SX_TASK_REVERSE, NULL, 2, 24), "src");
    /* encode writes max_len >= 1 tokens (a text and its EOS), decode at least the NUL: no empty
       case; n = 0 tokens decode to "" and may be NULL */
    NULL_BUF(sx_task_encode(NULL, SX_TASK_REVERSE, "abc", 8), "src");
    NULL_BUF(sx_task_encode(src, SX_TASK_REVERSE, NULL, 8), "text");
    char text[8] = "xyz";
    CHECK(sx_task_decode(text, 8, SX_TASK_REVERSE, NULL, 0) == SX_OK && text[0] == 0, "decode of 0 tokens: %s",
          sx_last_error());
    NULL_BUF(sx_task_decode(NULL, 8, SX_TASK_REVERSE, src, 4), "text");
    NULL_BUF(sx_task_decode(text, 8, SX_TASK_REVERSE, NULL, 4), "tokens");
}

/* -------------------------------------------------------------------- model */
/* The model's sizes are all >= 1 (count, lengths, its own dimensions): no empty call, so every
   NULL output is an error naming it, and the outputs documented as optional may be NULL. */
static void test_model(void) {
    enum { V = 8, C = 4, NH = 2, L = 1, T = 6 };
    int cfg[SX_MODEL_MAP + L] = { 0 };
    cfg[SX_MODEL_VOCAB] = V; cfg[SX_MODEL_D_MODEL] = C; cfg[SX_MODEL_N_HEAD] = NH;
    cfg[SX_MODEL_N_LAYER] = L; cfg[SX_MODEL_D_FF] = 8; cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = 0; cfg[SX_MODEL_SPAN_RAMP] = 2; cfg[SX_MODEL_SEED] = 3;
    cfg[SX_MODEL_MAX_BATCH] = 2; cfg[SX_MODEL_ACT] = 0; cfg[SX_MODEL_MAP] = SX_MAP_SPARSEMAX;
    NULL_BUF(sx_model_create(NULL, cfg, SX_MODEL_MAP + L, NULL, 0), "out");
    sx_model *m = NULL;
    CHECK(sx_model_create(&m, cfg, SX_MODEL_MAP + L, NULL, 0) == SX_OK && m, "create: %s", sx_last_error());
    if (!m) return;
    const int src[T] = { 3, 4, 5, SX_TOKEN_EOS, SX_TOKEN_PAD, SX_TOKEN_PAD };
    const int tgt[T] = { SX_TOKEN_BOS, 5, 4, 3, SX_TOKEN_EOS, SX_TOKEN_PAD };
    float f[64];
    int gen[2 * T];
    unsigned char buf[4096];

    NULL_BUF(sx_model_alphas(m, NULL), "out");
    NULL_BUF(sx_model_spans(m, NULL), "out");
    NULL_BUF(sx_model_generate(m, NULL, T, src, T, 1), "out");
    NULL_BUF(sx_model_generate_v2(m, NULL, T, src, T, 1, SX_GENERATE_FULL), "out");
    NULL_BUF(sx_model_generate(m, gen, T, NULL, T, 1), "src");
    NULL_BUF(sx_model_explain(m, NULL, NULL, SX_EXPLAIN_GRAD_INPUT, src, T, tgt, T, 1, 5, SX_EXPLAIN_LOG_PROB, 1), "out");
    NULL_BUF(sx_model_explain(m, f, NULL, SX_EXPLAIN_GRAD_INPUT, NULL, T, tgt, T, 1, 5, SX_EXPLAIN_LOG_PROB, 1), "src");
    NULL_BUF(sx_model_attention_grad(m, NULL, SX_MODEL_CROSS, 0, 0, 1, src, T, tgt, T, 1, 5, NULL), "out");
    NULL_BUF(sx_model_loss(m, f, NULL, T, tgt, T, 1), "src");
    NULL_BUF(sx_model_loss(m, f, src, T, NULL, T, 1), "tgt");
    NULL_BUF(sx_model_save(m, NULL, (int)sizeof buf), "buf");
    NULL_BUF(sx_model_save_as(m, NULL, (int)sizeof buf, SX_SAVE_FLOAT16), "buf");
    NULL_BUF(sx_model_load(NULL, buf, 64), "out");
    CHECK(sx_model_rollout(m, f, 0) == SX_EINVAL && strstr(sx_last_error(), "no forward pass"),
          "rollout before a forward pass: %s", sx_last_error()); /* an error, not an empty call */

    /* optional outputs: loss and value may be NULL */
    CHECK(sx_model_loss(m, NULL, src, T, tgt, T, 1) == SX_OK, "loss NULL: %s", sx_last_error());
    CHECK(sx_model_backward(m, NULL, src, T, tgt, T, 1) == SX_OK, "backward, loss NULL: %s", sx_last_error());
    CHECK(sx_model_train_step(m, NULL, src, T, tgt, T, 1, 1e-3f) == SX_OK, "train_step, loss NULL: %s", sx_last_error());
    CHECK(sx_model_explain(m, f, NULL, SX_EXPLAIN_GRAD_NORM, src, T, tgt, T, 1, 5, SX_EXPLAIN_LOGIT, 1) == SX_OK,
          "explain, value NULL: %s", sx_last_error());
    CHECK(sx_model_forward(m, src, T, tgt, T, 1) == SX_OK, "%s", sx_last_error());
    NULL_BUF(sx_model_rollout(m, NULL, 0), "out");
    CHECK(sx_model_rollout(m, f, 0) == SX_OK, "rollout: %s", sx_last_error());
    /* a model's count must be >= 1: count = 0 is an error by contract, not an empty call */
    CHECK(sx_model_generate(m, NULL, T, NULL, T, 0) == SX_EINVAL, "generate count 0 stays an error");
    sx_model_free(m);
}

int main(void) {
    for (int i = 0; i < NS; i++) {
        x[i] = (float)((i * 7) % 11) * 0.25f - 1.0f;
        y[i] = (float)((i * 5) % 13) * 0.125f - 0.5f;
        z[i] = (float)(i % 5) * 0.5f;
    }
    test_mappings();
    test_fy_loss();
    test_span_pooling();
    test_attention();
    test_positions();
    test_scoring();
    test_tasks();
    test_model();
    return sx_test_summary("test_empty");
}
