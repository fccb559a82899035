/* test_positions.c - positional encodings (core/src/positions.c): the sinusoidal matrix
   against a float64 reference for several bases and dimensions; the model's table unchanged
   (bit for bit against the formula as it was before the base became a parameter, and the
   public function at base 10000 against it); the relative-position properties checked
   numerically (PE(i) . PE(j) depends only on i - j; a block-diagonal rotation M_k built from k
   alone takes PE(i) to PE(i + k)); Shaw et al.'s relative term and Transformer-XL's four terms
   against float64 definitions; empty sizes; every error path with its message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "nn.h"
#include "simplexity.h"
#define SX_TEST_SEED 0x13002ull
#include "prng.h"

static void fill(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = (float)nrand();
}

/* float64 reference: sin / cos of t / base^(2i/d), column pair i */
static double ref_pe(double t, int c, int dim, double base) {
    const double w = pow(base, -(double)(c - c % 2) / dim);
    return c % 2 ? cos(t * w) : sin(t * w);
}

/* ------------------------------------------------------------- sinusoids */
static void test_sinusoids(void) {
    const double bases[3] = { 10000.0, 100.0, 2.5 };
    const int dims[3] = { 2, 8, 30 };
    for (int b = 0; b < 3; b++) {
        for (int di = 0; di < 3; di++) {
            const int T = 50, d = dims[di];
            float *pe = malloc(sizeof(float) * T * d);
            CHECK(sx_positional_encoding(pe, T, d, bases[b]) == SX_OK, "ok");
            double err = 0.0;
            for (int t = 0; t < T; t++)
                for (int c = 0; c < d; c++)
                    err = fmax(err, fabs(pe[t * d + c] - ref_pe(t, c, d, bases[b])));
            CHECK(err < 1e-6, "base %g dim %d: max error %g", bases[b], d, err);
            free(pe);
        }
    }
    /* PE(0) = (0, 1, 0, 1, ...) exactly; the last pair has the lowest frequency */
    float pe[4 * 6];
    sx_positional_encoding(pe, 4, 6, 10000.0);
    CHECK(pe[0] == 0.0f && pe[1] == 1.0f && pe[4] == 0.0f && pe[5] == 1.0f, "PE(0)");
    CHECK(pe[6] == (float)sin(1.0) && pe[7] == (float)cos(1.0), "PE(1) pair 0 is sin 1, cos 1");
}

/* The model's table before the base became a parameter (layers.c as of the KV-cache work). */
static void old_posenc(float *pe, int T, int C) {
    for (int t = 0; t < T; t++) {
        float *pe_t = pe + (size_t)t * C;
        for (int i = 0; i < C; i += 2) {
            const double angle = t / pow(10000.0, (double)i / C);
            pe_t[i] = (float)sin(angle);
            if (i + 1 < C) pe_t[i + 1] = (float)cos(angle);
        }
    }
}

static void test_model_table(void) {
    const int Ts[3] = { 1, 33, 256 }, Cs[3] = { 2, 32, 64 };
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            const int T = Ts[a], C = Cs[b];
            float *x = malloc(sizeof(float) * T * C), *y = malloc(sizeof(float) * T * C),
                  *z = malloc(sizeof(float) * T * C);
            old_posenc(x, T, C);
            sx_nn_posenc(y, T, C);
            CHECK(sx_positional_encoding(z, T, C, 10000.0) == SX_OK, "ok");
            CHECK(memcmp(x, y, sizeof(float) * T * C) == 0, "model table unchanged (T %d, C %d)", T, C);
            CHECK(memcmp(x, z, sizeof(float) * T * C) == 0, "public = model's table (T %d, C %d)", T, C);
            free(x);
            free(y);
            free(z);
        }
    }
    /* the range form at a start t0 gives the rows of the full table */
    float full[40 * 8], part[10 * 8];
    sx_nn_posenc_range(full, 0, 40, 8, 50.0);
    sx_nn_posenc_range(part, 30, 10, 8, 50.0);
    CHECK(memcmp(full + 30 * 8, part, sizeof part) == 0, "range rows = table rows");
    /* negative positions: sin odd, cos even */
    float neg[8];
    sx_nn_posenc_range(neg, -7, 1, 8, 50.0);
    int sym = 1;
    for (int c = 0; c < 8; c++) sym &= neg[c] == (c % 2 ? full[7 * 8 + c] : -full[7 * 8 + c]);
    CHECK(sym, "PE(-t) = (-sin, cos)");
}

