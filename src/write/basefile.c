#include "write/basefile.h"
#include "format/bloom.h"
#include "table/pqwrite.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static int key_less(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c < 0 || (c == 0 && al < bl);
}

static hoodie_status null_write(void *ctx, const void *p, size_t n)
{
    (void)ctx; (void)p; (void)n;
    return HOODIE_OK;
}

hoodie_status hoodie_basefile_copy_map(const hoodie_field *file_schema, const hoodie_pq_file *src,
                                       hoodie_basefile_copymap *out)
{
    memset(out, 0, sizeof *out);
    hoodie_pq_writer *pw;
    hoodie_pq_writer_opts wo;
    hoodie_pq_writer_opts_init(&wo);
    hoodie_pq_sink sink = { NULL, null_write };
    HOODIE_TRY(hoodie_pq_writer_open(&pw, file_schema, &wo, sink));
    const hoodie_pq_schema *ss = hoodie_pq_file_schema(src);
    size_t n = hoodie_pq_writer_leaf_count(pw);
    out->src_leaf = malloc((n + 1) * sizeof *out->src_leaf);
    out->top = malloc((n + 1) * sizeof *out->top);
    hoodie_status rc = out->src_leaf && out->top ? HOODIE_OK : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n; i++) {
        int top = hoodie_pq_writer_leaf_top(pw, i);
        out->top[i] = top;
        int j = top >= 0 ? hoodie_pq_schema_find_leaf(ss, file_schema->children[top].name) : -1;
        if (j >= 0 && !hoodie_pq_writer_can_copy(pw, i, &ss->leaves[j]))
            j = -1;
        out->src_leaf[i] = j;
        if (j >= 0) out->n_copyable++;
    }
    out->n_leaves = n;
    hoodie_pq_writer_free(pw);
    if (rc < 0) { free(out->src_leaf); free(out->top); memset(out, 0, sizeof *out); }
    return rc;
}

hoodie_status hoodie_basefile_write(const hoodie_basefile_opts *o, const hoodie_batch *const *batches, size_t n,
                                    uint64_t *size_out, int64_t *rows_out)
{
    hoodie_basefile_part *parts = malloc((n + 1) * sizeof *parts);
    if (!parts) return HOODIE_NOMEM();
    for (size_t i = 0; i < n; i++) { memset(&parts[i], 0, sizeof parts[i]); parts[i].batch = batches[i]; }
    hoodie_status rc = hoodie_basefile_write_parts(o, parts, n, size_out, rows_out);
    free(parts);
    return rc;
}

