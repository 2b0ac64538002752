#include "hoodie_test.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/cursor.h"
#include "util/error.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

HOODIE_TEST(util_error__message_and_code)
{
    hoodie_status rc = HOODIE_CORRUPT("file %s bad at %d", "x.parquet", 42);
    hoodie_assert_equal_i(HOODIE_ECORRUPT, rc);
    hoodie_assert_equal_i(HOODIE_ECORRUPT, hoodie_error_last()->code);
    hoodie_assert_equal_s("file x.parquet bad at 42", hoodie_error_last()->message);
    hoodie_error__prefix("ctx: ");
    hoodie_assert_equal_s("ctx: file x.parquet bad at 42", hoodie_error_last()->message);
    hoodie_assert_equal_s("corrupt", hoodie_status_str(HOODIE_ECORRUPT));
}

HOODIE_TEST(util_arena__alloc_reset_big)
{
    hoodie_arena *a = NULL;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 1024));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 1000; i++) {
            char *p = hoodie_arena_alloc(a, (size_t)(i % 37) + 1);
            hoodie_assert(p != NULL);
            hoodie_assert(((uintptr_t)p & 15) == 0);
            memset(p, 0xab, (size_t)(i % 37) + 1);
        }
        void *big = hoodie_arena_alloc(a, 100000);
        hoodie_assert(big != NULL);
        memset(big, 1, 100000);
        hoodie_assert_equal_s("a-7", hoodie_arena_sprintf(a, "%s-%d", "a", 7));
        hoodie_arena_reset(a);
        hoodie_assert_equal_i(0, hoodie_arena_used(a));
    }
    hoodie_arena_free(a);
    hoodie_arena_free(NULL);
}

