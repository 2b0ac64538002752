/*
 * Encoders for timeline file contents: generic Avro binary encoding of a jansson value driven by a schema
 * (the writer-side twin of format/avro/json.h), Avro object container files, and Jackson's pretty-printed JSON
 * layout (what Hudi's table version 6 writes for commit metadata).
 *
 * Value mapping (as json.h decodes): record -> object (a missing field is null), map -> object,
 * array -> array, string/bytes -> string, int/long -> integer, float/double -> real or integer,
 * boolean -> true/false, enum -> symbol string, union -> the value of the first branch that fits it
 * (null -> the "null" branch). A value that fits no branch is HOODIE_EINVAL naming the field path.
 *
 * No I/O; output is appended to a hoodie_buf.
 */
#ifndef HOODIE_WRITE_AVRO_ENC_H
#define HOODIE_WRITE_AVRO_ENC_H

#include <jansson.h>
#include <stdint.h>
#include "hoodie/common.h"
#include "util/buf.h"

/** Schema texts of Hudi's timeline records, verbatim from files Hudi wrote (avro_schemas.c). */
extern const char hoodie_write__schema_commit[];        /* HoodieCommitMetadata */
extern const char hoodie_write__schema_replace[];       /* HoodieReplaceCommitMetadata */
extern const char hoodie_write__schema_rollback_plan[]; /* HoodieRollbackPlan */
extern const char hoodie_write__schema_rollback_meta[]; /* HoodieRollbackMetadata */
extern const char hoodie_write__schema_compaction_plan[]; /* HoodieCompactionPlan */

/** Encode one datum `v` of schema `schema` (parsed JSON) to `out`. */
hoodie_status hoodie_write__avro_encode(hoodie_buf *out, json_t *schema, json_t *v);

/**
 * An object container file holding the records `records` (a JSON array) of `schema_text`: magic, metadata map
 * with only avro.schema (as Hudi writes: no avro.codec, which means null), a random 16-byte sync marker, one
 * block with all records (none if the array is empty).
 */
hoodie_status hoodie_write__avro_ocf(hoodie_buf *out, const char *schema_text, json_t *records);

/**
 * Jackson DefaultPrettyPrinter layout: objects one member per line, indented by two spaces, `"key" : value`;
 * arrays inline `[ a, b ]`; empty `{ }` and `[ ]`; no trailing newline. Strings escaped as Jackson does
 * (", \, control characters; non-ASCII kept as UTF-8).
 */
hoodie_status hoodie_write__jackson(hoodie_buf *out, json_t *v);

#endif
