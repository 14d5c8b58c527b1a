/* Strict JSON parsing: exactly one RFC 8259 value, valid UTF-8, bounded
 * nesting, and the places where json-c's own strict mode is laxer.
 *
 * Every body here is parsed twice: by the test oracle's parser (the json-c
 * tree wirehook used to build, tests/oracle/wh_json_tree.c), whose answers
 * the assertions name, and by the one pass that replaced it
 * (wh_schema_check), which must accept and refuse exactly the same bodies,
 * for the same reason where the reason is wirehook's own words. */
#include "wh_test.h"
#include "oracle/wh_json_tree.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <locale.h>
#include <string.h>

/* Where the oracle's reason is json-c's own wording (its grammar errors,
 * its end of input), the one pass words the fault itself: it may name
 * another fault first, or the same one differently. */
static int json_c_wording(const char *why)
{
    return strncmp(why, "invalid JSON at offset", 22) == 0
           || strncmp(why, "truncated JSON", 14) == 0;
}

/* The one pass's answer for the same bytes, against the oracle's: NULL
 * when they agree, or what differs. */
static const char *one_pass_differs(const char *s, apr_size_t len,
                                    const char *oracle_why)
{
    const char *why = NULL;
    int n = wh_schema_check(wh_test_pool(), s, len, NULL, NULL, NULL, &why);

    if ((n == WH_SCHEMA_NOT_JSON) != (oracle_why != NULL))
        return apr_psprintf(wh_test_pool(), "one pass %s, oracle %s",
                            why ? why : "accepts", oracle_why ? oracle_why : "accepts");
    if (why && !json_c_wording(oracle_why) && strcmp(why, oracle_why) != 0)
        return apr_psprintf(wh_test_pool(), "one pass \"%s\", oracle \"%s\"",
                            why, oracle_why);
    return NULL;
}

/* Parses len bytes, which may hold NULs, with the oracle, and checks the
 * one pass agrees. */
static const char *parse_n(const char *s, apr_size_t len, json_object **out)
{
    const char *why = wh_json_tree_parse(wh_test_pool(), s, len, out);
    const char *d = one_pass_differs(s, len, why);

    if (d)
        CU_assertImplementation(CU_FALSE, __LINE__, d, __FILE__, "", CU_TRUE);
    return why;
}

/* Parses a NUL-terminated literal (the NUL not included). */
static const char *parse(const char *s, json_object **out)
{
    return parse_n(s, strlen(s), out);
}

static void expect_error(const char *body, apr_size_t len, const char *want,
                         int line)
{
    json_object *o = (json_object *)1;
    const char *err = parse_n(body, len, &o);
    const char *msg = apr_psprintf(wh_test_pool(), "want \"%s\", got \"%s\"",
                                   want, err ? err : "(accepted)");
    CU_assertImplementation(err && strcmp(err, want) == 0, (unsigned)line,
                            msg, __FILE__, "", CU_FALSE);
    CU_assertImplementation(o == NULL, (unsigned)line,
                            "*out is NULL after an error", __FILE__, "",
                            CU_FALSE);
}

static void expect_ok(const char *body, apr_size_t len, int line)
{
    json_object *o = NULL;
    const char *err = parse_n(body, len, &o);
    const char *msg = apr_psprintf(wh_test_pool(), "want success, got \"%s\"",
                                   err ? err : "");
    CU_assertImplementation(err == NULL, (unsigned)line, msg, __FILE__, "",
                            CU_FALSE);
}

#define BAD(body, want) expect_error((body), strlen(body), (want), __LINE__)
#define BAD_N(body, want) \
    expect_error((body), sizeof(body) - 1, (want), __LINE__)
#define OK(body) expect_ok((body), strlen(body), __LINE__)

/* n nested containers; leaf (may be "") sits in the innermost one. */
static char *nested(int n, int objects, const char *leaf)
{
    apr_pool_t *p = wh_test_pool();
    char *s = "";
    for (int i = 0; i < n; i++)
        s = objects ? apr_pstrcat(p, "{\"k\":", s, NULL)
                    : apr_pstrcat(p, "[", s, NULL);
    s = apr_pstrcat(p, s, leaf, NULL);
    for (int i = 0; i < n; i++)
        s = apr_pstrcat(p, s, objects ? "}" : "]", NULL);
    return s;
}

