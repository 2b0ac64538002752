#include "hoodie_test.h"
#include "format/hfile/hfile.h"
#include "format/hfile/hfile_write.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "util/buf.h"
#include "util/error.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hoodie_status to_buf(void *ctx, const uint8_t *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

/* The file-info keys HBase's writer fills itself; the rest are the caller's. */
static int hbase_info(const uint8_t *k, size_t n)
{
    static const char *const own[] = { "KEY_VALUE_VERSION", "MAX_MEMSTORE_TS_KEY", "hfile.AVG_KEY_LEN",
                                       "hfile.AVG_VALUE_LEN", "hfile.CREATE_TIME_TS", "hfile.LASTKEY" };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strlen(own[i]) == n && !memcmp(own[i], k, n)) return 1;
    return 0;
}

/* Write the cells, file info and meta blocks of the HFile at `rel` again with `opts` (its comparator, codec)
 * and compare the bytes with the original's. */
static void rewrite_bytes_equal(const uint8_t *data, size_t len, const char *rel, uint32_t block_size,
                                uint32_t index_block_size)
{
    hoodie_buf out = HOODIE_BUF_INIT, tmp = HOODIE_BUF_INIT;
    hoodie_buf in = { (uint8_t *)(uintptr_t)data, len, len };
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, in.data, in.len, rel));
    char cmp[128];
    const uint8_t *p;
    size_t n;
    hoodie_hfile_comparator(f, &p, &n);
    hoodie_assert(n < sizeof cmp);
    memcpy(cmp, p, n);
    cmp[n] = '\0';
    hoodie_hfile_writer_opts o = { block_size, index_block_size, !strcmp(hoodie_hfile_codec_name(f), "GZ"), cmp, 0 };
    hoodie_hfile_writer *w;
    hoodie_assert_ok(hoodie_hfile_writer_new(&w, &o, to_buf, &out));
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    hoodie_status rc;
    while ((rc = hoodie_hfile_next(&it, &kv)) == HOODIE_OK)
        hoodie_assert_ok(hoodie_hfile_writer_add(w, kv.key, kv.key_len, kv.value, kv.value_len));
    hoodie_assert_status(HOODIE_ITEROVER, rc);
    hoodie_hfile_iter_dispose(&it);
    for (size_t i = 0; i < hoodie_hfile_info_count(f); i++) {
        const uint8_t *k, *v;
        size_t kl, vl;
        hoodie_hfile_info_at(f, i, &k, &kl, &v, &vl);
        if (hbase_info(k, kl)) continue;
        char key[256];
        hoodie_assert(kl < sizeof key);
        memcpy(key, k, kl);
        key[kl] = '\0';
        hoodie_assert_ok(hoodie_hfile_writer_info(w, key, v, vl));
    }
    for (size_t i = 0; i < hoodie_hfile_meta_count(f); i++) {
        char name[256];
        hoodie_hfile_meta_name(f, i, &p, &n);
        hoodie_assert(n < sizeof name);
        memcpy(name, p, n);
        name[n] = '\0';
        tmp.len = 0;
        hoodie_assert_ok(hoodie_hfile_meta_block(f, name, &tmp));
        hoodie_assert_ok(hoodie_hfile_writer_meta(w, name, tmp.data, tmp.len));
    }
    hoodie_assert_ok(hoodie_hfile_writer_finish(w));
    hoodie_assert_equal_i(hoodie_hfile_entry_count(f), hoodie_hfile_writer_entries(w));
    hoodie_assert_equal_i(out.len, hoodie_hfile_writer_offset(w));
    size_t at = 0;
    while (at < in.len && at < out.len && in.data[at] == out.data[at]) at++;
    if (at != in.len || at != out.len)
        hoodie_test__fail(__FILE__, __LINE__, "%s written again: %zu bytes, the original %zu; first difference at %zu",
                          rel, out.len, in.len, at);
    hoodie_hfile_writer_free(w);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&out);
    hoodie_buf_dispose(&tmp);
}

