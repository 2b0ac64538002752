#include "write/lsm_write.h"
#include "format/hlog/native_log.h"
#include "merge/sorted_merge.h"
#include "table/pqwrite.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static void key_of(const hoodie_keygen_out *k, int64_t r, const uint8_t **p, size_t *n)
{
    *p = k->data.data + k->offsets[r];
    *n = (size_t)(k->offsets[r + 1] - k->offsets[r]);
}

hoodie_status hoodie_lsm_sort_rows(const hoodie_keygen_out *keys, int64_t *rows, size_t n)
{
    if (n < 2) return HOODIE_OK;
    int64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return HOODIE_NOMEM();
    int64_t *a = rows, *b = tmp;
    /* bottom-up merge sort: stable */
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                const uint8_t *pi, *pj;
                size_t ni, nj;
                key_of(keys, a[i], &pi, &ni);
                key_of(keys, a[j], &pj, &nj);
                b[o++] = hoodie_sorted_key_compare(pj, nj, pi, ni) < 0 ? a[j++] : a[i++];
            }
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        int64_t *t = a; a = b; b = t;
    }
    if (a != rows) memcpy(rows, a, n * sizeof *rows);
    free(tmp);
    return HOODIE_OK;
}

hoodie_status hoodie_lsm_write_log(const hoodie_lsm_log_opts *o, const hoodie_batch *const *batches, size_t n,
                                   uint64_t *size_out)
{
    return hoodie_lsm_write_log_ex(o, NULL, batches, n, size_out);
}

hoodie_status hoodie_lsm_write_log_ex(const hoodie_lsm_log_opts *o, const char *compacted,
                                      const hoodie_batch *const *batches, size_t n, uint64_t *size_out)
{
    const uint8_t *minp = NULL, *maxp = NULL, *prev = NULL;
    size_t minl = 0, maxl = 0, prevl = 0;
    if (size_out) *size_out = 0;
    if (n == 0) return HOODIE_FAIL(HOODIE_EINVAL, "%s: a native log file needs at least one batch", o->path);
    for (size_t b = 0; b < n; b++) {
        const hoodie_array *k = &batches[b]->root.children[o->key_col];
        for (int64_t i = 0; i < batches[b]->root.length; i++) {
            const uint8_t *p;
            size_t l;
            hoodie_array_bytes_or_empty(k, i, &p, &l);
            if (prev && hoodie_sorted_key_compare(prev, prevl, p, l) >= 0)
                return HOODIE_FAIL(HOODIE_EINVAL, "%s: records of an LSM file must be sorted by record key and unique "
                                   "(row %lld)", o->path, (long long)i);
            if (!minp) { minp = p; minl = l; }
            maxp = p; maxl = l;
            prev = p; prevl = l;
        }
    }
    hoodie_hlog_header_entry h[3] = {
        { HOODIE_HLOG_INSTANT_TIME, o->instant, strlen(o->instant) },
    };
    size_t nh = 1;
    if (o->avro_schema) h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_SCHEMA, o->avro_schema, strlen(o->avro_schema) };
    if (compacted) h[nh++] = (hoodie_hlog_header_entry){ HOODIE_HLOG_COMPACTED_BLOCK_TIMES, compacted, strlen(compacted) };
    hoodie_buf meta = HOODIE_BUF_INIT;
    hoodie_status rc = hoodie_native_log_meta_build(&meta, h, nh, HOODIE_NATIVE_LOG_VERSION);
    if (rc == HOODIE_OK) rc = hoodie_buf_cstr(&meta);
    char *minkey = strndup(minp ? (const char *)minp : "", minl), *maxkey = strndup(maxp ? (const char *)maxp : "", maxl);
    if (rc == HOODIE_OK && (!minkey || !maxkey)) rc = HOODIE_NOMEM();
    const char *keys[4] = { HOODIE_NATIVE_LOG_FOOTER_KEY, "hoodie_min_record_key", "hoodie_max_record_key",
                            "parquet.avro.schema" };
    const char *vals[4] = { (const char *)meta.data, minkey, maxkey, o->avro_schema };
    hoodie_parquet_write_opts po = HOODIE_PARQUET_WRITE_OPTS_INIT;
    po.codec = o->codec;
    po.row_group_rows = HOODIE_LSM_ROW_GROUP_ROWS;
    po.page_bytes = HOODIE_LSM_PAGE_BYTES;
    po.dictionary_page_bytes = HOODIE_LSM_PAGE_BYTES;
    po.kv_keys = keys;
    po.kv_values = vals;
    po.n_kv = o->avro_schema ? 4 : 3;
    hoodie_pq_writer_opts fo;
    hoodie_pqwrite *pw = NULL;
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_map_opts(&po, &fo);
    fo.page_rows = HOODIE_LSM_PAGE_ROWS;
    if (rc == HOODIE_OK)
        rc = hoodie_pqwrite_open_ex(&pw, o->path, o->storage, HOODIE_CREATE_EXCLUSIVE | HOODIE_CREATE_DEFER_SYNC |
                                        HOODIE_CREATE_DEFER_VISIBLE,
                                    &batches[0]->schema, &fo);
    for (size_t b = 0; b < n && rc == HOODIE_OK; b++) rc = hoodie_pqwrite_write_batch(pw, batches[b]);
    if (rc == HOODIE_OK) rc = hoodie_pqwrite_close(pw);
    if (rc == HOODIE_OK && size_out) *size_out = hoodie_pqwrite_size(pw);
    hoodie_pqwrite_free(pw);
    free(minkey);
    free(maxkey);
    hoodie_buf_dispose(&meta);
    return rc;
}
