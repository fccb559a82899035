/* ngram.c - interpolated modified Kneser-Ney character n-grams (ngram.h says what it computes).

   A k-gram s_1 .. s_k (oldest first) is the key sum_i s_i 256^(k - i): its context (the first
   k - 1 symbols) is key >> 8, its suffix (the last k - 1) key mod 256^(k - 1). Per order k, one
   table maps k-grams to their count c_k and one maps contexts to c_k(h .), N1, N2, N3+. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ngram.h"

/* ---------------------------------------------------------------- hash table */
/* Open addressing, linear probing, power-of-two capacity, at most half full. A slot's key has
   its top bit set when used (keys are below 2^56). Each slot holds `width` int32 values. */
#define USED (1ULL << 63)

typedef struct {
    uint64_t *keys;
    int32_t *vals;
    size_t cap, len;
    int width;
} table;

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static int table_init(table *t, size_t cap, int width) {
    t->cap = cap; t->len = 0; t->width = width;
    t->keys = calloc(cap, sizeof *t->keys);
    t->vals = calloc(cap * width, sizeof *t->vals);
    return t->keys && t->vals;
}

static void table_free(table *t) { free(t->keys); free(t->vals); }

static size_t slot_of(const table *t, uint64_t key) {
    size_t i = mix(key) & (t->cap - 1);
    while (t->keys[i] && t->keys[i] != (key | USED)) i = (i + 1) & (t->cap - 1);
    return i;
}

static const int32_t *table_get(const table *t, uint64_t key) {
    size_t i = slot_of(t, key);
    return t->keys[i] ? t->vals + i * t->width : NULL;
}

static int table_grow(table *t) {
    table bigger;
    if (!table_init(&bigger, t->cap * 2, t->width)) { table_free(&bigger); return 0; }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i]) continue;
        size_t j = slot_of(&bigger, t->keys[i] & ~USED);
        bigger.keys[j] = t->keys[i];
        memcpy(bigger.vals + j * t->width, t->vals + i * t->width, t->width * sizeof *t->vals);
    }
    bigger.len = t->len;
    table_free(t);
    *t = bigger;
    return 1;
}

/* The values of key, added (zeroed) if absent; NULL when out of memory. */
static int32_t *table_add(table *t, uint64_t key) {
    if (2 * (t->len + 1) > t->cap && !table_grow(t)) return NULL;
    size_t i = slot_of(t, key);
    if (!t->keys[i]) { t->keys[i] = key | USED; t->len++; }
    return t->vals + i * t->width;
}

/* --------------------------------------------------------------------- model */
struct tx_ngram {
    int order, vocab, pad;
    table grams[TX_MAX_ORDER + 1]; /* [k]: k-gram -> c_k */
    table ctx[TX_MAX_ORDER + 1];   /* [k]: (k-1)-gram -> c_k(h .), N1, N2, N3+ */
    double d[TX_MAX_ORDER + 1][4]; /* [k][c], c = 1, 2, 3 */
};

static uint64_t low_mask(int k) { return k >= 8 ? ~0ULL : (1ULL << (8 * k)) - 1; }

static int fail(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && len) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 0;
}

/* c_N: the raw counts of the padded text's N-grams. */
static int count_top(tx_ngram *m, const unsigned char *text, size_t n, char *err, size_t len) {
    const int N = m->order;
    uint64_t key = 0;
    for (int i = 0; i < N - 1; i++) key = (key << 8) | (uint64_t)m->pad;
    for (size_t i = 0; i < n; i++) {
        if (text[i] >= m->vocab) return fail(err, len, "ngram_build: text[%zu] = %d is not below vocab (%d)", i, text[i], m->vocab);
        key = ((key << 8) | text[i]) & low_mask(N);
        int32_t *c = table_add(&m->grams[N], key);
        if (!c) return fail(err, len, "ngram_build: out of memory (%d-grams, %zu of them)", N, m->grams[N].len);
        c[0]++;
    }
    return 1;
}

/* c_k for k < N: one per distinct (k+1)-gram, credited to its suffix. */
static int count_continuations(tx_ngram *m, int k, char *err, size_t len) {
    const table *up = &m->grams[k + 1];
    for (size_t i = 0; i < up->cap; i++) {
        if (!up->keys[i]) continue;
        int32_t *c = table_add(&m->grams[k], (up->keys[i] & ~USED) & low_mask(k));
        if (!c) return fail(err, len, "ngram_build: out of memory (%d-grams, %zu of them)", k, m->grams[k].len);
        c[0]++;
    }
    return 1;
}

/* c_k(h .), N1, N2, N3+ of every context of order k. */
static int count_contexts(tx_ngram *m, int k, char *err, size_t len) {
    const table *g = &m->grams[k];
    for (size_t i = 0; i < g->cap; i++) {
        if (!g->keys[i]) continue;
        const int32_t c = g->vals[i];
        int32_t *s = table_add(&m->ctx[k], (g->keys[i] & ~USED) >> 8);
        if (!s) return fail(err, len, "ngram_build: out of memory (contexts of order %d, %zu of them)", k, m->ctx[k].len);
        s[0] += c;
        s[c >= 3 ? 3 : c]++;
    }
    return 1;
}

