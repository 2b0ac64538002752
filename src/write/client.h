/*
 * The write client's entry (write/writer.c), behind the public hoodie_table_write (services/write_api.c). What
 * the write layer cannot do itself, as it does not use the read layer, comes in through hooks that the layer
 * above both supplies.
 */
#ifndef HOODIE_WRITE_CLIENT_H
#define HOODIE_WRITE_CLIENT_H

#include "hoodie/table.h"
#include "hoodie/writer.h"
#include "model/batch.h"
#include "write/commit.h"

/* Called with each batch of current records (its arrays may be taken: the caller disposes of what is left); a
 * failure stops (that status is returned). */
typedef hoodie_status (*hoodie_write_records_fn)(void *ctx, hoodie_batch *b);

typedef struct hoodie_write_hooks {
    /*
     * The live records of `keys` (n of them, unique) in the table's snapshot as `t` sees it, the meta columns
     * first and then the table's, merged as a snapshot read merges them (base and log files), in batches passed
     * to `each`. A key without a live record gives no row. NULL: not available (what needs it is refused).
     */
    hoodie_status (*current)(hoodie_table *t, const char *const *keys, size_t n, hoodie_write_records_fn each,
                             void *ctx);
    /* The (record key, value) pairs of file groups before and after the write (write/commit.h), for the table's
     * secondary indexes. NULL: not available (the indexes are dropped). */
    hoodie_write_si_read_fn secondary;
} hoodie_write_hooks;

/** hoodie_table_write with `hooks` (NULL: none). */
hoodie_status hoodie_write__table_write(const char *base_path, struct ArrowArrayStream *input,
                                       const hoodie_write_opts *opts, const hoodie_write_hooks *hooks,
                                       hoodie_write_result *result);

#endif
