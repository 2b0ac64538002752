/* The Avro decoder's flat program (inline scalar ops, inline skips) against the generic plan walk, and its
 * failures on corrupt input. */
#include "hoodie_test.h"
#include "model_gen.h"
#include "format/avro/binary.h"
#include "format/hlog/hlog.h"
#include "model/avro.h"
#include "model/avro_encode.h"
#include "model/value.h"
#include "util/error.h"

/* Every inline op (plain and in [null, T] / [T, null] unions) and every inline skip, plus a generic field. */
static const char *FLAT_W =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"il\",\"type\":\"int\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
    "{\"name\":\"tsm\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]},"
    "{\"name\":\"date\",\"type\":[{\"type\":\"int\",\"logicalType\":\"date\"},\"null\"]},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"by\",\"type\":[\"bytes\",\"null\"]},"
    "{\"name\":\"ni\",\"type\":[\"null\",\"int\"]},"
    "{\"name\":\"nl\",\"type\":[\"long\",\"null\"]},"
    "{\"name\":\"nd\",\"type\":[\"null\",\"double\"]},"
    "{\"name\":\"nf\",\"type\":[\"null\",\"float\"]},"
    "{\"name\":\"nb\",\"type\":[\"null\",\"boolean\"]},"
    "{\"name\":\"sk_s\",\"type\":\"string\"},"
    "{\"name\":\"sk_l\",\"type\":\"long\"},"
    "{\"name\":\"sk_u\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"sk_d\",\"type\":[\"double\",\"null\"]},"
    "{\"name\":\"sk_f\",\"type\":\"float\"},"
    "{\"name\":\"sk_b\",\"type\":\"boolean\"},"
    "{\"name\":\"sk_x\",\"type\":{\"type\":\"fixed\",\"name\":\"f3\",\"size\":3}},"
    "{\"name\":\"sk_arr\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
    "{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"]}]},"
    "{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":20,\"scale\":2}]}"
    "]}";

/* The reader: the sk_* fields projected out, il promoted to long, tsm read as micros (generic), 'added' new. */
static const char *FLAT_R =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"added\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"nb\",\"type\":[\"null\",\"boolean\"]},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"il\",\"type\":\"long\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
    "{\"name\":\"tsm\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}]},"
    "{\"name\":\"date\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"by\",\"type\":[\"null\",\"bytes\"]},"
    "{\"name\":\"ni\",\"type\":[\"null\",\"int\"]},"
    "{\"name\":\"nl\",\"type\":[\"null\",\"long\"]},"
    "{\"name\":\"nd\",\"type\":[\"null\",\"double\"]},"
    "{\"name\":\"nf\",\"type\":[\"null\",\"float\"]},"
    "{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"string\"]}]},"
    "{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":20,\"scale\":2}]}"
    "]}";

/* Integers over the whole range (varints of 1 to 10 bytes), long strings (multi-byte lengths). */
static void flat_value(hoodie_array *a, const hoodie_field *f, uint64_t *rng)
{
    uint64_t r = gen_rng(rng);
    if (f->nullable && r % 5 == 0) { hoodie_assert_ok(hoodie_array_append_null(a, f)); return; }
    r = gen_rng(rng);
    int shift = (int)(gen_rng(rng) % 64);
    switch (f->type.id) {
    case HOODIE_TYPE_INT32: case HOODIE_TYPE_DATE32:
        hoodie_assert_ok(hoodie_array_append_int(a, f, (int32_t)(uint32_t)(r >> (shift / 2))));
        break;
    case HOODIE_TYPE_INT64: case HOODIE_TYPE_TIMESTAMP: {
        int64_t v = (int64_t)(r >> shift);
        if (r % 13 == 0) v = r % 2 ? INT64_MIN : INT64_MAX;
        if (f->type.id == HOODIE_TYPE_TIMESTAMP && f->type.unit != HOODIE_UNIT_MICRO) v /= 1000;
        hoodie_assert_ok(hoodie_array_append_int(a, f, v));
        break;
    }
    case HOODIE_TYPE_STRING: case HOODIE_TYPE_BINARY: {
        char buf[300];
        size_t n = (size_t)(r % 3 == 0 ? r % 300 : r % 12);
        for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + gen_rng(rng) % 26);
        hoodie_assert_ok(hoodie_array_append_bytes(a, f, buf, n));
        break;
    }
    default: gen_value(a, f, rng, 1);
    }
}

