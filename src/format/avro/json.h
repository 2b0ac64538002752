/*
 * Generic Avro: decode binary datums (and object container files) into jansson values, driven by a writer schema
 * given as JSON. Meant for small metadata records (timeline files, delete-record lists), not for bulk data.
 *
 * Mapping: null -> json null, boolean -> true/false, int/long -> integer, float/double -> real,
 * string -> string (UTF-8 not re-validated), bytes/fixed -> string holding the raw bytes (json_string_length
 * gives the size), enum -> its symbol, array -> array, map -> object, record -> object with every field,
 * union -> the value of the chosen branch (as Jackson writes Hudi's JSON metadata).
 *
 * No I/O. Errors: HOODIE_ECORRUPT naming `what` and the byte offset (via hoodie_cursor).
 */
#ifndef HOODIE_FORMAT_AVRO_JSON_H
#define HOODIE_FORMAT_AVRO_JSON_H

#include <jansson.h>
#include "hoodie/common.h"
#include "util/cursor.h"

/** A parsed schema with its named types indexed. Owns `root` (a json_t reference). */
typedef struct hoodie_avro_jschema {
    json_t *root;
    json_t *names; /* object: full name -> schema node, plus short name -> node */
} hoodie_avro_jschema;

/** Parse schema JSON text. HOODIE_ECORRUPT (naming `what`) if it is not a valid schema. */
hoodie_status hoodie_avro_jschema_parse(hoodie_avro_jschema *out, const char *text, size_t len, const char *what);
/** Take a reference to an already parsed schema. */
hoodie_status hoodie_avro_jschema_init(hoodie_avro_jschema *out, json_t *root, const char *what);
void hoodie_avro_jschema_dispose(hoodie_avro_jschema *s);

/** Decode one datum of `s` at the cursor into *out (a new reference; json_decref it). */
hoodie_status hoodie_avro_decode_json(const hoodie_avro_jschema *s, hoodie_cursor *c, json_t **out);

/** An object container file read from memory (codecs: null, deflate). */
typedef struct hoodie_avro_ocf {
    hoodie_avro_jschema schema;
    const uint8_t *sync;       /* 16 bytes */
    hoodie_cursor c;           /* positioned at the next block */
    uint8_t *block;            /* inflated block (deflate), malloc'd */
    hoodie_cursor bc;          /* cursor over the current block's data */
    int64_t block_left;        /* objects left in the current block */
    int deflate;
    const char *what;
} hoodie_avro_ocf;

/** 1 if the bytes start with the OCF magic "Obj\x01". */
int hoodie_avro_is_ocf(const void *data, size_t len);
hoodie_status hoodie_avro_ocf_open(hoodie_avro_ocf *f, const void *data, size_t len, const char *what);
/** Next object, or HOODIE_ITEROVER at the end. */
hoodie_status hoodie_avro_ocf_next(hoodie_avro_ocf *f, json_t **out);
void hoodie_avro_ocf_close(hoodie_avro_ocf *f);

#endif
