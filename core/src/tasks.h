/* tasks.h - toy sequence-to-sequence tasks for the tiny Transformer, generated deterministically.

   These are public entry points (sx_ prefix, wasm-friendly: ints, floats and pointers only); the
   integrator moves them into simplexity.h and the wasm export list.

   THE TASKS (sources are character strings over the task's alphabet)
     id  name           source                                    target
     0   reverse        3..10 letters from "abcdefghij"           the letters reversed
                        "abcde"                                   "edcba"
     1   sort           3..10 letters from "abcdefghij" (repeats) the letters ascending
                        "cabca"                                   "aabcc"
     2   after_marker   3..12 characters: 1+ letters, one '|',    the letters after the '|'
                        1+ letters ("abcdefghij" on both sides)
                        "xk|abq" (with this alphabet: "jd|abg")   "abg"
     3   date           "D Mon YYYY": day 1..31 without a leading "YYYY-MM-DD"
                        zero, English month abbreviation, year
                        1900..2099; valid Gregorian dates only
                        "22 Nov 2026", "1 Feb 2024"               "2026-11-22", "2024-02-01"
   reverse needs attention to the mirrored position; sort to the next-larger symbol (content
   based); after_marker to an offset that depends on where the marker is; date a non-monotone
   alignment (the year at the end of the source comes first) and a lookup (Nov -> 11).

   TOKENS. Every task has its own fixed vocabulary: 0 = PAD, 1 = BOS, 2 = EOS, then the task's
   alphabet in ASCII order, so token 3 + k is alphabet[k] and, in sort, larger tokens are larger
   characters. Vocabulary sizes: reverse 13, sort 13, after_marker 14 ('|' is token 13),
   date 37 (" -0123456789ADFJMNOSabceglnoprtuvy"). The letters a..j are tokens 3..12 in the first
   three tasks.

   ROWS. Token arrays are (count, max_len) row-major, one example per row:
     src row = source characters, EOS, then PAD to max_len         (encoder input)
     tgt row = BOS, target characters, EOS, then PAD to max_len    (decoder: input tgt[:-1],
                                                                     labels tgt[1:], PAD ignored)
   max_len must be at least sx_task_width(task) = max(longest source + 1, longest target + 2):
   reverse 12, sort 12, after_marker 13, date 12. A wider max_len is fine (more PAD).

   SPLITS. 0 = train, 1 = held-out. Membership is a property of the source string alone: a
   64-bit FNV-1a hash of the task id and the source characters, mixed by splitmix64, puts the
   source in held-out when hash % 20 < 3 (15%). So the two splits are disjoint by construction,
   the same string is always in the same split whatever the seed, and sx_task_split_of() tells
   which split a typed input belongs to. Generation draws a candidate and redraws until it lands
   in the requested split (about 7 draws on average for held-out, 1.2 for train).

   DETERMINISM. Example `index` of (task, split, seed) is drawn from its own splitmix64 stream
   keyed by (seed, task, split, index), so it does not depend on `start`, `count` or `max_len`:
   generating rows 0..99 at once or as 0..49 then 50..99 gives the same bytes. Only integer
   arithmetic: native and wasm builds produce identical examples. Examples are drawn with
   replacement, so a split may repeat a source (rarely, except for the shortest lengths).
   Distributions: reverse/sort/after_marker draw the length uniformly, then (after_marker) the
   marker position uniformly among those that leave at least one letter on each side, then each
   letter uniformly. date draws the year, then the month, then the day uniformly.

   CONVENTIONS (as in simplexity.h): outputs first, then the task, inputs, sizes. Operations
   return an SX_* status and write nothing when they fail; sx_last_error() names the argument,
   the row or the character. Simple queries return their value, and a sentinel (NULL, 0 or -1)
   with sx_last_error() set for a bad task id or token. */
#ifndef SX_TASKS_H
#define SX_TASKS_H

#include "simplexity.h"

enum { SX_TASK_REVERSE = 0, SX_TASK_SORT = 1, SX_TASK_AFTER_MARKER = 2, SX_TASK_DATE = 3, SX_TASK_COUNT = 4 };
enum { SX_TASK_TRAIN = 0, SX_TASK_HELDOUT = 1 };
enum { SX_TOKEN_PAD = 0, SX_TOKEN_BOS = 1, SX_TOKEN_EOS = 2 };

/* ------------------------------------------------------------------ queries */
/* Number of tasks (4). */
int sx_task_count(void);
/* "reverse", "sort", "after_marker", "date"; NULL for a bad id. */
const char *sx_task_name(int task);
/* Vocabulary size including PAD, BOS, EOS; 0 for a bad id. */
int sx_task_vocab_size(int task);
/* The smallest max_len that holds every example of the task; 0 for a bad id. */
int sx_task_width(int task);
/* Source and target length ranges in characters (without EOS/BOS); any pointer may be NULL. */
int sx_task_lengths(int *min_src, int *max_src, int *min_tgt, int *max_tgt, int task);
/* The character (ASCII code) of a token: >= 32 for the alphabet's tokens, 0 for PAD, BOS, EOS;
   -1 for a bad task or a token outside [0, vocab). */
int sx_task_token_char(int task, int token);

/* --------------------------------------------------------------- generation */
/* Examples start .. start + count - 1 of (task, split, seed) into src and tgt, both
   (count, max_len). count >= 0 (0 writes nothing), start >= 0, start + count <= 2^31 - 1,
   max_len >= sx_task_width(task), split 0 (train) or 1 (held-out). */
int sx_task_generate(int *src, int *tgt, int task, int split, unsigned seed, int start, int count,
                     int max_len);

/* -------------------------------------------------------- reference solver */
/* The exact answer: tgt rows (count, max_len) = BOS, answer, EOS, PAD for the src rows
   (count, max_len) (characters, EOS, PAD). Fails with the row and the reason when a row has no
   EOS, holds PAD or BOS before its EOS, a token outside the vocabulary, or a source outside the
   task's domain: after_marker needs exactly one '|'; date needs "D Mon YYYY" (day of 1 or 2
   digits, "Jan".."Dec" as spelled, 4-digit year >= 1) naming a real Gregorian date, e.g. not
   "30 Feb 2024" nor "29 Feb 2023". reverse and sort accept any length. Sources longer than the
   generated ones are answered too, as long as the answer fits in max_len. max_len <= 240 (rows
   are solved in a stack buffer). */
int sx_task_answer(int *tgt, int task, const int *src, int count, int max_len);

/* split[r] = 0 or 1: the split that source row r belongs to (rows as for sx_task_answer; the
   source need not be in the task's domain). max_len <= 256. */
int sx_task_split_of(int *split, int task, const int *src, int count, int max_len);

/* ------------------------------------------------------------ text <-> tokens */
/* One src row (max_len tokens) from NUL-terminated text: its characters, EOS, PAD. Fails on a
   character outside the task's alphabet (naming it and its 0-based position) or a text that
   does not fit (strlen(text) + 1 > max_len). Does not check the task's domain. */
int sx_task_encode(int *src, int task, const char *text, int max_len);
/* NUL-terminated text from n tokens: BOS tokens are skipped, decoding stops at the first EOS or
   PAD, every other token becomes its character. Works on src rows, tgt rows and model output.
   Fails on a token outside [0, vocab) or when the text and its NUL exceed cap bytes. */
int sx_task_decode(char *text, int cap, int task, const int *tokens, int n);

#endif
