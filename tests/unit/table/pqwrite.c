/* table/pqwrite: Parquet files on a hoodie_storage (public options mapped), read back by DuckDB; I/O faults. */
#include "hoodie_test.h"
#include "../format/batch_build.h"
#include "../format/pq_duck.h"
#include "storage/storage.h"
#include "table/pqwrite.h"

static hoodie_field small_schema(void)
{
    hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&s, bb_field("k", bb_t(HOODIE_TYPE_STRING), 0));
    bb_add(&s, bb_field("v", bb_t(HOODIE_TYPE_INT64), 1));
    return s;
}

static void small_batch(hoodie_batch *b, const hoodie_field *s, int n)
{
    hoodie_assert_ok(hoodie_batch_init(b, s));
    char buf[32];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "key%d", i);
        bb_str(&b->root.children[0], buf);
        if (i % 3) bb_i64(&b->root.children[1], (int64_t)i * 10); else bb_null(&b->root.children[1], 8);
        bb_struct(&b->root, 1);
    }
}

HOODIE_TEST(table_pqwrite__posix_public_opts)
{
    hoodie_field s = small_schema();
    hoodie_batch b;
    small_batch(&b, &s, 100);
    char path[600];
    snprintf(path, sizeof path, "%s/sub/f.parquet", hoodie_test_tmpdir());
    hoodie_parquet_write_opts o = HOODIE_PARQUET_WRITE_OPTS_INIT;
    const char *keys[] = { "hoodie_min_record_key", "empty" }, *vals[] = { "key0", NULL };
    o.codec = HOODIE_PARQUET_CODEC_ZSTD;
    o.row_group_rows = 40;
    o.kv_keys = keys;
    o.kv_values = vals;
    o.n_kv = 2;
    o.create_flags = HOODIE_CREATE_EXCLUSIVE;
    hoodie_pqwrite *w;
    hoodie_assert_ok(hoodie_pqwrite_open(&w, path, NULL, &s, &o));
    hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &b));
    hoodie_assert_ok(hoodie_pqwrite_close(w));
    hoodie_assert_equal_i(100, hoodie_pqwrite_rows(w));
    hoodie_pqwrite_free(w);
    char q[4096];
    snprintf(q, sizeof q, "SELECT (SELECT count(*) || '/' || count(v) || '/' || sum(v) FROM read_parquet('%s')) a, "
             "(SELECT count(DISTINCT row_group_id) || '/' || min(compression) FROM parquet_metadata('%s')) g, "
             "(SELECT string_agg(decode(key) || '=' || coalesce(decode(value), '~'), ';' ORDER BY key) FROM "
             "parquet_kv_metadata('%s')) kv, (SELECT created_by FROM parquet_file_metadata('%s')) cb",
             path, path, path, path);
    char *out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("a,g,kv,cb\n100/66/32670,3/ZSTD,empty=;hoodie_min_record_key=key0,hoodie version 0.1.0\n",
                          out);
    free(out);
    /* exclusive create: the second file fails (at open or, for atomic backends, at close) */
    hoodie_status rc = hoodie_pqwrite_open(&w, path, NULL, &s, &o);
    if (rc == HOODIE_OK) {
        hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &b));
        rc = hoodie_pqwrite_close(w);
        hoodie_pqwrite_free(w);
    }
    hoodie_assert_equal_i(HOODIE_EEXISTS, rc);
    o.version = 99;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_pqwrite_open(&w, path, NULL, &s, &o));
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&s);
}

HOODIE_TEST(table_pqwrite__mem_and_faults)
{
    hoodie_field s = small_schema();
    hoodie_batch b;
    small_batch(&b, &s, 50);
    hoodie_storage *mem, *faulty;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_storage_faulty_new(&faulty, mem));
    hoodie_pqwrite *w;
    hoodie_assert_ok(hoodie_pqwrite_open(&w, "t/a.parquet", mem, &s, NULL));
    hoodie_assert_ok(hoodie_pqwrite_write_batch(w, &b));
    hoodie_assert_ok(hoodie_pqwrite_close(w));
    uint64_t size = hoodie_pqwrite_size(w);
    hoodie_pqwrite_free(w);
    hoodie_buf f = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(mem, "t/a.parquet", &f));
    hoodie_assert_equal_i(size, f.len);
    hoodie_assert(f.len > 12 && memcmp(f.data, "PAR1", 4) == 0 && memcmp(f.data + f.len - 4, "PAR1", 4) == 0);
    uint32_t flen;
    memcpy(&flen, f.data + f.len - 8, 4);
    hoodie_assert(flen > 0 && flen < f.len - 12);
    hoodie_buf_dispose(&f);
    /* every write failing in turn: an error, and nothing visible */
    for (uint64_t n = 1; n < 12; n++) {
        hoodie_storage_faulty_arm(faulty, HOODIE_FAULT_FAIL_NTH, n);
        hoodie_status rc = hoodie_pqwrite_open(&w, "t/b.parquet", faulty, &s, NULL);
        if (rc == HOODIE_OK) rc = hoodie_pqwrite_write_batch(w, &b);
        if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(w);
        hoodie_pqwrite_free(w);
        w = NULL;
        if (!hoodie_storage_faulty_fired(faulty)) { hoodie_assert_ok(rc); break; }
        hoodie_assert(rc < 0);
        hoodie_assert_equal_i(0, mem->exists(mem->ctx, "t/b.parquet"));
    }
    hoodie_storage_free(faulty);
    hoodie_storage_free(mem);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&s);
}
