/* train-gpt.c - train one decoder-only character model (model.h, SX_MODEL_DECODER) on the text
   corpus, deterministically, natively; `build/tools/train --arch gpt ...` runs it (tools/train.c).

     build/tools/train --arch gpt --kind softmax|entmax15|entmax15-out|sparsemax-out [--dir build/text]
                       [--seed 1] [--steps 1500] [--batch 16] [--context 64] [--d-model 64]
                       [--heads 4] [--layers 2] [--d-ff 256] [--lr 3e-3] [--lr-min 3e-4]
                       [--warmup 100] [--out FILE] [--float32] [--quiet]

   Kinds: softmax (softmax attention and outputs), entmax15 (1.5-entmax attention, softmax
   outputs), entmax15-out (learned alpha-entmax attention per head, 1.5-entmax outputs trained
   with the entmax loss), sparsemax-out (the same attention, sparsemax outputs trained with the
   sparsemax loss: the sharper support <sx-write>'s list of next words needs). The corpus is `make text`'s build/text/devil-{train,valid,test}.txt
   read into the character vocabulary of tools/text/vocab.h (96 symbols), model token = id + 3
   (0..2 are the model's PAD, BOS, EOS, never in the text: V = 99). Step s trains on --batch
   windows of context + 1 characters of the train split at offsets drawn from splitmix64 (seed,
   stream s), a linear warm-up then cosine decay of the rate; the step count is fixed (no early
   stop: the bytes depend on nothing but the flags).

   Scoring (on the model loaded back from the checkpoint's bytes, i.e. the weights that ship):
   every character of the validation and test splits is predicted once, from up to `context`
   characters before it (the split preceded by one newline, as the n-gram baseline pads it;
   windows of `context` inputs at a stride of context / 2, each scoring its last half, the first
   window all of it), so the bits per character compare with tools/text/baseline.c's. Also the
   epsilon-perplexity of Martins et al. 2020 with eps chosen on validation (sx_eps_choose, the
   model's V) and applied to test, the fraction of test characters inside the support, the mean
   support size of the next-character distribution, and the fraction of exact zeros among the
   attention weights a query may see (causal), on validation. A sparse-output model that gives
   a true character probability 0 has infinite bits per character: the JSON says null. One
   JSON line on stdout (with the character table: token_offset and chars); progress on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rng.h"
#include "simplexity.h"
#include "split.h"
#include "vocab.h"

#define OFFSET 3 /* model token = vocabulary id + 3 */
#define V_MODEL (TX_VOCAB + OFFSET)

typedef struct {
    const char *kind, *dir, *out;
    int seed, steps, batch, context, d_model, heads, layers, d_ff, warmup, quiet, float32;
    float lr, lr_min;
} gpt_options;

typedef struct {
    int *tok; /* newline, then the split, as model tokens */
    size_t n; /* characters of the split (tok holds n + 1) */
} text;

/* What scoring a split measures; p_true (n) the probability of each true character. */
typedef struct {
    float *p_true;
    double bits, support, zeros;
    int zero_p; /* true characters with probability 0 */
} score;

static void die(const char *what) {
    fprintf(stderr, "train --arch gpt: %s\n", what);
    exit(1);
}

static text read_text(const char *dir, const char *name) {
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/devil-%s.txt", dir, name);
    size_t n = 0;
    unsigned char *ids = tx_read_split(path, &n, err, sizeof err);
    if (!ids) die(err);
    text t = { malloc((n + 1) * sizeof(int)), n };
    if (!t.tok) die("out of memory");
    t.tok[0] = TX_NEWLINE + OFFSET;
    for (size_t i = 0; i < n; i++) t.tok[i + 1] = ids[i] + OFFSET;
    free(ids);
    return t;
}

/* The kinds: the layers' attention mapping and the output mapping, and their names in the JSON. */
typedef struct {
    const char *kind;
    int map, out;
    const char *attention, *output;
} gpt_kind;

