#include "format/avro/schema.h"
#include "format/avro/binary.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

typedef struct named { const char *fullname; hoodie_avro_schema *s; } named;

typedef struct parse_ctx {
    hoodie_arena *arena;
    const char *what;
    named *names;
    size_t n_names, cap_names;
    int depth;
} parse_ctx;

static hoodie_status bad(parse_ctx *p, const char *fmt, const char *detail)
{
    return HOODIE_CORRUPT("%s: invalid Avro schema: %s%s%s", p->what ? p->what : "avro schema", fmt,
                          detail ? ": " : "", detail ? detail : "");
}

static hoodie_avro_schema *new_schema(parse_ctx *p, hoodie_avro_kind kind)
{
    hoodie_avro_schema *s = hoodie_arena_calloc(p->arena, 1, sizeof *s);
    if (s) s->kind = kind;
    return s;
}

static int primitive_kind(const char *name, hoodie_avro_kind *kind)
{
    static const struct { const char *n; hoodie_avro_kind k; } prims[] = {
        { "null", HOODIE_AVRO_NULL }, { "boolean", HOODIE_AVRO_BOOLEAN }, { "int", HOODIE_AVRO_INT },
        { "long", HOODIE_AVRO_LONG }, { "float", HOODIE_AVRO_FLOAT }, { "double", HOODIE_AVRO_DOUBLE },
        { "bytes", HOODIE_AVRO_BYTES }, { "string", HOODIE_AVRO_STRING },
    };
    for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
        if (!strcmp(name, prims[i].n)) { *kind = prims[i].k; return 1; }
    return 0;
}

static const char *full_name(parse_ctx *p, const char *name, const char *ns)
{
    if (strchr(name, '.') || !ns || !*ns) return hoodie_arena_strdup(p->arena, name);
    return hoodie_arena_sprintf(p->arena, "%s.%s", ns, name);
}

static hoodie_avro_schema *lookup(parse_ctx *p, const char *name, const char *ns)
{
    char buf[1024];
    if (ns && *ns && !strchr(name, '.')) {
        snprintf(buf, sizeof buf, "%s.%s", ns, name);
        for (size_t i = 0; i < p->n_names; i++)
            if (!strcmp(p->names[i].fullname, buf)) return p->names[i].s;
    }
    for (size_t i = 0; i < p->n_names; i++)
        if (!strcmp(p->names[i].fullname, name)) return p->names[i].s;
    /* Java also accepts a short name that is unique among the defined types */
    for (size_t i = 0; i < p->n_names; i++) {
        const char *dot = strrchr(p->names[i].fullname, '.');
        if (dot && !strcmp(dot + 1, name)) return p->names[i].s;
    }
    return NULL;
}

static hoodie_status define(parse_ctx *p, const char *fullname, hoodie_avro_schema *s)
{
    if (p->n_names == p->cap_names) {
        size_t ncap = p->cap_names ? p->cap_names * 2 : 16;
        named *n = hoodie_arena_alloc(p->arena, ncap * sizeof *n);
        if (!n) return HOODIE_ENOMEM;
        if (p->n_names) memcpy(n, p->names, p->n_names * sizeof *n);
        p->names = n;
        p->cap_names = ncap;
    }
    p->names[p->n_names].fullname = fullname;
    p->names[p->n_names].s = s;
    p->n_names++;
    return HOODIE_OK;
}

