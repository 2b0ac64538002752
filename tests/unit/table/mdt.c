#include "hoodie_test.h"
#include "hoodie/table.h"
#include "storage/storage.h"
#include "hoodie/lookup.h"
#include "table/fsview.h"
#include "table/mdt.h"
#include "format/hfile/hfile_write.h"
#include "format/hlog/hlog.h"
#include "format/hlog/hlog_write.h"
#include "table/table.h"
#include "util/error.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MDT_TABLE "mdt_basic_mor_avro_v8_nonpartitioned"

/* A writable copy of a fixture table. */
static const char *copy_table(const char *table)
{
    static char dst[1024];
    char cmd[4096];
    snprintf(dst, sizeof dst, "%s/%s", hoodie_test_tmpdir(), table);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && chmod -R u+w '%s'", hoodie_fixture("hudi/tables/" MDT_TABLE), dst,
             dst);
    hoodie_assert(system(cmd) == 0);
    return dst;
}

static hoodie_mdt_listing *listing_of(const char *path)
{
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_mdt_listing *l;
    hoodie_assert_ok(hoodie_mdt_files(&l, NULL, path, t->tl));
    hoodie_table_free(t);
    return l;
}

HOODIE_TEST(table_mdt__files_partition_is_the_listing_of_storage)
{
    /* Spark wrote this table with its metadata table on (files, column_stats, record_index, a secondary index):
     * the files partition is an HFile base file from a compaction and a log of HFILE_DATA_BLOCKs after it */
    const char *path = hoodie_fixture("hudi/tables/" MDT_TABLE);
    hoodie_mdt_listing *l = listing_of(path);
    hoodie_assert_equal_i(1, l->count);
    hoodie_assert_equal_s("", l->partitions[0].path); /* "." in the metadata table */
    /* every data file in the base path, with its size, and nothing else */
    DIR *d = opendir(path);
    hoodie_assert(d != NULL);
    size_t seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strncmp(e->d_name, ".hoodie", 7) || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[2048];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        hoodie_assert(stat(p, &st) == 0);
        size_t i = 0;
        while (i < l->partitions[0].count && strcmp(l->partitions[0].files[i].name, e->d_name)) i++;
        if (i == l->partitions[0].count) hoodie_test__fail(__FILE__, __LINE__, "%s is not in the listing", e->d_name);
        hoodie_assert_equal_i(st.st_size, l->partitions[0].files[i].size);
        seen++;
    }
    closedir(d);
    hoodie_assert_equal_i(7, seen); /* 2 base files, 5 log files */
    hoodie_assert_equal_i(seen, l->partitions[0].count);
    for (size_t i = 1; i < l->partitions[0].count; i++) /* sorted */
        hoodie_assert(strcmp(l->partitions[0].files[i - 1].name, l->partitions[0].files[i].name) < 0);
    hoodie_mdt_listing_free(l);
}

/* The file groups the table's view shows, opened with or without the metadata table. */
static size_t groups_of(const char *path, uint32_t flags, char *first_log_of_last_slice, size_t n)
{
    hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
    o.flags = flags;
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, &o));
    hoodie_fsview *v;
    hoodie_assert_ok(hoodie_table__fsview(t, NULL, NULL, NULL, &v));
    size_t g = v->group_count;
    if (first_log_of_last_slice && g) {
        const hoodie_file_slice *s = hoodie_file_group_latest(&v->groups[g - 1]);
        snprintf(first_log_of_last_slice, n, "%s", s && s->log_count ? s->logs[s->log_count - 1]->name : "");
    }
    hoodie_fsview_free(v);
    hoodie_table_free(t);
    return g;
}

