/* status.c - status names, the last-error detail, and argument checks shared by every entry point. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include "internal.h"
#include "simd.h"

SX_COLD_BEGIN /* not a hot path: compiled for size under clang (internal.h) */

static char sx__msg[256];
static int sx__msg_index = -1;

int sx_abi_version(void) { return SX_ABI_VERSION; }

int sx_build_simd(void)
{
#if defined(__wasm_simd128__)
    return 1;
#else
    return 0;
#endif
}

const char *sx_status_str(int status) {
    switch (status) {
    case SX_OK: return "ok";
    case SX_EINVAL: return "invalid argument";
    case SX_ENONFINITE: return "non-finite value";
    case SX_ENOMEM: return "out of memory";
    default: return "unknown status";
    }
}

const char *sx_last_error(void) { return sx__msg; }
int sx_last_error_index(void) { return sx__msg_index; }

/* ------------------------------------------------------- tiny formatter */
static size_t put_str(char *buf, size_t at, const char *s) {
    while (*s && at + 1 < sizeof sx__msg) buf[at++] = *s++;
    return at;
}

static size_t put_int(char *buf, size_t at, long v) {
    char tmp[24];
    int k = 0;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    do { tmp[k++] = (char)('0' + u % 10); u /= 10; } while (u && k < 23);
    if (v < 0 && at + 1 < sizeof sx__msg) buf[at++] = '-';
    while (k > 0 && at + 1 < sizeof sx__msg) buf[at++] = tmp[--k];
    return at;
}

/* %g-like: NaN, Infinity, integers exactly, otherwise 7 significant digits. */
static size_t put_num(char *buf, size_t at, double v) {
    if (v != v) return put_str(buf, at, "NaN");
    if (v == INFINITY) return put_str(buf, at, "Infinity");
    if (v == -INFINITY) return put_str(buf, at, "-Infinity");
    if (v == floor(v) && fabs(v) < 1e15) return put_int(buf, at, (long)v);
    if (v < 0) { at = put_str(buf, at, "-"); v = -v; }
    int e = 0;
    while (v >= 10.0) { v /= 10.0; e++; }
    while (v < 1.0) { v *= 10.0; e--; }
    long digits = (long)(v * 1e6 + 0.5); /* d.dddddd */
    if (digits >= 10000000) { digits /= 10; e++; }
    char tmp[8];
    for (int i = 6; i >= 0; i--) { tmp[i] = (char)('0' + digits % 10); digits /= 10; }
    int last = 6;
    while (last > 0 && tmp[last] == '0') last--;
    if (e >= -4 && e < 7) {
        if (e < 0) {
            at = put_str(buf, at, "0.");
            for (int z = -1; z > e; z--) at = put_str(buf, at, "0");
            for (int i = 0; i <= last && at + 1 < sizeof sx__msg; i++) buf[at++] = tmp[i];
        } else {
            for (int i = 0; i <= (last > e ? last : e) && at + 1 < sizeof sx__msg; i++) {
                if (i == e + 1) buf[at++] = '.';
                if (at + 1 < sizeof sx__msg) buf[at++] = i <= 6 ? tmp[i] : '0';
            }
        }
        return at;
    }
    if (at + 1 < sizeof sx__msg) buf[at++] = tmp[0];
    if (last > 0) {
        at = put_str(buf, at, ".");
        for (int i = 1; i <= last && at + 1 < sizeof sx__msg; i++) buf[at++] = tmp[i];
    }
    at = put_str(buf, at, "e");
    if (e > 0) at = put_str(buf, at, "+");
    return put_int(buf, at, e);
}

int sx__fail(int status, int index, const char *fmt, ...) {
    va_list ap;
    size_t at = 0;
    va_start(ap, fmt);
    for (const char *f = fmt; *f && at + 1 < sizeof sx__msg; f++) {
        if (*f != '%' || !f[1]) { sx__msg[at++] = *f; continue; }
        f++;
        if (*f == 'd') at = put_int(sx__msg, at, va_arg(ap, int));
        else if (*f == 'g') at = put_num(sx__msg, at, va_arg(ap, double));
        else if (*f == 's') at = put_str(sx__msg, at, va_arg(ap, const char *));
        else sx__msg[at++] = *f;
    }
    va_end(ap);
    sx__msg[at] = 0;
    sx__msg_index = index;
    return status;
}

/* ------------------------------------------------------- argument checks */
int sx__null(const char *name) { return sx__fail(SX_EINVAL, -1, "null buffer (%s)", name); }