static void parse_field(hoodie_arena *a, const char *json, hoodie_avro_schema **s, hoodie_field *f)
{
    hoodie_assert_ok(hoodie_avro_schema_parse(s, json, strlen(json), a, "test schema"));
    hoodie_assert_ok(hoodie_avro_to_field(f, *s, "root"));
}

HOODIE_TEST(model_avro_flat__matches_the_generic_walk)
{
    hoodie_arena *a;
    hoodie_avro_schema *ws, *rs;
    hoodie_field wf, rf;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    parse_field(a, FLAT_W, &ws, &wf);
    parse_field(a, FLAT_R, &rs, &rf);
    hoodie_avro_encoder *e;
    hoodie_avro_decoder *d;
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, ws, &wf));
    hoodie_assert_ok(hoodie_avro_decoder_new(&d, ws, &rf));
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t rng = seed * 0x9e3779b97f4a7c15ULL;
        hoodie_batch src, flat, gen;
        hoodie_buf enc = HOODIE_BUF_INIT;
        int64_t rows = 400;
        size_t *starts = malloc((size_t)(rows + 1) * sizeof *starts);
        hoodie_assert_ok(hoodie_batch_init(&src, &wf));
        for (int64_t r = 0; r < rows; r++) {
            for (size_t c = 0; c < wf.n_children; c++) flat_value(&src.root.children[c], &wf.children[c], &rng);
            hoodie_assert_ok(hoodie_array_struct_end(&src.root, &wf));
        }
        for (int64_t r = 0; r < rows; r++) {
            starts[r] = enc.len;
            hoodie_assert_ok(hoodie_avro_encode_row(e, &src.root, r, &enc));
        }
        starts[rows] = enc.len;
        hoodie_assert_ok(hoodie_batch_init(&flat, &rf));
        hoodie_assert_ok(hoodie_batch_init(&gen, &rf));
        if (seed % 2) hoodie_assert_ok(hoodie_avro_decoder_reserve(d, &flat.root, rows));
        for (int64_t r = 0; r < rows; r++) {
            /* each record on its own cursor, as in a data block: the last fields take the bounds-checked path */
            hoodie_cursor c1, c2;
            hoodie_cursor_init(&c1, enc.data + starts[r], starts[r + 1] - starts[r], starts[r], "x");
            hoodie_cursor_init(&c2, enc.data + starts[r], starts[r + 1] - starts[r], starts[r], "x");
            hoodie_assert_ok(hoodie_avro_decode_row(d, &c1, &flat.root));
            hoodie_assert_ok(hoodie_avro__decode_row_generic(d, &c2, &gen.root));
            hoodie_assert_equal_i(0, hoodie_cursor_left(&c1));
            hoodie_assert_equal_i(0, hoodie_cursor_left(&c2));
        }
        hoodie_assert_equal_i(rows, flat.root.length);
        hoodie_assert(hoodie_batch_equal(&flat, &gen));
        /* and the same columns as written (where the types agree) */
        const char *same[] = { "b", "i", "l", "ts", "f", "d", "s", "ni", "nl", "nd", "nf", "nb", "arr", "dec" };
        for (size_t k = 0; k < sizeof same / sizeof *same; k++) {
            int wi = hoodie_field_find(&wf, same[k]), ri = hoodie_field_find(&rf, same[k]);
            for (int64_t r = 0; r < rows; r++)
                hoodie_assert(hoodie_value_equal(&rf.children[ri], &src.root.children[wi], r, &flat.root.children[ri], r));
        }
        int added = hoodie_field_find(&rf, "added");
        hoodie_assert_equal_i(rows, flat.root.children[added].null_count);
        free(starts);
        hoodie_buf_dispose(&enc);
        hoodie_batch_dispose(&src);
        hoodie_batch_dispose(&flat);
        hoodie_batch_dispose(&gen);
    }
    hoodie_avro_decoder_free(d);
    hoodie_avro_encoder_free(e);
    hoodie_field_dispose(&wf);
    hoodie_field_dispose(&rf);
    hoodie_arena_free(a);
}

