/* Planning the requests of S3's read-ahead on advice: see s3_ahead.h. */
#include "storage/s3_ahead.h"
#include "util/error.h"

#include <stdlib.h>

hoodie_status hoodie_s3_plan_ahead(const uint64_t *offs, const size_t *lens, size_t n, uint64_t limit,
                                   hoodie_s3_piece **out, size_t *n_out)
{
    hoodie_s3_piece *v = NULL;
    size_t nv = 0, cap = 0;
    uint64_t total = 0;
    *out = NULL;
    *n_out = 0;
    for (size_t i = 0; i < n && total < HOODIE_S3_AHEAD_MAX; i++) {
        uint64_t off = offs[i], end = lens[i] > UINT64_MAX - off ? UINT64_MAX : off + lens[i];
        if (end > limit) end = limit;
        if (nv && off < v[nv - 1].off + v[nv - 1].len) off = v[nv - 1].off + v[nv - 1].len; /* fetched once */
        while (off < end && total < HOODIE_S3_AHEAD_MAX) {
            hoodie_s3_piece *last = nv ? &v[nv - 1] : NULL;
            if (last && off - (last->off + last->len) <= HOODIE_S3_AHEAD_GAP && off - last->off < HOODIE_S3_AHEAD_PIECE) {
                /* grow the last request over the gap, up to a piece */
                uint64_t upto = end - last->off > HOODIE_S3_AHEAD_PIECE ? last->off + HOODIE_S3_AHEAD_PIECE : end;
                total += upto - (last->off + last->len);
                last->len = (size_t)(upto - last->off);
                off = upto;
                continue;
            }
            if (nv == cap) {
                size_t nc = cap ? cap * 2 : 16;
                hoodie_s3_piece *nvv = realloc(v, nc * sizeof *v);
                if (!nvv) { free(v); return HOODIE_NOMEM(); }
                v = nvv;
                cap = nc;
            }
            uint64_t upto = end - off > HOODIE_S3_AHEAD_PIECE ? off + HOODIE_S3_AHEAD_PIECE : end;
            v[nv].off = off;
            v[nv++].len = (size_t)(upto - off);
            total += upto - off;
            off = upto;
        }
    }
    if (!nv) { free(v); return HOODIE_OK; }
    *out = v;
    *n_out = nv;
    return HOODIE_OK;
}
