/* split.c - read a corpus split into vocabulary ids (split.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "split.h"
#include "vocab.h"

/* Closes f (may be NULL), frees ids, writes the message; returns NULL. */
static unsigned char *fail(FILE *f, unsigned char *ids, char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && len) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    if (f) fclose(f);
    free(ids);
    return NULL;
}

unsigned char *tx_read_split(const char *path, size_t *n, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) return fail(NULL, NULL, err, errlen, "cannot open %s (%s): run make text", path, strerror(errno));
    size_t cap = 1 << 16, at = 0;
    unsigned char *ids = malloc(cap);
    if (!ids) return fail(f, NULL, err, errlen, "out of memory reading %s", path);
    for (int c; (c = fgetc(f)) != EOF; at++) {
        const int id = tx_char_id((unsigned char)c);
        if (id < 0)
            return fail(f, ids, err, errlen, "%s: byte %zu (0x%02x) is outside the vocabulary (newline, "
                        "printable ASCII): run make text", path, at, c);
        if (at == cap) {
            unsigned char *more = realloc(ids, cap * 2);
            if (!more) return fail(f, ids, err, errlen, "out of memory reading %s", path);
            ids = more;
            cap *= 2;
        }
        ids[at] = (unsigned char)id;
    }
    if (ferror(f)) return fail(f, ids, err, errlen, "%s: read error after %zu bytes", path, at);
    fclose(f);
    if (at == 0) return fail(NULL, ids, err, errlen, "%s is empty: run make text", path);
    *n = at;
    return ids;
}
