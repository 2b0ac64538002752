/* Parquet writer, flat columns: every leaf type, nulls, verified by DuckDB (schema, values, statistics). */
#include "hoodie_test.h"
#include "batch_build.h"
#include "pq_duck.h"

/* Schema of every flat type. */
static hoodie_field flat_schema(void)
{
    hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
    bb_add(&s, bb_field("id", bb_t(HOODIE_TYPE_INT64), 0));
    bb_add(&s, bb_field("b", bb_t(HOODIE_TYPE_BOOL), 1));
    bb_add(&s, bb_field("i8", bb_t(HOODIE_TYPE_INT8), 1));
    bb_add(&s, bb_field("i16", bb_t(HOODIE_TYPE_INT16), 1));
    bb_add(&s, bb_field("i32", bb_t(HOODIE_TYPE_INT32), 1));
    bb_add(&s, bb_field("u8", bb_t(HOODIE_TYPE_UINT8), 1));
    bb_add(&s, bb_field("u16", bb_t(HOODIE_TYPE_UINT16), 1));
    bb_add(&s, bb_field("u32", bb_t(HOODIE_TYPE_UINT32), 1));
    bb_add(&s, bb_field("u64", bb_t(HOODIE_TYPE_UINT64), 1));
    bb_add(&s, bb_field("f32", bb_t(HOODIE_TYPE_FLOAT), 1));
    bb_add(&s, bb_field("f64", bb_t(HOODIE_TYPE_DOUBLE), 1));
    bb_add(&s, bb_field("s", bb_t(HOODIE_TYPE_STRING), 1));
    bb_add(&s, bb_field("bin", bb_t(HOODIE_TYPE_BINARY), 1));
    bb_add(&s, bb_field("fx", bb_text(HOODIE_TYPE_FIXED_BINARY, HOODIE_EXT_NONE, 3), 1));
    bb_add(&s, bb_field("d5", bb_tdec(5, 2), 1));
    bb_add(&s, bb_field("d15", bb_tdec(15, 3), 1));
    bb_add(&s, bb_field("d30", bb_tdec(30, 4), 1));
    bb_add(&s, bb_field("dt", bb_t(HOODIE_TYPE_DATE32), 1));
    bb_add(&s, bb_field("tms", bb_tunit(HOODIE_TYPE_TIME32, HOODIE_UNIT_MILLI, 1), 1));
    bb_add(&s, bb_field("tus", bb_tunit(HOODIE_TYPE_TIME64, HOODIE_UNIT_MICRO, 1), 1));
    bb_add(&s, bb_field("ts_s", bb_tunit(HOODIE_TYPE_TIMESTAMP, HOODIE_UNIT_SECOND, 0), 1));
    bb_add(&s, bb_field("ts_ms", bb_tunit(HOODIE_TYPE_TIMESTAMP, HOODIE_UNIT_MILLI, 1), 1));
    bb_add(&s, bb_field("ts_us", bb_tunit(HOODIE_TYPE_TIMESTAMP, HOODIE_UNIT_MICRO, 1), 1));
    bb_add(&s, bb_field("ts_ns", bb_tunit(HOODIE_TYPE_TIMESTAMP, HOODIE_UNIT_NANO, 0), 1));
    hoodie_type i96 = bb_tunit(HOODIE_TYPE_TIMESTAMP, HOODIE_UNIT_MICRO, 0);
    i96.ext = HOODIE_EXT_INT96;
    bb_add(&s, bb_field("ts96", i96, 1));
    bb_add(&s, bb_field("uuid", bb_text(HOODIE_TYPE_FIXED_BINARY, HOODIE_EXT_UUID, 16), 1));
    bb_add(&s, bb_field("js", bb_text(HOODIE_TYPE_STRING, HOODIE_EXT_JSON, 0), 1));
    bb_add(&s, bb_field("en", bb_text(HOODIE_TYPE_STRING, HOODIE_EXT_ENUM, 0), 1));
    bb_add(&s, bb_field("h", bb_t(HOODIE_TYPE_FLOAT16), 1));
    return s;
}

