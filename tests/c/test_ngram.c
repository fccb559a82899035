/* test_ngram.c - the Kneser-Ney character n-grams of tools/text/ngram.c (the text baseline):
   P(. | h) sums to 1 over the vocabulary for seen and random contexts at every order 1 .. 5,
   every symbol (seen in training or not) gets a probability > 0, a tiny corpus's probabilities
   and bits per character against a hand computation, the discount estimator against
   count-of-counts worked by hand, and the error messages. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "ngram.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;
static double unit(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}
static int pick(int n) { return (int)(unit() * n) % n; }

/* A text over symbols 1 .. used - 1 with some structure: each symbol usually follows from the
   one before (a random successor table), sometimes at random. Symbols >= used never occur. */
static void markov_text(unsigned char *t, size_t n, int used) {
    int next[256];
    for (int s = 0; s < used; s++) next[s] = 1 + pick(used - 1);
    int s = 1;
    for (size_t i = 0; i < n; i++) {
        s = unit() < 0.7 ? next[s] : 1 + pick(used - 1);
        t[i] = (unsigned char)s;
    }
}

static void check_sums(const tx_ngram *m, const unsigned char *text, size_t n, int vocab) {
    const int N = tx_ngram_order(m);
    double dist[256];
    double worst = 0.0, least = 1.0;
    for (int trial = 0; trial < 200; trial++) {
        unsigned char ctx[TX_MAX_ORDER];
        if (trial % 2) { /* a context from the text: seen */
            const size_t at = (size_t)pick((int)(n - TX_MAX_ORDER));
            memcpy(ctx, text + at, N > 1 ? N - 1 : 0);
        } else {         /* random symbols, often never seen together (or at all) */
            for (int i = 0; i < N - 1; i++) ctx[i] = (unsigned char)pick(vocab);
        }
        tx_ngram_dist(m, ctx, dist);
        double sum = 0.0;
        for (int w = 0; w < vocab; w++) { sum += dist[w]; least = fmin(least, dist[w]); }
        worst = fmax(worst, fabs(sum - 1.0));
    }
    CHECK(worst < 1e-12, "order %d: |sum - 1| up to %g", N, worst);
    CHECK(least > 0.0, "order %d: a symbol got probability %g", N, least);
}

/* Every order, 96 symbols of which 60 occur: distributions on the simplex, unseen symbols > 0. */
static void test_normalised(void) {
    enum { N = 20000, V = 96, USED = 60 };
    static unsigned char text[N];
    markov_text(text, N, USED);
    double prev = INFINITY;
    for (int order = 1; order <= 5; order++) {
        char err[160];
        tx_ngram *m = tx_ngram_build(text, N, V, order, 0, NULL, err, sizeof err);
        CHECK(m != NULL, "order %d: %s", order, err);
        if (!m) continue;
        check_sums(m, text, N, V);
        unsigned char ctx[TX_MAX_ORDER] = { 0 };
        for (int i = 0; i < order - 1; i++) ctx[i] = (unsigned char)(1 + pick(USED - 1));
        CHECK(tx_ngram_prob(m, ctx, V - 1) > 0.0, "order %d: never-seen symbol gets 0", order);
        const double bits = tx_ngram_bits(m, text, N / 2, NULL);
        CHECK(bits < prev, "order %d: training bits %g not below order %d's %g", order, bits, order - 1, prev);
        prev = bits;
        for (int k = 1; k <= order; k++)
            for (int c = 1; c <= 3; c++) {
                const double d = tx_ngram_discount(m, k, c);
                CHECK(d >= TX_MIN_DISCOUNT && d <= c, "order %d: D_%d(%d) = %g", order, k, c, d);
            }
        tx_ngram_free(m);
    }
}

/* "abab" (a = 1, b = 2, pad 0), order 2, every discount 0.5. Padded: 0 1 2 1 2.
   Bigrams: (0,1) 1, (1,2) 2, (2,1) 1. Continuation unigrams: 1 <- (0,1), (2,1): 2; 2 <- (1,2): 1.
   Order 1 (empty context): total 3, N1 = N2 = 1, gamma = (0.5 + 0.5) / 3 = 1/3:
     P1(1) = 1.5/3 + 1/9 = 11/18, P1(2) = 0.5/3 + 1/9 = 5/18, P1(0) = 1/9 = 2/18.
   Order 2: context 0: total 1, N1 = 1, gamma 1/2; context 1: total 2, N2 = 1, gamma 1/4;
   context 2: total 1, N1 = 1, gamma 1/2:
     P(1|0) = 0.5 + 11/36 = 29/36, P(2|1) = 1.5/2 + 5/72 = 59/72, P(1|2) = 29/36,
     P(2|0) = 5/36, P(0|1) = 1/36, P(0|0) = 1/18. */
