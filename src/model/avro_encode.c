#include "model/avro_encode.h"
#include "format/avro/binary.h"
#include "model/value.h"
#include "util/cursor.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/*
 * An encoding plan mirrors the writer schema: each node knows the Avro type it writes (unions resolved to the
 * null branch and one value branch), the column field it reads (NULL: the column is missing, always null), and
 * how to convert the column's values.
 */
typedef enum op {
    OP_NULL,        /* nothing to write */
    OP_BOOL,
    OP_INT,         /* Avro int or long from an integer-like column (with time scaling) */
    OP_FLOAT,
    OP_DOUBLE,
    OP_BYTES,       /* bytes/string from STRING/BINARY/FIXED_BINARY */
    OP_FIXED,       /* fixed from FIXED_BINARY/BINARY */
    OP_DEC_BYTES,
    OP_DEC_FIXED,
    OP_ENUM,
    OP_RECORD,
    OP_ARRAY,
    OP_MAP
} op;

typedef struct node node;
struct node {
    op op;
    const hoodie_avro_schema *s;   /* the (non-union) schema written */
    const hoodie_field *f;         /* column field; NULL: missing column, always null */
    const char *name;              /* field name for messages */
    int64_t null_branch;           /* union index of "null", -1 if none */
    int64_t value_branch;          /* union index of the value branch, -1 when not a union */
    int is_int;                    /* OP_INT: Avro int (range-checked to 32 bits) */
    int64_t mul, div;              /* OP_INT: value * mul, floor(value / div) */
    node *children;                /* record: one per Avro field; array: element; map: value */
    int *col;                      /* record: column index per Avro field, -1 missing */
    size_t n_children;
};

/*
 * The flat program: one op per field of the top-level record. Scalar columns (plain or in a union) whose value is
 * written as it is stored are encoded inline, straight from the column into the output; the rest (nested types,
 * decimals, enums, unit conversions, missing columns) and every error run the field's generic node.
 */
typedef enum eop {
    E_GENERIC,
    E_BOOL,        /* BOOL column -> boolean */
    E_INT4,        /* 4-byte signed column (INT32, DATE32, TIME32) -> int/long, no conversion */
    E_INT8,        /* 8-byte signed column (INT64, TIME64, TIMESTAMP) -> long (or int: range-checked) */
    E_FLOAT,       /* FLOAT column -> float */
    E_DOUBLE,      /* DOUBLE column -> double */
    E_BYTES        /* STRING/BINARY column -> string/bytes */
} eop;

typedef struct flat_eop {
    eop op;
    int col;                       /* column index in the root */
    int is_union;
    int nullable;                  /* the union has a null branch */
    uint8_t null_byte, value_byte; /* the branch indexes, as one-byte varints */
    const node *n;
} flat_eop;

struct hoodie_avro_encoder {
    node root;
    flat_eop *ops;                 /* one per field of the root record */
    size_t n_ops;
};

static void node_dispose(node *n)
{
    for (size_t i = 0; i < n->n_children; i++) node_dispose(&n->children[i]);
    free(n->children);
    free(n->col);
}

static int is_integer(hoodie_type_id id)
{
    return id == HOODIE_TYPE_INT8 || id == HOODIE_TYPE_INT16 || id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_INT64 ||
           id == HOODIE_TYPE_UINT8 || id == HOODIE_TYPE_UINT16 || id == HOODIE_TYPE_UINT32 || id == HOODIE_TYPE_UINT64;
}

static int is_floating(hoodie_type_id id)
{
    return id == HOODIE_TYPE_FLOAT16 || id == HOODIE_TYPE_FLOAT || id == HOODIE_TYPE_DOUBLE;
}

