/* rnn-variance.c - soft, sparse and hard attention compared on one task (issue 24, item 4):
   the spread of hard attention's gradient estimators against the exact gradients of soft and
   sparse attention, at the same parameters and on the same batch, plus each method's training
   curve and the sparse mappings' support. Built on the public sx_rnn_* calls only.

     build/tools/rnn-variance [--task reverse] [--seed N] [--steps N] [--total N] [--mid N]
                              [--draws K] [--batch N] [--val N] [--every N] [--shipped FILE]
                              [--quiet]

   1. Six models of one configuration (the trainer's defaults: embed 32, hidden 64, attention
      hidden 32, batch 32) and one initialisation (--seed): additive attention with softmax,
      sparsemax and 1.5-entmax, and hard attention (policy softmax) trained by REINFORCE with its
      moving-average baseline, straight-through Gumbel-softmax (tau 1) and the straight-through
      argmax. Each trains --steps steps as `build/tools/train --arch rnn --max-steps <total>`
      does (its schedule and accuracy are tools/train-rnn.c's, linked in; the same examples,
      so the softmax run's losses are the trainer's), recording the loss (the trainer's moving
      average) and the greedy exact accuracy on --val held-out rows (seed
      1000 + seed, the trainer's validation rows) at step 0, --mid and --steps; and, for the
      drawn curves (<sx-hard>), the loss and that accuracy every --every steps (default 100) and
      at the last ("trace": the evaluations read the model only, so the runs are the same).
   2. The softmax run is the reference: its parameters at step 0, --mid and --steps (and, with
      --shipped, a shipped checkpoint's) are copied into all six models in turn, and each gives
      its gradient of the mean cross-entropy on one fixed batch of held-out rows (seed
      3000 + seed) --draws times (sx_rnn_backward; hard attention samples afresh each time, its
      REINFORCE baseline first settles over 32 draws on that batch). Of the attention-side
      parameters (the tensor "att": W_q, W_k, w_v) it reports per method: the norm of the mean
      gradient, the relative variance tr(Cov) / |mean|^2 (unbiased covariance over the draws),
      the cosine of the mean and the mean cosine of one draw with the exact softmax gradient,
      and the cosine of the mean with REINFORCE's mean and the distance to it relative to its
      norm (REINFORCE is unbiased for hard attention's expected loss, whose exact gradient sums
      over every choice of positions; its own standard error, sqrt(tr(Cov) / K) / |mean|, is the
      noise floor of that distance), and for the additive models the mean support of the
      attention rows (nonzero weights per decoder step with a label) and the fraction of steps
      whose support is one position.
   One JSON object on stdout (tools/rnn-variance.mjs writes the README's table from it); progress
   on stderr. Deterministic: same flags, same output (but "seconds"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "simplexity.h"

enum { N_METHODS = 6, N_MARKS = 3, MAX_POINTS = 4, WARM_DRAWS = 32, MAX_TRACE = 257 };

typedef struct {
    const char *name;
    int attention, map, estimator, stochastic;
} method;

static const method methods[N_METHODS] = {
    { "softmax", SX_RNN_ADDITIVE, SX_MAP_SOFTMAX, 0, 0 },
    { "sparsemax", SX_RNN_ADDITIVE, SX_MAP_SPARSEMAX, 0, 0 },
    { "entmax15", SX_RNN_ADDITIVE, SX_MAP_ENTMAX15, 0, 0 },
    { "reinforce", SX_RNN_HARD, SX_MAP_SOFTMAX, SX_RNN_REINFORCE, 1 },
    { "gumbel", SX_RNN_HARD, SX_MAP_SOFTMAX, SX_RNN_GUMBEL, 1 },
    { "straight", SX_RNN_HARD, SX_MAP_SOFTMAX, SX_RNN_STRAIGHT, 0 },
};

typedef struct {
    const char *task, *shipped;
    int seed, steps, total, mid, draws, batch, n_val, every, quiet;
    int task_id, T;
} options;

/* Per method and point: the statistics of the attention-side gradient. */
typedef struct {
    double norm, relvar, cos_soft, cos_soft_one, cos_reinforce, dist_reinforce, floor;
    double support, support1;
} stats;

