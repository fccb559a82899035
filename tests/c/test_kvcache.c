/* test_kvcache.c - incremental decoding (the KV cache, model.c's decoder_step) against the full
   recomputation (sx_model_generate_v2 with SX_GENERATE_FULL, the decoder over out[:, :t] at
   every step). "Identical" means: the generated tokens are equal exactly; the maps
   (sx_model_attention, decoder self and cross, every layer) and logits (sx_model_logits)
   afterwards have the same shapes (a pass over out[:, :steps]), exact zeros in the same places
   (masked keys, sparse weights kept apart from rounding by the tolerance) and values within
   MAP_TOL / LOGIT_TOL: a row of a longer full pass maps its scores with the later keys masked
   (-INFINITY), which rounds differently from the mapping of the shorter row the cache computes
   once (nn.h, sx_nn_attention_row_forward), and those rounding differences flow through the
   later layers. Covered: random models of every mapping kind (softmax, sparsemax, 1.5-entmax,
   fixed alpha, learned alpha, fusedmax), adaptive span (windows cutting the cache, and
   max_len 80 so rows reach the per-window mapping at 64 keys), GELU and ReLU, odd sizes,
   padded sources, batches whose rows end at different steps, out_len 2 and max_len,
   interventions (ablate, replace, erase, mask keys) in generate, bad flags, and all 16
   shipped models (web/models/) on 150 held-out examples each (500 in tests/js/kvcache.test.mjs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"

enum { MAXC = SX_MODEL_MAP + SX_MODEL_MAX_LAYERS, MAXB = 64, MAXT = 80 };
#define MAP_TOL 2e-5
#define LOGIT_TOL 1e-4

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double worst_map = 0.0, worst_logit = 0.0; /* the largest differences seen, reported */
static long n_tokens = 0, n_maps = 0, n_bitwise_maps = 0;

/* Compare the state after two generate calls: maps and logits saved from the full run vs now. */
typedef struct {
    int steps, B, Ts;
    float *att[2][SX_MODEL_MAX_LAYERS], *logits;
} snapshot;

static void snap(snapshot *s, sx_model *m) {
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), V = sx_model_config(m, SX_MODEL_VOCAB);
    s->B = sx_model_attention_shape(m, SX_MODEL_CROSS, 0);
    s->steps = sx_model_attention_shape(m, SX_MODEL_CROSS, 2);
    s->Ts = sx_model_attention_shape(m, SX_MODEL_CROSS, 3);
    const int NH = sx_model_attention_shape(m, SX_MODEL_CROSS, 1);
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < L; l++) {
            const size_t n = (size_t)s->B * NH * s->steps * (k ? s->Ts : s->steps);
            s->att[k][l] = malloc(n * sizeof(float));
            memcpy(s->att[k][l], sx_model_attention(m, k ? SX_MODEL_CROSS : SX_MODEL_DEC_SELF, l),
                   n * sizeof(float));
        }
    const size_t nl = (size_t)s->B * s->steps * V;
    s->logits = malloc(nl * sizeof(float));
    memcpy(s->logits, sx_model_logits(m), nl * sizeof(float));
}

static void unsnap(snapshot *s, int L) {
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < L; l++) free(s->att[k][l]);
    free(s->logits);
}

