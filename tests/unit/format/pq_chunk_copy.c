/* Row groups written with column chunks copied from another file (hoodie_pq_writer_write_row_group): the copies
 * are the source's bytes, the file reads back with the copied values, its page index locates rows in the copied
 * pages, DuckDB reads it; a chunk of another type or row count is refused. */
#include "hoodie_test.h"
#include "pq_duck.h"
#include "pq_support.h"
#include "format/parquet/writer.h"
#include "model/build.h"

#define CC_ROWS 2500
#define CC_RG_ROWS 1000

static hoodie_status cc_sink(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

/* k (required string, sorted), v (optional int64), n (optional string, null in rows 300..499) */
static void cc_schema(hoodie_field *root)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(root, "schema", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "k", hoodie_type_of(HOODIE_TYPE_STRING), 0));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "v", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "n", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
}

/* rows [r0, r1): v = row * mul; only the columns in `which` ("kvn" subset) are filled (the others stay empty) */
static void cc_rows(hoodie_batch *b, const hoodie_field *schema, int64_t r0, int64_t r1, int64_t mul, const char *which)
{
    hoodie_assert_ok(hoodie_batch_init(b, schema));
    const hoodie_field *f = b->schema.children;
    hoodie_array *a = b->root.children;
    char s[32];
    for (int64_t i = r0; i < r1; i++) {
        snprintf(s, sizeof s, "k%06lld", (long long)i);
        if (strchr(which, 'k')) hoodie_assert_ok(hoodie_array_append_str(&a[0], &f[0], s));
        if (strchr(which, 'v')) hoodie_assert_ok(hoodie_array_append_int(&a[1], &f[1], i * mul));
        snprintf(s, sizeof s, "name %lld", (long long)i);
        if (!strchr(which, 'n')) continue;
        if (i >= 300 && i < 500) hoodie_assert_ok(hoodie_array_append_null(&a[2], &f[2]));
        else hoodie_assert_ok(hoodie_array_append_str(&a[2], &f[2], s));
    }
    b->root.length = r1 - r0;
}