static void rewrite_equals(const char *rel, uint32_t block_size, uint32_t index_block_size)
{
    hoodie_buf in = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &in));
    rewrite_bytes_equal(in.data, in.len, rel, block_size, index_block_size);
    hoodie_buf_dispose(&in);
}

#define HF(name) "hudi/standalone/hfile/hudi_1_0_hbase_2_4_" name ".hfile"

/* HBase 2.4's files from Hudi's reader tests: stored and GZ blocks, 1 KB to 512 KB blocks, one to three index
 * levels (the deep one with 2 KB index blocks), fake first keys, runs of one key, no cell at all. */
HOODIE_TEST(format_hfile_write__rewrites_hbase_files_byte_for_byte)
{
    rewrite_equals(HF("9_16KB_NONE_5000"), 16 * 1024, 0);
    rewrite_equals(HF("9_64KB_NONE_5000"), 64 * 1024, 0);
    rewrite_equals(HF("9_16KB_GZ_20000"), 16 * 1024, 0);
    rewrite_equals(HF("9_512KB_GZ_20000"), 512 * 1024, 0);
    rewrite_equals(HF("9_16KB_GZ_200_20_non_unique"), 16 * 1024, 0);
    rewrite_equals(HF("13_16KB_GZ_20000_fake_first_key"), 16 * 1024, 0);
    rewrite_equals(HF("13_1KB_GZ_20000_large_keys"), 1024, 0);
    rewrite_equals(HF("13_1KB_GZ_10000_large_keys_deep_index"), 1024, 2048);
    rewrite_equals(HF("9_no_entry"), 0, 0);
}

/* The metadata table's base files as Spark wrote them (files, column_stats, record_index, a secondary index). */
HOODIE_TEST(format_hfile_write__rewrites_metadata_table_base_files_byte_for_byte)
{
#define MDT "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned/.hoodie/metadata/"
    rewrite_equals(MDT "files/files-0000-0_0-35-149_00000000000000000.hfile", 0, 0);
    rewrite_equals(MDT "files/files-0000-0_22-161-506_20260101054337083.hfile", 0, 0);
    rewrite_equals(MDT "column_stats/col-stats-0000-0_20-161-504_20260101054337083.hfile", 0, 0);
    rewrite_equals(MDT "column_stats/col-stats-0001-0_21-161-505_20260101054337083.hfile", 0, 0);
    rewrite_equals(MDT "record_index/record-index-0002-0_12-161-496_20260101054337083.hfile", 0, 0);
    rewrite_equals(MDT "record_index/record-index-0000-0_10-161-494_20260101054337083.hfile", 0, 0);
    rewrite_equals(MDT "secondary_index_name_idx/secondary-index-name-idx-0005-0_2-161-486_20260101054337083.hfile", 0, 0);
#undef MDT
}

/* The content of every HFILE_DATA_BLOCK in the metadata table's log files (each an HFile, one per partition
 * and commit). */
HOODIE_TEST(format_hfile_write__rewrites_metadata_table_log_blocks_byte_for_byte)
{
    static const char *const parts[] = { "files", "column_stats", "record_index", "secondary_index_name_idx" };
    int blocks = 0;
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        char rel[512];
        snprintf(rel, sizeof rel, "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned/.hoodie/metadata/%s", parts[p]);
        const char *dir = hoodie_fixture(rel);
        char dirpath[512];
        snprintf(dirpath, sizeof dirpath, "%s", dir);
        DIR *d = opendir(dirpath);
        hoodie_assert(d != NULL);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strstr(e->d_name, ".log.")) continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
            hoodie_buf in = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &in));
            hoodie_hlog_iter it;
            hoodie_assert_ok(hoodie_hlog_iter_init(&it, in.data, in.len, path));
            hoodie_hlog_block b;
            hoodie_status rc;
            while ((rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
                if (b.type != HOODIE_HLOG_HFILE_DATA_BLOCK) continue;
                rewrite_bytes_equal(b.content, (size_t)b.content_len, path, 0, 0);
                blocks++;
            }
            hoodie_assert_status(HOODIE_ITEROVER, rc);
            hoodie_hlog_iter_dispose(&it);
            hoodie_buf_dispose(&in);
        }
        closedir(d);
    }
    hoodie_assert_equal_i(27, blocks);
}

