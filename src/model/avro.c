#include "model/avro.h"
#include "format/avro/binary.h"
#include "model/build.h"
#include "model/conform.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/*
 * A decoding plan mirrors the writer schema: each node knows the writer schema it reads and the reader field it
 * appends to (or none: skip). Records keep, per writer field, the reader child it feeds; reader children no
 * writer field feeds get nulls.
 */
typedef struct plan plan;
struct plan {
    const hoodie_avro_schema *w;   /* writer schema of this node */
    const hoodie_field *r;         /* reader field, NULL: skip */
    int reader_nullable;
    plan *children;                /* record: one per writer field; union: one per branch; array/map: 1 */
    size_t n_children;
    int *target;                   /* record: reader child index per writer field, -1 skip */
    unsigned char *fed;            /* record: reader children fed by some writer field */
    size_t n_reader_children;
    /* a schema change's conversion (hoodie_conform_is_retype): children[0] reads the writer's value as conv_from
     * into conv_one (one value at a time), hoodie_conform_append converts it into r */
    hoodie_field *conv_from;
    hoodie_array *conv_one;
    hoodie_buf *conv_text;
};

/*
 * The flat program: one op per writer field of the top-level record, compiled once per (writer, reader) pair.
 * Scalars (and [null, scalar] unions) whose reading is a plain store into the column are decoded inline with
 * direct appends; projected-out scalars are skipped inline; anything else (nested types, decimals, enums, unit
 * conversions, narrowing) runs the generic plan of that field.
 */
typedef enum fop {
    F_GENERIC,      /* decode(plan child) */
    F_SKIP_NONE,    /* null: nothing to skip */
    F_SKIP_VARINT,  /* int, long, enum */
    F_SKIP_BYTES,   /* string, bytes */
    F_SKIP_FIXED,   /* boolean (1), float (4), double (8), fixed (size) */
    F_BOOL,         /* boolean -> BOOL */
    F_INT4,         /* int -> 4-byte integer column (INT32, DATE32, TIME32) */
    F_INT8,         /* int -> 8-byte integer column (INT64, TIME64, TIMESTAMP) */
    F_LONG8,        /* long -> 8-byte integer column, no unit conversion */
    F_FLOAT4,       /* float -> FLOAT */
    F_DOUBLE8,      /* double -> DOUBLE */
    F_BYTES         /* string, bytes -> STRING, BINARY */
} fop;

typedef struct flat_op {
    fop op;
    int target;                    /* reader child index, -1 for skips */
    int n_branches;                /* 0: not a union; 2: [null, T] or [T, null] */
    int null_branch;               /* union index of null */
    size_t fixed;                  /* F_SKIP_FIXED: bytes */
    const plan *p;                 /* the field's plan (F_GENERIC, messages) */
    const hoodie_field *f;         /* reader field (NULL for skips) */
} flat_op;

struct hoodie_avro_decoder {
    plan root;
    flat_op *ops;                  /* one per writer field of the root record */
    size_t n_ops;
    int *unfed;                    /* reader children no writer field feeds (appended as nulls) */
    size_t n_unfed;
    int one_each;                  /* every reader child is fed by at most one writer field */
};

