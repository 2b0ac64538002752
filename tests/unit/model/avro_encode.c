#include "hoodie_test.h"
#include "model_gen.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog_write.h"
#include "model/avro.h"
#include "model/avro_encode.h"
#include "model/value.h"
#include "storage/storage.h"
#include "util/error.h"

#include <dirent.h>

/* Every Avro type the encoder handles, nullable both ways, nested. */
static const char *ALL =
    "{\"type\":\"record\",\"name\":\"r\",\"namespace\":\"t\",\"fields\":["
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":[\"int\",\"null\"]},"
    "{\"name\":\"l\",\"type\":[\"null\",\"long\"],\"default\":null},"
    "{\"name\":\"f\",\"type\":[\"null\",\"float\"]},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"s\",\"type\":[\"string\",\"null\"]},"
    "{\"name\":\"by\",\"type\":[\"null\",\"bytes\"]},"
    "{\"name\":\"fx\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"f3\",\"size\":3}]},"
    "{\"name\":\"dbytes\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":3}]},"
    "{\"name\":\"dfixed\",\"type\":[{\"type\":\"fixed\",\"name\":\"fixed\",\"size\":16,\"logicalType\":\"decimal\",\"precision\":38,\"scale\":2},\"null\"]},"
    "{\"name\":\"date\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]},"
    "{\"name\":\"tmil\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"time-millis\"}]},"
    "{\"name\":\"tmic\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"time-micros\"}]},"
    "{\"name\":\"tsm\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]},"
    "{\"name\":\"tsu\",\"type\":[{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"},\"null\"]},"
    "{\"name\":\"lts\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}]},"
    "{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"]}]},"
    "{\"name\":\"arr2\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"long\"}}},"
    "{\"name\":\"m\",\"type\":[\"null\",{\"type\":\"map\",\"values\":[\"int\",\"null\"]}]},"
    "{\"name\":\"rec\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"in\",\"fields\":["
    "  {\"name\":\"x\",\"type\":\"double\"},"
    "  {\"name\":\"deep\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"deep\",\"fields\":[{\"name\":\"z\",\"type\":[\"null\",\"string\"]}]}]},"
    "  {\"name\":\"pts\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"pt\",\"fields\":[{\"name\":\"p\",\"type\":\"int\"}]}}}"
    "]}]},"
    "{\"name\":\"mrec\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"in\"]}}"
    "]}";

static void parse(hoodie_arena *a, const char *json, hoodie_avro_schema **s)
{
    hoodie_assert_ok(hoodie_avro_schema_parse(s, json, strlen(json), a, "test schema"));
}

/* Decode a buffer of concatenated records (written with `s`) into a batch shaped as `f`. */
static void decode_all(const hoodie_avro_schema *s, const hoodie_field *f, const hoodie_buf *enc, int64_t rows,
                       hoodie_batch *out)
{
    hoodie_avro_decoder *d;
    hoodie_assert_ok(hoodie_avro_decoder_new(&d, s, f));
    hoodie_assert_ok(hoodie_batch_init(out, f));
    hoodie_cursor c = HOODIE_CURSOR_INIT(enc->data, enc->len);
    for (int64_t r = 0; r < rows; r++) hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &out->root));
    hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
    hoodie_avro_decoder_free(d);
}

/* The ALL schema parsed into `a`, and its field tree. */
static void all_schema(hoodie_arena **a, hoodie_avro_schema **s, hoodie_field *f)
{
    hoodie_assert_ok(hoodie_arena_new(a, NULL, 8192));
    parse(*a, ALL, s);
    hoodie_assert_ok(hoodie_avro_to_field(f, *s, "root"));
}

/* A batch of `rows` random rows shaped as f. */
static void random_rows(hoodie_batch *b, const hoodie_field *f, uint64_t *rng, int64_t rows)
{
    hoodie_assert_ok(hoodie_batch_init(b, f));
    for (int64_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < f->n_children; c++) gen_value(&b->root.children[c], &f->children[c], rng, 1);
        hoodie_assert_ok(hoodie_array_struct_end(&b->root, f));
    }
}

