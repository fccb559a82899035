/* entmax_passes.c - `make bench` (issue 26): the general-alpha entmax solver's passes per row and
   its time per row against softmax's, per input family, in a native build of the core compiled
   with -DSX_COUNT_PASSES (the counters exist in that build only; the shipped builds have none).

   usage: entmax_passes [--ms 100]

   Families (rows of n scores, the generator of inputs.h): normal (sd 1), small (sd 1/16: a model
   at initialisation), const (0.7 plus 1e-3 noise: identical scores); alpha 1.1, 1.3, 1.7; n 128,
   512. Per row: the float search's passes, the double Newton passes and the dense path's power
   passes, with the entries each visited, and the time per row relative to softmax on the same
   rows (best of repeated calls for --ms milliseconds). Prints a markdown table; exits 1 if a row
   of the output leaves the simplex (a sum off 1 by more than 1e-5, or a negative or NaN p). */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simplexity.h"
#include "inputs.h"

extern long long sx__entmax_passes[7];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const FAMILIES[] = { "normal", "small", "const" };

static void fill_family(float *x, size_t count, int family, uint32_t seed) {
    fill_scores(x, count, seed);
    for (size_t i = 0; i < count; i++)
        x[i] = family == 0 ? x[i] : family == 1 ? (float)((double)x[i] / 16.0) : (float)(0.7 + 1e-3 * (double)x[i]);
}

/* best time per call of softmax (alpha 1) or entmax over `rows` rows, for about ms milliseconds */
static double best_time(float *out, const float *x, int rows, int n, float alpha, double ms) {
    double best = INFINITY, t0 = now_s();
    do {
        double t = now_s();
        if (alpha == 1.0f) sx_softmax(out, x, rows, n, 1.0f);
        else sx_entmax(out, x, rows, n, alpha, 1.0f);
        t = now_s() - t;
        best = t < best ? t : best;
    } while (now_s() - t0 < ms * 1e-3);
    return best;
}

/* 1 if every row of p is on the simplex (sum within 1e-5 of 1, every p >= 0) */
static int on_simplex(const float *p, int rows, int n) {
    for (int r = 0; r < rows; r++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            if (!(p[(size_t)r * n + i] >= 0.0f)) return 0;
            s += p[(size_t)r * n + i];
        }
        if (!(fabs(s - 1.0) <= 1e-5)) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    double ms = 100.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ms") && i + 1 < argc && atof(argv[i + 1]) > 0.0) ms = atof(argv[++i]);
        else {
            fprintf(stderr, "entmax_passes: unknown or bad option %s\nusage: entmax_passes [--ms 100]\n", argv[i]);
            return 2;
        }
    }
    const int ns[] = { 128, 512 };
    const float alphas[] = { 1.1f, 1.3f, 1.7f };
    int bad = 0;
    printf("| family | n | alpha | float passes (entries) | double passes (entries) | dense passes (entries) | ns/row | vs softmax |\n");
    printf("|:--|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int f = 0; f < 3; f++)
        for (int k = 0; k < 2; k++) {
            const int n = ns[k], rows = 65536 / n;
            float *x = malloc(sizeof(float) * (size_t)rows * n), *p = malloc(sizeof(float) * (size_t)rows * n);
            if (!x || !p) return 1;
            fill_family(x, (size_t)rows * n, f, 2600u + (uint32_t)n);
            const double ts = best_time(p, x, rows, n, 1.0f, ms);
            for (int a = 0; a < 3; a++) {
                memset(sx__entmax_passes, 0, sizeof sx__entmax_passes);
                sx_entmax(p, x, rows, n, alphas[a], 1.0f);
                long long c[7];
                memcpy(c, sx__entmax_passes, sizeof c); /* before the timed calls add to them */
                const double R = c[0] > 0 ? (double)c[0] : 1.0;
                if (!on_simplex(p, rows, n)) {
                    printf("MISMATCH %s n=%d alpha %g: an output row is off the simplex\n", FAMILIES[f], n, (double)alphas[a]);
                    bad = 1;
                }
                const double te = best_time(p, x, rows, n, alphas[a], ms);
                printf("| %s | %d | %g | %.2f (%.0f) | %.2f (%.0f) | %.2f (%.0f) | %.0f | %.2fx |\n", FAMILIES[f], n,
                       (double)alphas[a], c[1] / R, c[2] / R, c[3] / R, c[4] / R, c[5] / R, c[6] / R, te / rows * 1e9, te / ts);
            }
            free(x);
            free(p);
        }
    printf("\nrows of n scores (inputs.h's generator; small = sd 1/16, const = 0.7 + 1e-3 noise), %d x n floats per call,\n"
           "passes and entries per row; time: best call over %g ms, CPU time, native -O3 -msse4.2\n", 65536, ms);
    return bad;
}