HOODIE_TEST(model_avro_flat__varint_fast_path_agrees)
{
    static const int64_t vals[] = { 0, 1, -1, 63, -64, 64, -65, 8191, 8192, -8193, 1048575, 1048576, INT32_MAX,
                                    INT32_MIN, 1LL << 48, -(1LL << 48), (1LL << 55) - 1, 1LL << 55, (1LL << 62) - 1,
                                    1LL << 62, -(1LL << 62), INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
        for (int pad = 0; pad <= 12; pad += 12) {
            hoodie_buf b = HOODIE_BUF_INIT;
            hoodie_assert_ok(hoodie_avro_write_long(&b, vals[i]));
            size_t n = b.len;
            for (int k = 0; k < pad; k++) hoodie_assert_ok(hoodie_buf_putc(&b, 0xff));
            hoodie_cursor c = HOODIE_CURSOR_INIT(b.data, b.len);
            hoodie_assert(hoodie_avro_read_long(&c) == vals[i]);
            hoodie_assert_ok(c.status);
            hoodie_assert_equal_i(n, (size_t)(c.p - c.base));
            hoodie_buf_dispose(&b);
        }
    }
    /* overlong (11 bytes) and a 10th byte above 1: the same failure at the same offset as the checked reader */
    static const uint8_t overlong[16] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
    static const uint8_t big10[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
    const uint8_t *bad[] = { overlong, big10 };
    for (size_t i = 0; i < 2; i++) {
        hoodie_cursor c1, c2;
        hoodie_cursor_init(&c1, bad[i], 16, 100, "v");
        hoodie_cursor_init(&c2, bad[i], 16, 100, "v");
        (void)hoodie_avro_read_long(&c1);
        hoodie_assert_status(HOODIE_ECORRUPT, c1.status);
        char m1[512];
        snprintf(m1, sizeof m1, "%s", hoodie_error__message());
        (void)hoodie_cursor_uvarint(&c2);
        hoodie_assert_status(HOODIE_ECORRUPT, c2.status);
        hoodie_assert_equal_s(hoodie_error__message(), m1);
        hoodie_assert_contains(m1, "longer than 10 bytes");
        hoodie_assert_contains(m1, "offset 110");
    }
}

/* Corrupt records: every failure is HOODIE_ECORRUPT naming the file and the absolute offset, identical to the
 * generic walk's. */
static const char *BAD_W =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"k\",\"type\":\"string\"},"
    "{\"name\":\"u\",\"type\":[\"null\",\"long\"]},"
    "{\"name\":\"x\",\"type\":\"int\"},"
    "{\"name\":\"n\",\"type\":[\"null\",\"double\"]}"
    "]}";
static const char *BAD_R =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},"
    "{\"name\":\"s\",\"type\":[\"null\",\"string\"]},"
    "{\"name\":\"x\",\"type\":\"int\"},"
    "{\"name\":\"n\",\"type\":\"double\"}"
    "]}";

typedef struct bad_case {
    const char *name;
    uint8_t bytes[24];
    size_t len;
    const char *want;      /* in the message */
    uint64_t offset;       /* 1000 + position */
} bad_case;

