/* SHA-256 as FIPS 180-4 section 6.2 describes it; HMAC as RFC 2104 section 2. */
#include "util/sha256.h"

#include <string.h>

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

/* FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes */
static const uint32_t H0[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

/* ROTR^n(x) for 0 < n < 32, so neither shift reaches the width */
static inline uint32_t rotr(uint32_t x, unsigned n) { return (uint32_t)(x >> n) | (uint32_t)(x << (32u - n)); }

static inline uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* FIPS 180-4 6.2.2: fold one 64-byte block into h */
static void sha256_block(uint32_t h[8], const uint8_t *block)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t big_s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + big_s1 + ch + K[t] + w[t];
        uint32_t big_s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = big_s0 + maj;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void hoodie_sha256_init(hoodie_sha256 *c)
{
    memcpy(c->h, H0, sizeof c->h);
    c->len = 0;
    c->n = 0;
}

void hoodie_sha256_update(hoodie_sha256 *c, const void *data, size_t len)
{
    if (len == 0) return; /* data may be NULL then, and memcpy must not see it */
    const uint8_t *p = data;
    c->len += (uint64_t)len;
    if (c->n > 0) { /* top up the unfinished block first */
        size_t take = 64 - c->n < len ? 64 - c->n : len;
        memcpy(c->buf + c->n, p, take);
        c->n += take;
        p += take;
        len -= take;
        if (c->n < 64) return;
        sha256_block(c->h, c->buf);
        c->n = 0;
    }
    for (; len >= 64; p += 64, len -= 64) sha256_block(c->h, p); /* whole blocks straight from the input */
    if (len > 0) {
        memcpy(c->buf, p, len);
        c->n = len;
    }
}

void hoodie_sha256_final(hoodie_sha256 *c, uint8_t out[HOODIE_SHA256_LEN])
{
    /* FIPS 180-4 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the message length in bits, big-endian */
    uint64_t bits = c->len * 8u; /* unsigned: wraps mod 2^64 */
    c->buf[c->n++] = 0x80;
    if (c->n > 56) {
        memset(c->buf + c->n, 0, 64 - c->n);
        sha256_block(c->h, c->buf);
        c->n = 0;
    }
    memset(c->buf + c->n, 0, 56 - c->n);
    store_be32(c->buf + 56, (uint32_t)(bits >> 32));
    store_be32(c->buf + 60, (uint32_t)bits);
    sha256_block(c->h, c->buf);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, c->h[i]);
    c->n = 0;
}

void hoodie_sha256_digest(const void *data, size_t len, uint8_t out[HOODIE_SHA256_LEN])
{
    hoodie_sha256 c;
    hoodie_sha256_init(&c);
    hoodie_sha256_update(&c, data, len);
    hoodie_sha256_final(&c, out);
}

void hoodie_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                        uint8_t out[HOODIE_SHA256_LEN])
{
    /* K0 (RFC 2104 section 2): a key longer than the block is hashed first, then zero-padded to 64 bytes.
     * Both key and msg are consumed before out is written, so out may overlap either. */
    uint8_t k0[64] = { 0 }, pad[64], inner[HOODIE_SHA256_LEN];
    if (key_len > sizeof k0)
        hoodie_sha256_digest(key, key_len, k0);
    else if (key_len > 0)
        memcpy(k0, key, key_len);

    hoodie_sha256 c;
    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k0[i] ^ 0x36u);
    hoodie_sha256_init(&c);
    hoodie_sha256_update(&c, pad, sizeof pad);
    hoodie_sha256_update(&c, msg, msg_len);
    hoodie_sha256_final(&c, inner);

    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)(k0[i] ^ 0x5cu);
    hoodie_sha256_init(&c);
    hoodie_sha256_update(&c, pad, sizeof pad);
    hoodie_sha256_update(&c, inner, sizeof inner);
    hoodie_sha256_final(&c, out);
}

void hoodie_hex_lower(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}
