/*
 * The memory bound of the streaming sorted merge, measured by a counting allocator: this test binary interposes
 * malloc/calloc/realloc/free (glibc's __libc_* underneath) and, while counting is on, tracks live heap bytes
 * (malloc_usable_size) and their peak. The sources generate their batches on the fly, so everything live during
 * the merge is the merge's own state plus one batch per source: the peak must not grow with the number of rows.
 *
 * Skipped under AddressSanitizer, which owns malloc.
 */
#include "hoodie_test.h"
#include "merge/sorted_merge.h"
#include "model/build.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define COUNTING_ALLOCATOR 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNTING_ALLOCATOR 0
#endif
#endif
#ifndef COUNTING_ALLOCATOR
#define COUNTING_ALLOCATOR 1
#endif

#if COUNTING_ALLOCATOR
#include <malloc.h>
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static int counting;
static long long live_bytes, peak_bytes;

static void count_add(void *p)
{
    if (!p || !counting) return;
    live_bytes += (long long)malloc_usable_size(p);
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
}
static void count_sub(void *p)
{
    if (p && counting) live_bytes -= (long long)malloc_usable_size(p);
}
void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    count_add(p);
    return p;
}
void *calloc(size_t n, size_t s)
{
    void *p = __libc_calloc(n, s);
    count_add(p);
    return p;
}
void *realloc(void *old, size_t n)
{
    count_sub(old);
    void *p = __libc_realloc(old, n);
    if (p) count_add(p);
    else count_add(old); /* the old block is still there */
    return p;
}
void free(void *p)
{
    count_sub(p);
    __libc_free(p);
}
#endif

typedef struct gen { uint32_t i, k; int64_t n, pos, batch; hoodie_field *schema; } gen;

/* Source i of k: keys 3*j + (i % 3) for j in [0, n): duplicates across every third source. */
static hoodie_status gen_next(void *ctx, hoodie_batch *out, uint8_t **deleted)
{
    gen *g = ctx;
    *deleted = NULL;
    if (g->pos >= g->n) return HOODIE_ITEROVER;
    int64_t take = g->n - g->pos < g->batch ? g->n - g->pos : g->batch;
    HOODIE_TRY(hoodie_batch_init(out, g->schema));
    hoodie_array *c = out->root.children;
    hoodie_field *f = out->schema.children;
    char kb[32];
    for (int64_t r = 0; r < take; r++) {
        int64_t j = g->pos + r;
        snprintf(kb, sizeof kb, "key%012lld", (long long)(3 * j + g->i % 3));
        HOODIE_TRY(hoodie_array_append_str(&c[0], &f[0], kb));
        HOODIE_TRY(hoodie_array_append_int(&c[1], &f[1], (int64_t)g->i));
    }
    out->root.length = take;
    g->pos += take;
    return HOODIE_OK;
}

static long long run(uint32_t k, int64_t rows_per_source, int64_t batch, uint64_t *rows_out, uint64_t *cmps)
{
    hoodie_field schema, c;
    hoodie_assert_ok(hoodie_field_init(&schema, "root", hoodie_type_of(HOODIE_TYPE_STRUCT), 0));
    hoodie_assert_ok(hoodie_field_init(&c, "_hoodie_record_key", hoodie_type_of(HOODIE_TYPE_STRING), 0));
    hoodie_assert_ok(hoodie_field_add_child(&schema, &c));
    hoodie_field_dispose(&c);
    hoodie_assert_ok(hoodie_field_init(&c, "ts", hoodie_type_of(HOODIE_TYPE_INT64), 1));
    hoodie_assert_ok(hoodie_field_add_child(&schema, &c));
    hoodie_field_dispose(&c);
    gen *g = calloc(k, sizeof *g);
    hoodie_sorted_source *ss = calloc(k, sizeof *ss);
    for (uint32_t i = 0; i < k; i++) {
        g[i] = (gen){ i, k, rows_per_source, 0, batch, &schema };
        ss[i].next = gen_next;
        ss[i].ctx = &g[i];
    }
    hoodie_merge_policy pol = { .log_fold = HOODIE_MERGE_EVENT_TIME_ORDERING,
                                .base = HOODIE_MERGE_EVENT_TIME_ORDERING };
    hoodie_sorted_merge_cfg cfg = { &schema, 0, 1, -1, pol, 1, 0, 1, batch, NULL };
#if COUNTING_ALLOCATOR
    live_bytes = peak_bytes = 0;
    counting = 1;
#endif
    hoodie_sorted_merge *m;
    hoodie_assert_ok(hoodie_sorted_merge_open(&m, &cfg, ss, k));
    hoodie_batch b;
    hoodie_status rc;
    uint64_t n = 0;
    while ((rc = hoodie_sorted_merge_next(m, &b, NULL)) == HOODIE_OK) {
        n += (uint64_t)b.root.length;
        hoodie_batch_dispose(&b);
    }
    hoodie_assert_equal_i(HOODIE_ITEROVER, rc);
    hoodie_sorted_merge_stats st;
    hoodie_sorted_merge_stats_get(m, &st);
    hoodie_sorted_merge_free(m);
#if COUNTING_ALLOCATOR
    counting = 0;
#endif
    *rows_out = n;
    *cmps = st.comparisons;
    free(g);
    free(ss);
    hoodie_field_dispose(&schema);
#if COUNTING_ALLOCATOR
    return peak_bytes;
#else
    return 0;
#endif
}

HOODIE_TEST(merge_sorted__memory_is_bounded_by_sources_not_rows)
{
    uint64_t out1, out2, c1, c2;
    long long p1 = run(16, 20000, 1024, &out1, &c1);
    long long p2 = run(16, 80000, 1024, &out2, &c2);
    /* keys 3j + (i % 3): 3 residues x n keys each */
    hoodie_assert_equal_i(3 * 20000, (int64_t)out1);
    hoodie_assert_equal_i(3 * 80000, (int64_t)out2);
    /* log2(16) = 4 comparisons per record at most */
    hoodie_assert(c2 <= 16ull * 80000 * 4 + 16);
#if COUNTING_ALLOCATOR
    /* one batch of 1024 rows here is ~30 KiB (key bytes, offsets, int64 values); 16 sources + the carry + the
     * output + the selection vector: well under 2 MiB, while the input is 16 x 80000 rows (~40 MiB) */
    fprintf(stderr, "    sorted merge peak heap: %lld bytes (16 x 20000 rows in), %lld bytes (16 x 80000 rows in)\n", p1, p2);
    hoodie_assert(p1 > 0);
    hoodie_assert(p2 < 2 * 1024 * 1024);
    hoodie_assert(p2 <= p1 + p1 / 4 + 65536); /* 4x the rows, the same memory */
#else
    (void)p1; (void)p2;
#endif
}
