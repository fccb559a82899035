/* train.c - train one (task, attention kind) model deterministically, natively.

     build/tools/train --task reverse --kind alpha-span [--seed 1] [--max-steps 6000]
                       [--out web/models/reverse-alpha-span.sxm] [options below]

   Kinds: softmax, entmax15, alpha (learned alpha-entmax per head), alpha-span (learned alpha
   with adaptive span on the self-attention heads), all with softmax outputs; entmax15-out and
   sparsemax-out: 1.5-entmax attention with 1.5-entmax or sparsemax outputs (the output layer
   trained with its Fenchel-Young loss, model.h); fusedmax and oscarmax: structured attention in
   every layer (self and cross) with a fixed lambda (--lambda, default 0.5) or beta (--beta,
   default 0.05) acting on the scores, softmax outputs. Trains on fresh examples of the train split
   (batch b at step s is examples s b .. s b + b - 1 of the split under --seed), evaluates greedy
   exact-sequence accuracy (the whole generated row, up to and including EOS, equal to the
   reference answer; computed teacher forced, which is equivalent, see accuracy_tf) on a validation slice of the held-out split (--val examples) every --eval
   steps, stops once it reaches --stop (0.995, a margin over the target) or at --max-steps,
   then reports the accuracy on a separate test slice of the held-out split (--test examples,
   another seed; the exit status is 3 if it is below --target, 0.99), writes the checkpoint and prints one line of JSON
   on stdout: task, kind, steps, seconds, loss, accuracy, parameters, bytes, precision, config,
   per-head alphas and spans per attention kind, and the fraction of exact zeros among the
   attention weights a query may see (padding and causal masks excluded) on the test slice,
   teacher forced. Progress goes to stderr. Same seed, same binary flags: same bytes.

   The checkpoint stores the parameters as float16 (format version 2: half the bytes, each
   weight its nearest half), or as float32 with --float32. Everything after training (the test
   accuracy, the zeros, the alphas and spans) is measured on the model loaded back from the
   checkpoint's bytes, i.e. on the weights that ship; stderr also gives the float32 weights'
   test accuracy and how many greedy outputs the rounding changed.

   --from FILE loads a checkpoint instead of training (FILE's model must be --task's and
   --kind's; --seed must be the one it was trained with, for the test slice), then does the
   same: writes it to --out at the chosen precision and measures it. The JSON's steps, seconds,
   loss and val_accuracy are then 0, and its training options are this run's, not FILE's.
   Converting a float32 checkpoint this way writes the very bytes its training run would. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "simplexity.h"
#include "model.h"
#include "tasks.h"

typedef struct {
    const char *task_name, *kind, *out;
    int seed, max_steps, eval_every, batch, d_model, heads, layers, d_ff, ramp, act, warmup;
    int n_val, n_test, quiet, float32;
    const char *from;
    float lr, lr_min, target, stop, span_penalty, clip, alpha_lr, lambda, beta;
} options;

static void usage(void) {
    fprintf(stderr,
            "usage: train [--arch transformer] --task reverse|sort|after_marker|date\n"
            "             --kind softmax|entmax15|alpha|alpha-span|entmax15-out|sparsemax-out|fusedmax|oscarmax\n"
            "             [--seed N] [--max-steps N] [--eval N] [--batch N] [--d-model N] [--heads N]\n"
            "             [--layers N] [--d-ff N] [--ramp N] [--gelu] [--lr X] [--lr-min X]\n"
            "             [--warmup N] [--target X] [--stop X] [--span-penalty X] [--clip X] [--alpha-lr X] [--val N]\n"
            "             [--lambda X] [--beta X]\n"
            "             [--test N] [--out FILE] [--float32] [--from FILE] [--quiet]\n"
            "       train --arch rnn ...: the recurrent encoder-decoder (tools/train-rnn.c)\n"
            "       train --arch gpt ...: a decoder-only character model on the text corpus (tools/train-gpt.c)\n");
    exit(2);
}

static int task_of(const char *name) {
    for (int t = 0; t < sx_task_count(); t++)
        if (!strcmp(name, sx_task_name(t))) return t;
    return -1;
}

/* Greedy exact-sequence accuracy over n held-out examples (seed), in chunks of B rows, of two
   models on the same rows: acc[k] for m[k]. Rows are compared with the reference up to and
   including EOS. Returns how many rows the two models decode differently (whole rows). */
