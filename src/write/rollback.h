/*
 * Rolling back a failed (pending) write instant left by a dead writer (hudi-format.md §9.4), and recovery
 * before a new write.
 *
 * hoodie_write__rollback(T):
 *   1. finds the data files T wrote: from its markers (.hoodie/.temp/T/...), and, for safety, every file in
 *      the partitions it touched (marker partitions and the inflight workload's partitions) whose name
 *      carries T: base files `*_T.<ext>` and log files `.<fileId>_T.log.*` (v8 names logs by their instant);
 *   2. writes R.rollback.requested (HoodieRollbackPlan, Avro), R.rollback.inflight (empty);
 *   3. deletes the files;
 *   4. writes the completed rollback (v6 R.rollback, v8 R_C.rollback: HoodieRollbackMetadata, Avro), the
 *      commit point of the rollback;
 *   5. removes T's inflight and requested files (in that order) and its marker folder.
 * A crash at any step leaves T pending (or, after step 4, a completed rollback and T's leftovers), so running
 * recovery again converges. Log files are deleted, as table version 8 does, for both versions: Hudi 0.x
 * appends a ROLLBACK command block to v6 log files instead; deleting the files a failed write created is
 * equivalent for readers (an APPEND marker's file is deleted whole, so appending to an existing v6 log
 * file of another instant must not be rolled back this way — hoodie writers create new log files).
 *
 * hoodie_write__recover: roll back every pending commit / deltacommit / replacecommit, and drop the files of
 * pending rollbacks (a rollback is redone from scratch since its target is still pending).
 */
#ifndef HOODIE_WRITE_ROLLBACK_H
#define HOODIE_WRITE_ROLLBACK_H

#include "hoodie/sys/storage.h"
#include "table/config.h"
#include "table/instant.h"
#include "table/table.h"

/** Roll back the pending write instant `failed` of the table at base_path. Fills *rollback_time (18 bytes). */
hoodie_status hoodie_write__rollback(const hoodie_storage *s, const char *base_path, const hoodie_table_config *cfg,
                                     const hoodie_instant *failed, char rollback_time[18]);

/**
 * Roll back every pending write instant of `t` whose writer is dead (no live heartbeat: write/lock.h), under the
 * table lock (timeline re-read from storage; `t` itself is not changed: reopen it to see the result); remove the
 * heartbeats left by finished writes. *rolled_back_out (may be NULL) receives how many instants were rolled back.
 */
hoodie_status hoodie_write__recover(const hoodie_table *t, size_t *rolled_back_out);

#endif