hoodie_status hoodie_avro_to_field(hoodie_field *out, const hoodie_avro_schema *s, const char *name)
{
    int nullable = 0;
    const hoodie_avro_schema *inner = hoodie_avro_nullable_branch(s, NULL);
    if (inner) { s = inner; nullable = 1; }
    hoodie_type t = hoodie_type_of(HOODIE_TYPE_NULL);
    switch (s->kind) {
    case HOODIE_AVRO_NULL: t.id = HOODIE_TYPE_NULL; nullable = 1; break;
    case HOODIE_AVRO_BOOLEAN: t.id = HOODIE_TYPE_BOOL; break;
    case HOODIE_AVRO_INT:
        if (s->logical == HOODIE_AVRO_LT_DATE) t.id = HOODIE_TYPE_DATE32;
        else if (s->logical == HOODIE_AVRO_LT_TIME_MILLIS) { t.id = HOODIE_TYPE_TIME32; t.unit = HOODIE_UNIT_MILLI; }
        else t.id = HOODIE_TYPE_INT32;
        break;
    case HOODIE_AVRO_LONG:
        switch (s->logical) {
        case HOODIE_AVRO_LT_TIME_MICROS: t.id = HOODIE_TYPE_TIME64; t.unit = HOODIE_UNIT_MICRO; break;
        case HOODIE_AVRO_LT_TIMESTAMP_MILLIS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MILLI; t.utc = 1; break;
        case HOODIE_AVRO_LT_TIMESTAMP_MICROS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MICRO; t.utc = 1; break;
        case HOODIE_AVRO_LT_TIMESTAMP_NANOS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_NANO; t.utc = 1; break;
        case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MILLI; break;
        case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_MICRO; break;
        case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: t.id = HOODIE_TYPE_TIMESTAMP; t.unit = HOODIE_UNIT_NANO; break;
        default: t.id = HOODIE_TYPE_INT64;
        }
        break;
    case HOODIE_AVRO_FLOAT: t.id = HOODIE_TYPE_FLOAT; break;
    case HOODIE_AVRO_DOUBLE: t.id = HOODIE_TYPE_DOUBLE; break;
    case HOODIE_AVRO_STRING: t.id = HOODIE_TYPE_STRING; break;
    case HOODIE_AVRO_ENUM: t.id = HOODIE_TYPE_STRING; t.ext = HOODIE_EXT_ENUM; break;
    case HOODIE_AVRO_BYTES: case HOODIE_AVRO_FIXED:
        if (s->logical == HOODIE_AVRO_LT_DECIMAL) {
            t.id = HOODIE_TYPE_DECIMAL;
            t.precision = s->precision;
            t.scale = s->scale;
        } else if (s->kind == HOODIE_AVRO_FIXED) {
            t.id = HOODIE_TYPE_FIXED_BINARY;
            t.width = s->size;
            if (s->logical == HOODIE_AVRO_LT_UUID) t.ext = HOODIE_EXT_UUID;
        } else t.id = HOODIE_TYPE_BINARY;
        break;
    case HOODIE_AVRO_RECORD: t.id = HOODIE_TYPE_STRUCT; break;
    case HOODIE_AVRO_ARRAY: t.id = HOODIE_TYPE_LIST; break;
    case HOODIE_AVRO_MAP: t.id = HOODIE_TYPE_MAP; break;
    case HOODIE_AVRO_UNION:
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': Avro unions other than [null, T] are not supported", name);
    }
    HOODIE_TRY(hoodie_field_init(out, name, t, nullable));
    hoodie_status rc = HOODIE_OK;
    if (s->kind == HOODIE_AVRO_RECORD) {
        for (size_t i = 0; i < s->count && rc == HOODIE_OK; i++) {
            hoodie_field child;
            rc = hoodie_avro_to_field(&child, s->fields[i].type, s->fields[i].name);
            if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &child); hoodie_field_dispose(&child); }
        }
    } else if (s->kind == HOODIE_AVRO_ARRAY) {
        hoodie_field child;
        rc = hoodie_avro_to_field(&child, s->items, "element");
        if (rc == HOODIE_OK) { rc = hoodie_field_add_child(out, &child); hoodie_field_dispose(&child); }
    } else if (s->kind == HOODIE_AVRO_MAP) {
        hoodie_field entries, key, value;
        rc = hoodie_field_init(&entries, "entries", hoodie_type_of(HOODIE_TYPE_STRUCT), 0);
        if (rc == HOODIE_OK && (rc = hoodie_field_init(&key, "key", hoodie_type_of(HOODIE_TYPE_STRING), 0)) == HOODIE_OK) {
            rc = hoodie_field_add_child(&entries, &key);
            hoodie_field_dispose(&key);
        }
        if (rc == HOODIE_OK && (rc = hoodie_avro_to_field(&value, s->items, "value")) == HOODIE_OK) {
            rc = hoodie_field_add_child(&entries, &value);
            hoodie_field_dispose(&value);
        }
        if (rc == HOODIE_OK) rc = hoodie_field_add_child(out, &entries);
        hoodie_field_dispose(&entries);
    }
    if (rc < 0) hoodie_field_dispose(out);
    return rc;
}

/* ---- plans ---- */

static int64_t scale_time(int64_t v, hoodie_avro_logical from, hoodie_time_unit to);

static void plan_dispose(plan *p)
{
    for (size_t i = 0; i < p->n_children; i++) plan_dispose(&p->children[i]);
    free(p->children);
    if (p->conv_from) hoodie_field_dispose(p->conv_from);
    free(p->conv_from);
    if (p->conv_one) hoodie_array_dispose(p->conv_one);
    free(p->conv_one);
    if (p->conv_text) hoodie_buf_dispose(p->conv_text);
    free(p->conv_text);
    free(p->target);
    free(p->fed);
}