/* Can a column of field f be written as Avro schema s (not a union)? */
static int writable_as(const hoodie_avro_schema *s, const hoodie_field *f)
{
    hoodie_type_id id = f->type.id;
    switch (s->kind) {
    case HOODIE_AVRO_NULL: return id == HOODIE_TYPE_NULL;
    case HOODIE_AVRO_BOOLEAN: return id == HOODIE_TYPE_BOOL;
    case HOODIE_AVRO_INT:
        if (s->logical == HOODIE_AVRO_LT_DATE) return id == HOODIE_TYPE_DATE32;
        if (s->logical == HOODIE_AVRO_LT_TIME_MILLIS) return id == HOODIE_TYPE_TIME32 || id == HOODIE_TYPE_TIME64;
        return is_integer(id) && id != HOODIE_TYPE_UINT64 ? 1 : id == HOODIE_TYPE_DATE32 || id == HOODIE_TYPE_TIME32;
    case HOODIE_AVRO_LONG:
        switch (s->logical) {
        case HOODIE_AVRO_LT_TIME_MICROS: return id == HOODIE_TYPE_TIME32 || id == HOODIE_TYPE_TIME64;
        case HOODIE_AVRO_LT_TIMESTAMP_MILLIS: case HOODIE_AVRO_LT_TIMESTAMP_MICROS: case HOODIE_AVRO_LT_TIMESTAMP_NANOS:
        case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
        case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS:
            return id == HOODIE_TYPE_TIMESTAMP;
        default:
            return is_integer(id) || id == HOODIE_TYPE_DATE32 || id == HOODIE_TYPE_TIME32 || id == HOODIE_TYPE_TIME64 ||
                   id == HOODIE_TYPE_TIMESTAMP;
        }
    case HOODIE_AVRO_FLOAT: case HOODIE_AVRO_DOUBLE: return is_floating(id);
    case HOODIE_AVRO_STRING: return id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY;
    case HOODIE_AVRO_ENUM: return id == HOODIE_TYPE_STRING;
    case HOODIE_AVRO_BYTES:
        if (s->logical == HOODIE_AVRO_LT_DECIMAL && id == HOODIE_TYPE_DECIMAL) return f->type.scale == s->scale;
        return id == HOODIE_TYPE_BINARY || id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_FIXED_BINARY;
    case HOODIE_AVRO_FIXED:
        if (s->logical == HOODIE_AVRO_LT_DECIMAL && id == HOODIE_TYPE_DECIMAL) return f->type.scale == s->scale;
        return (id == HOODIE_TYPE_FIXED_BINARY && f->type.width == s->size) || id == HOODIE_TYPE_BINARY;
    case HOODIE_AVRO_RECORD: return id == HOODIE_TYPE_STRUCT;
    case HOODIE_AVRO_ARRAY: return id == HOODIE_TYPE_LIST;
    case HOODIE_AVRO_MAP:
        return id == HOODIE_TYPE_MAP && f->n_children == 1 && f->children[0].n_children == 2 &&
               (f->children[0].children[0].type.id == HOODIE_TYPE_STRING ||
                f->children[0].children[0].type.id == HOODIE_TYPE_BINARY);
    case HOODIE_AVRO_UNION: return 0;
    }
    return 0;
}

/* 10^-exp seconds per unit */
static int unit_exp(hoodie_time_unit u)
{
    return u == HOODIE_UNIT_SECOND ? 0 : u == HOODIE_UNIT_MILLI ? 3 : u == HOODIE_UNIT_MICRO ? 6 : 9;
}

static int logical_exp(hoodie_avro_logical lt)
{
    switch (lt) {
    case HOODIE_AVRO_LT_TIME_MILLIS: case HOODIE_AVRO_LT_TIMESTAMP_MILLIS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS:
        return 3;
    case HOODIE_AVRO_LT_TIME_MICROS: case HOODIE_AVRO_LT_TIMESTAMP_MICROS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS:
        return 6;
    case HOODIE_AVRO_LT_TIMESTAMP_NANOS: case HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS: return 9;
    default: return -1;
    }
}

static hoodie_status plan_build(node *n, const hoodie_avro_schema *s, const hoodie_field *f, const char *name);

