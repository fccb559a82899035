/* test_attention.c - sx_attention, the public multi-head attention entry point: every mapping
   against a float64 naive reference (scores in double, the masks by their definition, the
   reference mappings of ref.c / ref_structured.c, out = att v in double), causal and padding
   masks (exact zeros, empty rows), att = NULL, the long-row paths of the kernel (per-row
   windows, tiled scores), and every error path; and the kernel's backward (nn.h) under
   incoming gradients near FLT_MAX. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simplexity.h"
#include "check.h"
#include "ref.h"
#include "ref_structured.h"
#include "nn.h"

/* ------------------------------------------------------------------ PRNG */
#define SX_TEST_SEED 0x2545F4914F6CDD1Dull
#include "prng.h"
static void fill(float *x, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * urand());
}
static float *falloc(size_t n) { return calloc(n ? n : 1, sizeof(float)); }

/* The mapping codes, at compile time (an array of size -1 does not compile): the fixed values
   (the JS API and the checkpoints store them), the deprecated aliases of the former
   per-function families, and the kernel's kinds (nn.h) that sx_attention hands them to. */
#define STATIC_CHECK(name, cond) typedef char static_check_##name[(cond) ? 1 : -1]
STATIC_CHECK(map_values, SX_MAP_SOFTMAX == 0 && SX_MAP_SPARSEMAX == 1 && SX_MAP_ENTMAX15 == 2 &&
                         SX_MAP_ENTMAX == 3 && SX_MAP_ENTMAX_LEARNED == 4 && SX_MAP_FUSEDMAX == 5);
STATIC_CHECK(attn_aliases, SX_ATTN_SOFTMAX == SX_MAP_SOFTMAX && SX_ATTN_SPARSEMAX == SX_MAP_SPARSEMAX &&
                           SX_ATTN_ENTMAX15 == SX_MAP_ENTMAX15 && SX_ATTN_ENTMAX == SX_MAP_ENTMAX &&
                           SX_ATTN_FUSEDMAX == SX_MAP_FUSEDMAX);
STATIC_CHECK(pool_aliases, SX_POOL_SOFTMAX == SX_MAP_SOFTMAX && SX_POOL_SPARSEMAX == SX_MAP_SPARSEMAX &&
                           SX_POOL_ENTMAX15 == SX_MAP_ENTMAX15 && SX_POOL_ENTMAX == SX_MAP_ENTMAX &&
                           SX_POOL_FUSEDMAX == SX_MAP_FUSEDMAX);
STATIC_CHECK(model_aliases, SX_MODEL_SOFTMAX == SX_MAP_SOFTMAX && SX_MODEL_SPARSEMAX == SX_MAP_SPARSEMAX &&
                            SX_MODEL_ENTMAX15 == SX_MAP_ENTMAX15 && SX_MODEL_ENTMAX == SX_MAP_ENTMAX &&
                            SX_MODEL_ENTMAX_LEARNED == SX_MAP_ENTMAX_LEARNED &&
                            SX_MODEL_FUSEDMAX == SX_MAP_FUSEDMAX);
STATIC_CHECK(nn_kinds, SX_NN_SOFTMAX == 0 && SX_NN_SPARSEMAX == 1 && SX_NN_ENTMAX15 == 2 &&
                       SX_NN_ENTMAX == 3 && SX_NN_ENTMAX_LEARNED == 4 && SX_NN_FUSEDMAX == 5 &&
                       SX_NN_OSCARMAX == 6 && SX_NN_MAP_COUNT == 7); /* (other enums: against the values, no -Wenum-compare) */

static const char *map_name(int m) {
    switch (m) {
    case SX_MAP_SOFTMAX: return "softmax";
    case SX_MAP_SPARSEMAX: return "sparsemax";
    case SX_MAP_ENTMAX15: return "entmax15";
    case SX_MAP_ENTMAX: return "entmax";
    default: return "fusedmax";
    }
}