/* The writer type's own field (*wf, to dispose) when reading it as r takes a schema change's conversion. */
static int retype_of(const hoodie_avro_schema *w, const hoodie_field *r, hoodie_field *wf)
{
    if (w->kind == HOODIE_AVRO_NULL || w->kind == HOODIE_AVRO_UNION || w->kind == HOODIE_AVRO_RECORD ||
        w->kind == HOODIE_AVRO_ARRAY || w->kind == HOODIE_AVRO_MAP || w->kind == HOODIE_AVRO_ENUM)
        return 0;
    if (hoodie_avro_to_field(wf, w, r->name) != HOODIE_OK) { hoodie_error_clear(); return 0; }
    if (hoodie_conform_is_retype(wf, r)) return 1;
    hoodie_field_dispose(wf);
    return 0;
}

static int readable_as(const hoodie_avro_schema *w, const hoodie_field *r)
{
    hoodie_type_id id = r->type.id;
    hoodie_field wf;
    if (retype_of(w, r, &wf)) { hoodie_field_dispose(&wf); return 1; }
    switch (w->kind) {
    case HOODIE_AVRO_NULL: return 1;
    case HOODIE_AVRO_BOOLEAN: return id == HOODIE_TYPE_BOOL;
    case HOODIE_AVRO_INT:
        return id == HOODIE_TYPE_INT8 || id == HOODIE_TYPE_INT16 || id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_INT64 ||
               id == HOODIE_TYPE_FLOAT || id == HOODIE_TYPE_DOUBLE || id == HOODIE_TYPE_DATE32 ||
               id == HOODIE_TYPE_TIME32 || id == HOODIE_TYPE_DECIMAL;
    case HOODIE_AVRO_LONG:
        return id == HOODIE_TYPE_INT64 || id == HOODIE_TYPE_FLOAT || id == HOODIE_TYPE_DOUBLE ||
               id == HOODIE_TYPE_TIME64 || id == HOODIE_TYPE_TIMESTAMP || id == HOODIE_TYPE_DECIMAL;
    case HOODIE_AVRO_FLOAT: return id == HOODIE_TYPE_FLOAT || id == HOODIE_TYPE_DOUBLE;
    case HOODIE_AVRO_DOUBLE: return id == HOODIE_TYPE_DOUBLE;
    case HOODIE_AVRO_STRING: case HOODIE_AVRO_ENUM: return id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY;
    case HOODIE_AVRO_BYTES:
        return id == HOODIE_TYPE_BINARY || id == HOODIE_TYPE_STRING ||
               (id == HOODIE_TYPE_DECIMAL && w->logical == HOODIE_AVRO_LT_DECIMAL);
    case HOODIE_AVRO_FIXED:
        return (id == HOODIE_TYPE_FIXED_BINARY && r->type.width == w->size) || id == HOODIE_TYPE_BINARY ||
               (id == HOODIE_TYPE_DECIMAL && w->logical == HOODIE_AVRO_LT_DECIMAL);
    case HOODIE_AVRO_RECORD: return id == HOODIE_TYPE_STRUCT;
    case HOODIE_AVRO_ARRAY: return id == HOODIE_TYPE_LIST;
    case HOODIE_AVRO_MAP: return id == HOODIE_TYPE_MAP;
    case HOODIE_AVRO_UNION: return 1;
    }
    return 0;
}

