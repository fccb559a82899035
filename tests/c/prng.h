/* prng.h - the native tests' seeded PRNG (splitmix64): urand() uniform in [0, 1), nrand() a
   standard normal (Box-Muller). A test program defines SX_TEST_SEED, its own seed, before
   including this, so each program draws the same sequence on every run. */
#ifndef SX_PRNG_H
#define SX_PRNG_H
#include <math.h>
#include <stdint.h>

#ifndef SX_TEST_SEED
#error "define SX_TEST_SEED before including prng.h"
#endif

static uint64_t rng = SX_TEST_SEED;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(next_u64() >> 11) * 0x1p-53; }
static double nrand(void) {
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}
#endif
