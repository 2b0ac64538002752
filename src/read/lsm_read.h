/*
 * Reading file groups of the LSM tree layout (RFC-103; hudi-format.md 13).
 *
 * Native log files (<fileId>_<token>_<instant>_<version>.log.parquet, .deletes.parquet) are plain Parquet files
 * whose footer key hudi.log.format.metadata carries the block header (INSTANT_TIME, SCHEMA). Two readers:
 *
 *   hoodie_lsm__native_items   a native file as log items (read/logscan.h), so the default layout's hash merge
 *                              reads slices that mix framed (v1) and native log files; logscan calls it
 *   hoodie_lsm_slice_*         a file slice whose logs are all native, merged by the streaming sorted merge
 *                              (merge/sorted_merge.h): one source per file, base first, logs in slice order;
 *                              memory O(files) batches. Serves snapshot reads and, with keep_deletes, log
 *                              compaction (L0 -> L0); without, compaction (L0 -> L1). With cfg.keys, a point
 *                              lookup: every file reads only what may hold the keys (row-group statistics,
 *                              then the key column's page index: the pages whose bounds hold a key, binary
 *                              search in them, then the pages holding those rows in the other columns; without
 *                              a page index, binary search in key-sorted batches), merged as a snapshot read
 *                              merges them.
 *
 * A native file applies when its instant (footer INSTANT_TIME, else the file name's) applies to the scan
 * (completed, at or before the as-of instant, not rolled back), as a framed log block would.
 */
#ifndef HOODIE_READ_LSM_READ_H
#define HOODIE_READ_LSM_READ_H

#include "merge/sorted_merge.h"
#include "read/logscan.h"

/** Read one native log or delete file into `out` (called by hoodie_logscan). */
hoodie_status hoodie_lsm__native_items(const hoodie_logscan_ctx *ctx, const hoodie_fs_file *f, hoodie_log_items *out);

/** 1 if every log file of the slice is a native file (the sorted merge can read it). */
int hoodie_lsm_slice_sortable(const hoodie_file_slice *sl);

typedef struct hoodie_lsm_slice_cfg {
    hoodie_logscan_ctx scan;          /* storage, timeline, as-of, rolled back instants, reader schema */
    int key_col, ordering_col, deleted_col;
    hoodie_merge_policy policy;
    int64_t batch_rows;
    int keep_deletes;                 /* log compaction: emit winning deletes with their flag */
    int skip_base;                    /* log compaction: merge the logs only */
    /* point lookup: only these record keys (sorted as hoodie_sorted_key_compare orders them, unique). Each file
     * reads only the row groups whose _hoodie_record_key statistics may hold one of them, in small batches, and
     * stops once past the largest key; a binary search in each batch picks the keys' rows. n_keys 0: all rows. */
    const char *const *keys;
    size_t n_keys;
    const hoodie_delete_marker *marker; /* the table's custom delete marker (resolved against scan.schema), or NULL */
} hoodie_lsm_slice_cfg;

/** Batch size of point lookups (rows decoded past the key are at most this many per file). */
#define HOODIE_LSM_LOOKUP_BATCH 2048

typedef struct hoodie_lsm_slice hoodie_lsm_slice;

/**
 * Log compaction (L0 -> L0) writes one file whose header COMPACTED_BLOCK_TIMES lists the instants of the log files
 * it replaces; it sorts after them in the slice. A log file whose instant a later applying file of the slice lists
 * is skipped by hoodie_lsm_slice_open. (Its content equals the merge of the files it replaces, so a reader that
 * applies both - the hash merge - reads the same records.)
 *
 * live[i] (for each of sl's logs) = 1 if the log applies and no log compaction replaced it. Reads footers only.
 */
hoodie_status hoodie_lsm_slice_live_logs(const hoodie_lsm_slice_cfg *cfg, const hoodie_file_slice *sl, uint8_t *live);
/**
 * replaced[i] = 1 if log i applies and a later applying log compaction's file of the slice replaced it: with
 * cfg->scan.as_of set, replaced by a log compaction at or before it, so that no read as of a later instant needs
 * the log (cleaning deletes such logs). Reads footers only.
 */
hoodie_status hoodie_lsm_slice_replaced_logs(const hoodie_lsm_slice_cfg *cfg, const hoodie_file_slice *sl,
                                             uint8_t *replaced);

hoodie_status hoodie_lsm_slice_open(hoodie_lsm_slice **out, const hoodie_lsm_slice_cfg *cfg,
                                    const hoodie_file_slice *sl);
/** Next merged batch in key order (shaped as cfg.scan.schema); `deleted` as hoodie_sorted_merge_next. */
hoodie_status hoodie_lsm_slice_next(hoodie_lsm_slice *s, hoodie_batch *out, uint8_t **deleted);
void hoodie_lsm_slice_stats(const hoodie_lsm_slice *s, hoodie_sorted_merge_stats *out);
void hoodie_lsm_slice_free(hoodie_lsm_slice *s);

#endif
