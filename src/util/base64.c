#include "util/base64.h"
#include "util/error.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

hoodie_status hoodie_base64_encode(const uint8_t *src, size_t len, hoodie_buf *out)
{
    size_t n = (len + 2) / 3 * 4;
    HOODIE_TRY(hoodie_buf_reserve(out, n));
    char *d = (char *)out->data + out->len;
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 | src[i + 2];
        *d++ = alphabet[v >> 18];
        *d++ = alphabet[(v >> 12) & 63];
        *d++ = alphabet[(v >> 6) & 63];
        *d++ = alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)src[i] << 16;
        *d++ = alphabet[v >> 18];
        *d++ = alphabet[(v >> 12) & 63];
        *d++ = '=';
        *d++ = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8;
        *d++ = alphabet[v >> 18];
        *d++ = alphabet[(v >> 12) & 63];
        *d++ = alphabet[(v >> 6) & 63];
        *d++ = '=';
    }
    out->len += n;
    return HOODIE_OK;
}

/* character -> its 6-bit value, -1: not in the alphabet (a constant table: no first-use setup to race on) */
const int8_t hoodie_base64_rev[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

hoodie_status hoodie_base64_decode(const char *src, size_t len, hoodie_buf *out)
{
    const int8_t *rev = hoodie_base64_rev;
    HOODIE_TRY(hoodie_buf_reserve(out, len / 4 * 3 + 3 + 8)); /* + 8: the 8-byte stores of the fast path */
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    size_t i = 0;
    /* fast path: eight alphabet characters (no whitespace, no padding) as one 48-bit number, stored big-endian
     * with one 8-byte store of which 6 bytes count; then whole quads */
    uint8_t *o = out->data + out->len;
    while (i + 8 <= len) {
        const uint8_t *q = (const uint8_t *)src + i;
        int32_t r0 = rev[q[0]], r1 = rev[q[1]], r2 = rev[q[2]], r3 = rev[q[3]];
        int32_t r4 = rev[q[4]], r5 = rev[q[5]], r6 = rev[q[6]], r7 = rev[q[7]];
        if ((r0 | r1 | r2 | r3 | r4 | r5 | r6 | r7) < 0) break;
        uint64_t v = (uint64_t)r0 << 58 | (uint64_t)r1 << 52 | (uint64_t)r2 << 46 | (uint64_t)r3 << 40 |
                     (uint64_t)r4 << 34 | (uint64_t)r5 << 28 | (uint64_t)r6 << 22 | (uint64_t)r7 << 16;
        for (int k = 0; k < 8; k++) o[k] = (uint8_t)(v >> (56 - 8 * k)); /* compilers make it one store */
        o += 6;
        i += 8;
    }
    while (i + 4 <= len) {
        const uint8_t *q = (const uint8_t *)src + i;
        int32_t a = rev[q[0]], b = rev[q[1]], c = rev[q[2]], d = rev[q[3]];
        if ((a | b | c | d) < 0) break;
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        o[0] = (uint8_t)(v >> 16);
        o[1] = (uint8_t)(v >> 8);
        o[2] = (uint8_t)v;
        o += 3;
        i += 4;
    }
    out->len = (size_t)(o - out->data);
    for (; i < len; i++) {
        uint8_t c = (uint8_t)src[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '=') { pad++; continue; }
        if (rev[c] < 0 || pad)
            return HOODIE_CORRUPT("invalid base64 character 0x%02x at offset %zu", c, i);
        acc = acc << 6 | (uint32_t)rev[c];
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out->data[out->len++] = (uint8_t)(acc >> bits);
        }
    }
    return HOODIE_OK;
}
