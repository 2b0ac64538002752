#include "hoodie_test.h"
#include "model_gen.h"
#include "format/avro/schema.h"
#include "format/hlog/hlog.h"
#include "format/parquet/meta.h"
#include "format/props.h"
#include "model/avro.h"
#include "model/avro_schema_gen.h"
#include "storage/storage.h"
#include "util/error.h"

#include <dirent.h>
#include <stdlib.h>

typedef struct seen {
    size_t create, log, parquet, spark_style, null_first, meta;
} seen;

/* Regenerate one fixture schema from the field tree it reads as; it must come out as the same string. */
static void check_schema(const char *json, size_t len, const char *what, seen *st)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_field f;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    hoodie_assert_ok(hoodie_avro_schema_parse(&s, json, len, a, what));
    hoodie_assert_ok(hoodie_avro_to_field(&f, s, "root"));
    /* full name "hoodie.<t>.<t>_record" */
    const char *dot = strrchr(s->name, '.');
    hoodie_assert(dot != NULL);
    char table[256];
    size_t tl = strlen(dot + 1);
    hoodie_assert(tl > 7 && tl < sizeof table && !strcmp(dot + 1 + tl - 7, "_record"));
    memcpy(table, dot + 1, tl - 7);
    table[tl - 7] = 0;
    int flags = strstr(json, "\"default\":null") ? HOODIE_AVRO_GEN_NULL_FIRST : HOODIE_AVRO_GEN_SPARK;
    if (strstr(json, "{\"name\":\"_hoodie_commit_time\"")) flags |= HOODIE_AVRO_GEN_META_FIELDS;
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_schema_gen(&out, &f, table, flags));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    if (out.len != len || memcmp(out.data, json, len) != 0) {
        size_t i = 0;
        while (i < len && i < out.len && out.data[i] == (uint8_t)json[i]) i++;
        hoodie_test__fail(__FILE__, __LINE__, "%s: generated schema differs at %zu:\n  want ...%.120s\n  got  ...%.120s",
                          what, i, json + (i > 40 ? i - 40 : 0), (const char *)out.data + (i > 40 ? i - 40 : 0));
    }
    if (flags & HOODIE_AVRO_GEN_NULL_FIRST) st->null_first++; else st->spark_style++;
    if (flags & HOODIE_AVRO_GEN_META_FIELDS) st->meta++;
    hoodie_buf_dispose(&out);
    hoodie_field_dispose(&f);
    hoodie_arena_free(a);
}

static void check_log(const char *path, seen *st)
{
    hoodie_buf in = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &in));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, in.data, in.len, path));
    while (hoodie_hlog_iter_next(&it, &b) == HOODIE_OK) {
        if (!b.header[HOODIE_HLOG_SCHEMA]) continue;
        check_schema(b.header[HOODIE_HLOG_SCHEMA], b.header_len[HOODIE_HLOG_SCHEMA], path, st);
        st->log++;
    }
    hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&in);
}

static void check_parquet(const char *path, seen *st)
{
    hoodie_buf in = HOODIE_BUF_INIT;
    hoodie_arena *a;
    hoodie_pq_file_meta m;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &in));
    hoodie_assert(in.len > 12);
    uint32_t flen = (uint32_t)in.data[in.len - 8] | (uint32_t)in.data[in.len - 7] << 8 |
                    (uint32_t)in.data[in.len - 6] << 16 | (uint32_t)in.data[in.len - 5] << 24;
    hoodie_assert(flen + 8 <= in.len);
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    hoodie_cursor c;
    hoodie_cursor_init(&c, in.data + in.len - 8 - flen, flen, in.len - 8 - flen, path);
    hoodie_assert_ok(hoodie_pq_file_meta_decode(&m, &c, a));
    for (uint32_t i = 0; i < m.kv_count; i++) {
        if (strcmp(m.kv[i].key, "parquet.avro.schema") || !m.kv[i].value) continue;
        check_schema(m.kv[i].value, strlen(m.kv[i].value), path, st);
        st->parquet++;
    }
    hoodie_arena_free(a);
    hoodie_buf_dispose(&in);
}

static void walk(const char *dir, int depth, seen *st)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d))) {
        char p[2048];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie") ||
            !strcmp(e->d_name, "gold_data"))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR) {
            if (depth < 4) walk(p, depth + 1, st);
        } else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) {
            check_log(p, st);
        } else if (n > 8 && !strcmp(e->d_name + n - 8, ".parquet")) {
            check_parquet(p, st);
        }
    }
    closedir(d);
}

HOODIE_TEST(model_avro_schema_gen__fixture_schemas_regenerate_exactly)
{
    seen st;
    memset(&st, 0, sizeof st);
    const char *tables = hoodie_fixture("hudi/tables");
    char root[1024];
    snprintf(root, sizeof root, "%s", tables);
    DIR *d = opendir(root);
    struct dirent *e;
    hoodie_assert(d != NULL);
    while ((e = readdir(d))) {
        char p[1400];
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s/.hoodie/hoodie.properties", root, e->d_name);
        hoodie_buf in = HOODIE_BUF_INIT;
        if (hoodie_storage_read_all(hoodie_storage_posix(), p, &in) != HOODIE_OK) { hoodie_buf_dispose(&in); continue; }
        hoodie_props props;
        hoodie_props_init(&props);
        hoodie_assert_ok(hoodie_props_parse(&props, in.data, in.len, p));
        const char *s = hoodie_props_get(&props, "hoodie.table.create.schema");
        if (s) {
            check_schema(s, strlen(s), p, &st);
            st.create++;
        }
        hoodie_props_dispose(&props);
        hoodie_buf_dispose(&in);
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        walk(p, 0, &st);
    }
    closedir(d);
    walk(hoodie_fixture("hudi/standalone/log_files"), 0, &st);
    fprintf(stderr, "  regenerated %zu create schemas, %zu log schemas, %zu parquet.avro.schema (%zu Spark style, "
            "%zu null-first, %zu with meta fields)\n", st.create, st.log, st.parquet, st.spark_style, st.null_first,
            st.meta);
    hoodie_assert(st.create >= 20);
    hoodie_assert(st.log >= 15);
    hoodie_assert(st.parquet >= 20);
    hoodie_assert(st.spark_style >= 15);
    hoodie_assert(st.meta >= 30);
}

