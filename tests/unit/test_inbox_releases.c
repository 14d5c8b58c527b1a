/* Databases written by every released wirehook, opened by this one: the
 * fixtures in tests/upgrade/RELEASE/ (an SQLite file and its CGI auth
 * cache as the release left them, a PostgreSQL dump), made by
 * tests/upgrade/make-fixtures.sh with that release's own programs, and
 * expected.txt, what that release listed and forwarded. For each: the
 * schema is upgraded in place (said in the log) or left as it is, the
 * listing holds the same events in the same order, the payments, the
 * quarantine and the dead letters are the same, the auth cache keeps
 * working, and forwarding goes on where it stopped: exactly the events
 * not yet forwarded are forwarded, once each, none already forwarded or
 * dead again, and a new event is numbered after the last. Suite
 * "inbox_releases" on SQLite; "inbox_releases_pg" on the PostgreSQL
 * WH_TEST_PG_CONNINFO names. Run from the top of the tree (or set
 * WH_TOP). */
#include "inbox_fx.h"
#include "inbox/wh_auth_file.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_forward_queue.h"

#include <apr_file_io.h>
#include <apr_file_info.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>

#define RELEASES_MIN 4   /* 1.0.0, 1.1.0, 1.1.1, 1.2.0 */

static const char *fixtures_dir(void)
{
    const char *top = getenv("WH_TOP");
    return apr_pstrcat(wh_test_pool(), top && *top ? top : ".", "/tests/upgrade", NULL);
}

typedef struct {
    const char *release;
    int schema;
    apr_array_header_t *listed, *forwarded, *dead, *pending;  /* of const char * */
    apr_hash_t *payments;                                      /* id -> status */
    int quarantined;
} expected;

static void push(apr_array_header_t *a, const char *s)
{
    APR_ARRAY_PUSH(a, const char *) = apr_pstrdup(a->pool, s);
}

static expected *read_expected(const char *dir)
{
    apr_pool_t *p = wh_test_pool();
    expected *e = apr_pcalloc(p, sizeof(*e));
    char *text = wh_test_slurp(apr_pstrcat(p, dir, "/expected.txt", NULL), NULL), *state = NULL;

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    e->listed = apr_array_make(p, 8, sizeof(const char *));
    e->forwarded = apr_array_make(p, 8, sizeof(const char *));
    e->dead = apr_array_make(p, 2, sizeof(const char *));
    e->pending = apr_array_make(p, 8, sizeof(const char *));
    e->payments = apr_hash_make(p);
    for (char *l = apr_strtok(text, "\n", &state); l; l = apr_strtok(NULL, "\n", &state)) {
        char *rest = NULL, *key = apr_strtok(l, " ", &rest);
        if (!key || *key == '#')
            continue;
        if (strcmp(key, "release") == 0)
            e->release = apr_pstrdup(p, rest);
        else if (strcmp(key, "schema") == 0)
            e->schema = atoi(rest);
        else if (strcmp(key, "listed") == 0)
            push(e->listed, rest);
        else if (strcmp(key, "forwarded") == 0)
            push(e->forwarded, rest);
        else if (strcmp(key, "dead") == 0)
            push(e->dead, rest);
        else if (strcmp(key, "pending") == 0)
            push(e->pending, rest);
        else if (strcmp(key, "quarantined") == 0)
            e->quarantined = atoi(rest);
        else if (strcmp(key, "payment") == 0) {
            char *st = NULL, *id = apr_strtok(rest, " ", &st);
            apr_hash_set(e->payments, id, APR_HASH_KEY_STRING, st);
        }
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->release);
    CU_ASSERT_FATAL(e->schema > 0 && e->listed->nelts > 0);
    return e;
}

static int has(const apr_array_header_t *a, const char *s)
{
    for (int i = 0; i < a->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(a, i, const char *), s) == 0)
            return 1;
    return 0;
}

static int copy(const char *from, const char *to)
{
    return apr_file_copy(from, to, APR_FPROT_UREAD | APR_FPROT_UWRITE, wh_test_pool())
           == APR_SUCCESS;
}

/* The release's database in f's place: the SQLite files copied, or the
 * dump loaded into the emptied PostgreSQL database. */
