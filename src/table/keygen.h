/*
 * Key generators (hudi-format.md §4.2-4.4): the record key and partition path of each row of a batch, as
 * Hudi's SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP and CUSTOM key generators render them. Writers use this
 * to fill _hoodie_record_key / _hoodie_partition_path; readers use it for tables without meta fields.
 *
 * Record keys: one key field gives its value text (null or empty is an error) — except the COMPLEX key
 * generator, which always writes `f1:v1,f2:v2` (null -> __null__, empty -> __empty__; all null/empty is an
 * error). Value text is hoodie_value_to_key (model/value.h). Nested fields are dot paths through structs; a
 * null struct on the way gives a null value.
 *
 * Partition paths: segments joined with '/'; each segment is the value text (null or empty ->
 * __HIVE_DEFAULT_PARTITION__), URL-encoded when hoodie.datasource.write.partitionpath.urlencode is set,
 * prefixed with `field=` for hive-style partitioning. NON_PARTITION gives "".
 * TIMESTAMP segments (TIMESTAMP key generator, or CUSTOM `field:TIMESTAMP`) convert an integer (or digit
 * string) to a date with hoodie.keygen.timebased.timestamp.type = EPOCHMILLISECONDS | UNIX_TIMESTAMP | SCALAR
 * (hoodie.keygen.timebased.timestamp.scalar.time.unit, default SECONDS) and
 * hoodie.keygen.timebased.output.dateformat (Java pattern letters y M d H m s S, quoted literals 'x'), in UTC
 * (hoodie.keygen.timebased.timezone / output.timezone must be UTC or GMT when set). A null value is taken as
 * 1 in the input unit, as Hudi does.
 *
 * Output is batch-oriented: all rows at once into a byte buffer plus row offsets.
 * Memory: a hoodie_keygen_plan owns its resolved plan (malloc); release with hoodie_keygen_dispose().
 */
#ifndef HOODIE_TABLE_KEYGEN_H
#define HOODIE_TABLE_KEYGEN_H

#include "model/batch.h"
#include "table/config.h"
#include "util/buf.h"

typedef enum hoodie_ts_input {
    HOODIE_TS_EPOCHMILLIS = 0,
    HOODIE_TS_UNIX_SECONDS,
    HOODIE_TS_SCALAR
} hoodie_ts_input;

typedef struct hoodie_keygen_field {
    char *name;          /* configured name (dot path), malloc */
    int *path;           /* child indexes from the batch root, malloc */
    size_t depth;
    int timestamp;       /* partition segment converted by the timestamp rules */
} hoodie_keygen_field;

typedef struct hoodie_keygen_plan {
    hoodie_keygen kind;          /* from the table config */
    hoodie_keygen_field *keys;
    size_t key_count;
    hoodie_keygen_field *parts;
    size_t part_count;
    int complex_key;     /* f:v,... format */
    int hive_style;
    int url_encode;
    hoodie_ts_input ts_input;
    int64_t ts_unit_ms_num, ts_unit_ms_den; /* scalar unit -> milliseconds: v * num / den */
    char *ts_format;     /* output date format (Java pattern), malloc */
} hoodie_keygen_plan;

/** Computed strings of all rows: row i is data[offsets[i] .. offsets[i+1]). */
typedef struct hoodie_keygen_out {
    hoodie_buf data;
    int64_t *offsets;    /* rows + 1 entries, malloc */
    int64_t rows;
} hoodie_keygen_out;

/**
 * Resolve the table's key generator against the batch schema `schema` (a root STRUCT).
 * @return HOODIE_OK; HOODIE_EINVAL naming the field that the schema lacks (or that is not a struct on a dot
 *         path); HOODIE_EUNSUPPORTED for a key generator or timestamp setting hoodie does not implement.
 */
hoodie_status hoodie_keygen_init(hoodie_keygen_plan *kg, const hoodie_table_config *cfg, const hoodie_field *schema);
void hoodie_keygen_dispose(hoodie_keygen_plan *kg);

/** Record keys of every row of `b` into `out` (reset first). HOODIE_EINVAL names the row and field. */
hoodie_status hoodie_keygen_record_keys(const hoodie_keygen_plan *kg, const hoodie_batch *b, hoodie_keygen_out *out);
/** Partition paths of every row of `b` into `out` (reset first). */
hoodie_status hoodie_keygen_partition_paths(const hoodie_keygen_plan *kg, const hoodie_batch *b, hoodie_keygen_out *out);

static inline void hoodie_keygen_out_init(hoodie_keygen_out *o) { hoodie_buf_init(&o->data); o->offsets = NULL; o->rows = 0; }
void hoodie_keygen_out_dispose(hoodie_keygen_out *o);

/** Hive path escaping of one partition value (hudi-format.md §4.4), appended to out. */
hoodie_status hoodie_keygen_escape_path(hoodie_buf *out, const char *s, size_t len);

/** Format epoch milliseconds `ms` in UTC with a Java date pattern (y M d H m s S and 'literals'), appended. */
hoodie_status hoodie_keygen_format_date(hoodie_buf *out, const char *pattern, int64_t ms);

#endif
