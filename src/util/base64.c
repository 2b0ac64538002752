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

hoodie_status hoodie_base64_decode(const char *src, size_t len, hoodie_buf *out)
{
    static int8_t rev[256];
    static int init;
    if (!init) {
        for (int i = 0; i < 256; i++) rev[i] = -1;
        for (int i = 0; i < 64; i++) rev[(uint8_t)alphabet[i]] = (int8_t)i;
        init = 1;
    }
    HOODIE_TRY(hoodie_buf_reserve(out, len / 4 * 3 + 3));
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    size_t i = 0;
    /* fast path: whole quads of alphabet characters (no whitespace, no padding) */
    uint8_t *o = out->data + out->len;
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
