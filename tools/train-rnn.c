/* train-rnn.c - train one recurrent encoder-decoder (core/src/rnn.c; issue 24) natively and
   deterministically: `build/tools/train --arch rnn ...` (train.c hands every --arch rnn run here).

     build/tools/train --arch rnn --task reverse --attention none|additive|hard
                       [--map softmax|sparsemax|entmax15|entmax|alpha] [--alpha X]
                       [--estimator reinforce|gumbel|straight] [--temperature X] [--seed N]
                       [--max-steps N] [--eval N] [--batch N] [--embed N] [--hidden N]
                       [--attn-hidden N] [--lr X] [--lr-min X] [--warmup N] [--stop X] [--val N]
                       [--test N] [--out FILE] [--quiet]

   Trains on fresh examples of the train split (batch b at step s is examples s b .. s b + b - 1
   of the split under --seed), with the Transformer trainer's schedule (linear warm-up, cosine
   decay to --lr-min); every --eval steps the greedy exact-sequence accuracy on --val held-out
   examples (seed 1000 + --seed), stopping once it reaches --stop. Then greedy decoding on --test
   held-out examples (seed 2000 + --seed: the same rows for every variant of one seed), and one
   line of JSON on stdout: the run, the overall exact accuracy, and per source length (in
   characters) the rows, their exact-sequence accuracy and the token accuracy (the fraction of
   answer positions, EOS included, decoded right). --out FILE writes the trained model's float16
   checkpoint (core/src/rnn_checkpoint.c). Progress goes to stderr. Same seed, same flags: same
   output (but "seconds"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "simplexity.h"

typedef struct {
    const char *task, *attention, *map, *estimator, *out;
    int seed, max_steps, eval_every, batch, embed, hidden, attn_hidden, warmup, n_val, n_test, quiet;
    float lr, lr_min, stop, alpha, temperature;
} rnn_options;

#define MAX_CHARS 16

static void usage(void) {
    fprintf(stderr,
            "usage: train --arch rnn --task reverse|sort|after_marker|date --attention none|additive|hard\n"
            "             [--map softmax|sparsemax|entmax15|entmax|alpha] [--alpha X]\n"
            "             [--estimator reinforce|gumbel|straight] [--temperature X] [--seed N]\n"
            "             [--max-steps N] [--eval N] [--batch N] [--embed N] [--hidden N]\n"
            "             [--attn-hidden N] [--lr X] [--lr-min X] [--warmup N] [--stop X]\n"
            "             [--val N] [--test N] [--out FILE] [--quiet]\n");
    exit(2);
}

/* Index of name in a NULL-terminated list, or usage. */
static int pick(const char *name, const char *const *list) {
    for (int i = 0; name && list[i]; i++)
        if (!strcmp(name, list[i])) return i;
    usage();
    return -1;
}

static void parse(rnn_options *o, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT_I(name, field) if (!strcmp(a, name) && v) { o->field = atoi(v); i++; continue; }
#define OPT_F(name, field) if (!strcmp(a, name) && v) { o->field = (float)atof(v); i++; continue; }
#define OPT_S(name, field) if (!strcmp(a, name) && v) { o->field = v; i++; continue; }
        if (!strcmp(a, "--arch") && v && !strcmp(v, "rnn")) { i++; continue; }
        OPT_S("--task", task) OPT_S("--attention", attention) OPT_S("--map", map)
        OPT_S("--estimator", estimator) OPT_S("--out", out)
        OPT_I("--seed", seed) OPT_I("--max-steps", max_steps) OPT_I("--eval", eval_every)
        OPT_I("--batch", batch) OPT_I("--embed", embed) OPT_I("--hidden", hidden)
        OPT_I("--attn-hidden", attn_hidden) OPT_I("--warmup", warmup) OPT_I("--val", n_val)
        OPT_I("--test", n_test)
        OPT_F("--lr", lr) OPT_F("--lr-min", lr_min) OPT_F("--stop", stop) OPT_F("--alpha", alpha)
        OPT_F("--temperature", temperature)
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        usage();
    }
}

