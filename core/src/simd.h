/* simd.h - the one place that includes SIMDe's wasm simd128 intrinsics, plus shared vector helpers.
   With emcc -msimd128 these are real wasm SIMD; with gcc -msse4.2 they are SSE; with emcc and no
   -msimd128 they are scalar wasm. */
#ifndef SX_SIMD_H
#define SX_SIMD_H

#include <simde/wasm/simd128.h>

typedef simde_v128_t v128;

/* 1 in the scalar wasm build (emcc without -msimd128), where SIMDe keeps every vector in memory:
   the few kernels where that costs more than plain C take a plain-C path there. */
#if defined(__EMSCRIPTEN__) && !defined(__wasm_simd128__)
#define SX_SCALAR_WASM 1
#else
#define SX_SCALAR_WASM 0
#endif

/* 1 where the throughput paths that cost kilobytes of code are built: fusedmax's two-rows-at-a-
   time sweep, alpha-entmax's groups of short rows and its dense path for flat rows. Not in the
   scalar wasm build (emulated lanes) nor in the mappings core (SX_MAPPINGS_CORE, compiled for
   size: its widgets map a few short rows at a time; sparsemax.c leaves its candidate lists for
   long rows out there too). fusedmax's runs are the same bits either way; alpha-entmax on batches
   of 4- to 32-entry rows and sparsemax on rows of 384+ entries agree with the full core to ~3e-8
   (tests/js/cores.test.mjs), alpha-entmax on flat rows of 16+ entries to ~2e-8
   (tests/js/entmax-dense.test.mjs checks 1e-6). */
#if !SX_SCALAR_WASM && !defined(SX_MAPPINGS_CORE)
#define SX_WIDE_PATHS 1
#else
#define SX_WIDE_PATHS 0
#endif

#define SX_INLINE static inline

/* ------------------------------------------------------------ short names */
#define vsplat(f) simde_wasm_f32x4_splat(f)
#define vload(p) simde_wasm_v128_load(p)
#define vstore(p, v) simde_wasm_v128_store((p), (v))
#define vadd(a, b) simde_wasm_f32x4_add((a), (b))
#define vsub(a, b) simde_wasm_f32x4_sub((a), (b))
#define vmul(a, b) simde_wasm_f32x4_mul((a), (b))
#define vdiv(a, b) simde_wasm_f32x4_div((a), (b))
/* pmax/pmin (b < a ? ... ): one instruction in V8, unlike the NaN-propagating max/min. */
#define vmax(a, b) simde_wasm_f32x4_pmax((a), (b))
#define vmin(a, b) simde_wasm_f32x4_pmin((a), (b))
#define vgt(a, b) simde_wasm_f32x4_gt((a), (b))
#define vge(a, b) simde_wasm_f32x4_ge((a), (b))
#define vlt(a, b) simde_wasm_f32x4_lt((a), (b))
#define veq(a, b) simde_wasm_f32x4_eq((a), (b))
#define vand(a, b) simde_wasm_v128_and((a), (b))
#define vandnot(a, b) simde_wasm_v128_andnot((a), (b)) /* a & ~b */
#define vor(a, b) simde_wasm_v128_or((a), (b))
#define vsel(m, a, b) simde_wasm_v128_bitselect((a), (b), (m)) /* m ? a : b, bitwise */
#define vsqrt(a) simde_wasm_f32x4_sqrt(a)

/* Load k (0..3) trailing floats, the other lanes set to `pad`; store k lanes back. */
SX_INLINE v128 sx_load_tail(const float *p, int k, float pad) {
    float t[4] = { pad, pad, pad, pad };
    for (int i = 0; i < k; i++) t[i] = p[i];
    return vload(t);
}
SX_INLINE void sx_store_tail(float *p, v128 v, int k) {
    float t[4];
    vstore(t, v);
    for (int i = 0; i < k; i++) p[i] = t[i];
}

