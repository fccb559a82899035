/* measure.h - the timing loop the native benches share (bench_attention.c, bench_gpt.c): two
   warm-up calls, then calls until `ms` milliseconds of this process's CPU time have passed (the
   machines are shared: CPU time is what a busy neighbour disturbs least); the wall time too. */
#ifndef SX_BENCH_MEASURE_H
#define SX_BENCH_MEASURE_H
#include <time.h>
#include "simplexity.h"

static double bench_now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef int (*bench_call_fn)(void *ctx);

typedef struct {
    long calls;
    double cpu_ms, wall_ms; /* per call */
} bench_timing;

/* SX_OK and *t filled, or the first failing call's status (nothing timed). */
static int bench_time(bench_call_fn call, void *ctx, double ms, bench_timing *t) {
    for (int w = 0; w < 2; w++) {
        const int st = call(ctx);
        if (st != SX_OK) return st;
    }
    long calls = 0;
    const double c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_now(CLOCK_MONOTONIC);
    double c;
    do {
        const int st = call(ctx);
        if (st != SX_OK) return st;
        calls++;
        c = bench_now(CLOCK_PROCESS_CPUTIME_ID);
    } while (c - c0 < ms * 1e-3);
    t->calls = calls;
    t->cpu_ms = (c - c0) * 1e3 / (double)calls;
    t->wall_ms = (bench_now(CLOCK_MONOTONIC) - w0) * 1e3 / (double)calls;
    return SX_OK;
}
#endif
