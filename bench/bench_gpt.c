/* bench_gpt.c - the native side of `make bench-gpt` (bench/gpt.mjs): the character models'
   generation and training, and the seq2seq model's as the baseline, in the native build of the
   core (the same source as the wasm builds; simd128 intrinsics lowered to SSE by SIMDe, -O3
   -msse4.2). Prints one JSON object on stdout.

   usage: bench_gpt [--ms 300] [--text build/text/devil-valid.txt] [--prompt "LOVE, n. "]
                    --cases CASE,CASE,...

   Cases (gpt.mjs's, the same work as its wasm side through the JS API):
     gen:cache:FILE    a character model (a decoder-only .sxm) reads the prompt and writes, greedy
                       (the argmax of the logits over the characters), until its context holds
                       GPT_CONTEXT characters, over the KV cache (sx_model_lm_step: each position
                       once); units = characters written per call
     gen:full:FILE     the same characters without the cache: the full forward pass over the
                       whole prefix for every character (sx_model_forward), its last row mapped by
                       the output mapping as lm_step's is
     train:FILE        one training step (sx_model_train_step, lr GPT_LR) on GPT_BATCH windows of
                       maxLen characters of --text at offsets from a seeded generator (the
                       trainer's shape: batch 32, context 64); units = 1 step
     s2s-gen:cache:FILE, s2s-gen:full:FILE   a seq2seq model (reverse) decodes S2S_ROWS held-out
                       sources (seed 5) one at a time, greedy (sx_model_generate_v2, with and
                       without SX_GENERATE_FULL); units = tokens generated (EOS included)
     s2s-train:FILE    one training step at batch S2S_BATCH (tools/train.c's) on train examples
                       of the task, cycling over S2S_CYCLE fixed batches; units = 1 step
   Each: two warm-up calls, then calls for --ms of CPU time (measure.h). "out" is what a call
   wrote (gen: the text; s2s-gen: the tokens), for gpt.mjs's checks: cache and full must agree. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simplexity.h"
#include "measure.h"
#include "split.h"
#include "vocab.h"

#define GPT_CONTEXT 64 /* characters the written text fills (the shipped models' context) */
#define GPT_OFFSET 3   /* model token = vocabulary id + 3 (tools/train-gpt.c) */
#define GPT_BATCH 32
#define GPT_LR 1e-4f
#define S2S_ROWS 8
#define S2S_BATCH 64
#define S2S_CYCLE 4
#define S2S_LR 1e-4f

typedef struct {
    double ms;
    const char *text, *prompt;
} options;

static sx_model *load_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size)) &&
        fread(buf, 1, (size_t)size, f) != (size_t)size)
        size = -1;
    fclose(f);
    sx_model *m = NULL;
    if (size > 0 && buf && sx_model_load(&m, buf, (int)size) != SX_OK) m = NULL;
    free(buf);
    return m;
}

/* The output mapping of model m as sx_entmax's alpha (model/outputs.js's mapLogits). */
static float output_alpha(const sx_model *m) {
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), out = sx_model_config(m, SX_MODEL_OUTPUT(L));
    if (out == SX_MAP_SPARSEMAX) return 2.0f;
    if (out == SX_MAP_ENTMAX15) return 1.5f;
    if (out == SX_MAP_ENTMAX) return sx_model_fconfig(m, SX_MODEL_F_OUTPUT_ALPHA(L));
    return 1.0f;
}

/* ---------------------------------------------------------------- generation */
typedef struct {
    sx_model *m;
    int *tok;       /* GPT_CONTEXT tokens: the prompt, then what was written */
    float *probs, *logits;
    int n_prompt, V;
    float alpha;
} gen_ctx;