static int accuracy2(sx_model *const m[2], double acc[2], int task, unsigned seed, int n, int T,
                     int B, int *src, int *tgt, int *const out[2]) {
    int right[2] = { 0, 0 }, differ = 0;
    for (int s = 0; s < n; s += B) {
        const int cnt = n - s < B ? n - s : B;
        sx_task_generate(src, tgt, task, SX_TASK_HELDOUT, seed, s, cnt, T);
        for (int k = 0; k < 2; k++) {
            if (sx_model_generate(m[k], out[k], T, src, T, cnt) != SX_OK) {
                fprintf(stderr, "train: generate: %s\n", sx_last_error());
                exit(1);
            }
            for (int r = 0; r < cnt; r++) {
                int ok = 1;
                for (int t = 0; t < T; t++) {
                    ok &= out[k][r * T + t] == tgt[r * T + t];
                    if (tgt[r * T + t] == SX_TOKEN_EOS) break;
                }
                right[k] += ok;
            }
        }
        for (int r = 0; r < cnt; r++)
            differ += memcmp(out[0] + r * T, out[1] + r * T, sizeof(int) * T) != 0;
    }
    for (int k = 0; k < 2; k++) acc[k] = (double)right[k] / n;
    return differ;
}

/* The checkpoint in a file (exits on failure). */
static sx_model *load_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    unsigned char *buf = size > 0 && size < (1L << 30) ? malloc((size_t)size) : NULL;
    sx_model *m = NULL;
    if (!f || !buf || fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "train: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    if (sx_model_load(&m, buf, (int)size) != SX_OK) {
        fprintf(stderr, "train: %s: %s\n", path, sx_last_error());
        exit(1);
    }
    free(buf);
    return m;
}

/* Teacher-forced forward pass on full target rows: the decoder reads tgt[:, :T-1], packed
   into din (cnt, T - 1) rows. */
static void forward_tf(sx_model *m, const int *src, const int *tgt, int *din, int T, int cnt) {
    for (int r = 0; r < cnt; r++)
        memcpy(din + (size_t)r * (T - 1), tgt + (size_t)r * T, sizeof(int) * (T - 1));
    if (sx_model_forward(m, src, T, din, T - 1, cnt) != SX_OK) {
        fprintf(stderr, "train: forward: %s\n", sx_last_error());
        exit(1);
    }
}

/* The same accuracy from one teacher-forced forward pass per batch: greedy decoding yields
   the reference row exactly when, at every position up to EOS, the argmax over EOS and the
   alphabet (what sx_model_generate picks from) given the reference prefix is the reference
   token (induction over positions), so the two accuracies are equal; this one costs one
   decoder pass instead of one per output position. Used for the periodic validation. */
static double accuracy_tf(sx_model *m, int task, unsigned seed, int n, int T, int B, int *src,
                          int *tgt, int *din) {
    const int V = sx_model_config(m, SX_MODEL_VOCAB);
    int right = 0;
    for (int s = 0; s < n; s += B) {
        const int cnt = n - s < B ? n - s : B;
        sx_task_generate(src, tgt, task, SX_TASK_HELDOUT, seed, s, cnt, T);
        forward_tf(m, src, tgt, din, T, cnt);
        const float *logits = sx_model_logits(m);
        for (int r = 0; r < cnt; r++) {
            int ok = 1;
            for (int t = 0; t + 1 < T && ok; t++) {
                const float *lg = logits + ((size_t)r * (T - 1) + t) * V;
                int best = SX_TOKEN_EOS;
                for (int v = SX_TOKEN_EOS + 1; v < V; v++) best = lg[v] > lg[best] ? v : best;
                ok = best == tgt[r * T + t + 1];
                if (tgt[r * T + t + 1] == SX_TOKEN_EOS) break;
            }
            right += ok;
        }
    }
    return (double)right / n;
}

