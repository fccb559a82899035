/* test_patterns.c - attention under a sparsity pattern (core/src/patterns.c): each pattern's
   mask against its plain O(n^2) definition (with causal and padding masks); the attention with a
   pattern against dense attention with the masked scores set to -INFINITY (scores in double, the
   public mapping on the whole row, out in double), for every mapping; dense pattern against
   sx_attention; LSH: the same buckets for a seed, other buckets for another, the sorted order,
   the chunks of the mask, a query always sees itself and its chunk's bucket mates, positive
   multiples of a key share its buckets; and every error path with its message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "simplexity.h"

/* ---------------------------------------------------------------- helpers */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static void fill(float *x, size_t n, double scale) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(scale * (2.0 * urand() - 1.0));
}

static const int MAPS[5] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX, SX_MAP_FUSEDMAX };
static const float PARAMS[5] = { 0.0f, 0.0f, 0.0f, 1.3f, 0.05f };
static const char *NAMES[5] = { "softmax", "sparsemax", "entmax15", "entmax 1.3", "fusedmax 0.05" };

/* The definition of each structured pattern, one pair at a time. */
static int ref_allowed(const int *pat, int i, int j) {
    const int l = pat[1];
    switch (pat[0]) {
    case SX_PATTERN_DENSE: return 1;
    case SX_PATTERN_LOCAL: return abs(i - j) <= l;
    case SX_PATTERN_STRIDED: return abs(i - j) < l || (i - j) % l == 0;
    case SX_PATTERN_FIXED: return j / l == i / l || j % l >= l - pat[2];
    }
    return 0;
}

static void ref_mask(unsigned char *m, const int *pat, int Tq, int Tk, int causal, int klen) {
    for (int i = 0; i < Tq; i++)
        for (int j = 0; j < Tk; j++)
            m[i * Tk + j] = (unsigned char)(ref_allowed(pat, i, j) && j < klen && (!causal || j <= i));
}

/* Dense attention of one (batch, head) with mask m: scores in double, masked ones -INFINITY, the
   public mapping on the whole row (masked entries are absent to it), out in double. */
static int ref_attention(float *out, float *att, const unsigned char *m, const float *q,
                         const float *k, const float *v, int Tq, int Tk, int ld, int dh, int map,
                         float param) {
    float *s = malloc((size_t)Tk * sizeof(float));
    for (int i = 0; i < Tq; i++) {
        for (int j = 0; j < Tk; j++) {
            double d = 0.0;
            for (int c = 0; c < dh; c++) d += (double)q[i * ld + c] * k[j * ld + c];
            s[j] = m[i * Tk + j] ? (float)(d / sqrt((double)dh)) : -INFINITY;
        }
        int st;
        switch (map) {
        case SX_MAP_SOFTMAX: st = sx_softmax(att + i * Tk, s, 1, Tk, 1.0f); break;
        case SX_MAP_SPARSEMAX: st = sx_sparsemax(att + i * Tk, s, 1, Tk, 1.0f); break;
        case SX_MAP_ENTMAX15: st = sx_entmax15(att + i * Tk, s, 1, Tk, 1.0f); break;
        case SX_MAP_ENTMAX: st = sx_entmax(att + i * Tk, s, 1, Tk, param, 1.0f); break;
        default: st = sx_fusedmax(att + i * Tk, s, 1, Tk, param, 1.0f); break;
        }
        if (st != SX_OK) { free(s); return st; }
        for (int c = 0; c < dh; c++) {
            double o = 0.0;
            for (int j = 0; j < Tk; j++) o += (double)att[i * Tk + j] * v[j * ld + c];
            out[i * ld + c] = (float)o;
        }
    }
    free(s);
    return SX_OK;
}

