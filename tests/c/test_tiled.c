/* test_tiled.c - sx_attention_tiled (core/src/tiled.c, issue 14) against sx_attention, the path
   that holds the whole map: every mapping, causal and padding masks, whole masked batch elements,
   n = 1, sizes that are not multiples of the blocks (default blocks and small odd ones), queries
   and keys of huge magnitude (one-hot rows, scores near FLT_MAX, overflow), -Infinity and NaN
   inputs, the skipped-tile counts on inputs whose weights are known, and the argument errors. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"

#define SX_TEST_SEED 0x7A11EDBA5Eull
#include "prng.h"

static float *falloc(size_t n) { return calloc(n ? n : 1, sizeof(float)); }
static void fill(float *x, size_t n, double scale) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(scale * nrand());
}

static const int MAPS[] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX,
                            SX_MAP_ENTMAX, SX_MAP_FUSEDMAX };
static const float PARAMS[] = { 0.0f, 0.0f, 0.0f, 1.3f, 2.5f, 0.5f };
#define NMAPS ((int)(sizeof(MAPS) / sizeof(MAPS[0])))

/* Largest |a - b| / max(1, max |b|) over n floats (NaN compares as a failure: returns 1e30). */
static double max_err(const float *a, const float *b, size_t n) {
    double e = 0.0, m = 1.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)b[i]));
    for (size_t i = 0; i < n; i++) {
        const double d = fabs((double)a[i] - (double)b[i]);
        if (!(d == d) || !(a[i] - a[i] == 0.0f)) return 1e30;
        e = fmax(e, d);
    }
    return e / m;
}

/* One comparison: random q, k, v (scores of standard deviation `spread`), the tiled path with
   blocks (bq, bk) against sx_attention. Returns the tiles count it reported. */
static double compare(int B, int Tq, int Tk, int H, int dh, int causal, const int *k_len,
                      int mapping, float param, int bq, int bk, double spread, const char *what) {
    const size_t nq = (size_t)B * Tq * H * dh, nk = (size_t)B * Tk * H * dh;
    float *q = falloc(nq), *k = falloc(nk), *v = falloc(nk), *o1 = falloc(nq), *o2 = falloc(nq);
    fill(q, nq, sqrt(spread));
    fill(k, nk, sqrt(spread));
    fill(v, nk, 1.0);
    double tiles[2] = { -1.0, -1.0 };
    const int s1 = sx_attention(o1, NULL, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, causal);
    memset(o2, 0xff, nq * sizeof(float)); /* NaN: every entry must be written */
    const int s2 = sx_attention_tiled(o2, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, causal,
                                      bq, bk, tiles);
    CHECK(s1 == SX_OK && s2 == SX_OK, "%s: statuses %d %d (%s)", what, s1, s2, sx_last_error());
    const double e = max_err(o2, o1, nq);
    CHECK(e <= 2e-6, "%s: mapping %d param %g B %d Tq %d Tk %d H %d dh %d causal %d blocks %d %d: "
          "max error %g", what, mapping, (double)param, B, Tq, Tk, H, dh, causal, bq, bk, e);
    CHECK(tiles[0] >= 0.0 && tiles[1] >= 0.0 && tiles[1] <= tiles[0], "%s: tiles %g %g", what,
          tiles[0], tiles[1]);
    if (mapping == SX_MAP_SOFTMAX) CHECK(tiles[1] == 0.0, "%s: softmax skipped %g tiles", what, tiles[1]);
    free(q), free(k), free(v), free(o1), free(o2);
    return tiles[0];
}