HOODIE_TEST(model_avro_encode__random_round_trip)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_field f;
    all_schema(&a, &s, &f);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        hoodie_batch src, back, again;
        uint64_t rng = seed * 0x9e3779b97f4a7c15ULL;
        int64_t rows = 60;
        random_rows(&src, &f, &rng, rows);
        hoodie_avro_encoder *e;
        hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &f));
        hoodie_buf enc = HOODIE_BUF_INIT, enc2 = HOODIE_BUF_INIT;
        for (int64_t r = 0; r < rows; r++) hoodie_assert_ok(hoodie_avro_encode_row(e, &src.root, r, &enc));
        decode_all(s, &f, &enc, rows, &back);
        hoodie_assert(hoodie_batch_equal(&src, &back));
        /* encoding what was decoded gives the same bytes */
        for (int64_t r = 0; r < rows; r++) hoodie_assert_ok(hoodie_avro_encode_row(e, &back.root, r, &enc2));
        hoodie_assert_equal_i(enc.len, enc2.len);
        hoodie_assert(memcmp(enc.data, enc2.data, enc.len) == 0);

        /* the same rows as a data block, read back through the log iterator */
        hoodie_buf blk = HOODIE_BUF_INIT;
        hoodie_hlog_header_entry h[2] = { { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 },
                                          { HOODIE_HLOG_SCHEMA, ALL, strlen(ALL) } };
        hoodie_assert_ok(hoodie_avro_encode_data_block(&blk, e, &src.root, 0, rows, h, 2));
        hoodie_hlog_iter it;
        hoodie_hlog_block b;
        hoodie_hlog_avro_records rr;
        const uint8_t *rec;
        size_t rlen;
        hoodie_assert_ok(hoodie_hlog_iter_init(&it, blk.data, blk.len, "blk"));
        hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
        hoodie_assert_equal_s(ALL, b.header[HOODIE_HLOG_SCHEMA]);
        hoodie_assert_ok(hoodie_hlog_avro_open(&rr, &b, "blk"));
        hoodie_assert_equal_i(rows, rr.record_count);
        hoodie_avro_decoder *d;
        hoodie_assert_ok(hoodie_avro_decoder_new(&d, s, &f));
        hoodie_assert_ok(hoodie_batch_init(&again, &f));
        while (hoodie_hlog_avro_next(&rr, &rec, &rlen) == HOODIE_OK) {
            hoodie_cursor c = HOODIE_CURSOR_INIT(rec, rlen);
            hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &again.root));
            hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
        }
        hoodie_assert(hoodie_batch_equal(&src, &again));
        hoodie_assert_equal_i(HOODIE_ITEROVER, hoodie_hlog_iter_next(&it, &b));
        hoodie_hlog_iter_dispose(&it);
        hoodie_avro_decoder_free(d);
        hoodie_buf_dispose(&blk);
        hoodie_buf_dispose(&enc);
        hoodie_buf_dispose(&enc2);
        hoodie_avro_encoder_free(e);
        hoodie_batch_dispose(&src);
        hoodie_batch_dispose(&back);
        hoodie_batch_dispose(&again);
    }
    hoodie_field_dispose(&f);
    hoodie_arena_free(a);
}