static void test_valid_object(void)
{
    json_object *o = NULL, *v = NULL;
    CU_ASSERT_PTR_NULL(parse("{\"a\": [1, 2.5, \"x\", true, null]}", &o));
    CU_ASSERT_FATAL(json_object_is_type(o, json_type_object));
    CU_ASSERT(json_object_object_get_ex(o, "a", &v));
    CU_ASSERT_EQUAL(json_object_array_length(v), 5);
}

static void test_surrounding_whitespace_ok(void)
{
    OK(" \t\r\n{\"a\":1} \t\r\n");
    OK("[]\n");
}

static void test_top_level_scalars(void)
{
    json_object *o = NULL;
    CU_ASSERT_PTR_NULL(parse("12", &o));
    CU_ASSERT(json_object_is_type(o, json_type_int));
    CU_ASSERT_EQUAL(json_object_get_int(o), 12);
    CU_ASSERT_PTR_NULL(parse("\"s\"", &o));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(o), "s");
    /* json-c represents JSON null as a NULL object. */
    o = (json_object *)1;
    CU_ASSERT_PTR_NULL(parse("null", &o));
    CU_ASSERT_PTR_NULL(o);
}

static void test_empty_body(void)
{
    BAD("", "empty body");
    json_object *o = NULL;
    CU_ASSERT_STRING_EQUAL(wh_json_tree_parse(wh_test_pool(), NULL, 0, &o),
                           "empty body");
    {
        const char *why = NULL;
        CU_ASSERT_EQUAL(wh_schema_check(wh_test_pool(), NULL, 0, NULL, NULL, NULL, &why),
                        WH_SCHEMA_NOT_JSON);
        ASSERT_STR(why, "empty body");
    }
}

static void test_whitespace_only(void)
{
    BAD(" \r\n\t ", "empty body");
}

static void test_trailing_garbage(void)
{
    BAD("{\"a\":1} x", "unexpected bytes after the JSON value at offset 8");
    BAD("{\"a\":1}\n\n;", "unexpected bytes after the JSON value at offset 9");
    BAD("12 x", "unexpected bytes after the JSON value at offset 3");
}

static void test_two_values(void)
{
    BAD("{} {}", "unexpected bytes after the JSON value at offset 3");
    BAD("1 2", "unexpected bytes after the JSON value at offset 2");
}

/* Only RFC 8259's four whitespace characters count as padding. */
static void test_other_whitespace_is_garbage(void)
{
    BAD("{}\f", "unexpected bytes after the JSON value at offset 2");
    BAD("{}\v", "unexpected bytes after the JSON value at offset 2");
}

static void test_length_is_respected(void)
{
    json_object *o = NULL;
    const char *buf = "{\"a\":1}garbage";
    CU_ASSERT_PTR_NULL(parse_n(buf, 7, &o));
    CU_ASSERT(json_object_is_type(o, json_type_object));
    /* A cut-off buffer is truncated JSON, not read past. */
    BAD_N("{\"a\"", "truncated JSON (the body ends inside the value)");
}

static void test_invalid_utf8_overlong(void)
{
    BAD_N("\"\xC0\xAF\"", "invalid UTF-8 at offset 1");
    BAD_N("\"\xE0\x80\xAF\"", "invalid UTF-8 at offset 1");
    BAD_N("\"\xF0\x80\x80\xAF\"", "invalid UTF-8 at offset 1");
}

static void test_invalid_utf8_lone_continuation(void)
{
    BAD_N("\"\x80\"", "invalid UTF-8 at offset 1");
    BAD_N("{\"a\":\"x\xBFy\"}", "invalid UTF-8 at offset 7");
}

static void test_invalid_utf8_surrogate(void)
{
    BAD_N("\"\xED\xA0\x80\"", "invalid UTF-8 at offset 1");
    BAD_N("\"\xED\xBF\xBF\"", "invalid UTF-8 at offset 1");
}

static void test_invalid_utf8_other(void)
{
    BAD_N("\"\xF4\x90\x80\x80\"", "invalid UTF-8 at offset 1"); /* above U+10FFFF */
    BAD_N("\"\xF5\x80\x80\x80\"", "invalid UTF-8 at offset 1");
    BAD_N("\"\xFF\"", "invalid UTF-8 at offset 1");
    BAD_N("\"\xC3\"", "invalid UTF-8 at offset 1"); /* cut sequence */
    BAD_N("\"\xE2\x82\"", "invalid UTF-8 at offset 1");
}