/* ------------------------------------------------------------ reference */
/* One row of scores (Tk, -INFINITY where masked) through the float64 reference mapping. */
static void ref_map(double *p, const double *s, int n, int mapping, double param) {
    switch (mapping) {
    case SX_MAP_SOFTMAX: ref_softmax(p, s, n); break;
    case SX_MAP_SPARSEMAX: ref_sparsemax(p, s, n); break;
    case SX_MAP_ENTMAX15: ref_entmax15(p, s, n); break;
    case SX_MAP_ENTMAX: ref_entmax(p, s, n, param); break;
    default: rs_fusedmax(p, s, n, param, 1.0); break; /* Tk <= 64 (rs_tv_prox) */
    }
}

/* Naive attention in double: out (B, Tq, H dh), att (B, H, Tq, Tk). */
static void ref_attention(double *out, double *att, const float *q, const float *k, const float *v,
                          const int *k_len, int B, int Tq, int Tk, int H, int dh, int mapping,
                          double param, int causal) {
    const int C = H * dh;
    double *s = malloc(sizeof(double) * (size_t)Tk), *p = malloc(sizeof(double) * (size_t)Tk);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Tq; i++) {
                const int klen = k_len ? k_len[b] : Tk;
                for (int j = 0; j < Tk; j++) {
                    double d = 0.0;
                    for (int c = 0; c < dh; c++)
                        d += (double)q[((size_t)b * Tq + i) * C + h * dh + c] *
                             k[((size_t)b * Tk + j) * C + h * dh + c];
                    s[j] = j < klen && (!causal || j <= i) ? d / sqrt((double)dh) : -INFINITY;
                }
                ref_map(p, s, Tk, mapping, param);
                memcpy(att + (((size_t)b * H + h) * Tq + i) * Tk, p, sizeof(double) * (size_t)Tk);
                for (int c = 0; c < dh; c++) {
                    double o = 0.0;
                    for (int j = 0; j < Tk; j++) o += p[j] * v[((size_t)b * Tk + j) * C + h * dh + c];
                    out[((size_t)b * Tq + i) * C + h * dh + c] = o;
                }
            }
    free(s);
    free(p);
}

/* sx_attention vs the reference on random inputs; the masks' exact zeros; att = NULL gives the
   same output bit for bit. Returns the worst error of the weights and the outputs. */
static double check_case(const char *what, int B, int Tq, int Tk, int H, int dh, int mapping,
                         float param, int causal, const int *k_len, double scale, double tol) {
    const int C = H * dh;
    const size_t nq = (size_t)B * Tq * C, nk = (size_t)B * Tk * C, na = (size_t)B * H * Tq * Tk;
    float *q = falloc(nq), *k = falloc(nk), *v = falloc(nk), *out = falloc(nq), *out2 = falloc(nq);
    float *att = falloc(na);
    double *rout = malloc(sizeof(double) * (nq ? nq : 1)), *ratt = malloc(sizeof(double) * (na ? na : 1));
    fill(q, nq, -scale, scale);
    fill(k, nk, -1.0, 1.0);
    fill(v, nk, -1.0, 1.0);
    for (size_t i = 0; i < na; i++) att[i] = NAN; /* every weight must be written */
    int st = sx_attention(out, att, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, causal);
    CHECK(st == SX_OK, "%s %s: status %d (%s)", what, map_name(mapping), st, sx_last_error());
    ref_attention(rout, ratt, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, causal);
    double worst = 0.0;
    int masked_nonzero = 0, off_simplex = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Tq; i++) {
                const int klen = k_len ? k_len[b] : Tk;
                const float *a = att + (((size_t)b * H + h) * Tq + i) * Tk;
                const double *ra = ratt + (((size_t)b * H + h) * Tq + i) * Tk;
                double sum = 0.0;
                for (int j = 0; j < Tk; j++) {
                    const double e = fabs(a[j] - ra[j]);
                    worst = e > worst || e != e ? e : worst;
                    if ((j >= klen || (causal && j > i)) && a[j] != 0.0f) masked_nonzero++;
                    sum += a[j];
                }
                const int visible = klen > 0; /* causal: key 0 is always visible when klen > 0 */
                if (visible ? fabs(sum - 1.0) > 1e-5 : sum != 0.0) off_simplex++;
            }
    double worst_out = 0.0;
    for (size_t i = 0; i < nq; i++) {
        const double e = fabs(out[i] - rout[i]);
        worst_out = e > worst_out || e != e ? e : worst_out;
    }
    CHECK(worst <= tol, "%s %s: weights off the reference by %g", what, map_name(mapping), worst);
    CHECK(worst_out <= tol, "%s %s: output off the reference by %g", what, map_name(mapping), worst_out);
    CHECK(masked_nonzero == 0, "%s %s: %d masked weights are not exactly 0", what, map_name(mapping),
          masked_nonzero);
    CHECK(off_simplex == 0, "%s %s: %d rows off the simplex", what, map_name(mapping), off_simplex);
    st = sx_attention(out2, NULL, q, k, v, k_len, B, Tq, Tk, H, dh, mapping, param, causal);
    CHECK(st == SX_OK && !memcmp(out, out2, sizeof(float) * nq),
          "%s %s: att = NULL changes the output (status %d)", what, map_name(mapping), st);
    free(q); free(k); free(v); free(out); free(out2); free(att); free(rout); free(ratt);
    return worst > worst_out ? worst : worst_out;
}

