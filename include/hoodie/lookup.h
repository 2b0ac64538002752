/*
 * Point lookups: the latest (or as-of) version of records by record key, as a snapshot read would return them.
 *
 * LSM tree tables (hoodie.table.storage.layout=lsm_tree) with the bucket index: each key's bucket names its file
 * group; in the group's latest file slice every file (the base file and the native log files) is read only where
 * it may hold the key (row-group statistics of _hoodie_record_key, then a binary search in the key-sorted rows of
 * small batches), and the key's versions are merged with the table's record merge rules, as the snapshot read's
 * sorted merge merges them. Other tables: a snapshot scan filtered by `_hoodie_record_key IN (...)`, which skips
 * partitions and base-file row groups by statistics.
 *
 * Rows come out with the same columns as hoodie_table_scan (meta columns first); a key with no live record gives
 * no row.
 */
#ifndef HOODIE_LOOKUP_H
#define HOODIE_LOOKUP_H

#include "hoodie/common.h"
#include "hoodie/arrow.h"
#include "hoodie/read.h"
#include "hoodie/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Look up `n` record keys (duplicates are fine). The stream borrows `t`.
 * @return HOODIE_OK; HOODIE_EINVAL (no keys, a key with a NUL byte); as hoodie_table_scan otherwise.
 */
HOODIE_API hoodie_status hoodie_table_get(hoodie_table *t, const char *const *keys, size_t n,
                                          struct ArrowArrayStream *out);

/**
 * Same, with scan options: as_of (time travel), columns (projection) and batch_rows apply; query must be
 * HOODIE_QUERY_SNAPSHOT and filter NULL (HOODIE_EINVAL otherwise). opts NULL: defaults.
 */
HOODIE_API hoodie_status hoodie_table_get_opts(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys,
                                               size_t n, struct ArrowArrayStream *out);

#ifdef __cplusplus
}
#endif
#endif
