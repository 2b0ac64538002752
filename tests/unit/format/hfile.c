#include "hoodie_test.h"
#include "format/hfile/hfile.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

/* The HFiles Hudi's own reader tests run against (hudi-io TestHFileReader), written by HBase 2.4. */
#define HF(name) "hudi/standalone/hfile/hudi_1_0_hbase_2_4_" name ".hfile"

static void load(const char *rel, hoodie_buf *b)
{
    *b = (hoodie_buf)HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), b));
}

static int kv_is(const hoodie_hfile_kv *kv, const char *key, const char *value)
{
    return kv->key_len == strlen(key) && !memcmp(kv->key, key, kv->key_len) &&
           (!value || (kv->value_len == strlen(value) && !memcmp(kv->value, value, kv->value_len)));
}

static const char LONG_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/* key i of a test file: hudi-key-%09d, with a suffix for the large-key and fake-first-key files */
static void key_of(char *out, size_t n, const char *kind, int i)
{
    if (!strcmp(kind, "large")) snprintf(out, n, "hudi-key-%s-%09d", LONG_A, i);
    else if (!strcmp(kind, "fake")) snprintf(out, n, "hudi-key-%09d-abcdefghij", i);
    else snprintf(out, n, "hudi-key-%09d", i);
}

static void check_file(const char *rel, const char *kind, int count, const char *codec, size_t min_blocks)
{
    hoodie_buf b;
    load(rel, &b);
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, b.data, b.len, rel));
    hoodie_assert_equal_i(count, hoodie_hfile_entry_count(f));
    hoodie_assert_equal_s(codec, hoodie_hfile_codec_name(f));
    hoodie_assert(hoodie_hfile_block_count(f) >= min_blocks);
    const uint8_t *v;
    size_t vl;
    hoodie_assert(hoodie_hfile_info(f, "hudi_hfile_testing.custom_key", &v, &vl));
    hoodie_assert(vl == strlen("hudi_custom_value") && !memcmp(v, "hudi_custom_value", vl));
    hoodie_assert(!hoodie_hfile_info(f, "no.such.key", &v, &vl));
    hoodie_buf meta = HOODIE_BUF_INIT; /* the meta block Hudi's test writer adds */
    hoodie_assert_ok(hoodie_hfile_meta_block(f, "bloomFilter", &meta));
    hoodie_assert(hoodie_buf_cstr(&meta) == HOODIE_OK);
    hoodie_assert_equal_s("/////wAAABQBAAABID797Rg6cC9QEnS/mT3C01cdQGaLYH2jbOCLtMA0RWppEH1HQg==", (const char *)meta.data);
    hoodie_buf_dispose(&meta);

    /* every cell in order, key i with value i */
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    char key[160], val[64];
    int i = 0;
    hoodie_status rc;
    while ((rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK) {
        key_of(key, sizeof key, kind, i);
        snprintf(val, sizeof val, "hudi-value-%09d", i);
        if (!kv_is(&kv, key, val)) hoodie_test__fail(__FILE__, __LINE__, "cell %d of %s: %.*s", i, rel, (int)kv.key_len, kv.key);
        i++;
    }
    hoodie_assert_status(HOODIE_ITEROVER, rc);
    hoodie_assert_equal_i(count, i);
    /* hfile.LASTKEY is an HBase key whose row is the last key */
    hoodie_assert(hoodie_hfile_info(f, "hfile.LASTKEY", &v, &vl));
    key_of(key, sizeof key, kind, count - 1);
    hoodie_assert(vl > 2 && (size_t)(v[0] << 8 | v[1]) == strlen(key) && !memcmp(v + 2, key, strlen(key)));

    /* lookups, forwards and backwards, through the block index */
    for (int k = count - 1; k >= 0; k -= 97) {
        key_of(key, sizeof key, kind, k);
        snprintf(val, sizeof val, "hudi-value-%09d", k);
        hoodie_assert_ok(hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
        hoodie_assert(kv_is(&kv, key, val));
        /* the next cell follows it, across a block boundary too */
        if (k + 1 < count) {
            hoodie_assert_ok(hoodie_hfile_next(&it, &kv));
            key_of(key, sizeof key, kind, k + 1);
            hoodie_assert(kv_is(&kv, key, NULL));
        }
    }
    /* lookups in key order (each from where the one before left off, in a block read once), present keys and
     * absent ones between them */
    for (int k = 0; k < count; k += 3) {
        key_of(key, sizeof key, kind, k);
        snprintf(val, sizeof val, "hudi-value-%09d", k);
        hoodie_assert_ok(hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
        hoodie_assert(kv_is(&kv, key, val));
        strcat(key, "0");
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
    }
    /* absent keys: before the first, between two, after the last */
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)"a", 1, &kv));
    key_of(key, sizeof key, kind, count / 2);
    strcat(key, "0");
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)"z", 1, &kv));
    /* seek between two keys: the next cell is the greater one */
    hoodie_assert_ok(hoodie_hfile_seek(&it, (const uint8_t *)key, strlen(key)));
    hoodie_assert_ok(hoodie_hfile_next(&it, &kv));
    key_of(key, sizeof key, kind, count / 2 + 1);
    hoodie_assert(kv_is(&kv, key, NULL));
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_hfile__reads_hbase_written_files)
{
    check_file(HF("9_16KB_NONE_5000"), "plain", 5000, "NONE", 2);
    check_file(HF("9_64KB_NONE_5000"), "plain", 5000, "NONE", 2);
    check_file(HF("9_16KB_GZ_20000"), "plain", 20000, "GZ", 2);
    check_file(HF("9_512KB_GZ_20000"), "plain", 20000, "GZ", 2);
    check_file(HF("13_1KB_GZ_20000_large_keys"), "large", 20000, "GZ", 1000);
    /* a three-level block index (root, intermediate, leaf) */
    check_file(HF("13_1KB_GZ_10000_large_keys_deep_index"), "large", 10000, "GZ", 1000);
    /* index keys shorter than the blocks' first keys */
    check_file(HF("13_16KB_GZ_20000_fake_first_key"), "fake", 20000, "GZ", 2);
}