static const int MAPPINGS[5] = { SX_MAP_SOFTMAX, SX_MAP_SPARSEMAX, SX_MAP_ENTMAX15, SX_MAP_ENTMAX,
                                 SX_MAP_FUSEDMAX };
static float param_of(int mapping) {
    return mapping == SX_MAP_ENTMAX ? 1.3f : mapping == SX_MAP_FUSEDMAX ? 0.3f : 0.0f;
}

static void test_against_reference(void) {
    double worst = 0.0, w;
    static const int k_len[3] = { 7, 3, 0 };
    for (int m = 0; m < 5; m++) {
        const int map = MAPPINGS[m];
        const float par = param_of(map);
        /* small: every mask, cross-attention shapes, several heads */
        w = check_case("plain", 2, 5, 7, 3, 4, map, par, 0, NULL, 2.0, 2e-5);
        worst = w > worst ? w : worst;
        w = check_case("causal", 2, 6, 6, 2, 8, map, par, 1, NULL, 2.0, 2e-5);
        worst = w > worst ? w : worst;
        w = check_case("padding", 3, 4, 7, 2, 3, map, par, 0, k_len, 2.0, 2e-5);
        worst = w > worst ? w : worst;
        w = check_case("causal+padding", 3, 7, 7, 2, 3, map, par, 1, k_len, 2.0, 2e-5);
        worst = w > worst ? w : worst;
        w = check_case("causal Tq > Tk", 1, 9, 5, 1, 5, map, par, 1, NULL, 2.0, 2e-5);
        worst = w > worst ? w : worst;
        /* long rows: the kernel's tiles and per-row windows (Tk >= 64); the fusedmax reference
           takes at most 64 entries per row */
        const int T = map == SX_MAP_FUSEDMAX ? 64 : 80;
        static const int long_len[2] = { 80, 51 };
        w = check_case("long causal", 1, T, T, map == SX_MAP_FUSEDMAX ? 1 : 2, 16, map, par, 1, NULL,
                       3.0, 5e-5);
        worst = w > worst ? w : worst;
        if (map != SX_MAP_FUSEDMAX) { /* (the slow fusedmax reference: the causal case only) */
            w = check_case("long", 1, T, T, 2, 16, map, par, 0, NULL, 3.0, 5e-5);
            worst = w > worst ? w : worst;
            w = check_case("long causal+padding", 2, T, T, 1, 8, map, par, 1, long_len, 3.0, 5e-5);
            worst = w > worst ? w : worst;
        }
        /* the benchmark's shape (4 heads of 64), smaller n */
        if (map != SX_MAP_FUSEDMAX) {
            w = check_case("bench shape", 1, 48, 48, 4, 64, map, par, 0, NULL, 1.0, 5e-5);
            worst = w > worst ? w : worst;
        }
    }
    /* fixed alpha at the special values goes to the exact algorithms */
    w = check_case("alpha 1", 1, 5, 9, 2, 4, SX_MAP_ENTMAX, 1.0f, 0, NULL, 2.0, 2e-5);
    worst = w > worst ? w : worst;
    w = check_case("alpha 2", 1, 5, 9, 2, 4, SX_MAP_ENTMAX, 2.0f, 1, NULL, 2.0, 2e-5);
    worst = w > worst ? w : worst;
    w = check_case("alpha 3", 1, 5, 9, 2, 4, SX_MAP_ENTMAX, 3.0f, 0, NULL, 2.0, 2e-5);
    worst = w > worst ? w : worst;
    w = check_case("lambda 0", 1, 5, 9, 2, 4, SX_MAP_FUSEDMAX, 0.0f, 0, NULL, 2.0, 2e-5);
    worst = w > worst ? w : worst;
    printf("test_attention: every mapping vs the float64 reference, worst |error| %.2g\n", worst);
}

