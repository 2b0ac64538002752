#include "hoodie_test.h"
#include "format/hlog/native_log.h"
#include "util/error.h"

#include <stdlib.h>

static const char *SCHEMA = "{\"type\":\"record\",\"name\":\"t_record\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";

HOODIE_TEST(format_native_log__build_exact_and_parse_back)
{
    hoodie_hlog_header_entry h[4] = {
        { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 },
        { HOODIE_HLOG_SCHEMA, SCHEMA, strlen(SCHEMA) },
        { HOODIE_HLOG_BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS, NULL, 0 }, /* skipped, as Java skips nulls */
        { HOODIE_HLOG_RECORD_POSITIONS, "AQAAAAAAAAAAAAAAOjAAAAEAAAAAAAIAEAAAAAQA", 40 },
    };
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_native_log_meta_build(&out, h, 4, HOODIE_NATIVE_LOG_VERSION));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    hoodie_assert_equal_s("{\"VERSION\":\"2\",\"INSTANT_TIME\":\"20250101000000000\","
                          "\"SCHEMA\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"t_record\\\",\\\"fields\\\":"
                          "[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"int\\\"}]}\","
                          "\"RECORD_POSITIONS\":\"AQAAAAAAAAAAAAAAOjAAAAEAAAAAAAIAEAAAAAQA\"}",
                          (const char *)out.data);

    hoodie_arena *a;
    hoodie_native_log_meta m;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_assert_ok(hoodie_native_log_meta_parse(&m, (const char *)out.data, out.len, a, "x.log.parquet"));
    hoodie_assert_equal_i(2, m.version);
    hoodie_assert_equal_s("20250101000000000", m.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_assert_equal_s(SCHEMA, m.header[HOODIE_HLOG_SCHEMA]);
    hoodie_assert_equal_i(strlen(SCHEMA), m.header_len[HOODIE_HLOG_SCHEMA]);
    hoodie_assert(m.header[HOODIE_HLOG_BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS] == NULL);
    hoodie_assert_equal_i(40, m.header_len[HOODIE_HLOG_RECORD_POSITIONS]);
    hoodie_assert_equal_i(0, m.unknown_keys);

    /* Jackson's escapes: control characters, quotes, backslashes; UTF-8 and '/' as is */
    hoodie_buf_clear(&out);
    static const char odd[] = "a\"b\\c/d\n\t\x01\x1f\xc3\xa9";
    hoodie_hlog_header_entry e = { HOODIE_HLOG_BLOCK_IDENTIFIER, odd, sizeof odd - 1 };
    hoodie_assert_ok(hoodie_native_log_meta_build(&out, &e, 1, 1));
    hoodie_assert_ok(hoodie_buf_cstr(&out));
    hoodie_assert_equal_s("{\"VERSION\":\"1\",\"BLOCK_IDENTIFIER\":\"a\\\"b\\\\c/d\\n\\t\\u0001\\u001F\xc3\xa9\"}",
                          (const char *)out.data);
    hoodie_assert_ok(hoodie_native_log_meta_parse(&m, (const char *)out.data, out.len, a, "x"));
    hoodie_assert_equal_s(odd, m.header[HOODIE_HLOG_BLOCK_IDENTIFIER]);

    /* misuse leaves the buffer alone */
    size_t len = out.len;
    hoodie_hlog_header_entry twice[2] = { h[0], h[0] };
    hoodie_assert_status(HOODIE_EINVAL, hoodie_native_log_meta_build(&out, twice, 2, 2));
    hoodie_assert_equal_i(len, out.len);
    hoodie_buf_dispose(&out);
    hoodie_arena_free(a);
}

