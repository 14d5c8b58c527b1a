/* A probe's body: the ops of "body" and "after_signing" (docs/probe.md)
 * run over the notification's JSON tree, then over its bytes. The tree is
 * serialised compactly by json-c; the signature covers whatever bytes
 * come out, so another runner may serialise differently and still probe
 * the same thing. */
#include "wh_probe_int.h"
#include <apr_strings.h>
#include <string.h>

#define SERIALISE (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static apr_status_t put_json(void *data)
{
    json_object_put(data);
    return APR_SUCCESS;
}

static const char *serialise(apr_pool_t *p, json_object *o, apr_size_t *len)
{
    size_t n = 0;
    const char *s = o ? json_object_to_json_string_length(o, SERIALISE, &n)
                      : "null";
    if (!o)
        n = 4;
    if (len)
        *len = n;
    return apr_pstrmemdup(p, s, n);
}

const char *wh_probe_body_snapshot(apr_pool_t *p, const wh_body_state *st,
                                   apr_size_t *len)
{
    if (st->tree)
        return serialise(p, st->tree, len);
    *len = st->len;
    return st->text;
}

void wh_probe_body_bytes(apr_pool_t *p, wh_body_state *st)
{
    if (st->tree) {
        st->text = (char *)serialise(p, st->tree, &st->len);
        st->tree = NULL; /* freed with the pool (wh_probe_request.c) */
    }
}

/* One RFC 6901 token from s up to the next '/', unescaped. */
static const char *token(apr_pool_t *p, const char *s, const char **next)
{
    const char *end = strchr(s, '/');
    apr_size_t n = end ? (apr_size_t)(end - s) : strlen(s);
    char *t = apr_palloc(p, n + 1), *o = t;
    for (apr_size_t i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
            *o++ = s[i + 1] == '0' ? '~' : '/';
            i++;
        }
        else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    *next = end ? end + 1 : NULL;
    return t;
}

static int array_index(const char *t, size_t len, size_t *out)
{
    char *end;
    if (!*t || (t[0] == '0' && t[1]) || t[0] < '0' || t[0] > '9')
        return -1;
    unsigned long v = strtoul(t, &end, 10);
    if (*end || v >= len)
        return -1;
    *out = v;
    return 0;
}

const char *wh_probe_pointer_parent(apr_pool_t *p, json_object *root,
                                    const char *pointer, json_object **parent,
                                    const char **last)
{
    json_object *cur = root;
    const char *s, *next;

    if (!pointer || pointer[0] != '/')
        return "a JSON pointer starts with /";
    s = pointer + 1;
    for (;;) {
        const char *t = token(p, s, &next);
        if (!next) {
            *parent = cur;
            *last = t;
            return NULL;
        }
        json_object *child = NULL;
        size_t idx;
        if (json_object_is_type(cur, json_type_object))
            json_object_object_get_ex(cur, t, &child);
        else if (json_object_is_type(cur, json_type_array)
                 && array_index(t, json_object_array_length(cur), &idx) == 0)
            child = json_object_array_get_idx(cur, idx);
        if (!child)
            return apr_psprintf(p, "%s: no such member in the notification",
                                pointer);
        cur = child;
        s = next;
    }
}

/* at := v (v owned by the tree afterwards, even on failure). */
static const char *put_at(apr_pool_t *p, json_object *root, const char *at,
                          json_object *v)
{
    json_object *parent;
    const char *last, *err;
    size_t idx;

    if ((err = wh_probe_pointer_parent(p, root, at, &parent, &last)) != NULL) {
        json_object_put(v);
        return err;
    }
    if (json_object_is_type(parent, json_type_object)) {
        json_object_object_add(parent, last, v);
        return NULL;
    }
    if (json_object_is_type(parent, json_type_array)
        && array_index(last, json_object_array_length(parent), &idx) == 0) {
        json_object_array_put_idx(parent, idx, v);
        return NULL;
    }
    json_object_put(v);
    return apr_psprintf(p, "%s: no such member in the notification", at);
}

static const char *remove_at(apr_pool_t *p, json_object *root, const char *at)
{
    json_object *parent, *v;
    const char *last, *err;
    size_t idx;

    if ((err = wh_probe_pointer_parent(p, root, at, &parent, &last)) != NULL)
        return err;
    if (json_object_is_type(parent, json_type_object)
        && json_object_object_get_ex(parent, last, &v)) {
        json_object_object_del(parent, last);
        return NULL;
    }
    if (json_object_is_type(parent, json_type_array)
        && array_index(last, json_object_array_length(parent), &idx) == 0) {
        json_object_array_del_idx(parent, idx, 1);
        return NULL;
    }
    return apr_psprintf(p, "%s: no such member in the notification", at);
}

static json_object *copy_value(json_object *v)
{
    json_object *c = NULL;
    if (v && json_object_deep_copy(v, &c, NULL) != 0)
        return NULL;
    return c; /* NULL for JSON null */
}

static json_object *nested(long depth)
{
    json_object *inner = json_object_new_array();
    for (long i = 1; inner && i < depth; i++) {
        json_object *outer = json_object_new_array();
        if (!outer) {
            json_object_put(inner);
            return NULL;
        }
        json_object_array_add(outer, inner);
        inner = outer;
    }
    return inner;
}

