/* rnn_checkpoint.c - the recurrent encoder-decoder's checkpoints, in the Transformer's format
   family (model.h, CHECKPOINTS) with their own magic: little-endian, no padding,
     "SXRN" | u32 format version | u32 n_cfg | u32 n_fcfg | u32 n_params |
     i32 cfg[n_cfg] | f32 fcfg[n_fcfg] | params[n_params] | u32 FNV-1a checksum of the bytes before,
   the parameters as f32 in version 1 (SX_SAVE_FLOAT32, lossless) or IEEE binary16 in version 2
   (SX_SAVE_FLOAT16, half.h; a parameter of magnitude >= 65520 makes the save fail). The float
   config is stored whole (defaults filled in), so a loaded model is configured exactly as the
   saved one; Adam's moments and the REINFORCE baseline are not stored. Built on the public
   sx_rnn_* calls and rnn.h's sx__rnn_new. Loading checks, in order: size, magic, version, the
   declared sizes against the byte count, the checksum, the config (as sx_rnn_create), the
   parameter count the config implies against the stored one and the activations' limit (both
   before anything is allocated: a crafted config costs no work), finite parameters; each failure
   is SX_EINVAL with a message. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "half.h"
#include "internal.h"
#include "rnn.h"

SX_COLD_BEGIN

#define SXR_MAGIC "SXRN"
#define SXR_HEADER 20

static void put_u32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16), b[3] = (unsigned char)(v >> 24);
}
static uint32_t get_u32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint32_t fnv1a(const unsigned char *b, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}
static size_t param_bytes(int precision) {
    return precision == SX_SAVE_FLOAT32 ? 4 : precision == SX_SAVE_FLOAT16 ? 2 : 0;
}

int sx_rnn_save_size_as(const sx_rnn *m, int precision) {
    const size_t pb = param_bytes(precision);
    if (!m || !pb) return 0;
    return (int)(SXR_HEADER + 4 * (SX_RNN_N_CFG + SX_RNN_N_FCFG) + pb * sx_rnn_num_params(m) + 4);
}

int sx_rnn_save_as(const sx_rnn *m, unsigned char *buf, int cap, int precision) {
    static const char fn[] = "rnn_save";
    if (!m || !buf) return sx__fail(SX_EINVAL, -1, "%s: model or buf is NULL", fn);
    const size_t pb = param_bytes(precision);
    if (!pb)
        return sx__fail(SX_EINVAL, -1, "%s: precision must be SX_SAVE_FLOAT32 (32) or "
                        "SX_SAVE_FLOAT16 (16) (got %d)", fn, precision);
    const int size = sx_rnn_save_size_as(m, precision), n = sx_rnn_num_params(m);
    if (cap < size)
        return sx__fail(SX_EINVAL, -1, "%s: buffer holds %d bytes, the checkpoint needs %d", fn,
                        cap, size);
    const float *p = sx_rnn_params((sx_rnn *)m); /* read only */
    for (int i = 0; pb == 2 && i < n; i++)
        if (!sx__f16_fits(p[i]))
            return sx__fail(SX_EINVAL, i, "%s: parameter %d is %g, beyond float16 (finite, "
                            "magnitude below 65520): save as float32", fn, i, (double)p[i]);
    unsigned char *b = buf;
    memcpy(b, SXR_MAGIC, 4);
    put_u32(b + 4, pb == 2 ? 2u : 1u);
    put_u32(b + 8, SX_RNN_N_CFG);
    put_u32(b + 12, SX_RNN_N_FCFG);
    put_u32(b + 16, (uint32_t)n);
    b += SXR_HEADER;
    for (int i = 0; i < SX_RNN_N_CFG; i++, b += 4) put_u32(b, (uint32_t)sx_rnn_config(m, i));
    for (int i = 0; i < SX_RNN_N_FCFG; i++, b += 4) {
        const float f = sx_rnn_fconfig(m, i);
        uint32_t u;
        memcpy(&u, &f, 4);
        put_u32(b, u);
    }
    for (int i = 0; i < n; i++, b += pb) {
        uint32_t u;
        memcpy(&u, &p[i], 4);
        if (pb == 2) u = sx__f16_from_f32(p[i]);
        b[0] = (unsigned char)u, b[1] = (unsigned char)(u >> 8);
        if (pb == 4) b[2] = (unsigned char)(u >> 16), b[3] = (unsigned char)(u >> 24);
    }
    put_u32(b, fnv1a(buf, (size_t)(b - buf)));
    return SX_OK;
}