HOODIE_TEST(table_mdt__the_view_takes_the_files_the_metadata_table_records)
{
    const char *path = copy_table(MDT_TABLE);
    char cmd[4096];
    /* a file in storage that no commit recorded in the metadata table (a copy of a base file as another file
     * group, at a completed instant): a listing of storage sees it, the metadata table does not */
    snprintf(cmd, sizeof cmd,
             "cp '%s/ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-61-225_20260101054316354.parquet' "
             "'%s/0ddba11c-0000-4000-8000-000000000000-0_0-61-225_20260101054316354.parquet'", path, path);
    hoodie_assert(system(cmd) == 0);
    hoodie_assert_equal_i(2, groups_of(path, 0, NULL, 0));
    hoodie_assert_equal_i(1, groups_of(path, HOODIE_OPEN_METADATA_TABLE, NULL, 0));

    /* the metadata table's last deltacommit not completed: its block (the table's last log file) does not count */
    char last[256];
    groups_of(path, HOODIE_OPEN_METADATA_TABLE, last, sizeof last);
    hoodie_assert_contains(last, "20260101054337037");
    snprintf(cmd, sizeof cmd, "rm '%s/.hoodie/metadata/.hoodie/timeline/20260101054337037_20260101054337824.deltacommit'",
             path);
    hoodie_assert(system(cmd) == 0);
    groups_of(path, HOODIE_OPEN_METADATA_TABLE, last, sizeof last);
    hoodie_assert_equal_s("", last); /* the latest slice (the compaction's base file) without 337037's log */
    groups_of(path, 0, last, sizeof last);
    hoodie_assert_contains(last, "20260101054337037"); /* storage has it (the data timeline completes it) */
}

HOODIE_TEST(table_mdt__a_table_without_one_is_listed)
{
    /* the flag on a table whose metadata table is off: storage is listed */
    const char *path = hoodie_fixture("hudi/tables/trips_mor_avro_v8_trips_8i1u");
    size_t plain = groups_of(path, 0, NULL, 0);
    hoodie_assert(plain > 0);
    hoodie_assert_equal_i(plain, groups_of(path, HOODIE_OPEN_METADATA_TABLE, NULL, 0));
}

HOODIE_TEST(table_mdt__a_corrupt_metadata_table_is_an_error_naming_the_file)
{
    const char *path = copy_table(MDT_TABLE);
    char f[2048];
    snprintf(f, sizeof f, "%s/.hoodie/metadata/files/files-0000-0_22-161-506_20260101054337083.hfile", path);
    FILE *fp = fopen(f, "r+b");
    hoodie_assert(fp != NULL);
    fseek(fp, 200, SEEK_SET);
    fputc(0x55, fp);
    fclose(fp);
    hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
    o.flags = HOODIE_OPEN_METADATA_TABLE;
    hoodie_table *t = NULL;
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_table_open(&t, path, &o));
    hoodie_assert_contains(hoodie_error_last()->message, "files-0000-0_22-161-506_20260101054337083.hfile");
    hoodie_assert_contains(hoodie_error_last()->message, "checksum mismatch");
    hoodie_assert(t == NULL);
    /* without the flag the table reads by listing */
    hoodie_assert_equal_i(1, groups_of(path, 0, NULL, 0));
}

HOODIE_TEST(table_mdt__record_index_locations)
{
    /* keys 1, 4, 5 live in the one file group; 2 and 3 were deleted (delete blocks, then the compaction's
     * HFiles without them); 6 never was */
    const char *path = hoodie_fixture("hudi/tables/" MDT_TABLE);
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_assert(hoodie_mdt_listed(t->cfg, "record_index") && hoodie_mdt_listed(t->cfg, "files"));
    hoodie_assert(!hoodie_mdt_listed(t->cfg, "bloom_filters") && !hoodie_mdt_listed(t->cfg, "file"));
    static const char *const keys[] = { "1", "2", "3", "4", "5", "6", "" };
    hoodie_mdt_location locs[7];
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_mdt_record_index(NULL, path, t->tl, keys, 7, a, locs));
    static const int found[] = { 1, 0, 0, 1, 1, 0, 0 };
    for (int i = 0; i < 7; i++) {
        hoodie_assert_equal_i(found[i], locs[i].found);
        if (!found[i]) continue;
        hoodie_assert_equal_s("", locs[i].partition); /* "." */
        hoodie_assert_equal_s("ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0", locs[i].file_id); /* from the UUID's bits */
        hoodie_assert_equal_i(1767246196354LL, locs[i].instant_ms); /* 2026-01-01 05:43:16.354, the first commit */
    }
    hoodie_arena_free(a);
    hoodie_table_free(t);
}

