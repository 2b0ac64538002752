/*
 * Timeline file contents (hudi-format.md §6.4-6.5, §9.2, §9.4): commit metadata of completed commit /
 * deltacommit / replacecommit instants (JSON in table version 6, Avro OCF in 8+), and just enough of rollback
 * and clean metadata to know what they removed.
 *
 * Empty content (0 bytes, or "{}") is valid and means empty metadata. Anything else that does not decode is
 * HOODIE_ECORRUPT naming the file.
 *
 * Memory: each decoded struct owns an arena; everything it points to lives until its _free().
 */
#ifndef HOODIE_TABLE_COMMIT_META_H
#define HOODIE_TABLE_COMMIT_META_H

#include <stdint.h>
#include "hoodie/common.h"
#include "util/arena.h"

struct json_t; /* jansson */

typedef struct hoodie_write_stat {
    const char *partition_path;  /* the partitionToWriteStats key ("" for non-partitioned) */
    const char *file_id;
    const char *path;            /* relative to the base path; a log file's path for MOR log writes */
    const char *prev_commit;     /* "null" for a new file group, as Hudi writes it; NULL if absent */
    const char *base_file;       /* MOR delta writes; NULL if absent */
    const char *prev_base_file;  /* v8 prevBaseFile: the base file a merge rewrote (a name); NULL if absent */
    const char **log_files;      /* MOR delta writes: log file names */
    size_t log_file_count;
    int64_t num_writes, num_deletes, num_update_writes, num_inserts;
    int64_t total_write_bytes, file_size_in_bytes;
    int64_t log_version;         /* -1 if absent */
    const char **cdc_files;      /* cdcStats: the CDC log files the write left (paths relative to the base path) */
    const int64_t *cdc_sizes;    /* and their sizes */
    size_t cdc_file_count;
} hoodie_write_stat;

typedef struct hoodie_replaced_file_ids {
    const char *partition_path;
    const char **file_ids;
    size_t count;
} hoodie_replaced_file_ids;

typedef struct hoodie_kv {
    const char *key;
    const char *value;
} hoodie_kv;

typedef struct hoodie_commit_meta {
    hoodie_arena *arena;
    const char *operation_type;         /* e.g. "UPSERT"; NULL if absent */
    int compacted;                      /* 1 for compaction commits */
    hoodie_write_stat *stats;           /* all partitions, in file order */
    size_t stat_count;
    hoodie_replaced_file_ids *replaced; /* partitionToReplaceFileIds (replacecommit) */
    size_t replaced_count;
    hoodie_kv *extra;                   /* extraMetadata */
    size_t extra_count;
    const char *schema;                 /* extraMetadata["schema"] if present and non-empty, else NULL */
} hoodie_commit_meta;

/** Decode the content of a completed commit/deltacommit/replacecommit file (JSON or Avro; auto-detected). */
/* An instant file's content (Avro object container with one record, or JSON) as a JSON object; *out = NULL when
 * the file is empty. */
hoodie_status hoodie_meta_json(const void *data, size_t len, const char *what, struct json_t **out);

hoodie_status hoodie_commit_meta_decode(hoodie_commit_meta **out, const void *data, size_t len, const char *what);
void hoodie_commit_meta_free(hoodie_commit_meta *m);
/** The same from a value already decoded to jansson (an Avro record decoded by format/avro/json.h, e.g. the
 *  hoodieCommitMetadata of an archived entry). `root` is borrowed; NULL or json null give empty metadata. */
hoodie_status hoodie_commit_meta_from_json(hoodie_commit_meta **out, const struct json_t *root, const char *what);
/** extraMetadata value of `key`, or NULL. */
const char *hoodie_commit_meta_extra(const hoodie_commit_meta *m, const char *key);

typedef struct hoodie_partition_files {
    const char *partition_path;
    const char **files;   /* successDeleteFiles */
    size_t count;
} hoodie_partition_files;

typedef struct hoodie_rollback_meta {
    hoodie_arena *arena;
    const char **commits_rollback; /* instants rolled back */
    size_t commit_count;
    hoodie_partition_files *partitions;
    size_t partition_count;
} hoodie_rollback_meta;

/** Decode a completed rollback file (HoodieRollbackMetadata, Avro; JSON accepted too). */
hoodie_status hoodie_rollback_meta_decode(hoodie_rollback_meta **out, const void *data, size_t len,
                                          const char *what);
void hoodie_rollback_meta_free(hoodie_rollback_meta *m);
/** From a decoded value (as hoodie_commit_meta_from_json). */
hoodie_status hoodie_rollback_meta_from_json(hoodie_rollback_meta **out, const struct json_t *root,
                                             const char *what);

typedef struct hoodie_clean_meta {
    hoodie_arena *arena;
    const char *earliest_commit_to_retain;   /* NULL or "" if absent */
    const char *last_completed_commit;       /* lastCompletedCommitTimestamp */
    hoodie_partition_files *partitions;      /* successDeleteFiles per partition */
    size_t partition_count;
} hoodie_clean_meta;

/** Decode a completed clean file (HoodieCleanMetadata, Avro; JSON accepted too). */
hoodie_status hoodie_clean_meta_decode(hoodie_clean_meta **out, const void *data, size_t len, const char *what);
void hoodie_clean_meta_free(hoodie_clean_meta *m);
/** From a decoded value (as hoodie_commit_meta_from_json). */
hoodie_status hoodie_clean_meta_from_json(hoodie_clean_meta **out, const struct json_t *root, const char *what);

#endif
