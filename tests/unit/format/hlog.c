#include "hoodie_test.h"
#include "format/hlog/hlog.h"
#include "format/avro/json.h"
#include "storage/storage.h"
#include "util/error.h"

#include <dirent.h>
#include <stdlib.h>

static void read_file(const char *path, hoodie_buf *b)
{
    hoodie_buf_clear(b);
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, b));
}

typedef struct stats {
    size_t blocks[HOODIE_HLOG_BLOCK_TYPE_COUNT];
    size_t records, deletes, nonzero_ordering, rollbacks;
} stats;

/* Decode every block fully; Avro records are decoded against the block's SCHEMA and must use every byte. */
static void decode_all(const uint8_t *data, size_t len, const char *what, stats *st, int expect_clean)
{
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_status rc;
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, data, len, what));
    size_t covered = 0;
    while ((rc = hoodie_hlog_iter_next(&it, &b)) == HOODIE_OK) {
        hoodie_assert_equal_i(covered, b.offset);
        covered += b.total_len;
        st->blocks[b.type]++;
        if (b.type == HOODIE_HLOG_CORRUPT_BLOCK) {
            hoodie_assert(!expect_clean);
            hoodie_assert(b.corrupt_reason != NULL);
            continue;
        }
        hoodie_assert_equal_i(1, b.format_version);
        if (expect_clean) {
            hoodie_assert(b.header[HOODIE_HLOG_INSTANT_TIME] != NULL);
            hoodie_assert_equal_i(17, b.header_len[HOODIE_HLOG_INSTANT_TIME]);
        }
        if (b.type == HOODIE_HLOG_AVRO_DATA_BLOCK) {
            hoodie_avro_jschema s;
            hoodie_hlog_avro_records r;
            const uint8_t *rec;
            size_t rlen;
            if (!expect_clean && (!b.header[HOODIE_HLOG_SCHEMA]
                || hoodie_avro_jschema_parse(&s, b.header[HOODIE_HLOG_SCHEMA], b.header_len[HOODIE_HLOG_SCHEMA], what))) {
                hoodie_hlog_avro_records r2;
                const uint8_t *rec2;
                size_t rlen2;
                if (!hoodie_hlog_avro_open(&r2, &b, what))
                    while (hoodie_hlog_avro_next(&r2, &rec2, &rlen2) == HOODIE_OK) st->records++;
                continue;
            }
            if (expect_clean)
                hoodie_assert_ok(hoodie_avro_jschema_parse(&s, b.header[HOODIE_HLOG_SCHEMA], b.header_len[HOODIE_HLOG_SCHEMA], what));
            rc = hoodie_hlog_avro_open(&r, &b, what);
            if (expect_clean) hoodie_assert_ok(rc);
            while (!rc && (rc = hoodie_hlog_avro_next(&r, &rec, &rlen)) == HOODIE_OK) {
                hoodie_cursor c;
                json_t *v = NULL;
                hoodie_cursor_init(&c, rec, rlen, 0, what);
                hoodie_status drc = hoodie_avro_decode_json(&s, &c, &v);
                if (expect_clean) {
                    hoodie_assert_ok(drc);
                    hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
                    hoodie_assert(json_is_string(json_object_get(v, "_hoodie_record_key")));
                    hoodie_assert_equal_s(b.header[HOODIE_HLOG_INSTANT_TIME],
                                          json_string_value(json_object_get(v, "_hoodie_commit_time")));
                }
                json_decref(v);
                st->records++;
            }
            if (expect_clean) hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
            if (expect_clean) hoodie_assert_equal_i(r.record_count, r.returned);
            hoodie_avro_jschema_dispose(&s);
        } else if (b.type == HOODIE_HLOG_DELETE_BLOCK) {
            hoodie_hlog_delete *d;
            size_t n;
            rc = hoodie_hlog_delete_decode(&b, a, what, &d, &n);
            if (expect_clean) {
                hoodie_assert_ok(rc);
                hoodie_assert(n > 0);
                for (size_t i = 0; i < n; i++) {
                    hoodie_assert(d[i].record_key && *d[i].record_key);
                    hoodie_assert(d[i].partition_path != NULL);
                    if (d[i].ord_type != HOODIE_HLOG_ORD_NULL && d[i].ord_i != 0) st->nonzero_ordering++;
                }
                st->deletes += n;
            }
        } else if (b.type == HOODIE_HLOG_COMMAND_BLOCK) {
            const char *target;
            int r = hoodie_hlog_command_rollback(&b, what, &target);
            (void)target;
            if (expect_clean) {
                hoodie_assert_equal_i(1, r);
                hoodie_assert_equal_i(0, b.content_len);
                hoodie_assert_equal_i(17, strlen(target));
                st->rollbacks++;
            }
        } else if (b.type == HOODIE_HLOG_PARQUET_DATA_BLOCK) {
            const uint8_t *p;
            size_t n;
            rc = hoodie_hlog_parquet_content(&b, what, &p, &n);
            if (expect_clean) hoodie_assert_ok(rc);
        }
        hoodie_arena_reset(a);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_assert_equal_i(len, covered);
    if (expect_clean) hoodie_assert_equal_i(0, it.corrupt_blocks);
    hoodie_hlog_iter_dispose(&it);
    hoodie_arena_free(a);
}

