/* Fuzz the whole reader on an in-memory file: open, statistics, scan every batch (small batches), then each of
 * the first top-level columns alone with PLAIN pages taken in place (hoodie_pq_scan_plain_page) between batches,
 * free. */
#include "format/parquet/reader.h"
#include "util/error.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct mem { const uint8_t *p; size_t n; } mem;

static hoodie_status mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    mem *m = ctx;
    if (off > m->n || len > m->n - off) return HOODIE_FAIL(HOODIE_EIO, "short read");
    memcpy(buf, m->p + off, len);
    return HOODIE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mem m = { data, size };
    hoodie_pq_source src = { &m, mem_read, size, "fuzz.parquet", NULL };
    hoodie_pq_file *f;
    if (hoodie_pq_file_open(&f, &src) != HOODIE_OK) return 0;
    const hoodie_pq_file_meta *meta = hoodie_pq_file_metadata(f);
    const hoodie_pq_schema *s = hoodie_pq_file_schema(f);
    for (uint32_t g = 0; g < meta->row_group_count && g < 8; g++)
        for (size_t l = 0; l < s->n_leaves && l < 16; l++) {
            hoodie_pq_column_stats st;
            if (hoodie_pq_row_group_stats(f, g, (int)l, &st) == HOODIE_OK) {
                hoodie_pq_pred p = { HOODIE_PQ_OP_EQ, &st.min, 1 };
                (void)hoodie_pq_stats_may_match(&st, &p);
            }
        }
    hoodie_pq_scan *sc;
    hoodie_pq_scan_opts o = { 0 };
    o.batch_rows = 97;
    if (hoodie_pq_scan_open(&sc, f, &o) == HOODIE_OK) {
        hoodie_batch b;
        int64_t total = 0;
        while (hoodie_pq_scan_next(sc, &b) == HOODIE_OK) {
            total += b.root.length;
            hoodie_batch_dispose(&b);
            if (total > 1000000) break;
        }
        const hoodie_field *root = hoodie_pq_scan_schema(sc);
        for (size_t c = 0; c < root->n_children && c < 4; c++) {
            const char *name = root->children[c].name;
            hoodie_pq_scan_opts one = { &name, 1, NULL, 0, 53, 0 };
            hoodie_pq_scan *s1;
            if (hoodie_pq_scan_open(&s1, f, &one) != HOODIE_OK) continue;
            int64_t seen = 0;
            for (;;) {
                const uint8_t *p, *end, *v;
                int64_t n;
                size_t len;
                hoodie_status rc = hoodie_pq_scan_plain_page(s1, &p, &end, &n);
                if (rc == HOODIE_OK) {
                    for (int64_t i = 0; i < n && hoodie_pq_plain_next(&p, end, &v, &len); i++)
                        if (len) seen += v[0] == v[len - 1]; /* touch the value's bytes */
                    continue;
                }
                if (rc != 1 || hoodie_pq_scan_next(s1, &b) != HOODIE_OK) break;
                seen += b.root.length;
                hoodie_batch_dispose(&b);
                if (seen > 1000000) break;
            }
            hoodie_pq_scan_free(s1);
        }
        hoodie_pq_scan_free(sc);
    }
    hoodie_pq_file_free(f);
    return 0;
}