/* ------------------------------------------------------- structured masks */
static void test_structured_masks(void) {
    const int pats[][6] = {
        { SX_PATTERN_DENSE, 0, 0, 0, 0, 0 },   { SX_PATTERN_LOCAL, 0, 0, 0, 0, 0 },
        { SX_PATTERN_LOCAL, 3, 0, 0, 0, 0 },   { SX_PATTERN_LOCAL, 100, 0, 0, 0, 0 },
        { SX_PATTERN_STRIDED, 1, 0, 0, 0, 0 }, { SX_PATTERN_STRIDED, 4, 0, 0, 0, 0 },
        { SX_PATTERN_STRIDED, 7, 0, 0, 0, 0 }, { SX_PATTERN_STRIDED, 50, 0, 0, 0, 0 },
        { SX_PATTERN_FIXED, 1, 1, 0, 0, 0 },   { SX_PATTERN_FIXED, 4, 1, 0, 0, 0 },
        { SX_PATTERN_FIXED, 5, 2, 0, 0, 0 },   { SX_PATTERN_FIXED, 8, 8, 0, 0, 0 },
        { SX_PATTERN_FIXED, 64, 3, 0, 0, 0 },
    };
    const int shapes[][2] = { { 1, 1 }, { 13, 13 }, { 37, 37 }, { 20, 45 }, { 45, 20 } };
    int bad = 0, total = 0;
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int causal = 0; causal < 2; causal++)
                for (int pad = 0; pad < 2; pad++) {
                    const int Tq = shapes[s][0], Tk = shapes[s][1], klen = pad ? Tk * 2 / 3 : Tk;
                    unsigned char *m = malloc((size_t)Tq * Tk), *r = malloc((size_t)Tq * Tk);
                    memset(m, 7, (size_t)Tq * Tk);
                    const int st = sx_pattern_mask(m, NULL, Tq, Tk, 2, 4, 1, pats[p], causal, klen);
                    ref_mask(r, pats[p], Tq, Tk, causal, klen);
                    total++;
                    if (st != SX_OK || memcmp(m, r, (size_t)Tq * Tk) != 0) {
                        bad++;
                        fprintf(stderr, "mask of pattern {%d, %d, %d} at %dx%d causal %d klen %d differs (st %d)\n",
                                pats[p][0], pats[p][1], pats[p][2], Tq, Tk, causal, klen, st);
                    }
                    free(m);
                    free(r);
                }
    CHECK(bad == 0, "%d of %d structured masks differ from their definitions", bad, total);
}

/* ------------------------------------------------- attention vs dense + mask */
static void check_against_dense(const int *pat, int B, int Tq, int Tk, int H, int dh, int causal,
                                const int *klen, const char *what) {
    const int C = H * dh;
    float *q = malloc(sizeof(float) * B * Tq * C), *k = malloc(sizeof(float) * B * Tk * C);
    float *v = malloc(sizeof(float) * B * Tk * C), *out = malloc(sizeof(float) * B * Tq * C);
    float *att = malloc(sizeof(float) * B * H * Tq * Tk), *rout = malloc(sizeof(float) * Tq * C);
    float *ratt = malloc(sizeof(float) * Tq * Tk);
    unsigned char *m = malloc((size_t)Tq * Tk);
    fill(q, (size_t)B * Tq * C, 1.5);
    fill(k, (size_t)B * Tk * C, 1.5);
    fill(v, (size_t)B * Tk * C, 1.0);
    for (int mi = 0; mi < 5; mi++) {
        const int st = sx_attention_pattern(out, att, q, k, v, klen, B, Tq, Tk, H, dh, MAPS[mi],
                                            PARAMS[mi], causal, pat);
        CHECK(st == SX_OK, "%s %s: status %d (%s)", what, NAMES[mi], st, sx_last_error());
        if (st != SX_OK) continue;
        double werr = 0.0, oerr = 0.0;
        int leak = 0;
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++) {
                const float *kb = k + (size_t)b * Tk * C;
                CHECK(sx_pattern_mask(m, kb, Tq, Tk, H, dh, h, pat, causal, klen ? klen[b] : Tk) == SX_OK,
                      "%s: mask", what);
                ref_attention(rout, ratt, m, q + (size_t)b * Tq * C + h * dh, kb + h * dh,
                              v + (size_t)b * Tk * C + h * dh, Tq, Tk, C, dh, MAPS[mi], PARAMS[mi]);
                const float *a = att + ((size_t)b * H + h) * Tq * Tk;
                for (int e = 0; e < Tq * Tk; e++) {
                    werr = fmax(werr, fabs(a[e] - ratt[e]));
                    if (!m[e] && a[e] != 0.0f) leak++; /* masked: exactly 0 */
                }
                for (int i = 0; i < Tq; i++)
                    for (int c = 0; c < dh; c++)
                        oerr = fmax(oerr, fabs(out[((size_t)b * Tq + i) * C + h * dh + c] - rout[i * C + c]));
            }
        CHECK(leak == 0, "%s %s: %d masked weights are not exactly 0", what, NAMES[mi], leak);
        CHECK(werr < 2e-5, "%s %s: weights differ from dense + mask by %g", what, NAMES[mi], werr);
        CHECK(oerr < 1e-4, "%s %s: out differs from dense + mask by %g", what, NAMES[mi], oerr);
        /* without att: the same out */
        float *out2 = malloc(sizeof(float) * B * Tq * C);
        CHECK(sx_attention_pattern(out2, NULL, q, k, v, klen, B, Tq, Tk, H, dh, MAPS[mi], PARAMS[mi],
                                   causal, pat) == SX_OK &&
              memcmp(out2, out, sizeof(float) * B * Tq * C) == 0,
              "%s %s: out without att differs", what, NAMES[mi]);
        free(out2);
    }
    free(q); free(k); free(v); free(out); free(att); free(rout); free(ratt); free(m);
}

