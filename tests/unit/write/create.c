#include "hoodie_test.h"
#include "hoodie/table.h"
#include "hoodie/write.h"
#include "storage/storage.h"
#include "table/config.h"
#include "write/create.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>

/* The key=value lines of a properties text (comments dropped), as one string. */
static char *body_of(const uint8_t *data, size_t len)
{
    char *out = malloc(len + 1);
    size_t o = 0;
    const char *p = (const char *)data, *end = p + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl + 1 : end;
        if (*p != '#') { memcpy(out + o, p, (size_t)(e - p)); o += (size_t)(e - p); }
        p = e;
    }
    out[o] = 0;
    return out;
}

static char *read_body(const hoodie_storage *s, const char *path)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(s, path, &b));
    char *r = body_of(b.data, b.len);
    hoodie_buf_dispose(&b);
    return r;
}

/* Create a table with the options a fixture was made with; its hoodie.properties must equal the fixture's,
 * key order included (comment lines aside). */
static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of `text`, sorted, joined again (modifies nothing; returns malloc'ed). */
static char *sorted_lines(const char *text)
{
    char *copy = strdup(text), *out = malloc(strlen(text) + 2), *save = NULL;
    char *lines[64];
    size_t n = 0;
    for (char *l = strtok_r(copy, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save)) lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_line);
    out[0] = 0;
    for (size_t i = 0; i < n; i++) { strcat(out, lines[i]); strcat(out, "\n"); }
    free(copy);
    return out;
}

/* exact_order: also the key order (Java's hash order; keys sharing a hash bin may come in another order, as
 * their order depends on the history of Hudi's Properties object). */
static void check_like_fixture_ex(const char *fixture, hoodie_table_create_opts *o, int exact_order)
{
    char fx[512], path[1100];
    snprintf(fx, sizeof fx, "%s", hoodie_fixture(fixture));
    hoodie_table_config *cfg = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&cfg, NULL, fx, 0));
    o->schema_json = cfg->create_schema;
    o->name = cfg->name;
    o->database = cfg->database;
    char base[512];
    snprintf(base, sizeof base, "%s/%s", hoodie_test_tmpdir(), fixture);
    hoodie_assert_ok(hoodie_table_create(base, o));
    snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties", fx);
    char *want = read_body(NULL, path);
    snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties", base);
    char *got = read_body(NULL, path);
    if (exact_order) {
        hoodie_assert_equal_s(want, got);
    } else {
        char *w = sorted_lines(want), *g = sorted_lines(got);
        hoodie_assert_equal_s(w, g);
        free(w);
        free(g);
    }
    free(want);
    free(got);
    hoodie_table *t = NULL;
    hoodie_assert_ok(hoodie_table_open(&t, base, NULL));
    hoodie_assert_equal_i(cfg->version, hoodie_table_version(t));
    hoodie_assert_equal_s(cfg->name, hoodie_table_name(t));
    hoodie_assert_equal_i(0, (int)hoodie_table_instant_count(t));
    hoodie_table_free(t);
    hoodie_table_config_free(cfg);
}

static void check_like_fixture(const char *fixture, hoodie_table_create_opts *o)
{
    check_like_fixture_ex(fixture, o, 1);
}

static const char *const ID_NAME[] = { "id", "name" };
static const char *const ID[] = { "id" };
static const char *const UUID[] = { "uuid" };
static const char *const BYTE_SHORT[] = { "byteField", "shortField" };
static const char *const BYTE[] = { "byteField" };
static const char *const CITY[] = { "city" };

HOODIE_TEST(write_create__v8_cow_complex_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.record_key_fields = ID_NAME; o.record_key_count = 2;
    o.partition_fields = BYTE_SHORT; o.partition_count = 2;
    o.ordering_field = "longField";
    o.hive_style = 1;
    check_like_fixture("hudi/tables/cow_v8_complexkeygen_hivestyle", &o);
}

