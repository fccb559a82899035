/* fuzz_core.c - libFuzzer target for every entry point of core/include/simplexity.h.

   The input bytes choose the entry point, the shape (rows * n <= 4096, sometimes a bad one),
   the parameters (alpha / lambda / beta, temperature: from a table of hostile values or raw float
   bits), null buffers, and the scores (raw float bits, or small grid values with ties, masks and
   the odd NaN / +Infinity, at a chosen scale). The call must either fail with a non-empty
   sx_last_error(), or succeed with an output true to the contract:
   - forward: every row on the simplex (>= 0, no NaN, sum within 1e-3 of 1), masked entries
     exactly 0, a fully masked row all zeros (alpha > 4 included: ill-conditioned, never NaN);
   - backward: no NaN, zero at masked entries and on fully masked rows, finite whenever the true
     gradient fits in a float (|dx| <= 2 max|dy| / T for every map whose Jacobian is bounded:
     all but alpha-entmax with alpha > 2, whose Jacobian is unbounded at the support edge);
   - alpha gradient: no NaN, 0 on fully masked rows, finite when max|dy| <= 1e30 and alpha <= 4;
   - Tsallis entropy: no NaN, finite when every p <= 1 and alpha >= 1e-3;
   - span mask: every value in [0, 1], 1 at distance 0;
   - Nadaraya-Watson pooling (the queries from x, the keys from dy, the values from the next
     scores; leave-one-out or not): every weight row on the simplex except a query with no
     visible key (all zeros, out 0), out finite when every |value| <= 1e37; its gradient wrt w
     never NaN;
   - Jacobian (mapping code from the bytes, bad ones included; rows * n * n <= 4096): no NaN,
     zero rows and columns at masked entries, finite when 1/T <= 1e30 for every map but
     alpha-entmax with alpha > 2; threshold: no NaN, +-Infinity exactly on fully masked rows;
   - multi-head attention (shapes, mapping, masks, k_len from the bytes; q, k, v fresh scores):
     every weight row on the simplex with exact zeros at masked keys, or all zeros when no key
     is visible (output 0), the output finite and within max |v| when every |v| <= 1e37.
   - sigmoid: every weight in [0, 1] (rows need not sum to 1), exact 0 at masks; its backward as
     the others';
   - groupmax (group sizes from the bytes, sometimes a zero size or a wrong sum): on the simplex
     like the forward mappings; its backward never NaN, zero at masks;
   - attention with a sparsity pattern (local, strided, fixed, LSH, bad ones; sizes, buckets,
     rounds and seed from the bytes): every weight row on the simplex or all zeros (a query that
     sees no key), exact zeros at padded and future keys and wherever sx_pattern_mask says the
     pair is not computed, the output as for attention;
   - masked mapping by valid length (mapping code and lengths from the bytes, bad ones
     included): weights in [0, 1], exactly 0 past each row's length;
   - positional encodings (positions and dim from the shape, base from the parameters): every
     value in [-1, 1];
   - scoring functions (kind dot, scaled, bilinear, additive or a bad one; nq, nk 0..16, q_dim,
     k_dim 1..8, hidden 1..6, sometimes a bad size or a null buffer; q, k, the parameters and
     dscores from the bytes, Inf / NaN / huge included): the forward fails exactly when an
     argument is bad or a score overflows float, else every score is written, finite and within
     1e-6 of a plain double reference (relative to the sum of the terms' magnitudes), and with
     every input finite and |.| <= 1e4 it must succeed; the backward fails exactly on a bad
     argument, else no gradient is NaN, all are finite for inputs |.| <= 1e4, and dot / scaled
     dq and dk match their double reference as the forward does.
   - checkpoint loading (OP_CKPT: the second byte's bit 0 makes the checksum valid again, the
     rest is the file, given to both sx_model_load and sx_rnn_load): a refusal leaves *out NULL;
     a model that loads saves back to the same bytes at its version's precision, and one greedy
     decode (a next-token step for a decoder-only model) of one row of at most 4 tokens either
     fails with a status or gives tokens in [0, vocab) (probabilities in [0, 1]).
   Across all of them, the empty-call rule of simplexity.h's CONVENTIONS: a success whose outputs
   have zero elements (rows = 0, positions = 0, nq nk = 0 ...) may have had NULL buffers (and, where
   nothing is read, non-finite inputs); a success with elements implies every buffer with elements
   was given (then the output is checked as above).
   A violation calls __builtin_trap(), which libFuzzer reports with the input. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "simplexity.h"

#define MAXN 4096

enum {
    OP_SOFTMAX, OP_SPARSEMAX, OP_ENTMAX15, OP_ENTMAX, OP_FUSEDMAX, OP_OSCARMAX,
    OP_SOFTMAX_B, OP_SPARSEMAX_B, OP_ENTMAX15_B, OP_ENTMAX_B, OP_FUSEDMAX_B, OP_OSCARMAX_B,
    OP_ALPHA_GRAD, OP_ENTROPY, OP_SPAN_MASK, OP_POOL, OP_POOL_B, OP_ATTENTION, OP_MISC,
    OP_JACOBIAN, OP_THRESHOLD, OP_SIGMOID, OP_SIGMOID_B, OP_GROUPMAX, OP_GROUPMAX_B,
    OP_PATTERN, OP_MASKED, OP_POSENC, OP_SCORES, OP_FY, OP_CHAIN, OP_CKPT, OP_COUNT
};

#define REQUIRE(c) do { if (!(c)) __builtin_trap(); } while (0)

static unsigned char mask[MAXN]; /* a pattern's (Tq, Tk) pairs */

/* ---------------------------------------------------------------- byte reader */
typedef struct {
    const uint8_t *p;
    size_t left;
} reader;

static uint8_t rd_u8(reader *r) {
    if (!r->left) return 0;
    r->left--;
    return *r->p++;
}

