/* ngram.h - a character n-gram language model with interpolated modified Kneser-Ney smoothing
   (Chen & Goodman 1998, sec. 3.5 and 4.1.6), the baseline the character models are measured
   against (tools/text/baseline.c). A build tool: exits nothing, prints nothing; errors come back
   as a message.

   Symbols are 0 .. vocab - 1 (vocab <= 256); a model of order N (1 .. TX_MAX_ORDER) predicts a
   symbol from the N - 1 before it. Training and scoring both pad the text on the left with N - 1
   copies of a pad symbol, so every position has a full context (the corpus pads with newline,
   which is how every entry begins anyway: after a blank line).

   P_k(w | h) = max(c_k(h w) - D_k(c), 0) / c_k(h .) + gamma_k(h) P_{k-1}(w | h'),
   gamma_k(h) = (D_k1 N1(h .) + D_k2 N2(h .) + D_k3+ N3+(h .)) / c_k(h .),
   h' the context h without its first symbol, P_0(w) = 1 / vocab (so every symbol, seen in
   training or not, gets a probability > 0); a context h never seen gives P_k = P_{k-1}. c_N are
   the raw counts; c_k for k < N are continuation counts, the number of distinct symbols seen
   before the k-gram. The discounts of each order, D_k(c) for c = 1, 2, 3+, are Chen & Goodman's
   estimates from that order's count-of-counts n_1 .. n_4, Y = n_1 / (n_1 + 2 n_2),
   D_c = c - (c + 1) Y n_{c+1} / n_c, clamped to [TX_MIN_DISCOUNT, c] (tiny corpora), or given. */
#ifndef TX_NGRAM_H
#define TX_NGRAM_H

#include <stddef.h>

#define TX_MAX_ORDER 7
#define TX_MIN_DISCOUNT 0.05

typedef struct tx_ngram tx_ngram;

/* Builds a model of `order` over text[0 .. n) (symbols < vocab). discounts: NULL to estimate
   them, or order * 3 values (D_k1, D_k2, D_k3+ for k = 1 .. order), each in (0, c]. Returns NULL
   with a message in err (errlen bytes) on a bad argument, a symbol out of range or no memory. */
tx_ngram *tx_ngram_build(const unsigned char *text, size_t n, int vocab, int order, int pad,
                         const double *discounts, char *err, size_t errlen);
void tx_ngram_free(tx_ngram *m);

int tx_ngram_order(const tx_ngram *m);
int tx_ngram_vocab(const tx_ngram *m);
/* D_k(c) for k = 1 .. order, c = 1, 2, 3 (3: three or more). */
double tx_ngram_discount(const tx_ngram *m, int k, int c);

/* P(w | ctx), ctx the order - 1 symbols before w, oldest first (ignored for order 1). */
double tx_ngram_prob(const tx_ngram *m, const unsigned char *ctx, int w);
/* P(. | ctx) over the whole vocabulary into out[vocab]. */
void tx_ngram_dist(const tx_ngram *m, const unsigned char *ctx, double *out);
/* Bits per symbol of text[0 .. n) (n >= 1), padded on the left as in training: -mean log2 P.
   p_out (may be NULL): each symbol's probability, n floats. A symbol >= vocab gives -1. */
double tx_ngram_bits(const tx_ngram *m, const unsigned char *text, size_t n, float *p_out);

#endif
