#include "hoodie_test.h"
#include "table/fsview.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>

/* Render a view as text: one line per slice: "partition|fileId|base instant|base?|log instants..." */
static void render(const hoodie_fsview *v, hoodie_buf *out)
{
    for (size_t g = 0; g < v->group_count; g++) {
        const hoodie_file_group *grp = &v->groups[g];
        for (size_t s = 0; s < grp->slice_count; s++) {
            const hoodie_file_slice *sl = &grp->slices[s];
            hoodie_buf_printf(out, "%s|%.8s|%s|%s", grp->partition, grp->file_id, sl->base_instant,
                              sl->base ? "base" : "-");
            for (size_t l = 0; l < sl->log_count; l++) hoodie_buf_printf(out, "|%s", sl->logs[l]->instant);
            hoodie_buf_putc(out, '\n');
        }
    }
    hoodie_buf_cstr(out);
}

static char *view_of(const char *table, const char *as_of)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", hoodie_fixture(table));
    hoodie_table_config *cfg;
    hoodie_timeline *tl;
    hoodie_fsview *v;
    hoodie_fsview_opts o = { 0 };
    o.as_of = as_of;
    hoodie_assert_ok(hoodie_table_config_load(&cfg, NULL, path, 0));
    hoodie_assert_ok(hoodie_timeline_load(&tl, NULL, path, cfg));
    hoodie_assert_ok(hoodie_fsview_build(&v, NULL, path, cfg, tl, &o));
    hoodie_buf b = HOODIE_BUF_INIT;
    render(v, &b);
    hoodie_fsview_free(v);
    hoodie_timeline_free(tl);
    hoodie_table_config_free(cfg);
    return (char *)hoodie_buf_detach(&b, NULL);
}

HOODIE_TEST(table_fsview__cow_versions_and_time_travel)
{
    char *s = view_of("hudi/tables/cow_v8_nonpartitioned", NULL);
    hoodie_assert_equal_s("|2746610d|20250713010535797|base\n|2746610d|20250713010536861|base\n", s);
    free(s);
    s = view_of("hudi/tables/cow_v8_nonpartitioned", "20250713010535797");
    hoodie_assert_equal_s("|2746610d|20250713010535797|base\n", s);
    free(s);
}

HOODIE_TEST(table_fsview__log_only_group)
{
    char *s = view_of("hudi/tables/trips_mor_avro_table_log_only", NULL);
    hoodie_assert_equal_s("|7787bafe|20260409030525348|-|20260409030525348|20260409030527298|20260409030528554\n", s);
    free(s);
}

HOODIE_TEST(table_fsview__every_fixture_table_builds)
{
    static const char *tables[] = {
        "cow_v6_complexkeygen_hivestyle", "cow_v6_empty", "cow_v6_nonpartitioned",
        "cow_v6_simplekeygen_hivestyle_no_metafields", "cow_v6_simplekeygen_nonhivestyle",
        "cow_v6_simplekeygen_nonhivestyle_overwritetable", "cow_v8_complexkeygen_hivestyle", "cow_v8_empty",
        "cow_v8_nonpartitioned", "cow_v8_simplekeygen_nonhivestyle", "cow_v8_simplekeygen_nonhivestyle_overwritetable",
        "cow_v9_txns_nonpart_nometa", "mdt_basic_mor_avro_v8_nonpartitioned", "mor_parquet_v6_complexkeygen_hivestyle",
        "mor_parquet_v6_empty", "mor_parquet_v6_nonpartitioned", "mor_parquet_v6_nonpartitioned_rollback",
        "mor_parquet_v6_simplekeygen_nonhivestyle", "trips_mor_avro_table_column_projection",
        "trips_mor_avro_table_log_only", "trips_mor_avro_v6_trips_8i1u", "trips_mor_avro_v8_trips_8i1u",
        "trips_mor_avro_v8_trips_8i3d", "trips_mor_avro_v9_mor_nonpart_3commits",
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "hudi/tables/%s", tables[i]);
        char *s = view_of(rel, NULL);
        if (getenv("HOODIE_TEST_VERBOSE")) printf("== %s\n%s", tables[i], s);
        if (strstr(tables[i], "empty")) hoodie_assert_equal_s("", s);
        else hoodie_assert(strlen(s) > 0);
        free(s);
    }
}
