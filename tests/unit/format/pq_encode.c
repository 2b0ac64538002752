/* Parquet encoders on known byte sequences (the spec's examples), and FileMetaData encoding read by DuckDB. */
#include "hoodie_test.h"
#include "format/parquet/encode.h"
#include "format/parquet/codec.h"
#include "format/parquet/meta.h"
#include "pq_duck.h"

static void expect_bytes(const hoodie_buf *b, const uint8_t *want, size_t n)
{
    if (b->len != n || memcmp(b->data, want, n) != 0) {
        fprintf(stderr, "got %zu bytes:", b->len);
        for (size_t i = 0; i < b->len; i++) fprintf(stderr, " %02x", b->data[i]);
        fprintf(stderr, "\n");
    }
    hoodie_assert_equal_i(n, b->len);
    hoodie_assert(memcmp(b->data, want, n) == 0);
}

HOODIE_TEST(format_pqencode__bitpack_spec)
{
    /* parquet-format Encodings.md: 0..7 with bit width 3 -> 10001000 11000110 11111010 */
    uint32_t v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_pq_bitpack(v, 8, 3, &b));
    static const uint8_t want[] = { 0x88, 0xc6, 0xfa };
    expect_bytes(&b, want, sizeof want);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_pqencode__rle_hybrid)
{
    hoodie_buf b = HOODIE_BUF_INIT;
    /* 10 x 1 then 0..7 with bw 3: a repeated run (10 << 1 = 0x14, value 1) then one bit-packed group */
    uint16_t v[18] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7 };
    hoodie_assert_ok(hoodie_pq_rle_encode(v, NULL, 18, 3, &b));
    static const uint8_t want[] = { 0x14, 0x01, 0x03, 0x88, 0xc6, 0xfa };
    expect_bytes(&b, want, sizeof want);
    /* short input: 3 values bit-packed in one padded group (bw 1): header 0x03, bits 1,0,1 -> 0x05 */
    hoodie_buf_clear(&b);
    uint32_t w[3] = { 1, 0, 1 };
    hoodie_assert_ok(hoodie_pq_rle_encode(NULL, w, 3, 1, &b));
    static const uint8_t want2[] = { 0x03, 0x05 };
    expect_bytes(&b, want2, sizeof want2);
    /* literal then a long run not aligned: 0,1,2 then 20 x 5 (bw 3): literal group takes 0,1,2,5,5,5,5,5, then
     * a run of 15 fives */
    hoodie_buf_clear(&b);
    uint32_t x[23] = { 0, 1, 2 };
    for (int i = 3; i < 23; i++) x[i] = 5;
    hoodie_assert_ok(hoodie_pq_rle_encode(NULL, x, 23, 3, &b));
    /* group 0,1,2,5,5,5,5,5 packed LSB first at 3 bits: 0x88 0x5e 0xdb? computed below */
    uint32_t g[8] = { 0, 1, 2, 5, 5, 5, 5, 5 };
    hoodie_buf gb = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_pq_bitpack(g, 8, 3, &gb));
    uint8_t want3[7] = { 0x03, gb.data[0], gb.data[1], gb.data[2], 15 << 1, 0x05 };
    expect_bytes(&b, want3, 6);
    /* bit width 0 (a single dictionary entry): one run, no value bytes */
    hoodie_buf_clear(&b);
    uint32_t z[5] = { 0 };
    hoodie_assert_ok(hoodie_pq_rle_encode(NULL, z, 5, 0, &b));
    static const uint8_t want4[] = { 0x0a };
    expect_bytes(&b, want4, sizeof want4);
    hoodie_buf_dispose(&gb);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_pqencode__delta_binary_packed_spec)
{
    /* Encodings.md example 1: 1..5 -> header (128, 4, 5, zigzag(1)=2), block min delta 1 (zigzag 2), widths 0 */
    hoodie_buf b = HOODIE_BUF_INIT;
    int32_t v[5] = { 1, 2, 3, 4, 5 };
    hoodie_assert_ok(hoodie_pq_delta_binary_encode((const uint8_t *)v, 5, 0, &b));
    static const uint8_t want[] = { 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00 };
    expect_bytes(&b, want, sizeof want);
    /* example 2: 7, 5, 3, 1, 2, 3, 4, 5: deltas -2 -2 -2 1 1 1 1, min -2 (zigzag 3), relative 0 0 0 3 3 3 3 in 2 bits,
     * then padding to a 32-value miniblock */
    hoodie_buf_clear(&b);
    int32_t v2[8] = { 7, 5, 3, 1, 2, 3, 4, 5 };
    hoodie_assert_ok(hoodie_pq_delta_binary_encode((const uint8_t *)v2, 8, 0, &b));
    static const uint8_t want2[] = { 0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00,
                                     0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
    expect_bytes(&b, want2, sizeof want2);
    /* int64 extremes wrap without overflow */
    hoodie_buf_clear(&b);
    int64_t v3[3] = { INT64_MIN, INT64_MAX, 0 };
    hoodie_assert_ok(hoodie_pq_delta_binary_encode((const uint8_t *)v3, 3, 1, &b));
    hoodie_assert(b.len > 10);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_pqencode__byte_arrays)
{
    hoodie_buf plain = HOODIE_BUF_INIT, b = HOODIE_BUF_INIT;
    const char *s[3] = { "Hello", "World", "Foobar" };
    for (int i = 0; i < 3; i++) {
        hoodie_assert_ok(hoodie_buf_put_le32(&plain, (uint32_t)strlen(s[i])));
        hoodie_assert_ok(hoodie_buf_append_str(&plain, s[i]));
    }
    /* DELTA_LENGTH_BYTE_ARRAY: lengths 5 5 6 (first 5 -> zigzag 10; deltas 0, 1: min 0, width 1) + bytes */
    hoodie_assert_ok(hoodie_pq_delta_length_encode(plain.data, plain.len, 3, &b));
    static const uint8_t want[] = { 0x80, 0x01, 0x04, 0x03, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00 };
    hoodie_assert(b.len == sizeof want + 16);
    hoodie_assert(memcmp(b.data, want, 10) == 0);
    hoodie_assert(memcmp(b.data + b.len - 16, "HelloWorldFoobar", 16) == 0);
    /* BYTE_STREAM_SPLIT of two 4-byte values */
    hoodie_buf_clear(&b);
    static const uint8_t f[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    hoodie_assert_ok(hoodie_pq_byte_stream_split(f, 2, 4, &b));
    static const uint8_t want2[] = { 1, 5, 2, 6, 3, 7, 4, 8 };
    expect_bytes(&b, want2, sizeof want2);
    hoodie_buf_dispose(&plain);
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_pqencode__codecs_compress)
{
    static const hoodie_pq_codec cs[] = { HOODIE_PQ_UNCOMPRESSED, HOODIE_PQ_SNAPPY, HOODIE_PQ_GZIP, HOODIE_PQ_ZSTD,
                                          HOODIE_PQ_LZ4_RAW };
    uint8_t src[4096];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i % 17);
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        hoodie_buf b = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_codec_compress(cs[k], 0, src, sizeof src, &b));
        if (cs[k] == HOODIE_PQ_UNCOMPRESSED) hoodie_assert(b.len == sizeof src);
        else hoodie_assert(b.len > 0 && b.len < sizeof src / 4);
        if (cs[k] == HOODIE_PQ_GZIP) hoodie_assert(b.data[0] == 0x1f && b.data[1] == 0x8b);
        hoodie_buf_dispose(&b);
        b.len = 0;
        hoodie_assert_ok(hoodie_codec_compress(cs[k], 0, src, 0, &b)); /* empty input */
        hoodie_buf_dispose(&b);
    }
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_codec_compress(HOODIE_PQ_LZO, 0, src, 10, &b));
    hoodie_buf_dispose(&b);
}