/* keys of varied length (some long, some prefixes of others), values of varied size, runs of one key */
static void key_at(char *out, size_t n, int i)
{
    int pad = (i * 7919) % 97;
    if (i % 13 == 0) snprintf(out, n, "k%06d", i);
    else snprintf(out, n, "k%06d-%.*s", i, pad, "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA0123456789zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLK");
}

static void roundtrip(int count, uint32_t block_size, uint32_t index_block_size, int gzip, int dup_every,
                      unsigned levels)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_hfile_writer_opts o = { block_size, index_block_size, gzip, NULL, 0 };
    hoodie_hfile_writer *w;
    hoodie_assert_ok(hoodie_hfile_writer_new(&w, &o, to_buf, &out));
    char key[160];
    uint8_t val[600];
    int cells = 0;
    for (int i = 0; i < count; i++) {
        key_at(key, sizeof key, i);
        int copies = dup_every && i % dup_every == 0 ? 3 : 1;
        for (int c = 0; c < copies; c++, cells++) {
            size_t vl = (size_t)((i * 31 + c) % 500);
            for (size_t j = 0; j < vl; j++) val[j] = (uint8_t)(i + c + j);
            hoodie_assert_ok(hoodie_hfile_writer_add(w, (const uint8_t *)key, strlen(key), val, vl));
        }
    }
    hoodie_assert_ok(hoodie_hfile_writer_info(w, "schema", (const uint8_t *)"{}", 2));
    hoodie_assert_ok(hoodie_hfile_writer_meta(w, "bloomFilter", (const uint8_t *)"abc", 3));
    hoodie_assert_ok(hoodie_hfile_writer_finish(w));
    hoodie_hfile_writer_free(w);

    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, out.data, out.len, "roundtrip"));
    hoodie_assert_equal_i(cells, hoodie_hfile_entry_count(f));
    hoodie_assert_equal_s(gzip ? "GZ" : "NONE", hoodie_hfile_codec_name(f));
    hoodie_assert_equal_i(levels, hoodie_hfile_index_levels(f));
    const uint8_t *v;
    size_t vl;
    hoodie_assert(hoodie_hfile_info(f, "schema", &v, &vl) && vl == 2 && !memcmp(v, "{}", 2));
    hoodie_buf meta = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_hfile_meta_block(f, "bloomFilter", &meta));
    hoodie_assert(meta.len == 3 && !memcmp(meta.data, "abc", 3));
    hoodie_buf_dispose(&meta);
    hoodie_hfile_iter it;
    hoodie_hfile_iter_init(&it, f);
    hoodie_hfile_kv kv;
    int seen = 0;
    for (int i = 0; i < count; i++) {
        key_at(key, sizeof key, i);
        int copies = dup_every && i % dup_every == 0 ? 3 : 1;
        for (int c = 0; c < copies; c++, seen++) {
            hoodie_assert_ok(hoodie_hfile_next(&it, &kv));
            size_t want = (size_t)((i * 31 + c) % 500);
            hoodie_assert(kv.key_len == strlen(key) && !memcmp(kv.key, key, kv.key_len));
            hoodie_assert_equal_i(want, kv.value_len);
            for (size_t j = 0; j < want; j++) hoodie_assert(kv.value[j] == (uint8_t)(i + c + j));
        }
    }
    hoodie_assert_status(HOODIE_ITEROVER, hoodie_hfile_next(&it, &kv));
    hoodie_assert_equal_i(cells, seen);
    /* every key found through the index, backwards; the first of a run comes first; absent keys are not */
    for (int i = count - 1; i >= 0; i -= 3) {
        key_at(key, sizeof key, i);
        hoodie_assert_ok(hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
        hoodie_assert_equal_i((i * 31) % 500, kv.value_len);
        strcat(key, "~");
        hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)key, strlen(key), &kv));
    }
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)"a", 1, &kv));
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_hfile_get(&it, (const uint8_t *)"z", 1, &kv));
    hoodie_hfile_iter_dispose(&it);
    hoodie_hfile_free(f);
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(format_hfile_write__reads_back_through_one_to_four_index_levels)
{
    roundtrip(0, 0, 0, 1, 0, 1);
    roundtrip(1, 0, 0, 0, 0, 1);
    roundtrip(3000, 0, 0, 1, 0, 1);         /* one block */
    roundtrip(3000, 4096, 0, 1, 5, 1);      /* many blocks, one level; runs of one key */
    roundtrip(3000, 2048, 4096, 0, 0, 2);   /* a leaf level */
    roundtrip(3000, 512, 1024, 0, 0, 3);    /* leaf and intermediate levels */
    roundtrip(20000, 256, 600, 1, 7, 4);
}

