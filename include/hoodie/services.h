/*
 * Table services: compaction, log compaction, clustering, cleaning, archival, rollback, savepoints and restore,
 * each recorded on the timeline as Hudi records it (plans and metadata as Avro; hudi-format.md section 9).
 *
 * Every service first rolls back writes left pending by dead writers, then works on a fresh view of the table.
 * A service that dies part-way leaves a table that reads as before: its instant stays pending and the next run of
 * the same service completes it (compaction, log compaction, clustering, clean) or it is rolled back.
 *
 * All functions take the table's base path and options (NULL: defaults, local POSIX storage).
 */
#ifndef HOODIE_SERVICES_H
#define HOODIE_SERVICES_H

#include "hoodie/common.h"
#include "hoodie/parquet.h"
#include "hoodie/sys/storage.h"
#include "hoodie/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hoodie_compaction_strategy {
    HOODIE_COMPACT_ALL = 0,        /**< every latest slice that has log files */
    HOODIE_COMPACT_LOG_SIZE = 1,   /**< slices whose log files add up to at least log_size_threshold bytes */
    HOODIE_COMPACT_BOUNDED_IO = 2  /**< slices in order until the I/O (base + logs read, base written) passes io_budget */
} hoodie_compaction_strategy;

typedef enum hoodie_clean_policy {
    HOODIE_CLEAN_KEEP_LATEST_COMMITS = 0,       /**< keep the slices the last `retain` commits need */
    HOODIE_CLEAN_KEEP_LATEST_FILE_VERSIONS = 1, /**< keep the `retain` latest slices of every file group */
    HOODIE_CLEAN_KEEP_LATEST_BY_HOURS = 2       /**< keep the slices commits of the last `retain` hours need */
} hoodie_clean_policy;

#define HOODIE_SERVICE_OPTS_VERSION 5
typedef struct hoodie_service_opts {
    unsigned version;                      /**< HOODIE_SERVICE_OPTS_VERSION */
    const hoodie_storage *storage;         /**< NULL: local POSIX */
    hoodie_parquet_codec codec;            /**< base files written by compaction and clustering */
    /* compaction */
    hoodie_compaction_strategy strategy;
    int64_t log_size_threshold;            /**< HOODIE_COMPACT_LOG_SIZE: bytes (0: 1 byte, i.e. any log) */
    int64_t io_budget;                     /**< HOODIE_COMPACT_BOUNDED_IO: bytes per run (0: 500 GB) */
    /* clustering */
    const char *const *sort_columns;       /**< rows of each new file group sorted by these columns */
    size_t n_sort_columns;
    int64_t small_file_limit;              /**< groups with a base file smaller than this are regrouped (0: 300 MB) */
    int64_t max_file_size;                 /**< target size of a new file group (0: 120 MB) */
    /* cleaning */
    hoodie_clean_policy clean_policy;
    int64_t retain;                        /**< commits, file versions or hours to keep (0: 10, 3 or 24) */
    /* archival */
    int64_t min_commits, max_commits;      /**< keep.min.commits / keep.max.commits (0: 20 / 30) */
    /* log compaction (version 2) */
    int64_t log_blocks_threshold;          /**< hoodie.log.compaction.blocks.threshold: a slice is log-compacted once
                                                this many of its log blocks apply (0: 5, Hudi's default) */
    /* progress (version 2): called from the service's thread as work items finish (file groups compacted,
     * log-compacted or clustered, files cleaned), with `what` naming the items; done == total comes last */
    void (*progress)(void *ctx, const char *what, int64_t done, int64_t total);
    void *progress_ctx;
    /* version 3 */
    hoodie_log_block_format log_block_format; /**< the data block of a log compaction's file (the codec: `codec`) */
    /* version 4 */
    hoodie_precommit_fn pre_commit;        /**< clustering: checked once its files are written, before it completes,
                                                as hoodie_write_opts.pre_commit (Hudi runs its pre-commit validators
                                                on clustering too); a refusal rolls the clustering back and returns
                                                HOODIE_EVALIDATION. NULL: none */
    void *pre_commit_ctx;
    /* version 5 */
    int64_t merge_memory;                  /**< bytes a file slice's merge (compaction, clustering, log
                                                compaction) may hold its decoded log records in (0: 1 GiB, as
                                                hoodie.memory.merge.max.size); slices whose records take more are
                                                merged in key-hash partitions, a pass over the base file each
                                                (hoodie_scan_opts.merge_memory) */
} hoodie_service_opts;
#define HOODIE_SERVICE_OPTS_INIT \
    { HOODIE_SERVICE_OPTS_VERSION, NULL, HOODIE_PARQUET_CODEC_SNAPPY, HOODIE_COMPACT_ALL, 0, 0, NULL, 0, 0, 0, \
      HOODIE_CLEAN_KEEP_LATEST_COMMITS, 0, 0, 0, 0, NULL, NULL, HOODIE_LOG_BLOCK_AVRO, NULL, NULL, 0 }

