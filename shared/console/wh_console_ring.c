/* The answers by the minute (wh_console_ring.h). */
#include "wh_console_ring.h"
#include "verify/wh_verdict.h"

#include <stdatomic.h>
#include <string.h>

/* A cell in memory shared between processes must be lock-free: a
 * lock-based atomic (libatomic's fallback) keeps its lock in process
 * memory. Where 64-bit atomics are not, no ring is kept. */
#if ATOMIC_LLONG_LOCK_FREE == 2
#define WH_RING_KEPT 1
typedef atomic_ullong cell;
#else
#define WH_RING_KEPT 0
typedef unsigned long long cell;
#endif

#define IF_1(x) x,
#define IF_0(x)
#define COUNTED(name, code, counted) IF_##counted(WH_CODE_##name)
static const char *const codes[] = { WH_CODES(COUNTED) };
#define NCODES ((int)(sizeof(codes) / sizeof(codes[0])))
#define NANSWERS (NCODES + 3)

struct wh_console_ring {
    cell minute[WH_RING_MINUTES][NANSWERS];
    cell ten[WH_RING_TENS][NANSWERS];
};

#define MINUTE APR_INT64_C(60000000)
#define PERIOD(t, tens) ((apr_uint64_t)((t) / (tens ? 10 * MINUTE : MINUTE)))
#define COUNT_MAX APR_UINT64_C(0xffffffff)

int wh_ring_answers(void)
{
    return NANSWERS;
}

const char *wh_ring_answer(int i)
{
    return i == 0 ? WH_CODE_ACCEPTED : i == 1 ? WH_CODE_DUPLICATE
           : i >= 2 && i < 2 + NCODES ? codes[i - 2] : "other";
}

int wh_ring_answer_index(const char *code)
{
    if (code && strcmp(code, WH_CODE_ACCEPTED) == 0)
        return 0;
    if (code && strcmp(code, WH_CODE_DUPLICATE) == 0)
        return 1;
    for (int i = 0; code && i < NCODES; i++)
        if (strcmp(code, codes[i]) == 0)
            return 2 + i;
    return NANSWERS - 1;
}

apr_size_t wh_ring_size(void)
{
    return sizeof(wh_console_ring);
}

int wh_ring_kept(void)
{
    return WH_RING_KEPT;
}

#if WH_RING_KEPT
/* period in the high 32 bits, count in the low ones */
static void bump(cell *c, apr_uint64_t period)
{
    unsigned long long v = atomic_load_explicit(c, memory_order_relaxed), want;
    do {
        if ((v >> 32) != (period & COUNT_MAX))
            want = (period << 32) | 1;
        else if ((v & COUNT_MAX) == COUNT_MAX)
            return;                     /* saturated */
        else
            want = v + 1;
    } while (!atomic_compare_exchange_weak_explicit(c, &v, want, memory_order_relaxed,
                                                    memory_order_relaxed));
}

static apr_uint64_t value(const cell *c, apr_uint64_t period)
{
    /* atomic_load of a const object is fine in C17, not in C11 */
    unsigned long long v = atomic_load_explicit((cell *)c, memory_order_relaxed);
    return (v >> 32) == (period & COUNT_MAX) ? (v & COUNT_MAX) : 0;
}
#endif

void wh_ring_add(wh_console_ring *r, int answer, apr_time_t now)
{
#if WH_RING_KEPT
    apr_uint64_t m = PERIOD(now, 0), t = PERIOD(now, 1);
    if (!r || answer < 0 || answer >= NANSWERS || now <= 0)
        return;
    bump(&r->minute[m % WH_RING_MINUTES][answer], m);
    bump(&r->ten[t % WH_RING_TENS][answer], t);
#else
    (void)r; (void)answer; (void)now;
#endif
}

void wh_ring_clear(wh_console_ring *r)
{
#if WH_RING_KEPT
    for (int i = 0; r && i < WH_RING_MINUTES; i++)
        for (int a = 0; a < NANSWERS; a++)
            atomic_store_explicit(&r->minute[i][a], 0, memory_order_relaxed);
    for (int i = 0; r && i < WH_RING_TENS; i++)
        for (int a = 0; a < NANSWERS; a++)
            atomic_store_explicit(&r->ten[i][a], 0, memory_order_relaxed);
#else
    (void)r;
#endif
}

void wh_ring_read(const wh_console_ring *r, apr_time_t now, int tens, int nbins,
                  apr_uint64_t *counts)
{
    apr_uint64_t last = PERIOD(now, tens);
    int keep = tens ? WH_RING_TENS : WH_RING_MINUTES;
    apr_size_t ncounts = (apr_size_t)nbins * NANSWERS;

    memset(counts, 0, ncounts * sizeof(*counts));
#if WH_RING_KEPT
    for (int b = 0; r && b < nbins; b++) {
        apr_uint64_t back = (apr_uint64_t)(nbins - 1 - b), period;
        const cell *row;
        if (back >= (apr_uint64_t)keep || back > last)
            continue;
        period = last - back;
        row = tens ? r->ten[period % WH_RING_TENS] : r->minute[period % WH_RING_MINUTES];
        for (int a = 0; a < NANSWERS; a++)
            counts[(apr_size_t)b * NANSWERS + a] = value(&row[a], period);
    }
#else
    (void)r; (void)keep;
#endif
}