int sx__check_dims_as(const void *out, const char *out_name, const void *x, const char *x_name,
                      int rows, int n) {
    if (n < 1) return sx__fail(SX_EINVAL, -1, "n must be >= 1 (got %d)", n);
    if (rows < 0) return sx__fail(SX_EINVAL, -1, "rows must be >= 0 (got %d)", rows);
    if ((size_t)rows * (size_t)n > (size_t)INT32_MAX / 4)
        return sx__fail(SX_EINVAL, -1, "rows * n too large (%d * %d)", rows, n);
    if (rows > 0 && !out) return sx__null(out_name); /* rows = 0: an empty call, NULL is fine */
    if (rows > 0 && !x) return sx__null(x_name);
    return SX_OK;
}

int sx__check_dims(const void *out, const void *x, int rows, int n) {
    return sx__check_dims_as(out, "out", x, "x", rows, n);
}

int sx__check_grad_dims(const void *dx, const void *x, const void *dy, int rows, int n) {
    int st = sx__check_dims_as(dx, "dx", x, "x", rows, n);
    if (st == SX_OK && rows > 0 && !dy) st = sx__null("dy");
    return st;
}

int sx__check_temperature(float t) {
    if (!(t > 0.0f) || t == INFINITY)
        return sx__fail(SX_EINVAL, -1, "temperature must be finite and > 0 (got %g)", (double)t);
    return SX_OK;
}

int sx__check_scores(const float *x, size_t count, const char *name, int allow_neg_inf) {
    size_t i = 0;
    const simde_v128_t inf = simde_wasm_f32x4_splat(INFINITY);
    const simde_v128_t ninf = simde_wasm_f32x4_splat(-INFINITY);
    for (; i + 4 <= count; i += 4) {
        simde_v128_t v = simde_wasm_v128_load(x + i);
        simde_v128_t bad = simde_wasm_v128_or(simde_wasm_f32x4_ne(v, v), simde_wasm_f32x4_eq(v, inf));
        if (!allow_neg_inf) bad = simde_wasm_v128_or(bad, simde_wasm_f32x4_eq(v, ninf));
        if (simde_wasm_v128_any_true(bad)) break;
    }
    for (; i < count; i++) {
        float v = x[i];
        if (v != v || v == INFINITY || (!allow_neg_inf && v == -INFINITY))
            return sx__fail(SX_ENONFINITE, (int)i, "%s[%d] must be finite%s (got %g)", name, (int)i,
                            allow_neg_inf ? " or -Infinity" : "", (double)v);
    }
    return SX_OK;
}

/* ------------------------------------------------------------------ memory */
/* 16-byte aligned (a SIMD vector), whatever the allocator's own alignment (emmalloc's is 8). */
void *sx_malloc(int bytes) {
    void *p = NULL;
    if (bytes <= 0 || posix_memalign(&p, 16, (size_t)bytes) != 0) return NULL;
    return p;
}
void sx_free(void *ptr) { free(ptr); }

int sx__check_attention_mapping(int mapping, float param) {
    switch (mapping) {
    case SX_MAP_SOFTMAX:
    case SX_MAP_SPARSEMAX:
    case SX_MAP_ENTMAX15: return SX_OK;
    case SX_MAP_ENTMAX:
        if (!(param >= 1.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "alpha must be finite and >= 1 (got %g)",
                            (double)param);
        return SX_OK;
    case SX_MAP_FUSEDMAX:
        if (!(param >= 0.0f) || param == INFINITY)
            return sx__fail(SX_EINVAL, -1, "lambda must be finite and >= 0 (got %g)",
                            (double)param);
        return SX_OK;
    default:
        return sx__fail(SX_EINVAL, -1,
                        "unknown mapping %d (SX_MAP_SOFTMAX 0, SPARSEMAX 1, ENTMAX15 2, "
                        "ENTMAX 3, FUSEDMAX 5)", mapping);
    }
}

SX_COLD_END

/* ------------------------------------------------------- the models' token blocks */
int sx__check_tokens(const char *fn, const char *name, const int *tok, int len, int count, int min_len,
                     int max_len, int vocab) {
    if (!tok) return sx__fail(SX_EINVAL, -1, "%s: %s is NULL", fn, name);
    if (len < min_len || len > max_len)
        return sx__fail(SX_EINVAL, -1, "%s: %s length must be in [%d, max_len %d] (got %d)", fn, name, min_len,
                        max_len, len);
    for (int i = 0; i < count * len; i++)
        if (tok[i] < 0 || tok[i] >= vocab)
            return sx__fail(SX_EINVAL, i, "%s: %s[%d][%d] must be a token id in [0, %d) (got %d)", fn, name,
                            i / len, i % len, vocab, tok[i]);
    return SX_OK;
}

int sx__check_count(const char *fn, int count, int max_batch) {
    if (count < 1 || count > max_batch)
        return sx__fail(SX_EINVAL, -1, "%s: count must be in [1, max_batch %d] (got %d)", fn, max_batch, count);
    return SX_OK;
}
