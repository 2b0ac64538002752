/*
 * Writing Hudi tables: creating a new table.
 *
 * hoodie_table_create() lays out an empty table exactly as Apache Hudi (Spark) does for table version 8
 * (Hudi 1.0.x) or 6 (Hudi 0.14/0.15): the folder layout under .hoodie/ and a hoodie.properties file with the
 * keys Hudi writes for that version, in the order Java's Properties.store() emits them, with the
 * "#Properties saved on <instant>" comment and hoodie.table.checksum. The table opens with hoodie_table_open().
 *
 * Data writes (insert/upsert/delete with commit and rollback) build on this; see src/write/ for the commit
 * protocol, which is internal for now.
 *
 * Thread-safety: the functions here keep no state; concurrent creates of the same path are safe (exactly one
 * wins, the others fail with HOODIE_EEXISTS).
 */
#ifndef HOODIE_WRITE_H
#define HOODIE_WRITE_H

#include "hoodie/common.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Table types. */
typedef enum hoodie_create_table_type {
    HOODIE_CREATE_COPY_ON_WRITE = 0, /**< COW: every write rewrites base files */
    HOODIE_CREATE_MERGE_ON_READ = 1  /**< MOR: updates go to log files, compaction merges them */
} hoodie_create_table_type;

/** Record merge modes (hoodie.record.merge.mode; for table version 6 they select the payload class). */
typedef enum hoodie_create_merge_mode {
    HOODIE_CREATE_MERGE_DEFAULT = 0,     /**< EVENT_TIME if an ordering field is given, else COMMIT_TIME */
    HOODIE_CREATE_MERGE_EVENT_TIME = 1,  /**< the larger ordering value wins (DefaultHoodieRecordPayload) */
    HOODIE_CREATE_MERGE_COMMIT_TIME = 2, /**< the later write wins (OverwriteWithLatestAvroPayload) */
    /** AWS DMS tables (AWSDmsAvroPayload): as COMMIT_TIME, and a record whose `Op` column is "D" deletes its key
     *  (version 8 records it as Hudi 1.0 does: merge mode CUSTOM with the payload-based merge strategy) */
    HOODIE_CREATE_MERGE_AWS_DMS = 3
} hoodie_create_merge_mode;

#define HOODIE_TABLE_CREATE_OPTS_VERSION 1

/**
 * What to create. Start from HOODIE_TABLE_CREATE_OPTS_INIT and set what matters; every pointer is borrowed for
 * the duration of the call only.
 *
 * Field lists are arrays of `count` NUL-terminated names (nested fields as dot paths, e.g. "a.b").
 */
typedef struct hoodie_table_create_opts {
    unsigned version;                  /**< HOODIE_TABLE_CREATE_OPTS_VERSION */
    const hoodie_storage *storage;     /**< NULL: local POSIX file system */
    int table_version;                 /**< 8 (default when 0) or 6 */
    hoodie_create_table_type type;     /**< default COPY_ON_WRITE */
    const char *name;                  /**< hoodie.table.name; required, no '.' allowed */
    const char *database;              /**< hoodie.database.name (Spark SQL writes "default"), or NULL/"" for
                                            none, as Hudi's DataFrame writer; it enters the checksum */
    const char *const *record_key_fields; /**< required, at least one */
    size_t record_key_count;
    const char *const *partition_fields;  /**< NULL/0: non-partitioned. For the CUSTOM key generator each
                                               entry is "field:SIMPLE" or "field:TIMESTAMP" */
    size_t partition_count;
    const char *ordering_field;        /**< hoodie.table.precombine.field, or NULL */
    /**
     * Key generator: "simple", "complex", "nonpartitioned", "timestamp", "custom" (case-insensitive; the Hudi
     * type names SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM are accepted too). NULL infers it as Hudi
     * does: no partition fields -> nonpartitioned, several key fields -> complex, else simple.
     */
    const char *keygen;
    int hive_style;                    /**< hoodie.datasource.write.hive_style_partitioning (directories field=value) */
    int url_encode;                    /**< hoodie.datasource.write.partitionpath.urlencode */
    int drop_partition_columns;        /**< hoodie.datasource.write.drop.partition.columns */
    int no_meta_fields;                /**< 1: hoodie.populate.meta.fields=false (no _hoodie_* columns) */
    int timeline_timezone_utc;         /**< 1: hoodie.table.timeline.timezone=UTC (instant times in UTC) */
    hoodie_create_merge_mode merge_mode;
    const char *schema_json;           /**< Avro schema JSON without meta fields (hoodie.table.create.schema),
                                            or NULL. It must parse as JSON. */
    /**
     * Extra properties to persist, as a NULL-terminated array of key, value, key, value, ..., NULL. Meant for
     * the hoodie.keygen.timebased.* settings of the TIMESTAMP/CUSTOM key generators. A key that the create
     * itself writes is rejected with HOODIE_EINVAL.
     */
    const char *const *extra_props;
    /**
     * Storage layout (hoodie.table.storage.layout): NULL/"default", or "lsm_tree" (RFC-103: every base and log
     * file sorted by record key, native Parquet log files, sorted k-way merges). MERGE_ON_READ and table version 8
     * only; chosen at creation, an existing table cannot be switched.
     */
    const char *layout;
    /** Index: NULL/"bloom" (default), or "bucket" (simple bucket index, hoodie.index.type=BUCKET). */
    const char *index_type;
    int bucket_count;                  /**< hoodie.bucket.index.num.buckets for the bucket index (>= 1) */
} hoodie_table_create_opts;

