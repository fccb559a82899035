/* half.h - IEEE 754 binary16 ("float16") <-> binary32 conversions, bit exact on every build
   (internal, sx__ prefix, never exported). The float16 checkpoints (model.c) store their
   parameters with these.

   binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits. Normal numbers from
   2^-14 to 65504 with 11 significant bits (a relative rounding error of at most 2^-11),
   subnormals m 2^-24 (m = 1..1023), signed zeros, infinities and NaN.

   sx__f16_from_f32 rounds to nearest, ties to even, like a hardware conversion: magnitudes
   below 2^-14 become subnormals (the step is 2^-24), at most 2^-25 (the tie goes to the even
   0) a zero of the same sign; -0 stays -0. It does not saturate: a magnitude of 65520 or more
   (which rounds past 65504, the largest finite half) gives an infinity of the same sign, a NaN
   a quiet NaN. Callers that must stay finite check sx__f16_fits first. sx__f32_from_f16 is
   exact (every half is a float).

   Integer arithmetic only: no dependence on the FPU's rounding mode, no _Float16 (which the
   scalar wasm build and older compilers lack). */
#ifndef SX_HALF_H
#define SX_HALF_H

#include <stdint.h>

/* The nearest half to x (ties to even); see above for overflow and NaN. */
uint16_t sx__f16_from_f32(float x);
/* The value of the half h. */
float sx__f32_from_f16(uint16_t h);
/* 1 when x is finite and rounds to a finite half (|x| < 65520), else 0. */
int sx__f16_fits(float x);

#endif
