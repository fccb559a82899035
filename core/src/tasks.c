/* tasks.c - the toy sequence tasks: alphabets, the split rule, reference solvers, generators,
   and text <-> token conversion. See tasks.h for the tasks, token conventions and split rule.
   Integer arithmetic only, so every platform generates the same bytes. */
#include <stdint.h>
#include <string.h>
#include "internal.h"
#include "rng.h"
#include "tasks.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

/* Longest source of any task, in characters (sizes the stack buffers). */
#define SX__TASK_MAX_CHARS 16
/* Redraws before giving up on landing in a split; with 15% held out the chance of reaching it
   is 0.85^1000 < 1e-70, so it only bounds the loop. */
#define SX__TASK_MAX_DRAWS 1000
/* Held-out when hash % SX__SPLIT_MOD < SX__SPLIT_HELDOUT: 3 / 20 = 15%. */
#define SX__SPLIT_MOD 20u
#define SX__SPLIT_HELDOUT 3u

/* ------------------------------------------------------------------ task table */
typedef struct {
    const char *name;
    const char *alphabet; /* ASCII order: token 3 + k is alphabet[k] */
    int min_src, max_src, min_tgt, max_tgt;
} sx__task_info;

static const sx__task_info sx__tasks[SX_TASK_COUNT] = {
    { "reverse", "abcdefghij", 3, 10, 3, 10 },
    { "sort", "abcdefghij", 3, 10, 3, 10 },
    { "after_marker", "abcdefghij|", 3, 12, 1, 10 },
    { "date", " -0123456789ADFJMNOSabceglnoprtuvy", 10, 11, 10, 10 },
};

static const char *const sx__months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const sx__month_names[12] = { "January", "February", "March", "April",
                                                 "May", "June", "July", "August",
                                                 "September", "October", "November", "December" };
#define SX__YEAR_MIN 1900
#define SX__YEAR_MAX 2099

static int check_task(int task) {
    if (task < 0 || task >= SX_TASK_COUNT)
        return sx__fail(SX_EINVAL, -1, "task must be 0..%d (got %d)", SX_TASK_COUNT - 1, task);
    return SX_OK;
}

static int alphabet_size(int task) { return (int)strlen(sx__tasks[task].alphabet); }

static int width_of(int task) {
    const sx__task_info *t = &sx__tasks[task];
    return t->max_src + 1 > t->max_tgt + 2 ? t->max_src + 1 : t->max_tgt + 2;
}

/* Token of character c in the task's alphabet, or -1. */
static int token_of(int task, char c) {
    const char *a = sx__tasks[task].alphabet;
    for (int k = 0; a[k]; k++)
        if (a[k] == c) return 3 + k;
    return -1;
}

/* ------------------------------------------------------------------ split rule */
/* FNV-1a 64 over (task, characters), then the splitmix64 finaliser. */
static unsigned split_of_chars(int task, const char *s, int n) {
    uint64_t h = 0xcbf29ce484222325ull;
    h = (h ^ (uint64_t)(task + 1)) * 0x100000001b3ull;
    for (int i = 0; i < n; i++) h = (h ^ (uint64_t)(unsigned char)s[i]) * 0x100000001b3ull;
    return (unsigned)(sx__mix64(h) % SX__SPLIT_MOD) < SX__SPLIT_HELDOUT ? SX_TASK_HELDOUT : SX_TASK_TRAIN;
}