#define HOODIE_TABLE_CREATE_OPTS_INIT \
    { HOODIE_TABLE_CREATE_OPTS_VERSION, NULL, 8, HOODIE_CREATE_COPY_ON_WRITE, NULL, NULL, NULL, 0, NULL, 0, NULL, \
      NULL, 0, 0, 0, 0, 0, HOODIE_CREATE_MERGE_DEFAULT, NULL, NULL, NULL, NULL, 0 }

/**
 * Create an empty Hudi table rooted at `base_path`.
 *
 * Creates (parents included) base_path/.hoodie with .aux/.bootstrap/.partitions, .aux/.bootstrap/.fileids,
 * .temp, .schema and archived/ (both versions), plus timeline/ and timeline/history/ for version 8, then writes
 * .hoodie/hoodie.properties with create-if-absent semantics: that write is the commit point, so a crash
 * before it leaves no table, and of two concurrent creates exactly one succeeds.
 *
 * @param base_path  table root; need not exist.
 * @param opts       required; see hoodie_table_create_opts.
 * @return HOODIE_OK;
 *         HOODIE_EEXISTS if a table (a hoodie.properties) already exists there;
 *         HOODIE_EINVAL for a missing or inconsistent option (the message names it);
 *         HOODIE_EUNSUPPORTED for a table version other than 6 or 8;
 *         HOODIE_EIO if the storage fails.
 */
HOODIE_API hoodie_status hoodie_table_create(const char *base_path, const hoodie_table_create_opts *opts);

#define HOODIE_TABLE_ALTER_OPTS_VERSION 2

/**
 * ALTER TABLE on a table that reads its columns by field id (Hudi's schema on read, as Spark SQL's ALTER TABLE
 * with hoodie.schema.on.read.enable): columns, and fields of nested records by their dotted paths ("s.x",
 * "a.element.x", "m.value.x": through structs, a list's element, a map's key and value), renamed, dropped, added or
 * widened (int to long: "a.element" and "m.value" name an array's element and a map's value),
 * without rewriting any file. The first ALTER starts the table's schema history (.hoodie/.schema). Pairs are flat
 * arrays of 2 * count strings.
 */
typedef struct hoodie_table_alter_opts {
    unsigned version;                  /**< HOODIE_TABLE_ALTER_OPTS_VERSION */
    const hoodie_storage *storage;     /**< NULL: local POSIX file system */
    const char *const *renames;        /**< pairs: old name (or nested path), new name */
    size_t n_renames;
    const char *const *drops;          /**< names or nested paths (a record keeps at least one field) */
    size_t n_drops;
    const char *const *adds;           /**< pairs: name (or nested path), type: boolean, int, long, float, double,
                                            string, binary, date, timestamp (microseconds, UTC) or decimal(P,S);
                                            added nullable, at the end (of its record) */
    size_t n_adds;
    /* version 2 */
    const char *const *retypes;        /**< pairs: name (or nested path: "s.x", an array's "a.element", a map's
                                            "m.value"), new type, as Hudi allows: int to long, float, double,
                                            string or decimal; long to float, double, string or decimal; float to
                                            double, string or decimal; double to string or decimal; decimal to a
                                            wider decimal or string; date to string; string to date or decimal
                                            (files keep their types; readers convert their values as Hudi does:
                                            see README, schema on read) */
    size_t n_retypes;
} hoodie_table_alter_opts;
#define HOODIE_TABLE_ALTER_OPTS_INIT { HOODIE_TABLE_ALTER_OPTS_VERSION, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0 }

/**
 * Apply the changes (renames, then drops, then adds, then type changes) as one commit of operation ALTER_SCHEMA; its instant time
 * into instant_out (cap bytes; may be NULL). Record key, partition and ordering fields, the records holding them
 * and meta columns cannot be renamed, dropped or retyped. Readers of older instants (time travel) see the columns as they were then.
 * @return HOODIE_OK; HOODIE_EINVAL (a column not there, a name taken, a protected column, an unknown type: the
 *         message says which; nothing is written); HOODIE_ECONFLICT (the table lock is held too long); storage
 *         errors (a pending instant is left for the next writer to roll back).
 */
HOODIE_API hoodie_status hoodie_table_alter(const char *base_path, const hoodie_table_alter_opts *opts,
                                            char *instant_out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
