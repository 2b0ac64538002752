#include "hoodie_test.h"
#include "model/build.h"
#include "table/config.h"
#include "table/keygen.h"
#include "util/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- fixture tables: keys computed from the data columns equal the stored meta columns ---- */

typedef struct rows {
    json_t *items; /* array of objects */
} rows;

/* Run DuckDB (tests/oracle/duck.mjs) and collect its JSON rows. */
static json_t *duck(const char *sql)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node %s/tests/oracle/duck.mjs --json \"%s\"", HOODIE_SOURCE_DIR, sql);
    FILE *p = popen(cmd, "r");
    hoodie_assert(p != NULL);
    json_t *all = json_array();
    char line[65536];
    while (fgets(line, sizeof line, p)) {
        json_error_t e;
        json_t *row = json_loads(line, 0, &e);
        hoodie_assert(row != NULL);
        json_array_append_new(all, row);
    }
    hoodie_assert_equal_i(0, pclose(p));
    return all;
}

/* A batch with one column per name, typed from the JSON values (integer -> INT64, string -> STRING). */
static void batch_from_json(hoodie_batch *b, json_t *data, const char *const *names, size_t n)
{
    hoodie_field root;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (size_t c = 0; c < n; c++) {
        hoodie_type_id id = HOODIE_TYPE_STRING;
        size_t i;
        json_t *row;
        json_array_foreach(data, i, row) {
            json_t *v = json_object_get(row, names[c]);
            if (json_is_integer(v)) { id = HOODIE_TYPE_INT64; break; }
            if (json_is_string(v)) break;
        }
        hoodie_field f;
        hoodie_assert_ok(hoodie_field_init(&f, names[c], hoodie_type_of(id), 1));
        hoodie_assert_ok(hoodie_field_add_child(&root, &f));
        hoodie_field_dispose(&f);
    }
    hoodie_assert_ok(hoodie_batch_init(b, &root));
    hoodie_field_dispose(&root);
    size_t i;
    json_t *row;
    json_array_foreach(data, i, row) {
        for (size_t c = 0; c < n; c++) {
            const hoodie_field *f = &b->schema.children[c];
            hoodie_array *a = &b->root.children[c];
            json_t *v = json_object_get(row, names[c]);
            if (!v || json_is_null(v)) hoodie_assert_ok(hoodie_array_append_null(a, f));
            else if (f->type.id == HOODIE_TYPE_INT64) hoodie_assert_ok(hoodie_array_append_int(a, f, json_integer_value(v)));
            else hoodie_assert_ok(hoodie_array_append_str(a, f, json_string_value(v)));
        }
        hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
    }
}

static void check_fixture(const char *table)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", hoodie_fixture(table));
    hoodie_table_config *cfg = NULL;
    hoodie_assert_ok(hoodie_table_config_load(&cfg, NULL, dir, 0));
    const char *names[16];
    size_t n = 0;
    for (size_t i = 0; i < cfg->record_key_fields.count; i++) names[n++] = cfg->record_key_fields.items[i];
    for (size_t i = 0; i < cfg->partition_fields.count; i++) names[n++] = cfg->partition_fields.items[i];
    char sql[4096];
    size_t o = (size_t)snprintf(sql, sizeof sql, "select ");
    for (size_t i = 0; i < n; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, "%s, ", names[i]);
    snprintf(sql + o, sizeof sql - o,
             "_hoodie_record_key, _hoodie_partition_path from read_parquet('%s/**/*.parquet', hive_partitioning=false, "
             "union_by_name=true) where _hoodie_record_key is not null", dir);
    json_t *data = duck(sql);
    hoodie_assert(json_array_size(data) > 0);
    hoodie_batch b;
    batch_from_json(&b, data, names, n);
    hoodie_keygen_plan kg;
    hoodie_assert_ok(hoodie_keygen_init(&kg, cfg, &b.schema));
    hoodie_keygen_out keys, parts;
    hoodie_keygen_out_init(&keys);
    hoodie_keygen_out_init(&parts);
    hoodie_assert_ok(hoodie_keygen_record_keys(&kg, &b, &keys));
    hoodie_assert_ok(hoodie_keygen_partition_paths(&kg, &b, &parts));
    size_t i;
    json_t *row;
    char got[1024];
    json_array_foreach(data, i, row) {
        int64_t len = keys.offsets[i + 1] - keys.offsets[i];
        snprintf(got, sizeof got, "%.*s", (int)len, (const char *)keys.data.data + keys.offsets[i]);
        hoodie_assert_equal_s(json_string_value(json_object_get(row, "_hoodie_record_key")), got);
        len = parts.offsets[i + 1] - parts.offsets[i];
        snprintf(got, sizeof got, "%.*s", (int)len, (const char *)parts.data.data + parts.offsets[i]);
        hoodie_assert_equal_s(json_string_value(json_object_get(row, "_hoodie_partition_path")), got);
    }
    hoodie_keygen_out_dispose(&keys);
    hoodie_keygen_out_dispose(&parts);
    hoodie_keygen_dispose(&kg);
    hoodie_batch_dispose(&b);
    json_decref(data);
    hoodie_table_config_free(cfg);
}

