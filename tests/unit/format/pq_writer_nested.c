/* Parquet writer, nested columns (lists, structs, maps, nulls and empty lists at every level), edge cases. */
#include <math.h>
#include "hoodie_test.h"
#include "batch_build.h"
#include "pq_duck.h"
#include "model/build.h"

static char g_dir[512];

static const char *tmp_path(const char *name)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static hoodie_field nested_schema(void)
{
    hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&s, bb_field("id", bb_t(HOODIE_TYPE_INT64), 0));
    bb_add(&s, bb_list("l", bb_field("item", bb_t(HOODIE_TYPE_INT32), 1), 1));
    hoodie_field st = bb_field("st", bb_t(HOODIE_TYPE_STRUCT), 1);
    bb_add(&st, bb_field("a", bb_t(HOODIE_TYPE_INT32), 1));
    bb_add(&st, bb_field("b", bb_t(HOODIE_TYPE_STRING), 1));
    bb_add(&s, st);
    hoodie_field el = bb_field("item", bb_t(HOODIE_TYPE_STRUCT), 1);
    bb_add(&el, bb_field("x", bb_t(HOODIE_TYPE_INT64), 0));
    bb_add(&el, bb_field("y", bb_t(HOODIE_TYPE_STRING), 1));
    bb_add(&s, bb_list("ls", el, 1));
    bb_add(&s, bb_map("m", bb_field("key", bb_t(HOODIE_TYPE_STRING), 0),
                      bb_list("value", bb_field("item", bb_t(HOODIE_TYPE_INT32), 1), 1), 1));
    bb_add(&s, bb_list("ll", bb_list("item", bb_field("item", bb_t(HOODIE_TYPE_STRING), 1), 1), 1));
    hoodie_field sl = bb_field("sl", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&sl, bb_list("inner", bb_field("item", bb_t(HOODIE_TYPE_INT32), 0), 1));
    bb_add(&s, sl);
    return s;
}

static void nested_row(hoodie_array *r, int64_t i)
{
    hoodie_array *c = r->children;
    int p = (int)(i % 4);
    int32_t k = (int32_t)i;
    char buf[32];
    bb_i64(&c[0], i);
    /* l */
    hoodie_array *li = &c[1].children[0];
    if (p == 0) { bb_i32(li, 1 + k); bb_i32(li, 2 + k); bb_i32(li, 3 + k); }
    if (p == 3) { bb_null(li, 4); bb_i32(li, 5 + k); }
    bb_list_end(&c[1], p != 2);
    /* st */
    hoodie_array *sa = &c[2].children[0], *sb = &c[2].children[1];
    if (p == 0) { bb_i32(sa, 1 + k); bb_str(sb, "x"); }
    if (p == 1) { bb_null(sa, 4); bb_str(sb, NULL); }
    if (p == 2) { bb_null(sa, 4); bb_str(sb, "y"); }
    if (p == 3) { bb_i32(sa, 4 + k); bb_str(sb, NULL); }
    bb_struct(&c[2], p != 1);
    /* ls */
    hoodie_array *le = &c[3].children[0];
    if (p == 0) {
        bb_i64(&le->children[0], 1 + i); bb_str(&le->children[1], "a"); bb_struct(le, 1);
        bb_i64(&le->children[0], 0); bb_str(&le->children[1], NULL); bb_struct(le, 0);
    }
    if (p == 3) { bb_i64(&le->children[0], 2 + i); bb_str(&le->children[1], NULL); bb_struct(le, 1); }
    bb_list_end(&c[3], p != 1);
    /* m */
    hoodie_array *ent = &c[4].children[0], *mk = &ent->children[0], *mv = &ent->children[1];
    if (p == 0) {
        snprintf(buf, sizeof buf, "k1_%d", k);
        bb_str(mk, buf); bb_i32(&mv->children[0], 1 + k); bb_list_end(mv, 1); bb_struct(ent, 1);
        bb_str(mk, "k2"); bb_list_end(mv, 0); bb_struct(ent, 1);
    }
    if (p == 3) { bb_str(mk, "k3"); bb_list_end(mv, 1); bb_struct(ent, 1); }
    bb_list_end(&c[4], p != 2);
    /* ll */
    hoodie_array *inner = &c[5].children[0], *str = &inner->children[0];
    if (p == 0) {
        snprintf(buf, sizeof buf, "a%d", k);
        bb_str(str, buf); bb_str(str, "b"); bb_list_end(inner, 1);
        bb_list_end(inner, 1);
    }
    if (p == 1) bb_list_end(inner, 0);
    if (p == 3) { bb_str(str, "c"); bb_str(str, NULL); bb_list_end(inner, 1); }
    bb_list_end(&c[5], p != 2);
    /* sl */
    hoodie_array *il = &c[6].children[0];
    if (p == 0) { bb_i32(&il->children[0], 7); bb_i32(&il->children[0], 8 + k); }
    if (p == 3) bb_i32(&il->children[0], 9);
    bb_list_end(il, p != 2);
    bb_struct(&c[6], 1);
    bb_struct(r, 1);
}

