/* test_explain.c - attributions, interventions and rollout of the tiny Transformer
   (core/src/explain.c, sx_model_edit in model.c): gradient x input and the gradient norm
   against central differences on the source embeddings (with and without edits in place),
   integrated gradients' completeness and its chunking, leave-one-out against masking by hand,
   the identities of interventions (a row replaced by itself, a zero-weight key erased, an
   ablated head against zeroed output weights, erase against mask for softmax), the gradient wrt
   an attention row against differences of replaced rows, attention rollout against a plain
   reference, and the bad-input contract. One config per mapping kind, span on for one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "simplexity.h"
#include "tasks.h"
#define SX_TEST_SEED 0x5EEDE7A1ull
#include "prng.h"

enum { V = 11, C = 8, NH = 2, L = 2, F = 16, T = 8, TS = 7, TT = 6, MAXB = 16 };

#define CHECK_MSG(st, code, text) do { \
    int _st = (st); \
    CHECK(_st == (code) && strstr(sx_last_error(), (text)) != NULL, \
          "status %d (want %d), message \"%s\" (want \"%s\")", _st, (code), sx_last_error(), (text)); \
} while (0)

static sx_model *make_model(int map, int span, int seed, float scale) {
    int cfg[SX_MODEL_MAP + L] = { 0 };
    cfg[SX_MODEL_VOCAB] = V; cfg[SX_MODEL_D_MODEL] = C; cfg[SX_MODEL_N_HEAD] = NH;
    cfg[SX_MODEL_N_LAYER] = L; cfg[SX_MODEL_D_FF] = F; cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = span; cfg[SX_MODEL_SPAN_RAMP] = 2; cfg[SX_MODEL_SEED] = seed;
    cfg[SX_MODEL_MAX_BATCH] = MAXB; cfg[SX_MODEL_ACT] = 1;
    for (int l = 0; l < L; l++) cfg[SX_MODEL_MAP + l] = map;
    sx_model *m = NULL;
    const int st = sx_model_create(&m, cfg, SX_MODEL_MAP + L, NULL, 0);
    CHECK(st == SX_OK, "create: %s", sx_last_error());
    /* scale > 1: larger weights than the init, so the maps are far from uniform (and sparse
       ones sparse); f is then steep along integrated gradients' path, so that test uses 1 */
    float *p = sx_model_params(m);
    for (int i = 0; i < sx_model_num_params(m); i++) p[i] *= scale;
    return m;
}

/* src: 5 letters, EOS, PAD; tgt_in: BOS, 5 letters. */
static void example(int *src, int *tgt) {
    for (int i = 0; i < 5; i++) src[i] = 3 + (int)(urand() * (V - 3));
    src[5] = SX_TOKEN_EOS;
    src[6] = SX_TOKEN_PAD;
    tgt[0] = SX_TOKEN_BOS;
    for (int i = 1; i < TT; i++) tgt[i] = 3 + (int)(urand() * (V - 3));
}

/* log p(target) at step from the last forward pass (double). */
static double logp(const sx_model *m, int step, int target) {
    const float *z = sx_model_logits(m) + (size_t)step * V;
    double mx = z[0], s = 0.0;
    for (int v = 1; v < V; v++) mx = z[v] > mx ? z[v] : mx;
    for (int v = 0; v < V; v++) s += exp(z[v] - mx);
    return z[target] - mx - log(s);
}
static int obj = SX_EXPLAIN_LOG_PROB; /* the objective f_emb and the gradient tests use */
static double f_emb(sx_model *m, const int *src, const int *tgt, const float *emb, int step,
                    int target) {
    const int st = sx__model_run(m, src, TS, tgt, TT, 1, emb);
    CHECK(st == SX_OK, "run: %s", sx_last_error());
    return obj == SX_EXPLAIN_LOGIT ? sx_model_logits(m)[(size_t)step * V + target] : logp(m, step, target);
}

/* Central differences of f wrt every source embedding entry; entries within h of a kink
   (one-sided differences disagree) are NaN. */
