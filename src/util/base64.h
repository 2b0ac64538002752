/* Base64 (RFC 4648 standard alphabet, '=' padding), as java.util.Base64 writes it. */
#ifndef HOODIE_UTIL_BASE64_H
#define HOODIE_UTIL_BASE64_H

#include <stdint.h>
#include "util/buf.h"

/** Append the encoding of src to out (not NUL-terminated). */
hoodie_status hoodie_base64_encode(const uint8_t *src, size_t len, hoodie_buf *out);
/** Append the decoded bytes to out. Whitespace is skipped; any other non-alphabet byte is HOODIE_ECORRUPT. */
hoodie_status hoodie_base64_decode(const char *src, size_t len, hoodie_buf *out);

/* character -> its 6-bit value, -1: not in the alphabet */
extern const int8_t hoodie_base64_rev[256];

/**
 * The decoded byte at offset `b` of unbroken Base64 text (no whitespace; the caller checks that characters
 * 4*(b/3) .. 4*(b/3)+3 exist), or -1 when one of the two characters it comes from is not in the alphabet.
 */
static inline int hoodie_base64_byte_at(const char *text, size_t b)
{
    size_t q = b / 3 * 4, r = b % 3;
    int hi = hoodie_base64_rev[(uint8_t)text[q + r]], lo = hoodie_base64_rev[(uint8_t)text[q + r + 1]];
    if ((hi | lo) < 0) return -1;
    return (int)(((unsigned)hi << (2 + 2 * r) | (unsigned)lo >> (4 - 2 * r)) & 0xffu);
}

#endif