static hoodie_status plan_value(node *n, const hoodie_avro_schema *s, const hoodie_field *f)
{
    n->s = s;
    switch (s->kind) {
    case HOODIE_AVRO_NULL: n->op = OP_NULL; return HOODIE_OK;
    case HOODIE_AVRO_BOOLEAN: n->op = OP_BOOL; return HOODIE_OK;
    case HOODIE_AVRO_INT: case HOODIE_AVRO_LONG: {
        n->op = OP_INT;
        n->is_int = s->kind == HOODIE_AVRO_INT;
        n->mul = n->div = 1;
        int to = logical_exp(s->logical);
        hoodie_type_id id = f->type.id;
        if (to >= 0 && (id == HOODIE_TYPE_TIME32 || id == HOODIE_TYPE_TIME64 || id == HOODIE_TYPE_TIMESTAMP)) {
            int from = unit_exp(f->type.unit);
            for (; from < to; from += 3) n->mul *= 1000;
            for (; from > to; from -= 3) n->div *= 1000;
        }
        return HOODIE_OK;
    }
    case HOODIE_AVRO_FLOAT: n->op = OP_FLOAT; return HOODIE_OK;
    case HOODIE_AVRO_DOUBLE: n->op = OP_DOUBLE; return HOODIE_OK;
    case HOODIE_AVRO_STRING: n->op = OP_BYTES; return HOODIE_OK;
    case HOODIE_AVRO_ENUM: n->op = OP_ENUM; return HOODIE_OK;
    case HOODIE_AVRO_BYTES:
        n->op = f->type.id == HOODIE_TYPE_DECIMAL ? OP_DEC_BYTES : OP_BYTES;
        return HOODIE_OK;
    case HOODIE_AVRO_FIXED:
        n->op = f->type.id == HOODIE_TYPE_DECIMAL ? OP_DEC_FIXED : OP_FIXED;
        return HOODIE_OK;
    case HOODIE_AVRO_RECORD:
        n->op = OP_RECORD;
        n->n_children = s->count;
        n->children = calloc(s->count + 1, sizeof *n->children);
        n->col = calloc(s->count + 1, sizeof *n->col);
        if (!n->children || !n->col) return HOODIE_NOMEM();
        for (size_t i = 0; i < s->count; i++) {
            int c = hoodie_field_find(f, s->fields[i].name);
            n->col[i] = c;
            HOODIE_TRY(plan_build(&n->children[i], s->fields[i].type, c >= 0 ? &f->children[c] : NULL,
                                  s->fields[i].name));
        }
        return HOODIE_OK;
    case HOODIE_AVRO_ARRAY: case HOODIE_AVRO_MAP: {
        n->op = s->kind == HOODIE_AVRO_ARRAY ? OP_ARRAY : OP_MAP;
        n->n_children = 1;
        n->children = calloc(1, sizeof *n->children);
        if (!n->children) return HOODIE_NOMEM();
        const hoodie_field *ef = &f->children[0];
        if (s->kind == HOODIE_AVRO_MAP) ef = &ef->children[1];
        return plan_build(&n->children[0], s->items, ef, ef->name);
    }
    case HOODIE_AVRO_UNION:
        break;
    }
    return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "nested Avro unions are not supported");
}

static hoodie_status plan_build(node *n, const hoodie_avro_schema *s, const hoodie_field *f, const char *name)
{
    memset(n, 0, sizeof *n);
    n->f = f;
    n->name = name;
    n->null_branch = -1;
    n->value_branch = -1;
    n->s = s;
    if (s->kind == HOODIE_AVRO_UNION) {
        for (size_t i = 0; i < s->count; i++)
            if (s->branches[i]->kind == HOODIE_AVRO_NULL) { n->null_branch = (int64_t)i; break; }
        if (f && f->type.id != HOODIE_TYPE_NULL) {
            for (size_t i = 0; i < s->count && n->value_branch < 0; i++)
                if (s->branches[i]->kind != HOODIE_AVRO_NULL && s->branches[i]->kind != HOODIE_AVRO_UNION &&
                    writable_as(s->branches[i], f))
                    n->value_branch = (int64_t)i;
            if (n->value_branch < 0) {
                char tb[64];
                return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': a %s column fits no branch of its Avro union", name,
                                   hoodie_type_name(&f->type, tb, sizeof tb));
            }
            return plan_value(n, s->branches[n->value_branch], f);
        }
        if (n->null_branch < 0)
            return HOODIE_FAIL(HOODIE_EINVAL, "field '%s' is not nullable in the Avro schema but %s", name,
                               f ? "its column is of the null type" : "the batch has no such column");
        n->op = OP_NULL;
        n->f = NULL;
        return HOODIE_OK;
    }
    if (!f || f->type.id == HOODIE_TYPE_NULL) {
        if (s->kind != HOODIE_AVRO_NULL)
            return HOODIE_FAIL(HOODIE_EINVAL, "field '%s' is not nullable in the Avro schema but %s", name,
                               f ? "its column is of the null type" : "the batch has no such column");
        n->op = OP_NULL;
        n->f = NULL;
        return HOODIE_OK;
    }
    if (!writable_as(s, f)) {
        char tb[64];
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "field '%s': a %s column cannot be written as Avro type %d", name,
                           hoodie_type_name(&f->type, tb, sizeof tb), (int)s->kind);
    }
    return plan_value(n, s, f);
}

