/*
 * Sorted writes of the LSM tree layout (RFC-103 core feature 1; hudi-format.md 13): every file written is sorted
 * by record key and holds each key once.
 *
 *   data log file    <fileId>_<writeToken>_<instant>_<version>.log.parquet: file records (meta + data columns),
 *                    footer key hudi.log.format.metadata = {"VERSION":"2","INSTANT_TIME":...,"SCHEMA":...}, plus
 *                    parquet.avro.schema and hoodie_min/max_record_key
 *   delete log file  <fileId>_<writeToken>_<instant>_<version>.deletes.parquet: rows of (_hoodie_record_key,
 *                    _hoodie_partition_path[, ordering field]), the same footer metadata
 *
 * Row groups are cut by row count (HOODIE_LSM_ROW_GROUP_ROWS) so that point lookups can skip by row-group
 * statistics of the record key column and decode little of a row group.
 *
 * Log compaction (services/lsm_compact.h) writes its merged L0 file with the header COMPACTED_BLOCK_TIMES: the
 * instants (comma-separated) of the log files it replaces; readers skip those files (read/lsm_read.h).
 */
#ifndef HOODIE_WRITE_LSM_WRITE_H
#define HOODIE_WRITE_LSM_WRITE_H

#include "hoodie/parquet.h"
#include "hoodie/sys/storage.h"
#include "model/batch.h"
#include "table/keygen.h"

typedef struct hoodie_lsm_log_opts {
    const hoodie_storage *storage;
    const char *path;                 /* full path of the new file */
    const char *instant;              /* INSTANT_TIME */
    const char *avro_schema;          /* SCHEMA: the writer schema (with meta fields) */
    hoodie_parquet_codec codec;
    int key_col;                      /* record key column of the batches (file records: 2) */
} hoodie_lsm_log_opts;

/** Rows per row group of every LSM file (logs, and base files written by LSM compaction). */
#define HOODIE_LSM_ROW_GROUP_ROWS 65536
/** Page size of every LSM file: small pages bound a merge's read buffers (one page per column and file) and what a
 * point lookup decodes past its key. */
#define HOODIE_LSM_PAGE_BYTES (64 * 1024)
/** Pages also end after this many rows: a point lookup finds its row's page through the page index and decodes
 * at most this many rows of each column before it. */
#define HOODIE_LSM_PAGE_ROWS 4096

/**
 * Write sorted, de-duplicated batches as one native log file (data or deletes: the name decides). The batches
 * must be in key order with no key twice (HOODIE_EINVAL otherwise: the LSM layout's invariant).
 */
hoodie_status hoodie_lsm_write_log(const hoodie_lsm_log_opts *o, const hoodie_batch *const *batches, size_t n,
                                   uint64_t *size_out);

/** Same, with the header COMPACTED_BLOCK_TIMES = `compacted` (NULL: none). */
hoodie_status hoodie_lsm_write_log_ex(const hoodie_lsm_log_opts *o, const char *compacted,
                                      const hoodie_batch *const *batches, size_t n, uint64_t *size_out);

/** Sort row indices by their record keys (stable: equal keys keep their order). */
hoodie_status hoodie_lsm_sort_rows(const hoodie_keygen_out *keys, int64_t *rows, size_t n);

#endif
