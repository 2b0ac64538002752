/*
 * Building and reshaping hoodie_array / hoodie_batch values.
 *
 * Conventions (the invariants every function here keeps, and expects of its inputs):
 *   - an array never has an offset: row i is at index i of its buffers;
 *   - STRUCT children have exactly the parent's length (a null struct row holds a null, or for a non-nullable
 *     child a zero/empty value, in each child);
 *   - LIST/MAP offsets start at 0 and end at the child's length;
 *   - validity == NULL means all rows valid; when present its first `length` bits are meaningful and null_count
 *     counts the clear bits. NULL-typed arrays have no buffers and null_count == length.
 *
 * Memory: arrays own their buffers (malloc). Functions that append leave `dst` unchanged in length on failure
 * (buffers may have grown); a partially appended nested value after a failure is not guaranteed to be consistent,
 * so callers dispose the array on error.
 *
 * Appending one value: `f` is the field the array was initialised with.
 *   scalars      hoodie_array_append_int / _uint / _bool / _float / _double / _bytes / _decimal128 / _null
 *   struct row   append one value to every child (a->children[i]), then hoodie_array_struct_end(a, f)
 *   list row     append the elements to hoodie_array_list_elems(a), then hoodie_array_list_end(a, f)
 *   map row      for each entry: append the key to e->children[0] and the value to e->children[1] and call
 *                hoodie_array_struct_end(e, &f->children[0]) where e = hoodie_array_list_elems(a); then
 *                hoodie_array_list_end(a, f)
 */
#ifndef HOODIE_MODEL_BUILD_H
#define HOODIE_MODEL_BUILD_H

#include <string.h>
#include "model/batch.h"

/* ---- bitmaps ---- */

/** Copy `count` bits from src (starting at bit src_off) to dst (starting at bit dst_off). dst must be large
 *  enough; bits of dst outside the range are preserved. */
void hoodie_bits_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off, int64_t count);
/** Number of set bits in [off, off+count). */
int64_t hoodie_bits_count(const uint8_t *bits, int64_t off, int64_t count);

/* ---- appending one value ---- */

hoodie_status hoodie_array_append_null(hoodie_array *a, const hoodie_field *f);
/** n nulls at once (one reservation). */
hoodie_status hoodie_array_append_nulls(hoodie_array *a, const hoodie_field *f, int64_t n);
hoodie_status hoodie_array_append_bool(hoodie_array *a, const hoodie_field *f, int v);
/** INT8..INT64, UINT8..UINT64 (two's complement bits), DATE32, TIME32, TIME64, TIMESTAMP: the value is
 *  truncated to the type's width. DECIMAL: the unscaled value, sign-extended. FLOAT16: the raw half bits. */
hoodie_status hoodie_array_append_int(hoodie_array *a, const hoodie_field *f, int64_t v);
hoodie_status hoodie_array_append_uint(hoodie_array *a, const hoodie_field *f, uint64_t v);
/** FLOAT or DOUBLE (converted to the column's width). */
hoodie_status hoodie_array_append_double(hoodie_array *a, const hoodie_field *f, double v);
hoodie_status hoodie_array_append_float(hoodie_array *a, const hoodie_field *f, float v);
/** STRING, BINARY; FIXED_BINARY and DECIMAL (16 bytes LE) need len == width. */
hoodie_status hoodie_array_append_bytes(hoodie_array *a, const hoodie_field *f, const void *p, size_t len);
static inline hoodie_status hoodie_array_append_str(hoodie_array *a, const hoodie_field *f, const char *s)
{
    return hoodie_array_append_bytes(a, f, s, strlen(s));
}
/** DECIMAL: the unscaled 128-bit value as two halves (hi signed). */
hoodie_status hoodie_array_append_decimal128(hoodie_array *a, const hoodie_field *f, int64_t hi, uint64_t lo);

/** Close a valid STRUCT row whose children already hold one more value each. */
hoodie_status hoodie_array_struct_end(hoodie_array *a, const hoodie_field *f);
/** The element array of a LIST, or the "entries" STRUCT array of a MAP. */
static inline hoodie_array *hoodie_array_list_elems(hoodie_array *a) { return &a->children[0]; }
/** Close a valid LIST/MAP row made of the elements appended to the child since the previous row. */
hoodie_status hoodie_array_list_end(hoodie_array *a, const hoodie_field *f);

/* ---- copying rows ---- */

/** Append rows [start, start+count) of src (shaped like `f`) to dst. Bulk: memcpy and offset rebasing. */
hoodie_status hoodie_array_append_range(hoodie_array *dst, const hoodie_field *f, const hoodie_array *src,
                                        int64_t start, int64_t count);

/** One selected row: row `row` of source number `source`. row < 0 selects a null. */
typedef struct hoodie_row_ref {
    uint32_t source;
    int64_t row;
} hoodie_row_ref;

/** Append src[rows[i]] for i in [0, n) to dst (rows[i] < 0: a null). Rows must be < src->length. */
hoodie_status hoodie_array_take(hoodie_array *dst, const hoodie_field *f, const hoodie_array *src,
                                const int64_t *rows, size_t n);
/** Append srcs[sel[i].source][sel[i].row] for each i (the merge layer's gather). All sources shaped like f. */
hoodie_status hoodie_array_take_multi(hoodie_array *dst, const hoodie_field *f, const hoodie_array *const *srcs,
                                      size_t n_srcs, const hoodie_row_ref *sel, size_t n);

/** Append the selected rows (sources: batches with schemas compatible with dst's) to dst. */
hoodie_status hoodie_batch_take(hoodie_batch *dst, const hoodie_batch *const *srcs, size_t n_srcs,
                                const hoodie_row_ref *sel, size_t n);
/** Append one row of src (same shape) to dst. */
hoodie_status hoodie_batch_append_row(hoodie_batch *dst, const hoodie_batch *src, int64_t row);
/** Append all rows of src to dst (schemas must be compatible). */
hoodie_status hoodie_batch_concat(hoodie_batch *dst, const hoodie_batch *src);
/** A new batch `out` (initialised here) holding a copy of rows [start, start+count) of src. */
hoodie_status hoodie_batch_slice(hoodie_batch *out, const hoodie_batch *src, int64_t start, int64_t count);
/** Deep copy. */
hoodie_status hoodie_batch_clone(hoodie_batch *out, const hoodie_batch *src);

/**
 * A new batch `out` (initialised here) with a copy of the selected columns of src, in the order given.
 * A path is a top-level column name or a dotted path through STRUCT fields ("a.b.c"): nested selection keeps the
 * enclosing structs (pruned to the selected fields, in first-selection order; struct validity kept), so
 * "a.b" and "a.c" give one column "a" of type struct<b, c>. A path that names a whole struct after some of its
 * fields were selected selects the whole struct. Paths do not descend into LIST or MAP (select them whole).
 * HOODIE_EINVAL if a path names no field.
 */
hoodie_status hoodie_batch_project(hoodie_batch *out, const hoodie_batch *src, const char *const *paths, size_t n);

/* ---- schema checks ---- */

/** Same names, types (all parameters), nullability and children, recursively. field_id is ignored. */
int hoodie_field_equal(const hoodie_field *a, const hoodie_field *b);
/** Same physical shape: types equal and children pairwise compatible (names ignored), so rows of an array of
 *  `src` can be appended to an array of `dst`. */
int hoodie_field_compatible(const hoodie_field *dst, const hoodie_field *src);

#endif
