/* rng.c - splitmix64: the deterministic PRNG behind task generation and parameter init.
   See rng.h for why this generator and why no libm. */
#include "rng.h"

#define SX__GOLDEN 0x9e3779b97f4a7c15ull

uint64_t sx__mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sx__rng_init(sx__rng *r, uint64_t seed, uint64_t stream) {
    /* Mix the seed and the stream separately before combining, so that (seed, stream) and
       (seed ^ d, stream ^ d) do not collide. */
    r->state = sx__mix64(seed + SX__GOLDEN) ^ sx__mix64(sx__mix64(stream) + 0x2545f4914f6cdd1dull);
}

uint64_t sx__rng_next64(sx__rng *r) {
    r->state += SX__GOLDEN;
    return sx__mix64(r->state);
}

uint32_t sx__rng_u32(sx__rng *r) { return (uint32_t)(sx__rng_next64(r) >> 32); }

uint32_t sx__rng_below(sx__rng *r, uint32_t n) {
    if (n == 0) return 0;
    uint64_t m = (uint64_t)sx__rng_u32(r) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(0u - n) % n; /* 2^32 mod n */
        while (low < threshold) {
            m = (uint64_t)sx__rng_u32(r) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

int sx__rng_range(sx__rng *r, int lo, int hi) {
    uint32_t span = (uint32_t)((int64_t)hi - (int64_t)lo + 1);
    return (int)((int64_t)lo + (int64_t)sx__rng_below(r, span));
}

float sx__rng_uniform(sx__rng *r) { return (float)(sx__rng_next64(r) >> 40) * (1.0f / 16777216.0f); }

float sx__rng_normal(sx__rng *r) {
    double s = 0.0;
    for (int i = 0; i < 12; i++) s += (double)(sx__rng_next64(r) >> 40); /* exact: < 2^28 */
    return (float)(s * (1.0 / 16777216.0) - 6.0);
}
