/* Parquet encodings, codecs and footer decoding on hand-made bytes, including malformed input. */
#include "pq_support.h"
#include "batch_build.h"
#include "format/parquet/writer.h"
#include "format/parquet/codec.h"
#include "format/parquet/decode.h"
#include "format/parquet/encode.h"
#include "format/thrift/compact.h"

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

HOODIE_TEST(format_parquet__rle_hybrid)
{
    /* RLE run: 5 x value 3 (bit width 2); then bit-packed group of 8: 0..7 with width 3. */
    const uint8_t in[] = { 0x0a, 0x03, 0x03, 0x88, 0xc6, 0xfa };
    hoodie_pq_rle d;
    uint32_t out[16];
    hoodie_pq_rle_init(&d, in, 2, 2);
    hoodie_assert_equal_i(5, hoodie_pq_rle_get_u32(&d, out, 16));
    for (int i = 0; i < 5; i++) hoodie_assert_equal_i(3, out[i]);
    hoodie_pq_rle_init(&d, in + 2, 4, 3);
    hoodie_assert_equal_i(8, hoodie_pq_rle_get_u32(&d, out, 16));
    for (int i = 0; i < 8; i++) hoodie_assert_equal_i(i, out[i]);
    /* Partial reads across calls. */
    int16_t lv[8];
    hoodie_pq_rle_init(&d, in + 2, 4, 3);
    hoodie_assert_equal_i(3, hoodie_pq_rle_get_i16(&d, lv, 3));
    hoodie_assert_equal_i(5, hoodie_pq_rle_get_i16(&d, lv + 3, 5));
    for (int i = 0; i < 8; i++) hoodie_assert_equal_i(i, lv[i]);
    /* Truncated RLE value byte and a run promising more than present. */
    const uint8_t bad[] = { 0x0a };
    hoodie_pq_rle_init(&d, bad, 1, 8);
    hoodie_assert_equal_i(0, hoodie_pq_rle_get_u32(&d, out, 4));
    const uint8_t shortbp[] = { 0x05, 0xff }; /* 2 groups of width 8 need 16 bytes */
    hoodie_pq_rle_init(&d, shortbp, 2, 8);
    hoodie_assert_equal_i(1, hoodie_pq_rle_get_u32(&d, out, 16));
    /* bit width 0: all zeros */
    const uint8_t zero[] = { 0x08 };
    hoodie_pq_rle_init(&d, zero, 1, 0);
    hoodie_assert_equal_i(4, hoodie_pq_rle_get_u32(&d, out, 4));
    hoodie_assert_equal_i(0, out[3]);
    hoodie_assert_equal_i(2, hoodie_pq_bit_width(3));
    hoodie_assert_equal_i(0, hoodie_pq_bit_width(0));
}

/* RLE/bit-packed hybrid round trip for every bit width 0..20: runs and noise, decoded in pieces of random sizes
 * (so that group-at-a-time and value-at-a-time decoding meet at every offset), as u32 and (narrow) as i16. */
HOODIE_TEST(format_parquet__rle_round_trip_all_widths)
{
    enum { N = 3000 };
    uint32_t *vals = malloc(N * sizeof *vals), *got = malloc(N * sizeof *got);
    int16_t *lv = malloc(N * sizeof *lv);
    uint64_t rng = 99;
    for (int bw = 0; bw <= 20; bw++) {
        uint32_t mask = bw ? (uint32_t)((1ull << bw) - 1) : 0;
        for (int i = 0; i < N; i++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            uint32_t r = (uint32_t)(rng >> 33);
            vals[i] = (i / 100) % 3 == 1 && i ? vals[i - 1] : r & mask; /* runs every third stretch */
        }
        hoodie_buf enc = HOODIE_BUF_INIT;
        hoodie_assert_ok(hoodie_pq_rle_encode(NULL, vals, N, bw, &enc));
        for (int narrow = 0; narrow < 2 && (!narrow || bw <= 15); narrow++) {
            hoodie_pq_rle d;
            hoodie_pq_rle_init(&d, enc.data, enc.len, bw);
            size_t at = 0;
            while (at < N) {
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                size_t want = 1 + (size_t)(rng >> 40) % 37;
                if (want > N - at) want = N - at;
                size_t n = narrow ? hoodie_pq_rle_get_i16(&d, lv + at, want) : hoodie_pq_rle_get_u32(&d, got + at, want);
                hoodie_assert_equal_i((int64_t)want, (int64_t)n);
                at += n;
            }
            for (int i = 0; i < N; i++)
                hoodie_assert_equal_i(vals[i], narrow ? (uint32_t)(uint16_t)lv[i] : got[i]);
        }
        hoodie_buf_dispose(&enc);
    }
    free(vals);
    free(got);
    free(lv);
}

