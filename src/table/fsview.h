/*
 * The file-system view (hudi-format.md section 7): partitions, file groups and file slices of a table, as of an
 * instant, built by listing storage against the active timeline.
 *
 *   partition   a directory holding .hoodie_partition_metadata (the base path itself for non-partitioned tables)
 *   file group  the files of one fileId in one partition
 *   file slice  a base file (optional) and the log files that apply on top of it, keyed by the base instant
 *
 * Which files count:
 *   base file   its instant is a completed commit/deltacommit/replacecommit (or older than the active timeline),
 *               requested at or before the as-of instant;
 *   log, v6     placed in the slice whose base instant is the instant in its name; a slice without a valid base
 *               after one with a base (a pending compaction's slice) is merged into the previous slice; log blocks
 *               are filtered later by their INSTANT_TIME;
 *   log, v8/9   its instant is a completed instant requested at or before the as-of instant; placed in the slice
 *               with the greatest base instant at or before the log's completion time; logs with no such slice
 *               form a log-only slice keyed by the earliest of their instants.
 * File groups named by the caller as replaced (from completed replacecommits) are dropped.
 *
 * Logs inside a slice are in apply order: v6 (instant, version, write token); v8/9 (completion time, version,
 * write token).
 *
 * Memory: everything belongs to the view's arena; valid until hoodie_fsview_free().
 */
#ifndef HOODIE_TABLE_FSVIEW_H
#define HOODIE_TABLE_FSVIEW_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "table/mdt.h"
#include "table/file_name.h"
#include "table/timeline.h"
#include "util/arena.h"

typedef struct hoodie_fs_file {
    const char *name;          /* file name (arena) */
    const char *path;          /* full path (arena) */
    const char *partition;     /* relative partition path, "" for the base path (arena) */
    uint64_t size;
    hoodie_file_name fn;       /* parsed; points into name */
    char instant[HOODIE_INSTANT_TIME_MAX + 1];    /* NUL-terminated instant of the name */
    char completion[HOODIE_INSTANT_TIME_MAX + 1]; /* completion time of that instant, "" if unknown */
} hoodie_fs_file;

typedef struct hoodie_file_slice {
    const char *base_instant;       /* slice key */
    const hoodie_fs_file *base;     /* NULL for a log-only slice */
    const hoodie_fs_file **logs;    /* apply order */
    size_t log_count;
} hoodie_file_slice;

typedef struct hoodie_file_group {
    const char *partition;
    const char *file_id;
    hoodie_file_slice *slices;      /* ascending base instant; the last one is the latest */
    size_t slice_count;
} hoodie_file_group;

typedef struct hoodie_fsview_opts {
    const char *as_of;                      /* requested-time axis; NULL: everything completed */
    const char *const *replaced_partitions; /* file groups to drop: (partition, file id) pairs */
    const char *const *replaced_file_ids;
    size_t replaced_count;
    /* Partition filter: return 0 to skip a partition (its files are not listed). NULL: all. */
    int (*partition_filter)(void *ctx, const char *partition);
    void *partition_filter_ctx;
    /* The partitions and files as the metadata table records them (table/mdt.h), instead of listing storage.
     * NULL: list storage. */
    const struct hoodie_mdt_listing *listing;
} hoodie_fsview_opts;

typedef struct hoodie_fsview {
    hoodie_arena *arena;
    const char **partitions;        /* sorted; relative paths */
    size_t partition_count;
    hoodie_file_group *groups;      /* sorted by (partition, file id) */
    size_t group_count;
    int layout_version;
} hoodie_fsview;

/**
 * List the table at base_path and build the view.
 * @return HOODIE_OK; HOODIE_EIO from storage; HOODIE_ENOMEM.
 */
hoodie_status hoodie_fsview_build(hoodie_fsview **out, const hoodie_storage *s, const char *base_path,
                                  const hoodie_table_config *cfg, const hoodie_timeline *tl,
                                  const hoodie_fsview_opts *opts);
void hoodie_fsview_free(hoodie_fsview *v);

/** The latest slice of a group (NULL if the group has none). */
static inline const hoodie_file_slice *hoodie_file_group_latest(const hoodie_file_group *g)
{
    return g->slice_count ? &g->slices[g->slice_count - 1] : NULL;
}

#endif
