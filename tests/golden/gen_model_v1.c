/* gen_model_v1.c - writes tests/golden/model-v1.sxm: a small reversal model (d_model 8, 2 heads,
   1 layer, d_ff 16, learned alpha, adaptive span) after 30 training steps, in checkpoint format
   version 1 (float32 parameters), which sx_model_save writes. The file was made before format
   version 2 (float16) existed; the C and JS tests load it to show that version-1 files still
   load (and that sx_model_save still writes them byte for byte).
     gcc -std=c99 -O2 -msse4.2 -Icore/include -Icore/src -Ibuild/inc tests/golden/gen_model_v1.c \
       core/src/*.c -lm -o /tmp/gen && /tmp/gen tests/golden/model-v1.sxm */
#include <stdio.h>
#include <stdlib.h>
#include "simplexity.h"

int main(int argc, char **argv) {
    enum { B = 16, T = 12 };
    if (argc != 2) {
        fprintf(stderr, "usage: gen_model_v1 OUT.sxm\n");
        return 2;
    }
    int cfg[SX_MODEL_MAP + 1] = { 0 }, src[B * T], tgt[B * T];
    cfg[SX_MODEL_VOCAB] = sx_task_vocab_size(SX_TASK_REVERSE);
    cfg[SX_MODEL_D_MODEL] = 8;
    cfg[SX_MODEL_N_HEAD] = 2;
    cfg[SX_MODEL_N_LAYER] = 1;
    cfg[SX_MODEL_D_FF] = 16;
    cfg[SX_MODEL_MAX_LEN] = T;
    cfg[SX_MODEL_SPAN] = T;
    cfg[SX_MODEL_SPAN_RAMP] = 3;
    cfg[SX_MODEL_SEED] = 7;
    cfg[SX_MODEL_MAX_BATCH] = B;
    cfg[SX_MODEL_MAP] = SX_MODEL_ENTMAX_LEARNED;
    const float fcfg[3] = { 0.002f, 1.0f, 10.0f };
    sx_model *m = NULL;
    if (sx_model_create(&m, cfg, SX_MODEL_MAP + 1, fcfg, 3) != SX_OK) {
        fprintf(stderr, "gen_model_v1: %s\n", sx_last_error());
        return 1;
    }
    for (int s = 0; s < 30; s++) {
        sx_task_generate(src, tgt, SX_TASK_REVERSE, SX_TASK_TRAIN, 1, s * B, B, T);
        if (sx_model_train_step(m, NULL, src, T, tgt, T, B, 1e-2f) != SX_OK) {
            fprintf(stderr, "gen_model_v1: %s\n", sx_last_error());
            return 1;
        }
    }
    const int size = sx_model_save_size(m);
    unsigned char *buf = malloc((size_t)size);
    FILE *f = NULL;
    if (!buf || sx_model_save(m, buf, size) != SX_OK || !(f = fopen(argv[1], "wb")) ||
        fwrite(buf, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0) {
        fprintf(stderr, "gen_model_v1: cannot write %s\n", argv[1]);
        return 1;
    }
    printf("gen_model_v1: %s, %d bytes, %d parameters\n", argv[1], size, sx_model_num_params(m));
    free(buf);
    sx_model_free(m);
    return 0;
}