static void nested_batch(hoodie_array *root, const hoodie_field *schema, int64_t from, int64_t to)
{
    hoodie_assert_ok(hoodie_array_init(root, schema));
    for (int64_t i = from; i < to; i++) nested_row(root, i);
}

static const char NESTED_DESCRIBE[] =
    "column_name,column_type\n"
    "id,BIGINT\n"
    "l,INTEGER[]\n"
    "st,\"STRUCT(a INTEGER, b VARCHAR)\"\n"
    "ls,\"STRUCT(x BIGINT, y VARCHAR)[]\"\n"
    "m,\"MAP(VARCHAR, INTEGER[])\"\n"
    "ll,VARCHAR[][]\n"
    "sl,\"STRUCT(\"\"inner\"\" INTEGER[])\"\n";

static const char NESTED_ROWS[] =
    "id,l,st,ls,m,ll,sl\n"
    "0,\"[1, 2, 3]\",\"{'a': 1, 'b': x}\",\"[{'x': 1, 'y': a}, NULL]\",\"{k1_0=[1], k2=NULL}\",\"[[a0, b], []]\","
    "\"{'inner': [7, 8]}\"\n"
    "1,[],,,{},[NULL],{'inner': []}\n"
    "2,,\"{'a': NULL, 'b': y}\",[],,,{'inner': NULL}\n"
    "3,\"[NULL, 8]\",\"{'a': 7, 'b': NULL}\",\"[{'x': 5, 'y': NULL}]\",{k3=[]},\"[[c, NULL]]\",{'inner': [9]}\n"
    "4,\"[5, 6, 7]\",\"{'a': 5, 'b': x}\",\"[{'x': 5, 'y': a}, NULL]\",\"{k1_4=[5], k2=NULL}\",\"[[a4, b], []]\","
    "\"{'inner': [7, 12]}\"\n";

/* `sql` gives `files` lines "h,n" (a hash of a file's rows, their count): every hash the same, every n `count`. */
static void assert_same_hashes(const char *sql, const char *count, int files)
{
    char *out = pqd_duck("--csv", sql);
    hoodie_assert(out != NULL);
    char first[64] = "";
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (lines++ == 0) continue;
        char *cnt = strchr(line, ',');
        hoodie_assert(cnt != NULL);
        *cnt++ = 0;
        if (!first[0]) snprintf(first, sizeof first, "%s", line);
        hoodie_assert_equal_s(first, line);
        hoodie_assert_equal_s(count, cnt);
    }
    hoodie_assert_equal_i(files + 1, lines);
    free(out);
}