static const gpt_kind KINDS[] = {
    { "softmax", SX_MAP_SOFTMAX, SX_MAP_SOFTMAX, "softmax", "softmax" },
    { "entmax15", SX_MAP_ENTMAX15, SX_MAP_SOFTMAX, "entmax15", "softmax" },
    { "entmax15-out", SX_MAP_ENTMAX_LEARNED, SX_MAP_ENTMAX15, "alpha", "entmax15" },
    { "sparsemax-out", SX_MAP_ENTMAX_LEARNED, SX_MAP_SPARSEMAX, "alpha", "sparsemax" },
};
#define KINDS_HELP "softmax, entmax15, entmax15-out or sparsemax-out"

static const gpt_kind *find_kind(const char *name) {
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strcmp(KINDS[i].kind, name)) return &KINDS[i];
    die("--kind must be " KINDS_HELP);
    return NULL;
}

/* The model of a kind, created from the options. */
static sx_model *create(const gpt_options *o) {
    const gpt_kind *k = find_kind(o->kind);
    const int map = k->map, out = k->out;
    if (o->layers < 1 || o->layers > SX_MODEL_MAX_LAYERS) die("--layers must be in 1..8");
    int cfg[SX_MODEL_MAP + SX_MODEL_MAX_LAYERS + 2] = { 0 };
    const int L = o->layers;
    cfg[SX_MODEL_VOCAB] = V_MODEL;
    cfg[SX_MODEL_D_MODEL] = o->d_model;
    cfg[SX_MODEL_N_HEAD] = o->heads;
    cfg[SX_MODEL_N_LAYER] = L;
    cfg[SX_MODEL_D_FF] = o->d_ff;
    cfg[SX_MODEL_MAX_LEN] = o->context + 1;
    cfg[SX_MODEL_SPAN_RAMP] = 1;
    cfg[SX_MODEL_SEED] = o->seed;
    cfg[SX_MODEL_MAX_BATCH] = o->batch;
    cfg[SX_MODEL_ACT] = 1; /* GELU */
    for (int l = 0; l < L; l++) cfg[SX_MODEL_MAP + l] = map;
    cfg[SX_MODEL_OUTPUT(L)] = out;
    cfg[SX_MODEL_ARCH(L)] = SX_MODEL_DECODER;
    const float fcfg[3] = { 0.0f, 1.0f, 10.0f }; /* no span; clip 1; alpha_lr 10 as train.c */
    sx_model *m = NULL;
    if (sx_model_create(&m, cfg, SX_MODEL_ARCH(L) + 1, fcfg, 3) != SX_OK) die(sx_last_error());
    return m;
}

/* Rows (batch, context + 1) of the train split at offsets drawn for step s. */
static void train_batch(int *rows, const text *t, const gpt_options *o, int s) {
    sx__rng r;
    sx__rng_init(&r, (uint64_t)(uint32_t)o->seed, (uint64_t)s);
    const int W = o->context + 1;
    for (int b = 0; b < o->batch; b++) {
        const size_t at = sx__rng_below(&r, (uint32_t)(t->n + 1 - (size_t)W));
        memcpy(rows + (size_t)b * W, t->tok + at, (size_t)W * sizeof(int));
    }
}

