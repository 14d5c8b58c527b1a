#ifndef WH_REPLAY_VERDICT_H
#define WH_REPLAY_VERDICT_H
/* A replay store's answer to a claim, as the verdict the host answers
 * like any other (wh_response_from_verdict): the host logs, the core
 * decides.
 *
 *   FIRST        unchanged: still accepted, the delivery goes ahead
 *   DUPLICATE    200 duplicate: delivered within the window, not again
 *   IN_PROGRESS  503 delivery_in_progress: another copy's delivery holds
 *                the id and may still fail, so this copy is no duplicate;
 *                Retry-After: when the claim lapses, where the store knows
 *                that comes sooner than WH_REPLAY_IN_PROGRESS_RETRY, else
 *                that
 *   PREDATES     503 replay_cache_unavailable; Retry-After: until the
 *                store judges a notification signed then (the start of
 *                its memory + TimestampTolerance)
 *   FULL, ERROR  503 replay_cache_unavailable; Retry-After: the store's
 *                word where it has one (a connection's back-off), else
 *                WH_RETRY_AFTER_UNKNOWN */
#include "verify/wh_verdict.h"
#include "wh_replay_store.h"

/* A running delivery usually ends sooner: the copy told to come back then
 * is a duplicate (it succeeded) or delivered (it failed). */
#define WH_REPLAY_IN_PROGRESS_RETRY apr_time_from_sec(10)

/* v (accepted so far) after res, the answer to claim c at now. */
void wh_replay_verdict(wh_verdict *v, const wh_claim *c, wh_claim_result res,
                       const wh_claim_info *info, apr_time_t now);

/* No store to ask (none for this configuration, none opened in this
 * process), or a record taken back: 503 replay_cache_unavailable. */
void wh_replay_verdict_unavailable(wh_verdict *v);

#endif