static void fd_grad(double *g, sx_model *m, const int *src, const int *tgt, int step, int target) {
    float e[TS * C], ep[TS * C];
    sx__model_embed(m, e, src, TS);
    const float h = 1e-2f;
    const double f0 = f_emb(m, src, tgt, e, step, target);
    for (int j = 0; j < TS * C; j++) {
        memcpy(ep, e, sizeof e);
        ep[j] = e[j] + h;
        const double fp = f_emb(m, src, tgt, ep, step, target);
        ep[j] = e[j] - h;
        const double fm = f_emb(m, src, tgt, ep, step, target);
        const double d1 = (fp - f0) / h, d2 = (f0 - fm) / h;
        g[j] = fabs(d1 - d2) > 0.05 * (1.0 + fabs(d1)) ? NAN : (fp - fm) / (2.0 * h);
    }
}

static const char *const map_name[6] = { "softmax", "sparsemax", "entmax15", "entmax",
                                         "entmax_learned", "fusedmax" };

/* gradient x input and the gradient norm against differences, plain and with an edit */
static void test_gradients(void) {
    static const int maps[] = { 0, 1, 2, 4, 5 };
    int checked = 0, skipped = 0;
    for (int mi = 0; mi < 5; mi++)
        for (int edited = 0; edited < 2; edited++) {
            obj = edited; /* the edited runs use the logit objective */
            sx_model *m = make_model(maps[mi], mi == 3 ? 4 : 0, 7 + mi, 2.0f);
            int src[TS], tgt[TT];
            example(src, tgt);
            const int step = 3, target = tgt[4];
            if (edited) { /* a cross row replaced: a constant in both the gradient and the differences */
                const float w[TS] = { 0.1f, 0.4f, 0, 0.2f, 0.3f, 0, 0 };
                CHECK(sx_model_edit(m, SX_EDIT_REPLACE, SX_MODEL_CROSS, 1, 0, step, w, TS) == SX_OK,
                      "%s", sx_last_error());
                CHECK(sx_model_edit(m, SX_EDIT_ABLATE, SX_MODEL_ENC_SELF, 0, 1, 0, NULL, 0) == SX_OK,
                      "%s", sx_last_error());
            }
            double g[TS * C];
            fd_grad(g, m, src, tgt, step, target);
            float e[TS * C], gi[TS], gn[TS], val[2];
            sx__model_embed(m, e, src, TS);
            CHECK(sx_model_explain(m, gi, val, SX_EXPLAIN_GRAD_INPUT, src, TS, tgt, TT, step, target, obj, 0)
                  == SX_OK, "%s", sx_last_error());
            CHECK(sx_model_explain(m, gn, NULL, SX_EXPLAIN_GRAD_NORM, src, TS, tgt, TT, step, target, obj, 0)
                  == SX_OK, "%s", sx_last_error());
            CHECK_NEAR(val[0], f_emb(m, src, tgt, e, step, target), 1e-6, "%s: value", map_name[maps[mi]]);
            CHECK(val[0] == val[1], "value[1] is f itself for gradient x input");
            for (int i = 0; i < TS; i++) {
                double gx = 0.0, nn = 0.0;
                int ok = 1;
                for (int c = 0; c < C; c++) {
                    ok &= !isnan(g[i * C + c]);
                    gx += e[i * C + c] * g[i * C + c];
                    nn += g[i * C + c] * g[i * C + c];
                }
                if (!ok) { skipped++; continue; }
                checked++;
                CHECK_NEAR(gi[i], gx, 2e-3 + 2e-2 * fabs(gx), "%s edited %d: gradient x input, token %d",
                           map_name[maps[mi]], edited, i);
                CHECK_NEAR(gn[i], sqrt(nn), 2e-3 + 2e-2 * sqrt(nn), "%s edited %d: gradient norm, token %d",
                           map_name[maps[mi]], edited, i);
            }
            CHECK(gi[6] == 0.0f && gn[6] == 0.0f, "PAD position: %g %g", gi[6], gn[6]);
            sx_model_free(m);
        }
    obj = SX_EXPLAIN_LOG_PROB;
    CHECK(checked > 40, "too few tokens checked: %d (%d skipped)", checked, skipped);
    printf("test_explain: gradient x input and norm on %d tokens (%d skipped at kinks)\n", checked, skipped);
}

