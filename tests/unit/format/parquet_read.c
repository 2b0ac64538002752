/* Parquet reader on real files: the Hudi fixtures, and files DuckDB writes compared value by value. */
#include "pq_support.h"

#include <sys/stat.h>

/* ---- Hudi fixtures: every file opens and scans fully with the footer's row count ---- */

HOODIE_TEST(format_parquet__hudi_fixtures_scan)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.parquet' -size +0 | sort", hoodie_fixture("hudi"));
    FILE *fp = popen(cmd, "r");
    hoodie_assert(fp != NULL);
    char line[4096];
    int files = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        size_t len;
        uint8_t *data = pqt_load(line, &len);
        hoodie_assert(data != NULL);
        pqt_mem m = { data, len };
        hoodie_pq_source src = { &m, pqt_mem_read, len, line, NULL };
        hoodie_pq_file *f;
        hoodie_pq_scan *s;
        hoodie_batch b;
        hoodie_status rc;
        int64_t rows = 0;
        hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
        hoodie_pq_scan_opts o = { 0 };
        o.batch_rows = 1000;
        hoodie_assert_ok(hoodie_pq_scan_open(&s, f, &o));
        while ((rc = hoodie_pq_scan_next(s, &b)) == HOODIE_OK) {
            hoodie_assert_equal_i(hoodie_pq_file_schema(f)->root.n_children, b.root.n_children);
            rows += b.root.length;
            hoodie_batch_dispose(&b);
        }
        hoodie_assert_status(HOODIE_ITEROVER, rc);
        hoodie_assert_equal_i(hoodie_pq_file_metadata(f)->num_rows, rows);
        hoodie_pq_scan_free(s);
        hoodie_pq_file_free(f);
        free(data);
        files++;
    }
    pclose(fp);
    hoodie_assert(files >= 10);
}

/* ---- DuckDB-written files ---- */

static const char *g_types_table =
    "CREATE TABLE t AS SELECT i::INTEGER AS id,"
    " CASE WHEN i%7=0 THEN NULL ELSE i END::INTEGER AS i32,"
    " (i*1000003)::BIGINT AS i64, (i%100 - 50)::TINYINT AS i8, (i%1000 - 500)::SMALLINT AS i16,"
    " (i%200)::UTINYINT AS u8, (i%60000)::USMALLINT AS u16, (i*7)::UINTEGER AS u32, (i*11)::UBIGINT AS u64,"
    " (i%2=0) AS b, CASE WHEN i%5=0 THEN NULL ELSE i%3=0 END AS bn,"
    " (i/4.0)::FLOAT AS f, CASE WHEN i%9=0 THEN NULL ELSE (i/8.0)::DOUBLE END AS d,"
    " CASE WHEN i%3=0 THEN NULL ELSE 'str' || (i%50) END AS s, 'v' || i || repeat('x', i%5) AS sp,"
    " (i*1.25)::DECIMAL(9,2) AS dec9, (i*123.456 - 1000)::DECIMAL(18,3) AS dec18,"
    " (i*-12345678.9)::DECIMAL(30,1) AS dec30,"
    " DATE '2020-01-01' + i::INTEGER AS dt, TIMESTAMP '2020-01-01 00:00:00' + i * INTERVAL 1 SECOND AS ts,"
    " TIMESTAMPTZ '2021-06-01 00:00:00+00' + i * INTERVAL 1 MINUTE AS tstz,"
    " TIME '01:02:03' + i * INTERVAL 1 SECOND AS tm,"
    " ('00000000-0000-0000-0000-' || lpad(i::VARCHAR, 12, '0'))::UUID AS u,"
    " ('ab' || i)::BLOB AS bl,"
    " CASE WHEN i%4=0 THEN NULL ELSE [i, NULL, i+1] END AS li,"
    " list_transform(range(i%4), x -> 's' || x) AS ls,"
    " {'a': i, 'b': 'x' || (i%3), 'c': [i, i]} AS st,"
    " CASE WHEN i%6=0 THEN NULL ELSE {'p': CASE WHEN i%4=0 THEN NULL ELSE i END} END AS stn,"
    " MAP(['k' || (i%3), 'z'], [i, NULL]) AS m,"
    " [{'x': i, 'y': [i, i+1]}, NULL] AS lst,"
    " CASE WHEN i%5=1 THEN NULL ELSE MAP(['a'], [[{'q': i}, {'q': NULL}]]) END AS mls,"
    " [[i], [], NULL] AS ll"
    " FROM range(3000) r(i)";

