/*
 * Two digests Hudi names its metadata table's keys with (HashID): XXH64 (Yann Collet's xxHash, 64-bit variant)
 * and MD5 (RFC 1321). Portable C, no allocation; neither can fail. Byte strings may be NULL when their length is 0.
 */
#ifndef HOODIE_UTIL_DIGEST_H
#define HOODIE_UTIL_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/** XXH64 of data[0..len) with `seed`. */
uint64_t hoodie_xxh64(const void *data, size_t len, uint64_t seed);

#define HOODIE_MD5_LEN 16
/** MD5 of data[0..len) into out. */
void hoodie_md5(const void *data, size_t len, uint8_t out[HOODIE_MD5_LEN]);

#endif
