#include "hoodie_test.h"
#include "hoodie/hoodie.h"

#include <stdlib.h>

/* The public C API end to end: open a table, list instants and file slices, scan into an ArrowArrayStream. */
HOODIE_TEST(read_api__open_list_and_scan)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", hoodie_fixture("hudi/tables/trips_mor_avro_v8_trips_8i3d"));
    hoodie_table *t;
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_assert(hoodie_table_is_mor(t));
    hoodie_assert_equal_i(8, hoodie_table_version(t));
    hoodie_assert_equal_i(2, hoodie_table_instant_count(t));
    hoodie_instant_info in;
    hoodie_assert_ok(hoodie_table_instant(t, 1, &in));
    hoodie_assert_equal_s("deltacommit", in.action);
    hoodie_assert_equal_s("completed", in.state);
    hoodie_assert(in.completion[0] != '\0');
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_instant(t, 2, &in));

    hoodie_slices *sl;
    hoodie_assert_ok(hoodie_table_slices(t, NULL, &sl));
    hoodie_assert_equal_i(3, hoodie_slices_count(sl));
    size_t with_logs = 0;
    for (size_t i = 0; i < hoodie_slices_count(sl); i++) {
        hoodie_slice_info si;
        hoodie_assert_ok(hoodie_slices_get(sl, i, &si));
        hoodie_assert(si.latest);
        hoodie_assert(si.base_file != NULL);
        hoodie_assert(!strncmp(si.partition, "city=", 5));
        with_logs += si.n_log_files;
    }
    hoodie_assert_equal_i(1, with_logs);
    hoodie_slices_free(sl);

    static const char *const cols[] = { "_hoodie_record_key", "fare" };
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    so.columns = cols;
    so.n_columns = 2;
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_table_scan(t, &so, &st));
    struct ArrowSchema schema;
    hoodie_assert_equal_i(0, st.get_schema(&st, &schema));
    hoodie_assert_equal_s("+s", schema.format);
    hoodie_assert_equal_i(2, schema.n_children);
    hoodie_assert_equal_s("_hoodie_record_key", schema.children[0]->name);
    hoodie_assert_equal_s("g", schema.children[1]->format);
    schema.release(&schema);
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray a;
        hoodie_assert_equal_i(0, st.get_next(&st, &a));
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
    }
    st.release(&st);
    hoodie_assert_equal_i(5, rows); /* 8 inserts, 3 deleted (the expected CSV has 5 rows) */
    hoodie_table_free(t);
}

HOODIE_TEST(read_api__errors)
{
    hoodie_table *t = NULL;
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_table_open(&t, "/nonexistent/table", NULL));
    hoodie_assert(t == NULL);
    hoodie_assert_contains(hoodie_error_last()->message, "/nonexistent/table");
    char path[1024];
    snprintf(path, sizeof path, "%s", hoodie_fixture("hudi/tables/cow_v8_nonpartitioned"));
    hoodie_assert_ok(hoodie_table_open(&t, path, NULL));
    hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
    struct ArrowArrayStream st;
    so.filter = "id >";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    so.filter = "nosuch = 1";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    so.filter = NULL;
    so.as_of = "yesterday";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_scan(t, &so, &st));
    hoodie_table_free(t);
}
