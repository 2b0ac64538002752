/*
 * Round trip through the Parquet writer: rows read from CSV or JSON lines into the fuzz schema (fuzz_schema.h:
 * most types, nulls, lists, maps, structs) are written with writer options the input picks, read back by the
 * reader, and must come back equal, value for value, in the same schema; a scan that starts at a row (the
 * page index) must give the rows from there. The writer must never fail on rows the input reader accepted.
 *
 *   byte 0: bit 0 JSON lines (else CSV); bits 1-3 codec (UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, ...);
 *           bit 4 dictionary; bit 5 data page v2; bits 6-7 with byte 1 bits 0-1: value encoding
 *   byte 1: bits 2-7: rows per page 1 + n;   byte 2: rows per row group 1 + n * 4;   byte 3: first row read
 *   then the CSV / JSON lines text
 */
#include "fuzz_mem.h"
#include "fuzz_schema.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "model/value.h"
#include "table/input.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_parquet_roundtrip: %s: %s\n", what, hoodie_error__message()); abort(); }
}

enum { MAX_BATCHES = 64, MAX_ROWS = 2000 };

/* The rows written, in order: batch b, row r. */
typedef struct rows { hoodie_batch b[MAX_BATCHES]; size_t n; } rows;

/* Every row the scan gives from `first` on equals the row written there. */
static void compare(hoodie_pq_file *f, const hoodie_field *schema, const rows *in, int64_t first, int64_t total)
{
    hoodie_pq_scan_opts so;
    memset(&so, 0, sizeof so);
    so.first_row = first;
    so.batch_rows = 1 + first % 300;
    hoodie_pq_scan *s;
    check(hoodie_pq_scan_open(&s, f, &so) == HOODIE_OK, "scan_open");
    const hoodie_field *rs = hoodie_pq_scan_schema(s); /* its columns (the root's name and nullability aside) */
    check(rs->n_children == schema->n_children, "columns read differ in number");
    for (size_t c = 0; c < schema->n_children; c++)
        if (!hoodie_field_equal(&rs->children[c], &schema->children[c])) {
            fprintf(stderr, "column %s\n", schema->children[c].name);
            check(0, "a column is read as another type");
        }
    size_t bi = 0;
    int64_t ri = 0, seen = first;
    for (int64_t skip = first; skip > 0 && bi < in->n;) { /* the input row `first` */
        int64_t left = in->b[bi].root.length - ri;
        if (skip < left) { ri += skip; skip = 0; } else { skip -= left; bi++; ri = 0; }
    }
    hoodie_batch out;
    hoodie_status rc;
    while ((rc = hoodie_pq_scan_next(s, &out)) == HOODIE_OK) {
        for (int64_t j = 0; j < out.root.length; j++, seen++) {
            while (bi < in->n && ri >= in->b[bi].root.length) { bi++; ri = 0; }
            check(bi < in->n, "more rows read than written");
            for (size_t c = 0; c < schema->n_children; c++)
                if (!hoodie_value_equal(&schema->children[c], &in->b[bi].root.children[c], ri,
                                        &out.root.children[c], j)) {
                    fprintf(stderr, "row %lld column %s\n", (long long)seen, schema->children[c].name);
                    check(0, "a value read differs from the one written");
                }
            ri++;
        }
        hoodie_batch_dispose(&out);
    }
    check(rc == HOODIE_ITEROVER, "scan_next");
    check(seen == total, "fewer rows read than written");
    hoodie_pq_scan_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const hoodie_pq_encoding encodings[] = { HOODIE_PQ_PLAIN, HOODIE_PQ_DELTA_BINARY_PACKED,
                                                    HOODIE_PQ_DELTA_LENGTH_BYTE_ARRAY,
                                                    HOODIE_PQ_DELTA_BYTE_ARRAY,
                                                    HOODIE_PQ_BYTE_STREAM_SPLIT };
    static const hoodie_pq_codec codecs[] = { HOODIE_PQ_UNCOMPRESSED, HOODIE_PQ_SNAPPY,
                                              HOODIE_PQ_GZIP, HOODIE_PQ_ZSTD, HOODIE_PQ_LZ4_RAW };
    if (size < 4) return 0;
    hoodie_field schema;
    if (!fuzz_schema(&schema)) return 0;
    hoodie_input_opts io = HOODIE_INPUT_OPTS_INIT;
    io.format = data[0] & 1 ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    io.schema = &schema;
    io.batch_rows = 1 + data[3] % 97;
    hoodie_pq_writer_opts wo;
    hoodie_pq_writer_opts_init(&wo);
    wo.codec = codecs[(data[0] >> 1 & 7) % 5];
    wo.dictionary = data[0] >> 4 & 1;
    wo.data_page_v2 = data[0] >> 5 & 1;
    wo.value_encoding = encodings[((data[0] >> 6) | (data[1] & 3) << 2) % 5];
    wo.page_rows = 1 + (data[1] >> 2);
    wo.row_group_rows = 1 + (int64_t)data[2] * 4;
    wo.root_name = "root";

    rows in;
    in.n = 0;
    int64_t total = 0;
    hoodie_input *inp;
    if (hoodie_input_open_buffer(&inp, data + 4, size - 4, "fuzz.csv", &io) != HOODIE_OK) {
        hoodie_field_dispose(&schema);
        return 0;
    }
    while (in.n < MAX_BATCHES && total < MAX_ROWS && hoodie_input_next(inp, &in.b[in.n]) == HOODIE_OK)
        total += in.b[in.n++].root.length;
    hoodie_input_free(inp);

    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_pq_writer *w;
    check(hoodie_pq_writer_open(&w, &schema, &wo, (hoodie_pq_sink){ &file, sink_write }) == HOODIE_OK, "open");
    for (size_t i = 0; i < in.n; i++) check(hoodie_pq_writer_write(w, &in.b[i]) == HOODIE_OK, "write");
    check(hoodie_pq_writer_close(w) == HOODIE_OK, "close");
    hoodie_pq_writer_free(w);

    mem m = { file.data, file.len };
    hoodie_pq_source src = { &m, mem_read, file.len, "roundtrip.parquet", NULL };
    hoodie_pq_file *f;
    check(hoodie_pq_file_open(&f, &src) == HOODIE_OK, "file_open");
    check(hoodie_pq_file_metadata(f)->num_rows == total, "the footer's row count");
    compare(f, &schema, &in, 0, total);
    if (total > 1) {
        /* from a row inside the first row group (the scan's first_row counts within it) */
        int64_t rg_rows = hoodie_pq_file_metadata(f)->row_groups[0].num_rows;
        int64_t first = (int64_t)data[3] % rg_rows;
        if (first) compare(f, &schema, &in, first, total);
    }
    hoodie_pq_file_free(f);
    hoodie_buf_dispose(&file);
    for (size_t i = 0; i < in.n; i++) hoodie_batch_dispose(&in.b[i]);
    hoodie_field_dispose(&schema);
    return 0;
}