static float rd_raw(reader *r) {
    uint32_t u = 0;
    for (int i = 0; i < 4; i++) u |= (uint32_t)rd_u8(r) << (8 * i);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static const float hostile[] = {
    0.0f, -0.0f, 1.0f, 2.0f, 1.5f, 0.5f, 1e-30f, 1e30f, -1.0f, NAN, INFINITY, -INFINITY,
    1e-6f, 1.0000001f, 0.99999994f, 4.0f, 5.0f, 10.0f, 1e-45f, 3.4028235e38f, 0.1f, 1.25f, 3.0f, 1e-3f,
};

static float rd_param(reader *r) {
    uint8_t b = rd_u8(r);
    if (b < 0xC0) return hostile[b % (sizeof hostile / sizeof hostile[0])];
    return rd_raw(r);
}

/* Fills count values: raw float bits, or grid values at a scale with ties and masks. */
static void rd_scores(reader *r, float *v, int count, int allow_special) {
    uint8_t mode = rd_u8(r);
    float scale = hostile[rd_u8(r) % (sizeof hostile / sizeof hostile[0])];
    if (!(scale > 0.0f) || scale == INFINITY) scale = 1.0f;
    for (int i = 0; i < count; i++) {
        if (!r->left) { v[i] = i ? v[i - 1] : 0.0f; continue; } /* out of bytes: repeat (ties) */
        if (mode & 1) { v[i] = rd_raw(r); continue; }
        uint8_t b = rd_u8(r);
        if (allow_special && b == 0xFF) v[i] = -INFINITY;
        else if (allow_special && b == 0xFE && (mode & 2)) v[i] = NAN;
        else if (allow_special && b == 0xFD && (mode & 4)) v[i] = INFINITY;
        else v[i] = ((float)b - 128.0f) / 16.0f * scale;
    }
}

/* ---------------------------------------------------------------- contract checks */
static int row_masked(const float *x, int n) {
    for (int i = 0; i < n; i++)
        if (x[i] != -INFINITY) return 0;
    return 1;
}

static void check_forward(const float *out, const float *x, int rows, int n) {
    for (int r = 0; r < rows; r++) {
        const float *o = out + (size_t)r * n, *xr = x + (size_t)r * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            REQUIRE(o[i] >= 0.0f && o[i] <= 1.0f); /* also rejects NaN */
            if (xr[i] == -INFINITY) REQUIRE(o[i] == 0.0f);
            s += o[i];
        }
        if (row_masked(xr, n)) REQUIRE(s == 0.0);
        else REQUIRE(fabs(s - 1.0) <= 1e-3);
    }
}

static void check_backward(const float *dx, const float *x, const float *dy, int rows, int n, float t,
                           int bounded) {
    double gmax = 0.0;
    for (size_t i = 0; i < (size_t)rows * n; i++) gmax = fmax(gmax, fabs((double)dy[i]));
    int must_be_finite = bounded && 2.0 * gmax / (double)t <= 1e37;
    for (int r = 0; r < rows; r++) {
        const float *d = dx + (size_t)r * n, *xr = x + (size_t)r * n;
        for (int i = 0; i < n; i++) {
            REQUIRE(d[i] == d[i]);
            if (must_be_finite) REQUIRE(isfinite(d[i]));
            if (xr[i] == -INFINITY) REQUIRE(d[i] == 0.0f);
        }
    }
}

/* ---------------------------------------------------------------- scoring references */
/* 1 when each of the n values is finite with |v| <= lim. */
static int within(const float *v, size_t n, float lim) {
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(v[i]) <= lim)) return 0;
    return 1;
}

/* The score a(q_i, k_j) of kind in plain double (the additive projections summed apart, as the
   contract's wv . tanh(Wq q + Wk k) reads), and in *mag the sum of its terms' magnitudes: what
   the rounding of the sum is relative to. */
static double score_ref(const float *q_i, const float *k_j, const float *params, int q_dim, int k_dim,
                        int hidden, int kind, double *mag) {
    double s = 0.0, a = 0.0;
    if (kind == SX_SCORE_DOT || kind == SX_SCORE_SCALED) {
        const double c = kind == SX_SCORE_SCALED ? 1.0 / sqrt((double)q_dim) : 1.0;
        for (int m = 0; m < q_dim; m++) {
            s += (double)q_i[m] * k_j[m];
            a += fabs((double)q_i[m] * k_j[m]);
        }
        s *= c;
        a *= c;
    } else if (kind == SX_SCORE_BILINEAR) {
        for (int m = 0; m < q_dim; m++)
            for (int n = 0; n < k_dim; n++) {
                const double t = (double)q_i[m] * params[(size_t)m * k_dim + n] * k_j[n];
                s += t;
                a += fabs(t);
            }
    } else {
        const float *Wq = params, *Wk = params + (size_t)hidden * q_dim, *wv = Wk + (size_t)hidden * k_dim;
        for (int l = 0; l < hidden; l++) {
            double zq = 0.0, zk = 0.0;
            for (int m = 0; m < q_dim; m++) zq += (double)Wq[(size_t)l * q_dim + m] * q_i[m];
            for (int m = 0; m < k_dim; m++) zk += (double)Wk[(size_t)l * k_dim + m] * k_j[m];
            s += (double)wv[l] * tanh(zq + zk);
            a += fabs((double)wv[l]);
        }
    }
    *mag = a;
    return s;
}

/* A float result against its double reference: within 1e-6 of the terms' magnitude (plus a
   denormal's rounding), or +-Infinity only where the reference is at float's edge. */
static void check_near(float got, double ref, double mag) {
    const double tol = 1e-6 * mag + 1e-44;
    if (isinf(got)) REQUIRE(fabs(ref) + tol >= FLT_MAX && (got > 0) == (ref > 0));
    else REQUIRE(got == got && fabs((double)got - ref) <= tol);
}