/* Validation resumes after each well-formed sequence, so the offset is
 * that of the first bad byte; outside strings non-ASCII is a grammar
 * error json-c reports. */
static void test_invalid_utf8_offsets(void)
{
    BAD_N("[\"\xC3\xA9\xE2\x82\xAC\", \"ok\xED\xA0\x80\"]",
          "invalid UTF-8 at offset 13");
    BAD_N("{\"k\xC3\xA9\":\"v\"\xFF}", "invalid JSON at offset 10: "
          "object value separator ',' expected");
}

static void test_valid_utf8_kept(void)
{
    json_object *o = NULL;
    /* é, €, U+10FFFF, and an escaped surrogate pair. */
    CU_ASSERT_PTR_NULL(parse("\"\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF\"", &o));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(o),
                           "\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF");
    CU_ASSERT_PTR_NULL(parse("\"\\ud83d\\ude00\"", &o));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(o), "\xF0\x9F\x98\x80");
}

static void test_nul_byte(void)
{
    BAD_N("{\"a\":\"x\0y\"}", "NUL byte at offset 7");
    /* A caller counting the C terminator must not slip it through. */
    BAD_N("{}\0", "NUL byte at offset 2");
}

static void test_escaped_nul_rejected(void)
{
    BAD("{\"status\":\"Complete\\u0000x\"}", "\\u0000 escape at offset 19");
    BAD("{\"a\\u0000b\":1}", "\\u0000 escape at offset 3");
    /* An escaped backslash followed by u0000 is plain text. */
    OK("{\"a\":\"\\\\u0000\"}");
}

static void test_depth_32_ok(void)
{
    OK(nested(32, 0, ""));
    OK(nested(32, 0, "1"));
    OK(nested(32, 1, "1"));
    OK(nested(31, 1, "[]"));
}

static void test_depth_33_fails(void)
{
    BAD(nested(33, 0, ""), "nesting deeper than 32");
    BAD(nested(33, 0, "1"), "nesting deeper than 32");
    BAD(nested(33, 1, "1"), "nesting deeper than 32");
    BAD(nested(32, 1, "[]"), "nesting deeper than 32");
    BAD(nested(200, 0, ""), "nesting deeper than 32");
}

static void test_truncated(void)
{
    const char *want = "truncated JSON (the body ends inside the value)";
    BAD("{\"a\":", want);
    BAD("{\"a\":1", want);
    BAD("[1,", want);
    BAD("\"abc", want);
    BAD("tru", want);
    BAD("-", want);
}

static void test_single_quotes(void)
{
    /* json-c 0.16 accepts this one even in strict mode. */
    BAD("{'a':1}", "single-quoted string at offset 1");
    BAD("{\"a\":'x'}", "invalid JSON at offset 5: unexpected character");
}

static void test_trailing_comma(void)
{
    BAD("{\"a\":1,}", "invalid JSON at offset 7: unexpected character");
    BAD("[1,]", "invalid JSON at offset 3: unexpected character");
}

static void test_non_json_numbers(void)
{
    BAD("NaN", "invalid number or literal at offset 0");
    BAD("[Infinity]", "invalid number or literal at offset 1");
    BAD("[-Infinity]", "invalid number or literal at offset 1");
    BAD("{\"a\":-01}", "invalid number or literal at offset 5");
    BAD("[1.]", "invalid number or literal at offset 1");
    BAD("01", "truncated JSON (the body ends inside the value)");
    BAD("[+1]", "invalid JSON at offset 1: unexpected character");
    BAD("[.5]", "invalid JSON at offset 1: unexpected character");
}

static void test_json_numbers_ok(void)
{
    OK("[0, -0, 1.5, -1.25e3, 1E+2, 2e-2, 10]");
    OK("-0.0");
}

static void test_bad_literals(void)
{
    BAD("True", "invalid JSON at offset 0: boolean expected");
    BAD("[NULL]", "invalid JSON at offset 2: null expected");
}

static void test_control_character_in_string(void)
{
    BAD("{\"a\":\"x\ty\"}", "control character inside a string at offset 7");
    BAD("\"a\nb\"", "control character inside a string at offset 2");
    OK("\"a\\tb\\n\"");
}