/* Chen & Goodman's discounts from the count-of-counts of order k, clamped to [min, c]. */
static void estimate_discounts(tx_ngram *m, int k) {
    double nr[5] = { 0 };
    const table *g = &m->grams[k];
    for (size_t i = 0; i < g->cap; i++)
        if (g->keys[i] && g->vals[i] <= 4) nr[g->vals[i]]++;
    const double y = nr[1] > 0 ? nr[1] / (nr[1] + 2 * nr[2]) : 0.5;
    for (int c = 1; c <= 3; c++) {
        double d = nr[c] > 0 ? c - (c + 1) * y * nr[c + 1] / nr[c] : 0.5 * c;
        m->d[k][c] = d < TX_MIN_DISCOUNT ? TX_MIN_DISCOUNT : d > c ? c : d;
    }
}

static int set_discounts(tx_ngram *m, const double *given, char *err, size_t len) {
    for (int k = 1; k <= m->order; k++) {
        if (!given) { estimate_discounts(m, k); continue; }
        for (int c = 1; c <= 3; c++) {
            const double d = given[(k - 1) * 3 + c - 1];
            if (!(d > 0 && d <= c))
                return fail(err, len, "ngram_build: discount of order %d, count %d must be in (0, %d] (got %g)", k, c, c, d);
            m->d[k][c] = d;
        }
    }
    return 1;
}

void tx_ngram_free(tx_ngram *m) {
    if (!m) return;
    for (int k = 0; k <= TX_MAX_ORDER; k++) { table_free(&m->grams[k]); table_free(&m->ctx[k]); }
    free(m);
}

tx_ngram *tx_ngram_build(const unsigned char *text, size_t n, int vocab, int order, int pad,
                         const double *discounts, char *err, size_t errlen) {
    if (order < 1 || order > TX_MAX_ORDER)
        return fail(err, errlen, "ngram_build: order must be in 1 .. %d (got %d)", TX_MAX_ORDER, order), NULL;
    if (vocab < 1 || vocab > 256) return fail(err, errlen, "ngram_build: vocab must be in 1 .. 256 (got %d)", vocab), NULL;
    if (pad < 0 || pad >= vocab) return fail(err, errlen, "ngram_build: pad %d is not a symbol (vocab %d)", pad, vocab), NULL;
    if (!text || n == 0) return fail(err, errlen, "ngram_build: empty text"), NULL;
    tx_ngram *m = calloc(1, sizeof *m);
    if (!m) return fail(err, errlen, "ngram_build: out of memory"), NULL;
    m->order = order; m->vocab = vocab; m->pad = pad;
    int ok = 1;
    for (int k = 1; k <= order && ok; k++) ok = table_init(&m->grams[k], 1024, 1) && table_init(&m->ctx[k], 1024, 4);
    if (!ok) fail(err, errlen, "ngram_build: out of memory");
    ok = ok && count_top(m, text, n, err, errlen);
    for (int k = order - 1; k >= 1 && ok; k--) ok = count_continuations(m, k, err, errlen);
    for (int k = 1; k <= order && ok; k++) ok = count_contexts(m, k, err, errlen);
    ok = ok && set_discounts(m, discounts, err, errlen);
    if (!ok) { tx_ngram_free(m); return NULL; }
    return m;
}

int tx_ngram_order(const tx_ngram *m) { return m->order; }
int tx_ngram_vocab(const tx_ngram *m) { return m->vocab; }
double tx_ngram_discount(const tx_ngram *m, int k, int c) { return m->d[k][c >= 3 ? 3 : c]; }

/* -------------------------------------------------------------- probabilities */
double tx_ngram_prob(const tx_ngram *m, const unsigned char *ctx, int w) {
    const int N = m->order;
    uint64_t hist = 0; /* the N - 1 context symbols, the newest lowest */
    for (int i = 0; i < N - 1; i++) hist = (hist << 8) | ctx[i];
    double p = 1.0 / m->vocab;
    for (int k = 1; k <= N; k++) {
        const uint64_t h = hist & low_mask(k - 1);
        const int32_t *s = table_get(&m->ctx[k], h);
        if (!s || s[0] == 0) continue; /* context unseen at this order: P_k = P_{k-1} */
        const int32_t *g = table_get(&m->grams[k], (h << 8) | (uint64_t)w);
        const int32_t c = g ? g[0] : 0;
        const double *d = m->d[k];
        const double kept = c > 0 ? fmax(c - d[c >= 3 ? 3 : c], 0.0) : 0.0;
        const double gamma = (d[1] * s[1] + d[2] * s[2] + d[3] * s[3]) / s[0];
        p = kept / s[0] + gamma * p;
    }
    return p;
}

void tx_ngram_dist(const tx_ngram *m, const unsigned char *ctx, double *out) {
    for (int w = 0; w < m->vocab; w++) out[w] = tx_ngram_prob(m, ctx, w);
}

double tx_ngram_bits(const tx_ngram *m, const unsigned char *text, size_t n, float *p_out) {
    const int N = m->order;
    unsigned char ctx[TX_MAX_ORDER] = { 0 };
    for (int i = 0; i < N - 1; i++) ctx[i] = (unsigned char)m->pad;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] >= m->vocab) return -1.0;
        const double p = tx_ngram_prob(m, ctx, text[i]);
        sum -= log2(p);
        if (p_out) p_out[i] = (float)p;
        if (N > 1) { memmove(ctx, ctx + 1, N - 2); ctx[N - 2] = text[i]; }
    }
    return sum / n;
}
