/*
 * Point lookups (include/hoodie/lookup.h) over the snapshot scan: scan.c takes the sorted keys, skips file groups
 * of other buckets (bucket index on LSM tables) and reads LSM slices with hoodie_lsm_slice_cfg.keys.
 */
#ifndef HOODIE_READ_LOOKUP_H
#define HOODIE_READ_LOOKUP_H

#include "hoodie/lookup.h"

/**
 * hoodie_table_scan restricted to `keys` (sorted by hoodie_sorted_key_compare, unique); opts->filter must select
 * exactly those keys (rows of tables without the LSM path are filtered by it).
 */
hoodie_status hoodie_read__scan_keys(hoodie_table *t, const hoodie_scan_opts *opts, const char *const *keys,
                                     size_t n_keys, struct ArrowArrayStream *out);

#endif