static hoodie_status fwrite_all(const char *path, const hoodie_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f) return HOODIE_EIO;
    size_t n = fwrite(b->data, 1, b->len, f);
    fclose(f);
    return n == b->len ? HOODIE_OK : HOODIE_EIO;
}

/* A hand-built file: magic, one PLAIN INT32 page (header via hoodie_pq_page_header_encode), a FileMetaData with
 * a DATE logical type and key-value metadata, read by DuckDB. */
HOODIE_TEST(format_pqencode__file_meta_by_duckdb)
{
    hoodie_buf f = HOODIE_BUF_INIT, page = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_buf_append(&f, "PAR1", 4));
    for (int32_t i = 0; i < 3; i++) hoodie_assert_ok(hoodie_buf_put_le32(&page, (uint32_t)(19000 + i)));
    hoodie_pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = HOODIE_PQ_DATA_PAGE;
    h.uncompressed_size = h.compressed_size = (int32_t)page.len;
    h.data.num_values = 3;
    h.data.encoding = HOODIE_PQ_PLAIN;
    h.data.def_encoding = h.data.rep_encoding = HOODIE_PQ_RLE;
    hoodie_assert_ok(hoodie_pq_page_header_encode(&h, &f));
    hoodie_assert_ok(hoodie_buf_append(&f, page.data, page.len));
    hoodie_pq_schema_element el[2];
    memset(el, 0, sizeof el);
    el[0].name = "schema"; el[0].num_children = 1; el[0].converted = HOODIE_PQ_CT_NONE;
    el[1].name = "d"; el[1].has_type = 1; el[1].type = HOODIE_PQ_INT32; el[1].has_repetition = 1;
    el[1].repetition = HOODIE_PQ_REQUIRED; el[1].converted = HOODIE_PQ_CT_DATE; el[1].logical.kind = HOODIE_PQ_LT_DATE;
    el[1].has_field_id = 1; el[1].field_id = 7;
    char *path[1] = { "d" };
    hoodie_pq_encoding encs[2] = { HOODIE_PQ_PLAIN, HOODIE_PQ_RLE };
    hoodie_pq_column_chunk cc;
    memset(&cc, 0, sizeof cc);
    cc.file_offset = 4;
    cc.has_meta = 1;
    cc.meta.type = HOODIE_PQ_INT32;
    cc.meta.encoding_count = 2; cc.meta.encodings = encs;
    cc.meta.path_count = 1; cc.meta.path = path;
    cc.meta.codec = HOODIE_PQ_UNCOMPRESSED;
    cc.meta.num_values = 3;
    cc.meta.total_uncompressed_size = cc.meta.total_compressed_size = (int64_t)f.len - 4;
    cc.meta.data_page_offset = 4;
    hoodie_pq_row_group rg;
    memset(&rg, 0, sizeof rg);
    rg.column_count = 1; rg.columns = &cc; rg.num_rows = 3; rg.total_byte_size = (int64_t)f.len - 4;
    hoodie_pq_kv kv = { .key = "k", .value = "v" };
    hoodie_pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = 1; m.schema = el; m.schema_count = 2; m.num_rows = 3; m.row_groups = &rg; m.row_group_count = 1;
    m.kv = &kv; m.kv_count = 1; m.created_by = "hoodie test"; m.column_order_count = 1;
    size_t at = f.len;
    hoodie_assert_ok(hoodie_pq_file_meta_encode(&m, &f));
    hoodie_assert_ok(hoodie_buf_put_le32(&f, (uint32_t)(f.len - at)));
    hoodie_assert_ok(hoodie_buf_append(&f, "PAR1", 4));
    char p[600], q[4096];
    snprintf(p, sizeof p, "%s/hand.parquet", hoodie_test_tmpdir());
    hoodie_assert_ok(fwrite_all(p, &f));
    snprintf(q, sizeof q, "SELECT (SELECT string_agg(d::VARCHAR, ' ') FROM read_parquet('%s')) d, (SELECT "
             "created_by FROM parquet_file_metadata('%s')) c, (SELECT decode(value) FROM parquet_kv_metadata('%s')) "
             "v, (SELECT field_id || '/' || logical_type FROM parquet_schema('%s') WHERE name = 'd') s", p, p, p, p);
    char *out = pqd_duck("--csv", q);
    hoodie_assert(out != NULL);
    hoodie_assert_equal_s("d,c,v,s\n2022-01-08 2022-01-09 2022-01-10,hoodie test,v,7/DateType()\n", out);
    free(out);
    hoodie_buf_dispose(&f);
    hoodie_buf_dispose(&page);
}
