/*
 * The pre-commit check of a write or a table service (hoodie_write_opts.pre_commit, hoodie_service_opts.pre_commit):
 * shown the table before the instant and, through a read-only view with its completed instant file added
 * (storage/overlay.h), after it. A refusal rolls the instant back at once, under the table lock (it is this live
 * process's own: recovery would leave it alone), and fails with HOODIE_EVALIDATION; a rollback that fails leaves
 * the instant pending, which a later writer rolls back.
 */
#ifndef HOODIE_WRITE_PRECOMMIT_H
#define HOODIE_WRITE_PRECOMMIT_H

#include "hoodie/writer.h"
#include "table/commit_meta.h"
#include "table/config.h"
#include "write/commit.h"
#include "write/commit_encode.h"

typedef struct hoodie_precommit_call {
    hoodie_precommit_fn fn;
    void *ctx;
    const hoodie_storage *s;
    const char *base_path;
    const hoodie_table_config *cfg;
    hoodie_write_txn *tx;               /* the pending instant */
    hoodie_write_operation op;          /* -1 for a table service */
    const char *operation;              /* Hudi's WriteOperationType name: "UPSERT", "CLUSTER", ... */
    const hoodie_wstat *stats;          /* what it wrote: the partitions come from these and `replaced` */
    size_t n_stats;
    const hoodie_replaced_file_ids *replaced;
    size_t n_replaced;
    const hoodie_write_result *result;
} hoodie_precommit_call;

/** Run the check with the encoded commit metadata `meta` the instant would complete with. */
hoodie_status hoodie_write__pre_commit(const hoodie_precommit_call *c, const void *meta, size_t len);

#endif
