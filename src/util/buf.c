#include "util/buf.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void hoodie_buf_dispose(hoodie_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

hoodie_status hoodie_buf_reserve(hoodie_buf *b, size_t extra)
{
    size_t need;
    if (hoodie_add_overflow(b->len, extra, &need)) return HOODIE_NOMEM();
    if (need <= b->cap && b->data) return HOODIE_OK; /* even for 0 bytes: after it, data + len is a pointer */
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) { cap = need; break; }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) return HOODIE_NOMEM();
    hoodie_mem_advise_huge(p, cap);
    b->data = p;
    b->cap = cap;
    return HOODIE_OK;
}

hoodie_status hoodie_buf_append(hoodie_buf *b, const void *p, size_t n)
{
    if (!n) return HOODIE_OK;
    HOODIE_TRY(hoodie_buf_reserve(b, n));
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return HOODIE_OK;
}

hoodie_status hoodie_buf_append_str(hoodie_buf *b, const char *s) { return hoodie_buf_append(b, s, strlen(s)); }

hoodie_status hoodie_buf_printf(hoodie_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) { va_end(ap2); return HOODIE_FAIL(HOODIE_EINVAL, "bad format string"); }
    hoodie_status rc = hoodie_buf_reserve(b, (size_t)n + 1);
    if (rc == HOODIE_OK) {
        vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
    return rc;
}

hoodie_status hoodie_buf_putc(hoodie_buf *b, uint8_t c)
{
    if (b->len == b->cap) HOODIE_TRY(hoodie_buf_reserve(b, 1));
    b->data[b->len++] = c;
    return HOODIE_OK;
}

hoodie_status hoodie_buf_put_le32(hoodie_buf *b, uint32_t v)
{
    uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    return hoodie_buf_append(b, x, 4);
}

hoodie_status hoodie_buf_put_le64(hoodie_buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    return hoodie_buf_append(b, x, 8);
}

hoodie_status hoodie_buf_put_be32(hoodie_buf *b, uint32_t v)
{
    uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    return hoodie_buf_append(b, x, 4);
}

hoodie_status hoodie_buf_put_be64(hoodie_buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (56 - 8 * i));
    return hoodie_buf_append(b, x, 8);
}

hoodie_status hoodie_buf_put_uvarint(hoodie_buf *b, uint64_t v)
{
    uint8_t x[10];
    size_t n = 0;
    while (v >= 0x80) { x[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    x[n++] = (uint8_t)v;
    return hoodie_buf_append(b, x, n);
}

hoodie_status hoodie_buf_put_dec_u64(hoodie_buf *b, uint64_t v, int neg)
{
    char d[24];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg) d[--i] = '-';
    return hoodie_buf_append(b, d + i, sizeof d - i);
}

hoodie_status hoodie_buf_put_dec_i64(hoodie_buf *b, int64_t v)
{
    return hoodie_buf_put_dec_u64(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

hoodie_status hoodie_buf_cstr(hoodie_buf *b)
{
    HOODIE_TRY(hoodie_buf_reserve(b, 1));
    b->data[b->len] = '\0';
    return HOODIE_OK;
}

uint8_t *hoodie_buf_detach(hoodie_buf *b, size_t *len_out)
{
    uint8_t *p = b->data;
    if (len_out) *len_out = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
