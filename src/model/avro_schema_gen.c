#include "model/avro_schema_gen.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

const char *const hoodie_avro_meta_fields[5] = {
    "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
    "_hoodie_file_name"
};

int hoodie_is_meta_field(const char *name)
{
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, hoodie_avro_meta_fields[i])) return 1;
    return 0;
}

hoodie_status hoodie_field_with_meta(hoodie_field *out, const hoodie_field *data)
{
    HOODIE_TRY(hoodie_field_init(out, data->name ? data->name : "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_status rc = HOODIE_OK;
    for (int i = 0; i < 5 && rc == HOODIE_OK; i++) {
        hoodie_field m;
        rc = hoodie_field_init(&m, hoodie_avro_meta_fields[i], hoodie_type_of(HOODIE_TYPE_STRING), 1);
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &m); hoodie_field_dispose(&m); }
    }
    for (size_t i = 0; i < data->n_children && rc == HOODIE_OK; i++)
        if (!hoodie_is_meta_field(data->children[i].name)) rc = hoodie_field_add_child(out, &data->children[i]);
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

int hoodie_avro_decimal_fixed_size(int32_t precision)
{
    /* smallest n with 2^(8n-1) >= 10^precision, computed exactly on digits: 8n-1 bits hold precision digits */
    int n = 1;
    while (n < 64) {
        /* 10^precision <= 2^(8n-1)  <=>  precision * log2(10) <= 8n - 1; log2(10) = 3.32192809488736... */
        double bits = (double)precision * 3.3219280948873623;
        if (bits <= (double)(8 * n - 1)) break;
        n++;
    }
    return n;
}

typedef struct gen {
    hoodie_buf *out;
    int null_first;
    hoodie_status rc;
} gen;

static void put(gen *g, const char *s)
{
    if (g->rc == HOODIE_OK) g->rc = hoodie_buf_append_str(g->out, s);
}

/* A JSON string as Jackson writes it: ", \ and control characters escaped, everything else as is. */
static void put_str(gen *g, const char *s)
{
    put(g, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p && g->rc == HOODIE_OK; p++) {
        switch (*p) {
        case '"': put(g, "\\\""); break;
        case '\\': put(g, "\\\\"); break;
        case '\n': put(g, "\\n"); break;
        case '\r': put(g, "\\r"); break;
        case '\t': put(g, "\\t"); break;
        case '\b': put(g, "\\b"); break;
        case '\f': put(g, "\\f"); break;
        default:
            if (*p < 0x20) g->rc = hoodie_buf_printf(g->out, "\\u%04X", *p);
            else g->rc = hoodie_buf_putc(g->out, *p);
        }
    }
    put(g, "\"");
}

/* "name" and, when it differs from the enclosing namespace, "namespace". */
static void put_name(gen *g, const char *name, const char *ns, const char *space)
{
    put(g, "\"name\":");
    put_str(g, name);
    if (!space || strcmp(ns, space) != 0) {
        put(g, ",\"namespace\":");
        put_str(g, ns);
    }
}

static void type_json(gen *g, const hoodie_field *f, int nullable, const char *rec_name, const char *ns,
                      const char *space);

static int is_meta(const char *name)
{
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, hoodie_avro_meta_fields[i])) return 1;
    return 0;
}

