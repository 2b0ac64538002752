/* Avro binary / OCF and Jackson JSON encoders for timeline contents (see avro_enc.h). */
#include "write/avro_enc.h"
#include "format/avro/binary.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- Avro ---- */

typedef struct enc_ctx {
    json_t *names;   /* name (full and short) -> schema node */
    char path[256];  /* field path for messages */
} enc_ctx;

static void register_names(json_t *names, json_t *s, const char *ns)
{
    if (json_is_array(s)) {
        size_t i;
        json_t *b;
        json_array_foreach(s, i, b) register_names(names, b, ns);
        return;
    }
    if (!json_is_object(s)) return;
    const char *type = json_string_value(json_object_get(s, "type"));
    if (!type) { register_names(names, json_object_get(s, "type"), ns); return; }
    if (!strcmp(type, "record") || !strcmp(type, "enum") || !strcmp(type, "fixed")) {
        const char *name = json_string_value(json_object_get(s, "name"));
        const char *sns = json_string_value(json_object_get(s, "namespace"));
        if (!sns) sns = ns;
        if (name) {
            json_object_set(names, name, s);
            if (sns && *sns && !strchr(name, '.')) {
                char full[512];
                snprintf(full, sizeof full, "%s.%s", sns, name);
                json_object_set(names, full, s);
            }
        }
        if (!strcmp(type, "record")) {
            size_t i;
            json_t *f;
            json_array_foreach(json_object_get(s, "fields"), i, f) register_names(names, json_object_get(f, "type"), sns);
        }
    } else if (!strcmp(type, "array")) {
        register_names(names, json_object_get(s, "items"), ns);
    } else if (!strcmp(type, "map")) {
        register_names(names, json_object_get(s, "values"), ns);
    }
}

/* The type name of a schema node ("null", "record", ...), resolving named references. */
static const char *type_of(enc_ctx *c, json_t **s)
{
    for (int depth = 0; depth < 8; depth++) {
        if (json_is_array(*s)) return "union";
        if (json_is_string(*s)) {
            const char *n = json_string_value(*s);
            json_t *named = json_object_get(c->names, n);
            if (!named) return n;
            *s = named;
            continue;
        }
        json_t *t = json_object_get(*s, "type");
        if (json_is_string(t)) {
            const char *n = json_string_value(t);
            if (!strcmp(n, "record") || !strcmp(n, "enum") || !strcmp(n, "fixed") || !strcmp(n, "array") ||
                !strcmp(n, "map"))
                return n;
            *s = t; /* {"type":"string", ...} */
            continue;
        }
        if (t) { *s = t; continue; }
        return "?";
    }
    return "?";
}

static int fits(enc_ctx *c, json_t *branch, json_t *v)
{
    const char *t = type_of(c, &branch);
    switch (json_typeof(v)) {
    case JSON_NULL: return !strcmp(t, "null");
    case JSON_TRUE: case JSON_FALSE: return !strcmp(t, "boolean");
    case JSON_INTEGER: return !strcmp(t, "long") || !strcmp(t, "int") || !strcmp(t, "double") || !strcmp(t, "float");
    case JSON_REAL: return !strcmp(t, "double") || !strcmp(t, "float");
    case JSON_STRING: return !strcmp(t, "string") || !strcmp(t, "bytes") || !strcmp(t, "enum") || !strcmp(t, "fixed");
    case JSON_ARRAY: return !strcmp(t, "array");
    case JSON_OBJECT: return !strcmp(t, "record") || !strcmp(t, "map");
    }
    return 0;
}

static hoodie_status enc(enc_ctx *c, hoodie_buf *out, json_t *s, json_t *v);

static hoodie_status enc_bad(enc_ctx *c, const char *want, json_t *v)
{
    return HOODIE_FAIL(HOODIE_EINVAL, "avro encode: field '%s': a JSON %s does not fit schema type %s", c->path,
                       json_is_null(v) ? "null" : json_is_string(v) ? "string" : json_is_integer(v) ? "integer" :
                       json_is_object(v) ? "object" : json_is_array(v) ? "array" : "value", want);
}