/* integrated gradients: completeness, the baseline value, chunking over max_batch */
static void test_integrated(void) {
    static const int maps[] = { 0, 2, 4 };
    for (int mi = 0; mi < 3; mi++) {
        sx_model *m = make_model(maps[mi], 0, 21 + mi, 1.0f);
        int src[TS], tgt[TT];
        example(src, tgt);
        float ig[TS], val[2], zero[TS * C] = { 0 };
        CHECK(sx_model_explain(m, ig, val, SX_EXPLAIN_INTEGRATED_GRAD, src, TS, tgt, TT, 2, tgt[3], 0, 512)
              == SX_OK, "%s", sx_last_error());
        double sum = 0.0;
        for (int i = 0; i < TS; i++) sum += ig[i];
        const double want = val[0] - val[1];
        CHECK_NEAR(sum, want, 1e-2 * (1.0 + fabs(want)), "%s: completeness", map_name[maps[mi]]);
        CHECK_NEAR(val[1], f_emb(m, src, tgt, zero, 2, tgt[3]), 1e-6, "baseline value");
        /* the same for the logit */
        CHECK(sx_model_explain(m, ig, val, SX_EXPLAIN_INTEGRATED_GRAD, src, TS, tgt, TT, 2, tgt[3], 1, 512)
              == SX_OK, "%s", sx_last_error());
        sum = 0.0;
        for (int i = 0; i < TS; i++) sum += ig[i];
        CHECK_NEAR(sum, val[0] - val[1], 1e-2 * (1.0 + fabs(val[0] - val[1])), "%s: completeness (logit)",
                   map_name[maps[mi]]);
        obj = SX_EXPLAIN_LOGIT;
        CHECK_NEAR(val[1], f_emb(m, src, tgt, zero, 2, tgt[3]), 1e-6, "baseline logit");
        obj = SX_EXPLAIN_LOG_PROB;
        /* 40 steps in chunks of 16 and of 40 rows give the same attributions */
        float a[TS], b[TS];
        CHECK(sx_model_explain(m, a, NULL, SX_EXPLAIN_INTEGRATED_GRAD, src, TS, tgt, TT, 2, tgt[3], 0, 40)
              == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_reserve(m, 64) == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_explain(m, b, NULL, SX_EXPLAIN_INTEGRATED_GRAD, src, TS, tgt, TT, 2, tgt[3], 0, 40)
              == SX_OK, "%s", sx_last_error());
        for (int i = 0; i < TS; i++) CHECK_NEAR(a[i], b[i], 1e-5, "chunking, token %d", i);
        /* the model's last pass is the example's: logits as a plain forward's */
        float lg[TT * V];
        memcpy(lg, sx_model_logits(m), sizeof lg);
        CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
        CHECK(!memcmp(lg, sx_model_logits(m), sizeof lg), "explain leaves the example's forward pass");
        sx_model_free(m);
    }
}