HOODIE_TEST(format_hlog__standalone_files)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    stats st;
    hoodie_hlog_iter it;
    hoodie_hlog_block blk;

    memset(&st, 0, sizeof st);
    read_file(hoodie_fixture("hudi/standalone/log_files/valid_log_avro_data/.ff32ab89-5ad0-4968-83b4-89a34c95d32f-0_20250316025816068.log.1_0-54-122"), &b);
    decode_all(b.data, b.len, "avro", &st, 1);
    hoodie_assert_equal_i(1, st.blocks[HOODIE_HLOG_AVRO_DATA_BLOCK]);
    hoodie_assert(st.records > 0);

    memset(&st, 0, sizeof st);
    read_file(hoodie_fixture("hudi/standalone/log_files/valid_log_delete/.6d3d1d6e-2298-4080-a0c1-494877d6f40a-0_20250618054711154.log.1_0-26-85"), &b);
    decode_all(b.data, b.len, "delete", &st, 1);
    hoodie_assert_equal_i(1, st.blocks[HOODIE_HLOG_DELETE_BLOCK]);
    hoodie_assert_equal_i(3, st.deletes);
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, "delete"));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &blk));
    hoodie_assert_equal_s("20250618054714114", blk.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_hlog_iter_dispose(&it);

    memset(&st, 0, sizeof st);
    read_file(hoodie_fixture("hudi/standalone/log_files/valid_log_rollback/.0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1"), &b);
    decode_all(b.data, b.len, "rollback", &st, 1);
    hoodie_assert_equal_i(1, st.rollbacks);
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, "rollback"));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &blk));
    hoodie_assert_equal_i(HOODIE_HLOG_COMMAND_BLOCK, blk.type);
    hoodie_assert_equal_s("20250126040936578", blk.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_assert_equal_s("20250126040826878", blk.header[HOODIE_HLOG_TARGET_INSTANT_TIME]);
    hoodie_assert_equal_s("0", blk.header[HOODIE_HLOG_COMMAND_BLOCK_TYPE]);
    hoodie_assert_equal_i(105, blk.total_len);
    hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_iter_next(&it, &blk));
    hoodie_hlog_iter_dispose(&it);

    memset(&st, 0, sizeof st);
    read_file(hoodie_fixture("hudi/standalone/log_files/valid_log_parquet_data/.ee2ace10-7667-40f5-9848-0a144b5ea064-0_20250113230302428.log.1_0-188-387"), &b);
    decode_all(b.data, b.len, "parquet", &st, 1);
    hoodie_assert_equal_i(1, st.blocks[HOODIE_HLOG_PARQUET_DATA_BLOCK]);
    hoodie_buf_dispose(&b);
}

/* Every log file of every MOR fixture table (data tables, not the metadata table). */
static void each_log(const char *dir, int depth, void (*fn)(const char *path, void *), void *arg)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d))) {
        char p[2048];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            if (depth < 4) each_log(p, depth + 1, fn, arg);
        } else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) {
            fn(p, arg);
        }
    }
    closedir(d);
}