static hoodie_status enc(enc_ctx *c, hoodie_buf *out, json_t *s, json_t *v)
{
    if (!v) v = json_null();
    const char *t = type_of(c, &s);
    if (!strcmp(t, "union")) {
        size_t i;
        json_t *b;
        json_array_foreach(s, i, b) {
            if (fits(c, b, v)) {
                HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)i));
                return enc(c, out, b, v);
            }
        }
        return enc_bad(c, "union", v);
    }
    if (!strcmp(t, "null")) return json_is_null(v) ? HOODIE_OK : enc_bad(c, t, v);
    if (!strcmp(t, "boolean")) {
        if (!json_is_boolean(v)) return enc_bad(c, t, v);
        return hoodie_buf_putc(out, json_is_true(v) ? 1 : 0);
    }
    if (!strcmp(t, "int") || !strcmp(t, "long")) {
        if (!json_is_integer(v)) return enc_bad(c, t, v);
        json_int_t n = json_integer_value(v);
        if (t[0] == 'i' && (n < INT32_MIN || n > INT32_MAX)) return enc_bad(c, "int (out of range)", v);
        return hoodie_avro_write_long(out, (int64_t)n);
    }
    if (!strcmp(t, "double") || !strcmp(t, "float")) {
        if (!json_is_number(v)) return enc_bad(c, t, v);
        return t[0] == 'd' ? hoodie_avro_write_double(out, json_number_value(v))
                           : hoodie_avro_write_float(out, (float)json_number_value(v));
    }
    if (!strcmp(t, "string") || !strcmp(t, "bytes")) {
        if (!json_is_string(v)) return enc_bad(c, t, v);
        return hoodie_avro_write_bytes(out, json_string_value(v), json_string_length(v));
    }
    if (!strcmp(t, "enum")) {
        if (!json_is_string(v)) return enc_bad(c, t, v);
        size_t i;
        json_t *sym;
        json_array_foreach(json_object_get(s, "symbols"), i, sym)
            if (json_equal(sym, v)) return hoodie_avro_write_long(out, (int64_t)i);
        return enc_bad(c, "enum (unknown symbol)", v);
    }
    if (!strcmp(t, "fixed")) {
        if (!json_is_string(v) || (json_int_t)json_string_length(v) != json_integer_value(json_object_get(s, "size")))
            return enc_bad(c, t, v);
        return hoodie_buf_append(out, json_string_value(v), json_string_length(v));
    }
    size_t plen = strlen(c->path);
    hoodie_status rc = HOODIE_OK;
    if (!strcmp(t, "record")) {
        if (!json_is_object(v)) return enc_bad(c, t, v);
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(s, "fields"), i, f) {
            const char *name = json_string_value(json_object_get(f, "name"));
            snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "", name ? name : "?");
            rc = enc(c, out, json_object_get(f, "type"), json_object_get(v, name ? name : ""));
            c->path[plen] = 0;
            if (rc < 0) return rc;
        }
        return HOODIE_OK;
    }
    if (!strcmp(t, "array")) {
        if (!json_is_array(v)) return enc_bad(c, t, v);
        size_t n = json_array_size(v), i;
        json_t *item;
        if (n) {
            HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)n));
            snprintf(c->path + plen, sizeof c->path - plen, "[]");
            json_array_foreach(v, i, item) if ((rc = enc(c, out, json_object_get(s, "items"), item)) < 0) break;
            c->path[plen] = 0;
            if (rc < 0) return rc;
        }
        return hoodie_avro_write_long(out, 0);
    }
    if (!strcmp(t, "map")) {
        if (!json_is_object(v)) return enc_bad(c, t, v);
        size_t n = json_object_size(v);
        const char *k;
        json_t *item;
        if (n) {
            HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)n));
            json_object_foreach(v, k, item) {
                HOODIE_TRY(hoodie_avro_write_bytes(out, k, strlen(k)));
                snprintf(c->path + plen, sizeof c->path - plen, "{%s}", k);
                rc = enc(c, out, json_object_get(s, "values"), item);
                c->path[plen] = 0;
                if (rc < 0) return rc;
            }
        }
        return hoodie_avro_write_long(out, 0);
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "avro encode: field '%s': unsupported schema type '%s'", c->path, t);
}

hoodie_status hoodie_write__avro_encode(hoodie_buf *out, json_t *schema, json_t *v)
{
    enc_ctx c;
    c.path[0] = 0;
    c.names = json_object();
    if (!c.names) return HOODIE_NOMEM();
    register_names(c.names, schema, NULL);
    hoodie_status rc = enc(&c, out, schema, v);
    json_decref(c.names);
    return rc;
}

static void make_sync(uint8_t sync[16])
{
    static uint64_t counter;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t x = (uint64_t)tv.tv_sec * 1000003u ^ (uint64_t)tv.tv_usec << 20 ^ (uint64_t)getpid() << 40 ^
                 (uint64_t)(uintptr_t)&tv ^ ++counter * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 16; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        sync[i] = (uint8_t)(x >> 24);
    }
}