HOODIE_TEST(format_parquet__bitpacked_legacy)
{
    /* values 0..7 width 3, MSB first: 000 001 010 011 100 101 110 111 */
    const uint8_t in[] = { 0x05, 0x39, 0x77 };
    int16_t out[8];
    hoodie_assert_equal_i(3, hoodie_pq_bitpacked_legacy_levels(in, 3, 3, out, 8));
    for (int i = 0; i < 8; i++) hoodie_assert_equal_i(i, out[i]);
    hoodie_assert((size_t)-1 == hoodie_pq_bitpacked_legacy_levels(in, 2, 3, out, 8));
}

HOODIE_TEST(format_parquet__delta_binary_packed)
{
    /* block 128, 4 miniblocks, 5 values, first 7; deltas all 2 (min delta 2, widths 0). */
    const uint8_t in[] = { 0x80, 0x01, 0x04, 0x05, 0x0e, 0x04, 0x00, 0x00, 0x00, 0x00 };
    int64_t out[8];
    size_t n, used;
    hoodie_assert_ok(hoodie_pq_delta_binary_decode(in, sizeof in, 8, out, &n, &used, "t"));
    hoodie_assert_equal_i(5, n);
    for (int i = 0; i < 5; i++) hoodie_assert_equal_i(7 + 2 * i, out[i]);
    /* values 1, 3, 2: min delta -1, deltas 2-(-1)=3, -1-(-1)=0 -> width 2: 0b0011 = 0x03, padded miniblock 32*2/8=8 bytes */
    uint8_t in2[64] = { 0x80, 0x01, 0x04, 0x03, 0x02, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03 };
    hoodie_assert_ok(hoodie_pq_delta_binary_decode(in2, 11 + 7, 8, out, &n, &used, "t"));
    hoodie_assert_equal_i(3, n);
    hoodie_assert_equal_i(1, out[0]);
    hoodie_assert_equal_i(3, out[1]);
    hoodie_assert_equal_i(2, out[2]);
    hoodie_assert_equal_i(18, used);
    /* malformed: too many values, bad block size, truncated miniblock */
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_binary_decode(in, sizeof in, 4, out, &n, &used, "t"));
    const uint8_t badblock[] = { 0x03, 0x01, 0x01, 0x00 };
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_binary_decode(badblock, sizeof badblock, 8, out, &n, &used, "t"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_binary_decode(in2, 12, 8, out, &n, &used, "t"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_binary_decode(in, 3, 8, out, &n, &used, "t"));
}

