/* bench_inbox: the durable inbox through its own API (shared/inbox/wh_inbox.h),
 * SQLite as configured in production (WAL; every wh_inbox_store()
 * commits and syncs the WAL before it returns).
 *
 *   bench_inbox create --db F
 *       opens (creating the schema) and exits
 *   bench_inbox append --db F --sample S --count N [--writers W] [--threads T]
 *       W processes (default 1), each its own connection as httpd children
 *       and CGI processes have, store N events in total, every one with a
 *       fresh notificationId; prints appends_per_sec and the event size.
 *       With T > 1 threads (one process), the stores go through one
 *       group-commit inbox as the module's threads do; it also prints the
 *       process's CPU per append and the commits made
 *   bench_inbox page --db F --offset K [--limit L] [--repeat R]
 *       times wh_pagination_parse + wh_inbox_list for one page, median of
 *       R runs (after one warm-up); prints page_ms and the records returned
 *   bench_inbox purge --db F --sample S --count N
 *       intake beside a purge: one writer (its own connection) stores N
 *       events and times each (the baseline), then goes on storing while
 *       a thread with a connection of its own purges every event of F
 *       older than 30 days (wh_inbox_purge, as `wirehook inbox purge`);
 *       prints both p50/p99 store latencies and what the purge took
 *
 * Output: "key value" lines on stdout (read by bench/run.sh). */
#include "bench_util.h"
#include "config/wh_config_load.h"
#include "inbox/wh_inbox.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_inbox_purge.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_thread_proc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WRITERS 64
#define MAX_THREADS 64
#define MAX_REPEAT 1000
#define MAX_TIMED 4000000        /* store latencies kept while a purge runs */
#define SAMPLE_ID "8cefee42-cb39-4479-b7fd-b8a358aeb002"

typedef struct {
    const char *mode, *db, *sample;
    long count, offset;
    int writers, threads, limit, repeat;
} options;

static void log_sink(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    if (level <= WH_LOG_WARN)
        fprintf(stderr, "inbox: %s\n", msg);
}

static wh_inbox *open_inbox_ex(apr_pool_t *p, const char *db, int flags)
{
    wh_config *cfg = wh_config_create(p);
    wh_logger lg = { log_sink, NULL };
    wh_inbox *ib = NULL;
    const char *err;

    cfg->inbox_params = db;
    if ((err = wh_inbox_open_ex(p, cfg, &lg, flags, &ib)) != NULL)
        bench_die("cannot open the inbox", err);
    return ib;
}

static wh_inbox *open_inbox(apr_pool_t *p, const char *db)
{
    return open_inbox_ex(p, db, 0);
}

/* Each store's latency, while stop is not set (NULL: n stores). */
typedef struct {
    double *ms;
    long cap, n;
    atomic_int *stop;
} timed;

/* n stores of the sample, each with a fresh id (tag and w make them
 * unique across writers and threads), timed into tm unless NULL. 0, or 1
 * after a store failed. */
static int store_n(wh_inbox *ib, const char *sample, unsigned tag, int w, long n,
                   timed *tm)
{
    apr_pool_t *root, *p;
    apr_size_t len;
    char *body;
    const char *id_at;

    if (apr_pool_create_unmanaged_ex(&root, NULL, NULL) != APR_SUCCESS
        || apr_pool_create(&p, root) != APR_SUCCESS)
        return 1;
    body = bench_slurp(root, sample, &len);
    id_at = strstr(body, SAMPLE_ID);
    if (!id_at)
        bench_die("sample lacks the sample notificationId", NULL);
    for (long i = 0; i < n; i++) {
        char id[37];
        wh_facts facts;
        apr_int64_t seq = 0;
        wh_inbox_result r;
        double t0 = 0;

        if (tm && (tm->n >= tm->cap || (tm->stop && atomic_load(tm->stop))))
            break;
        apr_pool_clear(p);
        snprintf(id, sizeof id, "%08x-%04x-4%03x-8000-%012lx", tag, (unsigned)w,
                 (unsigned)(i >> 48) & 0xfff, (unsigned long)i & 0xffffffffffffUL);
        memcpy(body + (id_at - body), id, 36);
        memset(&facts, 0, sizeof facts);
        facts.notification_id = id;
        facts.event_type = "wire.status";
        facts.event_time = "2026-11-22T14:05:09Z";
        facts.payment_id = "WP-2026-000481";
        facts.status = "Complete";
        facts.status_known = 1;
        facts.user = "bank";
        if (tm)
            t0 = bench_now();
        r = wh_inbox_store(ib, p, &facts, body, len, apr_time_now(), &seq);
        if (tm)
            tm->ms[tm->n++] = (bench_now() - t0) * 1e3;
        if (r != WH_INBOX_STORED) {
            fprintf(stderr, "bench_inbox: writer %d: store %ld answered %s\n", w, i,
                    r == WH_INBOX_DUPLICATE ? "duplicate" : "unavailable");
            apr_pool_destroy(root);
            return 1;
        }
    }
    apr_pool_destroy(root);
    return 0;
}

