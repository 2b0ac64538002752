#include "hoodie_test.h"
#include "merge/losertree.h"

#include <stdlib.h>

/* k sorted sources of int keys; merge them with the loser tree and check against a reference:
 * the output must be all (key, source, position) triples sorted by key, then source, then position,
 * and same_key must say exactly when a key repeats the previous output key. */

typedef struct src { int *keys; size_t n, pos; } src;
typedef struct ctx { src *s; } ctx;

static int cmp_heads(void *p, uint32_t a, uint32_t b)
{
    ctx *c = p;
    int x = c->s[a].keys[c->s[a].pos], y = c->s[b].keys[c->s[b].pos];
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

typedef struct triple { int key; uint32_t src; size_t pos; } triple;

static int cmp_triple(const void *a, const void *b)
{
    const triple *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static uint64_t run_case(uint32_t k, size_t max_len, int key_range, int unique, unsigned seed)
{
    srand(seed);
    src *s = calloc(k, sizeof *s);
    size_t total = 0;
    for (uint32_t i = 0; i < k; i++) {
        s[i].n = max_len ? (size_t)rand() % (max_len + 1) : 0;
        s[i].keys = malloc((s[i].n + 1) * sizeof(int));
        for (size_t j = 0; j < s[i].n; j++) s[i].keys[j] = rand() % key_range;
        qsort(s[i].keys, s[i].n, sizeof(int), cmp_int);
        if (unique) { /* dedupe within the source */
            size_t w = 0;
            for (size_t j = 0; j < s[i].n; j++)
                if (w == 0 || s[i].keys[w - 1] != s[i].keys[j]) s[i].keys[w++] = s[i].keys[j];
            s[i].n = w;
        }
        total += s[i].n;
    }
    triple *ref = malloc((total + 1) * sizeof *ref);
    size_t t = 0;
    for (uint32_t i = 0; i < k; i++)
        for (size_t j = 0; j < s[i].n; j++) ref[t++] = (triple){ s[i].keys[j], i, j };
    qsort(ref, total, sizeof *ref, cmp_triple);

    ctx c = { s };
    hoodie_losertree lt;
    uint8_t *ex = calloc(k, 1);
    for (uint32_t i = 0; i < k; i++) ex[i] = s[i].n == 0;
    hoodie_assert_ok(hoodie_losertree_init(&lt, k, cmp_heads, &c));
    hoodie_losertree_build(&lt, ex);
    size_t out = 0;
    for (uint32_t w; (w = hoodie_losertree_top(&lt)) != HOODIE_LT_NONE; out++) {
        hoodie_assert(out < total);
        hoodie_assert_equal_i(ref[out].key, s[w].keys[s[w].pos]);
        hoodie_assert_equal_i(ref[out].src, w);
        hoodie_assert_equal_i(ref[out].pos, s[w].pos);
        int want_same = out > 0 && ref[out - 1].key == ref[out].key;
        hoodie_assert_equal_i(want_same, hoodie_losertree_same_key(&lt));
        int prev = s[w].keys[s[w].pos];
        s[w].pos++;
        int exhausted = s[w].pos == s[w].n;
        hoodie_losertree_advance(&lt, exhausted, !exhausted && s[w].keys[s[w].pos] == prev);
    }
    hoodie_assert_equal_i(total, out);
    uint64_t comps = lt.comparisons;
    hoodie_losertree_dispose(&lt);
    for (uint32_t i = 0; i < k; i++) free(s[i].keys);
    free(s);
    free(ref);
    free(ex);
    return comps;
}

HOODIE_TEST(merge_losertree__one_source)
{
    run_case(1, 100, 50, 0, 1);
    run_case(1, 0, 50, 0, 2);
}

HOODIE_TEST(merge_losertree__random_with_duplicates_across_and_within)
{
    for (unsigned seed = 1; seed <= 300; seed++) {
        uint32_t k = 1 + (uint32_t)(seed % 17);
        run_case(k, seed % 5 == 0 ? 0 : 40, 1 + (int)(seed % 30), 0, seed);
    }
}

HOODIE_TEST(merge_losertree__unique_sources_same_key_without_extra_comparisons)
{
    for (unsigned seed = 1; seed <= 200; seed++) run_case(2 + seed % 9, 60, 40, 1, seed * 7);
}

HOODIE_TEST(merge_losertree__thousands_of_inputs)
{
    run_case(3000, 20, 100000, 1, 42);
    run_case(4097, 5, 50, 0, 43); /* not a power of two, many equal keys, many empty sources */
}

HOODIE_TEST(merge_losertree__comparisons_are_log_k)
{
    /* 64 sources of 1000 unique keys: each output costs at most ceil(log2 64) = 6 comparisons. */
    uint64_t comps = run_case(64, 1000, 1 << 30, 1, 99);
    hoodie_assert(comps <= 64 * 1000 * 6 + 64);
}