HOODIE_TEST(table_keygen__fixture_tables)
{
    static const char *const tables[] = {
        "cow_v6_complexkeygen_hivestyle", "cow_v6_nonpartitioned", "cow_v6_simplekeygen_nonhivestyle",
        "cow_v6_simplekeygen_nonhivestyle_overwritetable", "cow_v8_complexkeygen_hivestyle", "cow_v8_nonpartitioned",
        "cow_v8_simplekeygen_nonhivestyle", "cow_v8_simplekeygen_nonhivestyle_overwritetable",
        "cow_v9_txns_nonpart_nometa", "mor_parquet_v6_complexkeygen_hivestyle", "mor_parquet_v6_nonpartitioned",
        "mor_parquet_v6_nonpartitioned_rollback", "mor_parquet_v6_simplekeygen_nonhivestyle",
        "trips_mor_avro_table_column_projection", "trips_mor_avro_table_log_only", "trips_mor_avro_v6_trips_8i1u",
        "trips_mor_avro_v8_trips_8i1u", "trips_mor_avro_v8_trips_8i3d", "trips_mor_avro_v9_mor_nonpart_3commits",
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "hudi/tables/%s", tables[i]);
        check_fixture(rel);
    }
}

/* ---- hand-made cases ---- */

static hoodie_table_config *cfg_of(const char *text)
{
    hoodie_table_config *c = NULL;
    hoodie_assert_ok(hoodie_table_config_parse(&c, text, strlen(text), "test", HOODIE_CONFIG_NO_CHECKSUM));
    return c;
}

/* columns: id INT64, name STRING, ts INT64, nested STRUCT{city STRING} */
static void sample_batch(hoodie_batch *b)
{
    hoodie_field root, f, nested, city;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&f, "id", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(&root, &f)); hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_init(&f, "name", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(&root, &f)); hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_init(&f, "ts", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(&root, &f)); hoodie_field_dispose(&f);
    hoodie_assert_ok(hoodie_field_init(&nested, "nested", hoodie_type_of(HOODIE_TYPE_STRUCT), 1));
    hoodie_assert_ok(hoodie_field_init(&city, "city", hoodie_type_of(HOODIE_TYPE_STRING), 1));
    hoodie_assert_ok(hoodie_field_add_child(&nested, &city)); hoodie_field_dispose(&city);
    hoodie_assert_ok(hoodie_field_add_child(&root, &nested)); hoodie_field_dispose(&nested);
    hoodie_assert_ok(hoodie_batch_init(b, &root));
    hoodie_field_dispose(&root);
    /* rows: (1, "a/b", 1700000000123, {city "sf"}), (2, "", null, {city ""}), (3, null, 86400000, null) */
    const hoodie_field *F = b->schema.children;
    hoodie_array *A = b->root.children;
    hoodie_assert_ok(hoodie_array_append_int(&A[0], &F[0], 1));
    hoodie_assert_ok(hoodie_array_append_str(&A[1], &F[1], "a/b"));
    hoodie_assert_ok(hoodie_array_append_int(&A[2], &F[2], 1700000000123LL));
    hoodie_assert_ok(hoodie_array_append_str(&A[3].children[0], &F[3].children[0], "sf"));
    hoodie_assert_ok(hoodie_array_struct_end(&A[3], &F[3]));
    hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
    hoodie_assert_ok(hoodie_array_append_int(&A[0], &F[0], 2));
    hoodie_assert_ok(hoodie_array_append_str(&A[1], &F[1], ""));
    hoodie_assert_ok(hoodie_array_append_null(&A[2], &F[2]));
    hoodie_assert_ok(hoodie_array_append_str(&A[3].children[0], &F[3].children[0], ""));
    hoodie_assert_ok(hoodie_array_struct_end(&A[3], &F[3]));
    hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
    hoodie_assert_ok(hoodie_array_append_int(&A[0], &F[0], 3));
    hoodie_assert_ok(hoodie_array_append_null(&A[1], &F[1]));
    hoodie_assert_ok(hoodie_array_append_int(&A[2], &F[2], 86400000));
    hoodie_assert_ok(hoodie_array_append_null(&A[3], &F[3]));
    hoodie_assert_ok(hoodie_array_struct_end(&b->root, &b->schema));
}

