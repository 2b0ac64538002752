/* Page compression for the Parquet writer (decompression lives in codec_decompress.c). */
#include "format/parquet/codec.h"
#include "util/error.h"

#include <limits.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

static hoodie_status compress_gzip(int level, const uint8_t *src, size_t src_len, hoodie_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: gzip framing */
    if (deflateInit2(&z, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return HOODIE_NOMEM();
    hoodie_status rc = HOODIE_OK;
    size_t bound = deflateBound(&z, (uLong)src_len) + 32;
    if ((rc = hoodie_buf_reserve(out, bound)) < 0) { deflateEnd(&z); return rc; }
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)src_len;
    z.next_out = out->data + out->len;
    z.avail_out = (uInt)bound;
    int zr = deflate(&z, Z_FINISH);
    if (zr != Z_STREAM_END) rc = HOODIE_FAIL(HOODIE_ERROR, "gzip: deflate failed (%d)", zr);
    else out->len += bound - z.avail_out;
    deflateEnd(&z);
    return rc;
}

hoodie_status hoodie_codec_compress(hoodie_pq_codec codec, int level, const uint8_t *src, size_t src_len,
                                    hoodie_buf *out)
{
    switch (codec) {
    case HOODIE_PQ_UNCOMPRESSED:
        return hoodie_buf_append(out, src, src_len);
    case HOODIE_PQ_SNAPPY: {
        size_t n = snappy_max_compressed_length(src_len);
        HOODIE_TRY(hoodie_buf_reserve(out, n));
        if (snappy_compress((const char *)src, src_len, (char *)out->data + out->len, &n) != SNAPPY_OK)
            return HOODIE_FAIL(HOODIE_ERROR, "snappy: compression failed");
        out->len += n;
        return HOODIE_OK;
    }
    case HOODIE_PQ_GZIP:
        if (src_len > UINT_MAX / 2) return HOODIE_FAIL(HOODIE_EINVAL, "gzip: page too large");
        return compress_gzip(level, src, src_len, out);
    case HOODIE_PQ_ZSTD: {
        size_t n = ZSTD_compressBound(src_len);
        HOODIE_TRY(hoodie_buf_reserve(out, n));
        size_t r = ZSTD_compress(out->data + out->len, n, src, src_len, level ? level : 3);
        if (ZSTD_isError(r)) return HOODIE_FAIL(HOODIE_ERROR, "zstd: %s", ZSTD_getErrorName(r));
        out->len += r;
        return HOODIE_OK;
    }
    case HOODIE_PQ_LZ4_RAW: {
        if (src_len > (size_t)LZ4_MAX_INPUT_SIZE) return HOODIE_FAIL(HOODIE_EINVAL, "lz4: page too large");
        int n = LZ4_compressBound((int)src_len);
        HOODIE_TRY(hoodie_buf_reserve(out, (size_t)n));
        int r = LZ4_compress_default((const char *)src, (char *)out->data + out->len, (int)src_len, n);
        if (r <= 0 && src_len > 0) return HOODIE_FAIL(HOODIE_ERROR, "lz4: compression failed");
        out->len += (size_t)(r > 0 ? r : 0);
        return HOODIE_OK;
    }
    default:
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "compression codec %d is not supported for writing", (int)codec);
    }
}
