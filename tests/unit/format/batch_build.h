/*
 * Test-only helpers to build hoodie_field schemas and append values to hoodie_array (Arrow layout).
 * Private to the Parquet writer tests (general builders live in src/model). Allocation failures abort.
 */
#ifndef HOODIE_TEST_BATCH_BUILD_H
#define HOODIE_TEST_BATCH_BUILD_H

#include <stdlib.h>
#include <string.h>
#include "model/batch.h"

static inline void bb_grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    uint8_t *n = realloc(*p, nc);
    if (!n) abort();
    memset(n + *cap, 0, nc - *cap);
    *p = n;
    *cap = nc;
}

/* Record validity of row a->length (does not advance length). */
static inline void bb_valid(hoodie_array *a, int valid)
{
    bb_grow((void **)&a->validity, &a->validity_cap, (size_t)(a->length + 8) / 8 + 1);
    if (valid) hoodie_bit_set(a->validity, a->length);
    else { hoodie_bit_clear(a->validity, a->length); a->null_count++; }
}

static inline void bb_fixed(hoodie_array *a, const void *v, size_t w, int valid)
{
    bb_valid(a, valid);
    bb_grow((void **)&a->values, &a->values_cap, (size_t)(a->length + 1) * w);
    if (valid && v) memcpy(a->values + (size_t)a->length * w, v, w);
    else memset(a->values + (size_t)a->length * w, 0, w);
    a->length++;
}

static inline void bb_bool(hoodie_array *a, int v, int valid)
{
    bb_valid(a, valid);
    bb_grow((void **)&a->values, &a->values_cap, (size_t)(a->length + 8) / 8 + 1);
    if (valid && v) hoodie_bit_set(a->values, a->length);
    else hoodie_bit_clear(a->values, a->length);
    a->length++;
}

static inline void bb_offsets_start(hoodie_array *a)
{
    bb_grow((void **)&a->offsets, &a->offsets_cap, (size_t)(a->length + 2) * sizeof(int32_t));
    if (a->length == 0) a->offsets[0] = 0;
}

static inline void bb_bytes(hoodie_array *a, const void *p, size_t n, int valid)
{
    bb_valid(a, valid);
    bb_offsets_start(a);
    if (!valid) n = 0;
    bb_grow((void **)&a->values, &a->values_cap, a->values_len + n + 1);
    if (n) memcpy(a->values + a->values_len, p, n);
    a->values_len += n;
    a->offsets[a->length + 1] = (int32_t)a->values_len;
    a->length++;
}

static inline void bb_str(hoodie_array *a, const char *s) { bb_bytes(a, s, s ? strlen(s) : 0, s != NULL); }

/* Close a list/map row: its elements are children[0][offsets[length] .. children[0].length). */
static inline void bb_list_end(hoodie_array *a, int valid)
{
    bb_valid(a, valid);
    bb_offsets_start(a);
    a->offsets[a->length + 1] = (int32_t)a->children[0].length;
    a->length++;
}

static inline void bb_struct(hoodie_array *a, int valid)
{
    bb_valid(a, valid);
    a->length++;
}

#define BB_TYPED(name, ctype) \
    static inline void bb_##name(hoodie_array *a, ctype v) { bb_fixed(a, &v, sizeof v, 1); }
BB_TYPED(i8, int8_t)
BB_TYPED(i16, int16_t)
BB_TYPED(i32, int32_t)
BB_TYPED(i64, int64_t)
BB_TYPED(u8, uint8_t)
BB_TYPED(u16, uint16_t)
BB_TYPED(u32, uint32_t)
BB_TYPED(u64, uint64_t)
BB_TYPED(f32, float)
BB_TYPED(f64, double)
#undef BB_TYPED

static inline void bb_null(hoodie_array *a, size_t w) { bb_fixed(a, NULL, w, 0); }

/* 16-byte little-endian two's complement decimal from an int64 (sign-extended) or hi/lo. */
static inline void bb_dec128(hoodie_array *a, int64_t hi, uint64_t lo)
{
    uint8_t b[16];
    memcpy(b, &lo, 8);
    memcpy(b + 8, &hi, 8);
    bb_fixed(a, b, 16, 1);
}
static inline void bb_dec(hoodie_array *a, int64_t v) { bb_dec128(a, v < 0 ? -1 : 0, (uint64_t)v); }

/* Schema helpers (fields are deep-copied by add_child, so build bottom-up and dispose the parts). */
static inline hoodie_field bb_field(const char *name, hoodie_type t, int nullable)
{
    hoodie_field f;
    if (hoodie_field_init(&f, name, t, nullable) != HOODIE_OK) abort();
    return f;
}
static inline void bb_add(hoodie_field *parent, hoodie_field child)
{
    if (hoodie_field_add_child(parent, &child) != HOODIE_OK) abort();
    hoodie_field_dispose(&child);
}
static inline hoodie_type bb_t(hoodie_type_id id) { return hoodie_type_of(id); }
static inline hoodie_type bb_tunit(hoodie_type_id id, hoodie_time_unit u, int utc)
{
    hoodie_type t = hoodie_type_of(id);
    t.unit = u;
    t.utc = utc;
    return t;
}
static inline hoodie_type bb_tdec(int p, int s)
{
    hoodie_type t = hoodie_type_of(HOODIE_TYPE_DECIMAL);
    t.precision = p;
    t.scale = s;
    return t;
}
static inline hoodie_type bb_text(hoodie_type_id id, hoodie_type_ext ext, int width)
{
    hoodie_type t = hoodie_type_of(id);
    t.ext = ext;
    t.width = width;
    return t;
}
static inline hoodie_field bb_list(const char *name, hoodie_field elem, int nullable)
{
    hoodie_field f = bb_field(name, bb_t(HOODIE_TYPE_LIST), nullable);
    bb_add(&f, elem);
    return f;
}
static inline hoodie_field bb_map(const char *name, hoodie_field key, hoodie_field value, int nullable)
{
    hoodie_field f = bb_field(name, bb_t(HOODIE_TYPE_MAP), nullable);
    hoodie_field e = bb_field("entries", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&e, key);
    bb_add(&e, value);
    bb_add(&f, e);
    return f;
}

#endif