/* The argmax over the character tokens of one row of logits (the first of a tie). */
static int argmax_char(const float *z, int V) {
    int best = GPT_OFFSET;
    for (int v = GPT_OFFSET + 1; v < V; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

static int gen_cache(void *p) {
    gen_ctx *c = p;
    for (int t = 0; t < GPT_CONTEXT - 1; t++) {
        const int st = sx_model_lm_step(c->m, c->probs, c->logits, c->tok + t, 1, t);
        if (st != SX_OK) return st;
        if (t + 1 >= c->n_prompt) c->tok[t + 1] = argmax_char(c->logits, c->V);
    }
    return SX_OK;
}

static int gen_full(void *p) {
    gen_ctx *c = p;
    for (int t = c->n_prompt; t < GPT_CONTEXT; t++) {
        int st = sx_model_forward(c->m, NULL, 0, c->tok, t, 1);
        if (st != SX_OK) return st;
        const float *z = sx_model_logits(c->m) + (size_t)(t - 1) * c->V;
        st = sx_entmax(c->probs, z, 1, c->V, c->alpha, 1.0f);
        if (st != SX_OK) return st;
        c->tok[t] = argmax_char(z, c->V);
    }
    return SX_OK;
}

/* ------------------------------------------------------------------ training */
typedef struct {
    sx_model *m;
    int *rows, *text;
    size_t n;
    int W, B, step, src_len;
    int *src;       /* seq2seq: S2S_CYCLE batches of sources and targets */
    float lr;
    uint64_t rng;
} train_ctx;

static int gpt_train(void *p) {
    train_ctx *c = p;
    for (int b = 0; b < c->B; b++) {
        c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const size_t at = (size_t)((c->rng >> 33) % (uint64_t)(c->n - (size_t)c->W + 1));
        memcpy(c->rows + (size_t)b * c->W, c->text + at, (size_t)c->W * sizeof(int));
    }
    return sx_model_train_step(c->m, NULL, NULL, 0, c->rows, c->W, c->B, c->lr);
}

static int s2s_train(void *p) {
    train_ctx *c = p;
    const size_t k = (size_t)(c->step++ % S2S_CYCLE) * c->B * c->W;
    return sx_model_train_step(c->m, NULL, c->src + k, c->W, c->rows + k, c->W, c->B, c->lr);
}

/* ------------------------------------------------------------ seq2seq decoding */
typedef struct {
    sx_model *m;
    int *src, *out;
    int T, flags;
} s2s_ctx;

static int s2s_gen(void *p) {
    s2s_ctx *c = p;
    for (int r = 0; r < S2S_ROWS; r++) {
        const int st = sx_model_generate_v2(c->m, c->out + (size_t)r * c->T, c->T,
                                            c->src + (size_t)r * c->T, c->T, 1, c->flags);
        if (st != SX_OK) return st;
    }
    return SX_OK;
}

/* Tokens generated by s2s_gen's rows: BOS excluded, EOS included, PAD not. */
static int s2s_tokens(const s2s_ctx *c) {
    int k = 0;
    for (int r = 0; r < S2S_ROWS; r++)
        for (int j = 1; j < c->T && c->out[(size_t)r * c->T + j] != SX_TOKEN_PAD; j++) k++;
    return k;
}

/* -------------------------------------------------------------------- output */
static void print_result(const char *name, const bench_timing *t, double units, int first) {
    printf("%s\n  {\"case\": \"%s\", \"calls\": %ld, \"cpu_ms\": %.6f, \"wall_ms\": %.6f, \"units\": %.0f",
           first ? "" : ",", name, t->calls, t->cpu_ms, t->wall_ms, units);
}

static void print_text(const int *tok, int n) {
    printf(", \"out\": \"");
    for (int i = 0; i < n; i++) {
        const char ch = tx_id_char(tok[i] - GPT_OFFSET);
        if (ch == '\n') printf("\\n");
        else if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else putchar(ch);
    }
    printf("\"}");
}

static int failed(const char *name, const char *what) {
    fprintf(stderr, "bench_gpt: %s: %s\n", name, what);
    return 1;
}

/* ------------------------------------------------------------------- the cases */
static int bench_gen(const char *name, const char *variant, const char *path, const options *o, int first) {
    gen_ctx c = { 0 };
    const int full = !strcmp(variant, "full");
    if (!full && strcmp(variant, "cache")) return failed(name, "the variant must be cache or full");
    if (!(c.m = load_file(path))) return failed(name, "cannot load the model");
    c.V = sx_model_config(c.m, SX_MODEL_VOCAB);
    c.alpha = output_alpha(c.m);
    c.n_prompt = (int)strlen(o->prompt);
    if (sx_model_config(c.m, SX_MODEL_ARCH(sx_model_config(c.m, SX_MODEL_N_LAYER))) != SX_MODEL_DECODER ||
        sx_model_config(c.m, SX_MODEL_MAX_LEN) < GPT_CONTEXT || c.V < GPT_OFFSET + TX_VOCAB)
        return failed(name, "not a character model with a context of 64");
    if (c.n_prompt < 1 || c.n_prompt >= GPT_CONTEXT) return failed(name, "the prompt must hold 1 to 63 characters");
    c.tok = calloc(GPT_CONTEXT, sizeof(int));
    c.probs = malloc((size_t)c.V * sizeof(float));
    c.logits = malloc((size_t)c.V * sizeof(float));
    if (!c.tok || !c.probs || !c.logits) return failed(name, "out of memory");
    for (int i = 0; i < c.n_prompt; i++) {
        const int id = tx_char_id((unsigned char)o->prompt[i]);
        if (id < 0) return failed(name, "the prompt holds a character outside the vocabulary");
        c.tok[i] = id + GPT_OFFSET;
    }
    bench_timing t;
    const int st = bench_time(full ? gen_full : gen_cache, &c, o->ms, &t);
    if (st != SX_OK) return failed(name, sx_last_error());
    print_result(name, &t, GPT_CONTEXT - c.n_prompt, first);
    print_text(c.tok, GPT_CONTEXT);
    sx_model_free(c.m);
    free(c.tok); free(c.probs); free(c.logits);
    return 0;
}

static int bench_train(const char *name, const char *path, const options *o, int first) {
    train_ctx c = { 0 };
    if (!(c.m = load_file(path))) return failed(name, "cannot load the model");
    char err[1200];
    unsigned char *ids = tx_read_split(o->text, &c.n, err, sizeof err);
    if (!ids) return failed(name, err);
    c.W = sx_model_config(c.m, SX_MODEL_MAX_LEN);
    c.B = GPT_BATCH;
    c.lr = GPT_LR;
    c.rng = 1;
    c.text = malloc(c.n * sizeof(int));
    c.rows = malloc((size_t)c.B * c.W * sizeof(int));
    if (!c.text || !c.rows) return failed(name, "out of memory");
    if (c.n < (size_t)c.W) return failed(name, "the text is shorter than the model's context");
    for (size_t i = 0; i < c.n; i++) c.text[i] = ids[i] + GPT_OFFSET;
    free(ids);
    if (sx_model_reserve(c.m, c.B) != SX_OK) return failed(name, sx_last_error());
    bench_timing t;
    if (bench_time(gpt_train, &c, o->ms, &t) != SX_OK) return failed(name, sx_last_error());
    print_result(name, &t, 1, first);
    printf("}");
    sx_model_free(c.m);
    free(c.text); free(c.rows);
    return 0;
}

static int bench_s2s_gen(const char *name, const char *variant, const char *path, const options *o, int first) {
    s2s_ctx c = { 0 };
    (void)o;
    c.flags = !strcmp(variant, "full") ? SX_GENERATE_FULL : 0;
    if (!c.flags && strcmp(variant, "cache")) return failed(name, "the variant must be cache or full");
    if (!(c.m = load_file(path))) return failed(name, "cannot load the model");
    c.T = sx_model_config(c.m, SX_MODEL_MAX_LEN);
    c.src = malloc(sizeof(int) * S2S_ROWS * (size_t)c.T);
    c.out = malloc(sizeof(int) * S2S_ROWS * (size_t)c.T);
    int *tgt = malloc(sizeof(int) * S2S_ROWS * (size_t)c.T);
    if (!c.src || !c.out || !tgt) return failed(name, "out of memory");
    if (sx_task_generate(c.src, tgt, SX_TASK_REVERSE, SX_TASK_HELDOUT, 5, 0, S2S_ROWS, c.T) != SX_OK)
        return failed(name, sx_last_error());
    bench_timing t;
    if (bench_time(s2s_gen, &c, o->ms, &t) != SX_OK) return failed(name, sx_last_error());
    print_result(name, &t, s2s_tokens(&c), first);
    printf(", \"out\": \"");
    for (int i = 0; i < S2S_ROWS * c.T; i++) printf("%s%d", i ? " " : "", c.out[i]);
    printf("\"}");
    sx_model_free(c.m);
    free(c.src); free(c.out); free(tgt);
    return 0;
}

static int bench_s2s_train(const char *name, const char *path, const options *o, int first) {
    train_ctx c = { 0 };
    if (!(c.m = load_file(path))) return failed(name, "cannot load the model");
    c.W = sx_model_config(c.m, SX_MODEL_MAX_LEN);
    c.B = S2S_BATCH;
    c.lr = S2S_LR;
    const size_t n = (size_t)S2S_CYCLE * c.B * c.W;
    c.src = malloc(n * sizeof(int));
    c.rows = malloc(n * sizeof(int));
    if (!c.src || !c.rows) return failed(name, "out of memory");
    if (sx_task_generate(c.src, c.rows, SX_TASK_REVERSE, SX_TASK_TRAIN, 1, 0, S2S_CYCLE * c.B, c.W) != SX_OK ||
        sx_model_reserve(c.m, c.B) != SX_OK)
        return failed(name, sx_last_error());
    bench_timing t;
    if (bench_time(s2s_train, &c, o->ms, &t) != SX_OK) return failed(name, sx_last_error());
    print_result(name, &t, 1, first);
    printf("}");
    sx_model_free(c.m);
    free(c.src); free(c.rows);
    return 0;
}

/* ------------------------------------------------------------------------ main */
/* One case "kind:variant:path" or "kind:path". */
static int run_case(char *spec, const options *o, int first) {
    char name[1024];
    snprintf(name, sizeof name, "%s", spec);
    char *kind = spec, *rest = strchr(spec, ':');
    if (!rest) return failed(name, "a case is kind:[variant:]file");
    *rest++ = '\0';
    if (!strcmp(kind, "train")) return bench_train(name, rest, o, first);
    if (!strcmp(kind, "s2s-train")) return bench_s2s_train(name, rest, o, first);
    char *path = strchr(rest, ':');
    if (!path) return failed(name, "a generation case is kind:cache|full:file");
    *path++ = '\0';
    if (!strcmp(kind, "gen")) return bench_gen(name, rest, path, o, first);
    if (!strcmp(kind, "s2s-gen")) return bench_s2s_gen(name, rest, path, o, first);
    return failed(name, "unknown kind (gen, train, s2s-gen, s2s-train)");
}

int main(int argc, char **argv) {
    options o = { 300.0, "build/text/devil-valid.txt", "LOVE, n. " };
    static char cases[16384] = "";
    for (int a = 1; a < argc; a += 2) {
        const char *k = argv[a], *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!v) { fprintf(stderr, "bench_gpt: option %s needs a value\n", k); return 2; }
        if (!strcmp(k, "--ms")) o.ms = atof(v);
        else if (!strcmp(k, "--text")) o.text = v;
        else if (!strcmp(k, "--prompt")) o.prompt = v;
        else if (!strcmp(k, "--cases")) snprintf(cases, sizeof cases, "%s", v);
        else { fprintf(stderr, "bench_gpt: unknown option %s\n", k); return 2; }
    }
    if (!(o.ms > 0) || !cases[0]) { fprintf(stderr, "bench_gpt: --ms must be > 0 and --cases given\n"); return 2; }
    printf("{\"ms\": %g, \"results\": [", o.ms);
    int first = 1, fail = 0;
    char *save = NULL;
    for (char *c = strtok_r(cases, ",", &save); c && !fail; c = strtok_r(NULL, ",", &save)) {
        fail = run_case(c, &o, first);
        first = 0;
        fflush(stdout);
    }
    printf("\n]}\n");
    return fail;
}
