/* split.h - a split of the text corpus (build/text/devil-{train,valid,test}.txt, `make text`)
   read into vocabulary ids (vocab.h), for the n-gram baseline and the character models. */
#ifndef TX_SPLIT_H
#define TX_SPLIT_H

#include <stddef.h>

/* The ids of every byte of the file at path, *n of them (malloc'd: the caller frees). NULL with
   a message in err (errlen bytes) when the file cannot be read, is empty, or holds a byte
   outside the vocabulary (named with its offset). */
unsigned char *tx_read_split(const char *path, size_t *n, char *err, size_t errlen);

#endif