/* generate with the cache and with the full recomputation; check tokens, shapes, maps, logits. */
static void compare(sx_model *m, const int *src, int src_len, int count, int out_len,
                    const char *what) {
    static int o_full[MAXB * MAXT], o_cache[MAXB * MAXT];
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), V = sx_model_config(m, SX_MODEL_VOCAB);
    const int NH = sx_model_config(m, SX_MODEL_N_HEAD);
    int st = sx_model_generate_v2(m, o_full, out_len, src, src_len, count, SX_GENERATE_FULL);
    CHECK(st == SX_OK, "%s: full: %s", what, sx_last_error());
    if (st != SX_OK) return;
    snapshot f;
    snap(&f, m);
    st = sx_model_generate(m, o_cache, out_len, src, src_len, count);
    CHECK(st == SX_OK, "%s: cached: %s", what, sx_last_error());
    if (st == SX_OK) {
        int same = !memcmp(o_full, o_cache, (size_t)count * out_len * sizeof(int));
        CHECK(same, "%s: cached tokens differ from the full recomputation", what);
        n_tokens += (long)count * out_len;
        const int steps = sx_model_attention_shape(m, SX_MODEL_DEC_SELF, 2);
        CHECK(steps == f.steps && sx_model_attention_shape(m, SX_MODEL_DEC_SELF, 3) == f.steps &&
              sx_model_attention_shape(m, SX_MODEL_CROSS, 3) == f.Ts &&
              sx_model_attention_shape(m, SX_MODEL_CROSS, 0) == count,
              "%s: shapes: steps %d vs %d", what, steps, f.steps);
        for (int k = 0; k < 2 && steps == f.steps; k++)
            for (int l = 0; l < L; l++) {
                const float *a = sx_model_attention(m, k ? SX_MODEL_CROSS : SX_MODEL_DEC_SELF, l);
                const size_t n = (size_t)count * NH * steps * (k ? f.Ts : steps);
                double d = 0.0;
                int zeros = 1, finite = 1;
                for (size_t i = 0; i < n; i++) {
                    const double e = fabs((double)a[i] - f.att[k][l][i]);
                    d = e > d ? e : d;
                    finite &= a[i] >= 0.0f && a[i] <= 1.0f;
                    /* masked keys (causal, padding, span, mask_keys, ablated heads): exact 0 */
                    if (f.att[k][l][i] == 0.0f && a[i] != 0.0f && a[i] > 1e-4f) zeros = 0;
                }
                n_maps++;
                n_bitwise_maps += !memcmp(a, f.att[k][l], n * sizeof(float));
                worst_map = d > worst_map ? d : worst_map;
                CHECK(d <= MAP_TOL && finite && zeros, "%s: %s map of layer %d: max |diff| %g",
                      what, k ? "cross" : "decoder self", l, d);
            }
        const float *lg = sx_model_logits(m);
        double d = 0.0;
        for (size_t i = 0; steps == f.steps && i < (size_t)count * steps * V; i++) {
            const double e = fabs((double)lg[i] - f.logits[i]);
            d = e > d ? e : d;
        }
        worst_logit = d > worst_logit ? d : worst_logit;
        CHECK(d <= LOGIT_TOL, "%s: logits: max |diff| %g", what, d);
    }
    unsnap(&f, L);
}

static sx_model *random_model(int V, int C, int NH, int L, int F, int T, int span, int ramp,
                              int act, const int *maps, const float *param, int seed) {
    int cfg[MAXC] = { 0 };
    cfg[SX_MODEL_VOCAB] = V; cfg[SX_MODEL_D_MODEL] = C; cfg[SX_MODEL_N_HEAD] = NH;
    cfg[SX_MODEL_N_LAYER] = L; cfg[SX_MODEL_D_FF] = F; cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = span; cfg[SX_MODEL_SPAN_RAMP] = ramp; cfg[SX_MODEL_SEED] = seed;
    cfg[SX_MODEL_MAX_BATCH] = MAXB; cfg[SX_MODEL_ACT] = act;
    float fcfg[SX_MODEL_F_PARAM + SX_MODEL_MAX_LAYERS] = { 0.002f, 1.0f, 1.0f };
    for (int l = 0; l < L; l++) {
        cfg[SX_MODEL_MAP + l] = maps[l];
        fcfg[SX_MODEL_F_PARAM + l] = param ? param[l] : maps[l] == SX_MAP_FUSEDMAX ? 0.1f : 1.5f;
    }
    sx_model *m = NULL;
    const int st = sx_model_create(&m, cfg, SX_MODEL_MAP + L, fcfg, SX_MODEL_F_PARAM + L);
    CHECK(st == SX_OK, "create: %s", sx_last_error());
    if (st != SX_OK) return NULL;
    /* sharper attention than the init's (sparse mappings then leave zeros), random learned
       alphas and spans, and an EOS bias so that rows end at different steps */
    float *p = sx_model_params(m);
    for (int t = 0; t < sx_model_tensor_count(); t++) {
        const char *name = sx_model_tensor_name(t);
        float *x = p + sx_model_tensor_offset(m, t);
        const int n = sx_model_tensor_size(m, t);
        if (strstr(name, "qkv_w") || strstr(name, "q_w") || strstr(name, "kv_w"))
            for (int i = 0; i < n; i++) x[i] *= 2.5f;
        else if (!strcmp(name, "alpha_a"))
            for (int i = 0; i < n; i++) x[i] = (float)(4.0 * urand() - 2.0);
        else if (!strcmp(name, "span_z"))
            for (int i = 0; i < n; i++) x[i] = (float)urand();
        else if (!strcmp(name, "out_b"))
            x[SX_TOKEN_EOS] = 1.5f;
    }
    return m;
}

