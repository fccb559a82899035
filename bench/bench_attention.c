/* bench_attention.c - the native side of `make bench-attention` (bench/attention.mjs): the time
   per call of sx_attention per (mapping, n, d_head) and of the shipped model's forward pass and
   training step per attention kind, in the native build of the core (the same source as the
   wasm builds; simd128 intrinsics lowered to SSE by SIMDe, -O3 -msse4.2). Prints one JSON
   object on stdout.

   usage: bench_attention [--ms 200] [--cases attn:softmax:128:64,model:alpha:forward,...]
                          [--heads 4] [--alpha 1.3] [--lambda 0.5] [--batch 64] [--task reverse]

   A case is attn:<mapping>:<n>:<d_head> (self-attention, n queries and n keys, --heads heads,
   no mask), pat:<pattern>:<mapping>:<n> (one head of d_head 64 under a pattern of
   attention-common.mjs's patternOf(): dense, local, strided, fixed, lsh), model:<kind>:<forward|train> (kind softmax, entmax15, alpha, alpha-span: the
   shipped config of tools/train.c, d_model 32, 4 heads, 2 + 2 layers, d_ff 64, one batch of
   --batch training examples of --task) or peak (bench/peak.c, PEAK_ITERS iterations of 48
   flops per call: this thread's multiply + add throughput right now). Each case: two warm-up calls, then calls until --ms
   milliseconds of CPU time have passed; both the process CPU time and the wall time per call
   are printed (the machines are shared: CPU time is what a busy neighbour disturbs least).
   Inputs are attention.mjs's (the same generator, bit for bit); "check" lets it compare the
   outputs with the wasm builds' ("scale", the same sum of |values|, sets the tolerance): the
   sum of out[i] * (i % 7 + 1) for attention, the logits' for forward, the loss of the first step from the fresh model for train, the flops of one
   call for peak. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simplexity.h"
#include "measure.h"

/* ------------------------------------------------------------------ inputs */
#include "inputs.h"

static int mapping_of(const char *name) {
    if (!strcmp(name, "softmax")) return SX_MAP_SOFTMAX;
    if (!strcmp(name, "sparsemax")) return SX_MAP_SPARSEMAX;
    if (!strcmp(name, "entmax15")) return SX_MAP_ENTMAX15;
    if (!strcmp(name, "entmax")) return SX_MAP_ENTMAX;
    if (!strcmp(name, "fusedmax")) return SX_MAP_FUSEDMAX;
    return -1;
}

typedef struct {
    double ms, alpha, lambda;
    int heads, batch;
    const char *task;
} options;

/* Times `call` (returning a status; measure.h) for ms of CPU time; prints one result object. */
typedef int (*call_fn)(void *ctx);
static int measure(const char *name, call_fn call, void *ctx, const options *o, double check,
                   double scale, int first) {
    bench_timing t;
    const int st = bench_time(call, ctx, o->ms, &t);
    if (st != SX_OK) {
        fprintf(stderr, "bench_attention: %s: status %d (%s)\n", name, st, sx_last_error());
        return 1;
    }
    printf("%s\n  {\"case\": \"%s\", \"calls\": %ld, \"cpu_ms\": %.6f, \"wall_ms\": %.6f, \"check\": %.9g, "
           "\"scale\": %.9g}",
           first ? "" : ",", name, t.calls, t.cpu_ms, t.wall_ms, check, scale);
    fflush(stdout);
    return 0;
}

/* -------------------------------------------------------------------- peak */
float sx_bench_peak(int iters, float m, float a); /* bench/peak.c */
#define PEAK_ITERS 200000
static volatile float peak_sink;
static int peak_call(void *ctx) {
    (void)ctx;
    peak_sink = sx_bench_peak(PEAK_ITERS, 1.0f, 0.0f);
    return SX_OK;
}

/* --------------------------------------------------------------- attention */
typedef struct {
    float *out, *q, *k, *v;
    int n, heads, dh, mapping;
    float param;
} attn_ctx;

static int attn_call(void *p) {
    attn_ctx *a = p;
    return sx_attention(a->out, NULL, a->q, a->k, a->v, NULL, 1, a->n, a->n, a->heads, a->dh,
                        a->mapping, a->param, 0);
}

