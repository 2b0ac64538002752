/*
 * A growable byte buffer (stack-embedded: hoodie_buf_init / hoodie_buf_dispose). Appends fail with
 * HOODIE_ENOMEM and leave the buffer as it was. Little- and big-endian append helpers for encoders.
 */
#ifndef HOODIE_UTIL_BUF_H
#define HOODIE_UTIL_BUF_H

#include <stdint.h>
#include <string.h>
#include "hoodie/common.h"

typedef struct hoodie_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} hoodie_buf;

#define HOODIE_BUF_INIT { NULL, 0, 0 }

static inline void hoodie_buf_init(hoodie_buf *b) { b->data = NULL; b->len = b->cap = 0; }
void hoodie_buf_dispose(hoodie_buf *b);
/** Make room for `extra` more bytes (for 0 too: `data` is then never NULL, and `data + len` a valid pointer). */
hoodie_status hoodie_buf_reserve(hoodie_buf *b, size_t extra);
hoodie_status hoodie_buf_append(hoodie_buf *b, const void *p, size_t n);
hoodie_status hoodie_buf_append_str(hoodie_buf *b, const char *s);
hoodie_status hoodie_buf_printf(hoodie_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
hoodie_status hoodie_buf_putc(hoodie_buf *b, uint8_t c);
hoodie_status hoodie_buf_put_le32(hoodie_buf *b, uint32_t v);
hoodie_status hoodie_buf_put_le64(hoodie_buf *b, uint64_t v);
hoodie_status hoodie_buf_put_be32(hoodie_buf *b, uint32_t v);
hoodie_status hoodie_buf_put_be64(hoodie_buf *b, uint64_t v);
/** Unsigned LEB128 varint (Thrift compact, Avro after zig-zag). */
hoodie_status hoodie_buf_put_uvarint(hoodie_buf *b, uint64_t v);
/** NUL-terminate without counting the NUL in len (so data can be used as a C string). */
/** v in decimal digits ("-" first when neg: the magnitude of a negative number), as printf's %llu / %lld. */
hoodie_status hoodie_buf_put_dec_u64(hoodie_buf *b, uint64_t v, int neg);
hoodie_status hoodie_buf_put_dec_i64(hoodie_buf *b, int64_t v);
hoodie_status hoodie_buf_cstr(hoodie_buf *b);
static inline void hoodie_buf_clear(hoodie_buf *b) { b->len = 0; }
/** Hand the bytes to the caller (free with free()); the buffer becomes empty. */
uint8_t *hoodie_buf_detach(hoodie_buf *b, size_t *len_out);

#endif