static const char *g_types_exprs =
    "coalesce(id::VARCHAR,'NULL'), coalesce(i32::VARCHAR,'NULL'), coalesce(i64::VARCHAR,'NULL'),"
    " coalesce(i8::VARCHAR,'NULL'), coalesce(i16::VARCHAR,'NULL'), coalesce(u8::VARCHAR,'NULL'),"
    " coalesce(u16::VARCHAR,'NULL'), coalesce(u32::VARCHAR,'NULL'), coalesce(u64::VARCHAR,'NULL'),"
    " coalesce(b::VARCHAR,'NULL'), coalesce(bn::VARCHAR,'NULL'), coalesce(printf('%.3f', f),'NULL'),"
    " coalesce(printf('%.3f', d),'NULL'), coalesce(s,'NULL'), coalesce(sp,'NULL'), coalesce(dec9::VARCHAR,'NULL'),"
    " coalesce(dec18::VARCHAR,'NULL'), coalesce(dec30::VARCHAR,'NULL'),"
    " coalesce((dt - DATE '1970-01-01')::VARCHAR,'NULL'), coalesce(epoch_us(ts)::VARCHAR,'NULL'),"
    " coalesce(epoch_us(tstz)::VARCHAR,'NULL'), coalesce(epoch_us(DATE '1970-01-01' + tm)::VARCHAR,'NULL'),"
    " coalesce(u::VARCHAR,'NULL'), coalesce(hex(bl),'NULL'), coalesce(li::VARCHAR,'NULL'),"
    " coalesce(ls::VARCHAR,'NULL'), coalesce(st::VARCHAR,'NULL'), coalesce(stn::VARCHAR,'NULL'),"
    " coalesce(m::VARCHAR,'NULL'), coalesce(lst::VARCHAR,'NULL'), coalesce(mls::VARCHAR,'NULL'),"
    " coalesce(ll::VARCHAR,'NULL')";

static void check_file_against_duckdb(const char *path, const char *exprs, const hoodie_pq_scan_opts *opts)
{
    hoodie_buf mine = HOODIE_BUF_INIT, duck = HOODIE_BUF_INIT;
    char *sql = malloc(strlen(exprs) + strlen(path) + 256);
    sprintf(sql, "SELECT concat_ws('|', %s) AS r FROM read_parquet('%s')", exprs, path);
    hoodie_assert_equal_i(0, pqt_duck(sql, &duck));
    free(sql);
    int64_t rows = 0;
    hoodie_assert_ok(pqt_scan_text(path, opts, &mine, &rows, NULL));
    if (mine.len != duck.len || memcmp(mine.data, duck.data, mine.len) != 0) {
        /* Show the first differing line. */
        const char *a = (const char *)mine.data, *b = (const char *)duck.data;
        int line = 1;
        while (*a && *a == *b) { if (*a == '\n') line++; a++; b++; }
        while (a > (const char *)mine.data && a[-1] != '\n') a--;
        while (b > (const char *)duck.data && b[-1] != '\n') b--;
        fprintf(stderr, "%s line %d:\n  mine: %.*s\n  duck: %.*s\n", path, line, (int)strcspn(a, "\n"), a,
                (int)strcspn(b, "\n"), b);
    }
    hoodie_assert(mine.len == duck.len && memcmp(mine.data, duck.data, mine.len) == 0);
    hoodie_buf_dispose(&mine);
    hoodie_buf_dispose(&duck);
}