/* The header's promises against the bytes; the parameter width in *pb. */
static int check_header(const char *fn, const unsigned char *buf, int size, size_t *pb) {
    if (!buf || size < SXR_HEADER + 4)
        return sx__fail(SX_EINVAL, -1, "%s: truncated: %d bytes, a checkpoint has at least %d", fn,
                        buf ? size : 0, SXR_HEADER + 4);
    if (memcmp(buf, SXR_MAGIC, 4) != 0)
        return sx__fail(SX_EINVAL, -1, "%s: not a Simplexity recurrent model (bad magic)", fn);
    const uint32_t version = get_u32(buf + 4);
    if (version != 1u && version != 2u)
        return sx__fail(SX_EINVAL, -1, "%s: format version %d is not supported (this build reads "
                        "1 (float32) and 2 (float16))", fn, (int)(version & 0x7fffffff));
    *pb = version == 2u ? 2 : 4;
    const uint32_t n_cfg = get_u32(buf + 8), n_fcfg = get_u32(buf + 12), n_params = get_u32(buf + 16);
    if (n_cfg != SX_RNN_N_CFG || n_fcfg != SX_RNN_N_FCFG || n_params > (1u << 26))
        return sx__fail(SX_EINVAL, -1, "%s: corrupted header (n_cfg %d, n_fcfg %d, n_params %d)",
                        fn, (int)(n_cfg & 0x7fffffff), (int)(n_fcfg & 0x7fffffff),
                        (int)(n_params & 0x7fffffff));
    const size_t want = SXR_HEADER + 4 * ((size_t)n_cfg + n_fcfg) + *pb * n_params + 4;
    if ((size_t)size != want)
        return sx__fail(SX_EINVAL, -1, "%s: %d bytes, the header promises %d", fn, size, (int)want);
    if (fnv1a(buf, want - 4) != get_u32(buf + want - 4))
        return sx__fail(SX_EINVAL, -1, "%s: checksum mismatch (the file is corrupted)", fn);
    return SX_OK;
}

int sx_rnn_load(sx_rnn **out, const unsigned char *buf, int size) {
    static const char fn[] = "rnn_load";
    if (!out) return sx__fail(SX_EINVAL, -1, "%s: out is NULL", fn);
    *out = NULL;
    size_t pb = 4;
    int st = check_header(fn, buf, size, &pb);
    if (st != SX_OK) return st;
    int cfg[SX_RNN_N_CFG];
    float fcfg[SX_RNN_N_FCFG];
    const unsigned char *b = buf + SXR_HEADER;
    for (int i = 0; i < SX_RNN_N_CFG; i++, b += 4) cfg[i] = (int)get_u32(b);
    for (int i = 0; i < SX_RNN_N_FCFG; i++, b += 4) {
        const uint32_t u = get_u32(b);
        memcpy(&fcfg[i], &u, 4);
    }
    const int n = (int)get_u32(buf + 16); /* <= 2^26 (check_header) */
    sx_rnn *m = NULL;
    if ((st = sx__rnn_new(&m, cfg, SX_RNN_N_CFG, fcfg, SX_RNN_N_FCFG, fn, (size_t)n)) != SX_OK)
        return st;
    float *p = sx_rnn_params(m);
    for (int i = 0; i < n; i++, b += pb) {
        float v;
        if (pb == 2) {
            v = sx__f32_from_f16((uint16_t)(b[0] | b[1] << 8));
        } else {
            const uint32_t u = get_u32(b);
            memcpy(&v, &u, 4);
        }
        if (!(v > -INFINITY && v < INFINITY)) {
            st = sx__fail(SX_EINVAL, i, "%s: parameter %d is not finite (%g)", fn, i, (double)v);
            sx_rnn_free(m);
            return st;
        }
        p[i] = v;
    }
    *out = m;
    return SX_OK;
}

SX_COLD_END
