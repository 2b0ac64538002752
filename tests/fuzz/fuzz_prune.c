/*
 * Row-group pruning must never drop a row the filter keeps. Rows read from CSV or JSON lines into the fuzz schema
 * (fuzz_schema.h) are written as Parquet in small row groups, with a codec, dictionary and page version the input
 * picks; a filter parsed from the input's first line is turned into statistics predicates as the scanner does
 * (hoodie_pred_to_pq on the leaf each predicate names, hoodie_pq_row_group_may_match); no row group those
 * predicates prune may hold a row that hoodie_filter_eval keeps. Likewise partitions: a predicate that prunes the
 * partition a row's value would make (hoodie_pred_may_match_partition on the key generator's text of the value)
 * must not keep that row. A filter that does not parse, or names a column the rows lack, must fail with a message.
 *
 *   byte 0: bit 0 JSON lines (else CSV); bits 1-3 codec; bit 4 dictionary; bit 5 data page v2
 *   byte 1: rows per row group, 1 + n % 64;   byte 2: rows per page, 1 + n % 32
 *   then the filter, up to the first newline, then the CSV / JSON lines text
 */
#include "fuzz_mem.h"
#include "fuzz_schema.h"
#include "format/parquet/reader.h"
#include "format/parquet/schema.h"
#include "format/parquet/writer.h"
#include "model/value.h"
#include "read/filter.h"
#include "table/input.h"
#include "util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) { fprintf(stderr, "fuzz_prune: %s: %s\n", what, hoodie_error__message()); abort(); }
}

static void failed(hoodie_status rc)
{
    if (rc < 0) check(hoodie_error__message()[0] != '\0', "a failure without a message");
}

enum { MAX_BATCHES = 32, MAX_ROWS = 1000 };

/* Rows of row group rg the filter keeps; -1 when the filter cannot be evaluated on them (error set). */
static int64_t kept_rows(hoodie_pq_file *f, uint32_t rg, const hoodie_filter *flt)
{
    hoodie_pq_scan_opts so;
    memset(&so, 0, sizeof so);
    so.row_groups = &rg;
    so.n_row_groups = 1;
    hoodie_pq_scan *s;
    check(hoodie_pq_scan_open(&s, f, &so) == HOODIE_OK, "scan_open");
    hoodie_batch b;
    hoodie_status rc;
    int64_t kept = 0;
    while (kept >= 0 && (rc = hoodie_pq_scan_next(s, &b)) == HOODIE_OK) {
        uint8_t *keep = malloc((size_t)b.root.length + 1);
        check(keep != NULL, "keep");
        hoodie_status er = hoodie_filter_eval(flt, &b, keep);
        failed(er);
        if (er < 0) kept = -1;
        for (int64_t i = 0; er == HOODIE_OK && i < b.root.length; i++) kept += keep[i] != 0;
        free(keep);
        hoodie_batch_dispose(&b);
    }
    if (kept >= 0) check(rc == HOODIE_ITEROVER, "scan_next");
    hoodie_pq_scan_free(s);
    return kept;
}

/*
 * Partition pruning: for each row and predicate, the row's value as a partition path holds it (the key
 * generator's text, __HIVE_DEFAULT_PARTITION__ for null or empty); a partition the predicate prunes by that text
 * must not hold a row the predicate keeps.
 */