/* count rows of random letters (ids 4 .. V-1) with EOS and PAD at random lengths. */
static void random_src(int *src, int count, int len, int V) {
    for (int b = 0; b < count; b++) {
        const int n = 1 + (int)(urand() * (len - 1)); /* letters before EOS */
        for (int t = 0; t < len; t++)
            src[b * len + t] = t < n ? 4 + (int)(urand() * (V - 4)) : t == n ? SX_TOKEN_EOS : SX_TOKEN_PAD;
    }
}

/* How many distinct lengths (steps to EOS) the cached run produced: rows end at different steps. */
static int distinct_ends(sx_model *m, const int *src, int len, int count, int out_len) {
    static int out[MAXB * MAXT];
    if (sx_model_generate(m, out, out_len, src, len, count) != SX_OK) return 0;
    int seen[MAXT + 1] = { 0 }, n = 0;
    for (int b = 0; b < count; b++) {
        int e = 1;
        while (e < out_len && out[b * out_len + e] != SX_TOKEN_EOS) e++;
        n += !seen[e]++;
    }
    return n;
}

static void random_models(void) {
    static int src[MAXB * MAXT];
    static const int kinds[] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15,
                                 SX_MAP_ENTMAX, SX_MAP_ENTMAX_LEARNED, SX_MAP_FUSEDMAX };
    static const char *names[] = { "softmax", "sparsemax", "entmax15", "entmax 1.3",
                                   "learned alpha", "fusedmax" };
    char what[160];
    int ends_ok = 0;
    for (int ki = 0; ki < 6; ki++)
        for (int variant = 0; variant < 4; variant++) {
            /* variant 0: shipped-like sizes; 1: odd sizes, GELU, span; 2: span with a short ramp
               and 3 layers mixing mappings; 3: max_len 80 with span (windows at >= 64 keys) */
            const int L = variant == 2 ? 3 : 2;
            int maps[3] = { kinds[ki], kinds[ki], kinds[(ki + 3) % 6] };
            float param[3];
            for (int l = 0; l < 3; l++)
                param[l] = maps[l] == SX_MAP_FUSEDMAX ? 0.1f : maps[l] == SX_MAP_ENTMAX ? 1.3f : 1.5f;
            const int T = variant == 3 ? MAXT : 12;
            sx_model *m = variant == 0 ? random_model(13, 32, 4, L, 64, T, 0, 1, 0, maps, param, 7 + ki)
                        : variant == 1 ? random_model(17, 12, 3, L, 10, T, 6, 2, 1, maps, param, 70 + ki)
                        : variant == 2 ? random_model(15, 16, 2, L, 24, T, 4, 1, 0, maps, param, 700 + ki)
                                       : random_model(13, 16, 4, L, 32, T, 40, 8, 1, maps, param, 7000 + ki);
            if (!m) continue;
            const int count = variant == 3 ? 5 : 24;
            for (int rep = 0; rep < 3; rep++) {
                const int len = rep == 2 ? T : 2 + (int)(urand() * (T - 2));
                random_src(src, count, len, sx_model_config(m, SX_MODEL_VOCAB));
                const int out_len = rep == 0 ? T : rep == 1 ? 2 : 2 + (int)(urand() * (T - 2));
                snprintf(what, sizeof what, "%s variant %d rep %d (src %d, out %d)", names[ki],
                         variant, rep, len, out_len);
                compare(m, src, len, count, out_len, what);
                if (rep == 0 && distinct_ends(m, src, len, count, out_len) >= 3) ends_ok++;
            }
            /* one row, and a full batch of max_batch rows */
            random_src(src, MAXB, T, sx_model_config(m, SX_MODEL_VOCAB));
            snprintf(what, sizeof what, "%s variant %d, batch 1", names[ki], variant);
            compare(m, src, T, 1, T, what);
            snprintf(what, sizeof what, "%s variant %d, batch %d", names[ki], variant, MAXB);
            if (variant != 3) compare(m, src, T, MAXB, T, what);
            sx_model_free(m);
        }
    /* the EOS bias makes rows end at different steps in most configs: the test must exercise
       finished rows next to running ones */
    CHECK(ends_ok >= 12, "rows ended at >= 3 different steps in only %d of 24 configs", ends_ok);
}