static hoodie_status plan_build(plan *p, const hoodie_avro_schema *w, const hoodie_field *r)
{
    memset(p, 0, sizeof *p);
    p->w = w;
    p->r = r;
    if (!r) { /* skip: no children needed, hoodie_avro_skip handles the schema */
        return HOODIE_OK;
    }
    if (!readable_as(w, r)) {
        char tb[64];
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': Avro type %d cannot be read as %s", r->name, (int)w->kind,
                           hoodie_type_name(&r->type, tb, sizeof tb));
    }
    hoodie_field wf;
    if (retype_of(w, r, &wf)) {
        p->conv_from = malloc(sizeof *p->conv_from);
        p->conv_one = calloc(1, sizeof *p->conv_one);
        p->conv_text = malloc(sizeof *p->conv_text);
        p->children = calloc(1, sizeof *p->children);
        if (!p->conv_from || !p->conv_one || !p->conv_text || !p->children) {
            hoodie_field_dispose(&wf);
            return HOODIE_NOMEM();
        }
        p->n_children = 1;
        *p->conv_from = wf;
        *p->conv_text = (hoodie_buf)HOODIE_BUF_INIT;
        HOODIE_TRY(hoodie_array_init(p->conv_one, p->conv_from));
        return plan_build(&p->children[0], w, p->conv_from);
    }
    switch (w->kind) {
    case HOODIE_AVRO_UNION:
        p->n_children = w->count;
        p->children = calloc(w->count, sizeof *p->children);
        if (!p->children) return HOODIE_NOMEM();
        for (size_t i = 0; i < w->count; i++) {
            /* branches not readable as the reader type fail at decode time only if they occur */
            if (w->branches[i]->kind == HOODIE_AVRO_NULL || !readable_as(w->branches[i], r)) {
                p->children[i].w = w->branches[i];
                p->children[i].r = NULL;
                continue;
            }
            HOODIE_TRY(plan_build(&p->children[i], w->branches[i], r));
        }
        return HOODIE_OK;
    case HOODIE_AVRO_RECORD: {
        p->n_children = w->count;
        p->n_reader_children = r->n_children;
        p->children = calloc(w->count + 1, sizeof *p->children);
        p->target = calloc(w->count + 1, sizeof *p->target);
        p->fed = calloc(r->n_children + 1, 1);
        if (!p->children || !p->target || !p->fed) return HOODIE_NOMEM();
        for (size_t i = 0; i < w->count; i++) {
            int idx = hoodie_field_find(r, w->fields[i].name);
            p->target[i] = idx;
            if (idx >= 0) p->fed[idx] = 1;
            HOODIE_TRY(plan_build(&p->children[i], w->fields[i].type, idx >= 0 ? &r->children[idx] : NULL));
        }
        for (size_t k = 0; k < r->n_children; k++)
            if (!p->fed[k] && !r->children[k].nullable)
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s.%s' is missing from the writer's schema and is not "
                                   "nullable", r->name, r->children[k].name);
        return HOODIE_OK;
    }
    case HOODIE_AVRO_ARRAY:
    case HOODIE_AVRO_MAP: {
        p->n_children = 1;
        p->children = calloc(1, sizeof *p->children);
        if (!p->children) return HOODIE_NOMEM();
        const hoodie_field *elem = &r->children[0];
        if (w->kind == HOODIE_AVRO_MAP) elem = &elem->children[1]; /* entries.value */
        return plan_build(&p->children[0], w->items, elem);
    }
    default:
        return HOODIE_OK;
    }
}

/* How a non-union writer type `w` read as reader field `r` runs inline (F_GENERIC: it does not). */
static fop flat_value_op(const hoodie_avro_schema *w, const hoodie_field *r)
{
    hoodie_type_id id = r->type.id;
    switch (w->kind) {
    case HOODIE_AVRO_BOOLEAN: return id == HOODIE_TYPE_BOOL ? F_BOOL : F_GENERIC;
    case HOODIE_AVRO_INT:
        if (id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_DATE32 || id == HOODIE_TYPE_TIME32) return F_INT4;
        if (id == HOODIE_TYPE_INT64 || id == HOODIE_TYPE_TIME64) return F_INT8;
        return F_GENERIC;
    case HOODIE_AVRO_LONG:
        if (id == HOODIE_TYPE_INT64 || id == HOODIE_TYPE_TIME64) return F_LONG8;
        if (id == HOODIE_TYPE_TIMESTAMP && scale_time(1, w->logical, r->type.unit) == 1 &&
            scale_time(-1, w->logical, r->type.unit) == -1)
            return F_LONG8; /* the same unit, or a plain long taken in the reader's unit */
        return F_GENERIC;
    case HOODIE_AVRO_FLOAT: return id == HOODIE_TYPE_FLOAT ? F_FLOAT4 : F_GENERIC;
    case HOODIE_AVRO_DOUBLE: return id == HOODIE_TYPE_DOUBLE ? F_DOUBLE8 : F_GENERIC;
    case HOODIE_AVRO_STRING: case HOODIE_AVRO_BYTES:
        return id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY ? F_BYTES : F_GENERIC;
    default: return F_GENERIC;
    }
}