static void partitions_agree(const hoodie_field *schema, const hoodie_batch *b, const hoodie_filter *flt)
{
    uint8_t *keep = malloc((size_t)b->root.length + 1);
    check(keep != NULL, "keep");
    for (size_t k = 0; k < flt->count; k++) {
        const hoodie_pred *p = &flt->preds[k];
        int c = hoodie_field_find(schema, p->column);
        if (c < 0) continue;
        hoodie_filter one = { (hoodie_pred *)p, 1, flt->arena };
        hoodie_status rc = hoodie_filter_eval(&one, b, keep);
        failed(rc);
        if (rc < 0) continue;
        const hoodie_field *f = &schema->children[c];
        const hoodie_array *a = &b->root.children[c];
        for (int64_t r = 0; r < b->root.length; r++) {
            hoodie_buf text = HOODIE_BUF_INIT;
            int var = f->type.id == HOODIE_TYPE_STRING || f->type.id == HOODIE_TYPE_BINARY;
            int empty = !hoodie_array_is_valid(a, r) || (var && a->offsets[r + 1] == a->offsets[r]);
            if (!empty) check(hoodie_value_to_key(&text, f, a, r) == HOODIE_OK, "value_to_key");
            if (!empty && text.len && memchr(text.data, 0, text.len)) { hoodie_buf_dispose(&text); continue; } /* no path */
            check(hoodie_buf_cstr(&text) == HOODIE_OK, "cstr");
            const char *v = empty ? "__HIVE_DEFAULT_PARTITION__" : (const char *)text.data;
            if (!hoodie_pred_may_match_partition(p, schema, v) && keep[r]) {
                fprintf(stderr, "row %lld: predicate %zu (on %s) prunes the partition %s, yet the row passes\n",
                        (long long)r, k, p->column, v);
                check(0, "partition pruning dropped a matching row");
            }
            hoodie_buf_dispose(&text);
        }
    }
    free(keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const hoodie_pq_codec codecs[] = { HOODIE_PQ_UNCOMPRESSED, HOODIE_PQ_SNAPPY,
                                              HOODIE_PQ_GZIP, HOODIE_PQ_ZSTD, HOODIE_PQ_LZ4_RAW };
    if (size < 3) return 0;
    const uint8_t *nl = memchr(data + 3, '\n', size - 3);
    if (!nl) return 0;
    char *text = malloc((size_t)(nl - (data + 3)) + 1);
    check(text != NULL, "text");
    memcpy(text, data + 3, (size_t)(nl - (data + 3)));
    text[nl - (data + 3)] = 0;
    hoodie_filter flt;
    hoodie_status rc = hoodie_filter_parse(&flt, text);
    free(text);
    failed(rc);
    if (rc < 0) return 0;

    hoodie_field schema;
    if (!fuzz_schema(&schema)) { hoodie_filter_dispose(&flt); return 0; }
    hoodie_input_opts io = HOODIE_INPUT_OPTS_INIT;
    io.format = data[0] & 1 ? HOODIE_INPUT_JSONL : HOODIE_INPUT_CSV;
    io.schema = &schema;
    io.batch_rows = 1 + data[2] % 97;
    hoodie_pq_writer_opts wo;
    hoodie_pq_writer_opts_init(&wo);
    wo.codec = codecs[(data[0] >> 1 & 7) % 5];
    wo.dictionary = data[0] >> 4 & 1;
    wo.data_page_v2 = data[0] >> 5 & 1;
    wo.row_group_rows = 1 + data[1] % 64;
    wo.page_rows = 1 + data[2] % 32;
    wo.root_name = "root";

    hoodie_batch in[MAX_BATCHES];
    size_t n_in = 0;
    int64_t total = 0;
    hoodie_input *inp;
    const uint8_t *rows = nl + 1;
    if (hoodie_input_open_buffer(&inp, rows, size - (size_t)(rows - data), "fuzz.csv", &io) != HOODIE_OK) {
        hoodie_field_dispose(&schema);
        hoodie_filter_dispose(&flt);
        return 0;
    }
    while (n_in < MAX_BATCHES && total < MAX_ROWS && hoodie_input_next(inp, &in[n_in]) == HOODIE_OK)
        total += in[n_in++].root.length;
    hoodie_input_free(inp);

    for (size_t i = 0; i < n_in; i++) partitions_agree(&schema, &in[i], &flt);

    hoodie_buf file = HOODIE_BUF_INIT;
    hoodie_pq_writer *w;
    check(hoodie_pq_writer_open(&w, &schema, &wo, (hoodie_pq_sink){ &file, sink_write }) == HOODIE_OK, "open");
    for (size_t i = 0; i < n_in; i++) check(hoodie_pq_writer_write(w, &in[i]) == HOODIE_OK, "write");
    check(hoodie_pq_writer_close(w) == HOODIE_OK, "close");
    hoodie_pq_writer_free(w);

    mem m = { file.data, file.len };
    hoodie_pq_source src = { &m, mem_read, file.len, "prune.parquet", NULL };
    hoodie_pq_file *f;
    check(hoodie_pq_file_open(&f, &src) == HOODIE_OK, "file_open");
    const hoodie_pq_file_meta *fm = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *sch = hoodie_pq_file_schema(f);
    for (uint32_t rg = 0; rg < fm->row_group_count; rg++) {
        int pruned_by = -1; /* the predicate that prunes it, as the scanner would */
        for (size_t k = 0; k < flt.count && pruned_by < 0; k++) {
            const hoodie_pred *p = &flt.preds[k];
            int leaf = hoodie_pq_schema_find_leaf(sch, p->column);
            if (leaf < 0 || sch->leaves[leaf].max_rep > 0) continue;
            hoodie_pq_value vals[HOODIE_PRED_PQ_MAX];
            hoodie_pq_pred pp;
            if (hoodie_pred_to_pq(p, &sch->leaves[leaf].type, vals, &pp) &&
                !hoodie_pq_row_group_may_match(f, rg, leaf, &pp))
                pruned_by = (int)k;
        }
        int64_t kept = kept_rows(f, rg, &flt);
        if (pruned_by >= 0 && kept > 0) {
            fprintf(stderr, "row group %u: predicate %d (on %s) prunes it, yet %lld of its rows match\n", rg,
                    pruned_by, flt.preds[pruned_by].column, (long long)kept);
            check(0, "pruning dropped matching rows");
        }
    }
    hoodie_pq_file_free(f);
    hoodie_buf_dispose(&file);
    for (size_t i = 0; i < n_in; i++) hoodie_batch_dispose(&in[i]);
    hoodie_field_dispose(&schema);
    hoodie_filter_dispose(&flt);
    return 0;
}