static const char *pad(apr_pool_t *p, json_object *root, const wh_body_op *op,
                       apr_int64_t max_body_size)
{
    const char *err;
    apr_size_t len;
    apr_int64_t target = max_body_size + op->n;

    if (target > (apr_int64_t)WH_PROBE_MAX_BODY)
        return "MaxBodySize is beyond the largest body the probe builds";
    if ((err = put_at(p, root, op->at, json_object_new_string(""))) != NULL)
        return err;
    serialise(p, root, &len);
    if ((apr_int64_t)len > target)
        return "the notification alone is larger than MaxBodySize";
    apr_size_t n = (apr_size_t)(target - (apr_int64_t)len);
    char *fill = apr_palloc(p, n + 1);
    memset(fill, 'x', n);
    fill[n] = '\0';
    return put_at(p, root, op->at, json_object_new_string_len(fill, (int)n));
}

/* The root member op->at written once more, before the others. */
static const char *duplicate(apr_pool_t *p, wh_body_state *st,
                             const wh_body_op *op)
{
    const char *rest, *name, *value, *last;
    json_object *parent, *key;

    if (st->len < 2 || st->text[0] != '{')
        return "duplicate needs a JSON object body";
    wh_probe_pointer_parent(p, NULL, op->at, &parent, &last);
    key = json_object_new_string(last);
    name = serialise(p, key, NULL);
    json_object_put(key);
    value = serialise(p, op->value, NULL);
    rest = st->text + 1;
    st->text = apr_pstrcat(p, "{", name, ":", value, *rest == '}' ? "" : ",",
                           rest, NULL);
    st->len = strlen(st->text);
    return NULL;
}

static const char *replace(apr_pool_t *p, wh_body_state *st,
                           const wh_body_op *op)
{
    const char *at = memmem(st->text, st->len, op->find, op->find_len);
    if (!at)
        return apr_psprintf(p, "replace: '%s' is not in the body", op->find);
    apr_size_t before = (apr_size_t)(at - st->text);
    apr_size_t after = st->len - before - op->find_len;
    char *out = apr_palloc(p, before + op->text_len + after + 1);
    memcpy(out, st->text, before);
    memcpy(out + before, op->text, op->text_len);
    memcpy(out + before + op->text_len, at + op->find_len, after);
    st->len = before + op->text_len + after;
    out[st->len] = '\0';
    st->text = out;
    return NULL;
}

static const char *join(apr_pool_t *p, wh_body_state *st, const char *a,
                        apr_size_t alen, const char *b, apr_size_t blen)
{
    char *out = apr_palloc(p, alen + blen + 1);
    memcpy(out, a, alen);
    memcpy(out + alen, b, blen);
    out[alen + blen] = '\0';
    st->text = out;
    st->len = alen + blen;
    return NULL;
}

static const char *tree_op(apr_pool_t *p, json_object *root,
                           const wh_body_op *op, apr_int64_t max_body_size)
{
    switch (op->kind) {
    case WH_BODY_SET: return put_at(p, root, op->at, copy_value(op->value));
    case WH_BODY_REMOVE: return remove_at(p, root, op->at);
    case WH_BODY_FILL: {
        apr_size_t n = op->text_len * (apr_size_t)op->n;
        if (n > WH_PROBE_MAX_BODY)
            return "fill: longer than the largest body the probe builds";
        char *s = apr_palloc(p, n + 1);
        for (long i = 0; i < op->n; i++)
            memcpy(s + (apr_size_t)i * op->text_len, op->text, op->text_len);
        s[n] = '\0';
        return put_at(p, root, op->at, json_object_new_string_len(s, (int)n));
    }
    case WH_BODY_NEST: {
        json_object *v = nested(op->n);
        return v ? put_at(p, root, op->at, v) : "out of memory";
    }
    case WH_BODY_PAD: return pad(p, root, op, max_body_size);
    default: return "not an op on the JSON tree";
    }
}

const char *wh_probe_body_apply(apr_pool_t *p, wh_body_state *st,
                                const apr_array_header_t *ops,
                                apr_int64_t max_body_size)
{
    const char *err = NULL;

    for (int i = 0; ops && i < ops->nelts && !err; i++) {
        const wh_body_op *op = &APR_ARRAY_IDX(ops, i, wh_body_op);
        if (op->kind < WH_BODY_DUPLICATE) {
            if (!st->tree)
                return "a JSON op after an op on the bytes";
            err = tree_op(p, st->tree, op, max_body_size);
            continue;
        }
        wh_probe_body_bytes(p, st);
        switch (op->kind) {
        case WH_BODY_DUPLICATE: err = duplicate(p, st, op); break;
        case WH_BODY_RAW:
            err = join(p, st, op->text, op->text_len, "", 0);
            break;
        case WH_BODY_PREPEND:
            err = join(p, st, op->text, op->text_len, st->text, st->len);
            break;
        case WH_BODY_APPEND:
            err = join(p, st, st->text, st->len, op->text, op->text_len);
            break;
        default: err = replace(p, st, op); break;
        }
    }
    return err;
}

json_object *wh_probe_body_tree(apr_pool_t *p, json_object *notification)
{
    json_object *c = copy_value(notification);
    if (c)
        apr_pool_cleanup_register(p, c, put_json, apr_pool_cleanup_null);
    return c;
}
