#include "hoodie_test.h"
#include "table/bucket.h"

#include <string.h>

/* Values computed with Java: "abc".hashCode() = 96354, "".hashCode() = 0, "hello".hashCode() = 99162322,
 * "\u00e9".hashCode() = 233, "\ud83d\ude00" (U+1F600) = 1772896 (55357 * 31 + 56832). */
HOODIE_TEST(table_bucket__java_string_hash)
{
    hoodie_assert_equal_i(96354, hoodie_java_string_hash((const uint8_t *)"abc", 3));
    hoodie_assert_equal_i(0, hoodie_java_string_hash((const uint8_t *)"", 0));
    hoodie_assert_equal_i(99162322, hoodie_java_string_hash((const uint8_t *)"hello", 5));
    hoodie_assert_equal_i(233, hoodie_java_string_hash((const uint8_t *)"\xc3\xa9", 2));
    hoodie_assert_equal_i(55357 * 31 + 56832, hoodie_java_string_hash((const uint8_t *)"\xf0\x9f\x98\x80", 4));
    /* int32 wrap: "polygenelubricants".hashCode() == Integer.MIN_VALUE */
    hoodie_assert_equal_i(INT32_MIN, hoodie_java_string_hash((const uint8_t *)"polygenelubricants", 18));
}

HOODIE_TEST(table_bucket__bucket_id)
{
    /* List.hashCode(["abc"]) = 31 + 96354 = 96385; 96385 % 8 = 1 */
    hoodie_assert_equal_i(1, hoodie_bucket_id("abc", 3, NULL, 0, 8));
    /* complex key: only the hash fields count; id:abc,name:x with field id == ["abc"] */
    const char *f[1] = { "id" };
    hoodie_assert_equal_i(1, hoodie_bucket_id("id:abc,name:x", 13, f, 1, 8));
    /* null value: List.hashCode([null]) = 31 */
    hoodie_assert_equal_i(31 % 7, hoodie_bucket_id("id:__null__", 11, f, 1, 7));
    /* negative hash: masked, not negated ("polygenelubricants": 31 + MIN_VALUE) */
    hoodie_assert_equal_i((int)(((uint32_t)INT32_MIN + 31u) & 0x7FFFFFFFu) % 10,
                          hoodie_bucket_id("polygenelubricants", 18, NULL, 0, 10));
}

HOODIE_TEST(table_bucket__file_ids)
{
    char id[64];
    hoodie_bucket_file_id(id, sizeof id, 42, "1f2e3d4c-aaaa-bbbb-cccc-dddddddddddd-0");
    hoodie_assert_equal_s("00000042-aaaa-bbbb-cccc-dddddddddddd-0", id);
    hoodie_assert_equal_i(42, hoodie_bucket_of_file_id(id));
    hoodie_assert_equal_i(-1, hoodie_bucket_of_file_id("1f2e3d4c-aaaa"));
}
