/* vocab.h - the character vocabulary of the text corpus, as tools/text/vocab.mjs defines it:
   newline is id 0, printable ASCII ' ' .. '~' ids 1 .. 95 (TX_VOCAB = 96 symbols). The corpus
   files hold nothing else (tools/text/corpus.mjs maps or drops every other character). */
#ifndef TX_VOCAB_H
#define TX_VOCAB_H

#define TX_VOCAB 96
#define TX_NEWLINE 0

/* The id of byte c, or -1 when c is outside the vocabulary. */
static inline int tx_char_id(unsigned char c) {
    if (c == '\n') return TX_NEWLINE;
    return c >= 32 && c <= 126 ? c - 31 : -1;
}

static inline char tx_id_char(int id) { return id == TX_NEWLINE ? '\n' : (char)(id + 31); }

#endif
