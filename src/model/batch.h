/*
 * Columnar batches in the Arrow layout.
 *
 * A schema is a tree of hoodie_field; a batch is a root STRUCT array (never null) whose children are the
 * columns. Arrays own their buffers (malloc), so a batch can be exported to the Arrow C Data Interface without
 * copies and released by the consumer.
 *
 *   type            buffers used                                   children
 *   BOOL            validity, values (bit-packed, LSB first)       -
 *   INT*, UINT*,    validity, values (fixed width, little-endian)  -
 *   FLOAT, DOUBLE,
 *   DATE32, TIME*,
 *   TIMESTAMP,
 *   DECIMAL (16 B two's complement LE = Arrow decimal128), FIXED_BINARY (width bytes)
 *   STRING, BINARY  validity, offsets (int32, length+1), values    -
 *   STRUCT          validity                                       one per field
 *   LIST            validity, offsets (int32, length+1)            1: element
 *   MAP             validity, offsets (int32, length+1)            1: "entries" STRUCT(key not null, value)
 *
 * validity == NULL means "all valid". Bit i of validity set = row i valid.
 */
#ifndef HOODIE_MODEL_BATCH_H
#define HOODIE_MODEL_BATCH_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "hoodie/common.h"

typedef enum hoodie_type_id {
    HOODIE_TYPE_NULL = 0,
    HOODIE_TYPE_BOOL,
    HOODIE_TYPE_INT8, HOODIE_TYPE_INT16, HOODIE_TYPE_INT32, HOODIE_TYPE_INT64,
    HOODIE_TYPE_UINT8, HOODIE_TYPE_UINT16, HOODIE_TYPE_UINT32, HOODIE_TYPE_UINT64,
    HOODIE_TYPE_FLOAT16, HOODIE_TYPE_FLOAT, HOODIE_TYPE_DOUBLE,
    HOODIE_TYPE_STRING, HOODIE_TYPE_BINARY, HOODIE_TYPE_FIXED_BINARY,
    HOODIE_TYPE_DECIMAL,
    HOODIE_TYPE_DATE32,       /* days since epoch, int32 */
    HOODIE_TYPE_TIME32,       /* unit SECOND or MILLI, int32 */
    HOODIE_TYPE_TIME64,       /* unit MICRO or NANO, int64 */
    HOODIE_TYPE_TIMESTAMP,    /* int64 in `unit`; utc: adjusted to UTC (Arrow tz "UTC") or local (no tz) */
    HOODIE_TYPE_STRUCT, HOODIE_TYPE_LIST, HOODIE_TYPE_MAP
} hoodie_type_id;

typedef enum hoodie_time_unit {
    HOODIE_UNIT_SECOND = 0, HOODIE_UNIT_MILLI = 1, HOODIE_UNIT_MICRO = 2, HOODIE_UNIT_NANO = 3
} hoodie_time_unit;

/** Annotations that have no Arrow type of their own but must survive a Parquet round trip. */
typedef enum hoodie_type_ext {
    HOODIE_EXT_NONE = 0, HOODIE_EXT_JSON, HOODIE_EXT_ENUM, HOODIE_EXT_UUID, HOODIE_EXT_BSON,
    HOODIE_EXT_INT96           /* TIMESTAMP read from a legacy INT96 column */
} hoodie_type_ext;

typedef struct hoodie_type {
    hoodie_type_id id;
    int32_t width;             /* FIXED_BINARY: bytes */
    int32_t precision, scale;  /* DECIMAL */
    hoodie_time_unit unit;     /* TIME32, TIME64, TIMESTAMP */
    int utc;                   /* TIMESTAMP (and TIME): isAdjustedToUTC */
    hoodie_type_ext ext;
} hoodie_type;

typedef struct hoodie_field {
    char *name;                      /* malloc */
    hoodie_type type;
    int nullable;
    int32_t field_id;                /* Parquet field_id, -1 when absent */
    size_t n_children;
    struct hoodie_field *children;   /* malloc, n_children */
} hoodie_field;

typedef struct hoodie_array {
    int64_t length;
    int64_t null_count;
    uint8_t *validity;               /* malloc or NULL (all valid) */
    int32_t *offsets;                /* malloc; STRING, BINARY, LIST, MAP */
    uint8_t *values;                 /* malloc; fixed-width values, bool bits, or var-width bytes */
    size_t values_len;               /* STRING/BINARY: bytes used in values */
    size_t n_children;
    struct hoodie_array *children;   /* malloc, n_children */
    /* capacities, in bytes, of the three buffers */
    size_t validity_cap, offsets_cap, values_cap;
} hoodie_array;

typedef struct hoodie_batch {
    hoodie_field schema;             /* root STRUCT; its children are the columns */
    hoodie_array root;               /* root STRUCT array; root.length is the number of rows */
} hoodie_batch;

/* ---- types ---- */