typedef struct hoodie_service_result {
    char instant[24];          /**< the service's instant ("" if there was nothing to do) */
    int64_t file_groups;       /**< file groups compacted / clustered (input) */
    int64_t files_written;
    int64_t files_deleted;     /**< clean, rollback, restore */
    int64_t instants;          /**< instants archived / rolled back / listed */
    int64_t records;           /**< records written */
    size_t rolled_back;        /**< pending writes rolled back before the service ran */
} hoodie_service_result;

/** Plan a compaction of the MOR table's latest file slices (instant "" if nothing needs it). */
HOODIE_API hoodie_status hoodie_compaction_schedule(const char *base_path, const hoodie_service_opts *opts,
                                                    hoodie_service_result *result);
/** Execute the pending compaction `instant` (NULL: every pending compaction, oldest first). */
HOODIE_API hoodie_status hoodie_compaction_run(const char *base_path, const hoodie_service_opts *opts,
                                               const char *instant, hoodie_service_result *result);
/** Plan a log compaction (logcompaction action) of the latest slices in which at least opts->log_blocks_threshold
 *  log blocks apply (data and delete blocks left after rollbacks and earlier log compactions, as Hudi's
 *  HoodieLogCompactionPlanGenerator counts them): their valid log blocks merged into one new log file whose blocks
 *  replace them (COMPACTED_BLOCK_TIMES). Instant "" if
 *  nothing needs it. Not for the LSM layout (its compaction plans LOG operations itself). */
HOODIE_API hoodie_status hoodie_log_compaction_schedule(const char *base_path, const hoodie_service_opts *opts,
                                                        hoodie_service_result *result);
/** Execute the pending log compaction `instant` (NULL: every pending one, oldest first); completes as a
 *  deltacommit with operationType LOG_COMPACT. */
HOODIE_API hoodie_status hoodie_log_compaction_run(const char *base_path, const hoodie_service_opts *opts,
                                                   const char *instant, hoodie_service_result *result);
/** Schedule, then run every pending log compaction. */
HOODIE_API hoodie_status hoodie_log_compaction(const char *base_path, const hoodie_service_opts *opts,
                                               hoodie_service_result *result);
/** Regroup small file groups of each partition into new file groups, rows sorted by opts->sort_columns. */
HOODIE_API hoodie_status hoodie_clustering(const char *base_path, const hoodie_service_opts *opts,
                                           hoodie_service_result *result);
/** Delete the file slices that the clean policy no longer needs. */
HOODIE_API hoodie_status hoodie_clean(const char *base_path, const hoodie_service_opts *opts,
                                      hoodie_service_result *result);
/** Move the oldest completed instants to the archived timeline when more than max_commits are active. */
HOODIE_API hoodie_status hoodie_archive(const char *base_path, const hoodie_service_opts *opts,
                                        hoodie_service_result *result);
/** Roll back a pending or completed write instant (completed: only the latest write, and not a savepoint). */
HOODIE_API hoodie_status hoodie_rollback(const char *base_path, const hoodie_service_opts *opts,
                                         const char *instant, hoodie_service_result *result);
/** Savepoint the completed write instant `instant` (NULL: the latest). */
HOODIE_API hoodie_status hoodie_savepoint_create(const char *base_path, const hoodie_service_opts *opts,
                                                 const char *instant, hoodie_service_result *result);
HOODIE_API hoodie_status hoodie_savepoint_delete(const char *base_path, const hoodie_service_opts *opts,
                                                 const char *instant);
/** The savepointed instants, one per line, into *out (malloc; release with free()). */
HOODIE_API hoodie_status hoodie_savepoint_list(const char *base_path, const hoodie_service_opts *opts, char **out);
/** Roll the table back to the savepoint `instant`: every write instant after it is undone. */
HOODIE_API hoodie_status hoodie_restore(const char *base_path, const hoodie_service_opts *opts, const char *instant,
                                        hoodie_service_result *result);

#ifdef __cplusplus
}
#endif
#endif