/* Records whose columns come from a row list, a constant and positions encode as the batch they stand for. */
HOODIE_TEST(model_avro_encode__column_sources_match_a_built_batch)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_field f;
    all_schema(&a, &s, &f);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t rng = seed * 0x2545f4914f6cdd1dULL;
        hoodie_batch src, one, exp;
        enum { SRC_ROWS = 60, N = 45 };
        random_rows(&src, &f, &rng, SRC_ROWS);
        int64_t list[N], same[N], pos[N], k = (int64_t)(seed * 7 % SRC_ROWS);
        for (int i = 0; i < N; i++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            list[i] = (int64_t)((rng >> 33) % SRC_ROWS); /* repeats and any order */
            same[i] = k;
            pos[i] = i;
        }
        hoodie_assert_ok(hoodie_batch_init(&one, &f));
        hoodie_assert_ok(hoodie_batch_init(&exp, &f));
        hoodie_avro_col cols[64];
        hoodie_assert(f.n_children <= 64);
        for (size_t c = 0; c < f.n_children; c++) {
            const int64_t *rows = c % 3 == 0 ? list : c % 3 == 1 ? same : pos;
            hoodie_assert_ok(hoodie_array_take(&exp.root.children[c], &f.children[c], &src.root.children[c], rows, N));
            hoodie_assert_ok(hoodie_array_take(&one.root.children[c], &f.children[c], &src.root.children[c], &k, 1));
            if (c % 3 == 0) cols[c] = (hoodie_avro_col){ &src.root.children[c], list, 0 };
            else if (c % 3 == 1) cols[c] = (hoodie_avro_col){ &one.root.children[c], NULL, 1 };
            else cols[c] = (hoodie_avro_col){ &src.root.children[c], NULL, 0 };
        }
        exp.root.length = N;
        one.root.length = 1;
        hoodie_avro_encoder *e;
        hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &f));
        hoodie_hlog_header_entry h[1] = { { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 } };
        hoodie_buf want = HOODIE_BUF_INIT, got = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_avro_encode_data_block(&want, e, &exp.root, 0, N, h, 1));
        hoodie_assert_ok(hoodie_buf_append(&got, "xy", 2)); /* appended after what is there */
        hoodie_assert_ok(hoodie_avro_encode_data_block_cols(&got, e, cols, f.n_children, N, h, 1));
        hoodie_assert_equal_i(want.len + 2, got.len);
        hoodie_assert(memcmp(want.data, got.data + 2, want.len) == 0);
        /* bad sources: refused, the buffer as it was */
        size_t before = got.len;
        hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block_cols(&got, e, cols, f.n_children - 1, N, h, 1));
        int64_t saved = list[N - 1];
        list[N - 1] = SRC_ROWS;
        hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block_cols(&got, e, cols, f.n_children, N, h, 1));
        list[N - 1] = saved;
        hoodie_avro_col by_pos[64];
        for (size_t c = 0; c < f.n_children; c++) by_pos[c] = (hoodie_avro_col){ &src.root.children[c], NULL, 0 };
        hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block_cols(&got, e, by_pos, f.n_children,
                                                                              SRC_ROWS + 1, h, 1));
        hoodie_assert_equal_i(before, got.len);
        hoodie_buf_dispose(&want);
        hoodie_buf_dispose(&got);
        hoodie_avro_encoder_free(e);
        hoodie_batch_dispose(&src);
        hoodie_batch_dispose(&one);
        hoodie_batch_dispose(&exp);
    }
    hoodie_field_dispose(&f);
    hoodie_arena_free(a);
}

