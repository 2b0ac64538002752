/*
 * The column_stats records hoodie writes into a metadata table, against the ones Spark wrote in
 * mdt_basic_mor_avro_v8_nonpartitioned: keys, file groups and record bytes of its base files' statistics.
 */
#include "hoodie_test.h"
#include "format/hfile/hfile.h"
#include "storage/storage.h"
#include "table/mdt.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "write/mdt.h"

#include <stdio.h>
#include <string.h>

#define SPARK_MDT "hudi/tables/mdt_basic_mor_avro_v8_nonpartitioned"
#define CS_DIR SPARK_MDT "/.hoodie/metadata/column_stats/"

static const char *const source_fields[] = { "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key",
                                             "id", "name", "isActive", "byteField", "shortField", "intField",
                                             "longField", "floatField", "doubleField", "decimalField", "dateField",
                                             "timestampField", "binaryField" };
#define N_FIELDS (sizeof source_fields / sizeof source_fields[0])

static const char *const cs_bases[2] = { "col-stats-0000-0_20-161-504_20260101054337083.hfile",
                                         "col-stats-0001-0_21-161-505_20260101054337083.hfile" };

/* Each base file's records: in the file group their key hashes to, byte for byte the compacted base HFile's. */
HOODIE_TEST(write_mdt_colstats__base_files_as_spark_writes_them)
{
    static const char *const files[] = { "ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-61-225_20260101054316354.parquet",
                                         "ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-149-448_20260101054335805.parquet" };
    hoodie_buf hf[2] = { HOODIE_BUF_INIT, HOODIE_BUF_INIT };
    hoodie_hfile *h[2];
    for (int g = 0; g < 2; g++) {
        char rel[256];
        snprintf(rel, sizeof rel, CS_DIR "%s", cs_bases[g]);
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &hf[g]));
        hoodie_assert_ok(hoodie_hfile_open(&h[g], hf[g].data, hf[g].len, cs_bases[g]));
    }
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    size_t matched = 0;
    for (size_t f = 0; f < 2; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, SPARK_MDT "/%s", files[f]);
        hoodie_mdt_csrec *recs;
        size_t n;
        hoodie_assert_ok(hoodie_write__cs_of_base_file(hoodie_storage_posix(), hoodie_fixture(rel), ".",
                                                       source_fields, N_FIELDS, a, &recs, &n));
        hoodie_assert_equal_i((int)N_FIELDS, (int)n);
        for (size_t i = 0; i < n; i++) {
            size_t g = hoodie_mdt_key_group(recs[i].key, 2);
            hoodie_buf got = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_write__cs_encode(&got, &recs[i], cs_bases[g]));
            hoodie_hfile_iter it;
            hoodie_hfile_iter_init(&it, h[g]);
            hoodie_hfile_kv kv;
            hoodie_assert_ok(hoodie_hfile_get(&it, (const uint8_t *)recs[i].key, strlen(recs[i].key), &kv));
            if (kv.value_len != got.len || memcmp(kv.value, got.data, got.len))
                fprintf(stderr, "%s %s: %zu bytes, want %zu\n", files[f], recs[i].column, got.len, kv.value_len);
            hoodie_assert_equal_i((int)kv.value_len, (int)got.len);
            hoodie_assert(!memcmp(kv.value, got.data, got.len));
            hoodie_hfile_iter_dispose(&it);
            hoodie_buf_dispose(&got);
            matched++;
        }
    }
    hoodie_assert_equal_i((int)(2 * N_FIELDS), (int)matched);
    hoodie_arena_free(a);
    for (int g = 0; g < 2; g++) {
        hoodie_hfile_free(h[g]);
        hoodie_buf_dispose(&hf[g]);
    }
}

/* The reader takes a file group's records whole, merged by key: the compacted base plus the logs after it; every
 * record re-encodes to the bytes it was read from (the base HFile's, named after it). */
