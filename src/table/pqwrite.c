#include "table/pqwrite.h"
#include "storage/storage.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

struct hoodie_pqwrite {
    hoodie_writer_file file;
    hoodie_pq_writer *w;
    int open, closed;
};

static hoodie_status pqwrite_sink(void *ctx, const void *data, size_t len)
{
    return hoodie_wfile_write(ctx, data, len);
}

hoodie_status hoodie_pqwrite_map_opts(const hoodie_parquet_write_opts *in, hoodie_pq_writer_opts *out)
{
    hoodie_pq_writer_opts_init(out);
    if (!in) return HOODIE_OK;
    if (in->version != HOODIE_PARQUET_WRITE_OPTS_VERSION)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet write options: version %u, expected %u", in->version,
                           HOODIE_PARQUET_WRITE_OPTS_VERSION);
    switch (in->codec) {
    case HOODIE_PARQUET_CODEC_UNCOMPRESSED: out->codec = HOODIE_PQ_UNCOMPRESSED; break;
    case HOODIE_PARQUET_CODEC_SNAPPY: out->codec = HOODIE_PQ_SNAPPY; break;
    case HOODIE_PARQUET_CODEC_GZIP: out->codec = HOODIE_PQ_GZIP; break;
    case HOODIE_PARQUET_CODEC_ZSTD: out->codec = HOODIE_PQ_ZSTD; break;
    case HOODIE_PARQUET_CODEC_LZ4_RAW: out->codec = HOODIE_PQ_LZ4_RAW; break;
    default: return HOODIE_FAIL(HOODIE_EINVAL, "parquet write options: unknown codec %d", (int)in->codec);
    }
    if (in->row_group_rows < 0 || in->row_group_bytes < 0 || in->page_bytes < 0 || in->dictionary_page_bytes < 0)
        return HOODIE_FAIL(HOODIE_EINVAL, "parquet write options: negative size");
    if (in->n_kv && !in->kv_keys) return HOODIE_FAIL(HOODIE_EINVAL, "parquet write options: n_kv without keys");
    out->level = out->codec == HOODIE_PQ_ZSTD ? in->zstd_level : 0;
    out->row_group_rows = in->row_group_rows;
    out->row_group_bytes = in->row_group_bytes;
    out->page_bytes = in->page_bytes;
    out->dictionary = in->dictionary != 0;
    out->dictionary_limit = in->dictionary_page_bytes;
    out->data_page_v2 = in->data_page_v2 != 0;
    out->kv_keys = in->kv_keys;
    out->kv_values = in->kv_values;
    out->n_kv = in->n_kv;
    return HOODIE_OK;
}

hoodie_status hoodie_pqwrite_open_ex(hoodie_pqwrite **out, const char *path, const hoodie_storage *storage,
                                     unsigned create_flags, const hoodie_field *schema,
                                     const hoodie_pq_writer_opts *opts)
{
    *out = NULL;
    hoodie_pqwrite *p = calloc(1, sizeof *p);
    if (!p) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_wfile_open(&p->file, storage, path, create_flags);
    if (rc < 0) { free(p); return rc; }
    p->open = 1;
    hoodie_pq_sink sink = { &p->file, pqwrite_sink };
    rc = hoodie_pq_writer_open(&p->w, schema, opts, sink);
    if (rc < 0) {
        hoodie_error__prefix("%s: ", path);
        hoodie_pqwrite_free(p);
        return rc;
    }
    *out = p;
    return HOODIE_OK;
}

hoodie_status hoodie_pqwrite_open(hoodie_pqwrite **out, const char *path, const hoodie_storage *storage,
                                  const hoodie_field *schema, const hoodie_parquet_write_opts *opts)
{
    hoodie_pq_writer_opts o;
    *out = NULL;
    HOODIE_TRY(hoodie_pqwrite_map_opts(opts, &o));
    if (!storage && opts) storage = opts->storage;
    return hoodie_pqwrite_open_ex(out, path, storage, opts ? opts->create_flags : 0, schema, &o);
}

hoodie_status hoodie_pqwrite_write_array(hoodie_pqwrite *w, const hoodie_array *root)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    return hoodie_pq_writer_write_array(w->w, root);
}

hoodie_status hoodie_pqwrite_write_selected(hoodie_pqwrite *w, const hoodie_array *root, const int64_t *const *sel)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    return hoodie_pq_writer_write_selected(w->w, root, sel);
}

hoodie_status hoodie_pqwrite_write_refs(hoodie_pqwrite *w, const hoodie_array *const *roots, size_t n_roots,
                                        const hoodie_row_ref *refs, int64_t rows, const hoodie_pq_chunk_copy *const *copies)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    return hoodie_pq_writer_write_refs(w->w, roots, n_roots, refs, rows, copies);
}

hoodie_status hoodie_pqwrite_write_row_group(hoodie_pqwrite *w, const hoodie_array *root,
                                            const hoodie_pq_chunk_copy *const *copies)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    return hoodie_pq_writer_write_row_group(w->w, root, copies);
}

const hoodie_pq_writer *hoodie_pqwrite_writer(const hoodie_pqwrite *w) { return w->w; }

hoodie_status hoodie_pqwrite_set_constant(hoodie_pqwrite *w, size_t top, const void *value, size_t len)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    return hoodie_pq_writer_set_constant(w->w, top, value, len);
}

hoodie_status hoodie_pqwrite_write_batch(hoodie_pqwrite *w, const hoodie_batch *b)
{
    return hoodie_pqwrite_write_array(w, &b->root);
}

hoodie_status hoodie_pqwrite_close(hoodie_pqwrite *w)
{
    if (w->closed) return HOODIE_FAIL(HOODIE_ESTATE, "parquet writer: already closed");
    HOODIE_TRY(hoodie_pq_writer_close(w->w));
    w->open = 0;
    HOODIE_TRY(hoodie_wfile_finish(&w->file));
    w->closed = 1;
    return HOODIE_OK;
}

uint64_t hoodie_pqwrite_size(const hoodie_pqwrite *w) { return w->w ? hoodie_pq_writer_offset(w->w) : 0; }
int64_t hoodie_pqwrite_rows(const hoodie_pqwrite *w) { return w->w ? hoodie_pq_writer_rows(w->w) : 0; }
uint64_t hoodie_pqwrite_buffered(const hoodie_pqwrite *w) { return w->w ? hoodie_pq_writer_buffered(w->w) : 0; }

hoodie_status hoodie_pqwrite_flush(hoodie_pqwrite *w) { return w->w ? hoodie_pq_writer_flush(w->w) : HOODIE_OK; }

void hoodie_pqwrite_free(hoodie_pqwrite *w)
{
    if (!w) return;
    if (w->open) hoodie_wfile_abandon(&w->file);
    hoodie_pq_writer_free(w->w);
    free(w);
}

hoodie_status hoodie_pqwrite_set_kv(hoodie_pqwrite *w, const char *key, const char *value)
{
    return hoodie_pq_writer_set_kv(w->w, key, value);
}