static void cc_source(hoodie_buf *out)
{
    hoodie_field schema;
    cc_schema(&schema);
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.row_group_rows = CC_RG_ROWS;
    o.page_rows = 100;
    hoodie_pq_sink sink = { out, cc_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_batch b;
    cc_rows(&b, &schema, 0, CC_ROWS, 1, "kvn");
    hoodie_assert_ok(hoodie_pq_writer_write(w, &b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&schema);
}

typedef struct cc_src {
    hoodie_buf file;
    pqt_mem mem;
    hoodie_pq_source src;
    hoodie_pq_file *f;
    hoodie_arena *arena;
    hoodie_buf bytes[8][3];
    hoodie_pq_page_index pi[8][3];
    hoodie_pq_chunk_copy copy[8][3];
} cc_src;

static void cc_open(cc_src *s, const hoodie_buf *file, const char *name)
{
    memset(s, 0, sizeof *s);
    s->mem.data = file->data;
    s->mem.len = file->len;
    s->src = (hoodie_pq_source){ &s->mem, pqt_mem_read, file->len, name, NULL };
    hoodie_assert_ok(hoodie_pq_file_open(&s->f, &s->src));
    hoodie_assert_ok(hoodie_arena_new(&s->arena, NULL, 4096));
}

/* The copy of chunk (rg, leaf) of s, with its page index. */
static const hoodie_pq_chunk_copy *cc_copy(cc_src *s, uint32_t rg, int leaf)
{
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(s->f);
    const hoodie_pq_schema *ss = hoodie_pq_file_schema(s->f);
    hoodie_pq_chunk_copy *k = &s->copy[rg][leaf];
    uint64_t off;
    hoodie_assert_ok(hoodie_pq_chunk_bytes(s->f, rg, leaf, &s->bytes[rg][leaf], &off));
    hoodie_assert_ok(hoodie_pq_page_index_read(s->f, rg, leaf, s->arena, &s->pi[rg][leaf]));
    k->bytes = s->bytes[rg][leaf].data;
    k->len = s->bytes[rg][leaf].len;
    k->src_offset = off;
    k->meta = &m->row_groups[rg].columns[leaf].meta;
    k->src_leaf = &ss->leaves[leaf];
    k->offset_index = &s->pi[rg][leaf].oi;
    k->column_index = s->pi[rg][leaf].has_ci ? &s->pi[rg][leaf].ci : NULL;
    return k;
}

static void cc_close(cc_src *s)
{
    for (int g = 0; g < 8; g++)
        for (int l = 0; l < 3; l++) hoodie_buf_dispose(&s->bytes[g][l]);
    hoodie_arena_free(s->arena);
    hoodie_pq_file_free(s->f);
}

HOODIE_TEST(format_pq_chunk_copy__round_trip)
{
    hoodie_buf a = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
    cc_source(&a);
    cc_src s;
    cc_open(&s, &a, "a.parquet");
    hoodie_assert_equal_i(3, hoodie_pq_file_metadata(s.f)->row_group_count);

    /* b: each row group of a with k and n copied and v = row * 7 encoded, then 10 rows encoded */
    hoodie_field schema;
    cc_schema(&schema);
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.page_rows = 100;
    hoodie_pq_sink sink = { &out, cc_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_assert(hoodie_pq_writer_can_copy(w, 0, &hoodie_pq_file_schema(s.f)->leaves[0]));
    for (uint32_t g = 0; g < 3; g++) {
        int64_t r0 = (int64_t)g * CC_RG_ROWS, r1 = r0 + CC_RG_ROWS < CC_ROWS ? r0 + CC_RG_ROWS : CC_ROWS;
        const hoodie_pq_chunk_copy *copies[3] = { cc_copy(&s, g, 0), NULL, cc_copy(&s, g, 2) };
        hoodie_batch b;
        cc_rows(&b, &schema, r0, r1, 7, "v");
        hoodie_assert_ok(hoodie_pq_writer_write_row_group(w, &b.root, copies));
        hoodie_batch_dispose(&b);
    }
    hoodie_batch tail;
    cc_rows(&tail, &schema, CC_ROWS, CC_ROWS + 10, 7, "kvn");
    hoodie_assert_ok(hoodie_pq_writer_write(w, &tail));
    hoodie_batch_dispose(&tail);
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);

    cc_src t;
    cc_open(&t, &out, "b.parquet");
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(t.f);
    hoodie_assert_equal_i(4, m->row_group_count);
    hoodie_assert_equal_i(CC_ROWS + 10, m->num_rows);
    /* the copied chunks are the source's bytes; the encoded one is not */
    for (uint32_t g = 0; g < 3; g++) {
        hoodie_buf x = HOODIE_BUF_INIT;
        uint64_t off;
        for (int l = 0; l < 3; l++) {
            hoodie_assert_ok(hoodie_pq_chunk_bytes(t.f, g, l, &x, &off));
            int same = x.len == s.bytes[g][l].len && !memcmp(x.data, s.bytes[g][l].data, x.len);
            hoodie_assert_equal_i(l != 1, same);
        }
        hoodie_buf_dispose(&x);
        /* statistics kept: the key bounds of the row group */
        hoodie_pq_column_stats st;
        hoodie_assert_ok(hoodie_pq_row_group_stats(t.f, g, 0, &st));
        char lo[16];
        snprintf(lo, sizeof lo, "k%06u", g * CC_RG_ROWS);
        hoodie_assert(st.has_min && st.min.len == strlen(lo) && !memcmp(st.min.bytes, lo, st.min.len));
    }
    /* every value, in order */
    hoodie_pq_scan *sc;
    hoodie_assert_ok(hoodie_pq_scan_open(&sc, t.f, NULL));
    hoodie_batch b;
    int64_t row = 0;
    char e[32];
    while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
        const hoodie_array *k = &b.root.children[0], *v = &b.root.children[1], *n = &b.root.children[2];
        for (int64_t i = 0; i < b.root.length; i++, row++) {
            snprintf(e, sizeof e, "k%06lld", (long long)row);
            hoodie_assert(k->offsets[i + 1] - k->offsets[i] == (int32_t)strlen(e) &&
                          !memcmp(k->values + k->offsets[i], e, strlen(e)));
            hoodie_assert_equal_i(row * 7, ((const int64_t *)v->values)[i]);
            hoodie_assert_equal_i(!(row >= 300 && row < 500), hoodie_array_is_valid(n, i));
        }
        hoodie_batch_dispose(&b);
    }
    hoodie_pq_scan_free(sc);
    hoodie_assert_equal_i(CC_ROWS + 10, row);
    /* the page index of a copied chunk points at its pages in the new file: a scan from row 1550 starts there */
    hoodie_pq_page_index pi;
    hoodie_assert_ok(hoodie_pq_page_index_read(t.f, 1, 2, t.arena, &pi));
    hoodie_assert_equal_i(s.pi[1][2].oi.page_count, pi.oi.page_count);
    uint32_t rgs[1] = { 1 };
    hoodie_pq_scan_opts so = { NULL, 0, rgs, 1, 0, 550 };
    hoodie_assert_ok(hoodie_pq_scan_open(&sc, t.f, &so));
    hoodie_assert_ok(hoodie_pq_scan_next(sc, &b));
    hoodie_assert_equal_i(450, b.root.length);
    hoodie_assert(!memcmp(b.root.children[0].values, "k001550", 7));
    hoodie_assert(!memcmp(b.root.children[2].values, "name 1550", 9));
    hoodie_batch_dispose(&b);
    hoodie_pq_scan_free(sc);
    cc_close(&t);

    /* DuckDB reads the file the same */
    char path[256];
    snprintf(path, sizeof path, "%s/pq_chunk_copy.parquet", hoodie_test_tmpdir());
    FILE *fp = fopen(path, "wb");
    hoodie_assert(fp && fwrite(out.data, 1, out.len, fp) == out.len);
    fclose(fp);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) AS c, sum(v) AS v, count(n) AS n, min(k) AS lo, max(k) AS hi, "
             "sum(length(n)) AS nl FROM read_parquet('%s')", path);
    char *got = pqd_duck("--csv", sql);
    hoodie_assert(got != NULL);
    /* 2510 rows, v = 7 * sum(0..2509), n null in 200 rows, lengths of "name <i>" */
    int64_t nl = 0;
    for (int64_t i = 0; i < CC_ROWS + 10; i++) {
        if (i >= 300 && i < 500) continue;
        snprintf(e, sizeof e, "name %lld", (long long)i);
        nl += (int64_t)strlen(e);
    }
    char want[256];
    snprintf(want, sizeof want, "c,v,n,lo,hi,nl\n2510,%lld,2310,k000000,k002509,%lld\n",
             (long long)(7LL * 2509 * 2510 / 2), (long long)nl);
    hoodie_assert_equal_s(want, got);
    free(got);
    remove(path);

    cc_close(&s);
    hoodie_field_dispose(&schema);
    hoodie_buf_dispose(&a);
    hoodie_buf_dispose(&out);
}