HOODIE_TEST(model_avro_flat__corrupt_records_fail_with_offsets)
{
    /* a good record: a=1 (02), s=branch 1 "hi" (02 04 'h' 'i'), k="z" (02 'z'), u=branch 1 5 (02 0a), x=3 (06),
     * n=branch 1 1.0 (02 + 8 bytes) */
    static const bad_case cases[] = {
        { "truncated varint", { 0x80 }, 1, "truncated", 1001 },
        { "truncated varint, more bytes", { 0x02, 0x02, 0x04, 'h', 'i', 0x02, 'z', 0x02, 0x8a }, 9, "truncated", 1009 },
        { "overlong varint", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0 }, 15,
          "longer than 10 bytes", 1010 },
        { "negative length", { 0x02, 0x02, 0x01, 'h', 'i', 0, 0, 0, 0, 0, 0, 0 }, 12, "length -1", 1003 },
        { "oversized length", { 0x02, 0x02, 0x40, 'h', 'i', 0, 0, 0, 0, 0, 0, 0 }, 12, "length 32 with 9 bytes left",
          1003 },
        { "huge length", { 0x02, 0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0 }, 12, "length 2147483647", 1007 },
        { "union branch 2", { 0x02, 0x04, 0x04, 'h', 'i', 0, 0, 0, 0, 0, 0, 0 }, 12,
          "union branch 2 out of range in field 's'", 1002 },
        { "union branch -1", { 0x02, 0x01, 0x04, 'h', 'i', 0, 0, 0, 0, 0, 0, 0 }, 12,
          "union branch -1 out of range in field 's'", 1002 },
        { "skipped string cut", { 0x02, 0x00, 0x08, 'z' }, 4, "length 4 with 1 bytes left", 1003 },
        { "skipped union branch", { 0x02, 0x00, 0x02, 'z', 0x06, 0x0a, 0, 0, 0, 0, 0, 0 }, 12,
          "avro union branch 3 out of range", 1005 },
        { "int out of range", { 0x02, 0x00, 0x02, 'z', 0x00, 0x80, 0x80, 0x80, 0x80, 0x20, 0, 0, 0 }, 13,
          "avro int out of range", 1010 },
        { "null in non-nullable", { 0x02, 0x00, 0x02, 'z', 0x00, 0x06, 0x00, 0, 0, 0, 0, 0 }, 12,
          "null in non-nullable field 'n'", 1007 },
        { "double cut", { 0x02, 0x00, 0x02, 'z', 0x00, 0x06, 0x02, 0, 0, 0 }, 10, "truncated", 1007 },
    };
    hoodie_arena *a;
    hoodie_avro_schema *ws, *rs;
    hoodie_field wf, rf;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    parse_field(a, BAD_W, &ws, &wf);
    parse_field(a, BAD_R, &rs, &rf);
    hoodie_avro_decoder *d;
    hoodie_assert_ok(hoodie_avro_decoder_new(&d, ws, &rf));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *bc = &cases[i];
        hoodie_batch b1, b2;
        hoodie_assert_ok(hoodie_batch_init(&b1, &rf));
        hoodie_assert_ok(hoodie_batch_init(&b2, &rf));
        /* the bytes in a malloc'd block of exactly their size, so ASan sees any over-read */
        uint8_t *copy = malloc(bc->len);
        memcpy(copy, bc->bytes, bc->len);
        hoodie_cursor c1, c2;
        hoodie_cursor_init(&c1, copy, bc->len, 1000, "rec.log");
        hoodie_cursor_init(&c2, copy, bc->len, 1000, "rec.log");
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro_decode_row(d, &c1, &b1.root));
        char m1[512];
        snprintf(m1, sizeof m1, "%s", hoodie_error__message());
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_avro__decode_row_generic(d, &c2, &b2.root));
        if (strcmp(m1, hoodie_error__message()) != 0) fprintf(stderr, "case %s\n", bc->name);
        hoodie_assert_equal_s(hoodie_error__message(), m1);
        hoodie_assert_contains(m1, "rec.log");
        hoodie_assert_contains(m1, bc->want);
        char off[40];
        snprintf(off, sizeof off, "offset %llu", (unsigned long long)bc->offset);
        if (!strstr(m1, off)) fprintf(stderr, "case %s: %s\n", bc->name, m1);
        hoodie_assert_contains(m1, off);
        free(copy);
        hoodie_batch_dispose(&b1);
        hoodie_batch_dispose(&b2);
    }
    /* and the good record decodes */
    static const uint8_t good[] = { 0x02, 0x02, 0x04, 'h', 'i', 0x02, 'z', 0x02, 0x0a, 0x06, 0x02, 0, 0, 0, 0, 0, 0,
                                    0xf0, 0x3f };
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &rf));
    hoodie_cursor c = HOODIE_CURSOR_INIT(good, sizeof good);
    hoodie_assert_ok(hoodie_avro_decode_row(d, &c, &b.root));
    hoodie_assert_equal_i(0, hoodie_cursor_left(&c));
    hoodie_assert_equal_i(1, hoodie_array_int_at(&rf.children[0], &b.root.children[0], 0));
    hoodie_assert_equal_i(3, hoodie_array_int_at(&rf.children[2], &b.root.children[2], 0));
    hoodie_assert_equal_i(2, b.root.children[1].offsets[1]);
    hoodie_assert(memcmp(b.root.children[1].values, "hi", 2) == 0);
    hoodie_batch_dispose(&b);
    hoodie_avro_decoder_free(d);
    hoodie_field_dispose(&wf);
    hoodie_field_dispose(&rf);
    hoodie_arena_free(a);
}