/* before, n bytes of mid (which may hold a NUL), after: *len bytes. */
static const char *framed(apr_pool_t *p, const char *before, const char *mid,
                          apr_size_t n, const char *after, apr_size_t *len)
{
    apr_size_t b = strlen(before), a = strlen(after);
    char *buf = apr_palloc(p, b + n + a + 1);
    memcpy(buf, before, b);
    memcpy(buf + b, mid, n);
    memcpy(buf + b + n, after, a + 1);
    *len = b + n + a;
    return buf;
}

/* The string scan reads eight bytes at a time: every byte value, at every
 * place in a word (and past the first word), in a member name and in a
 * value, is judged as a byte-by-byte reading judges it. NULL, or what went
 * wrong. */
enum { SCAN_LEN = 20 };

static const char *judge_byte_in_string(apr_pool_t *p, int in_name, int at,
                                        unsigned b)
{
    const char *where = in_name ? "name" : "value";
    /* {"<text>":1} or {"k":"<text>"} */
    const char *before = in_name ? "{\"" : "{\"k\":\"";
    char text[SCAN_LEN + 1];
    apr_size_t off = strlen(before) + (apr_size_t)at, len;
    json_object *o = NULL, *v = NULL;
    const char *body, *err, *want = NULL;

    memset(text, 'a', SCAN_LEN);
    text[SCAN_LEN] = '\0';
    text[at] = (char)b;
    body = framed(p, before, text, SCAN_LEN, in_name ? "\":1}" : "\"}", &len);
    err = parse_n(body, len, &o);
    if (b == 0)
        want = apr_psprintf(p, "NUL byte at offset %" APR_SIZE_T_FMT, off);
    else if (b < 0x20)
        want = apr_psprintf(p, "control character inside a string at "
                            "offset %" APR_SIZE_T_FMT, off);
    else if (b >= 0x80)
        want = apr_psprintf(p, "invalid UTF-8 at offset %" APR_SIZE_T_FMT, off);

    if (want)
        return err && strcmp(err, want) == 0 ? NULL
               : apr_psprintf(p, "byte 0x%02x at %d (%s): want \"%s\", got "
                              "\"%s\"", b, at, where, want,
                              err ? err : "(accepted)");
    if (b == '"' || b == '\\') /* ends the string early, or escapes an 'a' */
        return err ? NULL : apr_psprintf(p, "byte 0x%02x at %d (%s) accepted",
                                         b, at, where);
    if (err)
        return apr_psprintf(p, "byte 0x%02x at %d (%s): %s", b, at, where, err);
    if (in_name ? !json_object_object_get_ex(o, text, NULL)
                : !json_object_object_get_ex(o, "k", &v)
                      || strcmp(json_object_get_string(v), text) != 0)
        return apr_psprintf(p, "byte 0x%02x at %d (%s) changed", b, at, where);
    return NULL;
}

static void test_every_byte_in_strings(void)
{
    for (int in_name = 0; in_name <= 1; in_name++)
        for (int at = 0; at < SCAN_LEN; at++)
            for (unsigned b = 0; b < 256; b++) {
                const char *why = judge_byte_in_string(wh_test_pool(),
                                                       in_name, at, b);
                if (why) { /* the first is enough */
                    CU_assertImplementation(CU_FALSE, __LINE__, why,
                                            __FILE__, "", CU_FALSE);
                    return;
                }
            }
    CU_PASS("every byte judged as a byte-by-byte reading would");
}

/* Well-formed sequences of two, three and four bytes at every place in a
 * word, and one cut short by the string's end at every place. */
static void test_utf8_at_every_place(void)
{
    static const char *const seqs[] = { "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80" };
    apr_pool_t *p = wh_test_pool();

    for (int k = 0; k < 3; k++) {
        for (int at = 0; at < 20; at++) {
            char *text = apr_pstrcat(p, apr_pstrndup(p, "aaaaaaaaaaaaaaaaaaaa", (apr_size_t)at),
                                     seqs[k], "bbbbbbbbbb", NULL);
            char *body = apr_pstrcat(p, "[\"", text, "\"]", NULL);
            char *cut = apr_pstrcat(p, "[\"", apr_pstrndup(p, "aaaaaaaaaaaaaaaaaaaa", (apr_size_t)at),
                                    apr_pstrndup(p, seqs[k], strlen(seqs[k]) - 1), "\"]", NULL);
            json_object *o = NULL;
            const char *err = parse(body, &o);
            const char *want = apr_psprintf(p, "invalid UTF-8 at offset %d", 2 + at);

            CU_ASSERT_PTR_NULL(err);
            if (!err)
                CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(o, 0)),
                                       text);
            err = parse(cut, &o);
            CU_ASSERT_PTR_NOT_NULL_FATAL(err);
            CU_ASSERT_STRING_EQUAL(err, want);
        }
    }
}