HOODIE_TEST(table_mdt__point_lookups_read_the_groups_the_record_index_names)
{
    /* a stray copy of the first base file as another file group; the metadata table lists only its record
     * index, so files are listed from storage (the stray one too) and the lookup alone decides */
    const char *path = copy_table(MDT_TABLE);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cp '%s/ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-61-225_20260101054316354.parquet' "
             "'%s/0ddba11c-0000-4000-8000-000000000000-0_0-61-225_20260101054316354.parquet' && "
             "sed -i 's/^hoodie.table.metadata.partitions=.*/hoodie.table.metadata.partitions=record_index/' "
             "'%s/.hoodie/hoodie.properties'", path, path, path);
    hoodie_assert(system(cmd) == 0);
    for (int use = 0; use < 2; use++) {
        hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
        o.flags = use ? HOODIE_OPEN_METADATA_TABLE : 0;
        hoodie_table *t;
        hoodie_assert_ok(hoodie_table_open(&t, path, &o));
        static const char *const keys[] = { "4" };
        struct ArrowArrayStream st;
        hoodie_assert_ok(hoodie_table_get(t, keys, 1, &st));
        struct ArrowArray arr;
        int64_t rows = 0;
        while (st.get_next(&st, &arr) == 0 && arr.release) {
            rows += arr.length;
            arr.release(&arr);
        }
        st.release(&st);
        /* listed: the stray group's Diana and the real group's Diana Updated; through the index: the latter */
        hoodie_assert_equal_i(use ? 1 : 2, rows);
        hoodie_table_free(t);
    }
}

HOODIE_TEST(table_mdt__column_stats)
{
    const char *path = hoodie_fixture("hudi/tables/" MDT_TABLE);
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_mdt_colstats *cs;
    hoodie_assert_ok(hoodie_mdt_column_stats(&cs, NULL, path, t->tl));
    /* the log of 20260101054333805: one record, Carol's update (id 3) */
    const char *log = ".ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054333805.log.1_0-120-380";
    const hoodie_mdt_stat *st = hoodie_mdt_stat_of(cs, log, "id");
    hoodie_assert(st != NULL && st->has_min && st->has_max && st->has_counts);
    hoodie_assert_equal_i(HOODIE_PQ_VAL_I64, st->min.kind);
    hoodie_assert_equal_i(3, st->min.i);
    hoodie_assert_equal_i(3, st->max.i);
    hoodie_assert_equal_i(1, st->value_count);
    hoodie_assert_equal_i(0, st->null_count);
    st = hoodie_mdt_stat_of(cs, log, "name");
    hoodie_assert(st != NULL && st->has_min && st->min.kind == HOODIE_PQ_VAL_BYTES);
    hoodie_assert(st->min.len == 5 && !memcmp(st->min.bytes, "Carol", 5));
    st = hoodie_mdt_stat_of(cs, log, "dateField");
    hoodie_assert(st != NULL && st->has_min && st->min.i == 19450); /* 2023-04-03 as days */
    st = hoodie_mdt_stat_of(cs, log, "isActive");
    hoodie_assert(st != NULL && st->min.kind == HOODIE_PQ_VAL_BOOL && st->min.i == 1);
    st = hoodie_mdt_stat_of(cs, log, "decimalField"); /* decimals are not compared: no bounds */
    hoodie_assert(st != NULL && !st->has_min && !st->has_max);
    /* a log of deletes: no values */
    st = hoodie_mdt_stat_of(cs, ".ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054332333.log.1_0-104-337", "id");
    hoodie_assert(st != NULL && st->has_counts && st->value_count == 0);
    /* the compaction's base file holds ids 1, 4 and 5 */
    st = hoodie_mdt_stat_of(cs, "ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-149-448_20260101054335805.parquet", "id");
    hoodie_assert(st != NULL && st->has_min && st->has_max);
    hoodie_assert_equal_i(1, st->min.i);
    hoodie_assert_equal_i(5, st->max.i);
    hoodie_assert_equal_i(3, st->value_count);
    hoodie_assert(hoodie_mdt_stat_of(cs, "no-such-file.parquet", "id") == NULL);
    hoodie_assert(hoodie_mdt_stat_of(cs, log, "no_such_column") == NULL);
    hoodie_mdt_colstats_free(cs);
    hoodie_table_free(t);
}

