/*
 * Hudi tables: open a table, inspect its configuration, timeline and file-system view.
 *
 * Thread-safety: an open hoodie_table is immutable (it caches the configuration and the timeline as loaded by
 * hoodie_table_open) and may be shared by threads for reading. Reopen it to see later commits.
 */
#ifndef HOODIE_TABLE_H
#define HOODIE_TABLE_H

#include "hoodie/common.h"
#include "hoodie/sys/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hoodie_table hoodie_table;

#define HOODIE_TABLE_OPEN_OPTS_VERSION 1
typedef struct hoodie_table_open_opts {
    unsigned version;               /**< HOODIE_TABLE_OPEN_OPTS_VERSION */
    const hoodie_storage *storage;  /**< NULL: local POSIX file system */
    uint32_t flags;                 /**< HOODIE_OPEN_* */
} hoodie_table_open_opts;
#define HOODIE_TABLE_OPEN_OPTS_INIT { HOODIE_TABLE_OPEN_OPTS_VERSION, NULL, 0 }

/** Do not verify hoodie.table.checksum. */
#define HOODIE_OPEN_NO_CHECKSUM 1u
/** Take the table's partitions and files from its metadata table (the "files" partition of .hoodie/metadata)
 *  instead of listing storage, when hoodie.table.metadata.partitions lists "files" and .hoodie/metadata is there;
 *  otherwise list storage. Point lookups (hoodie_table_get) of the latest snapshot then read only the file groups
 *  its record index (partition "record_index") puts the keys in, when it has one; filtered scans skip the file
 *  slices its column statistics (partition "column_stats") rule out. A metadata table that does not read is an error of the open (the message names the
 *  file and offset). */
#define HOODIE_OPEN_METADATA_TABLE 2u

/**
 * Open the table rooted at `base_path`: reads .hoodie/hoodie.properties and the active timeline.
 * @param[out] out  the table; release with hoodie_table_free().
 * @return HOODIE_OK; HOODIE_ENOTFOUND (no table there); HOODIE_ECORRUPT (a malformed properties file, a checksum
 *         mismatch: the message names the file); HOODIE_EUNSUPPORTED (a table version other than 6, 8, 9).
 */
HOODIE_API hoodie_status hoodie_table_open(hoodie_table **out, const char *base_path,
                                           const hoodie_table_open_opts *opts);
/** NULL is a no-op. */
HOODIE_API void hoodie_table_free(hoodie_table *t);

/** Borrowed strings, valid while the table is open. */
HOODIE_API const char *hoodie_table_name(const hoodie_table *t);
HOODIE_API const char *hoodie_table_base_path(const hoodie_table *t);
HOODIE_API int hoodie_table_version(const hoodie_table *t);
/** 1 for MERGE_ON_READ, 0 for COPY_ON_WRITE. */
HOODIE_API int hoodie_table_is_mor(const hoodie_table *t);
/**
 * The value of extraMetadata `key` in the newest completed write commit (by requested time) that has it, e.g. a
 * stream checkpoint written through hoodie_write_opts.extra_metadata. *value is malloc'ed, free() it; `instant`
 * (may be NULL) receives that commit's requested time. HOODIE_ENOTFOUND when no active commit has the key.
 */
HOODIE_API hoodie_status hoodie_table_commit_extra(const hoodie_table *t, const char *key, char **value,
                                                   char *instant, size_t instant_len);
/** The same for the i-th instant (hoodie_table_instant): HOODIE_ENOTFOUND when it is not a completed write or has
 *  no such key. */
HOODIE_API hoodie_status hoodie_table_instant_extra(const hoodie_table *t, size_t i, const char *key, char **value);
/** A key of hoodie.properties as stored (e.g. "hoodie.table.recordkey.fields"), or NULL when absent. Borrowed. */
HOODIE_API const char *hoodie_table_property(const hoodie_table *t, const char *key);

/** One instant of the active timeline. Strings are borrowed from the table. */
typedef struct hoodie_instant_info {
    const char *requested;   /**< requested instant time */
    const char *completion;  /**< completion time, "" if the layout does not record it (v6) or pending */
    const char *action;      /**< "commit", "deltacommit", ... */
    const char *state;       /**< "requested", "inflight", "completed" */
} hoodie_instant_info;

HOODIE_API size_t hoodie_table_instant_count(const hoodie_table *t);
/** The i-th instant in requested-time order. HOODIE_EINVAL if i is out of range. */
HOODIE_API hoodie_status hoodie_table_instant(const hoodie_table *t, size_t i, hoodie_instant_info *out);

/** The file slices of a table as of an instant (see hoodie_table_slices). Opaque. */
typedef struct hoodie_slices hoodie_slices;

/** One file slice. Strings are borrowed from the hoodie_slices that returned it. */
typedef struct hoodie_slice_info {
    const char *partition;          /**< relative partition path, "" for a non-partitioned table */
    const char *file_id;
    const char *base_instant;       /**< the slice's key */
    const char *base_file;          /**< full path of the base file, or NULL for a log-only slice */
    const char *const *log_files;   /**< full paths, in the order they apply */
    size_t n_log_files;
    int latest;                     /**< 1 for the latest slice of its file group (what queries read) */
} hoodie_slice_info;

/**
 * List partitions, file groups and their file slices as of `as_of` (NULL: latest), replaced file groups dropped,
 * uncommitted and rolled-back files ignored.
 * @param[out] out  release with hoodie_slices_free().
 */
HOODIE_API hoodie_status hoodie_table_slices(hoodie_table *t, const char *as_of, hoodie_slices **out);
HOODIE_API size_t hoodie_slices_count(const hoodie_slices *s);
/** The i-th slice (file groups in (partition, file id) order, slices oldest first). HOODIE_EINVAL if out of range. */
HOODIE_API hoodie_status hoodie_slices_get(const hoodie_slices *s, size_t i, hoodie_slice_info *out);
HOODIE_API void hoodie_slices_free(hoodie_slices *s);

/**
 * Renderings for people (json = 0) and programs (json = 1); *out is malloc'ed, free() it.
 *   describe   type, version, name, keys, partition fields, ordering fields, key generator, merge mode, schema
 *   timeline   requested time, action, state, completion time of every instant
 *   fsview     partitions, file groups, file slices (base and log files) as of `as_of` (NULL: latest)
 */
HOODIE_API hoodie_status hoodie_table_describe(hoodie_table *t, int json, char **out);
HOODIE_API hoodie_status hoodie_table_timeline_render(hoodie_table *t, int json, char **out);
HOODIE_API hoodie_status hoodie_table_fsview_render(hoodie_table *t, const char *as_of, int json, char **out);

#ifdef __cplusplus
}
#endif
#endif