/* Per method: the training curve at the marks 0, mid, steps, and its trace every --every steps. */
typedef struct {
    double loss[N_MARKS], acc[N_MARKS], support[N_MARKS], support1[N_MARKS];
    int n_trace, trace_step[MAX_TRACE];
    double trace_loss[MAX_TRACE], trace_acc[MAX_TRACE];
} curve;

static void usage(void) {
    fprintf(stderr, "usage: rnn-variance [--task reverse] [--seed N] [--steps N] [--total N] [--mid N]\n"
                    "                    [--draws K] [--batch N] [--val N] [--every N] [--shipped FILE]\n"
                    "                    [--quiet]\n");
    exit(2);
}

static void fail(const char *what) {
    fprintf(stderr, "rnn-variance: %s: %s\n", what, sx_last_error());
    exit(1);
}

static void parse(options *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT_I(name, field) if (!strcmp(a, name) && v) { o->field = atoi(v); i++; continue; }
        if (!strcmp(a, "--task") && v) { o->task = argv[++i]; continue; }
        if (!strcmp(a, "--shipped") && v) { o->shipped = argv[++i]; continue; }
        OPT_I("--seed", seed) OPT_I("--steps", steps) OPT_I("--total", total) OPT_I("--mid", mid)
        OPT_I("--draws", draws) OPT_I("--batch", batch) OPT_I("--val", n_val) OPT_I("--every", every)
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        usage();
    }
    o->task_id = -1;
    for (int t = 0; t < sx_task_count(); t++)
        if (!strcmp(o->task, sx_task_name(t))) o->task_id = t;
    if (o->task_id < 0 || o->steps < 1 || o->total < o->steps || o->mid < 1 || o->mid >= o->steps ||
        o->draws < 2 || o->batch < 1 || o->n_val < 1 || o->every < 1 ||
        o->steps / o->every + 2 > MAX_TRACE)
        usage();
    o->T = sx_task_width(o->task_id);
}

static sx_rnn *create(const options *o, const method *me) {
    int cfg[SX_RNN_N_CFG];
    cfg[SX_RNN_VOCAB] = sx_task_vocab_size(o->task_id);
    cfg[SX_RNN_EMBED] = 32;
    cfg[SX_RNN_HIDDEN] = 64;
    cfg[SX_RNN_ATTN_HIDDEN] = 32;
    cfg[SX_RNN_MAX_LEN] = o->T;
    cfg[SX_RNN_SEED] = o->seed;
    cfg[SX_RNN_MAX_BATCH] = o->batch;
    cfg[SX_RNN_ATTENTION] = me->attention;
    cfg[SX_RNN_MAP] = me->map;
    cfg[SX_RNN_ESTIMATOR] = me->estimator;
    const float fcfg[4] = { 1.5f, 1.0f, 1.0f, 1.0f }; /* the trainer's: tau 1 */
    sx_rnn *m = NULL;
    if (sx_rnn_create(&m, cfg, SX_RNN_N_CFG, fcfg, 4) != SX_OK) fail("create");
    return m;
}

/* ============================================================== training */
/* tools/train-rnn.c (linked in): the trainer's held-out accuracy and learning-rate schedule. */
double train_rnn_accuracy(sx_rnn *m, int task, unsigned seed, int n, int T, int B, int *src,
                          int *tgt, int *out);
double train_rnn_lr(int step, int total, float lr, float lr_min, int warmup);

static void support(sx_rnn *m, const int *tgt, int T, int B, double *mean, double *one);

/* Trains m for o->steps steps; at the marks 0, mid, steps: c->loss, c->acc, the support of the
   attention rows on the fixed batch (msrc, mtgt), and snaps[k] (if not NULL) the parameters; every
   o->every steps and at the last: c's trace (the loss and the held-out accuracy). */
