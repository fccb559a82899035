/* patterns.c - attention restricted to a fixed or hashed sparsity pattern (issue 13): local
   windows, Sparse Transformer's strided and fixed patterns (Child et al. 2019) and Reformer's
   LSH attention (Kitaev et al. 2020), under every mapping (sx_attention_pattern), and the
   patterns' masks on their own (sx_pattern_mask, sx_pattern_lsh) for pictures and tests.

   Sections: pattern arguments, the keys of one query row (structured patterns, LSH hashing),
   the public masks, attention.

   The cost scales with the pair count: per query row the visible keys are listed in ascending
   order (structured patterns: generated directly from the definition, never by scanning the
   Tk keys; LSH: from the sorted, chunked hash order), and only those scores are computed (SIMD
   dot products), mapped (the mapping on the compacted row: a masked key is absent, exactly as
   a -INFINITY score is) and used for the output (out_i += p_j v_j over the nonzero p_j). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "nn.h"
#include "rng.h"
#include "simd.h"

SX_COLD_BEGIN /* page-scale patterns: compiled for size (internal.h) */

#define SX_MAX_ELEMS ((uint64_t)INT32_MAX / 4)
#define MAX_BUCKETS 4096
#define MAX_ROUNDS 64

/* ---------------------------------------------------------- pattern arguments */
typedef struct {
    int kind, size, summary, buckets, rounds;
    uint32_t seed;
} pattern_t;

static int check_pattern(pattern_t *p, const int *pattern, int Tq, int Tk) {
    if (!pattern) return sx__fail(SX_EINVAL, -1, "pattern is NULL (SX_PATTERN_LEN ints)");
    p->kind = pattern[0];
    p->size = pattern[1];
    p->summary = pattern[2];
    p->buckets = pattern[3];
    p->rounds = pattern[4];
    p->seed = (uint32_t)pattern[5];
    switch (p->kind) {
    case SX_PATTERN_DENSE: return SX_OK;
    case SX_PATTERN_LOCAL:
        if (p->size < 0)
            return sx__fail(SX_EINVAL, 1, "local pattern: width must be >= 0 (got %d)", p->size);
        return SX_OK;
    case SX_PATTERN_STRIDED:
        if (p->size < 1)
            return sx__fail(SX_EINVAL, 1, "strided pattern: stride must be >= 1 (got %d)", p->size);
        return SX_OK;
    case SX_PATTERN_FIXED:
        if (p->size < 1)
            return sx__fail(SX_EINVAL, 1, "fixed pattern: block must be >= 1 (got %d)", p->size);
        if (p->summary < 1 || p->summary > p->size)
            return sx__fail(SX_EINVAL, 2, "fixed pattern: summary must be in [1, block = %d] (got %d)",
                            p->size, p->summary);
        return SX_OK;
    case SX_PATTERN_LSH:
        if (p->size < 1)
            return sx__fail(SX_EINVAL, 1, "lsh pattern: chunk must be >= 1 (got %d)", p->size);
        if (p->buckets < 2 || p->buckets > MAX_BUCKETS || p->buckets % 2 != 0)
            return sx__fail(SX_EINVAL, 3, "lsh pattern: buckets must be even and in [2, %d] (got %d)",
                            MAX_BUCKETS, p->buckets);
        if (p->rounds < 1 || p->rounds > MAX_ROUNDS)
            return sx__fail(SX_EINVAL, 4, "lsh pattern: rounds must be in [1, %d] (got %d)",
                            MAX_ROUNDS, p->rounds);
        if (Tq != Tk)
            return sx__fail(SX_EINVAL, -1, "lsh pattern: self-attention only, Tq must equal Tk "
                            "(got %d, %d)", Tq, Tk);
        return SX_OK;
    default:
        return sx__fail(SX_EINVAL, 0, "unknown pattern kind %d (SX_PATTERN_DENSE 0, LOCAL 1, "
                        "STRIDED 2, FIXED 3, LSH 4)", p->kind);
    }
}

