/* rationales.c - the rationale experiment (issue 25 item 4; core/src/rationale.h): each method
   (sparsemax, 1.5-entmax, HardKuma, REINFORCE) trained on the rationale task for a few seeds, then
   held-out accuracy, rationale precision and recall against the marker positions, and the selected
   fraction. One JSON object per (method, seed) on stdout; tools/rationales.mjs makes the table.

     build/tools/rationales [--steps N] [--batch B] [--lr X] [--sparsity X] [--seeds K]
                            [--test N] [--quiet]
     build/tools/rationales --dump N   the first N examples of seed 1's train split and of seed
                            7's held-out split, and 40 steps of each method with its figures on
                            those held-out examples, as JSON (tests/golden/rationale-task.json:
                            tests/js/rationale.test.mjs checks web/lib/model/rationale-task.js
                            and the Rationale class against it)

   Training example i of step s is train example s * B + i of seed 1 (the same stream for every
   method and seed); the model's seed sets its initialisation and its noise; the held-out set is
   --test examples of split 1. Deterministic: the same command prints the same figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"

static const char *const NAMES[SX_RATIONALE_METHODS] = {"sparsemax", "entmax15", "hardkuma", "reinforce"};

typedef struct {
    int steps, batch, seeds, test, quiet;
    float lr, sparsity;
} opts;

static int parse(opts *o, int argc, char **argv) {
    *o = (opts){.steps = 1500, .batch = 32, .seeds = 3, .test = 2000, .lr = 0.01f, .sparsity = 0.05f};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!v) return fprintf(stderr, "rationales: %s needs a value\n", a), 1;
        i++;
        if (!strcmp(a, "--steps")) o->steps = atoi(v);
        else if (!strcmp(a, "--batch")) o->batch = atoi(v);
        else if (!strcmp(a, "--seeds")) o->seeds = atoi(v);
        else if (!strcmp(a, "--test")) o->test = atoi(v);
        else if (!strcmp(a, "--lr")) o->lr = (float)atof(v);
        else if (!strcmp(a, "--sparsity")) o->sparsity = (float)atof(v);
        else return fprintf(stderr, "rationales: unknown option %s\n", a), 1;
    }
    if (o->steps < 1 || o->batch < 1 || o->batch > 4096 || o->seeds < 1 || o->test < 1)
        return fprintf(stderr, "rationales: steps, batch, seeds, test must be >= 1\n"), 1;
    return 0;
}

/* Train one (method, seed) and print its line; returns 0 or 1 (a core error, printed). */
static int run(const opts *o, int method, int seed, const int *xt, const int *yt, const int *gt) {
    sx_rationale *m;
    int st = sx_rationale_create(&m, method, seed, o->batch, o->sparsity);
    int *x = malloc(sizeof(int) * (size_t)o->batch * SX_RATIONALE_LEN), *y = malloc(sizeof(int) * (size_t)o->batch);
    float loss = 0, fig[4];
    for (int s = 0; st == SX_OK && s < o->steps; s++) {
        st = sx_rationale_task(x, y, NULL, o->batch, 1, 0, s * o->batch);
        if (st == SX_OK) st = sx_rationale_train_step(m, &loss, x, y, o->batch, o->lr);
        if (!o->quiet && st == SX_OK && (s + 1) % 500 == 0)
            fprintf(stderr, "%s seed %d step %d loss %.4f\n", NAMES[method], seed, s + 1, loss);
    }
    if (st == SX_OK) st = sx_rationale_evaluate(m, fig, xt, yt, gt, o->test);
    if (st == SX_OK)
        printf("{\"method\":\"%s\",\"seed\":%d,\"steps\":%d,\"batch\":%d,\"lr\":%g,\"sparsity\":%g,"
               "\"test\":%d,\"loss\":%.6f,\"accuracy\":%.6f,\"precision\":%.6f,\"recall\":%.6f,"
               "\"fraction\":%.6f}\n",
               NAMES[method], seed, o->steps, o->batch, o->lr, o->sparsity, o->test, loss, fig[0],
               fig[1], fig[2], fig[3]);
    else
        fprintf(stderr, "rationales: %s seed %d: %s\n", NAMES[method], seed, sx_last_error());
    free(x), free(y);
    sx_rationale_free(m);
    return st != SX_OK;
}