static void train(sx_rnn *m, const options *o, curve *c, float **snaps, const int *msrc,
                  const int *mtgt, int *src, int *tgt, int *out) {
    const int marks[N_MARKS] = { 0, o->mid, o->steps }, np = sx_rnn_num_params(m);
    double ema = 0.0;
    c->n_trace = 0;
    for (int step = 0, k = 0; step <= o->steps; step++) {
        const int mark = step == marks[k], trace = step % o->every == 0 || step == o->steps;
        if (mark || trace) {
            if (mark && snaps) memcpy(snaps[k], sx_rnn_params(m), sizeof(float) * np);
            if (step == 0) { /* the loss before any update */
                sx_task_generate(src, tgt, o->task_id, SX_TASK_TRAIN, (unsigned)o->seed, 0, o->batch, o->T);
                float l0 = 0.0f;
                if (sx_rnn_loss(m, &l0, src, o->T, tgt, o->T, o->batch) != SX_OK) fail("loss");
                ema = l0;
            }
            const double acc = train_rnn_accuracy(m, o->task_id, 1000u + (unsigned)o->seed, o->n_val,
                                                  o->T, o->batch, src, tgt, out);
            if (trace) {
                c->trace_step[c->n_trace] = step;
                c->trace_loss[c->n_trace] = ema;
                c->trace_acc[c->n_trace++] = acc;
            }
            if (mark) {
                c->loss[k] = ema;
                c->acc[k] = acc;
                if (sx_rnn_loss(m, NULL, msrc, o->T, mtgt, o->T, o->batch) != SX_OK) fail("loss");
                support(m, mtgt, o->T, o->batch, &c->support[k], &c->support1[k]);
                k++;
            }
        }
        if (step == o->steps) break;
        sx_task_generate(src, tgt, o->task_id, SX_TASK_TRAIN, (unsigned)o->seed, step * o->batch,
                         o->batch, o->T);
        float l = 0.0f;
        const double lr = train_rnn_lr(step, o->total, 3e-3f, 3e-4f, 100); /* the trainer's floats */
        if (sx_rnn_train_step(m, &l, src, o->T, tgt, o->T, o->batch, (float)lr) != SX_OK) fail("train step");
        ema = step ? 0.95 * ema + 0.05 * l : l;
    }
}

/* ============================================================ measurement */
static double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
static double cosine(const double *a, const double *b, int n) {
    const double d = sqrt(dot(a, a, n) * dot(b, b, n));
    return d > 0.0 ? dot(a, b, n) / d : 0.0;
}

/* Mean support of the attention rows of the last pass over decoder steps with a label, and the
   fraction of them with support 1. */
static void support(sx_rnn *m, const int *tgt, int T, int B, double *mean, double *one) {
    const float *att = sx_rnn_attention(m);
    const int Tt = sx_rnn_attention_shape(m, 1), Ts = sx_rnn_attention_shape(m, 2);
    long rows = 0, nz = 0, ones = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < Tt; t++) {
            if (tgt[b * T + t + 1] == SX_TOKEN_PAD) continue;
            int k = 0;
            for (int j = 0; j < Ts; j++) k += att[((size_t)b * Tt + t) * Ts + j] != 0.0f;
            rows++, nz += k, ones += k == 1;
        }
    *mean = rows ? (double)nz / rows : 0.0;
    *one = rows ? (double)ones / rows : 0.0;
}

/* K draws of m's attention-side gradient on (src, tgt): mean (n) and the trace of the unbiased
   covariance; one[k] the cosine of draw k with ref (NULL: none). Welford, in doubles. */
static double draws(sx_rnn *m, const options *o, const int *src, const int *tgt, int K, int off,
                    int n, double *mean, double *m2, double *g, const double *ref, double *cos_one) {
    memset(mean, 0, sizeof(double) * n);
    memset(m2, 0, sizeof(double) * n);
    *cos_one = 0.0;
    for (int k = 0; k < K; k++) {
        if (sx_rnn_backward(m, NULL, src, o->T, tgt, o->T, o->batch) != SX_OK) fail("backward");
        const float *gr = sx_rnn_grads(m) + off;
        for (int i = 0; i < n; i++) {
            g[i] = gr[i];
            const double d = g[i] - mean[i];
            mean[i] += d / (k + 1);
            m2[i] += d * (g[i] - mean[i]);
        }
        if (ref) *cos_one += cosine(g, ref, n) / K;
    }
    double tr = 0.0;
    for (int i = 0; i < n; i++) tr += m2[i] / (K - 1);
    return tr;
}