HOODIE_TEST(format_hfile__fake_first_keys_between_blocks)
{
    /* a key between one block's last key and the next block's (fake) index key is not there, and seeking it
     * lands on the next block's first cell */
    hoodie_buf b;
    load(HF("13_16KB_GZ_20000_fake_first_key"), &b);
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, b.data, b.len, "fake"));
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    char key[64], want[64];
    int found_boundaries = 0;
    for (int i = 0; i + 1 < 20000; i++) {
        snprintf(key, sizeof key, "hudi-key-%09d-abcdefghij0", i); /* just after key i */
        snprintf(want, sizeof want, "hudi-key-%09d-abcdefghij", i + 1);
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
        hoodie_assert_ok(hoodie_hfile_seek(&it, (const uint8_t *)key, strlen(key)));
        hoodie_assert_ok(hoodie_hfile_next(&it, &kv));
        hoodie_assert(kv_is(&kv, want, NULL));
        if (kv.key == it.start + 10) found_boundaries++; /* the first cell of its block */
    }
    hoodie_assert(found_boundaries > 10); /* the seeks crossed into the next block */
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_hfile__duplicate_keys_from_their_first_cell)
{
    hoodie_buf b;
    load(HF("9_16KB_GZ_200_20_non_unique"), &b);
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, b.data, b.len, "non_unique"));
    hoodie_assert_equal_i(4200, hoodie_hfile_entry_count(f));
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    char key[64], val[64];
    for (int i = 0; i < 200; i++) { /* each key: value i, then i_0 .. i_19 */
        snprintf(key, sizeof key, "hudi-key-%09d", i);
        snprintf(val, sizeof val, "hudi-value-%09d", i);
        hoodie_assert_ok(hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
        hoodie_assert(kv_is(&kv, key, val));
        for (int j = 0; j < 20; j++) {
            snprintf(val, sizeof val, "hudi-value-%09d_%d", i, j);
            hoodie_assert_ok(hoodie_hfile_next(&it, &kv));
            hoodie_assert(kv_is(&kv, key, val));
        }
    }
    hoodie_assert_status(HOODIE_ITEROVER, hoodie_hfile_next(&it, &kv));
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_hfile__empty_file_with_meta_block)
{
    /* as Hudi writes an HFile base file without records: its schema and bloom filter, no cell */
    hoodie_buf b;
    load(HF("9_no_entry"), &b);
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, b.data, b.len, "no_entry"));
    hoodie_assert_equal_i(0, hoodie_hfile_entry_count(f));
    const uint8_t *v;
    size_t vl;
    hoodie_assert(hoodie_hfile_info(f, "schema", &v, &vl));
    hoodie_assert(vl > 20 && !memcmp(v, "{\"type\":\"record\"", 16));
    hoodie_buf meta = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_hfile_meta_block(f, "bloomFilter", &meta));
    hoodie_assert_equal_i(431380, meta.len); /* Hudi's default dynamic bloom filter, as text */
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_meta_block(f, "nope", &meta));
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    hoodie_assert_status(HOODIE_ITEROVER, hoodie_hfile_next(&it, &kv));
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)"k", 1, &kv));
    hoodie_hfile_iter_dispose(&it);
    hoodie_buf_dispose(&meta);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&b);
}