/* The golden examples: { train: [{ tokens, label, gold }...], test: [...] }. */
static int dump(int n) {
    printf("{\"provenance\": \"build/tools/rationales --dump %d (sx_rationale_task, core/src/rationale_task.c)\"", n);
    for (int split = 0; split < 2; split++) {
        printf(",\n\"%s\": [", split ? "test" : "train");
        for (int i = 0; i < n; i++) {
            int x[SX_RATIONALE_LEN], y, g[SX_RATIONALE_LEN];
            if (sx_rationale_task(x, &y, g, 1, split ? 7 : 1, split, i) != SX_OK) return 1;
            printf("%s\n {\"tokens\": [", i ? "," : "");
            for (int t = 0; t < SX_RATIONALE_LEN; t++) printf("%s%d", t ? "," : "", x[t]);
            printf("], \"label\": %d, \"gold\": [", y);
            for (int t = 0; t < SX_RATIONALE_LEN; t++) printf("%s%d", t ? "," : "", g[t]);
            printf("]}");
        }
        printf("]");
    }
    /* each method, seed 1, batches of 8, lr 0.01, sparsity 0.05: the losses of 40 steps, then
       the figures on the first n held-out examples of seed 7 */
    int *xt = malloc(sizeof(int) * (size_t)n * SX_RATIONALE_LEN), *gt = malloc(sizeof(int) * (size_t)n * SX_RATIONALE_LEN);
    int *yt = malloc(sizeof(int) * (size_t)n), x[8 * SX_RATIONALE_LEN], y[8];
    if (!xt || !gt || !yt || sx_rationale_task(xt, yt, gt, n, 7, 1, 0) != SX_OK) return 1;
    printf(",\n\"runs\": [");
    for (int method = 0; method < SX_RATIONALE_METHODS; method++) {
        sx_rationale *m;
        float loss, fig[4];
        if (sx_rationale_create(&m, method, 1, 8, 0.05f) != SX_OK) return 1;
        printf("%s\n {\"method\": \"%s\", \"losses\": [", method ? "," : "", NAMES[method]);
        for (int s = 0; s < 40; s++) {
            if (sx_rationale_task(x, y, NULL, 8, 1, 0, s * 8) != SX_OK || sx_rationale_train_step(m, &loss, x, y, 8, 0.01f) != SX_OK)
                return 1;
            printf("%s%.9g", s ? "," : "", loss);
        }
        if (sx_rationale_evaluate(m, fig, xt, yt, gt, n) != SX_OK) return 1;
        printf("], \"accuracy\": %.9g, \"precision\": %.9g, \"recall\": %.9g, \"fraction\": %.9g}", fig[0], fig[1], fig[2], fig[3]);
        sx_rationale_free(m);
    }
    printf("]}\n");
    free(xt), free(gt), free(yt);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--dump")) return dump(atoi(argv[2]));
    opts o;
    if (parse(&o, argc, argv)) return 2;
    const size_t n = (size_t)o.test * SX_RATIONALE_LEN;
    int *xt = malloc(n * sizeof(int)), *gt = malloc(n * sizeof(int)), *yt = malloc((size_t)o.test * sizeof(int));
    if (!xt || !gt || !yt || sx_rationale_task(xt, yt, gt, o.test, 1, 1, 0) != SX_OK)
        return fprintf(stderr, "rationales: cannot make the held-out set\n"), 1;
    int failed = 0;
    for (int method = 0; method < SX_RATIONALE_METHODS; method++)
        for (int seed = 1; seed <= o.seeds; seed++) failed |= run(&o, method, seed, xt, yt, gt);
    free(xt), free(gt), free(yt);
    return failed;
}