HOODIE_TEST(format_parquet__delta_length_and_byte_array)
{
    /* lengths 3, 3 (first 3, delta 0), data "abcabd" */
    uint8_t in[64] = { 0x80, 0x01, 0x04, 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00 };
    memcpy(in + 10, "abcabd", 6);
    int64_t scratch[4];
    int32_t off[4];
    const uint8_t *data;
    size_t used;
    hoodie_assert_ok(hoodie_pq_delta_length_decode(in, 16, 2, scratch, off, &data, &used, "t"));
    hoodie_assert_equal_i(16, used);
    hoodie_assert_equal_i(3, off[1]);
    hoodie_assert(!memcmp(data, "abcabd", 6));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_length_decode(in, 15, 2, scratch, off, &data, &used, "t"));
    /* DELTA_BYTE_ARRAY: prefixes 0, 2; suffixes "abc", "d" -> "abc", "abd" */
    uint8_t dba[64] = { 0x80, 0x01, 0x04, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, /* prefixes 0,2 */
                        0x80, 0x01, 0x04, 0x02, 0x06, 0x03, 0x00, 0x00, 0x00, 0x00 }; /* lengths 3, 1 */
    /* lengths: first 3, delta -2 -> min delta -2 zigzag 3, width 0 */
    memcpy(dba + 20, "abcd", 4);
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_assert_ok(hoodie_pq_delta_byte_array_decode(dba, 24, 2, &b, off, "t"));
    hoodie_assert_equal_i(6, b.len);
    hoodie_assert(!memcmp(b.data, "abcabd", 6));
    hoodie_assert_equal_i(3, off[1]);
    hoodie_assert_equal_i(6, off[2]);
    /* prefix longer than the previous value */
    dba[4] = 0x08; /* first prefix 4 */
    hoodie_buf_clear(&b);
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_delta_byte_array_decode(dba, 24, 2, &b, off, "t"));
    hoodie_buf_dispose(&b);
}

HOODIE_TEST(format_parquet__byte_stream_split_and_bits)
{
    const uint8_t in[] = { 1, 2, 3, 10, 20, 30 }; /* 3 values of width 2 */
    uint8_t out[6];
    hoodie_assert_ok(hoodie_pq_byte_stream_split_decode(in, 6, 3, 2, out, "t"));
    hoodie_assert(out[0] == 1 && out[1] == 10 && out[4] == 3 && out[5] == 30);
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_byte_stream_split_decode(in, 5, 3, 2, out, "t"));
    uint8_t src[2] = { 0xb5, 0x01 }, dst[3] = { 0, 0, 0 };
    hoodie_pq_copy_bits(src, 1, dst, 3, 9);
    /* bits 1..9 of src = 0,1,0,1,1,0,1,1,0... placed at 3.. */
    for (int i = 0; i < 9; i++) hoodie_assert_equal_i(hoodie_bit_get(src, 1 + i), hoodie_bit_get(dst, 3 + i));
    /* INT96: Julian day 2440588 (epoch) + 1 second */
    uint8_t i96[12] = { 0 };
    uint64_t ns = 1000000000ULL;
    memcpy(i96, &ns, 8);
    uint32_t jd = 2440589;
    memcpy(i96 + 8, &jd, 4);
    hoodie_assert_equal_i(86400000000000LL + 1000000000LL, hoodie_pq_int96_to_nanos(i96));
}

