#include "hoodie_test.h"
#include "util/digest.h"
#include "util/sha256.h"

#include <string.h>

/* RFC 1321 appendix A.5, and lengths around the padding boundaries (55, 56, 63, 64 bytes: md5sum). */
HOODIE_TEST(util_digest__md5_vectors)
{
    static const struct { const char *msg, *hex; } v[] = {
        { "", "d41d8cd98f00b204e9800998ecf8427e" },
        { "a", "0cc175b9c0f1b6a831c399e269772661" },
        { "abc", "900150983cd24fb0d6963f7d28e17f72" },
        { "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
        { "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
        { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f" },
        { "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
          "57edf4a22be3c955ac49da2e2107b67a" },
    };
    uint8_t d[HOODIE_MD5_LEN];
    char hex[2 * HOODIE_MD5_LEN + 1];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        hoodie_md5(v[i].msg, strlen(v[i].msg), d);
        hoodie_hex_lower(d, sizeof d, hex);
        hoodie_assert_equal_s(v[i].hex, hex);
    }
}

/* xxHash's reference values (XXH64 of "", "a", "abc" with seed 0) and Hudi's keys (HashID with seed
 * 0xdabadaba sign-extended, as Java passes the int to hash64(long)): the column_stats keys of the fixture
 * mdt_basic_mor_avro_v8_nonpartitioned, base64 of the big-endian hash ("longField" -> 5c3XMDwTWtU=, "." ->
 * FXThHwelITM=). */
HOODIE_TEST(util_digest__xxh64_vectors)
{
    hoodie_assert(0xEF46DB3751D8E999ULL == hoodie_xxh64("", 0, 0));
    hoodie_assert(0xD24EC4F1A98C6E5BULL == hoodie_xxh64("a", 1, 0));
    hoodie_assert(0x44BC2CF5AD770999ULL == hoodie_xxh64("abc", 3, 0));
    const uint64_t seed = 0xFFFFFFFFDABADABAULL;
    hoodie_assert(0xE5CDD7303C135AD5ULL == hoodie_xxh64("longField", 9, seed));
    hoodie_assert(0x1574E11F07A52133ULL == hoodie_xxh64(".", 1, seed));
    /* 32 bytes and more go through the four lanes (value from an independent implementation of the spec) */
    const char *long_msg = "_hoodie_commit_time_and_more_bytes_than_thirty_two";
    hoodie_assert(0xA3814F3DAC004CC4ULL == hoodie_xxh64(long_msg, strlen(long_msg), seed));
}