static int bench_attn(const char *name, const char *map, int n, int dh, const options *o, int first) {
    attn_ctx a = { 0 };
    const size_t count = (size_t)n * o->heads * dh;
    a.n = n;
    a.heads = o->heads;
    a.dh = dh;
    a.mapping = mapping_of(map);
    a.param = a.mapping == SX_MAP_ENTMAX ? (float)o->alpha : a.mapping == SX_MAP_FUSEDMAX ? (float)o->lambda : 0.0f;
    if (a.mapping < 0) {
        fprintf(stderr, "bench_attention: unknown mapping %s\n", map);
        return 1;
    }
    a.out = malloc(count * sizeof(float));
    a.q = malloc(count * sizeof(float));
    a.k = malloc(count * sizeof(float));
    a.v = malloc(count * sizeof(float));
    if (!a.out || !a.q || !a.k || !a.v) {
        fprintf(stderr, "bench_attention: out of memory\n");
        return 1;
    }
    /* the seeds of attention.mjs: q, k, v of (n, d_head) get 3 consecutive seeds */
    const uint32_t seed = 7000u + (uint32_t)n * 10u + (uint32_t)dh;
    fill_scores(a.q, count, seed);
    fill_scores(a.k, count, seed + 1);
    fill_scores(a.v, count, seed + 2);
    int st = attn_call(&a);
    double check = 0.0, scale = 0.0;
    for (size_t i = 0; i < count; i++) {
        check += (double)a.out[i] * (double)(i % 7 + 1);
        scale += fabs((double)a.out[i]) * (double)(i % 7 + 1);
    }
    if (st == SX_OK) st = measure(name, attn_call, &a, o, check, scale, first);
    else fprintf(stderr, "bench_attention: %s: %s\n", name, sx_last_error());
    free(a.out); free(a.q); free(a.k); free(a.v);
    return st != SX_OK;
}

/* -------------------------------------------------------- attention patterns */
/* pat:<kind>:<mapping>:<n>: one head of d_head 64, n x n, under a pattern (sx_attention_pattern)
   or, kind dense, sx_attention; the patterns' sizes are attention-common.mjs's patternOf(). */
#define PAT_DH 64
static int pattern_of(const char *kind, int n, int pat[SX_PATTERN_LEN]) {
    const int l = (int)lround(sqrt((double)n));
    memset(pat, 0, SX_PATTERN_LEN * sizeof(int));
    if (!strcmp(kind, "dense")) pat[0] = SX_PATTERN_DENSE;
    else if (!strcmp(kind, "local")) { pat[0] = SX_PATTERN_LOCAL; pat[1] = 32; }
    else if (!strcmp(kind, "strided")) { pat[0] = SX_PATTERN_STRIDED; pat[1] = l; }
    else if (!strcmp(kind, "fixed")) { pat[0] = SX_PATTERN_FIXED; pat[1] = l; pat[2] = l / 8 > 1 ? l / 8 : 1; }
    else if (!strcmp(kind, "lsh")) {
        pat[0] = SX_PATTERN_LSH; pat[1] = 64; pat[3] = n / 64 > 2 ? n / 64 : 2; pat[4] = 1; pat[5] = 1;
    } else return -1;
    return 0;
}

typedef struct {
    attn_ctx a;
    int pat[SX_PATTERN_LEN];
} pat_ctx;

static int pat_call(void *p) {
    pat_ctx *c = p;
    attn_ctx *a = &c->a;
    if (c->pat[0] == SX_PATTERN_DENSE)
        return sx_attention(a->out, NULL, a->q, a->k, a->v, NULL, 1, a->n, a->n, 1, a->dh,
                            a->mapping, a->param, 0);
    return sx_attention_pattern(a->out, NULL, a->q, a->k, a->v, NULL, 1, a->n, a->n, 1, a->dh,
                                a->mapping, a->param, 0, c->pat);
}

