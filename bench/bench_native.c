/* bench_native.c - rows per second of every mapping in the native build of the core (the same
   source as the wasm builds; simd128 intrinsics lowered to SSE by SIMDe, -O3 -msse4.2), printed
   as one JSON object on stdout for bench/run.mjs to merge into its table.

   usage: bench_native [--ms 150] [--n 3,64,512,4096] [--maps softmax,sparsemax,...]
                       [--floats 65536] [--rows3 100000] [--alpha 1.3] [--lambda 0.5] [--beta 0.1]

   One invocation measures every (mapping, n) once: a few warm-up calls, then calls on one batch
   of rows until --ms milliseconds have passed. run.mjs runs it once per round, interleaved with
   its own rounds, and takes the median. The inputs are the same as run.mjs's (same generator, bit
   for bit), and "check" (sum over the batch of p[i] * (i % 7 + 1)) lets run.mjs compare the
   native outputs with the wasm ones. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simplexity.h"

/* ------------------------------------------------------------------ inputs */
#include "inputs.h"

/* --------------------------------------------------------------- mappings */
typedef struct { float alpha, lambda, beta; } params;

static int run_map(const char *name, float *out, const float *x, int rows, int n, const params *pr) {
    if (!strcmp(name, "softmax")) return sx_softmax(out, x, rows, n, 1.0f);
    if (!strcmp(name, "sparsemax")) return sx_sparsemax(out, x, rows, n, 1.0f);
    if (!strcmp(name, "entmax15")) return sx_entmax15(out, x, rows, n, 1.0f);
    if (!strcmp(name, "entmax")) return sx_entmax(out, x, rows, n, pr->alpha, 1.0f);
    if (!strcmp(name, "fusedmax")) return sx_fusedmax(out, x, rows, n, pr->lambda, 1.0f);
    if (!strcmp(name, "oscarmax")) return sx_oscarmax(out, x, rows, n, pr->beta, 1.0f);
    return -1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* -------------------------------------------------------------------- main */
static int parse_list(char *s, char **items, int max) {
    int k = 0;
    for (char *tok = strtok(s, ","); tok && k < max; tok = strtok(NULL, ",")) items[k++] = tok;
    return k;
}

int main(int argc, char **argv) {
    double ms = 150;
    int floats = 65536, rows3 = 100000;
    params pr = { 1.3f, 0.5f, 0.1f };
    char nbuf[256] = "3,64,512,4096", mbuf[256] = "softmax,sparsemax,entmax15,entmax,fusedmax,oscarmax";
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *k = argv[a], *v = argv[a + 1];
        if (!strcmp(k, "--ms")) ms = atof(v);
        else if (!strcmp(k, "--n")) snprintf(nbuf, sizeof nbuf, "%s", v);
        else if (!strcmp(k, "--maps")) snprintf(mbuf, sizeof mbuf, "%s", v);
        else if (!strcmp(k, "--floats")) floats = atoi(v);
        else if (!strcmp(k, "--rows3")) rows3 = atoi(v);
        else if (!strcmp(k, "--alpha")) pr.alpha = (float)atof(v);
        else if (!strcmp(k, "--lambda")) pr.lambda = (float)atof(v);
        else if (!strcmp(k, "--beta")) pr.beta = (float)atof(v);
        else { fprintf(stderr, "bench_native: unknown option %s\n", k); return 2; }
    }
    char *ns[16], *maps[16];
    int nn = parse_list(nbuf, ns, 16), nm = parse_list(mbuf, maps, 16);

    printf("{\"ms\": %g, \"results\": [", ms);
    int first = 1;
    for (int j = 0; j < nn; j++) {
        int n = atoi(ns[j]);
        int rows = n == 3 ? rows3 : (floats / n > 1 ? floats / n : 1);
        size_t count = (size_t)rows * (size_t)n;
        float *x = malloc(count * sizeof *x), *out = malloc(count * sizeof *out);
        if (!x || !out) { fprintf(stderr, "bench_native: out of memory\n"); return 1; }
        fill_scores(x, count, 1000u + (uint32_t)n);
        for (int m = 0; m < nm; m++) {
            const char *name = maps[m];
            for (int w = 0; w < 3; w++) {
                int st = run_map(name, out, x, rows, n, &pr);
                if (st != SX_OK) {
                    fprintf(stderr, "bench_native: %s n=%d: status %d (%s)\n", name, n, st,
                            st < 0 ? "unknown mapping" : sx_last_error());
                    return 1;
                }
            }
            long calls = 0;
            double t0 = now_s(), t;
            do {
                run_map(name, out, x, rows, n, &pr);
                calls++;
                t = now_s();
            } while (t - t0 < ms * 1e-3);
            double check = 0;
            for (size_t i = 0; i < count; i++) check += (double)out[i] * (double)(i % 7 + 1);
            printf("%s\n  {\"map\": \"%s\", \"n\": %d, \"rows\": %d, \"calls\": %ld, \"seconds\": %.6f, "
                   "\"rows_per_s\": %.1f, \"check\": %.9g}",
                   first ? "" : ",", name, n, rows, calls, t - t0, (double)calls * rows / (t - t0), check);
            first = 0;
            fflush(stdout);
        }
        free(x);
        free(out);
    }
    printf("\n]}\n");
    return 0;
}