/* ------------------------------------------------------ the keys of one row */
/* Everything one (batch element, head) needs to list a row's keys. */
typedef struct {
    pattern_t pat;
    int Tk, hi_all, causal; /* hi_all: k_len (keys >= it are padding) */
    /* LSH: per round, the sorted order (rounds, Tk) and each position's chunk (rounds, Tk) */
    int *order, *chunk;
    unsigned char *mark; /* (Tk) zeros between calls */
} rowgen;

/* Ascending sort of a row's keys: Shell sort with Ciura's gaps (no comparison callback: qsort's
   indirect calls are slow in wasm, and a row holds a few hundred keys at most here). */
static void sort_keys(int *a, int n) {
    static const int gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };
    for (int g = 0; g < (int)(sizeof gaps / sizeof gaps[0]); g++) {
        const int h = gaps[g];
        for (int i = h; i < n; i++) {
            const int x = a[i];
            int j = i;
            for (; j >= h && a[j - h] > x; j -= h) a[j] = a[j - h];
            a[j] = x;
        }
    }
}

/* keys[0 .. return) = the keys query i sees, ascending. keys holds Tk ints. */
static int row_keys(int *keys, const rowgen *g, int i) {
    const pattern_t *p = &g->pat;
    int hi = g->hi_all;
    if (g->causal && i + 1 < hi) hi = i + 1;
    if (hi <= 0) return 0;
    int n = 0;
    switch (p->kind) {
    case SX_PATTERN_DENSE:
        for (int j = 0; j < hi; j++) keys[n++] = j;
        return n;
    case SX_PATTERN_LOCAL: {
        const int64_t lo = (int64_t)i - p->size, h = (int64_t)i + p->size + 1;
        for (int64_t j = lo < 0 ? 0 : lo; j < h && j < hi; j++) keys[n++] = (int)j;
        return n;
    }
    case SX_PATTERN_STRIDED: {
        /* |i - j| < l, or (i - j) mod l == 0: merge the window with the residue class */
        const int l = p->size;
        const int64_t wlo = (int64_t)i - l + 1, whi = (int64_t)i + l; /* window [wlo, whi) */
        const int r = i % l;
        for (int j = r; j < hi; j += l) {
            if (j >= wlo) break;
            keys[n++] = j;
        }
        for (int64_t j = wlo < 0 ? 0 : wlo; j < whi && j < hi; j++) keys[n++] = (int)j;
        int64_t j = (int64_t)i + (int64_t)l * ((whi - i + l - 1) / l); /* first of the class >= whi */
        for (; j < hi; j += l) keys[n++] = (int)j;
        return n;
    }
    case SX_PATTERN_FIXED: {
        /* floor(j / l) == floor(i / l), or j mod l >= l - c (the summary positions) */
        const int l = p->size, c = p->summary, bi = i / l;
        for (int64_t b0 = 0; b0 < hi; b0 += l) {
            const int64_t from = b0 / l == bi ? b0 : b0 + l - c;
            for (int64_t j = from; j < b0 + l && j < hi; j++) keys[n++] = (int)j;
        }
        return n;
    }
    case SX_PATTERN_LSH: {
        /* keys j whose chunk is i's chunk or the one before, in some round */
        const int T = g->Tk, m = p->size;
        unsigned char *mark = g->mark;
        for (int r = 0; r < p->rounds; r++) {
            const int *ord = g->order + (size_t)r * T;
            const int ci = g->chunk[(size_t)r * T + i];
            const int s0 = ci > 0 ? (ci - 1) * m : 0;
            const int s1 = (int)((int64_t)(ci + 1) * m < T ? (int64_t)(ci + 1) * m : T);
            for (int s = s0; s < s1; s++) {
                const int j = ord[s];
                if (j < hi && !mark[j]) {
                    mark[j] = 1;
                    keys[n++] = j;
                }
            }
        }
        /* ascending order: a scan of the marks when the row is a large share of the keys
           (cheaper than sorting it), else a sort */
        if ((int64_t)n * 16 >= hi) {
            int t = 0;
            for (int j = 0; j < hi; j++)
                if (mark[j]) { mark[j] = 0; keys[t++] = j; }
        } else {
            for (int t = 0; t < n; t++) mark[keys[t]] = 0;
            sort_keys(keys, n);
        }
        return n;
    }
    }
    return 0;
}