static void set_logical(hoodie_avro_schema *s, json_t *obj)
{
    const char *lt = json_string_value(json_object_get(obj, "logicalType"));
    if (!lt) return;
    hoodie_avro_kind k = s->kind;
    if (!strcmp(lt, "decimal") && (k == HOODIE_AVRO_BYTES || k == HOODIE_AVRO_FIXED)) {
        json_t *pr = json_object_get(obj, "precision"), *sc = json_object_get(obj, "scale");
        if (json_is_integer(pr) && json_integer_value(pr) > 0 && json_integer_value(pr) <= 38) {
            s->logical = HOODIE_AVRO_LT_DECIMAL;
            s->precision = (int32_t)json_integer_value(pr);
            s->scale = json_is_integer(sc) ? (int32_t)json_integer_value(sc) : 0;
            if (s->scale < 0 || s->scale > s->precision) s->logical = HOODIE_AVRO_LT_NONE;
        }
    } else if (!strcmp(lt, "uuid") && (k == HOODIE_AVRO_STRING || (k == HOODIE_AVRO_FIXED && s->size == 16)))
        s->logical = HOODIE_AVRO_LT_UUID;
    else if (!strcmp(lt, "date") && k == HOODIE_AVRO_INT) s->logical = HOODIE_AVRO_LT_DATE;
    else if (!strcmp(lt, "time-millis") && k == HOODIE_AVRO_INT) s->logical = HOODIE_AVRO_LT_TIME_MILLIS;
    else if (!strcmp(lt, "time-micros") && k == HOODIE_AVRO_LONG) s->logical = HOODIE_AVRO_LT_TIME_MICROS;
    else if (k == HOODIE_AVRO_LONG) {
        static const struct { const char *n; hoodie_avro_logical l; } ts[] = {
            { "timestamp-millis", HOODIE_AVRO_LT_TIMESTAMP_MILLIS },
            { "timestamp-micros", HOODIE_AVRO_LT_TIMESTAMP_MICROS },
            { "timestamp-nanos", HOODIE_AVRO_LT_TIMESTAMP_NANOS },
            { "local-timestamp-millis", HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS },
            { "local-timestamp-micros", HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS },
            { "local-timestamp-nanos", HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS },
        };
        for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
            if (!strcmp(lt, ts[i].n)) s->logical = ts[i].l;
    }
    /* Unknown or ill-placed logical types are ignored, as the spec requires. */
}

static hoodie_status parse(parse_ctx *p, json_t *j, const char *ns, hoodie_avro_schema **out);

static hoodie_status parse_record(parse_ctx *p, json_t *j, hoodie_avro_schema *s, const char *ns)
{
    json_t *fields = json_object_get(j, "fields");
    if (!json_is_array(fields)) return bad(p, "record without a fields array", s->name);
    size_t count = json_array_size(fields);
    hoodie_avro_field *fs = hoodie_arena_calloc(p->arena, count ? count : 1, sizeof *fs);
    if (!fs) return HOODIE_ENOMEM;
    /* s->fields stays NULL until the fields are parsed: a reference to s meanwhile is a recursive type */
    for (size_t i = 0; i < count; i++) {
        json_t *f = json_array_get(fields, i);
        const char *fname = json_string_value(json_object_get(f, "name"));
        if (!json_is_object(f) || !fname) return bad(p, "record field without a name", s->name);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(fs[k].name, fname)) return bad(p, "duplicate field name", fname);
        fs[i].name = hoodie_arena_strdup(p->arena, fname);
        json_t *ft = json_object_get(f, "type");
        if (!ft) return bad(p, "record field without a type", fname);
        HOODIE_TRY(parse(p, ft, ns, &fs[i].type));
        json_t *def = json_object_get(f, "default");
        if (def) {
            char *text = json_dumps(def, JSON_ENCODE_ANY | JSON_COMPACT);
            if (!text) return HOODIE_NOMEM();
            fs[i].default_json = hoodie_arena_strdup(p->arena, text);
            free(text);
        }
        if (!fs[i].name) return HOODIE_ENOMEM;
    }
    s->fields = fs;
    s->count = count;
    return HOODIE_OK;
}

static hoodie_status parse_named(parse_ctx *p, json_t *j, hoodie_avro_kind kind, const char *ns,
                                 hoodie_avro_schema **out)
{
    const char *name = json_string_value(json_object_get(j, "name"));
    const char *own_ns = json_string_value(json_object_get(j, "namespace"));
    if (!name) return bad(p, "named type without a name", NULL);
    if (own_ns) ns = own_ns;
    const char *full = full_name(p, name, ns);
    if (!full) return HOODIE_ENOMEM;
    /* the namespace of a dotted name is its prefix */
    const char *dot = strrchr(full, '.');
    const char *inner_ns = dot ? hoodie_arena_strndup(p->arena, full, (size_t)(dot - full)) : ns;
    hoodie_avro_schema *s = new_schema(p, kind);
    if (!s) return HOODIE_ENOMEM;
    s->name = full;
    if (lookup(p, full, NULL)) return bad(p, "type defined twice", full);
    HOODIE_TRY(define(p, full, s)); /* before the fields, so a record may refer to itself */
    if (kind == HOODIE_AVRO_RECORD) {
        HOODIE_TRY(parse_record(p, j, s, inner_ns));
    } else if (kind == HOODIE_AVRO_ENUM) {
        json_t *syms = json_object_get(j, "symbols");
        if (!json_is_array(syms)) return bad(p, "enum without symbols", full);
        s->count = json_array_size(syms);
        s->symbols = hoodie_arena_calloc(p->arena, s->count ? s->count : 1, sizeof *s->symbols);
        if (!s->symbols) return HOODIE_ENOMEM;
        for (size_t i = 0; i < s->count; i++) {
            const char *sym = json_string_value(json_array_get(syms, i));
            if (!sym) return bad(p, "enum symbol is not a string", full);
            s->symbols[i] = hoodie_arena_strdup(p->arena, sym);
        }
    } else {
        json_t *size = json_object_get(j, "size");
        if (!json_is_integer(size) || json_integer_value(size) < 0 || json_integer_value(size) > (1 << 20))
            return bad(p, "fixed without a valid size", full);
        s->size = (int32_t)json_integer_value(size);
        set_logical(s, j);
    }
    *out = s;
    return HOODIE_OK;
}

