/* JSON-lines input: fields by name, nested values, numbers with range checks, binary, errors with file/line. */
#include "input_support.h"

HOODIE_TEST(table_input__json_scalars)
{
    /* missing fields and null are null; blank lines skipped; CRLF; no final line end; numbers as strings */
    assert_reads("{\"i\":1,\"s\":\"x\",\"b\":true,\"d\":1.5,\"u\":\"18446744073709551615\"}\n"
                 "\n"
                 "{\"s\":null,\"i\":-2,\"b\":false,\"d\":2,\"u\":7}\r\n"
                 "  \n"
                 "{}",
                 "t.jsonl", "i:int16, s:string, b:bool, d:double, u:uint64",
                 "{\"i\":1,\"s\":\"x\",\"b\":true,\"d\":1.5,\"u\":18446744073709551615}\n"
                 "{\"i\":-2,\"s\":null,\"b\":false,\"d\":2.0,\"u\":7}\n"
                 "{\"i\":null,\"s\":null,\"b\":null,\"d\":null,\"u\":null}\n");
    /* non-string values in a STRING column are kept as JSON text */
    assert_reads("{\"s\":{\"a\":[1,true]}}\n{\"s\":12}\n", "t.jsonl", "s:string",
                 "{\"s\":\"{\\\"a\\\":[1,true]}\"}\n{\"s\":\"12\"}\n");
    /* floats */
    assert_reads("{\"f\":0.1,\"h\":1,\"g\":\"nan\"}\n", "f.jsonl", "f:float, h:float16, g:double",
                 "{\"f\":0.1,\"h\":1.0,\"g\":\"nan\"}\n");
}

HOODIE_TEST(table_input__json_temporal_decimal_binary)
{
    assert_reads("{\"d\":\"2024-03-01\",\"t\":\"2024-03-01T10:00:00+01:00\",\"e\":1700000000000,\"tm\":\"01:02:03.004\","
                 "\"x\":\"12.50\",\"y\":3,\"z\":2.25,\"b\":\"AP8=\",\"u\":\"123e4567-e89b-12d3-a456-426614174000\"}\n"
                 "{\"d\":19000,\"t\":0,\"e\":\"2023-11-14 22:13:20\",\"tm\":5,\"x\":-0.1,\"y\":\"-4\",\"z\":1e2,\"b\":\"\"}\n",
                 "t.jsonl", "d:date, t:timestamp[us,utc], e:timestamp[ms], tm:time32[ms], x:decimal(6,2), y:decimal(4,0),"
                 " z:decimal(10,3), b:binary, u:uuid",
                 "{\"d\":\"2024-03-01\",\"t\":\"2024-03-01 09:00:00+00\",\"e\":\"2023-11-14 22:13:20\",\"tm\":\"01:02:03.004\","
                 "\"x\":12.50,\"y\":3,\"z\":2.250,\"b\":\"AP8=\",\"u\":\"123e4567-e89b-12d3-a456-426614174000\"}\n"
                 "{\"d\":\"2022-01-08\",\"t\":\"1970-01-01 00:00:00+00\",\"e\":\"2023-11-14 22:13:20\",\"tm\":\"00:00:00.005\","
                 "\"x\":-0.10,\"y\":-4,\"z\":100.000,\"b\":\"\",\"u\":null}\n");
    assert_read_fails("{\"x\":1.234}\n", "d.jsonl", "x:decimal(6,2)", HOODIE_ECORRUPT,
                      "d.jsonl: line 1: field 'x': value \"1.234\" is not a valid decimal(6,2): more fraction digits");
    assert_read_fails("{\"b\":\"%%%\"}\n", "b.jsonl", "b:binary", HOODIE_ECORRUPT, "not base64");
    /* binary as plain text on request */
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.binary = HOODIE_INPUT_BINARY_TEXT;
    char *got;
    const char *t = "{\"b\":\"%%%\"}\n";
    hoodie_assert_ok(read_text_opts(t, strlen(t), "b.jsonl", "b:binary", &o, &got));
    hoodie_assert_equal_s("{\"b\":\"JSUl\"}\n", got);
    free(got);
}

