/*
 * Test-only builders of archived timelines (no writer in the library archives yet):
 *   - arb_avro_encode: Avro binary encoding of a jansson value driven by a JSON schema (the inverse of
 *     format/avro/json.h: unions pick the first branch that fits the value, record fields missing from the value
 *     take their default or null, keys the schema does not know are dropped as Jackson's convertValue does);
 *   - arb_log_block: one log-format-1 AVRO_DATA_BLOCK (hudi-format.md §5) with a SCHEMA header;
 *   - arb_dedupe_names: replace repeated definitions of a named type by its name, so that schemas taken from
 *     several real files can be composed into one.
 */
#ifndef HOODIE_TEST_ARCHIVE_BUILD_H
#define HOODIE_TEST_ARCHIVE_BUILD_H

#include <jansson.h>
#include <string.h>
#include "format/avro/binary.h"
#include "format/avro/json.h"
#include "util/buf.h"
#include "util/error.h"

static int arb_fits(const hoodie_avro_jschema *s, json_t *node, json_t *v, int depth);

static json_t *arb_resolve(const hoodie_avro_jschema *s, json_t *node)
{
    const char *t = json_string_value(node);
    if (!t) return node;
    static const char *const prim[] = { "null", "boolean", "int", "long", "float", "double", "bytes", "string" };
    for (size_t i = 0; i < sizeof prim / sizeof *prim; i++)
        if (!strcmp(t, prim[i])) return node;
    json_t *named = json_object_get(s->names, t);
    if (!named && strrchr(t, '.')) named = json_object_get(s->names, strrchr(t, '.') + 1);
    return named ? named : node;
}

static const char *arb_type(json_t *node)
{
    if (json_is_string(node)) return json_string_value(node);
    if (json_is_object(node)) {
        json_t *t = json_object_get(node, "type");
        if (json_is_string(t)) return json_string_value(t);
    }
    return NULL;
}

static int arb_fits(const hoodie_avro_jschema *s, json_t *node, json_t *v, int depth)
{
    node = arb_resolve(s, node);
    if (json_is_object(node) && !json_is_string(json_object_get(node, "type")))
        return arb_fits(s, json_object_get(node, "type"), v, depth + 1);
    const char *t = arb_type(node);
    if (!t) return 0;
    if (!strcmp(t, "null")) return json_is_null(v);
    if (!strcmp(t, "boolean")) return json_is_boolean(v);
    if (!strcmp(t, "int") || !strcmp(t, "long")) return json_is_integer(v);
    if (!strcmp(t, "float") || !strcmp(t, "double")) return json_is_number(v);
    if (!strcmp(t, "string") || !strcmp(t, "bytes") || !strcmp(t, "enum") || !strcmp(t, "fixed"))
        return json_is_string(v);
    if (!strcmp(t, "record") || !strcmp(t, "map")) return json_is_object(v);
    if (!strcmp(t, "array")) return json_is_array(v);
    return 0;
}

static hoodie_status arb_avro_encode(const hoodie_avro_jschema *s, json_t *node, json_t *v, hoodie_buf *out)
{
    node = arb_resolve(s, node);
    if (json_is_array(node)) { /* union */
        size_t i;
        json_t *b;
        json_array_foreach(node, i, b) if (arb_fits(s, b, v, 0)) {
            HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)i));
            return arb_avro_encode(s, b, v, out);
        }
        char *d = json_dumps(v, JSON_ENCODE_ANY);
        hoodie_status rc = HOODIE_FAIL(HOODIE_EINVAL, "no union branch fits %.80s", d ? d : "?");
        free(d);
        return rc;
    }
    if (json_is_object(node) && !json_is_string(json_object_get(node, "type")))
        return arb_avro_encode(s, json_object_get(node, "type"), v, out);
    const char *t = arb_type(node);
    if (!t) return HOODIE_FAIL(HOODIE_EINVAL, "bad schema node");
    if (!strcmp(t, "null")) return HOODIE_OK;
    if (!strcmp(t, "boolean")) return hoodie_buf_putc(out, json_is_true(v) ? 1 : 0);
    if (!strcmp(t, "int") || !strcmp(t, "long")) return hoodie_avro_write_long(out, (int64_t)json_integer_value(v));
    if (!strcmp(t, "float")) return hoodie_avro_write_float(out, (float)json_number_value(v));
    if (!strcmp(t, "double")) return hoodie_avro_write_double(out, json_number_value(v));
    if (!strcmp(t, "string") || !strcmp(t, "bytes"))
        return hoodie_avro_write_bytes(out, json_string_value(v), json_string_length(v));
    if (!strcmp(t, "fixed")) return hoodie_buf_append(out, json_string_value(v), json_string_length(v));
    if (!strcmp(t, "enum")) {
        size_t i;
        json_t *sym;
        json_array_foreach(json_object_get(node, "symbols"), i, sym)
            if (json_equal(sym, v)) return hoodie_avro_write_long(out, (int64_t)i);
        return HOODIE_FAIL(HOODIE_EINVAL, "enum symbol %s unknown", json_string_value(v));
    }
    if (!strcmp(t, "record")) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(node, "fields"), i, f) {
            const char *name = json_string_value(json_object_get(f, "name"));
            json_t *fv = json_is_object(v) ? json_object_get(v, name) : NULL;
            if (!fv) fv = json_object_get(f, "default");
            json_t *nul = json_null();
            hoodie_status rc = arb_avro_encode(s, json_object_get(f, "type"), fv ? fv : nul, out);
            json_decref(nul);
            if (rc) return rc;
        }
        return HOODIE_OK;
    }
    if (!strcmp(t, "array")) {
        size_t i;
        json_t *x;
        if (json_array_size(v)) {
            HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)json_array_size(v)));
            json_array_foreach(v, i, x) HOODIE_TRY(arb_avro_encode(s, json_object_get(node, "items"), x, out));
        }
        return hoodie_avro_write_long(out, 0);
    }
    if (!strcmp(t, "map")) {
        const char *k;
        json_t *x;
        if (json_object_size(v)) {
            HOODIE_TRY(hoodie_avro_write_long(out, (int64_t)json_object_size(v)));
            json_object_foreach(v, k, x) {
                HOODIE_TRY(hoodie_avro_write_bytes(out, k, strlen(k)));
                HOODIE_TRY(arb_avro_encode(s, json_object_get(node, "values"), x, out));
            }
        }
        return hoodie_avro_write_long(out, 0);
    }
    return HOODIE_FAIL(HOODIE_EINVAL, "schema type %s not supported by the test encoder", t);
}

