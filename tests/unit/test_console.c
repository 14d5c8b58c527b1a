/* The console core (shared/console/): escaping for every place a value
 * goes, the session and action tokens, the origin check, and the pages
 * and actions answered over a real SQLite inbox, hostile values
 * included. */
#include "inbox_fx.h"
#include "config/wh_config_load.h"
#include "console/wh_console.h"
#include "console/wh_console_csrf.h"
#include "console/wh_html.h"
#include "inbox/wh_endpoint.h"
#include "inbox/wh_quarantine_ops.h"
#include "inbox/wh_inbox_views.h"
#include "forward/wh_forward_queue.h"
#include "verify/wh_signature.h"

#include <apr_strings.h>
#include <stdio.h>

static const char *esc(const char *s)
{
    return wh_html_escape(wh_test_pool(), s);
}

static const char *escn(const char *s, apr_size_t n, apr_size_t max)
{
    wh_html h;
    apr_size_t len;
    wh_html_init(&h, wh_test_pool(), 1 << 20);
    wh_html_textn(&h, s, n, max);
    return wh_html_done(&h, &len);
}

static void test_escape_markup(void)
{
    ASSERT_STR(esc("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
    ASSERT_STR(esc("</script><script>alert(1)</script>"),
               "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    ASSERT_STR(esc("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
    ASSERT_STR(esc("\" onmouseover=\"alert(1)"), "&quot; onmouseover=&quot;alert(1)");
    ASSERT_STR(esc("&amp;"), "&amp;amp;");
    ASSERT_STR(esc("plain text"), "plain text");
    ASSERT_STR(esc(""), "");
    ASSERT_STR(esc(NULL), "");
    /* valid UTF-8 passes as is, tab and newline too */
    ASSERT_STR(esc("Zahlung f\xC3\xBCr \xE2\x82\xAC 5\t\n"), "Zahlung f\xC3\xBCr \xE2\x82\xAC 5\t\n");
    ASSERT_STR(esc("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

#define FFFD "\xEF\xBF\xBD"

static void test_escape_bytes(void)
{
    ASSERT_STR(esc("a\xFF" "b"), "a" FFFD "b");
    ASSERT_STR(esc("\xC0\xAF"), FFFD FFFD);                 /* overlong '/' */
    ASSERT_STR(esc("\xED\xA0\x80"), FFFD FFFD FFFD);        /* a surrogate */
    ASSERT_STR(esc("\xF4\x90\x80\x80"), FFFD FFFD FFFD FFFD); /* past U+10FFFF */
    ASSERT_STR(esc("x\xE2\x82"), "x" FFFD FFFD);            /* cut short */
    ASSERT_STR(esc("\x01\x1B[31m\x7F"), FFFD FFFD "[31m" FFFD);
    /* a NUL inside a value (a quarantined body) */
    ASSERT_STR(escn("a\0<", 3, 0), "a" FFFD "&lt;");
    /* a bound: cut, marked with an ellipsis, never inside a reference */
    ASSERT_STR(escn("<<<<", 4, 2), "&lt;&lt;\xE2\x80\xA6");
    /* cutting inside a multi-byte character shows a replacement, never half of it */
    ASSERT_STR(escn("\xC3\xBC\xC3\xBC", 4, 3), "\xC3\xBC" FFFD "\xE2\x80\xA6");
}

static void test_escape_long(void)
{
    apr_size_t n = 1 << 20;
    char *big = apr_palloc(wh_test_pool(), n + 1);
    wh_html h;
    apr_size_t len;

    for (apr_size_t i = 0; i < n; i++)
        big[i] = "<a\"'&"[i % 5];
    big[n] = '\0';
    /* every byte escaped: far larger than the input, and bounded by the page */
    wh_html_init(&h, wh_test_pool(), 4096);
    wh_html_text(&h, big);
    (void)wh_html_done(&h, &len);
    CU_ASSERT(len <= 4096);
    CU_ASSERT_EQUAL(h.overflow, 1);
    CU_ASSERT(strchr(h.buf, '<') == NULL && strchr(h.buf, '"') == NULL);
    CU_ASSERT(strlen(esc(big)) > n);
}

static void test_url_part(void)
{
    apr_pool_t *p = wh_test_pool();
    ASSERT_STR(wh_url_part(p, "javascript:alert(1)"), "javascript%3Aalert%281%29");
    ASSERT_STR(wh_url_part(p, "../../x?y=1#z"), "..%2F..%2Fx%3Fy%3D1%23z");
    ASSERT_STR(wh_url_part(p, "a b\"<>"), "a%20b%22%3C%3E");
    ASSERT_STR(wh_url_part(p, "WP-2026_1.x~"), "WP-2026_1.x~");
    ASSERT_STR(wh_url_part(p, "\xC3\xBC\xFF"), "%C3%BC%FF");
    ASSERT_STR(wh_url_part(p, ""), "");
}

static void test_form_values(void)
{
    apr_pool_t *p = wh_test_pool();
    ASSERT_STR(wh_form_value(p, "a=1&b=x+y%21&c=", 100, "b"), "x y!");
    ASSERT_STR(wh_form_value(p, "a=1&b=2&a=3", 100, "a"), "1");
    ASSERT_STR(wh_form_value(p, "a=1&c=", 100, "c"), "");
    ASSERT_STR(wh_form_value(p, "a&b=2", 100, "a"), "");
    CU_ASSERT_PTR_NULL(wh_form_value(p, "a=1", 100, "b"));
    CU_ASSERT_PTR_NULL(wh_form_value(p, "a=%zz", 100, "a"));
    CU_ASSERT_PTR_NULL(wh_form_value(p, "a=%4", 100, "a"));
    CU_ASSERT_PTR_NULL(wh_form_value(p, "a=x%00y", 100, "a"));
    CU_ASSERT_PTR_NULL(wh_form_value(p, "a=1", 2, "a"));     /* over the bound */
    CU_ASSERT_PTR_NULL(wh_form_value(p, NULL, 100, "a"));
    ASSERT_STR(wh_form_value(p, "%74oken=abc", 100, "token"), "abc");
}

/* ---- tokens ------------------------------------------------------------ */

static wh_config *config_with_secret(const char *secret)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = wh_config_create(p);
    const char *path = wh_test_tmpfile(apr_pstrcat(p, secret, "\n", NULL), 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(p, path, &cfg->secrets));
    return cfg;
}

#define SESSION "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

#define NOW ((apr_time_t)APR_INT64_C(1800000000000000))
#define TOK(k, sess, user, action, target) \
    wh_csrf_token(p, (k), (sess), (user), (action), (target), NOW)
#define CHK(k, sess, user, action, target, t) \
    (wh_csrf_check(p, (k), (sess), (user), (action), (target), (t), NOW) == WH_CSRF_OK)

static void test_tokens(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_csrf_key k1, k2, none;
    const char *t, *s1, *s2, *dot;

    CU_ASSERT_EQUAL(wh_csrf_key_derive(config_with_secret("secret-one"), &k1), 0);
    CU_ASSERT_EQUAL(wh_csrf_key_derive(config_with_secret("secret-two"), &k2), 0);
    CU_ASSERT_EQUAL(wh_csrf_key_derive(wh_config_create(p), &none), -1);
    CU_ASSERT(memcmp(k1.key, k2.key, sizeof(k1.key)) != 0);
    /* the key is not the secret */
    CU_ASSERT(memcmp(k1.key, "secret-one", 10) != 0);
    t = TOK(&k1, SESSION, "alice", "retry", "event=5");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* EXPIRES "." 64 hex digits */
    dot = strchr(t, '.');
    CU_ASSERT_PTR_NOT_NULL_FATAL(dot);
    CU_ASSERT_EQUAL(strlen(dot + 1), 64);
    ASSERT_STR(apr_pstrndup(p, t, (apr_size_t)(dot - t)),
               apr_psprintf(p, "%" APR_TIME_T_FMT, apr_time_sec(NOW + WH_CSRF_TOKEN_TTL)));
    ASSERT_STR(t, TOK(&k1, SESSION, "alice", "retry", "event=5"));
    CU_ASSERT(CHK(&k1, SESSION, "alice", "retry", "event=5", t));
    /* another scope, target, user, session or key: another token */
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "release", "event=5", t));
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=6", t));
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "payment=5", t));
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", NULL, t));
    CU_ASSERT(!CHK(&k1, SESSION, "bob", "retry", "event=5", t));
    CU_ASSERT(!CHK(&k1, SESSION, NULL, "retry", "event=5", t));
    CU_ASSERT(!CHK(&k1, "f123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                   "alice", "retry", "event=5", t));
    CU_ASSERT(!CHK(&k2, SESSION, "alice", "retry", "event=5", t));
    /* user, action and target cannot be shifted into each other */
    CU_ASSERT(strcmp(TOK(&k1, SESSION, "ab", "c", "d"), TOK(&k1, SESSION, "a", "bc", "d")) != 0);
    CU_ASSERT(strcmp(TOK(&k1, SESSION, "a", "bc", "d"), TOK(&k1, SESSION, "a", "b", "cd")) != 0);
    /* tampered, cut, empty, absent */
    {
        char *bad = apr_pstrdup(p, t);
        bad[strlen(bad) - 10] = bad[strlen(bad) - 10] == 'a' ? 'b' : 'a';
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", bad));
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5",
                       apr_pstrndup(p, t, strlen(t) - 1)));
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", apr_pstrcat(p, t, "0", NULL)));
        /* a later expiry written in: the MAC covers it */
        bad = apr_pstrdup(p, t);
        bad[0] = bad[0] == '9' ? '8' : '9';
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", bad));
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", dot + 1));
        CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", apr_pstrcat(p, "0", t, NULL)));
    }
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", ""));
    CU_ASSERT(!CHK(&k1, SESSION, "alice", "retry", "event=5", NULL));
    CU_ASSERT(!CHK(&k1, NULL, "alice", "retry", "event=5", t));
    CU_ASSERT(!CHK(&none, SESSION, "alice", "retry", "event=5", t));
    /* they expire: good until the page is WH_CSRF_TOKEN_TTL old, then
     * said to have expired */
    CU_ASSERT_EQUAL(wh_csrf_check(p, &k1, SESSION, "alice", "retry", "event=5", t,
                                  NOW + WH_CSRF_TOKEN_TTL), WH_CSRF_OK);
    CU_ASSERT_EQUAL(wh_csrf_check(p, &k1, SESSION, "alice", "retry", "event=5", t,
                                  NOW + WH_CSRF_TOKEN_TTL + apr_time_from_sec(1)),
                    WH_CSRF_EXPIRED);
    CU_ASSERT_EQUAL(wh_csrf_check(p, &k1, SESSION, "alice", "retry", "event=6", t,
                                  NOW + WH_CSRF_TOKEN_TTL + apr_time_from_sec(1)),
                    WH_CSRF_BAD);
    /* sessions: random, 64 hex digits */
    s1 = wh_csrf_session_new(p);
    s2 = wh_csrf_session_new(p);
    CU_ASSERT_EQUAL_FATAL(strlen(s1), 64);
    CU_ASSERT(strcmp(s1, s2) != 0);
}

/* A notice's seal: this session's, user's, page's, what's, recent. */
static void test_seals(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_csrf_key k;
    const char *s;

    CU_ASSERT_EQUAL(wh_csrf_key_derive(config_with_secret("secret-one"), &k), 0);
    s = wh_csrf_seal(p, &k, SESSION, "op1", "/quarantine/1", "released:4242", NOW);
    CU_ASSERT_EQUAL_FATAL(strlen(s), 64);
    CU_ASSERT(wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/1", "released:4242",
                                 NOW, s, NOW + apr_time_from_sec(5)));
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/2", "released:4242",
                                  NOW, s, NOW));
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/1", "released:4243",
                                  NOW, s, NOW));
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op2", "/quarantine/1", "released:4242",
                                  NOW, s, NOW));
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/1", "released:4242",
                                  NOW + apr_time_from_sec(1), s, NOW + apr_time_from_sec(1)));
    /* too old, or from the future */
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/1", "released:4242",
                                  NOW, s, NOW + WH_CSRF_NOTICE_TTL + apr_time_from_sec(1)));
    CU_ASSERT(!wh_csrf_seal_check(p, &k, SESSION, "op1", "/quarantine/1", "released:4242",
                                  NOW, s, NOW - apr_time_from_sec(1)));
    /* a seal is not a token */
    CU_ASSERT_PTR_NOT_NULL(s);
    CU_ASSERT(strcmp(s, TOK(&k, SESSION, "op1", "released:4242", "/quarantine/1")) != 0);
}