static hoodie_status parse(parse_ctx *p, json_t *j, const char *ns, hoodie_avro_schema **out)
{
    hoodie_avro_kind kind;
    hoodie_status rc = HOODIE_OK;
    if (++p->depth > 64) return bad(p, "nested deeper than 64 levels", NULL);
    if (json_is_string(j)) {
        const char *name = json_string_value(j);
        if (primitive_kind(name, &kind)) {
            *out = new_schema(p, kind);
            if (!*out) rc = HOODIE_ENOMEM;
        } else {
            *out = lookup(p, name, ns);
            if (!*out) rc = bad(p, "unknown type", name);
            else if ((*out)->kind == HOODIE_AVRO_RECORD && !(*out)->fields)
                rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: recursive Avro type %s is not supported",
                                 p->what ? p->what : "avro schema", name);
        }
    } else if (json_is_array(j)) {
        hoodie_avro_schema *s = new_schema(p, HOODIE_AVRO_UNION);
        if (!s) { rc = HOODIE_ENOMEM; goto done; }
        s->count = json_array_size(j);
        if (!s->count) { rc = bad(p, "empty union", NULL); goto done; }
        s->branches = hoodie_arena_calloc(p->arena, s->count, sizeof *s->branches);
        if (!s->branches) { rc = HOODIE_ENOMEM; goto done; }
        for (size_t i = 0; i < s->count && rc == HOODIE_OK; i++) {
            rc = parse(p, json_array_get(j, i), ns, &s->branches[i]);
            if (rc == HOODIE_OK && s->branches[i]->kind == HOODIE_AVRO_UNION) rc = bad(p, "union inside a union", NULL);
        }
        *out = s;
    } else if (json_is_object(j)) {
        const char *type = json_string_value(json_object_get(j, "type"));
        json_t *tj = json_object_get(j, "type");
        if (!type) {
            /* {"type": {...}} or {"type": [...]}: a wrapped schema */
            if (tj) rc = parse(p, tj, ns, out);
            else rc = bad(p, "object without a type", NULL);
        } else if (!strcmp(type, "record") || !strcmp(type, "error")) {
            rc = parse_named(p, j, HOODIE_AVRO_RECORD, ns, out);
        } else if (!strcmp(type, "enum")) {
            rc = parse_named(p, j, HOODIE_AVRO_ENUM, ns, out);
        } else if (!strcmp(type, "fixed")) {
            rc = parse_named(p, j, HOODIE_AVRO_FIXED, ns, out);
        } else if (!strcmp(type, "array") || !strcmp(type, "map")) {
            hoodie_avro_schema *s = new_schema(p, !strcmp(type, "array") ? HOODIE_AVRO_ARRAY : HOODIE_AVRO_MAP);
            json_t *inner = json_object_get(j, s && s->kind == HOODIE_AVRO_ARRAY ? "items" : "values");
            if (!s) rc = HOODIE_ENOMEM;
            else if (!inner) rc = bad(p, "array without items or map without values", NULL);
            else rc = parse(p, inner, ns, &s->items);
            *out = s;
        } else if (primitive_kind(type, &kind)) {
            hoodie_avro_schema *s = new_schema(p, kind);
            if (!s) rc = HOODIE_ENOMEM;
            else set_logical(s, j);
            *out = s;
        } else {
            *out = lookup(p, type, ns);
            if (!*out) rc = bad(p, "unknown type", type);
        }
    } else {
        rc = bad(p, "a schema must be a string, an object or an array", NULL);
    }
