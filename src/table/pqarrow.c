/*
 * The Arrow side of the public Parquet API (include/hoodie/parquet.h): readers exported as ArrowArrayStreams,
 * writers fed with ArrowArrays. Thin glue over table/pqfile.h, table/pqwrite.h and model/arrow.h.
 */
#include "hoodie/parquet.h"
#include "model/arrow.h"
#include "table/pqfile.h"
#include "table/pqwrite.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

hoodie_status hoodie_parquet_reader_schema(hoodie_parquet_reader *r, struct ArrowSchema *out)
{
    return hoodie_arrow_export_field(out, hoodie_pqfile__schema(r));
}

typedef struct reader_stream { hoodie_pq_scan *scan; } reader_stream;

static hoodie_status reader_next(hoodie_batch *out, void *payload)
{
    reader_stream *rs = payload;
    hoodie_batch b;
    hoodie_status rc = hoodie_pq_scan_next(rs->scan, &b);
    if (rc < 0) return rc;
    hoodie_batch_dispose(out);
    *out = b; /* same schema: move */
    return HOODIE_OK;
}

static void reader_stream_free(void *payload)
{
    reader_stream *rs = payload;
    if (!rs) return;
    hoodie_pq_scan_free(rs->scan);
    free(rs);
}

hoodie_status hoodie_parquet_reader_stream(hoodie_parquet_reader *r, struct ArrowArrayStream *out)
{
    reader_stream *rs = calloc(1, sizeof *rs);
    if (!rs) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_pqfile__scan_open(r, &rs->scan);
    if (rc < 0) { free(rs); return rc; }
    return hoodie_arrow_stream_export(out, hoodie_pqfile__schema(r), reader_next, reader_stream_free, rs);
}

struct hoodie_parquet_writer {
    hoodie_pqwrite *w;
    hoodie_field schema;
    int closed;
};

hoodie_status hoodie_parquet_writer_open(hoodie_parquet_writer **out, const char *path,
                                         const struct ArrowSchema *schema, const hoodie_parquet_write_opts *opts)
{
    *out = NULL;
    hoodie_parquet_writer *pw = calloc(1, sizeof *pw);
    if (!pw) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_arrow_import_field(&pw->schema, schema);
    if (rc == HOODIE_OK && pw->schema.type.id != HOODIE_TYPE_STRUCT)
        rc = HOODIE_FAIL(HOODIE_EINVAL, "a Parquet file needs a struct schema (format \"+s\")");
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_open(&pw->w, path, opts ? opts->storage : NULL, &pw->schema, opts);
    if (rc < 0) { hoodie_parquet_writer_free(pw); return rc; }
    *out = pw;
    return HOODIE_OK;
}

hoodie_status hoodie_parquet_writer_write(hoodie_parquet_writer *w, const struct ArrowArray *batch)
{
    struct ArrowSchema s;
    hoodie_batch b;
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "Parquet writer already closed");
    HOODIE_TRY(hoodie_arrow_export_field(&s, &w->schema));
    hoodie_status rc = hoodie_arrow_import_batch(&b, &s, batch);
    s.release(&s);
    if (rc < 0) return rc;
    rc = hoodie_pqwrite_write_batch(w->w, &b);
    hoodie_batch_dispose(&b);
    return rc;
}

hoodie_status hoodie_parquet_writer_close(hoodie_parquet_writer *w)
{
    if (w->closed) return HOODIE_OK;
    w->closed = 1;
    return hoodie_pqwrite_close(w->w);
}

void hoodie_parquet_writer_free(hoodie_parquet_writer *w)
{
    if (!w) return;
    hoodie_pqwrite_free(w->w);
    hoodie_field_dispose(&w->schema);
    free(w);
}

hoodie_status hoodie_parquet_write_stream(const char *path, struct ArrowArrayStream *stream,
                                          const hoodie_parquet_write_opts *opts)
{
    hoodie_arrow_reader r;
    hoodie_pqwrite *w = NULL;
    hoodie_status rc = hoodie_arrow_reader_open(&r, stream);
    if (rc < 0) {
        if (stream->release) stream->release(stream);
        return rc;
    }
    rc = hoodie_pqwrite_open(&w, path, opts ? opts->storage : NULL, &r.schema, opts);
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        rc = hoodie_arrow_reader_next(&r, &b);
        if (rc == HOODIE_ITEROVER) { rc = HOODIE_OK; break; }
        if (rc < 0) break;
        rc = hoodie_pqwrite_write_batch(w, &b);
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(w);
    hoodie_pqwrite_free(w);
    hoodie_arrow_reader_close(&r);
    return rc;
}
