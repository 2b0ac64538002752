/*
 * Page compression codecs (Parquet's CompressionCodec). No I/O.
 *
 * Decompression (implemented in codec_decompress.c): UNCOMPRESSED, SNAPPY, GZIP (gzip or zlib framing), ZSTD,
 * LZ4_RAW, and LZ4 (Hadoop framing: big-endian u32 uncompressed length + u32 compressed length per block,
 * falling back to raw LZ4 block as other readers do). Others: HOODIE_EUNSUPPORTED.
 * Compression (implemented in codec_compress.c): UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW.
 */
#ifndef HOODIE_FORMAT_PARQUET_CODEC_H
#define HOODIE_FORMAT_PARQUET_CODEC_H

#include <stdint.h>
#include "format/parquet/meta.h"
#include "util/buf.h"

/**
 * Decompress `src` into exactly `dst_len` bytes at `dst` (the page's uncompressed size).
 * `what` names the input for messages (e.g. "file.parquet: column a, page at offset 1234").
 * @return HOODIE_OK; HOODIE_ECORRUPT if the bytes do not decompress to exactly dst_len; HOODIE_EUNSUPPORTED.
 */
hoodie_status hoodie_codec_decompress(hoodie_pq_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                                      size_t dst_len, const char *what);

/**
 * Compress `src` and append the result to `out`. `level` is codec-specific (0: the codec's default).
 * @return HOODIE_OK; HOODIE_EUNSUPPORTED; HOODIE_ENOMEM.
 */
hoodie_status hoodie_codec_compress(hoodie_pq_codec codec, int level, const uint8_t *src, size_t src_len,
                                    hoodie_buf *out);

/** Codec name as Parquet spells it ("SNAPPY"), or "UNKNOWN". */
const char *hoodie_codec_name(hoodie_pq_codec codec);

#endif
