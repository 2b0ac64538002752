/*
 * Avro schemas (Avro 1.11 specification): parsed from their JSON text into a tree in an arena, with named-type
 * references resolved (namespaces per the spec's fullname rules), logical types recognised, and schema resolution
 * of a writer schema against a reader schema (added fields with defaults, removed fields skipped, numeric
 * promotions, union branch matching). No I/O.
 */
#ifndef HOODIE_FORMAT_AVRO_SCHEMA_H
#define HOODIE_FORMAT_AVRO_SCHEMA_H

#include <stdint.h>
#include "util/arena.h"

typedef enum hoodie_avro_kind {
    HOODIE_AVRO_NULL = 0, HOODIE_AVRO_BOOLEAN, HOODIE_AVRO_INT, HOODIE_AVRO_LONG, HOODIE_AVRO_FLOAT,
    HOODIE_AVRO_DOUBLE, HOODIE_AVRO_BYTES, HOODIE_AVRO_STRING, HOODIE_AVRO_RECORD, HOODIE_AVRO_ENUM,
    HOODIE_AVRO_ARRAY, HOODIE_AVRO_MAP, HOODIE_AVRO_UNION, HOODIE_AVRO_FIXED
} hoodie_avro_kind;

typedef enum hoodie_avro_logical {
    HOODIE_AVRO_LT_NONE = 0, HOODIE_AVRO_LT_DECIMAL, HOODIE_AVRO_LT_UUID, HOODIE_AVRO_LT_DATE,
    HOODIE_AVRO_LT_TIME_MILLIS, HOODIE_AVRO_LT_TIME_MICROS, HOODIE_AVRO_LT_TIMESTAMP_MILLIS,
    HOODIE_AVRO_LT_TIMESTAMP_MICROS, HOODIE_AVRO_LT_TIMESTAMP_NANOS, HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MILLIS,
    HOODIE_AVRO_LT_LOCAL_TIMESTAMP_MICROS, HOODIE_AVRO_LT_LOCAL_TIMESTAMP_NANOS
} hoodie_avro_logical;

typedef struct hoodie_avro_schema hoodie_avro_schema;

typedef struct hoodie_avro_field {
    const char *name;              /* arena */
    hoodie_avro_schema *type;
    const char *default_json;      /* arena: the default value as JSON text, or NULL when absent */
} hoodie_avro_field;

struct hoodie_avro_schema {
    hoodie_avro_kind kind;
    hoodie_avro_logical logical;
    int32_t precision, scale;      /* decimal */
    int32_t size;                  /* fixed */
    const char *name;              /* full name of a record, enum or fixed (arena) */
    size_t count;                  /* fields, branches or symbols */
    hoodie_avro_field *fields;     /* record */
    hoodie_avro_schema **branches; /* union */
    const char **symbols;          /* enum */
    hoodie_avro_schema *items;     /* array items, map values */
};

/**
 * Parse Avro schema JSON. Everything lives in `arena`. `what` names the source for messages.
 * @return HOODIE_OK; HOODIE_ECORRUPT (bad JSON or an invalid schema: message says where); HOODIE_ENOMEM.
 */
hoodie_status hoodie_avro_schema_parse(hoodie_avro_schema **out, const char *json, size_t len, hoodie_arena *arena,
                                       const char *what);

/** For a union of null and one other branch: that branch (and *null_index set), else NULL. */
const hoodie_avro_schema *hoodie_avro_nullable_branch(const hoodie_avro_schema *s, int *null_index);
/** Index of a record field by name, or -1. */
int hoodie_avro_field_index(const hoodie_avro_schema *record, const char *name);

#endif