/* Row i of the flat data: every 4th row (i % 4 == 3) is null in every nullable column. */
static void flat_row(hoodie_array *r, int64_t i)
{
    hoodie_array *c = r->children;
    int v = i % 4 != 3;
    int64_t k = i % 4 == 1 ? -i : i;
    bb_i64(&c[0], i);
    bb_bool(&c[1], (i & 1) != 0, v);
    if (v) bb_i8(&c[2], (int8_t)(k % 100)); else bb_null(&c[2], 1);
    if (v) bb_i16(&c[3], (int16_t)(k * 7)); else bb_null(&c[3], 2);
    if (v) bb_i32(&c[4], (int32_t)(k * 1000)); else bb_null(&c[4], 4);
    if (v) bb_u8(&c[5], (uint8_t)(200 + i % 50)); else bb_null(&c[5], 1);
    if (v) bb_u16(&c[6], (uint16_t)(60000 + i)); else bb_null(&c[6], 2);
    if (v) bb_u32(&c[7], i % 2 ? (uint32_t)i : 4000000000u + (uint32_t)i); else bb_null(&c[7], 4);
    if (v) bb_u64(&c[8], i % 2 ? (uint64_t)i : 18000000000000000000ull + (uint64_t)i); else bb_null(&c[8], 8);
    if (v) bb_f32(&c[9], (float)k * 0.5f); else bb_null(&c[9], 4);
    if (v) bb_f64(&c[10], (double)k * 0.25); else bb_null(&c[10], 8);
    char buf[64];
    if (i == 5) snprintf(buf, sizeof buf, "\xc3\xa9t\xc3\xa9");
    else snprintf(buf, sizeof buf, "str%03d", (int)(i % 37));
    bb_str(&c[11], v ? buf : NULL);
    uint8_t bin[3] = { 0, (uint8_t)i, 0xff };
    bb_bytes(&c[12], bin, (size_t)(i % 4), v);
    uint8_t fx[3] = { (uint8_t)('a' + i % 26), 'x', (uint8_t)i };
    bb_fixed(&c[13], fx, 3, v);
    if (v) bb_dec(&c[14], k * 123); else bb_null(&c[14], 16);
    if (v) bb_dec(&c[15], k * 123456789012LL); else bb_null(&c[15], 16);
    if (v) bb_dec128(&c[16], k < 0 ? -5 : 5, 0x123456789abcdef0ull + (uint64_t)i); else bb_null(&c[16], 16);
    if (v) bb_i32(&c[17], (int32_t)(19000 + k)); else bb_null(&c[17], 4);
    if (v) bb_i32(&c[18], (int32_t)(3600000 + i * 1001)); else bb_null(&c[18], 4);
    if (v) bb_i64(&c[19], 3600000000LL + i * 1000001); else bb_null(&c[19], 8);
    if (v) bb_i64(&c[20], 1700000000LL + k * 86400); else bb_null(&c[20], 8);
    if (v) bb_i64(&c[21], 1700000000123LL + k); else bb_null(&c[21], 8);
    if (v) bb_i64(&c[22], 1700000000123456LL + k); else bb_null(&c[22], 8);
    if (v) bb_i64(&c[23], 1700000000123456789LL + k); else bb_null(&c[23], 8);
    if (v) bb_i64(&c[24], 1700000000123456LL + k * 3600000000LL); else bb_null(&c[24], 8);
    uint8_t u[16];
    for (int j = 0; j < 16; j++) u[j] = (uint8_t)(j * 17 + i);
    bb_fixed(&c[25], u, 16, v);
    snprintf(buf, sizeof buf, "{\"a\":%d}", (int)i);
    bb_str(&c[26], v ? buf : NULL);
    bb_str(&c[27], v ? (i % 3 ? "red" : "blue") : NULL);
    uint16_t h = (uint16_t)(0x3c00 + (i % 8) * 0x100); /* 1.0, 2.0, 8.0, ... */
    if (k < 0) h |= 0x8000;
    bb_fixed(&c[28], &h, 2, v);
    bb_struct(r, 1);
}

static void flat_batch(hoodie_array *root, const hoodie_field *schema, int64_t from, int64_t to)
{
    hoodie_assert_ok(hoodie_array_init(root, schema));
    for (int64_t i = from; i < to; i++) flat_row(root, i);
}

static char g_dir[512];

static void tmp_begin(void) { snprintf(g_dir, sizeof g_dir, "%s", hoodie_test_tmpdir()); }

static const char *tmp_path(const char *name)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}


static char *duckf(const char *mode, const char *fmt, const char *p)
{
    char sql[4096];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(sql, sizeof sql, fmt, p, p, p);
#pragma GCC diagnostic pop
    char *out = pqd_duck(mode, sql);
    hoodie_assert(out != NULL);
    return out;
}

