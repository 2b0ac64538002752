#include "model/batch.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t hoodie_type_fixed_width(const hoodie_type *t)
{
    switch (t->id) {
    case HOODIE_TYPE_INT8: case HOODIE_TYPE_UINT8: return 1;
    case HOODIE_TYPE_INT16: case HOODIE_TYPE_UINT16: case HOODIE_TYPE_FLOAT16: return 2;
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_UINT32: case HOODIE_TYPE_FLOAT: case HOODIE_TYPE_DATE32:
    case HOODIE_TYPE_TIME32: return 4;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_UINT64: case HOODIE_TYPE_DOUBLE: case HOODIE_TYPE_TIME64:
    case HOODIE_TYPE_TIMESTAMP: return 8;
    case HOODIE_TYPE_DECIMAL: return 16;
    case HOODIE_TYPE_FIXED_BINARY: return (size_t)(t->width > 0 ? t->width : 0);
    default: return 0;
    }
}

static const char *unit_name(hoodie_time_unit u)
{
    static const char *n[] = { "s", "ms", "us", "ns" };
    return n[u & 3];
}

const char *hoodie_type_name(const hoodie_type *t, char *buf, size_t len)
{
    static const char *names[] = { "null", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float16", "float", "double", "string", "binary", "fixed_binary",
                                   "decimal", "date32", "time32", "time64", "timestamp", "struct", "list", "map" };
    switch (t->id) {
    case HOODIE_TYPE_FIXED_BINARY: snprintf(buf, len, "fixed_binary(%d)", t->width); break;
    case HOODIE_TYPE_DECIMAL: snprintf(buf, len, "decimal(%d,%d)", t->precision, t->scale); break;
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64:
        snprintf(buf, len, "%s[%s]", names[t->id], unit_name(t->unit)); break;
    case HOODIE_TYPE_TIMESTAMP:
        snprintf(buf, len, "timestamp[%s%s]", unit_name(t->unit), t->utc ? ", UTC" : ""); break;
    default:
        snprintf(buf, len, "%s", (unsigned)t->id < sizeof names / sizeof *names ? names[t->id] : "?");
    }
    return buf;
}

hoodie_status hoodie_field_init(hoodie_field *f, const char *name, hoodie_type type, int nullable)
{
    memset(f, 0, sizeof *f);
    f->name = strdup(name ? name : "");
    if (!f->name) return HOODIE_NOMEM();
    f->type = type;
    f->nullable = nullable;
    f->field_id = -1;
    return HOODIE_OK;
}

hoodie_status hoodie_field_clone(hoodie_field *out, const hoodie_field *in)
{
    HOODIE_TRY(hoodie_field_init(out, in->name, in->type, in->nullable));
    out->field_id = in->field_id;
    for (size_t i = 0; i < in->n_children; i++) {
        hoodie_status rc = hoodie_field_add_child(out, &in->children[i]);
        if (rc < 0) { hoodie_field_dispose(out); return rc; }
    }
    return HOODIE_OK;
}

hoodie_status hoodie_field_add_child(hoodie_field *f, const hoodie_field *child)
{
    hoodie_field *n = realloc(f->children, (f->n_children + 1) * sizeof *n);
    if (!n) return HOODIE_NOMEM();
    f->children = n;
    HOODIE_TRY(hoodie_field_clone(&f->children[f->n_children], child));
    f->n_children++;
    return HOODIE_OK;
}

void hoodie_field_dispose(hoodie_field *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->n_children; i++) hoodie_field_dispose(&f->children[i]);
    free(f->children);
    free(f->name);
    memset(f, 0, sizeof *f);
}

int hoodie_field_find(const hoodie_field *f, const char *name)
{
    for (size_t i = 0; i < f->n_children; i++)
        if (!strcmp(f->children[i].name, name)) return (int)i;
    return -1;
}