/* Replace a named type already defined (in `seen`) by its full name; record new ones. */
static json_t *arb_dedupe_names(json_t *node, const char *ns, json_t *seen)
{
    if (json_is_array(node)) {
        json_t *out = json_array();
        size_t i;
        json_t *v;
        json_array_foreach(node, i, v) json_array_append_new(out, arb_dedupe_names(v, ns, seen));
        return out;
    }
    if (!json_is_object(node)) return json_incref(node);
    json_t *type = json_object_get(node, "type");
    const char *t = json_string_value(type);
    json_t *out = json_deep_copy(node);
    if (!t) {
        json_object_set_new(out, "type", arb_dedupe_names(type, ns, seen));
        return out;
    }
    if (!strcmp(t, "record") || !strcmp(t, "enum") || !strcmp(t, "fixed")) {
        const char *name = json_string_value(json_object_get(node, "name"));
        const char *own = json_string_value(json_object_get(node, "namespace"));
        char full[512], inner[512];
        if (strchr(name, '.')) snprintf(full, sizeof full, "%s", name);
        else if (own && *own) snprintf(full, sizeof full, "%s.%s", own, name);
        else if (ns && *ns) snprintf(full, sizeof full, "%s.%s", ns, name);
        else snprintf(full, sizeof full, "%s", name);
        if (json_object_get(seen, full)) {
            json_decref(out);
            return json_string(full);
        }
        json_object_set_new(seen, full, json_true());
        if (!strcmp(t, "record")) {
            const char *dot = strrchr(full, '.');
            snprintf(inner, sizeof inner, "%.*s", dot ? (int)(dot - full) : 0, full);
            json_t *fields = json_array();
            size_t i;
            json_t *f;
            json_array_foreach(json_object_get(node, "fields"), i, f) {
                json_t *nf = json_deep_copy(f);
                json_object_set_new(nf, "type", arb_dedupe_names(json_object_get(f, "type"), inner, seen));
                json_array_append_new(fields, nf);
            }
            json_object_set_new(out, "fields", fields);
        }
        return out;
    }
    if (!strcmp(t, "array")) json_object_set_new(out, "items", arb_dedupe_names(json_object_get(node, "items"), ns, seen));
    if (!strcmp(t, "map")) json_object_set_new(out, "values", arb_dedupe_names(json_object_get(node, "values"), ns, seen));
    return out;
}

/* One AVRO_DATA_BLOCK (content version 3) of pre-encoded records, with a SCHEMA header. */
static hoodie_status arb_log_block(hoodie_buf *out, const char *schema, const hoodie_buf *records, size_t n)
{
    hoodie_buf header = HOODIE_BUF_INIT, content = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_buf_put_be32(&header, 1);
    if (!rc) rc = hoodie_buf_put_be32(&header, 2); /* SCHEMA */
    if (!rc) rc = hoodie_buf_put_be32(&header, (uint32_t)strlen(schema));
    if (!rc) rc = hoodie_buf_append(&header, schema, strlen(schema));
    if (!rc) rc = hoodie_buf_put_be32(&content, 3);
    if (!rc) rc = hoodie_buf_put_be32(&content, (uint32_t)n);
    for (size_t i = 0; !rc && i < n; i++) {
        rc = hoodie_buf_put_be32(&content, (uint32_t)records[i].len);
        if (!rc) rc = hoodie_buf_append(&content, records[i].data, records[i].len);
    }
    uint64_t block_size = 4 + 4 + header.len + 8 + content.len + 4 + 8;
    if (!rc) rc = hoodie_buf_append(out, "#HUDI#", 6);
    if (!rc) rc = hoodie_buf_put_be64(out, block_size);
    if (!rc) rc = hoodie_buf_put_be32(out, 1);
    if (!rc) rc = hoodie_buf_put_be32(out, 3); /* AVRO_DATA_BLOCK */
    if (!rc) rc = hoodie_buf_append(out, header.data, header.len);
    if (!rc) rc = hoodie_buf_put_be64(out, content.len);
    if (!rc) rc = hoodie_buf_append(out, content.data, content.len);
    if (!rc) rc = hoodie_buf_put_be32(out, 0); /* empty footer */
    if (!rc) rc = hoodie_buf_put_be64(out, block_size + 6);
    hoodie_buf_dispose(&header);
    hoodie_buf_dispose(&content);
    return rc;
}

#endif
