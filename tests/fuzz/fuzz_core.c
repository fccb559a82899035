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
   - Tsallis entropy: no NaN, finite when every p <= 1 and alpha >= 1e-3.
   A violation calls __builtin_trap(), which libFuzzer reports with the input. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "simplexity.h"

#define MAXN 4096

enum {
    OP_SOFTMAX, OP_SPARSEMAX, OP_ENTMAX15, OP_ENTMAX, OP_FUSEDMAX, OP_OSCARMAX,
    OP_SOFTMAX_B, OP_SPARSEMAX_B, OP_ENTMAX15_B, OP_ENTMAX_B, OP_FUSEDMAX_B, OP_OSCARMAX_B,
    OP_ALPHA_GRAD, OP_ENTROPY, OP_MISC, OP_COUNT
};

#define REQUIRE(c) do { if (!(c)) __builtin_trap(); } while (0)

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

/* ---------------------------------------------------------------- entry */
static float x[MAXN], dy[MAXN], out[MAXN], p[MAXN];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader rd = { data, size };
    int op = rd_u8(&rd) % OP_COUNT;
    uint8_t shape = rd_u8(&rd);
    int rows = rd_u8(&rd) % 17;
    int n = 1 + (int)((rd_u8(&rd) | (unsigned)rd_u8(&rd) << 8) % 700);
    if (shape == 0xF0) n = 0;
    if (shape == 0xF1) n = -3;
    if (shape == 0xF2) rows = -1;
    if (rows > 0 && n > 0 && rows * n > MAXN) n = MAXN / rows;
    float par = rd_param(&rd), t = rd_param(&rd);
    size_t count = rows > 0 && n > 0 ? (size_t)rows * n : 0;
    rd_scores(&rd, x, (int)count, 1);
    rd_scores(&rd, dy, (int)count, shape & 1); /* mostly finite dy, sometimes hostile */
    float *o = shape == 0xF3 ? NULL : out;
    const float *xi = shape == 0xF4 ? NULL : x, *g = shape == 0xF5 ? NULL : dy;

    int st;
    switch (op) {
    case OP_SOFTMAX: st = sx_softmax(o, xi, rows, n, t); break;
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
    case OP_OSCARMAX_B: st = sx_oscarmax_backward(o, xi, g, rows, n, par, t); break;
    case OP_ALPHA_GRAD: st = sx_entmax_alpha_grad(o, xi, g, rows, n, par, t); break;
    case OP_ENTROPY:
        /* half the time the entropy of a softmax output (on the simplex), else of raw values */
        if ((shape & 2) && count && sx_softmax(p, x, rows, n, 1.0f) == SX_OK) xi = p;
        st = sx_tsallis_entropy(o, xi, rows, n, par);
        break;
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
    if (!count) return 0;
    REQUIRE(o && xi);
    if (op != OP_ENTROPY) REQUIRE(t > 0.0f && isfinite(t));
    else REQUIRE(par > 0.0f && isfinite(par));
    switch (op) {
    case OP_SOFTMAX: case OP_SPARSEMAX: case OP_ENTMAX15: case OP_ENTMAX: case OP_FUSEDMAX: case OP_OSCARMAX:
        check_forward(out, x, rows, n);
        break;
    case OP_SOFTMAX_B: case OP_SPARSEMAX_B: case OP_ENTMAX15_B: case OP_FUSEDMAX_B: case OP_OSCARMAX_B:
        check_backward(out, x, dy, rows, n, t, 1);
        break;
    case OP_ENTMAX_B:
        check_backward(out, x, dy, rows, n, t, par <= 2.0f);
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