/* Sparse mappings give exact zeros with large scores; softmax none (apart from masks). */
static void test_sparsity(void) {
    const int B = 1, T = 16, H = 1, dh = 8, C = H * dh;
    float q[T * C], k[T * C], v[T * C], out[T * C], att[T * T];
    fill(q, T * C, -4, 4);
    fill(k, T * C, -4, 4);
    fill(v, T * C, -1, 1);
    for (int m = 0; m < 5; m++) {
        int st = sx_attention(out, att, q, k, v, NULL, B, T, T, H, dh, MAPPINGS[m], param_of(MAPPINGS[m]), 0);
        int zeros = 0;
        for (int i = 0; i < T * T; i++) zeros += att[i] == 0.0f;
        CHECK(st == SX_OK, "sparsity %s: status %d", map_name(MAPPINGS[m]), st);
        if (MAPPINGS[m] == SX_MAP_SOFTMAX) CHECK(zeros == 0, "softmax has %d exact zeros", zeros);
        else CHECK(zeros > T * T / 4, "%s: only %d of %d weights are exact zeros", map_name(MAPPINGS[m]),
                   zeros, T * T);
    }
}

/* Degenerate sizes: nothing to do, or no keys (output 0). */
static void test_edges(void) {
    float q[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, k[8] = { 1, 0, 0, 1, 1, 1, 0, 0 }, v[8] = { 0 };
    float out[8], att[8];
    for (int i = 0; i < 8; i++) out[i] = 42.0f;
    CHECK(sx_attention(out, att, q, k, v, NULL, 0, 2, 2, 1, 2, SX_MAP_SOFTMAX, 0, 0) == SX_OK &&
              out[0] == 42.0f, "B = 0 is a no-op");
    CHECK(sx_attention(out, att, q, k, v, NULL, 1, 0, 2, 1, 2, SX_MAP_SOFTMAX, 0, 0) == SX_OK &&
              out[0] == 42.0f, "Tq = 0 is a no-op");
    CHECK(sx_attention(out, att, q, NULL, NULL, NULL, 2, 2, 0, 1, 2, SX_MAP_SPARSEMAX, 0, 0) == SX_OK,
          "Tk = 0 needs no k, v (%s)", sx_last_error());
    int zero = 1;
    for (int i = 0; i < 8; i++) zero &= out[i] == 0.0f;
    CHECK(zero, "Tk = 0: the output is 0");
    /* one key: every mapping puts weight 1 on it, the output is its value */
    float v1[2] = { 0.25f, -3.0f };
    for (int m = 0; m < 5; m++) {
        CHECK(sx_attention(out, att, q, k, v1, NULL, 1, 4, 1, 1, 2, MAPPINGS[m], param_of(MAPPINGS[m]), 1) == SX_OK,
              "one key %s", map_name(MAPPINGS[m]));
        CHECK(att[0] == 1.0f && att[3] == 1.0f && out[0] == 0.25f && out[7] == -3.0f,
              "one key %s: weight %g, out %g %g", map_name(MAPPINGS[m]), (double)att[0], (double)out[0],
              (double)out[7]);
    }
    /* k_len 0 for one batch element: its weights and outputs are all zero, not NaN */
    float qq[2 * 3 * 2], kk[2 * 3 * 2], vv[2 * 3 * 2], oo[2 * 3 * 2], aa[2 * 3 * 3];
    fill(qq, 12, -1, 1);
    fill(kk, 12, -1, 1);
    fill(vv, 12, -1, 1);
    const int lens[2] = { 0, 2 };
    for (int m = 0; m < 5; m++) {
        CHECK(sx_attention(oo, aa, qq, kk, vv, lens, 2, 3, 3, 1, 2, MAPPINGS[m], param_of(MAPPINGS[m]), 0) == SX_OK,
              "k_len 0 %s", map_name(MAPPINGS[m]));
        int ok = 1;
        for (int i = 0; i < 6; i++) ok &= oo[i] == 0.0f;
        for (int i = 0; i < 9; i++) ok &= aa[i] == 0.0f;
        for (int i = 9; i < 18; i++) ok &= (i - 9) % 3 == 2 ? aa[i] == 0.0f : aa[i] == aa[i];
        CHECK(ok, "k_len 0 %s: zero weights and outputs, the padded key of the other element 0",
              map_name(MAPPINGS[m]));
    }
}

static void test_errors(void) {
    float q[8] = { 0 }, k[8] = { 0 }, v[8] = { 0 }, out[8], att[16];
    int st;
#define EXPECT(call, status, msg)                                                              \
    do {                                                                                       \
        st = (call);                                                                           \
        CHECK(st == (status) && strstr(sx_last_error(), (msg)) != NULL,                        \
              "%s: status %d, message \"%s\", expected %d with \"%s\"", #call, st, sx_last_error(), \
              status, msg);                                                                    \
    } while (0)
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_ENTMAX_LEARNED, 1.5f, 0),
           SX_EINVAL, "unknown mapping 4 (SX_MAP_SOFTMAX 0");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, 6, 0, 0), SX_EINVAL, "unknown mapping 6");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, -1, 0, 0), SX_EINVAL, "unknown mapping -1");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_ENTMAX, 0.5f, 0), SX_EINVAL,
           "alpha must be finite and >= 1 (got 0.5)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_ENTMAX, NAN, 0), SX_EINVAL,
           "alpha must be finite and >= 1 (got NaN)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_ENTMAX, INFINITY, 0), SX_EINVAL,
           "(got Infinity)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_FUSEDMAX, -0.1f, 0), SX_EINVAL,
           "lambda must be finite and >= 0 (got -0.1)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, -1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL,
           "B, Tq and Tk must be >= 0 (got -1, 2, 2)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, -2, 2, 1, 2, 0, 0, 0), SX_EINVAL, "(got 1, -2, 2)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, -2, 1, 2, 0, 0, 0), SX_EINVAL, "(got 1, 2, -2)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 0, 2, 0, 0, 0), SX_EINVAL,
           "H and dh must be >= 1 (got 0, 2)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 0, 0, 0, 0), SX_EINVAL, "(got 1, 0)");
    EXPECT(sx_attention(out, att, q, k, v, NULL, 65536, 65536, 2, 1, 2, 0, 0, 0), SX_EINVAL,
           "sizes too large");
    EXPECT(sx_attention(NULL, att, q, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL, "null buffer (out)");
    EXPECT(sx_attention(out, att, NULL, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL, "null buffer (q)");
    EXPECT(sx_attention(out, att, q, NULL, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL, "null buffer (k)");
    EXPECT(sx_attention(out, att, q, k, NULL, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL, "null buffer (v)");
    const int bad_len[2] = { 2, 3 }, neg_len[1] = { -1 };
    EXPECT(sx_attention(out, att, q, k, v, bad_len, 2, 1, 2, 1, 2, 0, 0, 0), SX_EINVAL,
           "k_len[1] must be in [0, Tk = 2] (got 3)");
    EXPECT(sx_attention(out, att, q, k, v, neg_len, 1, 2, 2, 1, 2, 0, 0, 0), SX_EINVAL,
           "k_len[0] must be in [0, Tk = 2] (got -1)");
    /* non-finite inputs: named, with the index */
    q[3] = NAN;
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_ENONFINITE,
           "q[3] must be finite (got NaN)");
    CHECK(sx_last_error_index() == 3, "index of q[3]: %d", sx_last_error_index());
    q[3] = -INFINITY;
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_ENONFINITE,
           "q[3] must be finite (got -Infinity)");
    q[3] = 0.0f;
    k[2] = INFINITY;
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_SPARSEMAX, 0, 0), SX_ENONFINITE,
           "k[2] must be finite (got Infinity)");
    k[2] = 0.0f;
    v[1] = NAN;
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, SX_MAP_ENTMAX15, 0, 1), SX_ENONFINITE,
           "v[1] must be finite (got NaN)");
    v[1] = 0.0f;
    /* finite inputs whose score overflows */
    q[0] = q[1] = 3e38f;
    k[0] = k[1] = 3e38f;
    for (int i = 0; i < 8; i++) out[i] = 7.0f;
    EXPECT(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0), SX_ENONFINITE,
           "overflows float");
    CHECK(sx_last_error_index() == -1, "overflow: no index (%d)", sx_last_error_index());
    /* after a failure the next call works */
    q[0] = q[1] = k[0] = k[1] = 0.0f;
    CHECK(sx_attention(out, att, q, k, v, NULL, 1, 2, 2, 1, 2, 0, 0, 0) == SX_OK && att[0] == 0.5f,
          "a call after the failures works");
