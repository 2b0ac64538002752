/*
 * Writing data into Hudi tables: insert, upsert, delete, bulk_insert, insert_overwrite,
 * insert_overwrite_table and delete_partition, on copy-on-write and merge-on-read tables of version 8 or 6.
 *
 * One call is one commit (a Hudi instant). The rows come as an Arrow stream; record keys and partition paths are
 * computed with the table's key generator, duplicates within the input are combined by the ordering field,
 * existing records are found through the bloom filters and key ranges in the base files' footers, inserts fill
 * small file groups first, and the commit becomes visible only when its completed instant file is created, last.
 * A write left unfinished by a dead writer is rolled back first.
 *
 * Thread-safety: one writer per table at a time (no lock is taken yet); readers may read concurrently and see
 * the table as of the last completed commit.
 */
#ifndef HOODIE_WRITER_H
#define HOODIE_WRITER_H

#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/parquet.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hoodie_write_operation {
    HOODIE_WRITE_UPSERT = 0,               /**< update existing keys, insert new ones */
    HOODIE_WRITE_INSERT = 1,               /**< insert without looking up existing keys */
    HOODIE_WRITE_BULK_INSERT = 2,          /**< insert into new file groups, no lookup, no small-file packing */
    HOODIE_WRITE_DELETE = 3,               /**< delete the input's keys (rows need the key and partition fields) */
    HOODIE_WRITE_INSERT_OVERWRITE = 4,     /**< replace the partitions the input touches */
    HOODIE_WRITE_INSERT_OVERWRITE_TABLE = 5, /**< replace the whole table */
    HOODIE_WRITE_DELETE_PARTITION = 6      /**< drop the partitions the input rows name */
} hoodie_write_operation;

/** How MOR log files store updated records (Hudi's hoodie.logfile.data.block.format). */
typedef enum hoodie_log_block_format {
    HOODIE_LOG_BLOCK_AVRO = 0,    /**< AVRO_DATA_BLOCK: Hudi's default for tables of Parquet base files */
    HOODIE_LOG_BLOCK_PARQUET = 1  /**< PARQUET_DATA_BLOCK: the records as an embedded Parquet file, compressed
                                       with the write's codec (hoodie.parquet.compression.codec) */
} hoodie_log_block_format;

/** hoodie_write_opts.small_file_limit: no small-file handling (hoodie.parquet.small.file.limit=0) */
#define HOODIE_NO_SMALL_FILES (-1)

typedef struct hoodie_write_result hoodie_write_result;

/**
 * What a pre-commit check (hoodie_write_opts.pre_commit) is shown of a write whose data files are all written and
 * whose commit is about to complete: Hudi's pre-commit validators (hoodie.precommit.validators) compare the table
 * before and after it. Read `before` and `after` through hoodie_table_open_opts.storage.
 */
typedef struct hoodie_precommit {
    const char *base_path;
    const char *instant;               /**< the pending instant's requested time */
    const char *action;                /**< "commit", "deltacommit" or "replacecommit" */
    hoodie_write_operation op;         /**< the write's; (hoodie_write_operation)-1 for a table service */
    const hoodie_storage *before;      /**< the table without this write (its instant is pending there) */
    const hoodie_storage *after;       /**< a read-only view of the table in which this write has completed */
    const char *const *partitions;     /**< the partitions it wrote to or replaced ("" for a table without
                                            partitions), sorted, n_partitions of them */
    size_t n_partitions;
    const hoodie_write_result *result; /**< what it wrote (instant and action not set yet) */
    char *message;                     /**< a refusing check says why here: message_cap bytes, NUL-terminated */
    size_t message_cap;
    const char *operation;             /**< Hudi's name of the operation: "UPSERT", "BULK_INSERT", ..., "CLUSTER" */
} hoodie_precommit;

/** A pre-commit check: HOODIE_OK lets the write complete; any other status refuses it (see pre_commit). */
typedef hoodie_status (*hoodie_precommit_fn)(void *ctx, hoodie_precommit *pc);