static const char *g_dir;

static const char *types_dir(void)
{
    static char dir[4096];
    if (g_dir) return g_dir;
    snprintf(dir, sizeof dir, "%s/pqread-types", HOODIE_BINARY_DIR);
    mkdir(dir, 0755);
    /* Generate once per build directory (DuckDB is slow to start). */
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/zstd_v2.parquet", dir);
    struct stat st;
    if (stat(probe, &st) != 0) {
        hoodie_buf sql = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
        hoodie_buf_append_str(&sql, g_types_table);
        static const char *variants[][2] = {
            { "snappy_v1", "CODEC 'snappy', ROW_GROUP_SIZE 1000" },
            { "gzip_v1", "CODEC 'gzip'" },
            { "zstd_v2", "CODEC 'zstd', PARQUET_VERSION v2, ROW_GROUP_SIZE 1200" },
            { "lz4_v1", "CODEC 'lz4_raw'" },
            { "none_v2", "CODEC 'uncompressed', PARQUET_VERSION v2" },
            { "none_v1", "CODEC 'uncompressed'" },
            { "snappy_v2", "CODEC 'snappy', PARQUET_VERSION v2, ROW_GROUP_SIZE 700" },
        };
        for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
            hoodie_buf_printf(&sql, "; COPY t TO '%s/%s.parquet' (FORMAT parquet, %s)", dir, variants[i][0],
                              variants[i][1]);
        hoodie_buf_printf(&sql, "; COPY (SELECT * FROM t WHERE id = 5) TO '%s/one.parquet' (FORMAT parquet)", dir);
        hoodie_buf_printf(&sql, "; COPY (SELECT * FROM t WHERE id < 0) TO '%s/empty.parquet' (FORMAT parquet)", dir);
        hoodie_buf_append_str(&sql, "; SELECT 'ok' AS r");
        hoodie_buf_cstr(&sql);
        hoodie_assert_equal_i(0, pqt_duck((const char *)sql.data, &out));
        hoodie_buf_dispose(&sql);
        hoodie_buf_dispose(&out);
    }
    g_dir = dir;
    return dir;
}

static void check_variant(const char *name, int64_t batch_rows)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.parquet", types_dir(), name);
    hoodie_pq_scan_opts o = { 0 };
    o.batch_rows = batch_rows;
    check_file_against_duckdb(path, g_types_exprs, &o);
}

HOODIE_TEST(format_parquet__duckdb_snappy_v1) { check_variant("snappy_v1", 0); }
HOODIE_TEST(format_parquet__duckdb_gzip_v1) { check_variant("gzip_v1", 333); }
HOODIE_TEST(format_parquet__duckdb_zstd_v2) { check_variant("zstd_v2", 0); }
HOODIE_TEST(format_parquet__duckdb_lz4_raw) { check_variant("lz4_v1", 1); }
HOODIE_TEST(format_parquet__duckdb_uncompressed_v2) { check_variant("none_v2", 500); }
HOODIE_TEST(format_parquet__duckdb_uncompressed_v1) { check_variant("none_v1", 4096); }
HOODIE_TEST(format_parquet__duckdb_snappy_v2_small_groups) { check_variant("snappy_v2", 256); }
HOODIE_TEST(format_parquet__duckdb_one_row) { check_variant("one", 0); }

