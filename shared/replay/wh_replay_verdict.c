/* A claim's answer as a verdict (see wh_replay_verdict.h). */
#include "wh_replay_verdict.h"

#define WH_REPLAY_UNAVAILABLE_MSG "replay protection is unavailable; retry later"

void wh_replay_verdict(wh_verdict *v, const wh_claim *c, wh_claim_result res,
                       const wh_claim_info *info, apr_time_t now)
{
    apr_interval_time_t wait;

    switch (res) {
    case WH_CLAIM_FIRST:
        return;
    case WH_CLAIM_DUPLICATE:
        wh_verdict_duplicate(v);
        return;
    case WH_CLAIM_IN_PROGRESS:
        wait = info->retry_in > 0 && info->retry_in < WH_REPLAY_IN_PROGRESS_RETRY
               ? info->retry_in : WH_REPLAY_IN_PROGRESS_RETRY;
        wh_verdict_unavailable(v, WH_CODE_IN_PROGRESS,
                               "another copy of this notification is being "
                               "delivered; retry later", wait);
        return;
    case WH_CLAIM_PREDATES:
        /* a copy signed at the retry is judged once that is no earlier
         * than since + tolerance (wh_replay_predates) */
        wait = info->since + apr_time_from_sec(c->tolerance_sec) - now;
        wh_verdict_unavailable(v, WH_CODE_REPLAY_UNAVAILABLE,
                               WH_REPLAY_UNAVAILABLE_MSG, wait > 0 ? wait : 1);
        return;
    case WH_CLAIM_FULL:
    case WH_CLAIM_ERROR:
    default:
        wh_verdict_unavailable(v, WH_CODE_REPLAY_UNAVAILABLE,
                               WH_REPLAY_UNAVAILABLE_MSG, info->retry_in);
        return;
    }
}

void wh_replay_verdict_unavailable(wh_verdict *v)
{
    wh_verdict_unavailable(v, WH_CODE_REPLAY_UNAVAILABLE,
                           WH_REPLAY_UNAVAILABLE_MSG, 0);
}
