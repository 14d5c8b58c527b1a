/* The inbox's and the forwarder's figures for the metrics
 * (wh_metrics_read_inbox): the public reads of inbox/ and forward/, each
 * on an index, so a scrape costs what the backlog, the dead letters and
 * the quarantine hold, not what the inbox has stored:
 *   listed events        max(seq) of the listing
 *   quarantine           a count of the bodies not released
 *   forward queue        the tables' presence, then the counts of open and
 *                        dead events (partial indexes) and the oldest open
 *   attempts by outcome  three rows (wh_attempt_counts)
 *   lag                  the arrival of one event, found by its position,
 *                        when some are not queued yet
 *   last purge           one row (wh_purge) */
#include "wh_metrics.h"
#include "inbox/wh_inbox_purge.h"
#include "inbox/wh_inbox_views.h"

#include <string.h>

/* The arrival of the event at listing position after + 1, 0 when there
 * is none. 0, or -1 when the inbox failed. */
static int arrival_after(apr_pool_t *p, wh_inbox *ib, apr_int64_t after, apr_time_t *at)
{
    wh_events_query q;
    apr_array_header_t *rows = NULL;
    int more = 0;

    memset(&q, 0, sizeof(q));
    q.limit = 1;
    q.lo = after > 0 ? after : 0;
    *at = 0;
    if (wh_inbox_events(ib, p, &q, &rows, &more) != 0)
        return -1;
    if (rows->nelts)
        *at = APR_ARRAY_IDX(rows, 0, wh_event_row).received_at;
    return 0;
}

static double age(apr_time_t now, apr_time_t t)
{
    return t && t < now ? (double)(now - t) / APR_USEC_PER_SEC : 0.0;
}

/* The forwarder's figures; 0, or -1 when the inbox failed. */
static int read_forward(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg, apr_time_t now,
                        wh_metrics_config *m)
{
    wh_fq *q = NULL;
    wh_fq_counts st;
    apr_time_t first = 0;
    int rc = wh_fq_attach(p, ib, cfg, &q);

    if (rc < 0)
        return -1;
    if (rc == 0) {
        /* no forwarder has run: every event waits, nothing was tried */
        m->backlog = m->unqueued = m->events;
        if (arrival_after(p, ib, 0, &first) != 0)
            return -1;
        m->lag_seconds = age(now, first);
        m->attempts_known = 1;
        memset(&m->attempts, 0, sizeof(m->attempts));
        m->forward_known = 1;
        return 0;
    }
    if (wh_fq_stats(q, p, &st) != 0 || (rc = wh_fq_attempt_totals(q, p, &m->attempts)) < 0)
        return -1;
    m->attempts_known = rc == 1;
    m->backlog = st.waiting + st.ready + st.unqueued;
    m->unqueued = st.unqueued;
    m->retrying = st.retrying;
    m->dead = st.dead;
    m->lag_seconds = age(now, st.oldest);
    /* the queue holds the older events: the first one not taken in yet is
     * the oldest only when the queue is empty, but a stopped forwarder
     * leaves exactly that */
    if (st.unqueued > 0) {
        if (arrival_after(p, ib, m->events - st.unqueued, &first) != 0)
            return -1;
        if (age(now, first) > m->lag_seconds)
            m->lag_seconds = age(now, first);
    }
    m->forward_known = 1;
    return 0;
}

void wh_metrics_read_inbox(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                           apr_time_t now, wh_metrics_config *m)
{
    m->has_inbox = cfg->inbox_params != NULL;
    m->forwards = m->has_inbox && cfg->forward_url != NULL;
    m->inbox_up = 0;
    m->forward_known = 0;
    if (!m->has_inbox || !ib)
        return;
    wh_inbox_purge_record last;
    int purged;

    if (wh_inbox_listed(ib, p, &m->events) != 0
        || wh_inbox_quarantine_held(ib, p, &m->quarantined) != 0
        || (purged = wh_inbox_last_purge(ib, p, &last)) < 0)
        return;
    m->last_purge = purged ? last.finished_at : 0;
    if (m->forwards && read_forward(p, ib, cfg, now, m) != 0) {
        m->forward_known = 0;
        return;
    }
    m->inbox_up = 1;
}