/* LSH hashing of one head (Reformer, "angular LSH"): per round r a random matrix R (dh, nb / 2)
   of approximately N(0, 1) entries (seeded by (seed, head, round): the same in every build), the
   bucket of position t is argmax of [x_t R, -x_t R] (first on ties), x_t = the key of t; then
   positions sorted by (bucket, t) and chunked by m in that order. bucket, order, chunk: (rounds,
   T); scratch: rot (dh nb / 2 floats), proj (nb / 2 doubles), cnt (nb + 1 ints). In double
   (the rotation's entries are exact floats, so the same buckets in every build). */
static void lsh_hash(int *bucket, int *order, int *chunk, float *rot, double *proj, int *cnt,
                     const float *k, int ld, int T, int dh, int head, const pattern_t *p) {
    const int half = p->buckets / 2;
    for (int r = 0; r < p->rounds; r++) {
        sx__rng g;
        sx__rng_init(&g, p->seed, ((uint64_t)(uint32_t)head << 16) | (uint64_t)r);
        for (int e = 0; e < dh * half; e++) rot[e] = sx__rng_normal(&g);
        int *b_r = bucket + (size_t)r * T, *o_r = order + (size_t)r * T, *c_r = chunk + (size_t)r * T;
        for (int t = 0; t < T; t++) {
            const float *x = k + (size_t)t * ld;
            for (int u = 0; u < half; u++) {
                double d = 0.0;
                for (int c = 0; c < dh; c++) d += (double)x[c] * rot[(size_t)c * half + u];
                proj[u] = d;
            }
            int best = 0; /* argmax of [xR, -xR], the first on ties */
            double bv = proj[0];
            for (int u = 1; u < 2 * half; u++) {
                const double d = u < half ? proj[u] : -proj[u - half];
                if (d > bv) { bv = d; best = u; }
            }
            b_r[t] = best;
        }
        /* counting sort by bucket, stable in t */
        memset(cnt, 0, (size_t)(p->buckets + 1) * sizeof(int));
        for (int t = 0; t < T; t++) cnt[b_r[t] + 1]++;
        for (int u = 0; u < p->buckets; u++) cnt[u + 1] += cnt[u];
        for (int t = 0; t < T; t++) o_r[cnt[b_r[t]]++] = t;
        for (int s = 0; s < T; s++) c_r[o_r[s]] = s / p->size;
    }
}

/* ---------------------------------------------------------------- scratch */
typedef struct {
    int *keys;           /* (Tk) */
    float *s, *pr;       /* (Tk) scores, (Tk) weights */
    int *bucket, *order, *chunk; /* LSH: (rounds, Tk) each */
    float *rot;          /* LSH: dh buckets / 2 */
    double *proj;        /* LSH: buckets / 2 */
    int *cnt;            /* LSH: buckets + 1 */
    unsigned char *mark; /* (Tk) */
    void *mem;
} work;

static int work_alloc(work *w, const pattern_t *p, int Tk, int dh) {
    const int lsh = p->kind == SX_PATTERN_LSH;
    const size_t rt = lsh ? (size_t)p->rounds * Tk : 0, rot = lsh ? (size_t)dh * (p->buckets / 2) : 0;
    const size_t nb = lsh ? (size_t)p->buckets : 0;
    const size_t bytes = nb / 2 * sizeof(double) + (size_t)Tk * (sizeof(int) + 2 * sizeof(float) + 1) +
                         (3 * rt + nb + 1) * sizeof(int) + rot * sizeof(float) + 16;
    w->mem = malloc(bytes);
    if (!w->mem)
        return sx__fail(SX_ENOMEM, -1, "cannot allocate %g bytes of scratch", (double)bytes);
    char *c = w->mem;
    w->proj = (double *)c; c += nb / 2 * sizeof(double);
    w->s = (float *)c; c += (size_t)Tk * sizeof(float);
    w->pr = (float *)c; c += (size_t)Tk * sizeof(float);
    w->rot = (float *)c; c += rot * sizeof(float);
    w->keys = (int *)c; c += (size_t)Tk * sizeof(int);
    w->bucket = (int *)c; c += rt * sizeof(int);
    w->order = (int *)c; c += rt * sizeof(int);
    w->chunk = (int *)c; c += rt * sizeof(int);
    w->cnt = (int *)c; c += (nb + 1) * sizeof(int);
    w->mark = (unsigned char *)c;
    memset(w->mark, 0, (size_t)Tk);
    return SX_OK;
}