done:
    p->depth--;
    return rc;
}

hoodie_status hoodie_avro_schema_parse(hoodie_avro_schema **out, const char *json, size_t len, hoodie_arena *arena,
                                       const char *what)
{
    json_error_t err;
    parse_ctx p = { arena, what, NULL, 0, 0, 0 };
    *out = NULL;
    json_t *root = json_loadb(json, len, JSON_DECODE_ANY, &err);
    if (!root)
        return HOODIE_CORRUPT("%s: Avro schema is not valid JSON at offset %d: %s", what ? what : "avro schema",
                              err.position, err.text);
    hoodie_status rc = parse(&p, root, NULL, out);
    json_decref(root);
    if (rc == HOODIE_ENOMEM) return HOODIE_NOMEM();
    return rc;
}

const hoodie_avro_schema *hoodie_avro_nullable_branch(const hoodie_avro_schema *s, int *null_index)
{
    if (s->kind != HOODIE_AVRO_UNION || s->count != 2) return NULL;
    if (s->branches[0]->kind == HOODIE_AVRO_NULL && s->branches[1]->kind != HOODIE_AVRO_NULL) {
        if (null_index) *null_index = 0;
        return s->branches[1];
    }
    if (s->branches[1]->kind == HOODIE_AVRO_NULL && s->branches[0]->kind != HOODIE_AVRO_NULL) {
        if (null_index) *null_index = 1;
        return s->branches[0];
    }
    return NULL;
}

int hoodie_avro_field_index(const hoodie_avro_schema *record, const char *name)
{
    for (size_t i = 0; i < record->count; i++)
        if (!strcmp(record->fields[i].name, name)) return (int)i;
    return -1;
}

void hoodie_avro_skip(hoodie_cursor *c, const hoodie_avro_schema *s)
{
    size_t len;
    if (c->status != HOODIE_OK) return;
    switch (s->kind) {
    case HOODIE_AVRO_NULL: return;
    case HOODIE_AVRO_BOOLEAN: (void)hoodie_cursor_u8(c); return;
    case HOODIE_AVRO_INT: case HOODIE_AVRO_LONG: case HOODIE_AVRO_ENUM: (void)hoodie_cursor_uvarint(c); return;
    case HOODIE_AVRO_FLOAT: (void)hoodie_cursor_bytes(c, 4); return;
    case HOODIE_AVRO_DOUBLE: (void)hoodie_cursor_bytes(c, 8); return;
    case HOODIE_AVRO_BYTES: case HOODIE_AVRO_STRING: (void)hoodie_avro_read_bytes(c, &len); return;
    case HOODIE_AVRO_FIXED: (void)hoodie_cursor_bytes(c, (size_t)s->size); return;
    case HOODIE_AVRO_RECORD:
        for (size_t i = 0; i < s->count && c->status == HOODIE_OK; i++) hoodie_avro_skip(c, s->fields[i].type);
        return;
    case HOODIE_AVRO_UNION: {
        int64_t b = hoodie_avro_read_long(c);
        if (c->status != HOODIE_OK) return;
        if (b < 0 || (uint64_t)b >= s->count) { hoodie_cursor__fail(c, "avro union branch %lld out of range", (long long)b); return; }
        hoodie_avro_skip(c, s->branches[b]);
        return;
    }
    case HOODIE_AVRO_ARRAY: case HOODIE_AVRO_MAP:
        for (int64_t n; (n = hoodie_avro_read_block_count(c)) > 0;) {
            for (int64_t i = 0; i < n && c->status == HOODIE_OK; i++) {
                if (s->kind == HOODIE_AVRO_MAP) (void)hoodie_avro_read_bytes(c, &len);
                hoodie_avro_skip(c, s->items);
            }
        }
        return;
    }
}

hoodie_status hoodie_avro_write_long(hoodie_buf *b, int64_t v) { return hoodie_buf_put_uvarint(b, hoodie_zigzag_encode(v)); }

hoodie_status hoodie_avro_write_bytes(hoodie_buf *b, const void *p, size_t len)
{
    HOODIE_TRY(hoodie_avro_write_long(b, (int64_t)len));
    return hoodie_buf_append(b, p, len);
}

hoodie_status hoodie_avro_write_float(hoodie_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return hoodie_buf_put_le32(b, u);
}

hoodie_status hoodie_avro_write_double(hoodie_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return hoodie_buf_put_le64(b, u);
}
