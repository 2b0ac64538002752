/*
 * The commit protocol of a write instant (hudi-format.md §2.1, §6):
 *
 *   hoodie_write__begin      new instant time T (> every instant on the timeline), T.<action>.requested
 *   hoodie_write__marker     .hoodie/.temp/T/<partition>/<file>.marker.<CREATE|MERGE|APPEND> per data file,
 *                            created before the data file itself
 *   hoodie_write__inflight   T.inflight (commit) / T.<action>.inflight, with the workload (commit metadata)
 *   hoodie_write__complete   completed file, created exclusively as the very last step: v6 T.<action>,
 *                            v8 T_C.<action> with completion time C > T; then the marker folder is removed
 *
 * Until the completed file exists, nothing the write did is visible to readers; a writer that dies leaves a
 * pending instant that hoodie_write__recover (write/rollback.h) rolls back. The requested and inflight files
 * stay after completion, as Hudi leaves them.
 *
 * Times are generated from the wall clock in UTC or local time (hoodie.table.timeline.timezone), as
 * yyyyMMddHHmmssSSS, and made strictly greater than every instant and completion time found on the timeline.
 */
#ifndef HOODIE_WRITE_COMMIT_H
#define HOODIE_WRITE_COMMIT_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "table/instant.h"
#include "table/timeline.h"

/** One (record key, value) pair of column `column` (an index into the columns asked for) of a secondary index. */
typedef hoodie_status (*hoodie_write_pair_fn)(void *ctx, size_t column, const char *key, size_t key_len,
                                             const char *value, size_t value_len);
/**
 * The (record key, value) pairs of columns[0..n_columns) in the file groups groups[0..n_groups) (each
 * "partition\x01file id") of the table at base_path as it reads through storage `s` (its latest snapshot, merged
 * as a snapshot read merges; the metadata table not used), each non-null value rendered as a secondary index holds
 * it (table/mdt.h hoodie_mdt_si_value), passed to `each`; with no columns, each live record key once (column 0,
 * value NULL). Supplied by the layer above (it needs the read layer).
 */
typedef hoodie_status (*hoodie_write_si_read_fn)(const hoodie_storage *s, const char *base_path,
                                                const char *const *groups, size_t n_groups,
                                                const char *const *columns, size_t n_columns,
                                                hoodie_write_pair_fn each, void *ctx);

/** An instant being written. Stack-embedded: zero it, hoodie_write__begin, ..., hoodie_write__txn_dispose. */
typedef struct hoodie_write_txn {
    const hoodie_storage *s;   /* borrowed */
    char *base_path;           /* malloc */
    char *timeline_dir;        /* malloc: base + "/.hoodie" or "/.hoodie/timeline" */
    int table_version;         /* 6 or 8 */
    int layout;                /* timeline layout 1 or 2 */
    int utc;                   /* instant times in UTC (else local time) */
    hoodie_instant inst;       /* requested time, action, state */
    int beating;               /* its heartbeat runs (write/lock.h): stopped by hoodie_write__txn_dispose */
    int mdt;                   /* hoodie_write__mdt_mode of the table (write/mdt.h): applied at completion; -1 for
                                  an instant of the metadata table itself */
    /* column statistics of the log files the instant wrote (write/mdt.h), for a kept column_stats partition:
     * borrowed, NULL when none */
    const struct hoodie_mdt_csrec *log_stats;
    size_t n_log_stats;
    /* the writer found the keys it updated in the record index (hoodie.index.type=RECORD_INDEX): the keys of its
     * log files' data blocks are held there, none needs putting back */
    int rli_located;
    /* a write of records (not a table service): its changes of the secondary indexes are read back through
     * si_read (NULL: the write cannot keep them; they are dropped) */
    int data_write;
    hoodie_write_si_read_fn si_read;
} hoodie_write_txn;

/** Marker IO types. */
typedef enum hoodie_marker_type { HOODIE_MARKER_CREATE = 0, HOODIE_MARKER_MERGE, HOODIE_MARKER_APPEND } hoodie_marker_type;

/**
 * A new time (17 digits + NUL into out[18]) from the clock (utc or local), strictly greater than `floor`
 * (NULL or "" for none; shorter legacy times compare as padded with zeros).
 */
hoodie_status hoodie_write__new_time(char out[18], int utc, const char *floor);

/** The greatest requested or completion time of the instants in `tl` ("" when empty) into out[24]. */
void hoodie_write__timeline_max(const hoodie_timeline *tl, char out[HOODIE_INSTANT_TIME_MAX + 1]);

/**
 * Start a write instant of `action` (commit, deltacommit or replacecommit) on the table at base_path with
 * config `cfg`: reads the timeline afresh, picks T, creates the requested file exclusively (retrying with a
 * later T if another writer took the same one). `requested`/`len`: the requested file's content (NULL/0:
 * empty, as Hudi writes for commit and deltacommit; a replacecommit carries HoodieRequestedReplaceMetadata).
 * @return HOODIE_OK; HOODIE_EINVAL for another action; storage errors.
 */
hoodie_status hoodie_write__begin(hoodie_write_txn *tx, const hoodie_storage *s, const char *base_path,
                                  const hoodie_table_config *cfg, hoodie_action action, const void *requested,
                                  size_t len);

/** Create the marker of data file `file_name` in `partition` ("" for the base path). */
hoodie_status hoodie_write__marker(hoodie_write_txn *tx, const char *partition, const char *file_name,
                                   hoodie_marker_type type);

/** Create the inflight file with `content` (commit metadata of the workload; may be empty). */
hoodie_status hoodie_write__inflight(hoodie_write_txn *tx, const void *content, size_t len);

/**
 * Complete the instant with `content` (encoded commit metadata): first its changes go to the metadata table
 * (write/mdt.h), then the completed file is created exclusively; it is the commit point. Then the marker folder is removed (a failure there is ignored: the write is
 * committed). On success tx->inst is the completed instant (completion time set for v8).
 * @return HOODIE_OK; HOODIE_ESTATE if the instant is not inflight; storage errors (the write is then not
 *         committed).
 */
hoodie_status hoodie_write__complete(hoodie_write_txn *tx, const void *content, size_t len);

/**
 * hoodie_write__complete for a caller that does not hold the table lock (a table service): with a metadata table
 * kept (tx->mdt), its update and the commit are made under the lock, so that no other commit's metadata-table
 * deltacommit lands between a metadata-table compaction's reading of the files partition and its plan.
 */
hoodie_status hoodie_write__complete_unlocked(hoodie_write_txn *tx, const void *content, size_t len);

/**
 * The path the completed file would have if the instant completed now (v8: with a completion time greater than
 * every time on the timeline, not kept), into a malloc'ed *path_out. Nothing is written: for a view of the table
 * as it will be (the pre-commit check, storage/overlay.h).
 */
hoodie_status hoodie_write__completed_preview(const hoodie_write_txn *tx, char **path_out);

/** Full path of `rel` under the base path into a malloc'ed string (NULL on OOM). */
char *hoodie_write__path(const char *base_path, const char *rel);

/** Release what the txn holds. No storage I/O: an unfinished instant stays pending, for recovery. */
void hoodie_write__txn_dispose(hoodie_write_txn *tx);

#endif
