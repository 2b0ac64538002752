/*
 * Helpers for the input reader tests: a compact schema notation and "read everything and render it as JSON lines".
 *
 * Schema notation: "name:type, ..." where a trailing '!' makes the field non-nullable and type is one of
 *   bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float double string binary fixed(N) uuid
 *   decimal(P,S) date time32[s|ms] time64[us|ns] timestamp[s|ms|us|ns] timestamp[..,utc] null
 *   list<type> map<type,type> struct<name:type,...>
 */
#ifndef HOODIE_TEST_INPUT_SUPPORT_H
#define HOODIE_TEST_INPUT_SUPPORT_H

#include <stdlib.h>
#include <string.h>
#include "hoodie_test.h"
#include "model/render.h"
#include "table/input.h"
#include "util/buf.h"

static inline const char *ts_type(const char **s, hoodie_field *out, const char *name);

static inline const char *ts_skip(const char *s)
{
    while (*s == ' ') s++;
    return s;
}

static inline int ts_word(const char **s, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(*s, w, n) == 0) { *s += n; return 1; }
    return 0;
}

static inline hoodie_time_unit ts_unit(const char **s)
{
    if (ts_word(s, "ns")) return HOODIE_UNIT_NANO;
    if (ts_word(s, "us")) return HOODIE_UNIT_MICRO;
    if (ts_word(s, "ms")) return HOODIE_UNIT_MILLI;
    if (ts_word(s, "s")) return HOODIE_UNIT_SECOND;
    abort();
}

/* one "name:type[!]" */
static inline const char *ts_named(const char **s, hoodie_field *out)
{
    *s = ts_skip(*s);
    const char *c = strchr(*s, ':');
    if (!c) abort();
    char name[64];
    memcpy(name, *s, (size_t)(c - *s));
    name[c - *s] = 0;
    *s = c + 1;
    return ts_type(s, out, name);
}

