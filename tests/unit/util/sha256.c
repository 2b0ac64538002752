#include "hoodie_test.h"
#include "util/sha256.h"

#include <string.h>

/* Expected digests: FIPS 180-2 appendix B / NIST CSRC example values (SHA-256) and RFC 4231 section 4
 * (HMAC-SHA-256); the padding-boundary lengths were taken from sha256sum. */

#define MSG_448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define MSG_896                                                                                          \
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs" \
    "mnopqrstnopqrstu"

typedef struct sha_vector {
    const char *msg; /* NULL: one million 'a' */
    size_t      len;
    const char *hex;
} sha_vector;

static const sha_vector vectors[] = {
    { "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { MSG_448, sizeof MSG_448 - 1, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    { MSG_896, sizeof MSG_896 - 1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
    { NULL, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
};

/* The message of vector v (the million 'a' in a static buffer, so a failed assertion leaks nothing). */
static const uint8_t *vector_msg(const sha_vector *v)
{
    static uint8_t million_a[1000000];
    if (v->msg) return (const uint8_t *)v->msg;
    memset(million_a, 'a', sizeof million_a);
    return million_a;
}

static void digest_hex(const void *data, size_t len, char hex[2 * HOODIE_SHA256_LEN + 1])
{
    uint8_t d[HOODIE_SHA256_LEN];
    hoodie_sha256_digest(data, len, d);
    hoodie_hex_lower(d, sizeof d, hex);
}

/* Feed data in pieces of `chunk` bytes (the last one shorter). */
static void chunked_hex(const uint8_t *data, size_t len, size_t chunk, char hex[2 * HOODIE_SHA256_LEN + 1])
{
    hoodie_sha256 c;
    uint8_t d[HOODIE_SHA256_LEN];
    hoodie_sha256_init(&c);
    for (size_t off = 0; off < len; off += chunk)
        hoodie_sha256_update(&c, data + off, len - off < chunk ? len - off : chunk);
    hoodie_sha256_final(&c, d);
    hoodie_hex_lower(d, sizeof d, hex);
}

HOODIE_TEST(util_sha256__nist_vectors)
{
    char hex[2 * HOODIE_SHA256_LEN + 1];
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        digest_hex(vector_msg(&vectors[i]), vectors[i].len, hex);
        hoodie_assert_equal_s(vectors[i].hex, hex);
    }
    digest_hex(NULL, 0, hex); /* NULL is fine for an empty message */
    hoodie_assert_equal_s(vectors[0].hex, hex);
}

HOODIE_TEST(util_sha256__nist_vectors_in_chunks)
{
    static const size_t chunks[] = { 1, 3, 63, 64, 65 };
    char hex[2 * HOODIE_SHA256_LEN + 1];
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const uint8_t *msg = vector_msg(&vectors[i]);
        for (size_t j = 0; j < sizeof chunks / sizeof chunks[0]; j++) {
            chunked_hex(msg, vectors[i].len, chunks[j], hex);
            hoodie_assert_equal_s(vectors[i].hex, hex);
        }
    }
}