static void test_attention_vs_dense(void) {
    const int pats[][6] = {
        { SX_PATTERN_DENSE, 0, 0, 0, 0, 0 },   { SX_PATTERN_LOCAL, 2, 0, 0, 0, 0 },
        { SX_PATTERN_STRIDED, 5, 0, 0, 0, 0 }, { SX_PATTERN_FIXED, 6, 2, 0, 0, 0 },
        { SX_PATTERN_LSH, 4, 0, 4, 2, 11 },    { SX_PATTERN_LSH, 7, 0, 8, 3, -5 },
    };
    const int klen[2] = { 21, 9 };
    char what[96];
    for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++)
        for (int causal = 0; causal < 2; causal++) {
            snprintf(what, sizeof what, "pattern %d (size %d) causal %d", pats[p][0], pats[p][1], causal);
            check_against_dense(pats[p], 2, 21, 21, 2, 6, causal, NULL, what);
            check_against_dense(pats[p], 2, 21, 21, 3, 8, causal, klen, what);
            if (pats[p][0] != SX_PATTERN_LSH) check_against_dense(pats[p], 1, 17, 29, 1, 5, causal, NULL, what);
        }
    /* LSH with many keys and small chunks: a row is a small share of T, its keys put in order by
       a sort (fusedmax's fused runs depend on that order) rather than a scan of T marks */
    const int lsh_long[6] = { SX_PATTERN_LSH, 4, 0, 64, 2, 99 };
    check_against_dense(lsh_long, 1, 640, 640, 1, 8, 0, NULL, "lsh T = 640, chunks of 4, 2 rounds");
}

/* The dense pattern is sx_attention's attention. */
static void test_dense_is_sx_attention(void) {
    const int B = 2, T = 70, H = 2, dh = 16, C = H * dh;
    float *q = malloc(sizeof(float) * B * T * C), *k = malloc(sizeof(float) * B * T * C);
    float *v = malloc(sizeof(float) * B * T * C), *o1 = malloc(sizeof(float) * B * T * C);
    float *o2 = malloc(sizeof(float) * B * T * C);
    fill(q, (size_t)B * T * C, 1.0);
    fill(k, (size_t)B * T * C, 1.0);
    fill(v, (size_t)B * T * C, 1.0);
    const int dense[6] = { SX_PATTERN_DENSE, 0, 0, 0, 0, 0 }, klen[2] = { 70, 33 };
    for (int mi = 0; mi < 5; mi++)
        for (int causal = 0; causal < 2; causal++) {
            CHECK(sx_attention(o1, NULL, q, k, v, klen, B, T, T, H, dh, MAPS[mi], PARAMS[mi], causal) == SX_OK, "sx_attention");
            CHECK(sx_attention_pattern(o2, NULL, q, k, v, klen, B, T, T, H, dh, MAPS[mi], PARAMS[mi], causal, dense) == SX_OK, "pattern");
            double e = 0.0;
            for (int i = 0; i < B * T * C; i++) e = fmax(e, fabs(o1[i] - o2[i]));
            CHECK(e < 1e-4, "%s causal %d: dense pattern vs sx_attention differ by %g", NAMES[mi], causal, e);
        }
    free(q); free(k); free(v); free(o1); free(o2);
}