HOODIE_TEST(format_pq_chunk_copy__refused)
{
    hoodie_buf a = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
    cc_source(&a);
    cc_src s;
    cc_open(&s, &a, "a.parquet");
    hoodie_field schema;
    cc_schema(&schema);
    hoodie_pq_sink sink = { &out, cc_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, NULL, sink));
    const hoodie_pq_schema *ss = hoodie_pq_file_schema(s.f);
    /* the int64 chunk of v cannot stand for the strings of n; the required k cannot stand for an optional column */
    hoodie_assert(!hoodie_pq_writer_can_copy(w, 2, &ss->leaves[1]));
    hoodie_assert(!hoodie_pq_writer_can_copy(w, 2, &ss->leaves[0]));
    hoodie_assert(hoodie_pq_writer_can_copy(w, 2, &ss->leaves[2]));
    hoodie_batch b;
    cc_rows(&b, &schema, 0, CC_RG_ROWS, 1, "kv");
    const hoodie_pq_chunk_copy *wrong_type[3] = { NULL, NULL, cc_copy(&s, 0, 1) };
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_write_row_group(w, &b.root, wrong_type));
    hoodie_batch_dispose(&b);
    hoodie_pq_writer_free(w);
    /* a chunk of 1,000 values for a row group of 999 rows */
    hoodie_buf_clear(&out);
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, NULL, sink));
    cc_rows(&b, &schema, 0, CC_RG_ROWS - 1, 1, "kv");
    const hoodie_pq_chunk_copy *short_rg[3] = { NULL, NULL, cc_copy(&s, 0, 2) };
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_pq_writer_write_row_group(w, &b.root, short_rg));
    hoodie_batch_dispose(&b);
    hoodie_pq_writer_free(w);
    cc_close(&s);
    hoodie_field_dispose(&schema);
    hoodie_buf_dispose(&a);
    hoodie_buf_dispose(&out);
}
