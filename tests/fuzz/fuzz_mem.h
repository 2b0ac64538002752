/*
 * In-memory Parquet sink and source for the fuzz targets that write a file and read it back. Header-only (static).
 */
#ifndef HOODIE_FUZZ_MEM_H
#define HOODIE_FUZZ_MEM_H

#include "format/parquet/reader.h"
#include "util/buf.h"
#include "util/error.h"

#include <string.h>

/* hoodie_pq_sink.write appending to a hoodie_buf (ctx). */
static hoodie_status sink_write(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

typedef struct mem { const uint8_t *data; size_t len; } mem;

/* hoodie_pq_source.read from a mem (ctx). */
static hoodie_status mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const mem *m = ctx;
    if (off > m->len || len > m->len - off) return HOODIE_FAIL(HOODIE_EIO, "read past the end");
    memcpy(buf, m->data + off, len);
    return HOODIE_OK;
}

#endif
