/* tasks.h - toy sequence-to-sequence tasks for the tiny Transformer, generated deterministically.

   The entry points are public: declared in simplexity.h (section "tasks"), exported to wasm
   (wasm/exports.txt). This header keeps the tasks' documentation.

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

/* The declarations (sx_task_*, SX_TASK_*, SX_TOKEN_*) are public: they live in simplexity.h,
   section "tasks". */

#endif