static double train(sx_model *m, const text *t, const gpt_options *o, double *seconds) {
    const int W = o->context + 1;
    int *rows = malloc((size_t)o->batch * W * sizeof(int));
    if (!rows) die("out of memory");
    const clock_t t0 = clock();
    double ema = 0.0;
    for (int s = 0; s < o->steps; s++) {
        const double prog = (double)s / o->steps;
        double lr = o->lr_min + 0.5 * (o->lr - o->lr_min) * (1.0 + cos(3.14159265358979 * prog));
        if (s < o->warmup) lr *= (s + 1.0) / o->warmup;
        train_batch(rows, t, o, s);
        float loss = 0.0f;
        if (sx_model_train_step(m, &loss, NULL, 0, rows, W, o->batch, (float)lr) != SX_OK)
            die(sx_last_error());
        ema = s ? 0.98 * ema + 0.02 * loss : loss;
        if (!o->quiet && ((s + 1) % 100 == 0 || s + 1 == o->steps))
            fprintf(stderr, "devil %s step %5d  loss %.4f  %.1fs\n", o->kind, s + 1, ema,
                    (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
    *seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(rows);
    return ema;
}

/* -log2 of the true token's probability under the output mapping of logits z (V_MODEL), its
   probability in *p and the support size in *support (softmax: in double, never 0 bits short). */
static double char_bits(const float *z, int y, int out_map, float *p, int *support) {
    if (out_map == SX_MAP_SOFTMAX) {
        double mx = z[0], sum = 0.0;
        for (int v = 1; v < V_MODEL; v++) mx = z[v] > mx ? z[v] : mx;
        for (int v = 0; v < V_MODEL; v++) sum += exp((double)z[v] - mx);
        const double lp = (double)z[y] - mx - log(sum);
        *p = (float)exp(lp);
        *support = V_MODEL;
        return -lp / log(2.0);
    }
    float q[V_MODEL];
    const int st = out_map == SX_MAP_SPARSEMAX ? sx_sparsemax(q, z, 1, V_MODEL, 1.0f)
                                               : sx_entmax15(q, z, 1, V_MODEL, 1.0f);
    if (st != SX_OK) die(sx_last_error());
    *support = 0;
    for (int v = 0; v < V_MODEL; v++) *support += q[v] > 0.0f;
    *p = q[y];
    return q[y] > 0.0f ? -log2((double)q[y]) : INFINITY;
}

/* Zeros and visible entries among the causal attention weights of the last forward pass. */
static void count_zeros(const sx_model *m, int B, int W, double *zeros, double *seen) {
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), NH = sx_model_config(m, SX_MODEL_N_HEAD);
    for (int l = 0; l < L; l++) {
        const float *att = sx_model_attention(m, SX_MODEL_DEC_SELF, l); /* (B, NH, W, W) */
        for (int r = 0; r < B * NH; r++)
            for (int i = 0; i < W; i++)
                for (int j = 0; j <= i; j++) *zeros += att[((size_t)r * W + i) * W + j] == 0.0f;
        *seen += (double)B * NH * W * (W + 1) / 2;
    }
}

/* Score every character of a split (the header's windows): a window at st scores the
   characters from scored_to (the first not yet scored) to its end, which leaves each at least
   context / 2 characters of context but the first window's. */
static score score_text(sx_model *m, const text *t, const gpt_options *o) {
    const int W = o->context, H = W / 2, B = o->batch;
    const int out_map = sx_model_config(m, SX_MODEL_OUTPUT(o->layers));
    if (t->n < (size_t)W) die("a split is shorter than the context");
    score sc = { malloc(t->n * sizeof(float)), 0, 0, 0, 0 };
    int *rows = malloc((size_t)B * W * sizeof(int));
    size_t *starts = malloc((size_t)B * sizeof(size_t));
    if (!sc.p_true || !rows || !starts) die("out of memory");
    double zeros = 0.0, seen = 0.0;
    size_t scored_to = 0, next = 0; /* token c + 1 is character c; window k starts at k H */
    while (scored_to < t->n) {
        int cnt = 0;
        for (size_t end = scored_to; cnt < B && end < t->n; cnt++, next += H) {
            const size_t st = next + W > t->n ? t->n - W : next;
            starts[cnt] = st;
            memcpy(rows + (size_t)cnt * W, t->tok + st, (size_t)W * sizeof(int));
            end = st + W;
        }
        if (sx_model_forward(m, NULL, 0, rows, W, cnt) != SX_OK) die(sx_last_error());
        count_zeros(m, cnt, W, &zeros, &seen);
        const float *lg = sx_model_logits(m);
        for (int r = 0; r < cnt; r++)
            for (size_t c = scored_to; c < starts[r] + W; c++, scored_to++) {
                float p;
                int support;
                const double bits = char_bits(lg + ((size_t)r * W + (c - starts[r])) * V_MODEL,
                                              t->tok[c + 1], out_map, &p, &support);
                sc.p_true[c] = p;
                sc.bits += bits;
                sc.support += support;
                sc.zero_p += p == 0.0f;
            }
    }
    sc.bits /= (double)t->n;
    sc.support /= (double)t->n;
    sc.zeros = seen > 0 ? zeros / seen : 0.0;
    free(rows);
    free(starts);
    return sc;
}

/* The checkpoint's bytes (float16 unless --float32) written to --out, and the model they hold. */
static sx_model *ship(const sx_model *m, const gpt_options *o, int *bytes) {
    const int precision = o->float32 ? SX_SAVE_FLOAT32 : SX_SAVE_FLOAT16;
    const int size = sx_model_save_size_as(m, precision);
    unsigned char *buf = malloc((size_t)size);
    sx_model *shipped = NULL;
    if (!buf || sx_model_save_as(m, buf, size, precision) != SX_OK ||
        sx_model_load(&shipped, buf, size) != SX_OK)
        die(sx_last_error());
    if (o->out) {
        FILE *f = fopen(o->out, "wb");
        if (!f || fwrite(buf, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0)
            die("cannot write the checkpoint");
    }
    free(buf);
    *bytes = size;
    return shipped;
}

/* The character table, so a reader of the JSON can encode text: "token_offset" (model token =
   offset + index) and "chars", the vocabulary's characters in id order as a JSON string. */
static void json_chars(void) {
    printf(",\"token_offset\":%d,\"chars\":\"", OFFSET);
    for (int id = 0; id < TX_VOCAB; id++) {
        const char c = tx_id_char(id);
        if (c == '\n') printf("\\n");
        else if (c == '"' || c == '\\') printf("\\%c", c);
        else putchar(c);
    }
    putchar('"');
}

/* A bits-per-character figure, null when infinite (a true character at probability 0). */
static void json_bits(const char *name, double bits) {
    if (isfinite(bits)) printf(",\"%s\":%.4f", name, bits);
    else printf(",\"%s\":null", name);
}

static void report(const sx_model *m, const gpt_options *o, int steps, double seconds,
                   double loss, int bytes, const text s[3], const score *va, const score *te) {
    const int L = o->layers, NH = o->heads;
    /* eps from validation; a model no better than uniform there (mean p_true <= 1 / V: an
       untrained one) has eps infinite, p_eps the uniform 1 / V: eps null, perplexity V */
    double eps = 0.0, ep[3];
    const int uniform = sx_eps_choose(&eps, va->p_true, (int)s[1].n, V_MODEL) != SX_OK;
    if (sx_eps_perplexity(ep, te->p_true, (int)s[2].n, V_MODEL, uniform ? 0.0 : eps) != SX_OK)
        die(sx_last_error());
    if (uniform) ep[0] = V_MODEL, ep[1] = log2((double)V_MODEL);
    float alphas[3 * SX_MODEL_MAX_LAYERS * 16];
    sx_model_alphas(m, alphas);
    printf("{\"name\":\"devil-%s\",\"kind\":\"%s\",\"arch\":\"decoder\",\"seed\":%d,\"steps\":%d,"
           "\"seconds\":%.1f,\"loss\":%.4f,\"params\":%d,\"bytes\":%d,\"precision\":\"%s\","
           "\"attention\":\"%s\",\"output\":\"%s\",\"config\":{\"vocab\":%d,\"d_model\":%d,"
           "\"heads\":%d,\"layers\":%d,\"d_ff\":%d,\"context\":%d,\"batch\":%d,\"lr\":%g},"
           "\"train_chars\":%zu,\"valid_chars\":%zu,\"test_chars\":%zu",
           o->kind, o->kind, o->seed, steps, seconds, loss, sx_model_num_params(m), bytes,
           o->float32 ? "float32" : "float16",
           find_kind(o->kind)->attention, find_kind(o->kind)->output, V_MODEL, o->d_model, NH, L,
           o->d_ff, o->context, o->batch, (double)o->lr, s[0].n, s[1].n, s[2].n);
    json_chars();
    json_bits("valid_bpc", va->bits);
    json_bits("test_bpc", te->bits);
    if (uniform) printf(",\"eps\":null");
    else printf(",\"eps\":%.6g", eps);
    printf(",\"test_eps_ppl\":%.4f,\"test_eps_bpc\":%.4f,\"test_in_support\":%.6f,"
           "\"test_support\":%.3f,\"valid_attention_zeros\":%.4f,\"alphas\":[", ep[0], ep[1],
           ep[2], te->support, va->zeros);
    for (int l = 0; l < L; l++) { /* the decoder's self-attention heads */
        printf("%s[", l ? "," : "");
        for (int h = 0; h < NH; h++)
            printf("%s%.3f", h ? "," : "", alphas[(SX_MODEL_DEC_SELF * L + l) * NH + h]);
        printf("]");
    }
    printf("]}\n");
}

int train_gpt_main(int argc, char **argv) {
    gpt_options o = { NULL, "build/text", NULL, 1, 1500, 16, 64, 64, 4, 2, 256, 100, 0, 0,
                      3e-3f, 3e-4f };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define G_I(name, field) if (!strcmp(a, name) && v) { o.field = atoi(v); i++; continue; }
#define G_F(name, field) if (!strcmp(a, name) && v) { o.field = (float)atof(v); i++; continue; }
#define G_S(name, field) if (!strcmp(a, name) && v) { o.field = v; i++; continue; }
        G_S("--kind", kind) G_S("--dir", dir) G_S("--out", out) G_I("--seed", seed)
        G_I("--steps", steps) G_I("--batch", batch) G_I("--context", context)
        G_I("--d-model", d_model) G_I("--heads", heads) G_I("--layers", layers)
        G_I("--d-ff", d_ff) G_I("--warmup", warmup) G_F("--lr", lr) G_F("--lr-min", lr_min)
        if (!strcmp(a, "--arch") && v && !strcmp(v, "gpt")) { i++; continue; }
        if (!strcmp(a, "--quiet")) { o.quiet = 1; continue; }
        if (!strcmp(a, "--float32")) { o.float32 = 1; continue; }
        fprintf(stderr, "train --arch gpt: unknown or incomplete option '%s' (see tools/train-gpt.c)\n", a);
        return 2;
    }
    if (!o.kind) die("--kind is required (" KINDS_HELP ")");
    if (o.steps < 1 || o.batch < 1 || o.context < 2 || o.context % 2 || o.context > 255)
        die("--steps and --batch must be >= 1, --context even in 2..254");
    const text s[3] = { read_text(o.dir, "train"), read_text(o.dir, "valid"),
                        read_text(o.dir, "test") };
    sx_model *m = create(&o);
    double seconds = 0.0;
    const double loss = train(m, &s[0], &o, &seconds);
    int bytes = 0;
    sx_model *shipped = ship(m, &o, &bytes);
    const score va = score_text(shipped, &s[1], &o), te = score_text(shipped, &s[2], &o);
    fprintf(stderr, "devil %s: %d bytes; valid %.4f, test %.4f bits/char; %d and %d true "
            "characters at probability 0\n", o.kind, bytes, va.bits, te.bits, va.zero_p, te.zero_p);
    report(shipped, &o, o.steps, seconds, loss, bytes, s, &va, &te);
    free(va.p_true);
    free(te.p_true);
    for (int i = 0; i < 3; i++) free(s[i].tok);
    sx_model_free(shipped);
    sx_model_free(m);
    return 0;
}