/* leave-one-out against masking by hand with the public edits */
static void test_leave_one_out(void) {
    static const int maps[] = { 0, 1, 4 };
    for (int mi = 0; mi < 3; mi++) {
        sx_model *m = make_model(maps[mi], 0, 31 + mi, 2.0f);
        int src[TS], tgt[TT];
        example(src, tgt);
        const int step = 4, target = 5;
        float loo[TS], val[2];
        CHECK(sx_model_explain(m, loo, val, SX_EXPLAIN_LEAVE_ONE_OUT, src, TS, tgt, TT, step, target, 0, 0)
              == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_edit_count(m) == 0, "leave-one-out leaves no edit");
        for (int i = 0; i < TS; i++) {
            float w[TS] = { 0 };
            w[i] = 1.0f;
            CHECK(sx_model_edit(m, SX_EDIT_MASK_KEYS, SX_MODEL_ENC_SELF, -1, 0, 0, w, TS) == SX_OK, "%s", sx_last_error());
            CHECK(sx_model_edit(m, SX_EDIT_MASK_KEYS, SX_MODEL_CROSS, -1, 0, 0, w, TS) == SX_OK, "%s", sx_last_error());
            CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
            const double drop = val[0] - logp(m, step, target);
            sx_model_clear_edits(m);
            if (i < 6) CHECK_NEAR(loo[i], drop, 1e-5, "%s: token %d", map_name[maps[mi]], i);
            else CHECK(loo[i] == 0.0f, "PAD position: %g", loo[i]);
        }
        /* masked keys get exact zeros in every head of those kinds */
        float w[TS] = { 0, 1, 0, 0, 0, 0, 0 };
        sx_model_edit(m, SX_EDIT_MASK_KEYS, SX_MODEL_CROSS, -1, 0, 0, w, TS);
        sx_model_forward(m, src, TS, tgt, TT, 1);
        int zeros = 0;
        for (int l = 0; l < L; l++) {
            const float *a = sx_model_attention(m, SX_MODEL_CROSS, l);
            for (int q = 0; q < NH * TT; q++) zeros += a[q * TS + 1] == 0.0f;
        }
        CHECK(zeros == L * NH * TT, "masked key weights: %d zeros of %d", zeros, L * NH * TT);
        sx_model_free(m);
    }
}