HOODIE_TEST(write_create__v8_cow_empty_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.record_key_fields = ID; o.record_key_count = 1;
    o.hive_style = 1;
    check_like_fixture_ex("hudi/tables/cow_v8_empty", &o, 0);
}

HOODIE_TEST(write_create__v8_simple_nonhive_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.record_key_fields = ID; o.record_key_count = 1;
    o.partition_fields = BYTE; o.partition_count = 1;
    o.ordering_field = "longField";
    check_like_fixture("hudi/tables/cow_v8_simplekeygen_nonhivestyle", &o);
}

HOODIE_TEST(write_create__v8_mor_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.type = HOODIE_CREATE_MERGE_ON_READ;
    o.record_key_fields = UUID; o.record_key_count = 1;
    o.partition_fields = CITY; o.partition_count = 1;
    o.ordering_field = "ts";
    o.hive_style = 1;
    check_like_fixture("hudi/tables/trips_mor_avro_v8_trips_8i1u", &o);
}

HOODIE_TEST(write_create__v6_mor_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.table_version = 6;
    o.type = HOODIE_CREATE_MERGE_ON_READ;
    o.record_key_fields = ID_NAME; o.record_key_count = 2;
    o.partition_fields = BYTE_SHORT; o.partition_count = 2;
    o.ordering_field = "longField";
    o.hive_style = 1;
    o.merge_mode = HOODIE_CREATE_MERGE_COMMIT_TIME;
    check_like_fixture("hudi/tables/mor_parquet_v6_complexkeygen_hivestyle", &o);
}

HOODIE_TEST(write_create__v6_mor_nonpartitioned_like_fixture)
{
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.table_version = 6;
    o.type = HOODIE_CREATE_MERGE_ON_READ;
    o.record_key_fields = ID; o.record_key_count = 1;
    o.ordering_field = "longField";
    o.hive_style = 1;
    o.merge_mode = HOODIE_CREATE_MERGE_COMMIT_TIME;
    check_like_fixture("hudi/tables/mor_parquet_v6_nonpartitioned", &o);
}

HOODIE_TEST(write_create__layout_and_exclusive)
{
    hoodie_storage *mem = NULL;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    for (int v = 6; v <= 8; v += 2) {
        for (int type = 0; type < 2; type++) {
            char base[64];
            snprintf(base, sizeof base, "/t%d_%d", v, type);
            hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
            o.storage = mem;
            o.table_version = v;
            o.type = (hoodie_create_table_type)type;
            o.name = "t";
            o.record_key_fields = ID; o.record_key_count = 1;
            o.partition_fields = CITY; o.partition_count = 1;
            hoodie_assert_ok(hoodie_table_create(base, &o));
            hoodie_assert_status(HOODIE_EEXISTS, hoodie_table_create(base, &o));
            hoodie_assert_contains(hoodie_error_last()->message, "already exists");
            static const char *const dirs[] = { ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids",
                                                ".hoodie/.temp", ".hoodie/.schema", ".hoodie/archived" };
            char p[256];
            for (size_t i = 0; i < 5; i++) {
                snprintf(p, sizeof p, "%s/%s", base, dirs[i]);
                hoodie_assert_equal_i(1, mem->exists(mem->ctx, p));
            }
            snprintf(p, sizeof p, "%s/.hoodie/timeline/history", base);
            hoodie_assert_equal_i(v == 8, mem->exists(mem->ctx, p));
            hoodie_table_open_opts oo = HOODIE_TABLE_OPEN_OPTS_INIT;
            oo.storage = mem;
            hoodie_table *t = NULL;
            hoodie_assert_ok(hoodie_table_open(&t, base, &oo));
            hoodie_assert_equal_i(v, hoodie_table_version(t));
            hoodie_assert_equal_i(type, hoodie_table_is_mor(t));
            hoodie_table_free(t);
        }
    }
    hoodie_storage_free(mem);
}