static eop flat_eop_of(const node *n)
{
    const hoodie_field *f = n->f;
    if (!f || n->null_branch > 63 || n->value_branch > 63) return E_GENERIC;
    hoodie_type_id id = f->type.id;
    switch (n->op) {
    case OP_BOOL: return id == HOODIE_TYPE_BOOL ? E_BOOL : E_GENERIC;
    case OP_INT:
        if (n->mul != 1 || n->div != 1) return E_GENERIC;
        if (id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_DATE32 || id == HOODIE_TYPE_TIME32) return E_INT4;
        if (id == HOODIE_TYPE_INT64 || id == HOODIE_TYPE_TIME64 || id == HOODIE_TYPE_TIMESTAMP) return E_INT8;
        return E_GENERIC;
    case OP_FLOAT: return id == HOODIE_TYPE_FLOAT ? E_FLOAT : E_GENERIC;
    case OP_DOUBLE: return id == HOODIE_TYPE_DOUBLE ? E_DOUBLE : E_GENERIC;
    case OP_BYTES: return id == HOODIE_TYPE_STRING || id == HOODIE_TYPE_BINARY ? E_BYTES : E_GENERIC;
    default: return E_GENERIC;
    }
}

static hoodie_status flat_compile(hoodie_avro_encoder *e)
{
    const node *root = &e->root;
    e->n_ops = root->n_children;
    e->ops = calloc(root->n_children + 1, sizeof *e->ops);
    if (!e->ops) return HOODIE_NOMEM();
    for (size_t i = 0; i < root->n_children; i++) {
        flat_eop *fo = &e->ops[i];
        const node *n = &root->children[i];
        fo->n = n;
        fo->col = root->col[i];
        fo->op = flat_eop_of(n);
        fo->is_union = n->value_branch >= 0 || n->null_branch >= 0;
        fo->nullable = n->null_branch >= 0;
        fo->null_byte = (uint8_t)(n->null_branch > 0 ? 2 * n->null_branch : 0);
        fo->value_byte = (uint8_t)(n->value_branch > 0 ? 2 * n->value_branch : 0);
    }
    return HOODIE_OK;
}

hoodie_status hoodie_avro_encoder_new(hoodie_avro_encoder **out, const hoodie_avro_schema *schema,
                                      const hoodie_field *fields)
{
    *out = NULL;
    if (schema->kind != HOODIE_AVRO_RECORD || fields->type.id != HOODIE_TYPE_STRUCT)
        return HOODIE_FAIL(HOODIE_EINVAL, "Avro encoding needs a record schema and a struct field");
    hoodie_avro_encoder *e = calloc(1, sizeof *e);
    if (!e) return HOODIE_NOMEM();
    hoodie_status rc = plan_build(&e->root, schema, fields, fields->name ? fields->name : "record");
    if (rc == HOODIE_OK) rc = flat_compile(e);
    if (rc < 0) { hoodie_avro_encoder_free(e); return rc; }
    *out = e;
    return HOODIE_OK;
}

void hoodie_avro_encoder_free(hoodie_avro_encoder *e)
{
    if (!e) return;
    node_dispose(&e->root);
    free(e->ops);
    free(e);
}

/* ---- encoding ---- */

static int64_t get_int(const hoodie_array *a, hoodie_type_id id, int64_t row, int *too_big)
{
    const uint8_t *v = a->values;
    switch (id) {
    case HOODIE_TYPE_INT8: return ((const int8_t *)v)[row];
    case HOODIE_TYPE_UINT8: return ((const uint8_t *)v)[row];
    case HOODIE_TYPE_INT16: { int16_t x; memcpy(&x, v + 2 * row, 2); return x; }
    case HOODIE_TYPE_UINT16: { uint16_t x; memcpy(&x, v + 2 * row, 2); return x; }
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32: case HOODIE_TYPE_TIME32: { int32_t x; memcpy(&x, v + 4 * row, 4); return x; }
    case HOODIE_TYPE_UINT32: { uint32_t x; memcpy(&x, v + 4 * row, 4); return x; }
    case HOODIE_TYPE_UINT64: {
        uint64_t x;
        memcpy(&x, v + 8 * row, 8);
        if (x > INT64_MAX) *too_big = 1;
        return (int64_t)x;
    }
    default: { int64_t x; memcpy(&x, v + 8 * row, 8); return x; }
    }
}

static double get_double(const hoodie_array *a, hoodie_type_id id, int64_t row)
{
    switch (id) {
    case HOODIE_TYPE_FLOAT16: { uint16_t h; memcpy(&h, a->values + 2 * row, 2); return hoodie_half_to_float(h); }
    case HOODIE_TYPE_FLOAT: { float x; memcpy(&x, a->values + 4 * row, 4); return x; }
    default: { double x; memcpy(&x, a->values + 8 * row, 8); return x; }
    }
}

