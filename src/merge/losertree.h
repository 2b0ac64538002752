/*
 * A loser tree for k-way merging of sorted inputs (RFC-103's sorted merge), with same-key detection that costs
 * no extra comparison.
 *
 * The caller owns k sources, each with a current head record; the tree only orders source indices through a
 * comparator on the heads' keys. Ties between equal keys go to the lower source index, so the output order is
 * deterministic: sources are numbered oldest first and the merger sees equal keys in source order.
 *
 *   leaves:  source i sits at position k + i; internal nodes 1 .. k-1 hold the loser of their match;
 *            node[0] is the champion (the smallest head).
 *   flags:   eq[n] = the loser at node n has the same key as the winner of n's subtree.
 *
 * Same-key detection. When the champion W (key K) is popped, its source advances and the path from its leaf to
 * the root is replayed. Every head other than W's successor that has key K is either a loser on that path with
 * eq set, or lost below to a head of key K that is (so: some eq on the path is set exactly when another head has
 * key K). The next champion therefore has key K iff an eq flag on the path was set before the replay, or the
 * advanced source's own next head repeats K (which only the source can know: it says so in advance()).
 *
 * Memory: O(k). Each advance costs ceil(log2 k) comparisons.
 */
#ifndef HOODIE_MERGE_LOSERTREE_H
#define HOODIE_MERGE_LOSERTREE_H

#include <stdint.h>
#include "hoodie/common.h"

#define HOODIE_LT_NONE UINT32_MAX

/** Compare the current head keys of sources a and b: <0, 0, >0. Never called for exhausted sources. */
typedef int (*hoodie_losertree_cmp)(void *ctx, uint32_t a, uint32_t b);

typedef struct hoodie_losertree {
    uint32_t k;
    uint32_t *node;        /* node[0] champion; node[1..k-1] losers */
    uint8_t *eq;           /* eq[n] for internal nodes */
    uint8_t *done;         /* done[i]: source i exhausted */
    hoodie_losertree_cmp cmp;
    void *ctx;
    int same_key;          /* the champion has the same key as the previous champion */
    uint64_t comparisons;  /* calls of cmp, for measurements */
} hoodie_losertree;

hoodie_status hoodie_losertree_init(hoodie_losertree *lt, uint32_t k, hoodie_losertree_cmp cmp, void *ctx);
void hoodie_losertree_dispose(hoodie_losertree *lt);
/**
 * Build the tree once every source's first head is loaded. exhausted[i] != 0 marks an empty source
 * (NULL: none is empty).
 */
void hoodie_losertree_build(hoodie_losertree *lt, const uint8_t *exhausted);
/** The source holding the smallest head, or HOODIE_LT_NONE when every source is exhausted. */
static inline uint32_t hoodie_losertree_top(const hoodie_losertree *lt)
{
    uint32_t w = lt->node[0];
    return lt->done[w] ? HOODIE_LT_NONE : w;
}
/**
 * The caller has consumed the top source's head and moved that source to its next head (or found it exhausted).
 * `repeats_key`: the source's new head has the same key as the one consumed (only possible for sources that
 * may hold duplicate keys). Afterwards hoodie_losertree_same_key() tells whether the new top continues the key.
 */
void hoodie_losertree_advance(hoodie_losertree *lt, int exhausted, int repeats_key);
/** 1 if the current top has the same key as the previously consumed top. */
static inline int hoodie_losertree_same_key(const hoodie_losertree *lt) { return lt->same_key; }

#endif
