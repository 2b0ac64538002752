/*
 * Parquet value and level encodings, decode side. All decoders are bounds-checked against their input; a
 * malformed input gives HOODIE_ECORRUPT naming `what` (file, column, page offset), never a read past the end.
 * No allocation except where an output buffer is passed in (hoodie_buf).
 */
#ifndef HOODIE_FORMAT_PARQUET_DECODE_H
#define HOODIE_FORMAT_PARQUET_DECODE_H

#include <stdint.h>
#include "format/parquet/bits.h"
#include <stddef.h>
#include "hoodie/common.h"
#include "util/buf.h"

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, RLE booleans) ---- */

typedef struct hoodie_pq_rle {
    const uint8_t *p, *end;  /* remaining input */
    int bit_width;           /* 0..32 */
    uint32_t rle_left;       /* values left in the current RLE run */
    uint32_t rle_value;
    uint32_t bp_left;        /* values left in the current bit-packed run */
    uint64_t acc;            /* bit-packed: pending bits */
    int acc_bits;
    int bad;                 /* 1: input malformed (a run header promised more than present) */
    uint32_t run_max;        /* the largest RLE run value read so far (bit-packed values are below 2^bit_width) */
    uint32_t run_min;        /* the smallest (UINT32_MAX: none yet) */
    int bp_seen;             /* a bit-packed run was read */
} hoodie_pq_rle;

/** Start decoding `len` bytes (no length prefix) of values of `bit_width` bits. */
void hoodie_pq_rle_init(hoodie_pq_rle *d, const uint8_t *p, size_t len, int bit_width);
/** Decode up to n values; returns how many were produced (fewer than n: input exhausted or d->bad). */
size_t hoodie_pq_rle_get_u32(hoodie_pq_rle *d, uint32_t *out, size_t n);
size_t hoodie_pq_rle_get_i16(hoodie_pq_rle *d, int16_t *out, size_t n);


/**
 * Legacy BIT_PACKED levels (deprecated encoding, bits packed from the most significant bit): n values of
 * `bit_width` bits from p[0..len). Returns bytes consumed, or (size_t)-1 if len is too short.
 */
size_t hoodie_pq_bitpacked_legacy_levels(const uint8_t *p, size_t len, int bit_width, int16_t *out, size_t n);

/* ---- DELTA_BINARY_PACKED ---- */

/**
 * Decode a DELTA_BINARY_PACKED stream. Its value count must be <= max_count (else corruption); the values
 * (wrapping 64-bit arithmetic; truncate to 32 bits for INT32 columns) go to out[0..*count_out).
 * *consumed_out is the number of input bytes the stream occupies.
 */
hoodie_status hoodie_pq_delta_binary_decode(const uint8_t *p, size_t len, size_t max_count, int64_t *out,
                                            size_t *count_out, size_t *consumed_out, const char *what);
/** Read only the value count from a DELTA_BINARY_PACKED header (for sizing). */
hoodie_status hoodie_pq_delta_binary_count(const uint8_t *p, size_t len, size_t *count_out, const char *what);

/* ---- byte arrays ---- */

/**
 * DELTA_LENGTH_BYTE_ARRAY: exactly n values. offsets[0..n] (relative to *data_out) receive the running lengths;
 * *data_out points into p at the concatenated bytes. *consumed_out: bytes used. `scratch` must hold n int64.
 */
hoodie_status hoodie_pq_delta_length_decode(const uint8_t *p, size_t len, size_t n, int64_t *scratch,
                                            int32_t *offsets, const uint8_t **data_out, size_t *consumed_out,
                                            const char *what);
/**
 * DELTA_BYTE_ARRAY (incremental / front coding): exactly n values, appended to `data` with offsets[0..n]
 * relative to the data length at entry (temporary arrays are malloc'ed and freed inside).
 */
hoodie_status hoodie_pq_delta_byte_array_decode(const uint8_t *p, size_t len, size_t n, hoodie_buf *data,
                                                int32_t *offsets, const char *what);

/* ---- fixed width ---- */

/** BYTE_STREAM_SPLIT of n values of `width` bytes: p must hold exactly n * width bytes. */
hoodie_status hoodie_pq_byte_stream_split_decode(const uint8_t *p, size_t len, size_t n, size_t width,
                                                 uint8_t *out, const char *what);

/** Copy n bits from src (starting at bit src_bit) to dst (starting at bit dst_bit), LSB-first. */
void hoodie_pq_copy_bits(const uint8_t *src, uint64_t src_bit, uint8_t *dst, uint64_t dst_bit, size_t n);

/** INT96 (8 bytes nanos of day LE, 4 bytes Julian day LE) to nanoseconds since the Unix epoch. */
static inline int64_t hoodie_pq_int96_to_nanos(const uint8_t *p)
{
    uint64_t nanos = 0;
    uint32_t jd = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
    for (int i = 7; i >= 0; i--) nanos = nanos << 8 | p[i];
    return (int64_t)(((uint64_t)((int64_t)jd - 2440588) * 86400000000000ULL) + nanos);
}

#endif
