/* The writer keeps a column chunk's dictionary only when its first page is smaller with it (parquet-mr's check):
 * unique values are written PLAIN, repeated ones PLAIN_DICTIONARY, and both read back as written. */
#include "hoodie_test.h"
#include "pq_support.h"
#include "format/parquet/writer.h"
#include "model/build.h"

#define DC_ROWS 30000

static hoodie_status dc_sink(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

static void dc_add(hoodie_field *root, const char *name, hoodie_type_id t)
{
    hoodie_field c;
    hoodie_assert_ok(hoodie_field_init(&c, name, hoodie_type_of(t), 0));
    hoodie_assert_ok(hoodie_field_add_child(root, &c));
    hoodie_field_dispose(&c);
}

/* Whether the chunk of column `col` (row group 0) uses encoding e. */
static int dc_uses(const hoodie_pq_file_meta *m, int col, hoodie_pq_encoding e)
{
    const hoodie_pq_column_meta *cm = &m->row_groups[0].columns[col].meta;
    for (uint32_t i = 0; i < cm->encoding_count; i++)
        if (cm->encodings[i] == e) return 1;
    return 0;
}

HOODIE_TEST(format_pq_dict_choice__unique_plain_repeated_dictionary)
{
    hoodie_field schema;
    hoodie_assert_ok(hoodie_field_init(&schema, "schema", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    dc_add(&schema, "key", HOODIE_TYPE_STRING);  /* unique */
    dc_add(&schema, "city", HOODIE_TYPE_STRING); /* 5 values */
    dc_add(&schema, "ts", HOODIE_TYPE_INT64);    /* unique */
    dc_add(&schema, "age", HOODIE_TYPE_INT32);   /* 80 values */
    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    hoodie_pq_sink sink = { &file, dc_sink };
    hoodie_pq_writer *w;
    hoodie_assert_ok(hoodie_pq_writer_open(&w, &schema, &o, sink));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &schema));
    const hoodie_field *f = b.schema.children;
    hoodie_array *a = b.root.children;
    static const char *const cities[] = { "Paris", "Lyon", "Nice", "Lille", "Brest" };
    char s[32];
    for (int64_t i = 0; i < DC_ROWS; i++) {
        snprintf(s, sizeof s, "key-%08lld", (long long)i * 7);
        hoodie_assert_ok(hoodie_array_append_str(&a[0], &f[0], s));
        hoodie_assert_ok(hoodie_array_append_str(&a[1], &f[1], cities[i % 5]));
        hoodie_assert_ok(hoodie_array_append_int(&a[2], &f[2], 1700000000000 + i * 1013));
        hoodie_assert_ok(hoodie_array_append_int(&a[3], &f[3], 18 + (i * 31) % 80));
    }
    b.root.length = DC_ROWS;
    hoodie_assert_ok(hoodie_pq_writer_write(w, &b));
    hoodie_assert_ok(hoodie_pq_writer_close(w));
    hoodie_pq_writer_free(w);

    pqt_mem mem = { file.data, file.len };
    hoodie_pq_source src = { &mem, pqt_mem_read, file.len, "dc.parquet", NULL };
    hoodie_pq_file *pf;
    hoodie_assert_ok(hoodie_pq_file_open(&pf, &src));
    const hoodie_pq_file_meta *m = hoodie_pq_file_metadata(pf);
    hoodie_assert_equal_i(1, m->row_group_count);
    hoodie_assert(!dc_uses(m, 0, HOODIE_PQ_PLAIN_DICTIONARY) && dc_uses(m, 0, HOODIE_PQ_PLAIN));
    hoodie_assert(dc_uses(m, 1, HOODIE_PQ_PLAIN_DICTIONARY) && !dc_uses(m, 1, HOODIE_PQ_PLAIN));
    hoodie_assert(!dc_uses(m, 2, HOODIE_PQ_PLAIN_DICTIONARY) && dc_uses(m, 2, HOODIE_PQ_PLAIN));
    hoodie_assert(dc_uses(m, 3, HOODIE_PQ_PLAIN_DICTIONARY) && !dc_uses(m, 3, HOODIE_PQ_PLAIN));
    /* every value reads back */
    hoodie_pq_scan_opts so = { NULL, 0, NULL, 0, DC_ROWS, 0 };
    hoodie_pq_scan *sc;
    hoodie_batch r;
    hoodie_assert_ok(hoodie_pq_scan_open(&sc, pf, &so));
    hoodie_assert_ok(hoodie_pq_scan_next(sc, &r));
    hoodie_pq_scan_free(sc);
    hoodie_assert_equal_i(DC_ROWS, r.root.length);
    for (int64_t i = 0; i < DC_ROWS; i += 997) {
        const hoodie_array *k = &r.root.children[0], *c = &r.root.children[1];
        snprintf(s, sizeof s, "key-%08lld", (long long)i * 7);
        hoodie_assert_equal_i((int64_t)strlen(s), k->offsets[i + 1] - k->offsets[i]);
        hoodie_assert(!memcmp(k->values + k->offsets[i], s, strlen(s)));
        hoodie_assert(!memcmp(c->values + c->offsets[i], cities[i % 5], strlen(cities[i % 5])));
        hoodie_assert_equal_i(1700000000000 + i * 1013, ((const int64_t *)(const void *)r.root.children[2].values)[i]);
        hoodie_assert_equal_i(18 + (i * 31) % 80, ((const int32_t *)(const void *)r.root.children[3].values)[i]);
    }
    hoodie_batch_dispose(&r);
    hoodie_pq_file_free(pf);
    hoodie_batch_dispose(&b);
    hoodie_buf_dispose(&file);
    hoodie_field_dispose(&schema);
}
