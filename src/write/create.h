/*
 * Internal helpers of table creation shared with the writers: Java Properties key order, the
 * .hoodie_partition_metadata file, wall-clock time.
 */
#ifndef HOODIE_WRITE_CREATE_H
#define HOODIE_WRITE_CREATE_H

#include <stdint.h>
#include "hoodie/write.h"
#include "format/props.h"

/**
 * Reorder `p` as java.util.Properties.store() (Java 9+) iterates it: Properties keeps its entries in a
 * ConcurrentHashMap created with capacity 8 (a 16-bin table, resized at 3/4 load), iterated bin by bin.
 * The current entry order is taken as the insertion order; resizes are simulated exactly (a bin split keeps
 * the last run of nodes and prepends the others), so the result matches the hoodie.properties files that
 * Hudi 0.15/1.x write.
 */
hoodie_status hoodie_write__java_props_order(hoodie_props *p);

/**
 * Write <base>/<partition>/.hoodie_partition_metadata (hudi-format.md §2.2) unless it exists: "#partition
 * metadata", the date comment, commitTime=<commit_time>, partitionDepth=<segments of partition>. Written to a
 * temporary name and renamed, so readers never see a partial file. partition "" is the base path (depth 0).
 */
hoodie_status hoodie_write__partition_metadata(const hoodie_storage *s, const char *base_path,
                                               const char *partition, const char *commit_time);

/** Wall-clock time in microseconds since the epoch. */
int64_t hoodie_write__now_us(void);

#endif