HOODIE_TEST(table_input__json_nested)
{
    assert_reads("{\"s\":{\"a\":1,\"l\":[{\"k\":\"x\"},null]},\"m\":{\"a\":[1],\"b\":null},\"l\":[[1,2],[],null]}\n"
                 "{\"s\":{},\"m\":{},\"l\":[]}\n"
                 "{\"s\":null,\"m\":null,\"l\":null}\n",
                 "n.jsonl", "s:struct<a:int32,l:list<struct<k:string>>>, m:map<string,list<int64>>, l:list<list<int8>>",
                 "{\"s\":{\"a\":1,\"l\":[{\"k\":\"x\"},null]},\"m\":{\"a\":[1],\"b\":null},\"l\":[[1,2],[],null]}\n"
                 "{\"s\":{\"a\":null,\"l\":null},\"m\":{},\"l\":[]}\n"
                 "{\"s\":null,\"m\":null,\"l\":null}\n");
    assert_read_fails("{\"l\":[[1],[300]]}\n", "n.jsonl", "l:list<list<int8>>", HOODIE_ECORRUPT,
                      "n.jsonl: line 1: field 'l': element 1: element 0: value \"300\" is not a valid int8: out of range");
    assert_read_fails("{\"s\":{\"a\":1,\"zz\":2}}\n", "n.jsonl", "s:struct<a:int32>", HOODIE_ECORRUPT,
                      "n.jsonl: line 1: field 's': unknown field 'zz'");
    assert_read_fails("{\"s\":[1]}\n", "n.jsonl", "s:struct<a:int32>", HOODIE_ECORRUPT, "want an object");
    assert_read_fails("{\"m\":{\"x\":1}}\n", "n.jsonl", "m:map<int32,int32>", HOODIE_ECORRUPT,
                      "field 'm': key 'x': value \"x\" is not a valid int32");
    assert_read_fails("{\"s\":{\"a\":null}}\n", "n.jsonl", "s:struct<a:int32!>", HOODIE_ECORRUPT,
                      "field 's': field 'a': null for non-nullable field 'a'");
}

/* add_new_columns: keys the schema lacks, in its records too (a struct's, a list's elements', a map's values'),
 * inferred and appended nullable; the schema's own fields keep their types */
HOODIE_TEST(table_input__json_new_nested_fields)
{
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.add_new_columns = 1;
    char *got;
    const char *t = "{\"s\":{\"a\":1,\"b\":\"x\"},\"l\":[{\"k\":2,\"q\":true}],\"m\":{\"e\":{\"v\":3,\"w\":1.5}},\"n\":7}\n"
                    "{\"s\":{\"a\":4},\"l\":null,\"m\":{\"f\":{\"v\":5}}}\n";
    hoodie_assert_ok(read_text_opts(t, strlen(t), "n.jsonl", "s:struct<a:int32!>, l:list<struct<k:int16>>, "
                                    "m:map<string,struct<v:int64>>", &o, &got));
    hoodie_assert_equal_s("{\"s\":{\"a\":1,\"b\":\"x\"},\"l\":[{\"k\":2,\"q\":true}],\"m\":{\"e\":{\"v\":3,\"w\":1.5}},\"n\":7}\n"
                          "{\"s\":{\"a\":4,\"b\":null},\"l\":null,\"m\":{\"f\":{\"v\":5,\"w\":null}},\"n\":null}\n",
                          got);
    free(got);
    /* without add_new_columns a nested key the schema lacks is refused */
    o.add_new_columns = 0;
    hoodie_assert_status(HOODIE_ECORRUPT, read_text_opts(t, strlen(t), "n.jsonl", "s:struct<a:int32!>, "
                                                         "l:list<struct<k:int16>>, m:map<string,struct<v:int64>>",
                                                         &o, &got));
    free(got);
    hoodie_error_clear();
}