static inline const char *ts_type(const char **s, hoodie_field *out, const char *name)
{
    static const struct { const char *w; hoodie_type_id id; } simple[] = {
        { "bool", HOODIE_TYPE_BOOL }, { "int8", HOODIE_TYPE_INT8 }, { "int16", HOODIE_TYPE_INT16 },
        { "int32", HOODIE_TYPE_INT32 }, { "int64", HOODIE_TYPE_INT64 }, { "uint8", HOODIE_TYPE_UINT8 },
        { "uint16", HOODIE_TYPE_UINT16 }, { "uint32", HOODIE_TYPE_UINT32 }, { "uint64", HOODIE_TYPE_UINT64 },
        { "float16", HOODIE_TYPE_FLOAT16 }, { "float", HOODIE_TYPE_FLOAT }, { "double", HOODIE_TYPE_DOUBLE },
        { "string", HOODIE_TYPE_STRING }, { "binary", HOODIE_TYPE_BINARY }, { "date", HOODIE_TYPE_DATE32 },
        { "null", HOODIE_TYPE_NULL },
    };
    *s = ts_skip(*s);
    hoodie_type t = hoodie_type_of(HOODIE_TYPE_NULL);
    int nested = 0;
    if (ts_word(s, "list<")) { t.id = HOODIE_TYPE_LIST; nested = 1; }
    else if (ts_word(s, "map<")) { t.id = HOODIE_TYPE_MAP; nested = 2; }
    else if (ts_word(s, "struct<")) { t.id = HOODIE_TYPE_STRUCT; nested = 3; }
    else if (ts_word(s, "decimal(")) {
        t.id = HOODIE_TYPE_DECIMAL;
        t.precision = (int32_t)strtol(*s, (char **)s, 10);
        if (**s != ',') abort();
        (*s)++;
        t.scale = (int32_t)strtol(*s, (char **)s, 10);
        if (**s != ')') abort();
        (*s)++;
    } else if (ts_word(s, "fixed(")) {
        t.id = HOODIE_TYPE_FIXED_BINARY;
        t.width = (int32_t)strtol(*s, (char **)s, 10);
        (*s)++;
    } else if (ts_word(s, "uuid")) {
        t.id = HOODIE_TYPE_FIXED_BINARY;
        t.width = 16;
        t.ext = HOODIE_EXT_UUID;
    } else if (ts_word(s, "time32[")) {
        t.id = HOODIE_TYPE_TIME32; t.unit = ts_unit(s); (*s)++;
    } else if (ts_word(s, "time64[")) {
        t.id = HOODIE_TYPE_TIME64; t.unit = ts_unit(s); (*s)++;
    } else if (ts_word(s, "timestamp[")) {
        t.id = HOODIE_TYPE_TIMESTAMP;
        t.unit = ts_unit(s);
        if (ts_word(s, ",utc")) t.utc = 1;
        (*s)++;
    } else {
        size_t i;
        for (i = 0; i < sizeof simple / sizeof simple[0]; i++)
            if (ts_word(s, simple[i].w)) { t.id = simple[i].id; break; }
        if (i == sizeof simple / sizeof simple[0]) abort();
    }
    hoodie_field_init(out, name, t, 1);
    if (nested == 1) {
        hoodie_field c;
        ts_type(s, &c, "element");
        hoodie_field_add_child(out, &c);
        hoodie_field_dispose(&c);
        (*s)++;  /* > */
    } else if (nested == 2) {
        hoodie_field e, k, v;
        hoodie_field_init(&e, "entries", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
        ts_type(s, &k, "key");
        k.nullable = 0;
        (*s)++;  /* , */
        ts_type(s, &v, "value");
        (*s)++;  /* > */
        hoodie_field_add_child(&e, &k);
        hoodie_field_add_child(&e, &v);
        hoodie_field_add_child(out, &e);
        hoodie_field_dispose(&k);
        hoodie_field_dispose(&v);
        hoodie_field_dispose(&e);
    } else if (nested == 3) {
        for (;;) {
            hoodie_field c;
            ts_named(s, &c);
            hoodie_field_add_child(out, &c);
            hoodie_field_dispose(&c);
            *s = ts_skip(*s);
            if (**s == '>') { (*s)++; break; }
            if (**s != ',') abort();
            (*s)++;
        }
    }
    if (**s == '!') { out->nullable = 0; (*s)++; }
    return *s;
}

/* A root STRUCT from the notation; dispose with hoodie_field_dispose. */
static inline void test_schema(hoodie_field *root, const char *spec)
{
    hoodie_field_init(root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
    const char *s = spec;
    while (*(s = ts_skip(s))) {
        hoodie_field c;
        ts_named(&s, &c);
        hoodie_field_add_child(root, &c);
        hoodie_field_dispose(&c);
        s = ts_skip(s);
        if (*s == ',') s++;
    }
}

/*
 * Read all of `text` (schema spec, or NULL to infer) with batches of `batch_rows` and render every batch as JSON
 * lines into *out (malloc'ed; free it). Returns the first failing status (the text read so far is in *out).
 */
static inline hoodie_status read_text_opts(const char *text, size_t len, const char *name, const char *spec,
                                           hoodie_input_opts *o, char **out)
{
    hoodie_field schema;
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_input *in = NULL;
    hoodie_status rc;
    if (spec) { test_schema(&schema, spec); o->schema = &schema; }
    rc = hoodie_input_open_buffer(&in, text, len, name, o);
    if (rc == HOODIE_OK) {
        hoodie_batch bt;
        while ((rc = hoodie_input_next(in, &bt)) == HOODIE_OK) {
            hoodie_assert(hoodie_batch_rows(&bt) > 0 && hoodie_batch_rows(&bt) <= (o->batch_rows ? o->batch_rows : 65536));
            hoodie_render_jsonl(&b, &bt);
            hoodie_batch_dispose(&bt);
        }
        if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    }
    hoodie_buf_cstr(&b);
    *out = b.data ? (char *)b.data : strdup("");
    hoodie_input_free(in);
    if (spec) hoodie_field_dispose(&schema);
    return rc;
}

static inline hoodie_status read_text(const char *text, const char *name, const char *spec, int64_t batch_rows,
                                      char **out)
{
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.batch_rows = batch_rows;
    return read_text_opts(text, strlen(text), name, spec, &o, out);
}

/* Assert that reading gives exactly `want` (JSON lines). */
#define assert_reads(text, name, spec, want)                                   \
    do { char *_got; hoodie_assert_ok(read_text((text), (name), (spec), 2, &_got)); \
         hoodie_assert_equal_s((want), _got); free(_got); } while (0)

/* Assert that reading fails with `code` and a message containing `msg`. */
#define assert_read_fails(text, name, spec, code, msg)                         \
    do { char *_got; hoodie_assert_status((code), read_text((text), (name), (spec), 2, &_got)); \
         hoodie_assert_contains(hoodie_error_last()->message, (msg)); free(_got); } while (0)

/* A field's type with children: "struct<x:int64,y:string>", "list<double>". */
static inline size_t type_text(const hoodie_field *f, char *buf, size_t len)
{
    char tn[128];
    size_t o = (size_t)snprintf(buf, len, "%s", hoodie_type_name(&f->type, tn, sizeof tn));
    if (f->type.id == HOODIE_TYPE_STRUCT || f->type.id == HOODIE_TYPE_LIST) {
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "<");
        for (size_t i = 0; i < f->n_children && o < len; i++) {
            if (f->type.id == HOODIE_TYPE_STRUCT)
                o += (size_t)snprintf(buf + o, len - o, "%s%s:", i ? "," : "", f->children[i].name);
            if (o < len) o += type_text(&f->children[i], buf + o, len - o);
        }
        if (o < len) o += (size_t)snprintf(buf + o, len - o, ">");
    }
    return o;
}

/* A schema rendered as "name:type, ..." (nested types spelled out). */
static inline void schema_text(const hoodie_field *f, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < f->n_children && o < len; i++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%s:", i ? ", " : "", f->children[i].name);
        if (o < len) o += type_text(&f->children[i], buf + o, len - o);
    }
}

#endif
