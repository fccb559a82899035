/* inputs.h - the native benchmarks' inputs, drawn exactly as bench/common.mjs draws them for
   the wasm and JS engines (so every engine sees the same numbers): mulberry32 uniforms, and
   scores with mean 0 and standard deviation 1 as the sum of four uniforms (exact in double). */
#ifndef SX_BENCH_INPUTS_H
#define SX_BENCH_INPUTS_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static uint32_t rng_state;
static double rng_uniform(void) {
    rng_state += 0x6D2B79F5u;
    uint32_t t = rng_state;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return (double)(t ^ (t >> 14)) / 4294967296.0;
}

static void fill_scores(float *x, size_t count, uint32_t seed) {
    rng_state = seed;
    for (size_t i = 0; i < count; i++) {
        double s = rng_uniform() + rng_uniform() + rng_uniform() + rng_uniform();
        x[i] = (float)((s - 2.0) * sqrt(3.0));
    }
}
#endif