static rowgen make_gen(const pattern_t *p, work *w, const float *k_h, int ld, int Tk, int dh,
                       int head, int causal, int klen) {
    rowgen g;
    g.pat = *p;
    g.Tk = Tk;
    g.hi_all = klen;
    g.causal = causal;
    g.order = w->order;
    g.chunk = w->chunk;
    g.mark = w->mark;
    if (p->kind == SX_PATTERN_LSH)
        lsh_hash(w->bucket, w->order, w->chunk, w->rot, w->proj, w->cnt, k_h, ld, Tk, dh, head, p);
    return g;
}

/* ----------------------------------------------------------------- masks */
int sx_pattern_mask(unsigned char *mask, const float *k, int Tq, int Tk, int H, int dh, int head,
                    const int *pattern, int causal, int k_len) {
    if (Tq < 0 || Tk < 0)
        return sx__fail(SX_EINVAL, -1, "Tq and Tk must be >= 0 (got %d, %d)", Tq, Tk);
    if (H < 1 || dh < 1)
        return sx__fail(SX_EINVAL, -1, "H and dh must be >= 1 (got %d, %d)", H, dh);
    if (head < 0 || head >= H)
        return sx__fail(SX_EINVAL, -1, "head must be in [0, H = %d) (got %d)", H, head);
    if (k_len < 0 || k_len > Tk)
        return sx__fail(SX_EINVAL, -1, "k_len must be in [0, Tk = %d] (got %d)", Tk, k_len);
    pattern_t p;
    int st = check_pattern(&p, pattern, Tq, Tk);
    if (st != SX_OK) return st;
    if ((uint64_t)Tq * Tk > SX_MAX_ELEMS * 4 || (uint64_t)Tk * H * dh > SX_MAX_ELEMS)
        return sx__fail(SX_EINVAL, -1, "sizes too large (Tq %d, Tk %d)", Tq, Tk);
    if ((uint64_t)Tq * Tk == 0) return SX_OK;
    if (!mask) return sx__null("mask");
    if (p.kind == SX_PATTERN_LSH && !k) return sx__null("k");
    if (p.kind == SX_PATTERN_LSH &&
        (st = sx__check_scores(k, (size_t)Tk * H * dh, "k", 0)) != SX_OK)
        return st;
    work w;
    if ((st = work_alloc(&w, &p, Tk, dh)) != SX_OK) return st;
    const rowgen g = make_gen(&p, &w, k ? k + (size_t)head * dh : NULL, H * dh, Tk, dh, head,
                              causal != 0, k_len);
    memset(mask, 0, (size_t)Tq * Tk);
    for (int i = 0; i < Tq; i++) {
        const int n = row_keys(w.keys, &g, i);
        for (int t = 0; t < n; t++) mask[(size_t)i * Tk + w.keys[t]] = 1;
    }
    free(w.mem);
    return SX_OK;
}

int sx_pattern_lsh(int *bucket, int *order, const float *k, int T, int H, int dh, int head,
                   const int *pattern) {
    if (T < 0) return sx__fail(SX_EINVAL, -1, "T must be >= 0 (got %d)", T);
    if (H < 1 || dh < 1)
        return sx__fail(SX_EINVAL, -1, "H and dh must be >= 1 (got %d, %d)", H, dh);
    if (head < 0 || head >= H)
        return sx__fail(SX_EINVAL, -1, "head must be in [0, H = %d) (got %d)", H, head);
    pattern_t p;
    int st = check_pattern(&p, pattern, T, T);
    if (st != SX_OK) return st;
    if (p.kind != SX_PATTERN_LSH)
        return sx__fail(SX_EINVAL, 0, "sx_pattern_lsh needs an SX_PATTERN_LSH pattern (got kind %d)",
                        p.kind);
    if ((uint64_t)T * H * dh > SX_MAX_ELEMS || (uint64_t)T * p.rounds > SX_MAX_ELEMS)
        return sx__fail(SX_EINVAL, -1, "sizes too large (T %d, H %d, dh %d)", T, H, dh);
    if (T == 0) return SX_OK;
    if (!bucket || !order || !k) return sx__null(!bucket ? "bucket" : !order ? "order" : "k");
    if ((st = sx__check_scores(k, (size_t)T * H * dh, "k", 0)) != SX_OK) return st;
    work w;
    if ((st = work_alloc(&w, &p, T, dh)) != SX_OK) return st;
    lsh_hash(bucket, order, w.chunk, w.rot, w.proj, w.cnt, k + (size_t)head * dh, H * dh, T, dh, head, &p);
    free(w.mem);
    return SX_OK;
}