HOODIE_TEST(write_mdt_colstats__group_records_round_trip)
{
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_timeline *tl = NULL;
    hoodie_table_config *cfg = NULL;
    const char *base = hoodie_fixture(SPARK_MDT);
    char base_path[512];
    snprintf(base_path, sizeof base_path, "%s", base);
    hoodie_assert_ok(hoodie_table_config_load(&cfg, hoodie_storage_posix(), base_path, 0));
    hoodie_assert_ok(hoodie_timeline_load(&tl, hoodie_storage_posix(), base_path, cfg));
    size_t total = 0, same = 0;
    for (int g = 0; g < 2; g++) {
        char rel[256];
        snprintf(rel, sizeof rel, CS_DIR "%s", cs_bases[g]);
        hoodie_buf hf = HOODIE_BUF_INIT;
        hoodie_hfile *h;
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &hf));
        hoodie_assert_ok(hoodie_hfile_open(&h, hf.data, hf.len, cs_bases[g]));
        char fid[32];
        snprintf(fid, sizeof fid, "col-stats-000%d-0", g);
        hoodie_mdt_csrec *recs;
        size_t n;
        hoodie_assert_ok(hoodie_mdt_cs_group(hoodie_storage_posix(), base_path, tl, fid, a, &recs, &n));
        for (size_t i = 0; i < n; i++) {
            hoodie_assert_equal_i((int)g, (int)hoodie_mdt_key_group(recs[i].key, 2));
            if (i) hoodie_assert(strcmp(recs[i - 1].key, recs[i].key) < 0);
            hoodie_assert(!recs[i].deleted);
            hoodie_hfile_iter it;
            hoodie_hfile_iter_init(&it, h);
            hoodie_hfile_kv kv;
            if (hoodie_hfile_get(&it, (const uint8_t *)recs[i].key, strlen(recs[i].key), &kv) == HOODIE_OK) {
                hoodie_buf got = HOODIE_BUF_INIT;
                hoodie_assert_ok(hoodie_write__cs_encode(&got, &recs[i], cs_bases[g]));
                hoodie_assert_equal_i((int)kv.value_len, (int)got.len);
                hoodie_assert(!memcmp(kv.value, got.data, got.len));
                hoodie_buf_dispose(&got);
                same++;
            } else {
                hoodie_error_clear();
            }
            hoodie_hfile_iter_dispose(&it);
        }
        hoodie_hfile_free(h);
        hoodie_buf_dispose(&hf);
        total += n;
    }
    /* 6 files in the base (2 base files, 4 logs) and the log of the deltacommit after the compaction */
    hoodie_assert_equal_i((int)(7 * N_FIELDS), (int)total);
    hoodie_assert_equal_i((int)(6 * N_FIELDS), (int)same);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    hoodie_arena_free(a);
}

/* A compaction's base HFile of column_stats: the records of the fixture's compacted slice (those of the files in
 * its base; the log after the compaction left out) give Spark's base HFile byte for byte, bloom filter and all. */
HOODIE_TEST(write_mdt_colstats__base_hfile_as_spark_writes_it)
{
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_timeline *tl = NULL;
    hoodie_table_config *cfg = NULL;
    char base_path[512];
    snprintf(base_path, sizeof base_path, "%s", hoodie_fixture(SPARK_MDT));
    hoodie_assert_ok(hoodie_table_config_load(&cfg, hoodie_storage_posix(), base_path, 0));
    hoodie_assert_ok(hoodie_timeline_load(&tl, hoodie_storage_posix(), base_path, cfg));
    for (int g = 0; g < 2; g++) {
        char fid[32];
        snprintf(fid, sizeof fid, "col-stats-000%d-0", g);
        hoodie_mdt_csrec *recs;
        size_t n, k = 0;
        hoodie_assert_ok(hoodie_mdt_cs_group(hoodie_storage_posix(), base_path, tl, fid, a, &recs, &n));
        for (size_t i = 0; i < n; i++)
            if (!strstr(recs[i].file, "_20260101054337037.log.")) recs[k++] = recs[i];
        hoodie_assert(k < n);
        hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
        char rel[256];
        snprintf(rel, sizeof rel, CS_DIR "%s", cs_bases[g]);
        hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), hoodie_fixture(rel), &want));
        hoodie_assert_ok(hoodie_write__cs_base_hfile(recs, k, cs_bases[g], &got));
        hoodie_assert_equal_i((int)want.len, (int)got.len);
        hoodie_assert(!memcmp(want.data, got.data, want.len));
        hoodie_buf_dispose(&want);
        hoodie_buf_dispose(&got);
    }
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    hoodie_arena_free(a);
}