#define HOODIE_WRITE_OPTS_VERSION 10
typedef struct hoodie_write_opts {
    unsigned version;                 /**< HOODIE_WRITE_OPTS_VERSION */
    const hoodie_storage *storage;    /**< NULL: local POSIX */
    hoodie_write_operation op;
    int64_t small_file_limit;         /**< hoodie.parquet.small.file.limit; 0: 100 MiB; HOODIE_NO_SMALL_FILES (as
                                           Hudi's 0): inserts never pad existing file groups */
    int64_t max_file_size;            /**< hoodie.parquet.max.file.size; 0: 120 MiB */
    hoodie_parquet_codec codec;       /**< base files (default SNAPPY) */
    int no_combine;                   /**< 1: never combine duplicate keys of an insert/bulk_insert input */
    /* version 2 */
    int32_t bloom_num_entries;        /**< hoodie.index.bloom.num_entries: keys per bloom filter row; 0: 60000 */
    /* version 3 */
    int combine_before_insert;        /**< hoodie.combine.before.insert: 1: insert and bulk_insert keep one record
                                           per key (by the ordering field) like upsert; 0 (Hudi's default): every
                                           input row is written. bulk_insert streams its input only when 0. */
    /* version 4 */
    hoodie_log_block_format log_block_format; /**< MOR data blocks (delete blocks are one format); the LSM
                                                   layout's native log files are Parquet whatever this says */
    /* version 5 */
    const char *const *extra_metadata; /**< more extraMetadata of the commit: key, value, key, value, ..., NULL
                                            (e.g. a stream's checkpoint, read back with hoodie_table_commit_extra);
                                            "schema" is the writer's own */
    /* version 6 */
    hoodie_precommit_fn pre_commit;   /**< called once every data file is written, before the table lock and the
                                           commit point (every operation, bulk_insert too; both views read the
                                           table as it is when read, so another process's write that completes
                                           meanwhile shows in both); a refusal rolls the write back at once and
                                           hoodie_table_write returns HOODIE_EVALIDATION with the check's message.
                                           NULL: none */
    void *pre_commit_ctx;
    /* version 7 */
    const char *delete_column;        /**< HOODIE_WRITE_UPSERT only: a boolean column of the input whose true rows
                                           delete their keys, so that one commit both upserts and deletes (a SQL
                                           transaction, a change stream). The column is never stored. A delete row
                                           is a whole row like the others (the deleted version as read, say): its
                                           ordering value counts, as Hudi's precombine compares a delete's, so the
                                           rows of one key keep the one with the largest ordering value, the later
                                           on ties. A table column _hoodie_is_deleted, when there is one, also
                                           marks deletes, as in Hudi. NULL: none */
    /* version 8 */
    int set_null_for_missing_columns; /**< hoodie.write.set.null.for.missing.columns: an input without some of the
                                           table's columns (a CSV header, a Parquet file, a stream's schema) is
                                           refused, as Hudi refuses it by default (an upsert would put nulls in
                                           place of the stored values); 1: those columns are written as nulls
                                           (what callers of versions before 8 get). Deletes need only the key
                                           fields either way */
    int partial_updates;              /**< HOODIE_WRITE_UPSERT: the input's columns update those columns only, the
                                           others keep their stored values (Spark SQL's MERGE INTO ... UPDATE SET
                                           of some columns): merge-on-read (table version 8) writes log blocks of
                                           those columns marked IS_PARTIAL, as Spark does; copy-on-write merges take
                                           the other values from the stored records. Inserts (new keys) get nulls
                                           there. The input needs the key, partition and ordering fields */
    /* version 9 */
    int record_index;                 /**< hoodie.index.type=RECORD_INDEX: upserts and deletes find their keys'
                                           file groups in the metadata table's record index (partition
                                           record_index: `hoodie metadata TABLE init --record-index`, or Spark's)
                                           instead of bloom filters and the base files' keys; keys it does not hold
                                           are inserts. A global index: rows combine by key alone, and a key the
                                           input puts in another partition than the one it is in is updated (or
                                           deleted) there, its new partition ignored, as Hudi does with
                                           hoodie.record.index.update.partition.path=false (its default). 0: the
                                           bloom index */
    /* version 10 */
    int update_partition_path;        /**< a global index's update.partition.path (hoodie.record.index.update.
                                           partition.path, hoodie.bloom.index.update.partition.path): 1 (true): an
                                           upsert of a key held in another partition moves the record: it is
                                           deleted there and inserted in the input's partition, when it wins over
                                           the stored record by the table's merge rule (the stored one is looked
                                           up, as Hudi's merged lookup does); when it loses, the stored one stays
                                           where it is; a key with no live record is inserted. -1 (false): it is
                                           updated where it is. Deletes delete the key where it is either way. 0:
                                           the index's default, as Hudi's: false for RECORD_INDEX, true for
                                           GLOBAL_BLOOM */
    int global_bloom;                 /**< hoodie.index.type=GLOBAL_BLOOM: upserts and deletes find their keys in
                                           every partition's base files (key ranges, bloom filters, then the keys);
                                           rows combine by key alone. Not with record_index, bucket-index or LSM
                                           tables, or tables without meta fields (HOODIE_EINVAL) */
} hoodie_write_opts;
#define HOODIE_WRITE_OPTS_INIT \
    { HOODIE_WRITE_OPTS_VERSION, NULL, HOODIE_WRITE_UPSERT, 0, 0, HOODIE_PARQUET_CODEC_SNAPPY, 0, 0, 0, \
      HOODIE_LOG_BLOCK_AVRO, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0 }

struct hoodie_write_result {
    char instant[24];                 /**< the completed instant's requested time */
    char action[16];                  /**< "commit", "deltacommit" or "replacecommit" */
    int64_t inserts, updates, deletes;
    int64_t files_written;
    int64_t bytes_written;
    size_t rolled_back;               /**< pending instants of dead writers rolled back first */
};

/**
 * Write `input` (consumed and released, whatever the outcome) into the table at `base_path` as one commit.
 * @param[out] result  may be NULL.
 * @return HOODIE_OK; HOODIE_EINVAL (input lacks key fields, incompatible schema: the message says which column);
 *         HOODIE_ENOTFOUND (no table); storage errors (nothing is visible then; the next write rolls back).
 */
HOODIE_API hoodie_status hoodie_table_write(const char *base_path, struct ArrowArrayStream *input,
                                            const hoodie_write_opts *opts, hoodie_write_result *result);

#ifdef __cplusplus
}
#endif
#endif