HOODIE_TEST(format_native_log__parse_like_java)
{
    hoodie_arena *a;
    hoodie_native_log_meta m;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
#define P(json) hoodie_native_log_meta_parse(&m, json, strlen(json), a, "f.log.parquet")
    /* unknown names ignored, VERSION optional and trimmed, Jackson's scalar coercions */
    hoodie_assert_ok(P("{\"FUTURE_KEY\":\"x\",\"IS_PARTIAL\":true,\"COMMAND_BLOCK_TYPE\":0,\"INSTANT_TIME\":\"1\"}"));
    hoodie_assert_equal_i(-1, m.version);
    hoodie_assert_equal_i(1, m.unknown_keys);
    hoodie_assert_equal_s("true", m.header[HOODIE_HLOG_IS_PARTIAL]);
    hoodie_assert_equal_s("0", m.header[HOODIE_HLOG_COMMAND_BLOCK_TYPE]);
    hoodie_assert_ok(P("{\"VERSION\":\" 1 \",\"TARGET_INSTANT_TIME\":null}"));
    hoodie_assert_equal_i(1, m.version);
    hoodie_assert(m.header[HOODIE_HLOG_TARGET_INSTANT_TIME] == NULL);
    hoodie_assert_ok(P("{\"VERSION\":2}"));
    hoodie_assert_equal_i(2, m.version);
    hoodie_assert_ok(P("{}"));

    hoodie_assert_status(HOODIE_EUNSUPPORTED, P("{\"VERSION\":\"3\"}"));
    hoodie_assert_contains(hoodie_error_last()->message, "f.log.parquet: native log format version 3 is newer");
    hoodie_assert_status(HOODIE_ECORRUPT, P("{\"VERSION\":\"two\"}"));
    hoodie_assert_contains(hoodie_error_last()->message, "invalid native log format version 'two'");
    hoodie_assert_status(HOODIE_ECORRUPT, P("{\"VERSION\":\"99999999999999999999\"}"));
    hoodie_assert_status(HOODIE_ECORRUPT, P("{\"VERSION\":\"\"}"));
    hoodie_assert_status(HOODIE_ECORRUPT, P("{\"SCHEMA\":{\"type\":\"int\"}}"));
    hoodie_assert_contains(hoodie_error_last()->message, "'SCHEMA'");
    hoodie_assert_status(HOODIE_ECORRUPT, P("[\"VERSION\"]"));
    hoodie_assert_status(HOODIE_ECORRUPT, P("{\"VERSION\":\"2\""));
    hoodie_assert_contains(hoodie_error_last()->message, "f.log.parquet: footer hudi.log.format.metadata is not valid JSON");
    /* every truncation of a valid value fails cleanly */
    const char *good = "{\"VERSION\":\"2\",\"INSTANT_TIME\":\"20250101000000000\",\"SCHEMA\":\"{\\\"type\\\":\\\"int\\\"}\"}";
    for (size_t cut = 0; cut < strlen(good); cut++)
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_native_log_meta_parse(&m, good, cut, a, "cut"));
    hoodie_assert_ok(hoodie_native_log_meta_parse(&m, good, strlen(good), a, "cut"));
    hoodie_assert_equal_s("{\"type\":\"int\"}", m.header[HOODIE_HLOG_SCHEMA]);
#undef P
    hoodie_arena_free(a);
}

/* A Parquet footer carrying the key (as a native log file's does) survives the footer codec and is found. */
HOODIE_TEST(format_native_log__in_a_parquet_footer)
{
    hoodie_arena *a;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 },
                                      { HOODIE_HLOG_SCHEMA, SCHEMA, strlen(SCHEMA) } };
    hoodie_buf json = HOODIE_BUF_INIT, footer = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_native_log_meta_build(&json, h, 2, HOODIE_NATIVE_LOG_VERSION));
    hoodie_assert_ok(hoodie_buf_cstr(&json));

    hoodie_pq_schema_element root;
    memset(&root, 0, sizeof root);
    root.name = "schema";
    hoodie_pq_kv kv[2] = { { .key = "parquet.avro.schema", .value = (char *)SCHEMA },
                           { .key = HOODIE_NATIVE_LOG_FOOTER_KEY, .value = (char *)json.data } };
    hoodie_pq_file_meta fm;
    memset(&fm, 0, sizeof fm);
    fm.version = 1;
    fm.schema_count = 1;
    fm.schema = &root;
    fm.kv_count = 2;
    fm.kv = kv;
    hoodie_assert_ok(hoodie_pq_file_meta_encode(&fm, &footer));
    hoodie_pq_file_meta back;
    hoodie_cursor c = HOODIE_CURSOR_INIT(footer.data, footer.len);
    hoodie_assert_ok(hoodie_pq_file_meta_decode(&back, &c, a));
    hoodie_native_log_meta m;
    hoodie_assert_ok(hoodie_native_log_meta_from_kv(&m, back.kv, back.kv_count, a, "f.log.parquet"));
    hoodie_assert_equal_i(HOODIE_NATIVE_LOG_VERSION, m.version);
    hoodie_assert_equal_s(SCHEMA, m.header[HOODIE_HLOG_SCHEMA]);
    hoodie_assert_equal_s("20250101000000000", m.header[HOODIE_HLOG_INSTANT_TIME]);
    hoodie_assert_status(HOODIE_ENOTFOUND, hoodie_native_log_meta_from_kv(&m, back.kv, 1, a, "base.parquet"));
    hoodie_assert_contains(hoodie_error_last()->message, "not a native log file");
    hoodie_buf_dispose(&json);
    hoodie_buf_dispose(&footer);
    hoodie_arena_free(a);
}
