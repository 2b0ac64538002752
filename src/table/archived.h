/*
 * The archived timeline (hudi-format.md §6.6-6.8): instants that archival moved out of the active timeline.
 *
 * Layout 1 (table version 6): .hoodie/<hoodie.archivelog.folder>/.commits_.archive.<N>_<token> are Hudi log files
 *   (§5) whose Avro data blocks hold HoodieArchivedMetaEntry records, one per state file of an instant
 *   (commitTime, actionType, actionState, and the metadata of that state in the field named after the action:
 *   hoodieCommitMetadata, hoodieReplaceCommitMetadata, hoodieRollbackMetadata, hoodieCleanMetadata, ...). The
 *   writer schema is each block's SCHEMA header. No completion times are recorded.
 * Layout 2 (table versions 8+): the LSM timeline in .hoodie/timeline/history/: `_version_` names the current
 *   `manifest_<N>` (JSON {"files":[{"fileName":..,"fileLen":..}]}), which lists the valid Parquet files
 *   `<min>_<max>_<level>.parquet`; a row per completed instant (HoodieLSMTimelineInstant: instantTime,
 *   completionTime, action, metadata = the bytes of the completed instant file, plan, version).
 *
 * Records are collapsed as the active timeline does: one instant per (requested time, completed action) in its
 * most advanced recorded state, sorted by requested time. Only the completed state's metadata is kept.
 * Corrupt log blocks of layout 1 are skipped with a warning (as Hudi's reader does); anything else that does not
 * decode is HOODIE_ECORRUPT naming the file (and the offset where known). A missing folder is an empty timeline.
 *
 * Loading is explicit and never done by hoodie_timeline_load(): readers call it only when a query reaches
 * before the active timeline's first instant.
 *
 * Memory: owned by the hoodie_archived_timeline, valid until hoodie_archived_free(). Immutable after load.
 */
#ifndef HOODIE_TABLE_ARCHIVED_H
#define HOODIE_TABLE_ARCHIVED_H

#include "hoodie/sys/storage.h"
#include "table/commit_meta.h"
#include "table/config.h"
#include "table/instant.h"
#include "util/arena.h"

struct json_t; /* jansson */

/** Metadata of one archived instant's completed state (at most one of the two is set). */
typedef struct hoodie_archived_meta {
    struct json_t *json;   /* layout 1: the decoded Avro record (a reference owned by the timeline) */
    const uint8_t *bytes;  /* layout 2: the completed instant file's bytes (Avro OCF; JSON for legacy instants) */
    size_t len;
    const char *source;    /* the archive file it came from, for messages */
} hoodie_archived_meta;

typedef struct hoodie_archived_timeline {
    hoodie_instant *instants;    /* sorted by (requested, completed action); completion "" in layout 1 */
    hoodie_archived_meta *meta;  /* parallel to instants */
    size_t count;
    int layout_version;          /* 1 or 2 */
    char *dir;                   /* the archive folder, base path included */
    size_t files;                /* archive / history files read */
    hoodie_arena *arena;
} hoodie_archived_timeline;

/** Load the archived timeline of the table at base_path with its config (storage NULL: POSIX). */
hoodie_status hoodie_archived_load(hoodie_archived_timeline **out, const hoodie_storage *s, const char *base_path,
                                   const hoodie_table_config *cfg);
/** Layout 1: every .commits_.archive.* file of `dir`. */
hoodie_status hoodie_archived_load_v1(hoodie_archived_timeline **out, const hoodie_storage *s, const char *dir);
/** Layout 2: the files of the current manifest of the LSM history folder `dir`. */
hoodie_status hoodie_archived_load_lsm(hoodie_archived_timeline **out, const hoodie_storage *s, const char *dir);
void hoodie_archived_free(hoodie_archived_timeline *a);

/** Index of the instant requested at `t` whose completed action is hoodie_action_completed(action) (any action
 *  for HOODIE_ACTION_COUNT); -1 if absent. */
long hoodie_archived_find(const hoodie_archived_timeline *a, const char *t, hoodie_action action);
/** 1 if `t` sorts before the first archived instant (or the archive is empty). */
int hoodie_archived_before_start(const hoodie_archived_timeline *a, const char *t);

/**
 * Metadata of the completed instant at index i: commit metadata of a commit/deltacommit/replacecommit, rollback
 * or clean metadata. An instant archived without metadata (not completed, or an empty file) gives empty
 * metadata. HOODIE_EINVAL if the instant's action does not match the call.
 */
hoodie_status hoodie_archived_commit_meta(const hoodie_archived_timeline *a, size_t i, hoodie_commit_meta **out);
hoodie_status hoodie_archived_rollback_meta(const hoodie_archived_timeline *a, size_t i, hoodie_rollback_meta **out);
hoodie_status hoodie_archived_clean_meta(const hoodie_archived_timeline *a, size_t i, hoodie_clean_meta **out);

#endif