static const uint8_t *get_bytes(const hoodie_array *a, const hoodie_field *f, int64_t row, size_t *len)
{
    if (f->type.id == HOODIE_TYPE_FIXED_BINARY) {
        *len = (size_t)f->type.width;
        return a->values + (size_t)row * (size_t)f->type.width;
    }
    return hoodie_array_bytes_at(a, row, len);
}

static hoodie_status bad(const node *n, int64_t row, const char *what)
{
    return HOODIE_FAIL(HOODIE_EINVAL, "field '%s', row %lld: %s", n->name, (long long)row, what);
}

/* Big-endian two's complement of a 16-byte little-endian value, minimal (BigInteger.toByteArray) or
 * sign-extended to `size` bytes. */
static hoodie_status put_decimal(hoodie_buf *out, const uint8_t le[16], int fixed_size, const node *n, int64_t row)
{
    uint8_t be[16];
    for (int i = 0; i < 16; i++) be[i] = le[15 - i];
    uint8_t fill = (be[0] & 0x80) ? 0xff : 0;
    int skip = 0; /* leading bytes that are pure sign extension */
    while (skip < 15 && be[skip] == fill && ((be[skip + 1] & 0x80) ? 0xff : 0) == fill) skip++;
    int minimal = 16 - skip;
    if (fixed_size < 0) return hoodie_avro_write_bytes(out, be + skip, (size_t)minimal);
    if (minimal > fixed_size) return bad(n, row, "decimal value does not fit its Avro fixed size");
    HOODIE_TRY(hoodie_buf_reserve(out, (size_t)fixed_size));
    for (int i = minimal; i < fixed_size; i++) out->data[out->len++] = fill;
    memcpy(out->data + out->len, be + skip, (size_t)minimal);
    out->len += (size_t)minimal;
    return HOODIE_OK;
}

static hoodie_status encode(const node *n, const hoodie_array *a, int64_t row, hoodie_buf *out)
{
    if (n->value_branch >= 0 || n->null_branch >= 0) { /* a union */
        if (!n->f || !hoodie_array_is_valid(a, row)) {
            if (n->null_branch < 0) return bad(n, row, "null value in a field that is not nullable");
            return hoodie_avro_write_long(out, n->null_branch);
        }
        HOODIE_TRY(hoodie_avro_write_long(out, n->value_branch));
    } else if (n->op == OP_NULL) {
        return HOODIE_OK;
    } else if (!hoodie_array_is_valid(a, row)) {
        return bad(n, row, "null value in a field that is not nullable");
    }
    const hoodie_field *f = n->f;
    switch (n->op) {
    case OP_NULL: return HOODIE_OK;
    case OP_BOOL: return hoodie_buf_putc(out, (uint8_t)hoodie_bit_get(a->values, row));
    case OP_INT: {
        int too_big = 0;
        int64_t v = get_int(a, f->type.id, row, &too_big);
        if (too_big) return bad(n, row, "unsigned value out of the range of an Avro long");
        if (n->mul != 1 && __builtin_mul_overflow(v, n->mul, &v))
            return bad(n, row, "time value overflows when converted to the Avro unit");
        if (n->div != 1) v = v >= 0 ? v / n->div : -((-(v + 1)) / n->div) - 1;
        if (n->is_int && (v < INT32_MIN || v > INT32_MAX)) return bad(n, row, "value out of the range of an Avro int");
        return hoodie_avro_write_long(out, v);
    }
    case OP_FLOAT: return hoodie_avro_write_float(out, (float)get_double(a, f->type.id, row));
    case OP_DOUBLE: return hoodie_avro_write_double(out, get_double(a, f->type.id, row));
    case OP_BYTES: {
        size_t len;
        const uint8_t *p = get_bytes(a, f, row, &len);
        return hoodie_avro_write_bytes(out, p, len);
    }
    case OP_FIXED: {
        size_t len;
        const uint8_t *p = get_bytes(a, f, row, &len);
        if (len != (size_t)n->s->size) return bad(n, row, "binary value does not have the Avro fixed size");
        return hoodie_buf_append(out, p, len);
    }
    case OP_DEC_BYTES: return put_decimal(out, a->values + 16 * (size_t)row, -1, n, row);
    case OP_DEC_FIXED: return put_decimal(out, a->values + 16 * (size_t)row, n->s->size, n, row);
    case OP_ENUM: {
        size_t len;
        const uint8_t *p = get_bytes(a, f, row, &len);
        for (size_t i = 0; i < n->s->count; i++)
            if (strlen(n->s->symbols[i]) == len && memcmp(n->s->symbols[i], p, len) == 0)
                return hoodie_avro_write_long(out, (int64_t)i);
        return bad(n, row, "value is not a symbol of the Avro enum");
    }
    case OP_RECORD:
        for (size_t i = 0; i < n->n_children; i++) {
            int c = n->col[i];
            HOODIE_TRY(encode(&n->children[i], c >= 0 ? &a->children[c] : NULL, row, out));
        }
        return HOODIE_OK;
    case OP_ARRAY: case OP_MAP: {
        int32_t lo = a->offsets[row], hi = a->offsets[row + 1];
        const hoodie_array *elems = &a->children[0];
        if (hi > lo) {
            HOODIE_TRY(hoodie_avro_write_long(out, hi - lo));
            for (int32_t i = lo; i < hi; i++) {
                if (n->op == OP_MAP) {
                    const hoodie_field *kf = &f->children[0].children[0];
                    size_t len;
                    if (!hoodie_array_is_valid(&elems->children[0], i)) return bad(n, row, "null map key");
                    const uint8_t *p = get_bytes(&elems->children[0], kf, i, &len);
                    HOODIE_TRY(hoodie_avro_write_bytes(out, p, len));
                    HOODIE_TRY(encode(&n->children[0], &elems->children[1], i, out));
                } else {
                    HOODIE_TRY(encode(&n->children[0], elems, i, out));
                }
            }
        }
        return hoodie_avro_write_long(out, 0);
    }
    }
    return HOODIE_OK;
}