/* Whitespace is skipped eight bytes at a time. A run of n spaces with the
 * byte c at place at (at < 0: none) is put after each kind of mark (an
 * opening and a closing bracket, a comma, a colon), and after the value: both judged as a byte-by-byte reading judges them. NULL, or what
 * went wrong. */
static const char *judge_whitespace_run(apr_pool_t *p, int n, int at,
                                        unsigned c)
{
    char *ws = apr_palloc(p, (apr_size_t)n + 1);
    const char *body;
    apr_size_t len;
    int allowed = at < 0 || c == ' ' || c == '\n' || c == '\t' || c == '\r';
    /* where the run stops: after "[1, 2]" and the run, or at the byte */
    apr_size_t stop = 6 + (apr_size_t)(allowed ? n : at);
    const char *err, *want;
    json_object *o = NULL;

    memset(ws, ' ', (apr_size_t)n);
    ws[n] = '\0';
    if (at >= 0)
        ws[at] = (char)c;
    /* after each mark, before a string (no byte turns "s" into a value) */
    for (int k = 0; k < 5; k++) {
        static const char *const before[] = { "[", "[1,", "[1, ", "{\"a\":", "[[]" };
        static const char *const after[] = { "\"s\"]", "\"s\"]", "\"s\"]", "\"s\"}", ",\"s\"]" };
        body = framed(p, before[k], ws, (apr_size_t)n, after[k], &len);
        err = parse_n(body, len, &o);
        if (allowed ? err != NULL : err == NULL)
            return apr_psprintf(p, "run %d, byte 0x%02x at %d, after %s: %s", n,
                                c, at, before[k], err ? err : "(accepted)");
    }
    body = framed(p, "[1, 2]", ws, (apr_size_t)n, "x", &len);
    err = parse_n(body, len, &o);
    want = c == 0 && !allowed
           ? apr_psprintf(p, "NUL byte at offset %" APR_SIZE_T_FMT, stop)
           : apr_psprintf(p, "unexpected bytes after the JSON value at offset %"
                          APR_SIZE_T_FMT, stop);
    if (!err || strcmp(err, want) != 0)
        return apr_psprintf(p, "run %d, byte 0x%02x at %d, after the value: "
                            "want \"%s\", got \"%s\"", n, c, at, want,
                            err ? err : "(accepted)");
    return NULL;
}

/* Runs of every length up to 40 with each of the other whitespace bytes
 * and the look-alikes (form feed, vertical tab, no-break space) at every
 * place; runs of 9 and 17 with every byte value at every place. */
static void test_whitespace_runs(void)
{
    static const unsigned char some[] = { '\n', '\t', '\r', '\f', '\v', 0xA0 };
    const char *why = NULL;

    for (int n = 0; n <= 40 && !why; n++) {
        why = judge_whitespace_run(wh_test_pool(), n, -1, ' ');
        for (int at = 0; at < n && !why; at++)
            for (size_t k = 0; k < sizeof(some) && !why; k++)
                why = judge_whitespace_run(wh_test_pool(), n, at, some[k]);
    }
    for (int n = 9; n <= 17 && !why; n += 8)
        for (int at = 0; at < n && !why; at++)
            for (unsigned c = 0; c < 256 && !why; c++)
                why = judge_whitespace_run(wh_test_pool(), n, at, c);
    if (why)
        CU_assertImplementation(CU_FALSE, __LINE__, why, __FILE__, "", CU_FALSE);
    else
        CU_PASS("every run ends where a byte-by-byte reading ends it");
}

static void test_comments_and_bare_names(void)
{
    BAD("/* c */{}", "invalid JSON at offset 0: unexpected character");
    BAD("{a:1}", "invalid JSON at offset 1: quoted object property name "
                 "expected");
}

