/*
 * Round trip through the MOR log writer's encoders. Rows read from CSV or JSON lines into the fuzz schema
 * (fuzz_schema.h) are written as the writer writes them: with the Avro schema it generates for the table
 * (hoodie_avro_schema_gen, either nullable style, with or without the meta fields), as one AVRO_DATA_BLOCK of the
 * rows in an order the input picks, and their keys as one DELETE_BLOCK. Then:
 *   - the flat encoder and the generic plan walk give the same bytes for every row, and never fail;
 *   - the block built from column sources (hoodie_avro_encode_data_block_cols, as wlog.c writes it) is the
 *     block built record by record, and for rows in order also hoodie_avro_encode_data_block's;
 *   - the log reader finds that one block, its headers and records; the records decode (flat and generic alike)
 *     with the field the schema reads as, every column the schema keeps the type of comes back equal, value for
 *     value (the others as converted: timestamps floored to micros, UINT8 as int, FLOAT16 as float, the UUID's
 *     16 bytes), and every decoded row encodes again to the same bytes;
 *   - the DELETE_BLOCK decodes to the same keys, partition path and ordering values.
 *
 *   byte 0: bit 0 JSON lines (else CSV); bit 1 ["null",T] style (else Spark's [T,"null"]); bit 2 meta fields;
 *           bits 3-4 row order (as read, reversed, odd rows then even, every row twice); bit 5 partition path null
 *   byte 1: the deletes' ordering value type (hoodie_hlog_ord_type, modulo 12)
 *   then the CSV / JSON lines text
 */
#include "fuzz_schema.h"
#include "format/avro/schema.h"
#include "format/hlog/hlog.h"
#include "format/hlog/hlog_write.h"
#include "model/avro.h"
#include "model/avro_encode.h"
#include "model/avro_schema_gen.h"
#include "model/value.h"
#include "table/input.h"
#include "util/arena.h"
#include "util/error.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_log_roundtrip: %s: %s\n", what, hoodie_error__message()); abort(); }
}

enum { MAX_ROWS = 1000 };

/* The column named `name` in a STRUCT field, or -1. */
static int col_of(const hoodie_field *root, const char *name)
{
    for (size_t c = 0; c < root->n_children; c++)
        if (!strcmp(root->children[c].name, name)) return (int)c;
    return -1;
}

