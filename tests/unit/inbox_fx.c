/* The inbox suites' fixture (see inbox_fx.h). */
#include "inbox_fx.h"
#include "config/wh_config_load.h"
#include <apr_file_io.h>
#include <apr_strings.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Which engine the current case runs on (set by the suite wrappers). */
int ix_use_pg;
int ix_use_mysql;

static const char *raw_driver(void)
{
    return ix_use_mysql ? "mysql" : ix_use_pg ? "pgsql" : "sqlite3";
}

/* MySQL: a raw connection reads || as concatenation and speaks utf8mb4,
 * so that the tests' queries are the same text as on the others. */
static void raw_session(const apr_dbd_driver_t *drv, apr_dbd_t *h)
{
    int n = 0;
    if (ix_use_mysql) {
        CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, "SET NAMES utf8mb4, SESSION sql_mode ="
                                      " 'PIPES_AS_CONCAT,STRICT_ALL_TABLES'"), 0);
    }
}

void ix_capture_log(void *baton, wh_log_level level, const char *msg)
{
    fx *f = baton;
    size_t used = strlen(f->log);
    (void)level;
    if (used + 2 < sizeof(f->log)) {
        apr_cpystrn(f->log + used, msg, sizeof(f->log) - used - 1);
        strcat(f->log, "\n");
    }
}

/* A fresh directory for the database, removed when the test pool is
 * cleared (after the inbox's own pools, which close the connection). */
fx *ix_make(void)
{
    apr_pool_t *p = wh_test_pool();
    fx *f = apr_pcalloc(p, sizeof(*f));
    const char *dir = wh_test_tmpdir("inbox");

    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    chmod(dir, 0755);
    f->dir = dir;
    f->path = apr_pstrcat(p, dir, "/inbox.db", NULL);
    apr_dbd_init(p);   /* for the test's own connections; repeat calls are fine */
    f->cfg = wh_config_create(p);
    f->cfg->inbox_driver = WH_INBOX_SQLITE3;
    f->cfg->inbox_driver_name = "sqlite3";
    f->cfg->inbox_params = f->path;
    if (ix_use_pg || ix_use_mysql) {
        const apr_dbd_driver_t *drv;
        apr_dbd_t *h = NULL;
        const char *err = NULL;
        int n = 0;
        f->cfg->inbox_driver = ix_use_mysql ? WH_INBOX_MYSQL : WH_INBOX_PGSQL;
        f->cfg->inbox_driver_name = raw_driver();
        f->cfg->inbox_params = getenv(ix_use_mysql ? "WH_TEST_MYSQL_CONNINFO"
                                                   : "WH_TEST_PG_CONNINFO");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f->cfg->inbox_params);
        CU_ASSERT_EQUAL_FATAL(apr_dbd_get_driver(p, raw_driver(), &drv), APR_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(drv, p, f->cfg->inbox_params, &h, &err),
                              APR_SUCCESS);
        /* MySQL reads CASCADE and does nothing with it */
        CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, WH_TEST_PG_DROP_TABLES), 0);
        if (ix_use_pg)
            CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, WH_TEST_PG_DROP_SEQUENCES), 0);
        apr_dbd_close(drv, h);
    }
    return f;
}

wh_inbox *ix_open_in(fx *f, apr_pool_t *p)
{
    wh_logger lg = { ix_capture_log, f };
    wh_inbox *ib = NULL;
    const char *err = wh_inbox_open(p, f->cfg, &lg, &ib);
    if (err)
        fprintf(stderr, "  open: %s\n", err);
    return ib;
}

fx *ix_opened(void)
{
    fx *f = ix_make();
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    return f;
}

wh_facts ix_facts(const char *id, const char *payment, const char *status)
{
    wh_facts fa;
    memset(&fa, 0, sizeof(fa));
    fa.notification_id = id;
    fa.event_type = "wire.status";
    fa.event_time = "2026-11-22T14:05:09Z";
    fa.payment_id = payment;
    fa.status = status;
    fa.status_known = 1;
    return fa;
}

const char *ix_nid(int i)
{
    return apr_psprintf(wh_test_pool(), "00000000-0000-4000-8000-%012d", i);
}

