/* test_tasks.c - the toy sequence tasks (core/src/tasks.c) and the PRNG (core/src/rng.c):
   the PRNG against the reference splitmix64, determinism, disjoint splits, every target against
   an oracle written here (independent of the library's solver) and against sx_task_answer,
   dates (valid, leap years, padding of the day), token <-> text round trips, row layout, pinned
   examples (so a change of generator or platform is noticed), and every error path with its
   message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "rng.h"
#include "tasks.h"

#define W 16 /* a max_len wider than every task's width */
#define MANY 20000
#define PIN_NORMAL_BITS 0x400ca560u /* 2.19759369f */

static const char *const MON[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static int leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int dim(int y, int m) {
    static const int d[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* Decode a row with the library (checked) into a static-size buffer. */
static void dec(char *out, int task, const int *row, int n) {
    int st = sx_task_decode(out, 64, task, row, n);
    if (st) { /* counted only when it fails: it runs for every row */
        CHECK(st == SX_OK, "decode: %s", sx_last_error());
        out[0] = 0;
    }
}

/* The answer to src text s, written here without the library: returns 0 if s is not in the
   domain of the task. */
static int oracle(char *out, int task, const char *s) {
    int n = (int)strlen(s);
    if (task == SX_TASK_REVERSE) {
        for (int i = 0; i < n; i++) out[i] = s[n - 1 - i];
        out[n] = 0;
    } else if (task == SX_TASK_SORT) {
        strcpy(out, s);
        for (int i = 1; i < n; i++) /* insertion sort */
            for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
                char t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
            }
    } else if (task == SX_TASK_AFTER_MARKER) {
        const char *bar = strchr(s, '|');
        if (!bar || strchr(bar + 1, '|')) return 0;
        strcpy(out, bar + 1);
    } else {
        int d = 0, y = 0, m = 0, k = 0;
        while (s[k] >= '0' && s[k] <= '9') d = d * 10 + s[k++] - '0';
        if (k < 1 || k > 2 || s[k] != ' ' || (int)strlen(s) != k + 9) return 0;
        for (int i = 0; i < 12; i++) if (!strncmp(s + k + 1, MON[i], 3)) m = i + 1;
        if (!m || s[k + 4] != ' ') return 0;
        for (int i = k + 5; i < k + 9; i++) {
            if (s[i] < '0' || s[i] > '9') return 0;
            y = y * 10 + s[i] - '0';
        }
        if (y < 1 || d < 1 || d > dim(y, m)) return 0;
        snprintf(out, 16, "%04d-%02d-%02d", y % 10000, m % 100, d % 100);
    }
    return 1;
}

static int err_is(const char *want) {
    if (!strcmp(sx_last_error(), want)) return 1;
    fprintf(stderr, "  got:  %s\n  want: %s\n", sx_last_error(), want);
    return 0;
}

/* ------------------------------------------------------------------- rng */
static void test_rng(void) {
    /* Reference splitmix64.c (Vigna), state 0: the first output is mix(0 + golden). */
    CHECK(sx__mix64(0x9e3779b97f4a7c15ull) == 0xe220a8397b1dcdafull, "splitmix64 first output");
    CHECK(sx__mix64(2 * 0x9e3779b97f4a7c15ull) == 0x6e789e6aa1b965f4ull, "splitmix64 second output");
    sx__rng a, b, c;
    sx__rng_init(&a, 7, 3), sx__rng_init(&b, 7, 3), sx__rng_init(&c, 7, 4);
    int same = 1, diff = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = sx__rng_next64(&a), y = sx__rng_next64(&b), z = sx__rng_next64(&c);
        same &= x == y, diff += x != z;
    }
    CHECK(same && diff == 100, "same (seed, stream) repeats, another stream differs (%d)", diff);
    /* below(n): in range, every value hit, roughly uniform; range inclusive. */
    int hist[7] = { 0 }, lo = 0, hi = 0, bad = 0;
    double su = 0, sn = 0, sn2 = 0, umin = 1, umax = 0;
    for (int i = 0; i < 70000; i++) {
        uint32_t k = sx__rng_below(&a, 7);
        if (k >= 7) bad++; else hist[k]++;
        int r = sx__rng_range(&a, -2, 3);
        bad += r < -2 || r > 3, lo += r == -2, hi += r == 3;
        float u = sx__rng_uniform(&a);
        su += u, umin = u < umin ? u : umin, umax = u > umax ? u : umax;
        float g = sx__rng_normal(&a);
        sn += g, sn2 += (double)g * g;
    }
    CHECK(bad == 0, "below/range out of range %d times", bad);
    for (int k = 0; k < 7; k++) CHECK(hist[k] > 9500 && hist[k] < 10500, "below(7): %d hits of %d", hist[k], k);
    CHECK(lo > 10000 && hi > 10000, "range(-2, 3) hits both ends (%d, %d)", lo, hi);
    CHECK(umin >= 0 && umax < 1 && fabs(su / 70000 - 0.5) < 0.01, "uniform in [0,1): mean %g", su / 70000);
    CHECK(fabs(sn / 70000) < 0.02 && fabs(sn2 / 70000 - 1) < 0.03, "normal: mean %g, var %g", sn / 70000,
          sn2 / 70000);
    CHECK(sx__rng_below(&a, 0) == 0 && sx__rng_below(&a, 1) == 0, "below(0), below(1)");
    /* A pinned draw: the same value on every platform. */
    sx__rng p;
    sx__rng_init(&p, 42, 0);
    uint32_t first = sx__rng_u32(&p);
    sx__rng_init(&p, 42, 0);
    float g = sx__rng_normal(&p);
    uint32_t gbits;
    memcpy(&gbits, &g, 4);
    CHECK(first == 0xfca5183du && gbits == PIN_NORMAL_BITS, "pinned draws of (42, 0): u32 0x%08x, normal %.9g (0x%08x)",
          first, (double)g, gbits);
}

/* ------------------------------------------------------------------- queries */
static void test_queries(void) {
    static const char *names[4] = { "reverse", "sort", "after_marker", "date" };
    static const int vocab[4] = { 13, 13, 14, 37 }, width[4] = { 12, 12, 13, 12 };
    static const char *alpha[4] = { "abcdefghij", "abcdefghij", "abcdefghij|", " -0123456789ADFJMNOSabceglnoprtuvy" };
    CHECK(sx_task_count() == 4, "count");
    for (int t = 0; t < 4; t++) {
        CHECK(sx_task_name(t) && !strcmp(sx_task_name(t), names[t]), "name %d", t);
        CHECK(sx_task_vocab_size(t) == vocab[t], "vocab %d: %d", t, sx_task_vocab_size(t));
        CHECK(sx_task_width(t) == width[t], "width %d: %d", t, sx_task_width(t));
        CHECK(sx_task_token_char(t, SX_TOKEN_PAD) == 0 && sx_task_token_char(t, SX_TOKEN_BOS) == 0 &&
              sx_task_token_char(t, SX_TOKEN_EOS) == 0, "specials have no character");
        int ok = (int)strlen(alpha[t]) == vocab[t] - 3;
        for (int k = 0; alpha[t][k]; k++) {
            ok &= sx_task_token_char(t, 3 + k) == alpha[t][k];
            if (k) ok &= alpha[t][k - 1] < alpha[t][k]; /* ASCII order */
        }
        CHECK(ok, "alphabet of %s in ASCII order", names[t]);
        int a, b, c, d;
        CHECK(sx_task_lengths(&a, &b, &c, &d, t) == SX_OK && b + 1 <= width[t] && d + 2 <= width[t] &&
              a <= b && c <= d, "lengths %d: %d..%d -> %d..%d", t, a, b, c, d);
    }
    CHECK(sx_task_lengths(NULL, NULL, NULL, NULL, 0) == SX_OK, "lengths with NULL pointers");
}

/* ---------------------------------------------------------- generation */
/* Row layout, lengths, target vs the oracle and vs sx_task_answer, split membership. */
static void check_rows(int task, int split, const int *src, const int *tgt, int count, int w) {
    int minS, maxS, minT, maxT, v = sx_task_vocab_size(task);
    sx_task_lengths(&minS, &maxS, &minT, &maxT, task);
    int layout = 0, lens = 0, answers = 0, splits = 0;
    for (int r = 0; r < count; r++) {
        const int *s = src + r * w, *t = tgt + r * w;
        int ns = 0, nt = 0;
        while (ns < w && s[ns] >= 3 && s[ns] < v) ns++;
        int good = ns < w && s[ns] == SX_TOKEN_EOS;
        for (int k = ns + 1; k < w; k++) good &= s[k] == SX_TOKEN_PAD;
        good &= t[0] == SX_TOKEN_BOS;
        while (1 + nt < w && t[1 + nt] >= 3 && t[1 + nt] < v) nt++;
        good &= 1 + nt < w && t[1 + nt] == SX_TOKEN_EOS;
        for (int k = nt + 2; k < w; k++) good &= t[k] == SX_TOKEN_PAD;
        layout += !good;
        lens += ns < minS || ns > maxS || nt < minT || nt > maxT;
        char stext[64], ttext[64], want[64];
        dec(stext, task, s, w), dec(ttext, task, t, w);
        if (!oracle(want, task, stext) || strcmp(want, ttext) != 0) {
            if (!answers) fprintf(stderr, "  %s: '%s' -> '%s'\n", sx_task_name(task), stext, ttext);
            answers++;
        }
    }
    CHECK(layout == 0, "%s split %d: %d rows not 'chars EOS PAD..' / 'BOS chars EOS PAD..'", sx_task_name(task),
          split, layout);
    CHECK(lens == 0, "%s split %d: %d rows with lengths out of range", sx_task_name(task), split, lens);
    CHECK(answers == 0, "%s split %d: %d targets differ from the oracle", sx_task_name(task), split, answers);
    int *ans = malloc(sizeof(int) * (size_t)count * w), *sp = malloc(sizeof(int) * (size_t)count);
    CHECK(sx_task_answer(ans, task, src, count, w) == SX_OK && !memcmp(ans, tgt, sizeof(int) * (size_t)count * w),
          "%s: sx_task_answer == generated targets (%s)", sx_task_name(task), sx_last_error());
    CHECK(sx_task_split_of(sp, task, src, count, w) == SX_OK, "split_of: %s", sx_last_error());
    for (int r = 0; r < count; r++) splits += sp[r] != split;
    CHECK(splits == 0, "%s: %d rows of split %d are not in it", sx_task_name(task), splits, split);
    free(ans), free(sp);
}

static int cmp_row(const void *a, const void *b) { return memcmp(a, b, sizeof(int) * W); }

static void test_generate(void) {
    int *src = malloc(sizeof(int) * MANY * W), *tgt = malloc(sizeof(int) * MANY * W);
    int *src2 = malloc(sizeof(int) * MANY * W), *tgt2 = malloc(sizeof(int) * MANY * W);
    int *both = malloc(sizeof(int) * 2 * MANY * W);
    for (int task = 0; task < 4; task++) {
        const char *name = sx_task_name(task);
        /* Disjoint splits: sort the sources of both splits together; equal neighbours must
           come from the same split. */
        for (int split = 0; split < 2; split++) {
            CHECK(sx_task_generate(src, tgt, task, split, 1234, 0, MANY, W) == SX_OK, "%s", sx_last_error());
            check_rows(task, split, src, tgt, MANY, W);
            for (int r = 0; r < MANY; r++) {
                memcpy(both + (size_t)(split * MANY + r) * W, src + (size_t)r * W, sizeof(int) * W);
                both[(size_t)(split * MANY + r) * W + W - 1] = split; /* tag (last column is PAD) */
            }
        }
        /* Whole rows compared: rows with the same source are adjacent after sorting. */
        qsort(both, 2 * MANY, sizeof(int) * W, cmp_row);
        int shared = 0, distinct = 1;
        for (int r = 1; r < 2 * MANY; r++) {
            const int *a = both + (size_t)(r - 1) * W, *b = both + (size_t)r * W;
            int same_src = !memcmp(a, b, sizeof(int) * (W - 1));
            shared += same_src && a[W - 1] != b[W - 1];
            distinct += !same_src;
        }
        CHECK(shared == 0, "%s: %d sources in both splits", name, shared);
        printf("%s: %d distinct sources in %d train + %d held-out examples\n", name, distinct, MANY, MANY);
        CHECK(distinct > MANY / 2, "%s: enough variety (%d distinct)", name, distinct);

        /* Determinism: same seed -> same bytes, in one call or in chunks; other seed differs. */
        int n = 3000;
        sx_task_generate(src, tgt, task, 0, 99, 0, n, W);
        sx_task_generate(src2, tgt2, task, 0, 99, 0, n, W);
        CHECK(!memcmp(src, src2, sizeof(int) * n * W) && !memcmp(tgt, tgt2, sizeof(int) * n * W),
              "%s: same seed, same bytes", name);
        sx_task_generate(src2, tgt2, task, 0, 99, 0, 1000, W);
        sx_task_generate(src2 + 1000 * W, tgt2 + 1000 * W, task, 0, 99, 1000, 1, W);
        sx_task_generate(src2 + 1001 * W, tgt2 + 1001 * W, task, 0, 99, 1001, n - 1001, W);
        CHECK(!memcmp(src, src2, sizeof(int) * n * W) && !memcmp(tgt, tgt2, sizeof(int) * n * W),
              "%s: example i does not depend on start/count", name);
        int w = sx_task_width(task), narrow_same = 1;
        sx_task_generate(src2, tgt2, task, 0, 99, 0, n, w);
        for (int r = 0; r < n; r++) {
            narrow_same &= !memcmp(src2 + r * w, src + r * W, sizeof(int) * w);
            narrow_same &= !memcmp(tgt2 + r * w, tgt + r * W, sizeof(int) * w);
        }
        CHECK(narrow_same, "%s: max_len only adds PAD", name);
        sx_task_generate(src2, tgt2, task, 0, 100, 0, n, W);
        int differ = 0;
        for (int r = 0; r < n; r++) differ += memcmp(src + r * W, src2 + r * W, sizeof(int) * W) != 0;
        CHECK(differ > n * 8 / 10, "%s: seed 100 vs 99 differ in %d of %d rows", name, differ, n);
        sx_task_generate(src2, tgt2, task, 1, 99, 0, n, W);
        CHECK(memcmp(src, src2, sizeof(int) * n * W) != 0, "%s: splits differ", name);
        CHECK(sx_task_generate(NULL, NULL, task, 0, 1, 0, 0, W) == SX_OK, "count 0 with NULL buffers");
    }
    free(src), free(tgt), free(src2), free(tgt2), free(both);
}

/* The held-out fraction of uniformly drawn strings is ~15%, for every task. */
static void test_split_fraction(void) {
    static const char *samples[4] = { "abcdefghij", "abcdefghij", "abcdefghij", NULL };
    sx__rng r;
    sx__rng_init(&r, 5, 5);
    for (int task = 0; task < 3; task++) {
        int row[W], sp, held = 0, trials = 20000;
        for (int i = 0; i < trials; i++) {
            char s[W];
            int n = 3 + (int)sx__rng_below(&r, 8);
            for (int k = 0; k < n; k++) s[k] = samples[task][sx__rng_below(&r, 10)];
            if (task == SX_TASK_AFTER_MARKER) s[1] = '|';
            s[n] = 0;
            sx_task_encode(row, task, s, W);
            sx_task_split_of(&sp, task, row, 1, W);
            held += sp;
        }
        CHECK(held > trials * 13 / 100 && held < trials * 17 / 100, "%s: %d of %d held out",
              sx_task_name(task), held, trials);
    }
    /* Dates: every date 1900..2099, exactly. */
    int held = 0, all = 0, row[W], sp;
    for (int y = 1900; y <= 2099; y++)
        for (int m = 1; m <= 12; m++)
            for (int d = 1; d <= dim(y, m); d++) {
                char s[32];
                snprintf(s, sizeof s, "%d %s %d", d, MON[m - 1], y);
                sx_task_encode(row, SX_TASK_DATE, s, W);
                sx_task_split_of(&sp, SX_TASK_DATE, row, 1, W);
                held += sp, all++;
            }
    CHECK(all == 73049, "dates 1900..2099: %d", all);
    CHECK(held > all * 14 / 100 && held < all * 16 / 100, "dates: %d of %d held out", held, all);
    printf("date: %d of %d dates held out\n", held, all);
}

/* ------------------------------------------------------------------- dates */
static int answer_text(char *out, int task, const char *s) {
    int src[W], tgt[W];
    int st = sx_task_encode(src, task, s, W);
    if (!st) st = sx_task_answer(tgt, task, src, 1, W);
    if (!st) sx_task_decode(out, 64, task, tgt, W);
    return st;
}

static void test_dates(void) {
    static const char *ok[][2] = {
        { "1 Feb 2024", "2024-02-01" }, { "22 Nov 2026", "2026-11-22" }, { "29 Feb 2024", "2024-02-29" },
        { "29 Feb 2000", "2000-02-29" }, { "31 Dec 2099", "2099-12-31" }, { "1 Jan 1900", "1900-01-01" },
        { "9 Sep 1999", "1999-09-09" }, { "30 Apr 2010", "2010-04-30" }, { "05 Mar 2021", "2021-03-05" },
        { "31 Jul 1969", "1969-07-31" }, { "15 Oct 1582", "1582-10-15" },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char out[64] = "";
        int st = answer_text(out, SX_TASK_DATE, ok[i][0]);
        CHECK(st == SX_OK && !strcmp(out, ok[i][1]), "'%s' -> '%s' (got '%s', %s)", ok[i][0], ok[i][1], out,
              st ? sx_last_error() : "ok");
    }
    static const char *bad[][2] = {
        { "30 Feb 2024", "row 0: '30 Feb 2024' is not a valid date (February 2024 has 29 days)" },
        { "29 Feb 2023", "row 0: '29 Feb 2023' is not a valid date (February 2023 has 28 days)" },
        { "29 Feb 1900", "row 0: '29 Feb 1900' is not a valid date (February 1900 has 28 days)" },
        { "31 Apr 2024", "row 0: '31 Apr 2024' is not a valid date (April 2024 has 30 days)" },
        { "0 Jan 2024", "row 0: '0 Jan 2024' is not a valid date (January 2024 has 31 days)" },
        { "1 Jan 0000", "row 0: '1 Jan 0000': year 0000 does not exist" },
        { "1 Jan 24", "row 0: '1 Jan 24' is not a date like '22 Nov 2026' (day, month Jan..Dec, 4-digit year)" },
        { "123 Jan 2024", "row 0: '123 Jan 2024' is not a date like '22 Nov 2026' (day, month Jan..Dec, 4-digit year)" },
        { "1 Jun-2024", "row 0: '1 Jun-2024' is not a date like '22 Nov 2026' (day, month Jan..Dec, 4-digit year)" },
        { "1 Juy 2024", "row 0: '1 Juy 2024' is not a date like '22 Nov 2026' (day, month Jan..Dec, 4-digit year)" },
        { "", "row 0: '' is not a date like '22 Nov 2026' (day, month Jan..Dec, 4-digit year)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[64];
        CHECK(answer_text(out, SX_TASK_DATE, bad[i][0]) == SX_EINVAL && err_is(bad[i][1]), "'%s' rejected",
              bad[i][0]);
    }
    /* Generated dates: years 1900..2099, every month, day without a leading zero, 29 Feb only in
       leap years, and it does occur. */
    int n = 40000, feb29 = 0, feb29_bad = 0, months[12] = { 0 }, yrange = 1, zero = 0, short_day = 0;
    int *src = malloc(sizeof(int) * n * W), *tgt = malloc(sizeof(int) * n * W);
    sx_task_generate(src, tgt, SX_TASK_DATE, 0, 7, 0, n, W);
    for (int r = 0; r < n; r++) {
        char s[64], t[64];
        dec(s, SX_TASK_DATE, src + r * W, W), dec(t, SX_TASK_DATE, tgt + r * W, W);
        int y = atoi(t), m = atoi(t + 5), d = atoi(t + 8);
        yrange &= y >= 1900 && y <= 2099 && m >= 1 && m <= 12 && d >= 1 && d <= dim(y, m);
        if (y >= 1900 && m >= 1 && m <= 12) months[m - 1]++;
        zero += s[0] == '0';
        short_day += d < 10;
        if (m == 2 && d == 29) feb29++, feb29_bad += !leap(y);
    }
    CHECK(yrange, "generated dates are valid, years 1900..2099");
    CHECK(zero == 0 && short_day > n / 5, "days without a leading zero (%d of %d one digit)", short_day, n);
    CHECK(feb29 > 0 && feb29_bad == 0, "29 Feb: %d, %d in non-leap years", feb29, feb29_bad);
    for (int m = 0; m < 12; m++) CHECK(months[m] > n / 15, "month %d: %d", m + 1, months[m]);
    free(src), free(tgt);
}

/* ------------------------------------------------------- other solver cases */
static void test_answers(void) {
    static const struct { int task; const char *s, *want; } ok[] = {
        { SX_TASK_REVERSE, "abcde", "edcba" }, { SX_TASK_REVERSE, "", "" }, { SX_TASK_REVERSE, "j", "j" },
        { SX_TASK_REVERSE, "abcdefghijabc", "cbajihgfedcba" },
        { SX_TASK_SORT, "cabca", "aabcc" }, { SX_TASK_SORT, "jihgfedcba", "abcdefghij" },
        { SX_TASK_SORT, "ddd", "ddd" },
        { SX_TASK_AFTER_MARKER, "jd|abg", "abg" }, { SX_TASK_AFTER_MARKER, "|abc", "abc" },
        { SX_TASK_AFTER_MARKER, "abc|", "" }, { SX_TASK_AFTER_MARKER, "a|bcdefghija", "bcdefghija" },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char out[64] = "";
        int st = answer_text(out, ok[i].task, ok[i].s);
        CHECK(st == SX_OK && !strcmp(out, ok[i].want), "%s '%s' -> '%s' (got '%s', %s)", sx_task_name(ok[i].task),
              ok[i].s, ok[i].want, out, st ? sx_last_error() : "ok");
    }
    char out[64];
    CHECK(answer_text(out, SX_TASK_AFTER_MARKER, "abc") == SX_EINVAL &&
          err_is("row 0: 'abc' has 0 '|' markers (need exactly 1)"), "no marker");
    CHECK(answer_text(out, SX_TASK_AFTER_MARKER, "a|b|c") == SX_EINVAL &&
          err_is("row 0: 'a|b|c' has 2 '|' markers (need exactly 1)"), "two markers");
    /* The failing row is named and nothing is written. */
    int src[3 * W], tgt[3 * W];
    sx_task_encode(src, SX_TASK_AFTER_MARKER, "a|b", W);
    sx_task_encode(src + W, SX_TASK_AFTER_MARKER, "ab|c", W);
    sx_task_encode(src + 2 * W, SX_TASK_AFTER_MARKER, "abc", W);
    for (int k = 0; k < 3 * W; k++) tgt[k] = -7;
    CHECK(sx_task_answer(tgt, SX_TASK_AFTER_MARKER, src, 3, W) == SX_EINVAL &&
          err_is("row 2: 'abc' has 0 '|' markers (need exactly 1)"), "row named");
    int untouched = 1;
    for (int k = 0; k < 3 * W; k++) untouched &= tgt[k] == -7;
    CHECK(untouched, "a failed answer writes nothing");
    /* Answer too long for max_len: reverse of 11 letters in 12 tokens needs 13. */
    int s12[12], t12[12];
    sx_task_encode(s12, SX_TASK_REVERSE, "abcdefghija", 12);
    CHECK(sx_task_answer(t12, SX_TASK_REVERSE, s12, 1, 12) == SX_EINVAL &&
          err_is("row 0: the answer has 11 characters; max_len 12 holds at most 10 with BOS and EOS"),
          "answer does not fit");
}

/* ------------------------------------------------------- text <-> tokens */
static void test_round_trip(void) {
    for (int task = 0; task < 4; task++) {
        int v = sx_task_vocab_size(task), row[64];
        char all[64], back[64];
        for (int t = 3; t < v; t++) all[t - 3] = (char)sx_task_token_char(task, t);
        all[v - 3] = 0;
        CHECK(sx_task_encode(row, task, all, v - 2) == SX_OK, "encode alphabet: %s", sx_last_error());
        int tokens_ok = row[v - 3] == SX_TOKEN_EOS;
        for (int t = 3; t < v; t++) tokens_ok &= row[t - 3] == t;
        CHECK(tokens_ok, "%s: character k of the alphabet is token 3 + k, then EOS", sx_task_name(task));
        CHECK(sx_task_decode(back, 64, task, row, v - 2) == SX_OK && !strcmp(back, all), "%s: round trip",
              sx_task_name(task));
        /* Generated rows: decode then encode gives the src row back. */
        int src[50 * W], tgt[50 * W], re[W], same = 1;
        sx_task_generate(src, tgt, task, 1, 3, 0, 50, W);
        for (int r = 0; r < 50; r++) {
            char s[64];
            dec(s, task, src + r * W, W);
            same &= sx_task_encode(re, task, s, W) == SX_OK && !memcmp(re, src + r * W, sizeof re);
        }
        CHECK(same, "%s: decode/encode round trip of generated rows", sx_task_name(task));
    }
    /* Decoding: BOS skipped anywhere, stops at EOS or PAD; exact cap. */
    int toks[] = { SX_TOKEN_BOS, 3, 4, SX_TOKEN_BOS, 5, SX_TOKEN_EOS, 6, 7 };
    char out[8];
    CHECK(sx_task_decode(out, 4, SX_TASK_REVERSE, toks, 8) == SX_OK && !strcmp(out, "abc"), "decode: '%s'", out);
    int toks2[] = { 3, SX_TOKEN_PAD, 4 };
    CHECK(sx_task_decode(out, 8, SX_TASK_REVERSE, toks2, 3) == SX_OK && !strcmp(out, "a"), "PAD stops decoding");
    CHECK(sx_task_decode(out, 8, SX_TASK_REVERSE, toks2, 0) == SX_OK && !strcmp(out, ""), "n = 0");
    /* Encode fills exactly max_len = strlen + 1 (no PAD). */
    int r4[4];
    CHECK(sx_task_encode(r4, SX_TASK_SORT, "cba", 4) == SX_OK && r4[0] == 5 && r4[1] == 4 && r4[2] == 3 &&
          r4[3] == SX_TOKEN_EOS, "encode exact fit");
}

/* ------------------------------------------------------------------- pins */
/* The first examples of seed 42, pinned: any change to the generator, the PRNG or the split
   rule (or a platform difference) shows up here. The JS tests can pin the same strings. */
static void test_pinned(void) {
    static const char *pins[4][2][3] = {
        { { "fhgjhgidig", "fhcchhgic", "acecghej" }, { "eaebh", "cecbaa", "jdgcdd" } },
        { { "acgebe", "djie", "hag" }, { "gacji", "cbje", "hcaj" } },
        { { "ihabcacfi|je", "icedhe|jcbii", "c|d" }, { "d|h", "j|bci", "ciijac|gci" } },
        { { "19 Mar 2052", "30 Apr 2008", "16 Aug 2068" }, { "3 Aug 2093", "29 Aug 2025", "3 Apr 1933" } },
    };
    int found = 1;
    for (int task = 0; task < 4; task++)
        for (int split = 0; split < 2; split++) {
            int src[3 * W], tgt[3 * W];
            sx_task_generate(src, tgt, task, split, 42, 0, 3, W);
            for (int r = 0; r < 3; r++) {
                char s[64];
                dec(s, task, src + r * W, W);
                if (!pins[task][split][r] || strcmp(s, pins[task][split][r])) {
                    found = 0;
                    fprintf(stderr, "  pin %s split %d row %d: \"%s\"\n", sx_task_name(task), split, r, s);
                }
            }
        }
    CHECK(found, "pinned examples of seed 42");
}

/* ------------------------------------------------------------------- errors */
static void test_errors(void) {
    int src[W], tgt[W], sp;
    char text[8];
    CHECK(sx_task_name(4) == NULL && err_is("task must be 0..3 (got 4)"), "name of a bad task");
    CHECK(sx_task_vocab_size(-1) == 0 && err_is("task must be 0..3 (got -1)"), "vocab of a bad task");
    CHECK(sx_task_width(9) == 0 && err_is("task must be 0..3 (got 9)"), "width of a bad task");
    CHECK(sx_task_lengths(NULL, NULL, NULL, NULL, 4) == SX_EINVAL && err_is("task must be 0..3 (got 4)"), "lengths");
    CHECK(sx_task_token_char(5, 3) == -1 && err_is("task must be 0..3 (got 5)"), "token_char bad task");
    CHECK(sx_task_token_char(0, 13) == -1 && err_is("token must be 0..12 for task reverse (got 13)"), "token 13");
    CHECK(sx_task_token_char(3, -1) == -1 && err_is("token must be 0..36 for task date (got -1)"), "token -1");

    CHECK(sx_task_generate(src, tgt, 4, 0, 1, 0, 1, W) == SX_EINVAL && err_is("task must be 0..3 (got 4)"), "gen task");
    CHECK(sx_task_generate(src, tgt, 0, 2, 1, 0, 1, W) == SX_EINVAL &&
          err_is("split must be 0 (train) or 1 (held-out) (got 2)"), "gen split");
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, 0, -1, W) == SX_EINVAL && err_is("count must be >= 0 (got -1)"),
          "gen count");
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, -5, 1, W) == SX_EINVAL && err_is("start must be >= 0 (got -5)"),
          "gen start");
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, 2147483647, 1, W) == SX_EINVAL &&
          err_is("start + count must be <= 2147483647 (got 2147483647 + 1)"), "gen start + count");
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, 0, 1, 11) == SX_EINVAL &&
          err_is("max_len must be >= 12 for task reverse (got 11)"), "gen max_len reverse");
    CHECK(sx_task_generate(src, tgt, 2, 0, 1, 0, 1, 12) == SX_EINVAL &&
          err_is("max_len must be >= 13 for task after_marker (got 12)"), "gen max_len marker");
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, 0, 100000000, 100) == SX_EINVAL &&
          err_is("count * max_len too large (100000000 * 100)"), "gen too large");
    CHECK(sx_task_generate(NULL, tgt, 0, 0, 1, 0, 1, W) == SX_EINVAL && err_is("null buffer (src)"), "gen null");
    for (int k = 0; k < W; k++) src[k] = tgt[k] = -3;
    sx_task_generate(src, tgt, 0, 0, 1, 0, 1, 5);
    CHECK(src[0] == -3 && tgt[0] == -3, "a failed generate writes nothing");
    /* The largest start works (the stream index is 32-bit clean). */
    CHECK(sx_task_generate(src, tgt, 0, 0, 1, 2147483646, 1, W) == SX_OK, "start 2^31 - 2");

    CHECK(sx_task_encode(src, 0, "abZde", W) == SX_EINVAL &&
          err_is("unknown character 'Z' at position 2 for task reverse (alphabet \"abcdefghij\")"), "unknown Z");
    CHECK(sx_task_encode(src, 2, "ab|c d", W) == SX_EINVAL &&
          err_is("unknown character ' ' at position 4 for task after_marker (alphabet \"abcdefghij|\")"), "space");
    CHECK(sx_task_encode(src, 3, "22 NOV 2026", W) == SX_EINVAL &&
          err_is("unknown character 'V' at position 5 for task date (alphabet \" -0123456789ADFJMNOSabceglnoprtuvy\")"),
          "upper-case month");
    CHECK(sx_task_encode(src, 1, "a\xc3\xa9", W) == SX_EINVAL &&
          err_is("unknown character (byte 195) at position 1 for task sort (alphabet \"abcdefghij\")"), "utf-8");
    CHECK(sx_task_encode(src, 0, "abcdefghij", 10) == SX_EINVAL &&
          err_is("text of 10 characters needs max_len >= 11 (got 10)"), "encode too long");
    CHECK(sx_task_encode(src, 0, "", 0) == SX_EINVAL && err_is("text of 0 characters needs max_len >= 1 (got 0)"),
          "encode max_len 0");
    CHECK(sx_task_encode(src, 7, "abc", W) == SX_EINVAL && err_is("task must be 0..3 (got 7)"), "encode task");
    CHECK(sx_task_encode(src, 0, NULL, W) == SX_EINVAL && err_is("null buffer (text)"), "encode null");

    int bad_tok[4] = { 3, 20, SX_TOKEN_EOS, 0 };
    CHECK(sx_task_decode(text, 8, 0, bad_tok, 4) == SX_EINVAL &&
          err_is("tokens[1] must be 0..12 for task reverse (got 20)"), "decode bad token");
    int abc[4] = { 3, 4, 5, SX_TOKEN_EOS };
    strcpy(text, "zz");
    CHECK(sx_task_decode(text, 3, 0, abc, 4) == SX_EINVAL &&
          err_is("the text has 3 characters; cap must be >= 4 (got 3)"), "decode cap");
    CHECK(!strcmp(text, "zz"), "a failed decode writes nothing");
    CHECK(sx_task_decode(text, 8, 0, abc, -1) == SX_EINVAL && err_is("n must be >= 0 (got -1)"), "decode n");
    CHECK(sx_task_decode(text, 0, 0, abc, 4) == SX_EINVAL && err_is("cap must be >= 1 (got 0)"), "decode cap 0");
    CHECK(sx_task_decode(text, 8, -1, abc, 4) == SX_EINVAL && err_is("task must be 0..3 (got -1)"), "decode task");
    CHECK(sx_task_decode(NULL, 8, 0, abc, 4) == SX_EINVAL && err_is("null buffer (text)"), "decode null");

    /* Malformed src rows for answer / split_of. */
    int no_eos[4] = { 3, 4, 5, 6 }, pad_first[4] = { 3, SX_TOKEN_PAD, SX_TOKEN_EOS, 0 };
    int bos_in[4] = { SX_TOKEN_BOS, 3, SX_TOKEN_EOS, 0 }, big[4] = { 3, 13, SX_TOKEN_EOS, 0 };
    int two[8] = { 3, SX_TOKEN_EOS, 0, 0, 3, 4, 5, 6 };
    CHECK(sx_task_answer(tgt, 0, no_eos, 1, 4) == SX_EINVAL && err_is("src row 0 has no EOS in its 4 tokens"),
          "no EOS");
    CHECK(sx_task_answer(tgt, 0, two, 2, 4) == SX_EINVAL && err_is("src row 1 has no EOS in its 4 tokens"),
          "no EOS, row 1");
    CHECK(sx_task_answer(tgt, 0, pad_first, 1, 4) == SX_EINVAL && err_is("src row 0, position 1: PAD before EOS"),
          "PAD before EOS");
    CHECK(sx_task_answer(tgt, 0, bos_in, 1, 4) == SX_EINVAL && err_is("src row 0, position 0: BOS before EOS"),
          "BOS in src");
    CHECK(sx_task_answer(tgt, 0, big, 1, 4) == SX_EINVAL &&
          err_is("src row 0, position 1: token must be 0..12 for task reverse (got 13)"), "token 13 in src");
    CHECK(sx_task_answer(tgt, 0, abc, -1, 4) == SX_EINVAL && err_is("count must be >= 0 (got -1)"), "answer count");
    CHECK(sx_task_answer(tgt, 0, abc, 1, 0) == SX_EINVAL && err_is("max_len must be >= 1 (got 0)"), "answer max_len");
    CHECK(sx_task_answer(tgt, 0, abc, 1, 300) == SX_EINVAL && err_is("max_len must be <= 240 (got 300)"),
          "answer max_len too big");
    CHECK(sx_task_answer(NULL, 0, abc, 1, 4) == SX_EINVAL && err_is("null buffer (tgt)"), "answer null");
    CHECK(sx_task_answer(tgt, 4, abc, 1, 4) == SX_EINVAL && err_is("task must be 0..3 (got 4)"), "answer task");
    CHECK(sx_task_answer(NULL, 0, NULL, 0, 4) == SX_OK, "answer count 0");
    CHECK(sx_task_split_of(&sp, 0, pad_first, 1, 4) == SX_EINVAL &&
          err_is("src row 0, position 1: PAD before EOS"), "split_of bad row");
    CHECK(sx_task_split_of(&sp, 0, abc, 1, 300) == SX_EINVAL && err_is("max_len must be <= 256 (got 300)"),
          "split_of max_len");
    CHECK(sx_task_split_of(&sp, -2, abc, 1, 4) == SX_EINVAL && err_is("task must be 0..3 (got -2)"), "split_of task");
    CHECK(sx_task_split_of(NULL, 0, abc, 1, 4) == SX_EINVAL && err_is("null buffer (split)"), "split_of null");
}

int main(void) {
    test_rng();
    test_queries();
    test_generate();
    test_split_fraction();
    test_dates();
    test_answers();
    test_round_trip();
    test_pinned();
    test_errors();
    return sx_test_summary("test_tasks");
}