HOODIE_TEST(util_sha256__padding_boundaries)
{
    /* 55: the length fits the last block; 56..63: it spills into an extra block; 64: a whole block */
    static const struct { size_t len; const char *hex; } want[] = {
        { 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
        { 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
        { 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
    };
    uint8_t a[64];
    char hex[2 * HOODIE_SHA256_LEN + 1];
    memset(a, 'a', sizeof a);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        digest_hex(a, want[i].len, hex);
        hoodie_assert_equal_s(want[i].hex, hex);
        chunked_hex(a, want[i].len, 7, hex);
        hoodie_assert_equal_s(want[i].hex, hex);
    }
}

HOODIE_TEST(util_sha256__every_two_way_and_three_way_split)
{
    uint8_t msg[200], want[HOODIE_SHA256_LEN], got[HOODIE_SHA256_LEN];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 131u + 7u);
    for (size_t len = 0; len <= sizeof msg; len += 29) {
        hoodie_sha256_digest(msg, len, want);
        for (size_t i = 0; i <= len; i++) {
            for (size_t j = i; j <= len; j += 5) {
                hoodie_sha256 c;
                hoodie_sha256_init(&c);
                hoodie_sha256_update(&c, msg, i);
                hoodie_sha256_update(&c, msg + i, j - i);
                hoodie_sha256_update(&c, NULL, 0);
                hoodie_sha256_update(&c, msg + j, len - j);
                hoodie_sha256_final(&c, got);
                hoodie_assert(memcmp(want, got, sizeof want) == 0);
            }
        }
    }
}

HOODIE_TEST(util_sha256__context_reuse_after_init)
{
    hoodie_sha256 c;
    uint8_t d[HOODIE_SHA256_LEN];
    char hex[2 * HOODIE_SHA256_LEN + 1];
    hoodie_sha256_init(&c);
    hoodie_sha256_update(&c, MSG_896, sizeof MSG_896 - 1);
    hoodie_sha256_final(&c, d);
    hoodie_sha256_init(&c);
    hoodie_sha256_update(&c, "abc", 3);
    hoodie_sha256_final(&c, d);
    hoodie_hex_lower(d, sizeof d, hex);
    hoodie_assert_equal_s(vectors[1].hex, hex);
}

/* RFC 4231 section 4; test case 5 (output truncated to 128 bits) is left out. */
HOODIE_TEST(util_sha256__hmac_rfc4231)
{
    uint8_t key_0b[20], key_aa20[20], key_0119[25], key_aa131[131], data_dd[50], data_cd[50];
    memset(key_0b, 0x0b, sizeof key_0b);
    memset(key_aa20, 0xaa, sizeof key_aa20);
    for (size_t i = 0; i < sizeof key_0119; i++) key_0119[i] = (uint8_t)(i + 1);
    memset(key_aa131, 0xaa, sizeof key_aa131);
    memset(data_dd, 0xdd, sizeof data_dd);
    memset(data_cd, 0xcd, sizeof data_cd);
    static const char msg6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
    static const char msg7[] = "This is a test using a larger than block-size key and a larger than block-size data. "
                               "The key needs to be hashed before being used by the HMAC algorithm.";
    const struct {
        const void *key;
        size_t      key_len;
        const void *msg;
        size_t      msg_len;
        const char *hex;
    } cases[] = {
        { key_0b, sizeof key_0b, "Hi There", 8,
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
        { "Jefe", 4, "what do ya want for nothing?", 28,
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
        { key_aa20, sizeof key_aa20, data_dd, sizeof data_dd,
          "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
        { key_0119, sizeof key_0119, data_cd, sizeof data_cd,
          "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
        { key_aa131, sizeof key_aa131, msg6, sizeof msg6 - 1,
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
        { key_aa131, sizeof key_aa131, msg7, sizeof msg7 - 1,
          "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
    };
    uint8_t mac[HOODIE_SHA256_LEN];
    char hex[2 * HOODIE_SHA256_LEN + 1];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hoodie_hmac_sha256(cases[i].key, cases[i].key_len, cases[i].msg, cases[i].msg_len, mac);
        hoodie_hex_lower(mac, sizeof mac, hex);
        hoodie_assert_equal_s(cases[i].hex, hex);
    }
}

HOODIE_TEST(util_sha256__hmac_output_may_alias_inputs)
{
    /* the SigV4 key chain writes each HMAC over its own key: k = HMAC(k, ...) */
    uint8_t k[HOODIE_SHA256_LEN], want[HOODIE_SHA256_LEN];
    for (size_t i = 0; i < sizeof k; i++) k[i] = (uint8_t)i;
    hoodie_hmac_sha256(k, sizeof k, "region", 6, want);
    hoodie_hmac_sha256(k, sizeof k, "region", 6, k);
    hoodie_assert(memcmp(want, k, sizeof k) == 0);

    uint8_t m[HOODIE_SHA256_LEN];
    for (size_t i = 0; i < sizeof m; i++) m[i] = (uint8_t)(0xf0u - i);
    hoodie_hmac_sha256("key", 3, m, sizeof m, want);
    hoodie_hmac_sha256("key", 3, m, sizeof m, m);
    hoodie_assert(memcmp(want, m, sizeof m) == 0);

    uint8_t empty[HOODIE_SHA256_LEN];
    hoodie_hmac_sha256(NULL, 0, NULL, 0, empty); /* RFC 2104 allows an empty key; empty message too */
    hoodie_hmac_sha256("", 0, "", 0, want);
    hoodie_assert(memcmp(want, empty, sizeof want) == 0);
}

HOODIE_TEST(util_sha256__hex_lower)
{
    static const uint8_t bytes[] = { 0x00, 0x01, 0x0f, 0x10, 0x9a, 0xab, 0xf0, 0xff };
    char hex[2 * sizeof bytes + 1];
    memset(hex, 'X', sizeof hex);
    hoodie_hex_lower(bytes, sizeof bytes, hex);
    hoodie_assert_equal_s("00010f109aabf0ff", hex);
    char one = 'X';
    hoodie_hex_lower(bytes, 0, &one);
    hoodie_assert_equal_i('\0', one);
}
