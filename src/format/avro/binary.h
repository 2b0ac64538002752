/*
 * Avro binary encoding primitives over a sticky cursor (util/cursor.h): zig-zag varints, floats little-endian,
 * length-prefixed bytes and strings, block-counted arrays and maps. Lengths are checked against the bytes left
 * before anything is allocated or skipped.
 */
#ifndef HOODIE_FORMAT_AVRO_BINARY_H
#define HOODIE_FORMAT_AVRO_BINARY_H

#include <string.h>
#include "format/avro/schema.h"
#include "util/buf.h"
#include "util/cursor.h"

/**
 * Unsigned varint with a fast path: with at least 10 bytes left, up to 9 bytes are decoded without per-byte bounds
 * checks; anything else (near the end, 10-byte values, overlong input) goes through hoodie_cursor_uvarint, so the
 * result and every failure (message, offset) are exactly hoodie_cursor_uvarint's.
 */
static inline uint64_t hoodie_avro_read_uvarint(hoodie_cursor *c)
{
    const uint8_t *p = c->p;
    if (__builtin_expect(c->end - p >= 10 && c->status == HOODIE_OK, 1)) {
        uint64_t b = p[0], v = b & 0x7f;
        if (b < 0x80) { c->p = p + 1; return v; }
        for (unsigned i = 1; i < 9; i++) {
            b = p[i];
            v |= (b & 0x7f) << (7 * i);
            if (b < 0x80) { c->p = p + i + 1; return v; }
        }
    }
    return hoodie_cursor_uvarint(c);
}

static inline int64_t hoodie_avro_read_long(hoodie_cursor *c) { return hoodie_zigzag_decode(hoodie_avro_read_uvarint(c)); }

static inline int32_t hoodie_avro_read_int(hoodie_cursor *c)
{
    int64_t v = hoodie_avro_read_long(c);
    if (c->status == HOODIE_OK && (v < INT32_MIN || v > INT32_MAX)) {
        hoodie_cursor__fail(c, "avro int out of range: %lld", (long long)v);
        return 0;
    }
    return (int32_t)v;
}

static inline float hoodie_avro_read_float(hoodie_cursor *c)
{
    uint32_t u = hoodie_cursor_le32(c);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double hoodie_avro_read_double(hoodie_cursor *c)
{
    uint64_t u = hoodie_cursor_le64(c);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/** bytes/string: borrow the payload. */
static inline const uint8_t *hoodie_avro_read_bytes(hoodie_cursor *c, size_t *len)
{
    int64_t n = hoodie_avro_read_long(c);
    *len = 0;
    if (c->status != HOODIE_OK) return NULL;
    if (n < 0 || (uint64_t)n > hoodie_cursor_left(c)) {
        hoodie_cursor__fail(c, "avro bytes of length %lld with %zu bytes left", (long long)n, hoodie_cursor_left(c));
        return NULL;
    }
    *len = (size_t)n;
    return hoodie_cursor_bytes(c, (size_t)n);
}

/**
 * Array/map block header: the count of the next block (0 ends the value). A negative count is followed by the
 * block's byte size (read and ignored). Counts are bounded by the bytes left.
 */
static inline int64_t hoodie_avro_read_block_count(hoodie_cursor *c)
{
    int64_t n = hoodie_avro_read_long(c);
    if (n < 0) {
        if (n == INT64_MIN) { hoodie_cursor__fail(c, "avro block count out of range"); return 0; }
        n = -n;
        (void)hoodie_avro_read_long(c);
    }
    if (c->status == HOODIE_OK && (uint64_t)n > hoodie_cursor_left(c) + 1) {
        /* every item takes at least one byte, except null items: allow large counts of nulls only if tiny */
        hoodie_cursor__fail(c, "avro block of %lld items with %zu bytes left", (long long)n, hoodie_cursor_left(c));
        return 0;
    }
    return c->status == HOODIE_OK ? n : 0;
}

/** Skip one value of schema `s`. */
void hoodie_avro_skip(hoodie_cursor *c, const hoodie_avro_schema *s);

/* Encoding (appends to a buffer). */
hoodie_status hoodie_avro_write_long(hoodie_buf *b, int64_t v);
hoodie_status hoodie_avro_write_bytes(hoodie_buf *b, const void *p, size_t len);
hoodie_status hoodie_avro_write_float(hoodie_buf *b, float v);
hoodie_status hoodie_avro_write_double(hoodie_buf *b, double v);

#endif