/* How a projected-out non-union writer type is skipped inline (F_GENERIC: by hoodie_avro_skip). */
static fop flat_skip_op(const hoodie_avro_schema *w, size_t *fixed)
{
    switch (w->kind) {
    case HOODIE_AVRO_NULL: return F_SKIP_NONE;
    case HOODIE_AVRO_INT: case HOODIE_AVRO_LONG: case HOODIE_AVRO_ENUM: return F_SKIP_VARINT;
    case HOODIE_AVRO_STRING: case HOODIE_AVRO_BYTES: return F_SKIP_BYTES;
    case HOODIE_AVRO_BOOLEAN: *fixed = 1; return F_SKIP_FIXED;
    case HOODIE_AVRO_FLOAT: *fixed = 4; return F_SKIP_FIXED;
    case HOODIE_AVRO_DOUBLE: *fixed = 8; return F_SKIP_FIXED;
    case HOODIE_AVRO_FIXED: *fixed = (size_t)w->size; return F_SKIP_FIXED;
    default: return F_GENERIC;
    }
}

static hoodie_status flat_compile(hoodie_avro_decoder *d)
{
    const plan *root = &d->root;
    const hoodie_avro_schema *w = root->w;
    d->n_ops = w->count;
    d->ops = calloc(w->count + 1, sizeof *d->ops);
    d->unfed = calloc(root->n_reader_children + 1, sizeof *d->unfed);
    if (!d->ops || !d->unfed) return HOODIE_NOMEM();
    for (size_t k = 0; k < root->n_reader_children; k++)
        if (!root->fed[k]) d->unfed[d->n_unfed++] = (int)k;
    d->one_each = 1; /* writer field names are unique (the schema parser checks), so this holds; checked anyway */
    for (size_t i = 0; i < w->count; i++)
        for (size_t j = 0; j < i; j++)
            if (root->target[i] >= 0 && root->target[i] == root->target[j]) d->one_each = 0;
    for (size_t i = 0; i < w->count; i++) {
        flat_op *op = &d->ops[i];
        const plan *p = &root->children[i];
        const hoodie_avro_schema *t = w->fields[i].type;
        op->p = p;
        op->f = p->r;
        op->target = root->target[i];
        op->op = F_GENERIC;
        if (t->kind == HOODIE_AVRO_UNION) {
            if (t->count != 2) continue;
            int nb = t->branches[0]->kind == HOODIE_AVRO_NULL ? 0 : t->branches[1]->kind == HOODIE_AVRO_NULL ? 1 : -1;
            if (nb < 0) continue;
            t = t->branches[1 - nb];
            if (t->kind == HOODIE_AVRO_NULL || t->kind == HOODIE_AVRO_UNION) continue;
            op->n_branches = 2;
            op->null_branch = nb;
        }
        op->op = p->r ? flat_value_op(t, p->r) : flat_skip_op(t, &op->fixed);
        if (op->op == F_GENERIC) op->n_branches = 0;
    }
    return HOODIE_OK;
}

hoodie_status hoodie_avro_decoder_new(hoodie_avro_decoder **out, const hoodie_avro_schema *writer,
                                      const hoodie_field *reader)
{
    *out = NULL;
    if (writer->kind != HOODIE_AVRO_RECORD || reader->type.id != HOODIE_TYPE_STRUCT)
        return HOODIE_FAIL(HOODIE_EINVAL, "Avro decoding needs a record schema and a struct field");
    hoodie_avro_decoder *d = calloc(1, sizeof *d);
    if (!d) return HOODIE_NOMEM();
    hoodie_status rc = plan_build(&d->root, writer, reader);
    if (rc == HOODIE_OK) rc = flat_compile(d);
    if (rc < 0) { hoodie_avro_decoder_free(d); return rc; }
    *out = d;
    return HOODIE_OK;
}

void hoodie_avro_decoder_free(hoodie_avro_decoder *d)
{
    if (!d) return;
    plan_dispose(&d->root);
    free(d->ops);
    free(d->unfed);
    free(d);
}

/* ---- decoding ---- */

static hoodie_status decode(const plan *p, hoodie_cursor *c, hoodie_array *a);

static hoodie_status bad_value(hoodie_cursor *c, const plan *p)
{
    return hoodie_cursor__fail(c, "value of field '%s' out of range", p->r ? p->r->name : "?");
}

