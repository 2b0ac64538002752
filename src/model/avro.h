/*
 * Avro <-> columnar batches: the Arrow-layout field an Avro schema reads as, and a decoder of Avro binary
 * records (as found in Hudi's AVRO_DATA_BLOCKs) into batch columns, resolving the writer's schema against the
 * reader's field tree (Avro schema resolution: fields matched by name, writer-only fields skipped, reader-only
 * fields filled with null, numeric promotions int -> long -> float -> double, string <-> bytes, unions).
 *
 * Avro -> field mapping:
 *   boolean BOOL; int INT32 (date DATE32, time-millis TIME32 ms); long INT64 (time-micros TIME64 us,
 *   timestamp-millis/micros/nanos TIMESTAMP utc, local-timestamp-* TIMESTAMP local); float FLOAT; double DOUBLE;
 *   string STRING (uuid too); bytes BINARY; fixed FIXED_BINARY; decimal on bytes/fixed DECIMAL(p,s);
 *   enum STRING (ext ENUM); record STRUCT; array LIST; map MAP<string, v>; union [null, T] = nullable T.
 *   Other unions are not supported (HOODIE_EUNSUPPORTED).
 *
 * Speed: a decoder compiles the (writer, reader) pair once into a flat program, one typed op per top-level writer
 * field: scalars and [null, T] unions that are plain stores decode inline straight into the column buffers,
 * projected-out scalars are skipped inline, everything else runs the generic plan of that field. Both give the
 * same rows and the same failures (messages and offsets); hoodie_avro__decode_row_generic exists to test that.
 */
#ifndef HOODIE_MODEL_AVRO_H
#define HOODIE_MODEL_AVRO_H

#include "format/avro/schema.h"
#include "model/batch.h"
#include "util/cursor.h"

/** The field an Avro schema reads as (`name` for the field's name; nullable from a [null, T] union). */
hoodie_status hoodie_avro_to_field(hoodie_field *out, const hoodie_avro_schema *s, const char *name);

typedef struct hoodie_avro_decoder hoodie_avro_decoder;

/**
 * Prepare decoding records written with `writer` (a record schema) into arrays shaped as `reader` (a STRUCT
 * field: usually the table schema). Both are borrowed and must outlive the decoder.
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED when a writer type cannot be read as the reader's type (the message
 *         names the field).
 */
hoodie_status hoodie_avro_decoder_new(hoodie_avro_decoder **out, const hoodie_avro_schema *writer,
                                      const hoodie_field *reader);
void hoodie_avro_decoder_free(hoodie_avro_decoder *d);
/**
 * Decode one record at the cursor and append it as one row: to each child of `root` (an array initialised for
 * the reader STRUCT field), then closing the row. On a decoding failure the cursor's status says where; the
 * arrays may hold a partial row, so the caller discards them.
 */
hoodie_status hoodie_avro_decode_row(hoodie_avro_decoder *d, hoodie_cursor *c, hoodie_array *root);
/**
 * Make room in `root`'s columns for `rows` more rows (fixed-width values, offsets, validity; not string bytes),
 * e.g. a data block's record count, so the rows decode without regrowing. Only a hint: decoding grows as needed.
 */
hoodie_status hoodie_avro_decoder_reserve(const hoodie_avro_decoder *d, hoodie_array *root, int64_t rows);
/** For tests: decode one row by walking the plan (no flat program); same result as hoodie_avro_decode_row. */
hoodie_status hoodie_avro__decode_row_generic(hoodie_avro_decoder *d, hoodie_cursor *c, hoodie_array *root);

#endif