/* Interventions: each op on decoder self and cross (and a mask on the encoder), then generate
   both ways. */
static void edits(void) {
    static int src[MAXB * MAXT];
    const int maps[2] = { SX_MAP_ENTMAX_LEARNED, SX_MAP_SPARSEMAX };
    sx_model *m = random_model(13, 16, 4, 2, 32, 12, 5, 2, 0, maps, NULL, 99);
    if (!m) return;
    random_src(src, 16, 12, 13);
    float w[12], mask[12] = { 0 };
    for (int j = 0; j < 12; j++) w[j] = (float)urand();
    mask[1] = mask[3] = 1.0f;
    struct { int op, kind, layer, head, row; const float *w; int n; const char *what; } e[] = {
        { SX_EDIT_ABLATE, SX_MODEL_DEC_SELF, 0, 1, 0, NULL, 0, "ablate dec self head" },
        { SX_EDIT_ABLATE, SX_MODEL_CROSS, -1, -1, 0, NULL, 0, "ablate every cross head" },
        { SX_EDIT_REPLACE, SX_MODEL_DEC_SELF, 1, 2, 3, w, 12, "replace dec self row 3" },
        { SX_EDIT_REPLACE, SX_MODEL_CROSS, 0, -1, -1, w, 12, "replace every cross row" },
        { SX_EDIT_ERASE, SX_MODEL_DEC_SELF, -1, -1, -1, mask, 12, "erase dec self keys 1, 3" },
        { SX_EDIT_ERASE, SX_MODEL_CROSS, 1, 0, 2, mask, 12, "erase cross row 2" },
        { SX_EDIT_MASK_KEYS, SX_MODEL_DEC_SELF, 0, 0, 0, mask, 12, "mask dec self keys" },
        { SX_EDIT_MASK_KEYS, SX_MODEL_CROSS, -1, 0, 0, mask, 12, "mask cross keys" },
        { SX_EDIT_MASK_KEYS, SX_MODEL_ENC_SELF, -1, 0, 0, mask, 12, "mask encoder keys" },
    };
    static int base[MAXB * MAXT], edited[MAXB * MAXT];
    CHECK(sx_model_generate(m, base, 12, src, 12, 16) == SX_OK, "%s", sx_last_error());
    int changed = 0;
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        sx_model_clear_edits(m);
        CHECK(sx_model_edit(m, e[i].op, e[i].kind, e[i].layer, e[i].head, e[i].row, e[i].w,
                            e[i].n) == SX_OK, "%s: %s", e[i].what, sx_last_error());
        compare(m, src, 12, 16, 12, e[i].what);
        CHECK(sx_model_generate(m, edited, 12, src, 12, 16) == SX_OK, "%s", sx_last_error());
        changed += memcmp(base, edited, sizeof base) != 0;
    }
    /* every edit at once */
    sx_model_clear_edits(m);
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
        sx_model_edit(m, e[i].op, e[i].kind, e[i].layer, e[i].head, e[i].row, e[i].w, e[i].n);
    compare(m, src, 12, 16, 12, "all edits at once");
    CHECK(changed >= 5, "only %d of the edits changed the output: the test is too weak", changed);
    sx_model_free(m);
}