static char *joined(const hoodie_keygen_out *o)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    for (int64_t i = 0; i < o->rows; i++) {
        if (i) hoodie_buf_putc(&b, '|');
        hoodie_buf_append(&b, o->data.data + o->offsets[i], (size_t)(o->offsets[i + 1] - o->offsets[i]));
    }
    hoodie_buf_cstr(&b);
    return (char *)hoodie_buf_detach(&b, NULL);
}

static void expect(const char *props, const char *want_keys, const char *want_parts)
{
    hoodie_table_config *c = cfg_of(props);
    hoodie_batch b;
    sample_batch(&b);
    hoodie_keygen_plan kg;
    hoodie_assert_ok(hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_keygen_out k, p;
    hoodie_keygen_out_init(&k);
    hoodie_keygen_out_init(&p);
    if (want_keys) {
        hoodie_assert_ok(hoodie_keygen_record_keys(&kg, &b, &k));
        char *s = joined(&k);
        hoodie_assert_equal_s(want_keys, s);
        free(s);
    }
    hoodie_assert_ok(hoodie_keygen_partition_paths(&kg, &b, &p));
    char *s = joined(&p);
    hoodie_assert_equal_s(want_parts, s);
    free(s);
    hoodie_keygen_out_dispose(&k);
    hoodie_keygen_out_dispose(&p);
    hoodie_keygen_dispose(&kg);
    hoodie_batch_dispose(&b);
    hoodie_table_config_free(c);
}

#define BASE "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.timeline.layout.version=2\n"

HOODIE_TEST(table_keygen__complex_placeholders_and_nested)
{
    expect(BASE "hoodie.table.recordkey.fields=id,name\nhoodie.table.partition.fields=nested.city,name\n"
                "hoodie.table.keygenerator.type=COMPLEX\nhoodie.datasource.write.hive_style_partitioning=true\n",
           "id:1,name:a/b|id:2,name:__empty__|id:3,name:__null__",
           "nested.city=sf/name=a/b|nested.city=__HIVE_DEFAULT_PARTITION__/name=__HIVE_DEFAULT_PARTITION__|"
           "nested.city=__HIVE_DEFAULT_PARTITION__/name=__HIVE_DEFAULT_PARTITION__");
}

HOODIE_TEST(table_keygen__simple_url_encoded)
{
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=name\n"
                "hoodie.table.keygenerator.type=SIMPLE\nhoodie.datasource.write.partitionpath.urlencode=true\n",
           "1|2|3", "a%2Fb|__HIVE_DEFAULT_PARTITION__|__HIVE_DEFAULT_PARTITION__");
}

/* One top-level string partition field (the writer's fast path): hive style or not, null and empty values. */
HOODIE_TEST(table_keygen__simple_string_partition)
{
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=name\n"
                "hoodie.table.keygenerator.type=SIMPLE\nhoodie.datasource.write.hive_style_partitioning=true\n",
           "1|2|3", "name=a/b|name=__HIVE_DEFAULT_PARTITION__|name=__HIVE_DEFAULT_PARTITION__");
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=name\n"
                "hoodie.table.keygenerator.type=SIMPLE\n",
           "1|2|3", "a/b|__HIVE_DEFAULT_PARTITION__|__HIVE_DEFAULT_PARTITION__");
}

/* A string record key field: the keys are its values; an empty or a null one is refused, naming the row. */
HOODIE_TEST(table_keygen__string_key_refuses_empty_and_null)
{
    hoodie_table_config *c = cfg_of(BASE "hoodie.table.recordkey.fields=name\nhoodie.table.keygenerator.type=NON_PARTITION\n");
    hoodie_batch b;
    sample_batch(&b);
    hoodie_keygen_plan kg;
    hoodie_assert_ok(hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_keygen_out k;
    hoodie_keygen_out_init(&k);
    hoodie_assert_equal_i(HOODIE_EINVAL, hoodie_keygen_record_keys(&kg, &b, &k));
    hoodie_assert_equal_s("row 1: record key field 'name' is empty", hoodie_error_last()->message);
    hoodie_error_clear();
    b.root.length = 1; /* the first row alone: "a/b" */
    hoodie_assert_ok(hoodie_keygen_record_keys(&kg, &b, &k));
    char *j = joined(&k);
    hoodie_assert_equal_s("a/b", j);
    free(j);
    b.root.length = 3;
    hoodie_keygen_out_dispose(&k);
    hoodie_keygen_dispose(&kg);
    hoodie_batch_dispose(&b);
    hoodie_table_config_free(c);
}

HOODIE_TEST(table_keygen__nonpartitioned)
{
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.keygenerator.type=NON_PARTITION\n", "1|2|3", "||");
}

HOODIE_TEST(table_keygen__timestamp)
{
    /* 1700000000123 ms = 2023-11-14T22:13:20.123Z; null -> 1 ms; 86400000 -> 1970-01-02 */
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=ts\n"
                "hoodie.table.keygenerator.type=TIMESTAMP\n"
                "hoodie.keygen.timebased.timestamp.type=EPOCHMILLISECONDS\n"
                "hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd\n",
           "1|2|3", "2023/11/14|1970/01/01|1970/01/02");
    expect(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=ts\n"
                "hoodie.table.keygenerator.type=TIMESTAMP\nhoodie.datasource.write.hive_style_partitioning=true\n"
                "hoodie.keygen.timebased.timestamp.type=SCALAR\n"
                "hoodie.keygen.timebased.timestamp.scalar.time.unit=MICROSECONDS\n"
                "hoodie.keygen.timebased.output.dateformat=yyyyMMdd'T'HH:mm:ss.SSS\n",
           NULL, "ts=19700120T16:13:20.000|ts=19700101T00:00:00.000|ts=19700101T00:01:26.400");
}