hoodie_status hoodie_basefile_write_parts(const hoodie_basefile_opts *o, const hoodie_basefile_part *parts, size_t n,
                                          uint64_t *size_out, int64_t *rows_out)
{
    hoodie_bloom bloom;
    hoodie_buf bf = HOODIE_BUF_INIT;
    const uint8_t *minp = NULL, *maxp = NULL;
    size_t minl = 0, maxl = 0;
    int64_t rows = 0;
    char *minkey = NULL, *maxkey = NULL;
    hoodie_pqwrite *pw = NULL;
    if (size_out) *size_out = 0;
    if (rows_out) *rows_out = 0;
    int reuse = o->reuse_bloom && o->reuse_bloom_type && o->reuse_min_key && o->reuse_max_key;
    int32_t entries = o->bloom_entries > 0 ? o->bloom_entries : 60000;
    HOODIE_TRY(hoodie_bloom_init(&bloom, HOODIE_BLOOM_DYNAMIC_V0, entries, 1e-9, entries > 100000 ? entries : 100000));
    hoodie_status rc = HOODIE_OK;
    int index = !o->no_key_index;
    /* the records whose keys are added to the filter: all, none (the index reused as is), or those after the first
     * reuse_rows (the reused index continued) */
    int64_t from = 0;
    if (reuse && o->reuse_rows > 0) {
        reuse = 0; /* continued, or else rebuilt */
        if (hoodie_bloom_continue(&bloom, o->reuse_bloom, o->reuse_bloom_type, o->reuse_rows)) {
            from = o->reuse_rows;
            minp = (const uint8_t *)o->reuse_min_key, minl = strlen(o->reuse_min_key);
            maxp = (const uint8_t *)o->reuse_max_key, maxl = strlen(o->reuse_max_key);
        }
    }
    for (size_t b = 0; (reuse || !index) && b < n; b++)
        rows += parts[b].refs ? (int64_t)parts[b].n_refs : parts[b].batch->root.length;
    enum { CHUNK = 256 };
    const uint8_t *kp[CHUNK];
    size_t kl[CHUNK];
    for (size_t b = 0; !reuse && index && b < n && rc == HOODIE_OK; b++) {
        const hoodie_basefile_part *pt = &parts[b];
        int64_t nrows = pt->refs ? (int64_t)pt->n_refs : pt->batch->root.length;
        size_t nk = 0;
        int64_t skip = from - rows; /* of this part's records, those the continued filter holds */
        for (int64_t r = skip > 0 ? (skip < nrows ? skip : nrows) : 0; r < nrows && rc == HOODIE_OK; r++) {
            const hoodie_array *k = pt->refs ? &pt->roots[pt->refs[r].source]->children[2] : &pt->batch->root.children[2];
            int64_t i = pt->refs ? pt->refs[r].row : r;
            size_t l;
            const uint8_t *p = hoodie_array_bytes_at(k, i, &l);
            kp[nk] = p;
            kl[nk++] = l;
            if (nk == CHUNK) { rc = hoodie_bloom_add_many(&bloom, kp, kl, nk); nk = 0; }
            if (!minp || key_less(p, l, minp, minl)) { minp = p; minl = l; }
            if (!maxp || key_less(maxp, maxl, p, l)) { maxp = p; maxl = l; }
        }
        if (rc == HOODIE_OK && nk) rc = hoodie_bloom_add_many(&bloom, kp, kl, nk);
        rows += nrows;
    }
    if (rc == HOODIE_OK && !reuse && index) rc = hoodie_bloom_to_base64(&bloom, &bf);
    if (rc == HOODIE_OK && !reuse && index) rc = hoodie_buf_cstr(&bf);
    hoodie_bloom_dispose(&bloom);
    if (rc == HOODIE_OK && index) {
        minkey = reuse ? strdup(o->reuse_min_key) : strndup(minp ? (const char *)minp : "", minl);
        maxkey = reuse ? strdup(o->reuse_max_key) : strndup(maxp ? (const char *)maxp : "", maxl);
        if (!minkey || !maxkey) rc = HOODIE_NOMEM();
    }
    /* the key order of Hudi's footers */
    const char *keys[] = { "parquet.avro.schema", "writer.model.name", "hoodie_bloom_filter_type_code",
                           "org.apache.hudi.bloomfilter", "hoodie_min_record_key", "hoodie_max_record_key" };
    const char *vals[] = { o->avro_schema, "avro", reuse ? o->reuse_bloom_type : "DYNAMIC_V0",
                           reuse ? o->reuse_bloom : (const char *)bf.data, minkey, maxkey };
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    po.codec = o->codec;
    po.row_group_bytes = o->row_group_bytes;
    po.kv_keys = keys;
    po.kv_values = vals;
    po.n_kv = index ? 6 : 2; /* no key index: parquet.avro.schema and writer.model.name alone */
    hoodie_pq_writer_opts fo;
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_map_opts(&po, &fo);
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_open_ex(&pw, o->path, o->storage, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC |
                                        HOODIE_CREATE_DEFER_VISIBLE,
                                    o->file_schema, &fo);
    if (rc == HOODIE_OK && o->file_name) rc = hoodie_pqwrite_set_constant(pw, 4, o->file_name, strlen(o->file_name));
    for (size_t b = 0; b < n && rc == HOODIE_OK; b++)
        rc = parts[b].refs ? hoodie_pqwrite_write_refs(pw, parts[b].roots, parts[b].n_roots, parts[b].refs,
                                                       (int64_t)parts[b].n_refs, parts[b].copies)
           : parts[b].copies ? hoodie_pqwrite_write_row_group(pw, &parts[b].batch->root, parts[b].copies)
                             : hoodie_pqwrite_write_batch(pw, parts[b].batch);
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(pw);
    if (rc == HOODIE_OK) {
        if (size_out) *size_out = hoodie_pqwrite_size(pw);
        if (rows_out) *rows_out = rows;
    }
    hoodie_pqwrite_free(pw);
    free(minkey);
    free(maxkey);
    hoodie_buf_dispose(&bf);
    return rc;
}
