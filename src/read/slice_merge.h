/*
 * Merging one file slice: the log items (read/logscan.h) folded per record key into a hash map, then the base
 * file streamed batch by batch against it (the default layout's hash merge; hudi-format.md 8.5):
 *
 *   log fold   for each data row and delete, in apply order: keep the version that wins under policy.log_fold
 *   base       for each base row: no log version -> the base row; else the winner under policy.base (a winning
 *              delete drops the row)
 *   finish     log versions whose key never appeared in the base (inserts), deletes skipped
 *
 * Output rows are gathered once per base batch with hoodie_batch_take from (base batch, log batches): a
 * selection vector of (source, row), no per-row copies.
 *
 * Keys are not merged across file groups (each slice is merged on its own), as Hudi does.
 */
#ifndef HOODIE_READ_SLICE_MERGE_H
#define HOODIE_READ_SLICE_MERGE_H

#include "merge/record_merge.h"
#include "model/build.h"
#include "read/logscan.h"

typedef struct hoodie_slice_merge_cfg {
    const hoodie_field *schema;   /* reader STRUCT; base batches and log batches are shaped like it */
    int key_col;                  /* column of the record key (a STRING column) */
    int ordering_col;             /* -1: no ordering field */
    int deleted_col;              /* _hoodie_is_deleted (BOOL) or -1 */
    hoodie_merge_policy policy;
    const hoodie_delete_marker *marker; /* the table's custom delete marker (resolved against schema), or NULL */
    const int *more_ordering_cols;/* further ordering fields (table version 9), compared in turn on a tie: their
                                   * columns (-1: absent from the schema) */
    int n_more_ordering;
    /* a pass of a merge in key-hash partitions (read/logscan.h): base batches hold every partition's rows, and
     * only those whose key is in partition pass_part of pass_parts are merged and come out (0 or 1: all) */
    uint32_t pass_parts, pass_part;
} hoodie_slice_merge_cfg;

typedef struct hoodie_slice_merger hoodie_slice_merger;

/** Fold the log items (borrowed: they must outlive the merger). */
hoodie_status hoodie_slice_merger_new(hoodie_slice_merger **out, const hoodie_slice_merge_cfg *cfg,
                                      hoodie_log_items *items);
void hoodie_slice_merger_free(hoodie_slice_merger *m);
/** Merge one base batch; `out` is initialised here with the merged rows. */
hoodie_status hoodie_slice_merger_base(hoodie_slice_merger *m, const hoodie_batch *base, hoodie_batch *out);
/**
 * hoodie_slice_merger_base without the gather: the selection of the merged rows over the merger's sources
 * (*srcs[0] is `base`; the others are log batches shaped like it, valid as long as the merger; the rows of lazy
 * log items a selection takes are decoded into a source that keeps them until hoodie_slice_merger_rows_taken).
 * *sel is valid until the next call.
 */
hoodie_status hoodie_slice_merger_select(hoodie_slice_merger *m, const hoodie_batch *base, const hoodie_row_ref **sel,
                                         size_t *n, const hoodie_batch *const **srcs, size_t *n_srcs);
/** The selections hoodie_slice_merger_select gave are written (a caller that holds selections past the next call
 *  says when it holds none): the log rows decoded for them (lazy log items) may go. */
void hoodie_slice_merger_rows_taken(hoodie_slice_merger *m);
/** Base rows merged so far that a log version replaced (updates); *deleted (may be NULL): those a log delete
 *  removed. */
int64_t hoodie_slice_merger_replaced(const hoodie_slice_merger *m, int64_t *deleted);
/** Whether merging may drop base rows (a delete among the folded log versions, or a _hoodie_is_deleted column).
 *  If not, every base row comes out once, in base order, and the log-only rows after them. */
int hoodie_slice_merger_may_drop(const hoodie_slice_merger *m);
/** The log-only rows, after the last base batch; `out` is initialised here (possibly empty). */
hoodie_status hoodie_slice_merger_finish(hoodie_slice_merger *m, hoodie_batch *out);
/** Deletes of the folded log records: keys (borrowed from the log items), their ordering values. */
typedef struct hoodie_slice_log_deletes {
    const char **keys;
    size_t *key_lens;
    hoodie_ordering *ords;
    size_t count;
} hoodie_slice_log_deletes;

/**
 * The folded log records alone, without a base (log compaction), instead of merging base batches: `out`
 * (initialised here) gets the winning record of each key; `dels` the keys whose winner is a delete (its ordering
 * value) and the keys whose record follows a delete without an ordering value (no ordering value: folded again
 * before the records, it removes the base record as the original delete did). Keys in first-seen order.
 */
hoodie_status hoodie_slice_merger_log_records(hoodie_slice_merger *m, hoodie_batch *out, hoodie_slice_log_deletes *dels);
void hoodie_slice_log_deletes_dispose(hoodie_slice_log_deletes *d);

/** Number of distinct keys in the log items. */
size_t hoodie_slice_merger_log_keys(const hoodie_slice_merger *m);

#endif
