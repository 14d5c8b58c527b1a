#ifndef WH_CONSOLE_RING_H
#define WH_CONSOLE_RING_H
/* The answers to the bank by the minute, for the overview's charts of
 * refusals over time: a host with memory shared by every process (the
 * module's status segment) keeps one ring per configuration and counts
 * each answer in it as it counts its totals; the console reads it.
 *
 * Bounded and fixed in size: the last WH_RING_MINUTES minutes one by one,
 * and the last WH_RING_TENS ten-minute periods (a day). Each cell holds
 * the period it counts for beside its count, in one 64-bit word changed
 * by compare-and-swap: a cell of an older period starts again at 1, so
 * nothing needs clearing and no count is lost to a race; a reader takes
 * a cell of another period for 0. No lock, no system call. Kept as long
 * as the host's memory (the module's: across graceful restarts, not
 * across a stop). */
#include <apr_time.h>

/* The answers counted: accepted, duplicate, each code of WH_CODES a
 * notification can be refused with (in its order), other (a code not in
 * this list). */
int wh_ring_answers(void);
const char *wh_ring_answer(int i);
/* The index of an answer's code; the last one for any other. */
int wh_ring_answer_index(const char *code);

#define WH_RING_MINUTES 61
#define WH_RING_TENS 145

typedef struct wh_console_ring wh_console_ring;
/* Its size, for the host to place it (zeroed) in shared memory. */
apr_size_t wh_ring_size(void);
/* Whether this build keeps one (64-bit atomics without a lock). */
int wh_ring_kept(void);

void wh_ring_add(wh_console_ring *r, int answer, apr_time_t now);
/* Sets every cell to 0 (a slot given to another configuration). */
void wh_ring_clear(wh_console_ring *r);

/* counts[b * wh_ring_answers() + a]: answer a in bin b, for nbins bins of
 * `tens` (0: one minute each, 1: ten minutes) ending with the one that
 * holds now (oldest first); bins older than the ring keeps are 0. */
void wh_ring_read(const wh_console_ring *r, apr_time_t now, int tens, int nbins,
                  apr_uint64_t *counts);

#endif