/* Encode rows [0, rows) both ways: the same bytes, or the same failure. */
static void encode_both(const hoodie_avro_encoder *e, const hoodie_array *root, int64_t rows)
{
    hoodie_buf b1 = HOODIE_BUF_INIT, b2 = HOODIE_BUF_INIT;
    for (int64_t r = 0; r < rows; r++) {
        hoodie_status s1 = hoodie_avro_encode_row(e, root, r, &b1);
        char m1[512];
        snprintf(m1, sizeof m1, "%s", s1 < 0 ? hoodie_error__message() : "");
        hoodie_status s2 = hoodie_avro__encode_row_generic(e, root, r, &b2);
        hoodie_assert_equal_i(s2, s1);
        if (s1 < 0) hoodie_assert_equal_s(hoodie_error__message(), m1);
        hoodie_assert_equal_i(b2.len, b1.len);
    }
    hoodie_assert(b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0);
    hoodie_buf_dispose(&b1);
    hoodie_buf_dispose(&b2);
}

HOODIE_TEST(model_avro_flat__encoder_matches_the_generic_walk)
{
    hoodie_arena *a;
    hoodie_avro_schema *ws;
    hoodie_field wf;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 8192));
    parse_field(a, FLAT_W, &ws, &wf);
    hoodie_avro_encoder *e;
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, ws, &wf));
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t rng = seed * 0x2545f4914f6cdd1dULL;
        hoodie_batch src;
        int64_t rows = 300;
        hoodie_assert_ok(hoodie_batch_init(&src, &wf));
        for (int64_t r = 0; r < rows; r++) {
            for (size_t c = 0; c < wf.n_children; c++) flat_value(&src.root.children[c], &wf.children[c], &rng);
            hoodie_assert_ok(hoodie_array_struct_end(&src.root, &wf));
        }
        encode_both(e, &src.root, rows);
        /* a data block of a middle range: pre-sized, the same records */
        hoodie_buf blk = HOODIE_BUF_INIT, recs = HOODIE_BUF_INIT;
        hoodie_hlog_header_entry h[1] = { { HOODIE_HLOG_INSTANT_TIME, "20250101000000000", 17 } };
        hoodie_assert_ok(hoodie_avro_encode_data_block(&blk, e, &src.root, 7, rows - 20, h, 1));
        hoodie_hlog_iter it;
        hoodie_hlog_block b;
        hoodie_hlog_avro_records rr;
        const uint8_t *rec;
        size_t rlen;
        hoodie_assert_ok(hoodie_hlog_iter_init(&it, blk.data, blk.len, "blk"));
        hoodie_assert_ok(hoodie_hlog_iter_next(&it, &b));
        hoodie_assert_ok(hoodie_hlog_avro_open(&rr, &b, "blk"));
        hoodie_assert_equal_i(rows - 20, rr.record_count);
        for (int64_t r = 7; hoodie_hlog_avro_next(&rr, &rec, &rlen) == HOODIE_OK; r++) {
            hoodie_buf_clear(&recs);
            hoodie_assert_ok(hoodie_avro__encode_row_generic(e, &src.root, r, &recs));
            hoodie_assert_equal_i(recs.len, rlen);
            hoodie_assert(memcmp(recs.data, rec, rlen) == 0);
        }
        hoodie_hlog_iter_dispose(&it);
        hoodie_buf_dispose(&blk);
        hoodie_buf_dispose(&recs);
        hoodie_batch_dispose(&src);
    }
    hoodie_avro_encoder_free(e);
    hoodie_field_dispose(&wf);
    hoodie_arena_free(a);
}

/* Columns whose types differ from the schema's (widened, narrowed, BINARY for string, a missing column) and
 * values the schema refuses: the same bytes, the same errors. */