static void errors(void) {
    const int maps[2] = { SX_MAP_SOFTMAX, SX_MAP_SOFTMAX };
    sx_model *m = random_model(13, 8, 2, 2, 8, 12, 0, 1, 0, maps, NULL, 5);
    if (!m) return;
    int src[12] = { 4, 5, SX_TOKEN_EOS, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, out[12];
    const int st = sx_model_generate_v2(m, out, 12, src, 12, 1, 2);
    CHECK(st == SX_EINVAL && strstr(sx_last_error(), "model_generate: flags must be 0 or "
                                    "SX_GENERATE_FULL (1) (got 2)"), "%d %s", st, sx_last_error());
    CHECK(sx_model_generate_v2(m, out, 1, src, 12, 1, 0) == SX_EINVAL &&
          strstr(sx_last_error(), "out_len must be in [2, max_len 12] (got 1)"), "%s", sx_last_error());
    CHECK(sx_model_generate_v2(m, out, 13, src, 12, 1, SX_GENERATE_FULL) == SX_EINVAL, "out_len 13");
    sx_model_free(m);
}

/* The shipped checkpoints on 500 held-out examples each (the tasks' held-out split). */
static void shipped(void) {
    static const char *tasks[4] = { "reverse", "sort", "after_marker", "date" };
    static const int task_id[4] = { SX_TASK_REVERSE, SX_TASK_SORT, SX_TASK_AFTER_MARKER, SX_TASK_DATE };
    static const char *kinds[4] = { "softmax", "entmax15", "alpha", "alpha-span" };
    static unsigned char buf[1 << 20];
    enum { N = 150, BATCH = 50 }; /* tests/js/kvcache.test.mjs runs 500 per model */
    int loaded = 0;
    worst_map = worst_logit = 0.0;
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 4; k++) {
            char path[128], what[200];
            snprintf(path, sizeof path, "web/models/%s-%s.sxm", tasks[t], kinds[k]);
            FILE *f = fopen(path, "rb");
            CHECK(f != NULL, "cannot open %s (run from the repository root)", path);
            if (!f) continue;
            const int size = (int)fread(buf, 1, sizeof buf, f);
            fclose(f);
            sx_model *m = NULL;
            CHECK(sx_model_load(&m, buf, size) == SX_OK, "%s: %s", path, sx_last_error());
            if (!m) continue;
            loaded++;
            const int T = sx_model_config(m, SX_MODEL_MAX_LEN);
            static int src[BATCH * 64], tgt[BATCH * 64];
            CHECK(sx_model_reserve(m, BATCH) == SX_OK, "%s", sx_last_error());
            for (int start = 0; start < N; start += BATCH) {
                CHECK(sx_task_generate(src, tgt, task_id[t], SX_TASK_HELDOUT, 1, start, BATCH, T) ==
                      SX_OK, "%s", sx_last_error());
                snprintf(what, sizeof what, "%s examples %d..%d", path, start, start + BATCH - 1);
                compare(m, src, T, BATCH, T, what);
            }
            sx_model_free(m);
        }
    CHECK(loaded == 16, "%d shipped models loaded, want 16", loaded);
    printf("test_kvcache: shipped models: largest differences: map %.3g, logit %.3g\n", worst_map,
           worst_logit);
}

int main(void) {
    random_models();
    edits();
    errors();
    printf("test_kvcache: random models: largest differences: map %.3g, logit %.3g\n", worst_map,
           worst_logit);
    const double rmap = worst_map, rlogit = worst_logit;
    shipped();
    worst_map = worst_map > rmap ? worst_map : rmap;
    worst_logit = worst_logit > rlogit ? worst_logit : rlogit;
    printf("test_kvcache: %ld tokens equal; %ld of %ld maps bit-identical; largest differences: "
           "map %.3g (bound %g), logit %.3g (bound %g)\n", n_tokens, n_bitwise_maps, n_maps,
           worst_map, MAP_TOL, worst_logit, LOGIT_TOL);
    return sx_test_summary("test_kvcache");
}
