/* Schema inference for CSV and JSON lines (rules in src/table/input.h). */
#include "input_support.h"

static void infer(const char *text, const char *name, int64_t infer_rows, char *schema_out, size_t len,
                  char **rows_out, hoodie_status *rc_out)
{
    hoodie_input_opts o = HOODIE_INPUT_OPTS_INIT;
    o.infer_rows = infer_rows;
    hoodie_input *in;
    hoodie_assert_ok(hoodie_input_open_buffer(&in, text, strlen(text), name, &o));
    const hoodie_field *s = hoodie_input_schema(in);
    for (size_t i = 0; i < s->n_children; i++) hoodie_assert(s->children[i].nullable);
    schema_text(s, schema_out, len);
    hoodie_input_free(in);
    *rc_out = read_text_opts(text, strlen(text), name, NULL, &o, rows_out);
}

#define assert_infers(text, name, want_schema, want_rows)                     \
    do { char _s[512], *_r; hoodie_status _rc;                                 \
         infer((text), (name), 0, _s, sizeof _s, &_r, &_rc);                   \
         hoodie_assert_equal_s((want_schema), _s);                             \
         if (_rc != HOODIE_OK) hoodie_test__fail(__FILE__, __LINE__, "read: %s", hoodie_error_last()->message); \
         hoodie_assert_equal_s((want_rows), _r); free(_r); } while (0)

HOODIE_TEST(table_input__infer_csv_types)
{
    assert_infers("b,i,d,dt,ts,s,n\n"
                  "true,1,1.5,2024-01-01,2024-01-01 10:00:00,x,\n"
                  "FALSE,-20,3,2024-02-29,2024-01-01T10:00:00.5Z,7,\n"
                  ",,,,,,\n",
                  "i.csv",
                  "b:bool, i:int64, d:double, dt:date32, ts:timestamp[us, UTC], s:string, n:string",
                  "{\"b\":true,\"i\":1,\"d\":1.5,\"dt\":\"2024-01-01\",\"ts\":\"2024-01-01 10:00:00+00\",\"s\":\"x\",\"n\":null}\n"
                  "{\"b\":false,\"i\":-20,\"d\":3.0,\"dt\":\"2024-02-29\",\"ts\":\"2024-01-01 10:00:00.5+00\",\"s\":\"7\",\"n\":null}\n"
                  "{\"b\":null,\"i\":null,\"d\":null,\"dt\":null,\"ts\":null,\"s\":null,\"n\":null}\n");
}

HOODIE_TEST(table_input__infer_csv_widening)
{
    /* int -> double -> string; date + timestamp -> timestamp; bool + int -> string; 1/0 are integers;
     * leading zeros -> string; quoted numbers are numbers; a quoted empty field is a string; big ints -> double */
    assert_infers("a,b,c,d,e,f,g,h,k\n"
                  "1,1,2024-01-01,true,1,007,\"5\",\"\",99999999999999999999\n"
                  "2.5,x,2024-01-01 00:00:01,1,0,8,\"6\",,1\n",
                  "w.csv",
                  "a:double, b:string, c:timestamp[us, UTC], d:string, e:int64, f:string, g:int64, h:string, k:double",
                  "{\"a\":1.0,\"b\":\"1\",\"c\":\"2024-01-01 00:00:00+00\",\"d\":\"true\",\"e\":1,\"f\":\"007\",\"g\":5,\"h\":\"\",\"k\":1e+20}\n"
                  "{\"a\":2.5,\"b\":\"x\",\"c\":\"2024-01-01 00:00:01+00\",\"d\":\"1\",\"e\":0,\"f\":\"8\",\"g\":6,\"h\":null,\"k\":1.0}\n");
    /* nan / inf words are not numbers; an epoch integer is an integer */
    assert_infers("a,b\nnan,1700000000000\n", "w.csv", "a:string, b:int64", "{\"a\":\"nan\",\"b\":1700000000000}\n");
}

HOODIE_TEST(table_input__infer_csv_sample_limit)
{
    /* only the first infer_rows records are sampled; a later misfit fails the read naming the line */
    const char *t = "a\n1\n2\nx\n";
    char s[128], *rows;
    hoodie_status rc;
    infer(t, "l.csv", 2, s, sizeof s, &rows, &rc);
    hoodie_assert_equal_s("a:int64", s);
    hoodie_assert_status(HOODIE_ECORRUPT, rc);
    hoodie_assert_contains(hoodie_error_last()->message, "l.csv: line 4, column 1 (a): value \"x\" is not a valid int64");
    free(rows);
    infer(t, "l.csv", 3, s, sizeof s, &rows, &rc);
    hoodie_assert_equal_s("a:string", s);
    hoodie_assert_ok(rc);
    free(rows);
    /* a bad record inside the sample fails the open */
    hoodie_input *in;
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_input_open_buffer(&in, "a,b\n1\n", 6, "s.csv", NULL));
    hoodie_assert_contains(hoodie_error_last()->message, "s.csv: line 2: 1 fields, the header has 2");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_input_open_buffer(&in, "a,a\n1,2\n", 8, "s.csv", NULL));
}

HOODIE_TEST(table_input__infer_json)
{
    assert_infers("{\"a\":1,\"b\":\"x\",\"c\":true,\"s\":{\"x\":1},\"l\":[1,2]}\n"
                  "{\"a\":1.5,\"s\":{\"y\":\"q\",\"x\":null},\"l\":[2.5,null],\"e\":[],\"z\":null,\"o\":{}}\n",
                  "j.jsonl",
                  "a:double, b:string, c:bool, s:struct<x:int64,y:string>, l:list<double>, e:list<string>, z:string, o:string",
                  "{\"a\":1.0,\"b\":\"x\",\"c\":true,\"s\":{\"x\":1,\"y\":null},\"l\":[1.0,2.0],\"e\":null,\"z\":null,\"o\":null}\n"
                  "{\"a\":1.5,\"b\":null,\"c\":null,\"s\":{\"x\":null,\"y\":\"q\"},\"l\":[2.5,null],\"e\":[],\"z\":null,\"o\":\"{}\"}\n");
    /* conflicting kinds become strings holding the JSON text */
    assert_infers("{\"a\":{\"x\":1},\"b\":[1],\"c\":1}\n{\"a\":2,\"b\":\"s\",\"c\":true}\n{\"a\":[true]}\n", "c.jsonl",
                  "a:string, b:string, c:string",
                  "{\"a\":\"{\\\"x\\\":1}\",\"b\":\"[1]\",\"c\":\"1\"}\n"
                  "{\"a\":\"2\",\"b\":\"s\",\"c\":\"true\"}\n"
                  "{\"a\":\"[true]\",\"b\":null,\"c\":null}\n");
    /* list elements widen; lists of structs merge their fields */
    assert_infers("{\"l\":[1,2.5],\"m\":[{\"a\":1},{\"b\":[\"x\"]}]}\n", "l.jsonl",
                  "l:list<double>, m:list<struct<a:int64,b:list<string>>>",
                  "{\"l\":[1.0,2.5],\"m\":[{\"a\":1,\"b\":null},{\"a\":null,\"b\":[\"x\"]}]}\n");
}