HOODIE_TEST(model_avro_flat__encoder_conversions_and_errors)
{
    static const char *W =
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"int\"},"
        "{\"name\":\"b\",\"type\":[\"null\",\"long\"]},"
        "{\"name\":\"c\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
        "{\"name\":\"c2\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
        "{\"name\":\"s\",\"type\":\"string\"},"
        "{\"name\":\"t\",\"type\":[\"string\",\"null\"]},"
        "{\"name\":\"m\",\"type\":[\"null\",\"double\"]},"
        "{\"name\":\"f\",\"type\":\"double\"}"
        "]}";
    hoodie_arena *ar;
    hoodie_avro_schema *ws;
    hoodie_field root;
    hoodie_assert_ok(hoodie_arena_new(&ar, NULL, 8192));
    hoodie_assert_ok(hoodie_avro_schema_parse(&ws, W, strlen(W), ar, "w"));
    hoodie_type ts = hoodie_type_of(HOODIE_TYPE_TIMESTAMP);
    ts.unit = HOODIE_UNIT_MICRO;
    ts.utc = 1;
    hoodie_field cols[7] = { gen_leaf("a", HOODIE_TYPE_INT64, 0), gen_leaf("b", HOODIE_TYPE_INT32, 1),
                             gen_leaf("c", HOODIE_TYPE_INT64, 0), gen_leaf("c2", HOODIE_TYPE_INT64, 0),
                             gen_leaf("s", HOODIE_TYPE_BINARY, 1), gen_leaf("t", HOODIE_TYPE_STRING, 1),
                             gen_leaf("f", HOODIE_TYPE_FLOAT, 0) };
    cols[2].type = ts;
    cols[3].type = ts;
    hoodie_assert_ok(hoodie_field_init(&root, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    for (int i = 0; i < 7; i++) gen_add(&root, cols[i]);
    hoodie_avro_encoder *e;
    hoodie_assert_ok(hoodie_avro_encoder_new(&e, ws, &root));
    hoodie_batch b;
    hoodie_assert_ok(hoodie_batch_init(&b, &root));
    static const int64_t as[] = { 0, -5, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, 7, 8 };
    for (int64_t r = 0; r < 7; r++) {
        hoodie_array *c = b.root.children;
        hoodie_assert_ok(hoodie_array_append_int(&c[0], &root.children[0], as[r]));
        if (r % 3 == 1) hoodie_assert_ok(hoodie_array_append_null(&c[1], &root.children[1]));
        else hoodie_assert_ok(hoodie_array_append_int(&c[1], &root.children[1], -r * 1000003));
        hoodie_assert_ok(hoodie_array_append_int(&c[2], &root.children[2], -r * 123456789));
        hoodie_assert_ok(hoodie_array_append_int(&c[3], &root.children[3], -r * 123456789));
        if (r == 6) hoodie_assert_ok(hoodie_array_append_null(&c[4], &root.children[4]));
        else hoodie_assert_ok(hoodie_array_append_bytes(&c[4], &root.children[4], "xyz", (size_t)r % 4));
        if (r % 2) hoodie_assert_ok(hoodie_array_append_null(&c[5], &root.children[5]));
        else hoodie_assert_ok(hoodie_array_append_bytes(&c[5], &root.children[5], "hello", (size_t)r % 6));
        hoodie_assert_ok(hoodie_array_append_double(&c[6], &root.children[6], r * 0.25));
        hoodie_assert_ok(hoodie_array_struct_end(&b.root, &root));
    }
    encode_both(e, &b.root, 7);
    /* the failures are the ones expected: an int out of range (row 4), a null string (row 6) */
    hoodie_buf out = HOODIE_BUF_INIT;
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(e, &b.root, 4, &out));
    hoodie_assert_contains(hoodie_error__message(), "row 4");
    hoodie_assert_equal_i(0, out.len);
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_row(e, &b.root, 6, &out));
    hoodie_assert_contains(hoodie_error__message(), "field 's', row 6");
    hoodie_assert_status(HOODIE_EINVAL, hoodie_avro_encode_data_block(&out, e, &b.root, 0, 7, NULL, 0));
    hoodie_assert_equal_i(0, out.len);
    /* row 0: a=0, b=branch 1 0, c=0, c2=0, s="", t=branch 0 "", m=null (no column), f=0.0 */
    hoodie_assert_ok(hoodie_avro_encode_row(e, &b.root, 0, &out));
    static const uint8_t want0[] = { 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    hoodie_assert_equal_i(sizeof want0, out.len);
    hoodie_assert(memcmp(out.data, want0, sizeof want0) == 0);
    hoodie_buf_dispose(&out);
    hoodie_batch_dispose(&b);
    hoodie_avro_encoder_free(e);
    hoodie_field_dispose(&root);
    hoodie_arena_free(ar);
}