static sx_rnn *create(const rnn_options *o, int task, int T) {
    static const char *const attns[] = { "none", "additive", "hard", NULL };
    static const char *const maps[] = { "softmax", "sparsemax", "entmax15", "entmax", "alpha", NULL };
    static const char *const ests[] = { "reinforce", "gumbel", "straight", NULL };
    int cfg[SX_RNN_N_CFG];
    cfg[SX_RNN_VOCAB] = sx_task_vocab_size(task);
    cfg[SX_RNN_EMBED] = o->embed;
    cfg[SX_RNN_HIDDEN] = o->hidden;
    cfg[SX_RNN_ATTN_HIDDEN] = o->attn_hidden;
    cfg[SX_RNN_MAX_LEN] = T;
    cfg[SX_RNN_SEED] = o->seed;
    cfg[SX_RNN_MAX_BATCH] = o->batch;
    cfg[SX_RNN_ATTENTION] = pick(o->attention, attns);
    cfg[SX_RNN_MAP] = pick(o->map, maps); /* the names in SX_MAP_* order */
    cfg[SX_RNN_ESTIMATOR] = pick(o->estimator, ests);
    const float fcfg[4] = { o->alpha, 1.0f, 1.0f, o->temperature };
    sx_rnn *m = NULL;
    if (sx_rnn_create(&m, cfg, SX_RNN_N_CFG, fcfg, 4) != SX_OK) {
        fprintf(stderr, "train: %s\n", sx_last_error());
        exit(1);
    }
    return m;
}

/* Characters of a source row (before EOS). */
static int src_chars(const int *row, int T) {
    int n = 0;
    while (n < T && row[n] != SX_TOKEN_EOS) n++;
    return n;
}

/* Greedy decoding of n held-out examples (seed): exact rows and right answer positions (up to
   and including EOS) per source length, into right[len], tok[len], toks[len], rows[len]. */
static void evaluate(sx_rnn *m, int task, unsigned seed, int n, int T, int B, int *src, int *tgt,
                     int *out, int *rows, int *right, int *tok, int *toks) {
    for (int s = 0; s < n; s += B) {
        const int cnt = n - s < B ? n - s : B;
        sx_task_generate(src, tgt, task, SX_TASK_HELDOUT, seed, s, cnt, T);
        if (sx_rnn_generate(m, out, T, src, T, cnt) != SX_OK) {
            fprintf(stderr, "train: generate: %s\n", sx_last_error());
            exit(1);
        }
        for (int r = 0; r < cnt; r++) {
            const int len = src_chars(src + r * T, T);
            int ok = 1;
            for (int t = 1; t < T; t++) {
                const int good = out[r * T + t] == tgt[r * T + t];
                ok &= good;
                tok[len] += good;
                toks[len]++;
                if (tgt[r * T + t] == SX_TOKEN_EOS) break;
            }
            rows[len]++;
            right[len] += ok;
        }
    }
}

/* The greedy exact-sequence accuracy on n held-out rows of seed (also tools/rnn-variance.c's). */
double train_rnn_accuracy(sx_rnn *m, int task, unsigned seed, int n, int T, int B, int *src,
                          int *tgt, int *out) {
    int rows[MAX_CHARS + 1] = { 0 }, right[MAX_CHARS + 1] = { 0 };
    int tok[MAX_CHARS + 1] = { 0 }, toks[MAX_CHARS + 1] = { 0 }, sum = 0;
    evaluate(m, task, seed, n, T, B, src, tgt, out, rows, right, tok, toks);
    for (int k = 0; k <= MAX_CHARS; k++) sum += right[k];
    return (double)sum / n;
}

/* The learning rate at step: linear warm-up over warmup steps, cosine decay from lr to lr_min at
   total (also tools/rnn-variance.c's). lr and lr_min are the options' floats and lr - lr_min is
   a float difference, as the loop computed it when the shipped .sxrn files were trained: in
   double it rounds differently and they no longer retrain byte for byte (make models-check). */
double train_rnn_lr(int step, int total, float lr, float lr_min, int warmup) {
    const double prog = (double)step / total; /* unchanged: tests/golden/rnn-native.json holds its losses */
    double r = lr_min + 0.5 * (lr - lr_min) * (1.0 + cos(3.14159265358979 * prog));
    if (step < warmup) r *= (step + 1.0) / warmup;
    return r;
}

/* The training loop; returns the steps taken, the last loss EMA and validation accuracy. */
static int train(sx_rnn *m, const rnn_options *o, int task, int T, int *src, int *tgt, int *out,
                 double *ema, double *val) {
    const clock_t t0 = clock();
    int step = 0;
    while (step < o->max_steps) {
        const double lr = train_rnn_lr(step, o->max_steps, o->lr, o->lr_min, o->warmup);
        sx_task_generate(src, tgt, task, SX_TASK_TRAIN, (unsigned)o->seed, step * o->batch, o->batch, T);
        float loss = 0.0f;
        if (sx_rnn_train_step(m, &loss, src, T, tgt, T, o->batch, (float)lr) != SX_OK) {
            fprintf(stderr, "train: step %d: %s\n", step, sx_last_error());
            exit(1);
        }
        *ema = step ? 0.95 * *ema + 0.05 * loss : loss;
        step++;
        if (step % o->eval_every == 0 || step == o->max_steps) {
            *val = train_rnn_accuracy(m, task, 1000u + (unsigned)o->seed, o->n_val, T, o->batch, src,
                                      tgt, out);
            if (!o->quiet)
                fprintf(stderr, "rnn %s %s step %5d  loss %.4f  held-out %.1f%%  %.1fs\n", o->task,
                        o->attention, step, *ema, 100.0 * *val, (double)(clock() - t0) / CLOCKS_PER_SEC);
            if (*val >= o->stop) break;
        }
    }
    return step;
}

