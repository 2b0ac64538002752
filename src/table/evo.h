/*
 * Schema on read (Hudi's "comprehensive schema evolution", hoodie.schema.on.read.enable): a table whose columns were
 * renamed or dropped by Spark SQL's ALTER TABLE keeps its files as written; columns are matched by field id, not by
 * name. Every schema version is an InternalSchema: JSON {"max_column_id", "version_id" (the instant that made it),
 * "type": "record", "fields": [{"id", "name", "optional", "type", "doc"}]} (nested records, arrays and maps carry
 * ids too). Writers put the version in effect in each commit's extraMetadata "latest_schema" and the whole
 * history, newest first, in .hoodie/.schema/<instant>.schemacommit as {"schemas": [...]}.
 *
 * A file (base file, log block) written at instant T has the columns of the newest version made at or before T
 * (the oldest version for files older than the history). Reading it as of version Q renames its columns to Q's
 * names by id, top-level ones and the fields of records inside records, arrays and maps (dotted paths of the
 * file's names, through "element", "key" and "value"), and hides the ones Q dropped (a column dropped and added
 * again under its old name is a new id: the old values stay hidden). An array's element or a map's key or value
 * dropped and added again is refused (HOODIE_EUNSUPPORTED), not guessed.
 */
#ifndef HOODIE_TABLE_EVO_H
#define HOODIE_TABLE_EVO_H

#include <stddef.h>

#include "hoodie/sys/storage.h"
#include "model/batch.h"
#include "table/timeline.h"

typedef struct hoodie_evo hoodie_evo;

/** Renames of a file's columns: the column at dotted path from[i] (of its names: "a", "s.x") is named to[i]. Owned
 *  by the hoodie_evo. */
typedef struct hoodie_renames {
    size_t n;
    const char **from, **to;
} hoodie_renames;

/**
 * Load the history of a table's schema versions from the newest .hoodie/.schema/<t>.schemacommit whose instant
 * is a completed write of `tl`. *out is NULL when there is none (the table does not read schemas by id).
 * @return HOODIE_OK; HOODIE_ECORRUPT (a history file that is not an InternalSchema history: message names it).
 */
hoodie_status hoodie_evo_load(hoodie_evo **out, const hoodie_storage *s, const char *base_path,
                              const hoodie_timeline *tl);
/** Whether the table has any history file (completed or not): one listing. */
hoodie_status hoodie_evo_present(const hoodie_storage *s, const char *base_path, int *any);
/** Parse a history ({"schemas": [...]}) or a single version (latest_schema); `what` names it in messages. */
hoodie_status hoodie_evo_parse(hoodie_evo **out, const char *json, size_t len, const char *what);
void hoodie_evo_free(hoodie_evo *e);

/**
 * The renames for what was written at `instant`, read as of `as_of` (NULL: the newest version). *out is NULL when
 * nothing changes (same version, or no column renamed or dropped between them). Paths go through structs by field
 * name, through an array's element as "element" and a map's key and value as "key" and "value" ("a.element.x"),
 * as Hudi's full names do.
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED when an array's element or a map's key or value was dropped and added
 *         again between the two versions.
 */
hoodie_status hoodie_evo_renames(const hoodie_evo *e, const char *as_of, const char *instant, const hoodie_renames **out);
/** The same for a data file by its path or name (the instant in its name): base files. */
hoodie_status hoodie_evo_file_renames(const hoodie_evo *e, const char *as_of, const char *path,
                                      const hoodie_renames **out);
/** The version in effect as of `as_of` (NULL: newest) as latest_schema JSON (owned by e), for commit metadata. */
const char *hoodie_evo_latest_json(const hoodie_evo *e, const char *as_of);
/** Number of versions. */
size_t hoodie_evo_count(const hoodie_evo *e);
/** Write the history `history` (hoodie_evo_alter's) as .hoodie/.schema/<instant>.schemacommit, before the instant
 *  completes (a history of an instant that never completes is not loaded). */
hoodie_status hoodie_evo_write_history(const hoodie_storage *s, const char *base_path, const char *instant,
                                       const char *history);
/** Every version, newest first, as a history file holds them ({"schemas": [...]}; malloc, NULL when out of memory):
 *  what a write that keeps the schema persists under its own instant, as Hudi's writers do (Java readers take the
 *  newest history of a completed instant of the active timeline, and Java writers delete the others). */
char *hoodie_evo_history_json(const hoodie_evo *e);
/** Remove the history files of instants before the active timeline of `tl` (archived) older than `keep`, the
 *  instant of a history that completed since and holds them all. */
hoodie_status hoodie_evo_prune_history(const hoodie_storage *s, const char *base_path, const hoodie_timeline *tl,
                                       const char *keep);
/** The newest version's version_id; -1 for NULL. */
long long hoodie_evo_newest(const hoodie_evo *e);

/** A change of ALTER TABLE: rename `name` to `arg`, drop `name`, add `name` of InternalSchema type `arg` (or of
 *  `field`'s type: a write's new column, nested ids numbered after it), or give `name` `field`'s type (a write's
 *  widened column: int to long, float to double; same id). */
typedef enum hoodie_evo_kind { HOODIE_EVO_RENAME, HOODIE_EVO_DROP, HOODIE_EVO_ADD, HOODIE_EVO_RETYPE } hoodie_evo_kind;
typedef struct hoodie_evo_change {
    hoodie_evo_kind kind;
    const char *name, *arg;
    const hoodie_field *field;
} hoodie_evo_change;

/**
 * The version `instant` makes by applying the changes, in order, to the newest version of `e` (NULL: evolution
 * begins, and version 0 is the table's schema `table`, a STRUCT with the meta columns, numbered as Hudi's
 * AvroInternalSchemaConverter numbers it): new columns take ids after max_column_id. *latest_json is the version
 * (commit metadata's latest_schema), *history_json every version newest first (.schemacommit); both malloc'ed.
 * @return HOODIE_OK; HOODIE_EINVAL naming a column that is not there to rename or drop, or already there;
 *         HOODIE_ECONFLICT when `instant` is not newer than the newest version.
 */
hoodie_status hoodie_evo_alter(const hoodie_evo *e, const hoodie_field *table, const hoodie_evo_change *ch, size_t n,
                               const char *instant, char **latest_json, char **history_json);

#endif