/* ---- the flat program ---- */

/* Most bytes an op writes besides a string's payload: a branch index and a 10-byte varint or 8 bytes. */
#define FLAT_MAX 11

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) { *p++ = (uint8_t)(v | 0x80); v >>= 7; }
    *p++ = (uint8_t)v;
    return p;
}

/* Record `rec`: each field's value from its column source (hoodie_avro_col). */
static hoodie_status encode_flat(const hoodie_avro_encoder *e, const hoodie_avro_col *cols, int64_t rec,
                                 hoodie_buf *out)
{
    for (size_t i = 0; i < e->n_ops; i++) {
        const flat_eop *fo = &e->ops[i];
        const hoodie_avro_col *src = fo->col >= 0 ? &cols[fo->col] : NULL;
        const hoodie_array *a = src ? src->array : NULL;
        int64_t row = !src || src->constant ? 0 : src->rows ? src->rows[rec] : rec;
        if (fo->op == E_GENERIC) { HOODIE_TRY(encode(fo->n, a, row, out)); continue; }
        int valid = hoodie_array_is_valid(a, row);
        if (!valid && !fo->nullable) return encode(fo->n, a, row, out); /* the error */
        size_t len = 0;
        const uint8_t *bytes = NULL;
        if (fo->op == E_BYTES && valid) {
            bytes = hoodie_array_bytes_at(a, row, &len);
        }
        if (__builtin_expect(out->cap - out->len < FLAT_MAX + len, 0))
            HOODIE_TRY(hoodie_buf_reserve(out, FLAT_MAX + len));
        uint8_t *p = out->data + out->len;
        if (!valid) {
            *p = fo->null_byte;
            out->len++;
            continue;
        }
        if (fo->is_union) *p++ = fo->value_byte;
        switch (fo->op) {
        case E_GENERIC: break;
        case E_BOOL: *p++ = (uint8_t)hoodie_bit_get(a->values, row); break;
        case E_INT4: {
            int32_t v;
            memcpy(&v, a->values + 4 * (size_t)row, 4);
            p = put_varint(p, hoodie_zigzag_encode(v));
            break;
        }
        case E_INT8: {
            int64_t v;
            memcpy(&v, a->values + 8 * (size_t)row, 8);
            if (fo->n->is_int && (v < INT32_MIN || v > INT32_MAX)) return encode(fo->n, a, row, out); /* the error */
            p = put_varint(p, hoodie_zigzag_encode(v));
            break;
        }
        case E_FLOAT: memcpy(p, a->values + 4 * (size_t)row, 4); p += 4; break;
        case E_DOUBLE: memcpy(p, a->values + 8 * (size_t)row, 8); p += 8; break;
        case E_BYTES:
            p = put_varint(p, hoodie_zigzag_encode((int64_t)len));
            if (len) memcpy(p, bytes, len);
            p += len;
            break;
        }
        out->len = (size_t)(p - out->data);
    }
    return HOODIE_OK;
}

/* Bytes the flat ops may write for `count` records (generic fields not counted; the strings of columns taken
 * through a row list by their average length). */
