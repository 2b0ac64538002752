#include "hoodie_test.h"
#include "format/avro/binary.h"
#include "model/avro.h"
#include "model/render.h"

static const char *WRITER =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"int\"},"
    "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"gone\",\"type\":\"string\"},"
    "{\"name\":\"price\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d\",\"size\":5,\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}]},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
    "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
    "{\"name\":\"attrs\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\"}]},"
    "{\"name\":\"inner\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"in\",\"fields\":[{\"name\":\"x\",\"type\":\"double\"}]}]}"
    "]}";

/* The reader: id promoted to long, 'gone' dropped, 'added' new (nullable), ts read as microseconds. */
static const char *READER =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"id\",\"type\":\"long\"},"
    "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"price\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d\",\"size\":5,\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}]},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
    "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
    "{\"name\":\"attrs\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\"}]},"
    "{\"name\":\"inner\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"in\",\"fields\":[{\"name\":\"x\",\"type\":\"double\"}]}]},"
    "{\"name\":\"added\",\"type\":[\"null\",\"int\"],\"default\":null}"
    "]}";

static void encode_row(hoodie_buf *b, int id, const char *name, long long price_cents, long long ts_ms, int with_map)
{
    hoodie_avro_write_long(b, id);
    if (name) { hoodie_avro_write_long(b, 1); hoodie_avro_write_bytes(b, name, strlen(name)); }
    else hoodie_avro_write_long(b, 0);
    hoodie_avro_write_bytes(b, "bye", 3);
    hoodie_avro_write_long(b, 1);
    uint8_t be[5];
    for (int i = 0; i < 5; i++) be[4 - i] = (uint8_t)((unsigned long long)price_cents >> (8 * i));
    hoodie_buf_append(b, be, 5);
    hoodie_avro_write_long(b, ts_ms);
    hoodie_avro_write_long(b, 2);
    hoodie_avro_write_bytes(b, "a", 1);
    hoodie_avro_write_bytes(b, "b", 1);
    hoodie_avro_write_long(b, 0);
    if (with_map) {
        hoodie_avro_write_long(b, 1);
        hoodie_avro_write_long(b, -1); /* a negative block count: byte size follows */
        hoodie_avro_write_long(b, 3);
        hoodie_avro_write_bytes(b, "k", 1);
        hoodie_avro_write_long(b, 42);
        hoodie_avro_write_long(b, 0);
    } else hoodie_avro_write_long(b, 0);
    hoodie_avro_write_long(b, 1);
    hoodie_avro_write_double(b, 1.5);
}

/* The two rows of `enc` decoded as `rf` and rendered as CSV (header first) into *csv (a C string). */
static void decode_two_csv(hoodie_avro_decoder *d, const hoodie_buf *enc, const hoodie_field *rf, hoodie_buf *csv)
{
    hoodie_batch batch;
    hoodie_assert_ok(hoodie_batch_init(&batch, rf));
    hoodie_cursor c = HOODIE_CURSOR_INIT(enc->data, enc->len);
    hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &batch.root));
    hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &batch.root));
    hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
    hoodie_assert_equal_i(2, hoodie_batch_rows(&batch));
    hoodie_assert_ok(hoodie_render_csv(csv, &batch, 1));
    hoodie_assert_ok(hoodie_buf_cstr(csv));
    hoodie_batch_dispose(&batch);
}

HOODIE_TEST(model_avro__decode_with_schema_resolution)
{
    hoodie_arena *a;
    hoodie_avro_schema *ws, *rs;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    hoodie_assert_ok(hoodie_avro_schema_parse(&ws, WRITER, strlen(WRITER), a, "w"));
    hoodie_assert_ok(hoodie_avro_schema_parse(&rs, READER, strlen(READER), a, "r"));
    hoodie_field rf;
    hoodie_assert_ok(hoodie_avro_to_field(&rf, rs, "root"));
    hoodie_assert_equal_i(HOODIE_TYPE_STRUCT, rf.type.id);
    hoodie_assert_equal_i(8, rf.n_children);
    hoodie_assert_equal_i(HOODIE_TYPE_INT64, rf.children[0].type.id);
    hoodie_assert_equal_i(HOODIE_TYPE_DECIMAL, rf.children[2].type.id);
    hoodie_assert_equal_i(HOODIE_TYPE_MAP, rf.children[5].type.id);

    hoodie_avro_decoder *d;
    hoodie_assert_ok(hoodie_avro_decoder_new(&d, ws, &rf));
    hoodie_buf enc = HOODIE_BUF_INIT;
    encode_row(&enc, 7, "alice", 12345, 1700000000123LL, 1);
    encode_row(&enc, -8, NULL, -5, 0, 0);
    hoodie_buf csv = HOODIE_BUF_INIT;
    decode_two_csv(d, &enc, &rf, &csv);
    hoodie_assert_equal_s("id,name,price,ts,tags,attrs,inner,added\n"
                          "7,alice,123.45,2023-11-14 22:13:20.123+00,\"[a, b]\",{k=42},{'x': 1.5},\n"
                          "-8,,-0.05,1970-01-01 00:00:00+00,\"[a, b]\",,{'x': 1.5},\n",
                          (const char *)csv.data);

    /* truncated input: an error at an offset, never a crash */
    for (size_t cut = 0; cut < enc.len / 2; cut++) {
        hoodie_batch b2;
        hoodie_assert_ok(hoodie_batch_init(&b2, &rf));
        hoodie_cursor t = HOODIE_CURSOR_INIT(enc.data, cut);
        hoodie_status rc = hoodie_avro_decode_row(d, &t, &b2.root);
        hoodie_assert(rc == HOODIE_ECORRUPT);
        hoodie_batch_dispose(&b2);
    }
    hoodie_buf_dispose(&csv);
    hoodie_buf_dispose(&enc);
    hoodie_avro_decoder_free(d);
    hoodie_field_dispose(&rf);
    hoodie_arena_free(a);
}