hoodie_status hoodie_array_init(hoodie_array *a, const hoodie_field *field)
{
    memset(a, 0, sizeof *a);
    if (field->n_children) {
        a->children = calloc(field->n_children, sizeof *a->children);
        if (!a->children) return HOODIE_NOMEM();
        a->n_children = field->n_children;
        for (size_t i = 0; i < field->n_children; i++) {
            hoodie_status rc = hoodie_array_init(&a->children[i], &field->children[i]);
            if (rc < 0) { hoodie_array_dispose(a); return rc; }
        }
    }
    return HOODIE_OK;
}

void hoodie_array_dispose(hoodie_array *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n_children; i++) hoodie_array_dispose(&a->children[i]);
    free(a->children);
    free(a->validity);
    free(a->offsets);
    free(a->values);
    memset(a, 0, sizeof *a);
}

void hoodie_array_clear(hoodie_array *a)
{
    a->length = 0;
    a->null_count = 0;
    a->values_len = 0;
    if (a->validity) { free(a->validity); a->validity = NULL; a->validity_cap = 0; }
    for (size_t i = 0; i < a->n_children; i++) hoodie_array_clear(&a->children[i]);
}

static hoodie_status grow(void **p, size_t *cap, size_t need, int zero)
{
    if (need <= *cap) return HOODIE_OK;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return HOODIE_NOMEM();
        ncap *= 2;
    }
    void *n = realloc(*p, ncap);
    if (!n) return HOODIE_NOMEM();
    hoodie_mem_advise_huge(n, ncap);
    if (zero) memset((uint8_t *)n + *cap, 0, ncap - *cap);
    *p = n;
    *cap = ncap;
    return HOODIE_OK;
}

hoodie_status hoodie_array_reserve(hoodie_array *a, const hoodie_field *field, int64_t rows, size_t bytes)
{
    size_t n = (size_t)(rows < 0 ? 0 : rows);
    if (a->validity) HOODIE_TRY(grow((void **)&a->validity, &a->validity_cap, (n + 7) / 8, 1));
    switch (field->type.id) {
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY:
        HOODIE_TRY(grow((void **)&a->values, &a->values_cap, bytes, 0));
        __attribute__((fallthrough));
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        HOODIE_TRY(grow((void **)&a->offsets, &a->offsets_cap, (n + 1) * sizeof(int32_t), 0));
        if (a->length == 0) a->offsets[0] = 0;
        break;
    case HOODIE_TYPE_BOOL:
        HOODIE_TRY(grow((void **)&a->values, &a->values_cap, (n + 7) / 8, 1));
        break;
    case HOODIE_TYPE_STRUCT: case HOODIE_TYPE_NULL:
        break;
    default: {
        size_t w = hoodie_type_fixed_width(&field->type), need;
        if (hoodie_mul_overflow(w, n, &need)) return HOODIE_NOMEM();
        HOODIE_TRY(grow((void **)&a->values, &a->values_cap, need, 0));
    }
    }
    return HOODIE_OK;
}

hoodie_status hoodie_array_materialize_validity(hoodie_array *a, int64_t capacity_rows)
{
    if (a->validity) {
        return grow((void **)&a->validity, &a->validity_cap, (size_t)(capacity_rows + 7) / 8, 1);
    }
    size_t need = (size_t)((capacity_rows > a->length ? capacity_rows : a->length) + 7) / 8;
    HOODIE_TRY(grow((void **)&a->validity, &a->validity_cap, need, 1));
    for (int64_t i = 0; i < a->length; i++) hoodie_bit_set(a->validity, i);
    return HOODIE_OK;
}

hoodie_status hoodie_batch_init(hoodie_batch *b, const hoodie_field *schema)
{
    memset(b, 0, sizeof *b);
    HOODIE_TRY(hoodie_field_clone(&b->schema, schema));
    hoodie_status rc = hoodie_array_init(&b->root, &b->schema);
    if (rc < 0) hoodie_field_dispose(&b->schema);
    return rc;
}

void hoodie_batch_dispose(hoodie_batch *b)
{
    if (!b) return;
    hoodie_array_dispose(&b->root);
    hoodie_field_dispose(&b->schema);
}