/* Fraction of exact zeros among the visible attention weights, per kind, teacher forced. */
static void sparsity(sx_model *m, double zeros[3], int task, unsigned seed, int n, int T, int B,
                     int *src, int *tgt, int *din) {
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), NH = sx_model_config(m, SX_MODEL_N_HEAD);
    double z[3] = { 0, 0, 0 }, tot[3] = { 0, 0, 0 };
    for (int s = 0; s < n; s += B) {
        const int cnt = n - s < B ? n - s : B;
        sx_task_generate(src, tgt, task, SX_TASK_HELDOUT, seed, s, cnt, T);
        forward_tf(m, src, tgt, din, T, cnt);
        for (int kind = 0; kind < 3; kind++)
            for (int l = 0; l < L; l++) {
                const float *att = sx_model_attention(m, kind, l);
                const int Tq = sx_model_attention_shape(m, kind, 2);
                const int Tk = sx_model_attention_shape(m, kind, 3);
                for (int b = 0; b < cnt; b++) {
                    int ls = 0, lt = 0; /* source tokens incl. EOS; decoder inputs BOS..last */
                    while (ls < T && src[b * T + ls] != SX_TOKEN_PAD) ls++;
                    while (lt < T && tgt[b * T + lt] != SX_TOKEN_EOS) lt++;
                    const int nq = kind == SX_MODEL_ENC_SELF ? ls : lt;
                    for (int h = 0; h < NH; h++)
                        for (int i = 0; i < nq; i++) {
                            const int nk = kind == SX_MODEL_DEC_SELF ? i + 1 : ls;
                            const float *row = att + (((size_t)b * NH + h) * Tq + i) * Tk;
                            for (int j = 0; j < nk; j++) z[kind] += row[j] == 0.0f;
                            tot[kind] += nk;
                        }
                }
            }
    }
    for (int k = 0; k < 3; k++) zeros[k] = tot[k] > 0 ? z[k] / tot[k] : 0.0;
}