HOODIE_TEST(format_pqwrite__nested)
{
    snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir());
    hoodie_field s = nested_schema();
    hoodie_array b[3];
    nested_batch(&b[0], &s, 0, 5);
    nested_batch(&b[1], &s, 5, 500);
    nested_batch(&b[2], &s, 500, 1000);
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    const hoodie_array *one[1] = { &b[0] };
    const char *p = tmp_path("n.parquet");
    hoodie_assert_ok(pqd_write(p, &s, one, 1, &o));
    char q[8192];
    snprintf(q, sizeof q, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", p);
    char *out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s(NESTED_DESCRIBE, out);
    free(out);
    snprintf(q, sizeof q, "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('%s') ORDER BY id", p);
    out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s(NESTED_ROWS, out);
    free(out);
    snprintf(q, sizeof q, "SELECT string_agg(path_in_schema || ':' || stats_null_count || ':' || "
             "coalesce(stats_min_value, '-') || ':' || coalesce(stats_max_value, '-'), ' ' ORDER BY column_id) s "
             "FROM parquet_metadata('%s')", p);
    out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    /* null_count counts every level below max definition: nulls, empty and null lists, null parents */
    hoodie_assert_equal_s("s\n\"id:0:0:4 l, list, element:3:1:8 st, a:2:1:7 st, b:2:x:y ls, list, element, x:4:1:5 "
                          "ls, list, element, y:5:a:a m, key_value, key:2:k1_0:k3 m, key_value, value, list, element:5:1:5 "
                          "ll, list, element, list, element:5:a0:c sl, inner, list, element:2:7:12\"\n", out);
    free(out);

    /* the 1000 rows with every codec, page v1/v2, dictionary on/off/fallback, tiny pages and row groups */
    const hoodie_array *all[3] = { &b[0], &b[1], &b[2] };
    static const hoodie_pq_codec codecs[] = { HOODIE_PQ_UNCOMPRESSED, HOODIE_PQ_SNAPPY, HOODIE_PQ_GZIP, HOODIE_PQ_ZSTD,
                                              HOODIE_PQ_LZ4_RAW };
    hoodie_buf sql = HOODIE_BUF_INIT;
    int n = 0;
    for (int v = 0; v < 24; v++) {
        hoodie_pq_writer_opts_init(&o);
        o.codec = codecs[v % 5];
        o.data_page_v2 = (v / 2) % 2;
        o.dictionary = (v / 4) % 3 != 1;
        if ((v / 4) % 3 == 2) o.dictionary_limit = 50;
        if (v >= 12) { o.page_bytes = 40; o.row_group_rows = 33; }
        if (v == 23) o.value_encoding = HOODIE_PQ_DELTA_BYTE_ARRAY;
        char name[32];
        snprintf(name, sizeof name, "n%d.parquet", v);
        p = tmp_path(name);
        hoodie_assert_ok(pqd_write(p, &s, all, 3, &o));
        hoodie_assert_ok(hoodie_buf_printf(&sql, "%sSELECT md5(string_agg(t::VARCHAR, chr(10) ORDER BY id)) AS h, "
                                           "count(*) AS n FROM read_parquet('%s') t", n ? " UNION ALL " : "", p));
        n++;
    }
    /* reference: DuckDB's own copy of the first file, re-read */
    hoodie_assert_ok(hoodie_buf_cstr(&sql));
    assert_same_hashes((const char *)sql.data, "1000", n);
    /* row 997 (pattern 1) and 999 (pattern 3) of a small-page, small-row-group file */
    snprintf(q, sizeof q, "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('%s/n13.parquet') WHERE id IN (997, 999) "
             "ORDER BY id", g_dir);
    out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("id,l,st,ls,m,ll,sl\n997,[],,,{},[NULL],{'inner': []}\n"
                          "999,\"[NULL, 1004]\",\"{'a': 1003, 'b': NULL}\",\"[{'x': 1001, 'y': NULL}]\",{k3=[]},"
                          "\"[[c, NULL]]\",{'inner': [9]}\n", out);
    free(out);
    hoodie_buf_dispose(&sql);
    for (int i = 0; i < 3; i++) hoodie_array_dispose(&b[i]);
    hoodie_field_dispose(&s);
}