/* ------------------------------------------------------- relative positions */
static void test_relative_property(void) {
    const int T = 64, d = 16;
    const double base = 10000.0;
    float *pe = malloc(sizeof(float) * T * d);
    sx_positional_encoding(pe, T, d, base);
    /* dot products: PE(i) . PE(j) = sum_pairs cos((i - j) w) for every pair (i, j) */
    double worst = 0.0, spread = 0.0;
    for (int k = -(T - 1); k <= T - 1; k++) {
        double closed = 0.0, lo = INFINITY, hi = -INFINITY;
        for (int p = 0; p < d / 2; p++) closed += cos(k * pow(base, -2.0 * p / d));
        for (int i = 0; i < T; i++) {
            const int j = i - k;
            if (j < 0 || j >= T) continue;
            double dot = 0.0;
            for (int c = 0; c < d; c++) dot += (double)pe[i * d + c] * pe[j * d + c];
            worst = fmax(worst, fabs(dot - closed));
            lo = fmin(lo, dot);
            hi = fmax(hi, dot);
        }
        spread = fmax(spread, hi - lo);
    }
    CHECK(worst < 1e-5, "PE(i).PE(j) = sum cos((i-j) w): max error %g", worst);
    CHECK(spread < 1e-5, "PE(i).PE(j) depends on i - j only: spread %g", spread);
    /* a distinct offset gives a distinct value (it is not constant) */
    double d0 = 0.0, d5 = 0.0;
    for (int c = 0; c < d; c++) {
        d0 += (double)pe[c] * pe[c];
        d5 += (double)pe[5 * d + c] * pe[c];
    }
    CHECK(fabs(d0 - d / 2) < 1e-6 && d5 < d0 - 0.5, "offset 0 gives d/2 = %g, offset 5 less (%g)", d0, d5);

    /* rotation: M_k from k alone (in double), block p = [[cos kw, sin kw], [-sin kw, cos kw]] */
    const int ks[4] = { 1, 3, 10, 25 };
    double rot_err = 0.0, entry_err = 0.0;
    for (int a = 0; a < 4; a++) {
        const int k = ks[a];
        for (int i = 0; i + k < T; i += 3) {
            for (int p = 0; p < d / 2; p++) {
                const double w = pow(base, -2.0 * p / d), cs = cos(k * w), sn = sin(k * w);
                const double s = pe[i * d + 2 * p], c = pe[i * d + 2 * p + 1];
                const double s2 = cs * s + sn * c, c2 = -sn * s + cs * c;
                rot_err = fmax(rot_err, fabs(s2 - pe[(i + k) * d + 2 * p]));
                rot_err = fmax(rot_err, fabs(c2 - pe[(i + k) * d + 2 * p + 1]));
                /* the rotation's entries are PE(k)'s pair p: sin k w, cos k w */
                entry_err = fmax(entry_err, fabs(sn - pe[k * d + 2 * p]) + fabs(cs - pe[k * d + 2 * p + 1]));
            }
        }
    }
    CHECK(rot_err < 1e-6, "M_k PE(i) = PE(i + k): max error %g", rot_err);
    CHECK(entry_err < 1e-6, "M_k's entries are PE(k): max error %g", entry_err);
    free(pe);
}

/* ----------------------------------------------------------- Shaw et al. */
static void test_shaw(void) {
    const int nq = 7, nk = 9, d = 5, K = 3;
    float q[7 * 5], table[7 * 5], out[7 * 9];
    fill(q, sizeof q / sizeof *q);
    fill(table, sizeof table / sizeof *table);
    CHECK(sx_relative_scores(out, q, table, nq, nk, d, K) == SX_OK, "ok");
    double err = 0.0;
    for (int i = 0; i < nq; i++) {
        for (int j = 0; j < nk; j++) {
            const int rel = j - i < -K ? -K : j - i > K ? K : j - i;
            double s = 0.0;
            for (int c = 0; c < d; c++) s += (double)q[i * d + c] * table[(rel + K) * d + c];
            err = fmax(err, fabs(out[i * nk + j] - s));
        }
    }
    CHECK(err < 1e-5, "Shaw term vs float64: %g", err);
    /* one-hot table rows 0..2K with q = 1: out reads off clip(j - i) + K */
    float ones[3 * 7], eye[7 * 7], idx[3 * 9];
    for (int i = 0; i < 21; i++) ones[i] = 1.0f;
    for (int i = 0; i < 49; i++) eye[i] = 0.0f;
    for (int r = 0; r < 7; r++) eye[r * 7 + r] = (float)r; /* row r: r at column r */
    CHECK(sx_relative_scores(idx, ones, eye, 3, 9, 7, 3) == SX_OK, "ok");
    int clip_ok = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 9; j++) {
            const int rel = j - i < -3 ? -3 : j - i > 3 ? 3 : j - i;
            clip_ok &= idx[i * 9 + j] == (float)(rel + 3);
        }
    CHECK(clip_ok, "clipped distances j - i in [-K, K]");
    /* K = 0: every pair shares the one row */
    float out0[7 * 9];
    CHECK(sx_relative_scores(out0, q, table, nq, nk, d, 0) == SX_OK, "K = 0 ok");
    int same = 1;
    for (int i = 0; i < nq; i++)
        for (int j = 1; j < nk; j++) same &= out0[i * nk + j] == out0[i * nk];
    CHECK(same, "K = 0: one value per query");
}

