#include "hoodie_test.h"
#include "format/avro/json.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdlib.h>
#include <zlib.h>

static const char *SCHEMA =
    "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"ns\",\"fields\":["
    "{\"name\":\"u\",\"type\":[\"null\",\"long\",\"string\"]},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"int\"}},"
    "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"ns.E\"}},"
    "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}},"
    "{\"name\":\"n\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"x\",\"type\":\"double\"}]}]},"
    "{\"name\":\"r\",\"type\":[\"null\",\"S\"]},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"d\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}]}";

/* u = branch 2 "hi"; e = B; m = {"k": -1} as a negative-count block; a = [A, B]; f = 0x01 0x02;
 * n = S{x = 1.5}; r = null; b = true; d = 19000 */
static const uint8_t DATUM[] = {
    0x04, 0x04, 'h', 'i',
    0x02,
    0x01, 0x0a, 0x02, 'k', 0x01, 0x00,
    0x04, 0x00, 0x02, 0x00,
    0x01, 0x02,
    0x02, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
    0x00,
    0x01,
    0xf0, 0xa8, 0x02,
};

HOODIE_TEST(format_avro_json__all_kinds)
{
    hoodie_avro_jschema s;
    hoodie_cursor c;
    json_t *v;
    hoodie_assert_ok(hoodie_avro_jschema_parse(&s, SCHEMA, strlen(SCHEMA), "s"));
    hoodie_cursor_init(&c, DATUM, sizeof DATUM, 0, "d");
    hoodie_assert_ok(hoodie_avro_decode_json(&s, &c, &v));
    hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
    char *text = json_dumps(v, JSON_COMPACT);
    hoodie_assert_equal_s("{\"u\":\"hi\",\"e\":\"B\",\"m\":{\"k\":-1},\"a\":[\"A\",\"B\"],\"f\":\"\\u0001\\u0002\","
                          "\"n\":{\"x\":1.5},\"r\":null,\"b\":true,\"d\":19000}", text);
    free(text);
    json_decref(v);
    /* every truncation is corrupt, naming the input */
    for (size_t cut = 0; cut < sizeof DATUM; cut++) {
        hoodie_cursor_init(&c, DATUM, cut, 100, "d.avro");
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro_decode_json(&s, &c, &v));
        hoodie_assert_contains(hoodie_error_last()->message, "d.avro");
    }
    /* bad union index, bad enum index, bad boolean */
    static const struct { size_t at; uint8_t val; } bad[] = { { 0, 0x06 }, { 4, 0x04 }, { 27, 0x02 }, { 0, 0x01 } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint8_t copy[sizeof DATUM];
        memcpy(copy, DATUM, sizeof DATUM);
        copy[bad[i].at] = bad[i].val;
        hoodie_cursor_init(&c, copy, sizeof copy, 0, "d");
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro_decode_json(&s, &c, &v));
    }
    hoodie_avro_jschema_dispose(&s);
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro_jschema_parse(&s, "{\"type\":", 8, "s"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro_jschema_parse(&s, "{\"type\":\"record\"}", 17, "s"));
}

