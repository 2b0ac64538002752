/*
 * Which requests fetch the ranges a reader announces (hoodie_storage::will_read) from S3: pure planning, tested
 * without a server. Ranges closer than HOODIE_S3_AHEAD_GAP merge into one request, a request grows to at most
 * HOODIE_S3_AHEAD_PIECE bytes (a longer range splits), bytes announced twice are fetched once, nothing at or past
 * `limit` (the file's cached tail) is fetched, and the plan stops once HOODIE_S3_AHEAD_MAX bytes are in it.
 */
#ifndef HOODIE_STORAGE_S3_AHEAD_H
#define HOODIE_STORAGE_S3_AHEAD_H

#include "hoodie/common.h"

#include <stddef.h>
#include <stdint.h>

#define HOODIE_S3_AHEAD_GAP ((uint64_t)64 * 1024)
#define HOODIE_S3_AHEAD_PIECE ((uint64_t)8 * 1024 * 1024)
#define HOODIE_S3_AHEAD_MAX ((uint64_t)256 * 1024 * 1024)

typedef struct hoodie_s3_piece {
    uint64_t off;
    size_t len;
} hoodie_s3_piece;

/** The requests for ranges [offs[i], offs[i] + lens[i]) given in ascending order: *out (malloc'd, NULL when
 *  none) holds *n_out pieces, ascending and disjoint. */
hoodie_status hoodie_s3_plan_ahead(const uint64_t *offs, const size_t *lens, size_t n, uint64_t limit,
                                   hoodie_s3_piece **out, size_t *n_out);

#endif