static int bench_pat(const char *name, const char *kind, const char *map, int n, const options *o,
                     int first) {
    pat_ctx c = { 0 };
    attn_ctx *a = &c.a;
    const size_t count = (size_t)n * PAT_DH;
    a->n = n;
    a->heads = 1;
    a->dh = PAT_DH;
    a->mapping = mapping_of(map);
    a->param = a->mapping == SX_MAP_ENTMAX ? (float)o->alpha : a->mapping == SX_MAP_FUSEDMAX ? (float)o->lambda : 0.0f;
    if (a->mapping < 0 || n < 1 || pattern_of(kind, n, c.pat) != 0) {
        fprintf(stderr, "bench_attention: bad pattern case %s\n", name);
        return 1;
    }
    a->out = malloc(count * sizeof(float));
    a->q = malloc(count * sizeof(float));
    a->k = malloc(count * sizeof(float));
    a->v = malloc(count * sizeof(float));
    if (!a->out || !a->q || !a->k || !a->v) {
        fprintf(stderr, "bench_attention: out of memory\n");
        return 1;
    }
    const uint32_t seed = 9000u + (uint32_t)n; /* attention-engine.mjs's patCase */
    fill_scores(a->q, count, seed);
    fill_scores(a->k, count, seed + 1);
    fill_scores(a->v, count, seed + 2);
    int st = pat_call(&c);
    double check = 0.0, scale = 0.0;
    for (size_t i = 0; i < count; i++) {
        check += (double)a->out[i] * (double)(i % 7 + 1);
        scale += fabs((double)a->out[i]) * (double)(i % 7 + 1);
    }
    if (st == SX_OK) st = measure(name, pat_call, &c, o, check, scale, first);
    else fprintf(stderr, "bench_attention: %s: %s\n", name, sx_last_error());
    free(a->out); free(a->q); free(a->k); free(a->v);
    return st != SX_OK;
}

/* ------------------------------------------------------------------- model */
typedef struct {
    sx_model *m;
    int *src, *tgt, *din;
    int T, B;
} model_ctx;

static int forward_call(void *p) {
    model_ctx *c = p;
    return sx_model_forward(c->m, c->src, c->T, c->din, c->T - 1, c->B);
}
static int train_call(void *p) {
    model_ctx *c = p;
    float loss;
    return sx_model_train_step(c->m, &loss, c->src, c->T, c->tgt, c->T, c->B, 3e-3f);
}

static int bench_model(const char *name, const char *kind, const char *what, const options *o, int first) {
    int task = -1;
    for (int t = 0; t < sx_task_count(); t++)
        if (!strcmp(o->task, sx_task_name(t))) task = t;
    int map, span;
    if (!strcmp(kind, "softmax")) map = SX_MAP_SOFTMAX, span = 0;
    else if (!strcmp(kind, "entmax15")) map = SX_MAP_ENTMAX15, span = 0;
    else if (!strcmp(kind, "alpha")) map = SX_MAP_ENTMAX_LEARNED, span = 0;
    else if (!strcmp(kind, "alpha-span")) map = SX_MAP_ENTMAX_LEARNED, span = 1;
    else map = -1, span = 0;
    if (task < 0 || map < 0 || (strcmp(what, "forward") && strcmp(what, "train"))) {
        fprintf(stderr, "bench_attention: bad model case %s (task %s)\n", name, o->task);
        return 1;
    }
    /* tools/train.c's shipped config and defaults */
    const int T = sx_task_width(task), B = o->batch, L = 2;
    int cfg[SX_MODEL_MAP + 2] = { 0 };
    cfg[SX_MODEL_VOCAB] = sx_task_vocab_size(task);
    cfg[SX_MODEL_D_MODEL] = 32;
    cfg[SX_MODEL_N_HEAD] = 4;
    cfg[SX_MODEL_N_LAYER] = L;
    cfg[SX_MODEL_D_FF] = 64;
    cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = span ? T : 0;
    cfg[SX_MODEL_SPAN_RAMP] = 3;
    cfg[SX_MODEL_SEED] = 1;
    cfg[SX_MODEL_MAX_BATCH] = B;
    cfg[SX_MODEL_MAP] = cfg[SX_MODEL_MAP + 1] = map;
    const float fcfg[3] = { 0.002f, 1.0f, 10.0f };
    model_ctx c = { NULL, NULL, NULL, NULL, T, B };
    if (sx_model_create(&c.m, cfg, SX_MODEL_MAP + L, fcfg, 3) != SX_OK) {
        fprintf(stderr, "bench_attention: %s: %s\n", name, sx_last_error());
        return 1;
    }
    c.src = malloc(sizeof(int) * (size_t)B * T);
    c.tgt = malloc(sizeof(int) * (size_t)B * T);
    c.din = malloc(sizeof(int) * (size_t)B * (T - 1));
    if (!c.src || !c.tgt || !c.din || sx_task_generate(c.src, c.tgt, task, SX_TASK_TRAIN, 1, 0, B, T) != SX_OK) {
        fprintf(stderr, "bench_attention: %s: inputs: %s\n", name, sx_last_error());
        return 1;
    }
    for (int r = 0; r < B; r++) memcpy(c.din + (size_t)r * (T - 1), c.tgt + (size_t)r * T, sizeof(int) * (T - 1));
    double check = 0.0, scale = 0.0;
    int st;
    if (!strcmp(what, "forward")) {
        st = forward_call(&c);
        const float *lg = sx_model_logits(c.m);
        const size_t nl = (size_t)B * (T - 1) * cfg[SX_MODEL_VOCAB];
        for (size_t i = 0; st == SX_OK && i < nl; i++) {
            check += (double)lg[i] * (double)(i % 7 + 1);
            scale += fabs((double)lg[i]) * (double)(i % 7 + 1);
        }
    } else {
        float loss = 0.0f;
        st = sx_model_loss(c.m, &loss, c.src, T, c.tgt, T, B);
        check = loss;
        scale = fabs(loss);
    }
    if (st == SX_OK)
        st = measure(name, !strcmp(what, "forward") ? forward_call : train_call, &c, o, check, scale, first);
    else fprintf(stderr, "bench_attention: %s: %s\n", name, sx_last_error());
    sx_model_free(c.m);
    free(c.src); free(c.tgt); free(c.din);
    return st != SX_OK;
}

