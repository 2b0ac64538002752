/*
 * hoodie_table_write (include/hoodie/writer.h): the write client (write/writer.c) with the hooks that need the
 * read layer, which the write layer does not use: the current records of keys (Hudi's merged lookup of a global
 * index that moves records across partitions), a snapshot point lookup; the (record key, value) pairs of file
 * groups before and after a write, for its secondary indexes.
 */
#include "hoodie/lookup.h"
#include "model/arrow.h"
#include "read/scan.h"
#include "table/mdt.h"
#include "table/table.h"
#include "util/error.h"
#include "write/client.h"

#include <stdlib.h>
#include <string.h>

static hoodie_status current(hoodie_table *t, const char *const *keys, size_t n, hoodie_write_records_fn each,
                             void *ctx)
{
    if (!n) return HOODIE_OK;
    struct ArrowArrayStream st;
    HOODIE_TRY(hoodie_table_get(t, keys, n, &st));
    hoodie_arrow_reader r;
    hoodie_status rc = hoodie_arrow_reader_open(&r, &st);
    if (rc < 0) {
        if (st.release) st.release(&st);
        return rc;
    }
    for (;;) {
        hoodie_batch b;
        if ((rc = hoodie_arrow_reader_next(&r, &b)) < 0) break;
        rc = each(ctx, &b);
        hoodie_batch_dispose(&b);
        if (rc < 0) break;
    }
    hoodie_arrow_reader_close(&r);
    return rc == HOODIE_ITEROVER ? HOODIE_OK : rc;
}

/* The (record key, value) pairs of columns in file groups of the table as `s` shows it (write/commit.h). */
static hoodie_status secondary(const hoodie_storage *s, const char *base_path, const char *const *groups,
                               size_t n_groups, const char *const *columns, size_t n_columns, hoodie_write_pair_fn each,
                               void *ctx)
{
    hoodie_table_open_opts o = HOODIE_TABLE_OPEN_OPTS_INIT;
    o.storage = s;
    hoodie_table *t = NULL;
    hoodie_read_scan *r = NULL;
    hoodie_hmap only = HOODIE_HMAP_INIT;
    hoodie_buf val = HOODIE_BUF_INIT;
    const char **cols = calloc(n_columns + 1, sizeof *cols);
    hoodie_status rc = cols ? hoodie_hmap_init(&only, n_groups + 1) : HOODIE_NOMEM();
    for (size_t i = 0; rc == HOODIE_OK && i < n_groups; i++) {
        uint64_t *slot;
        int existed;
        rc = hoodie_hmap_upsert(&only, groups[i], strlen(groups[i]), &slot, &existed);
    }
    if (rc == HOODIE_OK) rc = hoodie_table_open(&t, base_path, &o);
    if (rc == HOODIE_OK) {
        hoodie_scan_opts so = HOODIE_SCAN_OPTS_INIT;
        cols[0] = "_hoodie_record_key";
        for (size_t i = 0; i < n_columns; i++) cols[i + 1] = columns[i];
        so.columns = cols;
        so.n_columns = n_columns + 1;
        rc = hoodie_read__scan_open(t, &so, &r);
    }
    if (rc == HOODIE_OK) hoodie_read__scan_only(r, &only);
    while (rc == HOODIE_OK) {
        hoodie_batch b;
        if ((rc = hoodie_read__scan_next(r, &b)) < 0) break;
        for (int64_t i = 0; rc == HOODIE_OK && !n_columns && i < b.root.length; i++) { /* the keys alone */
            size_t kl;
            const uint8_t *k = hoodie_array_bytes_at(&b.root.children[0], i, &kl);
            rc = each(ctx, 0, (const char *)k, kl, NULL, 0);
        }
        for (size_t c = 1; rc == HOODIE_OK && c < b.schema.n_children; c++) {
            const hoodie_field *f = &b.schema.children[c];
            if (!hoodie_mdt_si_type_ok(&f->type)) {
                char tn[64];
                rc = HOODIE_FAIL(HOODIE_EUNSUPPORTED, "secondary index of column %s of type %s: its values as Java "
                                 "renders them are not reproduced", columns[c - 1],
                                 hoodie_type_name(&f->type, tn, sizeof tn));
                break;
            }
            for (int64_t i = 0; rc == HOODIE_OK && i < b.root.length; i++) {
                val.len = 0;
                int got = hoodie_mdt_si_value(f, &b.root.children[c], i, &val);
                if (got < 0) { rc = HOODIE_NOMEM(); break; }
                if (!got) continue; /* a null is not indexed */
                size_t kl;
                const uint8_t *k = hoodie_array_bytes_at(&b.root.children[0], i, &kl);
                rc = each(ctx, c - 1, (const char *)k, kl, (const char *)val.data, val.len);
            }
        }
        hoodie_batch_dispose(&b);
    }
    if (rc == HOODIE_ITEROVER) rc = HOODIE_OK;
    if (r) hoodie_read__scan_close(r);
    hoodie_table_free(t);
    hoodie_hmap_dispose(&only);
    hoodie_buf_dispose(&val);
    free(cols);
    return rc;
}

hoodie_status hoodie_table_write(const char *base_path, struct ArrowArrayStream *input, const hoodie_write_opts *opts,
                                 hoodie_write_result *result)
{
    static const hoodie_write_hooks hooks = { current, secondary };
    return hoodie_write__table_write(base_path, input, opts, &hooks, result);
}
