/*
 * Input rows keyed by their record key, sorted by key (memcmp order, shorter first on a tie): the index lookup
 * sorts each partition's keys once and picks a base file's candidates by binary search on its key range.
 */
#ifndef HOODIE_WRITE_KEYSORT_H
#define HOODIE_WRITE_KEYSORT_H

#include <stddef.h>
#include <stdint.h>
#include "hoodie/common.h"

/** An input row's key (borrowed bytes): 16 bytes, as a write holds one per row (rows < 2^32, as combine checks). */
typedef struct hoodie_keyed_row { const char *k; uint32_t len; uint32_t row; } hoodie_keyed_row;

/** qsort comparator of two hoodie_keyed_row. */
int hoodie_keyed_row_cmp(const void *a, const void *b);
/** Sort rows[0..n) as hoodie_keyed_row_cmp orders them. */
hoodie_status hoodie_keyed_rows_sort(hoodie_keyed_row *rows, size_t n);
/** The first of rows[0..n) (sorted) whose key is >= key (upper: > key). */
size_t hoodie_keyed_row_bound(const hoodie_keyed_row *rows, size_t n, const char *key, int upper);

#endif