/* ------------------------------------------------------------ Transformer-XL */
static void test_txl(void) {
    const int nq = 6, nk = 8, d = 4, dr = 6;
    const double base = 100.0;
    float q[6 * 4], k[8 * 4], u[4], v[4], w[6 * 4], out[6 * 8], terms[4 * 6 * 8];
    fill(q, 24);
    fill(k, 32);
    fill(u, 4);
    fill(v, 4);
    fill(w, 24);
    CHECK(sx_txl_scores(out, terms, q, k, u, v, w, nq, nk, d, dr, base) == SX_OK, "ok");
    double err = 0.0, term_err = 0.0, sum_err = 0.0;
    for (int i = 0; i < nq; i++) {
        for (int j = 0; j < nk; j++) {
            double r[4] = { 0 }; /* r_{i-j} = PE(i - j) W_r, PE in double */
            for (int e = 0; e < dr; e++)
                for (int c = 0; c < d; c++) r[c] += ref_pe(i - j, e, dr, base) * w[e * d + c];
            double a = 0, b = 0, cc = 0, dd = 0;
            for (int c = 0; c < d; c++) {
                a += (double)q[i * d + c] * k[j * d + c];
                b += q[i * d + c] * r[c];
                cc += (double)u[c] * k[j * d + c];
                dd += v[c] * r[c];
            }
            const int ij = i * nk + j, A = nq * nk;
            err = fmax(err, fabs(out[ij] - (a + b + cc + dd)));
            term_err = fmax(term_err, fabs(terms[ij] - a));
            term_err = fmax(term_err, fabs(terms[A + ij] - b));
            term_err = fmax(term_err, fabs(terms[2 * A + ij] - cc));
            term_err = fmax(term_err, fabs(terms[3 * A + ij] - dd));
            sum_err = fmax(sum_err, fabs(out[ij] - ((double)terms[ij] + terms[A + ij] + terms[2 * A + ij] + terms[3 * A + ij])));
        }
    }
    CHECK(err < 1e-5, "TXL scores vs the definition: %g", err);
    CHECK(term_err < 1e-5, "TXL terms vs the definition: %g", term_err);
    CHECK(sum_err < 1e-5, "out = a + b + c + d: %g", sum_err);

    /* no projection (w_r NULL, dim_r = dim), u = v = 0: q_i . (k_j + PE(i - j)), and the
       position terms depend on i - j only (with q_i = q for all i) */
    float q1[6 * 4], z[4] = { 0, 0, 0, 0 }, out1[6 * 8], t1[4 * 6 * 8];
    for (int i = 0; i < 6; i++)
        for (int c = 0; c < 4; c++) q1[i * 4 + c] = q[c];
    CHECK(sx_txl_scores(out1, t1, q1, k, z, z, NULL, nq, nk, d, d, 10000.0) == SX_OK, "no w_r ok");
    double e1 = 0.0, toeplitz = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) {
            double s = 0.0;
            for (int c = 0; c < d; c++) s += (double)q[c] * (k[j * d + c] + ref_pe(i - j, c, d, 10000.0));
            e1 = fmax(e1, fabs(out1[i * nk + j] - s));
            if (i > 0 && j > 0) toeplitz = fmax(toeplitz, fabs(t1[48 + i * nk + j] - t1[48 + (i - 1) * nk + j - 1]));
        }
    CHECK(e1 < 1e-5, "no projection, no biases: q.(k + PE(i-j)): %g", e1);
    CHECK(toeplitz == 0.0f, "content-position term constant along diagonals for a fixed q");
    int zero = 1;
    for (int i = 96; i < 192; i++) zero &= t1[i] == 0.0f;
    CHECK(zero, "u = v = 0: the bias terms are 0");
    /* terms NULL: the same out */
    float out2[6 * 8];
    CHECK(sx_txl_scores(out2, NULL, q, k, u, v, w, nq, nk, d, dr, base) == SX_OK, "terms NULL ok");
    CHECK(memcmp(out, out2, sizeof out) == 0, "terms NULL: same scores");
}