/* ------------------------------------------------------------- dates */
static int is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int y, int m) {
    static const int d[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && is_leap(y) ? 29 : d[m - 1];
}

/* Quote a source for a message: at most 40 characters. */
static const char *quoted(char *buf, const char *s, int n) {
    int k = 0;
    buf[k++] = '\'';
    for (int i = 0; i < n && i < 40; i++) buf[k++] = s[i];
    if (n > 40) { buf[k++] = '.'; buf[k++] = '.'; buf[k++] = '.'; }
    buf[k++] = '\'';
    buf[k] = 0;
    return buf;
}

/* "D Mon YYYY" -> day, month, year; SX_OK or a recorded failure naming the row. */
static int parse_date(int *day, int *month, int *year, const char *s, int n, int row) {
    char q[48];
    int i = 0, d = 0, m = -1, y = 0;
    while (i < n && i < 2 && s[i] >= '0' && s[i] <= '9') d = d * 10 + (s[i++] - '0');
    int ok = i >= 1 && i + 9 == n && s[i] == ' ' && s[i + 4] == ' ';
    if (ok) {
        for (int k = 0; k < 12; k++)
            if (!memcmp(s + i + 1, sx__months[k], 3)) m = k + 1;
        for (int k = i + 5; k < n; k++) {
            if (s[k] < '0' || s[k] > '9') ok = 0;
            else y = y * 10 + (s[k] - '0');
        }
    }
    if (!ok || m < 0)
        return sx__fail(SX_EINVAL, -1, "row %d: %s is not a date like '22 Nov 2026' (day, month "
                        "Jan..Dec, 4-digit year)", row, quoted(q, s, n));
    if (y < 1) return sx__fail(SX_EINVAL, -1, "row %d: %s: year 0000 does not exist", row, quoted(q, s, n));
    if (d < 1 || d > days_in_month(y, m))
        return sx__fail(SX_EINVAL, -1, "row %d: %s is not a valid date (%s %d has %d days)", row,
                        quoted(q, s, n), sx__month_names[m - 1], y, days_in_month(y, m));
    *day = d, *month = m, *year = y;
    return SX_OK;
}

static void put2(char *o, int v) { o[0] = (char)('0' + v / 10), o[1] = (char)('0' + v % 10); }

/* ------------------------------------------------------------- reference solvers */
/* The answer to source s (n characters, all in the alphabet) into out (*m characters, at most
   SX__TASK_MAX_CHARS... or n when longer: out holds n + 10 characters). */
static int solve(char *out, int *m, int task, const char *s, int n, int row) {
    if (task == SX_TASK_REVERSE) {
        for (int i = 0; i < n; i++) out[i] = s[n - 1 - i];
        *m = n;
    } else if (task == SX_TASK_SORT) {
        /* counting sort over the (ASCII-ordered) alphabet */
        const char *a = sx__tasks[task].alphabet;
        int k = 0;
        for (int c = 0; a[c]; c++)
            for (int i = 0; i < n; i++)
                if (s[i] == a[c]) out[k++] = a[c];
        *m = k;
    } else if (task == SX_TASK_AFTER_MARKER) {
        int at = -1, markers = 0;
        for (int i = 0; i < n; i++)
            if (s[i] == '|') { markers++; if (at < 0) at = i; }
        if (markers != 1) {
            char q[48];
            return sx__fail(SX_EINVAL, -1, "row %d: %s has %d '|' markers (need exactly 1)", row,
                            quoted(q, s, n), markers);
        }
        *m = n - at - 1;
        memcpy(out, s + at + 1, (size_t)*m);
    } else {
        int d = 0, mo = 0, y = 0; /* set by parse_date on success (quiets gcc -O1) */
        int st = parse_date(&d, &mo, &y, s, n, row);
        if (st) return st;
        put2(out, y / 100), put2(out + 2, y % 100);
        out[4] = '-', put2(out + 5, mo), out[7] = '-', put2(out + 8, d);
        *m = 10;
    }
    return SX_OK;
}

/* ------------------------------------------------------------- generators */
/* One candidate source of the task into s; returns its length. */
static int draw_source(char *s, int task, sx__rng *r) {
    const sx__task_info *t = &sx__tasks[task];
    if (task == SX_TASK_DATE) {
        int y = sx__rng_range(r, SX__YEAR_MIN, SX__YEAR_MAX);
        int m = sx__rng_range(r, 1, 12);
        int d = sx__rng_range(r, 1, days_in_month(y, m));
        int n = 0;
        if (d >= 10) s[n++] = (char)('0' + d / 10);
        s[n++] = (char)('0' + d % 10);
        s[n++] = ' ';
        memcpy(s + n, sx__months[m - 1], 3), n += 3;
        s[n++] = ' ';
        put2(s + n, y / 100), put2(s + n + 2, y % 100), n += 4;
        return n;
    }
    int n = sx__rng_range(r, t->min_src, t->max_src);
    const uint32_t letters = 10; /* a..j: the first ten symbols of the three letter alphabets */
    for (int i = 0; i < n; i++) s[i] = t->alphabet[sx__rng_below(r, letters)];
    if (task == SX_TASK_AFTER_MARKER) s[sx__rng_range(r, 1, n - 2)] = '|';
    return n;
}

/* Row writers: src = chars EOS PAD..., tgt = BOS chars EOS PAD... */
static void write_src(int *row, int task, const char *s, int n, int max_len) {
    int k = 0;
    for (int i = 0; i < n; i++) row[k++] = token_of(task, s[i]);
    row[k++] = SX_TOKEN_EOS;
    while (k < max_len) row[k++] = SX_TOKEN_PAD;
}

static void write_tgt(int *row, int task, const char *s, int n, int max_len) {
    row[0] = SX_TOKEN_BOS;
    write_src(row + 1, task, s, n, max_len - 1);
}

/* ------------------------------------------------------------------ queries */
int sx_task_count(void) { return SX_TASK_COUNT; }

const char *sx_task_name(int task) { return check_task(task) ? NULL : sx__tasks[task].name; }

int sx_task_vocab_size(int task) { return check_task(task) ? 0 : 3 + alphabet_size(task); }

int sx_task_width(int task) { return check_task(task) ? 0 : width_of(task); }

int sx_task_lengths(int *min_src, int *max_src, int *min_tgt, int *max_tgt, int task) {
    int st = check_task(task);
    if (st) return st;
    const sx__task_info *t = &sx__tasks[task];
    if (min_src) *min_src = t->min_src;
    if (max_src) *max_src = t->max_src;
    if (min_tgt) *min_tgt = t->min_tgt;
    if (max_tgt) *max_tgt = t->max_tgt;
    return SX_OK;
}

int sx_task_token_char(int task, int token) {
    if (check_task(task)) return -1;
    int v = 3 + alphabet_size(task);
    if (token < 0 || token >= v)
        return sx__fail(SX_EINVAL, -1, "token must be 0..%d for task %s (got %d)", v - 1,
                        sx__tasks[task].name, token), -1;
    return token < 3 ? 0 : (unsigned char)sx__tasks[task].alphabet[token - 3];
}

/* --------------------------------------------------------------- generation */
int sx_task_generate(int *src, int *tgt, int task, int split, unsigned seed, int start, int count,
                     int max_len) {
    int st = check_task(task);
    if (st) return st;
    if (split != SX_TASK_TRAIN && split != SX_TASK_HELDOUT)
        return sx__fail(SX_EINVAL, -1, "split must be 0 (train) or 1 (held-out) (got %d)", split);
    if (count < 0) return sx__fail(SX_EINVAL, -1, "count must be >= 0 (got %d)", count);
    if (start < 0) return sx__fail(SX_EINVAL, -1, "start must be >= 0 (got %d)", start);
    if (count > INT32_MAX - start)
        return sx__fail(SX_EINVAL, -1, "start + count must be <= 2147483647 (got %d + %d)", start, count);
    if (max_len < width_of(task))
        return sx__fail(SX_EINVAL, -1, "max_len must be >= %d for task %s (got %d)", width_of(task),
                        sx__tasks[task].name, max_len);
    if ((int64_t)count * max_len > INT32_MAX / 4)
        return sx__fail(SX_EINVAL, -1, "count * max_len too large (%d * %d)", count, max_len);
    if (count > 0 && (!src || !tgt)) return sx__null(src ? "tgt" : "src");

    for (int i = 0; i < count; i++) {
        uint64_t index = (uint64_t)(uint32_t)(start + i);
        uint64_t stream = ((uint64_t)(unsigned)task << 40) ^ ((uint64_t)(unsigned)split << 32) ^ index;
        sx__rng r;
        sx__rng_init(&r, (uint64_t)seed, stream);
        char s[SX__TASK_MAX_CHARS], a[SX__TASK_MAX_CHARS];
        int n = 0, m = 0, draws = 0;
        do {
            if (++draws > SX__TASK_MAX_DRAWS)
                return sx__fail(SX_EINVAL, -1, "no %s source in split %d after %d draws (example %d)",
                                sx__tasks[task].name, split, SX__TASK_MAX_DRAWS, start + i);
            n = draw_source(s, task, &r);
        } while ((int)split_of_chars(task, s, n) != split);
        solve(a, &m, task, s, n, i); /* cannot fail: generated sources are in the domain */
        write_src(src + (size_t)i * max_len, task, s, n, max_len);
        write_tgt(tgt + (size_t)i * max_len, task, a, m, max_len);
    }
    return SX_OK;
}

/* ------------------------------------------------------- reading source rows */
static int check_rows(const void *out, const char *out_name, const void *in, int count, int max_len) {
    if (count < 0) return sx__fail(SX_EINVAL, -1, "count must be >= 0 (got %d)", count);
    if (max_len < 1) return sx__fail(SX_EINVAL, -1, "max_len must be >= 1 (got %d)", max_len);
    if ((int64_t)count * max_len > INT32_MAX / 4)
        return sx__fail(SX_EINVAL, -1, "count * max_len too large (%d * %d)", count, max_len);
    if (count > 0 && (!out || !in)) return sx__null(out ? "src" : out_name);
    return SX_OK;
}

/* Source row -> characters (s holds max_len characters); *n = characters before EOS. */
static int read_src(char *s, int *n, int task, const int *row, int max_len, int r) {
    int v = 3 + alphabet_size(task);
    for (int k = 0; k < max_len; k++) {
        int t = row[k];
        if (t == SX_TOKEN_EOS) { *n = k; return SX_OK; }
        if (t < 0 || t >= v)
            return sx__fail(SX_EINVAL, -1, "src row %d, position %d: token must be 0..%d for task %s "
                            "(got %d)", r, k, v - 1, sx__tasks[task].name, t);
        if (t < 3)
            return sx__fail(SX_EINVAL, -1, "src row %d, position %d: %s before EOS", r, k,
                            t == SX_TOKEN_PAD ? "PAD" : "BOS");
        s[k] = sx__tasks[task].alphabet[t - 3];
    }
    return sx__fail(SX_EINVAL, -1, "src row %d has no EOS in its %d tokens", r, max_len);
}

/* The char buffers of the row functions: max_len characters plus a date answer's 10. */
#define SX__ROW_STACK 256

/* -------------------------------------------------------- reference solver */
int sx_task_answer(int *tgt, int task, const int *src, int count, int max_len) {
    int st = check_task(task);
    if (!st) st = check_rows(tgt, "tgt", src, count, max_len);
    if (st) return st;
    if (max_len > SX__ROW_STACK - 16)
        return sx__fail(SX_EINVAL, -1, "max_len must be <= %d (got %d)", SX__ROW_STACK - 16, max_len);
    /* Validate every row before writing any (a failure writes nothing). */
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < count; r++) {
            char s[SX__ROW_STACK], a[SX__ROW_STACK];
            int n, m;
            if ((st = read_src(s, &n, task, src + (size_t)r * max_len, max_len, r))) return st;
            if ((st = solve(a, &m, task, s, n, r))) return st;
            if (m + 2 > max_len)
                return sx__fail(SX_EINVAL, -1, "row %d: the answer has %d characters; max_len %d holds "
                                "at most %d with BOS and EOS", r, m, max_len, max_len - 2);
            if (pass) write_tgt(tgt + (size_t)r * max_len, task, a, m, max_len);
        }
    }
    return SX_OK;
}

