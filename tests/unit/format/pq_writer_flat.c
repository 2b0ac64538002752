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
    if (v) bb_u32(&c[7], (uint32_t)(4000000000u + (uint32_t)i)); else bb_null(&c[7], 4);
    if (v) bb_u64(&c[8], 18000000000000000000ull + (uint64_t)i); else bb_null(&c[8], 8);
    if (v) bb_f32(&c[9], (float)k * 0.5f); else bb_null(&c[9], 4);
    if (v) bb_f64(&c[10], (double)k * 0.25); else bb_null(&c[10], 8);
    char buf[64];
    snprintf(buf, sizeof buf, "str%03d", (int)(i % 37));
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

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", hoodie_test_tmpdir(), name);
    return buf[k];
}

HOODIE_TEST(format_pqwrite__flat_describe)
{
    hoodie_field s = flat_schema();
    hoodie_array root;
    flat_batch(&root, &s, 0, 10);
    const hoodie_array *roots[1] = { &root };
    hoodie_pq_writer_opts o;
    hoodie_pq_writer_opts_init(&o);
    const char *p = tmp_path("flat.parquet");
    hoodie_assert_ok(pqd_write(p, &s, roots, 1, &o));
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", p);
    char *out = pqd_duck("--csv", sql);
    hoodie_assert(out != NULL);
    printf("%s\n", out);
    snprintf(sql, sizeof sql, "SELECT * FROM read_parquet('%s')", p);
    free(out);
    out = pqd_duck("--csv", sql);
    hoodie_assert(out != NULL);
    printf("%s\n", out);
    free(out);
    hoodie_array_dispose(&root);
    hoodie_field_dispose(&s);
}