static fx *restore(const char *dir, int *has_auth_file)
{
    fx *f = ix_make();
    const char *auth = apr_pstrcat(wh_test_pool(), dir, "/inbox.db-auth", NULL);
    apr_finfo_t fi;

    *has_auth_file = 0;
    if (ix_use_pg) {
        char *sql = wh_test_slurp(apr_pstrcat(wh_test_pool(), dir, "/pgsql.sql", NULL), NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sql);
        CU_ASSERT_EQUAL_FATAL(ix_exec(f, sql), 0);
        return f;
    }
    CU_ASSERT_FATAL(copy(apr_pstrcat(wh_test_pool(), dir, "/inbox.db", NULL), f->path));
    if (apr_stat(&fi, auth, APR_FINFO_TYPE, wh_test_pool()) == APR_SUCCESS) {
        CU_ASSERT_FATAL(copy(auth, apr_pstrcat(wh_test_pool(), f->path, WH_AUTH_FILE_SUFFIX,
                                               NULL)));
        *has_auth_file = 1;
    }
    return f;
}

static void check_listing(fx *f, const expected *e)
{
    page pg = ix_parse_page(ix_list(f, 0, 100, NULL, NULL));

    CU_ASSERT_EQUAL(pg.n, e->listed->nelts);
    for (int i = 0; i < pg.n && i < e->listed->nelts; i++)
        if (!str_eq(pg.ids[i], APR_ARRAY_IDX(e->listed, i, const char *))) {
            fprintf(stderr, "  %s: listed %d is %s, expected %s\n", e->release, i, pg.ids[i],
                    APR_ARRAY_IDX(e->listed, i, const char *));
            CU_FAIL("the listing changed");
            break;
        }
    /* an offset a client held keeps its meaning */
    pg = ix_parse_page(ix_list(f, 2, 2, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], APR_ARRAY_IDX(e->listed, 2, const char *));
}

static void check_payments(fx *f, const expected *e)
{
    for (apr_hash_index_t *hi = apr_hash_first(wh_test_pool(), e->payments); hi;
         hi = apr_hash_next(hi)) {
        wh_payment_row row;
        apr_array_header_t *history = NULL;
        int truncated = 0;
        const char *id = apr_hash_this_key(hi);
        memset(&row, 0, sizeof(row));
        CU_ASSERT_EQUAL(wh_payments_view(f->ib, wh_test_pool(), id, &row, &history, &truncated),
                        WH_PAY_OK);
        if (!str_eq(row.status, apr_hash_this_val(hi)))
            fprintf(stderr, "  %s: payment %s is %s\n", e->release, id,
                    row.status ? row.status : "(none)");
        ASSERT_STR(row.status, apr_hash_this_val(hi));
    }
}

static void check_quarantine(fx *f, const expected *e)
{
    apr_array_header_t *rows = NULL;
    CU_ASSERT_EQUAL(wh_quarantine_list(f->ib, wh_test_pool(), 0, 100, &rows), 0);
    CU_ASSERT_EQUAL(rows ? rows->nelts : -1, e->quarantined);
}

/* The CGI's cache of successful checks, where the release kept it: the
 * table on PostgreSQL and before 1.1.1, else the file beside the
 * database, which this code still reads and writes. */
static void check_auth_cache(fx *f, int has_auth_file)
{
    const char *path = apr_pstrcat(wh_test_pool(), f->path, WH_AUTH_FILE_SUFFIX, NULL);
    const char *key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    const char *user = NULL;
    apr_time_t expires = 0, now = apr_time_now();

    if (!has_auth_file) {
        ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_auth_cache"), "1");
        return;
    }
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), path, key, now, &user, &expires), 0);
    CU_ASSERT_EQUAL(wh_auth_file_store(path, 0600, (gid_t)-1, key, "bank",
                                       now + apr_time_from_sec(60)), 0);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), path, key, now, &user, &expires), 1);
    ASSERT_STR(user, "bank");
}

/* Forwarding goes on: leases until nothing is left, each lease answered
 * 2xx; returns the notificationIds leased. now is hours ahead, so that a
 * retry the release scheduled is due. */
static apr_array_header_t *forward_all(wh_fq *q, apr_time_t now)
{
    apr_array_header_t *seen = apr_array_make(wh_test_pool(), 8, sizeof(const char *));
    apr_array_header_t *outcomes = apr_array_make(wh_test_pool(), 8, sizeof(wh_fq_outcome));

    for (int round = 0; round < 50; round++) {
        wh_fq_cycle_result r;
        memset(&r, 0, sizeof(r));
        CU_ASSERT_EQUAL_FATAL(wh_fq_cycle(q, wh_test_pool(), outcomes, 16, 60000, now, &r), 0);
        outcomes = apr_array_make(wh_test_pool(), 8, sizeof(wh_fq_outcome));
        for (int i = 0; i < r.leases->nelts; i++) {
            const wh_fq_lease *l = &APR_ARRAY_IDX(r.leases, i, wh_fq_lease);
            wh_fq_outcome *o = apr_array_push(outcomes);
            memset(o, 0, sizeof(*o));
            o->event_id = l->ev.id;
            o->attempt = l->ev.attempt;
            o->state = WH_FQ_FORWARDED;
            o->http_status = 200;
            o->answer = "HTTP 200";
            push(seen, l->ev.notification_id);
        }
        if (!r.leases->nelts && !r.ingested && !r.backlog && !outcomes->nelts)
            break;
    }
    return seen;
}