/* ------------------------------------------------------------- attention */
/* s[t] = q . k_{keys[t]} * scale for t < n, four keys at a time. */
static void row_scores(float *s, const float *q, const float *k, int ld, const int *keys, int n,
                       int dh, float scale) {
    int t = 0;
    for (; t + 4 <= n; t += 4) {
        const float *k0 = k + (size_t)keys[t] * ld, *k1 = k + (size_t)keys[t + 1] * ld;
        const float *k2 = k + (size_t)keys[t + 2] * ld, *k3 = k + (size_t)keys[t + 3] * ld;
        v128 a0 = vsplat(0.0f), a1 = a0, a2 = a0, a3 = a0;
        int c = 0;
        for (; c + 4 <= dh; c += 4) {
            const v128 x = vload(q + c);
            a0 = vadd(a0, vmul(x, vload(k0 + c)));
            a1 = vadd(a1, vmul(x, vload(k1 + c)));
            a2 = vadd(a2, vmul(x, vload(k2 + c)));
            a3 = vadd(a3, vmul(x, vload(k3 + c)));
        }
        float d0 = sx_hsum(a0), d1 = sx_hsum(a1), d2 = sx_hsum(a2), d3 = sx_hsum(a3);
        for (; c < dh; c++) {
            d0 += q[c] * k0[c];
            d1 += q[c] * k1[c];
            d2 += q[c] * k2[c];
            d3 += q[c] * k3[c];
        }
        s[t] = d0 * scale;
        s[t + 1] = d1 * scale;
        s[t + 2] = d2 * scale;
        s[t + 3] = d3 * scale;
    }
    for (; t < n; t++) {
        const float *kj = k + (size_t)keys[t] * ld;
        v128 a = vsplat(0.0f);
        int c = 0;
        for (; c + 4 <= dh; c += 4) a = vadd(a, vmul(vload(q + c), vload(kj + c)));
        float d = sx_hsum(a);
        for (; c < dh; c++) d += q[c] * kj[c];
        s[t] = d * scale;
    }
}

/* y[0 .. n) += a x[0 .. n) */
static void axpy(float *y, const float *x, float a, int n) {
    int c = 0;
    const v128 va = vsplat(a);
    for (; c + 4 <= n; c += 4) vstore(y + c, vadd(vload(y + c), vmul(va, vload(x + c))));
    for (; c < n; c++) y[c] += a * x[c];
}