#undef EXPECT
}

/* Huge q and k. A score q.k / sqrt(dh) beyond float used to come out of the float matmul as
   -Infinity when negative, which the mappings read as a masked key: a row of them got all-zero
   weights with status 0, off the simplex (fuzzer find: q -8.4e21, k 3e30, 4.8e30). It is
   SX_ENONFINITE like +Infinity. A dot product that overflows float although the scaled score
   fits (4 terms of 1e38 over sqrt 4) is no error: the scores are exact and the weights split
   evenly over the top keys. Both through the whole-map and the per-row (causal, Tk >= 64) paths. */
static void test_overflow_scores(void) {
    enum { T = 64, DH = 4 };
    static float q[T * DH], k[T * DH], v[T * DH], out[T * DH], att[T * T];
    for (int m = 0; m < 5; m++) {
        const int map = MAPPINGS[m];
        const float par = map == SX_MAP_FUSEDMAX ? 0.0f : param_of(map); /* lambda 0 as found */
        for (int causal = 0; causal < 2; causal++) {
            /* the fuzzer's find: Tq 1, Tk 2, dh 1, every score about -1e52 */
            const float q1[1] = { -8.40766e21f }, k1[2] = { 3.03388e30f, 4.79369e30f }, v1[2] = { 1, 2 };
            float o1[1] = { 7.0f }, a1[2] = { 7.0f, 7.0f };
            int st = sx_attention(o1, a1, q1, k1, v1, NULL, 1, 1, 2, 1, 1, map, par, causal);
            CHECK(st == SX_ENONFINITE && strstr(sx_last_error(), "overflows float"),
                  "%s causal %d: scores of -1e52: status %d (%s), weights %g %g", map_name(map),
                  causal, st, sx_last_error(), (double)a1[0], (double)a1[1]);
            /* one row of a long causal map overflows to -Infinity, the others are normal */
            for (int i = 0; i < T * DH; i++) q[i] = k[i] = 0.5f, v[i] = 1.0f;
            for (int c = 0; c < DH; c++) q[40 * DH + c] = -1e30f, k[c] = 1e30f; /* row 40 . key 0 */
            st = sx_attention(out, att, q, k, v, NULL, 1, T, T, 1, DH, map, par, causal);
            CHECK(st == SX_ENONFINITE && strstr(sx_last_error(), "overflows float"),
                  "%s causal %d: one score of -2e60 in a long map: status %d (%s)", map_name(map),
                  causal, st, sx_last_error());
            /* the float dot product overflows, the score (+-2e38 or 0) does not */
            for (int i = 0; i < T; i++)
                for (int c = 0; c < DH; c++) {
                    q[i * DH + c] = 1e19f;
                    k[i * DH + c] = i % 3 == 0 ? 1e19f : i % 3 == 1 ? -1e19f : 0.0f;
                    v[i * DH + c] = (float)((i * 7 + c * 3) % 11) - 5.0f;
                }
            for (int i = 0; i < T * T; i++) att[i] = NAN;
            st = sx_attention(out, att, q, k, v, NULL, 1, T, T, 1, DH, map, par, causal);
            CHECK(st == SX_OK, "%s causal %d: scores of +-2e38 fit float: status %d (%s)",
                  map_name(map), causal, st, sx_last_error());
            /* every mapping puts equal weight on the tied top scores 2e38 (keys 0, 3, 6, ...;
               a gap of 2e38 to the rest) and exactly 0 elsewhere; out is their mean value */
            double worst = 0.0;
            for (int i = 0; i < T; i++) {
                const int hi = causal ? i + 1 : T, top = (hi + 2) / 3;
                for (int j = 0; j < T; j++) {
                    const double want = j < hi && j % 3 == 0 ? 1.0 / top : 0.0;
                    const double e = fabs(att[i * T + j] - want);
                    worst = e > worst || e != e ? e : worst;
                }
                for (int c = 0; c < DH; c++) {
                    double want = 0.0;
                    for (int j = 0; j < hi; j += 3) want += v[j * DH + c] / top;
                    const double e = fabs(out[i * DH + c] - want);
                    worst = e > worst || e != e ? e : worst;
                }
            }
            CHECK(worst <= 1e-6, "%s causal %d: scores of +-2e38: weights or output off by %g",
                  map_name(map), causal, worst);
        }
    }
}