/* ----------------------------------------------------------------- errors */
static int fails(int st, int want, const char *msg) {
    return st == want && strcmp(sx_last_error(), msg) == 0;
}

static void test_errors(void) {
    float buf[64] = { 0 }, one[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK(fails(sx_positional_encoding(buf, 4, 3, 10000.0), SX_EINVAL, "dim must be even and >= 2 (got 3)"),
          "odd dim: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(buf, 4, 0, 10000.0), SX_EINVAL, "dim must be even and >= 2 (got 0)"),
          "dim 0: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(buf, -1, 2, 10000.0), SX_EINVAL, "positions must be >= 0 (got -1)"),
          "negative positions: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(buf, 4, 2, 0.0), SX_EINVAL, "base must be finite and > 0 (got 0)"),
          "base 0: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(buf, 4, 2, NAN), SX_EINVAL, "base must be finite and > 0 (got NaN)"),
          "base NaN: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(buf, 1 << 20, 1 << 10, 10000.0), SX_EINVAL,
                "positions * dim too large (1048576 * 1024)"), "too large: %s", sx_last_error());
    CHECK(fails(sx_positional_encoding(NULL, 4, 2, 10000.0), SX_EINVAL, "null buffer (out)"), "null");
    CHECK(sx_positional_encoding(NULL, 0, 2, 10000.0) == SX_OK, "0 positions: nothing to write");

    CHECK(fails(sx_relative_scores(buf, one, one, 2, 2, 2, -1), SX_EINVAL,
                "max_distance must be in [0, 2^28] (got -1)"), "K < 0: %s", sx_last_error());
    CHECK(fails(sx_relative_scores(buf, one, one, 2, 2, 0, 1), SX_EINVAL, "dim must be >= 1 (got 0)"),
          "dim 0: %s", sx_last_error());
    CHECK(fails(sx_relative_scores(buf, one, one, -2, 2, 1, 1), SX_EINVAL, "n_q must be >= 0 (got -2)"),
          "n_q < 0: %s", sx_last_error());
    float bad[4] = { 1, 2, NAN, 4 };
    CHECK(fails(sx_relative_scores(buf, bad, one, 2, 2, 2, 1), SX_ENONFINITE, "q[2] must be finite (got NaN)")
              && sx_last_error_index() == 2, "NaN q: %s", sx_last_error());
    CHECK(fails(sx_relative_scores(buf, one, bad, 1, 2, 1, 1), SX_ENONFINITE, "table[2] must be finite (got NaN)"),
          "NaN table: %s", sx_last_error());
    CHECK(sx_relative_scores(NULL, NULL, NULL, 0, 5, 2, 1) == SX_OK, "n_q 0: nothing to write");

    CHECK(fails(sx_txl_scores(buf, NULL, one, one, one, one, NULL, 2, 2, 4, 6, 100.0), SX_EINVAL,
                "w_r is NULL: dim_r must equal dim (got 6 and 4)"), "dim_r: %s", sx_last_error());
    CHECK(fails(sx_txl_scores(buf, NULL, one, one, one, one, NULL, 2, 2, 3, 3, 100.0), SX_EINVAL,
                "dim_r must be even and >= 2 (got 3)"), "odd dim_r: %s", sx_last_error());
    CHECK(fails(sx_txl_scores(buf, NULL, one, one, one, one, NULL, 2, 2, 2, 2, -1.0), SX_EINVAL,
                "base must be finite and > 0 (got -1)"), "base: %s", sx_last_error());
    float kbad[4] = { 0, INFINITY, 0, 0 };
    CHECK(fails(sx_txl_scores(buf, NULL, one, kbad, one, one, NULL, 2, 2, 2, 2, 100.0), SX_ENONFINITE,
                "k[1] must be finite (got Infinity)"), "k Inf: %s", sx_last_error());
    CHECK(fails(sx_txl_scores(buf, NULL, one, one, bad + 2, one, NULL, 1, 1, 2, 2, 100.0), SX_ENONFINITE,
                "u[0] must be finite (got NaN)"), "u NaN: %s", sx_last_error());
    CHECK(fails(sx_txl_scores(buf, NULL, one, one, one, NULL, NULL, 1, 1, 2, 2, 100.0), SX_EINVAL,
                "null buffer (v)"), "v NULL: %s", sx_last_error());
    CHECK(sx_txl_scores(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 3, 0, 2, 2, 100.0) == SX_OK,
          "n_k 0: nothing to write");
}

int main(void) {
    test_sinusoids();
    test_model_table();
    test_relative_property();
    test_shaw();
    test_txl();
    test_errors();
    return sx_test_summary("test_positions");
}