static void json_heads(FILE *f, const float *v, int L, int NH, int digits) {
    static const char *const kinds[3] = { "enc_self", "dec_self", "cross" };
    fputc('{', f);
    for (int k = 0; k < 3; k++) {
        fprintf(f, "%s\"%s\":[", k ? "," : "", kinds[k]);
        for (int l = 0; l < L; l++) {
            fprintf(f, "%s[", l ? "," : "");
            for (int h = 0; h < NH; h++) fprintf(f, "%s%.*f", h ? "," : "", digits, v[(k * L + l) * NH + h]);
            fputc(']', f);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

int train_rnn_main(int argc, char **argv); /* tools/train-rnn.c: every --arch rnn run */
int train_gpt_main(int argc, char **argv); /* tools/train-gpt.c: every --arch gpt run */

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--arch") && !strcmp(argv[i + 1], "rnn")) return train_rnn_main(argc, argv);
        if (!strcmp(argv[i], "--arch") && !strcmp(argv[i + 1], "gpt")) return train_gpt_main(argc, argv);
    }
    options o = { NULL, NULL, NULL, 1, 2000, 100, 64, 32, 4, 2, 64, 3, 0, 0, 2000, 2000, 0,
                  0, NULL, 3e-3f, 3e-4f, 0.99f, 0.995f, 0.002f, 1.0f, 10.0f, 0.5f, 0.05f };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT_I(name, field) if (!strcmp(a, name) && v) { o.field = atoi(v); i++; continue; }
#define OPT_F(name, field) if (!strcmp(a, name) && v) { o.field = (float)atof(v); i++; continue; }
#define OPT_S(name, field) if (!strcmp(a, name) && v) { o.field = v; i++; continue; }
        OPT_S("--task", task_name) OPT_S("--kind", kind) OPT_S("--out", out) OPT_S("--from", from)
        OPT_I("--seed", seed) OPT_I("--max-steps", max_steps) OPT_I("--eval", eval_every)
        OPT_I("--batch", batch) OPT_I("--d-model", d_model) OPT_I("--heads", heads)
        OPT_I("--layers", layers) OPT_I("--d-ff", d_ff) OPT_I("--ramp", ramp)
        OPT_I("--warmup", warmup) OPT_I("--val", n_val) OPT_I("--test", n_test)
        OPT_F("--lr", lr) OPT_F("--lr-min", lr_min) OPT_F("--target", target) OPT_F("--stop", stop)
        OPT_F("--span-penalty", span_penalty) OPT_F("--clip", clip)
        OPT_F("--alpha-lr", alpha_lr) OPT_F("--lambda", lambda) OPT_F("--beta", beta)
        if (!strcmp(a, "--arch") && v && !strcmp(v, "transformer")) { i++; continue; }
        if (!strcmp(a, "--gelu")) { o.act = 1; continue; }
        if (!strcmp(a, "--quiet")) { o.quiet = 1; continue; }
        if (!strcmp(a, "--float32")) { o.float32 = 1; continue; }
        usage();
    }
    if (!o.task_name || !o.kind) usage();
    const int task = task_of(o.task_name);
    int map, span, out_map = SX_MAP_SOFTMAX;
    if (task < 0) usage();
    if (!strcmp(o.kind, "softmax")) map = SX_MAP_SOFTMAX, span = 0;
    else if (!strcmp(o.kind, "entmax15-out")) map = out_map = SX_MAP_ENTMAX15, span = 0;
    else if (!strcmp(o.kind, "sparsemax-out")) map = SX_MAP_ENTMAX15, out_map = SX_MAP_SPARSEMAX, span = 0;
    else if (!strcmp(o.kind, "entmax15")) map = SX_MAP_ENTMAX15, span = 0;
    else if (!strcmp(o.kind, "alpha")) map = SX_MAP_ENTMAX_LEARNED, span = 0;
    else if (!strcmp(o.kind, "alpha-span")) map = SX_MAP_ENTMAX_LEARNED, span = 1;
    else if (!strcmp(o.kind, "fusedmax")) map = SX_MAP_FUSEDMAX, span = 0;
    else if (!strcmp(o.kind, "oscarmax")) map = SX_MAP_OSCARMAX, span = 0;
    else usage();
    /* the structured mappings' parameter, one per layer in the float config (the other kinds
       give only the first three floats: their checkpoints keep their bytes) */
    const int structured = map == SX_MAP_FUSEDMAX || map == SX_MAP_OSCARMAX;
    const float map_param = map == SX_MAP_FUSEDMAX ? o.lambda : o.beta;

    const int T = sx_task_width(task);
    int B = o.batch;
    sx_model *m = NULL;
    if (o.from) {
        m = load_file(o.from);
        if (sx_model_config(m, SX_MODEL_VOCAB) != sx_task_vocab_size(task) ||
            sx_model_config(m, SX_MODEL_MAX_LEN) != T || sx_model_config(m, SX_MODEL_MAP) != map ||
            (sx_model_config(m, SX_MODEL_SPAN) != 0) != span ||
            sx_model_config(m, SX_MODEL_OUTPUT(sx_model_config(m, SX_MODEL_N_LAYER))) != out_map) {
            fprintf(stderr, "train: %s is not a %s %s model\n", o.from, o.task_name, o.kind);
            return 1;
        }
        B = sx_model_config(m, SX_MODEL_MAX_BATCH);
    } else {
        int cfg[SX_MODEL_MAP + SX_MODEL_MAX_LAYERS + 1] = { 0 };
        cfg[SX_MODEL_VOCAB] = sx_task_vocab_size(task);
        cfg[SX_MODEL_D_MODEL] = o.d_model;
        cfg[SX_MODEL_N_HEAD] = o.heads;
        cfg[SX_MODEL_N_LAYER] = o.layers;
        cfg[SX_MODEL_D_FF] = o.d_ff;
        cfg[SX_MODEL_MAX_LEN] = T;
        cfg[SX_MODEL_SPAN] = span ? T : 0;
        cfg[SX_MODEL_SPAN_RAMP] = o.ramp;
        cfg[SX_MODEL_SEED] = o.seed;
        cfg[SX_MODEL_MAX_BATCH] = B;
        cfg[SX_MODEL_ACT] = o.act;
        for (int l = 0; l < o.layers && l < SX_MODEL_MAX_LAYERS; l++) cfg[SX_MODEL_MAP + l] = map;
        float fcfg[SX_MODEL_F_PARAM + SX_MODEL_MAX_LAYERS] = { o.span_penalty, o.clip, o.alpha_lr };
        const int n_layers = o.layers >= 1 && o.layers <= SX_MODEL_MAX_LAYERS ? o.layers : 1;
        cfg[SX_MODEL_OUTPUT(n_layers)] = out_map; /* a softmax output stays implicit: the same bytes */
        for (int l = 0; structured && l < n_layers; l++) fcfg[SX_MODEL_F_PARAM + l] = map_param;
        if (sx_model_create(&m, cfg, SX_MODEL_MAP + o.layers + (out_map != SX_MAP_SOFTMAX), fcfg,
                            structured ? SX_MODEL_F_PARAM + n_layers : 3) != SX_OK) {
            fprintf(stderr, "train: %s\n", sx_last_error());
            return 1;
        }
    }
    const int L = sx_model_config(m, SX_MODEL_N_LAYER), NH = sx_model_config(m, SX_MODEL_N_HEAD);
    int *src = malloc(sizeof(int) * B * T), *tgt = malloc(sizeof(int) * B * T);
    int *out = malloc(sizeof(int) * B * T), *out2 = malloc(sizeof(int) * B * T);
    const unsigned val_seed = 1000u + (unsigned)o.seed, test_seed = 2000u + (unsigned)o.seed;
    const clock_t t0 = clock();
    double acc = 0.0, ema = 0.0;
    float loss = 0.0f;
    int step = 0;
    while (!o.from && step < o.max_steps) {
        /* linear warm-up, then cosine decay to lr_min over max_steps */
        const double prog = (double)step / o.max_steps;
        double lr = o.lr_min + 0.5 * (o.lr - o.lr_min) * (1.0 + cos(3.14159265358979 * prog));
        if (step < o.warmup) lr *= (step + 1.0) / o.warmup;
        sx_task_generate(src, tgt, task, SX_TASK_TRAIN, (unsigned)o.seed, step * B, B, T);
        if (sx_model_train_step(m, &loss, src, T, tgt, T, B, (float)lr) != SX_OK) {
            fprintf(stderr, "train: step %d: %s\n", step, sx_last_error());
            return 1;
        }
        ema = step ? 0.95 * ema + 0.05 * loss : loss;
        step++;
        if (step % o.eval_every == 0 || step == o.max_steps) {
            acc = accuracy_tf(m, task, val_seed, o.n_val, T, B, src, tgt, out);
            if (!o.quiet)
                fprintf(stderr, "%s %s step %5d  loss %.4f  held-out %.1f%%  %.1fs\n", o.task_name,
                        o.kind, step, ema, 100.0 * acc, (double)(clock() - t0) / CLOCKS_PER_SEC);
            if (acc >= o.stop) break;
        }
    }
    const double seconds = o.from ? 0.0 : (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* The checkpoint's bytes and the model they hold (the shipped weights): all that follows
       measures that model. */
    const int precision = o.float32 ? SX_SAVE_FLOAT32 : SX_SAVE_FLOAT16;
    const int size = sx_model_save_size_as(m, precision);
    unsigned char *buf = malloc((size_t)size);
    sx_model *shipped = NULL;
    if (!buf || sx_model_save_as(m, buf, size, precision) != SX_OK ||
        sx_model_load(&shipped, buf, size) != SX_OK) {
        fprintf(stderr, "train: checkpoint: %s\n", sx_last_error());
        return 1;
    }
    sx_model *const pair[2] = { m, shipped };
    int *const outs[2] = { out, out2 };
    double accs[2];
    const int differ = accuracy2(pair, accs, task, test_seed, o.n_test, T, B, src, tgt, outs);
    const double test_acc = accs[1];
    fprintf(stderr, "%s %s %s checkpoint, %d bytes: test %.2f%% (float32 weights %.2f%%), %d of %d "
            "greedy outputs differ\n", o.task_name, o.kind, o.float32 ? "float32" : "float16",
            size, 100.0 * accs[1], 100.0 * accs[0], differ, o.n_test);
    const double test_tf = accuracy_tf(shipped, task, test_seed, o.n_test, T, B, src, tgt, out);
    if (test_tf != test_acc) /* the equivalence accuracy_tf relies on */
        fprintf(stderr, "train: warning: greedy %.4f != teacher-forced %.4f\n", test_acc, test_tf);
    double zeros[3];
    sparsity(shipped, zeros, task, test_seed, o.n_test, T, B, src, tgt, out);
    float *alphas = malloc(sizeof(float) * 3 * L * NH), *spans = malloc(sizeof(float) * 3 * L * NH);
    sx_model_alphas(shipped, alphas);
    sx_model_spans(shipped, spans);
    if (o.out) {
        FILE *f = fopen(o.out, "wb");
        if (!f || fwrite(buf, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0) {
            fprintf(stderr, "train: cannot write %s\n", o.out);
            return 1;
        }
    }
    const int span_len = sx_model_config(m, SX_MODEL_SPAN);
    char param_json[64] = ""; /* the structured kinds' lambda or beta, as the model holds it */
    if (structured)
        snprintf(param_json, sizeof param_json, ",\"%s\":%g", map == SX_MAP_FUSEDMAX ? "lambda" : "beta",
                 (double)sx_model_fconfig(m, SX_MODEL_F_PARAM));
    printf("{\"task\":\"%s\",\"kind\":\"%s\",\"seed\":%d,\"steps\":%d,\"seconds\":%.1f,"
           "\"loss\":%.5f,\"val_accuracy\":%.4f,\"accuracy\":%.4f,\"test_examples\":%d,"
           "\"params\":%d,\"bytes\":%d,\"precision\":\"%s\",\"config\":{\"d_model\":%d,"
           "\"heads\":%d,\"layers\":%d,\"d_ff\":%d,\"max_len\":%d,\"span\":%d,\"ramp\":%d,"
           "\"batch\":%d,\"lr\":%g,\"alpha_lr\":%g,\"span_penalty\":%g%s},\"alphas\":",
           o.task_name, o.kind, o.seed, step, seconds, ema, acc, test_acc, o.n_test,
           sx_model_num_params(m), size, o.float32 ? "float32" : "float16",
           sx_model_config(m, SX_MODEL_D_MODEL), NH, L, sx_model_config(m, SX_MODEL_D_FF), T,
           span_len, span_len ? sx_model_config(m, SX_MODEL_SPAN_RAMP) : 0, B, (double)o.lr,
           (double)sx_model_fconfig(m, SX_MODEL_F_ALPHA_LR),
           (double)sx_model_fconfig(m, SX_MODEL_F_SPAN_PENALTY), param_json);
    json_heads(stdout, alphas, L, NH, 3);
    printf(",\"spans\":");
    json_heads(stdout, spans, L, NH, 2);
    printf(",\"zeros\":{\"enc_self\":%.4f,\"dec_self\":%.4f,\"cross\":%.4f}}\n", zeros[0],
           zeros[1], zeros[2]);
    free(alphas);
    free(spans);
    free(src);
    free(tgt);
    free(out);
    free(out2);
    free(buf);
    sx_model_free(shipped);
    sx_model_free(m);
    return test_acc >= o.target ? 0 : 3;
}