HOODIE_TEST(table_keygen__custom)
{
    expect(BASE "hoodie.table.recordkey.fields=id,name\nhoodie.table.partition.fields=name:SIMPLE,ts:TIMESTAMP\n"
                "hoodie.table.keygenerator.type=CUSTOM\nhoodie.keygen.timebased.timestamp.type=UNIX_TIMESTAMP\n"
                "hoodie.keygen.timebased.output.dateformat=yyyy-MM-dd HH\n",
           "id:1,name:a/b|id:2,name:__empty__|id:3,name:__null__",
           "a/b/55840-11-08 22|__HIVE_DEFAULT_PARTITION__/1970-01-01 00|__HIVE_DEFAULT_PARTITION__/1972-09-27 00");
}

HOODIE_TEST(table_keygen__errors)
{
    hoodie_batch b;
    sample_batch(&b);
    hoodie_keygen_plan kg;
    hoodie_keygen_out k;
    hoodie_keygen_out_init(&k);
    /* simple key on a null/empty value: error naming row and field */
    hoodie_table_config *c = cfg_of(BASE "hoodie.table.recordkey.fields=name\nhoodie.table.keygenerator.type=NON_PARTITION\n");
    hoodie_assert_ok(hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_keygen_record_keys(&kg, &b, &k));
    hoodie_assert_contains(hoodie_error_last()->message, "row 1");
    hoodie_assert_contains(hoodie_error_last()->message, "'name'");
    hoodie_keygen_dispose(&kg);
    hoodie_table_config_free(c);
    /* complex key all null/empty */
    c = cfg_of(BASE "hoodie.table.recordkey.fields=name,nested.city\nhoodie.table.keygenerator.type=COMPLEX\n");
    hoodie_assert_ok(hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_assert_status(HOODIE_EINVAL, hoodie_keygen_record_keys(&kg, &b, &k));
    hoodie_assert_contains(hoodie_error_last()->message, "row 1");
    hoodie_keygen_dispose(&kg);
    hoodie_table_config_free(c);
    /* unknown column, path through a non-struct, unsupported timestamp type */
    c = cfg_of(BASE "hoodie.table.recordkey.fields=nope\n");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_assert_contains(hoodie_error_last()->message, "nope");
    hoodie_table_config_free(c);
    c = cfg_of(BASE "hoodie.table.recordkey.fields=id.x\n");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_table_config_free(c);
    c = cfg_of(BASE "hoodie.table.recordkey.fields=id\nhoodie.table.partition.fields=ts\n"
                    "hoodie.table.keygenerator.type=TIMESTAMP\nhoodie.keygen.timebased.timestamp.type=DATE_STRING\n");
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_keygen_init(&kg, c, &b.schema));
    hoodie_table_config_free(c);
    hoodie_keygen_out_dispose(&k);
    hoodie_batch_dispose(&b);
}

HOODIE_TEST(table_keygen__escape)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    const char in[] = "a b/c:d=e%f#g?h\\i{j[k]l^m*n'o\"p\x01q\x7fr\xc3\xa9";
    hoodie_assert_ok(hoodie_keygen_escape_path(&b, in, sizeof in - 1));
    hoodie_assert_ok(hoodie_buf_cstr(&b));
    hoodie_assert_equal_s("a b%2Fc%3Ad%3De%25f%23g%3Fh%5Ci%7Bj%5Bk%5Dl%5Em%2An%27o%22p%01q%7Fr\xc3\xa9", (const char *)b.data);
    hoodie_buf_dispose(&b);
}