HOODIE_TEST(write_create__bad_options)
{
    const char *base = hoodie_test_tmpdir();
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.name = "t";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o)); /* no record key */
    o.record_key_fields = ID_NAME; o.record_key_count = 2;
    o.keygen = "simple";
    o.partition_fields = CITY; o.partition_count = 1;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o));
    hoodie_assert_contains(hoodie_error_last()->message, "exactly one record key");
    o.keygen = "custom";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o));
    o.keygen = "bogus";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o));
    o.keygen = NULL;
    o.merge_mode = HOODIE_CREATE_MERGE_EVENT_TIME;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o)); /* no ordering field */
    o.merge_mode = HOODIE_CREATE_MERGE_DEFAULT;
    o.schema_json = "{not json";
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o));
    o.schema_json = NULL;
    o.table_version = 7;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_table_create(base, &o));
    o.table_version = 8;
    static const char *const extra[] = { "hoodie.table.name", "x", NULL };
    o.extra_props = extra;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_table_create(base, &o));
}

HOODIE_TEST(write_create__custom_keygen_and_extras)
{
    char base[512];
    snprintf(base, sizeof base, "%s/c", hoodie_test_tmpdir());
    static const char *const parts[] = { "region:SIMPLE", "ts:TIMESTAMP" };
    static const char *const extra[] = { "hoodie.keygen.timebased.timestamp.type", "EPOCHMILLISECONDS",
                                         "hoodie.keygen.timebased.output.dateformat", "yyyy/MM/dd", NULL };
    hoodie_table_create_opts o = HOODIE_TABLE_CREATE_OPTS_INIT;
    o.name = "c";
    o.record_key_fields = ID; o.record_key_count = 1;
    o.partition_fields = parts; o.partition_count = 2;
    o.keygen = "custom";
    o.extra_props = extra;
    o.timeline_timezone_utc = 1;
    hoodie_assert_ok(hoodie_table_create(base, &o));
    hoodie_table_config *c = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&c, NULL, base, 0));
    hoodie_assert_equal_i(HOODIE_KEYGEN_CUSTOM, c->keygen);
    hoodie_assert_equal_i(2, c->partition_fields.count);
    hoodie_assert_equal_s("ts", c->partition_fields.items[1]);
    hoodie_assert_equal_s("TIMESTAMP", c->partition_field_types.items[1]);
    hoodie_assert_equal_s("yyyy/MM/dd", hoodie_table_config_get(c, "hoodie.keygen.timebased.output.dateformat"));
    hoodie_assert_equal_i(1, c->timeline_timezone_utc);
    hoodie_assert_equal_i(HOODIE_MERGE_COMMIT_TIME_ORDERING, c->merge_mode);
    hoodie_table_config_free(c);
}

HOODIE_TEST(write_create__partition_metadata)
{
    hoodie_storage *mem = NULL;
    hoodie_assert_ok(hoodie_storage_mem_new(&mem));
    hoodie_assert_ok(hoodie_write__partition_metadata(mem, "/b", "byteField=10/shortField=300", "20250101000000000"));
    hoodie_assert_ok(hoodie_write__partition_metadata(mem, "/b", "", "20250101000000001"));
    /* a second write keeps the first */
    hoodie_assert_ok(hoodie_write__partition_metadata(mem, "/b", "", "20250101000000002"));
    char *b1 = read_body(mem, "/b/byteField=10/shortField=300/.hoodie_partition_metadata");
    hoodie_assert_equal_s("commitTime=20250101000000000\npartitionDepth=2\n", b1);
    char *b2 = read_body(mem, "/b/.hoodie_partition_metadata");
    hoodie_assert_equal_s("commitTime=20250101000000001\npartitionDepth=0\n", b2);
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(mem, "/b/.hoodie_partition_metadata", &b));
    hoodie_assert(b.len > 20 && !memcmp(b.data, "#partition metadata\n#", 21));
    hoodie_buf_dispose(&b);
    free(b1);
    free(b2);
    hoodie_storage_free(mem);
}