HOODIE_TEST(util_buf__append_and_endianness)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_put_be32(&b, 0x01020304));
    hoodie_assert_ok(hoodie_buf_put_le32(&b, 0x01020304));
    hoodie_assert_ok(hoodie_buf_put_uvarint(&b, 300));
    hoodie_assert_ok(hoodie_buf_printf(&b, "%d", 12345));
    static const uint8_t want[] = { 1, 2, 3, 4, 4, 3, 2, 1, 0xac, 0x02, '1', '2', '3', '4', '5' };
    hoodie_assert_equal_i(sizeof want, b.len);
    hoodie_assert(memcmp(want, b.data, sizeof want) == 0);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(util_cursor__bounds_and_sticky_error)
{
    static const uint8_t bytes[] = { 0, 0, 0, 5, 0xac, 0x02, 0xff };
    hoodie_cursor c;
    hoodie_cursor_init(&c, bytes, sizeof bytes, 100, "f.log");
    hoodie_assert_equal_i(5, hoodie_cursor_be32(&c));
    hoodie_assert_equal_i(300, hoodie_cursor_uvarint(&c));
    hoodie_assert_equal_i(0, hoodie_cursor_be32(&c)); /* only 1 byte left */
    hoodie_assert_equal_i(HOODIE_ECORRUPT, c.status);
    hoodie_assert_contains(hoodie_error_last()->message, "f.log");
    hoodie_assert_contains(hoodie_error_last()->message, "offset 106");
    hoodie_assert_equal_i(0, hoodie_cursor_u8(&c)); /* sticky */

    static const uint8_t overlong[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    hoodie_cursor c2 = HOODIE_CURSOR_INIT(overlong, sizeof overlong);
    (void)hoodie_cursor_uvarint(&c2);
    hoodie_assert_equal_i(HOODIE_ECORRUPT, c2.status);
}

HOODIE_TEST(util_hash__map_many_keys)
{
    hoodie_hmap m = HOODIE_HMAP_INIT;
    enum { N = 20000 };
    char (*keys)[16] = malloc(N * 16);
    hoodie_assert(keys != NULL);
    for (int i = 0; i < N; i++) snprintf(keys[i], 16, "key-%d", i);
    for (int i = 0; i < N; i++) {
        uint64_t *slot;
        int existed;
        hoodie_assert_ok(hoodie_hmap_upsert(&m, keys[i], strlen(keys[i]), &slot, &existed));
        hoodie_assert(!existed);
        *slot = (uint64_t)i;
    }
    hoodie_assert_equal_i(N, m.count);
    for (int i = 0; i < N; i += 7) {
        uint64_t *v = hoodie_hmap_get(&m, keys[i], strlen(keys[i]));
        hoodie_assert(v && *v == (uint64_t)i);
    }
    hoodie_assert(hoodie_hmap_get(&m, "nope", 4) == NULL);
    uint64_t *slot;
    int existed;
    hoodie_assert_ok(hoodie_hmap_upsert(&m, keys[5], strlen(keys[5]), &slot, &existed));
    hoodie_assert(existed && *slot == 5);
    hoodie_assert_ok(hoodie_hmap_upsert(&m, "", 0, &slot, &existed));
    hoodie_assert(!existed);
    hoodie_hmap_dispose(&m);
    free(keys);
}

/* n copies of a value, whatever n (doubling copies: powers of two and the rest) */
HOODIE_TEST(util_mem__repeat)
{
    static const char v[] = "file-name.parquet";
    size_t len = strlen(v);
    char *buf = malloc(len * 40 + 1);
    hoodie_assert(buf != NULL);
    for (size_t n = 0; n <= 37; n++) {
        memset(buf, '#', len * 40 + 1);
        hoodie_mem_repeat(buf, v, len, n);
        for (size_t k = 0; k < n; k++) hoodie_assert(!memcmp(buf + k * len, v, len));
        hoodie_assert_equal_i('#', buf[n * len]); /* nothing past the copies */
    }
    memset(buf, '#', len * 40 + 1);
    hoodie_mem_repeat(buf, v, 0, 5); /* empty values: nothing written */
    hoodie_assert_equal_i('#', buf[0]);
    free(buf);
}

/* hoodie_bytes_eq agrees with memcmp at every length up to 40 and every position of a difference (unaligned). */
HOODIE_TEST(util_bytes_eq__agrees_with_memcmp)
{
    uint8_t a[48], b[48];
    for (size_t i = 0; i < sizeof a; i++) a[i] = b[i] = (uint8_t)(i * 7 + 1);
    for (size_t off = 0; off < 3; off++)
        for (size_t n = 0; n <= 40; n++) {
            hoodie_assert(hoodie_bytes_eq(a + off, b + off, n));
            for (size_t d = 0; d < n; d++) {
                b[off + d] ^= 0x10;
                hoodie_assert(!hoodie_bytes_eq(a + off, b + off, n));
                hoodie_assert(memcmp(a + off, b + off, n) != 0);
                b[off + d] ^= 0x10;
            }
        }
}

/* RFC 4648's vectors; random bytes of every length up to 300 round-trip (the 8- and 4-character fast paths and
 * the tail); whitespace anywhere is skipped; a character outside the alphabet is an error naming its offset. */
HOODIE_TEST(util_base64__vectors_round_trips_and_errors)
{
    static const char *const vec[][2] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
                                          { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" } };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        hoodie_buf e = HOODIE_BUF_INIT, d = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_base64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]), &e));
        hoodie_assert_equal_i(strlen(vec[i][1]), e.len);
        hoodie_assert(!e.len || memcmp(e.data, vec[i][1], e.len) == 0);
        hoodie_assert_ok(hoodie_base64_decode(vec[i][1], strlen(vec[i][1]), &d));
        hoodie_assert_equal_i(strlen(vec[i][0]), d.len);
        hoodie_assert(!d.len || memcmp(d.data, vec[i][0], d.len) == 0);
        hoodie_buf_dispose(&e);
        hoodie_buf_dispose(&d);
    }
    uint8_t src[300];
    uint64_t x = 88172645463325252ull;
    for (size_t n = 0; n <= sizeof src; n++) {
        for (size_t i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[i] = (uint8_t)x; }
        hoodie_buf e = HOODIE_BUF_INIT, d = HOODIE_BUF_INIT, spaced = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_buf_append(&d, "xyz", 3)); /* decoded bytes are appended */
        hoodie_assert_ok(hoodie_base64_encode(src, n, &e));
        hoodie_assert_ok(hoodie_base64_decode((const char *)e.data, e.len, &d));
        hoodie_assert_equal_i(n + 3, d.len);
        hoodie_assert(memcmp(d.data, "xyz", 3) == 0 && (!n || memcmp(d.data + 3, src, n) == 0));
        for (size_t i = 0; i < e.len; i++) { /* a line break every 7 characters, a space every 5 */
            hoodie_assert_ok(hoodie_buf_append(&spaced, e.data + i, 1));
            if (i % 7 == 6) hoodie_assert_ok(hoodie_buf_append(&spaced, "\r\n", 2));
            if (i % 5 == 4) hoodie_assert_ok(hoodie_buf_append(&spaced, " ", 1));
        }
        d.len = 0;
        hoodie_assert_ok(hoodie_base64_decode((const char *)spaced.data, spaced.len, &d));
        hoodie_assert_equal_i(n, d.len);
        hoodie_assert(!n || memcmp(d.data, src, n) == 0);
        if (e.len > 9) { /* a bad character inside the first 8-character run, then in the tail */
            e.data[3] = '*';
            d.len = 0;
            hoodie_assert_status(HOODIE_ECORRUPT, hoodie_base64_decode((const char *)e.data, e.len, &d));
            hoodie_assert(strstr(hoodie_error_last()->message, "offset 3") != NULL);
            e.data[3] = 'A';
            e.data[e.len - 3] = '.';
            hoodie_assert_status(HOODIE_ECORRUPT, hoodie_base64_decode((const char *)e.data, e.len, &d));
        }
        hoodie_buf_dispose(&e);
        hoodie_buf_dispose(&d);
        hoodie_buf_dispose(&spaced);
    }
}