static int64_t scale_time(int64_t v, hoodie_avro_logical from, hoodie_time_unit to)
{
    int from_exp; /* 10^-from_exp seconds */
    switch (from) {
    case HOODIE_AVRO_LT_TIMESTAMP_MILLIS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: from_exp = 3; break;
    case HOODIE_AVRO_LT_TIMESTAMP_NANOS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: from_exp = 9; break;
    case HOODIE_AVRO_LT_TIMESTAMP_MICROS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS: from_exp = 6; break;
    default: return v; /* a plain long: taken in the reader's unit */
    }
    int to_exp = to == HOODIE_UNIT_SECOND ? 0 : to == HOODIE_UNIT_MILLI ? 3 : to == HOODIE_UNIT_MICRO ? 6 : 9;
    for (; from_exp < to_exp; from_exp += 3) v *= 1000;
    for (; from_exp > to_exp; from_exp -= 3) v = v >= 0 ? v / 1000 : -((-v + 999) / 1000);
    return v;
}

static hoodie_status append_decimal_be(hoodie_array *a, const hoodie_field *f, const uint8_t *p, size_t n,
                                       hoodie_cursor *c)
{
    if (n > 16) return hoodie_cursor__fail(c, "decimal of %zu bytes in field '%s'", n, f->name);
    uint8_t le[16];
    uint8_t fill = n && (p[0] & 0x80) ? 0xff : 0;
    for (size_t i = 0; i < 16; i++) le[i] = i < n ? p[n - 1 - i] : fill;
    return hoodie_array_append_bytes(a, f, le, 16);
}

static hoodie_status decode(const plan *p, hoodie_cursor *c, hoodie_array *a)
{
    const hoodie_avro_schema *w = p->w;
    const hoodie_field *f = p->r;
    size_t len;
    const uint8_t *bytes;
    if (!f) { hoodie_avro_skip(c, w); return c->status; }
    if (p->conv_from) { /* the writer's value, then converted: a schema change's type (hoodie_conform_append) */
        p->conv_one->length = 0;
        HOODIE_TRY(decode(&p->children[0], c, p->conv_one));
        return hoodie_conform_append(a, f, p->conv_one, p->conv_from, 0, p->conv_text);
    }
    switch (w->kind) {
    case HOODIE_AVRO_NULL:
        return hoodie_array_append_null(a, f);
    case HOODIE_AVRO_BOOLEAN: {
        uint8_t b = hoodie_cursor_u8(c);
        if (c->status) return c->status;
        return hoodie_array_append_bool(a, f, b != 0);
    }
    case HOODIE_AVRO_INT:
    case HOODIE_AVRO_LONG: {
        int64_t v = w->kind == HOODIE_AVRO_INT ? hoodie_avro_read_int(c) : hoodie_avro_read_long(c);
        if (c->status) return c->status;
        switch (f->type.id) {
        case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DOUBLE: return hoodie_array_append_double(a, f, (double)v);
        case HOODIE_TYPE_INT8: if (v < INT8_MIN || v > INT8_MAX) return bad_value(c, p); break;
        case HOODIE_TYPE_INT16: if (v < INT16_MIN || v > INT16_MAX) return bad_value(c, p); break;
        case HOODIE_TYPE_TIMESTAMP: v = scale_time(v, w->logical, f->type.unit); break;
        default: break;
        }
        return hoodie_array_append_int(a, f, v);
    }
    case HOODIE_AVRO_FLOAT: {
        float v = hoodie_avro_read_float(c);
        if (c->status) return c->status;
        return hoodie_array_append_double(a, f, (double)v);
    }
    case HOODIE_AVRO_DOUBLE: {
        double v = hoodie_avro_read_double(c);
        if (c->status) return c->status;
        return hoodie_array_append_double(a, f, v);
    }
    case HOODIE_AVRO_STRING:
    case HOODIE_AVRO_BYTES:
        bytes = hoodie_avro_read_bytes(c, &len);
        if (c->status) return c->status;
        if (f->type.id == HOODIE_TYPE_DECIMAL) return append_decimal_be(a, f, bytes, len, c);
        return hoodie_array_append_bytes(a, f, bytes, len);
    case HOODIE_AVRO_FIXED:
        bytes = hoodie_cursor_bytes(c, (size_t)w->size);
        if (c->status) return c->status;
        if (f->type.id == HOODIE_TYPE_DECIMAL) return append_decimal_be(a, f, bytes, (size_t)w->size, c);
        return hoodie_array_append_bytes(a, f, bytes, (size_t)w->size);
    case HOODIE_AVRO_ENUM: {
        int64_t i = hoodie_avro_read_long(c);
        if (c->status) return c->status;
        if (i < 0 || (uint64_t)i >= w->count) return hoodie_cursor__fail(c, "enum index %lld out of range", (long long)i);
        return hoodie_array_append_str(a, f, w->symbols[i]);
    }
    case HOODIE_AVRO_UNION: {
        int64_t b = hoodie_avro_read_long(c);
        if (c->status) return c->status;
        if (b < 0 || (uint64_t)b >= w->count)
            return hoodie_cursor__fail(c, "union branch %lld out of range in field '%s'", (long long)b, f->name);
        const plan *br = &p->children[b];
        if (br->w->kind == HOODIE_AVRO_NULL) {
            if (!f->nullable) return hoodie_cursor__fail(c, "null in non-nullable field '%s'", f->name);
            return hoodie_array_append_null(a, f);
        }
        if (!br->r)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': union branch %lld cannot be read", f->name, (long long)b);
        return decode(br, c, a);
    }
    case HOODIE_AVRO_RECORD: {
        for (size_t i = 0; i < p->n_children; i++) {
            int t = p->target[i];
            HOODIE_TRY(decode(&p->children[i], c, t >= 0 ? &a->children[t] : NULL));
        }
        for (size_t k = 0; k < p->n_reader_children; k++)
            if (!p->fed[k]) HOODIE_TRY(hoodie_array_append_null(&a->children[k], &f->children[k]));
        return hoodie_array_struct_end(a, f);
    }
    case HOODIE_AVRO_ARRAY:
    case HOODIE_AVRO_MAP: {
        hoodie_array *elems = hoodie_array_list_elems(a);
        const hoodie_field *ef = &f->children[0];
        for (int64_t n; (n = hoodie_avro_read_block_count(c)) > 0;) {
            for (int64_t i = 0; i < n; i++) {
                if (w->kind == HOODIE_AVRO_MAP) {
                    bytes = hoodie_avro_read_bytes(c, &len);
                    if (c->status) return c->status;
                    HOODIE_TRY(hoodie_array_append_bytes(&elems->children[0], &ef->children[0], bytes, len));
                    HOODIE_TRY(decode(&p->children[0], c, &elems->children[1]));
                    HOODIE_TRY(hoodie_array_struct_end(elems, ef));
                } else {
                    HOODIE_TRY(decode(&p->children[0], c, elems));
                }
            }
        }
        if (c->status) return c->status;
        return hoodie_array_list_end(a, f);
    }
    }
    return HOODIE_OK;
}