/* One-column helpers for exact byte checks. */
static void one_col(hoodie_field *root, hoodie_field col)
{
    hoodie_assert_ok(hoodie_field_init(root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_add_child(root, &col));
    hoodie_field_dispose(&col);
}

static void expect_bytes(const hoodie_buf *b, const char *hex)
{
    char got[512];
    size_t n = 0;
    for (size_t i = 0; i < b->len && n + 3 < sizeof got; i++) n += (size_t)snprintf(got + n, sizeof got - n, "%02x", b->data[i]);
    got[n] = 0;
    hoodie_assert_equal_s(hex, got);
}

HOODIE_TEST(model_avro_encode__decimals_are_java_big_integers)
{
    hoodie_arena *a;
    hoodie_avro_schema *sb, *sf;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    parse(a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"v\",\"type\":{\"type\":\"bytes\","
             "\"logicalType\":\"decimal\",\"precision\":20,\"scale\":2}}]}", &sb);
    parse(a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"v\",\"type\":[{\"type\":\"fixed\",\"name\":\"x\","
             "\"size\":3,\"logicalType\":\"decimal\",\"precision\":6,\"scale\":2},\"null\"]}]}", &sf);
    hoodie_field root;
    hoodie_field col = gen_leaf("v", HOODIE_TYPE_DECIMAL, 1);
    col.type.precision = 20;
    col.type.scale = 2;
    one_col(&root, col);
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &root));
    static const int64_t vals[] = { 0, 1, -1, 127, 128, -128, -129, 255, 8388607, -8388608, 8388608 };
    size_t nv = sizeof vals / sizeof *vals;
    for (size_t i = 0; i < nv; i++) {
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[0], &root.children[0], vals[i]));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    }
    hoodie_assert_ok(hoodie_array_append_null(&b.root.children[0], &root.children[0]));
    hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    hoodie_avro_encoder *eb, *ef;
    hoodie_assert_ok(hoodie_avro_encoder_new(&eb, sb, &root));
    hoodie_assert_ok(hoodie_avro_encoder_new(&ef, sf, &root));
    static const char *want_bytes[] = { "0200", "0201", "02ff", "027f", "040080", "0280", "04ff7f", "0400ff",
                                        "067fffff", "06800000", "0800800000" };
    static const char *want_fixed[] = { "00000000", "00000001", "00ffffff", "0000007f", "00000080", "00ffff80",
                                        "00ffff7f", "000000ff", "007fffff", "00800000", NULL };
    for (size_t i = 0; i < nv; i++) {
        hoodie_buf out = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_avro_encode_row(eb, &b.root, (int64_t)i, &out));
        expect_bytes(&out, want_bytes[i]);
        hoodie_buf_clear(&out);
        if (want_fixed[i]) {
            hoodie_assert_ok(hoodie_avro_encode_row(ef, &b.root, (int64_t)i, &out));
            expect_bytes(&out, want_fixed[i]);
        } else {
            hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(ef, &b.root, (int64_t)i, &out));
            hoodie_assert_contains(hoodie_error_last()->message, "field 'v', row 10: decimal value does not fit");
            hoodie_assert_equal_i(0, out.len);
        }
        hoodie_buf_dispose(&out);
    }
    /* null: the fixed schema has it as branch 1, the bytes schema has no null */
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_encode_row(ef, &b.root, (int64_t)nv, &out));
    expect_bytes(&out, "02");
    hoodie_buf_clear(&out);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(eb, &b.root, (int64_t)nv, &out));
    hoodie_assert_contains(hoodie_error_last()->message, "null value");
    hoodie_assert_equal_i(0, out.len);
    hoodie_buf_dispose(&out);
    hoodie_avro_encoder_free(eb);
    hoodie_avro_encoder_free(ef);
    /* a different scale is refused when planning */
    root.children[0].type.scale = 3;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_avro_encoder_new(&eb, sb, &root));
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&root);
    hoodie_arena_free(a);
}

HOODIE_TEST(model_avro_encode__time_units_convert)
{
    hoodie_arena *a;
    hoodie_avro_schema *s;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    parse(a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
             "{\"name\":\"ms\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
             "{\"name\":\"us\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
             "{\"name\":\"ns\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}},"
             "{\"name\":\"raw\",\"type\":\"long\"},"
             "{\"name\":\"tm\",\"type\":{\"type\":\"int\",\"logicalType\":\"time-millis\"}},"
             "{\"name\":\"missing\",\"type\":[\"null\",\"string\"]}]}", &s);
    hoodie_field root, ts = gen_leaf("ts", HOODIE_TYPE_TIMESTAMP, 0), t = gen_leaf("tm", HOODIE_TYPE_TIME64, 0);
    ts.type.unit = HOODIE_UNIT_MICRO;
    ts.type.utc = 1;
    t.type.unit = HOODIE_UNIT_NANO;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    const char *names[] = { "ms", "us", "ns", "raw" };
    for (int i = 0; i < 4; i++) {
        hoodie_field c;
        hoodie_assert_ok(hoodie_field_clone(&c, &ts));
        free(c.name);
        c.name = strdup(names[i]);
        hoodie_assert_ok(hoodie_field_add_child(&root, &c));
        hoodie_field_dispose(&c);
    }
    hoodie_assert_ok(hoodie_field_add_child(&root, &t));
    hoodie_field_dispose(&ts);
    hoodie_field_dispose(&t);
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &root));
    for (int i = 0; i < 4; i++) hoodie_assert_ok(hoodie_array_append_int(&b.root.children[i], &root.children[i], -1500));
    hoodie_assert_ok(hoodie_array_append_int(&b.root.children[4], &root.children[4], 3723004999999LL)); /* 01:02:03.004999999 */
    hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    hoodie_avro_encoder *e;
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &root));
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_encode_row(e, &b.root, 0, &out));
    /* -1500 us = -1.5 ms -> floor -2 ms (zigzag 3); -1500 us (zigzag 2999 = b7 17); -1500000 ns (zigzag 2999999);
     * raw long -1500; time-millis 3723004; missing column -> null branch 0 */
    hoodie_buf want = HOODIE_BUF_INIT;
    hoodie_avro_write_long(&want, -2);
    hoodie_avro_write_long(&want, -1500);
    hoodie_avro_write_long(&want, -1500000);
    hoodie_avro_write_long(&want, -1500);
    hoodie_avro_write_long(&want, 3723004);
    hoodie_avro_write_long(&want, 0);
    hoodie_assert_equal_i(want.len, out.len);
    hoodie_assert(memcmp(want.data, out.data, out.len) == 0);
    hoodie_buf_dispose(&want);
    hoodie_buf_dispose(&out);
    hoodie_avro_encoder_free(e);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&root);
    hoodie_arena_free(a);
}

