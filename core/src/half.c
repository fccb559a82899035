/* half.c - IEEE binary16 <-> binary32, round to nearest even (see half.h). */
#include <string.h>
#include "half.h"

static uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

#define F32_INF 0x7f800000u
#define F32_HALF_OVERFLOW 0x477ff000u /* 65520: halfway between 65504 and 65536, ties up (even) */
#define F32_HALF_MIN_NORMAL 0x38800000u /* 2^-14 */
#define F32_HALF_MIN_TIE 0x33000000u    /* 2^-25: half the smallest subnormal */

uint16_t sx__f16_from_f32(float x) {
    const uint32_t u = bits_of(x), a = u & 0x7fffffffu;
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > F32_INF) return (uint16_t)(sign | 0x7e00u); /* NaN: a quiet NaN */
    if (a >= F32_HALF_OVERFLOW) return (uint16_t)(sign | 0x7c00u); /* rounds to infinity */
    if (a >= F32_HALF_MIN_NORMAL) {
        /* rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry out of the
           mantissa moves to the next exponent, which is the right result */
        uint32_t h = (a - (112u << 23)) >> 13;
        const uint32_t rest = a & 0x1fffu;
        h += rest > 0x1000u || (rest == 0x1000u && (h & 1u));
        return (uint16_t)(sign | h);
    }
    if (a <= F32_HALF_MIN_TIE) return sign; /* rounds to a zero (2^-25 itself: the tie to even 0) */
    /* subnormal half: m = round(|x| 2^24), |x| = mant 2^(e - 150), so m = mant >> (126 - e) */
    const uint32_t e = a >> 23, mant = (a & 0x7fffffu) | 0x800000u, shift = 126u - e; /* 14..24 */
    uint32_t m = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
    m += rest > tie || (rest == tie && (m & 1u)); /* m = 1024 is 2^-14, the smallest normal */
    return (uint16_t)(sign | m);
}

float sx__f32_from_f16(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31) return float_of(sign | F32_INF | (m << 13));
    if (e) return float_of(sign | ((e + 112u) << 23) | (m << 13));
    if (!m) return float_of(sign);
    /* subnormal: m 2^-24; normalise m = 1.f 2^k (k = 0..9) into a float */
    uint32_t k = 0;
    while ((m >> (k + 1)) != 0) k++;
    return float_of(sign | ((k + 103u) << 23) | ((m << (23 - k)) & 0x7fffffu));
}

int sx__f16_fits(float x) { return (bits_of(x) & 0x7fffffffu) < F32_HALF_OVERFLOW; }
