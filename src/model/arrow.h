/*
 * The Arrow C Data Interface and C Stream Interface over hoodie batches (internal API).
 *
 * Export moves buffers (zero copy): the exported ArrowArray owns them and frees them in its release callback,
 * and the source batch is left with its schema and no rows. Every exported node (schema or array) can be released
 * on its own, as the spec requires when a consumer moves a child out.
 *
 * Import copies into hoodie-owned buffers and never releases its input (the caller still owns it). It honours
 * `offset` at every level, null_count == -1 (computed), large types (U, Z, +L: converted to 32-bit offsets,
 * HOODIE_EUNSUPPORTED past 2 GiB), string/binary views (vu, vz: converted to STRING/BINARY), decimal32/64
 * (widened to 128 bits), date64 (converted to DATE32), fixed-size lists (+w:N: converted to LIST) and dictionary
 * arrays (decoded to their value type). Timestamps with any timezone import as utc=1, without one as utc=0.
 * Malformed input (wrong buffer count, missing buffers, bad offsets) gives HOODIE_EINVAL naming the field.
 *
 * Metadata: ARROW:extension:name "arrow.uuid" / "arrow.json" <-> ext UUID / JSON; "PARQUET:field_id" <->
 * field_id (written only when >= 0).
 */
#ifndef HOODIE_MODEL_ARROW_H
#define HOODIE_MODEL_ARROW_H

#include "hoodie/arrow.h"
#include "model/batch.h"

/** Describe `f` as an ArrowSchema (deep copy; `out` owns everything and frees it on release). */
hoodie_status hoodie_arrow_export_field(struct ArrowSchema *out, const hoodie_field *f);
/** Move `a` (shaped like `f`) into `out`. On success `a` has length 0 and no buffers (children kept, also
 *  emptied); on failure `a` is unchanged and `out` untouched. */
hoodie_status hoodie_arrow_export_array(struct ArrowArray *out, hoodie_array *a, const hoodie_field *f);
/** Export the batch's rows as a struct array (columns are its children); the batch keeps its schema, 0 rows. */
hoodie_status hoodie_arrow_export_batch(struct ArrowArray *out, hoodie_batch *b);

/** Build a hoodie_field from an ArrowSchema (not released). */
hoodie_status hoodie_arrow_import_field(hoodie_field *out, const struct ArrowSchema *s);
/** Copy `arr` (described by `s`; `f` is hoodie_arrow_import_field(s)) into a new array `out`. */
hoodie_status hoodie_arrow_import_array(hoodie_array *out, const hoodie_field *f, const struct ArrowSchema *s,
                                        const struct ArrowArray *arr);
/** Copy a struct array into a new batch `out` (schema imported from `s`, which must be a struct "+s"). */
hoodie_status hoodie_arrow_import_batch(hoodie_batch *out, const struct ArrowSchema *s,
                                        const struct ArrowArray *arr);

/**
 * Producer of batches for an exported stream: append rows to `out` (already initialised with the stream schema,
 * empty) and return HOODIE_OK, or return HOODIE_ITEROVER at the end, or a failure (message in the thread-local
 * error, which becomes the stream's get_last_error()). A batch returned with 0 rows is passed on as such.
 */
typedef hoodie_status (*hoodie_arrow_next_cb)(hoodie_batch *out, void *payload);

/**
 * Wrap a producer into an ArrowArrayStream. `schema` (a STRUCT field) is copied. `free_payload` (may be NULL) is
 * called with `payload` when the stream is released (also when this call fails).
 */
hoodie_status hoodie_arrow_stream_export(struct ArrowArrayStream *out, const hoodie_field *schema,
                                         hoodie_arrow_next_cb next, void (*free_payload)(void *), void *payload);

/** Consuming an ArrowArrayStream. */
typedef struct hoodie_arrow_reader {
    struct ArrowArrayStream stream;  /* moved in; released by hoodie_arrow_reader_close */
    hoodie_field schema;             /* imported stream schema (root STRUCT) */
    struct ArrowSchema arrow_schema; /* kept for importing each batch */
} hoodie_arrow_reader;

/** Take ownership of `stream` (its release is set to NULL) and read its schema. */
hoodie_status hoodie_arrow_reader_open(hoodie_arrow_reader *r, struct ArrowArrayStream *stream);
/** The next batch, in `out` (initialised here; dispose it): HOODIE_OK, HOODIE_ITEROVER at the end, or a failure
 *  (HOODIE_EIO carrying the stream's get_last_error text, or an import error). */
hoodie_status hoodie_arrow_reader_next(hoodie_arrow_reader *r, hoodie_batch *out);
void hoodie_arrow_reader_close(hoodie_arrow_reader *r);

#endif
