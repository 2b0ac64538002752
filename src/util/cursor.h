/*
 * Bounds-checked reads over bytes that came from storage. The first failure sticks: later reads return 0 and
 * leave `status` unchanged, so a decoder can read a whole header and check once at the end. Every failure
 * message names `what` (usually the file name) and the absolute byte offset.
 */
#ifndef HOODIE_UTIL_CURSOR_H
#define HOODIE_UTIL_CURSOR_H

#include <stdint.h>
#include <stddef.h>
#include "hoodie/common.h"

typedef struct hoodie_cursor {
    const uint8_t *p;      /* next unread byte */
    const uint8_t *end;    /* one past the last byte */
    const uint8_t *base;   /* first byte, for offsets */
    uint64_t file_off;     /* storage offset of `base`, for messages */
    const char *what;      /* name for messages (file path); may be NULL */
    hoodie_status status;  /* HOODIE_OK until the first failure */
} hoodie_cursor;

#define HOODIE_CURSOR_INIT(data, len) \
    { (const uint8_t *)(data), (const uint8_t *)(data) + (len), (const uint8_t *)(data), 0, NULL, HOODIE_OK }

static inline void hoodie_cursor_init(hoodie_cursor *c, const void *data, size_t len, uint64_t file_off,
                                      const char *what)
{
    c->p = c->base = (const uint8_t *)data;
    c->end = c->p + len;
    c->file_off = file_off;
    c->what = what;
    c->status = HOODIE_OK;
}

static inline size_t hoodie_cursor_left(const hoodie_cursor *c) { return (size_t)(c->end - c->p); }
static inline uint64_t hoodie_cursor_offset(const hoodie_cursor *c)
{
    return c->file_off + (uint64_t)(c->p - c->base);
}

/** Record a short read of `want` bytes (HOODIE_ECORRUPT), once. */
void hoodie_cursor__short(hoodie_cursor *c, size_t want);
/** Record a corruption with a formatted reason, once; returns the status. */
hoodie_status hoodie_cursor__fail(hoodie_cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int hoodie_cursor_need(hoodie_cursor *c, size_t n)
{
    if (c->status != HOODIE_OK) return 0;
    if (hoodie_cursor_left(c) < n) { hoodie_cursor__short(c, n); return 0; }
    return 1;
}

static inline uint8_t hoodie_cursor_u8(hoodie_cursor *c)
{
    if (!hoodie_cursor_need(c, 1)) return 0;
    return *c->p++;
}

static inline uint32_t hoodie_cursor_be32(hoodie_cursor *c)
{
    if (!hoodie_cursor_need(c, 4)) return 0;
    uint32_t v = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 | (uint32_t)c->p[2] << 8 | (uint32_t)c->p[3];
    c->p += 4;
    return v;
}

static inline uint64_t hoodie_cursor_be64(hoodie_cursor *c)
{
    if (!hoodie_cursor_need(c, 8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | c->p[i];
    c->p += 8;
    return v;
}

static inline uint32_t hoodie_cursor_le32(hoodie_cursor *c)
{
    if (!hoodie_cursor_need(c, 4)) return 0;
    uint32_t v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 | (uint32_t)c->p[3] << 24;
    c->p += 4;
    return v;
}

static inline uint64_t hoodie_cursor_le64(hoodie_cursor *c)
{
    if (!hoodie_cursor_need(c, 8)) return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | c->p[i];
    c->p += 8;
    return v;
}

/** Unsigned LEB128 varint, at most 10 bytes. */
static inline uint64_t hoodie_cursor_uvarint(hoodie_cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (!hoodie_cursor_need(c, 1)) return 0;
        uint8_t b = *c->p++;
        if (shift == 63 && b > 1) break;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    hoodie_cursor__fail(c, "varint longer than 10 bytes");
    return 0;
}

static inline int64_t hoodie_zigzag_decode(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }
static inline uint64_t hoodie_zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/** Borrow n bytes (pointer into the buffer), or NULL on a short read. */
static inline const uint8_t *hoodie_cursor_bytes(hoodie_cursor *c, size_t n)
{
    if (!hoodie_cursor_need(c, n)) return NULL;
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}

#endif