HOODIE_TEST(format_parquet__codecs)
{
    uint8_t src[4000], cmp[8000], out[4000];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i % 17 + (i / 100));
    size_t n = sizeof cmp;
    hoodie_assert(snappy_compress((const char *)src, sizeof src, (char *)cmp, &n) == SNAPPY_OK);
    hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_SNAPPY, cmp, n, out, sizeof out, "t"));
    hoodie_assert(!memcmp(src, out, sizeof src));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_codec_decompress(HOODIE_PQ_SNAPPY, cmp, n / 2, out, sizeof out, "t"));
    size_t z = ZSTD_compress(cmp, sizeof cmp, src, sizeof src, 3);
    hoodie_assert(!ZSTD_isError(z));
    hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_ZSTD, cmp, z, out, sizeof out, "t"));
    hoodie_assert(!memcmp(src, out, sizeof src));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_codec_decompress(HOODIE_PQ_ZSTD, cmp, z, out, sizeof out - 1, "t"));
    /* zlib and gzip framings */
    for (int gz = 0; gz < 2; gz++) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        hoodie_assert(deflateInit2(&zs, 6, Z_DEFLATED, gz ? 31 : 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        zs.next_in = src; zs.avail_in = sizeof src; zs.next_out = cmp; zs.avail_out = sizeof cmp;
        hoodie_assert(deflate(&zs, Z_FINISH) == Z_STREAM_END);
        size_t cl = sizeof cmp - zs.avail_out;
        deflateEnd(&zs);
        hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_GZIP, cmp, cl, out, sizeof out, "t"));
        hoodie_assert(!memcmp(src, out, sizeof src));
        hoodie_assert_status(HOODIE_ECORRUPT, hoodie_codec_decompress(HOODIE_PQ_GZIP, cmp, cl - 5, out, sizeof out, "t"));
    }
    int l = LZ4_compress_default((const char *)src, (char *)cmp + 8, sizeof src, (int)sizeof cmp - 8);
    hoodie_assert(l > 0);
    hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_LZ4_RAW, cmp + 8, (size_t)l, out, sizeof out, "t"));
    hoodie_assert(!memcmp(src, out, sizeof src));
    /* LZ4 with Hadoop framing, and raw fallback */
    uint32_t ul = sizeof src, clen = (uint32_t)l;
    for (int k = 0; k < 4; k++) { cmp[k] = (uint8_t)(ul >> (24 - 8 * k)); cmp[4 + k] = (uint8_t)(clen >> (24 - 8 * k)); }
    memset(out, 0, sizeof out);
    hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_LZ4, cmp, (size_t)l + 8, out, sizeof out, "t"));
    hoodie_assert(!memcmp(src, out, sizeof src));
    hoodie_assert_ok(hoodie_codec_decompress(HOODIE_PQ_LZ4, cmp + 8, (size_t)l, out, sizeof out, "t"));
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_codec_decompress(HOODIE_PQ_LZ4_RAW, cmp + 8, (size_t)l - 3, out, sizeof out, "t"));
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_codec_decompress(HOODIE_PQ_BROTLI, cmp, 4, out, 4, "t"));
    hoodie_assert_equal_s("ZSTD", hoodie_codec_name(HOODIE_PQ_ZSTD));
    hoodie_assert_equal_s("UNKNOWN", hoodie_codec_name((hoodie_pq_codec)99));
}

HOODIE_TEST(format_parquet__footer_decode_errors)
{
    hoodie_arena *a;
    hoodie_pq_file_meta m;
    hoodie_cursor c;
    hoodie_assert_ok(hoodie_arena_new(&a, NULL, 4096));
    /* field 1 (version) with type BINARY instead of I32 */
    const uint8_t wrong[] = { 0x18, 0x01, 'x', 0x00 };
    hoodie_cursor_init(&c, wrong, sizeof wrong, 100, "f.parquet");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_file_meta_decode(&m, &c, a));
    hoodie_assert_contains(hoodie_error_last()->message, "f.parquet");
    hoodie_assert_contains(hoodie_error_last()->message, "offset 10");
    /* truncated */
    const uint8_t trunc[] = { 0x15, 0x02, 0x19, 0x1c };
    hoodie_cursor_init(&c, trunc, sizeof trunc, 0, "f.parquet");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_file_meta_decode(&m, &c, a));
    /* list count larger than the bytes left */
    const uint8_t biglist[] = { 0x19, 0xfc, 0xff, 0xff, 0x0f, 0x00 };
    hoodie_cursor_init(&c, biglist, sizeof biglist, 0, "f.parquet");
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_file_meta_decode(&m, &c, a));
    /* unknown field skipped: version 1, field 20 (i32), schema [root with 0 children], STOP */
    hoodie_buf b = HOODIE_BUF_INIT;
    hoodie_thrift_writer w;
    hoodie_thrift_writer_init(&w, &b);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_i32_field(&w, 1, 1);
    hoodie_thrift_write_field(&w, 2, HOODIE_TT_LIST);
    hoodie_thrift_write_list_begin(&w, HOODIE_TT_STRUCT, 1);
    hoodie_thrift_write_struct_begin(&w);
    hoodie_thrift_write_binary_field(&w, 4, "root", 4);
    hoodie_thrift_write_struct_end(&w);
    hoodie_thrift_write_i64_field(&w, 3, 0);
    hoodie_thrift_write_i32_field(&w, 20, 77);
    hoodie_thrift_write_struct_end(&w);
    hoodie_assert_ok(w.status);
    hoodie_cursor_init(&c, b.data, b.len, 0, "f.parquet");
    hoodie_assert_ok(hoodie_pq_file_meta_decode(&m, &c, a));
    hoodie_assert_equal_i(1, m.version);
    hoodie_assert_equal_i(1, m.schema_count);
    hoodie_assert_equal_s("root", m.schema[0].name);
    hoodie_buf_dispose(&b);
    hoodie_arena_free(a);
}