HOODIE_TEST(format_parquet__duckdb_empty)
{
    char path[4200];
    hoodie_buf out = HOODIE_BUF_INIT;
    int64_t rows = -1;
    snprintf(path, sizeof path, "%s/empty.parquet", types_dir());
    hoodie_assert_ok(pqt_scan_text(path, NULL, &out, &rows, NULL));
    hoodie_assert_equal_i(0, rows);
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(format_parquet__batches_respect_limit)
{
    char path[4200];
    size_t len;
    snprintf(path, sizeof path, "%s/snappy_v2.parquet", types_dir());
    uint8_t *data = pqt_load(path, &len);
    hoodie_assert(data != NULL);
    pqt_mem m = { data, len };
    hoodie_pq_source src = { &m, pqt_mem_read, len, path, NULL };
    hoodie_pq_file *f;
    hoodie_pq_scan *s;
    hoodie_batch b;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    const hoodie_pq_file_meta *meta = hoodie_pq_file_metadata(f);
    int64_t want_batches = 0;
    hoodie_assert(meta->row_group_count > 1);
    for (uint32_t i = 0; i < meta->row_group_count; i++) want_batches += (meta->row_groups[i].num_rows + 699) / 700;
    hoodie_pq_scan_opts o = { 0 };
    o.batch_rows = 700;
    hoodie_assert_ok(hoodie_pq_scan_open(&s, f, &o));
    int64_t batches = 0, rows = 0;
    while (hoodie_pq_scan_next(s, &b) == HOODIE_OK) {
        hoodie_assert(b.root.length <= 700 && b.root.length > 0);
        rows += b.root.length;
        batches++;
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(3000, rows);
    hoodie_assert_equal_i(want_batches, batches);
    hoodie_pq_scan_free(s);

    /* Row-group selection: only the last group. */
    uint32_t last = meta->row_group_count - 1;
    o.row_groups = &last;
    o.n_row_groups = 1;
    hoodie_assert_ok(hoodie_pq_scan_open(&s, f, &o));
    rows = 0;
    while (hoodie_pq_scan_next(s, &b) == HOODIE_OK) { rows += b.root.length; hoodie_batch_dispose(&b); }
    hoodie_assert_equal_i(meta->row_groups[last].num_rows, rows);
    hoodie_pq_scan_free(s);
    uint32_t bad = meta->row_group_count;
    o.row_groups = &bad;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_pq_scan_open(&s, f, &o));
    hoodie_pq_file_free(f);
    free(data);
}

HOODIE_TEST(format_parquet__projection_nested_paths)
{
    char path[4200];
    hoodie_buf mine = HOODIE_BUF_INIT, duck = HOODIE_BUF_INIT;
    static const char *cols[] = { "st.c", "id", "stn.p", "st.a" };
    hoodie_pq_scan_opts o = { 0 };
    o.columns = cols;
    o.n_columns = 4;
    snprintf(path, sizeof path, "%s/zstd_v2.parquet", types_dir());
    hoodie_assert_ok(pqt_scan_text(path, &o, &mine, NULL, NULL));
    char sql[4400];
    snprintf(sql, sizeof sql, "SELECT concat_ws('|', {'a': st.a, 'c': st.c}::VARCHAR, id::VARCHAR,"
             " coalesce(CASE WHEN stn IS NULL THEN NULL ELSE {'p': stn.p} END::VARCHAR, 'NULL')) AS r"
             " FROM read_parquet('%s')", path);
    hoodie_assert_equal_i(0, pqt_duck(sql, &duck));
    hoodie_assert(mine.len == duck.len && memcmp(mine.data, duck.data, mine.len) == 0);
    hoodie_buf_dispose(&mine);
    hoodie_buf_dispose(&duck);
    static const char *bad[] = { "nope" };
    o.columns = bad;
    o.n_columns = 1;
    hoodie_assert_status(HOODIE_EINVAL, pqt_scan_text(path, &o, &mine, NULL, NULL));
    hoodie_buf_dispose(&mine);
}

HOODIE_TEST(format_parquet__statistics_pruning)
{
    char path[4200];
    size_t len;
    snprintf(path, sizeof path, "%s/snappy_v2.parquet", types_dir());
    uint8_t *data = pqt_load(path, &len);
    hoodie_assert(data != NULL);
    pqt_mem m = { data, len };
    hoodie_pq_source src = { &m, pqt_mem_read, len, path, NULL };
    hoodie_pq_file *f;
    hoodie_assert_ok(hoodie_pq_file_open(&f, &src));
    const hoodie_pq_schema *s = hoodie_pq_file_schema(f);
    const hoodie_pq_file_meta *meta = hoodie_pq_file_metadata(f);
    int id = hoodie_pq_schema_find_leaf(s, "id"), str = hoodie_pq_schema_find_leaf(s, "s");
    int i32 = hoodie_pq_schema_find_leaf(s, "i32"), dec = hoodie_pq_schema_find_leaf(s, "dec18");
    hoodie_assert(id >= 0 && str >= 0 && i32 >= 0 && dec >= 0);
    hoodie_assert_equal_i(-1, hoodie_pq_schema_find_leaf(s, "nope"));
    hoodie_pq_column_stats st;
    hoodie_assert_ok(hoodie_pq_row_group_stats(f, 0, id, &st));
    hoodie_assert(st.has_min && st.has_max);
    hoodie_assert_equal_i(HOODIE_PQ_VAL_I64, st.min.kind);
    hoodie_assert_equal_i(0, st.min.i);
    hoodie_assert_equal_i(meta->row_groups[0].num_rows - 1, st.max.i);
    hoodie_assert_ok(hoodie_pq_row_group_stats(f, 0, i32, &st));
    hoodie_assert(st.has_null_count && st.null_count > 0);
    /* id = 5 only in row group 0; id >= 2990 only in the last */
    hoodie_pq_value v = { 0 };
    v.kind = HOODIE_PQ_VAL_I64;
    v.i = 5;
    hoodie_pq_pred eq = { HOODIE_PQ_OP_EQ, &v, 1 };
    uint32_t last = meta->row_group_count - 1;
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, 0, id, &eq));
    hoodie_assert_equal_i(0, hoodie_pq_row_group_may_match(f, last, id, &eq));
    hoodie_pq_value big = v;
    big.i = 2990;
    hoodie_pq_pred ge = { HOODIE_PQ_OP_GE, &big, 1 }, lt = { HOODIE_PQ_OP_LT, &big, 1 };
    hoodie_assert_equal_i(0, hoodie_pq_row_group_may_match(f, 0, id, &ge));
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, last, id, &ge));
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, 0, id, &lt));
    hoodie_pq_value in[2] = { big, v };
    hoodie_pq_pred pin = { HOODIE_PQ_OP_IN, in, 2 };
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, 0, id, &pin));
    hoodie_pq_pred isnull = { HOODIE_PQ_OP_IS_NULL, NULL, 0 }, notnull = { HOODIE_PQ_OP_IS_NOT_NULL, NULL, 0 };
    hoodie_assert_equal_i(0, hoodie_pq_row_group_may_match(f, 0, id, &isnull));
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, 0, i32, &isnull));
    hoodie_assert_equal_i(1, hoodie_pq_row_group_may_match(f, 0, id, &notnull));
    /* strings: unsigned byte order; "zzz" is above every "strNN" */
    hoodie_pq_value sv = { 0 };
    sv.kind = HOODIE_PQ_VAL_BYTES;
    sv.bytes = (const uint8_t *)"zzz";
    sv.len = 3;
    hoodie_pq_pred seq = { HOODIE_PQ_OP_EQ, &sv, 1 };
    hoodie_assert_equal_i(0, hoodie_pq_row_group_may_match(f, 0, str, &seq));
    /* decimal statistics decode to the unscaled value */
    hoodie_assert_ok(hoodie_pq_row_group_stats(f, 0, dec, &st));
    hoodie_assert(st.has_min);
    char tb[64];
    hoodie_assert_equal_s("-1000.000", hoodie_pq_value_text(&st.min, 3, tb, sizeof tb));
    hoodie_pq_file_free(f);
    free(data);
}