static void test_duplicate_member(void)
{
    BAD("{\"status\":\"Reject\",\"status\":\"Complete\"}",
        "duplicate member name in an object");
    BAD("{\"a\":{\"b\":1,\"b\":2}}", "duplicate member name in an object");
    /* The same name in different objects is fine. */
    OK("{\"b\":{\"b\":1},\"c\":[{\"b\":1},{\"b\":2}]}");
}

static void test_byte_order_mark(void)
{
    BAD("\xEF\xBB\xBF{}", "byte order mark before the JSON value");
}

/* Where the oracle passes json-c's words on, the one pass has its own:
 * the offset of the fault and what was expected there. */
static void one_pass_says(const char *body, const char *want, int line)
{
    const char *why = NULL;
    int n = wh_schema_check(wh_test_pool(), body, strlen(body), NULL, NULL, NULL, &why);
    const char *msg = apr_psprintf(wh_test_pool(), "want \"%s\", got \"%s\"", want,
                                   why ? why : "(accepted)");
    CU_assertImplementation(n == WH_SCHEMA_NOT_JSON && why && strcmp(why, want) == 0,
                            (unsigned)line, msg, __FILE__, "", CU_FALSE);
}

#define ONE_PASS(body, want) one_pass_says((body), (want), __LINE__)

static void test_one_pass_grammar_words(void)
{
    const char *trunc = "truncated JSON (the body ends inside the value)";
    ONE_PASS("{\"a\"", trunc);
    ONE_PASS("[1,", trunc);
    ONE_PASS("\"ab\\", trunc);
    ONE_PASS("\"\\u12", trunc);
    ONE_PASS("tru", "invalid number or literal at offset 0");
    ONE_PASS("01", "invalid number or literal at offset 0");
    ONE_PASS("True", "invalid number or literal at offset 0");
    ONE_PASS("[+1]", "invalid number or literal at offset 1");
    ONE_PASS("{\"a\":'x'}", "single-quoted string at offset 5");
    ONE_PASS("{\"a\":1,}", "invalid JSON at offset 7: unexpected character");
    ONE_PASS("[1,]", "invalid JSON at offset 3: unexpected character");
    ONE_PASS("/* c */{}", "invalid JSON at offset 0: unexpected character");
    ONE_PASS("{a:1}", "invalid JSON at offset 1: quoted object property name expected");
    ONE_PASS("{\"a\" 1}", "invalid JSON at offset 5: object property name separator "
                          "':' expected");
    ONE_PASS("{\"a\":1 \"b\":2}", "invalid JSON at offset 7: object value separator "
                                 "',' expected");
    ONE_PASS("[1 2]", "invalid JSON at offset 3: array value separator ',' expected");
    ONE_PASS("[\"\\x\"]", "invalid JSON at offset 3: invalid string sequence");
    ONE_PASS("[\"\\u12G4\"]", "invalid JSON at offset 3: invalid string sequence");
    ONE_PASS("{\"k\xC3\xA9\":\"v\"\xFF}", "invalid JSON at offset 10: object value "
                                          "separator ',' expected");
}

static void test_errors_do_not_echo_body(void)
{
    json_object *o = NULL;
    const char *bodies[] = {
        "{\"canary\": canary}", "{\"canary\":1} canary", "'canary'",
        "{\"canary\":\"canary\ttab\"}", "[canary", NULL
    };
    for (int i = 0; bodies[i]; i++) {
        const char *err = parse(bodies[i], &o), *why = NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(err);
        CU_ASSERT_PTR_NULL(strstr(err, "canary"));
        wh_schema_check(wh_test_pool(), bodies[i], strlen(bodies[i]), NULL, NULL, NULL, &why);
        CU_ASSERT_PTR_NOT_NULL_FATAL(why);
        CU_ASSERT_PTR_NULL(strstr(why, "canary"));
    }
}

static void test_pool_cleanup_releases(void)
{
    apr_pool_t *sub;
    json_object *o = NULL;
    apr_pool_create(&sub, wh_test_pool());
    CU_ASSERT_PTR_NULL_FATAL(wh_json_tree_parse(sub, "{\"a\":[1]}", 9, &o));
    json_object_get(o); /* our own reference */
    apr_pool_destroy(sub);
    /* The pool dropped its reference, so ours is the last one. */
    CU_ASSERT_EQUAL(json_object_put(o), 1);
}

