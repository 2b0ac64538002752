#include "write/basefile_stream.h"
#include "format/bloom.h"
#include "merge/sorted_merge.h"
#include "table/pqwrite.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

struct hoodie_basefile_stream {
    hoodie_pqwrite *pw;
    hoodie_bloom bloom;
    int have_bloom;
    hoodie_buf min, max;
    int have_keys;
    int64_t rows;
};

void hoodie_basefile_stream_free(hoodie_basefile_stream *s)
{
    if (!s) return;
    hoodie_pqwrite_free(s->pw);
    if (s->have_bloom) hoodie_bloom_dispose(&s->bloom);
    hoodie_buf_dispose(&s->min);
    hoodie_buf_dispose(&s->max);
    free(s);
}

hoodie_status hoodie_basefile_stream_open(hoodie_basefile_stream **out, const hoodie_basefile_opts *o,
                                          int64_t row_group_rows, int64_t page_bytes, int64_t page_rows)
{
    *out = NULL;
    hoodie_basefile_stream *s = calloc(1, sizeof *s);
    if (!s) return HOODIE_NOMEM();
    hoodie_status rc = hoodie_bloom_init(&s->bloom, HOODIE_BLOOM_DYNAMIC_V0, 60000, 1e-9, 100000);
    s->have_bloom = rc == HOODIE_OK;
    /* the key order of Hudi's footers; the key-dependent values are set at close */
    const char *keys[] = { "parquet.avro.schema", "writer.model.name", "hoodie_bloom_filter_type_code",
                           "org.apache.hudi.bloomfilter", "hoodie_min_record_key", "hoodie_max_record_key" };
    const char *vals[] = { o->avro_schema, "avro", "DYNAMIC_V0", "", "", "" };
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    po.codec = o->codec;
    po.row_group_bytes = o->row_group_bytes;
    po.row_group_rows = row_group_rows;
    po.page_bytes = page_bytes;
    po.dictionary_page_bytes = page_bytes; /* a dictionary page is read whole too */
    po.kv_keys = keys;
    po.kv_values = vals;
    po.n_kv = 6;
    hoodie_pq_writer_opts fo;
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_map_opts(&po, &fo);
    fo.page_rows = page_rows;
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_open_ex(&s->pw, o->path, o->storage, HOODIE_CREATE_EXCLUSIVE, o->file_schema, &fo);
    if (rc < 0) { hoodie_basefile_stream_free(s); return rc; }
    *out = s;
    return HOODIE_OK;
}

static hoodie_status set_key(hoodie_buf *b, const uint8_t *p, size_t l)
{
    hoodie_buf_clear(b);
    HOODIE_TRY(hoodie_buf_append(b, p, l));
    return hoodie_buf_cstr(b);
}

hoodie_status hoodie_basefile_stream_write(hoodie_basefile_stream *s, const hoodie_batch *b)
{
    const hoodie_array *k = &b->root.children[2];
    hoodie_status rc = HOODIE_OK;
    size_t n = (size_t)k->length;
    /* the batch's keys into the bloom filter together (hashed side by side), its min and max found first and
     * compared with the file's once */
    const uint8_t **kp = malloc((n + 1) * sizeof *kp);
    size_t *kl = malloc((n + 1) * sizeof *kl);
    if (!kp || !kl) rc = HOODIE_NOMEM();
    size_t lo = 0, hi = 0;
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        kp[i] = k->values + k->offsets[i];
        kl[i] = (size_t)(k->offsets[i + 1] - k->offsets[i]);
        if (hoodie_sorted_key_compare(kp[i], kl[i], kp[lo], kl[lo]) < 0) lo = i;
        if (hoodie_sorted_key_compare(kp[i], kl[i], kp[hi], kl[hi]) > 0) hi = i;
    }
    if (rc == HOODIE_OK && n) {
        rc = hoodie_bloom_add_many(&s->bloom, kp, kl, n);
        if (rc == HOODIE_OK && (!s->have_keys || hoodie_sorted_key_compare(kp[lo], kl[lo], s->min.data, s->min.len) < 0))
            rc = set_key(&s->min, kp[lo], kl[lo]);
        if (rc == HOODIE_OK && (!s->have_keys || hoodie_sorted_key_compare(kp[hi], kl[hi], s->max.data, s->max.len) > 0))
            rc = set_key(&s->max, kp[hi], kl[hi]);
        s->have_keys = 1;
    }
    free(kp);
    free(kl);
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_write_batch(s->pw, b);
    if (rc == HOODIE_OK) s->rows += b->root.length;
    return rc;
}

uint64_t hoodie_basefile_stream_bytes(const hoodie_basefile_stream *s)
{
    return hoodie_pqwrite_size(s->pw) + hoodie_pqwrite_buffered(s->pw);
}

hoodie_status hoodie_basefile_stream_close(hoodie_basefile_stream *s, uint64_t *size_out, int64_t *rows_out)
{
    hoodie_buf bf = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_bloom_to_base64(&s->bloom, &bf);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&bf);
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_set_kv(s->pw, "org.apache.hudi.bloomfilter", (const char *)bf.data);
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_set_kv(s->pw, "hoodie_min_record_key", s->have_keys ? (const char *)s->min.data : "");
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_set_kv(s->pw, "hoodie_max_record_key", s->have_keys ? (const char *)s->max.data : "");
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(s->pw);
    if (rc == HOODIE_OK) {
        if (size_out) *size_out = hoodie_pqwrite_size(s->pw);
        if (rows_out) *rows_out = s->rows;
    }
    hoodie_buf_dispose(&bf);
    return rc;
}
