/*
 * Optimistic concurrency: at commit, under the table lock (write/lock.h), a write checks that no other instant
 * changed a file group it changed since it looked at the table, as Hudi's
 * SimpleConcurrentFileWritesConflictResolutionStrategy does. The other instants are
 *   - every commit, deltacommit and replacecommit completed since the write's timeline was read (`seen`), except a
 *     compaction or log compaction that was already pending then (the write saw its plan and wrote around it);
 *   - every compaction, log compaction and clustering plan scheduled since, still pending: the file groups it names;
 *   - a restore completed since, or a rollback completed since of a commit the write saw completed: the file
 *     versions the write was made from may be gone (any file group);
 *   - its own instant no longer pending: another process (a restore, a rollback, Java's recovery) undid it.
 * Inserts into new file groups never conflict (their ids are new), unless their own instant was undone.
 */
#ifndef HOODIE_WRITE_CONFLICT_H
#define HOODIE_WRITE_CONFLICT_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "table/timeline.h"

/* HOODIE_OK, or HOODIE_ECONFLICT naming the file group and the other instant. `self`: this write's instant time. */
hoodie_status hoodie_write__conflicts(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                      const hoodie_timeline *seen, const char *self, const char *const *file_ids,
                                      size_t n_file_ids);

#endif