/* Reads every cell; any failure is fine, a crash or a wrong count without a failure is not. */
static hoodie_status scan_all(const uint8_t *p, size_t n, uint64_t *cells)
{
    hoodie_hfile *f;
    *cells = 0;
    HOODIE_TRY(hoodie_hfile_open(&f, p, n, "mangled"));
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    hoodie_status rc;
    while ((rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK) ++*cells;
    if (rc == HOODIE_ITEROVER) rc = hoodie_hfile_get(&it, (const uint8_t *)"hudi-key-000002500", 18, &kv);
    if (rc == HOODIE_ENOTFOUND) rc = HOODIE_OK;
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_free(f);
    return rc;
}

HOODIE_TEST(format_hfile__corrupt_bytes_are_errors_with_offsets)
{
    static const char *const files[] = { HF("9_16KB_NONE_5000"), HF("9_16KB_GZ_20000"),
                                         HF("13_1KB_GZ_10000_large_keys_deep_index") };
    for (size_t fi = 0; fi < sizeof files / sizeof *files; fi++) {
        hoodie_buf b;
        load(files[fi], &b);
        uint8_t *copy = malloc(b.len);
        hoodie_assert(copy != NULL);
        uint64_t cells;
        /* a flipped byte in a checksummed block: a checksum mismatch naming the block's offset */
        memcpy(copy, b.data, b.len);
        copy[100] ^= 0x40;
        hoodie_assert_status(HOODIE_ECORRUPT, scan_all(copy, b.len, &cells));
        hoodie_assert_contains(hoodie_error_last()->message, "mangled: HFile block at offset 0: checksum mismatch");
        /* no trailer */
        hoodie_assert_status(HOODIE_ECORRUPT, scan_all(copy, 100, &cells));
        hoodie_assert_contains(hoodie_error_last()->message, "shorter than an HFile trailer");
        memcpy(copy, b.data, b.len);
        copy[b.len - 4096] = 'X';
        hoodie_assert_status(HOODIE_ECORRUPT, scan_all(copy, b.len, &cells));
        hoodie_assert_contains(hoodie_error_last()->message, "no HFile trailer magic at offset");
        /* every cut and many single-byte changes: an error or the whole file, never a crash */
        uint32_t seed = 12345;
        for (int round = 0; round < 400; round++) {
            memcpy(copy, b.data, b.len);
            seed = seed * 1103515245u + 12345u;
            size_t at = (size_t)(seed >> 8) % b.len;
            size_t len = b.len;
            if (round % 3 == 0) len = at;
            else copy[at] ^= (uint8_t)(1u << (seed & 7));
            hoodie_status rc = scan_all(copy, len, &cells);
            if (rc == HOODIE_OK) hoodie_assert_equal_i(fi == 0 ? 5000 : fi == 1 ? 20000 : 10000, cells);
            else hoodie_assert(rc == HOODIE_ECORRUPT || rc == HOODIE_EUNSUPPORTED);
        }
        free(copy);
        hoodie_buf_dispose(&b);
    }
}

HOODIE_TEST(format_hfile__crc32c)
{
    /* RFC 3720 B.4 check values */
    uint8_t zeros[32] = { 0 }, ones[32], inc[32];
    memset(ones, 0xff, sizeof ones);
    for (int i = 0; i < 32; i++) inc[i] = (uint8_t)i;
    hoodie_assert_equal_i(0x8A9136AAu, hoodie_crc32c(0, zeros, 32));
    hoodie_assert_equal_i(0x62A8AB43u, hoodie_crc32c(0, ones, 32));
    hoodie_assert_equal_i(0x46DD794Eu, hoodie_crc32c(0, inc, 32));
    hoodie_assert_equal_i(0xE3069283u, hoodie_crc32c(0, (const uint8_t *)"123456789", 9));
    hoodie_assert_equal_i(hoodie_crc32c(0, (const uint8_t *)"123456789", 9),
                          hoodie_crc32c(hoodie_crc32c(0, (const uint8_t *)"1234", 4), (const uint8_t *)"56789", 5));
}

/* CRC-32C in pieces (any split, any alignment) equals CRC-32C at once, whichever implementation runs. */
HOODIE_TEST(format_hfile__crc32c_chained)
{
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 131 + 7);
    for (size_t off = 0; off < 9; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 37) {
            uint32_t whole = hoodie_crc32c(0, buf + off, n);
            for (size_t cut = 0; cut <= n; cut += 5)
                hoodie_assert_equal_i((int)whole, (int)hoodie_crc32c(hoodie_crc32c(0, buf + off, cut), buf + off + cut, n - cut));
        }
}
