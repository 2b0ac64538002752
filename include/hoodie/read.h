/*
 * Queries over Hudi tables: snapshot, read-optimized, time travel and incremental, as Arrow streams.
 *
 * Rows come out with the five _hoodie_* meta columns first (_hoodie_commit_time, _hoodie_commit_seqno,
 * _hoodie_record_key, _hoodie_partition_path, _hoodie_file_name), then the table's columns in table order,
 * unless a projection is given.
 *
 * Thread-safety: a stream is used by one thread at a time; several streams may read one table concurrently.
 */
#ifndef HOODIE_READ_H
#define HOODIE_READ_H

#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hoodie_query_type {
    HOODIE_QUERY_SNAPSHOT = 0,       /**< latest (or as-of) merged view: base files merged with log files */
    HOODIE_QUERY_READ_OPTIMIZED = 1, /**< base files of the latest slices only (MOR logs ignored) */
    HOODIE_QUERY_INCREMENTAL = 2,    /**< the latest version of records written by instants in (from, to] */
    /**
     * Change data capture (Hudi's incremental query in the "cdc" format): one row per change a data-changing commit
     * in (from, to] made to a record: op ("i", "u", "d"), ts_ms (the commit's instant), before and after (the
     * record's data columns as a JSON object, or null). No projection, filter or as_of; needs meta fields.
     */
    HOODIE_QUERY_CDC = 3
} hoodie_query_type;

#define HOODIE_SCAN_OPTS_VERSION 2
typedef struct hoodie_scan_opts {
    unsigned version;             /**< HOODIE_SCAN_OPTS_VERSION */
    hoodie_query_type query;
    const char *as_of;            /**< time travel: an instant time (yyyyMMddHHmmssSSS); NULL: latest */
    const char *from;             /**< incremental: exclusive start; NULL: the beginning */
    const char *to;               /**< incremental: inclusive end; NULL: latest. Version 8+: completion times */
    const char *const *columns;   /**< projection (names or dotted struct paths); NULL: all */
    size_t n_columns;
    const char *filter;           /**< e.g. "city = 'sao_paulo' AND fare > 20"; pushed into partition and
                                       row-group pruning, then applied to rows. NULL: none */
    int64_t batch_rows;           /**< rows per batch (approximate); 0: 65536 */
    /**
     * (version 2) Bytes a file slice's merge may hold its decoded log records in (with a key entry each); 0: 1 GiB,
     * as Hudi's hoodie.memory.merge.max.size. A slice whose records take more is merged in key-hash partitions,
     * one pass over its base file per partition (the number from the log files' size, raised by the first pass as
     * soon as its records outgrow the bound): memory stays near it, rows come out grouped by partition.
     */
    int64_t merge_memory;
} hoodie_scan_opts;
#define HOODIE_SCAN_OPTS_INIT { HOODIE_SCAN_OPTS_VERSION, HOODIE_QUERY_SNAPSHOT, NULL, NULL, NULL, NULL, 0, NULL, 0, 0 }

/**
 * Start a query. The stream borrows `t`: release the stream before hoodie_table_free(t).
 * @return HOODIE_OK; HOODIE_EINVAL (bad filter, unknown column, bad instant); HOODIE_ENOTFOUND (a file the
 *         timeline needs is missing: message names it); HOODIE_ECORRUPT; HOODIE_EUNSUPPORTED.
 *         Failures while reading later batches come from the stream's get_next/get_last_error.
 */
HOODIE_API hoodie_status hoodie_table_scan(hoodie_table *t, const hoodie_scan_opts *opts,
                                           struct ArrowArrayStream *out);

#ifdef __cplusplus
}
#endif
#endif
