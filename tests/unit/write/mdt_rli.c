/*
 * The record_index entries hoodie writes into a metadata table, against the ones Spark wrote in
 * mdt_basic_mor_avro_v8_nonpartitioned: entry bytes of its inserts' log blocks, and its compacted base HFiles.
 */
#include "hoodie_test.h"
#include "format/hfile/hfile.h"
#include "format/hlog/hlog.h"
#include "storage/storage.h"
#include "table/config.h"
#include "table/mdt.h"
#include "table/timeline.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "write/mdt.h"

#include <stdio.h>
#include <string.h>

#define SPARK_MDT "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned"
#define RLI_DIR SPARK_MDT "/.hoodie/metadata/record_index/"

/* The entries of the first commit's log blocks (keys 1..5, groups 9, 0, 1, 2, 3): each value re-encoded from the
 * key's location gives Spark's bytes. */
HOODIE_TEST(write_mdt_rli__entries_as_spark_writes_them)
{
    static const char *const logs[] = { ".record-index-0000-0_20260101054316354.log.1_0-72-237",
                                        ".record-index-0001-0_20260101054316354.log.1_1-72-238",
                                        ".record-index-0002-0_20260101054316354.log.1_2-72-239",
                                        ".record-index-0003-0_20260101054316354.log.1_3-72-240",
                                        ".record-index-0009-0_20260101054316354.log.1_4-72-241" };
    hoodie_assert_equal_i(1767246196354LL == hoodie_write__instant_ms("20260101054316354", 1), 1);
    int cells = 0;
    for (size_t l = 0; l < sizeof logs / sizeof logs[0]; l++) {
        char rel[256];
        snprintf(rel, sizeof rel, RLI_DIR "%s", logs[l]);
        hoodie_buf b = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &b));
        hoodie_hlog_iter it;
        hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, logs[l]));
        hoodie_hlog_block bl;
        hoodie_assert_ok(hoodie_hlog_iter_next(&it, &bl));
        hoodie_assert_equal_i(HOODIE_HLOG_HFILE_DATA_BLOCK, bl.type);
        hoodie_hfile *h;
        hoodie_assert_ok(hoodie_hfile_open(&h, bl.content, (size_t)bl.content_len, logs[l]));
        hoodie_hfile_iter hi;
        hoodie_hfile_iter_init(&hi, h);
        hoodie_hfile_kv kv;
        while (hoodie_hfile_next(&hi, &kv) == HOODIE_OK) {
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)kv.key_len, kv.key);
            hoodie_assert_equal_i((int)l == 4 ? 9 : (int)l, (int)hoodie_mdt_key_group(key, 10));
            hoodie_buf ri = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_write__rli_info(&ri, "", "ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0",
                                                    hoodie_write__instant_ms("20260101054316354", 1)));
            hoodie_assert_ok(hoodie_write__rli_encode(&got, ri.data, ri.len, NULL));
            hoodie_assert_equal_i((int)kv.value_len, (int)got.len);
            hoodie_assert(!memcmp(kv.value, got.data, got.len));
            hoodie_buf_dispose(&ri);
            hoodie_buf_dispose(&got);
            cells++;
        }
        hoodie_hfile_iter_dispose(&hi);
        hoodie_hfile_free(h);
        hoodie_hlog_iter_dispose(&it);
        hoodie_buf_dispose(&b);
    }
    hoodie_assert_equal_i(5, cells);
}

/* A deleted key's entry: a DELETE_BLOCK (the instant and the records' schema in its header) of the key with
 * partition "record_index" and ordering value 0, as Spark's log of key 2's delete holds it byte for byte. */
HOODIE_TEST(write_mdt_rli__delete_block_as_spark_writes_it)
{
    const char *name = ".record-index-0000-0_20260101054332333.log.1_1-112-353";
    char rel[256];
    snprintf(rel, sizeof rel, RLI_DIR "%s", name);
    hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
    hoodie_assert_ok(hoodie_write__rli_delete_block(&got, "20260101054332333", (const char *const[]){ "2" }, 1));
    hoodie_assert_equal_i((int)want.len, (int)got.len);
    hoodie_assert(!memcmp(want.data, got.data, want.len));
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&got);
}
