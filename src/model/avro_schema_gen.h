/*
 * The Avro schema JSON that Hudi on Spark writes for a table schema (a hoodie_field tree), in the compact form
 * Avro's Schema.toString() (Jackson) prints: no spaces, keys in Avro's order.
 *
 * Naming follows Spark's SchemaConverters.toAvroType as Hudi calls it (AvroConversionUtils):
 *   root record       name "<table>_record", namespace "hoodie.<table>"
 *   nested struct     name = the field's name, namespace = the enclosing record's full name
 *                     (e.g. "hoodie.t.t_record" for a top-level field, "hoodie.t.t_record.structField" below it)
 *   decimal           fixed named "fixed" in namespace "<enclosing record full name>.<field name>", of Spark's
 *                     minimal size for the precision, {"logicalType":"decimal","precision":p,"scale":s}
 *   list / map        the element / value type is named after the list's / map's field
 *   "namespace" is printed only where it differs from the enclosing one (Avro's rule).
 *
 * Type mapping (Spark's): BOOL boolean; INT8/16/32, UINT8/16 int; INT64, UINT32 long; FLOAT16, FLOAT float;
 * DOUBLE double; STRING (any annotation, enums included) string; BINARY, FIXED_BINARY bytes; DATE32 int/date;
 * TIMESTAMP timestamp-micros (UTC) or local-timestamp-micros (any unit); TIME32 int/time-millis; TIME64
 * long/time-micros; STRUCT record; LIST array; MAP map (STRING keys only); NULL "null".
 * UINT64 and maps with non-string keys are HOODIE_EUNSUPPORTED.
 *
 * Styles of nullable types (both occur in the fixtures):
 *   HOODIE_AVRO_GEN_SPARK       [T,"null"], fields without defaults (hoodie.table.create.schema of Spark
 *                               datasource writes)
 *   HOODIE_AVRO_GEN_NULL_FIRST  ["null",T], nullable fields with "default":null (log block SCHEMA headers,
 *                               parquet.avro.schema, create.schema of newer writers)
 * HOODIE_AVRO_GEN_META_FIELDS (or-ed in) puts the five _hoodie_* meta fields first, each
 * {"name":..,"type":["null","string"],"doc":"","default":null}; columns of the tree with those names are then
 * skipped (so a tree read back from such a schema reproduces it).
 */
#ifndef HOODIE_MODEL_AVRO_SCHEMA_GEN_H
#define HOODIE_MODEL_AVRO_SCHEMA_GEN_H

#include "model/batch.h"
#include "util/buf.h"

enum {
    HOODIE_AVRO_GEN_SPARK = 0,
    HOODIE_AVRO_GEN_NULL_FIRST = 1,
    HOODIE_AVRO_GEN_META_FIELDS = 2
};

/** The five Hudi meta column names, in their order. */
extern const char *const hoodie_avro_meta_fields[5];

/** 1 if `name` is one of the five meta columns. */
int hoodie_is_meta_field(const char *name);

/** `out` = the five _hoodie_* meta columns (nullable strings) followed by the columns of `data` that are not meta
 *  columns (named as `data`, or "root"). */
hoodie_status hoodie_field_with_meta(hoodie_field *out, const hoodie_field *data);

/**
 * Append the schema JSON for `root` (a STRUCT field; its children are the columns) to `out` (not
 * NUL-terminated; call hoodie_buf_cstr). `flags`: a style, optionally | HOODIE_AVRO_GEN_META_FIELDS.
 * @return HOODIE_OK, HOODIE_EINVAL (root not a struct), HOODIE_EUNSUPPORTED (a type Avro/Spark cannot hold; the
 *         message names the field), HOODIE_ENOMEM. On failure `out` is left as it was.
 */
hoodie_status hoodie_avro_schema_gen(hoodie_buf *out, const hoodie_field *root, const char *table_name, int flags);

/** Spark's minimal fixed size in bytes for a decimal precision (5 for 10, 9 for 20, 16 for 38). */
int hoodie_avro_decimal_fixed_size(int32_t precision);

#endif