/* ---------------------------------------------------------------- same results */
static void test_same_results(void) {
    const int blocks[][2] = { { 0, 0 }, { 5, 7 }, { 1, 1 }, { 16, 32 }, { 64, 3 } };
    const int sizes[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 67, 67 }, { 37, 131 }, { 130, 70 } };
    for (int m = 0; m < NMAPS; m++)
        for (int s = 0; s < 6; s++)
            for (int bl = 0; bl < 5; bl++)
                for (int causal = 0; causal < 2; causal++) {
                    const int Tq = sizes[s][0], Tk = sizes[s][1];
                    compare(1, Tq, Tk, 1, 8, causal, NULL, MAPS[m], PARAMS[m], blocks[bl][0],
                            blocks[bl][1], 1.0, "sizes x blocks");
                }
    /* heads and batch elements side by side, padding (a whole masked batch element: k_len 0),
       head sizes not a multiple of 4, long rows (per-row causal windows, Tk >= 64) */
    const int lens[3] = { 150, 0, 77 };
    for (int m = 0; m < NMAPS; m++)
        for (int causal = 0; causal < 2; causal++) {
            compare(3, 150, 150, 3, 5, causal, lens, MAPS[m], PARAMS[m], 0, 0, 1.0, "padding");
            compare(3, 97, 150, 2, 16, causal, lens, MAPS[m], PARAMS[m], 32, 48, 4.0, "padding, blocks");
            compare(2, 300, 300, 2, 64, causal, NULL, MAPS[m], PARAMS[m], 0, 0, 1.0, "d 64");
            compare(1, 200, 200, 1, 3, causal, NULL, MAPS[m], PARAMS[m], 0, 0, 25.0, "peaked scores");
        }
    /* the tiles count: every block of queries x keys with a visible pair */
    CHECK(compare(2, 130, 70, 3, 4, 0, NULL, SX_MAP_SOFTMAX, 0.0f, 64, 32, 1.0, "count") ==
          2 * 3 * 3 * 3, "softmax tiles, not causal");
    /* causal, 100 x 100, blocks 32 x 32: query blocks see 32, 64, 96, 100 keys: 1 + 2 + 3 + 4 */
    CHECK(compare(1, 100, 100, 1, 4, 1, NULL, SX_MAP_SPARSEMAX, 0.0f, 32, 32, 1.0, "count") == 10,
          "sparsemax tiles, causal");
}

/* ------------------------------------------------------------- known sparsity */
/* q_i = k_i = 8 e_i (n = d = 256): score 4 for key i, 0 for every other, so every sparse mapping
   puts all of row i's weight on key i (a gap of 4 leaves one key in the support; fusedmax with
   lambda 0.5 lowers the peak to 3 or 3.5 and lifts no neighbour above 0.5). With 64 x 64 tiles
   only the 4 diagonal tiles of 16 hold a non-zero. */
static void test_skipped(void) {
    const int n = 256, d = 256;
    float *q = falloc((size_t)n * d), *k = falloc((size_t)n * d), *v = falloc((size_t)n * d);
    float *o1 = falloc((size_t)n * d), *o2 = falloc((size_t)n * d);
    for (int i = 0; i < n; i++) {
        q[(size_t)i * d + i] = 8.0f; /* score 64 / sqrt(256) = 4 with key i, 0 with the others */
        k[(size_t)i * d + i] = 8.0f;
    }
    fill(v, (size_t)n * d, 1.0);
    for (int m = 1; m < NMAPS; m++) {
        double tiles[2];
        int st = sx_attention_tiled(o2, q, k, v, NULL, 1, n, n, 1, d, MAPS[m], PARAMS[m], 0, 64,
                                    64, tiles);
        CHECK(st == SX_OK, "skipped: status %d", st);
        sx_attention(o1, NULL, q, k, v, NULL, 1, n, n, 1, d, MAPS[m], PARAMS[m], 0);
        CHECK(max_err(o2, o1, (size_t)n * d) <= 2e-6, "skipped: mapping %d error %g", MAPS[m],
              max_err(o2, o1, (size_t)n * d));
        /* sparsemax, entmax: a gap of 4 > 1 leaves one key per row; fusedmax (lambda 0.5) fuses
           no neighbour of a lone peak of 4 either */
        CHECK(tiles[0] == 16.0 && tiles[1] == 12.0, "skipped: mapping %d param %g: tiles %g, "
              "skipped %g (expected 16, 12)", MAPS[m], (double)PARAMS[m], tiles[0], tiles[1]);
        /* causal: 4 + 3 + 2 + 1 tiles, the diagonal ones computed */
        st = sx_attention_tiled(o2, q, k, v, NULL, 1, n, n, 1, d, MAPS[m], PARAMS[m], 1, 64, 64,
                                tiles);
        sx_attention(o1, NULL, q, k, v, NULL, 1, n, n, 1, d, MAPS[m], PARAMS[m], 1);
        CHECK(st == SX_OK && max_err(o2, o1, (size_t)n * d) <= 2e-6, "skipped causal: error");
        CHECK(tiles[0] == 10.0 && tiles[1] == 6.0, "skipped causal: mapping %d tiles %g %g",
              MAPS[m], tiles[0], tiles[1]);
    }
    free(q), free(k), free(v), free(o1), free(o2);
}

