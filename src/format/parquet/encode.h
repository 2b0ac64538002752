/*
 * Parquet value and level ENCODERS (the writer side; decoders live in decode.h). No I/O: everything appends to a
 * hoodie_buf. All multi-byte values are little-endian as Parquet requires.
 *
 *   PLAIN                  fixed-width values as they are; BOOLEAN bit-packed LSB first; BYTE_ARRAY u32 length +
 *                          bytes; FIXED_LEN_BYTE_ARRAY bytes
 *   RLE / bit-packed       hybrid runs: header uvarint (count << 1) for a repeated run (value in ceil(bw/8) bytes),
 *                          (groups << 1 | 1) for groups of 8 bit-packed values (LSB first)
 *   DELTA_BINARY_PACKED    header <block size 128> <4 miniblocks> <count> <first zigzag>, then per block:
 *                          <min delta zigzag> <4 bit widths> <miniblocks of 32 bit-packed (delta - min)>
 *   DELTA_LENGTH_BYTE_ARRAY DELTA_BINARY_PACKED lengths then concatenated bytes
 *   DELTA_BYTE_ARRAY       DELTA_BINARY_PACKED prefix lengths, then DELTA_LENGTH_BYTE_ARRAY suffixes
 *   BYTE_STREAM_SPLIT      byte k of every value, for k = 0 .. width-1
 */
#ifndef HOODIE_FORMAT_PARQUET_ENCODE_H
#define HOODIE_FORMAT_PARQUET_ENCODE_H

#include <stdint.h>
#include "format/parquet/bits.h"
#include <stddef.h>
#include "util/buf.h"


/**
 * RLE/bit-packed hybrid encoding of `n` values (each < 2^bit_width) appended to `out`, without any length prefix
 * or bit-width byte. Values are read as u16 (`values16`) or u32 (`values32`): pass exactly one non-NULL.
 */
hoodie_status hoodie_pq_rle_encode(const uint16_t *values16, const uint32_t *values32, size_t n, int bit_width,
                                   hoodie_buf *out);

/** Bit-pack `n` values (< 2^bit_width) LSB first, padded to a whole byte. */
hoodie_status hoodie_pq_bitpack(const uint32_t *values, size_t n, int bit_width, hoodie_buf *out);

/** PLAIN-encode `n` booleans given one byte (0/1) each. */
hoodie_status hoodie_pq_plain_bool(const uint8_t *bytes, size_t n, hoodie_buf *out);

/** DELTA_BINARY_PACKED of `n` int32 (`is64` 0) or int64 (`is64` 1) values read little-endian from `plain`. */
hoodie_status hoodie_pq_delta_binary_encode(const uint8_t *plain, size_t n, int is64, hoodie_buf *out);

/** Same for values given as an int64 array (used for lengths). */
hoodie_status hoodie_pq_delta_binary_encode_i64(const int64_t *v, size_t n, hoodie_buf *out);

/** DELTA_LENGTH_BYTE_ARRAY of `n` values given in PLAIN BYTE_ARRAY form (u32 length + bytes each). */
hoodie_status hoodie_pq_delta_length_encode(const uint8_t *plain, size_t plain_len, size_t n, hoodie_buf *out);

/** DELTA_BYTE_ARRAY of `n` values in PLAIN BYTE_ARRAY form (`width` 0) or FIXED_LEN_BYTE_ARRAY of `width`. */
hoodie_status hoodie_pq_delta_byte_array_encode(const uint8_t *plain, size_t plain_len, size_t n, int width,
                                                hoodie_buf *out);

/** BYTE_STREAM_SPLIT of `n` values of `width` bytes each. */
hoodie_status hoodie_pq_byte_stream_split(const uint8_t *plain, size_t n, int width, hoodie_buf *out);

#endif