/* One writer process: its own connection. */
static int writer(const options *o, int w, long n)
{
    apr_pool_t *root;
    int rv;

    if (apr_pool_create(&root, NULL) != APR_SUCCESS)
        return 1;
    rv = store_n(open_inbox(root, o->db), o->sample,
                 (unsigned)getpid() ^ (unsigned)time(NULL), w, n, NULL);
    apr_pool_destroy(root);
    return rv;
}

typedef struct {
    const options *o;
    wh_inbox *ib;
    unsigned tag;
    int t;
    long n;
    int failed;
} thread_job;

static void *APR_THREAD_FUNC store_thread(apr_thread_t *th, void *data)
{
    thread_job *j = data;
    (void)th;
    j->failed = store_n(j->ib, j->o->sample, j->tag, j->t, j->n, NULL);
    return NULL;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
           + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* T threads of one process through one group-commit inbox. */
static int do_threads(const options *o)
{
    apr_thread_t *th[MAX_THREADS];
    thread_job jobs[MAX_THREADS];
    long per = o->count / o->threads;
    unsigned tag = (unsigned)getpid() ^ (unsigned)time(NULL);
    apr_pool_t *p;
    wh_inbox *ib;
    wh_batch_stats s;
    double t0, c0, t, c;
    int failed = 0;

    if (per < 1)
        bench_die("--count must be at least --threads", NULL);
    apr_pool_create(&p, NULL);
    ib = open_inbox_ex(p, o->db, WH_INBOX_GROUP_COMMIT);
    t0 = bench_now();
    c0 = cpu_seconds();
    for (int i = 0; i < o->threads; i++) {
        jobs[i] = (thread_job){ o, ib, tag, i, per, 0 };
        if (apr_thread_create(&th[i], NULL, store_thread, &jobs[i], p) != APR_SUCCESS)
            bench_die("cannot start a thread", NULL);
    }
    for (int i = 0; i < o->threads; i++) {
        apr_status_t st;
        apr_thread_join(&st, th[i]);
        failed += jobs[i].failed;
    }
    t = bench_now() - t0;
    c = cpu_seconds() - c0;
    if (failed)
        bench_die("a thread failed", NULL);
    if (wh_inbox_group_stats(ib, &s) != 0)
        memset(&s, 0, sizeof s);
    printf("threads %d\n", o->threads);
    printf("appends %ld\n", per * o->threads);
    printf("seconds %.3f\n", t);
    printf("appends_per_sec %.1f\n", (double)(per * o->threads) / t);
    printf("cpu_us_per_append %.1f\n", c * 1e6 / (double)(per * o->threads));
    printf("commits %lu\n", (unsigned long)s.batches);
    apr_pool_destroy(p);
    return 0;
}

static int do_append(const options *o)
{
    pid_t pids[MAX_WRITERS];
    int failed = 0;
    double t0, t;
    long per = o->count / o->writers;
    apr_pool_t *p, *sp;
    apr_size_t len;

    if (o->threads > 1)
        return do_threads(o);
    if (per < 1)
        bench_die("--count must be at least --writers", NULL);

    apr_pool_create(&p, NULL);
    (void)bench_slurp(p, o->sample, &len);
    /* schema first, so the writers do not race to create it; closed again
     * before forking so no child inherits a connection */
    apr_pool_create(&sp, p);
    open_inbox(sp, o->db);
    apr_pool_destroy(sp);
    t0 = bench_now();
    for (int w = 0; w < o->writers; w++) {
        pids[w] = fork();
        if (pids[w] < 0)
            bench_die("fork failed", NULL);
        if (pids[w] == 0) {
            /* the child starts clean: no connection inherited */
            if (apr_initialize() != APR_SUCCESS)
                _exit(1);
            _exit(writer(o, w, per));
        }
    }
    for (int w = 0; w < o->writers; w++) {
        int st = 0;
        if (waitpid(pids[w], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    t = bench_now() - t0;
    if (failed)
        bench_die("a writer failed", NULL);
    printf("writers %d\n", o->writers);
    printf("appends %ld\n", per * o->writers);
    printf("seconds %.3f\n", t);
    printf("appends_per_sec %.1f\n", (double)(per * o->writers) / t);
    printf("event_bytes %lu\n", (unsigned long)len);
    apr_pool_destroy(p);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int do_page(const options *o)
{
    apr_pool_t *root, *p;
    wh_inbox *ib;
    wh_config *cfg;
    double times[MAX_REPEAT] = { 0 };
    const char *query, *json = NULL;
    int records = 0;

    apr_pool_create(&root, NULL);
    apr_pool_create(&p, root);
    ib = open_inbox(root, o->db);
    cfg = wh_config_create(root);
    cfg->list_max_limit = 10000;
    query = apr_psprintf(root, "offset=%ld&limit=%d", o->offset, o->limit);
    for (int i = -1; i < o->repeat; i++) {
        wh_page_query q;
        const char *err;
        double t0 = bench_now();

        apr_pool_clear(p);
        if ((err = wh_pagination_parse(p, query, cfg, &q)) != NULL)
            bench_die("pagination", err);
        if (wh_inbox_list(ib, p, &q, &json) != WH_INBOX_STORED || !json)
            bench_die("listing failed", NULL);
        if (i >= 0)
            times[i] = bench_now() - t0;
        else {
            /* warm-up run: count what a page holds, outside the timing */
            json_object *root_obj = json_tokener_parse(json), *events;
            if (!root_obj || !json_object_object_get_ex(root_obj, "events", &events))
                bench_die("listing is not the documented JSON", NULL);
            records = (int)json_object_array_length(events);
            json_object_put(root_obj);
        }
    }
    qsort(times, (size_t)o->repeat, sizeof times[0], cmp_double);
    printf("offset %ld\n", o->offset);
    printf("records %d\n", records);
    printf("page_ms %.4f\n", times[o->repeat / 2] * 1e3);
    printf("page_ms_max %.4f\n", times[o->repeat - 1] * 1e3);
    apr_pool_destroy(root);
    return 0;
}

typedef struct {
    wh_inbox *ib;
    wh_config *cfg;
    wh_purge_counts n;
    double seconds;
    int rv;
    atomic_int done;
} purge_job;

static void *APR_THREAD_FUNC purge_thread(apr_thread_t *th, void *data)
{
    purge_job *j = data;
    apr_pool_t *p;
    wh_purge_opts o;
    double t0 = bench_now();

    (void)th;
    apr_pool_create(&p, NULL);
    memset(&o, 0, sizeof o);
    o.now = apr_time_now();
    j->rv = wh_inbox_purge(j->ib, p, j->cfg, &o, &j->n);
    j->seconds = bench_now() - t0;
    apr_pool_destroy(p);
    atomic_store(&j->done, 1);
    return NULL;
}

static void print_latency(const char *name, timed *tm)
{
    qsort(tm->ms, (size_t)tm->n, sizeof tm->ms[0], cmp_double);
    printf("%s_stores %ld\n", name, tm->n);
    printf("%s_p50_ms %.3f\n", name, tm->n ? tm->ms[tm->n / 2] : 0.0);
    printf("%s_p99_ms %.3f\n", name, tm->n ? tm->ms[(tm->n * 99) / 100] : 0.0);
}

static int do_purge(const options *o)
{
    apr_pool_t *p;
    apr_thread_t *th;
    apr_status_t st;
    purge_job j;
    timed base, during;
    unsigned tag = (unsigned)getpid() ^ (unsigned)time(NULL);
    wh_inbox *ib;

    apr_pool_create(&p, NULL);
    ib = open_inbox(p, o->db);
    base = (timed){ apr_pcalloc(p, sizeof(double) * (apr_size_t)o->count), o->count, 0, NULL };
    if (store_n(ib, o->sample, tag, 0, o->count, &base) != 0)
        bench_die("a baseline store failed", NULL);
    memset(&j, 0, sizeof j);
    atomic_init(&j.done, 0);
    j.ib = open_inbox(p, o->db);
    j.cfg = wh_config_create(p);
    j.cfg->inbox_params = o->db;
    j.cfg->inbox_retention = 30 * 86400;
    j.cfg->inbox_quarantine_retention = 30 * 86400;
    j.cfg->inbox_dead_retention = 30 * 86400;
    during = (timed){ apr_palloc(p, sizeof(double) * MAX_TIMED), MAX_TIMED, 0, &j.done };
    if (apr_thread_create(&th, NULL, purge_thread, &j, p) != APR_SUCCESS)
        bench_die("cannot start the purge", NULL);
    if (store_n(ib, o->sample, tag, 1, MAX_TIMED, &during) != 0)
        bench_die("a store during the purge failed", NULL);
    apr_thread_join(&st, th);
    if (j.rv != 0)
        bench_die("the purge failed", NULL);
    print_latency("base", &base);
    print_latency("during", &during);
    printf("purge_seconds %.3f\n", j.seconds);
    printf("purged_events %" APR_INT64_T_FMT "\n", j.n.events);
    printf("purge_transactions %" APR_INT64_T_FMT "\n", j.n.transactions);
    apr_pool_destroy(p);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    apr_pool_t *p;

    memset(&o, 0, sizeof o);
    o.writers = 1;
    o.threads = 1;
    o.limit = 25;
    o.repeat = 51;
    o.count = 1000;
    if (argc < 2)
        bench_die("usage: bench_inbox create|append|page|purge --db F [options]", NULL);
    o.mode = argv[1];
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--db")) o.db = v;
        else if (!strcmp(k, "--sample")) o.sample = v;
        else if (!strcmp(k, "--count")) o.count = atol(v);
        else if (!strcmp(k, "--writers")) o.writers = atoi(v);
        else if (!strcmp(k, "--threads")) o.threads = atoi(v);
        else if (!strcmp(k, "--offset")) o.offset = atol(v);
        else if (!strcmp(k, "--limit")) o.limit = atoi(v);
        else if (!strcmp(k, "--repeat")) o.repeat = atoi(v);
        else bench_die("unknown option", k);
    }
    if (!o.db)
        bench_die("--db is required", NULL);
    if (o.writers < 1 || o.writers > MAX_WRITERS)
        bench_die("--writers must be 1..64", NULL);
    if (o.threads < 1 || o.threads > MAX_THREADS || (o.threads > 1 && o.writers > 1))
        bench_die("--threads must be 1..64, and not with --writers", NULL);
    if (o.repeat < 1 || o.repeat > MAX_REPEAT)
        bench_die("--repeat must be 1..1000", NULL);
    if (o.limit < 1 || o.limit > 10000 || o.count < 1 || o.offset < 0)
        bench_die("bad --limit, --count or --offset", NULL);
    if (apr_initialize() != APR_SUCCESS)
        bench_die("APR init failed", NULL);
    if (!strcmp(o.mode, "create")) {
        apr_pool_create(&p, NULL);
        open_inbox(p, o.db);
        apr_pool_destroy(p);
        return 0;
    }
    if (!strcmp(o.mode, "append")) {
        if (!o.sample)
            bench_die("--sample is required", NULL);
        return do_append(&o);
    }
    if (!strcmp(o.mode, "page"))
        return do_page(&o);
    if (!strcmp(o.mode, "purge")) {
        if (!o.sample)
            bench_die("--sample is required", NULL);
        return do_purge(&o);
    }
    bench_die("unknown mode", o.mode);
    return 1;
}
