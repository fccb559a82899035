/* baseline.c - the character n-gram baseline of the text models: interpolated modified
   Kneser-Ney (tools/text/ngram.c) of orders 2 to 5 trained on the train split of the corpus
   `make text` writes, scored on the validation and test splits.

     build/tools/text-baseline [--dir build/text] [--orders 2,3,4,5] [--json FILE] [--md FILE]

   For each order: bits per character on validation and test (every character of the split,
   newlines included, each predicted from the order - 1 before it, the split padded on the left
   with newlines as in training), the test perplexity, and the epsilon-perplexity of Martins et
   al. 2020 with the true character's support rate (sx_eps_perplexity; eps chosen on validation
   by sx_eps_choose), which a sparse-output model reports where it can give a character
   probability 0. A dense model keeps every character inside its support, and its
   epsilon-perplexity is at most its perplexity (eps = 0 is a candidate). --json writes one JSON
   object per line, --md the Markdown table; both also go to stdout. Deterministic. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "ngram.h"
#include "split.h"
#include "vocab.h"

typedef struct {
    unsigned char *ids;
    size_t n;
} split;

typedef struct {
    int order;
    double valid_bits, test_bits, eps, eps_ppl, eps_bits, in_support, tiny_gap;
    double d[TX_MAX_ORDER + 1][4];
} result;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "text-baseline: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A split file as vocabulary ids (split.c); any byte outside the vocabulary is an error. */
static split read_split(const char *dir, const char *name) {
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/devil-%s.txt", dir, name);
    split s;
    s.ids = tx_read_split(path, &s.n, err, sizeof err);
    if (!s.ids) die("%s", err);
    return s;
}

static result run_order(int order, const split *train, const split *valid, const split *test) {
    char err[256];
    tx_ngram *m = tx_ngram_build(train->ids, train->n, TX_VOCAB, order, TX_NEWLINE, NULL, err, sizeof err);
    if (!m) die("%s", err);
    result r = { .order = order };
    float *pv = malloc(valid->n * sizeof *pv), *pt = malloc(test->n * sizeof *pt);
    if (!pv || !pt) die("out of memory");
    r.valid_bits = tx_ngram_bits(m, valid->ids, valid->n, pv);
    r.test_bits = tx_ngram_bits(m, test->ids, test->n, pt);
    double out[3], tiny[3];
    if (sx_eps_choose(&r.eps, pv, (int)valid->n, TX_VOCAB) != SX_OK) die("%s", sx_last_error());
    if (sx_eps_perplexity(out, pt, (int)test->n, TX_VOCAB, r.eps) != SX_OK) die("%s", sx_last_error());
    if (sx_eps_perplexity(tiny, pt, (int)test->n, TX_VOCAB, 1e-12) != SX_OK) die("%s", sx_last_error());
    r.eps_ppl = out[0];
    r.eps_bits = out[1];
    r.in_support = out[2];
    r.tiny_gap = fabs(tiny[1] - r.test_bits); /* eps -> 0: the plain bits per character */
    for (int k = 1; k <= order; k++)
        for (int c = 1; c <= 3; c++) r.d[k][c] = tx_ngram_discount(m, k, c);
    free(pv);
    free(pt);
    tx_ngram_free(m);
    return r;
}

static void print_json(FILE *f, const result *r, const split *s) {
    fprintf(f, "{\"model\":\"char-%d-gram\",\"order\":%d,\"smoothing\":\"interpolated modified Kneser-Ney\","
               "\"train_chars\":%zu,\"valid_chars\":%zu,\"test_chars\":%zu,\"valid_bpc\":%.6f,\"test_bpc\":%.6f,"
               "\"test_ppl\":%.6f,\"eps\":%.6g,\"test_eps_ppl\":%.6f,\"test_eps_bpc\":%.6f,\"test_in_support\":%.6f,"
               "\"discounts\":[",
            r->order, r->order, s[0].n, s[1].n, s[2].n, r->valid_bits, r->test_bits, exp2(r->test_bits),
            r->eps, r->eps_ppl, r->eps_bits, r->in_support);
    for (int k = 1; k <= r->order; k++)
        fprintf(f, "%s[%.4f,%.4f,%.4f]", k > 1 ? "," : "", r->d[k][1], r->d[k][2], r->d[k][3]);
    fprintf(f, "]}\n");
}

static void print_md(FILE *f, const result *r, int count) {
    fprintf(f, "| model | valid bits/char | test bits/char | test perplexity | eps (from valid) | "
               "test eps-perplexity | true char in support |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < count; i++)
        fprintf(f, "| %d-gram, interpolated modified Kneser-Ney | %.3f | %.3f | %.2f | %.2g | %.2f | %.0f%% |\n",
                r[i].order, r[i].valid_bits, r[i].test_bits, exp2(r[i].test_bits), r[i].eps, r[i].eps_ppl,
                100 * r[i].in_support);
}

static FILE *open_out(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s (%s)", path, strerror(errno));
    return f;
}

int main(int argc, char **argv) {
    const char *dir = "build/text", *json = NULL, *md = NULL, *orders = "2,3,4,5";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) die("%s needs a value", a);
        if (!strcmp(a, "--dir")) dir = argv[++i];
        else if (!strcmp(a, "--json")) json = argv[++i];
        else if (!strcmp(a, "--md")) md = argv[++i];
        else if (!strcmp(a, "--orders")) orders = argv[++i];
        else die("unknown argument '%s' (--dir, --orders, --json, --md)", a);
    }
    split s[3] = { read_split(dir, "train"), read_split(dir, "valid"), read_split(dir, "test") };
    result r[TX_MAX_ORDER] = { { 0 } };
    int count = 0;
    for (const char *o = orders; *o && count < TX_MAX_ORDER; o += strcspn(o, ",") + (o[strcspn(o, ",")] == ',')) {
        const int order = atoi(o);
        if (order < 1 || order > TX_MAX_ORDER) die("--orders: '%s' does not start with an order in 1 .. %d", o, TX_MAX_ORDER);
        r[count] = run_order(order, &s[0], &s[1], &s[2]);
        if (r[count].tiny_gap > 1e-6) die("order %d: the eps-perplexity at eps 1e-12 is %g bits off the plain bits per character", r[count].order, r[count].tiny_gap);
        count++;
    }
    FILE *fj = json ? open_out(json) : NULL, *fm = md ? open_out(md) : NULL;
    for (int i = 0; i < count; i++) {
        print_json(stdout, &r[i], s);
        if (fj) print_json(fj, &r[i], s);
    }
    print_md(stdout, r, count);
    if (fm) print_md(fm, r, count);
    if (fj) fclose(fj);
    if (fm) fclose(fm);
    for (int i = 0; i < 3; i++) free(s[i].ids);
    return 0;
}
