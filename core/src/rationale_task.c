/* rationale_task.c - the rationale task (rationale.h): 12 tokens, one, three or five marker words
   whose majority is the label, the gold rationale their positions; and the held-out figures of a
   model's selection against it (accuracy, rationale precision and recall, selected fraction). */
#include <stdlib.h>
#include "internal.h"
#include "rationale.h"

SX_COLD_BEGIN

static const char *const WORDS[SX_RATIONALE_VOCAB] = {
    "good", "great", "superb", "bad", "awful", "dull", /* markers: 0-2 positive, 3-5 negative */
    "the", "film", "plot", "was", "and", "a", "scene", "actor", "music", "very"};

const char *sx_rationale_word(int id) {
    return id >= 0 && id < SX_RATIONALE_VOCAB ? WORDS[id] : NULL;
}

/* Example `index` of (seed, split): one, three or five distinct marker positions (a partial
   Fisher-Yates shuffle), each marker's polarity and word, fillers elsewhere. The number varies so
   that no part of the markers decides the label: with always three, the positive ones alone
   would (two or more of them), and a predictor able to count could drop the negative ones. */
static void example(int *tok, int *label, int *gold, int seed, int split, int index) {
    sx__rng r;
    sx__rng_init(&r, (uint64_t)(uint32_t)seed, ((uint64_t)(split + 1) << 32) | (uint32_t)index);
    int pos[SX_RAT_T], positive = 0;
    const int markers = 1 + 2 * (int)sx__rng_below(&r, 3);
    for (int t = 0; t < SX_RAT_T; t++) pos[t] = t, gold[t] = 0;
    for (int k = 0; k < markers; k++) {
        const int j = k + (int)sx__rng_below(&r, SX_RAT_T - k);
        const int tmp = pos[k];
        pos[k] = pos[j], pos[j] = tmp;
        gold[pos[k]] = 1;
    }
    for (int t = 0; t < SX_RAT_T; t++) {
        if (gold[t]) {
            const int pol = (int)sx__rng_below(&r, 2); /* 1 positive */
            positive += pol;
            tok[t] = (pol ? 0 : 3) + (int)sx__rng_below(&r, 3);
        } else {
            tok[t] = 6 + (int)sx__rng_below(&r, 10);
        }
    }
    *label = 2 * positive > markers;
}

int sx_rationale_task(int *tokens, int *labels, int *gold, int count, int seed, int split, int first) {
    static const char fn[] = "rationale_task";
    if (count < 0 || count > (1 << 20))
        return sx__fail(SX_EINVAL, -1, "%s: count must be in [0, 1048576] (got %d)", fn, count);
    if (split != 0 && split != 1)
        return sx__fail(SX_EINVAL, -1, "%s: split must be 0 (train) or 1 (held-out) (got %d)", fn, split);
    if (first < 0 || first > 0x7fffffff - count)
        return sx__fail(SX_EINVAL, -1, "%s: first must be >= 0 with first + count in int (got %d)", fn, first);
    if (count > 0 && !tokens) return sx__fail(SX_EINVAL, -1, "%s: tokens is NULL", fn);
    for (int i = 0; i < count; i++) {
        int label, g[SX_RAT_T];
        example(tokens + (size_t)i * SX_RAT_T, &label, g, seed, split, first + i);
        if (labels) labels[i] = label;
        if (gold)
            for (int t = 0; t < SX_RAT_T; t++) gold[(size_t)i * SX_RAT_T + t] = g[t];
    }
    return SX_OK;
}

/* ------------------------------------------------------------------ held-out figures */
static int check_labels(const char *fn, const int *labels, const int *gold, int count) {
    if (!labels) return sx__fail(SX_EINVAL, -1, "%s: labels is NULL", fn);
    if (!gold) return sx__fail(SX_EINVAL, -1, "%s: gold is NULL", fn);
    for (int i = 0; i < count; i++)
        if (labels[i] != 0 && labels[i] != 1)
            return sx__fail(SX_EINVAL, i, "%s: labels[%d] must be 0 or 1 (got %d)", fn, i, labels[i]);
    return SX_OK;
}

int sx_rationale_evaluate(sx_rationale *m, float *out, const int *tokens, const int *labels,
                          const int *gold, int count) {
    static const char fn[] = "rationale_evaluate";
    if (!m) return sx__fail(SX_EINVAL, -1, "%s: model is NULL", fn);
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    if (count < 1 || count > (1 << 20))
        return sx__fail(SX_EINVAL, -1, "%s: count must be in [1, 1048576] (got %d)", fn, count);
    int st = check_labels(fn, labels, gold, count);
    if (st != SX_OK) return st;
    double correct = 0, sel = 0, hit = 0, marked = 0;
    float w[64 * SX_RAT_T];
    int pred[64];
    const int step = m->max_batch < 64 ? m->max_batch : 64;
    for (int at = 0, n; at < count; at += n) {
        n = count - at < step ? count - at : step;
        if ((st = sx_rationale_predict(m, w, pred, tokens + (size_t)at * SX_RAT_T, n)) != SX_OK)
            return st;
        for (int i = 0; i < n; i++) {
            correct += pred[i] == labels[at + i];
            for (int t = 0; t < SX_RAT_T; t++) {
                const int s = w[i * SX_RAT_T + t] > 0.0f, gt = gold[(size_t)(at + i) * SX_RAT_T + t] != 0;
                sel += s, hit += s && gt, marked += gt;
            }
        }
    }
    out[0] = (float)(correct / count);
    out[1] = sel > 0 ? (float)(hit / sel) : 0.0f;
    out[2] = marked > 0 ? (float)(hit / marked) : 0.0f;
    out[3] = (float)(sel / ((double)count * SX_RAT_T));
    return SX_OK;
}

SX_COLD_END