/* Zero rows (no row group), one row, and an all-null column. */
HOODIE_TEST(format_pqwrite__edge_files)
{
    snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir());
    hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&s, bb_field("a", bb_t(HOODIE_TYPE_INT32), 1));
    bb_add(&s, bb_field("n", bb_t(HOODIE_TYPE_NULL), 1));
    bb_add(&s, bb_field("f", bb_t(HOODIE_TYPE_DOUBLE), 1));
    hoodie_array empty, one, nulls;
    hoodie_assert_ok(hoodie_array_init(&empty, &s));
    hoodie_assert_ok(hoodie_array_init(&one, &s));
    bb_i32(&one.children[0], 42); bb_struct(&one.children[1], 0); bb_f64(&one.children[2], -0.0); bb_struct(&one, 1);
    hoodie_assert_ok(hoodie_array_init(&nulls, &s));
    double fv[4] = { NAN, 0.0, -0.0, NAN };
    for (int i = 0; i < 4; i++) {
        bb_null(&nulls.children[0], 4); bb_struct(&nulls.children[1], 0); bb_f64(&nulls.children[2], fv[i]);
        bb_struct(&nulls, 1);
    }
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    const hoodie_array *r0[1] = { &empty }, *r1[1] = { &one }, *r2[1] = { &nulls };
    const char *p0 = tmp_path("zero.parquet");
    hoodie_assert_ok(pqd_write(p0, &s, r0, 1, &o));
    hoodie_assert_ok(pqd_write(p0, &s, NULL, 0, &o));
    const char *p1 = tmp_path("one.parquet");
    hoodie_assert_ok(pqd_write(p1, &s, r1, 1, &o));
    const char *p2 = tmp_path("nulls.parquet");
    o.data_page_v2 = 1;
    hoodie_assert_ok(pqd_write(p2, &s, r2, 1, &o));
    char q[4096];
    snprintf(q, sizeof q, "SELECT (SELECT count(*) FROM read_parquet('%s')) z, (SELECT count(*) FROM "
             "parquet_metadata('%s')) zg, (SELECT a || '/' || coalesce(n::VARCHAR, 'null') || '/' || f FROM "
             "read_parquet('%s')) o, (SELECT count(a) || '/' || count(n) || '/' || count(f) FROM read_parquet('%s')) c, "
             "(SELECT stats_min_value || '/' || stats_max_value || '/' || stats_null_count FROM parquet_metadata('%s') "
             "WHERE path_in_schema = 'f') fs, (SELECT coalesce(stats_min_value, '-') || '/' || stats_null_count FROM "
             "parquet_metadata('%s') WHERE path_in_schema = 'a') an",
             p0, p0, p1, p2, p2, p2);
    char *out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("z,zg,o,c,fs,an\n0,0,42/null/-0.0,0/0/4,-0.0/0.0/0,-/4\n", out);
    free(out);
    hoodie_array_dispose(&empty); hoodie_array_dispose(&one); hoodie_array_dispose(&nulls);
    hoodie_field_dispose(&s);
}

/*
 * Files written by `write` (default options, then tiny pages and row groups) read in DuckDB as `g` (the same rows
 * gathered, written as usual): the same rows, in file order, `count` of them.
 */
typedef hoodie_status (*write_fn)(const char *path, const hoodie_pq_writer_opts *o, void *ctx);

static void assert_writes_as_gathered(const hoodie_field *s, const hoodie_array *g, const char *tag, write_fn write,
                                      void *ctx, const char *count)
{
    hoodie_buf sql = HOODIE_BUF_INIT;
    for (int v = 0; v < 2; v++) {
        hoodie_pq_writer_opts o;
        hoodie_pq_writer_opts_init(&o);
        if (v) { o.page_bytes = 40; o.row_group_rows = 33; }
        char a[48], b[48];
        snprintf(a, sizeof a, "%s%d.parquet", tag, v);
        snprintf(b, sizeof b, "%s%d.gathered.parquet", tag, v);
        const char *pa = tmp_path(a), *pb = tmp_path(b);
        hoodie_assert_ok(write(pa, &o, ctx));
        const hoodie_array *one[1] = { g };
        hoodie_assert_ok(pqd_write(pb, s, one, 1, &o));
        for (int k = 0; k < 2; k++)
            hoodie_assert_ok(hoodie_buf_printf(&sql, "%sSELECT md5(string_agg(t::VARCHAR, chr(10) ORDER BY "
                                               "file_row_number)) AS h, count(*) AS n FROM read_parquet('%s', "
                                               "file_row_number = true) t", sql.len ? " UNION ALL " : "", k ? pb : pa));
    }
    hoodie_assert_ok(hoodie_buf_cstr(&sql));
    assert_same_hashes((const char *)sql.data, count, 4);
    hoodie_buf_dispose(&sql);
}