HOODIE_TEST(table_input__json_errors)
{
    assert_read_fails("{\"a\":1}\n{\"a\":2,}\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "e.jsonl: line 2: bad JSON at character");
    assert_read_fails("{\"a\":1}\n\n[1]\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "e.jsonl: line 3: want a JSON object");
    assert_read_fails("{\"a\":1,\"a\":2}\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "e.jsonl: line 1: bad JSON");
    assert_read_fails("{\"a\":1,\"b\":2}\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "e.jsonl: line 1: field 'b' is not in the schema");
    assert_read_fails("{\"a\":2147483648}\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT,
                      "e.jsonl: line 1: field 'a': value \"2147483648\" is not a valid int32: out of range");
    assert_read_fails("{\"a\":1.5}\n", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "want an integer");
    assert_read_fails("{\"a\":\"x\"}\n", "e.jsonl", "a:bool", HOODIE_ECORRUPT, "want true or false");
    assert_read_fails("{\"a\":-1}\n", "e.jsonl", "a:uint8", HOODIE_ECORRUPT, "out of range");
    assert_read_fails("{\"a\":null}\n", "e.jsonl", "a:int32!", HOODIE_ECORRUPT, "null for non-nullable field 'a'");
    assert_read_fails("{\"a\":1}\n{\"a\":1", "e.jsonl", "a:int32", HOODIE_ECORRUPT, "e.jsonl: line 2: bad JSON");
    /* extra keys ignored on request, at every level */
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.ignore_extra_columns = 1;
    char *got;
    const char *t = "{\"a\":1,\"b\":2,\"s\":{\"x\":1,\"y\":2}}\n";
    hoodie_assert_ok(read_text_opts(t, strlen(t), "e.jsonl", "a:int32, s:struct<x:int32>", &o, &got));
    hoodie_assert_equal_s("{\"a\":1,\"s\":{\"x\":1}}\n", got);
    free(got);
}

HOODIE_TEST(table_input__json_truncated)
{
    const char *t = "{\"a\":1,\"s\":{\"l\":[1,2]},\"t\":\"x\\\"y\"}\r\n\n{\"a\":2}\n";
    size_t n = strlen(t);
    for (size_t cut = 0; cut <= n; cut++) {
        hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
        char *got;
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, t, cut);
        hoodie_status rc = read_text_opts(copy, cut, "t.jsonl", "a:int32, s:struct<l:list<int32>>, t:string", &o, &got);
        hoodie_assert(rc == HOODIE_OK || rc == HOODIE_ECORRUPT);
        free(got);
        hoodie_input_opts oi = HOODIE_INPUT_OPTS_INIT;
        rc = read_text_opts(copy, cut, "t.jsonl", NULL, &oi, &got);
        hoodie_assert(rc == HOODIE_OK || rc == HOODIE_ECORRUPT);
        free(got);
        free(copy);
    }
}

/* hoodie_buffer_stream: the files stream over bytes in memory (hoodie ingest and SQL writes, no temporary file). */
#include "hoodie/input.h"
#include "model/arrow.h"

HOODIE_TEST(table_input__buffer_stream)
{
    static const char rows[] = "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":null}\n";
    hoodie_files_opts o = HOODIE_FILES_OPTS_INIT;
    o.format = "jsonl";
    struct ArrowArrayStream st;
    hoodie_assert_ok(hoodie_buffer_stream(rows, sizeof rows - 1, "batch 1", NULL, &o, &st));
    hoodie_arrow_reader r;
    hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
    hoodie_batch b;
    hoodie_buf text = HOODIE_BUF_INIT;
    int64_t n = 0;
    hoodie_status rc;
    while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) {
        n += b.root.length;
        hoodie_assert_ok(hoodie_render_jsonl(&text, &b));
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_status(HOODIE_ITEROVER, rc);
    hoodie_arrow_reader_close(&r);
    hoodie_assert_equal_i(2, n);
    hoodie_assert_ok(hoodie_buf_cstr(&text));
    hoodie_assert_equal_s("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":null}\n", (const char *)text.data);
    hoodie_buf_dispose(&text);
    /* a bad line is named by the buffer's name */
    static const char bad[] = "{\"id\":1}\n{\"id\":\n";
    rc = hoodie_buffer_stream(bad, sizeof bad - 1, "batch 2", NULL, &o, &st);
    if (rc == HOODIE_OK) {
        hoodie_assert_ok(hoodie_arrow_reader_open(&r, &st));
        while ((rc = hoodie_arrow_reader_next(&r, &b)) == HOODIE_OK) hoodie_batch_dispose(&b);
        hoodie_arrow_reader_close(&r);
    }
    hoodie_assert(rc < 0 && rc != HOODIE_ITEROVER);
    hoodie_assert_contains(hoodie_error_last()->message, "batch 2");
    /* the format is required, and Parquet is not read from memory */
    hoodie_assert_status(HOODIE_EINVAL, hoodie_buffer_stream(rows, sizeof rows - 1, "x", NULL, NULL, &st));
    o.format = "parquet";
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_buffer_stream(rows, sizeof rows - 1, "x", NULL, &o, &st));
}
