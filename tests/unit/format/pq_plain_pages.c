/* hoodie_pq_scan_plain_page: a flat string column's PLAIN pages without nulls come out in place, every other page
 * (dictionary-encoded, with nulls) is left to hoodie_pq_scan_next, and the two mixed read every value in order,
 * across pages and row groups. */
#include "hoodie_test.h"
#include "pq_support.h"
#include "format/parquet/writer.h"
#include "model/build.h"

#define PP_ROWS 23000

static hoodie_status pp_sink(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

/* A root schema of the given columns (nullable), and a batch of it. */
static void pp_schema(hoodie_field *schema, hoodie_batch *b, const char *const *names, const hoodie_type_id *types,
                      size_t n)
{
    hoodie_assert_ok(hoodie_field_init(schema, "schema", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (size_t i = 0; i < n; i++) {
        hoodie_field c;
        hoodie_assert_ok(hoodie_field_init(&c, names[i], hoodie_type_of(types[i]), 1));
        hoodie_assert_ok(hoodie_field_add_child(schema, &c));
        hoodie_field_dispose(&c);
    }
    hoodie_assert_ok(hoodie_batch_init(b, schema));
}

/* The batch written as one Parquet file into `file` (the batch is disposed), opened. */
static hoodie_pq_file *pp_write(const hoodie_field *schema, const hoodie_pq_writer_opts *o, hoodie_batch *b,
                                hoodie_buf *file, pqt_mem *mem, hoodie_pq_source *src)
{
    hoodie_pq_sink sink = { file, pp_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, schema, o, sink));
    hoodie_assert_ok(hoodie_pq_writer_write(w, b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);
    hoodie_batch_dispose(b);
    *mem = (pqt_mem){ file->data, file->len };
    *src = (hoodie_pq_source){ mem, pqt_mem_read, file->len, "pp.parquet", NULL };
    hoodie_pq_file *pf;
    hoodie_assert_ok(hoodie_pq_file_open(&pf, src));
    return pf;
}

/* Row i's value, or NULL: 3000 repeated values first (a dictionary), then unique ones (over the dictionary's
 * limit: PLAIN pages), with a few nulls in one page. */
static const char *pp_value(int64_t i, char *s, size_t n)
{
    if (i >= 15000 && i < 15010) return NULL;
    if (i < 3000) snprintf(s, n, "rep-%d", (int)(i % 10));
    else snprintf(s, n, "key-%08lld%s", (long long)i * 7, i % 3 ? "" : "-a-longer-value-past-sixteen-bytes");
    return s;
}

HOODIE_TEST(format_pq_plain_pages__in_place_and_batches_mixed)
{
    static const char *const names[] = { "k" };
    static const hoodie_type_id types[] = { HOODIE_TYPE_STRING };
    hoodie_field schema;
    hoodie_batch b;
    pp_schema(&schema, &b, names, types, 1);
    char s[80];
    for (int64_t i = 0; i < PP_ROWS; i++) {
        const char *v = pp_value(i, s, sizeof s);
        if (v) hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &b.schema.children[0], v));
        else hoodie_assert_ok(hoodie_array_append_null(&b.root.children[0], &b.schema.children[0]));
    }
    b.root.length = PP_ROWS;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.page_rows = 1000;
    o.row_group_rows = 7000;
    o.dictionary_limit = 2048;
    hoodie_buf file = HOODIE_BUF_INIT;
    pqt_mem mem;
    hoodie_pq_source src;
    hoodie_pq_file *pf = pp_write(&schema, &o, &b, &file, &mem, &src);
    hoodie_assert(hoodie_pq_file_metadata(pf)->row_group_count >= 3);
    hoodie_pq_scan_opts so = { NULL, 0, NULL, 0, 300, 0 };
    hoodie_pq_scan *sc;
    hoodie_assert_ok(hoodie_pq_scan_open(&sc, pf, &so));
    int64_t row = 0, in_place = 0, batched = 0;
    hoodie_status rc;
    for (;;) {
        const uint8_t *p, *end, *v;
        int64_t n;
        size_t len;
        rc = hoodie_pq_scan_plain_page(sc, &p, &end, &n);
        if (rc == HOODIE_ITEROVER) break;
        if (rc == HOODIE_OK) {
            hoodie_assert(n > 0);
            for (int64_t i = 0; i < n; i++, row++) {
                const char *want = pp_value(row, s, sizeof s);
                hoodie_assert(want != NULL);
                hoodie_assert(hoodie_pq_plain_next(&p, end, &v, &len));
                hoodie_assert_equal_i((int64_t)strlen(want), (int64_t)len);
                hoodie_assert(!memcmp(v, want, len));
            }
            hoodie_assert(p == end);
            in_place += n;
            continue;
        }
        hoodie_assert_equal_i(1, rc);
        hoodie_batch r;
        hoodie_assert_ok(hoodie_pq_scan_next(sc, &r));
        const hoodie_array *k = &r.root.children[0];
        for (int64_t i = 0; i < k->length; i++, row++) {
            const char *want = pp_value(row, s, sizeof s);
            hoodie_assert_equal_i(want != NULL, hoodie_array_is_valid(k, i));
            if (!want) continue;
            const uint8_t *got = hoodie_array_bytes_at(k, i, &len);
            hoodie_assert_equal_i((int64_t)strlen(want), (int64_t)len);
            hoodie_assert(!memcmp(got, want, len));
        }
        batched += k->length;
        hoodie_batch_dispose(&r);
    }
    hoodie_assert_equal_i(PP_ROWS, row);
    hoodie_assert(in_place >= 15000); /* the unique values' pages without nulls */
    hoodie_assert(batched >= 3000);   /* the dictionary pages and the page with nulls */
    hoodie_pq_scan_free(sc);

    /* a length that runs past the page is refused */
    static const uint8_t bad[] = { 3, 0, 0, 0, 'a', 'b', 'c', 9, 0, 0, 0, 'd' };
    const uint8_t *p = bad, *v;
    size_t len;
    hoodie_assert(hoodie_pq_plain_next(&p, bad + sizeof bad, &v, &len) && len == 3);
    hoodie_assert(!hoodie_pq_plain_next(&p, bad + sizeof bad, &v, &len));
    hoodie_assert(!hoodie_pq_plain_next(&p, bad + 9, &v, &len)); /* fewer than 4 bytes of length */

    hoodie_pq_file_free(pf);
    hoodie_buf_dispose(&file);
    hoodie_field_dispose(&schema);
}

/* A scan of several columns, or of a column that is not a string, is never taken in place. */
HOODIE_TEST(format_pq_plain_pages__only_one_flat_byte_array_column)
{
    static const char *const names[] = { "k", "n" };
    static const hoodie_type_id types[] = { HOODIE_TYPE_STRING, HOODIE_TYPE_INT64 };
    hoodie_field schema;
    hoodie_batch b;
    pp_schema(&schema, &b, names, types, 2);
    char s[32];
    for (int64_t i = 0; i < 100; i++) {
        snprintf(s, sizeof s, "k%03d", (int)i);
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &b.schema.children[0], s));
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[1], &b.schema.children[1], i));
    }
    b.root.length = 100;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    o.dictionary = 0;
    hoodie_buf file = HOODIE_BUF_INIT;
    pqt_mem mem;
    hoodie_pq_source src;
    hoodie_pq_file *pf = pp_write(&schema, &o, &b, &file, &mem, &src);
    static const char *const num[] = { "n" }, *const key[] = { "k" };
    const char *const *cols[] = { names, num, key };
    size_t ncols[] = { 2, 1, 1 };
    for (int t = 0; t < 3; t++) {
        hoodie_pq_scan_opts so = { cols[t], ncols[t], NULL, 0, 0, 0 };
        hoodie_pq_scan *sc;
        const uint8_t *p, *end;
        int64_t n;
        hoodie_assert_ok(hoodie_pq_scan_open(&sc, pf, &so));
        hoodie_assert_equal_i(t == 2 ? HOODIE_OK : 1, hoodie_pq_scan_plain_page(sc, &p, &end, &n));
        hoodie_assert_equal_i(t == 2 ? 100 : 0, n);
        hoodie_pq_scan_free(sc);
    }
    hoodie_pq_file_free(pf);
    hoodie_buf_dispose(&file);
    hoodie_field_dispose(&schema);
}