/* hoodie_pq_writer_write_selected into `path`: the rows sel[i][..] of each top-level column (NULL: in order). */
static hoodie_status write_selected_file(const char *path, const hoodie_field *schema, const hoodie_array *root,
                                         const int64_t *const *sel, const hoodie_pq_writer_opts *o)
{
    FILE *f = fopen(path, "wb");
    if (!f) return HOODIE_FAIL(HOODIE_EIO, "cannot create %s", path);
    hoodie_pq_sink sink = { f, pqd_file_write };
    hoodie_pq_writer *w = NULL;
    hoodie_status rc = hoodie_pq_writer_open(&w, schema, o, sink);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_write_selected(w, root, sel);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_close(w);
    hoodie_pq_writer_free(w);
    if (fclose(f) != 0 && rc == HOODIE_OK) rc = HOODIE_FAIL(HOODIE_EIO, "fclose failed");
    return rc;
}

typedef struct sel_ctx { const hoodie_field *s; const hoodie_array *root; const int64_t *const *sel; } sel_ctx;

static hoodie_status write_sel(const char *path, const hoodie_pq_writer_opts *o, void *ctx)
{
    sel_ctx *c = ctx;
    return write_selected_file(path, c->s, c->root, c->sel, o);
}

/*
 * Columns written by row selection (lists, structs, maps and nulls; rows out of order and repeated; one column in
 * order) read back in DuckDB as the same rows gathered into a batch first and written as usual, with default and
 * with tiny pages and row groups; a selection past a column's end is refused.
 */
HOODIE_TEST(format_pqwrite__selected_rows)
{
    snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir());
    hoodie_field s = nested_schema();
    hoodie_array src;
    nested_batch(&src, &s, 0, 1000);
    enum { N = 700 };
    int64_t *rows = malloc(N * sizeof *rows), *inorder = malloc(N * sizeof *inorder);
    for (int64_t k = 0; k < N; k++) {
        rows[k] = k % 50 == 0 && k ? rows[k - 1] : (k * 37 + 11) % 1000;
        inorder[k] = k;
    }
    const int64_t *sel[16];
    hoodie_assert(s.n_children <= 16);
    for (size_t c = 0; c < s.n_children; c++) sel[c] = c == 2 ? NULL : rows; /* "st" in order */
    /* the reference: the same rows gathered, column by column */
    hoodie_array g;
    hoodie_assert_ok(hoodie_array_init(&g, &s));
    for (size_t c = 0; c < s.n_children; c++)
        hoodie_assert_ok(hoodie_array_take(&g.children[c], &s.children[c], &src.children[c], sel[c] ? sel[c] : inorder, N));
    g.length = N;
    hoodie_array view = src;
    view.length = N;
    sel_ctx sc = { &s, &view, sel };
    assert_writes_as_gathered(&s, &g, "sel", write_sel, &sc, "700");
    /* a row past the end of a column */
    rows[N - 1] = 1000;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    hoodie_assert_equal_i(HOODIE_EINVAL, write_selected_file(tmp_path("bad.parquet"), &s, &view, sel, &o));
    hoodie_assert(strstr(hoodie_error_last()->message, "1000 rows, wanted 1001") != NULL);
    hoodie_error_clear();
    hoodie_array_dispose(&g);
    hoodie_array_dispose(&src);
    hoodie_field_dispose(&s);
    free(rows);
    free(inorder);
}

typedef struct refs_ctx {
    const hoodie_field *s;
    const hoodie_array *const *roots;
    const hoodie_row_ref *refs;
    int64_t n;
    const char *constant; /* top-level column 2's value in every row (hoodie_pq_writer_set_constant), or NULL */
    const hoodie_array *tail; /* written after the refs (hoodie_pq_writer_write_array), or NULL */
} refs_ctx;