int sx_attention_pattern(float *out, float *att, const float *q, const float *k, const float *v,
                         const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                         float param, int causal, const int *pattern) {
    if (B < 0 || Tq < 0 || Tk < 0)
        return sx__fail(SX_EINVAL, -1, "B, Tq and Tk must be >= 0 (got %d, %d, %d)", B, Tq, Tk);
    if (H < 1 || dh < 1)
        return sx__fail(SX_EINVAL, -1, "H and dh must be >= 1 (got %d, %d)", H, dh);
    int st = sx__check_attention_mapping(mapping, param);
    if (st != SX_OK) return st;
    pattern_t p;
    if ((st = check_pattern(&p, pattern, Tq, Tk)) != SX_OK) return st;
    const uint64_t C = (uint64_t)H * (uint64_t)dh;
    const uint64_t nq = (uint64_t)B * Tq * C, nk = (uint64_t)B * Tk * C;
    const uint64_t map = (uint64_t)H * Tq * Tk;
    if (C > SX_MAX_ELEMS || nq > SX_MAX_ELEMS || nk > SX_MAX_ELEMS ||
        (att && (uint64_t)B * map > SX_MAX_ELEMS))
        return sx__fail(SX_EINVAL, -1, "sizes too large (B %d, Tq %d, Tk %d, H %d, dh %d)", B, Tq,
                        Tk, H, dh);
    if (nq == 0) return SX_OK;
    if (!out) return sx__null("out");
    if (!q) return sx__null("q");
    if (nk > 0 && (!k || !v)) return sx__null(k ? "v" : "k"); /* Tk = 0: k and v are empty */
    if (k_len)
        for (int b = 0; b < B; b++)
            if (k_len[b] < 0 || k_len[b] > Tk)
                return sx__fail(SX_EINVAL, b, "k_len[%d] must be in [0, Tk = %d] (got %d)", b, Tk,
                                k_len[b]);
    if ((st = sx__check_scores(q, (size_t)nq, "q", 0)) != SX_OK) return st;
    if ((st = sx__check_scores(k, (size_t)nk, "k", 0)) != SX_OK) return st;
    if ((st = sx__check_scores(v, (size_t)nk, "v", 0)) != SX_OK) return st;
    memset(out, 0, (size_t)nq * sizeof(float));
    if (att) memset(att, 0, (size_t)B * (size_t)map * sizeof(float));
    if (Tk == 0) return SX_OK;

    work w;
    if ((st = work_alloc(&w, &p, Tk, dh)) != SX_OK) return st;
    const int ld = (int)C;
    const float scale = 1.0f / sqrtf((float)dh);
    for (int b = 0; b < B && st == SX_OK; b++) {
        for (int h = 0; h < H && st == SX_OK; h++) {
            const float *q_bh = q + (size_t)b * Tq * C + (size_t)h * dh; /* (Tq, dh) stride C */
            const float *k_bh = k + (size_t)b * Tk * C + (size_t)h * dh; /* (Tk, dh) stride C */
            const float *v_bh = v + (size_t)b * Tk * C + (size_t)h * dh;
            float *out_bh = out + (size_t)b * Tq * C + (size_t)h * dh;
            float *a_bh = att ? att + ((size_t)b * H + h) * Tq * Tk : NULL; /* (Tq, Tk) */
            const rowgen g = make_gen(&p, &w, k_bh, ld, Tk, dh, h, causal != 0,
                                      k_len ? k_len[b] : Tk);
            for (int i = 0; i < Tq; i++) {
                const int n = row_keys(w.keys, &g, i);
                if (n == 0) continue; /* no visible key: zero weights, output 0 */
                const float *q_i = q_bh + (size_t)i * C;
                row_scores(w.s, q_i, k_bh, ld, w.keys, n, dh, scale);
                for (int t = 0; t < n; t++) {
                    if (w.s[t] - w.s[t] == 0.0f) continue;
                    /* overflowed in float: recompute in double, fail if it does not fit */
                    const float *kj = k_bh + (size_t)w.keys[t] * ld;
                    double d = 0.0;
                    for (int c = 0; c < dh; c++) d += (double)q_i[c] * kj[c];
                    d *= scale;
                    if (!(fabs(d) <= 3.4028234663852886e38)) {
                        st = sx__fail(SX_ENONFINITE, -1, "a score q.k / sqrt(dh) of batch element "
                                      "%d (query %d, key %d) overflows float (scale q or k down)",
                                      b, i, w.keys[t]);
                        break;
                    }
                    w.s[t] = (float)d;
                }
                if (st != SX_OK) break;
                if ((st = sx_nn_map_forward(w.pr, w.s, 1, n, mapping, param)) != SX_OK) break;
                float *o_i = out_bh + (size_t)i * C;
                float *a_i = a_bh ? a_bh + (size_t)i * Tk : NULL;
                for (int t = 0; t < n; t++) {
                    const float pt = w.pr[t];
                    if (a_i) a_i[w.keys[t]] = pt;
                    if (pt != 0.0f) axpy(o_i, v_bh + (size_t)w.keys[t] * ld, pt, dh);
                }
            }
        }
    }
    free(w.mem);
    return st;
}

SX_COLD_END