static const char FLAT_DESCRIBE[] =
    "column_name,column_type\n"
    "id,BIGINT\nb,BOOLEAN\ni8,TINYINT\ni16,SMALLINT\ni32,INTEGER\nu8,UTINYINT\nu16,USMALLINT\nu32,UINTEGER\n"
    "u64,UBIGINT\nf32,FLOAT\nf64,DOUBLE\ns,VARCHAR\nbin,BLOB\nfx,BLOB\nd5,\"DECIMAL(5,2)\"\nd15,\"DECIMAL(15,3)\"\n"
    "d30,\"DECIMAL(30,4)\"\ndt,DATE\ntms,TIME WITH TIME ZONE\ntus,TIME WITH TIME ZONE\nts_s,TIMESTAMP\n"
    "ts_ms,TIMESTAMP WITH TIME ZONE\nts_us,TIMESTAMP WITH TIME ZONE\nts_ns,TIMESTAMP_NS\nts96,TIMESTAMP\nuuid,UUID\n"
    "js,JSON\nen,VARCHAR\nh,FLOAT\n";

static const char FLAT_ROWS[] =
    "id,b,i8,i16,i32,u8,u16,u32,u64,f32,f64,s,bin,fx,d5,d15,d30,dt,tms,tus,ts_s,ts_ms,ts_us,ts_ns,ts96,uuid,js,en,h\n"
    "0,false,0,0,0,200,60000,4000000000,18000000000000000000,0.0,0.0,str000,,ax\\x00,0.00,0.000,9354548883601154.8400,"
    "2022-01-08,01:00:00+00,01:00:00+00,2023-11-14 22:13:20,2023-11-14 22:13:20.123+00,2023-11-14 22:13:20.123456+00,"
    "2023-11-14 22:13:20.123456789,2023-11-14 22:13:20.123456,00112233-4455-6677-8899-aabbccddeeff,\"{\"\"a\"\":0}\","
    "blue,1.0\n"
    "1,true,-1,-7,-1000,201,60001,1,1,-0.5,-0.25,str001,\\x00,bx\\x01,-1.23,-123456789.012,-9092195190108396.7759,"
    "2022-01-07,01:00:01.001+00,01:00:01.000001+00,2023-11-13 22:13:20,2023-11-14 22:13:20.122+00,"
    "2023-11-14 22:13:20.123455+00,2023-11-14 22:13:20.123456788,2023-11-14 21:13:20.123456,"
    "01122334-4556-6778-899a-abbccddeef00,\"{\"\"a\"\":1}\",red,-1.25\n"
    "3,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n"
    "5,true,-5,-35,-5000,205,60005,5,5,-2.5,-1.25,\xc3\xa9t\xc3\xa9,\\x00,fx\\x05,-6.15,-617283945.060,"
    "-9092195190108396.7755,2022-01-03,01:00:05.005+00,01:00:05.000005+00,2023-11-09 22:13:20,"
    "2023-11-14 22:13:20.118+00,2023-11-14 22:13:20.123451+00,2023-11-14 22:13:20.123456784,"
    "2023-11-14 17:13:20.123456,05162738-495a-6b7c-8d9e-afc0d1e2f304,\"{\"\"a\"\":5}\",red,-2.5\n";