/* The rows of c->refs in two calls of hoodie_pq_writer_write_refs (then c->tail). */
static hoodie_status write_refs_file(const char *path, const hoodie_pq_writer_opts *o, void *ctx)
{
    refs_ctx *c = ctx;
    FILE *f = fopen(path, "wb");
    if (!f) return HOODIE_FAIL(HOODIE_EIO, "cannot create %s", path);
    hoodie_pq_sink sink = { f, pqd_file_write };
    hoodie_pq_writer *w = NULL;
    hoodie_status rc = hoodie_pq_writer_open(&w, c->s, o, sink);
    if (rc == HOODIE_OK && c->constant) rc = hoodie_pq_writer_set_constant(w, 2, c->constant, strlen(c->constant));
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_write_refs(w, c->roots, 2, c->refs, c->n / 2, NULL);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_write_refs(w, c->roots, 2, c->refs + c->n / 2, c->n - c->n / 2, NULL);
    if (rc == HOODIE_OK && c->tail) rc = hoodie_pq_writer_write_array(w, c->tail);
    if (rc == HOODIE_OK) rc = hoodie_pq_writer_close(w);
    hoodie_pq_writer_free(w);
    if (fclose(f) != 0 && rc == HOODIE_OK) rc = HOODIE_FAIL(HOODIE_EIO, "fclose failed");
    return rc;
}

/*
 * Rows referenced in two sources (hoodie_pq_writer_write_refs: a merge's old rows with new ones in between, some
 * dropped, some repeated) read back in DuckDB as the same rows gathered first (hoodie_array_take_multi) and
 * written as usual, with default and with tiny pages and row groups; a reference past a source is refused.
 */
HOODIE_TEST(format_pqwrite__referenced_rows)
{
    snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir());
    hoodie_field s = nested_schema();
    hoodie_array a, b;
    nested_batch(&a, &s, 0, 1000);
    nested_batch(&b, &s, 1000, 1200);
    enum { N = 900 };
    hoodie_row_ref *refs = malloc(N * sizeof *refs);
    for (int64_t k = 0; k < N; k++) {
        refs[k].source = k % 7 == 3 ? 1 : 0;
        refs[k].row = refs[k].source ? (k * 13) % 200 : (k % 40 == 0 && k ? refs[k - 1].row : (k * 11) % 1000);
    }
    const hoodie_array *roots[2] = { &a, &b };
    hoodie_array g;
    hoodie_assert_ok(hoodie_array_init(&g, &s));
    for (size_t c = 0; c < s.n_children; c++) {
        const hoodie_array *from[2] = { &a.children[c], &b.children[c] };
        hoodie_assert_ok(hoodie_array_take_multi(&g.children[c], &s.children[c], from, 2, refs, N));
    }
    g.length = N;
    refs_ctx rc = { &s, roots, refs, N, NULL, NULL };
    assert_writes_as_gathered(&s, &g, "refs", write_refs_file, &rc, "900");
    /* a row past the end of source 1 */
    refs[3].row = 200;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    FILE *f = fopen(tmp_path("badref.parquet"), "wb");
    hoodie_pq_sink sink = { f, pqd_file_write };
    hoodie_pq_writer *w = NULL;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &s, &o, sink));
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_write_refs(w, roots, 2, refs, N, NULL));
    hoodie_assert(strstr(hoodie_error_last()->message, "200 rows, wanted 201") != NULL);
    hoodie_error_clear();
    refs[3].row = 5;
    refs[3].source = 2;
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_write_refs(w, roots, 2, refs, N, NULL));
    hoodie_error_clear();
    hoodie_pq_writer_free(w);
    fclose(f);
    hoodie_array_dispose(&g);
    hoodie_array_dispose(&a);
    hoodie_array_dispose(&b);
    hoodie_field_dispose(&s);
    free(refs);
}

/* Rows of a flat table: id, a nullable name, and a `fname` column holding values the constant must override. */
static void flat_batch(hoodie_array *root, const hoodie_field *s, int64_t from, int64_t to, int with_fname)
{
    hoodie_assert_ok(hoodie_array_init(root, s));
    char buf[32];
    for (int64_t i = from; i < to; i++) {
        bb_i64(&root->children[0], i);
        snprintf(buf, sizeof buf, "n%lld", (long long)i);
        bb_str(&root->children[1], i % 5 == 2 ? NULL : buf);
        if (with_fname) bb_str(&root->children[2], i % 3 ? "old-name" : NULL);
        bb_struct(root, 1);
    }
}