/* Whole-file corruption: truncation at every 97th byte and bit flips must fail cleanly (or succeed). */
static hoodie_status buf_sink(void *ctx, const void *p, size_t n) { return hoodie_buf_append(ctx, p, n); }

/* Scan every row of an in-memory file; the status of the first failure (HOODIE_OK when all read). */
static hoodie_status scan_all(const uint8_t *data, size_t len, const char *name)
{
    pqt_mem m = { data, len };
    hoodie_pq_source src = { &m, pqt_mem_read, len, name, NULL };
    hoodie_pq_file *f = NULL;
    hoodie_pq_scan *s = NULL;
    hoodie_batch b;
    hoodie_status rc = hoodie_pq_file_open(&f, &src);
    if (rc == HOODIE_OK) rc = hoodie_pq_scan_open(&s, f, NULL);
    while (rc == HOODIE_OK && (rc = hoodie_pq_scan_next(s, &b)) == HOODIE_OK) hoodie_batch_dispose(&b);
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    hoodie_pq_scan_free(s);
    hoodie_pq_file_free(f);
    return rc;
}

HOODIE_TEST(format_parquet__corrupt_files_fail_cleanly)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/fuzz_parquet_file/snappy.parquet", HOODIE_SOURCE_DIR);
    size_t len;
    uint8_t *orig = pqt_load(path, &len);
    hoodie_assert(orig != NULL);
    uint8_t *x = malloc(len);
    int failures = 0, trials = 0;
    for (size_t cut = 0; cut < len; cut += 97) {
        pqt_mem m = { orig, cut };
        hoodie_pq_source src = { &m, pqt_mem_read, cut, "trunc.parquet", NULL };
        hoodie_pq_file *f = NULL;
        hoodie_status rc = hoodie_pq_file_open(&f, &src);
        hoodie_assert(rc != HOODIE_OK);
        hoodie_assert(rc == HOODIE_ECORRUPT || rc == HOODIE_EUNSUPPORTED);
        hoodie_assert_contains(hoodie_error_last()->message, "trunc.parquet");
        trials++;
    }
    srand(12345);
    for (int t = 0; t < 400; t++) {
        memcpy(x, orig, len);
        for (int k = 0; k < 3; k++) { size_t i = 4 + (size_t)rand() % (len - 12); x[i] ^= (uint8_t)(1u << (rand() % 8)); }
        hoodie_status rc = scan_all(x, len, "flip.parquet");
        if (rc != HOODIE_OK) {
            failures++;
            hoodie_assert(rc == HOODIE_ECORRUPT || rc == HOODIE_EUNSUPPORTED || rc == HOODIE_EINVAL);
        }
    }
    hoodie_assert(failures > 0);
    hoodie_assert(trials > 5);
    free(x);
    free(orig);
}

HOODIE_TEST(format_parquet__encrypted_footer_unsupported)
{
    uint8_t buf[32] = "PAR1";
    memcpy(buf + 24, "\x08\x00\x00\x00PARE", 8);
    pqt_mem m = { buf, sizeof buf };
    hoodie_pq_source src = { &m, pqt_mem_read, sizeof buf, "enc.parquet", NULL };
    hoodie_pq_file *f;
    hoodie_assert_status(HOODIE_EUNSUPPORTED, hoodie_pq_file_open(&f, &src));
    memcpy(buf + 24, "\xff\x00\x00\x00PAR1", 8);
    hoodie_assert_status(HOODIE_ECORRUPT, hoodie_pq_file_open(&f, &src));
    hoodie_assert_contains(hoodie_error_last()->message, "footer length");
}