/* -------------------------------------------------------------------- LSH */
static void test_lsh(void) {
    const int T = 96, H = 2, dh = 8, C = H * dh, R = 3, m = 8;
    float *k = malloc(sizeof(float) * T * C);
    fill(k, (size_t)T * C, 1.0);
    /* key 5 = 2.5 key 40 (head 1 columns): same direction, same buckets in every round */
    for (int c = 0; c < dh; c++) k[5 * C + dh + c] = 2.5f * k[40 * C + dh + c];
    const int pat[6] = { SX_PATTERN_LSH, m, 0, 8, R, 1234 };
    int *b1 = malloc(sizeof(int) * R * T), *o1 = malloc(sizeof(int) * R * T);
    int *b2 = malloc(sizeof(int) * R * T), *o2 = malloc(sizeof(int) * R * T);
    CHECK(sx_pattern_lsh(b1, o1, k, T, H, dh, 1, pat) == SX_OK, "lsh: %s", sx_last_error());
    CHECK(sx_pattern_lsh(b2, o2, k, T, H, dh, 1, pat) == SX_OK, "lsh again");
    CHECK(memcmp(b1, b2, sizeof(int) * R * T) == 0 && memcmp(o1, o2, sizeof(int) * R * T) == 0,
          "lsh: the same seed gives the same buckets and order");
    int used = 0, seen[8] = { 0 };
    for (int r = 0; r < R; r++) {
        CHECK(b1[r * T + 5] == b1[r * T + 40], "lsh: a positive multiple of a key shares its bucket (round %d)", r);
        int perm_ok = 1, sorted_ok = 1;
        int *hit = calloc(T, sizeof(int));
        for (int s = 0; s < T; s++) {
            const int t = o1[r * T + s];
            if (t < 0 || t >= T || hit[t]++) perm_ok = 0;
            else if (s > 0) {
                const int u = o1[r * T + s - 1];
                if (b1[r * T + u] > b1[r * T + t] || (b1[r * T + u] == b1[r * T + t] && u > t)) sorted_ok = 0;
            }
            if (b1[r * T + s] >= 0 && b1[r * T + s] < 8) seen[b1[r * T + s]] = 1;
        }
        free(hit);
        CHECK(perm_ok && sorted_ok, "lsh round %d: order is a permutation sorted by (bucket, t)", r);
    }
    for (int u = 0; u < 8; u++) used += seen[u];
    CHECK(used >= 4, "lsh: random keys use several buckets (%d of 8)", used);
    int pat2[6] = { SX_PATTERN_LSH, m, 0, 8, R, 1235 };
    CHECK(sx_pattern_lsh(b2, o2, k, T, H, dh, 1, pat2) == SX_OK &&
          memcmp(b1, b2, sizeof(int) * R * T) != 0, "lsh: another seed gives other buckets");
    CHECK(sx_pattern_lsh(b2, o2, k, T, H, dh, 0, pat) == SX_OK &&
          memcmp(b1, b2, sizeof(int) * R * T) != 0, "lsh: another head gives other buckets");

    /* the mask: chunks of the sorted order, this chunk and the one before, any round */
    unsigned char *mk = malloc((size_t)T * T), *rf = calloc((size_t)T * T, 1);
    for (int r = 0; r < R; r++) {
        int *chunk = malloc(sizeof(int) * T);
        for (int s = 0; s < T; s++) chunk[o1[r * T + s]] = s / m;
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                if (chunk[j] == chunk[i] || chunk[j] == chunk[i] - 1) rf[i * T + j] = 1;
        free(chunk);
    }
    CHECK(sx_pattern_mask(mk, k, T, T, H, dh, 1, pat, 0, T) == SX_OK, "lsh mask");
    CHECK(memcmp(mk, rf, (size_t)T * T) == 0, "lsh: the mask is the chunks of the sorted order");
    int self = 1, mates = 1, chunk_edge = 0;
    for (int i = 0; i < T; i++) {
        if (!mk[i * T + i]) self = 0;
        /* bucket mates inside one chunk of round 0 see each other */
        for (int s = 0; s < T; s++) {
            const int a = o1[s];
            if (a != i) continue;
            for (int s2 = (s / m) * m; s2 < (s / m + 1) * m && s2 < T; s2++)
                if (b1[o1[s2]] == b1[i] && !mk[i * T + o1[s2]]) mates = 0;
        }
    }
    /* a key two chunks back in every round is not seen (the chunk boundary) */
    for (int i = 0; i < T && !chunk_edge; i++)
        for (int j = 0; j < T; j++) if (!mk[i * T + j]) { chunk_edge = 1; break; }
    CHECK(self, "lsh: every query sees itself");
    CHECK(mates, "lsh: every query sees its bucket mates in its chunk");
    CHECK(chunk_edge, "lsh: some pairs are outside every chunk pair (the pattern is sparse)");
    /* a single round, chunk m: each row sees at most 2m keys */
    const int one[6] = { SX_PATTERN_LSH, m, 0, 8, 1, 7 };
    CHECK(sx_pattern_mask(mk, k, T, T, H, dh, 0, one, 0, T) == SX_OK, "lsh 1 round");
    int maxrow = 0;
    for (int i = 0; i < T; i++) {
        int n = 0;
        for (int j = 0; j < T; j++) n += mk[i * T + j];
        if (n > maxrow) maxrow = n;
    }
    CHECK(maxrow <= 2 * m && maxrow >= m, "lsh 1 round: rows see between m and 2m keys (max %d)", maxrow);
    free(k); free(b1); free(o1); free(b2); free(o2); free(mk); free(rf);

    /* many keys, small chunks: each row's keys are a small share of T (listed by a sort, not by a
       scan of T marks); the mask is still the chunks of the sorted order */
    {
        const int TL = 640, ml = 4, RL = 2;
        const int patl[6] = { SX_PATTERN_LSH, ml, 0, 64, RL, 99 };
        float *kl = malloc(sizeof(float) * TL * dh);
        fill(kl, (size_t)TL * dh, 1.0);
        int *bl = malloc(sizeof(int) * RL * TL), *ol = malloc(sizeof(int) * RL * TL), *cl = malloc(sizeof(int) * TL);
        unsigned char *ml_ = malloc((size_t)TL * TL), *rl = calloc((size_t)TL * TL, 1);
        CHECK(sx_pattern_lsh(bl, ol, kl, TL, 1, dh, 0, patl) == SX_OK, "lsh T = 640: %s", sx_last_error());
        for (int r = 0; r < RL; r++) {
            for (int s2 = 0; s2 < TL; s2++) cl[ol[r * TL + s2]] = s2 / ml;
            for (int i = 0; i < TL; i++)
                for (int j = 0; j < TL; j++)
                    if (cl[j] == cl[i] || cl[j] == cl[i] - 1) rl[(size_t)i * TL + j] = 1;
        }
        CHECK(sx_pattern_mask(ml_, kl, TL, TL, 1, dh, 0, patl, 0, TL) == SX_OK, "lsh T = 640 mask");
        CHECK(memcmp(ml_, rl, (size_t)TL * TL) == 0, "lsh T = 640, chunks of 4, 2 rounds: the mask is the chunks of the sorted order");
        free(kl); free(bl); free(ol); free(cl); free(ml_); free(rl);
    }
}