hoodie_status hoodie_write__avro_ocf(hoodie_buf *out, const char *schema_text, json_t *records)
{
    hoodie_status rc = HOODIE_OK;
    hoodie_buf block = HOODIE_BUF_INIT;
    uint8_t sync[16];
    json_error_t jerr;
    json_t *schema = json_loads(schema_text, 0, &jerr);
    if (!schema) return HOODIE_FAIL(HOODIE_EINVAL, "avro ocf: schema is not JSON: %s", jerr.text);
    if (!json_is_array(records)) { rc = HOODIE_FAIL(HOODIE_EINVAL, "avro ocf: records must be an array"); goto done; }
    make_sync(sync);
    HOODIE_TRY_GOTO(rc, hoodie_buf_append(out, "Obj\x01", 4), done);
    HOODIE_TRY_GOTO(rc, hoodie_avro_write_long(out, 1), done);
    HOODIE_TRY_GOTO(rc, hoodie_avro_write_bytes(out, "avro.schema", 11), done);
    HOODIE_TRY_GOTO(rc, hoodie_avro_write_bytes(out, schema_text, strlen(schema_text)), done);
    HOODIE_TRY_GOTO(rc, hoodie_avro_write_long(out, 0), done);
    HOODIE_TRY_GOTO(rc, hoodie_buf_append(out, sync, 16), done);
    size_t n = json_array_size(records), i;
    json_t *r;
    if (n) {
        json_array_foreach(records, i, r) HOODIE_TRY_GOTO(rc, hoodie_write__avro_encode(&block, schema, r), done);
        HOODIE_TRY_GOTO(rc, hoodie_avro_write_long(out, (int64_t)n), done);
        HOODIE_TRY_GOTO(rc, hoodie_avro_write_long(out, (int64_t)block.len), done);
        HOODIE_TRY_GOTO(rc, hoodie_buf_append(out, block.data, block.len), done);
        HOODIE_TRY_GOTO(rc, hoodie_buf_append(out, sync, 16), done);
    }
done:
    json_decref(schema);
    hoodie_buf_dispose(&block);
    return rc;
}

/* ---- Jackson pretty printer ---- */

static hoodie_status jk_string(hoodie_buf *out, const char *s, size_t n)
{
    HOODIE_TRY(hoodie_buf_putc(out, '"'));
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        const char *esc = NULL;
        char ubuf[8];
        if (ch == '"') esc = "\\\"";
        else if (ch == '\\') esc = "\\\\";
        else if (ch < 0x20) {
            switch (ch) {
            case '\n': esc = "\\n"; break;
            case '\r': esc = "\\r"; break;
            case '\t': esc = "\\t"; break;
            case '\b': esc = "\\b"; break;
            case '\f': esc = "\\f"; break;
            default: snprintf(ubuf, sizeof ubuf, "\\u%04X", ch); esc = ubuf; break;
            }
        }
        if (!esc) continue;
        HOODIE_TRY(hoodie_buf_append(out, s + start, i - start));
        HOODIE_TRY(hoodie_buf_append_str(out, esc));
        start = i + 1;
    }
    HOODIE_TRY(hoodie_buf_append(out, s + start, n - start));
    return hoodie_buf_putc(out, '"');
}

static hoodie_status jk_indent(hoodie_buf *out, int level)
{
    HOODIE_TRY(hoodie_buf_putc(out, '\n'));
    for (int i = 0; i < level; i++) HOODIE_TRY(hoodie_buf_append(out, "  ", 2));
    return HOODIE_OK;
}

static hoodie_status jk_value(hoodie_buf *out, json_t *v, int level)
{
    switch (json_typeof(v)) {
    case JSON_NULL: return hoodie_buf_append_str(out, "null");
    case JSON_TRUE: return hoodie_buf_append_str(out, "true");
    case JSON_FALSE: return hoodie_buf_append_str(out, "false");
    case JSON_INTEGER: return hoodie_buf_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL: return hoodie_buf_printf(out, "%.17g", json_real_value(v));
    case JSON_STRING: return jk_string(out, json_string_value(v), json_string_length(v));
    case JSON_ARRAY: {
        if (json_array_size(v) == 0) return hoodie_buf_append_str(out, "[ ]");
        HOODIE_TRY(hoodie_buf_append_str(out, "[ "));
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if (i) HOODIE_TRY(hoodie_buf_append_str(out, ", "));
            HOODIE_TRY(jk_value(out, item, level));
        }
        return hoodie_buf_append_str(out, " ]");
    }
    case JSON_OBJECT: {
        if (json_object_size(v) == 0) return hoodie_buf_append_str(out, "{ }");
        HOODIE_TRY(hoodie_buf_putc(out, '{'));
        const char *k;
        json_t *item;
        int first = 1;
        json_object_foreach(v, k, item) {
            if (!first) HOODIE_TRY(hoodie_buf_putc(out, ','));
            first = 0;
            HOODIE_TRY(jk_indent(out, level + 1));
            HOODIE_TRY(jk_string(out, k, strlen(k)));
            HOODIE_TRY(hoodie_buf_append_str(out, " : "));
            HOODIE_TRY(jk_value(out, item, level + 1));
        }
        HOODIE_TRY(jk_indent(out, level));
        return hoodie_buf_putc(out, '}');
    }
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "jackson: unknown JSON value");
}

hoodie_status hoodie_write__jackson(hoodie_buf *out, json_t *v)
{
    return jk_value(out, v, 0);
}
