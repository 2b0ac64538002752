/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), portable C, no allocation.
 *
 * None of these functions can fail: they return void, set no error and touch nothing but their arguments.
 * Byte strings may be NULL when their length is 0.
 */
#ifndef HOODIE_UTIL_SHA256_H
#define HOODIE_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HOODIE_SHA256_LEN 32

/** Streaming state, stack-embeddable: init, update any number of times, final. */
typedef struct hoodie_sha256 {
    uint32_t h[8];    /* chaining value */
    uint64_t len;     /* bytes hashed so far (the bit count is len * 8, mod 2^64) */
    uint8_t  buf[64]; /* the unfinished block */
    size_t   n;       /* bytes in buf, 0..63 */
} hoodie_sha256;

/** Start a new hash in `c`. Never fails. */
void hoodie_sha256_init(hoodie_sha256 *c);
/** Hash `len` more bytes; splitting the input across calls at any point gives the same digest. Never fails. */
void hoodie_sha256_update(hoodie_sha256 *c, const void *data, size_t len);
/** Write the digest to `out`. `c` is spent afterwards: call hoodie_sha256_init() to reuse it. Never fails. */
void hoodie_sha256_final(hoodie_sha256 *c, uint8_t out[HOODIE_SHA256_LEN]);
/** One-shot SHA-256 of data[0..len). `out` may overlap `data`. Never fails. */
void hoodie_sha256_digest(const void *data, size_t len, uint8_t out[HOODIE_SHA256_LEN]);
/**
 * HMAC-SHA256 (RFC 2104) of msg[0..msg_len) under key[0..key_len), any key length. `out` may overlap `key` or
 * `msg` (as in the chained key derivations of AWS SigV4). Never fails.
 */
void hoodie_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                        uint8_t out[HOODIE_SHA256_LEN]);

/** Lower-case hex of bytes[0..n) into out: 2n characters and a NUL. Never fails. */
void hoodie_hex_lower(const uint8_t *bytes, size_t n, char *out);

#endif