/* A record named rec_name in namespace ns; its fields' nested types live in ns.rec_name. */
static void record_json(gen *g, const hoodie_field *f, const char *rec_name, const char *ns, const char *space,
                        int meta)
{
    hoodie_buf child_ns = HOODIE_BUF_INIT;
    if (g->rc == HOODIE_OK) g->rc = hoodie_buf_printf(&child_ns, "%s%s%s", ns, *ns ? "." : "", rec_name);
    if (g->rc == HOODIE_OK) g->rc = hoodie_buf_cstr(&child_ns);
    if (g->rc < 0) { hoodie_buf_dispose(&child_ns); return; }
    put(g, "{\"type\":\"record\",");
    put_name(g, rec_name, ns, space);
    put(g, ",\"fields\":[");
    int first = 1;
    if (meta) {
        for (int i = 0; i < 5; i++) {
            put(g, first ? "{\"name\":" : ",{\"name\":");
            put_str(g, hoodie_avro_meta_fields[i]);
            put(g, ",\"type\":[\"null\",\"string\"],\"doc\":\"\",\"default\":null}");
            first = 0;
        }
    }
    for (size_t i = 0; i < f->n_children && g->rc == HOODIE_OK; i++) {
        const hoodie_field *c = &f->children[i];
        if (meta && is_meta(c->name)) continue;
        put(g, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        put_str(g, c->name);
        put(g, ",\"type\":");
        type_json(g, c, c->nullable, c->name, (const char *)child_ns.data, ns);
        if (c->nullable && g->null_first && c->type.id != HOODIE_TYPE_NULL) put(g, ",\"default\":null");
        else if (c->type.id == HOODIE_TYPE_NULL && g->null_first) put(g, ",\"default\":null");
        put(g, "}");
    }
    put(g, "]}");
    hoodie_buf_dispose(&child_ns);
}

static void value_json(gen *g, const hoodie_field *f, const char *rec_name, const char *ns, const char *space)
{
    char tmp[128];
    switch (f->type.id) {
    case HOODIE_TYPE_NULL: put(g, "\"null\""); return;
    case HOODIE_TYPE_BOOL: put(g, "\"boolean\""); return;
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_INT16: case HOODIE_TYPE_INT32: case HOODIE_TYPE_UINT8:
    case HOODIE_TYPE_UINT16:
        put(g, "\"int\""); return;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_UINT32: put(g, "\"long\""); return;
    case HOODIE_TYPE_FLOAT16: case HOODIE_TYPE_FLOAT: put(g, "\"float\""); return;
    case HOODIE_TYPE_DOUBLE: put(g, "\"double\""); return;
    case HOODIE_TYPE_STRING: put(g, "\"string\""); return;
    case HOODIE_TYPE_BINARY: case HOODIE_TYPE_FIXED_BINARY: put(g, "\"bytes\""); return;
    case HOODIE_TYPE_DATE32: put(g, "{\"type\":\"int\",\"logicalType\":\"date\"}"); return;
    case HOODIE_TYPE_TIME32: put(g, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}"); return;
    case HOODIE_TYPE_TIME64: put(g, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}"); return;
    case HOODIE_TYPE_TIMESTAMP:
        put(g, f->type.utc ? "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}"
                           : "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}");
        return;
    case HOODIE_TYPE_DECIMAL: {
        hoodie_buf fns = HOODIE_BUF_INIT;
        if (g->rc == HOODIE_OK) g->rc = hoodie_buf_printf(&fns, "%s%s%s", ns, *ns ? "." : "", rec_name);
        if (g->rc == HOODIE_OK) g->rc = hoodie_buf_cstr(&fns);
        if (g->rc == HOODIE_OK) {
            put(g, "{\"type\":\"fixed\",");
            put_name(g, "fixed", (const char *)fns.data, space);
            snprintf(tmp, sizeof tmp, ",\"size\":%d,\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}",
                     hoodie_avro_decimal_fixed_size(f->type.precision), (int)f->type.precision, (int)f->type.scale);
            put(g, tmp);
        }
        hoodie_buf_dispose(&fns);
        return;
    }
    case HOODIE_TYPE_STRUCT: record_json(g, f, rec_name, ns, space, 0); return;
    case HOODIE_TYPE_LIST:
        put(g, "{\"type\":\"array\",\"items\":");
        type_json(g, &f->children[0], f->children[0].nullable, rec_name, ns, space);
        put(g, "}");
        return;
    case HOODIE_TYPE_MAP: {
        const hoodie_field *e = &f->children[0];
        if (e->n_children != 2 || e->children[0].type.id != HOODIE_TYPE_STRING) {
            if (g->rc == HOODIE_OK)
                g->rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': Avro maps need string keys", f->name);
            return;
        }
        put(g, "{\"type\":\"map\",\"values\":");
        type_json(g, &e->children[1], e->children[1].nullable, rec_name, ns, space);
        put(g, "}");
        return;
    }
    default:
        if (g->rc == HOODIE_OK)
            g->rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': %s has no Avro type", f->name,
                                hoodie_type_name(&f->type, tmp, sizeof tmp));
    }
}

static void type_json(gen *g, const hoodie_field *f, int nullable, const char *rec_name, const char *ns,
                      const char *space)
{
    if (!nullable || f->type.id == HOODIE_TYPE_NULL) { value_json(g, f, rec_name, ns, space); return; }
    put(g, g->null_first ? "[\"null\"," : "[");
    value_json(g, f, rec_name, ns, space);
    put(g, g->null_first ? "]" : ",\"null\"]");
}

hoodie_status hoodie_avro_schema_gen(hoodie_buf *out, const hoodie_field *root, const char *table_name, int flags)
{
    if (root->type.id != HOODIE_TYPE_STRUCT) return HOODIE_FAIL(HOODIE_EINVAL, "an Avro schema needs a struct root");
    size_t start = out->len;
    gen g = { out, (flags & HOODIE_AVRO_GEN_NULL_FIRST) != 0, HOODIE_OK };
    hoodie_buf name = HOODIE_BUF_INIT, ns = HOODIE_BUF_INIT;
    g.rc = hoodie_buf_printf(&name, "%s_record", table_name);
    if (g.rc == HOODIE_OK) g.rc = hoodie_buf_cstr(&name);
    if (g.rc == HOODIE_OK) g.rc = hoodie_buf_printf(&ns, "hoodie.%s", table_name);
    if (g.rc == HOODIE_OK) g.rc = hoodie_buf_cstr(&ns);
    if (g.rc == HOODIE_OK)
        record_json(&g, root, (const char *)name.data, (const char *)ns.data, NULL,
                    (flags & HOODIE_AVRO_GEN_META_FIELDS) != 0);
    hoodie_buf_dispose(&name);
    hoodie_buf_dispose(&ns);
    if (g.rc < 0) out->len = start;
    return g.rc;
}