/*
 * A constant column (hoodie_pq_writer_set_constant: Hudi's _hoodie_file_name, the same in every row of a base
 * file): written from referenced rows of two sources, one of which has no values for it at all, and from a whole
 * batch, it reads back in DuckDB as the rows gathered with the value repeated, with default and with tiny pages
 * and row groups. Columns that are not flat strings are refused, naming the column.
 */
HOODIE_TEST(format_pqwrite__constant_column)
{
    snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir());
    hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&s, bb_field("id", bb_t(HOODIE_TYPE_INT64), 0));
    bb_add(&s, bb_field("name", bb_t(HOODIE_TYPE_STRING), 1));
    bb_add(&s, bb_field("fname", bb_t(HOODIE_TYPE_STRING), 1));
    hoodie_array a, b;
    flat_batch(&a, &s, 0, 1000, 1);
    flat_batch(&b, &s, 1000, 1300, 0); /* fname: no values */
    enum { N = 900 };
    hoodie_row_ref *refs = malloc(N * sizeof *refs);
    for (int64_t k = 0; k < N; k++) {
        refs[k].source = k % 9 == 4 ? 1 : 0;
        refs[k].row = refs[k].source ? (k * 7) % 300 : (k * 11) % 1000;
    }
    const hoodie_array *roots[2] = { &a, &b };
    /* the reference: the rows, then b's, gathered with the name repeated */
    hoodie_array g;
    hoodie_assert_ok(hoodie_array_init(&g, &s));
    for (int64_t k = 0; k < N + 300; k++) {
        const hoodie_array *src = k < N ? roots[refs[k].source] : &b;
        int64_t r = k < N ? refs[k].row : k - N;
        const hoodie_array *nm = &src->children[1];
        bb_i64(&g.children[0], ((const int64_t *)(const void *)src->children[0].values)[r]);
        if (hoodie_array_is_valid(nm, r)) {
            char buf[32];
            int l = nm->offsets[r + 1] - nm->offsets[r];
            snprintf(buf, sizeof buf, "%.*s", l, (const char *)nm->values + nm->offsets[r]);
            bb_str(&g.children[1], buf);
        } else {
            bb_str(&g.children[1], NULL);
        }
        bb_str(&g.children[2], "f1-0_1-2-3_20260101000000000.parquet");
        bb_struct(&g, 1);
    }
    refs_ctx cc = { &s, roots, refs, N, "f1-0_1-2-3_20260101000000000.parquet", &b };
    assert_writes_as_gathered(&s, &g, "const", write_refs_file, &cc, "1200");
    /* not a flat string column: refused */
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    FILE *f = fopen(tmp_path("badconst.parquet"), "wb");
    hoodie_pq_sink sink = { f, pqd_file_write };
    hoodie_pq_writer *w = NULL;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &s, &o, sink));
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_set_constant(w, 0, "x", 1));
    hoodie_assert(strstr(hoodie_error_last()->message, "'id'") != NULL);
    hoodie_error_clear();
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_set_constant(w, 3, "x", 1));
    hoodie_error_clear();
    hoodie_pq_writer_free(w);
    fclose(f);
    hoodie_field ns = nested_schema();
    f = fopen(tmp_path("badconst2.parquet"), "wb");
    sink.ctx = f;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &ns, &o, sink));
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_set_constant(w, 2, "x", 1)); /* st: a struct */
    hoodie_assert(strstr(hoodie_error_last()->message, "'st'") != NULL);
    hoodie_error_clear();
    hoodie_pq_writer_free(w);
    fclose(f);
    hoodie_field_dispose(&ns);
    hoodie_array_dispose(&g);
    hoodie_array_dispose(&a);
    hoodie_array_dispose(&b);
    hoodie_field_dispose(&s);
    free(refs);
}