/* An HFile of (key, value) cells (keys sorted) into `out`. */
static hoodie_status buf_sink(void *ctx, const uint8_t *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

static void si_hfile(hoodie_buf *out, const char *const *keys, const int *deleted, size_t n)
{
    hoodie_hfile_writer *w;
    hoodie_hfile_writer_opts o = { 0, 0, 1, NULL, 0 };
    hoodie_assert_ok(hoodie_hfile_writer_new(&w, &o, buf_sink, out));
    for (size_t i = 0; i < n; i++) {
        /* five null meta fields, key "", type 7, four null payloads, SecondaryIndexMetadata {isDeleted} */
        uint8_t v[13] = { 0, 0, 0, 0, 0, 0, 14, 0, 0, 0, 0, 2, (uint8_t)deleted[i] };
        hoodie_assert_ok(hoodie_hfile_writer_add(w, (const uint8_t *)keys[i], strlen(keys[i]), v, sizeof v));
    }
    hoodie_assert_ok(hoodie_hfile_writer_finish(w));
    hoodie_hfile_writer_free(w);
}

static void si_lookup(const char *path, const hoodie_timeline *tl, const char *value, const char *want)
{
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    const char **keys;
    size_t n;
    hoodie_assert_ok(hoodie_mdt_secondary_keys(NULL, path, tl, "secondary_index_name_idx", &value, 1, a, &keys, &n));
    hoodie_buf got = HOODIE_BUF_INIT;
    for (size_t i = 0; i < n; i++) hoodie_assert_ok(hoodie_buf_printf(&got, "%s%s", i ? "," : "", keys[i]));
    hoodie_assert_ok(hoodie_buf_putc(&got, '\0'));
    hoodie_assert_equal_s(want, (const char *)got.data);
    hoodie_buf_dispose(&got);
    free(keys);
    hoodie_arena_free(a);
}

HOODIE_TEST(table_mdt__secondary_index)
{
    /* keys escape '$' and backslashes; a split undoes it */
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_mdt_si_escape(&b, "a$b\\c", 5));
    hoodie_assert_ok(hoodie_buf_putc(&b, '\0'));
    hoodie_assert_equal_s("a\\$b\\\\c", (const char *)b.data);
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    const char *sec, *rec;
    hoodie_assert_equal_i(0, hoodie_mdt_si_split("x\\$y$k\\\\1", 9, a, &sec, &rec));
    hoodie_assert_equal_s("x$y", sec);
    hoodie_assert_equal_s("k\\1", rec);
    hoodie_assert_equal_i(-1, hoodie_mdt_si_split("x\\$y", 4, a, &sec, &rec));

    /* Spark's index of `name`: Bob's entry deleted with his record, Carol's too, Diana's moved to her new name */
    const char *path = copy_table(MDT_TABLE);
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_mdt_secondary *defs;
    size_t n_defs;
    hoodie_assert_ok(hoodie_mdt_secondary_indexes(NULL, path, t->cfg, a, &defs, &n_defs));
    hoodie_assert_equal_i(1, n_defs);
    hoodie_assert_equal_s("secondary_index_name_idx", defs[0].name);
    hoodie_assert_equal_s("name", defs[0].column);
    si_lookup(path, t->tl, "Alice", "1");
    si_lookup(path, t->tl, "Bob", "");
    si_lookup(path, t->tl, "Carol", "");
    si_lookup(path, t->tl, "Diana", "");
    si_lookup(path, t->tl, "Diana Updated", "4");
    si_lookup(path, t->tl, "Eve", "5");
    static const char *const many[] = { "Eve", "Alice", "Eve", "nobody" };
    const char **keys;
    size_t n;
    hoodie_assert_ok(hoodie_mdt_secondary_keys(NULL, path, t->tl, "secondary_index_name_idx", many, 4, a, &keys, &n));
    hoodie_assert_equal_i(2, n);
    hoodie_assert_equal_s("1", keys[0]);
    hoodie_assert_equal_s("5", keys[1]);
    free(keys);

    /* a log of a completed deltacommit added to a file group of the index: entries under values with '$' and
     * backslashes, one marked deleted, one removed by a delete block after it */
    static const char *const cells[] = { "Alice$10", "Alice$9", "Alice$99", "Bob\\\\$8", "a\\$b$7" };
    static const int deleted[] = { 1, 0, 0, 0, 0 };
    hoodie_buf hf = HOODIE_BUF_INIT, log = HOODIE_BUF_INIT, schema = HOODIE_BUF_INIT;
    si_hfile(&hf, cells, deleted, 5);
    char lp[2048];
    snprintf(lp, sizeof lp, "%s/.hoodie/metadata/secondary_index_name_idx/"
             ".secondary-index-name-idx-0000-0_20260101054337037.log.1_1-175-534", path);
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_default(), lp, &schema)); /* Spark's log: its schema */
    hoodie_hlog_iter it;
    hoodie_hlog_block blk;
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, schema.data, schema.len, lp));
    hoodie_assert_ok(hoodie_hlog_iter_next(&it, &blk));
    const char *inst = "20260101054337037";
    hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, inst, strlen(inst) },
                                      { HOODIE_HLOG_SCHEMA, blk.header[HOODIE_HLOG_SCHEMA],
                                        blk.header_len[HOODIE_HLOG_SCHEMA] } };
    hoodie_assert_ok(hoodie_hlog_write_block(&log, HOODIE_HLOG_HFILE_DATA_BLOCK, h, 2, hf.data, hf.len));
    hoodie_hlog_delete d = { "Alice$99", "secondary_index_name_idx", HOODIE_HLOG_ORD_INT, 0, 0, NULL, 0 };
    hoodie_assert_ok(hoodie_hlog_write_delete_block(&log, h, 2, &d, 1));
    hoodie_hlog_iter_dispose(&it);
    snprintf(lp, sizeof lp, "%s/.hoodie/metadata/secondary_index_name_idx/"
             ".secondary-index-name-idx-0003-0_00000000000000003.log.2_0-1-0", path);
    FILE *fp = fopen(lp, "wb");
    hoodie_assert(fp && fwrite(log.data, 1, log.len, fp) == log.len && fclose(fp) == 0);
    si_lookup(path, t->tl, "Alice", "1,9");
    si_lookup(path, t->tl, "a$b", "7");
    si_lookup(path, t->tl, "Bob\\", "8");
    si_lookup(path, t->tl, "Bob", "");
    hoodie_mdt_si_entry *e;
    hoodie_assert_ok(hoodie_mdt_secondary_entries(NULL, path, t->tl, "secondary_index_name_idx", a, &e, &n));
    static const char *const want[][2] = { { "1", "Alice" }, { "4", "Diana Updated" }, { "5", "Eve" },
                                           { "7", "a$b" }, { "8", "Bob\\" }, { "9", "Alice" } };
    hoodie_assert_equal_i(6, n);
    for (size_t i = 0; i < n; i++) {
        hoodie_assert_equal_s(want[i][0], e[i].record_key);
        hoodie_assert_equal_s(want[i][1], e[i].secondary);
    }
    free(e);
    hoodie_buf_dispose(&hf);
    hoodie_buf_dispose(&log);
    hoodie_buf_dispose(&schema);
    hoodie_buf_dispose(&b);
    hoodie_arena_free(a);
    hoodie_table_free(t);
}
