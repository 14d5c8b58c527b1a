/* The JSON half of both in-process floors (bench/mod_benchok.c's
 * benchfloor handler and bench/bench_core.c's floor), with json-c alone:
 * no wirehook code, so the floors measure the library, called the cheapest
 * way there is. One tokener per
 * thread, reset for each parse, and the parse run in the "C" locale object:
 * json_tokener_parse() would allocate a tokener and duplicate the thread's
 * locale on every call, the latter under glibc's process-wide locale lock. */
#ifndef FLOOR_JSON_H
#define FLOOR_JSON_H
#include <json-c/json.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_key_t floor_tokener_key;
static locale_t floor_c_locale;
static pthread_once_t floor_json_once = PTHREAD_ONCE_INIT;

static void floor_tokener_free(void *tok)
{
    json_tokener_free(tok);
}

static void floor_json_init(void)
{
    if (pthread_key_create(&floor_tokener_key, floor_tokener_free) != 0)
        abort();
    floor_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* body (NUL-terminated) parsed and the tree freed; its member count when it
 * is one JSON value (0 for a scalar or an empty object), -1 when not. */
static long floor_json_parse(const char *body)
{
    struct json_tokener *tok;
    json_object *root;
    locale_t prev = (locale_t)0;
    long members = -1;

    pthread_once(&floor_json_once, floor_json_init);
    if (!(tok = pthread_getspecific(floor_tokener_key))) {
        if (!(tok = json_tokener_new()) || pthread_setspecific(floor_tokener_key, tok) != 0)
            abort();
    }
    json_tokener_reset(tok);
    if (floor_c_locale)
        prev = uselocale(floor_c_locale);
    /* -1: up to the NUL, as json_tokener_parse() reads it */
    root = json_tokener_parse_ex(tok, body, -1);
    if (prev)
        uselocale(prev);
    if (json_tokener_get_error(tok) == json_tokener_success)
        members = json_object_is_type(root, json_type_object)
                  ? (long)json_object_object_length(root) : 0;
    json_object_put(root);
    return members;
}

#endif