/* -------------------------------------------------------------------- main */
int main(int argc, char **argv) {
    options o = { 200.0, 1.3, 0.5, 4, 64, "reverse" };
    static char cases[8192] = "attn:softmax:128:64";
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *k = argv[a], *v = argv[a + 1];
        if (!strcmp(k, "--ms")) o.ms = atof(v);
        else if (!strcmp(k, "--cases")) snprintf(cases, sizeof cases, "%s", v);
        else if (!strcmp(k, "--heads")) o.heads = atoi(v);
        else if (!strcmp(k, "--alpha")) o.alpha = atof(v);
        else if (!strcmp(k, "--lambda")) o.lambda = atof(v);
        else if (!strcmp(k, "--batch")) o.batch = atoi(v);
        else if (!strcmp(k, "--task")) o.task = v;
        else { fprintf(stderr, "bench_attention: unknown option %s\n", k); return 2; }
    }
    if (argc % 2 == 0) { fprintf(stderr, "bench_attention: option %s needs a value\n", argv[argc - 1]); return 2; }
    printf("{\"ms\": %g, \"heads\": %d, \"batch\": %d, \"results\": [", o.ms, o.heads, o.batch);
    int first = 1, fail = 0;
    for (char *c = strtok(cases, ","); c && !fail; c = strtok(NULL, ",")) {
        char name[128], f[4][32] = { "", "", "", "" };
        snprintf(name, sizeof name, "%s", c);
        int nf = 0;
        for (char *s = c, *colon; nf < 4; s = colon + 1) {
            colon = strchr(s, ':');
            size_t len = colon ? (size_t)(colon - s) : strlen(s);
            snprintf(f[nf++], sizeof f[0], "%.*s", (int)len, s);
            if (!colon) break;
        }
        if (!strcmp(f[0], "attn") && nf == 4) fail = bench_attn(name, f[1], atoi(f[2]), atoi(f[3]), &o, first);
        else if (!strcmp(f[0], "model") && nf == 3) fail = bench_model(name, f[1], f[2], &o, first);
        else if (!strcmp(f[0], "pat") && nf == 4) fail = bench_pat(name, f[1], f[2], atoi(f[3]), &o, first);
        else if (!strcmp(f[0], "peak") && nf == 1) fail = measure(name, peak_call, NULL, &o, (double)PEAK_ITERS * 48, 0.0, first);
        else { fprintf(stderr, "bench_attention: bad case %s\n", name); fail = 1; }
        first = 0;
    }
    printf("\n]}\n");
    return fail;
}
