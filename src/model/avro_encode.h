/*
 * Encoding rows of a columnar batch as Avro binary records (the records of Hudi's AVRO_DATA_BLOCKs), for a given
 * writer schema. The inverse of model/avro.h's decoder.
 *
 * Record fields are taken from the batch's columns by name (columns the schema does not name are ignored; a
 * field with no column is written as null, which must be allowed: a union with "null" or the null type).
 * Unions: a null cell takes the schema's "null" branch, a value the first branch that can hold the column's type,
 * both by their index in the schema (so ["null","string"] and ["string","null"] both work). A null cell where
 * the schema has no null branch is an error naming the field and row.
 *
 * Column type -> Avro type accepted:
 *   boolean       BOOL
 *   int           INT8/16/32, UINT8/16, INT64/UINT32 (range-checked), DATE32, TIME32/TIME64 (time-millis:
 *                 converted to ms)
 *   long          any integer type (UINT64 range-checked), DATE32, TIME32/TIME64, TIMESTAMP; with logical type
 *                 timestamp-/local-timestamp-millis/micros/nanos or time-micros the value is converted from the
 *                 column's unit (floor division when coarsening, overflow checked when refining)
 *   float, double FLOAT16, FLOAT, DOUBLE
 *   string        STRING, BINARY;   enum: STRING holding one of the symbols
 *   bytes         BINARY, STRING, FIXED_BINARY; decimal: DECIMAL with the same scale, written as the minimal
 *                 big-endian two's complement of the unscaled value (Java's BigInteger.toByteArray)
 *   fixed         FIXED_BINARY of the same size, BINARY of that length; decimal: DECIMAL with the same scale,
 *                 sign-extended to the fixed size (error if it does not fit)
 *   record        STRUCT;  array: LIST;  map: MAP with STRING (or BINARY) keys
 *
 * Arrays and maps are written as Java's GenericDatumWriter does: one block (count, items) then 0; empty: 0.
 * Memory: the encoder borrows the schema and the field tree (both must outlive it); it owns its plan (malloc).
 */
#ifndef HOODIE_MODEL_AVRO_ENCODE_H
#define HOODIE_MODEL_AVRO_ENCODE_H

#include "format/avro/schema.h"
#include "format/hlog/hlog_write.h"
#include "model/batch.h"
#include "util/buf.h"

typedef struct hoodie_avro_encoder hoodie_avro_encoder;

/**
 * Plan encoding rows shaped as `fields` (a STRUCT field: the batch schema) with `schema` (a record schema).
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED when a column cannot be written as its field's Avro type (message names
 *         the field); HOODIE_EINVAL when a non-nullable field has no column; HOODIE_ENOMEM.
 */
hoodie_status hoodie_avro_encoder_new(hoodie_avro_encoder **out, const hoodie_avro_schema *schema,
                                      const hoodie_field *fields);
void hoodie_avro_encoder_free(hoodie_avro_encoder *e);

/**
 * Append row `row` of `root` (an array shaped as the encoder's `fields`) as one Avro binary record.
 * On failure (HOODIE_EINVAL: a null in a non-nullable field, a value out of the Avro type's range, an unknown
 * enum symbol; HOODIE_ENOMEM) `out` is left as it was.
 */
hoodie_status hoodie_avro_encode_row(const hoodie_avro_encoder *e, const hoodie_array *root, int64_t row,
                                     hoodie_buf *out);
/** For tests: hoodie_avro_encode_row by walking the plan (no flat program); the same bytes and errors. */
hoodie_status hoodie_avro__encode_row_generic(const hoodie_avro_encoder *e, const hoodie_array *root, int64_t row,
                                              hoodie_buf *out);

/**
 * Append a whole AVRO_DATA_BLOCK holding rows [start, start+count) of `root`, with the given header entries
 * (written in the order given; see hoodie_hlog_header_sort). On failure `out` is left as it was.
 */
hoodie_status hoodie_avro_encode_data_block(hoodie_buf *out, const hoodie_avro_encoder *e, const hoodie_array *root,
                                            int64_t start, int64_t count, const hoodie_hlog_header_entry *header,
                                            size_t header_count);

/** The same as a block of another type whose content is Avro records: AVRO_DATA_BLOCK or CDC_DATA_BLOCK (Hudi's
 *  HoodieCDCDataBlock is an Avro data block of CDC records). */
hoodie_status hoodie_avro_encode_block(hoodie_buf *out, hoodie_hlog_block_type type, const hoodie_avro_encoder *e,
                                       const hoodie_array *root, int64_t start, int64_t count,
                                       const hoodie_hlog_header_entry *header, size_t header_count);

/** Where the records' values of one column come from (hoodie_avro_encode_data_block_cols). */
typedef struct hoodie_avro_col {
    const hoodie_array *array; /**< shaped as the encoder field of the same position */
    const int64_t *rows;       /**< record i takes row rows[i]; NULL: row i */
    int constant;              /**< every record takes row 0 (rows ignored) */
} hoodie_avro_col;

/**
 * Append a whole AVRO_DATA_BLOCK of `count` records whose columns come from different arrays: cols[c] gives the
 * values of the encoder's field c (n_cols entries, one per field of `fields`), by a list of rows, by position or
 * as one constant. Writes what hoodie_avro_encode_data_block writes for a batch holding those values, without
 * building that batch. HOODIE_EINVAL when a source is missing or a row is out of its array's range; on failure
 * `out` is left as it was.
 */
hoodie_status hoodie_avro_encode_data_block_cols(hoodie_buf *out, const hoodie_avro_encoder *e,
                                                 const hoodie_avro_col *cols, size_t n_cols, int64_t count,
                                                 const hoodie_hlog_header_entry *header, size_t header_count);

#endif
