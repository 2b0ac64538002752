/* LSM point lookups in a key-sorted base file: through the Parquet page index (only the pages holding the key are
 * read), and, when the index is broken, through row-group statistics and batches; both find the same rows. */
#include "hoodie_test.h"
#include "format/parquet/writer.h"
#include "model/build.h"
#include "read/lsm_read.h"
#include "table/pqfile.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LK_ROWS 3000
#define LK_RG_ROWS 1000   /* 3 row groups */
#define LK_PAGE_ROWS 100  /* 10 pages each */

static void lk_key(char *out, size_t n, int64_t row) { snprintf(out, n, "key%06lld", (long long)row * 2); }

static hoodie_status lk_sink(void *ctx, const void *p, size_t n)
{
    return fwrite(p, 1, n, ctx) == n ? HOODIE_OK : HOODIE_FAIL(HOODIE_EIO, "short write");
}

static void lk_add(hoodie_field *root, const char *name, hoodie_type_id t)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(&c, name, hoodie_type_of(t), 1));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
}

/* _hoodie_commit_time, _hoodie_record_key (sorted), v = row * 5 */
static void lk_write(const char *path)
{
    hoodie_field schema;
    hoodie_assert_ok(hoodie_field_init(&schema, "rec", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    lk_add(&schema, "_hoodie_commit_time", HOODIE_TYPE_STRING);
    lk_add(&schema, "_hoodie_record_key", HOODIE_TYPE_STRING);
    lk_add(&schema, "v", HOODIE_TYPE_INT64);
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.row_group_rows = LK_RG_ROWS;
    o.page_rows = LK_PAGE_ROWS;
    FILE *fp = fopen(path, "wb");
    hoodie_assert(fp != NULL);
    hoodie_pq_sink sink = { fp, lk_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    const hoodie_field *f = b.schema.children;
    hoodie_array *a = b.root.children;
    char k[32];
    for (int64_t i = 0; i < LK_ROWS; i++) {
        lk_key(k, sizeof k, i);
        hoodie_assert_ok(hoodie_array_append_str(&a[0], &f[0], "20240101000000000"));
        hoodie_assert_ok(hoodie_array_append_str(&a[1], &f[1], k));
        hoodie_assert_ok(hoodie_array_append_int(&a[2], &f[2], i * 5));
    }
    b.root.length = LK_ROWS;
    hoodie_assert_ok(hoodie_pq_writer_write(w, &b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);
    hoodie_assert_equal_i(0, fclose(fp));
}

/* Look up keys (sorted, unique) in `path` as the base file of a slice; the rows' v values (or -1 per key not found,
 * as the test lists them) go to out, their count is returned. */
static size_t lk_lookup(const char *path, const char *const *keys, size_t n, int64_t *out)
{
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, NULL));
    hoodie_field schema;
    hoodie_assert_ok(hoodie_field_clone(&schema, hoodie_pqfile__schema(r)));
    hoodie_parquet_reader_free(r);
    hoodie_fs_file base;
    memset(&base, 0, sizeof base);
    base.name = base.path = path;
    base.partition = "";
    hoodie_file_slice sl = { "20240101000000000", &base, NULL, 0 };
    hoodie_lsm_slice_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scan.schema = &schema;
    cfg.key_col = 1;
    cfg.ordering_col = cfg.deleted_col = -1;
    cfg.policy.log_fold = cfg.policy.base = HOODIE_MERGE_COMMIT_TIME_ORDERING;
    cfg.keys = keys;
    cfg.n_keys = n;
    hoodie_lsm_slice *ls;
    hoodie_assert_ok(hoodie_lsm_slice_open(&ls, &cfg, &sl));
    hoodie_batch b;
    hoodie_status rc;
    size_t found = 0;
    while ((rc = hoodie_lsm_slice_next(ls, &b, NULL)) == HOODIE_OK) {
        for (int64_t i = 0; i < b.root.length; i++) out[found++] = ((const int64_t *)b.root.children[2].values)[i];
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_status(HOODIE_ITEROVER, rc);
    hoodie_lsm_slice_free(ls);
    hoodie_field_dispose(&schema);
    return found;
}

/* Hits in the first, a middle and the last page of each row group and of the file, misses before, between and
 * after the keys; one key at a time and all at once. */
static void lk_check(const char *path)
{
    static const int64_t rows[] = { 0, 99, 100, 450, 999, 1000, 1555, 1999, 2000, 2900, 2999 };
    const size_t nr = sizeof rows / sizeof *rows;
    char hit[sizeof rows / sizeof *rows][32];
    const char *all[sizeof rows / sizeof *rows];
    int64_t got[64];
    for (size_t i = 0; i < nr; i++) {
        lk_key(hit[i], sizeof hit[i], rows[i]);
        all[i] = hit[i];
        const char *one[1] = { hit[i] };
        hoodie_assert_equal_i(1, lk_lookup(path, one, 1, got));
        hoodie_assert_equal_i(rows[i] * 5, got[0]);
    }
    hoodie_assert_equal_i(nr, lk_lookup(path, all, nr, got));
    for (size_t i = 0; i < nr; i++) hoodie_assert_equal_i(rows[i] * 5, got[i]);
    /* misses: below the first key, odd keys between rows (in the first, a middle, the last page), above the last */
    static const char *const misses[] = { "a", "key000001", "key000901", "key002001", "key005997", "key005999", "z" };
    for (size_t i = 0; i < sizeof misses / sizeof *misses; i++)
        hoodie_assert_equal_i(0, lk_lookup(path, &misses[i], 1, got));
    const char *mixed[4] = { "key000001", hit[3], "key003001", hit[10] };
    hoodie_assert_equal_i(2, lk_lookup(path, mixed, 4, got));
    hoodie_assert_equal_i(450 * 5, got[0]);
    hoodie_assert_equal_i(2999 * 5, got[1]);
}

HOODIE_TEST(read_lsm_lookup__page_index_hits_and_misses)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/base.parquet", hoodie_test_tmpdir());
    lk_write(path);
    lk_check(path);
}

/* The same lookups after garbage over the key column's page index in row groups 0 and 2 (ColumnIndex) and 1
 * (OffsetIndex): the statistics path answers, nothing crashes. */
HOODIE_TEST(read_lsm_lookup__corrupt_page_index_falls_back)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/base.parquet", hoodie_test_tmpdir());
    lk_write(path);
    hoodie_parquet_reader *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, path, NULL));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(hoodie_pqfile__file(r));
    hoodie_assert_equal_i(3, m->row_group_count);
    int64_t at[3], len[3];
    for (uint32_t g = 0; g < 3; g++) {
        const hoodie_pq_column_chunk *cc = &m->row_groups[g].columns[1];
        hoodie_assert(cc->has_column_index && cc->has_offset_index);
        at[g] = g == 1 ? cc->offset_index_offset : cc->column_index_offset;
        len[g] = g == 1 ? cc->offset_index_length : cc->column_index_length;
    }
    hoodie_parquet_reader_free(r);
    FILE *fp = fopen(path, "r+b");
    hoodie_assert(fp != NULL);
    for (int g = 0; g < 3; g++) {
        hoodie_assert_equal_i(0, fseek(fp, (long)at[g], SEEK_SET));
        for (int64_t i = 0; i < len[g]; i++) fputc(g == 2 ? 0x29 : 0xfe, fp);
    }
    hoodie_assert_equal_i(0, fclose(fp));
    lk_check(path);
}