/* interventions: identities */
static void test_identities(void) {
    for (int map = 0; map < 6; map++) {
        if (map == 3) continue;
        sx_model *m = make_model(map, map == 2 ? 3 : 0, 41 + map, 2.0f);
        int src[TS], tgt[TT];
        example(src, tgt);
        float base[TT * V], row[TS];
        CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
        memcpy(base, sx_model_logits(m), sizeof base);
        /* a row replaced by itself, every kind */
        for (int kind = 0; kind < 3; kind++) {
            const int Tq = kind == 0 ? TS : TT, Tk = kind == 1 ? TT : TS, r = 2;
            CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
            memcpy(row, sx_model_attention(m, kind, 1) + (size_t)(1 * Tq + r) * Tk, sizeof(float) * Tk);
            CHECK(sx_model_edit(m, SX_EDIT_REPLACE, kind, 1, 1, r, row, Tk) == SX_OK, "%s", sx_last_error());
            CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
            CHECK(!memcmp(base, sx_model_logits(m), sizeof base), "%s kind %d: a row replaced by itself "
                  "changed the logits", map_name[map], kind);
            sx_model_clear_edits(m);
        }
        /* erasing a key of zero weight changes nothing (sparse maps have some) */
        CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
        const float *a = sx_model_attention(m, SX_MODEL_CROSS, 0);
        int found = 0;
        for (int q = 0; q < NH * TT && !found; q++)
            for (int j = 0; j < 6 && !found; j++)
                if (a[q * TS + j] == 0.0f) {
                    float w[TS] = { 0 };
                    w[j] = 1.0f;
                    CHECK(sx_model_edit(m, SX_EDIT_ERASE, SX_MODEL_CROSS, 0, q / TT, q % TT, w, TS) == SX_OK,
                          "%s", sx_last_error());
                    found = 1;
                }
        if (found) {
            CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
            double worst = 0.0;
            for (int i = 0; i < TT * V; i++) worst = fmax(worst, fabs(base[i] - sx_model_logits(m)[i]));
            CHECK(worst <= 1e-5, "%s: erasing a zero-weight key moved a logit by %g", map_name[map], worst);
            sx_model_clear_edits(m);
        }
        CHECK(map == 0 || found, "%s: no zero weight in cross layer 0", map_name[map]);
        /* an ablated cross head = that head's rows of co_w zeroed */
        CHECK(sx_model_edit(m, SX_EDIT_ABLATE, SX_MODEL_CROSS, 1, 1, 0, NULL, 0) == SX_OK, "%s", sx_last_error());
        CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
        float abl[TT * V];
        memcpy(abl, sx_model_logits(m), sizeof abl);
        const float *a1 = sx_model_attention(m, SX_MODEL_CROSS, 1) + (size_t)TT * TS;
        int nz = 0;
        for (int q = 0; q < TT * TS; q++) nz += a1[q] != 0.0f;
        CHECK(nz == 0, "an ablated head has %d non-zero weights", nz);
        sx_model_clear_edits(m);
        int t;
        for (t = 0; t < sx_model_tensor_count() && strcmp(sx_model_tensor_name(t), "dec.co_w"); t++) {}
        float *cow = sx_model_params(m) + sx_model_tensor_offset(m, t) + (size_t)1 * C * C;
        float saved[C * C];
        memcpy(saved, cow, sizeof saved);
        for (int r = C / NH; r < C; r++) memset(cow + r * C, 0, sizeof(float) * C);
        CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
        double worst = 0.0;
        for (int i = 0; i < TT * V; i++) worst = fmax(worst, fabs(abl[i] - sx_model_logits(m)[i]));
        CHECK(worst <= 1e-5, "%s: ablation vs zeroed weights: %g", map_name[map], worst);
        memcpy(cow, saved, sizeof saved);
        /* softmax: erasing a key in every row of every head = masking it before the mapping */
        if (map == 0) {
            float w[TS] = { 0, 0, 1, 0, 0, 0, 0 }, e1[TT * V];
            sx_model_edit(m, SX_EDIT_ERASE, SX_MODEL_CROSS, -1, -1, -1, w, TS);
            sx_model_forward(m, src, TS, tgt, TT, 1);
            memcpy(e1, sx_model_logits(m), sizeof e1);
            sx_model_clear_edits(m);
            sx_model_edit(m, SX_EDIT_MASK_KEYS, SX_MODEL_CROSS, -1, 0, 0, w, TS);
            sx_model_forward(m, src, TS, tgt, TT, 1);
            worst = 0.0;
            for (int i = 0; i < TT * V; i++) worst = fmax(worst, fabs(e1[i] - sx_model_logits(m)[i]));
            CHECK(worst <= 1e-5, "softmax: erase vs mask: %g", worst);
            sx_model_clear_edits(m);
        }
        /* generate with an edit, then without: the plain output comes back */
        int o1[T], o2[T], o3[T];
        sx_model_generate(m, o1, T, src, TS, 1);
        sx_model_edit(m, SX_EDIT_ABLATE, SX_MODEL_CROSS, -1, -1, 0, NULL, 0);
        CHECK(sx_model_generate(m, o2, T, src, TS, 1) == SX_OK, "%s", sx_last_error());
        sx_model_clear_edits(m);
        sx_model_generate(m, o3, T, src, TS, 1);
        CHECK(!memcmp(o1, o3, sizeof o1), "clear_edits restores greedy decoding");
        sx_model_free(m);
    }
}