HOODIE_TEST(model_avro__incompatible_types_are_refused)
{
    hoodie_arena *a;
    hoodie_avro_schema *ws;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    const char *w = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}";
    hoodie_assert_ok(hoodie_avro_schema_parse(&ws, w, strlen(w), a, "w"));
    hoodie_field root, id;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&id, "id", hoodie_type_of(HOODIE_TYPE_INT64), 0));
    hoodie_assert_ok(hoodie_field_add_child(&root, &id));
    hoodie_avro_decoder *d;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_avro_decoder_new(&d, ws, &root));
    hoodie_assert_contains(hoodie_error_last()->message, "'id'");
    hoodie_field_dispose(&id);
    hoodie_field_dispose(&root);
    hoodie_arena_free(a);
}

/* A reader whose types a schema change altered (Hudi's ALTER COLUMN ... TYPE): old blocks' values converted as
 * they are decoded, in [null, T] unions and in a top-level field (hoodie_conform_append's conversions). */
HOODIE_TEST(model_avro__decode_converts_changed_types)
{
    hoodie_arena *a;
    hoodie_avro_schema *ws, *rs;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    const char *w = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                    "{\"name\":\"i\",\"type\":[\"null\",\"int\"]},"
                    "{\"name\":\"f\",\"type\":\"float\"},"
                    "{\"name\":\"p\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d\",\"size\":3,"
                    "\"logicalType\":\"decimal\",\"precision\":5,\"scale\":2}]},"
                    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
                    "{\"name\":\"dt\",\"type\":[\"null\",\"string\"]},"
                    "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}]}";
    const char *r = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                    "{\"name\":\"i\",\"type\":[\"null\",\"string\"]},"
                    "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"e\",\"size\":5,"
                    "\"logicalType\":\"decimal\",\"precision\":10,\"scale\":3}},"
                    "{\"name\":\"p\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d2\",\"size\":4,"
                    "\"logicalType\":\"decimal\",\"precision\":8,\"scale\":3}]},"
                    "{\"name\":\"s\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"d3\",\"size\":3,"
                    "\"logicalType\":\"decimal\",\"precision\":6,\"scale\":2}]},"
                    "{\"name\":\"dt\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]},"
                    "{\"name\":\"day\",\"type\":\"string\"}]}";
    hoodie_assert_ok(hoodie_avro_schema_parse(&ws, w, strlen(w), a, "w"));
    hoodie_assert_ok(hoodie_avro_schema_parse(&rs, r, strlen(r), a, "r"));
    hoodie_field rf;
    hoodie_assert_ok(hoodie_avro_to_field(&rf, rs, "root"));
    hoodie_avro_decoder *d;
    hoodie_assert_ok(hoodie_avro_decoder_new(&d, ws, &rf));
    hoodie_buf enc = HOODIE_BUF_INIT;
    for (int row = 0; row < 2; row++) {
        hoodie_avro_write_long(&enc, 1); /* i */
        hoodie_avro_write_long(&enc, row ? -7 : 12);
        hoodie_avro_write_float(&enc, row ? 0.125f : 0.1f);
        hoodie_avro_write_long(&enc, 1); /* p: 123.45, -0.01 */
        const uint8_t p0[3] = { 0x00, 0x30, 0x39 }, p1[3] = { 0xff, 0xff, 0xff };
        hoodie_buf_append(&enc, row ? p1 : p0, 3);
        hoodie_avro_write_long(&enc, row ? 0 : 1); /* s: " 1.005 ", null */
        if (!row) hoodie_avro_write_bytes(&enc, " 1.005 ", 7);
        hoodie_avro_write_long(&enc, 1); /* dt */
        const char *dt = row ? "2024-13-01" : "2024-1-5";
        hoodie_avro_write_bytes(&enc, dt, strlen(dt));
        hoodie_avro_write_long(&enc, row ? -1 : 19782); /* day */
    }
    hoodie_buf csv = HOODIE_BUF_INIT;
    decode_two_csv(d, &enc, &rf, &csv);
    hoodie_assert_equal_s("i,f,p,s,dt,day\n"
                          "12,0.100,123.450,1.01,2024-01-05,2024-02-29\n"
                          "-7,0.125,-0.010,,,1969-12-31\n",
                          (const char *)csv.data);
    hoodie_buf_dispose(&csv);
    hoodie_buf_dispose(&enc);
    hoodie_avro_decoder_free(d);
    hoodie_field_dispose(&rf);
    hoodie_arena_free(a);
}
