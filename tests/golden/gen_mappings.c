/* gen_mappings.c - regenerates tests/golden/mappings.txt from the float64 references in
   tests/c/ref.c, after checking every hand-derived case against them.
     gcc -std=c99 -O2 -Itests/c tests/golden/gen_mappings.c tests/c/ref.c -lm -o /tmp/gen && /tmp/gen > tests/golden/mappings.txt */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"

static void ref_map(const char *name, double alpha, double *p, const double *z, int n) {
    if (!strcmp(name, "softmax")) ref_softmax(p, z, n);
    else if (!strcmp(name, "sparsemax")) ref_sparsemax(p, z, n);
    else if (!strcmp(name, "entmax15")) ref_entmax15(p, z, n);
    else ref_entmax(p, z, n, alpha);
}

static void put(double v) {
    if (v == -INFINITY) printf(" -inf");
    else printf(" %.17g", v);
}

/* hand: expected values derived by hand (NULL: take them from the reference) */
static void line(const char *name, double alpha, double t, double tol, int n, const double *x,
                 const double *hand, const char *why) {
    double z[64], p[64];
    for (int i = 0; i < n; i++) z[i] = x[i] / t;
    ref_map(name, alpha, p, z, n);
    if (hand)
        for (int i = 0; i < n; i++)
            if (fabs(hand[i] - p[i]) > 1e-12) {
                fprintf(stderr, "hand case %s disagrees with the reference at %d: %.17g vs %.17g\n", why, i,
                        hand[i], p[i]);
                exit(1);
            }
    printf("%s ", name);
    if (!strcmp(name, "entmax")) printf("%.17g", alpha); else printf("-");
    printf(" %.17g %g %d", t, tol, n);
    for (int i = 0; i < n; i++) put(x[i]);
    for (int i = 0; i < n; i++) put(hand ? hand[i] : p[i]);
    printf("  # %s%s\n", hand ? "hand: " : "ref: ", why);
}

#define L(name, alpha, t, tol, why, ...) do { \
    const double x_[] = { __VA_ARGS__ }; \
    line(name, alpha, t, tol, (int)(sizeof x_ / sizeof x_[0]), x_, NULL, why); } while (0)
#define H(name, alpha, t, tol, why, xs, ps) do { \
    const double x_[] = xs, p_[] = ps; \
    line(name, alpha, t, tol, (int)(sizeof x_ / sizeof x_[0]), x_, p_, why); } while (0)
#define V(...) { __VA_ARGS__ }