static void test_cookies(void)
{
    apr_pool_t *p = wh_test_pool();
    const char *n = "wirehook-console";

    ASSERT_STR(wh_csrf_session_from_cookie(p, "wirehook-console=" SESSION, n), SESSION);
    ASSERT_STR(wh_csrf_session_from_cookie(p, "a=1; wirehook-console=" SESSION "; b=2", n), SESSION);
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, "x-wirehook-console=" SESSION, n));
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, "wirehook-console=abc", n));
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, "wirehook-console=" SESSION "0", n));
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(
        p, "wirehook-console=0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", n));
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, "wirehook-console=\"><script>", n));
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, NULL, n));
    /* the first of two decides */
    CU_ASSERT_PTR_NULL(wh_csrf_session_from_cookie(p, "wirehook-console=bad; wirehook-console="
                                                   SESSION, n));
}

static void test_origin(void)
{
    apr_pool_t *p = wh_test_pool();
    CU_ASSERT(wh_csrf_same_origin(p, "http://127.0.0.1:8080", "http", "127.0.0.1:8080"));
    CU_ASSERT(wh_csrf_same_origin(p, "https://Example.COM", "https", "example.com"));
    CU_ASSERT(wh_csrf_same_origin(p, "https://example.com", "https", "example.com:443"));
    CU_ASSERT(wh_csrf_same_origin(p, "http://example.com:80", "http", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "http://127.0.0.1:8081", "http", "127.0.0.1:8080"));
    CU_ASSERT(!wh_csrf_same_origin(p, "http://example.com", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://example.com:8443", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://evil.example", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://example.com.evil.example", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "null", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, NULL, "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://example.com/", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://user@example.com", "https", "example.com"));
    CU_ASSERT(!wh_csrf_same_origin(p, "https://example.com", "https", ""));
    CU_ASSERT(!wh_csrf_same_origin(p, "javascript://example.com", "https", "example.com"));
}

/* ---- pages and actions over an inbox ---------------------------------- */

#define HOSTILE "<img src=x onerror=alert(1)>"

typedef struct {
    fx *f;
    wh_config *cfg;
    wh_console *c;
    wh_console_request req;
    wh_console_response out;
} cfx;

static wh_inbox *given(void *ctx)
{
    return ctx;
}

static cfx *console_fx(void)
{
    apr_pool_t *p = wh_test_pool();
    cfx *x = apr_pcalloc(p, sizeof(*x));
    const char *nid = ix_nid(1);
    const char *body = apr_psprintf(p, "{\"notificationId\":\"%s\",\"eventType\":\"wire.status\","
                                    "\"data\":{\"remittanceInformation\":\"" HOSTILE "\","
                                    "\"note\":\"</script><script>window.__pwned=1</script>\"}}", nid);
    wh_facts fa = ix_facts(nid, "PAY-\"<b>", "Complete");
    wh_verdict v;

    x->f = ix_opened();
    x->cfg = x->f->cfg;
    {
        const char *path = wh_test_tmpfile("console-secret\n", 0600);
        CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(p, path, &x->cfg->secrets));
    }
    CU_ASSERT_EQUAL(wh_inbox_store(x->f->ib, p, &fa, body, strlen(body), apr_time_now(), NULL),
                    WH_INBOX_STORED);
    wh_verdict_init(&v, p);
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "bad <json>");
    CU_ASSERT_EQUAL(wh_inbox_quarantine(x->f->ib, p, &v, "{\"a\":\"" HOSTILE "\"", 30,
                                        apr_time_now()), WH_INBOX_STORED);
    x->c = wh_console_create(p, x->cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->c);
    x->req.method = "GET";
    x->req.base = "/wirehook";
    x->req.user = "reader1";
    x->req.scheme = "http";
    x->req.host_header = "127.0.0.1:8080";
    x->req.host_known = 1;
    x->req.now = apr_time_now();
    return x;
}