/* The kernel's mapping backward from the saved weights p (attention.c; softmax, sparsemax,
   1.5-entmax, entmax at alpha 1 and 2, learned alpha) under incoming gradients near FLT_MAX:
   the float difference dy - mean overflowed, giving 0 * Infinity = NaN at the exact zeros of p
   (masked keys, keys cut by a sparse mapping) and +-Infinity on the support where the true
   value fits float. Now finite, exact zeros kept, equal to s (dy - <s, dy> / sum s) in double
   (clamped to +-FLT_MAX), and a row whose dy is equal on the support gives exactly 0. */
static void test_huge_dy_backward_p(void) {
    enum { R = 3, N = 6 };
    const float M = FLT_MAX, NI = -INFINITY;
    const float x[R * N] = { 2, 0, NI, 1, 0.5f, -1,   0, 0, 0, NI, NI, 0,   3, -3, 0.1f, 0.2f, NI, 1 };
    const float g[R * N] = { 3e38f, -3e38f, -M, M, -1e38f, M,   M, M, M, -M, -M, M,
                             -3e38f, 3e38f, -3e38f, 3e38f, 3e38f, -M };
    static const struct { int kind; float param; const char *name; } cases[6] = {
        { SX_NN_SOFTMAX, 0.0f, "softmax" }, { SX_NN_SPARSEMAX, 0.0f, "sparsemax" },
        { SX_NN_ENTMAX15, 0.0f, "entmax15" }, { SX_NN_ENTMAX, 1.0f, "entmax alpha 1" },
        { SX_NN_ENTMAX, 2.0f, "entmax alpha 2" }, { SX_NN_ENTMAX_LEARNED, 1.37f, "learned alpha 1.37" }
    };
    for (int t = 0; t < 6; t++) {
        const int kind = cases[t].kind;
        const float par = cases[t].param;
        float p[R * N], dx[R * N], dalpha = 0.0f;
        CHECK(sx_nn_map_forward(p, x, R, N, kind, par) == SX_OK, "%s: forward", cases[t].name);
        int st = sx_nn_map_backward(dx, kind == SX_NN_ENTMAX_LEARNED ? &dalpha : NULL, x, p, g, R,
                                    N, kind, par);
        CHECK(st == SX_OK, "%s: backward status %d", cases[t].name, st);
        int bad = 0, zeros = 0, p_zeros = 0;
        double worst = 0.0;
        for (int r = 0; r < R; r++) {
            const float *p_r = p + r * N, *g_r = g + r * N, *d_r = dx + r * N;
            double s[N], ssum = 0.0, sg = 0.0;
            for (int i = 0; i < N; i++) {
                const double pi = p_r[i];
                s[i] = !(pi > 0.0) ? 0.0 : kind == SX_NN_SOFTMAX ? pi
                     : kind == SX_NN_SPARSEMAX ? 1.0 : kind == SX_NN_ENTMAX15 ? sqrt(pi)
                     : pow(pi, 2.0 - par);
                ssum += s[i];
                sg += s[i] * g_r[i];
            }
            for (int i = 0; i < N; i++) {
                double want = s[i] * (g_r[i] - sg / ssum);
                want = want > FLT_MAX ? FLT_MAX : want < -FLT_MAX ? -FLT_MAX : want;
                if (!isfinite(d_r[i])) bad++;
                else worst = fmax(worst, fabs(d_r[i] - want) / FLT_MAX);
                if (p_r[i] == 0.0f) {
                    p_zeros++;
                    zeros += d_r[i] == 0.0f;
                }
                if (r == 1) zeros += d_r[i] == 0.0f; /* dy equal on the support: exactly 0 */
            }
        }
        CHECK(bad == 0, "%s: %d entries of dx are NaN or Infinity", cases[t].name, bad);
        CHECK(zeros == p_zeros + N, "%s: %d of %d entries with p = 0 or equal dy not exactly 0",
              cases[t].name, p_zeros + N - zeros, p_zeros + N);
        CHECK(worst <= 1e-6, "%s: dx off s (dy - mean) in double by %g FLT_MAX", cases[t].name, worst);
        CHECK(dalpha == dalpha, "%s: d alpha is NaN", cases[t].name);
    }
}

