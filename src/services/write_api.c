/*
 * hoodie_table_write (include/hoodie/writer.h): the write client (write/writer.c) with the hooks that need the
 * read layer, which the write layer does not use: the current records of keys (Hudi's merged lookup of a global
 * index that moves records across partitions), a snapshot point lookup.
 */
#include "hoodie/lookup.h"
#include "model/arrow.h"
#include "util/error.h"
#include "write/client.h"

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

hoodie_status hoodie_table_write(const char *base_path, struct ArrowArrayStream *input, const hoodie_write_opts *opts,
                                 hoodie_write_result *result)
{
    static const hoodie_write_hooks hooks = { current };
    return hoodie_write__table_write(base_path, input, opts, &hooks, result);
}
