#include "merge/losertree.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

hoodie_status hoodie_losertree_init(hoodie_losertree *lt, uint32_t k, hoodie_losertree_cmp cmp, void *ctx)
{
    memset(lt, 0, sizeof *lt);
    if (k == 0) return HOODIE_FAIL(HOODIE_EINVAL, "a loser tree needs at least one source");
    lt->k = k;
    lt->cmp = cmp;
    lt->ctx = ctx;
    lt->node = calloc(k, sizeof *lt->node);
    lt->eq = calloc(k, 1);
    lt->done = calloc(k, 1);
    if (!lt->node || !lt->eq || !lt->done) {
        hoodie_losertree_dispose(lt);
        return HOODIE_NOMEM();
    }
    return HOODIE_OK;
}

void hoodie_losertree_dispose(hoodie_losertree *lt)
{
    free(lt->node);
    free(lt->eq);
    free(lt->done);
    memset(lt, 0, sizeof *lt);
}

/* Play a match: returns the winner, stores the loser in *loser and whether their keys are equal in *equal. */
static inline uint32_t play(hoodie_losertree *lt, uint32_t a, uint32_t b, uint32_t *loser, uint8_t *equal)
{
    int da = lt->done[a], db = lt->done[b];
    *equal = 0;
    if (da || db) {
        /* an exhausted source is +infinity; two of them tie by index */
        int a_wins = da && db ? a < b : !da;
        *loser = a_wins ? b : a;
        return a_wins ? a : b;
    }
    lt->comparisons++;
    int c = lt->cmp(lt->ctx, a, b);
    if (c == 0) {
        *equal = 1;
        c = a < b ? -1 : 1;
    }
    *loser = c < 0 ? b : a;
    return c < 0 ? a : b;
}

static uint32_t build(hoodie_losertree *lt, uint32_t pos)
{
    if (pos >= lt->k) return pos - lt->k;
    uint32_t a = build(lt, 2 * pos), b = build(lt, 2 * pos + 1);
    uint32_t loser;
    uint32_t w = play(lt, a, b, &loser, &lt->eq[pos]);
    lt->node[pos] = loser;
    return w;
}

void hoodie_losertree_build(hoodie_losertree *lt, const uint8_t *exhausted)
{
    for (uint32_t i = 0; i < lt->k; i++) lt->done[i] = exhausted ? exhausted[i] != 0 : 0;
    lt->node[0] = lt->k == 1 ? 0 : build(lt, 1);
    lt->same_key = 0;
}

void hoodie_losertree_advance(hoodie_losertree *lt, int exhausted, int repeats_key)
{
    uint32_t cand = lt->node[0];
    int any_eq = 0;
    if (exhausted) lt->done[cand] = 1;
    for (uint32_t pos = (cand + lt->k) >> 1; pos >= 1; pos >>= 1) {
        uint32_t loser;
        uint8_t equal;
        any_eq |= lt->eq[pos];
        uint32_t w = play(lt, cand, lt->node[pos], &loser, &equal);
        lt->node[pos] = loser;
        lt->eq[pos] = equal;
        cand = w;
    }
    lt->node[0] = cand;
    lt->same_key = !lt->done[cand] && (any_eq || (repeats_key && !exhausted));
}