/* d f / d att row against differences of replaced rows */
static void test_attention_grad(void) {
    static const int maps[] = { 0, 1, 4 };
    int checked = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int kind = 0; kind < 3; kind++) {
            sx_model *m = make_model(maps[mi], 0, 51 + mi, 1.0f);
            int src[TS], tgt[TT];
            example(src, tgt);
            const int step = 4, target = 6, layer = kind == 2 ? 1 : 0, head = 1, r = 3;
            const int Tq = kind == 0 ? TS : TT, Tk = kind == 1 ? TT : TS, kl = kind == 1 ? r + 1 : 6;
            float dl[V], g[TS], g2[TS];
            for (int v = 0; v < V; v++) dl[v] = (float)nrand();
            for (int withlog = 0; withlog < 2; withlog++) {
                CHECK(sx_model_attention_grad(m, withlog ? g : g2, kind, layer, head, r, src, TS, tgt, TT,
                                              step, target, withlog ? NULL : dl) == SX_OK, "%s", sx_last_error());
            }
            float row[TS], w[TS];
            memcpy(row, sx_model_attention(m, kind, layer) + (size_t)(head * Tq + r) * Tk, sizeof(float) * Tk);
            /* the gradient is taken with the row replaced by itself too (an edited row reports its own) */
            sx_model_edit(m, SX_EDIT_REPLACE, kind, layer, head, r, row, Tk);
            float g3[TS];
            CHECK(sx_model_attention_grad(m, g3, kind, layer, head, r, src, TS, tgt, TT, step, target, NULL)
                  == SX_OK, "%s", sx_last_error());
            sx_model_clear_edits(m);
            const float h = 2e-3f;
            for (int j = 0; j < kl; j++) {
                double fv[2], lv[2];
                for (int s = 0; s < 2; s++) {
                    memcpy(w, row, sizeof(float) * Tk);
                    w[j] += s ? h : (row[j] >= h ? -h : 0.0f);
                    sx_model_edit(m, SX_EDIT_REPLACE, kind, layer, head, r, w, Tk);
                    sx_model_forward(m, src, TS, tgt, TT, 1);
                    fv[s] = logp(m, step, target);
                    lv[s] = 0.0;
                    for (int v = 0; v < V; v++) lv[s] += dl[v] * sx_model_logits(m)[(size_t)step * V + v];
                    sx_model_clear_edits(m);
                }
                const double span = row[j] >= h ? 2.0 * h : h;
                const double d = (fv[1] - fv[0]) / span, dlg = (lv[1] - lv[0]) / span;
                CHECK_NEAR(g[j], d, 3e-3 + 3e-2 * fabs(d), "%s kind %d key %d: d log p / d att",
                           map_name[maps[mi]], kind, j);
                CHECK_NEAR(g2[j], dlg, 3e-3 + 3e-2 * fabs(dlg), "%s kind %d key %d: d <dl, z> / d att",
                           map_name[maps[mi]], kind, j);
                CHECK_NEAR(g3[j], g[j], 1e-5, "the same gradient with the row replaced by itself");
                checked++;
            }
            sx_model_free(m);
        }
    /* every layer and head at once = one at a time */
    {
        sx_model *m = make_model(2, 0, 57, 1.0f);
        int src[TS], tgt[TT];
        example(src, tgt);
        float all[L * NH * TS], one[TS], lay[NH * TS];
        CHECK(sx_model_attention_grad(m, all, SX_MODEL_CROSS, -1, -1, 2, src, TS, tgt, TT, 3, 4, NULL)
              == SX_OK, "%s", sx_last_error());
        for (int l = 0; l < L; l++) {
            CHECK(sx_model_attention_grad(m, lay, SX_MODEL_CROSS, l, -1, 2, src, TS, tgt, TT, 3, 4, NULL)
                  == SX_OK, "%s", sx_last_error());
            CHECK(!memcmp(lay, all + l * NH * TS, sizeof lay), "layer %d, every head", l);
            for (int h = 0; h < NH; h++) {
                sx_model_attention_grad(m, one, SX_MODEL_CROSS, l, h, 2, src, TS, tgt, TT, 3, 4, NULL);
                CHECK(!memcmp(one, all + (l * NH + h) * TS, sizeof one), "layer %d head %d", l, h);
            }
        }
        float hd[L * TS];
        sx_model_attention_grad(m, hd, SX_MODEL_CROSS, -1, 1, 2, src, TS, tgt, TT, 3, 4, NULL);
        for (int l = 0; l < L; l++)
            CHECK(!memcmp(hd + l * TS, all + (l * NH + 1) * TS, sizeof(float) * TS), "every layer, head 1");
        sx_model_free(m);
    }
    printf("test_explain: attention-row gradients, %d entries\n", checked);
}

