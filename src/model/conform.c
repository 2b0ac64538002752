#include "model/conform.h"
#include "model/build.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static int is_int(hoodie_type_id id)
{
    return id == HOODIE_TYPE_INT8 || id == HOODIE_TYPE_INT16 || id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_INT64;
}


/* Convert column `src` (field sf) into a new array for field tf by value. */
static hoodie_status promote(hoodie_array *dst, const hoodie_field *tf, const hoodie_array *src, const hoodie_field *sf)
{
    hoodie_type_id s = sf->type.id, t = tf->type.id;
    int ok = (is_int(s) && (t == HOODIE_TYPE_INT64 || (is_int(t) && hoodie_type_fixed_width(&tf->type) >=
                                                         hoodie_type_fixed_width(&sf->type)))) ||
             ((is_int(s) || s == HOODIE_TYPE_FLOAT) && (t == HOODIE_TYPE_FLOAT || t == HOODIE_TYPE_DOUBLE)) ||
             (s == HOODIE_TYPE_STRING && t == HOODIE_TYPE_BINARY) || (s == HOODIE_TYPE_BINARY && t == HOODIE_TYPE_STRING);
    if (!ok) {
        char a[64], b[64];
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "column '%s' of type %s cannot be read as %s", tf->name,
                           hoodie_type_name(&sf->type, a, sizeof a), hoodie_type_name(&tf->type, b, sizeof b));
    }
    HOODIE_TRY(hoodie_array_init(dst, tf));
    hoodie_status rc = HOODIE_OK;
    for (int64_t r = 0; r < src->length && rc == HOODIE_OK; r++) {
        if (!hoodie_array_is_valid(src, r)) { rc = hoodie_array_append_null(dst, tf); continue; }
        if (s == HOODIE_TYPE_STRING || s == HOODIE_TYPE_BINARY) {
            size_t n;
            const uint8_t *p = hoodie_array_bytes_at(src, r, &n);
            rc = hoodie_array_append_bytes(dst, tf, p, n);
        } else if (t == HOODIE_TYPE_FLOAT || t == HOODIE_TYPE_DOUBLE) {
            double v = s == HOODIE_TYPE_FLOAT ? (double)((const float *)src->values)[r] : (double)hoodie_array_int_at(sf, src, r);
            rc = hoodie_array_append_double(dst, tf, v);
        } else {
            rc = hoodie_array_append_int(dst, tf, hoodie_array_int_at(sf, src, r));
        }
    }
    if (rc < 0) hoodie_array_dispose(dst);
    return rc;
}

static hoodie_status conform_array(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                   const hoodie_field *sf);

static hoodie_status conform_struct_children(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                             const hoodie_field *sf, int64_t rows)
{
    for (size_t i = 0; i < tf->n_children; i++) {
        const hoodie_field *tc = &tf->children[i];
        int si = hoodie_field_find(sf, tc->name);
        hoodie_array_dispose(&dst->children[i]);
        if (si < 0) {
            if (!tc->nullable)
                return HOODIE_FAIL(HOODIE_EINVAL, "column '%s' is missing and not nullable", tc->name);
            HOODIE_TRY(hoodie_array_init(&dst->children[i], tc));
            HOODIE_TRY(hoodie_array_append_nulls(&dst->children[i], tc, rows));
        } else {
            HOODIE_TRY(conform_array(&dst->children[i], tc, &src->children[si], &sf->children[si]));
        }
    }
    return HOODIE_OK;
}

static int same_shape(const hoodie_field *a, const hoodie_field *b)
{
    if (a->type.id != b->type.id) return 0;
    switch (a->type.id) {
    case HOODIE_TYPE_FIXED_BINARY: return a->type.width == b->type.width;
    case HOODIE_TYPE_DECIMAL: return a->type.scale == b->type.scale;
    case HOODIE_TYPE_TIME32: case HOODIE_TYPE_TIME64: case HOODIE_TYPE_TIMESTAMP: return a->type.unit == b->type.unit;
    case HOODIE_TYPE_STRUCT: {
        if (a->n_children != b->n_children) return 0;
        for (size_t i = 0; i < a->n_children; i++)
            if (strcmp(a->children[i].name, b->children[i].name) || !same_shape(&a->children[i], &b->children[i]))
                return 0;
        return 1;
    }
    case HOODIE_TYPE_LIST: case HOODIE_TYPE_MAP:
        return a->n_children == b->n_children && same_shape(&a->children[0], &b->children[0]);
    default: return 1;
    }
}

static hoodie_status conform_array(hoodie_array *dst, const hoodie_field *tf, hoodie_array *src,
                                   const hoodie_field *sf)
{
    if (same_shape(tf, sf)) {
        *dst = *src; /* move */
        memset(src, 0, sizeof *src);
        return HOODIE_OK;
    }
    if (tf->type.id == HOODIE_TYPE_STRUCT && sf->type.id == HOODIE_TYPE_STRUCT) {
        HOODIE_TRY(hoodie_array_init(dst, tf));
        hoodie_status rc = conform_struct_children(dst, tf, src, sf, src->length);
        if (rc < 0) return rc;
        dst->length = src->length;
        dst->null_count = src->null_count;
        dst->validity = src->validity;
        dst->validity_cap = src->validity_cap;
        src->validity = NULL;
        src->validity_cap = 0;
        return HOODIE_OK;
    }
    if ((tf->type.id == HOODIE_TYPE_LIST || tf->type.id == HOODIE_TYPE_MAP) && tf->type.id == sf->type.id) {
        HOODIE_TRY(hoodie_array_init(dst, tf));
        hoodie_array_dispose(&dst->children[0]);
        HOODIE_TRY(conform_array(&dst->children[0], &tf->children[0], &src->children[0], &sf->children[0]));
        dst->length = src->length;
        dst->null_count = src->null_count;
        dst->validity = src->validity;
        dst->validity_cap = src->validity_cap;
        dst->offsets = src->offsets;
        dst->offsets_cap = src->offsets_cap;
        src->validity = NULL;
        src->offsets = NULL;
        src->validity_cap = src->offsets_cap = 0;
        return HOODIE_OK;
    }
    return promote(dst, tf, src, sf);
}

hoodie_status hoodie_conform_batch(hoodie_batch *out, const hoodie_field *target, hoodie_batch *src)
{
    HOODIE_TRY(hoodie_batch_init(out, target));
    hoodie_status rc = conform_struct_children(&out->root, &out->schema, &src->root, &src->schema,
                                               src->root.length);
    if (rc < 0) { hoodie_batch_dispose(out); return rc; }
    out->root.length = src->root.length;
    return HOODIE_OK;
}