/* ---- the flat program ---- */

/* Room for one more row of a fixed-width column of w bytes (validity included)? */
static inline int fixed_room(const hoodie_array *a, size_t w)
{
    size_t n = (size_t)a->length + 1;
    return n * w <= a->values_cap && (!a->validity || (n + 7) / 8 <= a->validity_cap);
}

static inline void row_valid(hoodie_array *a)
{
    if (a->validity) hoodie_bit_set(a->validity, a->length);
    a->length++;
}

static inline hoodie_status put_fixed(hoodie_array *a, const hoodie_field *f, const void *v, size_t w)
{
    if (__builtin_expect(!fixed_room(a, w), 0)) HOODIE_TRY(hoodie_array_reserve(a, f, a->length + 1, 0));
    memcpy(a->values + (size_t)a->length * w, v, w);
    row_valid(a);
    return HOODIE_OK;
}

/* A string/bytes value appended straight from the cursor into the column's data buffer. */
static inline hoodie_status put_bytes(hoodie_cursor *c, hoodie_array *a, const hoodie_field *f)
{
    int64_t n = hoodie_avro_read_long(c);
    if (c->status) return c->status;
    if (n < 0 || (uint64_t)n > hoodie_cursor_left(c))
        return hoodie_cursor__fail(c, "avro bytes of length %lld with %zu bytes left", (long long)n,
                                   hoodie_cursor_left(c));
    size_t len = (size_t)n, need = a->values_len + len, rows = (size_t)a->length + 1;
    if (__builtin_expect(need > a->values_cap || need > INT32_MAX || (rows + 1) * sizeof(int32_t) > a->offsets_cap ||
                         (a->validity && (rows + 7) / 8 > a->validity_cap), 0)) {
        if (need > INT32_MAX)
            return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s': more than 2 GiB of values in one array", f->name);
        HOODIE_TRY(hoodie_array_reserve(a, f, a->length + 1, need));
    }
    if (len) memcpy(a->values + a->values_len, c->p, len);
    c->p += len;
    a->values_len = need;
    a->offsets[a->length + 1] = (int32_t)need;
    row_valid(a);
    return HOODIE_OK;
}

