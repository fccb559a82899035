/* tiled.h - the long-sequence attention kernel (tiled.c), internal: mha.c's sx_attention_tiled
   checks the arguments and calls it once per (batch element, head). */
#ifndef SX_TILED_H
#define SX_TILED_H

#include <stdint.h>

/* Default blocks: queries per block, keys per block (softmax: the online-softmax tile; sparse
   mappings: the tile of weights checked for all zeros), picked by bench/long.mjs. */
#define SX_TILE_BQ 64
#define SX_TILE_BK_SOFTMAX 256
#define SX_TILE_BK_SPARSE 64

/* Floats of scratch sx__attention_tiled needs for Tk keys of dh floats with blocks bq, bk. */
uint64_t sx__attention_tiled_scratch(int Tk, int dh, int mapping, int bq, int bk);

/* One head of one batch element: out (Tq, dh) row stride ldo = map(q k^T / sqrt(dh)) v with q
   (Tq, dh) stride ldq, k and v (Tk, dh) stride ldkv; keys j >= klen and, when causal, j > i are
   masked (klen in [0, Tk]). out is overwritten. mapping: an SX_MAP_* code attention takes, param
   its parameter. tiles[0] += the (bq, bk) tiles with a visible pair, tiles[1] += those whose
   weights were all zero (skipped; never for softmax). Returns SX_OK, a mapping's status, or
   SX_ENONFINITE when a score overflows float. */
int sx__attention_tiled(float *out, int ldo, float *scratch, const float *q, int ldq,
                        const float *k, const float *v, int ldkv, int klen, int Tq, int Tk, int dh,
                        int mapping, float param, int causal, int bq, int bk, double *tiles);

#endif