/** Bytes per value of a fixed-width type (BOOL: 0, it is bit-packed; var-width and nested: 0). */
size_t hoodie_type_fixed_width(const hoodie_type *t);
/** A hoodie_type with just an id (everything else zero). */
/** 1 for the signed integer types INT8 to INT64. */
static inline int hoodie_type_is_int(hoodie_type_id id)
{
    return id == HOODIE_TYPE_INT8 || id == HOODIE_TYPE_INT16 || id == HOODIE_TYPE_INT32 || id == HOODIE_TYPE_INT64;
}

static inline hoodie_type hoodie_type_of(hoodie_type_id id)
{
    hoodie_type t = { id, 0, 0, 0, HOODIE_UNIT_SECOND, 0, HOODIE_EXT_NONE };
    return t;
}
/** Human-readable type, e.g. "decimal(10,2)", "timestamp[us, UTC]", "list<int32>" (static or arena-free buf). */
const char *hoodie_type_name(const hoodie_type *t, char *buf, size_t len);

/* ---- fields ---- */

/** Initialise a leaf or empty nested field; name is copied. */
hoodie_status hoodie_field_init(hoodie_field *f, const char *name, hoodie_type type, int nullable);
/** Append a child (deep-copied) to a STRUCT/LIST/MAP field. */
hoodie_status hoodie_field_add_child(hoodie_field *f, const hoodie_field *child);
hoodie_status hoodie_field_clone(hoodie_field *out, const hoodie_field *in);
void hoodie_field_dispose(hoodie_field *f);
/** Index of a child by name, or -1. */
int hoodie_field_find(const hoodie_field *f, const char *name);

/* ---- arrays ---- */

/** An empty array shaped for `field` (children created recursively). */
hoodie_status hoodie_array_init(hoodie_array *a, const hoodie_field *field);
void hoodie_array_dispose(hoodie_array *a);
/** Empty the array (length 0) but keep its buffers and children's buffers. */
void hoodie_array_clear(hoodie_array *a);
/** Ensure the buffers can hold `rows` values (and var-width bytes `bytes`), for the array's own level. */
hoodie_status hoodie_array_reserve(hoodie_array *a, const hoodie_field *field, int64_t rows, size_t bytes);
/** Make validity explicit for the current length (all set) so nulls can be recorded. */
hoodie_status hoodie_array_materialize_validity(hoodie_array *a, int64_t capacity_rows);

static inline int hoodie_bit_get(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
static inline void hoodie_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static inline void hoodie_bit_clear(uint8_t *bits, int64_t i) { bits[i >> 3] &= (uint8_t)~(1u << (i & 7)); }
static inline int hoodie_array_is_valid(const hoodie_array *a, int64_t i)
{
    return !a->validity || hoodie_bit_get(a->validity, i);
}

/** A fixed-width integer cell of w bytes (1, 2, 4, 8), sign-extended / zero-extended. */
static inline int64_t hoodie_array_get_i(const hoodie_array *a, int64_t r, size_t w)
{
    const uint8_t *p = a->values + (size_t)r * w;
    switch (w) {
    case 1: return (int8_t)*p;
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}
static inline uint64_t hoodie_array_get_u(const hoodie_array *a, int64_t r, size_t w)
{
    const uint8_t *p = a->values + (size_t)r * w;
    switch (w) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}
/** An integer-like cell (INT*, UINT*, DATE32, TIME*, TIMESTAMP) as int64: unsigned types zero-extended (UINT64
 *  keeps its bits). */
static inline int64_t hoodie_array_int_at(const hoodie_field *f, const hoodie_array *a, int64_t r)
{
    size_t w = hoodie_type_fixed_width(&f->type);
    hoodie_type_id id = f->type.id;
    if (id == HOODIE_TYPE_UINT8 || id == HOODIE_TYPE_UINT16 || id == HOODIE_TYPE_UINT32)
        return (int64_t)hoodie_array_get_u(a, r, w);
    return hoodie_array_get_i(a, r, w);
}

/** A STRING/BINARY cell's bytes (never NULL: an array of empty strings may hold no value bytes at all). */
static inline const uint8_t *hoodie_array_bytes_at(const hoodie_array *a, int64_t r, size_t *len)
{
    int32_t o = a->offsets[r];
    *len = (size_t)(a->offsets[r + 1] - o);
    return a->values ? a->values + o : (const uint8_t *)"";
}
/** The same, a null cell as the empty string (for keys compared as bytes). */
static inline void hoodie_array_bytes_or_empty(const hoodie_array *a, int64_t r, const uint8_t **p, size_t *len)
{
    if (hoodie_array_is_valid(a, r)) *p = hoodie_array_bytes_at(a, r, len);
    else { *p = (const uint8_t *)""; *len = 0; }
}

/* ---- batches ---- */

/** A batch with the given schema (a root STRUCT field, deep-copied) and no rows. */
hoodie_status hoodie_batch_init(hoodie_batch *b, const hoodie_field *schema);
void hoodie_batch_dispose(hoodie_batch *b);
static inline int64_t hoodie_batch_rows(const hoodie_batch *b) { return b->root.length; }
static inline size_t hoodie_batch_columns(const hoodie_batch *b) { return b->root.n_children; }

#endif
