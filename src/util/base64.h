/* Base64 (RFC 4648 standard alphabet, '=' padding), as java.util.Base64 writes it. */
#ifndef HOODIE_UTIL_BASE64_H
#define HOODIE_UTIL_BASE64_H

#include <stdint.h>
#include "util/buf.h"

/** Append the encoding of src to out (not NUL-terminated). */
hoodie_status hoodie_base64_encode(const uint8_t *src, size_t len, hoodie_buf *out);
/** Append the decoded bytes to out. Whitespace is skipped; any other non-alphabet byte is HOODIE_ECORRUPT. */
hoodie_status hoodie_base64_decode(const char *src, size_t len, hoodie_buf *out);

#endif