static void test_hand(void) {
    const unsigned char abab[4] = { 1, 2, 1, 2 }, ba[2] = { 2, 1 };
    const double d[6] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };
    char err[160];
    tx_ngram *m = tx_ngram_build(abab, 4, 3, 2, 0, d, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (!m) return;
    const unsigned char c0[1] = { 0 }, c1[1] = { 1 }, c2[1] = { 2 };
    CHECK_NEAR(tx_ngram_prob(m, c0, 1), 29.0 / 36, 1e-15, "P(a | pad)");
    CHECK_NEAR(tx_ngram_prob(m, c1, 2), 59.0 / 72, 1e-15, "P(b | a)");
    CHECK_NEAR(tx_ngram_prob(m, c2, 1), 29.0 / 36, 1e-15, "P(a | b)");
    CHECK_NEAR(tx_ngram_prob(m, c0, 2), 5.0 / 36, 1e-15, "P(b | pad): backed off");
    CHECK_NEAR(tx_ngram_prob(m, c1, 0), 1.0 / 36, 1e-15, "P(pad | a): never seen, > 0");
    CHECK_NEAR(tx_ngram_prob(m, c0, 0), 1.0 / 18, 1e-15, "P(pad | pad)");
    float p[4];
    const double train_bits = -(log2(29.0 / 36) + log2(59.0 / 72)) / 2;
    CHECK_NEAR(tx_ngram_bits(m, abab, 4, p), train_bits, 1e-12, "bits on abab");
    CHECK_NEAR(p[3], 59.0 / 72, 1e-7, "p_out[3]");
    CHECK_NEAR(tx_ngram_bits(m, ba, 2, NULL), -(log2(5.0 / 36) + log2(29.0 / 36)) / 2, 1e-12, "bits on ba");
    const unsigned char bad[2] = { 1, 3 };
    CHECK(tx_ngram_bits(m, bad, 2, NULL) == -1.0, "a symbol >= vocab in scored text: -1");
    tx_ngram_free(m);
}

/* Order 1 sees raw counts: a 1, b 1, c 2, d 3, e 4, f 4 -> n1 = 2, n2 = 1, n3 = 1, n4 = 2;
   Y = 2 / (2 + 2) = 1/2; D1 = 1 - 2 Y 1/2 = 0.5; D2 = 2 - 3 Y 1/1 = 0.5; D3 = 3 - 4 Y 2/1 = -1,
   clamped to TX_MIN_DISCOUNT. */
static void test_discounts(void) {
    const unsigned char t[15] = { 1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6 };
    char err[160];
    tx_ngram *m = tx_ngram_build(t, 15, 8, 1, 0, NULL, err, sizeof err);
    CHECK(m != NULL, "%s", err);
    if (!m) return;
    CHECK_NEAR(tx_ngram_discount(m, 1, 1), 0.5, 1e-15, "D1");
    CHECK_NEAR(tx_ngram_discount(m, 1, 2), 0.5, 1e-15, "D2");
    CHECK_NEAR(tx_ngram_discount(m, 1, 3), TX_MIN_DISCOUNT, 1e-15, "D3+ clamped");
    /* P(f) = (4 - 0.05) / 15 + gamma / 8, gamma = (0.5 * 2 + 0.5 * 1 + 0.05 * 3) / 15 */
    CHECK_NEAR(tx_ngram_prob(m, NULL, 6), 3.95 / 15 + (1.65 / 15) / 8, 1e-15, "P(f)");
    tx_ngram_free(m);
}

static void expect_fail(tx_ngram *m, const char *err, const char *needle, const char *what) {
    CHECK(m == NULL, "%s: built", what);
    CHECK(strstr(err, needle) != NULL, "%s: message '%s' lacks '%s'", what, err, needle);
    tx_ngram_free(m);
}

static void test_errors(void) {
    const unsigned char t[3] = { 1, 2, 9 };
    const double bad_d[3] = { 0.5, 2.5, 0.5 };
    char err[160];
    expect_fail(tx_ngram_build(t, 2, 5, 0, 0, NULL, err, sizeof err), err, "order must be in 1 .. 7 (got 0)", "order 0");
    expect_fail(tx_ngram_build(t, 2, 300, 2, 0, NULL, err, sizeof err), err, "vocab must be in 1 .. 256 (got 300)", "vocab");
    expect_fail(tx_ngram_build(t, 2, 5, 2, 7, NULL, err, sizeof err), err, "pad 7 is not a symbol", "pad");
    expect_fail(tx_ngram_build(t, 0, 5, 2, 0, NULL, err, sizeof err), err, "empty text", "n = 0");
    expect_fail(tx_ngram_build(t, 3, 5, 2, 0, NULL, err, sizeof err), err, "text[2] = 9 is not below vocab (5)", "symbol");
    expect_fail(tx_ngram_build(t, 2, 5, 1, 0, bad_d, err, sizeof err), err, "count 2 must be in (0, 2] (got 2.5)", "discount");
}

int main(void) {
    test_normalised();
    test_hand();
    test_discounts();
    test_errors();
    return sx_test_summary("test_ngram");
}