/* -------------------------------------------------------------- errors */
static void expect_error(int st, int want, const char *needle, const char *what) {
    CHECK(st == want && strstr(sx_last_error(), needle) != NULL, "%s: status %d, message \"%s\" (want %d, \"%s\")",
          what, st, sx_last_error(), want, needle);
}

static void test_errors(void) {
    float q[4 * 4], k[4 * 4], v[4 * 4], out[4 * 4];
    unsigned char m[16];
    int b[8], o[8];
    fill(q, 16, 1.0);
    fill(k, 16, 1.0);
    fill(v, 16, 1.0);
    const int ok[6] = { SX_PATTERN_LOCAL, 1, 0, 0, 0, 0 };
    expect_error(sx_attention_pattern(out, NULL, q, k, v, NULL, 1, 4, 4, 1, 4, 0, 0.0f, 0, NULL), SX_EINVAL, "pattern is NULL", "null pattern");
    const int unknown[6] = { 9, 1, 0, 0, 0, 0 };
    expect_error(sx_attention_pattern(out, NULL, q, k, v, NULL, 1, 4, 4, 1, 4, 0, 0.0f, 0, unknown), SX_EINVAL, "unknown pattern kind 9", "unknown kind");
    const int local[6] = { SX_PATTERN_LOCAL, -1, 0, 0, 0, 0 };
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, local, 0, 4), SX_EINVAL, "width must be >= 0 (got -1)", "local width");
    const int strided[6] = { SX_PATTERN_STRIDED, 0, 0, 0, 0, 0 };
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, strided, 0, 4), SX_EINVAL, "stride must be >= 1 (got 0)", "stride");
    const int fixed0[6] = { SX_PATTERN_FIXED, 4, 0, 0, 0, 0 }, fixed5[6] = { SX_PATTERN_FIXED, 4, 5, 0, 0, 0 };
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, fixed0, 0, 4), SX_EINVAL, "summary must be in [1, block = 4] (got 0)", "fixed summary 0");
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, fixed5, 0, 4), SX_EINVAL, "summary must be in [1, block = 4] (got 5)", "fixed summary 5");
    const int fixedb[6] = { SX_PATTERN_FIXED, 0, 1, 0, 0, 0 };
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, fixedb, 0, 4), SX_EINVAL, "block must be >= 1 (got 0)", "fixed block");
    const int odd[6] = { SX_PATTERN_LSH, 2, 0, 3, 1, 0 }, rounds[6] = { SX_PATTERN_LSH, 2, 0, 4, 0, 0 };
    const int chunk[6] = { SX_PATTERN_LSH, 0, 0, 4, 1, 0 }, lsh[6] = { SX_PATTERN_LSH, 2, 0, 4, 1, 0 };
    expect_error(sx_pattern_mask(m, k, 4, 4, 1, 4, 0, odd, 0, 4), SX_EINVAL, "buckets must be even and in [2, 4096] (got 3)", "odd buckets");
    expect_error(sx_pattern_mask(m, k, 4, 4, 1, 4, 0, rounds, 0, 4), SX_EINVAL, "rounds must be in [1, 64] (got 0)", "rounds");
    expect_error(sx_pattern_mask(m, k, 4, 4, 1, 4, 0, chunk, 0, 4), SX_EINVAL, "chunk must be >= 1 (got 0)", "chunk");
    expect_error(sx_attention_pattern(out, NULL, q, k, v, NULL, 1, 3, 4, 1, 4, 0, 0.0f, 0, lsh), SX_EINVAL, "Tq must equal Tk (got 3, 4)", "lsh cross");
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, lsh, 0, 4), SX_EINVAL, "null buffer (k)", "lsh without k");
    expect_error(sx_pattern_lsh(b, o, k, 4, 1, 4, 0, ok), SX_EINVAL, "needs an SX_PATTERN_LSH pattern", "lsh steps of local");
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 2, 2, 2, ok, 0, 4), SX_EINVAL, "head must be in [0, H = 2) (got 2)", "head");
    expect_error(sx_pattern_mask(m, NULL, 4, 4, 1, 4, 0, ok, 0, 5), SX_EINVAL, "k_len must be in [0, Tk = 4] (got 5)", "k_len");
    expect_error(sx_attention_pattern(out, NULL, q, k, v, NULL, 1, 4, 4, 1, 4, 4, 0.0f, 0, ok), SX_EINVAL, "unknown mapping 4", "learned alpha");
    expect_error(sx_attention_pattern(out, NULL, q, k, v, NULL, 1, 4, 4, 1, 4, SX_MAP_ENTMAX, 0.5f, 0, ok), SX_EINVAL, "alpha must be finite and >= 1", "alpha");
    const int bad_len[1] = { 5 };
    expect_error(sx_attention_pattern(out, NULL, q, k, v, bad_len, 1, 4, 4, 1, 4, 0, 0.0f, 0, ok), SX_EINVAL, "k_len[0] must be in [0, Tk = 4] (got 5)", "k_len");
    float qn[16];
    memcpy(qn, q, sizeof qn);
    qn[3] = NAN;
    expect_error(sx_attention_pattern(out, NULL, qn, k, v, NULL, 1, 4, 4, 1, 4, 0, 0.0f, 0, ok), SX_ENONFINITE, "q", "NaN q");
    float qb[16], kb[16];
    for (int i = 0; i < 16; i++) qb[i] = kb[i] = 3e19f;
    expect_error(sx_attention_pattern(out, NULL, qb, kb, v, NULL, 1, 4, 4, 1, 4, 0, 0.0f, 0, ok), SX_ENONFINITE, "overflows float", "overflow");
    /* empty inputs are fine and write nothing */
    CHECK(sx_attention_pattern(NULL, NULL, NULL, NULL, NULL, NULL, 0, 4, 4, 1, 4, 0, 0.0f, 0, ok) == SX_OK, "B = 0");
    CHECK(sx_pattern_mask(NULL, NULL, 0, 4, 1, 4, 0, ok, 0, 4) == SX_OK, "Tq = 0 mask");
    /* a padded-out batch element: zero weights, zero output */
    const int zero[1] = { 0 };
    float att[16];
    CHECK(sx_attention_pattern(out, att, q, k, v, zero, 1, 4, 4, 1, 4, 1, 0.0f, 0, ok) == SX_OK, "k_len 0");
    int nz = 0;
    for (int i = 0; i < 16; i++) nz += out[i] != 0.0f || att[i] != 0.0f;
    CHECK(nz == 0, "k_len 0: all zeros (%d nonzero)", nz);
}

int main(void) {
    test_structured_masks();
    test_attention_vs_dense();
    test_dense_is_sx_attention();
    test_lsh();
    test_errors();
    return sx_test_summary("test_patterns");
}