static void check_forwarding(fx *f, const expected *e)
{
    wh_fq *q = NULL;
    apr_array_header_t *dead = NULL, *seen;
    apr_time_t later = apr_time_now() + apr_time_from_sec(3 * 3600);
    apr_int64_t seq = 0;

    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "upgraded", &q));
    CU_ASSERT_EQUAL(wh_fq_dead_list(q, wh_test_pool(), 0, 100, &dead), 0);
    CU_ASSERT_EQUAL(dead ? dead->nelts : -1, e->dead->nelts);
    for (int i = 0; dead && i < dead->nelts; i++)
        CU_ASSERT(has(e->dead, APR_ARRAY_IDX(dead, i, wh_fq_dead).notification_id));

    seen = forward_all(q, later);
    CU_ASSERT_EQUAL(seen->nelts, e->pending->nelts);
    for (int i = 0; i < seen->nelts; i++) {
        const char *id = APR_ARRAY_IDX(seen, i, const char *);
        if (!has(e->pending, id))
            fprintf(stderr, "  %s: %s was forwarded again\n", e->release, id);
        CU_ASSERT(has(e->pending, id));
        for (int j = 0; j < i; j++)
            CU_ASSERT(strcmp(APR_ARRAY_IDX(seen, j, const char *), id) != 0);
    }
    for (int i = 0; i < e->pending->nelts; i++)
        CU_ASSERT(has(seen, APR_ARRAY_IDX(e->pending, i, const char *)));

    /* a notification stored now is numbered after the last and forwarded */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(500), "P-NEW", "Complete", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, e->listed->nelts + 1);
    CU_ASSERT_EQUAL(ix_store(f, APR_ARRAY_IDX(e->listed, 0, const char *), "P-ALPHA", "Review",
                             NULL), WH_INBOX_DUPLICATE);
    seen = forward_all(q, later);
    CU_ASSERT_EQUAL(seen->nelts, 1);
    ASSERT_STR(seen->nelts ? APR_ARRAY_IDX(seen, 0, const char *) : NULL, ix_nid(500));
}

static void check_release(const char *dir)
{
    expected *e = read_expected(dir);
    int auth_file = 0;
    fx *f = restore(dir, &auth_file);
    const char *up = apr_psprintf(wh_test_pool(), "upgraded from schema version %d to %d",
                                  e->schema, WH_INBOX_SCHEMA_VERSION);

    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"),
               apr_itoa(wh_test_pool(), WH_INBOX_SCHEMA_VERSION));
    if (e->schema < WH_INBOX_SCHEMA_VERSION) {
        CU_ASSERT(contains(f->log, up));
    }
    else {
        CU_ASSERT(!contains(f->log, "upgraded"));
    }
    check_listing(f, e);
    check_payments(f, e);
    check_quarantine(f, e);
    check_auth_cache(f, auth_file);
    check_forwarding(f, e);
    /* opened again: nothing to upgrade, the same listing (and the one new) */
    f->log[0] = '\0';
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT(!contains(f->log, "upgraded"));
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 100, NULL, NULL)).n, e->listed->nelts + 1);
}

static void test_every_release(void)
{
    apr_pool_t *p = wh_test_pool();
    const char *top = fixtures_dir();
    apr_dir_t *d = NULL;
    apr_finfo_t fi;
    int n = 0;

    if (apr_dir_open(&d, top, p) != APR_SUCCESS) {
        fprintf(stderr, "  no %s: run unit_tests from the top of the tree (or set WH_TOP)\n", top);
        CU_FAIL_FATAL("the release fixtures are found");
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d) == APR_SUCCESS) {
        const char *dir = apr_pstrcat(p, top, "/", fi.name, NULL);
        if (fi.filetype != APR_DIR || fi.name[0] == '.')
            continue;
        check_release(dir);
        n++;
    }
    apr_dir_close(d);
    CU_ASSERT(n >= RELEASES_MIN);
}

#define CASES(X) X(every_release, "every release's inbox, upgraded and forwarded on")

CASES(IX_SQ_WRAP)
CASES(IX_PG_WRAP)

static const wh_test_case cases[] = { CASES(IX_SQ_ROW) { NULL, NULL } };
static const wh_test_case pg_cases[] = { CASES(IX_PG_ROW) { NULL, NULL } };

WH_TEST_SUITE(inbox_releases, cases)

WH_TEST_SUITE_PG(inbox_releases_pg, pg_cases, "test_inbox_pg.sh")
