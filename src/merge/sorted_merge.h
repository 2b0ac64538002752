/*
 * Streaming k-way sorted merge of one LSM file group (RFC-103 "core feature 2"): k sources, each sorted by
 * record key, merged through the loser tree (merge/losertree.h) into batches of surviving records, sorted by key.
 * It serves snapshot reads of LSM file groups, log compaction (L0 -> L0) and compaction (L0 -> L1).
 *
 * Sources are numbered in apply order: the base file (L1) first when there is one, then the log files (L0) oldest
 * first. Records of one key reach the merger in source order (the loser tree breaks key ties by source index),
 * so the result is deterministic. Per key the same-key state machine keeps two candidates only:
 *
 *   base   the base file's version (source 0 when cfg.first_is_base)
 *   log    the log versions folded in source order with policy.log_fold
 *   emit   base vs log under policy.base (record_merge.h), exactly as the default layout's hash merge decides;
 *          a winning delete is dropped, or emitted with its delete flag when cfg.keep_deletes (log compaction must
 *          keep deletes: the base they apply to is merged later)
 *   fill   policy.toast_fill / policy.partial (hoodie_fill_spec): the winner takes the loser's values where it
 *          lacks its own, as a record made in an aux batch (source k + 1) kept until gathered; in every merge with
 *          partial updates, else where a log record replaces the base record; never across a delete, nor from the
 *          base into a log record that follows a delete of its key
 *
 * Memory: O(k) for the tree and the heads, plus one batch per source (each source's current batch), a carry
 * batch of at most two rows (candidates of a key that spans a source's batch boundary), the output batch
 * being gathered (cfg.batch_rows rows at most) and, with fills, the filled records not gathered yet (emptied at
 * each gather that leaves none of them a candidate). Output rows are gathered with hoodie_batch_take from the sources'
 * batches: before a source replaces its batch, the rows selected so far are gathered into the output batch, which
 * is then returned (so output batches may be shorter than batch_rows).
 *
 * Keys are compared as unsigned bytes (UTF-8 order; equal to Java's String order for text without supplementary
 * characters). A null key compares as "".
 */
#ifndef HOODIE_MERGE_SORTED_MERGE_H
#define HOODIE_MERGE_SORTED_MERGE_H

#include "merge/record_merge.h"

#include <stdint.h>
#include <string.h>

/**
 * One sorted input. next() loads the source's next batch: on HOODIE_OK `*out` is initialised (the merge takes
 * ownership) and `*deleted` is either NULL or a malloc'ed array of per-row delete flags (ownership passes too);
 * HOODIE_ITEROVER at the end. Empty batches are allowed. Batches must be shaped like cfg.schema.
 */
typedef struct hoodie_sorted_source {
    hoodie_status (*next)(void *ctx, hoodie_batch *out, uint8_t **deleted);
    void *ctx;
} hoodie_sorted_source;

typedef struct hoodie_sorted_merge_cfg {
    const hoodie_field *schema;  /* root STRUCT of every batch */
    int key_col;                 /* STRING record key column */
    int ordering_col;            /* -1: none */
    int deleted_col;             /* BOOL _hoodie_is_deleted column, or -1 */
    hoodie_merge_policy policy;
    int first_is_base;           /* source 0 is the base file (L1) */
    int keep_deletes;            /* emit winning deletes with a delete flag instead of dropping them */
    int unique_sources;          /* 1: no source holds a key twice (skips the per-row repeat check) */
    int64_t batch_rows;          /* output batch size; <= 0: 65536 */
    const hoodie_delete_marker *marker; /* the table's custom delete marker (resolved against schema), or NULL */
} hoodie_sorted_merge_cfg;

typedef struct hoodie_sorted_merge_stats {
    uint64_t rows_in;            /* rows read from the sources */
    uint64_t rows_out;           /* rows emitted */
    uint64_t keys;               /* distinct keys seen */
    uint64_t comparisons;        /* key comparisons made by the loser tree */
    uint64_t repeat_checks;      /* key comparisons made to detect duplicates within a source */
} hoodie_sorted_merge_stats;

typedef struct hoodie_sorted_merge hoodie_sorted_merge;

/**
 * What a row of a merge keeping deletes stands for. A record that follows a delete of its key carries that delete
 * with it, for log compaction to write it (to be applied before the row) and the merges after it to see it: a
 * delete without an ordering value removed the base record whatever its ordering value (as the hash merge has it);
 * any delete keeps the base record's values out of the record (fills).
 */
typedef enum hoodie_sorted_row_kind {
    HOODIE_SORTED_RECORD = 0,
    HOODIE_SORTED_DELETE = 1,               /* a delete, with its ordering value */
    HOODIE_SORTED_RECORD_AFTER_NATURAL = 2, /* a record after a delete without an ordering value: the delete is
                                               written without one */
    HOODIE_SORTED_NATURAL_DELETE = 3,       /* a delete after such a delete: written without an ordering value */
    HOODIE_SORTED_RECORD_AFTER_DELETE = 4   /* a record after a delete with an ordering value: the delete is written
                                               with the record's (the record still wins it, ties going to the later) */
} hoodie_sorted_row_kind;

/** Open the merge over k >= 1 sources (borrowed; they must outlive the merge). Loads each source's first batch. */
hoodie_status hoodie_sorted_merge_open(hoodie_sorted_merge **out, const hoodie_sorted_merge_cfg *cfg,
                                       const hoodie_sorted_source *sources, size_t k);
/**
 * The next batch of merged records (`out` initialised here; never empty). With cfg.keep_deletes `*deleted`
 * receives a malloc'ed per-row flag array (hoodie_sorted_row_kind: 0 a record, else see there), else it is set to
 * NULL; `deleted` may be NULL when not keeping deletes. HOODIE_ITEROVER when done.
 */
hoodie_status hoodie_sorted_merge_next(hoodie_sorted_merge *m, hoodie_batch *out, uint8_t **deleted);
void hoodie_sorted_merge_stats_get(const hoodie_sorted_merge *m, hoodie_sorted_merge_stats *out);
void hoodie_sorted_merge_free(hoodie_sorted_merge *m);

/** Compare two record keys as the merge does. */
static inline int hoodie_sorted_key_compare(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn, i = 0;
    for (; i + 8 <= n; i += 8) { /* 8 bytes at a time as big-endian integers: no memcmp call for most pairs */
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
#endif
            return x < y ? -1 : 1;
        }
    }
    int c = n > i ? memcmp(a + i, b + i, n - i) : 0;
    if (c) return c;
    return (an > bn) - (an < bn);
}

#endif