/* Every method at the parameters theta on the fixed batch: st[method]. */
static void measure(sx_rnn **mods, const options *o, const float *theta, const int *src,
                    const int *tgt, stats *st) {
    const int np = sx_rnn_num_params(mods[0]);
    int att = 0;
    while (strcmp(sx_rnn_tensor_name(att), "att")) att++;
    const int off = sx_rnn_tensor_offset(mods[0], att), n = sx_rnn_tensor_size(mods[0], att);
    double *mean = calloc((size_t)n * (N_METHODS + 2), sizeof(double));
    double *m2 = mean + (size_t)n * N_METHODS, *g = m2 + n;
    double tr[N_METHODS];
    for (int i = 0; i < N_METHODS; i++) {
        sx_rnn *m = mods[i];
        memcpy(sx_rnn_params(m), theta, sizeof(float) * np);
        const int K = methods[i].stochastic ? o->draws : 2; /* deterministic: two equal draws */
        if (methods[i].estimator == SX_RNN_REINFORCE && methods[i].attention == SX_RNN_HARD)
            for (int w = 0; w < WARM_DRAWS; w++) /* the baseline settles on this batch */
                if (sx_rnn_backward(m, NULL, src, o->T, tgt, o->T, o->batch) != SX_OK) fail("backward");
        tr[i] = draws(m, o, src, tgt, K, off, n, mean + (size_t)i * n, m2, g, i ? mean : NULL,
                      &st[i].cos_soft_one);
        if (!methods[i].stochastic && tr[i] != 0.0) { /* two draws of an exact gradient differ */
            fprintf(stderr, "rnn-variance: %s's gradient is not deterministic\n", methods[i].name);
            exit(1);
        }
        if (!i) st[i].cos_soft_one = 1.0;
        st[i].support = st[i].support1 = -1.0;
        if (methods[i].attention == SX_RNN_ADDITIVE)
            support(m, tgt, o->T, o->batch, &st[i].support, &st[i].support1);
    }
    const double *soft = mean, *rf = mean + (size_t)3 * n, nrf = sqrt(dot(rf, rf, n));
    for (int i = 0; i < N_METHODS; i++) {
        const double *mu = mean + (size_t)i * n, nn = dot(mu, mu, n);
        double d2 = 0.0;
        for (int k = 0; k < n; k++) d2 += (mu[k] - rf[k]) * (mu[k] - rf[k]);
        st[i].norm = sqrt(nn);
        st[i].relvar = nn > 0.0 ? tr[i] / nn : 0.0;
        st[i].cos_soft = cosine(mu, soft, n);
        st[i].cos_reinforce = cosine(mu, rf, n);
        st[i].dist_reinforce = nrf > 0.0 ? sqrt(d2) / nrf : 0.0;
        st[i].floor = nrf > 0.0 ? sqrt(tr[3] / o->draws) / nrf : 0.0;
    }
    free(mean);
}

/* ================================================================= output */
static void print_stats(const stats *s) {
    for (int i = 0; i < N_METHODS; i++)
        printf("%s{\"method\":\"%s\",\"norm\":%.6g,\"relvar\":%.6g,\"cos_soft\":%.4f,"
               "\"cos_soft_one\":%.4f,\"cos_reinforce\":%.4f,\"dist_reinforce\":%.4f,"
               "\"support\":%.4f,\"support1\":%.4f}",
               i ? "," : "", methods[i].name, s[i].norm, s[i].relvar, s[i].cos_soft,
               s[i].cos_soft_one, s[i].cos_reinforce, s[i].dist_reinforce, s[i].support, s[i].support1);
}

static void print_json(const options *o, const char *const *names, const int *steps, int n_points,
                       stats (*st)[N_METHODS], const curve *cv, double seconds) {
    printf("{\"task\":\"%s\",\"seed\":%d,\"steps\":%d,\"total\":%d,\"mid\":%d,\"draws\":%d,"
           "\"batch\":%d,\"val\":%d,\"warm_draws\":%d,\"seconds\":%.1f,\"config\":{\"embed\":32,"
           "\"hidden\":64,\"attn_hidden\":32,\"temperature\":1,\"baseline\":0.9},\"points\":[",
           o->task, o->seed, o->steps, o->total, o->mid, o->draws, o->batch, o->n_val, WARM_DRAWS,
           seconds);
    for (int p = 0; p < n_points; p++) {
        printf("%s{\"name\":\"%s\",\"step\":%d,\"floor\":%.4f,\"methods\":[", p ? "," : "", names[p],
               steps[p], st[p][0].floor);
        print_stats(st[p]);
        printf("]}");
    }
    printf("],\"curves\":[");
    const int marks[N_MARKS] = { 0, o->mid, o->steps };
    for (int i = 0; i < N_METHODS; i++) {
        printf("%s{\"method\":\"%s\",\"points\":[", i ? "," : "", methods[i].name);
        for (int k = 0; k < N_MARKS; k++)
            printf("%s{\"step\":%d,\"loss\":%.5f,\"val_accuracy\":%.4f,\"support\":%.4f,"
                   "\"support1\":%.4f}", k ? "," : "", marks[k], cv[i].loss[k], cv[i].acc[k],
                   cv[i].support[k], cv[i].support1[k]);
        printf("],\"trace\":[");
        for (int k = 0; k < cv[i].n_trace; k++)
            printf("%s{\"step\":%d,\"loss\":%.5f,\"val_accuracy\":%.4f}", k ? "," : "",
                   cv[i].trace_step[k], cv[i].trace_loss[k], cv[i].trace_acc[k]);
        printf("]}");
    }
    printf("]}\n");
}