/* ------------------------------------------------------ horizontal reductions */
SX_INLINE float sx_hsum(v128 v) {
    v = vadd(v, simde_wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = vadd(v, simde_wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return simde_wasm_f32x4_extract_lane(v, 0);
}
SX_INLINE float sx_hmax(v128 v) {
    v = vmax(v, simde_wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = vmax(v, simde_wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return simde_wasm_f32x4_extract_lane(v, 0);
}
SX_INLINE float sx_hmin(v128 v) {
    v = vmin(v, simde_wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = vmin(v, simde_wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return simde_wasm_f32x4_extract_lane(v, 0);
}
/* Sum of the four i32 lanes (counts kept as integer lanes: subtract a -1 compare mask). */
SX_INLINE int sx_hsum_i32(v128 v) {
    v = simde_wasm_i32x4_add(v, simde_wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = simde_wasm_i32x4_add(v, simde_wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return simde_wasm_i32x4_extract_lane(v, 0);
}

/* ----------------------------------------------------------------- exp(x), x <= 0
   XNNPACK-style (rr2-p5): n = round(x / ln 2) by the magic-bias trick, 2^n built by shifting
   the biased integer into the exponent bits, a two-constant Cody-Waite reduction and a degree-5
   polynomial. No clamps: valid for x in [-87.33, 0]; below the cutoff (where the result would be
   denormal) and at x = -Infinity the cutoff mask returns exactly 0. Relative error ~2 ulp.
   NaN in gives NaN out (callers never pass NaN). */
SX_INLINE v128 sx_exp_nonpos(v128 x) {
    const v128 log2e = vsplat(0x1.715476p+0f);
    const v128 magic = vsplat(0x1.8000FEp23f); /* 1.5 * 2^23 + 127 */
    const v128 mln2_hi = vsplat(-0x1.62E400p-1f);
    const v128 mln2_lo = vsplat(-0x1.7F7D1Cp-20f);
    const v128 c5 = vsplat(0x1.0F9F9Cp-7f);
    const v128 c4 = vsplat(0x1.573A1Ap-5f);
    const v128 c3 = vsplat(0x1.555A80p-3f);
    const v128 c2 = vsplat(0x1.FFFDC6p-2f);
    const v128 c1 = vsplat(0x1.FFFFF6p-1f);
    const v128 cutoff = vsplat(-0x1.5D589Ep6f);
    v128 n = vadd(vmul(x, log2e), magic);
    v128 s = simde_wasm_i32x4_shl(n, 23);
    n = vsub(n, magic);
    v128 t = vadd(vmul(n, mln2_hi), x);
    t = vadd(vmul(n, mln2_lo), t);
    v128 p = vadd(vmul(c5, t), c4);
    p = vadd(vmul(p, t), c3);
    p = vadd(vmul(p, t), c2);
    p = vadd(vmul(p, t), c1);
    t = vmul(t, s);
    v128 f = vadd(vmul(t, p), s);
    return vandnot(f, vlt(x, cutoff));
}

/* ------------------------------------------------------ double lanes (f64x2)
   Two doubles per vector, for the general-alpha entmax (entmax.c) and its backward passes
   (attention.c): log and exp in double where libm's scalar calls dominated the time (musl's in
   wasm are slower still). Real SIMD in the SIMD and native builds; the scalar wasm build keeps
   libm (emulated lanes cost more than the calls). */
typedef simde_v128_t v128d;
#define dsplat(f) simde_wasm_f64x2_splat(f)
#define dadd(a, b) simde_wasm_f64x2_add((a), (b))
#define dsub(a, b) simde_wasm_f64x2_sub((a), (b))
#define dmul(a, b) simde_wasm_f64x2_mul((a), (b))
#define ddiv(a, b) simde_wasm_f64x2_div((a), (b))
#define dlane(v, i) simde_wasm_f64x2_extract_lane((v), (i))
/* Two floats to two doubles, and back (the other two float lanes zero). */
#define dload_f(p) simde_wasm_f64x2_promote_low_f32x4(simde_wasm_v128_load64_zero(p))
#define dstore_f(p, v) simde_wasm_v128_store64_lane((p), simde_wasm_f32x4_demote_f64x2_zero(v), 0)

/* log u for positive normal u: fdlibm's kernel (u = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt 2),
   s = f / (2 + f), a degree-14 odd polynomial in s; |error| < 2^-58 + rounding, under 1 ulp). */
SX_INLINE v128d sx_dlog(v128d u) {
    v128d m = vor(vand(u, simde_wasm_i64x2_splat(0x000fffffffffffffLL)), dsplat(0.5)); /* [0.5, 1) */
    v128d eb = vor(simde_wasm_u64x2_shr(u, 52), dsplat(0x1p52));                        /* 2^52 + biased e */
    v128d e = dsub(eb, dsplat(0x1p52 + 1022.0));
    v128d small = simde_wasm_f64x2_lt(m, dsplat(0.70710678118654752440));
    e = dsub(e, vand(small, dsplat(1.0)));
    v128d f = dsub(dadd(m, vand(m, small)), dsplat(1.0));
    v128d s = ddiv(f, dadd(dsplat(2.0), f));
    v128d z = dmul(s, s), w = dmul(z, z);
    v128d t1 = dmul(w, dadd(dsplat(3.999999999940941908e-01),
                            dmul(w, dadd(dsplat(2.222219843214978396e-01), dmul(w, dsplat(1.531383769920937332e-01))))));
    v128d t2 = dmul(z, dadd(dsplat(6.666666666666735130e-01),
                            dmul(w, dadd(dsplat(2.857142874366239149e-01),
                                         dmul(w, dadd(dsplat(1.818357216161805012e-01), dmul(w, dsplat(1.479819860511658591e-01))))))));
    v128d r = dadd(t1, t2), hfsq = dmul(dsplat(0.5), dmul(f, f));
    return dadd(dmul(e, dsplat(6.93147180369123816490e-01)),
                dsub(f, dsub(hfsq, dadd(dmul(s, dadd(hfsq, r)), dmul(e, dsplat(1.90821492927058770002e-10))))));
}

/* exp(y) = 2^n (1 + em1) for y in [-708, 709]: n = round(y / ln 2) by the magic-bias trick (2^n
   built in the exponent bits, into *scale), r = y - n ln 2 in two constants, |r| <= ln(2)/2, and
   em1 = exp(r) - 1 by its degree-12 Taylor polynomial (truncation 2e-16), returned. */
SX_INLINE v128d sx_dexp_split(v128d y, v128d *scale) {
    const v128d magic = dsplat(0x1.8p52 + 1023.0);
    v128d nb = dadd(dmul(y, dsplat(1.44269504088896338700e+00)), magic);
    v128d n = dsub(nb, magic);
    v128d x = dsub(dsub(y, dmul(n, dsplat(6.93147180369123816490e-01))), dmul(n, dsplat(1.90821492927058770002e-10)));
    /* exp(x) - 1 = x P(x), P(x) = sum_k x^k / (k + 1)!, k <= 11, by Estrin's scheme (8 dependent
       steps instead of Horner's 24: the kernel's latency is what a row of a few entries waits on) */
    const v128d x2 = dmul(x, x), x4 = dmul(x2, x2), x8 = dmul(x4, x4);
    const v128d a0 = dadd(dsplat(1.0), dmul(x, dsplat(1.0 / 2.0)));
    const v128d a1 = dadd(dsplat(1.0 / 6.0), dmul(x, dsplat(1.0 / 24.0)));
    const v128d a2 = dadd(dsplat(1.0 / 120.0), dmul(x, dsplat(1.0 / 720.0)));
    const v128d a3 = dadd(dsplat(1.0 / 5040.0), dmul(x, dsplat(1.0 / 40320.0)));
    const v128d a4 = dadd(dsplat(1.0 / 362880.0), dmul(x, dsplat(1.0 / 3628800.0)));
    const v128d a5 = dadd(dsplat(1.0 / 39916800.0), dmul(x, dsplat(1.0 / 479001600.0)));
    const v128d b0 = dadd(a0, dmul(a1, x2)), b1 = dadd(a2, dmul(a3, x2)), b2 = dadd(a4, dmul(a5, x2));
    const v128d p = dadd(dadd(b0, dmul(b1, x4)), dmul(b2, x8));
    *scale = simde_wasm_i64x2_shl(nb, 52);
    return dmul(p, x);
}

/* exp(y) - 1 for y in [-708, 709], without cancellation near 0: 2^n em1 + (2^n - 1). */
SX_INLINE v128d sx_dexpm1(v128d y) {
    v128d scale, em1 = sx_dexp_split(y, &scale);
    return dadd(dmul(scale, em1), dsub(scale, dsplat(1.0)));
}

/* ------------------------------------------------ 3-vectors, SIMD across rows
   Four rows of n = 3 (12 floats in three vectors) to one vector per coordinate, and back. */
SX_INLINE void sx_deinterleave3(v128 v0, v128 v1, v128 v2, v128 *a, v128 *b, v128 *c) {
    /* v0 = a0 b0 c0 a1, v1 = b1 c1 a2 b2, v2 = c2 a3 b3 c3 */
    v128 t1 = simde_wasm_i32x4_shuffle(v0, v1, 0, 3, 6, 7); /* a0 a1 a2 b2 */
    v128 t2 = simde_wasm_i32x4_shuffle(v0, v1, 1, 4, 7, 7); /* b0 b1 b2 b2 */
    v128 t3 = simde_wasm_i32x4_shuffle(v0, v1, 2, 5, 5, 5); /* c0 c1 c1 c1 */
    *a = simde_wasm_i32x4_shuffle(t1, v2, 0, 1, 2, 5);
    *b = simde_wasm_i32x4_shuffle(t2, v2, 0, 1, 2, 6);
    *c = simde_wasm_i32x4_shuffle(t3, v2, 0, 1, 4, 7);
}
SX_INLINE void sx_interleave3(v128 a, v128 b, v128 c, v128 *v0, v128 *v1, v128 *v2) {
    v128 u0 = simde_wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); /* a0 b0 a1 b1 */
    v128 u1 = simde_wasm_i32x4_shuffle(b, c, 1, 5, 2, 6); /* b1 c1 b2 c2 */
    v128 u2 = simde_wasm_i32x4_shuffle(a, b, 3, 7, 3, 7); /* a3 b3 a3 b3 */
    *v0 = simde_wasm_i32x4_shuffle(u0, c, 0, 1, 4, 2);
    *v1 = simde_wasm_i32x4_shuffle(u1, a, 0, 1, 6, 2);
    *v2 = simde_wasm_i32x4_shuffle(u2, c, 6, 0, 1, 7);
}

/* The driver of an n = 3 kernel for `rows` rows of x into out: four rows at a time, deinterleaved
   into v128 a, b, c (one vector per coordinate), KERNEL (a statement that maps a, b, c in place,
   e.g. sparsemax3(&a, &b, &c, vs)), interleaved back; the last 1-3 rows through a zero-padded
   buffer. A macro rather than a function taking the kernel, so each kernel is inlined in its
   loop in every build (the scalar wasm build included). Needs <string.h>. */
#define SX_ROWS3(out, x, rows, KERNEL)                                                       \
    do {                                                                                     \
        int r_ = 0;                                                                          \
        v128 a, b, c, v0_, v1_, v2_;                                                         \
        for (; r_ + 4 <= (rows); r_ += 4) {                                                  \
            const float *xr_ = (x) + 3 * r_;                                                 \
            float *o_ = (out) + 3 * r_;                                                      \
            sx_deinterleave3(vload(xr_), vload(xr_ + 4), vload(xr_ + 8), &a, &b, &c);       \
            KERNEL;                                                                          \
            sx_interleave3(a, b, c, &v0_, &v1_, &v2_);                                       \
            vstore(o_, v0_);                                                                 \
            vstore(o_ + 4, v1_);                                                             \
            vstore(o_ + 8, v2_);                                                             \
        }                                                                                    \
        if (r_ < (rows)) {                                                                   \
            float buf_[12] = { 0 };                                                          \
            const size_t k_ = 3 * (size_t)((rows) - r_) * sizeof(float);                     \
            memcpy(buf_, (x) + 3 * r_, k_);                                                  \
            sx_deinterleave3(vload(buf_), vload(buf_ + 4), vload(buf_ + 8), &a, &b, &c);    \
            KERNEL;                                                                          \
            sx_interleave3(a, b, c, &v0_, &v1_, &v2_);                                       \
            vstore(buf_, v0_);                                                               \
            vstore(buf_ + 4, v1_);                                                           \
            vstore(buf_ + 8, v2_);                                                           \
            memcpy((out) + 3 * r_, buf_, k_);                                                \
        }                                                                                    \
    } while (0)

/* ----------------------------------------------------------- input screening
   Fast screen for sx__check_scores: NaN and +Infinity (and, for dy, -Infinity) make the sum of
   the lanes' partial sums NaN or infinite, never finite, so a finite (or, with masks allowed,
   -Infinity) total proves every entry valid at one add per vector. Anything else, including a
   finite overflow, falls back to the exact check, which names the element. */
SX_INLINE int sx_scores_surely_ok(const float *x, size_t count, int allow_neg_inf) {
    v128 a0 = vsplat(0.0f), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        a0 = vadd(a0, vload(x + i));
        a1 = vadd(a1, vload(x + i + 4));
        a2 = vadd(a2, vload(x + i + 8));
        a3 = vadd(a3, vload(x + i + 12));
    }
    for (; i + 4 <= count; i += 4) a0 = vadd(a0, vload(x + i));
    float s = sx_hsum(vadd(vadd(a0, a1), vadd(a2, a3)));
    for (; i < count; i++) s += x[i];
    if (s != s || s == INFINITY) return 0;
    return allow_neg_inf || s != -INFINITY;
}

/* sx__check_scores (internal.h) behind the fast screen; the mappings core, compiled for size, calls
   the exact check alone (the same status and message: the screen only decides which runs). */
#ifdef SX_MAPPINGS_CORE
#define SX_CHECK_SCORES(x, count, name, allow_neg_inf) sx__check_scores((x), (count), (name), (allow_neg_inf))
#else
#define SX_CHECK_SCORES(x, count, name, allow_neg_inf) \
    (sx_scores_surely_ok((x), (count), (allow_neg_inf)) ? SX_OK : sx__check_scores((x), (count), (name), (allow_neg_inf)))
#endif

/* Scale 1/T applied after subtracting the max: (x - max) * scale. 1/T overflows only for
   denormal T; FLT_MAX then gives the same argmax limit without 0 * Infinity. */
SX_INLINE float sx_inv_temperature(float t) {
    float s = 1.0f / t;
    return s > 0x1.fffffep127f ? 0x1.fffffep127f : s;
}

#endif