static const char FLAT_STATS[] =
    "path_in_schema,type,stats_min_value,stats_max_value,stats_null_count,stats_min,stats_max\n"
    "id,INT64,0,9,0,0,9\n"
    "b,BOOLEAN,false,true,2,false,true\n"
    "i8,INT32,-9,8,2,-9,8\n"
    "i16,INT32,-63,56,2,-63,56\n"
    "i32,INT32,-9000,8000,2,-9000,8000\n"
    "u8,INT32,200,209,2,,\n"
    "u16,INT32,60000,60009,2,,\n"
    "u32,INT32,1,4000000008,2,,\n"
    "u64,INT64,1,18000000000000000008,2,,\n"
    "f32,FLOAT,-4.5,4.0,2,-4.5,4.0\n"
    "f64,DOUBLE,-2.25,2.0,2,-2.25,2.0\n"
    "s,BYTE_ARRAY,str000,\xc3\xa9t\xc3\xa9,2,,\n"
    "bin,BYTE_ARRAY,,\\x00\\x06,2,,\n"
    "fx,FIXED_LEN_BYTE_ARRAY,ax\\x00,jx\\x09,2,,\n"
    "d5,INT32,-11.07,9.84,2,,\n"
    "d15,INT64,-1111111101.108,987654312.096,2,,\n"
    "d30,FIXED_LEN_BYTE_ARRAY,-9092195190108396.7759,9354548883601154.8408,2,,\n"
    "dt,INT32,2021-12-30,2022-01-16,2,2021-12-30,2022-01-16\n"
    "tms,INT32,01:00:00+00,01:00:09.009+00,2,01:00:00+00,01:00:09.009+00\n"
    "tus,INT64,01:00:00+00,01:00:09.000009+00,2,01:00:00+00,01:00:09.000009+00\n"
    "ts_s,INT64,2023-11-05 22:13:20,2023-11-22 22:13:20,2,2023-11-05 22:13:20,2023-11-22 22:13:20\n"
    "ts_ms,INT64,2023-11-14 22:13:20.114+00,2023-11-14 22:13:20.131+00,2,2023-11-14 22:13:20.114+00,"
    "2023-11-14 22:13:20.131+00\n"
    "ts_us,INT64,2023-11-14 22:13:20.123447+00,2023-11-14 22:13:20.123464+00,2,2023-11-14 22:13:20.123447+00,"
    "2023-11-14 22:13:20.123464+00\n"
    "ts_ns,INT64,2023-11-14 22:13:20.12345678,2023-11-14 22:13:20.123456797,2,2023-11-14 22:13:20.12345678,"
    "2023-11-14 22:13:20.123456797\n"
    "ts96,INT96,,,2,,\n"
    "uuid,FIXED_LEN_BYTE_ARRAY,00112233-4455-6677-8899-aabbccddeeff,091a2b3c-4d5e-6f80-91a2-b3c4d5e6f708,2,,\n"
    "js,BYTE_ARRAY,\"{\"\"a\"\":0}\",\"{\"\"a\"\":9}\",2,,\n"
    "en,BYTE_ARRAY,blue,red,2,,\n"
    "h,FIXED_LEN_BYTE_ARRAY,-2.5,3.0,2,,\n";

/* 10 rows with default options: schema, values and statistics as DuckDB reads them. */
HOODIE_TEST(format_pqwrite__flat_types)
{
    tmp_begin();
    hoodie_field s = flat_schema();
    hoodie_array root;
    flat_batch(&root, &s, 0, 10);
    const hoodie_array *roots[1] = { &root };
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    const char *p = tmp_path("flat.parquet");
    hoodie_assert_ok(pqd_write(p, &s, roots, 1, &o));
    char *out = duckf("--csv", "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", p);
    hoodie_assert_equal_s(FLAT_DESCRIBE, out);
    free(out);
    out = duckf("--csv", "SELECT COLUMNS(*)::VARCHAR FROM read_parquet('%s') WHERE id IN (0, 1, 3, 5) ORDER BY id", p);
    hoodie_assert_equal_s(FLAT_ROWS, out);
    free(out);
    out = duckf("--csv", "SELECT path_in_schema, type, stats_min_value, stats_max_value, stats_null_count, stats_min, "
                         "stats_max FROM parquet_metadata('%s') ORDER BY column_id", p);
    hoodie_assert_equal_s(FLAT_STATS, out);
    free(out);
    hoodie_array_dispose(&root);
    hoodie_field_dispose(&s);
}

/* The same 1000 rows (in batches of 1, 499 and 500) written with every codec, page v1/v2, dictionary on/off/
 * fallback, small pages and row groups, and the non-default value encodings: DuckDB must read identical tables. */
