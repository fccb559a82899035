/* rng.h - a small deterministic PRNG shared by the core (internal, sx__ prefix, never exported).

   splitmix64 (Steele, Lea, Flood 2014; the seeder of xoshiro): a 64-bit counter stepped by the
   golden-ratio increment and passed through a 64-bit finaliser. It passes BigCrush, has a period
   of 2^64, costs one add and two multiplies per draw, and lets any (seed, stream) pair start an
   independent generator in O(1): that is what makes "example i of seed s" reproducible without
   generating examples 0..i-1.

   Bit-identical on every platform (native x86/ARM, wasm32): only fixed-width integer arithmetic,
   and the float draws are exact conversions of integers (no libm, so no platform-dependent
   rounding in log/cos). Use it for anything that must reproduce across builds: task generation,
   parameter initialisation, shuffles.

   USAGE
     sx__rng r;
     sx__rng_init(&r, seed, stream);          // stream: any 64-bit key (e.g. a layer id)
     uint32_t k = sx__rng_below(&r, 10);      // uniform in [0, 10), unbiased
     float u = sx__rng_uniform(&r);           // uniform in [0, 1), 24 random bits
     float g = sx__rng_normal(&r);            // approx. N(0, 1): Irwin-Hall sum of 12 uniforms */
#ifndef SX_RNG_H
#define SX_RNG_H

#include <stdint.h>

typedef struct sx__rng {
    uint64_t state;
} sx__rng;

/* The splitmix64 finaliser: a bijective 64-bit mix. Also a good hash of an integer key. */
uint64_t sx__mix64(uint64_t z);

/* Start a generator for (seed, stream). Different streams of one seed, and one stream of
   different seeds, give unrelated sequences. */
void sx__rng_init(sx__rng *r, uint64_t seed, uint64_t stream);

uint64_t sx__rng_next64(sx__rng *r);
uint32_t sx__rng_u32(sx__rng *r);
/* Uniform in [0, n) for n >= 1, without modulo bias (Lemire's multiply-shift with rejection).
   n == 0 returns 0. */
uint32_t sx__rng_below(sx__rng *r, uint32_t n);
/* Uniform integer in [lo, hi], lo <= hi. */
int sx__rng_range(sx__rng *r, int lo, int hi);
/* Uniform float in [0, 1): k * 2^-24 for a uniform 24-bit k (exactly representable). */
float sx__rng_uniform(sx__rng *r);
/* Approximately standard normal: (sum of 12 uniforms) - 6, in [-6, 6), variance 1. Summed in
   double, where every partial sum is exact, so the result is the same bit pattern everywhere. */
float sx__rng_normal(sx__rng *r);

#endif