/* rollout against a plain reference of its definition */
static void test_rollout(void) {
    sx_model *m = make_model(2, 0, 61, 2.0f);
    int src[TS], tgt[TT];
    example(src, tgt);
    float out[TT * TS];
    CHECK(sx_model_rollout(m, out, 0) == SX_EINVAL, "no forward pass yet");
    CHECK(sx_model_forward(m, src, TS, tgt, TT, 1) == SX_OK, "%s", sx_last_error());
    CHECK(sx_model_rollout(m, out, 0) == SX_OK, "%s", sx_last_error());
    double renc[TS][TS] = { { 0 } }, rs[TT][TS] = { { 0 } }, rd[TT][TT] = { { 0 } };
    for (int i = 0; i < TS; i++) renc[i][i] = 1.0;
    for (int i = 0; i < TT; i++) rd[i][i] = 1.0;
    for (int l = 0; l < L; l++) {
        const float *A = sx_model_attention(m, SX_MODEL_ENC_SELF, l);
        double n[TS][TS] = { { 0 } };
        for (int i = 0; i < TS; i++)
            for (int j = 0; j < TS; j++)
                for (int r = 0; r < TS; r++) {
                    double a = (i == r);
                    for (int h = 0; h < NH; h++) a += A[(h * TS + i) * TS + r] / NH;
                    n[i][j] += 0.5 * a * renc[r][j];
                }
        memcpy(renc, n, sizeof n);
    }
    for (int l = 0; l < L; l++) {
        const float *A = sx_model_attention(m, SX_MODEL_DEC_SELF, l);
        const float *X = sx_model_attention(m, SX_MODEL_CROSS, l);
        double nd[TT][TT] = { { 0 } }, ns[TT][TS] = { { 0 } };
        for (int i = 0; i < TT; i++)
            for (int r = 0; r < TT; r++) {
                double a = (i == r);
                for (int h = 0; h < NH; h++) a += A[(h * TT + i) * TT + r] / NH;
                for (int j = 0; j < TT; j++) nd[i][j] += 0.5 * a * rd[r][j];
                for (int j = 0; j < TS; j++) ns[i][j] += 0.5 * a * rs[r][j];
            }
        for (int i = 0; i < TT; i++)
            for (int j = 0; j < TS; j++) {
                double x = 0.0;
                for (int r = 0; r < TS; r++) {
                    double a = 0.0;
                    for (int h = 0; h < NH; h++) a += X[(h * TT + i) * TS + r] / NH;
                    x += a * renc[r][j];
                }
                rs[i][j] = 0.5 * (ns[i][j] + x);
            }
        for (int i = 0; i < TT; i++)
            for (int j = 0; j < TT; j++) rd[i][j] = 0.5 * nd[i][j];
    }
    for (int i = 0; i < TT; i++) {
        double sum = 0.0;
        for (int j = 0; j < TS; j++) {
            CHECK_NEAR(out[i * TS + j], rs[i][j], 1e-6, "rollout [%d][%d]", i, j);
            CHECK(out[i * TS + j] >= 0.0f, "rollout >= 0");
            sum += out[i * TS + j];
        }
        CHECK(sum <= 1.0 + 1e-6 && sum > 0.0, "rollout row %d sums to %g", i, sum);
        CHECK(out[i * TS + 6] == 0.0f, "PAD gets no share");
    }
    CHECK_MSG(sx_model_rollout(m, out, 1), SX_EINVAL, "b must be in [0, 1)");
    CHECK_MSG(sx_model_rollout(NULL, out, 0), SX_EINVAL, "model or out is NULL");
    sx_model_free(m);
}