static int calls_left;
static hoodie_status failing_sink(void *ctx, const uint8_t *p, size_t n)
{
    if (calls_left-- <= 0) return HOODIE_FAIL(HOODIE_EIO, "injected write failure");
    return hoodie_buf_append(ctx, p, n);
}

HOODIE_TEST(format_hfile_write__misuse_and_failing_sinks_are_errors)
{
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_hfile_writer *w;
    hoodie_assert_ok(hoodie_hfile_writer_new(&w, NULL, to_buf, &out));
    hoodie_assert_ok(hoodie_hfile_writer_add(w, (const uint8_t *)"b", 1, NULL, 0));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hfile_writer_add(w, (const uint8_t *)"a", 1, NULL, 0));
    hoodie_assert_contains(hoodie_error_last()->message, "key order");
    static uint8_t big[40000];
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hfile_writer_add(w, big, sizeof big, NULL, 0));
    hoodie_assert_ok(hoodie_hfile_writer_add(w, (const uint8_t *)"b", 1, NULL, 0)); /* a run of one key */
    hoodie_assert_ok(hoodie_hfile_writer_finish(w));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hfile_writer_add(w, (const uint8_t *)"c", 1, NULL, 0));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_hfile_writer_finish(w));
    hoodie_hfile_writer_free(w);
    hoodie_hfile *f;
    hoodie_assert_ok(hoodie_hfile_open(&f, out.data, out.len, "misuse"));
    hoodie_assert_equal_i(2, hoodie_hfile_entry_count(f));
    hoodie_hfile_free(f);

    /* the k-th write fails: that failure comes back, then every later call is refused */
    for (int k = 0; k < 40; k++) {
        out.len = 0;
        calls_left = k;
        hoodie_hfile_writer_opts o = { 256, 512, 1, NULL, 0 };
        hoodie_assert_ok(hoodie_hfile_writer_new(&w, &o, failing_sink, &out));
        hoodie_status rc = HOODIE_OK;
        char key[32];
        for (int i = 0; rc == HOODIE_OK && i < 300; i++) {
            snprintf(key, sizeof key, "key-%05d", i);
            rc = hoodie_hfile_writer_add(w, (const uint8_t *)key, strlen(key), (const uint8_t *)key, strlen(key));
        }
        if (rc == HOODIE_OK) rc = hoodie_hfile_writer_finish(w);
        if (calls_left >= 0) { /* every write went through */
            hoodie_assert_ok(rc);
        } else {
            hoodie_assert_status(HOODIE_EIO, rc);
            hoodie_assert_status(HOODIE_EINVAL, hoodie_hfile_writer_finish(w));
        }
        hoodie_hfile_writer_free(w);
    }
    hoodie_buf_dispose(&out);
}