int sx_task_split_of(int *split, int task, const int *src, int count, int max_len) {
    int st = check_task(task);
    if (!st) st = check_rows(split, "split", src, count, max_len);
    if (st) return st;
    if (max_len > SX__ROW_STACK)
        return sx__fail(SX_EINVAL, -1, "max_len must be <= %d (got %d)", SX__ROW_STACK, max_len);
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < count; r++) {
            char s[SX__ROW_STACK];
            int n;
            if ((st = read_src(s, &n, task, src + (size_t)r * max_len, max_len, r))) return st;
            if (pass) split[r] = (int)split_of_chars(task, s, n);
        }
    }
    return SX_OK;
}

/* ------------------------------------------------------------ text <-> tokens */
int sx_task_encode(int *src, int task, const char *text, int max_len) {
    int st = check_task(task);
    if (st) return st;
    if (!src || !text) return sx__null(src ? "text" : "src");
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        if (token_of(task, text[i]) >= 0) continue;
        unsigned char c = (unsigned char)text[i];
        if (c >= 32 && c < 127) {
            char ch[2] = { (char)c, 0 };
            return sx__fail(SX_EINVAL, -1, "unknown character '%s' at position %d for task %s "
                            "(alphabet \"%s\")", ch, (int)i, sx__tasks[task].name, sx__tasks[task].alphabet);
        }
        return sx__fail(SX_EINVAL, -1, "unknown character (byte %d) at position %d for task %s "
                        "(alphabet \"%s\")", (int)c, (int)i, sx__tasks[task].name, sx__tasks[task].alphabet);
    }
    if (max_len < 1 || n + 1 > (size_t)max_len)
        return sx__fail(SX_EINVAL, -1, "text of %d characters needs max_len >= %d (got %d)",
                        n > 100000 ? 100000 : (int)n, n > 100000 ? 100001 : (int)n + 1, max_len);
    write_src(src, task, text, (int)n, max_len);
    return SX_OK;
}