static void test_errors(void) {
    sx_model *m = make_model(0, 0, 71, 1.0f);
    int src[TS], tgt[TT];
    example(src, tgt);
    float w[TS] = { 0.5f, 0.5f, 0, 0, 0, 0, 0 }, out[TS];
    CHECK_MSG(sx_model_edit(NULL, 0, 0, 0, 0, 0, NULL, 0), SX_EINVAL, "model is NULL");
    CHECK_MSG(sx_model_edit(m, 4, 0, 0, 0, 0, w, TS), SX_EINVAL, "op must be in [0, 3] (got 4)");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_ABLATE, 3, 0, 0, 0, NULL, 0), SX_EINVAL, "kind must be 0");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_ABLATE, 0, 2, 0, 0, NULL, 0), SX_EINVAL, "layer must be in [-1, 1] (got 2)");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_ABLATE, 0, 0, 2, 0, NULL, 0), SX_EINVAL, "head must be in [-1, 1] (got 2)");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_REPLACE, 0, 0, 0, 8, w, TS), SX_EINVAL, "row must be in [-1, 7] (got 8)");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_REPLACE, 0, 0, 0, 0, NULL, TS), SX_EINVAL, "replace: w is NULL");
    CHECK_MSG(sx_model_edit(m, SX_EDIT_ERASE, 0, 0, 0, 0, w, 9), SX_EINVAL, "n must be in [1, max_len 8] (got 9)");
    w[1] = -0.5f;
    CHECK_MSG(sx_model_edit(m, SX_EDIT_REPLACE, 0, 0, 0, 0, w, TS), SX_EINVAL, "w[1] must be finite and >= 0");
    w[1] = NAN;
    CHECK_MSG(sx_model_edit(m, SX_EDIT_MASK_KEYS, 0, 0, 0, 0, w, TS), SX_EINVAL, "w[1] must be finite (got NaN)");
    w[1] = 0.5f;
    CHECK(sx_model_edit_count(m) == 0, "failed edits add nothing");
    int st = SX_OK, n = 0;
    while ((st = sx_model_edit(m, SX_EDIT_REPLACE, 2, -1, 0, 0, w, TS)) == SX_OK) n++;
    CHECK(n == SX_MODEL_MAX_EDITS / L, "row edit capacity: %d calls", n);
    CHECK_MSG(st, SX_EINVAL, "at most 64 row edits");
    sx_model_clear_edits(m);
    CHECK(sx_model_edit_count(m) == 0, "cleared");
    CHECK_MSG(sx_model_explain(m, out, NULL, 4, src, TS, tgt, TT, 0, 3, 0, 0), SX_EINVAL, "method must be in [0, 3]");
    CHECK_MSG(sx_model_explain(m, out, NULL, 2, src, TS, tgt, TT, 0, 3, 0, 0), SX_EINVAL, "steps must be in [1, 4096] (got 0)");
    CHECK_MSG(sx_model_explain(m, out, NULL, 0, src, TS, tgt, TT, TT, 3, 0, 0), SX_EINVAL, "step must be in [0, tgt length 6) (got 6)");
    CHECK_MSG(sx_model_explain(m, out, NULL, 0, src, TS, tgt, TT, 0, V, 0, 0), SX_EINVAL, "target must be a token id in [0, 11) (got 11)");
    CHECK_MSG(sx_model_explain(m, NULL, NULL, 0, src, TS, tgt, TT, 0, 3, 0, 0), SX_EINVAL, "out is NULL");
    CHECK_MSG(sx_model_explain(m, out, NULL, 0, src, TS, tgt, TT, 0, 3, 2, 0), SX_EINVAL, "objective must be 0 (log p) or 1 (logit) (got 2)");
    CHECK_MSG(sx_model_explain(m, out, NULL, 0, src, 9, tgt, TT, 0, 3, 0, 0), SX_EINVAL, "src length must be in [1, max_len 8] (got 9)");
    src[2] = V;
    CHECK_MSG(sx_model_explain(m, out, NULL, 0, src, TS, tgt, TT, 0, 3, 0, 0), SX_EINVAL, "src[2] must be a token id in [0, 11) (got 11)");
    src[2] = 3;
    CHECK_MSG(sx_model_attention_grad(m, out, 1, 0, 0, 6, src, TS, tgt, TT, 0, 3, NULL), SX_EINVAL, "row must be in [0, 6) (got 6)");
    CHECK_MSG(sx_model_attention_grad(m, out, 0, 2, 0, 0, src, TS, tgt, TT, 0, 3, NULL), SX_EINVAL, "layer must be in [-1, 2) (got 2)");
    float dl[V] = { 0 };
    dl[4] = INFINITY;
    CHECK_MSG(sx_model_attention_grad(m, out, 0, 0, 0, 0, src, TS, tgt, TT, 0, 3, dl), SX_EINVAL, "dlogits[4] must be finite");
    sx_model_free(m);
}

int main(void) {
    test_errors();
    test_gradients();
    test_integrated();
    test_leave_one_out();
    test_identities();
    test_attention_grad();
    test_rollout();
    return sx_test_summary("test_explain");
}