static void test_samples_parse(void)
{
    const char *names[] = {
        "wire-status-complete.json", "wire-status-exception.json",
        "wire-status-processed-as-in-spec-sample.json",
        "list-response-as-in-spec-sample.json", NULL
    };
    for (int i = 0; names[i]; i++) {
        apr_size_t len = 0;
        json_object *o = NULL;
        char *path = apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                                 "/samples/", names[i], NULL);
        char *body = wh_test_slurp(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(body);
        CU_ASSERT_PTR_NULL(parse_n(body, len, &o));
        CU_ASSERT(json_object_is_type(o, json_type_object));
    }
}

/* The parse switches the thread to the "C" locale object and back (json-c
 * would otherwise copy the thread's locale on every call): whatever locale
 * the caller's thread had, it has again afterwards, after a success and
 * after an error, and numbers still read with a dot. */
static void expect_locale_kept(locale_t mine)
{
    json_object *o = NULL, *v = NULL;

    CU_ASSERT_PTR_NULL(parse("{\"a\":1.25,\"b\":[2.5e1]}", &o));
    CU_ASSERT(uselocale((locale_t)0) == mine);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "a", &v));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 1.25, 1e-12);
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "b", &v));
    CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(json_object_array_get_idx(v, 0)),
                           25.0, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(parse("{\"a\":1.}", &o));
    CU_ASSERT(uselocale((locale_t)0) == mine);
    CU_ASSERT_PTR_NOT_NULL(parse("[1,", &o));
    CU_ASSERT(uselocale((locale_t)0) == mine);
}

static void test_thread_locale_kept(void)
{
    locale_t utf8 = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
    locale_t before = uselocale((locale_t)0);

    if (!utf8) /* a copy: another object than the "C" one the parse uses */
        utf8 = duplocale(LC_GLOBAL_LOCALE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(utf8);
    uselocale(LC_GLOBAL_LOCALE);
    expect_locale_kept(LC_GLOBAL_LOCALE);
    uselocale(utf8);
    expect_locale_kept(utf8);
    uselocale(before);
    freelocale(utf8);
}

static const wh_test_case json_cases[] = {
    {"valid object", test_valid_object},
    {"surrounding whitespace ok", test_surrounding_whitespace_ok},
    {"top-level scalars", test_top_level_scalars},
    {"empty body", test_empty_body},
    {"whitespace only", test_whitespace_only},
    {"trailing garbage", test_trailing_garbage},
    {"two values", test_two_values},
    {"other whitespace is garbage", test_other_whitespace_is_garbage},
    {"length is respected", test_length_is_respected},
    {"invalid UTF-8: overlong", test_invalid_utf8_overlong},
    {"invalid UTF-8: lone continuation", test_invalid_utf8_lone_continuation},
    {"invalid UTF-8: encoded surrogate", test_invalid_utf8_surrogate},
    {"invalid UTF-8: other", test_invalid_utf8_other},
    {"invalid UTF-8: offsets", test_invalid_utf8_offsets},
    {"valid UTF-8 kept", test_valid_utf8_kept},
    {"NUL byte", test_nul_byte},
    {"escaped NUL rejected", test_escaped_nul_rejected},
    {"depth 32 ok", test_depth_32_ok},
    {"depth 33 fails", test_depth_33_fails},
    {"truncated", test_truncated},
    {"single quotes", test_single_quotes},
    {"trailing comma", test_trailing_comma},
    {"non-JSON numbers", test_non_json_numbers},
    {"JSON numbers ok", test_json_numbers_ok},
    {"bad literals", test_bad_literals},
    {"control character in string", test_control_character_in_string},
    {"every byte in strings", test_every_byte_in_strings},
    {"UTF-8 at every place", test_utf8_at_every_place},
    {"whitespace runs", test_whitespace_runs},
    {"comments and bare names", test_comments_and_bare_names},
    {"duplicate member", test_duplicate_member},
    {"byte order mark", test_byte_order_mark},
    {"one pass: its own words for grammar faults", test_one_pass_grammar_words},
    {"errors do not echo body", test_errors_do_not_echo_body},
    {"pool cleanup releases", test_pool_cleanup_releases},
    {"samples parse", test_samples_parse},
    {"thread locale kept", test_thread_locale_kept},
    {NULL, NULL}
};

WH_TEST_SUITE(json, json_cases)