/* A column whose type the Avro schema changes: the decoded cell (d, row dr) is the written one converted. */
static void check_converted(const hoodie_field *f, const hoodie_array *a, int64_t r, const hoodie_array *d,
                            int64_t dr)
{
    int va = hoodie_array_is_valid(a, r), vd = hoodie_array_is_valid(d, dr);
    check(va == vd, "a null read back as a value or the reverse");
    if (!va) return;
    switch (f->type.id) {
    case HOODIE_TYPE_TIMESTAMP: { /* nanoseconds -> timestamp-micros, floored */
        int64_t ns = hoodie_array_get_i(a, r, 8), us = hoodie_array_get_i(d, dr, 8);
        int64_t q = ns / 1000 - (ns % 1000 < 0);
        check(us == q, "a timestamp is not its micros, floored");
        break;
    }
    case HOODIE_TYPE_UINT8:
        check(hoodie_array_get_i(d, dr, 4) == (int64_t)((const uint8_t *)a->values)[r], "a UINT8 read back");
        break;
    case HOODIE_TYPE_FLOAT16: {
        float x = hoodie_half_to_float(((const uint16_t *)a->values)[r]), y = ((const float *)d->values)[dr];
        check((isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0, "a FLOAT16 read back as another float");
        break;
    }
    case HOODIE_TYPE_FIXED_BINARY: {
        size_t n;
        const uint8_t *p = hoodie_array_bytes_at(d, dr, &n);
        check(n == (size_t)f->type.width && !memcmp(p, a->values + (size_t)r * n, n), "fixed bytes read back");
        break;
    }
    default:
        check(0, "a column of an unexpected type changed its type");
    }
}

/* The deletes of the rows' keys (column b) with ordering values of type `ot` taken from the row. */
static void deletes_of(const hoodie_batch *in, const int64_t *order, size_t n, hoodie_hlog_ord_type ot,
                       const char *partition, hoodie_arena *ar, hoodie_hlog_delete *out)
{
    const hoodie_array *key = &in->root.children[1], *num = &in->root.children[0], *dbl = &in->root.children[3],
                       *bin = &in->root.children[15];
    for (size_t i = 0; i < n; i++) {
        int64_t r = order[i];
        hoodie_hlog_delete *d = &out[i];
        memset(d, 0, sizeof *d);
        if (hoodie_array_is_valid(key, r)) {
            size_t kl;
            const uint8_t *kp = hoodie_array_bytes_at(key, r, &kl);
            d->record_key = hoodie_arena_strndup(ar, (const char *)kp, kl);
            check(d->record_key != NULL, "arena");
        }
        d->partition_path = partition;
        d->ord_type = ot;
        int64_t v = hoodie_array_is_valid(num, r) ? hoodie_array_get_i(num, r, 8) : (int64_t)i;
        switch (ot) {
        case HOODIE_HLOG_ORD_BOOLEAN: d->ord_i = v & 1; break;
        case HOODIE_HLOG_ORD_INT: case HOODIE_HLOG_ORD_DATE: d->ord_i = (int32_t)v; break;
        case HOODIE_HLOG_ORD_FLOAT: case HOODIE_HLOG_ORD_DOUBLE: {
            double x = hoodie_array_is_valid(dbl, r) ? ((const double *)dbl->values)[r] : -0.0;
            if (ot == HOODIE_HLOG_ORD_FLOAT) d->ord_d = fabs(x) <= FLT_MAX || isnan(x) ? (float)x : 0.5f;
            else d->ord_d = x;
            break;
        }
        case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING: case HOODIE_HLOG_ORD_DECIMAL:
            if (hoodie_array_is_valid(bin, r)) d->ord_bytes = hoodie_array_bytes_at(bin, r, &d->ord_len);
            else d->ord_bytes = (const uint8_t *)"";
            if (ot == HOODIE_HLOG_ORD_DECIMAL && !d->ord_len) { d->ord_bytes = (const uint8_t *)"\0"; d->ord_len = 1; }
            break;
        default: d->ord_i = v; break;
        }
    }
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static void check_deletes(const hoodie_hlog_delete *a, const hoodie_hlog_delete *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        check(same_str(a[i].record_key, b[i].record_key), "a delete's key read back");
        check(same_str(a[i].partition_path, b[i].partition_path), "a delete's partition path read back");
        check(a[i].ord_type == b[i].ord_type, "a delete's ordering type read back");
        switch (a[i].ord_type) {
        case HOODIE_HLOG_ORD_NULL: break;
        case HOODIE_HLOG_ORD_FLOAT: case HOODIE_HLOG_ORD_DOUBLE:
            check(memcmp(&a[i].ord_d, &b[i].ord_d, sizeof a[i].ord_d) == 0 || (isnan(a[i].ord_d) && isnan(b[i].ord_d)),
                  "a delete's floating ordering value read back");
            break;
        case HOODIE_HLOG_ORD_BYTES: case HOODIE_HLOG_ORD_STRING: case HOODIE_HLOG_ORD_DECIMAL:
            check(a[i].ord_len == b[i].ord_len && !memcmp(a[i].ord_bytes, b[i].ord_bytes, a[i].ord_len),
                  "a delete's ordering bytes read back");
            break;
        default: check(a[i].ord_i == b[i].ord_i, "a delete's integer ordering value read back"); break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    hoodie_field schema;
    if (!fuzz_schema(&schema)) return 0;
    int flags = (data[0] & 2 ? HOODIE_AVRO_GEN_NULL_FIRST : HOODIE_AVRO_GEN_SPARK) |
                (data[0] & 4 ? HOODIE_AVRO_GEN_META_FIELDS : 0);
    int order_kind = data[0] >> 3 & 3;
    const char *partition = data[0] & 32 ? NULL : "city=sf";
    hoodie_hlog_ord_type ot = (hoodie_hlog_ord_type)(data[1] % 12);

    /* the rows: one batch */
    hoodie_input_opts io = HOODIE_INPUT_OPTS_INIT;
    io.format = data[0] & 1 ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    io.schema = &schema;
    io.batch_rows = MAX_ROWS;
    hoodie_input *inp;
    hoodie_batch in;
    if (hoodie_input_open_buffer(&inp, data + 2, size - 2, "fuzz.csv", &io) != HOODIE_OK) {
        hoodie_field_dispose(&schema);
        return 0;
    }
    hoodie_status rc = hoodie_input_next(inp, &in);
    hoodie_input_free(inp);
    if (rc != HOODIE_OK) { hoodie_field_dispose(&schema); return 0; }
    int64_t nrows = in.root.length;

    /* the writer's schema for it, and what it reads as */
    hoodie_arena *ar;
    check(hoodie_arena_new(&ar, NULL, 8192) == HOODIE_OK, "arena");
    hoodie_buf json = HOODIE_BUF_INIT;
    check(hoodie_avro_schema_gen(&json, &schema, "t", flags) == HOODIE_OK, "schema_gen");
    check(hoodie_buf_cstr(&json) == HOODIE_OK, "cstr");
    hoodie_avro_schema *as;
    check(hoodie_avro_schema_parse(&as, (const char *)json.data, json.len, ar, "gen") == HOODIE_OK,
          "the generated schema does not parse");
    hoodie_field tf;
    check(hoodie_avro_to_field(&tf, as, "root") == HOODIE_OK, "the generated schema has no field");
    hoodie_avro_encoder *enc, *enc2;
    check(hoodie_avro_encoder_new(&enc, as, &schema) == HOODIE_OK, "encoder for the table schema");
    check(hoodie_avro_encoder_new(&enc2, as, &tf) == HOODIE_OK, "encoder for the field read back");

    /* the order of the records */
    size_t n = (size_t)nrows * (order_kind == 3 ? 2 : 1);
    int64_t *order = malloc((n + 1) * sizeof *order);
    check(order != NULL, "order");
    size_t k = 0;
    for (int64_t i = 0; i < nrows; i++) {
        switch (order_kind) {
        case 0: order[k++] = i; break;
        case 1: order[k++] = nrows - 1 - i; break;
        case 2: order[k++] = 2 * i + 1 < nrows ? 2 * i + 1 : 2 * (i - nrows / 2); break; /* odd rows, then even */
        default: order[k++] = i; order[k++] = i; break;
        }
    }

    /* record by record, flat and generic alike */
    static const char instant[] = "20261203101500123";
    hoodie_hlog_header_entry hdr[2] = { { HOODIE_HLOG_INSTANT_TIME, instant, sizeof instant - 1 },
                                        { HOODIE_HLOG_SCHEMA, (const char *)json.data, json.len } };
    hoodie_hlog_header_sort(hdr, 2);
    hoodie_buf byrec = HOODIE_BUF_INIT, one = HOODIE_BUF_INIT, gen = HOODIE_BUF_INIT;
    hoodie_hlog_block_mark mk;
    hoodie_hlog_avro_writer aw;
    check(hoodie_hlog_block_begin(&byrec, &mk, HOODIE_HLOG_AVRO_DATA_BLOCK, hdr, 2) == HOODIE_OK, "block_begin");
    check(hoodie_hlog_avro_content_begin(&byrec, &aw) == HOODIE_OK, "content_begin");
    for (size_t i = 0; i < n; i++) {
        one.len = gen.len = 0;
        check(hoodie_avro_encode_row(enc, &in.root, order[i], &one) == HOODIE_OK, "encode_row");
        check(hoodie_avro__encode_row_generic(enc, &in.root, order[i], &gen) == HOODIE_OK, "encode_row_generic");
        check(one.len == gen.len && !memcmp(one.data, gen.data, one.len), "flat and generic encodings differ");
        check(hoodie_hlog_avro_record_add(&byrec, &aw, one.data, one.len) == HOODIE_OK, "record_add");
    }
    check(hoodie_hlog_avro_content_end(&byrec, &aw) == HOODIE_OK, "content_end");
    check(hoodie_hlog_block_end(&byrec, &mk) == HOODIE_OK, "block_end");

    /* from column sources, as the log writer writes it */
    hoodie_avro_col *cols = calloc(schema.n_children + 1, sizeof *cols);
    check(cols != NULL, "cols");
    for (size_t c = 0; c < schema.n_children; c++) {
        cols[c].array = &in.root.children[c];
        cols[c].rows = order;
    }
    hoodie_buf bycol = HOODIE_BUF_INIT;
    check(hoodie_avro_encode_data_block_cols(&bycol, enc, cols, schema.n_children, (int64_t)n, hdr, 2) == HOODIE_OK,
          "encode_data_block_cols");
    check(bycol.len == byrec.len && !memcmp(bycol.data, byrec.data, bycol.len),
          "the block from column sources differs from the block record by record");
    if (order_kind == 0) {
        hoodie_buf whole = HOODIE_BUF_INIT;
        check(hoodie_avro_encode_data_block(&whole, enc, &in.root, 0, nrows, hdr, 2) == HOODIE_OK, "data_block");
        check(whole.len == byrec.len && !memcmp(whole.data, byrec.data, whole.len),
              "the block of the batch differs from the block record by record");
        hoodie_buf_dispose(&whole);
    }

    /* the deletes, in a block after it */
    hoodie_hlog_delete *dels = calloc(n + 1, sizeof *dels);
    check(dels != NULL, "deletes");
    deletes_of(&in, order, n, ot, partition, ar, dels);
    size_t data_end = bycol.len;
    check(hoodie_hlog_write_delete_block(&bycol, hdr, 1, dels, n) == HOODIE_OK, "delete block");

    /* read back */
    uint8_t *file = malloc(bycol.len);
    check(file != NULL, "file");
    memcpy(file, bycol.data, bycol.len); /* exactly its size, so an over-read is caught */
    hoodie_hlog_iter it;
    hoodie_hlog_block blk;
    check(hoodie_hlog_iter_init(&it, file, bycol.len, "fuzz.log") == HOODIE_OK, "iter_init");
    check(hoodie_hlog_iter_next(&it, &blk) == HOODIE_OK && blk.type == HOODIE_HLOG_AVRO_DATA_BLOCK, "data block");
    check(blk.total_len == data_end, "the data block's length");
    check(blk.header[HOODIE_HLOG_SCHEMA] && blk.header_len[HOODIE_HLOG_SCHEMA] == json.len &&
          !memcmp(blk.header[HOODIE_HLOG_SCHEMA], json.data, json.len), "the schema header");
    check(blk.header[HOODIE_HLOG_INSTANT_TIME] && !strcmp(blk.header[HOODIE_HLOG_INSTANT_TIME], instant),
          "the instant header");
    hoodie_hlog_avro_records recs;
    check(hoodie_hlog_avro_open(&recs, &blk, "fuzz.log") == HOODIE_OK && recs.record_count == (int32_t)n,
          "the record count");
    hoodie_avro_decoder *dec;
    check(hoodie_avro_decoder_new(&dec, as, &tf) == HOODIE_OK, "decoder");
    hoodie_batch b1, b2;
    check(hoodie_batch_init(&b1, &tf) == HOODIE_OK && hoodie_batch_init(&b2, &tf) == HOODIE_OK, "batches");
    const uint8_t *rec;
    size_t rl;
    for (size_t i = 0; i < n; i++) {
        check(hoodie_hlog_avro_next(&recs, &rec, &rl) == HOODIE_OK, "a record");
        hoodie_cursor c1 = HOODIE_CURSOR_INIT(rec, rl), c2 = HOODIE_CURSOR_INIT(rec, rl);
        c1.what = c2.what = "fuzz.log";
        check(hoodie_avro_decode_row(dec, &c1, &b1.root) == HOODIE_OK && hoodie_cursor_left(&c1) == 0,
              "a record written does not decode to its end");
        check(hoodie_avro__decode_row_generic(dec, &c2, &b2.root) == HOODIE_OK && hoodie_cursor_left(&c2) == 0,
              "a record written does not decode to its end (generic)");
        one.len = 0;
        check(hoodie_avro_encode_row(enc2, &b1.root, (int64_t)i, &one) == HOODIE_OK, "encode what was read");
        check(one.len == rl && !memcmp(one.data, rec, rl), "a record read and encoded again differs");
    }
    check(hoodie_hlog_avro_next(&recs, &rec, &rl) == HOODIE_ITEROVER, "records past the count");
    check(hoodie_batch_equal(&b1, &b2), "flat and generic decoding differ");
    for (size_t c = 0; c < schema.n_children; c++) {
        const hoodie_field *f = &schema.children[c];
        int dc = col_of(&tf, f->name);
        check(dc >= 0, "a column is not in the schema read back");
        const hoodie_field *g = &tf.children[dc];
        int same = hoodie_field_equal(f, g);
        for (size_t i = 0; i < n; i++) {
            if (same) check(hoodie_value_equal(f, &in.root.children[c], order[i], &b1.root.children[dc], (int64_t)i),
                            "a value read back differs");
            else check_converted(f, &in.root.children[c], order[i], &b1.root.children[dc], (int64_t)i);
        }
    }
    for (size_t m = 0; flags & HOODIE_AVRO_GEN_META_FIELDS && m < 5; m++) {
        int dc = col_of(&tf, hoodie_avro_meta_fields[m]);
        check(dc >= 0, "a meta field is not read back");
        for (size_t i = 0; i < n; i++) check(!hoodie_array_is_valid(&b1.root.children[dc], (int64_t)i), "meta null");
    }

    check(hoodie_hlog_iter_next(&it, &blk) == HOODIE_OK && blk.type == HOODIE_HLOG_DELETE_BLOCK, "delete block");
    hoodie_hlog_delete *back;
    size_t nback;
    check(hoodie_hlog_delete_decode(&blk, ar, "fuzz.log", &back, &nback) == HOODIE_OK && nback == n,
          "the deletes read back");
    check_deletes(dels, back, n);
    check(hoodie_hlog_iter_next(&it, &blk) == HOODIE_ITEROVER, "blocks past the last");
    hoodie_hlog_iter_dispose(&it);

    hoodie_batch_dispose(&b1);
    hoodie_batch_dispose(&b2);
    hoodie_avro_decoder_free(dec);
    free(file);
    free(dels);
    free(cols);
    free(order);
    hoodie_buf_dispose(&bycol);
    hoodie_buf_dispose(&byrec);
    hoodie_buf_dispose(&one);
    hoodie_buf_dispose(&gen);
    hoodie_avro_encoder_free(enc);
    hoodie_avro_encoder_free(enc2);
    hoodie_field_dispose(&tf);
    hoodie_buf_dispose(&json);
    hoodie_arena_free(ar);
    hoodie_batch_dispose(&in);
    hoodie_field_dispose(&schema);
    return 0;
}