/* The kernel's backward with adaptive span: dp = m / S (datt - <datt, att>) is computed in
   double and could exceed float (S = sum p m < 1 divides a datt near FLT_MAX); it came out as
   Infinity, then Infinity - Infinity = NaN in the mapping backward and in dq. dp is clamped to
   +-FLT_MAX: dq, dk, dv stay finite and d z is never NaN. Queries and keys all 0 (uniform
   weights), values 1, -1, -1, d out 3e38 on query 0 (datt 3e38, -3e38, -3e38), z L = 1.5 and
   ramp 2 (key 2 of query 0 has m = 0.75, S = 0.92): dp_0 = 4.2e38. (fusedmax is left out:
   its backward is the public sx_fusedmax_backward, whose run averages see +-Infinity from the
   sparsemax backward when |dy - mean| exceeds FLT_MAX.) */
static void test_huge_dy_backward_span(void) {
    enum { T = 3 };
    static const struct { int kind; float param; const char *name; } cases[5] = {
        { SX_NN_SOFTMAX, 0.0f, "softmax" }, { SX_NN_SPARSEMAX, 0.0f, "sparsemax" },
        { SX_NN_ENTMAX15, 0.0f, "entmax15" }, { SX_NN_ENTMAX, 1.3f, "entmax alpha 1.3" },
        { SX_NN_ENTMAX_LEARNED, 0.0f, "learned alpha" }
    };
    for (int t = 0; t < 5; t++) {
        const int kind[1] = { cases[t].kind };
        const float par[1] = { cases[t].param }, alpha_a[1] = { 0.0f }, z[1] = { 0.5f };
        const sx_nn_attn_cfg cfg = { 1, 1, 0, kind, par, 3, 2.0f, NULL };
        const float q[T] = { 0, 0, 0 }, k[T] = { 0, 0, 0 }, v[T] = { 1, -1, -1 };
        const float dout[T] = { 3e38f, 0, 0 };
        float out[T], score[T * T], prob[T * T], att[T * T], dq[T] = { 0 }, dk[T] = { 0 },
              dv[T] = { 0 }, da[1] = { 0 }, dz[1] = { 0 }, scratch[4 * T * T];
        CHECK(sx_nn_attention_scratch_size(&cfg, T, T) <= 4 * T * T, "scratch size");
        int st = sx_nn_attention_forward(out, score, prob, att, q, 1, k, v, 1, alpha_a, z, NULL, 1,
                                         T, T, &cfg);
        CHECK(st == SX_OK, "%s span: forward status %d (%s)", cases[t].name, st, sx_last_error());
        st = sx_nn_attention_backward(dq, dk, dv, da, dz, scratch, dout, score, prob, att, q, 1, k,
                                      v, 1, alpha_a, z, NULL, 1, T, T, &cfg);
        CHECK(st == SX_OK, "%s span: backward status %d (%s)", cases[t].name, st, sx_last_error());
        int bad = 0;
        for (int i = 0; i < T; i++) bad += !isfinite(dq[i]) + !isfinite(dk[i]) + !isfinite(dv[i]);
        CHECK(bad == 0 && dz[0] == dz[0] && da[0] == da[0],
              "%s span: huge d out: dq %g %g %g, dk %g %g %g, dv %g %g %g, dz %g, da %g",
              cases[t].name, dq[0], dq[1], dq[2], dk[0], dk[1], dk[2], dv[0], dv[1], dv[2], dz[0],
              da[0]);
    }
}

int main(void) {
    test_against_reference();
    test_sparsity();
    test_edges();
    test_errors();
    test_overflow_scores();
    test_huge_dy_backward_p();
    test_huge_dy_backward_span();
    return sx_test_summary("test_attention");
}