static hoodie_status run_op(const flat_op *op, hoodie_cursor *c, hoodie_array *root)
{
    hoodie_array *a = op->target >= 0 ? &root->children[op->target] : NULL;
    const hoodie_field *f = op->f;
    if (op->op == F_GENERIC) return decode(op->p, c, a);
    if (op->n_branches) {
        int64_t b = hoodie_avro_read_long(c);
        if (c->status) return c->status;
        if (b == op->null_branch) {
            if (!f) return HOODIE_OK;
            if (!f->nullable) return hoodie_cursor__fail(c, "null in non-nullable field '%s'", f->name);
            return hoodie_array_append_null(a, f);
        }
        if (b != 1 - op->null_branch) {
            if (!f) return hoodie_cursor__fail(c, "avro union branch %lld out of range", (long long)b);
            return hoodie_cursor__fail(c, "union branch %lld out of range in field '%s'", (long long)b, f->name);
        }
    }
    switch (op->op) {
    case F_GENERIC: case F_SKIP_NONE: return HOODIE_OK;
    case F_SKIP_VARINT: (void)hoodie_avro_read_uvarint(c); return c->status;
    case F_SKIP_BYTES: { size_t len; (void)hoodie_avro_read_bytes(c, &len); return c->status; }
    case F_SKIP_FIXED: (void)hoodie_cursor_bytes(c, op->fixed); return c->status;
    case F_BOOL: {
        uint8_t v = hoodie_cursor_u8(c);
        if (c->status) return c->status;
        return hoodie_array_append_bool(a, f, v != 0);
    }
    /* read a value, then store it as the column's w bytes */
#define READ_PUT(T, read, w) \
    do { T v_ = (read); if (c->status) return c->status; return put_fixed(a, f, &v_, (w)); } while (0)
    case F_INT4: READ_PUT(int32_t, hoodie_avro_read_int(c), 4);
    case F_INT8: READ_PUT(int64_t, hoodie_avro_read_int(c), 8);
    case F_LONG8: READ_PUT(int64_t, hoodie_avro_read_long(c), 8);
    case F_FLOAT4: READ_PUT(float, hoodie_avro_read_float(c), 4);
    case F_DOUBLE8: READ_PUT(double, hoodie_avro_read_double(c), 8);
#undef READ_PUT
    case F_BYTES: return put_bytes(c, a, f);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_avro_decode_row(hoodie_avro_decoder *d, hoodie_cursor *c, hoodie_array *root)
{
    const hoodie_field *rf = d->root.r;
    for (size_t i = 0; i < d->n_ops; i++) HOODIE_TRY(run_op(&d->ops[i], c, root));
    for (size_t k = 0; k < d->n_unfed; k++)
        HOODIE_TRY(hoodie_array_append_null(&root->children[d->unfed[k]], &rf->children[d->unfed[k]]));
    /* every reader child got exactly one value */
    if (root->validity || !d->one_each) return hoodie_array_struct_end(root, rf);
    root->length++;
    return HOODIE_OK;
}

hoodie_status hoodie_avro__decode_row_generic(hoodie_avro_decoder *d, hoodie_cursor *c, hoodie_array *root)
{
    return decode(&d->root, c, root);
}

hoodie_status hoodie_avro_decoder_reserve(const hoodie_avro_decoder *d, hoodie_array *root, int64_t rows)
{
    const hoodie_field *rf = d->root.r;
    if (rows <= 0) return HOODIE_OK;
    for (size_t i = 0; i < d->n_ops; i++) {
        const flat_op *op = &d->ops[i];
        if (op->target < 0 || op->op < F_BOOL) continue;
        hoodie_array *a = &root->children[op->target];
        HOODIE_TRY(hoodie_array_reserve(a, &rf->children[op->target], a->length + rows, a->values_len));
    }
    return HOODIE_OK;
}