static size_t flat_estimate(const hoodie_avro_encoder *e, const hoodie_avro_col *cols, int64_t start, int64_t count)
{
    size_t est = (size_t)count * 4; /* the data block's record lengths */
    for (size_t i = 0; i < e->n_ops; i++) {
        const flat_eop *fo = &e->ops[i];
        if (fo->op == E_GENERIC) continue;
        size_t per = 1 + (fo->op == E_BOOL ? 1 : fo->op == E_INT4 || fo->op == E_BYTES ? 5 : fo->op == E_FLOAT ? 4
                                                                                                    : 10);
        est += per * (size_t)count;
        const hoodie_avro_col *c = &cols[fo->col];
        if (fo->op != E_BYTES || !count || !c->array->length) continue;
        const int32_t *o = c->array->offsets;
        if (c->constant) est += (size_t)(o[1] - o[0]) * (size_t)count;
        else if (!c->rows) est += (size_t)(o[start + count] - o[start]);
        else est += (size_t)(o[c->array->length] - o[0]) / (size_t)c->array->length * (size_t)count;
    }
    return est;
}

/* The columns of `root` as sources taken row by row; a small array on the stack when it fits. */
enum { ROOT_COLS_STACK = 32 };
static hoodie_avro_col *root_cols(const hoodie_array *root, hoodie_avro_col *stack)
{
    size_t n = (size_t)root->n_children;
    hoodie_avro_col *c = n <= ROOT_COLS_STACK ? stack : malloc(n * sizeof *c);
    if (!c) return NULL;
    for (size_t i = 0; i < n; i++) c[i] = (hoodie_avro_col){ &root->children[i], NULL, 0 };
    return c;
}

hoodie_status hoodie_avro_encode_row(const hoodie_avro_encoder *e, const hoodie_array *root, int64_t row,
                                     hoodie_buf *out)
{
    size_t start = out->len;
    if (row < 0 || row >= root->length) return HOODIE_FAIL(HOODIE_EINVAL, "row %lld out of range", (long long)row);
    hoodie_avro_col stack[ROOT_COLS_STACK], *cols = root_cols(root, stack);
    if (!cols) return HOODIE_NOMEM();
    hoodie_status rc = encode_flat(e, cols, row, out);
    if (cols != stack) free(cols);
    if (rc < 0) out->len = start;
    return rc;
}

hoodie_status hoodie_avro__encode_row_generic(const hoodie_avro_encoder *e, const hoodie_array *root, int64_t row,
                                              hoodie_buf *out)
{
    size_t start = out->len;
    if (row < 0 || row >= root->length) return HOODIE_FAIL(HOODIE_EINVAL, "row %lld out of range", (long long)row);
    hoodie_status rc = encode(&e->root, root, row, out);
    if (rc < 0) out->len = start;
    return rc;
}

/* The data block of records [start, start+count), each taken from `cols` (validated by the callers). */
static hoodie_status data_block(hoodie_buf *out, hoodie_hlog_block_type type, const hoodie_avro_encoder *e,
                                const hoodie_avro_col *cols, int64_t start, int64_t count,
                                const hoodie_hlog_header_entry *header, size_t header_count)
{
    size_t begin = out->len;
    hoodie_hlog_block_mark m;
    hoodie_hlog_avro_writer w;
    hoodie_status rc = hoodie_hlog_block_begin(out, &m, type, header, header_count);
    if (rc == HOODIE_OK) rc = hoodie_buf_reserve(out, 64 + flat_estimate(e, cols, start, count));
    if (rc == HOODIE_OK) rc = hoodie_hlog_avro_content_begin(out, &w);
    /* Columns taken through a row list are read at scattered rows (a file group's rows of a large input): each value
     * costs a cache miss or two (offset, then bytes). Their loads are asked for ahead of use, the offsets and fixed
     * values PF_FAR records ahead, a string's bytes PF_NEAR records ahead (its offset is in cache by then). */
    enum { PF_MAX = 16, PF_FAR = 16, PF_NEAR = 8 };
    struct { const hoodie_array *a; const int64_t *rows; size_t width; } pf[PF_MAX];
    size_t npf = 0;
    for (size_t i = 0; i < e->n_ops && npf < PF_MAX; i++) {
        const flat_eop *fo = &e->ops[i];
        const hoodie_avro_col *c = fo->col >= 0 ? &cols[fo->col] : NULL;
        if (!c || c->constant || !c->rows || fo->op == E_GENERIC || fo->op == E_BOOL) continue;
        size_t width = fo->op == E_INT4 || fo->op == E_FLOAT ? 4 : fo->op == E_BYTES ? 0 : 8;
        if (!c->array->values || (!width && !c->array->offsets)) continue;
        pf[npf].a = c->array, pf[npf].rows = c->rows, pf[npf].width = width, npf++;
    }
    int64_t end = start + count;
    for (int64_t r = start; r < end && rc == HOODIE_OK; r++) {
        for (size_t k = 0; k < npf; k++) {
            const hoodie_array *a = pf[k].a;
            if (r + PF_FAR < end) {
                int64_t far = pf[k].rows[r + PF_FAR];
                if (pf[k].width) __builtin_prefetch(a->values + pf[k].width * (size_t)far);
                else __builtin_prefetch(&a->offsets[far]);
            }
            if (!pf[k].width && r + PF_NEAR < end) __builtin_prefetch(a->values + a->offsets[pf[k].rows[r + PF_NEAR]]);
        }
        rc = hoodie_hlog_avro_record_begin(out, &w);
        if (rc == HOODIE_OK) rc = encode_flat(e, cols, r, out);
        if (rc == HOODIE_OK) rc = hoodie_hlog_avro_record_end(out, &w);
    }
    if (rc == HOODIE_OK) rc = hoodie_hlog_avro_content_end(out, &w);
    if (rc == HOODIE_OK) rc = hoodie_hlog_block_end(out, &m);
    if (rc < 0) out->len = begin;
    return rc;
}

