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
    int64_t seeded_rows;   /* the first rows' keys are in the seeded index */
    int no_key_index;      /* a table without meta fields: no bloom filter, no min/max keys */
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
    int32_t entries = o->bloom_entries > 0 ? o->bloom_entries : 60000; /* as hoodie_basefile_write */
    s->no_key_index = o->no_key_index;
    hoodie_status rc = s->no_key_index ? HOODIE_OK
                                       : hoodie_bloom_init(&s->bloom, HOODIE_BLOOM_DYNAMIC_V0, entries, 1e-9,
                                                           entries > 100000 ? entries : 100000);
    s->have_bloom = rc == HOODIE_OK && !s->no_key_index;
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
    po.n_kv = s->no_key_index ? 2 : 6; /* no key index: parquet.avro.schema and writer.model.name alone */
    hoodie_pq_writer_opts fo;
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_map_opts(&po, &fo);
    fo.page_rows = page_rows;
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_open_ex(&s->pw, o->path, o->storage, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC |
                                        HOODIE_CREATE_DEFER_VISIBLE,
                                    o->file_schema, &fo);
    if (rc == HOODIE_OK && o->file_name) rc = hoodie_pqwrite_set_constant(s->pw, 4, o->file_name, strlen(o->file_name));
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

hoodie_status hoodie_basefile_stream_seed(hoodie_basefile_stream *s, const char *bloom_b64, const char *type_code,
                                          const char *min_key, const char *max_key, int64_t rows)
{
    if (s->rows || !s->have_bloom || !min_key || !max_key ||
        !hoodie_bloom_continue(&s->bloom, bloom_b64, type_code, rows)) /* (else rebuilt from the keys) */
        return HOODIE_OK;
    if (rows > 0) {
        HOODIE_TRY(set_key(&s->min, (const uint8_t *)min_key, strlen(min_key)));
        HOODIE_TRY(set_key(&s->max, (const uint8_t *)max_key, strlen(max_key)));
        s->have_keys = 1;
    }
    s->seeded_rows = rows;
    return HOODIE_OK;
}

int64_t hoodie_basefile_stream_seeded(const hoodie_basefile_stream *s) { return s->seeded_rows; }

hoodie_status hoodie_basefile_stream_write(hoodie_basefile_stream *s, const hoodie_batch *b)
{
    return hoodie_basefile_stream_write_row_group(s, b, NULL);
}

/* The keys of the rows written (column 2) into the bloom filter and the min/max keys, then the rows: as a row
 * group of their own with copied chunks (copies), or picked by row (sel), or as they are. */
static hoodie_status stream_write(hoodie_basefile_stream *s, const hoodie_array *root,
                                  const hoodie_pq_chunk_copy *const *copies, const int64_t *const *sel);

hoodie_status hoodie_basefile_stream_write_row_group(hoodie_basefile_stream *s, const hoodie_batch *b,
                                                     const hoodie_pq_chunk_copy *const *copies)
{
    return stream_write(s, &b->root, copies, NULL);
}

hoodie_status hoodie_basefile_stream_write_selected(hoodie_basefile_stream *s, const hoodie_array *root,
                                                    const int64_t *const *sel)
{
    return stream_write(s, root, NULL, sel);
}

static hoodie_status stream_write(hoodie_basefile_stream *s, const hoodie_array *root,
                                  const hoodie_pq_chunk_copy *const *copies, const int64_t *const *sel)
{
    enum { CHUNK = 256 }; /* keys per bloom_add_many: their hash chains interleave */
    const uint8_t *kp[CHUNK];
    size_t kl[CHUNK], nk = 0;
    const hoodie_array *k = &root->children[2];
    const int64_t *ks = sel ? sel[2] : NULL;
    const uint8_t *minp = NULL, *maxp = NULL;
    size_t minl = 0, maxl = 0;
    hoodie_status rc = HOODIE_OK;
    int64_t n = root->length;
    int64_t from = s->seeded_rows > s->rows ? s->seeded_rows - s->rows : 0; /* keys already in the seeded index */
    if (s->no_key_index) from = n;
    for (int64_t r = from < n ? from : n; r < n && rc == HOODIE_OK; r++) {
        int64_t i = ks ? ks[r] : r;
        size_t l;
        const uint8_t *p = hoodie_array_bytes_at(k, i, &l);
        kp[nk] = p;
        kl[nk++] = l;
        if (nk == CHUNK) { rc = hoodie_bloom_add_many(&s->bloom, kp, kl, nk); nk = 0; }
        if (!minp || hoodie_sorted_key_compare(p, l, minp, minl) < 0) { minp = p; minl = l; }
        if (!maxp || hoodie_sorted_key_compare(p, l, maxp, maxl) > 0) { maxp = p; maxl = l; }
    }
    if (rc == HOODIE_OK && nk) rc = hoodie_bloom_add_many(&s->bloom, kp, kl, nk);
    if (rc == HOODIE_OK && minp && (!s->have_keys || hoodie_sorted_key_compare(minp, minl, s->min.data, s->min.len) < 0))
        rc = set_key(&s->min, minp, minl);
    if (rc == HOODIE_OK && maxp && (!s->have_keys || hoodie_sorted_key_compare(maxp, maxl, s->max.data, s->max.len) > 0))
        rc = set_key(&s->max, maxp, maxl);
    if (minp) s->have_keys = 1;
    if (rc == HOODIE_OK)
        rc = copies ? hoodie_pqwrite_write_row_group(s->pw, root, copies) : hoodie_pqwrite_write_selected(s->pw, root, sel);
    if (rc == HOODIE_OK) s->rows += root->length;
    return rc;
}

uint64_t hoodie_basefile_stream_bytes(const hoodie_basefile_stream *s)
{
    return hoodie_pqwrite_size(s->pw) + hoodie_pqwrite_buffered(s->pw);
}

uint64_t hoodie_basefile_stream_buffered(const hoodie_basefile_stream *s) { return hoodie_pqwrite_buffered(s->pw); }

hoodie_status hoodie_basefile_stream_flush(hoodie_basefile_stream *s) { return hoodie_pqwrite_flush(s->pw); }

hoodie_status hoodie_basefile_stream_close(hoodie_basefile_stream *s, uint64_t *size_out, int64_t *rows_out)
{
    hoodie_buf bf = HOODIE_BUF_INIT;
    hoodie_status rc = HOODIE_OK;
    if (!s->no_key_index) {
        rc = hoodie_bloom_to_base64(&s->bloom, &bf);
        if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&bf);
        if (rc == HOODIE_OK) rc = hoodie_pqwrite_set_kv(s->pw, "org.apache.hudi.bloomfilter", (const char *)bf.data);
        if (rc == HOODIE_OK)
            rc = hoodie_pqwrite_set_kv(s->pw, "hoodie_min_record_key", s->have_keys ? (const char *)s->min.data : "");
        if (rc == HOODIE_OK)
            rc = hoodie_pqwrite_set_kv(s->pw, "hoodie_max_record_key", s->have_keys ? (const char *)s->max.data : "");
    }
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(s->pw);
    if (rc == HOODIE_OK) {
        if (size_out) *size_out = hoodie_pqwrite_size(s->pw);
        if (rows_out) *rows_out = s->rows;
    }
    hoodie_buf_dispose(&bf);
    return rc;
}
