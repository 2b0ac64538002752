/*
 * Compaction of LSM tree file groups (RFC-103; hudi-format.md 13 "hybrid compaction strategy"): one compaction
 * plan (HoodieCompactionPlan, .compaction.requested, completed as a commit) whose operations are each tagged
 *
 *   FULL  L0 + L1 -> L1: the sorted merge of the base file and the live logs, deletes dropped, streamed into a new
 *         base file <fileId>_<token>_<C>.parquet (row groups of HOODIE_LSM_ROW_GROUP_ROWS rows)
 *   LOG   L0 -> L0: the sorted merge of the live logs only, deletes kept, into one native data log file and/or
 *         one native delete file named after the last merged log (same instant, next version), so they sort right
 *         after the logs they replace, with INSTANT_TIME of that log and COMPACTED_BLOCK_TIMES listing the
 *         instants of the merged logs (read/lsm_read.h skips the replaced files)
 *
 * The tag travels in the operation's metrics map (map<double> in Hudi's Avro schema, so Java tools still parse the
 * plan): "lsm.op.FULL" = 1 or "lsm.op.LOG" = 1; an operation without either runs as FULL. "lsm.live.log.files"
 * counts the logs that no log compaction replaced.
 *
 * Policy (per latest slice, live logs only): no base file, more than max_logs live logs, or live log bytes above
 * full_ratio x base bytes -> FULL; two or more live logs -> LOG; else the group is left out.
 *
 * compact.c calls in at two places: hoodie_lsm_compact__tag when planning, hoodie_lsm_compact__run per operation.
 */
#ifndef HOODIE_SERVICES_LSM_COMPACT_H
#define HOODIE_SERVICES_LSM_COMPACT_H

#include "services/svc.h"
#include "table/fsview.h"
#include "write/commit_encode.h"

#define HOODIE_LSM_FULL_RATIO 0.5
#define HOODIE_LSM_FULL_MAX_LOGS 8

typedef enum hoodie_lsm_op { HOODIE_LSM_OP_SKIP = 0, HOODIE_LSM_OP_FULL, HOODIE_LSM_OP_LOG } hoodie_lsm_op;

/** The policy above. */
hoodie_lsm_op hoodie_lsm_compact_policy(int has_base, uint64_t base_bytes, size_t live_logs, uint64_t live_log_bytes,
                                        double full_ratio, size_t max_logs);

/** Tag a planned operation (`op`, made by compact.c for slice `sl`) FULL or LOG; *skip = 1: leave the group out. */
hoodie_status hoodie_lsm_compact__tag(hoodie_svc *sv, const hoodie_file_slice *sl, json_t *op, int *skip);

/** Execute one operation of compaction `tx` (ordinal: its index in the plan), filling `st` (strings in `a`). */
hoodie_status hoodie_lsm_compact__run(hoodie_svc *sv, hoodie_write_txn *tx, json_t *op, size_t ordinal,
                                      hoodie_wstat *st, hoodie_arena *a, hoodie_service_result *res);

#endif
