#include "hoodie_test.h"
#include "format/avro/binary.h"
#include "format/avro/schema.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    if (p) p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}

HOODIE_TEST(format_avro_schema__hudi_base_file_schema)
{
    size_t len;
    char *json = slurp(HOODIE_SOURCE_DIR "/tests/data/hudi_schema_v6_complexkeygen.avsc", &len);
    hoodie_assert(json != NULL);
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_avro_schema_parse(&s, json, len, a, "schema.avsc"));
    hoodie_assert_equal_i(HOODIE_AVRO_RECORD, s->kind);
    hoodie_assert_equal_s("hoodie.v6_complexkeygen_hivestyle.v6_complexkeygen_hivestyle_record", s->name);
    hoodie_assert_equal_i(21, s->count);
    hoodie_assert_equal_s("_hoodie_commit_time", s->fields[0].name);
    hoodie_assert_equal_s("null", s->fields[0].default_json);
    int ni = -1;
    const hoodie_avro_schema *dec = hoodie_avro_nullable_branch(s->fields[hoodie_avro_field_index(s, "decimalField")].type, &ni);
    hoodie_assert(dec && ni == 0);
    hoodie_assert_equal_i(HOODIE_AVRO_FIXED, dec->kind);
    hoodie_assert_equal_i(HOODIE_AVRO_LT_DECIMAL, dec->logical);
    hoodie_assert_equal_i(10, dec->precision);
    hoodie_assert_equal_i(5, dec->scale);
    hoodie_assert_equal_i(5, dec->size);
    const hoodie_avro_schema *ts = hoodie_avro_nullable_branch(s->fields[hoodie_avro_field_index(s, "timestampField")].type, NULL);
    hoodie_assert_equal_i(HOODIE_AVRO_LT_TIMESTAMP_MICROS, ts->logical);
    const hoodie_avro_schema *st = hoodie_avro_nullable_branch(s->fields[hoodie_avro_field_index(s, "structField")].type, NULL);
    hoodie_assert_equal_i(HOODIE_AVRO_RECORD, st->kind);
    hoodie_assert_equal_s("child_struct", st->fields[2].name);
    const hoodie_avro_schema *map = hoodie_avro_nullable_branch(s->fields[hoodie_avro_field_index(s, "mapField")].type, NULL);
    hoodie_assert_equal_i(HOODIE_AVRO_MAP, map->kind);
    hoodie_arena_free(a);
    free(json);
}

HOODIE_TEST(format_avro_schema__named_references_and_errors)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    const char *ok = "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"fields\":["
                     "{\"name\":\"a\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}},"
                     "{\"name\":\"b\",\"type\":\"F\"},{\"name\":\"c\",\"type\":\"n.F\"},"
                     "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]}}]}";
    hoodie_assert_ok(hoodie_avro_schema_parse(&s, ok, strlen(ok), a, "t"));
    hoodie_assert(s->fields[0].type == s->fields[1].type && s->fields[1].type == s->fields[2].type);
    hoodie_assert_equal_i(2, s->fields[3].type->count);

    static const char *bad[] = {
        "{", "{\"type\":\"record\",\"name\":\"R\"}", "{\"type\":\"nope\"}", "[]", "42",
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}",
        "{\"type\":\"fixed\",\"name\":\"F\"}", "[\"int\",[\"null\"]]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hoodie_status rc = hoodie_avro_schema_parse(&s, bad[i], strlen(bad[i]), a, "bad.avsc");
        hoodie_assert_equal_i(HOODIE_ECORRUPT, rc);
        hoodie_assert_contains(hoodie_error_last()->message, "bad.avsc");
    }
    const char *rec = "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"L\"]}]}";
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_avro_schema_parse(&s, rec, strlen(rec), a, "t"));
    hoodie_arena_free(a);
}

HOODIE_TEST(format_avro_binary__primitives_and_skip)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_write_long(&b, -3));
    hoodie_assert_ok(hoodie_avro_write_bytes(&b, "abc", 3));
    hoodie_assert_ok(hoodie_avro_write_double(&b, 2.5));
    hoodie_assert_ok(hoodie_avro_write_long(&b, 2));   /* array block of 2 */
    hoodie_assert_ok(hoodie_avro_write_long(&b, 7));
    hoodie_assert_ok(hoodie_avro_write_long(&b, 8));
    hoodie_assert_ok(hoodie_avro_write_long(&b, 0));
    hoodie_assert_ok(hoodie_avro_write_long(&b, 99));
    hoodie_cursor c = HOODIE_CURSOR_INIT(b.data, b.len);
    hoodie_assert_equal_i(-3, hoodie_avro_read_long(&c));
    size_t n;
    const uint8_t *p = hoodie_avro_read_bytes(&c, &n);
    hoodie_assert(n == 3 && !memcmp(p, "abc", 3));
    hoodie_assert(hoodie_avro_read_double(&c) == 2.5);
    hoodie_arena *a;
    hoodie_avro_schema *arr;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 1024));
    const char *arr_json = "{\"type\":\"array\",\"items\":\"long\"}";
    hoodie_assert_ok(hoodie_avro_schema_parse(&arr, arr_json, strlen(arr_json), a, "t"));
    hoodie_avro_skip(&c, arr);
    hoodie_assert_equal_i(99, hoodie_avro_read_long(&c));
    hoodie_assert_equal_i(HOODIE_OK, c.status);
    /* a string longer than the buffer is corruption, not an overread */
    static const uint8_t liar[] = { 0x7e, 'x' };
    hoodie_cursor c2 = HOODIE_CURSOR_INIT(liar, sizeof liar);
    (void)hoodie_avro_read_bytes(&c2, &n);
    hoodie_assert_equal_i(HOODIE_ECORRUPT, c2.status);
    hoodie_arena_free(a);
    hoodie_buf_dispose(&b);
}