HOODIE_TEST(model_avro_encode__enum_and_errors)
{
    hoodie_arena *a;
    hoodie_avro_schema *s, *s2;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    parse(a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
             "{\"name\":\"e\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"BB\",\"C\"]}]},"
             "{\"name\":\"i\",\"type\":\"int\"}]}", &s);
    parse(a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"i\",\"type\":\"int\"},"
             "{\"name\":\"need\",\"type\":\"string\"}]}", &s2);
    hoodie_field root;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&root, gen_leaf("e", HOODIE_TYPE_STRING, 1));
    gen_add(&root, gen_leaf("i", HOODIE_TYPE_INT64, 1));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &root));
    const char *syms[] = { "BB", "C", "D" };
    const int64_t ints[] = { 5, INT32_MIN, (int64_t)INT32_MAX + 1 };
    for (int i = 0; i < 3; i++) {
        hoodie_assert_ok(hoodie_array_append_str(&b.root.children[0], &root.children[0], syms[i]));
        hoodie_assert_ok(hoodie_array_append_int(&b.root.children[1], &root.children[1], ints[i]));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    }
    hoodie_assert_ok(hoodie_array_append_null(&b.root.children[0], &root.children[0]));
    hoodie_assert_ok(hoodie_array_append_null(&b.root.children[1], &root.children[1]));
    hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    hoodie_avro_encoder *e;
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &root));
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_avro_encode_row(e, &b.root, 0, &out));
    expect_bytes(&out, "02020a");
    hoodie_buf_clear(&out);
    hoodie_assert_ok(hoodie_avro_encode_row(e, &b.root, 1, &out));
    expect_bytes(&out, "0204ffffffff0f");
    hoodie_buf_clear(&out);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(e, &b.root, 2, &out));
    hoodie_assert_contains(hoodie_error_last()->message, "field 'e', row 2: value is not a symbol");
    hoodie_assert_equal_i(0, out.len);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(e, &b.root, 3, &out));
    hoodie_assert_contains(hoodie_error_last()->message, "field 'i', row 3: null value");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(e, &b.root, 4, &out));
    hoodie_assert_equal_i(0, out.len);
    hoodie_avro_encoder_free(e);

    /* int range is checked per value */
    hoodie_avro_encoder *e2;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encoder_new(&e2, s2, &root));
    hoodie_assert_contains(hoodie_error_last()->message, "'need'");
    /* a STRING column cannot be an int */
    hoodie_field bad;
    hoodie_assert_ok(hoodie_field_init(&bad, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    gen_add(&bad, gen_leaf("i", HOODIE_TYPE_STRING, 0));
    gen_add(&bad, gen_leaf("need", HOODIE_TYPE_STRING, 0));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_avro_encoder_new(&e2, s2, &bad));
    hoodie_assert_contains(hoodie_error_last()->message, "'i'");
    hoodie_field_dispose(&bad);
    /* the data block stops at a bad row and leaves the buffer as it was */
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &root));
    hoodie_assert_ok(hoodie_avro_encode_data_block(&out, e, &b.root, 0, 2, NULL, 0));
    size_t len = out.len;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block(&out, e, &b.root, 0, 3, NULL, 0));
    hoodie_assert_equal_i(len, out.len);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block(&out, e, &b.root, 3, 5, NULL, 0));
    hoodie_avro_encoder_free(e);
    hoodie_buf_dispose(&out);
    hoodie_batch_dispose(&b);
    hoodie_field_dispose(&root);
    hoodie_arena_free(a);
}