static void one_log(const char *path, void *arg)
{
    stats *st = arg;
    hoodie_buf b = HOODIE_BUF_INIT;
    read_file(path, &b);
    decode_all(b.data, b.len, path, st, 1);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_hlog__every_fixture_log)
{
    stats st;
    memset(&st, 0, sizeof st);
    each_log(hoodie_fixture("hudi/tables"), 0, one_log, &st);
    hoodie_assert(st.blocks[HOODIE_HLOG_AVRO_DATA_BLOCK] >= 8);
    hoodie_assert(st.blocks[HOODIE_HLOG_PARQUET_DATA_BLOCK] >= 4);
    hoodie_assert(st.blocks[HOODIE_HLOG_DELETE_BLOCK] >= 2);
    hoodie_assert_equal_i(1, st.rollbacks);
    hoodie_assert(st.nonzero_ordering > 0); /* v9 3commits: deletes with ordering values */
    fprintf(stderr, "  logs: %zu avro blocks (%zu records), %zu parquet, %zu delete (%zu keys, %zu ordered), %zu command\n",
            st.blocks[3], st.records, st.blocks[5], st.blocks[1], st.deletes, st.nonzero_ordering, st.blocks[0]);
}

/* Damaged copies: every truncation and many bit flips decode without crashing; the damage shows up as
 * CORRUPT blocks or content errors, and valid blocks before it still come out intact. */
static void damage_log(const char *path, void *arg)
{
    (void)arg;
    hoodie_buf b = HOODIE_BUF_INIT;
    stats st;
    read_file(path, &b);
    uint8_t *copy = malloc(b.len + 64);
    hoodie_assert(copy != NULL);
    size_t step = b.len / 97 + 1;
    for (size_t cut = 0; cut < b.len; cut += step) {
        memcpy(copy, b.data, cut);
        memset(&st, 0, sizeof st);
        decode_all(copy, cut, path, &st, 0);
        if (cut > 0) hoodie_assert(st.blocks[HOODIE_HLOG_CORRUPT_BLOCK] >= 1);
    }
    for (size_t pos = 0; pos < b.len; pos += step) {
        memcpy(copy, b.data, b.len);
        copy[pos] ^= (uint8_t)(1u << (pos % 8));
        memset(&st, 0, sizeof st);
        decode_all(copy, b.len, path, &st, 0);
    }
    /* garbage before, between and after two copies of the file: both copies still decode */
    uint8_t *two = malloc(b.len * 2 + 30);
    hoodie_assert(two != NULL);
    memcpy(two, "junk#HU", 7);
    memcpy(two + 7, b.data, b.len);
    memcpy(two + 7 + b.len, "#HUDI#\0\0\0\0\0\0", 12); /* a magic with a zero block size */
    memcpy(two + 19 + b.len, b.data, b.len);
    stats good, both;
    memset(&good, 0, sizeof good);
    memset(&both, 0, sizeof both);
    decode_all(b.data, b.len, path, &good, 1);
    decode_all(two, b.len * 2 + 19, path, &both, 0);
    for (int t = 0; t < HOODIE_HLOG_BLOCK_TYPE_COUNT; t++)
        if (t != HOODIE_HLOG_CORRUPT_BLOCK) hoodie_assert_equal_i(2 * good.blocks[t], both.blocks[t]);
    hoodie_assert_equal_i(2, both.blocks[HOODIE_HLOG_CORRUPT_BLOCK]);
    /* trailing garbage makes the last block corrupt (Java: no magic after the block), the others survive */
    memcpy(two + 19 + 2 * b.len, "tail", 4);
    memset(&both, 0, sizeof both);
    decode_all(two, b.len * 2 + 23, path, &both, 0);
    hoodie_assert_equal_i(3, both.blocks[HOODIE_HLOG_CORRUPT_BLOCK]);
    free(two);
    free(copy);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_hlog__damaged_copies)
{
    each_log(hoodie_fixture("hudi/standalone/log_files"), 0, damage_log, NULL);
    each_log(hoodie_fixture("hudi/tables/mor_parquet_v6_nonpartitioned_rollback"), 0, damage_log, NULL);
    each_log(hoodie_fixture("hudi/tables/trips_mor_avro_v9_mor_nonpart_3commits"), 0, damage_log, NULL);
}

HOODIE_TEST(format_hlog__reverse_pointer_mismatch)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block blk;
    read_file(hoodie_fixture("hudi/standalone/log_files/valid_log_rollback/.0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1"), &b);
    b.data[b.len - 1] ^= 1; /* reverse pointer */
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, b.data, b.len, "x.log"));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &blk));
    hoodie_assert_equal_i(HOODIE_HLOG_CORRUPT_BLOCK, blk.type);
    hoodie_assert_contains(blk.corrupt_reason, "x.log: corrupt block at offset 0 (105 bytes): reverse pointer");
    hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_iter_next(&it, &blk));
    hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&b);
}