hoodie_status hoodie_avro_encode_data_block(hoodie_buf *out, const hoodie_avro_encoder *e, const hoodie_array *root,
                                            int64_t start, int64_t count, const hoodie_hlog_header_entry *header,
                                            size_t header_count)
{
    return hoodie_avro_encode_block(out, HOODIE_HLOG_AVRO_DATA_BLOCK, e, root, start, count, header, header_count);
}

hoodie_status hoodie_avro_encode_block(hoodie_buf *out, hoodie_hlog_block_type type, const hoodie_avro_encoder *e,
                                       const hoodie_array *root, int64_t start, int64_t count,
                                       const hoodie_hlog_header_entry *header, size_t header_count)
{
    if (type != HOODIE_HLOG_AVRO_DATA_BLOCK && type != HOODIE_HLOG_CDC_DATA_BLOCK)
        return HOODIE_FAIL(HOODIE_EINVAL, "block type %d does not hold Avro records", (int)type);
    if (start < 0 || count < 0 || start > root->length || count > root->length - start)
        return HOODIE_FAIL(HOODIE_EINVAL, "rows [%lld, +%lld) out of range", (long long)start, (long long)count);
    hoodie_avro_col stack[ROOT_COLS_STACK], *cols = root_cols(root, stack);
    if (!cols) return HOODIE_NOMEM();
    hoodie_status rc = data_block(out, type, e, cols, start, count, header, header_count);
    if (cols != stack) free(cols);
    return rc;
}

hoodie_status hoodie_avro_encode_data_block_cols(hoodie_buf *out, const hoodie_avro_encoder *e,
                                                 const hoodie_avro_col *cols, size_t n_cols, int64_t count,
                                                 const hoodie_hlog_header_entry *header, size_t header_count)
{
    if (count < 0) return HOODIE_FAIL(HOODIE_EINVAL, "negative record count %lld", (long long)count);
    for (size_t i = 0; i < e->n_ops; i++) {
        int c = e->ops[i].col;
        if (c < 0) continue;
        if ((size_t)c >= n_cols || !cols[c].array)
            return HOODIE_FAIL(HOODIE_EINVAL, "no column source for field %zu of %zu", (size_t)c, n_cols);
        const hoodie_avro_col *s = &cols[c];
        int64_t len = s->array->length;
        if (s->constant ? len < 1 && count > 0 : !s->rows && len < count)
            return HOODIE_FAIL(HOODIE_EINVAL, "column %d has %lld rows, %lld records need them", c, (long long)len,
                               (long long)(s->constant ? 1 : count));
        for (int64_t r = 0; s->rows && !s->constant && r < count; r++)
            if (s->rows[r] < 0 || s->rows[r] >= len)
                return HOODIE_FAIL(HOODIE_EINVAL, "record %lld takes row %lld of column %d, which has %lld rows",
                                   (long long)r, (long long)s->rows[r], c, (long long)len);
    }
    return data_block(out, HOODIE_HLOG_AVRO_DATA_BLOCK, e, cols, 0, count, header, header_count);
}