static const char *get(cfx *x, const char *sub, const char *query)
{
    x->req.method = "GET";
    x->req.sub_path = sub;
    x->req.query = query;
    wh_console_handle(x->c, given, x->f->ib, &x->req, wh_test_pool(), &x->out);
    return x->out.body;
}

static const char *hdr(const cfx *x, const char *name)
{
    for (int i = 0; x->out.headers && i < x->out.headers->nelts; i++) {
        const wh_console_header *h = &APR_ARRAY_IDX(x->out.headers, i, wh_console_header);
        if (strcasecmp(h->name, name) == 0)
            return h->value;
    }
    return NULL;
}

static void test_pages_escape(void)
{
    cfx *x = console_fx();
    const char *b;

    b = get(x, "/events/1", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    CU_ASSERT(contains(b, "&lt;img src=x onerror=alert(1)&gt;"));
    CU_ASSERT(!contains(b, HOSTILE));
    CU_ASSERT(!contains(b, "<script"));
    CU_ASSERT(contains(b, "&lt;/script&gt;&lt;script&gt;window.__pwned=1"));
    /* the payment id: text escaped, link %-encoded */
    CU_ASSERT(contains(b, "PAY-&quot;&lt;b&gt;"));
    CU_ASSERT(contains(b, "/wirehook/payments/PAY-%22%3Cb%3E"));
    ASSERT_STR(hdr(x, "Content-Security-Policy"),
               "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
               "frame-ancestors 'none'; base-uri 'none'");
    ASSERT_STR(hdr(x, "X-Frame-Options"), "DENY");
    ASSERT_STR(hdr(x, "X-Content-Type-Options"), "nosniff");
    ASSERT_STR(hdr(x, "Referrer-Policy"), "same-origin");
    ASSERT_STR(hdr(x, "Cache-Control"), "no-store");
    CU_ASSERT(contains(hdr(x, "Set-Cookie"), "HttpOnly; SameSite=Strict"));
    CU_ASSERT(contains(hdr(x, "Set-Cookie"), "Path=/wirehook/"));
    /* no secret, ever */
    CU_ASSERT(!contains(b, "console-secret"));
    b = get(x, "/quarantine/1", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    CU_ASSERT(contains(b, "&lt;img src=x"));
    CU_ASSERT(!contains(b, "<img src=x"));
    CU_ASSERT(contains(b, "bad &lt;json&gt;"));
    b = get(x, "/events", "paymentId=%22%3E%3Cscript%3E");
    CU_ASSERT(contains(b, "&quot;&gt;&lt;script&gt;"));
    CU_ASSERT(!contains(b, "\"><script>"));
    /* every page answers, no page shows a form to a reader */
    const char *pages[] = { "", "/", "/events", "/events/1", "/payments", "/payments/PAY-%22%3Cb%3E",
                            "/dead", "/quarantine", "/quarantine/1" };
    for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
        b = get(x, pages[i], NULL);
        CU_ASSERT(x->out.status == 200 || x->out.status == 404);
        CU_ASSERT(!contains(b, "<form class=\"act\""));
        CU_ASSERT(contains(b, "</html>"));
    }
    get(x, "/payments/PAY-\"<b>", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    get(x, "/events/999", NULL);
    CU_ASSERT_EQUAL(x->out.status, 404);
    get(x, "/nothing", NULL);
    CU_ASSERT_EQUAL(x->out.status, 404);
    x->req.method = "DELETE";
    x->req.sub_path = "/events";
    wh_console_handle(x->c, given, x->f->ib, &x->req, wh_test_pool(), &x->out);
    CU_ASSERT_EQUAL(x->out.status, 405);
}

static void test_pages_unavailable(void)
{
    cfx *x = console_fx();
    x->req.sub_path = "/events";
    wh_console_handle(x->c, given, NULL, &x->req, wh_test_pool(), &x->out);
    CU_ASSERT_EQUAL(x->out.status, 503);
    /* back when the inbox is tried again */
    ASSERT_STR(hdr(x, "Retry-After"),
               apr_itoa(wh_test_pool(), (int)apr_time_sec(WH_ENDPOINT_OPEN_RETRY)));
    x->req.sub_path = "/api/events";
    wh_console_handle(x->c, given, NULL, &x->req, wh_test_pool(), &x->out);
    CU_ASSERT_EQUAL(x->out.status, 503);
    CU_ASSERT_PTR_NOT_NULL(hdr(x, "Retry-After"));
    get(x, "/events", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    CU_ASSERT_PTR_NULL(hdr(x, "Retry-After"));
}

static void test_api_and_assets(void)
{
    cfx *x = console_fx();
    const char *b = get(x, "/api/events", "limit=5");
    const char *etag;

    CU_ASSERT_EQUAL(x->out.status, 200);
    ASSERT_STR(x->out.content_type, "application/json");
    CU_ASSERT(contains(b, "\"events\":["));
    CU_ASSERT(contains(b, HOSTILE));      /* JSON: the body as received */
    get(x, "/api/events", "limit=abc");
    CU_ASSERT_EQUAL(x->out.status, 400);
    get(x, "/api/payments/PAY-\"<b>", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    get(x, "/api/payments/none", NULL);
    CU_ASSERT_EQUAL(x->out.status, 404);
    b = get(x, "/assets/console.css", NULL);
    CU_ASSERT_EQUAL(x->out.status, 200);
    CU_ASSERT(contains(x->out.content_type, "text/css"));
    etag = hdr(x, "ETag");
    CU_ASSERT_EQUAL_FATAL(etag ? strlen(etag) : 0, 18);
    CU_ASSERT(contains(hdr(x, "Cache-Control"), "max-age=31536000"));
    x->req.if_none_match = etag;
    get(x, "/assets/console.css", NULL);
    CU_ASSERT_EQUAL(x->out.status, 304);
    x->req.if_none_match = NULL;
    get(x, "/assets/../etc/passwd", NULL);
    CU_ASSERT_EQUAL(x->out.status, 404);
}

/* The token in the first action form of body for the given action. */
static const char *token_in(const char *body, const char *action)
{
    const char *f = strstr(body, apr_pstrcat(wh_test_pool(), "/actions/", action, "\"", NULL));
    const char *t = f ? strstr(f, "name=\"token\" value=\"") : NULL;
    const char *end = t ? strchr(t + 20, '"') : NULL;
    return end ? apr_pstrndup(wh_test_pool(), t + 20, (apr_size_t)(end - t - 20)) : NULL;
}

static const wh_csrf_key *key_of(cfx *x)
{
    wh_csrf_key *k = apr_palloc(wh_test_pool(), sizeof(*k));
    CU_ASSERT_EQUAL(wh_csrf_key_derive(x->cfg, k), 0);
    return k;
}

static void post(cfx *x, const char *action, const char *form)
{
    x->req.method = "POST";
    x->req.sub_path = apr_pstrcat(wh_test_pool(), "/actions/", action, NULL);
    x->req.query = NULL;
    x->req.body = form;
    x->req.body_len = strlen(form);
    x->req.content_type = "application/x-www-form-urlencoded";
    wh_console_handle(x->c, given, x->f->ib, &x->req, wh_test_pool(), &x->out);
}

static void test_actions(void)
{
    cfx *x = console_fx();
    const char *b, *cookie, *token, *sess;
    apr_int64_t held = -1;

    x->req.user = "op1";
    x->req.may_act = 1;
    b = get(x, "/quarantine", NULL);
    /* the body still fails today: no Release offered, the others are */
    CU_ASSERT_PTR_NULL(token_in(b, "release"));
    CU_ASSERT_PTR_NOT_NULL(token_in(b, "acknowledge"));
    CU_ASSERT_PTR_NOT_NULL(token_in(b, "discard"));
    cookie = hdr(x, "Set-Cookie");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cookie);
    sess = apr_pstrndup(wh_test_pool(), cookie + strlen("wirehook-console="), 64);
    token = wh_csrf_token(wh_test_pool(), key_of(x), sess, "op1", "release", "id=1",
                          x->req.now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(token);
    x->req.cookie = apr_pstrcat(wh_test_pool(), "wirehook-console=", sess, NULL);
    x->req.origin = "http://127.0.0.1:8080";

    /* no token, a wrong one, a foreign origin, no origin, another site,
     * no cookie, a reader, ConsoleActions off: 403, nothing released */
    post(x, "release", "id=1");
    CU_ASSERT_EQUAL(x->out.status, 403);
    CU_ASSERT(contains(x->out.audit, "refused release by user op1"));
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", SESSION, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    /* the token of another action */
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=",
                                   wh_csrf_token(wh_test_pool(), key_of(x), sess, "op1", "retry",
                                                 "id=1", x->req.now),
                                   NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.origin = "http://evil.example";
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.origin = NULL;
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.origin = "http://127.0.0.1:8080";
    x->req.fetch_site = "cross-site";
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.fetch_site = "same-origin";
    x->req.cookie = NULL;
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.cookie = apr_pstrcat(wh_test_pool(), "wirehook-console=", sess, NULL);
    x->req.may_act = 0;
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.may_act = 1;
    x->cfg->console_actions = 0;
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    CU_ASSERT(!contains(get(x, "/quarantine", NULL), "<form class=\"act\""));
    x->cfg->console_actions = 1;
    x->req.user = "op2";                     /* another user's token */
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 403);
    x->req.user = "op1";
    CU_ASSERT_EQUAL(wh_inbox_quarantine_held(x->f->ib, wh_test_pool(), &held), 0);
    CU_ASSERT_EQUAL(held, 1);
    /* GET is not an action */
    get(x, "/actions/release", "id=1");
    CU_ASSERT_EQUAL(x->out.status, 405);

    /* the real thing: the body is still invalid, so it stays held */
    post(x, "release", apr_pstrcat(wh_test_pool(), "id=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 303);
    CU_ASSERT(contains(hdr(x, "Location"), "/wirehook/quarantine/1?done=invalid"));
    CU_ASSERT(contains(x->out.audit, "user op1 released quarantined notification 1: invalid"));
    /* a retry before any forwarder ran: nothing to put back */
    b = get(x, "/events/1", NULL);
    token = wh_csrf_token(wh_test_pool(), key_of(x), sess, "op1", "retry", "event=1",
                          x->req.now);
    post(x, "retry", apr_pstrcat(wh_test_pool(), "event=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 303);
    CU_ASSERT(contains(hdr(x, "Location"), "/wirehook/events/1?done=retry&n=0"));
    post(x, "retry", apr_pstrcat(wh_test_pool(), "event=x&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 400);
}

/* A dead letter, retried from the console: back in the queue. */
static void test_retry_dead(void)
{
    cfx *x = console_fx();
    wh_fq *d = NULL;
    wh_fq_cycle_result c;
    apr_array_header_t *o = apr_array_make(wh_test_pool(), 1, sizeof(wh_fq_outcome));
    wh_fq_outcome *out = apr_array_push(o);
    const char *b, *token, *sess;
    apr_time_t now = apr_time_now();

    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), x->f->ib, x->cfg, "t", &d));
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 5, 40000, now, &c), 0);
    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 1);
    memset(out, 0, sizeof(*out));
    out->event_id = 1;
    out->attempt = 1;
    out->state = WH_FQ_DEAD;
    out->http_status = 400;
    out->answer = "HTTP 400: " HOSTILE;
    out->reason = "rejected";
    out->started_at = now;
    out->duration_ms = 7;
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), o, 0, 40000, now, &c), 0);
    x->req.user = "op1";
    x->req.may_act = 1;
    b = get(x, "/dead", NULL);
    CU_ASSERT(contains(b, "400: HTTP 400: &lt;img src=x"));
    CU_ASSERT(!contains(b, HOSTILE));
    token = token_in(b, "retry");
    CU_ASSERT_PTR_NOT_NULL_FATAL(token);
    sess = apr_pstrndup(wh_test_pool(), hdr(x, "Set-Cookie") + strlen("wirehook-console="), 64);
    b = get(x, "/events/1", NULL);
    CU_ASSERT(contains(b, "7 ms"));
    CU_ASSERT(contains(b, "Retry this dead letter"));
    x->req.cookie = apr_pstrcat(wh_test_pool(), "wirehook-console=", sess, NULL);
    x->req.origin = "http://127.0.0.1:8080";
    post(x, "retry", apr_pstrcat(wh_test_pool(), "back=dead&event=1&token=", token, NULL));
    CU_ASSERT_EQUAL(x->out.status, 303);
    CU_ASSERT(contains(hdr(x, "Location"), "/wirehook/dead?done=retry&n=1"));
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 5, 40000, now, &c), 0);
    CU_ASSERT_EQUAL(c.leases->nelts, 1);
}

static const wh_test_case cases[] = {
    { "escape: markup in values", test_escape_markup },
    { "escape: invalid UTF-8, controls, bounds", test_escape_bytes },
    { "escape: a megabyte of markup, bounded page", test_escape_long },
    { "url parts: %-encoded, no scheme gets in", test_url_part },
    { "form values: decoding, bad escapes", test_form_values },
    { "tokens: derived key, scope, user, session", test_tokens },
    { "notices: sealed for session, page, what, time", test_seals },
    { "tokens: session cookie parsing", test_cookies },
    { "origin: same origin only", test_origin },
    { "pages: hostile values shown as text, headers", test_pages_escape },
    { "pages: inbox unavailable is 503", test_pages_unavailable },
    { "api and assets", test_api_and_assets },
    { "actions: refused without token, origin, role", test_actions },
    { "actions: a dead letter retried", test_retry_dead },
    { NULL, NULL }
};

WH_TEST_SUITE(console, cases)
