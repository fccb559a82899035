/* simd.h - the one place that includes SIMDe's wasm simd128 intrinsics, plus shared vector helpers.
   With emcc -msimd128 these are real wasm SIMD; with gcc -msse4.2 they are SSE; with emcc and no
   -msimd128 they are scalar wasm. */
#ifndef SX_SIMD_H
#define SX_SIMD_H

#include <simde/wasm/simd128.h>

typedef simde_v128_t v128;

#endif