/*
 * Definition levels above the column's maximum are refused, naming the file: in an RLE run (maximum 1 in one bit:
 * only the runs' values are checked, bit-packed ones cannot exceed it) and bit-packed (maximum 2 in two bits).
 */
HOODIE_TEST(format_parquet__levels_above_the_maximum)
{
    for (int nested = 0; nested < 2; nested++) {
        /* flat: a, optional int32, never null (one run of 64 ones); nested: st.a, optional in an optional struct,
         * levels 2, 1, 0 in turn (bit-packed) */
        hoodie_field s = bb_field("schema", bb_t(HOODIE_TYPE_STRUCT), 0);
        if (nested) {
            hoodie_field st = bb_field("st", bb_t(HOODIE_TYPE_STRUCT), 1);
            bb_add(&st, bb_field("a", bb_t(HOODIE_TYPE_INT32), 1));
            bb_add(&s, st);
        } else {
            bb_add(&s, bb_field("a", bb_t(HOODIE_TYPE_INT32), 1));
        }
        hoodie_array root;
        hoodie_assert_ok(hoodie_array_init(&root, &s));
        for (int i = 0; i < 64; i++) {
            hoodie_array *col = &root.children[0];
            if (!nested) {
                bb_i32(col, i);
            } else {
                if (i % 3 == 0) bb_i32(&col->children[0], i); else bb_null(&col->children[0], 4);
                bb_struct(col, i % 3 != 2);
            }
            bb_struct(&root, 1);
        }
        hoodie_pq_writer_opts o;
        hoodie_pq_writer_opts_init(&o);
        o.codec = HOODIE_PQ_UNCOMPRESSED;
        o.dictionary = 0;
        hoodie_buf file = HOODIE_BUF_INIT;
        hoodie_pq_sink sink = { &file, buf_sink };
        hoodie_pq_writer *w = NULL;
        hoodie_assert_ok(hoodie_pq_writer_open(&w, &s, &o, sink));
        hoodie_assert_ok(hoodie_pq_writer_write_array(w, &root));
        hoodie_assert_ok(hoodie_pq_writer_close(w));
        hoodie_pq_writer_free(w);
        hoodie_assert_ok(scan_all(file.data, file.len, "levels.parquet"));
        /* the page body starts with the levels' 4-byte length and their first run header: flat, an RLE run of 64
         * (varint 128: 0x80 0x01) of value 1; nested, 8 bit-packed groups (header 0x11) of 2 bits a value */
        static const uint8_t flat_pat[] = { 3, 0, 0, 0, 0x80, 0x01, 0x01 };
        static const uint8_t nest_pat[] = { 17, 0, 0, 0, 0x11 };
        const uint8_t *pat = nested ? nest_pat : flat_pat;
        size_t pl = nested ? sizeof nest_pat : sizeof flat_pat, at = 0;
        for (size_t i = 4; i + pl < file.len && !at; i++)
            if (!memcmp(file.data + i, pat, pl)) at = i + pl;
        hoodie_assert(at != 0);
        if (nested) file.data[at] |= 0x03; /* the first level: 2 -> 3 */
        else file.data[at - 1] = 2;        /* the run's value: 1 -> 2 */
        hoodie_assert_status(HOODIE_ECORRUPT, scan_all(file.data, file.len, "levels.parquet"));
        hoodie_assert_contains(hoodie_error_last()->message, "level above the maximum");
        hoodie_assert_contains(hoodie_error_last()->message, "levels.parquet");
        hoodie_error_clear();
        hoodie_buf_dispose(&file);
        hoodie_array_dispose(&root);
        hoodie_field_dispose(&s);
    }
}