/* --------------------------------------------------------------- huge values */
static void test_huge(void) {
    const int n = 70, dh = 4;
    float *q = falloc((size_t)n * dh), *k = falloc((size_t)n * dh), *v = falloc((size_t)n * dh);
    float *o1 = falloc((size_t)n * dh), *o2 = falloc((size_t)n * dh);
    /* scores up to ~1e37: one-hot rows for every mapping; the online softmax's max jumps by
       ~1e37 between key blocks (exp(m_old - m) = 0) */
    for (int m = 0; m < NMAPS; m++)
        for (int causal = 0; causal < 2; causal++) {
            fill(q, (size_t)n * dh, 1e18);
            fill(k, (size_t)n * dh, 1e18);
            fill(v, (size_t)n * dh, 1e30);
            int s1 = sx_attention(o1, NULL, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m], PARAMS[m], causal);
            int s2 = sx_attention_tiled(o2, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m], PARAMS[m],
                                        causal, 8, 8, NULL);
            CHECK(s1 == s2, "huge: statuses %d %d", s1, s2);
            if (s1 == SX_OK)
                CHECK(max_err(o2, o1, (size_t)n * dh) <= 2e-6, "huge: mapping %d causal %d error %g",
                      MAPS[m], causal, max_err(o2, o1, (size_t)n * dh));
        }
    /* a dot product that overflows float: both paths refuse it with the same status */
    fill(q, (size_t)n * dh, 1.0);
    fill(k, (size_t)n * dh, 1.0);
    for (int c = 0; c < dh; c++) q[5 * dh + c] = k[9 * dh + c] = 3e19f * (c == 0 ? 1.0f : 0.0f) + 1e19f;
    for (int m = 0; m < NMAPS; m++) {
        int s1 = sx_attention(o1, NULL, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m], PARAMS[m], 0);
        int s2 = sx_attention_tiled(o2, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m], PARAMS[m], 0, 0, 0, NULL);
        CHECK(s1 == SX_ENONFINITE && s2 == SX_ENONFINITE, "overflow: statuses %d %d", s1, s2);
        CHECK(strstr(sx_last_error(), "batch element 0 overflows") != NULL, "overflow: %s", sx_last_error());
    }
    /* a product that overflows float in one term but whose score fits (rescored in double) */
    fill(q, (size_t)n * dh, 1.0);
    fill(k, (size_t)n * dh, 1.0);
    q[3 * dh] = 2e20f, q[3 * dh + 1] = 2e20f;
    k[7 * dh] = 2e20f, k[7 * dh + 1] = -2e20f; /* terms +-4e40, sum 0 */
    for (int m = 0; m < 2 * NMAPS; m++) {
        int s1 = sx_attention(o1, NULL, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m / 2], PARAMS[m / 2], m & 1);
        int s2 = sx_attention_tiled(o2, q, k, v, NULL, 1, n, n, 1, dh, MAPS[m / 2], PARAMS[m / 2],
                                    m & 1, 16, 16, NULL);
        CHECK(s1 == SX_OK && s2 == SX_OK, "rescored: statuses %d %d", s1, s2);
        CHECK(max_err(o2, o1, (size_t)n * dh) <= 2e-6, "rescored: mapping %d error %g", MAPS[m / 2],
              max_err(o2, o1, (size_t)n * dh));
    }
    free(q), free(k), free(v), free(o1), free(o2);
}