/* ---------------------------------------------------------------- checkpoints */
#define MAXCK 8192
static unsigned char ck[MAXCK], saved[MAXCK];
static float probs[4096];

/* A failed call: a status and a message (the status must be one of the three). */
static void check_failure(int st) {
    REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
    REQUIRE(sx_last_error()[0] != 0);
}

/* A model that loaded: saved back, the same bytes; one short decode. */
static void check_model(sx_model *m, const unsigned char *b, int size) {
    const int prec = b[4] == 2 ? SX_SAVE_FLOAT16 : SX_SAVE_FLOAT32;
    REQUIRE(sx_model_save_size_as(m, prec) == size);
    REQUIRE(sx_model_save_as(m, saved, size, prec) == SX_OK && memcmp(saved, b, (size_t)size) == 0);
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), V = sx_model_config(m, SX_MODEL_VOCAB);
    const int T = sx_model_config(m, SX_MODEL_MAX_LEN), len = T < 4 ? T : 4;
    static const int src[4] = { 3, 3, 3, 2 };
    int out[4] = { -1, -1, -1, -1 }, st;
    if (sx_model_config(m, SX_MODEL_ARCH(L)) == SX_MODEL_DECODER) {
        const int tok = 1;
        if ((st = sx_model_lm_step(m, probs, NULL, &tok, 1, 0)) != SX_OK) {
            check_failure(st);
            return;
        }
        for (int i = 0; i < V; i++) REQUIRE(probs[i] >= 0.0f && probs[i] <= 1.0f);
        return;
    }
    if ((st = sx_model_generate(m, out, len, src, len, 1)) != SX_OK) {
        check_failure(st);
        return;
    }
    for (int i = 0; i < len; i++) REQUIRE(out[i] >= 0 && out[i] < V);
}

static void check_rnn(sx_rnn *m, const unsigned char *b, int size) {
    const int prec = b[4] == 2 ? SX_SAVE_FLOAT16 : SX_SAVE_FLOAT32;
    REQUIRE(sx_rnn_save_size_as(m, prec) == size);
    REQUIRE(sx_rnn_save_as(m, saved, size, prec) == SX_OK && memcmp(saved, b, (size_t)size) == 0);
    const int V = sx_rnn_config(m, SX_RNN_VOCAB), T = sx_rnn_config(m, SX_RNN_MAX_LEN), len = T < 4 ? T : 4;
    static const int src[4] = { 3, 3, 3, 2 };
    int out[4] = { -1, -1, -1, -1 };
    const int st = sx_rnn_generate(m, out, len, src, len, 1);
    if (st != SX_OK) {
        check_failure(st);
        return;
    }
    for (int i = 0; i < len; i++) REQUIRE(out[i] >= 0 && out[i] < V);
}

/* The bytes after the flag byte are a checkpoint for both loaders (each refuses the other's
   magic first); bit 0 of the flags re-signs them (the FNV-1a checksum of the bytes before the
   last four), so that the fuzzer reaches the checks after the checksum. */
static int fuzz_checkpoint(const uint8_t *data, size_t size) {
    if (size < 1 || size - 1 > MAXCK) return 0;
    const uint8_t flags = data[0];
    const int n = (int)(size - 1);
    memcpy(ck, data + 1, (size_t)n);
    if ((flags & 1) && n >= 4) {
        uint32_t h = 2166136261u;
        for (int i = 0; i < n - 4; i++) h = (h ^ ck[i]) * 16777619u;
        for (int k = 0; k < 4; k++) ck[n - 4 + k] = (unsigned char)(h >> (8 * k));
    }
    static int sentinel;
    sx_model *m = (sx_model *)&sentinel;
    int st = sx_model_load(&m, ck, n);
    if (st != SX_OK) {
        check_failure(st);
        REQUIRE(m == NULL);
    } else {
        REQUIRE(m != NULL);
        check_model(m, ck, n);
        sx_model_free(m);
    }
    sx_rnn *r = (sx_rnn *)&sentinel;
    st = sx_rnn_load(&r, ck, n);
    if (st != SX_OK) {
        check_failure(st);
        REQUIRE(r == NULL);
    } else {
        REQUIRE(r != NULL);
        check_rnn(r, ck, n);
        sx_rnn_free(r);
    }
    return 0;
}

/* ---------------------------------------------------------------- entry */
static float x[MAXN], dy[MAXN], out[MAXN], jac[MAXN], p[MAXN], vals[MAXN], att[MAXN * 16];
static int groups[MAXN];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#ifdef FUZZ_SELFTEST
    /* make fuzz-selftest: this build traps on one known input (tests/fuzz/selftest/), to show
       that make fuzz-short fails when the target does. */
    if (size == 16 && memcmp(data, "sx-fuzz-selftest", 16) == 0) __builtin_trap();