int sx_task_decode(char *text, int cap, int task, const int *tokens, int n) {
    int st = check_task(task);
    if (st) return st;
    if (n < 0) return sx__fail(SX_EINVAL, -1, "n must be >= 0 (got %d)", n);
    if (cap < 1) return sx__fail(SX_EINVAL, -1, "cap must be >= 1 (got %d)", cap);
    if (!text || (n > 0 && !tokens)) return sx__null(text ? "tokens" : "text");
    int v = 3 + alphabet_size(task), len = 0;
    /* First pass validates and measures, so a failure writes nothing. */
    for (int pass = 0; pass < 2; pass++) {
        len = 0;
        for (int k = 0; k < n; k++) {
            int t = tokens[k];
            if (t < 0 || t >= v)
                return sx__fail(SX_EINVAL, -1, "tokens[%d] must be 0..%d for task %s (got %d)", k, v - 1,
                                sx__tasks[task].name, t);
            if (t == SX_TOKEN_EOS || t == SX_TOKEN_PAD) break;
            if (t == SX_TOKEN_BOS) continue;
            if (pass) text[len] = sx__tasks[task].alphabet[t - 3];
            len++;
        }
        if (len + 1 > cap)
            return sx__fail(SX_EINVAL, -1, "the text has %d characters; cap must be >= %d (got %d)", len,
                            len + 1, cap);
    }
    text[len] = 0;
    return SX_OK;
}

SX_COLD_END