int main(void) {
    const double I = -INFINITY;
    printf("# mappings.txt - golden vectors for the dense mappings, read by tests/c/test_dense.c and the JS tests.\n");
    printf("# One case per line, fields separated by spaces, '#' starts a comment (whole line or trailing):\n");
    printf("#   <mapping> <alpha> <temperature> <tol> <n> <x_1> ... <x_n> <p_1> ... <p_n>\n");
    printf("# mapping: softmax | sparsemax | entmax15 | entmax. alpha is used by entmax only ('-' otherwise).\n");
    printf("# x_i may be -inf (a masked entry). tol: max abs error allowed for a float32 implementation.\n");
    printf("# Provenance: 'hand' lines are closed forms derived by hand (and checked against the references);\n");
    printf("# 'ref' lines come from the float64 references in tests/c/ref.c (sort-based sparsemax and 1.5-entmax,\n");
    printf("# long-double bisection for other alpha). Regenerate with tests/golden/gen_mappings.c.\n");
    /* sparsemax: tau = (sum of the support - 1) / k */
    H("sparsemax", 0, 1, 1e-6, "tau = 0.75 on support {1.5, 1}", V(1.5, 0, 1), V(0.75, 0, 0.25));
    H("sparsemax", 0, 1, 1e-6, "one-hot: gap >= 1", V(3, I, 1), V(1, 0, 0));
    H("sparsemax", 0, 1, 1e-6, "ties: uniform", V(2, 2, 2, 2), V(0.25, 0.25, 0.25, 0.25));
    H("sparsemax", 0, 1, 1e-6, "full support, tau = (0.6 - 1) / 3", V(0.1, 0.2, 0.3),
      V(0.1 + 0.4 / 3, 0.2 + 0.4 / 3, 0.3 + 0.4 / 3));
    H("sparsemax", 0, 2, 1e-6, "temperature 2: sparsemax([1.5, 0, 1]) again", V(3, 0, 2), V(0.75, 0, 0.25));
    H("sparsemax", 0, 1, 1e-6, "mask: the rest as if absent", V(1.5, I, 0, 1, I), V(0.75, 0, 0, 0.25, 0));
    H("sparsemax", 0, 1, 0, "all masked: zeros", V(I, I, I), V(0, 0, 0));
    H("sparsemax", 0, 1, 1e-6, "boundary: z2 = tau exactly", V(1, 0), V(1, 0));
    /* softmax */
    H("softmax", 0, 1, 1e-6, "ties", V(0, 0), V(0.5, 0.5));
    H("softmax", 0, 1, 1e-6, "mask and tie", V(1, I, 1), V(0.5, 0, 0.5));
    H("softmax", 0, 1, 1e-6, "one entry", V(-7), V(1));
    H("softmax", 0, 1, 0, "all masked: zeros", V(I, I), V(0, 0));
    H("softmax", 0, 1, 1e-6, "huge magnitudes, gap 1e30", V(1e30, -1e30, 1e30), V(0.5, 0, 0.5));
    L("softmax", 0, 1, 1e-6, "generic", 1, 2, 3, 4);
    L("softmax", 0, 0.5, 1e-6, "temperature 0.5", 0.5, -0.25, 0.1, 0.0);
    L("softmax", 0, 1, 1e-6, "large offsets", 10000, 9999, 9998.5, 9990);
    /* 1.5-entmax: z = x / 2, tau = mean - sqrt((1 - ss) / k) */
    H("entmax15", 0, 1, 1e-6, "ties", V(0, 0), V(0.5, 0.5));
    H("entmax15", 0, 1, 1e-6, "boundary: z = [1, 0], tau = 0", V(2, 0), V(1, 0));
    H("entmax15", 0, 1, 1e-6, "z = [0.5, 0]: tau = 0.25 - sqrt(7)/4",
      V(1, 0), V((0.25 + sqrt(7.0) / 4) * (0.25 + sqrt(7.0) / 4), (sqrt(7.0) / 4 - 0.25) * (sqrt(7.0) / 4 - 0.25)));
    H("entmax15", 0, 1, 1e-6, "uniform", V(3, 3, 3), V(1.0 / 3, 1.0 / 3, 1.0 / 3));
    H("entmax15", 0, 1, 0, "all masked: zeros", V(I, I, I, I), V(0, 0, 0, 0));
    L("entmax15", 0, 1, 1e-6, "generic, sparse", 1.5, 0, 1, -1, 0.7);
    L("entmax15", 0, 1, 1e-6, "n = 3 with a mask", 0.2, I, -0.5);
    L("entmax15", 0, 0.25, 1e-6, "temperature 0.25", 0.3, 0.1, -0.2, 0.25, 0.0);
    /* alpha-entmax */
    H("entmax", 2, 1, 1e-6, "alpha 2 is sparsemax", V(1.5, 0, 1), V(0.75, 0, 0.25));
    H("entmax", 1, 1, 1e-6, "alpha 1 is softmax (not uniform)", V(0, 0, I), V(0.5, 0.5, 0));
    L("entmax", 1, 1, 1e-6, "alpha 1 is softmax", 1, 2, 3, 4);
    L("entmax", 1.5, 1, 1e-6, "alpha 1.5 (bisection reference)", 1.5, 0, 1, -1, 0.7);
    L("entmax", 1.25, 1, 1e-6, "alpha 1.25", 1.5, 0, 1, -1, 0.7);
    L("entmax", 1.75, 1, 1e-6, "alpha 1.75", 1.5, 0, 1, -1, 0.7);
    L("entmax", 3, 1, 1e-6, "alpha 3", 1.5, 0, 1, -1, 0.7);
    L("entmax", 4, 1, 1e-6, "alpha 4", 0.5, 0.25, 0, -0.25, 0.4);
    L("entmax", 1.0001, 1, 1e-6, "alpha near 1: close to softmax", 1, 2, 3, 4);
    L("entmax", 1.25, 2, 1e-6, "alpha 1.25, temperature 2, a mask", 1.5, I, 1, -1, 0.7);
    return 0;
}
