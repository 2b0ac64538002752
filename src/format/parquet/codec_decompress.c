/* Page decompression for every codec Parquet readers meet in practice (see codec.h). */
#include "format/parquet/codec.h"
#include "util/error.h"

#include <limits.h>
#include <string.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

const char *hoodie_codec_name(hoodie_pq_codec codec)
{
    switch (codec) {
    case HOODIE_PQ_UNCOMPRESSED: return "UNCOMPRESSED";
    case HOODIE_PQ_SNAPPY: return "SNAPPY";
    case HOODIE_PQ_GZIP: return "GZIP";
    case HOODIE_PQ_LZO: return "LZO";
    case HOODIE_PQ_BROTLI: return "BROTLI";
    case HOODIE_PQ_LZ4: return "LZ4";
    case HOODIE_PQ_ZSTD: return "ZSTD";
    case HOODIE_PQ_LZ4_RAW: return "LZ4_RAW";
    }
    return "UNKNOWN";
}

static hoodie_status bad(const char *what, const char *codec, const char *why)
{
    return HOODIE_CORRUPT("%s: %s decompression failed: %s", what ? what : "page", codec, why);
}

static hoodie_status inflate_all(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, const char *what)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (src_len > UINT_MAX || dst_len > UINT_MAX) return bad(what, "GZIP", "page too large");
    /* 15 + 32: accept both gzip and zlib headers. */
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return HOODIE_NOMEM();
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)src_len;
    zs.next_out = dst;
    zs.avail_out = (uInt)dst_len;
    int rc = inflate(&zs, Z_FINISH);
    size_t produced = dst_len - zs.avail_out;
    /* Some writers concatenate gzip members; keep going while input remains. */
    while (rc == Z_STREAM_END && zs.avail_in > 0 && zs.avail_out > 0) {
        if (inflateReset(&zs) != Z_OK) break;
        rc = inflate(&zs, Z_FINISH);
        produced = dst_len - zs.avail_out;
    }
    inflateEnd(&zs);
    if (rc == Z_MEM_ERROR) return HOODIE_NOMEM();
    if (rc != Z_STREAM_END)
        return bad(what, "GZIP", zs.msg ? zs.msg : "truncated or invalid stream");
    if (produced != dst_len) return bad(what, "GZIP", "size differs from the page header");
    return HOODIE_OK;
}

static hoodie_status lz4_raw(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, const char *what)
{
    if (src_len > INT_MAX || dst_len > INT_MAX) return bad(what, "LZ4", "page too large");
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (n < 0 || (size_t)n != dst_len) return bad(what, "LZ4", "invalid block or size differs from the page header");
    return HOODIE_OK;
}

/* Hadoop framing: blocks of [BE u32 uncompressed len][BE u32 compressed len][lz4 block]... */
static int lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    while (in < src_len) {
        if (src_len - in < 8) return 0;
        uint32_t ulen = (uint32_t)src[in] << 24 | (uint32_t)src[in + 1] << 16 | (uint32_t)src[in + 2] << 8 | src[in + 3];
        uint32_t clen = (uint32_t)src[in + 4] << 24 | (uint32_t)src[in + 5] << 16 | (uint32_t)src[in + 6] << 8 | src[in + 7];
        in += 8;
        if (clen > src_len - in || ulen > dst_len - out || clen > INT_MAX || ulen > INT_MAX) return 0;
        int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen, (int)ulen);
        if (n < 0 || (uint32_t)n != ulen) return 0;
        in += clen;
        out += ulen;
    }
    return out == dst_len;
}

hoodie_status hoodie_codec_decompress(hoodie_pq_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                                      size_t dst_len, const char *what)
{
    switch (codec) {
    case HOODIE_PQ_UNCOMPRESSED:
        if (src_len != dst_len) return bad(what, "UNCOMPRESSED", "sizes differ");
        if (dst_len) memcpy(dst, src, dst_len);
        return HOODIE_OK;
    case HOODIE_PQ_SNAPPY: {
        size_t n;
        if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
            return bad(what, "SNAPPY", "invalid header");
        if (n != dst_len) return bad(what, "SNAPPY", "size differs from the page header");
        if (snappy_uncompress((const char *)src, src_len, (char *)dst, &n) != SNAPPY_OK || n != dst_len)
            return bad(what, "SNAPPY", "invalid stream");
        return HOODIE_OK;
    }
    case HOODIE_PQ_GZIP:
        return inflate_all(src, src_len, dst, dst_len, what);
    case HOODIE_PQ_ZSTD: {
        size_t n = ZSTD_decompress(dst, dst_len, src, src_len);
        if (ZSTD_isError(n)) return bad(what, "ZSTD", ZSTD_getErrorName(n));
        if (n != dst_len) return bad(what, "ZSTD", "size differs from the page header");
        return HOODIE_OK;
    }
    case HOODIE_PQ_LZ4_RAW:
        return lz4_raw(src, src_len, dst, dst_len, what);
    case HOODIE_PQ_LZ4:
        if (lz4_hadoop(src, src_len, dst, dst_len)) return HOODIE_OK;
        return lz4_raw(src, src_len, dst, dst_len, what);
    default:
        return HOODIE_FAIL(HOODIE_EUNSUPPORTED, "%s: compression codec %s (%d) is not supported",
                           what ? what : "page", hoodie_codec_name(codec), (int)codec);
    }
}
