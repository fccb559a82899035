/* peak.c - the multiply + add throughput probe of `make bench-attention`: six independent
   f32x4 multiply chains and six add chains, no memory traffic, in the ratio a matmul without
   FMA uses them (relaxed-SIMD FMA is not usable here, PERFORMANCE.md). Built into
   build/bench/peak-simd.wasm (emcc -msimd128) and linked into bench_attention (SSE through
   SIMDe, the core's native build), so a run measures what this machine gives one thread right
   now, next to the attention timings: the reference kernels' figures (PERFORMANCE.md) come
   from a Zen 4 with a 56 GFLOP/s 128-bit peak, and the machines here are shared. Returns a
   value that depends on every chain (so nothing is optimised away); m = 1, a = 0 keep the
   values fixed. 48 flops per iteration. */
#include <simde/wasm/simd128.h>

#ifdef __EMSCRIPTEN__
#define SX_BENCH_EXPORT __attribute__((export_name("sx_bench_peak")))
#else
#define SX_BENCH_EXPORT
#endif

SX_BENCH_EXPORT float sx_bench_peak(int iters, float m, float a) {
    const simde_v128_t vm = simde_wasm_f32x4_splat(m), va = simde_wasm_f32x4_splat(a);
    simde_v128_t x0 = simde_wasm_f32x4_splat(1.0f), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0;
    simde_v128_t y0 = simde_wasm_f32x4_splat(0.0f), y1 = y0, y2 = y0, y3 = y0, y4 = y0, y5 = y0;
    for (int i = 0; i < iters; i++) {
        x0 = simde_wasm_f32x4_mul(x0, vm);
        y0 = simde_wasm_f32x4_add(y0, va);
        x1 = simde_wasm_f32x4_mul(x1, vm);
        y1 = simde_wasm_f32x4_add(y1, va);
        x2 = simde_wasm_f32x4_mul(x2, vm);
        y2 = simde_wasm_f32x4_add(y2, va);
        x3 = simde_wasm_f32x4_mul(x3, vm);
        y3 = simde_wasm_f32x4_add(y3, va);
        x4 = simde_wasm_f32x4_mul(x4, vm);
        y4 = simde_wasm_f32x4_add(y4, va);
        x5 = simde_wasm_f32x4_mul(x5, vm);
        y5 = simde_wasm_f32x4_add(y5, va);
    }
    simde_v128_t s = simde_wasm_f32x4_add(simde_wasm_f32x4_add(x0, x1), simde_wasm_f32x4_add(x2, x3));
    s = simde_wasm_f32x4_add(s, simde_wasm_f32x4_add(x4, x5));
    s = simde_wasm_f32x4_add(s, simde_wasm_f32x4_add(simde_wasm_f32x4_add(y0, y1), simde_wasm_f32x4_add(y2, y3)));
    s = simde_wasm_f32x4_add(s, simde_wasm_f32x4_add(y4, y5));
    return simde_wasm_f32x4_extract_lane(s, 0);
}
