/*
 * hoodie_output_stream (include/hoodie/output.h): drain an ArrowArrayStream into CSV, JSON lines, an aligned
 * table, or a Parquet file.
 */
#include "hoodie/output.h"
#include "model/arrow.h"
#include "model/build.h"
#include "model/render.h"
#include "table/pqwrite.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

hoodie_status hoodie_output_stream(struct ArrowArrayStream *stream, const char *path, FILE *out,
                                   const hoodie_output_opts *opts, int64_t *rows_out)
{
    hoodie_output_opts defaults = HOODIE_OUTPUT_OPTS_INIT;
    hoodie_arrow_reader r;
    hoodie_pqwrite *w = NULL;
    FILE *fp = NULL;
    int64_t rows = 0, limit;
    hoodie_batch table_rows;
    int have_table = 0;
    if (!opts) opts = &defaults;
    limit = opts->max_rows > 0 ? opts->max_rows : (opts->format == HOODIE_OUTPUT_TABLE ? 40 : INT64_MAX);
    if (rows_out) *rows_out = 0;
    hoodie_status rc = hoodie_arrow_reader_open(&r, stream);
    if (rc < 0) {
        if (stream->release) stream->release(stream);
        return rc;
    }
    if (opts->format == HOODIE_OUTPUT_PARQUET) {
        if (!path) rc = HOODIE_FAIL(HOODIE_EINVAL, "Parquet output needs a file path");
        else rc = hoodie_pqwrite_open(&w, path, opts->parquet ? opts->parquet->storage : NULL, &r.schema, opts->parquet);
    } else if (path) {
        fp = fopen(path, "w");
        if (!fp) rc = hoodie_error__set_errno(HOODIE_EIO, errno, "cannot create %s", path);
    } else {
        fp = out ? out : stdout;
    }
    if (rc == HOODIE_OK && opts->format == HOODIE_OUTPUT_TABLE) {
        rc = hoodie_batch_init(&table_rows, &r.schema);
        have_table = rc == HOODIE_OK;
    }
    int header = 1;
    while (rc == HOODIE_OK && rows < limit) {
        hoodie_batch b;
        rc = hoodie_arrow_reader_next(&r, &b);
        if (rc == HOODIE_ITEROVER) { rc = HOODIE_OK; break; }
        if (rc < 0) break;
        if (b.root.length > limit - rows) {
            hoodie_batch cut;
            rc = hoodie_batch_slice(&cut, &b, 0, limit - rows);
            hoodie_batch_dispose(&b);
            if (rc < 0) break;
            b = cut;
        }
        switch (opts->format) {
        case HOODIE_OUTPUT_CSV: rc = hoodie_render_csv_file(fp, &b, header); header = 0; break;
        case HOODIE_OUTPUT_JSONL: rc = hoodie_render_jsonl_file(fp, &b); break;
        case HOODIE_OUTPUT_TABLE: rc = hoodie_batch_concat(&table_rows, &b); break;
        case HOODIE_OUTPUT_PARQUET: rc = hoodie_pqwrite_write_batch(w, &b); break;
        }
        rows += b.root.length;
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_OK && opts->format == HOODIE_OUTPUT_CSV && header) {
        /* no batch at all: still print the header */
        hoodie_batch empty;
        rc = hoodie_batch_init(&empty, &r.schema);
        if (rc == HOODIE_OK) { rc = hoodie_render_csv_file(fp, &empty, 1); hoodie_batch_dispose(&empty); }
    }
    if (rc == HOODIE_OK && have_table) rc = hoodie_render_table_file(fp, &table_rows, limit);
    if (rc == HOODIE_OK && w) rc = hoodie_pqwrite_close(w);
    if (have_table) hoodie_batch_dispose(&table_rows);
    hoodie_pqwrite_free(w);
    if (fp && path) {
        if (fclose(fp) != 0 && rc == HOODIE_OK) rc = hoodie_error__set_errno(HOODIE_EIO, errno, "cannot write %s", path);
    }
    hoodie_arrow_reader_close(&r);
    if (rows_out) *rows_out = rows;
    return rc;
}
