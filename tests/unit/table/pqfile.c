/* Public Parquet reader API: open through storage, kv, describe (text and JSON), schema text, projection. */
#include "hoodie_test.h"
#include "model/render.h"
#include "table/pqfile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *g_file =
    "hudi/tables/cow_v8_nonpartitioned/2746610d-ad02-4adb-a038-5cbb99cbd455-0_0-75-100_20250713010536861.parquet";

HOODIE_TEST(table_pqfile__open_describe)
{
    hoodie_parquet_reader *r;
    char *txt;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, hoodie_fixture(g_file), NULL));
    hoodie_assert(hoodie_parquet_reader_num_rows(r) > 0);
    hoodie_assert(hoodie_parquet_reader_kv(r, "parquet.avro.schema") != NULL ||
                  hoodie_parquet_reader_kv(r, "org.apache.hudi.bloomfilter") != NULL);
    hoodie_assert(hoodie_parquet_reader_kv(r, "no such key") == NULL);
    hoodie_assert_ok(hoodie_parquet_reader_describe(r, 0, &txt));
    hoodie_assert_contains(txt, "_hoodie_commit_time");
    hoodie_assert_contains(txt, "row group 0:");
    hoodie_assert_contains(txt, "min=");
    free(txt);
    hoodie_assert_ok(hoodie_parquet_reader_describe(r, 1, &txt));
    json_error_t err;
    json_t *j = json_loads(txt, 0, &err);
    hoodie_assert(j != NULL);
    hoodie_assert_equal_i(hoodie_parquet_reader_num_rows(r), json_integer_value(json_object_get(j, "num_rows")));
    hoodie_assert(json_array_size(json_object_get(j, "row_groups")) >= 1);
    json_decref(j);
    free(txt);
    hoodie_assert_ok(hoodie_parquet_reader_schema_text(r, &txt));
    hoodie_assert_contains(txt, "message ");
    hoodie_assert_contains(txt, "BYTE_ARRAY STRING _hoodie_record_key");
    free(txt);

    /* scan through the internal API */
    hoodie_pq_scan *s;
    hoodie_batch b;
    int64_t rows = 0;
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &s));
    while (hoodie_pq_scan_next(s, &b) == HOODIE_OK) { rows += b.root.length; hoodie_batch_dispose(&b); }
    hoodie_pq_scan_free(s);
    hoodie_assert_equal_i(hoodie_parquet_reader_num_rows(r), rows);
    hoodie_parquet_reader_free(r);
}

HOODIE_TEST(table_pqfile__projection_and_errors)
{
    hoodie_parquet_reader *r;
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    const char *cols[] = { "_hoodie_record_key" };
    o.columns = cols;
    o.n_columns = 1;
    hoodie_assert_ok(hoodie_parquet_reader_open(&r, hoodie_fixture(g_file), &o));
    const hoodie_field *f = hoodie_pqfile__schema(r);
    hoodie_assert_equal_i(1, f->n_children);
    hoodie_assert_equal_s("_hoodie_record_key", f->children[0].name);
    hoodie_assert_equal_i(HOODIE_TYPE_STRING, f->children[0].type.id);
    hoodie_parquet_reader_free(r);
    const char *bad[] = { "nope" };
    o.columns = bad;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_parquet_reader_open(&r, hoodie_fixture(g_file), &o));
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_parquet_reader_open(&r, "/nonexistent/x.parquet", NULL));
}