/* The shipped checkpoint's parameters into theta (its config must match the models'). */
static void load_shipped(const char *path, float *theta, int np) {
    FILE *f = fopen(path, "rb");
    static unsigned char buf[1 << 20];
    const size_t size = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    sx_rnn *m = NULL;
    if (!size || sx_rnn_load(&m, buf, (int)size) != SX_OK) fail(path);
    if (sx_rnn_num_params(m) != np) {
        fprintf(stderr, "rnn-variance: %s has %d parameters, not %d\n", path, sx_rnn_num_params(m), np);
        exit(1);
    }
    memcpy(theta, sx_rnn_params(m), sizeof(float) * np);
    sx_rnn_free(m);
}

static double seconds(clock_t t0) { return (double)(clock() - t0) / CLOCKS_PER_SEC; }

int main(int argc, char **argv) {
    options o = { "reverse", NULL, 1, 1500, 3000, 300, 256, 32, 500, 100, 0, 0, 0 };
    parse(&o, argc, argv);
    const clock_t t0 = clock();
    const size_t rows = (size_t)o.batch * o.T;
    int *src = malloc(sizeof(int) * rows * 3), *tgt = src + rows, *out = tgt + rows;
    sx_rnn *mods[N_METHODS];
    for (int i = 0; i < N_METHODS; i++) mods[i] = create(&o, &methods[i]);
    const int np = sx_rnn_num_params(mods[0]);
    float *snap[MAX_POINTS];
    for (int p = 0; p < MAX_POINTS; p++) snap[p] = malloc(sizeof(float) * np);
    int *msrc = malloc(sizeof(int) * rows * 2), *mtgt = msrc + rows; /* the measured batch */
    sx_task_generate(msrc, mtgt, o.task_id, SX_TASK_HELDOUT, 3000u + (unsigned)o.seed, 0, o.batch, o.T);
    curve cv[N_METHODS];
    for (int i = 0; i < N_METHODS; i++) { /* fresh models: the same initialisation */
        sx_rnn *m = create(&o, &methods[i]);
        train(m, &o, &cv[i], i ? NULL : snap, msrc, mtgt, src, tgt, out);
        sx_rnn_free(m);
        if (!o.quiet)
            fprintf(stderr, "rnn-variance: trained %-9s loss %.4f  held-out %.1f%%  %.0fs\n",
                    methods[i].name, cv[i].loss[2], 100.0 * cv[i].acc[2], seconds(t0));
    }
    const char *names[MAX_POINTS] = { "init", "mid", "end", "shipped" };
    const int steps[MAX_POINTS] = { 0, o.mid, o.steps, -1 };
    const int n_points = o.shipped ? 4 : 3;
    if (o.shipped) load_shipped(o.shipped, snap[3], np);
    stats st[MAX_POINTS][N_METHODS];
    for (int p = 0; p < n_points; p++) {
        measure(mods, &o, snap[p], msrc, mtgt, st[p]);
        if (!o.quiet)
            fprintf(stderr, "rnn-variance: measured at %s  %.0fs\n", names[p], seconds(t0));
    }
    print_json(&o, names, steps, n_points, st, cv, seconds(t0));
    for (int i = 0; i < N_METHODS; i++) sx_rnn_free(mods[i]);
    for (int p = 0; p < MAX_POINTS; p++) free(snap[p]);
    free(src);
    free(msrc);
    return 0;
}
