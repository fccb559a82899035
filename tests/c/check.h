/* check.h - a tiny test harness for the native C tests. A failed CHECK prints where and why and
   marks the run failed; main returns sx_test_summary(), so a failing test exits non-zero. */
#ifndef SX_CHECK_H
#define SX_CHECK_H
#include <stdio.h>
#include <math.h>

static int sx_test_failed = 0, sx_test_passed = 0;

#define CHECK(cond, ...) do { \
    if (cond) sx_test_passed++; \
    else { sx_test_failed++; fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
           fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

#define CHECK_NEAR(a, b, tol, ...) do { \
    double _a = (a), _b = (b); \
    if (fabs(_a - _b) <= (tol)) sx_test_passed++; \
    else { sx_test_failed++; fprintf(stderr, "%s:%d: |%s - %s| = |%.9g - %.9g| > %g: ", __FILE__, __LINE__, \
           #a, #b, _a, _b, (double)(tol)); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

/* Prints the closing line CI reads ("N passed, N failed") and returns the exit status. */
static int sx_test_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, sx_test_passed, sx_test_failed);
    return sx_test_failed ? 1 : 0;
}
#endif
