/*
 * Encoding HoodieCommitMetadata / HoodieReplaceCommitMetadata (hudi-format.md §6.4-6.5) for commit,
 * deltacommit and replacecommit instants: table version 6 as Jackson-pretty-printed JSON, table version 8 as an
 * Avro object container file with Hudi 1.0's writer schema. Field names, order and null/default conventions
 * follow files written by Hudi (0.15 JSON, 1.0.x Avro).
 *
 * The same encoder writes the "workload profile" that Hudi stores in inflight files: stats with
 * `workload = 1` (fileId "" for inserts, path and partitionPath null, runtimeStats null).
 *
 * No I/O. All strings are borrowed for the duration of the call.
 */
#ifndef HOODIE_WRITE_COMMIT_ENCODE_H
#define HOODIE_WRITE_COMMIT_ENCODE_H

#include <stdint.h>
#include "hoodie/common.h"
#include "table/commit_meta.h"
#include "util/buf.h"

/** One HoodieWriteStat (a HoodieDeltaWriteStat when is_delta). Zero-initialise, then fill. */
typedef struct hoodie_wstat {
    const char *partition_path;  /* the partitionToWriteStats key ("" for non-partitioned) */
    const char *file_id;         /* "" for a workload insert bucket */
    const char *path;            /* relative to the base path; NULL writes null */
    const char *prev_commit;     /* NULL writes "null" (a new file group), as Hudi does */
    const char *prev_base_file;  /* v8 prevBaseFile (merge of a base file), or NULL */
    int64_t num_writes, num_deletes, num_update_writes, num_inserts;
    int64_t total_write_bytes, total_write_errors, file_size_in_bytes;
    int64_t total_log_records, total_log_blocks, total_corrupt_log_block, total_rollback_blocks;
    int64_t total_updated_records_compacted, total_log_files_compacted, total_log_size_compacted;
    int64_t total_log_read_time_ms;                 /* v8 only */
    int is_delta;                /* MOR log write: logVersion, logOffset, baseFile, logFiles are written */
    int32_t log_version;
    int64_t log_offset;
    const char *base_file;       /* "" when the slice has no base file */
    const char *const *log_files;
    size_t log_file_count;
    int has_event_time;          /* else minEventTime/maxEventTime are null */
    int64_t min_event_time, max_event_time;
    int has_runtime;             /* else runtimeStats is null */
    int64_t total_scan_time, total_create_time, total_upsert_time;
    int workload;                /* inflight workload profile entry: path, partitionPath null */
    const char *cdc_path;        /* CDC log written with the file (relative to the base path), or NULL */
    int64_t cdc_size;            /* its size: cdcStats = {cdc_path: cdc_size} */
} hoodie_wstat;

typedef struct hoodie_commit_info {
    const hoodie_wstat *stats;   /* grouped under their partition, partitions in first-appearance order */
    size_t stat_count;
    int is_replace;              /* HoodieReplaceCommitMetadata: adds partitionToReplaceFileIds */
    const hoodie_replaced_file_ids *replaced;
    size_t replaced_count;
    int compacted;
    const hoodie_kv *extra;      /* extraMetadata, in order (e.g. "schema") */
    size_t extra_count;
    const char *operation_type;  /* e.g. "UPSERT", "INSERT", "BULK_INSERT", "INSERT_OVERWRITE"; NULL writes null */
} hoodie_commit_info;

/**
 * Append the file content of the commit metadata for table version 6 (JSON) or 8 (Avro OCF) to `out`.
 * @return HOODIE_OK; HOODIE_EINVAL for a bad version or a NULL partition/fileId; HOODIE_ENOMEM.
 */
hoodie_status hoodie_commit_encode(hoodie_buf *out, const hoodie_commit_info *ci, int table_version);

#endif