HOODIE_TEST(format_pqwrite__flat_matrix)
{
    tmp_begin();
    hoodie_field s = flat_schema();
    hoodie_array b[3];
    flat_batch(&b[0], &s, 0, 1);
    flat_batch(&b[1], &s, 1, 500);
    flat_batch(&b[2], &s, 500, 1000);
    const hoodie_array *roots[3] = { &b[0], &b[1], &b[2] };
    static const hoodie_pq_codec codecs[] = { HOODIE_PQ_UNCOMPRESSED, HOODIE_PQ_SNAPPY, HOODIE_PQ_GZIP, HOODIE_PQ_ZSTD,
                                              HOODIE_PQ_LZ4_RAW };
    static const hoodie_pq_encoding encs[] = { HOODIE_PQ_DELTA_BINARY_PACKED, HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY,
                                               HOODIE_PQ_DELTA_BYTE_ARRAY, HOODIE_PQ_BYTE_STREAM_SPLIT };
    hoodie_buf sql = HOODIE_BUF_INIT;
    int nfiles = 0;
    for (int variant = 0; variant < 5 * 2 * 3 * 2 + 8; variant++) {
        hoodie_pq_writer_opts o;
        hoodie_pq_writer_opts_init(&o);
        if (variant < 60) {
            o.codec = codecs[variant % 5];
            o.data_page_v2 = (variant / 5) % 2;
            int dict = (variant / 10) % 3;
            o.dictionary = dict != 1;
            if (dict == 2) o.dictionary_limit = 200;
            if ((variant / 30) % 2) { o.row_group_rows = 77; o.page_bytes = 300; }
        } else {
            o.dictionary = 0;
            o.value_encoding = encs[(variant - 60) % 4];
            o.data_page_v2 = variant >= 64;
            o.page_bytes = 1000;
            o.codec = HOODIE_PQ_ZSTD;
        }
        char name[64];
        snprintf(name, sizeof name, "m%d.parquet", variant);
        const char *p = tmp_path(name);
        hoodie_assert_ok(pqd_write(p, &s, roots, 3, &o));
        hoodie_assert_ok(hoodie_buf_printf(&sql, "%sSELECT '%s' AS f, md5(string_agg(t::VARCHAR, chr(10) ORDER BY id)) "
                                           "AS h, count(*) AS n FROM read_parquet('%s') t",
                                           nfiles ? " UNION ALL " : "", name, p));
        nfiles++;
    }
    /* the row group split of the small-row-group variants */
    const char *p30 = tmp_path("m30.parquet");
    char q[4096];
    snprintf(q, sizeof q, "SELECT count(DISTINCT row_group_id) AS g, sum(row_group_num_rows) / 29 AS r FROM "
             "parquet_metadata('%s')", p30);
    char *out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("g,r\n13,1000\n", out);
    free(out);
    hoodie_assert_ok(hoodie_buf_cstr(&sql));
    out = pqd_duck("--csv", (const char *)sql.data);
    hoodie_assert(out != NULL);
    /* all hashes equal, every count 1000 */
    char first[64] = "";
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (lines++ == 0) continue; /* header */
        char *h = strchr(line, ',');
        hoodie_assert(h != NULL);
        h++;
        char *n = strchr(h, ',');
        hoodie_assert(n != NULL);
        *n++ = 0;
        if (!first[0]) snprintf(first, sizeof first, "%s", h);
        if (strcmp(first, h) != 0) fprintf(stderr, "mismatch: %s\n", line);
        hoodie_assert_equal_s(first, h);
        hoodie_assert_equal_s("1000", n);
    }
    hoodie_assert_equal_i(nfiles + 1, lines);
    free(out);
    /* the encodings really used: dictionary fallback, and the non-default value encodings */
    snprintf(q, sizeof q,
             "SELECT (SELECT string_agg(DISTINCT encodings, '/') FROM parquet_metadata('%s/m20.parquet') WHERE "
             "path_in_schema = 's') a, (SELECT encodings FROM parquet_metadata('%s/m60.parquet') WHERE path_in_schema "
             "= 'i32' LIMIT 1) b, (SELECT encodings FROM parquet_metadata('%s/m61.parquet') WHERE path_in_schema = 's' "
             "LIMIT 1) c, (SELECT encodings FROM parquet_metadata('%s/m62.parquet') WHERE path_in_schema = 's' LIMIT 1) "
             "d, (SELECT encodings FROM parquet_metadata('%s/m63.parquet') WHERE path_in_schema = 'f64' LIMIT 1) e",
             g_dir, g_dir, g_dir, g_dir, g_dir);
    out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("a,b,c,d,e\n\"PLAIN, PLAIN_DICTIONARY, RLE\",\"RLE, DELTA_BINARY_PACKED\","
                          "\"RLE, DELTA_LENGTH_BYTE_ARRAY\",\"RLE, DELTA_BYTE_ARRAY\",\"RLE, BYTE_STREAM_SPLIT\"\n", out);
    free(out);
    hoodie_buf_dispose(&sql);
    for (int i = 0; i < 3; i++) hoodie_array_dispose(&b[i]);
    hoodie_field_dispose(&s);
}