/* A body whose bytes would not survive re-serialization: spacing, a
 * newline, escapes and UTF-8 must all come back exactly. */
const char *ix_body(const char *id, const char *payment, const char *status)
{
    return apr_psprintf(wh_test_pool(),
                        "{ \"notificationId\" : \"%s\",\n  \"eventType\":\"wire.status\","
                        "\"data\":{\"wireEventInfo\":{\"paymentId\":\"%s\",\"status\":\"%s\","
                        "\"note\":\"Zo\\u00eb \xc3\x85ngstr\xc3\xb6m \\/ 1.50\"}} }  ",
                        id, payment, status);
}

wh_inbox_result ix_store(fx *f, const char *id, const char *payment,
                             const char *status, apr_int64_t *seq)
{
    wh_facts fa = ix_facts(id, payment, status);
    const char *b = ix_body(id, payment, status);
    return wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b),
                          apr_time_now(), seq);
}

const char *ix_list(fx *f, apr_int64_t offset, int limit, const char *payment,
                        const char *status)
{
    wh_page_query q = { offset, limit, payment, status, NULL };
    const char *json = NULL;
    CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_STORED);
    return json;
}

/* Parses a listing; checks its shape on the way. */
page ix_parse_page(const char *json)
{
    page pg;
    json_object *root, *events, *pag, *o;

    memset(&pg, 0, sizeof(pg));
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    root = json_tokener_parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_FATAL(json_object_object_get_ex(root, "events", &events));
    CU_ASSERT_FATAL(json_object_is_type(events, json_type_array));
    CU_ASSERT_FATAL(json_object_object_get_ex(root, "pagination", &pag));
    CU_ASSERT_FATAL(json_object_object_get_ex(pag, "offset", &o));
    CU_ASSERT_FATAL(json_object_is_type(o, json_type_string));   /* as in the spec */
    pg.offset = apr_pstrdup(wh_test_pool(), json_object_get_string(o));
    CU_ASSERT_FATAL(json_object_object_get_ex(pag, "moreRecords", &o));
    CU_ASSERT_FATAL(json_object_is_type(o, json_type_boolean));
    pg.more = json_object_get_boolean(o);
    pg.n = (int)json_object_array_length(events);
    for (int i = 0; i < pg.n && i < 128; i++) {
        json_object *e = json_object_array_get_idx(events, (size_t)i), *id;
        CU_ASSERT_FATAL(json_object_object_get_ex(e, "notificationId", &id));
        pg.ids[i] = apr_pstrdup(wh_test_pool(), json_object_get_string(id));
    }
    json_object_put(root);
    return pg;
}

/* A second, independent connection for inspecting or locking the file. */
apr_dbd_t *ix_raw_open(fx *f, const apr_dbd_driver_t **drv)
{
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    CU_ASSERT_EQUAL_FATAL(apr_dbd_get_driver(wh_test_pool(), raw_driver(), drv),
                          APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(*drv, wh_test_pool(), f->cfg->inbox_params, &h, &err),
                          APR_SUCCESS);
    raw_session(*drv, h);
    return h;
}

const char *ix_raw_value(const apr_dbd_driver_t *drv, apr_dbd_t *h, const char *sql)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *v = NULL;
    /* MySQL's driver reads rows at random only by number */
    if (apr_dbd_select(drv, wh_test_pool(), h, &res, sql, !ix_use_mysql) != 0)
        return NULL;
    while (apr_dbd_get_row(drv, wh_test_pool(), res, &row, -1) == 0)
        if (!v) {
            const char *e = apr_dbd_get_entry(drv, row, 0);
            v = apr_pstrdup(wh_test_pool(), e ? e : "NULL");
        }
    return v;
}

const char *ix_query(fx *f, const char *sql)
{
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = ix_raw_open(f, &drv);
    const char *v = ix_raw_value(drv, h, sql);
    apr_dbd_close(drv, h);
    return v;
}

int ix_exec(fx *f, const char *sql)
{
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = ix_raw_open(f, &drv);
    int n = 0, rv = apr_dbd_query(drv, h, &n, sql);
    apr_dbd_close(drv, h);
    return rv;
}