HOODIE_TEST(model_avro_schema_gen__styles_and_types)
{
    hoodie_field root;
    hoodie_assert_ok(hoodie_field_init(&root, "", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&root, gen_leaf("id", HOODIE_TYPE_INT64, 0));
    hoodie_field dec = gen_leaf("amount", HOODIE_TYPE_DECIMAL, 1);
    dec.type.precision = 38;
    dec.type.scale = 4;
    gen_add(&root, dec);
    hoodie_field ts = gen_leaf("ts", HOODIE_TYPE_TIMESTAMP, 1);
    ts.type.unit = HOODIE_UNIT_NANO; /* Spark keeps microseconds */
    ts.type.utc = 1;
    gen_add(&root, ts);
    hoodie_field lts = gen_leaf("lts", HOODIE_TYPE_TIMESTAMP, 0);
    lts.type.unit = HOODIE_UNIT_MILLI;
    gen_add(&root, lts);
    gen_add(&root, gen_list("tags", gen_leaf("element", HOODIE_TYPE_STRING, 0)));
    gen_add(&root, gen_map("m", gen_leaf("key", HOODIE_TYPE_STRING, 0), gen_leaf("value", HOODIE_TYPE_INT16, 1)));

    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_schema_gen(&out, &root, "tb", HOODIE_AVRO_GEN_SPARK));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    hoodie_assert_equal_s(
        "{\"type\":\"record\",\"name\":\"tb_record\",\"namespace\":\"hoodie.tb\",\"fields\":["
        "{\"name\":\"id\",\"type\":\"long\"},"
        "{\"name\":\"amount\",\"type\":[{\"type\":\"fixed\",\"name\":\"fixed\",\"namespace\":\"hoodie.tb.tb_record.amount\","
        "\"size\":16,\"logicalType\":\"decimal\",\"precision\":38,\"scale\":4},\"null\"]},"
        "{\"name\":\"ts\",\"type\":[{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"},\"null\"]},"
        "{\"name\":\"lts\",\"type\":{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}},"
        "{\"name\":\"tags\",\"type\":[{\"type\":\"array\",\"items\":\"string\"},\"null\"]},"
        "{\"name\":\"m\",\"type\":[{\"type\":\"map\",\"values\":[\"int\",\"null\"]},\"null\"]}]}",
        (const char *)out.data);
    hoodie_buf_clear(&out);
    hoodie_assert_ok(hoodie_avro_schema_gen(&out, &root, "tb", HOODIE_AVRO_GEN_NULL_FIRST | HOODIE_AVRO_GEN_META_FIELDS));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    hoodie_assert_contains((const char *)out.data,
        "\"fields\":[{\"name\":\"_hoodie_commit_time\",\"type\":[\"null\",\"string\"],\"doc\":\"\",\"default\":null},");
    hoodie_assert_contains((const char *)out.data,
        "{\"name\":\"_hoodie_file_name\",\"type\":[\"null\",\"string\"],\"doc\":\"\",\"default\":null},"
        "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":[\"null\",{\"type\":\"fixed\"");
    hoodie_assert_contains((const char *)out.data,
        "{\"name\":\"m\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"null\",\"int\"]}],\"default\":null}]}");

    /* the generated schema parses and reads back as the same types (Spark's normalisations aside) */
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_field back;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_avro_schema_parse(&s, (const char *)out.data, out.len, a, "gen"));
    hoodie_assert_ok(hoodie_avro_to_field(&back, s, "root"));
    hoodie_assert_equal_i(5 + 6, back.n_children);
    hoodie_assert_equal_i(HOODIE_TYPE_DECIMAL, back.children[6].type.id);
    hoodie_assert_equal_i(38, back.children[6].type.precision);
    hoodie_assert_equal_i(HOODIE_UNIT_MICRO, back.children[7].type.unit);
    hoodie_assert_equal_i(0, back.children[8].type.utc);
    hoodie_field_dispose(&back);
    hoodie_arena_free(a);

    /* unsupported types name the field and leave the buffer alone */
    size_t len = out.len;
    gen_add(&root, gen_map("bad", gen_leaf("key", HOODIE_TYPE_INT32, 0), gen_leaf("value", HOODIE_TYPE_INT32, 1)));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_avro_schema_gen(&out, &root, "tb", HOODIE_AVRO_GEN_SPARK));
    hoodie_assert_contains(hoodie_error_last()->message, "'bad'");
    hoodie_assert_equal_i(len, out.len);
    hoodie_buf_dispose(&out);
    hoodie_field_dispose(&root);

    hoodie_assert_equal_i(1, hoodie_avro_decimal_fixed_size(2));
    hoodie_assert_equal_i(5, hoodie_avro_decimal_fixed_size(10));
    hoodie_assert_equal_i(7, hoodie_avro_decimal_fixed_size(15));
    hoodie_assert_equal_i(8, hoodie_avro_decimal_fixed_size(18));
    hoodie_assert_equal_i(9, hoodie_avro_decimal_fixed_size(19));
    hoodie_assert_equal_i(9, hoodie_avro_decimal_fixed_size(20));
    hoodie_assert_equal_i(16, hoodie_avro_decimal_fixed_size(38));
}