static void report(const rnn_options *o, sx_rnn *m, int steps, double seconds, double ema,
                   double val, int task, int T, int *src, int *tgt, int *out) {
    int rows[MAX_CHARS + 1] = { 0 }, right[MAX_CHARS + 1] = { 0 };
    int tok[MAX_CHARS + 1] = { 0 }, toks[MAX_CHARS + 1] = { 0 }, sum = 0;
    evaluate(m, task, 2000u + (unsigned)o->seed, o->n_test, T, o->batch, src, tgt, out, rows,
             right, tok, toks);
    for (int k = 0; k <= MAX_CHARS; k++) sum += right[k];
    printf("{\"task\":\"%s\",\"arch\":\"rnn\",\"attention\":\"%s\",\"map\":\"%s\",\"estimator\":\"%s\","
           "\"seed\":%d,\"steps\":%d,\"seconds\":%.1f,\"loss\":%.5f,\"val_accuracy\":%.4f,"
           "\"accuracy\":%.4f,\"test_examples\":%d,\"params\":%d,\"alpha\":%.3f,\"config\":{"
           "\"embed\":%d,\"hidden\":%d,\"attn_hidden\":%d,\"batch\":%d,\"lr\":%g},\"by_length\":[",
           o->task, o->attention, o->attention[0] == 'n' ? "" : o->map,
           o->attention[0] == 'h' ? o->estimator : "", o->seed, steps, seconds, ema, val,
           (double)sum / o->n_test, o->n_test, sx_rnn_num_params(m), (double)sx_rnn_alpha(m),
           o->embed, o->hidden, o->attn_hidden, o->batch, (double)o->lr);
    for (int k = 0, first = 1; k <= MAX_CHARS; k++) {
        if (!rows[k]) continue;
        printf("%s{\"length\":%d,\"rows\":%d,\"accuracy\":%.4f,\"token_accuracy\":%.4f}",
               first ? "" : ",", k, rows[k], (double)right[k] / rows[k], (double)tok[k] / toks[k]);
        first = 0;
    }
    printf("]}\n");
}

/* The float16 checkpoint into path (exits on failure). */
static void save(const sx_rnn *m, const char *path) {
    const int size = sx_rnn_save_size_as(m, SX_SAVE_FLOAT16);
    unsigned char *buf = malloc((size_t)size);
    FILE *f = NULL;
    if (!buf || sx_rnn_save_as(m, buf, size, SX_SAVE_FLOAT16) != SX_OK || !(f = fopen(path, "wb")) ||
        fwrite(buf, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0) {
        fprintf(stderr, "train: cannot write %s: %s\n", path, sx_last_error());
        exit(1);
    }
    free(buf);
}

int train_rnn_main(int argc, char **argv) {
    rnn_options o = { NULL, NULL, "softmax", "straight", NULL, 1, 3000, 250, 32, 32, 64, 32, 100, 500,
                      2000, 0, 3e-3f, 3e-4f, 0.995f, 1.5f, 1.0f };
    parse(&o, argc, argv);
    int task = -1;
    for (int t = 0; o.task && t < sx_task_count(); t++)
        if (!strcmp(o.task, sx_task_name(t))) task = t;
    if (task < 0 || !o.attention || o.batch < 1 || o.eval_every < 1 || o.n_val < 1 || o.n_test < 1)
        usage();
    const int T = sx_task_width(task);
    sx_rnn *m = create(&o, task, T);
    int *src = malloc(sizeof(int) * o.batch * T), *tgt = malloc(sizeof(int) * o.batch * T);
    int *out = malloc(sizeof(int) * o.batch * T);
    double ema = 0.0, val = 0.0;
    const clock_t t0 = clock();
    const int steps = train(m, &o, task, T, src, tgt, out, &ema, &val);
    const double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (o.out) save(m, o.out);
    report(&o, m, steps, seconds, ema, val, task, T, src, tgt, out);
    free(src);
    free(tgt);
    free(out);
    sx_rnn_free(m);
    return 0;
}