/* ------------------------------------------------------------------- errors */
static void test_errors(void) {
    float q[2 * 4] = { 0 }, k[3 * 4] = { 0 }, v[3 * 4] = { 0 }, out[2 * 4];
    double tiles[2] = { 7.0, 7.0 };
    int lens[1] = { 4 };
    CHECK(sx_attention_tiled(out, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_SOFTMAX, 0.0f, 0, -1, 0,
                             tiles) == SX_EINVAL, "negative block_q");
    CHECK(strstr(sx_last_error(), "block_q and block_k must be >= 0 (got -1, 0)") != NULL, "%s",
          sx_last_error());
    CHECK(tiles[0] == 7.0, "tiles untouched on error");
    CHECK(sx_attention_tiled(out, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_ENTMAX_LEARNED, 1.5f, 0, 0,
                             0, NULL) == SX_EINVAL, "learned alpha refused");
    CHECK(sx_attention_tiled(out, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_ENTMAX, 0.5f, 0, 0, 0,
                             NULL) == SX_EINVAL, "alpha < 1");
    CHECK(sx_attention_tiled(out, q, k, v, lens, 1, 2, 3, 1, 4, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0,
                             NULL) == SX_EINVAL, "k_len > Tk");
    CHECK(strstr(sx_last_error(), "k_len[0] must be in [0, Tk = 3] (got 4)") != NULL, "%s",
          sx_last_error());
    CHECK(sx_attention_tiled(NULL, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0,
                             NULL) == SX_EINVAL, "null out");
    CHECK(sx_attention_tiled(out, q, k, v, NULL, 1, 2, 3, 0, 4, SX_MAP_SOFTMAX, 0.0f, 0, 0, 0,
                             NULL) == SX_EINVAL, "H = 0");
    CHECK(sx_attention_tiled(out, q, k, v, NULL, 1, 2, 100000, 1, 40000, SX_MAP_SOFTMAX, 0.0f, 0,
                             0, 0, NULL) == SX_EINVAL, "too large");
    /* -Infinity and NaN inputs are errors naming the array and the element, as sx_attention */
    for (int which = 0; which < 3; which++) {
        float *x = which == 0 ? q : which == 1 ? k : v;
        x[5] = which == 1 ? NAN : -INFINITY;
        const int s1 = sx_attention(out, NULL, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_SPARSEMAX, 0.0f, 0);
        char e1[256];
        snprintf(e1, sizeof e1, "%s", sx_last_error());
        const int s2 = sx_attention_tiled(out, q, k, v, NULL, 1, 2, 3, 1, 4, SX_MAP_SPARSEMAX, 0.0f,
                                          0, 0, 0, NULL);
        CHECK(s1 == SX_ENONFINITE && s2 == SX_ENONFINITE && strcmp(e1, sx_last_error()) == 0 &&
              sx_last_error_index() == 5, "non-finite %d: %s / %s", which, e1, sx_last_error());
        x[5] = 0.0f;
    }
    /* nothing to compute: no query (Tq = 0), no key (out zeroed) */
    tiles[0] = tiles[1] = 7.0;
    CHECK(sx_attention_tiled(NULL, NULL, NULL, NULL, NULL, 1, 0, 3, 1, 4, SX_MAP_SOFTMAX, 0.0f, 0,
                             0, 0, tiles) == SX_OK && tiles[0] == 0.0, "Tq = 0");
    for (int i = 0; i < 8; i++) out[i] = 1.0f;
    CHECK(sx_attention_tiled(out, q, NULL, NULL, NULL, 1, 2, 0, 1, 4, SX_MAP_SPARSEMAX, 0.0f, 0, 0,
                             0, NULL) == SX_OK && out[0] == 0.0f && out[7] == 0.0f, "Tk = 0");
}

int main(void) {
    test_same_results();
    test_skipped();
    test_huge();
    test_errors();
    return sx_test_summary("test_tiled");
}