#endif
    reader rd = { data, size };
    int op = rd_u8(&rd) % OP_COUNT;
    if (op == OP_CKPT) return fuzz_checkpoint(data + 1, size - 1);
    uint8_t shape = rd_u8(&rd);
    int rows = rd_u8(&rd) % 17;
    int n = 1 + (int)((rd_u8(&rd) | (unsigned)rd_u8(&rd) << 8) % 700);
    if (shape == 0xF0) n = 0;
    if (shape == 0xF1) n = -3;
    if (shape == 0xF2) rows = -1;
    if (rows > 0 && n > 0 && rows * n > MAXN) n = MAXN / rows;
    int map = op == OP_JACOBIAN || op == OP_THRESHOLD ? (int)(rd_u8(&rd) % 9) - 1 : 0; /* -1..7 */
    if (op == OP_JACOBIAN && rows > 0)
        while (n > 1 && (size_t)rows * n * n > MAXN) n--;
    float par = rd_param(&rd), t = rd_param(&rd);
    size_t count = rows > 0 && n > 0 ? (size_t)rows * n : 0;
    rd_scores(&rd, x, (int)count, 1);
    rd_scores(&rd, dy, (int)count, shape & 1); /* mostly finite dy, sometimes hostile */
    float *o = shape == 0xF3 ? NULL : out;
    const float *xi = shape == 0xF4 ? NULL : x, *g = shape == 0xF5 ? NULL : dy;

    int st;
    switch (op) {
    case OP_SOFTMAX: st = sx_softmax(o, xi, rows, n, t); break;
    case OP_JACOBIAN: st = sx_jacobian(o ? jac : NULL, xi, rows, n, map, par, t); break;
    case OP_THRESHOLD: st = sx_threshold(o, xi, rows, n, map, par, t); break;
    case OP_SPARSEMAX: st = sx_sparsemax(o, xi, rows, n, t); break;
    case OP_ENTMAX15: st = sx_entmax15(o, xi, rows, n, t); break;
    case OP_ENTMAX: st = sx_entmax(o, xi, rows, n, par, t); break;
    case OP_FUSEDMAX: st = sx_fusedmax(o, xi, rows, n, par, t); break;
    case OP_OSCARMAX: st = sx_oscarmax(o, xi, rows, n, par, t); break;
    case OP_SOFTMAX_B: st = sx_softmax_backward(o, xi, g, rows, n, t); break;
    case OP_SPARSEMAX_B: st = sx_sparsemax_backward(o, xi, g, rows, n, t); break;
    case OP_ENTMAX15_B: st = sx_entmax15_backward(o, xi, g, rows, n, t); break;
    case OP_ENTMAX_B: st = sx_entmax_backward(o, xi, g, rows, n, par, t); break;
    case OP_FUSEDMAX_B: st = sx_fusedmax_backward(o, xi, g, rows, n, par, t); break;
    case OP_SIGMOID: st = sx_sigmoid(o, xi, rows, n, t); break;
    case OP_SIGMOID_B: st = sx_sigmoid_backward(o, xi, g, rows, n, t); break;
    case OP_GROUPMAX: case OP_GROUPMAX_B: {
        /* sizes 1..4 from the bytes up to n; 0xF6: a zero size, 0xF7: one too many */
        int ng = 0, left = n > 0 ? n : 1;
        while (left > 0 && ng < MAXN) {
            int k = 1 + rd_u8(&rd) % 4;
            if (k > left) k = left;
            groups[ng++] = k;
            left -= k;
        }
        if (shape == 0xF6) groups[0] = 0;
        if (shape == 0xF7) groups[ng - 1]++;
        st = op == OP_GROUPMAX ? sx_groupmax(o, xi, rows, n, groups, ng, par, t)
                               : sx_groupmax_backward(o, xi, g, rows, n, groups, ng, par, t);
        break;
    }
    case OP_OSCARMAX_B: st = sx_oscarmax_backward(o, xi, g, rows, n, par, t); break;
    case OP_ALPHA_GRAD: st = sx_entmax_alpha_grad(o, xi, g, rows, n, par, t); break;
    case OP_ENTROPY:
        /* half the time the entropy of a softmax output (on the simplex), else of raw values */
        if ((shape & 2) && count && sx_softmax(p, x, rows, n, 1.0f) == SX_OK) xi = p;
        st = sx_tsallis_entropy(o, xi, rows, n, par);
        break;
    case OP_CHAIN: {
        /* structured attention over a chain: CRF marginals or SparseMAP (shape bit 1), forward
           or backward (bit 2, dt sometimes), the transition t = par */
        const int sparse = shape & 2, back = shape & 4;
        float dtv = 0.0f, *dto = (shape & 8) ? &dtv : NULL;
        st = back ? (sparse ? sx_chain_sparsemap_backward(o, dto, xi, g, rows, n, par)
                            : sx_chain_marginals_backward(o, dto, xi, g, rows, n, par))
                  : (sparse ? sx_chain_sparsemap(o, xi, rows, n, par) : sx_chain_marginals(o, xi, rows, n, par));
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        REQUIRE(rows >= 0 && n >= 1 && isfinite(par) && (!sparse || n <= SX_CHAIN_SPARSEMAP_MAX_N));
        REQUIRE(dtv == dtv);
        for (size_t k = 0; k < count; k++) {
            REQUIRE(out[k] == out[k]);
            if (!back) REQUIRE(out[k] >= 0.0f && out[k] <= 1.0f);
            if (x[k] == -INFINITY) REQUIRE(out[k] == 0.0f);
        }
        return 0;
    }
    case OP_FY: {
        /* Fenchel-Young loss: index targets from dy (-1 skips a row), or dy's softmax as the
           target distribution; dx and dalpha sometimes; the mapping code from shape */
        static const int maps[6] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX,
                                     SX_MAP_FUSEDMAX /* rejected */, SX_MAP_ENTMAX_LEARNED /* rejected */ };
        const int mapping = maps[(shape >> 4) % 6], by_index = shape & 2;
        static int tg[MAXN];
        for (int r = 0; r < rows && n > 0; r++) {
            const float a = fabsf(dy[r]); /* dy may be NaN or huge: -1 then */
            tg[r] = a < 1e6f ? (int)(a * 7.0f) % (n + 1) - 1 : -1;
        }
        if (!by_index && count && sx_softmax(p, dy, rows, n, 1.0f) != SX_OK) return 0;
        float *dxo = (shape & 4) ? jac : NULL, *da = (shape & 8) && mapping == SX_MAP_ENTMAX ? vals : NULL;
        st = by_index ? sx_fy_loss_index(o, dxo, da, xi, g ? tg : NULL, rows, n, mapping, par, t)
                      : sx_fy_loss(o, dxo, da, xi, g ? p : NULL, rows, n, mapping, par, t);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        REQUIRE(rows >= 0 && n >= 1 && t > 0.0f && isfinite(t) && mapping != SX_MAP_FUSEDMAX);
        for (int r = 0; r < rows; r++) {
            REQUIRE(out[r] >= 0.0f); /* also rejects NaN */
            if (by_index && tg[r] == -1) REQUIRE(out[r] == 0.0f);
            if (da) REQUIRE(da[r] == da[r]);
            for (int i = 0; dxo && i < n; i++) {
                const size_t k = (size_t)r * n + i;
                REQUIRE(dxo[k] == dxo[k]);
                if (x[k] == -INFINITY) REQUIRE(dxo[k] == 0.0f);
            }
        }
        return 0;
    }
    case OP_SPAN_MASK: {
        /* count distances (|x| half the time: mostly valid), z = par, ramp = t, a small span_max */
        if (shape & 2) for (size_t i = 0; i < count; i++) x[i] = fabsf(x[i]);
        const int cnt = shape == 0xF2 ? -1 : (int)count;
        const float z = par, ramp = t;
        st = sx_span_mask(o, xi, cnt, z, ramp, (float)(shape >> 4));
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        REQUIRE(cnt >= 0 && z >= 0.0f && isfinite(z) && ramp > 0.0f && isfinite(ramp));
        if (cnt > 0) REQUIRE(o && xi); /* cnt = 0: an empty call, NULL buffers are fine */
        for (int i = 0; i < cnt; i++) {
            REQUIRE(x[i] >= 0.0f && isfinite(x[i]));
            REQUIRE(out[i] >= 0.0f && out[i] <= 1.0f);
            if (x[i] == 0.0f) REQUIRE(out[i] == 1.0f);
        }
        return 0;
    }
    case OP_POOL:
    case OP_POOL_B: {
        /* nq = rows (queries from x), nk = n keys from dy with values from the next scores;
           leave-one-out (nq = nk) when shape has bit 1; mapping and alpha/lambda from shape */
        static const int maps[6] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX, SX_MAP_FUSEDMAX,
                                     SX_MAP_ENTMAX_LEARNED /* rejected */ };
        const int loo = (shape >> 1) & 1, mapping = maps[(shape >> 2) % 6];
        int nq = rows, nk = n < 16 * 17 ? n : 16 * 17;
        if (loo && nq > 0) nk = nq;
        if (nq > 0 && nk > 0 && (size_t)nq * nk > sizeof att / sizeof att[0]) nq = (int)(sizeof att / sizeof att[0]) / nk;
        for (int i = (int)count; i < nk; i++) dy[i] = 0.0f; /* rows = 0: keys not read yet */
        rd_scores(&rd, vals, nk > 0 ? nk : 0, shape & 1);
        for (int i = 0; i < nk && i < MAXN; i++) if (dy[i] == -INFINITY) dy[i] = -1e30f; /* keys: mostly finite */
        float w = rd_param(&rd);
        if (op == OP_POOL) {
            st = sx_nw_pooling(o, shape == 0xF6 ? NULL : att, xi, g, vals, nq, nk, w, mapping, par, loo);
            if (st == SX_OK && nq > 0) { /* nq = 0: an empty call, NULL buffers are fine */
                REQUIRE(o && xi && g);
                double vmax = 0.0;
                for (int j = 0; j < nk; j++) vmax = fmax(vmax, fabs((double)vals[j]));
                for (int i = 0; i < nq; i++) {
                    REQUIRE(out[i] == out[i]);
                    if (vmax <= 1e37) REQUIRE(isfinite(out[i]));
                    if (shape == 0xF6) continue;
                    double s = 0.0;
                    for (int j = 0; j < nk; j++) {
                        const float a = att[(size_t)i * nk + j];
                        REQUIRE(a >= 0.0f && a <= 1.0f);
                        s += a;
                    }
                    if (loo && nk == 1) REQUIRE(s == 0.0 && out[i] == 0.0f);
                    else REQUIRE(fabs(s - 1.0) <= 1e-3);
                    if (loo) REQUIRE(att[(size_t)i * nk + i] == 0.0f);
                }
            }
        } else {
            float dw = NAN;
            for (int i = 0; i < nq && i < MAXN; i++) p[i] = x[(i + 1) % MAXN];
            st = sx_nw_pooling_backward(&dw, p, xi, g, vals, nq, nk, w, mapping, par, loo);
            if (st == SX_OK) REQUIRE(dw == dw);
        }
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
        }
        return 0;
    }
    case OP_MASKED: { /* mapping code -1..8 (bad ones included), valid lengths from the bytes */
        static int vlen[17];
        const int mcode = (int)(rd_u8(&rd) % 10) - 1;
        for (int r = 0; r < 17; r++) vlen[r] = (int)(rd_u8(&rd) % (n > 0 ? n + 3 : 3)) - 1;
        st = sx_masked_mapping(o, xi, shape == 0xF6 ? NULL : vlen, rows, n, mcode, par, t);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        REQUIRE(rows >= 0 && n >= 1);
        if (rows > 0) REQUIRE(o && xi); /* rows = 0: an empty call, NULL buffers are fine */
        for (int r = 0; r < rows; r++) {
            REQUIRE(vlen[r] >= 0 && vlen[r] <= n);
            for (int j = 0; j < n; j++) {
                const float v = out[(size_t)r * n + j];
                REQUIRE(v >= 0.0f && v <= 1.0f);
                if (j >= vlen[r]) REQUIRE(v == 0.0f);
            }
        }
        return 0;
    }
    case OP_POSENC: { /* positions = rows * 16, dim = n, base from the parameters */
        const int positions = rows < 0 ? -1 : rows * 16, dim = n;
        if ((size_t)(positions > 0 ? positions : 0) * (size_t)(dim > 0 ? dim : 0) > MAXN) return 0;
        st = sx_positional_encoding(o, positions, dim, (double)par);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        /* success: valid arguments; positions = 0 is an empty call (a NULL out is fine), else
           out was given and every value is a sine or cosine */
        REQUIRE(positions >= 0 && dim >= 2 && dim % 2 == 0 && par > 0.0f && isfinite(par));
        if (positions == 0) return 0;
        REQUIRE(o);
        for (size_t i = 0; i < (size_t)positions * dim; i++) REQUIRE(out[i] >= -1.0f && out[i] <= 1.0f);
        return 0;
    }
    case OP_SCORES: {
        /* kind 0..4 (4: bad), nq = rows (0..16; -1 at 0xF2), nk 0..16 (-3 at 0xF1), q_dim 1..8
           (0 at 0xF8), k_dim = q_dim or (shape bit 3) 1..8, hidden 1..6 (0 at 0xF7); q in x, k in
           dy, the parameters in vals, dscores in p (raw bits half the time: Inf, NaN, huge);
           null scores at 0xF3, params at 0xF4, dscores at 0xF5, and dq, dk, dparams null by
           shape bits 4..6 (allowed) */
        static const int kinds[5] = { SX_SCORE_DOT, SX_SCORE_SCALED, SX_SCORE_BILINEAR, SX_SCORE_ADDITIVE, 4 };
        const int kind = kinds[rd_u8(&rd) % 5];
        const int nq = rows, nk = n < 1 ? n : (n - 1) % 17;
        const int q_dim = shape == 0xF8 ? 0 : 1 + rd_u8(&rd) % 8;
        const int k_dim = (shape >> 3) & 1 ? 1 + rd_u8(&rd) % 8 : q_dim;
        const int hidden = shape == 0xF7 ? 0 : 1 + rd_u8(&rd) % 6;
        const size_t nqv = nq > 0 && q_dim > 0 ? (size_t)nq * q_dim : 0, nkv = nk > 0 && k_dim > 0 ? (size_t)nk * k_dim : 0;
        const size_t ns = nq > 0 && nk > 0 ? (size_t)nq * nk : 0;
        size_t np = 0;
        if (kind == SX_SCORE_BILINEAR && q_dim > 0 && k_dim > 0) np = (size_t)q_dim * k_dim;
        if (kind == SX_SCORE_ADDITIVE && q_dim > 0 && k_dim > 0 && hidden > 0) np = (size_t)hidden * (q_dim + k_dim + 1);
        rd_scores(&rd, x, (int)nqv, shape & 1);
        rd_scores(&rd, dy, (int)nkv, shape & 1);
        rd_scores(&rd, vals, (int)np, shape & 1);
        rd_scores(&rd, p, (int)ns, shape & 1);
        const float *params = shape == 0xF4 ? NULL : vals, *ds = shape == 0xF5 ? NULL : p;
        float *so = shape == 0xF3 ? NULL : out;
        float *dq = (shape >> 4) & 1 ? NULL : jac, *dk = (shape >> 5) & 1 ? NULL : jac + 128;
        float *dpar = (shape >> 6) & 1 ? NULL : att;
        const int sizes_ok = kind <= SX_SCORE_ADDITIVE && nq >= 0 && nk >= 0 && q_dim >= 1 && k_dim >= 1 &&
                             (kind != SX_SCORE_ADDITIVE || hidden >= 1) && (kind >= SX_SCORE_BILINEAR || q_dim == k_dim);
        const int args_ok = sizes_ok && (kind < SX_SCORE_BILINEAR || params);
        const int finite = args_ok && within(x, nqv, FLT_MAX) && within(dy, nkv, FLT_MAX) && within(vals, np, FLT_MAX);
        const int moderate = finite && within(x, nqv, 1e4f) && within(dy, nkv, 1e4f) && within(vals, np, 1e4f);

        /* forward */
        for (size_t i = 0; i < ns; i++) out[i] = NAN;
        st = sx_attention_scores(so, x, dy, params, nq, nk, q_dim, k_dim, hidden, kind);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            if (moderate && so) REQUIRE(st == SX_ENOMEM); /* valid, finite, no overflow possible */
            REQUIRE(!(sizes_ok && !ns)); /* an empty call (no score) with valid sizes succeeds */
            if (st == SX_ENONFINITE && finite && so && ns) { /* an overflow: some score at float's edge */
                int edge = 0;
                for (int i = 0; i < nq && !edge; i++)
                    for (int j = 0; j < nk && !edge; j++) {
                        double mag;
                        const double r = score_ref(x + (size_t)i * q_dim, dy + (size_t)j * k_dim, params, q_dim, k_dim,
                                                   hidden, kind, &mag);
                        edge = fabs(r) + 1e-6 * mag >= FLT_MAX;
                    }
                REQUIRE(edge);
            }
        } else if (!ns) {
            REQUIRE(sizes_ok); /* an empty call: nothing read (NULL or non-finite inputs are fine) */
        } else {
            REQUIRE(finite && so); /* bad arguments, non-finite inputs, NULL buffers never pass */
            for (int i = 0; i < nq; i++)
                for (int j = 0; j < nk; j++) {
                    const float v = out[(size_t)i * nk + j];
                    double mag;
                    const double r = score_ref(x + (size_t)i * q_dim, dy + (size_t)j * k_dim, params, q_dim, k_dim,
                                               hidden, kind, &mag);
                    REQUIRE(isfinite(v)); /* also: written (not the NaN sentinel) */
                    check_near(v, r, mag);
                }
        }

        /* backward: the gradients overwritten, never NaN */
        for (size_t i = 0; i < 256; i++) jac[i] = NAN;
        for (size_t i = 0; i < np; i++) att[i] = NAN;
        st = sx_attention_scores_backward(dq, dk, dpar, ds, x, dy, params, nq, nk, q_dim, k_dim, hidden, kind);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            if (moderate && (ds || !ns) && within(p, ns, FLT_MAX)) REQUIRE(st == SX_ENOMEM);
            return 0;
        }
        REQUIRE(finite && (ds || !ns) && within(p, ns, FLT_MAX));
        const int small = moderate && within(p, ns, 1e4f);
        const float *grads[3] = { dq, dk, dpar };
        const size_t lens[3] = { nqv, nkv, np };
        for (int g = 0; g < 3; g++)
            for (size_t i = 0; grads[g] && i < lens[g]; i++) {
                REQUIRE(grads[g][i] == grads[g][i]);
                if (small) REQUIRE(isfinite(grads[g][i]));
            }
        if (kind == SX_SCORE_DOT || kind == SX_SCORE_SCALED) { /* dq = c g k, dk = c g^T q */
            const double c = kind == SX_SCORE_SCALED ? 1.0 / sqrt((double)q_dim) : 1.0;
            for (int i = 0; i < nq && dq; i++)
                for (int m = 0; m < q_dim; m++) {
                    double s = 0.0, mag = 0.0;
                    for (int j = 0; j < nk; j++) {
                        const double t = (double)p[(size_t)i * nk + j] * dy[(size_t)j * k_dim + m];
                        s += t;
                        mag += fabs(t);
                    }
                    check_near(dq[(size_t)i * q_dim + m], c * s, c * mag);
                }
            for (int j = 0; j < nk && dk; j++)
                for (int m = 0; m < k_dim; m++) {
                    double s = 0.0, mag = 0.0;
                    for (int i = 0; i < nq; i++) {
                        const double t = (double)p[(size_t)i * nk + j] * x[(size_t)i * q_dim + m];
                        s += t;
                        mag += fabs(t);
                    }
                    check_near(dk[(size_t)j * k_dim + m], c * s, c * mag);
                }
        }
        return 0;
    }
    case OP_PATTERN:
    case OP_ATTENTION: {
        /* B 1..3, H 1..3, dh 1..8, Tq = rows (0..16), Tk 1..40; mapping (learned alpha: invalid)
           and causal from shape; k_len NULL or from the bytes (sometimes out of range); att NULL
           at 0xF8 */
        static const int maps[6] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX, SX_MAP_FUSEDMAX,
                                     SX_MAP_ENTMAX_LEARNED /* rejected */ };
        static int k_len[3];
        const int B = 1 + rd_u8(&rd) % 3, H = 1 + rd_u8(&rd) % 3, dh = 1 + rd_u8(&rd) % 8;
        const int Tq = rows < 0 ? -1 : rows, Tk = n < 1 ? n : 1 + n % 40, C = H * dh;
        const int mapping = maps[(shape >> 2) % 6], causal = (shape >> 1) & 1, use_len = (shape >> 5) & 1;
        for (int b = 0; b < 3; b++) k_len[b] = (int)(rd_u8(&rd) % (Tk > 0 ? Tk + 2 : 2)) - (shape == 0xF7);
        const size_t nq = Tq > 0 ? (size_t)B * Tq * C : 0, nk = Tk > 0 ? (size_t)B * Tk * C : 0;
        rd_scores(&rd, x, (int)nq, shape & 1);
        rd_scores(&rd, dy, (int)nk, shape & 1);
        rd_scores(&rd, vals, (int)nk, shape & 1);
        float *a = shape == 0xF8 ? NULL : att;
        /* the pattern: kind 0..5 (5 invalid), size -1..18, summary 0..7, buckets 0..9 (odd and 0
           invalid), rounds 0..3, seed from the bytes */
        int pattern[SX_PATTERN_LEN];
        pattern[0] = rd_u8(&rd) % 6;
        pattern[1] = (int)(rd_u8(&rd) % 20) - 1;
        pattern[2] = rd_u8(&rd) % 8;
        pattern[3] = rd_u8(&rd) % 10;
        pattern[4] = rd_u8(&rd) % 4;
        pattern[5] = rd_u8(&rd);
        pattern[5] = (pattern[5] << 8 | rd_u8(&rd)) - 30000;
        if (op == OP_PATTERN)
            st = sx_attention_pattern(o, a, xi, g, vals, use_len ? k_len : NULL, B, Tq, Tk, H, dh, mapping,
                                      par, causal, pattern);
        else
            st = sx_attention(o, a, xi, g, vals, use_len ? k_len : NULL, B, Tq, Tk, H, dh, mapping, par, causal);
        if (st != SX_OK) {
            REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
            REQUIRE(sx_last_error()[0] != 0);
            return 0;
        }
        REQUIRE(Tq >= 0 && Tk >= 0 && mapping != 4);
        if (!nq) return 0; /* an empty call: NULL buffers are fine */
        REQUIRE(o && xi && (!nk || g));
        double vmax = 0.0;
        for (size_t i = 0; i < nk; i++) vmax = fmax(vmax, fabs((double)vals[i]));
        if (op == OP_ATTENTION && vmax <= 1e37 && (mapping != SX_MAP_ENTMAX || par <= 4.0f)) {
            /* the tiled path (issue 14), blocks from the shape: the same output up to rounding */
            REQUIRE(sx_attention_tiled(p, xi, g, vals, use_len ? k_len : NULL, B, Tq, Tk, H, dh, mapping, par,
                                       causal, shape % 5, (shape >> 3) % 7, NULL) == SX_OK);
            for (size_t i = 0; i < nq; i++) REQUIRE(fabs((double)p[i] - out[i]) <= 1e-5 * vmax + 1e-30);
        }
        for (int b = 0; b < B; b++) {
            const int klen = use_len ? k_len[b] : Tk;
            REQUIRE(klen >= 0 && klen <= Tk);
            for (int i = 0; i < Tq; i++)
                for (int c = 0; c < C; c++) {
                    const float v = out[((size_t)b * Tq + i) * C + c];
                    REQUIRE(v == v);
                    /* + denormal rounding: each of the Tk products rounds by up to half the smallest denormal */
                    if (vmax <= 1e37) REQUIRE(isfinite(v) && fabs(v) <= vmax * (1.0 + 1e-3) + 1e-44 + Tk * 0.71e-45);
                    if (klen == 0) REQUIRE(v == 0.0f);
                }
            if (!a) continue;
            for (int h = 0; h < H; h++)
                for (int i = 0; i < Tq; i++) {
                    const float *r = att + (((size_t)b * H + h) * Tq + i) * Tk;
                    double s = 0.0;
                    for (int j = 0; j < Tk; j++) {
                        REQUIRE(r[j] >= 0.0f && r[j] <= 1.0f);
                        if (j >= klen || (causal && j > i)) REQUIRE(r[j] == 0.0f);
                        s += r[j];
                    }
                    if (klen == 0) REQUIRE(s == 0.0);
                    else if (op == OP_PATTERN) REQUIRE(s == 0.0 || fabs(s - 1.0) <= 1e-3);
                    else REQUIRE(fabs(s - 1.0) <= 1e-3);
                }
            if (op == OP_PATTERN && (size_t)Tq * Tk <= sizeof mask)
                for (int h = 0; h < H; h++) {
                    REQUIRE(sx_pattern_mask(mask, g + (size_t)b * Tk * C, Tq, Tk, H, dh, h, pattern, causal,
                                            klen) == SX_OK);
                    for (size_t q = 0; q < (size_t)Tq * Tk; q++)
                        if (!mask[q]) REQUIRE(att[(((size_t)b * H + h) * Tq) * Tk + q] == 0.0f);
                }
        }
        return 0;
    }
    default: { /* the small helpers */
        REQUIRE(sx_abi_version() == SX_ABI_VERSION);
        REQUIRE(sx_status_str(rows - 2) != NULL && sx_status_str(rows - 2)[0]);
        void *m = sx_malloc(n * (int)(shape % 5) - 2);
        sx_free(m);
        sx_free(NULL);
        return 0;
    }
    }

    if (st != SX_OK) {
        REQUIRE(st == SX_EINVAL || st == SX_ENONFINITE || st == SX_ENOMEM);
        REQUIRE(sx_last_error()[0] != 0);
        return 0;
    }
    /* success: the arguments were valid */
    REQUIRE(rows >= 0 && n >= 1);
    if (!count) return 0; /* an empty call: NULL buffers are fine */
    REQUIRE(o && xi);
    if (op == OP_ALPHA_GRAD || op == OP_GROUPMAX_B || (op >= OP_SOFTMAX_B && op <= OP_OSCARMAX_B) || op == OP_SIGMOID_B)
        REQUIRE(g);
    if (op != OP_ENTROPY) REQUIRE(t > 0.0f && isfinite(t));
    else REQUIRE(par > 0.0f && isfinite(par));
    switch (op) {
    case OP_SOFTMAX: case OP_SPARSEMAX: case OP_ENTMAX15: case OP_ENTMAX: case OP_FUSEDMAX: case OP_OSCARMAX:
    case OP_GROUPMAX:
        check_forward(out, x, rows, n);
        break;
    case OP_SIGMOID:
        for (size_t i = 0; i < count; i++) {
            REQUIRE(out[i] >= 0.0f && out[i] <= 1.0f);
            if (x[i] == -INFINITY) REQUIRE(out[i] == 0.0f);
        }
        break;
    case OP_SIGMOID_B:
        check_backward(out, x, dy, rows, n, t, 1);
        break;
    case OP_GROUPMAX_B:
        check_backward(out, x, dy, rows, n, t, 0);
        break;
    case OP_SOFTMAX_B: case OP_SPARSEMAX_B: case OP_ENTMAX15_B: case OP_FUSEDMAX_B: case OP_OSCARMAX_B:
        check_backward(out, x, dy, rows, n, t, 1);
        break;
    case OP_ENTMAX_B:
        check_backward(out, x, dy, rows, n, t, par <= 2.0f);
        break;
    case OP_JACOBIAN: {
        const int bounded = !(map == SX_MAP_ENTMAX && par > 2.0f) && 1.0f / t <= 1e30f;
        for (int r = 0; r < rows; r++) {
            const float *xr = x + (size_t)r * n, *J = jac + (size_t)r * n * n;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    const float v = J[i * n + j];
                    REQUIRE(v == v);
                    if (bounded) REQUIRE(isfinite(v));
                    if (xr[i] == -INFINITY || xr[j] == -INFINITY) REQUIRE(v == 0.0f);
                }
        }
        break;
    }
    case OP_THRESHOLD:
        REQUIRE(map != SX_MAP_FUSEDMAX && map != SX_MAP_OSCARMAX && map != SX_MAP_ENTMAX_LEARNED);
        for (int r = 0; r < rows; r++) {
            REQUIRE(out[r] == out[r]);
            if (row_masked(x + (size_t)r * n, n)) REQUIRE(isinf(out[r]));
        }
        break;
    case OP_ALPHA_GRAD: {
        double gmax = 0.0;
        for (size_t i = 0; i < count; i++) gmax = fmax(gmax, fabs((double)dy[i]));
        for (int r = 0; r < rows; r++) {
            REQUIRE(out[r] == out[r]);
            if (gmax <= 1e30 && par <= 4.0f) REQUIRE(isfinite(out[r]));
            if (row_masked(x + (size_t)r * n, n)) REQUIRE(out[r] == 0.0f);
        }
        break;
    }
    case OP_ENTROPY: {
        for (int r = 0; r < rows; r++) {
            double pmax = 0.0;
            for (int i = 0; i < n; i++) pmax = fmax(pmax, xi[(size_t)r * n + i]);
            REQUIRE(out[r] == out[r]);
            if (pmax <= 1.0 && par >= 1e-3f) REQUIRE(isfinite(out[r]));
        }
        break;
    }
    }
    return 0;
}