/* Schema on read: a file's top-level columns renamed at open (a swap stays a swap), projections by the new names. */
HOODIE_TEST(table_pqfile__renamed_columns)
{
    hoodie_parquet_reader *plain, *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&plain, hoodie_fixture(g_file), NULL));
    const char *from[] = { "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name" };
    const char *to[] = { "_hoodie_partition_path", "_hoodie_record_key", "gone" };
    hoodie_renames rn = { 3, from, to };
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    const char *cols[] = { "_hoodie_record_key", "gone" };
    o.columns = cols;
    o.n_columns = 2;
    hoodie_assert_ok(hoodie_pqfile__open(&r, hoodie_fixture(g_file), &o, &rn));
    const hoodie_field *f = hoodie_pqfile__schema(r);
    hoodie_assert_equal_i(2, f->n_children);
    hoodie_assert_equal_s("_hoodie_record_key", f->children[0].name);
    hoodie_assert_equal_s("gone", f->children[1].name);
    hoodie_pq_scan *a, *b;
    hoodie_batch x, y;
    hoodie_assert_ok(hoodie_pqfile__scan_open(plain, &a));
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &b));
    hoodie_assert_ok(hoodie_pq_scan_next(a, &x));
    hoodie_assert_ok(hoodie_pq_scan_next(b, &y));
    int pp = hoodie_field_find(&x.schema, "_hoodie_partition_path"), fn = hoodie_field_find(&x.schema, "_hoodie_file_name");
    hoodie_assert(pp >= 0 && fn >= 0 && x.root.length == y.root.length && x.root.length > 0);
    for (int64_t i = 0; i < x.root.length; i++) {
        size_t l1, l2;
        const uint8_t *v1 = hoodie_array_bytes_at(&x.root.children[pp], i, &l1), *v2 = hoodie_array_bytes_at(&y.root.children[0], i, &l2);
        hoodie_assert(l1 == l2 && (!l1 || !memcmp(v1, v2, l1)));
        v1 = hoodie_array_bytes_at(&x.root.children[fn], i, &l1);
        v2 = hoodie_array_bytes_at(&y.root.children[1], i, &l2);
        hoodie_assert(l1 == l2 && !memcmp(v1, v2, l1));
    }
    hoodie_batch_dispose(&x);
    hoodie_batch_dispose(&y);
    hoodie_pq_scan_free(a);
    hoodie_pq_scan_free(b);
    /* the old names are no longer there */
    const char *old[] = { "_hoodie_file_name" };
    o.columns = old;
    o.n_columns = 1;
    hoodie_parquet_reader *r2;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_pqfile__open(&r2, hoodie_fixture(g_file), &o, &rn));
    hoodie_error_clear();
    hoodie_parquet_reader_free(r);
    hoodie_parquet_reader_free(plain);
}

/* Schema on read through a list's and a map's records, in a file Spark wrote (parquet-avro's 2-level list,
 * "repeated group array" holding the struct's fields; a MAP_KEY_VALUE map): the paths leave the repeated levels out
 * ("arrayField.element.arr_struct_f1", "mapField.value.map_field_value_struct_f1"), and the values stay where they
 * were. */
static char *rendered(hoodie_parquet_reader *r)
{
    hoodie_pq_scan *s;
    hoodie_batch b;
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_pqfile__scan_open(r, &s));
    while (hoodie_pq_scan_next(s, &b) == HOODIE_OK) {
        hoodie_assert_ok(hoodie_render_jsonl(&out, &b));
        hoodie_batch_dispose(&b);
    }
    hoodie_pq_scan_free(s);
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    return (char *)out.data;
}

static void replace_all(char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    for (char *p = strstr(s, from); p; p = strstr(p + tl, from)) {
        memmove(p + tl, p + fl, strlen(p + fl) + 1);
        memcpy(p, to, tl);
    }
}

HOODIE_TEST(table_pqfile__renamed_list_and_map_fields)
{
    const char *file = "hudi/tables/cow_v6_nonpartitioned/"
                       "a079bdb3-731c-4894-b855-abfcd6921007-0_0-203-274_20240418173551906.parquet";
    const char *cols[] = { "arrayField", "mapField" };
    hoodie_parquet_read_opts o = HOODIE_PARQUET_READ_OPTS_INIT;
    o.columns = cols;
    o.n_columns = 2;
    hoodie_parquet_reader *plain, *r;
    hoodie_assert_ok(hoodie_parquet_reader_open(&plain, hoodie_fixture(file), &o));
    const char *from[] = { "arrayField.element.arr_struct_f1", "mapField.value.map_field_value_struct_f1" };
    const char *to[] = { "f1x", "v1" }; /* no longer than the old names: the text is rewritten in place below */
    hoodie_renames rn = { 2, from, to };
    hoodie_assert_ok(hoodie_pqfile__open(&r, hoodie_fixture(file), &o, &rn));
    const hoodie_field *f = hoodie_pqfile__schema(r);
    hoodie_assert_equal_i(2, f->n_children);
    const hoodie_field *elem = &f->children[0].children[0];
    hoodie_assert_equal_i(HOODIE_TYPE_STRUCT, elem->type.id);
    hoodie_assert_equal_s("f1x", elem->children[0].name);
    hoodie_assert_equal_s("arr_struct_f2", elem->children[1].name);
    const hoodie_field *value = &f->children[1].children[0].children[1];
    hoodie_assert_equal_s("v1", value->children[0].name);
    char *a = rendered(plain), *b = rendered(r);
    hoodie_assert(strstr(a, "\"arr_struct_f1\":") != NULL && strstr(a, "\"map_field_value_struct_f1\":") != NULL);
    replace_all(a, "\"arr_struct_f1\":", "\"f1x\":");
    replace_all(a, "\"map_field_value_struct_f1\":", "\"v1\":");
    hoodie_assert_equal_s(a, b);
    free(a);
    free(b);
    hoodie_parquet_reader_free(r);
    hoodie_parquet_reader_free(plain);
}
