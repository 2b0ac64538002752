/*
 * The snapshot scan (scan.c) without the Arrow stream around it, for readers in this layer (read/cdc.c): batches
 * straight from the producer, not copied through the C Data Interface.
 */
#ifndef HOODIE_READ_SCAN_H
#define HOODIE_READ_SCAN_H

#include "hoodie/read.h"
#include "model/batch.h"
#include "util/hash.h"

typedef struct scan hoodie_read_scan;

hoodie_status hoodie_read__scan_open(hoodie_table *t, const hoodie_scan_opts *opts, hoodie_read_scan **out);
/** The next batch (`out` initialised here), or HOODIE_ITEROVER. */
hoodie_status hoodie_read__scan_next(hoodie_read_scan *s, hoodie_batch *out);
/** Read only the file groups whose "partition\x01file id" is a key of `groups` (borrowed; NULL: all). */
void hoodie_read__scan_only(hoodie_read_scan *s, const hoodie_hmap *groups);
/** The file group the last batch came from (a batch never spans two; groups come sorted by (partition, file id)):
 * strings owned by the scan, valid until it closes; NULL before the first batch and after the last. */
void hoodie_read__scan_group(const hoodie_read_scan *s, const char **partition, const char **file_id);
void hoodie_read__scan_close(hoodie_read_scan *s);

#endif