/* Build a one-block OCF around DATUM (null or deflate codec) and read it back. */
static void build_ocf(hoodie_buf *out, int use_deflate, int count)
{
    static const uint8_t sync[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    hoodie_buf blk = HOODIE_BUF_INIT;
    for (int i = 0; i < count; i++) hoodie_assert_ok(hoodie_buf_append(&blk, DATUM, sizeof DATUM));
    hoodie_assert_ok(hoodie_buf_append(out, "Obj\x01", 4));
    hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode(use_deflate ? 2 : 1)));
    hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode(11)));
    hoodie_assert_ok(hoodie_buf_append(out, "avro.schema", 11));
    hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode((int64_t)strlen(SCHEMA))));
    hoodie_assert_ok(hoodie_buf_append_str(out, SCHEMA));
    if (use_deflate) {
        hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode(10)));
        hoodie_assert_ok(hoodie_buf_append(out, "avro.codec", 10));
        hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode(7)));
        hoodie_assert_ok(hoodie_buf_append(out, "deflate", 7));
    }
    hoodie_assert_ok(hoodie_buf_putc(out, 0));
    hoodie_assert_ok(hoodie_buf_append(out, sync, 16));
    hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode(count)));
    if (use_deflate) {
        uint8_t z[1024];
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        hoodie_assert(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        zs.next_in = blk.data;
        zs.avail_in = (uInt)blk.len;
        zs.next_out = z;
        zs.avail_out = sizeof z;
        hoodie_assert(deflate(&zs, Z_FINISH) == Z_STREAM_END);
        size_t zn = sizeof z - zs.avail_out;
        deflateEnd(&zs);
        hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode((int64_t)zn)));
        hoodie_assert_ok(hoodie_buf_append(out, z, zn));
    } else {
        hoodie_assert_ok(hoodie_buf_put_uvarint(out, hoodie_zigzag_encode((int64_t)blk.len)));
        hoodie_assert_ok(hoodie_buf_append(out, blk.data, blk.len));
    }
    hoodie_assert_ok(hoodie_buf_append(out, sync, 16));
    hoodie_buf_dispose(&blk);
}

HOODIE_TEST(format_avro_json__ocf_codecs)
{
    for (int deflate = 0; deflate < 2; deflate++) {
        hoodie_buf f = HOODIE_BUF_INIT;
        hoodie_avro_ocf o;
        json_t *v;
        build_ocf(&f, deflate, 3);
        hoodie_assert_ok(hoodie_avro_ocf_open(&o, f.data, f.len, "t.avro"));
        for (int i = 0; i < 3; i++) {
            hoodie_assert_ok(hoodie_avro_ocf_next(&o, &v));
            hoodie_assert_equal_s("hi", json_string_value(json_object_get(v, "u")));
            json_decref(v);
        }
        hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_avro_ocf_next(&o, &v));
        hoodie_avro_ocf_close(&o);
        /* truncations and bit flips never crash and never succeed silently with extra data */
        for (size_t cut = 0; cut < f.len; cut++) {
            hoodie_status rc = hoodie_avro_ocf_open(&o, f.data, cut, "t.avro");
            while (rc == HOODIE_OK) {
                rc = hoodie_avro_ocf_next(&o, &v);
                json_decref(v);
            }
            hoodie_assert(rc != HOODIE_OK);
            hoodie_avro_ocf_close(&o);
        }
        for (size_t pos = 0; pos < f.len; pos++) {
            for (int bit = 0; bit < 8; bit += 3) {
                f.data[pos] ^= (uint8_t)(1u << bit);
                hoodie_status rc = hoodie_avro_ocf_open(&o, f.data, f.len, "t.avro");
                while (rc == HOODIE_OK) {
                    rc = hoodie_avro_ocf_next(&o, &v);
                    json_decref(v);
                }
                hoodie_avro_ocf_close(&o);
                f.data[pos] ^= (uint8_t)(1u << bit);
            }
        }
        hoodie_buf_dispose(&f);
    }
}

HOODIE_TEST(format_avro_json__fixture_bitflips)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(),
                                             hoodie_fixture("hudi/standalone/commit_metadata/v8_deltacommit.avro"), &b));
    for (size_t pos = 0; pos < b.len; pos += 3) {
        hoodie_avro_ocf o;
        json_t *v = NULL;
        b.data[pos] ^= 0x10;
        hoodie_status rc = hoodie_avro_ocf_open(&o, b.data, b.len, "v8.avro");
        while (rc == HOODIE_OK) {
            rc = hoodie_avro_ocf_next(&o, &v);
            json_decref(v);
            v = NULL;
        }
        hoodie_avro_ocf_close(&o);
        b.data[pos] ^= 0x10;
    }
    hoodie_buf_dispose(&b);
}