/* Every record of every Avro data block in the fixtures: decoded into a batch and encoded again it gives the
 * bytes Java wrote; the whole block too. */
typedef struct fx_stats { size_t blocks, records; } fx_stats;

static void reencode_log(const char *path, fx_stats *st)
{
    hoodie_buf in = HOODIE_BUF_INIT, out = HOODIE_BUF_INIT;
    hoodie_hlog_iter it;
    hoodie_hlog_block b;
    hoodie_assert_ok(hoodie_storage_read_all(hoodie_storage_posix(), path, &in));
    hoodie_assert_ok(hoodie_hlog_iter_init(&it, in.data, in.len, path));
    while (hoodie_hlog_iter_next(&it, &b) == HOODIE_OK) {
        if (b.type != HOODIE_HLOG_AVRO_DATA_BLOCK) continue;
        hoodie_arena *a;
        hoodie_avro_schema *s;
        hoodie_field f;
        hoodie_batch batch;
        hoodie_avro_decoder *d;
        hoodie_avro_encoder *e;
        hoodie_hlog_avro_records r;
        const uint8_t *rec;
        size_t len;
        hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
        hoodie_assert_ok(hoodie_avro_schema_parse(&s, b.header[HOODIE_HLOG_SCHEMA], b.header_len[HOODIE_HLOG_SCHEMA], a, path));
        hoodie_assert_ok(hoodie_avro_to_field(&f, s, "root"));
        hoodie_assert_ok(hoodie_avro_decoder_new(&d, s, &f));
        hoodie_assert_ok(hoodie_avro_encoder_new(&e, s, &f));
        hoodie_assert_ok(hoodie_batch_init(&batch, &f));
        hoodie_assert_ok(hoodie_hlog_avro_open(&r, &b, path));
        int64_t row = 0;
        while (hoodie_hlog_avro_next(&r, &rec, &len) == HOODIE_OK) {
            hoodie_cursor c = HOODIE_CURSOR_INIT(rec, len);
            hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &batch.root));
            hoodie_buf_clear(&out);
            hoodie_assert_ok(hoodie_avro_encode_row(e, &batch.root, row++, &out));
            hoodie_assert_equal_i(len, out.len);
            hoodie_assert(memcmp(rec, out.data, len) == 0);
            st->records++;
        }
        /* the block, headers in the fixture's order */
        hoodie_hlog_header_entry h[HOODIE_HLOG_HEADER_KEY_COUNT];
        const uint8_t *p = in.data + b.offset + 22;
        uint32_t nh = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        p += 4;
        for (uint32_t i = 0; i < nh; i++) {
            uint32_t k = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
            h[i].key = (hoodie_hlog_header_key)k;
            h[i].value = b.header[k];
            h[i].len = b.header_len[k];
            p += 8 + h[i].len;
        }
        hoodie_buf_clear(&out);
        hoodie_assert_ok(hoodie_avro_encode_data_block(&out, e, &batch.root, 0, row, h, nh));
        hoodie_assert_equal_i(b.total_len, out.len);
        hoodie_assert(memcmp(in.data + b.offset, out.data, out.len) == 0);
        st->blocks++;
        hoodie_batch_dispose(&batch);
        hoodie_avro_encoder_free(e);
        hoodie_avro_decoder_free(d);
        hoodie_field_dispose(&f);
        hoodie_arena_free(a);
    }
    hoodie_hlog_iter_dispose(&it);
    hoodie_buf_dispose(&in);
    hoodie_buf_dispose(&out);
}

static void walk(const char *dir, int depth, fx_stats *st)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d))) {
        char p[2048];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".hoodie")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) {
            if (depth < 4) walk(p, depth + 1, st);
        } else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) {
            reencode_log(p, st);
        }
    }
    closedir(d);
}

HOODIE_TEST(model_avro_encode__fixture_records_reencode_identically)
{
    fx_stats st = { 0, 0 };
    walk(hoodie_fixture("hudi/tables"), 0, &st);
    walk(hoodie_fixture("hudi/standalone/log_files"), 0, &st);
    fprintf(stderr, "  %zu Avro data blocks, %zu records re-encoded byte-identically\n", st.blocks, st.records);
    hoodie_assert(st.blocks >= 10);
    hoodie_assert(st.records >= 14);
}
